// The value side of sim/engine.h: PointKind's name and ExecutionResult::fingerprint(). Apart from engine.cpp,
// which is the mechanism (fibers, the step loop); nothing here touches a fiber.
#include "sim/engine.h"

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack (fingerprint) instead of XXH3_createState's heap
#include <xxhash.h>

namespace allocsim::sim {

const char* to_string(PointKind k) {
  switch (k) {
    case PointKind::Call:
      return "call";
    case PointKind::Barrier:
      return "barrier";
    case PointKind::LockWait:
      return "lock-wait";
  }
  return "?";
}

uint64_t ExecutionResult::fingerprint() const {
  XXH3_state_t state;
  XXH3_state_t* st = &state;
  XXH3_64bits_reset(st);
  const auto add = [&](const void* p, size_t n) { XXH3_64bits_update(st, p, n); };
  const char sep = '\x1f';
  for (const StepRecord& s : steps) {
    add(&s.actor, sizeof s.actor);
    add(&s.kind, sizeof s.kind);
    add(s.what.data(), s.what.size());
    add(&sep, 1);
    add(s.detail.data(), s.detail.size());
    add(&sep, 1);
  }
  if (violation) {
    add(violation->invariant.data(), violation->invariant.size());
    add(&sep, 1);
    add(violation->message.data(), violation->message.size());
  }
  return XXH3_64bits_digest(st);
}

}  // namespace allocsim::sim
