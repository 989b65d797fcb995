// Detection and region-of-interest family: AXIS_ALIGNED_BBOX_TRANSFORM, BOX_WITH_NMS_LIMIT,
// DETECTION_POSTPROCESSING, GENERATE_PROPOSALS, HEATMAP_MAX_KEYPOINT, ROI_ALIGN, ROI_POOLING.
// Oracles: the HAL formulas evaluated in double in this file (or hand-computed cases), never
// the kernels' own output; the vectorized paths are checked against the reference ones.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "nnhal/ops/families/detection.hpp"
#include "support/op_runner.hpp"

using namespace nnhal::test::op;
namespace dd = nnhal::types::sig::detail::detection;

namespace {

/// A quantized tensor holding the quantization of real values `r`.
tensor quant(OT t, dims_t d, const std::vector<double>& r, float scale, std::int32_t zp) {
  std::vector<double> q;
  for (double v : r) {
    double x = std::round(v / scale) + zp;
    if (t == OT::TENSOR_QUANT16_ASYMM) x = std::clamp(x, 0.0, 65535.0);
    else if (t == OT::TENSOR_QUANT16_SYMM) x = std::clamp(x, -32768.0, 32767.0);
    else x = std::clamp<double>(x, static_cast<double>(qmin(t)), static_cast<double>(qmax(t)));
    q.push_back(x);
  }
  return values(t, std::move(d), q, scale, zp);
}
tensor boxes16(dims_t d, const std::vector<double>& r) { return quant(OT::TENSOR_QUANT16_ASYMM, std::move(d), r, 0.125f, 0); }

/// A tensor of `t` (float or quant8 with scale/zp, boxes as QUANT16_ASYMM 0.125 when `box`).
tensor real_tensor(OT t, dims_t d, const std::vector<double>& r, float scale = 0.0f, std::int32_t zp = 0) {
  if (t == OT::TENSOR_FLOAT32 || t == OT::TENSOR_FLOAT16) return values(t, std::move(d), r);
  return quant(t, std::move(d), r, scale, zp);
}
tensor box_tensor(OT score_t, dims_t d, const std::vector<double>& r) {
  return is_quant8(score_t) ? boxes16(std::move(d), r) : values(score_t, std::move(d), r);
}
tensor box_decl(OT score_t, dims_t d) {
  return is_quant8(score_t) ? decl(OT::TENSOR_QUANT16_ASYMM, std::move(d), 0.125f, 0) : decl(score_t, std::move(d));
}
tensor float_scalar(OT t, double v) { return scalar_float_for(t, static_cast<float>(v)); }

std::vector<double> reals_of(const tensor& t) {
  std::vector<double> v(t.count());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = t.real(i);
  return v;
}

double iou_d(const double* a, const double* b) {
  const double ia = (a[2] - a[0]) * (a[3] - a[1]), ib = (b[2] - b[0]) * (b[3] - b[1]);
  const double w = std::max(std::min(a[2], b[2]) - std::max(a[0], b[0]), 0.0);
  const double h = std::max(std::min(a[3], b[3]) - std::max(a[1], b[1]), 0.0);
  return w * h / (ia + ib - w * h);
}

constexpr OT float_types[] = {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16};
constexpr OT all_types[] = {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM};

}  // namespace

// ---------------------------------------------------------------------------------------
// AXIS_ALIGNED_BBOX_TRANSFORM
// ---------------------------------------------------------------------------------------

namespace {
/// The HAL formula in double: centre moved by d * size, size scaled by exp(d), clipped.
std::vector<double> bbox_oracle(const std::vector<double>& roi, const std::vector<double>& deltas,
                                const std::vector<int>& batch, const std::vector<double>& info, int classes) {
  std::vector<double> out;
  for (std::size_t r = 0; r < batch.size(); ++r) {
    const double* b = roi.data() + r * 4;
    const double w = b[2] - b[0], h = b[3] - b[1], cx = (b[0] + b[2]) / 2, cy = (b[1] + b[3]) / 2;
    const double ih = info[batch[r] * 2], iw = info[batch[r] * 2 + 1];
    for (int c = 0; c < classes; ++c) {
      const double* d = deltas.data() + (r * classes + c) * 4;
      const double ncx = cx + d[0] * w, ncy = cy + d[1] * h, nw = std::exp(d[2]) * w, nh = std::exp(d[3]) * h;
      out.push_back(std::clamp(ncx - nw / 2, 0.0, iw));
      out.push_back(std::clamp(ncy - nh / 2, 0.0, ih));
      out.push_back(std::clamp(ncx + nw / 2, 0.0, iw));
      out.push_back(std::clamp(ncy + nh / 2, 0.0, ih));
    }
  }
  return out;
}
}  // namespace

TEST_CASE("AXIS_ALIGNED_BBOX_TRANSFORM: float, f16 and quantized against the formula") {
  const std::vector<double> roi = {1, 2, 5, 10, 0, 0, 8, 8, 4, 4, 4, 6};
  const std::vector<double> deltas = {0.5, -0.25, 0.2, 0.1,  -1, 0, -0.5, 0.3,  0, 0, 0, 0,
                                      0.25, 0.25, 1, 1,      2, 2, 0.5, 0.5,    -0.5, -0.5, 0.1, -0.2};
  const std::vector<int> batch = {0, 1, 1};
  const std::vector<double> info = {16, 12, 9, 9};
  const auto expected = bbox_oracle(roi, deltas, batch, info, 2);
  for (OT t : float_types) {
    CAPTURE(str(t));
    const auto out = run_ok1(OpT::AXIS_ALIGNED_BBOX_TRANSFORM,
                             {values(t, {3, 4}, roi), values(t, {3, 8}, deltas),
                              i32_tensor(batch), values(t, {2, 2}, info)},
                             decl(t));
    CHECK(out.dims == dims_t{3, 8});
    CHECK(compare(out, expected) == "");
  }
  // QUANT16_ASYMM boxes (0.125 steps), QUANT8 deltas; signed deltas give the same boxes.
  const auto d8 = quant(OT::TENSOR_QUANT8_ASYMM, {3, 8}, deltas, 0.05f, 128);
  std::vector<double> d_real = reals_of(d8);
  const auto q_expected = bbox_oracle(roi, d_real, batch, info, 2);
  const std::vector<tensor> ins = {boxes16({3, 4}, roi), d8, i32_tensor(batch), boxes16({2, 2}, info)};
  const auto qu = run_ok1(OpT::AXIS_ALIGNED_BBOX_TRANSFORM, ins, decl(OT::TENSOR_QUANT16_ASYMM, {}, 0.125f, 0));
  CHECK(compare(qu, q_expected) == "");
  auto signed_ins = ins;
  signed_ins[1] = to_signed(d8);
  const auto qs = run_ok1(OpT::AXIS_ALIGNED_BBOX_TRANSFORM, signed_ins, decl(OT::TENSOR_QUANT16_ASYMM, {}, 0.125f, 0));
  CHECK(same_bytes(qu, qs) == "");
}

