// SPDX-License-Identifier: MIT
// The format explorer's page logic (docs/pages/explorer.md). The numbers come from
// examples/wasm/explorer.cpp, compiled by scripts/docs to explorer.js (WebAssembly inside).
// Query parameters fill the form on load (the browser test uses them): ?x=0.1&mode=3&ovf=1,
// ?bits=0x7e&format=float8_e4m3fn, &line=float4_e2m1fn (names or aliases: format=e4m3, line=e2m1);
// ?type=0.1 types 0.1 into the number box after loading (an input event, as a keystroke sends).
// Values in the table are exact (the C++ side's "value", "exact" and "*_error_text"), never rounded here.
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  let M = null, formats = [], aliases = {};
  const canonical = (name) => (formats.includes(name) ? name : aliases[name] || name);
  const call = (fn, types, args) => JSON.parse(M.ccall(fn, "string", types, args));
  const hex = (v, bits) => "0x" + v.toString(16).padStart(Math.ceil(bits / 4), "0");

  function row(r) {
    const s = r.stored;
    const fields = [s.sign, s.exponent, s.mantissa].filter((f) => f !== "").join(" ");
    const nb = (s.below || "-") + " | " + (s.above || "-");
    const err = r.abs_error_text === undefined ? "" : r.abs_error_text;
    const rel = r.rel_error_text === undefined ? "" : r.rel_error_text;
    const ulps = r.ulp_error_text === undefined ? "" : r.ulp_error_text;
    return "<tr><td>" + esc(r.format) + '</td><td id="bits-' + esc(r.format) + '"><code>' + hex(s.bits, s.storage_bits) +
      "</code></td><td><code>" + esc(fields) + '</code></td><td id="exact-' + esc(r.format) + '">' + esc(s.exact) +
      "</td><td>" + esc(s.kind) + "</td><td>" + esc(err) + "</td><td>" + esc(rel) + "</td><td>" + esc(ulps) + "</td><td>" + esc(nb) +
      '</td><td id="why-' + esc(r.format) + '">' + esc(r.why || r.range || "") + "</td></tr>";
  }

  function update() {
    const bits = $("ex-bits").value.trim();
    const mode = Number($("ex-mode").value), ovf = Number($("ex-ovf").value);
    let rows = [], status = "";
    if (bits !== "") {
      const v = /^0[xX][0-9a-fA-F]+$/.test(bits) ? parseInt(bits, 16) : /^0[bB][01]+$/.test(bits) ? parseInt(bits.slice(2), 2) : NaN;
      const r = Number.isNaN(v) ? { error: "bits: write 0x... or 0b..." } : call("mp_bits", ["string", "number"], [$("ex-bits-format").value, v]);
      if (r.error) status = r.error; else rows = [r];
    } else {
      for (const f of formats) {
        const r = call("mp_explain", ["string", "string", "number", "number"], [f, $("ex-x").value.trim(), mode, ovf]);
        if (r.error) { status = r.error; rows = []; break; }
        rows.push(r);
      }
    }
    $("ex-status").textContent = status || (bits !== "" ? "bit pattern " + bits : "\"" + $("ex-x").value.trim() + "\" in every format");
    $("ex-status").className = status ? "ex-error" : "ex-ok";
    $("ex-body").innerHTML = rows.map(row).join("");
    drawLine(rows);
  }

  function drawLine(rows) {
    const f = $("ex-line-format").value;
    const list = call("mp_list", ["string"], [f]);
    if (list.error) { $("ex-line").textContent = list.error; return; }
    const vals = [...new Set(list.filter((e) => e.kind !== "NaN" && e.kind !== "infinity").map((e) => e.value))].sort((a, b) => a - b);
    const exact = new Map(list.filter((e) => e.kind !== "NaN" && e.kind !== "infinity").map((e) => [e.value, e.exact]));
    const label = (v) => esc(exact.get(v) || String(v));  // the exact decimal (0 where the format has none)
    const lo = vals[0], hi = vals[vals.length - 1], W = 900, L = 40;
    const xOf = (v) => (hi > lo ? L + (W * (v - lo)) / (hi - lo) : L + W / 2);
    let svg = '<svg id="ex-line-svg" data-count="' + vals.length + '" xmlns="http://www.w3.org/2000/svg" width="' + (W + 2 * L) +
      '" height="110" font-size="11"><line x1="' + L + '" y1="50" x2="' + (L + W) + '" y2="50" stroke="black"/>';
    for (const v of vals) svg += '<line x1="' + xOf(v) + '" y1="40" x2="' + xOf(v) + '" y2="60" stroke="' + (v === 0 ? "red" : "steelblue") + '"><title>' + label(v) + "</title></line>";
    const anchors = ["start", "middle", "end"];  // long exact labels stay inside
    [lo, 0, hi].forEach((v, k) => { svg += '<text x="' + xOf(v) + '" y="' + (80 + 14 * (k % 2)) + '" text-anchor="' + anchors[k] + '">' + label(v) + "</text>"; });
    const here = rows.find((r) => r.format === f);
    if (here && here.stored.kind !== "NaN" && here.stored.kind !== "infinity") {
      const v = Number(here.stored.exact);
      svg += '<polygon points="' + (xOf(v) - 6) + ",25 " + (xOf(v) + 6) + ",25 " + xOf(v) + ',38" fill="orange"><title>' + esc(here.stored.exact) + "</title></polygon>";
    }
    $("ex-line").innerHTML = svg + "</svg>";
  }

  createExplorer().then((mod) => {
    M = mod;
    formats = JSON.parse(M.ccall("mp_formats", "string", [], []));
    if (M._mp_aliases) aliases = JSON.parse(M.ccall("mp_aliases", "string", [], []));
    for (const f of formats) {
      $("ex-bits-format").add(new Option(f, f));
      const small = !call("mp_list", ["string"], [f]).error;
      if (small) $("ex-line-format").add(new Option(f, f));
    }
    const q = new URLSearchParams(location.search);
    if (q.has("x")) $("ex-x").value = q.get("x");
    if (q.has("bits")) $("ex-bits").value = q.get("bits");
    if (q.has("format")) $("ex-bits-format").value = canonical(q.get("format"));
    if (q.has("mode")) $("ex-mode").value = q.get("mode");
    if (q.has("ovf")) $("ex-ovf").value = q.get("ovf");
    $("ex-line-format").value = canonical(q.get("line") || "float8_e4m3fn");
    for (const id of ["ex-x", "ex-bits"]) $(id).addEventListener("input", update);
    for (const id of ["ex-bits-format", "ex-mode", "ex-ovf", "ex-line-format"]) $(id).addEventListener("change", update);
    update();
    if (q.has("type")) {  // the browser test types into the box: the same path as a keystroke
      $("ex-x").value = q.get("type");
      $("ex-x").dispatchEvent(new Event("input"));
    }
  });
})();
