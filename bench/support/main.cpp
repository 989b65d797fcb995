// Benchmark main: measures the machine's peaks first and puts them into the context
// block of the report (console and --benchmark_format=json alike).
#include <benchmark/benchmark.h>
#include <immintrin.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

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

// 16 independent FMA chains hide the FMA latency (4 cycles x 2 ports x 2).
__attribute__((target("avx512f"))) double measure_fma_avx512() {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  constexpr long iters = 20'000'000;
  const auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < iters; ++k)
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, c);
  const double s = seconds_since(t0);
  __m512 sum = acc[0];
  for (int i = 1; i < 16; ++i) sum = _mm512_add_ps(sum, acc[i]);
  benchmark::DoNotOptimize(sum);
  return static_cast<double>(iters) * 16 * 16 * 2 / s;
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) double measure_vnni_avx512() {
  __m512i acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_epi32(i);
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-2);
  constexpr long iters = 20'000'000;
  const auto t0 = std::chrono::steady_clock::now();
  for (long k = 0; k < iters; ++k)
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_dpbusd_epi32(acc[i], a, b);
  const double s = seconds_since(t0);
  __m512i sum = acc[0];
  for (int i = 1; i < 16; ++i) sum = _mm512_add_epi32(sum, acc[i]);
  benchmark::DoNotOptimize(sum);
  return static_cast<double>(iters) * 16 * 64 * 2 / s;  // 64 u8*s8 products per instruction
}

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
    return m;
  }();
  return p;
}

}  // namespace nnhal::bench

int main(int argc, char** argv) {
  const auto& p = nnhal::bench::peaks();
  benchmark::AddCustomContext("peak_copy_l2_GBps", std::to_string(p.copy_l2_bytes_per_s / 1e9));
  benchmark::AddCustomContext("peak_copy_mid_GBps", std::to_string(p.copy_mid_bytes_per_s / 1e9));
  benchmark::AddCustomContext("peak_copy_dram_GBps", std::to_string(p.copy_dram_bytes_per_s / 1e9));
  benchmark::AddCustomContext("peak_fma_f32_GFLOPs_1core", std::to_string(p.fma_f32_flops / 1e9));
  benchmark::AddCustomContext("peak_vnni_int8_GOPs_1core", std::to_string(p.vnni_int8_ops / 1e9));
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
