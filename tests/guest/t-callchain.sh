# SPDX-License-Identifier: GPL-2.0
# Call chains in SAMPLE records (PMUSCOPE_STREAM_F_CALLCHAIN) on QEMU's
# PMU: a known call tree (static and PIE dynamically linked builds) whose
# leaf's samples carry exactly their callers; max_stack; a clobbered x29
# and frame records unmapped while sampled end chains cleanly; kernel
# frames only for a session that may see kernel addresses.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
for build in static pie; do
	run_test "/bin/pmuscope-callchain-$build" tree "$build"
done
for sub in depth clobber unmap hidden kernel; do
	run_test /bin/pmuscope-callchain-static $sub
done
check "rmmod" rmmod pmuscope
