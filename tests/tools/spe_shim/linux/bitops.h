/* SPDX-License-Identifier: GPL-2.0 */
/* Shim of the kernel's tools/include/linux/bitops.h for perf's SPE decoder. */
#ifndef SPE_SHIM_LINUX_BITOPS_H
#define SPE_SHIM_LINUX_BITOPS_H
#include <linux/bits.h>
#endif
