// SPDX-License-Identifier: GPL-2.0
/*
 * ignchld CMD [ARG...]: run CMD with SIGCHLD ignored, as some daemons and
 * language runtimes start their children. A program that waits for its
 * own child must not hang on it (the kernel then reaps children unseen
 * and sends no SIGCHLD).
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: ignchld CMD [ARG...]\n");
		return 2;
	}
	signal(SIGCHLD, SIG_IGN);
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
