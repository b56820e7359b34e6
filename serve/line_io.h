#pragma once

// Line-oriented text I/O shared by the engines that read commands (UCI, the analysis engine's
// command, the terminal play session, the CLI): word splitting, trimming, case folding, reading a
// line in bounded memory, and a reader thread that queues the lines of a stream (bounded too) so
// that a busy engine can look at them between two rounds of work.
// Thread-safety: the functions share no state; LineReader says its own.

#include <condition_variable>
#include <deque>
#include <istream>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace vz {

// The whitespace-separated words of `text` in order (e.g. a --moves option); empty for blank
// text.
std::vector<std::string> SplitWords(std::string_view text);

// `text` without leading and trailing spaces, tabs, CR and LF.
std::string Trimmed(std::string_view text);

// `text` in ASCII lower case.
std::string Lowered(std::string text);

// The longest input line the command engines (UCI, the analysis engine, terminal play) take: 1 MiB,
// a final CR (of a CRLF line end) included. A UCI `position startpos moves ...` line of a
// 1,000-ply game is about 6 KiB.
inline constexpr size_t kMaxLineBytes = size_t{1} << 20;

// Reads the next line of `in` (up to '\n', which is dropped; a last line without one counts; a CR
// is kept, as std::getline keeps it) into `line`, keeping at most `max_bytes` + 1 of its bytes:
// the rest of a longer line is read and dropped, so that a line of any length costs bounded memory
// and `line.size() > max_bytes` tells the caller it was too long. Returns false, with `line`
// empty, at the end of the input or on a stream that has already failed (as std::getline).
// Throws only what `in.exceptions()` asks for.
bool ReadLine(std::istream& in, std::string& line, size_t max_bytes = kMaxLineBytes);

// The one-line error for an input line over kMaxLineBytes, naming the limit; the line is ignored.
std::string OverlongLineError();

// Reads the lines of `in` (with ReadLine: a line over kMaxLineBytes is queued cut to
// kMaxLineBytes + 1 bytes) on its own thread, and stops reading while the lines not yet taken hold
// kMaxQueuedBytes or more (so a fast writer waits for a busy owner instead of filling memory) and
// queues them for the owner's thread; the owner takes them with Take, waiting or not.
// Thread-safety: Take from one thread (the owner's).
class LineReader {
 public:
  static constexpr size_t kMaxQueuedBytes = 4 * kMaxLineBytes;

  // Starts reading `in`, which must outlive the reader and be read by nobody else meanwhile.
  explicit LineReader(std::istream& in);
  // Joins the reader thread once the input has ended; while it is still blocked on the input (an
  // owner that stops early), detaches it: it keeps the queue alive and ends with the input or the
  // process.
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // Moves the queued lines into `lines` (replacing its contents); with `wait`, first waits for a
  // line or the end of the input. Returns true once the input has ended and every line was taken.
  bool Take(std::vector<std::string>& lines, bool wait);

 private:
  struct Queue {
    std::mutex mutex;
    std::condition_variable ready;  // a line was queued, or the input ended
    std::condition_variable room;   // lines were taken, or the owner left
    std::deque<std::string> lines;
    size_t bytes = 0;        // capacity of the queued lines
    bool closed = false;     // the input ended (or the owner left and the reader stopped)
    bool abandoned = false;  // the owner is gone: the reader stops at its next line
  };
  std::shared_ptr<Queue> queue_;  // shared with the reader thread
  std::thread thread_;
};

}  // namespace vz
