// `vzero serve` in process: the HTTP server on an ephemeral loopback port, driven by httplib's
// client. Positions and legal moves, engine replies, streamed analyses, records, the training
// dashboard, and the refusals: bad fields (named), unknown fields, illegal and late moves,
// malformed and oversized bodies, rate limits, path traversal, a busy engine. The rollout
// evaluator serves every game (no nets).

#include "serve/web_api.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "records/pgn_record.h"
#include "serve/http_server.h"

namespace vz {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

// A server on 127.0.0.1:<any port> with a runs directory holding one run, and a client.
class WebServerTest : public ::testing::Test {
 protected:
  void SetUp() override { Boot(HttpServerConfig{}, 8); }
  void TearDown() override {
    server_.reset();
    api_.reset();
    std::error_code error;
    fs::remove_all(root_, error);
  }

  void Boot(HttpServerConfig http, int max_jobs, int max_jobs_per_client = 0) {
    server_.reset();
    api_.reset();
    if (root_.empty()) {
      root_ = fs::temp_directory_path() /
              ("vz-web-test-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
      fs::create_directories(root_ / "runs" / "run1" / "plots");
      std::ofstream(root_ / "runs" / "run1" / "metrics.jsonl")
          << R"({"type":"train","step":10,"loss":2.5,"policy_loss":2.0,"value_loss":0.5})"
          << "\n{cut line\n"
          << R"({"type":"train","step":20,"loss":2.1,"policy_loss":1.7,"value_loss":0.4})"
          << "\n";
      std::ofstream(root_ / "runs" / "run1" / "plots" / "losses.svg") << "<svg>losses</svg>";
      std::ofstream(root_ / "secret.txt") << "top secret";
      fs::create_directories(root_ / "outside");
      std::ofstream(root_ / "outside" / "metrics.jsonl") << "{}\n";
      fs::create_directory_symlink(root_ / "outside", root_ / "runs" / "escape");
      fs::create_symlink(root_ / "secret.txt", root_ / "runs" / "run1" / "plots" / "leak.svg");
    }
    WebApiConfig config;
    config.runs_dir = (root_ / "runs").string();
    config.engine.max_jobs = max_jobs;
    config.engine.max_jobs_per_client = max_jobs_per_client;
    config.default_simulations = 16;
    config.max_simulations = 5000;
    config.max_move_seconds = max_move_seconds_;
    api_ = std::make_unique<WebApi>(config);
    http.host = "127.0.0.1";
    http.port = 0;
    server_ = std::make_unique<HttpServer>(http, *api_);
    port_ = server_->Start();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_read_timeout(60, 0);
  }

  // POSTs `body` (raw text) and returns {status, parsed JSON body}.
  std::pair<int, Json> PostText(const std::string& path, const std::string& body) {
    auto result = client_->Post(path.c_str(), body, "application/json");
    EXPECT_TRUE(result) << path << ": no response";
    if (!result) return {0, Json()};
    return {result->status, Json::parse(result->body, nullptr, false)};
  }
  std::pair<int, Json> Post(const std::string& path, const Json& body) {
    return PostText(path, body.dump());
  }
  std::pair<int, Json> Get(const std::string& path) {
    auto result = client_->Get(path.c_str());
    EXPECT_TRUE(result) << path << ": no response";
    if (!result) return {0, Json()};
    return {result->status, Json::parse(result->body, nullptr, false)};
  }

  // Starts `count` Chaco Rex analyses of 5000 simulations (long enough to be running while a test
  // looks); their ids, fewer when a start is refused (a failure of the test).
  std::vector<std::string> StartLongAnalyses(int count) {
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i) {
      auto [status, started] =
          Post("/api/analysis", {{"variant", "chaco-rex"}, {"simulations", 5000}, {"every", 0.05}});
      EXPECT_EQ(status, 200) << started.dump();
      if (status != 200) break;
      ids.push_back(started["id"]);
    }
    return ids;
  }

