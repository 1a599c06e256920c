// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: the Activity Monitors: reads and the metrics of two reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include "internal.h"

/* ------------------------------------------------------ Activity Monitors */
_Static_assert(sizeof(struct pmuscope_amu_cpu) == 360, "struct pmuscope_amu_cpu is 360 bytes");

#define PMUSCOPE_AMU_CPUS_MAX	4096	/* bytes of the bitmap, at most */

int pmuscope_amu_read(struct pmuscope *h, const uint64_t *cpus, size_t words,
		      struct pmuscope_amu_cpu *recs, size_t room, uint64_t *freq)
{
	struct pmuscope_amu_read rd = {
		.size = sizeof(rd), .record_size = sizeof(struct pmuscope_amu_cpu),
	};
	size_t used = words, ncpus = 0;

	if (!h || (words && !cpus) || (room && !recs))
		return -EINVAL;
	while (used && !cpus[used - 1])
		used--;
	if (!used) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "AMU read: no CPU chosen");
		return -EINVAL;
	}
	for (size_t cpu = 0; cpu < used * 64; cpu++) {
		if (!pmuscope_cpu_set(cpus, used, cpu))
			continue;
		if (h->nr_cpu_ids && cpu >= h->nr_cpu_ids) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "AMU read: cpu%zu does not exist (the kernel's CPUs are below %u)",
				     cpu, h->nr_cpu_ids);
			return -EINVAL;
		}
		ncpus++;
	}
	if (used * sizeof(uint64_t) > PMUSCOPE_AMU_CPUS_MAX) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "AMU read: a CPU bitmap of %zu bytes is above the most, %d",
			     used * sizeof(uint64_t), PMUSCOPE_AMU_CPUS_MAX);
		return -EINVAL;
	}
	if (room > UINT32_MAX)
		room = UINT32_MAX;
	rd.cpus = (uintptr_t)cpus;
	rd.cpus_size = used * sizeof(uint64_t);
	rd.records = (uintptr_t)recs;
	rd.nr_records = room;
	if (ioctl(h->fd, PMUSCOPE_IOC_AMU_READ, &rd)) {
		int ret = -errno;
		struct pmuscope_say_args a = {
			.n = { rd.nr_records, (long long)room, (long long)ncpus },
		};

		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_AMU_READ, ret, 0, &a);
		return ret;
	}
	if (rd.nr_records > room) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "AMU read: the driver returned %u records for %zu places",
			     rd.nr_records, room);
		return -EPROTO;
	}
	if (freq)
		*freq = rd.freq;
	return rd.nr_records;
}

/* Counter @n of group 0 counts in @r: implemented and enabled. */
static int pmuscope_amu_has0(const struct pmuscope_amu_cpu *r, unsigned int n)
{
	return n < r->nr_group0 && n < PMUSCOPE_AMU_GROUP_MAX && ((r->enabled0 >> n) & 1);
}

/*
 * @num x @mul / @den: the exact 128-bit quotient, plus the remainder over
 * @den as a double. @den is not 0.
 */
static double pmuscope_amu_ratio(uint64_t num, uint64_t mul, uint64_t den)
{
	unsigned __int128 p = (unsigned __int128)num * mul;
	unsigned __int128 q = p / den;
	uint64_t r = (uint64_t)(p % den);

	return (double)q + (double)r / (double)den;
}

