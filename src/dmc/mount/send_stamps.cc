#include "dmc/mount/send_stamps.h"

#include <bpf/libbpf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "dmc/mount/send_stamp_object.h"  // kSendStampObject: bpf/send_stamp.bpf.c, compiled

namespace diskcond::mount {
namespace {

constexpr size_t kMappedBytes = SendStampTable::kSlots * sizeof(SendStampSlot);

// The kernel's own dev_t encoding (MKDEV), which the program compares with fuse_conn::dev.
uint32_t kernel_dev(dev_t dev) {
  return (static_cast<uint32_t>(major(dev)) << 20) | static_cast<uint32_t>(minor(dev));
}

std::string failed(const char* what, int err) {
  return std::string("kernel arrival stamps: ") + what + ": " + std::strerror(err);
}

// libbpf's own messages would go to the daemon's log for every mount without BTF; the error
// returned says enough.
int quiet(libbpf_print_level, const char*, va_list) {
  return 0;
}

}  // namespace

SentRequest SendStampTable::sent(uint64_t unique) const {
  const SendStampSlot& slot = slots_[slot_of(unique)];
  if (unique == 0 || slot.unique.load(std::memory_order_acquire) != unique) return {};
  const uint64_t sent = slot.sent_ns.load(std::memory_order_acquire);
  const uint32_t opcode = slot.opcode.load(std::memory_order_acquire);
  const uint32_t cpu = slot.cpu.load(std::memory_order_acquire);
  // A later request may have taken the slot meanwhile; one that wrote its time but not yet its
  // name goes unseen, and its time is later than this request's: an arrival that late only makes
  // the reply later.
  if (slot.unique.load(std::memory_order_acquire) != unique) return {};
  return {static_cast<int64_t>(sent), opcode, static_cast<int>(cpu)};
}

Result<std::unique_ptr<KernelSendStamps>> KernelSendStamps::attach(dev_t mount_dev) {
  libbpf_set_print(quiet);
  bpf_object* object = bpf_object__open_mem(kSendStampObject, sizeof(kSendStampObject), nullptr);
  if (object == nullptr) {
    const int err = errno;
    Error error = make_error(failed("open", err));
    errno = err;
    return error;
  }
  auto fail = [object](const char* what, int err) {
    bpf_object__close(object);
    Error error = make_error(failed(what, err));
    errno = err;
    return error;
  };
  // `connection`, the program's only constant.
  bpf_map* rodata = bpf_object__find_map_by_name(object, ".rodata");
  const uint32_t connection = kernel_dev(mount_dev);
  if (rodata == nullptr ||
      bpf_map__set_initial_value(rodata, &connection, sizeof(connection)) != 0) {
    return fail("the program's constants", EINVAL);
  }
  if (bpf_object__load(object) != 0) return fail("load", errno);
  bpf_program* program = bpf_object__find_program_by_name(object, "stamp_send");
  bpf_map* stamps = bpf_object__find_map_by_name(object, "stamps");
  if (program == nullptr || stamps == nullptr) return fail("the program's parts", ENOENT);
  void* slots = mmap(nullptr, kMappedBytes, PROT_READ, MAP_SHARED, bpf_map__fd(stamps), 0);
  if (slots == MAP_FAILED) return fail("map", errno);
  bpf_link* link = bpf_program__attach(program);
  if (link == nullptr) {
    const int err = errno;
    munmap(slots, kMappedBytes);
    return fail("attach to fuse_request_send", err);
  }
  return std::unique_ptr<KernelSendStamps>(new KernelSendStamps(object, link, slots));
}

KernelSendStamps::KernelSendStamps(bpf_object* object, bpf_link* link, void* slots)
    : object_(object),
      link_(link),
      slots_(slots),
      table_(static_cast<const SendStampSlot*>(slots)) {}

KernelSendStamps::~KernelSendStamps() {
  bpf_link__destroy(link_);
  munmap(slots_, kMappedBytes);
  bpf_object__close(object_);
}

std::unique_ptr<KernelSendStamps> attach_send_stamps(const std::string& mount_point) {
  struct statx stx;
  if (statx(AT_FDCWD, mount_point.c_str(), AT_STATX_DONT_SYNC, STATX_TYPE, &stx) != 0) {
    std::fprintf(stderr, "kernel arrival stamps: statx %s: %s\n", mount_point.c_str(),
                 std::strerror(errno));
    return nullptr;
  }
  auto stamps = KernelSendStamps::attach(makedev(stx.stx_dev_major, stx.stx_dev_minor));
  if (!stamps.ok()) {
    // A daemon that is not root (`dmc run` as a user) may not load it: nothing to report, the
    // log stays empty as it should.
    if (errno != EPERM && errno != EACCES) {
      std::fprintf(stderr, "%s; requests arrive when a worker reads them\n",
                   stamps.error().c_str());
    }
    return nullptr;
  }
  return std::move(*stamps);
}

}  // namespace diskcond::mount
