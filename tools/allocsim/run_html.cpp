#include "tools/allocsim/run_html.h"

#include <fmt/format.h>

#include <iostream>

#include "backend/system/system.h"
#include "backend/world/actor_symmetry.h"
#include "sim/campaign/coverage_report.h"
#include "sim/schedule.h"

namespace allocsim::cli {

namespace {

/// The run's coverage (sim/campaign/coverage_report.h).
nlohmann::ordered_json run_coverage(const campaign::RunReport& rep) {
  campaign::Reach reach;
  reach.add(rep);
  return campaign::coverage_json(harness::backend_system().coverage_universe(), reach);
}

/// The command that replays the run's first violation.
std::string first_replay(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                         const sim::Finding& f) {
  return cfg.spec().caps.replays_by_seed
             ? replay_command(c, f.seed, cfg)
             : cfg.replay_line(c.scenario, {.seed = std::nullopt,
                                            .schedule = sim::format_schedule(f.result.schedule, actor_names(sc))});
}

}  // namespace

campaign::HtmlPage run_page(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                            const campaign::RunReport& rep, const std::optional<campaign::Trace>& shown) {
  campaign::HtmlPage page;
  page.title = "allocsim run report";
  std::string mutants;
  for (const auto& m : c.flags.mutants()) mutants += " +" + m;
  page.meta.push_back(fmt::format("tool version {}", ALLOCSIM_VERSION));
  page.meta.push_back(
      fmt::format("{}: {} (strategy {}, seed {}{})", c.scenario, sc.name, cfg.strategy, cfg.seed, mutants));
  campaign::HtmlRow row;
  row.file = c.scenario;
  // An interrupted run judged only part of its budget (cmd_run.cpp says so too): neither met nor not.
  row.verdict = rep.summary.interrupted ? "interrupted" : rep.met ? "met" : "NOT met";
  row.strategy = cfg.strategy;
  row.executions = rep.summary.executions;
  row.violating = rep.summary.violating_executions;
  row.violations = {rep.summary.violations_by_invariant.begin(), rep.summary.violations_by_invariant.end()};
  row.notes = rep.unmet;
  if (rep.met && !sc.expect.pass && !rep.summary.interrupted) row.notes.push_back("the expected violation was found");
  row.notes.insert(row.notes.end(), rep.notes.begin(), rep.notes.end());
  page.rows.push_back(std::move(row));
  page.coverage = run_coverage(rep);
  if (rep.summary.first && shown)
    page.violations.push_back(
        campaign::html_violation_of_trace(c.scenario, *shown, first_replay(c, cfg, sc, *rep.summary.first)));
  return page;
}

int write_run_html(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                   const campaign::RunReport& rep, const std::optional<campaign::Trace>& shown) {
  if (c.trace.report_html.empty()) return kExitOk;
  try {
    campaign::write_file_atomically(c.trace.report_html, campaign::render_html(run_page(c, cfg, sc, rep, shown)));
  } catch (const campaign::OutputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
  std::cout << fmt::format("html report written: {}\n", c.trace.report_html);
  return kExitOk;
}

namespace {

/// An exhaustive run's reduction and what it counted (the text's "exhaustive:", "states:" and "symmetry:" lines).
/// Under symmetry the outcomes are per class: an actor's stand for its class's, so `classes` names them.
nlohmann::ordered_json exploration_json(const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                                        const campaign::RunReport& rep) {
  using J = nlohmann::ordered_json;
  J e = {{"reduction", rep.reduction}, {"exhausted", rep.exhausted}};
  if (cfg.preemption_bound) e["preemption_bound"] = *cfg.preemption_bound;
  e["abandoned_prefixes"] = rep.summary.abandoned;
  if (rep.distinct_traces) {
    e["distinct_traces"] = *rep.distinct_traces;
    e["distinct_traces_estimated"] = rep.distinct_traces_sample_level > 0;
  }
  if (const auto& s = rep.states) {
    e["states"] = {{"visited", s->states},        {"stored", s->distinct},
                   {"cut_at_visited", s->pruned}, {"sleep_blocked", s->sleep_blocked},
                   {"table_full", s->table_full}, {"collision_probability", s->collision_probability}};
    if (rep.reduction == "symmetry") {
      const harness::ActorSymmetry sym = harness::find_interchangeable(sc);
      J classes = J::array();
      for (const auto& cls : sym.classes) {
        J names = J::array();
        for (const sim::ActorId a : cls) names.push_back(sc.actors[a].name);
        classes.push_back(std::move(names));
      }
      e["symmetry"] = {{"classes", std::move(classes)},
                       {"renamed", s->renamed},
                       {"outcomes_per_class", s->symmetry},
                       {"unpaired", sym.unpaired}};
    }
  }
  return e;
}

}  // namespace

nlohmann::ordered_json run_json(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                                const campaign::RunReport& rep) {
  using J = nlohmann::ordered_json;
  J j = {{"schema", "allocsim/run-report/v1"},
         {"tool_version", ALLOCSIM_VERSION},
         {"scenario", {{"path", c.scenario}, {"name", sc.name}, {"digest", sc.digest}}},
         {"strategy", cfg.strategy}};
  if (cfg.spec().caps.seeded) j["seed"] = cfg.seed;
  j["mutants"] = c.flags.mutants();
  j["executions"] = rep.summary.executions;
  j["steps"] = rep.summary.steps;
  j["violating_executions"] = rep.summary.violating_executions;
  j["violations"] = rep.summary.violations_by_invariant;
  if (const auto& f = rep.summary.first; f && f->result.violation)
    j["first_violation"] = {{"invariant", f->result.violation->invariant},
                            {"message", f->result.violation->message},
                            {"replay", first_replay(c, cfg, sc, *f)}};
  else
    j["first_violation"] = nullptr;
  j["outcomes"] = rep.outcomes;
  j["reached"] = rep.reached;
  j["pair_coverage"] = rep.pair_coverage;
  j["interrupted"] = rep.summary.interrupted;
  j["expectation"] = {{"met", rep.summary.interrupted ? J(nullptr) : J(rep.met)}, {"unmet", rep.unmet}};
  j["notes"] = rep.notes;
  j["coverage"] = run_coverage(rep);
  if (cfg.spec().caps.exhaustive) j["exploration"] = exploration_json(cfg, sc, rep);
  return j;
}

int write_run_json(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                   const campaign::RunReport& rep) {
  if (c.trace.report_json.empty()) return kExitOk;
  try {
    campaign::write_file_atomically(c.trace.report_json, run_json(c, cfg, sc, rep).dump(2) + "\n");
  } catch (const campaign::OutputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
  std::cout << fmt::format("json report written: {}\n", c.trace.report_json);
  return kExitOk;
}

}  // namespace allocsim::cli
