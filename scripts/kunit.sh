#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Quick KUnit run for development: build pmuscope_kunit.ko (W=1), boot the
# AM62L-like guest with only the KUnit plan and print one line per case,
# "PASS|FAIL|SKIP kunit/<suite>/<case>", then "N passed, N failed".
# The full suite is `make check`.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP" || exit 1

build=$PMUSCOPE_TOP/build
mkdir -p "$build/logs"
make --no-print-directory kunit-module >"$build/logs/kunit-build.log" 2>&1 ||
	{ grep -E 'error|warning' "$build/logs/kunit-build.log" | head -40; exit 1; }
if grep -E '(warning|error):' "$build/logs/kunit-build.log"; then
	exit 1
fi
make --no-print-directory -C tools >"$build/logs/kunit-tools.log" 2>&1 ||
	{ tail -20 "$build/logs/kunit-tools.log"; exit 1; }
scripts/mkinitramfs.sh "$build/initramfs-kunit.cpio" pmuscope.ko pmuscope_kunit.ko || exit 1
log=$build/logs/guest-kunit.log
scripts/run-guest.sh --log "$log" --cpu cortex-a53 --smp 2 --tests kunit:120 \
	--initrd "$build/initramfs-kunit.cpio" --timeout 300
python3 scripts/pmuscope_console.py "$log" kunit --require-ktap >"$build/kunit-results.txt"
grep -v '^PASS ' "$build/kunit-results.txt"
pass=$(grep -c '^PASS ' "$build/kunit-results.txt")
fail=$(grep -c '^FAIL ' "$build/kunit-results.txt")
echo "$pass passed, $fail failed (console: ${log#"$PMUSCOPE_TOP"/})"
[ "$fail" = 0 ]
