// Built with NNHAL_AMX=0 (and without the precompiled families, which are built with the
// default): nnhal must then never ask Linux for the AMX tile state, so the process keeps
// its small-signal-stack freedom. On a CPU with AMX the default build asks (conv_simd_test
// checks the AMX kernels are bound there); this one must not, which the kernel's
// permission bitmap (ARCH_GET_XCOMP_PERM, bit 18 for the tile data) shows.
#include <cstdio>

#include "nnhal/ops/simd/cpu.hpp"

#if NNHAL_AMX
#error "build this test with NNHAL_AMX=0"
#endif

int main() {
  const nnhal::simd::cpu_features& f = nnhal::simd::detected_cpu();
  if (f.amx_int8) {
    std::fprintf(stderr, "FAIL: amx_int8 detected with NNHAL_AMX=0\n");
    return 1;
  }
#if defined(__x86_64__) && defined(__linux__)
  unsigned long long permitted = 0;
  constexpr long arch_get_xcomp_perm = 0x1022;
  if (syscall(SYS_arch_prctl, arch_get_xcomp_perm, &permitted) == 0 && ((permitted >> 18) & 1u)) {
    std::fprintf(stderr, "FAIL: the process holds the AMX tile data permission (0x%llx)\n", permitted);
    return 1;
  }
  std::printf("ok: no AMX permission asked for (permitted features 0x%llx)\n", permitted);
#endif
  return 0;
}
