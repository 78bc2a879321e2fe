// Judging a run against its scenario's `expect` (docs/DESIGN.md §4): the verdict of a run report, and the tallies
// the newer expectations need beyond outcome counts (occurrence pins and expect.audit, whose shapes are
// backend/scenario/expect_audit.h). The run itself is the campaign layer's (sim/campaign/run.h, through
// backend_system(), system.h), which calls judge_report() through the subject.
//
// Contract: deterministic for a given (scenario, report). The verdict lists every unmet expectation in a fixed
// order: violations (unexpected, or expected but not found), actor outcomes outside what `expect.actors` allows,
// barriers in `expect.reach` that never fired, then occurrence pins (actor, then index) and audit rules in file
// order. An execution that ends at a violation counts with what it recorded up to there (as outcomes do); an
// occurrence never reached in an execution records nothing for it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backend/scenario/scenario.h"
#include "backend/world/world_state.h"
#include "sim/campaign/run.h"

namespace allocsim::harness {

/// Judges `report` (summary.executions and violations_by_invariant, outcomes, reached, counters) against
/// scenario.expect: replaces report.unmet with one line per unmet expectation (fixed order, see above) and sets
/// report.met. Run through the subject (ScenarioSubject::judge, system.cpp), and by sweeps, which combine work
/// units first (sim/campaign/sweep.h).
void judge_report(const Scenario& scenario, campaign::RunReport& report);

/// What the new expectations need from a run, summed over executions (mergeable, like the outcome counts).
struct ExpectTally {
  // actor -> script index -> outcome -> executions (only pinned occurrences)
  std::map<std::string, std::map<size_t, std::map<std::string, uint64_t>>> occurrences;
  std::map<std::string, uint64_t> audit;  // expect.audit key -> executions in which it occurred
  // A counted expect.audit key -> entries one execution recorded -> executions that recorded that many.
  std::map<std::string, std::map<uint64_t, uint64_t>> audit_times;
  bool empty() const { return occurrences.empty() && audit.empty() && audit_times.empty(); }
  void add(const ExpectTally& other);
};

/// Adds one finished execution of `sc` in `world` to `t`. A no-op unless `sc` pins occurrences or audits.
void tally_execution(const Scenario& sc, const WorldState& world, ExpectTally& t);

/// Appends one line per unmet occurrence pin or audit rule of `sc` to `unmet`, judged on `t` over
/// `executions` executions.
void judge_expect_tally(const Scenario& sc, const ExpectTally& t, uint64_t executions, std::vector<std::string>& unmet);

/// Adds `t` to the campaign's counters (sim/campaign/system.h), named "occurrence:<actor>:<index>:<outcome>"
/// "audit:<expect.audit key>" and "audit-times:<expect.audit key>:<entries>", so sweeps merge and store them without
/// knowing what they mean.
void add_to_counters(const ExpectTally& t, std::map<std::string, uint64_t>& counters);
/// The inverse of add_to_counters; names it did not write are ignored.
ExpectTally tally_from_counters(const std::map<std::string, uint64_t>& counters);

}  // namespace allocsim::harness
