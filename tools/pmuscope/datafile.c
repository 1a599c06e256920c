// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: writing and reading the record file (datafile.h,
 * Documentation/cli.rst). The writer keeps the first error and reports it
 * at df_finish(); the reader checks every size before it uses it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datafile.h"
#include "read-file.h"

_Static_assert(sizeof(struct df_header) == 88, "df_header is 88 bytes");
_Static_assert(offsetof(struct df_header, flags) == DF_HEADER_V1_SIZE,
	       "version 2 appends to the version-1 header");
_Static_assert(sizeof(struct df_event) == 96, "df_event is 96 bytes");
_Static_assert(sizeof(struct df_maps) == 24, "df_maps is 24 bytes");
_Static_assert(sizeof(struct df_comm) == 32, "df_comm is 32 bytes");
_Static_assert(sizeof(struct df_exit) == 24, "df_exit is 24 bytes");
_Static_assert(sizeof(struct df_end) == 32, "df_end is 32 bytes");
_Static_assert(sizeof(struct df_kallsyms) == 16, "df_kallsyms is 16 bytes");

static const unsigned char df_zeros[8];

static size_t df_pad(size_t n)
{
	return (8 - n % 8) % 8;
}

static void df_put(struct df_writer *w, const void *p, size_t n)
{
	if (w->failed || !n)
		return;
	if (fwrite(p, 1, n, w->f) != n)
		w->failed = errno ? errno : EIO;
}

static void df_chunk(struct df_writer *w, uint32_t type, size_t payload)
{
	struct df_chunk c = { .type = type, .size = sizeof(c) + payload + df_pad(payload) };

	if (!w->failed && sizeof(c) + payload + df_pad(payload) > UINT32_MAX)
		w->failed = EFBIG;
	df_put(w, &c, sizeof(c));
}

int df_create(struct df_writer *w, const char *path, const struct df_info *info)
{
	struct df_header h = { .version = DF_VERSION };
	size_t cmdline = 0;
	struct stat st;
	int fd;

	memset(w, 0, sizeof(*w));
	w->path = path;
	/*
	 * Readable by its owner only, as perf.data: a recording may hold
	 * kernel addresses (chains, the KALLSYMS chunk) that other users of
	 * the machine may not see.
	 */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		fchmod(fd, 0600);	/* an older file of this name kept its mode */
	w->f = fdopen(fd, "wb");
	if (!w->f) {
		int err = -errno;

		close(fd);
		return err;
	}
	for (int i = 0; i < info->argc; i++)
		cmdline += strlen(info->argv[i]) + 1;
	memcpy(h.magic, DF_MAGIC, sizeof(h.magic));
	h.header_size = sizeof(h) + info->nr_events * sizeof(struct df_event) + cmdline +
			df_pad(cmdline);
	h.freq = info->freq;
	h.start_time = info->start_time;
	h.nr_events = info->nr_events;
	h.kernel_el = info->kernel_el;
	h.period_ms = info->period_ms;
	h.sample_index = info->sample_index;
	h.sample_period = info->sample_period;
	h.argc = info->argc;
	h.cmdline_size = cmdline;
	h.flags = info->flags;
	h.max_stack = info->max_stack;
	df_put(w, &h, sizeof(h));
	for (unsigned int i = 0; i < info->nr_events; i++) {
		struct df_event e = { .number = info->evs[i].number, .flags = info->evs[i].flags };

		snprintf(e.name, sizeof(e.name), "%s", info->evs[i].name);
		snprintf(e.label, sizeof(e.label), "%s", info->evs[i].label);
		df_put(w, &e, sizeof(e));
	}
	for (int i = 0; i < info->argc; i++)
		df_put(w, info->argv[i], strlen(info->argv[i]) + 1);
	df_put(w, df_zeros, df_pad(cmdline));
	return -w->failed;
}

int df_write_records(struct df_writer *w, const void *buf, size_t len)
{
	if (!len)
		return 0;
	df_chunk(w, DF_CHUNK_RECORDS, len);
	df_put(w, buf, len);
	df_put(w, df_zeros, df_pad(len));
	return -w->failed;
}

int df_write_maps(struct df_writer *w, uint32_t pid, uint32_t reason, uint64_t time,
		  const char *text, size_t len)
{
	struct df_maps m = { .pid = pid, .reason = reason, .time = time, .text_size = len };

	df_chunk(w, DF_CHUNK_MAPS, sizeof(m) + len);
	df_put(w, &m, sizeof(m));
	df_put(w, text, len);
	df_put(w, df_zeros, df_pad(sizeof(m) + len));
	return -w->failed;
}

