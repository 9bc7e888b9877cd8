// The mod_visus protocol handlers (idx-format.md §7) against the golden datasets written by
// OpenVisus: dispatch, list, readdataset, block and box queries, every error row of §7.8.
#include "handlers/mod_visus_handler.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "handlers/array_body.h"
#include "http/query_string.h"
#include "hzio/codec/codec.h"
#include "hzio/util/strings.h"
#include "test_support.h"

namespace hzio::server {
namespace {

using testing::Get;
using testing::GoldenContext;

std::vector<uint8_t> DecodeBody(const Reply& r, int64_t bytes) {
  std::vector<uint8_t> out(static_cast<size_t>(bytes));
  Decode(CodecSpec::Parse(r.Get("visus-compression")).codec, reinterpret_cast<const uint8_t*>(r.body.data()),
         r.body.size(), out.data(), out.size(), "reply");
  return out;
}

bool ErrorStartsWith(const Reply& r, const std::string& header, const std::string& prefix) {
  std::string msg = r.Get(header);
  return StartsWith(msg, prefix) && msg.find(" __FILE__(") != std::string::npos &&
         msg.find(" __LINE__(") != std::string::npos;
}

// Whether the result grid of idx-format.md §3.4 for `box` (clipped to the padded box) at `level`
// has a sample: the lattice of levels 0..level (stride CumulativeStride, origin 0), or level's own
// lattice for a one-level query, has a point inside the box on every axis.
bool HoldsSamples(const BlockLayout& layout, const Box& box, int level, bool only_level) {
  const Box clipped = box.Intersect(layout.bitmask().PaddedBox());
  const Grid lattice = only_level ? layout.LevelGrid(level)
                                  : Grid{Point(box.dims()), layout.bitmask().CumulativeStride(level), Point(box.dims())};
  for (int d = 0; d < box.dims(); ++d) {
    const int64_t s = lattice.stride[d], o = lattice.origin[d];
    const int64_t first = clipped.p1[d] <= o ? o : o + (clipped.p1[d] - o + s - 1) / s * s;
    if (first >= clipped.p2[d]) return false;
  }
  return true;
}

class ModVisus : public ::testing::Test {
 protected:
  void SetUp() override { ctx_ = GoldenContext(); }
  Reply Do(const std::string& query) { return Get(*ctx_, "/mod_visus?" + query); }
  std::shared_ptr<Dataset> Ds(const std::string& name) { return ctx_->registry.Find(name)->dataset; }
  std::unique_ptr<ServerContext> ctx_;
};

TEST_F(ModVisus, ListXmlWithGroupsAndPlaceholders) {
  Reply r = Do("action=list");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Get("Content-Type"), "text/xml");
  EXPECT_NE(r.body.find("<dataset name=\"rgb\" url=\"$(protocol)://$(hostname):$(port)/mod_visus?action=readdataset&amp;dataset=rgb\" location_match=\"\" />"),
            std::string::npos);
  size_t group = r.body.find("<group name=\"g1\">");
  ASSERT_NE(group, std::string::npos);
  EXPECT_GT(r.body.find("dataset=lz\""), group);
  EXPECT_GT(r.body.find("dataset=rgbzip\""), group);
  Reply filled = Do("action=list&hostname=localhost&port=1234&protocol=http");
  EXPECT_NE(filled.body.find("url=\"http://localhost:1234/mod_visus?action=readdataset&amp;dataset=rgb\""),
            std::string::npos);
  EXPECT_EQ(filled.body.find("$("), std::string::npos);
  // No action and no dataset: list (§7.2).
  EXPECT_EQ(Get(*ctx_, "/mod_visus").body, r.body);
}

TEST_F(ModVisus, ListJsonIsTheGenericTree) {
  Reply r = Do("action=list&format=json&hostname=h&port=1&protocol=http");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Get("Content-Type"), "application/json");
  EXPECT_NE(r.body.find("\"name\": \"datasets\""), std::string::npos);
  EXPECT_NE(r.body.find("\"url\": \"http://h:1/mod_visus?action=readdataset&dataset=f32\""), std::string::npos);
  EXPECT_NE(r.body.find("\"name\": \"group\""), std::string::npos);
}

