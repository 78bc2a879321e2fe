// The swarm campaign (docs/DESIGN.md §7, "Swarm"): draw subjects from a generator (SwarmGenerator below; the
// backend's is backend/swarm/swarm_subjects.h), explore each under a per-subject budget of executions with a mix of
// strategies, shrink every violation to a minimal subject and trace, and deduplicate the findings by signature.
// Generic: it knows a system only through campaign::Subject and the generator, as a sweep does; its outputs,
// checkpoints and shard merge are swarm_report.h. Its worker pool is the campaigns' (pool.h), its JUnit writer too
// (junit.h).
//
// Per subject (index i of the run; its generator seed is sim::execution_seed(run seed, i)):
//   - Knuth's estimate of its DFS tree (sim/tree_estimate.h, 4 probes, seeded): when at most the
//     per-scenario budget, exhaustive DPOR (`dfs`, reduction dpor) up to that many executions;
//   - else PCT (depth 3) for half the budget, then random for the rest, each stopping at its first violation.
//   All in executions, never in wall-clock time, so a swarm's results are the same on every machine.
//   Every execution is bounded by SwarmOptions::max_steps (the generator writes it into each subject, so a
//   finding's file replays with the bound it was found under).
// A violation is shrunk (campaign::shrink: actors, ops, fault draws, then the schedule) with a bound in
// candidate runs; the minimal subject's file (SwarmGenerator::finding_text) expects the violation and carries a
// description generated from its trace, and its trace is replayed strictly against that very file before it counts
// (no false alarm: a finding that does not replay is an internal error). A `steps-bounded` violation (a livelock
// spins to the bound: release-spins-on-busy-nodes) is shrunk with at most kStepsBoundShrinkRuns candidate runs and
// not explained (every candidate costs max_steps steps, and a spin has no racing pair).
// Signature: the invariant, then the racing pair's points when the trace file carries an `explanation` with
// pairs (the agreed trace-file key), else the generator's skeleton of the minimal subject (the backend's: each
// actor's op kinds in script order, the actors' sequences sorted) and the fault actions that fired.
// Mutants (SwarmOptions::mutants non-empty): a violating subject is also checked on the faithful port,
// with the same strategy budget: (a) the generated subject without the mutants, shrunk the same way when
// it violates; (b) the finding's minimal subject without the mutants. The violation is "also faithful" when
// (a) gives the same signature or (b) violates the same invariant; else it is the mutant's alone.
//
// Determinism: the report is a function of the options and the generator except `jobs` (subjects run in batches of
// `jobs` on the campaigns' worker pool and are merged in index order; the stop rules are applied in index order) and
// of where a run was interrupted and resumed (a checkpoint holds the report after a whole batch; resuming goes on
// from there).
// Errors: support::InputError for an unknown mutant (the generator's subjects do not load); std::logic_error when a
// finding does not replay.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/campaign/coverage_report.h"
#include "sim/campaign/system.h"

namespace allocsim::campaign {

/// A steps-bounded violation's shrink bound (candidate runs; see above).
inline constexpr uint64_t kStepsBoundShrinkRuns = 100;
/// The swarm's default per-execution step bound (measured on the backend's generator: see docs/SWARM.md).
inline constexpr uint64_t kSwarmMaxSteps = 1000;

/// A swarm's options. "Scenario" in their names (and in summary.json's keys) means a drawn subject.
struct SwarmOptions {
  uint64_t seed = 1;
  uint64_t scenarios = 100;             // scenario indices 0..scenarios-1 (a shard runs its share), unless budget
  uint64_t budget_executions = 0;       // > 0: run scenarios until this many executions have run (unsharded only)
  uint64_t max_steps = kSwarmMaxSteps;  // per execution (the generated scenarios' `max_steps`)
  uint64_t per_scenario = 200;          // executions per scenario (all strategies together)
  uint64_t shrink_runs = 5000;          // candidate executions per shrink (deterministic bound)
  std::vector<std::string> mutants;     // switched on in every generated subject (the backend's: backend.mutants)
  /// Stop after the first scenario whose finding violates one of these (with mutants: a finding the
  /// faithful port does not share). Unsharded only.
  std::vector<std::string> until;
  unsigned jobs = 1;
  uint64_t shard_index = 0, shard_count = 1;  // this shard runs indices i with i % shard_count == shard_index
  std::string tool_version;                   // written into every finding's trace (`tool.version`)
};

/// One distinct finding: the smallest minimal scenario met for its signature, and how often it was met.
struct SwarmFinding {
  std::string signature, slug, invariant;
  uint64_t count = 0;        // scenarios whose violation had this signature
  uint64_t first_index = 0;  // the first such scenario's index in the run, and its generator seed
  uint64_t first_seed = 0;
  uint64_t index = 0, seed = 0;  // the scenario the kept (smallest) minimal scenario came from
  std::string strategy;          // the strategy that found it there
  std::string scenario_text;     // the minimal scenario with expect.violation (the written file's bytes)
  std::string trace_text;        // its minimal trace, replayed against that scenario (the file's bytes)
  size_t actors = 0, ops = 0, steps = 0;
  /// Mutant runs only: of `count` scenarios, those whose violation the faithful port shares (see above),
  /// and the first index of one it does not (the mutant's own finding), if any.
  uint64_t also_faithful = 0;
  std::optional<uint64_t> first_mutant_only;
};

/// generated_digest of no scenario: where SwarmReport::generated starts.
inline constexpr uint64_t kGeneratedNone = 0x737761726dull;  // "swarm"

struct SwarmReport {
  uint64_t scenarios = 0, executions = 0;
  /// The running digest of the `scenarios` counted, in index order (generated_digest): what a checkpoint carries.
  uint64_t generated = kGeneratedNone;
  uint64_t faithful_executions = 0;  // mutant runs: executions of the faithful-port checks (not in executions)
  uint64_t violations = 0;           // scenarios with a violation (raw findings before dedup)
  uint64_t dpor_scenarios = 0, dpor_exhausted = 0;
  bool stopped_by_until = false;
  bool interrupted = false;            // SIGINT/SIGTERM: the report covers the scenarios that finished before it
  std::vector<SwarmFinding> findings;  // in order of first_index
  /// Coverage (sim/campaign/coverage_report.h): what the scenarios' explorations reached (the faithful-port
  /// checks of a mutant run aside), and per generator feature word (SwarmGenerator::Drawn::features) the scenarios
  /// drawn with it.
  campaign::Reach reach;
  std::map<std::string, uint64_t> features;
  /// Per check a scenario's compile left unjudged (Compiled::notes, "ops-atomic not judged: ..."; the key is the
  /// text before " not judged"), the scenarios it was left unjudged in.
  std::map<std::string, uint64_t> unjudged;
  /// False when some scenarios were counted by a summary or checkpoint written before `unjudged` existed (a resume
  /// or a merge of one): the counts above then miss theirs, and the summary says "not counted" (null).
  bool unjudged_counted = true;
  /// A finding's first scenario index, for each invariant found (measurement: scenarios until found).
  std::optional<uint64_t> first_index_of(const std::string& invariant) const;
};

/// What a swarm draws its subjects from. Every method is a pure function of its arguments (same arguments, same
/// bytes, on every machine), called from the pool's threads at once: an implementation keeps no mutable state.
class SwarmGenerator {
 public:
  virtual ~SwarmGenerator() = default;

