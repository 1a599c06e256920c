// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of stat's metrics: perf's expression syntax (metric-expr.c)
 * evaluated on fixed counts against hand-computed values, each error path
 * of the parser, division by zero; the generated table's sbsa TopdownL1,
 * Neoverse N2 and Cortex-A53 metrics through metrics.c (the CPU's core
 * from a fake sysfs, the events added, ScaleUnit applied, references to
 * other metrics, multiplexed inputs). Prints "PASS name" or "FAIL name:
 * why" per case, then "N passed, N failed".
 *
 *   test_metrics             run the tests
 *   test_metrics --fuzz N    parse and evaluate N random mutations of the
 *                            table's expressions (under ASan/UBSan in
 *                            tests/host/fuzz-files.sh): no crash, no leak
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metric-expr.h"
#include "metrics.h"
#include "check.h"


/* ------------------------------------------------ expressions alone */

struct kv {
	const char *name;
	double value;
};

static const struct kv *cur_counts;

static double kv_value(void *arg, const char *name)
{
	(void)arg;
	for (const struct kv *k = cur_counts; k && k->name; k++)
		if (!strcasecmp(k->name, name))
			return k->value;
	return NAN;
}

static double eval_with(const char *text, const struct kv *counts, double slots,
			uint32_t midr, char *err, size_t errlen)
{
	struct mexpr_env env = { .id_value = kv_value, .slots = slots, .midr = midr,
				 .duration_s = 2.0 };
	struct mexpr *e = mexpr_parse(text, err, errlen);
	double v;

	if (!e)
		return -12345.0;	/* never a value of these tests */
	cur_counts = counts;
	v = mexpr_eval(e, &env);
	mexpr_free(e);
	return v;
}

