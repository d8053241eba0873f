// The run on one execution space: set up the problem, time the ceiling probe and each variant
// (warmup, repeats, fences, medians), verify every variant against the fp64 host reference,
// write the `none` matrix. Templated on the space; src/backends.cpp instantiates it for each
// space compiled in.
#pragma once

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "backends.hpp"
#include "comm.hpp"
#include "config.hpp"
#include "errors.hpp"
#include "generate.hpp"
#include "limits.hpp"
#include "npy.hpp"
#include "problem.hpp"
#include "record.hpp"
#include "reference.hpp"
#include "semantics.hpp"
#include "timer.hpp"
#include "validate.hpp"
#include "variants/ceiling.hpp"
#include "variants/registry.hpp"
#include "variants/gradient.hpp"
#include "variants/terms.hpp"
#include "verify.hpp"

namespace klmini {

// Kokkos reports a failed allocation as std::bad_alloc (4.x) or std::runtime_error (3.x);
// either way the user sees which array of which shape did not fit.
template <class View>
View allocate_matrix(const char* label, std::int64_t rows, std::int64_t cols) {
  try {
    return View(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows, cols);
  } catch (const std::exception& e) {
    throw DoesNotFit(std::string("cannot allocate ") + label + " (" + std::to_string(rows) + " x " +
                     std::to_string(cols) + " fp32, " + std::to_string(double(rows) * cols * 4 / 1073741824.0) +
                     " GiB) in " + View::memory_space::name() + ": " + e.what());
  }
}

// Free bytes in the execution space's memory (-1: unknown; host memory is checked separately).
template <class Space>
std::int64_t space_available_bytes() {
#ifdef KOKKOS_ENABLE_CUDA
  if constexpr (std::is_same_v<typename Space::memory_space, Kokkos::CudaSpace>) {
    std::size_t free_bytes = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    return static_cast<std::int64_t>(free_bytes);
  }
#endif
  return -1;
}

// Rows [row_begin, row_begin + rows) of this rank, from the generator or the .npy files, as
// elements of type T; and the exact log's table when precision = "exact".
template <class Space, class T = float>
Problem<Space, T> make_problem(const Config& c, std::int64_t row_begin, std::int64_t rows) {
  using Matrix = typename Problem<Space, T>::Matrix;
  Problem<Space, T> p;
  p.tokens = rows;
  p.vocab = c.vocab;
  p.log_target = c.log_target;
  if (c.input == InputKind::npy) {  // check both headers before allocating anything
    const NpyHeader lp_header = inspect_npy(c.log_probs, c.tokens, c.vocab, npy_descr<T>());
    const NpyHeader t_header = inspect_npy(c.targets, c.tokens, c.vocab, npy_descr<T>());
    p.lp = allocate_matrix<Matrix>("klmini::lp", rows, c.vocab);
    p.t = allocate_matrix<Matrix>("klmini::t", rows, c.vocab);
    auto lp_host = Kokkos::create_mirror_view(p.lp);
    auto t_host = Kokkos::create_mirror_view(p.t);
    read_npy_rows(c.log_probs, lp_header, row_begin, rows, lp_host.data());
    read_npy_rows(c.targets, t_header, row_begin, rows, t_host.data());
    Kokkos::deep_copy(p.lp, lp_host);
    Kokkos::deep_copy(p.t, t_host);
  } else {
    // Allocated without initialization: the generator's threads touch the pages first.
    p.lp = allocate_matrix<Matrix>("klmini::lp", rows, c.vocab);
    p.t = allocate_matrix<Matrix>("klmini::t", rows, c.vocab);
    generate_softmax_rows<Space>(p.lp, row_begin, c.vocab, c.seed, Stream::log_probs, true);
    generate_softmax_rows<Space>(p.t, row_begin, c.vocab, c.seed, Stream::targets, c.log_target);
  }
  if (c.precision == Precision::exact) {
    p.exact = true;
    p.log_table = variants::exact_log_table_in<typename Space::memory_space>();
  }
  Space().fence();
  return p;
}

// The given rows of a matrix as fp32 values readable on the host (for the reference and the
// element checks): the matrix itself when it is fp32 in host memory and all rows are asked for
// (a host run needs no second copy of its inputs), otherwise a converted copy of those rows.
struct HostRows {
  std::vector<float> storage;
  const float* data = nullptr;
};

template <class Matrix>
HostRows rows_on_host(const Matrix& m, const std::vector<std::int64_t>& rows) {
  using T = typename Matrix::non_const_value_type;
  constexpr bool host_memory =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Matrix::memory_space>::accessible;
  const std::int64_t vocab = static_cast<std::int64_t>(m.extent(1));
  const bool all = static_cast<std::int64_t>(rows.size()) == static_cast<std::int64_t>(m.extent(0));
  HostRows out;
  if constexpr (std::is_same_v<T, float>) {
    if (host_memory && all) {
      out.data = m.data();
      return out;
    }
  }
  out.storage.resize(rows.size() * static_cast<std::size_t>(vocab));
  out.data = out.storage.data();
  using HostMatrix = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  const HostMatrix host = all ? Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m)
                              : HostMatrix("klmini::rows_on_host", rows.size(), vocab);
  if (!all)
    for (std::size_t k = 0; k < rows.size(); ++k)
      Kokkos::deep_copy(Kokkos::subview(host, k, Kokkos::ALL()), Kokkos::subview(m, rows[k], Kokkos::ALL()));
  const T* src = host.data();
  float* dst = out.storage.data();
  Kokkos::parallel_for(
      "klmini::to_fp32",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(
          0, std::int64_t(out.storage.size())),
      [=](const std::int64_t i) { dst[i] = to_float(src[i]); });
  Kokkos::DefaultHostExecutionSpace().fence();
  return out;
}

