// The one JUnit writer (sim/campaign/junit.h): counts from the cases' verdicts, one element per verdict, the
// optional <system-out>, escaping of every text, and the cases in the order given.
#include "sim/campaign/junit.h"

#include <catch2/catch.hpp>

using allocsim::campaign::junit_xml;
using allocsim::campaign::JUnitCase;

TEST_CASE("junit: every verdict renders its element, counted once in both suite elements", "[junit]") {
  std::vector<JUnitCase> cases;
  cases.push_back(JUnitCase::pass("c.pass", "a.json"));
  cases.back().system_out = "ok";
  cases.push_back(JUnitCase::failure("c.fail", "b.json", "expectation", "not met", "- one\n- two\n"));
  cases.push_back(JUnitCase::error("c.err", "c.json", "scenario", "/actors/0: bad", "c.json: /actors/0: bad"));
  cases.push_back(JUnitCase::skipped("c.skip", "d.json", "undecided"));
  cases.back().system_out = "later";
  CHECK(junit_xml("suites", "one suite", cases) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"suites\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\">\n"
        "  <testsuite name=\"one suite\" tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\">\n"
        "    <testcase classname=\"c.pass\" name=\"a.json\">\n"
        "      <system-out>ok</system-out>\n"
        "    </testcase>\n"
        "    <testcase classname=\"c.fail\" name=\"b.json\">\n"
        "      <failure type=\"expectation\" message=\"not met\">- one\n- two\n</failure>\n"
        "    </testcase>\n"
        "    <testcase classname=\"c.err\" name=\"c.json\">\n"
        "      <error type=\"scenario\" message=\"/actors/0: bad\">c.json: /actors/0: bad</error>\n"
        "    </testcase>\n"
        "    <testcase classname=\"c.skip\" name=\"d.json\">\n"
        "      <skipped message=\"undecided\"/>\n"
        "      <system-out>later</system-out>\n"
        "    </testcase>\n"
        "  </testsuite>\n"
        "</testsuites>\n");
}

TEST_CASE("junit: every text is escaped, names and attributes included", "[junit]") {
  std::vector<JUnitCase> cases{JUnitCase::failure("c<1>", "bad <&>\".json", "t'", "m&", "d<\x01>")};
  cases[0].system_out = "o\"";
  const std::string xml = junit_xml("s&", "s<", cases);
  CHECK_THAT(xml,
             Catch::Contains("<testsuites name=\"s&amp;\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">"));
  CHECK_THAT(xml, Catch::Contains("<testsuite name=\"s&lt;\" "));
  CHECK_THAT(xml, Catch::Contains("<testcase classname=\"c&lt;1&gt;\" name=\"bad &lt;&amp;&gt;&quot;.json\">"));
  CHECK_THAT(xml, Catch::Contains("<failure type=\"t&apos;\" message=\"m&amp;\">d&lt;\\x01&gt;</failure>"));
  CHECK_THAT(xml, Catch::Contains("<system-out>o&quot;</system-out>"));
}

TEST_CASE("junit: no cases is an empty suite with zero counts", "[junit]") {
  CHECK(junit_xml("s", "t", {}) ==
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"s\" tests=\"0\" failures=\"0\" errors=\"0\" "
        "skipped=\"0\">\n  <testsuite name=\"t\" tests=\"0\" failures=\"0\" errors=\"0\" skipped=\"0\">\n  "
        "</testsuite>\n</testsuites>\n");
}