static int near(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

static void expect_value(const char *text, const struct kv *counts, double want)
{
	char err[256] = "";
	double v = eval_with(text, counts, 8, 0x410fd4f0, err, sizeof(err));

	result(near(v, want), "expr '%s' = %g (got %g%s%s)", text, want, v,
	       *err ? ": " : "", err);
}

static void expect_error(const char *text, const char *want)
{
	char err[256] = "";
	struct mexpr *e = mexpr_parse(text, err, sizeof(err));

	/* A long input is named by its start: one short line per case. */
	result(!e && strstr(err, want), "refused '%.40s%s': \"%s\" (got \"%s\")", text,
	       strlen(text) > 40 ? "..." : "", want, e ? "accepted" : err);
	mexpr_free(e);
}

static const struct kv counts[] = {
	{ "CPU_CYCLES", 1000 }, { "INST_RETIRED", 2500 }, { "zero", 0 },
	{ "a.b", 3 }, { NULL, 0 },
};

static void test_syntax(void)
{
	expect_value("1 + 2 * 3", counts, 7);
	expect_value("(1 + 2) * 3", counts, 9);
	expect_value("10 - 4 - 3", counts, 3);		/* left-associative */
	expect_value("24 / 4 / 2", counts, 3);
	expect_value("-2 * -3", counts, 6);
	expect_value("- (1 + 2)", counts, -3);
	expect_value("7 % 4", counts, 3);
	expect_value("1.5e3 + .5 + 2. + 1e-3", counts, 1502.501);
	expect_value("INST_RETIRED / CPU_CYCLES", counts, 2.5);
	expect_value("inst_retired / cpu_cycles", counts, 2.5);	/* any case */
	expect_value("a.b * 2", counts, 6);
	expect_value("#slots * cpu_cycles", counts, 8000);
	expect_value("duration_time", counts, 2);
	expect_value("min(3, 4) + max(3, 4)", counts, 7);
	expect_value("d_ratio(5, 0)", counts, 0);
	expect_value("d_ratio(5, 2)", counts, 2.5);
	expect_value("1 if 2 < 3 else 0", counts, 1);
	expect_value("1 if 2 > 3 else 0", counts, 0);
	expect_value("5 if 0 else 6 if 1 else 7", counts, 6);
	expect_value("1 | 0", counts, 1);
	expect_value("0 | 0", counts, 0);
	expect_value("1 & 2", counts, 1);
	expect_value("1 & 0", counts, 0);
	expect_value("1 ^ 1", counts, 0);
	expect_value("0 | 1 ^ 1", counts, 0);
	expect_value("1 | 1 ^ 1", counts, 1);		/* ^ binds tighter than | */
	expect_value("0 | 1 & 0", counts, 0);		/* & tighter than ^, | */
	expect_value("1 + 2 < 4", counts, 1);		/* < below + */
	/* Division by zero: NaN ("not counted"), never a crash. */
	expect_value("INST_RETIRED / zero", counts, NAN);
	expect_value("INST_RETIRED / (CPU_CYCLES - 1000)", counts, NAN);
	expect_value("5 % zero", counts, NAN);
	expect_value("unknown_event + 1", counts, NAN);
	expect_value("NaN", counts, NAN);
	expect_value("(1 / 0) | 1", counts, NAN);
	/* strcmp_cpuid_str: the part at this revision or a later one. */
	expect_value("strcmp_cpuid_str(0x410fd4f0)", counts, 1);
	expect_value("strcmp_cpuid_str(0x410fd4f1)", counts, 0);
	expect_value("strcmp_cpuid_str(0x410fd490)", counts, 0);
	result(mexpr_cpuid_match(0x410fd493, 0x410fd493) &&
	       mexpr_cpuid_match(0x410fd493, 0x411fd490) &&
	       !mexpr_cpuid_match(0x410fd493, 0x410fd492) &&
	       !mexpr_cpuid_match(0x411fd490, 0x410fd49f) &&
	       !mexpr_cpuid_match(0x410fd490, 0x410fd0c0),
	       "strcmp_cpuid_str: variant, then revision, same part only");
}

static void test_errors(void)
{
	char deep[256], big[12000];

	expect_error("", "offset 0: expected a value, found the end");
	expect_error("1 +", "offset 3: expected a value, found the end");
	expect_error("(1 + 2", "offset 6: expected ')' to close the '(' at its left, found the end");
	expect_error("1 + 2)", "offset 5: unexpected ')' after a complete expression");
	expect_error("1 2", "offset 2: unexpected '2' after a complete expression");
	expect_error("* 2", "offset 0: unexpected '*'");
	expect_error("12abc", "offset 2: unexpected 'a' after a number");
	expect_error("#smt_on * 2", "offset 0: literal '#smt_on' is not supported");
	expect_error("1 if 2", "offset 6: expected 'else' after 'if'");
	expect_error("if 1", "offset 0: 'if' where a value was expected");
	expect_error("min(1 2)", "offset 6: expected ',' between the arguments of min()");
	expect_error("max(1, 2", "offset 8: expected ')' to close max()");
	expect_error("d_ratio 1", "offset 8: expected '(' after d_ratio");
	expect_error("strcmp_cpuid_str(abc)", "offset 17: strcmp_cpuid_str() takes a MIDR");
	expect_error("strcmp_cpuid_str(0x1ffffffff)", "offset 17: MIDR out of range");
	expect_error("source_count(x)", "offset 0: source_count() is not supported");
	expect_error("has_event(x)", "offset 0: has_event() is not supported");
	expect_error("armv8_pmuv3_0@event\\=0x201d@ / 2", "offset 13: '@' in an event name");
	expect_error("a\\-b", "offset 1: '\\' in an event name");
	expect_error("cycles:u", "offset 6: ':' in an event name");
	expect_error("1 + $", "offset 4: unexpected '$'");
	memset(deep, '(', 100);
	strcpy(deep + 100, "1");
	expect_error(deep, "offset 64: nested more than 64 deep");
	memset(deep, '-', 100);
	strcpy(deep + 100, "1");
	expect_error(deep, "offset 64: nested more than 64 deep");
	for (int i = 0; i < 3000; i++)
		memcpy(big + 4 * i, "1 + ", 4);
	strcpy(big + 12000 - 4, "1");
	expect_error(big, "expression too long");
}

/* ------------------------------------------- the table, through stat */

static char sysfs[64];

static void put(const char *cpu, const char *file, const char *value)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysfs, cpu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", sysfs, cpu, file);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", value);
		fclose(f);
	}
}

/* A one-CPU fake sysfs: @midr, PMCEID1 @pmceid1 (0xec000000: the slot events). */
static void fake_cpu(const char *midr, const char *name, const char *pmceid1)
{
	put("cpu0", "probed", "1");
	put("cpu0", "midr", midr);
	put("cpu0", "cpu_name", name);
	put("cpu0", "pmceid0", "0x7fffffff");
	put("cpu0", "pmceid1", pmceid1);
	put("cpu0", "num_event_counters", "6");
}

/* Set up -M @asked (or --topdown) on the fake CPU: the exit status. */
static int setup(struct stat_opts *o, const char *asked, int topdown, double slots)
{
	struct cli_option opt = { .value = 'M' };

	metrics_free();
	memset(o, 0, sizeof(*o));
	if (asked) {
		char buf[256];

		snprintf(buf, sizeof(buf), "%s", asked);
		metrics_opt(NULL, &opt, buf);
	}
	if (topdown) {
		opt.value = 'T';
		metrics_opt(NULL, &opt, NULL);
	}
	metrics_set_slots(slots);
	return metrics_setup(o);
}