TEST_CASE("AXIS_ALIGNED_BBOX_TRANSFORM: zero rois, bad batch index, inverted box, bad shapes") {
  const auto info = values(OT::TENSOR_FLOAT32, {1, 2}, {10, 10});
  auto empty = run_ok1(OpT::AXIS_ALIGNED_BBOX_TRANSFORM,
                       {values(OT::TENSOR_FLOAT32, {0, 4}, {}), values(OT::TENSOR_FLOAT32, {0, 8}, {}),
                        i32_tensor({}), info},
                       decl(OT::TENSOR_FLOAT32));
  CHECK(empty.dims == dims_t{0, 8});
  const auto roi = values(OT::TENSOR_FLOAT32, {1, 4}, {1, 1, 4, 4});
  const auto d = values(OT::TENSOR_FLOAT32, {1, 4}, {0, 0, 0, 0});
  CHECK(run_error(OpT::AXIS_ALIGNED_BBOX_TRANSFORM, {roi, d, i32_tensor({1}), info}, {decl(OT::TENSOR_FLOAT32)})
            .find("batch_index") != std::string::npos);
  CHECK(run_error(OpT::AXIS_ALIGNED_BBOX_TRANSFORM, {roi, d, i32_tensor({-1}), info}, {decl(OT::TENSOR_FLOAT32)})
            .find("batch_index") != std::string::npos);
  CHECK(run_error(OpT::AXIS_ALIGNED_BBOX_TRANSFORM,
                  {values(OT::TENSOR_FLOAT32, {1, 4}, {5, 1, 4, 4}), d, i32_tensor({0}), info},
                  {decl(OT::TENSOR_FLOAT32)})
            .find("x2 < x1") != std::string::npos);
  CHECK(run_error(OpT::AXIS_ALIGNED_BBOX_TRANSFORM,
                  {roi, values(OT::TENSOR_FLOAT32, {1, 6}, {0, 0, 0, 0, 0, 0}), i32_tensor({0}), info},
                  {decl(OT::TENSOR_FLOAT32)})
            .find("bbox_deltas") != std::string::npos);
  // Quantized boxes must use scale 0.125.
  auto bad = boxes16({1, 4}, {1, 1, 4, 4});
  bad.scale = 0.25f;
  CHECK(!infer(OpT::AXIS_ALIGNED_BBOX_TRANSFORM,
               {bad, quant(OT::TENSOR_QUANT8_ASYMM, {1, 4}, {0, 0, 0, 0}, 0.1f, 128), i32_tensor({0}),
                boxes16({1, 2}, {10, 10})},
               {decl(OT::TENSOR_QUANT16_ASYMM, {}, 0.125f, 0)}, false));
}

// ---------------------------------------------------------------------------------------
// BOX_WITH_NMS_LIMIT
// ---------------------------------------------------------------------------------------

namespace {
struct nms_case {
  int rois = 0, classes = 0;
  std::vector<double> scores, boxes;
  std::vector<int> batch;
};
struct nms_out {
  std::vector<double> scores, boxes;
  std::vector<int> classes, batch;
};

/// Independent oracle in double: per batch and class >= 1, candidates above the threshold
/// in descending score order (data without ties); repeatedly select the best live one and
/// rescale (hard: drop at IoU >= t; linear: 1 - IoU at IoU >= t; Gaussian: exp(-IoU^2 /
/// sigma)) dropping those below the NMS score threshold. Then the best max_det per batch,
/// ordered by class, then score.
nms_out nms_oracle(const nms_case& c, double thr, int max_det, int kernel, double iou_t, double sigma, double nms_thr) {
  nms_out o;
  for (int b0 = 0; b0 < c.rois;) {
    int b1 = b0;
    while (b1 < c.rois && c.batch[b1] == c.batch[b0]) ++b1;
    struct det {
      double score;
      int row, cls;
    };
    std::vector<det> kept;
    for (int cls = 1; cls < c.classes; ++cls) {
      std::vector<det> live;
      for (int r = b0; r < b1; ++r)
        if (c.scores[r * c.classes + cls] > thr) live.push_back({c.scores[r * c.classes + cls], r, cls});
      int n = 0;
      while (!live.empty() && (max_det < 0 || n < max_det)) {
        auto best = std::max_element(live.begin(), live.end(), [](const det& a, const det& b) { return a.score < b.score; });
        const det sel = *best;
        live.erase(best);
        kept.push_back(sel);
        ++n;
        std::vector<det> next;
        for (det d : live) {
          const double v = iou_d(&c.boxes[(sel.row * c.classes + cls) * 4], &c.boxes[(d.row * c.classes + cls) * 4]);
          const double f = kernel == 0 ? (v < iou_t ? 1 : 0) : kernel == 1 ? (v < iou_t ? 1 : 1 - v) : std::exp(-v * v / sigma);
          d.score *= f;
          if (d.score >= nms_thr) next.push_back(d);
        }
        live = next;
      }
    }
    std::stable_sort(kept.begin(), kept.end(), [](const det& a, const det& b) { return a.score > b.score; });
    if (max_det >= 0 && static_cast<int>(kept.size()) > max_det) kept.resize(static_cast<std::size_t>(max_det));
    std::stable_sort(kept.begin(), kept.end(),
                     [](const det& a, const det& b) { return a.cls == b.cls ? a.score > b.score : a.cls < b.cls; });
    for (const det& d : kept) {
      o.scores.push_back(d.score);
      for (int k = 0; k < 4; ++k) o.boxes.push_back(c.boxes[(d.row * c.classes + d.cls) * 4 + k]);
      o.classes.push_back(d.cls);
      o.batch.push_back(c.batch[b0]);
    }
    b0 = b1;
  }
  return o;
}

/// Random boxes and distinct scores: `rois` rows of `classes` classes in batches.
nms_case random_nms_case(std::mt19937& rng, int rois, int classes, int batches, bool distinct) {
  nms_case c;
  c.rois = rois;
  c.classes = classes;
  std::uniform_real_distribution<double> pos(0, 40), size(2, 20);
  std::vector<double> pool(static_cast<std::size_t>(rois * classes));
  for (std::size_t i = 0; i < pool.size(); ++i) pool[i] = distinct ? 0.05 + 0.9 * (double(i) + 0.5) / double(pool.size()) : 0.1 * double(rng() % 10);
  std::shuffle(pool.begin(), pool.end(), rng);
  c.scores = pool;
  for (int i = 0; i < rois * classes; ++i) {
    const double x = std::round(pos(rng)), y = std::round(pos(rng));
    const double w = std::round(size(rng)), h = std::round(size(rng));
    c.boxes.insert(c.boxes.end(), {x, y, x + w, y + h});
  }
  for (int i = 0; i < rois; ++i) c.batch.push_back(i * batches / rois);
  return c;
}

std::vector<tensor> nms_inputs(OT t, const nms_case& c, double thr, int max_det, int kernel, double iou_t, double sigma,
                               double nms_thr) {
  const auto r = static_cast<std::uint32_t>(c.rois), k = static_cast<std::uint32_t>(c.classes);
  return {real_tensor(t, {r, k}, c.scores, 0.01f, 0),
          box_tensor(t, {r, 4 * k}, c.boxes),
          i32_tensor(c.batch),
          float_scalar(t, thr),
          scalar_i32(max_det),
          scalar_i32(kernel),
          float_scalar(t, iou_t),
          float_scalar(t, sigma),
          float_scalar(t, nms_thr)};
}
std::vector<tensor> nms_decls(OT t) {
  return {is_quant8(t) ? decl(t, {}, 0.01f, 0) : decl(t), box_decl(t, {}), decl(OT::TENSOR_INT32),
          decl(OT::TENSOR_INT32)};
}
}  // namespace

TEST_CASE("BOX_WITH_NMS_LIMIT: hard, linear and Gaussian NMS against the double oracle") {
  std::mt19937 rng(7);
  for (int kernel = 0; kernel <= 2; ++kernel) {
    for (int trial = 0; trial < 6; ++trial) {
      const nms_case c = random_nms_case(rng, 12, 3, 1 + trial % 3, true);
      const int max_det = trial % 2 ? -1 : 5;
      const double thr = 0.2, iou_t = 0.3, sigma = 0.5, nms_thr = kernel == 0 ? 0.0001 : 0.15;
      const nms_out want = nms_oracle(c, thr, max_det, kernel, iou_t, sigma, nms_thr);
      for (OT t : {OT::TENSOR_FLOAT32, OT::TENSOR_QUANT8_ASYMM}) {
        CAPTURE(kernel);
        CAPTURE(trial);
        CAPTURE(str(t));
        const auto out = run_ok(OpT::BOX_WITH_NMS_LIMIT, nms_inputs(t, c, thr, max_det, kernel, iou_t, sigma, nms_thr),
                                nms_decls(t));
        REQUIRE(out[0].dims == dims_t{static_cast<std::uint32_t>(want.scores.size())});
        CHECK(out[1].dims == dims_t{static_cast<std::uint32_t>(want.scores.size()), 4});
        CHECK(compare(out[0], want.scores) == "");
        CHECK(compare(out[1], want.boxes, true) == "");
        CHECK(compare(out[2], std::vector<double>(want.classes.begin(), want.classes.end())) == "");
        CHECK(compare(out[3], std::vector<double>(want.batch.begin(), want.batch.end())) == "");
      }
    }
  }
}