TEST_F(ModVisus, ListWrongFormat) {  // §7.8 row 3
  Reply r = Do("action=list&format=yaml");
  EXPECT_EQ(r.status, 404);
  EXPECT_TRUE(ErrorStartsWith(r, "visus-errormsg", "wrong format(yaml)"));
  EXPECT_TRUE(r.body.empty());
}

TEST_F(ModVisus, ReadDatasetTextAndXml) {
  for (const std::string q : {"action=readdataset&dataset=rgb", "dataset=rgb", "action=read_dataset&dataset=rgb"}) {
    Reply r = Do(q);
    ASSERT_EQ(r.status, 200) << q;
    EXPECT_EQ(r.body, Ds("rgb")->header().ToText());
    EXPECT_EQ(r.Get("Content-Type"), "application/octet-stream");
    EXPECT_EQ(r.Get("visus-typename"), "IdxDataset");
    EXPECT_EQ(r.Get("Content-Transfer-Encoding"), "binary");
  }
  Reply x = Do("action=readdataset&dataset=rgb&format=xml");
  ASSERT_EQ(x.status, 200);
  EXPECT_EQ(x.body, Ds("rgb")->header().ToXml("rgb"));
  EXPECT_NE(x.body.find("<box value=\"0 100 0 60\""), std::string::npos);
  // What a client parses back is the same header.
  EXPECT_EQ(IdxHeader::Parse(x.body, "xml").ToText(), Ds("rgb")->header().ToText());
}

TEST_F(ModVisus, UnknownDatasetForEveryAction) {  // §7.8 row 2
  for (const std::string action : {"readdataset", "blockquery", "rangequery", "boxquery", "query"}) {
    Reply r = Do("action=" + action + "&dataset=nope&block=0&box=0%200&toh=0");
    EXPECT_EQ(r.status, 404) << action;
    EXPECT_TRUE(ErrorStartsWith(r, "visus-errormsg", "Cannot find dataset(nope)")) << r.Get("visus-errormsg");
  }
  // Names are looked up, never used as paths.
  Reply t = Do("dataset=" + PercentEncode("../" + hzio::testing::GoldenPath("tiny/hz")));
  EXPECT_EQ(t.status, 404);
}

TEST_F(ModVisus, UnknownAction) {  // §7.8 row 1
  Reply r = Do("action=explode&dataset=rgb");
  EXPECT_EQ(r.status, 404);
  EXPECT_TRUE(ErrorStartsWith(r, "visus-errormsg", "unknown action(explode)"));
}

TEST_F(ModVisus, PingAndInfoAdvertiseAggregation) {
  Reply p = Do("action=ping&dataset=rgb");
  EXPECT_EQ(p.status, 200);
  EXPECT_EQ(p.Get("block-query-support-aggregation"), "1");
  EXPECT_TRUE(p.body.empty());
  EXPECT_EQ(Do("action=info").Get("block-query-support-aggregation"), "1");
}

TEST_F(ModVisus, EveryReplyCarriesTheCommonHeaders) {
  Reply r = Do("action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=13&compression=zip");
  EXPECT_TRUE(r.Has("git_revision"));
  EXPECT_TRUE(r.Has("version"));
  EXPECT_EQ(r.Get("Access-Control-Expose-Headers"), "visus-compression,visus-dtype,visus-layout,visus-nsamples,ETag");
  EXPECT_EQ(r.Get("Access-Control-Allow-Origin"), "*");
}

TEST_F(ModVisus, SingleBlockEqualsTheStoredBlock) {
  auto ds = Ds("rgb");
  for (uint64_t id : {0, 1, 2, 54, 127}) {
    std::optional<DecodedBlock> want = ds->ReadBlock(0, 0, id);
    Reply r = Do("action=rangequery&dataset=rgb&field=rgb&time=0%2E000000&compression=zip&block=" + std::to_string(id));
    if (!want) {
      EXPECT_EQ(r.status, 404) << id;
      continue;
    }
    ASSERT_EQ(r.status, 200) << id;
    EXPECT_FALSE(r.Has("response-compose-num"));
    EXPECT_EQ(r.Get("visus-compression"), "zip");
    EXPECT_EQ(r.Get("Content-Type"), "application/zip");
    EXPECT_EQ(r.Get("visus-dtype"), "uint8[3]");
    EXPECT_EQ(r.Get("visus-layout"), "hzorder");
    EXPECT_EQ(r.Get("visus-nsamples"), NsamplesText(ds->layout().BlockGrid(id).count));
    EXPECT_EQ(DecodeBody(r, static_cast<int64_t>(want->bytes.size())), want->bytes);
  }
  EXPECT_EQ(Do("action=blockquery&dataset=rgb&block=1").Get("visus-nsamples"), "8 8");
}

