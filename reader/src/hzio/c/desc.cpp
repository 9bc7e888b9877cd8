#include "hzio/c/desc.h"

#include <algorithm>
#include <filesystem>

#include "hzio/c/api_status.h"
#include "hzio/codec/codec.h"

using hzio::internal_c::Get;
using hzio::internal_c::Guard;
using hzio::internal_c::RequireChangeable;
using hzio::internal_c::RequireNonNull;
using hzio::internal_c::Text;

namespace {

// Axis sizes beyond this cannot be an IDX dataset (the bitmask holds at most 64 levels in all);
// refusing them early keeps the bitmask guess from overflowing.
constexpr int64_t kMaxAxisSize = int64_t{1} << 40;

// The stored spelling of a compression the caller names: "" for raw (as OpenVisus writes it),
// otherwise the name if a codec knows it. CodecSpec::Parse reads unknown names as raw, which is
// right for stored headers but would hide a caller's typo.
std::string CheckedCompression(const std::string& name) {
  if (name.empty() || name == "raw") return "";
  hzio::Check(hzio::CodecSpec::Parse(name).codec != hzio::Codec::kRaw, hzio::ErrorCode::kInvalidArgument,
              "unknown compression '" + name + "' (raw, zip, zip-Z_BEST_COMPRESSION, lz4, ...)");
  return name;
}

// The fields `field` names (every field when NULL).
std::vector<hzio::Field*> Targets(hzio::IdxHeader& h, const char* field) {
  std::vector<hzio::Field*> out;
  if (field == nullptr) {
    for (hzio::Field& f : h.fields) out.push_back(&f);
  } else {
    out.push_back(&h.fields[static_cast<size_t>(h.FieldIndex(field))]);
  }
  return out;
}

}  // namespace

hzio_desc::hzio_desc(hzio::IdxHeader validated_header)
    : header(std::move(validated_header)), borrowed(true),
      validated_(std::make_shared<const hzio::IdxHeader>(header)) {}

void hzio_desc::CheckValid(const hzio::IdxHeader& header) {
  hzio::IdxHeader copy = header;
  if (copy.fields.empty()) {
    copy.fields.emplace_back();
    copy.fields.back().name = "placeholder";
  }
  copy.Validate();
}

const hzio::IdxHeader& hzio_desc::Validated() const {
  if (!validated_) {
    hzio::IdxHeader copy = header;
    copy.Validate();
    validated_ = std::make_shared<const hzio::IdxHeader>(std::move(copy));
    dtype_texts_.clear();
  }
  if (dtype_texts_.size() != validated_->fields.size()) {
    dtype_texts_.clear();
    for (const hzio::Field& f : validated_->fields) dtype_texts_.push_back(f.dtype.ToString());
  }
  return *validated_;
}

const hzio::Field& hzio_desc::FieldAt(int index) const {
  const hzio::IdxHeader& h = Validated();
  hzio::Check(index >= 0 && static_cast<size_t>(index) < h.fields.size(), hzio::ErrorCode::kNotFound,
              "field index " + std::to_string(index) + " is outside 0.." + std::to_string(static_cast<int64_t>(h.fields.size()) - 1));
  return h.fields[static_cast<size_t>(index)];
}

const std::string& hzio_desc::DTypeText(int index) const {
  FieldAt(index);
  return dtype_texts_[static_cast<size_t>(index)];
}

namespace hzio::internal_c {

IdxHeader HeaderForWriting(const hzio_desc& desc, const std::string& path) {
  IdxHeader h = desc.Validated();
  // Guessed from this .idx name: a template copied from another dataset (a reader's description)
  // could name that dataset's own block files.
  h.filename_template.clear();
  h.Validate(std::filesystem::path(path).stem().string());
  return h;
}

void RequireChangeable(const hzio_desc* desc) {
  RequireNonNull(desc, "desc");
  Check(!desc->borrowed, ErrorCode::kInvalidArgument,
        "this description belongs to a reader or writer and cannot be changed or freed");
}

}  // namespace hzio::internal_c

