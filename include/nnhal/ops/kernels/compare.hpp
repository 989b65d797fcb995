// Broadcasting element-wise loops whose per-lane functor maps two stored input values
// straight to a stored output value, so the output element type may differ from the
// inputs' (EQUAL ... LESS_EQUAL: any -> TENSOR_BOOL8) and no activation is read
// (MAXIMUM, MINIMUM, POW, PRELU, LOGICAL_AND, LOGICAL_OR). Also the six comparisons.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/binary.hpp"
#include "nnhal/ops/kernels/broadcast.hpp"
#include "nnhal/types/signatures/equal.hpp"

namespace nnhal::ops::kernels {

// Shape inference (types/signatures/equal.hpp) admits no rank the broadcast walk cannot take.
static_assert(types::sig::detail::max_broadcast_rank <= max_broadcast_rank);

/// out = f(a, b) over the broadcast of inputs 0 and 1 (element In) into output 0
/// (element Out); f takes two `In::storage` values and returns an `Out::storage`.
/// Zero-sized outputs touch no memory.
template <types::element In, types::element Out, class F>
void binary_map(const kernel_io& io, F f) {
  using SI = typename In::storage;
  using SO = typename Out::storage;
  const auto a = io.input<In>(0);
  const auto b = io.input<In>(1);
  auto o = io.output<Out>(0);
  for_each_broadcast_run(o.dims, a.dims, b.dims,
                         [&](std::size_t oo, std::size_t ao, std::size_t as, std::size_t bo, std::size_t bs, std::size_t n) {
                           const SI* pa = a.data + ao;
                           const SI* pb = b.data + bo;
                           SO* po = o.data + oo;
                           // Unit strides get their own loop so the compiler can vectorize it.
                           if (as == 1 && bs == 1) {
                             for (std::size_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
                           } else {
                             for (std::size_t i = 0; i < n; ++i) po[i] = f(pa[i * as], pb[i * bs]);
                           }
                         });
}

/// Index of a stored 8-bit value in a 256-entry table: its offset from the type's minimum,
/// which is also the value of its TENSOR_QUANT8_ASYMM twin (signed value + 128).
template <class S>
constexpr std::size_t byte_index(S v) noexcept {
  static_assert(sizeof(S) == 1);
  return static_cast<std::size_t>(static_cast<int>(v) - std::numeric_limits<S>::min());
}

enum class comparison : std::uint8_t { equal, not_equal, greater, greater_equal, less, less_equal };

template <comparison C, class T>
constexpr bool compare(T a, T b) noexcept {
  if constexpr (C == comparison::equal) return a == b;
  else if constexpr (C == comparison::not_equal) return a != b;
  else if constexpr (C == comparison::greater) return a > b;
  else if constexpr (C == comparison::greater_equal) return a >= b;
  else if constexpr (C == comparison::less) return a < b;
  else return a <= b;
}

/// The real value of each of the 256 stored values of a quant8 operand, computed as the
/// AOSP CPU path does: (q - zeroPoint) * scale in float arithmetic.
using real_table = std::array<float, 256>;

template <class S>
real_table make_real_table(float scale, std::int32_t zero_point) noexcept {
  real_table t{};
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::int32_t q = static_cast<std::int32_t>(i) + std::numeric_limits<S>::min();
    t[i] = static_cast<float>(q - zero_point) * scale;
  }
  return t;
}

/// What a quant8 comparison precomputes at prepare: one real-value table per input.
struct compare_tables {
  real_table a{}, b{};
};

/// Comparison of inputs 0 and 1 into a TENSOR_BOOL8 output (1 or 0). Floats compare as
/// IEEE values (NaN is unordered), TENSOR_BOOL8 inputs as truth values (any non-zero
/// byte is true), quant8 inputs by their real values (their scales and zero points may
/// differ), int32 exactly.
template <comparison C, types::element E>
void compare_reference(const kernel_io& io, const compare_tables* t) {
  using S = typename E::storage;
  auto to_bool8 = [](bool v) { return static_cast<types::bool8>(v ? 1 : 0); };
  if constexpr (types::float_element<E>) {
    binary_map<E, types::b8>(io, [&](S x, S y) { return to_bool8(compare<C>(load_float(x), load_float(y))); });
  } else if constexpr (types::quantized_element<E>) {
    const real_table& ta = t->a;
    const real_table& tb = t->b;
    binary_map<E, types::b8>(io, [&](S x, S y) { return to_bool8(compare<C>(ta[byte_index(x)], tb[byte_index(y)])); });
  } else if constexpr (std::is_same_v<E, types::b8>) {
    binary_map<E, types::b8>(io, [&](S x, S y) { return to_bool8(compare<C>(int{x != 0}, int{y != 0})); });
  } else {
    binary_map<E, types::b8>(io, [&](S x, S y) { return to_bool8(compare<C>(x, y)); });
  }
}

/// The kernel for comparison C with the operand types of `c` (any of the six rows); quant8
/// builds its real-value tables here, once.
template <comparison C>
types::result<kernel> bind_compare(const bind_context& c) {
  return bind_for<types::b8, types::f16, types::f32, types::i32, types::qu8, types::qs8>(
      c, c.in[0].type, [&c]<class E>(E) {
        if constexpr (types::quantized_element<E>) {
          using S = typename E::storage;
          auto t = std::make_shared<const compare_tables>(
              compare_tables{make_real_table<S>(c.in[0].scale, c.in[0].zero_point),
                             make_real_table<S>(c.in[1].scale, c.in[1].zero_point)});
          return kernel{[t](const kernel_io& io) { compare_reference<C, E>(io, t.get()); }};
        } else {
          return kernel{[](const kernel_io& io) { compare_reference<C, E>(io, nullptr); }};
        }
      });
}

}  // namespace nnhal::ops::kernels
