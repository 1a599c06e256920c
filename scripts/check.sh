#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: set-up, test kernel (cached), modules (W=1), lint, host tests,
# then KUnit and the in-guest tests under QEMU in each CPU profile. Every
# result is one line "PASS|FAIL|SKIP name"; the last line printed is
# "N passed, N failed" and the exit status is non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP" || exit 1

build=$PMUSCOPE_TOP/build
results=$build/results.txt
mkdir -p "$build/logs"
: >"$results"
t0=$(date +%s)

record() {	# record STATUS NAME
	echo "$1 $2" | tee -a "$results"
}

step() {	# step NAME COMMAND... : one result, output kept in a log
	local name=$1 log
	shift
	log=$build/logs/$(echo "$name" | tr -c 'A-Za-z0-9_.-' '_').log
	local s=$(date +%s)
	if "$@" >"$log" 2>&1; then
		record PASS "$name ($(( $(date +%s) - s )) s)"
	else
		record FAIL "$name ($(( $(date +%s) - s )) s, see ${log#"$PMUSCOPE_TOP"/})"
		tail -n 30 "$log" | sed 's/^/    /'
		return 1
	fi
}

no_warnings() {	# no_warnings COMMAND...: run, fail on any compiler warning
	local out
	out=$("$@" 2>&1)
	local rc=$?
	printf '%s\n' "$out"
	[ $rc = 0 ] || return $rc
	! printf '%s\n' "$out" | grep -E '(warning|error):'
}

summary() {
	local pass fail skip
	pass=$(grep -c '^PASS ' "$results")
	fail=$(grep -c '^FAIL ' "$results")
	skip=$(grep -c '^SKIP ' "$results")
	echo
	echo "make check: $(( $(date +%s) - t0 )) s; logs in ${build#"$PMUSCOPE_TOP"/}/logs"
	if [ "$fail" -gt 0 ]; then
		echo "Failures:"
		grep '^FAIL ' "$results" | sed 's/^/  /'
	fi
	if [ "$skip" -gt 0 ]; then
		echo "Skipped ($skip):"
		grep '^SKIP ' "$results" | sed 's/^/  /'
	fi
	# The last line, always in this form (CI reads it).
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
}

# 1. Tools and the kernel. Nothing else can run without them.
step "setup (scripts/setup.sh)" scripts/setup.sh || { summary; exit 1; }
step "test kernel (cached build of linux-source-$PMUSCOPE_KVER)" scripts/build-kernel.sh ||
	{ summary; exit 1; }

# 2. Modules for arm64, W=1, no warnings.
step "build pmuscope.ko and pmuscope_kunit.ko, W=1, no warnings" \
	no_warnings make --no-print-directory kunit-module || { summary; exit 1; }

step "tools: libpmuscope and pmuscope, host and static arm64, -Werror" \
	make --no-print-directory -C tools || { summary; exit 1; }

guest() {	# guest NAME [--require-ktap] run-guest.sh-options...
	local name=$1 log=$build/logs/guest-$1.log s=$(date +%s) rc=0 ktap=
	shift
	if [ "$1" = --require-ktap ]; then ktap=$1; shift; fi
	rm -rf "${log%.log}.d"
	scripts/run-guest.sh --log "$log" --out "${log%.log}.d" "$@" || rc=$?
	echo "# guest $name: qemu exit $rc after $(( $(date +%s) - s )) s ($*)"
	[ $rc = 124 ] && record FAIL "$name/boot timed out"
	python3 scripts/pmuscope_console.py "$log" "$name" $ktap |
		tee -a "$results" | grep -v '^PASS '
	grep -h '^pmuscope-wrap:' "$log" >>"$build/wrap-totals.txt"
}

