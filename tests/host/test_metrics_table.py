# SPDX-License-Identifier: GPL-2.0
"""stat's metric table (tools/pmuscope/metrics-table.h) against perf's
pmu-events JSON, read here on its own: every metric of sbsa.json, Neoverse
N1, V1 and N2/V2 (MetricName, MetricGroup, MetricExpr, ScaleUnit,
DefaultMetricgroupName, BriefDescription), the MIDRs, the Cortex-A53's own
group; that every event a core's metrics name is in libpmuscope's core
table (include/pmuscope_core_events.h) with the JSON's code, or a common
event; and gen-pmu-metrics.py --check on a stale copy."""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TABLE = os.path.join(TOP, "tools", "pmuscope", "metrics-table.h")
CORE_EVENTS = os.path.join(TOP, "include", "pmuscope_core_events.h")
# Words of perf's MetricExpr that are not events.
NOT_EVENTS = {"if", "else", "min", "max", "d_ratio", "strcmp_cpuid_str", "duration_time",
              "slots"}
GEN = os.path.join(TOP, "scripts", "gen-pmu-metrics.py")


def json_dir():
    cache = os.environ.get("PMUSCOPE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.environ.get("HOME", "/"), ".cache"),
        "pmuscope")
    found = sorted(glob.glob(os.path.join(cache, "src-6.12*", "tools", "perf", "pmu-events",
                                          "arch", "arm64")))
    return found[-1] if found else None


def c_string(s):
    return re.sub(r'\\(.)', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), s)


STR = r'"((?:[^"\\]|\\.)*)"'


def parse_table():
    """{core: [(name, groups, expr, unit, default, desc)]}, {core: [midr]},
    from the generated header."""
    with open(TABLE) as f:
        text = f.read()
    metrics, midrs = {}, {}
    for ident, body in re.findall(r"pmu_metric pmu_metrics_(\w+)\[\] = \{\n(.*?)\n\};", text, re.S):
        metrics[ident] = [tuple(c_string(x) for x in m) for m in re.findall(
            r"\t\{ %s, %s,\n\t  %s,\n\t  %s, %s,\n\t  %s \}," % ((STR,) * 6), body)]
    for ident, body in re.findall(r"pmu_metric_midrs_(\w+)\[\] = \{\n(.*?)\n\};", text, re.S):
        midrs[ident] = [int(x, 16) for x in re.findall(r"0x[0-9a-f]+", body)]
    return metrics, midrs


def core_events():
    """{core id: {NAME: number}} of libpmuscope's core tables."""
    with open(CORE_EVENTS) as f:
        text = f.read()
    out = {}
    for core, num, name in re.findall(r'^PMUSCOPE_CORE_EVENT\((\w+), (0x[0-9A-Fa-f]+), "(\w+)"',
                                      text, re.M):
        out.setdefault(core, {})[name] = int(num, 16)
    return out


def expr_events(metrics):
    """The event names (upper case) @metrics' expressions use."""
    names = {m[0].lower() for m in metrics}
    out = set()
    for m in metrics:
        expr = re.sub(r"'[^']*'", "", m[2])     # strcmp_cpuid_str's 'MIDR'
        for tok in re.findall(r"(?<![0-9A-Za-z_.])[A-Za-z_][A-Za-z0-9_.]*", expr):
            if tok.lower() not in names and tok.lower() not in NOT_EVENTS:
                out.add(tok.upper())
    return out


