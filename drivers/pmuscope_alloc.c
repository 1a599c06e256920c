// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: validation of ioctl arguments and events, and placement of
 * events on counters. Pure functions of their arguments (and, for the
 * permission check, of the caller's credentials), tested table by table.
 */

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/capability.h>
#include <linux/cred.h>
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

/* ------------------------------------------------------- ioctl arguments */

/* The ABI's sizes: a change here is a new version of the API. */
static_assert(sizeof(struct pmuscope_handshake) == 56);
static_assert(sizeof(struct pmuscope_event) == 16);
static_assert(sizeof(struct pmuscope_config) == 48);
static_assert(sizeof(struct pmuscope_value) == 40);
static_assert(sizeof(struct pmuscope_read) == 40);
static_assert(sizeof(struct pmuscope_swinc) == 40);
static bool pmuscope_zero(const u64 *words, size_t n)
{
	while (n--)
		if (*words++)
			return false;
	return true;
}

/*
 * Every argument: its size field may not be below version 1's size, nor
 * above a page (as clone3() and perf_event_open() bound theirs): no later
 * version will be that large, and copy_struct_from_user() would check
 * every byte beyond ours for zero.
 */
int pmuscope_check_size(u32 usize, size_t min)
{
	if (usize < min)
		return -EINVAL;
	return usize > PAGE_SIZE ? -E2BIG : 0;
}

/* HANDSHAKE: every output field and reserved word must come in as zero. */
int pmuscope_check_handshake(const struct pmuscope_handshake *hs)
{
	if (hs->api_version || hs->features || hs->nr_cpu_ids || hs->max_events ||
	    !pmuscope_zero(hs->reserved, ARRAY_SIZE(hs->reserved)))
		return -EINVAL;
	return 0;
}

/*
 * An element size of an array argument (version 2): 0 means version 1's
 * @v1; else at least @v1, a multiple of 8, at most PMUSCOPE_ELEM_SIZE_MAX.
 */
static int pmuscope_check_elem_size(u32 size, size_t v1)
{
	if (!size)
		return 0;
	if (size < v1 || size % 8)
		return -EINVAL;
	return size > PMUSCOPE_ELEM_SIZE_MAX ? -E2BIG : 0;
}

int pmuscope_check_config(const struct pmuscope_config *cfg)
{
	int ret;

	if ((cfg->flags & ~PMUSCOPE_CFG_ALL) || cfg->reserved0 ||
	    cfg->target > PMUSCOPE_TARGET_TASK)
		return -EINVAL;
	if (!cfg->nr_events || cfg->nr_events > PMUSCOPE_MAX_EVENTS)
		return -EINVAL;
	ret = pmuscope_check_elem_size(cfg->event_size, sizeof(struct pmuscope_event));
	if (ret)
		return ret;
	if (cfg->target == PMUSCOPE_TARGET_TASK) {
		/* A task: no CPU bitmap; pid 0 or a thread id. */
		if (cfg->cpus || cfg->cpus_size || cfg->pid < 0)
			return -EINVAL;
		return 0;
	}
	/* CPUs: no pid, no task flags. */
	if (cfg->pid || cfg->flags)
		return -EINVAL;
	if (!cfg->cpus_size || cfg->cpus_size % 8 ||
	    cfg->cpus_size > PMUSCOPE_CPUS_SIZE_MAX)
		return -EINVAL;
	return 0;
}

int pmuscope_check_read(const struct pmuscope_read *rd)
{
	if (rd->flags || !pmuscope_zero(rd->reserved, ARRAY_SIZE(rd->reserved)))
		return -EINVAL;
	return pmuscope_check_elem_size(rd->value_size, sizeof(struct pmuscope_value));
}

int pmuscope_check_swinc(const struct pmuscope_swinc *sw)
{
	if (sw->flags || !pmuscope_zero(sw->reserved, ARRAY_SIZE(sw->reserved)))
		return -EINVAL;
	if (!sw->count || sw->count > PMUSCOPE_SWINC_MAX || !sw->event_mask)
		return -EINVAL;
	return 0;
}

/*
 * A CPU named in a configuration: -ENODEV if the system cannot have it or
 * it has no usable PMU, -ENXIO while it is offline (or not yet probed).
 */
int pmuscope_check_cpu(bool possible, bool online,
		       const struct pmuscope_cpu_caps *caps)
{
	if (!possible)
		return -ENODEV;
	if (!online || !caps)
		return -ENXIO;
	if (caps->state[PMUSCOPE_UNIT_PMU] != PMUSCOPE_STATE_PRESENT)
		return -ENODEV;
	return 0;
}

/* System-wide counting: CAP_PERFMON (or CAP_SYS_ADMIN), or @group. */
bool pmuscope_may_count(kgid_t group)
{
	if (perfmon_capable())
		return true;
	return gid_valid(group) && in_group_p(group);
}
