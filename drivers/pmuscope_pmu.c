// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the PMUv3 counting engine of one CPU.
 *
 * Counts are 64-bit in software. A 64-bit counter (the cycle counter with
 * PMCR_EL0.LC = 1, event counters with PMUv3p5 and PMCR_EL0.LP = 1) never
 * wraps in practice. A 32-bit event counter (Armv8.0, e.g. Cortex-A53)
 * wraps every 2^32 events: each wrap sets its PMOVS bit, and a fold (the
 * overflow interrupt, the poll timer, or any read) clears the bit and adds
 * 2^32 to the counter's software base. A fold that finds the bit set tells
 * from bit 31 of the value it read just before whether that value predates
 * the wrap (bit 31 set: the counter was about to wrap) or follows it. This
 * is exact as long as a wrap is folded within 2^31 events, which the
 * interrupt (or a poll period far shorter than 2^31 events at any rate the
 * hardware can reach) guarantees. Counters are never written while they
 * count: starting one never disturbs the others.
 *
 * Everything here runs on the PMU's CPU with IRQs off and pmu->lock held,
 * except reads of a CPU that is offline.
 */

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "pmuscope.h"
#include "pmuscope_fold.h"
#include "pmuscope_hw.h"

/* Defaults; pmuscope_main.c sets them from the module parameters at load. */
struct pmuscope_engine pmuscope_engine = {
	.mode = PMUSCOPE_FOLD_POLL,
	.poll_ns = 20 * NSEC_PER_MSEC,
	.fold_safe_ns = U64_MAX,
	.storm_limit = 1000,
	.sample_limit = 20000,
};

/* ------------------------------------------------------------ pure helpers */

/* Privilege filter bits of PMEVTYPER<n>_EL0 / PMCCFILTR_EL0 for @ev_flags. */
u64 pmuscope_filter_bits(u32 ev_flags)
{
	u64 v = 0;

	if (!(ev_flags & PMUSCOPE_EV_EL0))
		v |= PMUSCOPE_EVTYPER_U;	/* U = 1 excludes EL0 */
	if (!(ev_flags & PMUSCOPE_EV_EL1))
		v |= PMUSCOPE_EVTYPER_P;	/* P = 1 excludes EL1 */
	if (ev_flags & PMUSCOPE_EV_EL2)
		v |= PMUSCOPE_EVTYPER_NSH;	/* NSH = 1 includes EL2 */
	return v;
}

u64 pmuscope_evtyper(u32 event, u32 ev_flags)
{
	return FIELD_PREP(PMUSCOPE_EVTYPER_EVTCOUNT, event) |
	       pmuscope_filter_bits(ev_flags);
}

static_assert(sizeof(struct pmuscope_hwc) == 128);

unsigned int pmuscope_hwc_width(const struct pmuscope_pmu *pmu, unsigned int idx)
{
	return idx == PMUSCOPE_CYCLE_IDX ? 64 : pmu->evcnt_width;
}

/*
 * The longest time between two folds of a @width-bit counter that keeps
 * its count exact, in ns, if no event counts more than @events_per_cycle
 * per cycle at @max_mhz: a wrap must be folded within 2^(width - 1)
 * events (the bit-31 rule of pmuscope_hwc_fold(); half the wrap period).
 * U64_MAX for a 64-bit counter: 2^63 events take 9 years at 32e9 a second.
 * 0 for a rate of 0, which makes no sense.
 */
u64 pmuscope_fold_safe_ns(unsigned int width, u32 events_per_cycle, u32 max_mhz)
{
	if (width >= 64)
		return U64_MAX;
	if (!events_per_cycle || !max_mhz)
		return 0;
	/* events per ns: events_per_cycle * max_mhz / 1000 */
	return div64_u64(BIT_ULL(width - 1) * NSEC_PER_USEC,
			 (u64)events_per_cycle * max_mhz);
}

/*
 * The poll period for the poll_ms parameter: the longest one allowed is
 * half the safe period of a 32-bit counter (the timer may then come a
 * whole period late before a wrap is at risk), at most
 * PMUSCOPE_POLL_MS_MAX. @poll_ms 0 asks for that longest period.
 * *@period_ms: the period to use, or on -EINVAL the longest allowed
 * (0 when even 1 ms is too long, or the rate is 0).
 */
int pmuscope_poll_period(u32 poll_ms, u32 events_per_cycle, u32 max_mhz,
			 u32 *period_ms)
{
	u64 max = div64_u64(pmuscope_fold_safe_ns(32, events_per_cycle, max_mhz) / 2,
			    NSEC_PER_MSEC);

	*period_ms = min_t(u64, max, PMUSCOPE_POLL_MS_MAX);
	if (!*period_ms || poll_ms > *period_ms)
		return -EINVAL;
	if (poll_ms)
		*period_ms = poll_ms;
	return 0;
}

/*
 * sample_limit (@limit samples a second and counter, at least 1) in short
 * windows, on a kernel of @hz ticks a second and a system counter of
 * @freq Hz: at most sample_burst samples in each window, @limit / @hz
 * rounded up, and the window the time those take at @limit, rounded up
 * (window_ticks of the system counter, window_ns): about a scheduler
 * tick, and never more than @limit samples a second on average. The
 * overflow interrupt then needs no division.
 */
void pmuscope_engine_sample_limit(struct pmuscope_engine *e, u32 limit, u32 hz, u32 freq)
{
	e->sample_limit = limit;
	e->sample_burst = DIV_ROUND_UP_ULL(limit, hz);
	e->window_ticks = DIV_ROUND_UP_ULL((u64)e->sample_burst * freq, limit);
	e->window_ns = DIV_ROUND_UP_ULL((u64)e->sample_burst * NSEC_PER_SEC, limit);
}

void pmuscope_pmu_setup(struct pmuscope_pmu *pmu, unsigned int cpu,
			const struct pmuscope_cpu_caps *caps)
{
	pmu->cpu = cpu;
	pmu->usable = caps->state[PMUSCOPE_UNIT_PMU] == PMUSCOPE_STATE_PRESENT;
	pmu->nr_counters = caps->num_counters;
	pmu->evcnt_width = caps->evcnt_width;
	pmu->pmuver = caps->pmuver;
	pmuscope_ss_setup(pmu, caps);
}

/* PMCR_EL0 as pmuscope runs it: LC = 1, LP = 1 from PMUv3p5. */
static u64 pmuscope_pmcr_mode(const struct pmuscope_pmu *pmu)
{
	u64 pmcr = PMUSCOPE_PMCR_LC;

	if (pmu->evcnt_width == 64)
		pmcr |= PMUSCOPE_PMCR_LP;
	return pmcr;
}

/* A 32-bit counter's wraps, and a sampling counter's samples. */
static bool pmuscope_hwc_wants_irq(const struct pmuscope_pmu *pmu,
				   unsigned int idx)
{
	return pmuscope_engine.mode == PMUSCOPE_FOLD_IRQ && !pmu->hwc[idx].irq_off &&
	       (pmuscope_hwc_width(pmu, idx) == 32 || pmu->hwc[idx].sample_period);
}

/*
 * Where a sampling counter starts: @sample_period events before it
 * overflows (2^width - period). The period is at most 2^31: a 32-bit
 * counter's value keeps bit 31 set until it wraps, so the bit-31 rule of
 * pmuscope_hwc_fold_from() holds. A counter that does not sample starts
 * at 0, or at 2^31 when its thread reads it at EL0 (32-bit,
 * pmuscope_hwc_el0_lift()).
 */
