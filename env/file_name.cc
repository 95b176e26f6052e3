#include "env/file_name.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace tierfs {
namespace {

bool AllDigits(const std::string& s, size_t begin, size_t end) {
  if (begin >= end) return false;
  for (size_t i = begin; i < end; ++i) {
    if (!isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

FileKind ClassifyFileName(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name == "CURRENT") return FileKind::kCurrent;
  if (name == "IDENTITY") return FileKind::kIdentity;
  if (name == "LOCK") return FileKind::kLock;
  if (name == "LOG" || StartsWith(name, "LOG.old.")) return FileKind::kInfoLog;
  if (StartsWith(name, "MANIFEST-") && AllDigits(name, 9, name.size())) return FileKind::kManifest;
  if (EndsWith(name, ".dbtmp")) return FileKind::kTemp;
  if (StartsWith(name, "OPTIONS-") && AllDigits(name, 8, name.size())) return FileKind::kOptions;
  size_t dot = name.rfind('.');
  if (dot != std::string::npos && AllDigits(name, 0, dot)) {
    std::string ext = name.substr(dot + 1);
    if (ext == "sst" || ext == "ldb") return FileKind::kSst;
    if (ext == "log") return FileKind::kWal;
    if (ext == "blob") return FileKind::kBlob;
  }
  return FileKind::kOther;
}

std::string LexicalPath(const std::string& path) {
  std::vector<std::string> parts;
  for (size_t i = 0; i <= path.size();) {
    size_t j = std::min(path.find('/', i), path.size());
    std::string part = path.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

}  // namespace tierfs
