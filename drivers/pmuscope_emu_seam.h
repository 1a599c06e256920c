/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope: the seam of pmuscope_emu.ko, the driver built against the
 * register model (PMUSCOPE_EMU): the hooks the driver calls there, which
 * tests/emu/pmuscope_emu_core.c implements (empty inline ones in
 * pmuscope.ko: drivers/pmuscope.h).
 */
#ifndef __PMUSCOPE_EMU_SEAM_H
#define __PMUSCOPE_EMU_SEAM_H

#include <linux/interrupt.h>
#include <linux/types.h>

int pmuscope_emu_init(void);
void pmuscope_emu_exit(void);
bool pmuscope_emu_active(void);
const char *pmuscope_emu_profile_name(void);
void pmuscope_emu_set_pmbirq(irq_handler_t fn, void *dev);

#endif /* __PMUSCOPE_EMU_SEAM_H */