# 6. The reliability gate: the debug kernel (KASAN, kmemleak, UBSAN, debug
# objects, fault injection; cached), the modules with GCOV, no -icount.
# Any report on a console fails its boot's "clean console" check.
gate_lane() {
	step "gate: debug kernel (cached build) and the modules with GCOV" scripts/gate-build.sh ||
		return
	touch "$build/.gate-built"
	gate=(--kernel debug --mem 1G --smp 2 --initrd "$build/initramfs-gate.cpio")
	# FUZZ_IOCTLS: the privileged phase of t-fuzz.sh (the unprivileged
	# one does a quarter of it).
	# pmuscope_faults_load: 150 s of the load path's ~930 sites (about 280
	# of them; the whole scan takes about 8 minutes: make faults), from a
	# site chosen from the commit, 250 apart, so that successive commits
	# cover them all: FIRST:SECONDS.
	local win nwin=4 first
	win=$(( 0x$(git -C "$PMUSCOPE_TOP" rev-parse --short=7 HEAD 2>/dev/null || echo 0) % nwin ))
	first=$(( win * 250 + 1 ))
	echo "# gate: module-load fault scan from site $first, window $((win + 1)) of $nwin (from commit $(git -C "$PMUSCOPE_TOP" rev-parse --short=7 HEAD 2>/dev/null || echo none); the whole scan: make faults)"
	guest gate --require-ktap "${gate[@]}" --cpu cortex-a53 --plan gate \
		--append "FUZZ_IOCTLS=50000 STRESS_ROUNDS=100 RACE_ROUNDS=100 pmuscope_faults_load=$first:150" --timeout 900
	# SOAK_CYCLES: 200 CPU-1 off/on cycles in the gate's boot; 50 through
	# the perf backend.
	guest gate-perf "${gate[@]}" --cpu cortex-a53 --plan gate-perf --no-blacklist \
		--append "FUZZ_IOCTLS=25000 SOAK_CYCLES=50 RACE_ROUNDS=100 pmuscope_faults_load=$first:150" \
		--timeout 600
	# The fuzzer at full volume on the test kernel (lockdep, no KASAN:
	# fast), in this lane to even the two out; its initramfs is the other
	# lane's.
	while [ ! -e "$build/.initramfs-built" ]; do
		sleep 5
	done
	guest a53-fuzz --cpu cortex-a53 --smp 2 --plan fuzz --append FUZZ_IOCTLS=750000 \
		--timeout 600
}

# The gate's build and boots run beside the rest (the 6.1 build, lint, the
# other boots): most of those keep one core busy (make without -j, shell
# scripts, or -icount, which makes TCG single-threaded), so the second
# core would idle. The lane has its own results file, merged below.
rm -f "$build/.gate-built" "$build/.initramfs-built"
(
	results=$build/results-gate.txt
	: >"$results"
	gate_lane
) >"$build/logs/gate-lane.log" 2>&1 &
gate_pid=$!

# The module also builds, and is tested below, against Debian's 6.1.
step "linux-source-6.1: test kernel (cached build)" \
	env PMUSCOPE_KVER=6.1 scripts/build-kernel.sh &&
	step "linux-source-6.1: modules, W=1, sparse C=2, no warnings" \
		no_warnings make --no-print-directory compat-6.1

# Debian's own signed kernels, their headers and linux-kbuild (a cached
# download, scripts/debian-kernel.sh): pmuscope.ko built against them, W=1,
# no warnings; booted below (debian-6.12, debian-6.1).
for v in 6.12 6.1; do
	step "debian-$v: Debian's linux-image and headers (cached), pmuscope.ko, W=1" \
		scripts/debian-kernel.sh "$v"
done
# The README's and the board guide's builds, as written, against Debian's
# 6.12 headers (the board's kernel build directory in the docs).
tests/host/readme-build.sh >"$build/logs/readme-build.log" 2>&1
sed -n 's/^\(PASS\|FAIL\) /\1 host\//p' "$build/logs/readme-build.log" | tee -a "$results" |
	grep -v '^PASS '
grep -q '^[0-9]* passed, 0 failed$' "$build/logs/readme-build.log" ||
	record FAIL "host/readme-build (see build/logs/readme-build.log)"

# 3. Static checks.
step "lint: sparse C=2 and checkpatch --strict" scripts/lint.sh

step "docs: every reST file parses cleanly (docutils)" /usr/bin/python3 tests/lint/check-docs.py

