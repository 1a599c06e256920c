# SPDX-License-Identifier: GPL-2.0
# scripts/profile.sh: the symbols the host needs to name the addresses
# (the kernel's _text/_stext/_etext, for its KASLR offset, and the module's symbols),
# then each operation of pmuscope_profile_ops between the plugin's markers.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
grep -E ' (_text|_stext|_etext)$|[[:space:]]\[pmuscope' /proc/kallsyms | sed 's/^/pmuscope-sym: /'
for op in $(echo "${pmuscope_profile_ops:-read7}" | tr , ' '); do
	check "profile $op" /bin/pmuscope-bench profile "$op"
done
check "rmmod" rmmod pmuscope
