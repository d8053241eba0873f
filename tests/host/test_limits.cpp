// Estimating a run's memory before allocating, and refusing runs that cannot fit or would
// overwrite a file (src/host/limits.cpp).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "common/temp_dir.hpp"
#include "host/errors.hpp"
#include "host/limits.hpp"

using Catch::Matchers::ContainsSubstring;

namespace {
// The variants a run times (timed_variants): kokkos_kernels, or not.
const std::vector<klmini::Variant> kWithKokkosKernels = {klmini::Variant::fused, klmini::Variant::flat,
                                                         klmini::Variant::kokkos_kernels};
const std::vector<klmini::Variant> kFusedOnly = {klmini::Variant::fused};
}  // namespace

TEST_CASE("the memory estimate counts every array a run allocates") {
  klmini::Config c;
  c.tokens = 1000;
  c.vocab = 250;  // 1 MB per fp32 matrix
  const double m = 1000.0 * 250 * 4;
  auto host = klmini::estimate_memory(c, 1000, 1, true, kWithKokkosKernels);
  CHECK(host.space_bytes == 2 * m);
  CHECK(host.host_bytes == 0.0);  // a host run verifies in place
  auto device = klmini::estimate_memory(c, 1000, 1, false, kWithKokkosKernels);
  const double flush = klmini::kTimerFlushBytes;  // a device timer's L2 flush buffer
  CHECK(flush == 256.0 * 1024 * 1024);
  CHECK(device.space_bytes == 2 * m + flush);
  // Verification streams blocks of rows: 3 matrices x (2 staging + 1 fp32) blocks, each no
  // larger than the matrix (1 MB here), not a copy of the inputs.
  CHECK(device.host_bytes == 9 * m);
  c.reduction = klmini::Reduction::none;
  c.variant = "fused";
  CHECK(klmini::estimate_memory(c, 1000, 1, false, kWithKokkosKernels).space_bytes == 3 * m + flush);
  CHECK(klmini::estimate_memory(c, 1000, 1, false, kWithKokkosKernels).host_bytes == 9 * m);
  c.output = "terms.npy";  // the term matrix written: one host copy of it
  CHECK(klmini::estimate_memory(c, 1000, 1, false, kWithKokkosKernels).host_bytes == 10 * m);
  c.output.clear();
  c.tokens = 1000000;  // 1 GB per matrix: the blocks stay at their fixed size
  CHECK(klmini::estimate_memory(c, 1000000, 1, false, kWithKokkosKernels).host_bytes ==
        9.0 * double(klmini::kRowBlockBytes));
  c.tokens = 1000;
  c.reduction = klmini::Reduction::batchmean;
  c.log_target = true;
  c.variant = "all";
  CHECK(klmini::estimate_memory(c, 1000, 1, true, kWithKokkosKernels).space_bytes == 3 * m);   // kokkos_kernels' exp(t)
  CHECK(klmini::estimate_memory(c, 500, 2, true, kWithKokkosKernels).space_bytes == 1.5 * m);  // this rank's rows only
  // variant = "all" where kokkos_kernels does not run (exact terms, other dtypes, a build without
  // it): no exp(t).
  CHECK(klmini::estimate_memory(c, 1000, 1, true, kFusedOnly).space_bytes == 2 * m);
  // Several ranks time by wall clock: no flush buffer on the device.
  CHECK(klmini::estimate_memory(c, 500, 2, false, kFusedOnly).space_bytes == 1.0 * m);
  CHECK(klmini::estimate_memory(c, 1000, 1, false, kFusedOnly).space_bytes == 2 * m + flush);
  c.gradient = true;
  CHECK(klmini::estimate_memory(c, 1000, 1, true, kWithKokkosKernels).space_bytes == 4 * m);  // + the gradient
}

TEST_CASE("16-bit inputs: half the input bytes on the space, fp32 blocks for the reference") {
  klmini::Config c;
  c.tokens = 1000;
  c.vocab = 250;
  c.dtype = klmini::DType::bf16;
  const double m = 1000.0 * 250 * 4;  // one fp32 matrix
  const auto host = klmini::estimate_memory(c, 1000, 1, true, kWithKokkosKernels);
  CHECK(host.space_bytes == m);     // lp and t at 2 bytes each
  CHECK(host.host_bytes == 9 * m);  // the reference reads fp32 blocks
  const auto device = klmini::estimate_memory(c, 1000, 1, false, kWithKokkosKernels);
  CHECK(device.space_bytes == m + klmini::kTimerFlushBytes);
  CHECK(device.host_bytes == 9 * m);  // staged and converted block by block
  c.gradient = true;
  CHECK(klmini::estimate_memory(c, 1000, 1, false, kWithKokkosKernels).space_bytes ==
        2 * m + klmini::kTimerFlushBytes);  // + the fp32 gradient
  c.verify = klmini::VerifyMode::off;
  CHECK(klmini::estimate_memory(c, 1000, 1, true, kWithKokkosKernels).host_bytes == 0.0);
}

TEST_CASE("a run that does not fit is refused with the shape and the sizes") {
  klmini::Config c;
  c.tokens = 1 << 20;
  c.vocab = 1 << 12;
  const auto need = klmini::estimate_memory(c, c.tokens, 1, false, kFusedOnly);
  REQUIRE_THROWS_AS(klmini::check_memory(need, false, "Cuda", 1 << 30, -1, c), klmini::DoesNotFit);
  REQUIRE_THROWS_WITH(klmini::check_memory(need, false, "Cuda", 1 << 30, -1, c),
                      ContainsSubstring("1048576 x 4096 needs 32.25 GiB in Cuda memory, but 1.00 GiB are free"));
  REQUIRE_THROWS_WITH(klmini::check_memory(need, true, "Host", -1, 1 << 30, c), ContainsSubstring("of host memory"));
  CHECK_NOTHROW(klmini::check_memory(need, false, "Cuda", -1, -1, c));  // unknown: not checked
  CHECK_NOTHROW(klmini::check_memory(need, false, "Cuda", std::int64_t(64) << 30, std::int64_t(64) << 30, c));
  CHECK(klmini::host_available_bytes() > 0);
}

TEST_CASE("an existing output is not overwritten unless the deck says so") {
  const klmini::testing::TempDir dir("limits");
  const std::string path = dir.file("out.npy");
  klmini::Config c;
  c.reduction = klmini::Reduction::none;
  c.output = path;
  CHECK_NOTHROW(klmini::check_output(c));
  std::ofstream(path) << "x";
  REQUIRE_THROWS_WITH(klmini::check_output(c), ContainsSubstring("exists; set overwrite = true"));
  c.overwrite = true;
  CHECK_NOTHROW(klmini::check_output(c));
}
