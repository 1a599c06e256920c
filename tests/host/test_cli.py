# SPDX-License-Identifier: GPL-2.0
"""Host tests of the pmuscope CLI: JSON checked by Python's json parser, CSV
by its csv reader, list/read against a fake sysfs tree, and the messages
and exit codes of bad input; snapshot's whole path against a stand-in for
/dev/pmuscope (tools/tests/fake_pmuscope.c, preloaded). Needs
tools/build/host (make -C tools host)."""

import csv
import io
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import unittest

TOP = os.path.join(os.path.dirname(__file__), "..", "..")
BIN = os.path.join(TOP, "tools", "build", "host")
CLI = os.path.join(BIN, "pmuscope")
FAKE = os.path.abspath(os.path.join(BIN, "fake_pmuscope.so"))


def run(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([CLI, *args], capture_output=True, text=True, env=e,
                          timeout=30)


def sample(fmt):
    return subprocess.run([os.path.join(BIN, "test_tools"), "--sample", fmt],
                          capture_output=True, text=True, check=True).stdout


def fake_sysfs(root, owners=None, snapshot_hw=None, emulated=False):
    """/sys/kernel/pmuscope of a 2-CPU Cortex-A53 (AM62L); snapshot_hw:
    {cpu: state} for the cpuN/snapshot_hw files."""
    if emulated:
        os.makedirs(root, exist_ok=True)
        for name, value in (("emulated", "1"), ("emulated_profile", "cortex-a53")):
            with open(os.path.join(root, name), "w") as f:
                f.write(value + "\n")
    for cpu, state in (snapshot_hw or {}).items():
        os.makedirs(os.path.join(root, f"cpu{cpu}"), exist_ok=True)
        with open(os.path.join(root, f"cpu{cpu}", "snapshot_hw"), "w") as f:
            f.write(state + "\n")
    for cpu in (0, 1):
        d = os.path.join(root, f"cpu{cpu}")
        os.makedirs(os.path.join(d, "counter_owner"), exist_ok=True)
        os.makedirs(os.path.join(d, "counter_event"))
        os.makedirs(os.path.join(d, "counter_value"))
        files = {"probed": "1", "cpu_name": "cortex-a53", "pmu": "present",
                 "pmu_version_name": "PMUv3", "num_event_counters": "6",
                 "event_counter_width": "32",
                 "pmceid0": "0x0000000067ffbfff", "pmceid1": "0x0000000000000000"}
        for name, value in files.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(value + "\n")
        for c in [str(i) for i in range(6)] + ["cycle"]:
            owner, event, value = (owners or {}).get((cpu, c), ("free", "none", None))
            with open(os.path.join(d, "counter_owner", c), "w") as f:
                f.write(owner + "\n")
            with open(os.path.join(d, "counter_event", c), "w") as f:
                f.write(event + "\n")
            if value is not None:
                with open(os.path.join(d, "counter_value", c), "w") as f:
                    f.write(f"{value}\n")


class CliTest(unittest.TestCase):
    def test_json_is_one_valid_object_per_line(self):
        lines = sample("json").splitlines()
        self.assertEqual(len(lines), 2)
        objs = [json.loads(line) for line in lines]
        self.assertEqual([o["type"] for o in objs], ["interval", "total"])
        total = objs[1]
        self.assertEqual(total["cpus"], "0-1")
        self.assertEqual(total["command"], ["/bin/loop", "1000"])
        self.assertEqual(total["exit_status"], 0)
        self.assertAlmostEqual(total["elapsed_s"], 0.5)
        self.assertIn("time_s", objs[0])
        c = total["counters"][1]
        self.assertEqual((c["event"], c["number"], c["label"], c["modifiers"], c["raw"]),
                         ("INST_RETIRED", 8, "instructions", "u", False))
        self.assertEqual(c["count"], 1000000)
        self.assertEqual(sum(p["count"] for p in c["per_cpu"]), c["count"])
        self.assertEqual(total["counters"][6]["flags"], ["throttled"])
        self.assertEqual(set(total["metrics"]), {
            "ipc", "l1d_miss_ratio", "l1d_mpki", "branch_miss_ratio",
            "frontend_stall_ratio", "backend_stall_ratio"})
        self.assertAlmostEqual(total["metrics"]["ipc"], 0.5)
        self.assertIsNone(total["metrics"]["branch_miss_ratio"])

    def test_csv_parses_with_a_header(self):
        rows = list(csv.DictReader(io.StringIO(sample("csv"))))
        self.assertEqual(len([r for r in rows if r["cpu"] == "all" and
                              not r["event"].startswith("metric:")]), 18)
        ipc = [r for r in rows if r["event"] == "metric:ipc"]
        self.assertEqual(len(ipc), 2)
        self.assertAlmostEqual(float(ipc[1]["count"]), 0.5)
        per_cpu = [r for r in rows if r["cpu"] == "1" and r["type"] == "total"]
        self.assertEqual(len(per_cpu), 9)
        self.assertEqual(rows[-1]["type"], "total")

    def test_list_against_fake_sysfs(self):
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root)
            r = run("list", "--json", env={"PMUSCOPE_SYSFS": root})
            self.assertEqual(r.returncode, 0, r.stderr)
            types = json.loads(r.stdout)["cpu_types"]
            self.assertEqual(len(types), 1)
            self.assertEqual((types[0]["name"], types[0]["cpus"], types[0]["counters"]),
                             ("cortex-a53", "0-1", 6))
            names = {e["name"]: e for e in types[0]["events"]}
            self.assertEqual(len(names), 27)       # 28 PMCEID bits, CHAIN not listed
            self.assertEqual(names["CPU_CYCLES"]["alias"], "cycles")
            self.assertNotIn("BR_RETURN_RETIRED", names)
            r = run("list", env={"PMUSCOPE_SYSFS": root})
            self.assertIn("cortex-a53 (CPUs 0-1): PMUv3, 6 event counters of 32 bits", r.stdout)
            self.assertIn("Level 1 data cache refill", r.stdout)

    def test_read_names_the_holders(self):
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root, {(1, "cycle"): ("session 3 (pid 9, profd)", "CPU_CYCLES:uk", 12345)})
            r = run("read", "--json", env={"PMUSCOPE_SYSFS": root})
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(r.stdout)["counters"], [{
                "cpu": 1, "counter": "cycle", "owner": "session 3 (pid 9, profd)",
                "event": "CPU_CYCLES:uk", "value": 12345}])
            r = run("read", env={"PMUSCOPE_SYSFS": root})
            self.assertIn("session 3 (pid 9, profd)", r.stdout)

    def test_json_escapes_what_sysfs_says(self):
        owner = 'session 3 (pid 9, a"b\\c\u00e9)'
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root, {(0, "2"): (owner, "CPU_CYCLES:uk", 7),
                              (1, "3"): ("sysfs", "SW_INCR:k", None)})
            r = run("read", "--json", env={"PMUSCOPE_SYSFS": root})
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = json.loads(r.stdout)["counters"]
            self.assertEqual(rows[0]["owner"], 'session 3 (pid 9, a"b\\c??)')
            self.assertIsNone(rows[1]["value"])    # no value file: null

    def test_errors_and_exit_codes(self):
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root)
            env = {"PMUSCOPE_SYSFS": root}
            cases = [
                (("stat", "-e", "nosuch", "--", "true"), 2, "unknown event 'nosuch'"),
                (("stat", "-e", "cycle"), 2, "did you mean cycles"),
                (("stat", "-e", "cycles:q"), 2, "unknown modifier 'q'"),
                (("stat", "-C", "3-1"), 2, "invalid CPU range"),
                (("stat", "-I", "5"), 2, "at least 10 ms"),
                (("stat", "-I", "-1"), 2, "at least 10 ms"),
                (("stat", "-I", "10abc"), 2, "at least 10 ms"),
                (("stat", "-I", "4294967306"), 2, "at least 10 ms"),
                (("stat", "-e", ""), 2, "-e needs at least one event"),
                (("stat", "-e", ","), 2, "-e needs at least one event"),
                (("stat", "-e", "r0x 5"), 2, "invalid raw event"),
                (("stat", "-C", "5", "--", "true"), 1, "cpu5 does not exist"),
                (("stat", "--bogus"), 2, "usage: pmuscope stat"),
                (("bogus",), 2, "unknown command 'bogus'"),
                (("list", "--yaml"), 2, "usage: pmuscope list"),
                (("stat", "-e", "CHAIN"), 2, "CHAIN (0x1e) is not a user event"),
                (("stat", "-C", "0,"), 2, "invalid CPU list"),
                (("snapshot", "--lead", "0"), 2, "--lead needs 1 to 2000 microseconds: '0'"),
                (("snapshot", "--lead", "2001"), 2, "--lead needs 1 to 2000 microseconds"),
                (("snapshot", "--lead", "-5"), 2, "--lead needs 1 to 2000 microseconds"),
                (("snapshot", "--lead", "1e3"), 2, "--lead needs 1 to 2000 microseconds"),
                (("snapshot", "--lead"), 2, "usage: pmuscope snapshot"),
                (("snapshot", "--software", "--hardware"), 2,
                 "--software and --hardware exclude each other"),
                (("snapshot", "--hardware", "--software", "--json"), 2,
                 "--software and --hardware exclude each other"),
                (("snapshot", "--bogus"), 2, "usage: pmuscope snapshot"),
                (("snapshot", "-x"), 2, "usage: pmuscope snapshot"),
                (("snapshot", "-n", "0"), 2, "-n needs a count of snapshots, 1 or more"),
                (("snapshot", "-n", "two"), 2, "-n needs a count of snapshots"),
                (("snapshot", "-I", "5"), 2, "at least 10 ms"),
                (("snapshot", "--", "true"), 2, "snapshot runs no command: 'true'"),
                (("snapshot", "-e", "cycle"), 2, "did you mean cycles"),
                (("snapshot", "-C", "1-0"), 2, "invalid CPU range"),
                (("snapshot", "-C", "5"), 1, "cpu5 does not exist"),
            ]
            for args, code, msg in cases:
                r = run(*args, env=env)
                self.assertEqual(r.returncode, code, (args, r.stderr))
                self.assertIn(msg, r.stderr, args)
            # No /dev/pmuscope on the host: the driver is missing.
            if not os.path.exists("/dev/pmuscope"):
                r = run("stat", "-e", "cycles", "--", "true", env=env)
                self.assertEqual(r.returncode, 6, r.stderr)
                self.assertIn("is the pmuscope module loaded", r.stderr)
                for args in (("snapshot",), ("snapshot", "--json", "-C", "1", "--hardware")):
                    r = run(*args, env=env)
                    self.assertEqual(r.returncode, 6, (args, r.stderr))
                    self.assertIn("/dev/pmuscope not found: is the pmuscope module loaded",
                                  r.stderr)
                    self.assertEqual(r.stdout, "")
        with tempfile.TemporaryDirectory() as empty:
            r = run("list", env={"PMUSCOPE_SYSFS": os.path.join(empty, "none")})
            self.assertEqual(r.returncode, 6)
            self.assertIn("is the pmuscope module loaded", r.stderr)
            r = run("snapshot", "-e", "cycles", env={"PMUSCOPE_SYSFS": os.path.join(empty, "none")})
            self.assertEqual(r.returncode, 6)
            self.assertIn("not found: is the pmuscope module loaded", r.stderr)

    def test_snapshot_json_sample(self):
        lines = sample("snapshot-json").splitlines()
        self.assertEqual(len(lines), 2)
        snaps = [json.loads(line) for line in lines]
        self.assertEqual([s["seq"] for s in snaps], [0, 1])
        s = snaps[0]
        self.assertEqual(set(s), {"type", "seq", "time_s", "freq", "time", "skew", "skew_ns",
                                  "methods", "events", "cpus"})
        self.assertEqual((s["type"], s["freq"], s["time"], s["skew"], s["skew_ns"]),
                         ("snapshot", 62500000, 1000000, 16, 256))
        self.assertAlmostEqual(s["time_s"], 0.1)
        self.assertEqual(s["methods"], ["hardware", "software", "idle"])
        self.assertEqual([e["key"] for e in s["events"]], ["cycles", "instructions:u", "cycles#2"])
        self.assertEqual(s["events"][1], {"key": "instructions:u", "event": "INST_RETIRED",
                                          "number": 8, "label": "instructions",
                                          "modifiers": "u", "raw": False})
        self.assertEqual([c["cpu"] for c in s["cpus"]], [0, 1, 3])
        c = s["cpus"][1]
        self.assertEqual(set(c), {"cpu", "method", "time", "skew", "skew_ns", "frozen", "spread",
                                  "flags", "counts", "value_flags"})
        self.assertEqual((c["method"], c["time"], c["skew"], c["skew_ns"], c["frozen"],
                          c["spread"], c["flags"]),
                         ("software", 1000016, 16, 256, 12, 0, "late"))
        self.assertEqual(c["counts"], {"cycles": 2000, "instructions:u": 2001, "cycles#2": 2002})
        # The keys of counts in the order of the events.
        self.assertEqual(list(c["counts"]), [e["key"] for e in s["events"]])
        self.assertEqual(s["cpus"][0]["flags"], "")
        self.assertEqual(s["cpus"][2]["flags"], "offline")
        self.assertEqual(s["cpus"][2]["value_flags"]["instructions:u"],
                         ["multiplexed", "offline"])
        self.assertEqual(snaps[1]["cpus"][1]["counts"]["cycles"], 4000)

    def test_snapshot_csv_sample(self):
        text = sample("snapshot-csv")
        rows = list(csv.reader(io.StringIO(text)))
        self.assertEqual(rows[0], ["seq", "time_s", "cpu", "method", "time", "skew", "skew_ns",
                                   "frozen", "spread", "flags", "cycles", "instructions:u",
                                   "cycles#2"])
        self.assertTrue(all(len(r) == len(rows[0]) for r in rows))
        rows = list(csv.DictReader(io.StringIO(text)))
        self.assertEqual(len(rows), 6)             # 3 CPUs, 2 snapshots, one header
        self.assertEqual([(r["seq"], r["cpu"]) for r in rows],
                         [("0", "0"), ("0", "1"), ("0", "3"), ("1", "0"), ("1", "1"), ("1", "3")])
        r = rows[1]
        self.assertEqual((r["method"], r["time"], r["skew"], r["skew_ns"], r["frozen"],
                          r["flags"], r["cycles"], r["instructions:u"], r["cycles#2"]),
                         ("software", "1000016", "16", "256", "12", "late", "2000", "2001",
                          "2002"))
        self.assertEqual(rows[2]["flags"], "offline")

    def test_snapshot_table_sample(self):
        out = sample("snapshot-table")
        self.assertTrue(out.startswith(
            "snapshot at 1000000 ticks (62500000 Hz): skew 16 ticks (256 ns), "
            "methods: hardware (CPU 0), software (CPU 1), idle (CPU 3)\n\n"), out)
        self.assertEqual(len(re.findall(r"^CPU +METHOD +TIME +SKEW +SKEW_NS +FROZEN +SPREAD +"
                                        r"FLAGS +cycles +instructions:u +cycles#2$", out, re.M)),
                         2)

    def test_output_that_cannot_be_written_fails(self):
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root)
            with open("/dev/full", "w") as full:
                r = subprocess.run([CLI, "list", "--json"], stdout=full, stderr=subprocess.PIPE,
                                   text=True, env=dict(os.environ, PMUSCOPE_SYSFS=root),
                                   timeout=30)
            self.assertEqual(r.returncode, 1)
            self.assertIn("cannot write the output", r.stderr)

    def test_library_unit_tests(self):
        r = subprocess.run([os.path.join(BIN, "test_tools")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertRegex(r.stdout.splitlines()[-1], r"^\d+ passed, 0 failed$")


class SnapshotTest(unittest.TestCase):
    """pmuscope snapshot against fake_pmuscope.so, a stand-in for the
    driver: the counts follow its fixed rule (see fake_pmuscope.c)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "sysfs")
        self.log = os.path.join(self.tmp.name, "ioctls")

    def tearDown(self):
        self.tmp.cleanup()

    def run_fake(self, *args, env=None, **sysfs):
        """pmuscope snapshot ARGS on a new fake sysfs, with a new ioctl log."""
        shutil.rmtree(self.root, ignore_errors=True)
        if os.path.exists(self.log):
            os.unlink(self.log)
        fake_sysfs(self.root, **sysfs)
        e = {"PMUSCOPE_SYSFS": self.root, "LD_PRELOAD": FAKE, "FAKE_PMUSCOPE_LOG": self.log}
        e.update(env or {})
        return run("snapshot", *args, env=e)

    def ioctls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return f.read().splitlines()

    def test_json_one_object_per_snapshot(self):
        r = self.run_fake("-e", "cycles,instructions:u", "-n", "2", "-I", "10", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        snaps = [json.loads(line) for line in r.stdout.splitlines()]
        self.assertEqual(len(snaps), 2)
        s = snaps[0]
        self.assertEqual((s["freq"], s["time"], s["skew"], s["skew_ns"], s["methods"]),
                         (62500000, 1000000, 4, 64, ["hardware"]))
        self.assertEqual([c["cpu"] for c in s["cpus"]], [0, 1])
        self.assertEqual(s["cpus"][1], {
            "cpu": 1, "method": "hardware", "time": 1000004, "skew": 4, "skew_ns": 64,
            "frozen": 0, "spread": 0, "flags": "",
            "counts": {"cycles": 2000, "instructions:u": 2001},
            "value_flags": {"cycles": [], "instructions:u": []}})
        self.assertEqual(snaps[1]["cpus"][0]["counts"], {"cycles": 2000, "instructions:u": 2001})
        self.assertEqual(snaps[1]["time"], 1001000)
        self.assertGreaterEqual(snaps[1]["time_s"], 0.02)
        log = self.ioctls()
        self.assertEqual(log[:3], ["config nr_events=2", "reset", "enable"])
        self.assertEqual(log[3:], [
            "snapshot flags=0 lead_us=0 nr_values=4 nr_cpus=2 value_size=40 cpu_size=48"] * 2 +
            ["disable"])

    def test_software_lead_and_cpus(self):
        r = self.run_fake("-C", "1", "-e", "cycles", "--software", "--lead", "250", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        s = json.loads(r.stdout)
        self.assertEqual(s["methods"], ["software"])
        self.assertEqual([(c["cpu"], c["method"], c["frozen"]) for c in s["cpus"]],
                         [(1, "software", 3)])
        self.assertIn("snapshot flags=1 lead_us=250 nr_values=1 nr_cpus=1", "\n".join(self.ioctls()))
        r = self.run_fake("-C", "0", "-e", "cycles", "--hardware", "--lead", "2000",
                          snapshot_hw={0: "ready"})
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("snapshot flags=2 lead_us=2000", "\n".join(self.ioctls()))

    def test_default_events_and_interval(self):
        t0 = time.monotonic()
        r = self.run_fake("--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreaterEqual(time.monotonic() - t0, 0.1)
        s = json.loads(r.stdout)
        # The Cortex-A53 has no STALL_* events.
        self.assertEqual([e["key"] for e in s["events"]],
                         ["cycles", "instructions", "L1D_CACHE_REFILL", "L1D_CACHE",
                          "BR_MIS_PRED"])
        self.assertGreaterEqual(s["time_s"], 0.1)

    def test_csv_and_table(self):
        r = self.run_fake("-e", "cycles,cycles:u", "-n", "2", "-I", "10", "--csv")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual([(x["seq"], x["cpu"], x["cycles"], x["cycles:u"]) for x in rows],
                         [("0", "0", "1000", "1001"), ("0", "1", "2000", "2001"),
                          ("1", "0", "2000", "2001"), ("1", "1", "4000", "4001")])
        r = self.run_fake("-e", "cycles")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[0], "snapshot at 1000000 ticks (62500000 Hz): skew 4 ticks "
                                   "(64 ns), methods: hardware")
        self.assertRegex(lines[2], r"^CPU +METHOD +TIME +SKEW +SKEW_NS +FROZEN +SPREAD +FLAGS "
                                   r"+cycles$")
        self.assertRegex(lines[4], r"^1 +hardware +1000004 +4 +64 +0 +0 +- +2,000$")

    def test_hardware_refused_names_the_cpus(self):
        r = self.run_fake("--hardware", "-e", "cycles", snapshot_hw={0: "ready", 1: "off"})
        self.assertEqual(r.returncode, 3)
        self.assertIn("pmuscope: hardware snapshot refused: cpu1: hardware snapshot off",
                      r.stderr)
        self.assertNotIn("cpu0", r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(self.ioctls(), [])        # refused before counting
        r = self.run_fake("--hardware", "--json", snapshot_hw={0: "under-el2", 1: "stale"})
        self.assertEqual(r.returncode, 3)
        self.assertIn("cpu0: hardware snapshot under-el2, cpu1: hardware snapshot stale",
                      r.stderr)
        # Refused by the driver, every CPU's state usable: counted by perf.
        r = self.run_fake("--hardware", "-e", "cycles", snapshot_hw={0: "ready", 1: "untried"},
                          env={"FAKE_PMUSCOPE_SNAP_ERRNO": "95"})
        self.assertEqual(r.returncode, 3)
        self.assertIn("hardware snapshot refused: the session counts through perf events",
                      r.stderr)
        # Refused by the driver after the check: the state that says why.
        r = self.run_fake("--hardware", "-e", "cycles", "-C", "1",
                          snapshot_hw={1: "timeout"}, env={"FAKE_PMUSCOPE_FEATURES": "0x201"})
        self.assertEqual(r.returncode, 3)
        self.assertIn("cpu1: hardware snapshot timeout", r.stderr)
        # --software never asks about the hardware.
        r = self.run_fake("--software", "-e", "cycles", snapshot_hw={0: "off", 1: "absent"})
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_driver_without_snapshots(self):
        r = self.run_fake("-e", "cycles", env={"FAKE_PMUSCOPE_FEATURES": "0x1"})
        self.assertEqual(r.returncode, 3)
        self.assertIn("the driver takes no snapshots", r.stderr)

    def test_emulated_banner_keeps_json_valid(self):
        r = self.run_fake("-e", "cycles", "--json", emulated=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("pmuscope: EMULATED CPU (pmuscope_emu.ko, register model profile "
                      "cortex-a53): not hardware", r.stderr)
        json.loads(r.stdout)

    def test_sigint_ends_the_run_between_snapshots(self):
        fake_sysfs(self.root)
        env = dict(os.environ, PMUSCOPE_SYSFS=self.root, LD_PRELOAD=FAKE,
                   FAKE_PMUSCOPE_LOG=self.log)
        p = subprocess.Popen([CLI, "snapshot", "-e", "cycles", "-n", "1000", "-I", "100",
                              "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env)
        # After the first snapshot: pmuscope waits for the next one.
        first = p.stdout.readline()
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 0, err)
        self.assertLess(time.monotonic() - t0, 5)
        snaps = [json.loads(line) for line in (first + out).splitlines()]
        self.assertTrue(1 <= len(snaps) < 1000, len(snaps))
        self.assertEqual(self.ioctls()[-1], "disable")

    def test_help(self):
        r = run("snapshot", "--help")
        self.assertEqual(r.returncode, 0)
        for opt in ("-e EVENT", "-C CPUS | -a", "-I MS", "-n COUNT", "--software | --hardware",
                    "--lead US", "--json | --csv"):
            self.assertIn(opt, r.stdout)
        self.assertIn("snapshot", run("--help").stdout)


def read_chunks(path):
    """(header fields, [(type, payload)]) of a record file, read as
    Documentation/cli.rst lays it out."""
    with open(path, "rb") as f:
        data = f.read()
    (magic, version, header_size, freq, start, nr, kernel_el, period_ms, sample_index,
     sample_period, argc, cmdline_size) = struct.unpack_from("<8sIIQQIIIIQII", data)
    hdr = {"magic": magic, "version": version, "freq": freq, "nr_events": nr,
           "period_ms": period_ms, "sample_index": sample_index,
           "sample_period": sample_period,
           "events": [struct.unpack_from("<II40s", data, 64 + 96 * i)[2].rstrip(b"\0").decode()
                      for i in range(nr)],
           "argv": data[64 + 96 * nr:64 + 96 * nr + cmdline_size].split(b"\0")[:argc]}
    chunks, off = [], header_size
    while off < len(data):
        kind, size = struct.unpack_from("<II", data, off)
        chunks.append((kind, data[off + 8:off + size]))
        off += size
    return hdr, chunks


class RecordTest(unittest.TestCase):
    """pmuscope record against fake_pmuscope.so (its stream: see
    fake_pmuscope.c), its commands traced for real."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "sysfs")
        self.log = os.path.join(self.tmp.name, "ioctls")
        self.data = os.path.join(self.tmp.name, "out.data")
        fake_sysfs(self.root)
        self.env = {"PMUSCOPE_SYSFS": self.root, "LD_PRELOAD": FAKE,
                    "FAKE_PMUSCOPE_LOG": self.log}

    def tearDown(self):
        self.tmp.cleanup()

    def ioctls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return f.read().splitlines()

    def record(self, *args, env=None):
        e = dict(self.env)
        e.update(env or {})
        return run("record", "-o", self.data, *args, env=e)

    def test_command_tree_maps_and_exit_status(self):
        r = self.record("-c", "5000", "--", "sh", "-c", "/bin/true; sh -c 'exit 0'; exit 3")
        self.assertEqual(r.returncode, 3, r.stderr)
        m = re.search(r"^pmuscope record: (\d+) samples, 5 lost, written to (.*)$", r.stderr, re.M)
        self.assertTrue(m, r.stderr)
        self.assertEqual(m[2], self.data)
        self.assertIn("sampling throttled 1 times", r.stderr)
        self.assertEqual(self.ioctls(), [
            "config nr_events=2",
            "stream period_ms=0 sample_index=0 sample_period=5000 ring_kib=0",
            "reset", "enable", "disable"])
        hdr, chunks = read_chunks(self.data)
        self.assertEqual((hdr["magic"], hdr["version"], hdr["events"], hdr["sample_period"],
                          hdr["sample_index"]),
                         (b"PMUSDATA", 1, ["CPU_CYCLES", "INST_RETIRED"], 5000, 0))
        self.assertEqual(hdr["argv"][:4], [b"pmuscope", b"record", b"-o", self.data.encode()])
        kinds = [k for k, _ in chunks]
        self.assertEqual(kinds[-1], 5)                              # END last
        samples = struct.unpack_from("<QQQQ", chunks[-1][1])
        self.assertEqual(samples[1:], (int(m[1]), 5, 1))
        maps = [(struct.unpack_from("<IIQII", p), p[24:]) for k, p in chunks if k == 2]
        execs = {pid: text for (pid, reason, _t, _n, _r), text in maps if reason == 1}
        exits = {pid for (pid, reason, _t, _n, _r), _ in maps if reason == 2}
        # sh, true and the inner sh: each exec'd, each process's exit maps.
        self.assertEqual(len(execs), 3, [t[:80] for t in execs.values()])
        self.assertTrue(any(b"/true" in t for t in execs.values()))
        self.assertLessEqual(set(execs), exits)
        comms = {struct.unpack_from("<II", p)[0]: p[16:32].rstrip(b"\0") for k, p in chunks
                 if k == 3}
        self.assertIn(b"true", comms.values())
        ends = {struct.unpack_from("<I", p)[0]: struct.unpack_from("<i", p, 16)[0]
                for k, p in chunks if k == 4}
        self.assertEqual(sorted(ends.values()), [0, 0, 3])
        # The stand-in's samples are pmuscope's own, at libc's getpid(): its
        # maps were taken at the end, and the report finds the function.
        self.assertIn(2, kinds)
        j = run("report", "-i", self.data, "--json")
        self.assertEqual(j.returncode, 0, j.stderr)
        out = json.loads(j.stdout)
        self.assertEqual((out["lost"], out["throttled"], out["samples"]),
                         (5, 1, int(m[1])))
        top = out["entries"][0]
        self.assertEqual((top["comm"], top["overhead"]), ("pmuscope", 100.0))
        self.assertIn("getpid", top["symbol"])
        self.assertTrue(top["object"].startswith("libc"), top)
        self.assertAlmostEqual(top["metrics"]["ipc"], 2.0)

    def test_command_that_cannot_run(self):
        r = self.record("--", os.path.join(self.tmp.name, "nosuch"))
        self.assertEqual(r.returncode, 127, r.stderr)
        self.assertIn("cannot run", r.stderr)
        self.assertIn("written to", r.stderr)

    def test_until_sigint_time_based(self):
        e = dict(os.environ, **self.env)
        p = subprocess.Popen([CLI, "record", "-a", "-F", "100", "-e", "cycles", "-m", "64",
                              "-o", self.data], stderr=subprocess.PIPE, text=True, env=e)
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 0, err)
        self.assertRegex(err, r"pmuscope record: [1-9]\d* samples, 5 lost, written to ")
        self.assertEqual(self.ioctls()[:2], [
            "config nr_events=1",
            "stream period_ms=10 sample_index=4294967295 sample_period=0 ring_kib=64"])
        self.assertEqual(self.ioctls()[-1], "disable")
        hdr, chunks = read_chunks(self.data)
        self.assertEqual((hdr["period_ms"], hdr["sample_index"]), (10, 0xFFFFFFFF))
        # Samples of pmuscope itself, still there: its maps taken at the end.
        maps = [struct.unpack_from("<II", p) for k, p in chunks if k == 2]
        self.assertEqual([reason for _pid, reason in maps], [3])
        j = json.loads(run("report", "-i", self.data, "--json").stdout)
        self.assertEqual((j["sample_event"], j["period_ms"]), (None, 10))

    def test_errors(self):
        cases = [
            (("-c", "999"), 2, "-c needs 1000 to 2147483648 events"),
            (("-c", "1000", "-F", "10"), 2, "-c and -F exclude each other"),
            (("-F", "0"), 2, "-F needs 1 to 1000 samples a second"),
            (("-F", "1001"), 2, "-F needs 1 to 1000"),
            (("-m", "6"), 2, "-m needs a power of 2 from 4 to 16384 KiB"),
            (("-a", "-C", "0"), 2, "-C and -a exclude each other"),
            (("-e", "nosuch"), 2, "unknown event 'nosuch'"),
            (("--bogus",), 2, "usage: pmuscope record"),
            (("-C", "7", "--", "true"), 1, "cpu7 does not exist"),
        ]
        for args, code, msg in cases:
            r = self.record(*args)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)
        r = self.record("--", "true", env={"FAKE_PMUSCOPE_FEATURES": "0x1"})
        self.assertEqual(r.returncode, 3)
        self.assertIn("the driver has no streams", r.stderr)
        r = self.record("--", "true", env={"FAKE_PMUSCOPE_STREAM_ERRNO": "95"})
        self.assertEqual(r.returncode, 3)
        self.assertIn("stream refused", r.stderr)
        r = run("record", "-o", os.path.join(self.tmp.name, "no", "dir", "x.data"), "--",
                "true", env=self.env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot write", r.stderr)
        r = run("record", "--help")
        self.assertEqual(r.returncode, 0)
        for opt in ("-e EVENT", "-c N | -F HZ", "-C CPUS | -a", "-m KIB", "-o FILE",
                    "-- CMD"):
            self.assertIn(opt, r.stdout)
        if not os.path.exists("/dev/pmuscope"):
            r = run("record", "--", "true", env={"PMUSCOPE_SYSFS": self.root})
            self.assertEqual(r.returncode, 6)
            self.assertIn("is the pmuscope module loaded", r.stderr)


class SpeTest(unittest.TestCase):
    """pmuscope spe record, report and dump against fake_pmuscope.so (its
    SPE chunks: see fake_pmuscope.c: 3 records in 4 at PC 0x400100)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.log = os.path.join(self.tmp.name, "ioctls")
        self.data = os.path.join(self.tmp.name, "spe.data")
        self.env = {"PMUSCOPE_SYSFS": os.path.join(self.tmp.name, "nosysfs"),
                    "LD_PRELOAD": FAKE, "FAKE_PMUSCOPE_LOG": self.log}

    def tearDown(self):
        self.tmp.cleanup()

    def spe(self, *args, env=None):
        e = dict(self.env)
        e.update(env or {})
        return run("spe", *args, env=e)

    def record(self, *args, env=None):
        return self.spe("record", "-o", self.data, *args, env=env)

    def test_record_report_hot_pc_and_accounting(self):
        r = self.record("-C", "0-1", "-d", "1", "--el0", "--interval", "1024")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("SPE source: kernel", r.stderr)
        self.assertRegex(r.stderr, r"cpu0: stopped, \d+ bytes, lost 0 bytes \(ring full\)")
        self.assertRegex(r.stderr, r"cpu1: stopped, \d+ bytes, lost 128 bytes \(ring full\)")
        self.assertIn("WARNING: data is missing: 128 bytes lost", r.stderr)
        with open(self.log) as f:
            self.assertIn("spe_start flags=0x1 cpus_size=8 ops=0x0 interval=1024 min_latency=0",
                          f.read())
        r = self.spe("report", "-i", self.data, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = json.loads(r.stdout)
        self.assertEqual(rep["source"], "kernel")
        self.assertGreater(rep["records"], 0)
        self.assertEqual(rep["records"] % 16, 0)
        self.assertEqual(rep["loads"], rep["records"])
        self.assertEqual(rep["hot_pcs"][0]["pc"], "0x400100")
        self.assertEqual(rep["hot_pcs"][0]["el"], 0)
        self.assertEqual(rep["hot_pcs"][0]["samples"] * 4, rep["records"] * 3)
        self.assertEqual(rep["lost_bytes"], 128)
        self.assertEqual(rep["chunk_flags"]["lost"], 1)
        self.assertEqual(rep["chunk_flags"]["final"], 2)
        self.assertEqual(sum(b["count"] for b in rep["load_latency"]["buckets"]),
                         rep["records"])
        self.assertEqual(rep["load_latency"]["max"], 150)
        self.assertEqual(rep["events"]["L1D-REFILL"]["loads"] * 4, rep["records"])
        self.assertEqual(sorted(d["source"] for d in rep["data_source"]), [0, 8])
        r = self.spe("report", "-i", self.data, "--top", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        pcs = re.findall(r"^\s+\d+\s+[\d.]+% el\d\s+(0x[0-9a-f]+)", r.stdout, re.M)
        self.assertEqual(len(pcs), 2, r.stdout)
        self.assertEqual(pcs[0], "0x0000000000400100")
        self.assertIn("75.00% el0  0x0000000000400100", r.stdout)
        self.assertIn("Load latency (total, cycles)", r.stdout)

    def test_dump_like_perf(self):
        r = self.record("-C", "0", "-d", "1", "--el0", "--ts")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.spe("dump", "-i", self.data)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(". chunk 0: cpu 0,", r.stdout)
        self.assertRegex(r.stdout, r"\. \.\.\. ARM SPE data: size 0x[0-9a-f]+ bytes")
        self.assertIn(".  00000000:  b0 00 01 40 00 00 00 00 00"
                      "                      PC 0x400100 el0 ns=0", r.stdout)
        self.assertIn("LD GP-REG", r.stdout)
        self.assertIn("EV RETIRED L1D-ACCESS L1D-REFILL LLC-ACCESS", r.stdout)
        self.assertIn("LAT 10 TOT", r.stdout)
        self.assertRegex(r.stdout, r"TS \d+")
        self.assertNotIn("Bad packet", r.stdout)

    def test_command_pid_and_context(self):
        r = self.record("-C", "0", "--cx", "--", "sh", "-c", "sleep 0.2; exit 7",
                        env={"FAKE_PMUSCOPE_SPE_PID": "4242"})
        self.assertEqual(r.returncode, 7, r.stderr)
        r = self.spe("report", "-i", self.data, "--pid", "4242", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = json.loads(r.stdout)
        self.assertTrue(rep["pid_filter"])
        self.assertGreater(rep["records"], 0)
        self.assertEqual(rep["filtered_out"], 0)
        r = self.spe("report", "-i", self.data, "--pid", "4243", "--json")
        rep = json.loads(r.stdout)
        self.assertEqual(rep["records"], 0)
        self.assertGreater(rep["filtered_out"], 0)
        # No Context packets: said, and --pid cannot be honoured.
        r = self.record("-C", "0", "-d", "1", "--el0")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.spe("report", "-i", self.data, "--pid", "4242")
        self.assertEqual(r.returncode, 3)
        self.assertIn("NOT restricted to pid 4242: the data has no Context packets", r.stdout)

    def test_refusals_and_exit_codes(self):
        cases = [
            ({"FAKE_PMUSCOPE_SPE_ERRNO": "95"}, 3,
             "no CPU asked for has a usable Statistical Profiling Extension"),
            ({"FAKE_PMUSCOPE_FEATURES": "0x1"}, 3, "no PMUSCOPE_FEAT_SPE"),
            ({"FAKE_PMUSCOPE_SPE_ERRNO": "16"}, 4, "another session profiles a CPU"),
            ({"FAKE_PMUSCOPE_SPE_ERRNO": "1"}, 5, "needs CAP_PERFMON or CAP_SYS_ADMIN"),
        ]
        for env, code, msg in cases:
            r = self.record("-C", "0", "-d", "1", "--el0", env=env)
            self.assertEqual(r.returncode, code, (env, r.stderr))
            self.assertIn(msg, r.stderr, env)
            self.assertIn("kernel", r.stderr)
        bad = [
            (("--interval", "100"), "--interval needs a multiple of 256"),
            (("--filter", "loads"), "--filter takes load, store, branch"),
            (("--min-latency", "70000"), "--min-latency needs cycles"),
            (("-m", "48"), "-m needs a power of 2"),
            (("-C", "0", "-a"), "-C and -a exclude each other"),
            (("-d", "1", "--", "true"), "-d and a command"),
            (("--bogus",), "usage: pmuscope spe record"),
        ]
        for args, msg in bad:
            r = self.record(*args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)
        r = self.spe("frobnicate")
        self.assertEqual(r.returncode, 2)
        r = run("spe", "--help")
        self.assertEqual(r.returncode, 0)
        for opt in ("spe record", "spe report", "spe dump", "--filter", "--min-latency",
                    "--cx", "--top"):
            self.assertIn(opt, r.stdout)
        if not os.path.exists("/dev/pmuscope"):
            r = run("spe", "record", "-C", "0", "-d", "1", "-o", self.data)
            self.assertEqual(r.returncode, 6)
            self.assertIn("is the pmuscope module loaded", r.stderr)

    def test_corrupt_files_rejected(self):
        r = self.record("-C", "0", "-d", "1", "--el0")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.data, "rb") as f:
            good = f.read()
        bad = os.path.join(self.tmp.name, "bad.data")
        for blob, msg in ((good[:-5], "cut short or corrupt"),
                          (b"PMUSDATA" + good[8:], "not a pmuscope SPE file"),
                          (good[:40], "shorter than the 96-byte header")):
            with open(bad, "wb") as f:
                f.write(blob)
            for cmd in ("report", "dump"):
                r = self.spe(cmd, "-i", bad)
                self.assertEqual(r.returncode, 1, (cmd, msg))
                self.assertIn(msg, r.stderr)
        r = self.spe("report", "-i", os.path.join(self.tmp.name, "none"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot open", r.stderr)


if __name__ == "__main__":
    unittest.main()
