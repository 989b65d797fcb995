// Kernel dispatch for the element-wise unary operations: math (ABS, EXP, LOG, NEG, RSQRT,
// SIN, SQRT, FLOOR), activations (RELU1, RELU6, LOGISTIC, TANH, ELU, HARD_SWISH) and
// conversions (CAST, QUANTIZE, DEQUANTIZE). Binds only its own operations and returns
// nullopt for any other. RELU shares these kernels but is bound by the foundation family.
#pragma once

#include <optional>

#include "nnhal/ops/abs.hpp"
#include "nnhal/ops/cast.hpp"
#include "nnhal/ops/dequantize.hpp"
#include "nnhal/ops/elu.hpp"
#include "nnhal/ops/exp.hpp"
#include "nnhal/ops/floor.hpp"
#include "nnhal/ops/hard_swish.hpp"
#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/log.hpp"
#include "nnhal/ops/logistic.hpp"
#include "nnhal/ops/neg.hpp"
#include "nnhal/ops/quantize.hpp"
#include "nnhal/ops/relu1.hpp"
#include "nnhal/ops/relu6.hpp"
#include "nnhal/ops/rsqrt.hpp"
#include "nnhal/ops/sin.hpp"
#include "nnhal/ops/sqrt.hpp"
#include "nnhal/ops/tanh.hpp"

namespace nnhal::ops::families {

inline std::optional<types::result<kernel>> bind_elementwise_unary(const bind_context& c) {
  using types::OperationType;
  switch (c.op.type) {
    case OperationType::ABS: return abs::bind(c);
    case OperationType::EXP: return exp::bind(c);
    case OperationType::LOG: return log::bind(c);
    case OperationType::NEG: return neg::bind(c);
    case OperationType::RSQRT: return rsqrt::bind(c);
    case OperationType::SIN: return sin::bind(c);
    case OperationType::SQRT: return sqrt::bind(c);
    case OperationType::FLOOR: return floor::bind(c);
    case OperationType::RELU1: return relu1::bind(c);
    case OperationType::RELU6: return relu6::bind(c);
    case OperationType::LOGISTIC: return logistic::bind(c);
    case OperationType::TANH: return tanh::bind(c);
    case OperationType::ELU: return elu::bind(c);
    case OperationType::HARD_SWISH: return hard_swish::bind(c);
    case OperationType::CAST: return cast::bind(c);
    case OperationType::QUANTIZE: return quantize::bind(c);
    case OperationType::DEQUANTIZE: return dequantize::bind(c);
    default: return std::nullopt;
  }
}

}  // namespace nnhal::ops::families
