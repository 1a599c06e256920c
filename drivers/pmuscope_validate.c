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
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/string.h>

#include "pmuscope.h"
#include "pmuscope_kunit_export.h"
#include "pmuscope_modifiers.h"
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
EXPORT_SYMBOL_IF_KUNIT(pmuscope_event_check);

/* Counters a CPU with @caps implements: 0..N-1 and the cycle counter. */
u32 pmuscope_counters_of(const struct pmuscope_cpu_caps *caps)
{
	if (caps->state[PMUSCOPE_UNIT_PMU] != PMUSCOPE_STATE_PRESENT)
		return 0;
	return (u32)GENMASK(caps->num_counters, 0) >> 1 | BIT(PMUSCOPE_CYCLE_IDX);
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_counters_of);

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
EXPORT_SYMBOL_IF_KUNIT(pmuscope_place_events);

/* ------------------------------------------------------- ioctl arguments */

/* The ABI's sizes: a change here is a new version of the API. */
static_assert(sizeof(struct pmuscope_handshake) == 56);
static_assert(sizeof(struct pmuscope_event) == 16);
static_assert(sizeof(struct pmuscope_config) == 48);
static_assert(sizeof(struct pmuscope_value) == 40);
static_assert(sizeof(struct pmuscope_read) == 40);
static_assert(sizeof(struct pmuscope_amu_cpu) == 360);
static_assert(sizeof(struct pmuscope_amu_read) == 64);
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
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_size);

/*
 * A sysfs boolean (enable, reset): exactly "0" or "1", with or without the
 * newline echo adds. kstrtobool() would also take "1x", "yes", "on" and
 * read "0x1" as 0; the ABI promises 0 and 1 only.
 */
int pmuscope_parse_01(const char *buf, size_t count, bool *val)
{
	if (count == 2 && buf[1] == '\n')
		count = 1;
	if (count != 1 || (buf[0] != '0' && buf[0] != '1'))
		return -EINVAL;
	*val = buf[0] == '1';
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_parse_01);

/* HANDSHAKE: every output field and reserved word must come in as zero. */
int pmuscope_check_handshake(const struct pmuscope_handshake *hs)
{
	if (hs->api_version || hs->features || hs->nr_cpu_ids || hs->max_events ||
	    !pmuscope_zero(hs->reserved, ARRAY_SIZE(hs->reserved)))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_handshake);

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
		/* SWINC at EL0 comes with EL0 reads; the thread's own, not its children's. */
		if ((cfg->flags & PMUSCOPE_CFG_USER_SWINC) &&
		    !(cfg->flags & PMUSCOPE_CFG_USER_READ))
			return -EINVAL;
		if ((cfg->flags & PMUSCOPE_CFG_USER_READ) &&
		    (cfg->flags & (PMUSCOPE_CFG_INHERIT | PMUSCOPE_CFG_ENABLE_ON_EXEC)))
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
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_config);

/*
 * EL0 access (PMUSCOPE_CFG_USER_READ) is granted only while every event
 * of the session counts: each needs a counter of its own at once on a
 * CPU of @nr_counters event counters (one CPU_CYCLES may take the cycle
 * counter). -ENOSPC otherwise: perf would multiplex them.
 */
int pmuscope_check_el0_fit(u32 nr_counters, const struct pmuscope_event *evs, u32 nr)
{
	bool cycles = false;
	u32 i;

	for (i = 0; i < nr; i++)
		cycles |= evs[i].event == 0x11;
	return nr - cycles > nr_counters ? -ENOSPC : 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_el0_fit);

int pmuscope_check_amu_read(const struct pmuscope_amu_read *ar)
{
	if (ar->flags || ar->reserved0 || ar->freq ||
	    !pmuscope_zero(ar->reserved, ARRAY_SIZE(ar->reserved)))
		return -EINVAL;
	if (!ar->cpus_size || ar->cpus_size % 8 ||
	    ar->cpus_size > PMUSCOPE_CPUS_SIZE_MAX)
		return -EINVAL;
	if (!ar->record_size)
		return 0;
	if (ar->record_size < sizeof(struct pmuscope_amu_cpu) || ar->record_size % 8)
		return -EINVAL;
	return ar->record_size > PMUSCOPE_AMU_RECORD_SIZE_MAX ? -E2BIG : 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_amu_read);

#define PMUSCOPE_SPE_FLAGS_ALL	(PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1 | PMUSCOPE_SPE_TS | \
				 PMUSCOPE_SPE_PA | PMUSCOPE_SPE_CX | PMUSCOPE_SPE_PCT | \
				 PMUSCOPE_SPE_JITTER | PMUSCOPE_SPE_DISCARD)
#define PMUSCOPE_SPE_OPS_ALL	(PMUSCOPE_SPE_OP_BRANCH | PMUSCOPE_SPE_OP_LOAD | \
				 PMUSCOPE_SPE_OP_STORE)

