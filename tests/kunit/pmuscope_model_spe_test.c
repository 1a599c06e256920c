// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the register model's Statistical Profiling Extension. One case per
 * rule of tests/kunit/pmuscope_model_spe.c, each with the Arm ARM section
 * or pseudocode function it checks. Records are read back from memory and
 * decoded by a decoder that follows perf's
 * (tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.c).
 *
 * The model is driven as the driver drives it: registers through
 * pmuscope_model_read_cpu()/write_cpu(), barriers through
 * pmuscope_model_barrier() run on the modelled CPU, plus the unit's test
 * controls.
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/align.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "pmuscope_model.h"

#define PMUSCOPE_SPE_TEST_CPU		0
#define PMUSCOPE_SPE_TEST_PC		0xffff800010200000ULL
#define PMUSCOPE_SPE_TEST_VA		0xffff000012340000ULL
#define PMUSCOPE_SPE_TEST_CANARY	0xa5
#define PMUSCOPE_SPE_TEST_RECS		256
#define PMUSCOPE_SPE_TEST_CTX		0x4d2

/* Events bits the tests name (Arm ARM D18.2.6). */
#define PMUSCOPE_SPE_TEST_E_RETIRED	BIT_ULL(1)
#define PMUSCOPE_SPE_TEST_E_L1D_ACCESS	BIT_ULL(2)
#define PMUSCOPE_SPE_TEST_E_L1D_REFILL	BIT_ULL(3)
#define PMUSCOPE_SPE_TEST_E_TLB_ACCESS	BIT_ULL(4)
#define PMUSCOPE_SPE_TEST_E_MISPRED	BIT_ULL(7)
#define PMUSCOPE_SPE_TEST_E_LLC_ACCESS	BIT_ULL(8)
#define PMUSCOPE_SPE_TEST_E_LLC_MISS	BIT_ULL(9)
#define PMUSCOPE_SPE_TEST_E_L2D		GENMASK_ULL(20, 19)
#define PMUSCOPE_SPE_TEST_E_LOAD_MISS \
	(PMUSCOPE_SPE_TEST_E_RETIRED | PMUSCOPE_SPE_TEST_E_L1D_ACCESS | \
	 PMUSCOPE_SPE_TEST_E_L1D_REFILL | PMUSCOPE_SPE_TEST_E_TLB_ACCESS | \
	 PMUSCOPE_SPE_TEST_E_LLC_ACCESS | PMUSCOPE_SPE_TEST_E_LLC_MISS)

/* A Neoverse-N1-like CPU whose Profiling Buffer EL2 owns (PMBIDR_EL1.P). */
static const struct pmuscope_model_profile pmuscope_spe_test_n1_el2 = {
	.name = "neoverse-n1, buffer owned by EL2",
	.midr = 0x414fd0c1,
	.dfr0 = 0x0000000110305408,
	.pmcr = 0x410c3000,
	.pmsidr = 0x00026417,
	.pmbidr = 0x00000030,
	.spe = &pmuscope_model_spe_n1,
};

/* -------------------------------------------------------------- access */
static u64 pmuscope_spe_test_rd(enum pmuscope_reg reg)
{
	return pmuscope_model_read_cpu(PMUSCOPE_SPE_TEST_CPU, reg);
}

static void pmuscope_spe_test_wr(enum pmuscope_reg reg, u64 val)
{
	pmuscope_model_write_cpu(PMUSCOPE_SPE_TEST_CPU, reg, val);
}

static struct pmuscope_model_cpu *pmuscope_spe_test_model(void)
{
	return pmuscope_model_get(PMUSCOPE_SPE_TEST_CPU);
}

static void pmuscope_spe_test_barrier_ipi(void *info)
{
	pmuscope_model_barrier(*(enum pmuscope_barrier *)info);
}

/* A barrier as the driver issues it: on the modelled CPU. */
static void pmuscope_spe_test_barrier(enum pmuscope_barrier b)
{
	WARN_ON(smp_call_function_single(PMUSCOPE_SPE_TEST_CPU,
					 pmuscope_spe_test_barrier_ipi, &b, 1));
}

/* What a driver does before it reads the buffer: PSB CSYNC, DSB NSH. */
static void pmuscope_spe_test_sync(void)
{
	pmuscope_spe_test_barrier(PMUSCOPE_BARRIER_PSB_CSYNC);
	pmuscope_spe_test_barrier(PMUSCOPE_BARRIER_DSB_NSH);
	pmuscope_spe_test_barrier(PMUSCOPE_BARRIER_ISB);
}

/*
 * Reset the model to @prof, and give it a buffer: 8 KiB page-aligned, the
 * first @reg bytes registered with the model, all of it filled with the
 * canary. The Profiling Buffer is [ptr, base + 4 KiB): LIMIT = base + 4 KiB.
 */
static u8 *pmuscope_spe_test_setup(struct kunit *test,
				   const struct pmuscope_model_profile *prof,
				   size_t reg)
{
	u8 *raw, *base;

	pmuscope_model_reset(PMUSCOPE_SPE_TEST_CPU, prof);
	raw = kunit_kzalloc(test, SZ_16K, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, raw);
	base = PTR_ALIGN(raw, SZ_4K);
	memset(base, PMUSCOPE_SPE_TEST_CANARY, SZ_8K);
	if (reg)
		KUNIT_ASSERT_EQ(test, pmuscope_model_spe_add_buffer(PMUSCOPE_SPE_TEST_CPU,
								    base, reg), 0);
	return base;
}

static u64 pmuscope_spe_test_limit(const u8 *base)
{
	return (u64)(unsigned long)base + SZ_4K;
}

static u64 pmuscope_spe_test_irr(unsigned int interval, bool rnd)
{
	return FIELD_PREP(PMUSCOPE_PMSIRR_INTERVAL, interval) | (rnd ? PMUSCOPE_PMSIRR_RND : 0);
}

/* Start profiling as a driver does; PMSFCR_EL1 and friends set before. */
static void pmuscope_spe_test_enable(u64 ptr, u64 limit, unsigned int fm, u64 pmscr,
				     u64 pmsirr)
{
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMSICR_EL1, 0);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMSIRR_EL1, pmsirr);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBPTR_EL1, ptr);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBSR_EL1, 0);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBLIMITR_EL1,
			     (limit & PMUSCOPE_PMBLIMITR_LIMIT) |
			     FIELD_PREP(PMUSCOPE_PMBLIMITR_FM, fm) | PMUSCOPE_PMBLIMITR_E);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMSCR_EL1, pmscr);
	pmuscope_spe_test_barrier(PMUSCOPE_BARRIER_ISB);
}

static const u64 pmuscope_spe_test_both_el =
	PMUSCOPE_PMSCR_E0SPE | PMUSCOPE_PMSCR_E1SPE;

/* Work of @insts operations, @el, @loads ... as in struct pmuscope_model_work. */
struct pmuscope_spe_test_work {
	u64 insts, loads, stores, branches, mispredicts;
	u32 latency;
	u8 el;
};

static void pmuscope_spe_test_run(const struct pmuscope_spe_test_work *t)
{
	struct pmuscope_model_work w = {
		.ns = t->insts * 1000,
		.cycles = t->insts,
		.insts = t->insts,
		.loads = t->loads,
		.stores = t->stores,
		.branches = t->branches,
		.mispredicts = t->mispredicts,
		.pc = PMUSCOPE_SPE_TEST_PC,
		.data_addr = PMUSCOPE_SPE_TEST_VA,
		.load_latency = t->latency,
		.el = t->el,
	};

	pmuscope_model_run(PMUSCOPE_SPE_TEST_CPU, &w);
}

static void pmuscope_spe_test_others(u64 insts)
{
	struct pmuscope_spe_test_work t = { .insts = insts, .el = 1 };

	pmuscope_spe_test_run(&t);
}

/* ---------------------------------------------------- packet decoder */

/* Packet types as perf's arm-spe-pkt-decoder.h names them. */
enum pmuscope_spe_test_pkt_type {
	PMUSCOPE_SPE_TEST_BAD,
	PMUSCOPE_SPE_TEST_PAD,
	PMUSCOPE_SPE_TEST_END,
	PMUSCOPE_SPE_TEST_TIMESTAMP,
	PMUSCOPE_SPE_TEST_ADDRESS,
	PMUSCOPE_SPE_TEST_COUNTER,
	PMUSCOPE_SPE_TEST_CONTEXT,
	PMUSCOPE_SPE_TEST_OP_TYPE,
	PMUSCOPE_SPE_TEST_EVENTS,
	PMUSCOPE_SPE_TEST_DATA_SOURCE,
};

struct pmuscope_spe_test_pkt {
	enum pmuscope_spe_test_pkt_type type;
	unsigned int index;
	u64 payload;
};

/*
 * One packet, as arm_spe_get_packet() parses it (Arm ARM D18.1.4): the
 * length in bytes, or -1 when @len is too short or the header unknown.
 */
static int pmuscope_spe_test_get_packet(const u8 *buf, size_t len,
					struct pmuscope_spe_test_pkt *p)
{
	unsigned int hdr, ext = 0, plen, i;

	memset(p, 0, sizeof(*p));
	if (!len)
		return -1;
	hdr = buf[0];
	if (hdr == 0x00) {
		p->type = PMUSCOPE_SPE_TEST_PAD;
		return 1;
	}
	if (hdr == 0x01) {
		p->type = PMUSCOPE_SPE_TEST_END;
		return 1;
	}
	if (hdr == 0x71) {
		p->type = PMUSCOPE_SPE_TEST_TIMESTAMP;
	} else if ((hdr & 0xcf) == 0x42) {
		p->type = PMUSCOPE_SPE_TEST_EVENTS;
	} else if ((hdr & 0xcf) == 0x43) {
		p->type = PMUSCOPE_SPE_TEST_DATA_SOURCE;
	} else if ((hdr & 0xfc) == 0x64) {
		p->type = PMUSCOPE_SPE_TEST_CONTEXT;
		p->index = hdr & 0x3;
	} else if ((hdr & 0xfc) == 0x48) {
		p->type = PMUSCOPE_SPE_TEST_OP_TYPE;
		p->index = hdr & 0x3;
	} else {
		if ((hdr & 0xfc) == 0x20) {
			if (len < 2 || !buf[1])
				return -1;
			ext = 1;
			hdr = buf[1];
		}
		if ((hdr & 0xf8) == 0xb0)
			p->type = PMUSCOPE_SPE_TEST_ADDRESS;
		else if ((hdr & 0xf8) == 0x98)
			p->type = PMUSCOPE_SPE_TEST_COUNTER;
		else
			return -1;
		p->index = ext ? ((buf[0] & 0x3) << 3) | (hdr & 0x7) : hdr & 0x7;
	}
	plen = 1U << ((buf[ext] >> 4) & 0x3);
	if (len < 1 + ext + plen)
		return -1;
	/* Little-endian payload (D18.1.2). */
	for (i = plen; i--; )
		p->payload = p->payload << 8 | buf[1 + ext + i];
	return 1 + ext + plen;
}

