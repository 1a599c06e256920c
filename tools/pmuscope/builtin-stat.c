// SPDX-License-Identifier: GPL-2.0
/* pmuscope stat: count events on CPUs, or of a command. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "metrics.h"

static void stat_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope stat [-e EVENT[,EVENT...]] [-d[d]] [-C CPUS | -a] [-I MS]\n"
		"                     [--per-cpu | -A | --per-core] [--json | --csv | -x SEP]\n"
		"                     [-o FILE [--append]] [-r N] [-D MS] [-i]\n"
		"                     [-M METRICS] [--topdown] [--metric-only]\n"
		"                     [-p PID[,PID...] | -t TID[,TID...] | -- CMD [ARG...]]\n"
		"  With a command and neither -a nor -C, only the command and the\n"
		"  children it creates are counted, wherever they run (-i: not the\n"
		"  children). -p, -t: those processes or threads, until they end or\n"
		"  Ctrl-C. -A and --per-core need -a or -C; -r a command.\n");
}

static int stat_more_opt(void *ctx, const struct cli_option *opt, char *arg);

static const struct cli_option stat_options[] = {
	OPT_EVENTS(),
	OPT_CPUS(),
	OPT_INTERVAL(),
	OPT_JSON(),
	OPT_CSV(),
	OPT_CALLBACK("per-cpu", 0, NULL, "a column per CPU", stat_opt, 'P'),
	OPT_ALL_CPUS(),
	OPT_CALLBACK("repeat", 'r', "N", "run the command N times (1 to 100000): means and spread",
		     stat_more_opt, 'r'),
	OPT_CALLBACK("pid", 'p', "PID[,PID...]",
		     "count these processes (every thread) until they end or Ctrl-C",
		     stat_more_opt, 'p'),
	OPT_CALLBACK("tid", 't', "TID[,TID...]",
		     "count these threads until they end or Ctrl-C", stat_more_opt, 't'),
	OPT_CALLBACK("field-separator", 'x', "SEP",
		     "perf's CSV: value, unit, event, run time, run %, metric, its unit",
		     stat_more_opt, 'x'),
	OPT_CALLBACK("output", 'o', "FILE", "the counts to FILE (a '# started on' line first)",
		     stat_more_opt, 'o'),
	OPT_CALLBACK("append", 0, NULL, "append to the -o FILE", stat_more_opt, '+'),
	OPT_CALLBACK("no-aggr", 'A', NULL, "a row per CPU and event (with -a or -C)",
		     stat_more_opt, 'A'),
	OPT_CALLBACK("per-core", 0, NULL, "a row per core and event (with -a or -C)",
		     stat_more_opt, 'c'),
	OPT_CALLBACK("delay", 'D', "MS", "start counting MS ms (0 to a day) after the start",
		     stat_more_opt, 'D'),
	OPT_CALLBACK("detailed", 'd', NULL,
		     "add L1D and last-level cache events; -dd: L1I and TLB events too",
		     stat_more_opt, 'd'),
	OPT_CALLBACK("no-inherit", 'i', NULL,
		     "not the children the command (or -p process) creates", stat_more_opt, 'i'),
	OPT_METRICS(),
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
			/* --per-core: where it is, for each report (-I's too). */
			if (r->aggr == REPORT_AGGR_CORE)
				report_topo_read(x->cpu, &r->topo[r->ncpus]);
			r->cpu_ids[r->ncpus++] = x->cpu;
		}
		c->cpu_count[k] = count;
		c->cpu_vflags[k] = x->flags;
		c->cpu_enabled[k] = enabled;
		c->cpu_running[k] = running;
	}
}

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL	/* Linux 6.9: a pidfd of a thread */
#endif