TEST_F(ModVisus, CompositeReplyKeepsRequestOrderAndMarksAbsentParts) {  // §7.5 capture
  auto ds = Ds("rgb");
  ASSERT_FALSE(ds->ReadBlock(0, 0, 53).has_value());
  Reply r = Do("action=rangequery&dataset=rgb&field=rgb&compression=zip&block=54%201%2053");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Get("response-compose-num"), "3");
  EXPECT_EQ(r.Get("status-0"), "200");
  EXPECT_EQ(r.Get("status-1"), "200");
  EXPECT_EQ(r.Get("status-2"), "404");
  EXPECT_EQ(r.Get("body-size-2"), "0");
  EXPECT_TRUE(ErrorStartsWith(r, "visus-errormsg-2", "block_query->executeAndWait failed"));
  EXPECT_EQ(r.Get("visus-nsamples-0"), "8 8");
  EXPECT_EQ(r.Get("visus-layout-1"), "hzorder");
  EXPECT_EQ(r.Get("Content-Type-0"), "application/zip");
  size_t s0 = std::stoul(r.Get("body-size-0")), s1 = std::stoul(r.Get("body-size-1"));
  ASSERT_EQ(r.body.size(), s0 + s1);
  EXPECT_EQ(r.Get("Content-Length-1"), std::to_string(s1));
  Reply part0, part1;
  part0.body = r.body.substr(0, s0);
  part1.body = r.body.substr(s0, s1);
  part0.Set("visus-compression", "zip");
  part1.Set("visus-compression", "zip");
  EXPECT_EQ(DecodeBody(part0, 64 * 3), ds->ReadBlock(0, 0, 54)->bytes);
  EXPECT_EQ(DecodeBody(part1, 64 * 3), ds->ReadBlock(0, 0, 1)->bytes);
  EXPECT_NE(r.Get("Access-Control-Expose-Headers").find("visus-errormsg-2"), std::string::npos);
}

TEST_F(ModVisus, LegacyFromAddressesAndRowMajorConversion) {
  auto ds = Ds("hz");  // V0101, bpb 2: 4 blocks of 4 samples
  Reply r = Do("action=blockquery&dataset=hz&from=4");  // hz 4 -> block 1
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(DecodeBody(r, 4), ds->ReadBlock(0, 0, 1)->bytes);
  // Block 1 of the §4.8 example: hz order (1,0)(1,2)(3,0)(3,2) = 01 15 03 17, row-major 01 03 15 17.
  EXPECT_EQ(DecodeBody(r, 4), (std::vector<uint8_t>{1, 21, 3, 23}));
  Reply rm = Do("action=blockquery&dataset=hz&block=1&rowmajor=1");
  ASSERT_EQ(rm.status, 200);
  EXPECT_EQ(rm.Get("visus-layout"), "");
  EXPECT_EQ(DecodeBody(rm, 4), (std::vector<uint8_t>{1, 3, 21, 23}));
  EXPECT_EQ(DecodeBody(Do("action=blockquery&dataset=rm&block=1"), 4), (std::vector<uint8_t>{1, 3, 21, 23}));
}

