# SPDX-License-Identifier: GPL-2.0
# Locked memory: a stream's ring is charged as perf_mmap() charges a perf
# buffer (the user's kernel.perf_event_mlock_kb x online CPUs, then the
# process's RLIMIT_MEMLOCK; EPERM beyond; CAP_IPC_LOCK or paranoid -1
# exempts), given back when the ring is freed, to whoever was charged
# (progs/pmuscope-mlock.c); the kernel log and the CLI name the limit.
. /tests/lib.sh

P=/proc/sys/kernel/perf_event_paranoid
M=/proc/sys/kernel/perf_event_mlock_kb
if [ ! -w $M ]; then
	tap_ok "locked memory # SKIP no kernel.perf_event_mlock_kb (a kernel without perf events)"
	exit 0
fi
paranoid=$(cat $P)
mlock=$(cat $M)
check "insmod group=4242" insmod "$PMUSCOPE_KO" group=4242
echo 2 >$P
echo 16 >$M
run_test runas 65534 /bin/pmuscope-mlock user
check "the kernel log names the limits" \
	sh -c "dmesg | grep -q 'refused a stream ring of 16 KiB: exceeds the caller.s locked-memory limit (kernel.perf_event_mlock_kb 16 KiB'"
run_test runas 65534 /bin/pmuscope-mlock handoff
run_test /bin/pmuscope-mlock free
run_test /bin/pmuscope-mlock nocap
# The EL0 user page, one page as perf's user page: a member of group=.
echo 0 >$M
run_test runas 65534:4242 /bin/pmuscope-mlock el0
echo 16 >$M
echo -1 >$P
run_test runas 65534 /bin/pmuscope-mlock free
echo 2 >$P
# The CLI: a ring (-m 64) beyond the user's 16 KiB x CPUs and ulimit -l 0.
err=$(cd /tmp && runas 65534 sh -c 'ulimit -l 0; exec pmuscope record -m 64 -e cycles:u -o /tmp/mlock.data -- true' 2>&1)
rc=$?
err=$(unbanner "$err")
check_eq "pmuscope record -m 64, ulimit -l 0: exit 5" "$rc" 5
case "$err" in
*"a ring of 64 KiB exceeds your locked-memory limit (kernel.perf_event_mlock_kb"*"ulimit -l"*)
	tap_ok "... and says which limit: $err" ;;
*)	tap_not_ok "... and says which limit: got '$err'" ;;
esac
rm -f /tmp/mlock.data
echo "$mlock" >$M
echo "$paranoid" >$P
check "rmmod" rmmod pmuscope
