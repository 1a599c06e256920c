# SPDX-License-Identifier: GPL-2.0
"""stat's metric table (tools/pmuscope/metrics-table.h) against perf's
pmu-events JSON, read here on its own: every metric of sbsa.json, Neoverse
N1, V1 and N2/V2 (MetricName, MetricGroup, MetricExpr, ScaleUnit,
DefaultMetricgroupName, BriefDescription), the event codes, the MIDRs, the
Cortex-A53's own group; and gen-pmu-metrics.py --check on a stale copy."""

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
    """{core: [(name, groups, expr, unit, default, desc)]}, {core: {event: code}},
    {core: [midr]}, from the generated header."""
    with open(TABLE) as f:
        text = f.read()
    metrics, events, midrs = {}, {}, {}
    for ident, body in re.findall(r"pmu_metric pmu_metrics_(\w+)\[\] = \{\n(.*?)\n\};", text, re.S):
        metrics[ident] = [tuple(c_string(x) for x in m) for m in re.findall(
            r"\t\{ %s, %s,\n\t  %s,\n\t  %s, %s,\n\t  %s \}," % ((STR,) * 6), body)]
    for ident, body in re.findall(r"pmu_metric_event pmu_metric_events_(\w+)\[\] = \{\n(.*?)\n\};",
                                  text, re.S):
        events[ident] = {n: int(c, 16) for n, c in re.findall(r'\{ "(\w+)", (0x[0-9a-f]+) \}', body)}
    for ident, body in re.findall(r"pmu_metric_midrs_(\w+)\[\] = \{\n(.*?)\n\};", text, re.S):
        midrs[ident] = [int(x, 16) for x in re.findall(r"0x[0-9a-f]+", body)]
    return metrics, events, midrs


@unittest.skipUnless(json_dir(), "perf's pmu-events JSON not unpacked (scripts/build-kernel.sh)")
class TableTest(unittest.TestCase):
    def setUp(self):
        self.dir = json_dir()
        self.metrics, self.events, self.midrs = parse_table()

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

    def test_event_codes_are_the_cores(self):
        codes = {}
        for path in glob.glob(os.path.join(self.dir, "arm", "neoverse-n1", "*.json")):
            with open(path) as f:
                entries = json.load(f)
            for e in entries:
                if "EventCode" in e:
                    codes[e["EventName"]] = int(e["EventCode"], 16)
        common = {e["EventName"]: int(e["EventCode"], 16)
                  for name in ("common-and-microarch.json", "recommended.json")
                  for e in self.load(name) if "EventCode" in e}
        for name, code in self.events["arm_neoverse_n1"].items():
            self.assertEqual(code, codes.get(name, common.get(name)), name)
        self.assertEqual(self.events["arm_neoverse_n1"]["DP_SPEC"], 0x73)

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
        self.assertEqual(self.events["arm_cortex_a53"],
                         {n: pipeline[n] for n in self.events["arm_cortex_a53"]})
        self.assertEqual(len(self.events["arm_cortex_a53"]), 10)
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
