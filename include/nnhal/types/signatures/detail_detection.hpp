// Shared by the detection and region-of-interest contracts (AXIS_ALIGNED_BBOX_TRANSFORM,
// BOX_WITH_NMS_LIMIT, DETECTION_POSTPROCESSING, GENERATE_PROPOSALS, HEATMAP_MAX_KEYPOINT,
// ROI_ALIGN, ROI_POOLING): shape checks, reading tensors as the float values the AOSP CPU
// path computes with, the data checks run at execution, and the selection rules (NMS) whose
// outcome decides BOX_WITH_NMS_LIMIT's and GENERATE_PROPOSALS' output sizes. The kernels
// reuse the same rules, so inference and execution select the same boxes. No SIMD here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"

namespace nnhal::types::sig::detail::detection {

/// QUANT16_ASYMM box coordinates are fixed to scale 0.125, zero point 0 by the HAL.
inline constexpr float box_scale = 0.125f;

// ---------------------------------------------------------------------------------------
// Shapes and scalars
// ---------------------------------------------------------------------------------------

/// Extent k of `d`; 0 when unknown (validation) or when the rank is too small.
inline std::uint32_t extent(const operand_desc& d, std::size_t k) noexcept { return k < d.dims.size() ? d.dims[k] : 0; }

/// Rank exactly `rank` where the rank is known.
inline status check_rank(const operand_desc& d, std::size_t rank, bool executing, std::string_view role) {
  if (d.dims.empty() && !executing) return {};
  NNHAL_CHECK(d.dims.size() == rank, ErrorStatus::INVALID_ARGUMENT, role, ": rank ", d.dims.size(), " (must be ",
              rank, ")");
  return {};
}

/// Extent k of `d` equals `want` where both are known (at validation 0 is unknown).
inline status check_extent(const operand_desc& d, std::size_t k, std::uint64_t want, bool executing,
                           std::string_view role, std::string_view what) {
  if (k >= d.dims.size()) return {};
  const std::uint32_t have = d.dims[k];
  if (!executing && (have == 0 || want == 0)) return {};
  NNHAL_CHECK(have == want, ErrorStatus::INVALID_ARGUMENT, role, ": dimension ", k, " is ", have, " (must be ", what,
              " = ", want, ")");
  return {};
}

/// Extent k of `d` is at least `min` where known.
inline status check_extent_at_least(const operand_desc& d, std::size_t k, std::uint32_t min, bool executing,
                                    std::string_view role) {
  if (k >= d.dims.size() || (!executing && d.dims[k] == 0)) return {};
  NNHAL_CHECK(d.dims[k] >= min, ErrorStatus::INVALID_ARGUMENT, role, ": dimension ", k, " is ", d.dims[k],
              " (must be >= ", min, ")");
  return {};
}

/// A QUANT16_ASYMM box operand (input or output) must use scale 0.125 and zero point 0.
inline status check_box_quant(const operand_desc& d, std::string_view role) {
  if (d.type == OperandType::TENSOR_QUANT16_ASYMM)
    NNHAL_CHECK(d.scale == box_scale && d.zero_point == 0, ErrorStatus::INVALID_ARGUMENT, role, ": scale ", d.scale,
                " / zeroPoint ", d.zero_point, " (TENSOR_QUANT16_ASYMM boxes need 0.125 / 0)");
  return {};
}

/// A FLOAT32 or FLOAT16 scalar's value when known.
inline std::optional<float> float_scalar(const operand_desc& d) {
  if (d.type == OperandType::FLOAT16) {
    if (auto h = d.scalar<float16>()) return to_float(*h);
    return std::nullopt;
  }
  return d.scalar<float>();
}
inline std::optional<std::int32_t> int_scalar(const operand_desc& d) { return d.scalar<std::int32_t>(); }
inline std::optional<bool> bool_scalar(const operand_desc& d) {
  if (auto b = d.scalar<std::uint8_t>()) return *b != 0;
  return std::nullopt;
}

/// At execution every scalar the kernels read must have a value.
inline status check_present(const operand_desc& d, bool executing, std::string_view role) {
  NNHAL_CHECK(!executing || (d.has_value() && d.value_size == type_info(d.type).element_size),
              ErrorStatus::INVALID_ARGUMENT, role, ": no value at execution");
  return {};
}

/// A float scalar that must be > 0 (or >= 0 with `allow_zero`); NaN never passes.
inline status check_positive(const operand_desc& d, std::string_view role, bool allow_zero = false) {
  if (const auto v = float_scalar(d))
    NNHAL_CHECK(allow_zero ? *v >= 0.0f : *v > 0.0f, ErrorStatus::INVALID_ARGUMENT, role, ": ", *v,
                allow_zero ? " (must be >= 0)" : " (must be > 0)");
  return {};
}

// ---------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------

/// Calls f(p) with the typed element pointer of a tensor operand's value.
template <class F>
void with_elements(const operand_desc& d, F&& f) {
  switch (d.type) {
    case OperandType::TENSOR_FLOAT32: return f(reinterpret_cast<const float*>(d.value));
    case OperandType::TENSOR_FLOAT16: return f(reinterpret_cast<const float16*>(d.value));
    case OperandType::TENSOR_QUANT8_ASYMM: return f(reinterpret_cast<const std::uint8_t*>(d.value));
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED: return f(reinterpret_cast<const std::int8_t*>(d.value));
    case OperandType::TENSOR_QUANT16_ASYMM: return f(reinterpret_cast<const std::uint16_t*>(d.value));
    case OperandType::TENSOR_QUANT16_SYMM: return f(reinterpret_cast<const std::int16_t*>(d.value));
    default: return;
  }
}

/// The real value of one stored element: f16 widened; quantized (q - zero_point) * scale in
/// float, as the AOSP CPU path dequantizes before its float computation.
inline float to_real(float v, float, std::int32_t) noexcept { return v; }
inline float to_real(float16 v, float, std::int32_t) noexcept { return to_float(v); }
template <class Int>
  requires std::is_integral_v<Int>
inline float to_real(Int q, float scale, std::int32_t zero_point) noexcept {
  return (static_cast<float>(q) - static_cast<float>(zero_point)) * scale;
}

/// All elements of a tensor operand as real values into `v`, reusing its storage (empty
/// when it has none).
inline void reals_into(const operand_desc& d, std::vector<float>& v) {
  v.resize(d.has_value() ? d.element_count() : 0);
  if (v.empty()) return;
  with_elements(d, [&](const auto* p) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = to_real(p[i], d.scale, d.zero_point);
  });
}
inline std::vector<float> reals(const operand_desc& d) {
  std::vector<float> v;
  reals_into(d, v);
  return v;
}

