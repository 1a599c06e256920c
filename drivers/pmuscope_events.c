// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the Arm common events PMCEID0_EL0/PMCEID1_EL0 can report, from
 * include/pmuscope_event_table.h (shared with libpmuscope), the names of
 * each core type's other events, from include/pmuscope_core_events.h
 * (perf's pmu-events JSON, scripts/gen-pmu-events.py), and lookups.
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "pmuscope.h"

/* ------------------------------------------------------------- event table */
const struct pmuscope_event_desc pmuscope_events[] = {
#define PMUSCOPE_EVENT(_num, _name, _desc) { _num, #_name, _desc },
#include "pmuscope_event_table.h"
#undef PMUSCOPE_EVENT
};

const unsigned int pmuscope_nr_events = ARRAY_SIZE(pmuscope_events);

/* ------------------------------------------------------- core event tables */

/* The core types, in the order of the header. */
enum {
#define PMUSCOPE_CORE(_id, ...) PMUSCOPE_CORE_##_id,
#include "pmuscope_core_events.h"
#undef PMUSCOPE_CORE
	PMUSCOPE_NR_CORES
};

static const struct {
	u32 midr;
	u16 core;
} pmuscope_core_midrs[] = {
#define PMUSCOPE_CORE_MIDR(_id, _midr) { _midr, PMUSCOPE_CORE_##_id },
#include "pmuscope_core_events.h"
#undef PMUSCOPE_CORE_MIDR
};

/*
 * Only the events pmuscope_events[] does not name (IMPLEMENTATION DEFINED,
 * recommended, a common number under a core's own name): those it names
 * are its own. Names and numbers,
 * no descriptions: 1736 entries of 16 bytes, the names' strings shared.
 */
#define PMUSCOPE_CORE_KEEP_0(_id, _num, _name, ...) { _name, _num, PMUSCOPE_CORE_##_id },
#define PMUSCOPE_CORE_KEEP_1(...)

static const struct pmuscope_core_event pmuscope_core_events[] = {
#define PMUSCOPE_CORE_EVENT(_id, _num, _name, _desc, _common) \
	PMUSCOPE_CORE_KEEP_##_common(_id, _num, _name, _desc)
#include "pmuscope_core_events.h"
#undef PMUSCOPE_CORE_EVENT
};

/*
 * The core type of a CPU of MIDR_EL1 @midr, compared without its variant
 * and revision as perf does, or -ENOENT.
 */
int pmuscope_core_of(u64 midr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pmuscope_core_midrs); i++)
		if ((midr & PMUSCOPE_CORE_MIDR_MASK) == pmuscope_core_midrs[i].midr)
			return pmuscope_core_midrs[i].core;
	return -ENOENT;
}

/*
 * The IMPLEMENTATION DEFINED or recommended event named @name (any case)
 * of the core type of MIDR_EL1 @midr, or NULL.
 */
const struct pmuscope_core_event *pmuscope_core_event_by_name(u64 midr, const char *name)
{
	int core = pmuscope_core_of(midr);
	unsigned int i;

	if (core < 0)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(pmuscope_core_events); i++)
		if (pmuscope_core_events[i].core == core &&
		    !strcasecmp(pmuscope_core_events[i].name, name))
			return &pmuscope_core_events[i];
	return NULL;
}

/* ----------------------------------------------------------------- helpers */

/*
 * Position of a common event in the 128-bit PMCEID bitmap:
 * 0x0000-0x003F -> 0-63, 0x4000-0x403F -> 64-127, anything else -> -1.
 */
int pmuscope_event_slot(u32 number)
{
	if (number < 0x40)
		return number;
	if (number >= 0x4000 && number < 0x4040)
		return number - 0x4000 + 64;
	return -1;
}

const struct pmuscope_event_desc *pmuscope_event_by_number(u32 number)
{
	unsigned int i;

	for (i = 0; i < pmuscope_nr_events; i++)
		if (pmuscope_events[i].number == number)
			return &pmuscope_events[i];
	return NULL;
}

const struct pmuscope_event_desc *pmuscope_event_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < pmuscope_nr_events; i++)
		if (!strcasecmp(pmuscope_events[i].name, name))
			return &pmuscope_events[i];
	return NULL;
}
