// poison() and poisoned() (check_mode.h) for the contract's value types the port recycles: each field poisoned in
// place, no length changed, nothing allocated; and whether any field still holds its poison (check_mode.h's contract).
#pragma once

#include "backend/model/check_mode.h"
#include "backend/model/contract.h"

namespace allocsim::backend {

void poison(DeviceIdentity& d);
void poison(Mutation& m);
void poison(FeasiblePlan& p);
void poison(NodeEvidence& e);
void poison(ClaimObservation& o);
void poison(ReleaseObservation& o);

bool poisoned(const DeviceIdentity& d);
bool poisoned(const Mutation& m);
bool poisoned(const FeasiblePlan& p);
bool poisoned(const NodeEvidence& e);
bool poisoned(const ClaimObservation& o);
bool poisoned(const ReleaseObservation& o);
/// The snapshot's own fields; its device list is the backend's shared one, never recycled (devices_for).
bool poisoned(const InventorySnapshot& s);
bool poisoned(const PlanOutcome& p);
/// The envelope, and the value only when it is Known (an Unknown answer's value is meaningless).
template <class T>
bool poisoned(const Observation<T>& o) {
  return poisoned(o.generation) || poisoned(o.reason) || poisoned(o.detail) || poisoned(o.observed_at) ||
         (o.known && poisoned(o.value));
}

}  // namespace allocsim::backend
