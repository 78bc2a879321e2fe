#include "backend/harness/state_view.h"

#include <string_view>

#include "backend/harness/invariants.h"

namespace allocsim::harness {

namespace {

// "node n1: owner=..." -> "n1" for prefix "node ".
std::string_view name_after(std::string_view line, std::string_view prefix) {
  line.remove_prefix(prefix.size());
  return line.substr(0, line.find(':'));
}

}  // namespace

std::string render_like(const BackendWorld& world, const std::string& reported) {
  const auto& s = world.backend().state();
  std::string out;
  size_t start = 0;
  while (start < reported.size()) {
    size_t end = reported.find('\n', start);
    if (end == std::string::npos) end = reported.size();
    const std::string_view line(reported.data() + start, end - start);
    start = end + 1;
    if (line.starts_with("node ")) {
      const std::string name(name_after(line, "node "));
      const auto* n = s.node(name);
      out += n ? render_node(*n) : "node " + name + ": (absent)\n";
    } else if (line.starts_with("claim ")) {
      const std::string id(name_after(line, "claim "));
      const auto* c = s.claim(id);
      out += c ? render_claim(*c) : "claim " + id + ": (absent)\n";
    } else if (line.starts_with("shared map:")) {
      out += render_map_state(s);
    } else if (line.starts_with("failed reads:")) {
      out += render_failed_reads(s);
    } else {
      out += std::string(line) + "\n";
    }
  }
  return out;
}

}  // namespace allocsim::harness
