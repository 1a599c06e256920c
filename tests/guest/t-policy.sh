# SPDX-License-Identifier: GPL-2.0
# The system's perf policy: pmuscope refuses what perf_event_open() refuses
# the same caller on the same kernel, level by level of
# kernel.perf_event_paranoid, except what group= grants
# (progs/pmuscope-policy.c); and the CLI's refusals name the sysctl.
. /tests/lib.sh

P=/proc/sys/kernel/perf_event_paranoid
before=$(cat $P)
check "insmod group=4242" insmod "$PMUSCOPE_KO" group=4242
# A setuid-root program for the STREAM of a task that exec'd one: this
# test's own, whose "hold" says its euid and waits.
suid=/tmp/pmuscope-policy-suid
cp /bin/pmuscope-policy $suid && chown 0:0 $suid && chmod 4755 $suid
run_test /bin/pmuscope-policy 4242 $suid
rm -f $suid

echo 3 >$P
err=$(runas 65534 pmuscope stat -e cycles:u -- true 2>&1); rc=$?; err=$(unbanner "$err")
check_eq "paranoid 3, another user, own user-space cycles: exit 5" "$rc" 5
check_eq "paranoid 3: the message names the sysctl and group=" "$err" \
	"pmuscope: permission denied: kernel.perf_event_paranoid is 3, which lets no one without CAP_PERFMON (or CAP_SYS_ADMIN) count: set it to 2 or lower, or be a member of the group of the pmuscope module parameter group= (group 4242, of which you are not a member)"
check "paranoid 3, a member of group=: own user-space cycles" \
	runas 65534:4242 pmuscope stat -e cycles:u -- true
err=$(runas 65534:4242 pmuscope stat -e cycles -- true 2>&1); rc=$?; err=$(unbanner "$err")
check_eq "paranoid 3, a member, the kernel's cycles: exit 5" "$rc" 5
check_eq "paranoid 3, a member, the kernel: group= does not grant it" "$err" \
	"pmuscope: permission denied: counting the kernel (modifier k, on by default) needs CAP_PERFMON (or CAP_SYS_ADMIN) or kernel.perf_event_paranoid 1 or lower (it is 3); group= grants user space only: add :u to count user space only"
echo 1 >$P
check "paranoid 1, another user: its command's kernel cycles too" \
	runas 65534 pmuscope stat -e cycles -- true
# group= grants whole CPUs in user space; the kernel of whole CPUs only as
# perf_event_open() allows anyone (paranoid 0): never the two combined.
err=$(runas 65534:4242 pmuscope stat -a -e cycles -- true 2>&1); rc=$?; err=$(unbanner "$err")
check_eq "paranoid 1, a member, whole CPUs with the kernel: exit 5" "$rc" 5
check_eq "paranoid 1, a member, whole CPUs with the kernel: the message says paranoid 0 and :u" \
	"$err" \
	"pmuscope: permission denied: counting the kernel on whole CPUs needs CAP_PERFMON (or CAP_SYS_ADMIN) or kernel.perf_event_paranoid 0 or lower (it is 1); group= grants whole CPUs in user space only: add :u to count user space only"
check "paranoid 1, a member, whole CPUs in user space" \
	runas 65534:4242 pmuscope stat -a -e cycles:u -- true
echo 0 >$P
check "paranoid 0, another user: CPU 0 (pmuscope stat -C 0)" \
	runas 65534 pmuscope stat -C 0 -e cycles -- true
# All-CPU snapshots of a caller without CAP_PERFMON (a member): a lead
# above 100 us is refused; past the budget of deadline waits (10 ms a
# second, and 10 ms ahead: a hundred 100 us waits) the CPUs capture
# without the common deadline, flagged unsynced (progs/pmuscope-snap.c,
# budget: at least 300 requests, more until they pass the budget; SKIP on
# a guest that cannot ask faster than it refills). CAP_PERFMON is not
# held to it, even with the budget spent.
err=$(runas 65534:4242 pmuscope snapshot -C 0,1 -e cycles:u --lead 101 2>&1); rc=$?
err=$(unbanner "$err")
check_eq "a member, snapshot --lead 101: exit 5" "$rc" 5
check_eq "a member, snapshot --lead 101: the message names CAP_PERFMON" "$err" \
	"pmuscope: snapshot refused: a lead of 101 us needs CAP_PERFMON (or CAP_SYS_ADMIN): at most 100 us without it"
# The perf backend's snapshots read perf's events on each CPU with no
# common deadline: no IRQs-off wait to bound, nothing flagged unsynced.
if [ "$(cat $PMUSCOPE_SYS/backend)" = direct ]; then
	run_test runas 65534:4242 /bin/pmuscope-snap budget 300 unpriv
	run_test /bin/pmuscope-snap budget 300 priv
else
	tap_ok "snapshot budget # SKIP the perf backend's snapshots wait for no deadline"
fi
echo "$before" >$P
check "rmmod" rmmod pmuscope
