// Integration: `dmc crash` through a real mount started -crashable. What was fsynced stays, what
// was written since is lost (or torn, the same way for the same seed), files created since the
// last commit are removed, and a mount started without -crashable refuses and stays intact.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>

#include "core/crash_plan.h"
#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

constexpr size_t kBytes = 4096;

std::string read_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class MountPowerLoss : public MountTest {
 protected:
  void start_crashable(CacheMode cache = CacheMode::kWriteBack) {
    MountSettings settings{ssd_profile(200), cache};
    settings.crashable = true;
    auto s = control_->start(dir_, settings);
    ASSERT_TRUE(s.ok()) << s.error();
  }
  void sync_mount() { ASSERT_TRUE(control_->sync(dir_).ok()); }
  // Creates `name`, writes 4 KiB of 'A', fsyncs, writes 4 KiB of 'B' over them and closes it.
  void write_a_sync_write_b(const std::string& name) {
    const int fd = open(path(name).c_str(), O_CREAT | O_RDWR, 0644);
    ASSERT_GE(fd, 0);
    const std::string a(kBytes, 'A'), b(kBytes, 'B');
    ASSERT_EQ(pwrite(fd, a.data(), kBytes, 0), ssize_t(kBytes));
    ASSERT_EQ(fsync(fd), 0);
    ASSERT_EQ(pwrite(fd, b.data(), kBytes, 0), ssize_t(kBytes));
    close(fd);
  }
  // One crash of the A-then-B file with `tear`/`seed`: the file's content after it.
  std::string crash_after_a_then_b(Tear tear, uint64_t seed) {
    start_crashable();
    write_a_sync_write_b("data");
    EXPECT_EQ(read_file(path("data")), std::string(kBytes, 'B'));
    auto report = control_->crash(dir_, CrashOptions{seed, tear});
    EXPECT_TRUE(report.ok()) << report.error();
    EXPECT_FALSE(is_conditioned_mount(dir_));
    return read_file(path("data"));
  }
};

TEST_F(MountPowerLoss, TheUnsyncedWriteIsLostTheSyncedOneStays) {
  start_crashable();
  write_a_sync_write_b("data");
  auto report = control_->crash(dir_, CrashOptions{7, Tear::kNone});
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_FALSE(is_conditioned_mount(dir_));
  EXPECT_EQ(read_file(path("data")), std::string(kBytes, 'A'));
  EXPECT_EQ(report->files, 1u);
  EXPECT_EQ(report->lost_bytes, kBytes);
  EXPECT_EQ(report->survived_bytes, 0u);
  EXPECT_EQ(report->removed, 0u);
  EXPECT_EQ(report->seed, 7u);
  EXPECT_TRUE(report->errors.empty());
}

TEST_F(MountPowerLoss, SectorTearingKeepsTheSameSectorsForTheSameSeed) {
  const std::string first = crash_after_a_then_b(Tear::kSector, 42);
  TearDown();
  SetUp();
  const std::string second = crash_after_a_then_b(Tear::kSector, 42);
  EXPECT_EQ(first, second);
  // The creation is the mount's first record (1), A's epoch the second, B's the third.
  std::string expected;
  for (uint64_t i = 0; i < kBytes / 512; ++i)
    expected += std::string(512, unit_survives(42, 3, i) ? 'B' : 'A');
  EXPECT_EQ(first, expected);
}

TEST_F(MountPowerLoss, AFileCreatedSinceTheLastCommitIsRemovedAnFsyncedOneStays) {
  start_crashable();
  {
    std::ofstream(path("unsynced")) << "gone";
    const int fd = open(path("synced").c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, "kept", 4), 4);
    ASSERT_EQ(fsync(fd), 0);  // commits the journal: both creations are durable
    close(fd);
    std::ofstream(path("late")) << "gone";  // created after that commit
    ASSERT_EQ(mkdir(path("dir").c_str(), 0755), 0);
  }
  auto report = control_->crash(dir_, CrashOptions{1, Tear::kNone});
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_EQ(read_file(path("synced")), "kept");
  EXPECT_EQ(read_file(path("unsynced")), "");  // its creation was committed, its data was not
  EXPECT_TRUE(std::filesystem::exists(path("unsynced")));
  EXPECT_FALSE(std::filesystem::exists(path("late")));
  EXPECT_FALSE(std::filesystem::exists(path("dir")));
  EXPECT_EQ(report->removed, 2u);
}

TEST_F(MountPowerLoss, AKilledCrashableDaemonLosesNoAcknowledgedWrite) {
  start_crashable();
  write_a_sync_write_b("data");
  auto st = control_->status(dir_);
  ASSERT_TRUE(st.ok()) << st.error();
  ASSERT_EQ(kill(st->daemon_pid, SIGKILL), 0);
  for (int i = 0; i < 400 && control_->status(dir_)->daemon_alive; ++i) usleep(5000);
  ASSERT_TRUE(control_->stop(dir_, false).ok());  // the stale mount
  EXPECT_FALSE(is_conditioned_mount(dir_));
  EXPECT_EQ(read_file(path("data")), std::string(kBytes, 'B'));  // nothing rolled back
}

