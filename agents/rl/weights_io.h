// The learning policies' saved state: named weight sets, versioned and
// checksummed. Little-endian, no padding:
//
//   magic "TIERFSRL" (8) | fixed32 version (1) | string policy | fixed32 count
//   count x { string name | fixed32 inputs | fixed32 hidden layers
//             | hidden x fixed32 neurons | fixed32 actions | fixed32 atoms
//             | float64 v_min | float64 v_max | fixed32 params | params x float32 }
//   fixed64 FNV-1a of every byte before it
//   string := fixed32 length, bytes
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "agents/rl/network.h"

namespace tierfs {
namespace rl {

using NamedWeights = std::vector<std::pair<std::string, Weights>>;

std::string EncodeWeights(const std::string& policy, const NamedWeights& sets);
// False and *error (what is wrong: magic, version, policy, checksum, a cut)
// unless `bytes` is a state saved by `policy`.
bool DecodeWeights(const std::string& bytes, const std::string& policy, NamedWeights* sets,
                   std::string* error);

}  // namespace rl
}  // namespace tierfs
