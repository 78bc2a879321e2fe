// The HTML page writer (sim/campaign/report_html.h): escaping, determinism, the structure a browser test and a
// reader rely on (sections, lanes, steps and their classes), and a lenient reading of the explanation.
#include "sim/campaign/report_html.h"

#include <catch2/catch.hpp>

#include <string>

namespace {

using allocsim::campaign::html_escape;
using allocsim::campaign::html_page_of_sweep;
using allocsim::campaign::HtmlPage;
using allocsim::campaign::HtmlViolation;
using allocsim::campaign::render_html;
using nlohmann::json;

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

json step(const std::string& actor, const std::string& point, const std::string& detail, bool preemption = false) {
  return {{"actor", actor}, {"point", point},   {"occurrence", 1},
          {"kind", "call"}, {"detail", detail}, {"preemption", preemption}};
}

/// Three steps over two actors; the last one broke "inv".
json trace_doc(const std::string& odd_actor = "flowB") {
  return {{"schema", "allocsim/trace/v1"},
          {"steps", json::array({step("flowA", "reserve", "node=n1"), step(odd_actor, "release", "x<y", true),
                                 step("flowA", "observe", "")})},
          {"violation",
           {{"invariant", "inv"}, {"message", "m"}, {"step", 2}, {"state", "after"}, {"state_before", "before"}}}};
}

std::string page_with(const json& trace, const std::vector<std::string>& actors = {"flowA", "flowB"}) {
  HtmlPage p;
  p.title = "allocsim run report";
  p.rows.push_back({"s.json", "NOT met", "random", 10, 1, {{"inv", 1}}, {"expected no violation"}});
  p.violations.push_back(HtmlViolation{"s.json", "inv", "m", "allocsim replay s.json --seed 1", actors, trace});
  return render_html(p);
}

}  // namespace

TEST_CASE("report_html: html_escape replaces the five special characters and nothing else", "[html]") {
  CHECK(html_escape("a<b&c\"d'e>f") == "a&lt;b&amp;c&quot;d&#39;e&gt;f");
  CHECK(html_escape("flowA:owner.read.after#1 ü") == "flowA:owner.read.after#1 ü");
  CHECK(html_escape("") == "");
}

TEST_CASE("report_html: actor names and details are escaped in attributes and text", "[html]") {
  json t = trace_doc("<&\"b");
  t["steps"][1]["detail"] = "<script>alert(1)</script>";
  const std::string h = page_with(t, {"flowA", "<&\"b"});
  CHECK(count(h, "<div class=\"lane\" data-actor=\"&lt;&amp;&quot;b\">") == 1);
  CHECK(count(h, "data-label=\"&lt;&amp;&quot;b:release#1\"") == 1);
  CHECK(count(h, "&lt;script&gt;alert(1)&lt;/script&gt;") == 1);
  CHECK(count(h, "<script") == 0);
  CHECK(count(h, "<&\"b") == 0);
}

TEST_CASE("report_html: the page is the same bytes every time and holds no resource link", "[html]") {
  const std::string a = page_with(trace_doc()), b = page_with(trace_doc());
  CHECK(a == b);
  CHECK(a.starts_with("<!DOCTYPE html>\n"));
  CHECK(a.ends_with("</html>\n"));
  CHECK(count(a, "src=") == 0);
  CHECK(count(a, "http") == 0);
  CHECK(count(a, "<link") == 0);
}

TEST_CASE("report_html: one section per violation, one lane per actor, each step in its actor's lane", "[html]") {
  const std::string h = page_with(trace_doc());
  CHECK(count(h, "<section class=\"violation\"") == 1);
  CHECK(count(h, "<section class=\"violation\" id=\"v1\" data-file=\"s.json\" data-invariant=\"inv\">") == 1);
  CHECK(count(h, "<div class=\"lane\" ") == 2);
  CHECK(count(h, "<div class=\"swimlanes\" data-actors=\"2\" data-steps=\"3\"") == 1);
  // No explanation: nothing highlighted or dimmed; the step after which it broke is outlined.
  CHECK(count(h, "This trace carries no explanation.") == 1);
  CHECK(count(h, "<div class=\"step k-call\" id=\"v1-s0\" data-step=\"0\" data-label=\"flowA:reserve#1\"") == 1);
  CHECK(count(h, "<div class=\"step k-call preempt\" id=\"v1-s1\" data-step=\"1\"") == 1);
  CHECK(count(h, "<div class=\"step k-call last\" id=\"v1-s2\" data-step=\"2\"") == 1);
  CHECK(count(h, "style=\"grid-column:3;grid-row:3\"><span class=\"point\">release</span>") == 1);  // flowB's lane
  // The table row links to the section.
  CHECK(count(h, "<tr class=\"scenario unmet\" data-file=\"s.json\" data-verdict=\"NOT met\">") == 1);
  CHECK(count(h, "<a href=\"#v1\">trace</a>") == 1);
}

