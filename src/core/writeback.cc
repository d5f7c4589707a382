#include "core/writeback.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace diskcond {
namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr int64_t kLongAgo = std::numeric_limits<int64_t>::min() / 4;

}  // namespace

uint64_t WritebackParams::background_threshold() const {
  if (dirty_background_bytes != 0) return dirty_background_bytes;
  return dirtyable_memory_bytes / 100 * dirty_background_ratio;
}

uint64_t WritebackParams::dirty_limit() const {
  if (dirty_bytes != 0) return dirty_bytes;
  return dirtyable_memory_bytes / 100 * dirty_ratio;
}

Writeback::Writeback(DiskModel& model, const WritebackParams& params)
    : model_(model),
      params_(params),
      next_wakeup_ns_(kNever),
      txn_commit_ns_(kNever),
      last_event_ns_(kLongAgo) {}

int64_t Writeback::submit(const Command& c) {
  std::lock_guard lock(mu_);
  advance_locked(c.arrival_ns);
  return model_.submit(c);
}

void Writeback::advance(int64_t now) {
  std::lock_guard lock(mu_);
  advance_locked(now);
}

int64_t Writeback::next_event() const {
  return std::min(next_wakeup_ns_, txn_commit_ns_);
}

void Writeback::advance_locked(int64_t now) {
  for (int64_t at = next_event(); at <= now; at = next_event()) {
    last_event_ns_ = std::max(last_event_ns_, at);
    if (txn_commit_ns_ == at) {
      commit(at);
    } else {
      wake(at);
    }
  }
  last_event_ns_ = std::max(last_event_ns_, now);
  prune(last_event_ns_);
}

void Writeback::wake(int64_t at) {
  std::vector<FileId> expired;
  for (const auto& [id, file] : dirty_) {
    if (file.dirtied_ns <= at - params_.expire_ns) expired.push_back(id);
  }
  if (!expired.empty()) write_files(expired, at);
  next_wakeup_ns_ = dirty_total_ > 0 && params_.writeback_interval_ns > 0
                        ? at + params_.writeback_interval_ns
                        : kNever;
}

void Writeback::add_dirty(FileId id, uint64_t address, uint64_t length, int64_t at) {
  if (length == 0) return;
  DirtyFile& file = dirty_[id];
  if (file.bytes == 0) file.dirtied_ns = at;
  uint64_t start = address / kPageBytes * kPageBytes;  // whole pages (see the header)
  uint64_t end = (address + length + kPageBytes - 1) / kPageBytes * kPageBytes;
  // Merge with every range that overlaps or touches [start, end).
  auto it = file.ranges.upper_bound(start);
  if (it != file.ranges.begin() && std::prev(it)->second >= start) --it;
  while (it != file.ranges.end() && it->first <= end) {
    start = std::min(start, it->first);
    end = std::max(end, it->second);
    file.bytes -= it->second - it->first;
    dirty_total_ -= it->second - it->first;
    it = file.ranges.erase(it);
  }
  file.ranges.emplace(start, end);
  file.bytes += end - start;
  dirty_total_ += end - start;
  if (next_wakeup_ns_ == kNever && params_.writeback_interval_ns > 0) {
    next_wakeup_ns_ = at + params_.writeback_interval_ns;
  }
}

int64_t Writeback::write_files(const std::vector<FileId>& files, int64_t at) {
  struct Piece {
    uint64_t start, end;
    FileId file;
    bool operator<(const Piece& o) const { return start < o.start; }
  };
  std::vector<Piece> ranges;
  for (FileId id : files) {
    auto found = dirty_.find(id);
    if (found == dirty_.end()) continue;
    for (const auto& [start, end] : found->second.ranges) ranges.push_back({start, end, id});
    dirty_total_ -= found->second.bytes;
    dirty_.erase(found);
  }
  std::sort(ranges.begin(), ranges.end());  // the elevator: one ascending sweep
  std::map<FileId, int64_t> durable;        // each file's last command's completion
  int64_t done = at;
  for (size_t i = 0; i < ranges.size();) {
    const size_t first = i;
    uint64_t start = ranges[i].start;
    uint64_t end = ranges[i].end;
    for (++i; i < ranges.size() && ranges[i].start <= end; ++i) {
      end = std::max(end, ranges[i].end);
    }
    const int64_t completion = model_.submit(Command{Op::kWrite, start, end - start, at});
    if (listener_ != nullptr) {
      for (size_t k = first; k < i; ++k) {
        int64_t& d = durable[ranges[k].file];
        d = std::max(d, completion);
      }
    }
    in_flight_.push_back({completion, end - start});
    done = std::max(done, completion);
    counters_.written_back_bytes += end - start;
    ++counters_.writeback_commands;
  }
  std::sort(in_flight_.begin(), in_flight_.end(),
            [](const InFlight& a, const InFlight& b) { return a.completion_ns < b.completion_ns; });
  for (const auto& [file, completion] : durable) listener_->sent(file, completion);
  return done;
}

