#include "backend/harness/swarm_campaign.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "backend/harness/scenario_json.h"
#include "backend/harness/swarm_gen.h"
#include "backend/harness/system.h"
#include "sim/campaign/explain.h"
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
  uint64_t executions = 0;
  bool dpor = false, exhausted = false;
  std::optional<SwarmFinding> finding;
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

/// The signature (see the header): the explanation's first racing pair when the trace has one.
std::string signature_of(const Scenario& sc, const campaign::Trace& t) {
  const std::string& inv = t.violation->invariant;
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

/// Shrinks the violation of `subject` along `found`, and makes the finding (scenario file and trace).
SwarmFinding make_finding(const SwarmOptions& o, const campaign::SubjectPtr& subject, const sim::ExecutionResult& found,
                          uint64_t index, uint64_t gen_seed, const std::string& strategy) {
  const uint64_t max_steps = subject->max_steps(std::nullopt);
  campaign::ShrinkOptions so;
  so.max_runs = o.shrink_runs;
  so.max_seconds = 0;  // deterministic: bounded by runs only
  so.max_steps = max_steps;
  const campaign::ShrinkResult s = campaign::shrink(backend_system(), subject, found.schedule, so);
  const std::string inv = s.result.violation->invariant;
  SwarmFinding f;
  f.invariant = inv;
  f.index = index;
  f.seed = gen_seed;
  f.strategy = strategy;
  // First the trace against the shrunk scenario, for the signature and the description.
  campaign::Trace t0 = campaign::make_trace(s.scenario, s.result, "");
  t0.explanation = campaign::explain(*s.scenario, s.result.schedule, max_steps);
  const Scenario& minimal = scenario_of(*s.scenario);
  f.signature = signature_of(minimal, t0);
  f.slug = slug_of(inv, f.signature);
  Json doc = scenario_to_json(minimal);
  doc["name"] = f.slug;
  doc["description"] = describe(t0, o.seed, index, gen_seed, strategy, o.mutants);
  doc["invariants"] = "all";
  doc["expect"] = Json{{"violation", inv}};
  const std::string file = f.slug + ".json";
  const campaign::SubjectPtr written = backend_system().parse(doc.dump(2) + "\n", file, file);
  // No false alarm: the minimal schedule must replay strictly against the file as written.
  const campaign::StrictReplay rr = campaign::replay_strict(*written, s.result.schedule, max_steps);
  if (rr.divergence || !rr.result.violation || rr.result.violation->invariant != inv)
    throw std::logic_error(
        fmt::format("swarm: the minimal trace of scenario #{} (seed {}) does not replay against "
                    "its written scenario",
                    index, gen_seed));
  f.trace = campaign::make_trace(written, rr.result, campaign::state_before_last_step(*written, rr.result, max_steps));
  f.trace.explanation = t0.explanation;  // the same schedule over the same scenario, as written
  f.trace.scenario_path = file;
  f.trace.scenario_digest = written->digest();
  f.trace.strategy = strategy;
  f.trace.seed = gen_seed;
  f.trace.max_steps = max_steps;
  f.trace.shrink = campaign::ShrinkInfo{found.steps.size(),
                                        subject->actor_names().size(),
                                        subject->op_count(),
                                        found.preemptions,
                                        s.runs,
                                        s.budget_exhausted,
                                        s.out_of_time,
                                        s.preemptions_minimal};
  f.scenario = std::move(doc);
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

ScenarioOutcome run_scenario_at(const SwarmOptions& o, uint64_t index) {
  const uint64_t gen_seed = sim::execution_seed(o.seed, index);
  const Json doc = swarm_scenario(o.seed, index, o.mutants);
  const std::string file = fmt::format("swarm-{}.json", gen_seed);
  const campaign::SubjectPtr subject = backend_system().parse(doc.dump(2) + "\n", file, file);
  ScenarioOutcome out;
  const std::unique_ptr<campaign::Compiled> compiled = subject->compile({});
  sim::Engine engine(sim::EngineOptions{.max_steps = subject->max_steps(std::nullopt)});
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
    const campaign::RunReport r = explore_with(*subject, strategy, gen_seed, n);
    out.executions += r.summary.executions;
    out.exhausted |= out.dpor && r.exhausted;
    if (r.summary.first) {
      out.finding = make_finding(o, subject, r.summary.first->result, index, gen_seed, strategy);
      break;
    }
  }
  return out;
}

/// Runs fn(0..count-1) on `jobs` threads; each result lands in its own slot.
void parallel_for(size_t count, unsigned jobs, const std::function<void(size_t)>& fn) {
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(count);
  const unsigned n = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(count)));
  for (unsigned t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      for (size_t i = t; i < count; i += n) {
        try {
          fn(i);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      }
    });
  for (auto& th : threads) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

