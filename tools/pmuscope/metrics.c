// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: stat -M, --topdown and --metric-only. The chosen CPUs'
 * MIDR picks the core's table (metrics-table.h, from perf's JSON); each
 * metric asked for, by name or group, is parsed, its events are added to
 * the counted set (once each, a metric's events next to each other), and
 * after each read its value is computed from the counts and printed after
 * them, with its ScaleUnit applied. A metric whose inputs were
 * multiplexed says so.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exit-codes.h"
#include "metric-expr.h"
#include "metrics.h"

#include "metrics-table.h"

#define ARRAY_LEN(a)		(sizeof(a) / sizeof((a)[0]))
#define METRICS_MAX		64
#define METRICS_REF_DEPTH	8	/* a metric naming a metric naming ... */

/* The slot events sbsa.json's TopdownL1 needs (Arm ARM, PMUv3.4 and later). */
static const uint32_t metrics_slot_events[] = { 0x3a, 0x3b, 0x3d, 0x3e, 0x3f };

struct metric_sel {
	const struct pmu_metric *m;
	const char *group;		/* how it was asked for, or NULL */
	struct mexpr *e;
	int idx[64];			/* per identifier: counter, or -1 */
	char unit[32];
	double scale;
	int hidden;			/* only named by another metric */
};

static struct {
	char *asked;			/* -M's lists, comma-joined */
	int topdown, metric_only;
	const struct pmu_metric_core *core;
	uint32_t midr;
	double slots;
	int slots_set;			/* metrics_set_slots() */
	struct metric_sel sel[METRICS_MAX];
	unsigned int nsel;
	struct report_mrow rows[METRICS_MAX];
	const struct report *cur;	/* during metrics_fill() */
	double duration_s;
	int depth;
} ms;

const struct pmu_metric_core *metrics_core_at(unsigned int i)
{
	return i < ARRAY_LEN(pmu_metric_cores) ? &pmu_metric_cores[i] : NULL;
}

const struct pmu_metric_core *metrics_core_of(uint32_t midr)
{
	const uint32_t mask = ~0x00f0000fU;	/* variant, revision */

	for (unsigned int i = 0; i < ARRAY_LEN(pmu_metric_cores); i++)
		for (unsigned int k = 0; k < pmu_metric_cores[i].nmidrs; k++)
			if ((pmu_metric_cores[i].midrs[k] & mask) == (midr & mask))
				return &pmu_metric_cores[i];
	return NULL;
}

double metrics_scale_unit(const char *scale_unit, char *unit, size_t len)
{
	const char *u = scale_unit ? scale_unit : "";
	char *end;
	double scale = strtod(u, &end);

	if (end == u)
		scale = 1;
	u = end;
	while (*u == ' ')
		u++;
	if (!strncmp(u, "percent", 7) || *u == '%')
		u = "%";
	snprintf(unit, len, "%s", u);
	return scale;
}

int metrics_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	(void)ctx;
	switch (opt->value) {
	case 'M': {
		size_t old = ms.asked ? strlen(ms.asked) : 0;
		char *n = realloc(ms.asked, old + strlen(arg) + 2);

		if (!n)
			return 1;
		if (old)
			n[old++] = ',';
		strcpy(n + old, arg);
		ms.asked = n;
		return 0;
	}
	case 'T':
		ms.topdown = 1;
		return 0;
	default:
		ms.metric_only = 1;
		return 0;
	}
}

int metrics_asked(void)
{
	return ms.asked || ms.topdown || ms.metric_only;
}

int metrics_only(void)
{
	return ms.metric_only;
}

static int metrics_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *s = list; s && *s; ) {
		const char *end = strchr(s, ';');
		size_t len = end ? (size_t)(end - s) : strlen(s);

		if (len == n && !strncasecmp(s, name, n))
			return 1;
		s = end ? end + 1 : NULL;
	}
	return 0;
}

