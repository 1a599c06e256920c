// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the command-line tool of the pmuscope driver.
 *
 *   pmuscope list [--json]
 *   pmuscope stat [-e EVENTS] [-C CPUS | -a] [-I MS] [--per-cpu]
 *                 [--json | --csv] [-- CMD ...]
 *   pmuscope read [--json]
 *   pmuscope snapshot [-e EVENTS] [-C CPUS | -a] [-I MS] [-n COUNT]
 *                     [--software | --hardware] [--lead US] [--json | --csv]
 *   pmuscope record [-e EVENTS] [-c N | -F HZ] [-C CPUS | -a] [-m KIB]
 *                   [-o FILE] [-- CMD ...]                      (record.c)
 *   pmuscope report [-i FILE] [--symfs DIR] [--pid PID] [--sort sym|line]
 *                   [-n TOP] [--json | --csv]                   (profile.c)
 *   pmuscope amu [-C CPUS | -a] [-I MS] [-n COUNT] [--json | --csv]  (amu.c)
 *   pmuscope export [-e EVENTS] [-C CPUS | -a] (--listen [ADDR:]PORT |
 *                   --textfile DIR [-I MS] [-n COUNT]) [--user NAME]
 *                   [--log FILE] [--log-values] [--timeout S]
 *                   [--duration S]                            (export.c)
 *   pmuscope spe record [-C CPUS | -a] [-o FILE] [OPTIONS] [-d S | -- CMD ...]
 *   pmuscope spe report [-i FILE] [--json] [--top N] [--pid PID | --all-pids]
 *   pmuscope spe dump [-i FILE]                                      (spe.c)
 *
 * Exit status: 0; the command's status with "stat -- CMD" and "record --
 * CMD"; 2 usage or unknown event; 3 event not implemented, or (snapshot
 * --hardware) a CPU without a usable hardware capture, or (record) a
 * driver without streams, or (report) a pmuscope built without elfutils,
 * or (amu) no CPU asked for with an AMU to read, or (read) the perf backend
 * (sysfs shows no /dev/pmuscope session's counters), or (spe record) no SPE
 * source can profile a CPU asked for (spe report --pid: no Context
 * packets to tell the pid by);
 * 4 counters busy (spe record: another session profiles a CPU); 5
 * permission (export: root could not be dropped; read: not root); 6 driver missing or of another API
 * version; 1 anything else (report: a file that cannot be read or is not
 * a valid record file).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/*
 * stat keeps SIGINT, SIGTERM and SIGCHLD blocked and takes them with
 * sigtimedwait(): no handler, no window between checking for a signal and
 * going to sleep in which one could be missed. The command gets the mask
 * it was started with back before exec.
 */
void stat_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGCHLD);
}

/* Exit status for a failure of pmuscope_open(). */
int open_exit_code(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENXIO:
	case -ENODEV:
	case -EPROTO:
		return EXIT_DRIVER;
	case -EPERM:
	case -EACCES:
		return EXIT_PERM;
	default:
		return 1;
	}
}

