// MobileNet v1 (Howard et al., 2017; 1.0-224 by default) built in code with the typed
// builder (nnhal/types/builder.hpp), in float32, float16, quant8 unsigned and quant8
// signed. Weights are seeded random numbers: the network computes nothing meaningful,
// but every variant has the real shapes, operation mix and cost. The quantized variants
// quantize the same float weights per tensor, with activation ranges like those of the
// published quantized MobileNet (RELU6 outputs on [0, 6]), so their outputs track the
// float model's instead of saturating.
//
//   auto net = nnhal::examples::mobilenet_v1<nnhal::types::qu8>({.seed = 7});
//   auto input = nnhal::examples::mobilenet_v1_input<nnhal::types::qu8>(*net, 1);
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "nnhal/types/builder.hpp"

namespace nnhal::examples {

struct mobilenet_options {
  float width = 1.0f;               // channel multiplier alpha: 1.0, 0.75, 0.5 or 0.25
  std::uint32_t resolution = 224;   // input height and width; a multiple of 32
  std::uint32_t classes = 1001;     // ImageNet classes plus "background", as published
  std::uint32_t batch = 1;
  std::uint64_t seed = 1;           // weights; the same seed gives the same float weights for every type
};

/// A built MobileNet and what a caller needs to feed it and read it.
struct mobilenet_model {
  types::Model model;
  types::dims_t input_dims;   // [batch, resolution, resolution, 3], NHWC
  types::dims_t output_dims;  // [batch, classes]: SOFTMAX probabilities
  types::quant input_quant;   // zero for float variants
  types::quant output_quant;
  std::uint64_t macs = 0;     // multiply-accumulates of one inference
  std::uint32_t operations = 0;
};

namespace detail {

/// splitmix64: a tiny generator whose stream is the same on every platform and
/// standard library (std::uniform_real_distribution is not).
class mobilenet_rng {
 public:
  explicit mobilenet_rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() noexcept {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform on [-a, a).
  float uniform(float a) noexcept {
    const double u = static_cast<double>(next() >> 11) * 0x1.0p-53;  // [0, 1)
    return static_cast<float>((2.0 * u - 1.0) * a);
  }

 private:
  std::uint64_t s_;
};

template <class E>
inline constexpr bool is_q8 = std::is_same_v<E, types::qu8> || std::is_same_v<E, types::qs8>;

/// Zero-point offset of the signed variant: qs8 = qu8 - 128 for the same real values.
template <class E>
inline constexpr std::int32_t q8_shift = std::is_same_v<E, types::qs8> ? -128 : 0;

/// Per-tensor asymmetric quantization of `w` on its [min, max] (widened to hold 0),
/// with the zero point in the unsigned range, as TFLite's converter does.
inline types::quant choose_weight_quant(const std::vector<float>& w) {
  float lo = 0.0f, hi = 0.0f;
  for (float v : w) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const float scale = hi > lo ? (hi - lo) / 255.0f : 1.0f;
  const auto zp = static_cast<std::int32_t>(std::lround(-lo / scale));
  return {scale, std::clamp(zp, 0, 255)};
}

template <class E>
typename E::storage quantize_value(float v, types::quant q) {
  const long r = std::lround(v / q.scale) + q.zero_point;
  if constexpr (std::is_same_v<E, types::qu8>) return static_cast<std::uint8_t>(std::clamp(r, 0L, 255L));
  else return static_cast<std::int8_t>(std::clamp(r, -128L, 127L));
}

/// Builds the network for one element type; weights are drawn in the same order for
/// every type, so all variants share their float weights.
template <types::element E>
class mobilenet_maker {
 public:
  using bias_tag = std::conditional_t<is_q8<E>, types::i32, E>;

  explicit mobilenet_maker(const mobilenet_options& o) : o_(o), rng_(o.seed) {}

