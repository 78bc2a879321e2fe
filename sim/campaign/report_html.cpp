#include "sim/campaign/report_html.h"

#include "sim/campaign/explain.h"
#include "sim/campaign/markup.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "sim/assert.h"
#include "sim/campaign/minimal_trace.h"
#include "sim/campaign/sweep_report.h"
#include "sim/campaign/trace_replay.h"
#include "sim/support/words.h"

namespace allocsim::campaign {

namespace {

// Race steps stand out (warm background, heavy border), slice steps are emphasised (blue border), the rest
// of an explained trace is dimmed. Lanes are grid columns; a lane element is `display: contents` so its
// steps sit in the page's grid rows and the DOM still groups them by actor.
constexpr const char* kCss = R"(body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1d1d1f;background:#fff}
h1{font-size:1.5em;margin:0 0 .2em}h2{font-size:1.15em;margin:0 0 .4em}
.meta{color:#555;margin:.1em 0;font-family:ui-monospace,monospace;font-size:12px}
table.scenarios{border-collapse:collapse;margin:1em 0;width:100%}
table.scenarios th,table.scenarios td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
table.scenarios th{background:#f0f0f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.met td.verdict{color:#16794a;font-weight:600}tr.unmet td.verdict,tr.error td.verdict{color:#b3261e;font-weight:700}
tr.undecided td.verdict{color:#8a6100}ul.notes{margin:0;padding-left:1.2em}
section.violation{border:1px solid #d0d0d7;border-radius:6px;padding:1em;margin:1.5em 0}
.broke-line{font-weight:600;color:#b3261e}code,pre{font-family:ui-monospace,monospace;font-size:12px}
pre{background:#f6f6f8;padding:.5em;overflow-x:auto;white-space:pre-wrap}
.explanation{background:#fffaf0;border-left:4px solid #e07b00;padding:.4em .8em;margin:.8em 0}
.no-explanation{color:#666;font-style:italic}.reversed{color:#444}
.legend span{display:inline-block;padding:1px 6px;margin-right:6px;border-radius:3px;font-size:12px}
.swimlanes{display:grid;gap:2px 6px;margin:.8em 0;align-items:start}
.lane{display:contents}.lane-head{font-weight:700;border-bottom:2px solid #444;padding:2px 4px;position:sticky;top:0;background:#fff}
.lane-bg{background:#f7f7fa;border-radius:3px}.corner{color:#666;font-size:12px;padding:2px}
.idx{color:#888;font-size:12px;text-align:right;padding:3px 4px;font-variant-numeric:tabular-nums}
.step{border:1px solid #c8c8d0;border-radius:4px;padding:2px 5px;background:#fff;font-size:12px;overflow-wrap:anywhere}
.step .point{font-weight:600;font-family:ui-monospace,monospace}.step .detail{display:block;color:#333}
.step.k-barrier .point{color:#5a3d99}.step.k-lock-wait{border-style:dashed}
.step.preempt::before{content:"* ";color:#b3261e;font-weight:700}
.step.slice,.legend-slice{border:2px solid #1f5fbf;background:#eef4ff}
.step.race,.legend-race{border:2px solid #c2410c;background:#ffe8cc;box-shadow:0 0 0 2px #fdba74}
.step.dim,.legend-dim{opacity:.38}.step.last{outline:2px dashed #b3261e;outline-offset:1px}
.broke{color:#b3261e;font-weight:700;padding:3px 4px;border-top:2px solid #b3261e}
)";

std::string attr(const std::string& name, const std::string& value) {
  return fmt::format(" {}=\"{}\"", name, html_escape(value));
}

std::string row_class(const std::string& verdict) {
  if (verdict == "met") return "met";
  if (verdict == "NOT met") return "unmet";
  if (verdict == "undecided" || verdict == "interrupted") return "undecided";  // neither met nor refuted
  return "error";
}

std::string str_or(const nlohmann::json& j, const char* key, const std::string& fallback = "") {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return fallback;
  return j[key].get<std::string>();
}

/// The well-formed part of a trace's "explanation" (the agreed shape, read leniently).
struct PageExplanation {
  bool present = false;
  std::string kind, summary;
  struct Pair {
    uint64_t first = 0, second = 0;
    std::vector<std::string> objects;
    std::string reversed;
  };
  std::vector<Pair> pairs;
  std::set<uint64_t> race, slice;
  nlohmann::json order;  // array or null
};

std::optional<uint64_t> step_index(const nlohmann::json& j, size_t steps) {
  if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0)) return std::nullopt;
  const uint64_t v = j.get<uint64_t>();
  return v < steps ? std::optional<uint64_t>(v) : std::nullopt;
}

PageExplanation read_explanation(const nlohmann::json& trace, size_t steps) {
  PageExplanation e;
  if (!trace.is_object() || !trace.contains("explanation") || !trace["explanation"].is_object()) return e;
  const nlohmann::json& x = trace["explanation"];
  e.present = true;
  e.kind = str_or(x, "kind");
  e.summary = str_or(x, "summary");
  if (x.contains("pairs") && x["pairs"].is_array())
    for (const auto& p : x["pairs"]) {
      if (!p.is_object() || !p.contains("first") || !p.contains("second")) continue;
      const auto a = step_index(p["first"], steps), b = step_index(p["second"], steps);
      if (!a || !b) continue;
      PageExplanation::Pair pair{*a, *b, {}, str_or(p, "reversed")};
      if (p.contains("objects") && p["objects"].is_array())
        for (const auto& o : p["objects"])
          if (o.is_string()) pair.objects.push_back(o.get<std::string>());
      e.race.insert(*a), e.race.insert(*b);
      e.pairs.push_back(std::move(pair));
    }
  if (x.contains("slice") && x["slice"].is_array())
    for (const auto& s : x["slice"])
      if (const auto i = step_index(s, steps)) e.slice.insert(*i);
  if (x.contains("order") && x["order"].is_array()) e.order = x["order"];
  return e;
}

struct Step {
  std::string actor, point, kind, detail;
  uint64_t occurrence = 1;
  bool preemption = false;
};

std::vector<Step> read_report_steps(const nlohmann::json& trace) {
  std::vector<Step> out;
  if (!trace.is_object() || !trace.contains("steps") || !trace["steps"].is_array()) return out;
  for (const auto& s : trace["steps"]) {
    Step st{str_or(s, "actor", "?"), str_or(s, "point", "?"), str_or(s, "kind"), str_or(s, "detail")};
    if (s.is_object() && s.contains("occurrence") && s["occurrence"].is_number_unsigned())
      st.occurrence = s["occurrence"].get<uint64_t>();
    st.preemption =
        s.is_object() && s.contains("preemption") && s["preemption"].is_boolean() && s["preemption"].get<bool>();
    out.push_back(std::move(st));
  }
  return out;
}

std::string page_step_label(const Step& s) { return fmt::format("{}:{}#{}", s.actor, s.point, s.occurrence); }

std::string step_link(size_t k, uint64_t i, const std::vector<Step>& steps) {
  return fmt::format("<a href=\"#v{}-s{}\">step {}</a> ({})", k, i, i, html_escape(page_step_label(steps[i])));
}

std::string render_explanation(const PageExplanation& e, size_t k, const std::vector<Step>& steps) {
  if (!e.present) return "<p class=\"no-explanation\">This trace carries no explanation.</p>\n";
  std::string h = "<div class=\"explanation\"" + attr("data-kind", e.kind) + ">\n";
  h += fmt::format("<p class=\"summary\"><strong>{}</strong> {}</p>\n",
                   e.kind == "sequential" ? "Sequential:"
                   : e.kind == "race"     ? "Race:"
                   : e.kind == "start"    ? "Start state:"
                   : e.kind == "world"    ? "The world's write:"
                                          : "Explanation:",
                   html_escape(e.summary));
  if (!e.pairs.empty()) {
    h += "<ol class=\"pairs\">\n";
    for (const auto& p : e.pairs) {
      std::string objects;
      for (const auto& o : p.objects) objects += (objects.empty() ? "" : ", ") + html_escape(o);
      h += fmt::format("<li class=\"pair\" data-first=\"{}\" data-second=\"{}\">{} then {}", p.first, p.second,
                       step_link(k, p.first, steps), step_link(k, p.second, steps));
      if (!objects.empty()) h += fmt::format("; both touch {}", objects);
      if (!p.reversed.empty())
        h += fmt::format("<br><span class=\"reversed\">Reversed: {}</span>", html_escape(p.reversed));
      h += "</li>\n";
    }
    h += "</ol>\n";
  }
  if (!e.slice.empty()) {
    std::string list;
    for (uint64_t i : e.slice) list += (list.empty() ? "" : ", ") + std::to_string(i);
    h += fmt::format("<p class=\"slice-line\">Causal slice: steps {} ({} of {}; the others are dimmed).</p>\n", list,
                     e.slice.size(), steps.size());
  }
  return h + "</div>\n";
}

/// The order block that pins the violation: the explanation's, else the trace's own "order" key.
std::string render_order(const PageExplanation& e, const nlohmann::json& trace) {
  const nlohmann::json& order = e.order.is_array() && !e.order.empty() ? e.order
                                : trace.contains("order")              ? trace["order"]
                                                                       : e.order;
  if (!order.is_array() || order.empty()) return "";
  std::string block = "\"order\": [";
  for (size_t i = 0; i < order.size(); ++i) block += (i ? ",\n          " : "") + order[i].dump();
  return "<p>Pinned by this order block (paste it into the scenario):</p>\n<pre class=\"order\">" +
         html_escape(block + "]") + "</pre>\n";
}

/// The lanes in order: `actors` first, then any actor only the steps name.
std::vector<std::string> lane_order(const std::vector<std::string>& actors, const std::vector<Step>& steps) {
  std::vector<std::string> lanes = actors;
  for (const auto& s : steps)
    if (std::find(lanes.begin(), lanes.end(), s.actor) == lanes.end()) lanes.push_back(s.actor);
  return lanes;
}

std::string step_classes(const PageExplanation& e, const Step& s, uint64_t i, std::optional<uint64_t> last) {
  std::string c = "step";
  if (!s.kind.empty()) c += " k-" + s.kind;
  if (s.preemption) c += " preempt";
  if (e.race.count(i)) c += " race";
  if (e.slice.count(i)) c += " slice";
  if (!e.slice.empty() && !e.slice.count(i) && !e.race.count(i)) c += " dim";
  if (last && *last == i) c += " last";
  return c;
}

std::string render_swimlanes(const HtmlViolation& v, size_t k, const std::vector<Step>& steps,
                             const PageExplanation& e) {
  const std::vector<std::string> lanes = lane_order(v.actors, steps);
  std::optional<uint64_t> last;
  if (v.trace.contains("violation") && v.trace["violation"].is_object() && v.trace["violation"].contains("step"))
    last = step_index(v.trace["violation"]["step"], steps.size());
  const size_t end_row = steps.size() + 2;  // rows: 1 = heads, 2.. = steps, then the violation
  std::string h = fmt::format(
      "<div class=\"swimlanes\" data-actors=\"{}\" data-steps=\"{}\" style=\"grid-template-columns:3.5em "
      "repeat({},minmax(11em,1fr))\">\n<div class=\"corner\" style=\"grid-column:1;grid-row:1\">step</div>\n",
      lanes.size(), steps.size(), std::max<size_t>(1, lanes.size()));
  for (size_t i = 0; i < steps.size(); ++i)
    h += fmt::format("<div class=\"idx\" style=\"grid-column:1;grid-row:{}\">{}</div>\n", i + 2, i);
  for (size_t l = 0; l < lanes.size(); ++l) {
    const size_t col = l + 2;
    h += "<div class=\"lane\"" + attr("data-actor", lanes[l]) + ">\n";
    h += fmt::format("<div class=\"lane-head\" style=\"grid-column:{};grid-row:1\">{}</div>\n", col,
                     html_escape(lanes[l]));
    h += fmt::format("<div class=\"lane-bg\" style=\"grid-column:{};grid-row:2/{}\"></div>\n", col, end_row);
    for (size_t i = 0; i < steps.size(); ++i) {
      const Step& s = steps[i];
      if (s.actor != lanes[l]) continue;
      h += fmt::format("<div class=\"{}\" id=\"v{}-s{}\" data-step=\"{}\"{}{} style=\"grid-column:{};grid-row:{}\">",
                       step_classes(e, s, i, last), k, i, i, attr("data-label", page_step_label(s)),
                       attr("title", fmt::format("step {}: {}", i, page_step_label(s))), col, i + 2);
      h += "<span class=\"point\">" + html_escape(s.point) + "</span>";
      if (s.occurrence > 1) h += fmt::format(" <span class=\"occ\">#{}</span>", s.occurrence);
      if (!s.detail.empty()) h += "<span class=\"detail\">" + html_escape(s.detail) + "</span>";
      h += "</div>\n";
    }
    h += "</div>\n";
  }
  h += fmt::format("<div class=\"broke\" style=\"grid-column:2/{};grid-row:{}\">&#10007; {}</div>\n", lanes.size() + 2,
                   end_row, html_escape(v.invariant));
  return h + "</div>\n";
}

std::string render_state(const nlohmann::json& trace) {
  if (!trace.contains("violation") || !trace["violation"].is_object()) return "";
  const std::string before = str_or(trace["violation"], "state_before"), after = str_or(trace["violation"], "state");
  if (before.empty() && after.empty()) return "";
  std::string h = "<details class=\"state\"><summary>The state the invariant saw</summary>\n";
  if (!before.empty()) h += "<p>Before the last step:</p>\n<pre>" + html_escape(before) + "</pre>\n";
  if (!after.empty()) h += "<p>After the last step:</p>\n<pre>" + html_escape(after) + "</pre>\n";
  return h + "</details>\n";
}

std::string render_violation(const HtmlViolation& v, size_t k) {
  std::string h = fmt::format("<section class=\"violation\" id=\"v{}\"{}{}>\n", k, attr("data-file", v.file),
                              attr("data-invariant", v.invariant));
  h += "<h2>" + html_escape(v.file) + "</h2>\n";
  h += "<p class=\"broke-line\">" + html_escape(v.invariant) + ": " + html_escape(v.message) + "</p>\n";
  if (!v.replay.empty()) h += "<p class=\"replay\">Replay: <code>" + html_escape(v.replay) + "</code></p>\n";
  if (!v.trace.is_object())
    return h + "<p class=\"no-trace\">No trace is available for this violation.</p>\n</section>\n";
  const std::vector<Step> steps = read_report_steps(v.trace);
  const PageExplanation e = read_explanation(v.trace, steps.size());
  std::string size = fmt::format("{}, {}", support::count_of(steps.size(), "step"),
                                 support::count_of(lane_order(v.actors, steps).size(), "actor"));
  if (v.trace.contains("shrink") && v.trace["shrink"].is_object() && v.trace["shrink"].contains("raw_steps")) {
    const nlohmann::json& raw = v.trace["shrink"]["raw_steps"];
    size += fmt::format(" (shrunk from {})", raw.is_number_unsigned() ? support::count_of(raw.get<uint64_t>(), "step")
                                                                      : raw.dump() + " steps");
  }
  h += "<p class=\"size\">" + html_escape(size) + "</p>\n";
  h += render_explanation(e, k, steps) + render_order(e, v.trace);
  h += "<p class=\"legend\">";
  if (e.present)
    h += "<span class=\"legend-race\">racing pair</span><span class=\"legend-slice\">causal slice</span><span "
         "class=\"legend-dim\">outside the slice</span>";
  h += "* preemption; dashed outline: the step after which the invariant broke</p>\n";
  h += render_swimlanes(v, k, steps, e);
  return h + render_state(v.trace) + "</section>\n";
}

std::string render_table(const HtmlPage& page) {
  std::map<std::string, size_t> section_of;  // file -> its first violation section
  for (size_t k = 0; k < page.violations.size(); ++k) section_of.emplace(page.violations[k].file, k + 1);
  std::string h =
      "<table class=\"scenarios\">\n<thead><tr><th>file</th><th>verdict</th><th>strategy</th><th>executions</th>"
      "<th>violating</th><th>violations</th><th>notes</th></tr></thead>\n<tbody>\n";
  for (const auto& r : page.rows) {
    std::string viol;
    for (const auto& [inv, n] : r.violations)
      viol += fmt::format("{}{}: {}", viol.empty() ? "" : "<br>", html_escape(inv), n);
    if (const auto it = section_of.find(r.file); it != section_of.end())
      viol += fmt::format("{}<a href=\"#v{}\">trace</a>", viol.empty() ? "" : "<br>", it->second);
    std::string notes;
    for (const auto& n : r.notes) notes += "<li>" + html_escape(n) + "</li>";
    if (!notes.empty()) notes = "<ul class=\"notes\">" + notes + "</ul>";
    h += fmt::format(
        "<tr class=\"scenario {}\"{}{}><td>{}</td><td class=\"verdict\">{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n",
        row_class(r.verdict), attr("data-file", r.file), attr("data-verdict", r.verdict), html_escape(r.file),
        html_escape(r.verdict), html_escape(r.strategy), r.executions, r.violating, viol, notes);
  }
  return h + "</tbody>\n</table>\n";
}

}  // namespace

std::string html_escape(const std::string& s) { return escape_markup(s, Markup::Html); }

std::string render_html(const HtmlPage& page) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>" + html_escape(page.title) + "</title>\n<style>\n" + kCss + "</style>\n</head>\n<body>\n";
  h += "<header>\n<h1>" + html_escape(page.title) + "</h1>\n";
  for (const auto& m : page.meta) h += "<p class=\"meta\">" + html_escape(m) + "</p>\n";
  h += "</header>\n" + render_table(page);
  if (!page.totals.empty()) h += "<p class=\"totals\">" + html_escape(page.totals) + "</p>\n";
  h += render_coverage(page.coverage);
  for (size_t k = 0; k < page.violations.size(); ++k) h += render_violation(page.violations[k], k + 1);
  return h + "</body>\n</html>\n";
}

HtmlPage html_page_of_sweep(const nlohmann::json& report) {
  HtmlPage page;
  page.title = "allocsim sweep report";
  page.meta.push_back("tool version " + str_or(report, "tool_version", "?"));
  if (report.contains("config")) page.meta.push_back("config " + report["config"].dump());
  for (const auto& s : report.value("scenarios", nlohmann::json::array())) {
    HtmlRow r;
    r.file = str_or(s, "path");
    const nlohmann::json met = s.contains("expectation") ? s["expectation"].value("met", nlohmann::json()) : nullptr;
    r.verdict = met.is_boolean() ? (met.get<bool>() ? "met" : "NOT met") : "undecided";
    r.strategy = str_or(s, "strategy");
    r.executions = s.value("executions", uint64_t{0});
    r.violating = s.value("violating_executions", uint64_t{0});
    r.violations = s.value("violations", std::map<std::string, uint64_t>{});
    if (s.contains("expectation")) r.notes = s["expectation"].value("unmet", std::vector<std::string>{});
    for (const std::string& note : s.value("notes", std::vector<std::string>{})) r.notes.push_back(note);
    page.rows.push_back(std::move(r));
  }
  for (const auto& e : report.value("errors", nlohmann::json::array()))
    page.rows.push_back(
        {str_or(e, "path"),
         "input error",
         "",
         0,
         0,
         {},
         {str_or(e, "pointer").empty() ? str_or(e, "message") : str_or(e, "pointer") + ": " + str_or(e, "message")}});
  const nlohmann::json t = report.value("totals", nlohmann::json::object());
  page.totals =
      fmt::format("{}: {} met, {} not met, {} undecided (shard), {}; {}, {} violating",
                  // Every file given (the sum of what follows); totals.scenarios counts those that loaded.
                  support::count_of(t.value("scenarios", uint64_t{0}) + t.value("input_errors", uint64_t{0}),
                                    "scenario"),
                  t.value("met", uint64_t{0}), t.value("unmet", uint64_t{0}), t.value("undecided", uint64_t{0}),
                  support::count_of(t.value("input_errors", uint64_t{0}), "input error"),
                  support::count_of(t.value("executions", uint64_t{0}), "execution"),
                  t.value("violating_executions", uint64_t{0}));
  if (report.contains("coverage")) page.coverage = report["coverage"];
  return page;
}

HtmlViolation html_violation_of_trace(const std::string& file, const Trace& t, const std::string& replay) {
  HtmlViolation v;
  v.file = file;
  if (t.violation) v.invariant = t.violation->invariant, v.message = t.violation->message;
  if (t.scenario) v.actors = t.scenario->actor_names();
  v.replay = replay;
  v.trace = nlohmann::json::parse(trace_to_text(t));
  return v;
}

Trace sweep_violation_trace(const System& system, const ScenarioPlan& plan, const FirstViolation& first,
                            const SweepConfig& config, uint64_t shrink_runs) {
  ALLOCSIM_ASSERT(plan.scenario != nullptr, "{}: a plan without a scenario has no violation", plan.path);
  const uint64_t max_steps = plan.scenario->max_steps(config.max_steps);
  const StrictReplay sr = replay_strict(*plan.scenario, first.schedule, max_steps);
  if (sr.divergence || !sr.result.violation)
    throw std::runtime_error(fmt::format("{}: the first violation's schedule did not reproduce it", plan.path));
  Trace t;
  if (shrink_runs == 0) {
    t = make_trace(plan.scenario, sr.result, state_before_last_step(*plan.scenario, sr.result, max_steps));
  } else {
    t = shrink_to_trace(system, plan.scenario, sr.result,
                        {.max_runs = shrink_runs, .max_seconds = 0, .max_steps = max_steps})
            .trace;
  }
  t.tool_version = config.tool_version;
  t.scenario_path = plan.path;
  t.scenario_digest = plan.scenario->digest();
  t.strategy = config.strategy;
  if (config.spec().caps.replays_by_seed) t.seed = config.seed, t.execution_seed = first.seed;
  t.max_steps = max_steps;
  return t;
}

std::string sweep_html(const System& system, const SweepResults& results, const std::vector<ScenarioOutcome>& outcomes,
                       const nlohmann::json& report) {
  HtmlPage page = html_page_of_sweep(report);
  for (const auto& o : outcomes) {
    if (!o.result.first || !o.plan->scenario) continue;
    const Trace t = sweep_violation_trace(system, *o.plan, *o.result.first, results.config, kHtmlShrinkRuns);
    page.violations.push_back(
        html_violation_of_trace(o.plan->path, t, replay_command(*o.plan, *o.result.first, results.config)));
  }
  return render_html(page);
}

}  // namespace allocsim::campaign
