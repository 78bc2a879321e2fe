#include "tools/allocsim/sweep_cli.h"

#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "backend/system/system.h"
#include "sim/campaign/coverage_report.h"
#include "sim/campaign/report_html.h"
#include "sim/campaign/sweep_report.h"
#include "sim/campaign/trace_file.h"
#include "sim/support/words.h"
#include "tools/allocsim/cli.h"

namespace allocsim::cli {

void check_outputs(const SweepOutputs& out) {
  check_output_dir("--report-json", out.report_json);
  check_output_dir("--junit", out.junit);
  check_output_dir("--report-html", out.report_html);
}

int finish_sweep(const campaign::SweepResults& res, const SweepOutputs& out, const nlohmann::json& shards) {
  const auto outs = campaign::outcomes(res);
  for (const auto& o : outs) {
    const auto& r = o.result;
    const char* verdict = !o.met ? "PART" : *o.met ? "ok  " : "FAIL";
    std::string line = fmt::format("{} {}: {}", verdict, o.plan->path, support::count_of(r.executions, "execution"));
    if (res.config.spec().caps.exhaustive)
      line += fmt::format(", {}{}{}, {}", r.traces.exact() ? "" : "about ",
                          support::count_of(r.traces.distinct(), "distinct trace"),
                          r.abandoned ? fmt::format(" ({} sleep-set blocked, abandoned)",
                                                    support::count_of(r.abandoned, "prefix", "prefixes"))
                                      : "",
                          r.exhausted && r.complete && o.units_in_report == o.plan->units.size() ? "exhausted"
                                                                                                 : "NOT exhausted");
    line += fmt::format(", {} violating", r.violating);
    for (const auto& [inv, n] : r.by_invariant) line += fmt::format(" [{}: {}]", inv, n);
    std::cout << line << "\n";
    for (const auto& note : o.plan->notes) std::cout << "     note: " << note << "\n";
    if (r.rechecked && !r.divergent)
      std::cout << fmt::format("     determinism: {} re-run from their recorded schedules, identical\n",
                               support::count_of(r.rechecked, "execution"));
    if (o.corpus)  // replayed before exploring: reported first
      std::cout << "     " << campaign::replay_summary(*o.corpus) << "\n"
                << campaign::replay_lines(*o.corpus, "       ");
    if (r.first)
      std::cout << fmt::format("     first violation: {}: {}\n     replay: {}\n", r.first->invariant, r.first->message,
                               campaign::replay_command(*o.plan, *r.first, res.config));
    for (const auto& u : o.unmet) std::cout << "     - " << u << "\n";
  }
  for (const auto& p : res.plans)
    if (p.error) std::cout << "ERR  " << p.error->what() << "\n";
  nlohmann::json report = campaign::sweep_report_json(res, outs);
  if (!shards.is_null()) report["shards"] = shards;
  // The whole sweep's "never reached" lists (sim/campaign/coverage_report.h): a key of its own, computed from the unit results.
  campaign::Reach reach;
  for (const auto& o : outs) {
    for (const auto& [b, n] : o.result.barrier_hits) reach.barriers.insert(b);
    reach.pairs.insert(o.result.pairs.begin(), o.result.pairs.end());
    reach.add_outcomes(o.result.outcomes);
    reach.faults.insert(o.result.faults.begin(), o.result.faults.end());
  }
  report["coverage"] = campaign::coverage_json(harness::backend_system().coverage_universe(), reach);
  const auto& t = report["totals"];
  // Undecided scenarios exist only in a shard (the other shards decide them): the count is shown only then.
  // The first count is of every file given, so that it is the sum of the ones after it (totals.scenarios
  // counts only those that loaded).
  const uint64_t undecided = t["undecided"].get<uint64_t>();
  const uint64_t files = t["scenarios"].get<uint64_t>() + t["input_errors"].get<uint64_t>();
  std::cout << fmt::format("{}: {} met, {} not met, {}{}; {}\n", support::count_of(files, "scenario"),
                           t["met"].get<uint64_t>(), t["unmet"].get<uint64_t>(),
                           undecided ? fmt::format("{} undecided (shard), ", undecided) : std::string(),
                           support::count_of(t["input_errors"].get<uint64_t>(), "input error"),
                           support::count_of(t["executions"].get<uint64_t>(), "execution"));
  // Rendered before any file is written, so a failure leaves no report half-written.
  const std::string html =
      out.report_html.empty() ? "" : campaign::sweep_html(harness::backend_system(), res, outs, report);
  try {
    if (!out.report_json.empty()) campaign::write_file_atomically(out.report_json, report.dump(2) + "\n");
    if (!out.junit.empty()) campaign::write_file_atomically(out.junit, campaign::junit_xml(res, outs));
    if (!out.report_html.empty()) campaign::write_file_atomically(out.report_html, html);
  } catch (const campaign::OutputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
  return campaign::sweep_exit_code(res, outs);
}

}  // namespace allocsim::cli
