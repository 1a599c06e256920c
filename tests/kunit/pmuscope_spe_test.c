// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the driver's SPE unit (drivers/pmuscope_spe.c) against the
 * register model: the pure functions table-driven (PMBSR_EL1 decoding,
 * config to registers, buffer alignment and margin, the ioctl's checks),
 * then the unit on a modelled CPU: buffer fills handed over and restarted
 * with no record split or duplicated, every PMBSR_EL1 outcome the model
 * can raise (full, DL, COLL, EA, stage-1 and stage-2 faults, alignment, a
 * spurious PMBIRQ), the disable-and-drain order, idle mid-profiling, a
 * full ring, and the PMBIRQ's O(1) hand-over to the copier (the copy
 * outside the interrupt, profiling off while no buffer is free). The
 * copier's worker is the real one, queued on the test's CPU; the cases
 * that must see its work undone keep preemption off until they look.
 * Every case ends with no architecture violation in the model.
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/cpumask.h>
#include <linux/interrupt.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>

#include "pmuscope.h"
#include "pmuscope_model.h"

struct pmuscope_stest {
	unsigned int cpu;
	unsigned int violations;
	struct pmuscope_cpu_caps caps;
	struct pmuscope_spe_pcpu sc;
	struct pmuscope_spe_sess *ss;
	/* Chunks parsed out of the ring. */
	u32 chunks;
	u32 records;		/* complete records in the chunks' data */
	u64 bytes;
	u32 flags;		/* OR of the chunks' flags */
	u64 lost;		/* sum of the chunks' lost */
	bool bad;		/* a chunk's data was not whole records */
};

static int pmuscope_stest_init(struct kunit *test)
{
	struct pmuscope_stest *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	if (!t)
		return -ENOMEM;
	t->cpu = raw_smp_processor_id();
	set_cpus_allowed_ptr(current, cpumask_of(t->cpu));
	t->violations = pmuscope_model_total_violations();
	pmuscope_spe_pcpu_init(&t->sc, t->cpu);
	t->sc.online = true;	/* as the cpuhp online callback leaves it */
	test->priv = t;
	return 0;
}

static void pmuscope_stest_exit(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	unsigned long flags;

	if (t->ss) {
		raw_spin_lock_irqsave(&t->sc.lock, flags);
		pmuscope_spe_stop_local(&t->sc, t->cpu, 0);
		raw_spin_unlock_irqrestore(&t->sc.lock, flags);
		pmuscope_spe_copy(&t->sc);
		cancel_work_sync(&t->sc.work);
		pmuscope_spe_free(t->ss);
	}
	KUNIT_EXPECT_EQ_MSG(test, pmuscope_model_total_violations(), t->violations,
			    "the driver broke a rule of the architecture (see the model's log)");
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

/* ------------------------------------------------------- pure functions */

struct pmuscope_decode_case {
	const char *name;
	u64 pmbsr;
	enum pmuscope_spe_act act;
};

/* Static initializers: the fields by hand (EC [31:26], MSS [15:0]). */
#define PMBSR(ec, mss)	(PMUSCOPE_PMBSR_S | ((u64)(ec) << 26) | (mss))

static const struct pmuscope_decode_case pmuscope_decode_cases[] = {
	{ "S clear: spurious", 0, PMUSCOPE_SPE_ACT_NONE },
	{ "S clear, COLL: no event", PMUSCOPE_PMBSR_COLL, PMUSCOPE_SPE_ACT_NONE },
	{ "buffer full", PMBSR(0, PMUSCOPE_PMBSR_BSC_FULL), PMUSCOPE_SPE_ACT_FULL },
	{ "buffer full + COLL", PMBSR(0, 1) | PMUSCOPE_PMBSR_COLL, PMUSCOPE_SPE_ACT_FULL },
	{ "buffer full + DL", PMBSR(0, 1) | PMUSCOPE_PMBSR_DL, PMUSCOPE_SPE_ACT_DISCARD },
	{ "access not allowed, DL", PMBSR(0, 0) | PMUSCOPE_PMBSR_DL, PMUSCOPE_SPE_ACT_DISCARD },
	{ "unknown BSC", PMBSR(0, 0x3f), PMUSCOPE_SPE_ACT_FAULT },
	{ "stage 1 translation", PMBSR(0x24, 0x07), PMUSCOPE_SPE_ACT_FAULT },
	{ "stage 2 translation", PMBSR(0x25, 0x07), PMUSCOPE_SPE_ACT_FAULT },
	{ "alignment", PMBSR(0x24, 0x21), PMUSCOPE_SPE_ACT_FAULT },
	{ "external abort", PMBSR(0x24, 0x10) | PMUSCOPE_PMBSR_EA, PMUSCOPE_SPE_ACT_FAULT },
	{ "EA on buffer management", PMBSR(0, 1) | PMUSCOPE_PMBSR_EA, PMUSCOPE_SPE_ACT_FAULT },
	{ "stage 1 fault + DL", PMBSR(0x24, 0x07) | PMUSCOPE_PMBSR_DL, PMUSCOPE_SPE_ACT_FAULT },
	{ "GPC or IMP DEF EC", PMBSR(0x1e, 0), PMUSCOPE_SPE_ACT_FAULT },
};

static void pmuscope_decode_desc(const struct pmuscope_decode_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pmuscope_decode, pmuscope_decode_cases, pmuscope_decode_desc);

static void pmuscope_test_spe_decode(struct kunit *test)
{
	const struct pmuscope_decode_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, pmuscope_spe_decode(c->pmbsr), c->act);
}

/* A pcpu as probe leaves it, from a profile's ID registers. */
static void pmuscope_stest_sc(struct pmuscope_spe_pcpu *sc,
			      const struct pmuscope_model_profile *prof)
{
	memset(sc, 0, sizeof(*sc));
	sc->usable = true;
	sc->pmsver = FIELD_GET(PMUSCOPE_DFR0_PMSVER, prof->dfr0);
	sc->pmsidr = prof->pmsidr;
	sc->pmbidr = prof->pmbidr;
}

struct pmuscope_regs_case {
	const char *name;
	bool v94;		/* else neoverse-n1 (no FnE) */
	struct pmuscope_spe_config cfg;
	int ret;
	struct pmuscope_spe_regs regs;
};

/* PMSIRR_EL1.INTERVAL is [31:8]: the interval itself, its low byte 0. */
#define IRR(iv)		((u64)(iv) & PMUSCOPE_PMSIRR_INTERVAL)
#define PCT_PHYS	BIT_ULL(6)	/* PMSCR_EL1.PCT [7:6] = 0b01 */
#define EL01		(PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1)
#define SCR01		(PMUSCOPE_PMSCR_E0SPE | PMUSCOPE_PMSCR_E1SPE)

