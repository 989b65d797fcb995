// Convolution family on the MobileNet v1 1.0-224 layer shapes (and two grouped convolutions) at batch 1: nnhal next to
// XNNPACK and oneDNN in the same run, on one thread and on all cores (/cores:N, wall time;
// each library gets N threads: nnhal a pool_context, XNNPACK a pthreadpool, oneDNN OpenMP). Each result reports GFLOP/s (GOP/s
// for quant8: 2 ops per multiply-add) and the fraction of this core's measured peak (FMA
// for float32; for quant8 the AMX tdpbusd peak where this process may use AMX tiles, else
// the vpdpbusd one) as counters.
// Names: conv/<op>/<dtype>/<shape>/<impl>, op in {conv_2d, depthwise_conv_2d,
// grouped_conv_2d, fully_connected, batch_matmul, transpose_conv_2d}, dtype in {f32, f16, qu8, qs8, qc8} (qc8: signed activations with
// per-channel filters), impl in {nnhal, xnnpack, onednn, reference} (oneDNN: not for grouped_conv_2d). float16 (float32 arithmetic, its
// peak the FMA one) runs no oneDNN column: oneDNN computes float16 convolutions only on
// CPUs with AVX512-FP16. oneDNN has no unsigned filters and no filter zero points:
// its qu8 column runs u8 activations (zero point 128, as nnhal's) with symmetric s8
// filters; the label names oneDNN's kernel. GFLOP/s of an all-cores run are
// still reported against one core's peak (peak_frac above 1 is possible).
#include <benchmark/benchmark.h>

#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "nnhal/exec/parallel.hpp"
#include "nnhal/exec/scheduler.hpp"
#include "nnhal/ops/families/conv.hpp"
#include "nnhal/ops/grouped_conv_2d.hpp"
#include "support/buffer.hpp"
#include "support/machine.hpp"

#include "support/xnnpack_run.hpp"
#if NNHAL_BENCH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif
#if NNHAL_BENCH_OMP
extern "C" void omp_set_num_threads(int);  // libgomp, oneDNN's threading runtime here
#endif

