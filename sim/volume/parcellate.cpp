#include "sim/volume/parcellate.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "sim/random/stream.hpp"
#include "sim/volume/connect.hpp"

namespace loci::sim::volume {

namespace {

constexpr double kPi = 3.14159265358979323846;
// Voxel centres closer to the plane x = 0 than this (mm) lie on it.
constexpr double kMidline = 1e-6;
// Each Lloyd step adds gain * (target - size) / target * R^2 to a parcel's weight, R the radius of a ball of the
// target size. A weight change of w moves a cell's border by about w / (4R), so its volume by 3w / (4R^2) of
// itself: a gain of 1/2 closes about a third of the gap per step, slowly enough that neighbours do not oscillate.
constexpr double kGain = 0.5;

// A region: one connected piece of one mask label, its voxels in voxel order and their face graph.
struct Region {
  std::vector<std::int64_t> voxels;
  std::vector<double> x, y, z;
  FaceGraph graph;
  std::int64_t parcels = 0;
};

// Seeds and weights of one region's parcels.
struct Sites {
  std::vector<double> x, y, z, w;
  std::size_t size() const { return x.size(); }
  void add(double px, double py, double pz, double pw) {
    x.push_back(px), y.push_back(py), z.push_back(pz), w.push_back(pw);
  }
};

int team(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

// The voxels with region_of[v] = r, for each r < count, in voxel order, with their coordinates and face graph.
std::vector<Region> group(const Grid& grid, const std::vector<std::int32_t>& region_of, std::size_t count) {
  std::vector<Region> regions(count);
  std::vector<std::int32_t> local(region_of.size(), -1);
  for (std::int64_t v = 0; v < grid.voxels(); ++v) {
    const auto r = region_of[static_cast<std::size_t>(v)];
    if (r < 0) continue;
    Region& g = regions[static_cast<std::size_t>(r)];
    local[static_cast<std::size_t>(v)] = static_cast<std::int32_t>(g.voxels.size());
    g.voxels.push_back(v);
    const Eigen::Vector3d p = grid.mm(v);
    g.x.push_back(p.x()), g.y.push_back(p.y()), g.z.push_back(p.z());
  }
  for (std::size_t r = 0; r < count; ++r) {
    Region& g = regions[r];
    g.graph.resize(g.voxels.size());
    for (std::size_t i = 0; i < g.voxels.size(); ++i) {
      const auto around = face_neighbours(grid, g.voxels[i]);
      for (std::size_t f = 0; f < 6; ++f) {
        const auto n = around[f];
        g.graph[i][f] = n >= 0 && region_of[static_cast<std::size_t>(n)] == static_cast<std::int32_t>(r)
                            ? local[static_cast<std::size_t>(n)]
                            : -1;
      }
    }
  }
  return regions;
}

// Connected pieces of each label among the eligible voxels, numbered in voxel order.
std::vector<std::int32_t> label_pieces(const LabelVolume& mask, const std::vector<char>& eligible, std::size_t& count) {
  std::vector<std::int32_t> region_of(mask.labels.size(), -1);
  std::vector<std::int64_t> stack;
  count = 0;
  for (std::int64_t start = 0; start < mask.grid.voxels(); ++start) {
    if (!eligible[static_cast<std::size_t>(start)] || region_of[static_cast<std::size_t>(start)] >= 0) continue;
    const auto id = static_cast<std::int32_t>(count++);
    const auto label = mask.labels[static_cast<std::size_t>(start)];
    region_of[static_cast<std::size_t>(start)] = id;
    stack.push_back(start);
    while (!stack.empty()) {
      const auto v = stack.back();
      stack.pop_back();
      for (const auto n : face_neighbours(mask.grid, v))
        if (n >= 0 && eligible[static_cast<std::size_t>(n)] && region_of[static_cast<std::size_t>(n)] < 0 &&
            mask.labels[static_cast<std::size_t>(n)] == label) {
          region_of[static_cast<std::size_t>(n)] = id;
          stack.push_back(n);
        }
    }
  }
  return region_of;
}

// Largest remainder: `total` parcels in proportion to the regions' voxels (ties to the earlier region).
void allot(std::vector<Region>& regions, std::int64_t total) {
  std::int64_t voxels = 0;
  for (const auto& r : regions) voxels += static_cast<std::int64_t>(r.voxels.size());
  std::vector<std::pair<double, std::size_t>> remainder;
  std::int64_t given = 0;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    const double quota =
        static_cast<double>(total) * static_cast<double>(regions[i].voxels.size()) / static_cast<double>(voxels);
    regions[i].parcels = static_cast<std::int64_t>(std::floor(quota));
    given += regions[i].parcels;
    remainder.emplace_back(quota - std::floor(quota), i);
  }
  std::stable_sort(remainder.begin(), remainder.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::int64_t k = 0; k < total - given; ++k) ++regions[remainder[static_cast<std::size_t>(k)].second].parcels;
}

// Every voxel to its nearest site in the power distance (the lowest site on ties).
void assign(const Region& r, const Sites& s, std::vector<std::int32_t>& part, int threads) {
  const auto n = static_cast<std::int64_t>(r.voxels.size());
  const std::size_t k = s.size();
  part.resize(r.voxels.size());
#pragma omp parallel for num_threads(team(threads)) schedule(static)
  for (std::int64_t v = 0; v < n; ++v) {
    const auto i = static_cast<std::size_t>(v);
    double best = std::numeric_limits<double>::infinity();
    std::int32_t arg = 0;
    for (std::size_t p = 0; p < k; ++p) {
      const double dx = r.x[i] - s.x[p], dy = r.y[i] - s.y[p], dz = r.z[i] - s.z[p];
      const double d = dx * dx + dy * dy + dz * dz - s.w[p];
      if (d < best) best = d, arg = static_cast<std::int32_t>(p);
    }
    part[i] = arg;
  }
}

Sites farthest_points(const Region& r, std::int64_t k, Rng& rng) {
  Sites s;
  const std::size_t n = r.voxels.size();
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
  std::size_t next = static_cast<std::size_t>(rng.below(n));
  for (std::int64_t j = 0; j < k; ++j) {
    s.add(r.x[next], r.y[next], r.z[next], 0.0);
    std::size_t far = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double dx = r.x[i] - r.x[next], dy = r.y[i] - r.y[next], dz = r.z[i] - r.z[next];
      nearest[i] = std::min(nearest[i], dx * dx + dy * dy + dz * dz);
      if (nearest[i] > nearest[far]) far = i;
    }
    next = far;
  }
  return s;
}

// Lloyd steps from farthest-point seeds, then the final assignment, repaired to connected parcels.
Sites solve(const Region& r, const ParcellationOptions& o, double voxel_volume, Rng& rng,
            std::vector<std::int32_t>& part, std::int64_t& moved) {
  const auto k = static_cast<std::size_t>(r.parcels);
  Sites s = farthest_points(r, r.parcels, rng);
  const double target = static_cast<double>(r.voxels.size()) / static_cast<double>(k);
  const double radius2 = std::pow(3.0 * target * voxel_volume / (4.0 * kPi), 2.0 / 3.0);
  std::vector<double> size(k), sx(k), sy(k), sz(k);
  for (int step = 0; step < o.lloyd_steps(); ++step) {
    assign(r, s, part, o.threads());
    std::fill(size.begin(), size.end(), 0.0), std::fill(sx.begin(), sx.end(), 0.0);
    std::fill(sy.begin(), sy.end(), 0.0), std::fill(sz.begin(), sz.end(), 0.0);
    for (std::size_t i = 0; i < part.size(); ++i) {
      const auto p = static_cast<std::size_t>(part[i]);
      size[p] += 1, sx[p] += r.x[i], sy[p] += r.y[i], sz[p] += r.z[i];
    }
    const auto largest = static_cast<std::size_t>(std::max_element(size.begin(), size.end()) - size.begin());
    for (std::size_t p = 0; p < k; ++p) {
      if (size[p] == 0) {
        // An empty cell restarts at the voxel of the largest parcel farthest from that parcel's seed.
        std::size_t far = 0;
        double d_far = -1;
        for (std::size_t i = 0; i < part.size(); ++i) {
          if (static_cast<std::size_t>(part[i]) != largest) continue;
          const double dx = r.x[i] - s.x[largest], dy = r.y[i] - s.y[largest], dz = r.z[i] - s.z[largest];
          if (dx * dx + dy * dy + dz * dz > d_far) d_far = dx * dx + dy * dy + dz * dz, far = i;
        }
        s.x[p] = r.x[far], s.y[p] = r.y[far], s.z[p] = r.z[far], s.w[p] = s.w[largest];
        continue;
      }
      s.x[p] = sx[p] / size[p], s.y[p] = sy[p] / size[p], s.z[p] = sz[p] / size[p];
      if (o.size_spread() > 0) s.w[p] += kGain * (target - size[p]) / target * radius2;
    }
  }
  assign(r, s, part, o.threads());
  moved += merge_fragments(r.graph, part);
  return s;
}

// Which voxels take part, and the mirror map when mirroring (checked for a symmetric support).
std::vector<char> eligible_voxels(const LabelVolume& mask, bool mirror, std::vector<std::int64_t>& image,
                                  std::int64_t& dropped) {
  std::vector<char> eligible(mask.labels.size(), 0);
  if (mirror) image = mirror_map(mask.grid);
  for (std::int64_t v = 0; v < mask.grid.voxels(); ++v) {
    if (mask.labels[static_cast<std::size_t>(v)] == 0) continue;
    if (!mirror) {
      eligible[static_cast<std::size_t>(v)] = 1;
      continue;
    }
    const double x = mask.grid.mm(v).x();
    if (std::abs(x) < kMidline) {
      ++dropped;
      continue;
    }
    const auto m = image[static_cast<std::size_t>(v)];
    if (m < 0 || mask.labels[static_cast<std::size_t>(m)] == 0) {
      const auto p = mask.grid.mm(v);
      std::ostringstream s;
      s << "mirror: the mask is not symmetric about x = 0: the voxel at (" << p.x() << ", " << p.y() << ", " << p.z()
        << ") mm has no mirror image in it (parcellate it without mirroring)";
      throw std::invalid_argument(s.str());
    }
    if (x < 0) eligible[static_cast<std::size_t>(v)] = 1;
  }
  return eligible;
}

// Writes the parcels of every region into `out` (ids 1.. in region order) and, when mirrored, their images.
void compose(const std::vector<Region>& regions, const std::vector<std::vector<std::int32_t>>& parts,
             const std::vector<Sites>& sites, const std::vector<std::int64_t>& image, Parcellation& out) {
  std::int64_t half = 0;
  for (const auto& r : regions) half += r.parcels;
  const std::int64_t total = out.mirrored ? 2 * half : half;
  out.seeds.resize(total, 3);
  out.weights.assign(static_cast<std::size_t>(total), 0.0);
  out.region.assign(static_cast<std::size_t>(total), 0);
  std::int64_t first = 0;
  for (std::size_t r = 0; r < regions.size(); ++r) {
    for (std::size_t i = 0; i < regions[r].voxels.size(); ++i) {
      const std::int64_t id = first + parts[r][i] + 1;
      out.labels.labels[static_cast<std::size_t>(regions[r].voxels[i])] = static_cast<std::int32_t>(id);
      if (out.mirrored)
        out.labels.labels[static_cast<std::size_t>(image[static_cast<std::size_t>(regions[r].voxels[i])])] =
            static_cast<std::int32_t>(id + half);
    }
    for (std::int64_t p = 0; p < regions[r].parcels; ++p) {
      const auto q = static_cast<std::size_t>(p);
      auto set = [&](std::int64_t id, double sign, std::size_t region) {
        out.seeds.row(id) << sign * sites[r].x[q], sites[r].y[q], sites[r].z[q];
        out.weights[static_cast<std::size_t>(id)] = sites[r].w[q];
        out.region[static_cast<std::size_t>(id)] = static_cast<std::int32_t>(region);
      };
      set(first + p, 1.0, r);
      if (out.mirrored) set(first + p + half, -1.0, r + regions.size());  // the image of its left twin
    }
    first += regions[r].parcels;
  }
}

void check_spread(const Parcellation& p, const std::vector<Region>& regions, const ParcellationOptions& o) {
  if (!(o.size_spread() > 0)) return;
  std::vector<std::int64_t> size(static_cast<std::size_t>(p.seeds.rows()), 0);
  for (const auto l : p.labels.labels)
    if (l > 0) ++size[static_cast<std::size_t>(l - 1)];
  std::int64_t first = 0;
  for (const auto& r : regions) {
    const double mean = static_cast<double>(r.voxels.size()) / static_cast<double>(r.parcels);
    for (std::int64_t q = first; q < first + r.parcels; ++q) {
      const double s = static_cast<double>(size[static_cast<std::size_t>(q)]);
      if (std::abs(s - mean) > o.size_spread() * mean) {
        std::ostringstream m;
        m << "parcellation: after " << o.lloyd_steps() << " Lloyd steps parcel " << q + 1 << " has " << s
          << " voxels, more than " << o.size_spread() * 100 << "% from its region's mean of " << mean
          << ": allow more lloyd_steps or a larger size_spread";
        throw std::runtime_error(m.str());
      }
    }
    first += r.parcels;
  }
}

}  // namespace