u64 pmuscope_hwc_preload(const struct pmuscope_pmu *pmu, unsigned int idx)
{
	u64 period = pmu->hwc[idx].sample_period;

	if (!period)
		return pmu->hwc[idx].el0 && pmuscope_hwc_width(pmu, idx) == 32 ?
		       BIT_ULL(31) : 0;
	if (pmuscope_hwc_width(pmu, idx) == 64)
		return -period;
	return BIT_ULL(32) - period;
}

/*
 * Are the wraps of counter @idx caught by the poll timer alone: a 32-bit
 * counter in poll mode, or whose interrupt was throttled?
 */
static __always_inline bool pmuscope_hwc_polled(const struct pmuscope_pmu *pmu,
						unsigned int idx)
{
	return pmuscope_hwc_width(pmu, idx) == 32 &&
	       (pmuscope_engine.mode == PMUSCOPE_FOLD_POLL || pmu->hwc[idx].irq_off);
}

/*
 * A polled counter whose last poll is longer ago than @safe ns may have
 * wrapped twice without a fold: a lost wrap cannot be excluded, the count
 * is flagged lost. Returns true when it was so.
 */
static __always_inline bool pmuscope_hwc_overdue(struct pmuscope_hwc *hwc, u64 now, u64 safe)
{
	if (now <= hwc->poll_at || now - hwc->poll_at <= safe)
		return false;
	hwc->flags |= PMUSCOPE_VAL_LOST;
	return true;
}

/*
 * pmuscope_hwc_overdue() for a polled counter (pmuscope_hwc_polled()),
 * before the fold each caller makes: whoever finds it late first (the
 * poll, a READ, a stop) counts it in late_polls, and the lateness is
 * measured from that fold on. A stop or a READ that came first used to
 * flag LOST and leave the count to a poll that might never come (the
 * counter off the PMU) or come after the caller looked.
 */
static __always_inline bool pmuscope_hwc_late(struct pmuscope_pmu *pmu,
					      unsigned int idx, u64 now)
{
	if (!pmuscope_hwc_polled(pmu, idx) ||
	    !pmuscope_hwc_overdue(&pmu->hwc[idx], now, pmuscope_engine.fold_safe_ns))
		return false;
	pmu->late_polls++;
	pmu->hwc[idx].poll_at = now;
	return true;
}

/* ---------------------------------------------------------- register access */
static __always_inline u64 pmuscope_cnt_read(unsigned int idx)
{
	return pmuscope_hw_read_cnt(idx);
}

static void pmuscope_cnt_write(unsigned int idx, u64 val)
{
	if (idx == PMUSCOPE_CYCLE_IDX)
		pmuscope_hw_write(PMUSCOPE_REG_PMCCNTR_EL0, val);
	else
		pmuscope_hw_write(PMUSCOPE_REG_PMEVCNTR(idx), val);
}

static void pmuscope_type_write(unsigned int idx, u64 evtyper)
{
	if (idx == PMUSCOPE_CYCLE_IDX)	/* PMCCFILTR_EL0 has the filters only */
		pmuscope_hw_write(PMUSCOPE_REG_PMCCFILTR_EL0,
				  evtyper & ~PMUSCOPE_EVTYPER_EVTCOUNT);
	else
		pmuscope_hw_write(PMUSCOPE_REG_PMEVTYPER(idx), evtyper);
}

/* ------------------------------------------------------------------ clocks */
/* Start or stop counter @idx's clock; pmu->hot follows (on_hw too). */
static void pmuscope_hwc_clock(struct pmuscope_pmu *pmu, unsigned int idx, bool on, u64 now)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];

	if (hwc->clock_on != on) {
		if (on)
			hwc->t_start = now - hwc->t_enabled;
		else
			hwc->t_enabled = now - hwc->t_start;
		hwc->clock_on = on;
	}
	pmuscope_hwc_sync(pmu, idx);
}

/* ------------------------------------------------------------------- folds */

/*
 * A 32-bit counter that its thread reads at EL0 was folded at @hw, below
 * 2^31 (its first 2^31 events since a wrap, or since it started from 0):
 * move it up by 2^31, and return its value then (@val: its count then).
 *
 * EL0 computes offset + (raw - last_raw) mod 2^32 from the user page,
 * which is right while the counter has counted less than 2^32 events
 * since last_raw, the value of the last fold. The reads made after a wrap
 * and before its overflow interrupt folds it are right only while the
 * counter is still below last_raw; if the interrupt of the wrap before
 * folded at a small value (the events counted before it was taken), a
 * later interrupt that takes longer leaves reads 2^32 short. With last_raw
 * at 2^31 or above, the counter's next wrap is 2^31 events away, and the
 * reads after it have 2^31 events of room.
 *
 * The counter is stopped for the write: a counter that counts only at EL0
 * (nothing while the kernel runs) loses nothing; one that also counts
 * where the kernel runs loses what this CPU does between the stop and the
 * start (a few instructions, about once every 2^31 events).
 */
static noinline u64 pmuscope_hwc_el0_lift(struct pmuscope_pmu *pmu, struct pmuscope_hwc *hwc,
					  unsigned int idx, u64 hw, u64 *val)
{
	u64 bit = BIT_ULL(idx);
	bool counting = pmuscope_hw_read(PMUSCOPE_REG_PMCNTENSET_EL0) & bit;

	if (counting) {
		pmuscope_hw_write(PMUSCOPE_REG_PMCNTENCLR_EL0, bit);
		pmuscope_hw_isb();
		hw = pmuscope_cnt_read(idx) & U32_MAX;
		/* 2^31 events since the fold's read: over the bit-31 limit. */
		if (hw & BIT_ULL(31))
			goto out;
		hwc->last_hw = hw;
		*val = hwc->base + hw;
	}
	pmuscope_cnt_write(idx, hw + BIT_ULL(31));
	hwc->base -= BIT_ULL(31);
	hwc->last_hw = hw + BIT_ULL(31);
out:
	/* The value written before the counter counts, and before EL0 reads it. */
	pmuscope_hw_isb();
	if (counting) {
		pmuscope_hw_write(PMUSCOPE_REG_PMCNTENSET_EL0, bit);
		pmuscope_hw_isb();
	}
	if (*val > hwc->last)
		hwc->last = *val;
	return hwc->last_hw;
}

/*
 * A counter whose count went @down below the last one seen with no wrap
 * to explain it was rewritten by someone else (a debugger, firmware;
 * QEMU's TCG without -icount does it to every running counter when its
 * PMU timer runs inside an exception return, Documentation/testing.rst):
 * what it counted since the last fold cannot be known. Flagged lost, and
 * the count carries on from the last one seen, so that it never goes
 * down.
 */
static noinline void pmuscope_hwc_rewritten(struct pmuscope_pmu *pmu,
					    struct pmuscope_hwc *hwc, u64 down)
{
	hwc->flags |= PMUSCOPE_VAL_LOST;
	hwc->base += down;
	pmu->resyncs++;
}

/*
 * The counter's 64-bit count from @hw, its value, and @ovs, PMOVSSET_EL0
 * read after it with an ISB between (a 32-bit counter's; unused for a
 * 64-bit one). A count below the last fold's, whatever the wraps
 * folded, is a counter rewritten by someone else:
 * pmuscope_hwc_rewritten(). Counted in pmu->folds.
 */
