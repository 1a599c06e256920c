#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse every reST file under Documentation/ with docutils and fail on any
warning or error. Sphinx's toctree directive and doc role are accepted."""

import sys
from pathlib import Path

import docutils.core
import docutils.nodes
from docutils.parsers.rst import Directive, directives, roles


class Toctree(Directive):
    has_content = True
    option_spec = {"maxdepth": directives.unchanged}

    def run(self):
        return []


def doc_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [docutils.nodes.literal(rawtext, text)], []


def main():
    directives.register_directive("toctree", Toctree)
    roles.register_local_role("doc", doc_role)
    top = Path(__file__).resolve().parents[2]
    bad = 0
    files = sorted((top / "Documentation").rglob("*.rst"))
    for path in files:
        try:
            docutils.core.publish_doctree(
                path.read_text(), source_path=str(path),
                settings_overrides={"report_level": 2, "halt_level": 2,
                                    "warning_stream": sys.stderr})
        except docutils.utils.SystemMessage as err:
            print(f"{path.relative_to(top)}: {err}")
            bad += 1
    print(f"{len(files)} reST files, {bad} with problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
