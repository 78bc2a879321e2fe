// Scenario -> JSON (schema `allocsim/scenario/v1`), the inverse of parse_scenario(): trace files embed
// the scenario they ran, and a shrunk trace embeds a reduced scenario that exists in no file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "backend/scenario/scenario.h"

namespace allocsim::harness {

/// The scenario as an ordered JSON document that parse_scenario() reads back to an equal Scenario
/// (every field, defaults included, in file order; `path`, `digest` and op pointers are not part of it:
/// the parser derives them). Round trip: scenario_to_json(parse_scenario(scenario_to_json(s).dump(), p))
/// == scenario_to_json(s). Never throws for a Scenario that parse_scenario produced.
nlohmann::ordered_json scenario_to_json(const Scenario& s);

}  // namespace allocsim::harness
