#include "backend/world/object_ids.h"

#include <cstring>
#include <string>

#include <xxhash.h>

namespace allocsim::harness {

uint64_t object_id(backend::Obj what, std::string_view name) {
  // XXH3-64 of the kind byte followed by the name, in one shot from a stack buffer: the same value as
  // streaming the two parts, without the heap-allocated streaming state (touch() runs several times a step).
  const auto kind = static_cast<unsigned char>(what);
  char buf[128];
  if (name.size() < sizeof buf) {
    buf[0] = static_cast<char>(kind);
    if (!name.empty()) std::memcpy(buf + 1, name.data(), name.size());
    return XXH3_64bits(buf, 1 + name.size());
  }
  std::string joined(1, static_cast<char>(kind));
  joined += name;
  return XXH3_64bits(joined.data(), joined.size());
}

uint64_t invariant_visible_id() {
  static const uint64_t id = object_id(backend::Obj::AllNodes, "\x1finvariant-visible");
  return id;
}

uint64_t actor_plan_id(std::string_view actor) {
  // Harness-side state other actors read (`plan_from`): a kind byte outside backend::Obj, so no clash.
  return object_id(static_cast<backend::Obj>(0xF0), actor);
}

uint64_t faults_fired_id() {
  static const uint64_t id = object_id(static_cast<backend::Obj>(0xF2), "faults-fired");
  return id;
}

}  // namespace allocsim::harness
