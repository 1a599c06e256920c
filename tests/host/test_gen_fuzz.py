# SPDX-License-Identifier: GPL-2.0
"""Host tests of scripts/gen-fuzz.py: the fuzzer trusts its tables, so the
struct layout must follow the C rules, the field kinds the header's names
and comments, and the errnos the tables of Documentation/ioctl.rst; a new
ioctl or field must reach the generated header, and --check must notice a
stale one."""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(TOP, "scripts", "gen-fuzz.py")
_spec = importlib.util.spec_from_file_location("gen_fuzz", SCRIPT)
gf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gf)


def read(*path):
    with open(os.path.join(TOP, *path)) as f:
        return f.read()


HEADER = read("include", "uapi", "linux", "pmuscope.h")
DOC = read("Documentation", "ioctl.rst")

MINI_H = """\
#define FOO_MAGIC 0x42
#define FOO_F_A (1U << 0)
#define FOO_F_B (1U << 2)
#define FOO_MAX 8
struct foo_item {
	__u32 event;		/* what */
	__u32 flags;		/* FOO_F_* */
};
struct foo_arg {
	__u32 size;		/* sizeof(struct foo_arg) */
	__u32 flags;		/* none defined: zero */
	__u64 items;		/* pointer to nr_items items of item_size bytes */
	__u32 nr_items;		/* 1 .. FOO_MAX */
	__u32 item_size;	/* sizeof(struct foo_item); 0 = 8 */
	__u16 small;
	__u64 reserved[3];
	__u32 tail;
};
#define PMUSCOPE_IOC_FOO	_IOWR(FOO_MAGIC, 0x03, struct foo_arg)
#define PMUSCOPE_IOC_BAR	_IO(FOO_MAGIC, 0x04)
"""

MINI_DOC = """\
Conventions
===========

Errors common to every ioctl: ``EFAULT`` (the argument itself cannot be
read or written), ``ENOTTY`` (unknown request), ``ENOMEM``.

PMUSCOPE_IOC_FOO
================

Some text.

====== ==========================
errno  cause
====== ==========================
EINVAL ``size`` too small;
       a second line of the cause
E2BIG  too large
EFAULT ``items`` bad
====== ==========================

PMUSCOPE_IOC_BAR, PMUSCOPE_IOC_BAZ
==================================

========== ====================
errno      cause
========== ====================
EOPNOTSUPP not here
========== ====================
"""


def by_name(structs):
    return {s.name: s for s in structs}


class LayoutTest(unittest.TestCase):
    def test_c_rules_for_offsets_arrays_and_padding(self):
        _, structs, _ = gf.parse_header(MINI_H)
        arg = by_name(structs)["foo_arg"]
        offs = {f.name: (f.offset, f.width, f.nelem) for f in arg.fields}
        self.assertEqual(offs["size"], (0, 4, 1))
        self.assertEqual(offs["items"], (8, 8, 1))
        self.assertEqual(offs["nr_items"], (16, 4, 1))
        self.assertEqual(offs["small"], (24, 2, 1))
        # A __u64 after a __u16 is aligned to 8.
        self.assertEqual(offs["reserved"], (32, 8, 3))
        self.assertEqual(offs["tail"], (56, 4, 1))
        # The struct is padded to its largest alignment.
        self.assertEqual(arg.size, 64)
        self.assertEqual(by_name(structs)["foo_item"].size, 8)

    def test_real_header_sizes(self):
        _, structs, _ = gf.parse_header(HEADER)
        sizes = {s.name: s.size for s in structs}
        self.assertEqual(sizes["pmuscope_handshake"], 56)
        self.assertEqual(sizes["pmuscope_event"], 16)
        self.assertEqual(sizes["pmuscope_config"], 48)
        self.assertEqual(sizes["pmuscope_value"], 40)
        self.assertEqual(sizes["pmuscope_read"], 40)
        self.assertEqual(sizes["pmuscope_swinc"], 40)

    def test_unsupported_type_is_an_error(self):
        # In an ioctl's argument: an error.
        with self.assertRaises(gf.GenError):
            gf.parse_header("struct x {\n\tstruct y inner;\n};\n"
                            "#define PMUSCOPE_IOC_X _IOW(0xB9, 0x01, struct x)\n")

    def test_unparsable_struct_outside_ioctls_is_skipped(self):
        # Not an ioctl's argument (the mmap()ed user page): left out.
        _, structs, _ = gf.parse_header("struct x {\n\tstruct y inner[4];\n};\n")
        self.assertNotIn("x", by_name(structs))
        _, structs, _ = gf.parse_header(HEADER)
        self.assertNotIn("pmuscope_user_page", by_name(structs))
        self.assertEqual(by_name(structs)["pmuscope_user_counter"].size, 64)


