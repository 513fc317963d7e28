#include "export_model.hpp"

#include <iostream>

#include <torch/serialize.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/batch_stream.hpp"
#include "models/init/init_registry.hpp"

namespace loci::torch_trainer {

namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kReferenceSamples = 8;

fs::path target_of(const plugins::ExportRequest& request) {
  return request.out.empty() ? request.run / "model.pt" : request.out;
}

// What python/loci/torch.py needs to rebuild the model; the tensors carry the rest.
nlohmann::ordered_json model_config(const Session& s) {
  const auto& m = s.learner.mopt;
  const auto& e = m.encoder();
  const auto& pe = e.pe();
  return {{"task", models::choice_name(m.task())},
          {"tokens", s.data.plan.tokens},
          {"in_channels", e.in_channels()},
          {"d_model", e.d_model()},
          {"blocks", e.blocks()},
          {"heads", e.heads()},
          {"activation", models::choice_name(e.activation())},
          {"activation_after_both", e.activation_after_both()},
          {"norm", models::choice_name(e.norm())},
          {"final_norm", e.final_norm()},
          {"layer_norm_eps", e.layer_norm_eps()},
          {"classes", m.classification().classes()},
          {"pooling", models::choice_name(m.classification().pooling())},
          {"mask_ratio_eval", m.masked_regression().mask_ratio_eval()},
          {"pe",
           {{"type", pe.type()},
            {"placement", models::choice_name(pe.placement())},
            {"variant", models::choice_name(pe.variant())},
            {"sinusoidal_dropout", pe.sinusoidal_dropout()},
            {"dropout_at_eval", pe.dropout_at_eval()}}}};
}

// The first samples of the first split the run evaluates beside its training split, and what loci's model makes
// of them: the Python model must give the same.
c10::impl::GenericDict reference_batch(Session& s) {
  std::string split = s.data.eval_splits.front();
  for (const auto& e : s.data.eval_splits)
    if (e != s.opt.train_split) {
      split = e;
      break;
    }
  datasets::BatchStream stream(*s.data.ds, s.data.plan.stream_options(split, kReferenceSamples).shuffle(false));
  datasets::Batch batch;
  if (!stream.next(batch))
    throw UserError(s.data.ds->path().string() + ": split '" + split +
                    "' holds no samples to export a reference batch from");
  const Feed f = Feed::from(batch, s.data.plan, stream);
  models::ModelInput input;
  input.x = f.x;
  if (f.target.defined()) input.target_index = f.target;
  if (s.learner.model->masked_regression) {
    auto generator = models::make_generator(0);
    input.mask = s.learner.model->sample_mask(f.x.size(0), generator);
  }
  torch::NoGradGuard no_grad;
  const torch::Tensor output = s.learner.model->forward(input).output;
  c10::impl::GenericDict r(c10::StringType::get(), c10::AnyType::get());
  r.insert("split", split);
  r.insert("x", f.x.contiguous());
  if (input.target_index.defined()) r.insert("target_index", input.target_index.contiguous());
  if (input.mask.defined()) r.insert("mask", input.mask.contiguous());
  r.insert("output", output.contiguous());
  return r;
}

}  // namespace

void check_export_target(const plugins::ExportRequest& request) {
  const fs::path out = target_of(request);
  if (fs::exists(out) && !request.force)
    throw UserError(out.string() + ": exists already; `loci export --force` replaces it");
  if (fs::is_directory(out)) throw UserError(out.string() + ": is a folder; name the file to write");
}

void write_export(Session& s, const plugins::ExportRequest& request) {
  s.learner.model->eval();
  c10::Dict<std::string, at::Tensor> state;
  for (const auto& p : s.learner.model->named_parameters()) state.insert(p.key(), p.value().detach().contiguous());
  for (const auto& b : s.learner.model->named_buffers()) state.insert(b.key(), b.value().detach().contiguous());
  c10::impl::GenericDict root(c10::StringType::get(), c10::AnyType::get());
  root.insert("loci_export", static_cast<std::int64_t>(1));
  root.insert("config", model_config(s).dump());
  root.insert("run", s.folder.run.string());
  root.insert("epoch", s.schedule.state.epoch);
  root.insert("positions", s.data.positions.contiguous());
  root.insert("state", state);
  root.insert("reference", reference_batch(s));
  const std::vector<char> bytes = torch::pickle_save(root);
  const fs::path out = target_of(request);
  datasets::write_file_atomically(out, bytes.data(), bytes.size());
  std::cerr << "loci: " << out.string() << ": the model of " << s.folder.run.string() << " (epoch "
            << s.schedule.state.epoch << ") for torch.load; `from loci.torch import load_model`\n";
}

}  // namespace loci::torch_trainer