/* A decoded record. */
struct pmuscope_spe_test_rec {
	u64 start;			/* address of its first byte */
	unsigned int len;		/* bytes up to its End or Timestamp */
	unsigned int npkts;
	bool has_pc, has_target, has_va, has_pa, has_ds, has_ctx, has_ts;
	bool has_events, has_op, has_total, has_issue, ended;
	u64 pc, target, va, pa, ts, events, ds;
	u32 ctx;
	unsigned int op_class, op_sub, total, issue;
};

/* Decode one record at @buf: its length, or -1. */
static int pmuscope_spe_test_decode(const u8 *buf, size_t len,
				    struct pmuscope_spe_test_rec *r)
{
	struct pmuscope_spe_test_pkt p;
	unsigned int off = 0;
	int n;

	memset(r, 0, sizeof(*r));
	while (off < len) {
		n = pmuscope_spe_test_get_packet(buf + off, len - off, &p);
		if (n < 0 || p.type == PMUSCOPE_SPE_TEST_PAD)
			return -1;
		off += n;
		r->npkts++;
		switch (p.type) {
		case PMUSCOPE_SPE_TEST_END:
			r->ended = true;
			r->len = off;
			return off;
		case PMUSCOPE_SPE_TEST_TIMESTAMP:
			r->has_ts = true;
			r->ts = p.payload;
			r->ended = true;
			r->len = off;
			return off;
		case PMUSCOPE_SPE_TEST_ADDRESS:
			if (p.index == 0) {
				r->has_pc = true;
				r->pc = p.payload;
			} else if (p.index == 1) {
				r->has_target = true;
				r->target = p.payload;
			} else if (p.index == 2) {
				r->has_va = true;
				r->va = p.payload;
			} else if (p.index == 3) {
				r->has_pa = true;
				r->pa = p.payload;
			}
			break;
		case PMUSCOPE_SPE_TEST_COUNTER:
			if (p.index == 0) {
				r->has_total = true;
				r->total = p.payload;
			} else if (p.index == 1) {
				r->has_issue = true;
				r->issue = p.payload;
			}
			break;
		case PMUSCOPE_SPE_TEST_CONTEXT:
			r->has_ctx = true;
			r->ctx = p.payload;
			break;
		case PMUSCOPE_SPE_TEST_OP_TYPE:
			r->has_op = true;
			r->op_class = p.index;
			r->op_sub = p.payload;
			break;
		case PMUSCOPE_SPE_TEST_EVENTS:
			r->has_events = true;
			r->events = p.payload;
			break;
		case PMUSCOPE_SPE_TEST_DATA_SOURCE:
			r->has_ds = true;
			r->ds = p.payload;
			break;
		default:
			return -1;
		}
	}
	return -1;
}

/*
 * Decode the records in [@from, @to): padding only between records
 * (D18.1.3). Returns how many, or -1 on a malformed stream.
 */
static int pmuscope_spe_test_decode_all(u64 from, u64 to,
					struct pmuscope_spe_test_rec *recs,
					unsigned int max)
{
	const u8 *buf = (const u8 *)(unsigned long)from;
	size_t len = to - from, off = 0;
	unsigned int n = 0;
	int k;

	while (off < len) {
		if (!buf[off]) {
			off++;
			continue;
		}
		if (n == max)
			return -1;
		k = pmuscope_spe_test_decode(buf + off, len - off, &recs[n]);
		if (k < 0)
			return -1;
		recs[n].start = from + off;
		off += k;
		n++;
	}
	return n;
}

static struct pmuscope_spe_test_rec *pmuscope_spe_test_recs(struct kunit *test)
{
	struct pmuscope_spe_test_rec *recs;

	recs = kunit_kcalloc(test, PMUSCOPE_SPE_TEST_RECS, sizeof(*recs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, recs);
	return recs;
}

/* The index in the work of the operation a record sampled, from its PC. */
static u64 pmuscope_spe_test_op_index(const struct pmuscope_spe_test_rec *r)
{
	return ((r->pc & GENMASK_ULL(55, 0)) - (PMUSCOPE_SPE_TEST_PC & GENMASK_ULL(55, 0))) / 4;
}

/* Bytes from @p on that still hold the canary. */
static bool pmuscope_spe_test_untouched(const u8 *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != PMUSCOPE_SPE_TEST_CANARY)
			return false;
	return true;
}

static u64 pmuscope_spe_test_ptr(void)
{
	return pmuscope_spe_test_rd(PMUSCOPE_REG_PMBPTR_EL1);
}

/* ------------------------------------------------------------- gating */
struct pmuscope_spe_test_gate_case {
	const struct pmuscope_model_profile *prof;
	enum pmuscope_reg reg;
	bool present;
};

/*
 * Arm ARM D24.7 "Configuration": every SPE register is "present only when
 * FEAT_SPE is implemented" (ID_AA64DFR0_EL1.PMSVer != 0), PMSNEVFR_EL1
 * only with FEAT_SPE_FnE (PMSIDR_EL1.FnE, D24.7.17); otherwise UNDEFINED.
 */
static const struct pmuscope_spe_test_gate_case pmuscope_spe_test_gate_cases[] = {
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_PMSCR_EL1, false },
	{ &pmuscope_model_cortex_a53, PMUSCOPE_REG_PMBIDR_EL1, false },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMSCR_EL1, true },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMSNEVFR_EL1, false },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMSNEVFR_EL1, true },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMBSR_EL1, true },
};

static void pmuscope_spe_test_gate_desc(const struct pmuscope_spe_test_gate_case *c,
					char *d)
{
	char name[32];

	pmuscope_model_reg_name(c->reg, name, sizeof(name));
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "D24.7 %s %s: %s", c->prof->name, name,
		 c->present ? "present" : "UNDEFINED");
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_gate, pmuscope_spe_test_gate_cases,
		  pmuscope_spe_test_gate_desc);

static void pmuscope_spe_test_gate(struct kunit *test)
{
	const struct pmuscope_spe_test_gate_case *c = test->param_value;

	pmuscope_model_reset(PMUSCOPE_SPE_TEST_CPU, c->prof);
	pmuscope_spe_test_rd(c->reg);
	pmuscope_spe_test_wr(c->reg, 0);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_spe_test_model()->violations,
			    c->present ? 0 : 2, "%s", c->prof->name);
}

/* ------------------------------------------------------ writable bits */
struct pmuscope_spe_test_mask_case {
	const struct pmuscope_model_profile *prof;
	enum pmuscope_reg reg;
	u64 write;
	u64 read;
	const char *why;
};

static const struct pmuscope_spe_test_mask_case pmuscope_spe_test_mask_cases[] = {
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMSCR_EL1, ~0ULL, 0x7b,
	  "D24.7.8 PCT[1] RES0 without FEAT_ECV" },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMSCR_EL1, ~0ULL, 0xfb,
	  "D24.7.8 PCT[1:0] with FEAT_ECV, EE/KE RES0" },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMSFCR_EL1, ~0ULL, 0x70007,
	  "D24.7.12 FnE RES0 when PMSIDR_EL1.FnE == 0" },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMSFCR_EL1, ~0ULL, 0x7000f,
	  "D24.7.12 FnE with FEAT_SPE_FnE, EFT bits RES0" },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMSEVFR_EL1, ~0ULL, 0xaa,
	  "D24.7.11 SPEv1: E[1,3,5,7], others RAZ/WI" },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMSEVFR_EL1, ~0ULL, 0x180ffe,
	  "D24.7.11 SPEv1p4: E[11:1], E[20:19], no SVE" },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMSNEVFR_EL1, ~0ULL, 0x180ffe,
	  "D24.7.17 same bits as PMSEVFR_EL1" },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMSICR_EL1, ~0ULL, 0xffffffffULL,
	  "D24.7.13 ECOUNT RES0 without FEAT_SPE_ERnd" },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMSICR_EL1, ~0ULL, 0xff000000ffffffffULL,
	  "D24.7.13 ECOUNT with FEAT_SPE_ERnd" },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMSIRR_EL1, ~0ULL, 0xffffff01ULL,
	  "D24.7.15 INTERVAL[31:8], RND" },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMSLATFR_EL1, ~0ULL, 0xfff,
	  "D24.7.16 MINLAT[15:12] RES0 with 12-bit counters" },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMSLATFR_EL1, ~0ULL, 0xffff,
	  "D24.7.16 MINLAT[15:0] with 16-bit counters" },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMBLIMITR_EL1, ~1ULL,
	  0xfffffffffffff006ULL, "D24.7.2 PMFZ RES0 before SPEv1p2" },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMBLIMITR_EL1, ~1ULL,
	  0xfffffffffffff026ULL, "D24.7.2 LIMIT, PMFZ, FM" },
	{ &pmuscope_model_v94, PMUSCOPE_REG_PMBPTR_EL1, ~0ULL, ~0ULL,
	  "D24.7.4 PTR[63:0]" },
	{ &pmuscope_model_neoverse_n1, PMUSCOPE_REG_PMBSR_EL1, ~0ULL, 0xfc0f003fULL,
	  "D24.7.5 EC, DL, EA, S, COLL, MSS[5:0]" },
};

static void pmuscope_spe_test_mask_desc(const struct pmuscope_spe_test_mask_case *c,
					char *d)
{
	char name[32];

	pmuscope_model_reg_name(c->reg, name, sizeof(name));
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s %s <- 0x%llx: %s", c->prof->name, name,
		 c->write, c->why);
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_mask, pmuscope_spe_test_mask_cases,
		  pmuscope_spe_test_mask_desc);

