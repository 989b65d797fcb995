// SVDF kernels; contract in types/signatures/svdf.hpp. Float32 (float16 widened), with the
// memory laid out as the AOSP CPU path keeps it: per batch and filter a row of memory_size
// values, the newest last. A step: the input's feature projections (one matrix product for
// all filters) enter the newest slot, each filter's row is filtered by its weights_time row,
// the rank filters of a unit are summed with its bias and activated; then every row shifts
// one slot towards the oldest, leaving the newest slot 0 in state_out.
#pragma once

#include <memory>
#include <optional>

#include "nnhal/ops/kernels/recurrent.hpp"
#include "nnhal/types/signatures/svdf.hpp"

namespace nnhal::ops::svdf {

namespace rk = kernels::recurrent;

/// weights_feature (packed for the GEMM), weights_time and bias in float32.
struct weights {
  rk::dense feature;           // [num_filters][input_size]
  std::vector<float> time;     // [num_filters][memory_size]
  std::vector<float> bias;     // [num_units] (zeros when omitted)
  std::size_t filters = 0, memory = 0;
};
inline weights make_weights(std::span<const operand_desc> in, bool pack) {
  weights w;
  w.filters = in[1].dims[0];
  w.memory = in[2].dims[1];
  w.feature = rk::make_dense(rk::to_f32(in[1]), w.filters, in[1].dims[1], nullptr, pack);
  w.time = rk::to_f32(in[2]);
  w.bias = rk::to_f32(in[3]);
  return w;
}

inline void run(const kernel_io& io, const std::shared_ptr<const weights>& prepared, rk::path p) {
  std::optional<weights> local;
  if (!prepared) local.emplace(make_weights(io.in, p == rk::path::gemm));
  const weights& w = prepared ? *prepared : *local;
  const std::size_t batch = io.in[0].dims[0], F = w.filters, M = w.memory;
  const auto rank = static_cast<std::size_t>(io.scalar<std::int32_t>(5, 1));
  const std::size_t units = F / rank;
  rk::input_f32 x(io.in[0]), state_in(io.in[4]);
  rk::output_f32 state(io, 0), out(io, 1);
  std::vector<float> feat(batch * F);
  rk::matmul(w.feature, batch, x.data(), feat.data());
  float* st = state.data();
  std::copy_n(state_in.data(), batch * F * M, st);
  std::vector<float> filtered(F);
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t f = 0; f < F; ++f) {
      float* row = st + (b * F + f) * M;
      row[M - 1] = feat[b * F + f];
      float acc = 0.0f;
      for (std::size_t k = 0; k < M; ++k) acc += w.time[f * M + k] * row[k];
      filtered[f] = acc;
      std::copy(row + 1, row + M, row);  // shift towards the oldest slot
      row[M - 1] = 0.0f;
    }
    float* o = out.data() + b * units;
    for (std::size_t u = 0; u < units; ++u) {
      float acc = w.bias.empty() ? 0.0f : w.bias[u];
      for (std::size_t r = 0; r < rank; ++r) acc += filtered[u * rank + r];
      o[u] = acc;
    }
    rk::apply_fused_activation(o, units, io.scalar<std::int32_t>(6));
  }
  state.commit();
  out.commit();
}

inline void reference(const kernel_io& io) { run(io, nullptr, rk::path::reference); }

inline types::result<kernel> bind(const bind_context& c) {
  if (c.in[0].type != OperandType::TENSOR_FLOAT32 && c.in[0].type != OperandType::TENSOR_FLOAT16)
    return unsupported(c);
  std::shared_ptr<const weights> w;
  bool constant = true;
  for (std::size_t i : {1u, 2u, 3u})
    if (!c.in[i].omitted && !c.in[i].value) constant = false;
  if (constant) w = std::make_shared<const weights>(make_weights(c.in, true));
  return kernel{[w](const kernel_io& io) { run(io, w, rk::path::gemm); }};
}

}  // namespace nnhal::ops::svdf