/// The elements of a TENSOR_INT32 operand.
inline std::span<const std::int32_t> ints(const operand_desc& d) {
  if (!d.has_value()) return {};
  return {reinterpret_cast<const std::int32_t*>(d.value), d.element_count()};
}

/// Every value finite (scores are sorted; NaN would break the ordering).
inline status check_finite(std::span<const float> v, std::string_view role) {
  for (std::size_t i = 0; i < v.size(); ++i)
    NNHAL_CHECK(std::isfinite(v[i]), ErrorStatus::INVALID_ARGUMENT, role, ": element ", i, " is ", v[i],
                " (must be finite)");
  return {};
}

/// Boxes (x1, y1, x2, y2) with finite coordinates, x1 <= x2 and y1 <= y2.
inline status check_boxes(std::span<const float> b, std::string_view role) {
  for (std::size_t i = 0; i + 3 < b.size(); i += 4) {
    NNHAL_CHECK(std::isfinite(b[i]) && std::isfinite(b[i + 1]) && std::isfinite(b[i + 2]) && std::isfinite(b[i + 3]),
                ErrorStatus::INVALID_ARGUMENT, role, ": box ", i / 4, " has a non-finite coordinate");
    NNHAL_CHECK(b[i] <= b[i + 2] && b[i + 1] <= b[i + 3], ErrorStatus::INVALID_ARGUMENT, role, ": box ", i / 4, " (",
                b[i], ", ", b[i + 1], ", ", b[i + 2], ", ", b[i + 3], ") has x2 < x1 or y2 < y1");
  }
  return {};
}

