// Helpers shared by rawio's tests: scratch directories and files with known contents.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rawio/engine.h"
#include "test_support/scratch_dir.h"

namespace diskcond::rawio::testing {

// Every engine that reaches the target (all but null), in engines() order.
inline std::vector<const EngineInfo*> data_engines() {
  std::vector<const EngineInfo*> out;
  for (const EngineInfo* e : engines()) {
    if (e->caps.moves_data) out.push_back(e);
  }
  return out;
}

// The scratch directory of every layer's tests (test_support/scratch_dir.h).
using test_support::ScratchDir;

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

#ifdef RAWIO_BINARY
struct Outcome {
  int exit_code;
  std::string out;
  std::string err;
};

// Runs the built `rawio <args>` through the shell, capturing stdout and stderr separately.
inline Outcome rawio(const std::string& args) {
  ScratchDir io;
  std::string cmd =
      std::string(RAWIO_BINARY) + " " + args + " >" + io.file("out") + " 2>" + io.file("err");
  int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(io.file("out")),
          slurp(io.file("err"))};
}
#endif

// Byte i of a pattern file: recognisable and different in every 4 KiB block.
inline uint8_t pattern_byte(uint64_t i) {
  return static_cast<uint8_t>((i * 7 + i / 4096) & 0xff);
}

inline void write_pattern_file(const std::string& path, uint64_t bytes) {
  std::vector<uint8_t> data(bytes);
  for (uint64_t i = 0; i < bytes; ++i) data[i] = pattern_byte(i);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ssize_t n = ::write(fd, data.data(), data.size());
  (void)n;
  ::fsync(fd);
  ::close(fd);
}

inline void write_zero_file(const std::string& path, uint64_t bytes) {
  std::vector<uint8_t> data(bytes, 0);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ssize_t n = ::write(fd, data.data(), data.size());
  (void)n;
  ::fsync(fd);
  ::close(fd);
}

inline std::vector<uint8_t> read_file(const std::string& path) {
  std::vector<uint8_t> data(std::filesystem::file_size(path));
  int fd = ::open(path.c_str(), O_RDONLY);
  ssize_t n = ::read(fd, data.data(), data.size());
  (void)n;
  ::close(fd);
  return data;
}

}  // namespace diskcond::rawio::testing
