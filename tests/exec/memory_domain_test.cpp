// Memory domains (exec/device_memory.hpp): IDevice::allocate's role and shape checks,
// IBuffer copyTo/copyFrom and the initialized state the HAL defines, requests naming
// buffers by token (chaining one execution's output into the next without a copy through
// the client), every way such a request can be wrong, and the example driver's IDevice /
// IBuffer wired to it in each execution style.
#include <doctest/doctest.h>

#include <poll.h>
#include <unistd.h>

#include <cstring>
#include <future>
#include <stop_token>
#include <thread>
#include <vector>

#include "minimal_driver/driver.hpp"
#include "nnhal/exec/device_memory.hpp"
#include "nnhal/exec/driver.hpp"
#include "support/model_builder.hpp"

namespace ex = nnhal::exec;
namespace ty = nnhal::types;
using ty::ErrorStatus;
using ty::OperandType;
using dims = std::vector<std::uint32_t>;

namespace {

std::shared_ptr<const ex::prepared_model> prepare(const ty::Model& m) {
  auto pm = ex::prepare(m, {});
  REQUIRE_MESSAGE(pm.ok(), pm.err().message);
  return std::move(*pm);
}

ty::Memory floats(const std::vector<float>& v) {
  auto m = ty::Memory::allocate(v.size() * sizeof(float));
  std::memcpy(m.data, v.data(), m.size);
  return m;
}

std::vector<float> read_floats(const ty::Memory& m) {
  std::vector<float> v(m.size / sizeof(float));
  std::memcpy(v.data(), m.data, m.size);
  return v;
}

/// One pool per argument: an input or output in its own Memory, or a buffer token.
struct request_of {
  ty::Request r;
  request_of& in(const ty::Memory& m, dims d = {}) { return arg(r.inputs, m, std::move(d)); }
  request_of& out(const ty::Memory& m) { return arg(r.outputs, m, {}); }
  request_of& in_token(std::uint32_t t, dims d = {}) { return token(r.inputs, t, std::move(d)); }
  request_of& out_token(std::uint32_t t) { return token(r.outputs, t, {}); }

 private:
  request_of& arg(std::vector<ty::RequestArgument>& args, const ty::Memory& m, dims d) {
    args.push_back({false, {static_cast<std::uint32_t>(r.pools.size()), 0, static_cast<std::uint32_t>(m.size)}, std::move(d)});
    r.pools.emplace_back(m);
    return *this;
  }
  request_of& token(std::vector<ty::RequestArgument>& args, std::uint32_t t, dims d) {
    args.push_back({false, {static_cast<std::uint32_t>(r.pools.size()), 0, 0}, std::move(d)});
    r.pools.emplace_back(t);
    return *this;
  }
};

ex::execution_outcome run(const ex::prepared_model& pm, const ty::Request& r, const ex::buffer_registry* reg,
                          std::stop_token stop = {}) {
  ex::execute_options o;
  o.buffers = reg;
  o.stop = stop;
  return ex::execute(pm, r, o);
}

std::string st(ErrorStatus s) { return std::string(ty::to_string(s)); }

/// out[?, 2] = x[?, 2] + y[2]: an output whose row count is known only at execution.
ty::Model rows_plus_row_model() {
  nnhal::test::model_builder b;
  auto g = b.main();
  const auto x = g.input(OperandType::TENSOR_FLOAT32, {0, 2});
  const auto y = g.input(OperandType::TENSOR_FLOAT32, {2});
  const auto z = g.output(OperandType::TENSOR_FLOAT32, {0, 2});
  g.op(ty::OperationType::ADD, {x, y, g.i32(0)}, {z});
  return b.build();
}

const std::vector<float> xs = {1, 2, 3, 4}, ys = {10, 20, 30, 40};

}  // namespace

