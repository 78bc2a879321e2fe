// The top-level `faults` section of a scenario file (FaultSpec in scenario.h; docs/DESIGN.md §4 "Faults"): which
// barriers may fault with which actions, which actors may, how many faults an execution may fire, and the read and
// geometry failures armed from the start. Read by the loader (scenario_load.cpp) through its ScenarioReader.
#pragma once

#include <string>

#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {

/// The `faults` object `v` at `ptr`, its actor names checked against `s`'s actors (loaded already) and its nodes
/// against /nodes. Throws support::InputError naming the JSON pointer of what is wrong.
FaultSpec read_faults_section(const ScenarioReader& r, const support::Json& v, const std::string& ptr,
                              const Scenario& s);

}  // namespace allocsim::harness
