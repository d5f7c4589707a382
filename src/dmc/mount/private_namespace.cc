#include "dmc/mount/private_namespace.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace diskcond::mount {
namespace {

constexpr const char* kFuseDevice = "/dev/fuse";

// The first integer in a /proc/sys file, or -1 when it is absent or unreadable.
long read_sysctl(const char* path) {
  std::ifstream in(path);
  long value = -1;
  if (!(in >> value)) return -1;
  return value;
}

// Writes `text` to a /proc/self file in one write(2), as the kernel wants for id maps.
Status write_proc_self(const std::string& name, const std::string& text) {
  const std::string path = "/proc/self/" + name;
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return make_error("cannot open " + path + ": " + std::strerror(errno));
  const ssize_t n = write(fd, text.data(), text.size());
  const int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) {
    return make_error("cannot write " + path + ": " + std::strerror(n < 0 ? err : EIO));
  }
  return ok_status();
}

// Ubuntu's AppArmor lets an unconfined process make a user namespace but gives it no
// capabilities there, unless a profile allows it: the namespace is made, the mount is refused.
// (Not a reason to refuse beforehand: a profile for dmc may allow it.)
std::string apparmor_hint(const NamespaceSupport& s) {
  if (s.apparmor_restricts_userns != 1) return "";
  return "; AppArmor restricts unprivileged user namespaces here "
         "(kernel.apparmor_restrict_unprivileged_userns = 1): allow them (sysctl -w "
         "kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for dmc with "
         "'userns,')";
}

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

}  // namespace

NamespaceSupport probe_namespace_support() {
  NamespaceSupport s;
  s.as_root = geteuid() == 0;
  s.fuse_device_errno = access(kFuseDevice, R_OK | W_OK) == 0 ? 0 : errno;
  struct stat st {};
  if (stat(kFuseDevice, &st) == 0) s.fuse_device_mode = st.st_mode & 07777;
  utsname name{};
  if (uname(&name) == 0) s.kernel_release = name.release;
  s.max_user_namespaces = read_sysctl("/proc/sys/user/max_user_namespaces");
  s.unprivileged_userns_clone =
      static_cast<int>(read_sysctl("/proc/sys/kernel/unprivileged_userns_clone"));
  s.apparmor_restricts_userns =
      static_cast<int>(read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"));
  return s;
}

bool kernel_at_least(const std::string& release, int major, int minor) {
  int have_major = 0, have_minor = 0;
  if (std::sscanf(release.c_str(), "%d.%d", &have_major, &have_minor) != 2) return false;
  return have_major > major || (have_major == major && have_minor >= minor);
}

std::string fuse_device_problem(const NamespaceSupport& s) {
  if (s.fuse_device_errno == ENOENT || s.fuse_device_errno == ENODEV) {
    return "no /dev/fuse: load the fuse module (modprobe fuse); in a container, pass the device "
           "(--device /dev/fuse)";
  }
  // EPERM is not the mode (that is EACCES) but the device cgroup, checked before the mode: a
  // container given /dev/fuse as a bind mount or a hostPath volume, not as a device.
  if (s.fuse_device_errno == EPERM) {
    return "/dev/fuse is there but its device cgroup does not allow it (a bind mount or hostPath "
           "volume is not a device): pass it as a device (docker/podman --device /dev/fuse; "
           "Kubernetes: a device plugin or a privileged container)";
  }
  if (s.fuse_device_errno == EACCES) {
    return "/dev/fuse is not accessible to this user (mode " + octal_mode(s.fuse_device_mode) +
           "): give it mode 0666, as most distributions do (chmod 0666 /dev/fuse, or a udev rule: "
           "KERNEL==\"fuse\", MODE=\"0666\")";
  }
  if (s.fuse_device_errno != 0) {
    return std::string("cannot use /dev/fuse: ") + std::strerror(s.fuse_device_errno);
  }
  return "";
}

std::string private_mount_problem(const NamespaceSupport& s) {
  if (std::string device = fuse_device_problem(s); !device.empty()) return device;
  if (s.as_root) return "";
  if (s.max_user_namespaces == 0) {
    return "user namespaces are disabled (user.max_user_namespaces = 0): enable them "
           "(sysctl -w user.max_user_namespaces=15000), or run dmc run as root";
  }
  if (s.unprivileged_userns_clone == 0) {
    return "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0): "
           "enable "
           "them (sysctl -w kernel.unprivileged_userns_clone=1), or run dmc run as root";
  }
  if (!s.kernel_release.empty() && !kernel_at_least(s.kernel_release, 4, 18)) {
    return "kernel " + s.kernel_release +
           " does not allow FUSE mounts in a user namespace (4.18 "
           "was the first that does): upgrade the kernel, or run dmc run as root";
  }
  return "";
}

Status enter_private_mount_namespace(const NamespaceSupport& support) {
  const bool as_root = support.as_root;
  const uid_t uid = geteuid();
  const gid_t gid = getegid();
  if (unshare(as_root ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS) < 0) {
    const int err = errno;
    const std::string why = std::string("unshare: ") + std::strerror(err);
    if (as_root) {
      return make_error("cannot make a private mount namespace (" + why +
                        "): dmc run needs CAP_SYS_ADMIN; in a container, allow unshare(2) in its "
                        "seccomp profile");
    }
    if (err == ENOSPC || err == EUSERS) {
      return make_error("cannot make a user namespace (" + why +
                        "): the limit is reached (raise user.max_user_namespaces)");
    }
    return make_error("unprivileged user namespaces are not allowed here (" + why +
                      "): enable them (sysctl user.max_user_namespaces > 0, and "
                      "kernel.unprivileged_userns_clone=1 where it exists); in a container, allow "
                      "unshare(2) and CLONE_NEWUSER in its seccomp profile");
  }
  if (!as_root) {
    // The kernel's rules for an unprivileged map: one line, the writer's own id, and for gid_map
    // setgroups(2) denied first (else dropping a group could grant access).
    if (Status s = write_proc_self("setgroups", "deny"); !s.ok()) return s;
    if (Status s =
            write_proc_self("uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n");
        !s.ok()) {
      return s;
    }
    if (Status s =
            write_proc_self("gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
        !s.ok()) {
      return s;
    }
  }
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) < 0) {
    const int err = errno;
    return make_error(std::string("cannot make / a slave mount in the private namespace: ") +
                      std::strerror(err) +
                      (err == EPERM && !as_root ? apparmor_hint(support) : ""));
  }
  return ok_status();
}

}  // namespace diskcond::mount
