# SPDX-License-Identifier: GPL-2.0
"""include/pmuscope_core_events.h against perf's pmu-events JSON.

The JSON is read here on its own, not through scripts/gen-pmu-events.py:
every core type of mapfile.csv, each of its events (ArchStdEvent
references resolved in the common files, the entry's own fields first)
with its number and description, must be in the header, and nothing
else. Skipped when the JSON is absent (no linux-source installed).
"""
import ast
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = os.path.join(TOP, "include", "pmuscope_core_events.h")
GEN = os.path.join(TOP, "scripts", "gen-pmu-events.py")
ARCH = os.path.join(TOP, "include", "pmuscope_event_table.h")


def arch_table():
    """{NAME: number} of include/pmuscope_event_table.h."""
    with open(ARCH) as f:
        return {name: int(n, 16) for n, name in
                re.findall(r"^PMUSCOPE_EVENT\((0x[0-9A-F]+), (\w+),", f.read(), re.M)}


def json_dir():
    r = subprocess.run(["bash", "-c", '. "$1/scripts/lib.sh" && pmuscope_pmu_events_dir',
                        "bash", TOP], capture_output=True, text=True, check=False)
    d = r.stdout.strip()
    return d if r.returncode == 0 and os.path.isfile(os.path.join(d, "mapfile.csv")) else None


