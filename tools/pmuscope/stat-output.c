// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: derived metrics and the table, JSON and CSV formats.
 * JSON: one object per line (per interval, and one for the total); CSV:
 * one header, then one row per counter (and per CPU) and per metric.
 * Snapshots: a table per snapshot, one JSON object per line per snapshot,
 * or one CSV row per CPU and snapshot. The field names are documented in
 * Documentation/cli.rst.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat-output.h"

#define EV_SW_INCR		0x00
#define EV_L1D_CACHE_REFILL	0x03
#define EV_L1D_CACHE		0x04
#define EV_INST_RETIRED		0x08
#define EV_BR_MIS_PRED		0x10
#define EV_CPU_CYCLES		0x11
#define EV_BR_PRED		0x12
#define EV_BR_RETIRED		0x21
#define EV_BR_MIS_PRED_RETIRED	0x22
#define EV_STALL_FRONTEND	0x23
#define EV_STALL_BACKEND	0x24

/*
 * A derived metric divides two counters of the same run: of the same
 * exception levels (instructions:k per cycles:u means nothing), neither
 * raw. @only: the numerator must be that counter (the metric printed
 * beside it); NULL: the first numerator that has a denominator.
 */
static double report_ratio(const struct report *r, const struct report_counter *only,
			   uint32_t num, uint32_t den, double scale)
{
	for (unsigned int i = 0; i < r->ncounters; i++) {
		const struct report_counter *a = &r->c[i];

		if (a->number != num || (a->flags & PMUSCOPE_EV_RAW) || (only && a != only))
			continue;
		for (unsigned int j = 0; j < r->ncounters; j++) {
			const struct report_counter *b = &r->c[j];

			if (b->number != den || (b->flags & PMUSCOPE_EV_RAW) ||
			    (b->flags & PMUSCOPE_EV_ALL_EL) != (a->flags & PMUSCOPE_EV_ALL_EL))
				continue;
			if (!b->count)
				return NAN;
			return (double)a->count * scale / (double)b->count;
		}
	}
	return NAN;
}

static void report_metrics_of(const struct report *r, const struct report_counter *only,
			      struct report_metrics *m)
{
	m->ipc = report_ratio(r, only, EV_INST_RETIRED, EV_CPU_CYCLES, 1);
	m->l1d_miss_ratio = report_ratio(r, only, EV_L1D_CACHE_REFILL, EV_L1D_CACHE, 1);
	m->l1d_mpki = report_ratio(r, only, EV_L1D_CACHE_REFILL, EV_INST_RETIRED, 1000);
	m->branch_miss_ratio = report_ratio(r, only, EV_BR_MIS_PRED, EV_BR_PRED, 1);
	if (isnan(m->branch_miss_ratio))
		m->branch_miss_ratio = report_ratio(r, only, EV_BR_MIS_PRED_RETIRED,
						    EV_BR_RETIRED, 1);
	m->frontend_stall_ratio = report_ratio(r, only, EV_STALL_FRONTEND, EV_CPU_CYCLES, 1);
	m->backend_stall_ratio = report_ratio(r, only, EV_STALL_BACKEND, EV_CPU_CYCLES, 1);
}

void report_metrics(const struct report *r, struct report_metrics *m)
{
	report_metrics_of(r, NULL, m);
}

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* perf's update_stats(): Welford's running mean and sum of squares. */
void report_stats_update(struct report_stats *s, double v)
{
	double delta;

	s->n++;
	delta = v - s->mean;
	s->mean += delta / s->n;
	s->M2 += delta * (v - s->mean);
}

/*
 * perf's stddev_stats(): the standard deviation of the mean, the sample
 * variance (n - 1) over n, square-rooted; 0 below 2 values.
 */
double report_stats_stddev(const struct report_stats *s)
{
	if (s->n < 2)
		return 0.0;
	return sqrt(s->M2 / (s->n - 1) / s->n);
}

/* perf's rel_stddev_stats(): @stddev in percent of @avg; 0 when @avg is. */
double report_rel_stddev(double stddev, double avg)
{
	return avg ? 100.0 * stddev / avg : 0.0;
}

/*
 * Where @cpu is, from sysfs (PMUSCOPE_CPU_SYSFS in the environment: another
 * directory than /sys/devices/system/cpu, for tests), as perf reads it: a
 * file that is missing, or a die_id of -1, reads 0. 0, or -1 when the CPU
 * has no topology directory.
 */
