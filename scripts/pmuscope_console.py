#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a test guest's console log: KTAP from KUnit, TAP from the in-guest
tests (lines starting "pmuscope-tap: "), and anything that makes a boot bad
whatever the tests said (oops, BUG, WARN, lockdep, a boot that never ended).

As a program: pmuscope_console.py LOG NAME [--require-ktap] prints one line
per result, "PASS|FAIL|SKIP <NAME>/<test>", for scripts/check.sh to tally.
"""

import json
import re
import sys
from dataclasses import dataclass, field

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\] ?")
KTAP_RESULT = re.compile(r"^(\s*)(ok|not ok) (\d+)(?: - | |$)(.*)$")
KTAP_SUBTEST = re.compile(r"^(\s*)# Subtest: (.*)$")
TAP_PREFIX = "pmuscope-tap: "
JSON_PREFIX = "pmuscope-json: "
GUEST_DONE = "pmuscope-guest: done"
# init's lines around each test script; the exit status is the number of
# the script's failed checks (tests/guest/lib.sh).
GUEST_RUNNING = re.compile(r"^pmuscope-guest: running (\S+)$")
GUEST_EXIT = re.compile(r"^pmuscope-guest: (\S+) exit (\d+)(?: at [\d.]+ s)?$")

# Anything that must never appear on a passing run's console. kmemleak's
# "N new suspected memory leaks" is not here: the gate judges its reports
# itself and fails on those with a pmuscope frame only (t-gate-end.sh,
# t-faults.sh), not on the kernel's own.
PROBLEMS = [
    re.compile(p) for p in (
        r"Oops", r"Internal error:", r"Unable to handle kernel",
        r"\bBUG:", r"WARNING:", r"Kernel panic", r"cut here",
        r"Call trace:", r"possible (recursive|circular) locking",
        r"inconsistent lock state", r"suspicious RCU usage",
        r"INFO: (possible|trying)", r"DEBUG_LOCKS_WARN_ON",
        r"sleeping function called from invalid context",
        r"UBSAN:", r"KASAN:", r"ODEBUG:",
        r"detected stalls", r"soft lockup", r"blocked for more than",
        r"Modules linked in:",
    )
]


@dataclass
class Result:
    name: str
    status: str  # PASS, FAIL, SKIP
    detail: str = ""


@dataclass
class Boot:
    results: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    finished: bool = False
    ktap_cases: int = 0
    scripts: list = field(default_factory=list)  # [script, exit status or None]


def _directive(text):
    """Split 'name # SKIP reason' into (name, directive)."""
    if " # " in text:
        name, directive = text.split(" # ", 1)
        return name.strip(), directive.strip()
    return text.strip(), ""


def parse(text):
    boot = Boot()
    ktap = []  # (indent, ok, name, directive, path)
    stack = []  # [(indent, subtest name)]
    for raw in text.splitlines():
        line = TIMESTAMP.sub("", raw.rstrip("\r"))
        if line.startswith(TAP_PREFIX):
            body = line[len(TAP_PREFIX):]
            m = re.match(r"^(ok|not ok)\b(?: \d+)?(?: - )?(.*)$", body)
            if m:
                name, directive = _directive(m.group(2))
                status = "PASS" if m.group(1) == "ok" else "FAIL"
                if directive.upper().startswith("SKIP"):
                    status = "SKIP"
                boot.results.append(Result("guest/" + name, status, directive))
            elif body.startswith("#") and boot.results and \
                    boot.results[-1].status == "FAIL":
                boot.results[-1].detail += body[1:].strip() + " "
            continue
        if line.startswith(JSON_PREFIX):
            # Output of "pmuscope ... --json" in the guest: must parse.
            text = line[len(JSON_PREFIX):]
            try:
                json.loads(text)
                boot.results.append(Result(f"json/{len(boot.results)} parses", "PASS"))
            except ValueError as err:
                boot.results.append(Result(f"json/{len(boot.results)} parses", "FAIL",
                                           f"{err}: {text[:80]}"))
            continue
        if line.strip() == GUEST_DONE:
            boot.finished = True
            continue
        m = GUEST_RUNNING.match(line.strip())
        if m:
            boot.scripts.append([m.group(1), None])
            continue
        m = GUEST_EXIT.match(line.strip())
        if m:
            for s in reversed(boot.scripts):
                if s[0] == m.group(1) and s[1] is None:
                    s[1] = int(m.group(2))
                    break
            continue
        for pat in PROBLEMS:
            if pat.search(line):
                boot.problems.append(line.strip())
                break
        m = KTAP_SUBTEST.match(line)
        if m:
            indent = len(m.group(1))
            while stack and stack[-1][0] >= indent:
                stack.pop()
            stack.append((indent, m.group(2).strip()))
            continue
        m = KTAP_RESULT.match(line)
        if m:
            indent = len(m.group(1))
            name, directive = _directive(m.group(4))
            while stack and stack[-1][0] > indent:
                stack.pop()
            path = [s for i, s in stack if i <= indent]
            ktap.append((indent, m.group(2) == "ok", name, directive, path))

    # A result is a leaf unless the result just before it is nested deeper
    # (KTAP prints a test's children before the test's own line).
    for k, (indent, ok, name, directive, path) in enumerate(ktap):
        if k > 0 and ktap[k - 1][0] > indent:
            if not ok and not any(not r[1] for r in ktap[:k] if r[0] > indent):
                # A parent failed with no failing child: keep it visible.
                boot.results.append(Result("kunit/" + "/".join(path + [name]),
                                           "FAIL", directive))
            continue
        status = "PASS" if ok else "FAIL"
        if directive.upper().startswith("SKIP"):
            status = "SKIP"
        boot.results.append(Result("kunit/" + "/".join(path + [name]),
                                   status, directive))
        boot.ktap_cases += 1
    return boot


def report(boot, name, require_ktap=False):
    lines = []
    for r in boot.results:
        detail = f"  ({r.detail.strip()})" if r.detail.strip() else ""
        lines.append(f"{r.status} {name}/{r.name}{detail}")
    for script, status in boot.scripts:
        if status is None:
            lines.append(f"FAIL {name}/guest/{script} exit status (none on the console)")
        elif status:
            lines.append(f"FAIL {name}/guest/{script} exit status: {status} failed "
                         "check(s) or test program(s)")
        else:
            lines.append(f"PASS {name}/guest/{script} exit status: no failed check")
    if require_ktap and boot.ktap_cases == 0:
        lines.append(f"FAIL {name}/kunit ran (no KTAP result on the console)")
    lines.append(("PASS" if boot.finished else "FAIL") +
                 f" {name}/boot finished (guest reached its end marker)")
    if boot.problems:
        for p in boot.problems[:20]:
            lines.append(f"FAIL {name}/clean console: {p}")
    else:
        lines.append(f"PASS {name}/clean console (no oops, BUG, WARN, lockdep)")
    return lines


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(args[0], errors="replace") as f:
        boot = parse(f.read())
    for line in report(boot, args[1], "--require-ktap" in argv):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
