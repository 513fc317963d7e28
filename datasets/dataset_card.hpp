// dataset_card.md: YAML front matter in the style of a Hugging Face dataset card (so hubs and people read the
// same facts), then the generator's prose and the exact command that regenerates the folder.
#pragma once

#include <string>

#include "datasets/index.hpp"

namespace loci::datasets {

struct CardText {
  std::string pretty_name;
  std::string license = "cc-by-4.0";
  std::string prose;  // what was simulated and what /positions means
  std::string regenerate_command;
};

std::string dataset_card(const Index& index, const CardText& text);

// Hugging Face's buckets: "n<1K", "1K<n<10K", ...
std::string size_category(std::int64_t samples);

// Text from a user's files (region names, say) as the card's Markdown shows it literally: HTML's &, <, > as
// entities and Markdown's own marks escaped, so that no name becomes markup, a link or a script on a hub's page.
std::string card_literal(const std::string& text);
// A path or value as a code span that no backtick inside it can end early.
std::string card_code(const std::string& text);

}  // namespace loci::datasets