namespace nnhal::bench {
namespace {

using types::OperandType;
using types::OperationType;

enum class dtype { f32, f16, qu8, qs8, qc8 };
const char* name_of(dtype d) {
  switch (d) {
    case dtype::f32: return "f32";
    case dtype::f16: return "f16";
    case dtype::qu8: return "qu8";
    case dtype::qs8: return "qs8";
    default: return "qc8";
  }
}
OperandType act_type(dtype d) {
  return d == dtype::f32   ? OperandType::TENSOR_FLOAT32
         : d == dtype::f16 ? OperandType::TENSOR_FLOAT16
         : d == dtype::qu8 ? OperandType::TENSOR_QUANT8_ASYMM
                           : OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
}
OperandType filter_type(dtype d) {
  return d == dtype::qc8 ? OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL : act_type(d);
}

/// One MobileNet v1 layer, or a grouped convolution (NHWC, batch 1). Padding: top, left,
/// bottom, right.
struct layer {
  const char* shape;
  OperationType op;
  std::uint32_t h, w, cin, cout, k, stride;
  std::array<std::uint32_t, 4> pad;
  std::uint32_t groups = 1;  // GROUPED_CONV_2D
  std::uint32_t out_h() const { return (h + pad[0] + pad[2] - k) / stride + 1; }
  std::uint32_t out_w() const { return (w + pad[1] + pad[3] - k) / stride + 1; }
  bool depthwise() const { return op == OperationType::DEPTHWISE_CONV_2D; }
  bool grouped() const { return op == OperationType::GROUPED_CONV_2D; }
  std::uint32_t filter_depth() const { return depthwise() ? 1 : cin / groups; }
  double ops() const {  // 2 per multiply-add
    const double taps = static_cast<double>(k) * k * filter_depth();
    return 2.0 * out_h() * out_w() * cout * taps;
  }
  const char* op_name() const {
    return op == OperationType::CONV_2D ? "conv_2d"
           : depthwise()                ? "depthwise_conv_2d"
           : grouped()                  ? "grouped_conv_2d"
                                        : "fully_connected";
  }
};

const layer layers[] = {
    {"224x224x3_k3s2_32", OperationType::CONV_2D, 224, 224, 3, 32, 3, 2, {0, 0, 1, 1}},
    {"112x112x32_k1_64", OperationType::CONV_2D, 112, 112, 32, 64, 1, 1, {0, 0, 0, 0}},
    {"56x56x128_k1_128", OperationType::CONV_2D, 56, 56, 128, 128, 1, 1, {0, 0, 0, 0}},
    {"28x28x256_k1_256", OperationType::CONV_2D, 28, 28, 256, 256, 1, 1, {0, 0, 0, 0}},
    {"14x14x512_k1_512", OperationType::CONV_2D, 14, 14, 512, 512, 1, 1, {0, 0, 0, 0}},
    {"7x7x1024_k1_1024", OperationType::CONV_2D, 7, 7, 1024, 1024, 1, 1, {0, 0, 0, 0}},
    {"112x112x32_k3s1", OperationType::DEPTHWISE_CONV_2D, 112, 112, 32, 32, 3, 1, {1, 1, 1, 1}},
    {"112x112x64_k3s2", OperationType::DEPTHWISE_CONV_2D, 112, 112, 64, 64, 3, 2, {0, 0, 1, 1}},
    {"56x56x128_k3s1", OperationType::DEPTHWISE_CONV_2D, 56, 56, 128, 128, 3, 1, {1, 1, 1, 1}},
    {"56x56x128_k3s2", OperationType::DEPTHWISE_CONV_2D, 56, 56, 128, 128, 3, 2, {0, 0, 1, 1}},
    {"28x28x256_k3s1", OperationType::DEPTHWISE_CONV_2D, 28, 28, 256, 256, 3, 1, {1, 1, 1, 1}},
    {"28x28x256_k3s2", OperationType::DEPTHWISE_CONV_2D, 28, 28, 256, 256, 3, 2, {0, 0, 1, 1}},
    {"14x14x512_k3s1", OperationType::DEPTHWISE_CONV_2D, 14, 14, 512, 512, 3, 1, {1, 1, 1, 1}},
    {"14x14x512_k3s2", OperationType::DEPTHWISE_CONV_2D, 14, 14, 512, 512, 3, 2, {0, 0, 1, 1}},
    {"7x7x1024_k3s1", OperationType::DEPTHWISE_CONV_2D, 7, 7, 1024, 1024, 3, 1, {1, 1, 1, 1}},
    {"1x1024_1001", OperationType::FULLY_CONNECTED, 1, 1, 1024, 1001, 1, 1, {0, 0, 0, 0}},
    // Grouped: a ShuffleNet v1 (3 groups) pointwise layer and a ResNeXt-50 3x3 (32 groups
    // of 4 channels).
    {"28x28x240_k1_240_g3", OperationType::GROUPED_CONV_2D, 28, 28, 240, 240, 1, 1, {0, 0, 0, 0}, 3},
    {"56x56x128_k3_128_g32", OperationType::GROUPED_CONV_2D, 56, 56, 128, 128, 3, 1, {1, 1, 1, 1}, 32},
};

// Quantization of every case: activations in [-4, 4) (scale 1/32), filters scale 1/64
// (per channel: 1/64 times 0.5..1.5), outputs scaled so that results use the 8-bit range.
constexpr float in_scale = 1.0f / 32, w_scale = 1.0f / 64;
std::int32_t in_zp(dtype d) { return d == dtype::qu8 ? 128 : 0; }
std::int32_t w_zp(dtype d) { return d == dtype::qu8 ? 120 : d == dtype::qs8 ? -3 : 0; }
float out_scale(const layer& l) {
  const double k = static_cast<double>(l.k) * l.k * l.filter_depth();
  return static_cast<float>(in_scale * w_scale * 40.0 * std::sqrt(k));
}
std::vector<float> channel_scales(std::uint32_t n) {
  std::vector<float> s(n);
  for (std::uint32_t i = 0; i < n; ++i) s[i] = w_scale * (0.5f + static_cast<float>(i % 11) / 10.0f);
  return s;
}

/// A tensor's storage: page aligned (see support/buffer.hpp), like the runtime's shared
/// memory a driver is handed.
template <class T>
using tensor_vector = std::vector<T, page_aligned_allocator<T>>;

/// Random bytes / floats of a case's tensors (the same seed for every library).
struct case_data {
  tensor_vector<std::uint8_t> input, filter, output;
  tensor_vector<float> input_f, filter_f, bias_f, output_f;
  tensor_vector<types::float16> input_h, filter_h, bias_h, output_h;  // float16: the float values rounded
  tensor_vector<std::int32_t> bias_q;
  std::vector<float> scales;
};
case_data make_data(const layer& l, dtype d) {
  std::mt19937 rng(7);
  case_data c;
  const std::size_t n_in = std::size_t{l.h} * l.w * l.cin;
  const std::size_t n_w = std::size_t{l.cout} * l.k * l.k * l.filter_depth();
  const std::size_t n_out = std::size_t{l.out_h()} * l.out_w() * l.cout;
  std::uniform_int_distribution<int> byte(0, 255), bias(-2000, 2000);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  if (d == dtype::f32) {
    for (std::size_t i = 0; i < n_in; ++i) c.input_f.push_back(real(rng));
    for (std::size_t i = 0; i < n_w; ++i) c.filter_f.push_back(real(rng) * 0.1f);
    for (std::size_t i = 0; i < l.cout; ++i) c.bias_f.push_back(real(rng));
    c.output_f.assign(n_out, 0.0f);
  } else if (d == dtype::f16) {
    for (std::size_t i = 0; i < n_in; ++i) c.input_h.push_back(types::to_float16(real(rng)));
    for (std::size_t i = 0; i < n_w; ++i) c.filter_h.push_back(types::to_float16(real(rng) * 0.1f));
    for (std::size_t i = 0; i < l.cout; ++i) c.bias_h.push_back(types::to_float16(real(rng)));
    c.output_h.assign(n_out, types::float16{});
  } else {
    for (std::size_t i = 0; i < n_in; ++i) c.input.push_back(static_cast<std::uint8_t>(byte(rng)));
    for (std::size_t i = 0; i < n_w; ++i)
      c.filter.push_back(static_cast<std::uint8_t>(d == dtype::qc8 ? (byte(rng) % 255) - 127 : byte(rng)));
    for (std::size_t i = 0; i < l.cout; ++i) c.bias_q.push_back(bias(rng));
    c.output.assign(n_out, 0);
    if (d == dtype::qc8) c.scales = channel_scales(l.cout);
  }
  return c;
}

void report_ops(benchmark::State& state, double ops, dtype d);
void report(benchmark::State& state, const layer& l, dtype d) { report_ops(state, l.ops(), d); }

/// Times `k` on the operands, on `cores` threads (the calling thread takes part: cores - 1
/// workers).
void run_kernel(benchmark::State& state, const ops::kernel& k, const std::vector<types::sig::operand_desc>& in,
                const std::vector<types::sig::operand_desc>& out, std::array<std::byte*, 1>& data, std::size_t cores) {
  exec::serial_context serial;
  std::unique_ptr<exec::thread_pool> pool;
  std::unique_ptr<exec::pool_context> threads;
  if (cores > 1) {
    pool = std::make_unique<exec::thread_pool>(cores - 1);
    threads = std::make_unique<exec::pool_context>(*pool);
  }
  exec::parallel_context* par = threads ? static_cast<exec::parallel_context*>(threads.get()) : &serial;
  for (auto _ : state) {
    k(ops::kernel_io{in, out, data, par});
    benchmark::ClobberMemory();
  }
}

// --- nnhal -------------------------------------------------------------------------------

/// nnhal's bound kernel, or (`reference`, GROUPED_CONV_2D only) its reference().
void nnhal_or_reference(benchmark::State& state, layer l, dtype d, std::size_t cores, bool reference) {
  case_data c = make_data(l, d);
  const bool q = d != dtype::f32 && d != dtype::f16;
  const bool fc = l.op == OperationType::FULLY_CONNECTED;
  const std::vector<std::uint32_t> in_dims = fc ? std::vector<std::uint32_t>{1, l.cin}
                                                : std::vector<std::uint32_t>{1, l.h, l.w, l.cin};
  const std::vector<std::uint32_t> w_dims =
      fc ? std::vector<std::uint32_t>{l.cout, l.cin}
         : l.depthwise() ? std::vector<std::uint32_t>{1, l.k, l.k, l.cout}
                         : std::vector<std::uint32_t>{l.cout, l.k, l.k, l.filter_depth()};
  const std::vector<std::uint32_t> b_dims{l.cout};
  const std::vector<std::uint32_t> out_dims = fc ? std::vector<std::uint32_t>{1, l.cout}
                                                 : std::vector<std::uint32_t>{1, l.out_h(), l.out_w(), l.cout};
  types::SymmPerChannelQuantParams channel{c.scales, fc ? 0u : (l.depthwise() ? 3u : 0u)};
  auto tensor = [](OperandType t, const std::vector<std::uint32_t>& dims, float scale, std::int32_t zp,
                   const void* value, std::size_t bytes) {
    types::sig::operand_desc o;
    o.type = t;
    o.dims = dims;
    o.scale = scale;
    o.zero_point = zp;
    o.value = static_cast<const std::byte*>(value);
    o.value_size = bytes;
    return o;
  };
  std::vector<std::int32_t> scalars;
  if (fc) scalars = {1};  // RELU
  else {
    scalars = {static_cast<std::int32_t>(l.pad[1]), static_cast<std::int32_t>(l.pad[3]),
               static_cast<std::int32_t>(l.pad[0]), static_cast<std::int32_t>(l.pad[2]),
               static_cast<std::int32_t>(l.stride), static_cast<std::int32_t>(l.stride)};
    if (l.depthwise()) scalars.push_back(1);  // depth_multiplier
    if (l.grouped()) scalars.push_back(static_cast<std::int32_t>(l.groups));
    scalars.push_back(3);  // RELU6
  }
  const std::uint8_t nhwc = 0;  // GROUPED_CONV_2D's layout operand
  std::vector<types::sig::operand_desc> in;
  const float ws = d == dtype::qc8 ? 0.0f : (q ? w_scale : 0.0f);
  if (q) {
    in.push_back(tensor(act_type(d), in_dims, in_scale, in_zp(d), c.input.data(), c.input.size()));
    in.push_back(tensor(filter_type(d), w_dims, ws, w_zp(d), c.filter.data(), c.filter.size()));
    if (d == dtype::qc8) in.back().channel_quant = &channel;
    in.push_back(tensor(OperandType::TENSOR_INT32, b_dims, d == dtype::qc8 ? 0.0f : in_scale * w_scale, 0,
                        c.bias_q.data(), 4 * c.bias_q.size()));
  } else if (d == dtype::f16) {
    in.push_back(tensor(act_type(d), in_dims, 0, 0, c.input_h.data(), 2 * c.input_h.size()));
    in.push_back(tensor(filter_type(d), w_dims, 0, 0, c.filter_h.data(), 2 * c.filter_h.size()));
    in.push_back(tensor(act_type(d), b_dims, 0, 0, c.bias_h.data(), 2 * c.bias_h.size()));
  } else {
    in.push_back(tensor(act_type(d), in_dims, 0, 0, c.input_f.data(), 4 * c.input_f.size()));
    in.push_back(tensor(filter_type(d), w_dims, 0, 0, c.filter_f.data(), 4 * c.filter_f.size()));
    in.push_back(tensor(act_type(d), b_dims, 0, 0, c.bias_f.data(), 4 * c.bias_f.size()));
  }
  for (const auto& s : scalars) in.push_back(tensor(OperandType::INT32, {}, 0, 0, &s, 4));
  if (l.grouped()) in.push_back(tensor(OperandType::BOOL, {}, 0, 0, &nhwc, 1));
  std::vector<types::sig::operand_desc> out{
      tensor(act_type(d), out_dims, q ? out_scale(l) : 0.0f, q ? in_zp(d) : 0, nullptr, 0)};
  types::Operation op;
  op.type = l.op;
  for (std::uint32_t i = 0; i < in.size(); ++i) op.inputs.push_back(i);
  auto bound = *ops::families::bind_conv(ops::bind_context{op, in, out, false});
  if (!bound) {
    state.SkipWithError(bound.err().message.c_str());
    return;
  }
  if (reference) {
    namespace g = ops::grouped_conv_2d;
    const ops::kernels::conv::requant rq =
        q ? ops::kernels::conv::make_requant(in[0], in[1], out[0]) : ops::kernels::conv::requant{};
    switch (d) {
      case dtype::f32: *bound = [](const ops::kernel_io& io) { g::reference<types::f32, types::f32>(io, {}); }; break;
      case dtype::f16: *bound = [](const ops::kernel_io& io) { g::reference<types::f16, types::f16>(io, {}); }; break;
      case dtype::qu8: *bound = [rq](const ops::kernel_io& io) { g::reference<types::qu8, types::qu8>(io, rq); }; break;
      case dtype::qs8: *bound = [rq](const ops::kernel_io& io) { g::reference<types::qs8, types::qs8>(io, rq); }; break;
      case dtype::qc8: *bound = [rq](const ops::kernel_io& io) { g::reference<types::qs8, types::qc8>(io, rq); }; break;
    }
  }
  std::array<std::byte*, 1> data{q                 ? reinterpret_cast<std::byte*>(c.output.data())
                                 : d == dtype::f16 ? reinterpret_cast<std::byte*>(c.output_h.data())
                                                   : reinterpret_cast<std::byte*>(c.output_f.data())};
  const ops::kernel k = std::move(*bound);
  run_kernel(state, k, in, out, data, cores);
  report(state, l, d);
}
void nnhal_case(benchmark::State& state, layer l, dtype d, std::size_t cores) {
  nnhal_or_reference(state, l, d, cores, false);
}
void reference_case(benchmark::State& state, layer l, dtype d, std::size_t cores) {
  nnhal_or_reference(state, l, d, cores, true);
}

// --- XNNPACK -----------------------------------------------------------------------------

#if NNHAL_BENCH_XNNPACK
void xnnpack_case(benchmark::State& state, layer l, dtype d, std::size_t cores) {
  pthreadpool_t threads = xnn_threads(cores);
  if (!xnn_ready()) {
    state.SkipWithError("xnn_initialize failed");
    return;
  }
  case_data c = make_data(l, d);
  const bool fc = l.op == OperationType::FULLY_CONNECTED, dw = l.depthwise();
  const std::uint32_t groups = dw ? l.cout : l.groups;
  const std::size_t gin = dw ? 1 : l.cin / l.groups, gout = dw ? 1 : l.cout / l.groups;
  const std::uint32_t flags = dw ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0;
  const auto [pt, pl, pb, pr] = l.pad;
  xnn_operator_t o = nullptr;
  xnn_status s = xnn_status_unsupported_parameter;
  const float os = out_scale(l);
  switch (d) {
    case dtype::f32:
      s = fc ? xnn_create_fully_connected_nc_f32(l.cin, l.cout, l.cin, l.cout, c.filter_f.data(), c.bias_f.data(), 0.0f,
                                                 INFINITY, 0, &o)
             : xnn_create_convolution2d_nhwc_f32(pt, pr, pb, pl, l.k, l.k, l.stride, l.stride, 1, 1, groups, gin, gout,
                                                 l.cin, l.cout, c.filter_f.data(), c.bias_f.data(), 0.0f, 6.0f, flags,
                                                 &o);
      if (s == xnn_status_success)
        s = fc ? xnn_setup_fully_connected_nc_f32(o, 1, c.input_f.data(), c.output_f.data(), threads)
               : xnn_setup_convolution2d_nhwc_f32(o, 1, l.h, l.w, c.input_f.data(), c.output_f.data(), threads);
      break;
    case dtype::f16:
      s = fc ? xnn_create_fully_connected_nc_f16(l.cin, l.cout, l.cin, l.cout, c.filter_h.data(), c.bias_h.data(), 0.0f,
                                                 INFINITY, 0, &o)
             : xnn_create_convolution2d_nhwc_f16(pt, pr, pb, pl, l.k, l.k, l.stride, l.stride, 1, 1, groups, gin, gout,
                                                 l.cin, l.cout, c.filter_h.data(), c.bias_h.data(), 0.0f, 6.0f, flags,
                                                 &o);
      if (s == xnn_status_success)
        s = fc ? xnn_setup_fully_connected_nc_f16(o, 1, c.input_h.data(), c.output_h.data(), threads)
               : xnn_setup_convolution2d_nhwc_f16(o, 1, l.h, l.w, c.input_h.data(), c.output_h.data(), threads);
      break;
    case dtype::qu8:
      s = fc ? xnn_create_fully_connected_nc_qu8(l.cin, l.cout, l.cin, l.cout, 128, in_scale, 120, w_scale,
                                                 c.filter.data(), c.bias_q.data(), 128, os, 128, 255, 0, &o)
             : xnn_create_convolution2d_nhwc_qu8(pt, pr, pb, pl, l.k, l.k, l.stride, l.stride, 1, 1, groups, gin, gout,
                                                 l.cin, l.cout, 128, in_scale, 120, w_scale, c.filter.data(),
                                                 c.bias_q.data(), 128, os, 128, 255, flags, &o);
      if (s == xnn_status_success)
        s = fc ? xnn_setup_fully_connected_nc_qu8(o, 1, c.input.data(), c.output.data(), threads)
               : xnn_setup_convolution2d_nhwc_qu8(o, 1, l.h, l.w, c.input.data(), c.output.data(), threads);
      break;
    case dtype::qs8: {
      const auto* in8 = reinterpret_cast<const std::int8_t*>(c.input.data());
      auto* out8 = reinterpret_cast<std::int8_t*>(c.output.data());
      const auto* w8 = reinterpret_cast<const std::int8_t*>(c.filter.data());
      // XNNPACK's qs8 filters are symmetric (no zero point): the cost is the same.
      s = fc ? xnn_create_fully_connected_nc_qs8(l.cin, l.cout, l.cin, l.cout, 0, in_scale, w_scale, w8,
                                                 c.bias_q.data(), 0, os, 0, 127, 0, &o)
             : xnn_create_convolution2d_nhwc_qs8(pt, pr, pb, pl, l.k, l.k, l.stride, l.stride, 1, 1, groups, gin, gout,
                                                 l.cin, l.cout, 0, in_scale, w_scale, w8, c.bias_q.data(), 0, os, 0,
                                                 127, flags, &o);
      if (s == xnn_status_success)
        s = fc ? xnn_setup_fully_connected_nc_qs8(o, 1, in8, out8, threads)
               : xnn_setup_convolution2d_nhwc_qs8(o, 1, l.h, l.w, in8, out8, threads);
      break;
    }
    case dtype::qc8: {
      if (fc) {
        state.SkipWithError("FULLY_CONNECTED has no per-channel filters");
        return;
      }
      const auto* in8 = reinterpret_cast<const std::int8_t*>(c.input.data());
      auto* out8 = reinterpret_cast<std::int8_t*>(c.output.data());
      s = xnn_create_convolution2d_nhwc_qc8(pt, pr, pb, pl, l.k, l.k, l.stride, l.stride, 1, 1, groups, gin, gout, l.cin,
                                            l.cout, 0, in_scale, c.scales.data(),
                                            reinterpret_cast<const std::int8_t*>(c.filter.data()), c.bias_q.data(), 0,
                                            os, 0, 127, flags, &o);
      if (s == xnn_status_success) s = xnn_setup_convolution2d_nhwc_qc8(o, 1, l.h, l.w, in8, out8, threads);
      break;
    }
  }
  if (xnn_time_operator(state, s, o, threads)) report(state, l, d);
}
#endif

// --- oneDNN ------------------------------------------------------------------------------

#if NNHAL_BENCH_ONEDNN
void onednn_case(benchmark::State& state, layer l, dtype d, std::size_t cores) {
  using namespace dnnl;
#if NNHAL_BENCH_OMP
  omp_set_num_threads(static_cast<int>(cores));
#else
  if (cores > 1) {
    state.SkipWithError("oneDNN's thread count cannot be set in this build");
    return;
  }
#endif
  using tag = memory::format_tag;
  using dt = memory::data_type;
  if (d == dtype::qc8 && l.op == OperationType::FULLY_CONNECTED) {
    state.SkipWithError("FULLY_CONNECTED has no per-channel filters");
    return;
  }
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  const bool q = d != dtype::f32, fc = l.op == OperationType::FULLY_CONNECTED, dw = l.depthwise();
  const dt src_t = d == dtype::f32 ? dt::f32 : d == dtype::qu8 ? dt::u8 : dt::s8;
  const dt w_t = q ? dt::s8 : dt::f32, b_t = q ? dt::s32 : dt::f32;
  primitive_attr attr;
  post_ops po;
  po.append_eltwise(1.0f, fc ? algorithm::eltwise_relu : algorithm::eltwise_clip, 0.0f, fc ? 0.0f : 6.0f);
  attr.set_post_ops(po);
  if (q) {
    if (d == dtype::qc8) {
      std::vector<float> s(l.cout);
      for (std::uint32_t i = 0; i < l.cout; ++i) s[i] = in_scale * channel_scales(l.cout)[i] / out_scale(l);
      attr.set_output_scales(1 << 1, s);
    } else {
      attr.set_output_scales(0, {in_scale * w_scale / out_scale(l)});
    }
    // The activations' zero points, as nnhal's case has them (qu8: 128 in and out). oneDNN's
    // convolutions take no filter zero point: its qu8 and qs8 filters stay symmetric int8,
    // a smaller problem than nnhal's (w - zw, with 120 and -3, often leaves int8). Its
    // inner product takes no zero points at all (it refuses to create one with them), so
    // FULLY_CONNECTED runs without, as mobilenet_bench's classifier does.
    if (in_zp(d) != 0 && !fc) {
      attr.set_zero_points(DNNL_ARG_SRC, 0, {in_zp(d)});
      attr.set_zero_points(DNNL_ARG_DST, 0, {in_zp(d)});
    }
  }
  memory::desc src_md, w_md, b_md({static_cast<memory::dim>(l.cout)}, b_t, tag::x), dst_md;
  primitive prim;
  memory::desc src_chosen, w_chosen, dst_chosen;
  memory::desc w_user, src_user;
  std::string impl;
  // What the created primitive chose: its kernel's name and its tensors' layouts.
  auto take = [&](const auto& pd) {
    impl = pd.impl_info_str();
    src_chosen = pd.src_desc();
    w_chosen = pd.weights_desc();
    dst_chosen = pd.dst_desc();
  };
  try {
    if (fc) {
      src_md = memory::desc({1, static_cast<memory::dim>(l.cin)}, src_t, tag::any);
      w_md = memory::desc({static_cast<memory::dim>(l.cout), static_cast<memory::dim>(l.cin)}, w_t, tag::any);
      dst_md = memory::desc({1, static_cast<memory::dim>(l.cout)}, src_t, tag::any);
      w_user = memory::desc({static_cast<memory::dim>(l.cout), static_cast<memory::dim>(l.cin)}, w_t, tag::oi);
      src_user = memory::desc({1, static_cast<memory::dim>(l.cin)}, src_t, tag::nc);
      inner_product_forward::desc desc(prop_kind::forward_inference, src_md, w_md, b_md, dst_md);
      inner_product_forward::primitive_desc pd(desc, attr, eng);
      prim = inner_product_forward(pd);
      take(pd);
    } else {
      const memory::dim k = l.k, cin = l.cin, cout = l.cout;
      src_md = memory::desc({1, cin, l.h, l.w}, src_t, tag::any);
      dst_md = memory::desc({1, cout, l.out_h(), l.out_w()}, src_t, tag::any);
      w_md = dw ? memory::desc({cout, 1, 1, k, k}, w_t, tag::any) : memory::desc({cout, cin, k, k}, w_t, tag::any);
      w_user = dw ? memory::desc({cout, 1, 1, k, k}, w_t, tag::goihw) : memory::desc({cout, cin, k, k}, w_t, tag::oihw);
      src_user = memory::desc({1, cin, l.h, l.w}, src_t, tag::nhwc);
      convolution_forward::desc desc(prop_kind::forward_inference, algorithm::convolution_direct, src_md, w_md, b_md,
                                     dst_md, {l.stride, l.stride}, {l.pad[0], l.pad[1]}, {l.pad[2], l.pad[3]});
      convolution_forward::primitive_desc pd(desc, attr, eng);
      prim = convolution_forward(pd);
      take(pd);
    }
  } catch (const dnnl::error& e) {  // a case this oneDNN has no primitive for: skipped, named
    state.SkipWithError((std::string("oneDNN: ") + e.what()).c_str());
    return;
  }
  state.SetLabel(impl);  // oneDNN's kernel for the case, e.g. brgconv_dw:avx512_core_amx
  case_data c = make_data(l, d);
  memory src(src_chosen, eng), dst(dst_chosen, eng), bias(b_md, eng), w(w_chosen, eng);
  // Weights: the same values in the user layout, reordered once into the chosen one.
  memory w_src(w_user, eng);
  std::memcpy(w_src.get_data_handle(), q ? static_cast<const void*>(c.filter.data()) : c.filter_f.data(),
              std::min<std::size_t>(w_user.get_size(), q ? c.filter.size() : 4 * c.filter_f.size()));
  reorder(w_src, w).execute(strm, w_src, w);
  std::memcpy(bias.get_data_handle(), q ? static_cast<const void*>(c.bias_q.data()) : c.bias_f.data(), 4 * l.cout);
  // The input: the case's own values (as the other implementations get), NHWC, reordered
  // once into the chosen layout.
  memory x_src(src_user, eng);
  std::memcpy(x_src.get_data_handle(), q ? static_cast<const void*>(c.input.data()) : c.input_f.data(),
              std::min<std::size_t>(src_user.get_size(), q ? c.input.size() : 4 * c.input_f.size()));
  reorder(x_src, src).execute(strm, x_src, src);
  const std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}};
  for (auto _ : state) {
    prim.execute(strm, args);
    strm.wait();
  }
  report(state, l, d);
}
#endif

