#pragma once

// One training step of a policy/value net and its full, resumable state (torch-free interface;
// LibTorch stays inside trainer.cc).
//
// Loss per batch = policy cross-entropy  -sum_a target(a) * log softmax(logits)(a)
//                + WDL cross-entropy     -sum_k wdl(k) * log softmax(value logits)(k)
//                + material_weight * mean_k (material(k) - target(k))^2, for a net with a
//                  material head and batches that carry material targets (KataGo's auxiliary
//                  targets, Wu 2019 section 4.1; net_architecture.h)
//                + ownership_weight * the mean over the board's cells (BoardCellMask) of the
//                  cross-entropy of the ownership head's kOccupancyClasses logits against each
//                  cell's final occupant, for a net with an ownership head and batches that carry
//                  ownership targets (KataGo's ownership loss, Wu 2019 section 4.1)
//                + weight decay, applied by the optimizer (SGD: L2 added to the gradient;
//                  AdamW: decoupled), on every parameter.
// Optimizers: SGD with classical momentum, or AdamW. Learning-rate schedule: constant, or
// linear warm-up followed by cosine decay to `final_learning_rate_fraction` at total_steps, or
// step decay (x 0.1 at 50% and 75% of total_steps).
// Checkpoints hold the weights, the optimizer's state, the step, LibTorch's CPU random generator
// and the trainer's own generator, in a file with a CRC-32 that keeps the previous good one
// (nets/checkpoint_file.h); LoadCheckpoint resumes exactly (the same batches then give
// bit-identical weights on the CPU). A non-finite loss stops training before the update, and
// non-finite weights are never checkpointed.
// Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nets/checkpoint_file.h"
#include "nets/net_file.h"

