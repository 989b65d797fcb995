// Tests of the compilation cache (include/nnhal/cache): serializer round trip, the
// number of cache files, save / prepare-from-cache with outputs checked against a conv
// computed here in double, tamper tests (every single byte of the model cache flipped,
// truncation, extension, wrong token, driver version change), the token store across
// processes (fork + exec of this binary), data-cache corruption (must never crash), the
// JIT session on dup'ed descriptors, concurrent save/load, and the digest hook.
#include "nnhal/cache/cache.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "nnhal/ops/simd/cpu.hpp"
#include "support/model_builder.hpp"

namespace ca = nnhal::cache;
namespace ops = nnhal::ops;
namespace ex = nnhal::exec;
namespace fs = std::filesystem;
using namespace nnhal::types;

namespace {

/// The error message of a result, or "" (for INFO).
template <class R>
std::string why(const R& r) {
  return r.ok() ? std::string() : r.err().message;
}

// ---------------------------------------------------------------------------------------
// Scratch files.

struct scratch_dir {
  fs::path path;
  scratch_dir() {
    std::string t = (fs::temp_directory_path() / "nnhal-cache-test.XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

struct fd_holder {
  int fd = -1;
  explicit fd_holder(const fs::path& p) : fd(::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    REQUIRE(fd >= 0);
  }
  fd_holder(const fd_holder&) = delete;
  ~fd_holder() {
    if (fd >= 0) ::close(fd);
  }
};

/// `n_model` model-cache and `n_data` data-cache files in `dir`, named by `tag`.
struct cache_files {
  std::vector<std::unique_ptr<fd_holder>> model, data;
  std::vector<int> model_fds, data_fds;
  cache_files(const fs::path& dir, const std::string& tag, std::size_t n_model = 1, std::size_t n_data = 1) {
    for (std::size_t i = 0; i < n_model; ++i) {
      model.push_back(std::make_unique<fd_holder>(dir / (tag + ".model." + std::to_string(i))));
      model_fds.push_back(model.back()->fd);
    }
    for (std::size_t i = 0; i < n_data; ++i) {
      data.push_back(std::make_unique<fd_holder>(dir / (tag + ".data." + std::to_string(i))));
      data_fds.push_back(data.back()->fd);
    }
  }
};

std::vector<std::byte> read_fd(int fd) {
  auto f = ca::read_whole_file(fd, 1u << 30, "test");
  REQUIRE(f.ok());
  return {f->first.get(), f->first.get() + f->second};
}
void write_fd(int fd, const std::vector<std::byte>& b) { REQUIRE(ca::write_whole_file(fd, b, false, "test").ok()); }

CacheToken token_of(std::uint8_t seed) {
  CacheToken t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(seed * 31 + i);
  return t;
}

// ---------------------------------------------------------------------------------------
// The test model: CONV_2D (filter in a model pool, bias and hyperparameters in
// operandValues), then RESHAPE to [1, 27] with a constant shape tensor.

constexpr std::uint32_t H = 4, W = 4, C = 2, K = 3, F = 2;  // input 1xHxWxC, filter KxFxFxC

std::vector<float> filter_values() {
  std::vector<float> v(K * F * F * C);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.25f * static_cast<float>(static_cast<int>(i % 7) - 3);
  return v;
}
const std::vector<float> bias_values{0.5f, -1.0f, 2.0f};

Model conv_model() {
  nnhal::test::model_builder b;
  auto g = b.main();
  const auto x = g.input(OperandType::TENSOR_FLOAT32, {1, H, W, C});
  const auto filter = filter_values();
  const auto pool = b.pool(filter.size() * sizeof(float) + 8);
  std::memcpy(b.model().pools[pool].data + 8, filter.data(), filter.size() * sizeof(float));
  const auto w = g.reference(OperandType::TENSOR_FLOAT32, {K, F, F, C}, pool, 8,
                             static_cast<std::uint32_t>(filter.size() * sizeof(float)));
  const auto bias = g.constant(OperandType::TENSOR_FLOAT32, {K}, bias_values);
  const auto conv = g.temporary(OperandType::TENSOR_FLOAT32, {1, H - F + 1, W - F + 1, K});
  g.op(OperationType::CONV_2D, {x, w, bias, g.i32(0), g.i32(0), g.i32(0), g.i32(0), g.i32(1), g.i32(1), g.i32(0)},
       {conv});
  const auto y = g.output(OperandType::TENSOR_FLOAT32, {1, (H - F + 1) * (W - F + 1) * K});
  g.op(OperationType::RESHAPE, {conv, g.i32_tensor({1, -1})}, {y});
  return b.build();
}

std::vector<float> conv_input() {
  std::vector<float> v(H * W * C);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7f * static_cast<float>(i));
  return v;
}

/// The conv of conv_model() on conv_input(), in double, from the HAL formula.
std::vector<double> conv_oracle() {
  const auto in = conv_input();
  const auto f = filter_values();
  std::vector<double> out;
  for (std::uint32_t oy = 0; oy + F <= H; ++oy)
    for (std::uint32_t ox = 0; ox + F <= W; ++ox)
      for (std::uint32_t k = 0; k < K; ++k) {
        double acc = bias_values[k];
        for (std::uint32_t fy = 0; fy < F; ++fy)
          for (std::uint32_t fx = 0; fx < F; ++fx)
            for (std::uint32_t c = 0; c < C; ++c)
              acc += static_cast<double>(in[((oy + fy) * W + ox + fx) * C + c]) *
                     static_cast<double>(f[((k * F + fy) * F + fx) * C + c]);
        out.push_back(acc);
      }
  return out;
}

struct run_result {
  ErrorStatus status = ErrorStatus::NONE;
  std::vector<float> output;
};

/// Executes `pm` (a conv_model) on conv_input().
run_result run(const ex::prepared_model& pm) {
  const Model& m = pm.model();
  Request r = nnhal::test::make_request(m);
  const auto in = conv_input();
  auto& pool = std::get<Memory>(r.pools[0]);
  std::memcpy(pool.data + r.inputs[0].location.offset, in.data(),
              std::min<std::size_t>(in.size() * sizeof(float), r.inputs[0].location.length));
  const auto outcome = ex::execute(pm, r);
  run_result res;
  res.status = outcome.status;
  if (outcome.status == ErrorStatus::NONE) {
    res.output.resize(r.outputs[0].location.length / sizeof(float));
    std::memcpy(res.output.data(), pool.data + r.outputs[0].location.offset, res.output.size() * sizeof(float));
  }
  return res;
}

void check_conv_output(const run_result& r) {
  REQUIRE(r.status == ErrorStatus::NONE);
  const auto want = conv_oracle();
  REQUIRE(r.output.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    CHECK(std::abs(r.output[i] - want[i]) <= 1e-5 + 1e-5 * std::abs(want[i]));
}

/// Saves conv_model() for `token` to `files`.
void save_conv(const cache_files& files, const CacheToken& token, ca::token_store& store,
               const ca::cache_options& o = {}) {
  auto pm = ex::prepare(conv_model());
  REQUIRE(pm.ok());
  const auto st = ca::save_to_cache(**pm, files.model_fds, files.data_fds, token, store, o);
  INFO(why(st));
  REQUIRE(st.ok());
}

auto load(const cache_files& files, const CacheToken& token, const ca::token_store& store,
          const ca::cache_options& o = {}) {
  return ca::prepare_from_cache(files.model_fds, files.data_fds, token, store, o);
}

ca::token_store open_store(const fs::path& dir, const std::string& version = "test-driver 1.0") {
  auto s = ca::token_store::open(dir / "store", version);
  INFO(why(s));
  REQUIRE(s.ok());
  return std::move(*s);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---------------------------------------------------------------------------------------
// Field-by-field model comparison for the serializer round trip.

void check_same_subgraph(const Subgraph& a, const Subgraph& b) {
  REQUIRE(a.operands.size() == b.operands.size());
  for (std::size_t i = 0; i < a.operands.size(); ++i) {
    const Operand &x = a.operands[i], &y = b.operands[i];
    CAPTURE(i);
    CHECK(x.type == y.type);
    CHECK(x.dimensions == y.dimensions);
    CHECK(x.numberOfConsumers == y.numberOfConsumers);
    CHECK(std::memcmp(&x.scale, &y.scale, sizeof(float)) == 0);
    CHECK(x.zeroPoint == y.zeroPoint);
    CHECK(x.lifetime == y.lifetime);
    CHECK(x.location.poolIndex == y.location.poolIndex);
    CHECK(x.location.offset == y.location.offset);
    CHECK(x.location.length == y.location.length);
    REQUIRE(x.extraParams.index() == y.extraParams.index());
    if (const auto* pc = std::get_if<SymmPerChannelQuantParams>(&x.extraParams)) {
      CHECK(pc->channelDim == std::get<SymmPerChannelQuantParams>(y.extraParams).channelDim);
      CHECK(pc->scales == std::get<SymmPerChannelQuantParams>(y.extraParams).scales);
    }
    if (const auto* e = std::get_if<std::vector<std::uint8_t>>(&x.extraParams))
      CHECK(*e == std::get<std::vector<std::uint8_t>>(y.extraParams));
  }
  REQUIRE(a.operations.size() == b.operations.size());
  for (std::size_t i = 0; i < a.operations.size(); ++i) {
    CHECK(a.operations[i].type == b.operations[i].type);
    CHECK(a.operations[i].inputs == b.operations[i].inputs);
    CHECK(a.operations[i].outputs == b.operations[i].outputs);
  }
  CHECK(a.inputIndexes == b.inputIndexes);
  CHECK(a.outputIndexes == b.outputIndexes);
}

void check_same_model(const Model& a, const Model& b) {
  check_same_subgraph(a.main, b.main);
  REQUIRE(a.referenced.size() == b.referenced.size());
  for (std::size_t i = 0; i < a.referenced.size(); ++i) check_same_subgraph(a.referenced[i], b.referenced[i]);
  CHECK(a.operandValues == b.operandValues);
  REQUIRE(a.pools.size() == b.pools.size());
  for (std::size_t i = 0; i < a.pools.size(); ++i) {
    REQUIRE(a.pools[i].size == b.pools[i].size);
    CHECK(std::memcmp(a.pools[i].data, b.pools[i].data, a.pools[i].size) == 0);
  }
  CHECK(a.relaxComputationFloat32toFloat16 == b.relaxComputationFloat32toFloat16);
  REQUIRE(a.extensionNameToPrefix.size() == b.extensionNameToPrefix.size());
  for (std::size_t i = 0; i < a.extensionNameToPrefix.size(); ++i) {
    CHECK(a.extensionNameToPrefix[i].name == b.extensionNameToPrefix[i].name);
    CHECK(a.extensionNameToPrefix[i].prefix == b.extensionNameToPrefix[i].prefix);
  }
}

/// A model using every serialized feature (it need not be executable).
Model feature_model() {
  nnhal::test::model_builder b;
  auto g = b.main();
  const auto x = g.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 3, 3, 2}, 0.5f, 128);
  const auto w = g.reference(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 2, 2, 2}, b.pool(16), 0, 16);
  g.operand(w).extraParams = SymmPerChannelQuantParams{{0.25f, 0.5f}, 0};
  for (std::size_t i = 0; i < 16; ++i) b.model().pools[0].data[i] = static_cast<std::byte>(i * 7);
  const auto bias = g.constant(OperandType::TENSOR_INT32, {2}, std::vector<std::int32_t>{1, -1});
  const auto y = g.output(OperandType::TENSOR_QUANT8_ASYMM, {1, 2, 2, 2}, 1.0f, 128);
  g.op(OperationType::CONV_2D, {x, w, bias, g.i32(0), g.i32(0), g.i32(0), g.i32(0), g.i32(1), g.i32(1), g.i32(0)}, {y});
  const auto e = g.temporary(make_extension_type(1, 3), {});
  g.operand(e).extraParams = std::vector<std::uint8_t>{9, 8, 7};
  auto r = b.referenced(0);
  const auto a = r.input(OperandType::TENSOR_FLOAT32, {4});
  const auto c = r.output(OperandType::TENSOR_FLOAT32, {0});
  r.op(OperationType::RELU, {a}, {c});
  (void)g.no_value(OperandType::TENSOR_FLOAT32);
  (void)g.subgraph_ref(0);
  b.relaxed().extension("com.example.cache", 1);
  Model m = b.build();
  m.main.operands[x].scale = -0.0f;  // bit patterns survive
  return m;
}

}  // namespace

// =======================================================================================

TEST_SUITE("cache: format") {
  TEST_CASE("serializer round trip keeps every field") {
    const Model m = feature_model();
    const ca::file_identity id{token_of(1), {5, 6}, "drv"};
    const auto enc = ca::encode(m, id, ca::default_plan(m));
    std::shared_ptr<std::byte[]> data(new std::byte[enc.data_cache.size()]);
    std::memcpy(data.get(), enc.data_cache.data(), enc.data_cache.size());
    auto dec = ca::decode(enc.model_cache, data, enc.data_cache.size(), {token_of(1), "drv", nullptr});
    INFO(why(dec));
    REQUIRE(dec.ok());
    check_same_model(m, dec->model);
    CHECK(dec->plan.steps.size() == m.main.operations.size());
    CHECK(dec->packed.empty());
    // Sections start on 64-byte boundaries.
    auto f = ca::parse_cache_file(enc.model_cache, ca::model_cache_magic, {token_of(1), "drv", nullptr}, "m");
    REQUIRE(f.ok());
    REQUIRE(f->sections.size() == 2);
    for (const auto& sec : f->sections) CHECK(sec.offset % 64 == 0);
  }

  TEST_CASE("header checks name the field") {
    const Model m = conv_model();
    const ca::file_identity id{token_of(1), {5}, "drv"};
    const auto enc = ca::encode(m, id, ca::default_plan(m));
    std::shared_ptr<std::byte[]> data(new std::byte[enc.data_cache.size()]);
    std::memcpy(data.get(), enc.data_cache.data(), enc.data_cache.size());
    auto decode_with = [&](std::vector<std::byte> mc, const CacheToken& t, std::string_view drv,
                           std::size_t data_size) {
      return ca::decode(mc, data, data_size, {t, drv, nullptr});
    };
    auto msg = [](const auto& r) { return r.ok() ? std::string("ok") : r.err().message; };
    auto mc = enc.model_cache;
    mc[0] = std::byte{'X'};
    CHECK(contains(msg(decode_with(mc, token_of(1), "drv", enc.data_cache.size())), "bad magic"));
    mc = enc.model_cache;
    std::swap(mc[8], mc[9]);
    CHECK(contains(msg(decode_with(mc, token_of(1), "drv", enc.data_cache.size())), "byte-swapped"));
    mc = enc.model_cache;
    mc[12] = std::byte{9};
    CHECK(contains(msg(decode_with(mc, token_of(1), "drv", enc.data_cache.size())), "format version 9"));
    mc = enc.model_cache;
    mc.pop_back();
    CHECK(contains(msg(decode_with(mc, token_of(1), "drv", enc.data_cache.size())), "truncated"));
    mc = enc.model_cache;
    mc.push_back(std::byte{0});
    CHECK(contains(msg(decode_with(mc, token_of(1), "drv", enc.data_cache.size())), "extended"));
    CHECK(
        contains(msg(decode_with(enc.model_cache, token_of(2), "drv", enc.data_cache.size())), "another cache token"));
    CHECK(contains(msg(decode_with(enc.model_cache, token_of(1), "drv 2", enc.data_cache.size())), "driver version"));
    CHECK(contains(msg(decode_with(enc.model_cache, token_of(1), "drv", enc.data_cache.size() - 1)),
                   "data cache: header says"));
    CHECK(msg(decode_with(enc.model_cache, token_of(1), "drv", enc.data_cache.size())) == "ok");

    // A data cache from another save (another pair id) is refused.
    const auto other = ca::encode(m, {token_of(1), {6}, "drv"}, ca::default_plan(m));
    std::shared_ptr<std::byte[]> other_data(new std::byte[other.data_cache.size()]);
    std::memcpy(other_data.get(), other.data_cache.data(), other.data_cache.size());
    auto r = ca::decode(enc.model_cache, other_data, other.data_cache.size(), {token_of(1), "drv", nullptr});
    CHECK(contains(msg(r), "another save"));
  }

  TEST_CASE("hostile counts are refused before allocating") {
    // A GRAPH whose operand count claims 2^32-1 operands in a few bytes.
    ca::detail::byte_writer w;
    w.u8(0);
    w.u32(0);
    w.u64(0);
    w.u32(0);
    w.u32(1);
    w.u32(0xFFFFFFFFu);
    for (int i = 0; i < 3; ++i) w.u32(0);
    auto r = ca::detail::decode_graph(w.buffer(), "model cache");
    REQUIRE_FALSE(r.ok());
    CHECK(r.status() == ErrorStatus::GENERAL_FAILURE);
    CHECK(contains(r.err().message, "operand count: count 4294967295 needs at least"));
  }
}

TEST_SUITE("cache: files and store") {
  TEST_CASE("number of cache files: defaults, driver choice, HAL limit") {
    auto d = ca::number_of_cache_files_needed();
    REQUIRE(d.ok());
    CHECK(d->model == 1);
    CHECK(d->data == 1);
    auto c = ca::number_of_cache_files_needed({3, MAX_NUMBER_OF_CACHE_FILES});
    REQUIRE(c.ok());
    CHECK(c->model == 3);
    CHECK_FALSE(ca::number_of_cache_files_needed({MAX_NUMBER_OF_CACHE_FILES + 1, 1}).ok());
    CHECK_FALSE(ca::number_of_cache_files_needed({1, MAX_NUMBER_OF_CACHE_FILES + 1}).ok());
  }
}

// Everything that saves or loads needs a working digest (NNHAL_WITH_OPENSSL).
#if defined(NNHAL_WITH_OPENSSL)
TEST_SUITE("cache: files and store") {
  TEST_CASE("save, prepare from cache, execute; extra files stay empty") {
    scratch_dir dir;
    auto store = open_store(dir.path);
    SUBCASE("one file each") {
      cache_files files(dir.path, "a");
      save_conv(files, token_of(1), store);
      auto pm = load(files, token_of(1), store);
      INFO(why(pm));
      REQUIRE(pm.ok());
      check_same_model(conv_model(), (*pm)->model());
      check_conv_output(run(**pm));
    }
    SUBCASE("driver asks for 2 model and 3 data files") {
      cache_files files(dir.path, "b", 2, 3);
      ca::cache_options o;
      o.files = {2, 3};
      save_conv(files, token_of(2), store, o);
      CHECK(read_fd(files.model_fds[1]).empty());
      CHECK(read_fd(files.data_fds[2]).empty());
      auto pm = load(files, token_of(2), store, o);
      REQUIRE(pm.ok());
      check_conv_output(run(**pm));
      // Something written into an extra model-cache file is a modification.
      write_fd(files.model_fds[1], {std::byte{1}});
      auto bad = load(files, token_of(2), store, o);
      CHECK(bad.status() == ErrorStatus::GENERAL_FAILURE);
      // Handle counts must match what the driver reported.
      auto wrong = load(files, token_of(2), store);
      CHECK(wrong.status() == ErrorStatus::INVALID_ARGUMENT);
    }
    SUBCASE("one file given as two handles is refused") {
      cache_files files(dir.path, "c");
      const int fds[] = {files.model_fds[0]};
      auto st = ca::save_to_cache(conv_model(), fds, fds, token_of(3), store);
      CHECK(st.status() == ErrorStatus::INVALID_ARGUMENT);
    }
    SUBCASE("caching switched off by the driver") {
      cache_files files(dir.path, "d");
      ca::cache_options o;
      o.files = {0, 0};
      auto st = ca::save_to_cache(conv_model(), {}, {}, token_of(4), store, o);
      CHECK(st.status() == ErrorStatus::GENERAL_FAILURE);
      CHECK(contains(st.err().message, "not supported"));
    }
    SUBCASE("an invalid model is not saved") {
      cache_files files(dir.path, "e");
      Model m = conv_model();
      m.main.operations[0].inputs[0] = 999;
      auto st = ca::save_to_cache(m, files.model_fds, files.data_fds, token_of(5), store);
      CHECK(st.status() == ErrorStatus::GENERAL_FAILURE);
    }
  }

  TEST_CASE("flipping any single byte of the model cache is rejected") {
    scratch_dir dir;
    auto store = open_store(dir.path);
    cache_files files(dir.path, "a");
    save_conv(files, token_of(1), store);
    const auto original = read_fd(files.model_fds[0]);
    REQUIRE(original.size() > 100);
    const auto data_file = read_fd(files.data_fds[0]);
    std::shared_ptr<std::byte[]> data(new std::byte[data_file.size()]);
    std::memcpy(data.get(), data_file.data(), data_file.size());
    std::size_t rejected = 0, parsed_without_digest = 0;
    for (std::size_t i = 0; i < original.size(); ++i) {
      for (std::uint8_t mask : {std::uint8_t{0xFF}, std::uint8_t(1u << (i % 8))}) {
        auto bytes = original;
        bytes[i] ^= std::byte{mask};
        write_fd(files.model_fds[0], bytes);
        auto pm = load(files, token_of(1), store);
        CAPTURE(i);
        if (!pm.ok() && pm.status() == ErrorStatus::GENERAL_FAILURE) ++rejected;
        // Without the digest the decoder still never misbehaves on this input.
        auto dec = ca::decode(bytes, data, data_file.size(), {token_of(1), "test-driver 1.0", nullptr});
        if (dec.ok() && validate_model(dec->model).ok()) ++parsed_without_digest;
      }
    }
    CHECK(rejected == 2 * original.size());
    MESSAGE(parsed_without_digest, " of ", 2 * original.size(), " flips still decode and validate without the digest");
    write_fd(files.model_fds[0], original);
    CHECK(load(files, token_of(1), store).ok());
  }

  TEST_CASE("truncated and extended files are rejected") {
    scratch_dir dir;
    auto store = open_store(dir.path);
    cache_files files(dir.path, "a");
    save_conv(files, token_of(1), store);
    const auto model = read_fd(files.model_fds[0]);
    const auto data = read_fd(files.data_fds[0]);
    auto expect_miss = [&](const char* what) {
      auto pm = load(files, token_of(1), store);
      INFO(what);
      CHECK(pm.status() == ErrorStatus::GENERAL_FAILURE);
      return pm.ok() ? std::string() : pm.err().message;
    };
    for (std::size_t cut : {std::size_t{1}, std::size_t{8}, model.size() / 2, model.size()}) {
      write_fd(files.model_fds[0],
               std::vector<std::byte>(model.begin(), model.end() - static_cast<std::ptrdiff_t>(cut)));
      expect_miss("model cache truncated");
    }
    auto longer = model;
    longer.push_back(std::byte{0});
    write_fd(files.model_fds[0], longer);
    expect_miss("model cache extended");
    write_fd(files.model_fds[0], model);

    write_fd(files.data_fds[0], std::vector<std::byte>(data.begin(), data.end() - 1));
    CHECK(contains(expect_miss("data cache truncated"), "truncated"));
    auto data_longer = data;
    data_longer.push_back(std::byte{0});
    write_fd(files.data_fds[0], data_longer);
    CHECK(contains(expect_miss("data cache extended"), "extended"));
    write_fd(files.data_fds[0], {});
    expect_miss("data cache empty");
    write_fd(files.data_fds[0], data);
    CHECK(load(files, token_of(1), store).ok());
  }

  TEST_CASE("a token that does not match is rejected") {
    scratch_dir dir;
    auto store = open_store(dir.path);
    cache_files a(dir.path, "a"), b(dir.path, "b");
    save_conv(a, token_of(1), store);
    save_conv(b, token_of(2), store);
    auto unknown = load(a, token_of(3), store);
    CHECK(unknown.status() == ErrorStatus::GENERAL_FAILURE);
    CHECK(contains(unknown.err().message, "no cache entry"));
    // Token 2's mapping with token 1's files: the digest differs.
    auto swapped = load(a, token_of(2), store);
    CHECK(swapped.status() == ErrorStatus::GENERAL_FAILURE);
    CHECK(contains(swapped.err().message, "digest does not match"));
    CHECK(load(a, token_of(1), store).ok());
    CHECK(load(b, token_of(2), store).ok());
  }

  TEST_CASE("a driver version change invalidates the whole store") {
    scratch_dir dir;
    cache_files files(dir.path, "a");
    {
      auto v1 = open_store(dir.path, "driver 1");
      save_conv(files, token_of(1), v1);
      save_conv(files, token_of(2), v1);
      CHECK(*v1.size() == 2);
      CHECK(load(files, token_of(2), v1).ok());
    }
    auto v2 = open_store(dir.path, "driver 2");
    CHECK(*v2.size() == 0);
    auto pm = load(files, token_of(2), v2);
    CHECK(pm.status() == ErrorStatus::GENERAL_FAILURE);
    // Going back does not resurrect the old mappings: the store was started over.
    auto v1_again = open_store(dir.path, "driver 1");
    CHECK(*v1_again.size() == 0);
    CHECK_FALSE(load(files, token_of(2), v1_again).ok());
  }
}
#endif

TEST_SUITE("cache: files and store") {
  TEST_CASE("the store keeps at most `capacity` tokens, dropping the oldest") {
    scratch_dir dir;
    auto s = ca::token_store::open(dir.path / "store", "d", ca::default_digest::name, 3);
    REQUIRE(s.ok());
    for (std::uint8_t i = 0; i < 5; ++i) REQUIRE(s->put(token_of(i), ca::digest_value{i}).ok());
    CHECK(*s->size() == 3);
    CHECK_FALSE(s->find(token_of(1))->has_value());
    CHECK((**s->find(token_of(4)))[0] == 4);
    // A damaged store file is started over, not trusted.
    {
      fd_holder f(dir.path / "store" / std::string(ca::token_store::store_file_name));
      write_fd(f.fd, {std::byte{'x'}});
    }
    CHECK_FALSE(s->find(token_of(4))->has_value());
    REQUIRE(s->put(token_of(9), ca::digest_value{9}).ok());
    CHECK(*s->size() == 1);
  }

  TEST_CASE("without a digest the cache refuses to work") {
    scratch_dir dir;
    auto store = ca::token_store::open(dir.path / "store", "d", ca::no_digest::name);
    REQUIRE(store.ok());
    cache_files files(dir.path, "a");
    auto st = ca::save_to_cache<ca::no_digest>(conv_model(), files.model_fds, files.data_fds, token_of(1), *store);
    CHECK(st.status() == ErrorStatus::GENERAL_FAILURE);
    CHECK(contains(st.err().message, "NNHAL_WITH_OPENSSL"));
    auto pm = ca::prepare_from_cache<ca::no_digest>(files.model_fds, files.data_fds, token_of(1), *store);
    CHECK(pm.status() == ErrorStatus::GENERAL_FAILURE);
    CHECK(read_fd(files.model_fds[0]).empty());  // nothing was written
  }
}

#if defined(NNHAL_WITH_OPENSSL)
namespace {
/// Another digest plugged in (SHA-256 again, under another name): mappings made with one
/// digest are never checked with another.
struct renamed_sha256 : ca::sha256 {
  static constexpr std::string_view name = "sha256-renamed";
};
}  // namespace

TEST_CASE("cache: digests are pluggable and never mixed") {
  scratch_dir dir;
  cache_files files(dir.path, "a");
  auto store = open_store(dir.path);
  auto st = ca::save_to_cache<renamed_sha256>(conv_model(), files.model_fds, files.data_fds, token_of(1), store);
  CHECK(st.status() == ErrorStatus::GENERAL_FAILURE);
  CHECK(contains(st.err().message, "digest"));
  auto other = ca::token_store::open(dir.path / "store", "test-driver 1.0", renamed_sha256::name);
  REQUIRE(other.ok());
  REQUIRE(ca::save_to_cache<renamed_sha256>(conv_model(), files.model_fds, files.data_fds, token_of(1), *other).ok());
  auto pm = ca::prepare_from_cache<renamed_sha256>(files.model_fds, files.data_fds, token_of(1), *other);
  REQUIRE(pm.ok());
  check_conv_output(run(**pm));
  // SHA-256 of "abc" (FIPS 180-2 example), through the default digest.
  ca::sha256 d;
  const char abc[] = "abc";
  d.update(std::as_bytes(std::span(abc, 3)));
  const auto h = d.final();
  REQUIRE(h.ok());
  CHECK((*h)[0] == 0xba);
  CHECK((*h)[1] == 0x78);
  CHECK((*h)[31] == 0xad);
}

// ---------------------------------------------------------------------------------------
// Two processes: this binary re-executed with NNHAL_CACHE_TEST_ROLE=save|load, running
// only the "cache: child process role" case.

TEST_CASE("cache: child process role") {
  const char* role = std::getenv("NNHAL_CACHE_TEST_ROLE");
  const char* where = std::getenv("NNHAL_CACHE_TEST_DIR");
  if (!role || !where) return;  // a normal run: nothing to do
  const fs::path dir = where;
  auto store = open_store(dir);
  cache_files files(dir, "shared");
  if (std::string(role) == "save") {
    save_conv(files, token_of(7), store);
  } else {
    auto pm = load(files, token_of(7), store);
    INFO(why(pm));
    REQUIRE(pm.ok());
    check_conv_output(run(**pm));
  }
}

namespace {
int run_child(const std::string& role, const fs::path& dir) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::setenv("NNHAL_CACHE_TEST_ROLE", role.c_str(), 1);
    ::setenv("NNHAL_CACHE_TEST_DIR", dir.c_str(), 1);
    ::execl("/proc/self/exe", "cache_test", "--test-case=cache: child process role", "--no-version=true",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
}  // namespace

TEST_CASE("cache: the token store survives a process restart") {
  scratch_dir dir;
  CHECK(run_child("save", dir.path) == 0);
  CHECK(run_child("load", dir.path) == 0);
  // This process sees the mapping too.
  auto store = open_store(dir.path);
  cache_files files(dir.path, "shared");
  auto pm = load(files, token_of(7), store);
  REQUIRE(pm.ok());
  check_conv_output(run(**pm));
}

// ---------------------------------------------------------------------------------------

TEST_CASE("cache: weights packed at prepare are saved and used by prepare_from_cache") {
  scratch_dir dir;
  auto store = open_store(dir.path);
  cache_files files(dir.path, "a");
  auto fresh = ex::prepare(conv_model());
  REQUIRE(fresh.ok());
  const ops::packed_table& packed = (*fresh)->packed();
  REQUIRE(packed.size() == 1);  // the conv's filter
  const std::string key = packed.begin()->first;
  const auto blob = packed.begin()->second.bytes;
  CHECK(key.rfind("0/0/p1/f32:", 0) == 0);  // main graph, operation 0, layout version
  REQUIRE(ca::save_to_cache(**fresh, files.model_fds, files.data_fds, token_of(1), store).ok());

  SUBCASE("the cached blob is what the kernel runs on") {
    auto pm = load(files, token_of(1), store);
    REQUIRE(pm.ok());
    const auto& got = (*pm)->packed();
    REQUIRE(got.count(key) == 1);
    const auto cached = got.at(key).bytes;
    REQUIRE(cached.size() == blob.size());
    CHECK(std::memcmp(cached.data(), blob.data(), blob.size()) == 0);
    check_conv_output(run(**pm));
    // Zero the packed filter inside the data cache (the model's own filter stays): the
    // output becomes the bias alone, so the kernel did not pack again.
    auto bytes = read_fd(files.data_fds[0]);
    const std::vector<std::byte> pattern(blob.begin(), blob.end());
    const auto at = std::search(bytes.begin(), bytes.end(), pattern.begin(), pattern.end());
    REQUIRE(at != bytes.end());
    std::fill(at, at + static_cast<std::ptrdiff_t>(pattern.size()), std::byte{0});
    write_fd(files.data_fds[0], bytes);
    auto zeroed = load(files, token_of(1), store);
    REQUIRE(zeroed.ok());
    const auto r = run(**zeroed);
    REQUIRE(r.status == ErrorStatus::NONE);
    for (std::size_t i = 0; i < r.output.size(); ++i) REQUIRE(r.output[i] == bias_values[i % K]);
  }
  SUBCASE("a blob of the wrong size or alignment is packed again") {
    for (std::size_t cut : {std::size_t{4}, std::size_t{1}}) {
      std::vector<std::byte> copy(blob.begin(), blob.end());
      copy.push_back(std::byte{0});
      ops::packed_table t;
      // Four bytes short, or the right length at an address no float may have.
      const std::span<const std::byte> bytes = cut == 4 ? std::span<const std::byte>(copy).first(blob.size() - 4)
                                                        : std::span<const std::byte>(copy).subspan(1, blob.size());
      t.emplace(key, ops::packed_blob{std::make_shared<int>(0), bytes});
      ex::prepare_options o;
      o.packed = &t;
      auto pm = ex::prepare(conv_model(), o);
      REQUIRE(pm.ok());
      CHECK((*pm)->packed().at(key).bytes.data() != bytes.data());
      check_conv_output(run(**pm));
    }
  }
  SUBCASE("packed weights that would pass the data-cache limit are left out") {
    cache_files plain(dir.path, "c"), limited(dir.path, "d");
    REQUIRE(ca::save_to_cache(conv_model(), plain.model_fds, plain.data_fds, token_of(3), store).ok());
    const std::size_t without = read_fd(plain.data_fds[0]).size();
    REQUIRE(read_fd(files.data_fds[0]).size() > without);
    ca::cache_options o;
    o.max_data_cache_bytes = without;
    REQUIRE(ca::save_to_cache(**fresh, limited.model_fds, limited.data_fds, token_of(4), store, o).ok());
    CHECK(read_fd(limited.data_fds[0]).size() == without);
    auto pm = load(limited, token_of(4), store);
    REQUIRE(pm.ok());
    check_conv_output(run(**pm));
  }
  SUBCASE("a model saved without packed weights packs at prepare") {
    cache_files plain(dir.path, "b");
    REQUIRE(ca::save_to_cache(conv_model(), plain.model_fds, plain.data_fds, token_of(2), store).ok());
    auto pm = load(plain, token_of(2), store);
    REQUIRE(pm.ok());
    CHECK((*pm)->packed().size() == 1);
    check_conv_output(run(**pm));
  }
}

TEST_CASE("cache: GROUPED_CONV_2D's packing for few channels per group is kept and found") {
  // 32 channels in 8 groups of 4, NHWC, 3x3 filter, a constant filter: on AVX-512 CPUs the
  // kernel that holds 16 channels per vector packs the filter at bind.
  nnhal::test::model_builder b;
  auto g = b.main();
  const auto x = g.input(OperandType::TENSOR_FLOAT32, {1, 5, 5, 32});
  std::vector<float> fv(32 * 3 * 3 * 4);
  for (std::size_t i = 0; i < fv.size(); ++i) fv[i] = 0.125f * static_cast<float>(static_cast<int>(i % 9) - 4);
  const auto f = g.constant(OperandType::TENSOR_FLOAT32, {32, 3, 3, 4}, fv);
  const auto bias = g.constant(OperandType::TENSOR_FLOAT32, {32}, std::vector<float>(32, 0.5f));
  const auto y = g.output(OperandType::TENSOR_FLOAT32, {1, 5, 5, 32});
  g.op(OperationType::GROUPED_CONV_2D,
       {x, f, bias, g.i32(1), g.i32(1), g.i32(1), g.i32(1), g.i32(1), g.i32(1), g.i32(8), g.i32(0), g.boolean(false)},
       {y});
  const Model m = b.build();
  auto first = ex::prepare(m);
  INFO(why(first));
  REQUIRE(first.ok());
  if (!nnhal::simd::cpu().avx512) {
    MESSAGE("no AVX-512: the small-group kernel is not bound here");
    return;
  }
  const ops::packed_table& packed = (*first)->packed();
  const auto it = std::find_if(packed.begin(), packed.end(),
                               [](const auto& e) { return contains(e.first, "grouped_small_f32:32x9x4"); });
  REQUIRE(it != packed.end());
  CHECK(it->second.bytes.size() == fv.size() * sizeof(float));
  // A second preparation given that table uses the blob rather than packing again.
  ex::prepare_options o;
  o.packed = &packed;
  auto second = ex::prepare(m, o);
  REQUIRE(second.ok());
  CHECK((*second)->packed().at(it->first).bytes.data() == it->second.bytes.data());
}

TEST_CASE("large_bytes: 64-byte aligned, 2 MiB aligned from 2 MiB on, zeroed on request") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{3} << 20}) {
    const auto b = nnhal::types::large_bytes(n, true);
    REQUIRE(b);
    const auto at = reinterpret_cast<std::uintptr_t>(b.get());
    CHECK(at % (n >= (std::size_t{2} << 20) ? std::size_t{2} << 20 : 64) == 0);
    CHECK(std::all_of(b.get(), b.get() + n, [](std::byte x) { return x == std::byte{0}; }));
  }
}

