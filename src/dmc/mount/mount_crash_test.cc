// Integration: the daemon killed (SIGKILL) while a writer in another process is in the middle of
// write + fsync through the mount. Contract: the writer gets an error, not a hang; status reports
// the daemon dead (and `dmc status` says STALE); stop clears the stale mount and leaves a plain
// directory; every block whose fsync succeeded is on the backing file intact; start works again.
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "dmc/mount/mount_test_support.h"
#include "test_support/scratch_dir.h"

namespace diskcond::mount::testing {
namespace {

constexpr size_t kBlock = 64 * 1024;
constexpr int64_t kFailureMarker = -1;  // then the errno, on the ack pipe

char block_byte(size_t i) {
  return static_cast<char>('A' + i % 26);
}

// The child: writes block after block with pwrite + fsync and reports each acknowledged block
// (its index) on `ack_fd`; on the first failure reports kFailureMarker and the errno, and exits.
[[noreturn]] void writer_child(const std::string& file, int ack_fd) {
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT, 0644);
  auto say = [ack_fd](int64_t v) {
    if (write(ack_fd, &v, sizeof(v)) != sizeof(v)) _exit(3);
  };
  if (fd < 0) {
    say(kFailureMarker);
    say(errno);
    _exit(1);
  }
  std::vector<char> block(kBlock);
  for (size_t i = 0;; ++i) {
    std::fill(block.begin(), block.end(), block_byte(i));
    const ssize_t n = pwrite(fd, block.data(), kBlock, static_cast<off_t>(i * kBlock));
    const int err = n < 0 ? errno : EIO;
    if (n != static_cast<ssize_t>(kBlock) || fsync(fd) != 0) {
      say(kFailureMarker);
      say(n == static_cast<ssize_t>(kBlock) ? errno : err);
      _exit(0);
    }
    say(static_cast<int64_t>(i));
  }
}

std::string read_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// What `dmc status <dir> -json` prints, then "exit=<code>" (an empty settings store).
std::string dmc_status(const std::string& dir) {
  test_support::ScratchDir store("diskcond-store");
  if (store.path().empty()) return "mkdtemp failed";
  const std::string command = "DISKCOND_STATE_DIR=" + store.path() + " " DMC_BINARY " status '" +
                              dir + "' -json 2>&1; echo exit=$?";
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

// Reads one value from `fd` within `timeout_ms`; false on timeout or EOF.
bool read_value(int fd, int64_t& value, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return false;
  return read(fd, &value, sizeof(value)) == sizeof(value);
}

class MountCrash : public MountTest, public ::testing::WithParamInterface<CacheMode> {};

TEST_P(MountCrash, DaemonKilledMidWriteLosesNoAcknowledgedBlock) {
  start(ssd_profile(8, 500), GetParam());
  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok()) << st.error();
  const pid_t daemon = st->daemon_pid;
  ASSERT_GT(daemon, 0);

  int acks[2];
  ASSERT_EQ(pipe2(acks, O_CLOEXEC), 0);
  const pid_t writer = fork();
  if (writer == 0) {
    close(acks[0]);
    writer_child(path("stream"), acks[1]);
  }
  close(acks[1]);
  std::vector<int64_t> acked;
  int64_t v = 0;
  while (acked.size() < 4 && read_value(acks[0], v, 10000) && v != kFailureMarker)
    acked.push_back(v);
  ASSERT_EQ(acked.size(), 4u) << "the writer did not get going";
  ASSERT_EQ(kill(daemon, SIGKILL), 0);

  // The writer must fail promptly (generous bound), not hang.
  int writer_errno = 0;
  bool failed = false;
  while (read_value(acks[0], v, 20000)) {
    if (v == kFailureMarker) {
      failed = read_value(acks[0], v, 5000);
      writer_errno = static_cast<int>(v);
      break;
    }
    acked.push_back(v);
  }
  close(acks[0]);
  if (!failed) kill(writer, SIGKILL);
  int status = 0;
  waitpid(writer, &status, 0);
  ASSERT_TRUE(failed) << "the writer hung or died after the daemon was killed";
  RecordProperty("writer_errno", strerror(writer_errno));
  RecordProperty("acknowledged_blocks", static_cast<int>(acked.size()));
  EXPECT_TRUE(writer_errno == ENOTCONN || writer_errno == ECONNABORTED || writer_errno == EIO)
      << strerror(writer_errno);

  for (int i = 0; i < 400 && kill(daemon, 0) == 0; ++i) {  // until it is gone or a zombie
    std::ifstream stat_file("/proc/" + std::to_string(daemon) + "/stat");
    std::string text;
    std::getline(stat_file, text);
    if (text.find(") Z") != std::string::npos) break;
    usleep(5000);
  }
  st = control_->status(dir_);
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_TRUE(st->mounted);
  EXPECT_FALSE(st->daemon_alive);
  const std::string cli = dmc_status(dir_);
  EXPECT_NE(cli.find("\"state\": \"stale\""), std::string::npos) << cli;
  EXPECT_NE(cli.find("exit=5"), std::string::npos) << cli;  // 5: the daemon died

  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_FALSE(is_conditioned_mount(dir_));
  struct stat sb;
  ASSERT_EQ(stat(dir_.c_str(), &sb), 0) << strerror(errno);  // plain again: no ENOTCONN
  ASSERT_EQ(stat(path("stream").c_str(), &sb), 0) << strerror(errno);

  const std::string content = read_file(path("stream"));
  for (int64_t i : acked) {
    ASSERT_GE(content.size(), static_cast<size_t>(i + 1) * kBlock) << "block " << i << " lost";
    const size_t wrong = content.find_first_not_of(block_byte(static_cast<size_t>(i)),
                                                   static_cast<size_t>(i) * kBlock);
    EXPECT_GE(wrong, static_cast<size_t>(i + 1) * kBlock) << "block " << i << " damaged";
  }

  // And the directory can be conditioned again, showing the same data.
  start(ssd_profile(0), GetParam());
  EXPECT_EQ(read_file(path("stream")), content);
  ASSERT_TRUE(control_->stop(dir_, false).ok());
}

INSTANTIATE_TEST_SUITE_P(CacheModes, MountCrash,
                         ::testing::Values(CacheMode::kWriteBack, CacheMode::kPageCache,
                                           CacheMode::kNoCache),
                         [](const auto& info) {
                           return info.param == CacheMode::kWriteBack   ? "WriteBack"
                                  : info.param == CacheMode::kPageCache ? "PageCache"
                                                                        : "NoCache";
                         });

}  // namespace
}  // namespace diskcond::mount::testing
