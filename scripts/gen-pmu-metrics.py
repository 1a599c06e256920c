#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate tools/pmuscope/metrics-table.h from perf's arm64 pmu-events JSON.

perf (tools/perf/pmu-events/arch/arm64 of the kernel source) carries metric
expressions per core: arm/<core>/metrics.json and the vendors' own, and the
generic top-down level 1 of sbsa.json, which a core's metrics.json takes
(and may override) by naming it with "ArchStdEvent", as perf's jevents.py
merges it: the core's fields first, sbsa's for those it leaves out.
mapfile.csv maps a MIDR to the core's directory. For each core of the
mapfile with a metrics.json that pmuscope's expression parser reads
(tools/pmuscope/metric-expr.c), the table holds every metric (MetricName,
MetricExpr as in the JSON, MetricGroup, ScaleUnit, BriefDescription,
DefaultMetricgroupName) and the core's MIDRs. The events the expressions
name are not in it: libpmuscope takes them by name, the IMPLEMENTATION
DEFINED ones through the core's table (include/pmuscope_core_events.h,
scripts/gen-pmu-events.py); a name no JSON of the core defines stops the
generator.
sbsa.json's metrics make a table of their own ("sbsa"), for a core without
a metrics.json whose PMCEID reports the slot events.

The Cortex-A53 has no slot events and no metrics.json: its cycle
accounting group is defined here (A53_METRICS), from the stall events of
arm/cortex-a53/pipeline.json, and documented in Documentation/cli.rst.

    scripts/gen-pmu-metrics.py [--json-dir DIR] [--check]

