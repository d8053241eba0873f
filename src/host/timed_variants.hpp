// The variants a deck's run times, in the order it times them, and those variant = "all"
// leaves out with the reason: the deck (host/config.hpp) read against the variant table
// (host/variants.hpp).
#pragma once

#include <string>
#include <vector>

#include "host/config.hpp"
#include "host/variants.hpp"

namespace klmini {

// Why a loss variant does not run for this deck in this build, or "" when it does.
std::string why_left_out(Variant v, const Config& c);

// Every variant the deck's run times, in the order it times them: the term matrix's kernel
// (reduction = "none") or the loss variants (every one that runs for the deck under
// variant = "all", else the one named, which must be compiled in: NotCompiledIn otherwise),
// then the gradient's two when gradient = true.
std::vector<Variant> timed_variants(const Config& c);

// variant = "all": the loss variants left out, each with the reason.
struct LeftOutVariant {
  Variant variant;
  std::string reason;
};
std::vector<LeftOutVariant> left_out_variants(const Config& c);

}  // namespace klmini