int exit_code_of(int err)
{
	switch (err) {
	case -EINVAL:
	case -ENOENT:
		return EXIT_USAGE;
	case -EOPNOTSUPP:
		return EXIT_UNSUPPORTED;
	case -EBUSY:
	case -ENOSPC:
		return EXIT_BUSY;
	case -EPERM:
	case -EACCES:
		return EXIT_PERM;
	default:
		return 1;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ list */
struct cpu_type {
	struct pmuscope_cpu_info info;
	uint64_t cpus[PMUSCOPE_CPU_WORDS];
};

static int collect_types(struct cpu_type *types, int max)
{
	struct pmuscope_cpu_info info;
	int n = 0;

	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		int t;

		if (pmuscope_cpu_info(cpu, &info)) {
			if (cpu >= 64)
				break;
			continue;
		}
		if (!info.probed)
			continue;
		for (t = 0; t < n; t++)
			if (!strcmp(types[t].info.name, info.name) &&
			    types[t].info.pmceid0 == info.pmceid0 &&
			    types[t].info.pmceid1 == info.pmceid1 &&
			    types[t].info.num_counters == info.num_counters)
				break;
		if (t == n) {
			if (n == max)
				continue;
			memset(&types[n], 0, sizeof(types[n]));
			types[n].info = info;
			n++;
		}
		types[t].cpus[cpu / 64] |= 1ULL << (cpu % 64);
	}
	return n;
}

static int cmd_list(int argc, char **argv)
{
	struct cpu_type types[16];
	int json = argc > 1 && !strcmp(argv[1], "--json");
	char cpus[4096];
	int n = collect_types(types, 16);

	if (argc > 1 && !json) {
		fprintf(stderr, "usage: pmuscope list [--json]\n");
		return EXIT_USAGE;
	}
	if (!n) {
		fprintf(stderr, "pmuscope: %s not found: is the pmuscope module loaded?\n",
			pmuscope_sysfs_root());
		return EXIT_DRIVER;
	}
	if (json)
		printf("{\"cpu_types\":[");
	for (int t = 0; t < n; t++) {
		const struct pmuscope_cpu_info *info = &types[t].info;
		int first = 1;

		pmuscope_cpulist_format(types[t].cpus, PMUSCOPE_CPU_WORDS, cpus, sizeof(cpus));
		if (json) {
			printf("%s{\"name\":", t ? "," : "");
			report_json_str(stdout, info->name);
			printf(",\"cpus\":\"%s\",\"pmu\":", cpus);
			report_json_str(stdout, info->pmu_version_name);
			printf(",\"counters\":%u,\"counter_width\":%u,\"events\":[",
			       info->num_counters, info->event_width);
		} else {
			printf("%s (CPU%s %s): %s, %u event counters of %u bits and a 64-bit cycle counter\n",
			       info->name, strpbrk(cpus, ",-") ? "s" : "", cpus,
			       info->pmu_version_name, info->num_counters, info->event_width);
		}
		for (size_t i = 0; i < pmuscope_event_count(); i++) {
			const char *name, *desc, *alias;
			uint32_t num;

			pmuscope_event_at(i, &num, &name, &desc);
			if (!pmuscope_cpu_has_event(info, num) || num == 0x1e)
				continue;
			alias = pmuscope_alias_of(num);
			if (json) {
				printf("%s{\"name\":\"%s\",\"number\":%u,\"alias\":%s%s%s,\"description\":\"%s\"}",
				       first ? "" : ",", name, num, alias ? "\"" : "",
				       alias ? alias : "null", alias ? "\"" : "", desc);
			} else {
				printf("  %-24s 0x%04x  %-24s %s\n", name, num,
				       alias ? alias : "", desc);
			}
			first = 0;
		}
		if (json)
			printf("]}");
		else
			printf("  (IMPLEMENTATION DEFINED events: rNNNN, e.g. r0xc0)\n\n");
	}
	if (json)
		printf("]}\n");
	return 0;
}

/* ------------------------------------------------------------------ read */
static void counter_file_name(int i, char *name, size_t len)
{
	if (i == 31)
		snprintf(name, len, "cycle");
	else
		snprintf(name, len, "%d", i);
}

/*
 * Whether the owners of the counters can be read: counter_owner/ and
 * counter_value/ are root only (mode 0400), and without them nothing can
 * be listed. The first counter_owner file found tells; 0 when there is
 * none (no CPU with a PMU).
 */
static int read_denied(void)
{
	struct pmuscope_cpu_info info;
	char path[512], name[8];

	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		if (pmuscope_cpu_info(cpu, &info)) {
			if (cpu >= 64)
				break;
			continue;
		}
		for (int i = 0; i < 32; i++) {
			FILE *f;

			counter_file_name(i, name, sizeof(name));
			snprintf(path, sizeof(path), "%s/cpu%d/counter_owner/%s",
				 pmuscope_sysfs_root(), cpu, name);
			f = fopen(path, "r");
			if (f) {
				fclose(f);
				return 0;
			}
			if (errno == EACCES || errno == EPERM)
				return 1;
		}
	}
	return 0;
}

