// GPU Feature Discovery label classification (backend/CONTRACT.md §4, upstream deploy/cluster.py).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/model/contract.h"

namespace allocsim::backend {

using Labels = OrderedMap<std::string, std::string>;

/// One of "physical", "mig", "time-sliced", "mps", "unknown", by the four ordered rules of backend/CONTRACT.md §4.
/// `advertised_units` is the optional unit count the node advertises (the memory backend passes none).
std::string classify_gfd_labels(const Labels& labels, std::optional<long> advertised_units = std::nullopt);
/// The same, as a view of one of the kClass* constants (static storage): what a caller keeps without a copy.
std::string_view gfd_class(const Labels& labels, std::optional<long> advertised_units = std::nullopt);

/// Pool classification: the worst wins in the order time-sliced, mps, mig, unknown, physical; empty ->
/// unknown.
std::string combine_classifications(const std::vector<std::string>& kinds);

}  // namespace allocsim::backend