/// Batch indexes in [0, batches).
inline status check_batch_indexes(std::span<const std::int32_t> idx, std::uint32_t batches, std::string_view role) {
  for (std::size_t i = 0; i < idx.size(); ++i)
    NNHAL_CHECK(idx[i] >= 0 && static_cast<std::uint32_t>(idx[i]) < batches, ErrorStatus::INVALID_ARGUMENT, role,
                ": element ", i, " is ", idx[i], " (must be in [0, ", batches, "))");
  return {};
}

// ---------------------------------------------------------------------------------------
// Box arithmetic (the float operations, in the order the AOSP CPU path does them)
// ---------------------------------------------------------------------------------------

/// Intersection over union of two (x1, y1, x2, y2) boxes.
inline float iou(const float* a, const float* b) noexcept {
  const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
  const float x1 = std::max(a[0], b[0]), x2 = std::min(a[2], b[2]);
  const float y1 = std::max(a[1], b[1]), y2 = std::min(a[3], b[3]);
  const float inter = std::max(x2 - x1, 0.0f) * std::max(y2 - y1, 0.0f);
  return inter / (area_a + area_b - inter);
}

/// AXIS_ALIGNED_BBOX_TRANSFORM of one box by one delta (dx, dy, dw, dh), clipped to the
/// image [0, width] x [0, height].
inline void transform_box(const float* roi, const float* delta, float image_height, float image_width,
                          float* out) noexcept {
  const float w = roi[2] - roi[0], h = roi[3] - roi[1];
  const float cx = (roi[0] + roi[2]) / 2, cy = (roi[1] + roi[3]) / 2;
  const float nw = std::exp(delta[2]) * w, nh = std::exp(delta[3]) * h;
  const float ncx = cx + delta[0] * w, ncy = cy + delta[1] * h;
  out[0] = std::min(std::max(ncx - nw / 2, 0.0f), image_width);
  out[1] = std::min(std::max(ncy - nh / 2, 0.0f), image_height);
  out[2] = std::min(std::max(ncx + nw / 2, 0.0f), image_width);
  out[3] = std::min(std::max(ncy + nh / 2, 0.0f), image_height);
}

// ---------------------------------------------------------------------------------------
// Non-maximum suppression
// ---------------------------------------------------------------------------------------

/// The greedy loop both NMS flavours share, over the candidate indexes [first, last):
/// repeatedly move the first highest score to the front, then drop every later candidate
/// for which drop(candidate, picked) holds by swapping it with the last live one (exactly
/// the AOSP order, which decides ties). Keeps at most `max_kept` (negative: no limit).
/// Returns the new end of the kept prefix; kept indexes are in selection order.
template <class Drop>
std::uint32_t* greedy_nms(const float* scores, std::int32_t max_kept, std::uint32_t* first, std::uint32_t* last,
                          Drop&& drop) {
  const std::int64_t limit = max_kept < 0 ? (last - first) : max_kept;
  for (std::int64_t kept = 0; first < last && kept < limit; ++kept, ++first) {
    std::swap(*std::max_element(first, last, [&](std::uint32_t a, std::uint32_t b) { return scores[a] < scores[b]; }),
              *first);
    for (std::uint32_t* i = first + 1; i < last;) {
      if (drop(*i, *first)) std::swap(*i, *--last);
      else ++i;
    }
  }
  return first;
}

/// Hard NMS: a candidate goes when its IoU with the picked box reaches `iou_threshold`.
template <class BoxOf>
std::uint32_t* hard_nms(const float* scores, float iou_threshold, std::int32_t max_kept, BoxOf&& box_of,
                        std::uint32_t* first, std::uint32_t* last) {
  return greedy_nms(scores, max_kept, first, last, [&](std::uint32_t i, std::uint32_t picked) {
    return iou(box_of(i), box_of(picked)) >= iou_threshold;
  });
}