/* 1 when the driver counts through perf's PMU driver (sysfs backend). */
static int backend_is_perf(void)
{
	char path[512], backend[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/backend", pmuscope_sysfs_root());
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%15s", backend) != 1)
		backend[0] = '\0';
	fclose(f);
	return !strcmp(backend, "perf");
}

/*
 * Exit 5 when the owners cannot be read (not root); on the perf backend
 * the counters of /dev/pmuscope sessions are perf events that sysfs does
 * not show: the sysfs session's are listed, and the exit status is 3 so
 * that a script does not take the listing for all that counts.
 */
static int cmd_read(int argc, char **argv)
{
	int json = argc > 1 && !strcmp(argv[1], "--json");
	char path[512], owner[128], event[64], value[32];
	struct pmuscope_cpu_info info;
	int first = 1, found = 0, perf;

	if (argc > 1 && !json) {
		fprintf(stderr, "usage: pmuscope read [--json]\n");
		return EXIT_USAGE;
	}
	if (read_denied()) {
		fprintf(stderr, "pmuscope: permission denied: who holds the counters and their values "
			"(%s/cpuN/counter_owner/ and counter_value/) can be read by root only "
			"(mode 0400): run pmuscope read as root\n", pmuscope_sysfs_root());
		return EXIT_PERM;
	}
	perf = backend_is_perf();
	if (json)
		printf("{\"counters\":[");
	else
		printf("%-4s %-8s %-44s %-26s %s\n", "CPU", "COUNTER", "OWNER", "EVENT", "VALUE");
	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		if (pmuscope_cpu_info(cpu, &info)) {
			if (cpu >= 64)
				break;
			continue;
		}
		found = 1;
		for (int i = 0; i < 32; i++) {
			char name[8];
			FILE *f;

			counter_file_name(i, name, sizeof(name));
			snprintf(path, sizeof(path), "%s/cpu%d/counter_owner/%s",
				 pmuscope_sysfs_root(), cpu, name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (!fgets(owner, sizeof(owner), f))
				owner[0] = '\0';
			fclose(f);
			owner[strcspn(owner, "\n")] = '\0';
			if (!strcmp(owner, "free"))
				continue;
			snprintf(path, sizeof(path), "%s/cpu%d/counter_event/%s",
				 pmuscope_sysfs_root(), cpu, name);
			f = fopen(path, "r");
			event[0] = '\0';
			if (f) {
				if (!fgets(event, sizeof(event), f))
					event[0] = '\0';
				fclose(f);
			}
			event[strcspn(event, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s/cpu%d/counter_value/%s",
				 pmuscope_sysfs_root(), cpu, name);
			f = fopen(path, "r");
			snprintf(value, sizeof(value), "-");
			if (f) {
				if (!fgets(value, sizeof(value), f))
					snprintf(value, sizeof(value), "-");
				fclose(f);
			}
			value[strcspn(value, "\n")] = '\0';
			if (json) {
				int digits = value[0] != '\0';

				for (const char *v = value; *v; v++)
					digits &= *v >= '0' && *v <= '9';
				printf("%s{\"cpu\":%d,\"counter\":\"%s\",\"owner\":",
				       first ? "" : ",", cpu, name);
				report_json_str(stdout, owner);
				printf(",\"event\":");
				report_json_str(stdout, event);
				printf(",\"value\":%s}", digits ? value : "null");
			} else
				printf("%-4d %-8s %-44s %-26s %s\n", cpu, name, owner, event, value);
			first = 0;
		}
	}
	if (json)
		printf("]}\n");
	if (!found) {
		fprintf(stderr, "pmuscope: %s not found: is the pmuscope module loaded?\n",
			pmuscope_sysfs_root());
		return EXIT_DRIVER;
	}
	if (perf) {
		fprintf(stderr, "pmuscope: backend perf: /dev/pmuscope sessions count with perf "
			"events, whose counters sysfs does not show: %s\n", first ?
			"nothing listed (the sysfs session, cpuN/select, counts nothing)" :
			"listed are the sysfs session's (cpuN/select) alone");
		return EXIT_UNSUPPORTED;
	}
	return 0;
}

/* ------------------------------------------------------------------ stat */
const char * const default_events[] = {
	"cycles", "instructions", "L1D_CACHE_REFILL", "L1D_CACHE",
	"BR_MIS_PRED", "STALL_FRONTEND", "STALL_BACKEND",
};
const size_t nr_default_events = sizeof(default_events) / sizeof(default_events[0]);

static void stat_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope stat [-e EVENT[,EVENT...]] [-C CPUS | -a] [-I MS]\n"
		"                     [--per-cpu] [--json | --csv] [-- CMD [ARG...]]\n"
		"  EVENT: NAME[:u|k|h...]  (pmuscope list), rHEX for raw numbers\n"
		"  With a command and neither -a nor -C, only the command and the\n"
		"  children it creates are counted, wherever they run.\n");
}

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
	if (!o->nr)
		default_set(o, defaults, n);
	if (!o->nr) {
		fprintf(stderr, "pmuscope: none of the default events is implemented on these CPUs (pmuscope list)\n");
		return EXIT_UNSUPPORTED;
	}
	return 0;
}

int add_events(struct stat_opts *o, char *list)
{
	char err[256], *save = NULL;
	int added = 0;

	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int ret;

		if (o->nr == PMUSCOPE_MAX_EVENTS) {
			fprintf(stderr, "pmuscope: at most %d events\n", PMUSCOPE_MAX_EVENTS);
			return -EINVAL;
		}
		ret = pmuscope_event_parse(tok, &o->evs[o->nr], err, sizeof(err));
		if (ret) {
			fprintf(stderr, "pmuscope: %s\n", err);
			return ret;
		}
		o->nr++;
		added++;
	}
	if (!added) {
		fprintf(stderr, "pmuscope: -e needs at least one event\n");
		return -EINVAL;
	}
	return 0;
}

