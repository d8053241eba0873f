// Typed errors for everything a user can get wrong. main() turns each into one message on
// stderr and exit code 2; the message always names the key, file, line or shape at fault.
#pragma once

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace klmini {

// The operating system's reason for the last failed file operation (strerror of errno), for
// messages such as "out.json: cannot write JSON file: Permission denied". Callers clear errno
// before the operation, so a stale value is not reported.
inline std::string os_error() {
  const int e = errno;
  return e != 0 ? std::strerror(e) : "reason not reported by the system";
}

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A deck key or --set override that is unknown, mistyped or out of range.
// `where` is "deck.toml:12:1", "--set tokens=0" or "embedded default deck".
class DeckError : public InputError {
 public:
  DeckError(const std::string& where, const std::string& key, const std::string& what)
      : InputError(where + ": key '" + key + "': " + what), key_(key) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

// A data file (.npy) that cannot be read, has the wrong format, dtype or shape.
class DataFileError : public InputError {
 public:
  DataFileError(const std::string& path, const std::string& what) : InputError(path + ": " + what) {}
};

// A backend or variant that exists in klmini but was not compiled into this build.
class NotCompiledIn : public InputError {
 public:
  using InputError::InputError;
};

// The problem does not fit in the memory of the chosen space.
class DoesNotFit : public InputError {
 public:
  using InputError::InputError;
};

// An error that every rank raises together, after a collective found it on at least one of them
// (fail_together, host/comm.hpp): each rank exits by itself with the input error's code, none is
// left waiting in a collective. Only the rank that `speaks` (the first that found it) prints it.
class EveryRankError : public InputError {
 public:
  EveryRankError(const std::string& what, bool speaks) : InputError(what), speaks_(speaks) {}
  bool speaks() const { return speaks_; }

 private:
  bool speaks_;
};

}  // namespace klmini
