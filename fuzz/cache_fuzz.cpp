// libFuzzer target for the compilation-cache deserializer (cache/serializer.hpp): decodes
// a model cache and a data cache from the input and validates what comes out. Input:
// u32 little-endian length L, then L bytes of model cache, then the data cache.
// Built with -DNNHAL_FUZZ_MAKE_SEEDS instead, it is a program writing valid seed inputs
// into the directory given as its argument (fuzz/CMakeLists.txt runs it before fuzzing).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "nnhal/cache/serializer.hpp"
#include "nnhal/types/validate.hpp"

namespace {

constexpr std::string_view fuzz_driver = "fuzz-driver 1";

nnhal::types::CacheToken fuzz_token() {
  nnhal::types::CacheToken t{};
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::uint8_t>(0x11 * (i + 1));
  return t;
}

}  // namespace

#if !defined(NNHAL_FUZZ_MAKE_SEEDS)

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  std::uint32_t split = 0;
  for (int i = 0; i < 4; ++i) split |= std::uint32_t{data[i]} << (8 * i);
  const std::size_t model_size = std::min<std::size_t>(split, size - 4);
  const std::span<const std::byte> model(reinterpret_cast<const std::byte*>(data) + 4, model_size);
  const std::size_t data_size = size - 4 - model_size;
  std::shared_ptr<std::byte[]> buf(new std::byte[data_size == 0 ? 1 : data_size]);
  if (data_size) std::memcpy(buf.get(), data + 4 + model_size, data_size);

  const nnhal::cache::expected_identity id{fuzz_token(), fuzz_driver, nullptr};
  auto decoded = nnhal::cache::decode(model, buf, data_size, id);
  if (!decoded) return 0;
  auto valid = nnhal::types::validate_model(decoded->model);
  if (!valid) return 0;
  // A valid model's constants must lie inside their buffers: touch every byte.
  unsigned sum = 0;
  for (const auto& o : decoded->model.main.operands) {
    const std::byte* p = nullptr;
    if (o.lifetime == nnhal::types::OperandLifeTime::CONSTANT_COPY)
      p = reinterpret_cast<const std::byte*>(decoded->model.operandValues.data()) + o.location.offset;
    else if (o.lifetime == nnhal::types::OperandLifeTime::CONSTANT_REFERENCE)
      p = decoded->model.pools[o.location.poolIndex].data + o.location.offset;
    for (std::uint32_t i = 0; p && i < o.location.length; ++i) sum += std::to_integer<unsigned>(p[i]);
  }
  volatile unsigned sink = sum;
  (void)sink;
  return 0;
}

#else  // seed writer

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/model_builder.hpp"

namespace {

using namespace nnhal::types;

void write_seed(const std::filesystem::path& dir, const std::string& name, const Model& m) {
  const nnhal::cache::file_identity id{fuzz_token(), {1, 2, 3, 4}, std::string(fuzz_driver)};
  const auto enc = nnhal::cache::encode(m, id, nnhal::cache::default_plan(m));
  std::ofstream f(dir / name, std::ios::binary);
  const auto n = static_cast<std::uint32_t>(enc.model_cache.size());
  const char len[4] = {static_cast<char>(n), static_cast<char>(n >> 8), static_cast<char>(n >> 16),
                       static_cast<char>(n >> 24)};
  f.write(len, 4);
  f.write(reinterpret_cast<const char*>(enc.model_cache.data()), static_cast<std::streamsize>(enc.model_cache.size()));
  f.write(reinterpret_cast<const char*>(enc.data_cache.data()), static_cast<std::streamsize>(enc.data_cache.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SEED_DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  write_seed(dir, "add", nnhal::test::make_add_model());

  {  // CONV_2D with a per-channel filter in a pool, bias in operandValues.
    nnhal::test::model_builder b;
    auto g = b.main();
    const auto x = g.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 3, 3, 2}, 0.5f, 128);
    const auto w = g.reference(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 2, 2, 2}, b.pool(16), 0, 16);
    g.operand(w).extraParams = SymmPerChannelQuantParams{{0.25f, 0.5f}, 0};
    const auto bias = g.constant(OperandType::TENSOR_INT32, {2}, std::vector<std::int32_t>{1, -1});
    const auto y = g.output(OperandType::TENSOR_QUANT8_ASYMM, {1, 2, 2, 2}, 1.0f, 128);
    g.op(OperationType::CONV_2D, {x, w, bias, g.i32(0), g.i32(0), g.i32(0), g.i32(0), g.i32(1), g.i32(1), g.i32(0)},
         {y});
    b.extension("com.example.fuzz", 1);
    write_seed(dir, "conv_per_channel", b.build());
  }
  {  // Relaxed float model with a referenced subgraph (as IF would use).
    nnhal::test::model_builder b;
    auto g = b.main();
    const auto x = g.input(OperandType::TENSOR_FLOAT32, {4});
    const auto y = g.output(OperandType::TENSOR_FLOAT32, {4});
    g.op(OperationType::RELU, {x}, {y});
    auto r = b.referenced(0);
    const auto a = r.input(OperandType::TENSOR_FLOAT32, {4});
    const auto c = r.output(OperandType::TENSOR_FLOAT32, {4});
    r.op(OperationType::RELU, {a}, {c});
    b.relaxed();
    write_seed(dir, "relaxed_referenced", b.build());
  }
  return 0;
}

#endif
