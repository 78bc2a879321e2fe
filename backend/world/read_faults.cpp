// Read faults with shape (read_faults.h): the history ring.
#include "backend/world/read_faults.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/world/object_ids.h"
#include "sim/assert.h"

namespace allocsim::harness {

void ReadFaults::start(const backend::BackendState& s) {
  history.clear();
  history.push_back({s.nodes, s.claims});
  recorded = writes;
}

void ReadFaults::after_step(const backend::BackendState& s) {
  if (writes == recorded) return;
  recorded = writes;
  history.push_back({s.nodes, s.claims});
  while (history.size() > static_cast<size_t>(kMaxStaleWrites) + 1) history.pop_front();
}

const ReadState& ReadFaults::past(int k) const {
  ALLOCSIM_ASSERT(!history.empty() && k >= 0, "past({}) of a history of {} entries", k, history.size());
  const size_t back = std::min(static_cast<size_t>(k), history.size() - 1);
  return history[history.size() - 1 - back];
}

uint64_t read_faults_id() {
  // Harness-side state, a kind byte outside backend::Obj (actor_plan_id uses 0xF0).
  static const uint64_t id = object_id(static_cast<backend::Obj>(0xF1), "read-faults");
  return id;
}

std::vector<std::string> device_uuids(const std::vector<std::pair<std::string, int>>& cards) {
  std::vector<std::string> out;
  for (const auto& [node, ordinal] : cards) out.push_back(fmt::format("GPU-{}-{}", node, ordinal));
  return out;
}

}  // namespace allocsim::harness
