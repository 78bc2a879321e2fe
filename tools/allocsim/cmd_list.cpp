// allocsim list barriers|invariants|mutants|ops|strategies.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "backend/invariants/invariant_table.h"
#include "backend/model/barriers.h"
#include "backend/model/mutants.h"
#include "backend/scenario/conditional_ops.h"
#include "backend/scenario/op_syntax.h"
#include "sim/strategies/strategy_table.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/report.h"

namespace allocsim::cli {

namespace {

/// The width of a name column: the longest name, so no row's description starts out of line.
template <class Rows, class Name>
size_t width(const Rows& rows, Name name) {
  size_t w = 0;
  for (const auto& r : rows) w = std::max(w, std::string_view(name(r)).size());
  return w;
}

void list_barriers() {
  const auto& rows = backend::barrier_table();
  const size_t w = width(rows, [](const auto& b) { return b.name; });
  for (const auto& b : rows) std::cout << fmt::format("{:<{}}  {}\n", b.name, w, b.description);
}

void list_invariants() {
  const auto& rows = harness::invariant_table();
  const size_t w = width(rows, [](const auto& i) { return i.name; });
  for (const auto& i : rows) std::cout << fmt::format("{:<{}}  {}\n", i.name, w, i.description);
}

void list_mutants() {
  const auto& rows = backend::mutant_table();
  const size_t w = width(rows, [](const auto& m) { return m.name; });
  const size_t wc = width(rows, [](const auto& m) { return m.alloc_case; });
  for (const auto& m : rows)
    std::cout << fmt::format("{:<{}}  {:<{}}  {}\n", m.name, w, m.alloc_case, wc, m.description);
}

/// Each op with the keys it takes (its own, then the modifiers every op or a reserve takes) and the outcomes it
/// records: what a scenario can write, from the op table itself (op_syntax.h, conditional_ops.h).
void list_ops() {
  const auto& rows = harness::op_syntax_rows();
  const size_t w = width(rows, [](const auto& op) { return op.name; });
  for (const auto& op : rows) {
    std::vector<std::string_view> keys;
    for (const char* k : op.keys)
      if (std::string_view(k) != "op") keys.emplace_back(k);
    for (const char* k : harness::modifier_keys(op.kind)) keys.emplace_back(k);
    std::cout << fmt::format("{:<{}}  keys: {}; outcomes: {}{}\n", op.name, w, fmt::join(keys, ", "),
                             fmt::join(op.outcomes, ", "), op.note ? fmt::format("  ({})", op.note) : "");
  }
  // The modifiers' outcomes (conditional_ops.h, outcome_vocabulary): what expect.actors may pin besides the above.
  std::cout << "modifiers: an op with `when` may also record skipped; an op with `behind` records issued (or, with "
               "`when`, skipped) itself, and its background actor ACTOR.behindK (K: the op's index in ACTOR's script) "
               "records the op's outcome, or skipped when the op was not issued\n";
}

void list_strategies() {
  const auto& rows = sim::strategies();
  const size_t w = width(rows, [](const auto& s) { return s.name; });
  for (const auto& s : rows) std::cout << fmt::format("{:<{}}  {}\n", s.name, w, s.description);
}

/// The lists `allocsim list` prints: a row each, in the order --help shows them.
struct ListKind {
  const char* name;
  const char* description;
  void (*print)();
};
constexpr ListKind kLists[] = {
    {"barriers", "the backend's barrier names, where a scheduler may preempt and a fault may fire", list_barriers},
    {"invariants", "the invariants checked after every step (or at quiescence)", list_invariants},
    {"mutants", "the backend's mutants, with the ALLOC case each breaks", list_mutants},
    {"ops", "the script ops a scenario's actors run", list_ops},
    {"strategies", "the exploration strategies --strategy names", list_strategies},
};

std::string list_usage() {
  std::string names;
  for (const ListKind& k : kLists) names += (names.empty() ? "" : "|") + std::string(k.name);
  return "allocsim list " + names;
}

}  // namespace

int cmd_list(int argc, char** argv) {
  std::vector<std::string> names;
  for (const ListKind& k : kLists) names.emplace_back(k.name);
  if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h")) {
    std::cout << "usage: " << list_usage() << "\n\n";
    for (const ListKind& k : kLists) std::cout << fmt::format("  {:<12}{}\n", k.name, k.description);
    return kExitOk;
  }
  if (argc < 2) throw UsageError(fmt::format("list: which list? (usage: {})", list_usage()));
  if (argc > 2) throw UsageError(fmt::format("unexpected argument \"{}\" (usage: {})", argv[2], list_usage()));
  const std::string what = argv[1];
  for (const ListKind& k : kLists)
    if (what == k.name) {
      k.print();
      return kExitOk;
    }
  throw UsageError(fmt::format("list: unknown list \"{}\"{} ({})", what, did_you_mean(what, names),
                               fmt::format("{}", fmt::join(names, ", "))));
}

}  // namespace allocsim::cli
