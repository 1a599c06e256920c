# SPDX-License-Identifier: GPL-2.0
# Unloading after a task session on a task that still runs. Up to Linux
# 6.1 the task's perf context made for pmuscope's own PMU (the direct
# backend) keeps pointing at it until the task exits: pmuscope stays
# loaded while such a context is left and unloads once the task has
# ended. On later kernels, and on the perf backend (perf's PMU, built in),
# nothing stays: rmmod works while the task runs, which goes on
# scheduling through perf's hooks unharmed (Documentation/pmuscope.rst,
# "Unloading on Linux 6.1").
. /tests/lib.sh

refcnt() { cat /sys/module/$PMUSCOPE_MOD/refcnt; }

# stat_pid PID: count PID with stat -p from the attach to a SIGINT.
stat_pid() {
	pmuscope stat -x , -e cycles:u -p "$1" >/tmp/unload.csv 2>&1 &
	spid=$!
	# Attached: stat waits in ppoll (syscall 73) for the signal (10 s
	# at most: a stat that never gets there fails below).
	n=0
	until [ ! -d /proc/$spid ] || grep -q '^73 ' /proc/$spid/syscall 2>/dev/null ||
		[ $n -ge 1000 ]; do
		sleep 0.01
		n=$((n + 1))
	done
	check "stat -p: the module is in use while it counts ($(refcnt))" test "$(refcnt)" -gt 0
	kill -INT $spid
	wait $spid
	# Its count may be 0: the child need not have run since the attach
	# (its context is made at the attach, which is what matters here).
	check "stat -p reported the task's cycles" grep -q '^[0-9][0-9]*,,cycles:u' /tmp/unload.csv
}

# An oops or a WARN taints the kernel: D (128), W (512); from now on.
dw0=$(($(cat /proc/sys/kernel/tainted) & 640))
check "insmod" insmod "$PMUSCOPE_KO"
backend=$(cat $PMUSCOPE_SYS/backend)
if pmuscope_task_ctx_kernel; then old=1; else old=0; fi
tap_diag "Linux $(uname -r), backend $backend"

# A child that outlives the session, busy (it switches often).
sh -c 'while :; do :; done' &
child=$!
stat_pid $child
check "the child runs on after the session" kill -0 $child

if [ "$backend" = direct ] && [ $old = 1 ]; then
	check_eq "Linux 6.1, direct: the module pins itself while the child's context is left (refcnt)" \
		"$(refcnt)" 1
	# command: not lib.sh's rmmod, which waits for the pin to go.
	check_fails "Linux 6.1, direct: rmmod is refused while the child runs" command rmmod pmuscope
	check "Linux 6.1, direct: still loaded after the refusal" test -d $PMUSCOPE_SYS
	kill $child
	wait $child
	# Its context went with it (perf_event_exit_task(), before its
	# parent may see it exit); the end of the next task session sweeps.
	check "a task session after the child's end" pmuscope stat -e cycles:u -- true
	check_eq "Linux 6.1, direct: no pin once the child has ended (refcnt)" "$(refcnt)" 0
	check "Linux 6.1, direct: rmmod once the child has ended" command rmmod pmuscope
else
	check_eq "no pin after the session ends, the child running (refcnt)" "$(refcnt)" 0
	check "rmmod while the child runs" rmmod pmuscope
	# Loaded again: a task event turns perf's switch hooks on, and the
	# child goes on switching through them.
	check "insmod again" insmod "$PMUSCOPE_KO"
	sh -c 'while :; do :; done' &
	other=$!
	stat_pid $other
	check "the first child still runs" kill -0 $child
	kill $child $other
	wait $child $other
	check "rmmod" rmmod pmuscope
fi
check_eq "no oops, no WARN meanwhile (taint D and W)" "$(($(cat /proc/sys/kernel/tainted) & 640))" "$dw0"