static __always_inline u64 pmuscope_hwc_fold_from(struct pmuscope_pmu *pmu,
						  unsigned int idx, u64 hw, u64 ovs)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];
	u64 bit = BIT_ULL(idx);
	bool wide;
	u64 val;

	pmu->folds++;
	wide = pmuscope_hwc_width(pmu, idx) == 64;

	if (wide) {
		/*
		 * A sampling counter that wrapped is below its last value:
		 * base + hw, modulo 2^64, is the count.
		 */
		val = hwc->base + hw;
	} else {
		hw &= U32_MAX;
		val = hwc->base + hw;
		if (likely(!(ovs & bit))) {
			/* No wrap pending: the usual case. */
		} else if (hwc->sample_period && !hwc->irq_off) {
			/*
			 * A sampling counter's wrap is its sample: left to the
			 * overflow interrupt (pmuscope_hwc_reload()), which
			 * folds it; counted here without consuming it.
			 */
			if (!(hw & BIT_ULL(31)))
				val += BIT_ULL(32);
		} else {
			pmuscope_hw_write(PMUSCOPE_REG_PMOVSCLR_EL0, bit);
			pmu->overflows++;
			hwc->base += BIT_ULL(32);
			/*
			 * Bit 31 clear: @hw was read after the wrap (the
			 * counter cannot count 2^31 events between the two
			 * reads).
			 */
			if (!(hw & BIT_ULL(31)))
				val += BIT_ULL(32);
		}
	}
	/*
	 * Counts far apart modulo 2^64: a count made at once short of a
	 * wrap still pending (pmuscope_pmu_read_ready()) may be above this
	 * one as a u64, not as a difference.
	 */
	if (unlikely((s64)(val - hwc->last) < 0)) {
		pmuscope_hwc_rewritten(pmu, hwc, hwc->last - val);
		val = hwc->last;
	}
	hwc->last_hw = hw;
	hwc->last = val;
	if (unlikely(hwc->el0)) {
		u64 v = val;

		if (!wide && !(hw & BIT_ULL(31)) && !hwc->sample_period)
			hw = pmuscope_hwc_el0_lift(pmu, hwc, idx, hw, &v);
		pmuscope_el0_fold(hwc->el0, hwc->slot, hw, v);
	}
	return val;
}

/* The counter's 64-bit count now; folds a pending wrap. */
u64 pmuscope_hwc_fold(struct pmuscope_pmu *pmu, unsigned int idx)
{
	u64 hw, ovs = 0;

	hw = pmuscope_cnt_read(idx);
	if (pmuscope_hwc_width(pmu, idx) == 32) {
		/*
		 * The bit-31 rule needs the counter read before PMOVSSET:
		 * direct reads of two system registers are not ordered
		 * without a context synchronization event.
		 */
		pmuscope_hw_isb();
		ovs = pmuscope_hw_read(PMUSCOPE_REG_PMOVSSET_EL0);
	}
	return pmuscope_hwc_fold_from(pmu, idx, hw, ovs);
}

/* ------------------------------------------------------- start and stop */

/*
 * Program and start one counter; the others keep counting undisturbed.
 * @now: its polls are late from then on (pmuscope_hwc_late()).
 */
static void pmuscope_hwc_hw_on(struct pmuscope_pmu *pmu, unsigned int idx, u64 now)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];
	u64 bit = BIT_ULL(idx);

	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENCLR_EL0, bit);
	pmuscope_hw_write(PMUSCOPE_REG_PMINTENCLR_EL1, bit);
	pmuscope_hw_isb();
	pmuscope_type_write(idx, hwc->evtyper);
	pmuscope_cnt_write(idx, pmuscope_hwc_preload(pmu, idx));
	pmuscope_hw_write(PMUSCOPE_REG_PMOVSCLR_EL0, bit);
	if (pmuscope_hwc_wants_irq(pmu, idx))
		pmuscope_hw_write(PMUSCOPE_REG_PMINTENSET_EL1, bit);
	/* The type and the value take effect before the counter is enabled. */
	pmuscope_hw_isb();
	hwc->base = hwc->saved - pmuscope_hwc_preload(pmu, idx);
	hwc->last_hw = pmuscope_hwc_preload(pmu, idx);
	hwc->poll_at = now;
	if (hwc->el0)
		pmuscope_el0_fold(hwc->el0, hwc->slot, hwc->last_hw, hwc->saved);
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENSET_EL0, bit);
	if (!pmu->on_hw_mask)
		pmuscope_hw_write(PMUSCOPE_REG_PMCR_EL0,
				  pmuscope_pmcr_mode(pmu) | PMUSCOPE_PMCR_E);
	pmuscope_hw_isb();
	pmu->on_hw_mask |= bit;
	hwc->on_hw = true;
	pmuscope_hwc_sync(pmu, idx);
}

/* Stop one counter and keep its count in software (flagged if overdue). */
static void pmuscope_hwc_hw_off(struct pmuscope_pmu *pmu, unsigned int idx, u64 now)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];
	u64 bit = BIT_ULL(idx);

	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENCLR_EL0, bit);
	pmuscope_hw_isb();
	pmuscope_hwc_late(pmu, idx, now);
	hwc->saved = pmuscope_hwc_fold(pmu, idx);
	/*
	 * Interrupt masked before its flag is cleared, and the flag cleared
	 * before anything else runs: a level PPI still asserted when the
	 * lock is dropped would be taken as a spurious interrupt.
	 */
	pmuscope_hw_write(PMUSCOPE_REG_PMINTENCLR_EL1, bit);
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMOVSCLR_EL0, bit);
	pmuscope_hw_isb();
	hwc->on_hw = false;
	pmuscope_hwc_sync(pmu, idx);
	pmu->on_hw_mask &= ~bit;
	if (!pmu->on_hw_mask) {
		pmuscope_hw_write(PMUSCOPE_REG_PMCR_EL0, pmuscope_pmcr_mode(pmu));
		pmuscope_hw_isb();
	}
}

/*
 * Start the counters of @mask together (enabled by their owner, not on the
 * hardware): each programmed, then one PMCNTENSET_EL0 write enables them
 * all, so that counters of one session count from the same instant. The
 * others keep counting undisturbed.
 */
void pmuscope_pmu_start_mask(struct pmuscope_pmu *pmu, u32 mask, u64 now)
{
	unsigned long m = mask, idx;
	u64 inten = 0;

	if (!mask)
		return;
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENCLR_EL0, mask);
	pmuscope_hw_write(PMUSCOPE_REG_PMINTENCLR_EL1, mask);
	pmuscope_hw_isb();
	for_each_set_bit(idx, &m, PMUSCOPE_NR_COUNTERS) {
		struct pmuscope_hwc *hwc = &pmu->hwc[idx];
		u64 p = pmuscope_hwc_preload(pmu, idx);

		pmuscope_type_write(idx, hwc->evtyper);
		pmuscope_cnt_write(idx, p);
		hwc->base = hwc->saved - p;
		hwc->last_hw = p;
		hwc->poll_at = now;
		if (hwc->el0)
			pmuscope_el0_fold(hwc->el0, hwc->slot, p, hwc->saved);
		if (pmuscope_hwc_wants_irq(pmu, idx))
			inten |= BIT_ULL(idx);
	}
	pmuscope_hw_write(PMUSCOPE_REG_PMOVSCLR_EL0, mask);
	if (inten)
		pmuscope_hw_write(PMUSCOPE_REG_PMINTENSET_EL1, inten);
	/* The types and the values take effect before the counters are enabled. */
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENSET_EL0, mask);
	if (!pmu->on_hw_mask)
		pmuscope_hw_write(PMUSCOPE_REG_PMCR_EL0,
				  pmuscope_pmcr_mode(pmu) | PMUSCOPE_PMCR_E);
	pmuscope_hw_isb();
	pmu->on_hw_mask |= mask;
	for_each_set_bit(idx, &m, PMUSCOPE_NR_COUNTERS) {
		pmu->hwc[idx].on_hw = true;
		pmuscope_hwc_clock(pmu, idx, true, now);
	}
}