TEST_CASE("cache: the PACKED_WEIGHTS table is bounds-checked") {
  const std::vector<std::byte> a(100, std::byte{1}), b(7, std::byte{2});
  ops::packed_table t;
  t.emplace("x/a", ops::packed_blob{nullptr, a});
  t.emplace("x/b", ops::packed_blob{nullptr, b});
  const auto enc = ca::encode_packed(t);
  const auto owner = std::make_shared<int>(0);
  auto back = ca::decode_packed(enc, owner);
  REQUIRE(back.ok());
  REQUIRE(back->size() == 2);
  CHECK(back->at("x/a").bytes.size() == 100);
  CHECK(back->at("x/b").bytes.size() == 7);
  CHECK(std::to_integer<int>(back->at("x/b").bytes[6]) == 2);
  for (const auto& [k, blob] : *back) CHECK((blob.bytes.data() - enc.data()) % 64 == 0);
  CHECK(ca::decode_packed({}, owner)->empty());
  // Hostile tables: every field is checked against the section.
  auto patched = [&](std::size_t at, std::uint64_t v) {
    auto e = enc;
    for (int i = 0; i < 8; ++i) e[at + static_cast<std::size_t>(i)] = static_cast<std::byte>(v >> (8 * i));
    return ca::decode_packed(e, owner);
  };
  const std::size_t off_a = 4 + 2 + 3, size_a = off_a + 8;  // entry 0: key, offset, size
  CHECK(contains(patched(off_a, 1u << 20).err().message, "outside the section"));
  CHECK(contains(patched(off_a, 65).err().message, "outside the section"));  // misaligned
  CHECK(contains(patched(size_a, ~std::uint64_t{0}).err().message, "outside the section"));
  CHECK(contains(patched(0, 1000).err().message, "entry count"));
  auto dup = enc;
  dup[4 + 2 + 2] = std::byte{'b'};  // "x/a" -> "x/b"
  CHECK(contains(ca::decode_packed(dup, owner).err().message, "given twice"));
  CHECK(contains(ca::decode_packed(std::span(enc).first(20), owner).err().message, "PACKED_WEIGHTS"));
}

