/* SPDX-License-Identifier: GPL-2.0 */
/* pmuscope CLI: the CPUs and events a command counts (-e, -C, -a). */
#ifndef PMUSCOPE_CPUS_EVENTS_H
#define PMUSCOPE_CPUS_EVENTS_H

#include <stddef.h>

#include "parse-options.h"
#include "pmuscope.h"
#include "stat-output.h"

struct stat_opts {
	struct pmuscope_event_spec evs[PMUSCOPE_MAX_EVENTS];
	unsigned int nr;
	char evtext[PMUSCOPE_MAX_EVENTS][64];	/* -e's texts, resolved again
						 * on the chosen CPUs */
	uint64_t cpus[PMUSCOPE_CPU_WORDS];
	int cpus_given;
	int all_cpus;			/* -a */
	int task;			/* count the command and its children */
	unsigned int interval_ms;
	int per_cpu;
	enum report_format fmt;
	char **cmd;
};

/* stat's and snapshot's default events, export's too. */
extern const char * const default_events[];
extern const size_t nr_default_events;

int add_events(struct stat_opts *o, const char *list);
int common_opt(int opt, char *arg, struct stat_opts *o);
int choose_cpus_events(struct stat_opts *o, const char *const *defaults, size_t n);
int cpu_chosen(const struct stat_opts *o, int cpu);
int check_cpus(const struct stat_opts *o);
/* Those of @names every chosen CPU implements, while counters remain. */
void default_set(struct stat_opts *o, const char *const *names, size_t n);

/*
 * The options stat, snapshot, record, amu and export share: their
 * cli_parse() context starts with a struct stat_opts, which stat_opt()
 * fills (opt->value: the letter, J for --json, V for --csv, P for --per-cpu).
 */
int stat_opt(void *ctx, const struct cli_option *opt, char *arg);

#define OPT_EVENTS() \
	OPT_CALLBACK(NULL, 'e', "EVENT[,EVENT...]", \
		     "the events: NAME[:u|k|h...] (pmuscope list), rHEX for raw numbers", \
		     stat_opt, 'e')
#define OPT_CPUS() \
	OPT_CALLBACK(NULL, 'C', "CPUS", "these CPUs (0-3,6) instead of every online one", stat_opt, 'C')
#define OPT_ALL_CPUS() \
	OPT_CALLBACK("all-cpus", 'a', NULL, "every online CPU", stat_opt, 'a')
#define OPT_INTERVAL() \
	OPT_CALLBACK(NULL, 'I', "MS", "every MS milliseconds, 10 to a day", stat_opt, 'I')
#define OPT_JSON() \
	OPT_CALLBACK("json", 0, NULL, "JSON output", stat_opt, 'J')
#define OPT_CSV() \
	OPT_CALLBACK("csv", 0, NULL, "CSV output", stat_opt, 'V')

#endif
