#include "sim/campaign/verdict_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "sim/campaign/order_min.h"
#include "sim/campaign/run.h"
#include "sim/campaign/shrink.h"
#include "sim/campaign/trace_file.h"
#include "sim/campaign/trace_replay.h"
#include "sim/prng.h"
#include "sim/schedule.h"

namespace allocsim::campaign {

namespace {

using Json = nlohmann::ordered_json;
using File = std::pair<std::string, std::string>;

std::string path_in(const VerdictOptions& o, const std::string& name) {
  return o.out.empty() ? name : (std::filesystem::path(o.out) / name).string();
}

std::string tampered(const VerdictOptions& o, std::string_view artefact, std::string text) {
  if (o.tamper) o.tamper(artefact, text);
  return text;
}

std::string scenario_text(const Subject& s) { return s.to_json().dump(2) + "\n"; }

std::vector<std::string> actor_names_of(const Trace& t) { return t.scenario->actor_names(); }

bool draws_a_fault(const std::vector<sim::Choice>& schedule) {
  return std::any_of(schedule.begin(), schedule.end(),
                     [](const sim::Choice& c) { return c.kind == sim::Choice::Draw && c.value != 0; });
}

/// A trace file of execution `r` of `sc` as `run` writes one (trace_cli.cpp, report_finding).
Trace trace_of(const VerdictOptions& o, const SubjectPtr& sc, const sim::ExecutionResult& r, const std::string& file,
               const ExploreConfig& config, uint64_t execution_seed, uint64_t max_steps) {
  Trace t = make_trace(sc, r, state_before_last_step(*sc, r, max_steps));
  t.tool_version = o.tool_version;
  t.scenario_path = file;
  t.scenario_digest = sc->digest();
  t.strategy = config.strategy;
  t.seed = config.seed;
  if (config.spec().caps.replays_by_seed) t.execution_seed = execution_seed;
  t.max_steps = max_steps;
  return t;
}

/// "the execution replayed ... diverges at step N (label): expected X, did Y" / "ends <verdict>".
std::string outcome(const std::optional<sim::Divergence>& d, const sim::ExecutionResult& r) {
  if (d) return fmt::format("diverges at step {} ({}): expected {}, got {}", d->step, d->label, d->expected, d->actual);
  return "ends " + verdict_of(r);
}

/// The first execution of `sc` under strategy `name` (check 4): its result, and the `run` line that shows it.
std::pair<std::optional<sim::ExecutionResult>, std::string> first_execution(const Subject& sc, const std::string& name,
                                                                            uint64_t seed, const std::string& file) {
  ExploreConfig c;
  c.strategy = name;
  if (name == "dfs") c.reduction = "none";
  c.seed = seed;
  c.executions = 1;
  std::optional<sim::ExecutionResult> first;
  RunHooks hooks;
  hooks.on_execution = [&](uint64_t index, const sim::World&, const sim::ExecutionResult& r) {
    if (index == 0) first = r;
  };
  run(sc, c, hooks);
  std::string line = fmt::format("allocsim run {} --strategy {}", shell_quote(file), name);
  if (name == "dfs") line += " --reduction none";
  if (c.spec().caps.seeded) line += fmt::format(" --seed {}", seed);
  return {first, line + " --executions 1 --no-corpus"};
}

struct Checker {
  const System& system;
  const FoundViolation& v;
  const VerdictOptions& o;
  VerdictChecks out;
  std::string inv;
  uint64_t max_steps = 0;
  std::vector<std::string> names;
  File scenario_file, trace_file, min_scenario_file;

