// Internal: a file's checksum vouches only for bytes inside that file. HDF5 can hand out bytes from elsewhere
// (external raw storage, external links, virtual datasets) and follow soft links to them, so every reader of a loci
// file asks this first and refuses such a file.
#pragma once

#include <hdf5.h>

#include <string>

namespace loci::datasets::h5 {

// "" when every object reachable from `file` is a group or a dataset whose bytes are stored in the file itself
// (contiguous, chunked or compact layout, no external files) and every link is a hard link; otherwise a short
// reason naming the first object that is not, e.g. "array 'positions' is stored in another file".
std::string outside_storage(hid_t file);

}  // namespace loci::datasets::h5
