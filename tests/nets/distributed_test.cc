// Data-parallel training (nets/distributed.h, nets/trainer.h): the rendezvous variables of
// torchrun, Slurm and Open MPI (and bad values named), Slurm node lists, host collectives over a
// real c10d Gloo group on loopback, and two training ranks against the single-process run.
//
// Ranks are threads of this process, each with its own TCPStore client and Gloo process group on
// 127.0.0.1 (c10d allows several groups per process; rank 0's thread serves the store).
//
// Batch norm: our net normalizes with the statistics of the batch it sees, so two ranks of 8
// samples each do not compute what one process does on the 16 together. The reference is the
// single-process run with TrainerOptions::micro_batches = 2 over the same global batches: it
// normalizes each half on its own (the half rank r sees), averages the gradients of the two
// halves and their batch-norm running statistics — what the ranks' all-reduce does. The test
// also checks that the plain single-process run (one normalization over 16) differs by more than
// the tolerance, so that the comparison can fail.

#include "nets/distributed.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "engine/encodings.h"
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "nets/trainer.h"
#include "tests/nets/net_test_util.h"
#include "tests/test_util.h"

namespace vz::nets {
namespace {

using vz::testing::ErrorOf;

EnvLookup Env(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    const auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

DistributedEnv Loopback(int rank, int world, int port) {
  return {.rank = rank,
          .world_size = world,
          .master_addr = "127.0.0.1",
          .master_port = port,
          .source = "test"};
}

// Checks every field of `env` against `expected`.
void ExpectEnv(const DistributedEnv& env, const DistributedEnv& expected) {
  EXPECT_EQ(env.rank, expected.rank);
  EXPECT_EQ(env.world_size, expected.world_size);
  EXPECT_EQ(env.local_rank, expected.local_rank);
  EXPECT_EQ(env.master_addr, expected.master_addr);
  EXPECT_EQ(env.master_port, expected.master_port);
  EXPECT_EQ(env.source, expected.source);
}

// Runs body(rank) on `world` threads; rethrows the first exception.
template <class Body>
void RunRanks(int world, Body&& body) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(world));
  std::vector<std::thread> threads;
  for (int rank = 0; rank < world; ++rank) {
    threads.emplace_back([&, rank] {
      try {
        body(rank);
      } catch (...) {
        errors[size_t(rank)] = std::current_exception();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

// ---- rendezvous variables ------------------------------------------------------------------

TEST(DistributedEnvTest, NoneSetIsOneProcess) {
  const DistributedEnv env = ReadDistributedEnv(Env({}));
  ExpectEnv(env, {.rank = 0, .world_size = 1, .source = "single process"});
  EXPECT_FALSE(env.distributed());
}

TEST(DistributedEnvTest, Torchrun) {
  const DistributedEnv env = ReadDistributedEnv(Env({{"RANK", "3"},
                                                     {"WORLD_SIZE", "8"},
                                                     {"LOCAL_RANK", "1"},
                                                     {"MASTER_ADDR", "10.0.0.7"},
                                                     {"MASTER_PORT", "29601"},
                                                     // ignored: torchrun's set comes first
                                                     {"SLURM_PROCID", "5"},
                                                     {"SLURM_NTASKS", "9"}}));
  ExpectEnv(env, {.rank = 3,
                  .world_size = 8,
                  .local_rank = 1,
                  .master_addr = "10.0.0.7",
                  .master_port = 29601,
                  .source = "torchrun"});
  EXPECT_NE(env.Describe().find("rank 3 of 8"), std::string::npos) << env.Describe();
  // Defaults: LOCAL_RANK 0, MASTER_PORT 29500.
  const DistributedEnv defaults =
      ReadDistributedEnv(Env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "host"}}));
  EXPECT_EQ(defaults.local_rank, 0);
  EXPECT_EQ(defaults.master_port, kDefaultMasterPort);
  // One rank needs no master.
  EXPECT_EQ(ReadDistributedEnv(Env({{"RANK", "0"}, {"WORLD_SIZE", "1"}})).world_size, 1);
}

TEST(DistributedEnvTest, Slurm) {
  DistributedEnv env = ReadDistributedEnv(Env({{"SLURM_PROCID", "5"},
                                               {"SLURM_NTASKS", "16"},
                                               {"SLURM_LOCALID", "1"},
                                               {"SLURM_JOB_NODELIST", "gpu[07-10,12],login3"}}));
  ExpectEnv(env, {.rank = 5,
                  .world_size = 16,
                  .local_rank = 1,
                  .master_addr = "gpu07",
                  .master_port = kDefaultMasterPort,
                  .source = "slurm"});
  // SLURM_NODELIST when SLURM_JOB_NODELIST is unset; MASTER_ADDR/PORT override.
  env = ReadDistributedEnv(
      Env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_NODELIST", "n1,n2"}}));
  EXPECT_EQ(env.master_addr, "n1");
  env = ReadDistributedEnv(Env({{"SLURM_PROCID", "0"},
                                {"SLURM_NTASKS", "2"},
                                {"SLURM_JOB_NODELIST", "n[1-2]"},
                                {"MASTER_ADDR", "head"},
                                {"MASTER_PORT", "1234"}}));
  EXPECT_EQ(env.master_addr, "head");
  EXPECT_EQ(env.master_port, 1234);
  EXPECT_NE(ErrorOf([] {
              ReadDistributedEnv(Env({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}}));
            }).find("SLURM_JOB_NODELIST"),
            std::string::npos);
}

TEST(DistributedEnvTest, SlurmNodeLists) {
  using Hosts = std::vector<std::string>;
  EXPECT_EQ(ExpandSlurmNodeList("node7"), Hosts({"node7"}));
  EXPECT_EQ(ExpandSlurmNodeList("node[01-04],gpu7"),
            Hosts({"node01", "node02", "node03", "node04", "gpu7"}));
  EXPECT_EQ(ExpandSlurmNodeList("a[1-2]-b[7,9]"), Hosts({"a1-b7", "a1-b9", "a2-b7", "a2-b9"}));
  EXPECT_EQ(ExpandSlurmNodeList("x[008-010]"), Hosts({"x008", "x009", "x010"}));
  EXPECT_EQ(ExpandSlurmNodeList("c[3],d[1-2,5]e"), Hosts({"c3", "d1e", "d2e", "d5e"}));
  for (const char* bad : {"", "node[01-04", "node01-04]", "node[]", "node[4-1]", "node[a-b]",
                          "node[1-2-3]", "a,,b", "n[1-2000000]"}) {
    const std::string error = ErrorOf([&] { ExpandSlurmNodeList(bad, "SLURM_JOB_NODELIST"); });
    EXPECT_NE(error.find("SLURM_JOB_NODELIST"), std::string::npos) << "'" << bad << "'";
  }
}

TEST(DistributedEnvTest, OpenMpi) {
  const DistributedEnv env = ReadDistributedEnv(Env({{"OMPI_COMM_WORLD_RANK", "2"},
                                                     {"OMPI_COMM_WORLD_SIZE", "4"},
                                                     {"OMPI_COMM_WORLD_LOCAL_RANK", "0"},
                                                     {"MASTER_ADDR", "mpi-head"}}));
  ExpectEnv(env, {.rank = 2,
                  .world_size = 4,
                  .local_rank = 0,
                  .master_addr = "mpi-head",
                  .master_port = kDefaultMasterPort,
                  .source = "openmpi"});
  const std::string missing = ErrorOf([] {
    ReadDistributedEnv(Env({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"}}));
  });
  EXPECT_NE(missing.find("MASTER_ADDR"), std::string::npos) << missing;
}

TEST(DistributedEnvTest, BadValuesNameTheVariable) {
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"RANK", "x"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}, "RANK"},
      {{{"RANK", "-1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}, "RANK"},
      {{{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}}, "RANK"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "0"}, {"MASTER_ADDR", "h"}}, "WORLD_SIZE"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2.5"}, {"MASTER_ADDR", "h"}}, "WORLD_SIZE"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}}, "MASTER_ADDR"},
      {{{"RANK", "0"}}, "WORLD_SIZE"},
      {{{"WORLD_SIZE", "2"}}, "RANK"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}},
       "MASTER_PORT"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "0"}},
       "MASTER_PORT"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"LOCAL_RANK", "one"}},
       "LOCAL_RANK"},
      {{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_NODELIST", "n[1-"}},
       "SLURM_JOB_NODELIST"},
      {{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "x"}, {"SLURM_JOB_NODELIST", "n1"}},
       "SLURM_NTASKS"},
      {{{"OMPI_COMM_WORLD_RANK", "9"}, {"OMPI_COMM_WORLD_SIZE", "4"}, {"MASTER_ADDR", "h"}},
       "OMPI_COMM_WORLD_RANK"},
  };
  for (const auto& [values, variable] : cases) {
    const std::string error = ErrorOf([&] { ReadDistributedEnv(Env(values)); });
    EXPECT_NE(error.find(variable), std::string::npos) << variable << ": '" << error << "'";
  }
}

