// SPDX-License-Identifier: GPL-2.0
/*
 * Example for libpmuscope: count events on this CPU around a piece of work.
 *
 *   count-events [EVENT...]       default: cycles instructions:u
 *
 * Build: cc -I<pmuscope>/include/uapi -I<pmuscope>/include -I<pmuscope>/tools/lib \
 *           count-events.c libpmuscope.a
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmuscope.h"

static void work(void)
{
	volatile unsigned long sum = 0;

	for (unsigned long i = 0; i < 10000000; i++)
		sum += i;
}

int main(int argc, char **argv)
{
	const char *defaults[] = { "cycles", "instructions:u" };
	struct pmuscope_event_spec evs[PMUSCOPE_MAX_EVENTS];
	uint64_t cpus[PMUSCOPE_CPU_WORDS] = { 0 };
	struct pmuscope_count vals[PMUSCOPE_MAX_EVENTS];
	unsigned int nr = 0, nv;
	struct pmuscope *h;
	char err[512];
	int cpu = sched_getcpu();
	cpu_set_t set;

	/* Stay on one CPU: pmuscope counts per CPU, system-wide. */
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	cpus[cpu / 64] |= 1ULL << (cpu % 64);

	for (int i = 1; i < argc || (argc == 1 && i <= 2); i++) {
		const char *spec = argc > 1 ? argv[i] : defaults[i - 1];

		if (nr == PMUSCOPE_MAX_EVENTS) {
			fprintf(stderr, "count-events: at most %d events\n", PMUSCOPE_MAX_EVENTS);
			return 2;
		}
		if (pmuscope_event_parse(spec, &evs[nr++], err, sizeof(err))) {
			fprintf(stderr, "count-events: %s\n", err);
			return 2;
		}
	}
	if (pmuscope_open(&h, err, sizeof(err))) {
		fprintf(stderr, "count-events: %s\n", err);
		return 1;
	}
	if (pmuscope_configure(h, evs, nr, cpus, PMUSCOPE_CPU_WORDS) ||
	    pmuscope_enable(h)) {
		fprintf(stderr, "count-events: %s\n", pmuscope_errmsg(h));
		pmuscope_close(h);
		return 1;
	}
	work();
	pmuscope_disable(h);
	if (pmuscope_read(h, vals, PMUSCOPE_MAX_EVENTS, &nv)) {
		fprintf(stderr, "count-events: %s\n", pmuscope_errmsg(h));
		pmuscope_close(h);
		return 1;
	}
	for (unsigned int i = 0; i < nv; i++)
		printf("cpu%u %-20s %llu\n", vals[i].cpu, evs[vals[i].index].name,
		       (unsigned long long)vals[i].scaled);
	pmuscope_close(h);
	return 0;
}
