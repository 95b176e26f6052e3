// Store: keeping what the policy learned across restarts (Policy::SaveState,
// the learning policies' weights) in <tier 0>/meta/AGENTS, written at each
// save point with STATS (env/store_close.cc: temporary file, then rename)
// and offered back at open.
#include "env/store.h"

namespace tierfs {

using rocksdb::IOStatus;

namespace {
std::string AgentsPath(const std::string& meta_dir) { return meta_dir + "/AGENTS"; }
}  // namespace

void Store::LoadPolicyState() {
  const std::string path = AgentsPath(meta_dir_);
  if (base_->FileExists(path, rocksdb::IOOptions(), nullptr).IsNotFound()) {
    policy_state_ = "none saved";
    return;
  }  // another error: the read below fails and says why
  std::string bytes;
  IOStatus s = rocksdb::ReadFileToString(base_.get(), path, &bytes);
  std::string error;
  if (s.ok() && policy_->LoadState(bytes, NumTiers(), &error)) {
    policy_state_ = "loaded from " + path;
    return;
  }
  // A state the policy cannot use (another policy's, another tier count,
  // damage) costs the warm start, never the open: the policy starts cold.
  // Not counted as an error: choosing another policy for a store is one way
  // here. MigrationInfo::policy_state says the same to the admin tool.
  policy_state_ = "refused " + path + ": " + (s.ok() ? error : s.ToString());
  LogInfo(policy_state_ + "; policy " + policy_->Name() + " starts untrained");
}

IOStatus Store::SavePolicyState(bool posix) {
  const std::string state = policy_->SaveState();
  if (state.empty()) return IOStatus::OK();
  return WriteMetaFile("AGENTS", state, posix);
}

}  // namespace tierfs
