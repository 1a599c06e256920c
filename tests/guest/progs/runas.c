// SPDX-License-Identifier: GPL-2.0
/* runas UID CMD [ARG...]: run CMD as UID (and GID UID), no capabilities. */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t id;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID CMD [ARG...]\n");
		return 2;
	}
	id = strtoul(argv[1], NULL, 0);
	if (setgroups(0, NULL) || setgid(id) || setuid(id)) {
		perror("runas");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
