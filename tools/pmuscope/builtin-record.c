// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope record: a stream of samples written to a file (datafile.h),
 * with what pmuscope report needs to name the functions: the
 * /proc/PID/maps and names of the processes. The samples are those of a
 * task session (the command and its children, where the driver samples
 * tasks: PMUSCOPE_FEAT_STREAM_TASK), of one task session per thread (-p,
 * -t), or of a CPU session (-a, -C, or a driver that samples CPUs only);
 * with -g they carry call chains.
 *
 * With a command, the command runs under ptrace, and so does every process
 * and thread it creates: each exec stop and each exit stop (the address
 * space still there) writes the process's maps, so that PIE executables
 * and shared libraries resolve. Recording ends when the last of them has
 * ended; the records still in the ring are read after the counters stop.
 * Without one, it ends at SIGINT or SIGTERM, and the maps of the processes
 * seen in samples that still exist are written then.
 *
 * One loop waits with poll() on the session (records), a signalfd
 * (SIGINT, SIGTERM, SIGCHLD: blocked, never a handler) and takes every
 * ptrace stop with waitpid(WNOHANG) after each wakeup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "callgraph.h"
#include "cli.h"
#include "datafile.h"

static const char *const record_default_events[] = { "cycles", "instructions" };

#define RECORD_BUF		(256 * 1024)
#define RECORD_PERIOD_DEFAULT	100000

struct tracee {
	pid_t tid;
	pid_t tgid;
	int fresh;			/* its first stop (SIGSTOP) is still to come */
};

struct record {
	struct pmuscope *h;		/* the session: the command's or the CPUs' */
	struct pmuscope **hs;		/* every session: h, or one a -p/-t thread */
	size_t nh;
	struct df_writer w;
	unsigned char *buf;
	uint64_t samples, lost, lost_records, throttled;
	uint64_t kernel_chains;		/* samples whose chain has kernel frames */
	struct kaddrs {			/* kernel addresses the samples name */
		uint64_t *v;		/* open addressing, 0 is empty */
		size_t n, room;
	} ka;
	int bad;			/* malformed records were seen */
	uint32_t *pids;			/* processes seen in samples */
	size_t npids, pids_room;
	uint32_t *mapped;		/* processes whose maps were written */
	size_t nmapped, mapped_room;
	struct tracee *t;
	size_t nt, t_room;
	pid_t child;
	int child_status;		/* exit code, or 128 + signal */
	int child_done;
};

struct record_args {
	struct stat_opts o;		/* first: stat_opt(); o.task: CMD per task */
	struct pmuscope_stream_cfg scfg;
	const char *out;		/* -o */
	int have_c, have_f;
	int callchain;			/* -g, --call-graph fp */
	unsigned int max_stack;		/* its DEPTH, 1 .. PMUSCOPE_STACK_MAX */
	struct task_target *targets;	/* the threads of -p and -t */
	size_t ntargets, targets_room;
	int have_p, have_t;
};

static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope record [-e EVENT[,EVENT...]] [-c N | -F HZ] [-g | --call-graph fp[,DEPTH]]\n"
		"                       [-C CPUS | -a | -p PID[,PID...] | -t TID[,TID...]]\n"
		"                       [-m KIB] [-o FILE] [-- CMD [ARG...]]\n"
		"  Samples every N events of the first event (-c, default %d) or HZ\n"
		"  times a second (-F, 1 to 1000), with the counts of every event\n"
		"  (default: cycles,instructions where implemented), into FILE (default\n"
		"  pmuscope.data) for pmuscope report; -g: with call chains.\n"
		"  With CMD: CMD and the processes it starts, wherever they run (the\n"
		"  CPUs with -a or -C), until they have all ended (traced with ptrace,\n"
		"  for their maps). -p, -t: those processes' or threads' samples, until\n"
		"  they end. Else the CPUs (default: all online) until SIGINT or SIGTERM.\n",
		RECORD_PERIOD_DEFAULT);
}

static int add_u32(uint32_t **v, size_t *n, size_t *room, uint32_t x)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i] == x)
			return 0;
	if (*n == *room) {
		size_t r = *room ? 2 * *room : 64;
		uint32_t *nv = realloc(*v, r * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*room = r;
	}
	(*v)[(*n)++] = x;
	return 1;
}

/*
 * The set of kernel addresses in the samples (their PCs, their chains'
 * kernel frames): the KALLSYMS chunk holds only the symbols that name
 * them (record_kallsyms()). A return address is looked up one byte
 * before (callgraph.c): both are kept. Grows at half full.
 */
static int ka_add(struct kaddrs *ka, uint64_t a)
{
	size_t i;

	if (!a)
		return 0;
	if (2 * (ka->n + 1) > ka->room) {
		size_t room = ka->room ? 2 * ka->room : 1024;
		uint64_t *v = calloc(room, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t j = 0; j < ka->room; j++) {
			if (!ka->v[j])
				continue;
			for (i = (ka->v[j] * 0x9E3779B97F4A7C15ULL) >> 20 & (room - 1); v[i];
			     i = (i + 1) & (room - 1))
				;
			v[i] = ka->v[j];
		}
		free(ka->v);
		ka->v = v;
		ka->room = room;
	}
	for (i = (a * 0x9E3779B97F4A7C15ULL) >> 20 & (ka->room - 1); ka->v[i];
	     i = (i + 1) & (ka->room - 1))
		if (ka->v[i] == a)
			return 0;
	ka->v[i] = a;
	ka->n++;
	return 1;
}

