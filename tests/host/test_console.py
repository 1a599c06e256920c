# SPDX-License-Identifier: GPL-2.0
"""Host tests of the console reader: it decides whether a guest run passed,
so it must count KTAP/TAP correctly and fail a run with a bad console even
when every test line says ok."""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import pmuscope_console as pc  # noqa: E402

KUNIT_OK = """\
[    0.712434] KTAP version 1
[    0.712530] 1..0
pmuscope-guest: start profile=cortex-a53 plan=discovery cpus=2
[    0.95] KTAP version 1
[    0.95] 1..1
[    0.95]     KTAP version 1
[    0.95]     # Subtest: pmuscope_discovery
[    0.95]     # module: pmuscope_kunit
[    0.95]     1..3
[    0.95]         KTAP version 1
[    0.95]         # Subtest: pmuscope_test_decode
[    0.96]         ok 1 cortex-a53 (AM62L)
[    0.96]         ok 2 neoverse-n1, spe=0
[    0.96]     # pmuscope_test_decode: pass:2 fail:0 skip:0 total:2
[    0.96]     ok 1 pmuscope_test_decode
[    0.97]     ok 2 pmuscope_test_plain
[    0.97]     ok 3 pmuscope_test_heterogeneous # SKIP needs two online CPUs
[    0.97] # pmuscope_discovery: pass:2 fail:0 skip:1 total:3
[    0.97] ok 1 pmuscope_discovery
pmuscope-tap: ok - [t-discovery] insmod pmuscope.ko
pmuscope-tap: ok - [t-discovery] cpu0 pmu = present
pmuscope-guest: done
[    4.31] reboot: Power down
"""


def statuses(boot):
    return {r.name: r.status for r in boot.results}