static void pmuscope_spe_test_masks(struct kunit *test)
{
	const struct pmuscope_spe_test_mask_case *c = test->param_value;
	char name[32];

	pmuscope_model_reg_name(c->reg, name, sizeof(name));
	pmuscope_model_reset(PMUSCOPE_SPE_TEST_CPU, c->prof);
	pmuscope_spe_test_wr(c->reg, c->write);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_spe_test_rd(c->reg), c->read,
			    "%s %s: %s", c->prof->name, name, c->why);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
}

/* D24.7.1, D24.7.14: the ID registers read the profile and are read-only. */
static void pmuscope_spe_test_id_regs(struct kunit *test)
{
	const struct pmuscope_model_profile *profs[] = {
		&pmuscope_model_neoverse_n1, &pmuscope_model_v94,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(profs); i++) {
		pmuscope_model_reset(PMUSCOPE_SPE_TEST_CPU, profs[i]);
		KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMSIDR_EL1),
				profs[i]->pmsidr);
		KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMBIDR_EL1),
				profs[i]->pmbidr);
		/* FE, FT, FL "Reads as 0b1" (D24.7.14) */
		KUNIT_EXPECT_EQ(test, profs[i]->pmsidr & 0x7, 0x7);
		pmuscope_spe_test_wr(PMUSCOPE_REG_PMSIDR_EL1, 0);
		pmuscope_spe_test_wr(PMUSCOPE_REG_PMBIDR_EL1, 0);
		KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 2);
		KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMSIDR_EL1),
				profs[i]->pmsidr);
	}
}

/*
 * D24.7.1 PMBIDR_EL1.P = 1: the buffer belongs to a higher Exception level;
 * an EL1 access to PMBLIMITR_EL1/PMBPTR_EL1/PMBSR_EL1 traps (MDCR_EL2.E2PB
 * 'x0', D24.7.2/4/5 accessibility pseudocode); the PMS* registers do not.
 */
static void pmuscope_spe_test_owned_higher(struct kunit *test)
{
	pmuscope_model_reset(PMUSCOPE_SPE_TEST_CPU, &pmuscope_spe_test_n1_el2);
	KUNIT_EXPECT_TRUE(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMBIDR_EL1) &
			  PMUSCOPE_PMBIDR_P);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMSCR_EL1, PMUSCOPE_PMSCR_E1SPE);
	pmuscope_spe_test_rd(PMUSCOPE_REG_PMSIRR_EL1);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
	pmuscope_spe_test_rd(PMUSCOPE_REG_PMBPTR_EL1);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 1);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->first_violation.reg,
			PMUSCOPE_REG_PMBPTR_EL1);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBLIMITR_EL1, PMUSCOPE_PMBLIMITR_E);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBSR_EL1, 0);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 3);
}

/* ----------------------------------------------- interval and jitter */
struct pmuscope_spe_test_interval_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	unsigned int interval;	/* PMSIRR_EL1.INTERVAL */
	bool rnd;
	u64 gap_min, gap_max;	/* between selected operations */
	u64 first_min, first_max;
};

/*
 * D17.3.4 and pseudocode SPEToCollectSample()/SPEResetSampleCounter():
 * RND = 0: one operation in INTERVAL x 256 + 1; RND = 1 without ERnd:
 * COUNT[7:0] random on reload, interval in [N + 1, N + 256]; RND = 1 with
 * FEAT_SPE_ERnd: the sample is ECOUNT (0..255) operations after the primary
 * expiry, so gaps are N + 1 +/- 255 (mean N + 1). A zero PMSICR_EL1 is
 * loaded first (D17.3.3).
 */
static const struct pmuscope_spe_test_interval_case pmuscope_spe_test_interval_cases[] = {
	{ "D17.3.4.1 n1 RND=0", &pmuscope_model_neoverse_n1, 4, false,
	  1025, 1025, 1024, 1024 },
	{ "D17.3.4.2 n1 RND=1 (no ERnd)", &pmuscope_model_neoverse_n1, 4, true,
	  1025, 1280, 1024, 1279 },
	{ "D17.3.4.1 v9.4 RND=0", &pmuscope_model_v94, 2, false,
	  513, 513, 512, 512 },
	{ "D17.3.4.3 v9.4 RND=1 ERnd", &pmuscope_model_v94, 2, true,
	  513 - 255, 513 + 255, 512, 512 + 255 },
};

static void pmuscope_spe_test_interval_desc(const struct pmuscope_spe_test_interval_case *c,
					    char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s: INTERVAL %u, gaps %llu..%llu", c->name,
		 c->interval, c->gap_min, c->gap_max);
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_interval, pmuscope_spe_test_interval_cases,
		  pmuscope_spe_test_interval_desc);

static void pmuscope_spe_test_interval(struct kunit *test)
{
	const struct pmuscope_spe_test_interval_case *c = test->param_value;
	struct pmuscope_spe_test_rec *recs = pmuscope_spe_test_recs(test);
	u8 *base = pmuscope_spe_test_setup(test, c->prof, SZ_4K);
	u64 start = (unsigned long)base, prev = 0, idx;
	bool varied = false;
	int n, i;

	pmuscope_spe_test_enable(start, pmuscope_spe_test_limit(base), 0,
				 PMUSCOPE_PMSCR_E1SPE, pmuscope_spe_test_irr(c->interval, c->rnd));
	pmuscope_spe_test_others(40 * c->gap_min);
	pmuscope_spe_test_sync();
	n = pmuscope_spe_test_decode_all(start, pmuscope_spe_test_ptr(), recs,
					 PMUSCOPE_SPE_TEST_RECS);
	KUNIT_ASSERT_GT_MSG(test, n, 10, "%s: records", c->name);
	for (i = 0; i < n; i++) {
		idx = pmuscope_spe_test_op_index(&recs[i]);
		if (!i) {
			KUNIT_EXPECT_GE_MSG(test, idx, c->first_min, "%s: first", c->name);
			KUNIT_EXPECT_LE_MSG(test, idx, c->first_max, "%s: first", c->name);
		} else {
			KUNIT_EXPECT_GE_MSG(test, idx - prev, c->gap_min, "%s: gap %d",
					    c->name, i);
			KUNIT_EXPECT_LE_MSG(test, idx - prev, c->gap_max, "%s: gap %d",
					    c->name, i);
			if (i > 1 && idx - prev != pmuscope_spe_test_op_index(&recs[i - 1]) -
			    pmuscope_spe_test_op_index(&recs[i - 2]))
				varied = true;
		}
		prev = idx;
	}
	KUNIT_EXPECT_EQ_MSG(test, varied, c->rnd, "%s: jitter seen", c->name);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
}

/*
 * D17.3.5: while profiling is disabled (here: at EL0 with only E1SPE, and
 * with the buffer disabled) the counter keeps its value; D17.3.3: profiling
 * restarts from a nonzero PMSICR_EL1.
 */
static void pmuscope_spe_test_counter_kept(struct kunit *test)
{
	struct pmuscope_spe_test_rec *recs = pmuscope_spe_test_recs(test);
	u8 *base = pmuscope_spe_test_setup(test, &pmuscope_model_neoverse_n1, SZ_4K);
	struct pmuscope_spe_test_work el0 = { .insts = 100000, .el = 0 };
	struct pmuscope_spe_test_work el2 = { .insts = 100000, .el = 2 };
	u64 start = (unsigned long)base, icr;
	int n;

	pmuscope_spe_test_enable(start, pmuscope_spe_test_limit(base), 0,
				 PMUSCOPE_PMSCR_E1SPE, pmuscope_spe_test_irr(4, false));
	pmuscope_spe_test_others(1500);	/* reload at 0, sample at 1024 */
	pmuscope_spe_test_sync();
	icr = pmuscope_spe_test_rd(PMUSCOPE_REG_PMSICR_EL1);
	KUNIT_EXPECT_EQ(test, icr, 1024 - (1500 - 1025 - 1));
	pmuscope_spe_test_run(&el0);
	pmuscope_spe_test_run(&el2);	/* the buffer belongs to EL1 */
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMSICR_EL1), icr);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBLIMITR_EL1, pmuscope_spe_test_limit(base));
	pmuscope_spe_test_others(100000);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMSICR_EL1), icr);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBLIMITR_EL1,
			     pmuscope_spe_test_limit(base) | PMUSCOPE_PMBLIMITR_E);
	pmuscope_spe_test_others(icr);
	pmuscope_spe_test_sync();
	n = pmuscope_spe_test_decode_all(start, pmuscope_spe_test_ptr(), recs,
					 PMUSCOPE_SPE_TEST_RECS);
	KUNIT_ASSERT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_op_index(&recs[1]), icr - 1);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
}

/* --------------------------------------------------------- sample count */
struct pmuscope_spe_test_count_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	unsigned int interval;
	bool rnd;
	u64 insts;
	u64 min, max;
};

/*
 * D17.3.4: samples = ops / interval within the jitter; D17.1 and D14.2:
 * the SPU counts SAMPLE_POP (every operation of the population),
 * SAMPLE_FEED (samples taken) and SAMPLE_FILTRATE (kept by the filters).
 */
static const struct pmuscope_spe_test_count_case pmuscope_spe_test_count_cases[] = {
	{ "n1 RND=0", &pmuscope_model_neoverse_n1, 4, false, 150000,
	  150000 / 1025, 150000 / 1025 },
	{ "n1 RND=1", &pmuscope_model_neoverse_n1, 4, true, 150000,
	  150000 / 1280, 150000 / 1025 },
	{ "v9.4 RND=0", &pmuscope_model_v94, 4, false, 55000,
	  55000 / 1025, 55000 / 1025 },
	{ "v9.4 RND=1 ERnd", &pmuscope_model_v94, 4, true, 55000,
	  55000 / 1025 - 1, 55000 / 1025 },
};

static void pmuscope_spe_test_count_desc(const struct pmuscope_spe_test_count_case *c,
					 char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "D17.3.4 %s: %llu ops, INTERVAL %u -> %llu..%llu",
		 c->name, c->insts, c->interval, c->min, c->max);
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_count, pmuscope_spe_test_count_cases,
		  pmuscope_spe_test_count_desc);

