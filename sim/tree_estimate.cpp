#include "sim/tree_estimate.h"

#include "sim/prng.h"

namespace allocsim::sim {

namespace {

/// Uniformly random choices that multiply up the branching factors they meet.
class BranchProductStrategy final : public Strategy {
 public:
  void begin_execution(uint64_t seed) override { prng_ = Prng(seed), product_ = 1; }
  ActorId choose(std::span<const Candidate> runnable, ActorId) override {
    product_ *= double(runnable.size());
    return runnable[prng_.below(runnable.size())].actor;
  }
  uint64_t draw(uint64_t bound) override {
    product_ *= double(bound);
    return prng_.below(bound);
  }
  bool end_execution(const ExecutionResult&) override { return true; }
  double product() const { return product_; }

 private:
  Prng prng_{0};
  double product_ = 1;
};

}  // namespace

double estimate_leaves(Engine& engine, const WorldFactory& make_world, uint32_t probes, uint64_t seed) {
  if (probes == 0) return 0;
  BranchProductStrategy probe;
  double sum = 0;
  for (uint32_t i = 0; i < probes; ++i) {
    probe.begin_execution(execution_seed(seed, i));
    auto world = make_world();
    engine.run(*world, probe);
    sum += probe.product();
  }
  return sum / probes;
}

}  // namespace allocsim::sim
