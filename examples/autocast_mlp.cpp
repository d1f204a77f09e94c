// SPDX-License-Identifier: MIT
// mixprec example: a two-layer MLP forward pass under autocast, on the CPU and the CUDA op tables.
//
//   linear(4 -> 3) -> relu -> linear(3 -> 2) -> log_softmax -> nll_loss
//
// Each op asks mixprec::autocast_cast how PyTorch's autocast would convert its arguments, computes
// with plain loops in the type it gets (the kernels are not the point here), and records the
// policy, the input types, the compute type (mixprec::autocast_decide) and the type of the result
// it actually produced. The forward pass runs once in an autocast_scope(device_kind::cpu)
// (bfloat16) and once in an autocast_scope(device_kind::cuda) (float16), and the two traces are
// printed side by side, followed by the loss of each and of a pass without autocast. Nothing here
// runs on a GPU: "cuda" selects PyTorch's CUDA op table and default dtype.
//
// Usage: autocast_mlp
#include <cmath>
#include <cstdio>
#include <limits>
#include <tuple>
#include <type_traits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <mixprec/autocast.hpp>
#include <mixprec/round_to.hpp>
#include <mixprec/types.hpp>

namespace {

using mixprec::bfloat16;
using mixprec::dtype;
using mixprec::half;

/// An activation whose element type autocast decided at run time.
using activation = std::variant<std::vector<half>, std::vector<bfloat16>, std::vector<float>, std::vector<double>>;

dtype type_of(const activation& a) {
  return std::visit([](const auto& v) { return dtype::of<typename std::decay_t<decltype(v)>::value_type>(); }, a);
}

// ---- the kernels: plain loops, each result rounded once to the compute type T ----------------
template <class T>
std::vector<T> linear_kernel(mixprec::span<const T> x, mixprec::span<const T> w, mixprec::span<const T> b,
                             std::size_t in, std::size_t out) {  // y = x W^T + b, W is out x in
  const std::size_t batch = x.size() / in;
  std::vector<T> y(batch * out);
  for (std::size_t n = 0; n < batch; ++n) {
    for (std::size_t o = 0; o < out; ++o) {
      double acc = static_cast<double>(b[o]);
      for (std::size_t i = 0; i < in; ++i) acc += static_cast<double>(x[n * in + i]) * static_cast<double>(w[o * in + i]);
      y[n * out + o] = mixprec::round_to<T>(acc);
    }
  }
  return y;
}

template <class T>
std::vector<T> relu_kernel(mixprec::span<const T> x) {
  std::vector<T> y(x.begin(), x.end());
  for (T& v : y) {
    if (static_cast<double>(v) < 0.0) v = T(0.0f);
  }
  return y;
}

template <class T>
std::vector<T> log_softmax_kernel(mixprec::span<const T> x, std::size_t classes) {
  std::vector<T> y(x.size());
  for (std::size_t n = 0; n < x.size() / classes; ++n) {
    double mx = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (std::size_t c = 0; c < classes; ++c) mx = std::fmax(mx, static_cast<double>(x[n * classes + c]));
    for (std::size_t c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(x[n * classes + c]) - mx);
    for (std::size_t c = 0; c < classes; ++c) {
      y[n * classes + c] = mixprec::round_to<T>(static_cast<double>(x[n * classes + c]) - mx - std::log(sum));
    }
  }
  return y;
}

template <class T>
std::vector<T> nll_loss_kernel(mixprec::span<const T> logp, const std::vector<int>& target, std::size_t classes) {
  double sum = 0.0;
  for (std::size_t n = 0; n < target.size(); ++n) {
    sum -= static_cast<double>(logp[n * classes + static_cast<std::size_t>(target[n])]);
  }
  return {mixprec::round_to<T>(sum / static_cast<double>(target.size()))};
}

// ---- the trace ---------------------------------------------------------------------------------
struct trace_row {
  std::string op;
  mixprec::cast_policy policy;
  std::string inputs;
  dtype compute;
  dtype output;
};

template <class T>
std::string arg_type_name(const std::vector<T>&) {
  return std::string(dtype::of<T>().name());
}
template <class T>
std::string arg_type_name(const mixprec::autocast_weight<T>&) {
  return std::string(dtype::of<T>().name());
}

template <class... Args>
void record(std::vector<trace_row>& trace, std::string_view op, const activation& result, const Args&... args) {
  std::string inputs;
  for (const std::string& n : {arg_type_name(args)...}) inputs += (inputs.empty() ? "" : ",") + n;
  trace.push_back({std::string(op), mixprec::autocast_policy(op), inputs, dtype(), type_of(result)});
}

// ---- the ops: autocast_cast, then the kernel in the type it gives ------------------------------
activation linear(std::vector<trace_row>& trace, const activation& x, const std::vector<float>& w,
                  const std::vector<float>& b, std::size_t in, std::size_t out) {
  return std::visit(
      [&](const auto& xv) {
        // Under autocast linear is lower_precision: all three come back in the autocast dtype,
        // the weights from the weight cache.
        const auto cast = mixprec::autocast_cast("linear", xv, mixprec::weight(w), mixprec::weight(b));
        const auto& xc = std::get<0>(cast);
        const auto& wc = std::get<1>(cast);
        const auto& bc = std::get<2>(cast);
        activation y = xc.visit([&](auto xs) -> activation {
          using T = typename decltype(xs)::value_type;
          return linear_kernel<T>(xs, wc.template as<T>(), bc.template as<T>(), in, out);
        });
        record(trace, "linear", y, xv, mixprec::weight(w), mixprec::weight(b));
        trace.back().compute = mixprec::autocast_decide("linear", xv, mixprec::weight(w), mixprec::weight(b)).compute;
        return y;
      },
      x);
}

template <class Kernel>
activation unary(std::vector<trace_row>& trace, std::string_view op, const activation& x, Kernel kernel) {
  return std::visit(
      [&](const auto& xv) {
        auto [xc] = mixprec::autocast_cast(op, xv);
        activation y = xc.visit([&](auto xs) -> activation { return kernel(xs); });
        record(trace, op, y, xv);
        trace.back().compute = mixprec::autocast_decide(op, xv).compute;
        return y;
      },
      x);
}

activation nll_loss(std::vector<trace_row>& trace, const activation& logp, const std::vector<int>& target,
                    std::size_t classes) {
  return std::visit(
      [&](const auto& lv) {
        const auto cast = mixprec::autocast_cast("nll_loss", lv, target);  // the labels pass through
        const std::vector<int>& labels = std::get<1>(cast);
        activation y = std::get<0>(cast).visit([&](auto ls) -> activation { return nll_loss_kernel(ls, labels, classes); });
        record(trace, "nll_loss", y, lv, target);
        trace.back().compute = mixprec::autocast_decide("nll_loss", lv, target).compute;
        return y;
      },
      logp);
}

// ---- the model -----------------------------------------------------------------------------------
constexpr std::size_t features = 4, hidden = 3, classes = 2;  // and a batch of 2

std::vector<float> fixed_values(std::size_t n, double phase) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(1.3 * std::sin(1.7 * static_cast<double>(i) + phase));
  return v;
}

