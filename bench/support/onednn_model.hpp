// A HAL model as a chain of oneDNN primitives, for end-to-end comparisons (only with
// NNHAL_BENCH_ONEDNN). Covers what support/mobilenet_v1.hpp uses: CONV_2D and
// DEPTHWISE_CONV_2D with implicit padding and a fused activation, AVERAGE_POOL_2D over the
// whole input, RESHAPE (nothing to do: the inner product takes the pooled [1, C, 1, 1]),
// FULLY_CONNECTED, SOFTMAX. Each primitive takes its source in the layout the previous one
// chose (so no reorders between layers); weights are reordered once, at build. As in
// conv_bench's oneDNN column: 8-bit models run u8 (qu8) or s8 activations with s8 weights
// (oneDNN has no u8 weights), requantized by output scales (per channel for qc8), with the
// convolutions' activation zero points (oneDNN's convolutions take none for the filter:
// the filters are symmetric int8 there); a quantized model ends at its softmax's input,
// as in xnnpack_model.hpp.
#pragma once

#if NNHAL_BENCH_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>

#include <chrono>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "nnhal/types/model.hpp"
#include "support/buffer.hpp"

namespace nnhal::bench {

struct onednn_model {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  std::vector<dnnl::primitive> prims;
  std::vector<std::unordered_map<int, dnnl::memory>> args;
  dnnl::memory input;  // the model's input, NHWC
  std::string error;