TEST_CASE("BOX_WITH_NMS_LIMIT: hand case, f16, quant8 signed parity, dynamic output shape") {
  // Class 1: boxes 0 and 1 overlap with IoU 81/100 (> 0.5): 0.9 keeps, 0.8 goes; box 2 is apart.
  nms_case c;
  c.rois = 3;
  c.classes = 2;
  c.scores = {0.1, 0.9, 0.2, 0.8, 0.3, 0.7};
  c.boxes = {0, 0, 1, 1, 0, 0, 10, 10, 0, 0, 1, 1, 1, 1, 10, 10, 0, 0, 1, 1, 20, 20, 30, 30};
  c.batch = {0, 0, 0};
  for (OT t : all_types) {
    CAPTURE(str(t));
    const auto out = run_ok(OpT::BOX_WITH_NMS_LIMIT, nms_inputs(t, c, 0.5, -1, 0, 0.5, 1.0, 0.0001), nms_decls(t));
    REQUIRE(out[0].dims == dims_t{2});
    CHECK(compare(out[0], {0.9, 0.7}) == "");
    CHECK(compare(out[1], {0, 0, 10, 10, 20, 20, 30, 30}) == "");
    CHECK(compare(out[2], {1, 1}) == "");
    if (is_quant8(t)) {
      auto ins = nms_inputs(t, c, 0.5, -1, 0, 0.5, 1.0, 0.0001);
      ins[0] = to_signed(ins[0]);
      auto decls = nms_decls(t);
      decls[0] = to_signed(decls[0]);
      const auto s = run_ok(OpT::BOX_WITH_NMS_LIMIT, ins, decls);
      CHECK(signed_parity(out[0], s[0]) == "");
      for (int k = 1; k < 4; ++k) CHECK(same_bytes(out[k], s[k]) == "");
    }
  }
  // Through prepare/execute with unknown output shapes: the execution reports [2], [2, 4].
  const auto ins = nms_inputs(OT::TENSOR_FLOAT32, c, 0.5, -1, 0, 0.5, 1.0, 0.0001);
  const auto m = single(OpT::BOX_WITH_NMS_LIMIT, ins, nms_decls(OT::TENSOR_FLOAT32), 3);
  const auto r = run_model(m);
  REQUIRE(r.status == nnhal::types::ErrorStatus::NONE);
  CHECK(r.outs[0].dims == dims_t{2});
  CHECK(r.outs[1].dims == dims_t{2, 4});
  // Validation leaves the count unknown.
  const auto v = infer(OpT::BOX_WITH_NMS_LIMIT, ins, nms_decls(OT::TENSOR_FLOAT32), false);
  REQUIRE(v);
  CHECK((*v)[1] == dims_t{0, 4});
}

TEST_CASE("BOX_WITH_NMS_LIMIT: zero rois, nothing above the threshold, bad input") {
  nms_case c;
  c.classes = 2;
  auto out = run_ok(OpT::BOX_WITH_NMS_LIMIT, nms_inputs(OT::TENSOR_FLOAT32, c, 0.3, -1, 0, 0.5, 1, 0.3),
                    nms_decls(OT::TENSOR_FLOAT32));
  CHECK(out[0].dims == dims_t{0});
  CHECK(out[1].dims == dims_t{0, 4});
  c.rois = 1;
  c.scores = {0.9, 0.1};
  c.boxes = {0, 0, 1, 1, 0, 0, 1, 1};
  c.batch = {0};
  out = run_ok(OpT::BOX_WITH_NMS_LIMIT, nms_inputs(OT::TENSOR_FLOAT32, c, 0.3, -1, 0, 0.5, 1, 0.3),
               nms_decls(OT::TENSOR_FLOAT32));
  CHECK(out[3].dims == dims_t{0});
  auto bad = nms_inputs(OT::TENSOR_FLOAT32, c, 0.0, -1, 3, 0.5, 1, 0.0);
  CHECK(!infer(OpT::BOX_WITH_NMS_LIMIT, bad, nms_decls(OT::TENSOR_FLOAT32), false));
  bad = nms_inputs(OT::TENSOR_FLOAT32, c, 0.0, -1, 2, 0.5, 0.0, 0.0);
  CHECK(run_error(OpT::BOX_WITH_NMS_LIMIT, bad, nms_decls(OT::TENSOR_FLOAT32)).find("sigma") != std::string::npos);
  c.boxes = {0, 0, 1, 1, 5, 0, 1, 1};
  bad = nms_inputs(OT::TENSOR_FLOAT32, c, 0.0, -1, 0, 0.5, 1, 0.0);
  CHECK(run_error(OpT::BOX_WITH_NMS_LIMIT, bad, nms_decls(OT::TENSOR_FLOAT32)).find("x2 < x1") != std::string::npos);
  c.boxes = {0, 0, 1, 1, 0, 0, 1, 1};
  c.batch = {-1};
  bad = nms_inputs(OT::TENSOR_FLOAT32, c, 0.0, -1, 0, 0.5, 1, 0.0);
  CHECK(run_error(OpT::BOX_WITH_NMS_LIMIT, bad, nms_decls(OT::TENSOR_FLOAT32)).find("batch_index") != std::string::npos);
  c.batch = {0};
  c.scores = {0.9, std::nan("")};
  bad = nms_inputs(OT::TENSOR_FLOAT32, c, 0.0, -1, 0, 0.5, 1, 0.0);
  CHECK(run_error(OpT::BOX_WITH_NMS_LIMIT, bad, nms_decls(OT::TENSOR_FLOAT32)).find("scores") != std::string::npos);
  c.scores = {0.9, 0.1};
  bad = nms_inputs(OT::TENSOR_FLOAT32, c, 0.0, -1, 0, 0.5, 1, 0.0);
  bad[1] = values(OT::TENSOR_FLOAT32, {1, 4}, {0, 0, 1, 1});  // 4 coordinates for 2 classes
  CHECK(!infer(OpT::BOX_WITH_NMS_LIMIT, bad, nms_decls(OT::TENSOR_FLOAT32), false));
}

TEST_CASE("BOX_WITH_NMS_LIMIT / GENERATE_PROPOSALS: vectorized NMS passes select exactly as the reference, ties included") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const nms_case c = random_nms_case(rng, 40 + trial, 4, 1 + trial % 2, trial % 2 == 0);
    std::vector<float> s(c.scores.begin(), c.scores.end()), b(c.boxes.begin(), c.boxes.end());
    const std::vector<std::int32_t> batch(c.batch.begin(), c.batch.end());
    for (int kernel = 0; kernel <= 2; ++kernel) {
      dd::soft_nms_params p;
      p.kernel = static_cast<dd::nms_kernel>(kernel);
      p.iou_threshold = 0.25f + 0.05f * float(trial % 5);
      p.sigma = 0.4f;
      p.score_threshold = kernel == 0 ? 0.0f : 0.1f;
      auto s1 = s, s2 = s;
      const int max_det = trial % 3 == 0 ? 7 : -1;
      const auto a = dd::select_nms_limit(s1, b, batch, 4, 0.05f, max_det, p, dd::soft_nms_boxes);
      const auto v = dd::select_nms_limit(s2, b, batch, 4, 0.05f, max_det, p,
                                          nnhal::ops::kernels::detection::soft_nms_simd<xsimd::default_arch>);
      CAPTURE(trial);
      CAPTURE(kernel);
      CHECK(a.selected == v.selected);
      CHECK(a.split_out == v.split_out);
      CHECK(std::memcmp(s1.data(), s2.data(), s1.size() * sizeof(float)) == 0);
    }
    // The hard pass GENERATE_PROPOSALS binds, over all rows of class 1.
    std::vector<std::uint32_t> i1(static_cast<std::size_t>(c.rois)), i2;
    for (std::size_t r = 0; r < i1.size(); ++r) i1[r] = static_cast<std::uint32_t>(r * 4 + 1);
    i2 = i1;
    const float t = 0.2f + 0.1f * float(trial % 4);
    const int max_kept = trial % 3 == 0 ? 5 : -1;
    const auto* e1 = dd::hard_nms_boxes(s.data(), t, max_kept, b.data(), i1.data(), i1.data() + i1.size());
    const auto* e2 = nnhal::ops::kernels::detection::hard_nms_simd<xsimd::default_arch>(s.data(), t, max_kept, b.data(),
                                                                                        i2.data(), i2.data() + i2.size());
    CHECK(e1 - i1.data() == e2 - i2.data());
    CHECK(i1 == i2);
  }
}

