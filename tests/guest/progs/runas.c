// SPDX-License-Identifier: GPL-2.0
/*
 * runas UID[:GROUP] CMD [ARG...]: run CMD as UID (and GID UID), no
 * capabilities; with :GROUP, GROUP as its one supplementary group.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	gid_t groups[1];
	char *end;
	uid_t id;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID[:GROUP] CMD [ARG...]\n");
		return 2;
	}
	id = strtoul(argv[1], &end, 0);
	groups[0] = *end == ':' ? strtoul(end + 1, NULL, 0) : 0;
	if (setgroups(*end == ':', groups) || setgid(id) || setuid(id)) {
		perror("runas");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
