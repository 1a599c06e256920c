#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate include/pmuscope_core_events.h from perf's pmu-events JSON.

perf's tools/perf/pmu-events/arch/arm64 (in Debian's linux-source package,
found by scripts/lib.sh as build-kernel.sh unpacks it) names the events of
each core type: mapfile.csv maps a MIDR_EL1 to a core directory, whose
*.json files list events, either whole (EventCode, EventName,
BriefDescription) or as {"ArchStdEvent": NAME}, a reference to the common
files of the top directory (common-and-microarch.json, recommended.json)
whose own fields fill those the entry leaves out, as perf's jevents.py
does. Metrics (MetricExpr) and uncore events are not events of a core: left
out.

    scripts/gen-pmu-events.py [--json-dir DIR]            regenerate
    scripts/gen-pmu-events.py [--json-dir DIR] --check    exit 1 if stale,
                                                          2 if no JSON
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(TOP, "include", "pmuscope_core_events.h")
ARCH = os.path.join(TOP, "include", "pmuscope_event_table.h")

# MIDR_EL1 fields compared, as perf's strcmp_cpuid_str() does: all but
# Variant [23:20] and Revision [3:0] (mapfile.csv gives them as 0).
MIDR_MASK = 0xff0ffff0


def die(msg):
    sys.exit(f"gen-pmu-events: {msg}")


def default_dir():
    """perf's arm64 pmu-events directory of the kernel source, or None."""
    # the project's kernel (lib.sh's default), whatever a caller's
    # PMUSCOPE_KVER (6.1: the compatibility build) says
    env = {k: v for k, v in os.environ.items() if k != "PMUSCOPE_KVER"}
    try:
        out = subprocess.run(
            ["bash", "-c", '. "$1/scripts/lib.sh" && pmuscope_pmu_events_dir',
             "bash", TOP], capture_output=True, text=True, check=False, env=env)
    except OSError:
        return None
    path = out.stdout.strip()
    return path if out.returncode == 0 and os.path.isdir(path) else None


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: {e}")
    if not isinstance(data, list) or not all(isinstance(e, dict) for e in data):
        die(f"{path}: a list of objects expected")
    return data


def code_of(path, i, e):
    try:
        code = int(e["EventCode"], 16)
    except (KeyError, TypeError, ValueError):
        die(f"{path}: entry {i}: bad or missing EventCode")
    if code > 0xffff:
        die(f"{path}: entry {i}: EventCode {e['EventCode']} wider than 16 bits")
    return code


def desc_of(e):
    return e.get("BriefDescription") or e.get("PublicDescription") or ""


def std_events(jdir):
    """The common files' events by lower-case name (perf: case-insensitive)."""
    std = {}
    for path in sorted(glob.glob(os.path.join(jdir, "*.json"))):
        for e in load(path):
            if "EventName" in e and "EventCode" in e:
                std[e["EventName"].lower()] = e
            elif "MetricName" in e:
                std[e["MetricName"].lower()] = None     # sbsa.json's metrics
    return std


