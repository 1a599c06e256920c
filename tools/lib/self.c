// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: EL0 self-monitoring: a thread reads its own counters with MRS,
 * in an rseq critical section, and falls back on the READ ioctl.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* ------------------------------------------------- EL0 self-monitoring */

/*
 * The EL0 fast path: little-endian arm64 (the reader loads 32-bit fields
 * in pairs) with glibc 2.35 or later, which registers each thread's
 * struct rseq and exports where it is (__rseq_offset from the thread
 * pointer; __rseq_size is 0 when it could not). Elsewhere
 * pmuscope_read_self() is the READ ioctl.
 */
#if defined(__aarch64__) && !defined(__AARCH64EB__) && defined(__GLIBC__) && \
	defined(__has_include)
# if __has_include(<sys/rseq.h>)
#  include <sys/rseq.h>
#  if __GLIBC_PREREQ(2, 35) && defined(RSEQ_SIG)
#   define PMUSCOPE_EL0_FAST	1
#  endif
# endif
#endif

#define PMUSCOPE_EL0_TRIES	64	/* critical sections tried, then the ioctl */

#ifdef PMUSCOPE_EL0_FAST
/*
 * The readers, in assembly. An rseq critical section is one range of
 * instructions [start, post_commit) that the compiler must not split,
 * move or duplicate, with its abort handler outside it, just after the
 * signature glibc registered (RSEQ_SIG; aarch64: 0xd428bc00). The kernel
 * sends a thread preempted, migrated or signalled inside the range to the
 * abort handler on its way back to user space, and so does the driver
 * when it writes the page on the thread's CPU while the thread runs
 * (page version 2): nothing in the range runs on another CPU than the
 * one the plan names, nor after the page changed under it.
 *
 * pmuscope_read_self(h, counts, nr) (x0 = h, whose struct pmuscope_el0
 * comes first, x1 = counts, w2 = nr): -EINVAL for a NULL @h or @counts;
 * then, if the caller is the counted thread and the plan is of @nr
 * counters, it stores the section's descriptor in rseq->rseq_cs and in
 * the section checks page->gen == plan_gen: the page has not changed
 * since the plan was made, so the thread has not left the CPU that
 * granted it then (every switch writes the page), and the plan's
 * counters and folds are true. It branches to the plan's reader, which
 * reads the counters with MRS, folds them into counts[] and reaches
 * post_commit: el0->fast + 1, returns 0. Anything else tail-calls
 * pmuscope__el0_read_slow(h, counts, nr, why): why 1, the page changed
 * before the section; 2, aborted; 4, no plan of @nr counters or another
 * thread.
 *
 * The plan's readers, all inside the range:
 *  - straight-line: pairs of counters, each two MRS, two folds from
 *    el0->fold[] and one STP to counts[], from the plan's last counter
 *    down to counter 0; one sequence for each layout (event counters
 *    only, or PMCCNTR_EL0 first), width of the event counters (32 or
 *    64 bits) and parity of the number of counters, entered at the pair
 *    of the plan's last counter;
 *  - the table: an entry per hardware counter (32-bit, then 64-bit
 *    folds), each its MRS, its fold, its store, the next slot's loads
 *    and a branch to the next slot's entry; the slot after the last
 *    branches to post_commit.
 *
 * Registers: x0-x2 are kept for the slow path; x4 el0->fast, x5
 * plan_gen, x6 rseq, x7 page, x15 the entry, x16/x17 the counters, x10-x13 their folds, x14
 * (table) the next slot, x3 (table) counts[i], x9 scratch: all
 * caller-saved.
 *
 * pmuscope__el0_swinc(rseq, page, hwmask, &count, cpu, seq): checks
 * rseq->cpu_id == @cpu and page->seq == @seq, then writes PMSWINC_EL0,
 * the section's last instruction (its commit), in a section of its own
 * for each of *count increments; *count is left at the increments not
 * made. Returns 0, 1 (not granted here, or the page changed) or 2.
 *
 * Every place a branch register lands starts with a landing pad where
 * the compiler guards indirect branches (BTI).
 */
#ifdef __ARM_FEATURE_BTI_DEFAULT
# define PMUSCOPE_EL0_BTI_C	"hint	34\n\t"		/* bti c */
# define PMUSCOPE_EL0_BTI_J	"hint	36\n\t"		/* bti j */
#else
# define PMUSCOPE_EL0_BTI_C	""
# define PMUSCOPE_EL0_BTI_J	""
#endif
#define PMUSCOPE_EL0_STRIDE	32		/* bytes of a table entry */
#define PMUSCOPE_EL0_TAB64	(32 * PMUSCOPE_EL0_STRIDE)	/* the 64-bit table */

/* Offsets in struct pmuscope (checked below). */
#define PMUSCOPE_EL0_OFF_TP	"0"		/* tp, then rseq */
#define PMUSCOPE_EL0_OFF_PAGE	"16"		/* page, then cs */
#define PMUSCOPE_EL0_OFF_GEN	"32"		/* plan_gen, then entry */
#define PMUSCOPE_EL0_OFF_NR	"48"		/* plan_nr, plan_want, then fast */
#define PMUSCOPE_EL0_OFF_FAST	"56"
#define PMUSCOPE_EL0_OFF_FOLD	"64"		/* the straight-line readers' folds */
#define PMUSCOPE_EL0_OFF_SLOT	"320"
#define PMUSCOPE_EL0_PAGE_GEN	"40"		/* offsetof(struct pmuscope_user_page, gen) */

