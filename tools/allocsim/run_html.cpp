#include "tools/allocsim/run_html.h"

#include <fmt/format.h>

#include <iostream>

#include "sim/schedule.h"

namespace allocsim::cli {

campaign::HtmlPage run_page(const Common& c, const campaign::ExploreConfig& cfg, const harness::Scenario& sc,
                            const campaign::RunReport& rep, const std::optional<campaign::Trace>& shown) {
  campaign::HtmlPage page;
  page.title = "allocsim run report";
  std::string mutants;
  for (const auto& m : c.explore.mutants()) mutants += " +" + m;
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
  page.rows.push_back(std::move(row));
  if (rep.summary.first && shown) {
    const auto& f = *rep.summary.first;
    const std::string replay =
        cfg.spec().caps.replays_by_seed
            ? replay_command(c, f.seed, cfg)
            : cfg.replay_line(c.scenario, {.seed = std::nullopt,
                                           .schedule = sim::format_schedule(f.result.schedule, actor_names(sc))});
    page.violations.push_back(campaign::html_violation_of_trace(c.scenario, *shown, replay));
  }
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

}  // namespace allocsim::cli
