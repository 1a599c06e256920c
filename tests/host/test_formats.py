# SPDX-License-Identifier: GPL-2.0
"""Host tests of the profile formats, read by the real consumers: pprof's
profile.proto (flamegraph.c's sibling pprof.c) by `go tool pprof` (Debian's
golang-go), the SVG flame graph (flamegraph.c) rendered in headless Chromium
(Debian's chromium, driven here over the DevTools protocol on a pipe: a
screenshot whose pixels are checked, a real hover and a real click), and
folded stacks and `perf script` text by speedscope's importers (npm's
speedscope, run in the same Chromium: speedscope_import()).

The profiles come from tools/build/host/cg_fixture (tests/tools/cg_fixture.c),
which builds a known call tree through the same writers the CLI uses:
cycles, period 1000: 60 x main->a->b->leaf, 40 x main->c->c_helper->leaf
(c_helper inlined in c), 10 x main->write->el0_svc->invoke_syscall (libc,
then the kernel); instructions, period 2000: 30 x main->a->b->leaf,
20 x main->c->c_helper->leaf. scripts/setup.sh installs every tool these
tests use; a test skips, saying which, only where one is absent."""

import base64
import glob
import gzip
import json
import os
import re
import select
import shutil
import stat
import struct
import subprocess
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET
import zlib

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURE = os.path.join(TOP, "tools", "build", "host", "cg_fixture")
SPEEDSCOPE_VERSION = "1.25.0"      # scripts/setup.sh installs this one


def pmuscope_cache():
    """scripts/lib.sh's PMUSCOPE_CACHE."""
    if os.environ.get("PMUSCOPE_CACHE"):
        return os.environ["PMUSCOPE_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.environ.get("HOME") or "/var/cache", ".cache")
    return os.path.join(base, "pmuscope")


SPEEDSCOPE_HTML = os.path.join(pmuscope_cache(), "npm", "speedscope-" + SPEEDSCOPE_VERSION,
                               "node_modules", "speedscope", "dist", "release", "index.html")


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def fixture(*args):
    if not os.access(FIXTURE, os.X_OK):
        raise AssertionError("tools/build/host/cg_fixture not built (make tools)")
    return subprocess.run([FIXTURE] + list(args), capture_output=True, text=True, timeout=60)


def fixture_ok(tc, *args):
    r = fixture(*args)
    tc.assertEqual(r.returncode, 0, r.stderr)
    return r


# ---------------------------------------------------------------- PNG
def png_decode(data):
    """(width, height, rows): rows[y][x] is an (r, g, b) tuple. 8-bit RGB
    or RGBA, non-interlaced, as Chromium's screenshots are."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("PNG %r: only 8-bit RGB(A), non-interlaced" % (hdr,))
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    rows, pos = [], 0
    for _ in range(height):
        ftype, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xff
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xff
            elif ftype == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 0xff
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xff
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def parse_rgb(fill):
    m = re.match(r"rgb\((\d+),\s*(\d+),\s*(\d+)\)", fill)
    return tuple(int(v) for v in m.groups())


def share_of_color(img, box, rgb, tol=3):
    """The share of the pixels inside @box (x, y, w, h; inset by 2 px)
    within @tol of @rgb in each channel."""
    _, _, rows = img
    x0, y0 = int(box["x"]) + 2, int(box["y"]) + 2
    x1, y1 = int(box["x"] + box["width"]) - 2, int(box["y"] + box["height"]) - 2
    n = hit = 0
    for y in range(y0, y1):
        for x in range(x0, x1):
            n += 1
            px = rows[y][x]
            if all(abs(px[i] - rgb[i]) <= tol for i in range(3)):
                hit += 1
    return hit / n if n else 0.0


# ---------------------------------------------------------------- Chromium
class Chromium:
    """Headless Chromium over the DevTools protocol on a pipe
    (--remote-debugging-pipe: commands in on fd 3, replies out on fd 4,
    NUL-terminated JSON), one page attached."""

    def __init__(self, exe, downloads):
        self.tmp = tempfile.mkdtemp(prefix="pmuscope-chromium-")
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()

        def child_fds():
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        # The flags of a machine without network (Debian's chromium, root).
        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--mute-audio",
                "--enable-unsafe-swiftshader", "--use-angle=swiftshader",
                "--hide-scrollbars", "--user-data-dir=" + self.tmp,
                "--remote-debugging-pipe", "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, pass_fds=(3, 4),
                                     preexec_fn=child_fds)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        target = self.call("Target.createTarget", url="about:blank", session=False)
        self.session = self.call("Target.attachToTarget", targetId=target["targetId"],
                                 flatten=True, session=False)["sessionId"]
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Browser.setDownloadBehavior", behavior="allow", downloadPath=downloads,
                  eventsEnabled=True, session=False)

    def close(self):
        try:
            self.call("Browser.close", session=False, timeout=10)
        except Exception:       # closing anyway
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_w)
        os.close(self.from_r)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply from Chromium")
            ready, _, _ = select.select([self.from_r], [], [], left)
            if ready:
                chunk = os.read(self.from_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium exited (status %s)" % self.proc.poll())
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=True, timeout=30, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method, pred=lambda p: True, timeout=30):
        """The params of the first event @method (seen or to come) that
        @pred takes, removed from the queue."""
        deadline = time.monotonic() + timeout
        while True:
            methods = (method,) if isinstance(method, str) else method
            for i, ev in enumerate(self.events):
                if ev.get("method") in methods and pred(ev.get("params", {})):
                    del self.events[i]
                    return ev["params"]
            self.events.append(self._read(deadline))

    def navigate(self, url, width=1200, height=800):
        """Load @url afresh (about:blank first: a new #fragment alone
        would not reload the page)."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)
        for u in ("about:blank", url):
            self.events = []
            self.call("Page.navigate", url=u)
            # A dialog holds the load event back: either ends the wait
            # (the dialog's event stays queued for the caller).
            ev = self.wait_event(("Page.loadEventFired", "Page.javascriptDialogOpening"))
            if "message" in ev:
                self.events.append({"method": "Page.javascriptDialogOpening", "params": ev})

    def exceptions(self):
        """The page's uncaught exceptions since it was loaded."""
        return [e["params"]["exceptionDetails"] for e in self.events
                if e.get("method") == "Runtime.exceptionThrown"]

    def js(self, expr, timeout=30):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True,
                      awaitPromise=True, timeout=timeout)
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def wait_js(self, expr, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(expr)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError("never true: " + expr)
            # Events (dialogs, console) keep coming meanwhile.
            self.call("Runtime.evaluate", expression="new Promise(r => setTimeout(r, 50))",
                      awaitPromise=True)

    def screenshot(self):
        r = self.call("Page.captureScreenshot", format="png")
        return base64.b64decode(r["data"])

    def mouse(self, kind, x, y, button="none", clicks=0):
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button=button,
                  clickCount=clicks)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, "left", 1)
        self.mouse("mouseReleased", x, y, "left", 1)


