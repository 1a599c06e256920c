# SPDX-License-Identifier: GPL-2.0
# pmuscope test, the self-check a user runs, in the guest: one TAP result
# per check's verdict (FAILED! fails, Skip passes and says why), --json
# and --report FILE, as root and as nobody (whose refused checks Skip),
# the checks under a taskset, and the wrap checks with the driver polling
# (mode=poll).
. /tests/lib.sh

# verdicts LABEL FILE [CHECKS...]: a TAP line per "  N: NAME : VERDICT"
# line of FILE, the output of pmuscope test -v CHECKS.
verdicts() {
	label=$1
	file=$2
	shift 2
	# A FAILED! line carries its check's measures and reason (the -v lines
	# under it), so that the host's summary says why, not only which.
	awk '
	function flush() { if (bad != "") print "not ok - " bad; bad = "" }
	/^     / { if (bad != "") { sub(/^ +/, ""); bad = bad " | " $0 }; next }
	/: Ok$/ { flush(); print "ok - " $0; next }
	/: Skip \(/ { flush(); print "ok - " $0; next }
	/: FAILED!$/ { flush(); bad = $0; next }
	{ flush() }
	END { flush() }' "$file" >/tmp/verdicts
	n=0
	while IFS= read -r v; do
		n=$((n + 1))
		case "$v" in
		"ok - "*) tap_ok "$label: ${v#ok - }" ;;
		*) tap_not_ok "$label: ${v#not ok - }" ;;
		esac
	done </tmp/verdicts
	check_eq "$label: a verdict per check" "$n" "$(pmuscope test --list "$@" | wc -l)"
}

check "insmod" insmod "$PMUSCOPE_KO"
t0=$(date +%s)
pmuscope test -v >/tmp/test.out 2>&1; rc=$?
tap_diag "pmuscope test -v took $(( $(date +%s) - t0 )) s"
sed 's/^/pmuscope-tap: # /' /tmp/test.out
verdicts "pmuscope test" /tmp/test.out
cp /tmp/test.out /tmp/test.out.root
if grep -q 'FAILED!$' /tmp/test.out; then want=1; else want=0; fi
check_eq "pmuscope test -v: exit status" "$rc" "$want"

pmuscope test --json >/tmp/test.json 2>/dev/null; jrc=$?
# Not on the console as a pmuscope-json: line: one of 2,000 characters is
# often cut by a kernel message there (the host would fail to parse it).
check_eq "--json: one line" "$(wc -l </tmp/test.json)" 1
check "--json: one object, versions and backend first, then the checks" grep -q \
	'^{"tool_version":"[0-9.]*","api_version":[0-9]*,"driver_loaded":true,"driver_api_version":[0-9]*,"backend":"[a-z]*","checks":\[{"number":1,.*}}$' \
	/tmp/test.json
check_eq "--json: one verdict per check" \
	"$(grep -o '"verdict":"[a-z]*"' /tmp/test.json | wc -l)" "$(pmuscope test --list | wc -l)"
# Its own run: its exit status says whether it has a failure.
if grep -q '"verdict":"failed"' /tmp/test.json; then want=1; else want=0; fi
check_eq "--json: the exit status says its failures" "$jrc" "$want"
check_eq "--json: no failure (as the text run)" "$want" 0

rm -f /tmp/report.txt
pmuscope test --report /tmp/report.txt >/dev/null 2>&1
for s in "== version ==" "== uname -a ==" "== results ==" "== dmesg (pmuscope) ==" \
	"== driver (/sys/kernel/pmuscope) ==" "== module parameters ==" "== /proc/cpuinfo =="; do
	check "--report has '$s'" grep -qxF "$s" /tmp/report.txt
