// mixprec consumer check: a program outside the source tree that uses the
// installed (or subproject) library for real.
// SPDX-License-Identifier: MIT
#include <mixprec/mixprec.hpp>
#include <mixprec/amp.hpp>      // the ML layer's umbrella is installed too
#include <mixprec/kernels.hpp>

#include <cstdio>
#include <cstring>

static int failures = 0;

// Exact equality of two doubles, without == (the consumer is built with -Wfloat-equal).
static bool same(double a, double b) { return a <= b && a >= b; }

static void check(bool ok, const char* what) {
    std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) ++failures;
}

int main() {
    const mixprec::half h(1.0f / 3);
    check(h.bits() == 0x3555, "half(1/3).bits() == 0x3555");
    check(same(static_cast<double>(h), 0.333251953125), "float(half(1/3)) == 0.333251953125");

    const mixprec::bfloat16 b(1.0f / 3);
    check(b.bits() == 0x3EAB, "bfloat16(1/3).bits() == 0x3eab");
    check(same(static_cast<double>(b), 0.333984375), "float(bfloat16(1/3)) == 0.333984375");

    const mixprec::grad_scaler scaler;
    check(same(scaler.get_scale(), 65536.0), "grad_scaler().get_scale() == 65536");

    check(std::strcmp(MIXPREC_VERSION_STRING, MIXPREC_CONSUMER_EXPECTED_VERSION) == 0,
          "MIXPREC_VERSION_STRING == expected version");

    std::printf("mixprec %s consumer: %s\n", MIXPREC_VERSION_STRING, failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