// ---- host collectives ----------------------------------------------------------------------

TEST(ProcessGroupTest, HostCollectivesOnThreeRanks) {
  const int port = testing::FreeLoopbackPort(29517);
  std::vector<std::vector<double>> sums(3), averages(3), minima(3), maxima(3);
  std::vector<std::string> messages(3), empties(3);
  RunRanks(3, [&](int rank) {
    ProcessGroup group(Loopback(rank, 3, port), "cpu", std::chrono::seconds(60));
    EXPECT_EQ(group.rank(), rank);
    EXPECT_EQ(group.world_size(), 3);
    EXPECT_EQ(group.backend(), "gloo");
    const std::vector<double> mine = {double(rank), 10.0 * rank + 1.0, -double(rank)};
    sums[rank] = averages[rank] = minima[rank] = maxima[rank] = mine;
    group.AllReduce(sums[rank], ReduceOp::kSum);
    group.AllReduce(averages[rank], ReduceOp::kAverage);
    group.AllReduce(minima[rank], ReduceOp::kMin);
    group.AllReduce(maxima[rank], ReduceOp::kMax);
    messages[rank] = rank == 1 ? std::string(100000, 'v') + "end" : "not mine";
    group.Broadcast(messages[rank], 1);
    empties[rank] = rank == 0 ? "" : "x";
    group.Broadcast(empties[rank], 0);
    group.Barrier();
    EXPECT_NE(ErrorOf([&] {
                std::string s;
                group.Broadcast(s, 3);
              }).find("root 3"),
              std::string::npos);
  });
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(sums[rank], (std::vector<double>{3, 33, -3}));
    EXPECT_EQ(averages[rank], (std::vector<double>{1, 11, -1}));
    EXPECT_EQ(minima[rank], (std::vector<double>{0, 1, -2}));
    EXPECT_EQ(maxima[rank], (std::vector<double>{2, 21, 0}));
    EXPECT_EQ(messages[rank], std::string(100000, 'v') + "end");
    EXPECT_EQ(empties[rank], "");
  }
}

