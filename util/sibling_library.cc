// See sibling_library.h.
#include "util/sibling_library.h"

#include <dlfcn.h>

#include <vector>

namespace tierfs {

void* FindSiblingSymbol(const char* library, const char* entry, const void* anchor,
                        std::string* tried) {
  tried->clear();
  if (void* sym = dlsym(RTLD_DEFAULT, entry)) return sym;
  std::vector<std::string> candidates;
  Dl_info self;
  if (dladdr(anchor, &self) && self.dli_fname) {
    std::string dir = self.dli_fname;
    dir = dir.rfind('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
    candidates.push_back(dir + "/" + library);
  }
  candidates.push_back(library);
  for (const std::string& path : candidates) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      *tried += std::string(tried->empty() ? "" : "; ") + dlerror();
      continue;
    }
    if (void* sym = dlsym(handle, entry)) return sym;
    *tried += (tried->empty() ? "" : "; ") + path + " has no " + entry;
  }
  return nullptr;
}

SiblingSymbol::SiblingSymbol(const char* library, const char* entry, const void* anchor,
                             const std::string& why) {
  std::string tried;
  symbol_ = FindSiblingSymbol(library, entry, anchor, &tried);
  if (!symbol_) error_ = why + tried;
}

}  // namespace tierfs
