// PyTorch's reductions as a final scaling of the sum of terms (src/numerics/reduction.hpp).
#include <catch2/catch_test_macros.hpp>

#include "numerics/reduction.hpp"

TEST_CASE("each reduction's factor: batchmean by the tokens, mean by every element") {
  using klmini::Reduction;
  CHECK(klmini::reduction_scale(Reduction::batchmean, 8, 16) == 0.125);
  CHECK(klmini::reduction_scale(Reduction::mean, 8, 16) == 1.0 / 128.0);
  CHECK(klmini::reduction_scale(Reduction::sum, 8, 16) == 1.0);
  CHECK(klmini::reduction_scale(Reduction::none, 8, 16) == 1.0);  // none reports the plain sum beside its matrix
  // 64-bit extents: tokens x vocab beyond 2^31 does not overflow.
  CHECK(klmini::reduction_scale(Reduction::mean, 16384, 131072) == 1.0 / (16384.0 * 131072.0));
}
