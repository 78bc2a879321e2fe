// Whole-device packing (upstream pack_whole_devices, ALLOC-010), FakeClock (backend/CONTRACT.md §5) and the mutant
// table (docs/DESIGN.md §6).
#include <filesystem>
#include <regex>
#include <set>

#include "backend/model/fake_clock.h"
#include "backend/model/mutants.h"
#include "backend/model/packing.h"
#include "backend/scenario/scenario.h"
#include "backend_fixtures.h"

using namespace allocsim::backend;

TEST_CASE("packing: aggregate capacity hides per-host fragmentation (ALLOC-010)", "[packing]") {
  const std::vector<std::pair<std::string, int>> three = {{"a", 2}, {"b", 2}, {"c", 2}};
  CHECK_FALSE(pack_whole_devices(three, {{"h1", 3}, {"h2", 3}}).has_value());  // 6 free, 3x2 impossible
  const auto spread = pack_whole_devices(three, {{"h1", 2}, {"h2", 2}, {"h3", 2}});
  REQUIRE(spread.has_value());
  CHECK(*spread == OrderedMap<std::string, std::string>{{"a", "h1"}, {"b", "h2"}, {"c", "h3"}});
  CHECK(pack_whole_devices({{"a", 2}, {"b", 2}}, {{"h1", 3}, {"h2", 3}}) ==
        OrderedMap<std::string, std::string>{{"a", "h1"}, {"b", "h2"}});
}

TEST_CASE("packing: widest request first (stable), hosts in name order, backtracking", "[packing]") {
  // Insertion order of `free` is irrelevant: hosts are tried sorted.
  const auto p = pack_whole_devices({{"small", 1}, {"big", 3}, {"mid", 1}}, {{"z", 3}, {"a", 1}, {"m", 1}});
  REQUIRE(p.has_value());
  CHECK(*p == OrderedMap<std::string, std::string>{{"big", "z"}, {"small", "a"}, {"mid", "m"}});
  // Name-order greedy puts w on a and strands u; backtracking moves w to b.
  const auto q = pack_whole_devices({{"v", 2}, {"u", 2}, {"w", 3}}, {{"a", 4}, {"b", 3}});
  CHECK(q == OrderedMap<std::string, std::string>{{"w", "b"}, {"v", "a"}, {"u", "a"}});
  CHECK(pack_whole_devices({}, {}) == OrderedMap<std::string, std::string>{});
  CHECK_FALSE(pack_whole_devices({{"a", 1}}, {}).has_value());
  // A repeated host (no dict has one; an OrderedMap can) reads its first entry's units, as find_in does: the 9
  // of the second entry are never seen, so two requests of 2 do not fit on "h".
  CHECK_FALSE(pack_whole_devices({{"a", 2}, {"b", 2}}, {{"h", 2}, {"h", 9}}).has_value());
  CHECK(pack_whole_devices({{"a", 2}, {"b", 2}}, {{"h", 9}, {"h", 2}}) ==
        OrderedMap<std::string, std::string>{{"a", "h"}, {"b", "h"}});
}

// pack_whole_devices_into orders hosts by the ranks it is given instead of sorting names (and, for one request,
// takes the first host by rank that fits without ordering them); with ranks that order as the names do, it must
// give what pack_whole_devices gives, whatever its scratch saw before.
TEST_CASE("packing into kept scratch by rank: the same answers as a fresh packing, call after call", "[packing]") {
  using Free = OrderedMap<std::string, int>;
  const std::vector<std::vector<std::pair<std::string, int>>> wanted = {
      {{"a", 2}, {"b", 1}},  // the general search
      {{"a", 2}},            // one request: the single pass
      {{"b", 1}},
      {{"c", 3}},  // fits only where a host has 3
  };
  const std::vector<Free> frees = {
      {{"z", 2}, {"m", 1}, {"a", 0}},      // name order: a, m, z
      {{"z", 0}, {"m", 1}, {"a", 2}},      // the same names, other units
      {{"a", 2}, {"m", 2}, {"z", 2}},      // the same names in another order (a -> a, b -> m)
      {{"n10", 2}, {"n2", 1}, {"n1", 0}},  // byte order, not number order: n1, n10, n2
      {{"q", 3}},
      {},
  };
  PackScratch scratch;
  OrderedMap<std::string_view, std::string_view> out;
  size_t feasible = 0;
  for (const auto& wants : wanted)
    for (size_t i = 0; i < frees.size(); ++i) {
      INFO("wants " << wants.size() << " starting with " << wants[0].first << ", free #" << i);
      const std::vector<std::pair<std::string_view, int>> requests(wants.begin(), wants.end());
      std::vector<uint32_t> rank(frees[i].size());
      for (size_t j = 0; j < rank.size(); ++j)  // gaps between ranks, as a plan's free nodes leave: 3 per name before
        for (const auto& [name, units] : frees[i]) rank[j] += name < frees[i][j].first ? 3 : 0;
      const auto fresh = pack_whole_devices(wants, frees[i]);
      const OrderedMap<std::string_view, int> free(frees[i].begin(), frees[i].end());  // as plan_into keeps it
      REQUIRE(pack_whole_devices_into(requests, free, rank, scratch, out) == fresh.has_value());
      if (!fresh) {
        CHECK(out.empty());
        continue;
      }
      ++feasible;
      OrderedMap<std::string, std::string> got;
      for (const auto& [w, h] : out) got.emplace_back(w, h);
      CHECK(got == *fresh);
    }
  CHECK(feasible == 16);  // of 24: the empty pool never fits, and c (3 units) fits only q
}

