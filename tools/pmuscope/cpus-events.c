// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: the CPUs and events a command counts (-e, -C, -a) and
 * the default events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpus-events.h"
#include "exit-codes.h"

const char * const default_events[] = {
	"cycles", "instructions", "L1D_CACHE_REFILL", "L1D_CACHE",
	"BR_MIS_PRED", "STALL_FRONTEND", "STALL_BACKEND",
};
const size_t nr_default_events = sizeof(default_events) / sizeof(default_events[0]);

/*
 * -e EVENTS, -C CPUS and -a, as stat, snapshot and record take them: 1
 * taken, 0 not one of them, -1 bad (said on stderr).
 */
int common_opt(int opt, char *arg, struct stat_opts *o)
{
	char err[160];

	switch (opt) {
	case 'e':
		return add_events(o, arg) ? -1 : 1;
	case 'C':
		if (pmuscope_cpulist_parse(arg, o->cpus, PMUSCOPE_CPU_WORDS, err, sizeof(err))) {
			fprintf(stderr, "pmuscope: %s\n", err);
			return -1;
		}
		o->cpus_given = 1;
		return 1;
	case 'a':
		o->all_cpus = 1;
		return 1;
	default:
		return 0;
	}
}

/*
 * The CPUs (every online one without -C) and the events (@defaults, those
 * implemented, without -e) of stat, snapshot and record: 0, or an exit
 * code (said on stderr).
 */
int choose_cpus_events(struct stat_opts *o, const char *const *defaults, size_t n)
{
	if (!o->cpus_given && pmuscope_online_cpus(o->cpus, PMUSCOPE_CPU_WORDS)) {
		fprintf(stderr, "pmuscope: %s not found: is the pmuscope module loaded? (insmod pmuscope.ko)\n",
			pmuscope_sysfs_root());
		return EXIT_DRIVER;
	}
	if (o->cpus_given && check_cpus(o))
		return 1;
	/* -e may come before -C: a core table's name, on the chosen CPUs' cores */
	for (unsigned int i = 0; i < o->nr; i++) {
		char err[256];

		if (!o->evtext[i][0])
			continue;
		if (pmuscope_event_parse_cpus(o->evtext[i], o->cpus, PMUSCOPE_CPU_WORDS,
					      &o->evs[i], err, sizeof(err))) {
			fprintf(stderr, "pmuscope: %s\n", err);
			return EXIT_USAGE;
		}
	}
	if (!o->nr)
		default_set(o, defaults, n);
	if (!o->nr) {
		fprintf(stderr, "pmuscope: none of the default events is implemented on these CPUs (pmuscope list)\n");
		return EXIT_UNSUPPORTED;
	}
	return 0;
}

/*
 * -e's list, cut up in a copy: @list is the argv string itself, which
 * record saves in its file as given (and ps shows).
 */
int add_events(struct stat_opts *o, const char *list)
{
	char err[256], *save = NULL, *copy = strdup(list);
	int added = 0, ret = 0;

	if (!copy) {
		perror("pmuscope");
		return -ENOMEM;
	}
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nr == PMUSCOPE_MAX_EVENTS) {
			fprintf(stderr, "pmuscope: at most %d events\n", PMUSCOPE_MAX_EVENTS);
			ret = -EINVAL;
			goto out;
		}
		ret = pmuscope_event_parse(tok, &o->evs[o->nr], err, sizeof(err));
		if (ret) {
			fprintf(stderr, "pmuscope: %s\n", err);
			goto out;
		}
		snprintf(o->evtext[o->nr], sizeof(o->evtext[o->nr]), "%s", tok);
		o->nr++;
		added++;
	}
	if (!added) {
		fprintf(stderr, "pmuscope: -e needs at least one event\n");
		ret = -EINVAL;
	}
out:
	free(copy);
	return ret;
}


int cpu_chosen(const struct stat_opts *o, int cpu)
{
	return !!(o->cpus[cpu / 64] & (1ULL << (cpu % 64)));
}

/* Every CPU given with -C must exist and be online. */
int check_cpus(const struct stat_opts *o)
{
	struct pmuscope_cpu_info info;

	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		if (!cpu_chosen(o, cpu))
			continue;
		if (pmuscope_cpu_info(cpu, &info)) {
			fprintf(stderr, "pmuscope: cpu%d does not exist\n", cpu);
			return 1;
		}
		if (!info.online || !info.probed) {
			fprintf(stderr, "pmuscope: cpu%d is offline\n", cpu);
			return 1;
		}
	}
	return 0;
}

/* The default set: those of @names every chosen CPU implements, that fit. */
void default_set(struct stat_opts *o, const char *const *names, size_t n)
{
	unsigned int room = 32;
	char err[128];

	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		struct pmuscope_cpu_info info;

		if (!cpu_chosen(o, cpu) || pmuscope_cpu_info(cpu, &info))
			continue;
		if (info.num_counters + 1 < room)
			room = info.num_counters + 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct pmuscope_event_spec ev;
		int ok = 1;

		if (o->nr == room || pmuscope_event_parse(names[i], &ev, err, sizeof(err)))
			continue;
		for (int cpu = 0; ok && cpu < PMUSCOPE_MAX_CPUS; cpu++) {
			struct pmuscope_cpu_info info;

			if (!cpu_chosen(o, cpu))
				continue;
			ok = !pmuscope_cpu_info(cpu, &info) && pmuscope_cpu_has_event(&info, ev.number);
		}
		if (ok)
			o->evs[o->nr++] = ev;
	}
}

int stat_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct stat_opts *o = ctx;

	switch (opt->value) {
	case 'e':
	case 'C':
	case 'a':
		return common_opt(opt->value, arg, o) < 0 ? EXIT_USAGE : 0;
	case 'I':
		return parse_interval(arg, &o->interval_ms) ? EXIT_USAGE : 0;
	case 'P':
		o->per_cpu = 1;
		return 0;
	case 'J':
		o->fmt = REPORT_JSON;
		return 0;
	case 'V':
		o->fmt = REPORT_CSV;
		return 0;
	default:
		return 1;
	}
}
