// SPDX-License-Identifier: GPL-2.0
/* pmuscope_emu.ko: tests/kunit/pmuscope_model_amu.c (one object per module). */
#include "../kunit/pmuscope_model_amu.c"