done
sed -n '/^== dmesg (pmuscope) ==$/,/^$/p' /tmp/report.txt >/tmp/report.dmesg
check "--report: the driver's load message" grep -q '^pmuscope: version .* loaded' /tmp/report.dmesg
check "--report: cpu0's MIDR" grep -q '^cpu0/midr: 0x' /tmp/report.txt
check "--report: a module parameter" grep -q "^$PMUSCOPE_MOD\.mode: " /tmp/report.txt
check "--report: /proc/cpuinfo" grep -q '^processor' /tmp/report.txt
check "--report: the results" grep -q '^  1: Driver loaded  *: Ok$' /tmp/report.txt

# Not root, no capability: what needs one Skips, nothing FAILS.
runas 65534 pmuscope test -v >/tmp/test.out 2>&1
sed 's/^/pmuscope-tap: # nobody: /' /tmp/test.out
verdicts "pmuscope test as nobody" /tmp/test.out
# Where the backend writes PMSWINC_EL0 (the direct one), the refusal
# itself is the reason; elsewhere the backend is.
if grep -q '^  6: SW_INCR exact  *: Skip (the .* backend cannot write' /tmp/test.out; then
	tap_ok "as nobody: SW_INCR skipped for the backend, before any permission"
else
	check "as nobody: a CPU session refused is a Skip, with the reason" \
		grep -q '^  6: SW_INCR exact  *: Skip (.*CAP_PERFMON' /tmp/test.out
fi

# Check 18 only by name: a user running every check keeps their CPUs.
check "every check: hotplug skipped, named how to run it" \
	grep -q '^ 18: CPU hotplug while counting  *: Skip (takes a CPU offline and back: run it by name' \
	/tmp/test.out.root
pmuscope test -v hotplug >/tmp/test.out 2>&1
sed 's/^/pmuscope-tap: # hotplug: /' /tmp/test.out
verdicts "pmuscope test hotplug" /tmp/test.out hotplug

# A cpuset or taskset: each type's checks run on a CPU the process may
# run on, and the hotplug check needs two of them.
last=$(($(grep -c '^processor' /proc/cpuinfo) - 1))
if [ "$last" -ge 1 ]; then
	# taskset's mask is hexadecimal.
	taskset "$(printf %x $((1 << last)))" pmuscope test -v 1 7 hotplug >/tmp/test.out 2>&1
	sed 's/^/pmuscope-tap: # taskset cpu'"$last"': /' /tmp/test.out
	verdicts "pmuscope test under taskset" /tmp/test.out 1 7 hotplug
	check "taskset to cpu$last: the type measured on cpu$last, where it may run" \
		grep -q "cpu type 0: .*(measured on cpu$last)" /tmp/test.out
	check "taskset to cpu$last: hotplug skips, one CPU to run on" \
		grep -q '^ 18: CPU hotplug while counting  *: Skip (fewer than two online CPUs this process may run on' \
		/tmp/test.out
fi

check "rmmod" rmmod pmuscope
check "insmod mode=poll" insmod "$PMUSCOPE_KO" mode=poll
# Check 10 skips with polling; check 19 (by name) counts from 0 through
# 2^32 and holds there.
pmuscope test -v wrap 19 >/tmp/test.out 2>&1
sed 's/^/pmuscope-tap: # mode=poll: /' /tmp/test.out
verdicts "pmuscope test wrap 19, mode=poll" /tmp/test.out wrap 19
if ! grep -q '^ 19: .*: Skip (' /tmp/test.out; then
	check "mode=poll: check 19 went through 2^32 with no wrap lost" \
		grep -q '^ 19: Counting through 2^32 from zero  *: Ok$' /tmp/test.out
	# The direct backend folds them (the perf backend leaves them to perf).
	if [ "$(cat $PMUSCOPE_SYS/backend)" = direct ]; then
		check "mode=poll: the driver folded a wrap meanwhile" \
			grep -q 'wraps folded: [1-9]' /tmp/test.out
	fi
fi
check "rmmod" rmmod pmuscope

pmuscope test 1 >/tmp/test.out 2>&1
check_eq "driver not loaded: exit 1" "$?" 1
check "driver not loaded: check 1 FAILED" grep -q '^  1: Driver loaded  *: FAILED!$' /tmp/test.out
