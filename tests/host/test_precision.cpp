// The deck's dtype and precision (src/host/precision.hpp): their names and element sizes.
#include <catch2/catch_test_macros.hpp>

#include <string>

#include "host/precision.hpp"

TEST_CASE("dtype and precision by name, and the bytes of an element") {
  using klmini::DType;
  using klmini::Precision;
  CHECK(std::string(klmini::to_string(DType::fp32)) == "fp32");
  CHECK(std::string(klmini::to_string(DType::bf16)) == "bf16");
  CHECK(std::string(klmini::to_string(DType::fp16)) == "fp16");
  CHECK(klmini::element_bytes(DType::fp32) == 4);
  CHECK(klmini::element_bytes(DType::bf16) == 2);
  CHECK(klmini::element_bytes(DType::fp16) == 2);
  CHECK(std::string(klmini::to_string(Precision::fast)) == "fast");
  CHECK(std::string(klmini::to_string(Precision::exact)) == "exact");
  CHECK(std::string(klmini::to_string(Precision::backend_default)) == "backend default");
}
