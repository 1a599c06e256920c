#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The suite under load: make check (or what make test picks) N times while
# busy processes load the host, to find the tests that only pass on an idle
# machine (a sleep standing in for ordering, a window a preemption can
# break, a budget too tight).
#
# Usage: scripts/load-test.sh [-n N] [--hogs H] [T=NAME|U=UNIT|B=BOOT]
#   -n N       rounds (default 5)
#   --hogs H   busy processes, "sh -c 'while :; do :; done'" (default 2),
#              killed at the end
#   T=, U=, B= what tests/run.py runs each round (default: all of make check)
#
# One line per round, "PASS|FAIL round I (S s): N passed, N failed" with the
# failed results indented below it; then every result that failed with how
# often; the last line is "N runs, N failed" and the exit status is non-zero
# on any failure. Each round's output: build/load-test/round-I.txt.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP" || exit 1

rounds=5 nhogs=2
what=(--all)
while [ $# -gt 0 ]; do
	case "$1" in
	-n) rounds=${2:-}; shift ;;
	--hogs) nhogs=${2:-}; shift ;;
	[TUB]=*) [ "${what[0]}" = --all ] && what=(); what+=("$1") ;;
	*) pmuscope_die "load-test.sh: unknown argument $1 (see the head of $0)" ;;
	esac
	shift
done
case "$rounds" in ''|*[!0-9]*|0) pmuscope_die "load-test.sh: -n needs a count, 1 or more" ;; esac
case "$nhogs" in ''|*[!0-9]*) pmuscope_die "load-test.sh: --hogs needs a count" ;; esac

out=$PMUSCOPE_TOP/build/load-test
rm -rf "$out"
mkdir -p "$out"

# The load, killed (by pid) whatever way this script ends.
hogs=()
stop_hogs() {
	local p
	for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${hogs[@]}"; do wait "$p" 2>/dev/null; done
	hogs=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for _ in $(seq "$nhogs"); do
	sh -c 'while :; do :; done' &
	hogs+=($!)
done
echo "# $nhogs busy processes (pids ${hogs[*]:-none}) on $(nproc) CPUs; $rounds rounds of tests/run.py ${what[*]}"

failed=0
: >"$out/failures.txt"
for i in $(seq "$rounds"); do
	s=$(date +%s)
	python3 tests/run.py "${what[@]}" >"$out/round-$i.txt" 2>&1
	rc=$?
	last=$(tail -n 1 "$out/round-$i.txt")
	if [ $rc = 0 ]; then
		echo "PASS round $i ($(( $(date +%s) - s )) s): $last"
	else
		failed=$((failed + 1))
		echo "FAIL round $i ($(( $(date +%s) - s )) s): $last"
		sed -n '/^Failures:$/,/^Rerun alone:$/p' "$out/round-$i.txt" | grep '^  FAIL ' |
			tee -a "$out/failures.txt" | sed 's/^  /    /'
		cp build/results.txt "$out/results-$i.txt"
	fi
done
stop_hogs

if [ -s "$out/failures.txt" ]; then
	echo
	echo "Failed results ($rounds rounds, $nhogs busy processes):"
	sed 's/^  FAIL //' "$out/failures.txt" | sort | uniq -c | sort -rn | sed 's/^ */  /'
fi
echo "$rounds runs, $failed failed"
[ "$failed" = 0 ]
