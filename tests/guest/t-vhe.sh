# SPDX-License-Identifier: GPL-2.0
# A VHE host (QEMU -M virt,virtualization=on -cpu max): Linux runs at EL2.
# "k" means the kernel's level there, and PMSWINC, written by the kernel
# at EL2, is counted by SW_INCR counting at EL2.
. /tests/lib.sh

check "the kernel runs at EL2" sh -c "dmesg | grep -q 'CPU: All CPU(s) started at EL2'"
check "insmod" insmod "$PMUSCOPE_KO"
check_eq "kernel_el" "$(cat $PMUSCOPE_SYS/kernel_el)" 2
C=$PMUSCOPE_SYS/cpu0
check "select CPU_CYCLES and SW_INCR:k through sysfs" sh -c "echo CPU_CYCLES,SW_INCR:k > $C/select"
check_eq "select reads back the kernel's level as k" "$(cat $C/select)" "CPU_CYCLES:uk,SW_INCR:k"
check "select CPU_CYCLES:h" sh -c "echo CPU_CYCLES:h > $C/select"
check_eq "h is the kernel's level too" "$(cat $C/select)" "CPU_CYCLES:k"
check "empty selection" sh -c "echo > $C/select"
run_test /bin/pmuscope-test swinc
out=$(pmuscope stat --json -C 0 -e cycles:k,cycles:u -- sh -c 'ls -R /sys >/dev/null 2>&1')
echo "$out" | sed 's/^/pmuscope-json: /'
k=$(echo "$out" | sed -n 's/.*"label":"cycles","modifiers":"k","raw":false,"count":\([0-9]*\).*/\1/p')
check "cycles:k counts the kernel at EL2 (${k:-none})" test "${k:-0}" -gt 0
check "rmmod" rmmod pmuscope