/// One hard NMS pass over boxes stored 4 floats per index, as the kernels may run it (the
/// reference: hard_nms_boxes).
using hard_nms_fn = std::uint32_t* (*)(const float* scores, float iou_threshold, std::int32_t max_kept,
                                        const float* boxes, std::uint32_t* first, std::uint32_t* last);

inline std::uint32_t* hard_nms_boxes(const float* scores, float iou_threshold, std::int32_t max_kept,
                                     const float* boxes, std::uint32_t* first, std::uint32_t* last) {
  return hard_nms(scores, iou_threshold, max_kept, [boxes](std::uint32_t k) { return boxes + std::size_t{k} * 4; },
                  first, last);
}

/// BOX_WITH_NMS_LIMIT's score kernels (the nms_kernel scalar).
enum class nms_kernel : std::int32_t { hard = 0, linear = 1, gaussian = 2 };

struct soft_nms_params {
  nms_kernel kernel = nms_kernel::hard;
  float iou_threshold = 0.0f;
  float sigma = 1.0f;
  float score_threshold = 0.0f;  // nms_score_threshold: candidates scaled below it are dropped
};

/// The factor a candidate's score is scaled by at `overlap` with the selected box.
inline float soft_nms_factor(const soft_nms_params& p, float overlap) noexcept {
  switch (p.kernel) {
    case nms_kernel::hard: return overlap < p.iou_threshold ? 1.0f : 0.0f;
    case nms_kernel::linear: return overlap < p.iou_threshold ? 1.0f : 1.0f - overlap;
    default: return std::exp(-1.0f * overlap * overlap / p.sigma);
  }
}

/// Soft NMS: each later candidate's score is scaled by soft_nms_factor and the candidate
/// goes when it falls below the score threshold (the hard kernel scales to 0). `scores`
/// is updated in place.
template <class BoxOf>
std::uint32_t* soft_nms(float* scores, const soft_nms_params& p, std::int32_t max_kept, BoxOf&& box_of,
                        std::uint32_t* first, std::uint32_t* last) {
  return greedy_nms(scores, max_kept, first, last, [&](std::uint32_t i, std::uint32_t picked) {
    scores[i] *= soft_nms_factor(p, iou(box_of(i), box_of(picked)));
    return scores[i] < p.score_threshold;
  });
}

/// BOX_WITH_NMS_LIMIT's selection. Boxes of one batch are consecutive rows (a run of equal
/// batch indexes is one batch). Per batch, per class >= 1: the candidates scoring above
/// `score_threshold`, soft NMS with at most `max_detections` kept; then the batch's kept
/// boxes sorted by score (descending), cut to `max_detections`, and ordered by class, then
/// score. `selected` holds indexes into the batch's rows * classes relative to the batch's
/// first row; `scores` (rows x classes) ends up holding the rescored values.
struct nms_limit_selection {
  std::vector<std::uint32_t> split_in;   // rows per batch run
  std::vector<std::uint32_t> split_out;  // kept boxes per batch run
  std::vector<std::uint32_t> selected;   // per batch run, relative to its first row
  std::vector<std::uint32_t> work;       // one batch's candidates while selecting
};

/// One single-class NMS pass as the kernels may run it (the reference: soft_nms).
using soft_nms_fn = std::uint32_t* (*)(float* scores, const soft_nms_params& p, std::int32_t max_kept,
                                        const float* boxes, std::uint32_t* first, std::uint32_t* last);

inline std::uint32_t* soft_nms_boxes(float* scores, const soft_nms_params& p, std::int32_t max_kept,
                                     const float* boxes, std::uint32_t* first, std::uint32_t* last) {
  return soft_nms(scores, p, max_kept, [boxes](std::uint32_t k) { return boxes + std::size_t{k} * 4; }, first, last);
}

