// metadata_rate: how many files per second a directory creates, stats and unlinks.
//
//   metadata_rate DIR [FILES]      (default 10000 files)
//
// Makes DIR/metadata_rate.<pid>/, then times six phases over FILES names in it: create (open
// O_CREAT|O_EXCL|O_WRONLY, close of an empty file), stat, rename (each file to a new name in the
// same directory), unlink, mkdir, rmdir; removes the subdirectory and prints one JSON line:
// {"files": N, "create_per_sec": ..., "stat_per_sec": ..., "rename_per_sec": ...,
//  "unlink_per_sec": ..., "mkdir_per_sec": ..., "rmdir_per_sec": ...}.
// One process, no fork per file, so the file system's cost is what is measured. Errors: one line
// on stderr, exit 1, and whatever was made is removed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Removes `names` (files or empty directories) and then `dir`.
void remove_all(const std::string& dir, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (::unlink(name.c_str()) != 0 && errno == EISDIR) ::rmdir(name.c_str());
  }
  ::rmdir(dir.c_str());
}

int fail(const std::string& what, const std::string& dir, const std::vector<std::string>& names) {
  std::fprintf(stderr, "metadata_rate: %s: %s\n", what.c_str(), std::strerror(errno));
  remove_all(dir, names);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: metadata_rate DIR [FILES]\n");
    return 2;
  }
  const long files = argc == 3 ? std::strtol(argv[2], nullptr, 10) : 10000;
  if (files <= 0) {
    std::fprintf(stderr, "metadata_rate: FILES must be a positive number\n");
    return 2;
  }
  const std::string dir = std::string(argv[1]) + "/metadata_rate." + std::to_string(::getpid());
  if (::mkdir(dir.c_str(), 0755) != 0) {
    std::fprintf(stderr, "metadata_rate: mkdir %s: %s\n", dir.c_str(), std::strerror(errno));
    return 1;
  }
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(files));
  for (long i = 0; i < files; ++i) names.push_back(dir + "/f" + std::to_string(i));

  std::vector<std::string> made;
  made.reserve(names.size());
  auto start = Clock::now();
  for (const std::string& name : names) {
    int fd = ::open(name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) return fail("create " + name, dir, made);
    made.push_back(name);
    if (::close(fd) != 0) return fail("close " + name, dir, made);
  }
  const double create_s = seconds_since(start);

  start = Clock::now();
  for (const std::string& name : names) {
    struct stat st {};
    if (::stat(name.c_str(), &st) != 0) return fail("stat " + name, dir, made);
  }
  const double stat_s = seconds_since(start);

  std::vector<std::string> renamed;
  renamed.reserve(names.size());
  for (long i = 0; i < files; ++i) renamed.push_back(dir + "/r" + std::to_string(i));
  start = Clock::now();
  for (size_t i = 0; i < names.size(); ++i) {
    if (::rename(names[i].c_str(), renamed[i].c_str()) != 0) {
      return fail("rename " + names[i], dir, made);
    }
    made[i] = renamed[i];
  }
  const double rename_s = seconds_since(start);

  start = Clock::now();
  for (const std::string& name : renamed) {
    if (::unlink(name.c_str()) != 0) return fail("unlink " + name, dir, made);
  }
  const double unlink_s = seconds_since(start);
  made.clear();

  // Directories under the names the files had.
  start = Clock::now();
  for (const std::string& name : names) {
    if (::mkdir(name.c_str(), 0755) != 0) return fail("mkdir " + name, dir, made);
    made.push_back(name);
  }
  const double mkdir_s = seconds_since(start);

  start = Clock::now();
  for (const std::string& name : names) {
    if (::rmdir(name.c_str()) != 0) return fail("rmdir " + name, dir, made);
  }
  const double rmdir_s = seconds_since(start);
  ::rmdir(dir.c_str());

  const double n = static_cast<double>(files);
  std::printf(
      "{\"files\": %ld, \"create_per_sec\": %.1f, \"stat_per_sec\": %.1f, \"rename_per_sec\": "
      "%.1f, \"unlink_per_sec\": %.1f, \"mkdir_per_sec\": %.1f, \"rmdir_per_sec\": %.1f}\n",
      files, n / create_s, n / stat_s, n / rename_s, n / unlink_s, n / mkdir_s, n / rmdir_s);
  return 0;
}
