// Every CUDA runtime call klmini makes directly is checked: a failure is an exception that names
// the call and CUDA's reason.
#pragma once

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

namespace klmini {

#ifdef KOKKOS_ENABLE_CUDA
inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#endif

}  // namespace klmini