namespace {

/// `original` with 1 to 8 random bytes replaced: after the header (the constants) when
/// `constants_only`, else anywhere.
std::vector<std::byte> randomly_corrupted(const std::vector<std::byte>& original, bool constants_only,
                                          std::mt19937& rng) {
  auto bytes = original;
  const int flips = 1 + static_cast<int>(rng() % 8);
  const std::size_t lo = constants_only ? 128 : 0;
  for (int k = 0; k < flips; ++k) bytes[lo + rng() % (bytes.size() - lo)] = static_cast<std::byte>(rng());
  return bytes;
}

}  // namespace

TEST_CASE("cache: random data-cache corruption never crashes") {
  scratch_dir dir;
  auto store = open_store(dir.path);
  cache_files files(dir.path, "a");
  save_conv(files, token_of(1), store);
  const auto original = read_fd(files.data_fds[0]);
  std::mt19937 rng(1234);
  int prepared = 0, executed = 0, rejected = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const auto bytes = randomly_corrupted(original, iter % 2 == 0, rng);
    write_fd(files.data_fds[0], bytes);
    auto pm = load(files, token_of(1), store);
    if (!pm.ok()) {
      CHECK(pm.status() == ErrorStatus::GENERAL_FAILURE);
      ++rejected;
      continue;
    }
    ++prepared;
    const auto r = run(**pm);  // wrong values are allowed; a crash is not
    if (r.status == ErrorStatus::NONE) ++executed;
  }
  MESSAGE("data-cache corruption: ", rejected, " rejected, ", prepared, " prepared, ", executed, " executed");
  CHECK(rejected + prepared == 400);
}