# 4. Host tests (python unittest, one result per test).
python3 -m unittest discover -v -s tests/host -p 'test_*.py' >"$build/logs/host.log" 2>&1
sed -nE 's/^(test_[A-Za-z0-9_]+) \(([^)]*)\)( \.\.\.|\n)? ?(.*)$/\1 \2 \4/p' "$build/logs/host.log" |
while read -r test where verdict; do
	case "$verdict" in
	*ok) record PASS "host/$where" ;;
	*skipped*) record SKIP "host/$where" ;;
	*) record FAIL "host/$where" ;;
	esac
done
grep -qE '^OK' "$build/logs/host.log" || record FAIL "host tests (see build/logs/host.log)"
tools/build/host/test_tools >"$build/logs/host-tools.log" 2>&1
sed -n 's/^\(PASS\|FAIL\) /\1 host\/tools\//p' "$build/logs/host-tools.log" >>"$results"
grep -q '^[0-9]* passed, 0 failed$' "$build/logs/host-tools.log" ||
	record FAIL "host/tools unit tests (see build/logs/host-tools.log)"
# stat's metric expressions and the generated metric table.
tools/build/host/test_metrics >"$build/logs/host-metrics.log" 2>&1
sed -n 's/^\(PASS\|FAIL\) /\1 host\/metrics\//p' "$build/logs/host-metrics.log" >>"$results"
grep -q '^[0-9]* passed, 0 failed$' "$build/logs/host-metrics.log" ||
	record FAIL "host/metrics unit tests (see build/logs/host-metrics.log)"
# The perf SPE source's consumption logic on synthetic AUX data.
(cd tools && build/host/test_spe_perf) >"$build/logs/host-spe-perf.log" 2>&1
sed -n 's/^\(PASS\|FAIL\) /\1 host\/spe-perf\//p' "$build/logs/host-spe-perf.log" >>"$results"
grep -q '^[0-9]* passed, 0 failed$' "$build/logs/host-spe-perf.log" ||
	record FAIL "host/spe-perf tests (see build/logs/host-spe-perf.log)"
# The SPE decoder against perf's own (linux-source), fuzzed under ASan/UBSan.
tests/host/spe-decoder.sh >"$build/logs/host-spe.log" 2>&1
sed -n 's/^\(PASS\|FAIL\) /\1 host\/spe\//p' "$build/logs/host-spe.log" >>"$results"
grep -q '^[0-9]* passed, 0 failed$' "$build/logs/host-spe.log" ||
	record FAIL "host/spe decoder tests (see build/logs/host-spe.log)"

# The CLI's file readers (record and SPE files) fuzzed under ASan/UBSan.
tests/host/fuzz-files.sh >"$build/logs/host-file-fuzz.log" 2>&1
sed -n 's/^\(PASS\|FAIL\) /\1 host\/file-fuzz\//p' "$build/logs/host-file-fuzz.log" >>"$results"
grep -q '^[0-9]* passed, 0 failed$' "$build/logs/host-file-fuzz.log" ||
	record FAIL "host/file readers fuzzed (see build/logs/host-file-fuzz.log)"
# libpmuscope.so's ABI: its exports, pmuscope.h, abidiff against the baseline.
tests/host/abi-check.sh >"$build/logs/host-abi.log" 2>&1
sed -n 's/^\(PASS\|FAIL\) /\1 host\/abi\//p' "$build/logs/host-abi.log" >>"$results"
grep -q '^[0-9]* passed, 0 failed$' "$build/logs/host-abi.log" ||
	record FAIL "host/libpmuscope ABI (see build/logs/host-abi.log)"

# 5. QEMU: KUnit and the in-guest tests, once per CPU profile.
step "initramfs" scripts/mkinitramfs.sh "$build/initramfs.cpio" pmuscope.ko pmuscope_kunit.ko \
	pmuscope_cpupm.ko pmuscope_emu.ko ||
	{ kill "$gate_pid"; wait; summary; exit 1; }
touch "$build/.initramfs-built"

# Packaging: DKMS against the test kernel, make install/uninstall, man
# pages, bash completion (about a minute). After the initramfs: make
# install rebuilds pmuscope.ko alone in the tree (modules_install), which
# must not race lint or the modules the initramfs took.
tests/host/packaging.sh >"$build/logs/packaging.log" 2>&1
sed -n 's/^\(PASS\|FAIL\|SKIP\) /\1 packaging\//p' "$build/logs/packaging.log" >>"$results"
grep -q '^[0-9]* passed, 0 failed$' "$build/logs/packaging.log" ||
	record FAIL "packaging tests (see build/logs/packaging.log)"




