#include "engine/core/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>

#include "engine/core/error.h"

namespace vz {
namespace {

constexpr std::string_view kMarker = ".tmp.";

std::string SystemError(int error) { return std::strerror(error); }

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Writes all of `bytes` to `fd`; false on failure (errno set).
bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes.remove_prefix(size_t(written));
  }
  return true;
}

[[noreturn]] void Fail(const std::string& path, const std::string& temporary, const char* what,
                       int error) {
  ::unlink(temporary.c_str());
  throw Error("cannot write " + path + ": " + what + " (" + SystemError(error) + ")");
}

// Step 1 and 2: the temporary file with `bytes`, fsync'd and closed.
std::string WriteTemporary(const std::string& path, std::string_view bytes) {
  const std::string temporary = TemporaryPathFor(path);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    throw Error("cannot write " + path + ": cannot create " + temporary + " (" +
                SystemError(error) + ")");
  }
  if (!WriteAll(fd, bytes) || ::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    Fail(path, temporary, "write failed", error);
  }
  if (::close(fd) != 0) Fail(path, temporary, "write failed", errno);
  return temporary;
}

// Step 4. A directory that cannot be opened or synced (some network filesystems) keeps the
// rename, only its durability across a power cut is then the filesystem's.
void SyncDirectory(const std::string& path) {
  const int directory = ::open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory < 0) return;
  ::fsync(directory);
  ::close(directory);
}

}  // namespace

void CheckDirectoryOf(const std::string& path, std::string_view what) {
  const std::string directory = DirectoryOf(path);
  struct stat status {};
  if (::stat(directory.c_str(), &status) != 0) {
    throw Error(std::string(what) + " " + path + ": cannot be written: " + directory + ": " +
                SystemError(errno));
  }
  if (!S_ISDIR(status.st_mode)) {
    throw Error(std::string(what) + " " + path + ": cannot be written: " + directory +
                " is not a directory");
  }
}

std::string ReadWholeFile(const std::string& path, std::string_view what, uint64_t max_bytes) {
  const std::string name = std::string(what) + " " + path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error(name + ": cannot open it (" + SystemError(errno) + ")");
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat status {};
  if (::fstat(fd, &status) != 0)
    throw Error(name + ": cannot read it (" + SystemError(errno) + ")");
  if (S_ISDIR(status.st_mode)) throw Error(name + ": is a directory, not a file");
  if (!S_ISREG(status.st_mode)) throw Error(name + ": is not a regular file");
  if (uint64_t(status.st_size) > max_bytes) {
    throw Error(name + ": " + std::to_string(status.st_size) + " bytes, more than the " +
                std::to_string(max_bytes) + " bytes a " + std::string(what) + " may hold");
  }
  // Read to the end, not to st_size: the file may have grown since fstat (or be a /proc file,
  // whose size is 0).
  std::string bytes;
  bytes.reserve(size_t(status.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error(name + ": read error (" + SystemError(errno) + ")");
    if (got == 0) return bytes;
    if (bytes.size() + size_t(got) > max_bytes) {
      throw Error(name + ": more than the " + std::to_string(max_bytes) + " bytes a " +
                  std::string(what) + " may hold");
    }
    bytes.append(buffer, size_t(got));
  }
}

std::string TemporaryPathFor(const std::string& path) {
  static std::atomic<uint64_t> counter{
      std::random_device{}() ^
      uint64_t(std::chrono::steady_clock::now().time_since_epoch().count())};
  char suffix[48];
  std::snprintf(suffix, sizeof(suffix), "%s%d.%llx", kMarker.data(), int(::getpid()),
                static_cast<unsigned long long>(counter.fetch_add(0x9E3779B97F4A7C15ull)));
  return path + suffix;
}

void CommitTemporaryFile(const std::string& temporary, const std::string& path) {
  const int fd = ::open(temporary.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail(path, temporary, "cannot reopen the temporary file", errno);
  if (::fsync(fd) != 0) {
    const int error = errno;
    ::close(fd);
    Fail(path, temporary, "fsync failed", error);
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    Fail(path, temporary, "cannot rename the temporary file into place", errno);
  }
  SyncDirectory(path);
}

void WriteFileAtomically(const std::string& path, std::string_view bytes) {
  const std::string temporary = WriteTemporary(path, bytes);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    Fail(path, temporary, "cannot rename the temporary file into place", errno);
  }
  SyncDirectory(path);
}

bool CreateFileAtomically(const std::string& path, std::string_view bytes) {
  const std::string temporary = WriteTemporary(path, bytes);
  const int result = ::link(temporary.c_str(), path.c_str());
  const int error = errno;
  ::unlink(temporary.c_str());
  if (result == 0) {
    SyncDirectory(path);
    return true;
  }
  if (error == EEXIST) return false;
  throw Error("cannot write " + path + ": cannot link the temporary file into place (" +
              SystemError(error) + ")");
}

bool ParseTemporaryName(std::string_view file_name, int* pid) {
  const size_t marker = file_name.rfind(kMarker);
  if (marker == std::string_view::npos || marker == 0) return false;
  const std::string_view rest = file_name.substr(marker + kMarker.size());
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == rest.size()) return false;
  const std::string_view digits = rest.substr(0, dot), hex = rest.substr(dot + 1);
  int value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size() || value <= 0) return false;
  if (hex.find_first_not_of("0123456789abcdef") != std::string_view::npos) return false;
  if (pid != nullptr) *pid = value;
  return true;
}

int RemoveStaleTemporaryFiles(const std::string& directory, bool only_dead_writers) {
  DIR* listing = ::opendir(directory.c_str());
  if (listing == nullptr) return 0;
  int removed = 0;
  while (const dirent* entry = ::readdir(listing)) {
    int pid = 0;
    if (!ParseTemporaryName(entry->d_name, &pid)) continue;
    if (only_dead_writers && !(::kill(pid_t(pid), 0) != 0 && errno == ESRCH)) continue;
    const std::string path = directory + "/" + entry->d_name;
    if (::unlink(path.c_str()) == 0) ++removed;
  }
  ::closedir(listing);
  return removed;
}

}  // namespace vz
