/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event modifiers, shared by the driver's sysfs "select" files and
 * libpmuscope: u (EL0), k (EL1), h (EL2). Include linux/pmuscope.h first.
 */
#ifndef __PMUSCOPE_MODIFIERS_H
#define __PMUSCOPE_MODIFIERS_H

/* Default when an event names no modifier: user and kernel. */
#define PMUSCOPE_MODIFIERS_DEFAULT	(PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1)

/* The PMUSCOPE_EV_* flag of modifier @c, or 0 when @c is not one. */
static inline unsigned int pmuscope_modifier_flag(char c)
{
	switch (c) {
	case 'u':
		return PMUSCOPE_EV_EL0;
	case 'k':
		return PMUSCOPE_EV_EL1;
	case 'h':
		return PMUSCOPE_EV_EL2;
	default:
		return 0;
	}
}

#endif /* __PMUSCOPE_MODIFIERS_H */
