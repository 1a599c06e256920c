// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the perf SPE source (tools/pmuscope/spe_perf.c): its
 * consumption of synthetic data and AUX rings, its format-file parser and
 * attributes, its error mapping, and its open/enable/drain/status path
 * over a stand-in for perf_event_open() (a memfd). No perf, no SPE: this
 * says nothing about real arm_spe hardware, which this code has never met.
 *
 * Prints "PASS name" or "FAIL name: why" per check, then the counts;
 * exits 1 when a check failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spe_perf.h"

static int passed, failed;

static void check(int ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		printf("PASS %s\n", name);
		passed++;
		return;
	}
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed++;
}

/* ---- synthetic rings ------------------------------------------------- */

#define DATA_SIZE	1024
#define AUX_SIZE	4096

struct fake {
	struct perf_event_mmap_page pc;
	unsigned char data[DATA_SIZE];
	unsigned char aux[AUX_SIZE];
	unsigned char scratch[AUX_SIZE];
	struct spe_perf_ring r;
	struct spe_perf_acct acct[8];
};

static void fake_init(struct fake *f, int cpu)
{
	memset(f, 0, sizeof(*f));
	f->r.pc = &f->pc;
	f->r.data = f->data;
	f->r.data_size = DATA_SIZE;
	f->r.aux = f->aux;
	f->r.aux_size = AUX_SIZE;
	f->r.scratch = f->scratch;
	f->r.cpu = cpu;
	f->r.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
}

static void data_put(struct fake *f, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		f->data[(f->pc.data_head + i) % DATA_SIZE] = b[i];
	f->pc.data_head += len;
}

/* A record with @nbody u64 words and the sample_id trailer (TID, TIME, CPU). */
static void put_rec(struct fake *f, uint32_t type, const uint64_t *body, int nbody,
		    uint64_t time, uint32_t cpu)
{
	struct perf_event_header h = { type, 0, (uint16_t)(8 + nbody * 8 + 24) };
	uint64_t sid[3] = { 0x0000002a0000002aULL, time, cpu };

	data_put(f, &h, sizeof(h));
	data_put(f, body, (size_t)nbody * 8);
	data_put(f, sid, sizeof(sid));
}

static void put_aux_rec(struct fake *f, uint64_t off, uint64_t size, uint64_t flags,
			uint64_t time, uint32_t cpu)
{
	uint64_t b[3] = { off, size, flags };

	put_rec(f, PERF_RECORD_AUX, b, 3, time, cpu);
}

/* Write @len bytes of SPE data (@seed pattern, never 0) at aux_head. */
static uint64_t aux_put(struct fake *f, uint64_t len, unsigned char seed)
{
	uint64_t off = f->pc.aux_head;

	for (uint64_t i = 0; i < len; i++)
		f->aux[(off + i) % AUX_SIZE] = (unsigned char)(1 + (seed + i) % 251);
	f->pc.aux_head += len;
	return off;
}

static int pattern_ok(const unsigned char *d, uint64_t len, unsigned char seed)
{
	for (uint64_t i = 0; i < len; i++)
		if (d[i] != (unsigned char)(1 + (seed + i) % 251))
			return 0;
	return 1;
}

/* Pad with zeros at aux_head (arm_spe_pmu's perf_aux_output_skip()). */
static void aux_pad(struct fake *f, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		f->aux[(f->pc.aux_head + i) % AUX_SIZE] = 0;
	f->pc.aux_head += len;
}

#define MAXC 16
struct got {
	int n;
	struct pmuscope_spe_chunk c[MAXC];
	unsigned char d[MAXC][AUX_SIZE];
	int fail_at;		/* emit returns -EIO for this chunk (1-based) */
};

static int collect(void *ctx, const struct pmuscope_spe_chunk *c, const void *data)
{
	struct got *g = ctx;

	if (g->fail_at && g->n + 1 == g->fail_at)
		return -EIO;
	if (g->n == MAXC)
		return -ENOSPC;
	g->c[g->n] = *c;
	if (c->data_size)
		memcpy(g->d[g->n], data, c->data_size);
	g->n++;
	return 0;
}

static int drain(struct fake *f, struct got *g, uint64_t now, uint32_t extra)
{
	return spe_perf_consume(&f->r, f->acct, 8, now, extra, collect, g);
}

static struct fake F;
static struct got G;

static void t_simple(void)
{
	struct fake *f = &F;
	struct got *g = &G;
	int ret;

	fake_init(f, 3);
	memset(g, 0, sizeof(*g));
	put_aux_rec(f, aux_put(f, 256, 7), 256, 0, 1000, 3);
	ret = drain(f, g, 55, 0);
	check(ret == 1 && g->n == 1, "simple: one record, one chunk", "ret %d n %d", ret, g->n);
	check(g->c[0].cpu == 3 && g->c[0].data_size == 256 && g->c[0].size == 32 + 256 &&
	      g->c[0].flags == 0 && g->c[0].lost == 0, "simple: chunk header",
	      "cpu %u data %u size %u flags %x", g->c[0].cpu, g->c[0].data_size,
	      g->c[0].size, g->c[0].flags);
	check(pattern_ok(g->d[0], 256, 7), "simple: chunk data", "data differs");
	check(g->c[0].time == 55, "simple: no time conversion: time is now", "time %llu",
	      (unsigned long long)g->c[0].time);
	check(f->pc.aux_tail == 256 && f->pc.data_tail == f->pc.data_head,
	      "simple: aux_tail and data_tail at what was consumed", "aux_tail %llu data_tail %llu/%llu",
	      (unsigned long long)f->pc.aux_tail, (unsigned long long)f->pc.data_tail,
	      (unsigned long long)f->pc.data_head);
	check(f->acct[3].bytes == 256 && f->acct[3].fills == 1 && f->acct[3].present,
	      "simple: accounting", "bytes %llu fills %u", (unsigned long long)f->acct[3].bytes,
	      f->acct[3].fills);
	memset(g, 0, sizeof(*g));
	ret = drain(f, g, 56, 0);
	check(ret == 0 && g->n == 0 && f->pc.aux_tail == 256, "simple: a second drain finds nothing",
	      "ret %d", ret);

	/* chunk size padded to 8 */
	fake_init(f, 0);
	memset(g, 0, sizeof(*g));
	put_aux_rec(f, aux_put(f, 20, 1), 20, 0, 0, 0);
	drain(f, g, 0, 0);
	check(g->n == 1 && g->c[0].size == 32 + 24 && g->c[0].data_size == 20,
	      "chunk size is a multiple of 8", "size %u", g->c[0].size);
}

