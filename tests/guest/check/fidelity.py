#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The direct backend's profiles against perf_event_open()'s (t-fidelity.sh).

    fidelity-check.py DIRECT_LOG PERF_LOG NAME BUILD

The direct backend runs with perf's PMU driver off, so its boot cannot
record with perf_event_open(): t-fidelity.sh there sends pmuscope's reduced
recordings (TAG-ours.fid), and the perf boot of the same kernel, CPU and
-icount sends the peer's (TAG-perf.fid), both over the console in
t-record.sh's framing (a few kB each). This script takes them out of the
two logs and runs the comparison the perf boots run in the guest,
pmuscope-peer compare, built for the host from the same source, and prints
one "PASS|FAIL NAME/fidelity/..." line per check. Under -icount shift=0 a
boot is a deterministic instruction count: the two boots run the same
workload on the same kernel, and only the PMU's driver differs.
"""

import os
import re
import subprocess
import sys

TAGS = ["root-10k", "root-1k", "nobody-p2", "nobody-p1"]
TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def extract(log):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import guestfiles
    return guestfiles.files(log)


def build_peer(build):
    """pmuscope-peer for the host, against the host library (make tools)."""
    exe = os.path.join(build, "pmuscope-peer-host")
    src = [os.path.join(TOP, "tests/guest/progs/pmuscope-peer.c"),
           os.path.join(TOP, "tools/pmuscope/datafile.c"),
           os.path.join(TOP, "tools/pmuscope/read-file.c")]
    cmd = ["gcc", "-O2", "-Wall", "-Wextra", "-Werror"] + \
        [f"-I{os.path.join(TOP, d)}" for d in
         ("include/uapi", "include", "tools/lib", "tools/pmuscope")] + \
        ["-o", exe] + src + [os.path.join(TOP, "tools/build/host/libpmuscope.a"), "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    return exe if r.returncode == 0 else None, r.stderr


def main(argv):
    if len(argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    direct_log, perf_log, name, build = argv[1:]
    exe, err = build_peer(build)
    if not exe:
        print(f"FAIL {name}/fidelity: pmuscope-peer builds for the host: {err.strip()[:300]}")
        return 1
    ours, bad_ours = extract(direct_log)
    peer, bad_peer = extract(perf_log)
    for b in bad_ours + bad_peer:
        print(f"FAIL {name}/fidelity/{b}: corrupted on the console")
    fails = len(bad_ours) + len(bad_peer)
    outdir = os.path.join(build, "logs", f"fidelity-{name}")
    os.makedirs(outdir, exist_ok=True)
    for tag in TAGS:
        files = {}
        for who, got in (("perf", peer), ("ours", ours)):
            fname = f"{tag}-{who}.fid"
            if fname in got:
                files[who] = os.path.join(outdir, fname)
                with open(files[who], "wb") as f:
                    f.write(got[fname])
        if len(files) != 2:
            print(f"FAIL {name}/fidelity/{tag}: both reduced recordings arrived "
                  f"(perf's from the perf boot: {'perf' in files}, "
                  f"pmuscope's: {'ours' in files})")
            fails += 1
            continue
        r = subprocess.run([exe, "compare", f"direct {tag}", files["perf"], files["ours"]],
                           capture_output=True, text=True)
        seen = bad = 0
        for line in r.stdout.splitlines():
            m = re.match(r"pmuscope-tap: (ok|not ok) - \[fidelity\] (.*)", line)
            if m:
                status = "PASS" if m.group(1) == "ok" else "FAIL"
                seen += 1
                bad += status == "FAIL"
                print(f"{status} {name}/fidelity/{m.group(2)}")
            elif line.startswith("pmuscope-tap: # "):
                print(f"# {line[len('pmuscope-tap: # '):]}")
        # A comparison that died, or said nothing, or failed without a
        # line to say so, is a failure too.
        if not seen or (r.returncode and not bad):
            bad += 1
            print(f"FAIL {name}/fidelity/{tag}: pmuscope-peer compare exit {r.returncode} "
                  f"after {seen} results: {r.stderr.strip()[:200]}")
        fails += bad
    return 1 if fails else 0


def guarded(argv):
    try:
        return main(argv)
    except Exception as e:  # any failure of the script is a result line
        name = argv[3] if len(argv) > 3 else "fidelity"
        print(f"FAIL {name}/fidelity: fidelity-check.py: {type(e).__name__}: {e}")
        return 1


if __name__ == "__main__":
    sys.exit(guarded(sys.argv))