/* The counters (o->evs index) for the event @name: added if new; -1: error. */
static int metrics_event(struct stat_opts *o, const char *name)
{
	struct pmuscope_event_spec ev;
	char err[256];
	int ret;

	/* libpmuscope takes the core's IMPLEMENTATION DEFINED names too. */
	ret = pmuscope_event_parse(name, &ev, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pmuscope: metric event: %s\n", err);
		return -1;
	}
	for (unsigned int i = 0; i < o->nr; i++)
		if (o->evs[i].number == ev.number && o->evs[i].flags == ev.flags)
			return i;
	if (o->nr == PMUSCOPE_MAX_EVENTS) {
		fprintf(stderr, "pmuscope: the metrics need more than %d events\n",
			PMUSCOPE_MAX_EVENTS);
		return -1;
	}
	o->evs[o->nr] = ev;
	return o->nr++;
}

static const struct pmu_metric *metrics_find(const struct pmu_metric_core *c, const char *name)
{
	for (unsigned int i = 0; c && i < c->nmetrics; i++)
		if (!strcasecmp(c->metrics[i].name, name))
			return &c->metrics[i];
	return NULL;
}

/*
 * Add @m (asked by @group; @hidden: only named by another metric), its
 * events and the metrics it names: 0, or 1 (said on stderr).
 */
static int metrics_add(struct stat_opts *o, const struct pmu_metric *m, const char *group,
		       int hidden, int depth)
{
	struct metric_sel *s;
	char err[256];

	for (unsigned int i = 0; i < ms.nsel; i++) {
		if (ms.sel[i].m == m) {
			ms.sel[i].hidden &= hidden;
			return 0;
		}
	}
	if (depth > METRICS_REF_DEPTH) {
		fprintf(stderr, "pmuscope: metric %s: metrics name each other more than %d deep\n",
			m->name, METRICS_REF_DEPTH);
		return 1;
	}
	if (ms.nsel == METRICS_MAX) {
		fprintf(stderr, "pmuscope: at most %d metrics\n", METRICS_MAX);
		return 1;
	}
	s = &ms.sel[ms.nsel];
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->group = group;
	s->hidden = hidden;
	s->e = mexpr_parse(m->expr, err, sizeof(err));
	if (!s->e) {
		fprintf(stderr, "pmuscope: metric %s: %s in '%s'\n", m->name, err, m->expr);
		return 1;
	}
	ms.nsel++;
	s->scale = metrics_scale_unit(m->scale_unit, s->unit, sizeof(s->unit));
	if (mexpr_nids(s->e) > ARRAY_LEN(s->idx)) {
		fprintf(stderr, "pmuscope: metric %s: more than %zu names\n", m->name,
			ARRAY_LEN(s->idx));
		return 1;
	}
	for (unsigned int i = 0; i < mexpr_nids(s->e); i++) {
		const char *id = mexpr_id(s->e, i);
		const struct pmu_metric *ref = metrics_find(ms.core, id);

		s->idx[i] = -1;
		if (ref) {
			/* Another metric: computed, shown only if asked for. */
			if (metrics_add(o, ref, NULL, 1, depth + 1))
				return 1;
			continue;
		}
		s->idx[i] = metrics_event(o, id);
		if (s->idx[i] < 0)
			return 1;
	}
	return 0;
}

/* The MIDR of @cpu as the driver read it: 0 if none. */
static uint32_t metrics_midr(int cpu)
{
	uint32_t midr;

	return pmuscope_cpu_midr(cpu, &midr) ? 0 : midr;
}

/* #slots: PMMIR_EL1.SLOTS, as perf reads it (caps/slots of the CPU PMU). */
static double metrics_slots(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *de;
	double slots = NAN;

	if (!d || getenv("PMUSCOPE_SYSFS")) {
		if (d)
			closedir(d);
		return NAN;
	}
	while ((de = readdir(d)) && isnan(slots)) {
		char path[512];
		unsigned long long v;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/caps/slots",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llx", &v) == 1 && v)
			slots = v;
		fclose(f);
	}
	closedir(d);
	return slots;
}

/* The groups of @c, for an error: "A, B, C". */
static void metrics_groups(const struct pmu_metric_core *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; c && i < c->nmetrics; i++) {
		const char *g = c->metrics[i].groups;

		while (g && *g) {
			const char *end = strchr(g, ';');
			size_t n = end ? (size_t)(end - g) : strlen(g);
			char one[64];

			snprintf(one, sizeof(one), "%.*s", (int)n, g);
			if (!strstr(buf, one) && off < len)
				off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "", one);
			g = end ? end + 1 : NULL;
		}
	}
}