// ---------------------------------------------------------------------------------------
// GENERATE_PROPOSALS
// ---------------------------------------------------------------------------------------

namespace {
struct proposal_case {
  int batches = 1, h = 2, w = 2, a = 2;
  std::vector<double> scores;  // NHWC
  std::vector<double> deltas;  // NHWC, 4 per anchor
  std::vector<double> anchors, info;
  double hs = 4, ws = 4;
  int pre = -1, post = -1;
  double iou = 0.5, min_size = 1.0;
};
struct proposal_out {
  std::vector<double> scores, rois;
  std::vector<int> batch;
};
/// The HAL steps in double: shifted anchors, transform + clip, best pre_nms (distinct
/// scores), size/centre filter, greedy hard NMS keeping post_nms.
proposal_out proposal_oracle(const proposal_case& c) {
  proposal_out o;
  const int per = c.h * c.w * c.a;
  for (int b = 0; b < c.batches; ++b) {
    struct cand {
      double s;
      double box[4];
    };
    std::vector<cand> cs;
    const double ih = c.info[b * 2], iw = c.info[b * 2 + 1];
    for (int y = 0; y < c.h; ++y)
      for (int x = 0; x < c.w; ++x)
        for (int k = 0; k < c.a; ++k) {
          const int i = (y * c.w + x) * c.a + k;
          const double* an = &c.anchors[k * 4];
          const double r[4] = {an[0] + x * c.ws, an[1] + y * c.hs, an[2] + x * c.ws, an[3] + y * c.hs};
          const double* d = &c.deltas[(b * per + i) * 4];
          const double w = r[2] - r[0], h = r[3] - r[1], cx = (r[0] + r[2]) / 2, cy = (r[1] + r[3]) / 2;
          const double ncx = cx + d[0] * w, ncy = cy + d[1] * h, nw = std::exp(d[2]) * w, nh = std::exp(d[3]) * h;
          cand cd{c.scores[b * per + i],
                  {std::clamp(ncx - nw / 2, 0.0, iw), std::clamp(ncy - nh / 2, 0.0, ih), std::clamp(ncx + nw / 2, 0.0, iw),
                   std::clamp(ncy + nh / 2, 0.0, ih)}};
          cs.push_back(cd);
        }
    std::stable_sort(cs.begin(), cs.end(), [](const cand& l, const cand& r) { return l.s > r.s; });
    if (c.pre > 0 && c.pre < per) cs.resize(static_cast<std::size_t>(c.pre));
    std::vector<cand> f;
    for (const cand& cd : cs) {
      const double w = cd.box[2] - cd.box[0], h = cd.box[3] - cd.box[1];
      if (w > c.min_size && h > c.min_size && cd.box[0] + w / 2 < iw && cd.box[1] + h / 2 < ih) f.push_back(cd);
    }
    int kept = 0;
    while (!f.empty() && (c.post < 0 || kept < c.post)) {
      const cand best = f.front();
      o.scores.push_back(best.s);
      o.rois.insert(o.rois.end(), best.box, best.box + 4);
      o.batch.push_back(b);
      ++kept;
      std::vector<cand> next;
      for (std::size_t i = 1; i < f.size(); ++i)
        if (iou_d(f[i].box, best.box) < c.iou) next.push_back(f[i]);
      f = next;
    }
  }
  return o;
}

std::vector<double> to_nchw(const std::vector<double>& v, int n, int h, int w, int c) {
  std::vector<double> o(v.size());
  for (int b = 0; b < n; ++b)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int k = 0; k < c; ++k) o[((b * c + k) * h + y) * w + x] = v[((b * h + y) * w + x) * c + k];
  return o;
}

std::vector<tensor> proposal_inputs(OT t, const proposal_case& c, bool nchw) {
  const auto B = static_cast<std::uint32_t>(c.batches), H = static_cast<std::uint32_t>(c.h),
             W = static_cast<std::uint32_t>(c.w), A = static_cast<std::uint32_t>(c.a);
  const auto sc = nchw ? to_nchw(c.scores, c.batches, c.h, c.w, c.a) : c.scores;
  const auto de = nchw ? to_nchw(c.deltas, c.batches, c.h, c.w, c.a * 4) : c.deltas;
  const dims_t sd = nchw ? dims_t{B, A, H, W} : dims_t{B, H, W, A};
  const dims_t dd_ = nchw ? dims_t{B, 4 * A, H, W} : dims_t{B, H, W, 4 * A};
  const bool q = is_quant8(t);
  return {real_tensor(t, sd, sc, 0.005f, 0),
          real_tensor(t, dd_, de, 0.05f, 128),
          q ? quant(OT::TENSOR_QUANT16_SYMM, {A, 4}, c.anchors, 0.125f, 0) : values(t, {A, 4}, c.anchors),
          q ? boxes16({B, 2}, c.info) : values(t, {B, 2}, c.info),
          float_scalar(t, c.hs),
          float_scalar(t, c.ws),
          scalar_i32(c.pre),
          scalar_i32(c.post),
          float_scalar(t, c.iou),
          float_scalar(t, c.min_size),
          scalar_bool(nchw)};
}
std::vector<tensor> proposal_decls(OT t) {
  return {is_quant8(t) ? decl(t, {}, 0.005f, 0) : decl(t), box_decl(t, {}), decl(OT::TENSOR_INT32)};
}
}  // namespace

TEST_CASE("GENERATE_PROPOSALS: NHWC and NCHW, all types, against the double oracle") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 6; ++trial) {
    proposal_case c;
    c.batches = 1 + trial % 2;
    c.h = 3;
    c.w = 2 + trial % 2;
    c.a = 2;
    const int per = c.h * c.w * c.a;
    std::vector<double> pool(static_cast<std::size_t>(per * c.batches));
    for (std::size_t i = 0; i < pool.size(); ++i) pool[i] = 0.04 + 0.9 * double(i) / double(pool.size());
    std::shuffle(pool.begin(), pool.end(), rng);
    c.scores = pool;
    std::uniform_int_distribution<int> dq(-6, 6);
    for (int i = 0; i < per * c.batches * 4; ++i) c.deltas.push_back(0.05 * dq(rng));
    c.anchors = {0, 0, 6, 6, 1, 2, 9, 5};
    c.info = {14, 12, 13, 15};
    c.info.resize(static_cast<std::size_t>(c.batches * 2));
    c.pre = trial % 3 == 0 ? -1 : 7;
    c.post = trial % 2 ? 4 : -1;
    c.iou = 0.4;
    c.min_size = 2.5;
    for (OT t : all_types) {
      for (bool nchw : {false, true}) {
        CAPTURE(trial);
        CAPTURE(str(t));
        CAPTURE(nchw);
        auto ins = proposal_inputs(t, c, nchw);
        // The oracle sees the values the operation sees (quantized deltas and scores).
        proposal_case seen = c;
        if (is_quant8(t)) {
          const auto sc = reals_of(ins[0]), de = reals_of(ins[1]);
          if (!nchw) {
            seen.scores = sc;
            seen.deltas = de;
          } else {
            // Undo the layout: read through the NCHW index.
            for (int b = 0; b < c.batches; ++b)
              for (int y = 0; y < c.h; ++y)
                for (int x = 0; x < c.w; ++x) {
                  for (int k = 0; k < c.a; ++k)
                    seen.scores[((b * c.h + y) * c.w + x) * c.a + k] = sc[((b * c.a + k) * c.h + y) * c.w + x];
                  for (int k = 0; k < 4 * c.a; ++k)
                    seen.deltas[((b * c.h + y) * c.w + x) * 4 * c.a + k] = de[((b * 4 * c.a + k) * c.h + y) * c.w + x];
                }
          }
        }
        const proposal_out want = proposal_oracle(seen);
        const auto out = run_ok(OpT::GENERATE_PROPOSALS, ins, proposal_decls(t));
        REQUIRE(out[0].dims == dims_t{static_cast<std::uint32_t>(want.scores.size())});
        CHECK(compare(out[0], want.scores) == "");
        CHECK(compare(out[1], want.rois) == "");
        CHECK(compare(out[2], std::vector<double>(want.batch.begin(), want.batch.end())) == "");
        if (is_quant8(t)) {
          ins[0] = to_signed(ins[0]);
          ins[1] = to_signed(ins[1]);
          auto decls = proposal_decls(t);
          decls[0] = to_signed(decls[0]);
          const auto s = run_ok(OpT::GENERATE_PROPOSALS, ins, decls);
          CHECK(signed_parity(out[0], s[0]) == "");
          CHECK(same_bytes(out[1], s[1]) == "");
        }
      }
    }
  }
}

