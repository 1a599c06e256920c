// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope test: the product checks itself on the machine it runs on, as
 * perf test does. Each check (selftest-checks.c) measures and gives a
 * verdict: Ok, FAILED! (with what to do) or Skip (with why). This file
 * chooses the checks, prints their results (text, --json) and writes the
 * bug-report bundle (--report FILE).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"
#include "selftest.h"

#define NAME_WIDTH	40

struct test_args {
	int verbose;
	int json;
	int list;
	const char *report;
};

static void test_usage(FILE *f)
{
	fprintf(f, "usage: pmuscope test [-v] [--json] [--report FILE] [--list] [NAME|NUMBER...]\n"
		"Check the driver, the PMU and the kernel's policy on this machine. NAME\n"
		"picks the checks whose name contains it (any case), NUMBER one check.\n"
		"Exit status: 0 every check Ok or skipped, 1 a check FAILED, 2 usage.\n");
}

static const struct cli_option test_options[] = {
	OPT_SET("verbose", 'v', "each check's measurements, and what to do on a failure",
		struct test_args, verbose, 1),
	OPT_SET("json", 0, "one JSON object: versions, backend, every check's verdict and values",
		struct test_args, json, 1),
	OPT_STRING("report", 0, "FILE", "also write a bundle for a bug report to FILE",
		   struct test_args, report),
	OPT_SET("list", 0, "list the checks, run none", struct test_args, list, 1),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

const struct cli_options test_cli = { "test", test_options, test_usage };

void st_measure(struct st_result *r, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (r->nr >= ST_MAX_MEASURED)
		return;
	snprintf(r->m[r->nr].key, sizeof(r->m[r->nr].key), "%s", key);
	va_start(ap, fmt);
	vsnprintf(r->m[r->nr].value, sizeof(r->m[r->nr].value), fmt, ap);
	va_end(ap);
	r->nr++;
}

void st_skip(struct st_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->verdict != ST_OK)
		return;
	r->verdict = ST_SKIP;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

void st_fail(struct st_result *r, const char *remedy, const char *fmt, ...)
{
	va_list ap;

	if (r->verdict == ST_FAILED)
		return;
	r->verdict = ST_FAILED;
	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
	snprintf(r->remedy, sizeof(r->remedy), "%s", remedy);
}

uint64_t st_cap_eff(void)
{
	size_t len;
	char *s = cli_read_file("/proc/self/status", &len), *p;
	uint64_t caps = 0;

	if (!s)
		return 0;
	p = strstr(s, "\nCapEff:");
	if (p)
		caps = strtoull(p + 8, NULL, 16);
	free(s);
	return caps;
}

/* The driver and the CPU types, once for every check. */
static void st_ctx_init(struct st_ctx *x)
{
	uint64_t online[PMUSCOPE_CPU_WORDS] = { 0 };
	uint64_t caps = st_cap_eff();
	struct pmuscope *h = NULL;
	cpu_set_t allowed;
	char path[600];
	FILE *f;
	int ret;

	memset(x, 0, sizeof(*x));
	ret = pmuscope_open(&h, x->open_err, sizeof(x->open_err));
	if (!ret) {
		x->loaded = 1;
		x->features = pmuscope_features(h);
		pmuscope_close(h);
	}
	snprintf(path, sizeof(path), "%s/backend", pmuscope_sysfs_root());
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%15s", x->backend) != 1)
			x->backend[0] = '\0';
		fclose(f);
	}
	x->privileged = !!(caps & (1ULL << 38 | 1ULL << 21));	/* CAP_PERFMON, CAP_SYS_ADMIN */
	if (pmuscope_online_cpus(online, PMUSCOPE_CPU_WORDS))
		return;
	/*
	 * Each type's checks run on its first CPU this process may run on
	 * (a cpuset or taskset may leave some out); a type with none is
	 * not checked, and check 1 says so.
	 */
	if (getenv("PMUSCOPE_SYSFS") || sched_getaffinity(0, sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);	/* a stand-in's CPUs are not this kernel's: all */
	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		struct pmuscope_cpu_info info;
		int ok = CPU_COUNT(&allowed) == 0 || (cpu < CPU_SETSIZE && CPU_ISSET(cpu, &allowed));
		uint32_t midr;
		unsigned int t;

		if (!(online[cpu / 64] >> (cpu % 64) & 1) || pmuscope_cpu_midr(cpu, &midr))
			continue;
		for (t = 0; t < x->nr_types; t++)
			if (x->types[t].midr == midr)
				break;
		if (t < x->nr_types) {
			if (x->types[t].cpu < 0 && ok)
				x->types[t].cpu = cpu;
			continue;
		}
		if (t == ST_TYPES_MAX)
			continue;
		x->types[t].midr = midr;
		x->types[t].cpu = ok ? cpu : -1;
		x->types[t].first_cpu = cpu;
		if (!pmuscope_cpu_info(cpu, &info))
			snprintf(x->types[t].name, sizeof(x->types[t].name), "%s", info.name);
		x->nr_types++;
	}
	/* The types out of reach leave the list, named in x->unreachable. */
	for (unsigned int t = 0, k = 0; t < x->nr_types;) {
		if (x->types[t].cpu >= 0) {
			t++;
			continue;
		}
		k += snprintf(x->unreachable + k, sizeof(x->unreachable) - k, "%s%s (cpu%d)",
			      k ? ", " : "", x->types[t].name[0] ? x->types[t].name : "unknown",
			      x->types[t].first_cpu);
		if (k >= sizeof(x->unreachable))
			k = sizeof(x->unreachable) - 1;
		memmove(&x->types[t], &x->types[t + 1], (x->nr_types - t - 1) * sizeof(x->types[0]));
		x->nr_types--;
	}
}

