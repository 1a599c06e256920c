/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope: the pure functions pmuscope_kunit.ko tests in pmuscope.ko
 * itself (the object that ships), exported only to KUnit test modules.
 * <kunit/visibility.h> is Linux 6.2+ (Kbuild says whether the kernel has
 * it); before it, its equivalent.
 * pmuscope_emu.ko, a copy of the driver, exports nothing (the assertion
 * only names the function).
 */
#ifndef __PMUSCOPE_KUNIT_EXPORT_H
#define __PMUSCOPE_KUNIT_EXPORT_H

#include <linux/build_bug.h>
#include <linux/export.h>

#if defined(PMUSCOPE_EMU) || !IS_ENABLED(CONFIG_KUNIT)
#define EXPORT_SYMBOL_IF_KUNIT(symbol)	static_assert(__builtin_constant_p(symbol) || 1)
#elif defined(PMUSCOPE_HAVE_KUNIT_VISIBILITY)
#include <kunit/visibility.h>
#else
#define EXPORT_SYMBOL_IF_KUNIT(symbol)	\
	EXPORT_SYMBOL_NS(symbol, EXPORTED_FOR_KUNIT_TESTING)
#endif

#endif /* __PMUSCOPE_KUNIT_EXPORT_H */
