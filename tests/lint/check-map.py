#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make lint: the design maps name every file of drivers/ and tools/.

Documentation/pmuscope.rst holds the map of drivers/ and
Documentation/cli.rst the map of tools/: each a table that follows a line
"Sources (``drivers/``):" or "Sources (``tools/``):", whose first column
names files as ``literals``, relative to that directory. Every file git
tracks (or will: new files not ignored) below the directory must be named
there, and every name there must be a file, so the map cannot go stale
either way. Exit 1, naming each difference, when they differ."""

import os
import re
import subprocess
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MAPS = (("drivers", "Documentation/pmuscope.rst"), ("tools", "Documentation/cli.rst"))


def map_names(text, directory):
    """The ``names`` of the first column of the map table of directory."""
    m = re.search(r"^Sources \(``%s/``\):\n\n(=+ +=+\n.*?\n=+ +=+\n(.*?)\n=+ +=+\n)" %
                  re.escape(directory), text, re.M | re.S)
    if not m:
        return None
    names = set()
    for line in m.group(2).splitlines():
        first = re.match(r"^``([^`]+)``", line)
        if first:
            names.add(first.group(1))
    return names


def tracked(directory):
    out = subprocess.run(["git", "-C", TOP, "ls-files", "-co", "--exclude-standard", "--",
                          directory], check=True, capture_output=True, text=True).stdout
    return {os.path.relpath(p, directory) for p in out.split()
            if os.path.exists(os.path.join(TOP, p))}


def check(top=TOP, maps=MAPS, files=tracked):
    problems = []
    for directory, doc in maps:
        with open(os.path.join(top, doc)) as f:
            names = map_names(f.read(), directory)
        if names is None:
            problems.append(f"{doc}: no table after \"Sources (``{directory}/``):\"")
            continue
        have = files(directory)
        for name in sorted(have - names):
            problems.append(f"{doc}: {directory}/{name} is not in the map")
        for name in sorted(names - have):
            problems.append(f"{doc}: the map names {directory}/{name}, which does not exist")
    return problems


def main():
    problems = check()
    for p in problems:
        print(p)
    if not problems:
        print("design maps: every file of " + " and ".join(d + "/" for d, _ in MAPS) + " named")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