#define PMUSCOPE_EL0_SUB32		"sub	w16, w16, w13\n\t"

/*
 * Straight-line: counts[ra + d] from PMEVCNTR<ra>, counts[rb + d] from
 * PMEVCNTR<rb> (rb = ra - 1; @d 1 when PMCCNTR is counter 0), each
 * folded with an add, after @sub_a and @sub_b (32-bit event counters:
 * raw - last_raw in 32 bits; 64-bit ones, PMUv3p5 PMCR_EL0.LP: nothing).
 */
#define PMUSCOPE_EL0_PAIR_W(ra, rb, d, sub_a, sub_b)			\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmevcntr" #ra "_el0\n\t"				\
	"mrs	x17, pmevcntr" #rb "_el0\n\t"				\
	"ldp	x12, x13, [x0, #" PMUSCOPE_EL0_OFF_FOLD " + 16 * (" #ra " + " #d ")]\n\t" \
	"ldp	x10, x11, [x0, #" PMUSCOPE_EL0_OFF_FOLD " + 16 * (" #rb " + " #d ")]\n\t" \
	sub_a								\
	sub_b								\
	"add	x16, x16, x12\n\t"					\
	"add	x17, x17, x10\n\t"					\
	"stp	x17, x16, [x1, #8 * (" #rb " + " #d ")]\n\t"
#define PMUSCOPE_EL0_PAIR(ra, rb, d)					\
	PMUSCOPE_EL0_PAIR_W(ra, rb, d, PMUSCOPE_EL0_SUB32, "sub	w17, w17, w11\n\t")
#define PMUSCOPE_EL0_PAIR64(ra, rb, d)	PMUSCOPE_EL0_PAIR_W(ra, rb, d, "", "")
/*
 * Seven pairs of @pair: PMEVCNTR13 and 12 down to 1 and 0, or 14 and 13
 * down to 2 and 1.
 */
#define PMUSCOPE_EL0_PAIRS_TO0(pair, d)					\
	pair(13, 12, d) pair(11, 10, d) pair(9, 8, d) pair(7, 6, d)	\
	pair(5, 4, d) pair(3, 2, d) pair(1, 0, d)
#define PMUSCOPE_EL0_PAIRS_TO1(pair, d)					\
	pair(14, 13, d) pair(12, 11, d) pair(10, 9, d) pair(8, 7, d)	\
	pair(6, 5, d) pair(4, 3, d) pair(2, 1, d)
/*
 * counts[1] from PMEVCNTR0 (@fold: "sub w16, w16, w13" for 32 bits, ""
 * for 64), counts[0] from PMCCNTR (64-bit).
 */
#define PMUSCOPE_EL0_PAIR_CC(fold)					\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmevcntr0_el0\n\t"					\
	"mrs	x17, pmccntr_el0\n\t"					\
	"ldp	x12, x13, [x0, #" PMUSCOPE_EL0_OFF_FOLD " + 16]\n\t"	\
	"ldr	x10, [x0, #" PMUSCOPE_EL0_OFF_FOLD "]\n\t"		\
	fold								\
	"add	x16, x16, x12\n\t"					\
	"add	x17, x17, x10\n\t"					\
	"stp	x17, x16, [x1]\n\t"
#define PMUSCOPE_EL0_ONE_EV0(fold)					\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmevcntr0_el0\n\t"					\
	"ldp	x12, x13, [x0, #" PMUSCOPE_EL0_OFF_FOLD "]\n\t"		\
	fold								\
	"add	x16, x16, x12\n\t"					\
	"str	x16, [x1]\n\t"
#define PMUSCOPE_EL0_ONE_CC						\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmccntr_el0\n\t"					\
	"ldr	x12, [x0, #" PMUSCOPE_EL0_OFF_FOLD "]\n\t"		\
	"add	x16, x16, x12\n\t"					\
	"str	x16, [x1]\n\t"
#define PMUSCOPE_EL0_TO_DONE		"b	pmuscope__el0_done\n\t"

/* The table: the next slot, its entry, its fold; on to it. */
#define PMUSCOPE_EL0_NEXT						\
	"str	x16, [x3], #8\n\t"					\
	"ldp	x15, x13, [x14], #32\n\t"				\
	"ldr	x12, [x14, #-16]\n\t"					\
	"br	x15\n\t"
#define PMUSCOPE_EL0_FOLD32						\
	"sub	w16, w16, w12\n\t"					\
	"add	x16, x16, x13\n\t"
#define PMUSCOPE_EL0_FOLD64						\
	"add	x16, x16, x13\n\t"
#define PMUSCOPE_EL0_EVENT_ENTRIES(fold)				\
	".irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30\n\t" \
	".p2align 5\n\t"						\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmevcntr\\n\\()_el0\n\t"				\
	fold								\
	PMUSCOPE_EL0_NEXT						\
	".endr\n\t"							\
	".p2align 5\n\t"						\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmccntr_el0\n\t"					\
	fold								\
	PMUSCOPE_EL0_NEXT