void Writeback::background(int64_t at) {
  const uint64_t threshold = params_.background_threshold();
  if (dirty_total_ <= threshold) return;
  write_files(oldest_files_until(threshold), at);
}

std::vector<Writeback::FileId> Writeback::oldest_files_until(uint64_t target) const {
  std::vector<std::pair<int64_t, FileId>> by_age;
  for (const auto& [id, file] : dirty_) by_age.emplace_back(file.dirtied_ns, id);
  std::sort(by_age.begin(), by_age.end());
  std::vector<FileId> chosen;
  uint64_t left = dirty_total_;
  for (const auto& [dirtied, id] : by_age) {
    if (left <= target) break;
    chosen.push_back(id);
    left -= dirty_.at(id).bytes;
  }
  return chosen;
}

int64_t Writeback::commit(int64_t at, int64_t data_done_ns) {
  txn_commit_ns_ = kNever;
  if (txn_blocks_.empty()) return std::max(at, data_done_ns);
  // jbd2 with barriers: the descriptor and the blocks go out with the data already sent (an
  // fsync's data first completes: data_done_ns); once all
  // of it is durable (the commit block's REQ_PREFLUSH: a cache flush), the commit block, made
  // durable by a second flush (its REQ_FUA, which the block layer turns into a flush on disks
  // without FUA: SATA disks by default, and the loop device of the ext4 reference).
  const uint64_t blocks_bytes = (txn_blocks_.size() + 1) * kJournalBlockBytes;  // + descriptor
  const uint64_t bytes = blocks_bytes + kJournalBlockBytes;                     // + commit block
  if (journal_head_ + bytes > params_.journal_bytes) journal_head_ = 0;
  const uint64_t address = params_.journal_address + journal_head_;
  model_.submit(
      Command{Op::kWrite, address, blocks_bytes, at, data_done_ns > at ? data_done_ns : 0});
  const int64_t blocks_durable = model_.submit(Command{Op::kFlush, 0, 0, at});
  model_.submit(
      Command{Op::kWrite, address + blocks_bytes, kJournalBlockBytes, at, blocks_durable});
  journal_head_ += bytes;
  const int64_t done = model_.submit(Command{Op::kFlush, 0, 0, at});
  if (listener_ != nullptr) listener_->committed(done);
  for (uint64_t block : txn_blocks_) add_dirty(kMetadataFile, block, kJournalBlockBytes, at);
  txn_blocks_.clear();
  txn_files_.clear();
  txn_timestamp_files_.clear();
  ++counters_.commits;
  background(at);
  return done;
}

void Writeback::prune(int64_t now) {
  while (!in_flight_.empty() && in_flight_.front().completion_ns <= now) in_flight_.pop_front();
}

uint64_t Writeback::under_writeback(int64_t now) const {
  uint64_t sum = 0;
  for (const InFlight& w : in_flight_) {
    if (w.completion_ns > now) sum += w.bytes;
  }
  return sum;
}

int64_t Writeback::room_at(uint64_t needed, int64_t arrival) {
  const uint64_t limit = params_.dirty_limit();
  if (dirty_total_ + under_writeback(arrival) + needed <= limit) return arrival;
  // Too much dirty data not yet under writeback to make room even once the device is done: send
  // the oldest files now (as balance_dirty_pages' background writeback would).
  if (dirty_total_ + needed > limit)
    write_files(oldest_files_until(needed >= limit ? 0 : limit - needed), arrival);
  uint64_t outstanding = under_writeback(arrival);
  int64_t at = arrival;
  for (const InFlight& w : in_flight_) {
    if (dirty_total_ + outstanding + needed <= limit) break;
    if (w.completion_ns <= arrival) continue;
    outstanding -= w.bytes;
    at = w.completion_ns;
  }
  return at;
}

