#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that no header of include/mixprec includes one from a higher layer.

    python3 scripts/check_layers.py [ROOT]        exit 0: no include runs upward but the allowed ones
    python3 scripts/check_layers.py --list [ROOT] every header with its layer

The layers, lowest first: core (format description, rounding, codec, value types, limits), math,
text (charconv, I/O, teaching text), simd (ISA detection, vector traits), kernels (exec, convert,
gemm, ...), recipes (MX, NVFP4, FP8 scaling), amp (scaler, autocast, policies), interop (CUDA,
Eigen, MPI, fmt, std::format). A header in a folder named after a layer (include/mixprec/core/,
.../kernels/detail/, ...) is in that layer; a header still at a flat path is placed by the table
FLAT below, the layer it will move to. An umbrella header (UMBRELLAS) is in the layer of the
highest header it gathers, so a layer may include the umbrellas at or below it. An include from a lower layer's header into a higher layer's is an error unless it is
listed in scripts/layer_allowlist.txt ("from -> to", paths relative to include/mixprec); a listed
pair that no longer occurs is an error too, so the list only shrinks. A header (other than a
forwarding header, "// mixprec: forwarding header") that includes an old path, which now only
forwards, is an error too: the library includes its headers by their folders. So is an
#include <mixprec/...> in a library header: headers include each other by relative quoted paths,
the ones this check follows.

The examples use the public API only: a file under examples/ that names mixprec::detail or
includes a header from a detail/ folder (<mixprec/core/detail/bits.hpp>, <mixprec/detail/json.hpp>)
is an error. An example's own namespace called detail (precision_study::detail) is its own.
"""
import os
import re
import sys

LAYERS = ["core", "math", "text", "simd", "kernels", "recipes", "amp", "interop"]
UMBRELLAS = {"mixprec.hpp": "text", "float.hpp": "text", "kernels.hpp": "kernels", "amp.hpp": "amp"}

# Headers at flat paths (include/mixprec/X.hpp, include/mixprec/detail/X.hpp): their layer.
FLAT = {
    "core": """version config format rounding basic_float types round_to random classify finfo limits hash
               arithmetic dtype packed span format_names
               detail/bits detail/convert detail/fast_float32 detail/ieee_ops detail/to_integer
               detail/type_traits detail/values detail/widen_table detail/quote_input detail/spans
               detail/soft""",
    "math": "math math_integral",
    "text": "charconv io explain",
    "simd": "detail/x86",
    "kernels": "exec matmul_precision cast_result detail/simd_convert detail/simd_narrow8 detail/simd_optim",
    "recipes": """mx fp8_scaling block_scaling block_scaling_mx block_scaling_nvfp4 block_scaling_fp8
                  block_scaled_gemm detail/simd_block_scaling detail/simd_block_gemm""",
    "amp": "loss_scale grad_scaler autocast autocast_ops precision_policy detail/json",
    "interop": "cuda eigen mpi fmt std_format",
}
FLAT_LAYER = {name + ".hpp": layer for layer, names in FLAT.items() for name in names.split()}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ANGLE_INCLUDE = re.compile(r'^\s*#\s*include\s*<(mixprec/[^>]+)>', re.M)  # in a library header: not checked, so an error
EXAMPLE_DETAIL = re.compile(r'mixprec\s*::\s*detail\b|^\s*#\s*include\s*[<"][^>"]*\bdetail/', re.M)
EXAMPLE_SOURCES = (".cpp", ".hpp", ".h", ".cc", ".cu", ".cuh", ".c", ".inl")


def layer_of(rel):
    """The layer of a header (path relative to include/mixprec)."""
    if rel in UMBRELLAS:
        return UMBRELLAS[rel]
    top = rel.split("/")[0]
    if top in LAYERS:
        return top
    if rel in FLAT_LAYER:
        return FLAT_LAYER[rel]
    raise SystemExit("check_layers: include/mixprec/%s has no layer: put it in a layer folder "
                     "or in scripts/check_layers.py's FLAT table" % rel)


def headers(inc):
    for dirpath, _, files in os.walk(inc):
        for f in sorted(files):
            if f.endswith((".hpp", ".h", ".cuh")):
                yield os.path.relpath(os.path.join(dirpath, f), inc).replace(os.sep, "/")


def example_errors(root):
    """Every place a file under examples/ reaches into mixprec's internals."""
    errors = []
    for dirpath, dirs, files in os.walk(os.path.join(root, "examples")):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(EXAMPLE_SOURCES):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            for m in EXAMPLE_DETAIL.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                errors.append("%s:%d uses mixprec's internals (%s): examples use the public API" %
                              (os.path.relpath(path, root).replace(os.sep, "/"), line, m.group(0).strip()))
    return errors


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    inc = os.path.join(root, "include", "mixprec")
    allow_path = os.path.join(root, "scripts", "layer_allowlist.txt")
    if "--list" in argv:
        for rel in headers(inc):
            print("%-8s %s" % (layer_of(rel), rel))
        return 0
    allowed = set()
    if os.path.exists(allow_path):
        with open(allow_path, encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    a, _, b = line.partition("->")
                    allowed.add((a.strip(), b.strip()))
    found = set()
    errors = []
    forwarding = set()
    for rel in headers(inc):
        with open(os.path.join(inc, rel), encoding="utf-8") as f:
            if "// mixprec: forwarding header" in f.read():
                forwarding.add(rel)
    for rel in headers(inc):
        lf = layer_of(rel)
        with open(os.path.join(inc, rel), encoding="utf-8") as f:
            text = f.read()
        for target in ANGLE_INCLUDE.findall(text):
            errors.append("%s includes <%s>: library headers include each other by relative quoted paths "
                          "(which this check follows)" % (rel, target))
        for target in INCLUDE.findall(text):
            path = os.path.normpath(os.path.join(os.path.dirname(rel), target)).replace(os.sep, "/")
            if path.startswith("..") or not os.path.exists(os.path.join(inc, path)):
                continue  # not a mixprec header (or one that does not exist: the compiler says so)
            if path in forwarding and rel not in forwarding:
                errors.append("%s includes the old path %s (a forwarding header): include the header it names" %
                              (rel, path))
            lt = layer_of(path)
            if LAYERS.index(lt) > LAYERS.index(lf):
                found.add((rel, path))
                if (rel, path) not in allowed:
                    errors.append("%s (%s) includes %s (%s), a higher layer" % (rel, lf, path, lt))
    for a, b in sorted(allowed - found):
        errors.append("scripts/layer_allowlist.txt lists %s -> %s, which no longer occurs: remove the line" % (a, b))
    errors += example_errors(root)
    for e in errors:
        print("check_layers: " + e)
    n = sum(1 for _ in headers(inc))
    print("check_layers: %d headers, %d upward includes (%d allowed), %d errors" %
          (n, len(found), len(found & allowed), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