asm(
	".text\n\t"
	".p2align 6\n\t"
	".globl	pmuscope_read_self\n\t"
	".type	pmuscope_read_self, %function\n\t"
	".globl	pmuscope__el0_read\n\t"
	".hidden pmuscope__el0_read\n\t"
	".type	pmuscope__el0_read, %function\n"
"pmuscope_read_self:\n"
"pmuscope__el0_read:\n\t"
	".cfi_startproc\n\t"
	PMUSCOPE_EL0_BTI_C
	"cbz	x0, .Lpmuscope_rd_einval\n\t"
	"cbz	x1, .Lpmuscope_rd_einval\n\t"
	"mrs	x10, tpidr_el0\n\t"
	"ldp	x11, x6, [x0, #" PMUSCOPE_EL0_OFF_TP "]\n\t"
	"ldp	x7, x9, [x0, #" PMUSCOPE_EL0_OFF_PAGE "]\n\t"
	"ldp	x5, x15, [x0, #" PMUSCOPE_EL0_OFF_GEN "]\n\t"
	"ldp	x12, x4, [x0, #" PMUSCOPE_EL0_OFF_NR "]\n\t"	/* plan_nr (w12), fast */
	"cmp	x10, x11\n\t"
	"ccmp	w12, w2, #0, eq\n\t"
	"b.ne	.Lpmuscope_rd_unplanned\n\t"
	"str	x9, [x6, #8]\n"			/* rseq->rseq_cs */
".Lpmuscope_rd_start:\n\t"
	"ldr	x9, [x7, #" PMUSCOPE_EL0_PAGE_GEN "]\n\t"
	"cmp	x9, x5\n\t"
	"b.ne	.Lpmuscope_rd_stale\n\t"
	"br	x15\n"
	/* The entry while there is no plan (or none reads at EL0): the slow path. */
	".globl	pmuscope__el0_noplan\n\t"
	".hidden pmuscope__el0_noplan\n"
"pmuscope__el0_noplan:\n\t"
	PMUSCOPE_EL0_BTI_J
	"b	.Lpmuscope_rd_stale\n\t"

	/* 32-bit event counters only, an even number: pairs (15, 14) .. (1, 0). */
	".p2align 3\n\t"
	".globl	pmuscope__el0_ev_even\n\t"
	".hidden pmuscope__el0_ev_even\n"
"pmuscope__el0_ev_even:\n\t"
	PMUSCOPE_EL0_PAIR(15, 14, 0) PMUSCOPE_EL0_PAIRS_TO0(PMUSCOPE_EL0_PAIR, 0)
	PMUSCOPE_EL0_TO_DONE
	/* ... an odd number: pairs (14, 13) .. (2, 1), then 0. */
	".globl	pmuscope__el0_ev_odd\n\t"
	".hidden pmuscope__el0_ev_odd\n"
"pmuscope__el0_ev_odd:\n\t"
	PMUSCOPE_EL0_PAIRS_TO1(PMUSCOPE_EL0_PAIR, 0)
	".globl	pmuscope__el0_ev_odd_last\n\t"
	".hidden pmuscope__el0_ev_odd_last\n"
"pmuscope__el0_ev_odd_last:\n\t"
	PMUSCOPE_EL0_ONE_EV0(PMUSCOPE_EL0_SUB32)
	PMUSCOPE_EL0_TO_DONE
	/* PMCCNTR first, an even number: counter i is PMEVCNTR<i - 1>. */
	".globl	pmuscope__el0_cc_even\n\t"
	".hidden pmuscope__el0_cc_even\n"
"pmuscope__el0_cc_even:\n\t"
	PMUSCOPE_EL0_PAIRS_TO1(PMUSCOPE_EL0_PAIR, 1)
	".globl	pmuscope__el0_cc_even_last\n\t"
	".hidden pmuscope__el0_cc_even_last\n"
"pmuscope__el0_cc_even_last:\n\t"
	PMUSCOPE_EL0_PAIR_CC(PMUSCOPE_EL0_SUB32)
	PMUSCOPE_EL0_TO_DONE
	/* 64-bit event counters only, an even number: pairs (15, 14) .. (1, 0). */
	".p2align 3\n\t"
	".globl	pmuscope__el0_ev64_even\n\t"
	".hidden pmuscope__el0_ev64_even\n"
"pmuscope__el0_ev64_even:\n\t"
	PMUSCOPE_EL0_PAIR64(15, 14, 0) PMUSCOPE_EL0_PAIRS_TO0(PMUSCOPE_EL0_PAIR64, 0)
	PMUSCOPE_EL0_TO_DONE
	/* ... an odd number: pairs (14, 13) .. (2, 1), then 0. */
	".globl	pmuscope__el0_ev64_odd\n\t"
	".hidden pmuscope__el0_ev64_odd\n"
"pmuscope__el0_ev64_odd:\n\t"
	PMUSCOPE_EL0_PAIRS_TO1(PMUSCOPE_EL0_PAIR64, 0)
	".globl	pmuscope__el0_ev64_odd_last\n\t"
	".hidden pmuscope__el0_ev64_odd_last\n"
"pmuscope__el0_ev64_odd_last:\n\t"
	PMUSCOPE_EL0_ONE_EV0("")
	PMUSCOPE_EL0_TO_DONE
	/* PMCCNTR first, an even number: counter i is PMEVCNTR<i - 1>. */
	".globl	pmuscope__el0_cc64_even\n\t"
	".hidden pmuscope__el0_cc64_even\n"
"pmuscope__el0_cc64_even:\n\t"
	PMUSCOPE_EL0_PAIRS_TO1(PMUSCOPE_EL0_PAIR64, 1)
	".globl	pmuscope__el0_cc64_even_last\n\t"
	".hidden pmuscope__el0_cc64_even_last\n"
"pmuscope__el0_cc64_even_last:\n\t"
	PMUSCOPE_EL0_PAIR_CC("")
	PMUSCOPE_EL0_TO_DONE
	/* PMCCNTR first, an odd number, 64-bit event counters. */
	".globl	pmuscope__el0_cc64_odd\n\t"
	".hidden pmuscope__el0_cc64_odd\n"
"pmuscope__el0_cc64_odd:\n\t"
	PMUSCOPE_EL0_PAIRS_TO0(PMUSCOPE_EL0_PAIR64, 1)
	PMUSCOPE_EL0_ONE_CC
	PMUSCOPE_EL0_TO_DONE

	/* The table reader. */
	".p2align 3\n"
	".globl	pmuscope__el0_table\n\t"
	".hidden pmuscope__el0_table\n"
"pmuscope__el0_table:\n\t"
	PMUSCOPE_EL0_BTI_J
	"add	x14, x0, #" PMUSCOPE_EL0_OFF_SLOT "\n\t"
	"mov	x3, x1\n\t"
	"ldp	x15, x13, [x14], #32\n\t"
	"ldr	x12, [x14, #-16]\n\t"
	"br	x15\n\t"
	".p2align 5\n\t"
	".globl	pmuscope__el0_tab\n\t"
	".hidden pmuscope__el0_tab\n"
"pmuscope__el0_tab:\n\t"
	PMUSCOPE_EL0_EVENT_ENTRIES(PMUSCOPE_EL0_FOLD32)
	PMUSCOPE_EL0_EVENT_ENTRIES(PMUSCOPE_EL0_FOLD64)
	/*
	 * Last, PMCCNTR first and an odd number, which falls through to
	 * post_commit: the whole PMU of a Cortex-A53 (the AM62L's), the
	 * cycle counter and 6 event counters, is one of these.
	 */
	".p2align 3\n"
	/* PMCCNTR first, an odd number: pairs (14, 13) .. (2, 1), then PMCCNTR. */
	".globl	pmuscope__el0_cc_odd\n\t"
	".hidden pmuscope__el0_cc_odd\n"
"pmuscope__el0_cc_odd:\n\t"
	PMUSCOPE_EL0_PAIRS_TO0(PMUSCOPE_EL0_PAIR, 1)
	".globl	pmuscope__el0_cc_odd_last\n\t"
	".hidden pmuscope__el0_cc_odd_last\n"
"pmuscope__el0_cc_odd_last:\n\t"
	PMUSCOPE_EL0_ONE_CC
	".globl	pmuscope__el0_done\n\t"
	".hidden pmuscope__el0_done\n"
"pmuscope__el0_done:\n\t"			/* post_commit */
	PMUSCOPE_EL0_BTI_J
	"add	x4, x4, #1\n\t"
	"str	x4, [x0, #" PMUSCOPE_EL0_OFF_FAST "]\n\t"
	"mov	w0, #0\n\t"
	"ret\n\t"
	".inst	0xd428bc00\n"			/* RSEQ_SIG */
".Lpmuscope_rd_abort:\n\t"
	"mov	w3, #2\n\t"
	"b	pmuscope__el0_read_slow\n"
".Lpmuscope_rd_stale:\n\t"
	"mov	w3, #1\n\t"
	"b	pmuscope__el0_read_slow\n"
".Lpmuscope_rd_unplanned:\n\t"
	"mov	w3, #4\n\t"
	"b	pmuscope__el0_read_slow\n"
".Lpmuscope_rd_einval:\n\t"
	"mov	w0, #-22\n\t"			/* -EINVAL */
	"ret\n\t"
	".cfi_endproc\n\t"
	".size	pmuscope_read_self, . - pmuscope_read_self\n\t"
	".size	pmuscope__el0_read, . - pmuscope__el0_read\n\t"

	".p2align 4\n\t"
	".globl	pmuscope__el0_swinc\n\t"
	".hidden pmuscope__el0_swinc\n\t"
	".type	pmuscope__el0_swinc, %function\n"
"pmuscope__el0_swinc:\n\t"
	".cfi_startproc\n\t"
	PMUSCOPE_EL0_BTI_C
	"adrp	x9, pmuscope__el0_swinc_cs_desc\n\t"
	"add	x9, x9, :lo12:pmuscope__el0_swinc_cs_desc\n\t"
	"ldr	w6, [x3]\n\t"
	"cbz	w6, .Lpmuscope_sw_out\n"
".Lpmuscope_sw_loop:\n\t"
	"str	x9, [x0, #8]\n"			/* rseq->rseq_cs */
".Lpmuscope_sw_start:\n\t"
	"ldr	w10, [x0, #4]\n\t"
	"cmp	w10, w4\n\t"
	"b.ne	.Lpmuscope_sw_stale\n\t"
	"ldr	w10, [x1, #8]\n\t"
	"cmp	w10, w5\n\t"
	"b.ne	.Lpmuscope_sw_stale\n\t"
	"msr	pmswinc_el0, x2\n"		/* the commit */
".Lpmuscope_sw_commit:\n\t"
	"subs	w6, w6, #1\n\t"
	"b.ne	.Lpmuscope_sw_loop\n"
".Lpmuscope_sw_out:\n\t"
	"str	w6, [x3]\n\t"
	"mov	w0, #0\n\t"
	"ret\n\t"
	".inst	0xd428bc00\n"			/* RSEQ_SIG */
".Lpmuscope_sw_abort:\n\t"
	"str	w6, [x3]\n\t"
	"mov	w0, #2\n\t"
	"ret\n"
".Lpmuscope_sw_stale:\n\t"
	"str	w6, [x3]\n\t"
	"mov	w0, #1\n\t"
	"ret\n\t"
	".cfi_endproc\n\t"
	".size	pmuscope__el0_swinc, . - pmuscope__el0_swinc\n\t"

	/* struct rseq_cs: version, flags, start_ip, post_commit_offset, abort_ip */
	".pushsection __rseq_cs, \"aw\"\n\t"
	".balign 32\n\t"
	".globl	pmuscope__el0_read_cs_desc\n\t"
	".hidden pmuscope__el0_read_cs_desc\n"
"pmuscope__el0_read_cs_desc:\n\t"
	".long	0, 0\n\t"
	".quad	.Lpmuscope_rd_start, pmuscope__el0_done - .Lpmuscope_rd_start, .Lpmuscope_rd_abort\n\t"
	".balign 32\n"
"pmuscope__el0_swinc_cs_desc:\n\t"
	".long	0, 0\n\t"
	".quad	.Lpmuscope_sw_start, .Lpmuscope_sw_commit - .Lpmuscope_sw_start, .Lpmuscope_sw_abort\n\t"
	".popsection\n\t"
	".text\n");

