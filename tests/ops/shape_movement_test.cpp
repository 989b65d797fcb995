// Data-movement operations: SQUEEZE, EXPAND_DIMS, SPLIT, SLICE, STRIDED_SLICE, TRANSPOSE,
// TILE, GATHER, FILL, RANK, PACK, REVERSE, EMBEDDING_LOOKUP, HASHTABLE_LOOKUP.
//  - oracle tests: random shapes and bytes; the expected output is built element by
//    element from an independent index formula (each output element names the input
//    element it copies), compared byte-exactly for every element type of the op;
//  - qu8/qs8 parity: the same data shifted by -128 gives the result shifted by -128;
//  - the copy helpers themselves (strided walk, tiled transpose) against a naive loop;
//  - shape inference at validation (unknown extents, unknown values) and at execution,
//    and bad operands -> INVALID_ARGUMENT naming the operand;
//  - end to end through exec::prepare / exec::execute, including dynamic shapes and
//    execution-time index errors.
// Random cases draw a per-case seed from a fixed seed and print it on failure.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "nnhal/ops/kernels/copy.hpp"
#include "support/op_runner.hpp"

namespace {

using namespace nnhal::test::op;
namespace kn = nnhal::ops::kernels;

std::size_t esize(OT t) { return ty::type_info(t).element_size; }
tensor vec(const std::vector<std::int32_t>& v) { return i32_tensor(v); }
tensor f32(dims_t d, const std::vector<double>& v) { return values(OT::TENSOR_FLOAT32, std::move(d), v); }

// ---------------------------------------------------------------------------------
// Shape inference verdicts
// ---------------------------------------------------------------------------------

/// Expects shape inference to fail with INVALID_ARGUMENT and a message containing `role`.
void expect_rejected(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& outs, bool executing,
                     const std::string& role) {
  const auto r = infer(op, ins, outs, executing);
  REQUIRE_MESSAGE(!r.ok(), "expected a rejection naming ", role);
  CHECK(r.err().status == ty::ErrorStatus::INVALID_ARGUMENT);
  CHECK_MESSAGE(r.err().message.find(role) != std::string::npos, "message '", r.err().message, "' does not name ",
                role);
}

sig::shapes infer_ok(OpT op, const std::vector<tensor>& ins, const std::vector<tensor>& outs, bool executing) {
  auto r = infer(op, ins, outs, executing);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string() : r.err().message));
  return *r;
}

tensor out_f32() { return decl(OT::TENSOR_FLOAT32); }
tensor in_f32(dims_t d) { return make_tensor(OT::TENSOR_FLOAT32, std::move(d)); }
tensor unknown_scalar() { return decl(OT::INT32); }


// ---------------------------------------------------------------------------------
// Oracle helpers: coordinates and "which input element does this output element copy"
// ---------------------------------------------------------------------------------

std::vector<std::size_t> unravel(std::size_t flat, const dims_t& d) {
  std::vector<std::size_t> c(d.size());
  for (std::size_t k = d.size(); k-- > 0;) {
    c[k] = flat % d[k];
    flat /= d[k];
  }
  return c;
}
std::size_t ravel(const std::vector<std::size_t>& c, const dims_t& d) {
  std::size_t flat = 0;
  for (std::size_t k = 0; k < d.size(); ++k) flat = flat * d[k] + c[k];
  return flat;
}

/// Source of one output element: input `input` element `index`, or nothing (zero bytes).
struct source {
  std::size_t input = 0;
  std::optional<std::size_t> index;
};

/// Expected bytes of an output of type `t` and shape `d` whose element i copies src(i).
template <class F>
tensor expected_from(OT t, const dims_t& d, float scale, std::int32_t zp, const std::vector<const tensor*>& inputs,
                     F src) {
  tensor e = make_tensor(t, d, scale, zp);
  const std::size_t es = esize(t);
  for (std::size_t i = 0; i < e.count(); ++i) {
    const source s = src(i);
    if (s.index) std::memcpy(e.bytes.data() + i * es, inputs[s.input]->bytes.data() + *s.index * es, es);
  }
  return e;
}


// ---------------------------------------------------------------------------------
// Random cases
// ---------------------------------------------------------------------------------

constexpr std::uint32_t base_seed = 0x5eed'0a11u;

