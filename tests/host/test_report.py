# SPDX-License-Identifier: GPL-2.0
"""Host tests of pmuscope report (and record's file): two small programs
built here with the host's gcc, one static non-PIE and one PIE linked with
libc, each with a hot function loop_body; record files written by a small
writer that follows the layout of Documentation/cli.rst ("The record
file"), not by pmuscope's own writer, with maps lines as the kernel prints
them (the PIE at a realistic load base, the real libc.so.6 mapped). The
samples' PCs are known, so the report's functions, shares and counts are
too. Needs tools/build/host (make -C tools host) and elfutils."""

import csv
import io
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import unittest

TOP = os.path.join(os.path.dirname(__file__), "..", "..")
BIN = os.path.join(TOP, "tools", "build", "host")
CLI = os.path.join(BIN, "pmuscope")
CLI_ARM64 = os.path.join(TOP, "tools", "build", "arm64", "pmuscope")

LOOP_C = r"""
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long loop_body(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += (i * i) ^ (s >> 3);
	return s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	printf("%ld\n", loop_body(n));
	return 0;
}
"""

NO_EVENT = 0xFFFFFFFF
EV_USER, EV_KERNEL = 1, 2          # PMUSCOPE_EV_EL0, _EL1
REC_SAMPLE, REC_LOST, REC_THROTTLED = 1, 2, 3
F_USER, F_TIMER, F_CHAIN = 1, 2, 4
CH_RECORDS, CH_MAPS, CH_COMM, CH_EXIT, CH_END, CH_KALLSYMS = 1, 2, 3, 4, 5, 6
DF_F_CALLCHAIN, DF_F_TASK = 1, 2
MAPS_EXEC, MAPS_EXIT, MAPS_END = 1, 2, 3


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def chunk(kind, payload):
    payload = pad8(payload)
    return struct.pack("<II", kind, 8 + len(payload)) + payload


class Writer:
    """A record file as Documentation/cli.rst lays it out."""

    def __init__(self, events, argv=("pmuscope", "record", "--", "./loop"), freq=25000000,
                 sample_index=0, sample_period=100000, period_ms=0, version=1, flags=0,
                 max_stack=0):
        cmdline = b"".join((a if isinstance(a, bytes) else a.encode()) + b"\0" for a in argv)
        evs = b"".join(struct.pack("<II40s40sQ", num, flags, name.encode(), label.encode(), 0)
                       for num, flags, name, label in events)
        # Version 2 appends flags, max_stack and two reserved words.
        v2 = struct.pack("<IIQQ", flags, max_stack, 0, 0) if version >= 2 else b""
        header_size = 64 + len(v2) + len(evs) + len(pad8(cmdline))
        self.data = struct.pack("<8sIIQQIIIIQII", b"PMUSDATA", version, header_size, freq, 1000,
                                len(events), 1, period_ms, sample_index, sample_period,
                                len(argv), len(cmdline)) + v2 + evs + pad8(cmdline)
        self.nr = len(events)

    def kallsyms(self, time, text):
        raw = text.encode()
        self.data += chunk(CH_KALLSYMS, struct.pack("<QII", time, len(raw), 0) + raw)

    def records(self, recs):
        self.data += chunk(CH_RECORDS, b"".join(recs))

    def maps(self, pid, reason, time, text):
        raw = text.encode()
        self.data += chunk(CH_MAPS, struct.pack("<IIQII", pid, reason, time, len(raw), 0) + raw)

    def comm(self, pid, tid, time, name):
        self.data += chunk(CH_COMM, struct.pack("<IIQ16s", pid, tid, time, name.encode()))

    def exit(self, pid, tid, time, status):
        self.data += chunk(CH_EXIT, struct.pack("<IIQiI", pid, tid, time, status, 0))

    def end(self, time, samples, lost, throttled):
        self.data += chunk(CH_END, struct.pack("<QQQQ", time, samples, lost, throttled))

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.data)