/* Metric or group @name of the core: 0, or 1 (said on stderr). */
static int metrics_ask(struct stat_opts *o, const struct pmu_metric_core *c, const char *name,
		       const char *cpu_name)
{
	const struct pmu_metric *m = metrics_find(c, name);
	int found = 0;
	char groups[512];

	if (m)
		return metrics_add(o, m, NULL, 0, 0);
	for (unsigned int i = 0; c && i < c->nmetrics; i++) {
		const struct pmu_metric *g = &c->metrics[i];

		if (!metrics_in_list(g->groups, name) && strcasecmp(g->default_group, name))
			continue;
		if (metrics_add(o, g, name, 0, 0))
			return 1;
		found = 1;
	}
	if (found)
		return 0;
	metrics_groups(c, groups, sizeof(groups));
	if (c)
		fprintf(stderr, "pmuscope: no metric or metric group '%s' for %s (%s); its groups: %s\n",
			name, cpu_name, c->core, groups);
	else
		fprintf(stderr, "pmuscope: no metric or metric group '%s': perf's JSON has no metrics for %s\n",
			name, cpu_name);
	return 1;
}

int metrics_setup(struct stat_opts *o)
{
	uint64_t cpus[PMUSCOPE_CPU_WORDS];
	struct pmuscope_cpu_info info;
	const struct pmu_metric_core *core = NULL, *sbsa = &pmu_metric_cores[0];
	char *save = NULL, name[40] = "";
	int first = -1, has_slots = 1;

	if (!ms.asked && !ms.topdown) {
		if (ms.metric_only) {
			fprintf(stderr, "pmuscope: --metric-only needs -M or --topdown\n");
			return EXIT_USAGE;
		}
		return 0;
	}
	if (o->cpus_given)
		memcpy(cpus, o->cpus, sizeof(cpus));
	else if (pmuscope_online_cpus(cpus, PMUSCOPE_CPU_WORDS))
		return 0;	/* choose_cpus_events() says so */
	/* One core for all: a metric's formula and events are the core's. */
	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		uint32_t midr;
		const struct pmu_metric_core *c;

		if (!(cpus[cpu / 64] & (1ULL << (cpu % 64))))
			continue;
		midr = metrics_midr(cpu);
		c = metrics_core_of(midr);
		if (first >= 0 && ((midr ^ ms.midr) & ~0x00f0000fU)) {
			fprintf(stderr, "pmuscope: CPUs %d and %d are different cores (MIDR 0x%08x, 0x%08x): metrics are per core, choose CPUs of one with -C\n",
				first, cpu, ms.midr, midr);
			return EXIT_USAGE;
		}
		if (first < 0) {
			first = cpu;
			ms.midr = midr;
			core = c;
			if (!pmuscope_cpu_info(cpu, &info))
				snprintf(name, sizeof(name), "%s", info.name);
		}
		if (!pmuscope_cpu_info(cpu, &info))
			for (size_t k = 0; k < ARRAY_LEN(metrics_slot_events); k++)
				has_slots &= !!pmuscope_cpu_has_event(&info, metrics_slot_events[k]);
	}
	if (first < 0)
		return 0;
	if (!*name)
		snprintf(name, sizeof(name), "MIDR 0x%08x", ms.midr);
	/*
	 * A core whose JSON has no metrics, but whose PMU has the slot
	 * events: sbsa.json's generic ones, as perf takes them.
	 */
	if (!core && has_slots)
		core = sbsa;
	ms.core = core;
	if (!ms.slots_set)
		ms.slots = metrics_slots();
	if (ms.topdown) {
		const char *g = core && !strcmp(core->core, "arm/cortex-a53") ?
				"A53_Cycle_Accounting" : "TopdownL1";
		int any = 0;

		for (unsigned int i = 0; core && i < core->nmetrics; i++)
			any |= metrics_in_list(core->metrics[i].groups, g);
		if (!any) {
			char groups[512];

			metrics_groups(core, groups, sizeof(groups));
			fprintf(stderr, "pmuscope: --topdown: CPU %d (%s) has no TopdownL1: its PMU lacks the slot events STALL_SLOT, STALL_SLOT_FRONTEND, STALL_SLOT_BACKEND, OP_RETIRED, OP_SPEC (PMCEID) and pmuscope has no cycle-accounting group for it%s%s%s\n",
				first, name, core ? " (-M takes its groups: " : "", groups,
				core ? ")" : "");
			return EXIT_UNSUPPORTED;
		}
		if (metrics_ask(o, core, g, name))
			return EXIT_USAGE;
	}
	for (char *tok = ms.asked ? strtok_r(ms.asked, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save))
		if (metrics_ask(o, core, tok, name))
			return EXIT_USAGE;
	if (!ms.nsel) {
		fprintf(stderr, "pmuscope: -M needs at least one metric\n");
		return EXIT_USAGE;
	}
	return 0;
}

