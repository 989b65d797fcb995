// DETECTION_POSTPROCESSING kernels; contract in types/signatures/detection_postprocessing.hpp.
// The float algorithm of the AOSP CPU path (f16 widened to float, results rounded once):
// anchors (ctr_y, ctr_x, h, w) decoded by the deltas into (y1, x1, y2, x2) boxes, then
// either regular NMS (per class >= 1: candidates above score_threshold, hard NMS keeping
// max_num_detections_per_class; all classes' survivors sorted by score and cut to
// max_num_detections) or fast NMS (one hard NMS over each anchor's best class score, then
// each kept anchor's max_classes_per_detection best classes). Rows past the detections
// are zero; classes are reported without the background unless include_background.
#pragma once

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/detection.hpp"
#include "nnhal/types/signatures/detection_postprocessing.hpp"

namespace nnhal::ops::detection_postprocessing {

namespace dd = types::sig::detail::detection;

template <types::element E>
void reference(const kernel_io& io) {
  const std::size_t batches = io.in[0].dims[0], anchors = io.in[0].dims[1], classes = io.in[0].dims[2];
  const std::size_t enc = io.in[1].dims[2], per_batch = io.out[0].dims[1];
  const auto scores = dd::reals(io.in[0]);
  const auto deltas = dd::reals(io.in[1]);
  const auto anchor = dd::reals(io.in[2]);
  const float scale_y = *dd::float_scalar(io.in[3]), scale_x = *dd::float_scalar(io.in[4]);
  const float scale_h = *dd::float_scalar(io.in[5]), scale_w = *dd::float_scalar(io.in[6]);
  const bool regular = *dd::bool_scalar(io.in[7]);
  const std::int32_t max_det = *dd::int_scalar(io.in[8]);
  const std::int32_t max_classes = *dd::int_scalar(io.in[9]);
  const std::int32_t max_per_class = *dd::int_scalar(io.in[10]);
  const float score_threshold = *dd::float_scalar(io.in[11]);
  const float iou_threshold = *dd::float_scalar(io.in[12]);
  const std::int32_t label_offset = *dd::bool_scalar(io.in[13]) ? 0 : 1;

  std::vector<float> out_scores(batches * per_batch, 0.0f), out_boxes(batches * per_batch * 4, 0.0f);
  auto* out_classes = reinterpret_cast<std::int32_t*>(io.out_data[2]);
  auto* out_count = reinterpret_cast<std::int32_t*>(io.out_data[3]);
  std::fill_n(out_classes, batches * per_batch, 0);
  std::vector<float> boxes(anchors * 4), best(anchors);
  std::vector<std::uint32_t> select, order;
  for (std::size_t b = 0; b < batches; ++b) {
    const float* sc = scores.data() + b * anchors * classes;
    for (std::size_t a = 0; a < anchors; ++a) {
      const float* an = anchor.data() + a * 4;
      const float* d = deltas.data() + (b * anchors + a) * enc;
      const float y = an[0] + an[2] * d[0] / scale_y;
      const float x = an[1] + an[3] * d[1] / scale_x;
      const float half_h = an[2] * std::exp(d[2] / scale_h) * 0.5f;
      const float half_w = an[3] * std::exp(d[3] / scale_w) * 0.5f;
      float* r = boxes.data() + a * 4;
      r[0] = y - half_h, r[1] = x - half_w, r[2] = y + half_h, r[3] = x + half_w;
    }
    float* os = out_scores.data() + b * per_batch;
    float* ob = out_boxes.data() + b * per_batch * 4;
    std::int32_t* oc = out_classes + b * per_batch;
    std::size_t rows = 0;
    if (regular) {
      auto box_of = [&](std::uint32_t k) { return boxes.data() + (k / classes) * 4; };
      select.clear();
      for (std::size_t c = 1; c < classes; ++c) {
        const std::size_t begin = select.size();
        for (std::size_t a = 0; a < anchors; ++a)
          if (sc[a * classes + c] > score_threshold) select.push_back(static_cast<std::uint32_t>(a * classes + c));
        const std::uint32_t* end = dd::hard_nms(sc, iou_threshold, max_per_class, box_of, select.data() + begin,
                                                select.data() + select.size());
        select.resize(static_cast<std::size_t>(end - select.data()));
      }
      std::stable_sort(select.begin(), select.end(), [sc](std::uint32_t l, std::uint32_t r) { return sc[l] > sc[r]; });
      if (select.size() > static_cast<std::size_t>(max_det)) select.resize(static_cast<std::size_t>(max_det));
      for (const std::uint32_t k : select) {
        if (rows >= per_batch) break;
        os[rows] = sc[k];
        std::copy_n(box_of(k), 4, ob + rows * 4);
        oc[rows] = static_cast<std::int32_t>(k % classes) - label_offset;
        ++rows;
      }
    } else {
      const std::size_t out_classes_per = std::min<std::size_t>(classes - 1, static_cast<std::size_t>(max_classes));
      select.clear();
      for (std::size_t a = 0; a < anchors; ++a) {
        best[a] = *std::max_element(sc + a * classes + 1, sc + (a + 1) * classes);
        if (best[a] > score_threshold) select.push_back(static_cast<std::uint32_t>(a));
      }
      const std::uint32_t* end =
          dd::hard_nms(best.data(), iou_threshold, max_det, [&](std::uint32_t a) { return boxes.data() + a * 4; },
                       select.data(), select.data() + select.size());
      for (const std::uint32_t* a = select.data(); a != end; ++a) {
        const float* s = sc + std::size_t{*a} * classes;
        order.resize(classes - 1);
        std::iota(order.begin(), order.end(), 1u);
        std::stable_sort(order.begin(), order.end(), [s](std::uint32_t l, std::uint32_t r) { return s[l] > s[r]; });
        for (std::size_t c = 0; c < out_classes_per && rows < per_batch; ++c, ++rows) {
          os[rows] = s[order[c]];
          std::copy_n(boxes.data() + std::size_t{*a} * 4, 4, ob + rows * 4);
          oc[rows] = static_cast<std::int32_t>(order[c]) - label_offset;
        }
      }
    }
    out_count[b] = static_cast<std::int32_t>(rows);
  }
  kernels::detection::store_reals<E>(io, 0, out_scores.data(), out_scores.size());
  kernels::detection::store_reals<E>(io, 1, out_boxes.data(), out_boxes.size());
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{reference<types::f32>};
    case OperandType::TENSOR_FLOAT16: return kernel{reference<types::f16>};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::detection_postprocessing
