// SPDX-License-Identifier: MIT
// Precision policies: jmp's grammar (get_policy / parse_dtype in jmp/_src/policy.py), Keras'
// mixed policy names, Apex's opt levels O0..O3 with Apex's Properties (apex/amp/frontend.py,
// _initialize.py), every parse error with the token and offset it names, to_string round trips,
// and the casts (against bit patterns worked out by hand).
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <mixprec/precision_policy.hpp>
#include <mixprec/types.hpp>

using mixprec::dtype;
using mixprec::loss_scale_kind;
using mixprec::parse_precision_policy;
using mixprec::precision_policy;
using mixprec::precision_policy_error;

namespace {

const dtype f16 = dtype::float16();
const dtype bf16 = dtype::bfloat16();
const dtype f32 = dtype::float32();
const dtype f64 = dtype::float64();

void check_types(const precision_policy& p, dtype param, dtype compute, dtype output) {
  CHECK(p.param == param);
  CHECK(p.compute == compute);
  CHECK(p.output == output);
}

void check_plain(const precision_policy& p) {
  CHECK(p.loss_scale == loss_scale_kind::none);
  CHECK_FALSE(p.master_weights);
  CHECK_FALSE(p.keep_batchnorm_fp32);
  CHECK_FALSE(p.autocast);
  CHECK(p.preset.empty());
  CHECK_FALSE(p.apex.has_value());
}

/// The input is rejected with precision_policy_error naming token at position.
void check_error(const std::string& input, const std::string& token, std::size_t position, const char* what_part) {
  CAPTURE(input);
  bool thrown = false;
  try {
    (void)parse_precision_policy(input);
  } catch (const precision_policy_error& e) {
    thrown = true;
    CHECK(e.token() == token);
    CHECK(e.position() == position);
    const std::string msg = e.what();
    CHECK(msg.find("'" + token + "'") != std::string::npos);
    CHECK(msg.find(what_part) != std::string::npos);
    CHECK(input.compare(position, token.size(), token) == 0);
  }
  CHECK(thrown);
}

}  // namespace

TEST_CASE("jmp: key=value lists and the defaults") {
  auto p = parse_precision_policy("params=float32,compute=bfloat16,output=float32");
  check_types(p, f32, bf16, f32);
  check_plain(p);
  check_types(parse_precision_policy("p=f32,c=bf16,o=f32"), f32, bf16, f32);
  check_types(parse_precision_policy("c=f16"), f32, f16, f16);              // params full, output follows compute
  check_types(parse_precision_policy("p=f16,c=f16"), f16, f16, f16);
  check_types(parse_precision_policy("p=f16,c=bf16"), f16, bf16, bf16);
  check_types(parse_precision_policy("p=f16"), f16, f16, f16);              // compute follows params
  check_types(parse_precision_policy("o=f64"), f32, f32, f64);
  check_types(parse_precision_policy("output=bf16,params=f64"), f64, f64, bf16);  // order free
  check_types(parse_precision_policy("p=f16,p=bf16"), bf16, bf16, bf16);     // the last repeat counts
  check_types(parse_precision_policy("p=full,c=half"), f32, f16, f16);
  check_types(parse_precision_policy("p=full,c=half", bf16), f32, bf16, bf16);  // jmp on TPU
  check_types(parse_precision_policy("compute=float16"), f32, f16, f16);
}

TEST_CASE("jmp: a bare dtype name sets all three") {
  struct row {
    const char* name;
    dtype t;
  };
  for (const row& r : {row{"bf16", bf16}, row{"bfloat16", bf16}, row{"f16", f16}, row{"float16", f16},
                       row{"full", f32}, row{"f32", f32}, row{"float32", f32}, row{"f64", f64},
                       row{"float64", f64}, row{"half", f16}}) {
    CAPTURE(r.name);
    const precision_policy p = parse_precision_policy(r.name);
    check_types(p, r.t, r.t, r.t);
    check_plain(p);
  }
  check_types(parse_precision_policy("half", bf16), bf16, bf16, bf16);
  CHECK_THROWS_WITH_AS(parse_precision_policy("half", f32),
                       "mixprec::parse_precision_policy: half_dtype must be float16 or bfloat16, not float32",
                       std::invalid_argument);
}