/*
 * Stop the counters of @mask together (on the hardware): one
 * PMCNTENCLR_EL0 write, then each is read and folded into its saved
 * count (one ISB and one PMOVSSET read for all), its interrupt masked and
 * its flag cleared as pmuscope_hwc_hw_off() does. The clocks stop.
 */
void pmuscope_pmu_stop_mask(struct pmuscope_pmu *pmu, u32 mask, u64 now)
{
	unsigned long m = mask, idx;
	bool narrow = false;
	u64 raw[PMUSCOPE_NR_COUNTERS];
	u64 ovs = 0;

	if (!mask)
		return;
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENCLR_EL0, mask);
	pmuscope_hw_isb();
	for_each_set_bit(idx, &m, PMUSCOPE_NR_COUNTERS) {
		raw[idx] = pmuscope_cnt_read(idx);
		narrow |= pmuscope_hwc_width(pmu, idx) == 32;
	}
	if (narrow) {
		pmuscope_hw_isb();
		ovs = pmuscope_hw_read(PMUSCOPE_REG_PMOVSSET_EL0);
	}
	for_each_set_bit(idx, &m, PMUSCOPE_NR_COUNTERS) {
		pmuscope_hwc_late(pmu, idx, now);
		pmu->hwc[idx].saved = pmuscope_hwc_fold_from(pmu, idx, raw[idx], ovs);
	}
	pmuscope_hw_write(PMUSCOPE_REG_PMINTENCLR_EL1, mask);
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMOVSCLR_EL0, mask);
	pmuscope_hw_isb();
	pmu->on_hw_mask &= ~mask;
	for_each_set_bit(idx, &m, PMUSCOPE_NR_COUNTERS) {
		pmu->hwc[idx].on_hw = false;
		pmuscope_hwc_clock(pmu, idx, false, now);
	}
	if (!pmu->on_hw_mask) {
		pmuscope_hw_write(PMUSCOPE_REG_PMCR_EL0, pmuscope_pmcr_mode(pmu));
		pmuscope_hw_isb();
	}
}

void pmuscope_hwc_start(struct pmuscope_pmu *pmu, unsigned int idx, u64 now)
{
	pmuscope_hwc_hw_on(pmu, idx, now);
	pmuscope_hwc_clock(pmu, idx, true, now);
}

void pmuscope_hwc_stop(struct pmuscope_pmu *pmu, unsigned int idx, u64 now)
{
	pmuscope_hwc_hw_off(pmu, idx, now);
	pmuscope_hwc_clock(pmu, idx, false, now);
}

/*
 * Bring the PMU to a known state in the order the architecture asks for:
 * counting off, counters and stale overflow flags reset, LC (and LP) set.
 */
void pmuscope_pmu_hw_reset(struct pmuscope_pmu *pmu)
{
	pmu->on_hw_mask = 0;
	pmuscope_hw_write(PMUSCOPE_REG_PMCR_EL0, 0);
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENCLR_EL0, U32_MAX);
	pmuscope_hw_write(PMUSCOPE_REG_PMINTENCLR_EL1, U32_MAX);
	pmuscope_hw_write(PMUSCOPE_REG_PMCR_EL0, PMUSCOPE_PMCR_P | PMUSCOPE_PMCR_C);
	pmuscope_hw_write(PMUSCOPE_REG_PMOVSCLR_EL0, U32_MAX);
	pmuscope_hw_write(PMUSCOPE_REG_PMCR_EL0, pmuscope_pmcr_mode(pmu));
	pmuscope_hw_write(PMUSCOPE_REG_PMUSERENR_EL0, 0);
	pmuscope_hw_isb();
}

/*
 * After pmuscope_pmu_hw_reset(): program every enabled counter, then
 * PMINTENSET, PMCNTENSET and PMCR_EL0.E = 1, in that order. @clocks: start
 * their clocks too (not when coming back from idle: they kept running).
 * @now: the time, for the clocks and the late-poll check.
 */
static void pmuscope_pmu_program(struct pmuscope_pmu *pmu, u64 now, bool clocks)
{
	unsigned long mask = pmu->allocated;
	u64 cnten = 0, inten = 0;
	unsigned long idx;

	for_each_set_bit(idx, &mask, PMUSCOPE_NR_COUNTERS) {
		struct pmuscope_hwc *hwc = &pmu->hwc[idx];

		if (!hwc->enabled)
			continue;
		pmuscope_type_write(idx, hwc->evtyper);
		/* Counters were reset to 0; some start elsewhere (their preload). */
		if (pmuscope_hwc_preload(pmu, idx))
			pmuscope_cnt_write(idx, pmuscope_hwc_preload(pmu, idx));
		hwc->base = hwc->saved - pmuscope_hwc_preload(pmu, idx);
		hwc->last_hw = pmuscope_hwc_preload(pmu, idx);
		hwc->poll_at = now;
		hwc->on_hw = true;
		if (hwc->el0)
			pmuscope_el0_fold(hwc->el0, hwc->slot, hwc->last_hw, hwc->saved);
		if (clocks)
			pmuscope_hwc_clock(pmu, idx, true, now);
		else
			pmuscope_hwc_sync(pmu, idx);
		cnten |= BIT_ULL(idx);
		if (pmuscope_hwc_wants_irq(pmu, idx))
			inten |= BIT_ULL(idx);
	}
	if (!cnten)
		return;
	pmuscope_hw_write(PMUSCOPE_REG_PMINTENSET_EL1, inten);
	/* The event types take effect before any counter is enabled. */
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENSET_EL0, cnten);
	pmuscope_hw_write(PMUSCOPE_REG_PMCR_EL0,
			  pmuscope_pmcr_mode(pmu) | PMUSCOPE_PMCR_E);
	pmuscope_hw_isb();
	pmu->on_hw_mask = cnten;
}

void pmuscope_pmu_hw_start_all(struct pmuscope_pmu *pmu, u64 now)
{
	pmuscope_pmu_program(pmu, now, true);
}

/* Stop every counter, keeping its count; the clocks stop too. */
void pmuscope_pmu_hw_stop_all(struct pmuscope_pmu *pmu, u64 now)
{
	unsigned long mask = pmu->on_hw_mask;
	unsigned long idx;

	for_each_set_bit(idx, &mask, PMUSCOPE_NR_COUNTERS)
		pmuscope_hwc_stop(pmu, idx, now);
}

/* ------------------------------------------------------- overflow and poll */

