# SPDX-License-Identifier: GPL-2.0
"""tests/run.py and tests/registry: a registry that names what does not
exist is refused, make test picks the smallest boot and only the builds
needed, the scheduler keeps its order and locks, and the guest's budget
reaches its init."""

import contextlib
import io
import json
import os
import sys
import tempfile
import threading
import time
import unittest

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(TOP, "tests"))
import run  # noqa: E402

HEAD = "== boots\nb1  initramfs  10  x1  --cpu cortex-a53\nb2  initramfs  10  x1  --cpu max\n" \
       "g1  initramfs  10  x2  gate --cpu max\n== tests\n"
BUILD = "initramfs  build  build  10  -  status  true\n"


def registry(text):
    with tempfile.NamedTemporaryFile("w", suffix=".reg", delete=False) as f:
        f.write(text)
    try:
        return run.parse_registry(f.name)
    finally:
        os.unlink(f.name)


class Registry(unittest.TestCase):
    def test_the_real_registry_parses_and_every_guest_script_is_in_it(self):
        boots, tests = run.parse_registry()
        names = {t.name for t in tests if t.guest}
        scripts = {f[2:-3] for f in os.listdir(os.path.join(TOP, "tests", "guest"))
                   if f.startswith("t-") and f.endswith(".sh")}
        # The gate's ends, the benchmarks' and the profiles' scripts are
        # not tests of their own (plans bench*, profile*, faults).
        self.assertEqual(scripts - names,
                         {"gate-begin", "gate-end", "bench", "bench-perf", "spe-bench",
                          "profile", "export"})
        for b in boots.values():
            self.assertTrue(run.boot_tests(b, tests), b.name)

    def test_refused(self):
        cases = [
            (BUILD + "x  nope  u  10  -  status  true\n", "kind 'nope'"),
            (BUILD + "x  host  u  ten  -  status  true\n", "budget 'ten'"),
            (BUILD + "x  host  u  10  -  xml  true\n", "format 'xml'"),
            (BUILD + "no-such-script  guest  u  10  b1  -  -\n", "no tests/guest/t-no-such-script.sh"),
            (BUILD + "exact  guest  u  10  b9  -  -\n", "no boot b9"),
            (BUILD + "x  host  u  10  zz  status  true\n", "needs zz"),
            (BUILD + BUILD, "test initramfs twice"),
            ("k build build 10 - status true\n", "a line before any section"),
            (BUILD + "k2  build  build  10  -  status  true\n",
             "boot b3 needs k2 but names no --initrd"),
        ]
        for body, want in cases:
            with self.subTest(want=want), self.assertRaises(run.RegistryError) as cm:
                if "k2" in body:
                    body = body.replace("== tests", "")
                    registry(HEAD.replace("== tests\n", "b3  k2  10  x1  --cpu max\n== tests\n")
                             + body)
                else:
                    registry(HEAD + body if not body.startswith("k build") else body)
            self.assertIn(want, str(cm.exception))


class Selection(unittest.TestCase):
    def setUp(self):
        self.boots, self.tests = registry(
            HEAD + BUILD +
            "t  build  build  10  -  status  true\n"
            "exact  guest  counting  30  b1,b2,g1  -  -\n"
            "wrap   guest  pmu       40  b2  -  echo {boot} {log}\n"
            "h  host  cli  10  t  lines  echo PASS x\n"
            "c  check  counting  10  b2  lines  echo PASS y\n")

    def test_one_guest_test_in_its_first_boot_with_its_builds_only(self):
        jobs = run.plan(self.boots, self.tests, "T", ["exact"])
        self.assertEqual(set(jobs), {"initramfs", "boot b1"})
        self.assertEqual([t.name for t in jobs["boot b1"].sel], ["exact"])
        jobs = run.plan(self.boots, self.tests, "T", ["exact"], "b2")
        self.assertEqual([t.name for t in jobs["boot b2"].sel], ["exact"])
        with self.assertRaises(run.RegistryError) as cm:
            run.plan(self.boots, self.tests, "T", ["wrap"], "b1")
        self.assertIn("its boots: b2", str(cm.exception))
        with self.assertRaises(run.RegistryError) as cm:
            run.plan(self.boots, self.tests, "T", ["exac"])
        self.assertIn("did you mean exact", str(cm.exception))

    def test_a_unit_in_all_its_boots_a_check_with_its_boots(self):
        jobs = run.plan(self.boots, self.tests, "U", ["counting"])
        self.assertEqual(set(jobs), {"initramfs", "boot b1", "boot b2", "boot g1", "c"})
        self.assertEqual([t.name for t in jobs["boot b2"].sel], ["exact"])
        self.assertEqual(jobs["c"].deps, {"boot b2"})

    def test_all_and_the_gate_ends(self):
        jobs = run.plan(self.boots, self.tests, "all")
        self.assertEqual(set(jobs), {"initramfs", "t", "h", "c", "boot b1", "boot b2", "boot g1"})
        self.assertEqual(run.tests_arg(self.boots["g1"], jobs["boot g1"].sel),
                         "gate-begin:300,exact:60,gate-end:600")
        self.assertEqual(run.tests_arg(self.boots["b2"], jobs["boot b2"].sel),
                         "exact:30,wrap:40")


