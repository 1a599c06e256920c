# SPDX-License-Identifier: GPL-2.0
"""Host tests of the tree's own conventions: `make help` lists every target
the Makefile declares phony (the help text is the rules' own "## " comments,
so a new target without one would be missing from it), and the design maps
checker (make lint) finds a file missing from a map and a name left over."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lint"))
check_map = __import__("check-map")

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


class MakeHelp(unittest.TestCase):
    def test_help_lists_every_phony_target(self):
        with open(os.path.join(TOP, "Makefile")) as f:
            text = f.read()
        phony = set()
        for m in re.finditer(r"^\.PHONY:(.*)$", text, re.M):
            phony.update(m.group(1).split())
        self.assertIn("check", phony)
        out = subprocess.run(["make", "--no-print-directory", "-C", TOP, "help"],
                             check=True, capture_output=True, text=True).stdout
        listed = {line.split()[0] for line in out.splitlines()[1:] if line.strip()}
        self.assertEqual(sorted(phony - listed), [], "targets without a \"## \" help text")
        self.assertEqual(sorted(listed - phony), [], "help lists targets that are not phony")


MAP = """Title
=====

Sources (``drivers/``):

=========================  ==========================
file                       contents
=========================  ==========================
``a.c``                    the a, on
                           two lines
``b.h``                    the b
=========================  ==========================
"""


class DesignMap(unittest.TestCase):
    def run_check(self, files):
        with tempfile.TemporaryDirectory() as top:
            os.mkdir(os.path.join(top, "Documentation"))
            with open(os.path.join(top, "Documentation", "x.rst"), "w") as f:
                f.write(MAP)
            return check_map.check(top, (("drivers", "Documentation/x.rst"),),
                                   lambda d: set(files))

    def test_map_equal_to_files(self):
        self.assertEqual(self.run_check({"a.c", "b.h"}), [])

    def test_file_missing_from_map(self):
        self.assertEqual(self.run_check({"a.c", "b.h", "c.c"}),
                         ["Documentation/x.rst: drivers/c.c is not in the map"])

    def test_name_without_file(self):
        self.assertEqual(self.run_check({"a.c"}),
                         ["Documentation/x.rst: the map names drivers/b.h, which does not exist"])

    def test_no_map(self):
        with tempfile.TemporaryDirectory() as top:
            os.mkdir(os.path.join(top, "Documentation"))
            with open(os.path.join(top, "Documentation", "x.rst"), "w") as f:
                f.write("Title\n=====\n")
            self.assertEqual(len(check_map.check(top, (("tools", "Documentation/x.rst"),),
                                                 lambda d: set())), 1)


class HostTests(unittest.TestCase):
    """What make check's reading of the host tests' verbose output needs."""

    def test_no_test_method_has_a_docstring(self):
        # unittest -v prints a test's docstring on a line of its own, with
        # the verdict after it: scripts/check.sh, which reads the verdict
        # from the test's own line, would count it failed.
        import ast
        here = os.path.dirname(os.path.abspath(__file__))
        found = []
        for name in sorted(os.listdir(here)):
            if not (name.startswith("test_") and name.endswith(".py")):
                continue
            with open(os.path.join(here, name)) as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if (isinstance(node, ast.FunctionDef) and node.name.startswith("test") and
                        ast.get_docstring(node) is not None):
                    found.append(f"{name}:{node.lineno} {node.name}")
        self.assertEqual(found, [])


def _struct_fields(body):
    """The member names of a C struct body, in order (arrays without [])."""
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    out = []
    for decl in body.split(";"):
        m = re.match(r"\s*(?:struct\s+\w+|\w+)\s+(.*)$", decl, re.S)
        if not m:
            continue
        for name in m.group(1).split(","):
            name = re.sub(r"\[.*\]", "", name.strip().lstrip("*")).strip()
            if name:
                out.append(name)
    return out


def _structs(text):
    return {m.group(1): _struct_fields(m.group(2))
            for m in re.finditer(r"struct (pmuscope_\w+) \{\n(.*?)\n\s*\};", text, re.S)}


class IoctlDoc(unittest.TestCase):
    """Documentation/ioctl.rst against the uapi header it documents: the
    API version it states, and every struct it shows, member by member."""

    def setUp(self):
        with open(os.path.join(TOP, "include/uapi/linux/pmuscope.h")) as f:
            self.header = f.read()
        with open(os.path.join(TOP, "Documentation/ioctl.rst")) as f:
            self.doc = f.read()

    def test_api_version(self):
        have = re.search(r"#define PMUSCOPE_API_VERSION\s+(\d+)", self.header).group(1)
        said = re.search(r"``PMUSCOPE_API_VERSION`` = (\d+)", self.doc).group(1)
        self.assertEqual(said, have)

    def test_structs_match_the_header(self):
        doc, hdr = _structs(self.doc), _structs(self.header)
        self.assertGreater(len(doc), 10)
        for name, members in doc.items():
            self.assertIn(name, hdr, f"ioctl.rst shows struct {name}, which the header lacks")
            self.assertEqual(members, hdr[name], f"struct {name}")


if __name__ == "__main__":
    unittest.main()
