// Admission rejections (admission_faults.h).
#include "backend/world/admission_faults.h"

#include <algorithm>

#include "backend/world/object_ids.h"
#include "sim/assert.h"

namespace allocsim::harness {

void AdmissionFaults::arm(const std::string& node, int binds) {
  ALLOCSIM_ASSERT(binds >= 1, "reject_binds: {} binds", binds);
  // Sorted by node: the order of armings is nothing a later step can observe, so it must not split states.
  const auto at = std::lower_bound(refused.begin(), refused.end(), node,
                                   [](const auto& r, const std::string& n) { return r.first < n; });
  if (at != refused.end() && at->first == node)
    at->second += binds;
  else
    refused.emplace(at, node, binds);
}

bool AdmissionFaults::take(const std::string& node) {
  const auto at = std::find_if(refused.begin(), refused.end(), [&](const auto& r) { return r.first == node; });
  if (at == refused.end()) return false;
  if (--at->second == 0) refused.erase(at);
  return true;
}

uint64_t admission_faults_id() {
  // Harness-side state, a kind byte outside backend::Obj (0xF0 actor plans, 0xF1 read faults, 0xF2 faults fired).
  static const uint64_t id = object_id(static_cast<backend::Obj>(0xF3), "admission-faults");
  return id;
}

}  // namespace allocsim::harness
