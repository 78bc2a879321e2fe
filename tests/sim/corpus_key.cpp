// Corpus entry keys (sim/campaign/corpus.h): the extra mutants and the step bound a run stores an entry under,
// written and read back.
#include <catch2/catch.hpp>

#include "sim/campaign/corpus.h"

using allocsim::campaign::corpus_key;
using allocsim::campaign::entry_key;
using allocsim::campaign::parse_key;

TEST_CASE("corpus key: mutants sorted once, the step bound only for a steps-bounded violation", "[corpus]") {
  CHECK(corpus_key("dir/a.json", {}) == "a");
  CHECK(corpus_key("dir/a.json", {"m2", "m1", "m2"}) == "a+m1+m2");
  CHECK(corpus_key("dir/a.json", {"m1"}, 30) == "a+m1~max-steps-30");
  CHECK(entry_key("dir/a.json", {"m1"}, "steps-bounded", 30) == "a+m1~max-steps-30");
  CHECK(entry_key("dir/a.json", {"m1"}, "steps-bounded", std::nullopt) == "a+m1");  // the scenario's own bound
  CHECK(entry_key("dir/a.json", {}, "single-ownership", 30) == "a");  // reached under every larger bound too
}

TEST_CASE("corpus key: parse_key gives back the mutants and the bound, and refuses another scenario's key",
          "[corpus]") {
  const auto bounded = parse_key("a+m1+m2~max-steps-30", "a");
  REQUIRE(bounded);
  CHECK(bounded->mutants == std::vector<std::string>{"m1", "m2"});
  CHECK(bounded->step_bound == 30u);
  const auto plain = parse_key("a", "a");
  REQUIRE(plain);
  CHECK(plain->mutants.empty());
  CHECK_FALSE(plain->step_bound);
  CHECK_FALSE(parse_key("ab+m1", "a"));          // the stem "ab" only begins with "a"
  CHECK_FALSE(parse_key("a~max-steps-x", "a"));  // not a number
  CHECK_FALSE(parse_key("a~max-steps-", "a"));   // no number
  CHECK_FALSE(parse_key("b+m1", "a"));
  CHECK_FALSE(parse_key("a+", "a"));  // an empty mutant name
  CHECK_FALSE(parse_key("a++m1", "a"));
  CHECK_FALSE(parse_key("a+~max-steps-3", "a"));
  CHECK_FALSE(parse_key("a~max-steps-03", "a"));                    // not as corpus_key writes 3
  CHECK_FALSE(parse_key("a~max-steps-99999999999999999999", "a"));  // past 64 bits
  const auto both = parse_key("a+m1~max-steps-7", "a");
  REQUIRE(both);
  CHECK(both->mutants == std::vector<std::string>{"m1"});
  CHECK(both->step_bound == 7u);
}