/*
 * A decimal number from @lo to @hi, digits only: strtoull() would take
 * spaces and signs ("-1" as a huge number).
 */
int parse_uint(const char *arg, unsigned long long lo, unsigned long long hi,
	       unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/* -I MS: 10 ms to a day. */
int parse_interval(const char *arg, unsigned int *ms)
{
	unsigned long long v;

	if (parse_uint(arg, 10, 86400000, &v)) {
		fprintf(stderr, "pmuscope: -I needs at least 10 ms (and at most a day): '%s'\n",
			arg);
		return -EINVAL;
	}
	*ms = v;
	return 0;
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

/*
 * Wait until @deadline (CLOCK_MONOTONIC; NULL: none) or the end of the run:
 * the command's exit (reaped into *status) or, without a command, SIGINT or
 * SIGTERM. A SIGINT or SIGTERM sent to pmuscope itself (kill) is passed on
 * to the command; one from the terminal (si_code SI_KERNEL) reached the
 * command's process group already and is not sent twice. Returns 1 when
 * counting should stop, 0 at the deadline. The command's end is taken
 * from its SIGCHLD (pending already if it ended first): the same path
 * either way, so what pmuscope itself adds to the counts stays fixed.
 */
int stat_wait(const struct timespec *deadline, pid_t child, int *status, int *reaped)
{
	struct timespec now, rel;
	siginfo_t si;
	sigset_t set;
	int sig;

	stat_signals(&set);
	for (;;) {
		if (deadline) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			rel.tv_sec = deadline->tv_sec - now.tv_sec;
			rel.tv_nsec = deadline->tv_nsec - now.tv_nsec;
			if (rel.tv_nsec < 0) {
				rel.tv_sec--;
				rel.tv_nsec += 1000000000L;
			}
			if (rel.tv_sec < 0)
				return 0;
		}
		sig = sigtimedwait(&set, &si, deadline ? &rel : NULL);
		if (sig < 0) {
			if (errno == EAGAIN)
				return 0;
			continue;	/* EINTR: SIGSTOP/SIGCONT */
		}
		if (sig == SIGCHLD) {
			if (child > 0 && waitpid(child, status, WNOHANG) == child) {
				*reaped = 1;
				return 1;
			}
			continue;	/* the command stopped or went on */
		}
		if (child <= 0)
			return 1;
		/*
		 * From the terminal (SI_KERNEL) to a command still in our
		 * process group: it has its own copy. Otherwise pass it on.
		 * (A kill of the whole group reaches the command twice: no
		 * way to tell it from a kill of pmuscope alone.)
		 */
		if (si.si_code != SI_KERNEL || getpgid(child) != getpgrp())
			kill(child, sig);
	}
}

static int cmd_stat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "csv", no_argument, NULL, 'V' },
		{ "per-cpu", no_argument, NULL, 'P' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stat_opts o = { .fmt = REPORT_TABLE };
	struct pmuscope_count *vals = NULL, *prev_vals = NULL;
	struct report *cur = NULL, *total = NULL;
	struct pmuscope *h = NULL;
	char err[512], ready_byte;
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old_chld;
	sigset_t sigs, oldmask;
	int masked = 0;
	int opt, ret, status = 0, go[2] = { -1, -1 }, ready[2] = { -1, -1 }, first = 1, reaped = 0;
	unsigned int nv = 0, room, ncpus = 0;
	struct timespec t0, next;
	pid_t child = -1;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:C:aI:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
		case 'C':
		case 'a':
			if (common_opt(opt, optarg, &o) < 0)
				return EXIT_USAGE;
			break;
		case 'I':
			if (parse_interval(optarg, &o.interval_ms))
				return EXIT_USAGE;
			break;
		case 'P':
			o.per_cpu = 1;
			break;
		case 'J':
			o.fmt = REPORT_JSON;
			break;
		case 'V':
			o.fmt = REPORT_CSV;
			break;
		case 'h':
			stat_usage(stdout);
			return 0;
		default:
			stat_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc)
		o.cmd = &argv[optind];

	ret = choose_cpus_events(&o, default_events, nr_default_events);
	if (ret)
		return ret;
	for (int w = 0; w < PMUSCOPE_CPU_WORDS; w++)
		ncpus += __builtin_popcountll(o.cpus[w]);

	ret = pmuscope_open(&h, err, sizeof(err));
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
	o.task = o.cmd && !o.cpus_given && !o.all_cpus;
	if (o.task && !(pmuscope_features(h) & PMUSCOPE_FEAT_TASK)) {
		fprintf(stderr, "pmuscope: the driver cannot count a task (API version 1, or no perf support): counting all CPUs (-a)\n");
		o.task = 0;
	}
	ret = o.task ? 0 : pmuscope_configure(h, o.evs, o.nr, o.cpus, PMUSCOPE_CPU_WORDS);
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(h));
		pmuscope_close(h);
		return exit_code_of(ret);
	}
	room = o.nr * ncpus;
	vals = calloc(room, sizeof(*vals));
	prev_vals = calloc(room, sizeof(*prev_vals));
	cur = calloc(1, sizeof(*cur));
	total = calloc(1, sizeof(*total));
	ret = 1;
	if (!vals || !prev_vals || !cur || !total)
		goto out;
	pmuscope_cpulist_format(o.cpus, PMUSCOPE_CPU_WORDS, total->cpus, sizeof(total->cpus));
	total->per_cpu = o.per_cpu;
	total->kernel_el = pmuscope_kernel_el();
	total->command = o.cmd;
	total->exit_status = -1;
	if (o.task) {
		total->cpus[0] = '\0';
		total->per_cpu = 0;
	}
	total->task = o.task;
	cur->task = o.task;
	memcpy(cur->cpus, total->cpus, sizeof(cur->cpus));
	cur->per_cpu = total->per_cpu;
	cur->kernel_el = total->kernel_el;
	cur->command = o.cmd;
	cur->exit_status = -1;
	cur->kind = REPORT_INTERVAL;

	/*
	 * SIGCHLD ignored (inherited from whoever started pmuscope) would
	 * reap the command unseen and send no SIGCHLD: the default while
	 * pmuscope waits, the inherited one for the command.
	 */
	sigaction(SIGCHLD, &dfl, &old_chld);
	stat_signals(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, &oldmask);
	masked = 1;
	if (o.cmd) {
		/*
		 * As perf does: the child gets ready (signal mask, CPU
		 * affinity) and says so on ready[], then waits on go[] for
		 * counting to start. Counting then covers exec and the
		 * command, not the child's side of fork(), whose share would
		 * otherwise depend on which of the two the scheduler ran first.
		 */
		if (pipe2(go, O_CLOEXEC) || pipe2(ready, O_CLOEXEC)) {
			perror("pmuscope: pipe");
			if (go[0] >= 0)
				close(go[0]);
			goto out;
		}
		child = fork();
		if (child == 0) {
			cpu_set_t set;
			char c;

			close(go[1]);
			close(ready[0]);
			sigaction(SIGCHLD, &old_chld, NULL);
			sigprocmask(SIG_SETMASK, &oldmask, NULL);
			if (o.cpus_given) {
				CPU_ZERO(&set);
				for (int cpu = 0; cpu < CPU_SETSIZE && cpu < PMUSCOPE_MAX_CPUS; cpu++)
					if (cpu_chosen(&o, cpu))
						CPU_SET(cpu, &set);
				if (sched_setaffinity(0, sizeof(set), &set)) {
					fprintf(stderr, "pmuscope: cannot pin '%s' to CPUs %s: %s\n",
						o.cmd[0], total->cpus, strerror(errno));
					_exit(126);
				}
			}
			/* Its exit status (before exec) is then pmuscope's. */
			if (o.task) {
				int cret = pmuscope_configure_task(h, o.evs, o.nr, 0,
								   PMUSCOPE_CFG_INHERIT |
								   PMUSCOPE_CFG_ENABLE_ON_EXEC);

				if (cret) {
					fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(h));
					_exit(exit_code_of(cret));
				}
			}
			if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
				_exit(127);
			execvp(o.cmd[0], o.cmd);
			fprintf(stderr, "pmuscope: cannot run '%s': %s\n", o.cmd[0], strerror(errno));
			_exit(127);
		}
		close(go[0]);
		close(ready[1]);
		if (child < 0) {
			perror("pmuscope: fork");
			goto out;
		}
		/*
		 * EOF: the child failed to get ready and is exiting (the
		 * signals are blocked: the read is not interrupted).
		 */
		if (read(ready[0], &ready_byte, 1) != 1) {
			close(go[1]);
			go[1] = -1;
			while (waitpid(child, &status, 0) < 0 && errno == EINTR)
				;
			ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			goto out;
		}
		close(ready[0]);
		ready[0] = -1;
	}

	/*
	 * Counting starts here: keep the path to the wait short and fixed.
	 * Not even the vDSO's clock_gettime(), whose retry loop runs again
	 * when a tick updates the clock under it.
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* A task session is armed already: it starts at the command's exec. */
	if (!o.task && (pmuscope_reset(h) || pmuscope_enable(h))) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(h));
		if (child > 0) {
			kill(child, SIGKILL);
			waitpid(child, NULL, 0);
		}
		goto out;
	}
	/*
	 * The go: a child killed meanwhile (a Ctrl-C reaches its process
	 * group too) makes this EPIPE, not SIGPIPE (ignored for the write);
	 * its SIGCHLD then ends the wait below.
	 */
	if (child > 0) {
		struct sigaction ign = { .sa_handler = SIG_IGN }, old_pipe;

		sigaction(SIGPIPE, &ign, &old_pipe);
		if (write(go[1], "g", 1) != 1)
			kill(child, SIGKILL);
		sigaction(SIGPIPE, &old_pipe, NULL);
	}
	if (!o.interval_ms) {
		stat_wait(NULL, child, &status, &reaped);
	} else {
		next = t0;
		for (;;) {
			next.tv_sec += o.interval_ms / 1000;
			next.tv_nsec += (o.interval_ms % 1000) * 1000000L;
			if (next.tv_nsec >= 1000000000L) {
				next.tv_sec++;
				next.tv_nsec -= 1000000000L;
			}
			if (stat_wait(&next, child, &status, &reaped))
				break;
			if (pmuscope_read(h, vals, room, &nv)) {
				fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(h));
				continue;
			}
			stat_fill(cur, &o, vals, nv, first ? NULL : prev_vals);
			cur->time_s = now_s() - (t0.tv_sec + t0.tv_nsec / 1e9);
			report_print(stdout, cur, o.fmt, first);
			first = 0;
			memcpy(prev_vals, vals, nv * sizeof(*vals));
		}
	}
	if (child > 0 && !reaped)
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
	pmuscope_disable(h);
	total->elapsed_s = now_s() - (t0.tv_sec + t0.tv_nsec / 1e9);
	if (child > 0) {
		close(go[1]);
		go[1] = -1;
		total->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) :
				     128 + WTERMSIG(status);
	}
	if (pmuscope_read(h, vals, room, &nv)) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(h));
		goto out;
	}
	if (o.interval_ms) {
		/* The last, partial interval, then the total. */
		stat_fill(cur, &o, vals, nv, first ? NULL : prev_vals);
		cur->time_s = total->elapsed_s;
		report_print(stdout, cur, o.fmt, first);
		first = 0;
	}
	stat_fill(total, &o, vals, nv, NULL);
	total->kind = REPORT_TOTAL;
	report_print(stdout, total, o.fmt, first);
	ret = child > 0 ? total->exit_status : 0;
