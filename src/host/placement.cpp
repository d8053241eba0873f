#include "host/placement.hpp"

#include <stdlib.h>  // setenv

#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

namespace klmini {

namespace {

std::string count_of(long n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

}  // namespace

Oversubscription find_oversubscription(const std::vector<RankPlacement>& ranks) {
  std::vector<int> nodes;  // in the order they first appear
  std::map<int, std::vector<const RankPlacement*>> by_node;
  for (const RankPlacement& r : ranks) {
    if (by_node.find(r.node) == by_node.end()) nodes.push_back(r.node);
    by_node[r.node].push_back(&r);
  }
  std::vector<std::string> problems;
  for (const int node : nodes) {
    const auto& on_node = by_node[node];
    std::set<int> cpus;
    long threads = 0;
    std::size_t known = 0;
    bool same_threads = true;
    for (const RankPlacement* r : on_node) {
      if (r->cpus.empty()) continue;
      cpus.insert(r->cpus.begin(), r->cpus.end());
      threads += r->threads;
      same_threads = same_threads && r->threads == on_node.front()->threads;
      ++known;
    }
    const std::string where = count_of(long(cpus.size()), "CPU") + " of node " + on_node.front()->host;
    if (known > 1 && threads > long(cpus.size())) {
      if (same_threads)
        problems.push_back(count_of(long(known), "rank") + " x " + count_of(on_node.front()->threads, "thread") +
                           " on " + where);
      else
        problems.push_back(count_of(long(known), "rank") + ", " + count_of(threads, "thread") + " in all, on " + where);
    }
    // Each rank against its own mask: the first such rank named, the others counted.
    std::vector<const RankPlacement*> over;
    for (const RankPlacement* r : on_node)
      if (!r->cpus.empty() && r->threads > int(r->cpus.size())) over.push_back(r);
    if (!over.empty()) {
      const RankPlacement& r = *over.front();
      std::string p = "rank " + std::to_string(r.rank) + " runs " + count_of(r.threads, "thread") + " on " +
                      count_of(long(r.cpus.size()), "CPU") + " (its affinity mask)";
      if (over.size() > 1) p += " and " + count_of(long(over.size() - 1), "more rank") + " likewise";
      problems.push_back(p);
    }
  }
  Oversubscription o;
  if (problems.empty()) return o;
  o.oversubscribed = true;
  for (const std::string& p : problems) o.message += p + "; ";
  o.message += "times and GB/s are not the hardware's";
  return o;
}

namespace {
// The CPUs thread `tid` (0: the calling one) may run on, ascending; empty when unknown. A mask
// sized for the CPUs configured, grown while the kernel's is larger (EINVAL).
std::vector<int> thread_affinity(pid_t tid) {
  for (long n = std::max(sysconf(_SC_NPROCESSORS_CONF), 64L); n <= (1L << 20); n *= 2) {
    cpu_set_t* set = CPU_ALLOC(n);
    if (!set) return {};
    const std::size_t bytes = CPU_ALLOC_SIZE(n);
    CPU_ZERO_S(bytes, set);
    if (sched_getaffinity(tid, bytes, set) == 0) {
      std::vector<int> cpus;
      for (long c = 0; c < n; ++c)
        if (CPU_ISSET_S(c, bytes, set)) cpus.push_back(int(c));
      CPU_FREE(set);
      return cpus;
    }
    const int error = errno;
    CPU_FREE(set);
    if (error != EINVAL) return {};
  }
  return {};
}
}  // namespace

std::vector<int> affinity_cpus() {
  // The union over the process's threads: with OMP_PROC_BIND set, the OpenMP runtime binds each
  // thread (the first one too, as it loads) to its own place, so one thread's mask is one CPU;
  // the threads together cover the CPUs the run computes on.
  std::set<int> cpus;
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (const dirent* entry = readdir(tasks)) {
      const long tid = std::strtol(entry->d_name, nullptr, 10);
      if (tid <= 0) continue;
      for (const int c : thread_affinity(pid_t(tid))) cpus.insert(c);
    }
    closedir(tasks);
  }
  if (cpus.empty()) return thread_affinity(0);
  return {cpus.begin(), cpus.end()};
}

std::vector<RankPlacement> gather_placements(const Comm& comm, int threads, RankGpu gpu) {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) name[0] = '\0';
  const std::string host = *name ? name : "?";
  const std::vector<int> cpus = affinity_cpus();
  // Node, threads, local rank, GPU and GPUs seen, the CPU count and ids, then the host name.
  constexpr std::size_t kFixed = 6;
  std::vector<std::int64_t> words = {comm.node(), threads,     comm.node_rank(),
                                     gpu.id,      gpu.visible, std::int64_t(cpus.size())};
  words.insert(words.end(), cpus.begin(), cpus.end());
  words.insert(words.end(), host.begin(), host.end());
  std::vector<RankPlacement> ranks;
  const auto all = comm.gather(words);
  for (std::size_t k = 0; k < all.size(); ++k) {
    const std::vector<std::int64_t>& w = all[k];
    RankPlacement r;
    r.rank = comm.root() ? int(k) : comm.rank();
    r.node = int(w[0]);
    r.threads = int(w[1]);
    r.local_rank = int(w[2]);
    r.gpu = {int(w[3]), int(w[4])};
    const auto n = std::size_t(w[5]);
    r.cpus.assign(w.begin() + kFixed, w.begin() + std::ptrdiff_t(kFixed + n));
    for (std::size_t i = kFixed + n; i < w.size(); ++i) r.host.push_back(static_cast<char>(w[i]));
    ranks.push_back(r);
  }
  return ranks;
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  if (cpus.empty()) return "?";
  std::string text;
  for (std::size_t k = 0; k < cpus.size();) {
    std::size_t end = k;  // the run of consecutive ids from cpus[k]
    while (end + 1 < cpus.size() && cpus[end + 1] == cpus[end] + 1) ++end;
    text += (text.empty() ? "" : ",") + std::to_string(cpus[k]);
    if (end > k) text += "-" + std::to_string(cpus[end]);
    k = end + 1;
  }
  return text;
}

