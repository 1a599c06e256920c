/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event modifiers, shared by the driver's sysfs "select" files and
 * libpmuscope. Include linux/pmuscope.h first.
 *
 * u: EL0. k: the exception level the kernel runs at, @kernel_el: EL1, or
 * EL2 on a VHE host (Linux itself at EL2, FEAT_VHE). h: EL2. On a VHE host
 * k and h name the same level, and EL1 (where guests' kernels run) has no
 * letter to ask for it: it is shown as "g" and set only through the ioctl
 * flags.
 */
#ifndef __PMUSCOPE_MODIFIERS_H
#define __PMUSCOPE_MODIFIERS_H

/* The PMUSCOPE_EV_* flag of the kernel's exception level. */
static inline unsigned int pmuscope_kernel_flag(unsigned int kernel_el)
{
	return kernel_el == 2 ? PMUSCOPE_EV_EL2 : PMUSCOPE_EV_EL1;
}

/* Default when an event names no modifier: user and kernel. */
static inline unsigned int pmuscope_modifiers_default(unsigned int kernel_el)
{
	return PMUSCOPE_EV_EL0 | pmuscope_kernel_flag(kernel_el);
}

/* The PMUSCOPE_EV_* flag of modifier @c, or 0 when @c is not one. */
static inline unsigned int pmuscope_modifier_flag(char c, unsigned int kernel_el)
{
	switch (c) {
	case 'u':
		return PMUSCOPE_EV_EL0;
	case 'k':
		return pmuscope_kernel_flag(kernel_el);
	case 'h':
		return PMUSCOPE_EV_EL2;
	default:
		return 0;
	}
}

/* The modifiers of @flags as letters, e.g. "uk"; @buf holds 4 bytes. */
static inline void pmuscope_modifiers_str(unsigned int flags, unsigned int kernel_el,
					  char *buf)
{
	int n = 0;

	if (flags & PMUSCOPE_EV_EL0)
		buf[n++] = 'u';
	if (flags & pmuscope_kernel_flag(kernel_el))
		buf[n++] = 'k';
	if (kernel_el != 2 && (flags & PMUSCOPE_EV_EL2))
		buf[n++] = 'h';
	if (kernel_el == 2 && (flags & PMUSCOPE_EV_EL1))
		buf[n++] = 'g';
	buf[n] = '\0';
}

#endif /* __PMUSCOPE_MODIFIERS_H */
