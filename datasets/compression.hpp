// How a shard's sample arrays are filtered. gzip+shuffle opens anywhere HDF5 does (h5py, xarray, MATLAB, netCDF);
// `gzip = false` writes raw chunks for the fastest reads.
#pragma once

namespace loci::datasets {

struct Compression {
  bool gzip = true;
  int level = 4;        // 0..9, zlib's levels
  bool shuffle = true;  // byte-shuffle before gzip: small integers and floats compress several times better
};

}  // namespace loci::datasets
