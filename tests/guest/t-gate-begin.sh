# SPDX-License-Identifier: GPL-2.0
# The reliability gate (debug kernel), first script of its plans: what the
# gate relies on is there, and kmemleak forgets what boot left behind so
# that the end (t-gate-end.sh) reports what the tests leaked only.
. /tests/lib.sh

D=/sys/kernel/debug
grep -q " $D debugfs" /proc/mounts || mount -t debugfs debugfs $D
check "kmemleak is on" test -w $D/kmemleak
check "kmemleak: boot's objects cleared" sh -c "echo clear > $D/kmemleak"
check "fault injection: fail-nth" test -w /proc/self/fail-nth
check "fault injection: fail_function" test -d $D/fail_function
check "gcov: coverage data directory" test -d $D/gcov
check "KASAN: the kernel was built with it" sh -c "dmesg | grep -q 'KernelAddressSanitizer initialized'"