static const struct pmuscope_regs_case pmuscope_regs_cases[] = {
	{ "n1 default interval 1536", false, { .flags = EL01 }, 0,
	  { .pmscr = SCR01, .pmsirr = IRR(1536) } },
	{ "v94 default interval 768", true, { .flags = PMUSCOPE_SPE_EL0 }, 0,
	  { .pmscr = PMUSCOPE_PMSCR_E0SPE, .pmsirr = IRR(768) } },
	{ "interval 4096, jitter", false,
	  { .flags = EL01 | PMUSCOPE_SPE_JITTER, .interval = 4096 }, 0,
	  { .pmscr = SCR01, .pmsirr = IRR(4096) | PMUSCOPE_PMSIRR_RND } },
	{ "interval below the minimum", false, { .flags = EL01, .interval = 1280 }, -EINVAL },
	{ "interval at the maximum", false,
	  { .flags = EL01, .interval = PMUSCOPE_SPE_INTERVAL_MAX }, 0,
	  { .pmscr = SCR01, .pmsirr = IRR(PMUSCOPE_SPE_INTERVAL_MAX) } },
	{ "loads and stores", false,
	  { .flags = EL01, .ops = PMUSCOPE_SPE_OP_LOAD | PMUSCOPE_SPE_OP_STORE }, 0,
	  { .pmscr = SCR01, .pmsirr = IRR(1536),
	    .pmsfcr = PMUSCOPE_PMSFCR_FT | PMUSCOPE_PMSFCR_LD | PMUSCOPE_PMSFCR_ST } },
	{ "branches", false, { .flags = EL01, .ops = PMUSCOPE_SPE_OP_BRANCH }, 0,
	  { .pmscr = SCR01, .pmsirr = IRR(1536),
	    .pmsfcr = PMUSCOPE_PMSFCR_FT | PMUSCOPE_PMSFCR_B } },
	{ "minimum latency 100", false, { .flags = EL01, .min_latency = 100 }, 0,
	  { .pmscr = SCR01, .pmsirr = IRR(1536), .pmsfcr = PMUSCOPE_PMSFCR_FL,
	    .pmslatfr = 100 } },
	{ "events retired + L1D refill", false, { .flags = EL01, .events = 0xa }, 0,
	  { .pmscr = SCR01, .pmsirr = IRR(1536), .pmsfcr = PMUSCOPE_PMSFCR_FE,
	    .pmsevfr = 0xa } },
	{ "event bit 2 is RES0 before SPEv1p4", false, { .flags = EL01, .events = 0x4 }, -EINVAL },
	{ "event bit 11 (alignment) is RES0 on SPEv1 (n1)", false,
	  { .flags = EL01, .events = BIT(11) }, -EINVAL },
	{ "event bit 11 on SPEv1p1 and later (v94)", true,
	  { .flags = EL01, .events = BIT(11) }, 0,
	  { .pmscr = SCR01, .pmsirr = IRR(768), .pmsfcr = PMUSCOPE_PMSFCR_FE,
	    .pmsevfr = BIT(11) } },
	{ "discard mode needs SPEv1p2 (n1 is SPEv1)", false,
	  { .flags = EL01 | PMUSCOPE_SPE_DISCARD }, -EOPNOTSUPP },
	{ "discard mode on v94", true, { .flags = EL01 | PMUSCOPE_SPE_DISCARD }, 0,
	  { .pmscr = SCR01, .pmsirr = IRR(768), .fm = PMUSCOPE_PMBLIMITR_FM_DISCARD } },
	{ "nevents without FEAT_SPE_FnE", false, { .flags = EL01, .nevents = 0x8 }, -EOPNOTSUPP },
	{ "nevents on v94", true, { .flags = EL01, .nevents = 0x8 }, 0,
	  { .pmscr = SCR01, .pmsirr = IRR(768), .pmsfcr = PMUSCOPE_PMSFCR_FNE,
	    .pmsnevfr = 0x8 } },
	{ "PA CX TS PCT", false,
	  { .flags = EL01 | PMUSCOPE_SPE_PA | PMUSCOPE_SPE_CX | PMUSCOPE_SPE_TS |
		     PMUSCOPE_SPE_PCT }, 0,
	  { .pmscr = SCR01 | PMUSCOPE_PMSCR_PA | PMUSCOPE_PMSCR_CX | PMUSCOPE_PMSCR_TS |
		     PCT_PHYS, .pmsirr = IRR(1536) } },
};

static void pmuscope_regs_desc(const struct pmuscope_regs_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pmuscope_regs, pmuscope_regs_cases, pmuscope_regs_desc);

static void pmuscope_test_spe_config_regs(struct kunit *test)
{
	const struct pmuscope_regs_case *c = test->param_value;
	struct pmuscope_spe_pcpu *sc = kunit_kzalloc(test, sizeof(*sc), GFP_KERNEL);
	struct pmuscope_spe_regs r;

	KUNIT_ASSERT_NOT_NULL(test, sc);
	pmuscope_stest_sc(sc, c->v94 ? &pmuscope_model_v94 : &pmuscope_model_neoverse_n1);
	KUNIT_ASSERT_EQ(test, pmuscope_spe_config_regs(sc, &c->cfg, &r), c->ret);
	if (c->ret)
		return;
	KUNIT_EXPECT_EQ(test, r.pmscr, c->regs.pmscr);
	KUNIT_EXPECT_EQ(test, r.pmsirr, c->regs.pmsirr);
	KUNIT_EXPECT_EQ(test, r.pmsfcr, c->regs.pmsfcr);
	KUNIT_EXPECT_EQ(test, r.pmsevfr, c->regs.pmsevfr);
	KUNIT_EXPECT_EQ(test, r.pmsnevfr, c->regs.pmsnevfr);
	KUNIT_EXPECT_EQ(test, r.pmslatfr, c->regs.pmslatfr);
	KUNIT_EXPECT_EQ(test, r.fm, c->regs.fm);
}

/* PMSIDR_EL1.Interval to the minimum interval (D24.7.14). */
static void pmuscope_test_spe_min_interval(struct kunit *test)
{
	static const u16 want[] = { 256, 512, 768, 1024, 1536, 2048, 3072, 4096 };
	unsigned int i;

	for (i = 0; i < 16; i++)
		KUNIT_EXPECT_EQ(test,
				pmuscope_spe_min_interval(FIELD_PREP(PMUSCOPE_PMSIDR_INTERVAL, i)),
				(u64)(i < ARRAY_SIZE(want) ? want[i] : 4096));
}

struct pmuscope_buf_case {
	const char *name;
	bool v94;		/* Align 64 B; n1: Align 1 B. Both MaxSize 64 B. */
	u64 base;
	u32 size;
	int ret;
};

static const struct pmuscope_buf_case pmuscope_buf_cases[] = {
	{ "n1 page-aligned 8 KiB", false, 0xffff800010000000ULL, SZ_8K, 0 },
	{ "v94 page-aligned 8 KiB", true, 0xffff800010000000ULL, SZ_8K, 0 },
	{ "n1 byte-aligned base, page limit", false, 0xffff800010000fc1ULL, 0x3f, -EINVAL },
	{ "v94 base not 64-byte aligned", true, 0xffff800010000020ULL, SZ_8K - 0x20, -EINVAL },
	{ "v94 64-byte aligned base", true, 0xffff800010000040ULL, SZ_8K - 0x40, 0 },
	{ "limit not page-granular", false, 0xffff800010000000ULL, SZ_8K - 8, -EINVAL },
	{ "smaller than one record of MaxSize", false, 0xffff800010000fe0ULL, 0x20, -EINVAL },
	{ "empty", false, 0xffff800010000000ULL, 0, -EINVAL },
	{ "across PTR[63:56]", false, 0x00fffffffffff000ULL, SZ_8K, -EINVAL },
};

static void pmuscope_buf_desc(const struct pmuscope_buf_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pmuscope_buf, pmuscope_buf_cases, pmuscope_buf_desc);

static void pmuscope_test_spe_buffer_regs(struct kunit *test)
{
	const struct pmuscope_buf_case *c = test->param_value;
	struct pmuscope_spe_pcpu *sc = kunit_kzalloc(test, sizeof(*sc), GFP_KERNEL);
	u64 ptr = 0, limit = 0;

	KUNIT_ASSERT_NOT_NULL(test, sc);
	pmuscope_stest_sc(sc, c->v94 ? &pmuscope_model_v94 : &pmuscope_model_neoverse_n1);
	KUNIT_ASSERT_EQ(test, pmuscope_spe_buffer_regs(sc, c->base, c->size, &ptr, &limit),
			c->ret);
	if (c->ret)
		return;
	KUNIT_EXPECT_EQ(test, ptr, c->base);
	KUNIT_EXPECT_EQ(test, limit & PMUSCOPE_PMBLIMITR_LIMIT, c->base + c->size);
	KUNIT_EXPECT_TRUE(test, limit & PMUSCOPE_PMBLIMITR_E);
	KUNIT_EXPECT_EQ(test, FIELD_GET(PMUSCOPE_PMBLIMITR_FM, limit),
			(u64)PMUSCOPE_PMBLIMITR_FM_FILL);
}

