// All profiles a user can name: the eight built-ins, then user-defined ones from TOML files.
//
// Profile files: every *.toml file in the profile directories, read in name order, one profile
// per file (docs/profiles.md shows the format; core/profile_toml.h parses one). Directories, in
// order:
//   $DISKCOND_PROFILE_DIR if set (tests use it), else /etc/diskcond/profiles and
//   ${XDG_CONFIG_HOME:-~/.config}/diskcond/profiles.
// A malformed file is skipped and reported in problems() as "<file>:<line>: <what>".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/profile.h"
#include "core/result.h"

namespace diskcond::dmc {

class ProfileCatalog {
 public:
  // Built-ins only.
  ProfileCatalog();
  // Built-ins plus the profiles in `dirs` (missing directories are fine).
  static ProfileCatalog load(const std::vector<std::string>& dirs);
  // The directories described above.
  static std::vector<std::string> default_dirs();

  const std::vector<Profile>& profiles() const { return profiles_; }
  const std::vector<std::string>& problems() const { return problems_; }

  // By index ("0".."N-1") or by name, case-insensitive. Errors list what exists.
  Result<Profile> find(std::string_view name_or_index) const;

 private:
  std::vector<Profile> profiles_;
  std::vector<std::string> problems_;
};

}  // namespace diskcond::dmc
