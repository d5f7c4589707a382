#include "posix/thread_name.h"

#include <pthread.h>

#include <array>

namespace diskcond::posix {

void name_this_thread(std::string_view name) {
  const std::string cut(name.substr(0, kMaxThreadNameBytes));
  pthread_setname_np(pthread_self(), cut.c_str());
}

std::string this_thread_name() {
  std::array<char, kMaxThreadNameBytes + 1> name{};
  if (pthread_getname_np(pthread_self(), name.data(), name.size()) != 0) return {};
  return name.data();
}

}  // namespace diskcond::posix