static void t_time(void)
{
	struct spe_perf_tconv t = { true, 10, 1000000, 5000 };	/* ~0.95 ns per count */
	struct fake *f = &F;
	struct got *g = &G;
	int bad = 0;

	for (uint64_t cyc = 0; cyc < 100000000000ULL; cyc = cyc * 3 + 12345) {
		/* tsc_to_perf_time() without the short-counter part */
		uint64_t ns = t.zero + (cyc >> t.shift) * t.mult +
			(((cyc & ((1ULL << t.shift) - 1)) * t.mult) >> t.shift);
		uint64_t back = spe_perf_ns_to_cnt(ns, &t);

		bad += back > cyc || cyc - back > 1;
	}
	check(!bad, "time: perf ns back to counter (within 1)", "%d mismatches", bad);

	fake_init(f, 1);
	memset(g, 0, sizeof(*g));
	f->pc.cap_user_time_zero = 1;
	f->pc.time_mult = t.mult;
	f->pc.time_shift = t.shift;
	f->pc.time_zero = t.zero;
	put_aux_rec(f, aux_put(f, 64, 0), 64, 0, 123456789, 1);
	drain(f, g, 1, 0);
	check(g->n == 1 && g->c[0].time == spe_perf_ns_to_cnt(123456789, &t),
	      "time: chunk time from the record's perf time", "time %llu",
	      (unsigned long long)g->c[0].time);
}

static void t_wrap_multi(void)
{
	struct fake *f = &F;
	struct got *g = &G;
	int ret;

	fake_init(f, 2);
	memset(g, 0, sizeof(*g));
	put_aux_rec(f, aux_put(f, 3968, 3), 3968, 0, 0, 2);
	drain(f, g, 0, 0);
	memset(g, 0, sizeof(*g));
	put_aux_rec(f, aux_put(f, 256, 9), 256, 0, 0, 2);	/* 3968..4224: wraps */
	ret = drain(f, g, 0, 0);
	check(ret == 1 && g->c[0].data_size == 256 && pattern_ok(g->d[0], 256, 9),
	      "AUX wrap: a record across the end of the ring", "ret %d size %u", ret,
	      g->c[0].data_size);
	check(f->pc.aux_tail == 4224, "AUX wrap: aux_tail runs on (free-running)", "aux_tail %llu",
	      (unsigned long long)f->pc.aux_tail);

	memset(g, 0, sizeof(*g));
	put_aux_rec(f, aux_put(f, 128, 11), 128, 0, 0, 2);
	put_aux_rec(f, aux_put(f, 64, 12), 64, 0, 0, 2);
	put_aux_rec(f, aux_put(f, 512, 13), 512, 0, 0, 2);
	ret = drain(f, g, 0, 0);
	check(ret == 3 && g->c[0].data_size == 128 && g->c[1].data_size == 64 &&
	      g->c[2].data_size == 512 && pattern_ok(g->d[0], 128, 11) &&
	      pattern_ok(g->d[1], 64, 12) && pattern_ok(g->d[2], 512, 13),
	      "three records in one drain: three chunks in order", "ret %d", ret);
	check(f->pc.aux_tail == 4224 + 704 && f->acct[2].fills == 5,
	      "three records: aux_tail and fills", "aux_tail %llu fills %u",
	      (unsigned long long)f->pc.aux_tail, f->acct[2].fills);
}

static void t_flags(void)
{
	struct fake *f = &F;
	struct got *g = &G;
	int ret;

	fake_init(f, 0);
	memset(g, 0, sizeof(*g));
	put_aux_rec(f, aux_put(f, 64, 1), 64, PERF_AUX_FLAG_TRUNCATED, 0, 0);
	put_aux_rec(f, aux_put(f, 64, 2), 64, 0, 0, 0);
	put_aux_rec(f, aux_put(f, 64, 3), 64, PERF_AUX_FLAG_TRUNCATED | PERF_AUX_FLAG_PARTIAL, 0, 0);
	put_aux_rec(f, aux_put(f, 64, 4), 64, PERF_AUX_FLAG_COLLISION, 0, 0);
	put_aux_rec(f, aux_put(f, 64, 5), 64, 0, 0, 0);
	ret = drain(f, g, 0, 0);
	check(ret == 5, "flags: five chunks", "ret %d", ret);
	check(g->c[0].flags == PMUSCOPE_SPE_C_STOPPED && f->r.need_enable,
	      "TRUNCATED: C_STOPPED, re-enable wanted", "flags %x", g->c[0].flags);
	check(g->c[1].flags == PMUSCOPE_SPE_C_LOST, "after TRUNCATED: the next chunk is C_LOST",
	      "flags %x", g->c[1].flags);
	check(g->c[2].flags == (PMUSCOPE_SPE_C_STOPPED | PMUSCOPE_SPE_C_LOST),
	      "TRUNCATED|PARTIAL (PMBSR.DL): C_STOPPED|C_LOST", "flags %x", g->c[2].flags);
	check(g->c[3].flags == (PMUSCOPE_SPE_C_COLLISION | PMUSCOPE_SPE_C_LOST),
	      "COLLISION after truncation: C_COLLISION|C_LOST", "flags %x", g->c[3].flags);
	check(g->c[4].flags == 0, "flags do not stick", "flags %x", g->c[4].flags);
	check(f->acct[0].truncated == 2 && f->acct[0].partial == 1 && f->acct[0].collisions == 1 &&
	      f->acct[0].fills == 5 && f->acct[0].bytes == 320, "flags: accounting",
	      "trunc %u partial %u coll %u", f->acct[0].truncated, f->acct[0].partial,
	      f->acct[0].collisions);

	memset(g, 0, sizeof(*g));
	fake_init(f, 0);
	put_aux_rec(f, 0, 0, PERF_AUX_FLAG_TRUNCATED, 0, 0);
	ret = drain(f, g, 0, 0);
	check(ret == 1 && g->c[0].data_size == 0 && g->c[0].size == 32 &&
	      g->c[0].flags == PMUSCOPE_SPE_C_STOPPED && f->acct[0].fills == 0,
	      "empty TRUNCATED record: an empty C_STOPPED chunk", "ret %d flags %x", ret,
	      g->c[0].flags);
	memset(g, 0, sizeof(*g));
	put_aux_rec(f, 0, 0, 0, 0, 0);		/* nothing to say: no chunk */
	ret = drain(f, g, 0, PMUSCOPE_SPE_C_FINAL);
	check(ret == 0, "empty record without flags: no chunk", "ret %d", ret);
	memset(g, 0, sizeof(*g));
	put_aux_rec(f, aux_put(f, 64, 1), 64, 0, 0, 0);
	ret = drain(f, g, 0, PMUSCOPE_SPE_C_FINAL);
	check(ret == 1 && g->c[0].flags == (PMUSCOPE_SPE_C_LOST | PMUSCOPE_SPE_C_FINAL),
	      "extra flags (C_FINAL) and the pending C_LOST", "flags %x", g->c[0].flags);
}

