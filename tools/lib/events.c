// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: the events: names, numbers, aliases and the parser of event
 * specifications (name:modifiers).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "pmuscope_modifiers.h"

/* ------------------------------------------------------------ the events */
struct pmuscope_lib_event {
	uint32_t number;
	const char *name;
	const char *desc;
};

static const struct pmuscope_lib_event pmuscope_lib_events[] = {
#define PMUSCOPE_EVENT(_num, _name, _desc) { _num, #_name, _desc },
#include "pmuscope_event_table.h"
#undef PMUSCOPE_EVENT
};

#define NEVENTS (sizeof(pmuscope_lib_events) / sizeof(pmuscope_lib_events[0]))

/* perf-style aliases; the first alias of an event is its short name. */
static const struct {
	const char *alias;
	uint32_t number;
} pmuscope_aliases[] = {
	{ "cycles", 0x11 },
	{ "cpu-cycles", 0x11 },
	{ "instructions", 0x08 },
	{ "branches", 0x21 },
	{ "branch-instructions", 0x21 },
	{ "branch-misses", 0x10 },
	{ "branch-predicted", 0x12 },
	{ "cache-references", 0x04 },
	{ "L1-dcache-loads", 0x04 },
	{ "cache-misses", 0x03 },
	{ "L1-dcache-load-misses", 0x03 },
	{ "L1-icache-load-misses", 0x01 },
	{ "dTLB-load-misses", 0x05 },
	{ "iTLB-load-misses", 0x02 },
	{ "stalled-cycles-frontend", 0x23 },
	{ "stalled-cycles-backend", 0x24 },
	{ "bus-cycles", 0x1d },
	{ "sw-incr", 0x00 },
};

#define NALIASES (sizeof(pmuscope_aliases) / sizeof(pmuscope_aliases[0]))

/*
 * The events of each core type, from perf's pmu-events JSON
 * (include/pmuscope_core_events.h, scripts/gen-pmu-events.py).
 */
static const struct {
	const char *dir;
	unsigned int first, count;
} pmuscope_cores[] = {
#define PMUSCOPE_CORE(_id, _dir, _first, _count) { _dir, _first, _count },
#include "pmuscope_core_events.h"
#undef PMUSCOPE_CORE
};

#define NCORES ((int)(sizeof(pmuscope_cores) / sizeof(pmuscope_cores[0])))

enum {
#define PMUSCOPE_CORE(_id, _dir, _first, _count) PMUSCOPE_CORE_##_id,
#include "pmuscope_core_events.h"
#undef PMUSCOPE_CORE
};

static const struct {
	uint32_t midr;
	int core;
} pmuscope_core_midrs[] = {
#define PMUSCOPE_CORE_MIDR(_id, _midr) { _midr, PMUSCOPE_CORE_##_id },
#include "pmuscope_core_events.h"
#undef PMUSCOPE_CORE_MIDR
};

static const struct pmuscope_lib_event pmuscope_core_events[] = {
#define PMUSCOPE_CORE_EVENT(_id, _num, _name, _desc, _common) { _num, _name, _desc },
#include "pmuscope_core_events.h"
#undef PMUSCOPE_CORE_EVENT
};

#define NMIDRS (sizeof(pmuscope_core_midrs) / sizeof(pmuscope_core_midrs[0]))

int pmuscope_core_count(void)
{
	return NCORES;
}

int pmuscope_core_of(uint32_t midr)
{
	for (size_t i = 0; i < NMIDRS; i++)
		if ((midr & PMUSCOPE_CORE_MIDR_MASK) == pmuscope_core_midrs[i].midr)
			return pmuscope_core_midrs[i].core;
	return -ENOENT;
}

const char *pmuscope_core_name(int core)
{
	return core >= 0 && core < NCORES ? pmuscope_cores[core].dir : NULL;
}

size_t pmuscope_core_event_count(int core)
{
	return core >= 0 && core < NCORES ? pmuscope_cores[core].count : 0;
}

int pmuscope_core_event_at(int core, size_t i, uint32_t *number, const char **name,
			   const char **desc)
{
	const struct pmuscope_lib_event *e;

	if (core < 0 || core >= NCORES || i >= pmuscope_cores[core].count)
		return -ENOENT;
	e = &pmuscope_core_events[pmuscope_cores[core].first + i];
	*number = e->number;
	*name = e->name;
	*desc = e->desc;
	return 0;
}

int pmuscope_event_is_common(uint32_t number)
{
	return number < 0x40 || (number >= 0x4000 && number < 0x4040);
}

