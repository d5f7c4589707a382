// libFuzzer harness: the daemon's control-message decoders never crash, and what they accept
// round-trips (an accepted update carries a valid profile).
#include <cstdlib>
#include <string>

#include "dmc/mount/control_protocol.h"

using namespace diskcond;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  if (auto request = mount::decode_request(line); request.ok()) {
    if (request->op == mount::ControlOp::kUpdate && !validate(request->settings.profile).ok())
      std::abort();
    auto again = mount::decode_request(mount::encode_request(*request));
    if (!again.ok() || again->op != request->op || again->force != request->force ||
        !(again->settings.profile == request->settings.profile)) {
      std::abort();
    }
  }
  (void)mount::decode_ack(line);
  if (auto status = mount::decode_status(line); status.ok()) {
    if (!mount::decode_status(mount::encode_status(*status)).ok()) std::abort();
  }
  return 0;
}