/* A report of @o's events, counted from @kv by event number. */
static void report_of(struct report *r, const struct stat_opts *o, const struct kv *kv,
		      int multiplexed)
{
	memset(r, 0, sizeof(*r));
	r->ncounters = o->nr;
	for (unsigned int i = 0; i < o->nr; i++) {
		struct pmuscope_event_spec ev;
		char err[128];

		r->c[i].number = o->evs[i].number;
		r->c[i].time_enabled = r->c[i].time_running = 1000;
		for (const struct kv *k = kv; k->name; k++)
			if (!pmuscope_event_parse(k->name, &ev, err, sizeof(err)) &&
			    ev.number == o->evs[i].number)
				r->c[i].count = k->value;
		if (multiplexed && o->evs[i].number == 0x11)
			r->c[i].time_running = 500;
	}
}

static const struct report_mrow *row(const struct report *r, const char *name)
{
	for (unsigned int i = 0; i < r->nmrows; i++)
		if (!strcmp(r->mrows[i].name, name))
			return &r->mrows[i];
	return NULL;
}

static void expect_row(const struct report *r, const char *name, double want,
		       const char *unit)
{
	const struct report_mrow *m = row(r, name);

	result(m && near(m->value, want) && !strcmp(m->unit, unit),
	       "metric %s = %g %s (got %g %s)", name, want, unit, m ? m->value : NAN,
	       m ? m->unit : "no row");
}

static int has_event(const struct stat_opts *o, uint32_t number)
{
	for (unsigned int i = 0; i < o->nr; i++)
		if (o->evs[i].number == number)
			return 1;
	return 0;
}

