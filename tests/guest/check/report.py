#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pmuscope report on recordings made in a guest (tests/guest/t-record.sh).

    report-check.py LOG NAME BUILD

The guest sends each recording to the host (guestfiles.py: the boot's
output folder, or the console). This script takes them (checking each
MD5), runs the host's
pmuscope report on each with --symfs BUILD/symfs (the guest's programs and
libc, scripts/mkinitramfs.sh), keeps the text report in
BUILD/logs/report-NAME-FILE.txt and prints one result line per check:

  * the recording arrived intact;
  * report reads it (exit 0, JSON);
  * of the samples of the recorded command (its processes: comm
    hotloop-*) at EL0, more than 90% are in loop_body of that program,
    resolved by name through elfutils (a static non-PIE and a PIE
    dynamically linked build). Its kernel samples are counted apart: on
    the test kernel (lockdep) a process under ptrace, as the command of
    pmuscope record is, spends about as long in the kernel after each
    sample as between samples (lock_acquire at the interrupt's return);
    the bench kernel shows 1 kernel sample in 380.
"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guestfiles  # noqa: E402

PREFIX = "pmuscope-file: "


def extract(log):
    """{name: bytes}, and [names corrupted on the way]."""
    return guestfiles.files(log, PREFIX)


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    log, name, build = argv[1:]
    cli = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools",
                       "build", "host", "pmuscope")
    symfs = os.path.join(build, "symfs")
    files, bad = extract(log)
    for b in bad:
        print(f"FAIL {name}/report/{b}: corrupted on the console")
    want = ["hotloop-static.data", "hotloop-pie.data"]
    for fname in want:
        tag = f"{name}/report/{fname[:-5]}"
        if fname not in files:
            print(f"FAIL {tag}: recording arrived intact from the guest")
            continue
        print(f"PASS {tag}: recording arrived intact from the guest ({len(files[fname])} bytes)")
        path = os.path.join(build, "logs", f"report-{name}-{fname}")
        with open(path, "wb") as f:
            f.write(files[fname])
        text = subprocess.run([cli, "report", "-i", path, "--symfs", symfs],
                              capture_output=True, text=True)
        with open(os.path.join(build, "logs", f"report-{name}-{fname[:-5]}.txt"), "w") as f:
            f.write(text.stdout + text.stderr)
        r = subprocess.run([cli, "report", "-i", path, "--symfs", symfs, "--json", "-n", "1000"],
                           capture_output=True, text=True)
        try:
            rep = json.loads(r.stdout)
        except ValueError:
            rep = None
        if r.returncode or not rep:
            print(f"FAIL {tag}: pmuscope report reads it (exit {r.returncode}: "
                  f"{r.stderr.strip()[:200]})")
            continue
        print(f"PASS {tag}: pmuscope report reads it ({rep.get('samples')} samples, "
              f"{rep.get('lost')} lost)")
        prog = fname[:-5]
        mine = [e for e in rep.get("entries", []) if e.get("comm") == prog]
        user = [e for e in mine if e.get("object") != "[kernel]"]
        total = sum(e.get("samples", 0) for e in user)
        kernel = sum(e.get("samples", 0) for e in mine) - total
        hot = sum(e.get("samples", 0) for e in user
                  if e.get("symbol") == "loop_body" and e.get("object") == prog)
        share = 100.0 * hot / total if total else 0.0
        allshare = 100.0 * hot / rep["shown"] if rep.get("shown") else 0.0
        ok = total > 0 and hot > 0.9 * total
        print(f"{'PASS' if ok else 'FAIL'} {tag}: loop_body of {prog}, by name, holds more "
              f"than 90% of the command's samples at EL0 ({hot} of {total}, {share:.1f}%; "
              f"the command had {kernel} more in the kernel; {allshare:.1f}% of all "
              f"{rep.get('shown')} samples of the CPU)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
