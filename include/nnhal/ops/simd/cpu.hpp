// What the CPU running the driver can do, read once, and what kernels may use of it.
// Kernels choose their ISA from cpu() at prepare (bind), never per element; on non-x86
// builds every x86 feature reads false.
#pragma once

#include <atomic>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif
#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

/// 1 (the default): nnhal asks Linux for the AMX tile state when the CPU has AMX (see
/// detail::amx_int8_usable); 0: never, and no AMX kernels.
#ifndef NNHAL_AMX
#define NNHAL_AMX 1
#endif

namespace nnhal::simd {

struct cpu_features {
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;
  bool avx512 = false;       // F + BW + DQ + VL: what nnhal's AVX-512 kernels use
  bool avx512_vnni = false;
  bool avx512_vbmi = false;  // byte permutes (vpermb, vpermt2b): 8-bit table lookups
  bool avx_vnni = false;     // vpdpbusd on ymm without AVX-512 (AVX-VNNI, with AVX2)
  bool amx_int8 = false;     // AMX tiles with int8 dot products, the OS letting this process use them
};

namespace detail {
/// Whether this process may use the AMX tile registers: the CPU has AMX-TILE and
/// AMX-INT8 (CPUID leaf 7, EDX bits 24 and 25), the OS saves their state (XCR0 bits 17
/// and 18) and, on Linux, grants this process the tile data state (arch_prctl
/// ARCH_REQ_XCOMP_PERM, asked once: a process-wide permission, after which every thread
/// may configure tiles). Linux before 5.16 has no such request, and no AMX then. The
/// permission has a cost for the whole process: signal frames grow by the tile state
/// (about 8 KiB), so the kernel refuses later sigaltstack() calls with smaller stacks, and
/// grants the permission only if none installed so far is smaller. A driver whose host
/// process cannot afford that builds with NNHAL_AMX defined to 0: nnhal then never asks.
inline bool amx_int8_usable() noexcept {
#if NNHAL_AMX && defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__))
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  if (((edx >> 24) & 1u) == 0 || ((edx >> 25) & 1u) == 0) return false;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || ((ecx >> 27) & 1u) == 0) return false;  // OSXSAVE
  unsigned xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if (((xcr0_lo >> 17) & 3u) != 3u) return false;
  constexpr long arch_req_xcomp_perm = 0x1023, xfeature_xtiledata = 18;
  return syscall(SYS_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) == 0;
#else
  return false;
#endif
}
}  // namespace detail

/// What the CPU itself can do, detected once.
inline const cpu_features& detected_cpu() noexcept {
  static const cpu_features f = [] {
    cpu_features c;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    c.avx2 = __builtin_cpu_supports("avx2");
    c.fma = __builtin_cpu_supports("fma");
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    // F16C: CPUID leaf 1, ECX bit 29 (read directly: clang 14's __builtin_cpu_supports
    // does not know it).
    c.f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && ((ecx >> 29) & 1u);
    c.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    c.avx512_vnni = c.avx512 && __builtin_cpu_supports("avx512vnni");
    c.avx512_vbmi = c.avx512 && __builtin_cpu_supports("avx512vbmi");
    // AVX-VNNI: CPUID leaf 7 subleaf 1, EAX bit 4 (read directly: not every compiler's
    // __builtin_cpu_supports knows it). Its ymm state is AVX2's, checked above.
    c.avx_vnni = c.avx2 && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && ((eax >> 4) & 1u);
    // The AMX kernels also use AVX-512 VNNI (their epilogues and the rows AMX does not take).
    c.amx_int8 = c.avx512_vnni && detail::amx_int8_usable();
#endif
    return c;
  }();
  return f;
}

namespace detail {
/// The features kernels may use, one bit per cpu_features member (all allowed at start).
inline std::atomic<unsigned>& allowed_bits() noexcept {
  static std::atomic<unsigned> bits{~0u};
  return bits;
}
}  // namespace detail