  // Sends `bytes` on a fresh connection and reads the answer until the server closes it: {status,
  // parsed JSON body (discarded when not JSON)}; status 0 when nothing came back.
  std::pair<int, Json> Raw(const std::string& bytes) {
    const std::string reply = RawReply(bytes);
    if (reply.rfind("HTTP/1.1 ", 0) != 0) return {0, Json()};
    const size_t body = reply.find("\r\n\r\n");
    return {std::atoi(reply.c_str() + 9),
            Json::parse(body == std::string::npos ? "" : reply.substr(body + 4), nullptr, false)};
  }
  // The same, the server's whole reply as it came (every answer it gave on the connection).
  std::string RawReply(const std::string& bytes) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_GE(fd, 0);
    timeval timeout{30, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(uint16_t(port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_EQ(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL), ssize_t(bytes.size()));
    std::string reply;
    char buffer[4096];
    ssize_t got;
    while ((got = ::read(fd, buffer, sizeof(buffer))) > 0) reply.append(buffer, size_t(got));
    ::close(fd);
    return reply;
  }
  // The status codes of the answers in a raw reply, in order.
  static std::vector<int> Statuses(const std::string& reply) {
    std::vector<int> statuses;
    for (size_t at = reply.find("HTTP/1.1 "); at != std::string::npos;
         at = reply.find("HTTP/1.1 ", at + 1)) {
      statuses.push_back(std::atoi(reply.c_str() + at + 9));
    }
    return statuses;
  }

  // The answers of an analysis stream, until its end event.
  std::vector<Json> Stream(const std::string& id) {
    std::vector<Json> answers;
    std::string buffer;
    bool ended = false;
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(60, 0);
    auto result =
        client.Get(("/api/analysis/" + id + "/events").c_str(), [&](const char* data, size_t size) {
          buffer.append(data, size);
          size_t end;
          while ((end = buffer.find("\n\n")) != std::string::npos) {
            const std::string event = buffer.substr(0, end);
            buffer.erase(0, end + 2);
            if (event.rfind("event: end", 0) == 0) ended = true;
            if (event.rfind("data: ", 0) == 0 && !ended) {
              answers.push_back(Json::parse(event.substr(6)));
            }
          }
          return true;
        });
    EXPECT_TRUE(result);
    EXPECT_TRUE(ended) << "the stream of " << id << " has no end event";
    return answers;
  }

  fs::path root_;
  std::unique_ptr<WebApi> api_;
  double max_move_seconds_ = 60;  // WebApiConfig::max_move_seconds of the next Boot
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
  int port_ = 0;
};

TEST_F(WebServerTest, InfoListsTheFourGames) {
  auto [status, info] = Get("/api/info");
  ASSERT_EQ(status, 200);
  std::vector<std::string> names;
  for (const Json& v : info["variants"]) {
    names.push_back(v["name"]);
    EXPECT_EQ(v["defaultEvaluator"], "rollout");
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"chaco-rex", "chad", "cuarenta", "portuguese-draughts"}));
  EXPECT_TRUE(info["runs"].get<bool>());
}

TEST_F(WebServerTest, PositionGivesLegalMovesWithTheirCells) {
  auto [status, position] = Post("/api/position", {{"variant", "chaco-rex"}});
  ASSERT_EQ(status, 200) << position.dump();
  EXPECT_EQ(position["sideToMove"], "white");
  EXPECT_EQ(position["status"], "ongoing");
  bool found = false;
  for (const Json& move : position["legalMoves"]) {
    EXPECT_EQ(move["move"].get<std::string>(), move["from"].get<std::string>() +
                                                   move["to"].get<std::string>() +
                                                   move["promotion"].get<std::string>());
    if (move["move"] == "h3i4") found = true;
  }
  EXPECT_TRUE(found) << "h3i4 (a pawn step of the rules page) is not offered";

  // A move in display form is taken and given back in both forms, with the position after it.
  auto [status2, after] = Post("/api/position", {{"variant", "chad"}, {"moves", {"Rc3-c2"}}});
  ASSERT_EQ(status2, 200) << after.dump();
  ASSERT_EQ(after["history"].size(), 1u);
  EXPECT_EQ(after["history"][0]["move"], "c3c2");
  EXPECT_EQ(after["history"][0]["display"], "Rc3-c2");
  EXPECT_EQ(after["history"][0]["fen"], after["fen"]);
  EXPECT_EQ(after["sideToMove"], "black");
}

TEST_F(WebServerTest, DraughtsMovesCarryTheirSquarePath) {
  const Json cells = WebApi::MoveCells("portuguese-draughts", "6x15x24");
  EXPECT_EQ(cells["from"], "6");
  EXPECT_EQ(cells["to"], "24");
  EXPECT_EQ(cells["path"], Json({"6", "15", "24"}));
  const Json promotion = WebApi::MoveCells("cuarenta", "d9d9f");
  EXPECT_EQ(promotion["from"], "d9");
  EXPECT_EQ(promotion["to"], "d9");
  EXPECT_EQ(promotion["promotion"], "f");
  const Json chad = WebApi::MoveCells("chad", "c1c11");
  EXPECT_EQ(chad["from"], "c1");
  EXPECT_EQ(chad["to"], "c11");
}