static const char *verdict_json(enum st_verdict v)
{
	return v == ST_OK ? "ok" : v == ST_FAILED ? "failed" : "skip";
}

/* One check's result as perf test prints it; with @verbose its values and remedy. */
static void print_result(FILE *f, const struct st_check *c, const struct st_result *r,
			 int verbose)
{
	fprintf(f, "%3d: %-*s: ", c->number, NAME_WIDTH, c->name);
	if (r->verdict == ST_OK)
		fprintf(f, "Ok\n");
	else if (r->verdict == ST_FAILED)
		fprintf(f, "FAILED!\n");
	else
		fprintf(f, "Skip (%s)\n", r->reason);
	if (!verbose)
		return;
	for (unsigned int i = 0; i < r->nr; i++)
		fprintf(f, "     %s: %s\n", r->m[i].key, r->m[i].value);
	if (r->verdict == ST_FAILED) {
		fprintf(f, "     failed: %s\n", r->reason);
		fprintf(f, "     to do: %s\n", r->remedy);
	}
}

/* A value as JSON: a number where the whole text is one (-12, 3.25), else a string. */
static void json_value(FILE *f, const char *v)
{
	const char *p = v + (*v == '-');
	size_t digits = strspn(p, "0123456789");

	if (digits && (!p[digits] ||
		       (p[digits] == '.' && p[digits + 1] &&
			strspn(p + digits + 1, "0123456789") == strlen(p + digits + 1)))) {
		fputs(v, f);
		return;
	}
	report_json_str(f, v);
}

static void print_json(FILE *f, const struct st_ctx *x, const struct st_check *const *sel,
		       const struct st_result *res, unsigned int n)
{
	unsigned int counts[3] = { 0 };

	fprintf(f, "{\"tool_version\":\"%s\",\"api_version\":%d,\"driver_loaded\":%s,"
		"\"driver_api_version\":", PMUSCOPE_LIB_VERSION, PMUSCOPE_API_VERSION,
		x->loaded ? "true" : "false");
	if (x->loaded)
		fprintf(f, "%d", PMUSCOPE_API_VERSION);	/* pmuscope_open() checked it */
	else
		fputs("null", f);
	fputs(",\"backend\":", f);
	if (x->backend[0])
		report_json_str(f, x->backend);
	else
		fputs("null", f);
	fputs(",\"checks\":[", f);
	for (unsigned int i = 0; i < n; i++) {
		const struct st_result *r = &res[i];

		counts[r->verdict]++;
		fprintf(f, "%s{\"number\":%d,\"name\":", i ? "," : "", sel[i]->number);
		report_json_str(f, sel[i]->name);
		fprintf(f, ",\"verdict\":\"%s\",\"reason\":", verdict_json(r->verdict));
		report_json_str(f, r->verdict == ST_OK ? "" : r->reason);
		fputs(",\"remedy\":", f);
		report_json_str(f, r->remedy);
		fputs(",\"measured\":{", f);
		for (unsigned int k = 0; k < r->nr; k++) {
			fputs(k ? "," : "", f);
			report_json_str(f, r->m[k].key);
			fputc(':', f);
			json_value(f, r->m[k].value);
		}
		fputs("}}", f);
	}
	fprintf(f, "],\"summary\":{\"ok\":%u,\"failed\":%u,\"skip\":%u}}\n",
		counts[ST_OK], counts[ST_FAILED], counts[ST_SKIP]);
}