Parcellation parcellate(const LabelVolume& mask, const ParcellationOptions& o, std::uint64_t seed) {
  if (o.parcels() < 1) throw std::invalid_argument("parcellation: parcels must be >= 1");
  if (o.mirror() && o.parcels() % 2 != 0)
    throw std::invalid_argument("parcellation: a mirrored parcellation needs an even number of parcels");
  if (o.lloyd_steps() < 0 || !(o.size_spread() >= 0))
    throw std::invalid_argument("parcellation: lloyd_steps and size_spread must be >= 0");
  Parcellation out;
  out.mirrored = o.mirror();
  std::vector<std::int64_t> image;
  const std::vector<char> eligible = eligible_voxels(mask, o.mirror(), image, out.dropped);
  std::size_t count = 0;
  const std::vector<std::int32_t> region_of = label_pieces(mask, eligible, count);
  std::vector<Region> regions = group(mask.grid, region_of, count);
  const std::int64_t wanted = o.mirror() ? o.parcels() / 2 : o.parcels();
  std::int64_t voxels = 0;
  for (const auto& r : regions) voxels += static_cast<std::int64_t>(r.voxels.size());
  if (wanted > voxels)
    throw std::invalid_argument("parcellation: " + std::to_string(o.parcels()) + " parcels for a mask of " +
                                std::to_string(o.mirror() ? 2 * voxels : voxels) + " voxels");
  allot(regions, wanted);
  // A piece that gets no parcel is left out.
  std::vector<Region> kept;
  for (auto& r : regions) {
    if (r.parcels > 0)
      kept.push_back(std::move(r));
    else
      out.dropped += static_cast<std::int64_t>(r.voxels.size()) * (o.mirror() ? 2 : 1);
  }
  std::vector<std::vector<std::int32_t>> parts(kept.size());
  std::vector<Sites> sites(kept.size());
  for (std::size_t r = 0; r < kept.size(); ++r) {
    Rng rng = Rng::stream(seed, "parcellation", r);
    sites[r] = solve(kept[r], o, mask.grid.voxel_volume_mm3(), rng, parts[r], out.moved);
  }
  out.labels.grid = mask.grid;
  out.labels.labels.assign(mask.labels.size(), 0);
  compose(kept, parts, sites, image, out);
  if (o.mirror()) out.moved *= 2;
  check_spread(out, kept, o);
  return out;
}

