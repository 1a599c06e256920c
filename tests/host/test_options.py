# SPDX-License-Identifier: GPL-2.0
"""Host tests of the options as data: each command declares its options
once, as a table (tools/pmuscope/parse-options.h), that getopt, --help,
the bash completion and the man pages all come from. For every command
and subcommand (pmuscope --list-cmds), every option the table gives
(pmuscope --list-opts CMD [SUB]) is in the options section of its --help,
in the table's order, with its argument and help, and in the OPTIONS
section of its man page (scripts/gen-man.py into a temporary directory);
the checker itself is shown to catch a missing or altered option. Needs
tools/build/host (make -C tools host) and docutils."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.join(os.path.dirname(__file__), "..", "..")
CLI = os.path.join(TOP, "tools", "build", "host", "pmuscope")
GEN_MAN = os.path.join(TOP, "scripts", "gen-man.py")


def cli(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, PMUSCOPE_SYSFS="/nonexistent"))


def command_paths():
    """Every command and subcommand: ["list", "stat", ..., "spe record", ...]."""
    r = cli("--list-cmds")
    assert r.returncode == 0, r.stderr
    paths = []
    for name in [line.split("\t")[0] for line in r.stdout.splitlines()]:
        if name == "help":
            continue
        paths.append(name)
        sub = cli("--list-cmds", name)
        if sub.returncode == 0:
            paths += [f"{name} {s}" for s in [line.split("\t")[0]
                                              for line in sub.stdout.splitlines()]
                      if s != "help"]
    return paths


def listed_options(text):
    """[(term, help)] of `pmuscope --list-opts` output, the term as --help
    and the man pages write it: "-n, --count COUNT", "--json"."""
    out = []
    for line in text.splitlines():
        names, arg, help_text = line.split("\t")
        term = ", ".join(n.rstrip("=") for n in names.split())
        out.append((term + (" " + arg if arg else ""), help_text))
    return out


def words(text):
    return " ".join(text.split())


def missing(options, text):
    """The terms of options that text does not give, followed by their
    help (white space aside): [] when it gives them all."""
    text = f" {words(text)} "
    return [term for term, help_text in options
            if f" {words(term + ' ' + help_text)} " not in text]


def out_of_order(options, text):
    """Whether text gives options (all there) in another order."""
    text = f" {words(text)} "
    at = [text.find(f" {words(term + ' ' + h)} ") for term, h in options]
    return at != sorted(at)


def help_section(usage, path):
    """The options part of a command's usage: the lines after its
    "pmuscope PATH options:" heading (spe's usage has one per command),
    else after "options:", to the next empty line; None without."""
    lines = usage.splitlines()
    for head in (f"pmuscope {path} options:", "options:"):
        if head in lines:
            part = lines[lines.index(head) + 1:]
            return "\n".join(part[:part.index("")] if "" in part else part)
    return None


def roff_text(roff):
    """The text of man page source: requests dropped (but for the font
    ones' arguments), font changes and escapes resolved."""
    out = []
    for line in roff.splitlines():
        if line.startswith((".", "'")):
            m = re.match(r"\.(?:B|I|BI|IB|BR|RB|IR|RI|SM|SB)\s+(.*)", line)
            if not m:
                continue
            line = m.group(1)
        out.append(line)
    text = re.sub(r"\\f(?:[BIRP]|\(..|\[[A-Z]*\])", "", "\n".join(out))
    for esc, char in (("\\-", "-"), ("\\(aq", "'"), ("\\(dq", '"'), ("\\(ga", "`"),
                      ("\\(ti", "~"), ("\\(ha", "^"), ("\\&", ""), ("\\e", "\\")):
        text = text.replace(esc, char)
    return text


def man_section(roff, path):
    """The text of the OPTIONS section of a man page, of its "pmuscope
    PATH" subsection where it has subsections; None without."""
    m = re.search(r"^\.SH OPTIONS\n(.*?)(?=^\.SH |\Z)", roff, re.S | re.M)
    if not m:
        return None
    part = m.group(1)
    if not re.search(r"^\.SS ", part, re.M):
        return roff_text(part)
    m = re.search(rf"^\.SS {re.escape(path)}\n(.*?)(?=^\.SS |\Z)", part, re.S | re.M)
    return roff_text(m.group(1)) if m else None


def usage_of(path):
    """The usage `pmuscope PATH --help` prints: on stdout, or on stderr
    (exit 2, after getopt's message) where --help is no option of the
    command (list, read, spe dump: a bad option prints the usage too)."""
    r = cli(*path.split(), "--help")
    if r.returncode == 0:
        return r.stdout
    assert r.returncode == 2 and not r.stdout, (path, r.returncode, r.stdout)
    assert "usage: " in r.stderr, (path, r.stderr)
    return r.stderr[r.stderr.index("usage: "):]


class OptionsEverywhere(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.paths = command_paths()
        cls.opts = {}
        for path in cls.paths + [""]:
            r = cli("--list-opts", *path.split())
            assert r.returncode == 0, (path, r.stderr)
            cls.opts[path] = listed_options(r.stdout)
        cls.tmp = tempfile.TemporaryDirectory()
        r = subprocess.run([sys.executable, GEN_MAN, "--out", cls.tmp.name],
                           capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr
        cls.man = {}
        for name in os.listdir(cls.tmp.name):
            if name.endswith(".1"):
                with open(os.path.join(cls.tmp.name, name)) as f:
                    cls.man[name[:-2]] = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_commands_have_options(self):
        # What the other tests walk: every command, spe's subcommands, and
        # the options of most of them.
        for path in ("list", "stat", "snapshot", "record", "report", "amu", "export",
                     "spe", "spe record", "spe report", "spe dump", "read", "version"):
            self.assertIn(path, self.paths)
        self.assertGreater(sum(len(o) for o in self.opts.values()), 80)
        self.assertIn(("-n, --count COUNT", "take COUNT snapshots (default 1)"),
                      self.opts["snapshot"])

    def test_help_lists_every_option(self):
        for path in self.paths:
            opts = self.opts[path]
            if not opts:	# version: --help is no option, it prints the versions
                continue
            with self.subTest(path=path):
                usage = usage_of(path)
                self.assertTrue(usage.startswith(f"usage: pmuscope {path}")
                                or usage.startswith(f"usage: pmuscope {path.split()[0]} "),
                                usage)
                section = help_section(usage, path)
                self.assertIsNotNone(section, usage)
                self.assertEqual(missing(opts, section), [], section)
                self.assertFalse(out_of_order(opts, section), section)
                # help CMD [SUB] prints the same, on stdout.
                r = cli("help", *path.split())
                self.assertEqual((r.returncode, r.stdout), (0, usage))

    def test_bad_option_prints_the_usage(self):
        for path in self.paths:
            r = cli(*path.split(), "--help")
            if not self.opts[path] or r.returncode:
                continue
            with self.subTest(path=path):
                bad = cli(*path.split(), "--no-such-option")
                self.assertEqual(bad.returncode, 2, bad.stderr)
                self.assertTrue(bad.stderr.endswith(r.stdout), bad.stderr)

    def test_man_pages_list_every_option(self):
        for path in self.paths + [""]:
            opts = self.opts[path]
            page = "pmuscope" + ("-" + path.split()[0] if path else "")
            with self.subTest(path=path):
                self.assertIn(page, self.man)
                section = man_section(self.man[page], f"pmuscope {path}".strip())
                if not opts:
                    self.assertIsNone(section)
                    continue
                self.assertIsNotNone(section, page)
                self.assertEqual(missing(opts, section), [], section)
                self.assertFalse(out_of_order(opts, section), section)

    def test_the_checker_sees_a_difference(self):
        # Fabricated disagreements: an option the usage or the man page
        # lacks, or with other words, or in another order, is seen.
        opts = self.opts["stat"]
        usage = help_section(usage_of("stat"), "stat")
        self.assertEqual(missing(opts, usage), [])
        extra = opts + listed_options("--bogus\t\tnot an option")
        self.assertEqual(missing(extra, usage), ["--bogus"])
        without = "\n".join(line for line in usage.splitlines() if "-C CPUS" not in line)
        self.assertEqual(missing(opts, without), ["-C CPUS"])
        reworded = usage.replace("a column per CPU", "a row per CPU")
        self.assertEqual(missing(opts, reworded), ["--per-cpu"])
        moved = usage.splitlines()
        moved.insert(0, moved.pop())	# -h, --help first
        self.assertEqual(missing(opts, "\n".join(moved)), [])
        self.assertTrue(out_of_order(opts, "\n".join(moved)))

        roff = self.man["pmuscope-stat"]
        self.assertEqual(missing(opts, man_section(roff, "pmuscope stat")), [])
        broken = roff.replace("\\fB\\-\\-per\\-cpu\\fP", "\\fB\\-\\-per\\-core\\fP")
        self.assertNotEqual(broken, roff)
        self.assertEqual(missing(opts, man_section(broken, "pmuscope stat")), ["--per-cpu"])
        self.assertIsNone(man_section(roff.replace(".SH OPTIONS", ".SH OPTS"), "pmuscope stat"))
        spe = self.man["pmuscope-spe"]
        self.assertIsNotNone(man_section(spe, "pmuscope spe record"))
        self.assertIsNone(man_section(spe, "pmuscope spe frobnicate"))
        self.assertEqual(missing(self.opts["spe report"],
                                 man_section(spe, "pmuscope spe dump")),
                         [t for t, _ in self.opts["spe report"] if t != "-i FILE"])


if __name__ == "__main__":
    unittest.main()
