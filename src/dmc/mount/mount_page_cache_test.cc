// What the kernel's page cache holds through a real mount: data written through the mount is
// read back from memory, as on a local file system, including the partly written last page of a
// file that FUSE asks the daemon for (partial_pages.h); once the page cache is dropped it is read
// from the pretend disk again.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

MountCounters counters_of(MountControl& control, const std::string& dir) {
  auto st = control.status(dir);
  EXPECT_TRUE(st.ok()) << st.error();
  return st.ok() ? st->counters : MountCounters{};
}

void write_file(const std::string& path, size_t size) {
  const std::vector<char> data(size, 'w');
  const int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(write(fd, data.data(), size), static_cast<ssize_t>(size));
  close(fd);
}

// Reads the whole file; returns its size.
size_t read_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0) << path;
  std::vector<char> buf(1 << 20);
  size_t total = 0;
  for (ssize_t n; (n = read(fd, buf.data(), buf.size())) > 0;) total += static_cast<size_t>(n);
  close(fd);
  return total;
}

// `echo 1 > /proc/sys/vm/drop_caches`: false without the right to.
bool drop_page_cache() {
  const int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
  if (fd < 0) return false;
  sync();
  const bool ok = write(fd, "1", 1) == 1;
  close(fd);
  return ok;
}

class MountPageCache : public MountTest {};

// What one round of WhatWasJustWrittenIsReadBackFromMemory saw: bytes read from the pretend disk
// and first reads of partly written pages, while the files written were read back.
struct ReadBack {
  uint64_t disk_bytes = 0;
  uint64_t written_page_reads = 0;
};

TEST_F(MountPageCache, WhatWasJustWrittenIsReadBackFromMemory) {
  start(ssd_profile(0), CacheMode::kWriteBack);
  // Writes three files (under a fresh prefix per round) and reads them back past the attribute
  // timeout, with the attributes asked again: the kernel must keep the pages it holds though the
  // file's modification time changed (no auto_inval_data).
  auto round = [&](const std::string& prefix) {
    write_file(path(prefix + "small"), 100);       // one page, written in part
    write_file(path(prefix + "tail"), 10'000);     // two whole pages and a part
    write_file(path(prefix + "pages"), 3 * 4096);  // whole pages only
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    struct stat st;
    for (const char* name : {"small", "tail", "pages"}) {
      EXPECT_EQ(stat(path(prefix + name).c_str(), &st), 0);
    }
    const MountCounters before = counters_of(*control_, dir_);
    EXPECT_EQ(read_file(path(prefix + "small")), 100u);
    EXPECT_EQ(read_file(path(prefix + "tail")), 10'000u);
    EXPECT_EQ(read_file(path(prefix + "pages")), 3 * 4096u);
    const MountCounters after = counters_of(*control_, dir_);
    return ReadBack{after.bytes[0] - before.bytes[0],
                    after.written_page_reads - before.written_page_reads};
  };
  // The machine may reclaim a page meanwhile (this project's VM runs DAMON's pageout scheme, whose
  // regions mix new pages with cold ones): a round that read from the disk is run once more, and
  // a mount that drops or asks for the pages fails both.
  std::string prefix = "a-";
  ReadBack seen = round(prefix);
  if (seen.disk_bytes != 0) seen = round(prefix = "b-");
  EXPECT_EQ(seen.disk_bytes, 0u) << "read from the pretend disk";
  EXPECT_EQ(seen.written_page_reads, 2u);
  // Read again: the kernel holds every page now and asks for none.
  const uint64_t partial_reads = counters_of(*control_, dir_).written_page_reads;
  EXPECT_EQ(read_file(path(prefix + "tail")), 10'000u);
  EXPECT_EQ(counters_of(*control_, dir_).written_page_reads, partial_reads);
}

TEST_F(MountPageCache, AfterThePageCacheIsDroppedWrittenPagesComeFromTheDisk) {
  if (geteuid() != 0) GTEST_SKIP() << "dropping the page cache needs root";
  start(ssd_profile(0), CacheMode::kWriteBack);
  write_file(path("small"), 100);
  write_file(path("tail"), 10'000);
  ASSERT_TRUE(drop_page_cache());
  const MountCounters before = counters_of(*control_, dir_);
  EXPECT_EQ(read_file(path("small")), 100u);
  EXPECT_EQ(read_file(path("tail")), 10'000u);
  const MountCounters after = counters_of(*control_, dir_);
  EXPECT_GE(after.bytes[0] - before.bytes[0], 100u + 10'000u);
  EXPECT_EQ(after.written_page_reads, before.written_page_reads);
}

TEST_F(MountPageCache, WithoutThePageCacheEveryReadIsCharged) {
  start(ssd_profile(0), CacheMode::kNoCache);
  write_file(path("small"), 100);
  const MountCounters before = counters_of(*control_, dir_);
  EXPECT_EQ(read_file(path("small")), 100u);
  const MountCounters after = counters_of(*control_, dir_);
  EXPECT_GE(after.bytes[0] - before.bytes[0], 100u);
  EXPECT_EQ(after.written_page_reads, before.written_page_reads);
}

}  // namespace
}  // namespace diskcond::mount::testing