  /// The system the subjects belong to: the shrinker reads its reduced subjects back through it, merge and resume
  /// load a finding's files again with it, and it names the coverage's universe.
  virtual const System& system() const = 0;

  /// A subject drawn, with what the report keeps of it.
  struct Drawn {
    SubjectPtr subject;
    uint64_t text_hash = 0;             // its document's hash: the digest's term (hash_of(), for a draw with mutants)
    std::vector<std::string> features;  // the feature words it was drawn with (SwarmReport::features)
  };
  /// Subject `index` of the run `options` describes, generated from generator seed sim::execution_seed(options.seed,
  /// index) (the seed a finding's description names, with `allocsim swarm --generate SEED`, which prints that
  /// subject), with options.mutants switched on unless `faithful`, bounded by options.max_steps, and loaded as
  /// parse() loads a text.
  virtual Drawn draw(const SwarmOptions& options, uint64_t index, bool faithful) const = 0;

  /// Drawn::text_hash of draw(options, index, false), without loading the subject (a resume's generated_digest:
  /// O(scenarios) of these).
  virtual uint64_t hash_of(const SwarmOptions& options, uint64_t index) const = 0;

  /// Every feature word a subject can be drawn with, in the generator's order (the coverage's "never drawn").
  virtual std::vector<std::string> feature_universe() const = 0;

  /// A finding's file: the minimal subject (a shrink of a drawn one) named `slug`, with `description`, expecting a
  /// violation of `invariant`. What it loads as is parse(options, the text, slug + ".json").
  virtual std::string finding_text(const Subject& minimal, const std::string& slug, const std::string& description,
                                   const std::string& invariant) const = 0;

  /// `text` (a drawn subject's document, a finding's file, or one derived from it) as the swarm explores it, named
  /// `file`.
  virtual SubjectPtr parse(const SwarmOptions& options, const std::string& text, const std::string& file) const = 0;

  /// A finding's file with its mutants switched off and expecting a pass: the faithful port's check (b) above.
  virtual std::string faithful_text(const std::string& finding_text) const = 0;

  /// The minimal subject's shape for a signature without a racing pair (see above), without the fault actions.
  virtual std::string skeleton(const Subject& minimal) const = 0;
};

/// Adds finding `f` to `kept`, a finding of the same signature: the counts add up, the first index (and its seed)
/// is the smaller, and the minimal scenario and files kept are the smaller by (ops, steps, index). run_swarm adds each
/// scenario's finding so, and a merge each shard's, so the shards merged are the unsharded run.
void absorb_finding(SwarmFinding& kept, const SwarmFinding& f);

/// Runs the swarm of `generator` from `start` (a checkpoint's report: the subjects it counts are not run again;
/// default: from the first). `after_batch` (may be empty) sees the report after each whole batch of `jobs`
/// subjects (progress lines, checkpoints). A batch during which SIGINT/SIGTERM arrived is dropped (its
/// explorations were cut short) and the report is marked interrupted.
SwarmReport run_swarm(const SwarmGenerator& generator, const SwarmOptions& options,
                      const std::function<void(const SwarmReport&)>& after_batch = {}, SwarmReport start = {});

/// A digest of subjects (from kGeneratedNone) after one more of hash `text_hash`: the fold of generated_digest,
/// which the verdict self-check's checkpoints use too.
uint64_t fold_generated(uint64_t digest, uint64_t text_hash);

/// The digest of the subjects a report that counted `scenarios` of them has explored under `options`: this
/// shard's first `scenarios`, in index order, each one's SwarmGenerator::hash_of folded in turn from
/// kGeneratedNone. run_swarm keeps it as SwarmReport::generated while it counts; a checkpoint carries it, so that
/// a resume by a binary whose generator draws other subjects is refused rather than mixing two generators'
/// results (swarm_report.h, "Checkpoint"). O(scenarios) generations: for a resume, once.
uint64_t generated_digest(const SwarmGenerator& generator, const SwarmOptions& options, uint64_t scenarios);

}  // namespace allocsim::campaign
