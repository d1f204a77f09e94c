// SPDX-License-Identifier: MIT
// mixprec/mpi.hpp under mpirun (tests/CMakeLists.txt runs it with 1, 2, 3 and 4 ranks).
// Each check compares with a serial reference that every rank computes alone from the same
// deterministic inputs (no MPI), then all ranks compare their results bit for bit.
// Exit status: 0 when every check passes on every rank.
#include <mixprec/mpi.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int failures = 0;
int rank = 0, size = 1;

void expect(bool ok, const char* what) {
  if (!ok) {
    ++failures;
    std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what);
  }
}

/// The contribution of rank r to element i: a value spread over many binades, some tiny, some
/// near the formats' limits, deterministic.
double contribution(int r, std::size_t i) {
  std::uint64_t z = (static_cast<std::uint64_t>(r) + 1) * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
  z ^= z >> 31;
  z *= 0x94D049BB133111EBull;
  z ^= z >> 29;
  const double m = 1.0 + static_cast<double>(z >> 12) * 0x1p-52;
  const int e = static_cast<int>(z % 40) - 24;
  return ((z >> 7) & 1 ? -m : m) * std::ldexp(1.0, e);
}

template <class R>
R serial_rank_order(const std::vector<double>& per_rank, bool pre, bool post) {
  auto term = [&](double v) {
    return pre ? mixprec::round_to<R>(static_cast<float>(v) / static_cast<float>(size)) : mixprec::round_to<R>(v);
  };
  R acc = term(per_rank[0]);
  for (std::size_t r = 1; r < per_rank.size(); ++r) {
    acc = mixprec::round_to<R>(static_cast<float>(acc) + static_cast<float>(term(per_rank[r])));
  }
  if (post) acc = mixprec::round_to<R>(static_cast<float>(acc) / static_cast<float>(size));
  return acc;
}

template <class T>
std::uint64_t bits(T x) {
  return static_cast<std::uint64_t>(mixprec::float_traits<T>::to_bits(x));
}

/// Every rank holds the same bits (checked through rank 0's copy).
template <class T>
bool same_on_every_rank(const std::vector<T>& v) {
  std::vector<unsigned char> mine(v.size() * sizeof(T)), root(mine.size());
  std::memcpy(mine.data(), v.data(), mine.size());
  root = mine;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
  int same = root == mine ? 1 : 0, all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all == 1;
}

