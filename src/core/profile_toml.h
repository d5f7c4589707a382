// A profile from the text of a profile file: flat TOML, one profile per file (docs/profiles.md
// shows the format). Pure: reading the files is the caller's (dmc's ProfileCatalog,
// src/dmc/cli/profile_catalog.h).
#pragma once

#include <string>
#include <string_view>

#include "core/profile.h"
#include "core/result.h"

namespace diskcond {

// Parses one profile from TOML text; `origin` names the file in errors ("<origin>:<line>: ...").
Result<Profile> parse_profile_toml(std::string_view text, const std::string& origin);

}  // namespace diskcond
