#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the built documentation site (scripts/docs --check runs it).

  scripts/check_docs.py build/docs

1. Links: every relative href/src of every HTML file names a file of the site (fragments are
   checked on the site's own pages too: the id must exist).
2. Browser: headless Chromium opens every page of the site (the API reference: its index and
   the class/file pages linked from it, up to --max-api pages) and must print no console
   message at all (errors, uncaught exceptions, failed loads are all console messages).
3. The format explorer (WebAssembly): loaded with query parameters that fill the form or type
   into it, its table must show known encodings (0.1 in float16 is 0x2e66, as numpy.float16;
   in bfloat16 0x3dcd; in float8_e4m3fn 0x1d, as ml_dtypes; upward gives float16 0x2e67; ...).
4. Screenshots of a few pages (PNG, 1280x900): decoded here, each must show at least 2% of
   non-background pixels and 8 distinct colours, so a blank or unstyled page fails.
Exit status 1 with the reasons on failure. Only the standard library and `chromium` are needed.
"""
import argparse
import concurrent.futures
import html.parser
import os
import re
import struct
import subprocess
import sys
import tempfile
import urllib.parse
import zlib


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "name" in a:
            self.ids.add(a["name"])
        for k in ("href", "src"):
            if a.get(k):
                self.refs.append(a[k])


def parse(path):
    p = Links()
    with open(path, encoding="utf-8", errors="replace") as f:
        p.feed(f.read())
    return p


def check_links(site):
    site = os.path.normpath(site)
    pages = {}
    for d, _, files in os.walk(site):
        for n in files:
            if n.endswith(".html"):
                pages[os.path.normpath(os.path.join(d, n))] = None
    errors = []
    parsed = {}
    for page in pages:
        parsed[page] = parse(page)
    for page, p in parsed.items():
        for ref in p.refs:
            u = urllib.parse.urlparse(ref)
            if u.scheme or ref.startswith("//") or ref.startswith("javascript:") or ref.startswith("data:"):
                continue
            path = urllib.parse.unquote(u.path)
            if not path:
                target = page
            elif path.startswith("/"):  # site-absolute (mkdocs' 404 page)
                target = os.path.normpath(os.path.join(site, path.lstrip("/")))
            else:
                target = os.path.normpath(os.path.join(os.path.dirname(page), path))
            if os.path.isdir(target):
                target = os.path.join(target, "index.html")
            if not os.path.exists(target):
                errors.append("%s: broken link %r" % (os.path.relpath(page, site), ref))
                continue
            frag = urllib.parse.unquote(u.fragment)
            if frag and target in parsed and "/api/" not in target and frag not in parsed[target].ids:
                errors.append("%s: link %r: no id %r in %s" % (os.path.relpath(page, site), ref, frag,
                                                              os.path.relpath(target, site)))
    return sorted(pages), errors


CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--enable-logging=stderr", "--v=0", "--virtual-time-budget=3000",
                  "--hide-scrollbars"]


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        for d in os.environ.get("PATH", "").split(os.pathsep):
            if os.access(os.path.join(d, name), os.X_OK):
                return os.path.join(d, name)
    return None


def open_page(browser, page, shot=None):
    """Console messages Chromium printed while loading page (and writes a screenshot)."""
    with tempfile.TemporaryDirectory() as profile:
        cmd = [browser] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile]
        cmd += (["--screenshot=" + shot, "--window-size=1280,900"] if shot else ["--dump-dom"])
        cmd.append("file://" + os.path.abspath(page))
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    msgs = [l for l in r.stderr.decode(errors="replace").splitlines() if ":CONSOLE" in l]
    if r.returncode != 0:
        msgs.append("chromium exited with status %d" % r.returncode)
    if not shot and len(r.stdout) < 200:
        msgs.append("empty DOM (%d bytes)" % len(r.stdout))
    return msgs


EXPLORER_CASES = [  # (query, [(element id, expected text)])
    ("x=0.1", [("bits-float16", "0x2e66"), ("bits-bfloat16", "0x3dcd"), ("bits-float8_e4m3fn", "0x1d"),
               ("exact-float8_e4m3fn", "0.1015625"), ("exact-float16", "0.0999755859375")]),
    ("type=0.1&mode=3", [("bits-float16", "0x2e67"), ("exact-float16", "0.10003662109375")]),
    ("type=1e400&ovf=1", [("bits-float16", "0x7bff"), ("bits-float8_e4m3fn", "0x7e")]),
    ("type=1e400", [("bits-float16", "0x7c00"), ("bits-float8_e4m3fn", "0x7f")]),
    ("bits=0x7e&format=float8_e4m3fn", [("exact-float8_e4m3fn", "448")]),
    ("x=3&line=float4_e2m1fn", [("ex-line-svg@data-count", "15"), ("bits-float4_e2m1fn", "0x5")]),
]


def element_text(dom, ident):
    """Text inside the element with id ident (tags stripped), or attribute ident=ID@ATTR."""
    if "@" in ident:
        ident, attr = ident.split("@")
        m = re.search(r'<[^>]*\bid="%s"[^>]*\b%s="([^"]*)"' % (re.escape(ident), re.escape(attr)), dom)
        return m.group(1) if m else None
    m = re.search(r'<(\w+)[^>]*\bid="%s"[^>]*>(.*?)</\1>' % re.escape(ident), dom, re.S)
    return re.sub(r"<[^>]+>", "", m.group(2)).strip() if m else None


def check_explorer(browser, site):
    page = os.path.join(site, "explorer.html")
    if not os.path.exists(page):
        return ["explorer.html is missing"]
    errors = []
    for query, expect in EXPLORER_CASES:
        with tempfile.TemporaryDirectory() as profile:
            cmd = [browser] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile, "--dump-dom",
                                                "file://" + os.path.abspath(page) + "?" + query]
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        dom = r.stdout.decode(errors="replace")
        console = [l for l in r.stderr.decode(errors="replace").splitlines() if ":CONSOLE" in l]
        errors += ["explorer ?%s: console: %s" % (query, c) for c in console[:3]]
        for ident, want in expect:
            got = element_text(dom, ident)
            if got != want:
                errors.append("explorer ?%s: #%s is %r, expected %r" % (query, ident, got, want))
    print("explorer: %d cases, %d problems" % (len(EXPLORER_CASES), len(errors)))
    return errors


def png_pixels(path):
    """(width, height, rows of pixel tuples) of an 8-bit RGB/RGBA, non-interlaced PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, [[tuple(r[i:i + 3]) for i in range(0, stride, bpp)] for r in rows]


def check_screenshot(path):
    w, h, rows = png_pixels(path)
    counts = {}
    for r in rows[::4]:
        for px in r[::4]:
            counts[px] = counts.get(px, 0) + 1
    total = sum(counts.values())
    background = max(counts.values())
    ink = 1 - background / total
    problems = []
    if (w, h) != (1280, 900):
        problems.append("size %dx%d, expected 1280x900" % (w, h))
    if ink < 0.02:
        problems.append("blank: %.1f%% non-background pixels" % (100 * ink))
    if len(counts) < 8:
        problems.append("%d distinct colours" % len(counts))
    return problems, ink, len(counts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("site")
    ap.add_argument("--max-api", type=int, default=40, help="API reference pages opened in the browser")
    ap.add_argument("--shots", default="index.html,cheatsheet.html,formats.html,explorer.html,api/index.html")
    ap.add_argument("--out", default=None, help="where screenshots are kept (default: SITE/../docs-check)")
    args = ap.parse_args()
    site = os.path.normpath(args.site)
    failures = []

    pages, errors = check_links(site)
    print("links: %d HTML files, %d broken" % (len(pages), len(errors)))
    failures += errors

    browser = chromium()
    if browser is None:
        print("error: chromium not found (Debian: apt-get install chromium)", file=sys.stderr)
        return 1
    site_pages = [p for p in pages if os.sep + "api" + os.sep not in p]
    api_index = os.path.join(site, "api", "index.html")
    api_pages = []
    if os.path.exists(api_index):
        linked = [os.path.normpath(os.path.join(site, "api", r)) for r in parse(api_index).refs
                  if not urllib.parse.urlparse(r).scheme and r.endswith(".html")]
        api_pages = [api_index] + sorted(set(p for p in linked if os.path.exists(p)))[:args.max_api]
        api_pages += sorted(p for p in pages if re.search(r"(annotated|files|namespacemixprec)\.html$", p))
    to_open = sorted(set(site_pages + api_pages))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda p: (p, open_page(browser, p)), to_open))
    nbad = 0
    for p, msgs in results:
        if msgs:
            nbad += 1
            failures += ["%s: %s" % (os.path.relpath(p, site), m) for m in msgs[:5]]
    print("browser: %d pages opened in %s, %d with console messages" % (len(to_open), os.path.basename(browser), nbad))

    failures += check_explorer(browser, site)

    out = args.out or os.path.join(os.path.dirname(os.path.abspath(site)), "docs-check")
    os.makedirs(out, exist_ok=True)
    for rel in args.shots.split(","):
        page = os.path.join(site, rel)
        if not os.path.exists(page):
            failures.append("screenshot: %s does not exist" % rel)
            continue
        shot = os.path.join(out, rel.replace("/", "_").replace(".html", ".png"))
        msgs = open_page(browser, page, shot)
        failures += ["%s (screenshot run): %s" % (rel, m) for m in msgs]
        if not os.path.exists(shot):
            failures.append("screenshot of %s was not written" % rel)
            continue
        problems, ink, colours = check_screenshot(shot)
        print("screenshot %-22s %5.1f%% ink, %4d colours  %s" % (rel, 100 * ink, colours, "; ".join(problems) or "ok"))
        failures += ["screenshot %s: %s" % (rel, p) for p in problems]

    if failures:
        print("\n%d problem(s):" % len(failures))
        for f in failures[:60]:
            print("  " + f)
        return 1
    print("docs check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
