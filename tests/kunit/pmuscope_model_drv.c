// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's logic that touches registers, compiled against the register
 * model: with PMUSCOPE_HW_MODEL defined, pmuscope_hw_read()/write() call
 * into tests/kunit/pmuscope_model.c instead of issuing MRS/MSR.
 */
#define PMUSCOPE_HW_MODEL
#include <linux/module.h>

#include "../../drivers/pmuscope_discovery.c"
#include "../../drivers/pmuscope_events.c"
#include "../../drivers/pmuscope_pmu.c"
#include "../../drivers/pmuscope_snapshot.c"
#include "../../drivers/pmuscope_stream.c"
#include "../../drivers/pmuscope_amu.c"
#include "../../drivers/pmuscope_spe.c"
#include "../../drivers/pmuscope_el0.c"

/*
 * The pure checks and placement of pmuscope_validate.c are not copied: the
 * suites test those of pmuscope.ko itself, exported to KUnit only
 * (EXPORT_SYMBOL_IF_KUNIT); pmuscope.ko is loaded first.
 */
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

MODULE_DESCRIPTION("pmuscope KUnit tests and register model");
MODULE_LICENSE("GPL");