BROWSER = None
DOWNLOADS = None


def browser():
    """The one Chromium of these tests, started on first use; SkipTest
    where Chromium is not installed."""
    global BROWSER, DOWNLOADS
    if BROWSER is None:
        exe = chromium_path()
        if not exe:
            raise unittest.SkipTest("chromium not installed (scripts/setup.sh installs it)")
        DOWNLOADS = tempfile.mkdtemp(prefix="pmuscope-downloads-")
        BROWSER = Chromium(exe, DOWNLOADS)
    return BROWSER


def tearDownModule():
    global BROWSER
    if BROWSER is not None:
        BROWSER.close()
        BROWSER = None
        shutil.rmtree(DOWNLOADS, ignore_errors=True)


# ---------------------------------------------------------------- speedscope
def speedscope_import_profiles(path):
    """@path imported by speedscope's own importer (npm speedscope, its
    dist/release page in headless Chromium, the file given as the
    speedscope CLI gives it: #localProfilePath= a script calling
    speedscope.loadFileFromBase64()), then saved by its Export button
    (speedscope's JSON file format). Returns (importer, profiles): the
    importer speedscope logged ("Importing as ...") and, per profile it
    made, (name, [(stack, weight)]) with stacks root first as tuples of
    frame names. Raises on an unrecognised or failed import; SkipTest
    where speedscope or Chromium is absent."""
    if not os.path.exists(SPEEDSCOPE_HTML):
        raise unittest.SkipTest("speedscope %s not in %s (scripts/setup.sh installs it)"
                                % (SPEEDSCOPE_VERSION, os.path.dirname(SPEEDSCOPE_HTML)))
    b = browser()
    with open(path, "rb") as f:
        data = f.read()
    loader = tempfile.NamedTemporaryFile("w", suffix=".js", delete=False)
    with loader:
        loader.write("speedscope.loadFileFromBase64(%s, %s)" % (
            json.dumps(os.path.basename(path)), json.dumps(base64.b64encode(data).decode())))
    try:
        for name in os.listdir(DOWNLOADS):
            os.unlink(os.path.join(DOWNLOADS, name))
        b.navigate("file://" + SPEEDSCOPE_HTML + "#localProfilePath=" + loader.name)

        def console_text(p):
            return " ".join(str(a.get("value", "")) for a in p.get("args", []))

        def done():
            for ev in b.events:
                if ev.get("method") == "Page.javascriptDialogOpening":
                    msg = ev["params"].get("message")
                    b.call("Page.handleJavaScriptDialog", accept=True)
                    raise RuntimeError("speedscope: " + msg)
                if ev.get("method") == "Runtime.consoleAPICalled":
                    text = console_text(ev["params"])
                    if text.startswith("Failed to load format"):
                        raise RuntimeError("speedscope: " + text)
            return b.js("""[...document.querySelectorAll('div')].some(
                d => d.textContent.trim().endsWith('Export') && d.children.length <= 1 &&
                     d.textContent.length < 12)""")
        deadline = time.monotonic() + 30
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError("speedscope never showed the profile")
            b.call("Runtime.evaluate", expression="new Promise(r => setTimeout(r, 50))",
                   awaitPromise=True)
        importer = [console_text(ev["params"]) for ev in b.events
                    if ev.get("method") == "Runtime.consoleAPICalled" and
                    console_text(ev["params"]).startswith("Importing ")]
        box = b.js("""(() => { const d = [...document.querySelectorAll('div')].filter(
                d => d.textContent.trim().endsWith('Export') && d.children.length <= 1 &&
                     d.textContent.length < 12)[0];
                const r = d.getBoundingClientRect();
                return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()""")
        b.click(box["x"], box["y"])
        b.wait_event("Browser.downloadProgress", lambda p: p.get("state") == "completed")
        saved = glob.glob(os.path.join(DOWNLOADS, "*"))
        if len(saved) != 1:
            raise RuntimeError("speedscope exported %r" % saved)
        with open(saved[0]) as f:
            doc = json.load(f)
    finally:
        os.unlink(loader.name)
    frames = [fr["name"] for fr in doc["shared"]["frames"]]
    profiles = []
    for prof in doc["profiles"]:
        stacks = []
        if prof["type"] == "sampled":
            for sample, weight in zip(prof["samples"], prof["weights"]):
                stacks.append((tuple(frames[i] for i in sample), weight))
        else:       # evented: open and close events over time
            stack, last = [], prof["startValue"]
            for ev in prof["events"]:
                if ev["at"] > last and stack:
                    stacks.append((tuple(frames[i] for i in stack), ev["at"] - last))
                last = ev["at"]
                if ev["type"] == "O":
                    stack.append(ev["frame"])
                else:
                    stack.pop()
        profiles.append((prof["name"], stacks))
    return (importer[0] if importer else None), profiles


