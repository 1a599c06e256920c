#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Line coverage of the driver under the reliability gate.

After each test of a gate boot, the guest's init (tests/guest/init
gcov_out) writes the modules' GCOV data (.gcda) to the host (the boot's
output folder, virtio-9p: guestfiles.py) and zeroes it. This script takes
it from every boot,
checks each file against its MD5, puts it beside the .gcno of the build
(build/gate-src), runs gcov (JSON) on each, and merges the line counts per
source file over all objects and all boots: drivers/pmuscope_pmu.c is
compiled into pmuscope.ko and, against the register model, into
pmuscope_emu.ko; a line is covered if any of them ran it.

The data comes test by test (TEST/PATH), so the report also says what
each test and each boot adds: the lines that it alone runs, in no other
test of any gate boot, counted per module (a line of pmuscope.ko that only
one test runs is that test's, even where pmuscope_emu.ko's or the KUnit
module's copy of the same source line runs elsewhere). A test that adds
none runs nothing under KASAN, lockdep and kmemleak that the others do
not; the registry's gate boots keep only tests that add lines, or whose
assertions are about interleavings and lifetimes (tests/registry).

Usage: coverage.py BUILD_DIR REPORT LOG...
Prints one line per driver source file (lines, covered, percent, the
uncovered lines), the total, and the lines each boot and each test alone
run; writes the same to REPORT, and the lines each test of each boot ran
to REPORT's name with .json (BOOT/TEST: ["MODULE:FILE:LINE", ...]). Exit
status 1 if a boot brought out no data or a file arrived corrupted.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guestfiles  # noqa: E402

PREFIX = "pmuscope-gcov: "
GCOV = os.environ.get("PMUSCOPE_GCOV_TOOL", "aarch64-linux-gnu-gcov-12")
# One line per register of drivers/pmuscope_regs.tbl: which run depends on
# the units a CPU has, not on the tests. Reported apart from the total.
GENERATED = {"drivers/pmuscope_regs_gen.h"}


def extract(log):
    """{rel path: bytes} of one boot; raises on a corrupt file."""
    files, bad = guestfiles.files(log, PREFIX)
    if bad:
        raise ValueError(f"{log}: {', '.join(bad)} corrupted on the way")
    return files


def rel_source(path):
    return path.split("gate-src/", 1)[1] if "gate-src/" in path else None


def ranges(nums):
    out, start, prev = [], None, None
    for n in sorted(nums):
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = prev = n
    if start is not None:
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
    return ", ".join(out)


def module_of(rel):
    """The module an object (its .gcda path in gate-src) is built into (Kbuild)."""
    if rel.startswith("tests/emu/"):
        return "pmuscope_emu"
    if rel.startswith("tests/kunit/"):
        return "pmuscope_kunit"
    if rel.startswith("tests/guest/kmod/"):
        return "pmuscope_cpupm"
    return "pmuscope"


def adds(order, runby):
    """The lines each boot, and each test of a boot, alone runs."""
    boots = []
    for b, _ in order:
        if b not in boots:
            boots.append(b)
    ran, alone, boot_alone = {}, {}, {}
    for key, who in runby.items():
        for w in who:
            ran[w] = ran.get(w, 0) + 1
        if len(who) == 1:
            w = next(iter(who))
            alone.setdefault(w, []).append(key)
        if len({b for b, _ in who}) == 1:
            b = next(iter(who))[0]
            boot_alone[b] = boot_alone.get(b, 0) + 1
    out = ["lines each boot and each test alone runs (in no other test of any boot):"]
    for b in boots:
        out.append(f"  boot {b}: {boot_alone.get(b, 0)} lines no other boot runs")
        for bb, t in order:
            if bb != b:
                continue
            mine = sorted(alone.get((b, t), []))
            where = {}
            for mod, src, n in mine:
                where.setdefault((mod, src), []).append(n)
            detail = "; ".join(f"{mod}:{os.path.basename(src)} {ranges(ns)}"
                               for (mod, src), ns in sorted(where.items()))
            out.append(f"    {t:<16} runs {ran.get((b, t), 0):5}, alone {len(mine):4}")
            if detail:
                out.append(f"      only here: {detail}")
    return out


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    build, report, logs = argv[1], argv[2], argv[3:]
    lines = {}  # source -> {line: count}
    runby = {}  # (source, line) -> {(boot, test) that ran it}
    order = []  # (boot, test), as they ran
    bad = 0
    tmp = tempfile.mkdtemp(prefix="pmuscope-gcov-")
    try:
        for i, log in enumerate(logs):
            try:
                files = extract(log)
            except ValueError as e:
                print(f"error: {e}")
                bad += 1
                continue
            if not files:
                print(f"error: {log}: no coverage data")
                bad += 1
                continue
            boot = os.path.basename(log)
            boot = boot[len("guest-"):] if boot.startswith("guest-") else boot
            boot = boot[:-len(".log")] if boot.endswith(".log") else boot
            for name, data in files.items():
                # TEST/PATH: one test's data (init's gcov_out).
                test, rel = name.split("/", 1) if "/" in name else ("-", name)
                if (boot, test) not in order:
                    order.append((boot, test))
                mod = module_of(rel)
                gcno = os.path.join(build, rel[:-len(".gcda")] + ".gcno")
                if not os.path.exists(gcno):
                    print(f"error: {log}: {test}: {rel} has no {gcno}")
                    bad += 1
                    continue
                d = os.path.join(tmp, str(i), test, os.path.dirname(rel))
                os.makedirs(d, exist_ok=True)
                gcda = os.path.join(d, os.path.basename(rel))
                with open(gcda, "wb") as f:
                    f.write(data)
                shutil.copy(gcno, d)
                r = subprocess.run([GCOV, "--json-format", "--stdout", "-o", d, gcda],
                                   capture_output=True, text=True, cwd=d)
                if r.returncode:
                    print(f"error: {log}: {test}: gcov {rel}: {r.stderr.strip()}")
                    bad += 1
                    continue
                for doc in r.stdout.splitlines():
                    for f in json.loads(doc).get("files", []):
                        src = rel_source(f["file"])
                        if not src or not src.startswith("drivers/"):
                            continue
                        per = lines.setdefault(src, {})
                        for ln in f["lines"]:
                            n = ln["line_number"]
                            per[n] = per.get(n, 0) + ln["count"]
                            if ln["count"] and src not in GENERATED:
                                runby.setdefault((mod, src, n), set()).add((boot, test))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    out = ["coverage of drivers/ under the reliability gate (lines run / lines, "
           f"merged over {len(logs)} boots):"]
    tot = cov = 0
    for src in sorted(lines):
        per = lines[src]
        run = [n for n, c in per.items() if c > 0]
        miss = [n for n, c in per.items() if c == 0]
        pct = 100.0 * len(run) / len(per) if per else 100.0
        tag = "  (generated; not in the total)" if src in GENERATED else ""
        out.append(f"  {src:<32} {len(run):5}/{len(per):<5} {pct:6.1f}%{tag}")
        if miss and src not in GENERATED:
            out.append(f"      not run: {ranges(miss)}")
        if src not in GENERATED:
            tot += len(per)
            cov += len(run)
    out.append(f"  total {cov}/{tot} lines = {100.0 * cov / max(tot, 1):.1f}%")
    out += adds(order, runby)
    with open(report, "w") as f:
        f.write("\n".join(out) + "\n")
    # The lines each test of each boot ran, for what-if questions (which
    # tests could go and lose no line): REPORT with .json for .txt.
    runs = {}
    for (mod, src, n), who in runby.items():
        for b, t in who:
            runs.setdefault(f"{b}/{t}", []).append(f"{mod}:{src}:{n}")
    with open(os.path.splitext(report)[0] + ".json", "w") as f:
        json.dump({k: sorted(v) for k, v in runs.items()}, f, indent=0, sort_keys=True)
    print("\n".join(out))
    return 1 if bad or not lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