TEST_CASE("Keras policy names") {
  const precision_policy m16 = parse_precision_policy("mixed_float16");
  check_types(m16, f32, f16, f16);
  CHECK(m16.loss_scale == loss_scale_kind::dynamic);
  CHECK(m16.preset == "mixed_float16");
  CHECK_FALSE(m16.master_weights);
  CHECK_FALSE(m16.apex.has_value());
  const precision_policy mbf = parse_precision_policy("mixed_bfloat16");
  check_types(mbf, f32, bf16, bf16);
  CHECK(mbf.loss_scale == loss_scale_kind::none);
  CHECK(mbf.preset == "mixed_bfloat16");
}

TEST_CASE("Apex opt levels O0..O3 with Apex's properties") {
  const precision_policy o0 = parse_precision_policy("O0");
  check_types(o0, f32, f32, f32);
  REQUIRE(o0.apex.has_value());
  CHECK(o0.apex->opt_level == "O0");
  CHECK(o0.apex->enabled);
  CHECK(o0.apex->cast_model_type == f32);
  CHECK_FALSE(o0.apex->patch_torch_functions);
  CHECK_FALSE(o0.apex->keep_batchnorm_fp32.has_value());
  CHECK(o0.apex->master_weights == false);
  CHECK_FALSE(o0.apex->dynamic_loss_scale);
  CHECK(o0.apex->loss_scale_value == 1.0);
  CHECK(o0.loss_scale == loss_scale_kind::fixed);
  CHECK(o0.fixed_loss_scale == 1.0);
  CHECK_FALSE(o0.autocast);

  const precision_policy o1 = parse_precision_policy("O1");
  check_types(o1, f32, f16, f16);
  REQUIRE(o1.apex.has_value());
  CHECK_FALSE(o1.apex->cast_model_type.has_value());
  CHECK(o1.apex->patch_torch_functions);
  CHECK_FALSE(o1.apex->keep_batchnorm_fp32.has_value());
  CHECK_FALSE(o1.apex->master_weights.has_value());
  CHECK(o1.apex->dynamic_loss_scale);
  CHECK(o1.loss_scale == loss_scale_kind::dynamic);
  CHECK(o1.autocast);
  CHECK_FALSE(o1.master_weights);

  const precision_policy o2 = parse_precision_policy("O2");
  check_types(o2, f16, f16, f32);
  REQUIRE(o2.apex.has_value());
  CHECK(o2.apex->cast_model_type == f16);
  CHECK_FALSE(o2.apex->patch_torch_functions);
  CHECK(o2.apex->keep_batchnorm_fp32 == true);
  CHECK(o2.apex->master_weights == true);
  CHECK(o2.apex->dynamic_loss_scale);
  CHECK(o2.loss_scale == loss_scale_kind::dynamic);
  CHECK(o2.master_weights);
  CHECK(o2.keep_batchnorm_fp32);
  CHECK_FALSE(o2.autocast);

  const precision_policy o3 = parse_precision_policy("O3");
  check_types(o3, f16, f16, f32);
  REQUIRE(o3.apex.has_value());
  CHECK(o3.apex->cast_model_type == f16);
  CHECK(o3.apex->keep_batchnorm_fp32 == false);
  CHECK(o3.apex->master_weights == false);
  CHECK_FALSE(o3.apex->dynamic_loss_scale);
  CHECK(o3.apex->loss_scale_value == 1.0);
  CHECK(o3.loss_scale == loss_scale_kind::fixed);
  CHECK(o3.fixed_loss_scale == 1.0);
  CHECK_FALSE(o3.master_weights);
  CHECK_FALSE(o3.keep_batchnorm_fp32);

  CHECK(o0 != o1);
  CHECK(o2 != o3);
  CHECK(parse_precision_policy("O2") == o2);
}