std::string placement_text(const RankPlacement& r) {
  std::string text = "host " + r.host + ", local rank " + std::to_string(r.local_rank) + ", " +
                     count_of(r.threads, "thread") + " on CPUs " + cpu_list_text(r.cpus) + "; ";
  if (r.gpu.id < 0) return text + "no GPU";
  text += "GPU " + std::to_string(r.gpu.id) + " of the " + std::to_string(r.gpu.visible) + " it sees";
  const std::string rule = "local rank " + std::to_string(r.local_rank) + " mod " + std::to_string(r.gpu.visible);
  if (r.gpu.visible > 0 && r.gpu.id == r.local_rank % r.gpu.visible) return text + " (" + rule + ")";
  return text + ", not " + rule + " (--kokkos-map-device-id-by=mpi_rank picks that one)";
}

namespace {
// Set in the environment of the second start, so that the report can say who bound the threads.
constexpr const char* kBoundByKlmini = "KLMINI_THREADS_BOUND";
}  // namespace

void restart_with_thread_binding(char** argv, bool openmp) {
  const char* choice = std::getenv("KLMINI_BIND_THREADS");
  if (!openmp || (choice && std::strcmp(choice, "0") == 0) || std::getenv("OMP_PROC_BIND") ||
      std::getenv("OMP_PLACES") || std::getenv(kBoundByKlmini) || started_by_mpi_launcher())
    return;
  if (setenv("OMP_PROC_BIND", "spread", 1) != 0 || setenv("OMP_PLACES", "threads", 1) != 0 ||
      setenv(kBoundByKlmini, "1", 1) != 0)
    return;
  execv("/proc/self/exe", argv);  // returns only on failure: go on as this process, unbound
  unsetenv("OMP_PROC_BIND");
  unsetenv("OMP_PLACES");
  unsetenv(kBoundByKlmini);
}

std::string thread_binding() {
  const char* bind = std::getenv("OMP_PROC_BIND");
  const char* places = std::getenv("OMP_PLACES");
  if (!bind && !places) return "none (OMP_PROC_BIND not set)";
  std::string text;
  if (bind) text += std::string("OMP_PROC_BIND=") + bind;
  if (places) text += std::string(text.empty() ? "" : " ") + "OMP_PLACES=" + places;
  return text + (std::getenv(kBoundByKlmini) ? " (set by klmini)" : " (given)");
}

}  // namespace klmini
