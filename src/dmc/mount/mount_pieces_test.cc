// Integration: a large O_DIRECT read or write reaches the daemon in pieces of at most
// DaemonKnobs::kDefaultMaxRead / kDefaultMaxWrite bytes (the mount option max_read, the INIT
// reply's max_write), each its own model command, and every byte arrives in order: the caller's
// for a read, the backing file's for a write. DISKCOND_MAX_WRITE=off leaves a write one request,
// and a read too with DISKCOND_MAX_READ=off. A read's pieces are answered with their data spliced
// from the backing file's page cache (reply_pipes.h), unless DISKCOND_SPLICE_REPLIES=off; a 1 MiB
// read in one request is not (larger than ReplyPipes::kMaxBytes).
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

constexpr int kTransfers = 8;  // 1 MiB each, over a 4 MiB file: every MiB twice
constexpr size_t kFileBytes = 4 * kMiB;
constexpr size_t kBlock = 4096;
constexpr uint64_t kDefaultPiece = DaemonKnobs::kDefaultMaxRead;

// The word that begins every 4 KiB block of the test file: the block's number.
uint32_t block_word(off_t at) {
  return static_cast<uint32_t>(at / kBlock);
}

// `bytes` of the test file from `at`: every 4-byte word holds its block's number.
void fill_numbered(void* buf, off_t at, size_t bytes) {
  auto* words = static_cast<uint32_t*>(buf);
  for (size_t i = 0; i < bytes / sizeof(uint32_t); ++i)
    words[i] = block_word(at + static_cast<off_t>(i * sizeof(uint32_t)));
}

class MountPieces : public MountTest {
 protected:
  void TearDown() override {
    unsetenv("DISKCOND_MAX_READ");
    unsetenv("DISKCOND_MAX_WRITE");
    unsetenv("DISKCOND_SPLICE_REPLIES");
    MountTest::TearDown();
  }

