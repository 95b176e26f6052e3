#include "tools/ycsb/db.h"

namespace tierfs {
namespace ycsb {

const char* DbStatusName(DbStatus status) {
  switch (status) {
    case DbStatus::kOk: return "OK";
    case DbStatus::kNotFound: return "NOT_FOUND";
    case DbStatus::kError: return "ERROR";
  }
  return "ERROR";
}

}  // namespace ycsb
}  // namespace tierfs
