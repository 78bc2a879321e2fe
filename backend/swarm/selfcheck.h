// The verdict self-check over generated scenarios (`allocsim selfcheck`; docs/DESIGN.md §7, "Verdict
// self-check"): swarm's generator (swarm_gen.h) writes the scenarios, every strategy explores each, and the
// generic checks of sim/campaign/verdict_check.h judge every execution and every violation found.
//
// Scenario i of a run seeded S (generator seed g = sim::execution_seed(S, i)):
//   - the swarm's scenario of g (swarm_scenario: every invariant, `max_steps`), with, when
//     SelfcheckOptions::mutants and i is odd, one catalogue mutant switched on, the catalogue taken in turn
//     (mutant (i / 2) mod catalogue size): the faithful port never deadlocks, spins or leaks a stamp, and the
//     verdicts about those findings need checking too;
//   - when i mod 4 is 2 or 3, an `order` block: 1-3 constraints drawn (sim::Prng(g + 1)) from the full pin
//     (order_min.h) of the scenario's first `random` execution (seed g). So a quarter of the scenarios run
//     with a mutant, a quarter with an order, a quarter with both;
//   - explored by `random` and `pct` (seed g), `dfs` (reduction none) and `dpor`, each for `per_scenario`
//     executions, stopping at its first violation. Every execution, however it ends (quiescent, violating,
//     deadlocked, order-blocked), is replayed by schedule and, under `random`, by seed (check_execution), and
//     one that ended order-blocked is judged as an execution's end is (check_order_blocked);
//   - every distinct violation found (by fingerprint; several strategies may find one) goes through
//     check_violation, with file prefix `s<i>-<strategy>`;
//   - then, with the invariant checks switched to `full` (dirty.h; the default is `incremental`), every
//     exploration runs again and must give the same verdict for every execution, and every ModeProbe must
//     agree (check-modes).
// With SelfcheckOptions::files, scenario i is the i-th file instead (its seeded strategies still use g), and
// its files are named s<i>-<file stem>.
// Contradictions are listed per scenario, each with its replay line; one per (scenario, strategy, kind) for
// the per-execution checks, with a count of the executions it stands for.
//
// Determinism: the report is a function of the options except `jobs` (scenarios run in batches of `jobs` on the
// campaigns' worker pool, sim/campaign/pool.h, merged in index order; the invariant-check mode is switched between a
// batch's two phases, when no thread runs) and of where a run was resumed (a checkpoint holds the report after whole
// batches, and the digest of the scenarios it counts, SelfcheckReport::generated, so that a resume whose scenarios
// differ is refused).
// Budgets are counts, never seconds. Errors: std::logic_error for a generated scenario that does not load.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/swarm/swarm_subjects.h"
#include "sim/campaign/verdict_check.h"

namespace allocsim::harness {

struct SelfcheckOptions {
  uint64_t seed = 1;
  uint64_t scenarios = 100;
  uint64_t per_scenario = 40;  // executions per strategy per scenario
  uint64_t max_steps = campaign::kSwarmMaxSteps;
  uint64_t shrink_runs = 2000;
  bool mutants = true;  // odd scenarios get a catalogue mutant (see above)
  unsigned jobs = 1;
  std::string out;  // the folder the files go to, as replay lines name it ("" = the current one)
  std::string tool_version;
  campaign::Tamper tamper;  // tests only (verdict_check.h)
  /// Scenario files to check instead of generated scenarios (scenario i is files[i], as it is: no mutant
  /// rotation, no order derived), each with `file_mutants` switched on. `scenarios` is then files.size().
  std::vector<std::string> files;
  std::vector<std::string> file_mutants;
};

/// A contradiction found in scenario `index`, with what the scenario was.
struct SelfcheckContradiction {
  uint64_t index = 0, generator_seed = 0;
  std::string mutant;     // the scenario's mutants, joined by "+" ("" for the faithful port)
  bool order = false;     // the scenario had an `order` block
  std::string strategy;   // the exploration it came from
  std::string invariant;  // the violation it is about ("" for an execution without one)
  uint64_t repeats = 1;   // executions of that exploration with a contradiction of this kind
  campaign::Contradiction c;
};

struct SelfcheckReport {
  uint64_t scenarios = 0, with_order = 0, with_mutant = 0, executions = 0;  // with_mutant: a mutant of its own or added
  /// Executions by how they ended: "quiescent", "violation", "deadlock" (no-deadlock), "order-blocked".
  std::map<std::string, uint64_t> endings;
  /// Scenarios that used each thing: "feature:F" (SwarmFeatures::names), "fault:ACTION", "op:OP", "order",
  /// "mutant:M".
  std::map<std::string, uint64_t> coverage;
  uint64_t violations_found = 0;    // first violations of explorations
  uint64_t violations_checked = 0;  // distinct ones (by fingerprint), each checked
  std::map<std::string, uint64_t> checked_by_invariant;
  std::map<std::string, uint64_t> checks, skipped;  // by kind (verdict_check.h)
  std::vector<SelfcheckContradiction> contradictions;
  /// The digest of the `scenarios` counted, in index order (selfcheck_generated): what a checkpoint carries.
  uint64_t generated = campaign::kGeneratedNone;
  /// Contradictions by kind, repeats counted.
  std::map<std::string, uint64_t> by_kind() const;
  uint64_t contradiction_count() const;
};

/// Runs scenarios [start.scenarios, options.scenarios) and adds them to `start`. `after_batch` (may be
/// empty) sees the report after every batch of `jobs` scenarios (progress, checkpoints).
SelfcheckReport run_selfcheck(const SelfcheckOptions& options,
                              const std::function<void(const SelfcheckReport&)>& after_batch = {},
                              SelfcheckReport start = {});

/// Scenario `index` of the run (see above), before its order is derived: the swarm's with the mutant, if any.
nlohmann::ordered_json selfcheck_base_scenario(const SelfcheckOptions& options, uint64_t index);

/// The digest of the run's first `scenarios` base scenarios (fold_generated of each one's scenario_hash, in index
/// order): SelfcheckReport::generated of a report that counted them. A checkpoint carries it; a resume whose
/// scenarios give another digest (another generator, or scenario files given as inputs and edited since) is refused.
uint64_t selfcheck_generated(const SelfcheckOptions& options, uint64_t scenarios);

// -- selfcheck_report.cpp ---------------------------------------------------------------------------------

/// The report as JSON (schema `allocsim/selfcheck-report/v1`, docs/DESIGN.md §7); deterministic.
nlohmann::ordered_json selfcheck_json(const SelfcheckOptions& options, const SelfcheckReport& report);

/// A checkpoint (schema `allocsim/selfcheck-checkpoint/v1`; envelope, write and read: sim/campaign/checkpoint.h):
/// the report of the scenarios done so far.
void write_selfcheck_checkpoint(const std::string& path, const SelfcheckOptions& options,
                                const SelfcheckReport& report);
/// The report a checkpoint holds. Throws support::InputError (file, JSON pointer) for a file that is not
/// one, or was written with other options (--scenarios may grow).
SelfcheckReport load_selfcheck_checkpoint(const std::string& path, const SelfcheckOptions& options);

}  // namespace allocsim::harness
