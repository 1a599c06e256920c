#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The suite under load: the KUnit boot (scripts/kunit.sh) and the guest
# boots of make check, N rounds each, while busy processes load the host,
# to find the tests that only pass on an idle machine (a sleep standing in
# for ordering, a window a preemption can break).
#
# Usage: scripts/load-test.sh [-n N] [--hogs H] [--list] [BOOT...]
#   -n N       rounds (default 20); each round runs every boot once
#   --hogs H   busy processes, "sh -c 'while :; do :; done'" (default 2),
#              killed at the end
#   --list     the boots it knows, and exit
#   BOOT...    kunit and the names of make check's boots (default: all)
#
# One line per run, "PASS|FAIL BOOT round I (S s)" with the failed results
# indented below it; then, per boot, its failed rounds and each result
# that failed with how often; the last line is "N runs, N failed" and the
# exit status is non-zero on any failure. Logs: build/load-test/.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP" || exit 1

# make check's boots on the test kernel (scripts/check.sh, which stays the
# reference): NAME|[--require-ktap ]run-guest.sh options. Not here: the
# gate's boots (the debug kernel, scripts/gate-build.sh), a53-6.1 (its own
# kernel and modules) and the export boot (a Prometheus on the host).
boots=(
	"a53|--cpu cortex-a53 --smp 2 --plan smp --timeout 300"
	"max|--require-ktap --cpu max --smp 2 --plan discovery --timeout 300"
	"a53-exact|--cpu cortex-a53 --smp 1 --icount 0 --plan exact --timeout 120"
	"max-exact|--cpu max --smp 1 --icount 0 --plan exact --timeout 120"
	"a53-wrap|--cpu cortex-a53 --smp 2 --icount 0 --plan wrap --timeout 300"
	"max-wrap|--cpu max --smp 2 --icount 0 --plan wrap --timeout 300"
	"max-vhe|--cpu max --smp 2 --el2 --plan vhe --timeout 120"
	"emu-n1|--cpu neoverse-n1 --smp 2 --plan emu --append pmuscope_emu=neoverse-n1 --timeout 480"
	"emu-v94|--cpu max --smp 2 --plan emu --append pmuscope_emu=v9.4-like --timeout 480"
	"emu-n1-icount|--cpu neoverse-n1 --smp 2 --icount 0 --plan amu --append pmuscope_emu=neoverse-n1 --timeout 200"
	"a53-perf|--cpu cortex-a53 --smp 2 --plan perf --no-blacklist --timeout 120"
	"a53-perf-exact|--cpu cortex-a53 --smp 1 --icount 0 --plan perf-exact --no-blacklist --timeout 240"
	"a53-fuzz|--cpu cortex-a53 --smp 2 --plan fuzz --append FUZZ_IOCTLS=750000 --timeout 600"
)

rounds=20 nhogs=2
want=()
while [ $# -gt 0 ]; do
	case "$1" in
	-n) rounds=${2:-}; shift ;;
	--hogs) nhogs=${2:-}; shift ;;
	--list)
		echo kunit
		for b in "${boots[@]}"; do echo "${b%%|*}"; done
		exit 0 ;;
	-*) pmuscope_die "load-test.sh: unknown option $1 (see the head of $0)" ;;
	*) want+=("$1") ;;
	esac
	shift
done
case "$rounds" in ''|*[!0-9]*|0) pmuscope_die "load-test.sh: -n needs a count, 1 or more" ;; esac
case "$nhogs" in ''|*[!0-9]*) pmuscope_die "load-test.sh: --hogs needs a count" ;; esac

