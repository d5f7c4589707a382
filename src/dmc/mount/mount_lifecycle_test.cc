// Integration: start, status, update and stop of a real mount, including the error cases
// (start twice, stop while busy, stop of a plain directory, a dead daemon, bad control input).
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "dmc/mount/control_protocol.h"
#include "dmc/mount/control_socket.h"
#include "dmc/mount/mount_test_support.h"
#include "dmc/mount/run_paths.h"

namespace diskcond::mount::testing {
namespace {

using MountLifecycle = MountTest;

TEST_F(MountLifecycle, StartTwiceIsAClearError) {
  start(ssd_profile(0));
  auto again = control_->start(dir_, MountSettings{ssd_profile(0)});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().find("already conditioned"), std::string::npos) << again.error();
}

TEST_F(MountLifecycle, PlainDirectoriesAndFilesAreRefused) {
  auto stop = control_->stop(dir_, false);
  ASSERT_FALSE(stop.ok());
  EXPECT_NE(stop.error().find("not conditioned"), std::string::npos) << stop.error();
  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok());
  EXPECT_FALSE(st->mounted);
  EXPECT_FALSE(control_->update(dir_, MountSettings{ssd_profile(0)}).ok());
  std::ofstream(path("file")) << "x";
  auto on_file = control_->start(path("file"), MountSettings{ssd_profile(0)});
  ASSERT_FALSE(on_file.ok());
  EXPECT_NE(on_file.error().find("not a directory"), std::string::npos) << on_file.error();
  EXPECT_FALSE(control_->start(path("missing"), MountSettings{ssd_profile(0)}).ok());
  EXPECT_FALSE(control_->status(path("missing")).ok());
  Profile invalid = ssd_profile(0);
  invalid.queue_depth = 0;
  EXPECT_FALSE(control_->start(dir_, MountSettings{invalid}).ok());
  EXPECT_FALSE(is_conditioned_mount(dir_));
}

TEST_F(MountLifecycle, StopRefusesWhileBusyThenForceDetaches) {
  start(ssd_profile(0));
  std::ofstream(path("open")) << "still here";
  int fd = open(path("open").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto stop = control_->stop(dir_, false);
  ASSERT_FALSE(stop.ok());
  EXPECT_NE(stop.error().find("busy"), std::string::npos) << stop.error();
  EXPECT_TRUE(is_conditioned_mount(dir_));
  ASSERT_TRUE(control_->stop(dir_, true).ok());
  EXPECT_FALSE(is_conditioned_mount(dir_));
  char buf[16] = {};
  EXPECT_EQ(pread(fd, buf, sizeof(buf), 0), 10);  // the detached mount still serves its files
  close(fd);
  // The directory can be conditioned again at once.
  start(ssd_profile(0));
  ASSERT_TRUE(control_->stop(dir_, false).ok());
}

// A forced stop while a slow write is in flight: the mount is detached at once, the write is
// still answered (after its model time) and is in the directory afterwards.
TEST_F(MountLifecycle, ForcedStopDuringAWriteKeepsTheWrite) {
  start(ssd_profile(2));  // 2 MiB/s: a 1 MiB write takes half a second
  int fd = open(path("slow").c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0644);
  ASSERT_GE(fd, 0);
  void* buf = nullptr;
  ASSERT_EQ(posix_memalign(&buf, 4096, kMiB), 0);
  std::memset(buf, 's', kMiB);
  ssize_t written = -1;
  int64_t took_ns = 0;
  std::thread writer([&] {
    const int64_t t0 = monotonic_now_ns();
    written = pwrite(fd, buf, kMiB, 0);
    took_ns = monotonic_now_ns() - t0;
  });
  usleep(100 * 1000);  // the write is waiting for its model time now
  ASSERT_TRUE(control_->stop(dir_, true).ok());
  EXPECT_FALSE(is_conditioned_mount(dir_));
  writer.join();
  EXPECT_EQ(written, static_cast<ssize_t>(kMiB));
  EXPECT_GE(took_ns, 450'000'000);  // not cut short by the stop
  close(fd);
  free(buf);
  std::ifstream in(path("slow"));
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, std::string(kMiB, 's'));
}

TEST_F(MountLifecycle, UpdateChangesSettingsLive) {
  start(ssd_profile(0));
  MountSettings next{builtin_profiles()[3], CacheMode::kNoCache};
  ASSERT_TRUE(control_->update(dir_, next).ok());
  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->settings.profile, builtin_profiles()[3]);
  EXPECT_EQ(st->settings.cache, CacheMode::kNoCache);
}

// Issue 13, item 4: status of a path inside a conditioned directory is that directory's.
TEST_F(MountLifecycle, StatusOfAPathInsideIsTheConditionedDirectorys) {
  ASSERT_EQ(mkdir(path("sub").c_str(), 0755), 0);
  ASSERT_EQ(mkdir(path("sub/deeper").c_str(), 0755), 0);
  start(builtin_profiles()[5]);
  for (const std::string& inside : {path("sub"), path("sub/deeper"), path("sub/deeper/../")}) {
    auto st = control_->status(inside);
    ASSERT_TRUE(st.ok()) << st.error();
    EXPECT_TRUE(st->mounted) << inside;
    EXPECT_TRUE(st->daemon_alive) << inside;
    EXPECT_EQ(st->mount_point, dir_) << inside;
    EXPECT_EQ(st->settings.profile, builtin_profiles()[5]) << inside;
  }
  EXPECT_TRUE(control_->check_conditionable(path("sub"), {}).ok());  // start refuses it itself
  EXPECT_FALSE(control_->start(path("sub"), MountSettings{ssd_profile(0)}).ok());
}