  types::result<mobilenet_model> make() {
    using types::activation;
    using types::padding_code;
    mobilenet_model out;
    const std::uint32_t r = o_.resolution;
    if (r < 32 || r % 32 != 0)
      return types::make_error(types::ErrorStatus::INVALID_ARGUMENT, "mobilenet_v1: resolution ", r,
                               " is not a positive multiple of 32");
    if (!(o_.width > 0.0f && o_.width <= 4.0f) || o_.classes == 0 || o_.batch == 0)
      return types::make_error(types::ErrorStatus::INVALID_ARGUMENT, "mobilenet_v1: bad width, classes or batch");
    out.input_dims = {o_.batch, r, r, 3};
    // Inputs on [-1, 1]: the published quantized models use scale 1/128, zero point 128.
    const types::quant in_q = is_q8<E> ? types::quant{1.0f / 128.0f, 128 + q8_shift<E>} : types::quant{};
    out.input_quant = in_q;
    auto x = b_.input<E>(out.input_dims, in_q);
    std::uint32_t hw = r / 2, c = channels(32);
    x = conv(x, 3, c, 3, 2, activation::RELU6, relu6_quant(), hw, out.macs);
    // (stride, output channels) of the 13 depthwise-separable blocks.
    static constexpr std::array<std::array<std::uint32_t, 2>, 13> blocks{
        {{1, 64}, {2, 128}, {1, 128}, {2, 256}, {1, 256}, {2, 512}, {1, 512},
         {1, 512}, {1, 512}, {1, 512}, {1, 512}, {2, 1024}, {1, 1024}}};
    for (const auto& [stride, oc] : blocks) {
      hw /= stride;
      x = depthwise(x, c, stride, hw, out.macs);
      x = conv(x, c, channels(oc), 1, 1, activation::RELU6, relu6_quant(), hw, out.macs);
      c = channels(oc);
    }
    const auto k = static_cast<std::int32_t>(hw);
    x = b_.average_pool_2d(x, {.padding = padding_code::valid, .filter_w = k, .filter_h = k});
    // Logits: wider weights than He scaling so the softmax is peaked, as a trained
    // classifier's is; the quantized range covers about +-5 standard deviations.
    x = conv(x, c, o_.classes, 1, 1, activation::NONE, logits_quant(), 1, out.macs, 4.0f);
    auto logits = b_.reshape(x, {static_cast<std::int32_t>(o_.batch), static_cast<std::int32_t>(o_.classes)});
    auto probs = b_.output(b_.softmax(logits));
    out.output_dims = {o_.batch, o_.classes};
    out.output_quant = b_.quant_of(probs);
    auto m = b_.build();
    if (!m) return std::move(m).err();
    out.model = std::move(*m);
    out.operations = static_cast<std::uint32_t>(out.model.main.operations.size());
    return out;
  }

 private:
  std::uint32_t channels(std::uint32_t base) const {
    return std::max<std::uint32_t>(8, static_cast<std::uint32_t>(std::lround(base * static_cast<double>(o_.width))));
  }
  // RELU6 outputs live on [0, 6] (zero point at the bottom of the range).
  static types::quant relu6_quant() { return is_q8<E> ? types::quant{6.0f / 255.0f, q8_shift<E>} : types::quant{}; }
  static types::quant logits_quant() {
    return is_q8<E> ? types::quant{40.0f / 255.0f, 128 + q8_shift<E>} : types::quant{};
  }

  /// He-uniform weights (variance 2 / fan_in, times `gain`), small biases.
  std::vector<float> weights(std::size_t n, std::size_t fan_in, float gain = 1.0f) {
    std::vector<float> w(n);
    const float a = std::sqrt(6.0f * gain / static_cast<float>(fan_in));
    for (auto& v : w) v = rng_.uniform(a);
    return w;
  }
  std::vector<float> biases(std::size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = rng_.uniform(0.1f);
    return v;
  }