DIR defaults to tools/perf/pmu-events/arch/arm64 in the linux-source tree
scripts/build-kernel.sh unpacks into the cache. --check exits 1 when the
file in the tree differs from what the JSON gives (make lint).
"""

import argparse
import csv
import glob
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(TOP, 'tools', 'pmuscope', 'metrics-table.h')
KVER = os.environ.get('PMUSCOPE_KVER', '6.12')

# Vendors whose expressions use only what metric-expr.c parses. hisilicon's
# name events as PMU@event\=0x201d@, which it refuses.
VENDORS = ('arm', 'ampere')

# The Cortex-A53's cycle accounting (no slot events: STALL_SLOT* and
# OP_* are not implemented). Each stall event counts the cycles the
# pipeline could not issue for that reason (Cortex-A53 TRM, PMU events
# 0xE0-0xE8; STALL_SB_FULL, 0xC7, is worded "Data Write operation that
# stalls the pipeline because the store buffer is full"), from
# arm/cortex-a53/pipeline.json.
A53_GROUP = 'A53_Cycle_Accounting'
A53_FRONTEND = ('IC_DEP_STALL', 'IUTLB_DEP_STALL', 'DECODE_DEP_STALL',
                'OTHER_IQ_DEP_STALL')
A53_BACKEND = ('AGU_DEP_STALL', 'SIMD_DEP_STALL', 'LD_DEP_STALL',
               'ST_DEP_STALL', 'OTHER_INTERLOCK_STALL', 'STALL_SB_FULL')


def a53_share(events):
    return '100 * ((%s) / CPU_CYCLES)' % ' + '.join(events)


A53_METRICS = [
    {'MetricName': 'a53_ipc',
     'MetricExpr': 'INST_RETIRED / CPU_CYCLES',
     'MetricGroup': A53_GROUP, 'ScaleUnit': '1per cycle',
     'BriefDescription': 'Instructions retired per cycle.'},
    {'MetricName': 'a53_frontend_stall',
     'MetricExpr': a53_share(A53_FRONTEND),
     'MetricGroup': A53_GROUP, 'ScaleUnit': '1percent of cycles',
     'BriefDescription': 'Percentage of cycles the frontend left the '
                         'issue queue empty: instruction cache or '
                         'micro-TLB miss, decode, other issue-queue '
                         'dependencies.'},
    {'MetricName': 'a53_backend_stall',
     'MetricExpr': a53_share(A53_BACKEND),
     'MetricGroup': A53_GROUP, 'ScaleUnit': '1percent of cycles',
     'BriefDescription': 'Percentage of cycles an instruction could not '
                         'issue for a backend reason: address generation, '
                         'SIMD/FP, load or store dependencies, other '
                         'interlocks, store buffer full.'},
    {'MetricName': 'a53_memory_stall',
     'MetricExpr': a53_share(('LD_DEP_STALL', 'ST_DEP_STALL', 'STALL_SB_FULL')),
     'MetricGroup': A53_GROUP, 'ScaleUnit': '1percent of cycles',
     'BriefDescription': 'Percentage of cycles stalled on loads, stores or '
                         'a full store buffer (part of a53_backend_stall).'},
    {'MetricName': 'a53_execute_stall',
     'MetricExpr': a53_share(('AGU_DEP_STALL', 'SIMD_DEP_STALL',
                              'OTHER_INTERLOCK_STALL')),
     'MetricGroup': A53_GROUP, 'ScaleUnit': '1percent of cycles',
     'BriefDescription': 'Percentage of cycles stalled on address '
                         'generation, SIMD/FP or other interlocks (part of '
                         'a53_backend_stall).'},
]

KEYWORDS = {'if', 'else', 'min', 'max', 'd_ratio', 'source_count',
            'has_event', 'strcmp_cpuid_str', 'nan', 'duration_time'}


def default_json_dir():
    cache = os.environ.get('PMUSCOPE_CACHE') or os.path.join(
        os.environ.get('XDG_CACHE_HOME') or
        os.path.join(os.environ.get('HOME') or '/var/cache', '.cache'),
        'pmuscope')
    sub = os.path.join('tools', 'perf', 'pmu-events', 'arch', 'arm64')
    try:
        ver = subprocess.run(['dpkg-query', '-W', '-f=${Version}',
                              'linux-source-' + KVER], capture_output=True,
                             text=True, check=False).stdout.strip()
    except OSError:
        ver = ''
    if ver:
        d = os.path.join(cache, 'src-' + ver.replace('~', '_').replace(':', '_'), sub)
        if os.path.isdir(d):
            return d
    found = sorted(glob.glob(os.path.join(cache, 'src-%s.*' % KVER, sub)))
    if found:
        return found[-1]
    sys.exit('gen-pmu-metrics: no pmu-events JSON under %s: run scripts/build-kernel.sh '
             '(it unpacks linux-source-%s) or give --json-dir' % (cache, KVER))


def load(path):
    with open(path) as f:
        return json.load(f)


def arch_std(json_dir):
    """perf's architecture standard entries: every top-level JSON file, by
    lower-case EventName or MetricName."""
    std = {}
    for name in sorted(os.listdir(json_dir)):
        if not name.endswith('.json'):
            continue
        for e in load(os.path.join(json_dir, name)):
            for key in ('EventName', 'MetricName'):
                if key in e:
                    std[e[key].lower()] = e
    return std


def merged(e, std):
    """A JSON entry with its ArchStdEvent's fields where it has none."""
    ref = e.get('ArchStdEvent')
    if not ref:
        return dict(e)
    if ref.lower() not in std:
        raise SystemExit('gen-pmu-metrics: unknown ArchStdEvent %s' % ref)
    out = dict(std[ref.lower()])
    out.update({k: v for k, v in e.items() if v})
    return out


def core_events(core_dir, std):
    """name (upper case) -> code of every event the core's JSON lists."""
    events = {}
    for path in sorted(glob.glob(os.path.join(core_dir, '*.json'))):
        if os.path.basename(path) == 'metrics.json':
            continue
        for e in load(path):
            e = merged(e, std)
            if 'EventName' in e and 'EventCode' in e:
                events[e['EventName'].upper()] = int(e['EventCode'], 16)
    return events


def core_metrics(core_dir, std):
    path = os.path.join(core_dir, 'metrics.json')
    if not os.path.exists(path):
        return None
    return [merged(e, std) for e in load(path)]


def identifiers(expr):
    out = []
    for m in re.finditer(r'(?<![#0-9A-Za-z_])[A-Za-z_][A-Za-z0-9_.]*', expr):
        tok = m.group(0)
        if tok.lower() in KEYWORDS:
            continue
        # Skip the hexadecimal argument of strcmp_cpuid_str().
        if re.match(r'x[0-9a-fA-F]+$', tok) and expr[m.start() - 1] == '0':
            continue
        out.append(tok)
    return out


def mapfile(json_dir):
    cores = {}
    with open(os.path.join(json_dir, 'mapfile.csv')) as f:
        for row in csv.reader(f):
            if not row or row[0].startswith('#') or len(row) < 4 or row[3] != 'core':
                continue
            cores.setdefault(row[2], []).append(int(row[0], 16))
    return cores


