// expect: could not convert|no matching|cannot convert|no viable conversion
// A kernel for f32 tensors must not accept a qu8 view: element tags make views distinct types.
#include "nnhal/types/element.hpp"

namespace t = nnhal::types;

void kernel(t::tensor_view<const t::f32>) {}

void call(t::tensor_view<const t::qu8> in) { kernel(in); }