def speedscope_import(path):
    """The (stack, weight) pairs speedscope's importer makes of @path
    (folded stacks, `perf script` text, pprof, ...), all its profiles
    together: stack a tuple of frame names, root first; weight in the
    file's unit (folded: counts; perf script: seconds, as speedscope
    weighs its samples by their timestamps). See speedscope_import_profiles()."""
    _, profiles = speedscope_import_profiles(path)
    return [s for _, stacks in profiles for s in stacks]


def totals(stacks):
    """{stack: summed weight} of (stack, weight) pairs."""
    out = {}
    for stack, w in stacks:
        out[stack] = out.get(stack, 0) + w
    return out


# The fixture's call tree, root first, per event: {stack: (samples, period)}.
FIXTURE_STACKS = {
    "cycles": {
        ("main", "a", "b", "leaf"): (60, 60000),
        ("main", "c", "c_helper", "leaf"): (40, 40000),
        ("main", "write", "el0_svc", "invoke_syscall"): (10, 10000),
    },
    "instructions": {
        ("main", "a", "b", "leaf"): (30, 60000),
        ("main", "c", "c_helper", "leaf"): (20, 40000),
    },
}
EXE = "/usr/bin/cg-fixture"
LIBC = "/usr/lib/aarch64-linux-gnu/libc.so.6"
DSO = {"main": EXE, "a": EXE, "b": EXE, "c": EXE, "c_helper": EXE, "leaf": EXE,
       "write": LIBC, "el0_svc": "[kernel.kallsyms]", "invoke_syscall": "[kernel.kallsyms]"}