  void run() {
    for (std::size_t i = 0; i < prims.size(); ++i) prims[i].execute(strm, args[i]);
    strm.wait();
  }
  /// run() with each primitive waited for and timed: adds its microseconds to us[i].
  void run_timed(std::vector<double>& us) {
    us.resize(prims.size());
    for (std::size_t i = 0; i < prims.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      prims[i].execute(strm, args[i]);
      strm.wait();
      us[i] += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
  }
  /// The kind of primitive i, for a per-layer listing.
  const char* kind(std::size_t i) const {
    switch (prims[i].get_kind()) {
      case dnnl::primitive::kind::convolution: return "convolution";
      case dnnl::primitive::kind::pooling: return "pooling";
      case dnnl::primitive::kind::inner_product: return "inner_product";
      case dnnl::primitive::kind::softmax: return "softmax";
      case dnnl::primitive::kind::reorder: return "reorder";
      default: return "other";
    }
  }
};

/// Builds `d`'s primitives for model `m` (see above); `d.error` says what failed.
inline void build_onednn_model(const types::Model& m, onednn_model& d) {
  using namespace dnnl;
  using types::OperandType;
  using types::OperationType;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  const auto& operands = m.main.operands;
  auto bytes = [&](std::uint32_t index) -> const void* {
    const types::Operand& o = operands[index];
    if (o.lifetime == types::OperandLifeTime::CONSTANT_COPY) return m.operandValues.data() + o.location.offset;
    return m.pools[o.location.poolIndex].data + o.location.offset;
  };
  auto scalar = [&](std::uint32_t index) {
    std::int32_t v = 0;
    std::memcpy(&v, bytes(index), 4);
    return v;
  };
  const types::Operand& in0 = operands[m.main.inputIndexes[0]];
  const bool q = in0.type != OperandType::TENSOR_FLOAT32;
  const dt act_t = !q ? dt::f32 : in0.type == OperandType::TENSOR_QUANT8_ASYMM ? dt::u8 : dt::s8;
  const dt w_t = q ? dt::s8 : dt::f32, b_t = q ? dt::s32 : dt::f32;
  auto dims4 = [](const std::vector<std::uint32_t>& nhwc) {
    return memory::dims{nhwc[0], nhwc[3], nhwc[1], nhwc[2]};  // oneDNN's logical order is NCHW
  };
  d.input = memory(memory::desc(dims4(in0.dimensions), act_t, tag::nhwc), d.eng);
  fill_random({static_cast<std::byte*>(d.input.get_data_handle()), d.input.get_desc().get_size()}, !q, 3);
  memory x = d.input;
  // A weights memory in the chosen layout, filled from the model's bytes in `user` layout.
  auto weights = [&](const memory::desc& chosen, const memory::desc& user, std::uint32_t index) {
    memory src(user, d.eng), w(chosen, d.eng);
    std::memcpy(src.get_data_handle(), bytes(index), user.get_size());
    reorder(src, w).execute(d.strm, src, w);
    d.strm.wait();
    return w;
  };
  auto bias = [&](std::uint32_t index, memory::dim n) {
    memory b(memory::desc({n}, b_t, tag::x), d.eng);
    std::memcpy(b.get_data_handle(), bytes(index), 4 * static_cast<std::size_t>(n));
    return b;
  };
  // Appends primitive `p` reading x, with `more` arguments, writing a new `dst` that becomes x.
  auto append = [&](primitive p, const memory::desc& dst, std::unordered_map<int, memory> more) {
    memory y(dst, d.eng);
    more[DNNL_ARG_SRC] = x;
    more[DNNL_ARG_DST] = y;
    d.prims.push_back(std::move(p));
    d.args.push_back(std::move(more));
    x = y;
  };
  // Appends `p` (made from `pd`) with the weights of `op` (input 1, in `user` layout) and
  // its bias of n values (input 2).
  auto append_weighted = [&](primitive p, const auto& pd, const memory::desc& user, const types::Operation& op,
                             memory::dim n) {
    append(std::move(p), pd.dst_desc(),
           {{DNNL_ARG_WEIGHTS, weights(pd.weights_desc(), user, op.inputs[1])}, {DNNL_ARG_BIAS, bias(op.inputs[2], n)}});
  };
  try {
    for (const types::Operation& op : m.main.operations) {
      const auto& od = operands[op.outputs[0]].dimensions;
      const types::Operand& out = operands[op.outputs[0]];
      switch (op.type) {
        case OperationType::CONV_2D:
        case OperationType::DEPTHWISE_CONV_2D: {
          const bool dw = op.type == OperationType::DEPTHWISE_CONV_2D;
          const types::Operand& f = operands[op.inputs[1]];
          const auto& id = operands[op.inputs[0]].dimensions;
          const memory::dim kh = f.dimensions[1], kw = f.dimensions[2], cout = od[3], cin = id[3];
          const memory::dim sw = scalar(op.inputs[4]), sh = scalar(op.inputs[5]);
          // SAME padding as TensorFlow: the extra row / column at the bottom / right.
          const memory::dim ph = std::max<memory::dim>((od[1] - 1) * sh + kh - id[1], 0),
                            pw = std::max<memory::dim>((od[2] - 1) * sw + kw - id[2], 0);
          const std::int32_t act = scalar(op.inputs[dw ? 7 : 6]);
          primitive_attr attr;
          post_ops po;
          // RELU6: [0, 6], in quantized units for an 8-bit output (after the output scales).
          const float hi = q ? 6.0f / out.scale : 6.0f;
          if (act == 3) po.append_eltwise(1.0f, algorithm::eltwise_clip, 0.0f, hi);
          else if (act == 1) po.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
          attr.set_post_ops(po);
          if (q) {
            const float in_scale = operands[op.inputs[0]].scale;
            if (f.type == OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) {
              std::vector<float> s;
              for (float w : std::get<types::SymmPerChannelQuantParams>(f.extraParams).scales)
                s.push_back(in_scale * w / out.scale);
              attr.set_output_scales(1 << 1, s);
            } else {
              attr.set_output_scales(0, {in_scale * f.scale / out.scale});
            }
            // The activations' zero points (the qs8 model's are -128, the qu8 image's 128).
            const std::int32_t in_zp = operands[op.inputs[0]].zeroPoint;
            if (in_zp != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {in_zp});
            if (out.zeroPoint != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {out.zeroPoint});
          }
          const memory::desc w_md = dw ? memory::desc({cout, 1, 1, kh, kw}, w_t, tag::any)
                                       : memory::desc({cout, cin, kh, kw}, w_t, tag::any);
          // NNAPI layouts: [out][kh][kw][in] (ohwi); depthwise [1][kh][kw][C] (strides below).
          const memory::desc w_user = dw ? memory::desc({cout, 1, 1, kh, kw}, w_t, memory::dims{1, 1, 1, kw * cout, cout})
                                         : memory::desc({cout, cin, kh, kw}, w_t, tag::ohwi);
          const memory::desc b_md({cout}, b_t, tag::x);
          const memory::desc dst_md(dims4(od), act_t, tag::any);
          convolution_forward::desc desc(prop_kind::forward_inference, algorithm::convolution_direct, x.get_desc(), w_md,
                                         b_md, dst_md, {sh, sw}, {ph / 2, pw / 2}, {ph - ph / 2, pw - pw / 2});
          convolution_forward::primitive_desc pd(desc, attr, d.eng);
          append_weighted(convolution_forward(pd), pd, w_user, op, cout);
          break;
        }
        case OperationType::AVERAGE_POOL_2D: {
          const auto& id = operands[op.inputs[0]].dimensions;
          const memory::desc dst_md(dims4(od), act_t, tag::any);
          pooling_forward::desc desc(prop_kind::forward_inference, algorithm::pooling_avg_exclude_padding, x.get_desc(),
                                     dst_md, {1, 1}, {id[1], id[2]}, {0, 0}, {0, 0});
          pooling_forward::primitive_desc pd(desc, d.eng);
          append(pooling_forward(pd), pd.dst_desc(), {});
          break;
        }
        case OperationType::RESHAPE: break;  // the inner product reads the pooled [1, C, 1, 1]
        case OperationType::FULLY_CONNECTED: {
          const types::Operand& f = operands[op.inputs[1]];
          const memory::dim units = f.dimensions[0], depth = f.dimensions[1];
          primitive_attr attr;
          if (q) attr.set_output_scales(0, {operands[op.inputs[0]].scale * f.scale / out.scale});
          const memory::desc w_md({units, depth, 1, 1}, w_t, tag::any), w_user({units, depth, 1, 1}, w_t, tag::oihw);
          const memory::desc b_md({units}, b_t, tag::x), dst_md({1, units}, act_t, tag::any);
          inner_product_forward::desc desc(prop_kind::forward_inference, x.get_desc(), w_md, b_md, dst_md);
          inner_product_forward::primitive_desc pd(desc, attr, d.eng);
          append_weighted(inner_product_forward(pd), pd, w_user, op, units);
          break;
        }
        case OperationType::SOFTMAX: {
          if (q) break;  // the quantized models end at the logits (see above)
          softmax_forward::desc desc(prop_kind::forward_inference, x.get_desc(), 1);
          softmax_forward::primitive_desc pd(desc, d.eng);
          append(softmax_forward(pd), pd.dst_desc(), {});
          break;
        }
        default: d.error = std::string("no oneDNN translation of ") + std::string(types::to_string(op.type)); return;
      }
    }
  } catch (const dnnl::error& e) {
    d.error = std::string("oneDNN: ") + e.what();
  }
}

}  // namespace nnhal::bench
#endif
