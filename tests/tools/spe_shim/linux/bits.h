/* SPDX-License-Identifier: GPL-2.0 */
/* Shim of the kernel's tools/include/linux/bits.h for perf's SPE decoder. */
#ifndef SPE_SHIM_LINUX_BITS_H
#define SPE_SHIM_LINUX_BITS_H
#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))
#define GENMASK(h, l)		((~0UL << (l)) & (~0UL >> (8 * sizeof(long) - 1 - (h))))
#endif