TEST_F(ModVisus, BlockQueryErrors) {  // §7.8 rows 4-7
  Reply empty = Do("action=blockquery&dataset=rgb");
  EXPECT_EQ(empty.status, 404);
  EXPECT_TRUE(ErrorStartsWith(empty, "visus-errormsg", "blocks empty()"));
  Reply field = Do("action=blockquery&dataset=rgb&field=temperature&block=0");
  EXPECT_EQ(field.status, 404);
  EXPECT_TRUE(ErrorStartsWith(field, "visus-errormsg", "Cannot find field(temperature)"));
  Reply absent = Do("action=blockquery&dataset=rgb&block=53");
  EXPECT_EQ(absent.status, 404);
  EXPECT_TRUE(ErrorStartsWith(absent, "visus-errormsg", "block_query->executeAndWait failed"));
  EXPECT_EQ(Do("action=blockquery&dataset=rgb&block=999999").status, 404);  // beyond the last block
  EXPECT_EQ(Do("action=blockquery&dataset=rgb&block=0&time=5").status, 404);  // undeclared time
  // png/jpg as OpenVisus's server sends them (§5): uint8 samples of 2-D grids; a float32 block fails.
  Reply png = Do("action=blockquery&dataset=rgb&block=0&compression=png");
  ASSERT_EQ(png.status, 200) << png.Get("visus-errormsg");
  EXPECT_EQ(png.Get("Content-Type"), "image/png");
  EXPECT_EQ(DecodeBody(png, 64 * 3), Ds("rgb")->ReadBlock(0, 0, 0)->bytes);
  Reply enc = Do("action=blockquery&dataset=f32&block=0&compression=png");
  EXPECT_EQ(enc.status, 500);
  EXPECT_TRUE(ErrorStartsWith(enc, "visus-errormsg", "Encoding converting to row major failed"));
  EXPECT_NE(enc.Get("visus-errormsg").find("not float32"), std::string::npos) << enc.Get("visus-errormsg");
  Reply bad = Do("action=blockquery&dataset=rgb&block=1%20x");
  EXPECT_EQ(bad.status, 400);
  EXPECT_TRUE(ErrorStartsWith(bad, "visus-errormsg", "wrong block id(x)"));
}

TEST_F(ModVisus, BoxQueryGridsOfTheSpecExamples) {  // §7.6
  auto nsamples = [&](const std::string& q) { return Do("action=boxquery&dataset=rgb&field=rgb&" + q).Get("visus-nsamples"); };
  EXPECT_EQ(nsamples("box=0%2099%200%2059&fromh=0&toh=13"), "100 60");
  EXPECT_EQ(nsamples("box=10%2050%205%2030&fromh=0&toh=9"), "10 6");
  EXPECT_EQ(nsamples("box=10%2050%205%2030&fromh=0&toh=8"), "5 6");
  EXPECT_EQ(nsamples("box=10%2050%205%2030&fromh=8&toh=8"), "5 3");
  Reply r = Do("action=boxquery&dataset=rgb&field=rgb&box=0%2099%200%2059&toh=13&compression=zip");
  EXPECT_EQ(r.Get("visus-layout"), "hzorder");  // the field default, not the body's layout (§7.6)
  EXPECT_EQ(r.Get("Content-Type"), "application/zip");
}

// The cache-based assembly of the server against the library's reader, over every dataset,
// level, several boxes, both level modes and all wire codecs.
TEST_F(ModVisus, BoxQueryEqualsTheLibraryReader) {
  const char* codecs[] = {"", "raw", "zip", "lz4"};
  int n = 0;
  for (const DatasetEntry* e : ctx_->registry.Entries()) {
    const ServedDataset& s = *ctx_->registry.Find(e->name);
    const IdxHeader& h = s.dataset->header();
    std::vector<Box> boxes = {h.box};
    Box inner = h.box;
    for (int d = 0; d < h.dims(); ++d) {
      int64_t size = h.box.p2[d] - h.box.p1[d];
      inner.p1[d] = h.box.p1[d] + size / 5;
      inner.p2[d] = std::max(inner.p1[d] + 1, h.box.p2[d] - size / 3);
    }
    boxes.push_back(inner);
    Box overhang = h.box;  // reaches past the dataset box into the padding
    for (int d = 0; d < h.dims(); ++d) {
      overhang.p1[d] = (h.box.p2[d] - h.box.p1[d]) / 2;
      overhang.p2[d] = h.box.p2[d] + 5;
    }
    boxes.push_back(overhang);
    for (const Box& box : boxes) {
      for (int level = 0; level <= h.maxh(); ++level) {
        for (bool only : {false, true}) {
          if (only && level == 0) continue;
          BoxQuery q;
          q.box = box;
          q.level = level;
          q.only_level = only;
          const char* codec = codecs[n++ % 4];
          std::string target = "action=boxquery&dataset=" + s.name + "&box=" + PercentEncode(box.ToInclusiveString()) +
                               "&fromh=" + std::to_string(only ? level : 0) + "&toh=" + std::to_string(level) +
                               "&time=0%2E000000&compression=" + codec;
          if (!HoldsSamples(s.dataset->layout(), box, level, only)) {  // e.g. a small box at a coarse level
            EXPECT_HZIO_ERROR(s.dataset->Read(q), ErrorCode::kOutOfRange, "holds no sample");
            Reply r = Do(target);
            EXPECT_EQ(r.status, 400) << target;
            EXPECT_TRUE(ErrorStartsWith(r, "visus-errormsg", "dataset->beginBoxQuery() failed")) << target;
            continue;
          }
          const BoxResult want = s.dataset->Read(q);
          Reply r = Do(target);
          ASSERT_EQ(r.status, 200) << target << " " << r.Get("visus-errormsg");
          EXPECT_EQ(r.Get("visus-nsamples"), NsamplesText(want.grid.count)) << target;
          std::vector<uint8_t> got = DecodeBody(r, want.data.ByteSize());
          ASSERT_EQ(0, std::memcmp(got.data(), want.data.data(), got.size())) << target;
        }
      }
    }
  }
  EXPECT_GT(n, 100);
}