def perf_script_text(samples, event="cycles"):
    """`perf script` text as perf prints samples with call chains
    (tools/perf/builtin-script.c, util/evsel_fprintf.c): the header
    "comm pid/tid [cpu] time: period event: ", then per frame, leaf
    first, "\\t%16x sym+0xoff (dso)", and a blank line.
    @samples: (comm, pid, tid, cpu, time_ns, period, [(addr, sym, off, dso)])."""
    out = []
    for comm, pid, tid, cpu, t, period, frames in samples:
        out.append("%s %7d/%-7d [%03d] %12s: %10d %s: \n" % (
            comm, pid, tid, cpu, "%d.%06d" % (t // 10**9, t % 10**9 // 1000), period, event))
        for addr, sym, off, dso in frames:
            out.append("\t%16x %s+0x%x (%s)\n" % (addr, sym, off, dso))
        out.append("\n")
    return "".join(out)


# ---------------------------------------------------------------- go tool pprof
def go_pprof(tc, *args):
    go = shutil.which("go")
    if not go:
        raise unittest.SkipTest("go not installed (scripts/setup.sh installs golang-go)")
    env = dict(os.environ, PPROF_TMPDIR=tc.tmp, HOME=tc.tmp, GOFLAGS="", PPROF_BINARY_PATH="/nonexistent")
    r = subprocess.run([go, "tool", "pprof", "-symbolize=none"] + list(args),
                       capture_output=True, encoding="utf-8", errors="replace", timeout=60,
                       env=env)
    tc.assertEqual(r.returncode, 0, r.stderr)
    return r.stdout


def parse_top(out):
    """{name: (flat, cum)} of `pprof -top`."""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+?)\s*$", line)
        if m:
            rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return rows


def parse_traces(out):
    """[(value, stack root first, {label: value})] of `pprof -traces`."""
    traces = []
    for block in out.split("-----------+-------------------------------------------------------")[1:]:
        labels, stack, value = {}, [], None
        for line in block.splitlines():
            m = re.match(r"\s*(\w+):\s+(.*)$", line)
            if m and value is None:
                labels[m.group(1)] = m.group(2).strip()
                continue
            m = re.match(r"\s*(\d+)\s+(\S.*)$", line)
            if m and value is None:
                value = int(m.group(1))
                stack.append(m.group(2).strip())
            elif line.strip():
                stack.append(line.strip())
        if value is not None:
            traces.append((value, tuple(reversed(stack)), labels))
    return traces


class PprofTest(unittest.TestCase):
    """cg_pprof_write()'s file read by `go tool pprof`."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="pmuscope-pprof-")
        cls.path = os.path.join(cls.tmp, "fixture.pb.gz")
        r = fixture("pprof", cls.path)
        if r.returncode:
            raise AssertionError(r.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_gzip_container(self):
        # The file is gzip whose content is a protobuf: string table's "" first.
        with open(self.path, "rb") as f:
            raw = f.read()
        self.assertEqual(raw[:3], b"\x1f\x8b\x08")
        data = gzip.decompress(raw)
        # field 6 (string_table), wire type 2, length 0: the first string is ""
        self.assertTrue(b"\x32\x00\x32\x06cycles" in data, "no \"\", \"cycles\" string table")

    def test_top(self):
        # -top of each sample type: flat and cum of every function, exactly.
        top = parse_top(go_pprof(self, "-top", "-sample_index=cycles", self.path))
        self.assertEqual(top, {
            "leaf": (100000, 100000), "invoke_syscall": (10000, 10000),
            "main": (0, 110000), "a": (0, 60000), "b": (0, 60000), "c": (0, 40000),
            "c_helper (inline)": (0, 40000), "write": (0, 10000), "el0_svc": (0, 10000)})
        top = parse_top(go_pprof(self, "-top", "-sample_index=instructions", self.path))
        self.assertEqual(top, {
            "leaf": (100000, 100000), "main": (0, 100000), "a": (0, 60000), "b": (0, 60000),
            "c": (0, 40000), "c_helper (inline)": (0, 40000)})

    def test_traces(self):
        # -traces: the stacks (inlined frame in its caller's location), values, labels.
        out = go_pprof(self, "-traces", "-sample_index=cycles", self.path)
        self.assertIn("Type: cycles", out)
        got = sorted((v, s, tuple(sorted(l.items()))) for v, s, l in parse_traces(out))
        lab = {"comm": "cg-fixture", "pid": "100"}
        want = sorted([
            (60000, ("main", "a", "b", "leaf"), dict(lab, tid="101", cpu="1")),
            (40000, ("main", "c", "c_helper (inline)", "leaf"), dict(lab, tid="100", cpu="0")),
            (10000, ("main", "write", "el0_svc", "invoke_syscall"),
             dict(lab, tid="100", cpu="2"))])
        self.assertEqual(got, [(v, s, tuple(sorted(l.items()))) for v, s, l in want])
        out = go_pprof(self, "-traces", "-sample_index=instructions", self.path)
        values = {s: v for v, s, _ in parse_traces(out)}
        self.assertEqual(values[("main", "a", "b", "leaf")], 60000)
        self.assertEqual(values[("main", "c", "c_helper (inline)", "leaf")], 40000)
        self.assertEqual(values[("main", "write", "el0_svc", "invoke_syscall")], 0)

    def test_raw(self):
        # -raw: sample types, period, mappings with build IDs, locations, labels.
        out = go_pprof(self, "-raw", self.path)
        self.assertIn("PeriodType: cycles count", out)
        self.assertRegex(out, r"(?m)^Period: 1000$")
        self.assertIn("Comment: records lost: 3", out)
        self.assertRegex(out, r"(?m)^cycles/count\[dflt\] instructions/count$")
        maps = re.findall(r"(?m)^(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) (\S+) ?(\S*)",
                          out.split("Mappings", 1)[1])
        self.assertEqual(maps[0], ("1", "0xaaaa00000000", "0xaaaa00002000", "0x0", EXE,
                                   "4a1cf1e2d3c4b5a697887766554433221100ffee"))
        self.assertIn(("0xffff80000000", "0xffff80180000", "0x0", LIBC,
                       "0badc0de0123456789abcdef0123456789abcdef"),
                      [m[1:] for m in maps])
        self.assertIn("[kernel.kallsyms]", [m[4] for m in maps])
        # The inlined frame and its caller: one location, innermost first.
        self.assertRegex(out, r"0xaaaa00000734 M=1 c_helper fixture.c:26 s=0\n\s+c fixture.c:30")
        self.assertRegex(out, r"cpu:\[0 id\] pid:\[100 id\] tid:\[100 id\]")
        self.assertRegex(out, r"cpu:\[1 id\] pid:\[100 id\] tid:\[101 id\]")
        self.assertIn("comm:[cg-fixture]", out)
        self.assertRegex(out, r"(?m)^\s+60000\s+60000: ")

    def test_tags(self):
        # -tags: pid/tid/cpu numbers, weighted by the period.
        out = go_pprof(self, "-tags", "-sample_index=cycles", self.path)
        cpu = out.split(" cpu:", 1)[1].split("\n\n", 1)[0]
        self.assertRegex(cpu, r"60000(\.0)? \(54\.55%\): 1\n")
        self.assertRegex(cpu, r"40000(\.0)? \(36\.36%\): 0\n")
        self.assertRegex(cpu, r"10000(\.0)? \( 9\.09%\): 2$")

    def test_hostile_names(self):
        # Markup, bad UTF-8, a 200,000-character name and a 3,000-frame
        # chain: pprof reads it, the names as they are.
        path = os.path.join(self.tmp, "evil.pb.gz")
        fixture_ok(self, "evil-pprof", path)
        out = go_pprof(self, "-traces", path)
        self.assertIn("a<b>&\"c\"'d'", out)
        self.assertIn("</script><script>alert(1)</script>", out)
        self.assertIn("L" * 200000, out)
        stacks = [s for _, s, _ in parse_traces(out)]
        deep = [s for s in stacks if s[0] == "d0"][0]
        self.assertEqual(len(deep), 3000)
        self.assertEqual(deep[-1], "d2999")

    def test_gzip_blocks(self):
        # cg_gzip_stored(): several 65,535-byte stored blocks and an empty input.
        for size in (0, 1, 65535, 65536, 200003):
            src = os.path.join(self.tmp, "in")
            dst = os.path.join(self.tmp, "out.gz")
            data = os.urandom(size)
            with open(src, "wb") as f:
                f.write(data)
            fixture_ok(self, "gzip", src, dst)
            with open(dst, "rb") as f:
                self.assertEqual(gzip.decompress(f.read()), data, size)
            self.assertEqual(subprocess.run(["gzip", "-t", dst]).returncode, 0, size)

    def test_write_error(self):
        # A file that cannot be created: an error naming it, no crash.
        r = fixture("pprof", os.path.join(self.tmp, "no", "such", "dir.pb.gz"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("pprof: cannot create", r.stderr)
        self.assertIn("no/such/dir.pb.gz", r.stderr)
        if os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode):
            r = fixture("pprof", "/dev/full")
            self.assertEqual(r.returncode, 1)
            self.assertIn("cannot write /dev/full", r.stderr)
            # A failed write never removes what it did not make.
            self.assertTrue(stat.S_ISCHR(os.stat("/dev/full").st_mode))


class FlamegraphTextTest(unittest.TestCase):
    """The SVG as a file: well-formed, self-contained, escaped."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="pmuscope-flame-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def svg(self, *args):
        path = os.path.join(self.tmp, "f.svg")
        fixture_ok(self, *(args[:1] + (path,) + args[1:]))
        with open(path, "rb") as f:
            return f.read()

    def frames(self, data):
        ns = {"s": "http://www.w3.org/2000/svg"}
        root = ET.fromstring(data)
        return root, {g.get("data-n"): g for g in root.iterfind(".//s:g", ns)}

    def test_tree(self):
        # One frame per node of the merged tree, widths in proportion.
        root, frames = self.frames(self.svg("flamegraph", "0"))
        ns = "{http://www.w3.org/2000/svg}"
        self.assertEqual(set(frames), {"all", "main", "a", "b", "c", "c_helper", "leaf",
                                       "write", "el0_svc", "invoke_syscall"})
        gs = root.findall(".//%sg" % ns)
        self.assertEqual(len(gs), 11)       # leaf twice: under b and under c_helper
        width = {g.get("data-n"): float(g.find(ns + "rect").get("width")) for g in gs}
        self.assertAlmostEqual(width["b"] / width["main"], 60 / 110, places=3)
        self.assertAlmostEqual(width["c"] / width["main"], 40 / 110, places=3)
        self.assertEqual(frames["b"].find(ns + "title").text,
                         "b (%s): 60 samples, 60000 cycles, 54.55%%" % EXE)
        self.assertIn("Flame graph: cycles (CPU_CYCLES)",
                      root.find(".//%stext[@id='title']" % ns).text)
        self.assertIn("110 samples; width: the samples' periods summed (cycles: 110000)",
                      root.find(".//%stext[@id='subtitle']" % ns).text)
        # No external resource: nothing loaded from elsewhere.
        self.assertNotRegex(data_text(self.svg("flamegraph", "0")), r"(?i)(href|src)\s*=|@import|url\(")

    def test_bad_event(self):
        r = fixture("flamegraph", os.path.join(self.tmp, "x.svg"), "7")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no event 7 (the recording has 2)", r.stderr)

    def test_hostile_names(self):
        # Markup and quotes escaped, bad UTF-8 replaced, a long name cut,
        # a 3,000-frame chain cut at 1,024 (said in the subtitle): still
        # well-formed XML.
        data = self.svg("evil-flamegraph")
        root, frames = self.frames(data)
        frames = set(frames)
        self.assertIn("a<b>&\"c\"'d'", frames)
        self.assertIn("</script><script>alert(1)</script>", frames)
        self.assertIn("]]>x');alert(1);//", frames)
        self.assertIn("bad??utf8??", frames)
        self.assertIn("caf\u00e9 \u20ac", frames)
        self.assertIn("L" * 998 + "..", frames)
        self.assertIn("[unknown]", frames)
        self.assertIn("d0", frames)
        self.assertIn("d1023", frames)          # the 1,024th frame from the root
        self.assertFalse("d1024" in frames, "d1024 drawn")
        sub = root.find(".//{http://www.w3.org/2000/svg}text[@id='subtitle']").text
        self.assertIn("chains cut at 1024 frames", sub)
        # the script is the only script, and no name is in it
        self.assertEqual(data.count(b"<script"), 1)
        self.assertLess(len(data), 2 * 1024 * 1024)


def data_text(data):
    return data.decode("utf-8", "replace")


class FlamegraphBrowserTest(unittest.TestCase):
    """The SVG in headless Chromium: screenshot pixels, hover, click to zoom."""

    SHOT = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="pmuscope-flame-")
        cls.path = os.path.join(cls.tmp, "fixture.svg")
        r = fixture("flamegraph", cls.path, "1")
        if r.returncode:
            raise AssertionError(r.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def open(self, path):
        b = browser()
        b.navigate("file://" + path, width=1200, height=260)
        return b

    def boxes(self, b):
        """{name: [box of its rect on screen, with fill and title]}."""
        return b.js("""(() => { const out = {};
            for (const g of document.querySelectorAll('g.f')) {
                if (g.style.display === 'none') continue;
                const r = g.querySelector('rect').getBoundingClientRect();
                const n = g.getAttribute('data-n');
                (out[n] = out[n] || []).push({x: r.x, y: r.y, width: r.width, height: r.height,
                    fill: g.querySelector('rect').getAttribute('fill'),
                    title: g.querySelector('title').textContent,
                    text: g.querySelector('text').textContent});
            }
            return out; })()""")

    def test_render_hover_zoom(self):
        b = self.open(self.path)
        self.assertFalse(b.js("!!document.querySelector('parsererror')"))
        self.assertEqual(b.exceptions(), [])
        boxes = self.boxes(b)
        shot = b.screenshot()
        keep = os.environ.get("PMUSCOPE_FLAMEGRAPH_PNG")
        if keep:
            with open(keep, "wb") as f:
                f.write(shot)
        img = png_decode(shot)
        # Every expected frame drawn: its box on screen is its fill color.
        for name in ("all", "main", "a", "b", "c", "c_helper", "leaf"):
            for box in boxes[name]:
                share = share_of_color(img, box, parse_rgb(box["fill"]))
                self.assertGreater(share, 0.5, "%s: %.2f of its box in %s"
                                   % (name, share, box["fill"]))
        self.assertNotIn("write", boxes)        # no instructions sample there
        # Widths on screen in proportion: b 60% of main, c 40%; root at the bottom.
        main, (b_box,), c_box = boxes["main"][0], boxes["b"], boxes["c"][0]
        self.assertAlmostEqual(b_box["width"] / main["width"], 0.6, delta=0.005)
        self.assertAlmostEqual(c_box["width"] / main["width"], 0.4, delta=0.005)
        self.assertGreater(boxes["all"][0]["y"], main["y"])
        self.assertGreater(main["y"], b_box["y"])
        self.assertEqual(b_box["text"], "b")

        # Hover: the details line shows the function and its count, drawn.
        details = b.js("(() => { const y = +document.getElementById('details')"
                       ".getAttribute('y'); return {x: 10, y: y - 14, width: 600,"
                       " height: 20}; })()")
        before = share_of_color(img, details, (0xf8, 0xf8, 0xf0))
        b.mouse("mouseMoved", b_box["x"] + b_box["width"] / 2, b_box["y"] + 8)
        text = b.js("document.getElementById('details').textContent")
        self.assertEqual(text, "b (%s): 30 samples, 60000 instructions, 60.00%%" % EXE)
        after = share_of_color(png_decode(b.screenshot()), details, (0xf8, 0xf8, 0xf0))
        self.assertGreater(before, 0.99)
        self.assertLess(after, before - 0.02)

        # Click: b fills the width; its callers stay, faded; c's side goes.
        b.click(b_box["x"] + b_box["width"] / 2, b_box["y"] + 8)
        zoomed = self.boxes(b)
        full = boxes["all"][0]["width"]
        self.assertAlmostEqual(zoomed["b"][0]["width"], full, delta=0.5)
        self.assertAlmostEqual(zoomed["b"][0]["x"], boxes["all"][0]["x"], delta=0.5)
        self.assertAlmostEqual(zoomed["leaf"][0]["width"], full, delta=0.5)
        self.assertEqual(len(zoomed["leaf"]), 1)
        self.assertNotIn("c", zoomed)
        self.assertNotIn("c_helper", zoomed)
        img = png_decode(b.screenshot())
        self.assertGreater(share_of_color(img, zoomed["b"][0], parse_rgb(zoomed["b"][0]["fill"])),
                           0.5)
        self.assertTrue(b.js("getComputedStyle(document.getElementById('unzoom')).display"
                             " !== 'none'"))
        self.assertEqual(b.exceptions(), [])
        # Reset Zoom: back as it was.
        r = b.js("(() => { const r = document.getElementById('unzoom').getBoundingClientRect();"
                 " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()")
        b.click(r["x"], r["y"])
        again = self.boxes(b)
        self.assertAlmostEqual(again["b"][0]["width"], b_box["width"], delta=0.01)
        self.assertIn("c", again)

    def test_hostile_names(self):
        # The hostile names render as text: no script of theirs runs.
        path = os.path.join(self.tmp, "evil.svg")
        fixture_ok(self, "evil-flamegraph", path)
        b = self.open(path)
        self.assertFalse(b.js("!!document.querySelector('parsererror')"))
        titles = b.js("[...document.querySelectorAll('g.f title')].map(t => t.textContent)")
        self.assertIn("</script><script>alert(1)</script> (/x<&>.so): 1 sample, 10 cycles, "
                      "50.00%", titles)
        self.assertEqual(b.js("document.querySelectorAll('script').length"), 1)
        self.assertFalse([e for e in b.events if e.get("method") == "Page.javascriptDialogOpening"])
        # Still interactive: a click on the deepest frame zooms.
        box = b.js("(() => { const g = document.querySelector('g.f[data-n=\"d1022\"]');"
                   " const r = g.querySelector('rect').getBoundingClientRect();"
                   " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()")
        b.call("Emulation.setDeviceMetricsOverride", width=1200, height=int(box["y"]) + 40,
               deviceScaleFactor=1, mobile=False)
        b.click(box["x"], box["y"])
        self.assertTrue(b.js("getComputedStyle(document.getElementById('unzoom')).display"
                             " !== 'none'"))
        self.assertEqual(b.exceptions(), [])


class SpeedscopeTest(unittest.TestCase):
    """speedscope_import(), the harness the end-to-end tests of
    `report --folded` and `pmuscope script` use, on hand-written files."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="pmuscope-speedscope-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_folded(self):
        # Folded stacks: speedscope's collapsed-stack importer, counts as weights.
        lines = ["%s %d" % (";".join(s), n) for s, (n, _) in FIXTURE_STACKS["cycles"].items()]
        path = self.write("fixture.folded", "\n".join(lines) + "\n")
        importer, profiles = speedscope_import_profiles(path)
        self.assertEqual(importer, "Importing as collapsed stack format")
        self.assertEqual(totals(speedscope_import(path)),
                         {s: n for s, (n, _) in FIXTURE_STACKS["cycles"].items()})

    def test_perf_script(self):
        # perf script text: speedscope's linux perf importer, the stacks
        # exactly, one profile per comm/pid/tid, weights from the timestamps
        # (1 ms apart: each sample 1 ms, the first and last of a thread half).
        addr = {"main": 0xaaaa00000754, "a": 0xaaaa00000714, "b": 0xaaaa000006f4,
                "leaf": 0xaaaa000006c0, "c": 0xaaaa00000734, "c_helper": 0xaaaa00000734,
                "write": 0xffff800d0010, "el0_svc": 0xffff800080012340,
                "invoke_syscall": 0xffff800080011000}
        samples, t = [], 10**9
        for stack, (n, _) in FIXTURE_STACKS["cycles"].items():
            tid = 101 if "a" in stack else 100
            frames = [(addr[f], f, 0x10, DSO[f]) for f in reversed(stack)]
            for _ in range(n):
                samples.append(("cg-fixture", 100, tid, 1, t, 1000, frames))
                t += 10**6
        path = self.write("fixture.perf-script.txt", perf_script_text(samples))
        importer, profiles = speedscope_import_profiles(path)
        self.assertEqual(importer, "Importing from linux perf script output")
        names = sorted(name for name, _ in profiles)
        self.assertEqual(names, ["cg-fixture pid: 100 tid: 100", "cg-fixture pid: 100 tid: 101"])
        got = totals(speedscope_import(path))
        self.assertEqual(set(got), set(FIXTURE_STACKS["cycles"]))
        ms = {s: round(w * 1000, 6) for s, w in got.items()}
        # tid 101: 60 samples alone: 59 ms. tid 100: 40 + 10 samples: the
        # first and the last half, the one at the change of stack whole.
        self.assertEqual(ms[("main", "a", "b", "leaf")], 59.0)
        self.assertEqual(ms[("main", "c", "c_helper", "leaf")], 39.5)
        self.assertEqual(ms[("main", "write", "el0_svc", "invoke_syscall")], 9.5)

    def test_pprof(self):
        # speedscope's pprof importer takes cg_pprof_write()'s file too.
        path = os.path.join(self.tmp, "fixture.pb.gz")
        fixture_ok(self, "pprof", path)
        importer, profiles = speedscope_import_profiles(path)
        self.assertEqual(importer, "Importing as protobuf encoded pprof file")
        got = totals(speedscope_import(path))
        # speedscope shows the default sample type (cycles), and of a
        # location's lines only the last (c, not c_helper inlined in it).
        want = {tuple(f for f in s if f != "c_helper"): p
                for s, (_, p) in FIXTURE_STACKS["cycles"].items()}
        self.assertEqual(got, want)

    def test_garbage(self):
        # Something no importer takes: an error, not a hang.
        path = self.write("garbage.bin", "\x01\x02 not a profile at all {[(")
        with self.assertRaises(RuntimeError):
            speedscope_import(path)


if __name__ == "__main__":
    unittest.main()
