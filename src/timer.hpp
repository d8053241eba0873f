// Times one kernel launch on an execution space. On Cuda it records CUDA events on the
// space's stream around the launch, the same clock the peers' numbers come from
// (triton.testing.do_bench): launch latency and host synchronization stay out. On host spaces
// it fences and reads a wall clock. Every CUDA call is checked.
#pragma once

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

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
  KernelTimer() {
    check_cuda(cudaEventCreate(&begin_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&end_), "cudaEventCreate");
  }
  ~KernelTimer() {
    cudaEventDestroy(begin_);
    cudaEventDestroy(end_);
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

  void start() { check_cuda(cudaEventRecord(begin_, Kokkos::Cuda().cuda_stream()), "cudaEventRecord"); }
  double stop() {
    check_cuda(cudaEventRecord(end_, Kokkos::Cuda().cuda_stream()), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(end_), "cudaEventSynchronize");
    check_cuda(cudaGetLastError(), "kernel launch");
    float ms = 0.0f;
    check_cuda(cudaEventElapsedTime(&ms, begin_, end_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

 private:
  cudaEvent_t begin_{}, end_{};
};
#endif

}  // namespace klmini
