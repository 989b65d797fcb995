// What the CPU running the driver can do, read once. Kernels choose their ISA from it at
// prepare (bind), never per element; on non-x86 builds every x86 feature reads false.
#pragma once

namespace nnhal::simd {

struct cpu_features {
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;
  bool avx512 = false;       // F + BW + DQ + VL: what nnhal's AVX-512 kernels use
  bool avx512_vnni = false;
  bool avx512_vbmi = false;  // byte permutes (vpermb, vpermt2b): 8-bit table lookups
};

inline const cpu_features& cpu() noexcept {
  static const cpu_features f = [] {
    cpu_features c;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    c.avx2 = __builtin_cpu_supports("avx2");
    c.fma = __builtin_cpu_supports("fma");
    c.f16c = __builtin_cpu_supports("f16c");
    c.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    c.avx512_vnni = c.avx512 && __builtin_cpu_supports("avx512vnni");
    c.avx512_vbmi = c.avx512 && __builtin_cpu_supports("avx512vbmi");
#endif
    return c;
  }();
  return f;
}

}  // namespace nnhal::simd

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NNHAL_HAVE_X86_KERNELS 1
/// Marks a function compiled for AVX-512 (F/BW/DQ/VL) whatever the TU's -m flags are;
/// call it only when simd::cpu().avx512 is true.
#define NNHAL_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
/// AVX-512 plus VNNI (vpdpbusd); call it only when simd::cpu().avx512_vnni is true.
#define NNHAL_TARGET_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")))
/// AVX-512 plus VBMI (byte permutes); call it only when simd::cpu().avx512_vbmi is true.
#define NNHAL_TARGET_AVX512_VBMI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi")))
/// AVX-512 plus VNNI and VBMI; call it only when simd::cpu().avx512_vnni and avx512_vbmi
/// are both true (kernels keep a plain NNHAL_TARGET_AVX512_VNNI form for the others).
#define NNHAL_TARGET_AVX512_VNNI_VBMI \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx512vbmi")))
#else
#define NNHAL_HAVE_X86_KERNELS 0
#endif
