#include "serve/line_io.h"

#include <cctype>
#include <sstream>
#include <utility>

namespace vz {

std::vector<std::string> SplitWords(std::string_view text) {
  std::vector<std::string> words;
  std::istringstream stream{std::string(text)};
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

std::string Trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const size_t last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

std::string Lowered(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool ReadLine(std::istream& in, std::string& line, size_t max_bytes) {
  line.clear();
  std::istream::sentry sentry(in, /*noskipws=*/true);
  if (!sentry || in.rdbuf() == nullptr) {
    in.setstate(std::ios::failbit);
    return false;
  }
  std::streambuf& buffer = *in.rdbuf();
  bool any = false;
  for (;;) {
    const int c = buffer.sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(any ? std::ios::eofbit : std::ios::eofbit | std::ios::failbit);
      return any;
    }
    any = true;
    if (c == '\n') return true;
    if (line.size() <= max_bytes) line.push_back(char(c));
  }
}

std::string OverlongLineError() {
  return "an input line of over " + std::to_string(kMaxLineBytes) + " bytes; ignored";
}

LineReader::LineReader(std::istream& in) : queue_(std::make_shared<Queue>()) {
  thread_ = std::thread([queue = queue_, &in] {
    for (std::string line; ReadLine(in, line);) {
      if (line.size() > kMaxLineBytes) line.shrink_to_fit();
      {
        std::unique_lock<std::mutex> lock(queue->mutex);
        queue->room.wait(lock, [&] { return queue->bytes < kMaxQueuedBytes || queue->abandoned; });
        if (queue->abandoned) break;
        queue->bytes += line.capacity();
        queue->lines.push_back(std::move(line));
      }
      queue->ready.notify_one();
    }
    {
      std::lock_guard<std::mutex> lock(queue->mutex);
      queue->closed = true;
    }
    queue->ready.notify_one();
  });
}

LineReader::~LineReader() {
  bool closed;
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    closed = queue_->closed;
    queue_->abandoned = true;
  }
  queue_->room.notify_one();
  if (closed) {
    thread_.join();
  } else {
    thread_.detach();
  }
}

bool LineReader::Take(std::vector<std::string>& lines, bool wait) {
  std::unique_lock<std::mutex> lock(queue_->mutex);
  if (wait) queue_->ready.wait(lock, [this] { return !queue_->lines.empty() || queue_->closed; });
  lines.assign(std::make_move_iterator(queue_->lines.begin()),
               std::make_move_iterator(queue_->lines.end()));
  queue_->lines.clear();
  const bool had_room = queue_->bytes < kMaxQueuedBytes;
  queue_->bytes = 0;
  const bool ended = queue_->closed && lines.empty();
  lock.unlock();
  if (!had_room) queue_->room.notify_one();
  return ended;
}

}  // namespace vz
