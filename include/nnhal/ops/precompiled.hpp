// Optional build-time split of the kernel registry. ops/registry.hpp normally includes
// every operation family and so instantiates every kernel in each translation unit that
// prepares a model (about 45 s of compile time per TU at -O2). A build that defines
// NNHAL_PRECOMPILED_FAMILIES gets only the declarations below from registry.hpp and
// compiles each family's binder once, in its own TU, with
//
//   #include "nnhal/ops/families/conv.hpp"
//   #include "nnhal/ops/precompiled.hpp"
//   NNHAL_DEFINE_PRECOMPILED_FAMILY(conv)
//
// (this tree's CMake generates those TUs into the nnhal_families library). The
// precompiled binders are distinct functions that forward to the inline
// families::bind_*, so a TU may still include a family header directly. Such a build
// also compiles every operation's shape inference once: one TU includes
// types/precompiled_signatures.hpp (see types/signature.hpp).
#pragma once

#include <optional>

#include "nnhal/ops/kernel.hpp"

/// Every operation family, in the order ops::bind() asks them.
#define NNHAL_OPERATION_FAMILIES(X)                                                                            \
  X(foundation) X(elementwise_binary) X(elementwise_unary) X(shape_movement) X(shape_spatial) X(pooling_norm) \
  X(reduction) X(conv) X(recurrent) X(quantized_recurrent) X(hashing_random) X(detection)

namespace nnhal::ops::precompiled {
#define NNHAL_DECLARE_PRECOMPILED_FAMILY(family) \
  std::optional<types::result<kernel>> bind_##family(const bind_context& c);
NNHAL_OPERATION_FAMILIES(NNHAL_DECLARE_PRECOMPILED_FAMILY)
#undef NNHAL_DECLARE_PRECOMPILED_FAMILY
}  // namespace nnhal::ops::precompiled

/// The out-of-line binder of one family; use in exactly one TU that includes its header.
#define NNHAL_DEFINE_PRECOMPILED_FAMILY(family)                                                 \
  std::optional<nnhal::types::result<nnhal::ops::kernel>> nnhal::ops::precompiled::bind_##family( \
      const nnhal::ops::bind_context& c) {                                                      \
    return nnhal::ops::families::bind_##family(c);                                              \
  }
