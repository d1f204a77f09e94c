// SPDX-License-Identifier: MIT
// mixprec/interop/mpi.hpp — MPI for mixprec types: datatypes, SUM/MAX reduction ops, the all-reduces that
// mixed-precision data parallelism needs (found_inf, FP8 amax, gradients) with exact, documented
// numerics. Optional: include it yourself (never included by the umbrellas) and link MPI.
//
//   datatype<T>(), sum_op<T, Acc>(), max_op<T>(), allreduce_sum<T, Acc>(v, comm)
//   allreduce_found_inf(flag, comm), found_inf_reducer(comm), allreduce_current_amax(scaling, comm)
//   allreduce_gradients(g, comm, options), run_guarded(comm, body)
//
// Contract: MPI must be initialized; an MPI error throws mixprec::mpi::mpi_error. sum_op rounds at
// every application (its result depends on MPI's algorithm); allreduce_gradients sums in rank
// order, the same result on every rank for any MPI library. Every function: docs/pages/mpi.md.
//
//   MPI_Allreduce(MPI_IN_PLACE, v.data(), n, mixprec::mpi::datatype<half>(), mixprec::mpi::sum_op<half>(), comm);
//   mixprec::mpi::allreduce_gradients(grads, comm, {mixprec::mpi::reduce_dtype::bfloat16});
#ifndef MIXPREC_MPI_HPP
#define MIXPREC_MPI_HPP

#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1  // the C API only (Open MPI's deprecated C++ bindings warn under -Wextra)
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <cmath>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "../recipes/fp8_scaling.hpp"
#include "../mixprec.hpp"
#include "../core/span.hpp"

namespace mixprec {
namespace mpi {

/// An MPI call failed: the message names the call and MPI's error string.
class mpi_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

inline void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw mpi_error(std::string("mixprec::mpi: ") + what + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

template <class T, class Acc>
void sum_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) {
    b[i] = round_to<T>(static_cast<Acc>(a[i]) + static_cast<Acc>(b[i]));
  }
}

template <class T>
bool is_nan(T x) noexcept {
  if constexpr (std::is_floating_point<T>::value) {
    return std::isnan(x);
  } else {
    return mixprec::isnan(x);
  }
}

template <class T>
void max_fn(void* in, void* inout, int* len, MPI_Datatype*) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  for (int i = 0; i < *len; ++i) {
    if (is_nan(b[i])) continue;
    if (is_nan(a[i]) || a[i] > b[i]) b[i] = a[i];
  }
}

inline int count_of(std::size_t n) {
  if (n > static_cast<std::size_t>(INT32_MAX)) throw std::invalid_argument("mixprec::mpi: more than 2^31-1 elements");
  return static_cast<int>(n);
}

}  // namespace detail

/// The MPI datatype of T (float, double or a mixprec type).
template <class T>
MPI_Datatype datatype() {
  if constexpr (std::is_same<T, float>::value) {
    return MPI_FLOAT;
  } else if constexpr (std::is_same<T, double>::value) {
    return MPI_DOUBLE;
  } else {
    static_assert(is_mixprec_float<T>::value, "mixprec::mpi::datatype<T>: float, double or a mixprec type");
    static const MPI_Datatype type = [] {
      MPI_Datatype t = MPI_DATATYPE_NULL;
      detail::check(MPI_Type_contiguous(static_cast<int>(sizeof(T)), MPI_BYTE, &t), "MPI_Type_contiguous");
      detail::check(MPI_Type_commit(&t), "MPI_Type_commit");
      return t;
    }();
    return type;
  }
}

/// SUM of T computed in Acc and rounded to T at every application (docs/pages/mpi.md).
template <class T, class Acc = float>
MPI_Op sum_op() {
  static const MPI_Op op = [] {
    MPI_Op o = MPI_OP_NULL;
    detail::check(MPI_Op_create(&detail::sum_fn<T, Acc>, 1, &o), "MPI_Op_create");
    return o;
  }();
  return op;
}

/// MAX of T; NaN propagates.
template <class T>
MPI_Op max_op() {
  static const MPI_Op op = [] {
    MPI_Op o = MPI_OP_NULL;
    detail::check(MPI_Op_create(&detail::max_fn<T>, 1, &o), "MPI_Op_create");
    return o;
  }();
  return op;
}