def arch_events():
    """{(number, NAME)} of include/pmuscope_event_table.h: the common events
    the driver's pmuscope_events[] and libpmuscope know by name."""
    try:
        with open(ARCH, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        die(f"{ARCH}: {e}")
    found = {(int(n, 16), name) for n, name in
             re.findall(r"^PMUSCOPE_EVENT\((0x[0-9A-Fa-f]+), (\w+),", text, re.M)}
    if not found:
        die(f"{ARCH}: no PMUSCOPE_EVENT lines")
    return found


def is_common(code, name, arch):
    """An event of the architectural table, by number AND name: one in the
    PMCEID range under another name (eMAG's L2D_TLB_ACCESS, 0x34) or not
    in the table is the core table's, or nobody would know its name."""
    return (code, name.upper()) in arch


def core_events(jdir, core, std):
    """[(code, name, desc)] of a core directory, by code then name."""
    events = {}
    files = sorted(glob.glob(os.path.join(jdir, core, "*.json")))
    if not files:
        die(f"{os.path.join(jdir, core)}: no JSON files")
    for path in files:
        for i, e in enumerate(load(path)):
            if "MetricExpr" in e or "MetricName" in e or "Unit" in e:
                continue
            if "ArchStdEvent" in e:
                ref = str(e["ArchStdEvent"]).lower()
                if ref in std and std[ref] is None:
                    continue                            # a metric
                base = std.get(ref)
                if base is None:
                    die(f"{path}: entry {i}: ArchStdEvent {e['ArchStdEvent']} "
                        "is in no common file")
                e = {**base, **{k: v for k, v in e.items() if v}}
            if "EventName" not in e:
                die(f"{path}: entry {i}: no EventName")
            name, code = e["EventName"], code_of(path, i, e)
            if not re.fullmatch(r"[A-Za-z0-9_.]+", name):
                die(f"{path}: entry {i}: event name {name!r} not usable")
            old = events.get(name)
            if old and old[0] != code:
                die(f"{path}: entry {i}: {name} is 0x{old[0]:x} in another file")
            if not old:
                events[name] = (code, desc_of(e))
    return sorted(((c, n, d) for n, (c, d) in events.items()),
                  key=lambda x: (x[0], x[1]))


def parse(jdir):
    """{core dir: ([midr], [(code, name, desc)])}, cores of mapfile.csv."""
    mapfile = os.path.join(jdir, "mapfile.csv")
    try:
        with open(mapfile, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        die(f"{mapfile}: {e}")
    midrs = {}
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = [x.strip() for x in line.split(",")]
        if len(fields) != 4:
            die(f"{mapfile}:{n}: 4 fields expected")
        if fields[3] != "core":
            continue
        try:
            midr = int(fields[0], 16)
        except ValueError:
            die(f"{mapfile}:{n}: bad MIDR {fields[0]}")
        if midr > 0xffffffff or midr & ~MIDR_MASK & 0xffffffff:
            die(f"{mapfile}:{n}: MIDR {fields[0]} has a variant or revision")
        midrs.setdefault(fields[2], []).append(midr)
    std = std_events(jdir)
    return {core: (sorted(set(m)), core_events(jdir, core, std))
            for core, m in sorted(midrs.items())}


def c_string(s):
    s = s.replace("\\", "\\\\").replace('"', '\\"')
    s = s.replace("\n", "\\n").replace("\r", "").replace("\t", " ")
    return '"' + s + '"'


def core_id(core):
    return re.sub(r"[^a-z0-9]", "_", core.lower())


def header(cores, arch):
    o = ["/* SPDX-License-Identifier: GPL-2.0 */",
         "/*",
         " * Generated by scripts/gen-pmu-events.py from perf's pmu-events JSON for",
         " * arm64 (tools/perf/pmu-events/arch/arm64 of linux-source): do not edit;",
         " * run `make events`.",
         " *",
         " * The events of every core type perf's mapfile.csv knows. X-macros:",
         " * define those you use before including this file (the others expand",
         " * to nothing); no include guard, included once per table.",
         " *",
         " * PMUSCOPE_CORE(id, dir, first, count)",
         " *\tcore type @id (a C identifier) of JSON directory @dir; its events",
         " *\tare entries @first to @first + @count - 1 of PMUSCOPE_CORE_EVENT.",
         " * PMUSCOPE_CORE_MIDR(id, midr)",
         " *\ta MIDR_EL1 of core @id: a CPU is of that type when its MIDR_EL1",
         " *\tAND PMUSCOPE_CORE_MIDR_MASK (variant and revision out) equals it.",
         " * PMUSCOPE_CORE_EVENT(id, number, name, desc, common)",
         " *\tan event of core @id; @common 1 for the Arm common events of",
         " *\tinclude/pmuscope_event_table.h (number and name both), which",
         " *\tPMCEID0/1_EL0 report; 0 for the others (IMPLEMENTATION DEFINED,",
         " *\trecommended, or a common number under another name).",
         " *",
         " * Cores by directory, events of a core by number then name.",
         " */",
         "#ifndef PMUSCOPE_CORE_MIDR_MASK",
         f"#define PMUSCOPE_CORE_MIDR_MASK 0x{MIDR_MASK:08x}U",
         "#endif"]
    macros = ("PMUSCOPE_CORE", "PMUSCOPE_CORE_MIDR", "PMUSCOPE_CORE_EVENT")
    for m in macros:
        o += [f"#ifndef {m}", f"#define {m}(...)",
              f"#define PMUSCOPE_UNDEF_{m[9:]}", "#endif"]
    first = 0
    for core, (_, events) in cores.items():
        o.append(f'PMUSCOPE_CORE({core_id(core)}, "{core}", {first}, {len(events)})')
        first += len(events)
    for core, (midrs, _) in cores.items():
        for m in midrs:
            o.append(f"PMUSCOPE_CORE_MIDR({core_id(core)}, 0x{m:08x})")
    for core, (_, events) in cores.items():
        for code, name, desc in events:
            o.append(f'PMUSCOPE_CORE_EVENT({core_id(core)}, 0x{code:04X}, "{name}",')
            line = f"\t\t    {c_string(desc)}, {int(is_common(code, name, arch))})"
            if len(line.expandtabs(8)) > 100:
                # checkpatch lets a line of a string alone run long
                o += [f"\t\t    {c_string(desc)},", f"\t\t    {int(is_common(code, name, arch))})"]
            else:
                o.append(line)
    for m in macros:
        o += [f"#ifdef PMUSCOPE_UNDEF_{m[9:]}", f"#undef {m}",
              f"#undef PMUSCOPE_UNDEF_{m[9:]}", "#endif"]
    return "\n".join(o) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json-dir", help="perf's pmu-events/arch/arm64 directory")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if the header differs from the JSON's")
    ap.add_argument("--output", default=OUT, help=argparse.SUPPRESS)
    args = ap.parse_args()
    jdir = args.json_dir or default_dir()
    if not jdir or not os.path.isfile(os.path.join(jdir, "mapfile.csv")):
        print("gen-pmu-events: perf's pmu-events JSON not found "
              "(install linux-source, scripts/setup.sh, or give --json-dir)",
              file=sys.stderr)
        sys.exit(2)
    text = header(parse(jdir), arch_events())
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as f:
                same = f.read() == text
        except OSError:
            same = False
        if not same:
            print(f"{os.path.relpath(args.output, TOP)} is stale: run `make events`")
        sys.exit(0 if same else 1)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