struct pmuscope_check_case {
	const char *name;
	struct pmuscope_spe_config cfg;
	int ret;
};

#define CPUS	.cpus = 0x1000, .cpus_size = 8

static const struct pmuscope_check_case pmuscope_check_cases[] = {
	{ "defaults", { .flags = PMUSCOPE_SPE_EL0, CPUS }, 0 },
	{ "everything", { .flags = EL01 | PMUSCOPE_SPE_TS | PMUSCOPE_SPE_PA | PMUSCOPE_SPE_CX |
				   PMUSCOPE_SPE_PCT | PMUSCOPE_SPE_JITTER, CPUS,
			  .ops = 7, .interval = 4096, .min_latency = 65535,
			  .buffer_kib = 65536, .hw_kib = 4096, .wakeup_kib = 65536 }, 0 },
	{ "unknown flag", { .flags = PMUSCOPE_SPE_EL0 | BIT(8), CPUS }, -EINVAL },
	{ "discard passes the generic checks", { .flags = PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_DISCARD,
						 CPUS }, 0 },
	{ "unknown op", { .flags = PMUSCOPE_SPE_EL0, CPUS, .ops = 8 }, -EINVAL },
	{ "neither EL0 nor EL1", { .flags = PMUSCOPE_SPE_TS, CPUS }, -EINVAL },
	{ "PCT without TS", { .flags = PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_PCT, CPUS }, -EINVAL },
	{ "no CPU bitmap", { .flags = PMUSCOPE_SPE_EL0, .cpus_size = 8 }, -EINVAL },
	{ "bitmap size 0", { .flags = PMUSCOPE_SPE_EL0, .cpus = 0x1000 }, -EINVAL },
	{ "bitmap size not 8n", { .flags = PMUSCOPE_SPE_EL0, .cpus = 0x1000, .cpus_size = 12 },
	  -EINVAL },
	{ "bitmap too large", { .flags = PMUSCOPE_SPE_EL0, .cpus = 0x1000, .cpus_size = 4104 },
	  -EINVAL },
	{ "interval not 256n", { .flags = PMUSCOPE_SPE_EL0, CPUS, .interval = 1000 }, -EINVAL },
	{ "interval too large", { .flags = PMUSCOPE_SPE_EL0, CPUS, .interval = 1ULL << 32 },
	  -EINVAL },
	{ "latency > 16 bits", { .flags = PMUSCOPE_SPE_EL0, CPUS, .min_latency = 65536 }, -EINVAL },
	{ "ring not a power of 2", { .flags = PMUSCOPE_SPE_EL0, CPUS, .buffer_kib = 1000 },
	  -EINVAL },
	{ "ring too small", { .flags = PMUSCOPE_SPE_EL0, CPUS, .buffer_kib = 8, .hw_kib = 8 },
	  -EINVAL },
	{ "ring too large", { .flags = PMUSCOPE_SPE_EL0, CPUS, .buffer_kib = 131072 }, -EINVAL },
	{ "hw buffer too small", { .flags = PMUSCOPE_SPE_EL0, CPUS, .hw_kib = 4 }, -EINVAL },
	{ "hw buffer half the ring at most", { .flags = PMUSCOPE_SPE_EL0, CPUS,
					       .buffer_kib = 64, .hw_kib = 64 }, -EINVAL },
	{ "hw buffer not a power of 2", { .flags = PMUSCOPE_SPE_EL0, CPUS, .hw_kib = 24 },
	  -EINVAL },
	{ "wakeup beyond the ring", { .flags = PMUSCOPE_SPE_EL0, CPUS, .wakeup_kib = 1025 },
	  -EINVAL },
	{ "reserved", { .flags = PMUSCOPE_SPE_EL0, CPUS, .reserved = { 0, 1 } }, -EINVAL },
};

static void pmuscope_check_desc(const struct pmuscope_check_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pmuscope_check, pmuscope_check_cases, pmuscope_check_desc);

static void pmuscope_test_spe_check(struct kunit *test)
{
	const struct pmuscope_check_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, pmuscope_check_spe_config(&c->cfg), c->ret);
}

/* ------------------------------------------------- the unit on the model */

/* Packet length from its header (Arm ARM D18; ../shared/REGISTERS.md); 0: invalid. */
static unsigned int pmuscope_stest_pkt(const u8 *p, size_t left, bool *end)
{
	u8 h = p[0];

	*end = false;
	if (h == 0x00)
		return 1;
	if (h == 0x01) {
		*end = true;
		return 1;
	}
	if (h == 0x71) {
		*end = true;
		return 9;
	}
	if ((h & 0xcf) == 0x42 || (h & 0xcf) == 0x43)
		return 1 + (1 << ((h >> 4) & 3));
	if ((h & 0xfc) == 0x48)
		return 2;
	if ((h & 0xfc) == 0x64)
		return 5;
	if ((h & 0xf8) == 0xb0)
		return 9;
	if ((h & 0xf8) == 0x98)
		return 3;
	if ((h & 0xfc) == 0x20 && left > 1) {
		if ((p[1] & 0xf8) == 0xb0)
			return 10;
		if ((p[1] & 0xf8) == 0x98)
			return 4;
	}
	return 0;
}

/*
 * Count the whole records of @len bytes; false if they are not whole (the
 * last packet but padding, which aligns records to PMBIDR_EL1.Align, must
 * end a record).
 */
static bool pmuscope_stest_records(const u8 *p, u32 len, u32 *records)
{
	bool whole = true, end;
	u32 off = 0, n;

	while (off < len) {
		n = pmuscope_stest_pkt(p + off, len - off, &end);
		if (!n || n > len - off)
			return false;
		if (p[off] != 0x00)
			whole = end;
		off += n;
		if (end)
			(*records)++;
	}
	return whole;
}

/*
 * The copier's work done, then every chunk taken out of the ring, as
 * read() would (chunks may wrap). None may be left BUSY.
 */
static void pmuscope_stest_drain(struct pmuscope_stest *t)
{
	struct pmuscope_spe_sess *ss = t->ss;
	u32 max = sizeof(struct pmuscope_spe_chunk) + ss->buf_size + 8;
	u8 *copy = kmalloc(max, GFP_KERNEL);

	if (!copy) {
		t->bad = true;
		return;
	}
	pmuscope_spe_copy(&t->sc);
	/* Pairs with the driver's smp_store_release() of @head. */
	while (ss->tail != smp_load_acquire(&ss->head)) {
		struct pmuscope_spe_chunk ch;
		u32 off = ss->tail & (ss->size - 1), first;

		first = min_t(u32, sizeof(ch), ss->size - off);
		memcpy(&ch, ss->data + off, first);
		memcpy((u8 *)&ch + first, ss->data, sizeof(ch) - first);
		if (ch.size > max || ch.size < sizeof(ch)) {
			t->bad = true;
			break;
		}
		first = min_t(u32, ch.size, ss->size - off);
		memcpy(copy, ss->data + off, first);
		memcpy(copy + first, ss->data, ch.size - first);
		if (ch.flags & PMUSCOPE_SPE_C_BUSY)
			t->bad = true;
		t->chunks++;
		t->bytes += ch.data_size;
		t->flags |= ch.flags;
		t->lost += ch.lost;
		if (ch.cpu != t->cpu || ch.size != ALIGN(sizeof(ch) + ch.data_size, 8) ||
		    !pmuscope_stest_records(copy + sizeof(ch), ch.data_size, &t->records))
			t->bad = true;
		/* Pairs with the driver's smp_load_acquire() of @tail. */
		smp_store_release(&ss->tail, ss->tail + ch.size);
	}
	kfree(copy);
}