TEST(ProcessGroupTest, ErrorsNameTheProblem) {
  EXPECT_NE(ErrorOf([] { ProcessGroup group(DistributedEnv{}, "tpu"); }).find("tpu"),
            std::string::npos);
  // Rank 0 of 2 waits for a rank that never comes.
  const int port = testing::FreeLoopbackPort(29517);
  const std::string timeout =
      ErrorOf([&] { ProcessGroup group(Loopback(0, 2, port), "cpu", std::chrono::seconds(2)); });
  EXPECT_NE(timeout.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << timeout;
  // A single process needs no rendezvous.
  ProcessGroup single(DistributedEnv{}, "cpu");
  std::vector<double> values = {4.0};
  single.AllReduce(values, ReduceOp::kAverage);
  EXPECT_EQ(values[0], 4.0);
}

// ---- two training ranks against one process ---------------------------------------------

// `count` positions of pseudo-random draughts games (every third position of games of at most 50
// plies) with their targets and legal masks.
TrainingBatch RandomBatch(int count, uint64_t seed) {
  return testing::RandomTrainingBatch<draughts::DraughtsGame>(count, seed, 50, 3);
}

// Samples [begin, begin + count) of `batch`.
TrainingBatch Slice(const TrainingBatch& batch, int begin, int count) {
  const size_t input = batch.planes.size() / size_t(batch.size);
  const size_t actions = batch.policy.size() / size_t(batch.size);
  TrainingBatch part;
  part.size = count;
  auto copy = [&](const auto& from, size_t width, auto& to) {
    to.assign(from.begin() + ptrdiff_t(size_t(begin) * width),
              from.begin() + ptrdiff_t(size_t(begin + count) * width));
  };
  copy(batch.planes, input, part.planes);
  copy(batch.policy, actions, part.policy);
  copy(batch.wdl, 3, part.wdl);
  copy(batch.legal, actions, part.legal);
  return part;
}

struct RunResult {
  NetFile net;
  std::vector<TrainMetrics> metrics;
};

TrainerOptions Options() {
  TrainerOptions options;
  options.optimizer = "sgd";
  options.learning_rate = 0.05;
  options.momentum = 0.9;
  options.weight_decay = 1e-4;
  return options;
}

// The largest |a - b| over every tensor (parameters and running statistics).
double MaxDifference(const NetFile& a, const NetFile& b) {
  double worst = 0;
  EXPECT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t t = 0; t < std::min(a.tensors.size(), b.tensors.size()); ++t) {
    EXPECT_EQ(a.tensors[t].name, b.tensors[t].name);
    EXPECT_EQ(a.tensors[t].data.size(), b.tensors[t].data.size());
    for (size_t i = 0; i < std::min(a.tensors[t].data.size(), b.tensors[t].data.size()); ++i) {
      worst = std::max(worst, double(std::fabs(a.tensors[t].data[i] - b.tensors[t].data[i])));
    }
  }
  return worst;
}

