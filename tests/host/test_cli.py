# SPDX-License-Identifier: GPL-2.0
"""Host tests of the pmuscope CLI: JSON checked by Python's json parser, CSV
by its csv reader, list/read against a fake sysfs tree, and the messages
and exit codes of bad input; snapshot's whole path against a stand-in for
/dev/pmuscope (tests/tools/fake_pmuscope.c, preloaded), and so record, spe
and export (its metrics through a strict parser of the exposition formats,
its HTTP server, its textfile, promtool and a Prometheus server where
installed). Needs tools/build/host (make -C tools host)."""

import csv
import io
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest

TOP = os.path.join(os.path.dirname(__file__), "..", "..")
BIN = os.path.join(TOP, "tools", "build", "host")
CLI = os.path.join(BIN, "pmuscope")
FAKE = os.path.abspath(os.path.join(BIN, "fake_pmuscope.so"))


def run(*args, env=None, user=None):
    e = dict(os.environ)
    e.update(env or {})
    ids = {"user": user, "group": user} if user is not None else {}
    return subprocess.run([CLI, *args], capture_output=True, text=True, env=e,
                          timeout=30, **ids)


def root_only(root):
    """Make the fake sysfs what the driver's is to a user: counter_owner/
    and counter_value/ root only (0400), the rest readable by all. Returns
    the user to run the CLI as so that those files cannot be opened: nobody
    when this runs as root, else the files get mode 0 (their owner runs)."""
    for d, _, files in os.walk(root):
        os.chmod(d, 0o755)
        for name in files:
            os.chmod(os.path.join(d, name), 0o644)
    for d, _, files in os.walk(root):
        if os.path.basename(d) in ("counter_owner", "counter_value"):
            for name in files:
                os.chmod(os.path.join(d, name), 0o400 if os.geteuid() == 0 else 0)
    return NOBODY if os.geteuid() == 0 else None


def sample(fmt):
    return subprocess.run([os.path.join(BIN, "test_tools"), "--sample", fmt],
                          capture_output=True, text=True, check=True).stdout