TEST_F(WebServerTest, BadFieldsAreRefusedByName) {
  struct Case {
    Json body;
    int status;
    std::string field;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{{"variant", "chess"}}, 400, "variant", "unknown variant 'chess'"},
      {Json::object(), 400, "variant", "missing"},
      {{{"variant", 7}}, 400, "variant", "expected a string"},
      {{{"variant", "chad"}, {"fen", "not a position"}}, 400, "fen", "not a position"},
      {{{"variant", "chad"}, {"moves", {"c3c2", "zz"}}}, 400, "moves", "moves[1] 'zz'"},
      {{{"variant", "chad"}, {"moves", "c3c2"}}, 400, "moves", "expected a list"},
      {{{"variant", "chad"}, {"colour", "white"}}, 400, "colour", "unknown field"},
      // White has no piece left: the game is over, a further move is a conflict.
      {{{"variant", "portuguese-draughts"}, {"fen", "W:W:B5"}, {"moves", {"1-5"}}},
       409,
       "moves",
       "the game is over"},
  };
  for (const Case& c : cases) {
    auto [status, error] = Post("/api/position", c.body);
    EXPECT_EQ(status, c.status) << c.body.dump() << " -> " << error.dump();
    EXPECT_EQ(error.value("field", ""), c.field) << c.body.dump();
    EXPECT_NE(error.value("error", "").find(c.says), std::string::npos)
        << c.body.dump() << " -> " << error.dump();
  }
  // The engine's own message names the illegal move and lists the legal ones.
  auto [status, error] = Post("/api/position", {{"variant", "chaco-rex"}, {"moves", {"h3h5"}}});
  EXPECT_EQ(status, 400);
  EXPECT_NE(error["error"].get<std::string>().find("h3h5"), std::string::npos) << error.dump();
}

TEST_F(WebServerTest, MalformedAndOversizedBodiesGetJsonErrors) {
  auto [status, error] = PostText("/api/position", "{\"variant\": ");
  EXPECT_EQ(status, 400);
  EXPECT_EQ(error["field"], "body");
  EXPECT_NE(error["error"].get<std::string>().find("malformed JSON"), std::string::npos);

  auto [status2, error2] = PostText("/api/position", "[1, 2]");
  EXPECT_EQ(status2, 400);
  EXPECT_NE(error2["error"].get<std::string>().find("expected a JSON object"), std::string::npos);

  const std::string huge =
      "{\"variant\":\"chad\",\"fen\":\"" + std::string(400 * 1024, 'x') + "\"}";
  auto [status3, error3] = PostText("/api/position", huge);
  EXPECT_EQ(status3, 413);
  EXPECT_EQ(error3["field"], "body") << error3.dump();

  Json many = {{"variant", "chad"}, {"moves", Json::array()}};
  for (int i = 0; i < 2001; ++i) many["moves"].push_back("c3c2");
  auto [status4, error4] = Post("/api/position", many);
  EXPECT_EQ(status4, 400);
  EXPECT_EQ(error4["field"], "moves");

  auto [status5, error5] = Get("/api/nothing");
  EXPECT_EQ(status5, 404);
  EXPECT_TRUE(error5.contains("error"));

  // A request line that is not HTTP: answered 400, and the server goes on serving.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port_));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  const std::string garbage = "\x01\x02 NOT HTTP AT ALL\r\n\r\n";
  ASSERT_EQ(::write(fd, garbage.data(), garbage.size()), ssize_t(garbage.size()));
  char reply[256] = {};
  const ssize_t got = ::read(fd, reply, sizeof(reply) - 1);
  ::close(fd);
  EXPECT_GT(got, 0);
  EXPECT_EQ(std::string(reply).rfind("HTTP/1.1 400", 0), 0u) << reply;
  EXPECT_EQ(Get("/api/info").first, 200);
}

// A request that httplib cannot parse ends its connection: the bytes after it are not a request
// boundary to trust, so a request hidden behind a malformed one is never carried out. Its answer
// names what is wrong.
TEST_F(WebServerTest, ARejectedRequestClosesItsConnection) {
  const std::string hidden =
      "POST /api/position HTTP/1.1\r\nHost: x\r\nContent-Length: 18\r\nConnection: close\r\n"
      "\r\n{\"variant\":\"chad\"}";
  for (const std::string& bad :
       {std::string("BREW / HTTP/1.1\r\n"), std::string("GET / HTTP/9.9\r\n\r\n"),
        std::string("\x01\x02 NOT HTTP\r\n\r\n"),
        "GET /api/info HTTP/1.1\r\nX-Long: " + std::string(9000, 'a') + "\r\n\r\n",
        std::string(
            "POST /api/position HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n")}) {
    const std::string reply = RawReply(bad + hidden);
    const std::vector<int> statuses = Statuses(reply);
    ASSERT_EQ(statuses.size(), 1u) << reply;
    EXPECT_GE(statuses[0], 400) << reply;
    EXPECT_EQ(reply.find("\"board\""), std::string::npos) << reply;  // the hidden POST's answer
    EXPECT_NE(reply.find("\"error\""), std::string::npos) << reply;
    EXPECT_EQ(reply.find("\"HTTP 4"), std::string::npos)
        << "an error that names nothing: " << reply;
  }
  EXPECT_EQ(Get("/api/info").first, 200);
}

