/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope_emu.ko: the hooks the driver calls when built as the emulated
 * backend (PMUSCOPE_EMU). See tests/emu/pmuscope_emu.c.
 */
#ifndef __PMUSCOPE_EMU_H
#define __PMUSCOPE_EMU_H

#include <linux/interrupt.h>
#include <linux/types.h>

int pmuscope_emu_init(void);
void pmuscope_emu_exit(void);
bool pmuscope_emu_active(void);
const char *pmuscope_emu_profile_name(void);
void pmuscope_emu_set_pmbirq(irq_handler_t fn, void *dev);

#endif /* __PMUSCOPE_EMU_H */