/*
 * A sampling counter overflowed: stop it, fold its count, start it again
 * from its preload, @sample_period events before the next overflow. The
 * few events between the stop and the start are not counted. @hold: not
 * started yet, and every other counter running here stopped with it
 * (once an interrupt), all counting again at the interrupt's end
 * (pmuscope_pmu_overflow_end()), so that the interrupt's own events (its
 * records, call chains and ring writes) are neither in the next period
 * nor in the counts a sample carries, as perf's PMUv3 driver stops the
 * PMU for its whole handler ("to prevent skews in group events":
 * armv8pmu_handle_irq(), 6.1 and 6.12). Counted, a handler that takes
 * about a period (a call chain walked on a slow CPU) overflowed the
 * counter again before it returned, and the interrupt came back at the
 * first point where the interrupted context unmasks IRQs: samples piled
 * on el0_svc and rcu_is_watching (t-fidelity.sh).
 */
static void pmuscope_hwc_reload(struct pmuscope_pmu *pmu, unsigned int idx, bool hold)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];
	u64 bit = BIT_ULL(idx), p = pmuscope_hwc_preload(pmu, idx);
	u64 count;

	if (hold && !pmu->sample_held) {
		u32 run = pmuscope_pmu_running(pmu);

		pmu->sample_held = run;
		bit |= run;
	}
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENCLR_EL0, bit);
	pmuscope_hw_isb();
	bit = BIT_ULL(idx);
	count = pmuscope_hwc_fold(pmu, idx);
	/*
	 * The events past the overflow (before the interrupt came) count
	 * towards the next period, as perf's period_left does
	 * (armpmu_event_set_period()): a sample every @sample_period events,
	 * not every period and the interrupt's latency (2.2% fewer samples
	 * than perf_event_open()'s, t-fidelity.sh). More than a period past
	 * (throttled meanwhile): a whole period from here.
	 */
	if (hwc->last_hw < hwc->sample_period)
		p += hwc->last_hw;
	pmuscope_cnt_write(idx, p);
	pmuscope_hw_write(PMUSCOPE_REG_PMOVSCLR_EL0, bit);
	/* The new value, and the flag clear, before it counts again. */
	pmuscope_hw_isb();
	hwc->base = count - p;
	hwc->last_hw = p;
	if (hold) {
		pmu->sample_held |= bit;
		return;
	}
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENSET_EL0, bit);
	pmuscope_hw_isb();
}

/*
 * The overflow interrupt's end, its records made: the counters it held
 * count again (pmuscope_hwc_reload()), those still on the hardware. On
 * the PMU's CPU, pmu->lock held.
 */
void pmuscope_pmu_overflow_end(struct pmuscope_pmu *pmu)
{
	u32 held = pmu->sample_held & pmu->on_hw_mask;

	pmu->sample_held = 0;
	if (!held)
		return;
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENSET_EL0, held);
	pmuscope_hw_isb();
}

/*
 * Start or stop sampling on counter @idx every @period events (0: stop):
 * a counter on the hardware is stopped and started again from its new
 * preload; its count carries on.
 */
void pmuscope_hwc_set_sampling(struct pmuscope_pmu *pmu, unsigned int idx,
			       u64 period, u64 now)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];
	bool on = hwc->on_hw;

	if (hwc->sample_period == period)
		return;
	if (on)
		pmuscope_hwc_hw_off(pmu, idx, now);
	hwc->sample_period = period;
	hwc->irq_off = false;
	pmu->throttled &= ~BIT(idx);
	/* A window's count of its own, whichever window it is. */
	hwc->storm_count = 0;
	hwc->storm_start = 0;
	pmuscope_hwc_sync(pmu, idx);
	if (on)
		pmuscope_hwc_hw_on(pmu, idx, now);
}

/*
 * A sampling counter's overflow that is no sample: its interrupt is off
 * (or goes off now) and it counts on past its preload. A 32-bit wrap is
 * folded; a 64-bit one is the expected wrap past its preload, not a write.
 */
static void pmuscope_hwc_wrapped(struct pmuscope_pmu *pmu, unsigned int idx)
{
	if (pmuscope_hwc_width(pmu, idx) == 64)
		pmuscope_hw_write(PMUSCOPE_REG_PMOVSCLR_EL0, BIT_ULL(idx));
	else
		pmuscope_hwc_fold(pmu, idx);
}

/* Switch counter @idx's overflow interrupt off: flagged THROTTLED. */
static void pmuscope_hwc_throttle(struct pmuscope_pmu *pmu, unsigned int idx)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];

	pmuscope_hw_write(PMUSCOPE_REG_PMINTENCLR_EL1, BIT_ULL(idx));
	hwc->irq_off = true;
	pmuscope_hwc_sync(pmu, idx);
	hwc->flags |= PMUSCOPE_VAL_THROTTLED;
}

/*
 * Body of the overflow interrupt. Returns false if nothing was pending.
 * *@sampled: the sampling counters that overflowed with their interrupt
 * on, whose records the caller makes: a sample each (reloaded here), or,
 * for one that had taken its window's share (irq_off now), no sample but
 * its throttle (a THROTTLED record). Ends with an ISB after the last
 * PMOVSCLR/PMINTENCLR write: the PPI is level-triggered, and a GIC
 * (GIC-500 on the AM62L) that still sees it asserted at EOI raises it
 * again, spuriously.
 */
bool pmuscope_pmu_overflow(struct pmuscope_pmu *pmu, unsigned long *sampled)
{
	const u64 window = pmuscope_engine.window_ticks;
	unsigned long pending, mine, idx;
	u64 ovs, now;
	bool busy;

	*sampled = 0;
	pmu->interrupts++;
	/*
	 * Sampling's window, and the interrupt's share of it (pmu->irq_busy,
	 * added by the handler from @irq_entry: one system-counter read at
	 * each end).
	 */
	now = pmuscope_hw_syscnt();
	pmu->irq_entry = now;
	if (now - pmu->irq_window >= window) {
		pmu->irq_window = now;
		pmu->irq_busy = 0;
	}
	busy = pmu->irq_busy > window / PMUSCOPE_IRQ_BUSY_DIV;
	ovs = pmuscope_hw_read(PMUSCOPE_REG_PMOVSSET_EL0) & U32_MAX;
	if (!ovs) {
		pmu->spurious++;
		return false;
	}
	mine = ovs & pmu->on_hw_mask;
	pending = ovs & ~mine;
	if (pending) {
		/* Not a counter of ours: a stale flag, clear it. */
		pmuscope_hw_write(PMUSCOPE_REG_PMOVSCLR_EL0, pending);
		pmu->spurious++;
	}

	for_each_set_bit(idx, &mine, PMUSCOPE_NR_COUNTERS) {
		struct pmuscope_hwc *hwc = &pmu->hwc[idx];

		if (hwc->sample_period && !hwc->irq_off) {
			/*
			 * A sample, while the window's share of sample_limit
			 * is not taken nor the window's interrupt time spent.
			 * Else this overflow is no sample: the counter is
			 * throttled, off until the next window
			 * (pmuscope_pmu_unthrottle()), counting on past it.
			 */
			if (hwc->sample_window != pmu->irq_window) {
				hwc->sample_window = pmu->irq_window;
				hwc->storm_count = 0;
			}
			if (hwc->storm_count < pmuscope_engine.sample_burst && !busy) {
				hwc->storm_count++;
				pmuscope_hwc_reload(pmu, idx, true);
				*sampled |= BIT(idx);
				pmu->samples++;
				continue;
			}
			pmuscope_hwc_wrapped(pmu, idx);
			pmuscope_hwc_throttle(pmu, idx);
			hwc->throttled_at = now;
			pmu->throttled |= BIT(idx);
			*sampled |= BIT(idx);
		} else if (hwc->sample_period) {
			/*
			 * Throttled, counting on past its overflow; another
			 * counter's interrupt found the wrap. No sample (its
			 * interrupt is off), nor an interrupt of its own.
			 */
			pmuscope_hwc_wrapped(pmu, idx);
		} else if (pmuscope_hwc_width(pmu, idx) == 64) {
			/* A 64-bit counter cannot wrap: it was written. */
			pmuscope_hw_write(PMUSCOPE_REG_PMOVSCLR_EL0, BIT_ULL(idx));
			hwc->flags |= PMUSCOPE_VAL_CLOBBERED;
		} else {
			pmuscope_hwc_fold(pmu, idx);
			/* No real counter wraps that often: stop listening. */
			if (time_after(jiffies, hwc->storm_start + HZ)) {
				hwc->storm_start = jiffies;
				hwc->storm_count = 0;
			}
			if (++hwc->storm_count > pmuscope_engine.storm_limit && !hwc->irq_off)
				pmuscope_hwc_throttle(pmu, idx);
		}
	}
	pmuscope_hw_isb();
	return true;
}