static void pmuscope_spe_test_count(struct kunit *test)
{
	const struct pmuscope_spe_test_count_case *c = test->param_value;
	struct pmuscope_spe_test_rec *recs = pmuscope_spe_test_recs(test);
	u8 *base = pmuscope_spe_test_setup(test, c->prof, SZ_4K);
	u64 start = (unsigned long)base;
	unsigned int i;
	int n;

	for (i = 0; i < 3; i++)
		pmuscope_spe_test_wr(PMUSCOPE_REG_PMEVTYPER(i), 0x4000 + i);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMCNTENSET_EL0, 0x7);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_E);
	pmuscope_spe_test_enable(start, pmuscope_spe_test_limit(base), 0,
				 PMUSCOPE_PMSCR_E1SPE, pmuscope_spe_test_irr(c->interval, c->rnd));
	pmuscope_spe_test_others(c->insts);
	pmuscope_spe_test_sync();
	n = pmuscope_spe_test_decode_all(start, pmuscope_spe_test_ptr(), recs,
					 PMUSCOPE_SPE_TEST_RECS);
	KUNIT_EXPECT_GE_MSG(test, n, c->min, "%s", c->name);
	KUNIT_EXPECT_LE_MSG(test, n, c->max, "%s", c->name);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU));
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMEVCNTR(0)), c->insts);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMEVCNTR(1)), n);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMEVCNTR(2)), n);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
}

/* ------------------------------------------------------------- filters */
enum pmuscope_spe_test_pred {
	PMUSCOPE_SPE_TEST_P_ALL,
	PMUSCOPE_SPE_TEST_P_NONE,
	PMUSCOPE_SPE_TEST_P_LOADS,
	PMUSCOPE_SPE_TEST_P_BRANCHES,
	PMUSCOPE_SPE_TEST_P_ST_BR,
	PMUSCOPE_SPE_TEST_P_LDST,
	PMUSCOPE_SPE_TEST_P_MISPRED,
	PMUSCOPE_SPE_TEST_P_NOT_MISPRED,
};

struct pmuscope_spe_test_filter_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	u64 pmsfcr, evfr, nevfr, minlat;
	enum pmuscope_spe_test_pred keep;
};

/*
 * D17.5 and pseudocode SPECollectRecord(): SPEFilterByType() (FT with
 * PMSFCR_EL1.{B, LD, ST}: any of the selected types), SPEFilterByEvents()
 * (FE: all PMSEVFR_EL1 events; FnE: none of PMSNEVFR_EL1's), and
 * SPEFilterByLatency() (FL: total latency >= MINLAT); filters AND together.
 * RES0/RAZ-WI bits do not filter; the CONSTRAINED UNPREDICTABLE set-ups
 * (D24.7.12) record nothing in this model.
 */
static const struct pmuscope_spe_test_filter_case pmuscope_spe_test_filter_cases[] = {
	{ "D17.5 no filter", &pmuscope_model_neoverse_n1, 0, 0, 0, 0,
	  PMUSCOPE_SPE_TEST_P_ALL },
	{ "D17.5.1 FT LD", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_PMSFCR_FT | PMUSCOPE_PMSFCR_LD, 0, 0, 0, PMUSCOPE_SPE_TEST_P_LOADS },
	{ "D17.5.1 FT B|ST", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_PMSFCR_FT | PMUSCOPE_PMSFCR_B | PMUSCOPE_PMSFCR_ST, 0, 0, 0,
	  PMUSCOPE_SPE_TEST_P_ST_BR },
	{ "D17.5.1 v9.4 FT B", &pmuscope_model_v94,
	  PMUSCOPE_PMSFCR_FT | PMUSCOPE_PMSFCR_B, 0, 0, 0, PMUSCOPE_SPE_TEST_P_BRANCHES },
	{ "D24.7.12 FT with no type: C.U., none", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_PMSFCR_FT, 0, 0, 0, PMUSCOPE_SPE_TEST_P_NONE },
	{ "D17.5.2 FE L1D refill", &pmuscope_model_neoverse_n1, PMUSCOPE_PMSFCR_FE,
	  PMUSCOPE_SPE_TEST_E_L1D_REFILL, 0, 0, PMUSCOPE_SPE_TEST_P_LOADS },
	{ "D17.5.2 FE mispredicted", &pmuscope_model_neoverse_n1, PMUSCOPE_PMSFCR_FE,
	  PMUSCOPE_SPE_TEST_E_MISPRED, 0, 0, PMUSCOPE_SPE_TEST_P_MISPRED },
	{ "D24.7.11 n1 E[2] RAZ/WI: FE empty, none", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_PMSFCR_FE, PMUSCOPE_SPE_TEST_E_L1D_ACCESS, 0, 0,
	  PMUSCOPE_SPE_TEST_P_NONE },
	{ "D17.5.2 v9.4 FE L1D access", &pmuscope_model_v94, PMUSCOPE_PMSFCR_FE,
	  PMUSCOPE_SPE_TEST_E_L1D_ACCESS, 0, 0, PMUSCOPE_SPE_TEST_P_LDST },
	{ "D17.5.2 v9.4 FnE mispredicted", &pmuscope_model_v94, PMUSCOPE_PMSFCR_FNE,
	  0, PMUSCOPE_SPE_TEST_E_MISPRED, 0, PMUSCOPE_SPE_TEST_P_NOT_MISPRED },
	{ "D24.7.12 n1 FnE RES0: no filter", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_PMSFCR_FNE, 0, 0, 0, PMUSCOPE_SPE_TEST_P_ALL },
	{ "D17.5.3 FL MINLAT 100", &pmuscope_model_neoverse_n1, PMUSCOPE_PMSFCR_FL,
	  0, 0, 100, PMUSCOPE_SPE_TEST_P_LOADS },
	{ "D17.5.3 v9.4 FL MINLAT = latency", &pmuscope_model_v94, PMUSCOPE_PMSFCR_FL,
	  0, 0, 150, PMUSCOPE_SPE_TEST_P_LOADS },
	{ "D17.5.3 FL MINLAT above", &pmuscope_model_neoverse_n1, PMUSCOPE_PMSFCR_FL,
	  0, 0, 151, PMUSCOPE_SPE_TEST_P_NONE },
	{ "D17.5 v9.4 FE L1D refill AND FT B", &pmuscope_model_v94,
	  PMUSCOPE_PMSFCR_FE | PMUSCOPE_PMSFCR_FT | PMUSCOPE_PMSFCR_B,
	  PMUSCOPE_SPE_TEST_E_L1D_REFILL, 0, 0, PMUSCOPE_SPE_TEST_P_NONE },
};

static void pmuscope_spe_test_filter_desc(const struct pmuscope_spe_test_filter_case *c,
					  char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE,
		 "%s (%s, PMSFCR 0x%llx EVFR 0x%llx NEVFR 0x%llx MINLAT %llu)",
		 c->name, c->prof->name, c->pmsfcr, c->evfr, c->nevfr, c->minlat);
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_filter, pmuscope_spe_test_filter_cases,
		  pmuscope_spe_test_filter_desc);

static bool pmuscope_spe_test_keeps(enum pmuscope_spe_test_pred p,
				    const struct pmuscope_spe_test_rec *r)
{
	bool load = r->op_class == 1 && !(r->op_sub & 1);
	bool store = r->op_class == 1 && (r->op_sub & 1);
	bool branch = r->op_class == 2;
	bool mispred = r->events & PMUSCOPE_SPE_TEST_E_MISPRED;

	switch (p) {
	case PMUSCOPE_SPE_TEST_P_ALL:
		return true;
	case PMUSCOPE_SPE_TEST_P_LOADS:
		return load;
	case PMUSCOPE_SPE_TEST_P_BRANCHES:
		return branch;
	case PMUSCOPE_SPE_TEST_P_ST_BR:
		return store || branch;
	case PMUSCOPE_SPE_TEST_P_LDST:
		return load || store;
	case PMUSCOPE_SPE_TEST_P_MISPRED:
		return mispred;
	case PMUSCOPE_SPE_TEST_P_NOT_MISPRED:
		return !mispred;
	default:
		return false;
	}
}

/* The mixed work: a quarter each loads (150 cycles), stores, branches. */
static const struct pmuscope_spe_test_work pmuscope_spe_test_mixed = {
	.insts = 257 * 55, .loads = 257 * 55 / 4, .stores = 257 * 55 / 4,
	.branches = 257 * 55 / 4, .mispredicts = 257 * 55 / 8, .latency = 150, .el = 1,
};

/* Run the mixed work on @prof with the filters of @c; records into @recs. */
static int pmuscope_spe_test_filtered(struct kunit *test,
				      const struct pmuscope_spe_test_filter_case *c,
				      bool filter, struct pmuscope_spe_test_rec *recs)
{
	u8 *base = pmuscope_spe_test_setup(test, c->prof, SZ_4K);
	u64 start = (unsigned long)base;

	if (filter) {
		pmuscope_spe_test_wr(PMUSCOPE_REG_PMSFCR_EL1, c->pmsfcr);
		pmuscope_spe_test_wr(PMUSCOPE_REG_PMSEVFR_EL1, c->evfr);
		if (c->nevfr)
			pmuscope_spe_test_wr(PMUSCOPE_REG_PMSNEVFR_EL1, c->nevfr);
		pmuscope_spe_test_wr(PMUSCOPE_REG_PMSLATFR_EL1, c->minlat);
	}
	pmuscope_spe_test_enable(start, pmuscope_spe_test_limit(base), 0,
				 PMUSCOPE_PMSCR_E1SPE, pmuscope_spe_test_irr(1, false));
	pmuscope_spe_test_run(&pmuscope_spe_test_mixed);
	pmuscope_spe_test_sync();
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU));
	return pmuscope_spe_test_decode_all(start, pmuscope_spe_test_ptr(), recs,
					    PMUSCOPE_SPE_TEST_RECS);
}

