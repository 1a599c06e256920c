// SPDX-License-Identifier: GPL-2.0
/* pmuscope stat: count events on CPUs, or of a command. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"

static void stat_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope stat [-e EVENT[,EVENT...]] [-C CPUS | -a] [-I MS]\n"
		"                     [--per-cpu] [--json | --csv] [-- CMD [ARG...]]\n"
		"  With a command and neither -a nor -C, only the command and the\n"
		"  children it creates are counted, wherever they run.\n");
}

static const struct cli_option stat_options[] = {
	OPT_EVENTS(),
	OPT_CPUS(),
	OPT_INTERVAL(),
	OPT_JSON(),
	OPT_CSV(),
	OPT_CALLBACK("per-cpu", 0, NULL, "a column per CPU", stat_opt, 'P'),
	OPT_ALL_CPUS(),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

const struct cli_options stat_cli = { "stat", stat_options, stat_usage };


/*
 * Fill @r from one read (@vals, CPU by CPU). With @prev (the previous read,
 * same layout), the counts are those of the interval: the raw difference,
 * scaled by the interval's own enabled/running times.
 */
static void stat_fill(struct report *r, const struct stat_opts *o,
		      const struct pmuscope_count *vals, unsigned int nv,
		      const struct pmuscope_count *prev)
{
	for (unsigned int i = 0; i < o->nr; i++) {
		struct report_counter *c = &r->c[i];

		memset(c, 0, sizeof(*c));
		c->number = o->evs[i].number;
		c->flags = o->evs[i].flags;
		c->name = o->evs[i].name;
		c->label = o->evs[i].label;
	}
	r->ncounters = o->nr;
	r->ncpus = 0;
	for (unsigned int v = 0; v < nv; v++) {
		const struct pmuscope_count *x = &vals[v];
		uint64_t count = x->scaled, enabled = x->time_enabled;
		uint64_t running = x->time_running;
		struct report_counter *c;
		unsigned int k;

		if (x->index >= o->nr)
			continue;	/* not ours: never from a sane driver */
		c = &r->c[x->index];
		if (prev) {
			const struct pmuscope_count *p = &prev[v];

			count = x->count >= p->count ? x->count - p->count : 0;
			enabled = x->time_enabled >= p->time_enabled ?
				  x->time_enabled - p->time_enabled : 0;
			running = x->time_running >= p->time_running ?
				  x->time_running - p->time_running : 0;
			count = pmuscope_scale(count, enabled, running);
		}
		c->count += count;
		c->time_enabled += enabled;
		c->time_running += running;
		c->vflags |= x->flags;

		for (k = 0; k < r->ncpus; k++)
			if (r->cpu_ids[k] == (int)x->cpu)
				break;
		if (k == r->ncpus) {
			if (r->ncpus == REPORT_MAX_CPUS)
				continue;	/* in the totals, not listed */
			r->cpu_ids[r->ncpus++] = x->cpu;
		}
		c->cpu_count[k] = count;
		c->cpu_vflags[k] = x->flags;
	}
}

/* A stat run: what its phases share. */
struct stat_run {
	struct stat_opts o;		/* first: stat_opt() */
	struct pmuscope *h;
	struct pmuscope_count *vals, *prev_vals;
	unsigned int nv, room;
	struct report *cur, *total;
	struct sigaction old_chld;
	sigset_t oldmask;
	int masked;
	int go[2], ready[2];		/* the command's start (stat_fork()) */
	pid_t child;
	int status, reaped, first;
	struct timespec t0;
};

/*
 * The session: the driver opened, the CPUs or the task configured, the
 * buffers and the reports' fixed parts: 0, or an exit status.
 */