static void t_lost_gap(void)
{
	struct fake *f = &F;
	struct got *g = &G;
	uint64_t lost[2] = { 0, 3 };
	int ret;

	fake_init(f, 1);
	memset(g, 0, sizeof(*g));
	put_rec(f, PERF_RECORD_LOST, lost, 2, 0, 1);
	put_aux_rec(f, aux_put(f, 64, 1), 64, 0, 0, 1);
	ret = drain(f, g, 0, 0);
	check(ret == 1 && g->c[0].flags == PMUSCOPE_SPE_C_LOST && f->acct[1].lost_records == 3,
	      "PERF_RECORD_LOST: the next chunk is C_LOST", "flags %x lost %llu", g->c[0].flags,
	      (unsigned long long)f->acct[1].lost_records);

	/* Padding (zeros) between records: skipped. */
	memset(g, 0, sizeof(*g));
	aux_pad(f, 64);
	put_aux_rec(f, aux_put(f, 64, 2), 64, 0, 0, 1);
	ret = drain(f, g, 0, 0);
	check(ret == 1 && g->c[0].data_size == 64 && g->c[0].flags == 0 &&
	      f->acct[1].pad_bytes == 64 && f->pc.aux_tail == 192,
	      "zero padding between records is skipped", "ret %d pad %llu", ret,
	      (unsigned long long)f->acct[1].pad_bytes);

	/* Data whose record was lost: emitted, C_LOST. */
	memset(g, 0, sizeof(*g));
	aux_put(f, 128, 5);
	put_rec(f, PERF_RECORD_LOST, lost, 2, 0, 1);
	put_aux_rec(f, aux_put(f, 64, 6), 64, 0, 0, 1);
	ret = drain(f, g, 0, 0);
	check(ret == 2 && g->c[0].data_size == 128 && g->c[0].flags == PMUSCOPE_SPE_C_LOST &&
	      pattern_ok(g->d[0], 128, 5) && g->c[1].data_size == 64 && g->c[1].flags == 0 &&
	      f->acct[1].gap_bytes == 128 && f->pc.aux_tail == 384,
	      "data of a lost record: its own C_LOST chunk", "ret %d flags %x/%x", ret,
	      g->c[0].flags, g->c[1].flags);
}

static void t_aux_head(void)
{
	struct fake *f = &F;
	struct got *g = &G;
	uint64_t dt;
	int ret;

	fake_init(f, 0);
	memset(g, 0, sizeof(*g));
	put_aux_rec(f, aux_put(f, 64, 1), 64, 0, 0, 0);
	put_aux_rec(f, 64, 64, 0, 0, 0);		/* its data not yet below aux_head */
	dt = f->pc.data_head - (8 + 24 + 24);
	ret = drain(f, g, 0, 0);
	check(ret == 1 && f->pc.aux_tail == 64 && f->pc.data_tail == dt,
	      "record ahead of aux_head: waits, tails stop before it", "ret %d aux_tail %llu data_tail %llu/%llu",
	      ret, (unsigned long long)f->pc.aux_tail, (unsigned long long)f->pc.data_tail,
	      (unsigned long long)dt);
	memset(g, 0, sizeof(*g));
	aux_put(f, 64, 2);
	ret = drain(f, g, 0, 0);
	check(ret == 1 && pattern_ok(g->d[0], 64, 2) && f->pc.aux_tail == 128 &&
	      f->pc.data_tail == f->pc.data_head, "then aux_head moves: consumed",
	      "ret %d aux_tail %llu", ret, (unsigned long long)f->pc.aux_tail);

	/* A record whose data never comes: given up after a few drains. */
	memset(g, 0, sizeof(*g));
	put_aux_rec(f, 128, 64, 0, 0, 0);
	for (int i = 0; i < 5 && f->pc.data_tail != f->pc.data_head; i++)
		drain(f, g, 0, 0);
	check(f->pc.data_tail == f->pc.data_head && f->pc.aux_tail == 128 && f->r.malformed == 1,
	      "a record whose data never comes is given up", "data_tail %llu/%llu",
	      (unsigned long long)f->pc.data_tail, (unsigned long long)f->pc.data_head);

	/* An emit error: what came before it is consumed, no more. */
	fake_init(f, 0);
	memset(g, 0, sizeof(*g));
	g->fail_at = 2;
	put_aux_rec(f, aux_put(f, 64, 1), 64, 0, 0, 0);
	dt = f->pc.data_head;
	put_aux_rec(f, aux_put(f, 64, 2), 64, 0, 0, 0);
	ret = drain(f, g, 0, 0);
	check(ret == -EIO && f->pc.aux_tail == 64 && f->pc.data_tail == dt,
	      "emit error: returned, tails at the last chunk emitted", "ret %d aux_tail %llu", ret,
	      (unsigned long long)f->pc.aux_tail);
	memset(g, 0, sizeof(*g));
	ret = drain(f, g, 0, 0);
	check(ret == 1 && pattern_ok(g->d[0], 64, 2), "emit error: the next drain resumes", "ret %d", ret);
}

static void t_data_wrap(void)
{
	struct fake *f = &F;
	struct got *g = &G;
	uint64_t start = DATA_SIZE - 20;	/* a header and a record across the end */
	int ok = 1;

	fake_init(f, 0);
	f->pc.data_head = f->pc.data_tail = start;
	for (int i = 0; i < 3; i++) {
		int ret;

		memset(g, 0, sizeof(*g));
		put_aux_rec(f, aux_put(f, 64, (unsigned char)i), 64, 0, 0, 0);
		put_rec(f, PERF_RECORD_ITRACE_START, (uint64_t[]){ 42 }, 1, 0, 0);
		ret = drain(f, g, 0, 0);
		ok &= ret == 1 && pattern_ok(g->d[0], 64, (unsigned char)i) &&
			f->pc.data_tail == f->pc.data_head;
	}
	check(ok && f->r.itrace_starts == 3 && f->pc.aux_tail == 192,
	      "data ring wrap (records across the end)", "itrace %llu aux_tail %llu",
	      (unsigned long long)f->r.itrace_starts, (unsigned long long)f->pc.aux_tail);
}

