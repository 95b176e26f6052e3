#include "env/store_errors.h"

#include <nlohmann/json.hpp>

namespace tierfs {

nlohmann::json StoreErrorsToJson(const StoreErrorCounts& counts) {
  nlohmann::json j = nlohmann::json::object();
  for (const StoreErrorInfo& info : kStoreErrors) j[info.name] = counts[size_t(info.id)];
  return j;
}

StoreErrorCounts StoreErrorsFromJson(const nlohmann::json& j) {
  StoreErrorCounts counts{};
  if (!j.is_object()) return counts;
  for (const StoreErrorInfo& info : kStoreErrors) {
    auto it = j.find(info.name);
    if (it != j.end() && it->is_number_unsigned()) counts[size_t(info.id)] = it->get<uint64_t>();
  }
  return counts;
}

std::string StoreErrorsLine(const StoreErrorCounts& counts) {
  std::string line;
  for (const StoreErrorInfo& info : kStoreErrors) {
    if (counts[size_t(info.id)] == 0) continue;
    if (!line.empty()) line += ", ";
    line += std::string(info.name) + " " + std::to_string(counts[size_t(info.id)]);
  }
  return line.empty() ? "none" : line;
}

}  // namespace tierfs
