#include "train_options.hpp"

namespace loci::torch_trainer {

TrainOptions read_options(const config::Node& r) {
  TrainOptions o;
  o.data = r.at("data").text();
  o.out = r.at("out").text();
  o.seed = static_cast<std::uint64_t>(r.at("seed").as_int());
  o.task = r.at("task.type").text();
  o.input = r.at("task.input").text();
  o.label = r.at("task.label").text();
  o.target_token = r.at("task.target_token").text();
  o.classes = r.at("task.classes").as_int();
  o.train_split = r.at("task.train_split").text();
  for (const auto& s : r.at("task.eval_splits").items()) o.eval_splits.push_back(s.text());

  const auto& t = r.at("train");
  o.optimizer = t.at("optimizer").text();
  o.lr = t.at("lr").as_double();
  o.weight_decay = t.at("weight_decay").as_double();
  o.momentum = t.at("momentum").as_double();
  o.schedule = t.at("schedule").text();
  o.warmup_steps = t.at("warmup_steps").as_int();
  o.min_lr = t.at("min_lr").as_double();
  o.clip_grad_norm = t.at("clip_grad_norm").as_double();
  o.epochs = t.at("epochs").as_int();
  o.steps = t.at("steps").as_int();
  o.batch_size = t.at("batch_size").as_int();
  o.eval_batch_size = t.at("eval_batch_size").as_int();
  o.eval_every = t.at("eval_every").as_int();
  o.threads = static_cast<int>(t.at("threads").as_int());
  o.micro_batches = static_cast<int>(t.at("micro_batches").as_int());
  o.dist_timeout = t.at("dist_timeout").as_int();
  o.early_stop_patience = t.at("early_stop_patience").as_int();
  o.early_stop_split = t.at("early_stop_split").text();
  o.early_stop_min_delta = t.at("early_stop_min_delta").as_double();
  o.device = t.at("device").text();
  o.precision = t.at("precision").text();
  o.save_attention = t.at("save_attention").as_bool();
  o.attention_split = t.at("attention_split").text();
  o.progress = t.at("progress").as_bool();

  const auto& m = r.at("model");
  const auto& pe = m.at("pe");
  models::InitOptions init;
  init.name(pe.at("init.name").text())
      .std(pe.at("init.std").as_double())
      .a(pe.at("init.a").as_double())
      .gain(pe.at("init.gain").as_double())
      .scale(pe.at("init.scale").as_double());
  models::PEOptions pe_opt;
  pe_opt.type(pe.at("type").text())
      .placement(pe.at("placement").text())
      .init(init)
      .base(pe.at("base").as_double())
      .coordinate_scale(pe.at("coordinate_scale").as_double())
      .sinusoidal_dropout(pe.at("sinusoidal_dropout").as_double())
      .dropout_at_eval(pe.at("dropout_at_eval").as_bool())
      .variant(pe.at("variant").text())
      .offsets(pe.at("offsets").text())
      .max_distance(pe.at("max_distance").as_int());
  models::EncoderOptions enc;
  enc.d_model(m.at("d_model").as_int())
      .blocks(m.at("blocks").as_int())
      .heads(m.at("heads").as_int())
      .mlp_ratio(m.at("mlp_ratio").as_double())
      .activation(m.at("activation").text())
      .activation_after_both(m.at("activation_after_both").as_bool())
      .norm(m.at("norm").text())
      .final_norm(m.at("final_norm").as_bool())
      .dropout(m.at("dropout").as_double())
      .pe(pe_opt);
  o.model.encoder(enc);
  o.model.classification().pooling(m.at("pooling").text());
  o.model.masked_regression().mask_ratio_train(m.at("mask_ratio_train").as_double());
  o.model.masked_regression().mask_ratio_eval(m.at("mask_ratio_eval").as_double());
  return o;
}

}  // namespace loci::torch_trainer