int pmuscope_amu_metrics(const struct pmuscope_amu_cpu *a, const struct pmuscope_amu_cpu *b,
			 uint64_t freq, struct pmuscope_amu_metrics *m)
{
	/* Numerator and denominator of each metric: group-0 indexes. */
	static const struct {
		int num, den;	/* -1: the time */
		int needs_const;
	} def[PMUSCOPE_AMU_NR_METRICS] = {
		[PMUSCOPE_AMU_M_FREQ] = { PMUSCOPE_AMU_CORE_CYCLES, PMUSCOPE_AMU_CONST_CYCLES, 1 },
		[PMUSCOPE_AMU_M_BUSY] = { PMUSCOPE_AMU_CONST_CYCLES, -1, 1 },
		[PMUSCOPE_AMU_M_IPC] = { PMUSCOPE_AMU_INST_RETIRED, PMUSCOPE_AMU_CORE_CYCLES, 0 },
		[PMUSCOPE_AMU_M_MEM_STALL] = { PMUSCOPE_AMU_MEM_STALL, PMUSCOPE_AMU_CORE_CYCLES, 0 },
	};
	int read_ok, lost, back0 = 0;
	uint32_t both_flags;

	if (!a || !b || !m || a->cpu != b->cpu)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->cpu = b->cpu;
	read_ok = a->state == PMUSCOPE_AMU_READ_OK && b->state == PMUSCOPE_AMU_READ_OK;
	lost = !!(b->flags & PMUSCOPE_AMU_F_LOST);
	both_flags = a->flags | b->flags;
	if (read_ok && b->time >= a->time)
		m->ticks = b->time - a->time;

	for (unsigned int n = 0; n < PMUSCOPE_AMU_GROUP_MAX; n++) {
		if (!read_ok || lost || !pmuscope_amu_has0(a, n) || !pmuscope_amu_has0(b, n))
			continue;
		if (b->group0[n] < a->group0[n]) {
			back0 |= 1U << n;
			continue;
		}
		m->delta0[n] = b->group0[n] - a->group0[n];
		m->valid0 |= 1U << n;
	}
	for (unsigned int n = 0; n < PMUSCOPE_AMU_GROUP_MAX; n++) {
		uint8_t why = PMUSCOPE_AMU_WHY_OK;

		if (!read_ok)
			why = PMUSCOPE_AMU_WHY_NOT_READ;
		else if (lost)
			why = PMUSCOPE_AMU_WHY_LOST;
		else if (n >= a->nr_group1 || n >= b->nr_group1 ||
			 !((a->implemented1 & b->implemented1 & a->enabled1 & b->enabled1) >> n & 1))
			why = PMUSCOPE_AMU_WHY_NO_COUNTER;
		else if (both_flags & PMUSCOPE_AMU_F_AUX_ZERO)
			why = PMUSCOPE_AMU_WHY_AUX_ZERO;
		else if (b->group1[n] < a->group1[n])
			why = PMUSCOPE_AMU_WHY_BACKWARDS;
		m->why1[n] = why;
		if (why)
			continue;
		m->delta1[n] = b->group1[n] - a->group1[n];
		m->valid1 |= 1U << n;
	}

	for (unsigned int i = 0; i < PMUSCOPE_AMU_NR_METRICS; i++) {
		int num = def[i].num, den = def[i].den;
		uint8_t why = PMUSCOPE_AMU_WHY_OK;

		if (!read_ok)
			why = PMUSCOPE_AMU_WHY_NOT_READ;
		else if (lost)
			why = PMUSCOPE_AMU_WHY_LOST;
		else if (!pmuscope_amu_has0(a, num) || !pmuscope_amu_has0(b, num) ||
			 (den >= 0 && (!pmuscope_amu_has0(a, den) || !pmuscope_amu_has0(b, den))))
			why = PMUSCOPE_AMU_WHY_NO_COUNTER;
		else if (def[i].needs_const && (both_flags & PMUSCOPE_AMU_F_CONST_BROKEN))
			why = PMUSCOPE_AMU_WHY_CONST_BROKEN;
		else if ((back0 >> num & 1) || (den >= 0 && (back0 >> den & 1)) ||
			 (den < 0 && b->time < a->time))
			why = PMUSCOPE_AMU_WHY_BACKWARDS;
		m->value[i] = NAN;
		if (!why) {
			uint64_t dnum = m->delta0[num];
			uint64_t dden = den >= 0 ? m->delta0[den] : m->ticks;

			if (!dden || (i == PMUSCOPE_AMU_M_FREQ && !freq))
				why = PMUSCOPE_AMU_WHY_ZERO;
			else
				m->value[i] = pmuscope_amu_ratio(dnum, i == PMUSCOPE_AMU_M_FREQ ?
								 freq : 1, dden);
		}
		m->why[i] = why;
		if (!why)
			m->valid |= 1U << i;
	}
	return 0;
}

const char *pmuscope_amu_why_str(unsigned int why)
{
	static const char * const names[] = {
		[PMUSCOPE_AMU_WHY_OK] = "",
		[PMUSCOPE_AMU_WHY_NOT_READ] = "not read",
		[PMUSCOPE_AMU_WHY_LOST] = "lost",
		[PMUSCOPE_AMU_WHY_BACKWARDS] = "went backwards",
		[PMUSCOPE_AMU_WHY_NO_COUNTER] = "counter absent or disabled",
		[PMUSCOPE_AMU_WHY_CONST_BROKEN] = "constant counter broken",
		[PMUSCOPE_AMU_WHY_AUX_ZERO] = "group 1 reads zero",
		[PMUSCOPE_AMU_WHY_ZERO] = "nothing to divide by",
	};

	return why < sizeof(names) / sizeof(names[0]) ? names[why] : "unknown";
}

const char *pmuscope_amu_state_name(uint32_t state)
{
	switch (state) {
	case PMUSCOPE_AMU_READ_OK:
		return "ok";
	case PMUSCOPE_AMU_ABSENT:
		return "absent";
	case PMUSCOPE_AMU_DISABLED:
		return "disabled";
	case PMUSCOPE_AMU_OFFLINE:
		return "offline";
	default:
		return "unknown";
	}
}

void pmuscope_amu_flags_str(uint32_t flags, char *buf, size_t len)
{
	static const struct pmuscope_flag_name names[] = {
		{ PMUSCOPE_AMU_F_LOST, "lost" },
		{ PMUSCOPE_AMU_F_CONST_BROKEN, "const_broken" },
		{ PMUSCOPE_AMU_F_AUX_ZERO, "aux_zero" },
	};

	pmuscope_flag_names_str(flags, names, sizeof(names) / sizeof(names[0]), buf, len);
}

const char *pmuscope_amu_event_name(uint16_t type, char *buf, size_t len)
{
	const char *name = pmuscope_event_name(type);

	if (name)
		return name;
	pmuscope_fmt(buf, len, "0x%04x", type);
	return buf;
}
