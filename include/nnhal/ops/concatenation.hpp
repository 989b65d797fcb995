// CONCATENATION kernels; contract in types/signatures/concatenation.hpp. Each input is
// copied as contiguous runs; a quantized input whose scale/zero point differ from the
// output's is requantized with the AOSP formula round(x * s_in/s_out + bias) + zp_out.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/copy.hpp"
#include "nnhal/ops/quant/fixed_point.hpp"

namespace nnhal::ops::concatenation {

/// Whether input k of a quantized concatenation must be requantized (its scale or zero
/// point differ from the output's).
template <types::element E>
bool rescaled(const kernel_io& io, std::size_t k) {
  if constexpr (types::quantized_element<E>)
    return io.in[k].scale != io.out[0].scale || io.in[k].zero_point != io.out[0].zero_point;
  return false;
}

/// `count` quantized values of input `in` written with the output's quantization.
template <types::element E>
void requantize_run(const typename E::storage* src, typename E::storage* dst, std::size_t count,
                    const operand_desc& in, const operand_desc& out) {
  using S = typename E::storage;
  if constexpr (types::quantized_element<E>) {  // rescaled() is false for floats
    // Signed values are moved to the unsigned domain first (+128), so the float expression
    // is the same for both and the signed result is exactly the unsigned one minus 128 (the
    // HAL's parity rule), ties included.
    constexpr std::int32_t offset = std::is_signed_v<S> ? 128 : 0;
    const float scale = in.scale * (1.0f / out.scale);  // as the AOSP path forms it
    const float bias = -static_cast<float>(in.zero_point + offset) * scale;
    constexpr std::int32_t lo = std::numeric_limits<S>::min(), hi = std::numeric_limits<S>::max();
    // An extreme scale ratio puts the rounded value past int32's range, where it saturates
    // (a plain conversion would be undefined), or makes it inf - inf = NaN, where the sign
    // of x - zero point decides, as for the real number: the far end or the zero point.
    for (std::size_t i = 0; i < count; ++i) {
      const float r = std::round(static_cast<float>(src[i] + offset) * scale + bias);
      const std::int32_t d = std::int32_t{src[i]} - in.zero_point;
      const std::int32_t v = std::isnan(r) ? (d > 0 ? hi : (d < 0 ? lo : out.zero_point))
                                           : quant::add_saturating(quant::saturating_int32(r), out.zero_point);
      dst[i] = static_cast<S>(v < lo ? lo : (v > hi ? hi : v));
    }
  }
}

template <types::element E>
void reference(const kernel_io& io) {
  using S = typename E::storage;
  const std::size_t n = io.in.size() - 1;
  const std::int32_t axis = io.scalar<std::int32_t>(n);
  auto out = io.output<E>(0);
  const std::size_t a = static_cast<std::size_t>(axis);
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= out.dims[d];
  for (std::size_t d = a + 1; d < out.rank(); ++d) inner *= out.dims[d];
  const std::size_t out_run = out.dims[a] * inner;
  std::size_t base = 0;  // offset of this input's run inside an output run
  for (std::size_t k = 0; k < n; ++k) {
    const auto in = io.input<E>(k);
    const std::size_t run = in.dims[a] * inner;
    for (std::size_t o = 0; o < outer; ++o) {
      const S* src = in.data + o * run;
      S* dst = out.data + o * out_run + base;
      if (!rescaled<E>(io, k)) {
        if (run) std::memcpy(dst, src, run * sizeof(S));
      } else {
        requantize_run<E>(src, dst, run, io.in[k], io.out[0]);
      }
    }
    base += run;
  }
}

/// Output rows [b, e): each input's runs of them, input by input. `unit` is the byte length
/// of one index along the axis (the inner dimensions' elements times the element size).
template <types::element E>
void copy_block(const kernel_io& io, std::size_t axis, std::size_t unit, std::size_t out_run, std::size_t b,
                std::size_t e) {
  using S = typename E::storage;
  std::size_t base = 0;  // byte offset of this input's run inside an output run
  for (std::size_t k = 0; k + 1 < io.in.size(); ++k) {
    const std::size_t run = io.in[k].dims[axis] * unit;
    std::byte* dst = io.out_data[0] + b * out_run + base;
    const std::byte* src = io.in[k].value + b * run;
    if (!rescaled<E>(io, k)) kernels::copy_rows(dst, out_run, src, static_cast<std::ptrdiff_t>(run), e - b, run);
    else
      for (std::size_t o = 0; o < e - b; ++o)
        requantize_run<E>(reinterpret_cast<const S*>(src + o * run), reinterpret_cast<S*>(dst + o * out_run),
                          run / sizeof(S), io.in[k], io.out[0]);
    base += run;
  }
}

/// reference() over chunks of the outer rows (in parallel for large outputs). A chunk goes
/// in blocks of about 16 KiB of output: every input fills its part of a block before the
/// next block starts, so the block's lines are still in L1 when the other inputs reach
/// them (one pass per input over the whole chunk measured about 12% slower, 2x56x56x64 f32).
template <types::element E>
void rows(const kernel_io& io) {
  using S = typename E::storage;
  const std::size_t n = io.in.size() - 1;
  const auto a = static_cast<std::size_t>(io.scalar<std::int32_t>(n));
  const auto& od = io.out[0].dims;
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < a; ++d) outer *= od[d];
  for (std::size_t d = a + 1; d < od.size(); ++d) inner *= od[d];
  const std::size_t out_run = od[a] * inner * sizeof(S);
  const std::size_t grain = std::max<std::size_t>(1, (std::size_t{1} << 20) / std::max<std::size_t>(out_run, 1));
  const std::size_t block = std::max<std::size_t>(1, (std::size_t{1} << 14) / std::max<std::size_t>(out_run, 1));
  for_chunks(io, outer, grain, [&](std::size_t b, std::size_t e) {
    for (std::size_t s = b; s < e; s += block) copy_block<E>(io, a, inner * sizeof(S), out_run, s, std::min(e, s + block));
  });
}

inline types::result<kernel> bind(const bind_context& c) {
  return bind_for<types::f32, types::f16, types::qu8, types::qs8>(c, c.in[0].type,
                                                                  []<class E>(E) { return kernel{rows<E>}; });
}

}  // namespace nnhal::ops::concatenation