def from_json(jdir):
    """{core dir: ({midr}, {name: (code, desc)})} read from the JSON."""
    std, metrics = {}, set()
    for path in glob.glob(os.path.join(jdir, "*.json")):
        with open(path) as f:
            for e in json.load(f):
                if "EventCode" in e:
                    std[e["EventName"].upper()] = e
                elif "MetricName" in e:
                    metrics.add(e["MetricName"].upper())
    cores = {}
    with open(os.path.join(jdir, "mapfile.csv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            midr, _, core, kind = [x.strip() for x in line.split(",")]
            if kind == "core":
                cores.setdefault(core, (set(), {}))[0].add(int(midr, 16))
    for core, (_, events) in cores.items():
        for path in glob.glob(os.path.join(jdir, core, "*.json")):
            with open(path) as f:
                entries = json.load(f)
            for e in entries:
                if {"MetricExpr", "MetricName", "Unit"} & set(e):
                    continue
                ref = e.get("ArchStdEvent", "").upper()
                if ref in metrics:
                    continue
                if ref:
                    merged = dict(std[ref])
                    merged.update({k: v for k, v in e.items() if v})
                    e = merged
                desc = e.get("BriefDescription") or e.get("PublicDescription") or ""
                events.setdefault(e["EventName"], (int(e["EventCode"], 16), desc))
    return cores


def from_header():
    """The same, read from the generated header; and {(core dir, name): common}."""
    with open(HEADER) as f:
        text = f.read()
    ids = {m[0]: m[1] for m in re.findall(r'^PMUSCOPE_CORE\((\w+), "([^"]+)", \d+, \d+\)$',
                                          text, re.M)}
    cores = {d: (set(), {}) for d in ids.values()}
    for cid, midr in re.findall(r"^PMUSCOPE_CORE_MIDR\((\w+), (0x[0-9a-f]+)\)$", text, re.M):
        cores[ids[cid]][0].add(int(midr, 16))
    pat = re.compile(r'^PMUSCOPE_CORE_EVENT\((\w+), (0x[0-9A-F]+), "([^"]+)",\s*'
                     r'("(?:[^"\\]|\\.)*"),\s*([01])\)$', re.M)
    flags = {}
    for cid, code, name, desc, common in pat.findall(text):
        code = int(code, 16)
        flags[(ids[cid], name)] = int(common)
        assert name not in cores[ids[cid]][1], (cid, name)
        cores[ids[cid]][1][name] = (code, ast.literal_eval(desc))
    n = len(re.findall(r"^PMUSCOPE_CORE_EVENT\(", text, re.M))
    return cores, n, flags


class PmuEventsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.jdir = json_dir()
        if not cls.jdir:
            raise unittest.SkipTest("perf's pmu-events JSON absent (linux-source not installed)")
        cls.json = from_json(cls.jdir)
        cls.header, cls.nr_lines, cls.common = from_header()

    def test_every_core_equal(self):
        self.assertEqual(sorted(self.header), sorted(self.json))
        for core in self.json:
            with self.subTest(core=core):
                self.assertEqual(self.header[core][0], self.json[core][0])
                self.assertEqual(self.header[core][1], self.json[core][1])
        # every PMUSCOPE_CORE_EVENT line parsed: none hidden from the comparison
        self.assertEqual(self.nr_lines, sum(len(e) for _, e in self.header.values()))

    def test_common_flag(self):
        # common 1 exactly when number and name are both in the architectural
        # table: the driver and `list` leave those to pmuscope_events[], so an
        # event of the PMCEID range under a name the table lacks must stay in
        # the core table (0) or its name would be lost to select and list.
        arch = arch_table()
        for (core, name), common in self.common.items():
            code = self.header[core][1][name][0]
            with self.subTest(core=core, name=name):
                self.assertEqual(common, int(arch.get(name) == code))
                if 0x40 <= code < 0x4000 or code >= 0x4040:
                    self.assertEqual(common, 0)
        # the JSON's architectural events of the PMCEID range: in the table
        for core in ("arm/cortex-a510", "arm/cortex-a710", "arm/neoverse-n2-v2",
                     "ampere/ampereone"):
            for name in ("MEM_ACCESS_CHECKED", "MEM_ACCESS_CHECKED_RD",
                         "MEM_ACCESS_CHECKED_WR"):
                self.assertEqual(self.common[(core, name)], 1, (core, name))
        self.assertEqual(self.common[("arm/cortex-a510", "PMU_OVFS")], 1)
        self.assertEqual(self.common[("arm/cortex-a510", "PMU_HOVFS")], 1)
        self.assertEqual(arch["MEM_ACCESS_CHECKED_WR"], 0x4026)
        self.assertEqual(arch["PMU_HOVFS"], 0x400F)
        # eMAG's own name for 0x34/0x35: the core table's
        self.assertEqual(self.header["ampere/emag"][1]["L2D_TLB_ACCESS"][0], 0x34)
        self.assertEqual(self.common[("ampere/emag", "L2D_TLB_ACCESS")], 0)
        self.assertEqual(self.common[("ampere/emag", "L2I_TLB_ACCESS")], 0)

    def test_named_cores(self):
        midrs, a53 = self.header["arm/cortex-a53"]
        self.assertEqual(len(a53), 30)
        self.assertIn(0x410fd030, midrs)
        self.assertEqual(a53["PREFETCH_LINEFILL"], (0xC2, "Linefill because of prefetch"))
        self.assertEqual(a53["LD_DEP_STALL"][0], 0xE7)
        for name in ("EXT_MEM_REQ", "ST_DEP_STALL", "AGU_DEP_STALL", "SIMD_DEP_STALL",
                     "IC_DEP_STALL", "DECODE_DEP_STALL", "STALL_SB_FULL"):
            self.assertIn(name, a53)
        n1 = self.header["arm/neoverse-n1"][1]
        self.assertIn(0x410fd0c0, self.header["arm/neoverse-n1"][0])
        self.assertEqual(n1["L1D_CACHE_REFILL_OUTER"][0], 0x45)    # ArchStdEvent resolved
        self.assertEqual(n1["CPU_CYCLES"][0], 0x11)
        self.assertEqual(self.json["arm/neoverse-n1"][1], n1)
        v1 = self.header["arm/neoverse-v1"][1]
        self.assertIn(0x410fd400, self.header["arm/neoverse-v1"][0])
        self.assertEqual(v1["STALL_SLOT"][0], 0x3F)
        self.assertEqual(self.json["arm/neoverse-v1"][1], v1)
        self.assertGreater(len(v1), 100)

    def test_check_finds_a_stale_header(self):
        with tempfile.TemporaryDirectory() as tmp:
            jdir = os.path.join(tmp, "arm64")
            shutil.copytree(self.jdir, jdir)
            r = subprocess.run([GEN, "--json-dir", jdir, "--check"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            path = os.path.join(jdir, "arm", "cortex-a53", "pipeline.json")
            with open(path) as f:
                text = f.read()
            with open(path, "w") as f:
                f.write(text.replace('"0xE7"', '"0xE9"'))
            r = subprocess.run([GEN, "--json-dir", jdir, "--check"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("pmuscope_core_events.h is stale: run `make events`", r.stdout)
            out = os.path.join(tmp, "out.h")
            subprocess.run([GEN, "--json-dir", jdir, "--output", out], check=True)
            with open(out) as f:
                self.assertIn('0x00E9, "LD_DEP_STALL"', f.read())
            r = subprocess.run([GEN, "--json-dir", os.path.join(tmp, "none"), "--check"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)
            self.assertIn("pmu-events JSON not found", r.stderr)


if __name__ == "__main__":
    unittest.main()
