// Integration: a large O_DIRECT read reaches the daemon in pieces of at most
// DaemonKnobs::kDefaultMaxRead bytes (the mount option max_read), each its own model command, and
// the caller gets every byte in order; DISKCOND_MAX_READ=off leaves it one request.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "dmc/mount/daemon_knobs.h"
#include "dmc/mount/mount_test_support.h"

namespace diskcond::mount::testing {
namespace {

constexpr int kReads = 8;

class MountReadPieces : public MountTest {
 protected:
  // A 4 MiB file whose every 4 KiB block holds its own number, so a piece out of place shows.
  void make_numbered_file() {
    std::vector<uint32_t> words(4 * kMiB / sizeof(uint32_t));
    for (size_t i = 0; i < words.size(); ++i) words[i] = static_cast<uint32_t>(i * 4 / 4096);
    FILE* f = fopen(path("f").c_str(), "w");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(fwrite(words.data(), sizeof(uint32_t), words.size(), f), words.size());
    fclose(f);
  }

  MountStatus status() {
    auto s = control_->status(dir_);
    EXPECT_TRUE(s.ok()) << s.error();
    return s.ok() ? *s : MountStatus{};
  }

  // kReads 1 MiB O_DIRECT reads of the file's first and later MiBs, each checked block by block;
  // returns the model's read commands they took.
  uint64_t read_commands_of_large_reads() {
    const int fd = open(path("f").c_str(), O_RDONLY | O_DIRECT);
    EXPECT_GE(fd, 0);
    // After the open, whose metadata reads (a cold inode) are model reads too.
    const uint64_t before = status().counters.commands[static_cast<int>(Op::kRead)];
    void* buf = nullptr;
    EXPECT_EQ(posix_memalign(&buf, 4096, kMiB), 0);
    const auto* words = static_cast<const uint32_t*>(buf);
    for (int i = 0; i < kReads; ++i) {
      const off_t at = static_cast<off_t>(i % 4) * kMiB;
      EXPECT_EQ(pread(fd, buf, kMiB, at), static_cast<ssize_t>(kMiB));
      for (size_t block = 0; block < kMiB / 4096; ++block) {
        EXPECT_EQ(words[block * 1024], static_cast<uint32_t>(at / 4096 + block))
            << "read " << i << ", block " << block;
      }
    }
    free(buf);
    close(fd);
    return status().counters.commands[static_cast<int>(Op::kRead)] - before;
  }
};

TEST_F(MountReadPieces, AMebibyteReadReachesTheModelInPiecesAndArrivesWhole) {
  make_numbered_file();
  start(builtin_profiles()[7]);
  const uint64_t pieces = kMiB / DaemonKnobs::kDefaultMaxRead;
  EXPECT_EQ(read_commands_of_large_reads(), kReads * pieces);
  const MountStatus s = status();
  EXPECT_EQ(s.diagnostics.read_request_max_bytes, DaemonKnobs::kDefaultMaxRead);
  EXPECT_EQ(s.diagnostics.lateness_early_replies, 0u);
}

TEST_F(MountReadPieces, OffLeavesAMebibyteReadOneRequest) {
  make_numbered_file();
  setenv("DISKCOND_MAX_READ", "off", 1);
  start(builtin_profiles()[7]);
  unsetenv("DISKCOND_MAX_READ");
  EXPECT_EQ(read_commands_of_large_reads(), static_cast<uint64_t>(kReads));
  EXPECT_EQ(status().diagnostics.read_request_max_bytes, 0u);
}

}  // namespace
}  // namespace diskcond::mount::testing
