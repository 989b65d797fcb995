// MobileNet v1 1.0-224 (batch 1, NHWC) as a HAL model built with tests/support/
// model_builder.hpp: CONV_2D 3x3/2, 13 x (DEPTHWISE_CONV_2D 3x3 + CONV_2D 1x1), RELU6 fused
// throughout, AVERAGE_POOL_2D 7x7, RESHAPE, FULLY_CONNECTED 1024 -> 1001, SOFTMAX.
// Weights are seeded random numbers with realistic magnitudes and quantization parameters
// (RELU6 activations in [0, 6] over the 8-bit range; filters around +-0.5), so the timing
// is the model's, not a real classifier's accuracy.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "support/model_builder.hpp"

namespace nnhal::bench {

/// Element types of a MobileNet variant: float32, asymmetric u8 or s8 with per-tensor
/// filters, or s8 activations with per-channel symmetric filters.
enum class mobilenet_type { f32, qu8, qs8, qc8 };

/// The model; its single input is [1, 224, 224, 3] and its output [1, 1001].
inline types::Model mobilenet_v1(mobilenet_type kind, std::uint32_t seed = 1) {
  using types::OperandType;
  using types::OperationType;
  const bool f32 = kind == mobilenet_type::f32, unsigned8 = kind == mobilenet_type::qu8;
  const bool per_channel = kind == mobilenet_type::qc8;
  const OperandType act_t = f32         ? OperandType::TENSOR_FLOAT32
                            : unsigned8 ? OperandType::TENSOR_QUANT8_ASYMM
                                        : OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const OperandType filter_t = per_channel ? OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL : act_t;
  const std::int32_t shift = unsigned8 ? 0 : -128;  // zero points of the signed variants
  std::mt19937 rng(seed);

  test::model_builder b;
  auto g = b.main();
  // Activation quantization: the image in [-1, 1], RELU6 outputs in [0, 6].
  const float image_scale = 1.0f / 128, act_scale = 6.0f / 255;
  const std::int32_t image_zp = 128 + shift, act_zp = 0 + shift;

  struct tensor_ref {
    std::uint32_t index;
    float scale;
  };
  const auto image = g.input(act_t, {1, 224, 224, 3}, f32 ? 0.0f : image_scale, f32 ? 0 : image_zp);
  tensor_ref x{image, image_scale};

  // A filter [d0, d1, d2, d3] with `fan_in` inputs per output, and its bias.
  auto filter_and_bias = [&](types::dims_t dims, std::uint32_t fan_in, std::uint32_t channel_dim, float in_scale) {
    std::size_t n = 1;
    for (auto d : dims) n *= d;
    const std::uint32_t channels = dims[channel_dim];
    const float range = std::sqrt(6.0f / static_cast<float>(fan_in));  // He-uniform magnitude
    std::uniform_real_distribution<float> real(-range, range);
    std::pair<std::uint32_t, std::uint32_t> fb;
    if (f32) {
      std::vector<float> w(n), bias(channels);
      for (auto& v : w) v = real(rng);
      for (auto& v : bias) v = real(rng) * 0.1f;
      fb.first = g.constant(OperandType::TENSOR_FLOAT32, dims, w);
      fb.second = g.constant(OperandType::TENSOR_FLOAT32, {channels}, bias);
      return std::pair{fb, 0.0f};
    }
    const float w_scale = range / 127.0f;
    std::vector<std::uint8_t> w(n);
    std::int32_t w_zp = 0;
    if (per_channel) {
      std::uniform_int_distribution<int> q(-127, 127);
      for (auto& v : w) v = static_cast<std::uint8_t>(static_cast<std::int8_t>(q(rng)));
    } else {
      w_zp = (unsigned8 ? 128 : 0) + std::uniform_int_distribution<int>(-8, 8)(rng);
      std::uniform_int_distribution<int> q(-127, 127);
      for (auto& v : w) v = static_cast<std::uint8_t>(std::clamp(w_zp + q(rng), unsigned8 ? 0 : -128, unsigned8 ? 255 : 127));
    }
    std::vector<float> scales;
    if (per_channel)
      for (std::uint32_t c = 0; c < channels; ++c)
        scales.push_back(w_scale * std::uniform_real_distribution<float>(0.5f, 1.5f)(rng));
    const float bias_scale = in_scale * w_scale;
    std::vector<std::int32_t> bias(channels);
    for (auto& v : bias) v = static_cast<std::int32_t>(std::round(real(rng) * 0.1f / bias_scale));
    fb.first = g.constant(filter_t, dims, w, per_channel ? 0.0f : w_scale, w_zp);
    if (per_channel) g.operand(fb.first).extraParams = types::SymmPerChannelQuantParams{scales, channel_dim};
    fb.second = g.constant(OperandType::TENSOR_INT32, {channels}, bias, per_channel ? 0.0f : bias_scale);
    return std::pair{fb, bias_scale};
  };
  auto activation_out = [&](types::dims_t dims) {
    return tensor_ref{g.temporary(act_t, std::move(dims), f32 ? 0.0f : act_scale, f32 ? 0 : act_zp), act_scale};
  };
  constexpr std::int32_t same = 1, relu6 = 3;

  // conv0: 3x3 / 2, 3 -> 32.
  std::uint32_t hw = 112, ch = 32;
  {
    auto [fb, bs] = filter_and_bias({32, 3, 3, 3}, 27, 0, x.scale);
    const tensor_ref y = activation_out({1, hw, hw, ch});
    g.op(OperationType::CONV_2D, {x.index, fb.first, fb.second, g.i32(same), g.i32(2), g.i32(2), g.i32(relu6)},
         {y.index});
    x = y;
  }
  const std::pair<std::uint32_t, std::uint32_t> blocks[] = {{64, 1},  {128, 2}, {128, 1}, {256, 2}, {256, 1},
                                                            {512, 2}, {512, 1}, {512, 1}, {512, 1}, {512, 1},
                                                            {512, 1}, {1024, 2}, {1024, 1}};
  for (const auto& [out_c, stride] : blocks) {
    const std::uint32_t out_hw = (hw + stride - 1) / stride;
    {
      auto [fb, bs] = filter_and_bias({1, 3, 3, ch}, 9, 3, x.scale);
      const tensor_ref y = activation_out({1, out_hw, out_hw, ch});
      g.op(OperationType::DEPTHWISE_CONV_2D,
           {x.index, fb.first, fb.second, g.i32(same), g.i32(static_cast<std::int32_t>(stride)),
            g.i32(static_cast<std::int32_t>(stride)), g.i32(1), g.i32(relu6)},
           {y.index});
      x = y;
    }
    hw = out_hw;
    {
      auto [fb, bs] = filter_and_bias({out_c, 1, 1, ch}, ch, 0, x.scale);
      const tensor_ref y = activation_out({1, hw, hw, out_c});
      g.op(OperationType::CONV_2D, {x.index, fb.first, fb.second, g.i32(same), g.i32(1), g.i32(1), g.i32(relu6)},
           {y.index});
      x = y;
    }
    ch = out_c;
  }
  // Global average pool, flatten, classifier, softmax.
  const auto pooled = g.temporary(act_t, {1, 1, 1, ch}, f32 ? 0.0f : x.scale, f32 ? 0 : act_zp);
  g.op(OperationType::AVERAGE_POOL_2D, {x.index, g.i32(2), g.i32(1), g.i32(1), g.i32(7), g.i32(7), g.i32(0)}, {pooled});
  const auto flat = g.temporary(act_t, {1, ch}, f32 ? 0.0f : x.scale, f32 ? 0 : act_zp);
  g.op(OperationType::RESHAPE, {pooled, g.i32_tensor({1, static_cast<std::int32_t>(ch)})}, {flat});
  const bool fc_per_channel = per_channel;  // FULLY_CONNECTED has no per-channel filters
  auto [fb, bs] = [&] {
    if (!fc_per_channel) return filter_and_bias({1001, ch}, ch, 0, x.scale);
    // Per-tensor signed weights for the classifier of the per-channel variant.
    const float range = std::sqrt(6.0f / static_cast<float>(ch)), w_scale = range / 127.0f;
    std::uniform_int_distribution<int> q(-127, 127);
    std::vector<std::uint8_t> w(std::size_t{1001} * ch);
    for (auto& v : w) v = static_cast<std::uint8_t>(static_cast<std::int8_t>(q(rng)));
    std::vector<std::int32_t> bias(1001, 0);
    const auto wi = g.constant(act_t, {1001, ch}, w, w_scale, 0);
    const auto bi = g.constant(OperandType::TENSOR_INT32, {1001}, bias, x.scale * w_scale);
    return std::pair{std::pair{wi, bi}, x.scale * w_scale};
  }();
  const float logits_scale = 0.1f;
  const auto logits = g.temporary(act_t, {1, 1001}, f32 ? 0.0f : logits_scale, f32 ? 0 : 128 + shift - 60);
  g.op(OperationType::FULLY_CONNECTED, {flat, fb.first, fb.second, g.i32(0)}, {logits});
  const auto probs = g.output(act_t, {1, 1001}, f32 ? 0.0f : 1.0f / 256, f32 ? 0 : shift);
  g.op(OperationType::SOFTMAX, {logits, g.f32(1.0f)}, {probs});
  return b.build();
}

}  // namespace nnhal::bench
