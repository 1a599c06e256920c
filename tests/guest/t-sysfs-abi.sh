# SPDX-License-Identifier: GPL-2.0
# Every file pmuscope creates in sysfs has its entry in
# Documentation/ABI/testing/sysfs-kernel-pmuscope (copied to /tests/abi).
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
sed -n 's/^What:[[:space:]]*//p' /tests/abi >/tmp/abi-documented
# Each file beside its generic name, in one sed (a fork per file took 20 to
# 45 s of a boot): cpu3 -> cpuN, events/CPU_CYCLES -> events/<NAME>,
# counter_x/7 -> counter_x/<n>, amu_x/g1_2 -> amu_x/g1_<n>.
find $PMUSCOPE_SYS -type f | sed -e 'h' -e 's|/cpu[0-9]*/|/cpuN/|' \
	-e 's|/events/[^/]*$|/events/<NAME>|' \
	-e 's|/\(counter_[a-z]*\)/[0-9]*$|/\1/<n>|' \
	-e 's|/\(amu_[a-z]*\)/\(g[01]\)_[0-9]*$|/\1/\2_<n>|' -e 'G' -e 's|\n| |' >/tmp/abi-files
# "GENERIC FILE" lines of the files without an entry.
awk 'NR == FNR { doc[$0] = 1; next } !($1 in doc)' /tmp/abi-documented /tmp/abi-files \
	>/tmp/abi-missing
while read -r generic f; do
	tap_not_ok "sysfs file $f ($generic) has no ABI entry"
done </tmp/abi-missing
total=$(wc -l </tmp/abi-files)
missing=$(wc -l </tmp/abi-missing)
check "pmuscope has sysfs files ($total)" test "$total" -gt 0
check "all $total sysfs files of pmuscope are documented ($missing missing)" test "$missing" = 0
check "rmmod" rmmod pmuscope
