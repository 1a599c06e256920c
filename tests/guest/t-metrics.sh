# SPDX-License-Identifier: GPL-2.0
# pmuscope stat -M, --topdown, --metric-only on the guest's CPU: the
# metric's events are counted and its value is the formula of their counts.
# On the Cortex-A53, --topdown is A53_Cycle_Accounting; QEMU implements
# none of its IMPLEMENTATION DEFINED stall events, which count 0 there.
# Elsewhere (QEMU's max: no slot events, no metrics JSON) --topdown fails
# with exit status 3.
. /tests/lib.sh

# count LABEL < JSON: the total count of the counter labelled LABEL.
count() { sed -n "s/.*{\"event\":\"[^\"]*\",\"number\":[0-9]*,\"label\":\"$1\",[^}]*\"count\":\([0-9]*\).*/\1/p"; }
# metric NAME < JSON: the metric's value.
metric() { sed -n "s/.*\"metric_values\":.*{\"metric\":\"$1\",\"value\":\([^,]*\),.*/\1/p"; }

check "insmod" insmod "$PMUSCOPE_KO"
cpu=$(cat "$PMUSCOPE_SYS/cpu0/cpu_name")
tap_diag "cpu0: $cpu, MIDR $(cat "$PMUSCOPE_SYS/cpu0/midr")"
if [ "$cpu" = "cortex-a53" ]; then
	pmuscope stat --json -M a53_ipc -- /bin/loop 1000000 >/tmp/m.json
	tail -n 1 /tmp/m.json >/tmp/t.json
	inst=$(count INST_RETIRED </tmp/t.json)
	cyc=$(count CPU_CYCLES </tmp/t.json)
	got=$(metric a53_ipc </tmp/t.json)
	want=$(awk -v i="$inst" -v c="$cyc" 'BEGIN { printf "%.6g", i / c }')
	tap_diag "a53_ipc: INST_RETIRED $inst / CPU_CYCLES $cyc = $got"
	check "a53_ipc counted 2 x 1000000 instructions or more ($inst)" test "${inst:-0}" -ge 2000000
	check_eq "a53_ipc = INST_RETIRED / CPU_CYCLES" "$got" "$want"

	pmuscope stat --topdown -- /bin/loop 1000000 >/tmp/td.txt 2>&1
	rc=$?
	sed 's/^/pmuscope-topdown: /' /tmp/td.txt
	check_eq "--topdown on the A53: exit status" "$rc" 0
	rows=$(grep -c '#.* a53_' /tmp/td.txt)
	check_eq "--topdown on the A53: A53_Cycle_Accounting's rows" "$rows" 5
	# One metric's 5 events fit the A53's counters: counted together,
	# not multiplexed. QEMU counts the IMPLEMENTATION DEFINED stall
	# events as 0.
	pmuscope stat -M a53_frontend_stall -- /bin/loop 1000000 >/tmp/fe.txt 2>&1
	sed 's/^/pmuscope-frontend: /' /tmp/fe.txt
	check "-M a53_frontend_stall: 0.00 % under QEMU, not multiplexed" \
		grep -qE '#  +0\.00 %  a53_frontend_stall$' /tmp/fe.txt

	pmuscope stat -M a53_ipc,a53_backend_stall --metric-only -- /bin/loop 1000000 >/tmp/mo.txt
	sed 's/^/pmuscope-metric-only: /' /tmp/mo.txt
	check "--metric-only: the names' line" grep -qE '^ +a53_ipc +a53_backend_stall$' /tmp/mo.txt
	check "--metric-only: no counter rows" sh -c '! grep -q CPU_CYCLES /tmp/mo.txt'
else
	pmuscope stat --topdown -- /bin/true >/dev/null 2>/tmp/err.txt
	rc=$?
	tap_diag "$(cat /tmp/err.txt)"
	check_eq "--topdown without slot events: exit status" "$rc" 3
	check "--topdown names the missing slot events" grep -q 'STALL_SLOT_FRONTEND' /tmp/err.txt
fi
check "rmmod" rmmod pmuscope