def record(kind, cpu=0, time=0, pid=0, tid=0, pc=0, value=0, flags=F_USER, counts=(),
           kernel=None, user=None, chain_flags=0):
    """A record; with @kernel or @user (lists of addresses, innermost
    first) a SAMPLE's struct pmuscope_rec_chain after the counts."""
    tail = b""
    if kernel is not None or user is not None:
        kernel, user = kernel or [], user or []
        flags |= F_CHAIN
        tail = struct.pack("<HHHHII", 1, 16, len(kernel), len(user), chain_flags, 0) + \
            struct.pack(f"<{len(kernel) + len(user)}Q", *kernel, *user)
    return struct.pack("<HHIQIIQQII", kind, 48 + 8 * len(counts) + len(tail), cpu, time, pid,
                       tid, pc, value, flags, len(counts)) + \
        struct.pack(f"<{len(counts)}Q", *counts) + tail


def loads(path):
    """PT_LOAD segments: (offset, vaddr, filesz, memsz, flags)."""
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True,
                         check=True).stdout
    segs = []
    for m in re.finditer(r"^\s*LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+"
                         r"(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+([RWE ]+?)\s+0x", out, re.M):
        segs.append((int(m[1], 16), int(m[2], 16), int(m[3], 16), int(m[4], 16), m[5]))
    return segs


def maps_lines(path, base, inode=1234):
    """What /proc/PID/maps shows of @path loaded with bias @base."""
    lines = []
    for off, vaddr, _filesz, memsz, flags in loads(path):
        start = base + (vaddr & ~0xFFF)
        end = (base + vaddr + memsz + 0xFFF) & ~0xFFF
        perms = ("r" if "R" in flags else "-") + ("w" if "W" in flags else "-") + \
                ("x" if "E" in flags else "-") + "p"
        lines.append(f"{start:012x}-{end:012x} {perms} {off & ~0xFFF:08x} 08:01 {inode}"
                     f"{' ' * 19}{path}")
    return lines


def symbol(path, name, dynamic=False):
    """(address, size) of @name in @path's symbol table."""
    out = subprocess.run(["nm", "-S"] + (["-D"] if dynamic else []) + [path],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3].split("@")[0] == name:
            return int(f[0], 16), int(f[1], 16)
    raise KeyError(name)


def names_at(path, addr, dynamic=False):
    out = subprocess.run(["nm"] + (["-D"] if dynamic else []) + [path],
                         capture_output=True, text=True, check=True).stdout
    return {f[2].split("@")[0] for f in (line.split() for line in out.splitlines())
            if len(f) == 3 and int(f[0], 16) == addr}


def libc_path():
    out = subprocess.run(["gcc", "-print-file-name=libc.so.6"], capture_output=True,
                         text=True).stdout.strip()
    return os.path.realpath(out) if os.path.isabs(out) else None


CYCLES = (0x11, EV_USER | EV_KERNEL, "CPU_CYCLES", "cycles")
INSTS = (0x08, EV_USER | EV_KERNEL, "INST_RETIRED", "instructions")
L1D_REFILL = (0x03, EV_USER | EV_KERNEL, "L1D_CACHE_REFILL", "L1D_CACHE_REFILL")
L1D = (0x04, EV_USER | EV_KERNEL, "L1D_CACHE", "L1D_CACHE")


@unittest.skipUnless(shutil.which("gcc") and shutil.which("readelf") and shutil.which("nm"),
                     "needs gcc and binutils")
