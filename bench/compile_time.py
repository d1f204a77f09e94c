#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compile cost of mixprec's includes next to <cuda_fp16.h> and <Eigen/Core>.

Compiles small hello-world translation units (to an object file, -c) and reports, for each,
the compiler's CPU time (user + sys of the compiler process and its children, from
getrusage) and its maximum resident set size, the minimum over --reps repetitions (the
machine's noise only ever adds time), for g++ and clang++, -O0 and -O2, C++17 and C++20.

Two kinds of TU per library:
  print   construct two values, add them, print the sum with std::cout (every TU includes
          <iostream>; CUDA's __half has no operator<<, so it prints __half2float(a + b));
  bare    construct two values, add them, return the sum as an int: the header alone.

  bench/compile_time.py                 # the full table (a few minutes), Markdown on stdout
  bench/compile_time.py --reps 1 --quick   # g++ -O0 C++17 only

Rows whose header is missing are skipped (CUDA: --cuda-include, default /usr/local/cuda/include;
Eigen: --eigen-include, default /usr/include/eigen3).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PRINT_MAIN = {
    "cuda": "const __half a = __float2half(1.5f), b = __float2half(2.25f);\n"
            "  std::cout << __half2float(a + b) << '\\n';",
    "eigen": "const Eigen::half a(1.5f), b(2.25f);\n  std::cout << a + b << '\\n';",
    "mixprec": "const mixprec::half a(1.5f), b(2.25f);\n  std::cout << a + b << '\\n';",
}
BARE_MAIN = {
    "cuda": "const __half a = __float2half(1.5f), b = __float2half(2.25f);\n"
            "  return static_cast<int>(__half2float(a + b));",
    "eigen": "const Eigen::half a(1.5f), b(2.25f);\n  return static_cast<int>(static_cast<float>(a + b));",
    "mixprec": "const mixprec::half a(1.5f), b(2.25f);\n  return static_cast<int>(static_cast<float>(a + b));",
}

# (row name, library kind, header)
ROWS = [
    ("<iostream> alone", None, None),
    ("<cuda_fp16.h> (host)", "cuda", "cuda_fp16.h"),
    ("<Eigen/Core> + Eigen::half", "eigen", "Eigen/Core"),
    ("<mixprec/types.hpp> (types, no arithmetic)", "mixprec", "mixprec/types.hpp"),
    ("<mixprec/float.hpp> (types, arithmetic, streams)", "mixprec", "mixprec/float.hpp"),
    ("<mixprec/mixprec.hpp> (numeric core)", "mixprec", "mixprec/mixprec.hpp"),
    ("<mixprec/amp.hpp> (core + ML layer)", "mixprec", "mixprec/amp.hpp"),
    ("<mixprec/mixprec.hpp> + <mixprec/kernels.hpp>", "mixprec", "mixprec/mixprec.hpp>\n#include <mixprec/kernels.hpp"),
]


def tu_text(kind, header, variant):
    if variant == "print":
        lines = []
        if header:
            lines.append("#include <%s>" % header)
        lines.append("#include <iostream>")
        body = PRINT_MAIN[kind] if kind else "std::cout << 3.75 << '\\n';"
        if header == "mixprec/types.hpp":  # no arithmetic, no operator<<: through float
            body = ("const mixprec::half a(1.5f), b(2.25f);\n"
                    "  std::cout << static_cast<float>(a) + static_cast<float>(b) << '\\n';")
        return "\n".join(lines) + "\n\nint main() {\n  %s\n}\n" % body
    if not header:
        return "int main() { return 0; }\n"
    body = BARE_MAIN[kind]
    if kind == "mixprec" and header == "mixprec/types.hpp":
        # types.hpp has conversions but no arithmetic: round-trip through float.
        body = ("const mixprec::half a(1.5f), b(2.25f);\n"
                "  return static_cast<int>(static_cast<float>(a) + static_cast<float>(b));")
    return "#include <%s>\n\nint main() {\n  %s\n}\n" % (header, body)


def measure(cmd, reps):
    """Minimum CPU seconds (user + sys) and minimum max-RSS (MiB) over reps runs of cmd.

    os.wait4 reports the compiler driver's usage including the processes it waited for (cc1plus
    or clang -cc1, as), as /usr/bin/time does; ru_maxrss is the largest of them.
    """
    best_t, best_m = None, None
    for _ in range(reps):
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        err = p.stderr.read().decode(errors="replace")
        _, status, ru = os.wait4(p.pid, 0)
        p.stderr.close()
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            raise RuntimeError("compile failed: %s\n%s" % (" ".join(cmd), err))
        t = ru.ru_utime + ru.ru_stime
        m = ru.ru_maxrss / 1024.0
        best_t = t if best_t is None else min(best_t, t)
        best_m = m if best_m is None else min(best_m, m)
    return best_t, best_m


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5, help="repetitions per cell; the minimum is kept (default 5)")
    ap.add_argument("--compilers", default="g++,clang++")
    ap.add_argument("--cuda-include", default="/usr/local/cuda/include")
    ap.add_argument("--eigen-include", default="/usr/include/eigen3")
    ap.add_argument("--quick", action="store_true", help="g++ -O0 C++17 only")
    ap.add_argument("--variants", default="print,bare")
    args = ap.parse_args()

    compilers = [c for c in args.compilers.split(",") if shutil.which(c)]
    configs = [("-O0", "c++17"), ("-O2", "c++17"), ("-O0", "c++20"), ("-O2", "c++20")]
    if args.quick:
        compilers, configs = compilers[:1], configs[:1]
    have = {
        "cuda": os.path.exists(os.path.join(args.cuda_include, "cuda_fp16.h")),
        "eigen": os.path.exists(os.path.join(args.eigen_include, "Eigen", "Core")),
        "mixprec": True,
    }
    incs = ["-I" + os.path.join(ROOT, "include"), "-I" + args.cuda_include, "-I" + args.eigen_include]

    rows = [r for r in ROWS if r[1] is None or have[r[1]]]
    cols = ["%s %s %s" % (c, o, s.replace("c++", "C++")) for c in compilers for (o, s) in configs]
    results = {}  # (variant, row, col) -> (t, m)
    with tempfile.TemporaryDirectory() as d:
        for variant in args.variants.split(","):
            for name, kind, header in rows:
                src = os.path.join(d, "tu.cpp")
                with open(src, "w") as f:
                    f.write(tu_text(kind, header, variant))
                for c in compilers:
                    for (o, s) in configs:
                        cmd = [c, "-std=" + s, o, "-c", src, "-o", os.path.join(d, "tu.o")] + incs
                        results[(variant, name, "%s %s %s" % (c, o, s.replace("c++", "C++")))] = measure(cmd, args.reps)
                print("measured: %-6s %s" % (variant, name), file=sys.stderr)

    out = []
    for variant in args.variants.split(","):
        out.append("\n### %s TUs: CPU seconds (max RSS MiB), min of %d\n" % (variant, args.reps))
        out.append("| TU | " + " | ".join(cols) + " |")
        out.append("|---|" + "---|" * len(cols))
        for name, kind, header in rows:
            if variant == "bare" and kind is None:
                name_shown = "empty main()"
            else:
                name_shown = name
            cells = []
            for col in cols:
                t, m = results[(variant, name, col)]
                cells.append("%.2f (%d)" % (t, m))
            out.append("| %s | %s |" % (name_shown, " | ".join(cells)))
        # Ratios.
        ref = {}
        for key, label in (("cuda", "<cuda_fp16.h> (host)"), ("eigen", "<Eigen/Core> + Eigen::half")):
            if any(r[0] == label for r in rows):
                ref[key] = label
        if ref:
            out.append("\nRatios (CPU time):\n")
            out.append("| TU | ratio to | " + " | ".join(cols) + " |")
            out.append("|---|---|" + "---|" * len(cols))
            for name, kind, header in rows:
                if kind != "mixprec":
                    continue
                for key, label in ref.items():
                    cells = ["%.2fx" % (results[(variant, name, col)][0] / results[(variant, label, col)][0])
                             for col in cols]
                    out.append("| %s | %s | %s |" % (name, "cuda_fp16" if key == "cuda" else "Eigen", " | ".join(cells)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
