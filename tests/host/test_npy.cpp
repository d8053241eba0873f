// .npy files (src/host/npy.cpp): round trips, the format versions, and every malformed file we
// could think of.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "common/fresh_seed.hpp"
#include "common/temp_dir.hpp"
#include "host/errors.hpp"
#include "host/npy.hpp"

using Catch::Matchers::ContainsSubstring;
using klmini::testing::TempDir;

namespace {

// A .npy file `name` in `dir` with the given version, dictionary and payload (dictionary padded
// like numpy's).
std::string write_raw(const TempDir& dir, const std::string& name, const std::string& dict, std::size_t payload_bytes,
                      int major = 1, bool pad = true, const std::string& magic = "\x93NUMPY") {
  const std::string path = dir.file(name);
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  if (pad) {
    const std::size_t total = ((prefix + header.size() + 1 + 63) / 64) * 64;
    header.append(total - prefix - header.size() - 1, ' ');
    header.push_back('\n');
  }
  std::ofstream out(path, std::ios::binary);
  out.write(magic.data(), static_cast<std::streamsize>(magic.size()));
  out.put(static_cast<char>(major));
  out.put(0);
  const std::size_t n = header.size();
  out.put(static_cast<char>(n & 0xff));
  out.put(static_cast<char>((n >> 8) & 0xff));
  if (major != 1) {
    out.put(static_cast<char>((n >> 16) & 0xff));
    out.put(static_cast<char>((n >> 24) & 0xff));
  }
  out << header;
  const std::vector<char> payload(payload_bytes, '\x01');
  out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
  return path;
}

const std::string kGoodDict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

}  // namespace

TEST_CASE("write then read gives the same floats, row slices included") {
  std::mt19937 gen(static_cast<std::uint32_t>(klmini::testing::fresh_seed()));
  std::normal_distribution<float> dist;
  const std::int64_t rows = 5, cols = 7;
  std::vector<float> data(rows * cols);
  for (auto& x : data) x = dist(gen);
  const TempDir dir("npy");
  const std::string path = dir.file("round_trip.npy");
  klmini::write_npy_f32(path, rows, cols, data.data());
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  CHECK((std::filesystem::file_size(path) - 128) == rows * cols * 4);  // 64-byte aligned header
  const klmini::NpyHeader h = klmini::inspect_npy_f32(path, rows, cols);
  CHECK(h.descr == "<f4");
  CHECK(h.data_offset % 64 == 0);
  std::vector<float> back(rows * cols, -1.0f);
  klmini::read_npy_rows(path, h, 0, rows, back.data());
  CHECK(back == data);
  std::vector<float> slice(2 * cols, -1.0f);
  klmini::read_npy_rows(path, h, 3, 2, slice.data());
  CHECK(std::vector<float>(data.begin() + 3 * cols, data.end()) == slice);
}

TEST_CASE("versions 2.0 and 3.0 are read") {
  const TempDir dir("npy");
  CHECK_NOTHROW(klmini::inspect_npy_f32(write_raw(dir, "v2.npy", kGoodDict, 24, 2), 2, 3));
  CHECK_NOTHROW(klmini::inspect_npy_f32(write_raw(dir, "v3.npy", kGoodDict, 24, 3), 2, 3));
  CHECK_NOTHROW(klmini::inspect_npy_f32(write_raw(dir, "ok.npy", kGoodDict, 24), 2, 3));
}

