// Every operation signature's shape inference, compiled once for the targets that link
// nnhal_families (see types/precompiled_signatures.hpp).
#include "nnhal/types/precompiled_signatures.hpp"
