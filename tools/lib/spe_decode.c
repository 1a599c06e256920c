// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: the SPE packet decoder (Arm ARM D18, record format 0).
 *
 * The packets and their text follow perf's arm-spe-pkt-decoder.c (Linux
 * 6.12), so that `pmuscope spe dump` reads like `perf report -D`, with one
 * deliberate difference: perf takes an extended header followed by 0x00
 * (its "alignment" packet, from a draft of the architecture) as padding
 * whose length depends on the buffer's address in memory; the Arm ARM has
 * no such packet, and here it is a BAD byte like any other unallocated
 * header. tests/host/spe-decoder.sh compares the two decoders.
 *
 * Header bytes (h0; h1 the second byte of an extended header):
 *   0x00 PAD, 0x01 END, 0x71 TIMESTAMP (8 bytes)
 *   (h0 & 0xcf) == 0x42 EVENTS, 0x43 DATA SOURCE: 1 << ((h0 >> 4) & 3) bytes
 *   (h0 & 0xfc) == 0x64 CONTEXT (4 bytes), 0x48 OP TYPE (1 byte)
 *   (h & 0xf8) == 0xb0 ADDRESS (8 bytes), 0x98 COUNTER (2 bytes), where h
 *   is h0, or h1 after an extended header (h0 & 0xfc) == 0x20, whose index
 *   is ((h0 & 3) << 3) | (h1 & 7)
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pmuscope.h"

#define SPE_PAD_MERGE	16	/* zero bytes one PAD packet takes, at most (perf) */