#define PMUSCOPE_EL0_HIDDEN	__attribute__((visibility("hidden")))
PMUSCOPE_EL0_HIDDEN int pmuscope__el0_read(struct pmuscope *h, uint64_t *counts, unsigned int nr);
PMUSCOPE_EL0_HIDDEN int pmuscope__el0_read_slow(struct pmuscope *h, uint64_t *counts,
						unsigned int nr, int why);
PMUSCOPE_EL0_HIDDEN int pmuscope__el0_swinc(void *rseq, const struct pmuscope_user_page *pg,
					    uint64_t hwmask, unsigned int *count,
					    uint32_t cpu, uint32_t seq);
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_tab[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_done[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_table[], pmuscope__el0_noplan[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_ev_even[], pmuscope__el0_ev_odd[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_ev_odd_last[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_cc_even[], pmuscope__el0_cc_odd[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_ev64_even[], pmuscope__el0_ev64_odd[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_ev64_odd_last[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_cc64_even[], pmuscope__el0_cc64_odd[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_read_cs_desc[];

/* The offsets the assembly uses. */
_Static_assert(offsetof(struct rseq, cpu_id) == 4, "rseq cpu_id");
_Static_assert(offsetof(struct rseq, rseq_cs) == 8, "rseq rseq_cs");
_Static_assert(offsetof(struct pmuscope_user_page, seq) == 8, "page seq");
_Static_assert(offsetof(struct pmuscope_user_page, gen) == 40, "page gen");
_Static_assert(offsetof(struct pmuscope, el0) == 0, "el0 first");
_Static_assert(offsetof(struct pmuscope_el0, tp) == 0, "el0 tp");
_Static_assert(offsetof(struct pmuscope_el0, rseq) == 8, "el0 rseq");
_Static_assert(offsetof(struct pmuscope_el0, page) == 16, "el0 page");
_Static_assert(offsetof(struct pmuscope_el0, cs) == 24, "el0 cs");
_Static_assert(offsetof(struct pmuscope_el0, plan_gen) == 32, "el0 plan_gen");
_Static_assert(offsetof(struct pmuscope_el0, entry) == 40, "el0 entry");
_Static_assert(offsetof(struct pmuscope_el0, plan_nr) == 48, "el0 plan_nr");
_Static_assert(offsetof(struct pmuscope_el0, plan_want) == 52, "el0 plan_want");
_Static_assert(offsetof(struct pmuscope_el0, fast) == 56, "el0 fast");
_Static_assert(offsetof(struct pmuscope_el0, fold) == 64, "el0 fold");
_Static_assert(offsetof(struct pmuscope_el0, slot) == 320, "el0 slot");
_Static_assert(sizeof(struct pmuscope_el0_slot) == 32, "el0 slot size");
_Static_assert(PMUSCOPE_EL0_STRAIGHT == 16, "the straight-line readers read 16");
#endif /* PMUSCOPE_EL0_FAST */

/* No plan: the reader goes to the slow path whatever it is asked. */
void pmuscope_el0_unplan(struct pmuscope_el0 *e)
{
	e->plan_nr = PMUSCOPE_EL0_NO_PLAN;
#ifdef PMUSCOPE_EL0_FAST
	e->entry = (uintptr_t)pmuscope__el0_noplan;
#endif
	e->layout = PMUSCOPE_SELF_IOCTL;
}

/* The EL0 sessions of this process, whose pages a fork() child lacks. */
static pthread_mutex_t pmuscope_self_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t pmuscope_self_once = PTHREAD_ONCE_INIT;
static struct pmuscope *pmuscope_self_list;

static void pmuscope_self_prepare(void)
{
	pthread_mutex_lock(&pmuscope_self_lock);
}

static void pmuscope_self_parent(void)
{
	pthread_mutex_unlock(&pmuscope_self_lock);
}

/* No fast path and no page from here on. */
static void pmuscope_self_forget(struct pmuscope *h)
{
	pmuscope_el0_unplan(&h->el0);
	h->el0.tp = NULL;
	h->el0.rseq = NULL;
	h->el0.page = NULL;
	h->st.capable = 0;
}

/* The child has none of the pages (not copied on fork), and is another thread. */
static void pmuscope_self_child(void)
{
	for (struct pmuscope *h = pmuscope_self_list; h; h = h->self_next)
		pmuscope_self_forget(h);
	pmuscope_self_list = NULL;
	pthread_mutex_unlock(&pmuscope_self_lock);
}

static void pmuscope_self_atfork(void)
{
	pthread_atfork(pmuscope_self_prepare, pmuscope_self_parent, pmuscope_self_child);
}

void pmuscope_self_unmap(struct pmuscope *h)
{
	const struct pmuscope_user_page *pg = h->el0.page;

	if (!pg)
		return;
	pthread_mutex_lock(&pmuscope_self_lock);
	for (struct pmuscope **p = &pmuscope_self_list; *p; p = &(*p)->self_next)
		if (*p == h) {
			*p = h->self_next;
			break;
		}
	pthread_mutex_unlock(&pmuscope_self_lock);
	pmuscope_self_forget(h);
	munmap((void *)pg, 4096);
}

int pmuscope_configure_self(struct pmuscope *h, const struct pmuscope_event_spec *evs,
			    unsigned int nr, uint32_t flags)
{
	struct pmuscope_event kev[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .target = PMUSCOPE_TARGET_TASK,
		.pid = (int)syscall(SYS_gettid),
		.flags = PMUSCOPE_CFG_USER_READ | (flags & PMUSCOPE_CFG_USER_SWINC),
	};
	const struct pmuscope_user_page *pg;
	void *map;
	int ret;

	ret = pmuscope_config_begin(h, nr);
	if (ret)
		return ret;
	if (!(h->features & PMUSCOPE_FEAT_USER_READ)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "EL0 reads need pmuscope's direct backend (PMUSCOPE_FEAT_USER_READ), and this driver counts through perf (%s/backend): boot with initcall_blacklist=armv8_pmu_driver_init, or count with pmuscope_configure_task()",
			     pmuscope_sysfs_root());
		return -EOPNOTSUPP;
	}
	pmuscope_kernel_events(evs, nr, kev);
	cfg.nr_events = nr;
	cfg.events = (uintptr_t)kev;
	if (ioctl(h->fd, PMUSCOPE_IOC_CONFIG, &cfg)) {
		struct pmuscope_say_args a = {
			.policy = PMUSCOPE_POLICY_TASK | PMUSCOPE_POLICY_EL0 |
				  pmuscope_policy_events(evs, nr),
		};

		ret = -errno;
		if (pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_CONFIG_SELF, ret,
				 h->nr_events ? PMUSCOPE_IF_EVENTS : 0, &a) == PMUSCOPE_SAY_EXPLAIN)
			pmuscope_explain_online(h, ret, evs, nr);
		return ret;
	}
	pmuscope_task_configured(h, evs, nr);
	memset(&h->st, 0, sizeof(h->st));
	h->el0.fast = 0;
	pmuscope_el0_unplan(&h->el0);
	h->self_flags = cfg.flags;

	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, h->fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_SELF_MAP, ret, 0, NULL);
		return ret;
	}
	pg = map;
	if (pg->version < PMUSCOPE_USER_PAGE_VERSION || pg->nr != nr ||
	    pg->size < offsetof(struct pmuscope_user_page, ctr) +
		       nr * sizeof(struct pmuscope_user_counter)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "the EL0 page is version %u, %u bytes, %u counters: libpmuscope %s reads version %u, here of %u counters",
			     pg->version, pg->size, pg->nr, PMUSCOPE_LIB_VERSION,
			     PMUSCOPE_USER_PAGE_VERSION, nr);
		munmap(map, 4096);
		return -EPROTO;
	}
	pthread_once(&pmuscope_self_once, pmuscope_self_atfork);
	pthread_mutex_lock(&pmuscope_self_lock);
	h->el0.page = pg;
	h->self_next = pmuscope_self_list;
	pmuscope_self_list = h;
	pthread_mutex_unlock(&pmuscope_self_lock);
#ifdef PMUSCOPE_EL0_FAST
	/* glibc registered rseq for this thread (0: it could not). */
	if (__rseq_size >= 16) {
		h->el0.tp = __builtin_thread_pointer();
		h->el0.rseq = (char *)h->el0.tp + __rseq_offset;
		h->el0.cs = pmuscope__el0_read_cs_desc;
		h->st.capable = 1;
	}
#endif
	return 0;
}

const struct pmuscope_user_page *pmuscope_user_page(const struct pmuscope *h)
{
	return h ? h->el0.page : NULL;
}

int pmuscope_self_stats(const struct pmuscope *h, struct pmuscope_self_stats *st)
{
	if (!h || !st)
		return -EINVAL;
	*st = h->st;
	st->fast = h->el0.fast;
	st->layout = h->el0.layout;
	return 0;
}

/* The ioctl's answer for pmuscope_read_self(). */
static int pmuscope_read_self_ioctl(struct pmuscope *h, uint64_t *counts, unsigned int nr)
{
	struct pmuscope_count v[PMUSCOPE_MAX_EVENTS];
	uint64_t have = 0;
	unsigned int n;
	int ret;

	if (!nr || nr > h->nr_events) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "read of %u counts: the session counts %u events", nr, h->nr_events);
		return -EINVAL;
	}
	ret = pmuscope_read(h, v, PMUSCOPE_MAX_EVENTS, &n);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < n; i++)
		if (v[i].index < nr) {
			counts[v[i].index] = v[i].count;
			have |= 1ULL << v[i].index;
		}
	if (have != (1ULL << nr) - 1) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "read: the driver returned %u values, not one for each of %u events",
			     n, nr);
		return -EPROTO;
	}
	h->st.fallback++;
	return 1;
}

