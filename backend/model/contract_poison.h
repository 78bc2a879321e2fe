// poison() (check_mode.h) for the contract's value types the port recycles: each field poisoned in place, no
// length changed, nothing allocated (check_mode.h's contract).
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

}  // namespace allocsim::backend
