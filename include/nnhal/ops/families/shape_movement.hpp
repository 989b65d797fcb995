// Kernel dispatch for the shape movement operations (SQUEEZE, EXPAND_DIMS, SPLIT, SLICE,
// STRIDED_SLICE, TRANSPOSE, TILE, GATHER, FILL, RANK, PACK, REVERSE, EMBEDDING_LOOKUP,
// HASHTABLE_LOOKUP); binds only its own operations and returns nullopt for any other.
#pragma once

#include <optional>

#include "nnhal/ops/embedding_lookup.hpp"
#include "nnhal/ops/expand_dims.hpp"
#include "nnhal/ops/fill.hpp"
#include "nnhal/ops/gather.hpp"
#include "nnhal/ops/hashtable_lookup.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/pack.hpp"
#include "nnhal/ops/rank.hpp"
#include "nnhal/ops/reverse.hpp"
#include "nnhal/ops/slice.hpp"
#include "nnhal/ops/split.hpp"
#include "nnhal/ops/squeeze.hpp"
#include "nnhal/ops/strided_slice.hpp"
#include "nnhal/ops/tile.hpp"
#include "nnhal/ops/transpose.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_shape_movement(const bind_context& c) {
  switch (c.op.type) {
    case types::OperationType::SQUEEZE: return squeeze::bind(c);
    case types::OperationType::EXPAND_DIMS: return expand_dims::bind(c);
    case types::OperationType::SPLIT: return split::bind(c);
    case types::OperationType::SLICE: return slice::bind(c);
    case types::OperationType::STRIDED_SLICE: return strided_slice::bind(c);
    case types::OperationType::TRANSPOSE: return transpose::bind(c);
    case types::OperationType::TILE: return tile::bind(c);
    case types::OperationType::GATHER: return gather::bind(c);
    case types::OperationType::FILL: return fill::bind(c);
    case types::OperationType::RANK: return rank::bind(c);
    case types::OperationType::PACK: return pack::bind(c);
    case types::OperationType::REVERSE: return reverse::bind(c);
    case types::OperationType::EMBEDDING_LOOKUP: return embedding_lookup::bind(c);
    case types::OperationType::HASHTABLE_LOOKUP: return hashtable_lookup::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
