# SPDX-License-Identifier: GPL-2.0
# Races that once went wrong, run hard for a while (slub_debug=FZP poisons
# freed memory; lockdep watches the lock order):
#  - reading counter_* files while a CPU goes offline and online (the
#    hotplug callback updates those groups with the hotplug lock held);
#  - replacing and dropping the sysfs session while enable and reset run.
. /tests/lib.sh

S=$PMUSCOPE_SYS
# STRESS_ROUNDS (kernel command line): rounds of the racing writers, 300;
# the readers do 4/3 of it, the writers during rmmod 2/3. The gate's KASAN
# boot takes fewer (its fuzzer and soaks race the same paths at length).
R=${STRESS_ROUNDS:-300}
check "insmod" insmod "$PMUSCOPE_KO"
check "a session holds counters on cpu1" sh -c "echo CPU_CYCLES,SW_INCR > $S/cpu1/select"
# read_files OUT FILE...: read the files with the shell's own read (no
# fork: a cat per file took most of this test's time) until the hotplug
# cycles are over, at least 4/3 R rounds; the rounds made into OUT.
read_files() {
	_out=$1 _i=0
	shift
	while [ $_i -lt $((R * 4 / 3)) ] || [ ! -e /tmp/stress-hp-done ]; do
		for _f; do read -r _ <"$_f"; done 2>/dev/null
		_i=$((_i + 1))
	done
	echo "$_i" >"$_out"
}
rm -f /tmp/stress-hp-done
read_files /tmp/stress-r1 $S/cpu1/counter_owner/0 $S/cpu1/counter_event/cycle \
	$S/cpu1/counter_value/cycle &
r1=$!
read_files /tmp/stress-r2 $S/cpu1/counter_owner/cycle $S/cpu1/counter_value/0 &
r2=$!
ok=0
for i in $(seq 15); do
	set_online 1 0 && set_online 1 1 && ok=$((ok + 1))
done
touch /tmp/stress-hp-done
wait $r1 $r2
tap_diag "sysfs reader rounds during the hotplug cycles: $(cat /tmp/stress-r1) and $(cat /tmp/stress-r2)"
check_eq "cpu1 offline/online 15 times while sysfs readers run" "$ok" 15
check_eq "the sysfs session survived hotplug" "$(cat $S/cpu1/counter_event/cycle)" CPU_CYCLES:uk

(for i in $(seq $R); do echo CPU_CYCLES > $S/cpu0/select; echo > $S/cpu0/select; done \
	2>/dev/null) &
w1=$!
(for i in $(seq $R); do echo 1 > $S/cpu0/enable; echo 1 > $S/cpu0/reset; \
	echo 0 > $S/cpu0/enable; done 2>/dev/null) &
w2=$!
(for i in $(seq $R); do for f in $S/cpu0/select $S/cpu0/enable; do read -r _ <"$f"; done \
	2>/dev/null; done) &
w3=$!
wait $w1 $w2 $w3
check "sysfs session state still readable after select/enable/reset raced $R times each" \
	cat $S/cpu0/select
check "rmmod with sysfs sessions left" rmmod pmuscope
check "insmod again" insmod "$PMUSCOPE_KO"
rm -f /tmp/w4-started
(for i in $(seq $((R * 2 / 3))); do echo SW_INCR > $S/cpu0/select 2>/dev/null; echo 1 > $S/cpu0/enable 2>/dev/null
	[ "$i" = 1 ] && : >/tmp/w4-started; done) &
w4=$!
# Once the writer has written (a 0.3 s sleep stood in for it, and a
# loaded host could start it after the rmmod).
while [ ! -e /tmp/w4-started ] && kill -0 $w4 2>/dev/null; do sleep 0.01; done
check "the sysfs writer has started" test -e /tmp/w4-started
check "rmmod while sysfs writers run" rmmod pmuscope
wait $w4
check "no pmuscope left loaded" sh -c "! grep -q '^pmuscope ' /proc/modules"
