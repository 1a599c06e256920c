#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Man pages of the pmuscope command, generated from Documentation/cli.rst.

The "pmuscope" section of cli.rst is a definition list whose terms are the
synopsis lines (``pmuscope stat [-e EVENTS] ...``), followed by general
paragraphs and "-"-underlined subsections (Exit status, the output
formats). Every entry is grouped by its subcommand, the second word of its
term (the three ``pmuscope spe ...`` entries make pmuscope-spe(1)), and
each group becomes a reST document: NAME (the one-line summary of the CLI's
own command table, `pmuscope --list-cmds` of the host binary
tools/build/host/pmuscope, made first, else the entry's first sentence),
SYNOPSIS (the terms), DESCRIPTION (the entries), OPTIONS (each option of
the command and of its subcommands, from `pmuscope --list-opts CMD [SUB]`:
the tables that getopt, --help and the bash completion use too), the
subsections the entries link to (`Snapshot output`_) or that name the
command (``pmuscope record``), EXIT STATUS (cli.rst's "Exit status") and
SEE ALSO. pmuscope(1) gets the list of commands, the global options and
every subsection. Each document is rendered with docutils' manpage writer.

    scripts/gen-man.py [--out DIR] [--rst]   # default DIR: build/man

--rst also writes the intermediate reST documents (NAME.rst) beside the
pages. Stale pmuscope*.1 pages in DIR are removed, so DIR holds exactly
the pages cli.rst describes. Any docutils warning is an error.
"""

import argparse
import datetime
import io
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import docutils.core
from docutils import nodes
import docutils.utils
from docutils.writers import manpage

TOP = Path(__file__).resolve().parent.parent
CLI_RST = TOP / "Documentation" / "cli.rst"
PMUSCOPE = TOP / "tools" / "build" / "host" / "pmuscope"
LIB_H = TOP / "tools" / "lib" / "pmuscope.h"

SUMMARY = "count and profile with the Arm PMU, SPE and AMU through pmuscope.ko"
UNDERLINE = re.compile(r'^([=\-~^"\'`#*+])\1{2,}$')
LINK = re.compile(r"(?<![`\w])`([^`<>]+?)`_(?!_)", re.S)
DOC_ROLE = re.compile(r":doc:`([^`]+)`")


def die(msg):
    sys.exit(f"gen-man.py: {msg}")


def sections(lines, char):
    """[(title, start, end)] of the sections underlined with char (no
    overline): body lines[start:end], start just after the underline."""
    heads = []
    for i in range(1, len(lines)):
        m = UNDERLINE.match(lines[i])
        title = lines[i - 1]
        if (m and m.group(1) == char and title.strip() and not title[0].isspace()
                and len(lines[i]) >= len(title.rstrip())
                and not (i >= 2 and lines[i - 2] == lines[i])):
            heads.append((title.strip(), i + 1))
    out = []
    for n, (title, start) in enumerate(heads):
        end = heads[n + 1][1] - 2 if n + 1 < len(heads) else len(lines)
        out.append((title, start, end))
    return out


def strip_blank(lines):
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return lines


def parse_cli(text):
    """The "pmuscope" section: (entries, notes, subsections).
    entries: [(command, term, body lines dedented)], notes: reST lines of
    the general paragraphs, subsections: [(title, body lines)]."""
    lines = text.splitlines()
    top = [s for s in sections(lines, "=") if s[0] == "pmuscope"]
    if len(top) != 1:
        die(f"{CLI_RST}: no single section titled 'pmuscope'")
    _, start, end = top[0]
    part = lines[start:end]
    subs = sections(part, "-")
    intro_end = subs[0][1] - 2 if subs else len(part)
    intro = part[:intro_end]

    entries, notes, i = [], [], 0
    while i < len(intro):
        line = intro[i]
        if line.startswith("``pmuscope "):
            term = line.strip()
            j = i + 1
            while j < len(intro) and (not intro[j].strip() or intro[j][0].isspace()):
                j += 1
            body = strip_blank(intro[i + 1:j])
            if not body:
                die(f"{CLI_RST}: '{term}' has no description")
            m = re.match(r"``pmuscope\s+([A-Za-z0-9][\w-]*)", term)
            if not m:
                die(f"{CLI_RST}: cannot find the subcommand in '{term}'")
            entries.append((m.group(1), term,
                            textwrap.dedent("\n".join(body)).splitlines()))
            i = j
        else:
            notes.append(line)
            i += 1
    if not entries:
        die(f"{CLI_RST}: the 'pmuscope' section has no ``pmuscope X`` entries")
    subsections = [(t, strip_blank(part[s:e])) for t, s, e in subs]
    return entries, strip_blank(notes), subsections


def host_cli(*args, check=True):
    """The output of the host `pmuscope ARGS` (made first, once), or None
    when it fails and not check."""
    if not getattr(host_cli, "made", False):
        r = subprocess.run(["make", "-s", "--no-print-directory", "-C", str(TOP / "tools"),
                            "build/host/pmuscope"], capture_output=True, text=True)
        if r.returncode:
            die(f"cannot make {PMUSCOPE}:\n{r.stdout}{r.stderr}")
        host_cli.made = True
    r = subprocess.run([str(PMUSCOPE), *args], capture_output=True, text=True,
                       env=dict(os.environ, PMUSCOPE_SYSFS="/nonexistent"))
    if r.returncode:
        if not check:
            return None
        die(f"{PMUSCOPE} {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def usage_summaries():
    """{command: one-line summary} from `pmuscope --list-cmds` (the
    command table, tools/pmuscope/commands.c)."""
    return dict(line.split("\t", 1) for line in host_cli("--list-cmds").splitlines()
                if "\t" in line)


def subcommands(cmd):
    """The subcommands of cmd from `pmuscope --list-cmds CMD` (spe: record,
    report, dump), [] when it has none."""
    out = host_cli("--list-cmds", cmd, check=False)
    return [line.split("\t")[0] for line in (out or "").splitlines()
            if line.split("\t")[0] != "help"]


def options(path):
    """[(names, argument, help)] of `pmuscope --list-opts PATH` ("" the
    global options; names: ["-n", "--count"])."""
    out = host_cli("--list-opts", *path.split(), check=False)
    if out is None:
        die(f"{CLI_RST} documents 'pmuscope {path}', which pmuscope --list-opts does not know")
    opts = []
    for line in out.splitlines():
        fields = line.split("\t")
        if len(fields) != 3 or not fields[0].strip():
            die(f"pmuscope --list-opts {path}: not NAMES<tab>ARG<tab>HELP: {line!r}")
        opts.append(([w.rstrip("=") for w in fields[0].split()], fields[1], fields[2]))
    return opts


def rst_text(text):
    """text as reST text: its inline markup characters escaped, and the
    first one unless a letter or digit (no list or field list)."""
    text = re.sub(r"([\\`*_|])", r"\\\1", text)
    return "\\" + text if text and not text[0].isalnum() and text[0] != "\\" else text


def options_section(paths):
    """The OPTIONS section's lines for the commands paths ("" the global
    options, "stat", "spe record"): a definition list, under a heading
    per command when more than one has options; None when none has."""
    found = [(p, o) for p in paths for o in [options(p)] if o]
    out = []
    for path, opts in found:
        if len(found) > 1:
            out += heading(f"pmuscope {path}", "-")
        for names, arg, text in opts:
            term = ", ".join(f"``{n}``" for n in names)
            out += [term + (f" *{rst_text(arg)}*" if arg else ""), "   " + rst_text(text), ""]
    return out or None


def first_sentence(body):
    text = " ".join(" ".join(body).split())
    text = re.sub(r"``([^`]*)``", r"\1", text)
    text = re.split(r"(?<=[a-z)])[.:;](\s|$)", text)[0]
    return text[:77] + "..." if len(text) > 80 else text


def version():
    m = re.search(r'#define\s+PMUSCOPE_LIB_VERSION\s+"([^"]+)"', LIB_H.read_text())
    return m.group(1) if m else ""


def page_date():
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    t = int(epoch) if epoch else int(CLI_RST.stat().st_mtime)
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d")


def heading(title, char):
    return [title, char * len(title), ""]


def resolve_links(lines, present, known):
    """`Title`_ to a section that is in the page stays a link; any other
    becomes the title in italics, "in pmuscope(1)" where that page has it
    (known), else "in Documentation/cli.rst". :doc:`x` becomes the path of
    the file."""
    text = "\n".join(lines)
    text = DOC_ROLE.sub(lambda m: f"``Documentation/{m.group(1)}.rst``", text)

    def sub(m):
        name = " ".join(m.group(1).split())
        if name.lower() in present:
            return m.group(0)
        where = "pmuscope(1)" if name.lower() in known else "``Documentation/cli.rst``"
        return f"*{m.group(1)}* in {where}"
    return LINK.sub(sub, text).splitlines()


def document(name, summary, synopsis, body, opts, extra, exit_status, see_also, known):
    """A man page as reST: opts the OPTIONS section's lines (or None);
    extra is [(title, lines)], shown as sections; known: the sections of
    pmuscope(1)."""
    present = {t.lower() for t, _ in extra}
    bar = "=" * len(name)
    sub = "-" * len(summary)
    out = [bar, name, bar, "", sub, summary, sub, "",
           ":Manual section: 1", ":Manual group: pmuscope manual",
           f":Version: pmuscope {version()}", f":Date: {page_date()}", ""]
    out += heading("SYNOPSIS", "=")
    for s in synopsis:	# paragraphs, not a line block: long ones wrap
        out += [s, ""]
    out += heading("DESCRIPTION", "=")
    out += resolve_links(body, present, known) + [""]
    if opts:
        out += heading("OPTIONS", "=") + opts
    for title, lines in extra:
        out += heading(title.upper(), "=")
        out += resolve_links(lines, present, known) + [""]
    out += heading("EXIT STATUS", "=")
    out += resolve_links(exit_status, present, known) + [""]
    out += heading("SEE ALSO", "=")
    out += [", ".join(f"**{p}**\\ (1)" for p in see_also) + ";",
            "``Documentation/cli.rst`` and ``Documentation/pmuscope.rst`` in the",
            "pmuscope sources.", ""]
    return "\n".join(out)


def mentions(lines, cmd):
    return re.search(rf"\bpmuscope {re.escape(cmd)}\b", " ".join(" ".join(lines).split()))


def links(lines):
    return {" ".join(m.group(1).split()).lower() for m in LINK.finditer("\n".join(lines))}


def inline(entry):
    """The inline content of a table cell (its paragraphs, joined)."""
    out = []
    for para in entry.children:
        if out:
            out.append(nodes.Text(" "))
        out.extend(c.deepcopy() for c in (para.children if isinstance(para, nodes.paragraph)
                                          else [nodes.Text(para.astext())]))
    return out


def each(node, cls):
    """Descendants of node of class cls (docutils 0.18 renamed traverse)."""
    return list(node.findall(cls) if hasattr(node, "findall") else node.traverse(cls))


def tables_to_lists(doc):
    """Tables become definition lists (.TP paragraphs): tbl boxes in a
    terminal are narrow and break badly across pages. The term is the
    first column (with a header row, "header value" for each column but
    the last), the definition the last column."""
    for table in each(doc, nodes.table):
        head = [r for t in each(table, nodes.thead) for r in each(t, nodes.row)]
        heads = [e.astext() for e in head[0].children] if head else None
        dl = nodes.definition_list()
        for body in each(table, nodes.tbody):
            for row in body.children:
                cells = row.children
                term = nodes.term()
                first = True
                for n, cell in enumerate(cells[:-1]):
                    if not cell.astext().strip():
                        continue
                    if not first:
                        term += nodes.Text(", " if heads else " ")
                    if heads:
                        term += nodes.Text(heads[n] + " ")
                    term.extend(inline(cell))
                    first = False
                definition = nodes.definition()
                definition.extend(c.deepcopy() for c in cells[-1].children)
                if not len(definition):
                    definition += nodes.paragraph(text="")
                dl += nodes.definition_list_item("", term, definition)
        table.replace_self(dl)


def render(rst, source):
    """The man page of reST document rst; docutils.utils.SystemMessage on
    any warning."""
    settings = {"report_level": 2, "halt_level": 2, "warning_stream": io.StringIO(),
                "input_encoding": "unicode", "output_encoding": "unicode"}
    doc = docutils.core.publish_doctree(rst, source_path=source,
                                        settings_overrides=settings)
    # INFO messages (below report_level) stay in the doctree, and the
    # manpage writer would print them.
    for msg in each(doc, nodes.system_message):
        msg.parent.remove(msg)
    tables_to_lists(doc)
    return docutils.core.publish_from_doctree(doc, writer=manpage.Writer(),
                                              settings_overrides=settings)


def pages():
    """[(page name, reST text)]: pmuscope, then one per subcommand."""
    entries, notes, subsections = parse_cli(CLI_RST.read_text())
    exit_status = [lines for t, lines in subsections if t.lower() == "exit status"]
    if not exit_status:
        die(f"{CLI_RST}: no 'Exit status' subsection in the 'pmuscope' section")
    exit_status = exit_status[0]
    others = [(t, lines) for t, lines in subsections if t.lower() != "exit status"]
    summaries = usage_summaries()

    groups = {}
    for cmd, term, body in entries:
        groups.setdefault(cmd, []).append((term, body))
    names = ["pmuscope-" + c for c in groups]

    out = []
    # pmuscope(1): the commands, the notes, every subsection.
    body = ["pmuscope drives the Arm performance-monitoring units of every CPU",
            "through the pmuscope kernel module (``/dev/pmuscope``,",
            "``/sys/kernel/pmuscope``). Each command has its own page.", "",
            "Commands:", ""]
    for cmd, items in groups.items():
        summary = summaries.get(cmd) or first_sentence(items[0][1])
        subs = [m.group(1) for t, _ in items
                for m in [re.match(rf"``pmuscope {re.escape(cmd)} ([a-z][\w-]*)", t)] if m]
        term = f"pmuscope {cmd}" + (" " + "|".join(subs) if len(subs) == len(items) > 1 else "")
        body += [f"``{term}``",
                 "   " + summary[0].upper() + summary[1:] + f"; see **pmuscope-{cmd}**\\ (1).", ""]
    body += notes
    synopsis = ["``pmuscope COMMAND [ARGS]``"] + [t for c, items in groups.items()
                                                 for t, _ in items]
    known = {t.lower() for t, _ in others}
    out.append(("pmuscope", document("pmuscope", SUMMARY, synopsis, body, options_section([""]),
                                     others, exit_status, names, known)))

    for cmd, items in groups.items():
        summary = summaries.get(cmd) or first_sentence(items[0][1])
        if len(items) == 1:
            body = items[0][1]
        else:
            body = []
            for term, lines in items:
                body += [term] + ["   " + x if x.strip() else "" for x in lines] + [""]
        all_lines = [line for _, lines in items for line in lines]
        wanted = links(all_lines)
        extra = [(t, lines) for t, lines in others
                 if t.lower() in wanted or mentions(lines, cmd)]
        see = ["pmuscope"] + [n for n in names if n != "pmuscope-" + cmd]
        opts = options_section([cmd] + [f"{cmd} {s}" for s in subcommands(cmd)])
        out.append(("pmuscope-" + cmd,
                    document("pmuscope-" + cmd, summary, [t for t, _ in items], body,
                             opts, extra, exit_status, see, known)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(TOP / "build" / "man"))
    ap.add_argument("--rst", action="store_true", help="keep the reST documents")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for name, rst in pages():
        try:
            text = render(rst, str(out / f"{name}.rst"))
        except docutils.utils.SystemMessage as err:
            (out / f"{name}.rst").write_text(rst)
            die(f"{name}(1), generated from {CLI_RST.relative_to(TOP)}: {err}\n"
                f"(the line is of {out / name}.rst, kept for a look; "
                "tests/lint/check-docs.py checks cli.rst itself)")
        (out / f"{name}.1").write_text(text)
        if args.rst:
            (out / f"{name}.rst").write_text(rst)
        made.append(f"{name}.1")
    for old in out.glob("pmuscope*.1"):
        if old.name not in made:
            old.unlink()
    for old in out.glob("pmuscope*.rst"):
        if not args.rst or old.name[:-4] + ".1" not in made:
            old.unlink()
    print(f"{len(made)} man pages in {out}: {' '.join(sorted(made))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