: >"$build/wrap-totals.txt"
# AM62L-like (PMUv3, 32-bit event counters) and PMUv3p5, 2 CPUs each. On
# cortex-a53 the discovery plan's other tests run in the gate's boot (the
# debug kernel) and in a53-6.1 (at speed): plan smp takes the rest.
guest a53 --cpu cortex-a53 --smp 2 --plan smp --timeout 300
guest max --require-ktap --cpu max --smp 2 --plan discovery --timeout 300
# Exact instruction counts: one vCPU (QEMU's icount is shared by all).
guest a53-exact --cpu cortex-a53 --smp 1 --icount 0 --plan exact --timeout 300
guest max-exact --cpu max --smp 1 --icount 0 --plan exact --timeout 300
# The profile against perf_event_open()'s in the same boot (t-fidelity.sh),
# direct backend; the perf backend's in a53-perf-exact and the Debian boots.
guest a53-fidelity --cpu cortex-a53 --smp 1 --icount 0 --plan fidelity --timeout 400
# pmuscope report (elfutils, on the host) of what t-record.sh recorded there.
for n in a53-exact max-exact; do
	python3 tests/guest/check/report.py "$build/logs/guest-$n.log" "$n" "$build" |
		tee -a "$results" | grep -v '^PASS '
done
# ... and of what t-callgraph.sh recorded with call chains (direct backend).
for n in a53-exact max-exact; do
	python3 tests/guest/check/callgraph.py "$build/logs/guest-$n.log" "$n" "$build" |
		tee -a "$results" | grep -v '^PASS '
done
# Cycles across many 2^32 wraps, with the interrupt and with polling.
guest a53-wrap --cpu cortex-a53 --smp 2 --icount 0 --plan wrap --timeout 300
guest max-wrap --cpu max --smp 2 --icount 0 --plan wrap --timeout 300
# The same plan on Linux 6.1 (the modules built against linux-source-6.1).
if [ -f build/compat-6.1/pmuscope.ko ] &&
   scripts/mkinitramfs.sh "$build/initramfs-6.1.cpio" build/compat-6.1/pmuscope.ko \
	build/compat-6.1/pmuscope_kunit.ko build/compat-6.1/pmuscope_cpupm.ko \
	>"$build/logs/initramfs-6.1.log" 2>&1; then
	guest a53-6.1 --require-ktap --kver 6.1 --cpu cortex-a53 --smp 2 \
		--plan discovery --initrd "$build/initramfs-6.1.cpio" --timeout 300
else
	record FAIL "a53-6.1: no modules or initramfs for 6.1"
fi
# A VHE host: Linux at EL2, "kernel" means EL2.
guest max-vhe --cpu max --smp 2 --el2 --plan vhe --timeout 120
# pmuscope_emu.ko: the whole driver against the register model, PMUv3 passed
# through to QEMU's: a Neoverse-N1-like CPU (SPE, AMU) on QEMU's neoverse-n1,
# and a v9.4-like one (PMUv3p9, snapshot, ICNTR, SPE, AMUv1p1) on QEMU's max.
# (About 250 s each on a loaded 2-core host: the timeout leaves room.)
guest emu-n1 --cpu neoverse-n1 --smp 2 --plan emu --append pmuscope_emu=neoverse-n1 \
	--timeout 480
guest emu-v94 --cpu max --smp 2 --plan emu --append pmuscope_emu=v9.4-like --timeout 480
# A fault model: a PMU exposed but never counting (as some hypervisors'),
# and what pmuscope shows of it, pmuscope test's FAILED verdicts among it.
guest dead-pmu --cpu cortex-a53 --smp 2 --plan dead-pmu --append pmuscope_emu=dead-pmu \
	--timeout 180
# ... with -icount: QEMU retires an instruction per ns, the model's AMU
# counts one per busy ns: the PMU's INST_RETIRED and the AMU's agree.
guest emu-n1-icount --cpu neoverse-n1 --smp 2 --icount 0 --plan amu \
	--append pmuscope_emu=neoverse-n1 --timeout 200
