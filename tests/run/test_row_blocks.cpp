// How the checks read a matrix (src/run/row_blocks.hpp): block by block of rows, staged or in
// place, fp32 or converted; and checks fed block by block (src/host/verify.hpp) that give the
// same answer, and point at the same bad element, as one pass over all rows.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

// A tokens x vocab matrix of T in the space whose element (r, j) is r * 1000 + j (exact in bf16
// only for small values: compared after the same conversion).
template <class T>
Kokkos::View<T**, Kokkos::LayoutRight, typename Space::memory_space> numbered(std::int64_t tokens, std::int64_t vocab) {
  Kokkos::View<T**, Kokkos::LayoutRight, typename Space::memory_space> m("numbered", tokens, vocab);
  auto h = Kokkos::create_mirror_view(m);
  for (std::int64_t r = 0; r < tokens; ++r)
    for (std::int64_t j = 0; j < vocab; ++j) h(r, j) = klmini::from_double<T>(double(r * 1000 + j));
  Kokkos::deep_copy(m, h);
  return m;
}

template <class T>
void check_blocks(const std::vector<std::int64_t>& rows, std::int64_t block_rows) {
  const std::int64_t tokens = 23, vocab = 37;
  const auto m = numbered<T>(tokens, vocab);
  klmini::RowStream<decltype(m)> stream(m, rows, block_rows);
  std::int64_t seen = 0, blocks = 0;
  klmini::for_each_block<Space>(
      static_cast<std::int64_t>(rows.size()), block_rows,
      [&](std::int64_t first, std::int64_t n, const float* block) {
        REQUIRE(first == seen);
        REQUIRE(n <= block_rows);
        for (std::int64_t k = 0; k < n; ++k)
          for (std::int64_t j = 0; j < vocab; ++j)
            REQUIRE(block[k * vocab + j] ==
                    klmini::to_float(klmini::from_double<T>(double(rows[std::size_t(first + k)] * 1000 + j))));
        seen += n;
        ++blocks;
      },
      stream);
  CHECK(seen == static_cast<std::int64_t>(rows.size()));
  CHECK(blocks == (seen + block_rows - 1) / block_rows);
}

}  // namespace

TEST_CASE("rows stream block by block: all rows or a sample, fp32 or 16-bit") {
  std::vector<std::int64_t> all(23);
  for (std::int64_t r = 0; r < 23; ++r) all[std::size_t(r)] = r;
  const std::vector<std::int64_t> sample = {0, 1, 2, 5, 9, 10, 11, 17, 22};
  for (const std::int64_t block : {1, 4, 7, 23, 40}) {
    INFO("block rows " << block);
    check_blocks<float>(all, block);
    check_blocks<float>(sample, block);
    check_blocks<klmini::bf16>(sample, block);
    check_blocks<klmini::fp16>(all, block);
  }
}

TEST_CASE("element checks fed in blocks equal one pass and find the first bad element") {
  const std::int64_t rows = 11, vocab = 13;
  std::vector<float> t(rows * vocab), lp(rows * vocab), terms(rows * vocab), grad(rows * vocab);
  const double g = 0.25;
  for (std::int64_t i = 0; i < rows * vocab; ++i) {
    t[i] = float(1 + i % 7) / 64.0f;
    lp[i] = -float(1 + i % 5) * 0.5f;
    terms[i] = float(klmini::kl_term(double(t[i]), double(lp[i]), false));
    grad[i] = float(klmini::kl_grad(double(t[i]), g, false));
  }
  terms[7 * vocab + 4] += 1.0f;  // row 7, column 4
  terms[9 * vocab + 1] += 1.0f;
  grad[3 * vocab + 12] *= 2.0f;  // row 3, column 12
  const auto one_pass = klmini::verify_terms(terms.data(), lp.data(), t.data(), rows, vocab, false);
  const auto one_pass_grad = klmini::verify_gradient(grad.data(), t.data(), rows, vocab, false, g);
  for (const std::int64_t block : {1, 3, 5, 11}) {
    klmini::ElementChecks checks(vocab), grad_checks(vocab);
    for (std::int64_t first = 0; first < rows; first += block) {
      const std::int64_t n = std::min(block, rows - first), at = first * vocab;
      checks.add_terms(terms.data() + at, lp.data() + at, t.data() + at, n, false);
      grad_checks.add_gradient(grad.data() + at, t.data() + at, n, false, g);
    }
    const auto m = checks.terms(), d = grad_checks.gradient();
    INFO("block rows " << block << ": " << m.detail << " / " << d.detail);
    CHECK_FALSE(m.passed);
    CHECK(m.detail == "2 element(s) outside their bound; first at checked row 7, column 4");
    CHECK(m.detail == one_pass.detail);
    CHECK(m.relative_error == one_pass.relative_error);
    CHECK(m.rows_checked == rows);
    CHECK_FALSE(d.passed);
    CHECK(d.detail == "1 gradient element(s) outside their bound; first at checked row 3, column 12");
    CHECK(d.detail == one_pass_grad.detail);
  }
}
