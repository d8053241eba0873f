#include "host/comm.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#ifdef KLMINI_HAVE_MPI
#include <mpi.h>
#endif

#include "host/errors.hpp"
#include "numerics/fixed_sum.hpp"

namespace klmini {

bool mpi_compiled_in() {
#ifdef KLMINI_HAVE_MPI
  return true;
#else
  return false;
#endif
}

bool in_srun_task() {
  // A batch script also has SLURM_PROCID (0) but no step of srun's: SLURM_STEP_ID is unset there.
  const char* step = std::getenv("SLURM_STEP_ID");
  return std::getenv("SLURM_PROCID") && step && std::strcmp(step, "batch") != 0 && std::strcmp(step, "extern") != 0;
}

bool process_manager_present() {
  for (const char* name : {"PMIX_RANK", "PMI_RANK", "PMI_FD", "OMPI_COMM_WORLD_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

bool started_by_mpi_launcher() {
  // What mpiexec/mpirun (Open MPI, MPICH, Intel MPI, MVAPICH), Cray's and Flux's launchers put
  // in their processes' environments; srun: in_srun_task.
  static const char* const kLauncherVariables[] = {
      "OMPI_COMM_WORLD_SIZE", "PMIX_RANK",           "PMI_RANK",    "PMI_SIZE",    "PMI_FD",
      "MPI_LOCALNRANKS",      "MV2_COMM_WORLD_SIZE", "ALPS_APP_PE", "PALS_RANKID", "FLUX_TASK_RANK"};
  for (const char* name : kLauncherVariables)
    if (std::getenv(name)) return true;
  return in_srun_task();
}

bool mpi_wanted() {
  const char* choice = std::getenv("KLMINI_MPI_INIT");
  if (!choice || !*choice) return started_by_mpi_launcher();
  if (std::strcmp(choice, "1") == 0) return true;
  if (std::strcmp(choice, "0") == 0) return false;
  throw std::invalid_argument(std::string("KLMINI_MPI_INIT must be 0 or 1 (or unset), not '") + choice + "'");
}

MpiSession::MpiSession(int& argc, char**& argv) {
#ifdef KLMINI_HAVE_MPI
  // A process started without a launcher is a single rank: Open MPI's singleton start (it spawns
  // a daemon) would cost it ~0.3 s for nothing.
  bool wanted = false;
  try {
    wanted = mpi_wanted();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "klmini: %s\n", e.what());
    std::exit(2);  // bad input, before anything has started
  }
  if (!wanted) return;
#ifdef OMPI_MAJOR_VERSION
  // Open MPI started by srun takes its ranks from srun's PMIx or PMI2; without either (srun
  // --mpi=none, a site default) MPI_Init would abort the process with exit 1, which reads as
  // "verification failed".
  if (in_srun_task() && !process_manager_present()) {
    std::fprintf(stderr,
                 "klmini: srun started this rank without PMIx or PMI2 (srun --mpi=none?), and Open MPI needs one: "
                 "run srun --mpi=pmix (srun --mpi=list names the plugins)\n");
    std::exit(3);
  }
#endif
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#else
  (void)argc;
  (void)argv;
#endif
}

MpiSession::~MpiSession() {
#ifdef KLMINI_HAVE_MPI
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
#endif
}

Comm::Comm() {
#ifdef KLMINI_HAVE_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  if (size_ > 1) {
    // Collective: every rank builds Comm::world() first thing in main.
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &node_size_);
    MPI_Comm_rank(local, &node_rank_);
    node_ = rank_;
    MPI_Allreduce(MPI_IN_PLACE, &node_, 1, MPI_INT, MPI_MIN, local);
    MPI_Comm_free(&local);
    int* global = nullptr;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &global, &found);
    wtime_global_ = found && global && *global;
  }
#endif
}

std::string to_string(RankClock clock) {
  switch (clock) {
    case RankClock::own_timer: return "one rank: its own timer";
    case RankClock::node_steady: return "node steady clock";
    case RankClock::mpi_wtime_global: return "MPI_Wtime (global)";
    case RankClock::per_rank_elapsed: break;
  }
  return "per-rank elapsed from a barrier (ranks on several nodes)";
}

