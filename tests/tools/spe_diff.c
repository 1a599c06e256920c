// SPDX-License-Identifier: GPL-2.0
/*
 * The SPE decoder of libpmuscope (tools/lib/spe_decode.c) against perf's
 * own packet decoder (tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.c
 * of the kernel source, built with the shims of tests/tools/spe_shim), and
 * the decoder alone under AddressSanitizer and UBSan. Built and run by
 * tests/host/spe-decoder.sh. Prints "PASS name" / "FAIL name: why" per
 * family of cases, then "N passed, N failed".
 *
 *   spe_diff [--streams N] [--seed S]   the differential test: N random
 *        streams (default 100000; seeded, reproducible), biased to valid
 *        headers so that every packet kind comes, mutated and cut short;
 *        every header pair with every length; crafted malformed streams.
 *        Packet by packet from the same offset: bytes consumed, type,
 *        index, payload and perf's text (arm_spe_pkt_desc()).
 *   spe_diff --fuzz N [--seed S]   (built without perf, with sanitizers)
 *        N random and mutated streams, each in a buffer of exactly its
 *        size, through every entry point of the decoder
 *   spe_diff --bench [MIB]   decoding speed on MIB MiB (default 64) of
 *        realistic records: packets and records, MB/s (not a test)
 *
 * The one known difference: an extended header followed by 0x00, which
 * perf takes for an "alignment" padding packet whose length depends on the
 * buffer's address in memory; the Arm ARM (D18) has no such packet and
 * libpmuscope decodes a BAD byte. Counted and reported, not a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmuscope.h"
#ifndef SPE_NO_PERF
#include "arm-spe-pkt-decoder.h"
#endif
#include "check.h"


static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from the seed. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned int rndn(unsigned int n)
{
	return rnd() % n;
}

static void put_le(unsigned char *p, uint64_t v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

/* Payloads that hit the interesting bits of the descriptions. */
static uint64_t rnd_payload(void)
{
	switch (rndn(4)) {
	case 0:
		return rnd();
	case 1:
		return rndn(256);
	case 2:	/* an address with EL and NS bits, perhaps a tag */
		return (rnd() & ((1ULL << 56) - 1)) | ((uint64_t)rndn(8) << 61) |
		       ((uint64_t)rndn(16) << 56);
	default:
		return 1ULL << rndn(64);
	}
}

/* One packet (valid most of the time) at @p; returns its bytes (<= 18). */
static size_t gen_packet(unsigned char *p)
{
	unsigned int sz = rndn(4), n = 1U << sz;
	uint64_t v = rnd_payload();

	switch (rndn(14)) {
	case 0:
		p[0] = 0x00;
		return 1;
	case 1:
		p[0] = 0x01;
		return 1;
	case 2:
		p[0] = 0x71;
		put_le(p + 1, v, 8);
		return 9;
	case 3:
		p[0] = 0x42 | (sz << 4);
		put_le(p + 1, v, n);
		return 1 + n;
	case 4:
		p[0] = 0x43 | (sz << 4);
		put_le(p + 1, v, n);
		return 1 + n;
	case 5:
		p[0] = 0x64 | rndn(4);
		put_le(p + 1, v, 4);
		return 5;
	case 6:
		p[0] = 0x48 | rndn(4);
		p[1] = rndn(2) ? rndn(256) : (uint8_t[]){ 0x00, 0x01, 0x02, 0x04, 0x08, 0x0a, 0x10,
			0x14, 0x20, 0x25, 0x30, 0x1f, 0x89, 0x88, 0xf8, 0x18, 0x0e }[rndn(17)];
		return 2;
	case 7:
		p[0] = 0xb0 | rndn(rndn(4) ? 5 : 8);
		put_le(p + 1, v, 8);
		return 9;
	case 8:
		p[0] = 0x20 | rndn(4);
		p[1] = 0xb0 | rndn(8);
		put_le(p + 2, v, 8);
		return 10;
	case 9:
		p[0] = 0x98 | rndn(rndn(4) ? 3 : 8);
		put_le(p + 1, v, 2);
		return 3;
	case 10:
		p[0] = 0x20 | rndn(4);
		p[1] = 0x98 | rndn(8);
		put_le(p + 2, v, 2);
		return 4;
	case 11:	/* an extended header before anything */
		p[0] = 0x20 | rndn(4);
		p[1] = rndn(256);
		return 2;
	default:	/* any byte */
		p[0] = rndn(256);
		return 1;
	}
}