int uni(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

dims_t random_dims(std::mt19937& rng, int min_rank, int max_rank, int min_ext, int max_ext) {
  dims_t d(static_cast<std::size_t>(uni(rng, min_rank, max_rank)));
  for (auto& e : d) e = static_cast<std::uint32_t>(uni(rng, min_ext, max_ext));
  return d;
}

tensor random_tensor(std::mt19937& rng, OT t, dims_t d) {
  tensor x = make_tensor(t, std::move(d));
  if (ty::is_quantized(t)) {
    x.scale = 0.0625f * static_cast<float>(uni(rng, 1, 64));
    x.zp = t == OT::TENSOR_QUANT8_ASYMM ? uni(rng, 0, 255) : uni(rng, -128, 127);
  }
  for (auto& b : x.bytes) b = static_cast<std::byte>(uni(rng, 0, 255));
  return x;
}

const std::vector<OT> all_types = {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_INT32, OT::TENSOR_QUANT8_ASYMM,
                                   OT::TENSOR_QUANT8_ASYMM_SIGNED};
const std::vector<OT> no_int_types = {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM,
                                      OT::TENSOR_QUANT8_ASYMM_SIGNED};

/// One random operation: its inputs, its output declarations and the expected outputs.
struct op_case {
  OpT op;
  std::vector<tensor> ins;
  std::vector<tensor> outs;      // declarations (type + quantization)
  std::vector<tensor> expected;  // full expected outputs
};

/// An output declaration with the input's type and quantization, shape left to inference.
tensor out_like(const tensor& in) { return decl(in.type, {}, in.scale, in.zp); }

// Each generator draws one case for `type`; index 0 of `ins` is the data tensor unless noted.

op_case gen_squeeze(OT t, std::mt19937& rng) {
  op_case c{OpT::SQUEEZE, {}, {}, {}};
  dims_t d = random_dims(rng, 1, 4, 1, 3);
  for (auto& e : d)
    if (uni(rng, 0, 2) == 0) e = 1;
  tensor x = random_tensor(rng, t, d);
  dims_t outd;
  std::vector<std::int32_t> listed;
  const bool omit = uni(rng, 0, 2) == 0;
  for (std::size_t k = 0; k < d.size(); ++k) {
    const bool go = d[k] == 1 && (omit || uni(rng, 0, 1) == 0);
    if (go && !omit)
      listed.push_back(uni(rng, 0, 1) ? static_cast<std::int32_t>(k)
                                      : static_cast<std::int32_t>(k) - static_cast<std::int32_t>(d.size()));
    if (!go) outd.push_back(d[k]);
  }
  std::shuffle(listed.begin(), listed.end(), rng);
  if (outd.empty()) outd = {1};  // AOSP: no rank-0 results
  c.ins = {x, omit ? omitted(OT::TENSOR_INT32) : vec(listed)};
  c.outs = {out_like(x)};
  c.expected = {expected_from(t, outd, x.scale, x.zp, {&c.ins[0]}, [](std::size_t i) { return source{0, i}; })};
  return c;
}

op_case gen_expand_dims(OT t, std::mt19937& rng) {
  op_case c{OpT::EXPAND_DIMS, {}, {}, {}};
  tensor x = random_tensor(rng, t, random_dims(rng, 1, 4, 0, 3));
  const int n = static_cast<int>(x.dims.size());
  const int axis = uni(rng, -(n + 1), n);
  dims_t outd = x.dims;
  outd.insert(outd.begin() + (axis < 0 ? axis + n + 1 : axis), 1u);
  c.ins = {x, scalar_i32(axis)};
  c.outs = {out_like(x)};
  c.expected = {expected_from(t, outd, x.scale, x.zp, {&c.ins[0]}, [](std::size_t i) { return source{0, i}; })};
  return c;
}

op_case gen_split(OT t, std::mt19937& rng) {
  op_case c{OpT::SPLIT, {}, {}, {}};
  dims_t d = random_dims(rng, 1, 4, 1, 3);
  const std::size_t a = static_cast<std::size_t>(uni(rng, 0, static_cast<int>(d.size()) - 1));
  const int parts = uni(rng, 1, 4);
  d[a] = static_cast<std::uint32_t>(parts * uni(rng, 0, 2));
  tensor x = random_tensor(rng, t, d);
  const int axis = uni(rng, 0, 1) ? static_cast<int>(a) : static_cast<int>(a) - static_cast<int>(d.size());
  c.ins = {x, scalar_i32(axis), scalar_i32(parts)};
  dims_t part = d;
  part[a] = d[a] / static_cast<std::uint32_t>(parts);
  for (int k = 0; k < parts; ++k) {
    c.outs.push_back(out_like(x));
    c.expected.push_back(expected_from(t, part, x.scale, x.zp, {&c.ins[0]}, [&, k](std::size_t i) {
      auto co = unravel(i, part);
      co[a] += static_cast<std::size_t>(k) * part[a];
      return source{0, ravel(co, d)};
    }));
  }
  return c;
}

op_case gen_slice(OT t, std::mt19937& rng) {
  op_case c{OpT::SLICE, {}, {}, {}};
  const dims_t d = random_dims(rng, 1, 4, 0, 5);
  tensor x = random_tensor(rng, t, d);
  std::vector<std::int32_t> begin, size;
  dims_t outd;
  for (auto e : d) {
    const int b = uni(rng, 0, static_cast<int>(e));
    const int s = uni(rng, 0, static_cast<int>(e) - b);
    begin.push_back(b);
    const bool rest = uni(rng, 0, 3) == 0;
    size.push_back(rest ? -1 : s);
    outd.push_back(static_cast<std::uint32_t>(rest ? static_cast<int>(e) - b : s));
  }
  c.ins = {x, vec(begin), vec(size)};
  c.outs = {out_like(x)};
  c.expected = {expected_from(t, outd, x.scale, x.zp, {&c.ins[0]}, [&](std::size_t i) {
    auto co = unravel(i, outd);
    for (std::size_t k = 0; k < co.size(); ++k) co[k] += static_cast<std::size_t>(begin[k]);
    return source{0, ravel(co, d)};
  })};
  return c;
}

/// Python slicing of range(extent) by (begin, end, step), None = masked: the indices taken.
std::vector<std::size_t> python_slice(int extent, std::optional<int> begin, std::optional<int> end, int step) {
  auto norm = [&](std::optional<int> v, bool is_start) {
    if (!v) return step > 0 ? (is_start ? 0 : extent) : (is_start ? extent - 1 : -1);
    int i = *v;
    if (i < 0) {
      i += extent;
      if (i < 0) i = step > 0 ? 0 : -1;
    } else if (i >= extent) {
      i = step > 0 ? extent : extent - 1;
    }
    return i;
  };
  std::vector<std::size_t> out;
  const int b = norm(begin, true), e = norm(end, false);
  for (int i = b; step > 0 ? i < e : i > e; i += step) out.push_back(static_cast<std::size_t>(i));
  return out;
}

op_case gen_strided_slice(OT t, std::mt19937& rng) {
  op_case c{OpT::STRIDED_SLICE, {}, {}, {}};
  const dims_t d = random_dims(rng, 1, 4, 1, 6);
  tensor x = random_tensor(rng, t, d);
  std::vector<std::int32_t> begin, end, strides;
  std::int32_t begin_mask = 0, end_mask = 0, shrink = 0;
  std::vector<std::vector<std::size_t>> taken;
  dims_t outd;
  for (std::size_t k = 0; k < d.size(); ++k) {
    const int e = static_cast<int>(d[k]);
    if (uni(rng, 0, 4) == 0) {  // shrink: begin = some index, stride 1, end = begin + 1
      const int b = uni(rng, -e, e - 1);
      begin.push_back(b);
      end.push_back(b == -1 ? e : b + 1);  // -1 + 1 would be 0: use the extent instead
      strides.push_back(1);
      shrink |= 1 << k;
      taken.push_back({static_cast<std::size_t>(b < 0 ? b + e : b)});
      continue;
    }
    int s = uni(rng, 1, 3);
    if (uni(rng, 0, 1)) s = -s;
    const int b = uni(rng, -e - 2, e + 2), en = uni(rng, -e - 2, e + 2);
    const bool bm = uni(rng, 0, 3) == 0, em = uni(rng, 0, 3) == 0;
    begin.push_back(b);
    end.push_back(en);
    strides.push_back(s);
    if (bm) begin_mask |= 1 << k;
    if (em) end_mask |= 1 << k;
    taken.push_back(
        python_slice(e, bm ? std::nullopt : std::optional<int>(b), em ? std::nullopt : std::optional<int>(en), s));
    outd.push_back(static_cast<std::uint32_t>(taken.back().size()));
  }
  if (outd.empty()) outd = {1};  // AOSP: no rank-0 results
  c.ins = {x, vec(begin), vec(end), vec(strides), scalar_i32(begin_mask), scalar_i32(end_mask), scalar_i32(shrink)};
  c.outs = {out_like(x)};
  dims_t full;  // the output before dropping the shrunk dimensions
  for (const auto& v : taken) full.push_back(static_cast<std::uint32_t>(v.size()));
  c.expected = {expected_from(t, outd, x.scale, x.zp, {&c.ins[0]}, [&](std::size_t i) {
    const auto co = unravel(i, full);
    std::vector<std::size_t> src(co.size());
    for (std::size_t k = 0; k < co.size(); ++k) src[k] = taken[k][co[k]];
    return source{0, ravel(src, d)};
  })};
  return c;
}

op_case gen_transpose(OT t, std::mt19937& rng) {
  op_case c{OpT::TRANSPOSE, {}, {}, {}};
  const dims_t d = random_dims(rng, 1, 4, 0, 4);
  tensor x = random_tensor(rng, t, d);
  const std::size_t n = d.size();
  std::vector<std::int32_t> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = static_cast<std::int32_t>(i);
  const bool omit = uni(rng, 0, 4) == 0;
  if (omit) std::reverse(perm.begin(), perm.end());
  else std::shuffle(perm.begin(), perm.end(), rng);
  dims_t outd(n);
  for (std::size_t i = 0; i < n; ++i) outd[i] = d[static_cast<std::size_t>(perm[i])];
  c.ins = {x, omit ? omitted(OT::TENSOR_INT32) : vec(perm)};
  c.outs = {out_like(x)};
  c.expected = {expected_from(t, outd, x.scale, x.zp, {&c.ins[0]}, [&](std::size_t i) {
    const auto co = unravel(i, outd);
    std::vector<std::size_t> src(n);
    for (std::size_t k = 0; k < n; ++k) src[static_cast<std::size_t>(perm[k])] = co[k];
    return source{0, ravel(src, d)};
  })};
  return c;
}

op_case gen_tile(OT t, std::mt19937& rng) {
  op_case c{OpT::TILE, {}, {}, {}};
  const dims_t d = random_dims(rng, 1, 5, 0, 3);
  tensor x = random_tensor(rng, t, d);
  std::vector<std::int32_t> m;
  dims_t outd;
  for (auto e : d) {
    m.push_back(uni(rng, 0, 8) == 0 ? 0 : uni(rng, 1, 3));
    outd.push_back(e * static_cast<std::uint32_t>(m.back()));
  }
  c.ins = {x, vec(m)};
  c.outs = {out_like(x)};
  c.expected = {expected_from(t, outd, x.scale, x.zp, {&c.ins[0]}, [&](std::size_t i) {
    auto co = unravel(i, outd);
    for (std::size_t k = 0; k < co.size(); ++k) co[k] %= d[k];
    return source{0, ravel(co, d)};
  })};
  return c;
}

op_case gen_gather(OT t, std::mt19937& rng) {
  op_case c{OpT::GATHER, {}, {}, {}};
  const dims_t d = random_dims(rng, 1, 4, 1, 4);
  tensor x = random_tensor(rng, t, d);
  const int n = static_cast<int>(d.size());
  const int axis = uni(rng, -n, n - 1);
  const auto a = static_cast<std::size_t>(axis < 0 ? axis + n : axis);
  const dims_t idims = random_dims(rng, 1, 3, 0, 3);
  std::vector<std::int32_t> idx(count_of(idims));
  for (auto& v : idx) v = uni(rng, 0, static_cast<int>(d[a]) - 1);
  dims_t outd(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(a));
  outd.insert(outd.end(), idims.begin(), idims.end());
  outd.insert(outd.end(), d.begin() + static_cast<std::ptrdiff_t>(a) + 1, d.end());
  c.ins = {x, scalar_i32(axis), i32_tensor(idims, idx)};
  c.outs = {out_like(x)};
  c.expected = {expected_from(t, outd, x.scale, x.zp, {&c.ins[0]}, [&](std::size_t i) {
    const auto co = unravel(i, outd);
    std::vector<std::size_t> ic(co.begin() + static_cast<std::ptrdiff_t>(a),
                                co.begin() + static_cast<std::ptrdiff_t>(a + idims.size()));
    std::vector<std::size_t> src(co.begin(), co.begin() + static_cast<std::ptrdiff_t>(a));
    src.push_back(static_cast<std::size_t>(idx[ravel(ic, idims)]));
    src.insert(src.end(), co.begin() + static_cast<std::ptrdiff_t>(a + idims.size()), co.end());
    return source{0, ravel(src, d)};
  })};
  return c;
}

op_case gen_pack(OT t, std::mt19937& rng) {
  op_case c{OpT::PACK, {}, {}, {}};
  const dims_t d = random_dims(rng, 1, 4, 0, 3);
  const int n = uni(rng, 1, 4);
  const int axis = uni(rng, 0, static_cast<int>(d.size()));
  c.ins.push_back(scalar_i32(axis));
  tensor first = random_tensor(rng, t, d);
  for (int k = 0; k < n; ++k) {
    tensor x = random_tensor(rng, t, d);
    x.scale = first.scale;
    x.zp = first.zp;
    c.ins.push_back(x);
  }
  dims_t outd = d;
  outd.insert(outd.begin() + axis, static_cast<std::uint32_t>(n));
  std::vector<const tensor*> inputs;
  for (int k = 0; k < n; ++k) inputs.push_back(&c.ins[static_cast<std::size_t>(k) + 1]);
  c.outs = {out_like(c.ins[1])};
  c.expected = {expected_from(t, outd, first.scale, first.zp, inputs, [&](std::size_t i) {
    auto co = unravel(i, outd);
    const std::size_t k = co[static_cast<std::size_t>(axis)];
    co.erase(co.begin() + axis);
    return source{k, ravel(co, d)};
  })};
  return c;
}

op_case gen_reverse(OT t, std::mt19937& rng) {
  op_case c{OpT::REVERSE, {}, {}, {}};
  const dims_t d = random_dims(rng, 1, 8, 0, 3);
  tensor x = random_tensor(rng, t, d);
  const auto a = static_cast<std::size_t>(uni(rng, 0, static_cast<int>(d.size()) - 1));
  c.ins = {x, vec({static_cast<std::int32_t>(a)})};
  c.outs = {out_like(x)};
  c.expected = {expected_from(t, d, x.scale, x.zp, {&c.ins[0]}, [&](std::size_t i) {
    auto co = unravel(i, d);
    co[a] = d[a] - 1 - co[a];
    return source{0, ravel(co, d)};
  })};
  return c;
}

op_case gen_embedding_lookup(OT t, std::mt19937& rng) {
  op_case c{OpT::EMBEDDING_LOOKUP, {}, {}, {}};
  const dims_t d = random_dims(rng, 2, 4, 1, 4);
  tensor values = random_tensor(rng, t, d);
  const int k = uni(rng, 0, 5);
  std::vector<std::int32_t> look(static_cast<std::size_t>(k));
  for (auto& v : look) v = uni(rng, 0, static_cast<int>(d[0]) - 1);
  dims_t outd = d;
  outd[0] = static_cast<std::uint32_t>(k);
  c.ins = {vec(look), values};
  c.outs = {out_like(values)};
  c.expected = {expected_from(t, outd, values.scale, values.zp, {&c.ins[1]}, [&](std::size_t i) {
    auto co = unravel(i, outd);
    co[0] = static_cast<std::size_t>(look[co[0]]);
    return source{0, ravel(co, d)};
  })};
  return c;
}

op_case gen_hashtable_lookup(OT t, std::mt19937& rng) {
  op_case c{OpT::HASHTABLE_LOOKUP, {}, {}, {}};
  const dims_t d = random_dims(rng, 1, 3, 1, 4);
  tensor values = random_tensor(rng, t, d);
  std::vector<std::int32_t> keys(d[0]);
  std::int32_t next = uni(rng, -100, 100);
  for (auto& kv : keys) kv = next += uni(rng, 1, 5);  // strictly ascending
  const int k = uni(rng, 0, 6);
  std::vector<std::int32_t> look(static_cast<std::size_t>(k));
  for (auto& v : look)
    v = uni(rng, 0, 1) ? keys[static_cast<std::size_t>(uni(rng, 0, static_cast<int>(d[0]) - 1))] : uni(rng, -110, 130);
  dims_t outd = d;
  outd[0] = static_cast<std::uint32_t>(k);
  auto find = [&](std::int32_t v) -> std::optional<std::size_t> {
    for (std::size_t j = 0; j < keys.size(); ++j)
      if (keys[j] == v) return j;
    return std::nullopt;
  };
  c.ins = {vec(look), vec(keys), values};
  c.outs = {out_like(values), decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f, 0)};
  c.expected.push_back(expected_from(t, outd, values.scale, values.zp, {&c.ins[2]}, [&](std::size_t i) {
    auto co = unravel(i, outd);
    const auto row = find(look[co[0]]);
    if (!row) return source{0, std::nullopt};
    co[0] = *row;
    return source{0, ravel(co, d)};
  }));
  tensor hits = make_tensor(OT::TENSOR_QUANT8_ASYMM, {static_cast<std::uint32_t>(k)}, 1.0f, 0);
  for (std::size_t i = 0; i < look.size(); ++i) hits.set(i, static_cast<std::uint8_t>(find(look[i]) ? 1 : 0));
  c.expected.push_back(hits);
  return c;
}