/// Adds one scenario's outcome to the report (dedup by signature; keep the smallest minimal scenario).
void merge(SwarmReport& r, std::map<std::string, size_t>& by_signature, ScenarioOutcome&& s) {
  ++r.scenarios;
  r.executions += s.executions;
  r.dpor_scenarios += s.dpor;
  r.dpor_exhausted += s.exhausted;
  if (!s.finding) return;
  ++r.violations;
  SwarmFinding& f = *s.finding;
  auto it = by_signature.find(f.signature);
  if (it == by_signature.end()) {
    by_signature.emplace(f.signature, r.findings.size());
    r.findings.push_back(std::move(f));
    return;
  }
  SwarmFinding& kept = r.findings[it->second];
  const uint64_t count = kept.count + 1, first_index = kept.first_index, first_seed = kept.first_seed;
  if (std::make_pair(f.ops, f.steps) < std::make_pair(kept.ops, kept.steps)) kept = std::move(f);
  kept.count = count;
  kept.first_index = first_index;
  kept.first_seed = first_seed;
}

}  // namespace

std::optional<uint64_t> SwarmReport::first_index_of(const std::string& invariant) const {
  std::optional<uint64_t> best;
  for (const auto& f : findings)
    if (f.invariant == invariant && (!best || f.first_index < *best)) best = f.first_index;
  return best;
}

Json swarm_scenario(uint64_t seed, uint64_t index, const std::vector<std::string>& mutants) {
  Json doc = generate_scenario(sim::execution_seed(seed, index));
  doc["backend"]["mutants"] = mutants;
  return doc;
}

SwarmReport run_swarm(const SwarmOptions& o, const std::function<void(const SwarmReport&)>& progress) {
  SwarmReport r;
  std::map<std::string, size_t> by_signature;
  const uint64_t batch = std::max(1u, o.jobs);
  for (uint64_t k = 0;; k += batch) {  // k counts this shard's scenarios
    const auto done = [&] {
      return o.budget_executions > 0 ? r.executions >= o.budget_executions : r.scenarios >= o.scenarios;
    };
    if (done() || r.stopped_by_until) break;
    // SIGINT/SIGTERM: keep what ran (main exits 128 + the signal after the files are written).
    if (sim::interrupt_signal() != 0) {
      r.interrupted = true;
      break;
    }
    std::vector<ScenarioOutcome> outs(batch);
    parallel_for(batch, o.jobs,
                 [&](size_t j) { outs[j] = run_scenario_at(o, (k + j) * o.shard_count + o.shard_index); });
    for (auto& s : outs) {  // index order: the stop rules see the same sequence whatever `jobs` is
      if (done() || r.stopped_by_until) break;
      const bool hit = s.finding && std::find(o.until.begin(), o.until.end(), s.finding->invariant) != o.until.end();
      merge(r, by_signature, std::move(s));
      r.stopped_by_until = hit;
    }
    if (progress) progress(r);
  }
  return r;
}

Json swarm_summary(const SwarmOptions& o, const SwarmReport& r) {
  Json config = {{"seed", o.seed},
                 {"scenarios", o.budget_executions > 0 ? Json(nullptr) : Json(o.scenarios)},
                 {"budget_executions", o.budget_executions > 0 ? Json(o.budget_executions) : Json(nullptr)},
                 {"per_scenario", o.per_scenario},
                 {"shrink_runs", o.shrink_runs},
                 {"mutants", o.mutants},
                 {"until", o.until},
                 {"shard", fmt::format("{}/{}", o.shard_index + 1, o.shard_count)}};
  Json findings = Json::array();
  for (const auto& f : r.findings)
    findings.push_back({{"signature", f.signature},
                        {"invariant", f.invariant},
                        {"count", f.count},
                        {"first_index", f.first_index},
                        {"first_seed", f.first_seed},
                        {"file", f.slug + ".json"},
                        {"trace", f.slug + ".trace.json"},
                        {"from_index", f.index},
                        {"strategy", f.strategy},
                        {"actors", f.actors},
                        {"ops", f.ops},
                        {"steps", f.steps}});
  return {
      {"schema", "allocsim/swarm/v1"}, {"config", std::move(config)},        {"scenarios", r.scenarios},
      {"executions", r.executions},    {"dpor_scenarios", r.dpor_scenarios}, {"dpor_exhausted", r.dpor_exhausted},
      {"violations", r.violations},    {"distinct", r.findings.size()},      {"stopped_by_until", r.stopped_by_until},
      {"interrupted", r.interrupted},  {"findings", std::move(findings)}};
}

void write_swarm(const SwarmOptions& o, const SwarmReport& r, const std::string& dir) {
  const std::filesystem::path d(dir);
  for (const auto& f : r.findings) {
    campaign::write_file_atomically((d / (f.slug + ".json")).string(), f.scenario.dump(2) + "\n");
    campaign::write_file_atomically((d / (f.slug + ".trace.json")).string(), campaign::trace_to_text(f.trace));
  }
  campaign::write_file_atomically((d / "summary.json").string(), swarm_summary(o, r).dump(2) + "\n");
}

}  // namespace allocsim::harness