  void make_numbered_file() {
    std::vector<uint32_t> words(kFileBytes / sizeof(uint32_t));
    fill_numbered(words.data(), 0, kFileBytes);
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

  uint64_t commands(Op op) { return status().counters.commands[static_cast<int>(op)]; }

  // kTransfers 1 MiB O_DIRECT reads of the file's MiBs in turn, each checked block by block;
  // returns the model's read commands they took.
  uint64_t read_commands_of_large_reads() {
    const int fd = open(path("f").c_str(), O_RDONLY | O_DIRECT);
    EXPECT_GE(fd, 0);
    // After the open, whose metadata reads (a cold inode) are model reads too.
    const uint64_t before = commands(Op::kRead);
    void* buf = nullptr;
    EXPECT_EQ(posix_memalign(&buf, kBlock, kMiB), 0);
    const auto* words = static_cast<const uint32_t*>(buf);
    for (int i = 0; i < kTransfers; ++i) {
      const off_t at = static_cast<off_t>(i % 4) * kMiB;
      EXPECT_EQ(pread(fd, buf, kMiB, at), static_cast<ssize_t>(kMiB));
      for (size_t block = 0; block < kMiB / kBlock; ++block) {
        EXPECT_EQ(words[block * kBlock / sizeof(uint32_t)],
                  block_word(at + static_cast<off_t>(block * kBlock)))
            << "read " << i << ", block " << block;
      }
    }
    free(buf);
    close(fd);
    return commands(Op::kRead) - before;
  }

  // kTransfers 1 MiB O_DIRECT writes of numbered blocks to a new file (the first four extend it,
  // the last four overwrite it); returns the model's write commands they took.
  uint64_t write_commands_of_large_writes() {
    const int fd = open(path("w").c_str(), O_WRONLY | O_CREAT | O_DIRECT, 0644);
    EXPECT_GE(fd, 0);
    const uint64_t before = commands(Op::kWrite);
    void* buf = nullptr;
    EXPECT_EQ(posix_memalign(&buf, kBlock, kMiB), 0);
    for (int i = 0; i < kTransfers; ++i) {
      const off_t at = static_cast<off_t>(i % 4) * kMiB;
      fill_numbered(buf, at, kMiB);
      EXPECT_EQ(pwrite(fd, buf, kMiB, at), static_cast<ssize_t>(kMiB)) << "write " << i;
    }
    free(buf);
    EXPECT_EQ(close(fd), 0);
    return commands(Op::kWrite) - before;
  }

  // Each of the kTransfers 1 MiB transfers took kMiB / piece model commands, the mount's status
  // names `piece` as its limit for `op`, and no reply went early.
  void expect_pieces(Op op, uint64_t commands, uint64_t piece) {
    EXPECT_EQ(commands, kTransfers * (kMiB / piece));
    const MountDiagnostics d = status().diagnostics;
    EXPECT_EQ(op == Op::kRead ? d.read_request_max_bytes : d.write_request_max_bytes, piece);
    EXPECT_EQ(d.lateness_early_replies, 0u);
  }

  // The written file as the backing directory has it once the mount is gone: whole, in order.
  void expect_backing_file_numbered() {
    ASSERT_TRUE(control_->stop(dir_, false).ok());
    std::vector<uint32_t> expected(kFileBytes / sizeof(uint32_t));
    fill_numbered(expected.data(), 0, kFileBytes);
    std::vector<uint32_t> got(expected.size() + 1);
    FILE* f = fopen(path("w").c_str(), "r");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(fread(got.data(), sizeof(uint32_t), got.size(), f), expected.size());
    fclose(f);
    got.pop_back();
    EXPECT_TRUE(got == expected) << "the backing file differs from what was written";
  }
};

TEST_F(MountPieces, AMebibyteReadReachesTheModelInPiecesAndArrivesWhole) {
  make_numbered_file();
  start(builtin_profiles()[7]);
  expect_pieces(Op::kRead, read_commands_of_large_reads(), DaemonKnobs::kDefaultMaxRead);
  EXPECT_EQ(status().diagnostics.spliced_read_replies, kTransfers * (kMiB / kDefaultPiece));
}

TEST_F(MountPieces, SplicedRepliesOffCopiesThePiecesAndTheyArriveWhole) {
  make_numbered_file();
  setenv("DISKCOND_SPLICE_REPLIES", "off", 1);
  start(builtin_profiles()[7]);
  expect_pieces(Op::kRead, read_commands_of_large_reads(), DaemonKnobs::kDefaultMaxRead);
  EXPECT_EQ(status().diagnostics.spliced_read_replies, 0u);
}

// max_write bounds reads too (libfuse 3.14 derives the INIT reply's max_pages from it): a 1 MiB
// read is one request only with both knobs off.
TEST_F(MountPieces, ReadsAndWritesOffLeaveAMebibyteReadOneRequest) {
  make_numbered_file();
  setenv("DISKCOND_MAX_READ", "off", 1);
  start(builtin_profiles()[7]);
  expect_pieces(Op::kRead, read_commands_of_large_reads(), DaemonKnobs::kDefaultMaxWrite);
  ASSERT_TRUE(control_->stop(dir_, false).ok());

  setenv("DISKCOND_MAX_WRITE", "off", 1);
  start(builtin_profiles()[7]);
  expect_pieces(Op::kRead, read_commands_of_large_reads(), kMiB);
  EXPECT_EQ(status().diagnostics.spliced_read_replies, 0u);  // too large for a pipe
}

TEST_F(MountPieces, AMebibyteWriteReachesTheModelInPiecesAndTheBackingFileWhole) {
  start(builtin_profiles()[7]);
  expect_pieces(Op::kWrite, write_commands_of_large_writes(), DaemonKnobs::kDefaultMaxWrite);
  expect_backing_file_numbered();
}

TEST_F(MountPieces, WritesOffLeavesAMebibyteWriteOneRequest) {
  setenv("DISKCOND_MAX_WRITE", "off", 1);
  start(builtin_profiles()[7]);
  expect_pieces(Op::kWrite, write_commands_of_large_writes(), kMiB);
  expect_backing_file_numbered();
}

}  // namespace
}  // namespace diskcond::mount::testing