Parcellation jitter(const Parcellation& base, double jitter_mm, std::uint64_t seed, std::uint64_t subject,
                    int threads) {
  if (!(jitter_mm >= 0)) throw std::invalid_argument("parcellation: jitter must be >= 0 mm");
  const auto total = base.seeds.rows();
  const std::int64_t own = base.mirrored ? total / 2 : total;  // parcels that are not mirror images
  std::size_t count = 0;
  for (std::int64_t p = 0; p < own; ++p)
    count = std::max(count, static_cast<std::size_t>(base.region[static_cast<std::size_t>(p)]) + 1);
  std::vector<std::int32_t> region_of(base.labels.labels.size(), -1);
  for (std::size_t v = 0; v < region_of.size(); ++v) {
    const auto l = base.labels.labels[v];
    if (l > 0 && l <= own) region_of[v] = base.region[static_cast<std::size_t>(l - 1)];
  }
  std::vector<Region> regions = group(base.labels.grid, region_of, count);

  Rng rng = Rng::stream(seed, "jitter", subject);
  std::vector<Sites> sites(count);
  std::vector<std::int64_t> first(count, -1);  // each region's first parcel; its parcels are consecutive
  for (std::int64_t p = 0; p < own; ++p) {
    const auto r = static_cast<std::size_t>(base.region[static_cast<std::size_t>(p)]);
    if (first[r] < 0) first[r] = p;
    const double dx = rng.normal() * jitter_mm, dy = rng.normal() * jitter_mm, dz = rng.normal() * jitter_mm;
    sites[r].add(base.seeds(p, 0) + dx, base.seeds(p, 1) + dy, base.seeds(p, 2) + dz,
                 base.weights[static_cast<std::size_t>(p)]);
    ++regions[r].parcels;
  }
  std::vector<std::vector<std::int32_t>> parts(count);
  Parcellation out;
  out.mirrored = base.mirrored;
  out.dropped = base.dropped;
  for (std::size_t r = 0; r < count; ++r) {
    assign(regions[r], sites[r], parts[r], threads);
    out.moved += merge_fragments(regions[r].graph, parts[r]);
  }
  out.labels.grid = base.labels.grid;
  out.labels.labels.assign(base.labels.labels.size(), 0);
  std::vector<std::int64_t> image;
  if (base.mirrored) image = mirror_map(base.labels.grid);
  compose(regions, parts, sites, image, out);
  if (base.mirrored) out.moved *= 2;
  std::vector<std::int64_t> size(static_cast<std::size_t>(total), 0);
  for (const auto l : out.labels.labels)
    if (l > 0) ++size[static_cast<std::size_t>(l - 1)];
  for (std::int64_t p = 0; p < total; ++p)
    if (size[static_cast<std::size_t>(p)] == 0)
      throw std::runtime_error("parcellation: a jitter of " + std::to_string(jitter_mm) + " mm leaves parcel " +
                               std::to_string(p + 1) + " of subject " + std::to_string(subject) +
                               " empty: use a smaller jitter");
  return out;
}

}  // namespace loci::sim::volume