extern "C" {

hzio_status hzio_desc_create(int ndims, const int64_t* size, hzio_desc** desc) {
  return Guard(__func__, [&] {
    RequireNonNull(desc, "desc");
    RequireNonNull(size, "size");
    hzio::Check(ndims >= 1 && ndims <= HZIO_MAX_DIMS, hzio::ErrorCode::kInvalidArgument,
                "ndims " + std::to_string(ndims) + " is outside 1.." + std::to_string(HZIO_MAX_DIMS));
    hzio::Point p2(ndims);
    for (int d = 0; d < ndims; ++d) {
      hzio::Check(size[d] >= 1 && size[d] <= kMaxAxisSize, hzio::ErrorCode::kInvalidArgument,
                  "size " + std::to_string(size[d]) + " of axis " + std::to_string(d) + " is outside 1..2^40");
      p2[d] = size[d];
    }
    auto made = std::make_unique<hzio_desc>();
    made->Modify([&](hzio::IdxHeader& h) {
      h.version = 6;
      h.box = hzio::Box(hzio::Point(ndims), p2);
    });
    *desc = made.release();
  });
}

hzio_status hzio_desc_free(hzio_desc* desc) {
  return Guard(__func__, [&] {
    if (desc == nullptr) return;
    RequireChangeable(desc);
    delete desc;
  });
}

hzio_status hzio_desc_add_field(hzio_desc* desc, const char* name, const char* dtype) {
  return Guard(__func__, [&] {
    RequireChangeable(desc);
    hzio::Field f;
    f.name = Text(name, "name");
    f.dtype = hzio::DType::Parse(Text(dtype, "dtype"));
    f.compression = desc->new_field_compression;
    f.hz_layout = desc->new_field_hz_layout;
    desc->Modify([&](hzio::IdxHeader& h) {
      for (const hzio::Field& g : h.fields)
        hzio::Check(g.name != f.name, hzio::ErrorCode::kInvalidArgument, "a field named '" + f.name + "' exists already");
      h.fields.push_back(f);
    });
  });
}

hzio_status hzio_desc_set_timesteps(hzio_desc* desc, int64_t first, int64_t last) {
  return Guard(__func__, [&] {
    RequireChangeable(desc);
    hzio::Check(first <= last, hzio::ErrorCode::kInvalidArgument,
                "timesteps " + std::to_string(first) + ".." + std::to_string(last) + " are empty (first > last)");
    desc->Modify([&](hzio::IdxHeader& h) {
      h.time = hzio::TimeSpec::Range(first, last, "time_%02d/");
      h.has_time = true;
    });
  });
}

hzio_status hzio_desc_set_bits_per_block(hzio_desc* desc, int bits) {
  return Guard(__func__, [&] {
    RequireChangeable(desc);
    hzio::Check(bits >= 0 && bits <= 30, hzio::ErrorCode::kInvalidArgument,
                "bits per block " + std::to_string(bits) + " is outside 0..30");
    desc->Modify([&](hzio::IdxHeader& h) { h.bits_per_block = bits; });
  });
}

hzio_status hzio_desc_set_blocks_per_file(hzio_desc* desc, int64_t blocks) {
  return Guard(__func__, [&] {
    RequireChangeable(desc);
    desc->Modify([&](hzio::IdxHeader& h) { h.blocks_per_file = blocks; });
  });
}

hzio_status hzio_desc_set_compression(hzio_desc* desc, const char* field, const char* compression) {
  return Guard(__func__, [&] {
    RequireChangeable(desc);
    const std::string stored = CheckedCompression(Text(compression, "compression"));
    desc->Modify([&](hzio::IdxHeader& h) {
      for (hzio::Field* f : Targets(h, field)) f->compression = stored;
    });
    if (field == nullptr) desc->new_field_compression = stored;
  });
}

hzio_status hzio_desc_set_layout(hzio_desc* desc, const char* field, int layout) {
  return Guard(__func__, [&] {
    RequireChangeable(desc);
    hzio::Check(layout == HZIO_LAYOUT_HZ || layout == HZIO_LAYOUT_ROW_MAJOR, hzio::ErrorCode::kInvalidArgument,
                "layout " + std::to_string(layout) + " is neither HZIO_LAYOUT_HZ nor HZIO_LAYOUT_ROW_MAJOR");
    const bool hz = layout == HZIO_LAYOUT_HZ;
    desc->Modify([&](hzio::IdxHeader& h) {
      for (hzio::Field* f : Targets(h, field)) f->hz_layout = hz;
    });
    if (field == nullptr) desc->new_field_hz_layout = hz;
  });
}

hzio_status hzio_desc_get_dims(const hzio_desc* desc, int* ndims, int64_t* size) {
  return Guard(__func__, [&] {
    RequireNonNull(desc, "desc");
    const hzio::IdxHeader& h = desc->Validated();
    if (size != nullptr)
      for (int d = 0; d < h.dims(); ++d) size[d] = h.box.p2[d] - h.box.p1[d];
    if (ndims != nullptr) *ndims = h.dims();
  });
}

hzio_status hzio_desc_get_maxh(const hzio_desc* desc, int* maxh) {
  return Get(__func__, desc, "desc", maxh, "maxh", [](const hzio_desc& d) { return d.Validated().maxh(); });
}

hzio_status hzio_desc_get_bits_per_block(const hzio_desc* desc, int* bits) {
  return Get(__func__, desc, "desc", bits, "bits", [](const hzio_desc& d) { return d.Validated().bits_per_block; });
}

hzio_status hzio_desc_get_blocks_per_file(const hzio_desc* desc, int64_t* blocks) {
  return Get(__func__, desc, "desc", blocks, "blocks", [](const hzio_desc& d) { return d.Validated().blocks_per_file; });
}

hzio_status hzio_desc_get_num_fields(const hzio_desc* desc, int* count) {
  return Get(__func__, desc, "desc", count, "count",
             [](const hzio_desc& d) { return static_cast<int>(d.header.fields.size()); });
}

hzio_status hzio_desc_get_field_index(const hzio_desc* desc, const char* name, int* index) {
  return Get(__func__, desc, "desc", index, "index",
             [&](const hzio_desc& d) { return d.header.FieldIndex(Text(name, "name")); });
}

hzio_status hzio_desc_get_field(const hzio_desc* desc, int index, const char** name, const char** dtype,
                                int* components, int64_t* sample_bytes) {
  return Guard(__func__, [&] {
    RequireNonNull(desc, "desc");
    const hzio::Field& f = desc->FieldAt(index);
    const std::string& text = desc->DTypeText(index);
    if (name != nullptr) *name = f.name.c_str();
    if (dtype != nullptr) *dtype = text.c_str();
    if (components != nullptr) *components = f.dtype.components();
    if (sample_bytes != nullptr) *sample_bytes = f.dtype.BytesFor(1);
  });
}

hzio_status hzio_desc_get_field_compression(const hzio_desc* desc, int index, const char** compression) {
  return Get(__func__, desc, "desc", compression, "compression", [&](const hzio_desc& d) {
    const hzio::Field& f = d.FieldAt(index);
    return f.compression.empty() ? "raw" : f.compression.c_str();
  });
}

hzio_status hzio_desc_get_timesteps(const hzio_desc* desc, int64_t capacity, int64_t* times, int64_t* count) {
  return Guard(__func__, [&] {
    RequireNonNull(desc, "desc");
    RequireNonNull(count, "count");
    hzio::Check(capacity >= 0, hzio::ErrorCode::kInvalidArgument, "capacity " + std::to_string(capacity) + " is negative");
    if (capacity > 0) RequireNonNull(times, "times");
    std::vector<int64_t> all = desc->Validated().time.List();
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    std::copy_n(all.begin(), std::min<int64_t>(capacity, static_cast<int64_t>(all.size())), times);
    *count = static_cast<int64_t>(all.size());
  });
}

}  // extern "C"
