// Test-only: a small well-formedness check for the SVG documents the charts produce.
#pragma once

#include <regex>
#include <string>
#include <vector>

namespace diskcond::chart::testing {

// True when every element opened is closed in order, no '<' appears inside a tag, no '&' starts
// anything but an entity, and the document is one <svg> element.
inline bool well_formed_svg(const std::string& xml) {
  std::vector<std::string> open;
  size_t roots = 0;
  size_t i = 0;
  while ((i = xml.find('<', i)) != std::string::npos) {
    size_t end = xml.find('>', i);
    if (end == std::string::npos) return false;
    std::string tag = xml.substr(i + 1, end - i - 1);
    if (tag.empty() || tag.find('<') != std::string::npos) return false;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
    } else if (tag.back() != '/') {
      if (open.empty()) ++roots;
      open.push_back(tag.substr(0, tag.find_first_of(" \n")));
    }
    i = end + 1;
  }
  static const std::regex kBareAmp("&(?!amp;|lt;|gt;|quot;|apos;)");
  return open.empty() && roots == 1 && xml.find("<svg") == 0 && !std::regex_search(xml, kBareAmp);
}

}  // namespace diskcond::chart::testing