class ConsoleTest(unittest.TestCase):
    def test_counts_leaves_with_their_path(self):
        boot = pc.parse(KUNIT_OK)
        s = statuses(boot)
        self.assertEqual(s["kunit/pmuscope_discovery/pmuscope_test_decode/cortex-a53 (AM62L)"], "PASS")
        self.assertEqual(s["kunit/pmuscope_discovery/pmuscope_test_decode/neoverse-n1, spe=0"], "PASS")
        self.assertEqual(s["kunit/pmuscope_discovery/pmuscope_test_plain"], "PASS")
        self.assertEqual(s["kunit/pmuscope_discovery/pmuscope_test_heterogeneous"], "SKIP")
        # Parents (the parameterised test, the suite) are not counted again.
        self.assertNotIn("kunit/pmuscope_discovery/pmuscope_test_decode", s)
        self.assertNotIn("kunit/pmuscope_discovery", s)
        self.assertEqual(boot.ktap_cases, 4)
        self.assertTrue(boot.finished)
        self.assertEqual(boot.problems, [])

    def test_guest_tap(self):
        s = statuses(pc.parse(KUNIT_OK))
        self.assertEqual(s["guest/[t-discovery] insmod pmuscope.ko"], "PASS")
        log = KUNIT_OK.replace("pmuscope-tap: ok - [t-discovery] cpu0",
                               "pmuscope-tap: not ok - [t-discovery] cpu0")
        log = log.replace("pmuscope-guest: done",
                          "pmuscope-tap: # got 'absent'\npmuscope-guest: done")
        boot = pc.parse(log)
        bad = [r for r in boot.results if r.status == "FAIL"]
        self.assertEqual(len(bad), 1)
        self.assertIn("got 'absent'", bad[0].detail)

    def test_script_exit_status_backs_up_garbled_lines(self):
        ok = KUNIT_OK.replace(
            "pmuscope-tap: ok - [t-discovery] insmod",
            "pmuscope-guest: running t-discovery.sh\npmuscope-tap: ok - [t-discovery] insmod")
        ok = ok.replace("pmuscope-guest: done",
                        "pmuscope-guest: t-discovery.sh exit 0\npmuscope-guest: done")
        lines = pc.report(pc.parse(ok), "a53")
        self.assertIn("PASS a53/guest/t-discovery.sh exit status: no failed check", lines)
        self.assertFalse([x for x in lines if x.startswith("FAIL")])
        # A kernel message landed inside the "not ok" line: the line is
        # lost as a result, the script's exit status still fails the run.
        bad = ok.replace("pmuscope-tap: ok - [t-discovery] cpu0",
                         "pmuscope-tap: no[    3.1] hrtimer: interrupt took 2060 ns\nt ok - [t-discovery] cpu0")
        bad = bad.replace("exit 0", "exit 1")
        lines = pc.report(pc.parse(bad), "a53")
        self.assertEqual([x for x in lines if x.startswith("FAIL")],
                         ["FAIL a53/guest/t-discovery.sh exit status: 1 failed "
                          "check(s) or test program(s)"])
        # A script that never reported its exit status fails too.
        lines = pc.report(pc.parse(ok.replace("pmuscope-guest: t-discovery.sh exit 0\n", "")), "a53")
        self.assertIn("FAIL a53/guest/t-discovery.sh exit status (none on the console)", lines)
        # init says when each script ended: the exit status is read the same.
        timed = ok.replace("t-discovery.sh exit 0", "t-discovery.sh exit 0 at 12.34 s")
        self.assertIn("PASS a53/guest/t-discovery.sh exit status: no failed check",
                      pc.report(pc.parse(timed), "a53"))
        lines = pc.report(pc.parse(timed.replace("exit 0 at", "exit 3 at")), "a53")
        self.assertIn("FAIL a53/guest/t-discovery.sh exit status: 3 failed check(s) or test "
                      "program(s)", lines)

    def test_failed_kunit_case(self):
        log = KUNIT_OK.replace("        ok 2 neoverse-n1", "        not ok 2 neoverse-n1")
        log = log.replace("    ok 1 pmuscope_test_decode", "    not ok 1 pmuscope_test_decode")
        s = statuses(pc.parse(log))
        self.assertEqual(s["kunit/pmuscope_discovery/pmuscope_test_decode/neoverse-n1, spe=0"], "FAIL")
        # The failing parent adds no second failure.
        self.assertNotIn("kunit/pmuscope_discovery/pmuscope_test_decode", s)

    def test_parent_failing_without_failing_child_is_reported(self):
        log = KUNIT_OK.replace("    ok 1 pmuscope_test_decode", "    not ok 1 pmuscope_test_decode")
        s = statuses(pc.parse(log))
        self.assertEqual(s["kunit/pmuscope_discovery/pmuscope_test_decode"], "FAIL")

    def test_oops_fails_even_if_all_ok(self):
        for bad in ("[    2.1] Unable to handle kernel NULL pointer dereference at virtual address 0",
                    "[    2.1] WARNING: CPU: 1 PID: 77 at drivers/pmuscope_main.c:40 x+0x1/0x2",
                    "[    2.1] BUG: sleeping function called from invalid context at mm/slab.c:1",
                    "[    2.1] WARNING: possible circular locking dependency detected",
                    "[    2.1] Internal error: Oops - Undefined instruction: 0000000002000000 [#1] SMP",
                    "[    2.1] Call trace:"):
            boot = pc.parse(KUNIT_OK.replace("pmuscope-guest: done", bad + "\npmuscope-guest: done"))
            self.assertTrue(boot.problems, bad)
            lines = pc.report(boot, "a53")
            self.assertTrue(any(line.startswith("FAIL a53/clean console") for line in lines), bad)

    def test_benign_lines_are_not_problems(self):
        benign = ("[    0.1] rcu: \tRCU lockdep checking is enabled.",
                  "[    1.0] pmuscope-model: read of PMSIDR_EL1 on cortex-a53: not allowed by the profile",
                  "[    1.0] pmuscope_kunit: loading out-of-tree module taints kernel.")
        boot = pc.parse(KUNIT_OK + "\n".join(benign))
        self.assertEqual(boot.problems, [])

    def test_unfinished_boot_fails(self):
        boot = pc.parse(KUNIT_OK.replace("pmuscope-guest: done", ""))
        self.assertFalse(boot.finished)
        lines = pc.report(boot, "a53")
        self.assertIn("FAIL a53/boot finished (guest reached its end marker)", lines)

    def test_require_ktap(self):
        log = "\n".join(line for line in KUNIT_OK.splitlines() if " ok " not in line)
        boot = pc.parse(log)
        self.assertEqual(boot.ktap_cases, 0)
        lines = pc.report(boot, "a53", require_ktap=True)
        self.assertTrue(any(line.startswith("FAIL a53/kunit ran") for line in lines))


if __name__ == "__main__":
    unittest.main()