TEST_CASE("allocate: roles, shapes and tokens") {
  const auto pm = prepare(nnhal::test::make_add_model());
  const auto other = prepare(nnhal::test::make_add_model(OperandType::TENSOR_QUANT8_ASYMM));
  ex::buffer_registry reg;
  auto status_of = [&](dims desc, std::vector<ex::buffer_role> in, std::vector<ex::buffer_role> out) {
    auto b = reg.allocate(desc, in, out);
    return b.ok() ? ErrorStatus::NONE : b.err().status;
  };
  CHECK(st(status_of({}, {}, {})) == "INVALID_ARGUMENT");                          // no roles
  CHECK(st(status_of({}, {{pm, 2}}, {})) == "INVALID_ARGUMENT");                   // ADD has inputs 0 and 1
  CHECK(st(status_of({}, {}, {{pm, 1}})) == "INVALID_ARGUMENT");                   // and one output
  CHECK(st(status_of({}, {{pm, 0}, {pm, 0}}, {})) == "INVALID_ARGUMENT");          // a role twice
  CHECK(st(status_of({}, {{pm, 0, 0.0f}}, {})) == "INVALID_ARGUMENT");             // frequency 0
  CHECK(st(status_of({}, {{pm, 0, 1.5f}}, {})) == "INVALID_ARGUMENT");             // frequency > 1
  CHECK(st(status_of({}, {{nullptr, 0}}, {})) == "INVALID_ARGUMENT");              // no model
  CHECK(st(status_of({}, {{pm, 0}, {other, 0}}, {})) == "INVALID_ARGUMENT");       // f32 and quant8
  {
    // Same type and shape, other quantization: one buffer cannot mean two things.
    const auto q1 = prepare(nnhal::test::make_add_model(OperandType::TENSOR_QUANT8_ASYMM));
    auto scaled = nnhal::test::make_add_model(OperandType::TENSOR_QUANT8_ASYMM);
    scaled.main.operands[scaled.main.inputIndexes[0]].scale = 0.25f;
    auto shifted = nnhal::test::make_add_model(OperandType::TENSOR_QUANT8_ASYMM);
    shifted.main.operands[shifted.main.inputIndexes[0]].zeroPoint = 3;
    const auto q2 = prepare(scaled), q3 = prepare(shifted);
    CHECK(st(status_of({}, {{q1, 0}, {q2, 0}}, {})) == "INVALID_ARGUMENT");
    CHECK(st(status_of({}, {{q1, 0}, {q3, 0}}, {})) == "INVALID_ARGUMENT");
    CHECK(st(status_of({}, {{q1, 0}, {q3, 1}}, {})) == "NONE");  // input 1 kept the original parameters
  }
  CHECK(reg.size() == 0);
  CHECK(st(status_of({3, 3}, {{pm, 0}}, {})) == "INVALID_ARGUMENT");               // desc vs role shape
  CHECK(st(status_of({2, 2, 1}, {{pm, 0}}, {})) == "INVALID_ARGUMENT");            // desc vs role rank
  CHECK(reg.size() == 0);

  // A role of unknown shape: the buffer's size is unknown unless the descriptor gives it.
  const auto dyn = prepare(rows_plus_row_model());
  CHECK(st(status_of({}, {}, {{dyn, 0}})) == "GENERAL_FAILURE");
  auto sized = reg.allocate(dims{3, 2}, {}, std::vector<ex::buffer_role>{{dyn, 0}});
  REQUIRE(sized.ok());
  CHECK((*sized)->size() == 24);
  CHECK((*sized)->allocated_dims() == dims{3, 2});

  // Tokens: positive, distinct among live buffers, given back on destruction.
  auto a1 = reg.allocate({}, std::vector<ex::buffer_role>{{pm, 0}}, {});
  auto a2 = reg.allocate({}, std::vector<ex::buffer_role>{{pm, 0}, {pm, 1}}, std::vector<ex::buffer_role>{{pm, 0}});
  REQUIRE(a1.ok());
  REQUIRE(a2.ok());
  CHECK((*a1)->token() > 0);
  CHECK((*a1)->token() != (*a2)->token());
  CHECK((*a1)->token() != (*sized)->token());
  CHECK(reg.find((*a1)->token()) == *a1);
  CHECK(reg.size() == 3);
  const auto t1 = (*a1)->token();
  a1->reset();
  CHECK(reg.find(t1) == nullptr);
  CHECK(reg.size() == 2);
}

