# SPDX-License-Identifier: GPL-2.0
# The reliability gate, last script of its plans: kmemleak (scanned twice,
# past the minimum object age), lockdep still on (no report in the boot).
# The modules' coverage data leaves after each test (init's gcov_out).
. /tests/lib.sh

D=/sys/kernel/debug
# A module loaded at the scan names its frames in the reports.
check "insmod (for the leak scan)" insmod "$PMUSCOPE_KO"
echo scan >$D/kmemleak
sleep 6		# kmemleak reports objects older than 5 s only
echo scan >$D/kmemleak
# Reports whose backtrace has a pmuscope frame, or a frame no symbol
# names (a module unloaded since: the only modules here are pmuscope's).
leaks=$(awk '
	/^unreferenced object/ { if (rep != "" && ours) n++; rep = $0; ours = 0; next }
	/\[<[0-9a-f]+>\] (pmuscope|0x)/ { ours = 1 }
	/\[pmuscope/ { ours = 1 }
	{ rep = rep "\n" $0 }
	END { if (rep != "" && ours) n++; print n + 0 }' $D/kmemleak)
check_eq "kmemleak: no unreferenced object allocated by pmuscope" "$leaks" 0
[ "$leaks" = 0 ] || tap_diag "$(head -c 3000 $D/kmemleak)"
check "rmmod" rmmod pmuscope

# Lockdep switches itself off at its first report, whichever script's:
# none in the whole boot (the debug kernel has JUMP_LABEL, so enabling a
# static key, perf's switch hooks' among them, takes cpus_read_lock()).
if [ -r /proc/lockdep_stats ]; then
	check "lockdep still on at the end (no lockdep report in the boot)" \
		grep -q 'debug_locks: *1' /proc/lockdep_stats
	grep -q 'debug_locks: *1' /proc/lockdep_stats ||
		tap_diag "$(dmesg | grep -A40 -m1 -E 'possible recursive locking|possible circular locking|inconsistent lock state|BUG: ' | head -c 3000)"
fi