static double metrics_value(const struct metric_sel *s);

/* An identifier of the metric being computed: a count, or another metric. */
static double metrics_id_value(void *arg, const char *name)
{
	const struct metric_sel *s = arg;

	for (unsigned int i = 0; i < mexpr_nids(s->e); i++) {
		if (strcmp(mexpr_id(s->e, i), name))
			continue;
		if (s->idx[i] >= 0) {
			const struct report_counter *c;

			if (s->idx[i] >= (int)ms.cur->ncounters)
				return NAN;
			c = &ms.cur->c[s->idx[i]];
			/* Enabled but never on a counter: not counted, not 0 (perf). */
			if (c->time_enabled && !c->time_running)
				return NAN;
			return (double)c->count;
		}
		for (unsigned int k = 0; k < ms.nsel; k++)
			if (!strcasecmp(ms.sel[k].m->name, name) && ms.depth < METRICS_REF_DEPTH)
				return metrics_value(&ms.sel[k]);
	}
	return NAN;
}

/* A metric's value without its scale (another metric uses it so). */
static double metrics_value(const struct metric_sel *s)
{
	struct mexpr_env env = {
		.id_value = metrics_id_value, .slots = ms.slots, .midr = ms.midr,
		.duration_s = ms.duration_s, .arg = (void *)s,
	};
	double v;

	ms.depth++;
	v = mexpr_eval(s->e, &env);
	ms.depth--;
	return v;
}

/* Any input of @s counted part of the time only. */
static int metrics_multiplexed(const struct metric_sel *s, int depth)
{
	for (unsigned int i = 0; i < mexpr_nids(s->e); i++) {
		if (s->idx[i] >= 0 && s->idx[i] < (int)ms.cur->ncounters) {
			const struct report_counter *c = &ms.cur->c[s->idx[i]];

			if ((c->vflags & PMUSCOPE_VAL_MULTIPLEXED) ||
			    c->time_running < c->time_enabled)
				return 1;
			continue;
		}
		for (unsigned int k = 0; k < ms.nsel && depth < METRICS_REF_DEPTH; k++)
			if (!strcasecmp(ms.sel[k].m->name, mexpr_id(s->e, i)) &&
			    metrics_multiplexed(&ms.sel[k], depth + 1))
				return 1;
	}
	return 0;
}

void metrics_fill(struct report *r, double duration_s)
{
	unsigned int n = 0;

	r->metric_only = ms.metric_only;
	if (!ms.nsel)
		return;
	ms.cur = r;
	ms.duration_s = duration_s;
	for (unsigned int i = 0; i < ms.nsel; i++) {
		const struct metric_sel *s = &ms.sel[i];
		struct report_mrow *row = &ms.rows[n];

		if (s->hidden)
			continue;
		row->name = s->m->name;
		row->unit = s->unit;
		row->group = s->group;
		row->value = metrics_value(s) * s->scale;
		if (isinf(row->value))
			row->value = NAN;
		row->multiplexed = metrics_multiplexed(s, 0);
		n++;
	}
	ms.cur = NULL;
	r->mrows = ms.rows;
	r->nmrows = n;
}

void metrics_set_slots(double slots)
{
	ms.slots = slots;
	ms.slots_set = 1;
}

void metrics_free(void)
{
	for (unsigned int i = 0; i < ms.nsel; i++)
		mexpr_free(ms.sel[i].e);
	free(ms.asked);
	memset(&ms, 0, sizeof(ms));
}
