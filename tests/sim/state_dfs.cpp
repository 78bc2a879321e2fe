// `dfs --reduction states` (sim/strategies/state_dfs.h) against plain DFS on random programs over shared values:
// every final state and every violation plain DFS reaches, state caching reaches too.
#include <catch2/catch.hpp>

#include <iostream>
#include <map>
#include <set>

#include "sim/strategies/dfs.h"
#include "sim/strategies/state_dfs.h"
#include "tests/sim/systematic_helpers.h"

namespace state_dfs_test {

using namespace allocsim::sim;
using namespace allocsim::sim::testing;

uint64_t mix(uint64_t a, uint64_t b) {
  SplitMix64 s(a * 0x9e3779b97f4a7c15ull ^ b);
  return s.next();
}

/// Objects 1..4 hold values; a read folds the object's value into the reader's accumulator, a write replaces the
/// value with a mix of it and the writer's accumulator. So what an actor does next depends on what it read, and
/// the order of dependent steps shows in the values, as in a real system. The invariant reads objects 1 and 2, so
/// a write of either also writes object kVisible (the visibility condition, docs/DESIGN.md §2), as the backend's
/// writes of what its invariants read do.
struct ValueWorld : World {
  std::vector<std::vector<LockOp>> progs;
  uint64_t vals[6] = {0, 1, 2, 3, 4, 5};
  std::vector<uint64_t> acc;
  SimMutex mutex;