/// GFLOP/s (GOP/s for quant8) and the fraction of the matching peak, for `ops` per iteration.
void report_ops(benchmark::State& state, double ops, dtype d) {
  const double total = ops * static_cast<double>(state.iterations());
  state.counters["GFLOPs"] = benchmark::Counter(total / 1e9, benchmark::Counter::kIsRate);
  const double peak = d == dtype::f32 || d == dtype::f16 ? peaks().fma_f32_flops : peaks().int8_ops();
  if (peak > 0) state.counters["peak_frac"] = benchmark::Counter(total / peak, benchmark::Counter::kIsRate);
}

/// A tensor operand (value may be null: bound at execution); `dims` must outlive it.
types::sig::operand_desc tensor_of(OperandType type, std::span<const std::uint32_t> dims, const void* value,
                                   std::size_t bytes, float scale = 0.0f, std::int32_t zp = 0) {
  types::sig::operand_desc o;
  o.type = type;
  o.dims = dims;
  o.value = static_cast<const std::byte*>(value);
  o.value_size = bytes;
  o.scale = scale;
  o.zero_point = zp;
  return o;
}

/// Bytes of one element of `d`'s activations.
std::size_t element_bytes(dtype d) { return d == dtype::f32 ? 4 : d == dtype::f16 ? 2 : 1; }

