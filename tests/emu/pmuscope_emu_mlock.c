// SPDX-License-Identifier: GPL-2.0
/* pmuscope_emu.ko: drivers/pmuscope_mlock.c against the register model. */
#define PMUSCOPE_HW_MODEL
#define PMUSCOPE_EMU
#include "../../drivers/pmuscope_mlock.c"
