// nnhal-demo placeholder: says what nnhal is and which version this is. The full demo,
// an example driver running a model, arrives with the example-driver issue.
#include <cstdio>

#include "nnhal/types/error.hpp"

#ifndef NNHAL_DEMO_VERSION
#error "examples/CMakeLists.txt defines NNHAL_DEMO_VERSION"
#endif

int main() {
  std::printf("nnhal %s: header-only C++20 building blocks for Android NN HAL 1.3 drivers\n",
              NNHAL_DEMO_VERSION);
  std::printf("(types and validation, SIMD kernels, coroutine executor, compilation cache)\n");
  const auto status = nnhal::types::to_string(nnhal::types::ErrorStatus::NONE);
  std::printf("headers found; ErrorStatus::%.*s. The full demo arrives with the example driver.\n",
              static_cast<int>(status.size()), status.data());
  return 0;
}
