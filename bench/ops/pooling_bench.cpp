// Pooling and softmax on MobileNet shapes: nnhal next to XNNPACK in the same run, on one core
// and on all of them (/cores:N, wall time). LOCAL_RESPONSE_NORMALIZATION,
// INSTANCE_NORMALIZATION and TOPK_V2, which XNNPACK lacks, run next to nnhal's reference
// kernels instead.
// These are memory-bound, so each result reports bytes per second (input read once,
// output written once) and copy_frac, the fraction of this machine's copy bandwidth.
// Names: pool/<op>/<dtype>/<shape>/<impl>.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "nnhal/ops/instance_normalization.hpp"
#include "nnhal/ops/local_response_normalization.hpp"
#include "nnhal/ops/mean.hpp"
#include "nnhal/ops/topk_v2.hpp"
#include "support/op_fixture.hpp"
#include "support/xnnpack_run.hpp"

namespace nnhal::bench {
namespace {

using types::OperandType;
using types::OperationType;

enum class kind { global_average, max_3x3s2, average_3x3s2, softmax, lrn, instance_norm, topk5, mean_hw };

struct pool_case {
  const char* op;
  const char* shape;
  kind k;
  std::vector<std::uint32_t> in;  // NHWC, or [rows, classes] for softmax
};

const pool_case cases[] = {
    {"global_average_pool", "7x7x1024", kind::global_average, {1, 7, 7, 1024}},
    {"max_pool_2d", "112x112x64_k3s2", kind::max_3x3s2, {1, 112, 112, 64}},
    {"average_pool_2d", "112x112x64_k3s2", kind::average_3x3s2, {1, 112, 112, 64}},
    {"softmax", "1x1001", kind::softmax, {1, 1001}},
    {"softmax", "64x1000", kind::softmax, {64, 1000}},
};

// Against the reference kernel (this XNNPACK has no such operator): GoogLeNet's LRN
// (radius 2, alpha 1e-4, beta 0.75), an image-sized instance normalization, top 5 of
// 1001 classes, MEAN over height and width (global average pooling as TFLite writes it).
const pool_case reference_cases[] = {
    {"mean", "7x7x1024_hw", kind::mean_hw, {1, 7, 7, 1024}},
    {"local_response_normalization", "56x56x192_r2", kind::lrn, {1, 56, 56, 192}},
    {"instance_normalization", "64x64x64", kind::instance_norm, {1, 64, 64, 64}},
    {"topk_v2", "1x1001_k5", kind::topk5, {1, 1001}},
    {"topk_v2", "64x1000_k5", kind::topk5, {64, 1000}},
};


// 3x3 stride 2 with padding (left 0, right 1, top 0, bottom 1): 112 -> 56, TensorFlow's SAME.
constexpr std::uint32_t pool_out(std::uint32_t in) { return (in + 1 - 3) / 2 + 1; }

std::vector<std::uint32_t> output_dims(const pool_case& c) {
  switch (c.k) {
    case kind::global_average: return {c.in[0], 1, 1, c.in[3]};
    case kind::max_3x3s2:
    case kind::average_3x3s2: return {c.in[0], pool_out(c.in[1]), pool_out(c.in[2]), c.in[3]};
    case kind::topk5: return {c.in[0], 5};
    case kind::mean_hw: return {c.in[0], c.in[3]};
    default: return c.in;
  }
  return c.in;
}

// --- nnhal -------------------------------------------------------------------------------

void nnhal_pool(benchmark::State& state, pool_case c, dtype_spec dt, std::size_t cores, ops::kernel instead = {}) {
  const auto i32 = [](std::int32_t v) { return scalar<std::int32_t>(OperandType::INT32, v); };
  const auto real = [](float v) { return scalar<float>(OperandType::FLOAT32, v); };
  const operand_spec in{dt.type, c.in, dt.scale, dt.zero_point};
  operand_spec out{dt.type, output_dims(c), dt.scale, dt.zero_point};
  std::vector<operand_spec> ins{in}, outs;
  OperationType op = OperationType::AVERAGE_POOL_2D;
  switch (c.k) {
    case kind::global_average:
      ins.insert(ins.end(), {i32(0), i32(0), i32(0), i32(0), i32(1), i32(1), i32(static_cast<std::int32_t>(c.in[2])),
                             i32(static_cast<std::int32_t>(c.in[1])), i32(0)});
      break;
    case kind::max_3x3s2:
    case kind::average_3x3s2:
      op = c.k == kind::max_3x3s2 ? OperationType::MAX_POOL_2D : OperationType::AVERAGE_POOL_2D;
      ins.insert(ins.end(), {i32(0), i32(1), i32(0), i32(1), i32(2), i32(2), i32(3), i32(3), i32(0)});
      break;
    case kind::softmax:
      op = OperationType::SOFTMAX;
      ins.push_back(scalar<float>(OperandType::FLOAT32, 1.0f));
      if (dt.type != OperandType::TENSOR_FLOAT32) out.scale = 1.0f / 256, out.zero_point = 0;  // the HAL's fixed output
      break;
    case kind::lrn:
      op = OperationType::LOCAL_RESPONSE_NORMALIZATION;
      ins.insert(ins.end(), {i32(2), real(1.0f), real(1e-4f), real(0.75f)});
      break;
    case kind::instance_norm:
      op = OperationType::INSTANCE_NORMALIZATION;
      ins.insert(ins.end(), {real(1.5f), real(0.25f), real(1e-5f), scalar<std::uint8_t>(OperandType::BOOL, 0)});
      break;
    case kind::mean_hw: {
      op = OperationType::MEAN;
      operand_spec axes{OperandType::TENSOR_INT32, {2}, 0.0f, 0, byte_buffer(8)};
      const std::int32_t hw[2] = {1, 2};
      std::memcpy(axes.value.data(), hw, 8);
      ins.insert(ins.end(), {std::move(axes), i32(0)});
      break;
    }
    case kind::topk5:
      op = OperationType::TOPK_V2;
      ins.push_back(i32(5));
      outs.push_back(operand_spec{OperandType::TENSOR_INT32, output_dims(c)});
      break;
  }
  outs.insert(outs.begin(), out);
  fixture_options options;
  options.cores = cores;
  options.instead = std::move(instead);
  op_fixture f(op, ins, outs, options);
  if (f.time(state)) report_traffic(state, f.bytes_moved());
}

// --- XNNPACK -----------------------------------------------------------------------------

#if NNHAL_BENCH_XNNPACK
void xnnpack_pool(benchmark::State& state, pool_case c, dtype_spec dt, std::size_t cores) {
  pthreadpool_t threads = xnn_threads(cores);
  if (!xnn_ready()) {
    state.SkipWithError("xnn_initialize failed");
    return;
  }
  const bool q = dt.type != OperandType::TENSOR_FLOAT32;
  const std::size_t esize = q ? 1 : 4;
  std::size_t in_n = 1, out_n = 1;
  for (auto d : c.in) in_n *= d;
  for (auto d : output_dims(c)) out_n *= d;
  byte_buffer x(in_n * esize, std::byte{7}), y(out_n * esize);
  const auto zp = static_cast<std::uint8_t>(dt.zero_point);
  const float inf = INFINITY;
  xnn_operator_t o = nullptr;
  xnn_status s = xnn_status_unsupported_parameter;
  switch (c.k) {
    case kind::global_average: {
      const std::size_t ch = c.in[3], width = std::size_t{c.in[1]} * c.in[2];
      if (!q) {
        s = xnn_create_global_average_pooling_nwc_f32(ch, ch, ch, -inf, inf, 0, &o);
        if (s == xnn_status_success)
          s = xnn_setup_global_average_pooling_nwc_f32(o, c.in[0], width, reinterpret_cast<const float*>(x.data()),
                                                       reinterpret_cast<float*>(y.data()), threads);
      } else {
        s = xnn_create_global_average_pooling_nwc_qu8(ch, ch, ch, zp, dt.scale, zp, dt.scale, 0, 255, 0, &o);
        if (s == xnn_status_success)
          s = xnn_setup_global_average_pooling_nwc_qu8(o, c.in[0], width, reinterpret_cast<const std::uint8_t*>(x.data()),
                                                       reinterpret_cast<std::uint8_t*>(y.data()), threads);
      }
      break;
    }
    case kind::max_3x3s2: {
      const std::size_t ch = c.in[3];
      if (!q) {
        s = xnn_create_max_pooling2d_nhwc_f32(0, 1, 1, 0, 3, 3, 2, 2, 1, 1, ch, ch, ch, -inf, inf, 0, &o);
        if (s == xnn_status_success)
          s = xnn_setup_max_pooling2d_nhwc_f32(o, c.in[0], c.in[1], c.in[2], reinterpret_cast<const float*>(x.data()),
                                               reinterpret_cast<float*>(y.data()), threads);
      } else {
        s = xnn_create_max_pooling2d_nhwc_u8(0, 1, 1, 0, 3, 3, 2, 2, 1, 1, ch, ch, ch, 0, 255, 0, &o);
        if (s == xnn_status_success)
          s = xnn_setup_max_pooling2d_nhwc_u8(o, c.in[0], c.in[1], c.in[2], reinterpret_cast<const std::uint8_t*>(x.data()),
                                              reinterpret_cast<std::uint8_t*>(y.data()), threads);
      }
      break;
    }
    case kind::average_3x3s2: {
      const std::size_t ch = c.in[3];
      if (!q) {
        s = xnn_create_average_pooling2d_nhwc_f32(0, 1, 1, 0, 3, 3, 2, 2, ch, ch, ch, -inf, inf, 0, &o);
        if (s == xnn_status_success)
          s = xnn_setup_average_pooling2d_nhwc_f32(o, c.in[0], c.in[1], c.in[2], reinterpret_cast<const float*>(x.data()),
                                                   reinterpret_cast<float*>(y.data()), threads);
      } else {
        s = xnn_create_average_pooling2d_nhwc_qu8(0, 1, 1, 0, 3, 3, 2, 2, ch, ch, ch, zp, dt.scale, zp, dt.scale, 0, 255,
                                                  0, &o);
        if (s == xnn_status_success)
          s = xnn_setup_average_pooling2d_nhwc_qu8(o, c.in[0], c.in[1], c.in[2],
                                                   reinterpret_cast<const std::uint8_t*>(x.data()),
                                                   reinterpret_cast<std::uint8_t*>(y.data()), threads);
      }
      break;
    }
    case kind::softmax: {
      const std::size_t classes = c.in[1];
      if (!q) {
        s = xnn_create_softmax_nc_f32(classes, classes, classes, 0, &o);
        if (s == xnn_status_success)
          s = xnn_setup_softmax_nc_f32(o, c.in[0], reinterpret_cast<const float*>(x.data()),
                                       reinterpret_cast<float*>(y.data()), threads);
      } else {
        s = xnn_create_softmax_nc_qu8(classes, classes, classes, dt.scale, 0, 1.0f / 256, 0, &o);
        if (s == xnn_status_success)
          s = xnn_setup_softmax_nc_qu8(o, c.in[0], reinterpret_cast<const std::uint8_t*>(x.data()),
                                       reinterpret_cast<std::uint8_t*>(y.data()), threads);
      }
      break;
    }
    default: break;  // no XNNPACK operator (not registered)
  }
  if (xnn_time_operator(state, s, o, threads)) report_traffic(state, (in_n + out_n) * esize);
}
#endif

int register_all() {
  for (const auto& c : cases) {
    for (auto dt : {f32, qu8}) {
      const std::string base = std::string("pool/") + c.op + "/" + dt.name + "/" + c.shape + "/";
      // One core, then all of them (wall time: the other threads' work counts).
      for (std::size_t cores : {std::size_t{1}, all_cores()}) {
        auto* b = benchmark::RegisterBenchmark((base + "nnhal" + cores_suffix(cores)).c_str(), nnhal_pool, c, dt, cores, ops::kernel{});
#if NNHAL_BENCH_XNNPACK
        auto* x = benchmark::RegisterBenchmark((base + "xnnpack" + cores_suffix(cores)).c_str(), xnnpack_pool, c, dt, cores);
        if (cores > 1) x->UseRealTime();
#endif
        if (cores > 1) b->UseRealTime();
        if (all_cores() == 1) break;
      }
    }
  }
  for (const auto& c : reference_cases) {
    const std::string base = std::string("pool/") + c.op + "/f32/" + c.shape + "/";
    ops::kernel reference = ops::topk_v2::reference<types::f32>;
    if (c.k == kind::mean_hw) reference = ops::mean::reference<types::f32>;
    if (c.k == kind::lrn) reference = ops::local_response_normalization::reference<types::f32>;
    if (c.k == kind::instance_norm) reference = ops::instance_normalization::reference<types::f32>;
    for (std::size_t cores : {std::size_t{1}, all_cores()}) {
      auto* b = benchmark::RegisterBenchmark((base + "nnhal" + cores_suffix(cores)).c_str(), nnhal_pool, c, f32, cores, ops::kernel{});
      if (cores > 1) b->UseRealTime();
      if (all_cores() == 1) break;
    }
    benchmark::RegisterBenchmark((base + "reference").c_str(), nnhal_pool, c, f32, std::size_t{1}, reference);
  }
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace nnhal::bench