static void t_malformed(void)
{
	struct fake *f = &F;
	struct got *g = &G;
	static const uint16_t sizes[] = { 0, 4, 12, 2048 };
	int ret;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct perf_event_header h = { PERF_RECORD_AUX, 0, sizes[i] };
		char name[80];

		fake_init(f, 0);
		memset(g, 0, sizeof(*g));
		data_put(f, &h, sizeof(h));
		f->pc.data_head += 56;		/* zeros: more "records" of size 0 */
		ret = drain(f, g, 0, 0);
		snprintf(name, sizeof(name), "malformed header size %u: skipped to data_head",
			 sizes[i]);
		check(ret == 0 && f->pc.data_tail == f->pc.data_head && f->r.malformed == 1 &&
		      f->pc.aux_tail == 0, name, "ret %d data_tail %llu malformed %llu", ret,
		      (unsigned long long)f->pc.data_tail, (unsigned long long)f->r.malformed);
		put_aux_rec(f, aux_put(f, 64, 1), 64, 0, 0, 0);
		memset(g, 0, sizeof(*g));
		ret = drain(f, g, 0, 0);
		snprintf(name, sizeof(name), "malformed header size %u: then C_LOST, going on", sizes[i]);
		check(ret == 1 && g->c[0].flags == PMUSCOPE_SPE_C_LOST, name, "ret %d flags %x",
		      ret, g->c[0].flags);
	}

	/* An AUX record too short for its fields, and one larger than the AUX ring. */
	fake_init(f, 0);
	memset(g, 0, sizeof(*g));
	{
		struct perf_event_header h = { PERF_RECORD_AUX, 0, 16 };
		uint64_t z = 0;

		data_put(f, &h, sizeof(h));
		data_put(f, &z, 8);
	}
	put_aux_rec(f, 0, AUX_SIZE * 2, 0, 0, 0);
	f->pc.aux_head = AUX_SIZE * 2;
	ret = drain(f, g, 0, 0);
	check(ret == 0 && f->r.malformed == 2 && f->pc.data_tail == f->pc.data_head &&
	      f->pc.aux_tail == 0, "AUX record too short, AUX record larger than the ring: skipped",
	      "ret %d malformed %llu", ret, (unsigned long long)f->r.malformed);

	/* data_head lapping data_tail. */
	fake_init(f, 0);
	memset(g, 0, sizeof(*g));
	f->pc.data_head = DATA_SIZE * 3;
	ret = drain(f, g, 0, 0);
	check(ret == 0 && f->pc.data_tail == f->pc.data_head && f->r.malformed == 1,
	      "data_head more than a ring ahead: skipped", "ret %d", ret);

	/* A header cut by data_head. */
	fake_init(f, 0);
	memset(g, 0, sizeof(*g));
	f->pc.data_head = 4;
	ret = drain(f, g, 0, 0);
	check(ret == 0 && f->pc.data_tail == 4, "4 bytes at data_head: skipped", "ret %d", ret);
}

/* Random data ring contents and heads: no hang, no read past the rings. */
static void t_fuzz(void)
{
	struct fake *f = &F;
	struct got *g = &G;
	unsigned int seed = 12345;
	int bad = 0;

	for (int it = 0; it < 3000; it++) {
		uint64_t h0;

		fake_init(f, it % 8);
		memset(g, 0, sizeof(*g));
		for (int i = 0; i < DATA_SIZE; i++)
			f->data[i] = (unsigned char)rand_r(&seed);
		if (it % 2)	/* plausible AUX headers now and then */
			for (int i = 0; i + 8 <= DATA_SIZE; i += 56)
				memcpy(f->data + i, &(struct perf_event_header){ PERF_RECORD_AUX, 0,
				       (uint16_t)(rand_r(&seed) % 3 ? 56 : rand_r(&seed)) }, 8);
		for (int i = 0; i < AUX_SIZE; i++)
			f->aux[i] = (unsigned char)rand_r(&seed);
		f->pc.data_tail = (uint64_t)rand_r(&seed) % 5000;
		f->pc.data_head = f->pc.data_tail + (uint64_t)rand_r(&seed) % (DATA_SIZE + 200);
		f->pc.aux_head = (uint64_t)rand_r(&seed) % 20000;
		f->r.aux_pos = f->pc.aux_tail = f->pc.aux_head - (f->pc.aux_head % AUX_SIZE) / 2;
		h0 = f->pc.data_head;
		for (int d = 0; d < 4; d++)
			if (spe_perf_consume(&f->r, f->acct, 8, 0, 0, collect, g) < 0 && g->n < MAXC)
				bad++;
		bad += f->pc.data_tail != h0 || f->pc.aux_tail > f->pc.aux_head;
	}
	check(!bad, "fuzz: random data rings end consumed, aux_tail <= aux_head", "%d bad", bad);
}

/* ---- format files and attributes ------------------------------------- */

static void t_format(void)
{
	static const struct {
		const char *text;
		int ret;
		uint8_t cfg, nr, lo0, hi0, lo1, hi1;
	} tab[] = {
		{ "config:0\n", 0, 0, 1, 0, 0, 0, 0 },
		{ "config:16\n", 0, 0, 1, 16, 16, 0, 0 },
		{ "config:32", 0, 0, 1, 32, 32, 0, 0 },
		{ "config1:0-63\n", 0, 1, 1, 0, 63, 0, 0 },
		{ "config2:0-11\n", 0, 2, 1, 0, 11, 0, 0 },
		{ "config2:0-15", 0, 2, 1, 0, 15, 0, 0 },
		{ "config3:0-63\n", 0, 3, 1, 0, 63, 0, 0 },
		{ "config:0-3,8-11\n", 0, 0, 2, 0, 3, 8, 11 },
		{ "config4:0", -EINVAL, 0, 0, 0, 0, 0, 0 },
		{ "cfg:1", -EINVAL, 0, 0, 0, 0, 0, 0 },
		{ "config:", -EINVAL, 0, 0, 0, 0, 0, 0 },
		{ "config:5-3", -EINVAL, 0, 0, 0, 0, 0, 0 },
		{ "config:64", -EINVAL, 0, 0, 0, 0, 0, 0 },
		{ "config:0-64", -EINVAL, 0, 0, 0, 0, 0, 0 },
		{ "config1:0-63,0", -EINVAL, 0, 0, 0, 0, 0, 0 },
		{ "config:1x", -EINVAL, 0, 0, 0, 0, 0, 0 },
		{ "config:1-", -EINVAL, 0, 0, 0, 0, 0, 0 },
	};
	struct spe_fmt_field f;
	struct spe_perf_attr a;

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		char name[80];
		int ret = spe_perf_parse_format(tab[i].text, &f);
		int ok = ret == tab[i].ret;

		if (!ret && ok)
			ok = f.present && f.cfg == tab[i].cfg && f.nr == tab[i].nr &&
				f.lo[0] == tab[i].lo0 && f.hi[0] == tab[i].hi0 &&
				(f.nr < 2 || (f.lo[1] == tab[i].lo1 && f.hi[1] == tab[i].hi1));
		snprintf(name, sizeof(name), "format \"%.*s\"", (int)strcspn(tab[i].text, "\n"),
			 tab[i].text);
		check(ok, name, "ret %d cfg %u nr %u lo %u hi %u", ret, f.cfg, f.nr, f.lo[0], f.hi[0]);
	}

	memset(&a, 0, sizeof(a));
	spe_perf_parse_format("config:0-3,8-11", &f);
	check(spe_fmt_set(&f, &a, 0xab) == 0 && a.a.config == 0xa0b && spe_fmt_get(&f, &a) == 0xab,
	      "format: a value over two ranges", "config 0x%llx", (unsigned long long)a.a.config);
	check(spe_fmt_set(&f, &a, 0x1ab) == -ERANGE, "format: too large a value: -ERANGE", "");
	spe_perf_parse_format("config1:0-63", &f);
	check(spe_fmt_set(&f, &a, ~0ULL) == 0 && a.a.config1 == ~0ULL && spe_fmt_width(&f) == 64,
	      "format: a 64-bit field", "config1 0x%llx", (unsigned long long)a.a.config1);
	spe_perf_parse_format("config3:0-63", &f);
	check(spe_fmt_set(&f, &a, 0x1234) == 0 && SPE_PERF_CONFIG3(&a) == 0x1234 &&
	      offsetof(struct perf_event_attr, config2) == 64 &&
	      /* cppcheck-suppress comparePointers ; both point into a: config3's offset in it */
	      (char *)&SPE_PERF_CONFIG3(&a) - (char *)&a == 128,
	      "format: config3 at offset 128 (PERF_ATTR_SIZE_VER8)", "");
}

