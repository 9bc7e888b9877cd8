/// Where a command writes a result (`hzio read -o PATH`), without ever damaging what was there:
///  * "-" is standard output;
///  * an existing character or block device, FIFO or socket is written in place: never truncated,
///    never removed (`-o /dev/null`, a pipe);
///  * anything else (an existing regular file, reached through symbolic links, or a new name) is
///    written to a temporary file in the same directory and renamed over the name by Finish(),
///    keeping the old file's permissions. Without Finish() — an error, a full disk — only the
///    temporary file is removed: the old file is untouched, and no partial file is ever left.
/// Every failure is a kIo hzio::Error naming the path and the OS reason.
#pragma once

#include <cstdint>
#include <string>

namespace hzio {

class OutputFile {
 public:
  /// Opens `path` as above. kInvalidArgument for a directory or a dangling symbolic link, kIo
  /// when the temporary file cannot be created (e.g. a read-only directory).
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void Write(const uint8_t* data, int64_t size);
  /// Whether Restart() can start the output over (a file written through a temporary name).
  bool CanRestart() const { return !temporary_.empty(); }
  /// Drops what was written so far (CanRestart() only).
  void Restart();
  /// Closes the output; a temporary file is renamed over the name.
  void Finish();
  /// The name as given ("-" for standard output).
  const std::string& path() const { return path_; }
  bool is_stdout() const { return path_ == "-"; }

 private:
  std::string path_;       // as given
  std::string target_;     // the regular file to replace (symbolic links resolved)
  std::string temporary_;  // "" when writing in place
  int fd_ = -1;
  bool owns_fd_ = true;
};

}  // namespace hzio