TEST_CASE("IBuffer copyTo and copyFrom follow the initialized state") {
  const auto pm = prepare(nnhal::test::make_add_model());
  ex::buffer_registry reg;
  auto buf = *reg.allocate({}, std::vector<ex::buffer_role>{{pm, 0}}, {});
  auto dst = ty::Memory::allocate(16);
  CHECK(!buf->initialized());
  CHECK(st(buf->copy_to(dst).err().status) == "GENERAL_FAILURE");  // never written
  CHECK(st(buf->copy_from(floats({1, 2, 3}), {}).err().status) == "INVALID_ARGUMENT");         // 12 bytes
  CHECK(st(buf->copy_from(floats(xs), dims{4, 1}).err().status) == "INVALID_ARGUMENT");        // shape
  CHECK(st(buf->copy_from(floats(xs), dims{0, 2}).err().status) == "INVALID_ARGUMENT");        // not specified
  CHECK(!buf->initialized());
  REQUIRE(buf->copy_from(floats(xs), dims{2, 2}).ok());
  CHECK(buf->initialized());
  CHECK(st(buf->copy_to(ty::Memory::allocate(15)).err().status) == "INVALID_ARGUMENT");
  auto ro = ty::Memory::allocate(16);
  ro.writable = false;
  CHECK(st(buf->copy_to(ro).err().status) == "INVALID_ARGUMENT");
  REQUIRE(buf->copy_to(dst).ok());
  CHECK(read_floats(dst) == xs);
  REQUIRE(buf->copy_from(floats(ys), {}).ok());  // empty: the allocated shape
  REQUIRE(buf->copy_to(dst).ok());
  CHECK(read_floats(dst) == ys);
  // A failed copy leaves no valid contents behind.
  CHECK(st(buf->copy_from(floats({1, 2}), {}).err().status) == "INVALID_ARGUMENT");
  CHECK(!buf->initialized());
  CHECK(st(buf->copy_to(dst).err().status) == "GENERAL_FAILURE");
}

TEST_CASE("a scalar buffer") {
  // out = ADD(x, y, act) with the activation given at execution, from a buffer.
  nnhal::test::model_builder b;
  auto g = b.main();
  const auto x = g.input(OperandType::TENSOR_FLOAT32, {2, 2});
  const auto y = g.input(OperandType::TENSOR_FLOAT32, {2, 2});
  const auto act = g.input(OperandType::INT32, {});
  const auto z = g.output(OperandType::TENSOR_FLOAT32, {2, 2});
  g.op(ty::OperationType::ADD, {x, y, act}, {z});
  const auto pm = prepare(b.build());
  ex::buffer_registry reg;
  CHECK(st(reg.allocate(dims{1}, std::vector<ex::buffer_role>{{pm, 2}}, {}).err().status) == "INVALID_ARGUMENT");
  auto buf = *reg.allocate({}, std::vector<ex::buffer_role>{{pm, 2}}, {});
  CHECK(buf->size() == 4);
  auto relu = ty::Memory::allocate(4);
  const std::int32_t one = 1;  // RELU
  std::memcpy(relu.data, &one, 4);
  CHECK(st(buf->copy_from(relu, dims{1}).err().status) == "INVALID_ARGUMENT");  // a scalar has no dimensions
  REQUIRE(buf->copy_from(relu, {}).ok());
  auto out = ty::Memory::allocate(16);
  auto o = run(*pm, request_of{}.in(floats({-1, 2, -3, 4})).in(floats({0, 0, 0, 0})).in_token(buf->token()).out(out).r, &reg);
  REQUIRE_MESSAGE(o.status == ErrorStatus::NONE, o.message);
  CHECK(read_floats(out) == std::vector<float>{0, 2, 0, 4});
}