/*
 * Give the sampling counters throttled (pmu->throttled) their interrupt
 * back, each a window after its own throttle (hwc->throttled_at): the
 * unthrottle timer. @all: every one of them, at once, and a new window
 * begins (the CPU coming online). Each is started again from its preload
 * as at a sample (what it counted meanwhile stays in its count; a wrap it
 * made is folded as a throttled counter's); its THROTTLED flag stays,
 * until a reset: samples are missing.
 *
 * Nothing else starts a window: the CPU's window ended before any of its
 * counters' is due (it began at or before the throttle), so each samples
 * in a window that starts after it (at its first overflow, or another
 * counter's), and a counter that was not throttled keeps its window and
 * its count in it. A window is therefore always at least window_ticks
 * long, with at most sample_burst samples of each counter in it.
 *
 * Returns the ns until the next of those left throttled is due (the
 * timer's next expiry), 0 if none is left.
 */
u64 pmuscope_pmu_unthrottle(struct pmuscope_pmu *pmu, bool all)
{
	const u64 window = pmuscope_engine.window_ticks;
	unsigned long mask = pmu->throttled, idx;
	u64 now = pmuscope_hw_syscnt(), inten = 0, left = 0;

	if (all) {
		pmu->irq_window = now;
		pmu->irq_busy = 0;
	}
	for_each_set_bit(idx, &mask, PMUSCOPE_NR_COUNTERS) {
		struct pmuscope_hwc *hwc = &pmu->hwc[idx];
		u64 off = now - hwc->throttled_at;

		if (!all && off < window) {
			if (!left || window - off < left)
				left = window - off;
			continue;
		}
		pmu->throttled &= ~BIT(idx);
		/* Released meanwhile (RELEASE ends its sampling). */
		if (!hwc->irq_off || !hwc->sample_period)
			continue;
		if (hwc->on_hw)
			pmuscope_hwc_reload(pmu, idx, false);
		hwc->irq_off = false;
		pmuscope_hwc_sync(pmu, idx);
		if (hwc->on_hw && pmuscope_hwc_wants_irq(pmu, idx))
			inten |= BIT_ULL(idx);
	}
	if (inten) {
		pmuscope_hw_write(PMUSCOPE_REG_PMINTENSET_EL1, inten);
		pmuscope_hw_isb();
	}
	/* Ticks to ns, rounded up: window_ns for window_ticks (at most ~1 s each). */
	return left ? div64_u64(left * pmuscope_engine.window_ns + window - 1, window) : 0;
}

/*
 * Verify that the counters we run are still programmed as we left them:
 * a PMU reset nobody announced (a power-down without cpu_pm) leaves the
 * counters' values and overflow flags UNKNOWN. Nothing is folded from
 * them then; each counter resumes from the last count folded, flagged
 * lost. The usual answer, all as we left it, is pmuscope_hw_counting()'s;
 * hot callers ask it inline and call pmuscope_pmu_repair() only if not.
 */
void pmuscope_pmu_check(struct pmuscope_pmu *pmu, u64 now)
{
	if (unlikely(!pmuscope_hw_counting(pmuscope_pmu_running(pmu))))
		pmuscope_pmu_repair(pmu, now);
}

/* pmuscope_pmu_check() when pmuscope_hw_counting() said no. */
void pmuscope_pmu_repair(struct pmuscope_pmu *pmu, u64 now)
{
	unsigned long mask = pmu->on_hw_mask;
	unsigned long idx;
	bool restart = false;
	u64 cnten, pmcr;

	cnten = pmuscope_hw_read(PMUSCOPE_REG_PMCNTENSET_EL0) | pmu->sample_held;
	pmcr = pmuscope_hw_read(PMUSCOPE_REG_PMCR_EL0);
	for_each_set_bit(idx, &mask, PMUSCOPE_NR_COUNTERS) {
		struct pmuscope_hwc *hwc = &pmu->hwc[idx];
		u64 bit = BIT_ULL(idx);

		if ((cnten & bit) && (pmcr & PMUSCOPE_PMCR_E))
			continue;
		hwc->flags |= PMUSCOPE_VAL_LOST;
		pmu->resyncs++;
		hwc->saved = hwc->last;
		if (!(pmcr & PMUSCOPE_PMCR_E)) {
			hwc->on_hw = false;
			pmuscope_hwc_sync(pmu, idx);
			restart = true;		/* all of them, below */
		} else {
			pmuscope_hwc_hw_on(pmu, idx, now);
		}
	}
	if (!restart)
		return;
	/*
	 * The whole PMU was reset: everything else it holds is UNKNOWN too
	 * (PMUSERENR_EL0 may let EL0 in). Reset it in the architecture's
	 * order and program it again, as after idle.
	 */
	pmuscope_pmu_hw_reset(pmu);
	pmuscope_pmu_program(pmu, now, false);
	pmuscope_el0_restore(pmu);
}

/*
 * The poll timer: check the programming, then fold every counter, flagged
 * lost when the poll came later than a wrap may go unfolded.
 */
static void pmuscope_pmu_poll(struct pmuscope_pmu *pmu, u64 now)
{
	unsigned long mask = pmu->on_hw_mask;
	unsigned long idx;

	pmuscope_pmu_check(pmu, now);
	for_each_set_bit(idx, &mask, PMUSCOPE_NR_COUNTERS) {
		struct pmuscope_hwc *hwc = &pmu->hwc[idx];

		if (!hwc->on_hw)
			continue;
		pmuscope_hwc_late(pmu, idx, now);
		hwc->poll_at = now;
		pmuscope_hwc_fold(pmu, idx);
	}
}

void pmuscope_pmu_swinc(struct pmuscope_pmu *pmu, u32 mask, u32 count)
{
	while (count--)
		pmuscope_hw_write(PMUSCOPE_REG_PMSWINC_EL0, mask);
	pmuscope_hw_isb();
}

/* ------------------------------------------------- reads, enable, reset */

/*
 * Counter @idx's value into @val, its 64-bit count being @count; @ready:
 * pmu->hw_ready. Every field is computed in locals and stored once:
 * READ's hot path.
 */