static void t_cpulist(void)
{
	uint64_t b[SPE_MAX_CPUS / 64] = { 0 };
	int r;

	r = spe_perf_parse_cpulist("0-3,8\n", b, SPE_MAX_CPUS / 64);
	check(!r && b[0] == 0x10f && !b[1], "cpulist 0-3,8", "0x%llx", (unsigned long long)b[0]);
	r = spe_perf_parse_cpulist("\n", b, SPE_MAX_CPUS / 64);
	check(!r && !b[0], "cpulist empty", "");
	r = spe_perf_parse_cpulist("64,4095", b, SPE_MAX_CPUS / 64);
	check(!r && b[1] == 1 && b[63] == 1ULL << 63, "cpulist 64,4095", "");
	check(spe_perf_parse_cpulist("5-4", b, SPE_MAX_CPUS / 64) == -EINVAL &&
	      spe_perf_parse_cpulist("4096", b, SPE_MAX_CPUS / 64) == -EINVAL &&
	      spe_perf_parse_cpulist("1,x", b, SPE_MAX_CPUS / 64) == -EINVAL,
	      "cpulist: bad ones refused", "");
}

/* arm_spe_pmu's format files in Linux 6.12. */
static const char *const fmt612[SPE_F_NR] = {
	[SPE_F_TS] = "config:0", [SPE_F_PA] = "config:1", [SPE_F_PCT] = "config:2",
	[SPE_F_JITTER] = "config:16", [SPE_F_BRANCH] = "config:32",
	[SPE_F_LOAD] = "config:33", [SPE_F_STORE] = "config:34",
	[SPE_F_EVENT] = "config1:0-63", [SPE_F_INV_EVENT] = "config3:0-63",
	[SPE_F_MIN_LAT] = "config2:0-11",
};

static void pmu612(struct spe_perf_pmu *p, bool inv, bool discard)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->name, "arm_spe_0");
	p->type = 9;
	p->min_interval = 1024;
	for (int i = 0; i < SPE_F_NR; i++)
		if (fmt612[i])
			spe_perf_parse_format(fmt612[i], &p->f[i]);
	if (!inv)
		p->f[SPE_F_INV_EVENT].present = false;
	if (discard)
		spe_perf_parse_format("config:35", &p->f[SPE_F_DISCARD]);
}

static void t_attr(void)
{
	static const struct {
		const char *name;
		uint32_t flags, ops;
		uint64_t interval, events, nevents;
		uint32_t min_lat;
		bool inv, discard;
		int ret;
		uint64_t config, config1, config2, config3, period;
		int excl_user, excl_kernel;
	} tab[] = {
		{ "attr: EL0, interval 0 = min_interval", PMUSCOPE_SPE_EL0, 0, 0, 0, 0, 0, true, false,
		  0, 0, 0, 0, 0, 1024, 0, 1 },
		{ "attr: EL1 only", PMUSCOPE_SPE_EL1, 0, 4096, 0, 0, 0, true, false,
		  0, 0, 0, 0, 0, 4096, 1, 0 },
		{ "attr: TS PA PCT JITTER", PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1 | PMUSCOPE_SPE_TS |
		  PMUSCOPE_SPE_PA | PMUSCOPE_SPE_PCT | PMUSCOPE_SPE_JITTER, 0, 2048, 0, 0, 0, true,
		  false, 0, 0x10007, 0, 0, 0, 2048, 0, 0 },
		{ "attr: CX has no field (nothing set)", PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_CX, 0, 0, 0,
		  0, 0, true, false, 0, 0, 0, 0, 0, 1024, 0, 1 },
		{ "attr: ops branch load store", PMUSCOPE_SPE_EL0, 7, 0, 0, 0, 0, true, false,
		  0, 7ULL << 32, 0, 0, 0, 1024, 0, 1 },
		{ "attr: load only", PMUSCOPE_SPE_EL0, PMUSCOPE_SPE_OP_LOAD, 0, 0, 0, 0, true, false,
		  0, 1ULL << 33, 0, 0, 0, 1024, 0, 1 },
		{ "attr: events, nevents, min_latency", PMUSCOPE_SPE_EL0, 0, 0, 0x42, 0x8, 100, true,
		  false, 0, 0, 0x42, 100, 0x8, 1024, 0, 1 },
		{ "attr: nevents without inv_event_filter: EOPNOTSUPP", PMUSCOPE_SPE_EL0, 0, 0, 0, 8,
		  0, false, false, -EOPNOTSUPP, 0, 0, 0, 0, 0, 0, 0 },
		{ "attr: min_latency over 12 bits: EINVAL", PMUSCOPE_SPE_EL0, 0, 0, 0, 0, 5000, true,
		  false, -EINVAL, 0, 0, 0, 0, 0, 0, 0 },
		{ "attr: interval not a multiple of 256", PMUSCOPE_SPE_EL0, 0, 1000, 0, 0, 0, true,
		  false, -EINVAL, 0, 0, 0, 0, 0, 0, 0 },
		{ "attr: interval over INTERVAL_MAX", PMUSCOPE_SPE_EL0, 0, 0x100000000ULL, 0, 0, 0,
		  true, false, -EINVAL, 0, 0, 0, 0, 0, 0, 0 },
		{ "attr: interval below min_interval", PMUSCOPE_SPE_EL0, 0, 256, 0, 0, 0, true, false,
		  -EINVAL, 0, 0, 0, 0, 0, 0, 0 },
		{ "attr: neither EL0 nor EL1", PMUSCOPE_SPE_TS, 0, 0, 0, 0, 0, true, false, -EINVAL,
		  0, 0, 0, 0, 0, 0, 0 },
		{ "attr: unknown flag", PMUSCOPE_SPE_EL0 | (1U << 20), 0, 0, 0, 0, 0, true, false,
		  -EINVAL, 0, 0, 0, 0, 0, 0, 0 },
		{ "attr: unknown op", PMUSCOPE_SPE_EL0, 8, 0, 0, 0, 0, true, false, -EINVAL,
		  0, 0, 0, 0, 0, 0, 0 },
		{ "attr: DISCARD without a discard field: EOPNOTSUPP", PMUSCOPE_SPE_EL0 |
		  PMUSCOPE_SPE_DISCARD, 0, 0, 0, 0, 0, true, false, -EOPNOTSUPP, 0, 0, 0, 0, 0, 0, 0 },
		{ "attr: DISCARD with one", PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_DISCARD, 0, 0, 0, 0, 0,
		  true, true, 0, 1ULL << 35, 0, 0, 0, 1024, 0, 1 },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		struct spe_opts o;
		struct spe_perf_pmu p;
		struct spe_perf_attr a;
		char why[256] = "";
		int ret, ok;

		memset(&o, 0, sizeof(o));
		o.flags = tab[i].flags;
		o.ops = tab[i].ops;
		o.interval = tab[i].interval;
		o.events = tab[i].events;
		o.nevents = tab[i].nevents;
		o.min_latency = tab[i].min_lat;
		pmu612(&p, tab[i].inv, tab[i].discard);
		ret = spe_perf_build_attr(&p, &o, 65536, &a, why, sizeof(why));
		ok = ret == tab[i].ret && (ret == 0 || why[0]);
		if (!ret && ok)
			ok = a.a.type == 9 && a.a.size == SPE_PERF_ATTR_SIZE && a.a.disabled &&
				!a.a.freq && a.a.sample_id_all && a.a.watermark &&
				a.a.aux_watermark == 16384 &&
				a.a.sample_type == (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU) &&
				a.a.config == tab[i].config && a.a.config1 == tab[i].config1 &&
				a.a.config2 == tab[i].config2 && SPE_PERF_CONFIG3(&a) == tab[i].config3 &&
				a.a.sample_period == tab[i].period &&
				a.a.exclude_user == (unsigned)tab[i].excl_user &&
				a.a.exclude_kernel == (unsigned)tab[i].excl_kernel && !a.a.exclude_idle;
		check(ok, tab[i].name, "ret %d (%s) config %llx/%llx/%llx/%llx period %llu", ret, why,
		      (unsigned long long)a.a.config, (unsigned long long)a.a.config1,
		      (unsigned long long)a.a.config2, (unsigned long long)SPE_PERF_CONFIG3(&a),
		      (unsigned long long)a.a.sample_period);
	}
}

