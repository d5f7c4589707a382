#include "harness/load/load_driver.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <random>
#include <thread>

#include "core/clock.h"
#include "harness/aligned_buffer.h"
#include "harness/load/block_pattern.h"

namespace diskcond::harness::load {
namespace {

constexpr size_t kMaxMessages = 10;
constexpr size_t kMaxIoBytes = 1 << 20;

std::string data_path(const std::string& dir, size_t client) {
  return dir + "/load-" + std::to_string(client);
}

// Weights of the operations, in LoadOp order (sum 100).
constexpr unsigned kWeights[kLoadOpCount] = {30, 25, 15, 15, 7, 8, 0};

// One client: its files, its random stream, its statistics. Used by one thread.
class Client {
 public:
  Client(const LoadOptions& options, size_t index)
      : options_(options),
        index_(static_cast<uint32_t>(index)),
        blocks_(options.file_bytes / kBlockBytes),
        versions_(blocks_, 0),
        random_(options.seed + index),
        buffer_(kMaxIoBytes) {}

  ~Client() {
    if (fd_ >= 0) close(fd_);
  }

  // Creates the data file (file_bytes of zeros). False (and a message) when that fails.
  bool open_file() {
    const std::string path = data_path(options_.dir, index_);
    int flags = O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC;
    const bool want_direct = options_.direct_io && index_ % 2 == 1;
    fd_ = want_direct ? open(path.c_str(), flags | O_DIRECT, 0644) : -1;
    direct_ = fd_ >= 0;
    if (fd_ < 0) fd_ = open(path.c_str(), flags, 0644);
    if (fd_ < 0 || ftruncate(fd_, static_cast<off_t>(options_.file_bytes)) != 0) {
      fail(LoadOp::kMetadata, "create " + path);
      return false;
    }
    return true;
  }

  void run(int64_t end_ns) {
    while (monotonic_now_ns() < end_ns) step(pick());
  }

  // Reads the whole file once more and checks every block.
  void check_all() {
    for (uint64_t b = 0; b < blocks_; b += kMaxIoBytes / kBlockBytes) {
      const uint64_t n = std::min<uint64_t>(kMaxIoBytes / kBlockBytes, blocks_ - b);
      read_blocks(b, n, LoadOp::kFinalCheck);
    }
  }

  bool direct() const { return direct_; }
  std::array<OpStats, kLoadOpCount>& stats() { return stats_; }
  uint64_t data_errors() const { return data_errors_; }
  const std::vector<std::string>& messages() const { return messages_; }
  const std::vector<uint32_t>& versions() const { return versions_; }

 private:
  LoadOp pick() {
    unsigned r = static_cast<unsigned>(random_() % 100);
    for (size_t i = 0; i < kLoadOpCount; ++i) {
      if (r < kWeights[i]) return static_cast<LoadOp>(i);
      r -= kWeights[i];
    }
    return LoadOp::kRandomRead;
  }

  void step(LoadOp op) {
    switch (op) {
      case LoadOp::kRandomRead:
      case LoadOp::kRandomWrite: {
        const uint64_t n = random_() % 2 == 0 ? 1 : 4;  // 4 or 16 KiB
        const uint64_t b = random_() % (blocks_ - n + 1);
        if (op == LoadOp::kRandomRead)
          read_blocks(b, n, op);
        else
          write_blocks(b, n, op);
        return;
      }
      case LoadOp::kSequentialRead:
      case LoadOp::kSequentialWrite: {
        uint64_t n = random_() % 4 == 0 ? kMaxIoBytes / kBlockBytes : 16;  // 1 MiB or 64 KiB
        uint64_t& cursor = op == LoadOp::kSequentialRead ? read_cursor_ : write_cursor_;
        if (cursor + n > blocks_) cursor = 0;
        n = std::min(n, blocks_ - cursor);
        if (op == LoadOp::kSequentialRead)
          read_blocks(cursor, n, op);
        else
          write_blocks(cursor, n, op);
        cursor += n;
        return;
      }
      case LoadOp::kFsync: {
        const int64_t t0 = monotonic_now_ns();
        if (fsync(fd_) != 0) return fail(op, "fsync");
        record(op, t0, 0);
        return;
      }
      case LoadOp::kMetadata:
        return metadata();
      case LoadOp::kFinalCheck:
        return;
    }
  }

