// SPDX-License-Identifier: GPL-2.0
/*
 * loop N: run N iterations of a 2-instruction loop (subs, b.ne), the known
 * workload of the exact-count tests, and exit 0.
 */
#include <stdlib.h>

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;

	if (!n)
		return 0;
	asm volatile("1: subs %0, %0, #1\n"
		     "   b.ne 1b\n" : "+r"(n) : : "cc");
	return 0;
}
