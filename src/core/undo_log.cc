#include "core/undo_log.h"

#include <algorithm>
#include <utility>

namespace diskcond {

uint64_t UndoEpoch::stored_bytes() const {
  uint64_t sum = 0;
  for (const auto& [offset, bytes] : before) sum += bytes.size();
  return sum;
}

uint64_t UndoLog::record_write(uint64_t file, uint64_t offset, uint64_t length, uint64_t size,
                               std::string old) {
  std::lock_guard lock(mu_);
  const uint64_t token = next_token_++;
  bytes_ += old.size();
  pending_.emplace(token, PendingWrite{file, offset, length, size, std::move(old)});
  return token;
}

uint64_t UndoLog::record_change(uint64_t entry) {
  std::lock_guard lock(mu_);
  const uint64_t token = next_token_++;
  pending_changes_.emplace(token, UndoChange{entry, next_seq_++, UndoEpoch::kNotYet});
  return token;
}

void UndoLog::keep(uint64_t file) {
  std::lock_guard lock(mu_);
  auto found = files_.find(file);
  if (found != files_.end()) {
    for (const UndoEpoch& e : found->second.sealed) bytes_ -= e.stored_bytes();
    bytes_ -= found->second.open.stored_bytes();
    files_.erase(found);
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.file == file) {
      bytes_ -= it->second.old.size();
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
}

void UndoLog::add_bytes(UndoEpoch& epoch, uint64_t offset, std::string bytes) {
  // Zeros are not kept: written bytes without saved ones were zeros (UndoEpoch::before).
  if (std::all_of(bytes.begin(), bytes.end(), [](char c) { return c == '\0'; })) return;
  bytes_ += bytes.size();
  epoch.before.emplace(offset, std::move(bytes));
}

// The parts of `w` the epoch has not written yet get their old bytes saved; then the epoch's
// written set covers `w`.
void UndoLog::merge(FileLog& log, PendingWrite& w) {
  UndoEpoch& epoch = log.open;
  if (epoch.seq == 0) {
    epoch.seq = next_seq_++;
    epoch.base_size = w.size;
  }
  const uint64_t end = w.offset + w.length;
  const uint64_t old_end = w.offset + w.old.size();  // old bytes exist below this
  auto save = [&](uint64_t from, uint64_t to) {      // [from, to) not written by the epoch yet
    const uint64_t stop = std::min(to, old_end);
    if (from < stop) add_bytes(epoch, from, w.old.substr(from - w.offset, stop - from));
  };
  uint64_t start = w.offset;
  uint64_t stop = end;
  uint64_t cursor = w.offset;
  auto it = epoch.written.upper_bound(start);
  if (it != epoch.written.begin() && std::prev(it)->second >= start) --it;
  while (it != epoch.written.end() && it->first <= end) {
    if (cursor < it->first) save(cursor, it->first);
    cursor = std::max(cursor, it->second);
    start = std::min(start, it->first);
    stop = std::max(stop, it->second);
    it = epoch.written.erase(it);
  }
  if (cursor < end) save(cursor, end);
  epoch.written.emplace(start, stop);
  bytes_ -= w.old.size();
}

void UndoLog::dirtied(uint64_t file, uint64_t token) {
  std::lock_guard lock(mu_);
  auto found = pending_.find(token);
  if (found == pending_.end()) return;  // a later piece of a write already merged
  merge(files_[file], found->second);
  pending_.erase(found);
}

void UndoLog::sent(uint64_t file, int64_t completion_ns) {
  std::lock_guard lock(mu_);
  auto found = files_.find(file);
  if (found == files_.end() || found->second.open.seq == 0) return;
  FileLog& log = found->second;
  log.open.durable_ns = completion_ns;
  log.sealed.push_back(std::move(log.open));
  log.open = UndoEpoch{};
}

void UndoLog::journaled(uint64_t token) {
  std::lock_guard lock(mu_);
  auto found = pending_changes_.find(token);
  if (found == pending_changes_.end()) return;
  transaction_.push_back(found->second);
  pending_changes_.erase(found);
}

void UndoLog::committed(int64_t completion_ns) {
  std::lock_guard lock(mu_);
  for (UndoChange& c : transaction_) {
    c.durable_ns = completion_ns;
    committed_.push_back(c);
  }
  transaction_.clear();
}

UndoLog::Pruned UndoLog::prune(int64_t now) {
  std::lock_guard lock(mu_);
  Pruned out;
  for (auto it = files_.begin(); it != files_.end();) {
    std::vector<UndoEpoch>& sealed = it->second.sealed;
    // A file's epochs become durable in order: an earlier one counts as durable once a later one
    // is (the model may complete a small later send first; the disk would have had both).
    size_t durable = 0;
    for (size_t i = 0; i < sealed.size(); ++i) {
      if (sealed[i].durable_ns <= now) durable = i + 1;
    }
    for (size_t i = 0; i < durable; ++i) bytes_ -= sealed[i].stored_bytes();
    sealed.erase(sealed.begin(), sealed.begin() + static_cast<ptrdiff_t>(durable));
    if (sealed.empty() && it->second.open.seq == 0) {
      out.files.push_back(it->first);
      it = files_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = committed_.begin(); it != committed_.end();) {
    if (it->durable_ns <= now) {
      out.entries.push_back(it->entry);
      it = committed_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

UndoSnapshot UndoLog::snapshot(int64_t now) const {
  std::lock_guard lock(mu_);
  UndoSnapshot s;
  for (const auto& [file, log] : files_) {
    // Everything from the last durable epoch on (see prune).
    size_t first = 0;
    for (size_t i = 0; i < log.sealed.size(); ++i) {
      if (log.sealed[i].durable_ns <= now) first = i + 1;
    }
    std::vector<UndoEpoch> epochs(log.sealed.begin() + static_cast<ptrdiff_t>(first),
                                  log.sealed.end());
    if (log.open.seq != 0) epochs.push_back(log.open);
    if (!epochs.empty()) s.files[file] = std::move(epochs);
  }
  // Writes charged to no model yet (their request was cut short): one epoch each, newest last.
  for (const auto& [token, w] : pending_) {
    UndoEpoch e;
    e.seq = next_seq_ + token;
    e.base_size = w.size;
    e.written.emplace(w.offset, w.offset + w.length);
    if (!w.old.empty()) e.before.emplace(w.offset, w.old);
    s.files[w.file].push_back(std::move(e));
  }
  for (const UndoChange& c : committed_) {
    if (c.durable_ns > now) s.changes.push_back(c);
  }
  for (const UndoChange& c : transaction_) s.changes.push_back(c);
  for (const auto& [token, c] : pending_changes_) s.changes.push_back(c);
  std::sort(s.changes.begin(), s.changes.end(),
            [](const UndoChange& a, const UndoChange& b) { return a.seq < b.seq; });
  return s;
}

uint64_t UndoLog::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

size_t UndoLog::files() const {
  std::lock_guard lock(mu_);
  return files_.size();
}

}  // namespace diskcond
