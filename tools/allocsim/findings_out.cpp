// The findings diff as text, JSON and HTML (findings.h; docs/DESIGN.md §7 "Findings diff").
#include <fmt/format.h>

#include <filesystem>

#include "sim/campaign/report_html.h"
#include "tools/allocsim/findings.h"

namespace allocsim::cli {

namespace fs = std::filesystem;
using campaign::html_escape;

namespace {

constexpr FindingClass kClasses[] = {FindingClass::fresh, FindingClass::still_failing, FindingClass::rare,
                                     FindingClass::resolved};

/// "new" -> "new", "still failing" -> "still_failing": the JSON keys and CSS classes.
std::string class_key(FindingClass c) {
  std::string k = class_name(c);
  for (char& ch : k)
    if (ch == ' ') ch = '_';
  return k;
}

std::string counts_line(const FindingsDiff& d) {
  return fmt::format("{} new, {} still failing, {} rare, {} resolved", d.count(FindingClass::fresh),
                     d.count(FindingClass::still_failing), d.count(FindingClass::rare),
                     d.count(FindingClass::resolved));
}

/// `target` ("DIR/sweep.html#v3") as a link from a page in folder `page_dir`.
std::string href_from(const std::string& target, const std::string& page_dir) {
  const size_t hash = target.find('#');
  const std::string file = target.substr(0, hash), frag = hash == std::string::npos ? "" : target.substr(hash);
  std::error_code ec;
  const fs::path rel = fs::absolute(file, ec).lexically_relative(fs::absolute(page_dir.empty() ? "." : page_dir, ec));
  return (rel.empty() ? fs::path(file) : rel).generic_string() + frag;
}

const char* kCss = R"(body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
table.findings{border-collapse:collapse}table.findings td,table.findings th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}
tr.new td:first-child{background:#fdd;font-weight:bold}tr.still_failing td:first-child{background:#fec}
tr.rare td:first-child{background:#eef}tr.resolved td:first-child{background:#dfd}
section.finding{border-left:4px solid #c33;padding:.2em 1em;margin:1em 0}code{background:#f4f4f4;padding:0 .2em}
)";

}  // namespace

std::string diff_text(const FindingsDiff& d, const std::string& html_page) {
  std::string out = fmt::format("findings diff over {} nights, oldest first:", d.nights.size());
  for (size_t i = 0; i < d.nights.size(); ++i)
    out += fmt::format("\n  {}{}", d.nights[i], i + 1 == d.nights.size() ? "  (tonight)" : "");
  out += "\n" + counts_line(d) + "\n";
  for (const DiffEntry& e : d.entries) {
    std::string cls = class_name(e.cls);
    for (char& ch : cls) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    out += fmt::format("\n{}: {} (seen {} of {} nights)\n  {}\n", cls, e.finding.signature, e.nights_seen(),
                       e.seen.size(), e.finding.summary);
    if (!e.finding.replay.empty()) out += "  replay: " + e.finding.replay + "\n";
    if (e.cls != FindingClass::fresh) continue;
    if (!html_page.empty()) out += fmt::format("  html: {}#{}\n", html_page, finding_anchor(e.finding.signature));
    if (!e.finding.html.empty()) out += "  report: " + e.finding.html + "\n";
  }
  return out;
}

nlohmann::ordered_json diff_json(const FindingsDiff& d, const std::string& html_page) {
  using J = nlohmann::ordered_json;
  J counts = J::object();
  for (const FindingClass c : kClasses) counts[class_key(c)] = d.count(c);
  J findings = J::array();
  for (const DiffEntry& e : d.entries) {
    const auto or_null = [](const std::string& s) { return s.empty() ? J(nullptr) : J(s); };
    findings.push_back(
        {{"class", class_key(e.cls)},
         {"signature", e.finding.signature},
         {"source", e.finding.source},
         {"summary", e.finding.summary},
         {"replay", or_null(e.finding.replay)},
         {"html", html_page.empty() ? J(nullptr) : J(html_page + "#" + finding_anchor(e.finding.signature))},
         {"report_html", or_null(e.finding.html)},
         {"where", e.finding.where},
         {"seen", e.seen},
         {"nights_seen", e.nights_seen()}});
  }
  return {{"schema", "allocsim/findings-diff/v1"}, {"nights", d.nights}, {"counts", counts}, {"findings", findings}};
}

std::string diff_html_section(const FindingsDiff& d, const std::string& page_dir) {
  std::string h = "<section class=\"findings-diff\" id=\"findings-diff\">\n<h2>Findings: what changed</h2>\n";
  h += "<p class=\"counts\">" + html_escape(counts_line(d)) + "</p>\n<p class=\"nights\">Nights, oldest first: ";
  for (size_t i = 0; i < d.nights.size(); ++i)
    h += (i ? ", " : "") + std::string("<code>") + html_escape(d.nights[i]) + "</code>";
  h += " (the last is tonight).</p>\n";
  h += "<table class=\"findings\">\n<thead><tr><th>class</th><th>signature</th><th>nights seen</th><th>what</th>"
       "</tr></thead>\n<tbody>\n";
  for (const DiffEntry& e : d.entries) {
    const std::string sig = html_escape(e.finding.signature);
    const std::string link = e.cls == FindingClass::fresh
                                 ? fmt::format("<a href=\"#{}\">{}</a>", finding_anchor(e.finding.signature), sig)
                                 : sig;
    h += fmt::format(
        "<tr class=\"finding {}\" data-class=\"{}\" data-signature=\"{}\"><td>{}</td><td>{}</td><td>{} of {}</td>"
        "<td>{}</td></tr>\n",
        class_key(e.cls), class_key(e.cls), sig, class_name(e.cls), link, e.nights_seen(), e.seen.size(),
        html_escape(e.finding.summary));
  }
  h += "</tbody>\n</table>\n";
  for (const DiffEntry& e : d.entries) {
    if (e.cls != FindingClass::fresh) continue;
    h += fmt::format("<section class=\"finding new\" id=\"{}\" data-signature=\"{}\">\n<h3>New: {}</h3>\n<p>{}</p>\n",
                     finding_anchor(e.finding.signature), html_escape(e.finding.signature),
                     html_escape(e.finding.signature), html_escape(e.finding.summary));
    if (!e.finding.replay.empty())
      h += "<p class=\"replay\">Replay: <code>" + html_escape(e.finding.replay) + "</code></p>\n";
    if (!e.finding.html.empty())
      h += fmt::format("<p class=\"report\">Trace: <a href=\"{}\">{}</a></p>\n",
                       html_escape(href_from(e.finding.html, page_dir)), html_escape(e.finding.html));
    h += "</section>\n";
  }
  return h + "</section>\n";
}

std::string diff_html_page(const FindingsDiff& d, const std::string& page_dir) {
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<title>allocsim findings diff</title>\n<style>\n" + std::string(kCss) + "</style>\n</head>\n<body>\n";
  h += "<header>\n<h1>allocsim findings diff</h1>\n</header>\n";
  return h + diff_html_section(d, page_dir) + "</body>\n</html>\n";
}

}  // namespace allocsim::cli
