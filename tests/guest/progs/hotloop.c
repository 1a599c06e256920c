// SPDX-License-Identifier: GPL-2.0
/*
 * hotloop N: spend N iterations in loop_body(), the function a profile
 * of this program must find (pmuscope record, then pmuscope report).
 * Built three ways by scripts/mkinitramfs.sh: /bin/hotloop (static, as
 * every test program), /bin/hotloop-static (static, non-PIE, -g) and
 * /bin/hotloop-pie (PIE, dynamically linked against the guest's libc).
 */
#include <stdlib.h>

unsigned long __attribute__((noinline)) loop_body(unsigned long n)
{
	unsigned long x = 0;

	while (n--)
		asm volatile("add %0, %0, #3\n\teor %0, %0, #1" : "+r"(x));
	return x;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000000;

	return loop_body(n) == 1;
}
