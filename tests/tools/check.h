/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host tests' report (test_tools, test_metrics, spe_diff, file_fuzz):
 * one line per check, "PASS name" or "FAIL name: why", then the counts,
 * "N passed, N failed", the lines scripts/check.sh and the scripts that
 * run these programs read.
 */
#ifndef PMUSCOPE_TESTS_CHECK_H
#define PMUSCOPE_TESTS_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int passed, failed;

/* One check: "PASS " or "FAIL " then @fmt, counted as passed or failed. */
static void result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (ok)
		passed++;
	else
		failed++;
}

/* The last line, "N passed, N failed"; the exit status: 1 when one failed. */
static int result_summary(void)
{
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif
