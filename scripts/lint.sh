#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make lint: sparse (C=2) over every kernel source of both modules,
# checkpatch.pl --strict from the kernel tree, the generated files, the
# design maps and cppcheck over tools/. Zero findings or exit 1.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
status=0

kdir=$("$PMUSCOPE_TOP/scripts/build-kernel.sh") || exit 1

# The generated register code matches drivers/pmuscope_regs.tbl.
if python3 "$PMUSCOPE_TOP/scripts/gen-regs.py" --check; then
	echo "register table: generated files up to date"
else
	status=1
fi
# The per-core event tables match perf's pmu-events JSON of linux-source.
python3 "$PMUSCOPE_TOP/scripts/gen-pmu-events.py" --check
case $? in
0) echo "core event tables: generated file up to date" ;;
2) echo "core event tables: not checked, perf's pmu-events JSON is absent" ;;
*) status=1 ;;
esac
# stat's metric table matches perf's pmu-events JSON.
if python3 "$PMUSCOPE_TOP/scripts/gen-pmu-metrics.py" --check; then
	echo "metric table: generated file up to date"
else
	status=1
fi
# The design maps name every file of drivers/ and tools/, and no other.
python3 "$PMUSCOPE_TOP/tests/lint/check-map.py" || status=1
# testing.rst's map of the tests is tests/registry's (tests/run.py --write-map).
python3 "$PMUSCOPE_TOP/tests/run.py" --check-map || status=1
# The fuzzer's tables match the uapi header and Documentation/ioctl.rst.
if python3 "$PMUSCOPE_TOP/scripts/gen-fuzz.py" --check; then
	echo "fuzzer tables: generated file up to date"
else
	status=1
fi
ksrc=$(readlink -f "$kdir/source")

out=$(make -s -C "$kdir" M="$PMUSCOPE_TOP" ARCH=arm64 CROSS_COMPILE="$PMUSCOPE_CROSS" \
	PMUSCOPE_KUNIT=1 C=2 CHECK=sparse modules 2>&1)
findings=$(printf '%s\n' "$out" | grep -E '(warning|error):' || true)
if [ -n "$findings" ]; then
	printf 'sparse:\n%s\n' "$findings"
	status=1
else
	echo "sparse (C=2): no findings"
fi

cd "$PMUSCOPE_TOP" || exit 1
files=$(ls drivers/*.[ch] include/*.h include/uapi/linux/*.h tests/kunit/*.[ch] tests/emu/*.[ch] \
	tests/guest/kmod/*.c 2>/dev/null)
# shellcheck disable=SC2086
out=$("$ksrc/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	-f $files 2>&1)
findings=$(printf '%s\n' "$out" | grep -E '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):' || true)
if [ -n "$findings" ]; then
	printf 'checkpatch --strict:\n%s\n' "$findings"
	status=1
else
	echo "checkpatch --strict: no findings ($(echo $files | wc -w) files)"
fi
"$PMUSCOPE_TOP/scripts/static-check.sh" || status=1
exit $status
