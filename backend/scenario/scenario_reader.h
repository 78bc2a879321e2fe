// ScenarioReader: the strict JSON reader (sim/support/json_reader.h) plus the getters that resolve a
// scenario's own references: node names against /nodes, and the request lists of plan/reserve. The
// loader (scenario_load.cpp) and the op table's parse functions (op_syntax_*.cpp) read through it.
//
// Contract: `scenario` is the one being loaded; node getters need its nodes loaded already. Failures
// throw support::InputError, which parse_scenario() turns into a ScenarioError.
#pragma once

#include <string>
#include <vector>

#include "backend/scenario/scenario.h"
#include "sim/support/json_reader.h"

namespace allocsim::harness {

inline constexpr int kMaxGpus = 64;
inline constexpr double kMaxMemoryGib = 4096;
inline constexpr double kMaxSeconds = 86400;
inline constexpr int kMaxRequests = 16;

/// The vocabularies the scenario schema shares between sections and ops.
const std::vector<const char*>& claim_statuses();
const std::vector<const char*>& read_kinds();

class ScenarioReader : public support::JsonReader {
 public:
  ScenarioReader(const std::string& file, const Scenario& scenario) : JsonReader(file), s_(scenario) {}
  const Scenario& scenario() const { return s_; }

  /// A node name that is in /nodes (did-you-mean otherwise).
  std::string node_ref(const support::Json& v, const std::string& ptr) const;
  /// A non-empty array of distinct node names in /nodes.
  std::vector<std::string> node_scope(const support::Json& v, const std::string& ptr) const;
  /// 1..kMaxRequests requests with distinct workloads.
  std::vector<RequestSpec> requests(const support::Json& v, const std::string& ptr) const;

 private:
  RequestSpec request(const support::Json& v, const std::string& ptr) const;
  const Scenario& s_;
};

}  // namespace allocsim::harness