/* Probe @prof on this CPU and start profiling as SPE_START does. */
static void pmuscope_stest_start(struct kunit *test,
				 const struct pmuscope_model_profile *prof,
				 const struct pmuscope_spe_config *cfg)
{
	struct pmuscope_stest *t = test->priv;
	struct pmuscope_spe_regs regs;
	struct pmuscope_spe_sess *ss;
	unsigned long flags;
	int ret;

	pmuscope_model_reset(t->cpu, prof);
	preempt_disable();
	pmuscope_probe_local(BIT(PMUSCOPE_UNIT_PMU) | BIT(PMUSCOPE_UNIT_SPE), &t->caps);
	preempt_enable();
	pmuscope_spe_probe(&t->sc, &t->caps);
	KUNIT_ASSERT_TRUE(test, t->sc.usable);
	ss = pmuscope_spe_alloc(cfg, cpumask_of(t->cpu));
	KUNIT_ASSERT_FALSE(test, IS_ERR(ss));
	t->ss = ss;
	/*
	 * Zeroed, as perf's AUX pages: no byte of earlier kernel memory
	 * reaches the reader in what the SPU leaves unwritten.
	 */
	KUNIT_EXPECT_NULL(test, memchr_inv(ss->bufs[t->cpu], 0, 2 * (size_t)ss->buf_size));
	KUNIT_ASSERT_EQ(test, pmuscope_spe_config_regs(&t->sc, cfg, &regs), 0);
	t->ss->running = true;
	raw_spin_lock_irqsave(&t->sc.lock, flags);
	ret = pmuscope_spe_attach(&t->sc, t->ss, &regs);
	if (!ret)
		pmuscope_spe_resume(&t->sc);
	raw_spin_unlock_irqrestore(&t->sc.lock, flags);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_ASSERT_TRUE(test, t->sc.running);
}

/* The PMBIRQ, as the GIC delivers it: on the CPU, IRQs off. */
static irqreturn_t pmuscope_stest_irq(struct pmuscope_stest *t)
{
	unsigned long flags;
	irqreturn_t ret;

	/* The model's log: this PMBIRQ's accesses and barriers alone. */
	pmuscope_model_get(t->cpu)->nlog = 0;
	local_irq_save(flags);
	ret = pmuscope_spe_irq_local(&t->sc, t->cpu);
	local_irq_restore(flags);
	return ret;
}

/*
 * Are @seq's @n accesses (a barrier: PMUSCOPE_REG_NR + its number) in the
 * log of @cpu's model, in this order (others between them allowed)?
 */
static bool pmuscope_stest_log_has(unsigned int cpu, const struct pmuscope_model_access *seq,
				   unsigned int n)
{
	struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
	unsigned int i, j = 0;

	for (i = 0; i < min_t(unsigned int, m->nlog, PMUSCOPE_MODEL_LOG) && j < n; i++)
		if (m->log[i].reg == seq[j].reg && m->log[i].write == seq[j].write &&
		    m->log[i].val == seq[j].val)
			j++;
	return j == n;
}

/* @ops loads at EL0, run in steps of @step, each PMBIRQ served after its step. */
static unsigned int pmuscope_stest_run(struct pmuscope_stest *t, u64 ops, u64 step)
{
	struct pmuscope_model_work w = {
		.el = 0, .pc = 0x400000, .data_addr = 0x10000000, .load_latency = 20,
	};
	unsigned int irqs = 0;
	u64 done;

	for (done = 0; done < ops; done += step) {
		w.insts = min(step, ops - done);
		w.loads = w.insts / 2;
		w.stores = w.insts / 4;
		w.branches = w.insts / 8;
		w.cycles = w.insts;
		w.ns = w.insts;
		pmuscope_model_run(t->cpu, &w);
		if (pmuscope_model_spe_irq_line(t->cpu)) {
			irqs++;
			if (pmuscope_stest_irq(t) != IRQ_HANDLED)
				break;
		}
		pmuscope_stest_drain(t);
	}
	return irqs;
}

static void pmuscope_stest_stop(struct pmuscope_stest *t)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&t->sc.lock, flags);
	pmuscope_spe_stop_local(&t->sc, t->cpu, PMUSCOPE_SPE_C_FINAL);
	raw_spin_unlock_irqrestore(&t->sc.lock, flags);
	pmuscope_stest_drain(t);
}

static const struct pmuscope_model_profile *const pmuscope_stest_profiles[] = {
	&pmuscope_model_neoverse_n1, &pmuscope_model_v94,
};

static void pmuscope_stest_prof_desc(const struct pmuscope_model_profile *const *p,
				     char *desc)
{
	strscpy(desc, (*p)->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pmuscope_stest_prof, pmuscope_stest_profiles, pmuscope_stest_prof_desc);

static const struct pmuscope_spe_config pmuscope_stest_cfg = {
	.flags = PMUSCOPE_SPE_EL0, .buffer_kib = 256, .hw_kib = 8,
};

/*
 * Many buffer fills: each handed over whole and the buffer restarted;
 * every record the SPU completed arrives once, none split.
 */
static void pmuscope_test_spe_fills(struct kunit *test)
{
	const struct pmuscope_model_profile *const *prof = test->param_value;
	struct pmuscope_stest *t = test->priv;
	struct pmuscope_model_cpu *m;
	unsigned int irqs;

	pmuscope_stest_start(test, *prof, &pmuscope_stest_cfg);
	irqs = pmuscope_stest_run(t, 6000000, 20000);
	pmuscope_stest_stop(t);
	m = pmuscope_model_get(t->cpu);
	KUNIT_EXPECT_GE(test, irqs, 5U);
	KUNIT_EXPECT_EQ(test, t->sc.st.fills, irqs);
	KUNIT_EXPECT_FALSE(test, t->bad);
	KUNIT_EXPECT_EQ(test, t->records, m->spe.records);
	KUNIT_EXPECT_EQ(test, t->bytes, t->sc.st.bytes);
	KUNIT_EXPECT_EQ(test, t->sc.st.lost_ring, 0ULL);
	KUNIT_EXPECT_EQ(test, t->sc.st.lost_dl, 0ULL);
	KUNIT_EXPECT_TRUE(test, t->flags & PMUSCOPE_SPE_C_FINAL);
	KUNIT_EXPECT_FALSE(test, t->flags & PMUSCOPE_SPE_C_LOST);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMSCR_EL1), 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMBLIMITR_EL1) &
			PMUSCOPE_PMBLIMITR_E, 0ULL);
}

/* A stop drains the SPU first: records still in flight are not lost. */
static void pmuscope_test_spe_drain(struct kunit *test)
{
	const struct pmuscope_model_profile *const *prof = test->param_value;
	struct pmuscope_stest *t = test->priv;
	struct pmuscope_model_cpu *m;

	pmuscope_stest_start(test, *prof, &pmuscope_stest_cfg);
	KUNIT_EXPECT_EQ(test, pmuscope_stest_run(t, 30000, 30000), 0U);
	pmuscope_stest_stop(t);
	m = pmuscope_model_get(t->cpu);
	KUNIT_EXPECT_GT(test, m->spe.records, 0U);
	KUNIT_EXPECT_EQ(test, t->records, m->spe.records);
	KUNIT_EXPECT_EQ(test, m->spe.lost, 0U);
	KUNIT_EXPECT_EQ(test, t->chunks, 1U);
	KUNIT_EXPECT_FALSE(test, t->bad);
}

struct pmuscope_fault_case {
	const char *name;
	enum pmuscope_model_spe_fault f;
	bool stops;
	bool dl;
	bool coll;
};

