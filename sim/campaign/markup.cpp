#include "sim/campaign/markup.h"

#include <fmt/format.h>

namespace allocsim::campaign {

std::string escape_markup(std::string_view s, Markup kind) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += kind == Markup::Html ? "&#39;" : "&apos;";
        break;
      default:
        if (kind == Markup::Xml && c < 0x20 && c != '\n' && c != '\t' && c != '\r')
          out += fmt::format("\\x{:02x}", c);
        else
          out += ch;
    }
  }
  return out;
}

}  // namespace allocsim::campaign
