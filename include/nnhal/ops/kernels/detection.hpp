// Loops shared by the detection and region-of-interest kernels (AXIS_ALIGNED_BBOX_TRANSFORM,
// BOX_WITH_NMS_LIMIT, DETECTION_POSTPROCESSING, GENERATE_PROPOSALS, HEATMAP_MAX_KEYPOINT,
// ROI_ALIGN, ROI_POOLING): storing float results in any output type with the AOSP rounding,
// and the vectorized NMS pass (xsimd) that BOX_WITH_NMS_LIMIT binds. The selection rules
// themselves live in types/signatures/detail_detection.hpp, shared with shape inference.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include <xsimd/xsimd.hpp>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/types/signatures/detail_detection.hpp"

namespace nnhal::ops::kernels::detection {

namespace dd = types::sig::detail::detection;

/// A float result as stored element S: f16 rounded to nearest; integers quantized as the
/// AOSP convertFloat32ToQuant does, round(v / scale + zero_point) in float, then saturated
/// (NaN goes to the type's minimum, never to an undefined conversion).
template <class S>
S from_real(float v, float scale, std::int32_t zero_point) noexcept {
  if constexpr (std::is_same_v<S, float>) {
    return v;
  } else if constexpr (std::is_same_v<S, types::float16>) {
    return types::to_float16(v);
  } else {
    const float q = std::round(v / scale + static_cast<float>(zero_point));
    constexpr float lo = static_cast<float>(std::numeric_limits<S>::min());
    constexpr float hi = static_cast<float>(std::numeric_limits<S>::max());
    if (!(q > lo)) return std::numeric_limits<S>::min();
    if (q >= hi) return std::numeric_limits<S>::max();
    return static_cast<S>(q);
  }
}

/// Stores `v[0, count)` into output `k` of element type E (quantized with its own params).
template <types::element E>
void store_reals(const kernel_io& io, std::size_t k, const float* v, std::size_t count) noexcept {
  using S = typename E::storage;
  auto out = io.output<E>(k);
  for (std::size_t i = 0; i < count; ++i) out.data[i] = from_real<S>(v[i], out.scale, out.zero_point);
}

/// Runtime dispatch of store_reals on output k's type (the box and score outputs whose type
/// follows another operand's).
inline void store_reals_any(const kernel_io& io, std::size_t k, const float* v, std::size_t count) noexcept {
  switch (io.out[k].type) {
    case OperandType::TENSOR_FLOAT32: return store_reals<types::f32>(io, k, v, count);
    case OperandType::TENSOR_FLOAT16: return store_reals<types::f16>(io, k, v, count);
    case OperandType::TENSOR_QUANT8_ASYMM: return store_reals<types::qu8>(io, k, v, count);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return store_reals<types::qs8>(io, k, v, count);
    case OperandType::TENSOR_QUANT16_ASYMM: return store_reals<types::qu16>(io, k, v, count);
    default: return;
  }
}

// ---------------------------------------------------------------------------------------
// Vectorized soft NMS
// ---------------------------------------------------------------------------------------

/// The NMS passes of dd::hard_nms and dd::soft_nms (same swaps, same float operations per
/// candidate, so the same selection bit for bit), with the live candidates' boxes, areas
/// and scores kept in structure-of-arrays order next to the index list (contiguous scans),
/// and the IoU of every live candidate against the selected box in xsimd batches of Arch;
/// the swap walk that drops candidates then reads the precomputed IoUs. `keep(slot, iou)`
/// decides (and may rescore) one candidate. Scratch is reused per thread.
template <class Arch, class Keep>
std::uint32_t* nms_simd(const float* scores, std::int32_t max_kept, const float* boxes, std::uint32_t* first,
                        std::uint32_t* last, Keep&& keep) {
  using batch = xsimd::batch<float, Arch>;
  constexpr std::size_t lanes = batch::size;
  const std::size_t n = static_cast<std::size_t>(last - first);
  if (n == 0) return first;
  struct soa {
    std::vector<float> x1, y1, x2, y2, area, score, overlap;
  };
  thread_local soa s;
  for (auto* v : {&s.x1, &s.y1, &s.x2, &s.y2, &s.area, &s.score, &s.overlap}) v->resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float* b = boxes + std::size_t{first[i]} * 4;
    s.x1[i] = b[0], s.y1[i] = b[1], s.x2[i] = b[2], s.y2[i] = b[3];
    s.area[i] = (b[2] - b[0]) * (b[3] - b[1]);
    s.score[i] = scores[first[i]];
  }
  auto swap_slots = [&](std::size_t a, std::size_t b) {
    std::swap(first[a], first[b]);
    for (auto* v : {&s.x1, &s.y1, &s.x2, &s.y2, &s.area, &s.score, &s.overlap}) std::swap((*v)[a], (*v)[b]);
  };
  const std::int64_t limit = max_kept < 0 ? static_cast<std::int64_t>(n) : max_kept;
  std::size_t head = 0, live_end = n;
  for (std::int64_t kept = 0; head < live_end && kept < limit; ++kept, ++head) {
    // First maximum in slot order, exactly as std::max_element finds it (a NaN score in
    // the head slot stays the maximum; NaN elsewhere is never larger).
    std::size_t best = head;
    for (std::size_t i = head + 1; i < live_end; ++i)
      if (s.score[best] < s.score[i]) best = i;
    swap_slots(best, head);
    const float px1 = s.x1[head], py1 = s.y1[head], px2 = s.x2[head], py2 = s.y2[head], parea = s.area[head];
    // IoU of each live candidate (a) against the selected box (b): dd::iou's operations.
    const batch bx1(px1), by1(py1), bx2(px2), by2(py2), barea(parea), zero(0.0f);
    std::size_t i = head + 1;
    for (; i + lanes <= live_end; i += lanes) {
      const batch ax1 = batch::load_unaligned(s.x1.data() + i), ay1 = batch::load_unaligned(s.y1.data() + i);
      const batch ax2 = batch::load_unaligned(s.x2.data() + i), ay2 = batch::load_unaligned(s.y2.data() + i);
      const batch w = xsimd::max(xsimd::min(ax2, bx2) - xsimd::max(ax1, bx1), zero);
      const batch h = xsimd::max(xsimd::min(ay2, by2) - xsimd::max(ay1, by1), zero);
      const batch inter = w * h;
      (inter / (batch::load_unaligned(s.area.data() + i) + barea - inter)).store_unaligned(s.overlap.data() + i);
    }
    for (; i < live_end; ++i) {
      const float w = std::max(std::min(s.x2[i], px2) - std::max(s.x1[i], px1), 0.0f);
      const float h = std::max(std::min(s.y2[i], py2) - std::max(s.y1[i], py1), 0.0f);
      const float inter = w * h;
      s.overlap[i] = inter / (s.area[i] + parea - inter);
    }
    for (i = head + 1; i < live_end;) {
      if (keep(first[i], s.score[i], s.overlap[i])) ++i;
      else swap_slots(i, --live_end);
    }
  }
  return first + head;
}

/// dd::soft_nms with the vectorized IoU scan (a dd::soft_nms_fn).
template <class Arch>
std::uint32_t* soft_nms_simd(float* scores, const dd::soft_nms_params& p, std::int32_t max_kept, const float* boxes,
                             std::uint32_t* first, std::uint32_t* last) {
  return nms_simd<Arch>(scores, max_kept, boxes, first, last, [&](std::uint32_t k, float& score, float overlap) {
    score = scores[k] *= dd::soft_nms_factor(p, overlap);
    return !(score < p.score_threshold);
  });
}

/// dd::hard_nms with the vectorized IoU scan (a dd::hard_nms_fn).
template <class Arch>
std::uint32_t* hard_nms_simd(const float* scores, float iou_threshold, std::int32_t max_kept, const float* boxes,
                             std::uint32_t* first, std::uint32_t* last) {
  return nms_simd<Arch>(scores, max_kept, boxes, first, last,
                        [&](std::uint32_t, float&, float overlap) { return !(overlap >= iou_threshold); });
}

}  // namespace nnhal::ops::kernels::detection
