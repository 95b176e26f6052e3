#include "tools/ycsb/properties.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <strings.h>
#include <vector>

namespace tierfs {
namespace ycsb {

using rocksdb::Status;

namespace {

Status BadValue(const std::string& key, const std::string& value, const char* expected) {
  return Status::InvalidArgument("property '" + key + "': '" + value + "' is not " + expected);
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// Splits text into logical lines: physical lines joined where one ends in an
// odd number of backslashes (the continuation's leading white space dropped).
std::vector<std::string> LogicalLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string current;
  bool continuing = false;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t start = 0;
    while (start < line.size() && IsSpace(line[start])) ++start;
    std::string piece = line.substr(start);
    if (!continuing && (piece.empty() || piece[0] == '#' || piece[0] == '!')) continue;
    size_t backslashes = 0;
    while (backslashes < piece.size() && piece[piece.size() - 1 - backslashes] == '\\') {
      ++backslashes;
    }
    continuing = backslashes % 2 == 1;
    if (continuing) piece.pop_back();
    current += piece;
    if (!continuing) {
      lines.push_back(current);
      current.clear();
    }
  }
  if (continuing) lines.push_back(current);
  return lines;
}

// Java's escapes; '\c' for any other c is c. False on a malformed \u.
bool Unescape(const std::string& in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '\\' || i + 1 == in.size()) {
      out->push_back(in[i]);
      continue;
    }
    const char c = in[++i];
    switch (c) {
      case 't': out->push_back('\t'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 'f': out->push_back('\f'); break;
      case 'u': {
        if (i + 4 >= in.size()) return false;
        const std::string hex = in.substr(i + 1, 4);
        char* end = nullptr;
        const long code = strtol(hex.c_str(), &end, 16);
        if (hex.size() != 4 || *end != '\0' || code > 0x7f) return false;
        out->push_back(char(code));
        i += 4;
        break;
      }
      default: out->push_back(c);
    }
  }
  return true;
}

}  // namespace

std::string Properties::Get(const std::string& key, const std::string& default_value) const {
  auto it = values_.find(key);
  return it == values_.end() ? default_value : it->second;
}

Status Properties::GetInt64(const std::string& key, int64_t default_value, int64_t* out) const {
  auto it = values_.find(key);
  if (it == values_.end()) {
    *out = default_value;
    return Status::OK();
  }
  const std::string& text = it->second;
  errno = 0;
  char* end = nullptr;
  const long long v = strtoll(text.c_str(), &end, 10);
  if (text.empty() || IsSpace(text[0]) || *end != '\0' || errno == ERANGE) {
    return BadValue(key, text, "an integer");
  }
  *out = v;
  return Status::OK();
}

Status Properties::GetDouble(const std::string& key, double default_value, double* out) const {
  auto it = values_.find(key);
  if (it == values_.end()) {
    *out = default_value;
    return Status::OK();
  }
  const std::string& text = it->second;
  char* end = nullptr;
  const double v = strtod(text.c_str(), &end);
  if (text.empty() || IsSpace(text[0]) || *end != '\0' || std::isnan(v)) {
    return BadValue(key, text, "a number");
  }
  *out = v;
  return Status::OK();
}

Status Properties::GetBool(const std::string& key, bool default_value, bool* out) const {
  auto it = values_.find(key);
  if (it == values_.end()) {
    *out = default_value;
    return Status::OK();
  }
  if (strcasecmp(it->second.c_str(), "true") == 0) {
    *out = true;
  } else if (strcasecmp(it->second.c_str(), "false") == 0) {
    *out = false;
  } else {
    return BadValue(key, it->second, "true or false");
  }
  return Status::OK();
}

Status Properties::LoadText(const std::string& text, const std::string& source) {
  for (const std::string& line : LogicalLines(text)) {
    // The key ends at the first unescaped '=', ':' or white space.
    size_t k = 0;
    while (k < line.size() && line[k] != '=' && line[k] != ':' && !IsSpace(line[k])) {
      if (line[k] == '\\') ++k;
      ++k;
    }
    const size_t key_end = std::min(k, line.size());
    size_t v = key_end;
    while (v < line.size() && IsSpace(line[v])) ++v;
    if (v < line.size() && (line[v] == '=' || line[v] == ':')) ++v;
    while (v < line.size() && IsSpace(line[v])) ++v;
    size_t value_end = line.size();
    while (value_end > v && IsSpace(line[value_end - 1])) --value_end;

    std::string key, value;
    if (!Unescape(line.substr(0, key_end), &key) ||
        !Unescape(line.substr(v, value_end - v), &value)) {
      return Status::InvalidArgument(source + ": malformed \\u escape in line '" + line + "'");
    }
    values_[key] = value;
  }
  return Status::OK();
}

Status Properties::LoadFile(const std::string& path) {
  FILE* file = fopen(path.c_str(), "rb");
  if (file == nullptr) {
    return Status::IOError("cannot read property file '" + path + "'", strerror(errno));
  }
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), file)) > 0) text.append(buf, n);
  // A directory opens, then fails to read (EISDIR).
  const int read_error = ferror(file) ? errno : 0;
  fclose(file);
  if (read_error != 0) {
    return Status::IOError("cannot read property file '" + path + "'", strerror(read_error));
  }
  return LoadText(text, path);
}

}  // namespace ycsb
}  // namespace tierfs
