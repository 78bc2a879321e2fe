// Did-you-mean suggestions for misspelt names in input files and on the command line: closest(),
// did_you_mean() and hint(), declared with the other message helpers in sim/support/json_reader.h. Split out
// of json_reader.cpp (the reader proper) because the CLI's flag suggestions use them without any JSON.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/support/json_reader.h"

namespace allocsim::support {

/// Optimal string alignment distance: Levenshtein plus adjacent transpositions, the commonest typo.
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace

/// The closest candidate within distance 2, or nullptr. Distance ignores case first (so "flowb" finds
/// "flowB" rather than "flowA") and counts it second; the first candidate wins a tie. A word no longer than
/// the distance is not a typo of anything. Failing that, the one candidate the word (3 characters or more)
/// begins, case ignored: a name cut short ("client-side" for "client-side-claim").
const char* closest(std::string_view word, const std::vector<const char*>& candidates) {
  constexpr std::size_t kMaxTypo = 2;
  constexpr std::size_t kMaxWord = 128;  // far longer than any candidate: skip the quadratic table
  if (word.size() > kMaxWord) return nullptr;
  const std::string folded = lowercase(word);
  const char* best = nullptr;
  std::pair<std::size_t, std::size_t> best_distance{kMaxTypo + 1, 0};
  for (const char* c : candidates) {
    const std::pair<std::size_t, std::size_t> d{edit_distance(folded, lowercase(c)), edit_distance(word, c)};
    if (d.first <= kMaxTypo && d.first < word.size() && d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  if (best != nullptr || word.size() < 3) return best;
  const char* only = nullptr;
  for (const char* c : candidates) {
    if (!lowercase(c).starts_with(folded)) continue;
    if (only != nullptr) return nullptr;  // the start of two names: no guess
    only = c;
  }
  return only;
}

std::string did_you_mean(std::string_view word, const std::vector<const char*>& candidates) {
  const char* best = closest(word, candidates);
  return best == nullptr ? "" : fmt::format(" (did you mean {}?)", quote(best));
}

/// did_you_mean, or else the whole (short) vocabulary, so the reader always learns what is accepted.
std::string hint(std::string_view word, const std::vector<const char*>& candidates) {
  std::string suggestion = did_you_mean(word, candidates);
  if (!suggestion.empty() || candidates.empty()) return suggestion;
  return fmt::format(" (expected one of {})", quote_all(candidates));
}

}  // namespace allocsim::support
