/* SPDX-License-Identifier: GPL-2.0 */
/* pmuscope CLI: a whole file read at once, /proc's included. */
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

#endif
