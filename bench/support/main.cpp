// Benchmark main: measures the machine's peaks first and puts them into the context
// block of the report (console and --benchmark_format=json alike).
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/ops/kernels/gemm_avx512.hpp"
#include "nnhal/ops/simd/cpu.hpp"
#include "support/machine.hpp"

namespace nnhal::bench {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double measure_copy(std::size_t bytes) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
  double best = 0;
  for (int trial = 0; trial < 5; ++trial) {
    const std::size_t reps = std::max<std::size_t>(1, (std::size_t{256} << 20) / bytes);
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t r = 0; r < reps; ++r) {
      std::memcpy(r % 2 ? a.data() : b.data(), r % 2 ? b.data() : a.data(), bytes);
      benchmark::ClobberMemory();
    }
    best = std::max(best, 2.0 * static_cast<double>(bytes * reps) / seconds_since(t0));
  }
  return best;
}

// The arithmetic peaks: 16 independent chains (zmm16..zmm31) of one instruction, more
// than latency x ports on current cores. Written as assembly: with the accumulators in a C++
// array GCC shuffled them through extra moves and a stack slot each iteration, and the
// vpdpbusd loop measured half of what a GEMM here reaches.
#define NNHAL_CHAINS16(op)                                                                                      \
  op " %[b], %[a], %%zmm16\n\t" op " %[b], %[a], %%zmm17\n\t" op " %[b], %[a], %%zmm18\n\t" op            \
     " %[b], %[a], %%zmm19\n\t" op " %[b], %[a], %%zmm20\n\t" op " %[b], %[a], %%zmm21\n\t" op             \
     " %[b], %[a], %%zmm22\n\t" op " %[b], %[a], %%zmm23\n\t" op " %[b], %[a], %%zmm24\n\t" op             \
     " %[b], %[a], %%zmm25\n\t" op " %[b], %[a], %%zmm26\n\t" op " %[b], %[a], %%zmm27\n\t" op             \
     " %[b], %[a], %%zmm28\n\t" op " %[b], %[a], %%zmm29\n\t" op " %[b], %[a], %%zmm30\n\t" op             \
     " %[b], %[a], %%zmm31\n\t"
#define NNHAL_HIGH_ZMM \
  "zmm16", "zmm17", "zmm18", "zmm19", "zmm20", "zmm21", "zmm22", "zmm23", "zmm24", "zmm25", "zmm26", "zmm27", \
      "zmm28", "zmm29", "zmm30", "zmm31"

constexpr long peak_iters = 20'000'000;

/// One core's float32 FMA flops per second (2 per lane).
__attribute__((target("avx512f"))) double measure_fma_avx512() {
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  const __m512i zero = _mm512_setzero_si512();  // chains start at 0 (then stay finite)
  asm volatile(NNHAL_CHAINS16("vpxord") : : [a] "v"(zero), [b] "v"(zero) : NNHAL_HIGH_ZMM);
  const auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < peak_iters; ++k) asm volatile(NNHAL_CHAINS16("vfmadd231ps") : : [a] "v"(a), [b] "v"(b) : NNHAL_HIGH_ZMM);
  return static_cast<double>(peak_iters) * 16 * 16 * 2 / seconds_since(t0);
}

/// One core's vpdpbusd ops per second (2 per u8 x s8 product, 64 products per instruction).
__attribute__((target("avx512f,avx512bw,avx512vnni"))) double measure_vnni_avx512() {
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  const auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < peak_iters; ++k) asm volatile(NNHAL_CHAINS16("vpdpbusd") : : [a] "v"(a), [b] "v"(b) : NNHAL_HIGH_ZMM);
  return static_cast<double>(peak_iters) * 16 * 64 * 2 / seconds_since(t0);
}

/// One core's AMX int8 ops per second: tdpbusd into four tiles of 16 x 16 int32 sums from
/// 16 x 64 bytes times 16 x 64 bytes (16384 products, 2 ops each), in the AMX GEMM's own
/// tile configuration (amx_config with chunks of 64). Call only when simd::cpu().amx_int8
/// is true (the OS lets the process use the tiles).
double measure_amx_int8() {
  namespace av = nnhal::ops::kernels::conv::avx512;
  const av::amx_tile_config config = av::amx_config(64);
  av::amx_load_config(config);
  alignas(64) static std::uint8_t operand[16 * 64];
  asm volatile("tileloadd (%0,%1,1), %%tmm4\n\ttileloadd (%0,%1,1), %%tmm6" ::"r"(operand), "r"(64L) : "memory");
  const long iters = peak_iters / 16;
  const auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < iters; ++k)
    asm volatile(
        "tdpbusd %%tmm6, %%tmm4, %%tmm0\n\ttdpbusd %%tmm6, %%tmm4, %%tmm1\n\t"
        "tdpbusd %%tmm6, %%tmm4, %%tmm2\n\ttdpbusd %%tmm6, %%tmm4, %%tmm3" ::);
  const double seconds = seconds_since(t0);
  av::amx_release();
  return static_cast<double>(iters) * 4 * 16384 * 2 / seconds;
}