TEST_CASE("one execution's output feeds the next through a buffer") {
  const auto pm = prepare(nnhal::test::make_add_model());
  ex::buffer_registry reg;
  auto buf = *reg.allocate({}, std::vector<ex::buffer_role>{{pm, 0}}, std::vector<ex::buffer_role>{{pm, 0}});

  auto first = run(*pm, request_of{}.in(floats(xs)).in(floats(ys)).out_token(buf->token()).r, &reg);
  REQUIRE_MESSAGE(first.status == ErrorStatus::NONE, first.message);
  CHECK(first.outputShapes[0].dimensions == dims{2, 2});
  CHECK(buf->initialized());
  CHECK(buf->dims() == dims{2, 2});

  auto out = ty::Memory::allocate(16);
  auto second = run(*pm, request_of{}.in_token(buf->token()).in(floats(ys)).out(out).r, &reg);
  REQUIRE_MESSAGE(second.status == ErrorStatus::NONE, second.message);
  CHECK(read_floats(out) == std::vector<float>{21, 42, 63, 84});  // (x + y) + y

  auto copy = ty::Memory::allocate(16);
  REQUIRE(buf->copy_to(copy).ok());
  CHECK(read_floats(copy) == std::vector<float>{11, 22, 33, 44});
}

TEST_CASE("requests naming buffers wrongly are rejected and leave the buffer alone") {
  const auto pm = prepare(nnhal::test::make_add_model());
  const auto twin = prepare(nnhal::test::make_add_model());  // same model, another prepared model
  ex::buffer_registry reg;
  auto in0 = *reg.allocate({}, std::vector<ex::buffer_role>{{pm, 0}}, {});
  auto out0 = *reg.allocate({}, {}, std::vector<ex::buffer_role>{{pm, 0}});
  auto both = *reg.allocate({}, std::vector<ex::buffer_role>{{pm, 0}}, std::vector<ex::buffer_role>{{pm, 0}});
  REQUIRE(in0->copy_from(floats(xs), {}).ok());
  REQUIRE(both->copy_from(floats(xs), {}).ok());
  auto status_on = [&](const ex::prepared_model& m, const ty::Request& r, const ex::buffer_registry& g) {
    return st(run(m, r, &g).status);
  };
  auto status = [&](const ty::Request& r) { return status_on(*pm, r, reg); };
  const auto x = floats(xs), y = floats(ys), z = ty::Memory::allocate(16);

  SUBCASE("a token with no registry") { CHECK(st(run(*pm, request_of{}.in_token(in0->token()).in(y).out(z).r, nullptr).status) == "INVALID_ARGUMENT"); }
  SUBCASE("an unknown token") { CHECK(status(request_of{}.in_token(9999).in(y).out(z).r) == "INVALID_ARGUMENT"); }
  SUBCASE("a token of another device's registry") {
    ex::buffer_registry elsewhere;
    CHECK(status_on(*pm, request_of{}.in_token(in0->token()).in(y).out(z).r, elsewhere) == "INVALID_ARGUMENT");
  }
  SUBCASE("a role it was not allocated for") {
    CHECK(status(request_of{}.in(x).in_token(in0->token()).out(z).r) == "INVALID_ARGUMENT");   // input 1
    CHECK(status(request_of{}.in(x).in(y).out_token(in0->token()).r) == "INVALID_ARGUMENT");   // as output
    CHECK(status(request_of{}.in_token(out0->token()).in(y).out(z).r) == "INVALID_ARGUMENT");  // as input
  }
  SUBCASE("another prepared model of the same model") {
    CHECK(status_on(*twin, request_of{}.in_token(in0->token()).in(y).out(z).r, reg) == "INVALID_ARGUMENT");
  }
  SUBCASE("the same buffer as input and output") {
    ty::Request r = request_of{}.in_token(both->token()).in(y).out(z).r;
    r.outputs[0].location = {0, 0, 0};  // output 0 on the buffer input 0 uses
    CHECK(status(r) == "INVALID_ARGUMENT");
  }
  SUBCASE("a location other than offset 0, length 0") {
    ty::Request r = request_of{}.in_token(in0->token()).in(y).out(z).r;
    r.inputs[0].location.offset = 4;
    r.inputs[0].location.length = 12;
    CHECK(status(r) == "INVALID_ARGUMENT");
    r.inputs[0].location.offset = 0;
    r.inputs[0].location.length = 16;  // the whole buffer, but the HAL says length 0
    CHECK(status(r) == "INVALID_ARGUMENT");
  }
  SUBCASE("one buffer named by two pools, as input and output") {
    ty::Request r = request_of{}.in_token(both->token()).in(y).out_token(both->token()).r;
    CHECK(status(r) == "INVALID_ARGUMENT");
  }
  SUBCASE("dimensions that disagree with the buffer's") {
    CHECK(status(request_of{}.in_token(in0->token(), {4, 1}).in(y).out(z).r) == "INVALID_ARGUMENT");
  }
  SUBCASE("an uninitialized input buffer is GENERAL_FAILURE") {
    auto fresh = *reg.allocate({}, std::vector<ex::buffer_role>{{pm, 0}}, {});
    CHECK(status(request_of{}.in_token(fresh->token()).in(y).out(z).r) == "GENERAL_FAILURE");
  }
  // None of this touched the buffers' state.
  CHECK(in0->initialized());
  CHECK(both->initialized());
  CHECK(!out0->initialized());
}

