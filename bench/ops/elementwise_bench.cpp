// Element-wise operations: nnhal next to XNNPACK in the same run, on an L2-resident
// (64 KiB per tensor) and a DRAM-sized (64 MiB per tensor) shape. Element-wise ops are
// memory-bound, so each result also reports the fraction of the machine's copy bandwidth.
// Names: elementwise/<op>/<dtype>/<elements>/<impl>.
#include <benchmark/benchmark.h>

#include <functional>
#include <string>

#include "support/op_fixture.hpp"

#include "support/xnnpack_run.hpp"

namespace nnhal::bench {
namespace {

using types::OperandType;
using types::OperationType;


constexpr std::uint32_t l2_bytes = 64u << 10, dram_bytes = 64u << 20;

// --- nnhal -------------------------------------------------------------------------------

void nnhal_binary(benchmark::State& state, OperationType op, dtype_spec dt, std::uint32_t n) {
  op_fixture f(op,
               {{dt.type, {n}, dt.scale, dt.zero_point}, {dt.type, {n}, dt.scale, dt.zero_point},
                scalar<std::int32_t>(OperandType::INT32, 0)},
               {{dt.type, {n}, dt.scale * 2, dt.zero_point}});
  if (f.time(state)) report_traffic(state, f.bytes_moved());
}

// --- XNNPACK -----------------------------------------------------------------------------

#if NNHAL_BENCH_XNNPACK
/// Creates, sets up and runs one XNNPACK element-wise binary operator on 1-D inputs.
void xnnpack_binary(benchmark::State& state, OperationType op, dtype_spec dt, std::uint32_t n) {
  if (!xnn_ready()) {
    state.SkipWithError("xnn_initialize failed");
    return;
  }
  const std::size_t esize = types::type_info(dt.type).element_size;
  std::vector<std::byte> a(n * esize, std::byte{3}), b(n * esize, std::byte{5}), y(n * esize);
  const std::size_t shape[1] = {n};
  xnn_operator_t o = nullptr;
  xnn_status s = xnn_status_unsupported_parameter;
  const bool is_add = op == OperationType::ADD;
  if (dt.type == OperandType::TENSOR_FLOAT32) {
    s = is_add ? xnn_create_add_nd_f32(-INFINITY, INFINITY, 0, &o) : xnn_create_multiply_nd_f32(-INFINITY, INFINITY, 0, &o);
    if (s == xnn_status_success)
      s = is_add ? xnn_setup_add_nd_f32(o, 1, shape, 1, shape, reinterpret_cast<float*>(a.data()),
                                        reinterpret_cast<float*>(b.data()), reinterpret_cast<float*>(y.data()), nullptr)
                 : xnn_setup_multiply_nd_f32(o, 1, shape, 1, shape, reinterpret_cast<float*>(a.data()),
                                             reinterpret_cast<float*>(b.data()), reinterpret_cast<float*>(y.data()),
                                             nullptr);
  } else if (dt.type == OperandType::TENSOR_QUANT8_ASYMM) {
    const auto zp = static_cast<std::uint8_t>(dt.zero_point);
    s = is_add ? xnn_create_add_nd_qu8(zp, dt.scale, zp, dt.scale, zp, dt.scale * 2, 0, 255, 0, &o)
               : xnn_create_multiply_nd_qu8(zp, dt.scale, zp, dt.scale, zp, dt.scale * 2, 0, 255, 0, &o);
    if (s == xnn_status_success)
      s = is_add ? xnn_setup_add_nd_qu8(o, 1, shape, 1, shape, reinterpret_cast<std::uint8_t*>(a.data()),
                                        reinterpret_cast<std::uint8_t*>(b.data()),
                                        reinterpret_cast<std::uint8_t*>(y.data()), nullptr)
                 : xnn_setup_multiply_nd_qu8(o, 1, shape, 1, shape, reinterpret_cast<std::uint8_t*>(a.data()),
                                             reinterpret_cast<std::uint8_t*>(b.data()),
                                             reinterpret_cast<std::uint8_t*>(y.data()), nullptr);
  } else if (dt.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    const auto zp = static_cast<std::int8_t>(dt.zero_point);
    s = is_add ? xnn_create_add_nd_qs8(zp, dt.scale, zp, dt.scale, zp, dt.scale * 2, -128, 127, 0, &o)
               : xnn_create_multiply_nd_qs8(zp, dt.scale, zp, dt.scale, zp, dt.scale * 2, -128, 127, 0, &o);
    if (s == xnn_status_success)
      s = is_add ? xnn_setup_add_nd_qs8(o, 1, shape, 1, shape, reinterpret_cast<std::int8_t*>(a.data()),
                                        reinterpret_cast<std::int8_t*>(b.data()),
                                        reinterpret_cast<std::int8_t*>(y.data()), nullptr)
                 : xnn_setup_multiply_nd_qs8(o, 1, shape, 1, shape, reinterpret_cast<std::int8_t*>(a.data()),
                                             reinterpret_cast<std::int8_t*>(b.data()),
                                             reinterpret_cast<std::int8_t*>(y.data()), nullptr);
  }
  if (xnn_time_operator(state, s, o)) report_traffic(state, 3 * n * esize);
}
#endif

// --- registration ------------------------------------------------------------------------

int register_all() {
  for (auto op : {OperationType::ADD, OperationType::MUL}) {
    const std::string opname = op == OperationType::ADD ? "add" : "mul";
    for (auto dt : {f32, qu8, qs8}) {
      for (std::uint32_t bytes : {l2_bytes, dram_bytes}) {
        const std::uint32_t n = bytes / static_cast<std::uint32_t>(types::type_info(dt.type).element_size);
        const std::string base = "elementwise/" + opname + "/" + dt.name + "/" + std::to_string(n) + "/";
        benchmark::RegisterBenchmark((base + "nnhal").c_str(), nnhal_binary, op, dt, n);
#if NNHAL_BENCH_XNNPACK
        benchmark::RegisterBenchmark((base + "xnnpack").c_str(), xnnpack_binary, op, dt, n);
#endif
      }
    }
  }
  return 0;
}
const int registered = register_all();

}  // namespace
}  // namespace nnhal::bench
