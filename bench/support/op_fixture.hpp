// Runs one nnhal operation the way the executor does (kernel bound once, then called
// with kernel_io), without the executor around it: what a benchmark of a kernel needs.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "nnhal/exec/scheduler.hpp"
#include "nnhal/ops/registry.hpp"
#include "support/buffer.hpp"
#include "support/machine.hpp"

namespace nnhal::bench {

struct operand_spec {
  types::OperandType type;
  std::vector<std::uint32_t> dims;
  float scale = 0.0f;
  std::int32_t zero_point = 0;
  byte_buffer value;  // constant inputs (scalars); tensors are filled randomly
};

/// How op_fixture fills and marks its inputs.
struct fixture_options {
  std::vector<bool> omitted;  // per input: NO_VALUE (empty: none omitted)
  float range = 4.0f;         // float tensors are uniform in [-range, range]
  std::uint32_t seed = 42;
  std::size_t cores = 1;      // > 1: kernels get a parallel context of this many threads
  ops::kernel instead;        // set: run this (e.g. an op's reference()) once the op has bound
};


class op_fixture {
 public:
  op_fixture(types::OperationType op, std::vector<operand_spec> inputs, std::vector<operand_spec> outputs,
             const fixture_options& options = {})
      : inputs_(std::move(inputs)), outputs_(std::move(outputs)) {
    op_.type = op;
    if (options.cores > 1) {  // the calling thread takes part: cores - 1 workers
      pool_ = std::make_unique<exec::thread_pool>(options.cores - 1);
      par_ = std::make_unique<exec::pool_context>(*pool_);
    }
    std::mt19937 rng(options.seed);
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      auto& s = inputs_[i];
      if (i < options.omitted.size() && options.omitted[i]) {
        in_.push_back(describe(s, nullptr));
        in_.back().omitted = true;
        continue;
      }
      if (s.value.empty()) s.value = random_bytes(s, rng, options.range);
      in_.push_back(describe(s, s.value.data()));
    }
    for (auto& s : outputs_) {
      s.value.assign(byte_size(s), std::byte{0});
      out_.push_back(describe(s, nullptr));
      out_data_.push_back(s.value.data());
    }
    for (std::uint32_t i = 0; i < in_.size(); ++i) op_.inputs.push_back(i);
    auto bound = ops::bind(ops::bind_context{op_, in_, out_, false});
    ok_ = bound.ok();
    if (ok_) kernel_ = options.instead ? options.instead : std::move(*bound);
    else error_ = bound.err().message;
  }

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  void run() {
    exec::parallel_context* par = par_ ? static_cast<exec::parallel_context*>(par_.get()) : &serial_;
    kernel_(ops::kernel_io{in_, out_, out_data_, par});
  }
  /// Runs the operation once per iteration of `state`. False, and the benchmark skipped
  /// with the bind error, when it did not bind.
  bool time(benchmark::State& state) {
    if (!ok_) {
      state.SkipWithError(error_.c_str());
      return false;
    }
    for (auto _ : state) {
      run();
      benchmark::ClobberMemory();
    }
    return true;
  }
  const std::byte* input(std::size_t i) const { return inputs_[i].value.data(); }
  std::byte* output(std::size_t i) { return outputs_[i].value.data(); }
  /// Bytes the operation reads and writes once (its tensors).
  std::size_t bytes_moved() const {
    std::size_t n = 0;
    for (const auto& s : inputs_)
      if (types::is_tensor(s.type)) n += byte_size(s);
    for (const auto& s : outputs_) n += byte_size(s);
    return n;
  }

  static std::size_t byte_size(const operand_spec& s) {
    std::size_t n = types::type_info(s.type).element_size;
    for (auto d : s.dims) n *= d;
    return n;
  }

 private:
  static byte_buffer random_bytes(const operand_spec& s, std::mt19937& rng, float range) {
    byte_buffer b(byte_size(s));
    const std::size_t count = b.size() / types::type_info(s.type).element_size;
    std::uniform_real_distribution<float> f(-range, range);
    std::uniform_int_distribution<int> byte(0, 255);
    for (std::size_t i = 0; i < count; ++i) {
      switch (s.type) {
        case types::OperandType::TENSOR_FLOAT32: {
          const float v = f(rng);
          std::memcpy(b.data() + 4 * i, &v, 4);
          break;
        }
        case types::OperandType::TENSOR_FLOAT16: {
          const auto v = types::to_float16(f(rng));
          std::memcpy(b.data() + 2 * i, &v, 2);
          break;
        }
        default:
          for (std::size_t k = 0; k < types::type_info(s.type).element_size; ++k)
            b[i * types::type_info(s.type).element_size + k] = static_cast<std::byte>(byte(rng));
      }
    }
    return b;
  }
  static types::sig::operand_desc describe(const operand_spec& s, const std::byte* value) {
    types::sig::operand_desc d;
    d.type = s.type;
    d.dims = s.dims;
    d.scale = s.scale;
    d.zero_point = s.zero_point;
    d.value = value;
    d.value_size = value ? byte_size(s) : 0;
    return d;
  }

  types::Operation op_;
  std::vector<operand_spec> inputs_, outputs_;
  std::vector<types::sig::operand_desc> in_, out_;
  std::vector<std::byte*> out_data_;
  ops::kernel kernel_;
  exec::serial_context serial_;
  std::unique_ptr<exec::thread_pool> pool_;
  std::unique_ptr<exec::pool_context> par_;
  bool ok_ = false;
  std::string error_;
};

/// An element type of a benchmark: its name in benchmark names and the operand type
/// with the quantization its tensors get.
struct dtype_spec {
  const char* name;
  types::OperandType type;
  float scale;
  std::int32_t zero_point;
};
inline constexpr dtype_spec f32{"f32", types::OperandType::TENSOR_FLOAT32, 0.0f, 0};
inline constexpr dtype_spec f16{"f16", types::OperandType::TENSOR_FLOAT16, 0.0f, 0};
inline constexpr dtype_spec qu8{"qu8", types::OperandType::TENSOR_QUANT8_ASYMM, 0.05f, 128};
inline constexpr dtype_spec qs8{"qs8", types::OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 0.05f, 0};

/// For memory-bound operations: bytes per second (SetBytesProcessed) and, as copy_frac,
/// the fraction of this machine's copy bandwidth for a working set of that size (1.0:
/// as fast as memcpy moving the same bytes).
inline void report_traffic(benchmark::State& state, std::size_t bytes_moved) {
  const double total = static_cast<double>(bytes_moved) * static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(total));
  state.counters["copy_frac"] =
      benchmark::Counter(total / copy_bandwidth_for(bytes_moved), benchmark::Counter::kIsRate);
}

/// A scalar operand holding `v`.
template <class S>
operand_spec scalar(types::OperandType t, S v) {
  operand_spec s{t, {}, 0.0f, 0, byte_buffer(sizeof(S))};
  std::memcpy(s.value.data(), &v, sizeof(S));
  return s;
}

}  // namespace nnhal::bench