/* The event of @core named @name (any case), or NULL. */
static const struct pmuscope_lib_event *pmuscope_core_lookup(int core, const char *name)
{
	for (unsigned int i = 0; i < pmuscope_cores[core].count; i++) {
		const struct pmuscope_lib_event *e =
			&pmuscope_core_events[pmuscope_cores[core].first + i];

		if (!strcasecmp(e->name, name))
			return e;
	}
	return NULL;
}

/*
 * The core types of the CPUs the driver describes (their sysfs midr), each
 * once, in CPU order: at most @max; returns how many.
 */
static int pmuscope_present_cores(int *cores, int max)
{
	int n = 0;

	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		uint32_t midr;
		int core, ret = pmuscope_cpu_midr(cpu, &midr);

		if (ret == -ENOENT && cpu >= 64)
			break;
		if (ret)
			continue;
		core = pmuscope_core_of(midr);
		if (core < 0)
			continue;
		for (int k = 0; k <= n; k++) {
			if (k == n) {
				if (n < max)
					cores[n++] = core;
				break;
			}
			if (cores[k] == core)
				break;
		}
	}
	return n;
}

size_t pmuscope_event_count(void)
{
	return NEVENTS;
}

int pmuscope_event_at(size_t i, uint32_t *number, const char **name,
		      const char **desc)
{
	if (i >= NEVENTS)
		return -ENOENT;
	*number = pmuscope_lib_events[i].number;
	*name = pmuscope_lib_events[i].name;
	*desc = pmuscope_lib_events[i].desc;
	return 0;
}

const char *pmuscope_event_name(uint32_t number)
{
	for (size_t i = 0; i < NEVENTS; i++)
		if (pmuscope_lib_events[i].number == number)
			return pmuscope_lib_events[i].name;
	return NULL;
}

const char *pmuscope_event_desc(uint32_t number)
{
	for (size_t i = 0; i < NEVENTS; i++)
		if (pmuscope_lib_events[i].number == number)
			return pmuscope_lib_events[i].desc;
	return NULL;
}

const char *pmuscope_alias_of(uint32_t number)
{
	for (size_t i = 0; i < NALIASES; i++)
		if (pmuscope_aliases[i].number == number)
			return pmuscope_aliases[i].alias;
	return NULL;
}

static unsigned int pmuscope_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned int row[64];

	if (lb >= 63)
		lb = 63;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		unsigned int prev = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned int cost = tolower((unsigned char)a[i - 1]) !=
					    tolower((unsigned char)b[j - 1]);
			unsigned int best = prev + cost;

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			prev = row[j];
			row[j] = best;
		}
	}
	return row[lb];
}

static void pmuscope_rank(const char *name, const char *cand, const char **best,
			  unsigned int *dist)
{
	unsigned int d;

	for (int k = 0; k < 3; k++)
		if (best[k] && !strcasecmp(best[k], cand))
			return;		/* a core table repeating a common name */
	d = pmuscope_distance(name, cand);
	for (int k = 0; k < 3; k++) {
		if (d < dist[k]) {
			for (int m = 2; m > k; m--) {
				dist[m] = dist[m - 1];
				best[m] = best[m - 1];
			}
			dist[k] = d;
			best[k] = cand;
			break;
		}
	}
}

/*
 * "did you mean X, Y or Z?" from the three closest names: the common
 * events, the aliases and the events of the @ncores core types present.
 */
static void pmuscope_suggest(const char *name, const int *cores, int ncores,
			     char *buf, size_t len)
{
	const char *best[3] = { NULL, NULL, NULL };
	unsigned int dist[3] = { ~0U, ~0U, ~0U };

	for (size_t i = 0; i < NEVENTS; i++)
		if (pmuscope_lib_events[i].number != 0x1e)	/* CHAIN: not a user event */
			pmuscope_rank(name, pmuscope_lib_events[i].name, best, dist);
	for (size_t i = 0; i < NALIASES; i++)
		pmuscope_rank(name, pmuscope_aliases[i].alias, best, dist);
	for (int c = 0; c < ncores; c++)
		for (unsigned int i = 0; i < pmuscope_cores[cores[c]].count; i++) {
			const struct pmuscope_lib_event *e =
				&pmuscope_core_events[pmuscope_cores[cores[c]].first + i];

			if (e->number != 0x1e)
				pmuscope_rank(name, e->name, best, dist);
		}
	pmuscope_fmt(buf, len, "%s, %s or %s", best[0], best[1], best[2]);
}

static int pmuscope_lookup_name(const char *name, uint32_t *number,
				const char **canon)
{
	for (size_t i = 0; i < NALIASES; i++) {
		if (!strcasecmp(pmuscope_aliases[i].alias, name)) {
			*number = pmuscope_aliases[i].number;
			*canon = pmuscope_event_name(*number);
			return 0;
		}
	}
	for (size_t i = 0; i < NEVENTS; i++) {
		if (!strcasecmp(pmuscope_lib_events[i].name, name)) {
			*number = pmuscope_lib_events[i].number;
			*canon = pmuscope_lib_events[i].name;
			return 0;
		}
	}
	return -ENOENT;
}