out:
	if (masked) {
		/*
		 * A SIGINT or SIGTERM still pending (a group kill, taken
		 * after the command's end) acts when unblocked: the report
		 * is out by then.
		 */
		fflush(stdout);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		sigaction(SIGCHLD, &old_chld, NULL);
	}
	if (ready[0] >= 0)
		close(ready[0]);
	if (go[1] >= 0)
		close(go[1]);
	free(vals);
	free(prev_vals);
	free(cur);
	free(total);
	pmuscope_close(h);
	return ret;
}

/* -------------------------------------------------------------- snapshot */
static void snapshot_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope snapshot [-e EVENT[,EVENT...]] [-C CPUS | -a] [-I MS] [-n COUNT]\n"
		"                         [--software | --hardware] [--lead US] [--json | --csv]\n"
		"  Counts the events on the CPUs (default: all online) and, MS ms after\n"
		"  enabling (default 100) and every MS ms after, takes COUNT snapshots\n"
		"  (default 1): the counters of every CPU captured at one instant.\n"
		"  --software  never the hardware capture (FEAT_PMUv3_SS)\n"
		"  --hardware  the hardware capture on every CPU, or fail\n"
		"  --lead US   the capture deadline's lead over the request, 1 to %d us\n"
		"              (%d without CAP_PERFMON; default: the driver's, %d)\n",
		PMUSCOPE_SNAP_LEAD_US_MAX, PMUSCOPE_SNAP_LEAD_US_UNPRIV,
		PMUSCOPE_SNAP_LEAD_US_DEFAULT);
}

