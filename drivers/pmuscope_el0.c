// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: EL0 direct counter reads (PMUSCOPE_CFG_USER_READ).
 *
 * A session of the calling thread may let that thread read its own
 * counters with MRS. PMUSERENR_EL0 is set on a CPU only while the thread
 * runs there, and only then: the session's perf events on pmuscope's PMU
 * (pmuscope_ppmu.c) are added and deleted by the perf core when the thread
 * is switched in and out, which is the per-task switch hook a module has.
 * A pinned "sentinel" event of the session, which holds no counter and
 * whose add() never fails, makes sure a del() comes at every switch-out,
 * whatever happened to the counters meanwhile.
 *
 * Grants change only at a context switch, never under the running thread,
 * so that a thread never traps on a counter it was told it may read: the
 * perf core also deletes and adds events while the thread runs (a new CPU
 * event installed, multiplexing), and those do not revoke. A del() revokes
 * only when the thread is leaving the CPU: another task is current, the
 * thread is exiting, or its context-switch count moved since the grant
 * (__schedule() counts the switch before perf_event_task_sched_out()).
 * perf can also take the events away without a del() that looks like a
 * switch (an exec of a setuid binary detaches them while the thread runs
 * on; a sentinel left in ERROR is never added): so at the end of every
 * batch of perf's changes on a CPU (the PMU's pmu_enable()) a grant whose
 * sentinel is not added there is revoked. Closing the session revokes on
 * every CPU (pmuscope_perf.c).
 *
 * Before PMUv3p9, PMUSERENR_EL0.ER opens every event counter of the CPU:
 * access is granted only when no other owner's counter is allocated there
 * at the switch-in, the counters the session does not use are zeroed
 * first, and while the grant lasts no other owner's counter may go on the
 * CPU (@el0_open: a perf event of someone else gets -EAGAIN and perf
 * multiplexes it; a session's CONFIG on that CPU gets -EBUSY). A switch-in
 * that finds another owner's counter is denied (counted in the page): the
 * thread reads with the READ ioctl until its next switch-in. From PMUv3p9,
 * PMUACR_EL1 opens exactly the session's counters with PMUSERENR_EL0.UEN,
 * ER and CR set and EN clear (no EL0 write of a counter, PMOVSCLR or the
 * filters): nothing is denied and nobody else is kept out, except from a
 * counter the session held earlier in the same run (PMUACR keeps it open
 * until the switch-out).
 *
 * The user page (struct pmuscope_user_page) is written under its sequence
 * count by whoever changes what it is computed from: the engine's folds
 * on the CPU (pmuscope_el0_fold()), the perf callbacks, RESET.
 */

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#ifdef PMUSCOPE_HAVE_LINUX_RSEQ_H
#include <linux/rseq.h>		/* rseq_preempt(); linux/sched.h before */
#endif

#include "pmuscope.h"
#include "pmuscope_hw.h"
#include "pmuscope_regs.h"

/* ------------------------------------------------------------ pure logic */

/*
 * PMUSERENR_EL0 while the thread runs: @per_counter (PMUv3p9, PMUACR_EL1
 * says which counters) UEN | ER | CR; else ER, and CR only when the
 * session holds the cycle counter (@mine: bit 31). SW with @swinc. EN
 * (writes of every PMU register at EL0) never.
 */
u64 pmuscope_el0_userenr(bool per_counter, u32 mine, bool swinc)
{
	u64 v = PMUSCOPE_USERENR_ER;

	if (per_counter)
		v |= PMUSCOPE_USERENR_UEN | PMUSCOPE_USERENR_CR;
	else if (mine & BIT(PMUSCOPE_CYCLE_IDX))
		v |= PMUSCOPE_USERENR_CR;
	if (swinc)
		v |= PMUSCOPE_USERENR_SW;
	return v;
}

/* PMUACR_EL1 opening the counters of @open (bit 31: the cycle counter). */
u64 pmuscope_el0_pmuacr(u32 open)
{
	u64 v = FIELD_PREP(PMUSCOPE_PMUACR_P, open & GENMASK(30, 0));

	if (open & BIT(PMUSCOPE_CYCLE_IDX))
		v |= PMUSCOPE_PMUACR_C;
	return v;
}

/*
 * An rseq critical section can be aborted from an interrupt on this
 * kernel (pmuscope_el0_end()): the rseq code clears a thread's event mask
 * with interrupts off (RSEQ_EVENT_GUARD irq, with CONFIG_MEMBARRIER, in
 * 6.12.y and 6.1.y stable kernels) so a bit set by an interrupt is never
 * lost. Without CONFIG_RSEQ no thread has a critical section (and
 * libpmuscope reads with the ioctl). Elsewhere USER_READ is refused.
 */
bool pmuscope_el0_supported(void)
{
#ifdef CONFIG_RSEQ
#if defined(RSEQ_EVENT_GUARD) && defined(CONFIG_MEMBARRIER)
	return true;
#else
	return false;
#endif
#else
	return true;
#endif
}

/*
 * PMUACR_EL1 exists (PMUv3p9 and later, not an IMPLEMENTATION DEFINED PMU)
 * and an EL1 access to it does not trap. With FEAT_FGT2 an EL2 above the
 * kernel traps it unless HDFGRTR2_EL2/HDFGWTR2_EL2.nPMUACR_EL1 is 1 (their
 * reset value is UNKNOWN); a kernel booted at EL2 sets it in el2_setup.h
 * only from the kernels that know it (6.12 does, 6.1 does not): there, and
 * under another EL2, the driver keeps to PMUSERENR_EL0.ER, which opens all
 * counters and is correct on PMUv3p9 too. The kernel at EL2 (VHE), or no
 * EL2 at all: nothing traps.
 */
bool pmuscope_el0_per_counter(const struct pmuscope_pmu *pmu)
{
	if (pmu->pmuver < PMUSCOPE_PMUVER_V3P9 || pmu->pmuver == PMUSCOPE_PMUVER_IMP_DEF)
		return false;
#ifdef PMUSCOPE_HAVE_FGT2_PMUACR
	return true;
#else
	return pmuscope_hw_el2() != PMUSCOPE_HW_EL2_ABOVE;
#endif
}

/* Every counter of the CPU: what PMUSERENR_EL0.ER opens before PMUv3p9. */
u32 pmuscope_el0_all(const struct pmuscope_pmu *pmu)
{
	return (u32)GENMASK(pmu->nr_counters, 0) >> 1 | BIT(PMUSCOPE_CYCLE_IDX);
}

/* The counters of this CPU that @el0's events hold. pmu->lock held. */
u32 pmuscope_el0_mine(const struct pmuscope_pmu *pmu, const struct pmuscope_el0 *el0)
{
	unsigned long m = pmu->allocated;
	unsigned int idx;
	u32 mine = 0;

	for_each_set_bit(idx, &m, PMUSCOPE_NR_COUNTERS)
		if (pmu->hwc[idx].el0 == el0)
			mine |= BIT(idx);
	return mine;
}

/* ------------------------------------------------------------- the page */

/*
 * A write of the page: @seq odd, and @gen moved, before anything else
 * changes. @lock held (so preemption is off).
 */
static void pmuscope_el0_begin(struct pmuscope_el0 *el0)
{
	WRITE_ONCE(el0->page->seq, el0->page->seq + 1);
	/*
	 * seq odd before gen moves: a copy made under an even seq never
	 * pairs the new gen with the old fields.
	 */
	smp_wmb();
	WRITE_ONCE(el0->page->gen, el0->page->gen + 1);
	smp_wmb();	/* seq odd, gen moved, before the fields change */
}

/*
 * The write is done: @seq even. If the thread runs here (this is its
 * overflow interrupt, an IPI or a perf callback that came while it ran,
 * or its own system call), the rseq critical section it may be in is
 * aborted on its way back to user space, as membarrier's RSEQ command
 * does from its IPI (kernel/sched/membarrier.c, ipi_rseq()): the
 * section's copy of the page is then never used with counters read after
 * the page changed under it (struct pmuscope_user_page, version 2).
 */
static void pmuscope_el0_end(struct pmuscope_el0 *el0)
{
	smp_wmb();	/* the fields before seq even */
	WRITE_ONCE(el0->page->seq, el0->page->seq + 1);
	if (el0->task == current)
		rseq_preempt(current);
}

/* Counter @i's offset in the page from what it is computed from. @lock held. */
static void pmuscope_el0_put(struct pmuscope_el0 *el0, u32 i)
{
	struct pmuscope_user_counter *c = &el0->page->ctr[i];

	WRITE_ONCE(c->offset, el0->evc[i] + el0->fold_val[i] - el0->reset[i]);
	WRITE_ONCE(c->last_raw, el0->fold_hw[i]);
}

struct pmuscope_el0 *pmuscope_el0_alloc(struct task_struct *task, u32 nr, bool swinc)
{
	struct pmuscope_el0 *el0 = kzalloc(sizeof(*el0), GFP_KERNEL_ACCOUNT);

	BUILD_BUG_ON(sizeof(struct pmuscope_user_page) > PAGE_SIZE);
	if (!el0)
		return NULL;
	el0->pg = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!el0->pg) {
		kfree(el0);
		return NULL;
	}
	el0->page = page_address(el0->pg);
	el0->page->version = PMUSCOPE_USER_PAGE_VERSION;
	el0->page->size = sizeof(*el0->page);
	el0->page->nr = nr;
	el0->page->cpu = PMUSCOPE_CPU_ANY;
	el0->task = task;
	el0->nr = nr;
	el0->swinc = swinc;
	raw_spin_lock_init(&el0->lock);
	return el0;
}