#ifdef PMUSCOPE_EL0_FAST
/*
 * The straight-line reader of @nr counters of layout @cc (PMCCNTR_EL0
 * first) or not, with event counters of 64 bits (@wide) or 32: its
 * sequence, entered at the pair of the last counter.
 */
static uint64_t pmuscope_el0_straight(unsigned int nr, int cc, int wide)
{
	/*
	 * [wide][cc][nr odd]. Each holds 7 pairs (8 for event counters
	 * only, an even number), then its last entry: counter 0 alone or
	 * with PMEVCNTR0 (PMCCNTR first), which the pair arithmetic reaches.
	 */
	static const char *const seqs[2][2][2] = {
		{ { pmuscope__el0_ev_even, pmuscope__el0_ev_odd },
		  { pmuscope__el0_cc_even, pmuscope__el0_cc_odd } },
		{ { pmuscope__el0_ev64_even, pmuscope__el0_ev64_odd },
		  { pmuscope__el0_cc64_even, pmuscope__el0_cc64_odd } },
	};
	const char *seq = seqs[!!wide][!!cc][nr % 2];
	/* Bytes of a pair: the odd-count sequences hold 7 before their last. */
	uintptr_t pair = wide ?
		((uintptr_t)pmuscope__el0_ev64_odd_last - (uintptr_t)pmuscope__el0_ev64_odd) / 7 :
		((uintptr_t)pmuscope__el0_ev_odd_last - (uintptr_t)pmuscope__el0_ev_odd) / 7;
	unsigned int top = nr % 2 ? 14 : 15;

	return (uintptr_t)seq + (top - (nr - 1)) / 2 * pair;
}