int report_topo_read(int cpu, struct report_topo *t)
{
	static const char *const names[] = { "physical_package_id", "die_id", "core_id" };
	const char *root = getenv("PMUSCOPE_CPU_SYSFS");
	int *fields[] = { &t->socket, &t->die, &t->core };
	char path[256];
	int found = 0;

	if (!root || !*root)
		root = "/sys/devices/system/cpu";
	for (unsigned int i = 0; i < ARRAY_LEN(names); i++) {
		FILE *f;

		*fields[i] = 0;
		snprintf(path, sizeof(path), "%s/cpu%d/topology/%s", root, cpu, names[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = 1;
		if (fscanf(f, "%d", fields[i]) != 1 || *fields[i] < 0)
			*fields[i] = 0;
		fclose(f);
	}
	return found ? 0 : -1;
}

/* The metrics by their stable JSON and CSV names (Documentation/cli.rst). */
static const struct {
	const char *name;
	size_t offset;
} report_metric_fields[] = {
	{ "ipc", offsetof(struct report_metrics, ipc) },
	{ "l1d_miss_ratio", offsetof(struct report_metrics, l1d_miss_ratio) },
	{ "l1d_mpki", offsetof(struct report_metrics, l1d_mpki) },
	{ "branch_miss_ratio", offsetof(struct report_metrics, branch_miss_ratio) },
	{ "frontend_stall_ratio", offsetof(struct report_metrics, frontend_stall_ratio) },
	{ "backend_stall_ratio", offsetof(struct report_metrics, backend_stall_ratio) },
};

static double report_metric(const struct report_metrics *m, unsigned int i)
{
	double v;

	memcpy(&v, (const char *)m + report_metric_fields[i].offset, sizeof(v));
	return v;
}

void report_thousands(uint64_t v, char *buf, size_t len)
{
	char digits[32];
	size_t n, out = 0;

	n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	for (size_t i = 0; i < n && out + 1 < len; i++) {
		buf[out++] = digits[i];
		if ((n - i - 1) % 3 == 0 && i + 1 < n && out + 1 < len)
			buf[out++] = ',';
	}
	buf[out] = '\0';
}

static void report_mods(const struct report *r, uint32_t flags, char *buf)
{
	pmuscope_modifiers_format(flags, r->kernel_el, buf);
}

/* The metric perf would print beside counter @c, as "#  text". */
static void report_beside(const struct report *r, const struct report_counter *c,
			  char *buf, size_t len)
{
	struct report_metrics mm, *m = &mm;

	buf[0] = '\0';
	if (c->flags & PMUSCOPE_EV_RAW)
		return;
	report_metrics_of(r, c, m);
	switch (c->number) {
	case EV_INST_RETIRED:
		if (!isnan(m->ipc))
			snprintf(buf, len, "#  %6.2f  insn per cycle", m->ipc);
		break;
	case EV_L1D_CACHE_REFILL:
		if (!isnan(m->l1d_miss_ratio) && !isnan(m->l1d_mpki))
			snprintf(buf, len, "#  %6.2f%% of L1D accesses, %.2f MPKI",
				 100 * m->l1d_miss_ratio, m->l1d_mpki);
		else if (!isnan(m->l1d_miss_ratio))
			snprintf(buf, len, "#  %6.2f%% of L1D accesses",
				 100 * m->l1d_miss_ratio);
		else if (!isnan(m->l1d_mpki))
			snprintf(buf, len, "#  %6.2f  MPKI", m->l1d_mpki);
		break;
	case EV_BR_MIS_PRED:
	case EV_BR_MIS_PRED_RETIRED:
		if (!isnan(m->branch_miss_ratio))
			snprintf(buf, len, "#  %6.2f%% of branches",
				 100 * m->branch_miss_ratio);
		break;
	case EV_STALL_FRONTEND:
		if (!isnan(m->frontend_stall_ratio))
			snprintf(buf, len, "#  %6.2f%% frontend cycles idle",
				 100 * m->frontend_stall_ratio);
		break;
	case EV_STALL_BACKEND:
		if (!isnan(m->backend_stall_ratio))
			snprintf(buf, len, "#  %6.2f%% backend cycles idle",
				 100 * m->backend_stall_ratio);
		break;
	}
}

static void report_label(const struct report *r, const struct report_counter *c,
			 char *buf, size_t len)
{
	char mods[5];

	report_mods(r, c->flags, mods);
	if (!strcmp(mods, "uk"))
		snprintf(buf, len, "%s", c->label);
	else
		snprintf(buf, len, "%s:%s", c->label, mods);
}

/* -r: the noise of counter @i as perf prints it after the count, if not 0. */
static void report_noise_std(FILE *f, const struct report *r, unsigned int i)
{
	double pct;

	if (r->runs < 2)
		return;
	pct = report_rel_stddev(r->noise[i], (double)r->c[i].count);
	if (pct)
		fprintf(f, "  ( +-%6.2f%% )", pct);
}

/*
 * A report of one CPU (-A) or core (--per-core) of @r, its counters' counts
 * those of the CPUs of @r whose indices are in @ks (@nk of them): what the
 * metrics beside its rows are computed from.
 */
static void report_slice(struct report *dst, const struct report *r,
			 const unsigned int *ks, unsigned int nk)
{
	dst->ncounters = r->ncounters;
	dst->kernel_el = r->kernel_el;
	for (unsigned int i = 0; i < r->ncounters; i++) {
		struct report_counter *d = &dst->c[i];
		const struct report_counter *c = &r->c[i];

		d->number = c->number;
		d->flags = c->flags;
		d->name = c->name;
		d->label = c->label;
		d->count = d->time_enabled = d->time_running = 0;
		d->vflags = 0;
		for (unsigned int j = 0; j < nk; j++) {
			d->count += c->cpu_count[ks[j]];
			d->time_enabled += c->cpu_enabled[ks[j]];
			d->time_running += c->cpu_running[ks[j]];
			d->vflags |= c->cpu_vflags[ks[j]];
		}
	}
}

/*
 * The rows of -A (@aggr REPORT_AGGR_NONE: one per CPU, counter by counter,
 * as perf) or --per-core (core by core, each with its counters): each
 * row's CPUs (indices into @r->cpu_ids) into @ks, a row's first at
 * @first[row] and its count at @nks[row]. Returns the number of rows.
 */
static unsigned int report_groups(const struct report *r, unsigned int *ks,
				  unsigned int *first, unsigned int *nks)
{
	unsigned int n = 0, used = 0;
	int done[REPORT_MAX_CPUS] = { 0 };

	for (unsigned int k = 0; k < r->ncpus; k++) {
		if (done[k])
			continue;
		first[n] = used;
		nks[n] = 0;
		for (unsigned int j = k; j < r->ncpus; j++) {
			const struct report_topo *a = &r->topo[k], *b = &r->topo[j];

			if (done[j])
				continue;
			if (j != k && (r->aggr != REPORT_AGGR_CORE || a->socket != b->socket ||
				       a->die != b->die || a->core != b->core))
				continue;
			done[j] = 1;
			ks[used++] = j;
			nks[n]++;
		}
		n++;
	}
	return n;
}

/* The row's name: "CPU3" (-A) or "S0-D0-C3" (--per-core). */
static void report_group_name(const struct report *r, unsigned int k, char *buf, size_t len)
{
	const struct report_topo *t = &r->topo[k];

	if (r->aggr == REPORT_AGGR_CORE)
		snprintf(buf, len, "S%d-D%d-C%d", t->socket, t->die, t->core);
	else
		snprintf(buf, len, "CPU%d", r->cpu_ids[k]);
}

static void report_row_std(FILE *f, const struct report *r, const struct report *row,
			   unsigned int i, const char *stamp, const char *prefix)
{
	const struct report_counter *c = &row->c[i];
	char num[32], label[64], beside[96], flags[64];

	report_thousands(c->count, num, sizeof(num));
	report_label(r, c, label, sizeof(label));
	report_beside(row, c, beside, sizeof(beside));
	pmuscope_flags_str(c->vflags, flags, sizeof(flags));
	if (*beside)
		fprintf(f, "%s%s%20s      %-26s %s", stamp, prefix, num, label, beside);
	else
		fprintf(f, "%s%s%20s      %s", stamp, prefix, num, label);
	report_noise_std(f, r, i);
	if (c->time_running < c->time_enabled && c->time_enabled)
		fprintf(f, "  (%.2f%%)", 100.0 * c->time_running / c->time_enabled);
	if (*flags)
		fprintf(f, "  [%s]", flags);
	fprintf(f, "\n");
}

/* perf's get_precision(): the decimals that show @num's first digit. */
static int report_precision(double num)
{
	if (num > 1)
		return 0;
	return lround(ceil(-log10(num)));
}

/* stat -M: a row per metric after the counters, as perf's "#  value unit  name". */
static void report_mrows_table(FILE *f, const struct report *r, const char *stamp)
{
	for (unsigned int i = 0; i < r->nmrows; i++) {
		const struct report_mrow *m = &r->mrows[i];

		if (isnan(m->value))
			fprintf(f, "%s%52s #  %10s  %s  (not counted)", stamp, "", "", m->name);
		else
			fprintf(f, "%s%52s #  %10.2f %s  %s", stamp, "", m->value, m->unit, m->name);
		if (!isnan(m->value) && m->multiplexed)
			fprintf(f, "  (multiplexed)");
		fprintf(f, "\n");
	}
}

/* --metric-only: a column per metric, "value unit" under its name. */
static void report_mrows_only(FILE *f, const struct report *r, const char *stamp, int head)
{
	char cell[64];
	int w, any = 0;

	if (head) {
		fprintf(f, "%s", *stamp ? "#       time " : "");	/* as wide as the stamp */
		for (unsigned int i = 0; i < r->nmrows; i++) {
			w = strlen(r->mrows[i].name) > 14 ? (int)strlen(r->mrows[i].name) : 14;
			fprintf(f, " %*s", w, r->mrows[i].name);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "%s", stamp);
	for (unsigned int i = 0; i < r->nmrows; i++) {
		const struct report_mrow *m = &r->mrows[i];

		w = strlen(m->name) > 14 ? (int)strlen(m->name) : 14;
		if (isnan(m->value))
			snprintf(cell, sizeof(cell), "not counted");
		else
			snprintf(cell, sizeof(cell), "%.2f %s%s", m->value, m->unit,
				 m->multiplexed ? "*" : "");
		fprintf(f, " %*s", w, cell);
		any |= m->multiplexed && !isnan(m->value);
	}
	fprintf(f, "%s\n", any ? "   (*: multiplexed)" : "");
}

static void report_row_sep(FILE *f, const struct report *r, const struct report *row,
			   unsigned int i, const char *prefix);

/*
 * -A: counter by counter, each CPU; --per-core: core by core. The rows of
 * the table (@sep NULL, each after @stamp) or of -x (fields split by @sep),
 * each after the CPU's or core's name (and a core's number of CPUs).
 * -1 when there is no memory for a row.
 */
static int report_split(FILE *f, const struct report *r, const char *stamp, const char *sep)
{
	unsigned int ks[REPORT_MAX_CPUS], first[REPORT_MAX_CPUS], nks[REPORT_MAX_CPUS];
	unsigned int n = report_groups(r, ks, first, nks);
	struct report *row = malloc(sizeof(*row));
	char name[64], prefix[128];

	if (!row)
		return -1;
	for (unsigned int a = 0; a < (r->aggr == REPORT_AGGR_NONE ? r->ncounters : n); a++) {
		for (unsigned int b = 0; b < (r->aggr == REPORT_AGGR_NONE ? n : r->ncounters); b++) {
			unsigned int g = r->aggr == REPORT_AGGR_NONE ? b : a;
			unsigned int i = r->aggr == REPORT_AGGR_NONE ? a : b;

			report_slice(row, r, &ks[first[g]], nks[g]);
			report_group_name(r, ks[first[g]], name, sizeof(name));
			if (sep && r->aggr == REPORT_AGGR_CORE)
				snprintf(prefix, sizeof(prefix), "%s%s%u%s", name, sep, nks[g], sep);
			else if (sep)
				snprintf(prefix, sizeof(prefix), "%s%s", name, sep);
			else if (r->aggr == REPORT_AGGR_CORE)
				snprintf(prefix, sizeof(prefix), "%-18s %4u ", name, nks[g]);
			else
				snprintf(prefix, sizeof(prefix), "%-6s ", name);
			if (sep)
				report_row_sep(f, r, row, i, prefix);
			else
				report_row_std(f, r, row, i, stamp, prefix);
		}
	}
	free(row);
	return 0;
}

static void report_table(FILE *f, const struct report *r, int head)
{
	char num[32], label[64], flags[64], stamp[32] = "";

	if (r->kind == REPORT_INTERVAL) {
		snprintf(stamp, sizeof(stamp), "%12.6f ", r->time_s);
	} else {
		if (r->pids || r->tids)
			fprintf(f, "\n Performance counter stats for %s%s%s%s%s%s%s",
				r->pids ? "process id '" : "", r->pids ? r->pids : "",
				r->pids ? "'" : "", r->pids && r->tids ? " and " : "",
				r->tids ? "thread id '" : "", r->tids ? r->tids : "",
				r->tids ? "'" : "");
		else if (r->task)
			fprintf(f, "\n Performance counter stats for");
		else
			fprintf(f, "\n Performance counter stats for CPU%s %s",
				strchr(r->cpus, ',') || strchr(r->cpus, '-') ? "s" : "",
				r->cpus);
		if (r->command) {
			fprintf(f, r->task ? " '" : " ('");
			for (int i = 0; r->command[i]; i++)
				fprintf(f, "%s%s", i ? " " : "", r->command[i]);
			fprintf(f, r->task ? "'" : "')");
		}
		if (r->runs > 1)
			fprintf(f, " (%u runs)", r->runs);
		fprintf(f, ":\n\n");
	}
	if (r->metric_only) {
		report_mrows_only(f, r, stamp, r->kind == REPORT_TOTAL || head);
		goto elapsed;
	}
	if (r->aggr != REPORT_AGGR_GLOBAL && report_split(f, r, stamp, NULL))
		return;
	for (unsigned int i = 0; r->aggr == REPORT_AGGR_GLOBAL && i < r->ncounters; i++) {
		const struct report_counter *c = &r->c[i];

		report_row_std(f, r, r, i, stamp, "");
		report_label(r, c, label, sizeof(label));
		for (unsigned int k = 0; r->per_cpu && k < r->ncpus; k++) {
			report_thousands(c->cpu_count[k], num, sizeof(num));
			pmuscope_flags_str(c->cpu_vflags[k], flags, sizeof(flags));
			fprintf(f, "%s%20s        cpu%-3d %s%s%s\n", stamp, num, r->cpu_ids[k],
				label, *flags ? "  " : "", flags);
		}
	}
	report_mrows_table(f, r, stamp);
elapsed:
	if (r->kind != REPORT_TOTAL)
		return;
	if (r->runs > 1) {
		/* As perf: at most 2 more digits than the spread's first. */
		int prec = report_precision(r->elapsed_sd) + 2;

		fprintf(f, "\n %17.*f +- %.*f seconds time elapsed", prec, r->elapsed_s,
			prec, r->elapsed_sd);
		if (report_rel_stddev(r->elapsed_sd, r->elapsed_s))
			fprintf(f, "  ( +-%6.2f%% )",
				report_rel_stddev(r->elapsed_sd, r->elapsed_s));
		fprintf(f, "\n\n");
	} else {
		fprintf(f, "\n%20.9f seconds time elapsed\n\n", r->elapsed_s);
	}
}

/*
 * The metric perf's -x prints beside counter @c: its value and unit; 0
 * when there is none. The same metrics as the table's (report_beside()).
 */
static int report_metric_sep(const struct report *r, const struct report_counter *c,
			     double *v, const char **unit)
{
	struct report_metrics m;

	if (c->flags & PMUSCOPE_EV_RAW)
		return 0;
	report_metrics_of(r, c, &m);
	switch (c->number) {
	case EV_INST_RETIRED:
		*v = m.ipc;
		*unit = "insn per cycle";
		break;
	case EV_L1D_CACHE_REFILL:
		*v = 100 * m.l1d_miss_ratio;
		*unit = "of L1D accesses";
		break;
	case EV_BR_MIS_PRED:
	case EV_BR_MIS_PRED_RETIRED:
		*v = 100 * m.branch_miss_ratio;
		*unit = "of branches";
		break;
	case EV_STALL_FRONTEND:
		*v = 100 * m.frontend_stall_ratio;
		*unit = "frontend cycles idle";
		break;
	case EV_STALL_BACKEND:
		*v = 100 * m.backend_stall_ratio;
		*unit = "backend cycles idle";
		break;
	default:
		return 0;
	}
	return !isnan(*v);
}

/*
 * One row of -x SEP, perf's field order: [interval time,] [CPU or core
 * (and its number of CPUs),] value, unit (empty), event, [-r: the noise
 * "x.xx%",] run time (ns), run percentage, metric value, metric unit.
 * A counter that never ran reads "<not counted>", as perf.
 */
static void report_row_sep(FILE *f, const struct report *r, const struct report *row,
			   unsigned int i, const char *prefix)
{
	const char *sep = r->csv_sep, *unit;
	const struct report_counter *c = &row->c[i];
	char label[64];
	double pct = 100, v;

	report_label(r, c, label, sizeof(label));
	if (r->kind == REPORT_INTERVAL)
		fprintf(f, "%.9f%s", r->time_s, sep);
	fprintf(f, "%s", prefix);
	if (c->time_running && c->time_enabled)
		fprintf(f, "%llu%s", (unsigned long long)c->count, sep);
	else
		fprintf(f, "<not counted>%s", sep);
	fprintf(f, "%s%s", sep, label);
	if (r->runs > 1)
		fprintf(f, "%s%.2f%%", sep, report_rel_stddev(r->noise[i], (double)c->count));
	/* perf's integer percentage: 100 * run / ena in 64 bits. */
	if (c->time_running != c->time_enabled && c->time_enabled)
		pct = (double)(100 * c->time_running / c->time_enabled);
	fprintf(f, "%s%llu%s%.2f", sep, (unsigned long long)c->time_running, sep, pct);
	if (report_metric_sep(row, c, &v, &unit))
		fprintf(f, "%s%.2f%s%s", sep, v, sep, unit);
	else
		fprintf(f, "%s%s", sep, sep);
	fputc('\n', f);
}

/*
 * stat -M with -x: a row per metric after the counters, as perf's own rows
 * for a metric: the counter's fields empty ([interval time,] value, unit,
 * event, [-r's noise,] run time, run percentage), then the metric's value
 * ("%.2f", empty when not counted) and "UNIT  NAME" ("%  backend_bound"),
 * so that value and unit are in the columns of the counters' metrics.
 */
static void report_mrows_sep(FILE *f, const struct report *r)
{
	const char *sep = r->csv_sep;

	for (unsigned int i = 0; i < r->nmrows; i++) {
		const struct report_mrow *m = &r->mrows[i];

		if (r->kind == REPORT_INTERVAL)
			fprintf(f, "%.9f%s", r->time_s, sep);
		for (unsigned int k = 0; k < (r->runs > 1 ? 6u : 5u); k++)
			fputs(sep, f);
		if (!isnan(m->value))
			fprintf(f, "%.2f", m->value);
		fprintf(f, "%s%s%s%s\n", sep, m->unit, *m->unit ? "  " : "", m->name);
	}
}

static void report_sep(FILE *f, const struct report *r)
{
	if (r->aggr == REPORT_AGGR_GLOBAL) {
		for (unsigned int i = 0; i < r->ncounters; i++)
			report_row_sep(f, r, r, i, "");
		report_mrows_sep(f, r);
	} else {
		report_split(f, r, "", r->csv_sep);
	}
}

/*
 * The UTF-8 sequence at @s: its length when valid (RFC 3629: shortest
 * form, no surrogate, at most U+10FFFF), else 0 and *@bad the bytes of
 * its longest valid-looking start (at least 1, never the NUL), which one
 * U+FFFD stands for: the Unicode standard's "maximal subpart", as
 * Python's decode(errors="replace").
 */
static size_t report_utf8_len(const unsigned char *s, size_t *bad)
{
	unsigned int c = s[0], lo = 0x80, hi = 0xbf, n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;	/* overlong */
		hi = c == 0xed ? 0x9f : 0xbf;	/* U+D800..DFFF */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;	/* overlong */
		hi = c == 0xf4 ? 0x8f : 0xbf;	/* past U+10FFFF */
	} else {
		*bad = 1;		/* a continuation byte, C0, C1, F5..FF */
		return 0;
	}
	for (unsigned int i = 1; i < n; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi) {
			*bad = i;
			return 0;
		}
	return n;
}

/*
 * A JSON string (RFC 8259), in UTF-8: quotes and backslashes escaped,
 * control characters as \u00XX, valid UTF-8 as it is, and each invalid
 * sequence as \ufffd (U+FFFD REPLACEMENT CHARACTER): a parser reads the
 * text Python's bytes.decode(errors="replace") makes of @s.
 */
void report_json_str(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	fputc('"', f);
	while (*u) {
		size_t bad = 0, n = report_utf8_len(u, &bad);

		if (!n) {
			fputs("\\ufffd", f);
			u += bad;
		} else if (*u == '"' || *u == '\\') {
			fprintf(f, "\\%c", *u++);
		} else if (*u < 0x20) {
			fprintf(f, "\\u%04x", *u++);
		} else {
			fwrite(u, 1, n, f);
			u += n;
		}
	}
	fputc('"', f);
}

static void report_json_flags(FILE *f, uint32_t vflags)
{
	char flags[64], *tok, *save = NULL;
	int first = 1;

	pmuscope_flags_str(vflags, flags, sizeof(flags));
	fputc('[', f);
	for (tok = strtok_r(flags, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		fprintf(f, "%s", first ? "" : ",");
		report_json_str(f, tok);
		first = 0;
	}
	fputc(']', f);
}

static void report_json_num(FILE *f, double v)
{
	if (isnan(v))
		fprintf(f, "null");
	else
		fprintf(f, "%.6g", v);
}

static void report_json(FILE *f, const struct report *r)
{
	struct report_metrics m;
	char mods[5];

	report_metrics(r, &m);
	fprintf(f, "{\"type\":\"%s\",", r->kind == REPORT_TOTAL ? "total" : "interval");
	if (r->kind == REPORT_INTERVAL)
		fprintf(f, "\"time_s\":%.6f,", r->time_s);
	else
		fprintf(f, "\"elapsed_s\":%.9f,", r->elapsed_s);
	fprintf(f, "\"target\":\"%s\",\"cpus\":", r->task ? "task" : "cpus");
	report_json_str(f, r->cpus);
	fprintf(f, ",\"command\":");
	if (r->command) {
		fputc('[', f);
		for (int i = 0; r->command[i]; i++) {
			fprintf(f, "%s", i ? "," : "");
			report_json_str(f, r->command[i]);
		}
		fputc(']', f);
	} else {
		fprintf(f, "null");
	}
	if (r->kind == REPORT_TOTAL) {
		fprintf(f, ",\"exit_status\":");
		if (r->exit_status >= 0)
			fprintf(f, "%d", r->exit_status);
		else
			fprintf(f, "null");
	}
	fprintf(f, ",\"counters\":[");
	for (unsigned int i = 0; i < r->ncounters; i++) {
		const struct report_counter *c = &r->c[i];

		report_mods(r, c->flags, mods);
		fprintf(f, "%s{\"event\":", i ? "," : "");
		report_json_str(f, c->name);
		fprintf(f, ",\"number\":%u,\"label\":", c->number);
		report_json_str(f, c->label);
		fprintf(f, ",\"modifiers\":\"%s\",\"raw\":%s,\"count\":%llu,"
			"\"time_enabled_ns\":%llu,\"time_running_ns\":%llu,\"flags\":",
			mods, c->flags & PMUSCOPE_EV_RAW ? "true" : "false",
			(unsigned long long)c->count,
			(unsigned long long)c->time_enabled,
			(unsigned long long)c->time_running);
		report_json_flags(f, c->vflags);
		fprintf(f, ",\"per_cpu\":[");
		for (unsigned int k = 0; k < r->ncpus; k++) {
			fprintf(f, "%s{\"cpu\":%d,\"count\":%llu,\"flags\":", k ? "," : "",
				r->cpu_ids[k], (unsigned long long)c->cpu_count[k]);
			report_json_flags(f, c->cpu_vflags[k]);
			fputc('}', f);
		}
		fprintf(f, "]}");
	}
	fprintf(f, "],\"metrics\":{");
	for (unsigned int i = 0; i < ARRAY_LEN(report_metric_fields); i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", report_metric_fields[i].name);
		report_json_num(f, report_metric(&m, i));
	}
	fprintf(f, "}");
	if (r->nmrows) {
		fprintf(f, ",\"metric_values\":[");
		for (unsigned int i = 0; i < r->nmrows; i++) {
			fprintf(f, "%s{\"metric\":", i ? "," : "");
			report_json_str(f, r->mrows[i].name);
			fprintf(f, ",\"value\":");
			report_json_num(f, r->mrows[i].value);
			fprintf(f, ",\"unit\":");
			report_json_str(f, r->mrows[i].unit);
			fprintf(f, ",\"group\":");
			if (r->mrows[i].group)
				report_json_str(f, r->mrows[i].group);
			else
				fprintf(f, "null");
			fprintf(f, ",\"multiplexed\":%s}", r->mrows[i].multiplexed ? "true" : "false");
		}
		fputc(']', f);
	}
	fprintf(f, "}\n");
}

static void report_csv(FILE *f, const struct report *r, int first)
{
	struct report_metrics m;
	char mods[5], flags[64], t[32];

	report_metrics(r, &m);
	if (first)
		fprintf(f, "type,time_s,cpu,event,modifiers,count,time_enabled_ns,time_running_ns,flags\n");
	snprintf(t, sizeof(t), "%.6f", r->kind == REPORT_TOTAL ? r->elapsed_s : r->time_s);
	for (unsigned int i = 0; i < r->ncounters && !r->metric_only; i++) {
		const struct report_counter *c = &r->c[i];

		report_mods(r, c->flags, mods);
		pmuscope_flags_str(c->vflags, flags, sizeof(flags));
		fprintf(f, "%s,%s,all,%s,%s,%llu,%llu,%llu,\"%s\"\n",
			r->kind == REPORT_TOTAL ? "total" : "interval", t, c->name, mods,
			(unsigned long long)c->count, (unsigned long long)c->time_enabled,
			(unsigned long long)c->time_running, flags);
		for (unsigned int k = 0; r->per_cpu && k < r->ncpus; k++) {
			pmuscope_flags_str(c->cpu_vflags[k], flags, sizeof(flags));
			fprintf(f, "%s,%s,%d,%s,%s,%llu,,,\"%s\"\n",
				r->kind == REPORT_TOTAL ? "total" : "interval", t,
				r->cpu_ids[k], c->name, mods,
				(unsigned long long)c->cpu_count[k], flags);
		}
	}
	for (unsigned int i = 0; i < ARRAY_LEN(report_metric_fields); i++)
		if (!isnan(report_metric(&m, i)))
			fprintf(f, "%s,%s,all,metric:%s,,%.6g,,,\"\"\n",
				r->kind == REPORT_TOTAL ? "total" : "interval", t,
				report_metric_fields[i].name, report_metric(&m, i));
	/* stat -M: "metric:NAME", the value with its ScaleUnit applied. */
	for (unsigned int i = 0; i < r->nmrows; i++) {
		const struct report_mrow *mr = &r->mrows[i];

		fprintf(f, "%s,%s,all,metric:%s,,", r->kind == REPORT_TOTAL ? "total" : "interval",
			t, mr->name);
		if (!isnan(mr->value))
			fprintf(f, "%.6g", mr->value);
		fprintf(f, ",,,\"%s\"\n", isnan(mr->value) ? "not-counted" :
			mr->multiplexed ? "multiplexed" : "");
	}
}

void report_print(FILE *f, const struct report *r, enum report_format fmt,
		  int first)
{
	switch (fmt) {
	case REPORT_JSON:
		report_json(f, r);
		break;
	case REPORT_CSV:
		report_csv(f, r, first);
		break;
	default:
		if (r->csv_sep)
			report_sep(f, r);
		else
			report_table(f, r, first);
		break;
	}
	fflush(f);
}

/* ------------------------------------------------------------- snapshots */

/* The key of event @i without the "#N" of a repeat: "cycles", "cycles:u". */
static void report_event_key_base(const struct pmuscope_event_spec *ev,
				  unsigned int kernel_el, char *buf, size_t len)
{
	char mods[5];

	pmuscope_modifiers_format(ev->flags, kernel_el, mods);
	if (!strcmp(mods, "uk"))
		snprintf(buf, len, "%s", ev->label);
	else
		snprintf(buf, len, "%s:%s", ev->label, mods);
}

/*
 * The name of event @i in a snapshot's output: the label as given, with
 * ":MODS" where they are not the default (as stat's table), and "#N" for
 * the N-th (N >= 2) event of the same name: every key is different.
 */
void report_event_key(const struct pmuscope_event_spec *evs, unsigned int i,
		      unsigned int kernel_el, char *buf, size_t len)
{
	char other[96];
	unsigned int n = 1;

	report_event_key_base(&evs[i], kernel_el, buf, len);
	for (unsigned int j = 0; j < i; j++) {
		report_event_key_base(&evs[j], kernel_el, other, sizeof(other));
		n += !strcmp(buf, other);
	}
	if (n > 1) {
		size_t off = strlen(buf);

		if (off < len)
			snprintf(buf + off, len - off, "#%u", n);
	}
}

/*
 * Rows of @ncpus CPUs (@info, as the snapshot gave them) with the counts of
 * @vals: each value goes to the row of its CPU, at its event's index.
 */
void report_snap_fill(struct report_snap_cpu *rows, const struct pmuscope_snap_info *info,
		      unsigned int ncpus, const struct pmuscope_count *vals,
		      unsigned int nv, unsigned int nevents)
{
	for (unsigned int k = 0; k < ncpus; k++) {
		memset(&rows[k], 0, sizeof(rows[k]));
		rows[k].info = info[k];
	}
	for (unsigned int v = 0; v < nv; v++) {
		const struct pmuscope_count *x = &vals[v];
		unsigned int k = nevents ? v / nevents : 0;

		if (x->index >= nevents || x->index >= PMUSCOPE_MAX_EVENTS)
			continue;	/* not ours: never from a sane driver */
		if (k >= ncpus || rows[k].info.cpu != x->cpu)
			for (k = 0; k < ncpus; k++)
				if (rows[k].info.cpu == x->cpu)
					break;
		if (k == ncpus)
			continue;
		rows[k].count[x->index] = x->scaled;
		rows[k].vflags[x->index] = x->flags;
	}
}

/* The earliest capture time of the CPUs online; 0 if none. */
uint64_t report_snap_time(const struct report_snapshot *s)
{
	uint64_t t = 0;
	int found = 0;

	for (unsigned int k = 0; k < s->ncpus; k++) {
		const struct pmuscope_snap_info *c = &s->cpus[k].info;

		if (c->flags & PMUSCOPE_SNAPCPU_OFFLINE)
			continue;
		if (!found || c->time < t)
			t = c->time;
		found = 1;
	}
	return t;
}

/*
 * The methods used, in PMUSCOPE_SNAP_* order, into @buf, with their CPUs
 * if @cpus; or as JSON strings to @json. Returns how many there are.
 */
static int report_snap_methods_of(const struct report_snapshot *s, int cpus,
				   FILE *json, char *buf, size_t len)
{
	uint64_t mask[PMUSCOPE_CPU_WORDS];
	char list[256];
	size_t off = 0;
	int n = 0;

	if (len)
		buf[0] = '\0';
	/* 0 last: every number the library does not name ("unknown"). */
	for (uint32_t m = 1; m <= PMUSCOPE_SNAP_IDLE + 1; m++) {
		uint32_t method = m <= PMUSCOPE_SNAP_IDLE ? m : 0;
		int found = 0;

		memset(mask, 0, sizeof(mask));
		for (unsigned int k = 0; k < s->ncpus; k++) {
			const struct pmuscope_snap_info *c = &s->cpus[k].info;
			uint32_t cm = c->method;

			if (cm > PMUSCOPE_SNAP_IDLE)
				cm = 0;
			if (cm != method)
				continue;
			found = 1;
			if (c->cpu < PMUSCOPE_MAX_CPUS)
				mask[c->cpu / 64] |= 1ULL << (c->cpu % 64);
		}
		if (!found)
			continue;
		if (json) {
			fprintf(json, "%s\"%s\"", n ? "," : "", pmuscope_snap_method_name(method));
		} else if (off < len) {
			off += snprintf(buf + off, len - off, "%s%s", n ? ", " : "",
					pmuscope_snap_method_name(method));
			if (cpus && off < len) {
				pmuscope_cpulist_format(mask, PMUSCOPE_CPU_WORDS, list, sizeof(list));
				off += snprintf(buf + off, len - off, " (CPU%s %s)",
						strpbrk(list, ",-") ? "s" : "", list);
			}
		}
		n++;
	}
	return n;
}

/*
 * "software", or where the CPUs differ each method with its CPUs:
 * "hardware (CPUs 0-2), software (CPU 3)".
 */
void report_snap_methods(const struct report_snapshot *s, char *buf, size_t len)
{
	if (report_snap_methods_of(s, 0, NULL, buf, len) > 1)
		report_snap_methods_of(s, 1, NULL, buf, len);
	if (len && !*buf)
		snprintf(buf, len, "none");
}

static int report_width(const char *s, int min)
{
	int w = strlen(s);

	return w > min ? w : min;
}

static void report_u64(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%llu", (unsigned long long)v);
}

static void report_snap_table(FILE *f, const struct report_snapshot *s)
{
	enum { C_TIME, C_SKEW, C_SKEW_NS, C_FROZEN, C_SPREAD, C_FLAGS, NCOLS };
	static const char *const heads[NCOLS] = {
		"TIME", "SKEW", "SKEW_NS", "FROZEN", "SPREAD", "FLAGS",
	};
	int w[NCOLS], wc[PMUSCOPE_MAX_EVENTS];
	char key[PMUSCOPE_MAX_EVENTS][96], methods[512], num[32], vf[64];

	report_snap_methods(s, methods, sizeof(methods));
	fprintf(f, "snapshot at %llu ticks (%llu Hz): skew %llu ticks (",
		(unsigned long long)report_snap_time(s), (unsigned long long)s->freq,
		(unsigned long long)s->skew);
	if (s->freq)
		fprintf(f, "%llu ns", (unsigned long long)pmuscope_ticks_ns(s->skew, s->freq));
	else
		fprintf(f, "? ns");
	fprintf(f, "), methods: %s\n\n", methods);

	for (int c = 0; c < NCOLS; c++)
		w[c] = strlen(heads[c]);
	for (unsigned int i = 0; i < s->nevents; i++) {
		report_event_key(s->evs, i, s->kernel_el, key[i], sizeof(key[i]));
		wc[i] = strlen(key[i]);
	}
	for (unsigned int k = 0; k < s->ncpus; k++) {
		const struct report_snap_cpu *r = &s->cpus[k];
		uint64_t v[] = { r->info.time, r->info.skew,
				 pmuscope_ticks_ns(r->info.skew, s->freq),
				 r->info.frozen, r->info.spread };

		for (int c = C_TIME; c <= C_SPREAD; c++) {
			report_u64(v[c], num, sizeof(num));
			w[c] = report_width(num, w[c]);
		}
		pmuscope_snap_flags_str(r->info.flags, vf, sizeof(vf));
		w[C_FLAGS] = report_width(vf, w[C_FLAGS]);
		for (unsigned int i = 0; i < s->nevents; i++) {
			report_thousands(r->count[i], num, sizeof(num));
			wc[i] = report_width(num, wc[i]);
		}
	}

	fprintf(f, "%-4s %-8s", "CPU", "METHOD");
	for (int c = C_TIME; c <= C_SPREAD; c++)
		fprintf(f, " %*s", w[c], heads[c]);
	fprintf(f, " %-*s", w[C_FLAGS], heads[C_FLAGS]);
	for (unsigned int i = 0; i < s->nevents; i++)
		fprintf(f, " %*s", wc[i], key[i]);
	fprintf(f, "\n");
	for (unsigned int k = 0; k < s->ncpus; k++) {
		const struct report_snap_cpu *r = &s->cpus[k];
		uint64_t v[] = { r->info.time, r->info.skew,
				 pmuscope_ticks_ns(r->info.skew, s->freq),
				 r->info.frozen, r->info.spread };
		uint32_t any = 0;

		fprintf(f, "%-4u %-8s", r->info.cpu, pmuscope_snap_method_name(r->info.method));
		for (int c = C_TIME; c <= C_SPREAD; c++) {
			if (c == C_SKEW_NS && !s->freq)
				snprintf(num, sizeof(num), "?");
			else
				report_u64(v[c], num, sizeof(num));
			fprintf(f, " %*s", w[c], num);
		}
		pmuscope_snap_flags_str(r->info.flags, vf, sizeof(vf));
		fprintf(f, " %-*s", w[C_FLAGS], *vf ? vf : "-");
		for (unsigned int i = 0; i < s->nevents; i++) {
			report_thousands(r->count[i], num, sizeof(num));
			fprintf(f, " %*s", wc[i], num);
			any |= r->vflags[i];
		}
		if (any) {
			pmuscope_flags_str(any, vf, sizeof(vf));
			fprintf(f, "  [%s]", vf);
		}
		fprintf(f, "\n");
	}
}

static void report_json_ns(FILE *f, uint64_t ticks, uint64_t freq)
{
	if (freq)
		fprintf(f, "%llu", (unsigned long long)pmuscope_ticks_ns(ticks, freq));
	else
		fprintf(f, "null");
}

static void report_snap_json(FILE *f, const struct report_snapshot *s)
{
	char key[96], mods[5], flags[64];

	fprintf(f, "{\"type\":\"snapshot\",\"seq\":%u,\"time_s\":%.6f,\"freq\":%llu,"
		"\"time\":%llu,\"skew\":%llu,\"skew_ns\":",
		s->seq, s->time_s, (unsigned long long)s->freq,
		(unsigned long long)report_snap_time(s), (unsigned long long)s->skew);
	report_json_ns(f, s->skew, s->freq);
	fprintf(f, ",\"methods\":[");
	report_snap_methods_of(s, 0, f, NULL, 0);
	fprintf(f, "],\"events\":[");
	for (unsigned int i = 0; i < s->nevents; i++) {
		const struct pmuscope_event_spec *ev = &s->evs[i];

		report_event_key(s->evs, i, s->kernel_el, key, sizeof(key));
		pmuscope_modifiers_format(ev->flags, s->kernel_el, mods);
		fprintf(f, "%s{\"key\":", i ? "," : "");
		report_json_str(f, key);
		fprintf(f, ",\"event\":");
		report_json_str(f, ev->name);
		fprintf(f, ",\"number\":%u,\"label\":", ev->number);
		report_json_str(f, ev->label);
		fprintf(f, ",\"modifiers\":\"%s\",\"raw\":%s}", mods,
			ev->flags & PMUSCOPE_EV_RAW ? "true" : "false");
	}
	fprintf(f, "],\"cpus\":[");
	for (unsigned int k = 0; k < s->ncpus; k++) {
		const struct report_snap_cpu *r = &s->cpus[k];

		pmuscope_snap_flags_str(r->info.flags, flags, sizeof(flags));
		fprintf(f, "%s{\"cpu\":%u,\"method\":\"%s\",\"time\":%llu,\"skew\":%llu,"
			"\"skew_ns\":", k ? "," : "", r->info.cpu,
			pmuscope_snap_method_name(r->info.method),
			(unsigned long long)r->info.time, (unsigned long long)r->info.skew);
		report_json_ns(f, r->info.skew, s->freq);
		fprintf(f, ",\"frozen\":%llu,\"spread\":%llu,\"flags\":\"%s\",\"counts\":{",
			(unsigned long long)r->info.frozen, (unsigned long long)r->info.spread,
			flags);
		for (unsigned int i = 0; i < s->nevents; i++) {
			report_event_key(s->evs, i, s->kernel_el, key, sizeof(key));
			fprintf(f, "%s", i ? "," : "");
			report_json_str(f, key);
			fprintf(f, ":%llu", (unsigned long long)r->count[i]);
		}
		fprintf(f, "},\"value_flags\":{");
		for (unsigned int i = 0; i < s->nevents; i++) {
			report_event_key(s->evs, i, s->kernel_el, key, sizeof(key));
			fprintf(f, "%s", i ? "," : "");
			report_json_str(f, key);
			fputc(':', f);
			report_json_flags(f, r->vflags[i]);
		}
		fprintf(f, "}}");
	}
	fprintf(f, "]}\n");
}

static void report_snap_csv(FILE *f, const struct report_snapshot *s, int first)
{
	char flags[64];

	if (first) {
		char key[96];

		fprintf(f, "seq,time_s,cpu,method,time,skew,skew_ns,frozen,spread,flags");
		for (unsigned int i = 0; i < s->nevents; i++) {
			report_event_key(s->evs, i, s->kernel_el, key, sizeof(key));
			fprintf(f, ",%s", key);
		}
		fprintf(f, "\n");
	}
	for (unsigned int k = 0; k < s->ncpus; k++) {
		const struct report_snap_cpu *r = &s->cpus[k];

		pmuscope_snap_flags_str(r->info.flags, flags, sizeof(flags));
		fprintf(f, "%u,%.6f,%u,%s,%llu,%llu,", s->seq, s->time_s, r->info.cpu,
			pmuscope_snap_method_name(r->info.method),
			(unsigned long long)r->info.time, (unsigned long long)r->info.skew);
		if (s->freq)
			fprintf(f, "%llu", (unsigned long long)pmuscope_ticks_ns(r->info.skew,
										 s->freq));
		fprintf(f, ",%llu,%llu,\"%s\"", (unsigned long long)r->info.frozen,
			(unsigned long long)r->info.spread, flags);
		for (unsigned int i = 0; i < s->nevents; i++)
			fprintf(f, ",%llu", (unsigned long long)r->count[i]);
		fprintf(f, "\n");
	}
}

/*
 * One snapshot. Table: a header line, then one row per CPU; JSON: one
 * object per line; CSV: the header before the first (@first), then one
 * row per CPU. The fields are documented in Documentation/cli.rst.
 */
void report_snapshot_print(FILE *f, const struct report_snapshot *s,
			   enum report_format fmt, int first)
{
	switch (fmt) {
	case REPORT_JSON:
		report_snap_json(f, s);
		break;
	case REPORT_CSV:
		report_snap_csv(f, s, first);
		break;
	default:
		if (!first)
			fputc('\n', f);
		report_snap_table(f, s);
		break;
	}
	fflush(f);
}