/* The page lives on while a mapping holds it (vm_insert_page() took a reference). */
void pmuscope_el0_free(struct pmuscope_el0 *el0)
{
	if (!el0)
		return;
	put_page(el0->pg);
	kfree(el0);
}

/* ------------------------------------------------------ on the CPU: grants */

/*
 * The thread is switched in (or enabled its session) on this CPU: take
 * the CPU's EL0 access for this run if nobody else's counter is allocated
 * here (before PMUv3p9). A new hold counts in the page's grants, a
 * refusal in its denials when @count (a switch-in). Returns whether @el0
 * holds the access now.
 */
bool pmuscope_el0_reserve(struct pmuscope_pmu *pmu, struct pmuscope_el0 *el0,
			  unsigned long run, bool count)
{
	bool ok;

	lockdep_assert_held(&pmu->lock);
	if (pmu->el0 == el0) {
		pmu->el0_run = run;
		return true;
	}
	raw_spin_lock(&el0->lock);
	ok = !pmu->el0 && !el0->closing && pmu->hw_ready &&
	     (pmuscope_el0_per_counter(pmu) ||
	      !(pmu->allocated & ~pmuscope_el0_mine(pmu, el0)));
	if (ok) {
		pmu->el0 = el0;
		pmu->el0_run = run;
		pmu->el0_userenr = 0;
		pmu->el0_open = pmuscope_el0_per_counter(pmu) ? 0 : pmuscope_el0_all(pmu);
	}
	if (ok || count) {
		pmuscope_el0_begin(el0);
		if (ok)
			el0->page->grants++;
		else
			el0->page->denials++;
		pmuscope_el0_end(el0);
	}
	raw_spin_unlock(&el0->lock);
	return ok;
}