/// The same random numbers as `d`'s elements: floats in [-amp, amp), float16 of them, or bytes.
byte_buffer random_tensor(std::size_t n, dtype d, float amp, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> real(-amp, amp);
  std::uniform_int_distribution<int> byte(0, 255);
  byte_buffer v(n * element_bytes(d));
  for (std::size_t i = 0; i < n; ++i) {
    if (d == dtype::f32) {
      const float f = real(rng);
      std::memcpy(v.data() + 4 * i, &f, 4);
    } else if (d == dtype::f16) {
      const types::float16 h = types::to_float16(real(rng));
      std::memcpy(v.data() + 2 * i, &h, 2);
    } else {
      v[i] = static_cast<std::byte>(byte(rng));
    }
  }
  return v;
}

// --- BATCH_MATMUL ----------------------------------------------------------------------
// One [128, 768] x [768, 768] slice, float32, float16 and quant8 signed (the only quant8
// type BATCH_MATMUL has), both inputs runtime tensors (so nnhal packs input1 at every
// execution). Next to it XNNPACK's fully-connected operator on the same GEMM, whose
// weights it packs once at creation (this XNNPACK has no batch matmul operator: a lower
// bound on its work), and nnhal's reference().
// Names: conv/batch_matmul/<dtype>/128x768x768/<impl>.