static void pmuscope_spe_test_filter(struct kunit *test)
{
	const struct pmuscope_spe_test_filter_case *c = test->param_value;
	struct pmuscope_spe_test_rec *all = pmuscope_spe_test_recs(test);
	struct pmuscope_spe_test_rec *kept = pmuscope_spe_test_recs(test);
	int nall, nkept, i, j = 0;

	nall = pmuscope_spe_test_filtered(test, c, false, all);
	nkept = pmuscope_spe_test_filtered(test, c, true, kept);
	KUNIT_ASSERT_GT(test, nall, 40);
	KUNIT_ASSERT_GE(test, nkept, 0);
	for (i = 0; i < nall; i++) {
		if (!pmuscope_spe_test_keeps(c->keep, &all[i]))
			continue;
		KUNIT_ASSERT_LT_MSG(test, j, nkept, "%s: record %d (op %llu) filtered out",
				    c->name, i, pmuscope_spe_test_op_index(&all[i]));
		KUNIT_EXPECT_EQ_MSG(test, kept[j].pc, all[i].pc, "%s: record %d", c->name, j);
		j++;
	}
	KUNIT_EXPECT_EQ_MSG(test, nkept, j, "%s: records kept", c->name);
	if (c->keep != PMUSCOPE_SPE_TEST_P_NONE)
		KUNIT_EXPECT_GT_MSG(test, j, 3, "%s: too few to tell", c->name);
}

/* ------------------------------------------------------- record format */
enum pmuscope_spe_test_kind {
	PMUSCOPE_SPE_TEST_K_LOAD,
	PMUSCOPE_SPE_TEST_K_STORE,
	PMUSCOPE_SPE_TEST_K_BRANCH,
	PMUSCOPE_SPE_TEST_K_OTHER,
};

struct pmuscope_spe_test_fmt_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	enum pmuscope_spe_test_kind kind;
	u64 pmscr;		/* CX, PA, TS */
	u8 el;
	u32 latency;
	/* expected */
	u64 events;
	unsigned int total;
	bool ds;
	u64 ds_val;
};

/*
 * D18 and pseudocode SPEConstructRecord(): Context (CX), Counter (total,
 * issue latency, saturating at PMSIDR_EL1.CountSize, D18.2.3), Address (PC
 * with EL and NS; branch target; data VA; data PA with PA), Data Source
 * (loads, PMSIDR_EL1.LDS), Operation Type (D18.2.7), Events (D18.2.6), then
 * Timestamp (TS) or End, padded to PMBIDR_EL1.Align, at most
 * 2^PMSIDR_EL1.MaxSize bytes.
 */
static const struct pmuscope_spe_test_fmt_case pmuscope_spe_test_fmt_cases[] = {
	{ "n1 load CX TS PA", &pmuscope_model_neoverse_n1, PMUSCOPE_SPE_TEST_K_LOAD,
	  PMUSCOPE_PMSCR_CX | PMUSCOPE_PMSCR_TS | PMUSCOPE_PMSCR_PA, 1, 150,
	  PMUSCOPE_SPE_TEST_E_LOAD_MISS, 150, true, 0xe },
	{ "n1 load L2 hit", &pmuscope_model_neoverse_n1, PMUSCOPE_SPE_TEST_K_LOAD, 0, 1, 10,
	  PMUSCOPE_SPE_TEST_E_RETIRED | PMUSCOPE_SPE_TEST_E_L1D_ACCESS |
	  PMUSCOPE_SPE_TEST_E_L1D_REFILL | PMUSCOPE_SPE_TEST_E_TLB_ACCESS, 10, true, 0x8 },
	{ "n1 load saturates 12-bit", &pmuscope_model_neoverse_n1, PMUSCOPE_SPE_TEST_K_LOAD,
	  0, 1, 5000, PMUSCOPE_SPE_TEST_E_LOAD_MISS, 0xfff, true, 0xe },
	{ "v9.4 load 16-bit, no LDS", &pmuscope_model_v94, PMUSCOPE_SPE_TEST_K_LOAD,
	  PMUSCOPE_PMSCR_CX | PMUSCOPE_PMSCR_PA, 1, 5000,
	  PMUSCOPE_SPE_TEST_E_LOAD_MISS | PMUSCOPE_SPE_TEST_E_L2D, 5000, false, 0 },
	{ "n1 store EL0", &pmuscope_model_neoverse_n1, PMUSCOPE_SPE_TEST_K_STORE,
	  PMUSCOPE_PMSCR_CX, 0, 150, PMUSCOPE_SPE_TEST_E_RETIRED |
	  PMUSCOPE_SPE_TEST_E_L1D_ACCESS | PMUSCOPE_SPE_TEST_E_TLB_ACCESS, 1, false, 0 },
	{ "v9.4 branch mispredicted TS", &pmuscope_model_v94, PMUSCOPE_SPE_TEST_K_BRANCH,
	  PMUSCOPE_PMSCR_TS, 1, 150,
	  PMUSCOPE_SPE_TEST_E_RETIRED | PMUSCOPE_SPE_TEST_E_MISPRED, 1, false, 0 },
	{ "n1 other EL0 TS", &pmuscope_model_neoverse_n1, PMUSCOPE_SPE_TEST_K_OTHER,
	  PMUSCOPE_PMSCR_TS, 0, 150, PMUSCOPE_SPE_TEST_E_RETIRED, 1, false, 0 },
};

static void pmuscope_spe_test_fmt_desc(const struct pmuscope_spe_test_fmt_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "D18 %s (PMSCR 0x%llx, EL%u, latency %u)",
		 c->name, c->pmscr, c->el, c->latency);
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_fmt, pmuscope_spe_test_fmt_cases,
		  pmuscope_spe_test_fmt_desc);

static void pmuscope_spe_test_format(struct kunit *test)
{
	const struct pmuscope_spe_test_fmt_case *c = test->param_value;
	struct pmuscope_spe_test_rec *recs = pmuscope_spe_test_recs(test);
	u8 *base = pmuscope_spe_test_setup(test, c->prof, SZ_4K);
	struct pmuscope_spe_test_work w = {
		.insts = 257, .latency = c->latency, .el = c->el,
	};
	unsigned int align = FIELD_GET(PMUSCOPE_PMBIDR_ALIGN, c->prof->pmbidr);
	unsigned int maxsize = 1U << FIELD_GET(PMUSCOPE_PMSIDR_MAXSIZE, c->prof->pmsidr);
	bool ldst = c->kind == PMUSCOPE_SPE_TEST_K_LOAD || c->kind == PMUSCOPE_SPE_TEST_K_STORE;
	u64 start = (unsigned long)base, pc = PMUSCOPE_SPE_TEST_PC + 4 * 256, end;
	const struct pmuscope_spe_test_rec *r = recs;
	int n;

	switch (c->kind) {
	case PMUSCOPE_SPE_TEST_K_LOAD:
		w.loads = w.insts;
		break;
	case PMUSCOPE_SPE_TEST_K_STORE:
		w.stores = w.insts;
		break;
	case PMUSCOPE_SPE_TEST_K_BRANCH:
		w.branches = w.insts;
		w.mispredicts = w.insts;
		break;
	default:
		break;
	}
	pmuscope_model_spe_set_contextidr(PMUSCOPE_SPE_TEST_CPU, PMUSCOPE_SPE_TEST_CTX);
	pmuscope_spe_test_enable(start, pmuscope_spe_test_limit(base), 0,
				 pmuscope_spe_test_both_el | c->pmscr,
				 pmuscope_spe_test_irr(1, false));
	pmuscope_spe_test_run(&w);
	pmuscope_spe_test_sync();
	end = pmuscope_spe_test_ptr();
	n = pmuscope_spe_test_decode_all(start, end, recs, PMUSCOPE_SPE_TEST_RECS);
	KUNIT_ASSERT_EQ_MSG(test, n, 1, "%s: records", c->name);

	/* Size, padding (pseudocode SPEConstructRecord()), MaxSize. */
	KUNIT_EXPECT_EQ_MSG(test, (end - start) % (1U << align), 0, "%s: %llu bytes",
			    c->name, end - start);
	KUNIT_EXPECT_LE_MSG(test, end - start, maxsize, "%s", c->name);
	KUNIT_EXPECT_TRUE(test, r->ended);
	KUNIT_EXPECT_EQ_MSG(test, r->has_ts, !!(c->pmscr & PMUSCOPE_PMSCR_TS), "%s", c->name);
	if (r->has_ts)
		KUNIT_EXPECT_EQ(test, r->ts, 256 * 1000);
	/* Address packets (D18.2.1). */
	KUNIT_ASSERT_TRUE(test, r->has_pc);
	KUNIT_EXPECT_EQ_MSG(test, r->pc & GENMASK_ULL(55, 0), pc & GENMASK_ULL(55, 0),
			    "%s: PC", c->name);
	KUNIT_EXPECT_EQ_MSG(test, FIELD_GET(GENMASK_ULL(62, 61), r->pc), c->el,
			    "%s: EL", c->name);
	KUNIT_EXPECT_TRUE_MSG(test, r->pc & BIT_ULL(63), "%s: NS", c->name);
	KUNIT_EXPECT_EQ_MSG(test, r->has_va, ldst, "%s: data VA", c->name);
	if (c->kind == PMUSCOPE_SPE_TEST_K_LOAD || c->kind == PMUSCOPE_SPE_TEST_K_STORE)
		KUNIT_EXPECT_EQ(test, r->va, PMUSCOPE_SPE_TEST_VA + 8 * 256);
	KUNIT_EXPECT_EQ_MSG(test, r->has_pa, ldst && (c->pmscr & PMUSCOPE_PMSCR_PA),
			    "%s: data PA", c->name);
	if (r->has_pa)
		KUNIT_EXPECT_EQ(test, r->pa & GENMASK_ULL(47, 0),
				(PMUSCOPE_SPE_TEST_VA + 8 * 256) & GENMASK_ULL(47, 0));
	KUNIT_EXPECT_EQ_MSG(test, r->has_target, c->kind == PMUSCOPE_SPE_TEST_K_BRANCH,
			    "%s: branch target", c->name);
	if (r->has_target)
		KUNIT_EXPECT_EQ(test, r->target & GENMASK_ULL(55, 0),
				(pc + 4) & GENMASK_ULL(55, 0));
	/* Counters (D18.2.3). */
	KUNIT_EXPECT_TRUE(test, r->has_total && r->has_issue);
	KUNIT_EXPECT_EQ_MSG(test, r->total, c->total, "%s: total latency", c->name);
	KUNIT_EXPECT_EQ(test, r->issue, 1);
	/* Events, Operation Type, Data Source, Context. */
	KUNIT_EXPECT_TRUE(test, r->has_events && r->has_op);
	KUNIT_EXPECT_EQ_MSG(test, r->events, c->events, "%s: events", c->name);
	switch (c->kind) {
	case PMUSCOPE_SPE_TEST_K_LOAD:
		KUNIT_EXPECT_EQ(test, r->op_class, 1);
		KUNIT_EXPECT_EQ(test, r->op_sub, 0);
		break;
	case PMUSCOPE_SPE_TEST_K_STORE:
		KUNIT_EXPECT_EQ(test, r->op_class, 1);
		KUNIT_EXPECT_EQ(test, r->op_sub, 1);
		break;
	case PMUSCOPE_SPE_TEST_K_BRANCH:
		KUNIT_EXPECT_EQ(test, r->op_class, 2);
		KUNIT_EXPECT_EQ(test, r->op_sub, 1);	/* conditional, direct */
		break;
	default:
		KUNIT_EXPECT_EQ(test, r->op_class, 0);
		KUNIT_EXPECT_EQ(test, r->op_sub, 0);
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, r->has_ds, c->ds, "%s: data source", c->name);
	if (c->ds)
		KUNIT_EXPECT_EQ(test, r->ds, c->ds_val);
	KUNIT_EXPECT_EQ_MSG(test, r->has_ctx, !!(c->pmscr & PMUSCOPE_PMSCR_CX),
			    "%s: context", c->name);
	if (r->has_ctx)
		KUNIT_EXPECT_EQ(test, r->ctx, PMUSCOPE_SPE_TEST_CTX);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
}

