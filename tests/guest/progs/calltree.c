// SPDX-License-Identifier: GPL-2.0
/*
 * A program with a known call tree, for call-graph profiling tests:
 *
 *	main -> a -> b -> leaf		(3/5 of the work)
 *	main -> c -> leaf		(2/5 of the work)
 *
 * leaf() spins; every function keeps a frame record (built with
 * -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer, no sibling calls),
 * so a frame-pointer walk from leaf gives exactly leaf, b, a, main or
 * leaf, c, main. Usage: calltree [ROUNDS [GO]] (ROUNDS default 20; a
 * round is 5 million iterations of leaf's loop; GO: a path whose
 * existence starts the work, so that a profiler attaches first). Built
 * static and PIE (mkinitramfs.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile unsigned long calltree_sink;

NOINLINE void leaf(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		calltree_sink += i;
}

NOINLINE void b(unsigned long n)
{
	leaf(n);
	calltree_sink++;
}

NOINLINE void a(unsigned long n)
{
	b(n);
	calltree_sink++;
}

NOINLINE void c(unsigned long n)
{
	leaf(n);
	calltree_sink++;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 20, r;

	/* Until the test says the profiler is attached. */
	while (argc > 2 && access(argv[2], F_OK))
		usleep(1000);
	for (r = 0; r < rounds; r++) {
		a(3000000);
		c(2000000);
	}
	printf("calltree: %lu rounds\n", rounds);
	return 0;
}
