// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the call-chain walker of pmuscope.ko (drivers/pmuscope_callchain.c)
 * through its seam, a frame reader: a fake memory map of frame records
 * stands for the user stack (copy_from_user_nofault() in the driver), the
 * driver's own kernel reader walks frames on this test's stack. Each rule
 * that ends a walk, the PAC strip, the kernel addresses a session may not
 * see, and the record's layout, byte for byte, through
 * pmuscope_stream_put_sample().
 */

#include <kunit/test.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <asm/pointer_auth.h>

#include "pmuscope.h"

/* A frame record of the fake map, at @addr. */
struct pmuscope_ct_frame {
	unsigned long addr;
	u64 fp;
	u64 lr;
};

struct pmuscope_ct_map {
	const struct pmuscope_ct_frame *frames;	/* ends with addr 0 */
	unsigned int reads;
};

static int pmuscope_ct_read(const struct pmuscope_chain_mem *mem, unsigned long fp,
			    struct pmuscope_frame_record *fr)
{
	struct pmuscope_ct_map *map = mem->priv;
	const struct pmuscope_ct_frame *f;

	map->reads++;
	for (f = map->frames; f->addr; f++)
		if (f->addr == fp) {
			fr->fp = f->fp;
			fr->lr = f->lr;
			return 0;
		}
	return -EFAULT;
}

#define U(x)	(0x0000005500000000ULL + (x))		/* user addresses, below 2^39 */
#define K(x)	(0xffff800080000000ULL + (x))		/* kernel addresses */

/* A good chain of 3 frames: main's caller's record ends it (fp 0). */
static const struct pmuscope_ct_frame pmuscope_ct_good[] = {
	{ U(0x7f000), U(0x7f040), U(0x1100) },
	{ U(0x7f040), U(0x7f080), U(0x1200) },
	{ U(0x7f080), 0, U(0x1300) },
	{}
};

struct pmuscope_ct_case {
	const char *name;
	const struct pmuscope_ct_frame *frames;
	unsigned long fp;
	u32 room;
	u32 nr;				/* frames stored */
	u64 ips[8];
	u32 flags;			/* PMUSCOPE_CHAIN_F_* */
	unsigned int reads;		/* frame records read */
};

static const struct pmuscope_ct_case pmuscope_ct_cases[] = {
	{
		.name = "3 frames, fp 0 ends cleanly",
		.frames = pmuscope_ct_good, .fp = U(0x7f000), .room = 8,
		.nr = 3, .ips = { U(0x1100), U(0x1200), U(0x1300) }, .reads = 3,
	}, {
		.name = "fp 0 at the start: no frame, nothing read",
		.frames = pmuscope_ct_good, .fp = 0, .room = 8,
	}, {
		.name = "misaligned fp at the start: USER_END, nothing read",
		.frames = pmuscope_ct_good, .fp = U(0x7f004), .room = 8,
		.flags = PMUSCOPE_CHAIN_F_USER_END,
	}, {
		.name = "misaligned next fp: its lr kept, then USER_END",
		.frames = (const struct pmuscope_ct_frame[]){
			{ U(0x7f000), U(0x7f044), U(0x1100) }, {} },
		.fp = U(0x7f000), .room = 8,
		.nr = 1, .ips = { U(0x1100) }, .flags = PMUSCOPE_CHAIN_F_USER_END, .reads = 1,
	}, {
		.name = "a frame pointing at itself: one lr, USER_END, no loop",
		.frames = (const struct pmuscope_ct_frame[]){
			{ U(0x7f000), U(0x7f000), U(0x1100) }, {} },
		.fp = U(0x7f000), .room = 8,
		.nr = 1, .ips = { U(0x1100) }, .flags = PMUSCOPE_CHAIN_F_USER_END, .reads = 1,
	}, {
		.name = "a frame going down the stack: USER_END, no loop",
		.frames = (const struct pmuscope_ct_frame[]){
			{ U(0x7f000), U(0x7f040), U(0x1100) },
			{ U(0x7f040), U(0x7f000), U(0x1200) }, {} },
		.fp = U(0x7f000), .room = 8,
		.nr = 2, .ips = { U(0x1100), U(0x1200) }, .flags = PMUSCOPE_CHAIN_F_USER_END,
		.reads = 2,
	}, {
		.name = "an unreadable frame: USER_END",
		.frames = (const struct pmuscope_ct_frame[]){
			{ U(0x7f000), U(0x7f040), U(0x1100) }, {} },
		.fp = U(0x7f000), .room = 8,
		.nr = 1, .ips = { U(0x1100) }, .flags = PMUSCOPE_CHAIN_F_USER_END, .reads = 2,
	}, {
		.name = "room for 2 of 3: TRUNCATED",
		.frames = pmuscope_ct_good, .fp = U(0x7f000), .room = 2,
		.nr = 2, .ips = { U(0x1100), U(0x1200) }, .flags = PMUSCOPE_CHAIN_F_TRUNCATED,
		.reads = 3,
	}, {
		.name = "room for exactly 3: not truncated",
		.frames = pmuscope_ct_good, .fp = U(0x7f000), .room = 3,
		.nr = 3, .ips = { U(0x1100), U(0x1200), U(0x1300) }, .reads = 3,
	}, {
		.name = "a zero return address (the outermost record) ends, not kept",
		.frames = (const struct pmuscope_ct_frame[]){
			{ U(0x7f000), U(0x7f040), U(0x1100) },
			{ U(0x7f040), 0, 0 }, {} },
		.fp = U(0x7f000), .room = 8,
		.nr = 1, .ips = { U(0x1100) }, .reads = 2,
	},
};

