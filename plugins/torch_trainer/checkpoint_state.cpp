#include "checkpoint_state.hpp"
#include "run_identity.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <sstream>

#include "core/error.hpp"
#include "core/printable.hpp"
#include "core/sha256.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/bounded_read.hpp"
#include "datasets/checked_file.hpp"
#include "models/checkpoint.hpp"

namespace loci::torch_trainer {

namespace {

// SHA-256 of the model's parameters and buffers, in their order, as stored: a damaged checkpoint whose archive
// still opens (LibTorch checks no checksum of tensor data) would otherwise resume silently from wrong weights.
std::string weights_digest(models::Model& model) {
  std::string bytes;
  auto add = [&](const torch::Tensor& t) {
    const torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
    bytes.append(static_cast<const char*>(c.data_ptr()), c.nbytes());
  };
  for (const auto& p : model->parameters()) add(p);
  for (const auto& b : model->buffers()) add(b);
  return sha256_hex(bytes.data(), bytes.size());
}

// LibTorch's messages run to many lines (a C++ trace): the first, with its bytes escaped (core/printable.hpp).
std::string one_line(const std::string& what) { return printable(what.substr(0, what.find('\n'))); }

}  // namespace

void save_checkpoint(const std::filesystem::path& file, models::Model& model, torch::optim::Optimizer& optimizer,
                     const RunState& state, const std::vector<std::string>& condition_names,
                     const config::FlatConfig& run) {
  torch::serialize::OutputArchive archive;
  models::save_module(*model, archive, "model");
  torch::serialize::OutputArchive opt_archive;
  optimizer.save(opt_archive);
  archive.write("optimizer", opt_archive);

  nlohmann::ordered_json j;
  j["run_identity"] = run;  // the run's keys and values, train.epochs aside
  j["weights_sha256"] = weights_digest(model);
  j["epoch"] = state.epoch;
  j["step"] = state.step;
  j["seconds"] = state.seconds;
  j["best_loss"] = state.best_loss;
  j["evals_without_improvement"] = state.evals_without_improvement;
  j["best_checkpoint_loss"] = state.best_checkpoint_loss;
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : state.rows) j["rows"].push_back(to_json(r, condition_names));
  j["pe_epochs"] = nlohmann::ordered_json::array();
  for (const auto& h : state.pe_history) j["pe_epochs"].push_back({h.epoch, h.step});
  j["attention_blocks"] = state.pe_history.empty() ? 0 : state.pe_history.front().attention.size();
  j["position_logit_blocks"] = state.pe_history.empty() ? 0 : state.pe_history.front().position_logits.size();
  archive.write("state_json", c10::IValue(j.dump()));
  for (std::size_t e = 0; e < state.pe_history.size(); ++e) {
    for (std::size_t p = 0; p < state.pe_history[e].matrices.size(); ++p) {
      const auto& t = state.pe_history[e].matrices[p];
      archive.write("pe_" + std::to_string(e) + "_" + std::to_string(p), t.defined() ? t : torch::empty({0}),
                    /*is_buffer=*/true);
    }
    for (std::size_t b = 0; b < state.pe_history[e].attention.size(); ++b)
      archive.write("attention_" + std::to_string(e) + "_" + std::to_string(b), state.pe_history[e].attention[b],
                    /*is_buffer=*/true);
    // Snapshots restored from a checkpoint older than the term have none: they are written as absent.
    if (state.pe_history[e].position_logits.size() == state.pe_history.front().position_logits.size())
      for (std::size_t b = 0; b < state.pe_history[e].position_logits.size(); ++b)
        archive.write("position_logits_" + std::to_string(e) + "_" + std::to_string(b),
                      state.pe_history[e].position_logits[b], /*is_buffer=*/true);
  }

  // Serialised in memory, then written like a shard (temporary, fsync, rename): LibTorch's own file writer throws
  // from its destructor when the disk fills, which ends the process; this way a full disk is one DataError naming
  // the file, the temporary is removed and the previous checkpoint stays.
  std::ostringstream bytes;
  try {
    archive.save_to(bytes);
  } catch (const std::exception& e) {
    throw UserError(file.string() + ": cannot serialise the checkpoint (" +
                    std::string(e.what()).substr(0, std::string(e.what()).find('\n')) + ")");
  }
  datasets::write_checked(file, bytes.str());
}

