# SPDX-License-Identifier: GPL-2.0
# Fault injection on the debug kernel: every fault site (allocation) of each
# operation fails once through the per-task fail-nth (pmuscope-faults), the
# module's load path included; then nothing of pmuscope leaks (kmemleak).
. /tests/lib.sh

DBG=/sys/kernel/debug
if [ ! -d $DBG/failslab ]; then
	mount -t debugfs debugfs $DBG 2>/dev/null
fi
if [ ! -d $DBG/failslab ] || [ ! -e /proc/self/task/$$/fail-nth ]; then
	tap_ok "fault injection # SKIP kernel without FAILSLAB/FAULT_INJECTION_DEBUG_FS"
	exit 0
fi
# kmemleak was cleared after boot by t-gate-begin.sh (plans gate*, faults):
# clearing here would hide what the scripts before leaked.
kmemleak=
[ -w $DBG/kmemleak ] && kmemleak=1
taint0=$(cat /proc/sys/kernel/tainted)

start=$(date +%s)
check "insmod" insmod "$PMUSCOPE_KO"
run_test /bin/pmuscope-faults
tap_diag "ioctl and sysfs scenarios: $(( $(date +%s) - start )) s"

# The module loader's vmalloc failures print warn_alloc() stack dumps
# (KERN_WARNING, ratelimited): the kernel's, expected under injection. The
# console shows only errors meanwhile (KASAN, UBSAN and oopses are errors);
# a WARN taints the kernel and lockdep switches itself off: both checked.
lstart=$(date +%s)
printk=$(cat /proc/sys/kernel/printk)
echo 4 >/proc/sys/kernel/printk
# About 930 sites at about 0.5 s each (direct backend: 933, 466 s): the
# boot (run-guest.sh --timeout 600) leaves 520 s for them.
# pmuscope_faults_load=FIRST:SECONDS on the kernel command line (run-guest.sh
# --append) goes on from site FIRST (-K: the last K sites, where the
# module's own init runs; make check's gate boots take these); pmuscope_faults_verify=K loads, checks
# and unloads the module after every K-th failed load (each one is checked
# to leave no /sys/module/pmuscope, /sys/kernel/pmuscope, /dev/pmuscope).
load=${pmuscope_faults_load:-1:520}
run_test /bin/pmuscope-faults load "$PMUSCOPE_KO" "${pmuscope_faults_verify:-10}" \
	"${load%%:*}" "${load##*:}"
echo "$printk" >/proc/sys/kernel/printk
tap_diag "load scenario: $(( $(date +%s) - lstart )) s"
taint=$(cat /proc/sys/kernel/tainted)
if [ $(( (taint & ~taint0) & (512 | 128 | 32) )) != 0 ]; then
	# 512 W (a WARN), 128 D (an oops), 32 B (bad page, KASAN)
	tap_not_ok "no WARN/oops/bad page during the faults: taint $taint0 -> $taint"
	dmesg | grep -E -A 25 'WARNING:|BUG:|Oops|Internal error' | head -n 60 |
		while IFS= read -r l; do tap_diag "$l"; done
else
	tap_ok "no WARN/oops/bad page during the faults (taint $taint)"
fi
if [ -r /proc/lockdep_stats ]; then
	check "lockdep still on (no lockdep report)" grep -q 'debug_locks: *1' /proc/lockdep_stats
fi
warns=$(dmesg | grep -c -E 'vmalloc error|page allocation failure')
tap_diag "allocation failure reports of the kernel (warn_alloc, ratelimited) in dmesg: $warns"
check "rmmod" rmmod pmuscope
tap_diag "t-faults: $(( $(date +%s) - start )) s"

# Fault injection back to its defaults for whatever runs next.
echo Y >$DBG/failslab/ignore-gfp-wait
echo Y >$DBG/fail_page_alloc/ignore-gfp-wait
echo Y >$DBG/fail_page_alloc/ignore-gfp-highmem
echo 2 >$DBG/failslab/verbose
echo 2 >$DBG/fail_page_alloc/verbose

# Leaks: objects younger than 5 s are not reported, hence two scans.
if [ -n "$kmemleak" ]; then
	echo scan >$DBG/kmemleak
	sleep 6
	echo scan >$DBG/kmemleak
	cat $DBG/kmemleak >/tmp/kmemleak
	# One report per "unreferenced object": ours when its backtrace names
	# pmuscope or has an address no symbol resolves (an unloaded module's).
	split_reports() {
		awk -v want="$1" '
			function flush() { if (rep != "" && hit) { n++; printf "%s", rep > "/tmp/kmemleak.sel" } }
			/^unreferenced object/ { flush(); rep = ""; hit = 0; bt = 0 }
			{ rep = rep $0 "\n" }
			/backtrace:/ { bt = 1; next }
			want == "ours" && bt && /pmuscope|\] 0x[0-9a-f]+$/ { hit = 1 }
			want == "prog" && /comm "pmuscope-faults"/ { hit = 1 }
			END { flush(); print n + 0 }' /tmp/kmemleak
	}
	: >/tmp/kmemleak.sel
	ours=$(split_reports ours)
	check_eq "kmemleak: no leak of pmuscope" "$ours" 0
	[ "$ours" = 0 ] || head -n 80 /tmp/kmemleak.sel | while IFS= read -r l; do tap_diag "$l"; done
	: >/tmp/kmemleak.sel
	prog=$(split_reports prog)
	# e.g. a task_struct whose reference a failed task CONFIG kept
	check_eq "kmemleak: nothing allocated by pmuscope-faults leaked" "$prog" 0
	[ "$prog" = 0 ] || head -n 80 /tmp/kmemleak.sel | while IFS= read -r l; do tap_diag "$l"; done
	all=$(grep -c '^unreferenced object' /tmp/kmemleak)
	tap_diag "kmemleak: $all unreferenced object(s) in all"
	[ "$all" = 0 ] || head -n 40 /tmp/kmemleak | while IFS= read -r l; do tap_diag "$l"; done
	echo clear >$DBG/kmemleak
else
	tap_ok "kmemleak # SKIP no $DBG/kmemleak"
fi
