# SPDX-License-Identifier: GPL-2.0
"""Host tests of call graphs: pmuscope script, report -g and report
--folded. A program with a known call tree (main -> a -> b -> leaf, main
-> c -> twice (inlined) -> leaf) is built here with the host's gcc (-O1
-g, frame pointers); record files with call chains (format version 2, a
KALLSYMS chunk) are written by test_report.py's writer, their return
addresses taken from the program's own calls (objdump), so every frame's
function, offset and line is known: the expected text is exact."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_report import (CLI, CYCLES, DF_F_CALLCHAIN, INSTS, MAPS_EXEC, REC_SAMPLE,  # noqa: E402
                         F_TIMER, Writer, chunk, CH_RECORDS, maps_lines, record, symbol)

CALLTREE_C = r"""
#include <stdio.h>
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) long leaf(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += (i * i) ^ (s >> 3);
	return s;
}

static inline __attribute__((always_inline)) long twice(long n)
{
	sink += n;
	return leaf(n) + leaf(n + 1);
}

__attribute__((noinline)) long b(long n)
{
	return leaf(n) + 1;
}

__attribute__((noinline)) long a(long n)
{
	return b(n) + 2;
}

__attribute__((noinline)) long c(long n)
{
	return twice(n) + 3;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	printf("%ld %ld\n", a(n), c(n));
	return 0;
}
"""

# The line of "return leaf(n) + leaf(n + 1);" in twice, and of "return twice(n) + 3;".
TWICE_LINE = CALLTREE_C.split("\n").index("\treturn leaf(n) + leaf(n + 1);")
C_LINE = CALLTREE_C.split("\n").index("\treturn twice(n) + 3;")

KALLSYMS = ("ffff800080001000 T do_thing\n"
            "ffff800080002000 t el0_svc\n"
            "ffff800080003000 T modfn\t[pmuscope]\n")
DO_THING, EL0_SVC = 0xffff800080001000, 0xffff800080002000
FREQ, START = 25000000, 1000      # test_report.Writer's counter: 25 MHz, started at 1000
PERIOD = 100000


def return_addresses(path):
    """{(caller, callee): [the address after each call]} from objdump."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True,
                         text=True, check=True).stdout
    calls, fn, pending = {}, None, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            fn, pending = m[1], None
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if not m:
            continue
        addr = int(m[1], 16)
        if pending:
            calls.setdefault(pending, []).append(addr)
            pending = None
        t = re.search(r"<([^>+]+)>$", m[3])
        if m[2] in ("call", "callq", "bl") and t:
            pending = (fn, t[1])
    return calls


def at(time_s, usecs):
    """The record time of @time_s s and @usecs us after the recording started."""
    return START + time_s * FREQ + usecs * FREQ // 1000000


@unittest.skipUnless(shutil.which("gcc") and shutil.which("objdump") and shutil.which("nm"),
                     "needs gcc and binutils")
class CallGraphTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        d = cls.tmp.name
        src = os.path.join(d, "calltree.c")
        with open(src, "w") as f:
            f.write(CALLTREE_C)
        cls.exe = os.path.join(d, "calltree")
        subprocess.run(["gcc", "-static", "-no-pie", "-O1", "-g", "-fno-omit-frame-pointer",
                        "-o", cls.exe, src], check=True, cwd=d)
        cls.sym = {n: symbol(cls.exe, n) for n in ("leaf", "a", "b", "c", "main")}
        calls = return_addresses(cls.exe)
        cls.ret_b = calls[("b", "leaf")][0]
        cls.ret_a = calls[("a", "b")][0]
        cls.ret_main_a = calls[("main", "a")][0]
        cls.ret_main_c = calls[("main", "c")][0]
        cls.ret_c = calls[("c", "leaf")][0]      # in twice, inlined into c

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def run_cli(self, *args):
        return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=60)

    def chains(self):
        leaf = self.sym["leaf"][0]
        chain_a = [leaf + 8, self.ret_b, self.ret_a, self.ret_main_a]
        chain_c = [leaf + 8, self.ret_c, self.ret_main_c]
        return chain_a, chain_c

    def writer(self, kallsyms=True, extra=(), period_ms=0):
        """10 samples of pid 300: 6 main-a-b-leaf, 3 main-c-twice-leaf
        (thread 300, "calltree"), 1 in the kernel under main-a-b-leaf
        (thread 301, "worker")."""
        chain_a, chain_c = self.chains()
        w = Writer([CYCLES, INSTS], version=2, flags=DF_F_CALLCHAIN, max_stack=127,
                   argv=("pmuscope", "record", "-g", "--", "./calltree"), period_ms=period_ms)
        w.maps(300, MAPS_EXEC, 0, "\n".join(maps_lines(self.exe, 0)) + "\n")
        w.comm(300, 300, 0, "calltree")
        w.comm(300, 301, 0, "worker")
        recs = []
        for i in range(6):
            recs.append(record(REC_SAMPLE, cpu=i % 2, time=at(1, 10 * i), pid=300, tid=300,
                               pc=chain_a[0], user=chain_a))
        for i in range(3):
            recs.append(record(REC_SAMPLE, cpu=2, time=at(2, 500000 + i), pid=300, tid=300,
                               pc=chain_c[0], user=chain_c))
        recs.append(record(REC_SAMPLE, cpu=3, time=at(12, 345678), pid=300, tid=301,
                           pc=DO_THING + 0x10, flags=0, kernel=[DO_THING + 0x10, EL0_SVC + 8],
                           user=[self.sym["leaf"][0] + 4] + chain_a[1:]))
        recs.extend(extra)
        w.records(recs)
        if kallsyms:
            w.kallsyms(5, KALLSYMS)
        w.end(at(13, 0), len(recs), 0, 0)
        return w

    def save(self, w, name):
        data = self.path(name)
        w.save(data)
        return data

    def test_script_text(self):
        data = self.save(self.writer(), "script.data")
        r = self.run_cli("script", "-i", data)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        leaf, a, b, c, main = (self.sym[n][0] for n in ("leaf", "a", "b", "c", "main"))
        exe = self.exe

        def frame(addr, sym, start, obj=exe):
            return f"\t{addr:16x} {sym}+0x{addr - start:x} ({obj})"

        tail_a = [frame(self.ret_b, "b", b), frame(self.ret_a, "a", a),
                  frame(self.ret_main_a, "main", main)]
        want = []
        for i in range(6):
            want += [f"calltree     300/300     [{i % 2:03d}]     1.{10 * i:06d}:     100000 "
                     "cycles: ", frame(leaf + 8, "leaf", leaf)] + tail_a + [""]
        for i in range(3):
            want += [f"calltree     300/300     [002]     2.{500000 + i:06d}:     100000 cycles: ",
                     frame(leaf + 8, "leaf", leaf),
                     f"\t{self.ret_c:16x} twice+0x{self.ret_c - c:x} (inlined)",
                     frame(self.ret_c, "c", c), frame(self.ret_main_c, "main", main), ""]
        want += ["worker     300/301     [003]    12.345678:     100000 cycles: ",
                 f"\t{DO_THING + 0x10:16x} do_thing+0x10 ([kernel.kallsyms])",
                 f"\t{EL0_SVC + 8:16x} el0_svc+0x8 ([kernel.kallsyms])",
                 frame(leaf + 4, "leaf", leaf)] + tail_a + [""]
        self.assertEqual(r.stdout.split("\n"), want + [""])

    def test_return_address_looked_up_before_it(self):
        # A return address at the next function's first byte (a call that
        # is the caller's last instruction): the caller, at address - 1.
        leaf, size = self.sym["leaf"]
        b = self.sym["b"][0]
        if leaf + size != b:
            self.skipTest("leaf and b are not contiguous with this gcc")
        w = Writer([CYCLES], version=2, flags=DF_F_CALLCHAIN, max_stack=127)
        w.maps(7, MAPS_EXEC, 0, "\n".join(maps_lines(self.exe, 0)) + "\n")
        w.comm(7, 7, 0, "t")
        # The leaf itself at b's first byte is b: the PC is not a return address.
        w.records([record(REC_SAMPLE, time=START, pid=7, tid=7, pc=b, user=[b, b])])
        w.end(START, 1, 0, 0)
        r = self.run_cli("script", "-i", self.save(w, "adjust.data"))
        self.assertEqual(r.stdout.split("\n")[1:3],
                         [f"\t{b:16x} b+0x0 ({self.exe})",
                          f"\t{b:16x} leaf+0x{size:x} ({self.exe})"])

    def test_script_without_kallsyms_and_chains(self):
        # No KALLSYMS chunk: kernel frames are [unknown]. A record without a
        # chain is its PC alone; pid 0 is swapper.
        extra = [record(REC_SAMPLE, cpu=1, time=at(3, 0), pid=0, tid=0, pc=DO_THING + 4, flags=0),
                 record(REC_SAMPLE, cpu=1, time=at(3, 1), pid=300, tid=300,
                        pc=self.sym["leaf"][0] + 12)]
        data = self.save(self.writer(kallsyms=False, extra=extra), "nokallsyms.data")
        r = self.run_cli("script", "-i", data)
        self.assertEqual(r.returncode, 0, r.stderr)
        blocks = r.stdout.split("\n\n")
        self.assertEqual(blocks[9].split("\n")[1:3],
                         [f"\t{DO_THING + 0x10:16x} [unknown] ([kernel.kallsyms])",
                          f"\t{EL0_SVC + 8:16x} [unknown] ([kernel.kallsyms])"])
        self.assertEqual(blocks[10].split("\n"),
                         ["swapper       0/0       [001]     3.000000:     100000 cycles: ",
                          f"\t{DO_THING + 4:16x} [unknown] ([kernel.kallsyms])"])
        self.assertEqual(blocks[11].split("\n")[1:],
                         [f"\t{self.sym['leaf'][0] + 12:16x} leaf+0xc ({self.exe})"])
        r = self.run_cli("script", "-i", data, "--pid", "0")
        self.assertEqual(r.stdout.count("cycles: \n"), 1)

    def test_kernel_address_past_the_symbols(self):
        # Past the last kallsyms symbol: [unknown], never the last one with
        # a huge offset; below it, the symbol up to the next one.
        extra = [record(REC_SAMPLE, cpu=1, time=at(3, 0), pid=0, tid=0, pc=DO_THING + 4, flags=0,
                        kernel=[0xffffffffffffff00, EL0_SVC + 8])]
        data = self.save(self.writer(extra=extra), "pastkallsyms.data")
        r = self.run_cli("script", "-i", data)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.split("\n\n")[10].split("\n")[1:],
                         ["\tffffffffffffff00 [unknown] ([kernel.kallsyms])",
                          f"\t{EL0_SVC + 8:16x} el0_svc+0x8 ([kernel.kallsyms])"])

    def test_maps_naming_a_fifo(self):
        # A recording whose maps name a FIFO (or a device): not opened as
        # ELF (its open() would block forever), the frames unresolved.
        fifo = self.path("fifo")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        w = Writer([CYCLES], version=2, flags=DF_F_CALLCHAIN, max_stack=127)
        w.maps(300, MAPS_EXEC, 0, f"400000-500000 r-xp 00000000 08:01 1 {fifo}\n")
        w.records([record(REC_SAMPLE, pid=300, tid=300, pc=0x400100, user=[0x400100, 0x400200])])
        w.end(10, 1, 0, 0)
        data = self.save(w, "fifo.data")
        for args in (("script",), ("report",), ("report", "-g")):
            r = subprocess.run([CLI, *args, "-i", data], capture_output=True, text=True,
                               timeout=20)
            self.assertEqual(r.returncode, 0, (args, r.stderr))

    def test_folded(self):
        data = self.save(self.writer(), "folded.data")
        r = self.run_cli("report", "-i", data, "--folded")
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.assertEqual(r.stdout, "calltree;main;a;b;leaf 6\n"
                                   "calltree;main;c;twice;leaf 3\n"
                                   "worker;main;a;b;leaf;el0_svc;do_thing 1\n")
        r = self.run_cli("report", "-i", data, "--folded", "--folded-weight", "period")
        self.assertEqual(r.stdout, "calltree;main;a;b;leaf 600000\n"
                                   "calltree;main;c;twice;leaf 300000\n"
                                   "worker;main;a;b;leaf;el0_svc;do_thing 100000\n")
        # Not resolved: the object in brackets, as stackcollapse-perf.pl.
        w = self.writer(kallsyms=False)
        r = self.run_cli("report", "-i", self.save(w, "folded2.data"), "--folded")
        self.assertIn("worker;main;a;b;leaf;[[kernel.kallsyms]];[[kernel.kallsyms]] 1\n",
                      r.stdout)

    def test_folded_several_events(self):
        # Time-based samples are another event (cpu-clock, period in ns): -e picks.
        leaf = self.sym["leaf"][0]
        extra = [record(REC_SAMPLE, time=at(4, i), pid=300, tid=300, pc=leaf,
                        flags=1 | F_TIMER, user=[leaf]) for i in range(2)]
        data = self.save(self.writer(extra=extra, period_ms=1), "two.data")
        r = self.run_cli("report", "-i", data, "--folded")
        self.assertEqual(r.returncode, 2)
        self.assertIn("several events were sampled (cycles, cpu-clock): choose one with -e",
                      r.stderr)
        r = self.run_cli("report", "-i", data, "--folded", "-e", "cpu-clock")
        self.assertEqual((r.returncode, r.stdout), (0, "calltree;leaf 2\n"))
        r = self.run_cli("report", "-i", data, "--folded", "-e", "CPU_CYCLES")
        self.assertEqual(r.stdout.count("\n"), 3)
        r = self.run_cli("report", "-i", data, "--folded", "-e", "bogus")
        self.assertEqual(r.returncode, 2)
        self.assertIn("-e bogus: " + data + " has no such event; its events: cycles, "
                      "instructions, cpu-clock", r.stderr)
        r = self.run_cli("script", "-i", data)
        # perf's widths: the event names as wide as the longest.
        self.assertIn("calltree     300/300     [000]     4.000000:    1000000 cpu-clock: \n",
                      r.stdout)
        self.assertIn("calltree     300/300     [002]     2.500000:     100000    cycles: \n",
                      r.stdout)

    def entries(self, *args):
        r = self.run_cli("report", "-i", self.save(self.writer(), "g.data"), "--json", *args)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        self.assertEqual(len(out["events"]), 1)
        ev = out["events"][0]
        self.assertEqual((ev["event"], ev["samples"], ev["period"]), ("cycles", 10, 1000000))
        return out, {(e["comm"], e["dso"], e["symbol"]): e for e in ev["entries"]}

    def test_report_children_self(self):
        out, by = self.entries("-g")
        self.assertEqual((out["call_graph"], out["children"], out["sort"]),
                         ("caller", True, ["comm", "dso", "sym"]))
        exe = os.path.basename(self.exe)
        k = "[kernel.kallsyms]"
        want = {("calltree", exe, "leaf"): (90, 90), ("calltree", exe, "main"): (90, 0),
                ("calltree", exe, "a"): (60, 0), ("calltree", exe, "b"): (60, 0),
                ("calltree", exe, "c"): (30, 0), ("worker", k, "do_thing"): (10, 10),
                ("worker", k, "el0_svc"): (10, 0), ("worker", exe, "leaf"): (10, 0),
                ("worker", exe, "b"): (10, 0), ("worker", exe, "a"): (10, 0),
                ("worker", exe, "main"): (10, 0)}
        self.assertEqual({key: (e["children"], e["self"]) for key, e in by.items()}, want)
        self.assertTrue(by[("worker", k, "do_thing")]["kernel"])
        # main's graph, caller order: main -> a -> b -> leaf (60%), main -> c -> twice -> leaf.
        g = by[("calltree", exe, "main")]["callchain"]

        def flat(nodes):
            return [(n["symbol"], n["inlined"], n["percent"], flat(n["calls"])) for n in nodes]

        self.assertEqual(flat(g), [("main", False, 90, [
            ("a", False, 60, [("b", False, 60, [("leaf", False, 60, [])])]),
            ("c", False, 30, [("twice", True, 30, [("leaf", False, 30, [])])])])])
        # --sort sym: the threads together; --no-children: self only, callee order.
        out, by = self.entries("-g", "--sort", "sym")
        self.assertEqual({key[2]: (e["children"], e["self"]) for key, e in by.items()},
                         {"leaf": (100, 90), "main": (100, 0), "a": (70, 0), "b": (70, 0),
                          "c": (30, 0), "do_thing": (10, 10), "el0_svc": (10, 0)})
        out, by = self.entries("-g", "--no-children", "--sort", "dso,sym")
        self.assertEqual(out["call_graph"], "callee")
        self.assertEqual({key[1:]: (e["children"], e["self"]) for key, e in by.items()},
                         {(exe, "leaf"): (None, 90), ("[kernel.kallsyms]", "do_thing"): (None, 10)})
        g = by[(None, exe, "leaf")]["callchain"]
        self.assertEqual(flat(g), [("leaf", False, 90, [
            ("b", False, 60, [("a", False, 60, [("main", False, 60, [])])]),
            ("twice", True, 30, [("c", False, 30, [("main", False, 30, [])])])])])
        # --percent-limit: entries under it go.
        out, by = self.entries("-g", "--sort", "sym", "--percent-limit", "80")
        self.assertEqual(sorted(key[2] for key in by), ["leaf", "main"])

    def test_report_table(self):
        data = self.save(self.writer(), "table.data")
        r = self.run_cli("report", "-i", data, "-g", "--sort", "sym")
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        text = r.stdout
        self.assertIn("# Samples: 10  of event 'cycles'\n# Event count (approx.): 1000000\n", text)
        self.assertIn("# Children      Self  Symbol\n", text)
        self.assertIn("\n   100.00%     0.00%  [.] main\n"
                      "            |\n"
                      "            ---main\n"
                      "               |\n"
                      "               |--70.00%--a\n"
                      "               |          b\n"
                      "               |          leaf\n"
                      "               |          |\n"
                      "               |           --10.00%--el0_svc\n"
                      "               |                     do_thing\n"
                      "               |\n"
                      "                --30.00%--c\n"
                      "                          twice (inlined)\n"
                      "                          leaf\n\n", text)
        self.assertIn("\n    10.00%    10.00%  [k] do_thing\n", text)
        # -g callee as the order, with --children.
        r = self.run_cli("report", "-i", data, "-g", "callee", "--sort", "sym", "-n", "1")
        self.assertIn("\n   100.00%    90.00%  [.] leaf\n"
                      "            |\n"
                      "            ---leaf\n", r.stdout)
        self.assertEqual(r.stdout.count("%  [.]"), 1)

    def test_flamegraph_and_pprof_files(self):
        data = self.save(self.writer(), "files.data")
        svg, pb = self.path("out.svg"), self.path("out.pb.gz")
        r = self.run_cli("report", "-i", data, "--flamegraph", svg, "--pprof", pb)
        self.assertEqual((r.returncode, r.stdout), (0, ""), r.stderr)
        self.assertEqual(r.stderr, f"pmuscope report: flame graph of cycles written to {svg}\n"
                                   f"pmuscope report: pprof profile written to {pb}\n")
        with open(svg) as f:
            titles = re.findall(r"<title>([^<]*)</title>", f.read())
        self.assertIn(f"main ({self.exe}): 10 samples, 1000000 cycles, 100.00%", titles)
        self.assertIn(f"twice ({self.exe}) inlined: 3 samples, 300000 cycles, 30.00%", titles)
        self.assertIn("do_thing ([kernel.kallsyms]): 1 sample, 100000 cycles, 10.00%", titles)
        with open(pb, "rb") as f:
            self.assertEqual(f.read(2), b"\x1f\x8b")
        if shutil.which("go"):
            r = subprocess.run(["go", "tool", "pprof", "-traces", pb], capture_output=True,
                               text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            totals = {}
            for block in r.stdout.split("-----------+")[1:]:
                lines = [x.strip() for x in block.split("\n")[1:] if x.strip()]
                lines = [x for x in lines if not re.match(r"^\w+:\s", x)]
                if not lines:
                    continue
                value, first = lines[0].split(None, 1)
                stack = (first, *lines[1:])
                totals[stack] = totals.get(stack, 0) + int(value)
            self.assertEqual(totals, {
                ("leaf", "b", "a", "main"): 600000,
                ("leaf", "twice (inline)", "c", "main"): 300000,
                ("do_thing", "el0_svc", "leaf", "b", "a", "main"): 100000}, r.stdout)
        # Several events sampled: the flame graph is of one, -e.
        leaf = self.sym["leaf"][0]
        extra = [record(REC_SAMPLE, time=at(4, 0), pid=300, tid=300, pc=leaf, flags=1 | F_TIMER,
                        user=[leaf])]
        two = self.save(self.writer(extra=extra, period_ms=1), "files2.data")
        r = self.run_cli("report", "-i", two, "--flamegraph", svg)
        self.assertEqual(r.returncode, 2)
        self.assertIn("choose one with -e", r.stderr)
        r = self.run_cli("report", "-i", two, "--flamegraph", svg, "-e", "cpu-clock")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(svg) as f:
            self.assertIn(f"leaf ({self.exe}): 1 sample, 1000000 cpu-clock, 100.00%", f.read())
        r = self.run_cli("report", "-i", data, "--pprof", self.path("no/such/dir/x.pb.gz"))
        self.assertEqual((r.returncode, r.stdout), (1, ""))
        self.assertIn("no/such/dir/x.pb.gz", r.stderr)
        r = self.run_cli("report", "-i", data, "--flamegraph", self.path("no/dir/x.svg"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot write", r.stderr)

    def test_pprof_of_a_timer_recording(self):
        # record -F: every sample is the timer's (cpu-clock, its period the
        # interval in ns). pprof's default view and period type are that
        # event's, in nanoseconds, not the first counted event's zeros.
        chain_a = self.chains()[0]
        w = Writer([CYCLES, INSTS], version=2, flags=DF_F_CALLCHAIN, max_stack=127,
                   argv=("pmuscope", "record", "-g", "-F", "100", "--", "./calltree"),
                   period_ms=10, sample_index=0xffffffff, sample_period=0)
        w.maps(300, MAPS_EXEC, 0, "\n".join(maps_lines(self.exe, 0)) + "\n")
        w.comm(300, 300, 0, "calltree")
        w.records([record(REC_SAMPLE, cpu=0, time=at(1, i), pid=300, tid=300, pc=chain_a[0],
                          flags=1 | F_TIMER, user=chain_a) for i in range(5)])
        w.end(at(2, 0), 5, 0, 0)
        data, pb = self.save(w, "timer.data"), self.path("timer.pb.gz")
        r = self.run_cli("report", "-i", data, "--pprof", pb)
        self.assertEqual(r.returncode, 0, r.stderr)
        if not shutil.which("go"):
            self.skipTest("go not installed (scripts/setup.sh installs golang-go)")
        r = subprocess.run(["go", "tool", "pprof", "-top", "-symbolize=none", pb],
                           capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, HOME=self.tmp.name, PPROF_TMPDIR=self.tmp.name))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Type: cpu-clock", r.stdout)
        self.assertIn("Total samples = 50ms", r.stdout)

    def test_pipe_and_directory_input(self):
        # Read, not mapped: script -i - of a pipe prints what the file gives.
        data = self.save(self.writer(), "piped.data")
        want = self.run_cli("script", "-i", data)
        self.assertEqual(want.returncode, 0, want.stderr)
        with open(data, "rb") as f:
            cat = subprocess.Popen(["cat"], stdin=f, stdout=subprocess.PIPE)
            r = subprocess.run([CLI, "script", "-i", "-"], stdin=cat.stdout,
                               capture_output=True, text=True, timeout=60)
            cat.stdout.close()
            cat.wait()
        self.assertEqual((r.returncode, r.stderr, r.stdout), (0, "", want.stdout))
        for args in (("script",), ("report", "-g")):
            r = self.run_cli(*args, "-i", self.tmp.name)
            self.assertEqual((r.returncode, r.stdout), (1, ""), args)
            self.assertEqual(r.stderr, f"pmuscope: {self.tmp.name}: is a directory\n", args)

    def test_usage_errors(self):
        data = self.save(self.writer(), "usage.data")
        for args, msg in [
                (("-g", "--sort", "dso,foo"), "unknown key 'foo': with -g the keys are comm, dso, sym"),
                (("-g", "--sort", "sym,sym"), "repeated key 'sym'"),
                (("--sort", "dso"), "lists of comm, dso, sym need -g"),
                (("--children",), "need -g or --folded"),
                (("-g", "--percent-limit", "101"), "--percent-limit needs a percentage"),
                (("--folded", "--json"), "--folded prints folded stacks"),
                (("-g", "--csv"), "-g prints a table or --json"),
                (("--call-graph=sideways",), "-g takes caller, callee or none")]:
            r = self.run_cli("report", "-i", data, *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(msg, r.stderr, args)
            self.assertEqual(r.stdout, "", args)

    def test_flat_report_reads_chains(self):
        # Without -g the report is today's: the leaf's function, from the PC.
        data = self.save(self.writer(), "flat.data")
        r = self.run_cli("report", "-i", data, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        by = {e["symbol"]: e["samples"] for e in json.loads(r.stdout)["entries"]}
        self.assertEqual(by, {"leaf": 9, "[kernel]": 1})

    def test_bad_chains(self):
        # A chain cut short or corrupt: the byte offset, exit 1, no output.
        leaf = self.sym["leaf"][0]
        good = record(REC_SAMPLE, pid=300, tid=300, pc=leaf, user=[leaf, self.ret_b])
        head = Writer([CYCLES], version=2, flags=DF_F_CALLCHAIN, max_stack=127).data
        first = len(head)
        cut = bytearray(good)
        cut[2:4] = (len(good) - 8).to_bytes(2, "little")     # the last frame not in it
        v0 = bytearray(good)
        v0[48:50] = (0).to_bytes(2, "little")                 # chain version 0
        many = bytearray(good)
        many[54:56] = (100).to_bytes(2, "little")             # nr_user 100
        cases = [
            ("cut", cut[:-8], f"records chunk at byte {first}: call chain at byte 48: "
                              "0 kernel and 2 user frames (32 bytes) in the record's 24 bytes left"),
            ("version0", v0, f"records chunk at byte {first}: call chain at byte 48: version 0"),
            ("nr_user", many, "call chain at byte 48: 0 kernel and 100 user frames"),
            ("second", good + bytes(many), f"call chain at byte {len(good) + 48}: "),
        ]
        for name, rec, msg in cases:
            path = self.path(f"badchain-{name}.data")
            with open(path, "wb") as f:
                f.write(head + chunk(CH_RECORDS, bytes(rec)))
            for args in (("script",), ("report", "-g"), ("report", "--folded"),
                         ("report", "--json")):
                r = self.run_cli(*args, "-i", path)
                self.assertEqual(r.returncode, 1, (name, args, r.stderr))
                self.assertIn(msg, r.stderr, (name, args))
                self.assertIn(path, r.stderr, (name, args))
                self.assertEqual(r.stdout, "", (name, args))

    def test_mutated_files(self):
        # Bytes of a file with chains changed at random (a fixed seed; the
        # sanitized build of tests/host/fuzz-files.sh is the deep check): every
        # run ends in 0, 1 or 2, never in a signal.
        import random
        base = bytes(self.writer().data)
        rng = random.Random(29)
        path = self.path("mutated.data")
        for i in range(60):
            d = bytearray(base)
            for _ in range(rng.randint(1, 8)):
                k = rng.randrange(len(d))
                d[k] = rng.choice([0, 0xff, rng.randrange(256)])
            if i % 5 == 4:
                d = d[:rng.randrange(len(d))]
            with open(path, "wb") as f:
                f.write(d)
            for args in (("script",), ("report", "-g"), ("report", "--folded")):
                r = subprocess.run([CLI, *args, "-i", path], capture_output=True, timeout=60)
                self.assertIn(r.returncode, (0, 1, 2), (i, args, r.stderr[-300:]))
                if r.returncode:
                    self.assertIn(path.encode(), r.stderr, (i, args))


def counts(stderr):
    """PMUSCOPE_REPORT_COUNTS's line: what the graphs and --folded cost."""
    m = re.search(r"counts: graph nodes (\d+), at most (\d+) at once, path steps (\d+), "
                  r"paths (\d+); folded stacks (\d+), names (\d+), name numbers (\d+)", stderr)
    assert m, stderr
    keys = ("nodes", "peak", "steps", "paths", "stacks", "names", "ids")
    return dict(zip(keys, map(int, m.groups())))


def load_counts(stderr):
    """PMUSCOPE_REPORT_COUNTS's loader part: what cg_load() kept."""
    m = re.search(r"; loaded frames (\d+), resolved (\d+), allocations (\d+), bytes (\d+)\n",
                  stderr)
    assert m, stderr
    return dict(zip(("frames", "resolved", "allocs", "bytes"), map(int, m.groups())))


class BoundsTest(unittest.TestCase):
    """Crafted files whose graphs (report -g) and stacks (--folded) were
    quadratic in the chains' depth: what is built is counted
    (PMUSCOPE_REPORT_COUNTS), and bounded by the file's frames."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def data(self, name, chains, kallsyms=None):
        w = Writer([CYCLES], version=2, flags=DF_F_CALLCHAIN, max_stack=127)
        if kallsyms:
            w.kallsyms(1, kallsyms)
        w.records([record(REC_SAMPLE, time=10 + i, pid=100, tid=100, pc=c[0], flags=f,
                          **{"kernel" if f == 0 else "user": c})
                   for i, (c, f) in enumerate(chains)])
        path = os.path.join(self.tmp.name, name)
        w.save(path)
        return path

    def run_counts(self, *args):
        r = subprocess.run([CLI, *args], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, PMUSCOPE_REPORT_COUNTS="1"))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r, counts(r.stderr)

    def test_distinct_deep_chains(self):
        # 400 samples of 127 frames, no frame twice: 50,800 entries, each in
        # one sample (0.25%, under -g's 0.5%). Every entry's graph held
        # every path below it: 400 x 127 x 128 / 2 = 3,251,200 nodes.
        S, D = 400, 127
        data = self.data("deep.data", [([0x1000000 + 16 * (i * D + j) for j in range(D)], 1)
                                       for i in range(S)])
        for args in ((), ("--no-children",), ("callee",), ("--json",)):
            r, c = self.run_counts("report", "-i", data, "-g", *args)
            frames = S * D
            self.assertLessEqual(c["paths"], frames, args)
            self.assertLessEqual(c["nodes"], 2 * frames, (args, c))
            self.assertLessEqual(c["steps"], frames, (args, c))
        # Under the branches' 0.5%, an entry's graph is not printed (as in
        # --json, and as perf's graph,0.5): the entry's line, a blank line.
        r, c = self.run_counts("report", "-i", data, "-g")
        self.assertNotIn("---", r.stdout)
        self.assertEqual(len(re.findall(r"%  :100 +\[unknown\] +\[\.\] 0x", r.stdout)), S * D)
        self.assertIn("     0.25%     0.25%  :100     [unknown]      [.] 0x0000000001000000\n\n",
                      r.stdout)
        # --percent-limit 0: everything, as asked.
        r, c = self.run_counts("report", "-i", data, "-g", "--percent-limit", "0", "-n", "3")
        self.assertEqual(r.stdout.count("---"), 3)
        # Paths are filed for the entries printed with a graph only: none
        # here (each entry at 0.25%), where every entry held one a sample
        # (S x D); with --percent-limit 0, one a sample and entry.
        for args in ((), ("--no-children",), ("--json",)):
            r, c = self.run_counts("report", "-i", data, "-g", *args)
            self.assertEqual((c["paths"], c["steps"]), (0, 0), (args, c))
        r, c = self.run_counts("report", "-i", data, "-g", "--percent-limit", "0", "-n", "3")
        self.assertLessEqual(c["paths"], S * D, c)

    def test_same_deep_chains(self):
        # 300 samples of one 127-frame chain: each of its 127 entries
        # (100%) has a graph; its samples' paths are filed and walked as
        # one (the same chain and thread): 127 paths, a step a node or leaf, where
        # they were 300 x 127 paths and 300 x 127 x 128 / 2 steps.
        S, D = 300, 127
        data = self.data("same.data", [([0x1000000 + 16 * j for j in range(D)], 1)
                                       for i in range(S)])
        for args in ((), ("--no-children",), ("callee",), ("--json",)):
            r, c = self.run_counts("report", "-i", data, "-g", *args)
            self.assertLessEqual(c["paths"], D, (args, c))
            self.assertLessEqual(c["steps"], D * (D + 3) // 2, (args, c))
        r, c = self.run_counts("report", "-i", data, "-g")
        self.assertIn("   100.00%     0.00%  :100", r.stdout)
        self.assertIn("            ---0x0000000001000000\n", r.stdout)

    def test_loader_memory(self):
        # Every frame distinct, as deep64's 7.9 million: the loader held
        # 345 bytes a frame in 2 allocations (a 17-frame resolution, a
        # frame, chained tables). Now the frame (80 bytes), its pointers
        # (by id, in the chains: 16) and its slot (8 to 16), from blocks
        # and doubling arrays: a few dozen allocations in all.
        S, D = 400, 127
        data = self.data("loader.data", [([0x1000000 + 16 * (i * D + j) for j in range(D)], 1)
                                         for i in range(S)])
        for args in (("--folded",), ("-g", "--no-children")):
            r, c = self.run_counts("report", "-i", data, *args)
            lc = load_counts(r.stderr)
            self.assertEqual(lc["frames"], S * D, args)
            self.assertEqual(lc["resolved"], 0, args)  # no file to look in
            self.assertLessEqual(lc["allocs"], 64, (args, lc))
            self.assertLessEqual(lc["bytes"], 160 * S * D + (4 << 20), (args, lc))

    def test_repeated_deep_chain(self):
        # One chain of 127 frames, 200 and then 400 times: every entry is
        # 100%, its graph the chain below it. The nodes: 127 x 128 / 2,
        # however many samples; the paths walked: that a sample (and the
        # ends of the paths, a step each).
        D = 127
        chain = [0x1000000 + 16 * j for j in range(D)]
        got = []
        for S in (200, 400):
            data = self.data(f"same{S}.data", [(chain, 1)] * S)
            r, c = self.run_counts("report", "-i", data, "-g")
            self.assertEqual(c["nodes"], D + D * (D + 1) // 2)
            self.assertLessEqual(c["peak"], D)
            self.assertLessEqual(c["steps"], S * D * (D + 3) // 2)
            got.append(r.stdout.count("\n"))
        self.assertEqual(got[0], got[1])

    def test_folded_distinct_stacks(self):
        # Kernel chains of 127 frames of 20,000 functions with 500-character
        # names: --folded kept each sample's 64 KB line; now each name once
        # and each distinct stack as its names' numbers.
        K, S, D = 2000, 300, 127
        ks = "".join("%016x T %s%06d\n" % (0xffff800080000000 + 0x100 * k, "k" * 500, k)
                     for k in range(K))
        chains = [([0xffff800080000000 + 0x100 * ((i * D + j) % K) for j in range(D)], 0)
                  for i in range(S)]
        data = self.data("wide.data", chains, kallsyms=ks)
        r, c = self.run_counts("report", "-i", data, "--folded")
        lines = r.stdout.splitlines()
        self.assertEqual(c["stacks"], len(lines))
        self.assertLessEqual(c["names"], K + 1)
        self.assertLessEqual(c["ids"], S * (D + 1))
        self.assertEqual(lines, sorted(lines))
        self.assertEqual(sum(int(x.rsplit(" ", 1)[1]) for x in lines), S)
        # The same stack 300 times: one line, 128 numbers kept.
        data = self.data("wide1.data", [chains[0]] * S, kallsyms=ks)
        r, c = self.run_counts("report", "-i", data, "--folded")
        self.assertEqual((c["stacks"], c["ids"]), (1, D + 1))
        self.assertTrue(r.stdout.endswith(" %d\n" % S))


if __name__ == "__main__":
    unittest.main()