struct mlp {
  std::vector<float> w1 = fixed_values(hidden * features, 0.3), b1 = fixed_values(hidden, 1.1);
  std::vector<float> w2 = fixed_values(classes * hidden, 0.2), b2 = fixed_values(classes, 0.7);

  double forward(const std::vector<float>& x, const std::vector<int>& target, std::vector<trace_row>& trace) const {
    activation a = x;
    a = linear(trace, a, w1, b1, features, hidden);
    a = unary(trace, "relu", a, [](auto s) { return relu_kernel(s); });
    a = linear(trace, a, w2, b2, hidden, classes);
    a = unary(trace, "log_softmax", a, [](auto s) { return log_softmax_kernel(s, classes); });
    a = nll_loss(trace, a, target, classes);
    return std::visit([](const auto& v) { return static_cast<double>(v[0]); }, a);
  }
};

}  // namespace

int main() {
  const mlp model;
  const std::vector<float> x = {0.9f, -0.4f, 0.3f, 1.2f, -0.7f, 0.5f, 0.8f, -1.1f};
  const std::vector<int> target = {1, 0};

  std::vector<trace_row> cpu, cuda, plain;
  double loss_cpu = 0, loss_cuda = 0, loss_plain = 0;
  {
    mixprec::autocast_scope scope(mixprec::device_kind::cpu);  // bfloat16 (PyTorch's CPU default)
    loss_cpu = model.forward(x, target, cpu);
    std::printf("cpu  autocast: dtype %s, %zu weight casts cached\n",
                std::string(mixprec::autocast_dtype().name()).c_str(), mixprec::autocast_cache_size());
  }
  {
    mixprec::autocast_scope scope(mixprec::device_kind::cuda);  // float16 (PyTorch's CUDA default)
    loss_cuda = model.forward(x, target, cuda);
    std::printf("cuda autocast: dtype %s, %zu weight casts cached\n",
                std::string(mixprec::autocast_dtype().name()).c_str(), mixprec::autocast_cache_size());
  }
  loss_plain = model.forward(x, target, plain);  // no scope: autocast disabled

  std::printf("\n%-12s | %-18s %-26s %-9s %-9s | %-18s %-26s %-9s %-9s\n", "", "CPU: policy", "inputs", "compute",
              "output", "CUDA: policy", "inputs", "compute", "output");
  for (std::size_t i = 0; i < cpu.size(); ++i) {
    const trace_row& a = cpu[i];
    const trace_row& b = cuda[i];
    std::printf("%-12s | %-18s %-26s %-9s %-9s | %-18s %-26s %-9s %-9s\n", a.op.c_str(),
                std::string(mixprec::to_string(a.policy)).c_str(), a.inputs.c_str(),
                std::string(a.compute.name()).c_str(), std::string(a.output.name()).c_str(),
                std::string(mixprec::to_string(b.policy)).c_str(), b.inputs.c_str(),
                std::string(b.compute.name()).c_str(), std::string(b.output.name()).c_str());
  }
  std::printf("\nloss: cpu autocast %.9g, cuda autocast %.9g, float32 (no autocast) %.9g\n", loss_cpu, loss_cuda,
              loss_plain);

  // The trace must show PyTorch's behaviour; a failure here fails the example's test run.
  bool ok = cpu.size() == 5 && cuda.size() == 5;
  ok = ok && cpu[0].output == dtype::bfloat16() && cuda[0].output == dtype::float16();  // linear
  ok = ok && cpu[3].output == dtype::bfloat16() && cuda[3].output == dtype::float32();  // log_softmax
  ok = ok && cpu[4].output == dtype::float32() && cuda[4].output == dtype::float32();   // nll_loss
  for (const trace_row& r : plain) ok = ok && r.output == dtype::float32();
  for (std::size_t i = 0; ok && i < cpu.size(); ++i) ok = cpu[i].compute == cpu[i].output && cuda[i].compute == cuda[i].output;
  ok = ok && std::fabs(loss_cpu - loss_plain) < 0.05 && std::fabs(loss_cuda - loss_plain) < 0.01;
  if (!ok) {
    std::printf("unexpected trace\n");
    return 1;
  }
  return 0;
}
