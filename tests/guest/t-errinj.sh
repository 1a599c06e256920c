# SPDX-License-Identifier: GPL-2.0
# Function error injection (fail_function, debug kernel): the perf core
# refusing pmuscope's counters, at CONFIG and when a CPU comes back online
# (perf backend: plan gate-perf).
. /tests/lib.sh

D=/sys/kernel/debug
grep -q " $D debugfs" /proc/mounts || mount -t debugfs debugfs $D
check "insmod" insmod "$PMUSCOPE_KO"
check "pmuscope_perf_create can fail on demand (ALLOW_ERROR_INJECTION)" \
	grep -q pmuscope_perf_create $D/error_injection/list
run_test /bin/pmuscope-soak errinj
check "injection stopped" sh -c "! grep -q pmuscope_perf_create $D/fail_function/inject"
check "rmmod" rmmod pmuscope