// ---------------------------------------------------------------------------------------
// The driver's private copies of the data cache (cache/data_mirror.hpp).

namespace {

/// The copy files in `m`'s directory.
std::vector<fs::path> copies_in(const ca::data_mirror& m) {
  std::vector<fs::path> v;
  for (const auto& e : fs::directory_iterator(m.directory()))
    if (e.path().filename().string().starts_with(ca::data_mirror::file_prefix)) v.push_back(e.path());
  return v;
}

ca::cache_options with_copies(const fs::path& dir, std::uint64_t budget = std::uint64_t{1} << 30) {
  auto m = ca::data_mirror::open(dir / "copies", budget);
  INFO(why(m));
  REQUIRE(m.ok());
  ca::cache_options o;
  o.mirror = std::move(*m);
  return o;
}

}  // namespace

TEST_CASE("cache: the driver's copy of the data cache is mapped instead of the runtime's file") {
  scratch_dir dir;
  auto store = open_store(dir.path);
  cache_files files(dir.path, "a");
  const auto o = with_copies(dir.path);
  save_conv(files, token_of(1), store, o);
  const auto data = read_fd(files.data_fds[0]);
  auto copies = copies_in(*o.mirror);
  REQUIRE(copies.size() == 1);
  CHECK(fs::file_size(copies[0]) == data.size());
  CHECK(o.mirror->bytes_held() == data.size());
  CHECK((fs::status(o.mirror->directory()).permissions() & (fs::perms::group_all | fs::perms::others_all)) ==
        fs::perms::none);

  SUBCASE("the runtime's data cache emptied: the copy still serves, reading it fails") {
    write_fd(files.data_fds[0], {});
    auto pm = load(files, token_of(1), store, o);
    INFO(why(pm));
    REQUIRE(pm.ok());
    check_conv_output(run(**pm));
    CHECK(load(files, token_of(1), store).status() == ErrorStatus::GENERAL_FAILURE);
  }
  SUBCASE("the copy's bytes are the ones used") {
    // Zero the packed filter in the copy only: the output becomes the bias alone.
    auto fresh = ex::prepare(conv_model());
    REQUIRE(fresh.ok());
    const auto blob = (*fresh)->packed().begin()->second.bytes;
    std::vector<std::byte> bytes = data;
    const auto at = std::search(bytes.begin(), bytes.end(), blob.begin(), blob.end());
    REQUIRE(at != bytes.end());
    std::fill(at, at + static_cast<std::ptrdiff_t>(blob.size()), std::byte{0});
    fd_holder copy(copies[0]);
    write_fd(copy.fd, bytes);
    auto pm = load(files, token_of(1), store, o);
    REQUIRE(pm.ok());
    const auto r = run(**pm);
    REQUIRE(r.status == ErrorStatus::NONE);
    for (std::size_t i = 0; i < r.output.size(); ++i) REQUIRE(r.output[i] == bias_values[i % K]);
    auto from_file = load(files, token_of(1), store);  // the runtime's file is intact
    REQUIRE(from_file.ok());
    check_conv_output(run(**from_file));
  }
  SUBCASE("saving the token again replaces its copy; other tokens' copies stay") {
    cache_files other(dir.path, "b");
    save_conv(other, token_of(2), store, o);
    save_conv(files, token_of(1), store, o);
    const auto now = copies_in(*o.mirror);
    CHECK(now.size() == 2);
    CHECK(std::find(now.begin(), now.end(), copies[0]) == now.end());  // the first save's copy is gone
    write_fd(files.data_fds[0], {});
    auto pm = load(files, token_of(1), store, o);
    REQUIRE(pm.ok());
    check_conv_output(run(**pm));
  }
  SUBCASE("a copy that does not decode is removed and the runtime's file read") {
    for (std::size_t cut : {std::size_t{1}, data.size() / 2, data.size() - 1}) {
      for (const auto& c : copies_in(*o.mirror)) fs::remove(c);
      save_conv(files, token_of(1), store, o);
      copies = copies_in(*o.mirror);
      REQUIRE(copies.size() == 1);
      const fs::path newest = copies[0];
      {
        fd_holder copy(newest);
        write_fd(copy.fd, std::vector<std::byte>(data.begin(), data.end() - static_cast<std::ptrdiff_t>(cut)));
      }
      auto pm = load(files, token_of(1), store, o);
      CAPTURE(cut);
      INFO(why(pm));
      REQUIRE(pm.ok());
      check_conv_output(run(**pm));
      CHECK_FALSE(fs::exists(newest));
    }
  }
  SUBCASE("a copy replaced by a symbolic link is not followed") {
    const fs::path target = dir.path / "elsewhere";
    {
      fd_holder t(target);
      write_fd(t.fd, data);
    }
    fs::remove(copies[0]);
    fs::create_symlink(target, copies[0]);
    auto pm = load(files, token_of(1), store, o);  // the runtime's file, read
    REQUIRE(pm.ok());
    check_conv_output(run(**pm));
    CHECK_FALSE(fs::is_symlink(copies[0]));  // removed: it cannot serve
    CHECK(fs::exists(target));
    // Proof the link was not used: emptied, the runtime's file fails the load.
    fs::create_symlink(target, copies[0]);
    write_fd(files.data_fds[0], {});
    CHECK(load(files, token_of(1), store, o).status() == ErrorStatus::GENERAL_FAILURE);
  }
}

