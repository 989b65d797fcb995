// Detection family, single thread, reference next to the bound (vectorized) kernels:
//   ROI_ALIGN          1x64x64x256 f32 features (NHWC, stride 16), 300 rois, 7x7, ratio 2
//   BOX_WITH_NMS_LIMIT 1000 rois x 90 classes f32, score > 0.05, hard NMS at IoU 0.5, <= 100
//   GENERATE_PROPOSALS 1x19x19x9 anchors f32 (300 x 300 image, stride 16), 1000 pre / 300 post
// The data-dependent ops make their selection in shape inference, which hands it to the
// kernel at execution: `infer` is that inference alone, `execution` is what one execution
// of the operation costs (inference into a reused list and scratch, then the bound kernel
// using the scratch). Names: <op>/<impl>.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "support/buffer.hpp"
#include "nnhal/ops/families/detection.hpp"
#include "nnhal/types/operations.hpp"

namespace nnhal::bench {
namespace {

using types::OperandType;
using types::sig::operand_desc;

/// Owned operands of one operation call.
struct call {
  std::vector<byte_buffer> in_bytes, out_bytes;
  std::vector<std::vector<std::uint32_t>> in_dims, out_dims;
  std::vector<operand_desc> in, out;
  std::vector<std::byte*> out_data;
  types::OperationType op{};

