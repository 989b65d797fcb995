// Shape rules shared by the recurrent operations (LSTM, UNIDIRECTIONAL_SEQUENCE_LSTM,
// BIDIRECTIONAL_SEQUENCE_LSTM, RNN, UNIDIRECTIONAL_SEQUENCE_RNN, BIDIRECTIONAL_SEQUENCE_RNN,
// SVDF): operand shape checks that name the operand, the presence of optional inputs, and
// the check of one LSTM weight set (the same rules for LSTM and for each direction of the
// sequence LSTMs, as the AOSP CPU path applies them).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "nnhal/types/shape.hpp"
#include "nnhal/types/signature.hpp"
#include "nnhal/types/signatures/detail_checks.hpp"
#include "nnhal/types/signatures/detail_axis_norm.hpp"

namespace nnhal::types::sig::detail::recurrent {

using extent = std::optional<std::uint32_t>;  // nullopt: not known (yet)

/// A derived extent: at validation 0 means unknown.
inline extent known(std::uint32_t v, bool executing) noexcept {
  return executing || v != 0 ? extent{v} : std::nullopt;
}
/// Extent `i` of `d`, when the rank allows it and it is known.
inline extent dim(const operand_desc& d, std::size_t i, bool executing) noexcept {
  return i < d.dims.size() ? known(d.dims[i], executing) : std::nullopt;
}

/// Whether an optional input takes part: at execution exactly; at validation an omitted
/// operand is absent, a constant present, anything else (a model input, which the request
/// may leave without a value) unknown.
enum class presence : std::uint8_t { absent, present, unknown };
inline presence presence_of(const operand_desc& d, bool executing) noexcept {
  if (d.omitted) return presence::absent;
  return executing || d.has_value() ? presence::present : presence::unknown;
}

/// `d` has rank want.size() and each known extent matches (nullopt in `want`: any). At
/// validation an unknown rank or extent passes.
inline status expect_shape(const operand_desc& d, std::string_view role, std::initializer_list<extent> want,
                           bool executing) {
  if (!executing && d.dims.empty()) return {};
  NNHAL_CHECK(d.dims.size() == want.size(), ErrorStatus::INVALID_ARGUMENT, role, ": rank ", d.dims.size(),
              " but must be ", want.size());
  std::size_t i = 0;
  for (const extent& w : want) {
    const extent got = known(d.dims[i], executing);
    NNHAL_CHECK(!w || !got || *w == *got, ErrorStatus::INVALID_ARGUMENT, role, ": shape ",
                format_dims(d.dims, !executing), " but dimension ", i, " must be ", w.value_or(0));
    ++i;
  }
  return {};
}
/// The same for an optional input, checked only when it is known to be present.
inline status expect_optional_shape(const operand_desc& d, std::string_view role, std::initializer_list<extent> want,
                                    bool executing) {
  if (presence_of(d, executing) != presence::present) return {};
  return expect_shape(d, role, want, executing);
}

/// A FLOAT32 / FLOAT16 scalar that must be >= 0 (a clipping threshold; 0 disables it).
inline status check_clip(const operand_desc& d, std::string_view role) {
  if (auto v = axis_norm::float_scalar(d))
    NNHAL_CHECK(*v >= 0.0f, ErrorStatus::INVALID_ARGUMENT, role, ": ", *v, " must be >= 0 (0 disables clipping)");
  return {};
}

/// The LSTM cell activation g: 0 none, 1 relu, 3 relu6, 4 tanh, 6 sigmoid.
inline bool is_lstm_activation(std::int32_t a) noexcept { return a == 0 || a == 1 || a == 3 || a == 4 || a == 6; }
inline status check_lstm_activation(const operand_desc& d, std::string_view role) {
  if (auto a = d.scalar<std::int32_t>())
    NNHAL_CHECK(is_lstm_activation(*a), ErrorStatus::INVALID_ARGUMENT, role, ": ", *a,
                " is not 0 (none), 1 (relu), 3 (relu6), 4 (tanh) or 6 (sigmoid)");
  return {};
}

/// A BOOL scalar's value when known.
inline std::optional<bool> bool_scalar(const operand_desc& d) noexcept {
  if (auto b = d.scalar<std::uint8_t>()) return *b != 0;
  return std::nullopt;
}

/// [a, b, c] with the first two swapped unless time-major: the layout of a sequence output
/// ([max_time, batch, n] or [batch, max_time, n]).
inline dims_t sequence_dims(std::uint32_t time, std::uint32_t batch, std::uint32_t n, bool time_major) {
  return time_major ? dims_t{time, batch, n} : dims_t{batch, time, n};
}

/// Input indexes of one LSTM weight set (-1: the form has no such input).
struct lstm_slots {
  int input_to[4];      // gate order: input, forget, cell, output
  int recurrent_to[4];
  int cell_to[3];       // peephole: input, forget, output
  int bias[4];
  int projection_weights, projection_bias;
  int layer_norm[4];
  int aux_to[4];
  int output_state, cell_state;
  std::string_view prefix;  // "fw_" / "bw_" for the bidirectional operation
};

/// What the checks learned about one weight set (nullopt: not known at validation).
struct lstm_shape {
  extent n_cell, n_output;
  std::optional<bool> cifg;
};

/// Checks one LSTM weight set against its input [.., batch, n_input] and, when present,
/// its auxiliary input of `n_aux` features (AOSP LSTMCell::CheckInputTensorDimensions,
/// plus the state inputs against the batch). Consistency rules between optional inputs
/// (CIFG, peephole, projection, layer normalization) are checked once every presence is
/// known, i.e. at execution or for models whose optional inputs are all constants or omitted.
inline result<lstm_shape> check_lstm_weights(std::span<const operand_desc> in, const lstm_slots& s, extent batch,
                                             extent n_input, extent n_aux, bool has_aux_weights, bool executing) {
  static constexpr std::string_view gate[4] = {"input", "forget", "cell", "output"};
  static constexpr std::string_view peep[3] = {"input", "forget", "output"};
  const auto name = [&](std::string_view a, std::string_view b, std::string_view c) {
    return str_cat(s.prefix, a, b, c);
  };
  const auto at = [&](int i) -> const operand_desc& { return in[static_cast<std::size_t>(i)]; };
  const bool ex = executing;
  lstm_shape r;
  const operand_desc& i2o = at(s.input_to[3]);
  const operand_desc& r2o = at(s.recurrent_to[3]);
  NNHAL_TRY(expect_shape(i2o, name("input_to_output_weights", "", ""), {std::nullopt, n_input}, ex));
  NNHAL_TRY(expect_shape(r2o, name("recurrent_to_output_weights", "", ""), {dim(i2o, 0, ex), std::nullopt}, ex));
  r.n_cell = dim(i2o, 0, ex);
  if (!r.n_cell) r.n_cell = dim(r2o, 0, ex);
  r.n_output = dim(r2o, 1, ex);
  const extent nc = r.n_cell, no = r.n_output;

  for (int g = 1; g < 3; ++g) {
    NNHAL_TRY(expect_shape(at(s.input_to[g]), name("input_to_", gate[g], "_weights"), {nc, n_input}, ex));
    NNHAL_TRY(expect_shape(at(s.recurrent_to[g]), name("recurrent_to_", gate[g], "_weights"), {nc, no}, ex));
  }
  for (int g = 1; g < 4; ++g)
    NNHAL_TRY(expect_shape(at(s.bias[g]), name(gate[g], g == 2 ? "_bias" : "_gate_bias", ""), {nc}, ex));
  NNHAL_TRY(expect_optional_shape(at(s.input_to[0]), name("input_to_input_weights", "", ""), {nc, n_input}, ex));
  NNHAL_TRY(expect_optional_shape(at(s.recurrent_to[0]), name("recurrent_to_input_weights", "", ""), {nc, no}, ex));
  NNHAL_TRY(expect_optional_shape(at(s.bias[0]), name("input_gate_bias", "", ""), {nc}, ex));
  for (int p = 0; p < 3; ++p)
    NNHAL_TRY(expect_optional_shape(at(s.cell_to[p]), name("cell_to_", peep[p], "_weights"), {nc}, ex));
  NNHAL_TRY(expect_optional_shape(at(s.projection_weights), name("projection_weights", "", ""), {no, nc}, ex));
  NNHAL_TRY(expect_optional_shape(at(s.projection_bias), name("projection_bias", "", ""), {no}, ex));
  if (s.layer_norm[0] >= 0)
    for (int g = 0; g < 4; ++g)
      NNHAL_TRY(expect_optional_shape(at(s.layer_norm[g]), name(gate[g], "_layer_norm_weights", ""), {nc}, ex));
  if (s.aux_to[0] >= 0 && has_aux_weights)
    for (int g = 0; g < 4; ++g)
      NNHAL_TRY(expect_optional_shape(at(s.aux_to[g]), name("aux_input_to_", gate[g], "_weights"), {nc, n_aux}, ex));
  NNHAL_TRY(expect_shape(at(s.output_state), s.prefix.empty() ? "output_state_in" : name("activation_state", "", ""),
                         {batch, no}, ex));
  NNHAL_TRY(expect_shape(at(s.cell_state), s.prefix.empty() ? "cell_state_in" : name("cell_state", "", ""),
                         {batch, nc}, ex));

  // Rules between optional inputs, once all their presences are known.
  const auto p = [&](int i) { return i < 0 ? presence::absent : presence_of(at(i), ex); };
  const auto all_known = [&](std::initializer_list<int> idx) {
    for (int i : idx)
      if (p(i) == presence::unknown) return false;
    return true;
  };
  const auto has = [&](int i) { return p(i) == presence::present; };
  if (all_known({s.input_to[0], s.recurrent_to[0]})) {
    NNHAL_CHECK(has(s.input_to[0]) == has(s.recurrent_to[0]), ErrorStatus::INVALID_ARGUMENT,
                name("input_to_input_weights", "", ""), " and ", name("recurrent_to_input_weights", "", ""),
                " must both be present or both omitted (CIFG)");
    r.cifg = !has(s.input_to[0]);
  }
  if (r.cifg && all_known({s.bias[0]}))
    NNHAL_CHECK(has(s.bias[0]) != *r.cifg, ErrorStatus::INVALID_ARGUMENT, name("input_gate_bias", "", ""),
                *r.cifg ? " must be omitted with CIFG (no input-to-input weights)" : " is required without CIFG");
  if (r.cifg && all_known({s.cell_to[0], s.cell_to[1], s.cell_to[2]})) {
    const bool any = has(s.cell_to[0]) || has(s.cell_to[1]) || has(s.cell_to[2]);
    const bool full = (has(s.cell_to[0]) || *r.cifg) && has(s.cell_to[1]) && has(s.cell_to[2]);
    NNHAL_CHECK(!any || full, ErrorStatus::INVALID_ARGUMENT, name("cell_to_", "*", "_weights"),
                ": the peephole weights must be all present (cell_to_input only without CIFG) or all omitted");
  }
  if (all_known({s.projection_weights, s.projection_bias}))
    NNHAL_CHECK(has(s.projection_weights) || !has(s.projection_bias), ErrorStatus::INVALID_ARGUMENT,
                name("projection_bias", "", ""), ": present without projection_weights");
  // Without a projection the cell output is the output state, so their sizes must agree.
  if (all_known({s.projection_weights}) && !has(s.projection_weights) && nc && no)
    NNHAL_CHECK(*nc == *no, ErrorStatus::INVALID_ARGUMENT, name("recurrent_to_output_weights", "", ""),
                ": output_size ", *no, " must equal num_units ", *nc, " without projection_weights");
  if (r.cifg && s.layer_norm[0] >= 0 &&
      all_known({s.layer_norm[0], s.layer_norm[1], s.layer_norm[2], s.layer_norm[3]})) {
    if (*r.cifg)
      NNHAL_CHECK(!has(s.layer_norm[0]), ErrorStatus::INVALID_ARGUMENT, name("input_layer_norm_weights", "", ""),
                  ": must be omitted with CIFG");
    const bool first = *r.cifg ? has(s.layer_norm[1]) : has(s.layer_norm[0]);
    for (int g = *r.cifg ? 1 : 0; g < 4; ++g)
      NNHAL_CHECK(has(s.layer_norm[g]) == first, ErrorStatus::INVALID_ARGUMENT, name(gate[g], "_layer_norm_weights", ""),
                  ": the layer normalization weights must be all present or all omitted");
  }
  if (r.cifg && has_aux_weights && s.aux_to[0] >= 0 && all_known({s.aux_to[0]}))
    NNHAL_CHECK(has(s.aux_to[0]) != *r.cifg, ErrorStatus::INVALID_ARGUMENT, name("aux_input_to_input_weights", "", ""),
                *r.cifg ? " must be omitted with CIFG" : " is required with auxiliary weights and without CIFG");
  return r;
}

/// One RNN weight set: weights [num_units, input_size], recurrent_weights [num_units,
/// num_units], bias [num_units], hidden state [batch, num_units]. Returns num_units.
struct rnn_slots {
  int weights, recurrent_weights, bias, hidden_state;
  std::string_view prefix;        // "fw_" / "bw_" or ""
  std::string_view hidden_name;   // the hidden state's role name
};
inline result<extent> check_rnn_weights(std::span<const operand_desc> in, const rnn_slots& s, extent batch,
                                        extent n_input, bool executing) {
  const auto at = [&](int i) -> const operand_desc& { return in[static_cast<std::size_t>(i)]; };
  const bool ex = executing;
  const operand_desc& w = at(s.weights);
  NNHAL_TRY(expect_shape(w, str_cat(s.prefix, "weights"), {std::nullopt, n_input}, ex));
  extent units = dim(w, 0, ex);
  if (!units) units = dim(at(s.bias), 0, ex);
  NNHAL_TRY(expect_shape(at(s.recurrent_weights), str_cat(s.prefix, "recurrent_weights"), {units, units}, ex));
  NNHAL_TRY(expect_shape(at(s.bias), str_cat(s.prefix, "bias"), {units}, ex));
  NNHAL_TRY(expect_shape(at(s.hidden_state), s.hidden_name, {batch, units}, ex));
  return units;
}

/// The bidirectional operations list bw_output only without merge_outputs, so their merged
/// forms have an odd output count (1, or 5 / 3 with the final states) and the separate forms
/// an even one. Returns whether the form is merged; the merge_outputs scalar must agree.
inline result<bool> merged_form(const operand_desc& merge_outputs, std::size_t outputs) {
  const bool merged = outputs % 2 == 1;
  if (auto m = bool_scalar(merge_outputs))
    NNHAL_CHECK(*m == merged, ErrorStatus::INVALID_ARGUMENT, "merge_outputs: ", *m ? "true" : "false",
                " but the operation has ", outputs, " outputs (", merged ? "no bw_output" : "a bw_output", ")");
  return merged;
}

}  // namespace nnhal::types::sig::detail::recurrent
