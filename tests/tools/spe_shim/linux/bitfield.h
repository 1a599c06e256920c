/* SPDX-License-Identifier: GPL-2.0 */
/* Shim of the kernel's tools/include/linux/bitfield.h for perf's SPE decoder. */
#ifndef SPE_SHIM_LINUX_BITFIELD_H
#define SPE_SHIM_LINUX_BITFIELD_H
#include <linux/bits.h>
#define FIELD_GET(mask, v)	(((v) & (mask)) / ((mask) & -(mask)))
#endif
