#!/usr/bin/env python3
"""Checks pages written by `gapscope html` in headless Chromium.

usage: check_html.py <gapscope> <render_mkdb> <render_gen> <work dir> [<capture_mkdb>]
                    [--screenshot-dir DIR]

Loads each page with `chromium --headless --dump-dom` and reads back what
the page's own JavaScript (viewer/render/html_assets/page.js) wrote on <body>:
data-status ("ok", or "error: <message>" when any script error happened),
data-events (events decoded from the embedded JSON) and data-rects (event
rectangles in the SVG timeline). Expected counts are worked out by hand:

* fixture "before" (tests/unit/test_export_fixture.c): 5 gaps + 4 kernels +
  1 memcpy + 1 memset + 5 API calls + 2 syncs + 2 NVTX = 20 events, each
  wider than a pixel; the page opens on the GPU window [2000, 11200] (+1%
  = 92 ns before), which leaves out the first launch call [1000, 1500] and
  the NVTX mark at 950: 18 rects; with "#all" (whole trace) 20;
* fixture "after": 1 gap + 6 ops + 5 API + 1 sync + 2 NVTX = 15; its GPU
  window [2000, 5900] (-39 ns) leaves out launch call 1 [1000, 1500] and the
  mark: 13 rects; the comparison page draws both: 35 events, 31 rects;
* fixture "phases" (variant 2) compared with itself, before_phase vs
  after_phase: each run decodes the whole trace, its gap row holding the
  gaps of its selection: 12 ops + 10 API + 3 syncs + 6 NVTX (2 ranges, 2
  marks, 2 phases) = 31, + 5 gaps before, + 2 after: 36 + 33 = 69 events.
  The before view [800, 11304] draws phase one's 5 gaps, 6 ops, 5 API, 2
  syncs and 3 NVTX (its range, mark, before_phase) = 21; the after view
  [20748, 26000] its 2 gaps, 6 ops, 5 API, 1 sync, 3 NVTX = 17: 38 rects;
* render_gen with S steps (bench/speed/render_gen.c): 19 S rows + 8 S - 1 gaps;
  at a fixed plot width of 1000 px (URL "#w=1000") each of the 5 rows
  (gaps, stream 7, API, syncs, NVTX; one lane each) holds at most one rect
  per pixel column (+1 at the edge), so at most 5 * 1001 rects;
* with capture_mkdb (tests/cli/capture_mkdb.c, a trace recorded with
  --capture-range, windows W1 [1, 2] ms and W2 [5, 6] ms): 3 gaps + 4
  kernels + 3 API calls + 1 NVTX range = 11 events, 11 rects at 1000 px
  (each alone in its pixel column); the view [0, 5 ms] from t0 = K1's start
  at 1 ms (the GPU window, its 1% margin cut at the trace's ends) draws the
  time between the windows, [1, 4] ms from t0, as one hatched "not
  recorded" rect: x 200.0, width 600.0 (0.2 px a microsecond), under the
  axis (y 20) across the 4 rows. Hovering it ("#probe-unrec") says it lies
  between windows 1 and 2, 3.00 ms from 1.00 ms to 4.00 ms; hovering the
  first gap ("#probe", 300 us into W1) names its window.

It also checks that no element came from a trace string (the hostile kernel
name "<script>alert(1)</script>" must stay text) and, with
--screenshot-dir, saves PNGs of the synthetic pages (for a look; the
pictures in docs/ come from real traces, see docs/html.md). Exit 0 pass, 1 fail, 77 when no
Chromium is installed (ctest SKIP_RETURN_CODE).
"""
import os
import re
import shutil
import subprocess
import sys

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def fail(msg):
    sys.stderr.write("FAIL: %s\n" % msg)
    sys.exit(1)


def chromium():
    for n in CHROMIUM_NAMES:
        p = shutil.which(n)
        if p:
            return p
    return None