TEST_CASE("GENERATE_PROPOSALS: zero kept, inverted anchor, shape mismatch") {
  proposal_case c;
  c.h = 1;
  c.w = 1;
  c.a = 1;
  c.scores = {0.5};
  c.deltas = {0, 0, 0, 0};
  c.anchors = {0, 0, 1, 1};
  c.info = {10, 10};
  c.min_size = 5;  // the only box is too small
  auto out = run_ok(OpT::GENERATE_PROPOSALS, proposal_inputs(OT::TENSOR_FLOAT32, c, false), proposal_decls(OT::TENSOR_FLOAT32));
  CHECK(out[0].dims == dims_t{0});
  CHECK(out[1].dims == dims_t{0, 4});
  c.anchors = {2, 0, 1, 1};
  CHECK(run_error(OpT::GENERATE_PROPOSALS, proposal_inputs(OT::TENSOR_FLOAT32, c, false),
                  proposal_decls(OT::TENSOR_FLOAT32))
            .find("anchors") != std::string::npos);
  c.anchors = {0, 0, 1, 1};
  auto ins = proposal_inputs(OT::TENSOR_FLOAT32, c, false);
  ins[1] = values(OT::TENSOR_FLOAT32, {1, 1, 1, 8}, {0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(!infer(OpT::GENERATE_PROPOSALS, ins, proposal_decls(OT::TENSOR_FLOAT32), false));
}

// ---------------------------------------------------------------------------------------
// DETECTION_POSTPROCESSING
// ---------------------------------------------------------------------------------------

namespace {
std::vector<tensor> dpp_inputs(OT t, const std::vector<double>& scores, const std::vector<double>& deltas,
                               const std::vector<double>& anchors, std::uint32_t anchors_n, std::uint32_t classes,
                               bool regular, int max_det, int max_classes, int per_class, double thr, double iou,
                               bool bg) {
  return {values(t, {1, anchors_n, classes}, scores), values(t, {1, anchors_n, 4}, deltas),
          values(t, {anchors_n, 4}, anchors), float_scalar(t, 10), float_scalar(t, 10), float_scalar(t, 5),
          float_scalar(t, 5), scalar_bool(regular), scalar_i32(max_det), scalar_i32(max_classes),
          scalar_i32(per_class), float_scalar(t, thr), float_scalar(t, iou), scalar_bool(bg)};
}
std::vector<tensor> dpp_decls(OT t) { return {decl(t), decl(t), decl(OT::TENSOR_INT32), decl(OT::TENSOR_INT32)}; }
}  // namespace

TEST_CASE("DETECTION_POSTPROCESSING: regular and fast NMS, hand-computed") {
  // Anchors (ctr_y, ctr_x, h, w); zero deltas decode to (y1, x1, y2, x2) = centre -+ size / 2.
  const std::vector<double> anchors = {5, 5, 10, 10, 5, 6, 10, 10, 20, 20, 4, 4};
  const std::vector<double> deltas(12, 0.0);
  // Anchor 0 and 1 overlap with IoU 90 / 110 > 0.5.
  const std::vector<double> scores = {0.0, 0.9, 0.2, 0.0, 0.8, 0.7, 0.0, 0.1, 0.6};
  for (OT t : float_types) {
    CAPTURE(str(t));
    // Regular: class 1: anchor 0 (0.9) suppresses anchor 1 (0.8); 0.1 is below 0.15.
    // class 2: anchor 1 (0.7), anchor 2 (0.6) (anchor 0's 0.2 is suppressed by anchor 1).
    auto out = run_ok(OpT::DETECTION_POSTPROCESSING,
                      dpp_inputs(t, scores, deltas, anchors, 3, 3, true, 3, 1, 5, 0.15, 0.5, false), dpp_decls(t));
    CHECK(out[0].dims == dims_t{1, 3});
    CHECK(compare(out[0], {0.9, 0.7, 0.6}) == "");
    CHECK(compare(out[1], {0, 0, 10, 10, 0, 1, 10, 11, 18, 18, 22, 22}) == "");
    CHECK(compare(out[2], {0, 1, 1}) == "");
    CHECK(compare(out[3], {3}) == "");
    // Fast: best class per anchor 0.9, 0.8, 0.6 -> anchor 1 suppressed; 2 classes each.
    out = run_ok(OpT::DETECTION_POSTPROCESSING,
                 dpp_inputs(t, scores, deltas, anchors, 3, 3, false, 2, 2, 1, 0.15, 0.5, true), dpp_decls(t));
    CHECK(out[0].dims == dims_t{1, 4});
    CHECK(compare(out[0], {0.9, 0.2, 0.6, 0.1}) == "");
    CHECK(compare(out[1], {0, 0, 10, 10, 0, 0, 10, 10, 18, 18, 22, 22, 18, 18, 22, 22}) == "");
    CHECK(compare(out[2], {1, 2, 2, 1}) == "");
    CHECK(compare(out[3], {4}) == "");
  }
  // Bad scalars are validation errors naming them.
  auto bad = dpp_inputs(OT::TENSOR_FLOAT32, scores, deltas, anchors, 3, 3, true, 0, 1, 5, 0.15, 0.5, false);
  auto r = infer(OpT::DETECTION_POSTPROCESSING, bad, dpp_decls(OT::TENSOR_FLOAT32), false);
  REQUIRE(!r);
  CHECK(r.err().message.find("max_num_detections") != std::string::npos);
  bad = dpp_inputs(OT::TENSOR_FLOAT32, scores, deltas, anchors, 3, 3, true, 3, 1, 5, -0.1, 0.5, false);
  CHECK(!infer(OpT::DETECTION_POSTPROCESSING, bad, dpp_decls(OT::TENSOR_FLOAT32), false));
}

// ---------------------------------------------------------------------------------------
// HEATMAP_MAX_KEYPOINT
// ---------------------------------------------------------------------------------------

TEST_CASE("HEATMAP_MAX_KEYPOINT: a quadratic peak is found exactly, both layouts, all types") {
  // f(x, y) = 8 - (x - px)^2 - (y - py)^2 on cell centres, with px, py multiples of 1/4 so
  // every value is exact in every type (QUANT8 scale 1/16): the quadratic fit recovers the
  // peak and its value 8 exactly; keypoint = box origin + (p + 0.5) / size * extent.
  const int size = 4, kp = 2;
  const double peaks[kp][2] = {{1.25, 2.5}, {0.75, 1.5}};
  std::vector<double> heat(static_cast<std::size_t>(size * size * kp));
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x)
      for (int k = 0; k < kp; ++k)
        heat[(y * size + x) * kp + k] = 8 - (x - peaks[k][0]) * (x - peaks[k][0]) - (y - peaks[k][1]) * (y - peaks[k][1]);
  const std::vector<double> box = {2, 4, 14, 16};
  std::vector<double> want_scores, want_points;
  for (int k = 0; k < kp; ++k) {
    want_scores.push_back(8.0);
    want_points.push_back(box[0] + (peaks[k][0] + 0.5) / size * (box[2] - box[0]));
    want_points.push_back(box[1] + (peaks[k][1] + 0.5) / size * (box[3] - box[1]));
  }
  for (OT t : float_types) {
    for (bool nchw : {false, true}) {
      CAPTURE(str(t));
      CAPTURE(nchw);
      const auto h = nchw ? to_nchw(heat, 1, size, size, kp) : heat;
      const dims_t hd = nchw ? dims_t{1, kp, size, size} : dims_t{1, size, size, kp};
      const auto out = run_ok(OpT::HEATMAP_MAX_KEYPOINT, {values(t, hd, h), values(t, {1, 4}, box), scalar_bool(nchw)},
                              {decl(t), decl(t)});
      CHECK(out[0].dims == dims_t{1, kp});
      CHECK(out[1].dims == dims_t{1, kp, 2});
      CHECK(compare(out[0], want_scores) == "");
      CHECK(compare(out[1], want_points) == "");
    }
  }
  const auto hq = quant(OT::TENSOR_QUANT8_ASYMM, {1, size, size, kp}, heat, 0.0625f, 0);
  const std::vector<tensor> ins = {hq, boxes16({1, 4}, box), scalar_bool(false)};
  const auto qu = run_ok(OpT::HEATMAP_MAX_KEYPOINT, ins,
                         {decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.0625f, 0), decl(OT::TENSOR_QUANT16_ASYMM, {}, 0.125f, 0)});
  CHECK(compare(qu[0], want_scores, true) == "");
  CHECK(compare(qu[1], want_points, true) == "");
  const auto qs = run_ok(OpT::HEATMAP_MAX_KEYPOINT, {to_signed(hq), ins[1], ins[2]},
                         {decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 0.0625f, -128), decl(OT::TENSOR_QUANT16_ASYMM, {}, 0.125f, 0)});
  CHECK(signed_parity(qu[0], qs[0]) == "");
  CHECK(same_bytes(qu[1], qs[1]) == "");
  // Bad: inverted box, non-square heatmap, heatmap smaller than 2 x 2.
  CHECK(run_error(OpT::HEATMAP_MAX_KEYPOINT,
                  {values(OT::TENSOR_FLOAT32, {1, size, size, kp}, heat), values(OT::TENSOR_FLOAT32, {1, 4}, {5, 0, 1, 1}),
                   scalar_bool(false)},
                  {decl(OT::TENSOR_FLOAT32), decl(OT::TENSOR_FLOAT32)})
            .find("boxes") != std::string::npos);
  CHECK(!infer(OpT::HEATMAP_MAX_KEYPOINT,
               {decl(OT::TENSOR_FLOAT32, {1, 5, 6, 2}), decl(OT::TENSOR_FLOAT32, {1, 4}), scalar_bool(false)},
               {decl(OT::TENSOR_FLOAT32), decl(OT::TENSOR_FLOAT32)}, false));
  CHECK(!infer(OpT::HEATMAP_MAX_KEYPOINT,
               {decl(OT::TENSOR_FLOAT32, {1, 1, 1, 2}), decl(OT::TENSOR_FLOAT32, {1, 4}), scalar_bool(false)},
               {decl(OT::TENSOR_FLOAT32), decl(OT::TENSOR_FLOAT32)}, false));
}