  void add(const char* kind, std::string detail, std::string replay, std::vector<File> files) {
    out.contradictions.push_back(Contradiction{kind, std::move(detail), std::move(replay), std::move(files)});
  }
  void replays();
  /// Check 2; the minimal trace (replayed against its embedded scenario), when there is one.
  std::optional<std::pair<Trace, TraceReplay>> shrunk();
  void explained(const Trace& t, const TraceReplay& rr, const File& min_scenario, const File& min_trace);
  void pinned(const Subject& minimal, const File& min_scenario, const File& min_trace,
              const std::vector<sim::Choice>& schedule, const std::optional<Explanation>& e);
};

void Checker::replays() {
  const sim::ExecutionResult& r = v.result;
  const std::string want = verdict_of(r);
  const std::string file = path_in(o, scenario_file.first);
  if (v.config.spec().caps.replays_by_seed) {
    ++out.run["replay-seed"];
    const std::string text = tampered(o, "execution-seed", std::to_string(v.execution_seed));
    const uint64_t seed = std::strtoull(text.c_str(), nullptr, 10);
    const std::string got = verdict_of(replay_seed(*v.scenario, v.config, seed));
    if (got != want)
      add("replay-seed", fmt::format("the execution ({}) replayed from its execution seed {} ends {}", want, seed, got),
          v.config.replay_line(file, {.seed = seed, .schedule = {}}), {scenario_file});
  }
  ++out.run["replay-schedule"];
  const std::string sched = tampered(o, "schedule", sim::format_schedule(r.schedule, names));
  const std::string line = v.config.replay_line(file, {.seed = std::nullopt, .schedule = sched});
  try {
    const StrictReplay s = replay_strict(*v.scenario, sim::parse_schedule(sched, names), max_steps);
    if (s.divergence || verdict_of(s.result) != want)
      add("replay-schedule",
          fmt::format("the execution ({}) replayed by its schedule string {}", want, outcome(s.divergence, s.result)),
          line, {scenario_file});
  } catch (const sim::ScheduleError& e) {
    add("replay-schedule", fmt::format("the execution's schedule string does not parse: {}", e.what()), line,
        {scenario_file});
  }
  ++out.run["replay-trace"];
  const std::string trace_line = "allocsim replay " + shell_quote(path_in(o, trace_file.first));
  try {
    const Trace t = parse_trace(system, trace_file.second, path_in(o, trace_file.first));
    const TraceReplay rr = replay_trace(t);
    if (rr.divergence || verdict_of(rr.result) != want)
      add("replay-trace",
          fmt::format("the execution ({}) replayed from its trace file {}", want, outcome(rr.divergence, rr.result)),
          trace_line, {scenario_file, trace_file});
  } catch (const TraceError& e) {
    add("replay-trace", fmt::format("the execution's trace file does not load: {}", e.what()), trace_line,
        {scenario_file, trace_file});
  }
}

std::optional<std::pair<Trace, TraceReplay>> Checker::shrunk() {
  ++out.run["shrink"];
  const sim::ExecutionResult& r = v.result;
  ShrinkOptions so;
  so.max_runs = inv == "steps-bounded" ? o.spin_shrink_runs : o.shrink_runs;
  so.max_seconds = 0;  // deterministic: bounded by runs only
  so.max_steps = max_steps;
  const std::string shrink_line = "allocsim shrink " + shell_quote(path_in(o, trace_file.first));
  ShrinkResult s;
  try {
    s = shrink(system, v.scenario, r.schedule, so);
  } catch (const std::invalid_argument& e) {
    add("shrink", fmt::format("the shrinker says the execution violates nothing: {}", e.what()), shrink_line,
        {scenario_file, trace_file});
    return std::nullopt;
  }
  min_scenario_file = {o.prefix + ".min.json", tampered(o, "minimal-scenario", scenario_text(*s.scenario))};
  const File& min_scenario = min_scenario_file;
  const std::string min_path = path_in(o, min_scenario.first);
  SubjectPtr loaded;
  try {
    loaded = system.parse(min_scenario.second, min_path, min_path);
  } catch (const support::InputError& e) {
    add("shrink", fmt::format("the shrunk scenario does not load: {}", e.what()), shrink_line,
        {scenario_file, trace_file, min_scenario});
    return std::nullopt;
  }
  const std::string sched = sim::format_schedule(s.result.schedule, loaded->actor_names());
  const StrictReplay mr = replay_strict(*loaded, s.result.schedule, max_steps);
  const std::string got = mr.result.violation ? mr.result.violation->invariant : "no invariant";
  if (mr.divergence || got != inv) {
    add("shrink",
        fmt::format("the minimal schedule, replayed against the shrunk scenario, {} (the execution violates {})",
                    mr.divergence ? outcome(mr.divergence, mr.result) : "violates " + got, inv),
        v.config.replay_line(min_path, {.seed = std::nullopt, .schedule = sched}), {min_scenario});
    return std::nullopt;
  }
  Trace t = trace_of(o, loaded, mr.result, min_path, v.config, v.execution_seed, max_steps);
  t.shrink = ShrinkInfo{r.steps.size(),
                        v.scenario->actor_names().size(),
                        v.scenario->op_count(),
                        r.preemptions,
                        s.runs,
                        s.budget_exhausted,
                        s.out_of_time,
                        s.preemptions_minimal};
  File min_trace{o.prefix + ".min.trace.json", tampered(o, "minimal-trace", trace_to_text(t))};
  const std::string min_trace_path = path_in(o, min_trace.first);
  try {
    Trace back = parse_trace(system, min_trace.second, min_trace_path);
    TraceReplay rr = replay_trace(back);
    if (rr.divergence) {
      add("shrink",
          fmt::format("the minimal trace file, replayed against its embedded scenario, {}",
                      outcome(rr.divergence, rr.result)),
          "allocsim replay " + shell_quote(min_trace_path), {min_scenario, min_trace});
      return std::nullopt;
    }
    const std::string key = min_scenario.second + sim::format_schedule(rr.result.schedule, actor_names_of(back));
    if (o.minimal_seen && !o.minimal_seen->insert(key).second) {
      const char* why = ": the same minimal trace as an earlier violation's";
      ++out.skipped[std::string("explain") + why];
      out.skipped[std::string("order-pin") + why] += o.order_strategies.size();
      out.skipped[std::string("order-pin-file") + why] += o.order_strategies.size();
    } else {
      explained(back, rr, min_scenario, min_trace);
    }
    return std::pair{std::move(back), std::move(rr)};
  } catch (const TraceError& e) {
    add("shrink", fmt::format("the minimal trace file does not load: {}", e.what()),
        "allocsim replay " + shell_quote(min_trace_path), {min_scenario, min_trace});
  }
  return std::nullopt;
}

void Checker::explained(const Trace& t, const TraceReplay& rr, const File& min_scenario, const File& min_trace) {
  // As `trace explain` does (cmd_trace.cpp): the trace replayed, then its schedule explained.
  std::optional<Explanation> e = explain(*t.scenario, rr.result.schedule, t.max_steps);
  if (o.tamper) {
    std::string text = tampered(o, "explanation", e ? explanation_to_json(*e).dump() : "null");
    const Json j = Json::parse(text);
    e = j.is_null() ? std::nullopt : std::optional<Explanation>(explanation_from_json(j));
  }
  ++out.run["explain"];
  for (const auto& [kind, detail] : check_explanation(*t.scenario, rr.result.schedule, t.max_steps, inv, e))
    add(kind.c_str(), detail, "allocsim trace explain " + shell_quote(path_in(o, min_trace.first)),
        {min_scenario, min_trace});
  pinned(*t.scenario, min_scenario, min_trace, rr.result.schedule, e);
}

void Checker::pinned(const Subject& minimal, const File& min_scenario, const File& min_trace,
                     const std::vector<sim::Choice>& schedule, const std::optional<Explanation>& e) {
  // No block to paste, or one that cannot pin the fault draws the violation needs.
  const char* why = !e                        ? ": no explanation"
                    : draws_a_fault(schedule) ? ": the minimal schedule draws a fault, which an order cannot pin"
                                              : nullptr;
  if (why) {
    out.skipped[std::string("order-pin") + why] += o.order_strategies.size();
    out.skipped[std::string("order-pin-file") + why] += o.order_strategies.size();
    return;
  }
  // What `run` prints (trace_cli.cpp): the explanation's block, which pins the minimal scenario, and for the
  // file that was run the pin checked there (the same block when it holds there too). A pin of "none" says
  // in words what an order cannot pin: nothing to paste, so nothing to check.
  const Pin file_pin = pin_violation(*v.scenario, v.result, e->order, max_steps);
  out.order = e->order;
  const auto block_of = [&](const std::vector<std::pair<std::string, std::string>>& order) {
    Json block = Json::array();
    for (const auto& [x, y] : order) block.push_back({x, y});
    return Json::parse(tampered(o, "order", block.dump()));
  };
  const struct {
    const char* kind;
    const Subject& sc;
    std::string name;
    std::vector<File> context;  // shown with a contradiction: the scenario and the trace the block came from
    Json pasted;
    const char* none;  // why nothing is pasted: the printed text says no order pins it (nullptr: a block is)
  } targets[] = {{"order-pin",
                  minimal,
                  o.prefix + ".min-order.json",
                  {min_scenario, min_trace},
                  block_of(e->order),
                  e->pin == "none" ? "the explanation says no order pins it" : nullptr},
                 {"order-pin-file",
                  *v.scenario,
                  o.prefix + ".order.json",
                  {scenario_file, min_trace},
                  block_of(file_pin.order),
                  file_pin.how == "none" ? "run says no order pins it in the file" : nullptr}};
  for (const auto& target : targets) {
    const Json& pasted = target.pasted;
    if (target.none) {
      out.skipped[std::string(target.kind) + ": " + target.none] += o.order_strategies.size();
      continue;
    }
    if (pasted.empty() && target.kind == std::string_view("order-pin-file")) {
      // Nothing is printed to paste (the explanation is sequential): the scenario alone is what the minimal
      // check judged, and a larger one may well not break in every order.
      out.skipped["order-pin-file: the explanation has no order block to paste"] += o.order_strategies.size();
      continue;
    }
    Json doc = target.sc.to_json();
    if (!doc.contains("order")) doc["order"] = Json::array();
    for (const Json& c : pasted) doc["order"].push_back(c);
    const File file{target.name, doc.dump(2) + "\n"};
    const std::string path = path_in(o, file.first);
    std::vector<File> files = target.context;
    files.insert(files.begin(), file);
    SubjectPtr sc;
    try {
      sc = system.parse(file.second, path, path);
    } catch (const support::InputError& err) {
      ++out.run[target.kind];
      add(target.kind, fmt::format("the explanation's order block {} does not load: {}", pasted.dump(), err.what()),
          "allocsim run " + shell_quote(path), files);
      continue;
    }
    for (const std::string& name : o.order_strategies) {
      ++out.run[target.kind];
      const auto [first, line] = first_execution(*sc, name, o.order_seed, path);
      if (first && first->violation && first->violation->invariant == inv) continue;
      if (first && draws_a_fault(first->schedule)) {
        --out.run[target.kind];
        ++out.skipped[std::string(target.kind) + ": the first execution drew a fault, which an order cannot pin"];
        continue;
      }
      const std::string ended = !first                 ? "runs no execution"
                                : first->order_blocked ? "ends order-blocked: " + first->order_blocked->message
                                : first->violation     ? "violates " + first->violation->invariant + " instead"
                                                       : "ends without a violation";
      add(target.kind,
          fmt::format("with the explanation's order block {} ({} explanation), the first execution under {} {} "
                      "(expected {})",
                      pasted.dump(), e->kind, name, ended, inv),
          line, files);
    }
  }
}

}  // namespace

std::string verdict_of(const sim::ExecutionResult& r) {
  std::string end = r.violation       ? "violation " + r.violation->invariant
                    : r.order_blocked ? fmt::format("order-blocked #{}", r.order_blocked->constraint)
                    : r.abandoned     ? std::string("abandoned")
                    : r.quiescent     ? std::string("quiescent")
                                      : std::string("cut short");
  return fmt::format("{:016x} {}", r.fingerprint(), end);
}

std::optional<Contradiction> check_execution(const Subject& sc, const ExploreConfig& config, uint64_t index,
                                             const sim::ExecutionResult& r, const VerdictOptions& o,
                                             std::map<std::string, uint64_t>& run) {
  const uint64_t max_steps = sc.max_steps(config.max_steps);
  const std::string want = tampered(o, "execution-verdict", verdict_of(r));
  const File scenario{o.prefix + ".json", scenario_text(sc)};
  const std::string file = path_in(o, scenario.first);
  ++run["replay-schedule"];
  const StrictReplay s = replay_strict(sc, r.schedule, max_steps);
  if (s.divergence || verdict_of(s.result) != want)
    return Contradiction{"replay-schedule",
                         fmt::format("execution {} under {} ({}) replayed by its schedule {}", index, config.strategy,
                                     want, outcome(s.divergence, s.result)),
                         config.replay_line(file, {.seed = std::nullopt,
                                                   .schedule = sim::format_schedule(r.schedule, sc.actor_names())}),
                         {scenario}};
  if (!config.spec().caps.replays_by_seed) return std::nullopt;
  ++run["replay-seed"];
  const uint64_t seed = sim::execution_seed(config.seed, index);
  const std::string got = verdict_of(replay_seed(sc, config, seed));
  if (got != want)
    return Contradiction{"replay-seed",
                         fmt::format("execution {} under {} ({}) replayed from its execution seed {} ends {}", index,
                                     config.strategy, want, seed, got),
                         config.replay_line(file, {.seed = seed, .schedule = {}}),
                         {scenario}};
  return std::nullopt;
}

VerdictChecks check_violation(const System& system, const FoundViolation& v, const VerdictOptions& o) {
  Checker c{system,
            v,
            o,
            {},
            v.result.violation->invariant,
            v.scenario->max_steps(v.config.max_steps),
            v.scenario->actor_names(),
            {},
            {},
            {}};
  c.scenario_file = {o.prefix + ".json", scenario_text(*v.scenario)};
  const Trace raw =
      trace_of(o, v.scenario, v.result, path_in(o, c.scenario_file.first), v.config, v.execution_seed, c.max_steps);
  c.trace_file = {o.prefix + ".trace.json", tampered(o, "trace", trace_to_text(raw))};
  c.replays();
  // Check 5's probes: the violating execution here, the minimal one below.
  const auto probe_of = [&](const SubjectPtr& sc, const sim::ExecutionResult& r, const char* what, const File& file) {
    const std::string path = path_in(o, file.first);
    const std::string sched = sim::format_schedule(r.schedule, sc->actor_names());
    const std::string line = v.config.replay_line(path, {.seed = std::nullopt, .schedule = sched});
    c.out.probes.push_back(ModeProbe{sc, r.schedule, c.max_steps, tampered(o, "mode-verdict", verdict_of(r)), what,
                                     Contradiction{"check-modes",
                                                   "",
                                                   fmt::format("{} --check-invariants incremental; {} "
                                                               "--check-invariants full",
                                                               line, line),
                                                   {file}}});
  };
  probe_of(v.scenario, v.result, "the violating execution", c.scenario_file);
  if (auto min = c.shrunk())
    probe_of(min->first.scenario, min->second.result, "the minimal execution", c.min_scenario_file);
  return std::move(c.out);
}

std::string probe(const ModeProbe& p) {
  const StrictReplay s = replay_strict(*p.scenario, p.schedule, p.max_steps);
  const std::string got = s.divergence ? outcome(s.divergence, s.result) : verdict_of(s.result);
  return got == p.expected ? "" : got;
}

}  // namespace allocsim::campaign
