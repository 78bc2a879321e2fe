// allocsim list barriers|invariants|mutants|ops|strategies.
#include <fmt/format.h>

#include <iostream>

#include "backend/harness/catalog.h"
#include "backend/harness/ops.h"
#include "backend/mutants.h"
#include "sim/strategies/registry.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/report.h"

namespace allocsim::cli {

int cmd_list(int argc, char** argv) {
  if (argc != 2) throw UsageError("usage: allocsim list barriers|invariants|mutants|ops|strategies");
  const std::string what = argv[1];
  if (what == "barriers") {
    for (const auto& b : harness::barrier_catalog()) std::cout << fmt::format("{:<22} {}\n", b.name, b.description);
  } else if (what == "invariants") {
    for (const auto& i : harness::invariant_catalog()) std::cout << fmt::format("{:<33} {}\n", i.name, i.description);
  } else if (what == "mutants") {
    for (const auto& m : backend::mutant_catalog())
      std::cout << fmt::format("{:<30} {:<10} {}\n", m.name, m.alloc_case, m.description);
  } else if (what == "ops") {
    for (const auto& op : harness::op_specs())
      std::cout << op.name << (op.note ? fmt::format("  ({})", op.note) : "") << "\n";
  } else if (what == "strategies") {
    for (const auto& s : sim::strategies()) std::cout << fmt::format("{:<10} {}\n", s.name, s.description);
  } else {
    throw UsageError(fmt::format("list: unknown list \"{}\" (barriers, invariants, mutants, ops, strategies)", what));
  }
  return kExitOk;
}

}  // namespace allocsim::cli
