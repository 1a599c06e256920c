// SPDX-License-Identifier: GPL-2.0
/*
 * What pmuscope.ko gives the suites when both are modules, for the suites
 * built into a kernel by the kernel's own runner (scripts/kunit-tool.sh,
 * CONFIG_PMUSCOPE_KUNIT_TEST=y), where pmuscope.ko is not built: the
 * driver's global state, as drivers/pmuscope_main.c defines it. Only the
 * suites use it there; no device or sysfs file is registered.
 */
#include "pmuscope.h"

struct pmuscope_driver pmuscope_drv = {
	.lock = __MUTEX_INITIALIZER(pmuscope_drv.lock),
	.sessions = LIST_HEAD_INIT(pmuscope_drv.sessions),
};
