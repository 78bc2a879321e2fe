#include "backend/world/claim_maker.h"

#include <algorithm>

namespace allocsim::harness {

std::optional<size_t> minted_by(const std::vector<ActorState>& actors, std::string_view owner,
                                std::string_view claim_id) {
  constexpr std::string_view kPrefix = "claim-";
  if (!claim_id.starts_with(kPrefix)) return std::nullopt;
  const std::string_view rest = claim_id.substr(kPrefix.size());
  for (size_t i = 0; i < actors.size(); ++i) {
    const ActorState& a = actors[i];
    // An actor that has not reserved minted nothing: the loader lets a start claim take the shape of the ids an actor
    // that takes no step would mint (ids-never-minted).
    if (a.owner != owner || a.reserves == 0 || rest.size() <= a.name.size() + 1 || !rest.starts_with(a.name) ||
        rest[a.name.size()] != '-')
      continue;
    // The rest is the counter: "claim-flow-1-3" is flow-1's, not flow's.
    const std::string_view k = rest.substr(a.name.size() + 1);
    if (std::all_of(k.begin(), k.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) return i;
  }
  return std::nullopt;
}

}  // namespace allocsim::harness