static void pmuscope_ct_case_desc(const struct pmuscope_ct_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pmuscope_ct, pmuscope_ct_cases, pmuscope_ct_case_desc);

/* The user walk of each case: the frames kept, the flags, the reads. */
static void pmuscope_test_chain_walk(struct kunit *test)
{
	const struct pmuscope_ct_case *c = test->param_value;
	struct pmuscope_ct_map map = { .frames = c->frames };
	struct pmuscope_chain_mem mem = { .read = pmuscope_ct_read, .priv = &map, .user = true };
	u64 ips[9];
	u32 flags = 0, n, i;

	memset(ips, 0xa5, sizeof(ips));
	n = pmuscope_chain_walk(&mem, c->fp, ips, c->room, &flags);
	KUNIT_ASSERT_EQ(test, n, c->nr);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, ips[i], c->ips[i], "frame %u", i);
	/* Nothing written beyond what it returned. */
	KUNIT_EXPECT_EQ(test, ips[n], 0xa5a5a5a5a5a5a5a5ULL);
	KUNIT_EXPECT_EQ(test, flags, c->flags);
	KUNIT_EXPECT_EQ(test, map.reads, c->reads);
}

/*
 * A return address signed with pointer authentication: the PAC field
 * (bits 54 down to the VA size, ptrauth_user_pac_mask()) is stripped, the
 * address kept, on every kernel (without PAC support the kernel's strip
 * is the identity, the mask does it).
 */
static void pmuscope_test_chain_pac(struct kunit *test)
{
	u64 pac = BIT_ULL(54) | BIT_ULL(vabits_actual) | BIT_ULL(52);
	const struct pmuscope_ct_frame frames[] = {
		{ U(0x7f000), U(0x7f040), U(0x1100) | pac },
		{ U(0x7f040), 0, U(0x1200) | ptrauth_user_pac_mask() },
		{}
	};
	struct pmuscope_ct_map map = { .frames = frames };
	struct pmuscope_chain_mem mem = { .read = pmuscope_ct_read, .priv = &map, .user = true };
	u32 flags = 0;
	u64 ips[4];

	KUNIT_ASSERT_NE(test, pac & ptrauth_user_pac_mask(), 0);
	KUNIT_ASSERT_EQ(test, pmuscope_chain_walk(&mem, U(0x7f000), ips, 4, &flags), 2);
	KUNIT_EXPECT_EQ(test, ips[0], U(0x1100));
	KUNIT_EXPECT_EQ(test, ips[1], U(0x1200));
	KUNIT_EXPECT_EQ(test, flags, 0);
	KUNIT_EXPECT_EQ(test, pmuscope_chain_strip_user(U(0x1234)), U(0x1234));
}

/* Regs of a sample: @el 0 (user), 1 (kernel) or 32 (an AArch32 task). */
static void pmuscope_ct_regs(struct pt_regs *regs, int el, u64 pc, u64 fp)
{
	memset(regs, 0, sizeof(*regs));
	regs->pstate = el == 1 ? PSR_MODE_EL1h : el == 32 ? PSR_MODE32_BIT : PSR_MODE_EL0t;
	regs->pc = pc;
	regs->regs[29] = fp;
}

