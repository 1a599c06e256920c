// SPDX-License-Identifier: GPL-2.0
/* pmuscope CLI: the SPE data file (spefile.h, Documentation/spe-data.rst). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read-file.h"
#include "spefile.h"

_Static_assert(sizeof(struct spef_header) == SPEF_HEADER_FIXED, "struct spef_header is 96 bytes");

static void spef_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void spef_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static int spef_put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

static int spef_zeros(FILE *f, size_t n)
{
	static const unsigned char z[8];

	return n ? spef_put(f, z, n) : 0;
}

int spef_create(struct spef_writer *w, const char *path, const struct spef_header *h,
		int argc, char **argv, char *err, size_t errlen)
{
	size_t cl = 0;
	int ret;

	memset(w, 0, sizeof(*w));
	for (int i = 0; i < argc; i++)
		cl += strlen(argv[i]) + 1;
	if (cl > SPEF_CMDLINE_MAX) {
		spef_err(err, errlen, "the command line is longer than %u bytes", SPEF_CMDLINE_MAX);
		return -E2BIG;
	}
	w->h = *h;
	memcpy(w->h.magic, SPEF_MAGIC, 8);
	w->h.version = SPEF_VERSION;
	w->h.argc = argc;
	w->h.cmdline_size = cl;
	w->h.header_size = SPEF_HEADER_FIXED + pad8(cl);
	w->h.data_size = 0;
	w->h.maps_size = 0;
	w->h.finished = 0;
	w->f = fopen(path, "w+");
	if (!w->f) {
		ret = -errno;
		spef_err(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return ret;
	}
	ret = spef_put(w->f, &w->h, sizeof(w->h));
	for (int i = 0; !ret && i < argc; i++)
		ret = spef_put(w->f, argv[i], strlen(argv[i]) + 1);
	if (!ret)
		ret = spef_zeros(w->f, pad8(cl) - cl);
	if (ret) {
		spef_err(err, errlen, "cannot write %s: %s", path, strerror(errno));
		fclose(w->f);
		w->f = NULL;
	}
	return ret;
}

int spef_write_chunk(struct spef_writer *w, const struct pmuscope_spe_chunk *c,
		     const void *data)
{
	size_t want = pad8(sizeof(*c) + (size_t)c->data_size);

	if (c->size != want)
		return -EINVAL;
	if (spef_put(w->f, c, sizeof(*c)) || spef_put(w->f, data, c->data_size) ||
	    spef_zeros(w->f, want - sizeof(*c) - c->data_size))
		return -EIO;
	w->h.data_size += c->size;
	w->chunks++;
	return 0;
}

int spef_finish(struct spef_writer *w, uint32_t pid, const char *maps, size_t maps_len,
		char *err, size_t errlen)
{
	int ret = 0;

	if (maps_len > SPEF_MAPS_MAX)
		maps_len = 0;
	w->h.pid = pid;
	w->h.maps_size = maps_len;
	w->h.finished = 1;
	if ((maps_len && (spef_put(w->f, maps, maps_len) ||
			  spef_zeros(w->f, pad8(maps_len) - maps_len))) ||
	    fseek(w->f, 0, SEEK_SET) || spef_put(w->f, &w->h, sizeof(w->h)) || fflush(w->f))
		ret = -EIO;
	if (fclose(w->f))
		ret = -EIO;
	w->f = NULL;
	if (ret)
		spef_err(err, errlen, "cannot write the SPE file: %s", strerror(errno));
	return ret;
}

int spef_parse(unsigned char *file, size_t size, struct spef *s, char *err, size_t errlen)
{
	struct pmuscope_spe_chunk c;
	const unsigned char *data;
	size_t off, end, n = 0;
	char cerr[200];
	int ret;

	memset(s, 0, sizeof(*s));
	if (err && errlen)
		err[0] = '\0';
	s->file = file;
	s->size = size;
	if (size < SPEF_HEADER_FIXED) {
		spef_err(err, errlen, "%zu bytes: shorter than the %d-byte header", size,
			 SPEF_HEADER_FIXED);
		return -EBADMSG;
	}
	memcpy(&s->h, file, sizeof(s->h));
	if (memcmp(s->h.magic, SPEF_MAGIC, 8)) {
		spef_err(err, errlen, "not a pmuscope SPE file (no \"%s\" magic)", SPEF_MAGIC);
		return -EBADMSG;
	}
	if (s->h.version != SPEF_VERSION) {
		spef_err(err, errlen, "SPE file version %u: this pmuscope reads version %d",
			 s->h.version, SPEF_VERSION);
		return -EBADMSG;
	}
	if (s->h.cmdline_size > SPEF_CMDLINE_MAX ||
	    s->h.header_size != SPEF_HEADER_FIXED + pad8(s->h.cmdline_size)) {
		spef_err(err, errlen, "header size %u does not match a command line of %u bytes",
			 s->h.header_size, s->h.cmdline_size);
		return -EBADMSG;
	}
	if (s->h.flags & ~SPEF_FLAGS_ALL || s->h.reserved || s->h.finished > 1) {
		spef_err(err, errlen, "unknown header flags 0x%x or reserved fields set",
			 s->h.flags & ~SPEF_FLAGS_ALL);
		return -EBADMSG;
	}
	if (size < s->h.header_size) {
		spef_err(err, errlen, "cut short in the header (%zu of %u bytes)", size,
			 s->h.header_size);
		return -EBADMSG;
	}
	/*
	 * The command line: argc NUL-terminated strings, exactly, then zeros.
	 * Each string takes at least its NUL, so argc is at most the bytes of
	 * the command line (itself bounded by the file's size above): what is
	 * allocated follows from the file, never from a field alone (an argc
	 * of 0xffffffff made argc + 1 wrap to calloc(0)).
	 */
	if (s->h.argc > s->h.cmdline_size) {
		spef_err(err, errlen,
			 "argc %u (header offset %zu) is more strings than the %u bytes of the command line (offset %zu) can hold",
			 s->h.argc, offsetof(struct spef_header, argc), s->h.cmdline_size,
			 offsetof(struct spef_header, cmdline_size));
		return -EBADMSG;
	}
	s->cmdline = malloc((size_t)s->h.cmdline_size + 1);
	s->argv = calloc((size_t)s->h.argc + 1, sizeof(char *));
	if (!s->cmdline || !s->argv) {
		spef_err(err, errlen, "no memory for a command line of %u bytes", s->h.cmdline_size);
		return -ENOMEM;
	}
	memcpy(s->cmdline, file + SPEF_HEADER_FIXED, s->h.cmdline_size);
	s->cmdline[s->h.cmdline_size] = '\0';
	for (off = 0; off < s->h.cmdline_size && n < s->h.argc; n++) {
		char *nul = memchr(s->cmdline + off, '\0', s->h.cmdline_size - off);

		if (!nul)
			break;
		s->argv[n] = s->cmdline + off;
		off = nul - s->cmdline + 1;
	}
	if (n != s->h.argc || off != s->h.cmdline_size) {
		spef_err(err, errlen, "the command line is not %u NUL-terminated strings in %u bytes",
			 s->h.argc, s->h.cmdline_size);
		return -EBADMSG;
	}
	for (size_t i = SPEF_HEADER_FIXED + s->h.cmdline_size; i < s->h.header_size; i++)
		if (file[i]) {
			spef_err(err, errlen, "header padding byte %zu is not zero", i);
			return -EBADMSG;
		}
	/* The chunks: all of them, to data_size (an unfinished file: to the end). */
	end = size;
	if (s->h.finished) {
		if (s->h.maps_size > SPEF_MAPS_MAX ||
		    s->h.data_size > size - s->h.header_size ||
		    size - s->h.header_size - s->h.data_size != pad8(s->h.maps_size)) {
			spef_err(err, errlen,
				 "%zu bytes, the header says %u + %llu of chunks + %zu of maps: cut short or corrupt",
				 size, s->h.header_size, (unsigned long long)s->h.data_size,
				 pad8(s->h.maps_size));
			return -EBADMSG;
		}
		end = s->h.header_size + s->h.data_size;
	} else if (s->h.data_size || s->h.maps_size) {
		spef_err(err, errlen, "an unfinished recording with sizes set: corrupt");
		return -EBADMSG;
	}
	s->chunks = file + s->h.header_size;
	off = 0;
	while ((ret = pmuscope_spe_chunk_next(s->chunks, end - s->h.header_size, &off, &c,
					      &data, cerr, sizeof(cerr))) == 1)
		;
	if (ret < 0) {
		spef_err(err, errlen, "%s (file offset %zu)%s", cerr, s->h.header_size + off,
			 s->h.finished ? "" : ": the recording did not finish, the file is cut short");
		return -EBADMSG;
	}
	if (!s->h.finished)
		s->h.data_size = off;
	for (size_t i = s->h.maps_size; i < pad8(s->h.maps_size); i++)
		if (file[end + i]) {
			spef_err(err, errlen, "maps padding byte is not zero");
			return -EBADMSG;
		}
	if (s->h.maps_size)
		s->maps = (const char *)file + end;
	return 0;
}

int spef_read(const char *path, struct spef *s, char *err, size_t errlen)
{
	unsigned char *buf;
	size_t size;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = cli_read_input(path, CLI_INPUT_PIPE_MAX, &buf, &size, err, errlen);
	if (ret)
		return ret;
	ret = spef_parse(buf, size, s, err, errlen);
	if (ret) {
		char msg[400];

		snprintf(msg, sizeof(msg), "%s", err);
		spef_err(err, errlen, "%s: %s", path, msg);
		spef_free(s);
	}
	return ret;
}

void spef_free(struct spef *s)
{
	free(s->file);
	free(s->cmdline);
	free(s->argv);
	memset(s, 0, sizeof(*s));
}
