# SPDX-License-Identifier: GPL-2.0
# The pmuscope CLI in the guest: list, stat (default set, events, exit
# status, formats), read, and the messages and exit codes of bad input.
# JSON lines are echoed as "pmuscope-json: ..." for the host to parse.
. /tests/lib.sh

json() { "$@" | sed 's/^/pmuscope-json: /'; }

check "insmod" insmod "$PMUSCOPE_KO"
check "pmuscope list names CPU_CYCLES" sh -c "pmuscope list | grep -q 'CPU_CYCLES *0x0011 *cycles'"
json pmuscope list --json
# The core table of the CPU type (perf's pmu-events JSON, by MIDR): on a
# Cortex-A53 its 30 events PMCEID cannot confirm, marked *, and stat takes
# them by name (QEMU counts them as 0: shown, not checked).
if [ "$(( $(cat "$PMUSCOPE_SYS/cpu0/midr") & 0xff0ffff0 ))" = "$(( 0x410fd030 ))" ]; then
	check_eq "pmuscope list: the Cortex-A53's 30 events PMCEID cannot confirm" \
		"$(pmuscope list | grep -c '^  [A-Z0-9_]* *0x[0-9a-f]*\* ')" 30
	check "pmuscope list: LD_DEP_STALL 0x00e7 with perf's description" \
		sh -c "pmuscope list | grep -q '^  LD_DEP_STALL *0x00e7\* Cycles there is a stall in the Wr stage'"
	check "pmuscope list --json: core arm/cortex-a53" \
		sh -c "pmuscope list --json | grep -q '\"core\":\"arm/cortex-a53\"'"
	check_eq "pmuscope list --json: 30 events with pmceid false" \
		"$(pmuscope list --json | grep -o '"pmceid":false' | wc -l)" 30
	pmuscope list | sed -n '/events PMCEID cannot confirm/,$p' | sed 's/^/pmuscope-tap: # /'
	out=$(pmuscope stat -C 0 -e ld_dep_stall,PREFETCH_LINEFILL:u,cycles -- /bin/loop 100000 2>&1)
	check_eq "stat -e ld_dep_stall,PREFETCH_LINEFILL:u (A53 names) exits 0" "$?" 0
	echo "$out" | sed 's/^/pmuscope-tap: # /'
	check_fails "stat -e L1D_CACHE_REFILL_OUTER (not an A53 event) refused" \
		pmuscope stat -C 0 -e L1D_CACHE_REFILL_OUTER -- true
fi
out=$(pmuscope stat -C 0 -- /bin/loop 100000 2>&1); rc=$?
check_eq "stat with the default set exits with the command's status" "$rc" 0
check "stat table shows cycles" sh -c "echo '$out' | grep -q ' cycles'"
echo "$out" | sed 's/^/pmuscope-tap: # /'
pmuscope stat -C 0 -e cycles -- sh -c 'exit 7' >/dev/null 2>&1
check_eq "stat returns the command's exit status" "$?" 7
# A SIGTERM sent to pmuscope is passed on to the command, whose exit
# status (here from its trap) comes back.
rm -f /tmp/trap-set
pmuscope stat -C 0 -e cycles -- sh -c 'trap "exit 42" TERM; touch /tmp/trap-set; while :; do sleep 0.05; done' \
	>/dev/null 2>&1 &
pid=$!
while [ ! -e /tmp/trap-set ]; do sleep 0.05; done
kill -TERM $pid
wait $pid
check_eq "SIGTERM to stat reaches the command; its exit status returns" "$?" 42
# Started with SIGCHLD ignored (it is inherited): no hang, status back.
timeout 30 ignchld pmuscope stat -C 0 -e cycles -- sh -c 'exit 5' >/dev/null 2>&1
check_eq "stat started with SIGCHLD ignored returns the command's status" "$?" 5
# Interval mode ends when the command does, not at the next tick.
out=$(pmuscope stat --json -I 5000 -e cycles -- sleep 0.1)
el=$(echo "$out" | sed -n 's/.*"type":"total".*"elapsed_s":\([0-9]*\)\..*/\1/p')
check "stat -I 5000 -- sleep 0.1: ends with the command, not at the 5 s tick (${el:-?} whole s)" \
	test "${el:-9}" -lt 4
json pmuscope stat --json -C 0-1 -e cycles,sw_incr:k --per-cpu -- /bin/loop 1000
json pmuscope stat --json -I 50 -e cycles -- sleep 0.2
out=$(pmuscope stat --csv -e cycles -- true)
check "CSV has its header" sh -c "echo '$out' | head -1 | grep -q '^type,time_s,cpu,event,modifiers,count,time_enabled_ns,time_running_ns,flags$'"
check "CSV has the total row" sh -c "echo '$out' | grep -q '^total,[0-9.]*,all,CPU_CYCLES,uk,[0-9]*,'"

