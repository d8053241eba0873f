// Where a run's inputs come from (src/run/setup.hpp, src/run/row_blocks.hpp): .npy files give the
// loss of the generated data they hold, and bf16 and fp16 inputs are generated in their dtype,
// read from '<u2' and '<f2' files, copied to the host widened and verified on the rounded values.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"
#include "host/npy.hpp"

TEST_CASE("npy input gives the same loss as the generated data it holds") {
  klmini::Config c = small_config(5, 130);
  c.variant = klmini::Variant::fused;
  const klmini::Record generated = klmini::run(c);
  // Write the same generated data to .npy files and read them back through the deck path.
  const auto p = klmini::make_problem<Space>(c, 0, c.tokens);
  auto lp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.lp);
  auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.t);
  const klmini::testing::TempDir dir("npy_input");
  const std::string lp_path = dir.file("lp.npy");
  const std::string t_path = dir.file("t.npy");
  klmini::write_npy_f32(lp_path, 5, 130, lp.data());
  klmini::write_npy_f32(t_path, 5, 130, t.data());
  c.input = klmini::InputKind::npy;
  c.log_probs = lp_path;
  c.targets = t_path;
  const klmini::Record from_files = klmini::run(c);
  CHECK(from_files.results.front().verification.passed);
  CHECK(from_files.loss == generated.loss);  // the same bits in, the same bits out
  // A deck whose shape disagrees with the files: an input error (raised on every rank together)
  // that names the file and both shapes.
  c.tokens = 6;
  REQUIRE_THROWS_AS(klmini::run(c), klmini::InputError);
  REQUIRE_THROWS_WITH(klmini::run(c),
                      Catch::Matchers::ContainsSubstring(
                          "lp.npy: shape (5, 130) does not match the deck's (tokens, vocab) = (6, 130)"));
}

namespace {

// A .npy of raw 16-bit elements (the format klmini reads for bf16 '<u2' and fp16 '<f2').
void write_npy_16(const std::string& path, const char* descr, std::int64_t rows, std::int64_t cols, const void* data) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                     std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {char(dict.size() & 0xff), char(dict.size() >> 8)};
  out.write(len, 2);
  out << dict;
  out.write(static_cast<const char*>(data), rows * cols * 2);
}

template <class T>
void check_16_bit_inputs(klmini::DType dtype) {
  klmini::Config c = small_config(6, 1032);
  c.dtype = dtype;
  c.gradient = true;
  const klmini::Record generated = klmini::run(c);
  CHECK(generated.input_bytes == 2.0 * 6 * 1032 * 2);
  for (const auto& v : generated.results) {
    INFO(klmini::to_string(dtype) << " " << klmini::variant_name(v.variant) << ": " << v.verification.detail);
    CHECK(v.variant != klmini::Variant::kokkos_kernels);
    CHECK(v.verification.passed);
    // The reference reads the same rounded inputs: only the kernels' own fp32 error remains.
    CHECK(v.verification.relative_error < 1e-6);
  }
  // The same generated elements written to files come back as the same loss.
  const auto p = klmini::make_problem<Space, T>(c, 0, c.tokens);
  auto lp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.lp);
  auto t = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), p.t);
  const klmini::testing::TempDir dir(std::string("npy_") + klmini::to_string(dtype));
  const std::string lp_path = dir.file("lp.npy");
  const std::string t_path = dir.file("t.npy");
  write_npy_16(lp_path, klmini::npy_descr<T>(), 6, 1032, lp.data());
  write_npy_16(t_path, klmini::npy_descr<T>(), 6, 1032, t.data());
  c.input = klmini::InputKind::npy;
  c.log_probs = lp_path;
  c.targets = t_path;
  c.gradient = false;
  const klmini::Record from_files = klmini::run(c);
  CHECK(from_files.results.front().verification.passed);
  CHECK(from_files.loss == generated.loss);
  // The term matrix of 16-bit inputs (fp32 output), element by element.
  klmini::Config none = c;
  none.input = klmini::InputKind::generate;
  none.log_probs.clear();
  none.targets.clear();
  none.reduction = klmini::Reduction::none;
  none.variant = klmini::Variant::fused;
  const klmini::Record terms = klmini::run(none);
  CHECK(terms.results.front().variant == klmini::Variant::terms);
  INFO(terms.results.front().verification.detail);
  CHECK(terms.results.front().verification.passed);
  // Sampled verification copies single rows of 16-bit matrices to the host, widened to fp32:
  // the same values as the whole matrix's conversion.
  const std::vector<std::int64_t> some_rows = {1, 4, 5};
  const auto picked = klmini::rows_on_host(p.t, some_rows);
  const auto every = klmini::rows_on_host(p.t, klmini::sample_rows(c.tokens, c.tokens, 0));
  for (std::size_t k = 0; k < some_rows.size(); ++k)
    for (std::int64_t j = 0; j < c.vocab; ++j) REQUIRE(picked[k * c.vocab + j] == every[some_rows[k] * c.vocab + j]);
  // A sampled run: 5 of the 6 rows (an estimate from fewer rows has too few degrees of
  // freedom for its 6-sigma bound to mean much).
  klmini::Config sampled = none;
  sampled.reduction = klmini::Reduction::batchmean;
  sampled.verify = klmini::VerifyMode::sample;
  sampled.sample_rows = 5;
  const klmini::Record s = klmini::run(sampled);
  INFO(s.results.front().verification.detail);
  CHECK(s.results.front().verification.passed);
  CHECK(s.results.front().verification.rows_checked == 5);
  c.dtype = klmini::DType::fp32;  // the files are not fp32: a clear error naming the dtype
  REQUIRE_THROWS_WITH(klmini::run(c), Catch::Matchers::ContainsSubstring(lp_path) &&
                                          Catch::Matchers::ContainsSubstring("set the deck's dtype to"));
}

}  // namespace

TEST_CASE(
    "dtype = bf16 and fp16: generated in the dtype, read from '<u2' and '<f2' files, verified on the rounded inputs") {
  check_16_bit_inputs<klmini::bf16>(klmini::DType::bf16);
  check_16_bit_inputs<klmini::fp16>(klmini::DType::fp16);
  // Rounding really happened: the bf16 loss differs from the fp32 one, by bf16's rounding.
  klmini::Config c = small_config(6, 1032);
  c.variant = klmini::Variant::fused;
  const double fp32_loss = klmini::run(c).loss;
  c.dtype = klmini::DType::bf16;
  const double bf16_loss = klmini::run(c).loss;
  CHECK(bf16_loss != fp32_loss);
  CHECK(std::fabs(bf16_loss - fp32_loss) < 0.05 * std::fabs(fp32_loss));
}

TEST_CASE("make_problem takes the deck's precision; the exact log's table is made once, before timing") {
  klmini::Config c = small_config(3, 40);
  CHECK(klmini::make_problem<Space>(c, 0, c.tokens).precision == klmini::Precision::fast);
  c.precision = klmini::Precision::exact;
  const auto p = klmini::make_problem<Space>(c, 0, c.tokens);
  CHECK(p.precision == klmini::Precision::exact);
  using Memory = typename Space::memory_space;
  const double* table = klmini::variants::exact_log_table_on<Memory>();
  CHECK(klmini::variants::exact_log_table_on<Memory>() == table);  // the same table every call
  const std::vector<double> expected = klmini::math::exact_log_table();
  std::vector<double> got(expected.size());
  Kokkos::deep_copy(
      Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(got.data(), got.size()),
      Kokkos::View<const double*, Memory, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(table, got.size()));
  CHECK(got == expected);
}