/* A random stream in @buf (room >= 1024): packets, mutated, cut short. */
static size_t gen_stream(unsigned char *buf, size_t room)
{
	size_t len = 0, want = 1 + rndn(60);

	for (size_t i = 0; i < want && len + 18 <= room; i++)
		len += gen_packet(buf + len);
	if (!rndn(4))
		for (unsigned int m = rndn(4); m; m--)
			buf[rndn(len)] = rndn(256);
	if (!rndn(3) && len > 1)
		len -= 1 + rndn(len < 10 ? len - 1 : 10);
	return len;
}

#ifndef SPE_NO_PERF
struct diff {
	uint64_t streams, packets, known, mismatches;
	char first[600];
};

/* Both decoders at every packet of @buf; @d counts and keeps the first mismatch. */
static void diff_stream(const unsigned char *buf, size_t len, struct diff *d)
{
	size_t off = 0;

	d->streams++;
	while (off < len) {
		struct arm_spe_pkt pp;
		struct pmuscope_spe_pkt mp;
		char pdesc[ARM_SPE_PKT_DESC_MAX], mdesc[ARM_SPE_PKT_DESC_MAX];
		int pret = arm_spe_get_packet(buf + off, len - off, &pp);
		int mret = pmuscope_spe_pkt_get(buf + off, len - off, &mp);
		const char *why = NULL;
		size_t at = off;

		d->packets++;
		if (pret > 0 && pp.type == ARM_SPE_PAD && (buf[off] & 0xfc) == 0x20) {
			/* perf's "alignment" packet: BAD here, by the Arm ARM. */
			if (mp.type != PMUSCOPE_SPE_PKT_BAD || mret != 1)
				why = "extended header + 0x00 is not BAD";
			else
				d->known++;
			off += 1;
			goto check;
		}
		if (pret <= 0) {
			if (mp.type != PMUSCOPE_SPE_PKT_BAD || mret != 1)
				why = "perf: bad packet, pmuscope: not a 1-byte BAD";
			off += 1;
			goto check;
		}
		if (mret != pret || mp.len != pret)
			why = "length";
		else if ((int)mp.type != (int)pp.type)
			why = "type";
		else if (mp.index != pp.index)
			why = "index";
		else if (mp.payload != pp.payload)
			why = "payload";
		if (!why) {
			if (arm_spe_pkt_desc(&pp, pdesc, sizeof(pdesc)))
				why = "perf's description failed";
			pmuscope_spe_pkt_desc(&mp, mdesc, sizeof(mdesc));
			if (!why && strcmp(pdesc, mdesc))
				why = "text";
		}
		off += pret;
check:
		if (why) {
			if (!d->mismatches) {
				size_t o = at;
				int n = snprintf(d->first, sizeof(d->first),
						 "%s at byte %zu (perf %d type %d idx %d 0x%llx '%s', pmuscope %d type %d idx %d 0x%llx '%s'), bytes",
						 why, o, pret, pp.type, pp.index,
						 (unsigned long long)pp.payload, why[0] == 't' ? pdesc : "",
						 mret, mp.type, mp.index, (unsigned long long)mp.payload,
						 why[0] == 't' ? mdesc : "");

				for (size_t i = o; i < len && i < o + 12 && n > 0 &&
				     (size_t)n < sizeof(d->first) - 4; i++)
					n += snprintf(d->first + n, sizeof(d->first) - n, " %02x", buf[i]);
			}
			d->mismatches++;
		}
	}
}

static void diff_report(const char *name, const struct diff *d)
{
	if (d->mismatches)
		result(0, "%s: %llu of %llu packets differ; first: %s", name,
		       (unsigned long long)d->mismatches, (unsigned long long)d->packets, d->first);
	else
		result(1, "%s (%llu streams, %llu packets agree; %llu known differences: perf's alignment packet)",
		       name, (unsigned long long)d->streams, (unsigned long long)d->packets,
		       (unsigned long long)d->known);
}