/// Writes the selection into `s`, reusing its storage.
inline void select_nms_limit(std::span<float> scores, std::span<const float> boxes,
                             std::span<const std::int32_t> batches, std::uint32_t classes, float score_threshold,
                             std::int32_t max_detections, const soft_nms_params& p, soft_nms_fn pass,
                             nms_limit_selection& s) {
  s.split_in.clear();
  s.split_out.clear();
  s.selected.clear();
  const std::size_t rows = batches.size();
  for (std::size_t i = 0; i < rows; ++i) {
    if (i > 0 && batches[i] == batches[i - 1]) ++s.split_in.back();
    else s.split_in.push_back(1);
  }
  std::size_t row0 = 0;
  std::vector<std::uint32_t>& batch_sel = s.work;
  for (const std::uint32_t n : s.split_in) {
    float* sc = scores.data() + row0 * classes;
    const float* bx = boxes.data() + row0 * classes * 4;
    batch_sel.clear();
    for (std::uint32_t c = 1; c < classes; ++c) {
      const std::size_t begin = batch_sel.size();
      for (std::uint32_t r = 0; r < n; ++r)
        if (sc[r * classes + c] > score_threshold) batch_sel.push_back(r * classes + c);
      std::uint32_t* end = pass(sc, p, max_detections, bx, batch_sel.data() + begin, batch_sel.data() + batch_sel.size());
      batch_sel.resize(static_cast<std::size_t>(end - batch_sel.data()));
    }
    std::stable_sort(batch_sel.begin(), batch_sel.end(), [sc](std::uint32_t a, std::uint32_t b) { return sc[a] > sc[b]; });
    if (max_detections >= 0 && batch_sel.size() > static_cast<std::size_t>(max_detections))
      batch_sel.resize(static_cast<std::size_t>(max_detections));
    std::stable_sort(batch_sel.begin(), batch_sel.end(), [sc, classes](std::uint32_t a, std::uint32_t b) {
      const std::uint32_t ca = a % classes, cb = b % classes;
      return ca == cb ? sc[a] > sc[b] : ca < cb;
    });
    s.selected.insert(s.selected.end(), batch_sel.begin(), batch_sel.end());
    s.split_out.push_back(static_cast<std::uint32_t>(batch_sel.size()));
    row0 += n;
  }
}
inline nms_limit_selection select_nms_limit(std::span<float> scores, std::span<const float> boxes,
                                            std::span<const std::int32_t> batches, std::uint32_t classes,
                                            float score_threshold, std::int32_t max_detections,
                                            const soft_nms_params& p, soft_nms_fn pass = soft_nms_boxes) {
  nms_limit_selection s;
  select_nms_limit(scores, boxes, batches, classes, score_threshold, max_detections, p, pass, s);
  return s;
}

/// What BOX_WITH_NMS_LIMIT's executing shape inference hands its kernel: the selection
/// and the widened scores it rescored.
struct nms_limit_payload final : infer_payload {
  std::vector<float> scores;
  nms_limit_selection selection;
};

// ---------------------------------------------------------------------------------------
// GENERATE_PROPOSALS
// ---------------------------------------------------------------------------------------

struct proposal_params {
  std::uint32_t batches = 0, height = 0, width = 0, anchors = 0;
  bool nchw = false;
  float height_stride = 1.0f, width_stride = 1.0f;
  std::int32_t pre_nms_max = 0, post_nms_max = 0;
  float iou_threshold = 0.0f, min_size = 0.0f;
};

struct proposals {
  std::vector<float> scores;        // per kept box
  std::vector<float> rois;          // 4 per kept box
  std::vector<std::int32_t> batch;  // per kept box
};

