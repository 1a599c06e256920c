#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The bash completion of pmuscope, from the CLI's own option parsing.

Reads the command dispatch and the getopt()/getopt_long() tables of
tools/pmuscope/*.c (the subcommands run() and its sub-dispatchers such as
cmd_spe() compare argv[1] with, the optstring and the struct option array
of each command's function, and the flags compared literally with argv[i]),
the event names of include/pmuscope_event_table.h and the aliases of
tools/lib/events.c (the fallback when `pmuscope list` cannot answer),
and writes tools/completion/pmuscope.bash.in with these tables in place of
its @PMUSCOPE_TABLES@ line.

    scripts/gen-completion.py [--out FILE]     # default build/completion/pmuscope
    scripts/gen-completion.py --print          # the tables, for a look
"""

import argparse
import re
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
CLI_DIR = TOP / "tools" / "pmuscope"
TEMPLATE = TOP / "tools" / "completion" / "pmuscope.bash.in"
EVENT_TABLE = TOP / "include" / "pmuscope_event_table.h"
LIBPMUSCOPE = TOP / "tools" / "lib" / "events.c"

FUNC = re.compile(r"^(?:static\s+)?int\s+(\w+)\s*\(\s*int\s+argc\s*,\s*char\s*\*\s*\*\s*argv\s*\)\s*\{",
                  re.M)
DISPATCH = re.compile(r"if\s*\(\s*((?:!\s*strcmp\s*\(\s*argv\[1\]\s*,\s*\"[^\"]+\"\s*\)\s*(?:\|\|\s*)?)+)\)"
                      r"\s*(?:return\s+(\w+)\s*\(|\{)")
GETOPT = re.compile(r"getopt(?:_long(?:_only)?)?\s*\(\s*argc\s*,\s*argv\s*,\s*\"([^\"]*)\"\s*(?:,\s*(\w+))?")
LONGOPT = re.compile(r"\{\s*\"([\w-]+)\"\s*,\s*(no_argument|required_argument|optional_argument)")
FLAG = re.compile(r"strcmp\s*\(\s*argv\[\w+\]\s*,\s*\"(-[\w-]+)\"\s*\)")


def die(msg):
    sys.exit(f"gen-completion.py: {msg}")


def functions():
    """{name: (body, whole file text)} of every int f(int argc, char **argv)."""
    out = {}
    for path in sorted(CLI_DIR.glob("*.c")):
        text = path.read_text()
        for m in FUNC.finditer(text):
            end = text.find("\n}\n", m.end())
            out[m.group(1)] = (text[m.end():end if end >= 0 else len(text)], text)
    return out


def short_opts(optstring):
    """getopt's optstring: ['-e=', '-a', ...] ('=': takes an argument)."""
    out, s = [], optstring.lstrip("+-:")
    i = 0
    while i < len(s):
        c = s[i]
        i += 1
        arg = s[i:i + 1] == ":"
        while s[i:i + 1] == ":":
            i += 1
        out.append(f"-{c}" + ("=" if arg else ""))
    return out


def options(name, funcs, seen=None):
    """Options of command function name (following helpers it hands argc,
    argv to), in the order: short, long, literal flags."""
    seen = seen or set()
    if name in seen or name not in funcs:
        return []
    seen.add(name)
    body, text = funcs[name]
    dispatched = {n for cond, _ in DISPATCH.findall(body) for n in re.findall(r"\"([^\"]+)\"", cond)}
    out = []
    for m in GETOPT.finditer(body):
        out += short_opts(m.group(1))
        table = body
        if m.group(2):
            arr = re.search(rf"\b{m.group(2)}\s*\[\s*\]\s*=\s*\{{(.*?)\}};", body, re.S) or \
                re.search(rf"\b{m.group(2)}\s*\[\s*\]\s*=\s*\{{(.*?)\}};", text, re.S)
            table = arr.group(1) if arr else body
        for lm in LONGOPT.finditer(table):
            out.append(f"--{lm.group(1)}" + ("=" if lm.group(2) == "required_argument" else ""))
    out += [f for f in FLAG.findall(body) if f not in dispatched]
    if not GETOPT.search(body):
        for helper in re.findall(r"\b(\w+)\s*\(\s*argc\b[^;]*\bargv\b", body):
            if helper != name and helper in funcs:
                out += options(helper, funcs, seen)
    uniq = []
    for o in out:
        if o not in uniq and o.rstrip("=") not in [u.rstrip("=") for u in uniq]:
            uniq.append(o)
    return uniq


def tree(funcs):
    """[(path, subcommands, options)] from run() down."""
    if "run" not in funcs:
        die(f"no run(int argc, char **argv) in {CLI_DIR}")
    out = []

    def walk(path, name):
        body = funcs[name][0] if name in funcs else ""
        subs, opts = [], []
        children = []
        for cond, func in DISPATCH.findall(body):
            for n in re.findall(r"\"([^\"]+)\"", cond):
                if n.startswith("-"):
                    opts.append(n)
                else:
                    subs.append(n)
                    children.append((n, func))
        if path and not subs:
            opts = options(name, funcs) + [o for o in opts if o not in options(name, funcs)]
        elif path:	# a dispatcher: its own getopt (if any), not its subcommands'
            own = [o for m in GETOPT.finditer(body) for o in short_opts(m.group(1))]
            opts = own + [o for o in opts if o not in own]
        out.append((path, subs, opts))
        for n, func in children:
            child = f"{path} {n}".strip()
            if func and func in funcs and DISPATCH.search(funcs[func][0]):
                walk(child, func)
            else:
                out.append((child, [], options(func, funcs) if func else []))
    walk("", "run")
    return out


def events():
    names = re.findall(r"PMUSCOPE_EVENT\(\s*0x[0-9A-Fa-f]+\s*,\s*(\w+)\s*,", EVENT_TABLE.read_text())
    # CHAIN is refused by pmuscope_event_parse(): not a user event.
    names = [n for n in names if n != "CHAIN"]
    lib = LIBPMUSCOPE.read_text()
    m = re.search(r"pmuscope_aliases\[\]\s*=\s*\{(.*?)\};", lib, re.S)
    aliases = re.findall(r"\{\s*\"([^\"]+)\"\s*,", m.group(1)) if m else []
    if not names:
        die(f"no events in {EVENT_TABLE}")
    return names + aliases


def quote(words):
    return "'" + " ".join(words) + "'"


def tables():
    t = tree(functions())
    lines = ["# Generated by scripts/gen-completion.py from tools/pmuscope/*.c,",
             "# include/pmuscope_event_table.h and tools/lib/events.c.",
             "_pmuscope_subcommands()\t# PATH: the subcommands under PATH",
             "{", "\tcase $1 in"]
    for path, subs, _ in t:
        if subs:
            lines.append(f"\t{quote([path]) if path else chr(39) * 2}) echo {quote(subs)} ;;")
    lines += ["\tesac", "}", "",
              "_pmuscope_options()\t# PATH: its options, \"=\" after those taking a value",
              "{", "\tcase $1 in"]
    for path, _, opts in t:
        if opts:
            lines.append(f"\t{quote([path]) if path else chr(39) * 2}) echo {quote(opts)} ;;")
    lines += ["\tesac", "}", "",
              "# The events when `pmuscope list` cannot answer: every name and alias.",
              "_pmuscope_static_events=" + quote(events())]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(TOP / "build" / "completion" / "pmuscope"))
    ap.add_argument("--print", action="store_true", help="print the tables only")
    args = ap.parse_args()
    tab = tables()
    if args.print:
        sys.stdout.write(tab)
        return 0
    tmpl = TEMPLATE.read_text()
    if tmpl.count("@PMUSCOPE_TABLES@\n") != 1:
        die(f"{TEMPLATE}: no single @PMUSCOPE_TABLES@ line")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(tmpl.replace("@PMUSCOPE_TABLES@\n", tab))
    print(f"bash completion in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
