// Numbers read from JSON that comes from outside the process: the STATS file,
// the admin channel's requests and answers.
//
// nlohmann's get<T>() converts any JSON number with a static_cast: a float
// outside T's range (1e300 read as uint64_t) is undefined behaviour, and a
// negative integer read as unsigned wraps around. JsonNumber accepts only a
// number T holds: an integer in T's range for an integral T, any number in
// range for a floating-point T. Anything else throws std::out_of_range naming
// what was expected, so a caller that already catches nlohmann's type errors
// (a string where a number belongs) catches this with std::exception.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <nlohmann/json.hpp>

namespace tierfs {

template <class T>
T JsonNumber(const nlohmann::json& j) {
  static_assert(std::is_arithmetic<T>::value && !std::is_same<T, bool>::value, "a number type");
  using Limits = std::numeric_limits<T>;
  if constexpr (std::is_floating_point<T>::value) {
    if (j.is_number()) {
      const double v = j.get<double>();
      if (std::fabs(v) <= double(Limits::max())) return T(v);
    }
    throw std::out_of_range("expected a number of at most " + std::to_string(Limits::max()) +
                            ", got " + j.dump());
  } else {
    if (j.is_number_unsigned()) {
      const uint64_t v = j.get<uint64_t>();
      if (v <= uint64_t(Limits::max())) return T(v);
    } else if (j.is_number_integer()) {
      const int64_t v = j.get<int64_t>();
      if (Limits::is_signed ? (v >= int64_t(Limits::min()) && v <= int64_t(Limits::max()))
                            : v >= 0) {
        return T(v);
      }
    }
    throw std::out_of_range("expected an integer from " + std::to_string(Limits::min()) + " to " +
                            std::to_string(Limits::max()) + ", got " + j.dump());
  }
}

// object[key] as JsonNumber<T>, or `default_value` if the key is absent.
// REQUIRES: object is a JSON object.
template <class T>
T JsonNumber(const nlohmann::json& object, const char* key, T default_value) {
  auto it = object.find(key);
  if (it == object.end()) return default_value;
  try {
    return JsonNumber<T>(*it);
  } catch (const std::out_of_range& e) {
    throw std::out_of_range(std::string("\"") + key + "\": " + e.what());
  }
}

}  // namespace tierfs
