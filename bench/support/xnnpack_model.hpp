// A HAL model as an XNNPACK subgraph, for end-to-end comparisons (only with
// NNHAL_BENCH_XNNPACK). Covers what support/mobilenet_v1.hpp uses: CONV_2D and
// DEPTHWISE_CONV_2D with implicit padding, AVERAGE_POOL_2D over the whole input, RESHAPE,
// FULLY_CONNECTED, SOFTMAX (beta 1), in float32, qu8, qs8 and s8 with per-channel filters.
// The same constants and quantization parameters, with two differences XNNPACK imposes:
// its signed 8-bit filters are symmetric, so a qs8 filter's zero point is taken as 0 (the
// work is the same; the values differ slightly), and it has no quantized softmax node, so a
// quantized model ending in SOFTMAX ends at the softmax's input (the logits; a softmax of
// 1001 values costs microseconds of a model's milliseconds).
#pragma once

#if NNHAL_BENCH_XNNPACK
#include <xnnpack.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/types/model.hpp"

namespace nnhal::bench {

/// An XNNPACK runtime built from a model; `error` says what failed when `runtime` is null.
struct xnn_model {
  xnn_subgraph_t subgraph = nullptr;
  xnn_runtime_t runtime = nullptr;
  std::vector<std::vector<float>> bias_scales;  // kept alive: XNNPACK keeps the pointers
  std::string error;
  xnn_model() = default;
  xnn_model(const xnn_model&) = delete;
  xnn_model& operator=(const xnn_model&) = delete;
  ~xnn_model() {
    if (runtime) xnn_delete_runtime(runtime);
    if (subgraph) xnn_delete_subgraph(subgraph);
  }
};

namespace detail {

inline const void* constant_data(const types::Model& m, const types::Operand& o) {
  if (o.lifetime == types::OperandLifeTime::CONSTANT_COPY) return m.operandValues.data() + o.location.offset;
  if (o.lifetime == types::OperandLifeTime::CONSTANT_REFERENCE) return m.pools[o.location.poolIndex].data + o.location.offset;
  return nullptr;
}

template <class T>
T scalar(const types::Model& m, std::uint32_t index) {
  T v{};
  std::memcpy(&v, constant_data(m, m.main.operands[index]), sizeof(T));
  return v;
}

}  // namespace detail

/// Builds `x`'s subgraph and runtime (on the calling thread) for model `m`; the model's one
/// input and one output (or the logits, see above) are external values 0 and 1.
inline void build_xnn_model(const types::Model& m, xnn_model& x) {
  using types::OperandType;
  using types::OperationType;
  const auto& ops = m.main.operations;
  const auto& operands = m.main.operands;
  if (xnn_create_subgraph(2, 0, &x.subgraph) != xnn_status_success) {
    x.error = "xnn_create_subgraph failed";
    return;
  }
  std::map<std::uint32_t, std::uint32_t> ids;  // model operand -> XNNPACK value
  // The operand that becomes external output 1, and the softmax left out, if any.
  std::uint32_t output = m.main.outputIndexes.empty() ? XNN_INVALID_VALUE_ID : m.main.outputIndexes[0];
  const types::Operation* dropped = nullptr;
  for (const types::Operation& op : ops)
    if (op.type == OperationType::SOFTMAX && op.outputs[0] == output &&
        operands[output].type != OperandType::TENSOR_FLOAT32) {
      dropped = &op;
      output = op.inputs[0];
    }
  // `channel_scales` of a per-channel int32 bias: its filter's scales times the input's.
  auto value = [&](std::uint32_t index, const std::vector<float>* channel_scales = nullptr) -> std::uint32_t {
    if (auto it = ids.find(index); it != ids.end()) return it->second;
    const types::Operand& o = operands[index];
    std::vector<std::size_t> dims(o.dimensions.begin(), o.dimensions.end());
    const void* data = detail::constant_data(m, o);
    std::uint32_t external = XNN_INVALID_VALUE_ID, flags = 0;
    if (!m.main.inputIndexes.empty() && index == m.main.inputIndexes[0]) {
      external = 0;
      flags = XNN_VALUE_FLAG_EXTERNAL_INPUT;
    } else if (index == output) {
      external = 1;
      flags = XNN_VALUE_FLAG_EXTERNAL_OUTPUT;
    }
    std::uint32_t id = XNN_INVALID_VALUE_ID;
    xnn_status s = xnn_status_invalid_parameter;
    switch (o.type) {
      case OperandType::TENSOR_FLOAT32:
        s = xnn_define_tensor_value(x.subgraph, xnn_datatype_fp32, dims.size(), dims.data(), data, external, flags, &id);
        break;
      case OperandType::TENSOR_QUANT8_ASYMM:
        s = xnn_define_quantized_tensor_value(x.subgraph, xnn_datatype_quint8, o.zeroPoint, o.scale, dims.size(),
                                              dims.data(), data, external, flags, &id);
        break;
      case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: {
        const bool filter = data != nullptr;  // constant: a filter (symmetric in XNNPACK)
        s = xnn_define_quantized_tensor_value(x.subgraph, xnn_datatype_qint8, filter ? 0 : o.zeroPoint, o.scale,
                                              dims.size(), dims.data(), data, external, flags, &id);
        break;
      }
      case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: {
        const auto& pc = std::get<types::SymmPerChannelQuantParams>(o.extraParams);
        s = xnn_define_channelwise_quantized_tensor_value(x.subgraph, xnn_datatype_qcint8, pc.scales.data(), dims.size(),
                                                          pc.channelDim, dims.data(), data, external, flags, &id);
        break;
      }
      case OperandType::TENSOR_INT32:
        if (channel_scales)
          s = xnn_define_channelwise_quantized_tensor_value(x.subgraph, xnn_datatype_qcint32, channel_scales->data(),
                                                            dims.size(), 0, dims.data(), data, external, flags, &id);
        else
          s = xnn_define_quantized_tensor_value(x.subgraph, xnn_datatype_qint32, 0, o.scale, dims.size(), dims.data(),
                                                data, external, flags, &id);
        break;
      default: break;
    }
    if (s != xnn_status_success) {
      x.error = "operand " + std::to_string(index) + ": XNNPACK cannot define its value";
      return XNN_INVALID_VALUE_ID;
    }
    ids[index] = id;
    return id;
  };
  // The bias of a conv-like op: per channel when its filter is.
  auto bias = [&](const types::Operation& op) {
    const types::Operand& f = operands[op.inputs[1]];
    if (f.type != OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL) return value(op.inputs[2]);
    const auto& pc = std::get<types::SymmPerChannelQuantParams>(f.extraParams);
    std::vector<float> s;
    for (float w : pc.scales) s.push_back(w * operands[op.inputs[0]].scale);
    x.bias_scales.push_back(std::move(s));
    return value(op.inputs[2], &x.bias_scales.back());
  };
  x.bias_scales.reserve(ops.size());  // no reallocation: XNNPACK keeps pointers into them
  for (const types::Operation& op : ops) {
    if (&op == dropped) continue;
    xnn_status s = xnn_status_invalid_parameter;
    const std::uint32_t in = value(op.inputs[0]);
    const std::uint32_t out = value(op.outputs[0]);
    const auto& in_dims = operands[op.inputs[0]].dimensions;
    switch (op.type) {
      case OperationType::CONV_2D:
      case OperationType::DEPTHWISE_CONV_2D: {
        const bool dw = op.type == OperationType::DEPTHWISE_CONV_2D;
        if (op.inputs.size() != (dw ? 8u : 7u)) break;  // implicit padding only
        const auto& fd = operands[op.inputs[1]].dimensions;
        const auto scheme = detail::scalar<std::int32_t>(m, op.inputs[3]);
        const auto sw = static_cast<std::uint32_t>(detail::scalar<std::int32_t>(m, op.inputs[4]));
        const auto sh = static_cast<std::uint32_t>(detail::scalar<std::int32_t>(m, op.inputs[5]));
        const auto [lo, hi] = ops::kernels::activation_range_float(detail::scalar<std::int32_t>(m, op.inputs[dw ? 7 : 6]));
        const std::uint32_t flags = scheme == 1 ? XNN_FLAG_TENSORFLOW_SAME_PADDING : 0;
        const std::uint32_t w = value(op.inputs[1]), b = bias(op);
        if (dw)
          s = xnn_define_depthwise_convolution_2d(x.subgraph, 0, 0, 0, 0, fd[1], fd[2], sh, sw, 1, 1,
                                                  static_cast<std::uint32_t>(detail::scalar<std::int32_t>(m, op.inputs[6])),
                                                  in_dims[3], lo, hi, in, w, b, out, flags);
        else
          s = xnn_define_convolution_2d(x.subgraph, 0, 0, 0, 0, fd[1], fd[2], sh, sw, 1, 1, 1, fd[3], fd[0], lo, hi, in, w,
                                        b, out, flags);
        break;
      }
      case OperationType::AVERAGE_POOL_2D: {  // over the whole input (implicit, 7 inputs)
        const auto [lo, hi] = ops::kernels::activation_range_float(detail::scalar<std::int32_t>(m, op.inputs[6]));
        s = xnn_define_global_average_pooling_2d(x.subgraph, lo, hi, in, out, 0);
        break;
      }
      case OperationType::RESHAPE: {
        const auto& od = operands[op.outputs[0]].dimensions;
        const std::vector<std::size_t> shape(od.begin(), od.end());
        s = xnn_define_static_reshape(x.subgraph, shape.size(), shape.data(), in, out, 0);
        break;
      }
      case OperationType::FULLY_CONNECTED: {
        const auto [lo, hi] = ops::kernels::activation_range_float(detail::scalar<std::int32_t>(m, op.inputs[3]));
        s = xnn_define_fully_connected(x.subgraph, lo, hi, in, value(op.inputs[1]), bias(op), out, 0);
        break;
      }
      case OperationType::SOFTMAX: s = xnn_define_softmax(x.subgraph, in, out, 0); break;
      default: break;
    }
    if (!x.error.empty()) return;
    if (s != xnn_status_success) {
      x.error = std::string("XNNPACK cannot run ") + std::string(types::to_string(op.type)) + " for these operands";
      return;
    }
  }
  if (xnn_create_runtime_v2(x.subgraph, nullptr, 0, &x.runtime) != xnn_status_success) {
    x.runtime = nullptr;
    x.error = "xnn_create_runtime_v2 failed (an operation XNNPACK does not support for these types)";
  }
}

}  // namespace nnhal::bench
#endif
