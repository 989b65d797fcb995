// The out-of-line shape inference of every operation signature, for builds that define
// NNHAL_PRECOMPILED_FAMILIES (see types/signature.hpp and ops/precompiled.hpp). Include
// this in exactly one TU of such a build; other TUs only declare these functions.
#pragma once

#include <array>
#include <utility>

#include "nnhal/types/operations.hpp"

#if !defined(NNHAL_PRECOMPILED_FAMILIES)
#error "types/precompiled_signatures.hpp is for NNHAL_PRECOMPILED_FAMILIES builds"
#endif

namespace nnhal::types::sig {

template <class S>
result<shapes> precompiled::inference<S>::infer(const infer_context& c) {
  return direct_infer_of<S>()(c);
}
template <class S>
status precompiled::inference<S>::infer_into(const infer_context& c, shapes& out) {
  return direct_infer_into_of<S>()(c, out);
}

namespace detail {
// Taking every signature's address here instantiates (and emits) its definitions.
template <class... S>
constexpr auto precompiled_inference(signature_list<S...>) {
  return std::array<std::pair<infer_fn, infer_into_fn>, sizeof...(S)>{{{infer_of<S>(), infer_into_of<S>()}...}};
}
[[gnu::used]] inline constexpr auto precompiled_inference_table = precompiled_inference(all_signatures{});
}  // namespace detail

}  // namespace nnhal::types::sig