/* The driver's kernel messages: lines of /dev/kmsg that name pmuscope. */
static void report_dmesg(FILE *out)
{
	char rec[2048];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK), lines = 0;
	ssize_t n;

	if (fd < 0) {
		fprintf(out, "(not readable: /dev/kmsg: %s; run as root, or lower "
			"kernel.dmesg_restrict, to include them)\n", strerror(errno));
		return;
	}
	for (;;) {
		char *msg;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten while read: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');
		if (!msg || !strstr(msg, "pmuscope"))
			continue;
		msg[strcspn(msg, "\n")] = '\0';
		fprintf(out, "%s\n", msg + 1);
		lines++;
	}
	if (n < 0 && errno != EAGAIN)
		fprintf(out, "(reading /dev/kmsg stopped: %s)\n", strerror(errno));
	if (!lines)
		fprintf(out, "(no kernel message names pmuscope)\n");
	close(fd);
}

/* The regular files of @dir as "name: first line", skipping those that cannot be read. */
static void report_dir(FILE *out, const char *dir, const char *prefix)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	if (n < 0) {
		fprintf(out, "(%s: %s)\n", dir, strerror(errno));
		return;
	}
	for (int i = 0; i < n; i++) {
		char path[1200], *s;
		size_t len = 0;

		if (names[i]->d_name[0] == '.') {
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		s = cli_read_file(path, &len);
		if (s) {
			s[strcspn(s, "\n")] = '\0';
			fprintf(out, "%s%s: %s\n", prefix, names[i]->d_name, s);
			free(s);
		}
		free(names[i]);
	}
	free(names);
}

static void report_file(FILE *out, const char *path)
{
	size_t len = 0;
	char *s = cli_read_file(path, &len);

	if (!s) {
		fprintf(out, "(%s: %s)\n", path, strerror(errno));
		return;
	}
	fwrite(s, 1, len, out);
	if (len && s[len - 1] != '\n')
		fputc('\n', out);
	free(s);
}

/* The ID registers and capabilities the driver read, CPU by CPU (sysfs). */
static void report_sysfs(FILE *out)
{
	static const char *const top[] = {
		"version", "backend", "kernel_el", "emulated", "emulated_profile", "spe_irq",
	};
	static const char *const per_cpu[] = {
		"probed", "midr", "cpu_name", "pmu", "pmu_version", "pmu_version_name",
		"num_event_counters", "event_counter_width", "cycle_counter_width",
		"pmceid0", "pmceid1", "snapshot", "snapshot_hw", "spe", "spe_version",
		"spe_min_interval", "spe_max_record", "spe_align", "spe_filters", "amu",
		"amu_version", "amu_counters", "wraps", "overflow_interrupts",
		"spurious_interrupts", "resyncs", "late_polls",
	};
	const char *root = pmuscope_sysfs_root();
	char path[700];
	size_t len;
	int any = 0;

	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
		char *s;

		snprintf(path, sizeof(path), "%s/%s", root, top[i]);
		s = cli_read_file(path, &len);
		if (s) {
			s[strcspn(s, "\n")] = '\0';
			fprintf(out, "%s: %s\n", top[i], s);
			free(s);
			any = 1;
		}
	}
	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		int seen = 0;

		for (size_t i = 0; i < sizeof(per_cpu) / sizeof(per_cpu[0]); i++) {
			char *s;

			snprintf(path, sizeof(path), "%s/cpu%d/%s", root, cpu, per_cpu[i]);
			s = cli_read_file(path, &len);
			if (!s)
				continue;
			s[strcspn(s, "\n")] = '\0';
			fprintf(out, "cpu%d/%s: %s\n", cpu, per_cpu[i], s);
			free(s);
			seen = any = 1;
		}
		if (!seen && cpu >= 64)
			break;
	}
	if (!any)
		fprintf(out, "(nothing in %s: is the pmuscope module loaded?)\n", root);
}

static void report_params(FILE *out)
{
	static const char *const mods[] = { "pmuscope", "pmuscope_emu" };
	int any = 0;

	for (size_t i = 0; i < 2; i++) {
		char dir[128], prefix[64];

		snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", mods[i]);
		if (access(dir, F_OK))
			continue;
		snprintf(prefix, sizeof(prefix), "%s.", mods[i]);
		report_dir(out, dir, prefix);
		any = 1;
	}
	if (!any)
		fprintf(out, "(no /sys/module/pmuscope/parameters: the module is not loaded)\n");
}

