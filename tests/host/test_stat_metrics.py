# SPDX-License-Identifier: GPL-2.0
"""stat -M, --topdown and --metric-only end to end against
fake_pmuscope.so: the metrics' events added, their rows in the table,
JSON, CSV and -x, with -r and -o, the errors and refused combinations."""

import csv
import io
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import FAKE, fake_sysfs, run  # noqa: E402


class StatMetricsTest(unittest.TestCase):
    """stat -M against fake_pmuscope.so: event i of the configuration counts
    1000 * (k + 1) + i on CPU k (the two CPUs: 3000 + 2 * i)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "sysfs")

    def tearDown(self):
        self.tmp.cleanup()

    def stat(self, *args, midr="0x410fd034", cmd=("true",)):
        shutil.rmtree(self.root, ignore_errors=True)
        fake_sysfs(self.root)
        for cpu in (0, 1):
            with open(os.path.join(self.root, f"cpu{cpu}", "midr"), "w") as f:
                f.write(midr + "\n")
        return run("stat", "-a", *args, "--", *cmd,
                   env={"PMUSCOPE_SYSFS": self.root, "LD_PRELOAD": FAKE})

    def test_a53_metric_row_after_the_counters(self):
        r = self.stat("-M", "a53_frontend_stall")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        labels = [line.split()[1] for line in lines if re.match(r"\s+[\d,]+\s+\w", line)]
        self.assertEqual(labels, ["IC_DEP_STALL", "IUTLB_DEP_STALL", "DECODE_DEP_STALL",
                                  "OTHER_IQ_DEP_STALL", "CPU_CYCLES"])
        # 100 * (3000 + 3002 + 3004 + 3006) / 3008 = 399.34 %
        row = [line for line in lines if "a53_frontend_stall" in line]
        self.assertEqual(len(row), 1)
        self.assertRegex(row[0], r"^\s+#\s+399\.34 %  a53_frontend_stall$")

    def test_topdown_json_and_csv(self):
        r = self.stat("--topdown", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        total = json.loads(r.stdout.splitlines()[-1])
        vals = {m["metric"]: m for m in total["metric_values"]}
        self.assertEqual(sorted(vals), ["a53_backend_stall", "a53_execute_stall",
                                        "a53_frontend_stall", "a53_ipc", "a53_memory_stall"])
        counts = {c["label"]: c["count"] for c in total["counters"]}
        self.assertEqual(len(counts), 12)
        self.assertAlmostEqual(vals["a53_ipc"]["value"],
                               counts["INST_RETIRED"] / counts["CPU_CYCLES"], places=5)
        self.assertEqual((vals["a53_ipc"]["unit"], vals["a53_ipc"]["group"],
                          vals["a53_ipc"]["multiplexed"]),
                         ("per cycle", "A53_Cycle_Accounting", False))
        r = self.stat("--topdown", "--csv")
        rows = {row["event"]: row for row in csv.DictReader(io.StringIO(r.stdout))}
        self.assertAlmostEqual(float(rows["metric:a53_backend_stall"]["count"]),
                               vals["a53_backend_stall"]["value"], places=2)

    def test_metric_only(self):
        r = self.stat("-M", "a53_ipc,a53_memory_stall", "--metric-only")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("CPU_CYCLES", r.stdout)
        lines = [line for line in r.stdout.splitlines() if line.strip()]
        head = lines.index(next(line for line in lines if "a53_ipc" in line))
        self.assertEqual(lines[head].split(), ["a53_ipc", "a53_memory_stall"])
        # 3000 / 3002; 100 * (3004 + 3006 + 3008) / 3002
        self.assertRegex(lines[head + 1], r"^\s+1\.00 per cycle\s+300\.40 %$")
        r = self.stat("--metric-only")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--metric-only needs -M or --topdown", r.stderr)

    def test_topdown_without_slot_events_names_them(self):
        r = self.stat("--topdown", midr="0x410fd0c1")		# Neoverse N1
        self.assertEqual(r.returncode, 3)
        self.assertIn("STALL_SLOT, STALL_SLOT_FRONTEND, STALL_SLOT_BACKEND, OP_RETIRED, OP_SPEC",
                      r.stderr)

    def test_unknown_metric_lists_the_groups(self):
        r = self.stat("-M", "nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no metric or metric group 'nope' for cortex-a53 (arm/cortex-a53); "
                      "its groups: A53_Cycle_Accounting", r.stderr)

    def test_neoverse_group(self):
        r = self.stat("-M", "Branch_Effectiveness", "--json", midr="0x410fd0c1")
        self.assertEqual(r.returncode, 0, r.stderr)
        total = json.loads(r.stdout.splitlines()[-1])
        counts = {c["event"]: c["count"] for c in total["counters"]}
        vals = {m["metric"]: m["value"] for m in total["metric_values"]}
        self.assertAlmostEqual(vals["branch_mpki"],
                               counts["BR_MIS_PRED_RETIRED"] / counts["INST_RETIRED"] * 1000,
                               places=3)
        self.assertAlmostEqual(vals["branch_misprediction_ratio"],
                               counts["BR_MIS_PRED_RETIRED"] / counts["BR_RETIRED"], places=5)

    def test_field_separator_metric_rows(self):
        # perf's -x: a row per metric, its value and "UNIT  NAME" in the
        # columns of a counter's metric (6th and 7th), the others empty.
        r = self.stat("-M", "a53_frontend_stall", "-x", ",")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [
            "3000,,IC_DEP_STALL,2000000,100.00,,",
            "3002,,IUTLB_DEP_STALL,2000000,100.00,,",
            "3004,,DECODE_DEP_STALL,2000000,100.00,,",
            "3006,,OTHER_IQ_DEP_STALL,2000000,100.00,,",
            "3008,,CPU_CYCLES,2000000,100.00,,",
            ",,,,,399.34,%  a53_frontend_stall"])
        # With -I each interval's metric rows carry its time too.
        r = self.stat("-M", "a53_ipc", "-x", ";", "-I", "100")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split(";") for line in r.stdout.splitlines()]
        self.assertEqual([row[-2:] for row in rows if row[-1].endswith("a53_ipc")],
                         [["1.00", "per cycle  a53_ipc"]] * 2)
        mrows = [row for row in rows if row[-1].endswith("a53_ipc")]
        self.assertEqual([len(row) for row in mrows], [8, 7])   # the interval's, the total's
        self.assertRegex(mrows[0][0], r"^\d+\.\d{9}$")

    def test_interval_duration_is_measured(self):
        # AmpereOne's retired_mips is INST_RETIRED / (duration_time * 1e6):
        # each interval's duration_time is how long it lasted, from the
        # previous one's time_s (0: the enable), the last, partial one
        # (about 0.2 s of -I 400 here) too, not -I's 0.4 s.
        r = self.stat("-M", "retired_mips", "--json", "-I", "400", midr="0xc00fac30",
                      cmd=("sleep", "0.6"))
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [json.loads(line) for line in r.stdout.splitlines()]
        intervals = [o for o in lines if o["type"] == "interval"]
        self.assertGreaterEqual(len(intervals), 2, r.stdout)
        prev = 0.0
        for o in intervals:
            count = next(c["count"] for c in o["counters"] if c["event"] == "INST_RETIRED")
            mips = next(m["value"] for m in o["metric_values"] if m["metric"] == "retired_mips")
            self.assertAlmostEqual(count / (mips * 1e6), o["time_s"] - prev, delta=0.002)
            prev = o["time_s"]

    def test_repeat_metric_of_the_mean_counts(self):
        # Runs n = 0, 1, 2 count 3000 * (n + 1) + 2 * i for event i: means
        # 6000 + 2 * i, so 100 * (6000 + 6002 + 6004 + 6006) / 6008 = 399.67 %
        # (the mean of the runs' own values would be 399.59 %).
        r = self.stat("-M", "a53_frontend_stall", "-r", "3")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("(3 runs)", r.stdout)
        self.assertRegex(r.stdout, r"\n +6,008 +CPU_CYCLES +\( \+- 28\.83% \)\n")
        self.assertRegex(r.stdout, r"\n\s+#\s+399\.67 %  a53_frontend_stall\n")
        r = self.stat("-M", "a53_frontend_stall", "-r", "3", "-x", ";")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[4], "6008;;CPU_CYCLES;28.83%;4000000;100.00;;")
        self.assertEqual(lines[5], ";;;;;;399.67;%  a53_frontend_stall")

    def test_output_file_gets_the_metrics(self):
        out = os.path.join(self.tmp.name, "stat.txt")
        r = self.stat("-M", "a53_ipc", "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "")
        with open(out) as f:
            text = f.read()
        self.assertTrue(text.startswith("# started on "), text)
        self.assertRegex(text, r"\n\s+#\s+1\.00 per cycle  a53_ipc\n")
        r = self.stat("-M", "a53_ipc", "-x", ",", "-o", out, "--append")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            self.assertTrue(f.read().endswith("\n,,,,,1.00,per cycle  a53_ipc\n"))

    def test_refused_combinations(self):
        for args, msg in (
                (("-M", "a53_ipc", "-A"), "-M, --topdown and --metric-only are of the totals: "
                 "not with -A or --per-core"),
                (("--topdown", "--per-core"), "not with -A or --per-core"),
                (("-M", "a53_ipc", "--metric-only", "-A"), "not with -A or --per-core"),
                (("-M", "a53_ipc", "--metric-only", "-x", ","),
                 "--metric-only prints a table of its own: not with -x")):
            r = self.stat(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(r.stdout, "", args)
            self.assertIn(msg, r.stderr, args)
        # Each alone is taken.
        self.assertEqual(self.stat("-M", "a53_ipc", "-x", ",").returncode, 0)
        self.assertEqual(self.stat("-e", "cycles", "-A").returncode, 0)


if __name__ == "__main__":
    unittest.main()
