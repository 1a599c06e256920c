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

/* sym_lookup()'s @want. */
#define SYM_WANT_SRC		(1U << 0)	/* source lines */
#define SYM_WANT_INLINE		(1U << 1)	/* the functions inlined at the address */

#define SYM_MAX_INLINE		16
#define SYM_SRC_LEN		160

/* A function inlined at an address (DWARF DW_TAG_inlined_subroutine). */
struct sym_inline {
	const char *name;		/* owned by the table; "" when DWARF has none */
	char src[SYM_SRC_LEN];		/* where the address is in it: "file.c:12", or "" */
};

/* What sym_lookup() finds at a file offset. */
struct sym_info {
	const char *name;		/* the function (ELF symbol), owned by the table; NULL: none */
	uint64_t off;			/* the address's offset in it */
	const char *build_id;		/* the file's GNU build ID in hex, owned by the table; NULL */
	/* The line in @name: of the address, or of the call of the outermost inlined function. */
	char src[SYM_SRC_LEN];
	unsigned int nr_inline;		/* functions inlined at the address, the innermost first */
	struct sym_inline inl[SYM_MAX_INLINE];
};

/*
 * As sym_resolve(), with more: the function's start (@info->off), the
 * file's build ID and, with SYM_WANT_INLINE, the inlined functions the
 * address is in where the file (or its separate debug file) has DWARF.
 * Return: 1 with @info->name, 0 when no symbol covers the offset (the
 * build ID and inlined functions may still be filled), -errno when the
 * file cannot be read as ELF.
 */
int sym_lookup(struct sym_table *t, const char *path, uint64_t file_off, unsigned int want,
	       struct sym_info *info);

/* Why @path could not be read (after sym_resolve() < 0), or "". */
const char *sym_error(struct sym_table *t, const char *path);

#endif