TEST_CASE("cache: copies of the data cache stay within their budget, least recently used dropped first") {
  scratch_dir dir;
  auto store = open_store(dir.path);
  std::vector<std::unique_ptr<cache_files>> files;
  for (int i = 0; i < 4; ++i) files.push_back(std::make_unique<cache_files>(dir.path, "f" + std::to_string(i)));
  // Size one copy first, then allow two and a half of them.
  std::uint64_t one = 0;
  {
    scratch_dir probe;
    auto probe_store = open_store(probe.path);
    const auto po = with_copies(probe.path);
    cache_files pf(probe.path, "p");
    save_conv(pf, token_of(9), probe_store, po);
    one = po.mirror->bytes_held();
    REQUIRE(one > 0);
  }
  const auto o = with_copies(dir.path, one * 5 / 2);
  // Ages set explicitly (file times can be coarse): copy 0 older than copy 1, then copy 0
  // used through a load, which must make copy 1 the least recently used.
  auto age = [](const fs::path& p, int seconds_ago) {
    struct timespec t[2];
    ::clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= seconds_ago;
    t[1] = t[0];
    REQUIRE(::utimensat(AT_FDCWD, p.c_str(), t, 0) == 0);
  };
  save_conv(*files[0], token_of(0), store, o);
  REQUIRE(copies_in(*o.mirror).size() == 1);
  const fs::path copy0 = copies_in(*o.mirror)[0];
  save_conv(*files[1], token_of(1), store, o);
  REQUIRE(copies_in(*o.mirror).size() == 2);
  fs::path copy1;
  for (const auto& p : copies_in(*o.mirror))
    if (p != copy0) copy1 = p;
  age(copy0, 200);
  age(copy1, 100);
  REQUIRE(load(*files[0], token_of(0), store, o).ok());
  save_conv(*files[2], token_of(2), store, o);
  CHECK(fs::exists(copy0));
  CHECK_FALSE(fs::exists(copy1));
  CHECK(copies_in(*o.mirror).size() == 2);
  CHECK(o.mirror->bytes_held() <= one * 5 / 2);
  // Copies 0 and 2 remain: both load with the runtime's data cache emptied.
  for (int i : {0, 2}) {
    write_fd(files[static_cast<std::size_t>(i)]->data_fds[0], {});
    auto pm = load(*files[static_cast<std::size_t>(i)], token_of(static_cast<std::uint8_t>(i)), store, o);
    CAPTURE(i);
    INFO(why(pm));
    REQUIRE(pm.ok());
    check_conv_output(run(**pm));
  }
  // Copy 1 was dropped; its runtime files still serve.
  auto pm1 = load(*files[1], token_of(1), store, o);
  REQUIRE(pm1.ok());
  check_conv_output(run(**pm1));

  // A budget smaller than one copy, or 0, keeps none (and the save still succeeds).
  for (std::uint64_t budget : {one - 1, std::uint64_t{0}}) {
    scratch_dir d2;
    auto s2 = open_store(d2.path);
    const auto o2 = with_copies(d2.path, budget);
    save_conv(*files[3], token_of(3), s2, o2);
    CHECK(copies_in(*o2.mirror).empty());
    CHECK(load(*files[3], token_of(3), s2, o2).ok());
  }
}