  void read_blocks(uint64_t first, uint64_t n, LoadOp op) {
    const size_t bytes = n * kBlockBytes;
    const int64_t t0 = monotonic_now_ns();
    const ssize_t got = pread(fd_, buffer_.data(), bytes, static_cast<off_t>(first * kBlockBytes));
    if (got != static_cast<ssize_t>(bytes)) return fail(op, "read", got);
    record(op, t0, bytes);
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t block = static_cast<uint32_t>(first + i);
      if (!block_matches(buffer_.data() + i * kBlockBytes, index_, block, versions_[block])) {
        ++data_errors_;
        note("client " + std::to_string(index_) + ": block " + std::to_string(block) +
             " does not hold version " + std::to_string(versions_[block]));
      }
    }
  }

  void write_blocks(uint64_t first, uint64_t n, LoadOp op) {
    const size_t bytes = n * kBlockBytes;
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t block = static_cast<uint32_t>(first + i);
      const uint32_t next = versions_[block] == kUnknownVersion ? 1 : versions_[block] + 1;
      versions_[block] = next;
      fill_block(buffer_.data() + i * kBlockBytes, index_, block, next);
    }
    const int64_t t0 = monotonic_now_ns();
    const ssize_t put = pwrite(fd_, buffer_.data(), bytes, static_cast<off_t>(first * kBlockBytes));
    if (put != static_cast<ssize_t>(bytes)) {
      for (uint64_t i = 0; i < n; ++i) versions_[first + i] = kUnknownVersion;
      return fail(op, "write", put);
    }
    record(op, t0, bytes);
  }

  // create + 4 KiB write + close + stat + unlink of a scratch file.
  void metadata() {
    const std::string path = data_path(options_.dir, index_) + "-t" + std::to_string(scratch_++);
    const int64_t t0 = monotonic_now_ns();
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return fail(LoadOp::kMetadata, "create " + path);
    const ssize_t put = write(fd, buffer_.data(), kBlockBytes);
    close(fd);
    struct stat st;
    if (put != static_cast<ssize_t>(kBlockBytes)) return fail(LoadOp::kMetadata, "write", put);
    if (stat(path.c_str(), &st) != 0) return fail(LoadOp::kMetadata, "stat " + path);
    if (st.st_size != static_cast<off_t>(kBlockBytes)) {
      ++stats_[static_cast<size_t>(LoadOp::kMetadata)].errors;
      note(path + ": size " + std::to_string(st.st_size) + " after a 4096-byte write");
    }
    if (unlink(path.c_str()) != 0) return fail(LoadOp::kMetadata, "unlink " + path);
    record(LoadOp::kMetadata, t0, kBlockBytes);
  }

  void record(LoadOp op, int64_t start_ns, uint64_t bytes) {
    OpStats& s = stats_[static_cast<size_t>(op)];
    s.latency.record(static_cast<uint64_t>(std::max<int64_t>(monotonic_now_ns() - start_ns, 0)));
    s.bytes += bytes;
  }

  // A failed call: errno (when `result` < 0) or a short transfer.
  void fail(LoadOp op, const std::string& what, ssize_t result = -1) {
    const std::string why =
        result < 0 ? std::strerror(errno) : "short transfer (" + std::to_string(result) + ")";
    ++stats_[static_cast<size_t>(op)].errors;
    note("client " + std::to_string(index_) + ": " + load_op_name(op) + ": " + what + ": " + why);
  }

  void note(std::string message) {
    if (messages_.size() < kMaxMessages) messages_.push_back(std::move(message));
  }

