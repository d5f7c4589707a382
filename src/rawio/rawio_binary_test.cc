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

const char* kQuick = " --no-progress -n 2m -s 4k -p 2 -t 200ms --warmup 0 ";
const char* kMeasured = "Measured anon: RR [0-9.]+ s, SR [0-9.]+ s, RW [0-9.]+ s, SW [0-9.]+ s\n";
// What the honesty checks may add after the tables, depending on the machine (a virtual disk
// flagged rotational that its host caches, a file system refusing O_DIRECT).
const char* kCautions = "(?:Caution: [^\n]*\n)*";

TEST(RawioBinary, AllTestsOnADirectoryPrintTheSeedTableAndRemoveTheTestFile) {
  testing::ScratchDir dir;
  Outcome r = rawio(std::string("-a") + kQuick + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::regex table(
      "            Random read  Sequential read    Random write Sequential write\n"
      "ID          K/sec  /sec    K/sec  /sec     K/sec  /sec     K/sec  /sec\n"
      "anon +[0-9]+\\.[0-9] +[0-9]+ +[0-9]+\\.[0-9] +[0-9]+ +[0-9]+\\.[0-9] +[0-9]+ "
      "+[0-9]+\\.[0-9] +[0-9]+\n" +
      std::string(kMeasured) + kCautions);
  EXPECT_TRUE(std::regex_match(r.out, table)) << r.out;
  EXPECT_EQ(entries(dir.path()), 0u) << "test file left behind";
}

TEST(RawioBinary, VerboseRowsHaveTheSeedColumns) {
  testing::ScratchDir dir;
  Outcome r = rawio(std::string("-a -v 1 -i disk1") + kQuick + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::regex rows(
      "Test    ID        K/sec    /sec %User  %Sys %Total\n"
      "(?:(RR|SR|RW|SW) +disk1 +[0-9]+\\.[0-9] +[0-9]+ +[0-9]+\\.[0-9] +[0-9]+\\.[0-9] "
      "+[0-9]+\\.[0-9] +4096\n){4}"
      "Measured disk1: RR [0-9.]+ s, SR [0-9.]+ s, RW [0-9.]+ s, SW [0-9.]+ s\n" +
      std::string(kCautions));
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
  // Time based: 200 ms measured, however many passes over the 2 MiB area that takes.
  EXPECT_EQ(doc["partial"], false);
  EXPECT_EQ(tests[0]["stopped_by"], "time_limit");
  EXPECT_GE(tests[0]["elapsed_ns"].get<int64_t>(), 200'000'000);
  EXPECT_EQ(tests[0]["bytes"].get<uint64_t>(), tests[0]["transfers"].get<uint64_t>() * 4096);
  EXPECT_GT(tests[0]["lat_ns"]["p99"].get<uint64_t>(), 0u);
  EXPECT_TRUE(tests[0].contains("bw_bytes_per_sec"));
  EXPECT_TRUE(tests[0]["cpu"].contains("cpu_us_per_transfer"));
  EXPECT_FALSE(tests[0]["intervals"]["samples"].empty());
}

TEST(RawioBinary, TestsAreTimeBasedAfterAWarmUpUnlessACountIsAsked) {
  // Issue 13, item 11: "-t 2s" ran 0.034 s, one pass over the area.
  testing::ScratchDir dir;
  Outcome r = rawio("-R -e null --json --no-progress -n 1m -s 4k -p 1 -t 300ms --warmup 200ms " +
                    dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto& rr = doc["targets"][0]["tests"][0];
  EXPECT_EQ(rr["stopped_by"], "time_limit");
  EXPECT_EQ(rr["warmup_ns"], 200'000'000);
  EXPECT_GE(rr["elapsed_ns"].get<int64_t>(), 300'000'000);
  EXPECT_GT(rr["transfers"].get<uint64_t>(), 256u);  // more than one pass over 1 MiB
  EXPECT_EQ(doc["options"]["time_based"], true);
  // -c pass: the old one pass over the area, no warm-up.
  r = rawio("-R -e null --json --no-progress -n 1m -s 4k -p 1 -c pass " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["targets"][0]["tests"][0]["transfers"], 256u);
  EXPECT_EQ(doc["targets"][0]["tests"][0]["stopped_by"], "count");
  EXPECT_EQ(doc["targets"][0]["tests"][0]["warmup_ns"], 0);
  // The text says how long each test ran.
  r = rawio("-R -e null --no-progress -n 1m -s 4k -p 1 -t 300ms --warmup 100ms " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\nMeasured anon: RR 0\\.3[0-9] s, each after a 0\\.1 s warm-up\n$")))
      << r.out;
}

TEST(RawioBinary, SeveralTargetsGiveOneRowEachNamedByTarget) {
  testing::ScratchDir a, b;
  Outcome r = rawio(std::string("-R -S") + kQuick + a.path() + " " + b.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string name_a = fs::path(a.path()).filename().string();
  std::string name_b = fs::path(b.path()).filename().string();
  EXPECT_NE(r.out.find("\n" + name_a + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n" + name_b + " "), std::string::npos) << r.out;
  std::string tables = std::regex_replace(r.out, std::regex(kCautions), "");
  EXPECT_EQ(std::count(tables.begin(), tables.end(), '\n'),
            6);  // titles, header, 2 rows, 2 "Measured"
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
  for (const char* args :
       {"-a -n 3x", "-a -e nope", "-a -v 9", "-a --bogus", "-a -s 1000 -d on", "-R --rate 0",
        "-R --rate abc", "-R --rate 10/s --arrival foo", "-R --arrival poisson"}) {
    Outcome r = rawio(std::string(args) + " --no-progress " + dir.path());
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
    EXPECT_EQ(entries(dir.path()), 0u) << args;
  }
  Outcome r = rawio("-a /no/such/dir/x");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(RawioBinary, OpenLoopPrintsItsLineAndJsonFields) {
  testing::ScratchDir dir;
  Outcome r = rawio("-R -e null -v 1 --rate 5000/s --arrival poisson --seed 3" +
                    std::string(kQuick) + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nOpen loop anon RR: requested 5000/s poisson "
                                                  "\\(seed 3\\), achieved [0-9]+/s; issue lag p99 "
                                                  "[0-9.]+ ms, max [0-9.]+ ms")))
      << r.out;
  r = rawio("-R -e null --json --rate 5000/s" + std::string(kQuick) + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["options"]["rate_per_sec"], 5000.0);
  const auto& open = doc["targets"][0]["tests"][0]["open_loop"];
  EXPECT_EQ(open["arrival"], "fixed");
  EXPECT_EQ(open["requested_rate_per_sec"], 5000.0);
  EXPECT_NEAR(open["achieved_rate_per_sec"].get<double>(), 5000, 500);  // 1000 in 200 ms
  EXPECT_EQ(open["schedule_lag_ns"]["samples"], doc["targets"][0]["tests"][0]["transfers"]);
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
  EXPECT_EQ(r.err,
            "rawio: area on " + dir.path() +
                " (16777216 bytes) is too small: these tests need at least 268435456 bytes (8 "
                "worker(s) x "
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

// Runs rawio with stdout and stderr in files, sends `signal` once its test file has been there
// for `after`, and returns what it printed and its exit code.
Outcome interrupt_rawio(const std::vector<std::string>& args, const std::string& dir, int signal,
                        std::chrono::milliseconds after) {
  testing::ScratchDir io;
  pid_t pid = fork();
  if (pid == 0) {
    int out = ::open(io.file("out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(io.file("err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(out, 1);
    dup2(err, 2);
    std::vector<const char*> argv = {"rawio"};
    for (const auto& a : args) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    execv(RAWIO_BINARY, const_cast<char* const*>(argv.data()));
    _exit(127);
  }
  for (int i = 0; i < 500 && entries(dir) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(after);
  kill(pid, signal);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(io.file("out")),
          slurp(io.file("err"))};
}

TEST(RawioBinary, SigintPrintsTheResultsSoFarMarkedPartialAndSavesThemAsPartial) {
  // Issue 13, item 17: Ctrl-C printed nothing.
  testing::ScratchDir dir, db;
  const std::vector<std::string> args = {
      "-R", "-S", "-e", "null", "-t",     "20s",  "--warmup",      "0",       "-n", "1m",
      "-s", "4k", "-p", "2",    "--save", "--db", db.file("h.db"), dir.path()};
  Outcome r = interrupt_rawio(args, dir.path(), SIGINT, std::chrono::milliseconds(1300));
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  EXPECT_EQ(entries(dir.path()), 0u) << "test file left behind";
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nanon +[0-9]+\\.[0-9] +[0-9]+\n")))  // RR only
      << r.out;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex("Measured anon: RR [0-9]+\\.[0-9]+ s \\(interrupted\\)\n"
                                          "PARTIAL: interrupted during RR on anon")))
      << r.out;
  EXPECT_NE(r.err.find("rawio: interrupted; the results so far are partial"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("rawio: saved as partial run 1"), std::string::npos) << r.err;
  Outcome report = rawio("report --db " + db.file("h.db"));
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("PARTIAL: interrupted during RR on anon"), std::string::npos)
      << report.out;

  std::vector<std::string> json_args = args;
  json_args.insert(json_args.begin(), "--json");
  r = interrupt_rawio(json_args, dir.path(), SIGINT, std::chrono::milliseconds(1000));
  EXPECT_EQ(r.exit_code, 128 + SIGINT) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["partial"], true);
  ASSERT_EQ(doc["targets"][0]["tests"].size(), 1u);
  EXPECT_EQ(doc["targets"][0]["tests"][0]["stopped_by"], "cancelled");
  EXPECT_GT(doc["targets"][0]["tests"][0]["transfers"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace diskcond::rawio