static int cmd_snapshot(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "csv", no_argument, NULL, 'V' },
		{ "software", no_argument, NULL, 'S' },
		{ "hardware", no_argument, NULL, 'H' },
		{ "lead", required_argument, NULL, 'L' },
		{ "count", required_argument, NULL, 'n' },
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stat_opts o = { .fmt = REPORT_TABLE, .interval_ms = 100 };
	struct pmuscope_snap_info *info = NULL;
	struct report_snap_cpu *rows = NULL;
	struct pmuscope_count *vals = NULL;
	struct report_snapshot snap = { 0 };
	struct pmuscope_snap res;
	struct pmuscope *h = NULL;
	unsigned int room, ncpus = 0, lead_us = 0;
	unsigned long long count = 1, v;
	uint32_t flags = 0;
	char err[512];
	struct timespec t0, next;
	sigset_t sigs, oldmask;
	int opt, ret, status = 0, reaped = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+e:C:aI:n:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'e':
		case 'C':
		case 'a':
			if (common_opt(opt, optarg, &o) < 0)
				return EXIT_USAGE;
			break;
		case 'I':
			if (parse_interval(optarg, &o.interval_ms))
				return EXIT_USAGE;
			break;
		case 'n':
			if (parse_uint(optarg, 1, 1000000000, &count)) {
				fprintf(stderr, "pmuscope: -n needs a count of snapshots, 1 or more: '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'S':
			flags |= PMUSCOPE_SNAP_F_SOFTWARE;
			break;
		case 'H':
			flags |= PMUSCOPE_SNAP_F_HARDWARE;
			break;
		case 'L':
			if (parse_uint(optarg, 1, PMUSCOPE_SNAP_LEAD_US_MAX, &v)) {
				fprintf(stderr, "pmuscope: --lead needs 1 to %d microseconds: '%s'\n",
					PMUSCOPE_SNAP_LEAD_US_MAX, optarg);
				return EXIT_USAGE;
			}
			lead_us = v;
			break;
		case 'J':
			o.fmt = REPORT_JSON;
			break;
		case 'V':
			o.fmt = REPORT_CSV;
			break;
		case 'h':
			snapshot_usage(stdout);
			return 0;
		default:
			snapshot_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "pmuscope: snapshot runs no command: '%s'\n", argv[optind]);
		snapshot_usage(stderr);
		return EXIT_USAGE;
	}
	if ((flags & PMUSCOPE_SNAP_F_SOFTWARE) && (flags & PMUSCOPE_SNAP_F_HARDWARE)) {
		fprintf(stderr, "pmuscope: --software and --hardware exclude each other\n");
		return EXIT_USAGE;
	}

	ret = choose_cpus_events(&o, default_events, nr_default_events);
	if (ret)
		return ret;
	for (int w = 0; w < PMUSCOPE_CPU_WORDS; w++)
		ncpus += __builtin_popcountll(o.cpus[w]);

	ret = pmuscope_open(&h, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", err);
		return open_exit_code(ret);
	}
	if (!(pmuscope_features(h) & PMUSCOPE_FEAT_SNAPSHOT)) {
		fprintf(stderr, "pmuscope: the driver takes no snapshots: no CPU has a PMU it counts with\n");
		ret = EXIT_UNSUPPORTED;
		goto out;
	}
	/* Hardware or nothing: say which CPUs cannot before counting at all. */
	if (flags & PMUSCOPE_SNAP_F_HARDWARE) {
		if (pmuscope_snap_hw_explain(o.cpus, PMUSCOPE_CPU_WORDS, err, sizeof(err))) {
			fprintf(stderr, "pmuscope: hardware snapshot refused: %s\n", err);
			ret = EXIT_UNSUPPORTED;
			goto out;
		}
		if (!(pmuscope_features(h) & PMUSCOPE_FEAT_SNAPSHOT_HW)) {
			fprintf(stderr, "pmuscope: hardware snapshot refused: no CPU has a usable hardware capture\n");
			ret = EXIT_UNSUPPORTED;
			goto out;
		}
	}
	ret = pmuscope_configure(h, o.evs, o.nr, o.cpus, PMUSCOPE_CPU_WORDS);
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(h));
		ret = exit_code_of(ret);
		goto out;
	}
	room = o.nr * ncpus;
	vals = calloc(room, sizeof(*vals));
	info = calloc(ncpus, sizeof(*info));
	rows = calloc(ncpus, sizeof(*rows));
	ret = 1;
	if (!vals || !info || !rows) {
		perror("pmuscope");
		goto out;
	}
	snap.kernel_el = pmuscope_kernel_el();
	snap.nevents = o.nr;
	snap.evs = o.evs;
	snap.cpus = rows;

	/* SIGINT and SIGTERM end the run between snapshots (stat_wait()). */
	stat_signals(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, &oldmask);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pmuscope_reset(h) || pmuscope_enable(h)) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(h));
		goto unmask;
	}
	next = t0;
	ret = 0;
	for (unsigned long long seq = 0; seq < count; seq++) {
		int sret;

		next.tv_sec += o.interval_ms / 1000;
		next.tv_nsec += (o.interval_ms % 1000) * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		if (stat_wait(&next, -1, &status, &reaped))
			break;
		snap.time_s = now_s() - (t0.tv_sec + t0.tv_nsec / 1e9);
		sret = pmuscope_snapshot(h, flags, lead_us, vals, room, info, ncpus, &res);
		if (sret) {
			fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(h));
			ret = exit_code_of(sret);
			break;
		}
		report_snap_fill(rows, info, res.nr_cpus, vals, res.nr_values, o.nr);
		snap.seq = seq;
		snap.freq = res.freq;
		snap.skew = res.skew;
		snap.ncpus = res.nr_cpus;
		report_snapshot_print(stdout, &snap, o.fmt, seq == 0);
	}
	pmuscope_disable(h);