class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        src = os.path.join(d, "loop.c")
        with open(src, "w") as f:
            f.write(LOOP_C)
        cls.static = os.path.join(d, "loop-static")
        cls.pie = os.path.join(d, "loop-pie")
        subprocess.run(["gcc", "-static", "-no-pie", "-O1", "-g", "-o", cls.static, src],
                       check=True, cwd=d)
        subprocess.run(["gcc", "-fPIE", "-pie", "-O1", "-g", "-o", cls.pie, src], check=True,
                       cwd=d)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def report(self, data, *args):
        return subprocess.run([CLI, "report", "-i", data, *args], capture_output=True,
                              text=True, timeout=60)

    def samples(self, pid, hot, cold, n=2000, cold_every=20, kernel_every=0, cpus=2):
        """n samples on @cpus CPUs: every cold_every-th at @cold, the rest at
        @hot (+0, +4, ... within it); counts grow by 1000 cycles and 980
        instructions a sample at @hot, 1000 and 500 elsewhere."""
        recs, counts = [], [[0, 0] for _ in range(cpus)]
        for i in range(n):
            cpu = i % cpus
            if kernel_every and i % kernel_every == kernel_every - 1:
                pc, flags, inst = 0xffff800080001000, 0, 500
            elif i % cold_every == cold_every - 1:
                pc, flags, inst = cold, F_USER, 500
            else:
                pc, flags, inst = hot + 4 * (i % 8), F_USER, 980
            counts[cpu][0] += 1000
            counts[cpu][1] += inst
            recs.append(record(REC_SAMPLE, cpu=cpu, time=10000 + 10 * i, pid=pid, tid=pid,
                               pc=pc, flags=flags, counts=counts[cpu]))
        return recs

    def check_hot(self, data, obj, extra_names=None):
        r = self.report(data)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line for line in r.stdout.splitlines() if not line.startswith("#")]
        first = rows[0].split()
        self.assertEqual(first[2:5], ["loop", obj, "loop_body"], r.stdout)
        self.assertGreater(float(first[0].rstrip("%")), 90.0)
        # 1900 samples of 980 instructions per 1000 cycles.
        self.assertEqual(first[-1], "0.98", r.stdout)
        j = self.report(data, "--json")
        self.assertEqual(j.returncode, 0, j.stderr)
        out = json.loads(j.stdout)
        top = out["entries"][0]
        self.assertEqual((top["symbol"], top["object"], top["comm"]), ("loop_body", obj, "loop"))
        self.assertGreater(top["overhead"], 90.0)
        self.assertEqual(top["samples"], 1900)
        self.assertEqual(top["counts"], {"cycles": 1900000, "instructions": 1862000})
        self.assertAlmostEqual(top["metrics"]["ipc"], 0.98)
        self.assertEqual(out["metrics"], ["ipc"])
        self.assertEqual(out["samples"], 2000)
        self.assertEqual(sum(e["samples"] for e in out["entries"]), 2000)
        second = out["entries"][1]
        self.assertEqual(second["samples"], 100)
        if extra_names is not None:
            self.assertIn(second["symbol"], extra_names)
        return out

    def test_static_non_pie(self):
        body, size = symbol(self.static, "loop_body")
        main, _ = symbol(self.static, "main")
        self.assertGreater(size, 32)
        w = Writer([CYCLES, INSTS])
        # No maps until the end (as with -a): the first maps after each sample.
        w.records(self.samples(4242, body, main + 4))
        w.maps(4242, MAPS_END, 99999999, "\n".join(maps_lines(self.static, 0) + [
            "7ffff7ff9000-7ffff7ffd000 r--p 00000000 00:00 0                          [vvar]",
            "7ffff7ffd000-7ffff7fff000 r-xp 00000000 00:00 0                          [vdso]",
            "7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0                          [stack]",
        ]) + "\n")
        w.comm(4242, 4242, 99999999, "loop")
        w.end(99999999, 2000, 0, 0)
        data = self.path("static.data")
        w.save(data)
        out = self.check_hot(data, "loop-static", {"main"})
        self.assertEqual(out["entries"][0]["path"], self.static)
        self.assertTrue(out["complete"])

    @unittest.skipUnless(libc_path(), "no libc.so.6")
    def test_pie_and_shared_library(self):
        libc = libc_path()
        body, _ = symbol(self.pie, "loop_body")
        getpid, _ = symbol(libc, "getpid", dynamic=True)
        base, libc_base = 0x555555554000, 0x7ffff7dc3000
        ld = "7ffff7fc3000-7ffff7fc4000 r--p 00000000 08:01 99 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
        w = Writer([CYCLES, INSTS])
        # At the exec stop: the executable and ld.so, no libc yet.
        w.maps(777, MAPS_EXEC, 5000, "\n".join(maps_lines(self.pie, base) + [ld]) + "\n")
        w.comm(777, 777, 5000, "loop")
        w.records(self.samples(777, base + body, libc_base + getpid + 4))
        # At the exit stop: libc too, loaded by ld.so after the exec.
        w.maps(777, MAPS_EXIT, 90000, "\n".join(
            maps_lines(self.pie, base) + maps_lines(libc, libc_base, 555) + [ld]) + "\n")
        w.exit(777, 777, 90001, 0)
        w.end(90002, 2000, 0, 0)
        data = self.path("pie.data")
        w.save(data)
        out = self.check_hot(data, "loop-pie", names_at(libc, getpid, dynamic=True))
        self.assertEqual(out["entries"][1]["object"], os.path.basename(libc))
        # --pid: another process has nothing.
        j = json.loads(self.report(data, "--json", "--pid", "778").stdout)
        self.assertEqual((j["samples"], j["shown"], j["entries"]), (2000, 0, []))
        j = json.loads(self.report(data, "--json", "--pid", "777", "-n", "1").stdout)
        self.assertEqual(len(j["entries"]), 1)
        # CSV: a header, one row per entry, the event keys and the metric as columns.
        r = self.report(data, "--csv")
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual(list(rows[0]), ["overhead", "samples", "comm", "object", "symbol",
                                         "source", "cycles", "instructions", "ipc"])
        self.assertEqual((rows[0]["symbol"], rows[0]["samples"], rows[0]["ipc"]),
                         ("loop_body", "1900", "0.98"))
        # --symfs: the same files under another root.
        root = self.path("symfs")
        for f in (self.pie, libc):
            os.makedirs(os.path.dirname(root + f), exist_ok=True)
            shutil.copy(f, root + f)
        j = json.loads(self.report(data, "--json", "--symfs", root).stdout)
        self.assertEqual(j["entries"][0]["symbol"], "loop_body")
        j = json.loads(self.report(data, "--json", "--symfs", self.path("nowhere")).stdout)
        self.assertTrue(j["entries"][0]["symbol"].startswith("[unknown] " + self.pie + "+0x"),
                        j["entries"][0])

    @unittest.skipUnless(shutil.which("aarch64-linux-gnu-gcc"), "no aarch64-linux-gnu-gcc")
    def test_arm64_executable_on_this_host(self):
        # What a recording in the arm64 guest needs: its ELF files read here.
        exe = self.path("loop-arm64")
        subprocess.run(["aarch64-linux-gnu-gcc", "-static", "-O1", "-g", "-o", exe,
                        self.path("loop.c")], check=True)
        body, _ = symbol(exe, "loop_body")
        main, _ = symbol(exe, "main")
        w = Writer([CYCLES, INSTS])
        w.records(self.samples(4242, body, main + 4))
        w.maps(4242, MAPS_END, 99999999, "\n".join(maps_lines(exe, 0)) + "\n")
        w.comm(4242, 4242, 99999999, "loop")
        w.end(99999999, 2000, 0, 0)
        data = self.path("arm64.data")
        w.save(data)
        self.check_hot(data, "loop-arm64", {"main"})
        out = json.loads(self.report(data, "--json", "--sort", "line").stdout)
        self.assertRegex(out["entries"][0]["source"], r"^loop\.c:\d+$")

    def test_sort_line(self):
        body, size = symbol(self.static, "loop_body")
        w = Writer([CYCLES, INSTS])
        w.maps(9, MAPS_EXEC, 1, "\n".join(maps_lines(self.static, 0)) + "\n")
        w.comm(9, 9, 1, "loop")
        w.records(self.samples(9, body, body + 8, n=200))
        w.end(10 ** 9, 200, 0, 0)
        data = self.path("line.data")
        w.save(data)
        r = self.report(data, "--sort", "line", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        self.assertEqual(out["sort"], "line")
        self.assertTrue(out["entries"])
        for e in out["entries"]:
            self.assertEqual(e["symbol"], "loop_body")
            self.assertRegex(e["source"], r"^loop\.c:([4-9]|10)$")
        self.assertEqual(sum(e["samples"] for e in out["entries"]), 200)
        r = self.report(data, "--sort", "line")
        self.assertRegex(r.stdout, r"\n# Overhead +Samples +Command +Object +Symbol +Source ")
        self.assertRegex(r.stdout, r"loop_body +loop\.c:\d+")
        self.assertEqual(self.report(data, "--sort", "dso").returncode, 2)

    def test_lost_throttled_kernel_unknown(self):
        body, _ = symbol(self.static, "loop_body")
        w = Writer([CYCLES, INSTS, L1D_REFILL, L1D])
        recs = [record(REC_LOST, cpu=1, value=7), record(REC_THROTTLED, cpu=0)]
        c = [0, 0, 0, 0]
        for i in range(100):
            c = [c[0] + 1000, c[1] + 900, c[2] + 5, c[3] + 100]
            kernel = i % 10 == 0
            recs.append(record(REC_SAMPLE, cpu=0, time=100 + i, pid=31, tid=31,
                               pc=0xffff800080001000 if kernel else body,
                               flags=0 if kernel else F_USER, counts=c))
        # A process without maps, and one in the vdso.
        recs.append(record(REC_SAMPLE, cpu=1, time=300, pid=32, tid=32, pc=0x1234, counts=c))
        recs.append(record(REC_SAMPLE, cpu=1, time=301, pid=31, tid=31, pc=0x7ffff7ffd010,
                           counts=c))
        w.records(recs)
        w.maps(31, MAPS_END, 1000, "\n".join(maps_lines(self.static, 0) + [
            "7ffff7ffd000-7ffff7fff000 r-xp 00000000 00:00 0                          [vdso]"])
            + "\n")
        w.comm(31, 31, 1000, "loop")
        w.end(2000, 102, 7, 1)
        data = self.path("lost.data")
        w.save(data)
        r = self.report(data)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("# 102 samples, lost 7 records, throttled 1 times", r.stdout)
        self.assertIn("# 10 in the kernel, 2 not resolved", r.stdout)
        self.assertRegex(r.stdout, r"# Overhead .* cycles +instructions +L1D_CACHE_REFILL "
                                   r"+L1D_CACHE +ipc +l1d_miss_ratio\n")
        self.assertRegex(r.stdout, r"\n +88\.24% +90 +loop +loop-static +loop_body .* 0\.90 "
                                   r"+5\.00%\n")
        out = json.loads(self.report(data, "--json").stdout)
        self.assertEqual((out["lost"], out["lost_records"], out["throttled"], out["kernel"],
                          out["unresolved"]), (7, 1, 1, 10, 2))
        by = {e["symbol"]: e for e in out["entries"]}
        self.assertEqual(by["[kernel]"]["object"], "[kernel]")
        self.assertEqual(by["[kernel]"]["samples"], 10)
        self.assertEqual(by["[unknown]"]["comm"], ":32")
        self.assertEqual(by["[unknown] [vdso]+0x10"]["object"], "[vdso]")
        # After LOST on CPU 1, its next sample's delta is not attributed.
        self.assertEqual(by["[unknown]"]["counts"]["cycles"], 0)
        self.assertAlmostEqual(by["loop_body"]["metrics"]["l1d_miss_ratio"], 0.05)

    def test_unfinished_recording(self):
        w = Writer([CYCLES])
        w.records([record(REC_SAMPLE, pid=5, pc=0x10, counts=[1000])])
        data = self.path("unfinished.data")
        w.save(data)
        r = self.report(data)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("the recording did not finish (no END chunk)", r.stderr)
        self.assertFalse(json.loads(self.report(data, "--json").stdout)["complete"])

    def test_bad_files(self):
        good = Writer([CYCLES])
        good.records([record(REC_SAMPLE, pid=5, pc=0x10, counts=[1000])])
        good.end(1, 1, 0, 0)
        hdr = len(Writer([CYCLES]).data)
        rec = record(REC_SAMPLE, pid=5, pc=0x10, counts=[1000])
        bad_size = bytearray(rec)
        struct.pack_into("<H", bad_size, 2, 60)          # size 60: not a multiple of 8
        cases = [
            ("magic", b"ELF\0" + good.data[4:], "not a pmuscope record file"),
            ("empty", b"", "not a pmuscope record file"),
            ("version", good.data[:8] + struct.pack("<I", 9) + good.data[12:],
             "record file format version 9 (offset 8): this pmuscope reads versions 1 to 2"),
            ("header", good.data[:40], "not a pmuscope record file"),
            ("cut chunk", good.data[:-8], "cut short"),
            ("cut record", Writer([CYCLES]).data + struct.pack("<II", CH_RECORDS, 48) +
             rec[:40], "record at byte 0 cut short: 40 bytes left"),
            ("size not x8", Writer([CYCLES]).data + chunk(CH_RECORDS, bytes(bad_size)),
             "size 60 is not a multiple of 8"),
            ("record past chunk", Writer([CYCLES]).data + chunk(CH_RECORDS, rec[:48]),
             "record at byte 0 cut short: size 56, 48 bytes left"),
            ("counts", Writer([CYCLES]).data + chunk(CH_RECORDS, rec[:2] +
                                                     struct.pack("<H", 48) + rec[4:48]),
             "size 48 does not hold its 1 counts"),
            ("chunk size", Writer([CYCLES]).data + struct.pack("<II", CH_END, 12) + bytes(8),
             "size 12 (a multiple of 8"),
        ]
        for name, data, msg in cases:
            path = self.path(f"bad-{name.replace(' ', '-')}.data")
            with open(path, "wb") as f:
                f.write(data)
            for fmt in ((), ("--json",)):
                r = self.report(path, *fmt)
                self.assertEqual(r.returncode, 1, (name, r.stderr))
                self.assertIn(msg, r.stderr, name)
                self.assertIn(path, r.stderr, name)
                self.assertEqual(r.stdout, "", name)
        self.assertEqual(hdr % 8, 0)
        r = self.report(self.path("missing.data"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot open", r.stderr)
        r = subprocess.run([CLI, "report", "-n", "0"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("-n needs a number of rows", r.stderr)
        r = subprocess.run([CLI, "report", "--pid", "x"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)

    def test_json_keeps_utf8(self):
        # A function named "hot_café_\xff" (an assembler name), a thread
        # "café\xff", a command line of valid and invalid UTF-8: in the
        # JSON, valid UTF-8 as it is, control characters escaped, each
        # invalid sequence U+FFFD, as Python's decode(errors="replace").
        src, exe = self.path("utf8.c"), self.path("utf8")
        with open(src, "w") as f:
            f.write('__attribute__((noinline)) long hot(long n) __asm__("hot_caf\\303\\251_\\377");\n'
                    "long hot(long n) { long s = 0; for (long i = 0; i < n; i++) s += i ^ s; "
                    "return s; }\nint main(void) { return hot(10) & 1; }\n")
        subprocess.run(["gcc", "-static", "-no-pie", "-O1", "-o", exe, src], check=True)
        nm = subprocess.run(["nm", exe], capture_output=True, check=True).stdout
        hot = int(next(line.split()[0] for line in nm.splitlines()
                       if line.endswith(b" hot_caf\xc3\xa9_\xff")), 16)
        argv = [b"pmuscope", b"record", b"--", b"./caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                b"bad \xff \xc3 \xe2\x82 \xf0\x9f\x98 \xed\xa0\x80 \xc0\xaf \xf4\x90\x80\x80 end",
                b"ctl \x01\x1f\x7f\t\"\\"]
        w = Writer([CYCLES], argv=argv)
        w.records([record(REC_SAMPLE, pid=42, tid=42, pc=hot + 4, counts=[1000])])
        w.maps(42, MAPS_END, 9, "\n".join(maps_lines(exe, 0)) + "\n")
        w.data += chunk(CH_COMM, struct.pack("<IIQ16s", 42, 42, 9, b"caf\xc3\xa9\xff"))
        w.end(10, 1, 0, 0)
        data = self.path("utf8.data")
        w.save(data)
        r = subprocess.run([CLI, "report", "-i", data, "--json"], capture_output=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b'"hot_caf\xc3\xa9_\\ufffd"', r.stdout)      # raw UTF-8, not \u00e9
        self.assertNotIn(b"?", r.stdout)
        out = json.loads(r.stdout.decode("utf-8"))         # strict: valid UTF-8
        self.assertEqual(out["command"], [a.decode(errors="replace") for a in argv])
        self.assertEqual(out["command"][4], "bad \ufffd \ufffd \ufffd \ufffd \ufffd\ufffd\ufffd "
                         "\ufffd\ufffd \ufffd\ufffd\ufffd\ufffd end")
        top = out["entries"][0]
        self.assertEqual((top["symbol"], top["comm"]), ("hot_caf\u00e9_\ufffd", "caf\u00e9\ufffd"))

    def test_pipe_and_directory_input(self):
        # The file is read, not mapped: a pipe (-i - or /dev/stdin) reports
        # as the file does; a directory is said to be one.
        w = Writer([CYCLES])
        w.records([record(REC_SAMPLE, pid=5, pc=0x10, counts=[1000])])
        w.end(1, 1, 0, 0)
        data = self.path("piped.data")
        w.save(data)
        want = self.report(data, "--json")
        self.assertEqual(want.returncode, 0, want.stderr)
        want = json.loads(want.stdout)
        for name in ("/dev/stdin", "-"):
            with open(data, "rb") as f:
                cat = subprocess.Popen(["cat"], stdin=f, stdout=subprocess.PIPE)
                r = subprocess.run([CLI, "report", "-i", name, "--json"], stdin=cat.stdout,
                                   capture_output=True, text=True, timeout=60)
                cat.stdout.close()
                cat.wait()
            self.assertEqual(r.returncode, 0, (name, r.stderr))
            got = json.loads(r.stdout)
            self.assertEqual(got["file"], name)
            self.assertEqual(dict(got, file=data), want, name)
        r = self.report(self.tmp.name)
        self.assertEqual((r.returncode, r.stdout), (1, ""))
        self.assertEqual(r.stderr, f"pmuscope: {self.tmp.name}: is a directory\n")

    def test_arm64_build_has_no_report(self):
        if not os.path.exists(CLI_ARM64):
            self.skipTest("no arm64 build (make -C tools arm64)")
        msg = b"this pmuscope was built without elfutils"
        qemu = shutil.which("qemu-aarch64-static") or shutil.which("qemu-aarch64")
        if qemu:
            r = subprocess.run([qemu, CLI_ARM64, "report", "-i", "x.data"],
                               capture_output=True, timeout=60)
            self.assertEqual(r.returncode, 3)
            self.assertIn(msg + b": copy x.data and run pmuscope report on a machine that "
                          b"has it, with --symfs", r.stderr)
        else:
            with open(CLI_ARM64, "rb") as f:
                self.assertTrue(msg in f.read(), "the message is in the arm64 build")


if __name__ == "__main__":
    unittest.main()
