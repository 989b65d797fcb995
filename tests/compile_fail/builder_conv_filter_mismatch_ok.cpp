// Control for builder_conv_filter_mismatch.cpp: the same call with an f32 filter compiles.
#include "nnhal/types/builder.hpp"

namespace t = nnhal::types;

void build(t::builder& b, t::tensor<t::f32> x, t::tensor<t::f32> w, t::tensor<t::f32> bias) {
  (void)b.conv_2d(x, w, bias);
}