TEST_CASE("an execution that fails after it started leaves its output buffer uninitialized") {
  // z = (x + y) + y: two operations, so the execution can end between them.
  nnhal::test::model_builder b;
  auto g = b.main();
  const auto x = g.input(OperandType::TENSOR_FLOAT32, {2, 2});
  const auto y = g.input(OperandType::TENSOR_FLOAT32, {2, 2});
  const auto t = g.temporary(OperandType::TENSOR_FLOAT32, {2, 2});
  const auto z = g.output(OperandType::TENSOR_FLOAT32, {2, 2});
  g.op(ty::OperationType::ADD, {x, y, g.i32(0)}, {t});
  g.op(ty::OperationType::ADD, {t, y, g.i32(0)}, {z});
  const auto pm = prepare(b.build());
  ex::buffer_registry reg;
  auto buf = *reg.allocate({}, {}, std::vector<ex::buffer_role>{{pm, 0}});
  REQUIRE(buf->copy_from(floats(xs), {}).ok());
  ex::execute_options o;
  o.buffers = &reg;
  const ty::Request r = request_of{}.in(floats(xs)).in(floats(ys)).out_token(buf->token()).r;

  // Ended before any operation ran: nothing was written, the contents stay.
  std::stop_source cancel;
  cancel.request_stop();
  ex::execute_options stopped = o;
  stopped.stop = cancel.get_token();
  CHECK(st(ex::execute(*pm, r, stopped).status) == "GENERAL_FAILURE");
  CHECK(buf->initialized());

  // Ended after the first of two operations: the buffer's contents are undefined now.
  auto started = ex::execution::start(pm, r, o);
  REQUIRE(started.ok());
  ex::serial_context serial;
  CHECK((*started)->step(serial) == ErrorStatus::NONE);
  REQUIRE(!(*started)->done());
  (*started)->abort(ErrorStatus::GENERAL_FAILURE, "stopped by the test");
  CHECK(st((*started)->finish().status) == "GENERAL_FAILURE");
  CHECK(!buf->initialized());
  CHECK(st(buf->copy_to(ty::Memory::allocate(16)).err().status) == "GENERAL_FAILURE");

  // And a whole run initializes it again.
  auto whole = ex::execute(*pm, r, o);
  REQUIRE_MESSAGE(whole.status == ErrorStatus::NONE, whole.message);
  auto copy = ty::Memory::allocate(16);
  REQUIRE(buf->copy_to(copy).ok());
  CHECK(read_floats(copy) == std::vector<float>{21, 42, 63, 84});
}

