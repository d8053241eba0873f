// The oversubscription verdict (src/host/placement.cpp): threads against affinity masks, per rank
// and per node, on placements that real launchers make.
#include <catch2/catch_test_macros.hpp>

#include <sched.h>

#include <algorithm>
#include <string>
#include <vector>

#include "host/comm.hpp"
#include "host/placement.hpp"

namespace {

using klmini::RankPlacement;

// `count` ranks on node `node` named `host`, each with `threads` threads and the mask `cpus`.
std::vector<RankPlacement> ranks(int count, int threads, const std::vector<int>& cpus, int node = 0,
                                 const std::string& host = "n0", int first_rank = 0) {
  std::vector<RankPlacement> out;
  for (int k = 0; k < count; ++k) out.push_back({first_rank + k, node, host, threads, cpus, k, {}});
  return out;
}

std::vector<RankPlacement> join(std::vector<RankPlacement> a, const std::vector<RankPlacement>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

TEST_CASE("as many threads as CPUs, or fewer, is not oversubscribed") {
  // One rank, OpenMP over the whole machine.
  auto o = klmini::find_oversubscription(ranks(1, 2, {0, 1}));
  CHECK_FALSE(o.oversubscribed);
  CHECK(o.message.empty());
  // One thread per core, each rank bound to its own core (mpiexec -np 2 --bind-to core).
  o = klmini::find_oversubscription(join(ranks(1, 1, {0}), ranks(1, 1, {1}, 0, "n0", 1)));
  CHECK_FALSE(o.oversubscribed);
  // Two ranks of 4 threads on disjoint halves of 8 CPUs.
  o = klmini::find_oversubscription(join(ranks(1, 4, {0, 1, 2, 3}), ranks(1, 4, {4, 5, 6, 7}, 0, "n0", 1)));
  CHECK_FALSE(o.oversubscribed);
  // 2 nodes with the same CPU ids: each node counts only its own ranks.
  o = klmini::find_oversubscription(join(ranks(2, 1, {0, 1}, 0, "a"), ranks(2, 1, {0, 1}, 2, "b", 2)));
  CHECK_FALSE(o.oversubscribed);
  // Unbound ranks with fewer threads in all than CPUs.
  o = klmini::find_oversubscription(ranks(3, 1, {0, 1, 2, 3}));
  CHECK_FALSE(o.oversubscribed);
}

TEST_CASE("more ranks' threads than the node's CPUs is oversubscribed, with the node named") {
  // mpirun --oversubscribe -np 8 on 2 cores, unbound.
  auto o = klmini::find_oversubscription(ranks(8, 1, {0, 1}, 0, "vm"));
  CHECK(o.oversubscribed);
  CHECK(o.message == "8 ranks x 1 thread on 2 CPUs of node vm; times and GB/s are not the hardware's");
  // Two ranks bound to the same core: the union of their masks is one CPU.
  o = klmini::find_oversubscription(ranks(2, 1, {3}, 0, "vm"));
  CHECK(o.oversubscribed);
  CHECK(o.message == "2 ranks x 1 thread on 1 CPU of node vm; times and GB/s are not the hardware's");
  // Ranks with different thread counts: the total is given.
  o = klmini::find_oversubscription(join(ranks(1, 2, {0, 1}, 0, "vm"), ranks(1, 1, {0, 1}, 0, "vm", 1)));
  CHECK(o.oversubscribed);
  CHECK(o.message == "2 ranks, 3 threads in all, on 2 CPUs of node vm; times and GB/s are not the hardware's");
  // Only the node that is oversubscribed is named.
  o = klmini::find_oversubscription(join(ranks(2, 1, {0, 1}, 0, "a"), ranks(3, 1, {0, 1}, 2, "b", 2)));
  CHECK(o.oversubscribed);
  CHECK(o.message == "3 ranks x 1 thread on 2 CPUs of node b; times and GB/s are not the hardware's");
}

TEST_CASE("a rank with more threads than its own mask has CPUs is oversubscribed") {
  // OMP_NUM_THREADS=2 under a launcher that binds each rank to one core.
  auto o = klmini::find_oversubscription(ranks(1, 2, {0}));
  CHECK(o.oversubscribed);
  CHECK(o.message == "rank 0 runs 2 threads on 1 CPU (its affinity mask); times and GB/s are not the hardware's");
  // Each of 2 ranks so: the node is oversubscribed too, and both are said.
  o = klmini::find_oversubscription(join(ranks(1, 2, {0}, 0, "vm"), ranks(1, 2, {1}, 0, "vm", 1)));
  CHECK(o.oversubscribed);
  CHECK(o.message ==
        "2 ranks x 2 threads on 2 CPUs of node vm; rank 0 runs 2 threads on 1 CPU (its affinity mask) and 1 more rank "
        "likewise; times and GB/s are not the hardware's");
  // A rank confined to fewer CPUs than its threads, while the node as a whole has room.
  o = klmini::find_oversubscription(join(ranks(1, 1, {0, 1, 2}), ranks(1, 3, {3, 4}, 0, "n0", 1)));
  CHECK(o.oversubscribed);
  CHECK(o.message == "rank 1 runs 3 threads on 2 CPUs (its affinity mask); times and GB/s are not the hardware's");
}

TEST_CASE("a rank whose mask is unknown is left out of the count") {
  CHECK_FALSE(klmini::find_oversubscription(ranks(1, 64, {})).oversubscribed);
  CHECK_FALSE(klmini::find_oversubscription(join(ranks(1, 2, {0, 1}), ranks(1, 2, {}, 0, "n0", 1))).oversubscribed);
}

TEST_CASE("this process's affinity mask: ascending CPU ids, as many as sched_getaffinity counts") {
  const std::vector<int> cpus = klmini::affinity_cpus();
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  CHECK(int(cpus.size()) == CPU_COUNT(&set));
  CHECK(std::is_sorted(cpus.begin(), cpus.end()));
  CHECK(std::adjacent_find(cpus.begin(), cpus.end()) == cpus.end());
  for (const int c : cpus) CHECK(CPU_ISSET(c, &set));
}

TEST_CASE("one rank judges itself: its threads against its own mask") {
  const klmini::Comm& comm = klmini::Comm::world();
  REQUIRE(comm.size() == 1);
  const int cpus = int(klmini::affinity_cpus().size());
  CHECK_FALSE(klmini::find_oversubscription(klmini::gather_placements(comm, cpus)).oversubscribed);
  const auto o = klmini::find_oversubscription(klmini::gather_placements(comm, cpus + 1));
  CHECK(o.oversubscribed);
  CHECK(o.message.rfind("rank 0 runs " + std::to_string(cpus + 1) + " threads on ", 0) == 0);
}

TEST_CASE("a rank's placement: its own mask as Linux lists it, its local rank and its GPU by the rule") {
  const klmini::Comm& comm = klmini::Comm::world();
  const auto mine = klmini::gather_placements(comm, 2, {1, 4});
  REQUIRE(mine.size() == 1);
  CHECK(mine[0].cpus == klmini::affinity_cpus());
  CHECK(mine[0].local_rank == 0);
  CHECK(mine[0].threads == 2);
  CHECK(mine[0].gpu.id == 1);
  CHECK(mine[0].gpu.visible == 4);
  CHECK_FALSE(mine[0].host.empty());

  CHECK(klmini::cpu_list_text({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11");
  CHECK(klmini::cpu_list_text({5}) == "5");
  CHECK(klmini::cpu_list_text({}) == "?");
  RankPlacement r{3, 0, "n0", 1, {6, 7}, 1, {}};
  CHECK(klmini::placement_text(r) == "host n0, local rank 1, 1 thread on CPUs 6-7; no GPU");
  r.gpu = {1, 4};  // local rank 1 of a node of 4 GPUs: GPU 1
  CHECK(klmini::placement_text(r) ==
        "host n0, local rank 1, 1 thread on CPUs 6-7; GPU 1 of the 4 it sees (local rank 1 mod 4)");
  r.local_rank = 5;  // --ntasks-per-gpu=2: the second rank on GPU 1
  CHECK(klmini::placement_text(r).find("GPU 1 of the 4 it sees (local rank 5 mod 4)") != std::string::npos);
  r.gpu = {0, 1};  // --gpus-per-task=1: the rank sees only its own
  CHECK(klmini::placement_text(r).find("GPU 0 of the 1 it sees (local rank 5 mod 1)") != std::string::npos);
  r.gpu = {0, 4};  // every rank on GPU 0: the rule was not applied
  CHECK(klmini::placement_text(r).find("GPU 0 of the 4 it sees, not local rank 5 mod 4") != std::string::npos);
}