def chrome_args(browser, work):
    # --no-sandbox: the tests may run as root in a container, where
    # Chromium's sandbox cannot start; the pages are our own files.
    return [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--no-first-run", "--user-data-dir=" + os.path.join(work, "chromium-profile")]


def dump_dom(browser, work, url):
    r = subprocess.run(chrome_args(browser, work) + ["--window-size=1300,1000", "--dump-dom", url],
                       capture_output=True, timeout=300)
    if r.returncode != 0:
        fail("chromium exit %d on %s: %s" % (r.returncode, url, r.stderr[-2000:]))
    return r.stdout.decode("utf-8", "replace")


def screenshot(browser, work, url, png, height):
    r = subprocess.run(chrome_args(browser, work) +
                       ["--window-size=1300,%d" % height, "--screenshot=" + png, url],
                       capture_output=True, timeout=300)
    if r.returncode != 0 or not os.path.exists(png):
        fail("screenshot of %s failed: %s" % (url, r.stderr[-2000:]))


def body_attrs(dom):
    m = re.search(r"<body([^>]*)>", dom)
    if not m:
        fail("no <body> in the dumped DOM")
    return dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1)))


def run(cmd):
    r = subprocess.run(cmd, capture_output=True)
    if r.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.decode()))


def check_page(browser, work, html, runs, want_events, want_rects=None, rects_max=None, hash_=""):
    dom = dump_dom(browser, work, "file://" + os.path.abspath(html) + hash_)
    a = body_attrs(dom)
    if a.get("data-status") != "ok":
        fail("%s: page status %r (JavaScript did not finish)" % (html, a.get("data-status")))
    events, rects = int(a["data-events"]), int(a["data-rects"])
    if events != want_events:
        fail("%s: %d events decoded, want %d" % (html, events, want_events))
    if want_rects is not None and rects != want_rects:
        fail("%s: %d rects, want %d" % (html, rects, want_rects))
    if rects_max is not None and not (1 <= rects <= rects_max):
        fail("%s: %d rects, want 1..%d (per-pixel aggregation)" % (html, rects, rects_max))
    # the SVG must hold exactly the rects the script counted, plus one
    # background rect per row
    svg_rects = len(re.findall(r"<rect [^>]*data-k=\"\d+\"", dom))
    if svg_rects != rects:
        fail("%s: %d rects with data-k in the DOM, page says %d" % (html, svg_rects, rects))
    # trace strings never became markup
    if "<script>alert" in dom:
        fail("%s: a kernel name became a <script> element" % html)
    # one JSON data block per run and the page's script: nothing else
    scripts = len(re.findall(r"<script[\s>]", dom))
    if scripts != runs + 1:
        fail("%s: %d <script> elements, want %d" % (html, scripts, runs + 1))
    print("ok: %s: %d events, %d rects, draw %s ms" % (os.path.basename(html), events, rects,
                                                    a.get("data-draw-ms", "?")))


def check_probe(browser, work, html):
    """Hover and click the first idle gap of the fixture ("#probe"): the
    tooltip and the explanation box must say what test_html.c's comment
    derives for gap [4000, 4100) (gap model v2): launch latency, kernel 2's
    cudaLaunchKernel [2000, 2600] on thread 4243 (1.10 to 1.70 us from the
    origin at 900 ns) came before the GPU went idle."""
    dom = dump_dom(browser, work, "file://" + os.path.abspath(html) + "#probe")
    if body_attrs(dom).get("data-status") != "ok":
        fail("probe: page status %r" % body_attrs(dom).get("data-status"))
    tip = re.search(r'<div id="gs-tip"[^>]*>(.*?)</div>', dom, re.S)
    box = re.search(r'<div class="explain" id="explain-0"[^>]*>(.*?)</div>', dom, re.S)
    if not tip or "idle 100 ns \u00b7 launch latency" not in tip.group(1) or \
            "\n100 ns launch latency (cudaLaunchKernel)\n" not in tip.group(1):
        fail("probe: tooltip %r" % (tip and tip.group(1)))
    want = ("The launch call cudaLaunchKernel on thread 4243 (1.10 \u00b5s \u2192 "
            "1.70 \u00b5s) was made before the GPU went idle, yet kernel "
            "\u044f\u0434\u0440\u043e_\u03bb started only after")
    if not box or want not in box.group(1) or \
            "\n100 ns launch latency (cudaLaunchKernel)\n" not in box.group(1):
        fail("probe: explanation %r" % (box and box.group(1)))
    print("ok: tooltip and gap explanation")