/*
 * Read the page into the plan of @nr counters, under its seq: with gen,
 * and while a CPU grants, each counter's fold and the reader for their
 * layout. Returns whether the plan reads at EL0: not when no CPU grants,
 * a counter is not readable, or the page would not hold still.
 */
static int pmuscope_el0_plan(struct pmuscope *h, unsigned int nr)
{
	struct pmuscope_el0 *e = &h->el0;
	const volatile struct pmuscope_user_page *pg = e->page;
	uint64_t gen = 0;
	int ok = 0, ev = 0, cc = 0, all32 = 1, all64 = 1;

	h->st.replans++;
	pmuscope_el0_unplan(e);
	e->plan_want = nr;
	for (int tries = 0; tries < 16 && !ok; tries++) {
		uint32_t s = __atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE);

		if (s & 1)
			continue;
		gen = pg->gen;
		/*
		 * A CPU grants, and it is the one this thread's rseq says it
		 * runs on (not -1 or -2: rseq not registered for this thread,
		 * whose sections the kernel would not abort).
		 */
		ok = pg->nr >= nr && pg->cpu != PMUSCOPE_CPU_ANY &&
		     pg->cpu == __atomic_load_n(&((struct rseq *)e->rseq)->cpu_id, __ATOMIC_RELAXED);
		/* The layouts of a straight-line reader, until a counter is not in them. */
		ev = cc = nr <= PMUSCOPE_EL0_STRAIGHT;
		all32 = all64 = 1;
		for (unsigned int i = 0; i < nr && ok; i++) {
			uint32_t idx = pg->ctr[i].index, width = pg->ctr[i].width;
			uint64_t off = pg->ctr[i].offset, last = pg->ctr[i].last_raw;
			struct pmuscope_el0_slot *sl = &e->slot[i];

			if (!idx || idx > PMUSCOPE_USER_CYCLE_INDEX || (width != 32 && width != 64)) {
				ok = 0;
				break;
			}
			ev &= idx == i + 1;
			cc &= i ? idx == i : idx == PMUSCOPE_USER_CYCLE_INDEX;
			/* The event counters' widths (PMCCNTR_EL0 is 64-bit). */
			if (idx != PMUSCOPE_USER_CYCLE_INDEX) {
				all32 &= width == 32;
				all64 &= width == 64;
			}
			sl->target = (uintptr_t)pmuscope__el0_tab + (idx - 1) * PMUSCOPE_EL0_STRIDE;
			if (width == 64) {
				sl->target += PMUSCOPE_EL0_TAB64;
				sl->a = off - last;
				sl->b = 0;
			} else {
				sl->a = off;
				sl->b = last;
			}
			if (i < PMUSCOPE_EL0_STRAIGHT)
				e->fold[i] = (struct pmuscope_el0_fold){ .a = sl->a, .b = sl->b };
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* dmb ishld */
		if (__atomic_load_n(&pg->seq, __ATOMIC_RELAXED) != s)
			ok = 0;
		else if (!ok)
			break;				/* not granted, as of @gen */
	}
	e->plan_gen = gen;
	if (!ok)
		return 0;
	e->slot[nr] = (struct pmuscope_el0_slot){ .target = (uintptr_t)pmuscope__el0_done };
	if ((ev || cc) && (all32 || all64)) {
		e->entry = pmuscope_el0_straight(nr, cc, !all32);
		e->layout = PMUSCOPE_SELF_STRAIGHT;
	} else {
		e->entry = (uintptr_t)pmuscope__el0_table;
		e->layout = PMUSCOPE_SELF_TABLE;
	}
	e->plan_nr = nr;
	return 1;
}