/* ----------------------------------------------------- write pointer */

/*
 * pseudocode SPEWriteToBuffer(): every byte is written at PMBPTR_EL1,
 * which then increments; records follow each other, padded to
 * PMBIDR_EL1.Align (fixed 64-byte records on the v9.4 profile).
 */
static void pmuscope_spe_test_pmbptr(struct kunit *test)
{
	const struct pmuscope_model_profile *profs[] = {
		&pmuscope_model_neoverse_n1, &pmuscope_model_v94,
	};
	struct pmuscope_spe_test_rec *recs = pmuscope_spe_test_recs(test);
	unsigned int p;
	int n, i;

	for (p = 0; p < ARRAY_SIZE(profs); p++) {
		u8 *base = pmuscope_spe_test_setup(test, profs[p], SZ_4K);
		u64 start = (unsigned long)base + 64, end, at;
		unsigned int align = FIELD_GET(PMUSCOPE_PMBIDR_ALIGN, profs[p]->pmbidr);

		pmuscope_spe_test_enable(start, pmuscope_spe_test_limit(base), 0,
					 PMUSCOPE_PMSCR_E1SPE | PMUSCOPE_PMSCR_TS,
					 pmuscope_spe_test_irr(1, false));
		pmuscope_spe_test_run(&pmuscope_spe_test_mixed);
		pmuscope_spe_test_sync();
		end = pmuscope_spe_test_ptr();
		n = pmuscope_spe_test_decode_all(start, end, recs, PMUSCOPE_SPE_TEST_RECS);
		KUNIT_ASSERT_EQ_MSG(test, n, 55, "%s", profs[p]->name);
		at = start;
		for (i = 0; i < n; i++) {
			KUNIT_EXPECT_EQ_MSG(test, recs[i].start, at, "%s: record %d",
					    profs[p]->name, i);
			at += ALIGN(recs[i].len, 1U << align);
		}
		KUNIT_EXPECT_EQ_MSG(test, end, at, "%s: PMBPTR_EL1", profs[p]->name);
		KUNIT_EXPECT_TRUE(test, pmuscope_spe_test_untouched(base, 64));
		KUNIT_EXPECT_TRUE(test,
				  pmuscope_spe_test_untouched((u8 *)(unsigned long)end,
							      (unsigned long)base + SZ_8K - end));
		KUNIT_EXPECT_EQ(test, pmuscope_model_spe_remove_buffer(PMUSCOPE_SPE_TEST_CPU,
								       base), 0);
	}
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
}

/* --------------------------------------------------------- buffer full */
struct pmuscope_spe_test_full_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	unsigned int room;	/* LIMIT - PMBPTR_EL1 at the start */
	unsigned int records;	/* written before the buffer-full event */
	unsigned int left;	/* LIMIT - PMBPTR_EL1 at the event */
};

/*
 * D17.8.2 and pseudocode SPEBufferIsFull(): after a record, if
 * PMBPTR_EL1 > LIMIT - 2^MaxSize (64 here) the buffer is full: S = 1, EC 0,
 * BSC 0b000001, DL unchanged, PMBPTR_EL1 after the last record, PMBIRQ,
 * profiling stopped (D17.4); the SPU never writes past LIMIT. n1 records
 * of "other" operations are 21 bytes, v9.4 records 64.
 */
static const struct pmuscope_spe_test_full_case pmuscope_spe_test_full_cases[] = {
	{ "n1 exactly 2^MaxSize left is not full", &pmuscope_model_neoverse_n1,
	  5 * 21 + 64, 6, 43 },
	{ "n1 2^MaxSize - 1 left is full", &pmuscope_model_neoverse_n1,
	  5 * 21 + 63, 5, 63 },
	{ "v9.4 fills to LIMIT", &pmuscope_model_v94, 5 * 64, 5, 0 },
	{ "v9.4 64 bytes left is not full", &pmuscope_model_v94, 5 * 64 + 64, 6, 0 },
};

static void pmuscope_spe_test_full_desc(const struct pmuscope_spe_test_full_case *c,
					char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "D17.8.2 %s: room %u -> %u records, %u left",
		 c->name, c->room, c->records, c->left);
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_full, pmuscope_spe_test_full_cases,
		  pmuscope_spe_test_full_desc);

static void pmuscope_spe_test_full(struct kunit *test)
{
	const struct pmuscope_spe_test_full_case *c = test->param_value;
	struct pmuscope_spe_test_rec *recs = pmuscope_spe_test_recs(test);
	u8 *base = pmuscope_spe_test_setup(test, c->prof, SZ_4K);
	u64 limit = pmuscope_spe_test_limit(base), start = limit - c->room, sr, icr;
	int n;

	pmuscope_spe_test_enable(start, limit, 0, PMUSCOPE_PMSCR_E1SPE,
				 pmuscope_spe_test_irr(1, false));
	pmuscope_spe_test_others(257 * (c->records + 3));
	KUNIT_EXPECT_TRUE_MSG(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU),
			      "%s: PMBIRQ", c->name);
	pmuscope_spe_test_sync();
	sr = pmuscope_spe_test_rd(PMUSCOPE_REG_PMBSR_EL1);
	KUNIT_EXPECT_EQ_MSG(test, sr, PMUSCOPE_PMBSR_S |
			    FIELD_PREP(PMUSCOPE_PMBSR_BSC, PMUSCOPE_PMBSR_BSC_FULL),
			    "%s: PMBSR_EL1", c->name);
	KUNIT_EXPECT_EQ_MSG(test, limit - pmuscope_spe_test_ptr(), c->left,
			    "%s: PMBPTR_EL1", c->name);
	n = pmuscope_spe_test_decode_all(start, pmuscope_spe_test_ptr(), recs,
					 PMUSCOPE_SPE_TEST_RECS);
	KUNIT_EXPECT_EQ_MSG(test, n, c->records, "%s: records", c->name);
	/* Never past LIMIT, never between PMBPTR and LIMIT. */
	KUNIT_EXPECT_TRUE(test, pmuscope_spe_test_untouched((u8 *)(unsigned long)
							    pmuscope_spe_test_ptr(),
							    c->left + SZ_4K));
	/* Stopped: nothing more is written, the counter does not move. */
	icr = pmuscope_spe_test_rd(PMUSCOPE_REG_PMSICR_EL1);
	pmuscope_spe_test_others(100000);
	pmuscope_spe_test_sync();
	KUNIT_EXPECT_EQ(test, limit - pmuscope_spe_test_ptr(), c->left);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMSICR_EL1), icr);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
}

/* ------------------------------------------------------ fill, discard */
struct pmuscope_spe_test_fm_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	unsigned int fm;
	s64 ptr;		/* from LIMIT */
	bool writes;
};

/*
 * D17.5.5: in Discard mode (PMBLIMITR_EL1.FM == 0b10, FEAT_SPEv1p2) records
 * are discarded after filtering, PMBPTR_EL1 does not move, the pointer
 * restrictions do not apply and no buffer management event is generated;
 * D24.7.2: before SPEv1p2 0b10 is reserved (the model fills).
 */
static const struct pmuscope_spe_test_fm_case pmuscope_spe_test_fm_cases[] = {
	{ "v9.4 fill", &pmuscope_model_v94, PMUSCOPE_PMBLIMITR_FM_FILL, -SZ_4K, true },
	{ "v9.4 discard", &pmuscope_model_v94, PMUSCOPE_PMBLIMITR_FM_DISCARD, -SZ_4K, false },
	{ "v9.4 discard, PMBPTR beyond LIMIT", &pmuscope_model_v94,
	  PMUSCOPE_PMBLIMITR_FM_DISCARD, SZ_4K, false },
	{ "n1 FM 0b10 reserved: fill", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_PMBLIMITR_FM_DISCARD, -SZ_4K, true },
};

static void pmuscope_spe_test_fm_desc(const struct pmuscope_spe_test_fm_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "D17.5.5 %s (FM 0b%u%u, PMBPTR LIMIT%+lld)",
		 c->name, c->fm >> 1, c->fm & 1, c->ptr);
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_fm, pmuscope_spe_test_fm_cases,
		  pmuscope_spe_test_fm_desc);

static void pmuscope_spe_test_fill_discard(struct kunit *test)
{
	const struct pmuscope_spe_test_fm_case *c = test->param_value;
	u8 *base = pmuscope_spe_test_setup(test, c->prof, SZ_4K);
	u64 limit = pmuscope_spe_test_limit(base), start = limit + c->ptr;

	pmuscope_spe_test_enable(start, limit, c->fm, PMUSCOPE_PMSCR_E1SPE,
				 pmuscope_spe_test_irr(1, false));
	pmuscope_spe_test_others(257 * 20);
	pmuscope_spe_test_sync();
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_spe_test_model()->spe.samples, 20, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_spe_test_ptr() != start, c->writes,
			    "%s: PMBPTR_EL1 moved", c->name);
	KUNIT_EXPECT_EQ_MSG(test, !pmuscope_spe_test_untouched(base, SZ_8K), c->writes,
			    "%s: memory written", c->name);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMBSR_EL1), 0);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
}