using generator = op_case (*)(OT, std::mt19937&);

void run_oracle(const char* name, generator gen, const std::vector<OT>& types, int cases) {
  std::mt19937 seeds(base_seed ^ static_cast<std::uint32_t>(std::hash<std::string>{}(name)));
  for (OT t : types) {
    for (int i = 0; i < cases; ++i) {
      const std::uint32_t seed = seeds();
      std::mt19937 rng(seed);
      const op_case c = gen(t, rng);
      CAPTURE(name);
      CAPTURE(str(t));
      CAPTURE(seed);
      CAPTURE(str(c.ins[c.op == OpT::PACK ? 1 : 0].dims));
      const auto r = run_ok(c.op, c.ins, c.outs);
      REQUIRE(r.size() == c.expected.size());
      for (std::size_t k = 0; k < r.size(); ++k) {
        CAPTURE(k);
        CHECK(same_bytes(r[k], c.expected[k]) == "");
      }
      if (t == OT::TENSOR_QUANT8_ASYMM && c.op != OpT::HASHTABLE_LOOKUP) {  // HASHTABLE has no signed form
        // Parity: the signed twin of every quant8 operand gives the signed twin of the result.
        std::vector<tensor> sins, souts;
        for (const auto& x : c.ins) sins.push_back(to_signed(x));
        for (const auto& o : c.outs) souts.push_back(to_signed(o));
        const auto s = run_ok(c.op, sins, souts);
        for (std::size_t k = 0; k < r.size(); ++k) CHECK(signed_parity(r[k], s[k]) == "");
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// Oracle tests
// ---------------------------------------------------------------------------------

TEST_CASE("SQUEEZE: oracle, all types, omitted and listed dims") {
  run_oracle("squeeze", gen_squeeze, no_int_types, 60);
}
TEST_CASE("EXPAND_DIMS: oracle") { run_oracle("expand_dims", gen_expand_dims, all_types, 60); }
TEST_CASE("SPLIT: oracle, including zero-sized axes") { run_oracle("split", gen_split, all_types, 60); }
TEST_CASE("SLICE: oracle, size -1 and zero-sized input") { run_oracle("slice", gen_slice, all_types, 80); }
TEST_CASE("STRIDED_SLICE: oracle against Python slicing, masks and negative strides") {
  run_oracle("strided_slice", gen_strided_slice, no_int_types, 200);
}
TEST_CASE("TRANSPOSE: oracle, every permutation shape, omitted perm") {
  run_oracle("transpose", gen_transpose, no_int_types, 120);
}
TEST_CASE("TILE: oracle, zero multiples") { run_oracle("tile", gen_tile, all_types, 80); }
TEST_CASE("GATHER: oracle, negative axis, higher-rank indices") { run_oracle("gather", gen_gather, all_types, 80); }
TEST_CASE("PACK: oracle") { run_oracle("pack", gen_pack, all_types, 60); }
TEST_CASE("REVERSE: oracle up to rank 8") { run_oracle("reverse", gen_reverse, all_types, 60); }
TEST_CASE("EMBEDDING_LOOKUP: oracle") { run_oracle("embedding_lookup", gen_embedding_lookup, all_types, 60); }
TEST_CASE("HASHTABLE_LOOKUP: oracle, hits and misses") {
  run_oracle("hashtable_lookup", gen_hashtable_lookup, {OT::TENSOR_FLOAT32, OT::TENSOR_INT32, OT::TENSOR_QUANT8_ASYMM},
             80);
}

TEST_CASE("TRANSPOSE: large NHWC <-> NCHW and other tiled layouts against the oracle") {
  std::mt19937 rng(base_seed);
  const std::vector<std::vector<std::int32_t>> perms = {{0, 3, 1, 2}, {0, 2, 3, 1}, {1, 0},       {0, 2, 1},
                                                        {2, 0, 1},    {3, 2, 1, 0}, {1, 0, 2, 3}, {0, 1, 3, 2},
                                                        {0, 3, 2, 1}, {2, 1, 0, 3}};
  // Also whole 16 x 16 and 8 x 64 blocks with edges on both sides (the AVX-512 kernels), and
  // permutations moving neither the first nor the last dimension alone (strided planes).
  const std::vector<dims_t> shapes = {{2, 17, 19, 33}, {1, 40, 33, 3}, {3, 64, 65, 1}, {1, 1, 1, 130}, {2, 70, 3, 131}};
  for (OT t : {OT::TENSOR_FLOAT32, OT::TENSOR_FLOAT16, OT::TENSOR_QUANT8_ASYMM}) {
    for (const auto& shape : shapes) {
      for (const auto& perm : perms) {
        dims_t d(shape.end() - static_cast<std::ptrdiff_t>(perm.size()), shape.end());
        CAPTURE(str(t));
        CAPTURE(str(d));
        CAPTURE(str(dims_t(perm.begin(), perm.end())));
        tensor x = random_tensor(rng, t, d);
        dims_t outd(d.size());
        for (std::size_t i = 0; i < d.size(); ++i) outd[i] = d[static_cast<std::size_t>(perm[i])];
        const tensor r = run_ok1(OpT::TRANSPOSE, {x, vec(perm)}, out_like(x));
        const tensor want = expected_from(t, outd, x.scale, x.zp, {&x}, [&](std::size_t i) {
          const auto co = unravel(i, outd);
          std::vector<std::size_t> src(d.size());
          for (std::size_t k = 0; k < d.size(); ++k) src[static_cast<std::size_t>(perm[k])] = co[k];
          return source{0, ravel(src, d)};
        });
        CHECK(same_bytes(r, want) == "");
      }
    }
  }
}

TEST_CASE("FILL: every output type, values from the shape tensor") {
  {
    const tensor r = run_ok1(OpT::FILL, {vec({2, 3, 1}), scalar_f32(3.25f)}, out_f32());
    CHECK(r.dims == dims_t{2, 3, 1});
    CHECK(compare(r, std::vector<double>(6, 3.25), true) == "");
  }
  {
    const tensor r = run_ok1(OpT::FILL, {vec({5}), scalar_i32(-7)}, decl(OT::TENSOR_INT32));
    CHECK(compare(r, std::vector<double>(5, -7)) == "");
  }
  {
    const tensor r = run_ok1(OpT::FILL, {vec({3, 2}), scalar_f16(-1.5f)}, decl(OT::TENSOR_FLOAT16));
    CHECK(compare(r, std::vector<double>(6, -1.5), true) == "");
  }
  {  // a zero extent gives a zero-sized output
    const tensor r = run_ok1(OpT::FILL, {vec({4, 0}), scalar_f32(0.0f)}, out_f32());
    CHECK(r.dims == dims_t{4, 0});
  }
}

TEST_CASE("RANK: every input type, zero-sized input") {
  const std::vector<OT> types = {OT::TENSOR_FLOAT16,       OT::TENSOR_FLOAT32,      OT::TENSOR_INT32,
                                 OT::TENSOR_QUANT8_ASYMM,  OT::TENSOR_QUANT16_SYMM, OT::TENSOR_BOOL8,
                                 OT::TENSOR_QUANT16_ASYMM, OT::TENSOR_QUANT8_SYMM,  OT::TENSOR_QUANT8_ASYMM_SIGNED};
  std::mt19937 rng(base_seed + 1);
  for (OT t : types) {
    for (const dims_t& d : {dims_t{3}, dims_t{2, 0, 4}, dims_t{1, 1, 1, 1, 1, 2}}) {
      CAPTURE(str(t));
      const tensor r = run_ok1(OpT::RANK, {random_tensor(rng, t, d)}, decl(OT::INT32));
      CHECK(r.dims.empty());
      CHECK(r.get<std::int32_t>(0) == static_cast<std::int32_t>(d.size()));
    }
  }
}

// ---------------------------------------------------------------------------------
// The copy helpers
// ---------------------------------------------------------------------------------

TEST_CASE("copy_strided: random walks with negative and overlapping strides match a naive loop") {
  std::mt19937 rng(base_seed + 2);
  for (int iter = 0; iter < 300; ++iter) {
    const std::size_t es = std::array<std::size_t, 5>{1, 2, 4, 8, 3}[static_cast<std::size_t>(uni(rng, 0, 4))];
    kn::strided_source s;
    s.rank = static_cast<std::size_t>(uni(rng, 0, 5));
    std::ptrdiff_t lo = 0, hi = 0;  // byte offsets the walk touches, relative to base
    for (std::size_t d = 0; d < s.rank; ++d) {
      s.extent[d] = static_cast<std::size_t>(uni(rng, 1, 4));
      s.stride[d] = static_cast<std::ptrdiff_t>(es) * uni(rng, -6, 6);
      const std::ptrdiff_t span = s.stride[d] * static_cast<std::ptrdiff_t>(s.extent[d] - 1);
      (span < 0 ? lo : hi) += span;
    }
    std::vector<std::byte> src(static_cast<std::size_t>(hi - lo) + es);
    for (auto& b : src) b = static_cast<std::byte>(uni(rng, 0, 255));
    s.base = src.data() - lo;
    std::size_t total = 1;
    for (std::size_t d = 0; d < s.rank; ++d) total *= s.extent[d];
    std::vector<std::byte> want(total * es), got(total * es + 16, guard_byte);
    for (std::size_t i = 0; i < total; ++i) {
      std::size_t rem = i;
      std::ptrdiff_t off = 0;
      for (std::size_t d = s.rank; d-- > 0;) {
        off += static_cast<std::ptrdiff_t>(rem % s.extent[d]) * s.stride[d];
        rem /= s.extent[d];
      }
      std::memcpy(want.data() + i * es, s.base + off, es);
    }
    CHECK(kn::copy_strided(got.data(), s, es) == total * es);
    CHECK(std::memcmp(got.data(), want.data(), want.size()) == 0);
    for (std::size_t i = want.size(); i < got.size(); ++i) CHECK(got[i] == guard_byte);
  }
}

TEST_CASE("transpose_2d and replicate_block") {
  std::mt19937 rng(base_seed + 3);
  for (std::size_t es : {1u, 2u, 4u, 8u, 3u}) {
    for (const auto& shape : std::vector<std::pair<std::size_t, std::size_t>>{{1, 1}, {1, 7}, {31, 33}, {64, 5}, {40, 97}}) {
      const std::size_t rows = shape.first, cols = shape.second;  // not a structured binding: doctest's macros capture them
      const std::size_t batches = 2;
      std::vector<std::byte> src(batches * rows * cols * es), got(src.size());
      for (auto& b : src) b = static_cast<std::byte>(uni(rng, 0, 255));
      kn::transpose_2d(got.data(), src.data(), batches, rows, cols, es);
      bool same = true;
      for (std::size_t b = 0; b < batches; ++b)
        for (std::size_t r = 0; r < rows; ++r)
          for (std::size_t c = 0; c < cols; ++c)
            same = same && std::memcmp(got.data() + ((b * cols + c) * rows + r) * es,
                                       src.data() + ((b * rows + r) * cols + c) * es, es) == 0;
      CHECK_MESSAGE(same, "es ", es, " rows ", rows, " cols ", cols);
    }
  }
  std::vector<std::byte> buf(3 * 7);
  for (std::size_t i = 0; i < 3; ++i) buf[i] = static_cast<std::byte>(i + 1);
  kn::replicate_block(buf.data(), 3, 6);
  for (std::size_t i = 0; i < buf.size(); ++i) CHECK(buf[i] == static_cast<std::byte>(i % 3 + 1));
}

// ---------------------------------------------------------------------------------
// Shape inference: validation time (unknowns) and rejections
// ---------------------------------------------------------------------------------

TEST_CASE("shape inference at validation keeps what can be known") {
  // SQUEEZE: an unknown extent with omitted squeeze_dims leaves the rank unknown.
  CHECK(infer_ok(OpT::SQUEEZE, {decl(OT::TENSOR_FLOAT32, {1, 0, 3}), omitted(OT::TENSOR_INT32)}, {out_f32()}, false) ==
        sig::shapes{dims_t{}});
  CHECK(infer_ok(OpT::SQUEEZE, {decl(OT::TENSOR_FLOAT32, {1, 0, 1}), vec({0, -1})}, {out_f32()}, false) ==
        sig::shapes{dims_t{0}});
  // EXPAND_DIMS with an unknown axis: rank n + 1.
  CHECK(infer_ok(OpT::EXPAND_DIMS, {decl(OT::TENSOR_FLOAT32, {2, 0}), unknown_scalar()}, {out_f32()}, false) ==
        sig::shapes{dims_t{0, 0, 0}});
  // SPLIT with an unknown axis extent.
  CHECK(infer_ok(OpT::SPLIT, {decl(OT::TENSOR_FLOAT32, {0, 4}), scalar_i32(0), scalar_i32(2)}, {out_f32(), out_f32()},
                 false) == sig::shapes{dims_t{0, 4}, dims_t{0, 4}});
  // SLICE: begin unknown, size known.
  CHECK(infer_ok(OpT::SLICE, {decl(OT::TENSOR_FLOAT32, {4, 5}), decl(OT::TENSOR_INT32, {2}), vec({2, -1})}, {out_f32()},
                 false) == sig::shapes{dims_t{2, 0}});
  // STRIDED_SLICE: non-constant begin, known shrink mask: the rank only.
  CHECK(infer_ok(OpT::STRIDED_SLICE,
                 {in_f32({3, 4, 5}), decl(OT::TENSOR_INT32, {3}), vec({3, 4, 5}), vec({1, 1, 1}), scalar_i32(0),
                  scalar_i32(0), scalar_i32(2)},
                 {out_f32()}, false) == sig::shapes{dims_t{0, 0}});
  // STRIDED_SLICE: unknown input extent, the others computed.
  CHECK(infer_ok(OpT::STRIDED_SLICE,
                 {decl(OT::TENSOR_FLOAT32, {0, 6}), vec({0, 5}), vec({1, 0}), vec({1, -2}), scalar_i32(0),
                  scalar_i32(0), scalar_i32(0)},
                 {out_f32()}, false) == sig::shapes{dims_t{0, 3}});
  // TRANSPOSE: unknown perm values.
  CHECK(infer_ok(OpT::TRANSPOSE, {in_f32({2, 3, 4}), decl(OT::TENSOR_INT32, {3})}, {out_f32()}, false) ==
        sig::shapes{dims_t{0, 0, 0}});
  // TILE: unknown input rank, known multiples length.
  CHECK(infer_ok(OpT::TILE, {decl(OT::TENSOR_FLOAT32, {}), decl(OT::TENSOR_INT32, {3})}, {out_f32()}, false) ==
        sig::shapes{dims_t{0, 0, 0}});
  CHECK(infer_ok(OpT::TILE, {decl(OT::TENSOR_FLOAT32, {0, 2}), vec({3, 2})}, {out_f32()}, false) ==
        sig::shapes{dims_t{0, 4}});
  // GATHER: unknown indices values.
  CHECK(infer_ok(OpT::GATHER, {in_f32({5, 6}), scalar_i32(-1), decl(OT::TENSOR_INT32, {2, 3})}, {out_f32()}, false) ==
        sig::shapes{dims_t{5, 2, 3}});
  // FILL: non-constant shape of known length.
  CHECK(infer_ok(OpT::FILL, {decl(OT::TENSOR_INT32, {3}), make_tensor(OT::FLOAT32, {})}, {out_f32()}, false) ==
        sig::shapes{dims_t{0, 0, 0}});
  // PACK: merged known extents.
  CHECK(infer_ok(OpT::PACK, {scalar_i32(1), decl(OT::TENSOR_FLOAT32, {0, 3}), decl(OT::TENSOR_FLOAT32, {2, 0})},
                 {out_f32()}, false) == sig::shapes{dims_t{2, 2, 3}});
  // HASHTABLE_LOOKUP: hits is [k].
  CHECK(infer_ok(OpT::HASHTABLE_LOOKUP,
                 {decl(OT::TENSOR_INT32, {0}), decl(OT::TENSOR_INT32, {4}), decl(OT::TENSOR_FLOAT32, {4, 2})},
                 {out_f32(), make_tensor(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f, 0)},
                 false) == sig::shapes{dims_t{0, 2}, dims_t{0}});
  // RANK: a scalar.
  CHECK(infer_ok(OpT::RANK, {decl(OT::TENSOR_FLOAT32, {})}, {make_tensor(OT::INT32, {})}, false) ==
        sig::shapes{dims_t{}});
}

TEST_CASE("bad operands are rejected with INVALID_ARGUMENT naming the operand") {
  const tensor x23 = in_f32({2, 3});
  const tensor q = make_tensor(OT::TENSOR_QUANT8_ASYMM, {2, 3}, 0.5f, 10);
  const tensor q_other = make_tensor(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 11);
  for (bool executing : {false, true}) {
    CAPTURE(executing);
    // SQUEEZE
    expect_rejected(OpT::SQUEEZE, {in_f32({1, 2}), vec({2})}, {out_f32()}, executing, "squeeze_dims");
    expect_rejected(OpT::SQUEEZE, {in_f32({1, 2}), vec({1})}, {out_f32()}, executing, "squeeze_dims");
    expect_rejected(OpT::SQUEEZE, {in_f32({1, 1, 1, 1, 1}), omitted(OT::TENSOR_INT32)}, {out_f32()}, executing,
                    "input");
    expect_rejected(OpT::SQUEEZE, {q, omitted(OT::TENSOR_INT32)}, {q_other}, executing, "output");
    // EXPAND_DIMS
    expect_rejected(OpT::EXPAND_DIMS, {x23, scalar_i32(3)}, {out_f32()}, executing, "axis");
    expect_rejected(OpT::EXPAND_DIMS, {x23, scalar_i32(-4)}, {out_f32()}, executing, "axis");
    // SPLIT
    expect_rejected(OpT::SPLIT, {x23, scalar_i32(1), scalar_i32(3)}, {out_f32(), out_f32()}, executing, "num_splits");
    expect_rejected(OpT::SPLIT, {x23, scalar_i32(1), scalar_i32(2)}, {out_f32(), out_f32()}, executing, "num_splits");
    expect_rejected(OpT::SPLIT, {x23, scalar_i32(2), scalar_i32(1)}, {out_f32()}, executing, "axis");
    expect_rejected(OpT::SPLIT, {q, scalar_i32(0), scalar_i32(2)}, {q, q_other}, executing, "output1");
    // SLICE
    expect_rejected(OpT::SLICE, {x23, vec({-1, 0}), vec({1, 1})}, {out_f32()}, executing, "begin");
    expect_rejected(OpT::SLICE, {x23, vec({1, 2}), vec({1, 2})}, {out_f32()}, executing, "size");
    expect_rejected(OpT::SLICE, {x23, vec({0}), vec({1, 1})}, {out_f32()}, executing, "begin");
    expect_rejected(OpT::SLICE, {x23, vec({0, 0}), vec({1, -2})}, {out_f32()}, executing, "size");
    // STRIDED_SLICE
    auto ss = [&](std::vector<std::int32_t> b, std::vector<std::int32_t> e, std::vector<std::int32_t> s, int shrink) {
      return std::vector<tensor>{x23, vec(b), vec(e), vec(s), scalar_i32(0), scalar_i32(0), scalar_i32(shrink)};
    };
    expect_rejected(OpT::STRIDED_SLICE, ss({0, 0}, {2, 3}, {1, 0}, 0), {out_f32()}, executing, "strides");
    expect_rejected(OpT::STRIDED_SLICE, ss({0, 0}, {2, 3}, {1, 1}, 1), {out_f32()}, executing, "shrink_axis_mask");
    expect_rejected(OpT::STRIDED_SLICE, ss({1, 0}, {0, 3}, {-1, 1}, 1), {out_f32()}, executing, "shrink_axis_mask");
    expect_rejected(OpT::STRIDED_SLICE, ss({0}, {2, 3}, {1, 1}, 0), {out_f32()}, executing, "begin");
    expect_rejected(OpT::STRIDED_SLICE,
                    {in_f32({1, 1, 1, 1, 1}), vec({0, 0, 0, 0, 0}), vec({1, 1, 1, 1, 1}), vec({1, 1, 1, 1, 1}),
                     scalar_i32(0), scalar_i32(0), scalar_i32(0)},
                    {out_f32()}, executing, "input");
    // TRANSPOSE
    expect_rejected(OpT::TRANSPOSE, {x23, vec({0, 0})}, {out_f32()}, executing, "perm");
    expect_rejected(OpT::TRANSPOSE, {x23, vec({0, 2})}, {out_f32()}, executing, "perm");
    expect_rejected(OpT::TRANSPOSE, {x23, vec({1, 0, 2})}, {out_f32()}, executing, "perm");
    expect_rejected(OpT::TRANSPOSE, {q, vec({1, 0})}, {q_other}, executing, "output");
    // TILE
    expect_rejected(OpT::TILE, {x23, vec({1, -1})}, {out_f32()}, executing, "multiples");
    expect_rejected(OpT::TILE, {x23, vec({1})}, {out_f32()}, executing, "multiples");
    expect_rejected(OpT::TILE, {x23, vec({65536, 65536})}, {out_f32()}, executing, "multiples");
    // GATHER
    expect_rejected(OpT::GATHER, {x23, scalar_i32(2), vec({0})}, {out_f32()}, executing, "axis");
    expect_rejected(OpT::GATHER, {x23, scalar_i32(1), vec({0, 3})}, {out_f32()}, executing, "indices");
    expect_rejected(OpT::GATHER, {x23, scalar_i32(-2), vec({-1})}, {out_f32()}, executing, "indices");
    // FILL
    expect_rejected(OpT::FILL, {vec({2, -1}), make_tensor(OT::FLOAT32, {})}, {out_f32()}, executing, "shape");
    expect_rejected(OpT::FILL, {i32_tensor({1, 2}, {2, 2}), make_tensor(OT::FLOAT32, {})}, {out_f32()}, executing, "shape");
    // PACK
    expect_rejected(OpT::PACK, {scalar_i32(3), x23, x23}, {out_f32()}, executing, "axis");
    expect_rejected(OpT::PACK, {scalar_i32(0), x23, in_f32({3, 2})}, {out_f32()}, executing, "input2");
    expect_rejected(OpT::PACK, {scalar_i32(0), q, make_tensor(OT::TENSOR_QUANT8_ASYMM, {2, 3}, 0.5f, 11)}, {q},
                    executing, "input2");
    // REVERSE
    expect_rejected(OpT::REVERSE, {x23, vec({2})}, {out_f32()}, executing, "axis");
    expect_rejected(OpT::REVERSE, {x23, vec({-1})}, {out_f32()}, executing, "axis");
    expect_rejected(OpT::REVERSE, {x23, vec({0, 1})}, {out_f32()}, executing, "axis");
    // EMBEDDING_LOOKUP
    expect_rejected(OpT::EMBEDDING_LOOKUP, {vec({0, 2}), x23}, {out_f32()}, executing, "lookups");
    expect_rejected(OpT::EMBEDDING_LOOKUP, {vec({0}), in_f32({4})}, {out_f32()}, executing, "values");
    // HASHTABLE_LOOKUP
    const tensor hits = make_tensor(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f, 0);
    expect_rejected(OpT::HASHTABLE_LOOKUP, {vec({1}), vec({1, 2, 3}), x23}, {out_f32(), hits}, executing, "values");
    expect_rejected(OpT::HASHTABLE_LOOKUP, {vec({1}), vec({1, 2}), x23},
                    {out_f32(), make_tensor(OT::TENSOR_QUANT8_ASYMM, {}, 0.5f, 0)}, executing, "hits");
    expect_rejected(OpT::HASHTABLE_LOOKUP, {vec({1}), i32_tensor({1, 2}, {1, 2}), x23}, {out_f32(), hits}, executing, "keys");
  }
  // Execution needs every value.
  expect_rejected(OpT::GATHER, {x23, scalar_i32(0), decl(OT::TENSOR_INT32, {1})}, {out_f32()}, true, "indices");
  expect_rejected(OpT::TILE, {x23, decl(OT::TENSOR_INT32, {2})}, {out_f32()}, true, "multiples");
}

TEST_CASE("zero-sized inputs run and give zero-sized outputs") {
  const tensor z = make_tensor(OT::TENSOR_FLOAT32, {0, 3});
  CHECK(run_ok1(OpT::TRANSPOSE, {z, omitted(OT::TENSOR_INT32)}, out_f32()).dims == dims_t{3, 0});
  CHECK(run_ok1(OpT::SLICE, {z, vec({0, 1}), vec({-1, 2})}, out_f32()).dims == dims_t{0, 2});
  CHECK(run_ok1(OpT::STRIDED_SLICE,
                {z, vec({0, 0}), vec({0, 3}), vec({1, -1}), scalar_i32(3), scalar_i32(3), scalar_i32(0)}, out_f32())
            .dims == dims_t{0, 3});
  CHECK(run_ok1(OpT::TILE, {z, vec({2, 2})}, out_f32()).dims == dims_t{0, 6});
  CHECK(run_ok1(OpT::GATHER, {z, scalar_i32(1), vec({2, 0})}, out_f32()).dims == dims_t{0, 2});
  CHECK(run_ok(OpT::SPLIT, {z, scalar_i32(0), scalar_i32(2)}, {out_f32(), out_f32()})[1].dims == dims_t{0, 3});
  CHECK(run_ok1(OpT::REVERSE, {z, vec({0})}, out_f32()).dims == dims_t{0, 3});
  CHECK(run_ok1(OpT::PACK, {scalar_i32(2), z, z}, out_f32()).dims == dims_t{0, 3, 2});
  CHECK(run_ok1(OpT::EXPAND_DIMS, {z, scalar_i32(-1)}, out_f32()).dims == dims_t{0, 3, 1});
  CHECK(run_ok1(OpT::EMBEDDING_LOOKUP, {vec({}), in_f32({2, 3})}, out_f32()).dims == dims_t{0, 3});
}

TEST_CASE("STRIDED_SLICE: hand-worked cases from the spec's semantics") {
  const tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto run = [&](std::vector<std::int32_t> b, std::vector<std::int32_t> e, std::vector<std::int32_t> s, int bm, int em,
                 int shrink) {
    return run_ok1(OpT::STRIDED_SLICE, {x, vec(b), vec(e), vec(s), scalar_i32(bm), scalar_i32(em), scalar_i32(shrink)},
                   out_f32());
  };
  // Reverse both dimensions with masks.
  auto r = run({0, 0}, {0, 0}, {-1, -1}, 3, 3, 0);
  CHECK(r.dims == dims_t{2, 3});
  CHECK(compare(r, {6, 5, 4, 3, 2, 1}, true) == "");
  // Row 1, every other column from the end; shrink the row.
  r = run({1, -1}, {2, -4}, {1, -2}, 0, 0, 1);
  CHECK(r.dims == dims_t{2});
  CHECK(compare(r, {6, 4}, true) == "");
  // Out-of-range begin/end saturate.
  r = run({-10, 1}, {10, 10}, {1, 1}, 0, 0, 0);
  CHECK(compare(r, {2, 3, 5, 6}, true) == "");
  // An empty range gives a zero extent.
  r = run({0, 2}, {2, 1}, {1, 1}, 0, 0, 0);
  CHECK(r.dims == dims_t{2, 0});
  // Every dimension shrunk: [1], not a rank-0 tensor (CTS strided_slice_b155662254).
  r = run({1, -1}, {2, 3}, {1, 1}, 0, 0, 3);
  CHECK(r.dims == dims_t{1});
  CHECK(compare(r, {6}, true) == "");
  // Likewise SQUEEZE of [1, 1, 1] (CTS squeeze_b155238914).
  const tensor q = run_ok1(OpT::SQUEEZE, {f32({1, 1, 1}, {7}), omitted(OT::TENSOR_INT32)}, out_f32());
  CHECK(q.dims == dims_t{1});
  CHECK(compare(q, {7}, true) == "");
}

TEST_CASE("HASHTABLE_LOOKUP: the spec example, unsorted keys still find their rows") {
  const tensor values = f32({3, 2}, {0.0f, 0.1f, 1.0f, 1.1f, 2.0f, 2.1f});
  const tensor hits_decl = decl(OT::TENSOR_QUANT8_ASYMM, {}, 1.0f, 0);
  auto r =
      run_ok(OpT::HASHTABLE_LOOKUP, {vec({1234, -292, -11, 0}), vec({-11, 0, 1234}), values}, {out_f32(), hits_decl});
  CHECK(compare(r[0], {2.0f, 2.1f, 0.0f, 0.0f, 0.0f, 0.1f, 1.0f, 1.1f}, true) == "");
  CHECK(compare(r[1], {1, 0, 1, 1}, true) == "");
  r = run_ok(OpT::HASHTABLE_LOOKUP, {vec({0, 1234}), vec({1234, -11, 0}), values}, {out_f32(), hits_decl});
  CHECK(compare(r[0], {2.0f, 2.1f, 0.0f, 0.1f}, true) == "");
}

// ---------------------------------------------------------------------------------
// End to end: exec::prepare / exec::execute
// ---------------------------------------------------------------------------------

bool prepares(const one_op_model& m) { return prepare_only(m.model).status == ty::ErrorStatus::NONE; }

TEST_CASE("end to end: SPLIT with three outputs of unknown shape") {
  const tensor x = f32({2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const tensor o = decl(OT::TENSOR_FLOAT32, {0, 0});
  const auto r = run_model_ok(single(OpT::SPLIT, {x, scalar_i32(-1), scalar_i32(3)}, {o, o, o}));
  REQUIRE(r.outs.size() == 3);
  CHECK(r.outs[0].dims == dims_t{2, 2});
  CHECK(compare(r.outs[0], {0, 1, 6, 7}, true) == "");
  CHECK(compare(r.outs[1], {2, 3, 8, 9}, true) == "");
  CHECK(compare(r.outs[2], {4, 5, 10, 11}, true) == "");
}

TEST_CASE("end to end: omitted optional inputs (SQUEEZE dims, TRANSPOSE perm)") {
  const tensor x = f32({1, 3, 1, 2}, {1, 2, 3, 4, 5, 6});
  auto r = run_model_ok(single(OpT::SQUEEZE, {x, omitted(OT::TENSOR_INT32, {0})}, {decl(OT::TENSOR_FLOAT32, {3, 2})}));
  CHECK(r.outs[0].dims == dims_t{3, 2});
  const tensor y = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  r = run_model_ok(single(OpT::TRANSPOSE, {y, omitted(OT::TENSOR_INT32, {0})}, {decl(OT::TENSOR_FLOAT32, {0, 0})}));
  CHECK(r.outs[0].dims == dims_t{3, 2});
  CHECK(compare(r.outs[0], {1, 4, 2, 5, 3, 6}, true) == "");
}

TEST_CASE("end to end: value-dependent shapes from model inputs (FILL, TILE, SLICE, STRIDED_SLICE)") {
  auto r = run_model_ok(single(OpT::FILL, {vec({2, 2}), scalar_i32(0)}, {decl(OT::TENSOR_INT32, {0, 0})}));
  CHECK(r.outs[0].dims == dims_t{2, 2});
  const tensor x = f32({2, 2}, {1, 2, 3, 4});
  r = run_model_ok(single(OpT::TILE, {x, vec({1, 2})}, {decl(OT::TENSOR_FLOAT32)}, 2));
  CHECK(r.outs[0].dims == dims_t{2, 4});
  CHECK(compare(r.outs[0], {1, 2, 1, 2, 3, 4, 3, 4}, true) == "");
  r = run_model_ok(single(OpT::SLICE, {x, vec({1, 0}), vec({-1, 1})}, {decl(OT::TENSOR_FLOAT32, {0, 0})}, 3));
  CHECK(compare(r.outs[0], {3}, true) == "");
  // begin, end and strides are model inputs, the masks constants.
  r = run_model_ok(single(OpT::STRIDED_SLICE,
                          {x, vec({1, 1}), vec({-3, -3}), vec({-1, -1}), scalar_i32(0), scalar_i32(0), scalar_i32(0)},
                          {decl(OT::TENSOR_FLOAT32, {0, 0})}, 4));
  CHECK(r.outs[0].dims == dims_t{2, 2});
  CHECK(compare(r.outs[0], {4, 3, 2, 1}, true) == "");
}

TEST_CASE("end to end: out-of-range lookups fail at execution, not before") {
  const tensor x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  // The indices are a model input, the axis a constant.
  auto m = single_with_inputs(OpT::GATHER, {x, scalar_i32(0), vec({0, 3})}, {decl(OT::TENSOR_FLOAT32, {2, 2})}, {0, 2});
  CHECK(prepares(m));
  auto r = run_model(m);
  CHECK(r.status == ty::ErrorStatus::INVALID_ARGUMENT);
  CHECK(r.message.find("indices") != std::string::npos);
  m = single(OpT::EMBEDDING_LOOKUP, {vec({-1}), x}, {decl(OT::TENSOR_FLOAT32, {1, 2})}, 2);
  CHECK(prepares(m));
  r = run_model(m);
  CHECK(r.status == ty::ErrorStatus::INVALID_ARGUMENT);
  CHECK(r.message.find("lookups") != std::string::npos);
  // A constant out-of-range index is already rejected when the model is prepared.
  m = single(OpT::GATHER, {x, scalar_i32(1), vec({2})}, {decl(OT::TENSOR_FLOAT32, {3, 1})});
  const auto p = prepare_only(m.model);
  CHECK(p.status != ty::ErrorStatus::NONE);
  CHECK(p.message.find("indices") != std::string::npos);
}

TEST_CASE("end to end: HASHTABLE_LOOKUP outputs and hits, RANK, PACK, REVERSE, EXPAND_DIMS") {
  const tensor v = values(OT::TENSOR_QUANT8_ASYMM, {3, 2}, {1, 11, 21, 31, 41, 51}, 0.5f, 0);
  auto r = run_model_ok(single(OpT::HASHTABLE_LOOKUP, {vec({123, 250, 255, 0}), vec({0, 123, 255}), v},
                               {decl(OT::TENSOR_QUANT8_ASYMM, {4, 2}, 0.5f, 0), decl(OT::TENSOR_QUANT8_ASYMM, {4}, 1.0f, 0)},
                               3));
  // Rows of keys 123, (miss), 255, 0; as real values (scale 0.5).
  CHECK(compare(r.outs[0], {10.5, 15.5, 0, 0, 20.5, 25.5, 0.5, 5.5}, true) == "");
  CHECK(compare(r.outs[1], {1, 0, 1, 1}, true) == "");

  r = run_model_ok(single(OpT::RANK, {in_f32({2, 1, 3})}, {decl(OT::INT32)}));
  CHECK(r.outs[0].get<std::int32_t>(0) == 3);

  const tensor a = f32({2}, {1, 2}), b = f32({2}, {3, 4});
  r = run_model_ok(single_with_inputs(OpT::PACK, {scalar_i32(1), a, b}, {decl(OT::TENSOR_FLOAT32, {0, 0})}, {1, 2}));
  CHECK(r.outs[0].dims == dims_t{2, 2});
  CHECK(compare(r.outs[0], {1, 3, 2, 4}, true) == "");

  r = run_model_ok(single(OpT::REVERSE, {f32({2, 2}, {1, 2, 3, 4}), vec({1})}, {decl(OT::TENSOR_FLOAT32, {2, 2})}));
  CHECK(compare(r.outs[0], {2, 1, 4, 3}, true) == "");

  r = run_model_ok(single(OpT::EXPAND_DIMS, {f32({2}, {1, 2}), scalar_i32(0)}, {decl(OT::TENSOR_FLOAT32)}));
  CHECK(r.outs[0].dims == dims_t{1, 2});
}

TEST_CASE("validation: a declared output shape that disagrees with inference is rejected") {
  CHECK(!prepares(single(OpT::TRANSPOSE, {in_f32({2, 3}), vec({1, 0})}, {decl(OT::TENSOR_FLOAT32, {2, 3})})));
  // strided_slice_invalid_output_dims (CTS V1_2): shrinking a dimension of 2 elements.
  const auto m = single(OpT::STRIDED_SLICE,
                        {in_f32({2, 3}), vec({0, 0}), vec({2, 3}), vec({1, 1}), scalar_i32(0), scalar_i32(0),
                         scalar_i32(1)},
                        {decl(OT::TENSOR_FLOAT32, {3})});
  const auto r = prepare_only(m.model);
  CHECK(r.status != ty::ErrorStatus::NONE);
  CHECK(r.message.find("shrink_axis_mask") != std::string::npos);
}

}  // namespace