# The boots to run, in make check's order, kunit first.
spec_of() {	# spec_of NAME: its run-guest.sh options, or fail
	local b
	for b in "${boots[@]}"; do
		[ "${b%%|*}" = "$1" ] && { echo "${b#*|}"; return 0; }
	done
	return 1
}
run=()
if [ ${#want[@]} = 0 ]; then
	run=(kunit)
	for b in "${boots[@]}"; do run+=("${b%%|*}"); done
else
	for w in "${want[@]}"; do
		[ "$w" = kunit ] || spec_of "$w" >/dev/null ||
			pmuscope_die "load-test.sh: no boot '$w' (--list names them)"
		run+=("$w")
	done
fi

out=$PMUSCOPE_TOP/build/load-test
rm -rf "$out"
mkdir -p "$out"

# What the guest boots need, built once (kunit.sh builds its own).
guests=0
for b in "${run[@]}"; do [ "$b" = kunit ] || guests=1; done
if [ $guests = 1 ]; then
	echo "# building: modules (W=1), tools, initramfs"
	{ make --no-print-directory kunit-module && make --no-print-directory -C tools &&
		scripts/mkinitramfs.sh build/initramfs.cpio pmuscope.ko pmuscope_kunit.ko \
			pmuscope_cpupm.ko pmuscope_emu.ko; } >"$out/build.log" 2>&1 ||
		{ tail -n 30 "$out/build.log"; pmuscope_die "load-test.sh: build failed ($out/build.log)"; }
fi

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
echo "# $nhogs busy processes (pids ${hogs[*]:-none}) on $(nproc) CPUs; $rounds rounds of: ${run[*]}"

runs=0 failed=0
: >"$out/failures.txt"	# BOOT<TAB>ROUND<TAB>RESULT, one per failed result

one() {	# one BOOT ROUND: run it, judge it; 0 when every result passed
	local boot=$1 i=$2 log=$out/$1-$2.log res=$out/$1-$2.results rc=0 ktap='' spec
	if [ "$boot" = kunit ]; then
		scripts/kunit.sh >"$res.raw" 2>&1 || rc=$?
		cp build/logs/guest-kunit.log "$log" 2>/dev/null
		# kunit.sh prints only what did not pass, then "N passed, N failed".
		grep -E '^(FAIL|SKIP) ' "$res.raw" >"$res"
		tail -n 1 "$res.raw" | grep -Eq '^[0-9]+ passed, 0 failed' ||
			echo "FAIL kunit/run (exit $rc: $(tail -n 1 "$res.raw"))" >>"$res"
	else
		spec=$(spec_of "$boot")
		case "$spec" in --require-ktap\ *) ktap=--require-ktap; spec=${spec#--require-ktap } ;; esac
		# shellcheck disable=SC2086 # the options are words
		scripts/run-guest.sh --log "$log" $spec >"$res.raw" 2>&1 || rc=$?
		python3 scripts/pmuscope_console.py "$log" "$boot" $ktap >"$res" 2>&1 ||
			grep -q '^FAIL ' "$res" || echo "FAIL $boot/console judged it failed" >>"$res"
		[ $rc = 124 ] && echo "FAIL $boot/boot timed out" >>"$res"
		case "$boot" in
		a53-exact|max-exact)
			# The build directory, as make check gives it: the
			# recordings go to its logs/, the binaries are its symfs/.
			python3 tests/guest/check/report.py "$log" "$boot" "$PMUSCOPE_TOP/build" >>"$res" 2>&1 ||
				grep -q '^FAIL ' "$res" || echo "FAIL $boot/report-check.py" >>"$res"
			;;
		esac
	fi
	! grep -q '^FAIL ' "$res"
}

for i in $(seq "$rounds"); do
	for boot in "${run[@]}"; do
		s=$(date +%s)
		runs=$((runs + 1))
		if one "$boot" "$i"; then
			echo "PASS $boot round $i ($(( $(date +%s) - s )) s)"
		else
			failed=$((failed + 1))
			echo "FAIL $boot round $i ($(( $(date +%s) - s )) s, log ${out#"$PMUSCOPE_TOP"/}/$boot-$i.log)"
			grep '^FAIL ' "$out/$boot-$i.results" | sed 's/^/    /'
			grep '^FAIL ' "$out/$boot-$i.results" | sed "s/^FAIL /$boot\t$i\t/" >>"$out/failures.txt"
		fi
	done
done
stop_hogs

echo
echo "Per boot ($rounds rounds each, $nhogs busy processes):"
for boot in "${run[@]}"; do
	f=$(awk -F'\t' -v b="$boot" '$1 == b { print $2 }' "$out/failures.txt" | sort -u | wc -l)
	echo "  $boot: $f of $rounds rounds failed"
	awk -F'\t' -v b="$boot" '$1 == b { print $3 }' "$out/failures.txt" | sort | uniq -c |
		sort -rn | sed 's/^ */      /;s/^\(      [0-9]*\) /\1 x /'
done
echo "$runs runs, $failed failed"
[ "$failed" = 0 ]