class KindTest(unittest.TestCase):
    def setUp(self):
        _, structs, self.ioctls = gf.parse_header(HEADER)
        self.s = by_name(structs)

    def field(self, st, name):
        return self.s[st].field(name)

    def test_config(self):
        f = self.field("pmuscope_config", "events")
        self.assertEqual((f.kind, f.elem, f.count_field, f.size_field),
                         ("PTR", "pmuscope_event", "nr_events", "event_size"))
        f = self.field("pmuscope_config", "cpus")
        self.assertEqual((f.kind, f.elem, f.bytes_field, f.target_only),
                         ("PTR", None, "cpus_size", 0))
        f = self.field("pmuscope_config", "nr_events")
        self.assertEqual((f.kind, f.lo, f.hi), ("COUNT", 1, 32))
        f = self.field("pmuscope_config", "cpus_size")
        self.assertEqual((f.kind, f.lo, f.hi, f.align, f.target_only),
                         ("BYTES", 8, 4096, 8, 0))
        f = self.field("pmuscope_config", "pid")
        self.assertEqual((f.kind, f.signed, f.target_only), ("PID", True, 1))
        f = self.field("pmuscope_config", "target")
        self.assertEqual((f.kind, f.lo, f.hi), ("TARGET", 0, 1))
        f = self.field("pmuscope_config", "event_size")
        self.assertEqual((f.kind, f.zero_means), ("ELEM_SIZE", 16))
        self.assertEqual(self.field("pmuscope_config", "reserved0").kind, "RESERVED")
        f = self.field("pmuscope_config", "flags")
        self.assertEqual((f.kind, f.mask), ("FLAGS", 0xf))

    def test_others(self):
        for name in ("api_version", "features", "nr_cpu_ids", "max_events"):
            self.assertEqual(self.field("pmuscope_handshake", name).kind, "OUTPUT", name)
        self.assertEqual(self.field("pmuscope_handshake", "size").kind, "SIZE")
        self.assertEqual(self.field("pmuscope_handshake", "reserved").nelem, 4)
        self.assertEqual(self.field("pmuscope_event", "flags").mask, 0xf)
        self.assertEqual(self.field("pmuscope_event", "event").kind, "EVENT")
        f = self.field("pmuscope_read", "values")
        self.assertEqual((f.kind, f.elem, f.count_field, f.size_field),
                         ("PTR", "pmuscope_value", "nr_values", "value_size"))
        # "in: room; out: values written": an input too.
        self.assertEqual(self.field("pmuscope_read", "nr_values").kind, "COUNT")
        self.assertEqual(self.field("pmuscope_read", "flags").mask, 0)
        f = self.field("pmuscope_swinc", "count")
        self.assertEqual((f.kind, f.lo, f.hi), ("COUNT", 1, 4096))
        self.assertEqual(self.field("pmuscope_swinc", "cpu").kind, "CPU")
        self.assertEqual(self.field("pmuscope_swinc", "event_mask").kind, "MASK")

    def test_requests(self):
        got = {io.name: (io.dir, io.magic, io.nr, io.struct) for io in self.ioctls}
        self.assertEqual(got["PMUSCOPE_IOC_HANDSHAKE"], ("WR", 0xB9, 0, "pmuscope_handshake"))
        self.assertEqual(got["PMUSCOPE_IOC_CONFIG"], ("W", 0xB9, 1, "pmuscope_config"))
        self.assertEqual(got["PMUSCOPE_IOC_ENABLE"], ("NONE", 0xB9, 2, None))
        self.assertEqual(got["PMUSCOPE_IOC_READ"], ("WR", 0xB9, 5, "pmuscope_read"))
        self.assertEqual(got["PMUSCOPE_IOC_SWINC"], ("W", 0xB9, 6, "pmuscope_swinc"))
        self.assertEqual(got["PMUSCOPE_IOC_SNAPSHOT"], ("WR", 0xB9, 7, "pmuscope_snapshot"))
        self.assertEqual(got["PMUSCOPE_IOC_STREAM"], ("W", 0xB9, 8, "pmuscope_stream"))
        self.assertEqual(got["PMUSCOPE_IOC_AMU_READ"], ("WR", 0xB9, 9, "pmuscope_amu_read"))
        self.assertEqual(got["PMUSCOPE_IOC_SPE_START"], ("W", 0xB9, 10, "pmuscope_spe_config"))
        self.assertEqual(got["PMUSCOPE_IOC_SPE_STOP"], ("NONE", 0xB9, 11, None))
        self.assertEqual(got["PMUSCOPE_IOC_SPE_STATUS"], ("WR", 0xB9, 12, "pmuscope_spe_status"))
        self.assertEqual(len(got), 13)


