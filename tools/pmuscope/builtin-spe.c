// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope spe: the Statistical Profiling Extension.
 *
 *   pmuscope spe record [-C CPUS | -a] [-o FILE] [OPTIONS] [-d SECONDS | -- CMD ...]
 *   pmuscope spe report [-i FILE] [--json] [--top N] [--pid PID | --all-pids]
 *   pmuscope spe dump [-i FILE]
 *
 * record takes the data from the first source that can profile the CPUs
 * (spe_sources[]: the driver's SPE session, then perf's arm_spe PMU when
 * built in) into a file (spefile.h), and says at the end what each CPU
 * lost, discarded or faulted on. report counts the records (spe_report.c);
 * dump prints every packet as perf report -D does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "spe_report.h"
#include "spe_source.h"
#include "spefile.h"
#include "symbols.h"

/* The sources record tries, in order. */
static const struct spe_source *const spe_sources[] = {
	&spe_source_kernel,
#ifdef PMUSCOPE_HAVE_SPE_PERF
	&spe_source_perf,
#endif
};

#define NSOURCES	(sizeof(spe_sources) / sizeof(spe_sources[0]))
#define SPE_DEFAULT_FILE	"pmuscope-spe.data"

static void spe_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope spe record [-C CPUS | -a] [-o FILE] [--interval N] [--jitter]\n"
		"                           [--filter load,store,branch] [--min-latency N]\n"
		"                           [--events MASK] [--el0] [--el1] [--pa] [--cx] [--ts]\n"
		"                           [-m KIB] [-d SECONDS | -- CMD [ARG...]]\n"
		"       pmuscope spe report [-i FILE] [--json] [--top N] [--pid PID | --all-pids]\n"
		"       pmuscope spe dump [-i FILE]\n"
		"  record: sample operations of the CPUs (default: all online) with the\n"
		"  Statistical Profiling Extension into FILE (default " SPE_DEFAULT_FILE "),\n"
		"  for SECONDS, while CMD runs, or until SIGINT or SIGTERM.\n"
		"  report: the hottest PCs and functions, the load latency histogram, the\n"
		"  data sources and the cache and TLB events of loads, and what was lost.\n"
		"  dump: every chunk and packet, as perf report -D prints arm_spe data.\n");
}

/* spe's usage, that of each subcommand too, lists the options of all (below). */
static const struct cli_options *const spe_sections[5];

/* ---------------------------------------------------------------- record */
static volatile sig_atomic_t spe_stop_signal;

static void spe_on_signal(int sig)
{
	spe_stop_signal = sig;
}

struct spe_rec {
	struct spef_writer w;
	uint64_t chunks, bytes, lost;
	uint32_t flags_seen;
	int error;
};

static int spe_emit(void *ctx, const struct pmuscope_spe_chunk *c, const void *data)
{
	struct spe_rec *r = ctx;

	if (spef_write_chunk(&r->w, c, data)) {
		r->error = -EIO;
		return -EIO;
	}
	r->chunks++;
	r->bytes += c->data_size;
	r->lost += c->lost;
	r->flags_seen |= c->flags;
	return 0;
}

static int spe_filter_parse(const char *arg, uint32_t *ops)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	*ops = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "load"))
			*ops |= PMUSCOPE_SPE_OP_LOAD;
		else if (!strcmp(tok, "store"))
			*ops |= PMUSCOPE_SPE_OP_STORE;
		else if (!strcmp(tok, "branch"))
			*ops |= PMUSCOPE_SPE_OP_BRANCH;
		else
			ret = -EINVAL;
	}
	free(copy);
	return *ops ? ret : -EINVAL;
}

/* Every online CPU: the driver's view, else the kernel's. */
static int spe_online_cpus(uint64_t *cpus, size_t words)
{
	char text[4096], err[160];
	ssize_t n;
	int fd;

	memset(cpus, 0, words * 8);
	if (!pmuscope_online_cpus(cpus, words < PMUSCOPE_CPU_WORDS ? words : PMUSCOPE_CPU_WORDS))
		return 0;
	fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	return pmuscope_cpulist_parse(text, cpus, words, err, sizeof(err));
}

/* Each CPU's accounting on stderr; the counter's frequency, or 0. */
static uint64_t spe_print_status(const struct spe_source *src, void *st, uint64_t flags_seen)
{
	struct pmuscope_spe_cpu cpus[256];
	uint64_t freq = 0, lost = 0, dl = 0;
	int n = src->status(st, cpus, 256, &freq);

	if (n < 0) {
		fprintf(stderr, "pmuscope: the per-CPU accounting is unavailable: %s\n",
			strerror(-n));
		return 0;
	}
	for (int i = 0; i < n && i < 256; i++) {
		const struct pmuscope_spe_cpu *c = &cpus[i];

		fprintf(stderr,
			"  cpu%u: %s, %llu bytes, lost %llu bytes (ring full), discarded %llu bytes (DL, %u times), %u fills, %u collisions, %u spurious, stopped %.3f ms\n",
			c->cpu, pmuscope_spe_state_name(c->state), (unsigned long long)c->bytes,
			(unsigned long long)c->lost_ring, (unsigned long long)c->lost_dl,
			c->dl_events, c->fills, c->collisions, c->spurious, c->stopped_ns / 1e6);
		if (c->state == PMUSCOPE_SPE_FAULTED) {
			char why[200];

			pmuscope_spe_pmbsr_str(c->pmbsr, why, sizeof(why));
			fprintf(stderr, "  cpu%u: FAULTED, profiling stopped: PMBSR_EL1 %s\n",
				c->cpu, why);
		}
		lost += c->lost_ring;
		dl += c->lost_dl;
	}
	if (lost || dl || (flags_seen & (PMUSCOPE_SPE_C_LOST | PMUSCOPE_SPE_C_COLLISION)))
		fprintf(stderr,
			"pmuscope: WARNING: data is missing: %llu bytes lost (ring full), %llu discarded (DL)%s%s\n",
			(unsigned long long)lost, (unsigned long long)dl,
			flags_seen & PMUSCOPE_SPE_C_COLLISION ? ", samples collided" : "",
			lost ? "; a larger ring (-m) or interval (--interval) loses less" : "");
	return freq;
}

