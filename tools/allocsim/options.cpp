// The command line's value parsers and its one option parser (cli.h): numbers and shards named by their flag,
// did-you-mean suggestions, Boost errors turned into UsageErrors, and flags given an empty value refused.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>
#include <vector>

#include "sim/support/json_reader.h"
#include "tools/allocsim/cli.h"

namespace allocsim::cli {

uint64_t parse_u64(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  uint64_t v = 0;
  const char* b = text.data();
  const char* e = b + text.size();
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) b += 2, base = 16;
  auto [p, ec] = std::from_chars(b, e, v, base);
  // A number too large for 64 bits is a number still: say the range, as for any other value outside it.
  if (!text.empty() && ec == std::errc::result_out_of_range && p == e)
    throw UsageError(fmt::format("{}: expected {} to {}, got {}", flag, lo, hi, text));
  if (text.empty() || ec != std::errc() || p != e)
    throw UsageError(fmt::format("{}: expected an unsigned integer, got \"{}\"", flag, text));
  if (v < lo || v > hi) throw UsageError(fmt::format("{}: expected {} to {}, got {}", flag, lo, hi, v));
  return v;
}

uint64_t parse_bytes(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi) {
  static const std::pair<std::string_view, unsigned> units[] = {{"KiB", 10}, {"MiB", 20}, {"GiB", 30}};
  std::string_view digits = text;
  unsigned shift = 0;
  for (const auto& [unit, s] : units)
    if (digits.size() > unit.size() && digits.ends_with(unit)) {
      digits.remove_suffix(unit.size()), shift = s;
      break;  // one unit: "1MiBKiB" is no size
    }
  uint64_t v = 0;
  const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || v > (hi >> shift))
    throw UsageError(
        fmt::format("{}: expected a size in bytes, or with KiB, MiB or GiB (e.g. 1GiB), up to {} "
                    "bytes, got \"{}\"",
                    flag, hi, text));
  v <<= shift;
  if (v < lo) throw UsageError(fmt::format("{}: expected at least {} bytes, got {}", flag, lo, v));
  return v;
}

Shard parse_shard(const std::string& text) {
  const auto bad = [&] {
    return UsageError(fmt::format("--shard: expected K/N, shard K of N with 1 <= K <= N <= {} (e.g. 2/4), got \"{}\"",
                                  kMaxShards, text));
  };
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw bad();
  const auto number = [&](std::string_view digits) {
    uint64_t v = 0;
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size()) throw bad();
    return v;
  };
  const uint64_t k = number(std::string_view(text).substr(0, slash));
  const uint64_t n = number(std::string_view(text).substr(slash + 1));
  if (k < 1 || n > kMaxShards || k > n) throw bad();
  return Shard{uint32_t(k - 1), uint32_t(n)};
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& names, std::string_view prefix) {
  std::vector<const char*> candidates;
  for (const std::string& n : names) candidates.push_back(n.c_str());
  const char* best = support::closest(word, candidates);
  return best ? fmt::format(" (did you mean {}{}?)", prefix, best) : "";
}

UsageError usage_error(const po::error& e, const po::options_description& visible) {
  const auto* unknown = dynamic_cast<const po::unknown_option*>(&e);
  if (!unknown) return UsageError(e.what());
  std::string word = unknown->get_option_name();
  word.erase(0, word.find_first_not_of('-'));
  word = word.substr(0, word.find('='));
  std::vector<std::string> names;
  for (const auto& option : visible.options())
    if (!option->long_name().empty()) names.push_back(option->long_name());
  // Abbreviations are not accepted (kOptionStyle): one that starts exactly one flag suggests that flag (before
  // a merely close name: "--sched" means --schedule, not --seed).
  std::vector<std::string> longer;
  for (const std::string& n : names)
    if (!word.empty() && n.starts_with(word)) longer.push_back(n);
  std::string hint =
      longer.size() == 1 ? fmt::format(" (did you mean --{}?)", longer[0]) : did_you_mean(word, names, "--");
  // Flags of another command that users give this one: the command that takes it, with its synopsis.
  static constexpr std::pair<const char*, const char*> kElsewhere[] = {
      {"schedule", "replay FILE --schedule S"},
  };
  for (const auto& [flag, synopsis] : kElsewhere)
    if (hint.empty() && word == flag) hint = fmt::format(" (--{} belongs to `allocsim {}`)", flag, synopsis);
  return UsageError(fmt::format("{}{}", e.what(), hint));
}

