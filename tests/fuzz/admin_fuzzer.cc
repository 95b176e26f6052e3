// Admin channel requests (env/admin_protocol.h): the text of a request file,
// decoded by DecodeAdminRequest as the store's admin server does, then run by
// RunAdminRequest on a small store (fuzz_store.h) with migration off, so data
// operations run at once as they do there. The same text is also decoded as a
// response (DecodeAdminResponse), as the tool reads the server's answer. A
// request that decodes must encode to text that decodes to the same request.
#include <string>

#include "env/admin_channel.h"
#include "env/store.h"
#include "env/tier_fs.h"
#include "tests/fuzz/fuzz_store.h"

using namespace tierfs;

namespace {

Store* TheStore() {
  static std::shared_ptr<rocksdb::FileSystem> fs;
  static Store* store = [] {
    fuzz::FuzzStore made = fuzz::MakeFuzzStore("admin");
    Store* s = nullptr;
    if (!NewTierFileSystem(made.uri, &fs).ok() || !OpenStoreOf(fs.get(), "fuzz", &s).ok()) abort();
    // Closed before RocksDB's own statics go (registered after they were
    // made): a store left to static destruction would save through them.
    atexit([] { Close(fs.get()).PermitUncheckedError(); });
    return s;
  }();
  return store;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::Text(data, size);
  AdminResponse response;
  rocksdb::Status s = DecodeAdminResponse(text, &response);
  FUZZ_CHECK(s.ok() || !s.ToString().empty());

  AdminRequest request;
  s = DecodeAdminRequest(text, &request);
  if (!s.ok()) {
    FUZZ_CHECK(!s.ToString().empty());
    return 0;
  }
  const std::string encoded = EncodeAdminRequest(request);
  AdminRequest again;
  FUZZ_CHECK(DecodeAdminRequest(encoded, &again).ok());
  FUZZ_CHECK(EncodeAdminRequest(again) == encoded);
  response = RunAdminRequest(TheStore(), request, /*wait=*/true);
  FUZZ_CHECK(!response.message.empty());
  return 0;
}
