// SPDX-License-Identifier: GPL-2.0
/*
 * file_fuzz [--runs N] [--seed S] [--keep DIR]: the CLI's file readers against bad
 * input, built with AddressSanitizer and UBSan (tests/host/fuzz-files.sh).
 *
 * The readers: the record file of pmuscope record (df_open_mem(), every
 * chunk with df_next(), every stream record of a RECORDS chunk with
 * pmuscope_record_next() and its call chain with pmuscope_record_chain(),
 * a KALLSYMS chunk's text) and the SPE file of pmuscope spe record
 * (spef_parse(), every chunk with pmuscope_spe_chunk_next(), every SPE
 * record of a chunk's data with pmuscope_spe_record_next()). Inputs: a
 * real recording of each kind, written by the CLI's own writers (two
 * record files: version 2 without chains, and with call chains of
 * kernel and user frames, one of a newer chain version, and /proc/kallsyms);
 * then N
 * mutations of each (bytes flipped, header fields set to boundary values,
 * cut short, grown with zeros), each in a buffer of exactly its size; and
 * hand-made headers (the crafted argc of 0xffffffff and 0xfffffff8 that
 * overflowed the heap), and record files with a corrupt header word or
 * chain, or a chain the header does not allow (longer than its
 * max_stack, or in a file without chains: df_check_records()), refused,
 * the message naming the byte offset. A reader must
 * refuse or accept each; when it refuses, its message must be set (a
 * record's must name its byte). Any sanitizer report ends the run.
 * --keep DIR writes the crafted files there (crafted-*.spe, crafted-*.data)
 * for the CLI's own test (tests/host/fuzz-files.sh).
 * One "PASS name" / "FAIL name: why" line per check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmuscope.h"
#include "datafile.h"
#include "spefile.h"
#include "check.h"


static uint64_t rng = 1;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned char *slurp(const char *path, size_t *size)
{
	unsigned char *buf = NULL;
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(n);
		if (buf && fread(buf, 1, n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*size = n;
	}
	fclose(f);
	return buf;
}

/* ------------------------------------------------------------ the readers */

/* The record file reader over @buf: 0 accepted, 1 refused with a message, -1 refused silently. */
static int read_df(const unsigned char *buf, size_t size)
{
	char err[512] = "";
	struct df_file df;
	struct df_view c;
	size_t off;
	int ret;

	ret = df_open_mem(&df, buf, size, err, sizeof(err));
	if (ret) {
		df_close(&df);
		return err[0] ? 1 : -1;
	}
	off = df.first_chunk;
	while ((ret = df_next(&df, &off, &c, err, sizeof(err))) == 1) {
		if (c.type == DF_CHUNK_RECORDS) {
			struct pmuscope_rec r;
			struct pmuscope_chain ch;
			size_t roff = 0;
			uint64_t sum = 0;

			/* The readers' own check first (chains within max_stack). */
			ret = df_check_records(&df, &c, err, sizeof(err));
			if (ret < 0) {
				df_close(&df);
				return strstr(err, "byte") || strstr(err, "offset") ? 1 : -1;
			}

			while ((ret = pmuscope_record_next(c.payload, c.len, &roff, &r, err,
							   sizeof(err))) == 1) {
				for (uint32_t i = 0; i < r.nr; i++) {
					uint64_t v;

					memcpy(&v, r.counts + 8 * i, 8);
					sum += v;
				}
				/* A checked record's chain is within it: read every address. */
				ret = pmuscope_record_chain(&r, &ch);
				if (ret < 0) {
					snprintf(err, sizeof(err), "a checked record's chain: %d", ret);
					df_close(&df);
					return -2;
				}
				for (unsigned int i = 0; ret && i < (unsigned int)ch.nr_kernel + ch.nr_user; i++)
					sum += pmuscope_chain_ip(&ch, i);
			}
			(void)sum;
			if (ret < 0) {
				df_close(&df);
				return err[0] && strstr(err, "byte") ? 1 : -1;
			}
			ret = 1;
		} else if (c.type == DF_CHUNK_KALLSYMS) {
			struct df_kallsyms k;
			volatile unsigned char last;

			memcpy(&k, c.payload, sizeof(k));
			if (k.text_size)
				last = c.payload[sizeof(k) + k.text_size - 1];
			(void)last;
		}
	}
	df_close(&df);
	if (ret < 0)
		return err[0] ? 1 : -1;
	return 0;
}