static const struct pmuscope_fault_case pmuscope_fault_cases[] = {
	{ "stage 1 translation: stop", PMUSCOPE_MODEL_SPE_FAULT_S1_TRANSLATION, true },
	{ "stage 2 translation: stop", PMUSCOPE_MODEL_SPE_FAULT_S2_TRANSLATION, true },
	{ "alignment: stop", PMUSCOPE_MODEL_SPE_FAULT_ALIGNMENT, true },
	{ "external abort: stop", PMUSCOPE_MODEL_SPE_FAULT_EXT_ABORT, true },
	{ "data loss: discard, go on", PMUSCOPE_MODEL_SPE_FAULT_DATA_LOSS, false, true },
	{ "collision: flag, go on", PMUSCOPE_MODEL_SPE_FAULT_COLLISION, false, false, true },
};

static void pmuscope_fault_desc(const struct pmuscope_fault_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pmuscope_fault, pmuscope_fault_cases, pmuscope_fault_desc);

#define PMUSCOPE_STEST_BAR(b)	{ PMUSCOPE_REG_NR + PMUSCOPE_BARRIER_##b, false, 0 }
static const struct pmuscope_model_access pmuscope_stest_off_seq[] = {
	{ PMUSCOPE_REG_PMSCR_EL1, true, 0 },
	PMUSCOPE_STEST_BAR(ISB),
	PMUSCOPE_STEST_BAR(PSB_CSYNC),
	PMUSCOPE_STEST_BAR(DSB_NSH),
	{ PMUSCOPE_REG_PMBLIMITR_EL1, true, 0 },
	PMUSCOPE_STEST_BAR(ISB),
	{ PMUSCOPE_REG_PMBSR_EL1, true, 0 },
	PMUSCOPE_STEST_BAR(ISB),
};

static void pmuscope_test_spe_fault(struct kunit *test)
{
	const struct pmuscope_fault_case *c = test->param_value;
	struct pmuscope_stest *t = test->priv;
	unsigned int irqs;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	/* Some records first, so that a discard has something to discard. */
	pmuscope_stest_run(t, 20000, 20000);
	pmuscope_model_spe_inject(t->cpu, c->f);
	irqs = pmuscope_stest_run(t, 3000000, 20000);
	if (c->stops) {
		KUNIT_EXPECT_TRUE(test, t->sc.faulted);
		KUNIT_EXPECT_FALSE(test, t->sc.running);
		KUNIT_EXPECT_TRUE(test, t->sc.st.pmbsr & PMUSCOPE_PMBSR_S);
		KUNIT_EXPECT_NE(test, pmuscope_spe_decode(t->sc.st.pmbsr),
				PMUSCOPE_SPE_ACT_FULL);
		KUNIT_EXPECT_TRUE(test, t->flags & PMUSCOPE_SPE_C_STOPPED);
		/* Stopped, not retried: one PMBIRQ, nothing written after. */
		KUNIT_EXPECT_EQ(test, irqs, 1U);
		KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMSCR_EL1),
				0ULL);
		/*
		 * Off as arm_spe_pmu_disable_and_drain_local(): profiling
		 * off, ISB, PSB CSYNC, DSB NSH, the buffer off, ISB; only
		 * then the syndrome cleared (D17.9).
		 */
		KUNIT_EXPECT_TRUE(test, pmuscope_stest_log_has(t->cpu, pmuscope_stest_off_seq,
							       ARRAY_SIZE(pmuscope_stest_off_seq)));
	} else {
		pmuscope_stest_stop(t);
		KUNIT_EXPECT_FALSE(test, t->sc.faulted);
		KUNIT_EXPECT_GE(test, t->sc.st.fills, 2U);
	}
	if (c->dl) {
		KUNIT_EXPECT_EQ(test, t->sc.st.dl_events, 1U);
		KUNIT_EXPECT_GT(test, t->sc.st.lost_dl, 0ULL);
		KUNIT_EXPECT_TRUE(test, t->flags & PMUSCOPE_SPE_C_LOST);
		KUNIT_EXPECT_EQ(test, t->lost, t->sc.st.lost_dl);
	}
	if (c->coll) {
		KUNIT_EXPECT_GE(test, t->sc.st.collisions, 1U);
		KUNIT_EXPECT_TRUE(test, t->flags & PMUSCOPE_SPE_C_COLLISION);
	}
	/* Whatever was handed over is whole records, and PMBSR_EL1 is left clear. */
	KUNIT_EXPECT_FALSE(test, t->bad);
	KUNIT_EXPECT_EQ(test, t->bytes + t->sc.st.lost_dl, t->sc.st.bytes + t->sc.st.lost_dl);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(t->cpu));
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMBSR_EL1), 0ULL);
}

/* Discard mode (SPEv1p2, v94): the SPU samples, writes nothing, never fills. */
static void pmuscope_test_spe_discard(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	struct pmuscope_spe_config cfg = pmuscope_stest_cfg;
	struct pmuscope_model_cpu *m;

	cfg.flags |= PMUSCOPE_SPE_DISCARD;
	pmuscope_stest_start(test, &pmuscope_model_v94, &cfg);
	KUNIT_EXPECT_EQ(test, pmuscope_stest_run(t, 3000000, 20000), 0U);
	pmuscope_stest_stop(t);
	m = pmuscope_model_get(t->cpu);
	KUNIT_EXPECT_GT(test, m->spe.samples, 500U);
	KUNIT_EXPECT_EQ(test, m->spe.records, 0U);
	KUNIT_EXPECT_EQ(test, t->records, 0U);
	KUNIT_EXPECT_EQ(test, t->bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, t->sc.st.fills, 0U);
	KUNIT_EXPECT_FALSE(test, t->bad);
}

/* A PMBIRQ with PMBSR_EL1.S clear: IRQ_NONE, counted, nothing touched. */
static void pmuscope_test_spe_spurious(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	KUNIT_EXPECT_EQ(test, pmuscope_stest_irq(t), IRQ_NONE);
	KUNIT_EXPECT_EQ(test, t->sc.st.spurious, 1U);
	KUNIT_EXPECT_TRUE(test, t->sc.running);
	pmuscope_stest_drain(t);
	KUNIT_EXPECT_EQ(test, t->chunks, 0U);
}

/*
 * Idle mid-profiling: drained at the power-down with nothing queued (a
 * worker's wake-up would abort the idle state), copied after the
 * power-up, profiling again after.
 */
static void pmuscope_test_spe_idle(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	struct pmuscope_model_cpu *m;
	unsigned long flags;
	int wakes;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	pmuscope_stest_run(t, 30000, 30000);
	flush_work(&t->sc.work);	/* queued by earlier fills, copied already */
	wakes = atomic_read(&t->ss->wakes);
	local_irq_save(flags);
	pmuscope_spe_pm(&t->sc, t->cpu, true);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, t->sc.running);
	KUNIT_EXPECT_NE(test, t->sc.busy, 0);
	KUNIT_EXPECT_FALSE(test, work_pending(&t->sc.work));
	/* The power-down loses the unit's registers. */
	pmuscope_model_reset(t->cpu, &pmuscope_model_neoverse_n1);
	pmuscope_model_spe_add_buffer(t->cpu, t->ss->bufs[t->cpu], 2 * t->sc.buf_size);
	/* Preemption off: the worker, bound to this CPU, runs only when we let it. */
	preempt_disable();
	local_irq_save(flags);
	pmuscope_spe_pm(&t->sc, t->cpu, false);
	local_irq_restore(flags);
	/* The copy is queued at the power-up, and profiling goes on meanwhile. */
	KUNIT_EXPECT_TRUE(test, work_pending(&t->sc.work));
	KUNIT_EXPECT_TRUE(test, t->sc.running);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->ss->wakes), wakes);
	preempt_enable();
	pmuscope_stest_drain(t);
	KUNIT_EXPECT_EQ(test, t->chunks, 1U);
	KUNIT_EXPECT_TRUE(test, t->flags & PMUSCOPE_SPE_C_FINAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&t->ss->wakes), wakes + 1);
	pmuscope_stest_run(t, 3000000, 20000);
	pmuscope_stest_stop(t);
	m = pmuscope_model_get(t->cpu);
	KUNIT_EXPECT_GT(test, m->spe.records, 0U);
	KUNIT_EXPECT_FALSE(test, t->bad);
	KUNIT_EXPECT_GE(test, t->sc.st.fills, 1U);
}