/*
 * Every event of @el0 counts on this CPU, which it holds: open the
 * counters to EL0 and say so in the page. Before PMUv3p9 the counters it
 * does not hold are zeroed first: ER lets EL0 read them all.
 */
void pmuscope_el0_grant(struct pmuscope_pmu *pmu, struct pmuscope_el0 *el0)
{
	u32 mine = pmuscope_el0_mine(pmu, el0);
	bool per = pmuscope_el0_per_counter(pmu);
	u64 userenr = pmuscope_el0_userenr(per, mine, el0->swinc);
	unsigned long others;
	unsigned int idx;

	lockdep_assert_held(&pmu->lock);
	if (pmu->el0 != el0)
		return;
	if (per && pmu->el0_userenr) {
		/*
		 * Granted already, and an event came back on another counter
		 * (perf rotated it): open that one too, as the page names it.
		 */
		if (mine & ~pmu->el0_open) {
			pmu->el0_open |= mine;
			pmuscope_hw_write(PMUSCOPE_REG_PMUACR_EL1,
					  pmuscope_el0_pmuacr(pmu->el0_open));
		}
		return;
	}
	if (el0->live != (u32)GENMASK(el0->nr - 1, 0))
		return;
	if (per) {
		pmu->el0_open |= mine;
		pmuscope_hw_write(PMUSCOPE_REG_PMUACR_EL1, pmuscope_el0_pmuacr(pmu->el0_open));
	} else if (!pmu->el0_userenr) {
		/*
		 * Free counters only: reserve checked that no one else holds a
		 * counter here, and perf events keep off the open ones. Never
		 * one that is held (its count would jump): said, not zeroed.
		 */
		others = pmuscope_el0_all(pmu) & ~mine;
		if (WARN_ONCE(others & pmu->allocated,
			      "pmuscope: EL0 grant on cpu%u: counters %#lx held, not the session's (%#x)",
			      pmu->cpu, others & pmu->allocated, mine))
			others &= ~(unsigned long)pmu->allocated;
		for_each_set_bit(idx, &others, PMUSCOPE_NR_COUNTERS)
			pmuscope_hw_write(idx == PMUSCOPE_CYCLE_IDX ? PMUSCOPE_REG_PMCCNTR_EL0 :
					  PMUSCOPE_REG_PMEVCNTR(idx), 0);
	}
	/*
	 * No ISB: the thread reaches EL0 through an exception return, a
	 * context synchronization event, before it can use the access.
	 */
	pmuscope_hw_write(PMUSCOPE_REG_PMUSERENR_EL0, userenr);
	pmu->el0_userenr = userenr;
	raw_spin_lock(&el0->lock);
	pmuscope_el0_begin(el0);
	WRITE_ONCE(el0->page->pmuserenr, userenr);
	WRITE_ONCE(el0->page->cpu, pmu->cpu);
	pmuscope_el0_end(el0);
	raw_spin_unlock(&el0->lock);
}

