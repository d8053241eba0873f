// Fuzzes the deck parser: any input must either parse to a valid Config or throw klmini's
// InputError (which main turns into a message and exit 2). A crash, a sanitizer report, a
// hang or any other exception is a bug. The input is tried as a deck, and its lines as
// --set overrides of an empty deck.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "host/config.hpp"
#include "host/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const klmini::Config c = klmini::parse_config(text, "fuzz.toml", "/decks", {});
    if (c.tokens < 1 || c.vocab < 1 || c.repeats < 1) __builtin_trap();  // validation let a bad value through
  } catch (const klmini::InputError&) {
  }
  std::vector<std::string> overrides;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line) && overrides.size() < 8;) overrides.push_back(line);
  try {
    klmini::parse_config("", "fuzz.toml", "/decks", overrides);
  } catch (const klmini::InputError&) {
  }
  return 0;
}
