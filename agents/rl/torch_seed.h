// LibTorch's default random generator is one per process: a module built
// after torch::manual_seed draws its initial weights from it. Two learners
// built at once in one process — the simulations of `tierfs-sim compare
// --jobs=2`, two stores — interleaved their draws, so neither started from
// the weights its seed names and the replays were not reproducible. Seeding
// and building happen under this lock (held for microseconds, at a
// learner's start only).
#pragma once

#include "util/mutex.h"

namespace tierfs {
namespace rl {

Mutex& TorchSeedMutex();

}  // namespace rl
}  // namespace tierfs