static void test_table(void)
{
	static struct report r;
	struct stat_opts o;
	/* Slots 8: 8000 slot-cycles. 25% frontend, 20% backend, 45% stalled. */
	static const struct kv topdown[] = {
		{ "CPU_CYCLES", 1000 }, { "STALL_SLOT_FRONTEND", 2000 },
		{ "STALL_SLOT_BACKEND", 1600 }, { "STALL_SLOT", 3600 },
		{ "OP_RETIRED", 3000 }, { "OP_SPEC", 4000 }, { "BR_MIS_PRED", 10 },
		{ "INST_RETIRED", 4000 }, { NULL, 0 },
	};
	/* The A53: 10000 cycles, stalls 1000 frontend, 3000 backend. */
	static const struct kv a53[] = {
		{ "CPU_CYCLES", 10000 }, { "INST_RETIRED", 4000 },
		{ "r0xe1", 500 }, { "r0xe2", 100 }, { "r0xe3", 50 }, { "r0xe0", 350 },
		{ "r0xe5", 200 }, { "r0xe6", 300 }, { "r0xe7", 1500 }, { "r0xe8", 400 },
		{ "r0xe4", 100 }, { "r0xc7", 500 }, { NULL, 0 },
	};
	int ret;

	/* An unknown core whose PMCEID0 has the slot events: sbsa's TopdownL1. */
	fake_cpu("0x410fd8e0", "other", "0xec000000");
	ret = setup(&o, NULL, 1, 8);
	result(!ret && o.nr == 6 && has_event(&o, 0x3e) && has_event(&o, 0x3d) &&
	       has_event(&o, 0x3f) && has_event(&o, 0x3a) && has_event(&o, 0x3b) &&
	       has_event(&o, 0x11), "--topdown on slot events: sbsa's 6 events (got %u, %d)",
	       o.nr, ret);
	report_of(&r, &o, topdown, 0);
	metrics_fill(&r, 1.0);
	result(r.nmrows == 4, "--topdown: 4 rows (got %u)", r.nmrows);
	expect_row(&r, "frontend_bound", 25, "%");
	expect_row(&r, "backend_bound", 20, "%");
	expect_row(&r, "retiring", 41.25, "%");		/* 100 * 3/4 * (1 - 0.45) */
	expect_row(&r, "bad_speculation", 13.75, "%");	/* 100 * 1/4 * (1 - 0.45) */
	result(row(&r, "retiring") && !row(&r, "retiring")->multiplexed,
	       "all counted the whole time: not multiplexed");
	report_of(&r, &o, topdown, 1);
	metrics_fill(&r, 1.0);
	result(row(&r, "retiring") && row(&r, "retiring")->multiplexed,
	       "cycles counted half the time: the row says multiplexed");
	/* An input enabled but never on a counter: not counted, not 0. */
	report_of(&r, &o, topdown, 0);
	for (unsigned int i = 0; i < r.ncounters; i++)
		if (r.c[i].number == 0x3e)
			r.c[i].time_running = 0;
	metrics_fill(&r, 1.0);
	expect_row(&r, "frontend_bound", NAN, "%");
	expect_row(&r, "backend_bound", 20, "%");
	/* No #slots (no PMMIR_EL1.SLOTS): not counted, not a made-up value. */
	setup(&o, "frontend_bound", 0, NAN);
	report_of(&r, &o, topdown, 0);
	metrics_fill(&r, 1.0);
	expect_row(&r, "frontend_bound", NAN, "%");
	/* -e events first: a metric's events are added once. */
	metrics_free();
	memset(&o, 0, sizeof(o));
	pmuscope_event_parse("cycles", &o.evs[o.nr++], (char[64]){ 0 }, 64);
	{
		struct cli_option opt = { .value = 'M' };
		char arg[] = "TopdownL1,frontend_bound";

		metrics_opt(NULL, &opt, arg);
		metrics_set_slots(8);
		ret = metrics_setup(&o);
	}
	result(!ret && o.nr == 6, "cycles given with -e and named twice: counted once (%u)", o.nr);

	/* The same core without the slot events: --topdown names what is missing. */
	fake_cpu("0x410fd8e0", "other", "0x0");
	ret = setup(&o, NULL, 1, 8);
	result(ret == 3, "--topdown without slot events: exit 3 (got %d)", ret);
	ret = setup(&o, "no_such_metric", 0, 8);
	result(ret == 2, "-M unknown name: exit 2 (got %d)", ret);

	/* Neoverse N2 r0p0: its own TopdownL1, STALL_SLOT less the cycles. */
	fake_cpu("0x410fd490", "neoverse-n2", "0xec000000");
	ret = setup(&o, "TopdownL1", 0, 5);
	result(!ret && o.nr == 7, "N2's TopdownL1: its own formulas, 7 events (got %u, %d)",
	       o.nr, ret);
	report_of(&r, &o, topdown, 0);
	metrics_fill(&r, 1.0);
	/* 100 * ((2000 - 1000) / 5000 - 10 / 1000) = 19 */
	expect_row(&r, "frontend_bound", 19, "%");
	/* 100 * ((1 - 3/4) * (1 - (3600 - 1000) / 5000) + 40 / 1000) = 16 */
	expect_row(&r, "bad_speculation", 16, "%");
	fake_cpu("0x410fd493", "neoverse-n2", "0xec000000");
	setup(&o, "TopdownL1", 0, 5);
	report_of(&r, &o, topdown, 0);
	metrics_fill(&r, 1.0);
	/* r0p3: STALL_SLOT_FRONTEND whole: 100 * (2000 / 5000 - 0.01) = 39 */
	expect_row(&r, "frontend_bound", 39, "%");
	/* ipc_rate = ipc / #slots, "100%": 100 * 4000 / 1000 / 5 = 80; ipc not shown. */
	setup(&o, "ipc_rate", 0, 5);
	report_of(&r, &o, topdown, 0);
	metrics_fill(&r, 1.0);
	expect_row(&r, "ipc_rate", 80, "%");
	result(r.nmrows == 1 && !row(&r, "ipc"), "a metric another names is computed, not shown");
	setup(&o, "ipc_rate,ipc", 0, 5);
	report_of(&r, &o, topdown, 0);
	metrics_fill(&r, 1.0);
	expect_row(&r, "ipc", 4, "per cycle");

	/* The Cortex-A53: --topdown is its cycle accounting. */
	fake_cpu("0x410fd034", "cortex-a53", "0x0");
	ret = setup(&o, NULL, 1, NAN);
	result(!ret && o.nr == 12 && has_event(&o, 0xe7) && has_event(&o, 0xc7),
	       "--topdown on the A53: 12 events, IMPDEF by number (got %u, %d)", o.nr, ret);
	report_of(&r, &o, a53, 0);
	metrics_fill(&r, 1.0);
	result(r.nmrows == 5, "A53_Cycle_Accounting: 5 rows (got %u)", r.nmrows);
	expect_row(&r, "a53_ipc", 0.4, "per cycle");
	expect_row(&r, "a53_frontend_stall", 10, "%");	/* (500+100+50+350)/10000 */
	expect_row(&r, "a53_backend_stall", 30, "%");	/* (200+300+1500+400+100+500)/10000 */
	expect_row(&r, "a53_memory_stall", 24, "%");	/* (1500+400+500)/10000 */
	expect_row(&r, "a53_execute_stall", 6, "%");	/* (200+300+100)/10000 */
	result(row(&r, "a53_ipc") && !strcmp(row(&r, "a53_ipc")->group, "A53_Cycle_Accounting"),
	       "a row names the group it was asked by");
	ret = setup(&o, "a53_backend_stall", 0, NAN);
	result(!ret && o.nr == 7, "one A53 metric: 6 stall events and cycles, 7 counters (got %u)",
	       o.nr);
	/* No cycles: not counted, no crash. */
	{
		static const struct kv none[] = { { "INST_RETIRED", 5 }, { NULL, 0 } };

		setup(&o, "A53_Cycle_Accounting", 0, NAN);
		report_of(&r, &o, none, 0);
		metrics_fill(&r, 1.0);
		expect_row(&r, "a53_ipc", NAN, "per cycle");
	}
	/* Two kinds of core: refused. */
	fake_cpu("0x410fd034", "cortex-a53", "0x0");
	put("cpu1", "probed", "1");
	put("cpu1", "midr", "0x410fd083");
	put("cpu1", "cpu_name", "cortex-a72");
	ret = setup(&o, "a53_ipc", 0, NAN);
	result(ret == 2, "CPUs of two cores: exit 2 (got %d)", ret);
	put("cpu1", "probed", "0");
	metrics_free();
}