/// GENERATE_PROPOSALS in float, batch by batch: anchors shifted to every (h, w), moved by
/// their deltas and clipped to the image, the `pre_nms_max` best (when 0 < it < count),
/// boxes no larger than `min_size` or centred outside the image dropped, then hard NMS
/// (`pass`) keeping at most `post_nms_max`. `scores`/`deltas` are in the layout of `p.nchw`.
/// Writes into `out`, reusing its storage.
inline void generate_proposals(std::span<const float> scores, std::span<const float> deltas,
                               std::span<const float> anchors, std::span<const float> image_info,
                               const proposal_params& p, hard_nms_fn pass, proposals& out) {
  out.scores.clear();
  out.rois.clear();
  out.batch.clear();
  const std::size_t H = p.height, W = p.width, A = p.anchors, per_batch = H * W * A;
  std::vector<float> shifted(per_batch * 4), boxes(per_batch * 4), sc(per_batch);
  for (std::size_t h = 0; h < H; ++h) {
    const float dy = static_cast<float>(h) * p.height_stride;
    for (std::size_t w = 0; w < W; ++w) {
      const float dx = static_cast<float>(w) * p.width_stride;
      for (std::size_t a = 0; a < A; ++a) {
        float* r = shifted.data() + ((h * W + w) * A + a) * 4;
        r[0] = anchors[a * 4] + dx;
        r[1] = anchors[a * 4 + 1] + dy;
        r[2] = anchors[a * 4 + 2] + dx;
        r[3] = anchors[a * 4 + 3] + dy;
      }
    }
  }
  std::vector<std::uint32_t> select;
  for (std::size_t b = 0; b < p.batches; ++b) {
    const float img_h = image_info[b * 2], img_w = image_info[b * 2 + 1];
    for (std::size_t h = 0; h < H; ++h)
      for (std::size_t w = 0; w < W; ++w)
        for (std::size_t a = 0; a < A; ++a) {
          const std::size_t k = (h * W + w) * A + a;
          float d[4];
          for (std::size_t j = 0; j < 4; ++j)
            d[j] = p.nchw ? deltas[((b * A * 4 + a * 4 + j) * H + h) * W + w] : deltas[(b * per_batch + k) * 4 + j];
          sc[k] = p.nchw ? scores[((b * A + a) * H + h) * W + w] : scores[b * per_batch + k];
          transform_box(shifted.data() + k * 4, d, img_h, img_w, boxes.data() + k * 4);
        }
    select.resize(per_batch);
    std::iota(select.begin(), select.end(), 0u);
    if (p.pre_nms_max > 0 && static_cast<std::size_t>(p.pre_nms_max) < select.size()) {
      std::stable_sort(select.begin(), select.end(), [&](std::uint32_t l, std::uint32_t r) { return sc[l] > sc[r]; });
      select.resize(static_cast<std::size_t>(p.pre_nms_max));
    }
    std::size_t kept = 0;
    for (const std::uint32_t k : select) {
      const float* r = boxes.data() + std::size_t{k} * 4;
      const float bw = r[2] - r[0], bh = r[3] - r[1];
      const float cx = r[0] + bw / 2.0f, cy = r[1] + bh / 2.0f;
      if (bw > p.min_size && bh > p.min_size && cx < img_w && cy < img_h) select[kept++] = k;
    }
    select.resize(kept);
    const std::uint32_t* end =
        pass(sc.data(), p.iou_threshold, p.post_nms_max, boxes.data(), select.data(), select.data() + select.size());
    for (const std::uint32_t* k = select.data(); k != end; ++k) {
      out.scores.push_back(sc[*k]);
      out.rois.insert(out.rois.end(), boxes.begin() + std::ptrdiff_t{*k} * 4, boxes.begin() + std::ptrdiff_t{*k} * 4 + 4);
      out.batch.push_back(static_cast<std::int32_t>(b));
    }
  }
}
inline proposals generate_proposals(std::span<const float> scores, std::span<const float> deltas,
                                    std::span<const float> anchors, std::span<const float> image_info,
                                    const proposal_params& p, hard_nms_fn pass = hard_nms_boxes) {
  proposals out;
  generate_proposals(scores, deltas, anchors, image_info, p, pass, out);
  return out;
}

/// What GENERATE_PROPOSALS' executing shape inference hands its kernel.
struct proposals_payload final : infer_payload {
  proposals kept;
};

// ---------------------------------------------------------------------------------------
// ROI_ALIGN and ROI_POOLING
// ---------------------------------------------------------------------------------------