err=$(pmuscope stat -e INST_RETIRD -- true 2>&1); rc=$?; err=$(unbanner "$err")
check_eq "unknown event: exit 2" "$rc" 2
case "$err" in
"pmuscope: unknown event 'INST_RETIRD': did you mean INST_RETIRED, "*) tap_ok "unknown event: message suggests INST_RETIRED: $err" ;;
*) tap_not_ok "unknown event: message '$err'" ;;
esac
unimpl=$(unimplemented_event)
err=$(pmuscope stat -e "${unimpl% *}" -- true 2>&1); rc=$?; err=$(unbanner "$err")
check_eq "unimplemented event (${unimpl% *}): exit 3" "$rc" 3
check_eq "unimplemented event: message" "$err" "pmuscope: event ${unimpl% *} (${unimpl#* }) is not implemented on cpu0 ($(cat $PMUSCOPE_SYS/cpu0/cpu_name))"
err=$(pmuscope stat -C 9 -e cycles -- true 2>&1); rc=$?; err=$(unbanner "$err")
check_eq "absent CPU: exit 1" "$rc" 1
check_eq "absent CPU: message" "$err" "pmuscope: cpu9 does not exist"

# Held long enough for a slow (loaded) host; killed once checked.
rm -f /tmp/hold.out	# t-counting.sh leaves one saying "holding"
/bin/pmuscope-test hold 60 >/tmp/hold.out &
holder=$!
while ! grep -q holding /tmp/hold.out 2>/dev/null && kill -0 $holder 2>/dev/null; do sleep 0.1; done
err=$(pmuscope stat -C 0 -e sw_incr,sw_incr,sw_incr,sw_incr,sw_incr,sw_incr -- true 2>&1); rc=$?; err=$(unbanner "$err")
check_eq "counters busy: exit 4" "$rc" 4
case "$err" in
"pmuscope: counters busy on cpu0: 0 session "*"(pid $holder, pmuscope-test); cycle session "*)
	tap_ok "counters busy: message names the holder" ;;
*)	tap_not_ok "counters busy: message '$err'" ;;
esac
out=$(pmuscope read)
check "read lists the holding session" sh -c "echo '$out' | grep -q 'cycle .*(pid $holder, pmuscope-test) *CPU_CYCLES:uk *[0-9]'"
json pmuscope read --json
# Not root: the owners and values are root only (0400); read says so.
out=$(runas 65534 pmuscope read 2>/tmp/read.err); rc=$?; err=$(unbanner "$(cat /tmp/read.err)")
check_eq "read as nobody while a session counts: exit 5" "$rc" 5
check_eq "read as nobody: nothing on stdout" "$out" ""
check_eq "read as nobody: message" "$err" "pmuscope: permission denied: who holds the counters and their values ($PMUSCOPE_SYS/cpuN/counter_owner/ and counter_value/) can be read by root only (mode 0400): run pmuscope read as root"
kill $holder
wait $holder
err=$(runas 65534 pmuscope stat -a -e cycles -- true 2>&1); rc=$?; err=$(unbanner "$err")
check_eq "no CAP_PERFMON, all CPUs: exit 5" "$rc" 5
check_eq "no CAP_PERFMON, all CPUs: message" "$err" "pmuscope: permission denied: counting whole CPUs needs CAP_PERFMON (or CAP_SYS_ADMIN), kernel.perf_event_paranoid 0 or lower (it is 2), or membership of the group of the pmuscope module parameter group= (not set)"
err=$(runas 65534 pmuscope stat -e cycles -- true 2>&1); rc=$?; err=$(unbanner "$err")
check_eq "no CAP_PERFMON, the command's kernel cycles: exit 5" "$rc" 5
check_eq "no CAP_PERFMON, the command's kernel cycles: message" "$err" "pmuscope: permission denied: counting the kernel (modifier k, on by default) needs CAP_PERFMON (or CAP_SYS_ADMIN) or kernel.perf_event_paranoid 1 or lower (it is 2); group= grants user space only: add :u to count user space only"
check "no CAP_PERFMON: the command's own user-space cycles (cycles:u)" \
	runas 65534 pmuscope stat -e cycles:u -- true
check "rmmod" rmmod pmuscope
err=$(pmuscope stat -e cycles -- true 2>&1); rc=$?; err=$(unbanner "$err")
check_eq "module not loaded: exit 6" "$rc" 6
check "module not loaded: message" sh -c "echo '$err' | grep -q 'is the pmuscope module loaded'"