static __always_inline void pmuscope_hwc_value_of(const struct pmuscope_hwc *hwc,
						  unsigned int idx, bool ready, u64 now,
						  u64 count, struct pmuscope_value *val)
{
	u64 enabled = hwc->clock_on ? now - hwc->t_start : hwc->t_enabled;
	u32 flags = hwc->flags;

	/* Offline, whether the session is enabled or not. */
	if (unlikely(!ready))
		flags |= PMUSCOPE_VAL_OFFLINE;
	val->count = count - hwc->offset;
	val->time_enabled = enabled;
	val->time_running = enabled;
	val->flags = flags;
	val->counter = idx;
}

static __always_inline void pmuscope_hwc_value(struct pmuscope_pmu *pmu,
					       unsigned int idx, u64 now, u64 count,
					       struct pmuscope_value *val)
{
	pmuscope_hwc_value_of(&pmu->hwc[idx], idx, pmu->hw_ready, now, count, val);
}

/*
 * One counter's value. Callers run pmuscope_pmu_check() once before reading
 * a CPU's counters, so that a counter someone else stopped or reset is put
 * back (and flagged) before it is read.
 */
void pmuscope_hwc_read(struct pmuscope_pmu *pmu, unsigned int idx, u64 now,
		       struct pmuscope_value *val)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];
	u64 count;

	if (hwc->on_hw) {
		/* The poll is overdue already: say so now, not at the poll. */
		pmuscope_hwc_late(pmu, idx, now);
		count = pmuscope_hwc_fold(pmu, idx);
	} else {
		count = hwc->saved;
	}
	pmuscope_hwc_value(pmu, idx, now, count, val);
}

/*
 * The raw values of the counters @idx[0..@nr) that are on the hardware,
 * into @vals[i].count, then PMOVSSET_EL0 (returned; 0 if no 32-bit counter
 * was read): every counter is read first, then one ISB and one PMOVSSET
 * read serve the folds of all of them (the bit-31 rule of
 * pmuscope_hwc_fold_from() holds for each: its counter was read before
 * PMOVSSET). On the PMU's CPU, pmu->lock held.
 */
static __always_inline u64 pmuscope_pmu_raw(struct pmuscope_pmu *pmu,
					    const u8 *idx, u32 nr,
					    struct pmuscope_value *vals)
{
	bool narrow = false;
	u32 i;

	for (i = 0; i < nr; i++) {
		unsigned int n = idx[i];

		if (!pmu->hwc[n].on_hw)		/* nor PMUSCOPE_NO_COUNTER's sentinel */
			continue;
		vals[i].count = pmuscope_cnt_read(n);
		if (n != PMUSCOPE_CYCLE_IDX)
			narrow = true;
	}
	if (!narrow || pmu->evcnt_width != 32)
		return 0;
	pmuscope_hw_isb();
	return pmuscope_hw_read(PMUSCOPE_REG_PMOVSSET_EL0);
}

/*
 * One value of pmuscope_pmu_fold(), whatever the counter's state: from
 * its raw value in @val->count if it is on the hardware, else its saved
 * count (PMUSCOPE_NO_COUNTER: a value of zeros).
 */
noinline void pmuscope_pmu_fold_one(struct pmuscope_pmu *pmu, unsigned int n, u32 i, u64 now,
				    u64 ovs, struct pmuscope_value *val)
{
	struct pmuscope_value v = { .cpu = pmu->cpu, .index = i };
	u64 count;

	if (n == PMUSCOPE_NO_COUNTER) {
		memset(val, 0, sizeof(*val));
		return;
	}
	if (pmu->hwc[n].on_hw) {
		/* The poll is overdue already: say so now, not at the poll. */
		pmuscope_hwc_late(pmu, n, now);
		count = pmuscope_hwc_fold_from(pmu, n, val->count, ovs);
	} else {
		count = pmu->hwc[n].saved;
	}
	pmuscope_hwc_value(pmu, n, now, count, &v);
	*val = v;
}

/*
 * pmuscope_pmu_fold() from value @i on, the first that was not in the
 * usual case: each value made at once where it can be, else by
 * pmuscope_pmu_fold_one(). Its arguments as there.
 */
noinline void pmuscope_pmu_fold_rest(struct pmuscope_pmu *pmu, const u8 *idx, u32 nr, u32 i,
				     u64 now, u64 ovs, bool by_counter, const u64 *raw,
				     struct pmuscope_value *vals)
{
	const u64 hot = by_counter || pmu->hw_ready ? pmu->hot : 0;
	const u64 wide = pmuscope_pmu_wide(pmu);
	const u64 quiet = pmuscope_pmu_quiet(wide, ovs) & hot;
	const u32 cpu = pmu->cpu;

	for (; i < nr; i++) {
		unsigned int n = idx[i];

		if (pmuscope_pmu_fold_usual(pmu, n, i, cpu, now, wide & hot, quiet,
					    by_counter, raw, &vals[i])) {
			pmu->folds++;
			continue;
		}
		/* Never PMUSCOPE_NO_COUNTER's: its sentinel is never on the hardware. */
		if (by_counter && pmu->hwc[n].on_hw)
			vals[i].count = raw[n];
		pmuscope_pmu_fold_one(pmu, n, i, now, ovs, &vals[i]);
	}
}

/*
 * READ of a ready PMU in one pass: each counter in pmu->hot is read and
 * its value made at once where pmuscope_pmu_fold_usual() can, a 32-bit
 * counter folded by its overflow interrupt taken as having no wrap
 * pending; all others are read (if on the hardware) and left to
 * pmuscope_pmu_fold_one() after PMOVSSET_EL0 has been read. That read,
 * after an ISB, tells whether the values made at once hold: a 32-bit
 * counter read before it has no wrap pending if its overflow flag is
 * clear then (the rule of pmuscope_pmu_raw()). A counter whose flag is
 * set is folded again by pmuscope_pmu_fold_one(), from the value it was
 * read at (recovered from its value: base and offset did not change).
 * What its first value changed of it is mended there: last_hw is set to
 * the same value again, and last, set to a count short of 2^32, to the
 * folded count.
 */
static __always_inline void pmuscope_pmu_read_ready(struct pmuscope_pmu *pmu,
						    const u8 *idx, u32 nr, u64 now,
						    struct pmuscope_value *vals)
{
	const u64 wide = pmuscope_pmu_wide(pmu);
	/* PMOVSSET_EL0 not read yet: taken as clear, checked after. */
	const u64 quiet = pmuscope_pmu_quiet(wide, 0);
	const u64 hot = pmu->hot;
	const u32 cpu = pmu->cpu;
	unsigned long rest = 0;		/* bit i: @vals[i] left to fold_one() */
	u64 read = 0;			/* bit n: counter n read, left to fold_one() */
	u64 made = 0;			/* bit n: counter n's value made at once */
	u64 ovs = 0, redo;
	u32 i, left = 0;		/* bits set in @rest */

