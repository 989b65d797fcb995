// Element-wise operations: nnhal next to XNNPACK in the same run, on an L2-resident
// (64 KiB per tensor) and a DRAM-sized (64 MiB per tensor) shape. Element-wise ops are
// memory-bound, so each result also reports the fraction of the machine's copy bandwidth.
// Names: elementwise/<op>/<dtype>/<elements>/<impl>, plus /cores:N for the all-cores runs
// of the DRAM-sized tensors (wall time).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "support/op_fixture.hpp"

#include "support/xnnpack_run.hpp"

namespace nnhal::bench {
namespace {

using types::OperandType;
using types::OperationType;


constexpr std::uint32_t l2_bytes = 64u << 10, dram_bytes = 64u << 20;

// --- nnhal -------------------------------------------------------------------------------

/// Quantized binary cases: input 1's and the output's scales relative to input 0's. Equal
/// inputs and a doubled output make every sum a whole or half step; "mixed" ratios are
/// what a residual ADD of two differently quantized branches looks like.
struct scale_ratios {
  float in1 = 1.0f, out = 2.0f;
};

void nnhal_binary(benchmark::State& state, OperationType op, dtype_spec dt, std::uint32_t n, std::size_t cores,
                  scale_ratios ratios) {
  std::vector<operand_spec> ins{{dt.type, {n}, dt.scale, dt.zero_point},
                                {dt.type, {n}, dt.scale * ratios.in1, dt.zero_point}};
  if (op != OperationType::MAXIMUM && op != OperationType::MINIMUM)
    ins.push_back(scalar<std::int32_t>(OperandType::INT32, 0));  // no fused activation
  fixture_options options;
  options.cores = cores;
  op_fixture f(op, std::move(ins), {{dt.type, {n}, dt.scale * ratios.out, dt.zero_point}}, options);
  if (f.time(state)) report_traffic(state, f.bytes_moved());
}

/// One unary case: the operation, its input and output types and quantization, and any
/// scalar operands after the input (ELU's alpha).
struct unary_case {
  const char* name;
  OperationType op;
  dtype_spec in, out;
  float out_scale;  // quantized output: its scale and zero point
  std::int32_t out_zero_point;
};

const unary_case unary_cases[] = {
    {"relu6", OperationType::RELU6, f32, f32, 0.0f, 0},
    {"abs", OperationType::ABS, f32, f32, 0.0f, 0},
    {"neg", OperationType::NEG, f32, f32, 0.0f, 0},
    {"floor", OperationType::FLOOR, f32, f32, 0.0f, 0},
    {"sqrt", OperationType::SQRT, f32, f32, 0.0f, 0},
    {"logistic", OperationType::LOGISTIC, f32, f32, 0.0f, 0},
    {"tanh", OperationType::TANH, f32, f32, 0.0f, 0},
    {"elu", OperationType::ELU, f32, f32, 0.0f, 0},
    {"hard_swish", OperationType::HARD_SWISH, f32, f32, 0.0f, 0},
    {"quantize", OperationType::QUANTIZE, f32, qu8, 0.05f, 128},
    {"relu6", OperationType::RELU6, qu8, qu8, 0.05f, 128},
    {"logistic", OperationType::LOGISTIC, qu8, qu8, 1.0f / 256, 0},
    {"tanh", OperationType::TANH, qu8, qu8, 1.0f / 128, 128},
    {"dequantize", OperationType::DEQUANTIZE, qu8, f32, 0.0f, 0},
};

void nnhal_unary(benchmark::State& state, const unary_case& c, std::uint32_t n, std::size_t cores) {
  std::vector<operand_spec> ins{{c.in.type, {n}, c.in.scale, c.in.zero_point}};
  if (c.op == OperationType::ELU) ins.push_back(scalar<float>(OperandType::FLOAT32, 1.0f));
  fixture_options options;
  options.cores = cores;
  op_fixture f(c.op, std::move(ins), {{c.out.type, {n}, c.out_scale, c.out_zero_point}}, options);
  if (f.time(state)) report_traffic(state, f.bytes_moved());
}

// --- XNNPACK -----------------------------------------------------------------------------

#if NNHAL_BENCH_XNNPACK
/// Creates, sets up and runs one XNNPACK element-wise binary operator on 1-D inputs; skipped
/// where XNNPACK has no such operator for the type.
void xnnpack_binary(benchmark::State& state, OperationType op, dtype_spec dt, std::uint32_t n, std::size_t cores,
                    scale_ratios ratios) {
  pthreadpool_t threads = xnn_threads(cores);
  if (!xnn_ready()) {
    state.SkipWithError("xnn_initialize failed");
    return;
  }
  const std::size_t esize = types::type_info(dt.type).element_size;
  byte_buffer a(n * esize, std::byte{3}), b(n * esize, std::byte{5}), y(n * esize);
  const std::size_t shape[1] = {n};
  xnn_operator_t o = nullptr;
  xnn_status s = xnn_status_unsupported_parameter;
  if (dt.type == OperandType::TENSOR_FLOAT32) {
    const auto* fa = reinterpret_cast<const float*>(a.data());
    const auto* fb = reinterpret_cast<const float*>(b.data());
    auto* fy = reinterpret_cast<float*>(y.data());
    constexpr float lo = -INFINITY, hi = INFINITY;
    switch (op) {
      case OperationType::ADD:
        s = xnn_create_add_nd_f32(lo, hi, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_add_nd_f32(o, 1, shape, 1, shape, fa, fb, fy, threads);
        break;
      case OperationType::SUB:
        s = xnn_create_subtract_nd_f32(lo, hi, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_subtract_nd_f32(o, 1, shape, 1, shape, fa, fb, fy, threads);
        break;
      case OperationType::MUL:
        s = xnn_create_multiply_nd_f32(lo, hi, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_multiply_nd_f32(o, 1, shape, 1, shape, fa, fb, fy, threads);
        break;
      case OperationType::DIV:
        s = xnn_create_divide_nd_f32(lo, hi, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_divide_nd_f32(o, 1, shape, 1, shape, fa, fb, fy, threads);
        break;
      case OperationType::MAXIMUM:
        s = xnn_create_maximum_nd_f32(0, &o);
        if (s == xnn_status_success) s = xnn_setup_maximum_nd_f32(o, 1, shape, 1, shape, fa, fb, fy, threads);
        break;
      case OperationType::MINIMUM:
        s = xnn_create_minimum_nd_f32(0, &o);
        if (s == xnn_status_success) s = xnn_setup_minimum_nd_f32(o, 1, shape, 1, shape, fa, fb, fy, threads);
        break;
      default: break;
    }
  } else if (dt.type == OperandType::TENSOR_QUANT8_ASYMM) {
    const auto* qa = reinterpret_cast<const std::uint8_t*>(a.data());
    const auto* qb = reinterpret_cast<const std::uint8_t*>(b.data());
    auto* qy = reinterpret_cast<std::uint8_t*>(y.data());
    const auto zp = static_cast<std::uint8_t>(dt.zero_point);
    switch (op) {
      case OperationType::ADD:
        s = xnn_create_add_nd_qu8(zp, dt.scale, zp, dt.scale * ratios.in1, zp, dt.scale * ratios.out, 0, 255, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_add_nd_qu8(o, 1, shape, 1, shape, qa, qb, qy, threads);
        break;
      case OperationType::SUB:
        s = xnn_create_subtract_nd_qu8(zp, dt.scale, zp, dt.scale * ratios.in1, zp, dt.scale * ratios.out, 0, 255, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_subtract_nd_qu8(o, 1, shape, 1, shape, qa, qb, qy, threads);
        break;
      case OperationType::MUL:
        s = xnn_create_multiply_nd_qu8(zp, dt.scale, zp, dt.scale * ratios.in1, zp, dt.scale * ratios.out, 0, 255, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_multiply_nd_qu8(o, 1, shape, 1, shape, qa, qb, qy, threads);
        break;
      default: break;
    }
  } else if (dt.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    const auto* qa = reinterpret_cast<const std::int8_t*>(a.data());
    const auto* qb = reinterpret_cast<const std::int8_t*>(b.data());
    auto* qy = reinterpret_cast<std::int8_t*>(y.data());
    const auto zp = static_cast<std::int8_t>(dt.zero_point);
    switch (op) {
      case OperationType::ADD:
        s = xnn_create_add_nd_qs8(zp, dt.scale, zp, dt.scale * ratios.in1, zp, dt.scale * ratios.out, -128, 127, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_add_nd_qs8(o, 1, shape, 1, shape, qa, qb, qy, threads);
        break;
      case OperationType::SUB:
        s = xnn_create_subtract_nd_qs8(zp, dt.scale, zp, dt.scale * ratios.in1, zp, dt.scale * ratios.out, -128, 127, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_subtract_nd_qs8(o, 1, shape, 1, shape, qa, qb, qy, threads);
        break;
      case OperationType::MUL:
        s = xnn_create_multiply_nd_qs8(zp, dt.scale, zp, dt.scale * ratios.in1, zp, dt.scale * ratios.out, -128, 127, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_multiply_nd_qs8(o, 1, shape, 1, shape, qa, qb, qy, threads);
        break;
      default: break;
    }
  }
  if (s == xnn_status_unsupported_parameter && o == nullptr) {
    state.SkipWithError("no XNNPACK counterpart");
    return;
  }
  if (xnn_time_operator(state, s, o, threads)) report_traffic(state, 3 * n * esize);
}

/// Creates, sets up and runs the XNNPACK counterpart of unary case `c` on n elements
/// (channels n, batch 1); skipped where XNNPACK has no such operator.
void xnnpack_unary(benchmark::State& state, const unary_case& c, std::uint32_t n, std::size_t cores) {
  pthreadpool_t threads = xnn_threads(cores);
  if (!xnn_ready()) {
    state.SkipWithError("xnn_initialize failed");
    return;
  }
  const std::size_t in_size = types::type_info(c.in.type).element_size, out_size = types::type_info(c.out.type).element_size;
  byte_buffer x(n * in_size), y(n * out_size);
  {
    std::mt19937 rng(42);
    std::uniform_real_distribution<float> f(-4.0f, 4.0f);
    for (std::size_t i = 0; i < n; ++i) {
      if (in_size == 4) {
        const float v = f(rng);
        std::memcpy(x.data() + 4 * i, &v, 4);
      } else {
        x[i] = static_cast<std::byte>(rng() & 0xFF);
      }
    }
  }
  const auto* xf = reinterpret_cast<const float*>(x.data());
  auto* yf = reinterpret_cast<float*>(y.data());
  const auto* xq = reinterpret_cast<const std::uint8_t*>(x.data());
  auto* yq = reinterpret_cast<std::uint8_t*>(y.data());
  const auto in_zp = static_cast<std::uint8_t>(c.in.zero_point), out_zp = static_cast<std::uint8_t>(c.out_zero_point);
  xnn_operator_t o = nullptr;
  xnn_status s = xnn_status_unsupported_parameter;
  const bool float_in = c.in.type == OperandType::TENSOR_FLOAT32;
  switch (c.op) {
    case OperationType::RELU6:
      if (float_in) {
        s = xnn_create_clamp_nc_f32(n, n, n, 0.0f, 6.0f, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_clamp_nc_f32(o, 1, xf, yf, threads);
      } else {
        const auto six = static_cast<std::uint8_t>(std::min(255.0f, std::round(6.0f / c.in.scale) + c.in.zero_point));
        s = xnn_create_clamp_nc_u8(n, n, n, in_zp, six, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_clamp_nc_u8(o, 1, xq, yq, threads);
      }
      break;
    case OperationType::ABS:
      s = xnn_create_abs_nc_f32(n, n, n, 0, &o);
      if (s == xnn_status_success) s = xnn_setup_abs_nc_f32(o, 1, xf, yf, threads);
      break;
    case OperationType::NEG:
      s = xnn_create_negate_nc_f32(n, n, n, 0, &o);
      if (s == xnn_status_success) s = xnn_setup_negate_nc_f32(o, 1, xf, yf, threads);
      break;
    case OperationType::FLOOR:
      s = xnn_create_floor_nc_f32(n, n, n, 0, &o);
      if (s == xnn_status_success) s = xnn_setup_floor_nc_f32(o, 1, xf, yf, threads);
      break;
    case OperationType::SQRT:
      s = xnn_create_square_root_nc_f32(n, n, n, 0, &o);
      if (s == xnn_status_success) s = xnn_setup_square_root_nc_f32(o, 1, xf, yf, threads);
      break;
    case OperationType::LOGISTIC:
      if (float_in) {
        s = xnn_create_sigmoid_nc_f32(n, n, n, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_sigmoid_nc_f32(o, 1, xf, yf, threads);
      } else {
        s = xnn_create_sigmoid_nc_qu8(n, n, n, in_zp, c.in.scale, out_zp, c.out_scale, 0, 255, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_sigmoid_nc_qu8(o, 1, xq, yq, threads);
      }
      break;
    case OperationType::TANH:
      if (!float_in) {  // Debian's XNNPACK has no float32 tanh operator
        s = xnn_create_tanh_nc_qu8(n, n, n, in_zp, c.in.scale, out_zp, c.out_scale, 0, 255, 0, &o);
        if (s == xnn_status_success) s = xnn_setup_tanh_nc_qu8(o, 1, xq, yq, threads);
      }
      break;
    case OperationType::ELU:
      s = xnn_create_elu_nc_f32(n, n, n, 1.0f, 0, &o);
      if (s == xnn_status_success) s = xnn_setup_elu_nc_f32(o, 1, xf, yf, threads);
      break;
    case OperationType::HARD_SWISH:
      s = xnn_create_hardswish_nc_f32(n, n, n, 0, &o);
      if (s == xnn_status_success) s = xnn_setup_hardswish_nc_f32(o, 1, xf, yf, threads);
      break;
    case OperationType::QUANTIZE:
      s = xnn_create_convert_nc_f32_qu8(n, n, n, c.out_scale, out_zp, 0, 255, 0, &o);
      if (s == xnn_status_success) s = xnn_setup_convert_nc_f32_qu8(o, 1, xf, yq, threads);
      break;
    case OperationType::DEQUANTIZE:
      s = xnn_create_convert_nc_qu8_f32(n, n, n, c.in.scale, in_zp, 0, &o);
      if (s == xnn_status_success) s = xnn_setup_convert_nc_qu8_f32(o, 1, xq, yf, threads);
      break;
    default: break;
  }
  if (s == xnn_status_unsupported_parameter && o == nullptr) {
    state.SkipWithError("no XNNPACK counterpart");
    return;
  }
  if (xnn_time_operator(state, s, o, threads)) report_traffic(state, n * (in_size + out_size));
}
#endif

// --- registration ------------------------------------------------------------------------

/// One core for every size; all cores too for the DRAM-sized tensors (an L2-sized one is
/// below the kernels' parallel grain and stays on one thread).
std::vector<std::size_t> cores_for(std::uint32_t bytes) {
  if (bytes == dram_bytes && all_cores() > 1) return {1, all_cores()};
  return {1};
}

int register_all() {
  struct binary_case {
    const char* name;
    OperationType op;
    std::vector<dtype_spec> types;
  };
  const binary_case binary_cases[] = {
      {"add", OperationType::ADD, {f32, qu8, qs8}},      {"sub", OperationType::SUB, {f32, qu8, qs8}},
      {"mul", OperationType::MUL, {f32, qu8, qs8}},      {"div", OperationType::DIV, {f32}},
      {"maximum", OperationType::MAXIMUM, {f32}},        {"minimum", OperationType::MINIMUM, {f32}},
  };
  for (const binary_case& c : binary_cases) {
    for (auto dt : c.types) {
      for (std::uint32_t bytes : {l2_bytes, dram_bytes}) {
        const std::uint32_t n = bytes / static_cast<std::uint32_t>(types::type_info(dt.type).element_size);
        const std::string base = std::string("elementwise/") + c.name + "/" + dt.name + "/" + std::to_string(n) + "/";
        for (std::size_t cores : cores_for(bytes)) {
          auto* b = benchmark::RegisterBenchmark((base + "nnhal" + cores_suffix(cores)).c_str(), nnhal_binary, c.op, dt, n,
                                                 cores, scale_ratios{});
          if (cores > 1) b->UseRealTime();
#if NNHAL_BENCH_XNNPACK
          auto* x = benchmark::RegisterBenchmark((base + "xnnpack" + cores_suffix(cores)).c_str(), xnnpack_binary, c.op, dt,
                                                 n, cores, scale_ratios{});
          if (cores > 1) x->UseRealTime();
#endif
        }
      }
    }
  }
  // Quantized ADD / SUB with mixed scales (L2-sized, one thread): names end in _mixed.
  for (const char* name : {"add", "sub"})
    for (auto dt : {qu8, qs8}) {
      const OperationType op = name[0] == 'a' ? OperationType::ADD : OperationType::SUB;
      const std::string base = std::string("elementwise/") + name + "/" + dt.name + "_mixed/" + std::to_string(l2_bytes) + "/";
      benchmark::RegisterBenchmark((base + "nnhal").c_str(), nnhal_binary, op, dt, l2_bytes, 1, scale_ratios{0.83f, 1.5f});
#if NNHAL_BENCH_XNNPACK
      benchmark::RegisterBenchmark((base + "xnnpack").c_str(), xnnpack_binary, op, dt, l2_bytes, 1, scale_ratios{0.83f, 1.5f});
#endif
    }
  for (const unary_case& c : unary_cases) {
    for (std::uint32_t bytes : {l2_bytes, dram_bytes}) {
      const std::uint32_t n = bytes / static_cast<std::uint32_t>(types::type_info(c.in.type).element_size);
      const std::string base = std::string("elementwise/") + c.name + "/" + c.in.name + "/" + std::to_string(n) + "/";
      for (std::size_t cores : cores_for(bytes)) {
        auto* b = benchmark::RegisterBenchmark((base + "nnhal" + cores_suffix(cores)).c_str(), nnhal_unary, c, n, cores);
        if (cores > 1) b->UseRealTime();
#if NNHAL_BENCH_XNNPACK
        const bool has_counterpart = !(c.op == OperationType::TANH && c.in.type == OperandType::TENSOR_FLOAT32);
        if (has_counterpart) {
          auto* x = benchmark::RegisterBenchmark((base + "xnnpack" + cores_suffix(cores)).c_str(), xnnpack_unary, c, n, cores);
          if (cores > 1) x->UseRealTime();
        }
#endif
      }
    }
  }
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace nnhal::bench
