// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: symbols and source lines through elfutils' libdwfl.
 *
 * Each file is its own Dwfl, reported at its link-time addresses
 * (dwfl_report_elf() with base 0, add_p_vaddr: an ET_DYN's addresses are
 * its p_vaddr, an ET_EXEC's are absolute anyway). A file offset becomes a
 * link-time address through the PT_LOAD segment that holds it (p_vaddr +
 * offset - p_offset): the load bias of a PIE or a shared object (start -
 * offset of its maps line, less the first PT_LOAD's p_vaddr - p_offset)
 * never needs to be known, and a static non-PIE executable takes the same
 * path. One Dwfl per file also serves every process that maps it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols.h"

#ifdef PMUSCOPE_NO_ELFUTILS

int sym_available(void)
{
	return 0;
}

struct sym_table *sym_new(const char *symfs)
{
	(void)symfs;
	return NULL;
}

void sym_free(struct sym_table *t)
{
	(void)t;
}

int sym_resolve(struct sym_table *t, const char *path, uint64_t file_off,
		const char **name, char *src, size_t srclen)
{
	(void)t;
	(void)path;
	(void)file_off;
	(void)name;
	if (src && srclen)
		src[0] = '\0';
	return -ENOSYS;
}

int sym_lookup(struct sym_table *t, const char *path, uint64_t file_off, unsigned int want,
	       struct sym_info *info)
{
	(void)t;
	(void)path;
	(void)file_off;
	(void)want;
	memset(info, 0, sizeof(*info));
	return -ENOSYS;
}

const char *sym_error(struct sym_table *t, const char *path)
{
	(void)t;
	(void)path;
	return "built without elfutils";
}

#else

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

struct sym_file {
	struct sym_file *next;
	struct sym_file *hnext;		/* in sym_table.buckets */
	uint64_t hash;
	char *path;			/* as in the maps */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;
	GElf_Addr bias;
	int have_build_id;		/* looked for */
	char build_id[2 * 64 + 1];	/* hex; "" none */
	int err;			/* 0, or -errno: not readable as ELF */
	char msg[160];
};

struct sym_table {
	char *symfs;
	char *debuginfo_path;
	Dwfl_Callbacks cb;
	struct sym_file *files;
	struct sym_file *last;		/* the last looked up: a chain's frames share it */
	struct sym_file **buckets;	/* the files by path */
	size_t nbuckets, nfiles;
};

static uint64_t sym_hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h ^ h >> 29;
}

/* The file @path read as, NULL when new (and no memory for a bigger table). */
static struct sym_file *sym_find(struct sym_table *t, const char *path, uint64_t h)
{
	if (t->nfiles >= t->nbuckets) {
		size_t n = t->nbuckets ? 2 * t->nbuckets : 64;
		struct sym_file **b = calloc(n, sizeof(*b));

		if (b) {
			for (struct sym_file *f = t->files; f; f = f->next) {
				f->hnext = b[f->hash % n];
				b[f->hash % n] = f;
			}
			free(t->buckets);
			t->buckets = b;
			t->nbuckets = n;
		}
	}
	if (!t->nbuckets)
		return NULL;
	for (struct sym_file *f = t->buckets[h % t->nbuckets]; f; f = f->hnext)
		if (f->hash == h && !strcmp(f->path, path))
			return f;
	return NULL;
}

int sym_available(void)
{
	return 1;
}

struct sym_table *sym_new(const char *symfs)
{
	struct sym_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	if (symfs && *symfs) {
		t->symfs = strdup(symfs);
		/* Separate debug files under the symfs too (build-id or name). */
		if (!t->symfs || asprintf(&t->debuginfo_path, ":.debug:%s/usr/lib/debug", symfs) < 0) {
			free(t->symfs);
			free(t);
			return NULL;
		}
	}
	t->cb.find_elf = dwfl_build_id_find_elf;
	t->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	t->cb.section_address = dwfl_offline_section_address;
	t->cb.debuginfo_path = t->debuginfo_path ? &t->debuginfo_path : NULL;
	return t;
}

void sym_free(struct sym_table *t)
{
	struct sym_file *f, *next;

	if (!t)
		return;
	for (f = t->files; f; f = next) {
		next = f->next;
		if (f->dwfl)
			dwfl_end(f->dwfl);
		free(f->path);
		free(f);
	}
	free(t->buckets);
	free(t->symfs);
	free(t->debuginfo_path);
	free(t);
}

static struct sym_file *sym_file(struct sym_table *t, const char *path)
{
	struct sym_file *f;
	char *full = NULL;
	const char *base;
	struct stat st;

	uint64_t h;

	if (t->last && !strcmp(t->last->path, path))
		return t->last;
	h = sym_hash(path);
	f = sym_find(t, path, h);
	if (f)
		return t->last = f;
	if (!t->nbuckets)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->hash = h;
	f->path = strdup(path);
	if (!f->path || asprintf(&full, "%s%s", t->symfs ? t->symfs : "", path) < 0) {
		free(f->path);
		free(f);
		return NULL;
	}
	f->next = t->files;
	t->files = f;
	f->hnext = t->buckets[h % t->nbuckets];
	t->buckets[h % t->nbuckets] = f;
	t->nfiles++;
	t->last = f;
	/*
	 * A regular file only, as perf's dso__load(): a recording's maps may
	 * name a FIFO or a device, whose open() would block forever or do
	 * what reading a device does.
	 */
	if (stat(full, &st) || access(full, R_OK)) {
		f->err = -errno;
		snprintf(f->msg, sizeof(f->msg), "%s: %s", full, strerror(errno));
		free(full);
		return f;
	}
	if (!S_ISREG(st.st_mode)) {
		f->err = -EINVAL;
		snprintf(f->msg, sizeof(f->msg), "%s: not a regular file", full);
		free(full);
		return f;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	f->dwfl = dwfl_begin(&t->cb);
	if (f->dwfl) {
		dwfl_report_begin(f->dwfl);
		f->mod = dwfl_report_elf(f->dwfl, base, full, -1, 0, true);
		dwfl_report_end(f->dwfl, NULL, NULL);
	}
	if (f->mod)
		f->elf = dwfl_module_getelf(f->mod, &f->bias);
	if (!f->elf) {
		f->err = -ENOEXEC;
		snprintf(f->msg, sizeof(f->msg), "%s: %s", full, dwfl_errmsg(-1));
	}
	free(full);
	return f;
}

/* The link-time address of byte @off of the file, or 0 if no PT_LOAD has it. */
static GElf_Addr sym_address(Elf *elf, uint64_t off, int *found)
{
	GElf_Phdr first = { 0 }, ph;
	size_t n = 0;
	int have_first = 0;

	*found = 0;
	if (elf_getphdrnum(elf, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!have_first) {
			first = ph;
			have_first = 1;
		}
		if (off >= ph.p_offset && off < ph.p_offset + ph.p_filesz) {
			*found = 1;
			return ph.p_vaddr + (off - ph.p_offset);
		}
	}
	if (!have_first)
		return 0;
	/* Not in a segment's file bytes: the bias of the first PT_LOAD. */
	*found = 1;
	return first.p_vaddr + off - first.p_offset;
}

int sym_resolve(struct sym_table *t, const char *path, uint64_t file_off,
		const char **name, char *src, size_t srclen)
{
	struct sym_file *f = sym_file(t, path);
	GElf_Addr addr;
	const char *sym;
	int found;

	if (src && srclen)
		src[0] = '\0';
	if (!f)
		return -ENOMEM;
	if (f->err)
		return f->err;
	addr = sym_address(f->elf, file_off, &found);
	if (!found)
		return 0;
	addr += f->bias;
	if (src && srclen) {
		Dwfl_Line *line = dwfl_module_getsrc(f->mod, addr);
		int lineno = 0;
		const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) :
				   NULL;

		if (file) {
			const char *slash = strrchr(file, '/');

			snprintf(src, srclen, "%s:%d", slash ? slash + 1 : file, lineno);
		}
	}
	sym = dwfl_module_addrname(f->mod, addr);
	if (!sym || !*sym)
		return 0;
	*name = sym;
	return 1;
}

static const char *sym_build_id(struct sym_file *f)
{
	const unsigned char *bits;
	GElf_Addr vaddr;

	if (!f->have_build_id) {
		int n = dwfl_module_build_id(f->mod, &bits, &vaddr);

		f->have_build_id = 1;
		for (int i = 0; i < n && i < 64; i++)
			snprintf(f->build_id + 2 * i, 3, "%02x", bits[i]);
	}
	return f->build_id[0] ? f->build_id : NULL;
}

static void sym_line(Dwfl_Module *mod, GElf_Addr addr, char *src)
{
	Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
	int lineno = 0;
	const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;

	src[0] = '\0';
	if (file) {
		const char *slash = strrchr(file, '/');

		snprintf(src, SYM_SRC_LEN, "%s:%d", slash ? slash + 1 : file, lineno);
	}
}

/* The call site of inlined function @die: "file.c:12", or "". */
static void sym_call_site(Dwarf_Die *cu, Dwarf_Die *die, char *src)
{
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word fileidx, lineno;
	size_t nfiles;
	const char *file;

	src[0] = '\0';
	if (!dwarf_attr(die, DW_AT_call_file, &attr) || dwarf_formudata(&attr, &fileidx) ||
	    !dwarf_attr(die, DW_AT_call_line, &attr) || dwarf_formudata(&attr, &lineno) ||
	    dwarf_getsrcfiles(cu, &files, &nfiles) || fileidx >= nfiles)
		return;
	file = dwarf_filesrc(files, fileidx, NULL, NULL);
	if (file) {
		const char *slash = strrchr(file, '/');

		snprintf(src, SYM_SRC_LEN, "%s:%llu", slash ? slash + 1 : file,
			 (unsigned long long)lineno);
	}
}

/* The functions inlined at @addr, innermost first, each with its line. */
static void sym_inlines(Dwfl_Module *mod, GElf_Addr addr, unsigned int want,
			struct sym_info *info)
{
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Die *scopes = NULL;
	int n;

	if (!cu)
		return;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (int i = 0; i < n && info->nr_inline < SYM_MAX_INLINE; i++) {
		struct sym_inline *in;
		const char *name;

		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
			continue;
		in = &info->inl[info->nr_inline++];
		name = dwarf_diename(&scopes[i]);
		in->name = name ? name : "";
		/*
		 * The line so far (the address's, for the innermost) is in
		 * this function; its call site is in the next one out.
		 */
		memcpy(in->src, info->src, SYM_SRC_LEN);
		if (want & SYM_WANT_SRC)
			sym_call_site(cu, &scopes[i], info->src);
	}
	free(scopes);
}

int sym_lookup(struct sym_table *t, const char *path, uint64_t file_off, unsigned int want,
	       struct sym_info *info)
{
	struct sym_file *f = sym_file(t, path);
	GElf_Addr addr, off = 0;
	GElf_Sym sym;
	const char *name;
	int found;

	memset(info, 0, sizeof(*info));
	if (!f)
		return -ENOMEM;
	if (f->err)
		return f->err;
	info->build_id = sym_build_id(f);
	addr = sym_address(f->elf, file_off, &found);
	if (!found)
		return 0;
	addr += f->bias;
	if (want & SYM_WANT_SRC)
		sym_line(f->mod, addr, info->src);
	if (want & SYM_WANT_INLINE)
		sym_inlines(f->mod, addr, want, info);
	name = dwfl_module_addrinfo(f->mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name)
		return 0;
	info->name = name;
	info->off = off;
	return 1;
}

const char *sym_error(struct sym_table *t, const char *path)
{
	struct sym_file *f = sym_find(t, path, sym_hash(path));

	return f ? f->msg : "";
}

#endif