static int pmuscope_parse_number(const char *s, int hex_default, uint32_t *out)
{
	char *end;
	unsigned long v;

	/*
	 * Digits only: strtoul() would take spaces and signs. Decimal, or
	 * hexadecimal with 0x (raw events: always): never octal, where 010
	 * would be 8.
	 */
	if (!*s || !isxdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, hex_default || !strncasecmp(s, "0x", 2) ? 16 : 10);
	if (errno || *end || v > 0xffff)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * The event of core tables named @name on the CPUs of @cpus: 0 and *@found
 * when every one of them has it under one number, -ENOENT when none does
 * and no CPU of the machine has it either, else -EINVAL with a message
 * naming the CPUs without it and those with it (the -C to use).
 */
static int pmuscope_core_lookup_cpus(const char *name, const uint64_t *cpus, size_t words,
				     const struct pmuscope_lib_event **found, int *cores,
				     int *ncores, char *err, size_t errlen)
{
	uint64_t lack[PMUSCOPE_CPU_WORDS] = { 0 }, have[PMUSCOPE_CPU_WORDS] = { 0 };
	int found_core = -1, nlack = 0, nhave = 0;

	*found = NULL;
	*ncores = 0;
	if (words > PMUSCOPE_CPU_WORDS)
		words = PMUSCOPE_CPU_WORDS;
	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		int chosen = (size_t)cpu / 64 < words && (cpus[cpu / 64] >> (cpu % 64) & 1);
		const struct pmuscope_lib_event *e = NULL;
		int core = -1, ret;
		uint32_t midr;

		ret = pmuscope_cpu_midr(cpu, &midr);
		if (ret == -ENOENT && cpu >= 64 && !chosen)
			break;
		if (!ret)
			core = pmuscope_core_of(midr);
		if (core >= 0)
			e = pmuscope_core_lookup(core, name);
		if (e) {
			have[cpu / 64] |= 1ULL << (cpu % 64);
			nhave++;
		}
		if (!chosen)
			continue;
		if (core >= 0 && *ncores < 16) {
			int k = 0;

			while (k < *ncores && cores[k] != core)
				k++;
			if (k == *ncores)
				cores[(*ncores)++] = core;
		}
		if (!e) {
			lack[cpu / 64] |= 1ULL << (cpu % 64);
			nlack++;
			continue;
		}
		if (*found && (*found)->number != e->number) {
			pmuscope_fmt(err, errlen,
				     "event '%s' is 0x%x on %s but 0x%x on %s: give a raw number (r0x..) and the CPUs (-C) of one type",
				     name, (*found)->number, pmuscope_cores[found_core].dir,
				     e->number, pmuscope_cores[core].dir);
			return -EINVAL;
		}
		if (!*found) {
			*found = e;
			found_core = core;
		}
	}
	if (!nhave)
		return -ENOENT;
	if (nlack) {
		char lacks[128], haves[128];

		pmuscope_cpulist_format(lack, PMUSCOPE_CPU_WORDS, lacks, sizeof(lacks));
		pmuscope_cpulist_format(have, PMUSCOPE_CPU_WORDS, haves, sizeof(haves));
		pmuscope_fmt(err, errlen,
			     "event '%s' is not an event of the core of CPU%s %s: count it on those of CPU%s %s (-C %s)",
			     name, nlack > 1 ? "s" : "", lacks, nhave > 1 ? "s" : "", haves,
			     haves);
		*found = NULL;
		return -EINVAL;
	}
	return 0;
}

int pmuscope_event_parse(const char *text, struct pmuscope_event_spec *ev,
			 char *err, size_t errlen)
{
	return pmuscope_event_parse_cpus(text, NULL, 0, ev, err, errlen);
}

int pmuscope_event_parse_cpus(const char *text, const uint64_t *cpus, size_t words,
			      struct pmuscope_event_spec *ev, char *err, size_t errlen)
{
	char name[64], suggestions[200];
	const struct pmuscope_lib_event *found = NULL;
	int cores[16], ncores = 0;
	const char *mods = strchr(text, ':');
	size_t nlen = mods ? (size_t)(mods - text) : strlen(text);
	const char *canon = NULL;
	unsigned int kernel_el;

	memset(ev, 0, sizeof(*ev));
	if (!nlen || nlen >= sizeof(name)) {
		pmuscope_fmt(err, errlen, "invalid event '%s'", text);
		return -EINVAL;
	}
	memcpy(name, text, nlen);
	name[nlen] = '\0';