TEST_CASE("malformed .npy files are errors naming the file and the fault") {
  struct Case {
    const char* name;
    std::string path;
    const char* message;
  };
  const TempDir dir("npy");
  const std::vector<Case> cases = {
      {"missing", dir.file("does_not_exist.npy"), "cannot open"},
      {"bad magic", write_raw(dir, "magic.npy", kGoodDict, 24, 1, true, "\x93NUMPX"), "bad magic"},
      {"version 4", write_raw(dir, "v4.npy", kGoodDict, 24, 4), "unsupported .npy format version 4.0"},
      {"fp64", write_raw(dir, "f8.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 48),
       "dtype '<f8' is not what the deck's dtype reads (fp32 '<f4') (fp64"},
      {"fp16 for an fp32 deck",
       write_raw(dir, "f2.npy", "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", 12),
       "set the deck's dtype to \"fp16\""},
      {"bf16 bits for an fp32 deck",
       write_raw(dir, "u2.npy", "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }", 12),
       "set the deck's dtype to \"bf16\" to read this file as raw bf16 bits"},
      {"big endian", write_raw(dir, "be.npy", "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", 24),
       "big-endian"},
      {"int32", write_raw(dir, "i4.npy", "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 24),
       "dtype '<i4'"},
      {"fortran", write_raw(dir, "f.npy", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24),
       "Fortran order"},
      {"wrong shape", write_raw(dir, "shape.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", 24),
       "shape (3, 2) does not match"},
      {"1-d", write_raw(dir, "1d.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", 24),
       "shape (6,) does not match"},
      {"3-d", write_raw(dir, "3d.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 1), }", 24),
       "shape (2, 3, 1)"},
      {"truncated data", write_raw(dir, "short.npy", kGoodDict, 20), "(truncated)"},
      {"trailing data", write_raw(dir, "long.npy", kGoodDict, 28), "(trailing bytes)"},
      {"unknown header key",
       write_raw(dir, "key.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", 24),
       "unexpected header key 'x'"},
      {"missing descr", write_raw(dir, "nodescr.npy", "{'fortran_order': False, 'shape': (2, 3), }", 24), "no 'descr'"},
      {"missing shape", write_raw(dir, "noshape.npy", "{'descr': '<f4', 'fortran_order': False, }", 24), "no 'shape'"},
      {"bad boolean", write_raw(dir, "bool.npy", "{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", 24),
       "expected True or False"},
      {"bad dimension", write_raw(dir, "dim.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", 24),
       "expected a dimension"},
      {"no newline", write_raw(dir, "nl.npy", kGoodDict, 24, 1, false), "newline"},
      {"not a dict", write_raw(dir, "list.npy", "['<f4', False, (2, 3)]", 24), "expected '{'"},
      {"unterminated", write_raw(dir, "unterm.npy", "{'descr: '<f4'}", 24), "malformed .npy header"},
      {"huge dimension",
       write_raw(dir, "huge.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 3), }", 24),
       "dimension too large"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    REQUIRE_THROWS_AS(klmini::inspect_npy_f32(c.path, 2, 3), klmini::DataFileError);
    REQUIRE_THROWS_WITH(klmini::inspect_npy_f32(c.path, 2, 3),
                        ContainsSubstring(c.path) && ContainsSubstring(c.message));
  }
}

TEST_CASE("a header whose length runs past the end of the file is truncated, not read") {
  const TempDir dir("npy");
  const std::string path = dir.file("header_len.npy");
  std::ofstream out(path, std::ios::binary);
  out << "\x93NUMPY" << '\x01' << '\x00' << '\xff' << '\x7f' << "{'descr'";
  out.close();
  REQUIRE_THROWS_WITH(klmini::inspect_npy_f32(path, 2, 3), ContainsSubstring("truncated .npy header"));
  const std::string tiny = dir.file("tiny.npy");
  std::ofstream(tiny, std::ios::binary) << "\x93NUM";
  REQUIRE_THROWS_WITH(klmini::inspect_npy_f32(tiny, 2, 3), ContainsSubstring("bad magic"));
}

TEST_CASE("writing into a folder that does not exist is an error naming the path") {
  std::vector<float> x(4, 1.0f);
  REQUIRE_THROWS_WITH(klmini::write_npy_f32("/nonexistent/dir/out.npy", 2, 2, x.data()),
                      ContainsSubstring("/nonexistent/dir/out.npy"));
}