template <class T, class R>
void check_gradients(mixprec::mpi::reduce_dtype rd, bool pre, bool post, const char* what) {
  const std::size_t n = 1000;
  std::vector<T> g(n);
  for (std::size_t i = 0; i < n; ++i) g[i] = mixprec::round_to<T>(contribution(rank, i));
  mixprec::mpi::allreduce_gradients(mixprec::span<T>(g.data(), n), MPI_COMM_WORLD, {rd, pre, post});
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> per_rank;
    for (int r = 0; r < size; ++r) per_rank.push_back(static_cast<double>(mixprec::round_to<T>(contribution(r, i))));
    const T want = mixprec::round_to<T>(serial_rank_order<R>(per_rank, pre, post));
    ok = ok && bits(g[i]) == bits(want);
  }
  expect(ok, what);
  expect(same_on_every_rank(g), what);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  using mixprec::bfloat16;
  using mixprec::half;
  using mixprec::mpi::reduce_dtype;
  const int rc = mixprec::mpi::run_guarded(MPI_COMM_WORLD, [&] {
    // Fixed-order gradient all-reduce, every type x reduce precision x division.
    check_gradients<float, float>(reduce_dtype::float32, false, false, "float grads, float32 reduce");
    check_gradients<float, float>(reduce_dtype::float32, false, true, "float grads, float32 reduce, post-divide");
    check_gradients<float, bfloat16>(reduce_dtype::bfloat16, false, false, "float grads, bfloat16 reduce");
    check_gradients<float, half>(reduce_dtype::float16, true, false, "float grads, float16 reduce, pre-divide");
    check_gradients<half, float>(reduce_dtype::float32, false, false, "half grads, float32 reduce");
    check_gradients<half, half>(reduce_dtype::float16, false, true, "half grads, float16 reduce, post-divide");
    check_gradients<bfloat16, bfloat16>(reduce_dtype::bfloat16, true, true, "bfloat16 grads, bfloat16 reduce");
    check_gradients<double, float>(reduce_dtype::float32, false, false, "double grads, float32 reduce");

    // allreduce_sum: integers (exact in float) -> one rounding into half.
    {
      std::vector<half> v(64);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = half(static_cast<float>(2000 + 7 * rank + static_cast<int>(i)));
      mixprec::mpi::allreduce_sum<half, float>(mixprec::span<half>(v.data(), v.size()), MPI_COMM_WORLD);
      bool ok = true;
      for (std::size_t i = 0; i < v.size(); ++i) {
        float exact = 0;
        for (int r = 0; r < size; ++r) exact += static_cast<float>(half(static_cast<float>(2000 + 7 * r + static_cast<int>(i))));
        ok = ok && bits(v[i]) == bits(mixprec::round_to<half>(exact));
      }
      expect(ok, "allreduce_sum<half, float>: one rounding of the exact sum");
    }
    // sum_op<bfloat16> with MPI_Allreduce: with 2 ranks one application = one rounding.
    {
      std::vector<bfloat16> v(32);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = mixprec::round_to<bfloat16>(contribution(rank, i));
      MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), mixprec::mpi::datatype<bfloat16>(),
                    mixprec::mpi::sum_op<bfloat16>(), MPI_COMM_WORLD);
      if (size == 2) {
        bool ok = true;
        for (std::size_t i = 0; i < v.size(); ++i) {
          const float a = static_cast<float>(mixprec::round_to<bfloat16>(contribution(0, i)));
          const float b = static_cast<float>(mixprec::round_to<bfloat16>(contribution(1, i)));
          ok = ok && bits(v[i]) == bits(mixprec::round_to<bfloat16>(a + b));
        }
        expect(ok, "sum_op<bfloat16>, 2 ranks");
      }
      expect(same_on_every_rank(v), "sum_op<bfloat16>: same result on every rank");
    }
    // max_op: NaN wins; otherwise the maximum.
    {
      half v[2] = {half(static_cast<float>(rank)), rank == size - 1 && size > 1 ? std::numeric_limits<half>::quiet_NaN()
                                                                               : half(1.0f)};
      MPI_Allreduce(MPI_IN_PLACE, v, 2, mixprec::mpi::datatype<half>(), mixprec::mpi::max_op<half>(), MPI_COMM_WORLD);
      expect(bits(v[0]) == bits(half(static_cast<float>(size - 1))), "max_op<half>: the maximum");
      expect(size == 1 ? bits(v[1]) == bits(half(1.0f)) : mixprec::isnan(v[1]), "max_op<half>: NaN wins");
    }
    // found_inf: OR over ranks; the grad_scaler hook.
    expect(mixprec::mpi::allreduce_found_inf(rank == size - 1, MPI_COMM_WORLD), "found_inf: OR");
    expect(!mixprec::mpi::allreduce_found_inf(false, MPI_COMM_WORLD), "found_inf: none");
    expect(mixprec::mpi::found_inf_reducer(MPI_COMM_WORLD)(rank == 0 ? 1.0f : 0.0f) > 0.5f, "found_inf_reducer");
    // FP8 delayed scaling: the current amax becomes the maximum over ranks.
    {
      mixprec::delayed_scaling s;
      s.record_amax(static_cast<float>(rank + 1) * 0.5f);
      mixprec::mpi::allreduce_current_amax(s, MPI_COMM_WORLD);
      expect(bits(s.amax_history()[0]) == bits(static_cast<float>(size) * 0.5f), "allreduce_current_amax");
    }
    return 0;
  });
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("test_mpi: %d ranks, %d failure(s)\n", size, all);
  MPI_Finalize();
  return rc != 0 || all != 0 ? 1 : 0;
}