static int run_diff(unsigned long streams)
{
	static unsigned char buf[2048];
	struct diff d;

	/* Random streams. */
	memset(&d, 0, sizeof(d));
	for (unsigned long i = 0; i < streams; i++) {
		size_t len = gen_stream(buf, sizeof(buf));
		unsigned char *exact = malloc(len ? len : 1);

		if (!exact)
			return 1;
		memcpy(exact, buf, len);
		diff_stream(exact, len, &d);
		free(exact);
	}
	diff_report("diff-random-streams", &d);

	/* Every header byte pair, every length from 1 to 18. */
	memset(&d, 0, sizeof(d));
	for (unsigned int h0 = 0; h0 < 256; h0++)
		for (unsigned int h1 = 0; h1 < 256; h1++)
			for (size_t len = 1; len <= 18; len++) {
				buf[0] = h0;
				buf[1] = h1;
				for (size_t i = 2; i < len; i++)
					buf[i] = rnd();
				diff_stream(buf, len, &d);
			}
	diff_report("diff-every-header-pair-and-length", &d);

	/* Crafted: cut short, unknown, extended headers at the end, 0x20 alone. */
	{
		static const struct {
			unsigned char b[20];
			size_t len;
		} cases[] = {
			{ { 0x20 }, 1 },
			{ { 0x21 }, 1 }, { { 0x22 }, 1 }, { { 0x23 }, 1 },
			{ { 0xb0, 1, 2, 3, 4, 5, 6, 7, 8, 0x20 }, 10 },
			{ { 0x20, 0xb0, 1, 2, 3 }, 5 },
			{ { 0x23, 0x9f, 1 }, 3 },
			{ { 0x71, 1, 2, 3, 4, 5, 6, 7 }, 8 },
			{ { 0x72, 1, 2, 3, 4, 5, 6 }, 7 },
			{ { 0x52, 1 }, 2 },
			{ { 0x64, 1, 2, 3 }, 4 },
			{ { 0x48 }, 1 },
			{ { 0x98, 1 }, 2 },
			{ { 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x10, 0x30, 0x40, 0x41, 0x44,
			    0x70, 0x80, 0xff, 0xa0, 0xc0, 0xe0 }, 18 },
			{ { 0x20, 0x20, 0x20, 0x20 }, 4 },
			{ { 0x20, 0x01, 0x20, 0x71 }, 4 },
			{ { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 }, 19 },
			{ { 0x20, 0x00, 0x00, 0x00 }, 4 },
			{ { 0x23, 0x00 }, 2 },
		};

		memset(&d, 0, sizeof(d));
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			unsigned char *exact = malloc(cases[i].len);

			if (!exact)
				return 1;
			memcpy(exact, cases[i].b, cases[i].len);
			diff_stream(exact, cases[i].len, &d);
			free(exact);
		}
		diff_report("diff-crafted-malformed", &d);
	}
	return 0;
}
#endif

/*
 * Every entry point of the decoder over @buf, which is exactly @len bytes
 * (the texts with @text only: vsnprintf() under the sanitizers is slow).
 */
static uint64_t exercise(const unsigned char *buf, size_t len, int text)
{
	struct pmuscope_spe_record r;
	struct pmuscope_spe_pkt p;
	char line[400];
	size_t off = 0, start;
	uint64_t sum = 0;

	while (start = off, pmuscope_spe_pkt_next(buf, len, &off, &p) == 1) {
		if (p.len < 1 || p.len > 16 || off != start + p.len || off > len)
			abort();
		sum += p.payload + p.addr;
		if (!text)
			continue;
		sum += pmuscope_spe_pkt_desc(&p, line, sizeof(line));
		sum += pmuscope_spe_pkt_line(&p, buf + start, start, line, sizeof(line));
		pmuscope_spe_pkt_desc(&p, line, 3);	/* cut short */
	}
	off = 0;
	while (start = off, pmuscope_spe_record_next(buf, len, &off, &r) == 1) {
		if (off <= start || off > len || r.start + r.len != off)
			abort();
		sum += r.pc + r.events + r.lat_total;
	}
	return sum;
}

