#include "tools/allocsim/trace_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sim/campaign/shrink.h"
#include "sim/campaign/trace_replay.h"
#include "sim/support/words.h"

namespace allocsim::cli {

namespace {

std::string indent(const std::string& text, const char* prefix) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += prefix + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

using support::count_of;

std::string sizes(uint64_t steps, uint64_t actors, uint64_t ops, uint64_t preemptions) {
  return fmt::format("{}, {}, {}, {}", count_of(steps, "step"), count_of(actors, "actor"), count_of(ops, "op"),
                     count_of(preemptions, "preemption"));
}

std::string label(const campaign::TraceStep& s) { return fmt::format("{}:{}#{}", s.actor, s.point, s.occurrence); }

std::string step_line(const campaign::Trace& t, uint64_t i) {
  if (i >= t.steps.size()) return fmt::format("step {} (beyond the trace)", i);
  const auto& s = t.steps[i];
  return fmt::format("step {} {}{}{}", i, label(s), s.detail.empty() ? "" : "  ", s.detail);
}

/// The causal slice with the steps outside it folded.
std::string slice_text(const campaign::Trace& t, const std::vector<uint64_t>& slice) {
  std::string out;
  uint64_t next = 0;
  const auto fold = [&](uint64_t upto) {
    if (upto > next) out += fmt::format("    \u2026 {} not in the slice \u2026\n", count_of(upto - next, "step"));
  };
  for (uint64_t i : slice) {
    fold(i);
    out += "    " + step_line(t, i) + "\n";
    next = i + 1;
  }
  fold(t.steps.size());
  return out;
}

}  // namespace

std::string explanation_text(const campaign::Trace& t) {
  if (!t.explanation) return "";
  const campaign::Explanation& e = *t.explanation;
  std::string out = fmt::format("why ({}): {}\n", e.kind, e.summary);
  if (!e.pairs.empty()) {
    out += "racing pairs (run the other way round, the violation goes away):\n";
    for (const auto& p : e.pairs) {
      out += fmt::format("  {}\n    then {}\n", step_line(t, p.first), step_line(t, p.second));
      std::string objects;
      for (const auto& o : p.objects) objects += (objects.empty() ? "" : ", ") + o;
      out += fmt::format("    on {}; reversed: {}\n", objects, p.reversed);
    }
  }
  out += fmt::format("causal slice ({} of {}; the violation depends on these):\n", e.slice.size(),
                     count_of(t.steps.size(), "step"));
  out += slice_text(t, e.slice);
  return out + order_block_text(e.order, e.pin, e.needs, "", !e.pairs.empty());
}

std::string order_block_text(const std::vector<std::pair<std::string, std::string>>& block, const std::string& pin,
                             const std::string& needs, const std::string& file, bool pairs) {
  nlohmann::ordered_json order = nlohmann::ordered_json::array();
  for (const auto& [x, y] : block) order.push_back({x, y});
  const std::string into = file.empty() ? "the scenario" : file;
  if (pin == "minimised" && block.empty())
    return fmt::format("order block: none needed (every schedule of {} violates it)\n", into);
  if (pin == "pairs" || pin == "minimised")
    return fmt::format(
        "order block ({}; added to the `order` of {}, it reproduces the violation in the first execution under "
        "every strategy):\n  \"order\": {}\n",
        pin == "pairs" ? "the racing pairs"
        : pairs        ? "the racing pairs alone do not pin it: the execution's full pin, minimised"
                       : "the execution's full pin, minimised",
        into, order.dump());
  if (pin == "none")
    return block.empty() ? fmt::format("order block: none pins this violation in {}: {}\n", into, needs)
                         : fmt::format(
                               "order block (the racing pairs; they do not pin this violation in {}: {}):\n"
                               "  \"order\": {}\n",
                               into, needs, order.dump());
  if (block.empty()) return "";
  return fmt::format("order block (pins this race in a scenario):\n  \"order\": {}\n", order.dump());
}

std::string actor_table(const campaign::Trace& t) {
  const std::vector<std::string> actors = t.scenario->actor_names();
  std::vector<size_t> width(actors.size());
  for (size_t a = 0; a < actors.size(); ++a) width[a] = actors[a].size();
  const auto column = [&](const std::string& name) {
    size_t a = 0;
    while (a < actors.size() && actors[a] != name) ++a;
    return a;
  };
  for (const auto& s : t.steps) {
    const size_t a = column(s.actor);
    if (a < actors.size()) width[a] = std::max(width[a], s.point.size());
  }
  std::string out = fmt::format("  {:>5} ", "step");
  for (size_t a = 0; a < actors.size(); ++a) out += fmt::format(" {:<{}} ", actors[a], width[a]);
  out += " details\n";
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const auto& s = t.steps[i];
    std::string line = fmt::format("  {:>5}{}", i, s.preemption ? "*" : " ");
    const size_t col = column(s.actor);
    for (size_t a = 0; a < actors.size(); ++a) line += fmt::format(" {:<{}} ", a == col ? s.point : "", width[a]);
    line += " " + s.detail;
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string explain_trace(const campaign::Trace& t) {
  std::string out;
  if (t.violation)
    out += fmt::format("violation: {}\n  {}\n", t.violation->invariant, t.violation->message);
  else
    out += "no violation\n";
  const uint64_t ops = t.scenario->op_count();
  if (t.shrink) {
    const auto& s = *t.shrink;
    out += fmt::format("minimal trace: {} (shrunk from {} in {}{}{})\n",
                       sizes(t.steps.size(), t.scenario->actor_names().size(), ops, t.preemptions),
                       sizes(s.raw_steps, s.raw_actors, s.raw_ops, s.raw_preemptions), count_of(s.runs, "run"),
                       s.preemptions_minimal ? "; no schedule of it has fewer preemptions" : "",
                       s.budget_exhausted ? (s.out_of_time ? "; the time budget ran out, so it may not be minimal"
                                                           : "; the run budget ran out, so it may not be minimal")
                                          : "");
  } else {
    out += fmt::format("trace: {} (not shrunk)\n",
                       sizes(t.steps.size(), t.scenario->actor_names().size(), ops, t.preemptions));
  }
  out += explanation_text(t);
  out += "  (each step resumes its actor from the point shown; * marks a preemption)\n";
  out += actor_table(t);
  if (t.violation && !t.violation->state.empty()) {
    out += "state the invariant saw (the fields that broke it):\n";
    if (!t.steps.empty()) {
      out += fmt::format("  before step {} ({}):\n", t.violation->step,
                         campaign::step_label(t.steps[std::min<size_t>(t.violation->step, t.steps.size() - 1)]));
      out += indent(t.violation->state_before, "    ");
      out += "  after it:\n";
    }
    out += indent(t.violation->state, "    ");
  }
  out += fmt::format("fingerprint: {}\n", t.fingerprint);
  return out;
}

std::string perfetto_json(const campaign::Trace& t) {
  using Json = nlohmann::ordered_json;
  Json events = Json::array();
  const std::vector<std::string> actors = t.scenario->actor_names();
  const auto tid = [&](const std::string& name) {
    for (size_t a = 0; a < actors.size(); ++a)
      if (actors[a] == name) return static_cast<int>(a + 1);
    return 0;
  };
  events.push_back({{"ph", "M"},
                    {"name", "process_name"},
                    {"pid", 1},
                    {"tid", 0},
                    {"args", {{"name", "allocsim: " + t.scenario->name()}}}});
  for (size_t a = 0; a < actors.size(); ++a) {
    const int id = static_cast<int>(a + 1);
    events.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", 1}, {"tid", id}, {"args", {{"name", actors[a]}}}});
    events.push_back(
        {{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", 1}, {"tid", id}, {"args", {{"sort_index", id}}}});
  }
  for (size_t i = 0; i < t.steps.size(); ++i) {
    const auto& s = t.steps[i];
    events.push_back(
        {{"ph", "X"},
         {"name", s.point},
         {"cat", s.kind},
         {"pid", 1},
         {"tid", tid(s.actor)},
         {"ts", i},
         {"dur", 1},
         {"args",
          {{"step", i}, {"label", campaign::step_label(s)}, {"detail", s.detail}, {"preemption", s.preemption}}}});
  }
  if (t.violation) {
    const int id = t.violation->actor.empty() ? 0 : tid(t.violation->actor);
    events.push_back({{"ph", "i"},
                      {"name", "violation: " + t.violation->invariant},
                      {"cat", "violation"},
                      {"pid", 1},
                      {"tid", id},
                      {"ts", t.steps.size()},
                      {"s", id == 0 ? "g" : "t"},
                      {"args", {{"message", t.violation->message}, {"state", t.violation->state}}}});
  }
  Json doc = {{"displayTimeUnit", "ms"}, {"traceEvents", std::move(events)}};
  return doc.dump(1) + "\n";
}

}  // namespace allocsim::cli