static const struct pmuscope_ct_frame pmuscope_ct_kframes[] = {
	{ K(0x3f00), K(0x3f40), K(0x100) },
	{ K(0x3f40), K(0x3f80), K(0x200) },
	{ K(0x3f80), 0, 0 },			/* the final record of pt_regs */
	{}
};

struct pmuscope_ct_chain {
	struct pmuscope_rec_chain hdr;
	u64 ips[PMUSCOPE_STACK_MAX + 1];
};

/* A kernel sample of a user task, fake kernel and user memory. */
struct pmuscope_ct_src {
	struct pt_regs regs, uregs;
	struct pmuscope_ct_map kmap, umap;
	struct pmuscope_chain_mem kmem, umem;
	struct pmuscope_chain_src src;
	struct pmuscope_ct_chain ch;
};

static struct pmuscope_ct_src *pmuscope_ct_src(struct kunit *test, bool kernel_pcs)
{
	struct pmuscope_ct_src *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	pmuscope_ct_regs(&s->regs, 1, K(0x50), K(0x3f00));
	pmuscope_ct_regs(&s->uregs, 0, U(0x1000), U(0x7f000));
	s->kmap.frames = pmuscope_ct_kframes;
	s->umap.frames = pmuscope_ct_good;
	s->kmem = (struct pmuscope_chain_mem){ .read = pmuscope_ct_read, .priv = &s->kmap };
	s->umem = (struct pmuscope_chain_mem){
		.read = pmuscope_ct_read, .priv = &s->umap, .user = true,
	};
	s->src = (struct pmuscope_chain_src){
		.regs = &s->regs, .uregs = &s->uregs, .kernel_pcs = kernel_pcs,
		.kmem = &s->kmem, .umem = &s->umem,
	};
	memset(&s->ch, 0xa5, sizeof(s->ch));
	return s;
}

static void pmuscope_ct_expect_hdr(struct kunit *test, const struct pmuscope_rec_chain *h,
				   u32 nr_kernel, u32 nr_user, u32 flags)
{
	KUNIT_EXPECT_EQ(test, h->version, PMUSCOPE_CHAIN_VERSION);
	KUNIT_EXPECT_EQ(test, h->size, 16);
	KUNIT_EXPECT_EQ(test, h->nr_kernel, nr_kernel);
	KUNIT_EXPECT_EQ(test, h->nr_user, nr_user);
	KUNIT_EXPECT_EQ(test, h->flags, flags);
	KUNIT_EXPECT_EQ(test, h->reserved, 0);
}

/*
 * Taken in the kernel, for a session that may see kernel addresses: the
 * kernel PC and frames, then the user PC and frames; the size exact and
 * nothing written beyond it.
 */
static void pmuscope_test_chain_kernel_user(struct kunit *test)
{
	struct pmuscope_ct_src *s = pmuscope_ct_src(test, true);
	static const u64 want[] = {
		K(0x50), K(0x100), K(0x200), U(0x1000), U(0x1100), U(0x1200), U(0x1300),
	};
	u32 i, len = pmuscope_chain_fill(&s->src, 0, &s->ch.hdr);

	KUNIT_EXPECT_EQ(test, len, 16 + 8 * ARRAY_SIZE(want));
	pmuscope_ct_expect_hdr(test, &s->ch.hdr, 3, 4, 0);
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, s->ch.ips[i], want[i], "frame %u", i);
	KUNIT_EXPECT_EQ(test, s->ch.ips[i], 0xa5a5a5a5a5a5a5a5ULL);
}

/*
 * Taken in the kernel, for a session that may not see kernel addresses:
 * KERNEL_HIDDEN, no kernel frame, the kernel's memory not even read, and
 * no kernel address anywhere in the chain: the user's alone.
 */
