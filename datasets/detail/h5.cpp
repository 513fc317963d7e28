#include "datasets/detail/h5.hpp"

#include <limits>

namespace loci::datasets::h5 {

void quiet() {
  thread_local bool done = false;
  if (done) return;
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  done = true;
}

std::string last_error() {
  std::string innermost;
  auto visit = [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
    if (e->desc && *e->desc) *static_cast<std::string*>(out) = e->desc;
    return 0;
  };
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, visit, &innermost);
  for (char& c : innermost)
    if (c == '\n' || c == '\r') c = ' ';
  return innermost;
}

Handle& Handle::operator=(Handle&& o) noexcept {
  if (this != &o) {
    reset();
    id_ = o.id_;
    close_ = o.close_;
    o.id_ = H5I_INVALID_HID;
  }
  return *this;
}

herr_t Handle::close() {
  herr_t status = 0;
  if (id_ >= 0 && close_) status = close_(id_);
  id_ = H5I_INVALID_HID;
  return status;
}

void Handle::reset() {
  if (id_ >= 0 && close_) close_(id_);
  id_ = H5I_INVALID_HID;
}

hid_t memory_type(DType t) {
  switch (t) {
    case DType::u8:
      return H5T_NATIVE_UINT8;
    case DType::i8:
      return H5T_NATIVE_INT8;
    case DType::u16:
      return H5T_NATIVE_UINT16;
    case DType::i16:
      return H5T_NATIVE_INT16;
    case DType::u32:
      return H5T_NATIVE_UINT32;
    case DType::i32:
      return H5T_NATIVE_INT32;
    case DType::u64:
      return H5T_NATIVE_UINT64;
    case DType::i64:
      return H5T_NATIVE_INT64;
    case DType::f32:
      return H5T_NATIVE_FLOAT;
    case DType::f64:
      return H5T_NATIVE_DOUBLE;
  }
  return H5I_INVALID_HID;
}

hid_t file_type(DType t) {
  switch (t) {
    case DType::u8:
      return H5T_STD_U8LE;
    case DType::i8:
      return H5T_STD_I8LE;
    case DType::u16:
      return H5T_STD_U16LE;
    case DType::i16:
      return H5T_STD_I16LE;
    case DType::u32:
      return H5T_STD_U32LE;
    case DType::i32:
      return H5T_STD_I32LE;
    case DType::u64:
      return H5T_STD_U64LE;
    case DType::i64:
      return H5T_STD_I64LE;
    case DType::f32:
      return H5T_IEEE_F32LE;
    case DType::f64:
      return H5T_IEEE_F64LE;
  }
  return H5I_INVALID_HID;
}

std::optional<DType> dtype_of_type(hid_t type) {
  const size_t size = H5Tget_size(type);
  switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
      const bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
      switch (size) {
        case 1:
          return is_signed ? DType::i8 : DType::u8;
        case 2:
          return is_signed ? DType::i16 : DType::u16;
        case 4:
          return is_signed ? DType::i32 : DType::u32;
        case 8:
          return is_signed ? DType::i64 : DType::u64;
        default:
          return std::nullopt;
      }
    }
    case H5T_FLOAT:
      if (size == 4) return DType::f32;
      if (size == 8) return DType::f64;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

namespace {

void write_raw(hid_t object, const std::string& name, hid_t ftype, hid_t mtype, const void* data) {
  Handle scalar = space(H5Screate(H5S_SCALAR));
  if (H5Aexists(object, name.c_str()) > 0) H5Adelete(object, name.c_str());
  Handle a = attribute(H5Acreate2(object, name.c_str(), ftype, scalar, H5P_DEFAULT, H5P_DEFAULT));
  if (!a.valid() || H5Awrite(a, mtype, data) < 0)
    throw std::runtime_error("cannot write attribute '" + name + "': " + last_error());
}

std::optional<AttrValue> read_string(hid_t a, hid_t ftype) {
  if (H5Tis_variable_str(ftype) > 0) {
    Handle mtype = type(H5Tcopy(H5T_C_S1));
    H5Tset_size(mtype, H5T_VARIABLE);
    H5Tset_cset(mtype, H5Tget_cset(ftype));
    char* text = nullptr;
    if (H5Aread(a, mtype, &text) < 0) return std::nullopt;
    std::string s = text ? text : "";
    H5free_memory(text);
    return AttrValue{s};
  }
  const size_t size = H5Tget_size(ftype);
  Handle mtype = type(H5Tcopy(H5T_C_S1));
  H5Tset_size(mtype, size + 1);
  std::string s(size + 1, '\0');
  if (H5Aread(a, mtype, s.data()) < 0) return std::nullopt;
  s.resize(s.find('\0'));
  return AttrValue{s};
}

}  // namespace

void write_attribute(hid_t object, const std::string& name, const AttrValue& value) {
  if (auto* i = std::get_if<std::int64_t>(&value)) {
    write_raw(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, i);
  } else if (auto* d = std::get_if<double>(&value)) {
    write_raw(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, d);
  } else {
    // Variable-length UTF-8: h5py and xarray hand these back as str, and a long resolved YAML never meets the
    // 64 KiB limit on one object-header message.
    Handle t = type(H5Tcopy(H5T_C_S1));
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    const char* text = std::get<std::string>(value).c_str();
    write_raw(object, name, t, t, &text);
  }
}

void write_attribute_u64(hid_t object, const std::string& name, std::uint64_t value) {
  write_raw(object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

void write_attribute_i32(hid_t object, const std::string& name, std::int32_t value) {
  write_raw(object, name, H5T_STD_I32LE, H5T_NATIVE_INT32, &value);
}

std::optional<AttrValue> read_attribute(hid_t object, const std::string& name) {
  if (H5Aexists(object, name.c_str()) <= 0) return std::nullopt;
  Handle a = attribute(H5Aopen(object, name.c_str(), H5P_DEFAULT));
  if (!a.valid()) return std::nullopt;
  Handle ftype = type(H5Aget_type(a));
  Handle sp = space(H5Aget_space(a));
  const H5T_class_t cls = H5Tget_class(ftype);
  if (cls == H5T_STRING) return read_string(a, ftype);
  if (H5Sget_simple_extent_npoints(sp) != 1) return std::nullopt;
  if (cls == H5T_INTEGER) {
    if (H5Tget_sign(ftype) == H5T_SGN_NONE && H5Tget_size(ftype) == 8) {
      std::uint64_t u = 0;
      if (H5Aread(a, H5T_NATIVE_UINT64, &u) < 0) return std::nullopt;
      // A seed above 2^63 does not fit the int64 alternative; its decimal text keeps it exact.
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return AttrValue{std::to_string(u)};
      return AttrValue{static_cast<std::int64_t>(u)};
    }
    std::int64_t i = 0;
    if (H5Aread(a, H5T_NATIVE_INT64, &i) < 0) return std::nullopt;
    return AttrValue{i};
  }
  if (cls == H5T_FLOAT) {
    double d = 0;
    if (H5Aread(a, H5T_NATIVE_DOUBLE, &d) < 0) return std::nullopt;
    return AttrValue{d};
  }
  return std::nullopt;
}

std::vector<std::string> attribute_names(hid_t object) {
  std::vector<std::string> names;
  auto visit = [](hid_t, const char* name, const H5A_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  };
  hsize_t idx = 0;
  H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, &idx, visit, &names);
  return names;
}

}  // namespace loci::datasets::h5
