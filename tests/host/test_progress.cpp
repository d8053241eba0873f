// The progress line (src/host/progress.hpp) stays off anything but a terminal: logs and batch
// output get none, however long the phase runs.
#include <catch2/catch_test_macros.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "common/temp_dir.hpp"
#include "host/progress.hpp"

namespace {

// What standard error received while `phase` ran, with it redirected to a file.
template <class F>
std::string stderr_of(const std::string& path, F phase) {
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  std::FILE* file = std::fopen(path.c_str(), "w");
  REQUIRE(file != nullptr);
  dup2(fileno(file), STDERR_FILENO);
  phase();
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::fclose(file);
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("a phase past the quiet second prints nothing when standard error is a file") {
  const klmini::testing::TempDir dir("progress");
  const std::string path = dir.file("stderr.txt");
  const std::string written = stderr_of(path, [] {
    klmini::Progress progress("reading", 10, true);
    progress.update(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // past kQuietSeconds
    progress.update(5);
    std::fputs("marker", stderr);  // the redirection works: only this arrives
  });
  CHECK(written == "marker");
}
