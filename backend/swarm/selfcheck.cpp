#include "backend/swarm/selfcheck.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <set>
#include <stdexcept>

#include "backend/model/mutants.h"
#include "backend/swarm/swarm_gen.h"
#include "backend/system/system.h"
#include "backend/world/dirty.h"
#include "sim/campaign/order_min.h"
#include "sim/campaign/pool.h"
#include "sim/campaign/run.h"
#include "sim/campaign/trace_file.h"
#include "sim/order.h"
#include "sim/prng.h"
#include "sim/schedule.h"

namespace allocsim::harness {

namespace {

using Json = nlohmann::ordered_json;

/// The explorations of every scenario, in this order (verdict_check.h: check 4 uses the same four).
constexpr const char* kStrategies[] = {"random", "pct", "dfs", "dpor"};
constexpr uint64_t kMaxOrderConstraints = 3;

/// A generated scenario as a subject, with ops-atomic's op-level executions bounded by what the self-check spends on
/// the scenario (every strategy's executions): beyond it ops-atomic judges nothing there.
campaign::SubjectPtr parse_generated(const SelfcheckOptions& o, const Json& doc, const std::string& file) {
  try {
    return with_op_level_bound(*backend_system().parse(doc.dump(2) + "\n", file, file),
                               std::min<uint64_t>(o.per_scenario * std::size(kStrategies), kDefaultOpLevelBound));
  } catch (const support::InputError& e) {
    throw std::logic_error(fmt::format("selfcheck: a generated scenario does not load: {}", e.what()));
  }
}

/// The catalogue mutant generated scenario `index` switches on ("" for none).
std::string mutant_of(const SelfcheckOptions& o, uint64_t index) {
  if (!o.mutants || index % 2 == 0) return "";
  const auto& table = backend::mutant_table();
  return table[(index / 2) % table.size()].name;
}

bool ordered(uint64_t index) { return index % 4 >= 2; }

/// `doc` with an `order` block of 1-3 constraints drawn from the full pin of its first `random` execution
/// (the header says why); `doc` itself when that execution switches between actors nowhere.
Json with_order(Json doc, const campaign::SubjectPtr& plain, uint64_t gen_seed) {
  campaign::ExploreConfig c;
  c.seed = gen_seed;
  c.executions = 1;
  std::optional<sim::ExecutionResult> first;
  campaign::RunHooks hooks;
  hooks.on_execution = [&](uint64_t, const sim::World&, const sim::ExecutionResult& r) { first = r; };
  campaign::run(*plain, c, hooks);
  if (!first) return doc;
  const sim::OrderSpec pin = campaign::full_pin(campaign::make_trace(plain, *first, ""));
  if (pin.empty()) return doc;
  sim::Prng rng(gen_seed + 1);
  const size_t want = std::min<size_t>(pin.constraints.size(), 1 + rng.below(kMaxOrderConstraints));
  std::vector<bool> take(pin.constraints.size(), false);
  for (size_t taken = 0; taken < want;) {
    const size_t k = rng.below(pin.constraints.size());
    if (!take[k]) take[k] = true, ++taken;
  }
  sim::OrderSpec chosen;
  for (size_t k = 0; k < take.size(); ++k)
    if (take[k]) chosen.constraints.push_back(pin.constraints[k]);
  doc["order"] = sim::order_json(chosen);
  return doc;
}

/// What scenario `doc` (generated from `gen_seed`) used, as SelfcheckReport::coverage keys.
std::set<std::string> used(const Json& doc, std::optional<uint64_t> gen_seed) {
  std::set<std::string> tags;
  for (const std::string& n : gen_seed ? swarm_features(*gen_seed).names() : std::vector<std::string>{}) {
    if (!n.starts_with("sharing=")) {
      tags.insert("feature:" + n);
      continue;
    }
    for (size_t at = 8; at < n.size();) {
      const size_t end = std::min(n.find('+', at), n.size());
      tags.insert("sharing:" + n.substr(at, end - at));
      at = end + 1;
    }
  }
  if (doc.contains("faults"))
    for (const auto& [barrier, actions] : doc["faults"]["barriers"].items())
      for (const Json& a : actions) tags.insert("fault:" + a.get<std::string>());
  for (const Json& actor : doc["actors"])
    for (const Json& op : actor["script"]) {
      tags.insert("op:" + op["op"].get<std::string>());
      if (op.contains("when")) tags.insert("op-key:when");
      if (op.contains("retry")) tags.insert("op-key:retry");
    }
  if (doc.contains("order")) tags.insert("order");
  for (const Json& m : doc["backend"]["mutants"]) tags.insert("mutant:" + m.get<std::string>());
  return tags;
}

const char* ending(const sim::ExecutionResult& r) {
  if (r.violation) return r.violation->invariant == "no-deadlock" ? "deadlock" : "violation";
  if (r.order_blocked) return "order-blocked";
  return r.quiescent ? "quiescent" : "cut short";
}

/// One exploration of a scenario, kept for the second phase (the other invariant-check mode).
struct StrategyExploration {
  campaign::ExploreConfig config;
  std::vector<std::string> verdicts;  // verdict_of each execution, in order
  std::vector<std::vector<sim::Choice>> schedules;
};

/// One scenario: its part of the report and what its second phase needs.
struct Outcome {
  SelfcheckReport part;
  campaign::SubjectPtr subject;
  std::pair<std::string, std::string> file;  // the scenario as written for a contradiction
  std::string path;                          // where that file goes (SelfcheckOptions::out), for replay lines
  SelfcheckContradiction proto;              // index, seeds, mutant, order
  std::vector<StrategyExploration> explorations;
  std::vector<std::pair<SelfcheckContradiction, campaign::ModeProbe>> probes;  // with their strategy, invariant
  uint64_t text_hash = 0;  // scenario_hash of its base scenario, for SelfcheckReport::generated
};

void add_counts(std::map<std::string, uint64_t>& into, const std::map<std::string, uint64_t>& from) {
  for (const auto& [k, n] : from) into[k] += n;
}

SelfcheckContradiction with(const SelfcheckContradiction& proto, std::string strategy, std::string invariant,
                            campaign::Contradiction c) {
  SelfcheckContradiction out = proto;
  out.strategy = std::move(strategy);
  out.invariant = std::move(invariant);
  out.c = std::move(c);
  return out;
}

campaign::VerdictOptions verdict_options(const SelfcheckOptions& o, uint64_t gen_seed, std::string prefix) {
  campaign::VerdictOptions v;
  v.shrink_runs = o.shrink_runs;
  v.spin_shrink_runs = std::min(o.shrink_runs, campaign::kStepsBoundShrinkRuns);
  v.order_seed = gen_seed;
  v.prefix = std::move(prefix);
  v.out = o.out;
  v.tool_version = o.tool_version;
  v.tamper = o.tamper;
  return v;
}

/// The first phase of scenario `index`: generate, explore with every strategy (checking every execution),
/// then check every distinct violation.
Outcome explore_scenario(const SelfcheckOptions& o, uint64_t index) {
  Outcome out;
  const uint64_t gen_seed = sim::execution_seed(o.seed, index);
  const std::string name = o.files.empty()
                               ? fmt::format("s{}", index)
                               : fmt::format("s{}-{}", index, std::filesystem::path(o.files.at(index)).stem().string());
  Json doc = selfcheck_base_scenario(o, index);
  out.text_hash = scenario_hash(doc);
  out.subject = parse_generated(o, doc, name + ".json");
  if (o.files.empty() && ordered(index)) {
    doc = with_order(std::move(doc), out.subject, gen_seed);
    if (doc.contains("order")) out.subject = parse_generated(o, doc, name + ".json");
  }
  SelfcheckReport& p = out.part;
  p.scenarios = 1;
  p.with_order = doc.contains("order");
  std::string mutants;  // the scenario's own, a named file's included
  for (const Json& m : doc["backend"]["mutants"]) mutants += (mutants.empty() ? "" : "+") + m.get<std::string>();
  p.with_mutant = !mutants.empty();
  for (const std::string& tag : used(doc, o.files.empty() ? std::optional(gen_seed) : std::nullopt)) ++p.coverage[tag];
  out.proto = SelfcheckContradiction{index, gen_seed, mutants, p.with_order != 0, "", "", 1, {}};
  const campaign::VerdictOptions every = verdict_options(o, gen_seed, name);
  out.file = {name + ".json", out.subject->to_json().dump(2) + "\n"};
  out.path = o.out.empty() ? out.file.first : (std::filesystem::path(o.out) / out.file.first).string();
  struct Found {
    std::string strategies;
    campaign::FoundViolation v;
  };
  std::vector<Found> found;
  for (const char* strategy : kStrategies) {
    StrategyExploration ex;
    ex.config.strategy = strategy;
    if (ex.config.strategy == "dfs") ex.config.reduction = "none";
    ex.config.seed = gen_seed;
    ex.config.executions = o.per_scenario;
    ex.config.stop_at_first_violation = true;
    std::map<std::string, size_t> listed;  // per-execution contradictions: the first of each kind, then counts
    campaign::RunHooks hooks;
    hooks.on_execution = [&](uint64_t i, const sim::World&, const sim::ExecutionResult& r) {
      ex.verdicts.push_back(campaign::verdict_of(r));
      ex.schedules.push_back(r.schedule);
      ++p.endings[ending(r)];
      for (auto c : {campaign::check_execution(*out.subject, ex.config, i, r, every, p.checks),
                     campaign::check_order_blocked(*out.subject, ex.config, i, r, every, p.checks, p.skipped)}) {
        if (!c) continue;
        const auto it = listed.find(c->kind);
        if (it != listed.end()) {
          ++p.contradictions[it->second].repeats;
          continue;
        }
        listed.emplace(c->kind, p.contradictions.size());
        p.contradictions.push_back(with(out.proto, strategy, r.violation ? r.violation->invariant : "", std::move(*c)));
      }
    };
    const campaign::RunReport rep = campaign::run(*out.subject, ex.config, hooks);
    p.executions += rep.summary.executions;
    out.explorations.push_back(std::move(ex));
    if (!rep.summary.first) continue;
    ++p.violations_found;
    const sim::Finding& f = *rep.summary.first;
    const auto same = std::find_if(found.begin(), found.end(),
                                   [&](const Found& x) { return x.v.result.fingerprint() == f.result.fingerprint(); });
    if (same != found.end()) {
      same->strategies += fmt::format("+{}", strategy);
      continue;
    }
    found.push_back(
        Found{strategy, campaign::FoundViolation{out.subject, out.explorations.back().config, f.seed, f.result}});
  }
  std::set<std::string> minimal_seen;  // explained and pinned once per scenario
  for (const Found& f : found) {
    const std::string inv = f.v.result.violation->invariant;
    ++p.violations_checked;
    ++p.checked_by_invariant[inv];
    const std::string first = f.strategies.substr(0, f.strategies.find('+'));
    campaign::VerdictOptions vo = verdict_options(o, gen_seed, fmt::format("{}-{}", name, first));
    vo.minimal_seen = &minimal_seen;
    campaign::VerdictChecks vc = campaign::check_violation(backend_system(), f.v, vo);
    add_counts(p.checks, vc.run);
    add_counts(p.skipped, vc.skipped);
    for (campaign::Contradiction& c : vc.contradictions)
      p.contradictions.push_back(with(out.proto, f.strategies, inv, std::move(c)));
    for (campaign::ModeProbe& m : vc.probes)
      out.probes.emplace_back(with(out.proto, f.strategies, inv, {}), std::move(m));
  }
  return out;
}

/// The second phase, under the other invariant-check mode: every exploration again, every probe.
void other_mode(const SelfcheckOptions& o, Outcome& out) {
  SelfcheckReport& p = out.part;
  for (StrategyExploration& ex : out.explorations) {
    if (o.tamper && !ex.verdicts.empty()) o.tamper("mode-verdict", ex.verdicts.front());
    std::vector<std::string> verdicts;
    std::vector<std::vector<sim::Choice>> schedules;
    campaign::RunHooks hooks;
    hooks.on_execution = [&](uint64_t, const sim::World&, const sim::ExecutionResult& r) {
      verdicts.push_back(campaign::verdict_of(r));
      schedules.push_back(r.schedule);
    };
    campaign::run(*out.subject, ex.config, hooks);
    const size_t n = std::max(verdicts.size(), ex.verdicts.size());
    p.checks["check-modes"] += n;
    size_t k = 0;
    while (k < n && k < verdicts.size() && k < ex.verdicts.size() && verdicts[k] == ex.verdicts[k]) ++k;
    if (k == n) continue;
    const auto said = [&](const std::vector<std::string>& v) {
      return k < v.size() ? "ends " + v[k] : std::string("is not run (the exploration stopped before it)");
    };
    const std::vector<sim::Choice>& schedule = k < ex.schedules.size() ? ex.schedules[k] : schedules[k];
    const std::string line =
        ex.config.replay_line(out.path, {.seed = std::nullopt,
                                         .schedule = sim::format_schedule(schedule, out.subject->actor_names())});
    const std::string replay = fmt::format("{} --check-invariants incremental; {} --check-invariants full", line, line);
    campaign::Contradiction c{"check-modes",
                              fmt::format("execution {} under {} {} with incremental invariant checks, {} with full", k,
                                          ex.config.strategy, said(ex.verdicts), said(verdicts)),
                              replay,
                              {out.file}};
    p.contradictions.push_back(with(out.proto, ex.config.strategy, "", std::move(c)));
  }
  for (auto& [proto, m] : out.probes) {
    ++p.checks["check-modes"];
    const std::string got = campaign::probe(m);
    if (got.empty()) continue;
    campaign::Contradiction c = m.if_differs;
    c.detail = fmt::format("{} ends {} with incremental invariant checks, {} with full", m.what, m.expected, got);
    p.contradictions.push_back(with(proto, proto.strategy, proto.invariant, std::move(c)));
  }
}

void add_part(SelfcheckReport& r, SelfcheckReport&& p) {
  r.scenarios += p.scenarios;
  r.with_order += p.with_order;
  r.with_mutant += p.with_mutant;
  r.executions += p.executions;
  add_counts(r.endings, p.endings);
  add_counts(r.coverage, p.coverage);
  r.violations_found += p.violations_found;
  r.violations_checked += p.violations_checked;
  add_counts(r.checked_by_invariant, p.checked_by_invariant);
  add_counts(r.checks, p.checks);
  add_counts(r.skipped, p.skipped);
  for (auto& c : p.contradictions) r.contradictions.push_back(std::move(c));
}

/// Sets the invariant-check mode for a phase and puts the previous one back after it, also on an exception.
struct ModeScope {
  explicit ModeScope(CheckMode m) : before(check_mode()) { set_check_mode(m); }
  ~ModeScope() { set_check_mode(before); }
  CheckMode before;
};

}  // namespace

std::map<std::string, uint64_t> SelfcheckReport::by_kind() const {
  std::map<std::string, uint64_t> out;
  for (const auto& c : contradictions) out[c.c.kind] += c.repeats;
  return out;
}

uint64_t SelfcheckReport::contradiction_count() const {
  uint64_t n = 0;
  for (const auto& c : contradictions) n += c.repeats;
  return n;
}

Json selfcheck_base_scenario(const SelfcheckOptions& o, uint64_t index) {
  if (!o.files.empty()) {
    Json doc = backend_system().load(o.files.at(index))->to_json();
    // A mutant the file switches on already stays once, as `run --mutant` treats it (a file lists each once).
    Json& on = doc["backend"]["mutants"];
    for (const std::string& m : o.file_mutants)
      if (std::find(on.begin(), on.end(), Json(m)) == on.end()) on.push_back(m);
    return doc;
  }
  const std::string m = mutant_of(o, index);
  return swarm_scenario(o.seed, index, m.empty() ? std::vector<std::string>{} : std::vector<std::string>{m},
                        o.max_steps);
}

uint64_t selfcheck_generated(const SelfcheckOptions& o, uint64_t scenarios) {
  uint64_t h = campaign::kGeneratedNone;
  for (uint64_t k = 0; k < scenarios; ++k)
    h = campaign::fold_generated(h, scenario_hash(selfcheck_base_scenario(o, k)));
  return h;
}

SelfcheckReport run_selfcheck(const SelfcheckOptions& o, const std::function<void(const SelfcheckReport&)>& after_batch,
                              SelfcheckReport r) {
  const uint64_t batch = std::max(1u, o.jobs);
  for (uint64_t k = r.scenarios; k < o.scenarios; k += batch) {
    const size_t n = static_cast<size_t>(std::min(batch, o.scenarios - k));
    std::vector<Outcome> outs;
    {
      const ModeScope mode(CheckMode::Incremental);
      outs = campaign::parallel_map(n, o.jobs, [&](size_t j) { return explore_scenario(o, k + j); });
    }
    {
      const ModeScope mode(CheckMode::Full);
      campaign::parallel_for(n, o.jobs, [&](size_t j) { other_mode(o, outs[j]); });
    }
    for (Outcome& out : outs) {
      r.generated = campaign::fold_generated(r.generated, out.text_hash);
      add_part(r, std::move(out.part));
    }
    if (after_batch) after_batch(r);
  }
  return r;
}

}  // namespace allocsim::harness