/// v[i] = T(sum over ranks of Acc(v[i])): one rounding to T (the sum itself is MPI's, in Acc).
template <class T, class Acc = float>
void allreduce_sum(span<T> v, MPI_Comm comm) {
  std::vector<Acc> wide(v.begin(), v.end());
  const MPI_Datatype acc = datatype<Acc>();
  detail::check(MPI_Allreduce(MPI_IN_PLACE, wide.data(), detail::count_of(wide.size()), acc, MPI_SUM, comm),
                "MPI_Allreduce");
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = round_to<T>(wide[i]);
}

/// Whether any rank found an inf/NaN (logical OR).
inline bool allreduce_found_inf(bool found_inf, MPI_Comm comm) {
  int local = found_inf ? 1 : 0, global = 0;
  detail::check(MPI_Allreduce(&local, &global, 1, MPI_INT, MPI_LOR, comm), "MPI_Allreduce");
  return global != 0;
}

/// A grad_scaler::found_inf_reducer that ORs found_inf over comm (grad_scaler passes 0 or 1).
inline std::function<float(float)> found_inf_reducer(MPI_Comm comm) {
  return [comm](float found) { return allreduce_found_inf(std::fpclassify(found) != FP_ZERO, comm) ? 1.0f : 0.0f; };
}

/// The current step's amax of a delayed-scaling state, replaced by its MAX over comm (NaN wins).
inline void allreduce_current_amax(delayed_scaling& scaling, MPI_Comm comm) {
  float amax = scaling.amax_history().empty() ? 0.0f : scaling.amax_history()[0];
  detail::check(MPI_Allreduce(MPI_IN_PLACE, &amax, 1, MPI_FLOAT, max_op<float>(), comm), "MPI_Allreduce");
  scaling.set_current_amax(amax);
}

/// The precision a gradient all-reduce sums in.
enum class reduce_dtype : unsigned char { float32, bfloat16, float16 };

/// Options of allreduce_gradients.
struct allreduce_options {
  reduce_dtype dtype = reduce_dtype::float32;  ///< the precision of every partial sum
  bool predivide = false;   ///< divide each contribution by the world size before summing
  bool postdivide = false;  ///< divide the sum by the world size after summing
};

namespace detail {

template <class R, class T>
void gather_and_sum(span<T> g, MPI_Comm comm, const allreduce_options& o, int size) {
  const std::size_t n = g.size();
  std::vector<R> mine(n);
  const float pre = o.predivide ? static_cast<float>(size) : 1.0f;
  for (std::size_t i = 0; i < n; ++i) {
    mine[i] = o.predivide ? round_to<R>(static_cast<float>(g[i]) / pre) : round_to<R>(g[i]);
  }
  std::vector<R> all(n * static_cast<std::size_t>(size));
  check(MPI_Allgather(mine.data(), count_of(n), datatype<R>(), all.data(), count_of(n), datatype<R>(), comm),
        "MPI_Allgather");
  for (std::size_t i = 0; i < n; ++i) {
    R acc = all[i];  // rank 0
    for (int r = 1; r < size; ++r) {
      acc = round_to<R>(static_cast<float>(acc) + static_cast<float>(all[static_cast<std::size_t>(r) * n + i]));
    }
    if (o.postdivide) acc = round_to<R>(static_cast<float>(acc) / static_cast<float>(size));
    g[i] = round_to<T>(acc);
  }
}

}  // namespace detail

/// The fixed-order gradient all-reduce (rank order, in the reduce precision; docs/pages/mpi.md).
template <class T>
void allreduce_gradients(span<T> g, MPI_Comm comm, const allreduce_options& o = {}) {
  int size = 1;
  detail::check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  switch (o.dtype) {
    case reduce_dtype::float32: return detail::gather_and_sum<float>(g, comm, o, size);
    case reduce_dtype::bfloat16: return detail::gather_and_sum<bfloat16>(g, comm, o, size);
    case reduce_dtype::float16: return detail::gather_and_sum<half>(g, comm, o, size);
  }
  throw std::invalid_argument("mixprec::mpi::allreduce_gradients: invalid reduce_dtype");
}

/// Runs body() and returns its result; an exception aborts the whole job (docs/pages/mpi.md).
inline int run_guarded(MPI_Comm comm, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    int rank = -1;
    MPI_Comm_rank(comm, &rank);
    std::fprintf(stderr, "mixprec::mpi: rank %d: %s; aborting the job\n", rank, e.what());
  } catch (...) {
    int rank = -1;
    MPI_Comm_rank(comm, &rank);
    std::fprintf(stderr, "mixprec::mpi: rank %d: unknown exception; aborting the job\n", rank);
  }
  std::fflush(stderr);
  MPI_Abort(comm, 1);
  return 1;
}

}  // namespace mpi
}  // namespace mixprec

#endif  // MIXPREC_MPI_HPP
