/* SPDX-License-Identifier: GPL-2.0 */
/* Shim of the kernel's tools/include/linux/unaligned.h for perf's SPE decoder. */
#ifndef SPE_SHIM_LINUX_UNALIGNED_H
#define SPE_SHIM_LINUX_UNALIGNED_H
#include <stdint.h>
#include <string.h>
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the shim reads little-endian values on a little-endian host only"
#endif
static inline uint16_t get_unaligned_le16(const void *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t get_unaligned_le32(const void *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t get_unaligned_le64(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }
#endif
