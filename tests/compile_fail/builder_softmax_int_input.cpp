// expect: SOFTMAX: in::input must be f32, f16, qu8 or qs8
// SOFTMAX has no TENSOR_INT32 row, so the typed builder does not compile it.
#include "nnhal/types/builder.hpp"

namespace t = nnhal::types;

void build(t::builder& b, t::tensor<t::i32> x) { (void)b.softmax(x); }