/*
 * Idle with nothing sampled: a power-down with an empty buffer hands
 * nothing over and queues nothing (a wake-up right before PSCI
 * CPU_SUSPEND aborts the deep idle state, and would wake the reader for
 * nothing). Before: one empty FINAL chunk and one irq_work per cycle.
 */
static void pmuscope_test_spe_idle_empty(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	unsigned long flags;
	unsigned int i;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	for (i = 0; i < 100; i++) {
		flush_work(&t->sc.work);
		local_irq_save(flags);
		pmuscope_spe_pm(&t->sc, t->cpu, true);
		local_irq_restore(flags);
		KUNIT_ASSERT_EQ(test, t->sc.busy, 0);
		pmuscope_model_reset(t->cpu, &pmuscope_model_neoverse_n1);
		pmuscope_model_spe_add_buffer(t->cpu, t->ss->bufs[t->cpu], 2 * t->sc.buf_size);
		local_irq_save(flags);
		pmuscope_spe_pm(&t->sc, t->cpu, false);
		local_irq_restore(flags);
		KUNIT_ASSERT_FALSE(test, work_pending(&t->sc.work));
		KUNIT_ASSERT_TRUE(test, t->sc.running);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&t->ss->wakes), 0);
	pmuscope_stest_drain(t);
	KUNIT_EXPECT_EQ_MSG(test, t->chunks, 0U, "100 idle cycles without samples");
	pmuscope_stest_stop(t);
}

/*
 * CPU online (and reboot) resets the unit as __arm_spe_pmu_reset_local()
 * does: what a previous kernel (kexec) or the firmware left enabled, a
 * pending management event included, is disabled and cleared.
 */
static void pmuscope_test_spe_reset_local(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	unsigned long flags;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	pmuscope_stest_stop(t);
	/* Left behind: the buffer enabled, a pointer, a service event pending. */
	pmuscope_model_write_cpu(t->cpu, PMUSCOPE_REG_PMBPTR_EL1, (u64)(uintptr_t)t->sc.buf[0]);
	pmuscope_model_write_cpu(t->cpu, PMUSCOPE_REG_PMBSR_EL1, PMUSCOPE_PMBSR_S);
	pmuscope_model_write_cpu(t->cpu, PMUSCOPE_REG_PMSCR_EL1, PMUSCOPE_PMSCR_E0SPE);
	raw_spin_lock_irqsave(&t->sc.lock, flags);
	pmuscope_spe_reset_local(&t->sc);
	raw_spin_unlock_irqrestore(&t->sc.lock, flags);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMSCR_EL1), 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMBLIMITR_EL1) &
			PMUSCOPE_PMBLIMITR_E, 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMBPTR_EL1), 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMBSR_EL1), 0ULL);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(t->cpu));
}

/* Reboot/kexec: drained and reset, and neither idle exit nor online restarts it. */
static void pmuscope_test_spe_reboot(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	unsigned long flags;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	pmuscope_stest_run(t, 30000, 30000);
	raw_spin_lock_irqsave(&t->sc.lock, flags);
	pmuscope_spe_reboot_local(&t->sc, t->cpu);
	raw_spin_unlock_irqrestore(&t->sc.lock, flags);
	KUNIT_EXPECT_FALSE(test, t->sc.running);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMSCR_EL1), 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMBLIMITR_EL1) &
			PMUSCOPE_PMBLIMITR_E, 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMBPTR_EL1), 0ULL);
	pmuscope_stest_drain(t);
	KUNIT_EXPECT_EQ(test, t->chunks, 1U);
	KUNIT_EXPECT_TRUE(test, t->flags & PMUSCOPE_SPE_C_FINAL);
	local_irq_save(flags);
	pmuscope_spe_pm(&t->sc, t->cpu, true);
	pmuscope_spe_pm(&t->sc, t->cpu, false);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE(test, t->sc.running);
}

/*
 * Run the workload in steps until @n PMBIRQs were served, none copied:
 * the caller keeps preemption off, so the worker the PMBIRQ queues on
 * this CPU has not run. Returns the PMBIRQs served.
 */
static unsigned int pmuscope_stest_fill(struct pmuscope_stest *t, unsigned int n)
{
	struct pmuscope_model_work w = {
		.el = 0, .pc = 0x400000, .data_addr = 0x10000000, .load_latency = 20,
		.insts = 20000, .loads = 10000, .cycles = 20000, .ns = 20000,
	};
	unsigned int irqs = 0, i;

	for (i = 0; i < 1000 && irqs < n; i++) {
		pmuscope_model_run(t->cpu, &w);
		if (pmuscope_model_spe_irq_line(t->cpu)) {
			irqs++;
			pmuscope_stest_irq(t);
		}
	}
	return irqs;
}

/*
 * The PMBIRQ's work is O(1): it copies nothing (the ring is as it was),
 * hands the full buffer to the copier, whose work it queues on this CPU,
 * and points the SPU at the other buffer (PMBPTR_EL1 at its base, its
 * PMBLIMITR_EL1). Before: the handler copied the whole buffer into the
 * ring in hard IRQ under the session's lock (up to 4 MiB per fill).
 */
static void pmuscope_test_spe_irq_hand_over(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	u64 head;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	head = t->ss->head;
	preempt_disable();
	KUNIT_EXPECT_EQ(test, pmuscope_stest_fill(t, 1), 1U);
	KUNIT_EXPECT_EQ(test, t->ss->head, head);
	KUNIT_EXPECT_EQ(test, t->sc.busy, BIT(0));
	KUNIT_EXPECT_GT(test, t->sc.pend[0].len, 0U);
	KUNIT_EXPECT_EQ(test, t->sc.cur, 1);
	KUNIT_EXPECT_TRUE(test, t->sc.running);
	KUNIT_EXPECT_TRUE(test, work_pending(&t->sc.work));
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMBPTR_EL1),
			(u64)(uintptr_t)t->sc.buf[1]);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMBLIMITR_EL1),
			t->sc.pmblimitr[1]);
	KUNIT_EXPECT_EQ(test, t->sc.pmblimitr[1] & PMUSCOPE_PMBLIMITR_LIMIT,
			(u64)(uintptr_t)t->sc.buf[1] + t->sc.buf_size);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(t->cpu));
	preempt_enable();
	pmuscope_stest_stop(t);
	KUNIT_EXPECT_EQ(test, t->chunks, 2U);	/* the fill, then the drain's FINAL */
	KUNIT_EXPECT_EQ(test, t->records, pmuscope_model_get(t->cpu)->spe.records);
	KUNIT_EXPECT_FALSE(test, t->bad);
	KUNIT_EXPECT_EQ(test, t->sc.st.fills, 1U);
}

/*
 * Both buffers full before the copier ran: profiling stays off (PMSCR_EL1
 * 0, the buffer disabled, the PMBIRQ line low), nothing is written or
 * lost meanwhile, and the copier, on this CPU, frees them and restarts
 * it; the time off is stopped time. Every record the SPU wrote arrives,
 * in order, once.
 */