TEST_CASE("dynamic output shapes into a buffer of fixed shape") {
  const auto pm = prepare(rows_plus_row_model());
  ex::buffer_registry reg;
  auto buf = *reg.allocate(dims{3, 2}, {}, std::vector<ex::buffer_role>{{pm, 0}});
  auto exec_rows = [&](std::uint32_t rows) {
    std::vector<float> v(rows * 2, 1.0f);
    return run(*pm, request_of{}.in(floats(v), {rows, 2}).in(floats({5, 6})).out_token(buf->token()).r, &reg);
  };
  auto fits = exec_rows(3);
  REQUIRE_MESSAGE(fits.status == ErrorStatus::NONE, fits.message);
  CHECK(buf->dims() == dims{3, 2});
  auto all = ty::Memory::allocate(24);
  REQUIRE(buf->copy_to(all).ok());
  CHECK(read_floats(all) == std::vector<float>{6, 7, 6, 7, 6, 7});

  auto smaller = exec_rows(2);  // fits the bytes, but is not the buffer's shape
  CHECK(st(smaller.status) == "GENERAL_FAILURE");
  CHECK(!buf->initialized());

  REQUIRE(exec_rows(3).status == ErrorStatus::NONE);
  CHECK(buf->initialized());
  // Too large for the buffer: the client cannot grow a driver buffer, so this is not
  // OUTPUT_INSUFFICIENT_SIZE (which asks it to retry with more memory) but GENERAL_FAILURE.
  auto larger = exec_rows(4);
  CHECK(st(larger.status) == "GENERAL_FAILURE");
  CHECK(larger.outputShapes.empty());
  CHECK(!buf->initialized());
}

TEST_CASE("concurrent executions chaining their own buffers on one prepared model") {
  const auto pm = prepare(nnhal::test::make_add_model());
  ex::buffer_registry reg;
  auto ones = *reg.allocate({}, std::vector<ex::buffer_role>{{pm, 1}}, {});  // read by every thread at once
  REQUIRE(ones->copy_from(floats({1, 1, 1, 1}), {}).ok());
  std::vector<std::thread> threads;
  std::vector<int> failures(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      auto buf = reg.allocate({}, std::vector<ex::buffer_role>{{pm, 0}}, std::vector<ex::buffer_role>{{pm, 0}});
      if (!buf.ok()) {
        failures[t] = 1;
        return;
      }
      const float f = static_cast<float>(t);
      if (!(*buf)->copy_from(floats({f, f, f, f}), {}).ok()) failures[t] = 2;
      for (int i = 0; i < 20; ++i) {  // buf = buf + 1, through an intermediate output pool
        auto tmp = ty::Memory::allocate(16);
        if (run(*pm, request_of{}.in_token((*buf)->token()).in_token(ones->token()).out(tmp).r, &reg).status !=
            ErrorStatus::NONE)
          failures[t] = 3;
        if (!(*buf)->copy_from(tmp, {}).ok()) failures[t] = 4;
      }
      auto end = ty::Memory::allocate(16);
      if (!(*buf)->copy_to(end).ok() || read_floats(end) != std::vector<float>(4, f + 20)) failures[t] = 5;
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures == std::vector<int>(8, 0));
  CHECK(reg.size() == 1);  // `ones`; each thread's buffer died with it
}