  /// The filter and bias tensors of one layer, quantized per tensor for q8 types.
  std::pair<types::tensor<E>, types::tensor<bias_tag>> params(types::dims_t wdims, const std::vector<float>& w,
                                                                const std::vector<float>& bias, float in_scale) {
    const types::dims_t bdims{static_cast<std::uint32_t>(bias.size())};
    if constexpr (is_q8<E>) {
      types::quant wq = choose_weight_quant(w);
      wq.zero_point += q8_shift<E>;
      std::vector<typename E::storage> wv(w.size());
      for (std::size_t i = 0; i < w.size(); ++i) wv[i] = quantize_value<E>(w[i], wq);
      const float bias_scale = in_scale * wq.scale;
      std::vector<std::int32_t> bv(bias.size());
      for (std::size_t i = 0; i < bias.size(); ++i)
        bv[i] = static_cast<std::int32_t>(std::lround(static_cast<double>(bias[i]) / bias_scale));
      return {b_.constant<E>(std::move(wdims), wv, wq), b_.constant<types::i32>(bdims, bv, {bias_scale, 0})};
    } else if constexpr (std::is_same_v<E, types::f16>) {
      std::vector<types::float16> wv(w.size()), bv(bias.size());
      std::transform(w.begin(), w.end(), wv.begin(), types::to_float16);
      std::transform(bias.begin(), bias.end(), bv.begin(), types::to_float16);
      return {b_.constant<E>(std::move(wdims), wv), b_.constant<E>(bdims, bv)};
    } else {
      return {b_.constant<E>(std::move(wdims), w), b_.constant<E>(bdims, bias)};
    }
  }

  types::tensor<E> conv(types::tensor<E> x, std::uint32_t in_c, std::uint32_t out_c, std::uint32_t k,
                        std::int32_t stride, types::activation act, types::quant out_q, std::uint32_t out_hw,
                        std::uint64_t& macs, float gain = 1.0f) {
    const auto w = weights(std::size_t{out_c} * k * k * in_c, std::size_t{k} * k * in_c, gain);
    const auto bias = biases(out_c);
    auto [wt, bt] = params({out_c, k, k, in_c}, w, bias, b_.quant_of(x).scale);
    macs += std::uint64_t{o_.batch} * out_hw * out_hw * out_c * k * k * in_c;
    return b_.conv_2d(x, wt, bt,
                      {.padding = types::padding_code::same, .stride_w = stride, .stride_h = stride, .act = act},
                      out_q);
  }

  types::tensor<E> depthwise(types::tensor<E> x, std::uint32_t c, std::uint32_t stride, std::uint32_t out_hw,
                             std::uint64_t& macs) {
    const auto w = weights(std::size_t{9} * c, 9);
    const auto bias = biases(c);
    auto [wt, bt] = params({1, 3, 3, c}, w, bias, b_.quant_of(x).scale);
    macs += std::uint64_t{o_.batch} * out_hw * out_hw * c * 9;
    const auto s = static_cast<std::int32_t>(stride);
    return b_.depthwise_conv_2d(
        x, wt, bt, {.padding = types::padding_code::same, .stride_w = s, .stride_h = s, .act = types::activation::RELU6},
        1, relu6_quant());
  }

  mobilenet_options o_;
  mobilenet_rng rng_;
  types::builder b_;
};

}  // namespace detail

/// MobileNet v1 for element type E (f32, f16, qu8 or qs8): input [batch, res, res, 3],
/// 28 convolutions with RELU6, 7x7 average pool, 1x1 logits, RESHAPE, SOFTMAX.
template <types::element E>
types::result<mobilenet_model> mobilenet_v1(const mobilenet_options& o = {}) {
  static_assert(std::is_same_v<E, types::f32> || std::is_same_v<E, types::f16> || detail::is_q8<E>,
                "mobilenet_v1: element type must be f32, f16, qu8 or qs8");
  return detail::mobilenet_maker<E>(o).make();
}

/// A seeded input for `net`: values uniform on [-1, 1), quantized with its input parameters.
template <types::element E>
std::vector<typename E::storage> mobilenet_v1_input(const mobilenet_model& net, std::uint64_t seed) {
  std::size_t n = 1;
  for (auto d : net.input_dims) n *= d;
  detail::mobilenet_rng rng(seed ^ 0xA5A5A5A5u);
  std::vector<typename E::storage> v(n);
  for (auto& x : v) {
    const float f = rng.uniform(1.0f);
    if constexpr (detail::is_q8<E>) x = detail::quantize_value<E>(f, net.input_quant);
    else if constexpr (std::is_same_v<E, types::f16>) x = types::to_float16(f);
    else x = f;
  }
  return v;
}

}  // namespace nnhal::examples
