#pragma once

// The one driver of the vzero process for the CLI tests (tests/app/, tests/selfplay/): the binary
// is the vzero next to the test executable (VZ_VZERO names another one). RunVzero runs a command
// to its end; StartVzero starts one in the background with its output in a log, WaitFor waits for
// it; CliSession drives an interactive one (analysis, play, uci) through pipes. Reads wait at
// most a generous limit (a guard against a hung engine, not a timing assertion). Also the line
// helpers of the UCI tests, in-process (tests/serve/uci_engine_test.cc) or not.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
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

// Why the CLI tests of a suite cannot run here, for GTEST_SKIP(): "" when the vzero binary is
// there and, when `needs` names commands of the LibTorch networks ("the net command"), it has
// them.
inline std::string VzeroSkipReason(const std::string& needs = "") {
  if (!HaveVzero()) return "no vzero binary at " + VzeroPath() + " (build the vzero target)";
  if (!needs.empty() && !VzeroHasNets()) {
    return "this vzero is built without LibTorch (-DVZ_USE_TORCH=OFF): no " + needs;
  }
  return "";
}

// The whole contents of `path` ("" when it cannot be read).
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The whitespace-separated words of `line`.
inline std::vector<std::string> Words(const std::string& line) {
  std::istringstream stream(line);
  std::vector<std::string> words;
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

// In a forked child: adds `environment` ("NAME=VALUE") and execs vzero with `arguments`; never
// returns.
[[noreturn]] inline void ExecVzero(const std::vector<std::string>& arguments,
                                   const std::vector<std::string>& environment) {
  for (const std::string& variable : environment) {
    const size_t equals = variable.find('=');
    if (equals != std::string::npos) {
      setenv(variable.substr(0, equals).c_str(), variable.substr(equals + 1).c_str(), 1);
    }
  }
  const std::string path = VzeroPath();
  std::vector<std::string> words = {path};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  execv(path.c_str(), argv.data());
  _exit(127);
}

struct Execution {
  int status = -1;     // exit status (-1: killed by a signal, or not started)
  std::string output;  // stdout and stderr together
};

// Runs vzero with `arguments` (each one word, no shell) and `environment` added, to its end.
inline Execution RunVzero(const std::vector<std::string>& arguments,
                          const std::vector<std::string>& environment = {}) {
  Execution run;
  int out[2];
  if (pipe(out) != 0) return run;
  const pid_t pid = fork();
  if (pid < 0) return run;
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(out[1], STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    ExecVzero(arguments, environment);
  }
  close(out[1]);
  char buffer[4096];
  for (ssize_t n; (n = read(out[0], buffer, sizeof(buffer))) > 0;) run.output.append(buffer, n);
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// `vzero net init`: writes a fresh net of preset `tiny` for `variant` to `path` (a vzero without
// the networks fails it: see VzeroSkipReason).
inline Execution InitTinyNet(const std::string& variant, const std::string& path) {
  return RunVzero({"net", "init", "--variant", variant, "--preset", "tiny", "-o", path});
}

// Starts vzero in the background with `arguments` and `environment` added, its stdout and stderr
// written to `log` (appended with `append`, else truncated); returns its pid (-1 on failure).
inline pid_t StartVzero(const std::vector<std::string>& arguments, const std::filesystem::path& log,
                        const std::vector<std::string>& environment = {}, bool append = false) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
      close(fd);
    }
    ExecVzero(arguments, environment);
  }
  return pid;
}

// Waits up to `seconds` for `pid`; returns its wait status, or -1 on timeout.
inline int WaitFor(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return -1;
}

// Whether a WaitFor status is a normal exit with status 0.
inline bool ExitedCleanly(int status) {
  return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Polls `done` every 200 ms for up to `seconds`; returns its last value.
inline bool WaitUntil(double seconds, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return done();
}

// The lines of `read_line` up to and including the first one that starts with `prefix`. Fails
// the test (listing what came) if `read_line` runs out (nullopt: the output ended or its deadline
// passed) first.
inline std::vector<std::string> ReadLinesUntil(
    const std::function<std::optional<std::string>()>& read_line, const std::string& prefix) {
  std::vector<std::string> lines;
  while (std::optional<std::string> line = read_line()) {
    lines.push_back(*line);
    if (StartsWith(*line, prefix)) return lines;
  }
  std::string seen;
  for (const std::string& line : lines) seen += "\n  " + line;
  ADD_FAILURE() << "no line starting with '" << prefix << "'; got:" << seen;
  return lines;
}

// The move of the `bestmove` line that ends `lines` (ReadLinesUntil(..., "bestmove")); "" if none.
inline std::string BestMoveOf(const std::vector<std::string>& lines) {
  if (lines.empty() || !StartsWith(lines.back(), "bestmove")) return "";
  const std::vector<std::string> words = Words(lines.back());
  return words.size() >= 2 ? words[1] : "";
}

// Checks that none of `lines` is a bestmove: what a search without a limit (go infinite, go
// ponder) must not print before stop.
inline void ExpectNoBestMove(const std::vector<std::string>& lines) {
  for (const std::string& line : lines) {
    EXPECT_FALSE(StartsWith(line, "bestmove")) << "bestmove before stop in go infinite";
  }
}

// Sends `go infinite` and `isready` to `uci` (a UCI engine driver with Send(line) and
// ReadUntil(prefix), in process or through pipes) and checks that readyok comes while the search
// goes on, with no bestmove before it.
template <class Uci>
void GoInfiniteAndExpectReadyok(Uci& uci) {
  uci.Send("go infinite");
  uci.Send("isready");
  ExpectNoBestMove(uci.ReadUntil("readyok"));
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
      ExecVzero(arguments, {});
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