TEST_F(MountPowerLoss, RestoringFollowsNoSymlinkSwappedIn) {
  start_crashable();
  const std::string victim = dir_ + "-victim";
  std::ofstream(victim) << "untouched";
  std::ofstream(path("late")) << "unsynced";  // created and written since the last commit
  // The name now is a symlink to a file outside: undoing must not remove or write through it;
  // the original inode's data goes back through the daemon's descriptor.
  ASSERT_EQ(rename(path("late").c_str(), path("moved").c_str()), 0);
  ASSERT_EQ(symlink(victim.c_str(), path("late").c_str()), 0);
  auto report = control_->crash(dir_, CrashOptions{1, Tear::kNone});
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_EQ(read_file(victim), "untouched");
  // Undone newest first: the symlink (created since the commit) is removed, the rename undone
  // (the file is "late" again), and the file, created since too, removed; the symlink's target
  // is never written to or removed.
  struct stat st;
  EXPECT_NE(lstat(path("late").c_str(), &st), 0);
  EXPECT_NE(lstat(path("moved").c_str(), &st), 0);
  EXPECT_EQ(report->removed, 2u);
  EXPECT_EQ(report->restored, 1u);
  std::filesystem::remove(victim);
}

// Writes `text` to `name` through a temporary name, fsyncs it, renames it over `name` and, when
// `durable`, fsyncs the directory; without `durable` no fsync at all.
void save(const std::string& dir, const std::string& name, const std::string& text, bool durable) {
  const std::string tmp = dir + "/" + name + ".tmp";
  const int fd = open(tmp.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, text.data(), text.size()), ssize_t(text.size()));
  if (durable) {
    ASSERT_EQ(fsync(fd), 0);
  }
  close(fd);
  ASSERT_EQ(rename(tmp.c_str(), (dir + "/" + name).c_str()), 0);
  if (durable) {
    const int d = open(dir.c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(d, 0);
    ASSERT_EQ(fsync(d), 0);
    close(d);
  }
}

TEST_F(MountPowerLoss, AnUnsyncedRenameOverAFileIsUndoneAndTheFileComesBack) {
  start_crashable();
  save(dir_, "config", "v1", true);
  save(dir_, "config", "v2", false);
  EXPECT_EQ(read_file(path("config")), "v2");
  auto report = control_->crash(dir_, CrashOptions{1, Tear::kNone});
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_EQ(read_file(path("config")), "v1");
  EXPECT_FALSE(std::filesystem::exists(path("config.tmp")));
  EXPECT_EQ(report->restored, 2u);  // renamed back, then v1 brought back
  EXPECT_EQ(report->removed, 1u);   // the second config.tmp
  EXPECT_TRUE(report->errors.empty()) << report->errors[0];
}

TEST_F(MountPowerLoss, WithoutAnyFsyncTheSavedFileIsGone) {
  start_crashable();
  save(dir_, "config", "v1", false);
  save(dir_, "config", "v2", false);
  auto report = control_->crash(dir_, CrashOptions{1, Tear::kNone});
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_FALSE(std::filesystem::exists(path("config")));
  EXPECT_FALSE(std::filesystem::exists(path("config.tmp")));
  EXPECT_TRUE(report->errors.empty()) << report->errors[0];
}

TEST_F(MountPowerLoss, AnUnsyncedUnlinkAndRmdirAreUndone) {
  start_crashable();
  std::ofstream(path("kept")) << "data";
  ASSERT_EQ(mkdir(path("dir").c_str(), 0750), 0);
  ASSERT_EQ(chown(path("kept").c_str(), kNobody, kNogroup), 0);
  sync_mount();
  ASSERT_EQ(unlink(path("kept").c_str()), 0);
  ASSERT_EQ(rmdir(path("dir").c_str()), 0);
  auto report = control_->crash(dir_, CrashOptions{1, Tear::kNone});
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_EQ(read_file(path("kept")), "data");
  struct stat st;
  ASSERT_EQ(stat(path("kept").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, kNobody);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  ASSERT_EQ(stat(path("dir").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0750u);
  EXPECT_EQ(report->restored, 2u);
}

TEST_F(MountPowerLoss, WriteThroughLosesNothing) {
  start_crashable(CacheMode::kPageCache);
  write_a_sync_write_b("data");
  auto report = control_->crash(dir_, CrashOptions{1, Tear::kNone});
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_EQ(read_file(path("data")), std::string(kBytes, 'B'));
  EXPECT_EQ(report->lost_bytes, 0u);
}

TEST_F(MountPowerLoss, AMountNotStartedCrashableRefusesAndKeepsServing) {
  start(ssd_profile(200), CacheMode::kWriteBack);
  write_a_sync_write_b("data");
  auto report = control_->crash(dir_, CrashOptions{1, Tear::kNone});
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.error().find("-crashable"), std::string::npos) << report.error();
  EXPECT_TRUE(is_conditioned_mount(dir_));
  EXPECT_EQ(read_file(path("data")), std::string(kBytes, 'B'));
}

}  // namespace
}  // namespace diskcond::mount::testing
