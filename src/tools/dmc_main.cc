// dmc: Disk Mount Conditioner for Linux. All logic lives in src/dmc/cli (dmc_cli.h).
#include "dmc/cli/dmc_cli.h"

int main(int argc, char** argv) {
  return diskcond::dmc::dmc_main(argc, argv);
}
