// The backend state a scenario's first execution ends in, for start-state tests that check what the ops did
// to the state the file gave (tests/backend/harness_start_state.cpp, harness_start_claims.cpp).
#pragma once

#include "backend/model/memory_backend.h"
#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"

namespace allocsim::test {

/// The backend state at the end of execution 0 of `sc` (random strategy, one execution).
inline backend::BackendState final_state(const harness::Scenario& sc) {
  campaign::ExploreConfig cfg;
  cfg.executions = 1;
  backend::BackendState out;
  campaign::RunHooks hooks;
  hooks.on_execution = [&](uint64_t, const sim::World& w, const sim::ExecutionResult&) {
    out = static_cast<const harness::BackendWorld&>(w).backend().state();
  };
  campaign::run(*harness::subject_of(sc), cfg, hooks);
  return out;
}

}  // namespace allocsim::test
