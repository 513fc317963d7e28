// dataset_card.md: YAML front matter in the style of a Hugging Face dataset card (so hubs and people read the
// same facts), then the generator's prose and the exact command that regenerates the folder.
#pragma once

#include <string>

#include "datasets/index.hpp"

namespace loci::data {

struct CardText {
  std::string pretty_name;
  std::string license = "cc-by-4.0";
  std::string prose;                 // what was simulated and what /positions means
  std::string regenerate_command;
};

std::string dataset_card(const Index& index, const CardText& text);

// Hugging Face's buckets: "n<1K", "1K<n<10K", ...
std::string size_category(std::int64_t samples);

}  // namespace loci::data
