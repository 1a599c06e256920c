// SPDX-License-Identifier: GPL-2.0
/* pmuscope CLI: a whole file read at once (read-file.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

#define CLI_INPUT_CHUNK	(64 * 1024)	/* a pipe's first buffer, doubled as it fills */

int cli_read_input(const char *path, size_t max, unsigned char **data, size_t *len,
		   char *err, size_t errlen)
{
	int is_stdin = !strcmp(path, "-");
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *buf = NULL;
	size_t n = 0, cap, have;
	struct stat st;
	int ret = 0, regular;

	*data = NULL;
	*len = 0;
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(-ret));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		snprintf(err, errlen, "%s: is a directory", path);
		goto out;
	}
	/* @cap: bytes to read at most; a stream's @max + 1 shows it is over. */
	regular = S_ISREG(st.st_mode);
	if (regular && (uint64_t)st.st_size >= SIZE_MAX) {
		ret = -EFBIG;
		snprintf(err, errlen, "%s: %lld bytes: too large to read", path,
			 (long long)st.st_size);
		goto out;
	}
	if (max >= SIZE_MAX - 1)
		max = SIZE_MAX - 2;
	cap = regular ? (size_t)st.st_size : max + 1;
	have = regular || cap < CLI_INPUT_CHUNK ? cap : CLI_INPUT_CHUNK;
	buf = malloc(have + 1);
	if (!buf)
		goto nomem;
	while (n < cap) {
		ssize_t r;

		if (n == have) {
			size_t more = have > cap / 2 ? cap : have * 2;
			unsigned char *nb = realloc(buf, more + 1);

			have = more;
			if (!nb)
				goto nomem;
			buf = nb;
		}
		r = read(fd, buf + n, have - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot read %s: %s", path, strerror(-ret));
			goto out;
		}
		if (!r)
			break;		/* the end; a regular file cut short meanwhile */
		n += r;
	}
	if (!regular && n > max) {
		ret = -EFBIG;
		snprintf(err, errlen,
			 "%s: more than %zu bytes from a pipe or a device, the most read from one: save it to a file and give that",
			 path, max);
		goto out;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	buf = NULL;
	goto out;
nomem:
	ret = -ENOMEM;
	snprintf(err, errlen, "no memory to read %s (%zu bytes)", path, have);
out:
	free(buf);
	if (!is_stdin)
		close(fd);
	return ret;
}
