/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The least of the kernel's tools/include that perf's
 * tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.c needs to build in
 * the host tests (tests/tools/spe_diff.c), and nothing else.
 */
#ifndef SPE_SHIM_LINUX_KERNEL_H
#define SPE_SHIM_LINUX_KERNEL_H
#include <stdint.h>
typedef unsigned long long u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;
#endif