static void pmuscope_test_spe_waiting(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	struct pmuscope_model_cpu *m = pmuscope_model_get(t->cpu);
	unsigned int written;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	preempt_disable();
	KUNIT_EXPECT_EQ(test, pmuscope_stest_fill(t, 2), 2U);
	KUNIT_EXPECT_EQ(test, t->sc.busy, BIT(0) | BIT(1));
	KUNIT_EXPECT_EQ(test, t->sc.oldest, 0);
	KUNIT_EXPECT_FALSE(test, t->sc.running);
	KUNIT_EXPECT_TRUE(test, t->sc.waiting);
	KUNIT_EXPECT_TRUE(test, t->sc.off);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMSCR_EL1), 0ULL);
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMBLIMITR_EL1) &
			PMUSCOPE_PMBLIMITR_E, 0ULL);
	KUNIT_EXPECT_FALSE(test, pmuscope_model_spe_irq_line(t->cpu));
	/* Off: more work writes nothing, raises nothing. */
	written = m->spe.records;
	KUNIT_EXPECT_EQ(test, pmuscope_stest_fill(t, 1), 0U);
	KUNIT_EXPECT_EQ(test, m->spe.records, written);
	KUNIT_EXPECT_TRUE(test, work_pending(&t->sc.work));
	preempt_enable();
	/* The copier on this CPU (the worker's body): both copied, profiling back. */
	pmuscope_spe_copy(&t->sc);
	KUNIT_EXPECT_EQ(test, t->sc.busy, 0);
	KUNIT_EXPECT_TRUE(test, t->sc.running);
	KUNIT_EXPECT_FALSE(test, t->sc.waiting);
	KUNIT_EXPECT_GT(test, t->sc.off_ticks, 0ULL);
	pmuscope_stest_run(t, 200000, 20000);
	pmuscope_stest_stop(t);
	KUNIT_EXPECT_GT(test, m->spe.records, written);
	KUNIT_EXPECT_EQ(test, t->records, m->spe.records);
	KUNIT_EXPECT_EQ(test, t->sc.st.lost_ring, 0ULL);
	KUNIT_EXPECT_FALSE(test, t->flags & PMUSCOPE_SPE_C_LOST);
	KUNIT_EXPECT_FALSE(test, t->bad);
}

/*
 * SPE_STOP reaches a CPU that waits for a free buffer: stopped for good.
 * The copy that follows frees the buffers, and an idle cycle of the CPU
 * before the session's STOP has finished must not restart it (the
 * session still runs then). Before: STOP only drained, the CPU stayed
 * "off", and cpu_pm's exit restarted the SPU into buffers release then
 * freed.
 */
static void pmuscope_test_spe_stop_waiting(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	unsigned long flags;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	preempt_disable();
	KUNIT_ASSERT_EQ(test, pmuscope_stest_fill(t, 2), 2U);
	KUNIT_ASSERT_TRUE(test, t->sc.waiting);
	/* SPE_STOP's cross call, on the CPU. */
	local_irq_save(flags);
	raw_spin_lock(&t->sc.lock);
	pmuscope_spe_stop_cpu(&t->sc, t->cpu);
	raw_spin_unlock(&t->sc.lock);
	local_irq_restore(flags);
	preempt_enable();
	/* STOP's copy, the session still running. */
	pmuscope_spe_copy(&t->sc);
	KUNIT_EXPECT_EQ(test, t->sc.busy, 0);
	KUNIT_EXPECT_FALSE(test, t->sc.running);
	/* The CPU idles and wakes meanwhile. */
	local_irq_save(flags);
	pmuscope_spe_pm(&t->sc, t->cpu, true);
	pmuscope_spe_pm(&t->sc, t->cpu, false);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE_MSG(test, t->sc.running, "the SPU restarted after STOP's cross call");
	KUNIT_EXPECT_EQ(test, pmuscope_model_read_cpu(t->cpu, PMUSCOPE_REG_PMSCR_EL1), 0ULL);
	KUNIT_EXPECT_FALSE(test, t->sc.off);
	KUNIT_EXPECT_GT(test, t->sc.off_ticks, 0ULL);
	pmuscope_stest_drain(t);
	KUNIT_EXPECT_FALSE(test, t->bad);
	KUNIT_EXPECT_EQ(test, t->records, pmuscope_model_get(t->cpu)->spe.records);
}

/*
 * A CPU going offline may still idle on its way down (cpu_pm after the
 * cpuhp callback): the idle exit must not restart profiling there (its
 * PMBIRQ is already disabled); coming online does. Before: nothing but
 * "off" was checked, and the SPU restarted on the dying CPU.
 */
static void pmuscope_test_spe_offline_idle(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	unsigned long flags;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	pmuscope_stest_run(t, 30000, 30000);
	local_irq_save(flags);
	raw_spin_lock(&t->sc.lock);
	pmuscope_spe_offline_local(&t->sc, t->cpu);
	raw_spin_unlock(&t->sc.lock);
	pmuscope_spe_pm(&t->sc, t->cpu, true);
	pmuscope_spe_pm(&t->sc, t->cpu, false);
	local_irq_restore(flags);
	KUNIT_EXPECT_FALSE_MSG(test, t->sc.running, "profiling restarted on a CPU going offline");
	KUNIT_EXPECT_TRUE(test, t->sc.off);
	pmuscope_stest_drain(t);
	KUNIT_EXPECT_EQ(test, t->chunks, 1U);
	KUNIT_EXPECT_TRUE(test, t->flags & PMUSCOPE_SPE_C_FINAL);
	local_irq_save(flags);
	raw_spin_lock(&t->sc.lock);
	pmuscope_spe_online_local(&t->sc);
	raw_spin_unlock(&t->sc.lock);
	local_irq_restore(flags);
	KUNIT_EXPECT_TRUE(test, t->sc.running);
	KUNIT_EXPECT_FALSE(test, t->sc.off);
}

/*
 * A chunk reserved but not committed (its copier still copying) is not
 * readable: poll() says nothing, a non-blocking read() EAGAIN, whatever
 * is in the ring after it; committed (BUSY cleared with release), it is.
 */
static void pmuscope_test_spe_busy_chunk(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	struct pmuscope_spe_chunk ch = {
		.size = sizeof(ch) + 8, .cpu = t->cpu, .data_size = 8,
		.flags = PMUSCOPE_SPE_C_BUSY,
	};
	struct pmuscope_spe_sess *ss;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	ss = t->ss;
	KUNIT_ASSERT_EQ(test, ss->head, 0ULL);
	memcpy(ss->data, &ch, sizeof(ch));
	/* Reserved, as the copier's reservation publishes it. */
	smp_store_release(&ss->head, ch.size);
	KUNIT_EXPECT_FALSE(test, pmuscope_spe_poll(ss, NULL, NULL) & EPOLLIN);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_read(ss, NULL, 4096, true), (ssize_t)-EAGAIN);
	KUNIT_EXPECT_EQ(test, ss->tail, 0ULL);
	/*
	 * Committed, as the copier's release of the flags; readable (into
	 * NULL: EFAULT shows that read() took it up).
	 */
	smp_store_release((u32 *)(ss->data + offsetof(struct pmuscope_spe_chunk, flags)), 0);
	KUNIT_EXPECT_TRUE(test, pmuscope_spe_poll(ss, NULL, NULL) & EPOLLIN);
	KUNIT_EXPECT_EQ(test, pmuscope_spe_read(ss, NULL, 4096, true), (ssize_t)-EFAULT);
	ss->tail = ss->head;
}

/*
 * A FINAL chunk makes the ring readable below wakeup_kib, until the
 * reader is past it: the flush is the position of its end, which the
 * reader never clears (a cleared flag could be lost to a copier that
 * committed a FINAL chunk between the reader's last look and its clear).
 */