  size_t actor_count() const override { return progs.size(); }
  std::string_view actor_name(ActorId) const override { return "a"; }
  static constexpr uint64_t kVisible = 9;
  void access(ActorId id, ActorContext& ctx, uint64_t obj, bool write) {
    ctx.touch(obj, write);
    if (write && (obj == 1 || obj == 2)) ctx.touch(kVisible, true);
    if (write)
      vals[obj] = mix(vals[obj], acc[id]);
    else
      acc[id] = mix(acc[id], vals[obj]);
  }
  void run_actor(ActorId id, ActorContext& ctx) override {
    for (const LockOp& o : progs[id]) {
      if (o.kind == 0 || o.kind == 4) {
        ctx.point(PointKind::Call, "call", "");
        access(id, ctx, o.kind == 4 ? o.obj + ctx.draw(2) : o.obj, o.w);
      } else if (o.kind == 1) {
        mutex.lock(ctx);
      } else if (o.kind == 2) {
        mutex.unlock();
      } else {
        ctx.point(PointKind::Barrier, "b", "");
      }
    }
  }
  std::optional<Violation> check_step(uint64_t, ActorId) override {
    if ((vals[1] ^ vals[2]) % 13 == 0) return Violation{"values-apart", "x", ""};
    return std::nullopt;
  }
  std::optional<Violation> check_quiescent() override { return std::nullopt; }
  bool canonical_state(CanonicalState& out) override {
    for (uint64_t o = 1; o <= 5; ++o) out.objects.push_back({o, vals[o]});
    out.objects.push_back({kVisible, mix(vals[1], vals[2])});
    out.objects.push_back({mutex.footprint_id(), uint64_t(mutex.holder()) * 31 + uint64_t(mutex.depth())});
    out.world = 0;
    for (const ObjectDigest& d : out.objects) out.world = mix(out.world, d.digest);
    return true;
  }
  /// The state an execution ended in: every value and every actor's accumulator. For a violation, what the
  /// invariant read: equivalent executions pass through different states, and an independent step (of another
  /// object) can sit before or after the violating one, so only this part of the violating state is the same
  /// across the executions of one trace.
  std::string final_state(const ExecutionResult& r) const {
    if (r.violation) return r.violation->invariant + " " + std::to_string(vals[1]) + " " + std::to_string(vals[2]);
    std::string s = "quiescent";
    for (uint64_t v : vals) s += " " + std::to_string(v);
    for (uint64_t a : acc) s += " " + std::to_string(a);
    return s;
  }
};

struct Reached {
  std::set<std::string> finals;
  uint64_t executions = 0, abandoned = 0;
};

Reached explore_values(Strategy& strategy, const std::vector<std::vector<LockOp>>& progs) {
  Reached out;
  Engine engine(EngineOptions{.record_footprints = true});
  for (bool more = true; more;) {
    strategy.begin_execution(0);
    ValueWorld w;
    w.progs = progs;
    w.acc.assign(progs.size(), 0);
    for (size_t a = 0; a < progs.size(); ++a) w.acc[a] = 100 + a;
    const ExecutionResult r = engine.run(w, strategy);
    if (r.abandoned)
      ++out.abandoned;
    else
      ++out.executions, out.finals.insert(w.final_state(r));
    more = strategy.end_execution(r);
  }
  return out;
}

TEST_CASE("states: the final states and violations of plain dfs on 1500 random value programs", "[states]") {
  uint64_t dfs_executions = 0, state_paths = 0, finals = 0, pruned = 0, reopened = 0;
  for (uint64_t seed = 0; seed < 1500; seed += kSeedStride) {
    const int n = 2 + (seed % 3 == 0);
    std::string desc;
    const auto progs = random_lock_program(seed, n, desc, seed % 2 == 1);
    DfsStrategy plain;
    StateDfsStrategy cached;
    const Reached a = explore_values(plain, progs), b = explore_values(cached, progs);
    if (a.finals != b.finals) {
      std::cout << "seed " << seed << ": dfs reached " << a.finals.size() << " final states, states " << b.finals.size()
                << "\n"
                << desc;
      FAIL();
    }
    CHECK(cached.exhausted());
    pruned += cached.stats().pruned;
    reopened += cached.stats().reopened;
    dfs_executions += a.executions;
    state_paths += b.executions + b.abandoned;
    finals += a.finals.size();
  }
  // Pinned from the implementation: plain DFS ran 1,317,660 executions; state caching 83,681 paths (executions
  // and cut paths together). Both halves of Godefroid's rule ran: paths cut at a visited state, and visited states
  // explored again for what every earlier visit slept on.
  // Under the sanitizers every kSeedStride-th program: 312,024 executions, 17,310 paths, 1,627 cut, 772 reopened.
  CHECK(dfs_executions == (kSanitized ? 312024 : 1317660));
  CHECK(state_paths == (kSanitized ? 17310 : 83681));
  CHECK(pruned == (kSanitized ? 1627 : 8741));
  CHECK(reopened == (kSanitized ? 772 : 3877));
  CHECK(finals > 1500);
}

TEST_CASE("states: two writers of one object and a reader of another meet in one state", "[states]") {
  // a and b write object 3 (two orders), c reads object 4: 3! = 6 schedules, 2 final states.
  const std::vector<std::vector<LockOp>> progs = {{{0, 3, true}}, {{0, 3, true}}, {{0, 4, false}}};
  DfsStrategy plain;
  StateDfsStrategy cached;
  const Reached a = explore_values(plain, progs), b = explore_values(cached, progs);
  CHECK(a.executions == 6);
  CHECK(a.finals.size() == 2);
  CHECK(b.finals == a.finals);
  // Counted by hand. Root: a, b, c. After a: b (then c: an execution), then c, where b sleeps (explored before
  // c, and independent of c's read): blocked. After b: a (it writes what b wrote, so it does not sleep; then c: an
  // execution), then c, where a sleeps: blocked. At the root c comes last, with a and b asleep: blocked. Fresh
  // choices: root, a, ab, ac, b, ba, bc, c = 8 states, all distinct; 2 executions, 3 paths sleep-set blocked.
  const StateCacheStats s = cached.stats();
  CHECK(b.executions == 2);
  CHECK(s.states == 8);
  CHECK(s.distinct == 8);
  CHECK(s.sleep_blocked == 3);
  CHECK(s.pruned == 0);
}

TEST_CASE("states: a bounded table stays within its memory and still reaches every final state", "[states]") {
  std::string desc;
  const auto progs = random_lock_program(4, 4, desc);
  DfsStrategy plain;
  StateDfsStrategy small(StateDfsOptions{.prefix = {}, .state_memory = 16 * 1024});
  const Reached a = explore_values(plain, progs), b = explore_values(small, progs);
  CHECK(b.finals == a.finals);
  const StateCacheStats s = small.stats();
  CHECK(s.table_bytes <= 16 * 1024);
  INFO(desc);
  CHECK(s.collision_probability < 1e-9);
}

}  // namespace state_dfs_test
