// Data-movement operations on MobileNet-sized tensors: nnhal next to XNNPACK where this
// Debian XNNPACK has the operator (constant pad, depth-to-space, resize-bilinear, channel
// shuffle, copy; concatenation and slice as XNNPACK's subgraph runs them, strided copies:
// this XNNPACK has no transpose or slice operator), one core. Bytes per second count each
// input read once and the output written once (SLICE and GATHER: the bytes they copy,
// read and written);
// copy_frac is the fraction of this machine's copy bandwidth for that traffic.
// Names: movement/<op>/<dtype>/<shape>/<impl>.
#include <benchmark/benchmark.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "support/op_fixture.hpp"
#include "support/xnnpack_run.hpp"

namespace nnhal::bench {
namespace {

using types::OperandType;
using types::OperationType;
using dims = std::vector<std::uint32_t>;

enum class kind {
  pad,
  depth_to_space,
  resize_bilinear,
  channel_shuffle,
  concatenation,
  transpose,
  slice,
  gather,
  copy,
  space_to_batch,
  batch_to_space
};

struct move_case {
  const char* op;
  const char* shape;
  kind k;
  dims in;
  std::vector<std::int32_t> perm{};  // TRANSPOSE only
  bool nchw = false;                  // the layout flag of the batch ops
};

const move_case cases[] = {
    {"pad", "112x112x32_p1", kind::pad, {1, 112, 112, 32}},
    {"depth_to_space", "56x56x64_b2", kind::depth_to_space, {1, 56, 56, 64}},
    {"resize_bilinear", "112x112x32_to_224", kind::resize_bilinear, {1, 112, 112, 32}},
    {"channel_shuffle", "56x56x128_g4", kind::channel_shuffle, {1, 56, 56, 128}},
    {"concatenation", "2x56x56x64_c", kind::concatenation, {1, 56, 56, 64}},
    {"transpose", "56x56x128_nhwc_to_nchw", kind::transpose, {1, 56, 56, 128}, {0, 3, 1, 2}},
    {"transpose", "128x56x56_nchw_to_nhwc", kind::transpose, {1, 128, 56, 56}, {0, 2, 3, 1}},
    {"transpose", "56x56x128_swap_hw", kind::transpose, {1, 56, 56, 128}, {0, 2, 1, 3}},
    {"transpose", "8x56x56x16_0321", kind::transpose, {8, 56, 56, 16}, {0, 3, 2, 1}},
    {"slice", "112x112x32_center", kind::slice, {1, 112, 112, 32}},
    {"gather", "1000x256_rows", kind::gather, {1000, 256}},
    {"copy", "112x112x32_reshape", kind::copy, {1, 112, 112, 32}},
    {"space_to_batch_nd", "112x112x32_b2", kind::space_to_batch, {1, 112, 112, 32}},
    {"space_to_batch_nd", "32x112x112_b2_nchw", kind::space_to_batch, {1, 32, 112, 112}, {}, true},
    {"batch_to_space_nd", "4x56x56x32_b2", kind::batch_to_space, {4, 56, 56, 32}},
    {"batch_to_space_nd", "4x32x56x56_b2_nchw", kind::batch_to_space, {4, 32, 56, 56}, {}, true},
};


operand_spec i32(std::int32_t v) { return scalar<std::int32_t>(OperandType::INT32, v); }
operand_spec i32_tensor(const std::vector<std::int32_t>& v, dims d) {
  operand_spec s{OperandType::TENSOR_INT32, std::move(d), 0.0f, 0, byte_buffer(v.size() * 4)};
  std::memcpy(s.value.data(), v.data(), s.value.size());
  return s;
}

/// The operation's inputs (after the data tensor) and its output shape.
struct op_shape {
  OperationType op;
  std::vector<operand_spec> params;
  dims out;
};
op_shape shape_of(const move_case& c) {
  const dims& d = c.in;
  switch (c.k) {
    case kind::pad:
      return {OperationType::PAD, {i32_tensor({0, 0, 1, 1, 1, 1, 0, 0}, {4, 2})}, {d[0], d[1] + 2, d[2] + 2, d[3]}};
    case kind::depth_to_space:
      return {OperationType::DEPTH_TO_SPACE, {i32(2)}, {d[0], d[1] * 2, d[2] * 2, d[3] / 4}};
    case kind::resize_bilinear:
      return {OperationType::RESIZE_BILINEAR, {i32(static_cast<std::int32_t>(d[2] * 2)), i32(static_cast<std::int32_t>(d[1] * 2))},
              {d[0], d[1] * 2, d[2] * 2, d[3]}};
    case kind::channel_shuffle: return {OperationType::CHANNEL_SHUFFLE, {i32(4), i32(3)}, d};
    case kind::concatenation: return {OperationType::CONCATENATION, {}, {d[0], d[1], d[2], d[3] * 2}};
    case kind::transpose: {
      dims out(4);
      for (std::size_t i = 0; i < 4; ++i) out[i] = d[static_cast<std::size_t>(c.perm[i])];
      return {OperationType::TRANSPOSE, {i32_tensor(c.perm, {4})}, out};
    }
    case kind::slice:
      return {OperationType::SLICE,
              {i32_tensor({0, 28, 28, 0}, {4}), i32_tensor({1, 56, 56, static_cast<std::int32_t>(d[3])}, {4})},
              {1, 56, 56, d[3]}};
    case kind::copy: return {OperationType::RESHAPE, {i32_tensor({1, static_cast<std::int32_t>(d[1] * d[2] * d[3])}, {2})},
                             {1, d[1] * d[2] * d[3]}};
    case kind::space_to_batch: {
      const operand_spec layout = scalar<std::uint8_t>(OperandType::BOOL, c.nchw ? 1 : 0);
      const std::size_t hd = c.nchw ? 2 : 1, wd = c.nchw ? 3 : 2;
      dims out = d;
      out[0] *= 4, out[hd] /= 2, out[wd] /= 2;
      return {OperationType::SPACE_TO_BATCH_ND, {i32_tensor({2, 2}, {2}), i32_tensor({0, 0, 0, 0}, {2, 2}), layout}, out};
    }
    case kind::batch_to_space: {
      const operand_spec layout = scalar<std::uint8_t>(OperandType::BOOL, c.nchw ? 1 : 0);
      const std::size_t hd = c.nchw ? 2 : 1, wd = c.nchw ? 3 : 2;
      dims out = d;
      out[0] /= 4, out[hd] *= 2, out[wd] *= 2;
      return {OperationType::BATCH_TO_SPACE_ND, {i32_tensor({2, 2}, {2}), layout}, out};
    }
    case kind::gather: {
      std::vector<std::int32_t> idx(500);
      for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<std::int32_t>((i * 7919) % d[0]);
      return {OperationType::GATHER, {i32(0), i32_tensor(idx, {500})}, {500, d[1]}};
    }
  }
  return {};
}

// --- nnhal -------------------------------------------------------------------------------

operand_spec f_out(const op_shape& s, dtype_spec dt) { return {dt.type, s.out, dt.scale, dt.zero_point}; }

void nnhal_move(benchmark::State& state, move_case c, dtype_spec dt) {
  op_shape s = shape_of(c);
  std::vector<operand_spec> ins{{dt.type, c.in, dt.scale, dt.zero_point}};
  if (c.k == kind::concatenation) ins.push_back({dt.type, c.in, dt.scale, dt.zero_point});
  ins.insert(ins.end(), s.params.begin(), s.params.end());
  if (c.k == kind::concatenation) ins.push_back(i32(3));
  op_fixture f(s.op, ins, {{dt.type, s.out, dt.scale, dt.zero_point}});
  // SLICE and GATHER read only what they copy: the output's bytes, twice.
  const bool partial = c.k == kind::slice || c.k == kind::gather;
  if (f.time(state)) report_traffic(state, partial ? 2 * op_fixture::byte_size(f_out(s, dt)) : f.bytes_moved());
}

// --- XNNPACK -----------------------------------------------------------------------------

#if NNHAL_BENCH_XNNPACK
void xnnpack_move(benchmark::State& state, move_case c, dtype_spec dt) {
  if (!xnn_ready()) {
    state.SkipWithError("xnn_initialize failed");
    return;
  }
  const bool q = dt.type != OperandType::TENSOR_FLOAT32;
  const std::size_t esize = q ? 1 : 4;
  const op_shape s = shape_of(c);
  const std::size_t in_n = std::accumulate(c.in.begin(), c.in.end(), std::size_t{1}, std::multiplies<>());
  const std::size_t out_n = std::accumulate(s.out.begin(), s.out.end(), std::size_t{1}, std::multiplies<>());
  byte_buffer x(2 * in_n * esize, std::byte{3}), y(out_n * esize);
  const std::size_t n = c.in[0], h = c.in[1], w = c.in[2], ch = c.in[3];
  xnn_operator_t o = nullptr;
  xnn_status st = xnn_status_unsupported_parameter;
  switch (c.k) {
    case kind::pad: {
      const std::uint32_t zero = 0;
      const std::size_t shape[4] = {n, h, w, ch}, pre[4] = {0, 1, 1, 0}, post[4] = {0, 1, 1, 0};
      st = q ? xnn_create_constant_pad_nd_x8(&zero, 0, &o) : xnn_create_constant_pad_nd_x32(&zero, 0, &o);
      if (st == xnn_status_success)
        st = q ? xnn_setup_constant_pad_nd_x8(o, 4, shape, pre, post, x.data(), y.data(), nullptr)
               : xnn_setup_constant_pad_nd_x32(o, 4, shape, pre, post, x.data(), y.data(), nullptr);
      break;
    }
    case kind::depth_to_space:
      if (q) break;  // this XNNPACK has the x32 form only
      st = xnn_create_depth_to_space_nhwc_x32(ch / 4, ch, ch / 4, 2, 0, &o);
      if (st == xnn_status_success) st = xnn_setup_depth_to_space_nhwc_x32(o, n, h, w, x.data(), y.data(), nullptr);
      break;
    case kind::resize_bilinear:
      // NNAPI's default (no align_corners, no half-pixel centers) is TensorFlow's legacy mode.
      st = q ? xnn_create_resize_bilinear2d_nhwc_u8(ch, ch, ch, XNN_FLAG_TENSORFLOW_LEGACY_MODE, &o)
             : xnn_create_resize_bilinear2d_nhwc_f32(ch, ch, ch, XNN_FLAG_TENSORFLOW_LEGACY_MODE, &o);
      if (st == xnn_status_success)
        st = q ? xnn_setup_resize_bilinear2d_nhwc_u8(o, n, h, w, 2 * h, 2 * w, reinterpret_cast<const std::uint8_t*>(x.data()),
                                                     reinterpret_cast<std::uint8_t*>(y.data()), nullptr)
               : xnn_setup_resize_bilinear2d_nhwc_f32(o, n, h, w, 2 * h, 2 * w, reinterpret_cast<const float*>(x.data()),
                                                      reinterpret_cast<float*>(y.data()), nullptr);
      break;
    case kind::channel_shuffle:
      st = q ? xnn_create_channel_shuffle_nc_x8(4, ch / 4, ch, ch, 0, &o)
             : xnn_create_channel_shuffle_nc_x32(4, ch / 4, ch, ch, 0, &o);
      if (st == xnn_status_success)
        st = q ? xnn_setup_channel_shuffle_nc_x8(o, n * h * w, x.data(), y.data(), nullptr)
               : xnn_setup_channel_shuffle_nc_x32(o, n * h * w, x.data(), y.data(), nullptr);
      break;
    case kind::concatenation: {
      // Two strided copies into the halves of each output row, timed together.
      xnn_operator_t o2 = nullptr;
      st = q ? xnn_create_copy_nc_x8(ch, ch, 2 * ch, 0, &o) : xnn_create_copy_nc_x32(ch, ch, 2 * ch, 0, &o);
      if (st == xnn_status_success)
        st = q ? xnn_create_copy_nc_x8(ch, ch, 2 * ch, 0, &o2) : xnn_create_copy_nc_x32(ch, ch, 2 * ch, 0, &o2);
      const std::size_t rows = n * h * w;
      if (st == xnn_status_success)
        st = q ? xnn_setup_copy_nc_x8(o, rows, x.data(), y.data(), nullptr)
               : xnn_setup_copy_nc_x32(o, rows, x.data(), y.data(), nullptr);
      if (st == xnn_status_success)
        st = q ? xnn_setup_copy_nc_x8(o2, rows, x.data() + in_n * esize, y.data() + ch * esize, nullptr)
               : xnn_setup_copy_nc_x32(o2, rows, x.data() + in_n * esize, y.data() + ch * esize, nullptr);
      if (st != xnn_status_success) {
        if (o2) xnn_delete_operator(o2);
        break;
      }
      for (auto _ : state) {
        xnn_run_operator(o, nullptr);
        xnn_run_operator(o2, nullptr);
        benchmark::ClobberMemory();
      }
      xnn_delete_operator(o);
      xnn_delete_operator(o2);
      report_traffic(state, (2 * in_n + out_n) * esize);
      return;
    }
    case kind::copy:
      st = q ? xnn_create_copy_nc_x8(ch, ch, ch, 0, &o) : xnn_create_copy_nc_x32(ch, ch, ch, 0, &o);
      if (st == xnn_status_success)
        st = q ? xnn_setup_copy_nc_x8(o, n * h * w, x.data(), y.data(), nullptr)
               : xnn_setup_copy_nc_x32(o, n * h * w, x.data(), y.data(), nullptr);
      break;
    case kind::slice: {
      // The centre 56x56 of each image: 56 rows of 56 pixels, one strided copy.
      const std::size_t run = (w / 2) * ch;
      st = q ? xnn_create_copy_nc_x8(run, w * ch, run, 0, &o) : xnn_create_copy_nc_x32(run, w * ch, run, 0, &o);
      const std::byte* from = x.data() + ((h / 4) * w + w / 4) * ch * esize;
      if (st == xnn_status_success)
        st = q ? xnn_setup_copy_nc_x8(o, h / 2, from, y.data(), nullptr)
               : xnn_setup_copy_nc_x32(o, h / 2, from, y.data(), nullptr);
      if (xnn_time_operator(state, st, o)) report_traffic(state, 2 * out_n * esize);
      return;
    }
    default: break;
  }
  if (xnn_time_operator(state, st, o)) report_traffic(state, (in_n + out_n) * esize);
}

/// Whether this XNNPACK has the operator for `c` in `dt`.
bool xnnpack_has(const move_case& c, dtype_spec dt) {
  switch (c.k) {
    case kind::resize_bilinear: return dt.type != OperandType::TENSOR_FLOAT16;  // no float16 form here
    case kind::pad:
    case kind::channel_shuffle:
    case kind::concatenation:
    case kind::copy: return dt.type != OperandType::TENSOR_FLOAT16;
    case kind::slice: return c.in[1] == 112 && dt.type != OperandType::TENSOR_FLOAT16;  // the strided copy above
    case kind::depth_to_space: return dt.type == OperandType::TENSOR_FLOAT32;
    default: return false;
  }
}
#endif

int register_all() {
  for (const auto& c : cases) {
    for (auto dt : {f32, f16, qu8}) {
      if (dt.type == f16.type && c.k != kind::transpose && c.k != kind::resize_bilinear) continue;  // float16: two ops
      const std::string base = std::string("movement/") + c.op + "/" + dt.name + "/" + c.shape + "/";
      benchmark::RegisterBenchmark((base + "nnhal").c_str(), nnhal_move, c, dt);
#if NNHAL_BENCH_XNNPACK
      if (xnnpack_has(c, dt)) benchmark::RegisterBenchmark((base + "xnnpack").c_str(), xnnpack_move, c, dt);
#endif
    }
  }
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace nnhal::bench