static void pmuscope_test_chain_kernel_hidden(struct kunit *test)
{
	struct pmuscope_ct_src *s = pmuscope_ct_src(test, false);
	u32 i, len = pmuscope_chain_fill(&s->src, 0, &s->ch.hdr);

	KUNIT_EXPECT_EQ(test, len, 16 + 8 * 4);
	pmuscope_ct_expect_hdr(test, &s->ch.hdr, 0, 4, PMUSCOPE_CHAIN_F_KERNEL_HIDDEN);
	KUNIT_EXPECT_EQ(test, s->ch.ips[0], U(0x1000));
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_LT(test, s->ch.ips[i], 1ULL << 55);
	KUNIT_EXPECT_EQ(test, s->kmap.reads, 0);
	/* A kernel thread: nothing at all. */
	s->src.uregs = NULL;
	len = pmuscope_chain_fill(&s->src, 0, &s->ch.hdr);
	KUNIT_EXPECT_EQ(test, len, 16);
	pmuscope_ct_expect_hdr(test, &s->ch.hdr, 0, 0, PMUSCOPE_CHAIN_F_KERNEL_HIDDEN);
}

/*
 * Taken at EL0 (regs are the user's): no kernel frame and no flag;
 * AArch32: the PC alone; no regs: an empty chain.
 */
static void pmuscope_test_chain_user_modes(struct kunit *test)
{
	struct pmuscope_ct_src *s = pmuscope_ct_src(test, true);
	u32 len;

	s->src.regs = &s->uregs;
	len = pmuscope_chain_fill(&s->src, 0, &s->ch.hdr);
	KUNIT_EXPECT_EQ(test, len, 16 + 8 * 4);
	pmuscope_ct_expect_hdr(test, &s->ch.hdr, 0, 4, 0);
	KUNIT_EXPECT_EQ(test, s->kmap.reads, 0);

	s->umap.reads = 0;
	pmuscope_ct_regs(&s->uregs, 32, 0x8000, U(0x7f000));
	len = pmuscope_chain_fill(&s->src, 0, &s->ch.hdr);
	KUNIT_EXPECT_EQ(test, len, 16 + 8);
	pmuscope_ct_expect_hdr(test, &s->ch.hdr, 0, 1, 0);
	KUNIT_EXPECT_EQ(test, s->ch.ips[0], 0x8000);
	KUNIT_EXPECT_EQ(test, s->umap.reads, 0);

	s->src.regs = NULL;
	len = pmuscope_chain_fill(&s->src, 0, &s->ch.hdr);
	KUNIT_EXPECT_EQ(test, len, 16);
	pmuscope_ct_expect_hdr(test, &s->ch.hdr, 0, 0, 0);
}

/*
 * max_stack bounds kernel and user frames together: 5 gives the 3
 * kernel frames and 2 of the user's (TRUNCATED); 3 gives the kernel's
 * alone (TRUNCATED: the user PC had no room); 2 cuts the kernel walk.
 */
static void pmuscope_test_chain_max_stack(struct kunit *test)
{
	struct pmuscope_ct_src *s = pmuscope_ct_src(test, true);
	u32 len;

	len = pmuscope_chain_fill(&s->src, 5, &s->ch.hdr);
	KUNIT_EXPECT_EQ(test, len, 16 + 8 * 5);
	pmuscope_ct_expect_hdr(test, &s->ch.hdr, 3, 2, PMUSCOPE_CHAIN_F_TRUNCATED);
	KUNIT_EXPECT_EQ(test, s->ch.ips[4], U(0x1100));
	KUNIT_EXPECT_EQ(test, s->ch.ips[5], 0xa5a5a5a5a5a5a5a5ULL);

	len = pmuscope_chain_fill(&s->src, 3, &s->ch.hdr);
	KUNIT_EXPECT_EQ(test, len, 16 + 8 * 3);
	pmuscope_ct_expect_hdr(test, &s->ch.hdr, 3, 0, PMUSCOPE_CHAIN_F_TRUNCATED);

	len = pmuscope_chain_fill(&s->src, 2, &s->ch.hdr);
	KUNIT_EXPECT_EQ(test, len, 16 + 8 * 2);
	pmuscope_ct_expect_hdr(test, &s->ch.hdr, 2, 0, PMUSCOPE_CHAIN_F_TRUNCATED);
	KUNIT_EXPECT_EQ(test, s->ch.ips[1], K(0x100));
}

