// Scenario types (scenario.h) that are not the loader's: fault action names, FaultSpec. The loader is
// scenario_load.cpp (over sim/support/json_reader.h), the ops' vocabulary is the op table's syntax rows
// (op_syntax.h), the encoder is scenario_json.cpp.
#include "backend/scenario/scenario.h"

#include <algorithm>

namespace allocsim::harness {

const char* fault_action_name(FaultAction a) {
  switch (a) {
    case FaultAction::Crash:
      return "crash";
    case FaultAction::Raise:
      return "raise";
    case FaultAction::DropResponse:
      return "drop_response";
  }
  return "unknown";
}

bool FaultSpec::eligible(const std::string& actor) const {
  return enabled && (actors.empty() || std::find(actors.begin(), actors.end(), actor) != actors.end());
}

bool partial_reads_covers(const Op& op, std::string_view listing) {
  return op.listings.empty() ? listing == "inventory"
                             : std::find(op.listings.begin(), op.listings.end(), listing) != op.listings.end();
}

}  // namespace allocsim::harness