constexpr std::uint32_t mm_m = 128, mm_k = 768, mm_n = 768;
constexpr double mm_ops = 2.0 * mm_m * mm_k * mm_n;
// quant8: inputs scale 1/32 and 1/64, zero points 3 and -3; the output scaled to the sums' spread.
constexpr float mm_x_scale = 1.0f / 32, mm_y_scale = 1.0f / 64;
constexpr std::int32_t mm_x_zp = 3, mm_y_zp = -3;
const float mm_out_scale = static_cast<float>(mm_x_scale * mm_y_scale * 40.0 * std::sqrt(double{mm_k}));

/// Operands of the case as `d` values, the same random numbers for every library.
struct matmul_data {
  byte_buffer x, y, out;
};
matmul_data make_matmul(dtype d) {
  return {random_tensor(std::size_t{mm_m} * mm_k, d, 1.0f, 11), random_tensor(std::size_t{mm_k} * mm_n, d, 1.0f, 12),
          byte_buffer(std::size_t{mm_m} * mm_n * element_bytes(d))};
}

void matmul_nnhal(benchmark::State& state, dtype d, bool reference, std::size_t cores) {
  matmul_data m = make_matmul(d);
  const bool q = d == dtype::qs8;
  const OperandType t = act_type(d);
  const std::uint8_t no = 0;
  const std::vector<std::uint32_t> xd{mm_m, mm_k}, yd{mm_k, mm_n}, od{mm_m, mm_n};
  std::vector<types::sig::operand_desc> in{
      tensor_of(t, xd, m.x.data(), m.x.size(), q ? mm_x_scale : 0.0f, q ? mm_x_zp : 0),
      tensor_of(t, yd, m.y.data(), m.y.size(), q ? mm_y_scale : 0.0f, q ? mm_y_zp : 0),
      tensor_of(OperandType::BOOL, {}, &no, 1), tensor_of(OperandType::BOOL, {}, &no, 1)};
  std::vector<types::sig::operand_desc> out{tensor_of(t, od, nullptr, 0, q ? mm_out_scale : 0.0f, 0)};
  types::Operation op;
  op.type = OperationType::BATCH_MATMUL;
  for (std::uint32_t i = 0; i < in.size(); ++i) op.inputs.push_back(i);
  // Bound as a driver binds it: input0 and input1 unknown until execution.
  std::vector<types::sig::operand_desc> at_bind = in;
  at_bind[0].value = at_bind[1].value = nullptr;
  ops::kernel k;
  if (reference) {
    if (d == dtype::f16) k = [](const ops::kernel_io& io) { ops::batch_matmul::reference<types::f16>(io, {}); };
    else if (d == dtype::f32) k = [](const ops::kernel_io& io) { ops::batch_matmul::reference<types::f32>(io, {}); };
    else {
      const auto rq = ops::kernels::conv::make_requant(in[0], in[1], out[0]);
      k = [rq](const ops::kernel_io& io) { ops::batch_matmul::reference<types::qs8>(io, rq); };
    }
  } else {
    auto bound = *ops::families::bind_conv(ops::bind_context{op, at_bind, out, false});
    if (!bound) {
      state.SkipWithError(bound.err().message.c_str());
      return;
    }
    k = std::move(*bound);
  }
  std::array<std::byte*, 1> data{m.out.data()};
  run_kernel(state, k, in, out, data, cores);
  report_ops(state, mm_ops, d);
}