/* Checks of SPE_START that need no CPU (Documentation/ioctl.rst). */
int pmuscope_check_spe_config(const struct pmuscope_spe_config *c)
{
	u32 buf = c->buffer_kib ?: PMUSCOPE_SPE_KIB_DEFAULT;
	u32 hw = c->hw_kib ?: PMUSCOPE_SPE_HW_KIB_DEFAULT;

	if ((c->flags & ~PMUSCOPE_SPE_FLAGS_ALL) || (c->ops & ~PMUSCOPE_SPE_OPS_ALL) ||
	    !pmuscope_zero(c->reserved, ARRAY_SIZE(c->reserved)))
		return -EINVAL;
	if (!(c->flags & (PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1)))
		return -EINVAL;
	if ((c->flags & PMUSCOPE_SPE_PCT) && !(c->flags & PMUSCOPE_SPE_TS))
		return -EINVAL;
	if (!c->cpus || !c->cpus_size || c->cpus_size % 8 ||
	    c->cpus_size > PMUSCOPE_CPUS_SIZE_MAX)
		return -EINVAL;
	if (c->interval & 0xff || c->interval > PMUSCOPE_SPE_INTERVAL_MAX)
		return -EINVAL;
	if (c->min_latency > FIELD_MAX(PMUSCOPE_PMSLATFR_MINLAT))
		return -EINVAL;
	if (!is_power_of_2(buf) || buf < PMUSCOPE_SPE_KIB_MIN || buf > PMUSCOPE_SPE_KIB_MAX)
		return -EINVAL;
	if (!is_power_of_2(hw) || hw < PMUSCOPE_SPE_HW_KIB_MIN ||
	    hw > PMUSCOPE_SPE_HW_KIB_MAX || hw > buf / 2)
		return -EINVAL;
	if (c->wakeup_kib > buf)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_spe_config);

int pmuscope_check_spe_status(const struct pmuscope_spe_status *st)
{
	if (st->flags || st->freq || !pmuscope_zero(st->reserved, ARRAY_SIZE(st->reserved)))
		return -EINVAL;
	if (!st->record_size)
		return 0;
	if (st->record_size < sizeof(struct pmuscope_spe_cpu) || st->record_size % 8)
		return -EINVAL;
	return st->record_size > PMUSCOPE_AMU_RECORD_SIZE_MAX ? -E2BIG : 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_spe_status);

int pmuscope_check_read(const struct pmuscope_read *rd)
{
	if (rd->flags || !pmuscope_zero(rd->reserved, ARRAY_SIZE(rd->reserved)))
		return -EINVAL;
	return pmuscope_check_elem_size(rd->value_size, sizeof(struct pmuscope_value));
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_read);

int pmuscope_check_snapshot(const struct pmuscope_snapshot *sn)
{
	int ret;

	if (sn->flags & ~PMUSCOPE_SNAP_F_ALL ||
	    (sn->flags & PMUSCOPE_SNAP_F_ALL) == PMUSCOPE_SNAP_F_ALL ||
	    sn->reserved0 || sn->freq || sn->skew ||
	    !pmuscope_zero(sn->reserved, ARRAY_SIZE(sn->reserved)) ||
	    sn->lead_us > PMUSCOPE_SNAP_LEAD_US_MAX)
		return -EINVAL;
	ret = pmuscope_check_elem_size(sn->value_size, sizeof(struct pmuscope_value));
	if (ret)
		return ret;
	return pmuscope_check_elem_size(sn->cpu_size, sizeof(struct pmuscope_snap_cpu));
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_snapshot);

int pmuscope_check_stream(const struct pmuscope_stream *st)
{
	bool sampling = st->sample_index != PMUSCOPE_STREAM_NO_EVENT;

	if (st->flags & ~PMUSCOPE_STREAM_F_CALLCHAIN || st->reserved0 || st->reserved1 ||
	    st->reserved2)
		return -EINVAL;
	/* A depth is for call chains, and perf's most. */
	if (st->max_stack > PMUSCOPE_STACK_MAX ||
	    (st->max_stack && !(st->flags & PMUSCOPE_STREAM_F_CALLCHAIN)))
		return -EINVAL;
	if (st->wakeup_kib > PMUSCOPE_STREAM_KIB_MAX / 2)
		return -EINVAL;
	if (st->period_ms > PMUSCOPE_STREAM_MS_MAX)
		return -EINVAL;
	if (sampling && (st->sample_index >= PMUSCOPE_MAX_EVENTS ||
			 st->sample_period < PMUSCOPE_STREAM_PERIOD_MIN ||
			 st->sample_period > PMUSCOPE_STREAM_PERIOD_MAX))
		return -EINVAL;
	if (!sampling && st->sample_period)
		return -EINVAL;
	if (st->ring_kib && (!is_power_of_2(st->ring_kib) ||
			     st->ring_kib < PMUSCOPE_STREAM_KIB_MIN ||
			     st->ring_kib > PMUSCOPE_STREAM_KIB_MAX))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_stream);

