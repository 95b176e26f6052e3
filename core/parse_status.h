// What a RocksDB-free parser answers (the configuration grammar, the device
// presets): OK, or the input rejected with a message that names it. Shaped
// as rocksdb::Status's InvalidArgument so the store passes it on unchanged
// (env/config.cc); the simulator and the tools read it as it is.
#pragma once

#include <string>
#include <utility>

namespace tierfs {

class ParseStatus {
 public:
  ParseStatus() = default;
  static ParseStatus OK() { return ParseStatus(); }
  static ParseStatus InvalidArgument(std::string message) {
    ParseStatus s;
    s.invalid_ = true;
    s.message_ = std::move(message);
    return s;
  }

  bool ok() const { return !invalid_; }
  bool IsInvalidArgument() const { return invalid_; }
  // The reason alone ("" when OK).
  const std::string& message() const { return message_; }
  // As rocksdb::Status::ToString: "OK" or "Invalid argument: <message>".
  std::string ToString() const { return invalid_ ? "Invalid argument: " + message_ : "OK"; }

 private:
  bool invalid_ = false;
  std::string message_;
};

}  // namespace tierfs
