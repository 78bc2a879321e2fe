// Leases (leases.h).
#include "backend/world/leases.h"

#include "backend/world/object_ids.h"
#include "sim/assert.h"

namespace allocsim::harness {

bool Leases::expired(size_t flow, double now, double lease_seconds) const {
  ALLOCSIM_ASSERT(flow < leased.size() && leased[flow], "lease of actor {} is not kept", flow);
  // The clock only advances, so a lease that has expired stays expired until its flow renews it.
  return now - renewed_at[flow] >= lease_seconds;
}

uint64_t lease_id(std::string_view actor) {
  // A harness kind byte outside backend::Obj (object_ids.h lists the others: 0xF0 to 0xF3).
  return object_id(static_cast<backend::Obj>(0xF4), actor);
}

}  // namespace allocsim::harness