/* A stat run: what its phases share. */
struct stat_run {
	struct stat_opts o;		/* first: stat_opt() */
	struct pmuscope *h;
	struct pmuscope_count *vals, *prev_vals;
	unsigned int nv, room;
	struct report *cur, *total, *acc;
	struct sigaction old_chld;
	sigset_t oldmask;
	int masked;
	int go[2], ready[2];		/* the command's start (stat_fork()) */
	pid_t child;
	int status, reaped, first;
	int interrupted;		/* a SIGINT or SIGTERM was taken */
	struct timespec t0;
	struct timespec t_on;		/* counting enabled: t0, or t0 + -D */
	double t_last;			/* -I: the last interval's read (now_s()) */
	/* perf stat's options (stat_more_opt()) */
	unsigned int repeat;		/* -r N; 0: not given */
	long delay_ms;			/* -D MS; -1: not given */
	unsigned int detailed;		/* -d: how many */
	int no_inherit;			/* -i */
	enum report_aggr aggr;		/* -A, --per-core */
	const char *sep;		/* -x SEP */
	const char *out_path;		/* -o FILE */
	int append;			/* --append */
	FILE *out;
	char *pid_list, *tid_list;	/* -p, -t as given (the header) */
	struct task_target *targets;
	size_t ntargets, targets_room;
	struct pmuscope **hs;		/* -p, -t: a session a thread */
	size_t nh;
	int *pidfds;			/* -p, -t: a pidfd a thread (-1: /proc) */
	char (*procs)[48];		/* and its /proc directory */
	int *ended;
	struct report_stats stats[PMUSCOPE_MAX_EVENTS], elapsed;	/* -r */
};

/* -p PID[,PID...] (every thread of each, now) or -t TID[,TID...]. */
static int stat_targets(struct stat_run *s, int letter, char *list)
{
	char **given = letter == 'p' ? &s->pid_list : &s->tid_list;
	char *copy;

	/* The header names them as given, -p and -t each once. */
	copy = malloc(strlen(list) + (*given ? strlen(*given) + 2 : 1));
	if (!copy) {
		perror("pmuscope");
		return 1;
	}
	sprintf(copy, "%s%s%s", *given ? *given : "", *given ? "," : "", list);
	free(*given);
	*given = copy;
	return parse_task_list(letter, list, &s->targets, &s->ntargets, &s->targets_room);
}

static int stat_more_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct stat_run *s = ctx;
	unsigned long long v;

	switch (opt->value) {
	case 'r':
		if (parse_uint(arg, 1, 100000, &v)) {
			fprintf(stderr, "pmuscope: -r needs a number of runs, 1 to 100000: '%s'\n", arg);
			return EXIT_USAGE;
		}
		s->repeat = v;
		return 0;
	case 'p':
	case 't':
		return stat_targets(s, opt->value, arg);
	case 'x':
		if (!*arg) {
			fprintf(stderr, "pmuscope: -x needs a separator\n");
			return EXIT_USAGE;
		}
		s->sep = arg;
		return 0;
	case 'o':
		if (!*arg) {
			fprintf(stderr, "pmuscope: -o needs a file name\n");
			return EXIT_USAGE;
		}
		s->out_path = arg;
		return 0;
	case '+':
		s->append = 1;
		return 0;
	case 'A':
		s->aggr = s->aggr == REPORT_AGGR_CORE ? -1 : REPORT_AGGR_NONE;
		return 0;
	case 'c':
		s->aggr = s->aggr == REPORT_AGGR_NONE ? -1 : REPORT_AGGR_CORE;
		return 0;
	case 'D':
		if (arg[0] == '-') {
			fprintf(stderr, "pmuscope: -D %s: a negative delay (perf's -1: start on a signal) is not supported: give 0 to 86400000 ms\n",
				arg);
			return EXIT_USAGE;
		}
		if (parse_uint(arg, 0, 86400000, &v)) {
			fprintf(stderr, "pmuscope: -D needs a delay of 0 to 86400000 ms: '%s'\n", arg);
			return EXIT_USAGE;
		}
		s->delay_ms = v;
		return 0;
	case 'd':
		s->detailed++;
		return 0;
	case 'i':
		s->no_inherit = 1;
		return 0;
	default:
		return 1;
	}
}