/// The most sampling-point reads (one channel of one point each) and sampling points (a
/// bilinear interpolation each, whatever the depth) a ROI_ALIGN execution may ask for:
/// seconds of work for the reference kernel, far above real models (1000 rois of 7 x 7
/// bins with 2 x 2 points: 2^17.6 points, 2^25.6 reads at 256 channels; adaptive ratios of
/// 29 x 29, bins of 29 pixels, 2^25.3 points). A mutated CTS model (float16, one channel,
/// ratios 2^20 x 64: 2^30.3 points) ran past 60 s under ASan with only a bound on reads.
inline constexpr std::uint64_t max_roi_align_work = std::uint64_t{1} << 32;
inline constexpr std::uint64_t max_roi_align_points = std::uint64_t{1} << 26;

/// Shape inference shared by ROI_ALIGN (`align`: inputs ..., sampling ratios, layout) and
/// ROI_POOLING (inputs ..., layout). Input 4-D with every extent > 0, rois [num_rois, 4]
/// (num_rois may be 0), batch_index [num_rois]; output extents > 0, strides > 0, sampling
/// ratios >= 0. ROI_POOLING's quantized output keeps the input's scale and zero point.
/// At execution each roi lies inside the (stride-scaled) feature map with x1 <= x2,
/// y1 <= y2 and its batch index names an input batch, and ROI_ALIGN's sampling asks for
/// at most max_roi_align_work reads and max_roi_align_points points.
inline result<shapes> infer_roi(const infer_context& c, bool align) {
  const bool ex = c.executing;
  const auto& in = c.inputs[0];
  const auto& rois = c.inputs[1];
  const auto& batch = c.inputs[2];
  const std::size_t layout_k = align ? 9 : 7;
  NNHAL_TRY(check_rank(in, 4, ex, "input"));
  NNHAL_TRY(check_rank(rois, 2, ex, "rois"));
  NNHAL_TRY(check_rank(batch, 1, ex, "batch_index"));
  NNHAL_TRY(check_box_quant(rois, "rois"));
  if (!align) NNHAL_TRY(check_same_quant(in, c.outputs[0], "output"));
  const std::uint32_t num_rois = std::max(extent(rois, 0), extent(batch, 0));
  NNHAL_TRY(check_extent(rois, 0, num_rois, ex, "rois", "num_rois"));
  NNHAL_TRY(check_extent(rois, 1, 4, ex, "rois", "4 coordinates"));
  NNHAL_TRY(check_extent(batch, 0, num_rois, ex, "batch_index", "num_rois"));
  NNHAL_TRY(check_present(c.inputs[layout_k], ex, "layout"));
  static constexpr std::string_view names[] = {"output_height", "output_width", "height_stride", "width_stride",
                                               "height_sampling_ratio", "width_sampling_ratio"};
  for (std::size_t k = 3; k < layout_k; ++k) NNHAL_TRY(check_present(c.inputs[k], ex, names[k - 3]));
  const auto out_h = int_scalar(c.inputs[3]), out_w = int_scalar(c.inputs[4]);
  if (out_h) NNHAL_CHECK(*out_h > 0, ErrorStatus::INVALID_ARGUMENT, "output_height: ", *out_h, " (must be > 0)");
  if (out_w) NNHAL_CHECK(*out_w > 0, ErrorStatus::INVALID_ARGUMENT, "output_width: ", *out_w, " (must be > 0)");
  NNHAL_TRY(check_positive(c.inputs[5], "height_stride"));
  NNHAL_TRY(check_positive(c.inputs[6], "width_stride"));
  if (align) {
    for (std::size_t k = 7; k < 9; ++k)
      if (const auto r = int_scalar(c.inputs[k]))
        NNHAL_CHECK(*r >= 0, ErrorStatus::INVALID_ARGUMENT, names[k - 3], ": ", *r, " (must be >= 0; 0 is adaptive)");
  }
  const auto nchw = bool_scalar(c.inputs[layout_k]);
  if (!nchw || in.dims.size() != 4) return shapes{dims_t{num_rois, 0, 0, 0}};
  const std::uint32_t n = in.dims[0], h = in.dims[*nchw ? 2 : 1], w = in.dims[*nchw ? 3 : 2],
                      depth = in.dims[*nchw ? 1 : 3];
  if (ex)
    NNHAL_CHECK(n > 0 && h > 0 && w > 0 && depth > 0, ErrorStatus::INVALID_ARGUMENT, "input: ", format_dims(in.dims),
                " (every extent must be > 0)");
  const std::uint32_t oh = out_h ? static_cast<std::uint32_t>(*out_h) : 0;
  const std::uint32_t ow = out_w ? static_cast<std::uint32_t>(*out_w) : 0;
  dims_t out = *nchw ? dims_t{num_rois, depth, oh, ow} : dims_t{num_rois, oh, ow, depth};
  if (!ex) return shapes{std::move(out)};
  std::uint64_t count = 0;
  NNHAL_CHECK(checked_element_count(out, count, std::numeric_limits<std::uint32_t>::max()),
              ErrorStatus::INVALID_ARGUMENT, "output: dimensions ", format_dims(out), " describe more than 4 GiB");
  NNHAL_TRY(check_batch_indexes(ints(batch), n, "batch_index"));
  const float height_scale = 1.0f / *float_scalar(c.inputs[5]);
  const float width_scale = 1.0f / *float_scalar(c.inputs[6]);
  const auto r = reals(rois);
  // ROI_ALIGN's work: depth x sampling points of every output element. The spec bounds
  // neither ratio, and a ratio of 2^31 - 1 would keep a kernel (which cannot be
  // interrupted) busy for centuries: refuse more than max_roi_align_work in all.
  const std::int32_t ratio_h = align ? int_scalar(c.inputs[7]).value_or(0) : 1;
  const std::int32_t ratio_w = align ? int_scalar(c.inputs[8]).value_or(0) : 1;
  long double work = 0, points = 0;
  for (std::size_t i = 0; i + 3 < r.size(); i += 4) {
    const float* b = r.data() + i;
    const bool inside = b[0] >= 0 && b[1] >= 0 && b[2] >= 0 && b[3] >= 0 &&
                        b[0] * width_scale <= static_cast<float>(w) && b[2] * width_scale <= static_cast<float>(w) &&
                        b[1] * height_scale <= static_cast<float>(h) && b[3] * height_scale <= static_cast<float>(h);
    NNHAL_CHECK(inside, ErrorStatus::INVALID_ARGUMENT, "rois: box ", i / 4, " (", b[0], ", ", b[1], ", ", b[2], ", ",
                b[3], ") lies outside the ", h, " x ", w, " feature map");
    NNHAL_CHECK(b[0] <= b[2] && b[1] <= b[3], ErrorStatus::INVALID_ARGUMENT, "rois: box ", i / 4, " (", b[0], ", ",
                b[1], ", ", b[2], ", ", b[3], ") has x2 < x1 or y2 < y1");
    if (align && oh > 0 && ow > 0) {
      // The kernel's ratios: the given one, or ceil(bin size) (at most the map's extent here).
      const auto adaptive = [](float lo, float hi, float scale, std::uint32_t bins) {
        return std::ceil(std::max(hi * scale - lo * scale, 1.0f) / static_cast<float>(bins));
      };
      const long double rh = ratio_h > 0 ? ratio_h : adaptive(b[1], b[3], height_scale, oh);
      const long double rw = ratio_w > 0 ? ratio_w : adaptive(b[0], b[2], width_scale, ow);
      const long double bin_points = rh * rw * static_cast<long double>(oh) * ow;
      points += bin_points;
      work += bin_points * depth;
    }
  }
  NNHAL_CHECK(work <= static_cast<long double>(max_roi_align_work), ErrorStatus::INVALID_ARGUMENT,
              "height_sampling_ratio, width_sampling_ratio: ", ratio_h, ", ", ratio_w, " ask for about ",
              static_cast<double>(work), " sampling-point reads in all (more than ", max_roi_align_work, ")");
  NNHAL_CHECK(points <= static_cast<long double>(max_roi_align_points), ErrorStatus::INVALID_ARGUMENT,
              "height_sampling_ratio, width_sampling_ratio: ", ratio_h, ", ", ratio_w, " ask for about ",
              static_cast<double>(points), " sampling points in all (more than ", max_roi_align_points, ")");
  return shapes{std::move(out)};
}

}  // namespace nnhal::types::sig::detail::detection
