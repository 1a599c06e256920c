// SPDX-License-Identifier: GPL-2.0
/* pmuscope CLI: a whole file read at once (read-file.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "read-file.h"

char *cli_read_file(const char *path, size_t *len)
{
	size_t room = 16384, n = 0;
	char *buf = malloc(room);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (room - n < 4096) {
			char *nb = realloc(buf, room * 2);

			if (!nb)
				break;
			buf = nb;
			room *= 2;
		}
		r = read(fd, buf + n, room - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}
