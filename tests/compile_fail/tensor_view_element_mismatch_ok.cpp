// Control for tensor_view_element_mismatch.cpp: the same call with the right element tag
// compiles, so that test fails because of the tag and not because of the harness.
#include "nnhal/types/element.hpp"

namespace t = nnhal::types;

void kernel(t::tensor_view<const t::f32>) {}

void call(t::tensor_view<const t::f32> in) { kernel(in); }
