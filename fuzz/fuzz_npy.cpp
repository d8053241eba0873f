// Fuzzes the .npy reader on bytes in memory: any input must be accepted as a 2 x 3 matrix of the
// dtype each deck dtype reads (fp32 '<f4', fp16 '<f2', bf16 bits '<u2'), or rejected with
// DataFileError. A crash, sanitizer report or other exception is a bug.
#include <cstddef>
#include <cstdint>

#include "host/errors.hpp"
#include "host/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  struct Expected {
    const char* descr;
    std::int64_t item_bytes;
  };
  for (const Expected e : {Expected{"<f4", 4}, Expected{"<f2", 2}, Expected{"<u2", 2}}) {
    try {
      const auto h = klmini::check_npy_bytes("fuzz.npy", reinterpret_cast<const char*>(data), size,
                                             static_cast<std::int64_t>(size), 2, 3, e.descr);
      if (h.descr != e.descr) __builtin_trap();  // accepted another dtype
      if (h.data_offset + 6 * e.item_bytes != static_cast<std::int64_t>(size)) __builtin_trap();  // a wrong length
    } catch (const klmini::DataFileError&) {
    }
  }
  return 0;
}
