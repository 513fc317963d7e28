#include "data_feed.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace loci::torch_trainer {

namespace {

torch::ScalarType scalar_type(datasets::DType t, const std::string& name) {
  switch (t) {
    case datasets::DType::u8:
      return torch::kUInt8;
    case datasets::DType::i8:
      return torch::kInt8;
    case datasets::DType::i16:
      return torch::kInt16;
    case datasets::DType::i32:
      return torch::kInt32;
    case datasets::DType::i64:
      return torch::kInt64;
    case datasets::DType::f32:
      return torch::kFloat32;
    case datasets::DType::f64:
      return torch::kFloat64;
    default:
      throw UserError("array '" + name + "' is " + datasets::dtype_name(t) + ", which the trainer cannot read");
  }
}

torch::Tensor as_tensor(const datasets::Batch& b, std::size_t i, const datasets::ArrayInfo& info,
                        std::vector<std::int64_t> shape) {
  auto* bytes = const_cast<std::uint8_t*>(b.arrays.at(i).data());
  // from_blob borrows the batch's bytes; the conversion copies them into a tensor the model owns.
  return torch::from_blob(bytes, shape, scalar_type(info.dtype, info.name)).clone();
}

std::vector<std::string> split_names(const std::string& csv) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= csv.size()) {
    auto comma = csv.find(',', start);
    out.push_back(csv.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::vector<std::string> FeedPlan::arrays() const {
  std::vector<std::string> a{input};
  if (task == Task::classification) a.push_back(label);
  if (!target_token.empty()) a.push_back(target_token);
  if (!condition.empty()) a.push_back(condition);
  if (!dense_label.empty()) a.push_back(dense_label);
  return a;
}

datasets::BatchStreamOptions FeedPlan::stream_options(const std::string& split, std::int64_t batch_size) const {
  return datasets::BatchStreamOptions(split, arrays(), batch_size).limit(split == train_split ? train_samples : 0);
}

FeedPlan plan_feed(const datasets::Dataset& ds, const TrainOptions& opt) {
  auto has = [&](const std::string& name) {
    const auto& arrays = ds.arrays();
    return std::any_of(arrays.begin(), arrays.end(), [&](const datasets::ArrayInfo& a) { return a.name == name; });
  };
  const std::string where = ds.path().string() + ": ";
  FeedPlan p;
  p.task = opt.task ? *opt.task : has(opt.label) ? Task::classification : Task::masked_regression;

  if (p.task != Task::classification && opt.objective != Objective::readout)
    throw UserError(where + "task.objective " + choice_name(opt.objective) +
                    " supervises classes per token; this dataset trains " + "masked_regression (no '" + opt.label +
                    "'), where every masked token is a target already");
  p.train_split = opt.train_split;
  if (opt.data_fraction < 1)
    p.train_samples =
        std::max<std::int64_t>(1, std::llround(opt.data_fraction * static_cast<double>(ds.samples(opt.train_split))));
  p.input = opt.input;
  if (p.input == "auto") p.input = has("tokens") ? "tokens" : "activity";
  if (!has(p.input)) throw UserError(where + "no per-sample array '" + p.input + "' to use as input (task.input)");
  const auto& in = ds.array(p.input);
  if (in.shape.size() != 2)
    throw UserError(where + "input '" + p.input + "' is " + datasets::describe_type(in) +
                    "; the trainer needs [token, channel]");
  p.tokens = in.shape[0];
  p.channels = in.shape[1];

  if (p.task == Task::classification) {
    if (!has(opt.label)) throw UserError(where + "no label array '" + opt.label + "' (task.label) for classification");
    const auto& l = ds.array(opt.label);
    if (!l.shape.empty()) throw UserError(where + "label '" + opt.label + "' must hold one value per sample");
    p.label = opt.label;
    p.classes = opt.classes;
    if (p.classes == 0) {
      const auto attrs = ds.attributes();
      if (auto it = attrs.find("grid_n"); it != attrs.end() && std::holds_alternative<std::int64_t>(it->second))
        p.classes = std::get<std::int64_t>(it->second);
      else if (auto c = attrs.find("classes"); c != attrs.end() && std::holds_alternative<std::int64_t>(c->second))
        p.classes = std::get<std::int64_t>(c->second);
      else
        throw UserError(where + "cannot tell the number of classes; set task.classes");
    }
    if (opt.objective == Objective::readout && opt.model.classification().pooling() == models::Pooling::target) {
      if (!has(opt.target_token)) throw UserError(where + "pooling: target needs the array '" + opt.target_token + "'");
      p.target_token = opt.target_token;
    }
    if (opt.objective != Objective::readout) {
      // Every token a target: its class per token, and the target cell, whose own token the accuracy reads.
      if (!has("solution") || ds.array("solution").shape != std::vector<std::int64_t>{p.tokens})
        throw UserError(where + "task.objective " + choice_name(opt.objective) +
                        " needs a per-sample array 'solution' [token] of " + std::to_string(p.tokens) +
                        " classes (an lst_grid dataset has one)");
      if (!has(opt.target_token))
        throw UserError(where + "task.objective " + choice_name(opt.objective) +
                        " reads accuracy at the target token: no array '" + opt.target_token + "' (task.target_token)");
      p.dense_label = "solution";
      p.dense_blank = opt.objective == Objective::dense_blank;
      p.target_token = opt.target_token;
    }
    if (has("condition")) {
      p.condition = "condition";
      const auto attrs = ds.attributes();
      if (auto it = attrs.find("condition_names"); it != attrs.end() && std::holds_alternative<std::string>(it->second))
        p.condition_names = split_names(std::get<std::string>(it->second));
    }
  }
  return p;
}

nlohmann::ordered_json task_record(const FeedPlan& plan) {
  const bool classifies = plan.task == Task::classification;
  return {{"type", classifies ? "classification" : "masked_regression"},
          {"input", plan.input},
          {"classes", classifies ? nlohmann::ordered_json(plan.classes) : nlohmann::ordered_json(nullptr)}};
}

namespace {

// A label, target cell or condition outside what the dataset declares would index past a table (an internal
// error deep in LibTorch) or be counted under no name (silently); it is the data's mistake, named by sample.
void check_range(const torch::Tensor& values, std::int64_t limit, const std::string& what, const datasets::Batch& batch,
                 const datasets::BatchStream& stream) {
  if (!values.defined() || values.numel() == 0 || limit <= 0) return;
  const auto bad = (values < 0).logical_or(values >= limit).nonzero();
  if (bad.numel() == 0) return;
  const auto k = static_cast<std::size_t>(bad[0][0].item<std::int64_t>());
  throw UserError(stream.dataset_path().string() + ": sample " + std::to_string(batch.sample_ids[k]) + " of split '" +
                  stream.split() + "' has " + what + " " +
                  std::to_string(values[static_cast<std::int64_t>(k)].item<std::int64_t>()) + ", outside 0.." +
                  std::to_string(limit - 1));
}

}  // namespace

void check_ranges(const Feed& f, const FeedPlan& plan, const datasets::Batch& batch,
                  const datasets::BatchStream& stream) {
  check_range(f.label, plan.classes, "label", batch, stream);
  check_range(f.target, plan.tokens, "target token", batch, stream);
  check_range(f.condition, static_cast<std::int64_t>(plan.condition_names.size()), "condition", batch, stream);
  if (f.dense.defined()) {
    const auto bad = (f.dense < 0).logical_or(f.dense >= plan.classes).any(1).nonzero();
    if (bad.numel() > 0)
      throw UserError(stream.dataset_path().string() + ": sample " +
                      std::to_string(batch.sample_ids[static_cast<std::size_t>(bad[0][0].item<std::int64_t>())]) +
                      " of split '" + stream.split() + "' has a 'solution' symbol outside 1.." +
                      std::to_string(plan.classes));
  }
}

Feed Feed::from(const datasets::Batch& batch, const FeedPlan& plan, const datasets::BatchStream& stream) {
  Feed f;
  const auto& infos = stream.arrays();
  std::size_t i = 0;
  f.x = as_tensor(batch, i, infos[i], {batch.size, plan.tokens, plan.channels}).to(torch::kFloat32);
  ++i;
  if (plan.task == Task::classification) {
    f.label = as_tensor(batch, i, infos[i], {batch.size}).to(torch::kInt64);
    ++i;
  }
  if (!plan.target_token.empty()) {
    f.target = as_tensor(batch, i, infos[i], {batch.size}).to(torch::kInt64);
    ++i;
  }
  if (!plan.condition.empty()) {
    f.condition = as_tensor(batch, i, infos[i], {batch.size}).to(torch::kInt64);
    ++i;
  }
  if (!plan.dense_label.empty()) {
    // The LST stores symbols 1..N: class = symbol - 1, as its `label`.
    f.dense = as_tensor(batch, i, infos[i], {batch.size, plan.tokens}).to(torch::kInt64) - 1;
    if (plan.dense_blank) f.counted = f.x.narrow(2, 0, plan.classes).abs().sum(2).eq(0);
  }
  check_ranges(f, plan, batch, stream);
  return f;
}

}  // namespace loci::torch_trainer
