// Fuzzes the .npy reader on bytes in memory: any input must be accepted as a 2 x 3 fp32 matrix
// or rejected with DataFileError. A crash, sanitizer report or other exception is a bug.
#include <cstddef>
#include <cstdint>

#include "errors.hpp"
#include "npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto h = klmini::check_npy_bytes("fuzz.npy", reinterpret_cast<const char*>(data), size,
                                           static_cast<std::int64_t>(size), 2, 3);
    if (h.data_offset + 24 != static_cast<std::int64_t>(size)) __builtin_trap();  // accepted a wrong length
  } catch (const klmini::DataFileError&) {
  }
  return 0;
}
