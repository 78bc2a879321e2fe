#include "backend/swarm/swarm_campaign.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "backend/model/contract.h"
#include "backend/scenario/invariant_names.h"
#include "backend/scenario/scenario_json.h"
#include "backend/swarm/swarm_gen.h"
#include "backend/system/system.h"
#include "sim/campaign/coverage_report.h"
#include "sim/campaign/explain.h"
#include "sim/campaign/pool.h"
#include "sim/campaign/run.h"
#include "sim/campaign/shrink.h"
#include "sim/campaign/trace_replay.h"
#include "sim/interrupt.h"
#include "sim/prng.h"
#include "sim/schedule.h"
#include "sim/tree_estimate.h"

namespace allocsim::harness {

namespace {

using Json = nlohmann::ordered_json;

constexpr uint32_t kEstimateProbes = 4;
constexpr size_t kDescribedSteps = 16;

/// What one scenario gave: its executions, and its minimal finding when it violated something.
struct ScenarioOutcome {
  uint64_t executions = 0, faithful_executions = 0;
  bool dpor = false, exhausted = false;
  std::optional<SwarmFinding> finding;
  bool also_faithful = false;         // mutant runs: the faithful port shares the violation
  campaign::Reach reach;              // what its exploration reached (coverage)
  std::vector<std::string> features;  // the features it was drawn with (swarm_feature_words)
  std::vector<std::string> unjudged;  // the checks its compile left unjudged (SwarmReport::unjudged)
  uint64_t text_hash = 0;             // its generated document's (scenario_hash), for SwarmReport::generated
};

/// One scenario explored with the swarm's strategy plan: its executions and first violation, if any.
struct Exploration {
  uint64_t executions = 0;
  bool dpor = false, exhausted = false;
  std::optional<sim::ExecutionResult> found;
  std::string strategy;               // the strategy that found it
  campaign::Reach reach;              // what its runs reached (coverage_report.h)
  std::vector<std::string> unjudged;  // the checks its compile left unjudged (SwarmReport::unjudged)
};

/// The op skeleton: each actor's op kinds in script order, the actors' sequences sorted; then the fault
/// actions that fired in the trace.
std::string skeleton(const Scenario& sc, const campaign::Trace& t) {
  std::vector<std::string> actors;
  for (const auto& a : sc.actors) {
    if (a.script.empty()) continue;
    std::string s;
    for (const auto& op : a.script) s += (s.empty() ? "" : ",") + std::string(op_name(op.kind));
    actors.push_back(s);
  }
  std::sort(actors.begin(), actors.end());
  std::string out;
  for (const auto& s : actors) out += (out.empty() ? "" : " | ") + s;
  std::set<std::string> faults;
  for (const auto& st : t.steps)
    for (size_t p = st.detail.find("fault="); p != std::string::npos; p = st.detail.find("fault=", p + 1))
      faults.insert(st.detail.substr(p + 6, st.detail.find_first_of(" ;,)", p + 6) - p - 6));
  for (const auto& f : faults) out += " +" + f;
  return out;
}

/// The call the trace's last step belongs to (campaign::violating_call, over a trace's steps).
std::string world_call(const campaign::Trace& t) {
  for (size_t k = t.steps.size(); k-- > 0;)
    if (t.steps[k].actor == t.steps.back().actor && t.steps[k].kind == "call") return t.steps[k].point;
  return t.steps.back().point;
}

/// The signature (see the header): the explanation's first racing pair when the trace has one.
std::string signature_of(const Scenario& sc, const campaign::Trace& t) {
  const std::string& inv = t.violation->invariant;
  // The world's own write broke it (explain.h, kind "world"): no race of the protocol, so the signature names
  // the write, and the finding is never filed as a race.
  if (t.explanation && t.explanation->kind == "world" && !t.steps.empty())
    return fmt::format("{} @ world write {}", inv, world_call(t));
  const Json j = Json::parse(campaign::trace_to_text(t));
  if (j.contains("explanation") && j["explanation"].is_object() && j["explanation"].contains("pairs")) {
    const Json& pairs = j["explanation"]["pairs"];
    if (pairs.is_array() && !pairs.empty()) {
      const size_t a = pairs[0].value("first", size_t{0}), b = pairs[0].value("second", size_t{0});
      if (a < t.steps.size() && b < t.steps.size())
        return fmt::format("{} @ race {} <> {}", inv, t.steps[a].point, t.steps[b].point);
    }
  }
  return fmt::format("{} @ {}", inv, skeleton(sc, t));
}

std::string slug_of(const std::string& invariant, const std::string& signature) {
  return fmt::format("{}-{:08x}", invariant, XXH3_64bits(signature.data(), signature.size()) & 0xffffffffu);
}

/// The finding scenario's description, generated from its trace.
std::string describe(const campaign::Trace& t, uint64_t run_seed, uint64_t index, uint64_t gen_seed,
                     const std::string& strategy, const std::vector<std::string>& mutants) {
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
  campaign::ShrinkResult s;
  campaign::Trace trace;
  std::string signature;
};

Shrunk shrink_violation(const SwarmOptions& o, const campaign::SubjectPtr& subject, const sim::ExecutionResult& found) {
  const uint64_t max_steps = subject->max_steps(std::nullopt);
  const bool spin = found.violation && found.violation->invariant == "steps-bounded";
  campaign::ShrinkOptions so;
  so.max_runs = spin ? std::min(o.shrink_runs, kStepsBoundShrinkRuns) : o.shrink_runs;
  so.max_seconds = 0;  // deterministic: bounded by runs only
  so.max_steps = max_steps;
  Shrunk out{campaign::shrink(backend_system(), subject, found.schedule, so), {}, {}};
  out.trace = campaign::make_trace(out.s.scenario, out.s.result, "");
  if (!spin) out.trace.explanation = campaign::explain(*out.s.scenario, out.s.result.schedule, max_steps);
  out.signature = signature_of(scenario_of(*out.s.scenario), out.trace);
  return out;
}

/// The scenario's choice of invariants as a file states it: "all", or what it leaves out. A generated scenario with a
/// stale stamp leaves the healing phase out (swarm_gen.cpp), and its finding's file must too: with the phase on, it
/// fires at quiescence before a later row such as ops-atomic, and the minimal schedule would not replay to the
/// finding's invariant.
Json invariant_choice(const Scenario& s) {
  if (s.invariants.empty()) return "all";
  Json left_out = Json::array();
  for (const char* name : invariant_names())
    if (std::find(s.invariants.begin(), s.invariants.end(), name) == s.invariants.end()) left_out.push_back(name);
  return left_out.empty() ? Json("all") : Json{{"all_except", std::move(left_out)}};
}

/// Makes the finding (scenario file and trace) of the violation of `subject` along `found`.
SwarmFinding make_finding(const SwarmOptions& o, const campaign::SubjectPtr& subject, const sim::ExecutionResult& found,
                          uint64_t index, uint64_t gen_seed, const std::string& strategy) {
  const uint64_t max_steps = subject->max_steps(std::nullopt);
  const Shrunk sh = shrink_violation(o, subject, found);
  const campaign::ShrinkResult& s = sh.s;
  const std::string inv = s.result.violation->invariant;
  SwarmFinding f;
  f.invariant = inv;
  f.index = index;
  f.seed = gen_seed;
  f.strategy = strategy;
  const Scenario& minimal = scenario_of(*s.scenario);
  f.signature = sh.signature;
  f.slug = slug_of(inv, f.signature);
  Json doc = scenario_to_json(minimal);
  doc["name"] = f.slug;
  doc["description"] = describe(sh.trace, o.seed, index, gen_seed, strategy, o.mutants);
  doc["invariants"] = invariant_choice(minimal);
  doc["expect"] = Json{{"violation", inv}};
  const std::string file = f.slug + ".json";
  f.scenario_text = doc.dump(2) + "\n";
  const campaign::SubjectPtr written = with_op_level_bound(*backend_system().parse(f.scenario_text, file, file),
                                                           std::min<uint64_t>(o.per_scenario, kDefaultOpLevelBound));
  // No false alarm: the minimal schedule must replay strictly against the file as written.
  const campaign::StrictReplay rr = campaign::replay_strict(*written, s.result.schedule, max_steps);
  if (rr.divergence || !rr.result.violation || rr.result.violation->invariant != inv)
    throw std::logic_error(
        fmt::format("swarm: the minimal trace of scenario #{} (seed {}) does not replay against "
                    "its written scenario",
                    index, gen_seed));
  campaign::Trace t =
      campaign::make_trace(written, rr.result, campaign::state_before_last_step(*written, rr.result, max_steps));
  t.tool_version = o.tool_version;
  t.explanation = sh.trace.explanation;  // the same schedule over the same scenario, as written
  t.scenario_path = file;
  t.scenario_digest = written->digest();
  t.strategy = strategy;
  t.seed = gen_seed;
  t.max_steps = max_steps;
  t.shrink = campaign::ShrinkInfo{found.steps.size(),
                                  subject->actor_names().size(),
                                  subject->op_count(),
                                  found.preemptions,
                                  s.runs,
                                  s.budget_exhausted,
                                  s.out_of_time,
                                  s.preemptions_minimal};
  f.trace_text = campaign::trace_to_text(t);
  f.actors = minimal.actors.size();
  f.ops = s.scenario->op_count();
  f.steps = rr.result.steps.size();
  f.count = 1;
  f.first_index = index;
  f.first_seed = gen_seed;
  return f;
}

/// Runs `strategy` on `subject` for `executions`, stopping at the first violation.
campaign::RunReport explore_with(const campaign::Subject& subject, const std::string& strategy, uint64_t seed,
                                 uint64_t executions) {
  campaign::ExploreConfig c;
  c.strategy = strategy;
  c.seed = seed;
  c.executions = executions;
  c.stop_at_first_violation = true;
  return campaign::run(subject, c);
}

/// A generated scenario as a subject, with ops-atomic's op-level executions bounded by the executions the swarm gives
/// each scenario (docs/SWARM.md): a scenario whose op-level tree is larger is left unjudged for ops-atomic.
campaign::SubjectPtr parse_doc(const SwarmOptions& o, const Json& doc, const std::string& file) {
  // Never above the bound the file loads with: a finding written from it must be judged again by `run`.
  return with_op_level_bound(*backend_system().parse(doc.dump(2) + "\n", file, file),
                             std::min<uint64_t>(o.per_scenario, kDefaultOpLevelBound));
}

/// The swarm's strategy plan (see the header) on one scenario, up to its first violation.
Exploration explore(const SwarmOptions& o, const campaign::Subject& subject, uint64_t gen_seed) {
  Exploration out;
  const std::unique_ptr<campaign::Compiled> compiled = subject.compile({});
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
    const campaign::RunReport r = explore_with(subject, strategy, gen_seed, n);
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
bool faithful_shares(const SwarmOptions& o, uint64_t index, uint64_t gen_seed, const SwarmFinding& f,
                     uint64_t& executions) {
  const campaign::SubjectPtr generated =
      parse_doc(o, swarm_scenario(o.seed, index, {}, o.max_steps), fmt::format("swarm-{}.json", gen_seed));
  const Exploration a = explore(o, *generated, gen_seed);
  executions += a.executions;
  if (a.found && a.found->violation->invariant == f.invariant &&
      shrink_violation(o, generated, *a.found).signature == f.signature)
    return true;
  Json minimal = Json::parse(f.scenario_text);
  minimal["backend"]["mutants"] = Json::array();
  minimal["expect"] = Json{{"outcome", "pass"}};
  const Exploration b = explore(o, *parse_doc(o, minimal, f.slug + ".json"), gen_seed);
  executions += b.executions;
  return b.found && b.found->violation->invariant == f.invariant;
}

ScenarioOutcome run_scenario_at(const SwarmOptions& o, uint64_t index) {
  const uint64_t gen_seed = sim::execution_seed(o.seed, index);
  const Json doc = swarm_scenario(o.seed, index, o.mutants, o.max_steps);
  const campaign::SubjectPtr subject = parse_doc(o, doc, fmt::format("swarm-{}.json", gen_seed));
  const Exploration e = explore(o, *subject, gen_seed);
  ScenarioOutcome out;
  out.text_hash = scenario_hash(doc);
  out.executions = e.executions;
  out.dpor = e.dpor;
  out.exhausted = e.exhausted;
  out.reach = e.reach;  // the faithful-port checks below are not the night's exploration: not counted
  out.unjudged = e.unjudged;
  out.features = swarm_feature_words(swarm_features(gen_seed));
  if (!e.found) return out;
  out.finding = make_finding(o, subject, *e.found, index, gen_seed, e.strategy);
  if (!o.mutants.empty())
    out.also_faithful = faithful_shares(o, index, gen_seed, *out.finding, out.faithful_executions);
  return out;
}

/// Adds one scenario's outcome to the report (dedup by signature; keep the smallest minimal scenario).
void merge(SwarmReport& r, std::map<std::string, size_t>& by_signature, ScenarioOutcome&& s, bool mutant_run) {
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
  SwarmFinding& kept = r.findings[it->second];
  // The counts carry over whichever minimal scenario is kept.
  const uint64_t count = kept.count + 1, first_index = kept.first_index, first_seed = kept.first_seed,
                 also_faithful = kept.also_faithful + f.also_faithful;
  const std::optional<uint64_t> first_mutant_only =
      kept.first_mutant_only ? kept.first_mutant_only : f.first_mutant_only;
  if (std::make_pair(f.ops, f.steps) < std::make_pair(kept.ops, kept.steps)) kept = std::move(f);
  kept.count = count;
  kept.first_index = first_index;
  kept.first_seed = first_seed;
  kept.also_faithful = also_faithful;
  kept.first_mutant_only = first_mutant_only;
}

}  // namespace

std::vector<std::string> swarm_feature_words(const SwarmFeatures& f) {
  std::vector<std::string> out;
  for (const std::string& name : f.names()) {
    if (!name.starts_with("sharing=")) {
      out.push_back(name);
      continue;
    }
    // "sharing=a+b": one word per sharing kind, so "never drawn" can name a kind.
    for (size_t b = 8, e; b <= name.size(); b = e + 1) {
      e = std::min(name.find('+', b), name.size());
      out.push_back("sharing=" + name.substr(b, e - b));
    }
  }
  return out;
}

std::vector<std::string> swarm_feature_universe() {
  SwarmFeatures all;
  all.mig = all.split_reserve = all.status_ops = all.release = all.second_reserve = all.binds = true;
  all.foreign_writes = all.read_faults = all.geometry_faults = all.barrier_faults = all.recover = true;
  all.start_state = all.conditional = all.clock = all.flow_clock = all.leftover_claim = all.partial_apply = true;
  all.release_listing = all.admission_reject = all.sweeper = all.leased_sweeper = all.operand_pause =
      all.hidden_devices = all.claimed_binds = all.bind_behind = all.shared_owner = all.bind_resource = true;
  all.sharing = {backend::kSharingExclusive, backend::kSharingIsolatedMig, backend::kSharingCooperative,
                 backend::kSharingAccountingOnly};
  return swarm_feature_words(all);
}

std::optional<uint64_t> SwarmReport::first_index_of(const std::string& invariant) const {
  std::optional<uint64_t> best;
  for (const auto& f : findings)
    if (f.invariant == invariant && (!best || f.first_index < *best)) best = f.first_index;
  return best;
}

Json swarm_scenario(uint64_t seed, uint64_t index, const std::vector<std::string>& mutants, uint64_t max_steps) {
  Json doc = generate_scenario(sim::execution_seed(seed, index));
  doc["backend"]["mutants"] = mutants;
  doc["max_steps"] = max_steps;
  return doc;
}

uint64_t scenario_hash(const nlohmann::ordered_json& doc) {
  const std::string text = doc.dump();
  return XXH3_64bits(text.data(), text.size());
}

uint64_t fold_generated(uint64_t digest, uint64_t scenario) {
  return XXH3_64bits_withSeed(&scenario, sizeof scenario, digest);
}

uint64_t generated_digest(const SwarmOptions& o, uint64_t scenarios) {
  uint64_t h = kGeneratedNone;
  for (uint64_t k = 0; k < scenarios; ++k)
    h = fold_generated(h, scenario_hash(
                              swarm_scenario(o.seed, k * o.shard_count + o.shard_index, o.mutants, o.max_steps)));
  return h;
}

SwarmReport run_swarm(const SwarmOptions& o, const std::function<void(const SwarmReport&)>& after_batch,
                      SwarmReport r) {
  std::map<std::string, size_t> by_signature;
  for (size_t i = 0; i < r.findings.size(); ++i) by_signature.emplace(r.findings[i].signature, i);
  const uint64_t batch = std::max(1u, o.jobs);
  const auto index_of = [&](uint64_t k) { return k * o.shard_count + o.shard_index; };
  const auto done = [&] {
    return o.budget_executions > 0 ? r.executions >= o.budget_executions : index_of(r.scenarios) >= o.scenarios;
  };
  const auto until_hit = [&](const ScenarioOutcome& s) {
    return s.finding && (o.mutants.empty() || !s.also_faithful) &&
           std::find(o.until.begin(), o.until.end(), s.finding->invariant) != o.until.end();
  };
  // k counts this shard's scenarios; a resumed report has counted r.scenarios of them, in whole batches.
  for (uint64_t k = r.scenarios; !done() && !r.stopped_by_until; k += batch) {
    if (sim::interrupt_signal() != 0) {
      r.interrupted = true;
      break;
    }
    std::vector<ScenarioOutcome> outs = campaign::parallel_map(batch, o.jobs, [&](size_t j) {
      const bool runs = o.budget_executions > 0 || index_of(k + j) < o.scenarios;
      return runs ? run_scenario_at(o, index_of(k + j)) : ScenarioOutcome{};
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

}  // namespace allocsim::harness
