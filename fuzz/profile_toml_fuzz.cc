// libFuzzer harness: any profile file text gives a valid profile or an error naming the file.
#include <cstdlib>
#include <string_view>

#include "core/profile_toml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto profile = diskcond::parse_profile_toml(text, "fuzz.toml");
  if (profile.ok()) {
    if (!diskcond::validate(*profile).ok()) std::abort();
  } else if (profile.error().rfind("fuzz.toml", 0) != 0) {
    std::abort();  // every error names the file first
  }
  return 0;
}
