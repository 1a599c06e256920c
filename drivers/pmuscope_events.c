// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the Arm common events PMCEID0_EL0/PMCEID1_EL0 can report, from
 * include/pmuscope_event_table.h (shared with libpmuscope), and lookups.
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