/* The options that exclude each other: 0, or EXIT_USAGE (said on stderr). */
static int stat_check(struct stat_run *s)
{
	struct stat_opts *o = &s->o;
	const char *msg = NULL;
	int cpus = o->cpus_given || o->all_cpus;

	if ((int)s->aggr < 0 || (s->aggr != REPORT_AGGR_GLOBAL && o->per_cpu))
		msg = "-A, --per-core and --per-cpu exclude each other";
	else if (s->aggr != REPORT_AGGR_GLOBAL && !cpus)
		msg = "-A and --per-core split the counts of CPUs: give -a or -C";
	else if (s->aggr != REPORT_AGGR_GLOBAL && o->fmt != REPORT_TABLE)
		msg = "-A and --per-core are for the table and -x (--json and --csv have per-CPU values)";
	else if (s->sep && o->fmt != REPORT_TABLE)
		msg = "-x, --json and --csv exclude each other";
	else if (s->sep && o->per_cpu)
		msg = "--per-cpu adds rows to the table: with -x, use -A";
	else if (s->append && !s->out_path)
		msg = "--append needs -o FILE";
	else if (s->ntargets && (cpus || o->cmd))
		msg = "-p and -t exclude -a, -C and a command (threads, not CPUs)";
	else if (s->repeat && !o->cmd)
		msg = "-r runs a command: give one (-- CMD)";
	else if (s->repeat && o->interval_ms)
		msg = "-r and -I exclude each other";
	else if (s->repeat && o->fmt != REPORT_TABLE)
		msg = "-r prints means and their spread in the table and -x, not --json or --csv";
	else if (s->repeat && s->aggr != REPORT_AGGR_GLOBAL)
		msg = "-r spreads the totals: not with -A or --per-core";
	else if (metrics_asked() && s->aggr != REPORT_AGGR_GLOBAL)
		msg = "-M, --topdown and --metric-only are of the totals: not with -A or --per-core";
	else if (metrics_only() && s->sep)
		msg = "--metric-only prints a table of its own: not with -x";
	else if (s->no_inherit && cpus)
		msg = "-i leaves out a task's children: not with -a or -C (CPUs)";
	else if (s->no_inherit && !o->cmd && !s->ntargets)
		msg = "-i leaves out the children of a command or of -p processes: give one";
	if (!msg)
		return 0;
	fprintf(stderr, "pmuscope: %s\n", msg);
	return EXIT_USAGE;
}

/*
 * -d and -dd: perf's detailed sets, as Arm's common events: L1D accesses
 * and refills, last-level reads and their misses (-d); L1I accesses and
 * refills, L1D and L1I TLB accesses and refills (-dd). Those every chosen
 * CPU implements (PMCEID) and not counted already, after the others.
 */
static void stat_detailed(struct stat_run *s)
{
	static const char *const sets[2][6] = {
		{ "L1D_CACHE", "L1D_CACHE_REFILL", "LL_CACHE_RD", "LL_CACHE_MISS_RD" },
		{ "L1I_CACHE", "L1I_CACHE_REFILL", "L1D_TLB", "L1D_TLB_REFILL",
		  "L1I_TLB", "L1I_TLB_REFILL" },
	};
	struct stat_opts *o = &s->o;
	char err[128];

	for (unsigned int d = 0; d < 2 && d < s->detailed; d++) {
		for (unsigned int i = 0; i < 6 && sets[d][i]; i++) {
			struct pmuscope_event_spec ev;
			int ok = 1;

			if (o->nr == PMUSCOPE_MAX_EVENTS ||
			    pmuscope_event_parse(sets[d][i], &ev, err, sizeof(err)))
				continue;
			for (unsigned int j = 0; ok && j < o->nr; j++)
				ok = !(o->evs[j].number == ev.number &&
				       !(o->evs[j].flags & PMUSCOPE_EV_RAW) &&
				       o->evs[j].flags == ev.flags);
			for (int cpu = 0; ok && cpu < PMUSCOPE_MAX_CPUS; cpu++) {
				struct pmuscope_cpu_info info;

				if (!cpu_chosen(o, cpu))
					continue;
				ok = !pmuscope_cpu_info(cpu, &info) &&
				     pmuscope_cpu_has_event(&info, ev.number);
			}
			if (ok)
				o->evs[o->nr++] = ev;
		}
	}
}