  template <class T>
  void input(OperandType t, std::vector<std::uint32_t> d, const std::vector<T>& v, float scale = 0.0f) {
    byte_buffer b(v.size() * sizeof(T));
    if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
    in_bytes.push_back(std::move(b));
    in_dims.push_back(std::move(d));
    in.push_back({t, {}, scale, 0});
  }
  template <class T>
  void scalar(OperandType t, T v) {
    input(t, {}, std::vector<T>{v});
  }
  void output(OperandType t) {
    out_dims.emplace_back();
    out.push_back({t, {}, 0.0f, 0});
  }
  /// Views, then shape inference as at execution; false (with the message) on failure.
  bool prepare(std::string& error) {
    for (std::size_t i = 0; i < in.size(); ++i) {
      in[i].dims = in_dims[i];
      in[i].value = in_bytes[i].data();
      in[i].value_size = in_bytes[i].size();
    }
    auto shapes = infer();
    if (!shapes) {
      error = shapes.err().message;
      return false;
    }
    for (std::size_t j = 0; j < out.size(); ++j) {
      out_dims[j] = (*shapes)[j];
      out[j].dims = out_dims[j];
      std::size_t n = types::type_info(out[j].type).element_size;
      for (auto e : out_dims[j]) n *= e;
      out_bytes.emplace_back(n + 1);
      out_data.push_back(out_bytes.back().data());
    }
    return true;
  }
  types::result<types::sig::shapes> infer() const {
    return types::find_operation(op)->infer(types::sig::infer_context{op, in, out, true, nullptr});
  }
  /// As an execution runs it: into `shapes` and `scratch`, both kept between calls.
  types::status infer_into(types::sig::shapes& shapes, types::sig::infer_scratch& scratch) const {
    scratch.ready = false;
    return types::find_operation(op)->infer_into(types::sig::infer_context{op, in, out, true, nullptr, &scratch},
                                                 shapes);
  }
  ops::kernel_io io(const types::sig::infer_scratch* scratch = nullptr) const {
    return {in, out, out_data, nullptr, scratch};
  }
};

enum class mode { kernel, infer, execution };

/// Random boxes (x1, y1, x2, y2) inside [0, extent) with sides in [lo, hi].
std::vector<float> random_boxes(std::mt19937& rng, std::size_t n, float extent, float lo, float hi) {
  std::uniform_real_distribution<float> side(lo, hi), pos(0.0f, 1.0f);
  std::vector<float> b;
  for (std::size_t i = 0; i < n; ++i) {
    const float w = side(rng), h = side(rng);
    const float x = pos(rng) * (extent - w), y = pos(rng) * (extent - h);
    b.insert(b.end(), {x, y, x + w, y + h});
  }
  return b;
}

void run_case(benchmark::State& state, call& c, void (*kernel)(const ops::kernel_io&), mode m) {
  std::string error;
  if (!c.prepare(error)) {
    state.SkipWithError(error.c_str());
    return;
  }
  types::sig::shapes shapes;
  types::sig::infer_scratch scratch;
  const auto io = c.io(m == mode::execution ? &scratch : nullptr);
  for (auto _ : state) {
    if (m == mode::infer) {
      benchmark::DoNotOptimize(c.infer());
    } else {
      if (m == mode::execution && !c.infer_into(shapes, scratch)) {
        state.SkipWithError("shape inference failed");
        return;
      }
      kernel(io);
    }
    benchmark::ClobberMemory();
  }
}

call roi_align_call() {
  std::mt19937 rng(1);
  call c;
  c.op = types::OperationType::ROI_ALIGN;
  std::vector<float> features(64 * 64 * 256);
  std::uniform_real_distribution<float> v(-4.0f, 4.0f);
  for (auto& x : features) x = v(rng);
  c.input(OperandType::TENSOR_FLOAT32, {1, 64, 64, 256}, features);
  c.input(OperandType::TENSOR_FLOAT32, {300, 4}, random_boxes(rng, 300, 1024.0f, 32.0f, 400.0f));
  c.input(OperandType::TENSOR_INT32, {300}, std::vector<std::int32_t>(300, 0));
  c.scalar<std::int32_t>(OperandType::INT32, 7);
  c.scalar<std::int32_t>(OperandType::INT32, 7);
  c.scalar<float>(OperandType::FLOAT32, 16.0f);
  c.scalar<float>(OperandType::FLOAT32, 16.0f);
  c.scalar<std::int32_t>(OperandType::INT32, 2);
  c.scalar<std::int32_t>(OperandType::INT32, 2);
  c.scalar<std::uint8_t>(OperandType::BOOL, 0);
  c.output(OperandType::TENSOR_FLOAT32);
  return c;
}

call nms_call() {
  std::mt19937 rng(2);
  call c;
  c.op = types::OperationType::BOX_WITH_NMS_LIMIT;
  constexpr std::size_t rois = 1000, classes = 90;
  std::vector<float> scores(rois * classes);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (auto& s : scores) s = u(rng);
  c.input(OperandType::TENSOR_FLOAT32, {rois, classes}, scores);
  c.input(OperandType::TENSOR_FLOAT32, {rois, 4 * classes}, random_boxes(rng, rois * classes, 1024.0f, 16.0f, 256.0f));
  c.input(OperandType::TENSOR_INT32, {rois}, std::vector<std::int32_t>(rois, 0));
  c.scalar<float>(OperandType::FLOAT32, 0.05f);
  c.scalar<std::int32_t>(OperandType::INT32, 100);
  c.scalar<std::int32_t>(OperandType::INT32, 0);
  c.scalar<float>(OperandType::FLOAT32, 0.5f);
  c.scalar<float>(OperandType::FLOAT32, 0.5f);
  c.scalar<float>(OperandType::FLOAT32, 0.001f);
  for (auto t : {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32,
                 OperandType::TENSOR_INT32})
    c.output(t);
  return c;
}

call proposals_call() {
  std::mt19937 rng(3);
  call c;
  c.op = types::OperationType::GENERATE_PROPOSALS;
  constexpr std::uint32_t h = 19, w = 19, a = 9;
  std::vector<float> scores(h * w * a), deltas(h * w * a * 4);
  std::uniform_real_distribution<float> u(0.0f, 1.0f), d(-0.5f, 0.5f);
  for (auto& s : scores) s = u(rng);
  for (auto& x : deltas) x = d(rng);
  std::vector<float> anchors;
  for (float size : {32.0f, 64.0f, 128.0f})
    for (float ratio : {0.5f, 1.0f, 2.0f}) {
      const float aw = size * std::sqrt(ratio), ah = size / std::sqrt(ratio);
      anchors.insert(anchors.end(), {-aw / 2 + 8, -ah / 2 + 8, aw / 2 + 8, ah / 2 + 8});
    }
  c.input(OperandType::TENSOR_FLOAT32, {1, h, w, a}, scores);
  c.input(OperandType::TENSOR_FLOAT32, {1, h, w, 4 * a}, deltas);
  c.input(OperandType::TENSOR_FLOAT32, {a, 4}, anchors);
  c.input(OperandType::TENSOR_FLOAT32, {1, 2}, std::vector<float>{300.0f, 300.0f});
  c.scalar<float>(OperandType::FLOAT32, 16.0f);
  c.scalar<float>(OperandType::FLOAT32, 16.0f);
  c.scalar<std::int32_t>(OperandType::INT32, 1000);
  c.scalar<std::int32_t>(OperandType::INT32, 300);
  c.scalar<float>(OperandType::FLOAT32, 0.7f);
  c.scalar<float>(OperandType::FLOAT32, 1.0f);
  c.scalar<std::uint8_t>(OperandType::BOOL, 0);
  for (auto t : {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32}) c.output(t);
  return c;
}

using kernel_fn = void (*)(const ops::kernel_io&);
void roi_align(benchmark::State& state, kernel_fn k, mode m) {
  call c = roi_align_call();
  run_case(state, c, k, m);
}
void box_with_nms_limit(benchmark::State& state, kernel_fn k, mode m) {
  call c = nms_call();
  run_case(state, c, k, m);
}
void generate_proposals(benchmark::State& state, kernel_fn k, mode m) {
  call c = proposals_call();
  run_case(state, c, k, m);
}

using types::f32;
BENCHMARK_CAPTURE(roi_align, reference, ops::roi_align::reference<f32>, mode::kernel)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(roi_align, vectorized, ops::roi_align::vectorized_f32<xsimd::default_arch>, mode::kernel)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(roi_align, infer, nullptr, mode::infer)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(box_with_nms_limit, reference, ops::box_with_nms_limit::reference<f32>, mode::kernel)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(box_with_nms_limit, vectorized, ops::box_with_nms_limit::vectorized<f32>, mode::kernel)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(box_with_nms_limit, infer, nullptr, mode::infer)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(box_with_nms_limit, execution, ops::box_with_nms_limit::vectorized<f32>, mode::execution)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(generate_proposals, reference, ops::generate_proposals::reference<f32>, mode::kernel)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(generate_proposals, vectorized, ops::generate_proposals::vectorized<f32>, mode::kernel)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(generate_proposals, infer, nullptr, mode::infer)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(generate_proposals, execution, ops::generate_proposals::vectorized<f32>, mode::execution)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace nnhal::bench
