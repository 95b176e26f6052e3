// STATS, the store's saved statistics (<tier0>/meta/STATS): written into a
// small store (fuzz_store.h), which is then opened and closed. Opening reads
// it (Store::LoadStats: the JSON parse, then every row applied to the tiers,
// the files and their segments); a STATS file that cannot be used must cost
// the counters, never the open.
//
// The narrowest entry there is today: Store::LoadStats is private to the
// store and reads the file itself, so the fuzzer goes through Store::Open
// (NewTierFileSystem). When the STATS reading moves to a function of its own
// over the text (env/stats_file.*), this fuzzer should call that instead.
#include <cstdio>
#include <string>

#include "tests/fuzz/fuzz_store.h"

using namespace tierfs;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::FuzzStore store = fuzz::MakeFuzzStore("stats");
  const std::string path = store.dir + "/t0/meta/STATS";
  FILE* f = fopen(path.c_str(), "wb");
  FUZZ_CHECK(f != nullptr);
  FUZZ_CHECK(fwrite(data, 1, size, f) == size);
  FUZZ_CHECK(fclose(f) == 0);
  std::shared_ptr<rocksdb::FileSystem> fs;
  rocksdb::Status s = NewTierFileSystem(store.uri, &fs);
  if (!s.ok()) {
    fprintf(stderr, "stats_fuzzer: the store did not open: %s\n", s.ToString().c_str());
    abort();
  }
  s = Close(fs.get());
  FUZZ_CHECK(s.ok());
  return 0;
}
