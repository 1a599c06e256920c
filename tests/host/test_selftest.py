# SPDX-License-Identifier: GPL-2.0
"""Host tests of pmuscope test (the self-check) against the stand-in for
/dev/pmuscope (tests/tools/fake_pmuscope.c, preloaded) and a fake sysfs of
a 2-CPU Cortex-A53: the perf-test-like output, -v, --json's object,
--report's bundle, --list, choosing checks by name and number, bad
arguments (exit 2), and a driver that fails a check (exit 1). The checks
that need arm64 code (exact loops, EL0 reads, SPE) say so and Skip here;
the guest runs them for real (tests/guest/t-selftest.sh). Needs
tools/build/host (make -C tools host)."""

import json
import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from test_cli import FAKE, fake_sysfs, run  # noqa: E402

LINE = re.compile(r"^ {0,2}(\d+): (.{40}): (Ok|FAILED!|Skip \((.+)\))$")
# The checks that pass against the fake driver (its counts follow a rule,
# not a PMU: the EL0/EL1 split, for one, cannot add up there).
PASSING = ["1", "3", "5", "7", "11", "13", "15"]


class SelftestTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "sysfs")

    def tearDown(self):
        self.tmp.cleanup()

    def pt(self, *args, env=None, driver=True, **sysfs):
        """pmuscope test ARGS against a new fake sysfs (and the fake device)."""
        shutil.rmtree(self.root, ignore_errors=True)
        fake_sysfs(self.root, backend="direct", **sysfs)
        e = {"PMUSCOPE_SYSFS": self.root}
        if driver:
            e["LD_PRELOAD"] = FAKE
        e.update(env or {})
        return run("test", *args, env=e)

    def verdicts(self, out):
        """{number: (name, verdict line's verdict)} of the output's check lines."""
        got = {}
        for line in out.splitlines():
            m = LINE.match(line)
            if m:
                got[int(m.group(1))] = (m.group(2).rstrip(), m.group(3))
        return got

    def test_output_is_perf_tests(self):
        r = self.pt(*PASSING)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), len(PASSING))
        for line in lines:
            self.assertRegex(line, LINE)
        self.assertEqual(lines[0], "  1: Driver loaded                           : Ok")
        v = self.verdicts(r.stdout)
        self.assertEqual(sorted(v), [int(n) for n in PASSING])
        self.assertEqual(v[7], ("CPU_CYCLES counts", "Ok"))

    def test_skip_says_why(self):
        r = self.pt("14", snapshot_hw={0: "off"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "%3d: %-40s: Skip (cpu0: hardware snapshot off)\n"
                         % (14, "Snapshot in hardware"))
        r = self.pt("8")	# arm64 code: a Skip here, with the reason
        self.assertIn(": Skip (the loop of known length is arm64 code)", r.stdout)

    def test_verbose_shows_measurements(self):
        r = self.pt("-v", "1", "7", "13")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        self.assertIn("\n     backend: direct\n", out)
        self.assertIn("     cpu type 0: cortex-a53 midr 0x410fd034 (measured on cpu0)\n", out)
        # The fake's READ n gives 1000 * (n + 1): three reads.
        self.assertIn("     cpu0 CPU_CYCLES:u at 0, 10, 20 ms: 1000, 2000, 3000\n", out)
        self.assertIn("     cpu0 method: software\n", out)
        # frozen 3 ticks a capture (the fake): the bound is (3 + 3 + 2) x cycles a tick + 4.
        self.assertIn("over 1000 ticks (frozen 3 + 3): apart 0, bound 12 (interval 1 of at most 5)\n", out)
        r = self.pt("1", "7")
        self.assertNotIn("backend:", r.stdout)

    def test_pmu_that_does_not_count_fails(self):
        # Values flagged OFFLINE stay those of the first read: nothing counts.
        r = self.pt("-v", "cycles", env={"FAKE_PMUSCOPE_VAL_FLAGS": "0:16"})
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(self.verdicts(r.stdout)[7][1], "FAILED!")
        self.assertIn("     failed: cpu0: CPU_CYCLES did not count: this PMU does not count "
                      "(as in some VMs)\n", r.stdout)
        self.assertRegex(r.stdout, r"\n     to do: give the machine a PMU that counts: .*vPMU")

    def test_counts_going_backwards_fail(self):
        r = self.pt("-v", "7", env={"FAKE_PMUSCOPE_BACKWARDS": "1"})
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn("failed: cpu0: CPU_CYCLES went backwards", r.stdout)
        r = self.pt("--json", "7", env={"FAKE_PMUSCOPE_BACKWARDS": "1"})
        self.assertEqual(r.returncode, 1)
        c = json.loads(r.stdout)["checks"][0]
        self.assertEqual((c["verdict"], c["reason"]), ("failed", "cpu0: CPU_CYCLES went backwards"))
        self.assertTrue(c["remedy"])

    def test_driver_not_loaded(self):
        r = self.pt("-v", "1", "7", driver=False)
        self.assertEqual(r.returncode, 1)
        v = self.verdicts(r.stdout)
        self.assertEqual(v[1][1], "FAILED!")
        self.assertEqual(v[7][1], "Skip (the driver is not loaded)")
        self.assertIn("     to do: load the module: insmod pmuscope.ko (or modprobe pmuscope)\n",
                      r.stdout)

    def test_json(self):
        r = self.pt("--json", *PASSING, "14")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.splitlines()), 1)
        o = json.loads(r.stdout)
        self.assertEqual(list(o), ["tool_version", "api_version", "driver_loaded",
                                   "driver_api_version", "backend", "checks", "summary"])
        self.assertRegex(o["tool_version"], r"^\d+\.\d+\.\d+$")
        self.assertEqual(o["driver_api_version"], o["api_version"])
        self.assertIs(o["driver_loaded"], True)
        self.assertEqual(o["backend"], "direct")
        self.assertEqual([c["number"] for c in o["checks"]], sorted(int(n) for n in PASSING + ["14"]))
        for c in o["checks"]:
            self.assertEqual(list(c), ["number", "name", "verdict", "reason", "remedy", "measured"])
            self.assertIn(c["verdict"], ("ok", "failed", "skip"))
            self.assertIsInstance(c["measured"], dict)
        by = {c["number"]: c for c in o["checks"]}
        self.assertEqual(by[1]["measured"]["api version"], o["api_version"])	# a number
        self.assertEqual(by[1]["measured"]["features"], "0x3e01")	# hexadecimal: a string
        self.assertEqual(by[7]["measured"]["cpu0 CPU_CYCLES:u at 0, 10, 20 ms"], "1000, 2000, 3000")
        self.assertEqual((by[14]["verdict"], by[14]["reason"]),
                         ("skip", "cpu0: hardware snapshot unknown"))
        self.assertEqual(by[7]["reason"], "")
        self.assertEqual(o["summary"], {"ok": len(PASSING), "failed": 0, "skip": 1})

    def test_json_without_driver(self):
        r = self.pt("--json", "1", driver=False)
        o = json.loads(r.stdout)
        self.assertIs(o["driver_loaded"], False)
        self.assertIsNone(o["driver_api_version"])
        self.assertEqual(o["checks"][0]["verdict"], "failed")
        self.assertIn("is the pmuscope module loaded", o["checks"][0]["reason"])

    def test_report(self):
        path = os.path.join(self.tmp.name, "report.txt")
        r = self.pt("--report", path, "1", "7")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(r.stdout.splitlines()), 2)	# the results on stdout too
        with open(path) as f:
            text = f.read()
        sections = re.findall(r"^== (.*) ==$", text, re.M)
        self.assertEqual(sections, ["version", "uname -a", "results", "dmesg (pmuscope)",
                                    f"driver ({self.root})", "module parameters",
                                    "/proc/cpuinfo"])
        self.assertRegex(text, r"\n== version ==\npmuscope \d+\.\d+\.\d+ \(API version \d+\)\n"
                         r"driver: loaded\nbackend: direct\n")
        self.assertIn("\n== uname -a ==\n%s " % os.uname().sysname, text)
        # The results with -v's details, whatever the command line's -v.
        self.assertIn("  7: CPU_CYCLES counts                       : Ok\n"
                      "     cpu0 CPU_CYCLES:u at 0, 10, 20 ms: 1000, 2000, 3000\n", text)
        for line in ("backend: direct", "cpu0/midr: 0x410fd034", "cpu1/pmceid0: 0x0000000067ffbfff",
                     "cpu0/num_event_counters: 6", "cpu1/event_counter_width: 32"):
            self.assertIn("\n" + line + "\n", text)
        dmesg = text.split("== dmesg (pmuscope) ==\n")[1].split("\n\n")[0]
        self.assertTrue(dmesg.startswith("(") or "pmuscope" in dmesg, dmesg)
        if not os.path.exists("/sys/module/pmuscope"):
            self.assertIn("== module parameters ==\n(no /sys/module/pmuscope/parameters", text)
        with open("/proc/cpuinfo") as f:
            self.assertTrue(text.endswith(f.read()))

    def test_report_cannot_be_written(self):
        r = self.pt("--report", os.path.join(self.tmp.name, "no", "such"), "1")
        self.assertEqual(r.returncode, 1)
        self.assertIn("pmuscope: cannot write the report", r.stderr)

    def test_list(self):
        r = self.pt("--list")
        self.assertEqual(r.returncode, 0)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 19)
        self.assertEqual(lines[0], "  1: Driver loaded")
        self.assertEqual(lines[9], " 10: 32-bit counter wraps")
        self.assertEqual(lines[18], " 19: Counting through 2^32 from zero")
        r = self.pt("--list", "snapshot", "3")
        self.assertEqual(r.stdout, "  3: KPTI\n 13: Snapshot in software\n"
                         " 14: Snapshot in hardware\n")
        # --list runs nothing: no device is opened even where none is.
        r = self.pt("--list", "1", driver=False)
        self.assertEqual((r.returncode, r.stdout), (0, "  1: Driver loaded\n"))

    def test_select_by_name_and_number(self):
        r = self.pt("CYCLES")	# any case, part of the name
        self.assertEqual(sorted(self.verdicts(r.stdout)), [7])
        r = self.pt("13", "kpti", "13")
        self.assertEqual(sorted(self.verdicts(r.stdout)), [3, 13])	# each once, in order

    def test_bad_arguments(self):
        for args, msg in ((["0"], "pmuscope: test: no check number 0 (1 to 19: pmuscope test --list)"),
                          (["20"], "pmuscope: test: no check number 20 (1 to 19: pmuscope test --list)"),
                          (["1", "nosuch"], "pmuscope: test: no check named 'nosuch' (pmuscope test --list)"),
                          ([""], "pmuscope: test: no check named '' (pmuscope test --list)")):
            r = self.pt(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertEqual(r.stdout, "")
            self.assertEqual(r.stderr.splitlines()[0], msg)
            self.assertIn("usage: pmuscope test", r.stderr)
        r = self.pt("--bogus")
        self.assertEqual(r.returncode, 2)
        self.assertIn("usage: pmuscope test", r.stderr)
        r = self.pt("--report")
        self.assertEqual(r.returncode, 2)

    def test_help(self):
        r = self.pt("--help")
        self.assertEqual(r.returncode, 0)
        for opt in ("-v, --verbose", "--json", "--report FILE", "--list"):
            self.assertIn(opt, r.stdout)


if __name__ == "__main__":
    unittest.main()
