// JUnit XML, the one writer for every campaign report that CI reads as test results (`sweep`/`merge --junit`,
// `swarm --junit`): the caller lists its test cases, this file counts and renders them.
//
// Contract:
// - junit_xml(suites, suite, cases) is a pure function of its arguments (no timings, no host): the
//   document is <testsuites name=SUITES> holding one <testsuite name=SUITE>, both carrying the same counts
//   (tests = cases.size(); failures, errors and skipped = the cases with that verdict), and one <testcase>
//   per case in the order given.
// - A case renders as: its <skipped message/>, <failure type message>DETAIL</failure> or
//   <error type message>DETAIL</error> (none for Pass), then <system-out>OUT</system-out> when it has one.
// - Every text (names, messages, details, output) is escaped by escape_markup (markup.h, Markup::Xml), so
//   any scenario path or invariant message gives a document that parses.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace allocsim::campaign {

struct JUnitCase {
  enum class Verdict { Pass, Failure, Error, Skipped };
  std::string classname;
  std::string name;
  Verdict verdict = Verdict::Pass;
  std::string type;     ///< Failure and Error: the element's `type`
  std::string message;  ///< Failure, Error and Skipped: the element's `message`
  std::string detail;   ///< Failure and Error: the element's text
  std::optional<std::string> system_out;

  static JUnitCase pass(std::string classname, std::string name) {
    return with(std::move(classname), std::move(name), Verdict::Pass, "", "", "");
  }
  static JUnitCase skipped(std::string classname, std::string name, std::string message) {
    return with(std::move(classname), std::move(name), Verdict::Skipped, "", std::move(message), "");
  }
  static JUnitCase failure(std::string classname, std::string name, std::string type, std::string message,
                           std::string detail) {
    return with(std::move(classname), std::move(name), Verdict::Failure, std::move(type), std::move(message),
                std::move(detail));
  }
  static JUnitCase error(std::string classname, std::string name, std::string type, std::string message,
                         std::string detail) {
    return with(std::move(classname), std::move(name), Verdict::Error, std::move(type), std::move(message),
                std::move(detail));
  }

 private:
  static JUnitCase with(std::string classname, std::string name, Verdict verdict, std::string type, std::string message,
                        std::string detail) {
    JUnitCase c;
    c.classname = std::move(classname), c.name = std::move(name), c.verdict = verdict;
    c.type = std::move(type), c.message = std::move(message), c.detail = std::move(detail);
    return c;
  }
};

std::string junit_xml(const std::string& suites, const std::string& suite, const std::vector<JUnitCase>& cases);

}  // namespace allocsim::campaign
