// Engine::execute (sim/engine.h): once warm, the engine's own part of an execution allocates nothing, counted
// by the bench's counting operator new (tools/bench/alloc_counter.h, linked into this binary only).
#include <catch2/catch.hpp>

#include <memory>
#include <string_view>
#include <vector>

#include "sim/engine.h"
#include "sim/strategies/random.h"
#include "tools/bench/alloc_counter.h"

using namespace allocsim::sim;
using allocsim::bench::alloc_counts;

namespace {

// Three actors with details longer than the small-string buffer, footprints, a draw, and a SimMutex held
// across a point (lock waits with a "held by" detail), so that every buffer the engine reuses is exercised.
// Allocates nothing itself while it runs: its names and details are static.
struct BusyWorld : World {
  SimMutex mutex;
  int calls;
  explicit BusyWorld(int c) : calls(c) {}
  size_t actor_count() const override { return 3; }
  std::string_view actor_name(ActorId id) const override {
    static constexpr std::string_view names[] = {"first-actor", "second-actor", "third-actor"};
    return names[id];
  }
  void run_actor(ActorId id, ActorContext& ctx) override {
    static constexpr std::string_view details[] =
        {"node=node-with-a-long-name claim=claim-0001 epoch=7",
         "node=another-node-with-a-long-name claim=claim-0002 epoch=8 and some more",
         "a detail that is longer than any small-string buffer of any standard library"};
    for (int i = 0; i < calls + int(id); ++i) {
      ctx.point(PointKind::Call, "call", details[(id + i) % 3]);
      ctx.touch(100 + id, false);
      ctx.touch(200, true);
      if (i == 1) {
        mutex.lock(ctx);
        ctx.point(PointKind::Barrier, "inside", details[id]);
        if (ctx.draw(2) == 1) ctx.note("fault=a-long-note-that-does-not-fit-in-a-small-string");
        mutex.unlock();
      }
    }
  }
  std::optional<Violation> check_step(uint64_t, ActorId) override { return std::nullopt; }
  std::optional<Violation> check_quiescent() override { return std::nullopt; }
};

}  // namespace

TEST_CASE("engine: execute() allocates nothing once warm, with details, footprints, draws and lock waits") {
  constexpr int kWarmup = 1000, kMeasured = 500;
  Engine engine(EngineOptions{.record_footprints = true});
  RandomStrategy random;
  // Worlds are built before counting: a world is the caller's, not the engine's.
  std::vector<std::unique_ptr<BusyWorld>> worlds;
  for (int i = 0; i < kWarmup + kMeasured; ++i) worlds.push_back(std::make_unique<BusyWorld>(3 + i % 5));
  uint64_t steps = 0, waits = 0;
  // Warm-up: buffers pass between slots and records (a swap per step), so each grows to the longest detail it
  // meets over a few hundred executions; then none grows again.
  for (int i = 0; i < kWarmup; ++i) {
    random.begin_execution(uint64_t(i));
    engine.execute(*worlds[size_t(i)], random);
  }
  const auto before = alloc_counts();
  for (int i = kWarmup; i < kWarmup + kMeasured; ++i) {
    random.begin_execution(uint64_t(i));
    const ExecutionResult& r = engine.execute(*worlds[size_t(i)], random);
    steps += r.steps.size();
    for (const StepRecord& s : r.steps) waits += s.kind == PointKind::LockWait;
  }
  const auto d = alloc_counts() - before;
  CHECK(steps > kMeasured * 10);
  CHECK(waits > 0);  // the lock-wait path ran
  CHECK(d.allocations == 0);
  CHECK(d.frees == 0);
}
