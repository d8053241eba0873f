#include "host/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace klmini {

namespace {
constexpr double kQuietSeconds = 1.0;     // phases shorter than this print nothing
constexpr double kRefreshSeconds = 0.25;  // at most this often
}  // namespace

Progress::Progress(std::string what, std::int64_t total, bool enabled)
    : what_(std::move(what)),
      total_(total),
      enabled_(enabled && total > 0 && isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_(start_) {}

Progress::~Progress() {
  if (printed_) std::fprintf(stderr, "\r\033[K");
}

void Progress::update(std::int64_t done) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < kQuietSeconds || std::chrono::duration<double>(now - last_).count() < kRefreshSeconds) return;
  last_ = now;
  printed_ = true;
  std::fprintf(stderr, "\r\033[K%s: %3.0f%% (%.1f s)", what_.c_str(), 100.0 * double(done) / double(total_), elapsed);
  std::fflush(stderr);
}

}  // namespace klmini
