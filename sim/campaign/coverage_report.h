// What a report's executions reached, and what they never reached (docs/DESIGN.md §7 "Coverage"): the
// answer to "why did it find no bug?" in the JSON and HTML reports of `run`, `sweep`/`merge` and `swarm`.
//
// Dimensions, each {"reached": [...], "never": [...]}, in the order of the system's name tables
// (System::coverage_universe; the backend's: backend/system/system.cpp):
//   barriers       every barrier a world can fire, against those that fired
//   barrier_pairs  "A -> B": one actor resumed from barrier A and the very next step was another actor's,
//                  resumed from barrier B (sim/coverage.h's switch pairs, barriers only). Universe: every
//                  ordered pair of the barriers reached (a pair with a barrier never reached is implied by it)
//   ops            every op, against those that ran (an outcome other than `skipped`)
//   outcomes       "OP: OUTCOME" over the ops with any outcome: each op's outcome vocabulary against the
//                  outcomes it ended in
//   faults         every fault kind, against those that fired (sim::FaultCoverage)
// A swarm adds "features" (swarm_report.h): {"drawn": {feature: scenarios}, "never": [...]}.
// Cost: the inputs are what the run loop collects anyway (outcomes, barrier hits, switch pairs) plus one
// substring search per step for fault notes; the lists are built once, after the run.
// Round trip: reach_of_coverage() reads back every name coverage_json() lists as reached, so a merge of
// shards (or a resumed run) that unions what it reads gives the lists of the run done in one piece.
// Determinism: table order; nothing depends on --jobs, time or hash order.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/system.h"

namespace allocsim::campaign {

struct RunReport;  // run.h

/// Everything there is to reach, in table order (System::coverage_universe).
struct CoverageUniverse {
  std::vector<std::string> barriers;
  std::vector<std::pair<std::string, std::vector<std::string>>> ops;  // op -> its outcome vocabulary
  std::vector<std::string> faults;
};

/// What executions reached, accumulated over runs and scenarios.
struct Reach {
  std::set<std::string> barriers;
  std::set<std::pair<std::string, std::string>> pairs;    // switch pairs (coverage_json keeps barriers')
  std::map<std::string, std::set<std::string>> outcomes;  // op -> outcomes it ended in
  std::set<std::string> faults;
  /// Adds outcomes (actor -> op -> outcome -> executions).
  void add_outcomes(const Outcomes& outcomes);
  /// Adds what a run reached (its barriers, pairs, outcomes and faults).
  void add(const RunReport& report);
  void add(const Reach& other);
};

/// The coverage object (see above).
nlohmann::ordered_json coverage_json(const CoverageUniverse& universe, const Reach& reach);

/// Adds to `reach` name `name` of dimension `dimension` as coverage_json() lists it reached ("A -> B",
/// "OP: OUTCOME", a barrier, an op, a fault kind). Returns false for a name that does not parse (a pair
/// without " -> ", an outcome without ": ") or an unknown dimension.
bool add_reached(Reach& reach, const std::string& dimension, const std::string& name);

}  // namespace allocsim::campaign
