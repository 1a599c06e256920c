// SPDX-License-Identifier: GPL-2.0
/* pmuscope snapshot: every CPU's counts at one instant. */
#define _GNU_SOURCE
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "builtin.h"
#include "cli.h"

static void snapshot_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope snapshot [-e EVENT[,EVENT...]] [-C CPUS | -a] [-I MS] [-n COUNT]\n"
		"                         [--software | --hardware] [--lead US] [--json | --csv]\n"
		"  Counts the events on the CPUs (default: all online) and, MS ms after\n"
		"  enabling (default 100) and every MS ms after, takes COUNT snapshots\n"
		"  (default 1): the counters of every CPU captured at one instant.\n");
}

struct snapshot_args {
	struct stat_opts o;		/* first: stat_opt() */
	unsigned long long count;	/* -n */
	uint32_t flags;			/* PMUSCOPE_SNAP_F_* */
	unsigned int lead_us;		/* --lead */

	struct pmuscope *h;		/* the run: snapshot_session() on */
	unsigned int room, ncpus;
	struct pmuscope_count *vals;
	struct pmuscope_snap_info *info;
	struct report_snap_cpu *rows;
};

static int snapshot_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct snapshot_args *a = ctx;
	unsigned long long v;

	switch (opt->value) {
	case 'n':
		if (parse_uint(arg, 1, 1000000000, &a->count)) {
			fprintf(stderr, "pmuscope: -n needs a count of snapshots, 1 or more: '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'S':
		a->flags |= PMUSCOPE_SNAP_F_SOFTWARE;
		return 0;
	case 'H':
		a->flags |= PMUSCOPE_SNAP_F_HARDWARE;
		return 0;
	case 'L':
		if (parse_uint(arg, 1, PMUSCOPE_SNAP_LEAD_US_MAX, &v)) {
			fprintf(stderr, "pmuscope: --lead needs 1 to %d microseconds: '%s'\n",
				PMUSCOPE_SNAP_LEAD_US_MAX, arg);
			return EXIT_USAGE;
		}
		a->lead_us = v;
		return 0;
	default:
		return 1;
	}
}

static const struct cli_option snapshot_options[] = {
	OPT_EVENTS(),
	OPT_CPUS(),
	OPT_INTERVAL(),
	OPT_JSON(),
	OPT_CSV(),
	OPT_CALLBACK("software", 0, NULL, "never the hardware capture (FEAT_PMUv3_SS)",
		     snapshot_opt, 'S'),
	OPT_CALLBACK("hardware", 0, NULL, "the hardware capture on every CPU, or fail",
		     snapshot_opt, 'H'),
	OPT_CALLBACK("lead", 0, "US", "the capture deadline's lead over the request, 1 to "
		     CLI_STR(PMUSCOPE_SNAP_LEAD_US_MAX) " us (" CLI_STR(PMUSCOPE_SNAP_LEAD_US_UNPRIV)
		     " without CAP_PERFMON; default: the driver's, "
		     CLI_STR(PMUSCOPE_SNAP_LEAD_US_DEFAULT) ")", snapshot_opt, 'L'),
	OPT_CALLBACK("count", 'n', "COUNT", "take COUNT snapshots (default 1)", snapshot_opt, 'n'),
	OPT_ALL_CPUS(),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

const struct cli_options snapshot_cli = { "snapshot", snapshot_options, snapshot_usage };

/*
 * The session configured (with --hardware, where every CPU can capture)
 * and its buffers: 0, or an exit status.
 */
static int snapshot_session(struct snapshot_args *a)
{
	char err[512];
	int ret;

	ret = pmuscope_open(&a->h, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", err);
		return open_exit_code(ret);
	}
	if (!(pmuscope_features(a->h) & PMUSCOPE_FEAT_SNAPSHOT)) {
		fprintf(stderr, "pmuscope: the driver takes no snapshots: no CPU has a PMU it counts with\n");
		return EXIT_UNSUPPORTED;
	}
	/* Hardware or nothing: say which CPUs cannot before counting at all. */
	if (a->flags & PMUSCOPE_SNAP_F_HARDWARE) {
		if (pmuscope_snap_hw_explain(a->o.cpus, PMUSCOPE_CPU_WORDS, err, sizeof(err))) {
			fprintf(stderr, "pmuscope: hardware snapshot refused: %s\n", err);
			return EXIT_UNSUPPORTED;
		}
		if (!(pmuscope_features(a->h) & PMUSCOPE_FEAT_SNAPSHOT_HW)) {
			fprintf(stderr, "pmuscope: hardware snapshot refused: no CPU has a usable hardware capture\n");
			return EXIT_UNSUPPORTED;
		}
	}
	ret = pmuscope_configure(a->h, a->o.evs, a->o.nr, a->o.cpus, PMUSCOPE_CPU_WORDS);
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(a->h));
		return exit_code_of(ret);
	}
	a->room = a->o.nr * a->ncpus;
	a->vals = calloc(a->room, sizeof(*a->vals));
	a->info = calloc(a->ncpus, sizeof(*a->info));
	a->rows = calloc(a->ncpus, sizeof(*a->rows));
	if (!a->vals || !a->info || !a->rows) {
		perror("pmuscope");
		return 1;
	}
	return 0;
}