static int write_report(const char *file, const struct st_check *const *sel,
			const struct st_result *res, unsigned int n, const struct st_ctx *x)
{
	FILE *out = fopen(file, "w");
	struct utsname u;
	char profile[64];

	if (!out) {
		fprintf(stderr, "pmuscope: cannot write the report %s: %s\n", file, strerror(errno));
		return -1;
	}
	fprintf(out, "pmuscope test report\n\n== version ==\n");
	fprintf(out, "pmuscope %s (API version %d)\n", PMUSCOPE_LIB_VERSION, PMUSCOPE_API_VERSION);
	fprintf(out, "driver: %s\n", x->loaded ? "loaded" : x->open_err);
	fprintf(out, "backend: %s\n", x->backend[0] ? x->backend : "(unknown)");
	if (pmuscope_emulated(profile, sizeof(profile)))
		fprintf(out, "EMULATED profile %s (pmuscope_emu.ko: a register model)\n", profile);
	fprintf(out, "\n== uname -a ==\n");
	if (!uname(&u))
		fprintf(out, "%s %s %s %s %s\n", u.sysname, u.nodename, u.release, u.version,
			u.machine);
	fprintf(out, "\n== results ==\n");
	for (unsigned int i = 0; i < n; i++)
		print_result(out, sel[i], &res[i], 1);
	fprintf(out, "\n== dmesg (pmuscope) ==\n");
	report_dmesg(out);
	fprintf(out, "\n== driver (%s) ==\n", pmuscope_sysfs_root());
	report_sysfs(out);
	fprintf(out, "\n== module parameters ==\n");
	report_params(out);
	fprintf(out, "\n== /proc/cpuinfo ==\n");
	report_file(out, "/proc/cpuinfo");
	if (fclose(out)) {
		fprintf(stderr, "pmuscope: cannot write the report %s: %s\n", file, strerror(errno));
		return -1;
	}
	return 0;
}

/* The checks @argv names (all when none): their count, or -1 (said on stderr). */
static int select_checks(int argc, char **argv, const struct st_check **sel)
{
	unsigned char chosen[64] = { 0 };
	int n = 0;

	for (int a = 0; a < argc; a++) {
		const char *arg = argv[a];
		int found = 0;

		if (*arg && strspn(arg, "0123456789") == strlen(arg)) {
			unsigned long long v;

			if (parse_uint(arg, 1, st_nr_checks, &v)) {
				fprintf(stderr, "pmuscope: test: no check number %s (1 to %u: pmuscope test --list)\n",
					arg, st_nr_checks);
				return -1;
			}
			chosen[v - 1] = 1;
			continue;
		}
		for (unsigned int i = 0; i < st_nr_checks; i++)
			if (*arg && strcasestr(st_checks[i].name, arg))
				chosen[i] = found = 1;
		if (!found) {
			fprintf(stderr, "pmuscope: test: no check named '%s' (pmuscope test --list)\n",
				arg);
			return -1;
		}
	}
	for (unsigned int i = 0; i < st_nr_checks; i++)
		if (!argc || chosen[i])
			sel[n++] = &st_checks[i];
	return n;
}

int cmd_test(int argc, char **argv)
{
	const struct st_check *sel[64];
	struct test_args a = { 0 };
	struct st_result *res;
	struct st_ctx x;
	cpu_set_t saved;
	int n, failed = 0, ret;

	if (cli_parse(&test_cli, argc, argv, &a, &ret))
		return ret;
	n = select_checks(argc - optind, argv + optind, sel);
	if (n < 0) {
		cli_usage_with_options(stderr, &test_cli);
		return EXIT_USAGE;
	}
	if (a.list) {
		for (int i = 0; i < n; i++)
			printf("%3d: %s\n", sel[i]->number, sel[i]->name);
		return 0;
	}
	res = calloc(n, sizeof(*res));
	if (!res) {
		fprintf(stderr, "pmuscope: out of memory\n");
		return 1;
	}
	st_ctx_init(&x);
	if (sched_getaffinity(0, sizeof(saved), &saved))
		CPU_ZERO(&saved);
	for (int i = 0; i < n; i++) {
		/* A user running every check does not expect a CPU to go. */
		if (sel[i]->by_name && optind == argc)
			st_skip(&res[i], "%s", sel[i]->by_name);
		else
			sel[i]->fn(&x, &res[i]);
		if (CPU_COUNT(&saved))	/* each check starts where the command runs */
			sched_setaffinity(0, sizeof(saved), &saved);
		failed |= res[i].verdict == ST_FAILED;
		if (!a.json) {
			print_result(stdout, sel[i], &res[i], a.verbose);
			fflush(stdout);
		}
	}
	if (a.json)
		print_json(stdout, &x, sel, res, n);
	if (a.report && write_report(a.report, sel, res, n, &x))
		failed = 1;
	free(res);
	return failed ? 1 : 0;
}