static int run_fuzz(unsigned long streams)
{
	static unsigned char buf[2048];
	uint64_t sum = 0;

	for (unsigned long i = 0; i < streams; i++) {
		size_t len = gen_stream(buf, sizeof(buf));
		unsigned char *exact;

		if (!rndn(8))	/* pure garbage */
			for (size_t k = 0; k < len; k++)
				buf[k] = rnd();
		exact = malloc(len ? len : 1);
		if (!exact)
			return 1;
		memcpy(exact, buf, len);
		sum += exercise(exact, len, i % 4 == 0);
		free(exact);
	}
	result(1, "fuzz-sanitized (%lu random and mutated streams in exact-size buffers, texts of every 4th, no report; checksum %llx)",
	       streams, (unsigned long long)sum);
	return 0;
}

/* A realistic record: PC, OP, EVENTS, latencies, VA, PA, DS, CX, TS. */
static size_t gen_record(unsigned char *p)
{
	size_t n = 0;

	p[n++] = 0xb0;
	put_le(p + n, 0x400000 + 4 * rndn(4096) + (2ULL << 61), 8);
	n += 8;
	p[n++] = 0x49;
	p[n++] = rndn(2);
	p[n++] = 0x52;
	put_le(p + n, 0x6 | (rndn(2) << 3), 2);
	n += 2;
	p[n++] = 0x99;
	put_le(p + n, rndn(64), 2);
	n += 2;
	p[n++] = 0x98;
	put_le(p + n, rndn(512), 2);
	n += 2;
	p[n++] = 0xb2;
	put_le(p + n, 0xffff00000000ULL + rnd() % 65536, 8);
	n += 8;
	p[n++] = 0x9a;
	put_le(p + n, rndn(32), 2);
	n += 2;
	p[n++] = 0xb3;
	put_le(p + n, rnd() % (1ULL << 40), 8);
	n += 8;
	p[n++] = 0x43;
	p[n++] = rndn(16);
	p[n++] = 0x65;
	put_le(p + n, 1234, 4);
	n += 4;
	p[n++] = 0x71;
	put_le(p + n, rnd(), 8);
	n += 8;
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run_bench(size_t mib)
{
	size_t len = mib << 20, n = 0, off;
	unsigned char *buf = malloc(len + 64);
	struct pmuscope_spe_record r;
	struct pmuscope_spe_pkt p;
	uint64_t records = 0, packets = 0, sum = 0;
	double t0, t1, t2;

	if (!buf)
		return 1;
	while (n + 64 <= len)
		n += gen_record(buf + n);
	memset(buf + n, 0, len - n);
	t0 = now_s();
	off = 0;
	while (pmuscope_spe_pkt_next(buf, len, &off, &p) == 1) {
		packets++;
		sum += p.payload;
	}
	t1 = now_s();
	off = 0;
	while (pmuscope_spe_record_next(buf, len, &off, &r) == 1) {
		records++;
		sum += r.pc;
	}
	t2 = now_s();
	printf("bench: %zu MiB, %llu packets: %.0f MB/s packet by packet; %llu records: %.0f MB/s record by record (checksum %llx)\n",
	       mib, (unsigned long long)packets, len / 1e6 / (t1 - t0),
	       (unsigned long long)records, len / 1e6 / (t2 - t1), (unsigned long long)sum);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long streams = 100000, fuzz = 0;
	unsigned long long seed = 1;
	int bench = 0;
	size_t mib = 64;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--streams") && i + 1 < argc)
			streams = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--fuzz") && i + 1 < argc)
			fuzz = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--bench")) {
			bench = 1;
			if (i + 1 < argc && argv[i + 1][0] != '-')
				mib = strtoul(argv[++i], NULL, 0);
		} else {
			fprintf(stderr, "usage: spe_diff [--streams N] [--seed S] | --fuzz N | --bench [MIB]\n");
			return 2;
		}
	}
	rng_state = seed ? seed * 0x9e3779b97f4a7c15ULL : 1;
	if (bench)
		return run_bench(mib ? mib : 64);
	if (fuzz) {
		if (run_fuzz(fuzz))
			return 1;
	} else {
#ifdef SPE_NO_PERF
		fprintf(stderr, "spe_diff: built without perf's decoder: --fuzz or --bench only (not %lu streams)\n",
			streams);
		return 2;
#else
		if (run_diff(streams))
			return 1;
#endif
	}
	return result_summary();
}