int64_t Writeback::write(FileId file, uint64_t address, uint64_t length, uint64_t inode_address,
                         int64_t arrival, bool resizes, uint64_t token) {
  std::lock_guard lock(mu_);
  advance_locked(arrival);
  arrival = last_event_ns_;
  const int64_t done = room_at(length, arrival);
  if (done > arrival) {
    ++counters_.throttled_writes;
    counters_.throttled_ns += done - arrival;
  }
  add_dirty(file, address, length, arrival);
  if (listener_ != nullptr && token != 0) listener_->dirtied(file, token);
  background(arrival);
  join_transaction(file, inode_address, resizes, arrival);
  return done;
}

int64_t Writeback::journal(FileId file, uint64_t home_address, int64_t arrival, uint64_t token) {
  std::lock_guard lock(mu_);
  advance_locked(arrival);
  arrival = last_event_ns_;
  join_transaction(file, home_address, /*resizes=*/true, arrival);
  if (listener_ != nullptr && token != 0) listener_->journaled(token);
  return arrival;
}

void Writeback::join_transaction(FileId file, uint64_t home_address, bool resizes, int64_t at) {
  txn_blocks_.insert(home_address / kJournalBlockBytes * kJournalBlockBytes);
  (resizes ? txn_files_ : txn_timestamp_files_).insert(file);
  ++counters_.journal_entries;
  if (txn_commit_ns_ == kNever) txn_commit_ns_ = at + params_.commit_interval_ns;
}

int64_t Writeback::fsync(FileId file, int64_t arrival, bool datasync) {
  std::lock_guard lock(mu_);
  advance_locked(arrival);
  arrival = last_event_ns_;
  const int64_t written = write_files({file}, arrival);
  if (txn_files_.count(file) != 0 || (!datasync && txn_timestamp_files_.count(file) != 0)) {
    return std::max(written, commit(arrival, written));  // its flushes made the data durable too
  }
  return std::max(written, model_.submit(Command{Op::kFlush, 0, 0, arrival}));
}

int64_t Writeback::fsync_directory(FileId dir, int64_t arrival) {
  std::lock_guard lock(mu_);
  advance_locked(arrival);
  arrival = last_event_ns_;
  const int64_t written = write_files({dir}, arrival);
  return std::max(written, commit(arrival, written));
}

int64_t Writeback::sync_all(int64_t arrival) {
  std::lock_guard lock(mu_);
  advance_locked(arrival);
  arrival = last_event_ns_;
  std::vector<FileId> data;
  for (const auto& [id, file] : dirty_) {
    if (id != kMetadataFile) data.push_back(id);
  }
  int64_t done = write_files(data, arrival);
  done = std::max(done, commit(arrival, done));  // sync(2) waits for the data, then commits
  done = std::max(done, write_files({kMetadataFile}, arrival));
  return std::max(done, model_.submit(Command{Op::kFlush, 0, 0, arrival}));
}

void Writeback::set_listener(DurabilityListener* listener) {
  std::lock_guard lock(mu_);
  listener_ = listener;
}

WritebackCounters Writeback::counters() const {
  std::lock_guard lock(mu_);
  WritebackCounters c = counters_;
  c.dirty_bytes = dirty_total_;
  return c;
}

WritebackParams Writeback::params() const {
  std::lock_guard lock(mu_);
  return params_;
}

void Writeback::set_params(const WritebackParams& params) {
  std::lock_guard lock(mu_);
  params_ = params;
  if (journal_head_ >= params_.journal_bytes) journal_head_ = 0;
}

uint64_t Writeback::dirty_bytes(FileId file) const {
  std::lock_guard lock(mu_);
  auto found = dirty_.find(file);
  return found == dirty_.end() ? 0 : found->second.bytes;
}

}  // namespace diskcond
