// Test support: drives an execution (exec/execution.hpp) through its step interface on
// the calling thread, as the sync executor does, requiring every checkpoint and step to
// pass. Include it only from TUs that include the executor anyway.
#pragma once

#include <doctest/doctest.h>

#include "nnhal/exec/execution.hpp"

namespace nnhal::test {

/// Steps `e` until done; returns how many steps that took.
inline int run_all_steps(exec::execution& e, exec::parallel_context& par) {
  int steps = 0;
  while (!e.done()) {
    REQUIRE(e.checkpoint() == types::ErrorStatus::NONE);
    REQUIRE(e.step(par) == types::ErrorStatus::NONE);
    ++steps;
  }
  return steps;
}

}  // namespace nnhal::test
