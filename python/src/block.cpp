// SPDX-License-Identifier: MIT
// block.cpp (python/src) — mixprec._core's block-scaling functions (block_scaling.hpp here); its own
// translation unit so the extension's three parts compile in parallel.
#include "block_scaling.hpp"

namespace mixprec_py {
void bind_block_scaling(nb::module_& m) {
  m.def("block_quantize", &block_quantize);
  m.def("block_dequantize", &block_dequantize);
  m.def("block_storage", &storage_dtypes);
  m.def("block_gemm", &block_gemm);
}
}  // namespace mixprec_py