/* The SPE file reader over @buf (spef_parse() keeps and frees it). */
static int read_spef(unsigned char *buf, size_t size)
{
	char err[512] = "";
	struct spef s;
	int ret = spef_parse(buf, size, &s, err, sizeof(err));

	if (!ret) {
		struct pmuscope_spe_chunk c;
		const unsigned char *data;
		char cerr[256];
		size_t off = 0;

		while (pmuscope_spe_chunk_next(s.chunks, s.h.data_size, &off, &c, &data, cerr,
					       sizeof(cerr)) == 1) {
			struct pmuscope_spe_record r;
			size_t roff = 0;

			while (pmuscope_spe_record_next(data, c.data_size, &roff, &r) == 1)
				;
		}
		for (uint32_t i = 0; s.argv && i < s.h.argc; i++)
			if (!s.argv[i])
				ret = -EFAULT;
	}
	s.file = NULL;		/* the caller's */
	spef_free(&s);
	if (ret == -EFAULT)
		return -2;
	return ret ? (err[0] ? 1 : -1) : 0;
}

/* ------------------------------------------------------------ the inputs */

static size_t put_rec(unsigned char *buf, size_t off, uint16_t type, uint64_t pc, uint32_t nr)
{
	struct pmuscope_record r = {
		.type = type, .size = 48 + 8 * nr, .cpu = 1, .time = 1000 + off,
		.pid = 42, .tid = 43, .pc = pc, .flags = PMUSCOPE_REC_F_USER, .nr = nr,
	};

	memcpy(buf + off, &r, sizeof(r));
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t v = 1000 * (i + 1) + off;

		memcpy(buf + off + 48 + 8 * i, &v, 8);
	}
	return r.size;
}

/* A SAMPLE with a chain: @nk kernel then @nu user frames, chain @version. */
static size_t put_chain_rec(unsigned char *buf, size_t off, uint64_t pc, uint32_t nr,
			    uint16_t version, uint16_t nk, uint16_t nu)
{
	size_t n = put_rec(buf, off, PMUSCOPE_REC_SAMPLE, pc, nr);
	struct pmuscope_rec_chain c = {
		.version = version, .size = sizeof(c), .nr_kernel = nk, .nr_user = nu,
		.flags = nk ? 0 : PMUSCOPE_CHAIN_F_USER_END,
	};
	struct pmuscope_record r;

	memcpy(buf + off + n, &c, sizeof(c));
	n += sizeof(c);
	for (unsigned int i = 0; i < (unsigned int)nk + nu; i++, n += 8) {
		uint64_t ip = i < nk ? 0xffff800080010000ULL + 4 * i : pc + 0x40 * i;

		memcpy(buf + off + n, &ip, 8);
	}
	memcpy(&r, buf + off, sizeof(r));
	r.size = n;
	r.flags |= PMUSCOPE_REC_F_CHAIN;
	if (nk)
		r.flags &= ~PMUSCOPE_REC_F_USER;
	memcpy(buf + off, &r, sizeof(r));
	return n;
}

/*
 * A recording with call chains (version 2, per task: nr 0): chains of 3
 * user frames, of 2 kernel and 2 user frames, of a newer version (skipped),
 * LOST, THROTTLED, and a KALLSYMS chunk. *@chain1: the file offset of the
 * first record's chain.
 */