# perf's own PMU driver active (no initcall_blacklist).
guest a53-perf --cpu cortex-a53 --smp 2 --plan perf --no-blacklist --timeout 300
guest max-perf --cpu max --smp 2 --plan callgraph --no-blacklist --timeout 300
# Call chains recorded through perf's driver (t-callgraph.sh), checked on the host.
for n in a53-perf max-perf; do
	python3 tests/guest/check/callgraph.py "$build/logs/guest-$n.log" "$n" "$build" |
		tee -a "$results" | grep -v '^PASS '
done
# ... with -icount: per-task counting and multiplexing through perf, exact.
guest a53-perf-exact --cpu cortex-a53 --smp 1 --icount 0 --plan perf-exact --no-blacklist \
	--timeout 400
# The direct backend's profiles (a53-fidelity) against the peer's of this
# boot: same kernel, CPU and -icount, perf's driver on (t-fidelity.sh).
python3 tests/guest/check/fidelity.py "$build/logs/guest-a53-fidelity.log" \
	"$build/logs/guest-a53-perf-exact.log" a53-fidelity "$build" |
	tee -a "$results" | grep -v '^PASS '
# Debian's signed kernels as shipped: perf's PMU driver, perf_event_paranoid
# untouched, pmuscope.ko (built against Debian's headers) by a plain insmod;
# the perf backend's exact counts, -icount.
for v in 6.12 6.1; do
	if [ -e "build/debian-$v/vmlinuz" ] &&
	   scripts/mkinitramfs.sh "$build/initramfs-debian-$v.cpio" "build/debian-$v/pmuscope.ko" \
		>"$build/logs/initramfs-debian-$v.log" 2>&1; then
		guest "debian-$v" --kernel-image "build/debian-$v/vmlinuz" \
			--initrd "$build/initramfs-debian-$v.cpio" --cpu cortex-a53 --smp 1 --icount 0 \
			--no-blacklist --plan debian --timeout 400
	else
		record FAIL "debian-$v: no Debian kernel, module or initramfs"
	fi
done
# pmuscope export scraped by a private Prometheus on the host (127.0.0.1
# only), through the guest's virtio-net: what Prometheus stored is what the
# exporter served.
python3 tests/guest/check/export-e2e.py "$build/initramfs.cpio" "$build/logs/guest-export.log" \
	>"$build/logs/export-e2e.log" 2>&1
sed -n 's/^\(PASS\|FAIL\) /\1 export-e2e\//p' "$build/logs/export-e2e.log" >>"$results"
grep -q '^[0-9]* passed, 0 failed$' "$build/logs/export-e2e.log" ||
	record FAIL "export end to end (see build/logs/export-e2e.log)"
python3 scripts/pmuscope_console.py "$build/logs/guest-export.log" export |
	tee -a "$results" | grep -v '^PASS '
# The emulated units on the debug kernel, last (the gate lane is longer).
while [ ! -e "$build/.gate-built" ] && kill -0 "$gate_pid" 2>/dev/null; do
	sleep 5
done
if [ -e "$build/.gate-built" ]; then
	guest gate-emu --kernel debug --mem 1G --smp 2 --initrd "$build/initramfs-gate.cpio" \
		--cpu neoverse-n1 --plan gate-emu \
		--append "pmuscope_emu=neoverse-n1 FUZZ_IOCTLS=25000" --timeout 600
else
	record FAIL "gate-emu: no gate build (see build/logs/gate-lane.log)"
fi
wait "$gate_pid"
cat "$build/logs/gate-lane.log"
cat "$build/results-gate.txt" >>"$results"
step "gate: coverage data of every gate boot intact and merged (build/coverage.txt)" \
	python3 tests/guest/check/coverage.py build/gate-src "$build/coverage.txt" \
	"$build/logs/guest-gate.log" "$build/logs/guest-gate-perf.log" \
	"$build/logs/guest-gate-emu.log"
[ -f "$build/coverage.txt" ] && grep -v 'not run:' "$build/coverage.txt" | sed 's/^/# /'
echo "# CPU_CYCLES totals, event counter vs cycle counter:"
sed 's/^/#   /' "$build/wrap-totals.txt"

summary