namespace vz::nets {

class ProcessGroup;  // nets/distributed.h

struct TrainerOptions {
  std::string optimizer = "sgd";  // "sgd" or "adamw"
  double learning_rate = 0.02;
  double momentum = 0.9;  // SGD only
  double weight_decay = 1e-4;
  std::string schedule = "constant";  // "constant", "cosine", "step"
  int64_t total_steps = 0;            // for "cosine" and "step"
  int64_t warmup_steps = 0;           // linear warm-up (cosine)
  double final_learning_rate_fraction = 0.01;
  std::string device = "cpu";
  // "fp32", or "bf16": mixed precision (Micikevicius et al. 2018, with bf16 needing no loss
  // scaling): the forward passes of Step and Evaluate under LibTorch's autocast for the device
  // (convolutions and matrix products in bf16), weights, gradients, optimizer state and the
  // losses in fp32; autocast is state of the calling thread, set and restored around each
  // forward pass, so other threads (self-play evaluators) are not affected. Predict always runs
  // in fp32. "auto": bf16 on a CUDA device and on a CPU where bf16 is the faster precision
  // (CpuPrefersBf16, nets/net_runner.h: AMX, or AVX-512 BF16 on AMD; measured on AMX, 1.24-1.31x
  // the samples a second of fp32, docs/performance.md), fp32 on other CPUs. Anything else is an
  // error of the constructor.
  std::string precision = "fp32";
  uint64_t seed = 1;
  // Data-parallel training (nets/distributed.h; PyTorch DDP's semantics): when set, the
  // constructor and LoadCheckpoint make every rank's weights and batch-norm statistics rank 0's,
  // and Step averages over the ranks, in one all-reduce after backward and before the optimizer
  // step: the gradients, the batch-norm running statistics (each rank normalizes its own batch)
  // and the metrics. Every rank then holds identical weights. Each rank passes its own shard of
  // the global batch to Step, all of the same size. Not owned; must outlive the trainer.
  ProcessGroup* process_group = nullptr;
  // Splits each Step's batch into this many equal consecutive micro-batches: each is normalized
  // on its own (batch norm in training mode), starting from the same running statistics; the
  // loss is their mean, the running statistics and metrics the mean of theirs. This is exactly one
  // data-parallel step of `micro_batches` ranks fed the micro-batches in rank order, in one process
  // (the single-process reference of a distributed run), and gradient accumulation for batches
  // too large for memory. batch.size must be a multiple of it.
  int micro_batches = 1;
  // The policy loss from the legal moves' logits alone (PolicyValueNetImpl::ForwardActions: the
  // head's last layer only where a legal action reads it) when a batch has a legal mask, instead
  // of every action's logit masked: the same softmax over the legal moves, the same loss and
  // gradients up to float rounding when the policy targets lie on legal moves (as search visit
  // distributions do; target mass on an illegal action, which the dense head turns into a loss of
  // about 1e9 per unit, is not read), without the dense head's policy_planes x height x width
  // outputs and their backward pass. On the CPU only (on a CUDA device the mask's nonzero()
  // would synchronise the step; the dense head runs there). Batches without a mask use the dense
  // head.
  bool legal_policy = true;
  // The material head's share of the loss (above), >= 0; 0 leaves the head untrained. Ignored by
  // a net without the head.
  double material_weight = 0;
  // The ownership head's share of the loss (above), >= 0; 0 leaves the head untrained. Ignored by
  // a net without the head.
  double ownership_weight = 0;
};

// A batch of training samples, flat arrays:
//   planes  [size][input_planes * height * width]  InputEncoding<G>::Encode
//   policy  [size][num_actions]  policy target (probabilities over the policy indices)
//   wdl     [size][3]            game result from the side to move's view (one-hot or soft)
//   legal   [size][num_actions]  optional (empty = none): 1 for legal actions; illegal logits are
//                                masked before the softmax of the loss and of the accuracy
//   material [size][K]           optional (empty = none): the game's final piece-count difference
//                                of each of its K piece types, side to move's view
//                                (engine/piece_types.h); read by a net with a material head
//                                (K = its material_outputs), ignored by others
//   ownership [size][height * width] optional (empty = none): each grid cell's occupant in the
//                                game's last position, a class of InputEncoding<G>::Occupancy
//                                (kEmptyCell, kViewersPiece, kOpponentsPiece) seen by the side to
//                                move in its frame, as the planes; read by a net with an ownership
//                                head, ignored by others
struct TrainingBatch {
  int size = 0;
  std::vector<float> planes;
  std::vector<float> policy;
  std::vector<float> wdl;
  std::vector<uint8_t> legal;
  std::vector<float> material;
  std::vector<uint8_t> ownership;
};

// A batch of training samples in compact form, as the replay window keeps them: positions and
// sparse policy targets. The trainer expands it into the dense arrays of TrainingBatch on its
// own device with a SampleCodec (on a GPU with the rule kernels: nothing dense crosses the bus).
//   positions       [size * codec.position_bytes]  the game's positions (G::Position bytes)
//   repetitions     [size]        int32 >= 1, the repetition count the encoding reads
//   symmetries      [size]        int32 in [0, codec.symmetries): the augmentation symmetry of
//                                 the sample (0: none), applied to its planes, policy target and
//                                 legal mask exactly as nets/augment.h ApplySymmetry does
//   wdl             [size][3]     game result from the side to move's view
//   target_offsets  [size + 1]    sample i's policy target entries are [offsets[i], [i + 1])
//   target_indices  [total]       int32 policy indices in [0, num_actions), before the symmetry
//   target_probabilities [total]  their probabilities (indices may repeat: they add up)
//   material        [size][K]     optional, as TrainingBatch's (no symmetry changes it)
//   ownership       [size][height * width] optional, as TrainingBatch's, before the symmetry
//                                 (moved cell by cell with the planes)
// The legal mask is always made (from the positions' legal moves).
struct CompactBatch {
  int size = 0;
  std::vector<std::byte> positions;
  std::vector<int32_t> repetitions;
  std::vector<int32_t> symmetries;
  std::vector<float> wdl;
  std::vector<int32_t> target_offsets;
  std::vector<int32_t> target_indices;
  std::vector<float> target_probabilities;
  std::vector<float> material;
  std::vector<uint8_t> ownership;
};

// The game-specific half of expanding a CompactBatch (nets/sample_codec.h MakeSampleCodec<G>
// makes it from the game's encoding and the batched rules of cuda/batched_rules.h). The
// callbacks take device pointers and a cudaStream_t (the rule kernels), or, for a codec that
// runs on the host (`host`: their CPU twin), host pointers and nullptr; a CUDA trainer with a
// host codec expands the positions on the host and copies the planes and legal moves over. They
// must not throw except vz::Error.
struct SampleCodec {
  std::string game;        // the game's name, checked against the trainer's net
  bool host = true;        // the callbacks take host pointers (the CPU twin)
  int position_bytes = 0;  // sizeof(G::Position)
  int max_moves = 0;       // G::kMaxMoves
  int symmetries = 1;      // InputEncoding<G>::kNumSymmetries
  // [symmetries][height * width]: symmetry s moves cell r * width + c to cell_maps[s][...]
  // (InputEncoding<G>::SymmetricCell); row 0 is the identity.
  std::vector<int32_t> cell_maps;
  // [symmetries][num_actions]: symmetry s moves action a to action_maps[s][a]
  // (InputEncoding<G>::SymmetricAction); row 0 is the identity.
  std::vector<int32_t> action_maps;
  // planes [n][input size] float32 = InputEncoding<G>::Encode of positions [n] with their
  // repetition counts [n].
  std::function<void(const void* positions, int n, const int32_t* repetitions, float* planes,
                     void* stream)>
      encode;
  // counts [n] and policy_indices [n][max_moves] of the positions' legal moves.
  std::function<void(const void* positions, int n, int32_t* counts, int32_t* policy_indices,
                     void* stream)>
      legal_indices;
};

// Metrics of one step (losses are batch means, before the update).
struct TrainMetrics {
  int64_t step = 0;  // steps done, this one included
  double loss = 0;   // policy + value + material_weight * material + ownership_weight * ownership
  double policy_loss = 0;
  double value_loss = 0;
  double material_loss = 0;    // mean squared error of the material head (0 without one)
  double ownership_loss = 0;   // mean cross-entropy of the ownership head (0 without one)
  double policy_accuracy = 0;  // argmax of logits == argmax of the target
  double value_accuracy = 0;   // argmax of WDL == argmax of the target
  double weight_penalty = 0;   // weight_decay / 2 * sum of squared parameters (the L2 term)
  double learning_rate = 0;
};

class Trainer {
 public:
  // Starts from the weights of `net` (its header is kept for ExportNet). Throws vz::Error on a
  // bad option (unknown optimizer or schedule, non-positive learning rate, micro_batches < 1,
  // a negative or non-finite material_weight or ownership_weight), a bad device, a net whose
  // tensors do not fit its architecture, or a failed broadcast.
  Trainer(const NetFile& net, const TrainerOptions& options);
  ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // One optimizer step on `batch`. Throws vz::Error if the arrays do not match batch.size and
  // the architecture, if batch.size is not a multiple of micro_batches, on a failed collective of
  // the process group, and (before touching the weights: the step is not taken) when the loss is
  // NaN or infinite.
  TrainMetrics Step(const TrainingBatch& batch);