/* -p, -t: a session a thread, configured (not enabled): 0 or an exit status. */
static int stat_attach(struct stat_run *s)
{
	struct stat_opts *o = &s->o;
	char err[512];

	s->hs = calloc(s->ntargets, sizeof(*s->hs));
	s->pidfds = calloc(s->ntargets, sizeof(*s->pidfds));
	s->procs = calloc(s->ntargets, sizeof(*s->procs));
	s->ended = calloc(s->ntargets, sizeof(*s->ended));
	if (!s->hs || !s->pidfds || !s->procs || !s->ended) {
		perror("pmuscope");
		return 1;
	}
	for (size_t i = 0; i < s->ntargets; i++)
		s->pidfds[i] = -1;
	for (size_t i = 0; i < s->ntargets; i++) {
		const struct task_target *t = &s->targets[i];
		int inherit = t->inherit && !s->no_inherit;
		struct pmuscope *h;
		size_t n;
		int ret;

		if (s->nh) {
			ret = pmuscope_open(&h, err, sizeof(err));
			if (ret) {
				fprintf(stderr, "pmuscope: %s\n", err);
				return open_exit_code(ret);
			}
		} else {
			h = s->h;
		}
		n = s->nh++;
		s->hs[n] = h;
		ret = pmuscope_configure_task(h, o->evs, o->nr, t->tid,
					      inherit ? PMUSCOPE_CFG_INHERIT : 0);
		/* A thread of -p that ended since /proc listed it: not an error. */
		if (ret == -ESRCH && t->inherit && t->tid != t->tgid) {
			if (h != s->h)
				pmuscope_close(h);
			s->nh--;
			continue;
		}
		if (ret == -EPERM || ret == -EACCES) {
			task_perm_hint("count", t, ret, pmuscope_errmsg(h));
			return exit_code_of(ret);
		}
		if (ret) {
			fprintf(stderr, "pmuscope: thread %d of process %d: %s\n", t->tid, t->tgid,
				pmuscope_errmsg(h));
			return exit_code_of(ret);
		}
		/*
		 * Its end: a pidfd of the process (-p: it ends when all its
		 * threads have), of the thread (-t, Linux 6.9 on), else its
		 * /proc directory, looked at every 100 ms.
		 */
		if (t->inherit) {
			s->pidfds[n] = t->tid == t->tgid ? syscall(SYS_pidfd_open, t->tgid, 0) : -2;
		} else {
			s->pidfds[n] = syscall(SYS_pidfd_open, t->tid, PIDFD_THREAD);
			if (s->pidfds[n] < 0 && t->tid == t->tgid)
				s->pidfds[n] = syscall(SYS_pidfd_open, t->tid, 0);
		}
		snprintf(s->procs[n], sizeof(s->procs[n]), "/proc/%d/task/%d", t->tgid, t->tid);
		/* -p: one process, its other threads end with it. */
		if (s->pidfds[n] == -2) {
			s->pidfds[n] = -1;
			s->ended[n] = 1;
		}
	}
	return 0;
}

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

	ret = metrics_setup(o);
	if (ret)
		return ret;
	ret = choose_cpus_events(o, default_events, nr_default_events);
	if (ret)
		return ret;
	stat_detailed(s);
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
	o->task = (o->cmd && !o->cpus_given && !o->all_cpus) || s->ntargets;
	if (o->task && !(pmuscope_features(s->h) & PMUSCOPE_FEAT_TASK)) {
		if (s->ntargets) {
			fprintf(stderr, "pmuscope: -%c: the driver cannot count a task (API version 1, or no perf support)\n",
				s->pid_list ? 'p' : 't');
			return EXIT_UNSUPPORTED;
		}
		fprintf(stderr, "pmuscope: the driver cannot count a task (API version 1, or no perf support): counting all CPUs (-a)\n");
		o->task = 0;
	}
	if (s->ntargets)
		ret = stat_attach(s);
	else if (!o->task)
		ret = pmuscope_configure(s->h, o->evs, o->nr, o->cpus, PMUSCOPE_CPU_WORDS);
	if (ret && !s->ntargets) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->h));
		return exit_code_of(ret);
	}
	if (ret)
		return ret;
	s->room = o->nr * (s->nh > ncpus ? s->nh : ncpus);
	s->vals = calloc(s->room, sizeof(*s->vals));
	s->prev_vals = calloc(s->room, sizeof(*s->prev_vals));
	s->cur = cur = calloc(1, sizeof(*cur));
	s->total = total = calloc(1, sizeof(*total));
	s->acc = calloc(1, sizeof(*s->acc));
	if (!s->vals || !s->prev_vals || !cur || !total || !s->acc)
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
	total->pids = s->pid_list;
	total->tids = s->tid_list;
	total->csv_sep = s->sep;
	total->aggr = s->aggr;
	cur->task = o->task;
	memcpy(cur->cpus, total->cpus, sizeof(cur->cpus));
	cur->per_cpu = total->per_cpu;
	cur->kernel_el = total->kernel_el;
	cur->command = o->cmd;
	cur->exit_status = -1;
	cur->kind = REPORT_INTERVAL;
	cur->pids = s->pid_list;
	cur->tids = s->tid_list;
	cur->csv_sep = s->sep;
	cur->aggr = s->aggr;
	return 0;
}

