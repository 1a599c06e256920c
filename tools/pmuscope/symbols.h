/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: a file offset of an ELF file (a shared object, a PIE or a
 * static executable, of any architecture) to its function and source line,
 * with elfutils (libdwfl). Built with PMUSCOPE_NO_ELFUTILS (the static
 * arm64 build, where there is no libdw), sym_available() is 0 and nothing
 * resolves.
 */
#ifndef PMUSCOPE_SYMBOLS_H
#define PMUSCOPE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct sym_table;

/* 1: this pmuscope resolves symbols (built with elfutils). */
int sym_available(void);

/* @symfs: a directory prefixed to every path (NULL or "": none). */
struct sym_table *sym_new(const char *symfs);
void sym_free(struct sym_table *t);

/*
 * @path: a file as a maps line names it; @file_off: a byte of it (the PC's
 * offset in its mapping plus the mapping's file offset). @src (when not
 * NULL): "file.c:12" where the file has line information, else "".
 * Return: 1 with *@name (owned by @t), 0 when no symbol covers it,
 * -errno when the file cannot be read as ELF (sym_error() says why).
 */
int sym_resolve(struct sym_table *t, const char *path, uint64_t file_off,
		const char **name, char *src, size_t srclen);

/* Why @path could not be read (after sym_resolve() < 0), or "". */
const char *sym_error(struct sym_table *t, const char *path);

#endif
