// Uses an installed nnhal the way a vendor driver would: typed views and result<T>.
#include <cstdint>
#include <cstdio>
#include <string>

#include <nnhal/types/element.hpp>
#include <nnhal/types/error.hpp>

namespace t = nnhal::types;

static t::result<float> sum(t::tensor_view<const t::f32> v) {
  NNHAL_CHECK(v.rank() > 0, t::ErrorStatus::INVALID_ARGUMENT, "rank ", v.rank(), " must be > 0");
  float s = 0.0f;
  for (std::size_t i = 0; i < v.size(); ++i) s += v.data[i];
  return s;
}

int main() {
  const float data[] = {1.0f, 2.0f, 3.0f, 4.0f};
  const std::uint32_t dims[] = {2, 2};
  const t::tensor_view<const t::f32> view{data, dims};
  const auto ok = sum(view);
  const auto bad = sum(t::tensor_view<const t::f32>{data, {}});
  if (!ok || *ok != 10.0f || bad.ok() || bad.status() != t::ErrorStatus::INVALID_ARGUMENT) {
    std::puts("consumer: unexpected result");
    return 1;
  }
  std::printf("consumer: sum %g; rejected: %s (%s)\n", static_cast<double>(*ok),
              std::string(t::to_string(bad.status())).c_str(), bad.err().message.c_str());
  return 0;
}