TEST_CASE("the example driver's IDevice::allocate and IBuffer in every execution style") {
  namespace exa = nnhal::example;
  exa::device_config cfg;
  cfg.measure_capabilities = false;
  auto dev = exa::device::create(cfg);
  REQUIRE(dev.ok());
  auto pm = (*dev)->prepareModel(nnhal::test::make_add_model(), ty::ExecutionPreference::FAST_SINGLE_ANSWER,
                                 ty::Priority::MEDIUM, {});
  REQUIRE(pm.ok());
  CHECK(st((*dev)->allocate({}, {*pm}, {{1, 0, 1.0f}}, {}).err().status) == "INVALID_ARGUMENT");  // model 1 of 1
  auto a = (*dev)->allocate({}, {*pm}, {{0, 0, 1.0f}}, {{0, 0, 1.0f}});
  REQUIRE(a.ok());
  auto& buf = *a->ibuffer;
  CHECK(a->token == buf.token());
  auto probe = ty::Memory::allocate(16);
  CHECK(st(buf.copyTo(probe)) == "GENERAL_FAILURE");
  CHECK(st(buf.copyFrom(floats(xs), {})) == "NONE");

  auto b = (*pm)->configureExecutionBurst();
  REQUIRE(b.ok());
  auto in_style = [&](exa::execution_style style, const ty::Request& r) {
    exa::execution_result res;
    switch (style) {
      case exa::execution_style::sync: res = (*pm)->executeSynchronously(r, {}); break;
      case exa::execution_style::async: {
        std::promise<exa::execution_result> done;
        (*pm)->execute(r, {}, [&](exa::execution_result x) { done.set_value(std::move(x)); });
        res = done.get_future().get();
        break;
      }
      case exa::execution_style::fenced: {
        auto f = (*pm)->executeFenced(r, {}, {});
        if (!f.ok()) return exa::execution_result{f.err().status, f.err().message, {}, {}, {}};
        pollfd pf{f->syncFence, POLLIN, 0};
        REQUIRE(::poll(&pf, 1, 10000) == 1);
        ::close(f->syncFence);
        res = f->outcome();
        break;
      }
      case exa::execution_style::burst: {
        const std::vector<std::int32_t> slots(r.pools.size(), -1);
        res = (*b)->execute(r, slots, {});
        break;
      }
    }
    return res;
  };

  // In each style: tmp = buf + y (the buffer as an input), then buf = tmp + 0 (as the output).
  std::vector<float> expect = xs;
  for (auto style : {exa::execution_style::sync, exa::execution_style::async, exa::execution_style::fenced,
                     exa::execution_style::burst}) {
    CAPTURE(std::string(exa::to_string(style)));
    auto tmp = ty::Memory::allocate(16);
    auto read = in_style(style, request_of{}.in_token(a->token).in(floats(ys)).out(tmp).r);
    REQUIRE_MESSAGE(read.status == ErrorStatus::NONE, read.message);
    auto write = in_style(style, request_of{}.in(tmp).in(floats({0, 0, 0, 0})).out_token(a->token).r);
    REQUIRE_MESSAGE(write.status == ErrorStatus::NONE, write.message);
    for (std::size_t i = 0; i < expect.size(); ++i) expect[i] += ys[i];
    CHECK(st(buf.copyTo(probe)) == "NONE");
    CHECK(read_floats(probe) == expect);
    // A bad use is refused the same way in every style.
    CHECK(st(in_style(style, request_of{}.in(tmp).in_token(a->token).out(tmp).r).status) == "INVALID_ARGUMENT");
  }

  // Released by the client: the token is gone, though the burst's kept execution last
  // used the buffer's memory.
  const std::uint32_t token = a->token;
  a->ibuffer.reset();
  for (auto style : {exa::execution_style::sync, exa::execution_style::burst}) {
    CAPTURE(std::string(exa::to_string(style)));
    CHECK(st(in_style(style, request_of{}.in_token(token).in(floats(ys)).out(probe).r).status) == "INVALID_ARGUMENT");
  }
}
