// RANDOM_MULTINOMIAL kernel; contract in types/signatures/random_multinomial.hpp. Each
// row of logits becomes a cumulative distribution of exp(logit - max) in double (NaN and
// infinite logits get probability 0, as in the AOSP path); each sample is the first class
// whose cumulative sum exceeds u * total, u uniform in [0, 1). The generator is
// Philox-4x32-10 keyed by the two seeds, two 32-bit outputs per 52-bit double, so one
// seed pair gives the same samples on every run. Only the distribution is specified:
// samples need not match another implementation's stream.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "nnhal/ops/kernel.hpp"
#include "nnhal/types/signatures/random_multinomial.hpp"

namespace nnhal::ops::random_multinomial {

/// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"): a
/// counter-based generator; each counter value gives four 32-bit outputs.
class philox {
 public:
  philox(std::uint64_t key, std::uint64_t counter_hi) noexcept
      : key_{static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)},
        counter_{0, 0, static_cast<std::uint32_t>(counter_hi), static_cast<std::uint32_t>(counter_hi >> 32)} {}

  std::uint32_t next() noexcept {
    if (used_ == 4) refill();
    return out_[used_++];
  }
  /// Uniform in [0, 1): 52 random mantissa bits under exponent 0, minus 1.
  double uniform() noexcept {
    const std::uint32_t hi = next() & 0xfffffu, lo = next();
    const std::uint64_t bits = (std::uint64_t{1023} << 52) | (std::uint64_t{hi} << 32) | lo;
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d - 1.0;
  }

 private:
  void refill() noexcept {
    constexpr std::uint32_t m0 = 0xD2511F53u, m1 = 0xCD9E8D57u, w0 = 0x9E3779B9u, w1 = 0xBB67AE85u;
    std::array<std::uint32_t, 4> c = counter_;
    std::array<std::uint32_t, 2> k = key_;
    for (int round = 0; round < 10; ++round) {
      const std::uint64_t p0 = std::uint64_t{m0} * c[0], p1 = std::uint64_t{m1} * c[2];
      c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
           static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
      k[0] += w0;
      k[1] += w1;
    }
    out_ = c;
    used_ = 0;
    for (auto& word : counter_)  // 128-bit increment
      if (++word != 0) break;
  }

  std::array<std::uint32_t, 2> key_;
  std::array<std::uint32_t, 4> counter_;
  std::array<std::uint32_t, 4> out_{};
  int used_ = 4;
};

/// S: float or float16 logits.
template <class S>
void reference(const kernel_io& io) {
  const auto& input = io.in[0];
  const std::size_t batches = input.dims[0], classes = input.dims[1];
  const auto samples = static_cast<std::size_t>(io.scalar<std::int32_t>(1));
  std::int32_t seeds[2];
  std::memcpy(seeds, io.in[2].value, sizeof seeds);
  // Seeds are sign-extended to 64 bits: the first is the key, the second the counter's upper half.
  philox gen(static_cast<std::uint64_t>(std::int64_t{seeds[0]}), static_cast<std::uint64_t>(std::int64_t{seeds[1]}));
  auto* out = reinterpret_cast<std::int32_t*>(io.out_data[0]);
  std::vector<double> cdf(classes);
  for (std::size_t b = 0; b < batches; ++b) {
    auto logit = [&](std::size_t j) {
      S s;
      std::memcpy(&s, input.value + (b * classes + j) * sizeof(S), sizeof(S));
      if constexpr (std::is_same_v<S, types::float16>) return types::to_float(s);
      else return s;
    };
    float max = std::numeric_limits<float>::lowest();
    for (std::size_t j = 0; j < classes; ++j)
      if (std::isfinite(logit(j))) max = std::max(max, logit(j));
    double total = 0.0;
    for (std::size_t j = 0; j < classes; ++j) {
      if (std::isfinite(logit(j))) total += std::exp(static_cast<double>(logit(j)) - static_cast<double>(max));
      cdf[j] = total;
    }
    for (std::size_t s = 0; s < samples; ++s) {
      const double target = gen.uniform() * total;
      // The first class whose cumulative sum exceeds the target. With no finite logit
      // (total 0) none does; the AOSP path then returns `classes`, an invalid index, so
      // this clamps to the last class.
      const auto k = static_cast<std::size_t>(std::upper_bound(cdf.begin(), cdf.end(), target) - cdf.begin());
      out[b * samples + s] = static_cast<std::int32_t>(std::min(k, classes - 1));
    }
  }
}

inline types::result<kernel> bind(const bind_context& c) {
  switch (c.in[0].type) {
    case OperandType::TENSOR_FLOAT32: return kernel{[](const kernel_io& io) { reference<float>(io); }};
    case OperandType::TENSOR_FLOAT16: return kernel{[](const kernel_io& io) { reference<types::float16>(io); }};
    default: return unsupported(c);
  }
}

}  // namespace nnhal::ops::random_multinomial