#if NNHAL_BENCH_XNNPACK
void matmul_xnnpack(benchmark::State& state, dtype d, std::size_t cores) {
  pthreadpool_t threads = xnn_threads(cores);
  if (!xnn_ready()) {
    state.SkipWithError("xnn_initialize failed");
    return;
  }
  matmul_data m = make_matmul(d);
  // Fully connected computes x W^T: W is input1 transposed, [n][k].
  const std::size_t es = element_bytes(d);
  byte_buffer wt(m.y.size());
  for (std::size_t i = 0; i < mm_k; ++i)
    for (std::size_t j = 0; j < mm_n; ++j) std::memcpy(wt.data() + (j * mm_k + i) * es, m.y.data() + (i * mm_n + j) * es, es);
  xnn_operator_t o = nullptr;
  xnn_status s;
  if (d == dtype::f16) {
    s = xnn_create_fully_connected_nc_f16(mm_k, mm_n, mm_k, mm_n, wt.data(), nullptr, -INFINITY, INFINITY, 0, &o);
    if (s == xnn_status_success) s = xnn_setup_fully_connected_nc_f16(o, mm_m, m.x.data(), m.out.data(), threads);
  } else if (d == dtype::f32) {
    s = xnn_create_fully_connected_nc_f32(mm_k, mm_n, mm_k, mm_n, reinterpret_cast<const float*>(wt.data()), nullptr,
                                          -INFINITY, INFINITY, 0, &o);
    if (s == xnn_status_success)
      s = xnn_setup_fully_connected_nc_f32(o, mm_m, reinterpret_cast<const float*>(m.x.data()),
                                           reinterpret_cast<float*>(m.out.data()), threads);
  } else {
    // Its qs8 weights are symmetric (zero point 0): the same bytes, one zero point fewer.
    s = xnn_create_fully_connected_nc_qs8(mm_k, mm_n, mm_k, mm_n, mm_x_zp, mm_x_scale, mm_y_scale,
                                          reinterpret_cast<const std::int8_t*>(wt.data()), nullptr, 0, mm_out_scale,
                                          -128, 127, 0, &o);
    if (s == xnn_status_success)
      s = xnn_setup_fully_connected_nc_qs8(o, mm_m, reinterpret_cast<const std::int8_t*>(m.x.data()),
                                           reinterpret_cast<std::int8_t*>(m.out.data()), threads);
  }
  if (xnn_time_operator(state, s, o, threads)) report_ops(state, mm_ops, d);
}
#endif

