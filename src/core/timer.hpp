// Times one kernel launch on an execution space. On Cuda it records CUDA events on the
// space's stream around the launch, and before each start the stream reads a 256 MiB buffer:
// that evicts the inputs from L2 (as triton.testing.do_bench's zeroing of a buffer does) and
// keeps the GPU busy while the host enqueues the kernel, so that the host's launch cost stays
// out of the time. A read, not do_bench's write: a write leaves L2 full of dirty lines whose
// write-back the timed kernel then pays (docs/PERFORMANCE.md, Timing and the L2 flush).
// A run whose launch the flush may not have covered is counted (uncovered()), so that the
// report can say so. On host spaces it fences and reads a wall clock. Every CUDA call is checked.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "core/cuda_check.hpp"
#include "host/timing.hpp"

namespace klmini {

template <class Space>
class KernelTimer {
 public:
  void start() {
    Space().fence();
    timer_.reset();
  }
  double stop() {  // seconds since start(), after the kernel has finished
    Space().fence();
    return timer_.seconds();
  }
  int uncovered() const { return 0; }  // the host clock includes the launch by design

 private:
  Kokkos::Timer timer_;
};

#ifdef KOKKOS_ENABLE_CUDA
template <>
class KernelTimer<Kokkos::Cuda> {
 public:
  // flush = false: the start event on an idle stream, for the benchmark's comparison of methods.
  explicit KernelTimer(bool flush = true)
      : flush_("klmini::timer_flush", flush ? static_cast<std::size_t>(kTimerFlushBytes) / sizeof(std::uint64_t) : 0) {
    for (cudaEvent_t* e : {&flush_begin_, &begin_, &end_}) check_cuda(cudaEventCreate(e), "cudaEventCreate");
  }
  ~KernelTimer() {
    for (cudaEvent_t e : {flush_begin_, begin_, end_}) cudaEventDestroy(e);
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  void start() {
    const cudaStream_t stream = Kokkos::Cuda().cuda_stream();
    host_.reset();
    check_cuda(cudaEventRecord(flush_begin_, stream), "cudaEventRecord");
    if (flush_.size() > 0) {
      const auto buffer = flush_;
      Kokkos::parallel_reduce(
          "klmini::timer_flush",
          Kokkos::RangePolicy<Kokkos::Cuda, Kokkos::IndexType<std::int64_t>>(0, std::int64_t(buffer.size())),
          KOKKOS_LAMBDA(const std::int64_t i, std::uint64_t& sum) { sum += buffer(i); }, sink_);
    }
    check_cuda(cudaEventRecord(begin_, stream), "cudaEventRecord");
  }
  double stop() {
    // The flush started on the GPU no earlier than the host asked for it, so a kernel enqueued
    // within the flush's own duration found the GPU still busy: no idle time was timed.
    const double enqueued_s = host_.seconds();
    check_cuda(cudaEventRecord(end_, Kokkos::Cuda().cuda_stream()), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(end_), "cudaEventSynchronize");
    check_cuda(cudaGetLastError(), "kernel launch");
    float flush_ms = 0.0f, ms = 0.0f;
    check_cuda(cudaEventElapsedTime(&flush_ms, flush_begin_, begin_), "cudaEventElapsedTime");
    check_cuda(cudaEventElapsedTime(&ms, begin_, end_), "cudaEventElapsedTime");
    if (flush_.size() > 0 && enqueued_s >= flush_ms * 1e-3) ++uncovered_;
    return ms * 1e-3;
  }
  int uncovered() const { return uncovered_; }  // runs whose launch may have been timed

 private:
  Kokkos::View<std::uint64_t*, Kokkos::CudaSpace> flush_;
  Kokkos::View<std::uint64_t, Kokkos::CudaSpace> sink_{"klmini::timer_flush_sum"};  // on the device: no wait
  cudaEvent_t flush_begin_{}, begin_{}, end_{};
  Kokkos::Timer host_;
  int uncovered_ = 0;
};
#endif

}  // namespace klmini
