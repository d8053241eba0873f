// A folder of its own for one test's files: made fresh under the system's temporary folder
// (klmini_test_<what>_<pid>_<n>) and removed, with everything in it, when the object goes out
// of scope, whether the test passed or a failed REQUIRE unwound through it. Every test that
// writes a file writes it here.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace klmini::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& what) : path_(unique_path(what)) {
    std::filesystem::remove_all(path_);  // left by a killed run whose pid has come round again
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;  // a destructor must not throw, and a folder already gone is fine
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // The path of `name` inside the folder; the file itself is the test's to write.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  static std::filesystem::path unique_path(const std::string& what) {
    static int made = 0;  // a process may hold several at once
    return std::filesystem::temp_directory_path() /
           ("klmini_test_" + what + "_" + std::to_string(::getpid()) + "_" + std::to_string(++made));
  }

  std::filesystem::path path_;
};

}  // namespace klmini::testing