@unittest.skipUnless(json_dir(), "perf's pmu-events JSON not unpacked (scripts/build-kernel.sh)")
class TableTest(unittest.TestCase):
    def setUp(self):
        self.dir = json_dir()
        self.metrics, self.midrs = parse_table()

    def load(self, *path):
        with open(os.path.join(self.dir, *path)) as f:
            return json.load(f)

    def expected(self, core):
        """The core's metrics as perf's jevents.py merges them: an entry
        naming an ArchStdEvent takes sbsa.json's fields it lacks."""
        sbsa = {m["MetricName"].lower(): m for m in self.load("sbsa.json")}
        out = []
        for m in self.load(*core.split("/"), "metrics.json"):
            if "ArchStdEvent" in m:
                full = dict(sbsa[m["ArchStdEvent"].lower()])
                full.update({k: v for k, v in m.items() if v})
                m = full
            out.append((m["MetricName"], m.get("MetricGroup", ""), m["MetricExpr"],
                        m.get("ScaleUnit", ""), m.get("DefaultMetricgroupName", ""),
                        m.get("BriefDescription", "")))
        return out

    def test_sbsa_equals_the_json(self):
        want = [(m["MetricName"], m["MetricGroup"], m["MetricExpr"], m["ScaleUnit"],
                 m.get("DefaultMetricgroupName", ""), m["BriefDescription"])
                for m in self.load("sbsa.json")]
        self.assertEqual(self.metrics["sbsa"], want)
        self.assertEqual(sorted(m[0] for m in want),
                         ["backend_bound", "bad_speculation", "frontend_bound", "retiring"])

    def test_neoverse_n1_equals_the_json(self):
        self.assertEqual(self.metrics["arm_neoverse_n1"], self.expected("arm/neoverse-n1"))
        self.assertEqual(len(self.metrics["arm_neoverse_n1"]), 31)
        self.assertEqual(self.midrs["arm_neoverse_n1"], [0x410fd0c0])

    def test_neoverse_v1_equals_the_json(self):
        got = self.metrics["arm_neoverse_v1"]
        self.assertEqual(got, self.expected("arm/neoverse-v1"))
        by_name = {m[0]: m for m in got}
        # retiring is sbsa's whole; frontend_bound V1's formula, sbsa's group and unit.
        self.assertEqual(by_name["retiring"][2],
                         "100 * ((op_retired / op_spec) * (1 - stall_slot / (#slots * cpu_cycles)))")
        self.assertEqual(by_name["frontend_bound"][1:4], (
            "Default;TopdownL1",
            "(100 * ((STALL_SLOT_FRONTEND / (CPU_CYCLES * 8)) - ((BR_MIS_PRED * 4) / CPU_CYCLES)))",
            "1percent of slots"))

    def test_neoverse_n2_v2_equals_the_json(self):
        self.assertEqual(self.metrics["arm_neoverse_n2_v2"], self.expected("arm/neoverse-n2-v2"))
        self.assertEqual(self.midrs["arm_neoverse_n2_v2"], [0x410fd490, 0x410fd4f0])

    def common(self):
        return {e["EventName"]: int(e["EventCode"], 16)
                for name in ("common-and-microarch.json", "recommended.json")
                for e in self.load(name) if "EventCode" in e}

    def test_metric_events_are_in_the_core_tables(self):
        # libpmuscope resolves a metric's events: each is a common event or
        # one of its core's table, with the number of the core's JSON.
        tables, common = core_events(), self.common()
        n1 = {}
        for path in glob.glob(os.path.join(self.dir, "arm", "neoverse-n1", "*.json")):
            with open(path) as f:
                n1.update({e["EventName"]: int(e["EventCode"], 16)
                           for e in json.load(f) if "EventCode" in e})
        checked = 0
        for core, metrics in self.metrics.items():
            for name in expr_events(metrics):
                if core == "sbsa" or name not in tables.get(core, {}):
                    self.assertIn(name, common, "%s: %s" % (core, name))
                checked += 1
        self.assertGreater(checked, 100)
        used = expr_events(self.metrics["arm_neoverse_n1"])
        self.assertIn("DP_SPEC", used)
        for name in used:
            self.assertEqual(tables["arm_neoverse_n1"].get(name, common.get(name)),
                             n1.get(name, common.get(name)), name)
        self.assertEqual(tables["arm_neoverse_n1"]["DP_SPEC"], 0x73)

    def test_a53_group_uses_its_stall_events(self):
        pipeline = {e["EventName"]: int(e["EventCode"], 16)
                    for e in self.load("arm", "cortex-a53", "pipeline.json") if "EventCode" in e}
        a53 = {m[0]: m for m in self.metrics["arm_cortex_a53"]}
        self.assertEqual(sorted(a53), ["a53_backend_stall", "a53_execute_stall",
                                       "a53_frontend_stall", "a53_ipc", "a53_memory_stall"])
        self.assertTrue(all(m[1] == "A53_Cycle_Accounting" for m in a53.values()))
        self.assertEqual(a53["a53_frontend_stall"][2], "100 * ((IC_DEP_STALL + IUTLB_DEP_STALL + "
                         "DECODE_DEP_STALL + OTHER_IQ_DEP_STALL) / CPU_CYCLES)")
        self.assertEqual(a53["a53_backend_stall"][2], "100 * ((AGU_DEP_STALL + SIMD_DEP_STALL + "
                         "LD_DEP_STALL + ST_DEP_STALL + OTHER_INTERLOCK_STALL + STALL_SB_FULL) "
                         "/ CPU_CYCLES)")
        impdef = expr_events(self.metrics["arm_cortex_a53"]) - set(self.common())
        self.assertEqual(len(impdef), 10)
        a53 = core_events()["arm_cortex_a53"]
        self.assertEqual({n: a53[n] for n in impdef}, {n: pipeline[n] for n in impdef})
        self.assertEqual(self.midrs["arm_cortex_a53"], [0x410fd030, 0x420f1000])

    def test_check_sees_a_stale_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "metrics-table.h")
            shutil.copy(TABLE, out)
            r = subprocess.run([sys.executable, GEN, "--json-dir", self.dir, "--check",
                                "--out", out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out, "a") as f:
                f.write("/* edited */\n")
            r = subprocess.run([sys.executable, GEN, "--json-dir", self.dir, "--check",
                                "--out", out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("stale: run make metrics", r.stderr)


if __name__ == "__main__":
    unittest.main()