  // Evaluates the loss and accuracies of `batch` without training (eval mode).
  TrainMetrics Evaluate(const TrainingBatch& batch);

  // The same on a compact batch, expanded on the trainer's device by the codec of
  // set_sample_codec: the same metrics and update as Step/Evaluate on the dense batch that
  // selfplay's ReplayWindow::Sample and nets::AugmentBatch make of the same samples. Throws
  // vz::Error without a codec, when the arrays do not match batch.size or the codec, when an
  // index or symmetry is out of range, and as Step.
  TrainMetrics Step(const CompactBatch& batch);
  TrainMetrics Evaluate(const CompactBatch& batch);

  // The codec that expands compact batches for this trainer's game. Throws vz::Error when it is
  // for another game or does not match the net's architecture (map sizes).
  void set_sample_codec(std::shared_ptr<const SampleCodec> codec);

  // The current network's outputs in eval mode: planes [batch][input size] in, policy logits
  // [batch][num_actions] and WDL probabilities [batch][3] out.
  void Predict(const float* planes, int batch, float* policy, float* wdl);

  // Saves the full training state to `path` (WriteCheckpointFile: atomic, checksummed, the
  // previous good file kept as PreviousCheckpointPath(path)). Throws vz::Error naming the path on
  // I/O failures, and without writing anything when a weight or statistic is NaN or infinite.
  void SaveCheckpoint(const std::string& path) const;
  // Restores a state saved by SaveCheckpoint of a trainer with the same architecture: from
  // `path`, or from its previous file when `path` is missing, fails its checksum or does not load
  // (ReadNewestCheckpoint; the result names the file and carries the warnings to log). With a
  // process group every rank loads, then takes rank 0's weights. Throws vz::Error naming the path
  // and each file's fault when no good checkpoint is left (never LibTorch's own message), when
  // it was made for another game or architecture, or when the ranks loaded different steps.
  CheckpointLoad LoadCheckpoint(const std::string& path);

  // The current weights as a net file; provenance: training_steps = step(), games = `games`,
  // parent, created now, source_revision.
  NetFile ExportNet(uint64_t games = 0, const std::string& parent = "",
                    const std::string& source_revision = "") const;

  // Optimizer steps taken so far (restored from a checkpoint).
  int64_t step() const;
  // The precision in force: "fp32" or "bf16" (TrainerOptions::precision, "auto" resolved).
  std::string precision() const;
  // The learning rate of the options' schedule (warmup, then constant, step or cosine) at
  // optimizer step `step` >= 0 (arithmetic on the options; no tensor work).
  double LearningRate(int64_t step) const;
  // The trainer's own random generator (64-bit SplitMix64 stream), saved in checkpoints; used
  // for augmentation choices.
  uint64_t NextRandom();

  // The LibTorch side's interface (nets/torch_backend.h).
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// The weights of the checkpoint at `path` (any Trainer's SaveCheckpoint; its previous file when
// it is unusable, as LoadCheckpoint) as a net file, without knowing its game or architecture
// beforehand (the checkpoint carries its net header); provenance training_steps = the
// checkpoint's step, games = `games`, created now. The warnings of the load go to `warnings`
// when given. Throws vz::Error naming the path if no good checkpoint is left or it is not a
// vzero checkpoint.
NetFile ExportCheckpoint(const std::string& path, uint64_t games = 0,
                         std::vector<std::string>* warnings = nullptr);

}  // namespace vz::nets
