// JUnit XML (junit.h).
#include "sim/campaign/junit.h"

#include <fmt/format.h>

#include "sim/campaign/markup.h"

namespace allocsim::campaign {
namespace {

std::string esc(const std::string& s) { return escape_markup(s, Markup::Xml); }

std::string render(const JUnitCase& c) {
  std::string out = fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", esc(c.classname), esc(c.name));
  switch (c.verdict) {
    case JUnitCase::Verdict::Pass:
      break;
    case JUnitCase::Verdict::Skipped:
      out += fmt::format("      <skipped message=\"{}\"/>\n", esc(c.message));
      break;
    case JUnitCase::Verdict::Failure:
      out += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", esc(c.type), esc(c.message),
                         esc(c.detail));
      break;
    case JUnitCase::Verdict::Error:
      out += fmt::format("      <error type=\"{}\" message=\"{}\">{}</error>\n", esc(c.type), esc(c.message),
                         esc(c.detail));
      break;
  }
  if (c.system_out) out += fmt::format("      <system-out>{}</system-out>\n", esc(*c.system_out));
  return out + "    </testcase>\n";
}

}  // namespace

std::string junit_xml(const std::string& suites, const std::string& suite, const std::vector<JUnitCase>& cases) {
  size_t failures = 0, errors = 0, skipped = 0;
  std::string body;
  for (const JUnitCase& c : cases) {
    failures += c.verdict == JUnitCase::Verdict::Failure;
    errors += c.verdict == JUnitCase::Verdict::Error;
    skipped += c.verdict == JUnitCase::Verdict::Skipped;
    body += render(c);
  }
  const std::string counts =
      fmt::format("tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"", cases.size(), failures, errors, skipped);
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{}\" {}>\n  <testsuite name=\"{}\" {}>\n{}  "
      "</testsuite>\n</testsuites>\n",
      esc(suites), counts, esc(suite), counts, body);
}

}  // namespace allocsim::campaign