static uint64_t spe_le(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int spe_bad(struct pmuscope_spe_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->type = PMUSCOPE_SPE_PKT_BAD;
	p->len = 1;
	return 1;
}

/* The payload after @hlen header bytes, its size from @szhdr's bits 5:4. */
static int spe_payload(const unsigned char *b, size_t len, unsigned int hlen,
		       unsigned char szhdr, struct pmuscope_spe_pkt *p)
{
	unsigned int n = 1U << ((szhdr >> 4) & 3);

	if (len < hlen + n)
		return spe_bad(p);
	p->payload_size = n;
	p->payload = spe_le(b + hlen, n);
	p->len = hlen + n;
	return p->len;
}

static void spe_addr_fields(struct pmuscope_spe_pkt *p)
{
	uint64_t v = p->payload;

	p->addr = v & ((1ULL << 56) - 1);
	switch (p->index) {
	case PMUSCOPE_SPE_ADDR_PC:
	case PMUSCOPE_SPE_ADDR_BRANCH:
	case PMUSCOPE_SPE_ADDR_PREV_BRANCH:
		p->el = (v >> 61) & 3;
		p->ns = v >> 63;
		break;
	case PMUSCOPE_SPE_ADDR_DATA_VA:
		p->tag = v >> 56;
		break;
	case PMUSCOPE_SPE_ADDR_DATA_PA:
		p->ns = v >> 63;
		p->ch = (v >> 62) & 1;
		p->pat = (v >> 56) & 0xf;
		break;
	}
}

int pmuscope_spe_pkt_get(const void *buf, size_t len, struct pmuscope_spe_pkt *p)
{
	const unsigned char *b = buf;
	unsigned char h;
	unsigned int hlen = 1;

	if (!len) {
		memset(p, 0, sizeof(*p));
		return 0;
	}
	memset(p, 0, sizeof(*p));
	h = b[0];
	if (h == 0x00) {
		unsigned int n = 1;

		while (n < SPE_PAD_MERGE && n < len && !b[n])
			n++;
		p->type = PMUSCOPE_SPE_PKT_PAD;
		p->len = n;
		return n;
	}
	if (h == 0x01) {
		p->type = PMUSCOPE_SPE_PKT_END;
		p->len = 1;
		return 1;
	}
	if (h == 0x71) {
		p->type = PMUSCOPE_SPE_PKT_TIMESTAMP;
		return spe_payload(b, len, 1, h, p);
	}
	if ((h & 0xcf) == 0x42) {
		p->type = PMUSCOPE_SPE_PKT_EVENTS;
		p->index = 1U << ((h >> 4) & 3);
		return spe_payload(b, len, 1, h, p);
	}
	if ((h & 0xcf) == 0x43) {
		p->type = PMUSCOPE_SPE_PKT_DATA_SOURCE;
		return spe_payload(b, len, 1, h, p);
	}
	if ((h & 0xfc) == 0x64) {
		p->type = PMUSCOPE_SPE_PKT_CONTEXT;
		p->index = h & 3;
		return spe_payload(b, len, 1, h, p);
	}
	if ((h & 0xfc) == 0x48) {
		p->type = PMUSCOPE_SPE_PKT_OP_TYPE;
		p->index = h & 3;
		return spe_payload(b, len, 1, h, p);
	}
	if ((h & 0xfc) == 0x20) {
		/* Extended header: an address or a counter of index 8 .. 31. */
		if (len < 2)
			return spe_bad(p);
		hlen = 2;
		h = b[1];
	}
	if ((h & 0xf8) == 0xb0 || (h & 0xf8) == 0x98) {
		int ret;

		p->type = (h & 0xf8) == 0xb0 ? PMUSCOPE_SPE_PKT_ADDRESS :
					       PMUSCOPE_SPE_PKT_COUNTER;
		p->ext = hlen == 2;
		p->index = hlen == 2 ? ((b[0] & 3) << 3) | (h & 7) : (h & 7);
		ret = spe_payload(b, len, hlen, h, p);
		if (p->type == PMUSCOPE_SPE_PKT_ADDRESS)
			spe_addr_fields(p);
		return ret;
	}
	return spe_bad(p);
}

int pmuscope_spe_pkt_next(const void *buf, size_t len, size_t *off,
			  struct pmuscope_spe_pkt *p)
{
	if (*off >= len) {
		memset(p, 0, sizeof(*p));
		return 0;
	}
	*off += pmuscope_spe_pkt_get((const unsigned char *)buf + *off, len - *off, p);
	return 1;
}

static const char *const spe_pkt_names[] = {
	[PMUSCOPE_SPE_PKT_BAD]		= "BAD",
	[PMUSCOPE_SPE_PKT_PAD]		= "PAD",
	[PMUSCOPE_SPE_PKT_END]		= "END",
	[PMUSCOPE_SPE_PKT_TIMESTAMP]	= "TS",
	[PMUSCOPE_SPE_PKT_ADDRESS]	= "ADDR",
	[PMUSCOPE_SPE_PKT_COUNTER]	= "LAT",
	[PMUSCOPE_SPE_PKT_CONTEXT]	= "CONTEXT",
	[PMUSCOPE_SPE_PKT_OP_TYPE]	= "OP-TYPE",
	[PMUSCOPE_SPE_PKT_EVENTS]	= "EVENTS",
	[PMUSCOPE_SPE_PKT_DATA_SOURCE]	= "DATA-SOURCE",
};

const char *pmuscope_spe_pkt_name(unsigned int type)
{
	if (type >= sizeof(spe_pkt_names) / sizeof(spe_pkt_names[0]))
		return "BAD";
	return spe_pkt_names[type];
}

static const char *const spe_event_names[] = {
	[0] = "EXCEPTION-GEN", [1] = "RETIRED", [2] = "L1D-ACCESS", [3] = "L1D-REFILL",
	[4] = "TLB-ACCESS", [5] = "TLB-REFILL", [6] = "NOT-TAKEN", [7] = "MISPRED",
	[8] = "LLC-ACCESS", [9] = "LLC-REFILL", [10] = "REMOTE-ACCESS", [11] = "ALIGNMENT",
	[17] = "SVE-PARTIAL-PRED", [18] = "SVE-EMPTY-PRED",
};

const char *pmuscope_spe_event_name(unsigned int bit)
{
	if (bit >= sizeof(spe_event_names) / sizeof(spe_event_names[0]))
		return NULL;
	return spe_event_names[bit];
}

/* An output buffer that counts what would have been written. */
struct spe_out {
	char *buf;
	size_t len, n;
};

__attribute__((format(printf, 2, 3)))
static void spe_add(struct spe_out *o, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(o->n < o->len ? o->buf + o->n : NULL,
		      o->n < o->len ? o->len - o->n : 0, fmt, ap);
	va_end(ap);
	if (r > 0)
		o->n += r;
}

static void spe_desc_op(const struct pmuscope_spe_pkt *p, struct spe_out *o)
{
	uint64_t v = p->payload;

	switch (p->index) {
	case PMUSCOPE_SPE_OP_CLASS_OTHER:
		if ((v & 0x89) == 0x8) {
			spe_add(o, "SVE-OTHER EVLEN %d", 32 << ((v >> 4) & 7));
			if (v & 0x2)
				spe_add(o, " FP");
			if (v & 0x4)
				spe_add(o, " PRED");
		} else {
			spe_add(o, "OTHER %s", v & 1 ? "COND-SELECT" : "INSN-OTHER");
		}
		break;
	case PMUSCOPE_SPE_OP_CLASS_LDST:
		spe_add(o, "%s", v & 1 ? "ST" : "LD");
		if ((v & 0xe2) == 0x2) {	/* atomic: 7:5 zero, bit 1 set */
			if (v & 0x4)
				spe_add(o, " AT");
			if (v & 0x8)
				spe_add(o, " EXCL");
			if (v & 0x10)
				spe_add(o, " AR");
		}
		if ((v & 0xfe) == 0x4)
			spe_add(o, " SIMD-FP");
		else if ((v & 0xfe) == 0x0)
			spe_add(o, " GP-REG");
		else if ((v & 0xfe) == 0x10)
			spe_add(o, " UNSPEC-REG");
		else if ((v & 0xfe) == 0x30)
			spe_add(o, " NV-SYSREG");
		else if ((v & 0xfe) == 0x14)
			spe_add(o, " MTE-TAG");
		else if ((v & 0xfe) == 0x20)
			spe_add(o, " MEMCPY");
		else if ((v & 0xff) == 0x25)
			spe_add(o, " MEMSET");
		if ((v & 0xa) == 0x8) {		/* SVE: bit 3 set, bit 1 clear */
			spe_add(o, " EVLEN %d", 32 << ((v >> 4) & 7));
			if (v & 0x4)
				spe_add(o, " PRED");
			if (v & 0x80)
				spe_add(o, " SG");
		}
		break;
	case PMUSCOPE_SPE_OP_CLASS_BRANCH:
		spe_add(o, "B");
		if (v & 1)
			spe_add(o, " COND");
		if (v & 2)
			spe_add(o, " IND");
		if (v & 4)
			spe_add(o, " GCS");
		switch ((v >> 3) & 3) {
		case 1:
			spe_add(o, " CR-BL");
			break;
		case 2:
			spe_add(o, " CR-RET");
			break;
		case 3:
			spe_add(o, " CR-NON-BL-RET");
			break;
		}
		break;
	}
}

static const char *const spe_addr_names[] = { "PC", "TGT", "VA", "PA", "PBT" };

int pmuscope_spe_pkt_desc(const struct pmuscope_spe_pkt *p, char *buf, size_t len)
{
	struct spe_out o = { buf, len, 0 };
	const char *name = pmuscope_spe_pkt_name(p->type);
	int raw = 0;

	if (len)
		buf[0] = '\0';
	switch (p->type) {
	case PMUSCOPE_SPE_PKT_BAD:
		spe_add(&o, "Bad packet!");
		break;
	case PMUSCOPE_SPE_PKT_PAD:
	case PMUSCOPE_SPE_PKT_END:
		spe_add(&o, "%s", name);
		break;
	case PMUSCOPE_SPE_PKT_EVENTS:
		spe_add(&o, "EV");
		for (unsigned int i = 0; i < 64; i++) {
			const char *ev = pmuscope_spe_event_name(i);

			if (ev && (p->payload & (1ULL << i)))
				spe_add(&o, " %s", ev);
		}
		break;
	case PMUSCOPE_SPE_PKT_OP_TYPE:
		if (p->index > PMUSCOPE_SPE_OP_CLASS_BRANCH)
			raw = 1;
		else
			spe_desc_op(p, &o);
		break;
	case PMUSCOPE_SPE_PKT_DATA_SOURCE:
	case PMUSCOPE_SPE_PKT_TIMESTAMP:
		spe_add(&o, "%s %lld", name, (long long)p->payload);
		break;
	case PMUSCOPE_SPE_PKT_ADDRESS:
		switch (p->index) {
		case PMUSCOPE_SPE_ADDR_PC:
		case PMUSCOPE_SPE_ADDR_BRANCH:
		case PMUSCOPE_SPE_ADDR_PREV_BRANCH:
			spe_add(&o, "%s 0x%llx el%d ns=%d", spe_addr_names[p->index],
				(unsigned long long)p->addr, p->el, p->ns);
			break;
		case PMUSCOPE_SPE_ADDR_DATA_VA:
			spe_add(&o, "VA 0x%llx", (unsigned long long)p->payload);
			break;
		case PMUSCOPE_SPE_ADDR_DATA_PA:
			spe_add(&o, "PA 0x%llx ns=%d ch=%d pat=%x",
				(unsigned long long)p->addr, p->ns, p->ch, p->pat);
			break;
		default:
			raw = 1;
		}
		break;
	case PMUSCOPE_SPE_PKT_CONTEXT:
		spe_add(&o, "%s 0x%lx el%d", name, (unsigned long)p->payload, p->index + 1);
		break;
	case PMUSCOPE_SPE_PKT_COUNTER:
		spe_add(&o, "%s %d ", name, (unsigned short)p->payload);
		if (p->index == PMUSCOPE_SPE_CNT_TOTAL)
			spe_add(&o, "TOT");
		else if (p->index == PMUSCOPE_SPE_CNT_ISSUE)
			spe_add(&o, "ISSUE");
		else if (p->index == PMUSCOPE_SPE_CNT_XLAT)
			spe_add(&o, "XLAT");
		break;
	default:
		raw = 1;
	}
	if (raw) {
		/* perf's text for what it cannot describe: the raw payload. */
		o.n = 0;
		spe_add(&o, "%s 0x%llx (%d)", name, (unsigned long long)p->payload, p->index);
	}
	return o.n;
}

int pmuscope_spe_pkt_line(const struct pmuscope_spe_pkt *p, const void *bytes, size_t pos,
			  char *buf, size_t len)
{
	const unsigned char *b = bytes;
	struct spe_out o = { buf, len, 0 };
	char desc[256];
	unsigned int i;

	if (len)
		buf[0] = '\0';
	spe_add(&o, ".  %08x: ", (unsigned int)pos);
	for (i = 0; i < p->len; i++)
		spe_add(&o, " %02x", b[i]);
	for (; i < 16; i++)
		spe_add(&o, "   ");
	pmuscope_spe_pkt_desc(p, desc, sizeof(desc));
	spe_add(&o, " %s", desc);
	return o.n;
}

/* ------------------------------------------------------------- records */
static void spe_record_add(struct pmuscope_spe_record *r, const struct pmuscope_spe_pkt *p)
{
	switch (p->type) {
	case PMUSCOPE_SPE_PKT_BAD:
		r->bad++;
		break;
	case PMUSCOPE_SPE_PKT_ADDRESS:
		switch (p->index) {
		case PMUSCOPE_SPE_ADDR_PC:
			r->valid |= PMUSCOPE_SPE_R_PC;
			r->pc = p->addr;
			r->el = p->el;
			r->ns = p->ns;
			break;
		case PMUSCOPE_SPE_ADDR_BRANCH:
			r->valid |= PMUSCOPE_SPE_R_BRANCH;
			r->branch = p->addr;
			r->branch_el = p->el;
			break;
		case PMUSCOPE_SPE_ADDR_DATA_VA:
			r->valid |= PMUSCOPE_SPE_R_VA;
			r->va = p->addr;
			r->va_tag = p->tag;
			break;
		case PMUSCOPE_SPE_ADDR_DATA_PA:
			r->valid |= PMUSCOPE_SPE_R_PA;
			r->pa = p->addr;
			r->pa_ns = p->ns;
			r->pa_ch = p->ch;
			break;
		case PMUSCOPE_SPE_ADDR_PREV_BRANCH:
			r->valid |= PMUSCOPE_SPE_R_PREV_BRANCH;
			r->prev_branch = p->addr;
			break;
		default:
			r->unknown++;
		}
		break;
	case PMUSCOPE_SPE_PKT_COUNTER:
		switch (p->index) {
		case PMUSCOPE_SPE_CNT_TOTAL:
			r->valid |= PMUSCOPE_SPE_R_LAT_TOTAL;
			r->lat_total = p->payload;
			break;
		case PMUSCOPE_SPE_CNT_ISSUE:
			r->valid |= PMUSCOPE_SPE_R_LAT_ISSUE;
			r->lat_issue = p->payload;
			break;
		case PMUSCOPE_SPE_CNT_XLAT:
			r->valid |= PMUSCOPE_SPE_R_LAT_XLAT;
			r->lat_xlat = p->payload;
			break;
		default:
			r->unknown++;
		}
		break;
	case PMUSCOPE_SPE_PKT_CONTEXT:
		if (p->index > 1) {
			r->unknown++;
			break;
		}
		r->valid |= PMUSCOPE_SPE_R_CONTEXT;
		r->context = p->payload;
		r->context_el = p->index + 1;
		break;
	case PMUSCOPE_SPE_PKT_OP_TYPE:
		if (p->index > PMUSCOPE_SPE_OP_CLASS_BRANCH) {
			r->unknown++;
			break;
		}
		r->valid |= PMUSCOPE_SPE_R_OP;
		r->op_class = p->index;
		r->op_sub = p->payload;
		break;
	case PMUSCOPE_SPE_PKT_EVENTS:
		r->valid |= PMUSCOPE_SPE_R_EVENTS;
		r->events = p->payload;
		break;
	case PMUSCOPE_SPE_PKT_DATA_SOURCE:
		r->valid |= PMUSCOPE_SPE_R_SOURCE;
		r->source = p->payload;
		break;
	case PMUSCOPE_SPE_PKT_TIMESTAMP:
		r->valid |= PMUSCOPE_SPE_R_TIMESTAMP | PMUSCOPE_SPE_R_END;
		r->timestamp = p->payload;
		break;
	case PMUSCOPE_SPE_PKT_END:
		r->valid |= PMUSCOPE_SPE_R_END;
		break;
	}
}

int pmuscope_spe_record_next(const void *buf, size_t len, size_t *off,
			     struct pmuscope_spe_record *r)
{
	const unsigned char *b = buf;
	struct pmuscope_spe_pkt p;
	size_t at = *off;

	memset(r, 0, sizeof(*r));
	/* Padding between records belongs to none. */
	while (at < len && !b[at])
		at++;
	if (at >= len) {
		*off = len;
		return 0;
	}
	r->start = at;
	while (at < len) {
		at += pmuscope_spe_pkt_get(b + at, len - at, &p);
		if (p.type == PMUSCOPE_SPE_PKT_PAD)
			continue;
		spe_record_add(r, &p);
		if (r->valid & PMUSCOPE_SPE_R_END)
			break;
	}
	r->len = at - r->start;
	*off = at;
	return 1;
}

int pmuscope_spe_op_is_load(const struct pmuscope_spe_record *r)
{
	return (r->valid & PMUSCOPE_SPE_R_OP) && r->op_class == PMUSCOPE_SPE_OP_CLASS_LDST &&
	       !(r->op_sub & 1);
}

int pmuscope_spe_op_is_store(const struct pmuscope_spe_record *r)
{
	return (r->valid & PMUSCOPE_SPE_R_OP) && r->op_class == PMUSCOPE_SPE_OP_CLASS_LDST &&
	       (r->op_sub & 1);
}

int pmuscope_spe_op_is_branch(const struct pmuscope_spe_record *r)
{
	return (r->valid & PMUSCOPE_SPE_R_OP) && r->op_class == PMUSCOPE_SPE_OP_CLASS_BRANCH;
}