TEST_CASE("report_html: racing pairs are highlighted, the slice emphasised, the rest dimmed", "[html]") {
  json t = trace_doc();
  t["explanation"] = {{"kind", "race"},
                      {"summary", "flowB released before flowA observed"},
                      {"pairs",
                       json::array(
                           {{{"first", 1}, {"second", 2}, {"objects", {"claim c1"}}, {"reversed", "no violation"}}})},
                      {"slice", {1, 2}},
                      {"order", json::array({json::array({"flowB:release#1", "flowA:observe#1"})})}};
  const std::string h = page_with(t);
  CHECK(count(h, "<div class=\"explanation\" data-kind=\"race\">") == 1);
  CHECK(count(h, "<strong>Race:</strong> flowB released before flowA observed") == 1);
  CHECK(count(h, "<div class=\"step k-call dim\" id=\"v1-s0\"") == 1);
  CHECK(count(h, "<div class=\"step k-call preempt race slice\" id=\"v1-s1\"") == 1);
  CHECK(count(h, "<div class=\"step k-call race slice last\" id=\"v1-s2\"") == 1);
  CHECK(count(h, "<li class=\"pair\" data-first=\"1\" data-second=\"2\"><a href=\"#v1-s1\">step 1</a>") == 1);
  CHECK(count(h, "both touch claim c1") == 1);
  CHECK(count(h, "Reversed: no violation") == 1);
  CHECK(count(h, "Causal slice: steps 1, 2 (2 of 3; the others are dimmed).") == 1);
  CHECK(count(h,
              "<pre class=\"order\">&quot;order&quot;: "
              "[[&quot;flowB:release#1&quot;,&quot;flowA:observe#1&quot;]]</pre>") == 1);
}

TEST_CASE("report_html: a malformed explanation is rendered as far as it is well-formed", "[html]") {
  json t = trace_doc();
  t["explanation"] = {{"kind", 7},
                      {"pairs", json::array({{{"first", 0}, {"second", 99}}, "x", {{"first", -1}}})},
                      {"slice", {"a", 5, 0}}};
  const std::string h = page_with(t);
  CHECK(count(h, "<div class=\"explanation\" data-kind=\"\">") == 1);
  CHECK(count(h, " race") == 0);  // no pair survived
  CHECK(count(h, "<li class=\"pair\"") == 0);
  CHECK(count(h, "Causal slice: steps 0 (1 of 3;") == 1);
  CHECK(count(h, "<div class=\"step k-call slice\" id=\"v1-s0\"") == 1);
  CHECK(count(h, "<div class=\"step k-call preempt dim\" id=\"v1-s1\"") == 1);
}

TEST_CASE("report_html: the trace's own order block is shown when the explanation has none", "[html]") {
  json t = trace_doc();
  t["order"] = json::array({json::array({"flowA:reserve#1", "flowB:release#1"})});
  const std::string h = page_with(t);
  CHECK(count(h,
              "<pre class=\"order\">&quot;order&quot;: "
              "[[&quot;flowA:reserve#1&quot;,&quot;flowB:release#1&quot;]]</pre>") == 1);
  CHECK(count(h, "This trace carries no explanation.") == 1);
}

TEST_CASE("report_html: a violation without a trace says so", "[html]") {
  const std::string h = page_with(nullptr);
  CHECK(count(h, "<p class=\"no-trace\">No trace is available for this violation.</p>") == 1);
  CHECK(count(h, "class=\"lane\"") == 0);
}

TEST_CASE("report_html: the sweep page's rows, verdicts and totals come from the JSON report", "[html]") {
  const json report = {{"tool_version", "9.9"},
                       {"config", {{"strategy", "dfs"}}},
                       {"scenarios",
                        json::array({{{"path", "a.json"},
                                      {"strategy", "dfs"},
                                      {"executions", 4},
                                      {"violating_executions", 0},
                                      {"violations", json::object()},
                                      {"expectation", {{"met", true}, {"unmet", json::array()}}}},
                                     {{"path", "b.json"},
                                      {"strategy", "dfs"},
                                      {"executions", 5},
                                      {"violating_executions", 2},
                                      {"violations", {{"inv", 2}}},
                                      {"expectation", {{"met", false}, {"unmet", {"no violation expected"}}}}},
                                     {{"path", "c.json"}, {"expectation", {{"met", nullptr}}}}})},
                       {"errors", json::array({{{"path", "d.json"}, {"pointer", "/actors"}, {"message", "missing"}}})},
                       {"totals",
                        {{"scenarios", 3},  // loaded: the input error is not among them
                         {"met", 1},
                         {"unmet", 1},
                         {"undecided", 1},
                         {"input_errors", 1},
                         {"executions", 9},
                         {"violating_executions", 2}}}};
  const HtmlPage p = html_page_of_sweep(report);
  REQUIRE(p.rows.size() == 4);
  CHECK(p.rows[0].verdict == "met");
  CHECK(p.rows[1].verdict == "NOT met");
  CHECK(p.rows[1].violations == std::map<std::string, uint64_t>{{"inv", 2}});
  CHECK(p.rows[1].notes == std::vector<std::string>{"no violation expected"});
  CHECK(p.rows[2].verdict == "undecided");
  CHECK(p.rows[3].verdict == "input error");
  CHECK(p.rows[3].notes == std::vector<std::string>{"/actors: missing"});
  CHECK(p.totals == "4 scenarios: 1 met, 1 not met, 1 undecided (shard), 1 input error; 9 executions, 2 violating");
  CHECK(p.meta == std::vector<std::string>{"tool version 9.9", "config {\"strategy\":\"dfs\"}"});
  const std::string h = render_html(p);
  CHECK(count(h, "<tr class=\"scenario ") == 4);
  CHECK(count(h, "<tr class=\"scenario error\" data-file=\"d.json\" data-verdict=\"input error\">") == 1);
  CHECK(count(h, "<section class=\"violation\"") == 0);
}