RankClock Comm::rank_clock() const {
  if (size_ == 1) return RankClock::own_timer;
  if (node_size_ == size_) return RankClock::node_steady;
  return wtime_global_ ? RankClock::mpi_wtime_global : RankClock::per_rank_elapsed;
}

double Comm::now() const {
#ifdef KLMINI_HAVE_MPI
  if (rank_clock() == RankClock::mpi_wtime_global) return MPI_Wtime();
#endif
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

const Comm& Comm::world() {
  static const Comm comm;
  return comm;
}

double Comm::sum(double x) const {
  sum(&x, 1);
  return x;
}

void Comm::sum(double* values, int count) const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#else
  (void)values;
  (void)count;
#endif
}

FixedSum Comm::sum(const FixedSum& x) const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) {
    constexpr int n = FixedSum::kWords + 1;
    std::uint64_t mine[n];
    for (int i = 0; i < FixedSum::kWords; ++i) mine[i] = x.w[i];
    mine[FixedSum::kWords] = x.flags;
    std::vector<std::uint64_t> all(static_cast<std::size_t>(n) * static_cast<std::size_t>(size_));
    MPI_Allgather(mine, n, MPI_UINT64_T, all.data(), n, MPI_UINT64_T, MPI_COMM_WORLD);
    FixedSum total;
    for (int r = 0; r < size_; ++r) {
      FixedSum part;
      for (int i = 0; i < FixedSum::kWords; ++i) part.w[i] = all[std::size_t(r) * n + std::size_t(i)];
      part.flags = all[std::size_t(r) * n + FixedSum::kWords];
      total += part;
    }
    return total;
  }
#endif
  return x;
}

double Comm::node_sum(double x) const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) {  // every rank's (node, x), added up for this rank's node
    const double mine[2] = {double(node_), x};
    std::vector<double> all(2 * static_cast<std::size_t>(size_));
    MPI_Allgather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, MPI_COMM_WORLD);
    double total = 0.0;
    for (int r = 0; r < size_; ++r)
      if (all[2 * std::size_t(r)] == double(node_)) total += all[2 * std::size_t(r) + 1];
    return total;
  }
#endif
  return x;
}

double Comm::max(double x) const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
  return x;
}

double Comm::min(double x) const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
#endif
  return x;
}

bool Comm::all(bool x) const {
#ifdef KLMINI_HAVE_MPI
  int v = x ? 1 : 0;
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return v == 1;
#else
  return x;
#endif
}

void Comm::barrier() const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

std::vector<double> Comm::gather(double x) const {
  std::vector<double> all(static_cast<std::size_t>(size_), x);
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Gather(&x, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
#endif
  return all;
}

std::vector<std::vector<std::int64_t>> Comm::gather(const std::vector<std::int64_t>& words) const {
  std::vector<std::vector<std::int64_t>> all{words};
#ifdef KLMINI_HAVE_MPI
  if (size_ == 1) return all;
  int count = static_cast<int>(words.size());
  std::vector<int> counts(rank_ == 0 ? size_ : 0), offsets(counts.size() + 1, 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (std::size_t k = 0; k < counts.size(); ++k) offsets[k + 1] = offsets[k] + counts[k];
  std::vector<std::int64_t> flat(rank_ == 0 ? std::size_t(offsets.back()) : 0);
  MPI_Gatherv(words.data(), count, MPI_INT64_T, flat.data(), counts.data(), offsets.data(), MPI_INT64_T, 0,
              MPI_COMM_WORLD);
  if (rank_ != 0) return all;
  all.clear();
  for (std::size_t k = 0; k < counts.size(); ++k)
    all.emplace_back(flat.begin() + offsets[k], flat.begin() + offsets[k + 1]);
#endif
  return all;
}

void Comm::abort(int code) const {
#ifdef KLMINI_HAVE_MPI
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

void fail_together(const Comm& comm, const std::string& error) {
  const double first = comm.min(error.empty() ? double(comm.size()) : double(comm.rank()));
  if (first >= double(comm.size())) return;
  throw EveryRankError(error, double(comm.rank()) == first);
}

RowRange rows_of_rank(std::int64_t tokens, int rank, int size) {
  const std::int64_t base = tokens / size, extra = tokens % size;
  RowRange r;
  r.count = base + (rank < extra ? 1 : 0);
  r.begin = rank * base + (rank < extra ? rank : extra);
  return r;
}

}  // namespace klmini