static void record_maps(struct record *rc, pid_t pid, uint32_t reason)
{
	char path[64], *text;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	text = cli_read_file(path, &len);
	if (!text)
		return;
	df_write_maps(&rc->w, pid, reason, pmuscope_counter_now(), text, len);
	/* Attached: its maps at the end too (libraries loaded meanwhile). */
	if (reason != DF_MAPS_ATTACH)
		add_u32(&rc->mapped, &rc->nmapped, &rc->mapped_room, pid);
	free(text);
}

static void record_comm(struct record *rc, pid_t pid, pid_t tid)
{
	char path[64], *text;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	text = cli_read_file(path, &len);
	if (!text)
		return;
	text[strcspn(text, "\n")] = '\0';
	df_write_comm(&rc->w, pid, tid, pmuscope_counter_now(), text);
	free(text);
}

/* The Tgid of @tid; @tid itself when /proc does not say. */
static pid_t tgid_of(pid_t tid)
{
	pid_t tgid = proc_tgid(tid);

	return tgid > 0 ? tgid : tid;
}

/* Write what one read() gave: the whole records, as they are. */
static int record_chunk(struct record *rc, size_t len)
{
	struct pmuscope_rec r;
	size_t off = 0, good = 0;
	char err[160];
	int ret;

	while ((ret = pmuscope_record_next(rc->buf, len, &off, &r, err, sizeof(err))) == 1) {
		good = off;
		switch (r.type) {
		case PMUSCOPE_REC_SAMPLE: {
			struct pmuscope_chain ch;

			rc->samples++;
			if (r.pid && add_u32(&rc->pids, &rc->npids, &rc->pids_room, r.pid) < 0)
				return -ENOMEM;
			if (pmuscope_record_chain(&r, &ch) == 1 && ch.nr_kernel) {
				rc->kernel_chains++;
				for (unsigned int i = 0; i < ch.nr_kernel; i++) {
					uint64_t a = pmuscope_chain_ip(&ch, i);

					if (ka_add(&rc->ka, a) < 0 || (i && ka_add(&rc->ka, a - 1) < 0))
						return -ENOMEM;
				}
			} else if (!(r.flags & PMUSCOPE_REC_F_USER) && ka_add(&rc->ka, r.pc) < 0) {
				return -ENOMEM;
			}
			break;
		}
		case PMUSCOPE_REC_LOST:
			rc->lost += r.value;
			rc->lost_records++;
			break;
		case PMUSCOPE_REC_THROTTLED:
			rc->throttled++;
			break;
		}
	}
	if (ret < 0 && !rc->bad++)
		fprintf(stderr, "pmuscope: the driver returned a malformed record, left out: %s\n",
			err);
	return df_write_records(&rc->w, rc->buf, good);
}

/* One read of session @h's stream: 1 records written, 0 none, -errno. */
static int record_read(struct record *rc, struct pmuscope *h, int timeout_ms)
{
	ssize_t n = pmuscope_stream_read(h, rc->buf, RECORD_BUF, timeout_ms);

	if (n == -EINTR)
		return 0;
	if (n < 0) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(h));
		return n;
	}
	if (!n)
		return 0;
	if (record_chunk(rc, n)) {
		fprintf(stderr, "pmuscope: cannot write %s: %s\n", rc->w.path,
			strerror(rc->w.failed ? rc->w.failed : ENOMEM));
		return -EIO;
	}
	return 1;
}

/* ------------------------------------------------------------- tracing */
static struct tracee *tracee_find(struct record *rc, pid_t tid)
{
	for (size_t i = 0; i < rc->nt; i++)
		if (rc->t[i].tid == tid)
			return &rc->t[i];
	return NULL;
}

static struct tracee *tracee_add(struct record *rc, pid_t tid, pid_t tgid, int fresh)
{
	if (rc->nt == rc->t_room) {
		size_t r = rc->t_room ? 2 * rc->t_room : 16;
		struct tracee *nt = realloc(rc->t, r * sizeof(*nt));

		if (!nt)
			return NULL;
		rc->t = nt;
		rc->t_room = r;
	}
	rc->t[rc->nt] = (struct tracee){ .tid = tid, .tgid = tgid, .fresh = fresh };
	return &rc->t[rc->nt++];
}

static void tracee_del(struct record *rc, pid_t tid)
{
	for (size_t i = 0; i < rc->nt; i++)
		if (rc->t[i].tid == tid) {
			rc->t[i] = rc->t[--rc->nt];
			return;
		}
}

static size_t threads_of(struct record *rc, pid_t tgid)
{
	size_t n = 0;

	for (size_t i = 0; i < rc->nt; i++)
		n += rc->t[i].tgid == tgid;
	return n;
}