unmask:
	/* A signal still pending acts now: the output is out by then. */
	fflush(stdout);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out:
	free(vals);
	free(info);
	free(rows);
	pmuscope_close(h);
	return ret;
}

/* ------------------------------------------------------------------ main */
static void usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope COMMAND [ARGS]\n"
		"  list [--json]             events implemented on each CPU type\n"
		"  stat [OPTIONS] [-- CMD]   count events (pmuscope stat --help)\n"
		"  snapshot [OPTIONS]        every CPU's counts at one instant\n"
		"                            (pmuscope snapshot --help)\n"
		"  record [OPTIONS] [-- CMD] sample into a file (pmuscope record --help)\n"
		"  report [OPTIONS]          the hottest functions of a recording\n"
		"                            (pmuscope report --help)\n"
		"  amu [OPTIONS]             each CPU's Activity Monitors: effective\n"
		"                            frequency, busy, IPC (pmuscope amu --help)\n"
		"  export [OPTIONS]          the counts as Prometheus metrics, over HTTP\n"
		"                            or in a textfile (pmuscope export --help)\n"
		"  spe record|report|dump    sample operations with the Statistical\n"
		"                            Profiling Extension (pmuscope spe --help)\n"
		"  read [--json]             what every session is counting now\n"
		"  version                   versions of the tool and the driver\n");
}

