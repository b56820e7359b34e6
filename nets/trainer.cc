// Trainer and ExportCheckpoint forward to the LibTorch side (nets/torch_backend.h,
// nets/torch_trainer.cc).

#include "nets/trainer.h"

#include "nets/torch_backend.h"

namespace vz::nets {

Trainer::Trainer(const NetFile& net, const TrainerOptions& options)
    : impl_(Torch().NewTrainer(net, options)) {}

Trainer::~Trainer() = default;

TrainMetrics Trainer::Step(const TrainingBatch& batch) { return impl_->Step(batch); }

TrainMetrics Trainer::Evaluate(const TrainingBatch& batch) { return impl_->Evaluate(batch); }

TrainMetrics Trainer::Step(const CompactBatch& batch) { return impl_->Step(batch); }

TrainMetrics Trainer::Evaluate(const CompactBatch& batch) { return impl_->Evaluate(batch); }

void Trainer::set_sample_codec(std::shared_ptr<const SampleCodec> codec) {
  impl_->SetSampleCodec(std::move(codec));
}

void Trainer::Predict(const float* planes, int batch, float* policy, float* wdl) {
  impl_->Predict(planes, batch, policy, wdl);
}

void Trainer::SaveCheckpoint(const std::string& path) const { impl_->SaveCheckpoint(path); }

CheckpointLoad Trainer::LoadCheckpoint(const std::string& path) {
  return impl_->LoadCheckpoint(path);
}

NetFile Trainer::ExportNet(uint64_t games, const std::string& parent,
                           const std::string& source_revision) const {
  return impl_->ExportNet(games, parent, source_revision);
}

int64_t Trainer::step() const { return impl_->step(); }

std::string Trainer::precision() const { return impl_->precision(); }

double Trainer::LearningRate(int64_t step) const { return impl_->LearningRate(step); }

uint64_t Trainer::NextRandom() { return impl_->NextRandom(); }

NetFile ExportCheckpoint(const std::string& path, uint64_t games,
                         std::vector<std::string>* warnings) {
  return Torch().ExportCheckpoint(path, games, warnings);
}

}  // namespace vz::nets
