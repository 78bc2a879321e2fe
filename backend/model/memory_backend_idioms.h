// What the files of the memory backend port (backend/model/memory_backend*.cpp) share besides the class:
// the names of the footprint objects its steps touch (footprinted_state.h) and the Python idiom
// they all need.
//
// Contract: constants and one pure function; internal to the port (nothing outside backend/model/ includes it).
#pragma once

#include <optional>
#include <string>

namespace allocsim::backend::port {

inline constexpr const char* kMapName = "videoflow-map";
inline constexpr const char* kPolicyName = "clusterpolicy";
inline constexpr const char* kClockName = "clock";
inline constexpr const char* kPendingName = "pending-geometry";
inline constexpr const char* kReleasePodsName = "release-pods";  // hide_from_release (read_hooks.cpp)

/// Python's truth of an optional text: present and not empty.
inline bool is_truthy(const std::optional<std::string>& s) { return s.has_value() && !s->empty(); }

}  // namespace allocsim::backend::port
