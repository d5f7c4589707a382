// Runs the built rawio binary end to end on scratch files and directories.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "rawio/test_util.h"

namespace diskcond::rawio {
namespace {

namespace fs = std::filesystem;

using testing::Outcome;
using testing::rawio;
using testing::slurp;

size_t entries(const std::string& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

const char* kQuick = " --no-progress -n 2m -s 4k -p 2 -t 200ms ";

TEST(RawioBinary, AllTestsOnADirectoryPrintTheSeedTableAndRemoveTheTestFile) {
  testing::ScratchDir dir;
  Outcome r = rawio(std::string("-a") + kQuick + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::regex table(
      "            Random read  Sequential read    Random write Sequential write\n"
      "ID          K/sec  /sec    K/sec  /sec     K/sec  /sec     K/sec  /sec\n"
      "anon +[0-9]+\\.[0-9] +[0-9]+ +[0-9]+\\.[0-9] +[0-9]+ +[0-9]+\\.[0-9] +[0-9]+ +[0-9]+\\.[0-9] +[0-9]+\n");
  EXPECT_TRUE(std::regex_match(r.out, table)) << r.out;
  EXPECT_EQ(entries(dir.path()), 0u) << "test file left behind";
}

TEST(RawioBinary, VerboseRowsHaveTheSeedColumns) {
  testing::ScratchDir dir;
  Outcome r = rawio(std::string("-a -v 1 -i disk1") + kQuick + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::regex rows(
      "Test    ID        K/sec    /sec %User  %Sys %Total\n"
      "(?:(RR|SR|RW|SW) +disk1 +[0-9]+\\.[0-9] +[0-9]+ +[0-9]+\\.[0-9] +[0-9]+\\.[0-9] +[0-9]+\\.[0-9] +4096\n){4}");
  EXPECT_TRUE(std::regex_match(r.out, rows)) << r.out;
}

TEST(RawioBinary, JsonIsOneDocumentAloneOnStdout) {
  testing::ScratchDir dir;
  Outcome r = rawio(std::string("-R -w --json --seed 7") + kQuick + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);  // throws, failing the test, if anything else is there
  EXPECT_EQ(doc["options"]["seed"], 7);
  ASSERT_EQ(doc["targets"].size(), 1u);
  const auto& tests = doc["targets"][0]["tests"];
  ASSERT_EQ(tests.size(), 2u);
  EXPECT_EQ(tests[0]["test"], "RR");
  EXPECT_EQ(tests[1]["test"], "SW");
  // One pass over the 2 MiB area in 4 KiB transfers, unless the 200 ms limit came first.
  EXPECT_LE(tests[0]["transfers"].get<uint64_t>(), 512u);
  EXPECT_EQ(tests[0]["bytes"].get<uint64_t>(), tests[0]["transfers"].get<uint64_t>() * 4096);
  EXPECT_GT(tests[0]["lat_ns"]["p99"].get<uint64_t>(), 0u);
  EXPECT_TRUE(tests[0].contains("bw_bytes_per_sec"));
  EXPECT_TRUE(tests[0]["cpu"].contains("cpu_us_per_transfer"));
  EXPECT_FALSE(tests[0]["intervals"]["samples"].empty());
}

TEST(RawioBinary, SeveralTargetsGiveOneRowEachNamedByTarget) {
  testing::ScratchDir a, b;
  Outcome r = rawio(std::string("-R -S") + kQuick + a.path() + " " + b.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string name_a = fs::path(a.path()).filename().string();
  std::string name_b = fs::path(b.path()).filename().string();
  EXPECT_NE(r.out.find("\n" + name_a + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n" + name_b + " "), std::string::npos) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4);
}

TEST(RawioBinary, ReadsAnExistingFileWithoutChangingIt) {
  testing::ScratchDir dir;
  testing::write_pattern_file(dir.file("data"), 1 << 20);
  auto before = testing::read_file(dir.file("data"));
  Outcome r = rawio(std::string("-R -S -v 1") + kQuick + dir.file("data"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("has only 1048576 bytes"), std::string::npos) << r.err;
  EXPECT_EQ(testing::read_file(dir.file("data")), before);
}

TEST(RawioBinary, RefusesToWriteAnExistingFileUnlessForced) {
  testing::ScratchDir dir;
  testing::write_pattern_file(dir.file("data"), 1 << 20);
  auto before = testing::read_file(dir.file("data"));
  Outcome r = rawio(std::string("-a") + kQuick + dir.file("data"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("refusing to write"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--force-write=" + dir.file("data")), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(testing::read_file(dir.file("data")), before);

  r = rawio(std::string("-W --force-write=") + dir.file("data") + kQuick + dir.file("data"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(testing::read_file(dir.file("data")), before);
}

TEST(RawioBinary, BadOptionsExitTwoWithOneLineAndTouchNothing) {
  testing::ScratchDir dir;
  for (const char* args : {"-a -n 3x", "-a -e nope", "-a -v 9", "-a --bogus", "-a -s 1000 -d on"}) {
    Outcome r = rawio(std::string(args) + " --no-progress " + dir.path());
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
    EXPECT_EQ(entries(dir.path()), 0u) << args;
  }
  Outcome r = rawio("-a /no/such/dir/x");
  EXPECT_EQ(r.exit_code, 2);
}

// Issue 13, item 13: a mistyped device name is an error, not a test file on devtmpfs.
TEST(RawioBinary, APathUnderDevThatDoesNotExistIsNoSuchDevice) {
  const std::string device = "/dev/rawio-test-no-such-device-" + std::to_string(getpid());
  for (const std::string& args : {"-R -n 16m " + device, "-a --json -n 16m " + device}) {
    Outcome r = rawio(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(r.err, "rawio: no such device " + device + "\n");
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_FALSE(fs::exists(device));
  }
}

// Issue 13, item 15: the area named in the error is the one given, not what is left of it
// after rounding down to whole transfers (0 here).
TEST(RawioBinary, AnAreaSmallerThanOneTransferNamesTheSizeGiven) {
  testing::ScratchDir dir;
  Outcome r = rawio("-a --no-progress -s 32m -n 16m " + dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "rawio: area on " + dir.path() +
                       " (16777216 bytes) is too small: these tests need at least 268435456 bytes (8 worker(s) x "
                       "33554432-byte transfers); use a larger -n, a smaller -s or fewer -p workers\n");
  EXPECT_EQ(entries(dir.path()), 0u);
}

TEST(RawioBinary, FallsBackToBufferedWhereODirectIsRefused) {
  // ramfs has no O_DIRECT: open(O_DIRECT) fails with EINVAL.
  if (geteuid() != 0) GTEST_SKIP() << "needs root to mount ramfs";
  testing::ScratchDir dir;
  if (std::system(("mount -t ramfs ramfs " + dir.path() + " 2>/dev/null").c_str()) != 0) {
    GTEST_SKIP() << "cannot mount ramfs";
  }
  Outcome r = rawio(std::string("-a --json") + kQuick + dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("does not support O_DIRECT"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("falling back to buffered I/O"), std::string::npos) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["targets"][0]["tests"][0]["direct_io"], false);
  r = rawio(std::string("-R -d on") + kQuick + dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--direct=off"), std::string::npos) << r.err;
  EXPECT_EQ(entries(dir.path()), 0u);
  EXPECT_EQ(std::system(("umount " + dir.path()).c_str()), 0);
}

TEST(RawioBinary, SigtermRemovesTheTestFile) {
  testing::ScratchDir dir;
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = ::open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    dup2(devnull, 2);
    execl(RAWIO_BINARY, "rawio", "-R", "-e", "null", "-c", "100000000000", "-t", "20s", "-n", "1m",
          "-p", "2", dir.path().c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait for the test file to appear (the test is then running), then stop rawio.
  for (int i = 0; i < 200 && entries(dir.path()) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(entries(dir.path()), 1u);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  EXPECT_EQ(entries(dir.path()), 0u);
}

}  // namespace
}  // namespace diskcond::rawio
