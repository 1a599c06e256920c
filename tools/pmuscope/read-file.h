/* SPDX-License-Identifier: GPL-2.0 */
/* pmuscope CLI: a whole file read at once, /proc's included; a command's input. */
#ifndef PMUSCOPE_READ_FILE_H
#define PMUSCOPE_READ_FILE_H

#include <stddef.h>

/*
 * The whole of @path, malloc'ed and NUL-terminated, its length in *@len;
 * NULL when it cannot be opened or no memory. Reads to the end whatever
 * the file says its size is (/proc files say 0); a short read or a failed
 * realloc ends it at what was read.
 */
char *cli_read_file(const char *path, size_t *len);

/* What cli_read_input() takes at most from a pipe or a device: 1 GiB. */
#define CLI_INPUT_PIPE_MAX	((size_t)1 << 30)

/*
 * A command's input file (the recording of report, script, spe report
 * and spe dump; "-" is stdin) read whole into memory with read(), never
 * mapped: a file cut short while it is read ends where it ends (a
 * mapping would take SIGBUS). A regular file: its size at the open, no
 * more (one still being written is read to that size). A pipe or a
 * device: to its end, at most @max bytes. 0 with *@data malloc'ed
 * (NUL-terminated, *@len bytes before it), or -errno with @err naming
 * @path: cannot open or read it, -EISDIR "PATH: is a directory", -EFBIG
 * over @max, -ENOMEM.
 */
int cli_read_input(const char *path, size_t max, unsigned char **data, size_t *len,
		   char *err, size_t errlen);

#endif