/* A user stack of 200 frames: PMUSCOPE_STACK_DEFAULT (127) at most. */
static void pmuscope_test_chain_default_depth(struct kunit *test)
{
	struct pmuscope_ct_src *s = pmuscope_ct_src(test, true);
	struct pmuscope_ct_frame *deep = kunit_kcalloc(test, 201, sizeof(*deep), GFP_KERNEL);
	u32 i, len;

	KUNIT_ASSERT_NOT_NULL(test, deep);
	for (i = 0; i < 200; i++)
		deep[i] = (struct pmuscope_ct_frame){
			U(0x10000 + 16 * i), i < 199 ? U(0x10000 + 16 * (i + 1)) : 0, U(4 * i + 4),
		};
	s->umap.frames = deep;
	s->src.regs = &s->uregs;
	pmuscope_ct_regs(&s->uregs, 0, U(0x1000), U(0x10000));
	len = pmuscope_chain_fill(&s->src, 0, &s->ch.hdr);
	KUNIT_EXPECT_EQ(test, len, 16 + 8 * PMUSCOPE_STACK_DEFAULT);
	pmuscope_ct_expect_hdr(test, &s->ch.hdr, 0, PMUSCOPE_STACK_DEFAULT,
			       PMUSCOPE_CHAIN_F_TRUNCATED);
	KUNIT_EXPECT_EQ(test, s->ch.ips[126], U(4 * 126));
	/* One read beyond the last frame kept, no more. */
	KUNIT_EXPECT_EQ(test, s->umap.reads, 127);
}

/*
 * The driver's kernel reader: frame records on this test's own stack
 * (copy_from_kernel_nofault()), and only within the bounds it is given
 * (the stack the walk started on): a record outside, or straddling the
 * end, is unreadable and ends the walk.
 */
static void pmuscope_test_chain_kernel_reader(struct kunit *test)
{
	u64 stack[8] = { };
	unsigned long base = (unsigned long)stack;
	struct pmuscope_chain_mem mem = {
		.read = pmuscope_chain_read_kernel, .low = base, .high = base + sizeof(stack),
	};
	u32 flags = 0;
	u64 ips[8];

	stack[0] = base + 16;
	stack[1] = K(0x100);
	stack[2] = base + 32;
	stack[3] = K(0x200);
	stack[4] = base + 56;	/* straddles the end */
	stack[5] = K(0x300);
	stack[6] = 0;
	stack[7] = K(0x400);
	KUNIT_EXPECT_EQ(test, pmuscope_chain_walk(&mem, base, ips, 8, &flags), 3);
	KUNIT_EXPECT_EQ(test, ips[0], K(0x100));
	KUNIT_EXPECT_EQ(test, ips[2], K(0x300));
	KUNIT_EXPECT_EQ(test, flags, 0);
	/* In bounds: the last record too. */
	stack[4] = base + 48;
	KUNIT_EXPECT_EQ(test, pmuscope_chain_walk(&mem, base, ips, 8, &flags), 4);
	KUNIT_EXPECT_EQ(test, ips[3], K(0x400));
	/* A record beyond the bounds is not read, even though mapped. */
	mem.high = base + 32;
	KUNIT_EXPECT_EQ(test, pmuscope_chain_walk(&mem, base, ips, 8, &flags), 2);
	/* No bounds (no stack found): nothing is read. */
	mem.low = 0;
	mem.high = 0;
	KUNIT_EXPECT_EQ(test, pmuscope_chain_walk(&mem, base, ips, 8, &flags), 0);
	KUNIT_EXPECT_EQ(test, flags, 0);
}

/*
 * pmuscope_stream_put_sample() of a stream with CALLCHAIN: the chain
 * after the counts, PMUSCOPE_REC_F_CHAIN, the size grown to cover it;
 * a sample taken in the kernel by this (kernel) thread gets the kernel
 * frames of its own stack with kernel_pcs, KERNEL_HIDDEN and no address
 * without; a stream without CALLCHAIN, records as before. A kernel frame
 * pointer off the thread's stack (into the heap, frame records there
 * or not) gives the PC alone: the walk reads no memory but a stack.
 */