class DocTest(unittest.TestCase):
    def test_tables_with_continuations_and_shared_sections(self):
        tables, common = gf.parse_doc(MINI_DOC)
        self.assertEqual(tables["PMUSCOPE_IOC_FOO"], ["EINVAL", "E2BIG", "EFAULT"])
        self.assertEqual(tables["PMUSCOPE_IOC_BAR"], ["EOPNOTSUPP"])
        self.assertEqual(tables["PMUSCOPE_IOC_BAZ"], ["EOPNOTSUPP"])
        self.assertEqual(common, ["EFAULT", "ENOTTY", "ENOMEM"])

    def test_real_doc(self):
        tables, common = gf.parse_doc(DOC)
        self.assertEqual(sorted(common), ["EFAULT", "ENOMEM", "ENOTTY"])
        self.assertEqual(sorted(tables["PMUSCOPE_IOC_CONFIG"]),
                         ["E2BIG", "EACCES", "EBUSY", "EFAULT", "EINVAL", "ENODEV",
                          "ENOSPC", "ENXIO", "EOPNOTSUPP", "EPERM", "ESRCH"])
        for name in ("ENABLE", "DISABLE", "RESET"):
            self.assertEqual(tables["PMUSCOPE_IOC_" + name], ["EINVAL", "ESHUTDOWN"])
        self.assertEqual(sorted(tables["PMUSCOPE_IOC_READ"]),
                         ["E2BIG", "EFAULT", "EINVAL", "ENOSPC"])
        self.assertEqual(sorted(tables["PMUSCOPE_IOC_SWINC"]),
                         ["E2BIG", "EINVAL", "ENXIO", "EOPNOTSUPP"])
        self.assertEqual(sorted(tables["PMUSCOPE_IOC_HANDSHAKE"]),
                         ["E2BIG", "EFAULT", "EINVAL"])

    def test_a_non_errno_in_the_errno_column_is_an_error(self):
        with self.assertRaises(gf.GenError):
            gf.parse_doc(MINI_DOC.replace("E2BIG  too large", "Big    too large"))

    def test_an_ioctl_without_a_table_is_an_error(self):
        h = MINI_H + "#define PMUSCOPE_IOC_QUX\t_IO(FOO_MAGIC, 0x05)\n"
        with self.assertRaises(gf.GenError) as cm:
            gf.generate(h, MINI_DOC)
        self.assertIn("PMUSCOPE_IOC_QUX", str(cm.exception))