RunState load_checkpoint(const std::filesystem::path& file, models::Model& model, torch::optim::Optimizer& optimizer,
                         const config::FlatConfig& run) {
  datasets::verify_checked(file, "continue from another checkpoint (--from), or remove it to start the run afresh");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(file.string());
  } catch (const std::exception& e) {
    throw UserError(file.string() + ": not a readable checkpoint (" + one_line(e.what()) + ")");
  }
  try {
    models::load_module(*model, archive, "model");
    torch::serialize::InputArchive opt_archive;
    archive.read("optimizer", opt_archive);
    optimizer.load(opt_archive);
  } catch (const std::exception& e) {
    throw UserError(file.string() +
                    ": does not fit this run's model or optimizer (was the config changed?): " + one_line(e.what()));
  }

  nlohmann::ordered_json j;
  try {
    c10::IValue json_value;
    archive.read("state_json", json_value);
    j = nlohmann::ordered_json::parse(json_value.toStringRef());
  } catch (const std::exception& e) {
    throw UserError(file.string() + ": its training state is unreadable (the file is damaged): " + one_line(e.what()));
  }
  // Another run's checkpoint of the same shape loads without complaint; only its record tells it apart.
  if (j.contains("run_identity") && j["run_identity"].is_object()) {
    config::FlatConfig recorded;
    for (const auto& [k, v] : j["run_identity"].items())
      if (v.is_string()) recorded[k] = v.get<std::string>();
    recorded = with_keys_added_later(std::move(recorded));
    if (!config::same_settings(recorded, run))
      throw UserError(file.string() + ": a checkpoint of another run (" +
                      config::describe_difference(recorded, run, 3) +
                      "); it was copied or swapped in: put back this run's own, or remove it to start the run afresh");
  }
  // Absent in checkpoints written before the digest was recorded.
  const std::string digest = j.value("weights_sha256", std::string());
  if (!digest.empty() && digest != weights_digest(model))
    throw UserError(file.string() +
                    ": its weights do not match the checksum recorded with them (the file is "
                    "damaged); continue from another checkpoint (--from), or remove it to start the run afresh");
  RunState s;
  s.epoch = j.at("epoch").get<std::int64_t>();
  s.step = j.at("step").get<std::int64_t>();
  s.seconds = j.at("seconds").get<double>();
  s.best_loss = j.at("best_loss").get<double>();
  s.evals_without_improvement = j.at("evals_without_improvement").get<std::int64_t>();
  s.best_checkpoint_loss = j.value("best_checkpoint_loss", 1e300);
  for (const auto& r : j.at("rows")) s.rows.push_back(row_from_json(r));
  const std::size_t placements = model->pe_matrices().size();
  const std::size_t attention_blocks = j.value("attention_blocks", std::size_t{0});
  const std::size_t logit_blocks = j.value("position_logit_blocks", std::size_t{0});
  std::size_t e = 0;
  for (const auto& pe : j.at("pe_epochs")) {
    PeSnapshot snap;
    snap.epoch = pe.at(0).get<std::int64_t>();
    snap.step = pe.at(1).get<std::int64_t>();
    for (std::size_t p = 0; p < placements; ++p) {
      torch::Tensor t;
      archive.read("pe_" + std::to_string(e) + "_" + std::to_string(p), t, /*is_buffer=*/true);
      snap.matrices.push_back(t);
    }
    for (std::size_t b = 0; b < attention_blocks; ++b) {
      torch::Tensor t;
      archive.read("attention_" + std::to_string(e) + "_" + std::to_string(b), t, /*is_buffer=*/true);
      snap.attention.push_back(t);
    }
    for (std::size_t b = 0; b < logit_blocks; ++b) {
      torch::Tensor t;
      // Absent in the snapshots restored from an older checkpoint and written back (see save_checkpoint).
      if (!archive.try_read("position_logits_" + std::to_string(e) + "_" + std::to_string(b), t, /*is_buffer=*/true)) {
        snap.position_logits.clear();
        break;
      }
      snap.position_logits.push_back(t);
    }
    s.pe_history.push_back(std::move(snap));
    ++e;
  }
  return s;
}

}  // namespace loci::torch_trainer