/* The child, between fork() and exec: it never returns. */
static void __attribute__((noreturn)) stat_child(struct stat_run *s)
{
	struct stat_opts *o = &s->o;
	cpu_set_t set;
	int err;
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
	/*
	 * Its exit status (before exec) is then pmuscope's. -i: not its
	 * children; -D: enabled by pmuscope after the delay, not at the exec.
	 */
	if (o->task) {
		int cret = pmuscope_configure_task(s->h, o->evs, o->nr, 0,
						   (s->no_inherit ? 0 : PMUSCOPE_CFG_INHERIT) |
						   (s->delay_ms >= 0 ? 0 :
						    PMUSCOPE_CFG_ENABLE_ON_EXEC));

		if (cret) {
			fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->h));
			_exit(exit_code_of(cret));
		}
	}
	if (write(s->ready[1], "r", 1) != 1 || read(s->go[0], &c, 1) != 1)
		_exit(127);
	execvp(o->cmd[0], o->cmd);
	err = errno;
	fprintf(stderr, "pmuscope: cannot run '%s': %s\n", o->cmd[0], strerror(err));
	_exit(exec_exit_code(err));
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
		s->go[0] = -1;
		*code = 1;
		return 1;
	}
	s->child = fork();
	if (s->child == 0)
		stat_child(s);
	/* -1: a later run's failing pipe2() must not close them again. */
	close(s->go[0]);
	s->go[0] = -1;
	close(s->ready[1]);
	s->ready[1] = -1;
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

/* Until @deadline or the end of the run: 1 at the end, 0 at the deadline. */
static int stat_run_wait(struct stat_run *s, const struct timespec *deadline)
{
	if (s->ntargets)
		return stat_wait_tasks(deadline, s->pidfds, (const char (*)[48])s->procs,
				       s->ended, s->nh);
	return stat_wait_run(deadline, s->child, &s->status, &s->reaped, &s->interrupted);
}

/* Every session's counts into s->vals: 0, or -1 (said on stderr). */
static int stat_read(struct stat_run *s)
{
	unsigned int off = 0;

	if (!s->ntargets) {
		if (!pmuscope_read(s->h, s->vals, s->room, &s->nv))
			return 0;
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->h));
		return -1;
	}
	for (size_t i = 0; i < s->nh; i++) {
		unsigned int n;

		if (pmuscope_read(s->hs[i], s->vals + off, s->room - off, &n)) {
			fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->hs[i]));
			return -1;
		}
		off += n;
	}
	s->nv = off;
	return 0;
}

/*
 * -I: the interval just read (s->vals, after s->prev_vals), stamped from
 * the enable; its metrics' duration_time is the time it lasted, measured
 * from the last interval's read: not -I's MS for the last, partial one,
 * nor for one that a failed read made longer.
 */
static void stat_interval_print(struct stat_run *s)
{
	double t = now_s();

	stat_fill(s->cur, &s->o, s->vals, s->nv, s->first ? NULL : s->prev_vals);
	s->cur->time_s = t - (s->t_on.tv_sec + s->t_on.tv_nsec / 1e9);
	metrics_fill(s->cur, t - s->t_last);
	s->t_last = t;
	report_print(s->out, s->cur, s->o.fmt, s->first);
	s->first = 0;
}

/*
 * With -I: an interval's counts every MS ms until the end of the run,
 * from the enable (after -D's delay, as perf), stamped from it.
 */
static void stat_intervals(struct stat_run *s)
{
	struct timespec next = s->t_on;

	for (;;) {
		next.tv_sec += s->o.interval_ms / 1000;
		next.tv_nsec += (s->o.interval_ms % 1000) * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		if (stat_run_wait(s, &next))
			break;
		if (stat_read(s))
			continue;
		stat_interval_print(s);
		memcpy(s->prev_vals, s->vals, s->nv * sizeof(*s->vals));
	}
}

/* Turn counting on: every session (-p, -t), else the one. */
static int stat_enable(struct stat_run *s)
{
	if (s->ntargets) {
		for (size_t i = 0; i < s->nh; i++)
			if (pmuscope_enable(s->hs[i])) {
				fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->hs[i]));
				return 1;
			}
		return 0;
	}
	if ((!s->o.task && pmuscope_reset(s->h)) || pmuscope_enable(s->h)) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(s->h));
		return 1;
	}
	return 0;
}

