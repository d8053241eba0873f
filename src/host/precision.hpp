// How the inputs are stored and the terms computed: the deck's `dtype` and `precision`. Below
// the deck (host/config.hpp) and the tables that say where a variant or a backend applies
// (host/variants.hpp, host/backends.hpp), which all read them.
#pragma once

#include <cstdint>

namespace klmini {

// Element type of the inputs (the outputs are fp32 always).
enum class DType { fp32, bf16, fp16 };
// How the terms are computed: fast = fp32 terms with the kernel log; exact = fp64 terms with an
// fp64 log. backend_default = the backend's default (host/backends.hpp), resolved before the run.
enum class Precision { backend_default, fast, exact };

const char* to_string(DType d);
const char* to_string(Precision p);
std::int64_t element_bytes(DType d);

}  // namespace klmini
