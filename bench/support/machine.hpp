// What this machine can do at best, measured once at start-up so every benchmark can
// report its result as a fraction of it: copy bandwidth (L2-resident, a few MiB, and DRAM-sized)
// and the single-core peak of FMA (float32) and VNNI and AMX dot products (int8).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <thread>

namespace nnhal::bench {

struct machine_peaks {
  double copy_l2_bytes_per_s = 0;    // bytes read + written per second, 64 KiB buffers
  double copy_mid_bytes_per_s = 0;   // same, 2 MiB buffers (past L2, inside the last-level cache)
  double copy_dram_bytes_per_s = 0;  // same, 64 MiB buffers
  double fma_f32_flops = 0;          // one core, 2 flops per FMA lane
  double vnni_int8_ops = 0;          // one core, 2 ops per u8*s8 product (0 without VNNI)
  double amx_int8_ops = 0;           // one core, AMX tdpbusd (0 without AMX tiles for this process)
  /// The int8 peak quant8 GEMMs are held to: AMX where this process has it, else VNNI.
  double int8_ops() const noexcept { return std::max(vnni_int8_ops, amx_int8_ops); }
};

/// Measured on first use (about a second), then cached.
const machine_peaks& peaks();

/// The copy bandwidth that applies to a working set of `bytes`.
inline double copy_bandwidth_for(std::size_t bytes) {
  if (bytes <= (std::size_t{1} << 20)) return peaks().copy_l2_bytes_per_s;
  if (bytes <= (std::size_t{16} << 20)) return peaks().copy_mid_bytes_per_s;
  return peaks().copy_dram_bytes_per_s;
}

/// The machine's hardware threads: the "all cores" benchmark variants use this many.
inline std::size_t all_cores() { return std::max(1u, std::thread::hardware_concurrency()); }

/// The name suffix of an all-cores variant ("" for one core).
inline std::string cores_suffix(std::size_t cores) { return cores > 1 ? "/cores:" + std::to_string(cores) : ""; }

}  // namespace nnhal::bench