struct spe_record_args {
	struct spe_opts o;
	const char *out;		/* -o */
	unsigned long long seconds;	/* -d */
	int cpus_given, all_cpus, els, cx_given;
};

static int spe_record_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct spe_record_args *a = ctx;
	unsigned long long v;
	char err[400];

	switch (opt->value) {
	case 'C':
		if (pmuscope_cpulist_parse(arg, a->o.cpus, SPE_MAX_CPUS / 64, err, sizeof(err))) {
			fprintf(stderr, "pmuscope: %s\n", err);
			return EXIT_USAGE;
		}
		a->cpus_given = 1;
		return 0;
	case 'a':
		a->all_cpus = 1;
		return 0;
	case 'd':
		if (parse_uint(arg, 1, 86400, &a->seconds)) {
			fprintf(stderr, "pmuscope: -d needs seconds, 1 to 86400: '%s'\n", arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'm':
		if (parse_uint(arg, PMUSCOPE_SPE_KIB_MIN, PMUSCOPE_SPE_KIB_MAX, &v) ||
		    (v & (v - 1))) {
			fprintf(stderr, "pmuscope: -m needs a power of 2 from %d to %d KiB: '%s'\n",
				PMUSCOPE_SPE_KIB_MIN, PMUSCOPE_SPE_KIB_MAX, arg);
			return EXIT_USAGE;
		}
		a->o.buffer_kib = v;
		return 0;
	case 'I':
		if (parse_uint(arg, 0, PMUSCOPE_SPE_INTERVAL_MAX, &v) || v % 256) {
			fprintf(stderr, "pmuscope: --interval needs a multiple of 256 up to %llu: '%s'\n",
				(unsigned long long)PMUSCOPE_SPE_INTERVAL_MAX, arg);
			return EXIT_USAGE;
		}
		a->o.interval = v;
		return 0;
	case 'f':
		if (spe_filter_parse(arg, &a->o.ops)) {
			fprintf(stderr, "pmuscope: --filter takes load, store, branch (comma-separated): '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'L':
		if (parse_uint(arg, 0, 65535, &v)) {
			fprintf(stderr, "pmuscope: --min-latency needs cycles, 0 to 65535: '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		a->o.min_latency = v;
		return 0;
	case 'E': {
		char *end;

		errno = 0;
		a->o.events = strtoull(arg, &end, 0);
		if (errno || *end || !*arg || arg[0] == '-') {
			fprintf(stderr, "pmuscope: --events needs a number (a PMSEVFR_EL1 mask): '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	}
	default:
		return 1;
	}
}

/* The flags --jitter, --pa, --cx, --ts set in struct spe_opts (--cx: also cx_given). */
static int spe_record_flag(void *ctx, const struct cli_option *opt, char *arg)
{
	struct spe_record_args *a = ctx;

	(void)arg;
	a->o.flags |= opt->value;
	if (opt->value == PMUSCOPE_SPE_CX)
		a->cx_given = 1;
	return 0;
}

static int spe_record_el(void *ctx, const struct cli_option *opt, char *arg)
{
	struct spe_record_args *a = ctx;

	(void)arg;
	a->els |= opt->value;
	return 0;
}

static const struct cli_option spe_record_options[] = {
	OPT_CALLBACK(NULL, 'C', "CPUS", "these CPUs (0-3,6) instead of every online one",
		     spe_record_opt, 'C'),
	OPT_CALLBACK(NULL, 'a', NULL, "every online CPU", spe_record_opt, 'a'),
	OPT_STRING(NULL, 'o', "FILE", "the file (default " SPE_DEFAULT_FILE ")",
		   struct spe_record_args, out),
	OPT_CALLBACK(NULL, 'd', "SECONDS", "record for SECONDS", spe_record_opt, 'd'),
	OPT_CALLBACK(NULL, 'm', "KIB", "each CPU's ring, a power of 2 (default "
		     CLI_STR(PMUSCOPE_SPE_KIB_DEFAULT) ")", spe_record_opt, 'm'),
	OPT_CALLBACK("interval", 0, "N", "operations between samples, a multiple of 256 "
		     "(default: the CPU's minimum)", spe_record_opt, 'I'),
	OPT_CALLBACK("jitter", 0, NULL, "randomize the interval a little",
		     spe_record_flag, PMUSCOPE_SPE_JITTER),
	OPT_CALLBACK("filter", 0, "OPS", "sample only these operations: load, store, branch",
		     spe_record_opt, 'f'),
	OPT_CALLBACK("min-latency", 0, "N", "only operations of N cycles or more (total latency)",
		     spe_record_opt, 'L'),
	OPT_CALLBACK("events", 0, "MASK", "only operations with all these Events bits (PMSEVFR_EL1)",
		     spe_record_opt, 'E'),
	OPT_CALLBACK("el0", 0, NULL, "sample at EL0 (default: EL0 alone with CMD or unprivileged, "
		     "else EL0 and EL1)", spe_record_el, PMUSCOPE_SPE_EL0),
	OPT_CALLBACK("el1", 0, NULL, "sample at EL1 (privileged)", spe_record_el, PMUSCOPE_SPE_EL1),
	OPT_CALLBACK("pa", 0, NULL, "physical addresses (privileged)", spe_record_flag,
		     PMUSCOPE_SPE_PA),
	OPT_CALLBACK("cx", 0, NULL, "Context packets, the pid (privileged; on by default with CMD "
		     "when running as root)", spe_record_flag, PMUSCOPE_SPE_CX),
	OPT_CALLBACK("ts", 0, NULL, "Timestamp packets", spe_record_flag, PMUSCOPE_SPE_TS),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

static const struct cli_options spe_record_cli = { "spe record", spe_record_options, spe_usage,
						   spe_sections };

/* A spe record run: what its phases share. */
struct spe_run {
	struct spe_record_args a;
	char **cmd;			/* -- CMD, or NULL */
	const struct spe_source *src;
	void *st;			/* the source's state */
	struct spe_rec rec;
	int gate[2];			/* the command's start */
	pid_t child;
	int child_status, reaped;
	char *maps;			/* the command's last /proc/PID/maps */
	size_t maps_len;
};

/* What the options leave to decide, once all are seen: 0, or an exit status. */
static int spe_record_check(struct spe_run *r, int argc, char **argv)
{
	struct spe_record_args *a = &r->a;

	if (a->cpus_given && a->all_cpus) {
		fprintf(stderr, "pmuscope: -C and -a exclude each other\n");
		return EXIT_USAGE;
	}
	if (optind < argc) {
		r->cmd = argv + optind;
		if (a->seconds) {
			fprintf(stderr, "pmuscope: -d and a command: choose one\n");
			return EXIT_USAGE;
		}
	}
	if (!a->els)
		a->els = r->cmd || geteuid() ? PMUSCOPE_SPE_EL0 : PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1;
	a->o.flags |= a->els;
	if (r->cmd && !a->cx_given && !geteuid())
		a->o.flags |= PMUSCOPE_SPE_CX;
	if (!a->cpus_given && spe_online_cpus(a->o.cpus, SPE_MAX_CPUS / 64)) {
		fprintf(stderr, "pmuscope: cannot tell which CPUs are online: give them with -C\n");
		return EXIT_USAGE;
	}
	return 0;
}

/* The first source that can profile these CPUs: 0, or an exit status. */
static int spe_record_source(struct spe_run *r)
{
	char why[NSOURCES][600];
	int rets[NSOURCES], busy = 0, unsupported = 0;

	for (size_t i = 0; i < NSOURCES; i++) {
		why[i][0] = '\0';
		rets[i] = spe_sources[i]->open(&r->a.o, &r->st, why[i], sizeof(why[i]));
		if (!rets[i]) {
			r->src = spe_sources[i];
			break;
		}
		if (rets[i] != -EOPNOTSUPP && rets[i] != -ENODEV && rets[i] != -ENOENT &&
		    rets[i] != -EBUSY) {
			fprintf(stderr, "pmuscope: SPE source %s: %s\n", spe_sources[i]->name,
				why[i][0] ? why[i] : strerror(-rets[i]));
			return exit_code_of(rets[i]);
		}
	}
	if (r->src)
		return 0;
	fprintf(stderr, "pmuscope: no SPE source can profile these CPUs:\n");
	for (size_t i = 0; i < NSOURCES; i++) {
		fprintf(stderr, "  %s: %s\n", spe_sources[i]->name,
			why[i][0] ? why[i] : strerror(-rets[i]));
		busy |= rets[i] == -EBUSY;
		unsupported |= rets[i] == -EOPNOTSUPP;
	}
#ifndef PMUSCOPE_HAVE_SPE_PERF
	fprintf(stderr, "  perf: this pmuscope was built without perf's arm_spe source\n");
#endif
	return busy ? EXIT_BUSY : unsupported ? EXIT_UNSUPPORTED : EXIT_DRIVER;
}

/* The file, its header and the command line: 0, or 1 (said on stderr). */
static int spe_record_file(struct spe_run *r, int argc, char **argv)
{
	const struct spe_record_args *a = &r->a;
	struct spef_header h;
	char err[400], profile[64], **full;
	int ret;

	memset(&h, 0, sizeof(h));
	h.freq = pmuscope_counter_freq();
	h.start_time = pmuscope_counter_now();
	h.flags = !strcmp(r->src->name, "perf") ? SPEF_SOURCE_PERF : SPEF_SOURCE_KERNEL;
	if (pmuscope_emulated(profile, sizeof(profile)))
		h.flags |= SPEF_EMULATED;
	h.spe_flags = a->o.flags;
	h.ops = a->o.ops;
	h.min_latency = a->o.min_latency;
	h.interval = a->o.interval;
	h.events = a->o.events;
	full = calloc(argc + 2, sizeof(char *));
	if (!full)
		return 1;
	full[0] = "pmuscope";
	full[1] = "spe";
	for (int i = 0; i < argc; i++)
		full[i + 2] = argv[i];
	ret = spef_create(&r->rec.w, a->out, &h, argc + 2, full, err, sizeof(err));
	free(full);
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", err);
		return 1;
	}
	return 0;
}

/* The command, forked and waiting on gate[] for the go: 0, or 1. */
static int spe_record_fork(struct spe_run *r)
{
	if (pipe2(r->gate, O_CLOEXEC)) {
		perror("pmuscope: pipe");
		return 1;
	}
	r->child = fork();
	if (r->child < 0) {
		perror("pmuscope: fork");
		return 1;
	}
	if (!r->child) {
		char go;
		int err;

		close(r->gate[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (read(r->gate[0], &go, 1) != 1)
			_exit(127);
		execvp(r->cmd[0], r->cmd);
		err = errno;
		fprintf(stderr, "pmuscope: cannot run %s: %s\n", r->cmd[0], strerror(err));
		_exit(exec_exit_code(err));
	}
	close(r->gate[0]);
	return 0;
}

/* The command's memory map, kept for report while it runs. */
static void spe_record_maps(struct spe_run *r)
{
	char path[64], *text;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/maps", r->child);
	text = cli_read_file(path, &len);
	if (text && len) {
		free(r->maps);
		r->maps = text;
		r->maps_len = len;
	} else {
		free(text);
	}
}

/*
 * Drain the data until -d's seconds, the command's exit, or SIGINT or
 * SIGTERM: 0, or the negative errno of a failed read.
 */
static int spe_record_loop(struct spe_run *r)
{
	struct timespec t0, now;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = r->src->drain(r->st, 100, spe_emit, &r->rec);

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "pmuscope: reading the SPE data: %s\n", strerror(-n));
			return n;
		}
		if (spe_stop_signal)
			return 0;
		if (r->child > 0) {
			spe_record_maps(r);
			if (waitpid(r->child, &r->child_status, WNOHANG) == r->child) {
				r->reaped = 1;
				return 0;
			}
		}
		if (r->a.seconds) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9 >= r->a.seconds)
				return 0;
		}
	}
}

/*
 * The stop: the last data, the command reaped, what was written and
 * lost said, the file finished. @ret: the loop's; the exit status.
 */
static int spe_record_end(struct spe_run *r, int ret)
{
	const struct spe_source *src = r->src;
	char err[400];
	uint64_t freq;
	int ec;

	ec = src->disable(r->st);
	if (ec)
		fprintf(stderr, "pmuscope: SPE source %s: cannot stop: %s\n", src->name,
			strerror(-ec));
	/* What the CPUs handed over at the stop. */
	for (int k = 0; k < 1000; k++) {
		int n = src->drain(r->st, 0, spe_emit, &r->rec);

		if (n <= 0) {
			if (n < 0 && n != -EINTR)
				fprintf(stderr, "pmuscope: reading the last SPE data: %s\n",
					strerror(-n));
			break;
		}
	}
	if (r->child > 0 && !r->reaped) {
		if (spe_stop_signal)
			kill(r->child, spe_stop_signal);
		waitpid(r->child, &r->child_status, 0);
		r->reaped = 1;
	}
	fprintf(stderr, "pmuscope: %llu chunks, %llu bytes of SPE data written to %s; %llu bytes lost before chunks\n",
		(unsigned long long)r->rec.chunks, (unsigned long long)r->rec.bytes, r->a.out,
		(unsigned long long)r->rec.lost);
	freq = spe_print_status(src, r->st, r->rec.flags_seen);
	if (freq)
		r->rec.w.h.freq = freq;	/* the source's word over CNTFRQ_EL0's */
	src->close(r->st);
	if (spef_finish(&r->rec.w, r->child > 0 ? (uint32_t)r->child : 0, r->maps, r->maps_len,
			err, sizeof(err))) {
		fprintf(stderr, "pmuscope: %s\n", err);
		ret = ret ? ret : -EIO;
	}
	free(r->maps);
	if (r->rec.error && !ret)
		ret = r->rec.error;
	if (ret)
		return 1;
	if (r->child > 0 && r->reaped)
		return WIFEXITED(r->child_status) ? WEXITSTATUS(r->child_status) :
		       128 + WTERMSIG(r->child_status);
	return 0;
}

static int spe_record(int argc, char **argv)
{
	struct spe_run r = { .a = { .out = SPE_DEFAULT_FILE }, .gate = { -1, -1 } };
	struct sigaction sa;
	int ret;

	if (cli_parse(&spe_record_cli, argc, argv, &r.a, &ret))
		return ret;
	ret = spe_record_check(&r, argc, argv);
	if (!ret)
		ret = spe_record_source(&r);
	if (ret)
		return ret;
	fprintf(stderr, "pmuscope: SPE source: %s%s\n", r.src->name,
		!strcmp(r.src->name, "kernel") ? " (the pmuscope driver's SPE session)" :
		!strcmp(r.src->name, "perf") ? " (perf's arm_spe PMU)" : "");
	if (r.cmd && !(r.a.o.flags & PMUSCOPE_SPE_CX))
		fprintf(stderr, "pmuscope: no Context packets (--cx needs privilege): report cannot tell the command's samples from others on these CPUs\n");
	if (spe_record_file(&r, argc, argv))
		goto fail;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = spe_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (r.cmd && spe_record_fork(&r))
		goto fail;
	ret = r.src->enable(r.st);
	if (ret) {
		fprintf(stderr, "pmuscope: SPE source %s: cannot enable: %s\n", r.src->name,
			strerror(-ret));
		if (r.child > 0) {
			close(r.gate[1]);
			waitpid(r.child, NULL, 0);
		}
		r.src->close(r.st);
		return exit_code_of(ret);
	}
	if (r.child > 0) {
		if (write(r.gate[1], "g", 1) != 1)
			perror("pmuscope: starting the command");
		close(r.gate[1]);
	}
	return spe_record_end(&r, spe_record_loop(&r));
fail:
	r.src->close(r.st);
	return 1;
}

/* ---------------------------------------------------------------- report */
struct spe_map {
	uint64_t start, end, pgoff;
	const char *path;
};

/* The recorded command's maps: its file-backed mappings. */
static size_t spe_maps_parse(char *text, struct spe_map **out)
{
	size_t n = 0, room = 0;
	struct spe_map *m = NULL;

	for (char *line = text, *next; line && *line; line = next) {
		unsigned long long s, e, off;
		int pos = 0;
		char perms[8];

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 ||
		    !pos || line[pos] != '/' || perms[2] != 'x')
			continue;
		if (n == room) {
			struct spe_map *nm = realloc(m, (room ? room * 2 : 32) * sizeof(*m));

			if (!nm)
				break;
			m = nm;
			room = room ? room * 2 : 32;
		}
		m[n++] = (struct spe_map){ s, e, off, line + pos };
	}
	*out = m;
	return n;
}

struct spe_fn {
	char *name;
	uint64_t count;
};

static int spe_fn_cmp(const void *a, const void *b)
{
	const struct spe_fn *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

static const char *spe_resolve(struct sym_table *syms, const struct spe_map *maps, size_t nmaps,
			       const struct spe_pc *p, char *buf, size_t len)
{
	const char *name;

	if (p->el)
		return "[kernel]";
	if (!syms)
		return "?";
	for (size_t i = 0; i < nmaps; i++) {
		if (p->pc < maps[i].start || p->pc >= maps[i].end)
			continue;
		if (sym_resolve(syms, maps[i].path, p->pc - maps[i].start + maps[i].pgoff,
				&name, NULL, 0) == 1) {
			snprintf(buf, len, "%s", name);
			return buf;
		}
		snprintf(buf, len, "[%s]", strrchr(maps[i].path, '/') + 1);
		return buf;
	}
	return "?";
}

static void spe_json_u(const char *key, uint64_t v, int comma)
{
	printf("%s\"%s\":%llu", comma ? "," : "", key, (unsigned long long)v);
}

struct spe_report_args {
	const char *in;			/* -i */
	unsigned long long top;		/* --top */
	long pid;			/* --pid */
	int json, all_pids;
};

static int spe_report_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct spe_report_args *a = ctx;

	switch (opt->value) {
	case 'n':
		if (parse_uint(arg, 1, 1000000, &a->top)) {
			fprintf(stderr, "pmuscope: --top needs a number, 1 or more: '%s'\n", arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'p':
		return parse_pid(arg, 1, &a->pid) ? EXIT_USAGE : 0;
	default:
		return 1;
	}
}

static const struct cli_option spe_report_options[] = {
	OPT_STRING(NULL, 'i', "FILE", "the recording (default " SPE_DEFAULT_FILE ")",
		   struct spe_report_args, in),
	OPT_SET("json", 0, "JSON output", struct spe_report_args, json, 1),
	OPT_CALLBACK("top", 'n', "N", "the N hottest PCs (default 10)", spe_report_opt, 'n'),
	OPT_CALLBACK("pid", 0, "PID", "only records whose Context packet is PID (default: the "
		     "recorded command, when the file has Context packets)", spe_report_opt, 'p'),
	OPT_SET("all-pids", 0, "every process, also without Context packets",
		struct spe_report_args, all_pids, 1),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

static const struct cli_options spe_report_cli = { "spe report", spe_report_options, spe_usage,
						   spe_sections };

/* A spe report: what its phases share. */
struct spe_rep {
	struct spe_report_args a;
	struct spef f;
	struct spe_stats s;
	char note[300];			/* what --pid did */
	struct spe_pc *hot;		/* the --top hottest PCs */
	size_t nhot;
	struct spe_map *maps;		/* the command's, from the file */
	size_t nmaps;
	char *maps_copy;
	struct sym_table *syms;
	struct spe_fn *fns;		/* every function sampled, hottest first */
	size_t nfns;
};

/*
 * A first pass: are there Context packets to restrict to a pid with?
 * (--pid, or the file's command without --all-pids.) 0, with *@ret
 * EXIT_UNSUPPORTED when --pid cannot be honoured; 1 out of memory.
 */
static int spe_report_pid(struct spe_rep *r, int *ret)
{
	struct pmuscope_spe_chunk c;
	const unsigned char *data;
	size_t off = 0;

	if (!r->a.all_pids && (r->a.pid > 0 || r->f.h.pid)) {
		uint32_t want = r->a.pid > 0 ? (uint32_t)r->a.pid : r->f.h.pid;
		char err[600];

		while (pmuscope_spe_chunk_next(r->f.chunks, r->f.h.data_size, &off, &c, &data, err,
					       sizeof(err)) == 1)
			spe_stats_chunk(&r->s, &c, data);
		if (r->s.with_context) {
			r->s.pid_filter = 1;
			r->s.pid = want;
			snprintf(r->note, sizeof(r->note), "restricted to pid %u (Context packets)", want);
		} else {
			snprintf(r->note, sizeof(r->note),
				 "NOT restricted to pid %u: the data has no Context packets (record with --cx, as root, on a kernel with CONFIG_PID_IN_CONTEXTIDR): every process on the CPUs is counted",
				 want);
			if (r->a.pid > 0)
				*ret = EXIT_UNSUPPORTED;
		}
		spe_stats_free(&r->s);
		if (spe_stats_init(&r->s))
			return 1;
		r->s.pid_filter = r->note[0] == 'r';
		r->s.pid = want;
	}
	return 0;
}

/* Count every record; the hottest PCs; the symbols: 0, or 1 out of memory. */
static int spe_report_scan(struct spe_rep *r)
{
	struct pmuscope_spe_chunk c;
	const unsigned char *data;
	char err[600];
	size_t off = 0;

	while (pmuscope_spe_chunk_next(r->f.chunks, r->f.h.data_size, &off, &c, &data, err,
				       sizeof(err)) == 1)
		if (spe_stats_chunk(&r->s, &c, data)) {
			fprintf(stderr, "pmuscope: out of memory\n");
			return 1;
		}
	r->hot = calloc(r->a.top, sizeof(*r->hot));
	if (!r->hot)
		return 1;
	r->nhot = spe_stats_top(&r->s, r->hot, r->a.top);
	if (r->f.maps && sym_available()) {
		r->maps_copy = strndup(r->f.maps, r->f.h.maps_size);
		if (r->maps_copy)
			r->nmaps = spe_maps_parse(r->maps_copy, &r->maps);
		r->syms = sym_new(NULL);
	}
	return 0;
}

static void spe_report_functions(struct spe_rep *r)
{
	/* Every PC resolved, summed by name. */
	if (r->syms || !sym_available()) {
		struct spe_pc *all = calloc(r->s.nr_pcs ? r->s.nr_pcs : 1, sizeof(*all));
		size_t nall = all ? spe_stats_top(&r->s, all, r->s.nr_pcs) : 0;

		r->fns = calloc(nall ? nall : 1, sizeof(*r->fns));
		for (size_t i = 0; r->fns && i < nall; i++) {
			char buf[300];
			const char *name = spe_resolve(r->syms, r->maps, r->nmaps, &all[i], buf, sizeof(buf));
			size_t k;

			for (k = 0; k < r->nfns && strcmp(r->fns[k].name, name); k++)
				;
			if (k == r->nfns) {
				r->fns[k].name = strdup(name);
				if (!r->fns[k].name)
					break;
				r->nfns++;
			}
			r->fns[k].count += all[i].count;
		}
		qsort(r->fns, r->nfns, sizeof(*r->fns), spe_fn_cmp);
		free(all);
	}

}

static void spe_report_json(const struct spe_rep *r)
{
	static const char *const flag_names[4] = { "lost", "collision", "stopped", "final" };

	printf("{\"file\":");
	report_json_str(stdout, r->a.in);
	printf(",\"source\":\"%s\",\"emulated\":%s",
	       r->f.h.flags & SPEF_SOURCE_PERF ? "perf" : "kernel",
	       r->f.h.flags & SPEF_EMULATED ? "true" : "false");
	printf(",\"command\":[");
	for (uint32_t i = 0; i < r->f.h.argc; i++) {
		printf("%s", i ? "," : "");
		report_json_str(stdout, r->f.argv[i]);
	}
	printf("],\"pid\":%u,\"pid_filter\":%s", r->s.pid_filter ? r->s.pid : r->f.h.pid,
	       r->s.pid_filter ? "true" : "false");
	if (r->note[0]) {
		printf(",\"note\":");
		report_json_str(stdout, r->note);
	}
	spe_json_u("records", r->s.records, 1);
	spe_json_u("loads", r->s.loads, 1);
	spe_json_u("stores", r->s.stores, 1);
	spe_json_u("branches", r->s.branches, 1);
	spe_json_u("other", r->s.other, 1);
	spe_json_u("filtered_out", r->s.filtered_out, 1);
	spe_json_u("partial_records", r->s.partial, 1);
	spe_json_u("bad_packets", r->s.bad_packets, 1);
	spe_json_u("chunks", r->s.chunks, 1);
	spe_json_u("data_bytes", r->s.data_bytes, 1);
	spe_json_u("lost_bytes", r->s.lost_bytes, 1);
	printf(",\"chunk_flags\":{");
	for (unsigned int b = 0; b < 4; b++)
		spe_json_u(flag_names[b], r->s.chunk_flags[b], b);
	printf("},\"hot_pcs\":[");
	for (size_t i = 0; i < r->nhot; i++) {
		char buf[300];

		printf("%s{\"pc\":\"0x%llx\",\"el\":%u,\"samples\":%llu,\"function\":",
		       i ? "," : "", (unsigned long long)r->hot[i].pc, r->hot[i].el,
		       (unsigned long long)r->hot[i].count);
		report_json_str(stdout, spe_resolve(r->syms, r->maps, r->nmaps, &r->hot[i], buf,
						    sizeof(buf)));
		printf("}");
	}
	printf("],\"functions\":[");
	for (size_t i = 0; i < r->nfns && i < r->a.top; i++) {
		printf("%s{\"function\":", i ? "," : "");
		report_json_str(stdout, r->fns[i].name);
		printf(",\"samples\":%llu}", (unsigned long long)r->fns[i].count);
	}
	printf("],\"load_latency\":{\"loads\":%llu,\"mean\":%.2f,\"max\":%llu,\"buckets\":[",
	       (unsigned long long)r->s.lat_loads,
	       r->s.lat_loads ? (double)r->s.lat_sum / r->s.lat_loads : 0.0,
	       (unsigned long long)r->s.lat_max);
	for (unsigned int b = 0; b < SPE_LAT_BUCKETS; b++) {
		printf("%s{\"min\":%u,", b ? "," : "", spe_lat_edges[b]);
		if (b + 1 < SPE_LAT_BUCKETS)
			printf("\"max\":%u,", spe_lat_edges[b + 1] - 1);
		printf("\"count\":%llu}", (unsigned long long)r->s.lat_hist[b]);
	}
	printf("]},\"data_source\":[");
	for (unsigned int i = 0; i < r->s.nr_src; i++)
		printf("%s{\"source\":%llu,\"loads\":%llu}", i ? "," : "",
		       (unsigned long long)r->s.src_value[i], (unsigned long long)r->s.src_count[i]);
	printf("],\"events\":{");
	for (unsigned int b = 0, k = 0; b < SPE_EV_BITS; b++) {
		const char *name = pmuscope_spe_event_name(b);

		if (!name)
			continue;
		printf("%s\"%s\":{\"records\":%llu,\"loads\":%llu}", k++ ? "," : "", name,
		       (unsigned long long)r->s.ev[b], (unsigned long long)r->s.ev_loads[b]);
	}
	printf("}}\n");
}

/* The text report's head, the hottest PCs and functions. */
static void spe_report_text(const struct spe_rep *r)
{
	printf("# SPE report of %s: source %s%s\n", r->a.in,
	       r->f.h.flags & SPEF_SOURCE_PERF ? "perf (arm_spe PMU)" : "kernel (pmuscope driver)",
	       r->f.h.flags & SPEF_EMULATED ? ", EMULATED (register model, not hardware)" : "");
	printf("# command:");
	for (uint32_t i = 0; i < r->f.h.argc; i++)
		printf(" %s", r->f.argv[i]);
	printf("\n");
	if (!r->f.h.finished)
		printf("# WARNING: the recording did not finish (its file has no final header)\n");
	if (r->note[0])
		printf("# %s\n", r->note);
	printf("# %llu records: %llu loads, %llu stores, %llu branches, %llu other%s",
	       (unsigned long long)r->s.records, (unsigned long long)r->s.loads,
	       (unsigned long long)r->s.stores, (unsigned long long)r->s.branches,
	       (unsigned long long)r->s.other, r->s.filtered_out ? "" : "\n");
	if (r->s.filtered_out)
		printf(" (%llu of other processes left out)\n", (unsigned long long)r->s.filtered_out);
	printf("# %llu bytes of data in %llu chunks; lost %llu bytes; chunks flagged lost %llu, collision %llu, stopped %llu, final %llu\n",
	       (unsigned long long)r->s.data_bytes, (unsigned long long)r->s.chunks,
	       (unsigned long long)r->s.lost_bytes, (unsigned long long)r->s.chunk_flags[0],
	       (unsigned long long)r->s.chunk_flags[1], (unsigned long long)r->s.chunk_flags[2],
	       (unsigned long long)r->s.chunk_flags[3]);
	if (r->s.bad_packets || r->s.partial)
		printf("# WARNING: %llu bad packets, %llu records cut short\n",
		       (unsigned long long)r->s.bad_packets, (unsigned long long)r->s.partial);
	printf("\nHottest PCs:\n  %10s %7s %4s  %-18s  %s\n", "samples", "share", "EL", "PC",
	       "function");
	for (size_t i = 0; i < r->nhot; i++) {
		char buf[300];

		printf("  %10llu %6.2f%% el%u  0x%016llx  %s\n", (unsigned long long)r->hot[i].count,
		       r->s.records ? 100.0 * r->hot[i].count / r->s.records : 0.0, r->hot[i].el,
		       (unsigned long long)r->hot[i].pc,
		       spe_resolve(r->syms, r->maps, r->nmaps, &r->hot[i], buf, sizeof(buf)));
	}
	if (!sym_available())
		printf("  (functions not resolved: this pmuscope was built without elfutils)\n");
	else if (!r->f.maps)
		printf("  (user functions not resolved: the file has no maps of a command)\n");
	if (r->nfns && r->syms) {
		printf("\nHottest functions:\n  %10s %7s  %s\n", "samples", "share", "function");
		for (size_t i = 0; i < r->nfns && i < r->a.top; i++)
			printf("  %10llu %6.2f%%  %s\n", (unsigned long long)r->fns[i].count,
			       r->s.records ? 100.0 * r->fns[i].count / r->s.records : 0.0, r->fns[i].name);
	}
}

/* The text report's load latency, data sources, events and CPUs. */
static void spe_report_hist(const struct spe_rep *r)
{
	printf("\nLoad latency (total, cycles): %llu loads, mean %.1f, max %llu\n",
	       (unsigned long long)r->s.lat_loads, r->s.lat_loads ? (double)r->s.lat_sum / r->s.lat_loads : 0.0,
	       (unsigned long long)r->s.lat_max);
	for (unsigned int b = 0; b < SPE_LAT_BUCKETS; b++) {
		char range[32];
		unsigned int bar = r->s.lat_loads ? (unsigned int)(40 * r->s.lat_hist[b] / r->s.lat_loads) : 0;

		if (b + 1 < SPE_LAT_BUCKETS)
			snprintf(range, sizeof(range), "%u-%u", spe_lat_edges[b], spe_lat_edges[b + 1] - 1);
		else
			snprintf(range, sizeof(range), "%u+", spe_lat_edges[b]);
		printf("  %10s %10llu %6.2f%% %.*s\n", range, (unsigned long long)r->s.lat_hist[b],
		       r->s.lat_loads ? 100.0 * r->s.lat_hist[b] / r->s.lat_loads : 0.0, bar,
		       "########################################");
	}
	printf("\nData source of loads (IMPLEMENTATION DEFINED encoding): %llu loads\n",
	       (unsigned long long)r->s.src_loads);
	for (unsigned int i = 0; i < r->s.nr_src; i++)
		printf("  source %-6llu %10llu %6.2f%%\n", (unsigned long long)r->s.src_value[i],
		       (unsigned long long)r->s.src_count[i],
		       100.0 * r->s.src_count[i] / r->s.src_loads);
	if (r->s.src_other)
		printf("  other        %10llu\n", (unsigned long long)r->s.src_other);
	printf("\nEvents:            %10s %10s %8s\n", "records", "loads", "of loads");
	for (unsigned int b = 0; b < SPE_EV_BITS; b++) {
		const char *name = pmuscope_spe_event_name(b);

		if (!name || (!r->s.ev[b] && b > 11))
			continue;
		printf("  %-16s %10llu %10llu %7.2f%%\n", name, (unsigned long long)r->s.ev[b],
		       (unsigned long long)r->s.ev_loads[b],
		       r->s.loads ? 100.0 * r->s.ev_loads[b] / r->s.loads : 0.0);
	}
	printf("\nPer CPU:\n");
	for (unsigned int cpu = 0; cpu < SPE_REPORT_CPUS; cpu++) {
		const struct spe_cpu_acct *a = &r->s.cpu[cpu];

		if (!a->chunks)
			continue;
		printf("  cpu%u: %llu chunks, %llu bytes, lost %llu bytes; flagged lost %llu, collision %llu, stopped %llu\n",
		       cpu, (unsigned long long)a->chunks, (unsigned long long)a->bytes,
		       (unsigned long long)a->lost, (unsigned long long)a->flags[0],
		       (unsigned long long)a->flags[1], (unsigned long long)a->flags[2]);
	}
}

static int spe_report(int argc, char **argv)
{
	struct spe_rep r = { .a = { .in = SPE_DEFAULT_FILE, .top = 10, .pid = -1 } };
	char err[600];
	int ret = 0;

	if (cli_parse(&spe_report_cli, argc, argv, &r.a, &ret))
		return ret;
	if (optind < argc) {
		cli_usage_with_options(stderr, &spe_report_cli);
		return EXIT_USAGE;
	}
	ret = spef_read(r.a.in, &r.f, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", err);
		return 1;
	}
	if (spe_stats_init(&r.s) || spe_report_pid(&r, &ret)) {
		spef_free(&r.f);
		return 1;
	}
	if (spe_report_scan(&r)) {
		ret = 1;
		goto out;
	}
	spe_report_functions(&r);
	if (r.a.json) {
		spe_report_json(&r);
	} else {
		spe_report_text(&r);
		spe_report_hist(&r);
	}
out:
	for (size_t i = 0; i < r.nfns; i++)
		free(r.fns[i].name);
	free(r.fns);
	if (r.syms)
		sym_free(r.syms);
	free(r.maps);
	free(r.maps_copy);
	free(r.hot);
	spe_stats_free(&r.s);
	spef_free(&r.f);
	return ret;
}

/* ------------------------------------------------------------------ dump */
struct spe_dump_args {
	const char *in;			/* -i */
};

static const struct cli_option spe_dump_options[] = {
	OPT_STRING(NULL, 'i', "FILE", "the recording (default " SPE_DEFAULT_FILE ")",
		   struct spe_dump_args, in),
	OPT_HELP(NULL, 'h'),
	OPT_END(),
};

static const struct cli_options spe_dump_cli = { "spe dump", spe_dump_options, spe_usage,
						   spe_sections };

static int spe_dump(int argc, char **argv)
{
	struct spe_dump_args d = { .in = SPE_DEFAULT_FILE };
	struct pmuscope_spe_chunk c;
	const unsigned char *data;
	char err[600], line[400], flags[64];
	struct spef f;
	size_t off = 0, n = 0;
	int ret;

	if (cli_parse(&spe_dump_cli, argc, argv, &d, &ret))
		return ret;
	if (optind < argc) {
		cli_usage_with_options(stderr, &spe_dump_cli);
		return EXIT_USAGE;
	}
	if (spef_read(d.in, &f, err, sizeof(err))) {
		fprintf(stderr, "pmuscope: %s\n", err);
		return 1;
	}
	printf("# %s: pmuscope SPE file version %u, source %s%s, counter %llu Hz, start %llu, spe flags 0x%x, pid %u%s\n",
	       d.in, f.h.version, f.h.flags & SPEF_SOURCE_PERF ? "perf" : "kernel",
	       f.h.flags & SPEF_EMULATED ? " (EMULATED)" : "", (unsigned long long)f.h.freq,
	       (unsigned long long)f.h.start_time, f.h.spe_flags, f.h.pid,
	       f.h.finished ? "" : ", NOT FINISHED");
	printf("# command:");
	for (uint32_t i = 0; i < f.h.argc; i++)
		printf(" %s", f.argv[i]);
	printf("\n");
	while (pmuscope_spe_chunk_next(f.chunks, f.h.data_size, &off, &c, &data, err,
				       sizeof(err)) == 1) {
		size_t pos = 0;
		struct pmuscope_spe_pkt p;

		pmuscope_spe_chunk_flags_str(c.flags, flags, sizeof(flags));
		printf(".\n. chunk %zu: cpu %u, time %llu, size %u, data %u bytes, lost %llu bytes, flags 0x%x%s%s%s\n",
		       n++, c.cpu, (unsigned long long)c.time, c.size, c.data_size,
		       (unsigned long long)c.lost, c.flags, flags[0] ? " (" : "", flags,
		       flags[0] ? ")" : "");
		printf(". ... ARM SPE data: size %#zx bytes\n", (size_t)c.data_size);
		while (pos < c.data_size) {
			size_t at = pos;

			pmuscope_spe_pkt_next(data, c.data_size, &pos, &p);
			pmuscope_spe_pkt_line(&p, data + at, at, line, sizeof(line));
			printf("%s\n", line);
		}
	}
	spef_free(&f);
	return 0;
}

/* spe's own options: --help, -h (and help), compared literally. */
static const struct cli_option spe_options[] = {
	OPT_HELP("help", 'h'),
	OPT_END(),
};

const struct cli_options spe_cli = { "spe", spe_options, spe_usage, spe_sections };

static const struct cli_options *const spe_sections[5] = {
	&spe_cli, &spe_record_cli, &spe_report_cli, &spe_dump_cli, NULL
};

const struct cli_command spe_commands[] = {
	{ "record", spe_record, "[OPTIONS] [-d S | -- CMD]", "sample operations into a file", 0,
	  &spe_record_cli, NULL, NULL },
	{ "report", spe_report, "[OPTIONS]", "the hottest PCs and functions, the latencies", 0,
	  &spe_report_cli, NULL, NULL },
	{ "dump", spe_dump, "[-i FILE]", "every packet", 0, &spe_dump_cli, NULL, NULL },
};

const unsigned int nr_spe_commands = sizeof(spe_commands) / sizeof(spe_commands[0]);

int cmd_spe(int argc, char **argv)
{
	const struct cli_command *c;

	if (argc < 2) {
		cli_usage_with_options(stderr, &spe_cli);
		return EXIT_USAGE;
	}
	c = cli_command_find(spe_commands, nr_spe_commands, argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		cli_usage_with_options(stdout, &spe_cli);
		return 0;
	}
	fprintf(stderr, "pmuscope: unknown spe command '%s'\n", argv[1]);
	cli_usage_with_options(stderr, &spe_cli);
	return EXIT_USAGE;
}
