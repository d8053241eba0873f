// A progress line for the phases that can take seconds (generation, reading .npy files, the
// reference and the element checks): written to standard error only when it is a terminal and
// the phase has run for a while, so logs and batch output stay clean.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace klmini {

class Progress {
 public:
  // `enabled`: this process may print (the root rank); `total`: the units of work.
  Progress(std::string what, std::int64_t total, bool enabled);
  ~Progress();  // clears the line if one was printed
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void update(std::int64_t done);

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  std::int64_t total_;
  bool enabled_, printed_ = false;
  Clock::time_point start_, last_;
};

}  // namespace klmini