// ---------------------------------------------------------------------------------------
// ROI_ALIGN and ROI_POOLING
// ---------------------------------------------------------------------------------------

namespace {
struct roi_case {
  int n = 2, h = 5, w = 6, c = 3;
  std::vector<double> input;  // NHWC
  std::vector<double> rois;
  std::vector<int> batch;
  int oh = 2, ow = 3;
  double hs = 2, ws = 2;
  int hr = 2, wr = 2;
};

roi_case make_roi_case(std::mt19937& rng) {
  roi_case rc;
  std::uniform_int_distribution<int> v(-20, 20);
  for (int i = 0; i < rc.n * rc.h * rc.w * rc.c; ++i) rc.input.push_back(v(rng) * 0.25);
  rc.rois = {0, 0, 6, 4, 1.5, 2, 11, 9, 3, 1, 3.5, 8, 0, 0, 12, 10};
  rc.batch = {0, 1, 1, 0};
  return rc;
}

/// ROI_ALIGN per the HAL text, in double: bins of the (>= 1 x 1) scaled roi, a ratio_h x
/// ratio_w grid (adaptive: ceil(bin size)) of bilinear samples averaged.
std::vector<double> roi_align_oracle(const roi_case& rc) {
  std::vector<double> out;
  auto at = [&](int b, int y, int x, int k) { return rc.input[((b * rc.h + y) * rc.w + x) * rc.c + k]; };
  for (std::size_t r = 0; r < rc.batch.size(); ++r) {
    const double* roi = &rc.rois[r * 4];
    const double x0 = roi[0] / rc.ws, y0 = roi[1] / rc.hs;
    const double rw = std::max(roi[2] / rc.ws - x0, 1.0), rh = std::max(roi[3] / rc.hs - y0, 1.0);
    const double bw = rw / rc.ow, bh = rh / rc.oh;
    const int gw = rc.wr > 0 ? rc.wr : static_cast<int>(std::ceil(bw)), gh = rc.hr > 0 ? rc.hr : static_cast<int>(std::ceil(bh));
    for (int i = 0; i < rc.oh; ++i)
      for (int j = 0; j < rc.ow; ++j)
        for (int k = 0; k < rc.c; ++k) {
          double sum = 0;
          for (int yi = 0; yi < gh; ++yi)
            for (int xi = 0; xi < gw; ++xi) {
              const double y = y0 + i * bh + (yi + 0.5) * bh / gh, x = x0 + j * bw + (xi + 0.5) * bw / gw;
              int ya = static_cast<int>(std::floor(y)), xa = static_cast<int>(std::floor(x));
              double fy = y - ya, fx = x - xa;
              int yb = ya + 1, xb = xa + 1;
              if (xa >= rc.w - 1) xa = xb = rc.w - 1, fx = 0;
              if (ya >= rc.h - 1) ya = yb = rc.h - 1, fy = 0;
              const int b = rc.batch[r];
              sum += (1 - fy) * (1 - fx) * at(b, ya, xa, k) + (1 - fy) * fx * at(b, ya, xb, k) +
                     fy * (1 - fx) * at(b, yb, xa, k) + fy * fx * at(b, yb, xb, k);
            }
          out.push_back(sum / (gh * gw));
        }
  }
  return out;
}

/// ROI_POOLING per the HAL text, in double: rounded roi corners, bins [floor, ceil) of
/// (extent + 1) / out, max of each bin (0 when empty).
std::vector<double> roi_pool_oracle(const roi_case& rc) {
  std::vector<double> out;
  for (std::size_t r = 0; r < rc.batch.size(); ++r) {
    const double* roi = &rc.rois[r * 4];
    const int x0 = static_cast<int>(std::round(roi[0] / rc.ws)), y0 = static_cast<int>(std::round(roi[1] / rc.hs));
    const int x1 = static_cast<int>(std::round(roi[2] / rc.ws)), y1 = static_cast<int>(std::round(roi[3] / rc.hs));
    const double bw = std::max(x1 - x0 + 1, 1) / double(rc.ow), bh = std::max(y1 - y0 + 1, 1) / double(rc.oh);
    for (int i = 0; i < rc.oh; ++i)
      for (int j = 0; j < rc.ow; ++j)
        for (int k = 0; k < rc.c; ++k) {
          const int hs = std::min(static_cast<int>(std::floor(i * bh + y0)), rc.h);
          const int he = std::min(static_cast<int>(std::ceil((i + 1) * bh + y0)), rc.h);
          const int ws = std::min(static_cast<int>(std::floor(j * bw + x0)), rc.w);
          const int we = std::min(static_cast<int>(std::ceil((j + 1) * bw + x0)), rc.w);
          double m = 0;
          bool any = false;
          for (int y = hs; y < he; ++y)
            for (int x = ws; x < we; ++x) {
              const double v = rc.input[((rc.batch[r] * rc.h + y) * rc.w + x) * rc.c + k];
              if (!any || v > m) m = v, any = true;
            }
          out.push_back(m);
        }
  }
  return out;
}

std::vector<tensor> roi_inputs(OT t, const roi_case& rc, bool nchw, bool align, float scale = 0.25f, std::int32_t zp = 128) {
  const auto N = static_cast<std::uint32_t>(rc.n), H = static_cast<std::uint32_t>(rc.h), W = static_cast<std::uint32_t>(rc.w),
             C = static_cast<std::uint32_t>(rc.c), R = static_cast<std::uint32_t>(rc.batch.size());
  const auto in = nchw ? to_nchw(rc.input, rc.n, rc.h, rc.w, rc.c) : rc.input;
  std::vector<tensor> v = {real_tensor(t, nchw ? dims_t{N, C, H, W} : dims_t{N, H, W, C}, in, scale, zp),
                           box_tensor(t, {R, 4}, rc.rois),
                           i32_tensor(rc.batch),
                           scalar_i32(rc.oh),
                           scalar_i32(rc.ow),
                           float_scalar(t, rc.hs),
                           float_scalar(t, rc.ws)};
  if (align) {
    v.push_back(scalar_i32(rc.hr));
    v.push_back(scalar_i32(rc.wr));
  }
  v.push_back(scalar_bool(nchw));
  return v;
}
}  // namespace