TEST_F(MountLifecycle, DeadDaemonIsReportedAndStopClearsIt) {
  ASSERT_EQ(mkdir(path("sub").c_str(), 0755), 0);
  start(ssd_profile(0));
  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok());
  const pid_t pid = st->daemon_pid;
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  for (int i = 0; i < 200 && kill(pid, 0) == 0; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(stat, text);
    if (text.find(") Z") != std::string::npos) break;
    usleep(5000);
  }
  struct stat sb;
  EXPECT_EQ(stat(dir_.c_str(), &sb), -1);
  // EIO when the request was in flight as the connection went (seen under ThreadSanitizer).
  EXPECT_TRUE(errno == ENOTCONN || errno == ECONNABORTED || errno == EIO) << strerror(errno);
  st = control_->status(dir_);
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_TRUE(st->mounted);
  EXPECT_FALSE(st->daemon_alive);
  // Below the dead mount nothing resolves; its path still leads to it.
  auto inside = control_->status(path("sub"));
  ASSERT_TRUE(inside.ok()) << inside.error();
  EXPECT_TRUE(inside->mounted);
  EXPECT_FALSE(inside->daemon_alive);
  EXPECT_EQ(inside->mount_point, dir_);
  auto again = control_->start(dir_, MountSettings{ssd_profile(0)});
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().find("died"), std::string::npos) << again.error();
  ASSERT_TRUE(control_->stop(dir_, false).ok());
  EXPECT_FALSE(is_conditioned_mount(dir_));
  EXPECT_EQ(stat(dir_.c_str(), &sb), 0);
}

// `top -H` and `ps -L` tell the daemon's threads apart: FUSE workers, the reply thread, the transit
// probe and the control socket's server each carry a name (posix/thread_name.h).
TEST_F(MountLifecycle, TheDaemonsThreadsAreNamed) {
  start(ssd_profile(100));
  std::ofstream(path("f")) << "x";  // a request or two, so that workers have read one
  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok()) << st.error();
  const std::string tasks = "/proc/" + std::to_string(st->daemon_pid) + "/task";
  const std::vector<std::string> expected = {"dmc-fuse", "dmc-reply", "dmc-probe", "dmc-control"};
  std::vector<std::string> names;
  // Threads name themselves as they start: look again for up to 5 s.
  for (int attempt = 0; attempt < 500; ++attempt) {
    names.clear();
    for (const auto& task : std::filesystem::directory_iterator(tasks)) {
      std::string name;
      std::getline(std::ifstream(task.path() / "comm"), name);
      names.push_back(name);
    }
    const bool all = std::all_of(expected.begin(), expected.end(), [&](const std::string& e) {
      return std::find(names.begin(), names.end(), e) != names.end();
    });
    if (all) break;
    usleep(10'000);
  }
  for (const std::string& e : expected) {
    EXPECT_NE(std::find(names.begin(), names.end(), e), names.end())
        << e << " missing among " << ::testing::PrintToString(names);
  }
}

// Clients that connect to the daemon's socket and say nothing must not delay status for others
// (the server used to serve one connection at a time, each with a 2 s read timeout).
TEST_F(MountLifecycle, SilentControlClientsDoNotStallStatus) {
  start(ssd_profile(0));
  const std::string socket = run_paths_for(dir_).socket;
  std::vector<int> silent;
  for (int i = 0; i < 8; ++i) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket.c_str(), sizeof(addr.sun_path) - 1);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    silent.push_back(fd);
  }
  const int64_t t0 = monotonic_now_ns();
  auto st = control_->status(dir_);
  const int64_t took_ms = (monotonic_now_ns() - t0) / 1'000'000;
  for (int fd : silent) close(fd);
  ASSERT_TRUE(st.ok()) << st.error();
  EXPECT_TRUE(st->daemon_alive);
  EXPECT_LT(took_ms, 1500);  // generous; before the fix: 8 x 2 s
}

TEST_F(MountLifecycle, ControlSocketRejectsBadInputAndNonRootChanges) {
  start(ssd_profile(0));
  const std::string socket = run_paths_for(dir_).socket;
  for (const char* bad : {"garbage\n", "{\"op\":\"update\",\"settings\":{}}\n", "[]\n",
                          "{\"op\":\"stop\",\"force\":1}\n"}) {
    auto reply = control_call(socket, bad);
    ASSERT_TRUE(reply.ok()) << reply.error();
    EXPECT_FALSE(decode_ack(*reply).ok()) << bad;
  }
  // A client that connects and says nothing is dropped; the daemon goes on serving.
  auto silent = control_call(socket, "", 5000);
  EXPECT_TRUE(is_conditioned_mount(dir_));

  ControlRequest update;
  update.op = ControlOp::kUpdate;
  update.settings = MountSettings{builtin_profiles()[0]};
  ControlRequest stop;
  stop.op = ControlOp::kStop;
  EXPECT_EQ(run_as(kNobody, kNogroup,
                   [&] {
                     auto status = control_call(socket, encode_request(ControlRequest{}));
                     if (!status.ok() || !decode_status(*status).ok()) return 1;
                     auto u = control_call(socket, encode_request(update));
                     if (!u.ok() || decode_ack(*u).ok()) return 2;
                     auto s = control_call(socket, encode_request(stop));
                     if (!s.ok() || decode_ack(*s).ok()) return 3;
                     return 0;
                   }),
            0);
  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok());
  EXPECT_TRUE(st->daemon_alive);
  EXPECT_EQ(st->settings.profile, ssd_profile(0));
}

}  // namespace
}  // namespace diskcond::mount::testing