def check_capture(browser, work, gs, mkdb):
    db, page = os.path.join(work, "capture.db"), os.path.join(work, "capture.html")
    run([mkdb, db, "capture"])
    run([gs, "html", db, "-o", page])
    check_page(browser, work, page, 1, 11, want_rects=11, hash_="#w=1000")
    dom = dump_dom(browser, work, "file://" + os.path.abspath(page) + "#w=1000")
    a = body_attrs(dom)
    # numbers only: the page's own script (embedded) holds the markup too
    unrec = re.findall(r'<rect class="unrec" x="(-?[\d.]+)" y="(\d+)" width="([\d.]+)"', dom)
    if a.get("data-unrec") != "1" or unrec != [("200.0", "20", "600.0")]:
        fail("capture: hatched spans %r (data-unrec %r), want [('200.0', '20', '600.0')]"
             % (unrec, a.get("data-unrec")))
    dom = dump_dom(browser, work, "file://" + os.path.abspath(page) + "#w=1000&probe-unrec")
    tip = re.search(r'<div id="gs-tip"[^>]*>(.*?)</div>', dom, re.S)
    want = ("not recorded: between capture windows 1 and 2\n3.00 ms from 1.00 ms to 4.00 ms\n"
            "only the capture windows (record --capture-range) were recorded: this is no idle "
            "GPU, and no figure counts it")
    if not tip or tip.group(1) != want:
        fail("capture: hatch tooltip %r" % (tip and tip.group(1)))
    dom = dump_dom(browser, work, "file://" + os.path.abspath(page) + "#w=1000&probe")
    tip = re.search(r'<div id="gs-tip"[^>]*>(.*?)</div>', dom, re.S)
    if not tip or "\nstart 300 \u00b5s, duration 200 \u00b5s\nin capture window 1 at +300 " \
            "\u00b5s\nclick for the explanation" not in tip.group(1):
        fail("capture: gap tooltip %r" % (tip and tip.group(1)))
    print("ok: capture page: one hatched span at x 200.0, width 600.0; tooltips")
    return page


def main():
    args = sys.argv[1:]
    shots = None
    if "--screenshot-dir" in args:
        i = args.index("--screenshot-dir")
        shots = args[i + 1]
        del args[i:i + 2]
    if len(args) not in (4, 5):
        sys.stderr.write(__doc__)
        return 2
    gs, mkdb, gen, work = args[:4]
    browser = chromium()
    if not browser:
        print("skip: no chromium installed (Debian package 'chromium')")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    before, after = os.path.join(work, "before.db"), os.path.join(work, "after.db")
    run([mkdb, before, "0"])
    run([mkdb, after, "1"])
    one, cmp_ = os.path.join(work, "run.html"), os.path.join(work, "cmp.html")
    run([gs, "html", before, "-o", one])
    run([gs, "html", before, after, "-o", cmp_])
    check_page(browser, work, one, 1, 20, want_rects=18)
    check_page(browser, work, one, 1, 20, want_rects=20, hash_="#all")
    check_probe(browser, work, one)
    check_page(browser, work, cmp_, 2, 35, want_rects=31)
    phases_db, phases = os.path.join(work, "phases.db"), os.path.join(work, "phases.html")
    run([mkdb, phases_db, "2"])
    run([gs, "html", phases_db, "--before-range", "before_phase", "--after-range", "after_phase",
         "-o", phases])
    check_page(browser, work, phases, 2, 69, want_rects=38)

    steps = 2000
    big_db, big = os.path.join(work, "big.db"), os.path.join(work, "big.html")
    run([gen, big_db, str(steps)])
    run([gs, "html", big_db, "-o", big])
    check_page(browser, work, big, 1, 19 * steps + 8 * steps - 1, rects_max=5 * 1001,
               hash_="#w=1000")

    cap = check_capture(browser, work, gs, args[4]) if len(args) == 5 else None

    if shots:
        os.makedirs(shots, exist_ok=True)
        screenshot(browser, work, "file://" + os.path.abspath(one), os.path.join(shots, "fixture-run.png"), 1500)
        screenshot(browser, work, "file://" + os.path.abspath(cmp_), os.path.join(shots, "fixture-compare.png"), 1700)
        screenshot(browser, work, "file://" + os.path.abspath(big), os.path.join(shots, "fixture-big.png"), 900)
        if cap:
            screenshot(browser, work, "file://" + os.path.abspath(cap) + "#w=1000",
                       os.path.join(shots, "fixture-capture.png"), 1300)
        print("screenshots in %s" % shots)
    return 0


if __name__ == "__main__":
    sys.exit(main())
