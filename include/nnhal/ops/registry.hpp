// Kernel dispatch: from a validated operation's runtime operand types to a bound
// typed kernel, once, at prepare. Each operation family has one file in families/
// that binds its own operations; an operation or type combination none of them
// knows is reported unsupported, never guessed. With NNHAL_PRECOMPILED_FAMILIES the
// families are compiled elsewhere, once (see ops/precompiled.hpp).
#pragma once

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/precompiled.hpp"

#if !defined(NNHAL_PRECOMPILED_FAMILIES)
#include "nnhal/ops/families/conv.hpp"
#include "nnhal/ops/families/detection.hpp"
#include "nnhal/ops/families/elementwise_binary.hpp"
#include "nnhal/ops/families/elementwise_unary.hpp"
#include "nnhal/ops/families/foundation.hpp"
#include "nnhal/ops/families/hashing_random.hpp"
#include "nnhal/ops/families/pooling_norm.hpp"
#include "nnhal/ops/families/quantized_recurrent.hpp"
#include "nnhal/ops/families/recurrent.hpp"
#include "nnhal/ops/families/reduction.hpp"
#include "nnhal/ops/families/shape_movement.hpp"
#include "nnhal/ops/families/shape_spatial.hpp"
#endif

namespace nnhal::ops {

/// Binds the kernel for `c.op`; INVALID_ARGUMENT naming the op when there is none.
inline types::result<kernel> bind(const bind_context& c) {
#if defined(NNHAL_PRECOMPILED_FAMILIES)
#define NNHAL_FAMILY_BINDER(family) &precompiled::bind_##family,
#else
#define NNHAL_FAMILY_BINDER(family) &families::bind_##family,
#endif
  for (auto family : {NNHAL_OPERATION_FAMILIES(NNHAL_FAMILY_BINDER)}) {
    if (auto k = family(c)) return std::move(*k);
  }
#undef NNHAL_FAMILY_BINDER
  return types::make_error(types::ErrorStatus::INVALID_ARGUMENT, to_string(c.op.type), ": operation not implemented");
}

}  // namespace nnhal::ops