int df_write_comm(struct df_writer *w, uint32_t pid, uint32_t tid, uint64_t time,
		  const char *comm)
{
	struct df_comm c = { .pid = pid, .tid = tid, .time = time };

	strncpy(c.comm, comm, sizeof(c.comm) - 1);
	df_chunk(w, DF_CHUNK_COMM, sizeof(c));
	df_put(w, &c, sizeof(c));
	return -w->failed;
}

int df_write_exit(struct df_writer *w, uint32_t pid, uint32_t tid, uint64_t time,
		  int status)
{
	struct df_exit e = { .pid = pid, .tid = tid, .time = time, .status = status };

	df_chunk(w, DF_CHUNK_EXIT, sizeof(e));
	df_put(w, &e, sizeof(e));
	return -w->failed;
}

int df_write_kallsyms(struct df_writer *w, uint64_t time, const char *text, size_t len)
{
	struct df_kallsyms k = { .time = time, .text_size = len };

	if (!w->failed && len > UINT32_MAX)
		w->failed = EFBIG;
	df_chunk(w, DF_CHUNK_KALLSYMS, sizeof(k) + len);
	df_put(w, &k, sizeof(k));
	df_put(w, text, len);
	df_put(w, df_zeros, df_pad(sizeof(k) + len));
	return -w->failed;
}

int df_write_end(struct df_writer *w, const struct df_end *end)
{
	df_chunk(w, DF_CHUNK_END, sizeof(*end));
	df_put(w, end, sizeof(*end));
	return -w->failed;
}

int df_finish(struct df_writer *w)
{
	int ret;

	if (!w->f)
		return -EBADF;
	if (fflush(w->f) && !w->failed)
		w->failed = errno ? errno : EIO;
	if (fclose(w->f) && !w->failed)
		w->failed = errno ? errno : EIO;
	w->f = NULL;
	ret = -w->failed;
	return ret;
}