#undef NNHAL_CHAINS16
#undef NNHAL_HIGH_ZMM

}  // namespace

const machine_peaks& peaks() {
  static const machine_peaks p = [] {
    machine_peaks m;
    m.copy_l2_bytes_per_s = measure_copy(std::size_t{64} << 10);
    m.copy_mid_bytes_per_s = measure_copy(std::size_t{2} << 20);
    m.copy_dram_bytes_per_s = measure_copy(std::size_t{64} << 20);
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) m.fma_f32_flops = measure_fma_avx512();
    if (__builtin_cpu_supports("avx512vnni")) m.vnni_int8_ops = measure_vnni_avx512();
    if (nnhal::simd::detected_cpu().amx_int8) m.amx_int8_ops = measure_amx_int8();
    return m;
  }();
  return p;
}

}  // namespace nnhal::bench

int main(int argc, char** argv) {
  // --nnhal_portable: nnhal binds the kernels of a CPU without AVX-512 (the xsimd ones,
  // for this build's -m flags), to measure what such machines get; --nnhal_avx2: those of
  // a CPU with AVX2 and FMA but no AVX-512 (--nnhal_avx_vnni: and with AVX-VNNI).
  // --nnhal_no_amx: the kernels of this CPU without its AMX tiles (quant8 GEMMs on AVX-512
  // VNNI). --nnhal_streaming_bytes=N: outputs of N bytes or more are written with
  // streaming stores (ops::streaming_output_bytes, a tuning knob).
  bool portable = false, avx2 = false, avx_vnni = false, no_amx = false;
  int kept = 1;
  constexpr std::string_view streaming = "--nnhal_streaming_bytes=";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--nnhal_portable") {
      portable = true;
    } else if (arg == "--nnhal_avx2") {
      avx2 = true;
    } else if (arg == "--nnhal_avx_vnni") {
      avx2 = avx_vnni = true;
    } else if (arg == "--nnhal_no_amx") {
      no_amx = true;
    } else if (arg.starts_with(streaming)) {
      std::size_t bytes = 0;
      const auto digits = arg.substr(streaming.size());
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bytes);
      if (ec != std::errc{} || end != digits.data() + digits.size()) {
        std::fprintf(stderr, "%s: not a byte count\n", argv[i]);
        return 1;
      }
      nnhal::ops::streaming_output_bytes.store(bytes);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  if (portable) nnhal::simd::allow_only(nnhal::simd::cpu_features{});
  nnhal::simd::cpu_features ymm = nnhal::simd::avx2_only();
  ymm.avx_vnni = avx_vnni;
  if (!portable && avx2) nnhal::simd::allow_only(ymm);
  if (!portable && !avx2 && no_amx) {
    nnhal::simd::cpu_features all = nnhal::simd::detected_cpu();
    all.amx_int8 = false;
    nnhal::simd::allow_only(all);
  }
  benchmark::AddCustomContext("nnhal_kernels", portable                           ? "portable (AVX-512 off)"
                                               : avx_vnni && nnhal::simd::cpu().avx_vnni ? "AVX2 + FMA + AVX-VNNI (AVX-512 off)"
                                               : avx2                               ? "AVX2 + FMA (AVX-512 off)"
                                               : no_amx                             ? "best for this CPU without AMX"
                                                                                    : "best for this CPU");
  const auto& p = nnhal::bench::peaks();
  benchmark::AddCustomContext("peak_copy_l2_GBps", std::to_string(p.copy_l2_bytes_per_s / 1e9));
  benchmark::AddCustomContext("peak_copy_mid_GBps", std::to_string(p.copy_mid_bytes_per_s / 1e9));
  benchmark::AddCustomContext("peak_copy_dram_GBps", std::to_string(p.copy_dram_bytes_per_s / 1e9));
  benchmark::AddCustomContext("peak_fma_f32_GFLOPs_1core", std::to_string(p.fma_f32_flops / 1e9));
  benchmark::AddCustomContext("peak_vnni_int8_GOPs_1core", std::to_string(p.vnni_int8_ops / 1e9));
  if (p.amx_int8_ops > 0) benchmark::AddCustomContext("peak_amx_int8_GOPs_1core", std::to_string(p.amx_int8_ops / 1e9));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