/*
 * What pmuscope_read_self() could not do at once (@why, see above): plan
 * again and read again, a bounded number of times (@depth counts the
 * retries under way); the ioctl when the page says no CPU grants.
 */
int pmuscope__el0_read_slow(struct pmuscope *h, uint64_t *counts, unsigned int nr, int why)
{
	struct pmuscope_el0 *e = &h->el0;
	int ret;

	if (!e->rseq || __builtin_thread_pointer() != e->tp || !nr || nr > h->nr_events ||
	    e->depth >= PMUSCOPE_EL0_TRIES)
		return pmuscope_read_self_ioctl(h, counts, nr);
	if (why == 2) {
		h->st.aborts++;		/* the plan may hold: again */
	} else if (nr == e->plan_want && e->plan_nr == PMUSCOPE_EL0_NO_PLAN &&
		   __atomic_load_n(&e->page->gen, __ATOMIC_ACQUIRE) == e->plan_gen) {
		/* Not granted, and nothing has changed since. */
		return pmuscope_read_self_ioctl(h, counts, nr);
	} else if (!pmuscope_el0_plan(h, nr)) {
		return pmuscope_read_self_ioctl(h, counts, nr);
	}
	e->depth++;
	ret = pmuscope__el0_read(h, counts, nr);
	e->depth--;
	return ret;
}
#else
int pmuscope_read_self(struct pmuscope *h, uint64_t *counts, unsigned int nr)
{
	if (!h || !counts)
		return -EINVAL;
	return pmuscope_read_self_ioctl(h, counts, nr);
}
#endif

