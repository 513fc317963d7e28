#include "parcels_card.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "datasets/dataset_card.hpp"
#include "datasets/render.hpp"

namespace loci::volumetric_parcels {

namespace {

void describe_volume(std::ostringstream& s, const ParcelsOptions& o, const CardFacts& f) {
  if (o.mask == BrainMask::ellipsoid) {
    const auto& a = o.ellipsoid.semi_axes_mm();
    s << "The brain is an ellipsoid with semi-axes " << a.x() << ", " << a.y() << " and " << a.z()
      << " mm (x left-right, y, z), on a grid of " << f.grid << " centred on the origin, no voxel centre on x = 0"
      << (o.ellipsoid.hemispheres() ? "; it is split at x = 0 into two hemispheres that no parcel crosses" : "")
      << ".\n\n";
  } else {
    s << "The brain is the NIfTI label volume " << datasets::card_code(o.nifti) << " (";
    if (o.resample_mm > 0) s << "resampled to " << o.resample_mm << " mm by nearest voxel: ";
    s << f.grid << ", its sform or qform as affine)";
    if (f.atlas_parcels)
      s << ": its " << f.parcels << " labels, in ascending order, are the parcels.\n\n";
    else
      s << ": the union of its labels is the mask"
        << (o.atlas_labels == AtlasLabels::hemispheres ? ", split at x = 0 into two hemispheres that no parcel crosses"
                                                       : "")
        << ".\n\n";
  }
  if (!f.atlas_parcels) {
    s << f.parcels
      << " parcels: farthest-point seeds in each region of the mask (a connected piece of one mask label), "
      << "then " << o.parcellation.lloyd_steps() << " Lloyd steps";
    if (o.parcellation.size_spread() > 0)
      s << " with power-diagram weights that balance sizes (every parcel within +-"
        << o.parcellation.size_spread() * 100 << "% of its region's mean size)";
    s << "; every parcel is one face-connected piece (" << f.moved << " voxels moved to make it so)";
    if (o.parcellation.mirror())
      s << "; the left half (x < 0) was parcellated and mirrored, so parcel p + " << f.parcels / 2
        << " is the mirror image of parcel p";
    s << ". " << f.mask_voxels << " voxels are in parcels"
      << (f.dropped
              ? ", " + std::to_string(f.dropped) + " mask voxels in none (on x = 0 or in pieces too small for a parcel)"
              : "")
      << "; parcel volumes range over " << f.min_volume_mm3 << " .. " << f.max_volume_mm3 << " mm^3.";
    if (o.jitter_mm > 0)
      s << " Each subject has its own parcellation: the seeds moved by N(0, " << o.jitter_mm
        << "^2) mm per axis and the "
        << "voxels reassigned (parcel p stays parcel p; `/subject_positions` holds each subject's centroids).";
    s << "\n\n";
  }
}

void describe_activity(std::ostringstream& s, const ParcelsOptions& o) {
  const auto& a = o.activity;
  s << "Activity, one point every " << a.tr_s << " s: ";
  if (a.field_weight != 0)
    s << "a smooth random field in the volume (Gaussian-smoothed white noise, FWHM " << a.field.fwhm_mm()
      << " mm, unit variance, AR(1) in time with rho = " << a.field.rho()
      << "; its spatial correlation at distance d is exp(-d^2 / (4 sd^2)), sd = FWHM / 2.355) averaged over each parcel"
      << " (weight " << a.field_weight << ")";
  if (a.field_weight != 0 && a.network_weight != 0) s << ", plus ";
  if (a.network_weight != 0)
    s << "the `" << a.network.model << "` model of sim/dynamics on the parcels (weight " << a.network_weight
      << "), coupled by W_ij = exp(-d_ij / " << a.network.coupling_mm
      << " mm) between centroids with each column normalised, integrated by `" << a.network.integrator
      << "` with dt = " << a.network.simulation.dt() << ", " << a.network.simulation.subsample()
      << " steps per point after " << a.network.simulation.burn_in() << " burn-in steps";
  if (a.network_weight != 0 && a.network.velocity_m_s > 0)
    s << ", with conduction delays d_ij / " << a.network.velocity_m_s << " m/s rounded to whole steps of "
      << a.tr_s * 1e3 / static_cast<double>(a.network.simulation.subsample()) << " ms";
  s << "; each part is standardised per parcel before the weighted sum. ";
  if (a.balloon)
    s << "The sum drives the balloon-Windkessel model (kappa " << a.hemodynamics.kappa() << ", gamma "
      << a.hemodynamics.gamma() << ", tau " << a.hemodynamics.tau() << ", alpha " << a.hemodynamics.alpha() << ", E0 "
      << a.hemodynamics.e0() << ", V0 " << a.hemodynamics.v0() << ", input gain " << a.hemodynamics.gain()
      << ") and its BOLD signal is kept. ";
  s << "The first " << a.burn_in << " points of every subject are dropped; the signal is standardised per parcel and "
    << "white noise of sd " << a.observation_noise << " added.\n\n";
}

}  // namespace

std::string card_prose(const ParcelsOptions& o, const CardFacts& f) {
  std::ostringstream s;
  s << "3-D volumetric brain parcels (Experiment 3 of arXiv 2406.08272): one token per parcel, whose true position is "
       "its centroid in mm. ";
  if (o.imported() && o.voxel_series) {
    s << "Imported from the user's 4-D NIfTI runs, one per subject, all on the first run's grid (" << f.grid
      << "): one token per block of " << o.voxel_block << " x " << o.voxel_block << " x " << o.voxel_block
      << " voxels, " << f.parcels << " tokens; a token's series is the mean of its voxels, its position their mean in "
      << "mm; " << f.dropped << " voxels whose series is constant in the first run are left out. A sample is a window "
      << "of w = " << o.window << " points; a split holds every window of its subjects, subject after subject, windows "
      << "starting every " << o.stride << " points:\n\n";
  } else if (o.imported()) {
    s << "Imported from the user's files: the atlas " << datasets::card_code(o.atlas) << " ("
      << (f.has_volume
              ? "a NIfTI label volume; its " + std::to_string(f.parcels) + " labels in ascending order are the columns"
              : "a table of " + std::to_string(f.parcels) + " centroids in mm; no label volume, volumes or adjacency")
      << ") and one time series per subject (time x parcels). A sample is a window of w = " << o.window
      << " points; a split holds every window of its subjects, subject after subject, windows starting every "
      << o.stride << " points:\n\n";
  }
  if (o.imported()) {
    if (o.standardize)
      s << "Each token's series is z-scored over all of its subject file's time points before the splits take "
           "their points.\n\n";
    for (const auto& sp : o.imports) {
      s << "- `" << sp.name << "`: ";
      for (std::size_t k = 0; k < sp.files.size(); ++k) s << (k ? ", " : "") << datasets::card_code(sp.files[k]);
      s << "\n";
    }
    s << "\n";
    if (!o.region_map.empty()) {
      s << "The series' columns are placed at atlas regions by " << datasets::card_code(o.import_regions)
        << ", in its order (column -> region): ";
      for (std::size_t k = 0; k < o.region_map.size(); ++k)
        s << (k ? ", " : "") << datasets::card_literal(o.region_map[k].first) << " -> "
          << datasets::card_literal(o.region_map[k].second);
      s << ". Left out, with no region in that table: ";
      for (std::size_t k = 0; k < f.left_out.size(); ++k) s << (k ? ", " : "") << datasets::card_literal(f.left_out[k]);
      s << (f.left_out.empty() ? "none.\n\n" : ".\n\n");
    }
  } else {
    s << "\n\n";
    describe_volume(s, o, f);
    describe_activity(s, o);
    s << "A sample is a window of w = " << o.window << " points of one subject. Subjects are independent simulations "
      << "(their own field, network and noise streams, named by (seed, subject)); a split's windows come from its own "
      << "subjects, so test subjects are held out. Sample i of a split is window i div S of the split's subject i mod "
         "S "
      << "(S subjects), starting at point (i div S) * " << o.stride << ":\n\n";
    for (const auto& p : o.splits) {
      if (p.windows.samples == 0) continue;
      s << "- `" << p.name << "`: " << p.windows.samples << " windows from " << p.windows.used() << " subject(s) ("
        << p.first_subject << ".." << p.first_subject + p.windows.used() - 1 << "), " << p.windows.points()
        << " points each\n";
    }
    s << "\n";
  }
  s << "Per-sample arrays: `activity` (token x time, float32), `subject` (the subject's index) and `start` (the "
       "window's "
       "first point). Dataset arrays: `/positions` (token x axis, centroids in mm), `/distance` (between centroids, "
       "mm), `/hemisphere` (0 = left, centroid x < 0)";
  if (f.has_volume)
    s << ", `/adjacency` (1 where two parcels share a voxel face; " << f.edges << " pairs), `/volumes` (mm^3), "
      << "`/labels` (the label volume, indexed [x, y, z] like nibabel's array) with `/affine` (voxel (i, j, k, 1) to "
         "mm)";
  if (!f.token_labels.empty()) {
    s << ", `/atlas_label` (the atlas's own label of each parcel) and `/token_label` (its region name, from "
      << datasets::card_code(o.label_file) << ": ";
    for (std::size_t i = 0; i < f.token_labels.size() && i < 4; ++i)
      s << (i ? ", " : "") << datasets::card_literal(f.token_labels[i]);
    s << (f.token_labels.size() > 4 ? ", ...)" : ")");
  }
  if (o.imported())
    s << ".\n\nThe licence of imported data is its owner's: the card says `unknown` unless the config's `license` "
         "names "
         "it";
  s << ".\n\nTask: masked-region regression as in the paper: mask a share of the parcels (50% in training, 90% at test "
       "on held-out subjects), predict their values from the others, score MSE; compare the learned positional "
       "encoding with `/positions` and `/distance`.";
  return s.str();
}

std::string render_window(const datasets::SampleSlots& sample, const Eigen::MatrixXd& centroids, std::int64_t window) {
  const float* activity = sample.get<float>("activity");
  const std::int64_t subject = *sample.get<std::int64_t>("subject");
  const std::int64_t start = *sample.get<std::int64_t>("start");
  const auto tokens = static_cast<std::size_t>(centroids.rows());
  const auto [lo, hi] = std::minmax_element(activity, activity + tokens * static_cast<std::size_t>(window));
  std::ostringstream s;
  s << "subject " << subject << ", points " << start << ".." << start + window - 1 << ", values " << *lo << " .. "
    << *hi << " (shaded low to high)\n";
  return s.str() + datasets::shade_strips(activity, tokens, static_cast<std::size_t>(window), [&](std::size_t i) {
           char label[80];
           const auto p = static_cast<Eigen::Index>(i);
           std::snprintf(label, sizeof label, "parcel %3zu (%6.1f, %6.1f, %6.1f) mm", i, centroids(p, 0),
                         centroids(p, 1), centroids(p, 2));
           return std::string(label);
         });
}

}  // namespace loci::volumetric_parcels
