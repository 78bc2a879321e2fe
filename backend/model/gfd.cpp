// GPU Feature Discovery label classification (backend/CONTRACT.md §4, upstream deploy/cluster.py).
#include "backend/model/gfd.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace allocsim::backend {
namespace {

constexpr std::string_view kSharingStrategy = "nvidia.com/gpu.sharing-strategy";
constexpr std::string_view kProduct = "nvidia.com/gpu.product";
constexpr std::string_view kReplicas = "nvidia.com/gpu.replicas";
constexpr std::string_view kCount = "nvidia.com/gpu.count";
constexpr std::string_view kMigStrategy = "nvidia.com/mig.strategy";
constexpr std::string_view kMigCapable = "nvidia.com/mig.capable";
constexpr std::string_view kMigConfig = "nvidia.com/mig.config";
constexpr std::string_view kMigConfigState = "nvidia.com/mig.config.state";

const std::string* label(const Labels& labels, std::string_view key) { return find_in(labels, key); }

bool label_is(const Labels& labels, std::string_view key, std::string_view value) {
  const std::string* v = label(labels, key);
  return v != nullptr && *v == value;
}

// The helpers work on views: classification runs at every inventory, and allocates nothing but its result.
std::string_view strip(std::string_view s) {
  const auto ws = [](char ch) { return std::isspace(static_cast<unsigned char>(ch)) != 0; };
  while (!s.empty() && ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && ws(s.back())) s.remove_suffix(1);
  return s;
}

// Python's str.isdigit() for ASCII: non-empty, digits only (no sign, no spaces).
bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
}

// Compares two digit strings by value without overflow: strip leading zeros, then length, then text.
int compare_digits(std::string_view a, std::string_view b) {
  a.remove_prefix(std::min(a.find_first_not_of('0'), a.size()));
  b.remove_prefix(std::min(b.find_first_not_of('0'), b.size()));
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b);
}

// `s.lower() == lower_word` for an all-lowercase `lower_word`.
bool lower_equals(std::string_view s, std::string_view lower_word) {
  if (s.size() != lower_word.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (static_cast<char>(std::tolower(static_cast<unsigned char>(s[i]))) != lower_word[i]) return false;
  return true;
}

}  // namespace

std::string classify_gfd_labels(const Labels& labels, std::optional<long> advertised_units) {
  return std::string(gfd_class(labels, advertised_units));
}

std::string_view gfd_class(const Labels& labels, std::optional<long> advertised_units) {
  const std::string* product_label = label(labels, kProduct);
  const std::string_view product = product_label ? std::string_view(*product_label) : std::string_view();
  const std::string* replicas_label = label(labels, kReplicas);
  const std::string* count_label = label(labels, kCount);
  const std::string_view replicas = strip(replicas_label ? std::string_view(*replicas_label) : std::string_view());
  const std::string_view card_count = strip(count_label ? std::string_view(*count_label) : std::string_view());
  const std::string advertised = advertised_units ? std::to_string(*advertised_units) : "";
  const bool more_units_than_cards =
      is_digits(card_count) && is_digits(advertised) && compare_digits(advertised, card_count) > 0;

  // Rule 1: MPS is recognised from its strategy label alone, whatever the replica auxiliaries say.
  if (label_is(labels, kSharingStrategy, "mps")) return kClassMps;
  // Rule 2: any of the three time-slicing signals.
  const bool shared_product = product.size() >= 7 && product.substr(product.size() - 7) == "-SHARED";
  if (label_is(labels, kSharingStrategy, "time-slicing") || shared_product ||
      (is_digits(replicas) && compare_digits(replicas, "1") > 0))
    return kClassTimeSliced;
  // Rule 3: single-strategy MIG needs geometry evidence; a MIG-capable card with MIG off is physical.
  const std::string* capable = label(labels, kMigCapable);
  const std::string* config = label(labels, kMigConfig);
  const bool config_applied = config != nullptr && !config->empty() && *config != kDefaultMigConfig &&
                              label_is(labels, kMigConfigState, "success");
  if (label_is(labels, kMigStrategy, "single") && capable != nullptr && lower_equals(*capable, "true") &&
      (product.find("-MIG-") != std::string_view::npos || more_units_than_cards || config_applied))
    return kClassMig;
  // Rule 4.
  for (const auto& [key, value] : labels)
    if (key.rfind("nvidia.com/gpu", 0) == 0) return kClassPhysical;
  return kClassUnknown;
}

std::string combine_classifications(const std::vector<std::string>& kinds) {
  for (const char* kind : {kClassTimeSliced, kClassMps, kClassMig, kClassUnknown, kClassPhysical})
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) return kind;
  return kClassUnknown;
}

}  // namespace allocsim::backend
