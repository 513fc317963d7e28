// Internal: owning HDF5 handles and the few conversions the writer and reader share. Not installed for users;
// it includes hdf5.h, which the public headers keep out of sight.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "datasets/spec.hpp"

namespace loci::datasets::h5 {

// Turns off HDF5's printing of its error stack for the calling thread. HDF5 keeps that setting per thread, so
// every thread that calls HDF5 (writer, prefetcher) calls this first; repeated calls are cheap.
void quiet();

// The most specific message on the calling thread's HDF5 error stack, one line, or "" when empty.
std::string last_error();

// One owned hid_t, closed with the matching H5?close. Move-only.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  void reset();
  herr_t close();  // like reset(), but reports whether HDF5 could close (and so flush) the object
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  operator hid_t() const { return id_; }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

inline Handle file(hid_t id) { return {id, H5Fclose}; }
inline Handle dataset(hid_t id) { return {id, H5Dclose}; }
inline Handle space(hid_t id) { return {id, H5Sclose}; }
inline Handle type(hid_t id) { return {id, H5Tclose}; }
inline Handle plist(hid_t id) { return {id, H5Pclose}; }
inline Handle attribute(hid_t id) { return {id, H5Aclose}; }

hid_t memory_type(DType t);  // native layout, for H5Dread/H5Dwrite
hid_t file_type(DType t);    // little-endian standard types, so shards read the same everywhere
std::optional<DType> dtype_of_type(hid_t type);

// Attributes on an object (the root group or a dataset).
void write_attribute(hid_t object, const std::string& name, const AttrValue& value);
void write_attribute_u64(hid_t object, const std::string& name, std::uint64_t value);  // seeds use all 64 bits
void write_attribute_i32(hid_t object, const std::string& name, std::int32_t value);   // netCDF's _Netcdf4Dimid
std::optional<AttrValue> read_attribute(hid_t object, const std::string& name);
std::vector<std::string> attribute_names(hid_t object);

}  // namespace loci::datasets::h5