TEST_F(ModVisus, BoxQueryErrors) {  // §7.8 rows 8-12
  const std::string base = "action=boxquery&dataset=rgb&box=0%2099%200%2059";
  Reply field = Do(base + "&toh=5&field=nofield");
  EXPECT_EQ(field.status, 400);
  EXPECT_TRUE(ErrorStartsWith(field, "visus-errormsg", "Cannot find fieldname(nofield)"));
  for (const std::string bad : {"&toh=14", "&toh=-1", "&fromh=3&toh=5", "&fromh=6&toh=5", "&toh=abc",
                                "&toh=5&time=3", "&toh=5&time=0.5",
                                "&toh=5&time=x"}) {
    Reply r = Do(base + bad);
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_TRUE(ErrorStartsWith(r, "visus-errormsg", "dataset->beginBoxQuery() failed")) << bad << r.Get("visus-errormsg");
  }
  for (const std::string box : {"200%20300%200%2010", "", "a%20b", "50%2010%200%2010"}) {
    Reply r = Do("action=boxquery&dataset=rgb&toh=5&box=" + box);
    EXPECT_EQ(r.status, 400) << box;
    EXPECT_TRUE(ErrorStartsWith(r, "visus-errormsg", "dataset->beginBoxQuery() failed")) << box;
  }
  Reply png = Do(base + "&toh=5&compression=png");
  ASSERT_EQ(png.status, 200) << png.Get("visus-errormsg");
  const std::string raw = Do(base + "&toh=5").body;
  EXPECT_EQ(DecodeBody(png, static_cast<int64_t>(raw.size())), std::vector<uint8_t>(raw.begin(), raw.end()));
  Reply enc = Do("action=boxquery&dataset=f32&box=0%2015%200%207%200%203&toh=9&compression=png");
  EXPECT_EQ(enc.status, 500);
  EXPECT_TRUE(ErrorStartsWith(enc, "visus-errormsg", "NetResponse encodeBuffer failed"));
  Reply point = Do("action=pointquery&dataset=f32");  // no box
  EXPECT_EQ(point.status, 400);
  EXPECT_TRUE(ErrorStartsWith(point, "visus-errormsg", "dataset->beginPointQuery() failed"));
  EXPECT_EQ(Do("action=pointquery&dataset=rgb&box=0%200%200%201%201%201&nsamples=1%201%201").status, 400);  // 2-D
}

TEST_F(ModVisus, PointQuerySamplesTheDataset) {  // §7.7
  // f32 holds arange(512) as 16x8x4; a 4x2x2 lattice over the whole box at full resolution.
  Reply r = Do("action=pointquery&dataset=f32&fromh=0&toh=9&box=0%200%200%2016%208%204&nsamples=4%202%202"
               "&matrix=1%200%200%200%200%201%200%200%200%200%201%200%200%200%200%201");
  ASSERT_EQ(r.status, 200) << r.Get("visus-errormsg");
  EXPECT_EQ(r.Get("visus-nsamples"), "4 2 2");
  std::vector<uint8_t> got = DecodeBody(r, 16 * 4);
  const float* v = reinterpret_cast<const float*>(got.data());
  int i = 0;
  for (int z = 0; z < 4; z += 2)
    for (int y = 0; y < 8; y += 4)
      for (int x = 0; x < 16; x += 4, ++i) EXPECT_EQ(v[i], static_cast<float>(x + 16 * (y + 8 * z))) << i;
  // A translation beyond the box gives default values.
  Reply out = Do("action=pointquery&dataset=f32&toh=9&box=0%200%200%201%201%201&nsamples=1%201%201"
                 "&matrix=1%200%200%20100%200%201%200%200%200%200%201%200%200%200%200%201");
  ASSERT_EQ(out.status, 200);
  EXPECT_EQ(DecodeBody(out, 4), std::vector<uint8_t>(4, 0));
}

