#include "host/limits.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <sys/resource.h>

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

namespace {

// The first whitespace-separated number after `key` in a file of "key value" lines.
std::int64_t value_of(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string k;
  std::int64_t v = 0;
  std::string rest;
  while (in >> k >> v) {
    if (k == key) return v;
    std::getline(in, rest);
  }
  return -1;
}

// A file holding one number ("max", v2's "no limit", and a missing file: -1).
std::int64_t number_in(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!(in >> text) || text == "max") return -1;
  try {
    return std::stoll(text);
  } catch (const std::exception&) {
    return -1;
  }
}

struct CgroupMount {
  std::string mount_point, mount_root;
  bool v2 = false;
};

// The memory controller's mount: cgroup v2, or v1 with "memory" among its options.
std::vector<CgroupMount> memory_mounts(const std::string& root) {
  std::vector<CgroupMount> mounts;
  std::ifstream in(root + "/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string x; fields >> x;) f.push_back(x);
    const auto dash = std::find(f.begin(), f.end(), "-");
    if (f.size() < 5 || f.end() - dash < 4) continue;  // "- TYPE SOURCE OPTIONS" ends every line
    const std::string& type = dash[1];
    const std::string& options = dash[3];
    const bool v1_memory = type == "cgroup" && ("," + options + ",").find(",memory,") != std::string::npos;
    if (type == "cgroup2" || v1_memory) mounts.push_back({f[4], f[3], type == "cgroup2"});
  }
  return mounts;
}

// What the cgroups of this process leave, and which one leaves the least.
HostMemory cgroup_available(const std::string& root) {
  HostMemory best;
  std::ifstream in(root + "/proc/self/cgroup");
  std::string line;
  const std::vector<CgroupMount> mounts = memory_mounts(root);
  while (std::getline(in, line)) {  // "ID:controllers:path"; v2: "0::path"
    const std::size_t a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = "," + line.substr(a + 1, b - a - 1) + ",";
    const bool v2 = controllers == ",,";
    if (!v2 && controllers.find(",memory,") == std::string::npos) continue;
    std::string path = line.substr(b + 1);
    for (const CgroupMount& m : mounts) {
      if (m.v2 != v2) continue;
      std::string inside = path;  // the path below the mount's own root (containers mount a subtree)
      if (m.mount_root != "/" && inside.compare(0, m.mount_root.size(), m.mount_root) == 0)
        inside = inside.substr(m.mount_root.size());
      for (std::filesystem::path p = inside;; p = p.parent_path()) {
        const std::string dir = root + m.mount_point + (p.string() == "/" ? "" : p.string());
        const std::int64_t limit = number_in(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"));
        // v1 reports "no limit" as a huge number (2^63 rounded down to a page).
        if (limit >= 0 && limit < (std::int64_t(1) << 62)) {
          const std::int64_t used = number_in(dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes"));
          const std::int64_t inactive_file =
              std::max<std::int64_t>(0, value_of(dir + "/memory.stat", v2 ? "inactive_file" : "total_inactive_file"));
          const std::int64_t left = std::max<std::int64_t>(0, limit - std::max<std::int64_t>(0, used - inactive_file));
          if (best.bytes < 0 || left < best.bytes)
            best = {left, "the cgroup memory limit of " + (p.string().empty() ? std::string("/") : p.string())};
        }
        if (p == p.parent_path() || p.string().empty()) break;
      }
    }
  }
  return best;
}

// ulimit -v less what the process has mapped already.
HostMemory address_space_available(const std::string& root) {
  rlimit r{};
  if (!root.empty() || getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return {};
  const std::int64_t mapped = value_of("/proc/self/status", "VmSize:") * 1024;
  return {std::max<std::int64_t>(0, std::int64_t(r.rlim_cur) - std::max<std::int64_t>(0, mapped)), "ulimit -v"};
}

}  // namespace

std::int64_t last_level_cache_bytes(const std::string& root) {
  namespace fs = std::filesystem;
  const fs::path cpus = root + "/sys/devices/system/cpu";
  std::error_code ec;
  int top_level = 0;
  std::map<std::string, std::int64_t> instances;  // shared_cpu_list -> size, at top_level
  for (const auto& cpu : fs::directory_iterator(cpus, ec)) {
    const std::string name = cpu.path().filename().string();
    if (name.size() < 4 || name.compare(0, 3, "cpu") != 0 ||
        name.find_first_not_of("0123456789", 3) != std::string::npos)
      continue;
    for (const auto& index : fs::directory_iterator(cpu.path() / "cache", ec)) {
      auto read = [&](const char* file) {
        std::ifstream in(index.path() / file);
        std::string v;
        in >> v;
        return v;
      };
      const std::string type = read("type"), size = read("size"), shared = read("shared_cpu_list");
      if (type == "Instruction" || size.empty()) continue;
      int level = 0;
      std::int64_t bytes = 0;
      try {
        level = std::stoi(read("level"));
        std::size_t end = 0;
        bytes = std::stoll(size, &end);
        const std::string unit = size.substr(end);
        bytes <<= unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : 0;
      } catch (const std::exception&) {
        continue;
      }
      if (level > top_level) {
        top_level = level;
        instances.clear();
      }
      if (level == top_level) instances[shared] = bytes;
    }
  }
  if (instances.empty()) return -1;
  std::int64_t total = 0;
  for (const auto& [cpus_sharing, bytes] : instances) total += bytes;
  return total;
}

HostMemory host_available_memory(const std::string& root) {
  HostMemory best;
  const std::int64_t kib = value_of(root + "/proc/meminfo", "MemAvailable:");
  if (kib >= 0) best = {kib * 1024, "MemAvailable"};
  for (const HostMemory& m : {cgroup_available(root), address_space_available(root)})
    if (m.bytes >= 0 && (best.bytes < 0 || m.bytes < best.bytes)) best = m;
  return best;
}

namespace {
std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / 1073741824.0);
  return buf;
}
}  // namespace