static void pmuscope_test_chain_put_sample(struct kunit *test)
{
	struct pmuscope_session *sess = kunit_kzalloc(test, sizeof(*sess), GFP_KERNEL);
	u64 *buf = kunit_kzalloc(test, PMUSCOPE_REC_MAX_WORDS * 8, GFP_KERNEL);
	struct pmuscope_record *rec = (void *)buf, *got;
	const struct pmuscope_rec_chain *ch;
	const u64 *ips;
	struct pt_regs regs;
	u64 stack[4], *heap = kunit_kzalloc(test, 4 * sizeof(u64), GFP_KERNEL);
	int pass;

	KUNIT_ASSERT_NOT_NULL(test, sess);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	sess->ring = pmuscope_ring_alloc(4);
	KUNIT_ASSERT_NOT_NULL(test, sess->ring);
	/* Frame records on this thread's stack, where the kernel walk reads. */
	stack[0] = (unsigned long)&stack[2];
	stack[1] = K(0x100);
	stack[2] = 0;
	stack[3] = K(0x200);
	KUNIT_ASSERT_NOT_NULL(test, heap);
	heap[0] = (unsigned long)&heap[2];
	heap[1] = K(0x100);
	heap[3] = K(0x200);
	for (pass = 0; pass < 4; pass++) {
		pmuscope_ct_regs(&regs, 1, K(0x50),
				 (unsigned long)(pass == 3 ? heap : stack));
		memset(buf, 0, PMUSCOPE_REC_MAX_WORDS * 8);
		rec->type = PMUSCOPE_REC_SAMPLE;
		rec->nr = 2;
		rec->size = sizeof(*rec) + 16;
		buf[6] = 111;
		buf[7] = 222;
		sess->kernel_pcs = pass == 1 || pass == 3;
		sess->stream_flags = pass != 2 ? PMUSCOPE_STREAM_F_CALLCHAIN : 0;
		sess->max_stack = PMUSCOPE_STACK_DEFAULT;
		sess->ring->head = 0;
		sess->ring->tail = 0;
		pmuscope_stream_put_sample(sess, rec, &regs);
		got = (void *)sess->ring->buf;
		ch = (const void *)((const u64 *)(got + 1) + 2);
		ips = (const u64 *)(ch + 1);
		KUNIT_EXPECT_EQ(test, ((const u64 *)(got + 1))[0], 111);
		KUNIT_EXPECT_EQ(test, ((const u64 *)(got + 1))[1], 222);
		KUNIT_EXPECT_EQ(test, sess->ring->head, got->size);
		switch (pass) {
		case 0:
			KUNIT_EXPECT_EQ(test, got->size, 48 + 16 + 16);
			KUNIT_EXPECT_EQ(test, got->flags, PMUSCOPE_REC_F_CHAIN);
			KUNIT_EXPECT_EQ(test, got->pc, 0);
			pmuscope_ct_expect_hdr(test, ch, 0, 0, PMUSCOPE_CHAIN_F_KERNEL_HIDDEN);
			break;
		case 1:
			KUNIT_EXPECT_EQ(test, got->size, 48 + 16 + 16 + 3 * 8);
			KUNIT_EXPECT_EQ(test, got->flags, PMUSCOPE_REC_F_CHAIN);
			KUNIT_EXPECT_EQ(test, got->pc, K(0x50));
			pmuscope_ct_expect_hdr(test, ch, 3, 0, 0);
			KUNIT_EXPECT_EQ(test, ips[0], K(0x50));
			KUNIT_EXPECT_EQ(test, ips[1], K(0x100));
			KUNIT_EXPECT_EQ(test, ips[2], K(0x200));
			break;
		case 2:
			KUNIT_EXPECT_EQ(test, got->size, 48 + 16);
			KUNIT_EXPECT_EQ(test, got->flags, 0);
			break;
		default:
			KUNIT_EXPECT_EQ(test, got->size, 48 + 16 + 16 + 8);
			pmuscope_ct_expect_hdr(test, ch, 1, 0, 0);
			KUNIT_EXPECT_EQ(test, ips[0], K(0x50));
		}
	}
	pmuscope_ring_free(sess->ring);
}

static struct kunit_case pmuscope_callchain_test_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_chain_walk, pmuscope_ct_gen_params),
	KUNIT_CASE(pmuscope_test_chain_pac),
	KUNIT_CASE(pmuscope_test_chain_kernel_user),
	KUNIT_CASE(pmuscope_test_chain_kernel_hidden),
	KUNIT_CASE(pmuscope_test_chain_user_modes),
	KUNIT_CASE(pmuscope_test_chain_max_stack),
	KUNIT_CASE(pmuscope_test_chain_default_depth),
	KUNIT_CASE(pmuscope_test_chain_kernel_reader),
	KUNIT_CASE(pmuscope_test_chain_put_sample),
	{}
};

static struct kunit_suite pmuscope_callchain_suite = {
	.name = "pmuscope_callchain",
	.test_cases = pmuscope_callchain_test_cases,
};

kunit_test_suites(&pmuscope_callchain_suite);
