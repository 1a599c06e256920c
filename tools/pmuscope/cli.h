/* SPDX-License-Identifier: GPL-2.0 */
/* pmuscope CLI: what the commands share (main.c) and the commands of other files. */
#ifndef PMUSCOPE_CLI_H
#define PMUSCOPE_CLI_H

#include <signal.h>
#include <time.h>

#include "pmuscope.h"
#include "report.h"

#define EXIT_USAGE		2
#define EXIT_UNSUPPORTED	3
#define EXIT_BUSY		4
#define EXIT_PERM		5
#define EXIT_DRIVER		6

struct stat_opts {
	struct pmuscope_event_spec evs[PMUSCOPE_MAX_EVENTS];
	unsigned int nr;
	uint64_t cpus[PMUSCOPE_CPU_WORDS];
	int cpus_given;
	int all_cpus;			/* -a */
	int task;			/* count the command and its children */
	unsigned int interval_ms;
	int per_cpu;
	enum report_format fmt;
	char **cmd;
};

/* stat's and snapshot's default events (main.c), export's too. */
extern const char * const default_events[];
extern const size_t nr_default_events;

int open_exit_code(int err);
int exit_code_of(int err);
int add_events(struct stat_opts *o, char *list);
int common_opt(int opt, char *arg, struct stat_opts *o);
int choose_cpus_events(struct stat_opts *o, const char *const *defaults, size_t n);
int parse_uint(const char *arg, unsigned long long lo, unsigned long long hi,
	       unsigned long long *out);
int cpu_chosen(const struct stat_opts *o, int cpu);
int check_cpus(const struct stat_opts *o);
/* Those of @names every chosen CPU implements, while counters remain. */
void default_set(struct stat_opts *o, const char *const *names, size_t n);

/* -I MS: 10 ms to a day (said on stderr when not). */
int parse_interval(const char *arg, unsigned int *ms);
/* SIGINT, SIGTERM, SIGCHLD: blocked during a run, taken by stat_wait(). */
void stat_signals(sigset_t *set);
/*
 * Wait until @deadline (CLOCK_MONOTONIC; NULL: none) or the end of the
 * run (SIGINT or SIGTERM; with @child > 0, its exit, reaped into *@status):
 * 1 when the run should stop, 0 at the deadline.
 */
int stat_wait(const struct timespec *deadline, pid_t child, int *status, int *reaped);

int cmd_record(int argc, char **argv);	/* record.c */
int cmd_report(int argc, char **argv);	/* profile.c */
int cmd_amu(int argc, char **argv);	/* amu.c */
int cmd_spe(int argc, char **argv);	/* spe.c */
int cmd_export(int argc, char **argv);	/* export.c */

#endif