static unsigned char *make_df_chain(const char *dir, size_t *size, size_t *chain1)
{
	static char *argv[] = { "pmuscope", "record", "-g", "--", "./calltree" };
	static const char ksyms[] = "ffff800080010000 T el0_svc\nffff800080020000 T do_x\n";
	struct df_info info = {
		.freq = 25000000, .start_time = 77, .nr_events = 1, .kernel_el = 1,
		.sample_index = 0, .sample_period = 100000, .argc = 5, .argv = argv,
		.flags = DF_F_CALLCHAIN | DF_F_TASK, .max_stack = 16,
	};
	struct df_end end = { .time = 9, .samples = 3, .lost = 7, .throttled = 1 };
	unsigned char recs[1024], *b;
	char path[300], err[128];
	struct df_writer w;
	size_t len = 0;
	int ret;

	snprintf(path, sizeof(path), "%s/chain.data", dir);
	pmuscope_event_parse("cycles", &info.evs[0], err, sizeof(err));
	len += put_chain_rec(recs, len, 0x401000, 0, 1, 0, 3);
	len += put_chain_rec(recs, len, 0x401100, 0, 1, 2, 2);
	len += put_chain_rec(recs, len, 0x401200, 0, 2, 0, 1);
	len += put_rec(recs, len, PMUSCOPE_REC_LOST, 0, 0);
	len += put_rec(recs, len, PMUSCOPE_REC_THROTTLED, 0, 0);
	ret = df_create(&w, path, &info);
	ret = ret ?: df_write_maps(&w, 42, DF_MAPS_EXEC, 5,
				  "00400000-00402000 r-xp 00000000 08:01 1 /bin/calltree\n", 53);
	ret = ret ?: df_write_comm(&w, 42, 42, 6, "calltree");
	ret = ret ?: df_write_records(&w, recs, len);
	ret = ret ?: df_write_kallsyms(&w, 8, ksyms, strlen(ksyms));
	ret = ret ?: df_write_end(&w, &end);
	ret = ret ?: df_finish(&w);
	b = ret ? NULL : slurp(path, size);
	/* The RECORDS chunk follows the header, MAPS and COMM. */
	if (b) {
		struct df_file f;
		struct df_view c;
		size_t off;

		*chain1 = 0;
		if (!df_open_mem(&f, b, *size, err, sizeof(err))) {
			off = f.first_chunk;
			while (df_next(&f, &off, &c, err, sizeof(err)) == 1)
				if (c.type == DF_CHUNK_RECORDS && !*chain1)
					*chain1 = (size_t)(c.payload - b) + 48;
		}
		df_close(&f);
	}
	return b;
}

static unsigned char *make_df(const char *dir, size_t *size)
{
	static char *argv[] = { "pmuscope", "record", "-c", "100000", "--", "./loop", "1" };
	struct df_info info = {
		.freq = 25000000, .start_time = 77, .nr_events = 2, .kernel_el = 1,
		.sample_index = 0, .sample_period = 100000, .argc = 7, .argv = argv,
	};
	struct df_end end = { .time = 9, .samples = 3, .lost = 7, .throttled = 1 };
	unsigned char recs[1024];
	char path[300], err[128];
	struct df_writer w;
	size_t len = 0;
	int ret;

	snprintf(path, sizeof(path), "%s/t.data", dir);
	pmuscope_event_parse("cycles", &info.evs[0], err, sizeof(err));
	pmuscope_event_parse("instructions:u", &info.evs[1], err, sizeof(err));
	for (int i = 0; i < 3; i++)
		len += put_rec(recs, len, PMUSCOPE_REC_SAMPLE, 0x401000 + 4 * i, 2);
	len += put_rec(recs, len, PMUSCOPE_REC_LOST, 0, 0);
	len += put_rec(recs, len, PMUSCOPE_REC_THROTTLED, 0, 0);
	ret = df_create(&w, path, &info);
	ret = ret ?: df_write_maps(&w, 42, DF_MAPS_EXEC, 5,
				  "00400000-00401000 r-xp 00000000 08:01 1 /bin/loop\n", 49);
	ret = ret ?: df_write_comm(&w, 42, 43, 6, "loop");
	ret = ret ?: df_write_records(&w, recs, len);
	ret = ret ?: df_write_exit(&w, 42, 43, 8, 0);
	ret = ret ?: df_write_end(&w, &end);
	ret = ret ?: df_finish(&w);
	return ret ? NULL : slurp(path, size);
}