/*
 * pmuscope_emu.ko is the driver against a register model: every output of
 * every command says so, on stderr so that JSON and CSV stay parseable.
 */
static void emulated_banner(void)
{
	char profile[64];

	if (pmuscope_emulated(profile, sizeof(profile)))
		fprintf(stderr, "pmuscope: EMULATED CPU (pmuscope_emu.ko, register model profile %s): not hardware\n",
			profile);
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	emulated_banner();
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stat"))
		return cmd_stat(argc - 1, argv + 1);
	if (!strcmp(argv[1], "read"))
		return cmd_read(argc - 1, argv + 1);
	if (!strcmp(argv[1], "snapshot"))
		return cmd_snapshot(argc - 1, argv + 1);
	if (!strcmp(argv[1], "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "amu"))
		return cmd_amu(argc - 1, argv + 1);
	if (!strcmp(argv[1], "export"))
		return cmd_export(argc - 1, argv + 1);
	if (!strcmp(argv[1], "spe"))
		return cmd_spe(argc - 1, argv + 1);
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		char profile[64];

		printf("pmuscope %s (API version %d)\n", PMUSCOPE_LIB_VERSION,
		       PMUSCOPE_API_VERSION);
		char path[600], backend[16] = "";
		FILE *f;

		if (pmuscope_emulated(profile, sizeof(profile)))
			printf("driver: pmuscope_emu.ko, EMULATED profile %s (register model, not hardware)\n",
			       profile);
		snprintf(path, sizeof(path), "%s/backend", pmuscope_sysfs_root());
		f = fopen(path, "r");
		if (f) {
			if (fscanf(f, "%15s", backend) == 1)
				printf("backend: %s (%s)\n", backend,
				       strcmp(backend, "perf") ?
				       "pmuscope drives the PMU" :
				       "counting through perf's PMU driver");
			fclose(f);
		} else {
			printf("driver: not loaded\n");
		}
		return 0;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "pmuscope: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int ret = run(argc, argv);

	/* Output that did not reach its file is a failure, not a success. */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pmuscope: cannot write the output: %s\n", strerror(errno));
		if (!ret)
			ret = 1;
	}
	return ret;
}
