#include "tools/allocsim/swarm_html.h"

#include <fmt/format.h>

#include <filesystem>

#include "sim/campaign/config.h"
#include "sim/campaign/report_html.h"
#include "sim/campaign/swarm_report.h"
#include "sim/support/words.h"

namespace allocsim::cli {

std::string swarm_html(const campaign::SwarmGenerator& g, const campaign::SwarmOptions& o,
                       const campaign::SwarmReport& r, const std::string& dir) {
  const nlohmann::ordered_json summary = campaign::swarm_summary(g, o, r);
  campaign::HtmlPage page;
  page.title = "allocsim swarm report";
  page.meta.push_back("tool version " + o.tool_version);
  page.meta.push_back("config " + summary["config"].dump());
  for (const campaign::SwarmFinding& f : r.findings) {
    const std::string file = (std::filesystem::path(dir) / (f.slug + ".json")).string();
    const std::string replay =
        "allocsim replay " + campaign::shell_quote((std::filesystem::path(dir) / (f.slug + ".trace.json")).string());
    campaign::HtmlRow row;
    row.file = file;
    row.verdict = "finding";
    row.strategy = f.strategy;
    row.violating = f.count;
    row.violations = {{f.invariant, f.count}};
    row.notes = {"signature: " + f.signature, "replay: " + replay};
    page.rows.push_back(std::move(row));
    campaign::HtmlViolation v;
    v.file = file;
    v.invariant = f.invariant;
    v.replay = replay;
    v.trace = nlohmann::json::parse(f.trace_text, nullptr, false);
    if (v.trace.is_discarded()) v.trace = nullptr;
    if (v.trace.is_object() && v.trace.contains("violation") && v.trace["violation"].is_object())
      v.message = v.trace["violation"].value("message", "");
    page.violations.push_back(std::move(v));
  }
  page.totals = fmt::format("{}, {}, {} with a violation, {}", support::count_of(r.scenarios, "scenario"),
                            support::count_of(r.executions, "execution"), r.violations,
                            support::count_of(r.findings.size(), "distinct finding"));
  page.coverage = summary["coverage"];
  return campaign::render_html(page);
}

}  // namespace allocsim::cli
