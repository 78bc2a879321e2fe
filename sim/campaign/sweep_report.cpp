#include "sim/campaign/sweep_report.h"

#include "sim/campaign/junit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "sim/schedule.h"
#include "sim/strategies/pct.h"
#include "sim/support/json_reader.h"
#include "sim/support/words.h"

namespace allocsim::campaign {

namespace {

constexpr const char* kReportSchema = "allocsim/sweep-report/v1";
constexpr const char* kPctKey = "pct";  // a scenario's calibration (k, n, d, bounds): a JSON key

nlohmann::json scenario_json(const SweepResults& res, const ScenarioOutcome& o) {
  const ScenarioPlan& plan = *o.plan;
  const Subject& sc = *plan.scenario;
  const SweepConfig& cfg = res.config;
  const UnitResult& r = o.result;
  const sim::StrategyCaps caps = cfg.spec().caps;
  const bool tree = caps.exhaustive;
  nlohmann::json j;
  j["path"] = plan.path;
  j["name"] = sc.name();
  j["digest"] = sc.digest();
  j["strategy"] = cfg.strategy;
  if (tree) {
    j["reduction"] = cfg.validate().reduction;
    j["preemption_bound"] = cfg.preemption_bound ? nlohmann::json(*cfg.preemption_bound) : nlohmann::json(nullptr);
  }
  j["work_units"] = plan.units.size();
  j["plan"] = plan.plan_digest;
  j["executions"] = r.executions;
  j["steps"] = r.steps;
  j["violating_executions"] = r.violating;
  j["violations"] = r.by_invariant;
  if (r.order_blocked) j["order_blocked_executions"] = r.order_blocked;  // only under a scenario's `order`
  if (r.abandoned) j["abandoned_prefixes"] = r.abandoned;                // the dpor reduction: sleep-set blocked
  if (tree) {
    j["distinct_traces"] = r.traces.distinct();
    if (!r.traces.exact()) j["distinct_traces_estimated"] = true;  // a hash sample's estimate (sim/trace_sample.h)
    j["redundancy"] = fmt::format("{:.2f}", double(r.executions) / double(std::max<uint64_t>(1, r.traces.distinct())));
  }
  if (caps.calibrated) {
    const double p = sim::pct_hit_probability(sc.actor_names().size(), plan.pct_steps, cfg.pct_depth);
    j[kPctKey] = {{"steps", plan.pct_steps},
                  {"actors", sc.actor_names().size()},
                  {"depth", cfg.pct_depth},
                  {"per_execution", fmt::format("{:.3g}", p)},
                  {"miss", fmt::format("{:.3g}", sim::pct_miss_probability(p, r.executions))}};
  }
  j["pair_coverage"] = r.pairs.size();
  // --check-determinism only; the first divergence is the first of expectation.unmet.
  if (r.rechecked) j["determinism"] = {{"rechecked", r.rechecked}, {"divergent", r.divergent}};
  if (r.first) {
    j["first_violation"] = {{"invariant", r.first->invariant},
                            {"message", r.first->message},
                            {"schedule", sim::format_schedule(r.first->schedule, sc.actor_names())},
                            {"replay", replay_command(plan, *r.first, cfg)}};
    if (caps.replays_by_seed) j["first_violation"]["seed"] = r.first->seed;
  } else {
    j["first_violation"] = nullptr;
  }
  if (tree) j["exhausted"] = r.exhausted && r.complete && o.units_in_report == plan.units.size();
  j["complete"] = r.complete && o.units_in_report == plan.units.size();
  j["outcomes"] = r.outcomes;
  nlohmann::json reached = nlohmann::json::array();
  for (const auto& [b, n] : r.barrier_hits) reached.push_back(b);
  j["reached"] = reached;
  if (o.corpus) j["corpus"] = corpus_json(*o.corpus);
  j["expectation"] = {{"met", o.met ? nlohmann::json(*o.met) : nlohmann::json(nullptr)}, {"unmet", o.unmet}};
  j["notes"] = plan.notes;
  return j;
}

}  // namespace

std::string replay_command(const ScenarioPlan& plan, const FirstViolation& first, const SweepConfig& cfg) {
  campaign::ReplayTarget target;
  if (cfg.spec().caps.replays_by_seed)
    target.seed = first.seed;
  else
    target.schedule = sim::format_schedule(first.schedule, plan.scenario->actor_names());
  return cfg.replay_line(plan.path, target);
}

nlohmann::json sweep_report_json(const SweepResults& res, const std::vector<ScenarioOutcome>& outcomes) {
  nlohmann::json j;
  j["schema"] = kReportSchema;
  j["tool_version"] = res.config.tool_version;
  j["config"] = config_json(res.config);
  j["scenarios"] = nlohmann::json::array();
  uint64_t met = 0, unmet = 0, undecided = 0, executions = 0, violating = 0;
  for (const auto& o : outcomes) {
    j["scenarios"].push_back(scenario_json(res, o));
    (o.met ? (*o.met ? met : unmet) : undecided) += 1;
    executions += o.result.executions;
    violating += o.result.violating;
  }
  j["errors"] = nlohmann::json::array();
  for (const auto& p : res.plans)
    if (p.error)
      j["errors"].push_back({{"path", p.path}, {"pointer", p.error->pointer()}, {"message", p.error->message()}});
  // `files` is every file given; `scenarios` those that loaded (the rest are `input_errors`).
  j["totals"] = {{"files", outcomes.size() + j["errors"].size()},
                 {"scenarios", outcomes.size()},
                 {"met", met},
                 {"unmet", unmet},
                 {"undecided", undecided},
                 {"input_errors", j["errors"].size()},
                 {"executions", executions},
                 {"violating_executions", violating}};
  if (res.config.shard_count > 1) {
    nlohmann::json units = nlohmann::json::array();
    for (size_t p = 0; p < res.plans.size(); ++p)
      for (const auto& [u, r] : res.units[p])
        units.push_back({{"path", res.plans[p].path}, {"unit", u}, {"result", unit_to_json(r)}});
    j["shards"] = {{"shard", fmt::format("{}/{}", res.config.shard_index + 1, res.config.shard_count)},
                   {"units", units}};
  }
  return j;
}

std::string junit_xml(const SweepResults& res, const std::vector<ScenarioOutcome>& outcomes) {
  std::vector<JUnitCase> cases;
  for (const auto& o : outcomes) {
    const ScenarioPlan& plan = *o.plan;
    if (!o.met) {
      cases.push_back(JUnitCase::skipped("allocsim.sweep", plan.path,
                                         "partial shard: merge the shard reports for the "
                                         "verdict"));
    } else if (!*o.met) {
      std::string body;
      for (const auto& u : o.unmet) body += "- " + u + "\n";
      cases.push_back(JUnitCase::failure("allocsim.sweep", plan.path, "expectation",
                                         o.unmet.empty() ? "expectation not met" : o.unmet.front(), body));
    } else {
      cases.push_back(JUnitCase::pass("allocsim.sweep", plan.path));
    }
    std::string out = fmt::format("{}: {}, {} violating", plan.scenario->name(),
                                  support::count_of(o.result.executions, "execution"), o.result.violating);
    if (o.result.first)
      out += fmt::format("\nfirst violation: {}: {}\nreplay: {}", o.result.first->invariant, o.result.first->message,
                         replay_command(plan, *o.result.first, res.config));
    cases.back().system_out = std::move(out);
  }
  for (const auto& p : res.plans)
    if (p.error)
      cases.push_back(JUnitCase::error("allocsim.sweep", p.path, "scenario", p.error->message(), p.error->what()));
  std::string name = "allocsim sweep (" + res.config.strategy;
  if (const std::string reduction = res.config.validate().reduction; !reduction.empty()) name += ", " + reduction;
  if (res.config.shard_count > 1)
    name += fmt::format(", shard {}/{}", res.config.shard_index + 1, res.config.shard_count);
  name += ")";
  return campaign::junit_xml("allocsim sweep", name, cases);
}

int sweep_exit_code(const SweepResults& res, const std::vector<ScenarioOutcome>& outcomes) {
  for (const auto& p : res.plans)
    if (p.error) return 2;
  for (const auto& o : outcomes)
    if (o.result.divergent) return 4;  // as run --check-determinism: nondeterminism voids the verdicts
  for (const auto& o : outcomes)
    if (o.met && !*o.met) return 1;
  return 0;
}

namespace {

SweepConfig config_from_json(const nlohmann::json& c, const std::string& version) {
  SweepConfig cfg;
  cfg.tool_version = version;
  cfg.read_json(c);
  try {
    cfg.validate();
  } catch (const campaign::ConfigError& e) {
    throw SweepInputError(fmt::format("/config: {}", e.what()));
  }
  return cfg;
}

}  // namespace

nlohmann::json read_report(const std::string& path) {
  try {
    return support::read_strict_json(path, {size_t{1} << 30, 64, "reports"});
  } catch (const support::InputError& e) {
    throw SweepInputError(e.reworded("not a valid report: " + e.message()));
  }
}

namespace {

using Reports = std::vector<std::pair<std::string, nlohmann::json>>;

SweepInputError shard_error(const std::string& file, const std::string& ptr, const std::string& msg) {
  return SweepInputError(support::located(file, ptr, msg));
}

/// Checks that `reports` are shard reports of one sweep, each shard 1..N exactly once; returns N.
uint32_t check_shards(const Reports& reports) {
  const auto& fail = shard_error;
  const auto& [first_name, first] = reports.front();
  std::set<uint32_t> seen_shards;
  uint32_t n = 0;
  for (const auto& [name, j] : reports) {
    try {
      if (!j.is_object() || j.value("schema", "") != kReportSchema)
        throw fail(name, "/schema", fmt::format("expected \"{}\"", kReportSchema));
      if (!j.contains("shards") || !j["shards"].contains("shard"))
        throw fail(name, "/shards",
                   "not a shard report: only a sweep with --shard K/N and N > 1 writes one (a sweep without "
                   "--shard, or with --shard 1/1, is already the whole report; there is nothing to merge)");
      for (const char* key : {"tool_version", "config", "errors"})
        if (j.at(key) != first.at(key)) {
          // The config names its first differing flag (both values); the others are small.
          const ConfigDifference d = std::string_view(key) == "config"
                                         ? config_difference(j.at(key), first.at(key))
                                         : ConfigDifference{"", j.at(key).dump(), first.at(key).dump()};
          throw fail(name, std::string("/") + key + (d.key.empty() ? "" : "/" + d.key),
                     fmt::format("differs from {} ({} vs {}): the reports come from different sweeps", first_name, d.a,
                                 d.b));
        }
      const std::string shard = j["shards"]["shard"].get<std::string>();
      unsigned k = 0, of = 0;
      if (std::sscanf(shard.c_str(), "%u/%u", &k, &of) != 2 || k < 1 || k > of)
        throw fail(name, "/shards/shard", fmt::format("bad shard \"{}\"", shard));
      if (n == 0) n = of;
      if (of != n)
        throw fail(name, "/shards/shard", fmt::format("shard {} of {}, but {} is a shard of {}", k, of, first_name, n));
      if (!seen_shards.insert(k).second)
        throw fail(name, "/shards/shard", fmt::format("shard {}/{} is given twice", k, n));
    } catch (const nlohmann::json::exception& e) {
      throw fail(name, "", fmt::format("malformed report: {}", e.what()));
    }
  }
  if (seen_shards.size() != n) {
    std::string missing;
    for (uint32_t k = 1; k <= n; ++k)
      if (!seen_shards.count(k)) missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", k, n);
    throw SweepInputError(fmt::format("shard(s) {} missing: give all {} shard reports", missing, n));
  }
  return n;
}

/// The plans of the merged sweep: the reports' bad files, and the union of their scenario lists (which must
/// agree on every scenario they share), each file re-read and checked against its digest. Sorted by path.
std::vector<ScenarioPlan> merged_plans(const System& system, const Reports& reports) {
  const auto& fail = shard_error;
  std::vector<ScenarioPlan> plans;
  const nlohmann::json& first = reports.front().second;
  // The scenario list: the union of the shards' lists, which must agree on every scenario they share.
  std::map<std::string, nlohmann::json> entries;
  for (const auto& [name, j] : reports)
    for (const auto& s : j.at("scenarios")) {
      const std::string path = s.at("path").get<std::string>();
      auto [it, fresh] = entries.emplace(path, s);
      for (const char* key : {"digest", "work_units", "plan"})
        if (!fresh && it->second.at(key) != s.at(key))
          throw fail(name, "/scenarios", fmt::format("scenario {}: {} differs from another shard's", path, key));
      // The compile's notes (absent in reports written before them): every shard compiled the same scenario.
      if (!fresh && it->second.value("notes", nlohmann::json::array()) != s.value("notes", nlohmann::json::array()))
        throw fail(name, "/scenarios", fmt::format("scenario {}: notes differs from another shard's", path));
    }
  for (const auto& e : first.at("errors")) {
    ScenarioPlan p;
    p.path = e.at("path").get<std::string>();
    // The report keeps a pointer "" both for the document root and for an error about the file itself (it
    // cannot be read, is not JSON); the second is the common one, so "" is read back as it.
    const std::string pointer = e.at("pointer").get<std::string>(), message = e.at("message").get<std::string>();
    p.error = pointer.empty() ? support::InputError::about_file(p.path, message)
                              : support::InputError(p.path, pointer, message);
    plans.push_back(std::move(p));
  }
  for (const auto& [path, s] : entries) {
    ScenarioPlan p;
    p.path = path;
    p.scenario = system.load(path);
    if (p.scenario->digest() != s.at("digest").get<std::string>())
      throw SweepInputError(fmt::format("scenario {} changed since the sweep (digest now {}, report has {})", path,
                                        p.scenario->digest(), s.at("digest").get<std::string>()));
    p.units.resize(s.at("work_units").get<size_t>());
    p.plan_digest = s.at("plan").get<std::string>();
    p.notes = s.value("notes", std::vector<std::string>{});
    if (s.contains(kPctKey)) p.pct_steps = s.at(kPctKey).at("steps").get<uint64_t>();
    plans.push_back(std::move(p));
  }
  std::sort(plans.begin(), plans.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  return plans;
}

/// Every shard's unit results into res.units: each unit of each plan exactly once.
void merge_units(const Reports& reports, SweepResults& res) {
  const auto& fail = shard_error;
  for (const auto& [name, j] : reports)
    for (const auto& u : j.at("shards").at("units")) {
      const std::string path = u.at("path").get<std::string>();
      const uint64_t unit = u.at("unit").get<uint64_t>();
      size_t p = 0;
      while (p < res.plans.size() && res.plans[p].path != path) ++p;
      if (p == res.plans.size() || unit >= res.plans[p].units.size())
        throw fail(name, "/shards/units", fmt::format("unit {} of {} is not in any scenario's plan", unit, path));
      if (res.units[p].count(unit))
        throw fail(name, "/shards/units", fmt::format("unit {} of {} appears in two shards", unit, path));
      res.units[p][unit] = unit_from_json(u.at("result"), name);
    }
  for (size_t p = 0; p < res.plans.size(); ++p)
    if (res.units[p].size() != res.plans[p].units.size())
      throw SweepInputError(fmt::format("scenario {}: {} of {} work units found in the reports", res.plans[p].path,
                                        res.units[p].size(), res.plans[p].units.size()));
}

}  // namespace

SweepResults merge_reports(const System& system, const Reports& reports) {
  if (reports.empty()) throw SweepInputError("no reports given");
  const nlohmann::json& first = reports.front().second;
  check_shards(reports);
  SweepResults res;
  try {
    res.config = config_from_json(first.at("config"), first.at("tool_version").get<std::string>());
    res.plans = merged_plans(system, reports);
    res.units.resize(res.plans.size());
    merge_units(reports, res);
  } catch (const nlohmann::json::exception& e) {
    throw SweepInputError(fmt::format("malformed report: {}", e.what()));
  }
  return res;
}

}  // namespace allocsim::campaign
