// allocsim list barriers|invariants|mutants|ops|strategies.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <string_view>

#include "backend/harness/catalog.h"
#include "backend/harness/ops.h"
#include "backend/mutants.h"
#include "sim/strategies/registry.h"
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

}  // namespace

int cmd_list(int argc, char** argv) {
  if (argc != 2) throw UsageError("usage: allocsim list barriers|invariants|mutants|ops|strategies");
  const std::string what = argv[1];
  if (what == "barriers") {
    const auto& rows = harness::barrier_catalog();
    const size_t w = width(rows, [](const auto& b) { return b.name; });
    for (const auto& b : rows) std::cout << fmt::format("{:<{}}  {}\n", b.name, w, b.description);
  } else if (what == "invariants") {
    const auto& rows = harness::invariant_catalog();
    const size_t w = width(rows, [](const auto& i) { return i.name; });
    for (const auto& i : rows) std::cout << fmt::format("{:<{}}  {}\n", i.name, w, i.description);
  } else if (what == "mutants") {
    const auto& rows = backend::mutant_catalog();
    const size_t w = width(rows, [](const auto& m) { return m.name; });
    const size_t wc = width(rows, [](const auto& m) { return m.alloc_case; });
    for (const auto& m : rows)
      std::cout << fmt::format("{:<{}}  {:<{}}  {}\n", m.name, w, m.alloc_case, wc, m.description);
  } else if (what == "ops") {
    for (const auto& op : harness::op_specs())
      std::cout << op.name << (op.note ? fmt::format("  ({})", op.note) : "") << "\n";
  } else if (what == "strategies") {
    const auto& rows = sim::strategies();
    const size_t w = width(rows, [](const auto& s) { return s.name; });
    for (const auto& s : rows) std::cout << fmt::format("{:<{}}  {}\n", s.name, w, s.description);
  } else {
    throw UsageError(fmt::format("list: unknown list \"{}\"{} (barriers, invariants, mutants, ops, strategies)", what,
                                 did_you_mean(what, {"barriers", "invariants", "mutants", "ops", "strategies"})));
  }
  return kExitOk;
}

}  // namespace allocsim::cli
