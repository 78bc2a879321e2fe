// The campaigns' worker pool (sim/campaign/pool.h): every item runs once, results by index whatever the thread
// count, the lowest-numbered item's exception rethrown, no item started after one threw, and no more threads
// than items (jobs 1: the calling thread alone).
#include <catch2/catch.hpp>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sim/campaign/pool.h"

using allocsim::campaign::parallel_for;
using allocsim::campaign::parallel_map;

TEST_CASE("pool: every item runs exactly once, for any thread count", "[pool]") {
  for (const size_t count : {size_t{0}, size_t{1}, size_t{5}, size_t{200}})
    for (const unsigned jobs : {0u, 1u, 2u, 3u, 8u}) {
      std::vector<std::atomic<int>> runs(count);
      parallel_for(count, jobs, [&](size_t i) { runs[i].fetch_add(1); });
      for (size_t i = 0; i < count; ++i) {
        INFO("count " << count << ", jobs " << jobs << ", item " << i);
        CHECK(runs[i].load() == 1);
      }
    }
}

TEST_CASE("pool: parallel_map keeps each result in its item's slot", "[pool]") {
  std::vector<std::string> expected;
  for (size_t i = 0; i < 50; ++i) expected.push_back(std::to_string(i * i));
  for (const unsigned jobs : {1u, 2u, 4u})
    CHECK(parallel_map(50, jobs, [](size_t i) { return std::to_string(i * i); }) == expected);
}

TEST_CASE("pool: the lowest-numbered item's exception is rethrown, and none starts after one threw", "[pool]") {
  for (const unsigned jobs : {1u, 2u, 4u}) {
    INFO("jobs " << jobs);
    std::vector<std::atomic<int>> runs(40);
    const auto fn = [&](size_t i) {
      runs[i].fetch_add(1);
      if (i == 7 || i == 12) throw std::runtime_error("item " + std::to_string(i));
    };
    std::string caught;
    try {
      parallel_for(runs.size(), jobs, fn);
    } catch (const std::runtime_error& e) {
      caught = e.what();
    }
    CHECK(caught == "item 7");
    for (size_t i = 0; i <= 7; ++i) CHECK(runs[i].load() == 1);  // every item below the one that threw ran
    size_t after = 0;
    for (size_t i = 8; i < runs.size(); ++i) {
      CHECK(runs[i].load() <= 1);
      after += runs[i].load();
    }
    // One thread stops at the item that threw; other threads may have taken later items before it threw.
    if (jobs == 1) CHECK(after == 0);
  }
}

TEST_CASE("pool: no more threads than items, and jobs 1 runs on the calling thread", "[pool]") {
  std::mutex mu;
  std::set<std::thread::id> ids;
  const auto record = [&](size_t) {
    std::lock_guard lock(mu);
    ids.insert(std::this_thread::get_id());
  };
  parallel_for(10, 1, record);
  CHECK(ids == std::set<std::thread::id>{std::this_thread::get_id()});
  ids.clear();
  parallel_for(2, 8, record);
  CHECK(ids.size() <= 2);
}