/* A load record at @pc, as the SPU writes it (address, type, events, latency, source, context). */
static size_t spe_load(unsigned char *p, uint64_t pc)
{
	static const unsigned char tail[] = {
		0x49, 0x00, 0x52, 0x02, 0x00, 0x98, 0x14, 0x00, 0x43, 0x00,
		0x64, 0x2a, 0x00, 0x00, 0x00, 0x01,
	};
	size_t n = 0;

	p[n++] = 0xb0;
	for (int i = 0; i < 8; i++)
		p[n++] = pc >> (8 * i);
	memcpy(p + n, tail, sizeof(tail));
	return n + sizeof(tail);
}

static unsigned char *make_spef(const char *dir, size_t *size)
{
	static char *argv[] = { "pmuscope", "spe", "record", "--", "./loop" };
	unsigned char data[256], chunk[512];
	struct spef_header h = { .freq = 62500000, .start_time = 12345, .interval = 4096,
				 .spe_flags = PMUSCOPE_SPE_EL0 };
	struct pmuscope_spe_chunk c = { .cpu = 0, .time = 100 };
	char path[300], err[256];
	struct spef_writer w;
	size_t n = 0;
	int ret;

	for (int i = 0; i < 8; i++)
		n += spe_load(data + n, 0x400000 + 4 * i);
	c.data_size = n;
	c.size = (32 + n + 7) & ~7UL;
	memcpy(chunk, &c, sizeof(c));
	snprintf(path, sizeof(path), "%s/spe.data", dir);
	ret = spef_create(&w, path, &h, 5, argv, err, sizeof(err));
	for (int i = 0; !ret && i < 3; i++) {
		c.cpu = i % 2;
		ret = spef_write_chunk(&w, &c, data);
	}
	if (!ret)
		ret = spef_finish(&w, 4242, "400000-401000 r-xp 00000000 08:01 1 /bin/loop\n", 46,
				  err, sizeof(err));
	return ret ? NULL : slurp(path, size);
}

static void keep_file(const char *path, const unsigned char *b, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(b, 1, len, f) != len)
		result(0, "cannot write %s", path);
	if (f)
		fclose(f);
}

/* ------------------------------------------------------------ mutations */

static const uint64_t edges[] = {
	0, 1, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0xffff, 0x10000, 0x7fffffff,
	0x80000000, 0xfffffff8, 0xfffffffe, 0xffffffff, 0x100000000ULL,
	0x7fffffffffffffffULL, 0xffffffffffffffffULL,
};

/* A mutation of @src (@n bytes) into a new buffer of exactly *@len bytes. */
static unsigned char *mutate(const unsigned char *src, size_t n, size_t hdr, size_t *len)
{
	size_t m = n, at;
	unsigned char *b;
	unsigned int kind = rnd() % 6;

	if (kind == 4)
		m = rnd() % (n + 1);			/* cut short */
	else if (kind == 5)
		m = n + 1 + rnd() % 4096;		/* grown with zeros */
	b = malloc(m ? m : 1);
	if (!b)
		return NULL;
	memset(b, 0, m ? m : 1);
	memcpy(b, src, m < n ? m : n);
	*len = m;
	if (!m)
		return b;
	switch (kind) {
	case 0:					/* bytes flipped anywhere */
		for (unsigned int i = 1 + rnd() % 8; i; i--)
			b[rnd() % m] ^= 1U << (rnd() % 8);
		break;
	case 1:					/* a header word at a boundary */
	case 2:
		at = (rnd() % ((hdr < m ? hdr : m) / 4 + 1)) * 4;
		if (at + 4 <= m) {
			uint32_t v = edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];

			memcpy(b + at, &v, 4);
		}
		break;
	case 3:					/* a 64-bit word anywhere at a boundary */
		at = (rnd() % (m / 8 + 1)) * 8;
		if (at + 8 <= m) {
			uint64_t v = edges[rnd() % (sizeof(edges) / sizeof(edges[0]))];

			memcpy(b + at, &v, 8);
		}
		break;
	}
	return b;
}

