// Integration: several processes writing one file through a conditioned mount at once.
// Disjoint interleaved stripes with pwrite (buffered and O_DIRECT): every stripe holds its
// writer's bytes. O_APPEND records from several writers: every record present exactly once and
// intact (100-byte records buffered, 4 KiB records with O_DIRECT). Both are checked through the
// mount and, after stop, on the backing directory.
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <vector>

#include "dmc/mount/mount_test_support.h"
#include "harness/aligned_buffer.h"

namespace diskcond::mount::testing {
namespace {

constexpr int kWriters = 4;
constexpr size_t kStripe = 64 * 1024;
constexpr size_t kStripesPerWriter = 16;
constexpr int kRecordsPerWriter = 150;
constexpr size_t kRecordBytes = 100;  // buffered; O_DIRECT appends whole 4 KiB records

std::string read_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Stripe s is written by writer s % kWriters and filled with 'a' + s % 26.
char stripe_byte(size_t s) {
  return static_cast<char>('a' + s % 26);
}

// Forks kWriters children running `body(w)` (exit code: 0 = success) and waits for all.
// Returns the number of children that failed.
int run_writers(const std::function<int(int)>& body) {
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    if (pid == 0) _exit(body(w));
    pids.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  return failed;
}

// Number of stripes that do not hold their writer's bytes (missing ones included).
size_t wrong_stripes(const std::string& content) {
  size_t wrong = 0;
  for (size_t s = 0; s < kWriters * kStripesPerWriter; ++s) {
    if (content.size() < (s + 1) * kStripe ||
        content.find_first_not_of(stripe_byte(s), s * kStripe) < (s + 1) * kStripe) {
      ++wrong;
    }
  }
  return wrong + (content.size() != kWriters * kStripesPerWriter * kStripe ? 1 : 0);
}

// Record r of writer w: "w<w> r<r> " padded with the writer's letter to `bytes` - 1, '\n'.
std::string record(int w, int r, size_t bytes) {
  std::string rec = "w" + std::to_string(w) + " r" + std::to_string(r) + " ";
  rec.resize(bytes - 1, static_cast<char>('A' + w));
  return rec + "\n";
}

// Empty when `content` holds every writer's records exactly once and intact; else what is wrong.
std::string check_records(const std::string& content, size_t bytes) {
  std::map<std::string, int> seen;
  std::istringstream lines(content);
  std::string line;
  size_t bad = 0;
  while (std::getline(lines, line)) {
    int w = -1, r = -1;
    if (std::sscanf(line.c_str(), "w%d r%d ", &w, &r) != 2 || w < 0 || w >= kWriters ||
        line + "\n" != record(w, r, bytes)) {
      ++bad;
      continue;
    }
    ++seen[line];
  }
  size_t missing = 0, duplicated = 0;
  for (int w = 0; w < kWriters; ++w) {
    for (int r = 0; r < kRecordsPerWriter; ++r) {
      const auto it = seen.find(record(w, r, bytes).substr(0, bytes - 1));
      if (it == seen.end())
        ++missing;
      else if (it->second > 1)
        ++duplicated;
    }
  }
  if (bad == 0 && missing == 0 && duplicated == 0 &&
      content.size() == kWriters * kRecordsPerWriter * bytes) {
    return "";
  }
  return std::to_string(bad) + " damaged, " + std::to_string(missing) + " missing, " +
         std::to_string(duplicated) + " duplicated records; " + std::to_string(content.size()) +
         " bytes";
}

struct Case {
  CacheMode cache;
  bool direct;  // stripes written with O_DIRECT
};

class MountConcurrency : public MountTest, public ::testing::WithParamInterface<Case> {};

TEST_P(MountConcurrency, InterleavedStripesFromSeveralProcesses) {
  start(ssd_profile(50, 200), GetParam().cache);
  const std::string file = path("striped");
  const bool direct = GetParam().direct;
  harness::AlignedBuffer buffer(kStripe);  // allocated before fork: children only write
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(run_writers([&](int w) {
              const int fd = open(file.c_str(), O_WRONLY | O_CREAT | (direct ? O_DIRECT : 0), 0644);
              if (fd < 0) return 1;
              for (size_t k = 0; k < kStripesPerWriter; ++k) {
                const size_t s = k * kWriters + static_cast<size_t>(w);
                std::memset(buffer.data(), stripe_byte(s), kStripe);
                if (pwrite(fd, buffer.data(), kStripe, static_cast<off_t>(s * kStripe)) !=
                    static_cast<ssize_t>(kStripe)) {
                  return 2;
                }
              }
              return fsync(fd) == 0 && close(fd) == 0 ? 0 : 3;
            }),
            0);
  EXPECT_EQ(wrong_stripes(read_file(file)), 0u) << "through the mount";
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_EQ(wrong_stripes(read_file(file)), 0u) << "on the backing directory";
}

TEST_P(MountConcurrency, AppendedRecordsFromSeveralProcessesAreEachThereOnce) {
  start(ssd_profile(50, 200), GetParam().cache);
  const std::string file = path("log");
  const bool direct = GetParam().direct;
  const size_t bytes = direct ? harness::kDirectAlign : kRecordBytes;
  std::vector<std::string> records;  // made before fork
  for (int w = 0; w < kWriters; ++w) {
    for (int r = 0; r < kRecordsPerWriter; ++r) records.push_back(record(w, r, bytes));
  }
  harness::AlignedBuffer buffer(bytes);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(run_writers([&](int w) {
              const int fd =
                  open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | (direct ? O_DIRECT : 0), 0644);
              if (fd < 0) return 1;
              for (int r = 0; r < kRecordsPerWriter; ++r) {
                const std::string& rec = records[static_cast<size_t>(w * kRecordsPerWriter + r)];
                std::memcpy(buffer.data(), rec.data(), bytes);
                if (write(fd, buffer.data(), bytes) != static_cast<ssize_t>(bytes)) return 2;
              }
              return fsync(fd) == 0 && close(fd) == 0 ? 0 : 3;
            }),
            0);
  EXPECT_EQ(check_records(read_file(file), bytes), "") << "through the mount";
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_EQ(check_records(read_file(file), bytes), "") << "on the backing directory";
}

INSTANTIATE_TEST_SUITE_P(
    Modes, MountConcurrency,
    ::testing::Values(Case{CacheMode::kPageCache, false}, Case{CacheMode::kPageCache, true},
                      Case{CacheMode::kNoCache, false}, Case{CacheMode::kNoCache, true}),
    [](const auto& info) {
      return std::string(info.param.cache == CacheMode::kPageCache ? "PageCache" : "NoCache") +
             (info.param.direct ? "Direct" : "Buffered");
    });

}  // namespace
}  // namespace diskcond::mount::testing