static int wait_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* One ptrace stop or end, as waitpid() gave it. */
static void record_stop(struct record *rc, pid_t tid, int status)
{
	struct tracee *t = tracee_find(rc, tid);
	unsigned long msg = 0;
	int sig, event;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		df_write_exit(&rc->w, t ? t->tgid : tid, tid, pmuscope_counter_now(),
			      wait_code(status));
		tracee_del(rc, tid);
		if (tid == rc->child) {
			rc->child_status = wait_code(status);
			rc->child_done = 1;
		}
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	if (!t) {
		/* A new child's first stop, before its parent's event. */
		t = tracee_add(rc, tid, tgid_of(tid), 1);
		if (!t) {
			ptrace(PTRACE_DETACH, tid, 0, 0);
			return;
		}
	}
	sig = WSTOPSIG(status);
	event = (unsigned int)status >> 16;
	if (sig == SIGTRAP && event) {
		switch (event) {
		case PTRACE_EVENT_EXEC:
			/* A thread other than the leader execs: it takes the leader's id. */
			if (!ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) && (pid_t)msg != tid)
				tracee_del(rc, (pid_t)msg);
			t = tracee_find(rc, tid);
			if (t)
				t->tgid = tid;
			record_maps(rc, tid, DF_MAPS_EXEC);
			record_comm(rc, tid, tid);
			break;
		case PTRACE_EVENT_FORK:
		case PTRACE_EVENT_VFORK:
		case PTRACE_EVENT_CLONE:
			if (!ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) && !tracee_find(rc, msg))
				tracee_add(rc, msg, tgid_of(msg), 1);
			break;
		case PTRACE_EVENT_EXIT:
			/* The leader, or the last thread: the address space as it ends. */
			if (t->tgid == tid || threads_of(rc, t->tgid) == 1)
				record_maps(rc, t->tgid, DF_MAPS_EXIT);
			record_comm(rc, t->tgid, tid);
			break;
		}
		ptrace(PTRACE_CONT, tid, 0, 0);
		return;
	}
	if (sig == SIGSTOP && t->fresh) {
		t->fresh = 0;
		ptrace(PTRACE_CONT, tid, 0, 0);
		return;
	}
	t->fresh = 0;
	{
		siginfo_t si;

		/* A group-stop has no siginfo: let it go on (no job control). */
		if (ptrace(PTRACE_GETSIGINFO, tid, 0, &si) && errno == EINVAL)
			sig = 0;
	}
	ptrace(PTRACE_CONT, tid, 0, sig);
}

static void record_reap(struct record *rc)
{
	int status;
	pid_t tid;

	while ((tid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
		record_stop(rc, tid, status);
	if (tid < 0 && errno == ECHILD)
		rc->nt = 0;		/* nobody left to wait for */
}

/*
 * Fork @cmd stopped under ptrace (pinned to @o's CPUs with -C). Returns
 * its pid with the options set, or -1 (and its exit code in *@code when
 * it ended before its first stop).
 */
static pid_t record_spawn(struct record *rc, const struct record_args *a,
			  const sigset_t *oldmask, int *code)
{
	const struct stat_opts *o = &a->o;
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("pmuscope: fork");
		return -1;
	}
	if (!pid) {
		int err;

		sigprocmask(SIG_SETMASK, oldmask, NULL);
		if (o->cpus_given) {
			cpu_set_t set;

			CPU_ZERO(&set);
			for (int cpu = 0; cpu < CPU_SETSIZE && cpu < PMUSCOPE_MAX_CPUS; cpu++)
				if (cpu_chosen(o, cpu))
					CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set)) {
				fprintf(stderr, "pmuscope: cannot pin '%s': %s\n", o->cmd[0],
					strerror(errno));
				_exit(126);
			}
		}
		/*
		 * Per task: this thread, its children to come, from its exec
		 * on (stat -- CMD's session, streaming). Its exit status
		 * (before the exec) is then pmuscope's.
		 */
		if (o->task) {
			int ret = pmuscope_configure_task(rc->h, o->evs, o->nr, 0,
							  PMUSCOPE_CFG_INHERIT |
							  PMUSCOPE_CFG_ENABLE_ON_EXEC);

			if (!ret)
				ret = pmuscope_stream_start2(rc->h, &a->scfg,
							     a->callchain ? PMUSCOPE_STREAM_F_CALLCHAIN : 0,
							     a->callchain ? a->max_stack : 0);
			if (ret) {
				fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(rc->h));
				_exit(exit_code_of(ret));
			}
		}
		if (ptrace(PTRACE_TRACEME, 0, 0, 0)) {
			fprintf(stderr, "pmuscope: cannot trace '%s': %s\n", o->cmd[0],
				strerror(errno));
			_exit(126);
		}
		raise(SIGSTOP);
		/* cppcheck-suppress unreachableCode ; raise(SIGSTOP) returns when resumed */
		execvp(o->cmd[0], o->cmd);
		err = errno;
		fprintf(stderr, "pmuscope: cannot run '%s': %s\n", o->cmd[0], strerror(err));
		_exit(exec_exit_code(err));
	}
	while (waitpid(pid, &status, __WALL) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFSTOPPED(status)) {
		*code = wait_code(status);
		return -1;
	}
	if (ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_TRACEFORK |
		   PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_EXITKILL)) {
		fprintf(stderr, "pmuscope: cannot trace '%s': %s\n", o->cmd[0], strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		*code = 1;
		return -1;
	}
	rc->child = pid;
	if (!tracee_add(rc, pid, pid, 0)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		*code = 1;
		return -1;
	}
	return pid;
}

/* The processes seen in samples whose maps were never written, still there. */
static void record_leftover_maps(struct record *rc)
{
	for (size_t i = 0; i < rc->npids; i++) {
		pid_t pid = rc->pids[i];
		int done = 0;

		for (size_t j = 0; j < rc->nmapped && !done; j++)
			done = rc->mapped[j] == (uint32_t)pid;
		if (done)
			continue;
		record_maps(rc, pid, DF_MAPS_END);
		record_comm(rc, pid, pid);
	}
}

/*
 * The depth of -g without one: kernel.perf_event_max_stack, as perf
 * record's, at most PMUSCOPE_STACK_MAX (the driver's); that, where the
 * sysctl cannot be read or says less than 1. PMUSCOPE_MAX_STACK_SYSCTL
 * in the environment: another file (the host tests).
 */