/// The features kernels bind for: detected_cpu() less what allow_only() took away. Read
/// at prepare (bind), and by a few kernels at execution too.
inline cpu_features cpu() noexcept {
  const unsigned a = detail::allowed_bits().load(std::memory_order_relaxed);
  cpu_features c = detected_cpu();
  c.avx2 = c.avx2 && (a & 1u);
  c.fma = c.fma && (a & 2u);
  c.f16c = c.f16c && (a & 4u);
  c.avx512 = c.avx512 && (a & 8u);
  c.avx512_vnni = c.avx512 && c.avx512_vnni && (a & 16u);
  c.avx512_vbmi = c.avx512 && c.avx512_vbmi && (a & 32u);
  c.avx_vnni = c.avx2 && c.avx_vnni && (a & 64u);
  c.amx_int8 = c.avx512_vnni && c.amx_int8 && (a & 128u);
  return c;
}

/// Restricts kernels to the features set in `allowed` (those the CPU also has), e.g. to
/// run and test the kernels of a CPU without AVX-512 on any machine: the portable ones,
/// xsimd for the build's instruction set (so a build with AVX-512 -m flags still uses
/// AVX-512 instructions there). allow_only(cpu_features{}) leaves the portable paths only;
/// allow_only(detected_cpu()) undoes any restriction. Call it while no model is being
/// prepared or executed: a kernel may read cpu() more than once per execution.
inline void allow_only(const cpu_features& allowed) noexcept {
  const unsigned a = (allowed.avx2 ? 1u : 0u) | (allowed.fma ? 2u : 0u) | (allowed.f16c ? 4u : 0u) |
                     (allowed.avx512 ? 8u : 0u) | (allowed.avx512_vnni ? 16u : 0u) |
                     (allowed.avx512_vbmi ? 32u : 0u) | (allowed.avx_vnni ? 64u : 0u) |
                     (allowed.amx_int8 ? 128u : 0u);
  detail::allowed_bits().store(a, std::memory_order_relaxed);
}

/// The features of a CPU with AVX2, FMA and F16C but no AVX-512 nor AVX-VNNI (most x86
/// CPUs before 2020, and many since): allow_only(avx2_only()) binds its kernels on a CPU
/// with AVX-512.
constexpr cpu_features avx2_only() noexcept {
  cpu_features c;
  c.avx2 = c.fma = c.f16c = true;
  return c;
}

}  // namespace nnhal::simd

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NNHAL_HAVE_X86_KERNELS 1
/// Marks a function compiled for AVX-512 (F/BW/DQ/VL) whatever the TU's -m flags are;
/// call it only when simd::cpu().avx512 is true.
#define NNHAL_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
/// AVX2 with FMA (no AVX-512): call it only when simd::cpu().avx2 and fma are both true.
#define NNHAL_TARGET_AVX2_FMA __attribute__((target("avx2,fma")))
/// AVX-512 plus VNNI (vpdpbusd); call it only when simd::cpu().avx512_vnni is true.
#define NNHAL_TARGET_AVX512_VNNI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni")))
/// AVX-512 plus VBMI (byte permutes); call it only when simd::cpu().avx512_vbmi is true.
#define NNHAL_TARGET_AVX512_VBMI __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi")))
/// AVX-512 plus VNNI and VBMI; call it only when simd::cpu().avx512_vnni and avx512_vbmi
/// are both true (kernels keep a plain NNHAL_TARGET_AVX512_VNNI form for the others).
#define NNHAL_TARGET_AVX512_VNNI_VBMI \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,avx512vbmi")))
/// AVX-512 plus VNNI and the AMX tiles; call it only when simd::cpu().amx_int8 is true.
#define NNHAL_TARGET_AMX \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vnni,amx-tile,amx-int8")))

namespace nnhal::simd {
/// Ends the AVX or AVX-512 function that declares it (first thing in its body) with
/// vzeroupper on every return. Compilers add one where a function leaves the upper halves
/// of ymm0-15/zmm0-15 in use, but GCC 12 leaves it out after a call to a function taking
/// vector arguments; code compiled without AVX that runs next then pays for every SSE
/// instruction (a float32 3x3 depthwise pass returning so into its generic row loop:
/// 112x112x32 0.41 -> 0.18 ms, one core). tests/tools/check_vzeroupper.py finds the
/// functions that need one.
struct upper_clean {
  upper_clean() = default;
  upper_clean(const upper_clean&) = delete;
  upper_clean& operator=(const upper_clean&) = delete;
  [[gnu::always_inline]] __attribute__((target("avx"))) inline ~upper_clean() { __builtin_ia32_vzeroupper(); }
};
}  // namespace nnhal::simd
#else
#define NNHAL_HAVE_X86_KERNELS 0
#endif