static int stat_setup(struct stat_run *s)
{
	struct stat_opts *o = &s->o;
	struct report *cur, *total;
	unsigned int ncpus = 0;
	char err[512];
	int ret;

	ret = choose_cpus_events(o, default_events, nr_default_events);
	if (ret)
		return ret;
	for (int w = 0; w < PMUSCOPE_CPU_WORDS; w++)
		ncpus += __builtin_popcountll(o->cpus[w]);

	ret = pmuscope_open(&s->h, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", err);
		return open_exit_code(ret);
	}
	/*
	 * A command and no CPUs asked for: the command's own counts, as perf
	 * stat gives them. The child configures its own thread, with inherit
	 * and enable-on-exec, before exec: what pmuscope runs before the
	 * exec is not counted. The direct backend counts CPUs only.
	 */
	o->task = o->cmd && !o->cpus_given && !o->all_cpus;
	if (o->task && !(pmuscope_features(s->h) & PMUSCOPE_FEAT_TASK)) {
		fprintf(stderr, "pmuscope: the driver cannot count a task (API version 1, or no perf support): counting all CPUs (-a)\n");
		o->task = 0;
	}
	ret = o->task ? 0 : pmuscope_configure(s->h, o->evs, o->nr, o->cpus, PMUSCOPE_CPU_WORDS);
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->h));
		pmuscope_close(s->h);
		s->h = NULL;
		return exit_code_of(ret);
	}
	s->room = o->nr * ncpus;
	s->vals = calloc(s->room, sizeof(*s->vals));
	s->prev_vals = calloc(s->room, sizeof(*s->prev_vals));
	s->cur = cur = calloc(1, sizeof(*cur));
	s->total = total = calloc(1, sizeof(*total));
	if (!s->vals || !s->prev_vals || !cur || !total)
		return 1;
	pmuscope_cpulist_format(o->cpus, PMUSCOPE_CPU_WORDS, total->cpus, sizeof(total->cpus));
	total->per_cpu = o->per_cpu;
	total->kernel_el = pmuscope_kernel_el();
	total->command = o->cmd;
	total->exit_status = -1;
	if (o->task) {
		total->cpus[0] = '\0';
		total->per_cpu = 0;
	}
	total->task = o->task;
	cur->task = o->task;
	memcpy(cur->cpus, total->cpus, sizeof(cur->cpus));
	cur->per_cpu = total->per_cpu;
	cur->kernel_el = total->kernel_el;
	cur->command = o->cmd;
	cur->exit_status = -1;
	cur->kind = REPORT_INTERVAL;
	return 0;
}

/* The child, between fork() and exec: it never returns. */
static void __attribute__((noreturn)) stat_child(struct stat_run *s)
{
	struct stat_opts *o = &s->o;
	cpu_set_t set;
	char c;

	close(s->go[1]);
	close(s->ready[0]);
	sigaction(SIGCHLD, &s->old_chld, NULL);
	sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
	if (o->cpus_given) {
		CPU_ZERO(&set);
		for (int cpu = 0; cpu < CPU_SETSIZE && cpu < PMUSCOPE_MAX_CPUS; cpu++)
			if (cpu_chosen(o, cpu))
				CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "pmuscope: cannot pin '%s' to CPUs %s: %s\n",
				o->cmd[0], s->total->cpus, strerror(errno));
			_exit(126);
		}
	}
	/* Its exit status (before exec) is then pmuscope's. */
	if (o->task) {
		int cret = pmuscope_configure_task(s->h, o->evs, o->nr, 0,
						   PMUSCOPE_CFG_INHERIT |
						   PMUSCOPE_CFG_ENABLE_ON_EXEC);

		if (cret) {
			fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->h));
			_exit(exit_code_of(cret));
		}
	}
	if (write(s->ready[1], "r", 1) != 1 || read(s->go[0], &c, 1) != 1)
		_exit(127);
	execvp(o->cmd[0], o->cmd);
	fprintf(stderr, "pmuscope: cannot run '%s': %s\n", o->cmd[0], strerror(errno));
	_exit(127);
}

/*
 * As perf does: the child gets ready (signal mask, CPU affinity) and says
 * so on ready[], then waits on go[] for counting to start. Counting then
 * covers exec and the command, not the child's side of fork(), whose
 * share would otherwise depend on which of the two the scheduler ran
 * first. 0 with the child ready, or 1 with *@code the exit status (the
 * child's, when it could not get ready).
 */
static int stat_fork(struct stat_run *s, int *code)
{
	char ready_byte;

	if (pipe2(s->go, O_CLOEXEC) || pipe2(s->ready, O_CLOEXEC)) {
		perror("pmuscope: pipe");
		if (s->go[0] >= 0)
			close(s->go[0]);
		*code = 1;
		return 1;
	}
	s->child = fork();
	if (s->child == 0)
		stat_child(s);
	close(s->go[0]);
	close(s->ready[1]);
	if (s->child < 0) {
		perror("pmuscope: fork");
		*code = 1;
		return 1;
	}
	/*
	 * EOF: the child failed to get ready and is exiting (the
	 * signals are blocked: the read is not interrupted).
	 */
	if (read(s->ready[0], &ready_byte, 1) != 1) {
		close(s->go[1]);
		s->go[1] = -1;
		while (waitpid(s->child, &s->status, 0) < 0 && errno == EINTR)
			;
		*code = WIFEXITED(s->status) ? WEXITSTATUS(s->status) : 128 + WTERMSIG(s->status);
		return 1;
	}
	close(s->ready[0]);
	s->ready[0] = -1;
	return 0;
}

/* With -I: an interval's counts every MS ms until the end of the run. */
static void stat_intervals(struct stat_run *s)
{
	struct timespec next = s->t0;

	for (;;) {
		next.tv_sec += s->o.interval_ms / 1000;
		next.tv_nsec += (s->o.interval_ms % 1000) * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		if (stat_wait(&next, s->child, &s->status, &s->reaped))
			break;
		if (pmuscope_read(s->h, s->vals, s->room, &s->nv)) {
			fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->h));
			continue;
		}
		stat_fill(s->cur, &s->o, s->vals, s->nv, s->first ? NULL : s->prev_vals);
		s->cur->time_s = now_s() - (s->t0.tv_sec + s->t0.tv_nsec / 1e9);
		report_print(stdout, s->cur, s->o.fmt, s->first);
		s->first = 0;
		memcpy(s->prev_vals, s->vals, s->nv * sizeof(*s->vals));
	}
}