/* Every metric of the table parses, and only names events or metrics. */
static void test_all_parse(void)
{
	const struct pmu_metric_core *c;
	unsigned int n = 0, bad = 0;
	char err[256];

	for (unsigned int i = 0; (c = metrics_core_at(i)); i++) {
		for (unsigned int k = 0; k < c->nmetrics; k++) {
			struct mexpr *e = mexpr_parse(c->metrics[k].expr, err, sizeof(err));

			n++;
			if (!e) {
				bad++;
				printf("# %s %s: %s\n", c->core, c->metrics[k].name, err);
			}
			mexpr_free(e);
		}
	}
	result(n > 200 && !bad, "all %u metrics of the table parse (%u refused)", n, bad);
}

static void fuzz(unsigned long rounds)
{
	const struct pmu_metric_core *c;
	static const char alphabet[] = "()+-*/%|&^<>#,. 0123456789eifxabc_\\@:";
	struct mexpr_env env = { .id_value = kv_value, .slots = 4, .midr = 0x410fd490 };
	char buf[512], err[256];
	unsigned int ncores = 0, seed = 1;

	cur_counts = counts;
	while (metrics_core_at(ncores))
		ncores++;
	for (unsigned long r = 0; r < rounds; r++) {
		const struct pmu_metric_core *core;
		const char *src;
		struct mexpr *e;
		size_t len;

		core = metrics_core_at(rand_r(&seed) % ncores);
		src = core->metrics[rand_r(&seed) % core->nmetrics].expr;
		snprintf(buf, sizeof(buf), "%s", src);
		len = strlen(buf);
		for (int m = rand_r(&seed) % 4; m >= 0 && len; m--) {
			size_t at = rand_r(&seed) % len;

			switch (rand_r(&seed) % 3) {
			case 0:
				buf[at] = alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
				break;
			case 1:
				memmove(buf + at, buf + at + 1, len - at);
				len--;
				break;
			default:
				buf[at] = '\0';
				len = at;
				break;
			}
		}
		e = mexpr_parse(buf, err, sizeof(err));
		if (e) {
			(void)mexpr_eval(e, &env);
			mexpr_free(e);
		} else if (strncmp(err, "offset ", 7)) {
			result(0, "fuzz: error without an offset: '%s' -> %s", buf, err);
			return;
		}
	}
	c = metrics_core_at(0);
	result(c != NULL, "fuzz: %lu mutated expressions parsed or refused with an offset",
	       rounds);
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/pmuscope-metrics-XXXXXX";

	if (argc == 3 && !strcmp(argv[1], "--fuzz")) {
		fuzz(strtoul(argv[2], NULL, 0));
		return result_summary();
	}
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(sysfs, sizeof(sysfs), "%s", tmpl);
	setenv("PMUSCOPE_SYSFS", sysfs, 1);
	test_syntax();
	test_errors();
	test_all_parse();
	test_table();
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sysfs);
		if (system(cmd))
			fprintf(stderr, "could not remove %s\n", sysfs);
	}
	return result_summary();
}