class OutputTest(unittest.TestCase):
    def test_generated_header_is_up_to_date(self):
        self.assertEqual(gf.generate(HEADER, DOC),
                         read("tests", "guest", "progs", "pmuscope-fuzz-gen.h"))

    def test_output_tables(self):
        out = gf.generate(MINI_H, MINI_DOC)
        self.assertIn("static const int fz_errnos_PMUSCOPE_IOC_FOO[] = "
                      "{ E2BIG, EFAULT, EINVAL };", out)
        self.assertIn('{ "PMUSCOPE_IOC_BAR", PMUSCOPE_IOC_BAR, FZ_DIR_NONE, 0x04, -1,', out)
        self.assertIn("offsetof(struct foo_arg, tail) == 56", out)
        self.assertIn("#define FZ_IOC_MAGIC\t0x42", out)
        self.assertIn("fz_common_errnos[] = { EFAULT, ENOMEM, ENOTTY };", out)

    def test_a_new_field_and_ioctl_are_in_the_tables(self):
        h = HEADER.replace("\t__u32 count;\t\t/* increments, 1 .. 4096 */\n",
                           "\t__u32 count;\t\t/* increments, 1 .. 4096 */\n"
                           "\t__u32 nr_extra;\t/* 0 .. 7 */\n\t__u32 reserved1;\n")
        self.assertNotEqual(h, HEADER)
        h = h.replace("#endif /* _UAPI_LINUX_PMUSCOPE_H */",
                      "#define PMUSCOPE_IOC_PING\t_IOW(PMUSCOPE_IOC_MAGIC, 0x0d, "
                      "struct pmuscope_swinc)\n#endif")
        doc = DOC + ("\nPMUSCOPE_IOC_PING\n=================\n\n"
                     "====== =====\nerrno  cause\n====== =====\nEIO    why\n====== =====\n")
        out = gf.generate(h, doc)
        self.assertIn('{ "nr_extra", 24, 4, 1, FZ_COUNT, 0, 0x0ULL, 0LL, 7LL,', out)
        self.assertIn('{ "reserved", 32, 8, 2, FZ_RESERVED,', out)
        self.assertIn("sizeof(struct pmuscope_swinc) == 48", out)
        self.assertIn('{ "PMUSCOPE_IOC_PING", PMUSCOPE_IOC_PING, FZ_DIR_W, 0x0d, 5,', out)
        self.assertIn("fz_errnos_PMUSCOPE_IOC_PING[] = { EIO };", out)
        self.assertIn("#define FZ_NR_IOCTLS\t14", out)


class CheckModeTest(unittest.TestCase):
    def test_check_notices_a_stale_header(self):
        with tempfile.TemporaryDirectory() as tmp:
            for rel in (("scripts", "gen-fuzz.py"),
                        ("include", "uapi", "linux", "pmuscope.h"),
                        ("Documentation", "ioctl.rst"),
                        ("tests", "guest", "progs", "pmuscope-fuzz-gen.h")):
                os.makedirs(os.path.join(tmp, *rel[:-1]), exist_ok=True)
                shutil.copy(os.path.join(TOP, *rel), os.path.join(tmp, *rel))
            script = os.path.join(tmp, "scripts", "gen-fuzz.py")

            def run(*args):
                return subprocess.run([sys.executable, script, *args],
                                      capture_output=True, text=True, timeout=60)

            self.assertEqual(run("--check").returncode, 0)
            doc = os.path.join(tmp, "Documentation", "ioctl.rst")
            with open(doc) as f:
                text = f.read()
            with open(doc, "w") as f:
                f.write(text.replace("EINVAL    the session has no configuration",
                                     "EINVAL    the session has no configuration\n"
                                     "EBUSY     busy"))
            r = run("--check")
            self.assertEqual(r.returncode, 1)
            self.assertIn("is stale", r.stdout)
            self.assertEqual(run().returncode, 0)
            self.assertEqual(run("--check").returncode, 0)
            with open(os.path.join(tmp, "tests", "guest", "progs",
                                   "pmuscope-fuzz-gen.h")) as f:
                self.assertIn("fz_errnos_PMUSCOPE_IOC_ENABLE[] = { EBUSY, EINVAL, ESHUTDOWN };",
                              f.read())


if __name__ == "__main__":
    unittest.main()
