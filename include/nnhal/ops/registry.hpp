// Kernel dispatch: from a validated operation's runtime operand types to a bound
// typed kernel, once, at prepare. Each operation family has one file in families/
// that binds its own operations; an operation or type combination none of them
// knows is reported unsupported, never guessed.
#pragma once

#include "nnhal/ops/families/foundation.hpp"
#include "nnhal/ops/families/elementwise_binary.hpp"
#include "nnhal/ops/families/elementwise_unary.hpp"
#include "nnhal/ops/families/shape_movement.hpp"
#include "nnhal/ops/families/shape_spatial.hpp"
#include "nnhal/ops/families/pooling_norm.hpp"
#include "nnhal/ops/families/reduction.hpp"
#include "nnhal/ops/families/conv.hpp"
#include "nnhal/ops/families/recurrent.hpp"
#include "nnhal/ops/families/quantized_recurrent.hpp"
#include "nnhal/ops/families/hashing_random.hpp"
#include "nnhal/ops/families/detection.hpp"
#include "nnhal/ops/kernel.hpp"

namespace nnhal::ops {

/// Binds the kernel for `c.op`; INVALID_ARGUMENT naming the op when there is none.
inline types::result<kernel> bind(const bind_context& c) {
  for (auto family : {&families::bind_foundation, &families::bind_elementwise_binary, &families::bind_elementwise_unary,
                      &families::bind_shape_movement, &families::bind_shape_spatial, &families::bind_pooling_norm,
                      &families::bind_reduction, &families::bind_conv,
                      &families::bind_recurrent, &families::bind_quantized_recurrent, &families::bind_hashing_random,
                      &families::bind_detection}) {
    if (auto k = family(c)) return std::move(*k);
  }
  return types::make_error(types::ErrorStatus::INVALID_ARGUMENT, to_string(c.op.type), ": operation not implemented");
}

}  // namespace nnhal::ops