// Runs `kernel` warmup + repeats times. Each timed run is timed alone after a barrier of all
// ranks; its result is read back after the timer stops. A run's time is the slowest rank's, its
// value the sum over ranks. One rank: KernelTimer (CUDA events on Cuda, fence + wall clock on
// hosts). Several ranks: fence + wall clock from the common barrier, because ranks that share a
// device run their kernels one after another, and each rank's events would time only its own.
// `local_times` keeps this rank's own times (for per-rank bandwidth).
template <class Space>
TimingStats time_kernel(const std::function<void(const Result<Space>&)>& kernel, int warmup, int repeats,
                        std::vector<double>& values, const Comm& comm, std::vector<double>* local_times = nullptr) {
  const Result<Space> result("klmini::result");
  for (int i = 0; i < warmup; ++i) kernel(result);
  // Built only where it times: its Cuda flush buffer is not allocated for runs of several ranks.
  std::optional<KernelTimer<Space>> timer;
  if (times_with_kernel_timer(comm.size())) timer.emplace();
  std::vector<double> times, mine;
  values.clear();
  constexpr double kPoison = -1.2345678901234567e300;  // no sum of terms can be this
  for (int i = 0; i < repeats; ++i) {
    Kokkos::deep_copy(result, kPoison);
    Space().fence();
    comm.barrier();
    double t = 0.0;
    if (timer) {
      timer->start();
      kernel(result);
      t = timer->stop();
    } else {
      Kokkos::Timer wall;
      kernel(result);
      Space().fence();
      t = wall.seconds();
    }
    mine.push_back(t);
    times.push_back(comm.max(t));
    const double local = read_result<Space>(result);
    if (!comm.all(local != kPoison)) throw std::runtime_error("a kernel did not write its result");
    values.push_back(comm.sum(local));
  }
  if (local_times) *local_times = mine;
  TimingStats stats = summarize(times);
  stats.uncovered = timer ? timer->uncovered() : 0;
  return stats;
}