class FakeJob(run.Job):
    def __init__(self, name, deps=(), lock=None, ok=True, log=None):
        super().__init__(name, 1, deps, lock)
        self.want, self.log = ok, log

    def run(self):
        self.log.append(("start", self.name))
        time.sleep(0.05)
        self.log.append(("end", self.name))
        self.result("PASS" if self.want else "FAIL", self.name)
        self.ok = self.want


class Scheduler(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.saved = run.TIMINGS
        run.TIMINGS = os.path.join(self.tmp.name, "timings.json")

    def tearDown(self):
        run.TIMINGS = self.saved
        self.tmp.cleanup()

    def test_dependencies_locks_and_failures(self):
        log = []
        jobs = {
            "a": FakeJob("a", lock="tree", log=log),
            "b": FakeJob("b", lock="tree", log=log),
            "c": FakeJob("c", deps=["a"], ok=False, log=log),
            "d": FakeJob("d", deps=["c"], log=log),
            "e": FakeJob("e", log=log),
        }
        with tempfile.NamedTemporaryFile() as res, \
                contextlib.redirect_stdout(io.StringIO()):
            lines = run.schedule(jobs, 2, res.name)
        self.assertIn("FAIL d: not run, c failed", lines)
        self.assertNotIn(("start", "d"), log)
        # a and b share a lock: never both running.
        running = set()
        for what, name in log:
            if what == "start":
                running.add(name)
                self.assertFalse({"a", "b"} <= running, log)
            else:
                running.discard(name)
        self.assertLess(log.index(("end", "a")), log.index(("start", "c")))
        self.assertEqual(threading.active_count(), 1)

    def test_timings_merge_with_what_others_saved(self):
        # Another run (make check beside this make test) saves while this
        # one runs: its timings stay, this run's are added.
        with open(run.TIMINGS, "w") as f:
            json.dump({"a": 99}, f)

        class Beside(FakeJob):
            def run(self):
                with open(run.TIMINGS, "w") as f:
                    json.dump({"boot other": 321, "a": 99}, f)
                super().run()
        jobs = {"a": Beside("a", log=[])}
        with tempfile.NamedTemporaryFile() as res, \
                contextlib.redirect_stdout(io.StringIO()):
            run.schedule(jobs, 1, res.name)
        with open(run.TIMINGS) as f:
            saved = json.load(f)
        self.assertEqual(saved["boot other"], 321)
        self.assertEqual(saved["a"], 0)

    def test_an_untimed_job_costs_its_budget_scaled_as_the_timed(self):
        # x was timed at a tenth of its budget: y (untimed, budget 1000)
        # counts as 100, so z's chain (timed 500) goes first.
        log = []
        jobs = {
            "x": FakeJob("x", log=log),
            "y": FakeJob("y", log=log),
            "z": FakeJob("z", log=log),
        }
        jobs["x"].cost, jobs["y"].cost, jobs["z"].cost = 100, 1000, 5000
        with open(run.TIMINGS, "w") as f:
            json.dump({"x": 10, "z": 500}, f)
        with tempfile.NamedTemporaryFile() as res, \
                contextlib.redirect_stdout(io.StringIO()):
            run.schedule(jobs, 1, res.name)
        starts = [n for what, n in log if what == "start"]
        self.assertEqual(starts, ["z", "y", "x"])


if __name__ == "__main__":
    unittest.main()