static void t_explain(void)
{
	static const struct {
		const char *name;
		int err, paranoid;
		uint64_t cap;
		uint32_t flags;
		bool per_cpu, at_mmap;
		int ret;
		const char *says;
	} tab[] = {
		{ "explain: EACCES, paranoid 3", EACCES, 3, 0, PMUSCOPE_SPE_EL0, false, false,
		  -EACCES, "privileged users only" },
		{ "explain: EACCES per CPU, paranoid 1", EACCES, 1, 0, PMUSCOPE_SPE_EL0, true, false,
		  -EACCES, "profiling CPUs needs" },
		{ "explain: EACCES EL1 per task, paranoid 2", EACCES, 2, 0, PMUSCOPE_SPE_EL1, false,
		  false, -EACCES, "EL1 sampling, PA, PCT" },
		{ "explain: EACCES PA per task, paranoid 2", EACCES, 2, 0,
		  PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_PA, false, false, -EACCES, "EL1 sampling, PA, PCT" },
		{ "explain: EACCES with CAP_PERFMON", EACCES, 2, 1ULL << 38, PMUSCOPE_SPE_EL0, true,
		  false, -EACCES, "although privileged" },
		{ "explain: EPERM, paranoid 2, EL0 per task", EPERM, 2, 0, PMUSCOPE_SPE_EL0, false,
		  false, -EPERM, "LSM" },
		{ "explain: EPERM at mmap: mlock limit", EPERM, 2, 0, PMUSCOPE_SPE_EL0, false, true,
		  -EPERM, "perf_event_mlock_kb" },
		{ "explain: ENOENT: next source", ENOENT, 0, 0, PMUSCOPE_SPE_EL0, true, false,
		  -ENOENT, "ENOENT" },
		{ "explain: EOPNOTSUPP: next source", EOPNOTSUPP, 0, 0, PMUSCOPE_SPE_EL0, true, false,
		  -EOPNOTSUPP, "cannot" },
		{ "explain: ENOSYS: EOPNOTSUPP", ENOSYS, 0, 0, PMUSCOPE_SPE_EL0, true, false,
		  -EOPNOTSUPP, "ENOSYS" },
		{ "explain: EBUSY", EBUSY, 0, 0, PMUSCOPE_SPE_EL0, true, false, -EBUSY, "in use" },
		{ "explain: ENODEV", ENODEV, 0, 0, PMUSCOPE_SPE_EL0, true, false, -ENODEV, "offline" },
		{ "explain: EINVAL", EINVAL, 0, 0, PMUSCOPE_SPE_EL0, true, false, -EINVAL, "EINVAL" },
		{ "explain: ENOMEM at mmap", ENOMEM, 0, 0, PMUSCOPE_SPE_EL0, true, true, -ENOMEM, "mmap" },
	};

	check(spe_perf_cap_perfmon(1ULL << 21) && spe_perf_cap_perfmon(1ULL << 38) &&
	      !spe_perf_cap_perfmon(~((1ULL << 21) | (1ULL << 38))),
	      "CAP_PERFMON or CAP_SYS_ADMIN", "");
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		struct spe_opts o;
		char why[512] = "";
		int ret;

		memset(&o, 0, sizeof(o));
		o.flags = tab[i].flags;
		ret = spe_perf_explain(tab[i].err, tab[i].paranoid, tab[i].cap, &o, tab[i].per_cpu,
				       tab[i].at_mmap, why, sizeof(why));
		check(ret == tab[i].ret && strstr(why, tab[i].says), tab[i].name, "ret %d why \"%s\"",
		      ret, why);
	}
}

/* ---- the open path, over stand-ins ----------------------------------- */

static char tmpdir[64];
static int seam_err;			/* perf_event_open fails with it; 0: a memfd */
static int seam_calls;
static pid_t seam_pid[8];
static int seam_cpu[8];
static struct spe_perf_attr seam_attr;
static int memfds[8];
static unsigned long ioctls[16];
static int nioctl;