def fake_sysfs(root, owners=None, snapshot_hw=None, emulated=False, backend=None, amu=None):
    """/sys/kernel/pmuscope of a 2-CPU Cortex-A53 (AM62L); snapshot_hw:
    {cpu: state} for the cpuN/snapshot_hw files; backend: the backend
    file's value (none written by default); amu: {cpu: word} for cpuN/amu."""
    for cpu, word in (amu or {}).items():
        os.makedirs(os.path.join(root, f"cpu{cpu}"), exist_ok=True)
        with open(os.path.join(root, f"cpu{cpu}", "amu"), "w") as f:
            f.write(word + "\n")
    if backend:
        os.makedirs(root, exist_ok=True)
        with open(os.path.join(root, "backend"), "w") as f:
            f.write(backend + "\n")
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
                 "pmceid0": "0x0000000067ffbfff", "pmceid1": "0x0000000000000000",
                 "midr": "0x410fd034"}
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
            self.assertTrue(all(e["pmceid"] for e in names.values()))
            # the A53's table (perf's JSON): what PMCEID cannot confirm
            self.assertEqual((types[0]["core"], types[0]["midr"]), ("arm/cortex-a53", "0x410fd034"))
            core = {e["name"]: e for e in types[0]["core_events"]}
            self.assertEqual(len(core), 30)
            self.assertEqual((core["LD_DEP_STALL"]["number"], core["LD_DEP_STALL"]["pmceid"]),
                             (0xe7, False))
            self.assertEqual(core["PREFETCH_LINEFILL"]["description"],
                             "Linefill because of prefetch")
            r = run("list", env={"PMUSCOPE_SYSFS": root})
            self.assertIn("cortex-a53 (CPUs 0-1): PMUv3, 6 event counters of 32 bits", r.stdout)
            self.assertIn("Level 1 data cache refill", r.stdout)
            self.assertIn("arm/cortex-a53: events PMCEID cannot confirm", r.stdout)
            self.assertRegex(r.stdout, r"\n  LD_DEP_STALL +0x00e7\* Cycles there is a stall")
            self.assertEqual(len(re.findall(r"(?m)^  [A-Z0-9_]+ +0x[0-9a-f]{4}\* ", r.stdout)), 30)
            # the bash completion offers them after -e (it reads list --json)
            comp = os.path.join(root, "completion")
            subprocess.run([sys.executable, os.path.join(TOP, "scripts", "gen-completion.py"),
                            "--out", comp], check=True, capture_output=True)
            r = subprocess.run(["bash", "-c", '. "$1"; _pmuscope_event_names "$2"', "bash",
                                comp, CLI], capture_output=True, text=True,
                               env=dict(os.environ, PMUSCOPE_SYSFS=root))
            offered = r.stdout.split()
            self.assertIn("LD_DEP_STALL", offered)
            self.assertIn("cycles", offered)
            self.assertEqual(len(offered), 27 + 30 + 11, offered)
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root)
            for cpu in (0, 1):      # a MIDR without a table: the common events only
                with open(os.path.join(root, f"cpu{cpu}", "midr"), "w") as f:
                    f.write("0x410fd0f1\n")
            r = run("list", "--json", env={"PMUSCOPE_SYSFS": root})
            t = json.loads(r.stdout)["cpu_types"][0]
            self.assertEqual((t["core"], t["core_events"], len(t["events"])), (None, [], 27))
            r = run("list", env={"PMUSCOPE_SYSFS": root})
            self.assertIn("no table for MIDR 0x410fd0f1", r.stdout)
            self.assertNotIn("0x00e7", r.stdout)
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root)
            for cpu in (0, 1):      # eMAG: its own names for common numbers
                with open(os.path.join(root, f"cpu{cpu}", "midr"), "w") as f:
                    f.write("0x500f0000\n")
            r = run("list", "--json", env={"PMUSCOPE_SYSFS": root})
            t = json.loads(r.stdout)["cpu_types"][0]
            core = {e["name"]: e["number"] for e in t["core_events"]}
            self.assertEqual(t["core"], "ampere/emag")
            # listed, as the library and select take them; CPU_CYCLES is not
            self.assertEqual((core.get("L2D_TLB_ACCESS"), core.get("L2I_TLB_ACCESS")),
                             (0x34, 0x35))
            self.assertNotIn("CPU_CYCLES", core)

    def test_core_event_on_the_chosen_cpus(self):
        # CPU 0 a Cortex-A53, CPU 1 a Cortex-A72: LD_DEP_STALL is the A53's
        # 0xe7 only; -e before or after -C, resolved on the chosen CPUs
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root)
            with open(os.path.join(root, "cpu1", "midr"), "w") as f:
                f.write("0x410fd080\n")
            env = {"PMUSCOPE_SYSFS": root}
            msg = ("event 'LD_DEP_STALL' is not an event of the core of CPU 1: "
                   "count it on those of CPU 0 (-C 0)")
            for args in (("-C", "0", "-e", "LD_DEP_STALL"), ("-e", "ld_dep_stall", "-C", "0")):
                r = run("stat", *args, "--", "true", env=env)
                # past the events: no device here
                self.assertIn("/dev/pmuscope not found", r.stderr, args)
                self.assertNotEqual(r.returncode, 2, args)
            for args in (("-C", "1", "-e", "LD_DEP_STALL"), ("-e", "LD_DEP_STALL", "-C", "1"),
                         ("-a", "-e", "LD_DEP_STALL"), ("-e", "LD_DEP_STALL")):
                r = run("stat", *args, "--", "true", env=env)
                self.assertEqual((r.returncode, r.stderr.strip()), (2, "pmuscope: " + msg), args)

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

    def test_read_not_root_says_why(self):
        # The owners and values are root only: no empty listing with exit
        # 0 but exit 5 and why, on stderr, stdout empty.
        held = {(1, "cycle"): ("session 3 (pid 9, profd)", "CPU_CYCLES:uk", 12345)}
        for args in (("read",), ("read", "--json")):
            with tempfile.TemporaryDirectory() as root:
                fake_sysfs(root, held, backend="direct")
                user = root_only(root)
                r = run(*args, env={"PMUSCOPE_SYSFS": root}, user=user)
                self.assertEqual(r.returncode, 5, (args, r.stdout, r.stderr))
                self.assertEqual(r.stdout, "", args)
                self.assertEqual(r.stderr, "pmuscope: permission denied: who holds the counters "
                                 f"and their values ({root}/cpuN/counter_owner/ and "
                                 "counter_value/) can be read by root only (mode 0400): "
                                 "run pmuscope read as root\n", args)
                # The same tree, readable: the holder is listed, exit 0.
                r = run(*args, env={"PMUSCOPE_SYSFS": root})
                self.assertEqual(r.returncode, 0, (args, r.stderr))
                self.assertIn("session 3 (pid 9, profd)", r.stdout, args)
                self.assertEqual(r.stderr, "", args)

    def test_read_perf_backend_says_why(self):
        # perf backend: /dev/pmuscope sessions' counters are perf events
        # that sysfs does not show; the sysfs session's are listed, exit 3.
        why = ("pmuscope: backend perf: /dev/pmuscope sessions count with perf events, "
               "whose counters sysfs does not show: ")
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root, backend="perf")
            r = run("read", "--json", env={"PMUSCOPE_SYSFS": root})
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertEqual(json.loads(r.stdout), {"counters": []})
            self.assertEqual(r.stderr, why + "nothing listed (the sysfs session, "
                             "cpuN/select, counts nothing)\n")
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root, {(0, "cycle"): ("sysfs", "CPU_CYCLES:uk", 77)}, backend="perf")
            r = run("read", env={"PMUSCOPE_SYSFS": root})
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertRegex(r.stdout, r"\n0 +cycle +sysfs +CPU_CYCLES:uk +77\n")
            self.assertEqual(r.stderr, why + "listed are the sysfs session's "
                             "(cpuN/select) alone\n")
            # Not root on the perf backend: permission first.
            user = root_only(root)
            r = run("read", env={"PMUSCOPE_SYSFS": root}, user=user)
            self.assertEqual(r.returncode, 5, r.stderr)
            self.assertIn("can be read by root only", r.stderr)
        # The direct backend: nothing held is an empty listing, exit 0.
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root, backend="direct")
            r = run("read", "--json", env={"PMUSCOPE_SYSFS": root})
            self.assertEqual((r.returncode, r.stderr), (0, ""))
            self.assertEqual(json.loads(r.stdout), {"counters": []})

    def test_json_escapes_what_sysfs_says(self):
        owner = 'session 3 (pid 9, a"b\\c\u00e9)'
        with tempfile.TemporaryDirectory() as root:
            fake_sysfs(root, {(0, "2"): (owner, "CPU_CYCLES:uk", 7),
                              (1, "3"): ("sysfs", "SW_INCR:k", None)})
            r = run("read", "--json", env={"PMUSCOPE_SYSFS": root})
            self.assertEqual(r.returncode, 0, r.stderr)
            rows = json.loads(r.stdout)["counters"]
            self.assertEqual(rows[0]["owner"], owner)
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
                (("snapshot", "-e", "LD_DEP_STAL"), 2, "did you mean LD_DEP_STALL"),
                (("stat", "-e", "L1D_CACHE_REFILL_OUTER"), 2, "not of this machine's CPUs"),
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

    @unittest.skipUnless(shutil.which("g++"), "no g++")
    def test_cplusplus_program_links(self):
        # pmuscope.h's extern "C": a C++ program links against the static
        # and the shared library (its soname, libpmuscope.so.0, beside it).
        src = os.path.join(TOP, "tests", "tools", "cplusplus.cc")
        inc = ["-I" + os.path.join(TOP, "include", "uapi"),
               "-I" + os.path.join(TOP, "tools", "lib")]
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(os.path.join(BIN, "libpmuscope.so"), os.path.join(d, "libpmuscope.so.0"))
            for name, lib in (("static", [os.path.join(BIN, "libpmuscope.a")]),
                              ("shared", [os.path.join(d, "libpmuscope.so.0")])):
                exe = os.path.join(d, name)
                r = subprocess.run(["g++", "-std=gnu++11", "-Wall", "-Wextra", "-Werror", *inc,
                                    "-o", exe, src, *lib], capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, (name, r.stderr))
                r = subprocess.run([exe], capture_output=True, text=True, timeout=30,
                                   env=dict(os.environ, LD_LIBRARY_PATH=d))
                self.assertEqual((r.returncode, r.stdout), (0, "ok\n"), name)


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

    def test_core_event_name(self):
        r = self.run_fake("-e", "ld_dep_stall:u,cycles", "-n", "1", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        ev = json.loads(r.stdout.splitlines()[0])["events"][0]
        self.assertEqual((ev["event"], ev["number"], ev["raw"], ev["modifiers"]),
                         ("LD_DEP_STALL", 0xe7, True, "u"))

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


def command_cannot_run(d):
    """[(command, the shell's exit status)] of commands in @d that cannot
    run: 127 for one not found (ENOENT), 126 for one found but not
    executable (EACCES: a file without x, a directory)."""
    script = os.path.join(d, "not-executable")
    with open(script, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(script, 0o644)
    return [(os.path.join(d, "nosuch"), 127), (script, 126), (d, 126)]


def read_chunks(path):
    """(header fields, [(type, payload)]) of a record file, read as
    Documentation/cli.rst lays it out."""
    with open(path, "rb") as f:
        data = f.read()
    (magic, version, header_size, freq, start, nr, kernel_el, period_ms, sample_index,
     sample_period, argc, cmdline_size) = struct.unpack_from("<8sIIQQIIIIQII", data)
    # Version 2 appends flags, max_stack and 16 reserved bytes.
    flags, max_stack, res0, res1 = (struct.unpack_from("<IIQQ", data, 64) if version >= 2
                                    else (0, 0, 0, 0))
    hs = 88 if version >= 2 else 64
    hdr = {"magic": magic, "version": version, "freq": freq, "nr_events": nr,
           "period_ms": period_ms, "sample_index": sample_index,
           "sample_period": sample_period, "flags": flags, "max_stack": max_stack,
           "reserved": (res0, res1),
           "events": [struct.unpack_from("<II40s", data, hs + 96 * i)[2].rstrip(b"\0").decode()
                      for i in range(nr)],
           "argv": data[hs + 96 * nr:hs + 96 * nr + cmdline_size].split(b"\0")[:argc]}
    chunks, off = [], header_size
    while off < len(data):
        kind, size = struct.unpack_from("<II", data, off)
        chunks.append((kind, data[off + 8:off + size]))
        off += size
    return hdr, chunks


def read_records(payload):
    """The records of a RECORDS chunk: dicts of the fields, "counts" and,
    with PMUSCOPE_REC_F_CHAIN (4), "chain": (flags, kernel ips, user ips)."""
    out, off = [], 0
    while off < len(payload):
        (kind, size, cpu, t, pid, tid, pc, value, flags, nr) = struct.unpack_from(
            "<HHIQIIQQII", payload, off)
        rec = {"type": kind, "size": size, "pid": pid, "tid": tid, "pc": pc, "flags": flags,
               "counts": struct.unpack_from(f"<{nr}Q", payload, off + 48)}
        if flags & 4:
            at = off + 48 + 8 * nr
            version, csize, nk, nu, cflags = struct.unpack_from("<HHHHI", payload, at)
            ips = struct.unpack_from(f"<{nk + nu}Q", payload, at + csize)
            rec["chain"] = (version, cflags, ips[:nk], ips[nk:])
        out.append(rec)
        off += size
    return out


def rec_samples(chunks):
    """The SAMPLE records of a record file's chunks."""
    return [r for k, p in chunks if k == 1 for r in read_records(p) if r["type"] == 1]


FEAT_PMU, FEAT_BACKEND_PERF, FEAT_TASK, FEAT_STREAM = 1 << 0, 1 << 6, 1 << 7, 1 << 11
FEAT_STREAM_TASK, FEAT_CALLCHAIN = 1 << 15, 1 << 16
TASKS = FEAT_PMU | FEAT_TASK | FEAT_STREAM | FEAT_STREAM_TASK


class RecordTaskTest(unittest.TestCase):
    """pmuscope record per task (the command, -p, -t) and with call chains
    (-g) against fake_pmuscope.so of API 7's features: its task sessions'
    samples carry the task's pid and no counts, its chains the user PC and
    two return addresses (see fake_pmuscope.c)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "sysfs")
        self.log = os.path.join(self.tmp.name, "ioctls")
        self.data = os.path.join(self.tmp.name, "out.data")
        fake_sysfs(self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def record(self, *args, features=TASKS, env=None):
        # -g's default depth from no sysctl: 127, whatever this machine says.
        e = {"PMUSCOPE_SYSFS": self.root, "LD_PRELOAD": FAKE, "FAKE_PMUSCOPE_LOG": self.log,
             "FAKE_PMUSCOPE_FEATURES": hex(features),
             "PMUSCOPE_MAX_STACK_SYSCTL": "/nonexistent/perf_event_max_stack"}
        e.update(env or {})
        if os.path.exists(self.log):
            os.unlink(self.log)
        return run("record", "-o", self.data, *args, env=e)

    def ioctls(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def test_command_per_task(self):
        r = self.record("-c", "5000", "--", "sh", "-c", "exit 3")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertNotIn("sampling every CPU", r.stderr)
        # The child configures and streams before its exec; armed, never
        # reset or enabled by the parent.
        self.assertEqual(self.ioctls(), [
            "config nr_events=2",
            "stream period_ms=0 sample_index=0 sample_period=5000 ring_kib=0 task",
            "disable"])
        hdr, chunks = read_chunks(self.data)
        self.assertEqual((hdr["version"], hdr["flags"], hdr["max_stack"], hdr["reserved"]),
                         (2, 2, 0, (0, 0)))
        execs = {struct.unpack_from("<II", p)[0] for k, p in chunks
                 if k == 2 and struct.unpack_from("<II", p)[1] == 1}
        samples = rec_samples(chunks)
        self.assertTrue(samples)
        self.assertEqual({(s["pid"], s["counts"]) for s in samples}, {(execs.pop(), ())})
        self.assertTrue(all("chain" not in s for s in samples))

    def test_command_on_cpus_without_task_streams(self):
        r = self.record("-c", "5000", "--", "true", features=FEAT_PMU | FEAT_TASK | FEAT_STREAM)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("pmuscope record: the driver cannot sample a task on its direct backend "
                      "(no PMUSCOPE_FEAT_STREAM_TASK): sampling every CPU, other processes' "
                      "samples too (report --pid picks the command's)\n", r.stderr)
        self.assertEqual(self.ioctls()[:2], [
            "config nr_events=2",
            "stream period_ms=0 sample_index=0 sample_period=5000 ring_kib=0"])
        self.assertEqual(read_chunks(self.data)[0]["flags"], 0)
        # -a asks for CPUs: nothing to say.
        r = self.record("-a", "-c", "5000", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("sampling every CPU", r.stderr)
        self.assertNotIn("task", self.ioctls()[1])

    def test_call_graph(self):
        for args, depth, user in ((("-g",), 127, 3), (("--call-graph", "fp,8"), 8, 3),
                                  (("--call-graph", "fp,2"), 2, 2)):
            r = self.record(*args, "--", "true", features=TASKS | FEAT_CALLCHAIN)
            self.assertEqual(r.returncode, 0, (args, r.stderr))
            self.assertIn(f"stream flags=1 max_stack={depth if depth != 127 else 127}",
                          self.ioctls(), args)
            hdr, chunks = read_chunks(self.data)
            self.assertEqual((hdr["flags"], hdr["max_stack"]), (3, depth), args)
            samples = rec_samples(chunks)
            self.assertTrue(samples, args)
            for s in samples:
                version, cflags, kernel, users = s["chain"]
                self.assertEqual((version, kernel, len(users), users[0]),
                                 (1, (), user, s["pc"]), args)
                self.assertEqual(cflags & 1, 1 if user < 3 else 0, args)   # TRUNCATED
            # No kernel frames: no KALLSYMS chunk.
            self.assertNotIn(6, [k for k, _ in chunks], args)
        # Readable by its owner only (kernel addresses), an older file too.
        os.chmod(self.data, 0o644)
        r = self.record("-g", "--", "true", features=TASKS | FEAT_CALLCHAIN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.stat(self.data).st_mode & 0o777, 0o600)
        # -g's depth is kernel.perf_event_max_stack's, at most 127.
        with tempfile.TemporaryDirectory() as d:
            for text, depth in (("16\n", 16), ("1000\n", 127), ("0\n", 127), ("x\n", 127),
                                (None, 127)):
                sysctl = os.path.join(d, "max_stack")
                if text is not None:
                    with open(sysctl, "w") as f:
                        f.write(text)
                elif os.path.exists(sysctl):
                    os.unlink(sysctl)
                r = self.record("-g", "--", "true", features=TASKS | FEAT_CALLCHAIN,
                                env={"PMUSCOPE_MAX_STACK_SYSCTL": sysctl})
                self.assertEqual(r.returncode, 0, (text, r.stderr))
                self.assertEqual(read_chunks(self.data)[0]["max_stack"], depth, text)
        # Without -g: neither flag nor chains.
        r = self.record("--", "true", features=TASKS | FEAT_CALLCHAIN)
        hdr, chunks = read_chunks(self.data)
        self.assertEqual((hdr["flags"], hdr["max_stack"]), (2, 0))
        self.assertTrue(all("chain" not in s for s in rec_samples(chunks)))

    def test_kallsyms_only_with_kernel_frames_and_addresses(self):
        ksyms = os.path.join(self.tmp.name, "kallsyms")
        env = {"FAKE_PMUSCOPE_KERNEL_CHAIN": "1", "PMUSCOPE_KALLSYMS": ksyms}
        # The fake's kernel frames are at 0xffff800080001000 + k (k even):
        # symbols every 6 bytes there (aliases, data, weak, a module's),
        # many far away. The chunk keeps only the lines that name them.
        base, lines = 0xffff800080001000, ["ffff800080000000 T _text"]
        for i in range(400):
            a = base - 0x40 + 6 * i
            lines.append(f"{a:016x} {'tTwWdb'[i % 6]} fn_{i}")
            if i % 7 == 0:
                lines.append(f"{a:016x} t alias_{i}")
            if i % 11 == 0:
                lines.append(f"{a + 2:016x} t mod_{i}\t[fake_mod]")
        for i in range(20000):
            lines.append(f"{0xffff800090000000 + 16 * i:016x} T far_{i}")
        text = ("\n".join(lines) + "\n").encode()
        with open(ksyms, "wb") as f:
            f.write(text)
        r = self.record("-g", "--", "true", features=TASKS | FEAT_CALLCHAIN, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        hdr, chunks = read_chunks(self.data)
        kernel = [s for s in rec_samples(chunks) if s["chain"][2]]
        self.assertTrue(kernel)
        self.assertEqual(kernel[0]["chain"][2][0] & ~0xff, 0xffff800080001000)
        ks = [p for k, p in chunks if k == 6]
        self.assertEqual(len(ks), 1)
        size = struct.unpack_from("<I", ks[0], 8)[0]
        cut = ks[0][16:16 + size].decode()
        # A subset of the lines, a few kB of the 600 kB.
        self.assertTrue(set(cut.splitlines()) <= set(lines), cut)
        self.assertLess(size, 4096, cut)
        self.assertGreater(len(text), 500000)
        # Every kernel frame named as the whole text names it: the last
        # function symbol (by address, then name) at or below the address.
        funcs = sorted((int(a, 16), n.split("\t")[0]) for a, t, n in
                       (ln.split(" ", 2) for ln in lines) if t in "tTwW")
        want = set()
        for s in kernel:
            ip = s["chain"][2][0]
            name = [n for a, n in funcs if a <= ip][-1]
            want.add(f"{ip:16x} {name}+0x{ip - max(a for a, n in funcs if a <= ip):x} ")
        r = subprocess.run([CLI, "script", "-i", self.data], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        got = {ln.strip().split("(")[0] for ln in r.stdout.splitlines()
               if "kallsyms]" in ln or "[fake_mod]" in ln}
        self.assertEqual(got, want)
        # kptr_restrict: every address 0: no chunk, and said.
        with open(ksyms, "wb") as f:
            f.write(b"0000000000000000 T _text\n0000000000000000 t fake_fn\n")
        r = self.record("-g", "--", "true", features=TASKS | FEAT_CALLCHAIN, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("shows no addresses (kernel.kptr_restrict)", r.stderr)
        self.assertNotIn(6, [k for k, _ in read_chunks(self.data)[1]])
        # Real addresses, but no kernel frame recorded: no chunk.
        with open(ksyms, "wb") as f:
            f.write(text)
        r = self.record("-g", "--", "true", features=TASKS | FEAT_CALLCHAIN,
                        env={"PMUSCOPE_KALLSYMS": ksyms})
        self.assertNotIn(6, [k for k, _ in read_chunks(self.data)[1]])

    # A target of two threads until its stdin closes; prints the second's id.
    TWO_THREADS = ("import sys, threading\n"
                   "ev = threading.Event()\n"
                   "t = threading.Thread(target=ev.wait)\n"
                   "t.start()\n"
                   "print(t.native_id, flush=True)\n"
                   "sys.stdin.read()\n"
                   "ev.set()\n"
                   "t.join()\n")

    def attach(self, letter, target, sessions=1, env=None, args=()):
        """record [ARGS] -LETTER TARGET(p) of the process p (its stdin a
        pipe), which ends once all SESSIONS are enabled: (returncode, stderr)."""
        e = dict(os.environ, PMUSCOPE_SYSFS=self.root, LD_PRELOAD=FAKE,
                 FAKE_PMUSCOPE_LOG=self.log, FAKE_PMUSCOPE_FEATURES=hex(TASKS), **(env or {}))
        if os.path.exists(self.log):
            os.unlink(self.log)
        rec = subprocess.Popen([CLI, "record", "-o", self.data, "-c", "5000", *args,
                                f"-{letter}", str(target)], stderr=subprocess.PIPE, text=True,
                               env=e)
        deadline = time.monotonic() + 20
        while (rec.poll() is None and time.monotonic() < deadline and
               (not os.path.exists(self.log) or self.ioctls().count("enable") < sessions)):
            time.sleep(0.01)
        return rec

    def finish(self, rec, proc):
        proc.stdin.close()
        proc.wait(timeout=20)
        _, err = rec.communicate(timeout=20)
        return rec.returncode, err

    def test_attach_pid_and_tid(self):
        for letter in "pt":
            with subprocess.Popen(["cat"], stdin=subprocess.PIPE) as p:
                rc, err = self.finish(self.attach(letter, p.pid), p)
            pid = p.pid
            self.assertEqual(rc, 0, (letter, err))
            # Until the process ended (a zombie counts as ended).
            self.assertIn("samples, 5 lost, written to", err)
            self.assertEqual(self.ioctls()[:4], [
                "config nr_events=2",
                "stream period_ms=0 sample_index=0 sample_period=5000 ring_kib=0 task",
                "reset", "enable"], letter)
            hdr, chunks = read_chunks(self.data)
            self.assertEqual(hdr["flags"], 2, letter)
            maps = [struct.unpack_from("<II", p) for k, p in chunks if k == 2]
            self.assertIn((pid, 4), maps, letter)                  # at the attach
            samples = rec_samples(chunks)
            self.assertTrue(samples, letter)
            self.assertEqual({(s["pid"], s["tid"]) for s in samples}, {(pid, pid)}, letter)

    def test_saved_command_line_is_argv(self):
        # -e's and -p's lists are cut up for parsing, not in argv itself:
        # the file's command line is argv, every comma kept.
        with subprocess.Popen(["cat"], stdin=subprocess.PIPE) as p1, \
                subprocess.Popen(["cat"], stdin=subprocess.PIPE) as p2:
            target = f"{p1.pid},{p2.pid}"
            rec = self.attach("p", target, sessions=2, args=("-e", "cycles,instructions"))
            p1.stdin.close()
            p1.wait(timeout=20)
            rc, err = self.finish(rec, p2)
        self.assertEqual(rc, 0, err)
        self.assertEqual(read_chunks(self.data)[0]["argv"], [
            b"pmuscope", b"record", b"-o", self.data.encode(), b"-c", b"5000",
            b"-e", b"cycles,instructions", b"-p", target.encode()])
        r = self.record("-e", "cycles,instructions", "-c", "5000", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(read_chunks(self.data)[0]["argv"], [
            b"pmuscope", b"record", b"-o", self.data.encode(), b"-e", b"cycles,instructions",
            b"-c", b"5000", b"--", b"true"])

    def test_attach_every_thread_of_a_process(self):
        # Two threads: a session each with -p; -t of the second alone.
        for letter in "pt":
            with subprocess.Popen([sys.executable, "-c", self.TWO_THREADS], text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE) as p:
                second = int(p.stdout.readline())
                rc, err = self.finish(self.attach(letter, p.pid if letter == "p" else second,
                                                  2 if letter == "p" else 1), p)
            self.assertEqual(rc, 0, (letter, err))
            configs = [line for line in self.ioctls() if line.startswith("config")]
            self.assertEqual(len(configs), 2 if letter == "p" else 1, letter)
            hdr, chunks = read_chunks(self.data)
            tids = {(s["pid"], s["tid"]) for s in rec_samples(chunks)}
            want = {(p.pid, p.pid), (p.pid, second)} if letter == "p" else {(p.pid, second)}
            self.assertEqual(tids, want, letter)
            comms = {struct.unpack_from("<II", c)[:2] for k, c in chunks if k == 3}
            self.assertLessEqual(want, comms, letter)
        # A thread that ended between /proc's list and its CONFIG (ESRCH)
        # is left out; the process itself is not.
        for who in ("second", "leader"):
            with subprocess.Popen([sys.executable, "-c", self.TWO_THREADS], text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE) as p:
                second = int(p.stdout.readline())
                gone = second if who == "second" else p.pid
                rc, err = self.finish(self.attach("p", p.pid, 1, env={
                    "FAKE_PMUSCOPE_TASK_ERRNO": f"3@{gone}"}), p)
            if who == "second":
                self.assertEqual(rc, 0, err)
                tids = {(s["pid"], s["tid"]) for s in rec_samples(read_chunks(self.data)[1])}
                self.assertEqual(tids, {(p.pid, p.pid)})
            else:
                self.assertEqual(rc, 1, err)
                self.assertIn(f"pmuscope: thread {p.pid} of process {p.pid}: no thread {p.pid}",
                              err)

    LEADER_EXITS_C = r"""
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *late(void *arg)
{
	char c;

	while (read(0, &c, 1) > 0)
		;
	return arg;
}

int main(void)
{
	pthread_t t;
	char c;

	printf("%d\n", getpid());
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	pthread_create(&t, NULL, late, NULL);
	pthread_exit(NULL);
}
"""

    def test_attach_follows_threads_made_later(self):
        # -p: the thread listed at the attach (the leader) ends, one made
        # after the attach runs on: the recording goes on until it ends.
        with tempfile.TemporaryDirectory() as d:
            src, exe = os.path.join(d, "leader.c"), os.path.join(d, "leader")
            with open(src, "w") as f:
                f.write(self.LEADER_EXITS_C)
            subprocess.run(["gcc", "-O1", "-pthread", "-o", exe, src], check=True)
            with subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE) as p:
                int(p.stdout.readline())
                rec = self.attach("p", p.pid)
                p.stdin.write(b"g")
                p.stdin.flush()
                stat = f"/proc/{p.pid}/task/{p.pid}/stat"
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline:
                    with open(stat) as f:
                        if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                            break
                    time.sleep(0.01)
                # The leader is a zombie: a recording that followed only the
                # threads listed at the attach ends within its 100 ms poll.
                with self.assertRaises(subprocess.TimeoutExpired):
                    rec.wait(timeout=2)
                rc, err = self.finish(rec, p)
            self.assertEqual(rc, 0, err)

    def test_attach_errors(self):
        with subprocess.Popen(["cat"], stdin=subprocess.PIPE) as p:
            r = self.record("-p", str(p.pid), env={"FAKE_PMUSCOPE_TASK_ERRNO": "1"})
            p.stdin.close()
        pid = p.pid
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertIn(f"pmuscope: cannot sample thread {pid} of process {pid}: permission "
                      "denied", r.stderr)
        self.assertIn("attaches to another process only with CAP_PERFMON, unless its "
                      "administrator loaded it with task_ours=1", r.stderr)
        # This driver: another user's task, or one not dumpable (EACCES).
        with subprocess.Popen(["cat"], stdin=subprocess.PIPE) as p:
            r = self.record("-p", str(p.pid), env={"FAKE_PMUSCOPE_TASK_ERRNO": "13"})
            p.stdin.close()
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertIn(f"pmuscope: cannot sample thread {p.pid} of process {p.pid}:", r.stderr)
        self.assertIn("as perf, you may attach to a process of your own (not a setuid "
                      "program, nor one made non-dumpable) where kernel.perf_event_paranoid "
                      "is 2 or less; another user's needs CAP_PERFMON", r.stderr)
        r = self.record("-t", str(os.getpid()), features=FEAT_PMU | FEAT_TASK | FEAT_STREAM)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("-t: the driver cannot sample a task on its direct backend "
                      "(no PMUSCOPE_FEAT_STREAM_TASK)", r.stderr)
        dead = subprocess.Popen(["true"])
        dead.wait()
        cases = [
            (("-p", "0"), 2, "-p needs process ids: '0'"),
            (("-p", ""), 2, "-p needs at least one id"),
            (("-t", "x"), 2, "-t needs thread ids: 'x'"),
            (("-p", str(dead.pid)), 1, f"-p: no process {dead.pid}"),
            (("-t", str(dead.pid)), 1, f"-t: no thread {dead.pid}"),
            (("-p", str(os.getpid()), "-a"), 2, "-p and -t exclude -a and -C"),
            (("-t", str(os.getpid()), "--", "true"), 2, "-p and -t exclude a command"),
        ]
        for args, code, msg in cases:
            r = self.record(*args)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)

    def test_errors(self):
        cases = [
            (("--call-graph", "dwarf"), 2, "--call-graph: 'dwarf': only fp (frame pointers)"),
            (("--call-graph", "fpx"), 2, "only fp"),
            (("--call-graph", "fp,0"), 2, "--call-graph: a depth of 1 to 127 frames: '0'"),
            (("--call-graph", "fp,128"), 2, "a depth of 1 to 127 frames: '128'"),
        ]
        for args, code, msg in cases:
            r = self.record(*args, "--", "true", features=TASKS | FEAT_CALLCHAIN)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)
        r = self.record("-g", "--", "true", features=TASKS | FEAT_BACKEND_PERF)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("pmuscope: -g: the driver records no call chains on its perf backend "
                      "(no PMUSCOPE_FEAT_CALLCHAIN): record without -g", r.stderr)
        # The issue's case: perf's PMU driver, a module without streams.
        r = self.record("-c", "100000", "--", "true", features=FEAT_PMU | FEAT_BACKEND_PERF)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("the driver has no streams of samples on its perf backend (no "
                      "PMUSCOPE_FEAT_STREAM): load a pmuscope.ko of API 7 or later, which "
                      "samples on both backends, or this one with backend=direct", r.stderr)
        r = self.record("--", "true", features=FEAT_PMU)
        self.assertIn("on its direct backend (no PMUSCOPE_FEAT_STREAM): load a pmuscope.ko "
                      "of API 7 or later, which samples on both backends\n", r.stderr)
        # The driver refuses the task's stream: the child says why, before its exec.
        r = self.record("--", "true", env={"FAKE_PMUSCOPE_STREAM_ERRNO": "95"})
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("pmuscope: stream refused on the direct backend: the sampled event cannot "
                      "interrupt on these CPUs (Operation not supported): sample by time "
                      "instead (a period in ms: pmuscope record -F)", r.stderr)
        # Refused by the privilege rules of chains and tasks: what to do.
        r = self.record("-g", "-a", env={"FAKE_PMUSCOPE_STREAM_ERRNO": "13"},
                        features=TASKS | FEAT_CALLCHAIN)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("stream refused: permission denied: call chains of whole CPUs need "
                      "CAP_PERFMON or kernel.perf_event_paranoid <= 0", r.stderr)
        # Over the locked-memory limit (the ring's charge): its size, the two limits.
        r = self.record("-m", "64", "--", "true", env={"FAKE_PMUSCOPE_STREAM_ERRNO": "1"})
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertIn("stream refused: a ring of 64 KiB exceeds your locked-memory limit "
                      "(kernel.perf_event_mlock_kb KiB per CPU for your user, then ulimit -l "
                      "for the process;", r.stderr)
        r = run("record", "--help")
        for opt in ("-g  ", "--call-graph fp[,DEPTH]", "-p, --pid PID[,PID...]",
                    "-t, --tid TID[,TID...]"):
            self.assertIn(opt, r.stdout)


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
                         (b"PMUSDATA", 2, ["CPU_CYCLES", "INST_RETIRED"], 5000, 0))
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
        # As the shell: 127 not found, 126 found but not executable.
        for cmd, code in command_cannot_run(self.tmp.name):
            r = self.record("--", cmd)
            self.assertEqual(r.returncode, code, (cmd, r.stderr))
            self.assertIn(f"cannot run '{cmd}'", r.stderr)
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

    def test_command_that_cannot_run(self):
        # As the shell: 127 not found, 126 found but not executable.
        for cmd, code in command_cannot_run(self.tmp.name):
            r = self.record("-C", "0", "--", cmd)
            self.assertEqual(r.returncode, code, (cmd, r.stderr))
            self.assertIn(f"cannot run {cmd}", r.stderr)

    def test_pipe_and_directory_input(self):
        r = self.record("-C", "0", "-d", "1", "--el0")
        self.assertEqual(r.returncode, 0, r.stderr)
        for cmd in (("dump",), ("report", "--json")):
            want = self.spe(*cmd, "-i", self.data)
            self.assertEqual(want.returncode, 0, (cmd, want.stderr))
            with open(self.data, "rb") as f:
                cat = subprocess.Popen(["cat"], stdin=f, stdout=subprocess.PIPE)
                r = subprocess.run([CLI, "spe", *cmd, "-i", "-"], stdin=cat.stdout,
                                   capture_output=True, text=True, timeout=30,
                                   env=dict(os.environ, **self.env))
                cat.stdout.close()
                cat.wait()
            self.assertEqual(r.returncode, 0, (cmd, r.stderr))
            self.assertEqual(r.stdout.replace('"-"', json.dumps(self.data)).replace(
                "# -: ", f"# {self.data}: "), want.stdout, cmd)
            r = self.spe(*cmd, "-i", self.tmp.name)
            self.assertEqual((r.returncode, r.stdout), (1, ""), cmd)
            self.assertEqual(r.stderr, f"pmuscope: {self.tmp.name}: is a directory\n", cmd)

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
        # EPERM: the policy's (whole CPUs) for a caller it refuses them, else
        # the locked memory's (CAP_SYS_ADMIN 21, CAP_PERFMON 38 effective).
        with open("/proc/self/status") as f:
            capeff = int(re.search(r"^CapEff:\s*([0-9a-f]+)", f.read(), re.M)[1], 16)
        try:
            with open("/proc/sys/kernel/perf_event_paranoid") as f:
                paranoid = int(f.read())
        except (OSError, ValueError):
            paranoid = 2
        eperm = ("exceed your locked-memory limit (kernel.perf_event_mlock_kb"
                 if capeff & (1 << 21 | 1 << 38) or paranoid <= 0 else
                 "needs CAP_PERFMON (or CAP_SYS_ADMIN)")
        cases = [
            ({"FAKE_PMUSCOPE_SPE_ERRNO": "95"}, 3,
             "no CPU asked for has a usable Statistical Profiling Extension"),
            ({"FAKE_PMUSCOPE_FEATURES": "0x1"}, 3, "no PMUSCOPE_FEAT_SPE"),
            ({"FAKE_PMUSCOPE_SPE_ERRNO": "16"}, 4, "another session profiles a CPU"),
            ({"FAKE_PMUSCOPE_SPE_ERRNO": "1"}, 5, eperm),
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


# ----------------------------------------------------------------- export
METRIC_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*\Z")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*\Z")
SAMPLE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)\Z")


def parse_labels(text):
    """The label set of a sample, '{a="x",b="y"}' (strict: names valid, values
    quoted with only \\\\, \\" and \\n escaped, no name twice): a sorted tuple."""
    assert text[0] == "{" and text[-1] == "}", text
    body, i, labels = text[1:-1], 0, {}
    while i < len(body):
        m = re.compile(r"([^=]*)=\"").match(body, i)
        assert m, f"label expected at {body[i:]!r}"
        name = m[1]
        assert LABEL_NAME.match(name) and not name.startswith("__"), f"label name {name!r}"
        assert name not in labels, f"label {name} twice in {text}"
        i, value = m.end(), ""
        while True:
            assert i < len(body), f"unterminated label value in {text}"
            ch = body[i]
            if ch == "\\":
                esc = body[i + 1:i + 2]
                assert esc in ("\\", '"', "n"), f"bad escape \\{esc} in {text}"
                value += {"\\": "\\", '"': '"', "n": "\n"}[esc]
                i += 2
            elif ch == '"':
                i += 1
                break
            else:
                assert ch != "\n"
                value += ch
                i += 1
        labels[name] = value
        if i < len(body):
            assert body[i] == ",", f"',' expected at {body[i:]!r} in {text}"
            i += 1
            assert i < len(body), f"trailing ',' in {text}"
    return tuple(sorted(labels.items()))


def parse_value(text):
    if text in ("+Inf", "-Inf", "NaN"):
        return float(text.replace("Inf", "inf").replace("NaN", "nan"))
    assert re.match(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\Z", text), f"value {text!r}"
    return float(text)


def parse_exposition(text, om=False):
    """A strict parser of the text format 0.0.4 (om: OpenMetrics 1.0.0) as
    pmuscope export writes it: every family's HELP and TYPE (once each)
    before its samples, its samples together, names valid, label values
    escaped, no timestamps, no series twice; OpenMetrics: families named
    without _total (counters) or _info (info), UNIT a suffix of the name,
    '# EOF' last. Returns {family: {"type", "help", "unit", "samples":
    {(name, labels): value}}}."""
    assert text.endswith("\n"), "no newline at the end"
    lines = text[:-1].split("\n")
    if om:
        assert lines[-1] == "# EOF", f"last line {lines[-1]!r}"
        lines = lines[:-1]
        assert "# EOF" not in lines
    fams, done, current, series = {}, set(), None, set()
    for line in lines:
        assert line, "empty line"
        if line.startswith("#"):
            m = re.match(r"# (HELP|TYPE|UNIT) (\S+) (.*)\Z", line)
            assert m, f"comment line {line!r}"
            kind, name, rest = m[1].lower(), m[2], m[3]
            assert METRIC_NAME.match(name), name
            assert name not in done, f"{name}: metadata after its samples or another family"
            fam = fams.setdefault(name, {"samples": {}})
            assert not fam["samples"], f"{name}: {kind} after samples"
            assert kind not in fam, f"{name}: {kind} twice"
            if current and current != name:
                done.add(current)
            current = name
            if kind == "type":
                types = ("counter", "gauge", "info", "stateset", "unknown", "histogram",
                         "gaugehistogram", "summary") if om else (
                    "counter", "gauge", "untyped", "histogram", "summary")
                assert rest in types, f"{name}: type {rest}"
            if kind == "unit":
                assert om and name.endswith("_" + rest), f"{name}: unit {rest}"
            if kind == "help":
                assert rest, f"{name}: empty HELP"
            fam[kind] = rest
            continue
        m = SAMPLE.match(line)
        assert m, f"sample line {line!r} (a timestamp, or a bad name or value)"
        name, labels = m[1], parse_labels(m[2]) if m[2] else ()
        value = parse_value(m[3])
        if om:
            fam_name = {"_total": name[:-6], "_info": name[:-5]}.get(name[-6:] if
                                                                      name.endswith("_total")
                                                                      else name[-5:], name)
            if fam_name not in fams:
                fam_name = name
        else:
            fam_name = name
        assert fam_name in fams, f"{name}: sample before its HELP and TYPE"
        fam = fams[fam_name]
        assert "help" in fam and "type" in fam, f"{name}: no HELP or no TYPE"
        assert fam_name == current and fam_name not in done, f"{name}: family split"
        if om:
            want = {"counter": fam_name + "_total", "info": fam_name + "_info"}.get(
                fam["type"], fam_name)
            assert name == want, f"{name}: sample of a {fam['type']} family {fam_name}"
            if fam["type"] == "counter":
                assert value >= 0, line
        elif fam["type"] == "counter":
            assert name.endswith("_total"), f"{name}: counter without _total"
        assert (name, labels) not in series, f"series twice: {line}"
        series.add((name, labels))
        fam["samples"][(name, labels)] = value
    for name, fam in fams.items():
        assert "help" in fam and "type" in fam, f"{name}: no HELP or no TYPE"
    return fams


def samples_of(fams):
    """{(name, labels): value} of every family."""
    out = {}
    for fam in fams.values():
        out.update(fam["samples"])
    return out


def find_tool(name):
    """promtool or prometheus: on PATH (Debian's package prometheus), or
    unpacked from it into $PMUSCOPE_CACHE/prometheus (default
    ~/.cache/pmuscope): None if neither."""
    found = shutil.which(name)
    if found:
        return found
    cache = os.environ.get("PMUSCOPE_CACHE") or os.path.expanduser("~/.cache/pmuscope")
    path = os.path.join(cache, "prometheus", "usr", "bin", name)
    return path if os.access(path, os.X_OK) else None


def free_port():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


NOBODY = 65534


class ExportTest(unittest.TestCase):
    """pmuscope export against fake_pmuscope.so: its snapshots and reads
    grow with each one (see fake_pmuscope.c), its AMU by the rule there."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        os.chmod(self.tmp.name, 0o755)   # readable by nobody, whom a root run becomes
        self.root = os.path.join(self.tmp.name, "sysfs")
        self.logfile = os.path.join(self.tmp.name, "export.log")
        self.errfile = os.path.join(self.tmp.name, "stderr")
        fake_sysfs(self.root)
        self.env = {"PMUSCOPE_SYSFS": self.root, "LD_PRELOAD": FAKE}
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.tmp.cleanup()

    def start(self, *args, env=None):
        """pmuscope export ARGS in the background, its stderr in a file."""
        e = dict(os.environ, **self.env)
        e.update(env or {})
        with open(self.errfile, "w") as err:
            p = subprocess.Popen([CLI, "export", *args], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=err, env=e)
        self.procs.append(p)
        return p

    def stderr(self):
        with open(self.errfile) as f:
            return f.read()

    def serve(self, *args, env=None):
        """Start an HTTP exporter on a free loopback port: (process, host, port)."""
        p = self.start("--listen", "127.0.0.1:0", *args, env=env)
        host, port = self.wait_serving(p)
        return p, host, port

    def wait_serving(self, p):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            m = re.search(r"serving http://(\[[^\]]+\]|[\d.]+):(\d+)/metrics", self.stderr())
            if m:
                return m[1].strip("[]"), int(m[2])
            self.assertIsNone(p.poll(), self.stderr())
            time.sleep(0.02)
        self.fail("no 'serving' line: " + self.stderr())

    def get(self, port, path="/metrics", method="GET", headers=None, host="127.0.0.1"):
        import http.client
        c = http.client.HTTPConnection(host, port, timeout=10)
        c.request(method, path, headers=headers or {})
        r = c.getresponse()
        body = r.read().decode()
        c.close()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, body

    def raw(self, port, data, timeout=10):
        """Send @data, read the whole answer until the server closes."""
        import socket
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(data)
            out = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    return out.decode()
                out += chunk

    def scrape(self, port, om=False):
        headers = {"Accept": "application/openmetrics-text; version=1.0.0"} if om else {}
        status, hdrs, body = self.get(port, headers=headers)
        self.assertEqual(status, 200, body)
        return parse_exposition(body, om=om)

    def stop(self, p):
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=10), 0, self.stderr())

    def test_strict_parser_rejects_bad_text(self):
        # The checker of the tests below: what it must refuse.
        good = '# HELP a_total x\n# TYPE a_total counter\na_total{cpu="0"} 1\n'
        parse_exposition(good)
        for text, om in (("# HELP a_total x\na_total 1\n", False),          # no TYPE
                         ("# TYPE a_total counter\na_total 1\n", False),     # no HELP
                         (good + 'a_total{cpu="0"} 2\n', False),             # series twice
                         ('# HELP a x\n# TYPE a gauge\na{l="\\t"} 1\n', False),  # escape
                         ("# HELP a x\n# TYPE a gauge\na 1 1700000000\n", False),  # timestamp
                         ('# HELP a x\n# TYPE a gauge\na{x="1"} 1\n# HELP b x\n# TYPE b gauge\n'
                          'b 1\na{x="2"} 1\n', False),                          # family split
                         ("# HELP a x\n# TYPE a counter\na 1\n", False),      # counter, no _total
                         ("# HELP 1a x\n# TYPE 1a gauge\n1a 1\n", False),     # name
                         ("# HELP a x\n# TYPE a gauge\na 1", False),           # last newline
                         ('# HELP a x\n# TYPE a gauge\na{x="1",x="2"} 1\n', False),
                         ("# HELP a x\n# TYPE a gauge\na{x=1} 1\n", False),   # unquoted
                         ("# TYPE a counter\n# HELP a x\na_total 1\n", True),  # no # EOF
                         ("# TYPE a_total counter\n# HELP a_total x\na_total 1\n# EOF\n", True)):
            with self.assertRaises(AssertionError, msg=text):
                parse_exposition(text, om=om)

    def test_text_format_parses(self):
        p, _, port = self.serve("-e", "cycles,instructions:u,r0xc0:k")
        fams = self.scrape(port)
        for name, kind in (("pmuscope_events_total", "counter"),
                           ("pmuscope_event_enabled_seconds_total", "counter"),
                           ("pmuscope_event_running_seconds_total", "counter"),
                           ("pmuscope_event_flag", "gauge"),
                           ("pmuscope_snapshot_method", "gauge"),
                           ("pmuscope_snapshot_skew_seconds", "gauge"),
                           ("pmuscope_snapshot_flag", "gauge"),
                           ("pmuscope_amu_events_total", "counter"),
                           ("pmuscope_amu_state", "gauge"), ("pmuscope_amu_flag", "gauge"),
                           ("pmuscope_generic_timer_hertz", "gauge"),
                           ("pmuscope_exporter_scrapes_total", "counter"),
                           ("pmuscope_exporter_backwards_total", "counter"),
                           ("pmuscope_driver_info", "gauge")):
            self.assertEqual(fams[name]["type"], kind, name)
        events = fams["pmuscope_events_total"]["samples"]
        self.assertEqual(sorted(dict(labels)["cpu"] for _, labels in events),
                         ["0"] * 3 + ["1"] * 3)
        self.assertEqual({(dict(l)["event"], dict(l)["exception_level"]) for _, l in events},
                         {("CPU_CYCLES", "el0+el1"), ("INST_RETIRED", "el0"), ("0xc0", "el1")})
        # Snapshot 1 of the fake: the k-th CPU counts 1000 * (k + 1) + i.
        self.assertEqual(events[("pmuscope_events_total", (
            ("cpu", "1"), ("event", "INST_RETIRED"), ("exception_level", "el0")))], 2001)
        self.assertEqual(fams["pmuscope_exporter_scrapes_total"]["samples"],
                         {("pmuscope_exporter_scrapes_total", ()): 1})
        (info, value), = fams["pmuscope_driver_info"]["samples"].items()
        self.assertEqual(value, 1)
        self.assertEqual(dict(info[1])["api"], "7")
        self.assertEqual(dict(info[1])["backend"], "direct")
        self.assertEqual(len(fams["pmuscope_event_flag"]["samples"]), 2 * 3 * 5)
        self.assertEqual(fams["pmuscope_snapshot_skew_seconds"]["samples"][
            ("pmuscope_snapshot_skew_seconds", (("cpu", "1"),))], 4 / 62.5e6)
        self.stop(p)

    def test_counters_never_decrease(self):
        p, _, port = self.serve()
        first = [samples_of(self.scrape(port)) for _ in range(2)]
        second = samples_of(self.scrape(port, om=True))
        fams = self.scrape(port)
        counters = {n for n, f in fams.items() if f["type"] == "counter"}
        last = samples_of(fams)
        grew = 0
        for before in first + [second]:
            self.assertEqual(set(before), set(last))
            for key, value in before.items():
                if key[0] in counters:
                    self.assertGreaterEqual(last[key], value, key)
                    grew += last[key] > value
        self.assertGreater(grew, 0)
        self.stop(p)

    def test_openmetrics_negotiation(self):
        p, _, port = self.serve()
        prometheus = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                      "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
        for accept, om in ((prometheus, True), ("application/openmetrics-text", True),
                           ("text/plain;version=0.0.4", False), ("*/*", False), ("", False),
                           ("application/openmetrics-text;q=0, text/plain", False),
                           ("text/plain;q=0.9, application/openmetrics-text;q=0.5", False)):
            status, hdrs, body = self.get(port, headers={"Accept": accept} if accept else {})
            self.assertEqual(status, 200)
            if om:
                self.assertEqual(hdrs["content-type"],
                                 "application/openmetrics-text; version=1.0.0; charset=utf-8")
                self.assertTrue(body.endswith("\n# EOF\n"))
                fams = parse_exposition(body, om=True)
                self.assertEqual(fams["pmuscope_events"]["type"], "counter")
                self.assertEqual(fams["pmuscope_event_enabled_seconds"]["unit"], "seconds")
                self.assertEqual(fams["pmuscope_driver"]["type"], "info")
                self.assertIn("# TYPE pmuscope_events counter\n", body)
                self.assertNotIn("# TYPE pmuscope_events_total", body)
                self.assertRegex(body, r"\npmuscope_events_total\{")
            else:
                self.assertEqual(hdrs["content-type"], "text/plain; version=0.0.4; charset=utf-8",
                                 accept)
                self.assertNotIn("# EOF", body)
                self.assertIn("# TYPE pmuscope_events_total counter\n", body)
                parse_exposition(body)
        self.stop(p)

    def test_http_get_metrics(self):
        p, _, port = self.serve("--log", self.logfile)
        status, hdrs, body = self.get(port)
        self.assertEqual(status, 200)
        self.assertEqual(int(hdrs["content-length"]), len(body.encode()))
        self.assertEqual(hdrs["connection"], "close")
        status, hdrs, page = self.get(port, "/")
        self.assertEqual((status, hdrs["content-type"]), (200, "text/html; charset=utf-8"))
        self.assertIn('href="/metrics"', page)
        # A query string is not part of the path.
        self.assertEqual(self.get(port, "/metrics?x=1")[0], 200)
        self.stop(p)
        with open(self.logfile) as f:
            log = f.read()
        self.assertRegex(log, r"scrape 1: GET /metrics from 127\.0\.0\.1:\d+: 200, text 0\.0\.4, "
                              r"\d+ bytes in [\d.]+ ms")
        self.assertIn("scrape 2: GET /metrics?x=1", log)

    def test_http_404(self):
        p, _, port = self.serve()
        for path in ("/nosuch", "/metrics/x", "/metricsx"):
            status, _, body = self.get(port, path)
            self.assertEqual((status, body), (404, "404 Not Found\n"), path)
        self.stop(p)

    def test_http_405(self):
        p, _, port = self.serve()
        for method in ("POST", "PUT", "DELETE", "OPTIONS"):
            status, hdrs, _ = self.get(port, method=method)
            self.assertEqual(status, 405, method)
            self.assertEqual(hdrs["allow"], "GET, HEAD")
        self.stop(p)

    def test_http_head(self):
        p, _, port = self.serve("--log", self.logfile)
        status, hdrs, body = self.get(port, method="HEAD")
        self.assertEqual((status, body), (200, ""))
        self.assertEqual(hdrs["content-type"], "text/plain; version=0.0.4; charset=utf-8")
        status, hdrs, _ = self.get(port, method="HEAD",
                                   headers={"Accept": "application/openmetrics-text"})
        self.assertEqual(hdrs["content-type"],
                         "application/openmetrics-text; version=1.0.0; charset=utf-8")
        self.assertEqual(self.get(port, "/", method="HEAD")[:3:2], (200, ""))
        self.assertEqual(self.get(port, "/x", method="HEAD")[0], 404)
        # A HEAD reads nothing: the next GET is scrape 1.
        fams = self.scrape(port)
        self.assertEqual(samples_of(fams)[("pmuscope_exporter_scrapes_total", ())], 1)
        self.stop(p)

    def test_http_bad_requests(self):
        p, _, port = self.serve()
        for data, status in ((b"garbage\r\n\r\n", 400), (b"GET /metrics\r\n\r\n", 400),
                             (b"GET  /metrics HTTP/1.1\r\n\r\n", 400),
                             (b"GET /metrics HTTP/1.1\r\nno colon\r\n\r\n", 400),
                             (b"GET /metrics HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
                             (b"G\0T /metrics HTTP/1.1\r\n\r\n", 400),
                             (b"GET metrics HTTP/1.1\r\n\r\n", 400),
                             (b"GET /metrics HTTP/2.0\r\n\r\n", 505),
                             (b"GET /metrics HTTP/1.0\n\n", 200),
                             (b"GET http://example/metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200),
                             (b"GET http://example HTTP/1.1\r\n\r\n", 200),
                             (b"GET /metrics HTTP/1.1\r\n folded: x\r\n\r\n", 400)):
            answer = self.raw(port, data)
            self.assertTrue(answer.startswith(f"HTTP/1.1 {status} "), (data, answer[:80]))
        self.stop(p)

    def test_http_request_size_bounded(self):
        p, _, port = self.serve()
        answer = self.raw(port, b"GET /metrics HTTP/1.1\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n")
        self.assertTrue(answer.startswith("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
                        answer[:80])
        self.assertEqual(self.get(port)[0], 200)
        self.stop(p)

    def test_http_concurrent_scrapes(self):
        import threading
        p, _, port = self.serve()
        bodies, errors = [], []

        def client():
            try:
                for _ in range(5):
                    status, hdrs, body = self.get(port)
                    assert status == 200 and int(hdrs["content-length"]) == len(body)
                    bodies.append(body)
            except Exception as exc:      # reported below, in the test's thread
                errors.append(repr(exc))

        threads = [threading.Thread(target=client) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(errors, [])
        self.assertEqual(len(bodies), 40)
        seqs = []
        for body in bodies:
            s = samples_of(parse_exposition(body))
            seqs.append(s[("pmuscope_exporter_scrapes_total", ())])
            # Consistent: every CPU's counts from the same snapshot n, 1000 * (n + 1) * (k + 1).
            n = s[("pmuscope_events_total", (("cpu", "0"), ("event", "CPU_CYCLES"),
                                             ("exception_level", "el0+el1")))]
            self.assertEqual(s[("pmuscope_events_total", (("cpu", "1"), ("event", "CPU_CYCLES"),
                                                          ("exception_level", "el0+el1")))],
                             2 * n)
        self.assertEqual(sorted(seqs), list(range(1, 41)))
        self.stop(p)

    def test_http_silent_client_times_out(self):
        import socket
        p, _, port = self.serve("--timeout", "2", "--log", self.logfile)
        silent = socket.create_connection(("127.0.0.1", port), timeout=10)
        slow = socket.create_connection(("127.0.0.1", port), timeout=10)
        slow.sendall(b"GET /metr")
        t0 = time.monotonic()
        self.assertEqual(self.get(port)[0], 200)
        self.assertLess(time.monotonic() - t0, 1)      # not held up until their timeout
        for s in (silent, slow):
            answer = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
            s.close()
            self.assertTrue(answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer)
        self.assertGreater(time.monotonic() - t0, 1.5)
        self.assertLess(time.monotonic() - t0, 8)
        self.stop(p)
        with open(self.logfile) as f:
            self.assertEqual(len(re.findall(r"no whole request within 2000 ms: 408", f.read())), 2)

    def test_log_values_match_served(self):
        p, _, port = self.serve("--log", self.logfile, "--log-values")
        served = {}
        for om in (False, True, False):
            headers = {"Accept": "application/openmetrics-text"} if om else {}
            _, _, body = self.get(port, headers=headers)
            s = samples_of(parse_exposition(body, om=om))
            served[int(s[("pmuscope_exporter_scrapes_total", ())])] = s
        self.stop(p)
        logged = {}
        with open(self.logfile) as f:
            for line in f:
                m = re.match(r"pmuscope export: scrape (\d+) value: (.*)$", line)
                if m:
                    name, labels, value = SAMPLE.match(m[2]).groups()
                    logged.setdefault(int(m[1]), {})[(
                        name, parse_labels(labels) if labels else ())] = parse_value(value)
        self.assertEqual(logged, served)

    def test_textfile_atomic_replacement(self):
        import threading
        out = os.path.join(self.tmp.name, "textfile")
        os.mkdir(out)
        os.chmod(out, 0o777)   # written by nobody when the test runs as root
        path = os.path.join(out, "pmuscope.prom")
        stop, reads, bad = threading.Event(), [], []

        def reader():
            while not stop.is_set():
                try:
                    with open(path) as f:
                        text = f.read()
                except FileNotFoundError:
                    continue
                reads.append(text)
                try:
                    parse_exposition(text)
                except AssertionError as exc:
                    bad.append(f"{exc}: {text[-200:]!r}")

        t = threading.Thread(target=reader)
        t.start()
        try:
            p = self.start("--textfile", out, "-I", "20", "-n", "25", "-e", "cycles,instructions",
                           "--log", self.logfile)
            self.assertEqual(p.wait(timeout=30), 0, self.stderr())
        finally:
            stop.set()
            t.join()
        self.assertEqual(bad, [])
        seqs = {samples_of(parse_exposition(r))[("pmuscope_exporter_scrapes_total", ())]
                for r in reads}
        self.assertGreaterEqual(len(seqs), 3)  # the reader saw the file replaced, whole
        self.assertEqual(os.listdir(out), ["pmuscope.prom"])    # no temporary file left
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o644)
        with open(path) as f:
            final = samples_of(parse_exposition(f.read()))
        self.assertEqual(final[("pmuscope_exporter_scrapes_total", ())], 25)
        with open(self.logfile) as f:
            self.assertEqual(len(re.findall(r"scrape \d+: wrote ", f.read())), 25)

    def test_promtool_accepts_the_output(self):
        promtool = find_tool("promtool")
        if not promtool:
            self.skipTest("promtool not installed (Debian package prometheus; "
                          "scripts/setup.sh installs it)")
        out = os.path.join(self.tmp.name, "textfile")
        os.mkdir(out)
        os.chmod(out, 0o777)
        p = self.start("--textfile", out, "-I", "10", "-n", "2", "-e", "cycles,r0xc0:u",
                       env={"FAKE_PMUSCOPE_VAL_FLAGS": "1:0x8"})
        self.assertEqual(p.wait(timeout=30), 0, self.stderr())
        with open(os.path.join(out, "pmuscope.prom")) as f:
            text = f.read()
        r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                           text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout + r.stderr, "")

    def test_prometheus_stores_what_was_served(self):
        prometheus = find_tool("prometheus")
        if not prometheus:
            self.skipTest("prometheus not installed (Debian package prometheus; "
                          "scripts/setup.sh installs it)")
        import json as _json
        import urllib.parse
        import urllib.request
        p, _, port = self.serve("--log", self.logfile, "--log-values", "-e", "cycles")
        pport = free_port()
        cfg = os.path.join(self.tmp.name, "prometheus.yml")
        with open(cfg, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                    "scrape_configs:\n  - job_name: pmuscope\n    static_configs:\n"
                    f"      - targets: ['127.0.0.1:{port}']\n")
        with open(os.path.join(self.tmp.name, "prometheus.out"), "w") as out:
            prom = subprocess.Popen([prometheus, f"--config.file={cfg}",
                                     f"--storage.tsdb.path={self.tmp.name}/tsdb",
                                     f"--web.listen-address=127.0.0.1:{pport}"],
                                    stdout=out, stderr=out, stdin=subprocess.DEVNULL)
        self.procs.append(prom)

        def query(q):
            url = f"http://127.0.0.1:{pport}/api/v1/query?" + urllib.parse.urlencode({"query": q})
            with urllib.request.urlopen(url, timeout=10) as r:
                return _json.load(r)["data"]["result"]

        deadline = time.monotonic() + 60
        while True:
            self.assertLess(time.monotonic(), deadline, "Prometheus scraped fewer than 4 times")
            time.sleep(0.5)
            try:
                scrapes = query("pmuscope_exporter_scrapes_total")
            except OSError:
                continue
            if scrapes and float(scrapes[0]["value"][1]) >= 4:
                break
        self.assertEqual(query("up")[0]["value"][1], "1")
        stored = {}
        for s in query('{__name__=~"pmuscope_.*"}[5m]'):
            labels = dict(s["metric"])
            name = labels.pop("__name__")
            self.assertEqual((labels.pop("job"), labels.pop("instance")),
                             ("pmuscope", f"127.0.0.1:{port}"))
            stored[(name, tuple(sorted(labels.items())))] = [float(v) for _, v in s["values"]]
        prom.terminate()
        prom.wait(timeout=30)
        self.stop(p)
        served = {}
        with open(self.logfile) as f:
            log = f.read()
        self.assertIn("OpenMetrics 1.0.0", log)     # Prometheus asks for it
        for m in re.finditer(r"^pmuscope export: scrape (\d+) value: (.*)$", log, re.M):
            name, labels, value = SAMPLE.match(m[2]).groups()
            served.setdefault((name, parse_labels(labels) if labels else ()), []).append(
                parse_value(value))
        self.assertEqual(set(stored), set(served))
        for key, values in stored.items():
            self.assertGreaterEqual(len(values), 4, key)
            self.assertEqual(values, served[key][:len(values)], key)

    def test_systemd_examples_verify(self):
        analyze = shutil.which("systemd-analyze")
        if not analyze:
            self.skipTest("systemd-analyze not installed")
        units = ("pmuscope-export.service", "pmuscope-export-textfile.service",
                 "pmuscope-export-textfile.timer")
        for unit in units:
            with open(os.path.join(TOP, "tools", "examples", unit)) as f:
                text = f.read()
            if unit.endswith(".service"):
                self.assertIn("ExecStart=/usr/local/bin/pmuscope export ", text)
            # The command installed by make install, here the one just built.
            with open(os.path.join(self.tmp.name, unit), "w") as f:
                f.write(text.replace("/usr/local/bin/pmuscope", os.path.abspath(CLI)))
        r = subprocess.run([analyze, "verify", "--man=no", *units], cwd=self.tmp.name,
                           capture_output=True, text=True, timeout=60)
        self.assertEqual((r.returncode, r.stdout + r.stderr), (0, ""))

    def test_listen_addresses(self):
        import socket
        for arg, host in (("0", "127.0.0.1"), (":0", "127.0.0.1"), ("127.0.0.1:0", "127.0.0.1"),
                          ("0.0.0.0:0", "0.0.0.0")):
            p = self.start("--listen", arg)
            got, port = self.wait_serving(p)
            self.assertEqual(got, host, arg)
            self.assertEqual(self.get(port)[0], 200)
            self.stop(p)
        if socket.has_ipv6:
            try:
                with socket.socket(socket.AF_INET6) as s:
                    s.bind(("::1", 0))
            except OSError:
                return
            p = self.start("--listen", "[::1]:0")
            got, port = self.wait_serving(p)
            self.assertEqual(got, "::1")
            self.assertEqual(self.get(port, host="::1")[0], 200)
            self.stop(p)

    def test_listen_errors(self):
        import socket
        busy = socket.socket()
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        cases = [
            (("--listen", "::1:9750"), 2, "an IPv6 address goes in brackets"),
            (("--listen", "localhost:9750"), 2, "is not an IPv4 address or an IPv6 one"),
            (("--listen", "[::1]"), 2, "--listen [IPV6]:PORT"),
            (("--listen", "127.0.0.1:65536"), 2, "--listen needs a port, 0 to 65535"),
            (("--listen", "127.0.0.1:x"), 2, "--listen needs a port"),
            (("--listen", f"127.0.0.1:{port}"), 1,
             f"cannot listen on 127.0.0.1:{port}: Address already in use"),
        ]
        for args, code, msg in cases:
            r = run("export", *args, env=self.env)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)
        busy.close()

    def test_usage_errors(self):
        notdir = os.path.join(self.tmp.name, "file")
        open(notdir, "w").close()
        cases = [
            ((), 2, "export needs --listen [ADDR:]PORT or --textfile DIR"),
            (("--listen", "0", "--textfile", self.tmp.name), 2, "one of them"),
            (("--listen", "0", "-I", "100"), 2, "-I and -n go with --textfile"),
            (("--listen", "0", "-n", "1"), 2, "-I and -n go with --textfile"),
            (("--listen", "0", "--timeout", "0"), 2, "--timeout needs 1 to 3600 seconds"),
            (("--listen", "0", "--duration", "-1"), 2, "--duration needs 1 to"),
            (("--listen", "0", "-e", "cycles,CPU_CYCLES"), 2,
             "CPU_CYCLES at el0+el1 is given twice"),
            (("--listen", "0", "-e", "nosuch"), 2, "unknown event 'nosuch'"),
            (("--textfile", self.tmp.name, "-I", "5"), 2, "at least 10 ms"),
            (("--textfile", self.tmp.name, "-n", "0"), 2, "-n needs a count of writes"),
            (("--textfile", os.path.join(self.tmp.name, "none")), 1, "No such file or directory"),
            (("--textfile", notdir), 1, "not a directory"),
            (("--listen", "0", "--", "true"), 2, "export runs no command"),
            (("--listen", "0", "-C", "7"), 1, "cpu7 does not exist"),
            (("--bogus",), 2, "usage: pmuscope export"),
        ]
        if os.geteuid() == 0:
            cases.append((("--listen", "0", "--user", "nosuchuser"), 2,
                          "no user 'nosuchuser' in /etc/passwd"))
        for args, code, msg in cases:
            r = run("export", *args, env=self.env)
            self.assertEqual(r.returncode, code, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)
        r = run("export", "--help")
        self.assertEqual(r.returncode, 0)
        for opt in ("--listen [ADDR:]PORT", "--textfile DIR", "-I MS", "-n COUNT", "--user NAME",
                    "--log FILE", "--log-values", "--duration S", "--timeout S", "-e EVENT",
                    "-C CPUS | -a"):
            self.assertIn(opt, r.stdout)
        self.assertIn("export", run("--help").stdout)
        if not os.path.exists("/dev/pmuscope"):
            r = run("export", "--listen", "0", env={"PMUSCOPE_SYSFS": self.root})
            self.assertEqual(r.returncode, 6)
            self.assertIn("is the pmuscope module loaded", r.stderr)

    def test_drops_root(self):
        if os.geteuid() != 0:
            self.skipTest("not root: nothing to drop")
        for env, capeff in (({}, 1 << 38),                          # CAP_PERFMON for the AMU
                            ({"FAKE_PMUSCOPE_FEATURES": "0x201"}, 0)):  # no AMU: nothing kept
            p, _, port = self.serve(env=env)
            with open(f"/proc/{p.pid}/status") as f:
                status = dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)
            self.assertEqual(status["Uid"].split(), [str(NOBODY)] * 4)
            self.assertEqual(status["Gid"].split(), [str(NOBODY)] * 4)
            self.assertEqual(status["Groups"].strip(), "")
            self.assertEqual(int(status["CapEff"], 16), capeff)
            self.assertEqual(int(status["CapPrm"], 16), capeff)
            self.assertEqual(status["NoNewPrivs"], "1")
            self.assertEqual(self.get(port)[0], 200)
            self.assertIn("running as nobody (uid 65534", self.stderr())
            self.stop(p)
        # --user root keeps root, and says so.
        p, _, port = self.serve("--user", "root")
        with open(f"/proc/{p.pid}/status") as f:
            self.assertRegex(f.read(), r"\nUid:\t0\t0\t0\t0\n")
        self.assertIn("--user root is root: serving as root", self.stderr())
        self.stop(p)

    def test_flags_and_offline_cpu(self):
        # CPU 1: multiplexed and offline (its counts frozen at the first read).
        p, _, port = self.serve("-e", "cycles", env={"FAKE_PMUSCOPE_VAL_FLAGS": "1:0x18"})
        first, second = (samples_of(self.scrape(port)) for _ in range(2))
        self.stop(p)

        def ev(cpu):
            return (("cpu", cpu), ("event", "CPU_CYCLES"), ("exception_level", "el0+el1"))
        for flag in ("lost", "throttled", "clobbered", "multiplexed", "offline"):
            self.assertEqual(second[("pmuscope_event_flag", ev("0") + (("flag", flag),))], 0)
            self.assertEqual(second[("pmuscope_event_flag", ev("1") + (("flag", flag),))],
                             int(flag in ("multiplexed", "offline")), flag)
        self.assertEqual(second[("pmuscope_snapshot_flag", (("cpu", "1"), ("flag", "offline")))],
                         1)
        self.assertEqual(first[("pmuscope_events_total", ev("1"))],
                         second[("pmuscope_events_total", ev("1"))])
        self.assertGreater(second[("pmuscope_events_total", ev("0"))],
                           first[("pmuscope_events_total", ev("0"))])
        self.assertEqual(second[("pmuscope_event_running_seconds_total", ev("1"))] * 2,
                         second[("pmuscope_event_enabled_seconds_total", ev("1"))])

    def test_read_without_snapshots(self):
        # The perf backend, no snapshots: PMUSCOPE_IOC_READ, whose times grow.
        p, _, port = self.serve("-e", "cycles", "--log", self.logfile,
                                env={"FAKE_PMUSCOPE_FEATURES": hex(0x1 | 0x40 | 0x1000),
                                     "FAKE_PMUSCOPE_LOG": os.path.join(self.tmp.name, "ioctls")})
        first, second = (self.scrape(port) for _ in range(2))
        self.stop(p)
        self.assertNotIn("pmuscope_snapshot_method", second)
        (info, _), = second["pmuscope_driver_info"]["samples"].items()
        self.assertEqual(dict(info[1])["backend"], "perf")
        key = ("pmuscope_event_enabled_seconds_total",
               (("cpu", "0"), ("event", "CPU_CYCLES"), ("exception_level", "el0+el1")))
        self.assertEqual((first["pmuscope_event_enabled_seconds_total"]["samples"][key],
                          second["pmuscope_event_enabled_seconds_total"]["samples"][key]),
                         (0.001, 0.002))
        with open(os.path.join(self.tmp.name, "ioctls")) as f:
            log = f.read().splitlines()
        # Configured, reset and enabled once; never reset again, never a snapshot.
        self.assertEqual(log[:3], ["config nr_events=1", "reset", "enable"])
        self.assertEqual(log.count("reset"), 1)
        self.assertFalse([line for line in log if line.startswith("snapshot")])

    def test_failed_read_answers_500(self):
        p, _, port = self.serve("--log", self.logfile, env={"FAKE_PMUSCOPE_SNAP_ERRNO": "5"})
        status, _, body = self.get(port)
        self.assertEqual(status, 500)
        self.assertIn("pmuscope export: scrape failed: snapshot failed: Input/output error", body)
        self.stop(p)
        with open(self.logfile) as f:
            self.assertIn("scrape 1: GET /metrics from 127.0.0.1:", f.read())
        out = os.path.join(self.tmp.name, "textfile")
        os.mkdir(out)
        os.chmod(out, 0o777)
        p = self.start("--textfile", out, "-I", "10", "-n", "3",
                       env={"FAKE_PMUSCOPE_SNAP_ERRNO": "5"})
        self.assertEqual(p.wait(timeout=10), 1)
        self.assertIn("scrape 1 failed: snapshot failed: Input/output error", self.stderr())
        self.assertEqual(os.listdir(out), [])

    def test_snapshot_refused_falls_back_to_read(self):
        p, _, port = self.serve("--log", self.logfile, env={"FAKE_PMUSCOPE_SNAP_ERRNO": "95"})
        fams = [self.scrape(port) for _ in range(2)]
        self.stop(p)
        for f in fams:
            self.assertNotIn("pmuscope_snapshot_method", f)
        key = ("pmuscope_events_total",
               (("cpu", "1"), ("event", "CPU_CYCLES"), ("exception_level", "el0+el1")))
        self.assertEqual([f["pmuscope_events_total"]["samples"][key] for f in fams], [2000, 4000])
        with open(self.logfile) as f:
            self.assertEqual(f.read().count("reading with PMUSCOPE_IOC_READ from now on"), 1)

    def test_values_going_backwards_are_held(self):
        p, _, port = self.serve("-e", "cycles,instructions",
                                env={"FAKE_PMUSCOPE_BACKWARDS": "1"})
        first, second = (samples_of(self.scrape(port)) for _ in range(2))
        self.stop(p)
        events = [k for k in first if k[0] == "pmuscope_events_total"]
        self.assertEqual(len(events), 4)
        for k in events:
            self.assertEqual(second[k], first[k], k)
        self.assertEqual(second[("pmuscope_exporter_backwards_total", ())], 4)

    def test_amu_series(self):
        p, _, port = self.serve("-e", "cycles", env={"FAKE_PMUSCOPE_AMU": "1:offline"})
        fams = self.scrape(port)
        self.stop(p)
        amu = fams["pmuscope_amu_events_total"]["samples"]
        # CPU 0 only (CPU 1 offline since the start); read 1 after the first
        # at startup: each counter at 10^12 plus one step of the fake's rule.
        want = {("0", "0", "CPU_CYCLES"): 10**12 + 10**9, ("0", "1", "CNT_CYCLES"): 10**12 + 5 * 10**8,
                ("0", "2", "INST_RETIRED"): 10**12 + 15 * 10**8,
                ("0", "3", "STALL_BACKEND_MEM"): 10**12 + 25 * 10**7,
                ("1", "0", "STALL_BACKEND"): 10**12 + 1000, ("1", "1", "0x0300"): 10**12 + 2000}
        got = {}
        for (_, labels), value in amu.items():
            d = dict(labels)
            self.assertEqual(d["cpu"], "0")
            got[(d["group"], d["index"], d["type"])] = value
        self.assertEqual(got, want)
        state = fams["pmuscope_amu_state"]["samples"]
        self.assertEqual(state[("pmuscope_amu_state", (("cpu", "1"), ("state", "offline")))], 1)
        self.assertEqual(state[("pmuscope_amu_state", (("cpu", "0"), ("state", "ok")))], 1)
        # No AMU in the driver: no AMU families.
        p, _, port = self.serve(env={"FAKE_PMUSCOPE_FEATURES": "0x201"})
        fams = self.scrape(port)
        self.stop(p)
        self.assertFalse([n for n in fams if n.startswith("pmuscope_amu")])

    def test_sigterm_sigint_and_duration_end_cleanly(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            p, _, port = self.serve("--log", self.logfile)
            self.assertEqual(self.get(port)[0], 200)
            p.send_signal(sig)
            self.assertEqual(p.wait(timeout=10), 0)
        with open(self.logfile) as f:
            log = f.read()
        self.assertIn("SIGTERM: stopping after 1 scrapes", log)
        self.assertIn("SIGINT: stopping after 1 scrapes", log)
        t0 = time.monotonic()
        p, _, port = self.serve("--duration", "1")
        self.assertEqual(p.wait(timeout=10), 0)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertIn("--duration reached", self.stderr())
        out = os.path.join(self.tmp.name, "textfile")
        os.mkdir(out)
        os.chmod(out, 0o777)
        p = self.start("--textfile", out, "-I", "10000")
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(timeout=10), 0)
        self.assertEqual(os.listdir(out), [])


class StatOptionsTest(unittest.TestCase):
    """perf stat's options of pmuscope stat (-r, -x, -o/--append, -A,
    --per-core, -D, -d, -p/-t) against fake_pmuscope.so: READ number n of
    a CPU session gives the k-th CPU count 1000 * (n + 1) * (k + 1) + i for
    event i and time enabled = running = 1000000 * (n + 1) ns, so -r's
    means and spreads are worked out here by hand."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "sysfs")
        self.log = os.path.join(self.tmp.name, "ioctls")
        fake_sysfs(self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def stat(self, *args, env=None, features=None):
        e = {"PMUSCOPE_SYSFS": self.root, "LD_PRELOAD": FAKE, "FAKE_PMUSCOPE_LOG": self.log}
        if features is not None:
            e["FAKE_PMUSCOPE_FEATURES"] = hex(features)
        e.update(env or {})
        if os.path.exists(self.log):
            os.unlink(self.log)
        return run("stat", *args, env=e)

    def ioctls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return f.read().splitlines()

    def topology(self, cores):
        """A sysfs CPU tree where CPU k is on core cores[k] of socket 0."""
        top = os.path.join(self.tmp.name, "cpu")
        for cpu, core in enumerate(cores):
            d = os.path.join(top, f"cpu{cpu}", "topology")
            os.makedirs(d, exist_ok=True)
            for name, value in (("physical_package_id", 0), ("die_id", -1), ("core_id", core)):
                with open(os.path.join(d, name), "w") as f:
                    f.write(f"{value}\n")
        return {"PMUSCOPE_CPU_SYSFS": top}

    def test_repeat_mean_and_spread(self):
        # Three runs, reads n = 0, 1, 2: cycles (i = 0) of CPUs 0 and 1 sum
        # to 3000, 6000, 9000: mean 6000, sample variance 9e6, that of the
        # mean 3e6, its root 1732.05: 28.87%; instructions (i = 1) 3002,
        # 6002, 9002: 1732.05 / 6002 = 28.86%. Run time: mean of 2e6, 4e6, 6e6.
        r = self.stat("-a", "-e", "cycles,instructions", "-r", "3", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(" Performance counter stats for CPUs 0-1 ('true') (3 runs):", r.stdout)
        self.assertRegex(r.stdout, r"\n +6,000 +cycles +\( \+- 28\.87% \)\n")
        self.assertRegex(r.stdout, r"\n +6,002 +instructions .*insn per cycle +\( \+- 28\.86% \)\n")
        self.assertRegex(r.stdout, r"\n +\d+\.\d+ \+- \d+\.\d+ seconds time elapsed")
        r = self.stat("-a", "-e", "cycles,instructions", "-r", "3", "-x", ",", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [
            "6000,,cycles,28.87%,4000000,100.00,,",
            "6002,,instructions,28.86%,4000000,100.00,1.00,insn per cycle"])
        # One run: no spread printed, as perf.
        r = self.stat("-a", "-e", "cycles", "-r", "1", "-x", ",", "--", "true")
        self.assertEqual(r.stdout.splitlines(), ["3000,,cycles,2000000,100.00,,"])
        # The exit status is the last run's.
        r = self.stat("-a", "-e", "cycles", "-r", "2", "--", "sh", "-c", "exit 3")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("(2 runs)", r.stdout)

    def test_repeat_stops_at_sigint_between_runs(self):
        # The first run's command sends pmuscope SIGINT (ignoring it
        # itself) and exits: whether pmuscope takes the signal before the
        # command's end or finds it pending after, -r stops after that run
        # and prints it. Each run adds a line to runs.
        runs = os.path.join(self.tmp.name, "runs")
        cmd = (f'echo x >> {runs}; [ "$(wc -l < {runs})" -gt 1 ] && exit 0; '
               'trap "" INT; kill -INT $PPID')
        r = self.stat("-a", "-e", "cycles", "-r", "1000", "-x", ",", "--", "sh", "-c", cmd)
        with open(runs) as f:
            self.assertEqual(len(f.read().splitlines()), 1, r.stdout)
        # Taken: the command's status; still pending at the end: perf's
        # end, pmuscope dies of it once the report is out.
        self.assertIn(r.returncode, (0, -signal.SIGINT), r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["3000,,cycles,2000000,100.00,,"])

    def test_field_separator_fields(self):
        r = self.stat("-a", "-e", "cycles,instructions:u,r11", "-x", ";", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split(";") for line in r.stdout.splitlines()]
        # value, unit, event, run time, run %, metric value, metric unit
        self.assertEqual(rows, [
            ["3000", "", "cycles", "2000000", "100.00", "", ""],
            ["3002", "", "instructions:u", "2000000", "100.00", "", ""],
            ["3004", "", "r11", "2000000", "100.00", "", ""]])
        # Multiplexed: perf's integer percentage; never-ran: <not counted>.
        r = self.stat("-C", "1", "-e", "cycles,instructions", "-x", ",", "--", "true",
                      env={"FAKE_PMUSCOPE_VAL_FLAGS": "1:8"})
        self.assertEqual(r.stdout.splitlines()[0], "2000,,cycles,500000,50.00,,")
        # A counter that never ran (the fake's task sessions give no values).
        sleeper = subprocess.Popen(["sleep", "0.1"])
        r = self.stat("-t", str(sleeper.pid), "-e", "cycles", "-x", ",", features=TASKS)
        sleeper.wait()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["<not counted>,,cycles,0,100.00,,"])

    def test_no_aggr_sums_to_the_aggregate(self):
        agg = self.stat("-a", "-e", "cycles,instructions", "-x", ",", "--", "true")
        per = self.stat("-a", "-e", "cycles,instructions", "-x", ",", "-A", "--", "true")
        self.assertEqual(per.returncode, 0, per.stderr)
        rows = [line.split(",") for line in per.stdout.splitlines()]
        self.assertEqual([r[:4] for r in rows], [
            ["CPU0", "1000", "", "cycles"], ["CPU1", "2000", "", "cycles"],
            ["CPU0", "1001", "", "instructions"], ["CPU1", "2001", "", "instructions"]])
        self.assertEqual([len(r) for r in rows], [8] * 4)
        self.assertEqual(rows[2][6:], ["1.00", "insn per cycle"])
        totals = {line.split(",")[2]: int(line.split(",")[0]) for line in agg.stdout.splitlines()}
        for ev in ("cycles", "instructions"):
            self.assertEqual(sum(int(r[1]) for r in rows if r[3] == ev), totals[ev])
        table = self.stat("-a", "-e", "cycles", "-A", "--", "true")
        self.assertRegex(table.stdout, r"\nCPU0 +1,000 +cycles\nCPU1 +2,000 +cycles\n")

    def test_per_core(self):
        # Both CPUs on core 0: one row of 2 CPUs; each its own core: two.
        r = self.stat("-a", "-e", "cycles", "-x", ",", "--per-core", "--", "true",
                      env=self.topology([0, 0]))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["S0-D0-C0,2,3000,,cycles,2000000,100.00,,"])
        # Each interval's rows too.
        r = self.stat("-a", "-e", "cycles", "-x", ",", "--per-core", "-I", "10", "--",
                      "sleep", "0.05", env=self.topology([1, 1]))
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split(",") for line in r.stdout.splitlines()]
        self.assertEqual({len(row) for row in rows}, {9, 10})
        self.assertEqual({tuple(row[1:3]) for row in rows if len(row) == 10}, {("S0-D0-C1", "2")})
        self.assertEqual([row[:2] for row in rows if len(row) == 9], [["S0-D0-C1", "2"]])
        r = self.stat("-a", "-e", "cycles,instructions", "--per-core", "--", "true",
                      env=self.topology([0, 1]))
        self.assertRegex(r.stdout, r"\nS0-D0-C0 +1 +1,000 +cycles\nS0-D0-C0 +1 +1,001 +instructions"
                         r".*\nS0-D0-C1 +1 +2,000 +cycles\nS0-D0-C1 +1 +2,001 +instructions")

    def test_output_file_and_append(self):
        out = os.path.join(self.tmp.name, "stat.txt")
        r = self.stat("-a", "-e", "cycles", "-o", out, "--", "true")
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        with open(out) as f:
            first = f.read()
        lines = first.splitlines()
        self.assertRegex(lines[0], r"^# started on \w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4}$")
        self.assertEqual(lines[1:4], ["", "", " Performance counter stats for CPUs 0-1 ('true'):"])
        r = self.stat("-a", "-e", "cycles", "-x", ",", "-o", out, "--append", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            both = f.read()
        self.assertTrue(both.startswith(first))
        rest = both[len(first):].splitlines()
        self.assertTrue(rest[0].startswith("# started on "))
        self.assertEqual(rest[1:], ["", "3000,,cycles,2000000,100.00,,"])
        # Without --append: replaced. --json: no comment line, JSON only.
        r = self.stat("-a", "-e", "cycles", "--json", "-o", out, "--", "true")
        with open(out) as f:
            self.assertEqual(json.loads(f.read())["counters"][0]["count"], 3000)
        r = self.stat("-a", "-e", "cycles", "-o", os.path.join(self.tmp.name, "no", "f"),
                      "--", "true")
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot write", r.stderr)
        self.assertEqual(self.ioctls(), [])

    def test_output_file_not_inherited(self):
        # The command does not get -o's file (O_CLOEXEC): it lists its fds.
        out = os.path.join(self.tmp.name, "stat.txt")
        fds = os.path.join(self.tmp.name, "fds")
        for extra in ((), ("--append",)):
            r = self.stat("-a", "-e", "cycles", "-o", out, *extra, "--", "sh", "-c",
                          f'for f in /proc/$$/fd/*; do readlink "$f"; done > {fds}; true')
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(fds) as f:
                listed = f.read().splitlines()
            self.assertIn(fds, listed)
            self.assertNotIn(out, listed, extra)

    def test_delay(self):
        # The command ends long before the delay: counting never starts.
        t = time.monotonic()
        r = self.stat("-a", "-e", "cycles", "-D", "100000", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertLess(time.monotonic() - t, 30)
        self.assertNotIn("enable", self.ioctls())
        r = self.stat("-a", "-e", "cycles", "-D", "0", "--", "true")
        self.assertIn("enable", self.ioctls())
        # A delayed command counted per task is not armed for its exec:
        # pmuscope enables it after the delay.
        r = self.stat("-e", "cycles", "-D", "0", "--", "true", features=TASKS)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("enable", self.ioctls())
        r = self.stat("-e", "cycles", "--", "true", features=TASKS)
        self.assertNotIn("enable", self.ioctls())

    def test_delay_with_intervals(self):
        # -D 500 -I 100: the intervals start at the enable and are stamped
        # from it, as perf's: the first row ~0.1 s, not the intervals due
        # during the delay printed at once, stamped ~0.5 s from the start.
        r = self.stat("-a", "-e", "cycles", "-D", "500", "-I", "100", "-x", ",", "--",
                      "sleep", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split(",") for line in r.stdout.splitlines() if line]
        times = [float(row[0]) for row in rows if len(row) == 8]  # the total: no time
        self.assertGreater(len(times), 1, r.stdout)
        self.assertLess(times[0], 0.4, r.stdout)
        self.assertEqual(times, sorted(times))
        self.assertLess(times[-1], 1.9, r.stdout)
        # CMD ends within the delay: never enabled, its one row is
        # stamped from the go, not negative from an enable that never was.
        r = self.stat("-a", "-e", "cycles", "-D", "100000", "-I", "100", "-x", ",", "--", "true")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split(",") for line in r.stdout.splitlines() if line]
        self.assertGreaterEqual(float(rows[0][0]), 0, r.stdout)

    def test_detailed(self):
        # The fake's A53 PMCEID: no LL_CACHE_RD, L1D_TLB, L1I_TLB.
        r = self.stat("-a", "-e", "cycles", "-d", "-x", ",", "--", "true")
        self.assertEqual([line.split(",")[2] for line in r.stdout.splitlines()],
                         ["cycles", "L1D_CACHE", "L1D_CACHE_REFILL"])
        r = self.stat("-a", "-e", "L1D_CACHE", "-dd", "-x", ",", "--", "true")
        self.assertEqual([line.split(",")[2] for line in r.stdout.splitlines()],
                         ["L1D_CACHE", "L1D_CACHE_REFILL", "L1I_CACHE", "L1I_CACHE_REFILL",
                          "L1D_TLB_REFILL", "L1I_TLB_REFILL"])

    def test_attach_until_the_process_ends(self):
        sleeper = subprocess.Popen(["sleep", "1"])
        t = time.monotonic()
        r = self.stat("-e", "cycles", "-p", str(sleeper.pid), features=TASKS)
        sleeper.wait()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f" Performance counter stats for process id '{sleeper.pid}':", r.stdout)
        self.assertGreater(time.monotonic() - t, 0.5)
        self.assertEqual(self.ioctls(), ["config nr_events=1", "enable", "disable"])
        # SIGINT ends it before the thread does.
        sleeper = subprocess.Popen(["sleep", "60"])
        try:
            e = dict(os.environ, PMUSCOPE_SYSFS=self.root, LD_PRELOAD=FAKE,
                     FAKE_PMUSCOPE_LOG=self.log, FAKE_PMUSCOPE_FEATURES=hex(TASKS))
            os.unlink(self.log)
            p = subprocess.Popen([CLI, "stat", "-e", "cycles", "-t", str(sleeper.pid)], env=e,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            while "enable" not in self.ioctls():
                self.assertIsNone(p.poll(), p.stderr.read() if p.poll() is not None else "")
                time.sleep(0.01)
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=30)
            self.assertEqual(p.returncode, 0, err)
            self.assertIn(f"thread id '{sleeper.pid}'", out)
            self.assertIsNone(sleeper.poll())
        finally:
            sleeper.kill()
            sleeper.wait()
        # Not allowed by an older driver (EPERM): CAP_PERFMON for any other
        # task, one's own processes too; the paranoid sysctl does not help.
        r = self.stat("-e", "cycles", "-p", str(os.getpid()), features=TASKS,
                      env={"FAKE_PMUSCOPE_TASK_ERRNO": "1"})
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertIn("attaches to another process only with CAP_PERFMON, unless its "
                      "administrator loaded it with task_ours=1", r.stderr)
        self.assertNotIn("perf_event_paranoid", r.stderr)
        # Not allowed by this one (EACCES): not the caller's, as perf says.
        r = self.stat("-e", "cycles", "-p", str(os.getpid()), features=TASKS,
                      env={"FAKE_PMUSCOPE_TASK_ERRNO": "13"})
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertIn("you may attach to a process of your own", r.stderr)
        self.assertIn("another user's needs CAP_PERFMON", r.stderr)
        r = self.stat("-e", "cycles", "-p", str(os.getpid()), features=FEAT_PMU)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("cannot count a task", r.stderr)

    def test_command_that_cannot_run(self):
        # As the shell: 127 not found, 126 found but not executable.
        # The command counted per task, or the CPUs while it runs.
        for args in ((), ("-a",)):
            for cmd, code in command_cannot_run(self.tmp.name):
                r = self.stat(*args, "-e", "cycles", "--", cmd, features=FEAT_PMU | FEAT_TASK)
                self.assertEqual(r.returncode, code, (args, cmd, r.stderr))
                self.assertEqual(r.stderr, f"pmuscope: cannot run '{cmd}': " +
                                 ("No such file or directory\n" if code == 127 else
                                  "Permission denied\n"), (args, cmd))

    def test_refused_combinations(self):
        cases = [
            (("-A", "--", "true"), "-A and --per-core split the counts of CPUs: give -a or -C"),
            (("--per-core", "--", "true"), "give -a or -C"),
            (("-a", "-A", "--per-core"), "-A, --per-core and --per-cpu exclude each other"),
            (("-a", "-A", "--per-cpu"), "-A, --per-core and --per-cpu exclude each other"),
            (("-a", "-A", "--json"), "-A and --per-core are for the table and -x"),
            (("-x", ",", "--csv"), "-x, --json and --csv exclude each other"),
            (("-x", "", "--", "true"), "-x needs a separator"),
            (("-a", "-x", ",", "--per-cpu"), "--per-cpu adds rows to the table: with -x, use -A"),
            (("--append", "--", "true"), "--append needs -o FILE"),
            (("-p", "1", "-a"), "-p and -t exclude -a, -C and a command"),
            (("-t", "1", "--", "true"), "-p and -t exclude -a, -C and a command"),
            (("-p", "x"), "-p needs process ids: 'x'"),
            (("-p", "0"), "-p needs process ids: '0'"),
            (("-r", "3"), "-r runs a command: give one (-- CMD)"),
            (("-r", "0", "--", "true"), "-r needs a number of runs, 1 to 100000: '0'"),
            (("-r", "3", "-I", "100", "--", "true"), "-r and -I exclude each other"),
            (("-r", "3", "--json", "--", "true"), "-r prints means and their spread"),
            (("-r", "3", "-a", "-A", "--", "true"), "-r spreads the totals: not with -A or --per-core"),
            (("-i", "-a", "--", "true"), "-i leaves out a task's children: not with -a or -C"),
            (("-i",), "-i leaves out the children of a command or of -p processes"),
            (("-D", "-1", "--", "true"), "a negative delay (perf's -1: start on a signal) is not supported"),
            (("-D", "1x", "--", "true"), "-D needs a delay of 0 to 86400000 ms"),
        ]
        for args, msg in cases:
            r = self.stat(*args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)
            self.assertEqual(r.stdout, "", args)
            self.assertEqual(self.ioctls(), [], args)
        r = self.stat("-p", "2147483")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("-p: no process 2147483", r.stderr)


if __name__ == "__main__":
    unittest.main()
