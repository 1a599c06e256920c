// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: validation of events and placement of events on counters.
 * Pure functions of a CPU's capabilities and its free counters.
 */

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/errno.h>

#include "pmuscope.h"
#include "pmuscope_regs.h"

#define PMUSCOPE_EVENT_CHAIN		0x001e
#define PMUSCOPE_EVENT_CPU_CYCLES	0x0011

/*
 * May @ev be counted on a CPU with @caps?
 * -EINVAL: reserved bits, unknown flags, no exception level, CHAIN, a
 * number above 16 bits; -EOPNOTSUPP: not implemented by this CPU (not in
 * PMCEID0/1 unless PMUSCOPE_EV_RAW, or wider than PMUv3's 10-bit evtCount).
 */
int pmuscope_event_check(const struct pmuscope_cpu_caps *caps,
			 const struct pmuscope_event *ev)
{
	if (ev->reserved || (ev->flags & ~(PMUSCOPE_EV_ALL_EL | PMUSCOPE_EV_RAW)))
		return -EINVAL;
	if (!(ev->flags & PMUSCOPE_EV_ALL_EL))
		return -EINVAL;
	if (ev->event > FIELD_MAX(PMUSCOPE_EVTYPER_EVTCOUNT))
		return -EINVAL;
	if (ev->event == PMUSCOPE_EVENT_CHAIN)
		return -EINVAL;		/* chaining is the driver's business */
	if (caps->state[PMUSCOPE_UNIT_PMU] != PMUSCOPE_STATE_PRESENT)
		return -ENODEV;
	if (caps->pmuver < PMUSCOPE_PMUVER_V3P1 &&
	    ev->event > FIELD_MAX(PMUSCOPE_EVTYPER_EVTCOUNT_V3))
		return -EOPNOTSUPP;
	if (ev->flags & PMUSCOPE_EV_RAW)
		return 0;
	return pmuscope_caps_has_event(caps, ev->event) ? 0 : -EOPNOTSUPP;
}

/* Counters a CPU with @caps implements: 0..N-1 and the cycle counter. */
u32 pmuscope_counters_of(const struct pmuscope_cpu_caps *caps)
{
	if (caps->state[PMUSCOPE_UNIT_PMU] != PMUSCOPE_STATE_PRESENT)
		return 0;
	return (u32)GENMASK(caps->num_counters, 0) >> 1 | BIT(PMUSCOPE_CYCLE_IDX);
}

/*
 * Place @nr events on the counters of one CPU. CPU_CYCLES goes to the cycle
 * counter while it is free, everything else to the lowest free event
 * counter. @free: counters available to this request. Fills idx[].
 * -ENOSPC: more events than the CPU has counters at all;
 * -EBUSY: they would fit, but not in the counters free now.
 */
int pmuscope_place_events(const struct pmuscope_cpu_caps *caps, u32 free,
			  const struct pmuscope_sess_event *evs, u32 nr, u8 *idx)
{
	u32 all = pmuscope_counters_of(caps);
	u32 ev_free = free & all & ~BIT(PMUSCOPE_CYCLE_IDX);
	bool cc_free = free & all & BIT(PMUSCOPE_CYCLE_IDX);
	u32 i, cycles = 0;

	for (i = 0; i < nr; i++)
		if (evs[i].event == PMUSCOPE_EVENT_CPU_CYCLES)
			cycles++;
	/* At best one CPU_CYCLES on the cycle counter, the rest on PMEVCNTRs. */
	if (nr - (cycles ? 1 : 0) > caps->num_counters)
		return -ENOSPC;

	for (i = 0; i < nr; i++) {
		if (evs[i].event == PMUSCOPE_EVENT_CPU_CYCLES && cc_free) {
			idx[i] = PMUSCOPE_CYCLE_IDX;
			cc_free = false;
			continue;
		}
		if (!ev_free)
			return -EBUSY;
		idx[i] = __ffs(ev_free);
		ev_free &= ev_free - 1;
	}
	return 0;
}