/* cppcheck-suppress constParameter ; perf_event_open()'s type (spe_perf_sys) */
static int fake_open(struct spe_perf_attr *attr, pid_t pid, int cpu, int group_fd,
		     unsigned long flags)
{
	int fd;

	(void)group_fd;
	(void)flags;
	if (seam_calls < 8) {
		seam_pid[seam_calls] = pid;
		seam_cpu[seam_calls] = cpu;
	}
	seam_attr = *attr;
	if (seam_err) {
		seam_calls++;
		errno = seam_err;
		return -1;
	}
	fd = memfd_create("fake_perf", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (1 + 16) * 4096 + 65536) < 0)
		return -1;
	if (seam_calls < 8)
		memfds[seam_calls] = fd;
	seam_calls++;
	return fd;
}

static int fake_ioctl(int fd, unsigned long req, unsigned long arg)
{
	(void)fd;
	(void)arg;
	if (nioctl < 16)
		ioctls[nioctl++] = req;
	return 0;
}

static void put_file(const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	for (char *p = strchr(path + strlen(tmpdir) + 1, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
		mkdir(dir, 0755);
	}
	fp = fopen(path, "w");
	if (fp) {
		fputs(text, fp);
		fclose(fp);
	}
}

static void fake_sysfs(int paranoid)
{
	char buf[512];

	put_file("sys/bus/event_source/devices/arm_spe_0/type", "9\n");
	put_file("sys/bus/event_source/devices/arm_spe_0/cpumask", "0-3\n");
	put_file("sys/bus/event_source/devices/arm_spe_0/caps/min_interval", "1024\n");
	for (int i = 0; i < SPE_F_NR; i++) {
		if (!fmt612[i])
			continue;
		snprintf(buf, sizeof(buf), "sys/bus/event_source/devices/arm_spe_0/format/%s",
			 spe_fmt_names[i]);
		put_file(buf, fmt612[i]);
	}
	snprintf(buf, sizeof(buf), "%d\n", paranoid);
	put_file("proc/sys/kernel/perf_event_paranoid", buf);
	put_file("proc/self/status", "Name:\tx\nCapEff:\t0000000000000000\n");
}

static void seam_reset(int err)
{
	seam_err = err;
	seam_calls = 0;
	nioctl = 0;
	memset(&seam_attr, 0, sizeof(seam_attr));
}

static void opts_cpus(struct spe_opts *o, uint32_t flags, pid_t pid, uint64_t cpus)
{
	memset(o, 0, sizeof(*o));
	o->flags = flags;
	o->pid = pid;
	o->cpus[0] = cpus;
	o->buffer_kib = 64;
}

static void t_open_errors(void)
{
	static char sysroot[128], procroot[128];
	struct spe_opts o;
	char why[512];
	void *st;
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_spe_perf.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		check(0, "open: temporary directory", "%s", strerror(errno));
		return;
	}
	snprintf(sysroot, sizeof(sysroot), "%s/sys", tmpdir);
	snprintf(procroot, sizeof(procroot), "%s/proc", tmpdir);
	spe_perf_sys.sysfs = sysroot;
	spe_perf_sys.procfs = procroot;
	spe_perf_sys.perf_event_open = fake_open;
	spe_perf_sys.ioctl = fake_ioctl;

	put_file("sys/bus/event_source/devices/.keep", "");
	seam_reset(0);
	opts_cpus(&o, PMUSCOPE_SPE_EL0, 0, 1);
	ret = spe_source_perf.open(&o, &st, why, sizeof(why));
	check(ret == -ENODEV && strstr(why, "no arm_spe PMU") && !seam_calls,
	      "open: no arm_spe PMU: ENODEV (next source)", "ret %d why \"%s\"", ret, why);

	fake_sysfs(2);
	static const struct {
		const char *name;
		int err, paranoid;
		uint32_t flags;
		pid_t pid;
		uint64_t cpus;
		uint32_t kib;
		int ret, calls;
		const char *says;
	} tab[] = {
		{ "open: per CPU at paranoid 2: EACCES, explained", EACCES, 2, PMUSCOPE_SPE_EL0, 0,
		  0x3, 64, -EACCES, 1, "profiling CPUs needs" },
		{ "open: EBUSY (another perf session): next source", EBUSY, 2, PMUSCOPE_SPE_EL0, 0,
		  0x3, 64, -EBUSY, 1, "in use" },
		{ "open: EOPNOTSUPP: next source", EOPNOTSUPP, 2, PMUSCOPE_SPE_EL0, 0, 0x3, 64,
		  -EOPNOTSUPP, 1, "cannot" },
		{ "open: ENOENT names the PMU and CPU", ENOENT, 2, PMUSCOPE_SPE_EL0, 0, 0x2, 64,
		  -ENOENT, 1, "arm_spe_0, CPU 1" },
		{ "open: CX at paranoid 2 unprivileged: EACCES before perf", 0, 2,
		  PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_CX, 1234, 0xf, 64, -EACCES, 0, "Context packets" },
		{ "open: a CPU without SPE: EINVAL", 0, 2, PMUSCOPE_SPE_EL0, 0, 0x21, 64, -EINVAL, 0,
		  "CPU 5 has no SPE" },
		{ "open: no CPU chosen: EINVAL", 0, 2, PMUSCOPE_SPE_EL0, 0, 0, 64, -EINVAL, 0,
		  "no CPU" },
		{ "open: buffer not a power of 2: EINVAL", 0, 2, PMUSCOPE_SPE_EL0, 0, 1, 48, -EINVAL,
		  0, "power of 2" },
		{ "open: unknown flag: EINVAL before perf", 0, 2, PMUSCOPE_SPE_EL0 | (1U << 9), 0, 1,
		  64, -EINVAL, 0, "unknown SPE flags" },
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		char p[16];

		snprintf(p, sizeof(p), "%d\n", tab[i].paranoid);
		put_file("proc/sys/kernel/perf_event_paranoid", p);
		seam_reset(tab[i].err);
		opts_cpus(&o, tab[i].flags, tab[i].pid, tab[i].cpus);
		o.buffer_kib = tab[i].kib;
		why[0] = 0;
		st = (void *)1;
		ret = spe_source_perf.open(&o, &st, why, sizeof(why));
		check(ret == tab[i].ret && seam_calls == tab[i].calls && strstr(why, tab[i].says) &&
		      !st, tab[i].name, "ret %d calls %d why \"%s\"", ret, seam_calls, why);
	}

	/* Which events: per CPU, per task over the whole cpumask, per task on some CPUs. */
	seam_reset(EACCES);
	opts_cpus(&o, PMUSCOPE_SPE_EL0, 1234, 0xf);
	spe_source_perf.open(&o, &st, why, sizeof(why));
	check(seam_calls == 1 && seam_pid[0] == 1234 && seam_cpu[0] == -1 && seam_attr.a.type == 9 &&
	      seam_attr.a.exclude_kernel && !seam_attr.a.exclude_user,
	      "open: per task, every CPU of the PMU: one event (pid, -1)", "calls %d pid %d cpu %d",
	      seam_calls, seam_pid[0], seam_cpu[0]);
	seam_reset(EACCES);
	opts_cpus(&o, PMUSCOPE_SPE_EL0, 1234, 0);
	spe_source_perf.open(&o, &st, why, sizeof(why));
	check(seam_calls == 1 && seam_pid[0] == 1234 && seam_cpu[0] == -1,
	      "open: per task, no CPU chosen: every CPU", "calls %d cpu %d", seam_calls, seam_cpu[0]);
	seam_reset(EACCES);
	opts_cpus(&o, PMUSCOPE_SPE_EL0, 1234, 0x6);
	spe_source_perf.open(&o, &st, why, sizeof(why));
	check(seam_calls == 1 && seam_pid[0] == 1234 && seam_cpu[0] == 1 &&
	      strstr(why, "EL1 sampling") == NULL,
	      "open: per task on CPUs 1-2: (pid, 1) first", "calls %d cpu %d", seam_calls, seam_cpu[0]);
}