namespace {

/// The first positional argument of argv past the `pos.max_total_count()` that `pos` takes ("" if none).
std::string extra_positional(int argc, char** argv, const po::options_description& all,
                             const po::positional_options_description& pos) {
  // Parsed again without `pos`: the positional arguments are the options with a position, in order.
  const po::parsed_options parsed =
      po::command_line_parser(argc, argv).options(all).style(kOptionStyle).allow_unregistered().run();
  unsigned seen = 0;
  for (const po::option& o : parsed.options)
    if (o.position_key != -1 && seen++ == pos.max_total_count()) return o.value.empty() ? "" : o.value[0];
  return "";
}

/// A flag given an empty value (`--trace-out ""`, often an unset shell variable) is refused: taken as not given,
/// it would silently drop what the user asked to be written. No flag takes an empty value.
void reject_empty_values(const po::variables_map& vm, const po::options_description& all,
                         const po::positional_options_description& pos) {
  for (const auto& [name, value] : vm) {
    if (value.defaulted()) continue;
    const po::option_description* option = all.find_nothrow(name, false);
    if (option != nullptr && option->semantic()->max_tokens() == 0) continue;  // a switch (--help) holds ""
    if (name == "order") continue;  // add_order_flags says more: what an order looks like
    bool positional = false;
    for (unsigned i = 0; i < std::min(pos.max_total_count(), 8u) && !positional; ++i)
      positional = pos.name_for_position(i) == name;
    if (positional) continue;  // an empty SCENARIO or TRACE is the command's own error ("missing SCENARIO")
    bool empty = false;
    if (const auto* text = boost::any_cast<std::string>(&value.value())) empty = text->empty();
    if (const auto* list = boost::any_cast<std::vector<std::string>>(&value.value()))
      empty = std::any_of(list->begin(), list->end(), [](const std::string& v) { return v.empty(); });
    if (empty) throw UsageError(fmt::format("--{}: empty value (give one, or leave the flag out)", name));
  }
}

}  // namespace

namespace {

std::vector<std::string>& command_inputs_() {
  static std::vector<std::string> inputs;
  return inputs;
}

}  // namespace

const std::vector<std::string>& command_inputs() { return command_inputs_(); }

std::vector<std::pair<std::string, std::string>>& checked_outputs() {
  static std::vector<std::pair<std::string, std::string>> outputs;
  return outputs;
}

po::variables_map parse_options(int argc, char** argv, const po::options_description& visible,
                                const po::options_description& hidden, const po::positional_options_description& pos,
                                std::string_view usage) {
  po::options_description all;
  all.add(visible).add(hidden);
  po::variables_map vm;
  try {
    const po::parsed_options parsed =
        po::command_line_parser(argc, argv).options(all).positional(pos).style(kOptionStyle).run();
    std::vector<std::string>& inputs = command_inputs_();
    inputs.clear();
    checked_outputs().clear();
    for (const po::option& o : parsed.options)
      if (o.position_key >= 0) inputs.insert(inputs.end(), o.value.begin(), o.value.end());
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::too_many_positional_options_error&) {
    // Boost's own message names neither the argument nor what the command takes.
    throw UsageError(fmt::format("unexpected argument \"{}\"{}", extra_positional(argc, argv, all, pos),
                                 usage.empty() ? "" : fmt::format(" (usage: {})", usage)));
  } catch (const po::error& e) {
    throw usage_error(e, visible);
  }
  reject_empty_values(vm, all, pos);
  return vm;
}

po::variables_map parse_options(int argc, char** argv, const po::options_description& visible,
                                const po::options_description& hidden, const char* positional, int max,
                                std::string_view usage) {
  po::positional_options_description pos;
  pos.add(positional, max);
  return parse_options(argc, argv, visible, hidden, pos, usage);
}

}  // namespace allocsim::cli