/*
 * Count from the go to the end of the run (the command's exit, or SIGINT
 * or SIGTERM): 0, or 1 when counting could not start.
 */
static int stat_count(struct stat_run *s)
{
	/*
	 * Counting starts here: keep the path to the wait short and fixed.
	 * Not even the vDSO's clock_gettime(), whose retry loop runs again
	 * when a tick updates the clock under it.
	 */
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	/* A task session is armed already: it starts at the command's exec. */
	if (!s->o.task && (pmuscope_reset(s->h) || pmuscope_enable(s->h))) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->h));
		if (s->child > 0) {
			kill(s->child, SIGKILL);
			waitpid(s->child, NULL, 0);
		}
		return 1;
	}
	/*
	 * The go: a child killed meanwhile (a Ctrl-C reaches its process
	 * group too) makes this EPIPE, not SIGPIPE (ignored for the write);
	 * its SIGCHLD then ends the wait below.
	 */
	if (s->child > 0) {
		struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;

		sigaction(SIGPIPE, &ign, &old_pipe);
		if (write(s->go[1], "g", 1) != 1)
			kill(s->child, SIGKILL);
		sigaction(SIGPIPE, &old_pipe, NULL);
	}
	if (!s->o.interval_ms)
		stat_wait(NULL, s->child, &s->status, &s->reaped);
	else
		stat_intervals(s);
	if (s->child > 0 && !s->reaped)
		while (waitpid(s->child, &s->status, 0) < 0 && errno == EINTR)
			;
	pmuscope_disable(s->h);
	return 0;
}

/* The end: the last interval and the total: the exit status. */
static int stat_print(struct stat_run *s)
{
	struct report *total = s->total;

	total->elapsed_s = now_s() - (s->t0.tv_sec + s->t0.tv_nsec / 1e9);
	if (s->child > 0) {
		close(s->go[1]);
		s->go[1] = -1;
		total->exit_status = WIFEXITED(s->status) ? WEXITSTATUS(s->status) :
				     128 + WTERMSIG(s->status);
	}
	if (pmuscope_read(s->h, s->vals, s->room, &s->nv)) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->h));
		return 1;
	}
	if (s->o.interval_ms) {
		/* The last, partial interval, then the total. */
		stat_fill(s->cur, &s->o, s->vals, s->nv, s->first ? NULL : s->prev_vals);
		s->cur->time_s = total->elapsed_s;
		report_print(stdout, s->cur, s->o.fmt, s->first);
		s->first = 0;
	}
	stat_fill(total, &s->o, s->vals, s->nv, NULL);
	total->kind = REPORT_TOTAL;
	report_print(stdout, total, s->o.fmt, s->first);
	return s->child > 0 ? total->exit_status : 0;
}

static void stat_free(struct stat_run *s)
{
	if (s->masked) {
		/*
		 * A SIGINT or SIGTERM still pending (a group kill, taken
		 * after the command's end) acts when unblocked: the report
		 * is out by then.
		 */
		fflush(stdout);
		sigprocmask(SIG_SETMASK, &s->oldmask, NULL);
		sigaction(SIGCHLD, &s->old_chld, NULL);
	}
	if (s->ready[0] >= 0)
		close(s->ready[0]);
	if (s->go[1] >= 0)
		close(s->go[1]);
	free(s->vals);
	free(s->prev_vals);
	free(s->cur);
	free(s->total);
	pmuscope_close(s->h);
}

int cmd_stat(int argc, char **argv)
{
	struct stat_run s = {
		.o = { .fmt = REPORT_TABLE },
		.go = { -1, -1 }, .ready = { -1, -1 }, .child = -1, .first = 1,
	};
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t sigs;
	int ret;

	if (cli_parse(&stat_cli, argc, argv, &s.o, &ret))
		return ret;
	if (optind < argc)
		s.o.cmd = &argv[optind];

	ret = stat_setup(&s);
	if (ret)
		goto out;
	/*
	 * SIGCHLD ignored (inherited from whoever started pmuscope) would
	 * reap the command unseen and send no SIGCHLD: the default while
	 * pmuscope waits, the inherited one for the command.
	 */
	sigaction(SIGCHLD, &dfl, &s.old_chld);
	stat_signals(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, &s.oldmask);
	s.masked = 1;
	if (s.o.cmd && stat_fork(&s, &ret))
		goto out;
	ret = stat_count(&s);
	if (!ret)
		ret = stat_print(&s);
out:
	stat_free(&s);
	return ret;
}