static unsigned int record_default_stack(void)
{
	const char *path = getenv("PMUSCOPE_MAX_STACK_SYSCTL");
	unsigned long long v;
	size_t len;
	char *text = cli_read_file(path ? path : "/proc/sys/kernel/perf_event_max_stack", &len);
	char *nl;

	if (!text)
		return PMUSCOPE_STACK_DEFAULT;
	nl = strchr(text, '\n');
	if (nl)
		*nl = 0;
	if (parse_uint(text, 1, ~0ULL, &v))
		v = PMUSCOPE_STACK_DEFAULT;
	free(text);
	return v < PMUSCOPE_STACK_MAX ? v : PMUSCOPE_STACK_MAX;
}

/* --call-graph fp[,DEPTH]: frame pointers, DEPTH frames at most. */
static int record_call_graph(struct record_args *a, const char *arg)
{
	unsigned long long v = record_default_stack();
	const char *comma = strchr(arg, ',');

	if (strncmp(arg, "fp", comma ? (size_t)(comma - arg) : strlen(arg)) ||
	    (comma ? comma - arg : (long)strlen(arg)) != 2) {
		fprintf(stderr, "pmuscope: --call-graph: '%s': only fp (frame pointers), as fp or fp,DEPTH\n",
			arg);
		return EXIT_USAGE;
	}
	if (comma && parse_uint(comma + 1, 1, PMUSCOPE_STACK_MAX, &v)) {
		fprintf(stderr, "pmuscope: --call-graph: a depth of 1 to %d frames: '%s'\n",
			PMUSCOPE_STACK_MAX, comma + 1);
		return EXIT_USAGE;
	}
	a->callchain = 1;
	a->max_stack = v;
	return 0;
}

