# SPDX-License-Identifier: GPL-2.0
# make demo: what pmuscope discovers on each CPU, as a shell script sees it.
# Lines for the host to show start with "pmuscope-demo: ".
S=/sys/kernel/pmuscope
say() { echo "pmuscope-demo: $*"; }

insmod /lib/modules/pmuscope.ko || { say "insmod failed"; exit 0; }
say "pmuscope $(cat $S/version) loaded on QEMU -cpu ${pmuscope_profile} ($(grep -c ^processor /proc/cpuinfo) CPUs), perf's PMU driver kept off by initcall_blacklist"
say ""
say "$(printf '%-4s %-11s %-10s %-12s %-8s %-16s %-9s %-8s %-8s' CPU core MIDR PMU counters 'width ev/cycle' snapshot SPE AMU)"
for d in $S/cpu[0-9]*; do
	c=${d##*/cpu}
	[ "$(cat $d/probed)" = 1 ] || { say "$(printf '%-4s (offline, not probed)' $c)"; continue; }
	say "$(printf '%-4s %-11s %-10s %-12s %-8s %-16s %-9s %-8s %-8s' "$c" \
		"$(cat $d/cpu_name)" "$(cat $d/midr)" \
		"$(cat $d/pmu_version_name) ($(cat $d/pmu_version))" \
		"$(cat $d/num_event_counters)+1" \
		"$(cat $d/event_counter_width)/$(cat $d/cycle_counter_width) bits" \
		"$(cat $d/snapshot)" "$(cat $d/spe)" "$(cat $d/amu)")"
done
say ""
for d in $S/cpu[0-9]*; do
	[ "$(cat $d/probed)" = 1 ] || continue
	say "${d##*/}: $(ls $d/events | wc -l) common events implemented (PMCEID0 $(cat $d/pmceid0), PMCEID1 $(cat $d/pmceid1)):"
	for e in $(ls $d/events); do
		say "    $(printf '%-24s %s' "$e" "$(cat $d/events/$e)")"
	done
done
say ""
say "sysfs: $S/cpuN/* (Documentation/ABI/testing/sysfs-kernel-pmuscope)"
say ""
say "# pmuscope stat -C 0 -- /bin/loop 20000000     (default event set; QEMU implements"
say "# few events; -icount shift=1: each instruction takes 2 cycles, so IPC is 0.5)"
pmuscope stat -C 0 -- /bin/loop 20000000 2>&1 | while IFS= read -r line; do say "$line"; done
say "# pmuscope stat -C 0-1 -I 200 -e cycles:u,instructions:u -- sleep 0.5"
pmuscope stat -C 0-1 -I 200 -e cycles:u,instructions:u -- sleep 0.5 2>&1 |
	while IFS= read -r line; do say "$line"; done
rmmod pmuscope