static void pmuscope_test_spe_flush(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	struct pmuscope_spe_config cfg = pmuscope_stest_cfg;
	unsigned long flags;

	cfg.wakeup_kib = 128;
	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &cfg);
	preempt_disable();
	KUNIT_EXPECT_EQ(test, pmuscope_stest_fill(t, 1), 1U);
	preempt_enable();
	pmuscope_spe_copy(&t->sc);
	KUNIT_EXPECT_NE(test, t->ss->head, 0ULL);	/* one chunk of 8 KiB, below 128 */
	KUNIT_EXPECT_FALSE_MSG(test, pmuscope_spe_poll(t->ss, NULL, NULL) & EPOLLIN,
			       "readable below wakeup_kib without a FINAL chunk");
	local_irq_save(flags);
	raw_spin_lock(&t->sc.lock);
	pmuscope_spe_stop_local(&t->sc, t->cpu, PMUSCOPE_SPE_C_FINAL);
	raw_spin_unlock(&t->sc.lock);
	local_irq_restore(flags);
	pmuscope_spe_copy(&t->sc);
	KUNIT_EXPECT_TRUE(test, pmuscope_spe_poll(t->ss, NULL, NULL) & EPOLLIN);
	pmuscope_stest_drain(t);
	KUNIT_EXPECT_TRUE(test, t->flags & PMUSCOPE_SPE_C_FINAL);
	KUNIT_EXPECT_FALSE(test, pmuscope_spe_poll(t->ss, NULL, NULL) & EPOLLIN);
	KUNIT_EXPECT_FALSE(test, t->bad);
}

/*
 * A DL discard leaves nothing to copy: the buffer stays free and the
 * loss goes with the next chunk, so a CPU whose other buffer is being
 * copied keeps profiling. Before: the discard was handed over as an
 * empty chunk, both buffers were busy, and the CPU stopped for nothing.
 */
static void pmuscope_test_spe_dl_keeps_buffer(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;

	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &pmuscope_stest_cfg);
	preempt_disable();
	KUNIT_EXPECT_EQ(test, pmuscope_stest_fill(t, 1), 1U);
	KUNIT_EXPECT_EQ(test, t->sc.busy, BIT(0));
	pmuscope_model_spe_inject(t->cpu, PMUSCOPE_MODEL_SPE_FAULT_DATA_LOSS);
	KUNIT_EXPECT_EQ(test, pmuscope_stest_fill(t, 1), 1U);
	KUNIT_EXPECT_EQ(test, t->sc.st.dl_events, 1U);
	KUNIT_EXPECT_EQ(test, t->sc.busy, BIT(0));
	KUNIT_EXPECT_TRUE_MSG(test, t->sc.running, "stopped for a discard");
	preempt_enable();
	pmuscope_stest_stop(t);
	KUNIT_EXPECT_TRUE(test, t->flags & PMUSCOPE_SPE_C_LOST);
	KUNIT_EXPECT_EQ(test, t->lost, t->sc.st.lost_dl);
	KUNIT_EXPECT_FALSE(test, t->bad);
}

/* A ring with no room: the chunk is counted lost, and the next one says so. */
static void pmuscope_test_spe_ring_full(struct kunit *test)
{
	struct pmuscope_stest *t = test->priv;
	struct pmuscope_spe_config cfg = pmuscope_stest_cfg;
	struct pmuscope_model_work w = {
		.el = 0, .pc = 0x400000, .data_addr = 0x10000000, .load_latency = 20,
		.insts = 20000, .loads = 10000, .cycles = 20000, .ns = 20000,
	};
	u64 before;
	int i;

	cfg.buffer_kib = 16;
	pmuscope_stest_start(test, &pmuscope_model_neoverse_n1, &cfg);
	/* Fill without reading: 16 KiB holds one 8 KiB chunk, not two. */
	for (i = 0; i < 200 && !t->sc.st.lost_ring; i++) {
		pmuscope_model_run(t->cpu, &w);
		if (pmuscope_model_spe_irq_line(t->cpu))
			pmuscope_stest_irq(t);
		pmuscope_spe_copy(&t->sc);
	}
	KUNIT_ASSERT_GT(test, t->sc.st.lost_ring, 0ULL);
	before = t->sc.st.lost_ring;
	pmuscope_stest_drain(t);
	pmuscope_stest_stop(t);
	KUNIT_EXPECT_TRUE(test, t->flags & PMUSCOPE_SPE_C_LOST);
	KUNIT_EXPECT_EQ(test, t->lost, before);
	KUNIT_EXPECT_FALSE(test, t->bad);
}

/*
 * buffer_kib is the session's one ring, which every CPU of it fills
 * (its chunks name their CPU); hw_kib is each of a CPU's two profiling
 * buffers. Two CPUs: one ring of buffer_kib, four buffers of hw_kib.
 */
static void pmuscope_test_spe_one_ring(struct kunit *test)
{
	struct pmuscope_spe_config cfg = pmuscope_stest_cfg;
	struct pmuscope_spe_sess *ss;
	cpumask_var_t cpus;
	unsigned int cpu, n = 0;

	KUNIT_ASSERT_TRUE(test, zalloc_cpumask_var(&cpus, GFP_KERNEL));
	for_each_possible_cpu(cpu) {
		cpumask_set_cpu(cpu, cpus);
		if (++n == 2)
			break;
	}
	cfg.buffer_kib = 64;
	cfg.hw_kib = 16;
	ss = pmuscope_spe_alloc(&cfg, cpus);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ss));
	KUNIT_EXPECT_EQ_MSG(test, ss->size, 64U * 1024, "one ring for %u CPUs", n);
	for_each_cpu(cpu, cpus)
		KUNIT_EXPECT_NOT_NULL_MSG(test, ss->bufs[cpu], "cpu%u's buffer", cpu);
	KUNIT_EXPECT_EQ(test, ss->buf_size, 16U * 1024);
	/* Charged: the ring and each CPU's two buffers of hw_kib, to the starter. */
	KUNIT_EXPECT_EQ(test, ss->mlock.pages, (64UL + 2 * 16 * n) * 1024 / PAGE_SIZE);
	KUNIT_EXPECT_PTR_EQ(test, ss->mlock.user, current_user());
	pmuscope_spe_free(ss);
	free_cpumask_var(cpus);
}

static struct kunit_case pmuscope_spe_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_spe_decode, pmuscope_decode_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_spe_config_regs, pmuscope_regs_gen_params),
	KUNIT_CASE(pmuscope_test_spe_min_interval),
	KUNIT_CASE_PARAM(pmuscope_test_spe_buffer_regs, pmuscope_buf_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_spe_check, pmuscope_check_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_spe_fills, pmuscope_stest_prof_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_spe_drain, pmuscope_stest_prof_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_spe_fault, pmuscope_fault_gen_params),
	KUNIT_CASE(pmuscope_test_spe_discard),
	KUNIT_CASE(pmuscope_test_spe_spurious),
	KUNIT_CASE(pmuscope_test_spe_idle),
	KUNIT_CASE(pmuscope_test_spe_idle_empty),
	KUNIT_CASE(pmuscope_test_spe_reset_local),
	KUNIT_CASE(pmuscope_test_spe_reboot),
	KUNIT_CASE(pmuscope_test_spe_irq_hand_over),
	KUNIT_CASE(pmuscope_test_spe_waiting),
	KUNIT_CASE(pmuscope_test_spe_stop_waiting),
	KUNIT_CASE(pmuscope_test_spe_offline_idle),
	KUNIT_CASE(pmuscope_test_spe_busy_chunk),
	KUNIT_CASE(pmuscope_test_spe_flush),
	KUNIT_CASE(pmuscope_test_spe_dl_keeps_buffer),
	KUNIT_CASE(pmuscope_test_spe_ring_full),
	KUNIT_CASE(pmuscope_test_spe_one_ring),
	{}
};

static struct kunit_suite pmuscope_spe_suite = {
	.name = "pmuscope_spe",
	.init = pmuscope_stest_init,
	.exit = pmuscope_stest_exit,
	.test_cases = pmuscope_spe_cases,
};

kunit_test_suite(pmuscope_spe_suite);
