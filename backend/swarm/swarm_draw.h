// The swarm generator's own parts (swarm_gen.h; docs/DESIGN.md §7, "Swarm"), shared by its two files:
// swarm_gen.cpp draws the features, the nodes, the flows and the clock, controller and sweeper actors, and
// swarm_roles.cpp writes the kubelet's, the operator's and the chaos actor's scripts and the faults block.
// Nothing outside backend/swarm/ includes this header.
//
// Contract: every draw goes through Gen (sim::Prng), so a seed gives the same bytes on every machine; a function
// given a Gen draws from it in a fixed order, so adding a draw anywhere changes every later draw of that stream (a
// new feature draws from a stream of its own instead: kLateFeatures in swarm_gen.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/swarm/swarm_gen.h"
#include "sim/prng.h"

namespace allocsim::harness::swarm_draw {

using Json = nlohmann::ordered_json;

/// One PRNG stream of the generator, with the draws it makes.
class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  uint64_t below(uint64_t n) { return rng_.below(n); }
  int range(int lo, int hi) { return lo + static_cast<int>(rng_.below(static_cast<uint64_t>(hi - lo + 1))); }
  bool chance(uint64_t num, uint64_t den) { return rng_.below(den) < num; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[rng_.below(v.size())];
  }

 private:
  sim::Prng rng_;
};

/// What the drawn nodes leave for the actors' scripts: the nodes, their cards, the cards no start workload (and no
/// relabel or flow's own pod) takes, and the start state's stamps.
struct Cluster {
  std::vector<std::string> names;
  std::vector<int> cards;
  std::vector<int> free;  // cards no start workload holds
  std::vector<std::string> start_workloads;
  bool stale_stamp = false;     // some node starts with flowX's stamp and no claim (F5's leftover)
  std::vector<size_t> stamped;  // the nodes that start with flowX's stamp
  int max_cards = 1;
  int min_gib = 1 << 20;
};

/// The kubelet's script: one pod bound where cards are free (its name appended to `bound`), maybe unbound again.
Json kubelet_script(Gen& g, const Cluster& c, std::vector<std::string>& bound);

/// The kubelet's script `s` with a reject_binds (SwarmFeatures::admission_reject) for `binds` binds.
Json with_admission_reject(Json s, const Json& flows, const Cluster& cluster, int binds);

/// The operator's foreign writes; a relabel that drops a card takes it out of `c.free`.
Json operator_script(Gen& g, Cluster& c);

/// The chaos actor's read and geometry faults; `workloads` are the pods partial_reads may hide.
Json chaos_script(Gen& g, const SwarmFeatures& f, const Cluster& c, const std::vector<std::string>& workloads);

/// The scenario's `faults` block: crash / raise / drop_response at 1-2 barriers, for the actor `faulty` alone.
Json make_faults(Gen& g, const SwarmFeatures& f, const std::string& faulty);

}  // namespace allocsim::harness::swarm_draw