TEST_CASE("cache: random corruption of the driver's copy never crashes") {
  // Only the copy is corrupted: a copy that does not decode is dropped and the intact
  // runtime's file serves, so every load must succeed; one that decodes may give wrong
  // values, never a crash.
  scratch_dir dir;
  auto store = open_store(dir.path);
  cache_files files(dir.path, "a");
  const auto o = with_copies(dir.path);
  save_conv(files, token_of(1), store, o);
  const auto copies = copies_in(*o.mirror);
  REQUIRE(copies.size() == 1);
  const auto original = read_fd(files.data_fds[0]);
  std::mt19937 rng(4321);
  int from_copy = 0, fell_back = 0, failed = 0;
  for (int iter = 0; iter < 200; ++iter) {
    const auto bytes = randomly_corrupted(original, iter % 2 == 0, rng);
    {
      fd_holder copy(copies[0]);  // re-created when the last round dropped it
      write_fd(copy.fd, bytes);
    }
    auto pm = load(files, token_of(1), store, o);
    if (!pm.ok()) {
      ++failed;
      continue;
    }
    if (fs::exists(copies[0])) {
      ++from_copy;
      (void)run(**pm);  // wrong values are allowed; a crash is not
    } else {
      ++fell_back;
      check_conv_output(run(**pm));  // the intact file: exact
    }
  }
  MESSAGE("copy corruption: ", from_copy, " served by the corrupted copy, ", fell_back, " fell back to the file");
  CHECK(failed == 0);
  CHECK(from_copy > 0);
  CHECK(fell_back > 0);
}