	if (pmuscope_lookup_name(name, &ev->number, &canon) && cpus) {
		int ret = pmuscope_core_lookup_cpus(name, cpus, words, &found, cores, &ncores,
						    err, errlen);

		if (ret == -EINVAL)
			return ret;
	} else if (!canon) {
		int found_core = -1;

		/* not a common name: those of the core types present */
		ncores = pmuscope_present_cores(cores, 16);
		for (int c = 0; c < ncores; c++) {
			const struct pmuscope_lib_event *e = pmuscope_core_lookup(cores[c], name);

			if (!e)
				continue;
			if (found && found->number != e->number) {
				pmuscope_fmt(err, errlen,
					     "event '%s' is 0x%x on %s but 0x%x on %s: give a raw number (r0x..) and the CPUs (-C) of one type",
					     name, found->number, pmuscope_cores[found_core].dir,
					     e->number, pmuscope_cores[cores[c]].dir);
				return -EINVAL;
			}
			if (!found) {
				found = e;
				found_core = cores[c];
			}
		}
	}
	if (canon) {
		snprintf(ev->name, sizeof(ev->name), "%s", canon);
	} else if (found) {
		/* IMPLEMENTATION DEFINED: PMCEID cannot confirm it, as r0x.. */
		ev->number = found->number;
		if (!pmuscope_event_is_common(ev->number))
			ev->flags |= PMUSCOPE_EV_RAW;
		snprintf(ev->name, sizeof(ev->name), "%s", found->name);
	} else if ((name[0] == 'r' || name[0] == 'R') && isxdigit((unsigned char)name[1])) {
		const char *hex = name + 1;

		if (!strncasecmp(hex, "0x", 2))
			hex += 2;
		if (pmuscope_parse_number(hex, 1, &ev->number)) {
			pmuscope_fmt(err, errlen,
				     "invalid raw event '%s': want r<hex>, e.g. r0xc0, at most 0xffff",
				     name);
			return -EINVAL;
		}
		ev->flags |= PMUSCOPE_EV_RAW;
		snprintf(ev->name, sizeof(ev->name), "r0x%x", ev->number);
	} else if (isdigit((unsigned char)name[0])) {
		if (pmuscope_parse_number(name, 0, &ev->number)) {
			pmuscope_fmt(err, errlen, "invalid event number '%s'", name);
			return -EINVAL;
		}
		canon = pmuscope_event_name(ev->number);
		if (!canon) {
			pmuscope_fmt(err, errlen,
				     "event 0x%x is not an Arm common event: give it as raw, r0x%x",
				     ev->number, ev->number);
			return -ENOENT;
		}
		snprintf(ev->name, sizeof(ev->name), "%s", canon);
	} else {
		const char *other = NULL;

		pmuscope_suggest(name, cores, ncores, suggestions, sizeof(suggestions));
		for (int c = 0; c < NCORES && !other; c++)
			if (pmuscope_core_lookup(c, name))
				other = pmuscope_cores[c].dir;
		if (other)
			pmuscope_fmt(err, errlen,
				     "unknown event '%s' (an event of %s, not of this machine's CPUs): did you mean %s?",
				     name, other, suggestions);
		else
			pmuscope_fmt(err, errlen, "unknown event '%s': did you mean %s?",
				     name, suggestions);
		return -ENOENT;
	}
	if (ev->number == 0x1e) {
		pmuscope_fmt(err, errlen,
			     "CHAIN (0x1e) is not a user event: the driver chains counters itself");
		return -EINVAL;
	}
	snprintf(ev->label, sizeof(ev->label), "%.*s", (int)sizeof(ev->label) - 1, name);

	kernel_el = pmuscope_kernel_el();
	if (!mods) {
		ev->flags |= pmuscope_modifiers_default(kernel_el);
		return 0;
	}
	if (!mods[1]) {
		pmuscope_fmt(err, errlen, "empty modifier in '%s'", text);
		return -EINVAL;
	}
	for (const char *m = mods + 1; *m; m++) {
		unsigned int flag = pmuscope_modifier_flag(*m, kernel_el);

		if (!flag) {
			pmuscope_fmt(err, errlen,
				     "unknown modifier '%c' in '%s': use u (EL0), k (kernel, EL%u), h (EL2)",
				     *m, text, kernel_el);
			return -EINVAL;
		}
		ev->flags |= flag;
	}
	return 0;
}

void pmuscope_modifiers_format(uint32_t flags, unsigned int kernel_el, char *buf)
{
	pmuscope_modifiers_str(flags, kernel_el, buf);
}
