// The GPU allocation backend as a campaign::System (sim/campaign/system.h): what the generic campaign
// layer (run loop, replay, shrink, trace files, sweeps) needs from a scenario, implemented over Scenario,
// compile() and BackendWorld.
//
// Contract: a ScenarioSubject owns its Scenario (copied in) and is immutable; its Compiled worlds point
// into it, so a subject outlives what it compiles. Errors are ScenarioError (a support::InputError).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/scenario/scenario.h"
#include "sim/campaign/system.h"

namespace allocsim::harness {

/// The system every command and test explores: scenario files loaded by load_scenario().
const campaign::System& backend_system();

/// `scenario` as a campaign subject (a copy).
campaign::SubjectPtr subject_of(Scenario scenario);

/// `subject` with ops-atomic's bound on its op-level executions set to `bound` (Scenario::op_level_bound): how a
/// campaign that explores each scenario briefly (swarm, selfcheck) keeps the op-level executions within its budget.
/// REQUIRES: as scenario_of().
campaign::SubjectPtr with_op_level_bound(const campaign::Subject& subject, uint64_t bound);

/// The scenario behind a subject made by this system. REQUIRES: `subject` came from backend_system() or
/// subject_of() (every subject in this program does).
const Scenario& scenario_of(const campaign::Subject& subject);

/// Footprint object `object` of an execution of `sc` in the backend's words ("node n1", "claim
/// claim-flowA-2", "the shared mig-parted map") and role: locks are Sync, the harness's visibility object
/// (backend/world/object_ids.h invariant_visible_id) is View, the rest Data; "object <hex>" for an id it cannot name.
/// `details`: the execution's step details (claim ids). backend/system/explain_text.cpp.
campaign::ObjectName name_object(const Scenario& sc, uint64_t object, const std::vector<std::string>& details);

}  // namespace allocsim::harness