void check_memory(const MemoryNeed& need, bool host_memory, const std::string& space_name, std::int64_t space_available,
                  const HostMemory& host, const Config& c) {
  const std::int64_t host_available = host.bytes;
  const std::string limit = " (" + host.limit + ")";
  const std::string shape = "tokens x vocab = " + std::to_string(c.tokens) + " x " + std::to_string(c.vocab);
  if (host_memory) {
    const double total = need.space_bytes + need.host_bytes;
    if (host_available >= 0 && total > double(host_available))
      throw DoesNotFit(shape + " needs " + gib(total) + " of host memory (" + space_name + "), but " +
                       gib(double(host_available)) + " are available" + limit + "; use fewer tokens or more ranks");
    return;
  }
  if (space_available >= 0 && need.space_bytes > double(space_available))
    throw DoesNotFit(shape + " needs " + gib(need.space_bytes) + " in " + space_name + " memory, but " +
                     gib(double(space_available)) + " are free; use fewer tokens or more ranks");
  if (host_available >= 0 && need.host_bytes > double(host_available))
    throw DoesNotFit(shape + " needs " + gib(need.host_bytes) + " of host memory for verification and I/O, but " +
                     gib(double(host_available)) + " are available" + limit + "; try verify = \"sample\"");
}

double host_bytes_on_node(const MemoryNeed& need, bool host_memory) {
  return host_memory ? need.space_bytes + need.host_bytes : need.host_bytes;
}

void check_node_memory(double node_host_bytes, int ranks_on_node, const HostMemory& host, const Config& c) {
  if (host.bytes < 0 || node_host_bytes <= double(host.bytes)) return;
  throw DoesNotFit("the " + std::to_string(ranks_on_node) + " ranks on this node need " + gib(node_host_bytes) +
                   " of host memory together (tokens x vocab = " + std::to_string(c.tokens) + " x " +
                   std::to_string(c.vocab) + " split across the ranks), but " + gib(double(host.bytes)) +
                   " are available on the node (" + host.limit + "); use fewer ranks per node, fewer tokens or " +
                   "more nodes");
}

void check_sum_units(std::int64_t rows, std::int64_t units_per_row, std::int64_t max_units,
                     const std::string& space_name) {
  if (units_per_row <= 0 || rows <= max_units / units_per_row) return;
  throw DoesNotFit("this rank's " + std::to_string(rows) + " rows would add up to " + std::to_string(units_per_row) +
                   " units a row into the kernels' fixed-point sum on " + space_name + ", more than the " +
                   std::to_string(max_units) + " it keeps exact: give each rank at most " +
                   std::to_string(max_units / units_per_row) + " rows (more ranks)");
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
