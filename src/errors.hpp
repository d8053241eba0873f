// Typed errors for everything a user can get wrong. main() turns each into one message on
// stderr and exit code 2; the message always names the key, file, line or shape at fault.
#pragma once

#include <stdexcept>
#include <string>

namespace klmini {

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
  DataFileError(const std::string& path, const std::string& what)
      : InputError(path + ": " + what) {}
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

}  // namespace klmini