/* ------------------------------------------------------------- reading */
static void df_err(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int df_parse_header(struct df_file *df, char *err, size_t errlen)
{
	struct df_header h = { 0 };
	size_t need, at, hsize;

	if (df->size < DF_HEADER_V1_SIZE || memcmp(df->data, DF_MAGIC, 8)) {
		df_err(err, errlen, "not a pmuscope record file (no %s magic at its start)",
		       DF_MAGIC);
		return -EBADMSG;
	}
	memcpy(&h, df->data, DF_HEADER_V1_SIZE);
	if (h.version < DF_VERSION_MIN || h.version > DF_VERSION) {
		df_err(err, errlen,
		       "record file format version %u (offset %zu): this pmuscope reads versions %u to %u",
		       h.version, offsetof(struct df_header, version), DF_VERSION_MIN, DF_VERSION);
		return -EPROTO;
	}
	hsize = h.version == 1 ? DF_HEADER_V1_SIZE : sizeof(h);
	if (df->size < hsize) {
		df_err(err, errlen,
		       "bad header: cut short at byte %zu: a version-%u header has %zu bytes",
		       df->size, h.version, hsize);
		return -EBADMSG;
	}
	memcpy(&h, df->data, hsize);
	if (h.flags & ~DF_F_ALL) {
		df_err(err, errlen, "bad header: flags 0x%x (offset %zu): unknown bits 0x%x",
		       h.flags, offsetof(struct df_header, flags), h.flags & ~DF_F_ALL);
		return -EBADMSG;
	}
	if ((h.flags & DF_F_CALLCHAIN) ?
	    (!h.max_stack || h.max_stack > PMUSCOPE_STACK_MAX) : h.max_stack) {
		df_err(err, errlen,
		       "bad header: max_stack %u (offset %zu): 1 to %u with call chains (flags 0x%x), else 0",
		       h.max_stack, offsetof(struct df_header, max_stack), PMUSCOPE_STACK_MAX,
		       h.flags);
		return -EBADMSG;
	}
	for (unsigned int i = 0; i < sizeof(h.reserved) / sizeof(h.reserved[0]); i++)
		if (h.reserved[i]) {
			df_err(err, errlen, "bad header: reserved word at offset %zu is not zero",
			       offsetof(struct df_header, reserved) + 8 * i);
			return -EBADMSG;
		}
	if (!h.nr_events || h.nr_events > PMUSCOPE_MAX_EVENTS) {
		df_err(err, errlen, "bad header: nr_events %u (offset %zu): 1 to %u", h.nr_events,
		       offsetof(struct df_header, nr_events), PMUSCOPE_MAX_EVENTS);
		return -EBADMSG;
	}
	need = hsize + (size_t)h.nr_events * sizeof(struct df_event) + h.cmdline_size;
	if (h.header_size % 8 || h.header_size < need || h.header_size > df->size) {
		df_err(err, errlen,
		       "bad header: header_size %u (offset %zu) must be a multiple of 8, at least %zu (the events and cmdline_size %u, offset %zu) and within the file's %zu bytes",
		       h.header_size, offsetof(struct df_header, header_size), need, h.cmdline_size,
		       offsetof(struct df_header, cmdline_size), df->size);
		return -EBADMSG;
	}
	if (h.sample_index != PMUSCOPE_STREAM_NO_EVENT && h.sample_index >= h.nr_events) {
		df_err(err, errlen, "bad header: sample_index %u (offset %zu) of %u events",
		       h.sample_index, offsetof(struct df_header, sample_index), h.nr_events);
		return -EBADMSG;
	}
	df->info.version = h.version;
	df->info.flags = h.flags;
	df->info.max_stack = h.max_stack;
	df->info.freq = h.freq;
	df->info.start_time = h.start_time;
	df->info.nr_events = h.nr_events;
	df->info.kernel_el = h.kernel_el;
	df->info.period_ms = h.period_ms;
	df->info.sample_index = h.sample_index;
	df->info.sample_period = h.sample_period;
	at = hsize;
	for (unsigned int i = 0; i < h.nr_events; i++) {
		struct df_event e;
		struct pmuscope_event_spec *ev = &df->info.evs[i];

		memcpy(&e, df->data + at, sizeof(e));
		at += sizeof(e);
		ev->number = e.number;
		ev->flags = e.flags;
		memcpy(ev->name, e.name, sizeof(ev->name));
		ev->name[sizeof(ev->name) - 1] = '\0';
		memcpy(ev->label, e.label, sizeof(ev->label));
		ev->label[sizeof(ev->label) - 1] = '\0';
	}
	if (h.argc > h.cmdline_size) {
		df_err(err, errlen,
		       "bad header: argc %u (offset %zu) is more strings than cmdline_size %u (offset %zu) can hold",
		       h.argc, offsetof(struct df_header, argc), h.cmdline_size,
		       offsetof(struct df_header, cmdline_size));
		return -EBADMSG;
	}
	df->info.argv = calloc((size_t)h.argc + 1, sizeof(char *));
	if (!df->info.argv) {
		df_err(err, errlen, "no memory for %u arguments", h.argc);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < h.argc; i++) {
		const char *s = (const char *)df->data + at;
		size_t left = hsize + h.nr_events * sizeof(struct df_event) +
			      h.cmdline_size - at;
		size_t n = strnlen(s, left);

		if (n == left) {
			df_err(err, errlen,
			       "bad header: the command line at byte %zu is not %u strings (argc, offset %zu)",
			       hsize + (size_t)h.nr_events * sizeof(struct df_event), h.argc,
			       offsetof(struct df_header, argc));
			return -EBADMSG;
		}
		df->info.argv[i] = strdup(s);
		if (!df->info.argv[i]) {
			df_err(err, errlen, "no memory for the command line");
			return -ENOMEM;
		}
		df->info.argc = i + 1;
		at += n + 1;
	}
	df->first_chunk = h.header_size;
	return 0;
}

int df_open_mem(struct df_file *df, const void *data, size_t size, char *err, size_t errlen)
{
	memset(df, 0, sizeof(*df));
	df->data = data;
	df->size = size;
	return df_parse_header(df, err, errlen);
}

int df_open(struct df_file *df, const char *path, char *err, size_t errlen)
{
	unsigned char *data;
	size_t size;
	int ret;

	memset(df, 0, sizeof(*df));
	/* read(), not mmap(): a file cut short meanwhile must not SIGBUS us */
	ret = cli_read_input(path, CLI_INPUT_PIPE_MAX, &data, &size, err, errlen);
	if (ret)
		return ret;
	ret = df_open_mem(df, data, size, err, errlen);
	df->owned = 1;
	if (ret) {
		df_close(df);
		return ret;
	}
	return 0;
}

int df_next(const struct df_file *df, size_t *off, struct df_view *c, char *err, size_t errlen)
{
	static const size_t least[] = {
		[DF_CHUNK_MAPS] = sizeof(struct df_maps),
		[DF_CHUNK_COMM] = sizeof(struct df_comm),
		[DF_CHUNK_EXIT] = sizeof(struct df_exit),
		[DF_CHUNK_END] = sizeof(struct df_end),
		[DF_CHUNK_KALLSYMS] = sizeof(struct df_kallsyms),
	};
	struct df_chunk ch;
	size_t at = *off, left;

	if (at >= df->size)
		return 0;
	left = df->size - at;
	if (left < sizeof(ch)) {
		df_err(err, errlen, "chunk at byte %zu cut short: %zu bytes left", at, left);
		return -EBADMSG;
	}
	memcpy(&ch, df->data + at, sizeof(ch));
	if (ch.size < sizeof(ch) || ch.size % 8) {
		df_err(err, errlen, "chunk at byte %zu: size %u (a multiple of 8, at least 8)",
		       at, ch.size);
		return -EBADMSG;
	}
	if (ch.size > left) {
		df_err(err, errlen, "chunk at byte %zu cut short: size %u, %zu bytes left", at,
		       ch.size, left);
		return -EBADMSG;
	}
	c->type = ch.type;
	c->offset = at;
	c->payload = df->data + at + sizeof(ch);
	c->len = ch.size - sizeof(ch);
	if (ch.type < sizeof(least) / sizeof(least[0]) && c->len < least[ch.type]) {
		df_err(err, errlen, "chunk at byte %zu (type %u): %zu bytes, at least %zu",
		       at, ch.type, c->len, least[ch.type]);
		return -EBADMSG;
	}
	if (ch.type == DF_CHUNK_MAPS) {
		struct df_maps m;

		memcpy(&m, c->payload, sizeof(m));
		if (m.text_size > c->len - sizeof(m)) {
			df_err(err, errlen, "chunk at byte %zu: maps text of %u bytes in %zu",
			       at, m.text_size, c->len - sizeof(m));
			return -EBADMSG;
		}
	}
	if (ch.type == DF_CHUNK_KALLSYMS) {
		struct df_kallsyms k;

		memcpy(&k, c->payload, sizeof(k));
		if (k.text_size > c->len - sizeof(k)) {
			df_err(err, errlen,
			       "chunk at byte %zu: kallsyms text of %u bytes in %zu", at,
			       k.text_size, c->len - sizeof(k));
			return -EBADMSG;
		}
	}
	*off = at + ch.size;
	return 1;
}

void df_close(struct df_file *df)
{
	if (df->owned)
		free((void *)df->data);
	for (int i = 0; i < df->info.argc; i++)
		free(df->info.argv[i]);
	free(df->info.argv);
	memset(df, 0, sizeof(*df));
}

int df_check_records(const struct df_file *df, const struct df_view *c, char *err,
		     size_t errlen)
{
	size_t payload = c->offset + sizeof(struct df_chunk), off = 0;
	uint32_t max = (df->info.flags & DF_F_CALLCHAIN) ? df->info.max_stack : 0;
	char why[256] = "";
	struct pmuscope_chain ch;
	struct pmuscope_rec r;
	int ret;

	while ((ret = pmuscope_record_next(c->payload, c->len, &off, &r, why,
					   sizeof(why))) == 1) {
		size_t at = off - r.size;

		if (r.type == PMUSCOPE_REC_SAMPLE && r.nr > PMUSCOPE_MAX_EVENTS) {
			df_err(err, errlen, "records chunk at byte %zu: record at byte %zu: %u counts, at most %u",
			       c->offset, at, r.nr, (unsigned int)PMUSCOPE_MAX_EVENTS);
			return -EBADMSG;
		}
		if (!(r.flags & PMUSCOPE_REC_F_CHAIN))
			continue;
		if (!(df->info.flags & DF_F_CALLCHAIN)) {
			df_err(err, errlen,
			       "record at offset %zu: a call chain, but the header says the recording has none (flags 0x%x)",
			       payload + at, df->info.flags);
			return -EBADMSG;
		}
		/* 0: a newer chain layout, skipped by every reader */
		if (pmuscope_record_chain(&r, &ch) == 1 &&
		    (uint32_t)ch.nr_kernel + ch.nr_user > max) {
			df_err(err, errlen,
			       "record at offset %zu: call chain of %u frames, more than the header's max_stack %u",
			       payload + at, (unsigned int)ch.nr_kernel + ch.nr_user, max);
			return -EBADMSG;
		}
	}
	if (ret < 0)
		df_err(err, errlen, "records chunk at byte %zu: %s", c->offset, why);
	return ret < 0 ? ret : 0;
}