/*
 * Count from the go to the end of the run (the command's exit, or SIGINT
 * or SIGTERM, or -p/-t: the end of every thread): 0, or 1 when counting
 * could not start.
 */
static int stat_count(struct stat_run *s)
{
	/* -D: the counters are enabled after the delay, not now. */
	int now = s->delay_ms < 0, ended = 0;

	/*
	 * Counting starts here: keep the path to the wait short and fixed.
	 * Not even the vDSO's clock_gettime(), whose retry loop runs again
	 * when a tick updates the clock under it.
	 */
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	s->t_on = s->t0;
	/* A task session of a command is armed already: it starts at the exec. */
	if (now && (!s->o.task || s->ntargets) && stat_enable(s)) {
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
	if (!now) {
		struct timespec at = s->t0;

		at.tv_sec += s->delay_ms / 1000;
		at.tv_nsec += (s->delay_ms % 1000) * 1000000L;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		/* Ended within the delay: nothing counted. */
		ended = stat_run_wait(s, &at);
		if (!ended)
			s->t_on = at;
		if (!ended && stat_enable(s)) {
			if (s->child > 0) {
				kill(s->child, SIGKILL);
				waitpid(s->child, NULL, 0);
			}
			return 1;
		}
	}
	s->t_last = s->t_on.tv_sec + s->t_on.tv_nsec / 1e9;
	if (!ended && !s->o.interval_ms)
		stat_run_wait(s, NULL);
	else if (!ended)
		stat_intervals(s);
	if (s->child > 0 && !s->reaped)
		while (waitpid(s->child, &s->status, 0) < 0 && errno == EINTR)
			;
	pmuscope_disable(s->h);
	for (size_t i = 1; i < s->nh; i++)
		pmuscope_disable(s->hs[i]);
	return 0;
}

/* The end of a run: its total into s->total (and -I's last interval printed). */
static int stat_collect(struct stat_run *s)
{
	struct report *total = s->total;

	total->elapsed_s = now_s() - (s->t0.tv_sec + s->t0.tv_nsec / 1e9);
	if (s->child > 0) {
		close(s->go[1]);
		s->go[1] = -1;
		total->exit_status = WIFEXITED(s->status) ? WEXITSTATUS(s->status) :
				     128 + WTERMSIG(s->status);
	}
	if (stat_read(s))
		return 1;
	/* The last, partial interval, then the total. */
	if (s->o.interval_ms)
		stat_interval_print(s);
	stat_fill(total, &s->o, s->vals, s->nv, NULL);
	total->kind = REPORT_TOTAL;
	return 0;
}

/*
 * -r: run @run's total into the sums (s->acc) and the spread (s->stats);
 * after the last, s->total gets their means (truncated to an integer, as
 * perf's evsel__copy_res_stats() stores avg_stats() in a u64 count) and
 * each mean's standard deviation.
 */
static void stat_accumulate(struct stat_run *s, unsigned int run, int last)
{
	struct report *t = s->total, *a = s->acc;
	unsigned int n = run + 1;

	report_stats_update(&s->elapsed, t->elapsed_s);
	for (unsigned int i = 0; i < t->ncounters; i++) {
		struct report_counter *c = &t->c[i], *ac = &a->c[i];

		report_stats_update(&s->stats[i], (double)c->count);
		if (!run) {
			*ac = *c;
			continue;
		}
		ac->count += c->count;
		ac->time_enabled += c->time_enabled;
		ac->time_running += c->time_running;
		ac->vflags |= c->vflags;
		for (unsigned int k = 0; k < t->ncpus; k++) {
			ac->cpu_count[k] += c->cpu_count[k];
			ac->cpu_enabled[k] += c->cpu_enabled[k];
			ac->cpu_running[k] += c->cpu_running[k];
			ac->cpu_vflags[k] |= c->cpu_vflags[k];
		}
	}
	if (!last)
		return;
	for (unsigned int i = 0; i < t->ncounters; i++) {
		struct report_counter *c = &t->c[i], *ac = &a->c[i];

		*c = *ac;
		c->count = (uint64_t)s->stats[i].mean;
		c->time_enabled = ac->time_enabled / n;
		c->time_running = ac->time_running / n;
		for (unsigned int k = 0; k < t->ncpus; k++) {
			c->cpu_count[k] = (ac->cpu_count[k] + n / 2) / n;
			c->cpu_enabled[k] = ac->cpu_enabled[k] / n;
			c->cpu_running[k] = ac->cpu_running[k] / n;
		}
		t->noise[i] = report_stats_stddev(&s->stats[i]);
	}
	t->runs = n;
	t->elapsed_s = s->elapsed.mean;
	t->elapsed_sd = report_stats_stddev(&s->elapsed);
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
	for (size_t i = 0; i < s->nh; i++) {
		if (s->pidfds && s->pidfds[i] >= 0)
			close(s->pidfds[i]);
		if (s->hs[i] != s->h)
			pmuscope_close(s->hs[i]);
	}
	free(s->hs);
	free(s->pidfds);
	free(s->procs);
	free(s->ended);
	free(s->targets);
	free(s->pid_list);
	free(s->tid_list);
	free(s->vals);
	free(s->prev_vals);
	free(s->cur);
	free(s->total);
	free(s->acc);
	metrics_free();
	pmuscope_close(s->h);
}

/*
 * -o FILE: opened before anything is counted (a file that cannot be
 * written ends the command at once), with perf's "# started on DATE"
 * line and a blank one first, but for --json and --csv, whose readers
 * expect their own first line: 0 or 1 (said on stderr).
 */
static int stat_open_output(struct stat_run *s)
{
	time_t now;

	if (!s->out_path)
		return 0;
	s->out = fopen(s->out_path, s->append ? "ae" : "we");	/* not CMD's */
	if (!s->out) {
		fprintf(stderr, "pmuscope: cannot write %s: %s\n", s->out_path, strerror(errno));
		return 1;
	}
	if (s->o.fmt == REPORT_TABLE) {
		time(&now);
		fprintf(s->out, "# started on %s\n", ctime(&now));
		fflush(s->out);
	}
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_run s = {
		.o = { .fmt = REPORT_TABLE },
		.go = { -1, -1 }, .ready = { -1, -1 }, .child = -1, .first = 1,
		.delay_ms = -1, .out = stdout,
	};
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	unsigned int runs;
	sigset_t sigs;
	int ret;

	if (cli_parse(&stat_cli, argc, argv, &s.o, &ret))
		goto out;
	if (optind < argc)
		s.o.cmd = &argv[optind];
	ret = stat_check(&s);
	if (!ret)
		ret = stat_open_output(&s);
	if (!ret)
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
	runs = s.repeat ? s.repeat : 1;
	for (unsigned int run = 0; run < runs; run++) {
		int last = run + 1 == runs, sig;

		/* -r of a command counted per task: a fresh session a run. */
		if (run && s.o.task) {
			char err[512];

			pmuscope_close(s.h);
			s.h = NULL;
			ret = pmuscope_open(&s.h, err, sizeof(err));
			if (ret) {
				fprintf(stderr, "pmuscope: %s\n", err);
				ret = open_exit_code(ret);
				goto out;
			}
		}
		s.reaped = 0;
		s.child = -1;
		if (s.o.cmd && stat_fork(&s, &ret))
			goto out;
		ret = stat_count(&s);
		if (!ret)
			ret = stat_collect(&s);
		if (ret)
			goto out;
		/*
		 * A run ended by SIGINT or SIGTERM is the last, and so is one
		 * during which pmuscope took one, or after which one is
		 * pending (sent between the command's end and the next fork).
		 */
		sig = s.child > 0 && WIFSIGNALED(s.status) ? WTERMSIG(s.status) : 0;
		if (sig == SIGINT || sig == SIGTERM || s.interrupted || stat_interrupt_pending())
			last = 1;
		if (s.repeat)
			stat_accumulate(&s, run, last);
		if (last)
			break;
	}
	metrics_fill(s.total, s.total->elapsed_s);
	report_print(s.out, s.total, s.o.fmt, s.first);
	ret = s.child > 0 ? s.total->exit_status : 0;
out:
	if (s.out && s.out != stdout && fclose(s.out) && !ret) {
		fprintf(stderr, "pmuscope: cannot write %s: %s\n", s.out_path, strerror(errno));
		ret = 1;
	}
	stat_free(&s);
	return ret;
}