/* The thread left this CPU (or the session goes, or the CPU): close EL0 access. */
void pmuscope_el0_revoke(struct pmuscope_pmu *pmu)
{
	struct pmuscope_el0 *el0 = pmu->el0;

	lockdep_assert_held(&pmu->lock);
	if (!el0)
		return;
	pmuscope_hw_write(PMUSCOPE_REG_PMUSERENR_EL0, 0);
	if (pmuscope_el0_per_counter(pmu))
		pmuscope_hw_write(PMUSCOPE_REG_PMUACR_EL1, 0);
	pmuscope_hw_isb();
	pmu->el0 = NULL;
	pmu->el0_open = 0;
	pmu->el0_userenr = 0;
	raw_spin_lock(&el0->lock);
	if (READ_ONCE(el0->page->cpu) == pmu->cpu) {
		pmuscope_el0_begin(el0);
		WRITE_ONCE(el0->page->cpu, PMUSCOPE_CPU_ANY);
		WRITE_ONCE(el0->page->pmuserenr, 0);
		pmuscope_el0_end(el0);
	}
	raw_spin_unlock(&el0->lock);
}

/*
 * The PMU was reset (cpu_pm exit, or found reset by someone else), and
 * PMUSERENR_EL0 with it: the grant of the thread running here comes back.
 */
