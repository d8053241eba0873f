#include "host/precision.hpp"

namespace klmini {

const char* to_string(DType d) { return d == DType::bf16 ? "bf16" : d == DType::fp16 ? "fp16" : "fp32"; }
const char* to_string(Precision p) {
  return p == Precision::fast ? "fast" : p == Precision::exact ? "exact" : "backend default";
}
std::int64_t element_bytes(DType d) { return d == DType::fp32 ? 4 : 2; }

}  // namespace klmini