/* ------------------------------------------------ start-up violations */
struct pmuscope_spe_test_start_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	s64 ptr;		/* from LIMIT */
	bool top_byte;		/* flip PMBPTR_EL1[56] */
	unsigned int interval;
	unsigned int violations;
	u64 flags;		/* PMBSR_EL1 expected: S, EA, DL, COLL */
	unsigned int ec, mss;	/* and EC, MSS */
};

static u64 pmuscope_spe_test_pmbsr(u64 flags, unsigned int ec, unsigned int mss)
{
	return flags | FIELD_PREP(PMUSCOPE_PMBSR_EC, ec) | FIELD_PREP(PMUSCOPE_PMBSR_MSS, mss);
}

/*
 * D17.7.4 RHXSYK: profiling must start with PMBPTR_EL1 <= LIMIT -
 * 2^MaxSize and PTR[63:56] == LIMIT[63:56]; RHLXGD: PTR aligned to
 * PMBIDR_EL1.Align; D24.7.15: INTERVAL nonzero. Otherwise CONSTRAINED
 * UNPREDICTABLE (RPGGHS): a violation, and the model raises the buffer-full
 * event (or the Alignment fault) without writing.
 */
static const struct pmuscope_spe_test_start_case pmuscope_spe_test_start_cases[] = {
	{ "n1 at LIMIT - 2^MaxSize: fine", &pmuscope_model_neoverse_n1, -64, false, 1, 0,
	  PMUSCOPE_PMBSR_S, PMUSCOPE_PMBSR_EC_BUF, PMUSCOPE_PMBSR_BSC_FULL },
	{ "n1 one byte above", &pmuscope_model_neoverse_n1, -63, false, 1, 1,
	  PMUSCOPE_PMBSR_S, PMUSCOPE_PMBSR_EC_BUF, PMUSCOPE_PMBSR_BSC_FULL },
	{ "n1 LIMIT below PMBPTR", &pmuscope_model_neoverse_n1, 16, false, 1, 1,
	  PMUSCOPE_PMBSR_S, PMUSCOPE_PMBSR_EC_BUF, PMUSCOPE_PMBSR_BSC_FULL },
	{ "n1 PTR[63:56] != LIMIT[63:56]", &pmuscope_model_neoverse_n1, -256, true, 1, 1,
	  PMUSCOPE_PMBSR_S, PMUSCOPE_PMBSR_EC_BUF, PMUSCOPE_PMBSR_BSC_FULL },
	{ "v9.4 misaligned (Align 64)", &pmuscope_model_v94, -256 + 8, false, 1, 1,
	  PMUSCOPE_PMBSR_S, PMUSCOPE_PMBSR_EC_FAULT_S1, PMUSCOPE_PMBSR_FSC_ALIGN },
	{ "v9.4 INTERVAL 0", &pmuscope_model_v94, -256, false, 0, 1, 0, 0, 0 },
};

static void pmuscope_spe_test_start_desc(const struct pmuscope_spe_test_start_case *c,
					 char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "D17.7.4 %s (PMBPTR LIMIT%+lld%s, INTERVAL %u)",
		 c->name, c->ptr, c->top_byte ? " ^ BIT(56)" : "", c->interval);
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_start, pmuscope_spe_test_start_cases,
		  pmuscope_spe_test_start_desc);

static void pmuscope_spe_test_start(struct kunit *test)
{
	const struct pmuscope_spe_test_start_case *c = test->param_value;
	u8 *base = pmuscope_spe_test_setup(test, c->prof, SZ_4K);
	u64 limit = pmuscope_spe_test_limit(base), start = limit + c->ptr;
	struct pmuscope_model_cpu *m = pmuscope_spe_test_model();

	if (c->top_byte)
		start ^= BIT_ULL(56);
	pmuscope_spe_test_enable(start, limit, 0, PMUSCOPE_PMSCR_E1SPE,
				 pmuscope_spe_test_irr(c->interval, false));
	pmuscope_spe_test_others(257 * 4);
	pmuscope_spe_test_sync();
	KUNIT_EXPECT_EQ_MSG(test, m->violations, c->violations, "%s", c->name);
	if (c->violations)
		KUNIT_EXPECT_EQ(test, m->first_violation.reg,
				c->interval ? PMUSCOPE_REG_PMBPTR_EL1 : PMUSCOPE_REG_PMSIRR_EL1);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMBSR_EL1),
			    pmuscope_spe_test_pmbsr(c->flags, c->ec, c->mss),
			    "%s: PMBSR_EL1", c->name);
	KUNIT_EXPECT_EQ(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU),
			!!(c->flags & PMUSCOPE_PMBSR_S));
	if (c->violations && c->interval)
		KUNIT_EXPECT_TRUE_MSG(test, pmuscope_spe_test_untouched(base, SZ_8K),
				      "%s: memory written", c->name);
}

/* -------------------------------------------------------------- faults */
struct pmuscope_spe_test_fault_case {
	const char *name;
	const struct pmuscope_model_profile *prof;
	enum pmuscope_model_spe_fault fault;
	u64 flags;		/* PMBSR_EL1 expected: S, EA, DL, COLL */
	unsigned int ec, mss;	/* and EC, MSS */
};

/*
 * D17.8.3 (Table D17-11) and pseudocode DebugWriteFault(): MMU and
 * Alignment faults, EC 0b100100 / 0b100101 with the FSC; D17.8.4.4
 * (SPEv1) External abort reported to the SPU: EA = 1, synchronous;
 * from SPEv1p3 an External abort on the walk as an MMU fault (D17.8.4.3);
 * D17.8.5 access not allowed: DL = 1, EC 0, BSC 0; D17.3.7 collision: COLL
 * = 1, other fields unchanged, profiling continues. PMBPTR_EL1 stays at the
 * faulting address, the first byte after the last complete record.
 */
static const struct pmuscope_spe_test_fault_case pmuscope_spe_test_fault_cases[] = {
	{ "n1 stage 1 translation", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_MODEL_SPE_FAULT_S1_TRANSLATION, PMUSCOPE_PMBSR_S,
	  PMUSCOPE_PMBSR_EC_FAULT_S1, PMUSCOPE_PMBSR_FSC_TRANS_L3 },
	{ "n1 stage 2 translation", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_MODEL_SPE_FAULT_S2_TRANSLATION, PMUSCOPE_PMBSR_S,
	  PMUSCOPE_PMBSR_EC_FAULT_S2, PMUSCOPE_PMBSR_FSC_TRANS_L3 },
	{ "v9.4 alignment", &pmuscope_model_v94, PMUSCOPE_MODEL_SPE_FAULT_ALIGNMENT,
	  PMUSCOPE_PMBSR_S, PMUSCOPE_PMBSR_EC_FAULT_S1, PMUSCOPE_PMBSR_FSC_ALIGN },
	{ "n1 external abort to the SPU", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_MODEL_SPE_FAULT_EXT_ABORT, PMUSCOPE_PMBSR_S | PMUSCOPE_PMBSR_EA,
	  PMUSCOPE_PMBSR_EC_FAULT_S1, PMUSCOPE_PMBSR_FSC_EXT },
	{ "v9.4 external abort on the walk", &pmuscope_model_v94,
	  PMUSCOPE_MODEL_SPE_FAULT_EXT_ABORT, PMUSCOPE_PMBSR_S | PMUSCOPE_PMBSR_EA,
	  PMUSCOPE_PMBSR_EC_FAULT_S1, PMUSCOPE_PMBSR_FSC_EXT_TTW_L3 },
	{ "n1 data loss (access not allowed)", &pmuscope_model_neoverse_n1,
	  PMUSCOPE_MODEL_SPE_FAULT_DATA_LOSS, PMUSCOPE_PMBSR_S | PMUSCOPE_PMBSR_DL,
	  PMUSCOPE_PMBSR_EC_BUF, 0 },
	{ "v9.4 collision", &pmuscope_model_v94, PMUSCOPE_MODEL_SPE_FAULT_COLLISION,
	  PMUSCOPE_PMBSR_COLL, 0, 0 },
};

static void pmuscope_spe_test_fault_desc(const struct pmuscope_spe_test_fault_case *c,
					 char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "D17.8 %s -> PMBSR_EL1 0x%llx", c->name,
		 pmuscope_spe_test_pmbsr(c->flags, c->ec, c->mss));
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_fault, pmuscope_spe_test_fault_cases,
		  pmuscope_spe_test_fault_desc);

static void pmuscope_spe_test_fault(struct kunit *test)
{
	const struct pmuscope_spe_test_fault_case *c = test->param_value;
	u8 *base = pmuscope_spe_test_setup(test, c->prof, SZ_4K);
	u64 start = (unsigned long)base, before;
	bool stops = c->flags & PMUSCOPE_PMBSR_S;

	pmuscope_spe_test_enable(start, pmuscope_spe_test_limit(base), 0,
				 PMUSCOPE_PMSCR_E1SPE, pmuscope_spe_test_irr(1, false));
	pmuscope_spe_test_others(257 * 3);
	pmuscope_spe_test_sync();
	before = pmuscope_spe_test_ptr();
	KUNIT_ASSERT_GT(test, before, start);

	pmuscope_model_spe_inject(PMUSCOPE_SPE_TEST_CPU, c->fault);
	pmuscope_spe_test_others(257 * 3);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU), stops,
			    "%s: PMBIRQ", c->name);
	pmuscope_spe_test_sync();
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMBSR_EL1),
			    pmuscope_spe_test_pmbsr(c->flags, c->ec, c->mss),
			    "%s: PMBSR_EL1", c->name);
	if (stops)
		KUNIT_EXPECT_EQ_MSG(test, pmuscope_spe_test_ptr(), before,
				    "%s: PMBPTR_EL1 at the fault", c->name);
	else
		KUNIT_EXPECT_GT(test, pmuscope_spe_test_ptr(), before);

	/* The driver clears PMBSR_EL1 (D17.7.4): profiling resumes. */
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBSR_EL1, 0);
	pmuscope_spe_test_barrier(PMUSCOPE_BARRIER_ISB);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU));
	before = pmuscope_spe_test_ptr();
	pmuscope_spe_test_others(257 * 3);
	pmuscope_spe_test_sync();
	KUNIT_EXPECT_GT_MSG(test, pmuscope_spe_test_ptr(), before, "%s: resumed", c->name);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMBSR_EL1), 0);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
}