void pmuscope_el0_restore(struct pmuscope_pmu *pmu)
{
	lockdep_assert_held(&pmu->lock);
	if (!pmu->el0 || !pmu->el0_userenr)
		return;
	if (pmuscope_el0_per_counter(pmu))
		pmuscope_hw_write(PMUSCOPE_REG_PMUACR_EL1, pmuscope_el0_pmuacr(pmu->el0_open));
	pmuscope_hw_write(PMUSCOPE_REG_PMUSERENR_EL0, pmu->el0_userenr);
}

/* ------------------------------------------------ on the CPU: the counts */

/*
 * Event @i started counting on counter @idx: @evc is perf's count minus
 * its prev_count, @enabled and @running perf's times now.
 */
void pmuscope_el0_start(struct pmuscope_pmu *pmu, struct pmuscope_el0 *el0, u32 i,
			unsigned int idx, u64 evc, u64 enabled, u64 running)
{
	struct pmuscope_user_counter *c = &el0->page->ctr[i];

	lockdep_assert_held(&pmu->lock);
	raw_spin_lock(&el0->lock);
	pmuscope_el0_begin(el0);
	el0->evc[i] = evc;
	el0->idx[i] = idx;
	el0->live |= BIT(i);
	pmuscope_el0_put(el0, i);
	WRITE_ONCE(c->width, pmuscope_hwc_width(pmu, idx));
	WRITE_ONCE(c->time_enabled, enabled);
	WRITE_ONCE(c->time_running, running);
	WRITE_ONCE(c->time_cnt, pmuscope_hw_syscnt());
	WRITE_ONCE(c->flags, PMUSCOPE_USER_F_LIVE);
	WRITE_ONCE(c->index, idx == PMUSCOPE_CYCLE_IDX ? PMUSCOPE_USER_CYCLE_INDEX : idx + 1);
	pmuscope_el0_end(el0);
	raw_spin_unlock(&el0->lock);
}

/* Event @i stopped: EL0 reads of it go to the READ ioctl. */
void pmuscope_el0_stop(struct pmuscope_el0 *el0, u32 i)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&el0->lock, flags);
	pmuscope_el0_begin(el0);
	el0->live &= ~BIT(i);
	WRITE_ONCE(el0->page->ctr[i].index, 0);
	WRITE_ONCE(el0->page->ctr[i].flags, 0);
	pmuscope_el0_end(el0);
	raw_spin_unlock_irqrestore(&el0->lock, flags);
}

/*
 * The engine folded (or programmed) the counter of event @i: count @val
 * when it read @hw. Called by pmuscope_pmu.c with pmu->lock held.
 */
void pmuscope_el0_fold(struct pmuscope_el0 *el0, u32 i, u64 hw, u64 val)
{
	raw_spin_lock(&el0->lock);
	el0->fold_val[i] = val;
	el0->fold_hw[i] = hw;
	if (el0->live & BIT(i)) {
		pmuscope_el0_begin(el0);
		pmuscope_el0_put(el0, i);
		pmuscope_el0_end(el0);
	}
	raw_spin_unlock(&el0->lock);
}

/*
 * RESET: each event's count starts again from @offset[i], in one write of
 * the page (an EL0 read sees all the events reset, or none).
 */
void pmuscope_el0_reset(struct pmuscope_el0 *el0, const u64 *offset)
{
	unsigned long flags;
	u32 i;

	raw_spin_lock_irqsave(&el0->lock, flags);
	pmuscope_el0_begin(el0);
	for (i = 0; i < el0->nr; i++) {
		el0->reset[i] = offset[i];
		pmuscope_el0_put(el0, i);
	}
	pmuscope_el0_end(el0);
	raw_spin_unlock_irqrestore(&el0->lock, flags);
}