static void t_open_run(void)
{
	struct spe_opts o;
	struct pmuscope_spe_cpu cpus[8];
	struct perf_event_mmap_page *pc;
	unsigned char *map;
	struct got *g = &G;
	uint64_t freq = 0;
	char why[512];
	void *st = NULL;
	int ret, n;

	put_file("proc/sys/kernel/perf_event_paranoid", "0\n");
	seam_reset(0);
	opts_cpus(&o, PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_TS, 0, 0x4);	/* CPU 2 */
	ret = spe_source_perf.open(&o, &st, why, sizeof(why));
	check(ret == 0 && st && seam_calls == 1 && seam_pid[0] == -1 && seam_cpu[0] == 2 &&
	      seam_attr.a.config == 1, "run: open over a memfd stand-in", "ret %d (%s) calls %d",
	      ret, why, seam_calls);
	if (ret)
		return;
	map = mmap(NULL, 17 * 4096 + 65536, PROT_READ | PROT_WRITE, MAP_SHARED, memfds[0], 0);
	if (map == MAP_FAILED) {
		check(0, "run: map the stand-in", "%s", strerror(errno));
		return;
	}
	pc = (struct perf_event_mmap_page *)map;
	check(pc->aux_offset == 17 * 4096 && pc->aux_size == 65536,
	      "run: aux_offset and aux_size set before the AUX mmap", "offset %llu size %llu",
	      (unsigned long long)pc->aux_offset, (unsigned long long)pc->aux_size);
	ret = spe_source_perf.enable(st);
	check(ret == 0 && nioctl == 1 && ioctls[0] == PERF_EVENT_IOC_ENABLE, "run: enable",
	      "ret %d ioctls %d", ret, nioctl);

	/* The "kernel": 96 bytes of AUX data and its record, truncated. */
	{
		struct perf_event_header h = { PERF_RECORD_AUX, 0, 8 + 24 + 24 };
		uint64_t body[6] = { 0, 96, PERF_AUX_FLAG_TRUNCATED, 0, 777, 2 };
		unsigned char *aux = map + 17 * 4096;

		for (int i = 0; i < 96; i++)
			aux[i] = (unsigned char)(1 + (3 + i) % 251);
		memcpy(map + 4096, &h, 8);
		memcpy(map + 4096 + 8, body, sizeof(body));
		pc->aux_head = 96;
		pc->data_head = h.size;
	}
	memset(g, 0, sizeof(*g));
	nioctl = 0;
	ret = spe_source_perf.drain(st, 0, collect, g);
	check(ret == 1 && g->c[0].cpu == 2 && g->c[0].data_size == 96 &&
	      pattern_ok(g->d[0], 96, 3) && g->c[0].flags == PMUSCOPE_SPE_C_STOPPED,
	      "run: drain emits the chunk", "ret %d cpu %u size %u flags %x", ret, g->c[0].cpu,
	      g->c[0].data_size, g->c[0].flags);
	check(pc->aux_tail == 96 && pc->data_tail == pc->data_head,
	      "run: the tails in the shared page", "aux_tail %llu", (unsigned long long)pc->aux_tail);
	check(nioctl == 1 && ioctls[0] == PERF_EVENT_IOC_ENABLE,
	      "run: truncated: re-enabled after the drain", "ioctls %d", nioctl);
	nioctl = 0;
	ret = spe_source_perf.disable(st);
	check(ret == 0 && nioctl == 1 && ioctls[0] == PERF_EVENT_IOC_DISABLE, "run: disable",
	      "ret %d", ret);
	{
		struct perf_event_header h = { PERF_RECORD_AUX, 0, 8 + 24 + 24 };
		uint64_t body[6] = { 96, 32, 0, 0, 778, 2 };
		unsigned char *aux = map + 17 * 4096;

		memset(aux + 96, 0x55, 32);
		memcpy(map + 4096 + 56, &h, 8);
		memcpy(map + 4096 + 64, body, sizeof(body));
		pc->aux_head = 128;
		pc->data_head = 112;
	}
	memset(g, 0, sizeof(*g));
	nioctl = 0;
	ret = spe_source_perf.drain(st, 0, collect, g);
	check(ret == 1 && g->c[0].flags == (PMUSCOPE_SPE_C_LOST | PMUSCOPE_SPE_C_FINAL) && !nioctl,
	      "run: after disable: C_FINAL, no re-enable", "ret %d flags %x ioctls %d", ret,
	      g->c[0].flags, nioctl);
	n = spe_source_perf.status(st, cpus, 8, &freq);
	check(n == 1 && cpus[0].cpu == 2 && cpus[0].bytes == 128 && cpus[0].fills == 2 &&
	      cpus[0].state == PMUSCOPE_SPE_STOPPED && cpus[0].lost_ring == 0 && freq,
	      "run: status", "n %d cpu %u bytes %llu fills %u", n, cpus[0].cpu,
	      (unsigned long long)cpus[0].bytes, cpus[0].fills);
	spe_source_perf.close(st);
	munmap(map, 17 * 4096 + 65536);
	close(memfds[0]);
}

int main(void)
{
	t_simple();
	t_time();
	t_wrap_multi();
	t_flags();
	t_lost_gap();
	t_aux_head();
	t_data_wrap();
	t_malformed();
	t_fuzz();
	t_format();
	t_cpulist();
	t_attr();
	t_explain();
	t_open_errors();
	t_open_run();
	if (tmpdir[0]) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
