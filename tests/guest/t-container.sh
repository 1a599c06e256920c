# SPDX-License-Identifier: GPL-2.0
# The container recipe of Documentation/board-am62l.rst without a
# container runtime (progs/pmuscope-container.c): CAP_PERFMON alone counts
# whole CPUs in the initial user namespace; the root of a user namespace
# is refused them as perf_event_open() refuses it; a container root's own
# task as kernel.perf_event_paranoid says; a seccomp filter like Docker's
# default passes the device; the node's mode and the udev rule's.
# No group=: the capabilities and the sysctl alone decide.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
tap_diag "backend $(cat "$PMUSCOPE_SYS/backend"), kernel $(uname -r)"
run_test /bin/pmuscope-container 1000
check "rmmod" rmmod pmuscope
