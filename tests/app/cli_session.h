#pragma once

// A vzero process driven through pipes, for the tests of the interactive commands (analysis,
// play): write lines to its stdin, read its stdout as it comes, close stdin, wait for its exit.
// The binary is the vzero next to the test executable (VZ_VZERO names another one). Reads wait
// at most a generous limit (a guard against a hung engine, not a timing assertion).

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace vz::testing {

inline std::string VzeroPath() {
  if (const char* path = std::getenv("VZ_VZERO")) return path;
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "vzero").string();
}

inline bool HaveVzero() { return access(VzeroPath().c_str(), X_OK) == 0; }

// Whether the vzero binary was built with the LibTorch networks, as `vzero version` says: the
// commands net, nnbench, train, export, selfplay, trainer and gate exist only then (an
// engine-only build, -DVZ_USE_TORCH=OFF, lacks them and their tests skip).
inline bool VzeroHasNets() {
  const std::string command = "'" + VzeroPath() + "' version 2>/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return false;
  std::string out;
  char buffer[1024];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;) out.append(buffer, n);
  pclose(pipe);
  return out.find("libtorch networks: built") != std::string::npos;
}

class CliSession {
 public:
  // Longest wait for expected output before a read gives up.
  static constexpr std::chrono::seconds kPatience{120};

  CliSession() = default;
  CliSession(const CliSession&) = delete;
  CliSession& operator=(const CliSession&) = delete;
  ~CliSession() {
    CloseInput();
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
  }

  // Starts vzero with `arguments`; its stderr goes to `stderr_path` ("" : inherited). Returns
  // false if the process could not be started.
  bool Start(const std::vector<std::string>& arguments, const std::string& stderr_path = "") {
    signal(SIGPIPE, SIG_IGN);
    int in_pipe[2], out_pipe[2];
    if (pipe(in_pipe) != 0 || pipe(out_pipe) != 0) return false;
    const std::string path = VzeroPath();
    std::vector<std::string> words = {path};
    words.insert(words.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      dup2(in_pipe[0], STDIN_FILENO);
      dup2(out_pipe[1], STDOUT_FILENO);
      if (!stderr_path.empty()) {
        const int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (err >= 0) dup2(err, STDERR_FILENO);
      }
      close(in_pipe[0]);
      close(in_pipe[1]);
      close(out_pipe[0]);
      close(out_pipe[1]);
      execv(path.c_str(), argv.data());
      _exit(127);
    }
    close(in_pipe[0]);
    close(out_pipe[1]);
    in_fd_ = in_pipe[1];
    out_fd_ = out_pipe[0];
    return true;
  }

  // Writes `text` to the process's stdin. Returns false if it cannot (the process is gone).
  bool Send(const std::string& text) {
    size_t done = 0;
    while (in_fd_ >= 0 && done < text.size()) {
      const ssize_t n = write(in_fd_, text.data() + done, text.size() - done);
      if (n <= 0) return false;
      done += size_t(n);
    }
    return in_fd_ >= 0;
  }

  void CloseInput() {
    if (in_fd_ >= 0) close(in_fd_);
    in_fd_ = -1;
  }

  // Reads until `done(text read so far by this call)` holds, the output ends, or kPatience
  // passes; returns the text read by this call. ended() says whether the output ended.
  std::string ReadUntil(const std::function<bool(const std::string&)>& done) {
    std::string text;
    // Text already buffered from an earlier read that went past a line end.
    text.swap(pending_);
    const auto deadline = std::chrono::steady_clock::now() + kPatience;
    while (!done(text) && !ended_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        timed_out_ = true;
        break;
      }
      pollfd fd{out_fd_, POLLIN, 0};
      if (poll(&fd, 1, int(left.count())) <= 0) continue;
      char buffer[4096];
      const ssize_t n = read(out_fd_, buffer, sizeof(buffer));
      if (n <= 0) {
        ended_ = true;
        break;
      }
      text.append(buffer, size_t(n));
    }
    return text;
  }

  // Reads until the output ends with `suffix` (e.g. a prompt).
  std::string ReadUntilEndsWith(const std::string& suffix) {
    return ReadUntil([&suffix](const std::string& text) {
      return text.size() >= suffix.size() &&
             text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
    });
  }

  // Reads one whole line (without its '\n'); "" with ended() or timed_out() at the end.
  std::string ReadLine() {
    std::string text =
        ReadUntil([](const std::string& read) { return read.find('\n') != std::string::npos; });
    const size_t end = text.find('\n');
    if (end == std::string::npos) return text;
    pending_ = text.substr(end + 1);
    return text.substr(0, end);
  }

  // Reads everything until the output ends.
  std::string ReadAll() {
    return ReadUntil([](const std::string&) { return false; });
  }

  // Closes stdin, waits for the exit and returns the exit status (-1 if killed by a signal).
  int Wait() {
    CloseInput();
    if (pid_ <= 0) return -1;
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  bool ended() const { return ended_ && pending_.empty(); }
  bool timed_out() const { return timed_out_; }

 private:
  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  bool ended_ = false;
  bool timed_out_ = false;
  std::string pending_;  // read past the last line returned by ReadLine
};

}  // namespace vz::testing
