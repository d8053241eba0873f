// A minimal Kokkos Tools library (the kokkosp_* C interface that every Kokkos release since 3.0
// calls): it writes one line per event to the file named by KLMINI_TOOL_LOG, for
// tests/tools/check_events.py. Lines: "push NAME", "pop", "kernel KIND REGIONS NAME" (REGIONS: the
// open regions, outermost first, joined by '/'; "-" outside any), "alloc SPACE LABEL", "copy DST_LABEL SRC_LABEL".
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::FILE* log_file = nullptr;
std::vector<std::string> regions;

void write(const std::string& line) {
  if (log_file) std::fprintf(log_file, "%s\n", line.c_str());
}

std::string open_regions() {
  std::string path;
  for (const std::string& r : regions) path += (path.empty() ? "" : "/") + r;
  return path.empty() ? std::string("-") : path;
}

// Names may hold spaces (a lambda's type name); the checker reads the last field to the end.
void kernel(const char* kind, const char* name, std::uint64_t* id) {
  *id = 0;
  write(std::string("kernel ") + kind + " " + open_regions() + " " + (name ? name : ""));
}

}  // namespace

struct KokkosPDeviceInfo {
  std::uint32_t deviceID;
};
struct SpaceHandle {
  char name[64];
};

extern "C" {

void kokkosp_init_library(int, std::uint64_t, std::uint32_t, KokkosPDeviceInfo*) {
  const char* path = std::getenv("KLMINI_TOOL_LOG");
  log_file = path ? std::fopen(path, "w") : nullptr;
  write("init");
}

void kokkosp_finalize_library() {
  write("finalize");
  if (log_file) std::fclose(log_file);
  log_file = nullptr;
}

void kokkosp_push_profile_region(const char* name) {
  regions.emplace_back(name ? name : "");
  write("push " + regions.back());
}

void kokkosp_pop_profile_region() {
  if (!regions.empty()) regions.pop_back();
  write("pop");
}

void kokkosp_begin_parallel_for(const char* name, std::uint32_t, std::uint64_t* id) { kernel("for", name, id); }
void kokkosp_begin_parallel_reduce(const char* name, std::uint32_t, std::uint64_t* id) { kernel("reduce", name, id); }
void kokkosp_begin_parallel_scan(const char* name, std::uint32_t, std::uint64_t* id) { kernel("scan", name, id); }
void kokkosp_end_parallel_for(std::uint64_t) {}
void kokkosp_end_parallel_reduce(std::uint64_t) {}
void kokkosp_end_parallel_scan(std::uint64_t) {}

void kokkosp_allocate_data(SpaceHandle space, const char* label, const void*, std::uint64_t) {
  write(std::string("alloc ") + space.name + " " + (label ? label : ""));
}
void kokkosp_deallocate_data(SpaceHandle, const char*, const void*, std::uint64_t) {}

void kokkosp_begin_deep_copy(SpaceHandle, const char* dst_label, const void*, SpaceHandle, const char* src_label,
                             const void*, std::uint64_t) {
  write(std::string("copy ") + (dst_label && *dst_label ? dst_label : "-") + " " +
        (src_label && *src_label ? src_label : "-"));
}
void kokkosp_end_deep_copy() {}

}  // extern "C"