TEST_CASE("cache: JIT session on dup'ed descriptors, concurrent save and load") {
  scratch_dir dir;
  auto store = open_store(dir.path);
  ca::cache_options o;
  SUBCASE("reading the data cache") {}
  SUBCASE("mapping the driver's copies") { o = with_copies(dir.path); }
  std::optional<ca::cache_session<>> session;
  {
    cache_files files(dir.path, "jit");  // the runtime's descriptors, closed at the end of this block
    auto s = ca::cache_session<>::open(files.model_fds, files.data_fds, token_of(1), store, o);
    REQUIRE(s.ok());
    session.emplace(std::move(*s));
  }
  auto pm = ex::prepare(conv_model());
  REQUIRE(pm.ok());
  REQUIRE(session->save(**pm).ok());  // the later stage, after the runtime closed its descriptors
  auto loaded = session->prepare();
  REQUIRE(loaded.ok());
  check_conv_output(run(**loaded));

  // One thread keeps re-saving while others load: every load is either a clean miss or
  // the full, correct model (never a torn read).
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, miss{0}, save_failed{0};
  std::thread writer([&] {
    for (int i = 0; i < 30; ++i)
      if (!session->save(**pm).ok()) ++save_failed;
    stop = true;
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t)
    readers.emplace_back([&] {
      while (!stop) {
        auto r = session->prepare();
        if (r.ok()) {
          ++ok;
          if (run(**r).status != ErrorStatus::NONE) ++miss;
        } else if (r.status() != ErrorStatus::GENERAL_FAILURE) {
          ++miss;
        }
      }
    });
  writer.join();
  for (auto& t : readers) t.join();
  CHECK(miss == 0);
  CHECK(save_failed == 0);
  MESSAGE(ok.load(), " loads succeeded while saving concurrently");
  CHECK(session->prepare().ok());
}

#endif  // NNHAL_WITH_OPENSSL