static int record_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct record_args *a = ctx;
	unsigned long long v;

	switch (opt->value) {
	case 'g':
		return record_call_graph(a, "fp");
	case 'G':
		return record_call_graph(a, arg);
	case 'p':
		a->have_p = 1;
		return parse_task_list('p', arg, &a->targets, &a->ntargets, &a->targets_room);
	case 't':
		a->have_t = 1;
		return parse_task_list('t', arg, &a->targets, &a->ntargets, &a->targets_room);
	case 'c':
		if (parse_uint(arg, PMUSCOPE_STREAM_PERIOD_MIN, PMUSCOPE_STREAM_PERIOD_MAX, &v)) {
			fprintf(stderr, "pmuscope: -c needs %u to %llu events: '%s'\n",
				(unsigned int)PMUSCOPE_STREAM_PERIOD_MIN,
				(unsigned long long)PMUSCOPE_STREAM_PERIOD_MAX, arg);
			return EXIT_USAGE;
		}
		a->scfg.sample_period = v;
		a->have_c = 1;
		return 0;
	case 'F':
		if (parse_uint(arg, 1, 1000, &v)) {
			fprintf(stderr, "pmuscope: -F needs 1 to 1000 samples a second: '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		a->scfg.period_ms = (1000 + v / 2) / v;
		a->have_f = 1;
		return 0;
	case 'm':
		if (parse_uint(arg, PMUSCOPE_STREAM_KIB_MIN, PMUSCOPE_STREAM_KIB_MAX, &v) ||
		    (v & (v - 1))) {
			fprintf(stderr, "pmuscope: -m needs a power of 2 from %d to %d KiB: '%s'\n",
				PMUSCOPE_STREAM_KIB_MIN, PMUSCOPE_STREAM_KIB_MAX, arg);
			return EXIT_USAGE;
		}
		a->scfg.ring_kib = v;
		return 0;
	default:
		return 1;
	}
}

static const struct cli_option record_options[] = {
	OPT_EVENTS(),
	OPT_CPUS(),
	OPT_STRING("output", 'o', "FILE", "the file (default pmuscope.data)", struct record_args, out),
	OPT_CALLBACK("count", 'c', "N", "a sample every N events of the first event (default "
		     CLI_STR(RECORD_PERIOD_DEFAULT) ")", record_opt, 'c'),
	OPT_CALLBACK("freq", 'F', "HZ", "HZ samples a second, 1 to 1000 (timer-driven)",
		     record_opt, 'F'),
	OPT_ALL_CPUS(),
	OPT_CALLBACK(NULL, 'g', NULL, "with call chains: --call-graph fp", record_opt, 'g'),
	OPT_CALLBACK("call-graph", 0, "fp[,DEPTH]",
		     "call chains from the frame pointers, DEPTH frames at most, 1 to "
		     CLI_STR(PMUSCOPE_STACK_MAX) " (default kernel.perf_event_max_stack, at most "
		     CLI_STR(PMUSCOPE_STACK_MAX) ")",
		     record_opt, 'G'),
	OPT_CALLBACK("pid", 'p', "PID[,PID...]",
		     "these processes (their threads now and those they create), until they end",
		     record_opt, 'p'),
	OPT_CALLBACK("tid", 't', "TID[,TID...]", "these threads, until they end", record_opt,
		     't'),
	OPT_CALLBACK("mmap-kib", 'm', "KIB", "the driver's ring of each CPU, a power of 2 from "
		     CLI_STR(PMUSCOPE_STREAM_KIB_MIN) " to " CLI_STR(PMUSCOPE_STREAM_KIB_MAX)
		     " KiB (default " CLI_STR(PMUSCOPE_STREAM_KIB_DEFAULT) ")", record_opt, 'm'),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

const struct cli_options record_cli = { "record", record_options, record_usage };

/* What the options leave to decide, once all are seen: 0, or an exit status. */
static int record_check(struct record_args *a, int argc, char **argv)
{
	if (a->have_c && a->have_f) {
		fprintf(stderr, "pmuscope: -c and -F exclude each other\n");
		return EXIT_USAGE;
	}
	if (a->o.cpus_given && a->o.all_cpus) {
		fprintf(stderr, "pmuscope: -C and -a exclude each other\n");
		return EXIT_USAGE;
	}
	if (a->ntargets && (a->o.cpus_given || a->o.all_cpus)) {
		fprintf(stderr, "pmuscope: -p and -t exclude -a and -C (threads, not CPUs)\n");
		return EXIT_USAGE;
	}
	if (a->ntargets && optind < argc) {
		fprintf(stderr, "pmuscope: -p and -t exclude a command\n");
		return EXIT_USAGE;
	}
	if (a->have_f)
		a->scfg.sample_index = PMUSCOPE_STREAM_NO_EVENT;
	if (optind < argc)
		a->o.cmd = &argv[optind];
	return choose_cpus_events(&a->o, record_default_events,
				  sizeof(record_default_events) / sizeof(record_default_events[0]));
}

static const char *backend_of(struct pmuscope *h)
{
	return (pmuscope_features(h) & PMUSCOPE_FEAT_BACKEND_PERF) ? "perf" : "direct";
}

/*
 * What the driver must have for what was asked: 0, or EXIT_UNSUPPORTED
 * said on stderr, with the backend and what to do. The command is
 * sampled per task where the driver can (a.o.task), else on every CPU.
 */
static int record_features(struct record *rc, struct record_args *a)
{
	uint64_t f = pmuscope_features(rc->h);
	int task_ok = (f & PMUSCOPE_FEAT_TASK) && (f & PMUSCOPE_FEAT_STREAM_TASK);

	if (!(f & PMUSCOPE_FEAT_STREAM)) {
		fprintf(stderr,
			"pmuscope: the driver has no streams of samples on its %s backend (no PMUSCOPE_FEAT_STREAM): load a pmuscope.ko of API 7 or later, which samples on both backends%s\n",
			backend_of(rc->h), (f & PMUSCOPE_FEAT_BACKEND_PERF) ?
			", or this one with backend=direct where perf's PMU driver is kept off (initcall_blacklist=armv8_pmu_driver_init)" :
			"");
		return EXIT_UNSUPPORTED;
	}
	if (a->callchain && !(f & PMUSCOPE_FEAT_CALLCHAIN)) {
		fprintf(stderr,
			"pmuscope: -g: the driver records no call chains on its %s backend (no PMUSCOPE_FEAT_CALLCHAIN): record without -g, or load a pmuscope.ko of API 7 or later\n",
			backend_of(rc->h));
		return EXIT_UNSUPPORTED;
	}
	if (a->ntargets && !task_ok) {
		fprintf(stderr,
			"pmuscope: -%c: the driver cannot sample a task on its %s backend (no PMUSCOPE_FEAT_STREAM_TASK): sample CPUs (-a, -C), or load a pmuscope.ko of API 7 or later\n",
			a->have_p ? 'p' : 't', backend_of(rc->h));
		return EXIT_UNSUPPORTED;
	}
	a->o.task = a->o.cmd && !a->o.cpus_given && !a->o.all_cpus && task_ok;
	if (a->o.cmd && !a->o.cpus_given && !a->o.all_cpus && !task_ok)
		fprintf(stderr,
			"pmuscope record: the driver cannot sample a task on its %s backend (no PMUSCOPE_FEAT_STREAM_TASK): sampling every CPU, other processes' samples too (report --pid picks the command's)\n",
			backend_of(rc->h));
	return 0;
}

/* One session a -p/-t thread, streaming: 0, or an exit status. */
static int record_attach(struct record *rc, struct record_args *a)
{
	char err[512];

	rc->hs = calloc(a->ntargets, sizeof(*rc->hs));
	if (!rc->hs) {
		perror("pmuscope");
		return 1;
	}
	for (size_t i = 0; i < a->ntargets; i++) {
		const struct task_target *t = &a->targets[i];
		struct pmuscope *h;
		int ret;

		if (rc->nh) {
			ret = pmuscope_open(&h, err, sizeof(err));
			if (ret) {
				fprintf(stderr, "pmuscope: %s\n", err);
				return open_exit_code(ret);
			}
		} else {
			h = rc->h;
		}
		rc->hs[rc->nh++] = h;
		/* -p: the threads each thread creates later too. */
		ret = pmuscope_configure_task(h, a->o.evs, a->o.nr, t->tid,
					      t->inherit ? PMUSCOPE_CFG_INHERIT : 0);
		/* A thread of -p that ended since /proc listed it: not an error. */
		if (ret == -ESRCH && t->inherit && t->tid != t->tgid) {
			if (h != rc->h)
				pmuscope_close(h);
			rc->nh--;
			continue;
		}
		if (ret == -EPERM || ret == -EACCES) {
			task_perm_hint("sample", t, ret, pmuscope_errmsg(h));
			return exit_code_of(ret);
		}
		if (!ret)
			ret = pmuscope_stream_start2(h, &a->scfg,
						     a->callchain ? PMUSCOPE_STREAM_F_CALLCHAIN : 0,
						     a->callchain ? a->max_stack : 0);
		if (ret) {
			fprintf(stderr, "pmuscope: thread %d of process %d: %s\n", t->tid, t->tgid,
				pmuscope_errmsg(h));
			return exit_code_of(ret);
		}
	}
	return 0;
}

/*
 * As perf record falls back to cycles:u where perf_event_paranoid refuses
 * it the kernel (tools/perf's evsel__fallback()): the events given
 * without modifiers (and the defaults) count user space only, and stderr
 * says so. Tried on a session of this thread (the command's child
 * configures its own after the fork; -p and -t follow the same rule for
 * a process of the caller's): 0, or an exit status.
 */
static int record_fallback_user(struct record_args *a)
{
	struct pmuscope_event_spec evs[PMUSCOPE_MAX_EVENTS];
	size_t len;
	char err[512], *text = cli_read_file("/proc/sys/kernel/perf_event_paranoid", &len);
	int paranoid = text ? atoi(text) : 2, ret;
	unsigned int changed = 0;
	struct pmuscope *t;

	free(text);
	/*
	 * perf_event_paranoid 1 or lower lets anyone count its own kernel
	 * time; root is taken to have CAP_PERFMON (else its CONFIG says why).
	 */
	if (paranoid <= 1 || !geteuid())
		return 0;
	if (pmuscope_open(&t, err, sizeof(err)))
		return 0;		/* record_session() says why */
	ret = pmuscope_configure_task(t, a->o.evs, a->o.nr, 0, 0);
	if (ret != -EACCES) {
		pmuscope_close(t);
		return 0;
	}
	memcpy(evs, a->o.evs, sizeof(evs));
	for (unsigned int i = 0; i < a->o.nr; i++) {
		/* A default event (no text) has no modifiers either. */
		if (strchr(a->o.evtext[i], ':') ||
		    !(evs[i].flags & (PMUSCOPE_EV_EL1 | PMUSCOPE_EV_EL2)))
			continue;
		evs[i].flags &= ~(PMUSCOPE_EV_EL1 | PMUSCOPE_EV_EL2);
		changed++;
	}
	ret = changed ? pmuscope_configure_task(t, evs, a->o.nr, 0, 0) : -EACCES;
	pmuscope_close(t);
	if (ret)
		return 0;		/* the child's CONFIG says why */
	memcpy(a->o.evs, evs, sizeof(evs));
	fprintf(stderr, "pmuscope: kernel.perf_event_paranoid is %d: user space only (:u), "
		"as perf record falls back\n", paranoid);
	return 0;
}

/* The session and its stream of samples: 0, or an exit status. */
static int record_session(struct record *rc, struct record_args *a)
{
	char err[512];
	int ret;

	ret = pmuscope_open(&rc->h, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", err);
		return open_exit_code(ret);
	}
	ret = record_features(rc, a);
	if (ret)
		return ret;
	/*
	 * Woken at a quarter of the ring, not at each sample (a context
	 * switch each would cost more than the sample); the poll() timeout
	 * in record_loop() reads the rest.
	 */
	a->scfg.wakeup_kib = (a->scfg.ring_kib ? a->scfg.ring_kib : PMUSCOPE_STREAM_KIB_DEFAULT) / 4;
	if (a->ntargets) {
		ret = record_fallback_user(a);
		return ret ? ret : record_attach(rc, a);
	}
	rc->hs = &rc->h;
	rc->nh = 1;
	/* Per task: the command's child configures itself (record_spawn()). */
	if (a->o.task)
		return record_fallback_user(a);
	ret = pmuscope_configure(rc->h, a->o.evs, a->o.nr, a->o.cpus, PMUSCOPE_CPU_WORDS);
	if (!ret)
		ret = pmuscope_stream_start2(rc->h, &a->scfg,
					     a->callchain ? PMUSCOPE_STREAM_F_CALLCHAIN : 0,
					     a->callchain ? a->max_stack : 0);
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(rc->h));
		return exit_code_of(ret);
	}
	return 0;
}

