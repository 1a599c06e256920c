#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Line coverage of the driver under the reliability gate.

The gate's boots (tests/guest/t-gate-end.sh) write the modules' GCOV data
(.gcda) to the host (guestfiles.py: the boot's output folder through
virtio-9p, or the console). This script takes it from every boot,
checks each file against its MD5, puts it beside the .gcno of the build
(build/gate-src), runs gcov (JSON) on each, and merges the line counts per
source file over all objects and all boots: drivers/pmuscope_pmu.c is
compiled into pmuscope.ko and, against the register model, into
pmuscope_emu.ko; a line is covered if any of them ran it.

Usage: coverage.py BUILD_DIR REPORT LOG...
Prints one line per driver source file (lines, covered, percent, the
uncovered lines) and the total; writes the same to REPORT. Exit status 1
if a boot brought out no data or a file arrived corrupted.
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


def main(argv):
    if len(argv) < 4:
        print(__doc__)
        return 2
    build, report, logs = argv[1], argv[2], argv[3:]
    lines = {}  # source -> {line: count}
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
            for rel, data in files.items():
                gcno = os.path.join(build, rel[:-len(".gcda")] + ".gcno")
                if not os.path.exists(gcno):
                    print(f"error: {log}: {rel} has no {gcno}")
                    bad += 1
                    continue
                d = os.path.join(tmp, str(i), os.path.dirname(rel))
                os.makedirs(d, exist_ok=True)
                gcda = os.path.join(d, os.path.basename(rel))
                with open(gcda, "wb") as f:
                    f.write(data)
                shutil.copy(gcno, d)
                r = subprocess.run([GCOV, "--json-format", "--stdout", "-o", d, gcda],
                                   capture_output=True, text=True, cwd=d)
                if r.returncode:
                    print(f"error: gcov {rel}: {r.stderr.strip()}")
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
    with open(report, "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))
    return 1 if bad or not lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
