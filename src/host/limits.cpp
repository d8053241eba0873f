#include "host/limits.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "host/errors.hpp"

namespace klmini {

MemoryNeed estimate_memory(const Config& c, std::int64_t rows, int ranks, bool host_memory,
                           const std::vector<Variant>& timed) {
  const double matrix = double(rows) * double(c.vocab) * sizeof(float);  // an fp32 matrix
  const double input = double(rows) * double(c.vocab) * double(element_bytes(c.dtype));
  MemoryNeed need;
  need.space_bytes = 2.0 * input;                                                            // lp and t
  if (!host_memory && times_with_kernel_timer(ranks)) need.space_bytes += kTimerFlushBytes;  // the timer's L2 flush
  if (c.reduction == Reduction::none) need.space_bytes += matrix;                            // the term matrix
  if (c.gradient) need.space_bytes += matrix;                                                // d(loss)/d(lp)
  if (c.log_target) {  // work arrays of the variants that need them (kokkos_kernels' exp(t))
    int work = 0;
    for (const Variant v : timed) work = std::max(work, info(v).log_target_work_matrices);
    need.space_bytes += work * matrix;
  }
  // Verification streams the rows it checks in blocks (a fixed amount, no larger than the
  // matrices); a host run of fp32 inputs reads all of them in place.
  const bool in_place = host_memory && c.dtype == DType::fp32 && c.verify == VerifyMode::full;
  if (c.verify != VerifyMode::off && !in_place)
    need.host_bytes += kVerificationBlocks * std::min(double(kRowBlockBytes), matrix);
  if (!host_memory) {
    if (c.reduction == Reduction::none && !c.output.empty()) need.host_bytes += matrix;  // the matrix, written
    if (c.input == InputKind::npy) need.host_bytes += 2.0 * input;                       // staging of the files
    if (c.gradient && !c.grad_output.empty()) need.host_bytes += matrix;                 // the gradient, written
  }
  return need;
}

std::int64_t host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  std::int64_t kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return -1;
}

namespace {
std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / 1073741824.0);
  return buf;
}
}  // namespace

void check_memory(const MemoryNeed& need, bool host_memory, const std::string& space_name, std::int64_t space_available,
                  std::int64_t host_available, const Config& c) {
  const std::string shape = "tokens x vocab = " + std::to_string(c.tokens) + " x " + std::to_string(c.vocab);
  if (host_memory) {
    const double total = need.space_bytes + need.host_bytes;
    if (host_available >= 0 && total > double(host_available))
      throw DoesNotFit(shape + " needs " + gib(total) + " of host memory (" + space_name + "), but " +
                       gib(double(host_available)) + " are available; use fewer tokens or more ranks");
    return;
  }
  if (space_available >= 0 && need.space_bytes > double(space_available))
    throw DoesNotFit(shape + " needs " + gib(need.space_bytes) + " in " + space_name + " memory, but " +
                     gib(double(space_available)) + " are free; use fewer tokens or more ranks");
  if (host_available >= 0 && need.host_bytes > double(host_available))
    throw DoesNotFit(shape + " needs " + gib(need.host_bytes) + " of host memory for verification and I/O, but " +
                     gib(double(host_available)) + " are available; try verify = \"sample\"");
}

void check_output(const Config& c) {
  if (c.overwrite) return;
  for (const auto& [key, path] : {std::pair<const char*, const std::string&>{"output", c.output},
                                  std::pair<const char*, const std::string&>{"grad_output", c.grad_output}}) {
    std::error_code ec;
    if (!path.empty() && std::filesystem::exists(path, ec))
      throw DeckError(c.source, key, "'" + path + "' exists; set overwrite = true to replace it");
  }
}

}  // namespace klmini