TEST_CASE("packing: eligible narrows a workload's hosts, absent workloads take any", "[packing]") {
  const OrderedMap<std::string, std::set<std::string>> only_h2 = {{"a", {"h2"}}};
  CHECK(pack_whole_devices({{"a", 1}, {"b", 1}}, {{"h1", 1}, {"h2", 1}}, &only_h2) ==
        OrderedMap<std::string, std::string>{{"a", "h2"}, {"b", "h1"}});
  const OrderedMap<std::string, std::set<std::string>> nowhere = {{"a", {"h9"}}};
  CHECK_FALSE(pack_whole_devices({{"a", 1}}, {{"h1", 4}}, &nowhere).has_value());
  const OrderedMap<std::string, std::set<std::string>> empty;
  CHECK(pack_whole_devices({{"a", 1}}, {{"h1", 1}}, &empty).has_value());
}

TEST_CASE("FakeClock: starts, advances, fires timers in (due, insertion) order", "[clock]") {
  FakeClock clock;
  CHECK(clock.monotonic() == 1000.0);
  CHECK(clock.now() == 1000.0);
  CHECK(clock.time() == 1'700'000'000.0);
  std::vector<std::pair<std::string, double>> fired;
  clock.at(5, [&] { fired.emplace_back("b", clock.now()); });
  clock.at(2, [&] { fired.emplace_back("a", clock.time()); });
  clock.at(5, [&] { fired.emplace_back("c", clock.now()); });
  clock.at(50, [&] { fired.emplace_back("late", clock.now()); });
  clock.advance(10);
  CHECK(fired == std::vector<std::pair<std::string, double>>{{"a", 1'700'000'002.0}, {"b", 1005.0}, {"c", 1005.0}});
  CHECK(clock.now() == 1010.0);
  CHECK(clock.time() == 1'700'000'010.0);
  CHECK_THROWS_WITH(clock.advance(-1), "a clock only advances");
  CHECK(clock.now() == 1010.0);
  clock.advance(40);
  CHECK(fired.back() == std::pair<std::string, double>{"late", 1050.0});
}

TEST_CASE("FakeClock: a timer queued by a callback fires within the same advance when due", "[clock]") {
  FakeClock clock;
  std::vector<double> at;
  clock.at(1, [&] {
    at.push_back(clock.now());
    clock.at(1, [&] { at.push_back(clock.now()); });
  });
  clock.advance(3);
  CHECK(at == std::vector<double>{1001.0, 1002.0});
  CHECK(clock.now() == 1003.0);
}

TEST_CASE("mutant table: ids, names and lookup agree", "[mutants]") {
  const auto& all = mutant_table();
  REQUIRE(all.size() >= 13);
  REQUIRE(all.size() <= 32);  // MutantSet is a 32-bit mask
  std::set<std::string> names;
  for (size_t i = 0; i < all.size(); ++i) {
    INFO(all[i].name);
    CHECK(static_cast<size_t>(all[i].id) == i);  // "in declaration order": the mask bit is the position
    CHECK(names.insert(all[i].name).second);
    CHECK(std::regex_match(all[i].name, std::regex("[a-z]+(-[a-z]+)+")));
    CHECK(std::regex_match(all[i].alloc_case, std::regex("ALLOC-0[0-9][0-9]")));
    CHECK(std::string(all[i].description).size() > 20);
    CHECK(mutant_by_name(all[i].name) == all[i].id);
  }
  CHECK_FALSE(mutant_by_name("no-such-mutant").has_value());
  MutantSet set;
  CHECK_FALSE(set.has(Mutant::StaleLastOut));
  set.add(Mutant::StaleLastOut);
  CHECK(set.has(Mutant::StaleLastOut));
  CHECK_FALSE(set.has(Mutant::ClientSideClaim));
}

TEST_CASE("mutant table agrees with scenarios/mutants/ (written separately)", "[mutants]") {
  // Not a copy of the table: each entry is checked against its scenario file, whose name, backend.mutants and
  // description (which opens "Mutant NAME (ALLOC-0NN...") were written by hand. A wrong ALLOC case, a
  // renamed mutant, a mutant without a scenario, or a scenario of a mutant that no longer exists fails here.
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(ALLOCSIM_SOURCE_DIR) / "scenarios" / "mutants";
  std::set<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json") files.insert(e.path().stem().string());
  for (const MutantInfo& m : mutant_table()) {
    INFO("mutant " << m.name);
    REQUIRE(files.count(m.name) == 1);
    const allocsim::harness::Scenario sc =
        allocsim::harness::load_scenario((dir / (std::string(m.name) + ".json")).string());
    CHECK(sc.mutants == std::vector<std::string>{m.name});
    CHECK_FALSE(sc.expect.pass);
    CHECK_THAT(sc.description, Catch::StartsWith(std::string("Mutant ") + m.name + " (" + m.alloc_case));
  }
  for (const std::string& f : files) {
    INFO("scenarios/mutants/" << f << ".json names no catalogue mutant");
    CHECK(mutant_by_name(f).has_value());
  }
}
