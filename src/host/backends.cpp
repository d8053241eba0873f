#include "host/backends.hpp"

#include <algorithm>

namespace klmini {

std::vector<Backend> all_backends() {
  std::vector<Backend> out;
  for (const BackendInfo& i : kBackends) out.push_back(i.id);
  return out;
}

std::optional<Backend> find_backend(std::string_view name) {
  for (const BackendInfo& i : kBackends)
    if (i.name == name) return i.id;
  return std::nullopt;
}

std::string backend_names(const std::vector<Backend>& backends, const std::string& separator) {
  std::string s;
  for (const Backend b : backends) s += (s.empty() ? "" : separator) + backend_name(b);
  return s;
}

std::vector<Backend> same_sums_as(Backend b, const std::vector<Backend>& compiled) {
  std::vector<Backend> out;
  for (const BackendInfo& i : kBackends) {
    const bool here = i.id == b || std::find(compiled.begin(), compiled.end(), i.id) != compiled.end();
    if (here && i.sum_code == info(b).sum_code) out.push_back(i.id);
  }
  return out;
}

}  // namespace klmini