TEST_CASE("every parse error names its token") {
  // Unknown dtype values (checked before the key, as jmp does).
  check_error("p=f99", "f99", 2, "unknown dtype");
  check_error("x=f99", "f99", 2, "unknown dtype");
  check_error("params=float32,compute=bfloat17", "bfloat17", 23, "unknown dtype");
  check_error("p=", "", 2, "unknown dtype");
  check_error("=", "", 1, "unknown dtype");
  check_error("p = f16", " f16", 3, "unknown dtype");  // no whitespace allowed
  check_error("c=F16", "F16", 2, "unknown dtype");     // case-sensitive
  check_error("c=f", "f", 2, "unknown dtype");         // jmp's message mentions 'f'; it is not accepted
  // Unknown keys.
  check_error("q=f16", "q", 0, "unknown key");
  check_error("p=f16,param=bf16", "param", 6, "unknown key");
  check_error("=f16", "", 0, "unknown key");
  check_error("P=f16", "P", 0, "unknown key");
  // Parts that are not exactly one key=value.
  check_error("p=f16,bf16", "bf16", 6, "malformed part");
  check_error("p=f16=f32", "p=f16=f32", 0, "malformed part");
  check_error("p=f16,", "", 6, "malformed part");
  check_error(",p=f16", "", 0, "malformed part");
  check_error("p=f16,,c=bf16", "", 6, "malformed part");
  check_error("p=f16;c=bf16", "p=f16;c=bf16", 0, "malformed part");
  // Unknown names.
  check_error("", "", 0, "unknown precision policy");
  check_error("O4", "O4", 0, "unknown precision policy");
  check_error("o1", "o1", 0, "unknown precision policy");
  check_error("Float32", "Float32", 0, "unknown precision policy");
  check_error("mixed_float32", "mixed_float32", 0, "unknown precision policy");
  check_error(" bf16", " bf16", 0, "unknown precision policy");
  check_error("bf16 ", "bf16 ", 0, "unknown precision policy");
  check_error("float", "float", 0, "unknown precision policy");
  // A precision_policy_error is a std::invalid_argument.
  CHECK_THROWS_AS(parse_precision_policy("nope"), std::invalid_argument);
  // A failed parse leaves the destination as it was.
  precision_policy keep = parse_precision_policy("O2");
  CHECK_THROWS_AS(keep = parse_precision_policy("O9"), precision_policy_error);
  CHECK(keep == parse_precision_policy("O2"));
}

TEST_CASE("to_string: jmp's spelling or the preset name, and it parses back") {
  CHECK(parse_precision_policy("p=f32,c=bf16,o=f32").to_string() == "p=full,c=bf16,o=full");
  CHECK(parse_precision_policy("f64").to_string() == "p=f64,c=f64,o=f64");
  CHECK(parse_precision_policy("c=half").to_string() == "p=full,c=f16,o=f16");
  CHECK(precision_policy{}.to_string() == "p=full,c=full,o=full");
  for (const char* s : {"mixed_float16", "mixed_bfloat16", "O0", "O1", "O2", "O3", "bf16", "c=f16", "p=f16,o=f64",
                        "params=float32,compute=bfloat16,output=float32"}) {
    CAPTURE(s);
    const precision_policy p = parse_precision_policy(s);
    CHECK(parse_precision_policy(p.to_string()) == p);
  }
  CHECK(parse_precision_policy("O1").to_string() == "O1");
  const precision_policy w = parse_precision_policy("mixed_float16").with_output_dtype(f32);
  check_types(w, f32, f16, f32);
  CHECK(w.preset.empty());
  CHECK(w.to_string() == "p=full,c=f16,o=full");
}

TEST_CASE("cast_to_param / compute / output convert floating values only") {
  const precision_policy p = parse_precision_policy("p=f32,c=bf16,o=f16");
  const std::vector<float> x = {0.1f, 1.0f / 3.0f};
  auto c = p.cast_to_compute(x);
  CHECK(c.type() == bf16);
  CHECK(c.as<mixprec::bfloat16>()[0].bits() == 0x3DCD);
  CHECK(c.as<mixprec::bfloat16>()[1].bits() == 0x3EAB);
  auto o = p.cast_to_output(0.1f);
  CHECK(o.as<mixprec::half>().bits() == 0x2E66);
  auto par = p.cast_to_param(x);  // already float: a view
  CHECK_FALSE(par.converted());
  CHECK(par.as<float>().data() == x.data());
  auto d = p.cast_to_compute(0.1);  // float64 is floating: converted too (jmp)
  CHECK(d.as<mixprec::bfloat16>().bits() == 0x3DCD);
  const std::vector<int> labels = {1, 2};
  const std::vector<int>& same = p.cast_to_compute(labels);  // not floating
  CHECK(&same == &labels);
  precision_policy bad = p;
  bad.compute = dtype::of<mixprec::float8_e4m3fn>();
  CHECK_THROWS_WITH_AS(bad.cast_to_compute(x), doctest::Contains("cannot convert to float8_e4m3fn"),
                       std::invalid_argument);
}
