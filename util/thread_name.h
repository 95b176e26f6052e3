// Names a thread, as RocksDB names its pools' ("rocksdb:low"), so that top -H,
// perf and /proc (benchmarks/thread_cpu.py) tell TierFS's background threads
// apart from the application's: a thread otherwise keeps the name of the
// thread that started it. Named by its starter, right after it starts, so the
// name is there before the starter goes on. Linux keeps 15 bytes of a name; a
// longer one is cut there. Best effort: a name is only a label.
#pragma once

#include <pthread.h>

#include <string>
#include <thread>

namespace tierfs {

inline void NameThread(std::thread& thread, const char* name) {
  if (!thread.joinable()) return;
  pthread_setname_np(thread.native_handle(), std::string(name).substr(0, 15).c_str());
}

}  // namespace tierfs