/* The read buffer, the file and its header: 0, or 1 (said on stderr). */
static int record_file(struct record *rc, const struct record_args *a, int argc, char **argv)
{
	struct df_info info = { 0 };
	char **full;
	int ret = 1;

	rc->buf = malloc(RECORD_BUF);
	full = calloc(argc + 2, sizeof(*full));
	if (!rc->buf || !full) {
		perror("pmuscope");
		goto out;
	}
	full[0] = "pmuscope";
	memcpy(full + 1, argv, argc * sizeof(*argv));
	info.freq = pmuscope_counter_freq();
	info.nr_events = a->o.nr;
	memcpy(info.evs, a->o.evs, a->o.nr * sizeof(a->o.evs[0]));
	info.kernel_el = pmuscope_kernel_el();
	info.period_ms = a->scfg.period_ms;
	info.sample_index = a->scfg.sample_index;
	info.sample_period = a->have_f ? 0 : a->scfg.sample_period;
	info.argc = argc + 1;
	info.argv = full;
	info.flags = (a->callchain ? DF_F_CALLCHAIN : 0) |
		     (a->o.task || a->ntargets ? DF_F_TASK : 0);
	info.max_stack = a->callchain ? a->max_stack : 0;
	info.start_time = pmuscope_counter_now();
	if (df_create(&rc->w, a->out, &info)) {
		fprintf(stderr, "pmuscope: cannot write %s: %s\n", a->out,
			strerror(rc->w.failed ? rc->w.failed : errno));
		goto out;
	}
	ret = 0;
out:
	free(full);
	return ret;
}

/*
 * The samples into the file until the command's exit (its last task), or
 * without one SIGINT or SIGTERM: 0, or -1 when the file cannot be written.
 */
