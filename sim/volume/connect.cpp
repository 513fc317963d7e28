#include "sim/volume/connect.hpp"

#include <algorithm>
#include <map>

namespace loci::sim::volume {

namespace {

// Piece index of every vertex (pieces numbered in order of their first vertex) and each piece's size.
std::vector<std::int32_t> pieces(const FaceGraph& graph, const std::vector<std::int32_t>& part,
                                 std::vector<std::int64_t>& sizes) {
  std::vector<std::int32_t> piece(graph.size(), -1);
  std::vector<std::int32_t> stack;
  sizes.clear();
  for (std::size_t start = 0; start < graph.size(); ++start) {
    if (piece[start] >= 0) continue;
    const auto id = static_cast<std::int32_t>(sizes.size());
    std::int64_t size = 0;
    piece[start] = id;
    stack.push_back(static_cast<std::int32_t>(start));
    while (!stack.empty()) {
      const auto v = static_cast<std::size_t>(stack.back());
      stack.pop_back();
      ++size;
      for (const auto n : graph[v])
        if (n >= 0 && piece[static_cast<std::size_t>(n)] < 0 && part[static_cast<std::size_t>(n)] == part[v]) {
          piece[static_cast<std::size_t>(n)] = id;
          stack.push_back(n);
        }
    }
    sizes.push_back(size);
  }
  return piece;
}

}  // namespace

std::int64_t merge_fragments(const FaceGraph& graph, std::vector<std::int32_t>& part) {
  std::vector<std::int64_t> sizes;
  std::vector<std::int32_t> piece = pieces(graph, part, sizes);
  // The kept piece of each part; pieces are numbered in order of their first vertex, so ties keep the first.
  std::map<std::int32_t, std::int32_t> kept_of;
  std::vector<std::int32_t> owner(sizes.size());  // the part of each piece
  for (std::size_t v = 0; v < graph.size(); ++v) owner[static_cast<std::size_t>(piece[v])] = part[v];
  for (std::size_t p = 0; p < sizes.size(); ++p) {
    auto [it, fresh] = kept_of.emplace(owner[p], static_cast<std::int32_t>(p));
    if (!fresh && sizes[p] > sizes[static_cast<std::size_t>(it->second)]) it->second = static_cast<std::int32_t>(p);
  }
  std::vector<char> kept(sizes.size(), 0);
  for (const auto& [who, p] : kept_of) kept[static_cast<std::size_t>(p)] = 1;

  std::vector<std::vector<std::int32_t>> members(sizes.size());
  for (std::size_t v = 0; v < graph.size(); ++v)
    members[static_cast<std::size_t>(piece[v])].push_back(static_cast<std::int32_t>(v));
  std::vector<std::size_t> orphans;
  for (std::size_t p = 0; p < sizes.size(); ++p)
    if (!kept[p]) orphans.push_back(p);

  std::int64_t moved = 0;
  while (!orphans.empty()) {
    std::vector<std::size_t> waiting;
    for (const std::size_t p : orphans) {
      std::map<std::int32_t, std::int64_t> faces;  // part -> faces shared with its kept piece
      for (const auto v : members[p])
        for (const auto n : graph[static_cast<std::size_t>(v)])
          if (n >= 0 && kept[static_cast<std::size_t>(piece[static_cast<std::size_t>(n)])] &&
              piece[static_cast<std::size_t>(n)] != static_cast<std::int32_t>(p))
            ++faces[part[static_cast<std::size_t>(n)]];
      if (faces.empty()) {
        waiting.push_back(p);
        continue;
      }
      const auto best = std::max_element(faces.begin(), faces.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
      const std::int32_t target = kept_of.at(best->first);
      for (const auto v : members[p]) {
        part[static_cast<std::size_t>(v)] = best->first;
        piece[static_cast<std::size_t>(v)] = target;  // now part of its new part's kept piece
      }
      moved += static_cast<std::int64_t>(members[p].size());
    }
    if (waiting.size() == orphans.size()) break;  // a graph in several pieces: nothing more can join
    orphans.swap(waiting);
  }
  return moved;
}

std::int64_t count_pieces(const LabelVolume& volume, std::int32_t label) {
  const auto& g = volume.grid;
  std::vector<char> seen(volume.labels.size(), 0);
  std::vector<std::int64_t> stack;
  std::int64_t count = 0;
  for (std::int64_t start = 0; start < g.voxels(); ++start) {
    if (volume.labels[static_cast<std::size_t>(start)] != label || seen[static_cast<std::size_t>(start)]) continue;
    ++count;
    seen[static_cast<std::size_t>(start)] = 1;
    stack.push_back(start);
    while (!stack.empty()) {
      const auto v = stack.back();
      stack.pop_back();
      for (const auto n : face_neighbours(g, v))
        if (n >= 0 && !seen[static_cast<std::size_t>(n)] && volume.labels[static_cast<std::size_t>(n)] == label) {
          seen[static_cast<std::size_t>(n)] = 1;
          stack.push_back(n);
        }
    }
  }
  return count;
}

}  // namespace loci::sim::volume
