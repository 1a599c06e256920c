# SPDX-License-Identifier: GPL-2.0
# perf's PMUv3 driver is active: pmuscope refuses to load and says why and
# what to do, or, with shared=1, polls and flags what perf clobbers.
. /tests/lib.sh

check "perf's PMU driver is registered" sh -c "ls /sys/bus/event_source/devices | grep -q armv8"
check_fails "insmod refused while perf's driver drives the PMU" insmod "$PMUSCOPE_KO"
check "the kernel log names the cause" sh -c "dmesg | grep -q \"perf's PMUv3 driver (CONFIG_ARM_PMUV3.*) drives the PMU\""
check "the kernel log names the fix" sh -c "dmesg | grep -q 'initcall_blacklist=armv8_pmu_driver_init'"
check "insmod shared=1" insmod "$PMUSCOPE_KO" shared=1
check "shared mode announced" sh -c "dmesg | grep -q 'polling (shared with perf)'"
run_test /bin/pmuscope-test swinc
run_test /bin/pmuscope-test clobber
check "rmmod" rmmod pmuscope
