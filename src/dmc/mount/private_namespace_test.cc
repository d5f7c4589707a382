#include "dmc/mount/private_namespace.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace diskcond::mount {
namespace {

// A machine where an ordinary user can make a private conditioned mount.
NamespaceSupport usable() {
  NamespaceSupport s;
  s.fuse_device_mode = 0666;
  s.kernel_release = "6.18.44-fc";
  s.max_user_namespaces = 15000;
  return s;
}

TEST(PrivateNamespace, NothingMissingIsNoProblem) {
  EXPECT_EQ(private_mount_problem(usable()), "");
  NamespaceSupport debian = usable();
  debian.unprivileged_userns_clone = 1;
  debian.apparmor_restricts_userns = 1;
  EXPECT_EQ(private_mount_problem(debian), "");
}

TEST(PrivateNamespace, EachMissingPieceIsOneLineSayingWhatToEnable) {
  NamespaceSupport s = usable();
  s.fuse_device_errno = ENOENT;
  EXPECT_EQ(private_mount_problem(s),
            "no /dev/fuse: load the fuse module (modprobe fuse); in a container, pass the device "
            "(--device /dev/fuse)");
  s = usable();
  s.fuse_device_errno = EACCES;
  s.fuse_device_mode = 0600;
  EXPECT_EQ(private_mount_problem(s),
            "/dev/fuse is not accessible to this user (mode 0600): give it mode 0666, as most "
            "distributions do "
            "(chmod 0666 /dev/fuse, or a udev rule: KERNEL==\"fuse\", MODE=\"0666\")");
  // A container given /dev/fuse as a bind mount: the device cgroup says no (EPERM), even to
  // root, whatever the mode (measured with podman -v /dev/fuse:/dev/fuse, docs/containers.md).
  s = usable();
  s.as_root = true;
  s.fuse_device_errno = EPERM;
  s.fuse_device_mode = 0666;
  EXPECT_EQ(private_mount_problem(s),
            "/dev/fuse is there but its device cgroup does not allow it (a bind mount or hostPath "
            "volume is not a device): pass it as a device (docker/podman --device /dev/fuse; "
            "Kubernetes: a device plugin or a privileged container)");
  s = usable();
  s.max_user_namespaces = 0;
  EXPECT_NE(
      private_mount_problem(s).find("user namespaces are disabled (user.max_user_namespaces = 0)"),
      std::string::npos);
  s = usable();
  s.unprivileged_userns_clone = 0;
  EXPECT_NE(private_mount_problem(s).find("sysctl -w kernel.unprivileged_userns_clone=1"),
            std::string::npos);
  s = usable();
  s.apparmor_restricts_userns = 1;  // a profile may allow dmc: tried, and explained if refused
  EXPECT_EQ(private_mount_problem(s), "");
  s = usable();
  s.kernel_release = "4.15.0-generic";
  EXPECT_NE(private_mount_problem(s).find(
                "kernel 4.15.0-generic does not allow FUSE mounts in a user namespace"),
            std::string::npos);
  s.max_user_namespaces = 0;  // the first missing piece is the one named
  EXPECT_NE(private_mount_problem(s).find("user.max_user_namespaces = 0"), std::string::npos);
  for (NamespaceSupport each : {usable(), s}) {
    each.fuse_device_errno = EACCES;
    EXPECT_EQ(private_mount_problem(each).find('\n'), std::string::npos);
  }
}

TEST(PrivateNamespace, RootNeedsNoUserNamespaceButStillTheDevice) {
  NamespaceSupport s = usable();
  s.as_root = true;
  s.max_user_namespaces = 0;
  s.kernel_release = "4.9.0";
  EXPECT_EQ(private_mount_problem(s), "");
  s.fuse_device_errno = ENOENT;
  EXPECT_NE(private_mount_problem(s), "");
}

TEST(PrivateNamespace, KernelReleases) {
  EXPECT_TRUE(kernel_at_least("4.18.0", 4, 18));
  EXPECT_TRUE(kernel_at_least("6.1.0-13-amd64", 4, 18));
  EXPECT_TRUE(kernel_at_least("5.4", 4, 18));
  EXPECT_FALSE(kernel_at_least("4.17.19", 4, 18));
  EXPECT_FALSE(kernel_at_least("3.10.0-1160.el7", 4, 18));
  EXPECT_FALSE(kernel_at_least("weird", 4, 18));
}

}  // namespace
}  // namespace diskcond::mount
