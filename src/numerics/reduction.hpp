// PyTorch's reductions of the term matrix. They differ only in a final scaling of the sum of all
// terms (`none` reports that sum alongside its matrix).
#pragma once

#include <cstdint>

namespace klmini {

enum class Reduction { batchmean, sum, mean, none };

// The factor the sum of terms is multiplied by. PyTorch's batchmean divides by
// input.size(0) = tokens.
inline double reduction_scale(Reduction r, std::int64_t tokens, std::int64_t vocab) {
  switch (r) {
    case Reduction::batchmean: return 1.0 / double(tokens);
    case Reduction::mean: return 1.0 / (double(tokens) * double(vocab));
    case Reduction::sum:
    case Reduction::none: return 1.0;
  }
  return 1.0;
}

}  // namespace klmini
