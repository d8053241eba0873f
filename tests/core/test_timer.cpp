// The kernel timer (src/core/timer.hpp) and what the host knows of it (src/host/timing.hpp).
// Cuda's timer checks each CUDA call (src/core/cuda_check.hpp): run by the Cuda build's binary.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <chrono>
#include <thread>

#include "core/timer.hpp"
#include "host/timing.hpp"

TEST_CASE("the kernel timer times what runs between start and stop") {
  klmini::KernelTimer<Space> timer;
  timer.start();
  if (klmini::is_host_space<Space>()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double s = timer.stop();
  CHECK(s >= 0.0);
  // A host timer reads the wall clock, so the sleep is in it; a device's times only its stream.
  if (klmini::is_host_space<Space>()) CHECK(s >= 0.02);
  CHECK(s < 10.0);
  CHECK(timer.uncovered() >= 0);
  CHECK(timer.uncovered() <= 1);
}

TEST_CASE("one rank times with the kernel timer; several on a clock common to them") {
  CHECK(klmini::times_with_kernel_timer(1));
  CHECK_FALSE(klmini::times_with_kernel_timer(2));
  CHECK(klmini::kTimerFlushBytes == 256.0 * 1024 * 1024);  // beyond any L2 cache
}