inline ReferenceSummary sum_over_ranks(const ReferenceSummary& r, const Comm& comm) {
  double v[4] = {r.rows, r.sum, r.sum_of_squares, r.magnitude};
  comm.sum(v, 4);
  return {v[0], v[1], v[2], v[3]};
}

inline bool bitwise_equal(const std::vector<double>& v) {
  for (const double x : v)
    if (std::memcmp(&x, &v.front(), sizeof x) != 0) return false;
  return true;
}

template <class Space>
std::string space_backend_name() {
  const std::string n = Space::name();
  if (n == "OpenMP") return "openmp";
  if (n == "Serial") return "serial";
  if (n == "Cuda") return "cuda";
  return n;
}

template <class Space>
Record record_header(const Config& c) {  // what a Record knows before anything runs
  Record rec;
  rec.config = c;
  rec.backend = space_backend_name<Space>();
  rec.execution_space = Space::name();
  rec.concurrency = static_cast<int>(Space().concurrency());
  rec.input_bytes = 2.0 * double(c.elements()) * double(element_bytes(c.dtype));
  rec.kokkos_version = kokkos_version();
  rec.kokkos_backends = kokkos_backends();
  rec.kokkos_kernels_version = kokkos_kernels_version();
  rec.left_out = variants::left_out_variants(c);
  return rec;
}

// One kernel the run times and verifies, and what it is checked and measured against.
template <class Space>
struct PlannedKernel {
  enum class Check { loss, terms_matrix, loss_and_gradient, gradient };
  std::string name;
  std::function<void(const Result<Space>&)> kernel;
  double bytes_per_element = 0.0;  // bytes that must cross memory, per element of the matrix
  const char* ceiling = "read";    // "read" or "copy" (variants/ceiling.hpp)
  Check check = Check::loss;
};

