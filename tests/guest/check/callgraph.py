#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Call graphs recorded in a guest (tests/guest/t-callgraph.sh), checked on
the host with every output format and its real consumer.

    callgraph-check.py LOG NAME BUILD

The guest recorded /bin/calltree-static and /bin/calltree-pie with
`pmuscope record -g` per task while a CPU hog (hotloop) ran beside them,
and sent each recording over the console (as t-record.sh does). For each
recording this prints one result line per check:

  * it arrived intact, and `pmuscope script` reads it (--symfs BUILD/symfs);
  * no sample is the hog's, every sample is the command's (comm calltree-*);
  * of the command's user samples in leaf(), at least 95% carry exactly
    the chain leaf, b, a, main or leaf, c, main (frames after main are
    the C library's start-up); both paths are seen, a's about 3/5;
  * report --folded agrees with script, sample for sample, on each path;
  * go tool pprof reads --pprof: -top's flat for leaf and cum for main
    are the periods script shows;
  * speedscope's importer reads the `pmuscope script` text and the folded
    stacks, and finds both paths;
  * the --flamegraph SVG, rendered in headless Chromium, draws main, a, b,
    c and leaf (their boxes' fill in the screenshot's pixels), a's box
    wider than c's. The screenshot is kept in BUILD/logs/.
"""

import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "host"))

import test_formats as tf  # noqa: E402  the consumers' drivers

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from guestfiles import files as extract  # noqa: E402

CLI = os.path.join(TOP, "tools", "build", "host", "pmuscope")
PATHS = {("leaf", "b", "a", "main"): "a", ("leaf", "c", "main"): "c"}
OURS = {"leaf", "a", "b", "c", "main"}


def result(ok, what, why=""):
    print(("PASS " if ok else "FAIL ") + what + ("" if ok or not why else "  (" + why + ")"))
    return ok


def run(*args):
    return subprocess.run([CLI] + list(args), capture_output=True, text=True, timeout=300)


def parse_script(text):
    """[(comm, pid, tid, period, [(addr, sym, dso)] leaf first)]."""
    samples, cur = [], None
    head = re.compile(r"^(\S.*?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\d+)\s+(\S+):\s*$")
    frame = re.compile(r"^\t\s*([0-9a-f]+) (.*?) \((.*)\)$")
    for line in text.splitlines():
        m = head.match(line)
        if m:
            cur = (m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(6)), [])
            samples.append(cur)
            continue
        m = frame.match(line)
        if m and cur is not None:
            sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
            cur[4].append((int(m.group(1), 16), sym, m.group(3)))
    return samples


def user_chain(frames):
    """The user frames' function names, leaf first (kernel frames dropped)."""
    return [s for a, s, d in frames if d != "[kernel.kallsyms]" and a < (1 << 63)]


def classify(chain):
    """'a' or 'c' for an exact expected chain, else None."""
    for want, name in PATHS.items():
        n = len(want)
        if tuple(chain[:n]) == want and not (set(chain[n:]) & OURS):
            return name
    return None


def check(path, tag, build, logs, icount):
    symfs = os.path.join(build, "symfs")
    r = run("script", "-i", path, "--symfs", symfs)
    if not result(r.returncode == 0, f"{tag}: pmuscope script reads it", r.stderr.strip()):
        return
    samples = parse_script(r.stdout)
    result(len(samples) >= 100 or "attach" in tag, f"{tag}: at least 100 samples",
           f"{len(samples)}")
    hog = [s for s in samples if s[0].startswith("hotloop")]
    result(not hog, f"{tag}: no sample of the CPU hog beside it", f"{len(hog)} of {len(samples)}")
    other = sorted({s[0] for s in samples if not s[0].startswith("calltree")})
    result(not other, f"{tag}: every sample is the command's", ", ".join(other))
    leaf = [s for s in samples if user_chain(s[4])[:1] == ["leaf"]]
    kinds = [classify(user_chain(s[4])) for s in leaf]
    exact = sum(1 for k in kinds if k)
    bad = [user_chain(s[4])[:6] for s, k in zip(leaf, kinds) if not k][:3]
    result(leaf and exact >= 0.95 * len(leaf),
           f"{tag}: >= 95% of leaf's samples carry exactly the expected chain "
           f"({exact} of {len(leaf)})", f"e.g. {bad}")
    na, nc = kinds.count("a"), kinds.count("c")
    # Cycles are instructions only under -icount (the exact boots): there
    # the shares follow the work, 3/5 on a's path. Without it QEMU's cycle
    # counter follows the host's time, and the shares are QEMU's.
    if icount:
        result(na and nc and 0.5 <= na / (na + nc) <= 0.7,
               f"{tag}: both paths seen, main->a->b->leaf 3/5 of them ({na} a, {nc} c)")
    else:
        result(na and nc, f"{tag}: both paths seen ({na} a, {nc} c)")

    # The other formats against script: the samples whose innermost frame
    # of all is leaf (not those taken in the kernel under leaf, whose
    # folded stack and pprof leaf is a kernel function).
    inner = [s for s in leaf if s[4][0][2] != "[kernel.kallsyms]"]
    ik = [classify(user_chain(s[4])) for s in inner]
    na, nc = ik.count("a"), ik.count("c")
    # Folded stacks against script's chains.
    r = run("report", "-i", path, "--symfs", symfs, "--folded")
    folded = {"a": 0, "c": 0}
    for line in r.stdout.splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        chain = list(reversed(frames[1:]))	# leaf first, comm dropped
        k = classify(chain)
        if k:
            folded[k] += int(count)
    result(r.returncode == 0 and folded == {"a": na, "c": nc},
           f"{tag}: report --folded agrees with script on each path", f"{folded} {r.stderr}")

    # Every sample under a (or c), whatever its innermost frame: the
    # flame graph's a (c) is as wide as they are.
    fa = sum(1 for s in samples if "a" in user_chain(s[4]))
    fc = sum(1 for s in samples if "c" in user_chain(s[4]))
    with tempfile.TemporaryDirectory() as tmp:
        # pprof, read by go tool pprof.
        pb = os.path.join(tmp, "calltree.pb.gz")
        r = run("report", "-i", path, "--symfs", symfs, "--pprof", pb)
        if result(r.returncode == 0, f"{tag}: report --pprof writes the file", r.stderr.strip()):
            class Ctx:
                pass
            ctx = Ctx()
            ctx.tmp = tmp
            ctx.assertEqual = lambda a, b, msg=None: None
            try:
                top = tf.parse_top(tf.go_pprof(ctx, "-top", "-nodecount=1000", pb))
                leaf_period = sum(s[3] for s in inner)
                main_period = sum(s[3] for s in samples if "main" in user_chain(s[4]))
                got = (top.get("leaf", (0, 0))[0], top.get("main", (0, 0))[1])
                result(got == (leaf_period, main_period),
                       f"{tag}: go tool pprof -top: leaf's flat and main's cum are script's "
                       f"periods ({got[0]}, {got[1]})", f"want ({leaf_period}, {main_period})")
            except Exception as e:  # noqa: BLE001  a skip or a failure: said
                result(False, f"{tag}: go tool pprof reads --pprof", str(e))

        # speedscope's importers on script's text and the folded stacks.
        for kind, args in (("perf script text", ["script"]),
                           ("folded stacks", ["report", "--folded"])):
            f = os.path.join(tmp, kind.split()[0] + ".txt")
            r = run(*args, "-i", path, "--symfs", symfs)
            with open(f, "w") as out:
                out.write(r.stdout)
            try:
                stacks = tf.speedscope_import(f)
                names = {tuple(s) for s, _ in stacks}
                seen = {k for k in ("a", "c")
                        if any(tuple(st[-len(w):]) == tuple(reversed(w))
                               for st in names for w, n in PATHS.items() if n == k)}
                result(seen == {"a", "c"}, f"{tag}: speedscope imports the {kind}: both paths",
                       f"seen {sorted(seen)} of {len(names)} stacks")
            except Exception as e:  # noqa: BLE001
                result(False, f"{tag}: speedscope imports the {kind}", str(e))

        # The flame graph in Chromium: the frames drawn, in proportion.
        svg = os.path.join(tmp, "calltree.svg")
        r = run("report", "-i", path, "--symfs", symfs, "--flamegraph", svg)
        if not result(r.returncode == 0, f"{tag}: report --flamegraph writes the SVG",
                      r.stderr.strip()):
            return
        try:
            b = tf.browser()
            b.navigate("file://" + svg, width=1200, height=600)
            boxes = b.js("""(() => { const out = {};
                for (const g of document.querySelectorAll('g.f')) {
                    const r = g.querySelector('rect').getBoundingClientRect();
                    const n = g.getAttribute('data-n');
                    if (!out[n] || out[n].width < r.width)
                        out[n] = {x: r.x, y: r.y, width: r.width, height: r.height,
                                  fill: g.querySelector('rect').getAttribute('fill')};
                }
                return out; })()""")
            png = b.screenshot()
            shot = os.path.join(logs, f"flamegraph-{tag.replace('/', '-')}.png")
            with open(shot, "wb") as out:
                out.write(png)
            img = tf.png_decode(png)
            drawn = [n for n in ("main", "a", "b", "c", "leaf")
                     if n in boxes and tf.share_of_color(img, boxes[n],
                                                         tf.parse_rgb(boxes[n]["fill"])) > 0.5]
            result(len(drawn) == 5, f"{tag}: the flame graph in Chromium draws main, a, b, c, "
                   f"leaf ({shot})", f"drawn {drawn}")
            wa, wc = boxes.get("a", {}).get("width", 0), boxes.get("c", {}).get("width", 0)
            result(wa and wc and abs(wa / wc - fa / fc) <= 0.02 * fa / fc + 2 / wc,
                   f"{tag}: the flame graph's a and c are as wide as their samples "
                   f"({wa:.0f} : {wc:.0f} px, {fa} : {fc} samples)")
        except Exception as e:  # noqa: BLE001
            result(False, f"{tag}: the flame graph renders in Chromium", str(e))


def main():
    log, name, build = sys.argv[1:4]
    logs = os.path.join(build, "logs")
    files, bad = extract(log)
    for f in bad:
        result(False, f"{name}/callgraph: {f} arrived intact")
    mine = sorted(f for f in files if f.startswith("calltree-"))
    result(len(mine) == 3, f"{name}/callgraph: three recordings arrived (static, PIE, -p)",
           f"{mine}")
    for f in mine:
        result(True, f"{name}/callgraph: {f} arrived intact")
        with tempfile.NamedTemporaryFile(suffix=".data") as tmp:
            tmp.write(files[f])
            tmp.flush()
            check(tmp.name, f"{name}/callgraph/{f}", build, logs, "exact" in name)
    tf.tearDownModule()


if __name__ == "__main__":
    main()
