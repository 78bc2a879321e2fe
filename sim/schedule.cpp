#include "sim/schedule.h"

#include <fmt/format.h>

#include <charconv>

namespace allocsim::sim {

namespace {

constexpr std::string_view kPrefix = "v1:";
constexpr uint64_t kMaxChoices = 10'000'000;

std::string item_text(const Choice& c, const std::vector<std::string>& names) {
  return c.kind == Choice::Actor ? names.at(c.value) : fmt::format("#{}", c.value);
}

uint64_t number(std::string_view s, std::string_view item, const char* what) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size())
    throw ScheduleError(
        fmt::format("schedule item \"{}\": expected {} as a decimal number, got \"{}\"", item, what, s));
  return v;
}

}  // namespace

std::string format_choice(Choice c) { return fmt::format("{}{}", c.kind == Choice::Actor ? 'a' : 'd', c.value); }

Choice parse_choice(const std::string& t) {
  uint64_t v = 0;
  if (t.size() >= 2 && (t[0] == 'a' || t[0] == 'd')) {
    auto [p, ec] = std::from_chars(t.data() + 1, t.data() + t.size(), v);
    if (ec == std::errc() && p == t.data() + t.size()) return {t[0] == 'a' ? Choice::Actor : Choice::Draw, v};
  }
  throw std::invalid_argument(fmt::format("bad choice \"{}\" (expected a<actor> or d<value>)", t));
}

std::string format_schedule(std::span<const Choice> schedule, const std::vector<std::string>& names) {
  std::string out(kPrefix);
  for (size_t i = 0; i < schedule.size();) {
    size_t j = i + 1;
    while (j < schedule.size() && schedule[j] == schedule[i]) ++j;  // a run of equal choices
    if (i > 0) out += ',';
    out += item_text(schedule[i], names);
    if (j - i > 1) out += fmt::format("*{}", j - i);
    i = j;
  }
  return out;
}

std::vector<Choice> parse_schedule(std::string_view text, const std::vector<std::string>& names) {
  if (!text.starts_with(kPrefix)) {
    const size_t colon = text.find(':');
    throw ScheduleError(
        colon == std::string_view::npos || colon > 8
            ? fmt::format("expected a schedule string starting with \"v1:\", got \"{}\"", text.substr(0, 32))
            : fmt::format("unknown schedule version \"{}\" (this allocsim reads \"v1:\")", text.substr(0, colon + 1)));
  }
  text.remove_prefix(kPrefix.size());
  std::vector<Choice> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (item.empty()) throw ScheduleError("empty schedule item (two commas in a row, or a trailing comma)");
    if (comma != std::string_view::npos && text.empty()) throw ScheduleError("trailing comma in schedule string");
    const size_t star = item.find('*');
    const std::string_view head = item.substr(0, star);
    uint64_t count = 1;
    if (star != std::string_view::npos) {
      count = number(item.substr(star + 1), item, "a repeat count");
      if (count == 0) throw ScheduleError(fmt::format("schedule item \"{}\": a repeat count must be at least 1", item));
    }
    Choice c{Choice::Actor, 0};
    if (head.starts_with('#')) {
      c = {Choice::Draw, number(head.substr(1), item, "a draw value")};
    } else if (head.starts_with('@')) {
      c.value = number(head.substr(1), item, "an actor index");
      if (c.value >= names.size())
        throw ScheduleError(
            fmt::format("schedule item \"{}\": actor index {} is out of range (the scenario has {} "
                        "actors)",
                        item, c.value, names.size()));
    } else {
      size_t i = 0;
      while (i < names.size() && names[i] != head) ++i;
      if (i == names.size()) {
        std::string known;
        for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
        throw ScheduleError(
            fmt::format("schedule item \"{}\": no actor named \"{}\" (the scenario has {})", item, head, known));
      }
      c.value = i;
    }
    if (out.size() + count > kMaxChoices)
      throw ScheduleError(fmt::format("schedule string expands to more than {} choices", kMaxChoices));
    out.insert(out.end(), count, c);
  }
  return out;
}

}  // namespace allocsim::sim
