# SPDX-License-Identifier: GPL-2.0
# scripts/profile.sh: the symbols the host needs to name the addresses
# (the kernel's _text/_stext/_etext, for its KASLR offset, and the module's symbols),
# then each operation of pmuscope_profile_ops between the plugin's markers.
. /tests/lib.sh

# shellcheck disable=SC2086 # pmuscope_profile_args: module parameters
check "insmod ${pmuscope_profile_args:-}" insmod "$PMUSCOPE_KO" ${pmuscope_profile_args:-}
mount -t debugfs none /sys/kernel/debug 2>/dev/null
grep -E ' (_text|_stext|_etext)$|[[:space:]]\[pmuscope' /proc/kallsyms | sed 's/^/pmuscope-sym: /'
for op in $(echo "${pmuscope_profile_ops:-read7}" | tr , ' '); do
	# Its lines (the per-call divisor) go to the console for profile.sh.
	out=$(/bin/pmuscope-bench profile "$op" 2>&1); rc=$?
	echo "$out"
	check_eq "profile $op" "$rc" 0
done
# Which snapshot path CPU 0 took (the emulated hardware path: ready).
echo "pmuscope-snapshot-hw: cpu0 $(cat $PMUSCOPE_SYS/cpu0/snapshot_hw)"
check "rmmod" rmmod pmuscope
