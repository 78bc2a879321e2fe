// The one divergence type: where a run parted ways with what it was held to (a trace file being replayed,
// a schedule given with `replay --schedule`, or the first run of an execution under --check-determinism).
//
// Shapes: `step` is the index of the first step that differs (the shorter run's length when one ends
// early; a choice inside a step belongs to that step). `label` says where for a person ("flowB
// owner.read.after #1", "the end", "step 12"). `expected` is what the reference has there, `actual` what
// happened instead. `runnable` names the actors that could run at that point, when the engine said (a
// strict replay asked for an actor that could not run); empty otherwise.
// Determinism: a pure value; nothing here reads addresses, time or hash order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace allocsim::sim {

struct Divergence {
  uint64_t step = 0;
  std::string label;
  std::string expected;
  std::string actual;
  std::vector<std::string> runnable;

  /// "LABEL: EXPECTED\n  ACTUAL", then " (runnable: a, b)" when `runnable` is known.
  std::string to_string() const;
};

}  // namespace allocsim::sim
