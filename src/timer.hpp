// Times one kernel launch on an execution space. On Cuda it records CUDA events on the
// space's stream around the launch, the way the peers' numbers are taken
// (triton.testing.do_bench): before each start the stream zeroes a 256 MiB buffer, which evicts
// the inputs from L2 and keeps the GPU busy while the host enqueues the kernel. Without that the
// start event fires on an idle stream, and the host's launch cost (about 10 us for a Kokkos
// reduction) is timed as if the GPU were working on it. A run whose launch the flush may not
// have covered is counted (uncovered()), so that the report can say so. On host spaces it
// fences and reads a wall clock. Every CUDA call is checked.
#pragma once

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

#include "limits.hpp"

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
inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <>
class KernelTimer<Kokkos::Cuda> {
 public:
  KernelTimer()
      : flush_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "klmini::timer_flush"),
               static_cast<std::size_t>(kTimerFlushBytes)) {
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
    check_cuda(cudaMemsetAsync(flush_.data(), 0, flush_.size(), stream), "cudaMemsetAsync (L2 flush)");
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
    if (enqueued_s >= flush_ms * 1e-3) ++uncovered_;
    return ms * 1e-3;
  }
  int uncovered() const { return uncovered_; }  // runs whose launch may have been timed

 private:
  Kokkos::View<unsigned char*, Kokkos::CudaSpace> flush_;
  cudaEvent_t flush_begin_{}, begin_{}, end_{};
  Kokkos::Timer host_;
  int uncovered_ = 0;
};
#endif

}  // namespace klmini