// The whole run on elements of type T. `announce` is called once the summary can be printed
// (before the timing).
template <class Space, class T>
Record run_typed(const Config& c, const std::function<void(const Record&)>& announce) {
  using Kernel = PlannedKernel<Space>;
  using Check = typename Kernel::Check;
  using OutMatrix = typename Problem<Space, T>::OutMatrix;
  const Comm& comm = Comm::world();
  const RowRange mine = rows_of_rank(c.tokens, comm.rank(), comm.size());
  Record rec = record_header<Space>(c);
  rec.ranks = comm.size();
  if (announce && comm.root()) announce(rec);

  check_output(c);
  const std::vector<std::string> loss_variants =
      c.reduction == Reduction::none ? std::vector<std::string>{} : variants::loss_variants(c);
  check_memory(estimate_memory(c, mine.count, comm.size(), is_host_space<Space>(), loss_variants),
               is_host_space<Space>(), Space::memory_space::name(), space_available_bytes<Space>(),
               host_available_bytes(), c);
  Kokkos::Timer setup;
  const Problem<Space, T> p = make_problem<Space, T>(c, mine.begin, mine.count);
  rec.setup_s = comm.max(setup.seconds());
  if (c.validate) validate_inputs(p, mine.begin, comm);
  const double in_bytes = double(sizeof(T));  // per element of one input matrix
  const double elements = double(c.elements()), local_elements = double(mine.count) * double(c.vocab);
  const bool writes = c.reduction == Reduction::none || c.gradient;

  OutMatrix out, grad;
  if (c.reduction == Reduction::none) out = allocate_matrix<OutMatrix>("klmini::terms", mine.count, c.vocab);
  if (c.gradient) grad = allocate_matrix<OutMatrix>("klmini::grad", mine.count, c.vocab);
  const double scale = reduction_scale(c.reduction, c.tokens, c.vocab);
  const float g = static_cast<float>(scale);

  std::vector<double> values;
  rec.ceiling = time_kernel<Space>([&](const Result<Space>& r) { variants::read_ceiling(p, r); }, c.warmup,
                                   c.repeats, values, comm);
  rec.ceiling_GBps = rec.input_bytes / rec.ceiling.median_s * 1e-9;
  if (writes) {  // the writing kernels' ceiling, into whichever output exists (overwritten later)
    const OutMatrix& target = c.gradient ? grad : out;
    rec.copy_ceiling = time_kernel<Space>([&](const Result<Space>& r) { variants::copy_ceiling(p, target, r); },
                                          c.warmup, c.repeats, values, comm);
    rec.copy_ceiling_GBps = elements * (2.0 * in_bytes + 4.0) / rec.copy_ceiling.median_s * 1e-9;
  }

  std::vector<Kernel> plan;
  if (c.reduction == Reduction::none) {
    plan.push_back({std::string(kTermsVariant), [&](const Result<Space>& r) { variants::terms(p, out, r); },
                    2.0 * in_bytes + 4.0, "copy", Check::terms_matrix});
  } else {
    for (const std::string& name : loss_variants)
      plan.push_back({name, [&p, name](const Result<Space>& r) { variants::run_variant(name, p, r); }, 2.0 * in_bytes,
                      "read", Check::loss});
  }
  if (c.gradient) {
    plan.push_back({std::string(kGradientVariant),
                    [&](const Result<Space>& r) { variants::loss_and_gradient(p, grad, g, r); }, 2.0 * in_bytes + 4.0,
                    "copy", Check::loss_and_gradient});
    plan.push_back({std::string(kGradientOnlyVariant),
                    [&](const Result<Space>& r) { variants::gradient_only(p, grad, g, r); }, in_bytes + 4.0, "copy",
                    Check::gradient});
  }

  // Reference rows of this rank (local indices): all of them, or those of a seeded global sample.
  std::vector<std::int64_t> ref_rows;
  if (c.verify == VerifyMode::full) ref_rows = sample_rows(mine.count, mine.count, c.seed);
  if (c.verify == VerifyMode::sample)
    for (const std::int64_t r : sample_rows(c.tokens, c.sample_rows, c.seed))
      if (r >= mine.begin && r < mine.begin + mine.count) ref_rows.push_back(r - mine.begin);
  HostRows lp_ref, t_ref;
  ReferenceSummary ref;
  if (c.verify != VerifyMode::off) {
    Kokkos::Timer ref_timer;
    lp_ref = rows_on_host(p.lp, ref_rows);
    t_ref = rows_on_host(p.t, ref_rows);
    ref = summarize(reference_rows(lp_ref.data, t_ref.data, static_cast<std::int64_t>(ref_rows.size()),
                                   c.vocab, c.log_target));
    ref = sum_over_ranks(ref, comm);
    rec.reference_s = comm.max(ref_timer.seconds());
  }
  const bool sampled = c.verify == VerifyMode::sample && c.sample_rows < c.tokens;
  const double tolerance = sum_tolerance(c.precision);

  // The loss (sum of terms) against the reference: full, or estimated from the sample.
  auto check_loss = [&](double sum) {
    if (sampled && std::isfinite(sum)) return verify_sample(sum, ref, c.tokens, scale, tolerance);
    if (!sampled) return verify_full(sum, ref, scale, tolerance);
    // A non-finite loss from a sample cannot be judged: check every row.
    const std::vector<std::int64_t> all = sample_rows(mine.count, mine.count, c.seed);
    const auto lp_all = rows_on_host(p.lp, all), t_all = rows_on_host(p.t, all);
    const ReferenceSummary every =
        sum_over_ranks(summarize(reference_rows(lp_all.data, t_all.data, mine.count, c.vocab, c.log_target)), comm);
    Verification check = verify_full(sum, every, scale, tolerance);
    check.detail += " (loss not finite: checked every row)";
    return check;
  };
  // Every gradient element of the reference rows, on every rank.
  auto check_gradient = [&]() {
    const HostRows grad_rows = rows_on_host(grad, ref_rows);
    Verification m = verify_gradient(grad_rows.data, t_ref.data, static_cast<std::int64_t>(ref_rows.size()), c.vocab,
                                     c.log_target, double(g));
    m.passed = comm.all(m.passed);
    if (!m.passed) m.detail = "gradient elements outside their bound on some rank (" + m.detail + ")";
    return m;
  };

  for (const Kernel& k : plan) {
    VariantResult v;
    v.variant = k.name;
    v.ceiling = k.ceiling;
    // Poison: an element a kernel does not write fails verification.
    if (k.check == Check::terms_matrix) Kokkos::deep_copy(out, -7.77e33f);
    if (k.check == Check::loss_and_gradient || k.check == Check::gradient) Kokkos::deep_copy(grad, -7.77e33f);
    std::vector<double> local_times;
    v.time = time_kernel<Space>(k.kernel, c.warmup, c.repeats, values, comm, &local_times);
    v.sum = values.back();
    v.loss = k.check == Check::gradient ? 0.0 : v.sum * scale;
    v.reproducible = bitwise_equal(values);
    v.bytes = k.bytes_per_element * elements;
    v.GBps = v.bytes / v.time.median_s * 1e-9;
    v.fraction_of_ceiling = v.GBps / (k.ceiling == std::string("copy") ? rec.copy_ceiling_GBps : rec.ceiling_GBps);
    v.rank_GBps = comm.gather(k.bytes_per_element * local_elements / summarize(local_times).median_s * 1e-9);
    if (c.verify != VerifyMode::off) {
      Verification check;
      if (k.check == Check::gradient) {
        check = check_gradient();
        check.mode = c.verify;
      } else {
        check = check_loss(v.sum);
      }
      if (k.check == Check::terms_matrix) {  // the matrix itself, element by element, on the reference rows
        const HostRows out_rows = rows_on_host(out, ref_rows);
        Verification m = verify_terms(out_rows.data, lp_ref.data, t_ref.data,
                                      static_cast<std::int64_t>(ref_rows.size()), c.vocab, c.log_target);
        const bool matrix_ok = comm.all(m.passed);
        m.relative_error = comm.max(m.relative_error);
        m.rows_checked = check.rows_checked;
        m.mode = c.verify;
        m.passed = matrix_ok && check.passed;
        m.detail = "matrix: " + (matrix_ok ? m.detail : "elements outside their bound on some rank (" + m.detail + ")") +
                   "; sum: " + check.detail;
        m.expected = check.expected;
        check = m;
      }
      if (k.check == Check::loss_and_gradient) {
        const Verification m = check_gradient();
        check.passed = check.passed && m.passed;
        check.detail = m.detail + "; loss: " + check.detail;
      }
      v.verification = check;
    }
    rec.results.push_back(v);
  }
  rec.loss = rec.results.front().loss;

  if (c.gradient && !c.grad_output.empty()) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), grad);
    write_npy_f32_collective(c.grad_output, c.tokens, c.vocab, mine.begin, mine.count, host.data(), comm);
    rec.grad_written = c.grad_output;
  }

  if (c.reduction == Reduction::none && !c.output.empty()) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    write_npy_f32_collective(c.output, c.tokens, c.vocab, mine.begin, mine.count, host.data(), comm);
    rec.output_written = c.output;
  }
  return rec;
}

// The whole run: `c.precision` is resolved (not backend_default); the element type is c.dtype.
template <class Space>
Record run_problem(const Config& c, const std::function<void(const Record&)>& announce) {
  switch (c.dtype) {
    case DType::bf16: return run_typed<Space, bf16>(c, announce);
    case DType::fp16: return run_typed<Space, fp16>(c, announce);
    case DType::fp32: break;
  }
  return run_typed<Space, float>(c, announce);
}

}  // namespace klmini
