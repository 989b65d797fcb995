// expect: CONV_2D: in::filter / in::bias element types do not fit in::input
// The typed builder rejects a qu8 filter on an f32 CONV_2D at compile time, from the
// operation's signature table.
#include "nnhal/types/builder.hpp"

namespace t = nnhal::types;

void build(t::builder& b, t::tensor<t::f32> x, t::tensor<t::qu8> w, t::tensor<t::f32> bias) {
  (void)b.conv_2d(x, w, bias);
}