TEST(ModVisusCorrupt, ExecutionFailureIs400AndBlockFailureIs404) {  // §7.8 rows 6, 11
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("hzio_server_corrupt_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "hz");
  fs::copy_file(hzio::testing::GoldenPath("tiny/hz.idx"), dir / "hz.idx");
  fs::copy_file(hzio::testing::GoldenPath("tiny/hz/0000.bin"), dir / "hz/0000.bin");
  fs::copy_file(hzio::testing::GoldenPath("tiny/hz/0002.bin"), dir / "hz/0002.bin");
  {
    // Block 0's entry (§4.5, word 4 = size at byte 40+16): point past the end of the file.
    std::fstream f(dir / "hz/0000.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(56);
    const char size[4] = {0x00, 0x10, 0x00, 0x00};
    f.write(size, 4);
  }
  OpenOptions open;
  auto ctx = std::make_unique<ServerContext>(DatasetRegistry::Open({{"bad", (dir / "hz.idx").string(), ""}}, open),
                                             ServerOptions{});
  Reply box = Get(*ctx, "/mod_visus?action=boxquery&dataset=bad&box=0%203%200%203&toh=4");
  EXPECT_EQ(box.status, 400);
  EXPECT_TRUE(ErrorStartsWith(box, "visus-errormsg", "dataset->executeBoxQuery() failed")) << box.Get("visus-errormsg");
  Reply block = Get(*ctx, "/mod_visus?action=blockquery&dataset=bad&block=0");
  EXPECT_EQ(block.status, 404);
  EXPECT_TRUE(ErrorStartsWith(block, "visus-errormsg", "block_query->executeAndWait failed"));
  // The other file is intact: its blocks still come back.
  EXPECT_EQ(Get(*ctx, "/mod_visus?action=blockquery&dataset=bad&block=2").status, 200);
  fs::remove_all(dir);
}

TEST(ModVisusLimits, OversizedQueriesAre413WithAJsonBody) {
  ServerOptions o;
  o.max_query_bytes = 1000;
  o.max_blocks_per_query = 4;
  auto ctx = GoldenContext(o);
  Reply box = Get(*ctx, "/mod_visus?action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=13");
  EXPECT_EQ(box.status, 413);
  EXPECT_EQ(box.Get("Content-Type"), "application/json");
  EXPECT_NE(box.body.find("\"code\":\"too_large\""), std::string::npos);
  EXPECT_EQ(Get(*ctx, "/mod_visus?action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=6").status, 200);
  EXPECT_EQ(Get(*ctx, "/mod_visus?action=blockquery&dataset=rgb&block=0%201%202%203%204").status, 413);
  EXPECT_EQ(Get(*ctx, "/mod_visus?action=blockquery&dataset=rgb&block=0%201%202%203").status, 200);
}

TEST_F(ModVisus, StrongEtagsRevalidate) {
  const std::string target = "/mod_visus?action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=9&compression=zip";
  Reply first = Get(*ctx_, target);
  const std::string etag = first.Get("ETag");
  ASSERT_FALSE(etag.empty());
  EXPECT_EQ(etag.front(), '"');  // strong: no W/ prefix
  EXPECT_NE(first.Get("Cache-Control").find("max-age="), std::string::npos);
  Request again;
  again.target = target;
  again.headers.emplace_back("If-None-Match", etag);
  Reply second = HandleRequest(*ctx_, again);
  EXPECT_EQ(second.status, 304);
  EXPECT_TRUE(second.body.empty());
  EXPECT_EQ(second.Get("ETag"), etag);
  // A different query has a different tag.
  EXPECT_NE(Get(*ctx_, "/mod_visus?action=boxquery&dataset=rgb&box=0%2099%200%2059&toh=8&compression=zip").Get("ETag"), etag);
}

}  // namespace
}  // namespace hzio::server
