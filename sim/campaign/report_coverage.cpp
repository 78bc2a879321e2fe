// The coverage section of the HTML report (report_html.h, HtmlPage::coverage; docs/DESIGN.md §7 "Coverage").
#include <fmt/format.h>

#include <string_view>

#include "sim/campaign/report_html.h"

namespace allocsim::campaign {

namespace {

/// The names of list `key` of a dimension, those that are strings.
std::vector<std::string> dimension_names(const nlohmann::json& dim, const char* key) {
  std::vector<std::string> out;
  // A swarm's "features" counts what was reached: {"drawn": {name: scenarios}, "never": [...]}.
  if (std::string_view(key) == "reached" && dim.is_object() && dim.contains("drawn") && dim["drawn"].is_object()) {
    for (const auto& [name, n] : dim["drawn"].items()) out.push_back(name);
    return out;
  }
  if (!dim.is_object() || !dim.contains(key) || !dim[key].is_array()) return out;
  for (const auto& n : dim[key])
    if (n.is_string()) out.push_back(n.get<std::string>());
  return out;
}

}  // namespace

std::string render_coverage(const nlohmann::json& coverage) {
  if (!coverage.is_object()) return "";
  std::string h =
      "<section class=\"coverage\" id=\"coverage\">\n<h2>Coverage: what these executions never reached</h2>\n"
      "<table class=\"coverage\">\n<thead><tr><th>what</th><th>reached</th><th>never reached</th></tr></thead>\n"
      "<tbody>\n";
  for (const auto& [dimension, value] : coverage.items()) {
    const std::vector<std::string> reached = dimension_names(value, "reached"), never = dimension_names(value, "never");
    std::string list;
    for (const std::string& n : never) list += "<li class=\"never\">" + html_escape(n) + "</li>";
    h += fmt::format("<tr data-dimension=\"{}\"><td>{}</td><td class=\"num\">{} of {}</td><td>{}</td></tr>\n",
                     html_escape(dimension), html_escape(dimension), reached.size(), reached.size() + never.size(),
                     never.empty() ? std::string("none") : "<ul class=\"never\">" + list + "</ul>");
  }
  return h + "</tbody>\n</table>\n</section>\n";
}

}  // namespace allocsim::campaign