TEST_CASE("ROI_ALIGN: both layouts, fixed and adaptive sampling, all types, against the double oracle") {
  std::mt19937 rng(5);
  for (int ratio : {2, 0, 3}) {
    roi_case rc = make_roi_case(rng);
    rc.hr = ratio;
    rc.wr = ratio == 3 ? 1 : ratio;
    const auto want = roi_align_oracle(rc);
    for (OT t : all_types) {
      for (bool nchw : {false, true}) {
        CAPTURE(ratio);
        CAPTURE(str(t));
        CAPTURE(nchw);
        const float out_scale = 0.125f;
        const auto out = run_ok1(OpT::ROI_ALIGN, roi_inputs(t, rc, nchw, true),
                                 is_quant8(t) ? decl(t, {}, out_scale, 120) : decl(t));
        const auto R = static_cast<std::uint32_t>(rc.batch.size());
        CHECK(out.dims == (nchw ? dims_t{R, 3, 2, 3} : dims_t{R, 2, 3, 3}));
        const auto got = nchw ? [&] {
          // Back to NHWC order for the comparison.
          tensor x = out;
          for (std::uint32_t r = 0; r < R; ++r)
            for (int i = 0; i < rc.oh; ++i)
              for (int j = 0; j < rc.ow; ++j)
                for (int k = 0; k < rc.c; ++k) {
                  const std::size_t src = ((r * rc.c + k) * rc.oh + i) * rc.ow + j;
                  const std::size_t dst = ((r * rc.oh + i) * rc.ow + j) * rc.c + k;
                  std::memcpy(x.bytes.data() + dst * (x.bytes.size() / x.count()),
                              out.bytes.data() + src * (x.bytes.size() / x.count()), x.bytes.size() / x.count());
                }
          return x;
        }() : out;
        CHECK(compare(got, want) == "");
        if (is_quant8(t)) {
          const auto s = run_ok1(OpT::ROI_ALIGN, [&] {
            auto ins = roi_inputs(t, rc, nchw, true);
            ins[0] = to_signed(ins[0]);
            return ins;
          }(), decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, out_scale, 120 - 128));
          CHECK(signed_parity(out, s) == "");
        }
      }
    }
  }
}

TEST_CASE("ROI_ALIGN: the vectorized f32 path equals the reference bit for bit") {
  std::mt19937 rng(9);
  for (int c : {1, 3, 8, 17, 33}) {
    roi_case rc = make_roi_case(rng);
    rc.c = c;
    rc.input.clear();
    std::uniform_real_distribution<double> v(-3, 3);
    for (int i = 0; i < rc.n * rc.h * rc.w * rc.c; ++i) rc.input.push_back(v(rng));
    rc.hr = 0;
    rc.wr = 2;
    const auto ins = roi_inputs(OT::TENSOR_FLOAT32, rc, false, true);
    const auto simd = run_ok1(OpT::ROI_ALIGN, ins, decl(OT::TENSOR_FLOAT32));
    // The reference, called directly on the same operands.
    auto ref = simd;
    std::vector<operand_desc> in = descs_of(ins);
    std::vector<operand_desc> out = {desc_of(ref)};
    std::vector<std::byte*> data = {ref.bytes.data()};
    nnhal::ops::roi_align::reference<nnhal::types::f32>(nnhal::ops::kernel_io{in, out, data, nullptr});
    CAPTURE(c);
    CHECK(same_bytes(simd, ref) == "");
  }
}

TEST_CASE("ROI_POOLING: both layouts, all types, against the double oracle") {
  std::mt19937 rng(13);
  roi_case rc = make_roi_case(rng);
  rc.oh = 3;
  rc.ow = 2;
  rc.rois.push_back(11);  // a fifth roi on the far edge: bins are clipped
  rc.rois.insert(rc.rois.end(), {9, 12, 10});
  rc.batch.push_back(1);
  const auto want = roi_pool_oracle(rc);
  for (OT t : all_types) {
    for (bool nchw : {false, true}) {
      CAPTURE(str(t));
      CAPTURE(nchw);
      const auto ins = roi_inputs(t, rc, nchw, false);
      const auto out = run_ok1(OpT::ROI_POOLING, ins, is_quant8(t) ? decl(t, {}, 0.25f, 128) : decl(t));
      const auto R = static_cast<std::uint32_t>(rc.batch.size());
      std::vector<double> got;
      for (std::uint32_t r = 0; r < R; ++r)
        for (int i = 0; i < rc.oh; ++i)
          for (int j = 0; j < rc.ow; ++j)
            for (int k = 0; k < rc.c; ++k)
              got.push_back(out.real(nchw ? ((r * rc.c + k) * rc.oh + i) * rc.ow + j : ((r * rc.oh + i) * rc.ow + j) * rc.c + k));
      for (std::size_t i = 0; i < want.size(); ++i) {
        CAPTURE(i);
        CHECK(got[i] == want[i]);  // every input value is exact in every type
      }
      if (is_quant8(t)) {
        auto sins = ins;
        sins[0] = to_signed(ins[0]);
        CHECK(signed_parity(out, run_ok1(OpT::ROI_POOLING, sins, decl(OT::TENSOR_QUANT8_ASYMM_SIGNED, {}, 0.25f, 0))) == "");
      }
    }
  }
}

