#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pmuscope's test runner: every test comes from tests/registry.

    tests/run.py --all                 make check: every test, scheduled
                                       over the host's cores
    tests/run.py T=NAME[,NAME...]      make test T=...: those tests alone, a
                 [B=BOOT]              guest test in its smallest boot (or
                                       BOOT), with the builds they need
    tests/run.py U=UNIT                make test U=...: every test of a unit,
                                       a guest test in each of its boots
    tests/run.py B=BOOT                one boot with all its tests
    tests/run.py --list                the registry as a table
    tests/run.py --map                 the reST map of Documentation/testing.rst
    tests/run.py --check-map           fail when testing.rst's map is not --map's
    tests/run.py --tests-of BOOT       the --tests argument of run-guest.sh
    tests/run.py --budgets             each guest test's guest time in the
                                       last logs beside its budget

Every result is one line "PASS|FAIL|SKIP name" (also in build/results.txt);
the last line printed is "N passed, N failed", the exit status non-zero on a
failure. A failure is followed by the command that reruns its test alone.
PMUSCOPE_JOBS sets how many jobs run at once (default: the CPUs, at most 2:
most boots keep one core busy, and the host's builds the other).
"""

import fcntl
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
REGISTRY = os.path.join(TOP, "tests", "registry")
BUILD = os.path.join(TOP, "build")
LOGS = os.path.join(BUILD, "logs")
DOC = os.path.join(TOP, "Documentation", "testing.rst")
MAP_BEGIN = ".. registry-map-begin (tests/run.py --map writes this table)"
MAP_END = ".. registry-map-end"
KINDS = ("build", "lint", "host", "tools", "kunit", "emu", "guest", "check")
FORMATS = ("status", "lines", "unittest", "-")
GUEST_KINDS = ("kunit", "emu", "guest")
# The jobs that build in, or read the modules from, the tree's own
# directories (the modules, tools/build, make install): one at a time.
# The kernels (a lock of their own), compat-6.1, the Debian builds and the
# gate's (copies of the sources) and mkinitramfs (its own lock) run beside.
TREE_JOBS = ("tools", "modules", "initramfs", "lint", "packaging", "abi")
# How long each job took last time (make check's order; outside the tree).
TIMINGS = os.path.join(os.environ.get("PMUSCOPE_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
    "pmuscope"), "timings.json")

sys.path.insert(0, os.path.join(TOP, "scripts"))
import pmuscope_console  # noqa: E402


class RegistryError(Exception):
    pass


class Boot:
    def __init__(self, name, needs, overhead, scale, gate, options, what=""):
        self.name, self.needs, self.overhead, self.scale = name, needs, overhead, scale
        self.gate, self.options, self.what = gate, options, what

    @property
    def icount(self):
        return "--icount" in self.options


class Test:
    def __init__(self, name, kind, unit, budget, where, fmt, command, line):
        self.name, self.kind, self.unit, self.budget = name, kind, unit, budget
        self.where, self.fmt, self.command, self.line = where, fmt, command, line

    @property
    def guest(self):
        return self.kind in GUEST_KINDS


def parse_registry(path=REGISTRY):
    """(boots {name: Boot} in order, tests [Test] in order); RegistryError."""
    boots, tests, section, said = {}, [], None, []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            if raw.startswith("# ") and section == "boots":
                said.append(raw[2:].strip())    # what the next boot proves
                continue
            line = raw.split("#", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
            if not line.strip():
                said = []
                continue
            where = f"{path}:{n}"
            if line.startswith("== "):
                section = line[3:].strip()
                if section not in ("boots", "tests"):
                    raise RegistryError(f"{where}: unknown section {section!r}")
                continue
            w = line.split()
            if section == "boots":
                if len(w) < 5 or not w[2].isdigit() or not re.match(r"^x\d+$", w[3]):
                    raise RegistryError(f"{where}: want NAME NEEDS OVERHEAD xSCALE OPTIONS")
                gate = w[4] == "gate"
                opts = w[5:] if gate else w[4:]
                if w[0] in boots:
                    raise RegistryError(f"{where}: boot {w[0]} twice")
                boots[w[0]] = Boot(w[0], w[1], int(w[2]), int(w[3][1:]), gate, opts,
                                   " ".join(said))
                said = []
            elif section == "tests":
                if len(w) < 7:
                    raise RegistryError(f"{where}: want NAME KIND UNIT BUDGET WHERE FORMAT COMMAND")
                name, kind, unit, budget, wh, fmt = w[:6]
                command = line.split(None, 6)[6]
                if kind not in KINDS:
                    raise RegistryError(f"{where}: kind {kind!r} is none of {', '.join(KINDS)}")
                if fmt not in FORMATS:
                    raise RegistryError(f"{where}: format {fmt!r} is none of {', '.join(FORMATS)}")
                if not budget.isdigit():
                    raise RegistryError(f"{where}: budget {budget!r} is not a number of seconds")
                if any(t.name == name for t in tests):
                    raise RegistryError(f"{where}: test {name} twice")
                tests.append(Test(name, kind, unit, int(budget),
                                  [] if wh == "-" else wh.split(","), fmt,
                                  "" if command == "-" else command, n))
            else:
                raise RegistryError(f"{where}: a line before any section")
    names = {t.name for t in tests}
    for t in tests:
        if t.guest:
            if t.fmt != "-":
                raise RegistryError(f"{path}:{t.line}: a guest test's FORMAT is '-'")
            if not os.path.exists(os.path.join(TOP, "tests", "guest", f"t-{t.name}.sh")):
                raise RegistryError(f"{path}:{t.line}: no tests/guest/t-{t.name}.sh")
            for b in t.where:
                if b not in boots:
                    raise RegistryError(f"{path}:{t.line}: no boot {b}")
        elif t.kind == "check":
            for b in t.where:
                if b not in boots and b not in names:
                    raise RegistryError(f"{path}:{t.line}: no boot or build {b}")
        else:
            for b in t.where:
                if b not in names:
                    raise RegistryError(f"{path}:{t.line}: needs {b}: no such test")
    for b in boots.values():
        if b.needs not in names:
            raise RegistryError(f"{path}: boot {b.name} needs {b.needs}: no such build")
        # Another build than the test kernel's initramfs makes its own:
        # the boot must name it (a 6.1 kernel with 6.12's modules fails).
        if b.needs != "initramfs" and "--initrd" not in b.options:
            raise RegistryError(f"{path}: boot {b.name} needs {b.needs} but names no "
                                "--initrd (the default is the test kernel's)")
    return boots, tests


def boot_tests(boot, tests, only=None):
    """The guest tests boot BOOT runs (only those named in ONLY, if given)."""
    sel = [t for t in tests if t.guest and boot.name in t.where and
           (only is None or t.name in only)]
    return sel


def tests_arg(boot, sel):
    """run-guest.sh --tests: NAME:BUDGET,... (each budget times the boot's
    scale) with a gate boot's ends."""
    parts = [f"{t.name}:{t.budget * boot.scale}" for t in sel]
    if boot.gate:
        parts = ["gate-begin:300"] + parts + ["gate-end:600"]
    return ",".join(parts)


def fill(s, **kw):
    for k, v in kw.items():
        s = s.replace("{" + k + "}", v)
    return s


def commit():
    try:
        return subprocess.run(["git", "-C", TOP, "rev-parse", "--short=7", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "0"


FAULT_WINDOWS, FAULT_SPACING = 8, 125


def faults_site():
    """The module-load fault scan's first site: 8 windows, 125 sites apart
    (75 s of the scan runs about 140 sites), picked by the commit so that
    any 8 successive commits' windows together cover all ~930."""
    rev = commit()
    try:
        win = int(rev, 16) % FAULT_WINDOWS
    except ValueError:
        win = 0
    return win * FAULT_SPACING + 1, win + 1, rev


# ----------------------------------------------------------------- jobs
class Job:
    """One thing to run: a build, a host test, a boot or a check."""

    def __init__(self, name, cost, deps, lock):
        self.name, self.cost, self.deps, self.lock = name, cost, set(deps), lock
        self.ok = None          # None: not run; True/False
        self.results = []       # "PASS|FAIL|SKIP name" lines
        self.reruns = set()
        self.seconds = 0
        self.cpu = 0            # a boot's CPU seconds (QEMU's)

    def result(self, status, name):
        self.results.append(f"{status} {name}")


def log_path(name):
    return os.path.join(LOGS, re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".log")


def run_cmd(cmd, log, timeout, env=None):
    """(exit status, output); 124 past TIMEOUT seconds."""
    with open(log, "w") as f:
        try:
            p = subprocess.Popen(cmd, shell=True, cwd=TOP, stdout=f, stderr=subprocess.STDOUT,
                                 env=env, start_new_session=True)
            try:
                rc = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                p.wait()
                rc = 124
                f.write(f"\n(stopped past its budget of {timeout} s)\n")
        except OSError as e:
            f.write(str(e))
            rc = 127
    with open(log, errors="replace") as f:
        return rc, f.read()


UNITTEST = re.compile(r"^(test_\w+) \(([^)]*)\)(?:\s*\n?.*?)? \.\.\. ?(.*)$", re.M)


class TestJob(Job):
    def __init__(self, test, deps):
        super().__init__(test.name, test.budget, deps,
                         "tree" if test.name in TREE_JOBS else None)
        self.test = test

    def run(self):
        t = self.test
        log = log_path(t.name)
        cmd = t.command
        if t.fmt == "unittest":
            cmd = f"python3 -m unittest -v {t.command}"
        rc, out = run_cmd(fill(cmd, rev=commit()), log, t.budget)
        rel = os.path.relpath(log, TOP)
        if t.fmt == "status":
            if rc == 0:
                self.result("PASS", t.name)
            else:
                self.result("FAIL", f"{t.name} (exit {rc}, see {rel})")
                for line in out.splitlines()[-30:]:
                    print("    " + line)
        elif t.fmt == "lines":
            n = 0
            for m in re.finditer(r"^(PASS|FAIL|SKIP) (.*)$", out, re.M):
                self.result(m.group(1), f"{t.name}/{m.group(2)}")
                n += 1
            if rc != 0 and not any(r.startswith("FAIL") for r in self.results):
                self.result("FAIL", f"{t.name} (exit {rc}, see {rel})")
            elif n == 0:
                self.result("FAIL", f"{t.name}: no result (see {rel})")
        elif t.fmt == "unittest":
            for m in UNITTEST.finditer(out):
                v = m.group(3)
                # "tests.host.test_cli.CliTest.test_x" (3.11) or "CliTest"
                where = m.group(2).removeprefix("tests.host.")
                if not where.endswith(m.group(1)):
                    where += "." + m.group(1)
                if v.endswith("ok"):
                    self.result("PASS", f"{t.name}/{where}")
                elif "skipped" in v:
                    self.result("SKIP", f"{t.name}/{where}")
                else:
                    self.result("FAIL", f"{t.name}/{where}")
            if not re.search(r"^OK", out, re.M):
                self.result("FAIL", f"{t.name} (see {rel})")
        self.ok = not any(r.startswith("FAIL") for r in self.results)
        if not self.ok:
            self.reruns.add(f"make test T={t.name}")


class BootJob(Job):
    def __init__(self, boot, sel, deps, full):
        cost = boot.overhead + sum(t.budget for t in sel) * (3 if boot.icount else 1)
        # The debug kernel's boots (smp 2, KASAN) one at a time, as the old
        # gate lane ran them: two at once load both cores with four vCPUs,
        # and the timing-sensitive checks in them (the sequence fuzzer,
        # soak) then meet QEMU's PMU timer races far more often.
        super().__init__(f"boot {boot.name}", cost, deps, "gate" if boot.gate else None)
        self.boot, self.sel, self.full = boot, sel, full

    def run(self):
        b = self.boot
        log = os.path.join(LOGS, f"guest-{b.name}.log")
        out = log[:-4] + ".d"
        subprocess.run(["rm", "-rf", out])
        first, win, rev = faults_site()
        opts = [fill(o, faults=str(first)) for o in b.options]
        if any("pmuscope_faults_load" in o for o in opts):
            print(f"# {b.name}: module-load fault scan from site {first}, window {win} of {FAULT_WINDOWS} "
                  f"(from commit {rev}; the whole scan: make faults)", flush=True)
        if any(t.name == "fuzz" for t in self.sel):
            # The fuzzer's seed from the commit too: successive commits
            # try other sequences; FUZZ_SEED in the environment repeats one.
            seed = os.environ.get("FUZZ_SEED") or str(int(rev, 16) if rev != "0" else 1)
            opts += ([] if "--append" in opts else ["--append"]) + [f"FUZZ_SEED={seed}"]
            print(f"# {b.name}: pmuscope-fuzz seed {seed} (from commit {rev}; "
                  f"FUZZ_SEED={seed} repeats it)", flush=True)
        # Append options are one run-guest.sh argument.
        if "--append" in opts:
            i = opts.index("--append")
            opts = opts[:i] + ["--append", " ".join(opts[i + 1:])]
        budget = sum(t.budget for t in self.sel) * b.scale + (900 if b.gate else 0)
        # The host's limit catches a guest that hangs; each test's own
        # budget (guest time) is the one that fails a slow test. Under
        # -icount a guest second is ~10 host seconds of TCG. Where this
        # boot ran whole before, 3 times that (at least 10 minutes: two
        # busy processes beside make check halve its share), if less.
        backstop = 3 * b.overhead + budget * (10 if b.icount else 3)
        try:
            with open(TIMINGS) as f:
                last = json.load(f).get(self.name)
            if self.full and isinstance(last, (int, float)):
                backstop = min(backstop, max(600, 3 * int(last)))
        except (OSError, ValueError):
            pass
        cmd = ["scripts/run-guest.sh", *opts, "--tests", tests_arg(b, self.sel),
               "--out", out, "--log", log, "--timeout", str(backstop)]
        s = time.time()
        p = subprocess.Popen(cmd, cwd=TOP, stdout=subprocess.DEVNULL,
                             stderr=subprocess.STDOUT)
        # wait4: the boot's CPU time too (QEMU's threads, user and system),
        # the work it costs the host's cores whatever else runs beside.
        try:
            _, status, use = os.wait4(p.pid, 0)
        except BaseException:
            p.kill()
            p.wait()
            raise
        p.returncode = rc = os.waitstatus_to_exitcode(status)
        self.cpu = use.ru_utime + use.ru_stime
        print(f"# guest {b.name}: qemu exit {rc} after {time.time() - s:.0f} s, "
              f"{self.cpu:.0f} CPU s ({' '.join(shlex.quote(c) for c in cmd[1:])})", flush=True)
        if rc == 124:
            self.result("FAIL", f"{b.name}/boot timed out (host limit {backstop} s)")
        try:
            with open(log, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        con = pmuscope_console.parse(text)
        names = {t.name for t in self.sel}
        ktap = "kunit" in names
        for line in pmuscope_console.report(con, b.name, ktap):
            self.results.append(line)
            if line.startswith("FAIL"):
                m = re.search(r"\[t-([\w.-]+)\]|/guest/t-([\w.-]+)\.sh", line)
                t = (m.group(1) or m.group(2)) if m else None
                if t in names:
                    self.reruns.add(f"make test T={t} B={b.name}")
                elif t is None and "/kunit/" in line:
                    self.reruns.add(f"make test T=kunit B={b.name}")
                else:
                    self.reruns.add(f"make test B={b.name}")
        # The host's half of the tests that have one.
        for t in self.sel:
            if not t.command:
                continue
            clog = log_path(f"{t.name}-{b.name}")
            rc, outp = run_cmd(fill(t.command, boot=b.name, log=os.path.relpath(log, TOP)),
                               clog, 600)
            got = 0
            for m in re.finditer(r"^(PASS|FAIL|SKIP) (.*)$", outp, re.M):
                self.result(m.group(1), m.group(2))
                got += 1
                if m.group(1) == "FAIL":
                    self.reruns.add(f"make test T={t.name} B={b.name}")
            if not got:
                self.result("FAIL", f"{b.name}/{t.name}: host check gave no result "
                            f"(see {os.path.relpath(clog, TOP)})")
                self.reruns.add(f"make test T={t.name} B={b.name}")
        self.ok = not any(r.startswith("FAIL") for r in self.results)


# ------------------------------------------------------------ selection
def plan(boots, tests, mode, names=None, boot=None):
    """The jobs for: mode all, T (names), U (a unit), B (a boot)."""
    by = {t.name: t for t in tests}
    want_tests, want_boots = [], {}     # boot -> set of test names (None: all)
    if mode == "all":
        want_tests = [t for t in tests if not t.guest]
        for b in boots:
            want_boots[b] = None
    elif mode == "T":
        for n in names:
            if n not in by:
                close = [t.name for t in tests if n in t.name]
                raise RegistryError(f"no test {n} in tests/registry" +
                                    (f" (did you mean {', '.join(close)}?)" if close else ""))
            t = by[n]
            if t.guest:
                b = boot or t.where[0]
                if b not in t.where:
                    raise RegistryError(f"{n} does not run in boot {b}; its boots: "
                                        f"{', '.join(t.where)}")
                want_boots.setdefault(b, set()).add(n)
            else:
                want_tests.append(t)
                if t.kind == "check":
                    for b in t.where:
                        if b in boots:
                            want_boots[b] = None
    elif mode == "U":
        sel = [t for t in tests if t.unit == names[0]]
        if not sel:
            units = sorted({t.unit for t in tests})
            raise RegistryError(f"no unit {names[0]}; the units: {', '.join(units)}")
        for t in sel:
            if t.guest:
                for b in t.where:
                    if want_boots.get(b, set()) is not None:
                        want_boots.setdefault(b, set()).add(t.name)
            else:
                want_tests.append(t)
    elif mode == "B":
        if boot not in boots:
            raise RegistryError(f"no boot {boot}; the boots: {', '.join(boots)}")
        want_boots[boot] = None
    # The builds all of that needs, transitively.
    need = set()

    def add(n):
        if n in need:
            return
        need.add(n)
        for d in by[n].where:
            if d in by:
                add(d)
    for t in want_tests:
        for d in t.where:
            if d in by:             # a build (a check's boots are jobs below)
                add(d)
    for b in want_boots:
        add(boots[b].needs)
    jobs = {}
    for t in tests:
        if t.guest:
            continue
        if t in want_tests or t.name in need:
            deps = [d if d in by else f"boot {d}" for d in t.where]
            jobs[t.name] = TestJob(t, deps)
    for b, only in want_boots.items():
        sel = boot_tests(boots[b], tests, only)
        if not sel:
            continue
        jobs[f"boot {b}"] = BootJob(boots[b], sel, [boots[b].needs], only is None)
    for j in jobs.values():
        j.deps &= set(jobs)
    return jobs


# ------------------------------------------------------------ scheduling
def schedule(jobs, slots, results_file):
    """Run JOBS, SLOTS at a time, the longest chain first; a job whose
    dependency failed fails unrun. Returns every result line."""
    # A job's priority: its cost plus the longest chain that waits on it.
    users = {n: [m for m, j in jobs.items() if n in j.deps] for n in jobs}
    prio = {}
    try:
        with open(TIMINGS) as f:
            seen = json.load(f)
    except (OSError, ValueError):
        seen = {}

    def last(n):
        t = seen.get(n) if getattr(jobs[n], "full", True) else None
        return t if isinstance(t, (int, float)) else None
    # A job not timed yet: its budget, scaled by what the timed jobs of its
    # kind (boots, the rest) took of theirs, the median ratio: budgets are
    # limits, many times what a job takes, and a budget beside a measured
    # time put 20 small boots before the gate's build and its 17 minutes
    # of boots.
    def scale(boot):
        r = sorted(last(n) / j.cost for n, j in jobs.items()
                   if isinstance(j, BootJob) == boot and last(n) is not None and j.cost > 0)
        return r[len(r) // 2] if r else 1.0
    scales = {True: scale(True), False: scale(False)}

    def cost(n):
        # The time it took last (a whole boot's, a test's), else its budget.
        t = last(n)
        return t if t is not None else jobs[n].cost * scales[isinstance(jobs[n], BootJob)]

    def chain(n):
        if n not in prio:
            prio[n] = cost(n) + max((chain(u) for u in users[n]), default=0)
        return prio[n]
    below = {}

    def downstream(n):
        # Every job that waits on n, directly or not.
        if n not in below:
            below[n] = set(users[n])
            for u in users[n]:
                below[n] |= downstream(u)
        return below[n]
    for n in jobs:
        chain(n)
    # A job that many others wait on goes first even where its longest
    # chain is short (the modules before 20 boots): its priority is the
    # larger of its longest chain and its share of all the work after it.
    for n in jobs:
        prio[n] = max(prio[n], cost(n) + sum(cost(d) for d in downstream(n)) / slots)
    done, running, lines = set(), {}, []
    lock = threading.Lock()
    cond = threading.Condition(lock)
    held = set()

    def worker(name):
        j = jobs[name]
        s = time.time()
        try:
            j.run()
        except Exception as e:  # a runner bug must not hang make check
            j.result("FAIL", f"{name}: runner error: {e!r}")
            j.ok = False
        j.seconds = time.time() - s
        with cond:
            for r in j.results:
                lines.append(r)
                with open(results_file, "a") as f:
                    f.write(r + "\n")
                if not r.startswith("PASS"):
                    print(r, flush=True)
            n_pass = sum(r.startswith("PASS") for r in j.results)
            print(f"# {name}: {n_pass} passed, {len(j.results) - n_pass} other, "
                  f"{time.time() - s:.0f} s", flush=True)
            del running[name]
            held.discard(j.lock)
            done.add(name)
            cond.notify_all()

    def save():
        # Read again and merge under a lock: a make test beside make check
        # must not put back the file it read at its start (it did: the
        # timings of a whole make check went, and with them the order).
        mine = {n: round(j.seconds) for n, j in jobs.items()
                if j.ok is not None and j.seconds and getattr(j, "full", True)}
        try:
            os.makedirs(os.path.dirname(TIMINGS), exist_ok=True)
            with open(TIMINGS + ".lock", "w") as lk:
                fcntl.flock(lk, fcntl.LOCK_EX)
                try:
                    with open(TIMINGS) as f:
                        now = json.load(f)
                except (OSError, ValueError):
                    now = {}
                now.update(mine)
                with open(TIMINGS + ".tmp", "w") as f:
                    json.dump(now, f, indent=1, sort_keys=True)
                os.replace(TIMINGS + ".tmp", TIMINGS)
        except OSError:
            pass

    with cond:
        while len(done) < len(jobs):
            ready = []
            for n, j in jobs.items():
                if n in done or n in running or not j.deps <= done:
                    continue
                bad = [d for d in j.deps if not jobs[d].ok]
                # A check reads what its boots left (coverage data, the
                # fidelity reductions): it runs after a boot that failed
                # too, and says what is missing.
                if isinstance(j, TestJob) and j.test.kind == "check":
                    bad = [d for d in bad if not d.startswith("boot ")]
                if bad:
                    j.result("FAIL", f"{n}: not run, {bad[0]} failed")
                    j.ok = False
                    j.reruns.add(f"(fix {bad[0]} first)")
                    lines.extend(j.results)
                    with open(results_file, "a") as f:
                        f.write("\n".join(j.results) + "\n")
                    print(j.results[-1], flush=True)
                    done.add(n)
                    continue
                if j.lock and j.lock in held:
                    continue
                ready.append(n)
            if len(done) == len(jobs):
                break
            if ready and len(running) < slots:
                n = max(ready, key=lambda x: prio[x])
                running[n] = threading.Thread(target=worker, args=(n,), daemon=True)
                if jobs[n].lock:
                    held.add(jobs[n].lock)
                running[n].start()
                continue
            cond.wait()
    save()
    return lines


def run(jobs, title):
    os.makedirs(LOGS, exist_ok=True)
    results = os.path.join(BUILD, "results.txt")
    open(results, "w").close()
    t0 = time.time()
    slots = int(os.environ.get("PMUSCOPE_JOBS", "0") or 0) or min(2, os.cpu_count() or 1)
    lines = schedule(jobs, slots, results)
    fails = [r for r in lines if r.startswith("FAIL")]
    skips = [r for r in lines if r.startswith("SKIP")]
    print()
    print(f"{title}: {time.time() - t0:.0f} s; logs in build/logs, results in build/results.txt")
    if "coverage" in jobs and os.path.exists(os.path.join(BUILD, "coverage.txt")):
        with open(os.path.join(BUILD, "coverage.txt")) as f:
            for line in f:
                if "not run:" not in line and "only here:" not in line:
                    print("# " + line.rstrip())
    wraps = []
    for j in jobs.values():
        if isinstance(j, BootJob):
            try:
                with open(os.path.join(LOGS, f"guest-{j.boot.name}.log"), errors="replace") as f:
                    wraps += [ln.strip() for ln in f if ln.startswith("pmuscope-wrap:")]
            except OSError:
                pass
    if wraps:
        print("# CPU_CYCLES totals, event counter vs cycle counter:")
        for w in wraps:
            print("#   " + w)
    slow = sorted(jobs.values(), key=lambda j: -j.seconds)[:8]
    print("# longest: " + ", ".join(f"{j.name} {j.seconds:.0f} s" for j in slow))
    boots = sorted((j for j in jobs.values() if j.cpu), key=lambda j: -j.cpu)
    if boots:
        print(f"# boots' CPU time: {sum(j.cpu for j in boots):.0f} s in all; "
              + ", ".join(f"{j.name} {j.cpu:.0f}" for j in boots[:8]))
    if fails:
        print("Failures:")
        for r in fails:
            print("  " + r)
        print("Rerun alone:")
        for c in sorted({c for j in jobs.values() if not j.ok for c in j.reruns}):
            print("  " + c)
    if skips:
        print(f"Skipped ({len(skips)}):")
        for r in skips:
            print("  " + r)
    npass = sum(r.startswith("PASS") for r in lines)
    print(f"{npass} passed, {len(fails)} failed")
    return 0 if not fails else 1


# ------------------------------------------------------------------ map
def rst_map(boots, tests):
    """The reST table of testing.rst: every test, where it runs."""
    rows = [("Test", "Kind", "Unit", "Budget", "Runs in / needs", "File")]
    for t in tests:
        if t.guest:
            f = f"tests/guest/t-{t.name}.sh"
        elif t.command:
            w = t.command.split()
            f = next((x for x in w if "/" in x and not x.startswith("build/")), w[0])
            if t.fmt == "unittest":
                f = t.command.replace(".", "/") + ".py"
        else:
            f = "(the guest test)"
        rows.append((f"``{t.name}``", t.kind, t.unit, f"{t.budget} s",
                     ", ".join(t.where) or "none", f))
    rows2 = [("Boot", "What it proves", "Tests (tests/registry order)", "run-guest.sh options")]
    for b in boots.values():
        sel = boot_tests(b, tests)
        rows2.append((f"``{b.name}``", b.what or "-",
                      ", ".join(t.name for t in sel) +
                      (" (gate-begin, gate-end around)" if b.gate else ""),
                      "``" + " ".join(b.options).replace("{faults}", "SITE") + "``"))

    def table(title, rows, widths):
        out = [f".. list-table:: {title}", "   :header-rows: 1",
               f"   :widths: {widths}", ""]
        for r in rows:
            out.append(f"   * - {r[0]}")
            out += [f"     - {c}" for c in r[1:]]
        return out
    return "\n".join([MAP_BEGIN, ""] + table("Every test (tests/registry)", rows, "3 2 2 2 5 5") +
                     [""] + table("Every boot", rows2, "2 5 5 4") + ["", MAP_END])


EXIT_AT = re.compile(r"pmuscope-guest: t-([\w.-]+)\.sh exit \d+ at ([\d.]+) s")
START_AT = re.compile(r"pmuscope-guest: start .* at ([\d.]+) s")


def budgets(boots, tests):
    """Guest seconds of each test in build/logs/guest-*.log (from init's
    uptimes: the end of the one before to its own), against its budget."""
    by = {t.name: t for t in tests}
    worst = {}
    for b in boots:
        try:
            with open(os.path.join(LOGS, f"guest-{b}.log"), errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        last = None
        for line in text.splitlines():
            m = START_AT.search(line)
            if m:
                last = float(m.group(1))
            m = EXIT_AT.search(line)
            if m and m.group(1) in by:
                t = float(m.group(2))
                if last is not None:
                    took = t - last
                    if took > worst.get(m.group(1), (0, ""))[0]:
                        worst[m.group(1)] = (took, b)
                last = t
            elif m:
                last = float(m.group(2))
    print(f"{'test':16} {'guest s':>8} {'in boot':14} {'budget':>6}")
    for t in tests:
        if t.name in worst:
            took, b = worst[t.name]
            flag = "  <- over half its budget" if took > t.budget / 2 else ""
            print(f"{t.name:16} {took:8.1f} {b:14} {t.budget:6}{flag}")
    return 0


def doc_map():
    with open(DOC) as f:
        text = f.read()
    a, b = text.find(MAP_BEGIN), text.find(MAP_END)
    return text, a, b


def main(argv):
    # make test T=.. U=.. B=.. puts them in MAKEFLAGS, which every make a
    # job runs would take as its own variables: B is tools/Makefile's
    # build directory (make test B=gate-emu built the tools into
    # tools/gate-emu/). Only those three go; other command-line variables
    # (make check KDIR=...) still reach the jobs' makes.
    for v in ("MAKEFLAGS", "MAKEOVERRIDES"):
        if v in os.environ:
            os.environ[v] = " ".join(w for w in os.environ[v].split(" ")
                                     if not re.match(r"[TUB]=", w))
    try:
        boots, tests = parse_registry()
    except (RegistryError, OSError) as e:
        print(f"tests/registry: {e}", file=sys.stderr)
        return 2
    args = {}
    flags = []
    for a in argv[1:]:
        m = re.match(r"^([TUB])=(.*)$", a)
        if m:
            args[m.group(1)] = m.group(2)
        else:
            flags.append(a)
    try:
        if flags == ["--list"]:
            for t in tests:
                print(f"{t.name:20} {t.kind:6} {t.unit:10} {t.budget:5} {','.join(t.where)}")
            return 0
        if flags == ["--map"]:
            print(rst_map(boots, tests))
            return 0
        if flags == ["--check-map"]:
            text, a, b = doc_map()
            if a < 0 or b < 0:
                print(f"{DOC}: no registry map (markers {MAP_BEGIN!r}); "
                      "run tests/run.py --write-map")
                return 1
            if text[a:b + len(MAP_END)] != rst_map(boots, tests):
                print("Documentation/testing.rst's test map differs from tests/registry: "
                      "run tests/run.py --write-map")
                return 1
            print("Documentation/testing.rst's test map is tests/registry's")
            return 0
        if flags == ["--write-map"]:
            text, a, b = doc_map()
            if a < 0 or b < 0:
                print(f"{DOC}: no markers", file=sys.stderr)
                return 1
            with open(DOC, "w") as f:
                f.write(text[:a] + rst_map(boots, tests) + text[b + len(MAP_END):])
            return 0
        if flags == ["--budgets"]:
            return budgets(boots, tests)
        if len(flags) == 2 and flags[0] == "--tests-of":
            b = boots.get(flags[1])
            if not b:
                print(f"no boot {flags[1]}", file=sys.stderr)
                return 2
            print(tests_arg(b, boot_tests(b, tests)))
            return 0
        if flags == ["--all"] and not args:
            return run(plan(boots, tests, "all"), "make check")
        if not flags and "T" in args:
            return run(plan(boots, tests, "T", [n for n in args["T"].split(",") if n],
                            args.get("B")), f"make test T={args['T']}")
        if not flags and "U" in args:
            return run(plan(boots, tests, "U", [args["U"]]), f"make test U={args['U']}")
        if not flags and "B" in args:
            return run(plan(boots, tests, "B", boot=args["B"]), f"make test B={args['B']}")
    except RegistryError as e:
        print(f"make test: {e}", file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
