#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The builds make check tests (tests/registry, kind build): each fails on
# any compiler warning.
#   check-build.sh modules       pmuscope.ko, pmuscope_kunit.ko and the test
#                                modules against the test kernel, W=1
#   check-build.sh compat-6.1    the same against linux-source-6.1 (its test
#                                kernel built first, cached), W=1, sparse C=2
#   check-build.sh debian V      Debian's signed V kernel and headers (cached
#                                download), pmuscope.ko against them, W=1, and
#                                the initramfs that boots it
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP" || exit 1

no_warnings() {	# no_warnings COMMAND...: run, fail on any compiler warning
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ $rc = 0 ] || return $rc
	! printf '%s\n' "$out" | grep -E '(warning|error):'
}

case "${1:-}" in
modules)
	no_warnings make --no-print-directory kunit-module ;;
compat-6.1)
	PMUSCOPE_KVER=6.1 scripts/build-kernel.sh &&
		no_warnings make --no-print-directory compat-6.1 ;;
debian)
	[ -n "${2:-}" ] || pmuscope_die "check-build.sh debian VERSION"
	scripts/debian-kernel.sh "$2" &&
		scripts/mkinitramfs.sh "build/initramfs-debian-$2.cpio" "build/debian-$2/pmuscope.ko" ;;
*)
	pmuscope_die "check-build.sh modules|compat-6.1|debian VERSION" ;;
esac
