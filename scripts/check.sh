#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: the set-up (scripts/setup.sh), then every test of
# tests/registry, scheduled over the host's cores by tests/run.py: the
# builds (test kernels cached), lint, the host tests, KUnit and the
# in-guest tests under QEMU. Every result is one line "PASS|FAIL|SKIP
# name"; the last line printed is "N passed, N failed" and the exit status
# is non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP" || exit 1
mkdir -p build/logs
if ! scripts/setup.sh >build/logs/setup.log 2>&1; then
	tail -n 30 build/logs/setup.log
	echo "FAIL setup (scripts/setup.sh, see build/logs/setup.log)"
	echo "0 passed, 1 failed"
	exit 1
fi
exec python3 tests/run.py --all
