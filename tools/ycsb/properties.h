// YCSB's configuration: a flat map of string properties, read from Java
// .properties files (-P) and the command line (-p), with typed getters whose
// errors name the property and the bad value.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include <rocksdb/status.h>

namespace tierfs {
namespace ycsb {

class Properties {
 public:
  // Sets (or replaces) one property.
  void Set(const std::string& key, const std::string& value) { values_[key] = value; }
  bool Has(const std::string& key) const { return values_.count(key) != 0; }
  // The value, or `default_value` when the property is not set.
  std::string Get(const std::string& key, const std::string& default_value = "") const;
  const std::map<std::string, std::string>& all() const { return values_; }

  // Typed getters: *out is `default_value` when the property is not set; a
  // set value that does not parse in full is InvalidArgument naming the
  // property and the value. Integers are decimal (Java's Long.parseLong);
  // booleans are true or false in any case (Java would read anything else as
  // false; here it is an error).
  rocksdb::Status GetInt64(const std::string& key, int64_t default_value, int64_t* out) const;
  rocksdb::Status GetDouble(const std::string& key, double default_value, double* out) const;
  rocksdb::Status GetBool(const std::string& key, bool default_value, bool* out) const;

  // Adds the properties of a Java .properties text, replacing those already
  // set: `key=value`, `key: value` or `key value` per line; lines starting
  // with '#' or '!' are comments; a line ending in an odd number of '\'
  // continues on the next; '\t', '\n', '\r', '\f' and '\uXXXX' (ASCII only)
  // are unescaped, any other '\c' is c. Unlike Java, trailing white space of
  // a value is dropped (YCSB would then fail to parse "1000 " as a number).
  // `source` names the text in errors.
  rocksdb::Status LoadText(const std::string& text, const std::string& source);
  // LoadText of a file's contents; IOError naming the file if it cannot be read.
  rocksdb::Status LoadFile(const std::string& path);

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace ycsb
}  // namespace tierfs