TEST(DistributedTrainingTest, TwoGlooRanksMatchTheSingleProcessRun) {
  using G = draughts::DraughtsGame;
  constexpr int kSteps = 6, kGlobalBatch = 16, kWorld = 2, kShard = kGlobalBatch / kWorld;
  std::vector<TrainingBatch> batches;
  for (int step = 0; step < kSteps; ++step) batches.push_back(RandomBatch(kGlobalBatch, step + 7));
  const NetFile initial = FreshNetForGame<G>("tiny", 1);

  // Rank r trains on half r of every global batch; rank 1 starts from other weights, which the
  // broadcast from rank 0 replaces.
  const int port = testing::FreeLoopbackPort(29517);
  std::vector<RunResult> ranks(kWorld);
  RunRanks(kWorld, [&](int rank) {
    ProcessGroup group(Loopback(rank, kWorld, port), "cpu", std::chrono::seconds(120));
    TrainerOptions options = Options();
    options.process_group = &group;
    options.seed = 100 + uint64_t(rank);
    Trainer trainer(rank == 0 ? initial : FreshNetForGame<G>("tiny", 2), options);
    for (const TrainingBatch& batch : batches) {
      ranks[rank].metrics.push_back(trainer.Step(Slice(batch, rank * kShard, kShard)));
    }
    ranks[rank].net = trainer.ExportNet();
  });

  // The single-process reference: the same global batches, each half normalized on its own.
  TrainerOptions options = Options();
  options.micro_batches = kWorld;
  Trainer reference(initial, options);
  RunResult single;
  for (const TrainingBatch& batch : batches) single.metrics.push_back(reference.Step(batch));
  single.net = reference.ExportNet();

  // The ranks agree exactly (one all-reduce result, the same optimizer arithmetic).
  EXPECT_EQ(MaxDifference(ranks[0].net, ranks[1].net), 0.0);
  for (int step = 0; step < kSteps; ++step) {
    EXPECT_EQ(ranks[0].metrics[step].loss, ranks[1].metrics[step].loss) << "step " << step;
    EXPECT_EQ(ranks[0].metrics[step].step, step + 1);
    // Metrics are the mean over the ranks, as in the reference.
    EXPECT_NEAR(ranks[0].metrics[step].loss, single.metrics[step].loss, 1e-4) << "step " << step;
    EXPECT_NEAR(ranks[0].metrics[step].policy_accuracy, single.metrics[step].policy_accuracy, 1e-6);
  }
  // ... and equal the single-process run to float tolerance.
  const double tolerance = 2e-5;
  const double difference = MaxDifference(ranks[0].net, single.net);
  EXPECT_LT(difference, tolerance);
  // Training moved the weights by far more than the tolerance.
  EXPECT_GT(MaxDifference(single.net, initial), 100 * tolerance);
  // One normalization over all 16 samples is a different computation: the comparison can fail.
  Trainer global(initial, Options());
  for (const TrainingBatch& batch : batches) global.Step(batch);
  const double global_difference = MaxDifference(global.ExportNet(), single.net);
  EXPECT_GT(global_difference, 10 * tolerance);
  std::printf(
      "largest weight difference: ranks vs micro-batched single process %.3g, single "
      "process with and without micro-batches %.3g\n",
      difference, global_difference);
}

TEST(DistributedTrainingTest, MicroBatchesRejectAnUnevenBatch) {
  using G = draughts::DraughtsGame;
  TrainerOptions options = Options();
  options.micro_batches = 3;
  Trainer trainer(FreshNetForGame<G>("tiny", 1), options);
  EXPECT_NE(ErrorOf([&] { trainer.Step(RandomBatch(8, 1)); }).find("micro_batches"),
            std::string::npos);
  options.micro_batches = 0;
  EXPECT_NE(
      ErrorOf([&] { Trainer bad(FreshNetForGame<G>("tiny", 1), options); }).find("micro_batches"),
      std::string::npos);
}

}  // namespace
}  // namespace vz::nets
