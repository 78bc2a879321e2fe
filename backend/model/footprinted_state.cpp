// FootprintedState's accessors of the objects named in memory_backend_idioms.h (the map, the pointer, the clock, read
// failures, the geometry hooks, the audit log): each records its object, then hands the fields out.
#include "backend/model/footprinted_state.h"

#include "backend/model/memory_backend_idioms.h"

namespace allocsim::backend {

using namespace port;

const FootprintedState::SharedConfig& FootprintedState::shared_config(Caller& c) const {
  c.touch(Obj::SharedMap, kMapName, false);
  return s_.shared_config;
}

FootprintedState::SharedMapFields FootprintedState::shared_map_for_write(Caller& c) {
  c.touch(Obj::SharedMap, kMapName, true);
  return {s_.shared_config, s_.shared_config_version, s_.shared_tombstone, s_.shared_map_deleted};
}

FootprintedState::PointerFields FootprintedState::pointer_for_write(Caller& c) {
  c.touch(Obj::Pointer, kPolicyName, true);
  return {s_.pointer, s_.pointer_version, s_.pointer_restore};
}

const FakeClock& FootprintedState::clock(Caller& c) const {
  c.touch(Obj::Clock, kClockName, false);
  return s_.clock;
}

FakeClock& FootprintedState::clock_for_write(Caller& c) {
  c.touch(Obj::Clock, kClockName, true);
  return s_.clock;
}

std::vector<PendingGeometry>& FootprintedState::pending_geometry_for_write(Caller& c) {
  c.touch(Obj::Clock, kPendingName, true);
  return s_.pending_geometry;
}

const std::string* FootprintedState::failed_read(Caller& c, std::string_view kind) const {
  c.touch(Obj::FailedReads, kind, false);
  return find_in(s_.failed_reads, kind);
}

OrderedMap<std::string, std::string>& FootprintedState::failed_reads_for_write(Caller& c, std::string_view kind) {
  c.touch(Obj::FailedReads, kind, true);
  return s_.failed_reads;
}

const FootprintedState::HiddenPods& FootprintedState::release_pods(Caller& c, bool armable) const {
  if (armable) c.touch(Obj::FailedReads, kReleasePodsName, false);
  return s_.release_pods_hidden;
}

FootprintedState::HiddenPods& FootprintedState::release_pods_for_write(Caller& c) {
  c.touch(Obj::FailedReads, kReleasePodsName, true);
  return s_.release_pods_hidden;
}

FootprintedState::GeometryFaultTables<false> FootprintedState::geometry_faults(Caller& c, std::string_view node) const {
  c.touch(Obj::FailingGeometry, node, false);
  return {s_.failing_geometry, s_.failing_geometry_until, s_.hollow_geometry, s_.partial_geometry};
}

FootprintedState::GeometryFaultTables<true> FootprintedState::geometry_faults_for_write(Caller& c,
                                                                                        std::string_view node) {
  c.touch(Obj::FailingGeometry, node, true);
  return {s_.failing_geometry, s_.failing_geometry_until, s_.hollow_geometry, s_.partial_geometry};
}

std::vector<Mutation>& FootprintedState::audit_for_write(Caller& c) {
  c.touch(Obj::Audit, "", true);
  return s_.audit;
}

}  // namespace allocsim::backend
