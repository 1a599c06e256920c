// SPDX-License-Identifier: GPL-2.0
/*
 * The driver's logic, compiled against the register model: with
 * PMUSCOPE_HW_MODEL defined, pmuscope_hw_read()/write() call into
 * tests/kunit/pmuscope_model.c instead of issuing MRS/MSR.
 */
#define PMUSCOPE_HW_MODEL
#include <linux/module.h>

#include "../../drivers/pmuscope_discovery.c"
#include "../../drivers/pmuscope_events.c"
#include "../../drivers/pmuscope_pmu.c"
#include "../../drivers/pmuscope_alloc.c"

MODULE_DESCRIPTION("pmuscope KUnit tests and register model");
MODULE_LICENSE("GPL");