// --- TRANSPOSE_CONV_2D -----------------------------------------------------------------
// A decoder's upsampling layer: 28x28x128 -> 56x56x64, 4x4 filter, stride 2, padding 1 on
// every side, RELU; float32 and quant8 (qu8, qs8, qc8: signed with per-channel filters);
// nnhal (filter constant, packed at bind) next to XNNPACK's deconvolution (f32, qu8, qs8)
// and nnhal's reference. Names: conv/transpose_conv_2d/<dtype>/28x28x128_k4s2_64/<impl>.

constexpr std::uint32_t tc_in = 28, tc_cin = 128, tc_cout = 64, tc_k = 4, tc_stride = 2, tc_pad = 1;
constexpr std::uint32_t tc_out = (tc_in - 1) * tc_stride + tc_k - 2 * tc_pad;
constexpr double tc_ops = 2.0 * tc_in * tc_in * tc_cin * tc_k * tc_k * tc_cout;
// quant8: the conv cases' scales and zero points; each output sums about cin * 4 products.
const float tc_out_scale = static_cast<float>(in_scale * w_scale * 40.0 * std::sqrt(4.0 * tc_cin));

struct transpose_conv_data {
  byte_buffer input, filter, bias, output;
};
transpose_conv_data make_transpose_conv(dtype d) {
  transpose_conv_data t;
  t.input = random_tensor(std::size_t{tc_in} * tc_in * tc_cin, d, 1.0f, 13);
  t.filter = random_tensor(std::size_t{tc_cout} * tc_k * tc_k * tc_cin, d == dtype::qc8 ? dtype::qs8 : d, 0.1f, 14);
  if (d == dtype::qc8)  // symmetric: -127..127
    for (auto& b : t.filter)
      if (b == std::byte{0x80}) b = std::byte{0x81};
  if (d == dtype::f32) {
    t.bias = random_tensor(tc_cout, d, 1.0f, 15);
  } else {
    std::mt19937 rng(15);
    std::uniform_int_distribution<std::int32_t> bias(-2000, 2000);
    t.bias.resize(4 * tc_cout);
    for (std::size_t i = 0; i < tc_cout; ++i) {
      const std::int32_t b = bias(rng);
      std::memcpy(t.bias.data() + 4 * i, &b, 4);
    }
  }
  t.output.resize(std::size_t{tc_out} * tc_out * tc_cout * element_bytes(d));
  return t;
}

void transpose_conv_nnhal(benchmark::State& state, dtype d, bool reference, std::size_t cores) {
  transpose_conv_data t = make_transpose_conv(d);
  const bool q = d != dtype::f32;
  const OperandType at = act_type(d), ft = filter_type(d);
  // Explicit padding: left, right, top, bottom, stride w, stride h, activation (RELU), NHWC.
  const std::int32_t scalars[] = {tc_pad, tc_pad, tc_pad, tc_pad, tc_stride, tc_stride, 1};
  const std::uint8_t nhwc = 0;
  const types::SymmPerChannelQuantParams channel{channel_scales(tc_cout), 0u};
  const std::vector<std::uint32_t> in_dims{1, tc_in, tc_in, tc_cin}, w_dims{tc_cout, tc_k, tc_k, tc_cin},
      b_dims{tc_cout}, out_dims{1, tc_out, tc_out, tc_cout};
  std::vector<types::sig::operand_desc> in{
      tensor_of(at, in_dims, t.input.data(), t.input.size(), q ? in_scale : 0.0f, in_zp(d)),
      tensor_of(ft, w_dims, t.filter.data(), t.filter.size(), q && d != dtype::qc8 ? w_scale : 0.0f,
                w_zp(d)),
      tensor_of(q ? OperandType::TENSOR_INT32 : at, b_dims, t.bias.data(), t.bias.size(),
                q && d != dtype::qc8 ? in_scale * w_scale : 0.0f)};
  if (d == dtype::qc8) in[1].channel_quant = &channel;
  for (const auto& v : scalars) in.push_back(tensor_of(OperandType::INT32, {}, &v, 4));
  in.push_back(tensor_of(OperandType::BOOL, {}, &nhwc, 1));
  std::vector<types::sig::operand_desc> out{
      tensor_of(at, out_dims, nullptr, 0, q ? tc_out_scale : 0.0f, in_zp(d))};
  types::Operation op;
  op.type = OperationType::TRANSPOSE_CONV_2D;
  for (std::uint32_t i = 0; i < in.size(); ++i) op.inputs.push_back(i);
  ops::kernel k;
  if (reference) {
    const auto rq = q ? ops::kernels::conv::make_requant(in[0], in[1], out[0]) : ops::kernels::conv::requant{};
    switch (d) {
      case dtype::f32: k = [](const ops::kernel_io& io) { ops::transpose_conv_2d::reference<types::f32, types::f32>(io, {}); }; break;
      case dtype::qu8: k = [rq](const ops::kernel_io& io) { ops::transpose_conv_2d::reference<types::qu8, types::qu8>(io, rq); }; break;
      case dtype::qs8: k = [rq](const ops::kernel_io& io) { ops::transpose_conv_2d::reference<types::qs8, types::qs8>(io, rq); }; break;
      default: k = [rq](const ops::kernel_io& io) { ops::transpose_conv_2d::reference<types::qs8, types::qc8>(io, rq); }; break;
    }
  } else {
    auto bound = *ops::families::bind_conv(ops::bind_context{op, in, out, false});
    if (!bound) {
      state.SkipWithError(bound.err().message.c_str());
      return;
    }
    k = std::move(*bound);
  }
  std::array<std::byte*, 1> data{t.output.data()};
  run_kernel(state, k, in, out, data, cores);
  report_ops(state, tc_ops, d);
}