int pmuscope_check_swinc(const struct pmuscope_swinc *sw)
{
	if (sw->flags || !pmuscope_zero(sw->reserved, ARRAY_SIZE(sw->reserved)))
		return -EINVAL;
	if (!sw->count || sw->count > PMUSCOPE_SWINC_MAX || !sw->event_mask)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_swinc);

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
EXPORT_SYMBOL_IF_KUNIT(pmuscope_check_cpu);

/*
 * What counting @evs (@nr of them) asks of the system's perf policy
 * beyond the session's kind: PMUSCOPE_POL_KERNEL when one counts at EL1 or
 * EL2 (what the kernel or a hypervisor executes), as perf's exclude_kernel
 * and exclude_hv left 0.
 */
unsigned int pmuscope_policy_events(const struct pmuscope_event *evs, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		if (evs[i].flags & (PMUSCOPE_EV_EL1 | PMUSCOPE_EV_EL2))
			return PMUSCOPE_POL_KERNEL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_policy_events);

/* ------------------------------------------------------- sysfs selection */

/*
 * Parse one "NAME[:MODS]" of a selection: NAME is an architectural event
 * name (any case), the name of an IMPLEMENTATION DEFINED or recommended
 * event of the core type of MIDR_EL1 @midr (taken as its raw number), a
 * number (0x11) or a raw number (r0xc0); MODS any of u (EL0), k (the
 * kernel's EL, @kernel_el), h (EL2), default "uk" (pmuscope_modifiers.h).
 * -ENOENT: no such name; -EINVAL: bad modifiers.
 */
int pmuscope_parse_event(char *tok, unsigned int kernel_el, u64 midr,
			 struct pmuscope_event *ev)
{
	const struct pmuscope_event_desc *desc;
	const struct pmuscope_core_event *cev;
	char *mods = strchr(tok, ':');
	unsigned int num;

	memset(ev, 0, sizeof(*ev));
	if (mods)
		*mods++ = '\0';
	desc = pmuscope_event_by_name(tok);
	cev = desc ? NULL : pmuscope_core_event_by_name(midr, tok);
	if (desc) {
		ev->event = desc->number;
	} else if (cev) {
		ev->event = cev->number;
		ev->flags |= PMUSCOPE_EV_RAW;
	} else if ((tok[0] == 'r' || tok[0] == 'R') && !kstrtouint(tok + 1, 0, &num)) {
		ev->event = num;
		ev->flags |= PMUSCOPE_EV_RAW;
	} else if (!kstrtouint(tok, 0, &num)) {
		ev->event = num;
	} else {
		return -ENOENT;
	}
	if (!mods) {
		ev->flags |= pmuscope_modifiers_default(kernel_el);
		return 0;
	}
	if (!*mods)
		return -EINVAL;		/* "NAME:" */
	for (; *mods; mods++) {
		unsigned int flag = pmuscope_modifier_flag(*mods, kernel_el);

		if (!flag)
			return -EINVAL;
		ev->flags |= flag;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_parse_event);

/*
 * Parse a whole selection, items separated by commas or blanks, into
 * @evs (room for PMUSCOPE_MAX_EVENTS); *@nr: how many. @str is changed.
 * @midr: the CPU's MIDR_EL1, whose core type's names are taken too.
 * -E2BIG: more than PMUSCOPE_MAX_EVENTS items.
 */
int pmuscope_parse_selection(char *str, unsigned int kernel_el, u64 midr,
			     struct pmuscope_event *evs, u32 *nr)
{
	char *cur = strim(str), *tok;
	int ret;

	*nr = 0;
	while ((tok = strsep(&cur, ", \t\n"))) {
		if (!*tok)
			continue;
		if (*nr == PMUSCOPE_MAX_EVENTS)
			return -E2BIG;
		ret = pmuscope_parse_event(tok, kernel_el, midr, &evs[(*nr)++]);
		if (ret)
			return ret;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_parse_selection);

/* One event as a selection shows it, "NAME:MODS"; returns its length. */
int pmuscope_format_event(u32 event, u32 flags, unsigned int kernel_el,
			  char *buf, size_t len)
{
	const struct pmuscope_event_desc *desc = pmuscope_event_by_number(event);
	char mods[5];

	pmuscope_modifiers_str(flags, kernel_el, mods);
	if (desc && !(flags & PMUSCOPE_EV_RAW))
		return scnprintf(buf, len, "%s:%s", desc->name, mods);
	return scnprintf(buf, len, "%s0x%x:%s", flags & PMUSCOPE_EV_RAW ? "r" : "",
			 event, mods);
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_format_event);

/* A selection, comma-separated, no newline; returns its length. */
int pmuscope_format_selection(const struct pmuscope_sess_event *evs, u32 nr,
			      unsigned int kernel_el, char *buf, size_t len)
{
	int n = 0;
	u32 i;

	for (i = 0; i < nr; i++) {
		if (i)
			n += scnprintf(buf + n, len - n, ",");
		n += pmuscope_format_event(evs[i].event, evs[i].flags, kernel_el,
					   buf + n, len - n);
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_format_selection);