	BUILD_BUG_ON(PMUSCOPE_MAX_EVENTS > BITS_PER_LONG);
	BUILD_BUG_ON(PMUSCOPE_NO_COUNTER != PMUSCOPE_NR_COUNTERS);
	for (i = 0; i < nr; i++) {
		unsigned int n = idx[i];

		if (likely(hot & BIT_ULL(n))) {
			vals[i].count = pmuscope_cnt_read(n);
			if (likely(pmuscope_pmu_fold_usual(pmu, n, i, cpu, now, wide, quiet,
							   false, NULL, &vals[i]))) {
				made |= BIT_ULL(n);
				continue;
			}
		} else if (pmu->hwc[n].on_hw) {	/* nor PMUSCOPE_NO_COUNTER's sentinel */
			vals[i].count = pmuscope_cnt_read(n);
		} else {
			goto leave;
		}
		read |= BIT_ULL(n);
leave:
		__set_bit(i, &rest);
		left++;
	}
	/* 64-bit counters: no wrap to fold. */
	read &= ~wide;
	made &= ~wide;
	if (read | made) {
		pmuscope_hw_isb();
		ovs = pmuscope_hw_read(PMUSCOPE_REG_PMOVSSET_EL0);
	}
	/* 32-bit counters made at once with a wrap to fold. */
	redo = ovs & made;
	if (unlikely(redo)) {
		/* The value each was read at, to fold_one(). */
		for (i = 0; i < nr; i++) {
			unsigned int n = idx[i];
			const struct pmuscope_hwc *hwc;

			if (n == PMUSCOPE_NO_COUNTER || !(redo & BIT_ULL(n)))
				continue;
			hwc = &pmu->hwc[n];
			vals[i].count = lower_32_bits(vals[i].count + hwc->offset - hwc->base);
			__set_bit(i, &rest);
			left++;
		}
	}
	/* Made at once (fold_one() counts its own). */
	pmu->folds += nr - left;
	if (unlikely(rest))
		for_each_set_bit(i, &rest, nr)
			pmuscope_pmu_fold_one(pmu, idx[i], i, now, ovs, &vals[i]);
}

void pmuscope_pmu_fold_raw(struct pmuscope_pmu *pmu, const u8 *idx, u32 nr, u64 now,
			   u64 ovs, const u64 *raw, struct pmuscope_value *vals)
{
	pmuscope_pmu_fold(pmu, idx, nr, now, ovs, true, raw, vals);
}

/*
 * READ of one session's counters on this CPU: @idx[i] is the counter of
 * value @vals[i]. First pmuscope_pmu_check(), so that a counter someone
 * else stopped or reset is put back (and flagged) before it is read. With
 * pmu->lock held: on the PMU's CPU, or anywhere while it is offline (then
 * nothing is on the hardware and no register is read).
 */
void pmuscope_pmu_read(struct pmuscope_pmu *pmu, const u8 *idx, u32 nr,
		       u64 now, struct pmuscope_value *vals)
{
	u64 ovs;

	if (pmu->hw_ready) {
		if (unlikely(!pmuscope_hw_counting(pmuscope_pmu_running(pmu))))
			pmuscope_pmu_repair(pmu, now);
		/* pmuscope_pmu_check() may have found the PMU reset. */
		if (likely(pmu->hw_ready)) {
			pmuscope_pmu_read_ready(pmu, idx, nr, now, vals);
			return;
		}
	}
	ovs = pmuscope_pmu_raw(pmu, idx, nr, vals);
	pmuscope_pmu_fold(pmu, idx, nr, now, ovs, false, NULL, vals);
}

void pmuscope_hwc_reset(struct pmuscope_pmu *pmu, unsigned int idx, u64 now)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];

	hwc->offset = hwc->on_hw ? pmuscope_hwc_fold(pmu, idx) : hwc->saved;
	/* What stays true after the reset stays flagged. */
	hwc->flags = hwc->irq_off ? PMUSCOPE_VAL_THROTTLED : 0;
	hwc->t_enabled = 0;
	hwc->t_start = now;
}

void pmuscope_hwc_set_enabled(struct pmuscope_pmu *pmu, unsigned int idx,
			      bool enable, u64 now)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[idx];

	if (hwc->enabled == enable)
		return;
	hwc->enabled = enable;
	if (!pmu->hw_ready)
		return;		/* offline: started when the CPU comes up */
	if (enable)
		pmuscope_hwc_start(pmu, idx, now);
	else
		pmuscope_hwc_stop(pmu, idx, now);
}

/* ------------------------------------------------------- CPU state changes */

/* CPU coming online (or module load): reset the PMU, restart our counters. */
void pmuscope_pmu_cpu_up(struct pmuscope_pmu *pmu)
{
	u64 now = ktime_get_ns();

	/* Nothing on the hardware yet: sampling throttled is just on again. */
	pmuscope_pmu_unthrottle(pmu, true);
	pmuscope_pmu_hw_reset(pmu);
	pmuscope_pmu_hw_start_all(pmu, now);
	pmu->hw_ready = true;
}

/* CPU going offline (or module unload): keep the counts, PMU off. */
void pmuscope_pmu_cpu_down(struct pmuscope_pmu *pmu)
{
	u64 now = ktime_get_ns();

	pmuscope_pmu_hw_stop_all(pmu, now);
	pmuscope_ss_cpu_down(pmu);
	pmuscope_el0_revoke(pmu);
	pmuscope_hw_write(PMUSCOPE_REG_PMCR_EL0, 0);
	pmuscope_hw_write(PMUSCOPE_REG_PMUSERENR_EL0, 0);
	pmuscope_hw_isb();
	pmu->hw_ready = false;
}

/*
 * CPU idle may power the PMU down: save every count before, and restore
 * the programming after. The clocks keep running: the counters were
 * enabled all along, the CPU just had nothing to count.
 */
void pmuscope_pmu_pm_enter(struct pmuscope_pmu *pmu)
{
	unsigned long mask;
	unsigned long idx;
	u64 now;

	if (!pmu->hw_ready)
		return;
	/*
	 * The NMI-safe clock: timekeeping is suspended when the last CPU
	 * enters cpu_pm on system suspend.
	 */
	now = ktime_get_mono_fast_ns();
	mask = pmu->on_hw_mask;
	for_each_set_bit(idx, &mask, PMUSCOPE_NR_COUNTERS)
		pmuscope_hwc_hw_off(pmu, idx, now);
}

void pmuscope_pmu_pm_exit(struct pmuscope_pmu *pmu)
{
	if (!pmu->hw_ready)
		return;
	pmuscope_pmu_hw_reset(pmu);
	/* The NMI-safe clock, as on the way in. */
	pmuscope_pmu_program(pmu, ktime_get_mono_fast_ns(), false);
	pmuscope_el0_restore(pmu);
}

/* The poll timer's work at @now (ktime_get_ns()), for the timer in main. */
void pmuscope_pmu_poll_locked(struct pmuscope_pmu *pmu, u64 now)
{
	pmuscope_pmu_poll(pmu, now);
}

/*
 * Does this CPU need its poll timer? Always while a 32-bit counter runs:
 * in poll mode it is the only way wraps are caught; in interrupt mode it
 * is the backstop for late overflow interrupts (QEMU, for one, raises the
 * flag only when it next samples the counter, which a tickless idle CPU
 * may not do for seconds).
 */
bool pmuscope_pmu_needs_poll(const struct pmuscope_pmu *pmu)
{
	unsigned long mask = pmu->on_hw_mask;
	unsigned long idx;

	if (!mask)
		return false;
	for_each_set_bit(idx, &mask, PMUSCOPE_NR_COUNTERS)
		if (pmuscope_hwc_width(pmu, idx) == 32)
			return true;
	return false;
}
