# SPDX-License-Identifier: GPL-2.0
# Run the KUnit suites (pmuscope.ko's pure functions, and the driver against
# the register model). KUnit prints
# KTAP on the console, where the host parses every case; here we check that
# the module loaded and that each suite reported.
. /tests/lib.sh

# The suites test pmuscope.ko's own pure functions (exported to KUnit only)
# and, for what touches registers, the driver built against the model.
check "insmod pmuscope.ko (the object under test)" insmod "$PMUSCOPE_KO"
check "insmod pmuscope_kunit.ko (KUnit suites run at load)" \
	insmod /lib/modules/pmuscope_kunit.ko
for suite in pmuscope_model pmuscope_model_ss pmuscope_model_spe pmuscope_model_amu pmuscope_model_work \
	     pmuscope_discovery pmuscope_events pmuscope_engine pmuscope_uapi pmuscope_spe \
	     pmuscope_callchain pmuscope_dead_pmu pmuscope_mlock; do
	check "KUnit suite $suite reported a result" \
		sh -c "dmesg | grep -Eq '(not )?ok [0-9]+ $suite\$'"
done
check "rmmod pmuscope_kunit" rmmod pmuscope_kunit
check "rmmod pmuscope" rmmod pmuscope
