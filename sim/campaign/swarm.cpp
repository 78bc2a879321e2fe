#include "sim/campaign/swarm.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "sim/campaign/coverage_report.h"
#include "sim/campaign/minimal_trace.h"
#include "sim/campaign/pool.h"
#include "sim/campaign/run.h"
#include "sim/campaign/shrink.h"
#include "sim/campaign/trace_replay.h"
#include "sim/interrupt.h"
#include "sim/prng.h"
#include "sim/schedule.h"
#include "sim/tree_estimate.h"

namespace allocsim::campaign {

namespace {

using Json = nlohmann::ordered_json;

constexpr uint32_t kEstimateProbes = 4;
constexpr size_t kDescribedSteps = 16;

/// What one subject gave: its executions, and its minimal finding when it violated something.
struct SubjectOutcome {
  uint64_t executions = 0, faithful_executions = 0;
  bool dpor = false, exhausted = false;
  std::optional<SwarmFinding> finding;
  bool also_faithful = false;         // mutant runs: the faithful port shares the violation
  Reach reach;                        // what its exploration reached (coverage)
  std::vector<std::string> features;  // the features it was drawn with (SwarmGenerator::Drawn::features)
  std::vector<std::string> unjudged;  // the checks its compile left unjudged (SwarmReport::unjudged)
  uint64_t text_hash = 0;             // SwarmGenerator::Drawn::text_hash, for SwarmReport::generated
};

/// One subject explored with the swarm's strategy plan: its executions and first violation, if any.
struct Exploration {
  uint64_t executions = 0;
  bool dpor = false, exhausted = false;
  std::optional<sim::ExecutionResult> found;
  std::string strategy;               // the strategy that found it
  Reach reach;                        // what its runs reached (coverage_report.h)
  std::vector<std::string> unjudged;  // the checks its compile left unjudged (SwarmReport::unjudged)
};

/// The generator's skeleton of the minimal subject, then the fault actions that fired in the trace.
std::string skeleton(const SwarmGenerator& g, const Subject& minimal, const Trace& t) {
  std::string out = g.skeleton(minimal);
  std::set<std::string> faults;
  for (const auto& st : t.steps)
    for (size_t p = st.detail.find("fault="); p != std::string::npos; p = st.detail.find("fault=", p + 1))
      faults.insert(st.detail.substr(p + 6, st.detail.find_first_of(" ;,)", p + 6) - p - 6));
  for (const auto& f : faults) out += " +" + f;
  return out;
}

/// The call the trace's last step belongs to (violating_call, over a trace's steps).
std::string world_call(const Trace& t) {
  for (size_t k = t.steps.size(); k-- > 0;)
    if (t.steps[k].actor == t.steps.back().actor && t.steps[k].kind == "call") return t.steps[k].point;
  return t.steps.back().point;
}

/// The signature (see the header): the explanation's first racing pair when the trace has one.
std::string signature_of(const SwarmGenerator& g, const Subject& minimal, const Trace& t) {
  const std::string& inv = t.violation->invariant;
  // The world's own write broke it (explain.h, kind "world"): no race of the protocol, so the signature names
  // the write, and the finding is never filed as a race.
  if (t.explanation && t.explanation->kind == "world" && !t.steps.empty())
    return fmt::format("{} @ world write {}", inv, world_call(t));
  const Json j = Json::parse(trace_to_text(t));
  if (j.contains("explanation") && j["explanation"].is_object() && j["explanation"].contains("pairs")) {
    const Json& pairs = j["explanation"]["pairs"];
    if (pairs.is_array() && !pairs.empty()) {
      const size_t a = pairs[0].value("first", size_t{0}), b = pairs[0].value("second", size_t{0});
      if (a < t.steps.size() && b < t.steps.size())
        return fmt::format("{} @ race {} <> {}", inv, t.steps[a].point, t.steps[b].point);
    }
  }
  return fmt::format("{} @ {}", inv, skeleton(g, minimal, t));
}

std::string slug_of(const std::string& invariant, const std::string& signature) {
  return fmt::format("{}-{:08x}", invariant, XXH3_64bits(signature.data(), signature.size()) & 0xffffffffu);
}

/// The finding scenario's description, generated from its trace.
std::string describe(const Trace& t, uint64_t run_seed, uint64_t index, uint64_t gen_seed, const std::string& strategy,
                     const std::vector<std::string>& mutants) {
  std::string steps;
  const size_t from = t.steps.size() > kDescribedSteps ? t.steps.size() - kDescribedSteps : 0;
  if (from > 0) steps = fmt::format("... ({} earlier steps) ", from);
  for (size_t i = from; i < t.steps.size(); ++i)
    steps += fmt::format("{}{}:{}#{}", i > from ? ", " : "", t.steps[i].actor, t.steps[i].point, t.steps[i].occurrence);
  std::string mut;
  for (const auto& m : mutants) mut += (mut.empty() ? " with mutant " : ", ") + m;
  return fmt::format(
      "Found by allocsim swarm --seed {}{}: generated scenario #{} (generator seed {}, `allocsim swarm --generate "
      "{}`), "
      "explored with {}, then shrunk to this minimal scenario. {} is violated after {} steps ({} preemptions): {}{} "
      "The steps: {}.",
      run_seed, mut, index, gen_seed, gen_seed, strategy, t.violation->invariant, t.steps.size(), t.preemptions,
      t.violation->message, t.violation->message.ends_with('.') ? "" : ".", steps);
}

/// A violation shrunk: the minimal scenario and execution, its trace (explained unless steps-bounded) and
/// signature.
struct Shrunk {
  ShrinkResult s;
  Trace trace;
  std::string signature;
};

Shrunk shrink_violation(const SwarmGenerator& g, const SwarmOptions& o, const SubjectPtr& subject,
                        const sim::ExecutionResult& found) {
  const uint64_t max_steps = subject->max_steps(std::nullopt);
  const bool spin = found.violation && found.violation->invariant == "steps-bounded";
  ShrinkOptions so;
  so.max_runs = spin ? std::min(o.shrink_runs, kStepsBoundShrinkRuns) : o.shrink_runs;
  so.max_seconds = 0;  // deterministic: bounded by runs only
  so.max_steps = max_steps;
  MinimalTrace m = shrink_to_trace(g.system(), subject, found, so, /*explain_race=*/!spin);
  Shrunk out{std::move(m.shrunk), std::move(m.trace), {}};
  out.signature = signature_of(g, *out.s.scenario, out.trace);
  return out;
}

/// Makes the finding (scenario file and trace) of the violation of `subject` along `found`.
SwarmFinding make_finding(const SwarmGenerator& g, const SwarmOptions& o, const SubjectPtr& subject,
                          const sim::ExecutionResult& found, uint64_t index, uint64_t gen_seed,
                          const std::string& strategy) {
  const uint64_t max_steps = subject->max_steps(std::nullopt);
  const Shrunk sh = shrink_violation(g, o, subject, found);
  const ShrinkResult& s = sh.s;
  const std::string inv = s.result.violation->invariant;
  SwarmFinding f;
  f.invariant = inv;
  f.index = index;
  f.seed = gen_seed;
  f.strategy = strategy;
  f.signature = sh.signature;
  f.slug = slug_of(inv, f.signature);
  const std::string file = f.slug + ".json";
  f.scenario_text =
      g.finding_text(*s.scenario, f.slug, describe(sh.trace, o.seed, index, gen_seed, strategy, o.mutants), inv);
  const SubjectPtr written = g.parse(o, f.scenario_text, file);
  // No false alarm: the minimal schedule must replay strictly against the file as written.
  const StrictReplay rr = replay_strict(*written, s.result.schedule, max_steps);
  if (rr.divergence || !rr.result.violation || rr.result.violation->invariant != inv)
    throw std::logic_error(
        fmt::format("swarm: the minimal trace of scenario #{} (seed {}) does not replay against "
                    "its written scenario",
                    index, gen_seed));
  Trace t = make_trace(written, rr.result, state_before_last_step(*written, rr.result, max_steps));
  t.tool_version = o.tool_version;
  t.explanation = sh.trace.explanation;  // the same schedule over the same scenario, as written
  t.scenario_path = file;
  t.scenario_digest = written->digest();
  t.strategy = strategy;
  t.seed = gen_seed;
  t.max_steps = max_steps;
  t.shrink = sh.trace.shrink;  // the raw sizes of `subject` and `found`, and the shrinker's counts
  f.trace_text = trace_to_text(t);
  f.actors = s.scenario->actor_names().size();
  f.ops = s.scenario->op_count();
  f.steps = rr.result.steps.size();
  f.count = 1;
  f.first_index = index;
  f.first_seed = gen_seed;
  return f;
}

/// Runs `strategy` on `subject` for `executions`, stopping at the first violation.
RunReport explore_with(const Subject& subject, const std::string& strategy, uint64_t seed, uint64_t executions) {
  ExploreConfig c;
  c.strategy = strategy;
  c.seed = seed;
  c.executions = executions;
  c.stop_at_first_violation = true;
  return run(subject, c);
}

/// The swarm's strategy plan (see the header) on one scenario, up to its first violation.
Exploration explore(const SwarmOptions& o, const Subject& subject, uint64_t gen_seed) {
  Exploration out;
  const std::unique_ptr<Compiled> compiled = subject.compile({});
  for (const std::string& note : compiled->notes())
    if (const size_t at = note.find(" not judged"); at != std::string::npos) out.unjudged.push_back(note.substr(0, at));
  sim::Engine engine(sim::EngineOptions{.max_steps = subject.max_steps(std::nullopt)});
  const double leaves = sim::estimate_leaves(
      engine, [&] { return compiled->make_world(); }, kEstimateProbes, gen_seed);
  std::vector<std::pair<std::string, uint64_t>> plan;
  if (leaves <= static_cast<double>(o.per_scenario)) {
    plan.emplace_back("dfs", o.per_scenario);
    out.dpor = true;
  } else {
    plan.emplace_back("pct", o.per_scenario / 2);
    plan.emplace_back("random", o.per_scenario - o.per_scenario / 2);
  }
  for (const auto& [strategy, n] : plan) {
    if (n == 0) continue;
    const RunReport r = explore_with(subject, strategy, gen_seed, n);
    out.executions += r.summary.executions;
    out.reach.add(r);
    out.exhausted |= out.dpor && r.exhausted;
    if (r.summary.first) {
      out.found = r.summary.first->result;
      out.strategy = strategy;
      break;
    }
  }
  return out;
}

/// Mutant runs: whether the faithful port shares the violation of `f` (the header's (a) and (b)).
bool faithful_shares(const SwarmGenerator& g, const SwarmOptions& o, uint64_t index, uint64_t gen_seed,
                     const SwarmFinding& f, uint64_t& executions) {
  const SubjectPtr generated = g.draw(o, index, /*faithful=*/true).subject;
  const Exploration a = explore(o, *generated, gen_seed);
  executions += a.executions;
  if (a.found && a.found->violation->invariant == f.invariant &&
      shrink_violation(g, o, generated, *a.found).signature == f.signature)
    return true;
  const Exploration b = explore(o, *g.parse(o, g.faithful_text(f.scenario_text), f.slug + ".json"), gen_seed);
  executions += b.executions;
  return b.found && b.found->violation->invariant == f.invariant;
}

SubjectOutcome run_scenario_at(const SwarmGenerator& g, const SwarmOptions& o, uint64_t index) {
  const uint64_t gen_seed = sim::execution_seed(o.seed, index);
  SwarmGenerator::Drawn drawn = g.draw(o, index, /*faithful=*/false);
  const SubjectPtr subject = std::move(drawn.subject);
  const Exploration e = explore(o, *subject, gen_seed);
  SubjectOutcome out;
  out.text_hash = drawn.text_hash;
  out.executions = e.executions;
  out.dpor = e.dpor;
  out.exhausted = e.exhausted;
  out.reach = e.reach;  // the faithful-port checks below are not the night's exploration: not counted
  out.unjudged = e.unjudged;
  out.features = std::move(drawn.features);
  if (!e.found) return out;
  out.finding = make_finding(g, o, subject, *e.found, index, gen_seed, e.strategy);
  if (!o.mutants.empty())
    out.also_faithful = faithful_shares(g, o, index, gen_seed, *out.finding, out.faithful_executions);
  return out;
}

/// Adds one scenario's outcome to the report (dedup by signature; keep the smallest minimal scenario).
void merge(SwarmReport& r, std::map<std::string, size_t>& by_signature, SubjectOutcome&& s, bool mutant_run) {
  ++r.scenarios;
  r.generated = fold_generated(r.generated, s.text_hash);
  r.executions += s.executions;
  r.faithful_executions += s.faithful_executions;
  r.dpor_scenarios += s.dpor;
  r.dpor_exhausted += s.exhausted;
  r.reach.add(s.reach);
  for (const std::string& f : s.features) ++r.features[f];
  for (const std::string& check : s.unjudged) ++r.unjudged[check];
  if (!s.finding) return;
  ++r.violations;
  SwarmFinding& f = *s.finding;
  f.also_faithful = s.also_faithful ? 1 : 0;
  f.first_mutant_only = mutant_run && !s.also_faithful ? std::optional<uint64_t>(f.index) : std::nullopt;
  auto it = by_signature.find(f.signature);
  if (it == by_signature.end()) {
    by_signature.emplace(f.signature, r.findings.size());
    r.findings.push_back(std::move(f));
    return;
  }
  absorb_finding(r.findings[it->second], f);
}

}  // namespace

void absorb_finding(SwarmFinding& k, const SwarmFinding& f) {
  const uint64_t count = k.count + f.count, also_faithful = k.also_faithful + f.also_faithful;
  const uint64_t first_index = std::min(k.first_index, f.first_index);
  const uint64_t first_seed = k.first_index < f.first_index ? k.first_seed : f.first_seed;
  std::optional<uint64_t> first_mutant_only = k.first_mutant_only;
  if (f.first_mutant_only && (!first_mutant_only || *f.first_mutant_only < *first_mutant_only))
    first_mutant_only = f.first_mutant_only;
  // The unsharded run keeps the smallest (ops, steps), the earliest index among equals.
  const bool replace = std::tie(f.ops, f.steps, f.index) < std::tie(k.ops, k.steps, k.index);
  if (replace) k = f;
  k.count = count;
  k.first_index = first_index;
  k.first_seed = first_seed;
  k.also_faithful = also_faithful;
  k.first_mutant_only = first_mutant_only;
}

std::optional<uint64_t> SwarmReport::first_index_of(const std::string& invariant) const {
  std::optional<uint64_t> best;
  for (const auto& f : findings)
    if (f.invariant == invariant && (!best || f.first_index < *best)) best = f.first_index;
  return best;
}

uint64_t fold_generated(uint64_t digest, uint64_t text_hash) {
  return XXH3_64bits_withSeed(&text_hash, sizeof text_hash, digest);
}

uint64_t generated_digest(const SwarmGenerator& g, const SwarmOptions& o, uint64_t scenarios) {
  uint64_t h = kGeneratedNone;
  for (uint64_t k = 0; k < scenarios; ++k) h = fold_generated(h, g.hash_of(o, k * o.shard_count + o.shard_index));
  return h;
}

SwarmReport run_swarm(const SwarmGenerator& g, const SwarmOptions& o,
                      const std::function<void(const SwarmReport&)>& after_batch, SwarmReport r) {
  std::map<std::string, size_t> by_signature;
  for (size_t i = 0; i < r.findings.size(); ++i) by_signature.emplace(r.findings[i].signature, i);
  const uint64_t batch = std::max(1u, o.jobs);
  const auto index_of = [&](uint64_t k) { return k * o.shard_count + o.shard_index; };
  const auto done = [&] {
    return o.budget_executions > 0 ? r.executions >= o.budget_executions : index_of(r.scenarios) >= o.scenarios;
  };
  const auto until_hit = [&](const SubjectOutcome& s) {
    return s.finding && (o.mutants.empty() || !s.also_faithful) &&
           std::find(o.until.begin(), o.until.end(), s.finding->invariant) != o.until.end();
  };
  // k counts this shard's scenarios; a resumed report has counted r.scenarios of them, in whole batches.
  for (uint64_t k = r.scenarios; !done() && !r.stopped_by_until; k += batch) {
    if (sim::interrupt_signal() != 0) {
      r.interrupted = true;
      break;
    }
    std::vector<SubjectOutcome> outs = parallel_map(batch, o.jobs, [&](size_t j) {
      const bool runs = o.budget_executions > 0 || index_of(k + j) < o.scenarios;
      return runs ? run_scenario_at(g, o, index_of(k + j)) : SubjectOutcome{};
    });
    // SIGINT/SIGTERM cut this batch's explorations short: keep only whole batches (main exits 128 + the
    // signal after the files are written).
    if (sim::interrupt_signal() != 0) {
      r.interrupted = true;
      break;
    }
    for (auto& s : outs) {  // index order: the stop rules see the same sequence whatever `jobs` is
      if (done() || r.stopped_by_until) break;
      const bool hit = until_hit(s);
      merge(r, by_signature, std::move(s), !o.mutants.empty());
      r.stopped_by_until = hit;
    }
    if (after_batch) after_batch(r);
  }
  return r;
}

}  // namespace allocsim::campaign