/*
 * D17.8, IGRLRX and pseudocode SPECycle(): PMBIRQ is the level of
 * PMBSR_EL1.S (no FEAT_SPE_EXC): a direct write of S = 1 asserts it, a
 * write of 0 deasserts it; no SPE, no line.
 */
static void pmuscope_spe_test_irq(struct kunit *test)
{
	pmuscope_model_reset(PMUSCOPE_SPE_TEST_CPU, &pmuscope_model_neoverse_n1);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU));
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBSR_EL1, PMUSCOPE_PMBSR_COLL | PMUSCOPE_PMBSR_DL);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU));
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBSR_EL1, PMUSCOPE_PMBSR_S);
	KUNIT_EXPECT_TRUE(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU));
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMBSR_EL1), PMUSCOPE_PMBSR_S);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBSR_EL1, 0);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU));
	pmuscope_model_reset(PMUSCOPE_SPE_TEST_CPU, &pmuscope_model_cortex_a53);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU));
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_model()->violations, 0);
}

/* ----------------------------------------------------- model's safety */
struct pmuscope_spe_test_unreg_case {
	const char *name;
	unsigned int registered;	/* bytes of the buffer registered */
	unsigned int ptr;		/* PMBPTR_EL1 from the buffer start */
	unsigned int fault_at;		/* PMBPTR_EL1 at the fault */
	bool dl;
};

/*
 * The model writes only into registered buffers: elsewhere it reports a
 * stage 1 Translation fault (D17.8.3, Table D17-11; PMBPTR_EL1 = the
 * faulting address; RMYXZK: DL = 1 when a record was cut) and a violation,
 * and leaves the memory alone. n1 "other" records are 21 bytes.
 */
static const struct pmuscope_spe_test_unreg_case pmuscope_spe_test_unreg_cases[] = {
	{ "record cut at the end of the buffer", 100, 0, 100, true },
	{ "first byte outside", 100, 200, 200, false },
};

static void pmuscope_spe_test_unreg_desc(const struct pmuscope_spe_test_unreg_case *c,
					 char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "D17.8.3 %s (registered %u, PMBPTR +%u)",
		 c->name, c->registered, c->ptr);
}

KUNIT_ARRAY_PARAM(pmuscope_spe_test_unreg, pmuscope_spe_test_unreg_cases,
		  pmuscope_spe_test_unreg_desc);

static void pmuscope_spe_test_unregistered(struct kunit *test)
{
	const struct pmuscope_spe_test_unreg_case *c = test->param_value;
	u8 *base = pmuscope_spe_test_setup(test, &pmuscope_model_neoverse_n1, c->registered);
	u64 start = (unsigned long)base + c->ptr;
	struct pmuscope_model_cpu *m = pmuscope_spe_test_model();

	pmuscope_spe_test_enable(start, pmuscope_spe_test_limit(base), 0,
				 PMUSCOPE_PMSCR_E1SPE, pmuscope_spe_test_irr(1, false));
	pmuscope_spe_test_others(257 * 10);
	pmuscope_spe_test_sync();
	KUNIT_EXPECT_EQ_MSG(test, m->violations, 1, "%s", c->name);
	KUNIT_EXPECT_EQ(test, m->first_violation.reg, PMUSCOPE_REG_PMBPTR_EL1);
	KUNIT_EXPECT_EQ(test, m->first_violation.val, (unsigned long)base + c->fault_at);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMBSR_EL1),
			    pmuscope_spe_test_pmbsr(PMUSCOPE_PMBSR_S |
						    (c->dl ? PMUSCOPE_PMBSR_DL : 0),
						    PMUSCOPE_PMBSR_EC_FAULT_S1,
						    PMUSCOPE_PMBSR_FSC_TRANS_L3),
			    "%s: PMBSR_EL1", c->name);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_ptr(), (unsigned long)base + c->fault_at);
	KUNIT_EXPECT_TRUE_MSG(test, pmuscope_spe_test_untouched(base + c->registered,
								SZ_8K - c->registered),
			      "%s: memory outside the buffer written", c->name);
	KUNIT_EXPECT_TRUE(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU));
}

/* --------------------------------------------------- synchronization */

/*
 * D17.9: records reach memory, and PMBPTR_EL1 shows them, only once a PSB
 * CSYNC synchronized them (RTRDTK, IMLGHW) and a DSB completed the writes;
 * D17.4: records collected but not written when the buffer is disabled are
 * lost. The SPU of these profiles holds one record.
 */
static void pmuscope_spe_test_psb(struct kunit *test)
{
	u8 *base = pmuscope_spe_test_setup(test, &pmuscope_model_neoverse_n1, SZ_4K);
	u64 start = (unsigned long)base, limit = pmuscope_spe_test_limit(base);
	struct pmuscope_model_cpu *m = pmuscope_spe_test_model();

	pmuscope_spe_test_enable(start, limit, 0, PMUSCOPE_PMSCR_E1SPE,
				 pmuscope_spe_test_irr(1, false));
	pmuscope_spe_test_others(257 * 3);
	pmuscope_spe_test_barrier(PMUSCOPE_BARRIER_ISB);
	pmuscope_spe_test_barrier(PMUSCOPE_BARRIER_DSB_NSH);
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_spe_test_ptr(), start,
			    "PMBPTR_EL1 read without PSB CSYNC");
	KUNIT_EXPECT_TRUE_MSG(test, pmuscope_spe_test_untouched(base, SZ_4K),
			      "records in memory without PSB CSYNC");
	pmuscope_spe_test_barrier(PMUSCOPE_BARRIER_PSB_CSYNC);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_ptr(), start + 3 * 21);
	KUNIT_EXPECT_TRUE_MSG(test, pmuscope_spe_test_untouched(base, SZ_4K),
			      "records in memory before the DSB");
	pmuscope_spe_test_barrier(PMUSCOPE_BARRIER_DSB_NSH);
	KUNIT_EXPECT_FALSE(test, pmuscope_spe_test_untouched(base, 3 * 21));
	KUNIT_EXPECT_TRUE(test, pmuscope_spe_test_untouched(base + 3 * 21, SZ_8K - 3 * 21));

	/* Disabled without PSB CSYNC: the record in flight is lost. */
	pmuscope_spe_test_others(257 * 3);
	pmuscope_spe_test_wr(PMUSCOPE_REG_PMBLIMITR_EL1, limit);
	pmuscope_spe_test_sync();
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_ptr(), start + 5 * 21);
	KUNIT_EXPECT_EQ(test, m->spe.lost, 1);
	KUNIT_EXPECT_EQ(test, m->violations, 0);
}

/*
 * D17.3.7: a collision sets COLL, which a direct read returns after a
 * context synchronization event.
 */
static void pmuscope_spe_test_coll_sync(struct kunit *test)
{
	u8 *base = pmuscope_spe_test_setup(test, &pmuscope_model_v94, SZ_4K);

	pmuscope_spe_test_enable((unsigned long)base, pmuscope_spe_test_limit(base), 0,
				 PMUSCOPE_PMSCR_E1SPE, pmuscope_spe_test_irr(1, false));
	pmuscope_model_spe_inject(PMUSCOPE_SPE_TEST_CPU, PMUSCOPE_MODEL_SPE_FAULT_COLLISION);
	pmuscope_spe_test_others(257 * 2);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMBSR_EL1), 0);
	pmuscope_spe_test_barrier(PMUSCOPE_BARRIER_ISB);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_test_rd(PMUSCOPE_REG_PMBSR_EL1),
			PMUSCOPE_PMBSR_COLL);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(PMUSCOPE_SPE_TEST_CPU));
}

/* ------------------------------------------------------------------ suite */
static void pmuscope_spe_test_exit(struct kunit *test)
{
	/* Forget the test's buffers before KUnit frees them. */
	pmuscope_model_reset(PMUSCOPE_SPE_TEST_CPU, NULL);
}

static struct kunit_case pmuscope_spe_test_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_spe_test_gate, pmuscope_spe_test_gate_gen_params),
	KUNIT_CASE_PARAM(pmuscope_spe_test_masks, pmuscope_spe_test_mask_gen_params),
	KUNIT_CASE(pmuscope_spe_test_id_regs),
	KUNIT_CASE(pmuscope_spe_test_owned_higher),
	KUNIT_CASE_PARAM(pmuscope_spe_test_interval, pmuscope_spe_test_interval_gen_params),
	KUNIT_CASE(pmuscope_spe_test_counter_kept),
	KUNIT_CASE_PARAM(pmuscope_spe_test_count, pmuscope_spe_test_count_gen_params),
	KUNIT_CASE_PARAM(pmuscope_spe_test_filter, pmuscope_spe_test_filter_gen_params),
	KUNIT_CASE_PARAM(pmuscope_spe_test_format, pmuscope_spe_test_fmt_gen_params),
	KUNIT_CASE(pmuscope_spe_test_pmbptr),
	KUNIT_CASE_PARAM(pmuscope_spe_test_full, pmuscope_spe_test_full_gen_params),
	KUNIT_CASE_PARAM(pmuscope_spe_test_fill_discard, pmuscope_spe_test_fm_gen_params),
	KUNIT_CASE_PARAM(pmuscope_spe_test_start, pmuscope_spe_test_start_gen_params),
	KUNIT_CASE_PARAM(pmuscope_spe_test_fault, pmuscope_spe_test_fault_gen_params),
	KUNIT_CASE(pmuscope_spe_test_irq),
	KUNIT_CASE_PARAM(pmuscope_spe_test_unregistered, pmuscope_spe_test_unreg_gen_params),
	KUNIT_CASE(pmuscope_spe_test_psb),
	KUNIT_CASE(pmuscope_spe_test_coll_sync),
	{}
};

static struct kunit_suite pmuscope_spe_test_suite = {
	.name = "pmuscope_model_spe",
	.exit = pmuscope_spe_test_exit,
	.test_cases = pmuscope_spe_test_cases,
};

kunit_test_suites(&pmuscope_spe_test_suite);