/* Whether thread @tid of @tgid is still there (not a zombie). */
static int thread_alive(pid_t tgid, pid_t tid)
{
	char path[80], *text, *p;
	size_t len;
	int alive;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tgid, tid);
	text = cli_read_file(path, &len);
	if (!text)
		return 0;
	/* "TID (COMM) STATE ...": COMM may hold ") ". */
	p = strrchr(text, ')');
	alive = p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
	free(text);
	return alive;
}

/*
 * Whether a target is still there: a thread of -t; for -p, any thread
 * of the process, those it made after the attach too (the sessions
 * inherit into them), not only those listed then.
 */
static int targets_alive(const struct record_args *a)
{
	for (size_t i = 0; i < a->ntargets; i++) {
		const struct task_target *t = &a->targets[i];
		char path[48];
		struct dirent *d;
		DIR *dir;

		if (!t->inherit) {
			if (thread_alive(t->tgid, t->tid))
				return 1;
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/task", t->tgid);
		dir = opendir(path);
		if (!dir)
			continue;
		while ((d = readdir(dir)))
			if (d->d_name[0] != '.' && thread_alive(t->tgid, atoi(d->d_name))) {
				closedir(dir);
				return 1;
			}
		closedir(dir);
	}
	return 0;
}

static int record_loop(struct record *rc, const struct record_args *a, int sfd)
{
	struct pollfd *pfd = calloc(rc->nh + 1, sizeof(*pfd));
	int stop = 0, ret = 0;

	if (!pfd) {
		perror("pmuscope");
		return -1;
	}
	while (!stop && !(a->o.cmd && !rc->nt) && !(a->ntargets && !targets_alive(a))) {
		struct signalfd_siginfo si;

		for (size_t i = 0; i < rc->nh; i++)
			pfd[i] = (struct pollfd){ .fd = pmuscope_fd(rc->hs[i]), .events = POLLIN };
		pfd[rc->nh] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (poll(pfd, rc->nh + 1, 100) < 0 && errno != EINTR) {
			perror("pmuscope: poll");
			break;
		}
		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGCHLD)
				continue;
			if (!a->o.cmd) {
				stop = 1;
				continue;
			}
			/* As stat: the terminal's reached the command already. */
			if (si.ssi_code != SI_KERNEL || getpgid(rc->child) != getpgrp())
				kill(rc->child, si.ssi_signo);
		}
		if (a->o.cmd)
			record_reap(rc);
		for (size_t i = 0; i < rc->nh && !ret; i++)
			if ((pfd[i].revents & POLLIN) && record_read(rc, rc->hs[i], 0) < 0)
				ret = -1;
		if (ret)
			break;
	}
	free(pfd);
	return ret;
}

struct kline {
	uint64_t addr;
	const char *line;		/* in the text, up to its '\n' */
	size_t len;
	int keep;
};