/*
 * -n snapshots, the first MS ms after @t0 and every MS ms after, until
 * SIGINT or SIGTERM: 0, or the exit status of a failed snapshot.
 */
static int snapshot_loop(struct snapshot_args *a, const struct timespec *t0)
{
	struct report_snapshot snap = { 0 };
	struct pmuscope_snap res;
	struct timespec next = *t0;
	int status = 0, reaped = 0;

	snap.kernel_el = pmuscope_kernel_el();
	snap.nevents = a->o.nr;
	snap.evs = a->o.evs;
	snap.cpus = a->rows;
	for (unsigned long long seq = 0; seq < a->count; seq++) {
		int sret;

		next.tv_sec += a->o.interval_ms / 1000;
		next.tv_nsec += (a->o.interval_ms % 1000) * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		if (stat_wait(&next, -1, &status, &reaped))
			break;
		snap.time_s = now_s() - (t0->tv_sec + t0->tv_nsec / 1e9);
		sret = pmuscope_snapshot(a->h, a->flags, a->lead_us, a->vals, a->room, a->info,
					 a->ncpus, &res);
		if (sret) {
			fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(a->h));
			return exit_code_of(sret);
		}
		report_snap_fill(a->rows, a->info, res.nr_cpus, a->vals, res.nr_values, a->o.nr);
		snap.seq = seq;
		snap.freq = res.freq;
		snap.skew = res.skew;
		snap.ncpus = res.nr_cpus;
		report_snapshot_print(stdout, &snap, a->o.fmt, seq == 0);
	}
	return 0;
}

int cmd_snapshot(int argc, char **argv)
{
	struct snapshot_args a = { .o = { .fmt = REPORT_TABLE, .interval_ms = 100 }, .count = 1 };
	struct timespec t0;
	sigset_t sigs, oldmask;
	int ret;

	if (cli_parse(&snapshot_cli, argc, argv, &a, &ret))
		return ret;
	if (optind < argc) {
		fprintf(stderr, "pmuscope: snapshot runs no command: '%s'\n", argv[optind]);
		cli_usage_with_options(stderr, &snapshot_cli);
		return EXIT_USAGE;
	}
	if ((a.flags & PMUSCOPE_SNAP_F_SOFTWARE) && (a.flags & PMUSCOPE_SNAP_F_HARDWARE)) {
		fprintf(stderr, "pmuscope: --software and --hardware exclude each other\n");
		return EXIT_USAGE;
	}

	ret = choose_cpus_events(&a.o, default_events, nr_default_events);
	if (ret)
		return ret;
	for (int w = 0; w < PMUSCOPE_CPU_WORDS; w++)
		a.ncpus += __builtin_popcountll(a.o.cpus[w]);
	ret = snapshot_session(&a);
	if (ret)
		goto out;

	/* SIGINT and SIGTERM end the run between snapshots (stat_wait()). */
	stat_signals(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, &oldmask);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pmuscope_reset(a.h) || pmuscope_enable(a.h)) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(a.h));
		ret = 1;
	} else {
		ret = snapshot_loop(&a, &t0);
		pmuscope_disable(a.h);
	}
	/* A signal still pending acts now: the output is out by then. */
	fflush(stdout);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out:
	free(a.vals);
	free(a.info);
	free(a.rows);
	pmuscope_close(a.h);
	return ret;
}