int pmuscope_swinc_self(struct pmuscope *h, uint64_t event_mask, unsigned int count)
{
	unsigned int left = count;
	int ret;

	if (!h)
		return -EINVAL;
	if (!count || count > 4096 || !event_mask || (event_mask >> h->nr_events)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "software increment refused: 1 to 4096 increments (not %u) of events of the configuration (mask 0x%llx, %u events)",
			     count, (unsigned long long)event_mask, h->nr_events);
		return -EINVAL;
	}
#ifdef PMUSCOPE_EL0_FAST
	if (h->el0.rseq && (h->self_flags & PMUSCOPE_CFG_USER_SWINC) &&
	    __builtin_thread_pointer() == h->el0.tp) {
		const volatile struct pmuscope_user_page *pg = h->el0.page;

		for (int tries = 0; tries < PMUSCOPE_EL0_TRIES; tries++) {
			uint32_t s = __atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE), cpu = pg->cpu;
			uint64_t hw = 0;
			int r;

			if (s & 1)
				continue;
			for (unsigned int i = 0; i < h->nr_events && cpu != PMUSCOPE_CPU_ANY; i++) {
				uint32_t idx = pg->ctr[i].index;

				if (!(event_mask & (1ULL << i)))
					continue;
				/* SW_INCR counting at EL0, on an event counter readable here. */
				if (h->evs[i].number != 0 || (h->evs[i].flags & PMUSCOPE_EV_RAW) ||
				    !(h->evs[i].flags & PMUSCOPE_EV_EL0) || !idx ||
				    idx >= PMUSCOPE_USER_CYCLE_INDEX)
					cpu = PMUSCOPE_CPU_ANY;
				else
					hw |= 1ULL << (idx - 1);
			}
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&pg->seq, __ATOMIC_RELAXED) != s)
				continue;
			if (cpu == PMUSCOPE_CPU_ANY)
				break;
			r = pmuscope__el0_swinc(h->el0.rseq, (const struct pmuscope_user_page *)pg,
						hw, &left, cpu, s);
			if (r == 0) {
				h->st.swinc_fast++;
				return 0;
			}
			if (r == 2)
				h->st.aborts++;
			else if (__atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE) == s)
				break;	/* another CPU than the granting one */
		}
	}
#endif
	ret = pmuscope_swinc(h, event_mask, (unsigned int)sched_getcpu(), left);
	if (ret)
		return ret;
	h->st.swinc_fallback++;
	return 1;
}
