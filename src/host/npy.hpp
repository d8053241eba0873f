// Reading NumPy .npy files of little-endian fp32, fp16 ('<f2') or raw bf16 bits ('<u2') matrices
// in C order, and writing fp32 ones.
// Every way a file can be wrong (magic, version, header, dtype, order, shape, length) is a
// DataFileError naming the file and the fault.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace klmini {

struct NpyHeader {
  std::string descr;  // e.g. "<f4"
  bool fortran_order = false;
  std::vector<std::int64_t> shape;  // e.g. {16384, 4096}
  std::int64_t data_offset = 0;     // bytes before the first element
};

// Parse and check the header of `path`: a C-order matrix of dtype `descr` ("<f4", "<f2" or
// "<u2") of exactly rows x cols whose file length matches. Throws DataFileError otherwise.
NpyHeader inspect_npy(const std::string& path, std::int64_t rows, std::int64_t cols, const std::string& descr);
inline NpyHeader inspect_npy_f32(const std::string& path, std::int64_t rows, std::int64_t cols) {
  return inspect_npy(path, rows, cols, "<f4");
}

// The same checks on bytes already in memory: `bytes` holds (at least) the start of a file of
// `file_size` bytes. `path` only names the file in messages. (The fuzzer's entry point.)
NpyHeader check_npy_bytes(const std::string& path, const char* bytes, std::size_t size, std::int64_t file_size,
                          std::int64_t rows, std::int64_t cols, const std::string& descr = "<f4");

// Read rows [row_begin, row_begin + row_count) of a checked file into `dest` (row_count x cols
// elements of the header's dtype, as stored).
void read_npy_rows(const std::string& path, const NpyHeader& header, std::int64_t row_begin, std::int64_t row_count,
                   void* dest);

// Write a rows x cols fp32 matrix; the data goes to a temporary file that is renamed at the
// end, so an interrupted run never leaves a truncated result under `path`.
void write_npy_f32(const std::string& path, std::int64_t rows, std::int64_t cols, const float* data);

// The same, written by every rank of `comm` at once: rank r holds rows
// [row_begin, row_begin + rows) of the tokens x vocab matrix. Collective; the temporary file is
// renamed into place once every rank has written its rows. A step that fails on any rank
// throws EveryRankError on all of them, naming the rank and the system's reason.
class Comm;
void write_npy_f32_collective(const std::string& path, std::int64_t tokens, std::int64_t vocab, std::int64_t row_begin,
                              std::int64_t rows, const float* data, const Comm& comm);

// Parse a header dictionary (exposed for tests): {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }. Throws DataFileError(path, ...) on anything else.
NpyHeader parse_npy_header_dict(const std::string& path, const std::string& dict);

}  // namespace klmini
