// Estimating a run's memory before allocating, and refusing runs that cannot fit or would
// overwrite a file (src/host/limits.cpp).
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>
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
  c.variant = klmini::Variant::fused;
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
  c.variant = std::nullopt;                                                                    // all
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

TEST_CASE("a rank whose kernels could add more units than the fixed-point sum keeps exact is refused") {
  const std::int64_t bound = std::int64_t(1) << 31;
  // 65536 rows of 32768 chunks (Cuda units of 4 columns at vocab 131072): exactly the bound.
  CHECK_NOTHROW(klmini::check_sum_units(65536, 32768, bound, "Cuda"));
  REQUIRE_THROWS_AS(klmini::check_sum_units(65537, 32768, bound, "Cuda"), klmini::DoesNotFit);
  REQUIRE_THROWS_WITH(klmini::check_sum_units(65537, 32768, bound, "Cuda"),
                      ContainsSubstring("65537 rows would add up to 32768 units a row") &&
                          ContainsSubstring("more than the 2147483648 it keeps exact") &&
                          ContainsSubstring("at most 65536 rows"));
  CHECK_NOTHROW(klmini::check_sum_units(std::int64_t(1) << 40, 0, bound, "OpenMP"));  // no columns
}

TEST_CASE("a run that does not fit is refused with the shape and the sizes") {
  klmini::Config c;
  c.tokens = 1 << 20;
  c.vocab = 1 << 12;
  const auto need = klmini::estimate_memory(c, c.tokens, 1, false, kFusedOnly);
  const klmini::HostMemory unknown, one_gib{1 << 30, "MemAvailable"}, plenty{std::int64_t(64) << 30, "MemAvailable"};
  REQUIRE_THROWS_AS(klmini::check_memory(need, false, "Cuda", 1 << 30, unknown, c), klmini::DoesNotFit);
  REQUIRE_THROWS_WITH(klmini::check_memory(need, false, "Cuda", 1 << 30, unknown, c),
                      ContainsSubstring("1048576 x 4096 needs 32.25 GiB in Cuda memory, but 1.00 GiB are free"));
  REQUIRE_THROWS_WITH(
      klmini::check_memory(need, true, "Host", -1, {1 << 30, "the cgroup memory limit of /job"}, c),
      ContainsSubstring("of host memory (Host), but 1.00 GiB are available (the cgroup memory limit of /job)"));
  CHECK_NOTHROW(klmini::check_memory(need, false, "Cuda", -1, unknown, c));  // unknown: not checked
  CHECK_NOTHROW(klmini::check_memory(need, false, "Cuda", std::int64_t(64) << 30, plenty, c));
  CHECK_THROWS(klmini::check_memory(need, true, "Host", -1, one_gib, c));
  CHECK(klmini::host_available_memory().bytes > 0);
}

TEST_CASE("the ranks of a node are refused when their needs together exceed the node's memory") {
  klmini::Config c;
  c.tokens = 32768;
  c.vocab = 4096;
  const klmini::MemoryNeed need{1073741824.0, 536870912.0};           // 1 GiB in the space, 0.5 GiB on the host
  CHECK(klmini::host_bytes_on_node(need, true) == 1.5 * (1 << 30));   // host memory: all of it
  CHECK(klmini::host_bytes_on_node(need, false) == 0.5 * (1 << 30));  // a device's: its host part
  const klmini::HostMemory job{std::int64_t(3) << 30, "the cgroup memory limit of /slurm/job_7"};
  CHECK_NOTHROW(klmini::check_node_memory(3.0 * (1 << 30), 2, job, c));  // exactly the limit fits
  REQUIRE_THROWS_AS(klmini::check_node_memory(4.5 * (1 << 30), 3, job, c), klmini::DoesNotFit);
  REQUIRE_THROWS_WITH(klmini::check_node_memory(4.5 * (1 << 30), 3, job, c),
                      ContainsSubstring("the 3 ranks on this node need 4.50 GiB of host memory together "
                                        "(tokens x vocab = 32768 x 4096 split across the ranks), but 3.00 GiB are "
                                        "available on the node (the cgroup memory limit of /slurm/job_7)"));
  CHECK_NOTHROW(klmini::check_node_memory(1e18, 64, {}, c));  // an unknown limit is not checked
}

namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("host memory: the least of MemAvailable and every cgroup limit on the path, v1 and v2") {
  const klmini::testing::TempDir dir("cgroup");
  const std::filesystem::path root = dir.path();
  const std::int64_t gib = std::int64_t(1) << 30;
  write_file(root / "proc/meminfo", "MemTotal: 33554432 kB\nMemAvailable: 16777216 kB\n");  // 16 GiB
  SECTION("no cgroup limit: MemAvailable") {
    write_file(root / "proc/self/cgroup", "0::/user.slice\n");
    write_file(root / "proc/self/mountinfo", "31 23 0:28 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
    write_file(root / "sys/fs/cgroup/user.slice/memory.max", "max\n");
    const klmini::HostMemory m = klmini::host_available_memory(root.string());
    CHECK(m.bytes == 16 * gib);
    CHECK(m.limit == "MemAvailable");
  }
  SECTION("cgroup v2: a job's limit less its use, less the inactive file cache") {
    write_file(root / "proc/self/cgroup", "0::/slurm/job_7/step_0\n");
    write_file(root / "proc/self/mountinfo", "31 23 0:28 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
    write_file(root / "sys/fs/cgroup/slurm/job_7/step_0/memory.max", "max\n");
    write_file(root / "sys/fs/cgroup/slurm/job_7/memory.max", std::to_string(3 * gib) + "\n");
    write_file(root / "sys/fs/cgroup/slurm/job_7/memory.current", std::to_string(2 * gib) + "\n");
    write_file(root / "sys/fs/cgroup/slurm/job_7/memory.stat",
               "anon 1\ninactive_file " + std::to_string(gib / 2) + "\n");
    const klmini::HostMemory m = klmini::host_available_memory(root.string());
    CHECK(m.bytes == 3 * gib - (2 * gib - gib / 2));
    CHECK(m.limit == "the cgroup memory limit of /slurm/job_7");
  }
  SECTION("cgroup v1: the memory controller's hierarchy, a subtree mounted in a container") {
    write_file(root / "proc/self/cgroup", "5:devices:/docker/abc\n4:cpu,memory:/docker/abc/inner\n0::/\n");
    write_file(root / "proc/self/mountinfo",
               "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
               "33 31 0:30 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,cpu,memory\n");
    write_file(root / "sys/fs/cgroup/memory/inner/memory.limit_in_bytes", std::to_string(gib) + "\n");
    write_file(root / "sys/fs/cgroup/memory/inner/memory.usage_in_bytes", std::to_string(gib / 4) + "\n");
    write_file(root / "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");  // no limit
    const klmini::HostMemory m = klmini::host_available_memory(root.string());
    CHECK(m.bytes == gib - gib / 4);
    CHECK(m.limit == "the cgroup memory limit of /inner");
  }
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

TEST_CASE("the last-level cache: the highest level's size over its distinct instances") {
  const klmini::testing::TempDir dir("cache");
  const std::filesystem::path cpus = dir.path() / "sys/devices/system/cpu";
  // Two core complexes of two CPUs, 32 MiB of L3 each; L1 and L2 per CPU; an instruction cache.
  for (int cpu = 0; cpu < 4; ++cpu) {
    const std::filesystem::path cache = cpus / ("cpu" + std::to_string(cpu)) / "cache";
    auto index = [&](int i, const char* type, int level, const char* size, const std::string& shared) {
      const std::filesystem::path d = cache / ("index" + std::to_string(i));
      write_file(d / "type", std::string(type) + "\n");
      write_file(d / "level", std::to_string(level) + "\n");
      write_file(d / "size", std::string(size) + "\n");
      write_file(d / "shared_cpu_list", shared + "\n");
    };
    index(0, "Data", 1, "32K", std::to_string(cpu));
    index(1, "Instruction", 1, "32K", std::to_string(cpu));
    index(2, "Unified", 2, "1024K", std::to_string(cpu));
    index(3, "Unified", 3, "32768K", cpu < 2 ? "0-1" : "2-3");
  }
  write_file(cpus / "cpufreq/policy0", "not a cpu\n");
  CHECK(klmini::last_level_cache_bytes(dir.path().string()) == std::int64_t(64) << 20);
  const klmini::testing::TempDir empty("nocache");
  CHECK(klmini::last_level_cache_bytes(empty.path().string()) == -1);
}
