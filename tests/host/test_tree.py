# SPDX-License-Identifier: GPL-2.0
"""Host tests of the tree's own conventions: `make help` lists every target
the Makefile declares phony (the help text is the rules' own "## " comments,
so a new target without one would be missing from it)."""

import os
import re
import subprocess
import unittest

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


if __name__ == "__main__":
    unittest.main()
