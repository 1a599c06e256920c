/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope: the engine's fold of raw counter values into values, inline
 * where it is hot: READ (pmuscope_pmu.c) and the software snapshot
 * (pmuscope_snapshot.c), whose values are made in the caller's own frame.
 * The uncommon cases go out of line to pmuscope_pmu_fold_one().
 */
#ifndef PMUSCOPE_FOLD_H
#define PMUSCOPE_FOLD_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/kernel.h>

#include "pmuscope.h"
#include "pmuscope_regs.h"

void pmuscope_pmu_fold_one(struct pmuscope_pmu *pmu, unsigned int n, u32 i, u64 now,
			   u64 ovs, struct pmuscope_value *val);
void pmuscope_pmu_fold_rest(struct pmuscope_pmu *pmu, const u8 *idx, u32 nr, u32 i, u64 now,
			    u64 ovs, bool by_counter, const u64 *raw,
			    struct pmuscope_value *vals);

/* The 64-bit counters of @pmu: bit n, counter n. */
static __always_inline u64 pmuscope_pmu_wide(const struct pmuscope_pmu *pmu)
{
	return pmu->evcnt_width == 32 ? BIT_ULL(PMUSCOPE_CYCLE_IDX) : U64_MAX;
}

/*
 * The 32-bit counters whose value is made at once, @ovs PMOVSSET_EL0 read
 * after them: no wrap pending, and the overflow interrupt, not a poll,
 * folds their wraps.
 */
static __always_inline u64 pmuscope_pmu_quiet(u64 wide, u64 ovs)
{
	return pmuscope_engine.mode == PMUSCOPE_FOLD_IRQ ? ~ovs & ~wide : 0;
}

/*
 * The fold of counter @n, the @i-th value of its session, in its usual
 * case, made at once: true; else false, nothing done (the rest is
 * pmuscope_pmu_fold_one()'s, out of line). Every fold of a batch starts
 * here: READ's (pmuscope_pmu_read_ready()), the snapshot's and
 * pmuscope_pmu_fold()'s. @wide and @quiet (pmuscope_pmu_wide(),
 * pmuscope_pmu_quiet()) of the counters in pmu->hot (their clock runs,
 * their overflow interrupt is not throttled) are tested first, before
 * the counter's raw value is read (@by_counter, @raw[@n]; else
 * @val->count): PMUSCOPE_NO_COUNTER (bit 32) is in neither, nor read
 * from @raw. Then the value: one below its last fold, @last_hw, wrapped
 * or was rewritten (pmuscope_hwc_fold_from() folds it). On a ready PMU,
 * so never OFFLINE (pmuscope_hwc_value_of()). No
 * PMUSCOPE_VAL_MULTIPLEXED and one clock sum: the engine's clocks
 * advance together (pmuscope_hwc_clock()), so time_running is
 * time_enabled; multiplexing is the perf core's (pmuscope_perf.c).
 * Every load is made before the first store, which
 * the compiler could not otherwise assume. The count is base + hw, with
 * no test against @last: no lower than it, as the counter has not gone
 * below @last_hw and the engine keeps base + last_hw >= last.
 */
static __always_inline bool pmuscope_pmu_fold_usual(struct pmuscope_pmu *pmu, unsigned long n,
						    u32 i, u32 cpu, u64 now, u64 wide,
						    u64 quiet, bool by_counter, const u64 *raw,
						    struct pmuscope_value *val)
{
	struct pmuscope_hwc *hwc = &pmu->hwc[n];
	u64 hw, count, t;

	if (quiet & BIT_ULL(n))
		hw = lower_32_bits(by_counter ? raw[n] : val->count);
	else if (wide & BIT_ULL(n))
		hw = by_counter ? raw[n] : val->count;
	else
		return false;
	/* Gone down with no wrap pending: rewritten (pmuscope_hwc_fold_from()). */
	if (hw < hwc->last_hw)
		return false;
	count = hwc->base + hw;
	t = now - hwc->t_start;
	*val = (struct pmuscope_value){
		.count = count - hwc->offset, .time_enabled = t,
		.time_running = t, .cpu = cpu, .index = i,
		.flags = hwc->flags, .counter = n,
	};
	hwc->last_hw = hw;
	hwc->last = count;
	return true;
}

/*
 * Turn raw values into values: @by_counter, @raw[counter] as a snapshot
 * reads them (on a ready PMU; @raw holds every counter on the hardware of
 * @idx); else @vals[i].count, as pmuscope_pmu_raw() reads them. @ovs:
 * PMOVSSET_EL0 read after them. pmuscope_pmu_fold_usual() where it applies (on
 * a ready PMU, a counter in pmu->hot that has not gone below its last
 * fold and either is 64-bit or is a 32-bit one folded by its overflow
 * interrupt with no wrap pending), pmuscope_pmu_fold_one() for every
 * other counter (out of line, in pmuscope_pmu_fold_rest(), from the first value not in
 * the usual case on).
 */
static __always_inline void pmuscope_pmu_fold(struct pmuscope_pmu *pmu,
					      const u8 *idx, u32 nr, u64 now, u64 ovs,
					      bool by_counter, const u64 *raw,
					      struct pmuscope_value *vals)
{
	/*
	 * What holds for the whole PMU, read once: for the compiler, every
	 * store into @vals could change it.
	 */
	const u64 hot = by_counter || pmu->hw_ready ? pmu->hot : 0;
	const u64 wide = pmuscope_pmu_wide(pmu);
	const u64 quiet = pmuscope_pmu_quiet(wide, ovs) & hot;
	const u32 cpu = pmu->cpu;
	unsigned long i;

	/*
	 * The usual case in a loop of its own, left at the first value that
	 * is not; the rest out of line, so that nothing of it weighs here.
	 */
	for (i = 0; i < nr; i++) {
		if (!pmuscope_pmu_fold_usual(pmu, idx[i], i, cpu, now, wide & hot, quiet,
					     by_counter, raw, vals + i))
			break;
	}
	/* Made at once (fold_one() counts its own). */
	pmu->folds += i;
	if (unlikely(i < nr))
		pmuscope_pmu_fold_rest(pmu, idx, nr, i, now, ovs, by_counter, raw, vals);
}

#endif /* PMUSCOPE_FOLD_H */
