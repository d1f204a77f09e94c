// SPDX-License-Identifier: MIT
// examples/amp_unit_test — the template of a loss-scaling unit test: fp16 autocast training of
// one linear layer loses its gradients to underflow without a GradScaler, and keeps them with one.
//
// Copy it into your own tests. Each tensor's dtype is the one PyTorch's CUDA autocast (float16)
// gives it; autocast covers the forward pass only, and the backward pass runs each op in the
// dtype its forward ran in. The program exits 1 if an assertion fails.
#include <mixprec/amp.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

using mixprec::half;

namespace {

constexpr int batch = 4, in = 3, out = 2;

std::size_t idx(int o, int i) { return static_cast<std::size_t>(o * in + i); }
bool is_zero(float v) { return std::fpclassify(v) == FP_ZERO; }

struct sgd {                               // the parameters stay float32 ("master weights")
  std::vector<float> w = std::vector<float>(out * in, 0.5f);  // W: float32 [out][in]
  std::vector<float> grad = std::vector<float>(out * in, 0.0f);  // W.grad: float32
  float lr = 100.0f;                     // large, to match the tiny gradients
  std::array<mixprec::gradient_ref, 1> gradients() { return {grad}; }  // grad_scaler's concept
  void step() {
    for (std::size_t i = 0; i < w.size(); ++i) w[i] -= lr * grad[i];
  }
};

/// One training step; returns the number of exactly-zero entries of W.grad.
int train_step(sgd& opt, mixprec::grad_scaler* scaler) {
  const float x[batch][in] = {{1, 2, 3}, {-1, 0.5f, 2}, {0.25f, -2, 1}, {3, 1, -1}};  // input: float32
  const float t[batch][out] = {{3.001f, 2.999f}, {0.7501f, 0.7499f}, {-0.3751f, -0.3749f}, {1.5001f, 1.4999f}};
  // Forward, under autocast: linear() casts x and W to float16 and returns float16
  // (float accumulation, one rounding per output, as cuBLAS does).
  half y[batch][out];
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < out; ++o) {
      float acc = 0;
      for (int i = 0; i < in; ++i) acc += static_cast<float>(half(x[b][i])) * static_cast<float>(half(opt.w[idx(o, i)]));
      y[b][o] = half(acc);
    }
  // mse_loss is on autocast's float32 list: y is cast up, the loss is float32. Tiny errors ->
  // tiny gradients: 1e-4 scales the loss as a small learning signal would.
  float loss = 0;
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < out; ++o) {
      const float d = static_cast<float>(y[b][o]) - t[b][o];
      loss += 1e-4f * d * d / (batch * out);
    }
  const float scaled = scaler ? scaler->scale(loss) : loss;  // scaler.scale(loss): float32
  const float s = scaled / loss;                              // what backward() starts from
  // Backward. d(loss)/dy in float32, then the cast's backward rounds it to float16 (y's dtype).
  half gy[batch][out];
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < out; ++o)
      gy[b][o] = half(s * 2e-4f * (static_cast<float>(y[b][o]) - t[b][o]) / (batch * out));
  // linear's backward runs in float16: grad_W16 = gy^T x16 (float16), then the cast of W to
  // float16 is undone by its backward: W.grad = float(grad_W16) (float32, exact).
  for (int o = 0; o < out; ++o)
    for (int i = 0; i < in; ++i) {
      float acc = 0;
      for (int b = 0; b < batch; ++b) acc += static_cast<float>(gy[b][o]) * static_cast<float>(half(x[b][i]));
      opt.grad[idx(o, i)] = static_cast<float>(half(acc));
    }
  int zeros = 0;
  for (float g : opt.grad) zeros += is_zero(g);  // counted before unscaling: the fp16 result
  if (scaler) {
    scaler->step(opt);  // unscale W.grad in place (float32), skip on inf/NaN, else opt.step()
    scaler->update();
  } else {
    opt.step();
  }
  return zeros;
}

int failures = 0;
void expect(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "ok:    " : "FAILED:", what);
  failures += !ok;
}

}  // namespace

int main() {
  sgd plain, scaled;
  mixprec::grad_scaler scaler;  // PyTorch's defaults: scale 65536, growth every 2000 steps
  const int zeros_plain = train_step(plain, nullptr);
  const int zeros_scaled = train_step(scaled, &scaler);
  std::printf("W.grad entries flushed to zero: %d of %d without scaling, %d with scale %.0f\n", zeros_plain,
              out * in, zeros_scaled, scaler.get_scale());
  expect(zeros_plain == out * in, "fp16 without loss scaling: every gradient underflows to 0");
  expect(zeros_scaled == 0, "fp16 with grad_scaler: no gradient underflows");
  expect(plain.w == std::vector<float>(out * in, 0.5f), "without scaling the weights never move");
  bool moved = true;
  for (float w : scaled.w) moved = moved && !is_zero(w - 0.5f);
  expect(moved, "with scaling every weight moves");
  expect(is_zero(static_cast<float>(scaler.get_scale()) - 65536.0f), "no inf/NaN: the scale stays 65536");
  return failures == 0 ? 0 : 1;
}