TEST_CASE("ROI_ALIGN / ROI_POOLING: zero rois, out-of-range batch, rois outside the map, bad scalars") {
  std::mt19937 rng(1);
  roi_case rc = make_roi_case(rng);
  for (bool align : {true, false}) {
    const OpT op = align ? OpT::ROI_ALIGN : OpT::ROI_POOLING;
    CAPTURE(align);
    roi_case z = rc;
    z.rois.clear();
    z.batch.clear();
    const auto out = run_ok1(op, roi_inputs(OT::TENSOR_FLOAT32, z, false, align), decl(OT::TENSOR_FLOAT32));
    CHECK(out.dims == dims_t{0, 2, 3, 3});
    roi_case b = rc;
    b.batch[1] = 2;
    CHECK(run_error(op, roi_inputs(OT::TENSOR_FLOAT32, b, false, align), {decl(OT::TENSOR_FLOAT32)}).find("batch_index") !=
          std::string::npos);
    b = rc;
    b.rois[2] = 13;  // 13 / 2 > width 6
    CHECK(run_error(op, roi_inputs(OT::TENSOR_FLOAT32, b, false, align), {decl(OT::TENSOR_FLOAT32)}).find("rois") !=
          std::string::npos);
    b = rc;
    b.rois[0] = 7;  // x1 > x2
    CHECK(run_error(op, roi_inputs(OT::TENSOR_FLOAT32, b, false, align), {decl(OT::TENSOR_FLOAT32)}).find("x2 < x1") !=
          std::string::npos);
    b = rc;
    b.oh = 0;
    CHECK(!infer(op, roi_inputs(OT::TENSOR_FLOAT32, b, false, align), {decl(OT::TENSOR_FLOAT32)}, false));
    b = rc;
    b.hs = -1;
    CHECK(!infer(op, roi_inputs(OT::TENSOR_FLOAT32, b, false, align), {decl(OT::TENSOR_FLOAT32)}, false));
  }
  rc.hr = -1;
  CHECK(!infer(OpT::ROI_ALIGN, roi_inputs(OT::TENSOR_FLOAT32, rc, false, true), {decl(OT::TENSOR_FLOAT32)}, false));
  // Sampling ratios no kernel could finish: refused at execution, naming them. 4 rois x
  // 2 x 3 bins x 3 channels x ratio^2 points: ratio 2^31 - 1 is far past the bound (2^32
  // reads), 16384 (1.9e10 reads) past it too; 7000 (3.5e9) still runs (not here: seconds).
  for (const int ratio : {2147483647, 1 << 20, 65536, 16384}) {
    CAPTURE(ratio);
    roi_case big = rc;
    big.hr = ratio;
    big.wr = ratio;
    CHECK(run_error(OpT::ROI_ALIGN, roi_inputs(OT::TENSOR_FLOAT32, big, false, true), {decl(OT::TENSOR_FLOAT32)})
              .find("sampling_ratio") != std::string::npos);
  }
  {
    // 4096 x 1024 points a bin: 1e8 points (past 2^26), 3e8 reads (under 2^32): refused
    // for its points alone.
    roi_case many = rc;
    many.hr = 4096;
    many.wr = 1024;
    CHECK(run_error(OpT::ROI_ALIGN, roi_inputs(OT::TENSOR_FLOAT32, many, false, true), {decl(OT::TENSOR_FLOAT32)})
              .find("sampling points") != std::string::npos);
  }
  {
    roi_case wide = rc;  // one ratio large, the other 1: 4 x 6 x 3 x 4096 reads, runs
    wide.hr = 4096;
    wide.wr = 1;
    CHECK(run_ok1(OpT::ROI_ALIGN, roi_inputs(OT::TENSOR_FLOAT32, wide, false, true), decl(OT::TENSOR_FLOAT32)).dims ==
          dims_t{4, 2, 3, 3});
  }
  // ROI_POOLING keeps the input's quantization.
  rc.hr = 2;
  CHECK(!infer(OpT::ROI_POOLING, roi_inputs(OT::TENSOR_QUANT8_ASYMM, rc, false, false),
               {decl(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 128)}, false));
}

// ---------------------------------------------------------------------------------------
// Selection made once per execution (infer_scratch)
// ---------------------------------------------------------------------------------------

TEST_CASE("BOX_WITH_NMS_LIMIT / GENERATE_PROPOSALS: the executing inference hands its selection to the kernel") {
  namespace sig = nnhal::types::sig;
  std::mt19937 rng(11);
  // Inference with a scratch leaves the selection that fixed the output size.
  const nms_case c = random_nms_case(rng, 12, 3, 2, true);
  const auto ins = nms_inputs(OT::TENSOR_FLOAT32, c, 0.2, 5, 1, 0.3, 0.5, 0.15);
  const auto decls = nms_decls(OT::TENSOR_FLOAT32);
  const nms_out want = nms_oracle(c, 0.2, 5, 1, 0.3, 0.5, 0.15);
  const auto in = descs_of(ins), out = descs_of(decls);
  sig::infer_scratch scratch;
  sig::shapes shapes;
  const auto* entry = nnhal::types::find_operation(OpT::BOX_WITH_NMS_LIMIT);
  REQUIRE(entry->infer_into(sig::infer_context{OpT::BOX_WITH_NMS_LIMIT, in, out, true, nullptr, &scratch}, shapes));
  const auto* p = scratch.get<dd::nms_limit_payload>();
  REQUIRE(p != nullptr);
  CHECK(scratch.get<dd::proposals_payload>() == nullptr);
  REQUIRE(shapes.size() == 4);
  CHECK(shapes[0] == dims_t{static_cast<std::uint32_t>(want.scores.size())});
  CHECK(p->selection.selected.size() == want.scores.size());
  // Validation-time and scratch-less inference store nothing.
  sig::infer_scratch idle;
  REQUIRE(entry->infer_into(sig::infer_context{OpT::BOX_WITH_NMS_LIMIT, in, out, false, nullptr, &idle}, shapes));
  CHECK(idle.get<dd::nms_limit_payload>() == nullptr);

  // Through the executor (inference, then the kernel on its selection) against the oracles,
  // with unknown output shapes.
  for (int kernel = 0; kernel <= 2; ++kernel) {
    const nms_case k = random_nms_case(rng, 10, 4, 1 + kernel, true);
    const double nms_thr = kernel == 0 ? 0.0001 : 0.15;
    const nms_out w = nms_oracle(k, 0.2, 6, kernel, 0.3, 0.5, nms_thr);
    for (OT t : {OT::TENSOR_FLOAT32, OT::TENSOR_QUANT8_ASYMM}) {
      CAPTURE(kernel);
      CAPTURE(str(t));
      const auto r = run_model(single(OpT::BOX_WITH_NMS_LIMIT, nms_inputs(t, k, 0.2, 6, kernel, 0.3, 0.5, nms_thr),
                                      nms_decls(t), 3));
      REQUIRE(r.status == nnhal::types::ErrorStatus::NONE);
      REQUIRE(r.outs[0].dims == dims_t{static_cast<std::uint32_t>(w.scores.size())});
      CHECK(compare(r.outs[0], w.scores) == "");
      CHECK(compare(r.outs[1], w.boxes, true) == "");
      CHECK(compare(r.outs[2], std::vector<double>(w.classes.begin(), w.classes.end())) == "");
      CHECK(compare(r.outs[3], std::vector<double>(w.batch.begin(), w.batch.end())) == "");
    }
  }

  proposal_case pc;
  pc.batches = 2;
  pc.h = 3;
  pc.w = 3;
  pc.a = 2;
  const int per = pc.h * pc.w * pc.a;
  const int n = per * pc.batches;  // distinct scores: 7 is prime to n = 36
  for (int i = 0; i < n; ++i) pc.scores.push_back(0.05 + 0.9 * double((i * 7) % n) / n);
  std::uniform_int_distribution<int> dq(-6, 6);
  for (int i = 0; i < per * pc.batches * 4; ++i) pc.deltas.push_back(0.05 * dq(rng));
  pc.anchors = {0, 0, 6, 6, 1, 2, 9, 5};
  pc.info = {14, 12, 13, 15};
  pc.pre = 9;
  pc.post = 5;
  pc.iou = 0.4;
  pc.min_size = 2.5;
  const proposal_out pw = proposal_oracle(pc);
  const auto r = run_model(single(OpT::GENERATE_PROPOSALS, proposal_inputs(OT::TENSOR_FLOAT32, pc, false),
                                  proposal_decls(OT::TENSOR_FLOAT32), 4));
  REQUIRE(r.status == nnhal::types::ErrorStatus::NONE);
  REQUIRE(r.outs[0].dims == dims_t{static_cast<std::uint32_t>(pw.scores.size())});
  CHECK(compare(r.outs[0], pw.scores) == "");
  CHECK(compare(r.outs[1], pw.rois) == "");
  CHECK(compare(r.outs[2], std::vector<double>(pw.batch.begin(), pw.batch.end())) == "");
}