#if NNHAL_BENCH_XNNPACK
void transpose_conv_xnnpack(benchmark::State& state, dtype d, std::size_t cores) {
  pthreadpool_t threads = xnn_threads(cores);
  if (!xnn_ready()) {
    state.SkipWithError("xnn_initialize failed");
    return;
  }
  transpose_conv_data t = make_transpose_conv(d);
  xnn_operator_t o = nullptr;
  xnn_status s;
  // Its filter layout [out_c][kh][kw][in_c] is NNAPI's; RELU as the output range.
  if (d == dtype::f32) {
    s = xnn_create_deconvolution2d_nhwc_f32(tc_pad, tc_pad, tc_pad, tc_pad, tc_k, tc_k, tc_stride, tc_stride, 1, 1, 1,
                                            tc_cin, tc_cout, tc_cin, tc_cout, reinterpret_cast<const float*>(t.filter.data()),
                                            reinterpret_cast<const float*>(t.bias.data()), 0.0f, INFINITY, 0, &o);
    if (s == xnn_status_success)
      s = xnn_setup_deconvolution2d_nhwc_f32(o, 1, tc_in, tc_in, 0, 0, reinterpret_cast<const float*>(t.input.data()),
                                             reinterpret_cast<float*>(t.output.data()), threads);
  } else if (d == dtype::qu8) {
    const auto zero = static_cast<std::uint8_t>(in_zp(d));
    s = xnn_create_deconvolution2d_nhwc_qu8(tc_pad, tc_pad, tc_pad, tc_pad, tc_k, tc_k, tc_stride, tc_stride, 1, 1, 1,
                                            tc_cin, tc_cout, tc_cin, tc_cout, zero, in_scale,
                                            static_cast<std::uint8_t>(w_zp(d)), w_scale,
                                            reinterpret_cast<const std::uint8_t*>(t.filter.data()),
                                            reinterpret_cast<const std::int32_t*>(t.bias.data()), zero, tc_out_scale, zero,
                                            255, 0, &o);
    if (s == xnn_status_success)
      s = xnn_setup_deconvolution2d_nhwc_qu8(o, 1, tc_in, tc_in, 0, 0, reinterpret_cast<const std::uint8_t*>(t.input.data()),
                                             reinterpret_cast<std::uint8_t*>(t.output.data()), threads);
  } else {
    // Its qs8 filters are symmetric (zero point 0).
    s = xnn_create_deconvolution2d_nhwc_qs8(tc_pad, tc_pad, tc_pad, tc_pad, tc_k, tc_k, tc_stride, tc_stride, 1, 1, 1,
                                            tc_cin, tc_cout, tc_cin, tc_cout, 0, in_scale, w_scale,
                                            reinterpret_cast<const std::int8_t*>(t.filter.data()),
                                            reinterpret_cast<const std::int32_t*>(t.bias.data()), 0, tc_out_scale, 0, 127,
                                            0, &o);
    if (s == xnn_status_success)
      s = xnn_setup_deconvolution2d_nhwc_qs8(o, 1, tc_in, tc_in, 0, 0, reinterpret_cast<const std::int8_t*>(t.input.data()),
                                             reinterpret_cast<std::int8_t*>(t.output.data()), threads);
  }
  if (xnn_time_operator(state, s, o, threads)) report_ops(state, tc_ops, d);
}
#endif

/// An XNNPACK benchmark of an extra case: fn(state, d, cores).
using xnn_case = void (*)(benchmark::State&, dtype, std::size_t);

/// Registers nnhal, XNNPACK (when `xfn` is not null) and reference benchmarks of one extra
/// case for one and all cores: fn(state, d, reference, cores).
template <class Fn>
void register_extra(const std::string& base, dtype d, Fn fn, xnn_case xfn) {
  std::vector<std::size_t> core_counts{1};
  if (all_cores() > 1) core_counts.push_back(all_cores());
  for (std::size_t cores : core_counts) {
    const std::string suffix = cores_suffix(cores);
    auto reg = [&](benchmark::internal::Benchmark* b) {
      b->Unit(benchmark::kMicrosecond);
      if (cores > 1) b->UseRealTime();
    };
    reg(benchmark::RegisterBenchmark((base + "nnhal" + suffix).c_str(), fn, d, false, cores));
    if (xfn) reg(benchmark::RegisterBenchmark((base + "xnnpack" + suffix).c_str(), xfn, d, cores));
    if (cores == 1) reg(benchmark::RegisterBenchmark((base + "reference").c_str(), fn, d, true, cores));
  }
}

void register_transpose_conv() {
  xnn_case x = nullptr;
#if NNHAL_BENCH_XNNPACK
  x = transpose_conv_xnnpack;
#endif
  for (dtype d : {dtype::f32, dtype::qu8, dtype::qs8, dtype::qc8})  // XNNPACK has no per-channel deconvolution
    register_extra(std::string("conv/transpose_conv_2d/") + name_of(d) + "/28x28x128_k4s2_64/", d, transpose_conv_nnhal,
                   d == dtype::qc8 ? nullptr : x);
}

void register_matmul() {
  xnn_case x = nullptr;
#if NNHAL_BENCH_XNNPACK
  x = matmul_xnnpack;
#endif
  for (dtype d : {dtype::f32, dtype::f16, dtype::qs8})
    register_extra(std::string("conv/batch_matmul/") + name_of(d) + "/128x768x768/", d, matmul_nnhal, x);
}

int register_all() {
  for (const layer& l : layers)
    for (dtype d : {dtype::f32, dtype::f16, dtype::qu8, dtype::qs8, dtype::qc8}) {
      if (d == dtype::qc8 && l.op == OperationType::FULLY_CONNECTED) continue;  // no per-channel FULLY_CONNECTED
      const std::string base = std::string("conv/") + l.op_name() + "/" + name_of(d) + "/" + l.shape + "/";
      std::vector<std::size_t> core_counts{1};
      if (all_cores() > 1) core_counts.push_back(all_cores());
      for (std::size_t cores : core_counts) {
        const std::string suffix = cores_suffix(cores);
        auto reg = [&](const char* impl, auto fn) {
          auto* b = benchmark::RegisterBenchmark((base + impl + suffix).c_str(), fn, l, d, cores);
          b->Unit(benchmark::kMicrosecond);
          if (cores > 1) b->UseRealTime();
        };
        reg("nnhal", nnhal_case);
#if NNHAL_BENCH_XNNPACK
        reg("xnnpack", xnnpack_case);
#endif
#if NNHAL_BENCH_ONEDNN
        if (d != dtype::f16 && !l.grouped()) reg("onednn", onednn_case);
#endif
        if (l.grouped() && cores == 1) reg("reference", reference_case);
      }
    }
  register_matmul();
  register_transpose_conv();
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace nnhal::bench