/* The crafted SPE headers of the report: argc @argc, @zeros bytes of NULs after. */
static unsigned char *crafted_spef(const unsigned char *real, uint32_t argc, size_t zeros,
				   size_t *len)
{
	unsigned char *b = calloc(1, SPEF_HEADER_FIXED + zeros);
	struct spef_header h;

	if (!b)
		return NULL;
	memcpy(&h, real, sizeof(h));
	h.argc = argc;
	h.cmdline_size = zeros ? zeros - 8 : 0;
	h.header_size = SPEF_HEADER_FIXED + ((h.cmdline_size + 7) & ~7U);
	h.finished = 0;
	h.data_size = 0;
	h.maps_size = 0;
	memcpy(b, &h, sizeof(h));
	*len = SPEF_HEADER_FIXED + zeros;
	return b;
}

int main(int argc, char **argv)
{
	unsigned long runs = 100000;
	const char *keep = NULL;
	char dir[] = "/tmp/pmuscope-fuzz-XXXXXX";
	unsigned char *df, *sf, *cf;
	size_t dfn = 0, sfn = 0, cfn = 0, chain1 = 0;
	unsigned long acc[2] = { 0, 0 }, ref[2] = { 0, 0 }, silent[2] = { 0, 0 }, bad = 0;
	unsigned long bad_df = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--runs"))
			runs = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--seed"))
			rng = strtoull(argv[i + 1], NULL, 0) | 1;
		else if (!strcmp(argv[i], "--keep"))
			keep = argv[i + 1];
	}
	if (!mkdtemp(dir)) {
		result(0, "mkdtemp: %s", strerror(errno));
		return 1;
	}
	df = make_df(dir, &dfn);
	sf = make_spef(dir, &sfn);
	cf = make_df_chain(dir, &cfn, &chain1);
	result(df && read_df(df, dfn) == 0, "record file: a real recording (%zu bytes) is read", dfn);
	result(cf && chain1 && read_df(cf, cfn) == 0,
	       "record file: a recording with call chains and kallsyms (%zu bytes) is read", cfn);
	if (sf) {
		unsigned char *copy = malloc(sfn);

		memcpy(copy, sf, sfn);
		result(read_spef(copy, sfn) == 0, "SPE file: a real recording (%zu bytes) is read",
		       sfn);
		free(copy);
	} else {
		result(0, "SPE file: the writer failed");
	}
	if (!df || !sf || !cf || !chain1)
		goto out;

	/* The report's crafted headers: refused, the message names argc and its offset. */
	{
		static const struct { uint32_t argc; size_t zeros; } cr[] = {
			{ 0xffffffff, 1 << 20 }, { 0xfffffff8, 1 << 20 }, { 0xffffffff, 0 },
			{ 2, 8 },
		};

		for (size_t i = 0; i < sizeof(cr) / sizeof(cr[0]); i++) {
			char err[512] = "";
			struct spef s;
			size_t len;
			unsigned char *b = crafted_spef(sf, cr[i].argc, cr[i].zeros, &len);
			int ret = b ? spef_parse(b, len, &s, err, sizeof(err)) : -ENOMEM;

			char at[32];

			snprintf(at, sizeof(at), "offset %zu", offsetof(struct spef_header, argc));
			result(ret == -EBADMSG && strstr(err, "argc") && strstr(err, at),
			       "SPE file: argc 0x%x with %zu bytes of command line refused: %s",
			       cr[i].argc, cr[i].zeros ? cr[i].zeros - 8 : 0, err);
			if (keep && b && i < 2) {
				char path[400];

				snprintf(path, sizeof(path), "%s/crafted-argc-%x.spe", keep, cr[i].argc);
				keep_file(path, b, len);
			}
			s.file = NULL;
			spef_free(&s);
			free(b);
		}
	}

	/* Record files: a huge argc, a header beyond the file, nr_events 0xffffffff. */
	{
		static const struct { const char *name; size_t off; uint32_t v; } cr[] = {
			{ "argc", offsetof(struct df_header, argc), 0xffffffff },
			{ "header_size", offsetof(struct df_header, header_size), 0xfffffff8 },
			{ "nr_events", offsetof(struct df_header, nr_events), 0xffffffff },
			{ "cmdline_size", offsetof(struct df_header, cmdline_size), 0xffffffff },
		};

		for (size_t i = 0; i < sizeof(cr) / sizeof(cr[0]); i++) {
			unsigned char *b = malloc(dfn);
			char err[512] = "";
			struct df_file f;
			int ret;

			memcpy(b, df, dfn);
			memcpy(b + cr[i].off, &cr[i].v, 4);
			ret = df_open_mem(&f, b, dfn, err, sizeof(err));
			result(ret && err[0], "record file: %s 0x%x refused: %s", cr[i].name, cr[i].v,
			       err);
			df_close(&f);
			if (keep) {
				char path[400];

				snprintf(path, sizeof(path), "%s/crafted-%s.data", keep, cr[i].name);
				keep_file(path, b, dfn);
			}
			free(b);
		}
	}

	/*
	 * Call chains and the version-2 header, corrupt: refused, the
	 * message naming the byte (the chain's, in its RECORDS chunk) or the
	 * header field's offset. @off: from the first record's chain, or
	 * the file's start (@abs).
	 */
	{
		static const struct {
			const char *name;
			int abs;
			size_t off;
			unsigned int width;
			uint32_t v;
			const char *want;
		} cr[] = {
			{ "chain-version", 0, 0, 2, 0, "call chain at byte 48: version 0" },
			{ "chain-size", 0, 2, 2, 24, "call chain at byte 48: size 24, version 1's is 16" },
			{ "chain-frames", 0, 6, 2, 0xffff,
			  "call chain at byte 48: 0 kernel and 65535 user frames" },
			{ "chain-newer-size", 0, 0, 4, 2 | (48 << 16),
			  "call chain at byte 48: version 2 of size 48" },
			{ "flags", 1, offsetof(struct df_header, flags), 4, 0x80,
			  "flags 0x80 (offset 64): unknown bits" },
			{ "max_stack", 1, offsetof(struct df_header, max_stack), 4, 200,
			  "max_stack 200 (offset 68)" },
			{ "reserved", 1, offsetof(struct df_header, reserved) + 8, 4, 1,
			  "reserved word at offset 80" },
		};

		for (size_t i = 0; i < sizeof(cr) / sizeof(cr[0]); i++) {
			unsigned char *b = malloc(cfn);
			char err[512] = "";
			struct df_file f;
			struct df_view c;
			size_t at = cr[i].abs ? cr[i].off : chain1 + cr[i].off, off;
			int ret;

			memcpy(b, cf, cfn);
			memcpy(b + at, &cr[i].v, cr[i].width);
			ret = df_open_mem(&f, b, cfn, err, sizeof(err));
			off = f.first_chunk;
			while (!ret && (ret = df_next(&f, &off, &c, err, sizeof(err))) == 1) {
				struct pmuscope_rec r;
				size_t roff = 0;

				ret = 0;
				if (c.type != DF_CHUNK_RECORDS)
					continue;
				while ((ret = pmuscope_record_next(c.payload, c.len, &roff, &r, err,
								   sizeof(err))) == 1)
					;
			}
			result(ret < 0 && strstr(err, cr[i].want),
			       "record file: %s corrupt, refused: %s", cr[i].name, err);
			df_close(&f);
			if (keep) {
				char path[400];

				snprintf(path, sizeof(path), "%s/crafted-%s.data", keep, cr[i].name);
				keep_file(path, b, cfn);
			}
			free(b);
		}
		/*
		 * Chains the header does not allow (df_check_records(), every
		 * reader's check): longer than its max_stack (2: the first
		 * record has 3 frames), or in a recording without chains.
		 */
		{
			static const struct {
				const char *name;
				uint32_t flags, max;
				const char *want;
			} hc[] = {
				{ "chain-over-max-stack", DF_F_CALLCHAIN | DF_F_TASK, 2,
				  "call chain of 3 frames, more than the header's max_stack 2" },
				{ "chain-without-flag", DF_F_TASK, 0,
				  "a call chain, but the header says the recording has none" },
			};

			for (size_t i = 0; i < sizeof(hc) / sizeof(hc[0]); i++) {
				unsigned char *b = malloc(cfn);
				char err[512] = "", want[128];
				struct df_file f;
				struct df_view c;
				size_t off;
				int ret;

				memcpy(b, cf, cfn);
				memcpy(b + offsetof(struct df_header, flags), &hc[i].flags, 4);
				memcpy(b + offsetof(struct df_header, max_stack), &hc[i].max, 4);
				snprintf(want, sizeof(want), "record at offset %zu: %s",
					 chain1 - 48, hc[i].want);
				ret = df_open_mem(&f, b, cfn, err, sizeof(err));
				off = f.first_chunk;
				while (!ret && (ret = df_next(&f, &off, &c, err, sizeof(err))) == 1)
					ret = c.type == DF_CHUNK_RECORDS ?
					      df_check_records(&f, &c, err, sizeof(err)) : 0;
				result(ret < 0 && strstr(err, want),
				       "record file: %s, refused: %s", hc[i].name, err);
				df_close(&f);
				if (keep) {
					char path[400];

					snprintf(path, sizeof(path), "%s/crafted-%s.data", keep,
						 hc[i].name);
					keep_file(path, b, cfn);
				}
				free(b);
			}
		}
		/* Cut in the middle of the first chain: the record is past the end. */
		result(read_df(cf, chain1 + 8) == 1, "record file: cut in a chain, refused");
		if (keep) {
			char path[400];

			snprintf(path, sizeof(path), "%s/crafted-chain-cut.data", keep);
			keep_file(path, cf, chain1 + 8);
		}
	}

	for (unsigned long r = 0; r < runs; r++) {
		size_t len;
		unsigned char *b = r % 2 ? mutate(cf, cfn, sizeof(struct df_header) + 96, &len) :
				   mutate(df, dfn, sizeof(struct df_header) + 2 * 96, &len);
		int v;

		if (!b)
			break;
		v = read_df(b, len);
		free(b);
		if (v == 0)
			acc[0]++;
		else if (v == 1)
			ref[0]++;
		else if (v == -2)
			bad_df++;
		else
			silent[0]++;

		b = mutate(sf, sfn, SPEF_HEADER_FIXED + 48, &len);
		if (!b)
			break;
		v = read_spef(b, len);
		free(b);
		if (v == 0)
			acc[1]++;
		else if (v == 1)
			ref[1]++;
		else if (v == -2)
			bad++;
		else
			silent[1]++;
	}
	result(!silent[0] && !bad_df,
	       "record file: %lu mutations, half with call chains (%lu read, %lu refused), none refused without a message naming its byte, every checked chain within its record",
	       runs, acc[0], ref[0]);
	result(!silent[1] && !bad,
	       "SPE file: %lu mutations (%lu read, %lu refused), none refused without a message, every argv string set",
	       runs, acc[1], ref[1]);
out:
	free(df);
	free(sf);
	free(cf);
	return result_summary();
}