  const LoadOptions& options_;
  const uint32_t index_;
  const uint64_t blocks_;
  std::vector<uint32_t> versions_;
  std::mt19937_64 random_;
  harness::AlignedBuffer buffer_;
  int fd_ = -1;
  bool direct_ = false;
  uint64_t read_cursor_ = 0, write_cursor_ = 0, scratch_ = 0;
  std::array<OpStats, kLoadOpCount> stats_;
  uint64_t data_errors_ = 0;
  std::vector<std::string> messages_;
};

}  // namespace

const char* load_op_name(LoadOp op) {
  switch (op) {
    case LoadOp::kRandomRead:
      return "random_read";
    case LoadOp::kRandomWrite:
      return "random_write";
    case LoadOp::kSequentialRead:
      return "sequential_read";
    case LoadOp::kSequentialWrite:
      return "sequential_write";
    case LoadOp::kFsync:
      return "fsync";
    case LoadOp::kMetadata:
      return "metadata";
    case LoadOp::kFinalCheck:
      return "final_check";
  }
  return "?";
}

LoadReport run_load(const LoadOptions& options) {
  std::vector<std::unique_ptr<Client>> clients;
  for (size_t c = 0; c < options.clients; ++c)
    clients.push_back(std::make_unique<Client>(options, c));
  std::vector<char> opened(options.clients, 0);
  const int64_t start = monotonic_now_ns();
  const int64_t end = start + static_cast<int64_t>(options.seconds * 1e9);
  std::vector<std::thread> threads;
  for (size_t c = 0; c < options.clients; ++c) {
    threads.emplace_back([&, c] {
      opened[c] = clients[c]->open_file();
      if (opened[c]) clients[c]->run(end);
    });
  }
  for (auto& t : threads) t.join();
  LoadReport report;
  report.elapsed_s = static_cast<double>(monotonic_now_ns() - start) / 1e9;
  threads.clear();
  for (size_t c = 0; c < options.clients; ++c) {  // the final read-back, concurrently too
    threads.emplace_back([&, c] {
      if (opened[c]) clients[c]->check_all();
    });
  }
  for (auto& t : threads) t.join();
  for (size_t c = 0; c < options.clients; ++c) {
    Client& client = *clients[c];
    for (size_t i = 0; i < kLoadOpCount; ++i) {
      report.ops[i].latency.merge(client.stats()[i].latency);
      report.ops[i].errors += client.stats()[i].errors;
      report.ops[i].bytes += client.stats()[i].bytes;
      if (static_cast<LoadOp>(i) != LoadOp::kFinalCheck)
        report.all.merge(client.stats()[i].latency);
      report.errors += client.stats()[i].errors;
    }
    report.data_errors += client.data_errors();
    report.direct_clients += client.direct() ? 1 : 0;
    for (const auto& m : client.messages()) {
      if (report.first_errors.size() < kMaxMessages) report.first_errors.push_back(m);
    }
    report.versions.push_back(client.versions());
  }
  clients.clear();  // closes the descriptors
  if (!options.keep_files) {
    for (size_t c = 0; c < options.clients; ++c) unlink(data_path(options.dir, c).c_str());
  }
  return report;
}

int64_t check_client_file(const std::string& dir, size_t client,
                          const std::vector<uint32_t>& versions) {
  const int fd = open(data_path(dir, client).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  std::vector<char> block(kBlockBytes);
  int64_t wrong = 0;
  for (size_t b = 0; b < versions.size(); ++b) {
    if (pread(fd, block.data(), kBlockBytes, static_cast<off_t>(b * kBlockBytes)) !=
            static_cast<ssize_t>(kBlockBytes) ||
        !block_matches(block.data(), static_cast<uint32_t>(client), static_cast<uint32_t>(b),
                       versions[b])) {
      ++wrong;
    }
  }
  close(fd);
  return wrong;
}

}  // namespace diskcond::harness::load