def build(json_dir):
    """[(core, [midr], [metric])], sbsa first; every event named is checked."""
    std = arch_std(json_dir)
    common = {}
    for name in ('common-and-microarch.json', 'recommended.json'):
        path = os.path.join(json_dir, name)
        if os.path.exists(path):
            for e in load(path):
                if 'EventName' in e and 'EventCode' in e:
                    common[e['EventName'].upper()] = int(e['EventCode'], 16)
    tables = [('sbsa', [], [dict(e) for e in load(os.path.join(json_dir, 'sbsa.json'))], {})]
    for core, midrs in sorted(mapfile(json_dir).items()):
        if core.split('/')[0] not in VENDORS:
            continue
        core_dir = os.path.join(json_dir, core)
        metrics = core_metrics(core_dir, std)
        if core == 'arm/cortex-a53':
            metrics = (metrics or []) + A53_METRICS
        if not metrics:
            continue
        tables.append((core, sorted(midrs), metrics, core_events(core_dir, std)))
    out = []
    for core, midrs, metrics, events in tables:
        names = {m['MetricName'].lower() for m in metrics if 'MetricName' in m}
        for m in metrics:
            for tok in identifiers(m.get('MetricExpr', '')):
                up = tok.upper()
                if tok.lower() in names:
                    continue
                if up not in events and up not in common:
                    raise SystemExit('gen-pmu-metrics: %s: %s uses %s, which no JSON names'
                                     % (core, m['MetricName'], tok))
        out.append((core, midrs, metrics))
    return out


def cstr(s):
    s = s or ''
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'


def ident(core):
    return re.sub(r'[^a-z0-9]', '_', core.lower())


def render(tables, source):
    lines = [
        '/* SPDX-License-Identifier: GPL-2.0 */',
        '/*',
        ' * Generated by scripts/gen-pmu-metrics.py from perf\'s pmu-events JSON',
        ' * (tools/perf/pmu-events/arch/arm64 of %s): do not edit.' % source,
        ' * Run `make metrics` to regenerate; make lint fails when it is stale.',
        ' * Included by tools/pmuscope/metrics.c only.',
        ' */',
        '',
    ]
    for core, midrs, metrics in tables:
        lines.append('static const struct pmu_metric pmu_metrics_%s[] = {' % ident(core))
        for m in metrics:
            lines.append('\t{ %s, %s,' % (cstr(m['MetricName']), cstr(m.get('MetricGroup'))))
            lines.append('\t  %s,' % cstr(m['MetricExpr']))
            lines.append('\t  %s, %s,' % (cstr(m.get('ScaleUnit')),
                                          cstr(m.get('DefaultMetricgroupName'))))
            lines.append('\t  %s },' % cstr(m.get('BriefDescription')))
        lines.append('};')
        lines.append('')
        if midrs:
            lines.append('static const uint32_t pmu_metric_midrs_%s[] = {' % ident(core))
            lines.append('\t' + ', '.join('0x%08x' % m for m in midrs) + ',')
            lines.append('};')
            lines.append('')
    lines.append('static const struct pmu_metric_core pmu_metric_cores[] = {')
    for core, midrs, metrics in tables:
        i = ident(core)
        lines.append('\t{ %s, %s, %s,' % (
            cstr(core), 'pmu_metric_midrs_%s' % i if midrs else 'NULL', len(midrs)))
        lines.append('\t  pmu_metrics_%s, %d },' % (i, len(metrics)))
    lines.append('};')
    return '\n'.join(lines) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--json-dir', help='perf\'s pmu-events/arch/arm64 directory')
    ap.add_argument('--check', action='store_true', help='exit 1 when the file is stale')
    ap.add_argument('--out', default=OUT, help=argparse.SUPPRESS)
    args = ap.parse_args()
    json_dir = args.json_dir or default_json_dir()
    # "linux-source 6.12.118-1~deb12u1": the unpacked tree's version.
    m = re.search(r'src-([^/]+)/tools/perf', os.path.abspath(json_dir))
    source = 'linux-source %s' % m.group(1) if m else 'the kernel source'
    text = render(build(json_dir), source)
    if args.check:
        try:
            with open(args.out) as f:
                old = f.read()
        except OSError:
            old = None
        if old != text:
            print('%s is stale: run make metrics' % os.path.relpath(args.out, TOP),
                  file=sys.stderr)
            return 1
        return 0
    with open(args.out, 'w') as f:
        f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
