// Runs the built rawio binary end to end: --save into a scratch database, then rawio report.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "rawio/test_util.h"

namespace diskcond::rawio::report {
namespace {

using testing::Outcome;
using testing::rawio;
using testing::slurp;

const char* kQuick = " --no-progress -t 0.3s --warmup 0 -n 4m -s 4k -p 2 ";

TEST(RawioHistoryBinary, SaveTwiceThenReportTheLastTwo) {
  testing::ScratchDir dir;
  testing::write_pattern_file(dir.file("data"), 4 << 20);
  const std::string db = " --save --db " + dir.file("history/rawio.db") + " ";
  Outcome first = rawio("-R -S -i plain" + std::string(kQuick) + db + dir.file("data"));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("\nplain "), std::string::npos) << first.out;  // still printed
  EXPECT_NE(first.err.find("rawio: saved as run 1\n"), std::string::npos) << first.err;
  Outcome second = rawio("-R -S -i vinum" + std::string(kQuick) + db + dir.file("data"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("rawio: saved as run 2\n"), std::string::npos) << second.err;

  Outcome report = rawio("report --db " + dir.file("history/rawio.db") + " --last 2");
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.err, "");
  std::regex table(
      "            Random read  Sequential read\n"
      "ID          K/sec  /sec    K/sec  /sec\n"
      "plain +[0-9]+\\.[0-9] +[0-9]+ +[0-9]+\\.[0-9] +[0-9]+\n"
      "vinum +[0-9]+\\.[0-9] +[0-9]+ +[0-9]+\\.[0-9] +[0-9]+\n"
      "Measured plain: RR [0-9.]+ s, SR [0-9.]+ s\n"
      "Measured vinum: RR [0-9.]+ s, SR [0-9.]+ s\n"
      "(?:Caution: [^\n]*\n)*");  // the honesty checks', kept with the runs
  EXPECT_TRUE(std::regex_match(report.out, table)) << report.out;
  // The rows are the figures as first printed.
  const size_t row = first.out.find("\nplain ") + 1;
  std::string plain_row = first.out.substr(row, first.out.find('\n', row) + 1 - row);
  EXPECT_NE(report.out.find(plain_row), std::string::npos) << first.out << report.out;

  Outcome list = rawio("report --list --db " + dir.file("history/rawio.db"));
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::regex rows(
      "Run +When +Host +Target +ID +Tests\n"
      "  1  20[0-9-]+T[0-9:]+Z .* plain  RR SR\n"
      "  2  20[0-9-]+T[0-9:]+Z .* vinum  RR SR\n");
  EXPECT_TRUE(std::regex_match(list.out, rows)) << list.out;
}

TEST(RawioHistoryBinary, SaveUsesTheXdgDataDirectoryByDefault) {
  testing::ScratchDir dir;
  testing::write_pattern_file(dir.file("data"), 4 << 20);
  std::string env = "XDG_DATA_HOME=" + dir.file("xdg") + " ";
  testing::ScratchDir io;
  std::string cmd =
      env + RAWIO_BINARY + " -R --save" + kQuick + dir.file("data") + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_TRUE(std::filesystem::exists(dir.file("xdg/diskcond/rawio.db")));
  cmd = env + RAWIO_BINARY + " report >" + io.file("out") + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(io.file("out"));
  EXPECT_NE(slurp(io.file("out")).find("\nanon "), std::string::npos) << slurp(io.file("out"));
}

// Issue 13, item 16: --save opens the database before the run, so a database that cannot be
// written is an error before anything is measured (and no test file is made).
TEST(RawioHistoryBinary, AnUnwritableDatabaseIsAnErrorBeforeTheRun) {
  testing::ScratchDir dir;
  testing::write_pattern_file(dir.file("data"), 4 << 20);
  testing::write_zero_file(dir.file("file"), 16);
  Outcome r = rawio("-R" + std::string(kQuick) + "--save --db " + dir.file("file/rawio.db") + " " +
                    dir.file("data"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(
      r.err.find("rawio: --save: cannot create " + dir.file("file") + " for the history database"),
      0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // The default database under a HOME that cannot hold it, on a directory: no test file either.
  std::filesystem::create_directory(dir.file("target"));
  testing::ScratchDir io;
  const std::string cmd = "env -u XDG_DATA_HOME HOME=" + dir.file("file") + " " + RAWIO_BINARY +
                          " -R --no-progress -n 16m --save " + dir.file("target") + " >" +
                          io.file("out") + " 2>" + io.file("err");
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 1);
  EXPECT_EQ(slurp(io.file("out")), "");
  EXPECT_EQ(
      slurp(io.file("err"))
          .find("rawio: --save: cannot create " + dir.file("file") + "/.local/share/diskcond"),
      0u)
      << slurp(io.file("err"));
  EXPECT_TRUE(std::filesystem::is_empty(dir.file("target")));
}

TEST(RawioHistoryBinary, ReportErrorsAreOneLine) {
  testing::ScratchDir dir;
  struct Case {
    std::string args;
    int exit_code;
    const char* expect;
  };
  const Case cases[] = {
      {"report --db " + dir.file("none.db"), 1, "rawio: report: no history database at"},
      {"report --db " + dir.file("none.db") + " --plot x.gif", 2, "must end in .svg or .png"},
      {"report --bogus", 2, "bogus"},
      {"-R --db " + dir.file("x.db") + " " + dir.file("none"), 2, "--db requires --save"},
  };
  for (const Case& c : cases) {
    Outcome r = rawio(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    EXPECT_EQ(r.out, "") << c.args;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.db")));
}

}  // namespace
}  // namespace diskcond::rawio::report
