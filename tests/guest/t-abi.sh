# SPDX-License-Identifier: GPL-2.0
# Every file pmuscope creates in sysfs has its entry in
# Documentation/ABI/testing/sysfs-kernel-pmuscope (copied to /tests/abi).
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
documented=$(sed -n 's/^What:[[:space:]]*//p' /tests/abi)
missing=0
total=0
for f in $(find $PMUSCOPE_SYS -type f); do
	total=$((total + 1))
	# cpu3 -> cpuN, events/CPU_CYCLES -> events/<NAME>, counter_x/7 -> counter_x/<n>,
	# amu_x/g1_2 -> amu_x/g1_<n>
	generic=$(echo "$f" | sed -e 's|/cpu[0-9]*/|/cpuN/|' \
		-e 's|/events/[^/]*$|/events/<NAME>|' \
		-e 's|/\(counter_[a-z]*\)/[0-9]*$|/\1/<n>|' \
		-e 's|/\(amu_[a-z]*\)/\(g[01]\)_[0-9]*$|/\1/\2_<n>|')
	if ! echo "$documented" | grep -qxF "$generic"; then
		tap_not_ok "sysfs file $f ($generic) has no ABI entry"
		missing=$((missing + 1))
	fi
done
check "all $total sysfs files of pmuscope are documented ($missing missing)" test "$missing" = 0
check "rmmod" rmmod pmuscope
