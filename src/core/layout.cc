#include "core/layout.h"

#include <algorithm>
#include <iterator>

namespace diskcond {
namespace {

uint64_t round_down(uint64_t x, uint64_t unit) {
  return x - x % unit;
}
uint64_t round_up(uint64_t x, uint64_t unit) {
  return round_down(x + unit - 1, unit);
}

// Appends `p`, merged into the last piece when it continues it on the device.
void append(std::vector<Piece>& out, Piece p) {
  if (p.length == 0) return;
  if (!out.empty() && out.back().address + out.back().length == p.address) {
    out.back().length += p.length;
  } else {
    out.push_back(p);
  }
}

}  // namespace

LayoutParams LayoutParams::like_ext4(uint64_t capacity, uint64_t total_inodes) {
  LayoutParams p;
  p.capacity = std::max<uint64_t>(capacity, 1);
  const uint64_t groups = std::max<uint64_t>(p.capacity / p.group_bytes, 1);
  if (total_inodes > 0) p.inodes_per_group = std::max<uint64_t>(total_inodes / groups, 1);
  return p;
}

Layout::Layout(const LayoutParams& params) : params_(params) {}

uint64_t Layout::group_of(uint64_t ino) const {
  const uint64_t groups = std::max<uint64_t>(params_.capacity / params_.group_bytes, 1);
  return ((ino > 0 ? ino - 1 : 0) / params_.inodes_per_group) % groups;
}

uint64_t Layout::inode_address(uint64_t ino) const {
  const uint64_t group = group_of(ino);
  const uint64_t leader = round_down(group, params_.flex_groups);
  const uint64_t table_bytes = params_.inodes_per_group * params_.inode_bytes;
  // The leader group starts with the flex group's block and inode bitmaps, then its tables.
  const uint64_t tables =
      leader * params_.group_bytes + 2 * params_.flex_groups * params_.block_bytes;
  const uint64_t index = (ino > 0 ? ino - 1 : 0) % params_.inodes_per_group;
  return wrap(tables + (group - leader) * table_bytes + index * params_.inode_bytes);
}

uint64_t Layout::block_bitmap_address(uint64_t address) const {
  const uint64_t group = wrap(address) / params_.group_bytes;
  const uint64_t leader = round_down(group, params_.flex_groups);
  return wrap(leader * params_.group_bytes + (group - leader) * params_.block_bytes);
}

uint64_t Layout::group_descriptor_address(uint64_t address) const {
  constexpr uint64_t kDescriptorBytes = 64;  // ext4 with the 64bit feature
  const uint64_t per_block = std::max<uint64_t>(params_.block_bytes / kDescriptorBytes, 1);
  const uint64_t groups = std::max<uint64_t>(params_.capacity / params_.group_bytes, 1);
  const uint64_t table_blocks = (groups + per_block - 1) / per_block;
  const uint64_t group = wrap(address) / params_.group_bytes;
  const uint64_t table = params_.group_bytes - table_blocks * params_.block_bytes;
  return wrap(table + group / per_block * params_.block_bytes);
}

uint64_t Layout::group_data_address(uint64_t ino) const {
  const uint64_t group = group_of(ino);
  uint64_t start = group * params_.group_bytes;
  if (group % params_.flex_groups == 0) {
    start += 2 * params_.flex_groups * params_.block_bytes +
             params_.flex_groups * params_.inodes_per_group * params_.inode_bytes;
  }
  return wrap(round_up(start, params_.block_bytes));
}

std::vector<Piece> Layout::directory_pieces(uint64_t ino, const std::vector<Extent>* extents,
                                            uint64_t bytes) {
  std::vector<Piece> out;
  std::lock_guard lock(mu_);
  ++counters_.directory_reads;
  // The directory's own address, allocated once at its flex group's directory cursor.
  auto own = [&]() {
    auto it = directories_.find(ino);
    if (it != directories_.end()) return it->second;
    const uint64_t leader = round_down(group_of(ino), params_.flex_groups);
    const uint64_t leader_ino = leader * params_.inodes_per_group + 1;
    auto cursor = dir_cursors_.try_emplace(leader, group_data_address(leader_ino)).first;
    const uint64_t address = cursor->second;
    cursor->second = wrap(address + round_up(std::max<uint64_t>(bytes, 1), params_.block_bytes));
    directories_.emplace(ino, address);
    return address;
  };
  if (extents == nullptr) {
    append(out, Piece{own(), bytes});
    return out;
  }
  std::vector<Extent> sorted(*extents);
  std::sort(sorted.begin(), sorted.end(),
            [](const Extent& a, const Extent& b) { return a.logical < b.logical; });
  uint64_t pos = 0;
  for (const Extent& e : sorted) {
    if (pos >= bytes) break;
    if (e.logical + e.length <= pos) continue;
    if (e.logical > pos) {  // a gap the extents do not cover
      const uint64_t gap_end = std::min(bytes, e.logical);
      append(out, Piece{wrap(own() + pos), gap_end - pos});
      pos = gap_end;
      if (pos >= bytes) break;
    }
    const uint64_t stop = std::min(bytes, e.logical + e.length);
    append(out, Piece{wrap(e.physical + (pos - e.logical)), stop - pos});
    pos = stop;
  }
  if (pos < bytes) append(out, Piece{wrap(own() + pos), bytes - pos});
  return out;
}

bool Layout::placed(FileId file) const {
  std::lock_guard lock(mu_);
  return files_.count(file) != 0;
}

void Layout::set_extents(FileId file, uint64_t ino, std::vector<Extent> extents) {
  std::lock_guard lock(mu_);
  File f;
  f.ino = ino;
  for (const Extent& e : extents) {
    if (e.length > 0) f.extents[e.logical] = Extent{e.logical, wrap(e.physical), e.length};
  }
  const bool known = files_.count(file) != 0;
  files_[file] = std::move(f);
  if (!known) ++counters_.files_mapped;
}

void Layout::set_hashed(FileId file, uint64_t base) {
  std::lock_guard lock(mu_);
  File f;
  f.hashed = true;
  f.base = base;
  const bool known = files_.count(file) != 0;
  files_[file] = std::move(f);
  if (!known) ++counters_.files_hashed;
}

void Layout::set_linear(FileId file, uint64_t base) {
  std::lock_guard lock(mu_);
  File& f = files_[file];
  if (f.linear) return;
  f = File{};
  f.hashed = f.linear = true;
  f.base = base;
  ++counters_.files_linear;
}

void Layout::drop(FileId file) {
  std::lock_guard lock(mu_);
  files_.erase(file);
}

uint64_t Layout::allocate(File& f, uint64_t offset, uint64_t length) {
  uint64_t allocated = 0;
  const uint64_t start = round_down(offset, params_.block_bytes);
  const uint64_t stop = round_up(offset + length, params_.block_bytes);
  const uint64_t group = group_of(f.ino);
  auto cursor = cursors_.try_emplace(group, group_data_address(f.ino)).first;
  uint64_t pos = start;
  while (pos < stop) {
    auto next = f.extents.upper_bound(pos);
    if (next != f.extents.begin()) {
      const Extent& prev = std::prev(next)->second;
      if (prev.logical + prev.length > pos) {  // placed: skip past it
        pos = prev.logical + prev.length;
        continue;
      }
    }
    const uint64_t gap_end = next == f.extents.end() ? stop : std::min(stop, next->first);
    const uint64_t bytes = gap_end - pos;
    // ext4's goal: as far from the file's nearest placed block as the logical distance (the
    // extent before the gap, else the one after it); a file with nothing placed starts at its
    // group's cursor. The cursor moves past what is allocated at or beyond it.
    uint64_t physical = cursor->second;
    if (next != f.extents.begin()) {
      const Extent& prev = std::prev(next)->second;
      physical = prev.physical + (pos - prev.logical);
    } else if (next != f.extents.end() && next->second.physical >= next->first - pos) {
      physical = next->second.physical - (next->first - pos);
    }
    physical = wrap(physical);
    cursor->second = std::max(cursor->second, physical + bytes);
    counters_.allocated_bytes += bytes;
    allocated += bytes;
    // Continues the extent before it on the device too: one extent.
    if (next != f.extents.begin()) {
      Extent& prev = std::prev(next)->second;
      if (prev.logical + prev.length == pos && prev.physical + prev.length == physical) {
        prev.length += bytes;
        pos = gap_end;
        continue;
      }
    }
    f.extents[pos] = Extent{pos, physical, bytes};
    pos = gap_end;
  }
  return allocated;
}

std::vector<Piece> Layout::map(FileId file, uint64_t hash_base, uint64_t offset, uint64_t length,
                               bool write, uint64_t* allocated) {
  std::vector<Piece> out;
  if (allocated != nullptr) *allocated = 0;
  std::lock_guard lock(mu_);
  auto it = files_.find(file);
  if (it == files_.end() || it->second.hashed) {
    const uint64_t base = it == files_.end() ? hash_base : it->second.base;
    append(out,
           Piece{(base % params_.capacity + offset % params_.capacity) % params_.capacity, length});
    return out;
  }
  File& f = it->second;
  if (write) {
    const uint64_t bytes = allocate(f, offset, length);
    if (allocated != nullptr) *allocated = bytes;
  }
  uint64_t pos = offset;
  const uint64_t end = offset + length;
  while (pos < end) {
    auto next = f.extents.upper_bound(pos);
    if (next != f.extents.begin()) {
      const Extent& e = std::prev(next)->second;
      if (e.logical + e.length > pos) {
        const uint64_t stop = std::min(end, e.logical + e.length);
        append(out, Piece{wrap(e.physical + (pos - e.logical)), stop - pos});
        pos = stop;
        continue;
      }
    }
    const uint64_t stop = next == f.extents.end() ? end : std::min(end, next->first);
    append(out, Piece{(hash_base % params_.capacity + pos % params_.capacity) % params_.capacity,
                      stop - pos});
    pos = stop;
  }
  return out;
}

Piece Layout::hold_inode(uint64_t ino, bool created) {
  const uint64_t unit = params_.inode_readahead_bytes;
  const uint64_t cluster = inode_address(ino) / unit;
  std::lock_guard lock(mu_);
  if (clusters_[cluster]++ > 0 || created) return Piece{};
  ++counters_.metadata_reads;
  return Piece{wrap(cluster * unit), unit};
}

void Layout::release_inode(uint64_t ino) {
  const uint64_t cluster = inode_address(ino) / params_.inode_readahead_bytes;
  std::lock_guard lock(mu_);
  auto it = clusters_.find(cluster);
  if (it == clusters_.end()) return;
  if (--it->second == 0) clusters_.erase(it);
}

LayoutCounters Layout::counters() const {
  std::lock_guard lock(mu_);
  return counters_;
}

}  // namespace diskcond
