#include "tools/allocsim/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "sim/support/words.h"
namespace allocsim::cli {

std::string trace_table(const sim::ExecutionResult& r, const std::vector<std::string>& names) {
  // Every column as wide as its longest cell (the header included), so no kind (`lock-wait`), actor or point
  // pushes the columns after it out of line.
  size_t w_actor = 5, w_kind = 4, w_what = 5;
  for (const auto& s : r.steps) {
    w_actor = std::max(w_actor, names[s.actor].size());
    w_kind = std::max(w_kind, std::string_view(sim::to_string(s.kind)).size());
    w_what = std::max(w_what, s.what.size());
  }
  std::string out = fmt::format("  {:>5}  {:<{}}  {:<{}}  {:<{}}  {}\n", "step", "actor", w_actor, "kind", w_kind,
                                "point", w_what, "details");
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const auto& s = r.steps[i];
    if (r.order_blocked && r.order_blocked->step == i)
      out += fmt::format("  {:>5}  order-blocked here; the steps below ran out without the order\n", "--");
    std::string line = fmt::format("  {:>5}{} {:<{}}  {:<{}}  {:<{}}  {}", i, s.preemption ? "*" : " ", names[s.actor],
                                   w_actor, sim::to_string(s.kind), w_kind, s.what, w_what, s.detail);
    while (line.back() == ' ') line.pop_back();  // a step without details
    out += line + "\n";
  }
  return out;
}

std::string violation_report(const sim::ExecutionResult& r, const std::vector<std::string>& names) {
  if (!r.violation) return "no violation\n";
  std::string out = fmt::format("violation: {}\n  {}\n", r.violation->invariant, r.violation->message);
  if (r.order_blocked)
    out += fmt::format("  after the execution was order-blocked at step {} ({}) and ran out without the order\n",
                       r.order_blocked->step, r.order_blocked->message);
  if (!r.violation->state.empty()) {
    out += "state when it broke:\n";
    size_t start = 0;
    const std::string& st = r.violation->state;
    while (start < st.size()) {
      size_t end = st.find('\n', start);
      if (end == std::string::npos) end = st.size();
      out += "  " + st.substr(start, end - start) + "\n";
      start = end + 1;
    }
  }
  out += fmt::format("trace ({}, {} marked *; each step resumes the actor from the point shown):\n",
                     support::count_of(r.steps.size(), "step"), support::count_of(r.preemptions, "preemption"));
  out += trace_table(r, names);
  return out;
}

std::string outcome_table(const campaign::RunReport& report) {
  std::string out;
  for (const auto& [actor, ops] : report.outcomes) {
    for (const auto& [op, outcomes] : ops) {
      std::string line;
      for (const auto& [o, n] : outcomes) line += fmt::format("{}{} {}", line.empty() ? "" : ", ", o, n);
      out += fmt::format("  {} {}: {}\n", actor, op, line);
    }
  }
  return out;
}

}  // namespace allocsim::cli