static int kline_cmp(const void *a, const void *b)
{
	const struct kline *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * @text (/proc/kallsyms) cut down to the lines that name @ka's addresses,
 * into a new buffer (*@out, *@outlen): for each address, the function
 * symbols at the nearest address at or below it (callgraph.c's
 * ksym_find() takes the last of them) and at the next address above,
 * which bounds it there. The reader's lookup of every recorded address
 * then gives what the whole text gives. Its rules are callgraph.c's
 * cg_kallsyms_func(), which callgraph.c's reader applies too. Other
 * lines are dropped.
 */
static int kallsyms_cut(const struct kaddrs *ka, const char *text, size_t len,
			char **out, size_t *outlen)
{
	struct kline *l = NULL;
	size_t n = 0, room = 0, size = 0;
	const char *p = text, *end = text + len;
	char line[600], *o;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = (nl ? nl : end) - p;
		uint64_t addr;
		size_t k;

		if (ll < sizeof(line)) {
			memcpy(line, p, ll);
			line[ll] = '\0';
		}
		if (ll < sizeof(line) && cg_kallsyms_func(line, &addr, &k)) {
			if (n == room) {
				struct kline *nl2;

				room = room ? 2 * room : 4096;
				nl2 = realloc(l, room * sizeof(*l));
				if (!nl2) {
					free(l);
					return -ENOMEM;
				}
				l = nl2;
			}
			l[n++] = (struct kline){ addr, p, ll, 0 };
		}
		p += ll + 1;
	}
	if (n)
		qsort(l, n, sizeof(*l), kline_cmp);
	for (size_t j = 0; j < ka->room; j++) {
		uint64_t a = ka->v[j];
		size_t lo = 0, hi = n, i;

		if (!a)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (l[mid].addr <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			continue;		/* below the first symbol: none */
		/* The symbols at the holder's address, then at the next one. */
		for (i = lo; i-- && l[i].addr == l[lo - 1].addr;)
			l[i].keep = 1;
		for (i = lo; i < n && l[i].addr == l[lo].addr; i++)
			l[i].keep = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (l[i].keep)
			size += l[i].len + 1;
	o = *out = malloc(size + 1);
	if (!o) {
		free(l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!l[i].keep)
			continue;
		memcpy(o, l[i].line, l[i].len);
		o += l[i].len;
		*o++ = '\n';
	}
	*outlen = size;
	free(l);
	return 0;
}

/*
 * /proc/kallsyms (PMUSCOPE_KALLSYMS in the environment: another file,
 * for tests) into a KALLSYMS chunk, when kernel frames were recorded and
 * it shows real addresses (with kptr_restrict they all read 0): only the
 * lines that name the recorded addresses (kallsyms_cut()), a few kB where
 * the whole text is several MB.
 */
static void record_kallsyms(struct record *rc, const struct record_args *a)
{
	const char *path = getenv("PMUSCOPE_KALLSYMS");
	char *text, *p, *cut = NULL;
	size_t len, cutlen = 0;
	int real = 0;

	if (!a->callchain || !rc->kernel_chains)
		goto out;
	if (!path || !*path)
		path = "/proc/kallsyms";
	text = cli_read_file(path, &len);
	if (!text) {
		fprintf(stderr, "pmuscope record: kernel frames without their names: cannot read %s: %s\n",
			path, strerror(errno));
		goto out;
	}
	/* cli_read_file() ends the text with a NUL: strtoull() stops there. */
	for (p = text; p && *p && !real; p = p ? p + 1 : NULL) {
		real = strtoull(p, NULL, 16) != 0;
		p = strchr(p, '\n');
	}
	if (!real)
		fprintf(stderr, "pmuscope record: kernel frames without their names: %s shows no addresses (kernel.kptr_restrict)\n",
			path);
	else if (kallsyms_cut(&rc->ka, text, len, &cut, &cutlen))
		fprintf(stderr, "pmuscope record: kernel frames without their names: out of memory\n");
	else
		df_write_kallsyms(&rc->w, pmuscope_counter_now(), cut, cutlen);
	free(cut);
	free(text);
out:
	free(rc->ka.v);
	rc->ka.v = NULL;
	rc->ka.n = rc->ka.room = 0;
}

/* The stop: what is left in the ring, the file finished: the exit status. */
static int record_end(struct record *rc, const struct record_args *a)
{
	struct df_end end = { 0 };
	int ret;

	for (size_t i = 0; i < rc->nh; i++)
		pmuscope_disable(rc->hs[i]);
	/* What is still in the rings. */
	for (size_t i = 0; i < rc->nh; i++) {
		while ((ret = record_read(rc, rc->hs[i], 0)) > 0)
			;
		if (ret < 0)
			return 1;
	}
	record_leftover_maps(rc);
	record_kallsyms(rc, a);
	end.time = pmuscope_counter_now();
	end.samples = rc->samples;
	end.lost = rc->lost;
	end.throttled = rc->throttled;
	df_write_end(&rc->w, &end);
	ret = df_finish(&rc->w);
	if (ret) {
		fprintf(stderr, "pmuscope: cannot write %s: %s\n", a->out, strerror(-ret));
		return 1;
	}
	fprintf(stderr, "pmuscope record: %llu samples, %llu lost, written to %s\n",
		(unsigned long long)rc->samples, (unsigned long long)rc->lost, a->out);
	if (rc->throttled)
		fprintf(stderr, "pmuscope record: sampling throttled %llu times (too many interrupts: a larger -c)\n",
			(unsigned long long)rc->throttled);
	return a->o.cmd ? rc->child_status : 0;
}

/*
 * The command started (stopped at its exec: record_spawn()) and let go,
 * counting enabled: 0, or an exit status.
 */
static int record_start(struct record *rc, const struct record_args *a, sigset_t *oldmask)
{
	int code = 1;

	if (a->o.cmd && record_spawn(rc, a, oldmask, &code) < 0)
		return code;
	/* -p and -t: their maps and names now, in case they end first. */
	for (size_t i = 0; i < a->ntargets; i++) {
		const struct task_target *t = &a->targets[i];

		if (i == 0 || a->targets[i - 1].tgid != t->tgid)
			record_maps(rc, t->tgid, DF_MAPS_ATTACH);
		record_comm(rc, t->tgid, t->tid);
	}
	/* The command's task session is armed: it starts at the exec. */
	for (size_t i = 0; i < rc->nh && !a->o.task; i++) {
		if (!pmuscope_reset(rc->hs[i]) && !pmuscope_enable(rc->hs[i]))
			continue;
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(rc->hs[i]));
		if (rc->child > 0) {
			kill(rc->child, SIGKILL);
			while (waitpid(-1, NULL, __WALL) > 0)
				;
		}
		return 1;
	}
	if (rc->child > 0)
		ptrace(PTRACE_CONT, rc->child, 0, 0);
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct record_args a = {
		.scfg = { .sample_index = 0, .sample_period = RECORD_PERIOD_DEFAULT },
		.out = "pmuscope.data",
	};
	struct record rc = { .child = -1 };
	sigset_t sigs, oldmask;
	int ret, sfd = -1, masked = 0;

	if (cli_parse(&record_cli, argc, argv, &a, &ret) ||
	    (ret = record_check(&a, argc, argv))) {
		free(a.targets);
		return ret;
	}
	a.max_stack = a.max_stack ? a.max_stack : PMUSCOPE_STACK_DEFAULT;
	ret = record_session(&rc, &a);
	if (!ret)
		ret = record_file(&rc, &a, argc, argv);
	if (ret)
		goto out;

	ret = 1;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGCHLD);
	sigprocmask(SIG_BLOCK, &sigs, &oldmask);
	masked = 1;
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		perror("pmuscope: signalfd");
		goto out;
	}
	ret = record_start(&rc, &a, &oldmask);
	if (ret)
		goto out;
	ret = record_loop(&rc, &a, sfd) ? 1 : record_end(&rc, &a);
out:
	if (rc.w.f)
		df_finish(&rc.w);
	if (sfd >= 0)
		close(sfd);
	if (masked)
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
	free(rc.buf);
	free(rc.pids);
	free(rc.mapped);
	free(rc.t);
	for (size_t i = 0; i < rc.nh; i++)
		if (rc.hs[i] != rc.h)
			pmuscope_close(rc.hs[i]);
	if (rc.hs != &rc.h)
		free(rc.hs);
	pmuscope_close(rc.h);
	free(a.targets);
	return ret;
}