// RFC 9112: a request without Content-Length or Transfer-Encoding has no body (httplib would read
// on until the client closed, while the client waits for the answer); a Content-Length that is not
// a byte count is a bad request, answered at once and the connection closed.
TEST_F(WebServerTest, ABodyIsWhatContentLengthSays) {
  const std::string reply = RawReply(
      "POST /api/position HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /api/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(Statuses(reply), (std::vector<int>{400, 200})) << reply;
  EXPECT_NE(reply.find("malformed JSON"), std::string::npos) << reply;  // the empty body
  for (const std::string length : {"abc", "-1", "12345678901234567890123", "5, 6"}) {
    const std::string bad_length =
        RawReply("POST /api/position HTTP/1.1\r\nHost: x\r\nContent-Length: " + length +
                 "\r\n\r\n{\"variant\":\"chad\"}");
    EXPECT_EQ(Statuses(bad_length), std::vector<int>{400}) << length << ": " << bad_length;
    EXPECT_NE(bad_length.find("Content-Length"), std::string::npos) << bad_length;
  }
  const std::string hidden =
      "POST /api/position HTTP/1.1\r\nHost: x\r\nContent-Length: 18\r\nConnection: close\r\n"
      "\r\n{\"variant\":\"chad\"}";
  // A body on a GET, which httplib leaves unread: answered, then the connection is closed, so
  // the body is not taken for the next request.
  const std::string get_with_body = RawReply(
      "GET /api/info HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(hidden.size()) +
      "\r\n\r\n" + hidden);
  EXPECT_EQ(Statuses(get_with_body), std::vector<int>{200}) << get_with_body;
  // A Transfer-Encoding httplib cannot delimit.
  const std::string gzip = RawReply(
      "POST /api/position HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" +
      hidden);
  EXPECT_EQ(Statuses(gzip), std::vector<int>{400}) << gzip;
  EXPECT_NE(gzip.find("Transfer-Encoding"), std::string::npos) << gzip;
}

TEST_F(WebServerTest, EngineRepliesWithALegalMove) {
  auto [status, start] = Post("/api/position", {{"variant", "cuarenta"}});
  ASSERT_EQ(status, 200);
  auto [status2, reply] =
      Post("/api/play", {{"variant", "cuarenta"}, {"simulations", 12}, {"evaluator", "rollout"}});
  ASSERT_EQ(status2, 200) << reply.dump();
  bool legal = false;
  for (const Json& move : start["legalMoves"]) legal = legal || move["move"] == reply["move"];
  EXPECT_TRUE(legal) << reply["move"];
  EXPECT_EQ(reply["analysis"]["rootInfo"]["visits"], 13);
  EXPECT_EQ(reply["position"]["history"].size(), 1u);
  EXPECT_EQ(reply["position"]["sideToMove"], "black");

  auto [status3, timed] = Post("/api/play", {{"variant", "portuguese-draughts"}, {"seconds", 0.2}});
  ASSERT_EQ(status3, 200) << timed.dump();
  EXPECT_GT(timed["analysis"]["rootInfo"]["visits"].get<int>(), 1);

  auto [status4, error] = Post("/api/play", {{"variant", "chad"}, {"evaluator", "net"}});
  EXPECT_EQ(status4, 400);
  EXPECT_EQ(error["field"], "evaluator");
  auto [status5, error5] = Post("/api/play", {{"variant", "chad"}, {"simulations", 0}});
  EXPECT_EQ(status5, 400);
  EXPECT_EQ(error5["field"], "simulations");
  auto [status6, error6] = Post("/api/play", {{"variant", "chad"}, {"simulations", 1000000}});
  EXPECT_EQ(status6, 400);
  EXPECT_EQ(error6["field"], "simulations");
  auto [status7, error7] =
      Post("/api/play", {{"variant", "portuguese-draughts"}, {"fen", "W:W:B5"}});
  EXPECT_EQ(status7, 409) << error7.dump();
}

TEST_F(WebServerTest, AnalysisStreamsAnswersWithCellsAndLines) {
  auto [status, started] = Post("/api/analysis", {{"variant", "chad"},
                                                  {"moves", {"c3c2"}},
                                                  {"simulations", 300},
                                                  {"every", 0.05},
                                                  {"multiPv", 3}});
  ASSERT_EQ(status, 200) << started.dump();
  const std::vector<Json> answers = Stream(started["id"]);
  ASSERT_FALSE(answers.empty());
  const Json& last = answers.back();
  EXPECT_FALSE(last["isDuringSearch"].get<bool>());
  EXPECT_EQ(last["rootInfo"]["visits"], 301);
  EXPECT_EQ(last["rootInfo"]["currentPlayer"], "black");
  ASSERT_EQ(last["moveInfos"].size(), 3u);
  for (const Json& info : last["moveInfos"]) {
    EXPECT_EQ(info["cells"]["from"].get<std::string>() + info["cells"]["to"].get<std::string>(),
              info["move"].get<std::string>());
    EXPECT_EQ(info["pvCells"].size(), info["pv"].size());
    EXPECT_EQ(info["pvDisplay"].size(), info["pv"].size());
  }
  // The job is gone once its stream ended.
  EXPECT_EQ(Get("/api/analysis/" + started["id"].get<std::string>() + "/events").first, 404);
}

// Every stream of one analysis (a second tab, a browser's reconnect) gets the final answer, and a
// HEAD of the stream (a prefetcher) neither opens a stream nor ends the analysis.
TEST_F(WebServerTest, EveryStreamOfAnAnalysisGetsItsFinalAnswer) {
  auto [status, started] =
      Post("/api/analysis",
           {{"variant", "chad"}, {"evaluator", "rollout"}, {"simulations", 4000}, {"every", 0.05}});
  ASSERT_EQ(status, 200) << started.dump();
  const std::string id = started["id"];
  auto head = client_->Head(("/api/analysis/" + id + "/events").c_str());
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  std::vector<Json> first, second;
  std::thread reader([&] { first = Stream(id); });
  second = Stream(id);
  reader.join();
  for (const std::vector<Json>* answers : {&first, &second}) {
    ASSERT_FALSE(answers->empty());
    EXPECT_FALSE(answers->back()["isDuringSearch"].get<bool>()) << answers->back().dump();
    EXPECT_EQ(answers->back()["rootInfo"]["visits"], 4001);
  }
}

// One client address cannot take every slot: past --max-jobs-per-client its next search is 429
// (naming the client and the cap), while the engine still has room for others.
TEST_F(WebServerTest, OneClientCannotTakeEverySlot) {
  Boot(HttpServerConfig{}, 3, 2);
  const std::vector<std::string> ids = StartLongAnalyses(2);
  ASSERT_EQ(ids.size(), 2u);
  auto [refused, error] = Post("/api/play", {{"variant", "chad"}, {"simulations", 5}});
  EXPECT_EQ(refused, 429) << error.dump();
  const std::string message = error["error"].get<std::string>();
  EXPECT_NE(message.find("127.0.0.1"), std::string::npos) << message;
  EXPECT_NE(message.find("--max-jobs-per-client"), std::string::npos) << message;
  // The third slot is another client's: here the API itself, for a client of another address.
  const Json other = api_->Play({{"variant", "chad"}, {"simulations", 5}}, "192.0.2.7");
  EXPECT_FALSE(other["move"].get<std::string>().empty()) << other.dump();
  EXPECT_EQ(Get("/api/info").second["limits"]["maxJobsPerClient"], 2);
  // A search of the client asked to stop frees its slot at once, before its final answer (a page
  // that stops an analysis and starts the next one).
  EXPECT_EQ(Post("/api/analysis/" + ids[0] + "/stop", Json::object()).first, 200);
  EXPECT_EQ(Post("/api/play", {{"variant", "chad"}, {"simulations", 5}}).first, 200);
  for (const std::string& id : ids) Post("/api/analysis/" + id + "/stop", Json::object());
  for (const std::string& id : ids) Stream(id);
}

// An engine move by simulations stops at the server's longest move time with its best move so
// far, so that no reply (and no client's job slot) waits longer.
TEST_F(WebServerTest, AnEngineMoveStopsAtTheLongestMoveTime) {
  max_move_seconds_ = 0.2;
  Boot(HttpServerConfig{}, 2);
  auto [status, reply] = Post("/api/play", {{"variant", "chaco-rex"}, {"simulations", 5000}});
  ASSERT_EQ(status, 200) << reply.dump();
  EXPECT_FALSE(reply["move"].get<std::string>().empty());
  EXPECT_TRUE(reply["analysis"].value("terminated", false)) << reply["analysis"].dump();
  EXPECT_LT(reply["analysis"]["rootInfo"]["visits"].get<int>(), 5001);
}

TEST_F(WebServerTest, TheDefaultPerClientCapIsHalfTheJobs) {
  Boot(HttpServerConfig{}, 7);
  EXPECT_EQ(Get("/api/info").second["limits"]["maxJobsPerClient"], 4);
  Boot(HttpServerConfig{}, 1);
  EXPECT_EQ(Get("/api/info").second["limits"]["maxJobsPerClient"], 1);
}

TEST_F(WebServerTest, AnalysisStopsOnRequestAndJobsAreBounded) {
  Boot(HttpServerConfig{}, 1);
  auto [status, started] =
      Post("/api/analysis", {{"variant", "chaco-rex"}, {"simulations", 5000}, {"every", 0.05}});
  ASSERT_EQ(status, 200) << started.dump();
  const std::string id = started["id"];
  auto [busy, error] = Post("/api/analysis", {{"variant", "chad"}});
  EXPECT_EQ(busy, 503) << error.dump();
  EXPECT_NE(error["error"].get<std::string>().find("busy"), std::string::npos);
  EXPECT_EQ(Post("/api/analysis/" + id + "/stop", Json::object()).first, 200);
  const std::vector<Json> answers = Stream(id);
  ASSERT_FALSE(answers.empty());
  EXPECT_TRUE(answers.back().value("terminated", false)) << answers.back().dump();
  EXPECT_LT(answers.back()["rootInfo"]["visits"].get<int>(), 5001);
  // The slot is free again.
  auto [again, second] = Post("/api/analysis", {{"variant", "chad"}, {"simulations", 5}});
  EXPECT_EQ(again, 200) << second.dump();
  Stream(second["id"]);
  EXPECT_EQ(Post("/api/analysis/j999/stop", Json::object()).first, 404);
}

TEST_F(WebServerTest, RecordsRoundTrip) {
  const Json game = {{"variant", "chad"}, {"moves", {"c3c2", "h10h11", "c2c1"}}};
  auto [status, record] = Post("/api/record/export", game);
  ASSERT_EQ(status, 200) << record.dump();
  EXPECT_EQ(record["format"], "pgn");
  const std::string text = record["text"];
  EXPECT_NE(text.find("[Variant \"chad\"]"), std::string::npos) << text;
  EXPECT_NE(text.find("1. Rc3-c2"), std::string::npos) << text;
  auto [status2, imported] = Post("/api/record/import", {{"text", text}});
  ASSERT_EQ(status2, 200) << imported.dump();
  EXPECT_EQ(imported["variant"], "chad");
  EXPECT_EQ(imported["moves"], game["moves"]);

  auto [status3, pdn] =
      Post("/api/record/export", {{"variant", "portuguese-draughts"}, {"moves", {"10-14"}}});
  ASSERT_EQ(status3, 200);
  EXPECT_EQ(pdn["format"], "pdn");
  EXPECT_NE(pdn["text"].get<std::string>().find("[GameType \"32\"]"), std::string::npos);

  auto [status4, error] =
      Post("/api/record/import", {{"text", "[Variant \"chad\"]\n\n1. Rc3-c9 *\n"}});
  EXPECT_EQ(status4, 400);
  EXPECT_EQ(error["field"], "text");
  EXPECT_NE(error["error"].get<std::string>().find("Rc3-c9"), std::string::npos) << error.dump();
  auto [status5, error5] = Post("/api/record/import", {{"text", "1. e4 *\n"}});
  EXPECT_EQ(status5, 400);
  EXPECT_EQ(error5["field"], "variant");
}

// Bytes that are not UTF-8, in every part of a request a client controls, get a JSON 4xx (the
// server used to end on the first: nlohmann's dump threw outside any guard), and the server
// answers afterwards.
TEST_F(WebServerTest, BytesThatAreNotUtf8GetJsonErrors) {
  auto post = [](const std::string& path, const std::string& body) {
    return "POST " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: " +
           "application/json\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  };
  struct Case {
    std::string request;
    int status;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"GET /%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404, "not found"},
      {"GET /%ff%fe%c3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404, "not found"},
      {"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404, "not found"},
      {"POST /api/%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", 404,
       "not found"},
      {"GET /api/runs/%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404, "no run"},
      {"GET /api/runs/run1/plots/%ff.svg HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404,
       "no plot"},
      {post("/api/position", "{\"variant\": \"\xff\"}"), 400, "malformed JSON"},
      {post("/api/position", "{\"variant\": \"chad\", \"\xff\xfe\": 1}"), 400, "malformed JSON"},
      {post("/api/position", "{\"variant\": \"chad\", \"moves\": [\"c3\xc3\"]}"), 400,
       "malformed JSON"},
      {post("/api/record/import", "{\"text\": \"[Variant \\\"chad\\\"]\\n\\n1. \xff *\"}"), 400,
       "malformed JSON"},
  };
  for (const Case& c : cases) {
    auto [status, error] = Raw(c.request);
    EXPECT_EQ(status, c.status) << c.request;
    ASSERT_TRUE(error.is_object()) << c.request;
    EXPECT_NE(error.value("error", "").find(c.says), std::string::npos)
        << c.request << " -> " << error.dump();
  }
  // A request line httplib cannot parse it answers itself, 400 without a body.
  EXPECT_EQ(Raw("G\xffT / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").first, 400);
  // Bad bytes in a query string and a header of a good request change nothing.
  EXPECT_EQ(Raw("GET /api/info?x=%ff HTTP/1.1\r\nHost: \xff\r\nX-A: \xc3\r\nConnection: "
                "close\r\n\r\n")
                .first,
            200);
  // Text the server echoes back that is valid JSON but odd: control characters and a NUL in an
  // unknown field name and in a move.
  auto [status, error] = Post("/api/position", {{"variant", "chad"}, {std::string("a\0\n", 3), 1}});
  EXPECT_EQ(status, 400);
  EXPECT_EQ(error["field"], std::string("a\0\n", 3));
  auto [status2, error2] =
      Post("/api/position", {{"variant", "chad"}, {"moves", {std::string("c3\0\x01", 4)}}});
  EXPECT_EQ(status2, 400);
  EXPECT_EQ(error2["field"], "moves");
  EXPECT_EQ(Get("/api/info").first, 200);
}

// A number beyond a double is a malformed body (400), not an internal error (it was 500).
TEST_F(WebServerTest, NumbersBeyondADoubleAreRefused) {
  for (const std::string body :
       {R"({"variant": "chad", "simulations": 1e999})", R"({"variant": "chad", "every": -1e999})",
        R"({"variant": "chad", "x": {"y": [1, 1e400]}})"}) {
    auto [status, error] = PostText("/api/analysis", body);
    EXPECT_EQ(status, 400) << body << " -> " << error.dump();
    EXPECT_EQ(error["field"], "body") << body;
    EXPECT_NE(error["error"].get<std::string>().find("malformed JSON"), std::string::npos);
  }
  EXPECT_EQ(Get("/api/info").first, 200);
}

// Event streams are capped per analysis and in all (503 with a JSON error past a cap); a slot is
// free again once its stream ends.
TEST_F(WebServerTest, EventStreamsAreCapped) {
  HttpServerConfig http;
  http.threads = 8;
  http.max_streams = 2;
  http.max_streams_per_analysis = 1;
  Boot(http, 8);
  const std::vector<std::string> ids = StartLongAnalyses(3);
  ASSERT_EQ(ids.size(), 3u);
  // The first two analyses get one stream each, read on threads until their end.
  std::atomic<int> open{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < 2; ++i) {
    readers.emplace_back([&, id = ids[size_t(i)]] {
      httplib::Client client("127.0.0.1", port_);
      client.set_read_timeout(60, 0);
      bool counted = false;
      client.Get(("/api/analysis/" + id + "/events").c_str(), [&](const char*, size_t) {
        if (!counted) ++open;
        counted = true;
        return true;
      });
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (open < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(open.load(), 2);
  auto [status, error] = Get("/api/analysis/" + ids[0] + "/events");
  EXPECT_EQ(status, 503);
  EXPECT_NE(error.value("error", "").find("event streams of analysis " + ids[0]), std::string::npos)
      << error.dump();
  auto [status2, error2] = Get("/api/analysis/" + ids[2] + "/events");
  EXPECT_EQ(status2, 503);
  EXPECT_NE(error2.value("error", "").find("too many event streams: 2 are open"), std::string::npos)
      << error2.dump();
  EXPECT_EQ(Get("/api/info").first, 200);  // quick requests still have threads
  for (int i = 0; i < 2; ++i) Post("/api/analysis/" + ids[size_t(i)] + "/stop", Json::object());
  for (std::thread& reader : readers) reader.join();
  Post("/api/analysis/" + ids[2] + "/stop", Json::object());
  const std::vector<Json> answers = Stream(ids[2]);
  ASSERT_FALSE(answers.empty());
  EXPECT_TRUE(answers.back().value("terminated", false));
}

// A tag value cannot forge another tag: a newline in it becomes a space, its quote is escaped,
// and the record reads back with the same game and the same value.
TEST_F(WebServerTest, RecordTagsStayOnOneLine) {
  const std::string white = "a\"]\n[Evil \"1";
  const Json game = {
      {"variant", "chad"}, {"moves", {"c3c2", "h10h11"}}, {"white", white}, {"black", "b\\\r"}};
  auto [status, record] = Post("/api/record/export", game);
  ASSERT_EQ(status, 200) << record.dump();
  const std::string text = record["text"];
  EXPECT_NE(text.find("[White \"a\\\"] [Evil \\\"1\"]\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("\n[Evil"), std::string::npos) << text;
  EXPECT_NE(text.find("[Black \"b\\\\ \"]\n"), std::string::npos) << text;
  const std::vector<RecordText> records = ParseRecordText(text);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].Tag("White"), "a\"] [Evil \"1");
  EXPECT_EQ(records[0].Tag("Black"), "b\\ ");
  EXPECT_EQ(records[0].Tag("Evil"), "");
  auto [status2, imported] = Post("/api/record/import", {{"text", text}});
  ASSERT_EQ(status2, 200) << imported.dump();
  EXPECT_EQ(imported["variant"], "chad");
  EXPECT_EQ(imported["moves"], game["moves"]);
}

TEST_F(WebServerTest, DashboardServesRunsAndNothingElse) {
  auto [status, runs] = Get("/api/runs");
  ASSERT_EQ(status, 200);
  ASSERT_EQ(runs["runs"].size(), 1u) << runs.dump();  // the symlink out of runs/ is not a run
  EXPECT_EQ(runs["runs"][0]["name"], "run1");
  EXPECT_EQ(runs["runs"][0]["plots"], Json({"losses.svg"}));

  auto [status2, run] = Get("/api/runs/run1");
  ASSERT_EQ(status2, 200);
  EXPECT_EQ(run["metrics"].size(), 2u);  // the cut line is skipped
  EXPECT_EQ(run["metrics"][1]["step"], 20);
  auto plot = client_->Get("/api/runs/run1/plots/losses.svg");
  ASSERT_TRUE(plot);
  EXPECT_EQ(plot->status, 200);
  EXPECT_EQ(plot->body, "<svg>losses</svg>");
  EXPECT_EQ(plot->get_header_value("Content-Type"), "image/svg+xml");

  const std::vector<std::string> attempts = {
      "/../secret.txt",
      "/..%2Fsecret.txt",
      "/%2e%2e/%2e%2e/etc/passwd",
      "/static/../../etc/passwd",
      "/api/runs/..",
      "/api/runs/..%2F..%2Fetc",
      "/api/runs/escape",
      "/api/runs/run1/plots/..%2F..%2F..%2Fsecret.txt",
      "/api/runs/run1/plots/../metrics.jsonl",
      "/api/runs/run1/plots/leak.svg",
      "/api/runs/run1/plots/%2Fetc%2Fpasswd",
      "/api/runs/..%2Foutside/plots/x.svg",
      "/index.html%00.js",
      "/etc/passwd",
  };
  for (const std::string& path : attempts) {
    auto result = client_->Get(path.c_str());
    ASSERT_TRUE(result) << path;
    EXPECT_TRUE(result->status == 404 || result->status == 400) << path << " -> " << result->status;
    EXPECT_EQ(result->body.find("top secret"), std::string::npos) << path;
    EXPECT_EQ(result->body.find("root:"), std::string::npos) << path;
  }
}

TEST_F(WebServerTest, ThePageIsEmbedded) {
  auto page = client_->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("<svg id=\"board\""), std::string::npos);
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("default-src 'self'"),
            std::string::npos);
  for (const char* asset : {"/app.js", "/boards.js", "/pieces.js", "/style.css"}) {
    auto result = client_->Get(asset);
    ASSERT_TRUE(result) << asset;
    EXPECT_EQ(result->status, 200) << asset;
    EXPECT_GT(result->body.size(), 1000u) << asset;
  }
}

TEST_F(WebServerTest, ManyClientsAtOnce) {
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port_);
      for (int i = 0; i < 10; ++i) {
        const Json body = {{"variant", c % 2 ? "chad" : "cuarenta"}};
        auto result = client.Post("/api/position", body.dump(), "application/json");
        if (result && result->status == 200) ++ok;
      }
    });
  }
  for (std::thread& t : clients) t.join();
  EXPECT_EQ(ok.load(), 80);
}

TEST_F(WebServerTest, ClientsOverTheirRateGet429) {
  HttpServerConfig http;
  http.rate_per_second = 0.001;  // no refill within the test
  http.rate_burst = 3;
  Boot(http, 8);
  std::vector<int> statuses;
  for (int i = 0; i < 5; ++i) statuses.push_back(Get("/api/info").first);
  EXPECT_EQ(statuses, (std::vector<int>{200, 200, 200, 429, 429}));
  auto [status, error] = Get("/api/info");
  EXPECT_EQ(status, 429);
  EXPECT_NE(error["error"].get<std::string>().find("too many requests"), std::string::npos);
}

}  // namespace
}  // namespace vz
