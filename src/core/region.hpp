// A Kokkos Tools region for one phase of a run, open for the object's lifetime: kernel-timer,
// space-time-stack and the like show where the time and memory of a run go (setup, reference,
// each variant's timing and check, output).
#pragma once

#include <Kokkos_Core.hpp>

#include <string>

namespace klmini {

class Region {
 public:
  explicit Region(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~Region() { Kokkos::Profiling::popRegion(); }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
};

}  // namespace klmini
