#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Static analysis of the user-space code (tools/: libpmuscope, the CLI,
# the examples; tests/tools: their C tests) with cppcheck (Debian 12: 2.10),
# as make lint does sparse and checkpatch for the kernel code. Zero
# findings, or they are printed and the exit status is 1.
#
# A false positive is suppressed where it is, with its reason:
#   /* cppcheck-suppress <id> ; <why> */   on the line before
# (Documentation/testing.rst). missingIncludeSystem is off: cppcheck is
# not given the system headers, it knows libc from its own library files.
#
# clang-tidy (clang-analyzer-*, bugprone-*) is not run here: about 100 s
# on two cores for tools/, over this script's budget of a minute.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cd "$PMUSCOPE_TOP" || exit 1
command -v cppcheck >/dev/null || pmuscope_die "cppcheck not found (scripts/setup.sh)"

nfiles=$(find tools tests/tools -name '*.c' -not -path 'tools/build/*' | wc -l)
# --error-exitcode: cppcheck's own failures (a file it cannot parse is a
# syntaxError finding, reported too) also end in exit 1.
out=$(cppcheck -q --inline-suppr --error-exitcode=1 \
	--enable=warning,style,performance,portability --std=c11 \
	-Iinclude/uapi -Iinclude -Itools/lib -Itools/pmuscope -Itests/guest/progs -Itests/tools \
	--suppress=missingIncludeSystem -itools/build \
	--template='{file}:{line}: {severity}: {message} [{id}]' \
	tools/ tests/tools/ 2>&1)
status=$?
if [ $status -ne 0 ] || [ -n "$out" ]; then
	printf 'static analysis (cppcheck):\n%s\n' "$out"
	exit 1
fi
echo "static analysis: no findings ($nfiles files)"
