// SPDX-License-Identifier: GPL-2.0
/*
 * norandom CMD [ARG...]: run CMD without address space randomization
 * (personality ADDR_NO_RANDOMIZE, inherited by its children), so that the
 * instruction counts of libc's string functions, which depend on the
 * alignment of the addresses they work on, repeat from run to run.
 */
#include <stdio.h>
#include <sys/personality.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: norandom CMD [ARG...]\n");
		return 2;
	}
	if (personality(ADDR_NO_RANDOMIZE) < 0) {
		perror("personality");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
