// How ranks are found (src/host/comm.cpp): MPI is started under a launcher or when KLMINI_MPI_INIT=1,
// never when KLMINI_MPI_INIT=0; the rows are split in contiguous, nearly equal ranges.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "host/comm.hpp"
#include "host/errors.hpp"

namespace {

// Sets (or, with nullopt, removes) environment variables for one scope and restores them after.
class ScopedEnvironment {
 public:
  void set(const std::string& name, std::optional<std::string> value) {
    const char* old = std::getenv(name.c_str());
    saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
    apply(name, value);
  }
  ~ScopedEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) apply(it->first, it->second);
  }

 private:
  static void apply(const std::string& name, const std::optional<std::string>& value) {
    if (value)
      setenv(name.c_str(), value->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

const char* const kLauncherVariables[] = {
    "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",           "PMI_RANK",    "PMI_SIZE",    "PMI_FD",
    "MPI_LOCALNRANKS",      "MV2_COMM_WORLD_SIZE", "ALPS_APP_PE", "PALS_RANKID", "FLUX_TASK_RANK"};

}  // namespace

TEST_CASE("MPI is started under a launcher or when KLMINI_MPI_INIT=1, never when KLMINI_MPI_INIT=0") {
  ScopedEnvironment env;
  for (const char* name : kLauncherVariables) env.set(name, std::nullopt);
  env.set("SLURM_PROCID", std::nullopt);  // the tests may run inside an srun step
  env.set("SLURM_STEP_ID", std::nullopt);
  env.set("KLMINI_MPI_INIT", std::nullopt);
  CHECK_FALSE(klmini::started_by_mpi_launcher());
  CHECK_FALSE(klmini::mpi_wanted());
  for (const char* name : kLauncherVariables) {
    ScopedEnvironment one;
    one.set(name, "0");
    INFO(name);
    CHECK(klmini::started_by_mpi_launcher());
    CHECK(klmini::mpi_wanted());
    one.set("KLMINI_MPI_INIT", "0");
    CHECK_FALSE(klmini::mpi_wanted());
  }
  env.set("KLMINI_MPI_INIT", "1");
  CHECK(klmini::mpi_wanted());
  env.set("KLMINI_MPI_INIT", "");  // empty: as if unset
  CHECK_FALSE(klmini::mpi_wanted());
  env.set("KLMINI_MPI_INIT", "yes");
  CHECK_THROWS_WITH(klmini::mpi_wanted(), "KLMINI_MPI_INIT must be 0 or 1 (or unset), not 'yes'");
}

TEST_CASE("srun's tasks are launched ranks, a job's batch script is not; PMIx or PMI is seen") {
  ScopedEnvironment env;
  for (const char* name : kLauncherVariables) env.set(name, std::nullopt);
  env.set("KLMINI_MPI_INIT", std::nullopt);
  env.set("SLURM_STEP_ID", std::nullopt);
  env.set("SLURM_PROCID", "0");  // a batch script has this, and no step id
  CHECK_FALSE(klmini::in_srun_task());
  CHECK_FALSE(klmini::started_by_mpi_launcher());
  env.set("SLURM_STEP_ID", "batch");
  CHECK_FALSE(klmini::in_srun_task());
  env.set("SLURM_STEP_ID", "0");  // a task of srun's step 0
  CHECK(klmini::in_srun_task());
  CHECK(klmini::started_by_mpi_launcher());
  CHECK_FALSE(klmini::process_manager_present());  // srun --mpi=none
  env.set("PMIX_RANK", "0");                       // srun --mpi=pmix
  CHECK(klmini::process_manager_present());
  env.set("PMIX_RANK", std::nullopt);
  env.set("PMI_FD", "5");  // srun --mpi=pmi2
  CHECK(klmini::process_manager_present());
  env.set("PMI_FD", std::nullopt);
  env.set("SLURM_PROCID", std::nullopt);
  CHECK_FALSE(klmini::in_srun_task());
}

TEST_CASE("rows are split across ranks in contiguous ranges, the first tokens % size one row longer") {
  for (const std::int64_t tokens : {std::int64_t(0), std::int64_t(1), std::int64_t(37), std::int64_t(1000)}) {
    for (int size = 1; size <= 5; ++size) {
      std::int64_t next = 0;
      for (int rank = 0; rank < size; ++rank) {
        const klmini::RowRange r = klmini::rows_of_rank(tokens, rank, size);
        INFO(tokens << " rows, rank " << rank << " of " << size);
        CHECK(r.begin == next);
        CHECK(r.count == tokens / size + (rank < tokens % size ? 1 : 0));  // the first ranks take the extra rows
        next = r.begin + r.count;
      }
      CHECK(next == tokens);
    }
  }
}

TEST_CASE("one rank: its own timer, a node of one, collectives that return their input") {
  const klmini::Comm& comm = klmini::Comm::world();
  REQUIRE(comm.size() == 1);
  CHECK(comm.rank_clock() == klmini::RankClock::own_timer);
  CHECK(comm.node_size() == 1);
  CHECK(comm.node() == 0);
  CHECK(comm.node_rank() == 0);
  CHECK(comm.node_sum(3.5) == 3.5);
  CHECK(comm.min(-2.5) == -2.5);
  CHECK(comm.max(-2.5) == -2.5);
  const std::vector<std::int64_t> words = {7, -1, 1LL << 40};
  const auto all = comm.gather(words);
  REQUIRE(all.size() == 1);
  CHECK(all[0] == words);
  const double a = comm.now(), b = comm.now();
  CHECK(b >= a);  // a steady clock never runs back
  CHECK(klmini::to_string(klmini::RankClock::node_steady) == "node steady clock");
  CHECK(klmini::to_string(klmini::RankClock::mpi_wtime_global) == "MPI_Wtime (global)");
  CHECK(klmini::to_string(klmini::RankClock::per_rank_elapsed) ==
        "per-rank elapsed from a barrier (ranks on several nodes)");
}

TEST_CASE("fail_together: nothing when no rank has an error, else every rank throws it, the first speaking") {
  const klmini::Comm& comm = klmini::Comm::world();
  CHECK_NOTHROW(klmini::fail_together(comm, ""));
  try {
    klmini::fail_together(comm, "out.npy: write failed: No space left on device");
    FAIL("fail_together did not throw");
  } catch (const klmini::EveryRankError& e) {
    CHECK(std::string(e.what()) == "out.npy: write failed: No space left on device");
    CHECK(e.speaks());  // the only rank is the first with the error
  }
}
