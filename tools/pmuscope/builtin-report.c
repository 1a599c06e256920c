// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope report: the hottest functions (or source lines) of a record
 * file, with each function's share of the samples and of the counts.
 *
 * A sample's PC is looked up in the maps of its process valid at the
 * sample's time (maps_index_find(), maps.c), as a file and an offset in it, then
 * in that file's symbols and lines (symbols.c, elfutils). Each sample's
 * counts minus those of the previous sample of the same CPU (0 at the
 * start: record resets the counters before enabling them) are what ran
 * since, and go to the sample's function.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"
#include "datafile.h"
#include "maps.h"
#include "symbols.h"

#define EV_L1I_CACHE_REFILL	0x01
#define EV_L1D_CACHE_REFILL	0x03
#define EV_L1D_CACHE		0x04
#define EV_INST_RETIRED		0x08
#define EV_BR_MIS_PRED		0x10
#define EV_CPU_CYCLES		0x11
#define EV_BR_PRED		0x12
#define EV_L1I_CACHE		0x14

/* The per-function metrics: numerator / denominator events. */
static const struct {
	const char *name;		/* JSON, CSV and column name */
	uint32_t num, den;
	int percent;			/* shown as a percentage in the table */
} prof_metrics[] = {
	{ "ipc", EV_INST_RETIRED, EV_CPU_CYCLES, 0 },
	{ "l1d_miss_ratio", EV_L1D_CACHE_REFILL, EV_L1D_CACHE, 1 },
	{ "l1i_miss_ratio", EV_L1I_CACHE_REFILL, EV_L1I_CACHE, 1 },
	{ "branch_miss_ratio", EV_BR_MIS_PRED, EV_BR_PRED, 1 },
};

#define NMETRICS	(sizeof(prof_metrics) / sizeof(prof_metrics[0]))

struct entry {
	struct entry *next;
	uint64_t hash;
	char *comm, *object, *path, *symbol, *source;
	uint64_t samples;
	uint64_t delta[PMUSCOPE_MAX_EVENTS];
};

struct prof {
	const char *file;
	struct df_file df;
	struct sym_table *syms;
	int by_line;
	long pid;			/* --pid; -1: all */
	struct maps_index maps;
	int complete;			/* an END chunk was found */
	struct df_end end;
	uint64_t samples, shown, kernel, unknown, lost, lost_records, throttled;
	uint64_t first_time, last_time;
	struct entry **buckets;
	size_t nbuckets, nentries;
	char keys[PMUSCOPE_MAX_EVENTS][96];
	int metric_ev[NMETRICS][2];	/* event indexes; -1: not recorded */
};

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope report [-i FILE] [--symfs DIR] [--pid PID] [--sort sym|line]\n"
		"                       [-n TOP] [--json | --csv]\n"
		"  The hottest functions of a recording of pmuscope record (default\n"
		"  pmuscope.data): share of the samples, and each event's counts since the\n"
		"  previous sample of the same CPU, with IPC and miss ratios.\n");
}

/* The name of @pid at @time: its main thread's, else any of its threads'. */
static const char *profile_comm(struct prof *p, uint32_t pid, uint64_t time, char *buf,
				size_t len)
{
	const char *comm;

	if (!pid)
		return "[idle]";
	comm = maps_index_comm(&p->maps, pid, 0, time);
	if (comm)
		return comm;
	snprintf(buf, len, ":%u", pid);
	return buf;
}

/* ---------------------------------------------------------- the entries */
static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (h ^ 0xff) * 1099511628211ULL;
}

static struct entry *profile_entry(struct prof *p, const char *comm, const char *object,
				   const char *path, const char *symbol, const char *source)
{
	uint64_t h = 14695981039346656037ULL;
	struct entry *e;
	size_t b;

	h = hash_str(hash_str(hash_str(hash_str(h, comm), object), symbol), source);
	h = hash_str(h, path);
	if (p->nentries >= p->nbuckets) {
		size_t n = p->nbuckets ? 2 * p->nbuckets : 256;
		struct entry **nb = calloc(n, sizeof(*nb));

		if (!nb)
			return NULL;
		for (size_t i = 0; i < p->nbuckets; i++) {
			struct entry *next;

			for (e = p->buckets[i]; e; e = next) {
				next = e->next;
				e->next = nb[e->hash % n];
				nb[e->hash % n] = e;
			}
		}
		free(p->buckets);
		p->buckets = nb;
		p->nbuckets = n;
	}
	b = h % p->nbuckets;
	for (e = p->buckets[b]; e; e = e->next)
		if (e->hash == h && !strcmp(e->comm, comm) && !strcmp(e->object, object) &&
		    !strcmp(e->symbol, symbol) && !strcmp(e->source, source) &&
		    !strcmp(e->path, path))
			return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->hash = h;
	e->comm = strdup(comm);
	e->object = strdup(object);
	e->path = strdup(path);
	e->symbol = strdup(symbol);
	e->source = strdup(source);
	if (!e->comm || !e->object || !e->path || !e->symbol || !e->source)
		return NULL;
	e->next = p->buckets[b];
	p->buckets[b] = e;
	p->nentries++;
	return e;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Where a sample ran: its entry. */
static struct entry *profile_place(struct prof *p, const struct pmuscope_rec *r)
{
	char cbuf[24], sym[600], src[300] = "";
	const char *comm = profile_comm(p, r->pid, r->time, cbuf, sizeof(cbuf));
	const char *object, *path = "", *name = NULL;
	const struct maps_ent *m;
	int any, ret;

	if (!(r->flags & PMUSCOPE_REC_F_USER)) {
		p->kernel++;
		return profile_entry(p, comm, "[kernel]", "", "[kernel]", "");
	}
	m = maps_index_find(&p->maps, r->pid, r->time, r->pc, &any);
	if (!m) {
		p->unknown++;
		if (!any)	/* a process without maps: one bucket */
			return profile_entry(p, comm, "[unknown]", "", "[unknown]", "");
		snprintf(sym, sizeof(sym), "[unknown] 0x%" PRIx64, r->pc);
		return profile_entry(p, comm, "[unknown]", "", sym, "");
	}
	if (m->path[0] != '/') {
		/* [vdso], [heap], anonymous: no file to read. */
		p->unknown++;
		object = m->path[0] ? m->path : "[anon]";
		snprintf(sym, sizeof(sym), "[unknown] %s+0x%" PRIx64, object,
			 r->pc - m->start + m->pgoff);
		return profile_entry(p, comm, object, "", sym, "");
	}
	path = m->path;
	object = base_name(path);
	ret = sym_resolve(p->syms, path, r->pc - m->start + m->pgoff, &name,
			  p->by_line ? src : NULL, sizeof(src));
	if (ret != 1) {
		p->unknown++;
		snprintf(sym, sizeof(sym), "[unknown] %s+0x%" PRIx64, path,
			 r->pc - m->start + m->pgoff);
		name = sym;
	}
	if (p->by_line && !src[0])
		snprintf(src, sizeof(src), "[unknown]");
	return profile_entry(p, comm, object, path, name, src);
}

/* ------------------------------------------------------------- reading */
static int profile_fail(struct prof *p, const char *what, const struct df_view *c,
			const char *err)
{
	if (c)
		fprintf(stderr, "pmuscope: %s: %s at byte %zu: %s\n", p->file, what, c->offset,
			err);
	else
		fprintf(stderr, "pmuscope: %s: %s\n", p->file, err);
	return 1;
}

/* First pass: the maps and names, the summary, every record checked. */
static int profile_scan(struct prof *p)
{
	struct df_view c;
	char err[256];
	size_t off = p->df.first_chunk;
	int ret;

	while ((ret = df_next(&p->df, &off, &c, err, sizeof(err))) == 1) {
		if (c.type == DF_CHUNK_MAPS) {
			struct df_maps m;

			memcpy(&m, c.payload, sizeof(m));
			if (maps_index_add(&p->maps, m.pid, m.reason, m.time,
					   (const char *)c.payload + sizeof(m), m.text_size))
				return profile_fail(p, "", NULL, strerror(ENOMEM));
		} else if (c.type == DF_CHUNK_COMM) {
			struct df_comm m;

			memcpy(&m, c.payload, sizeof(m));
			if (maps_index_add_comm(&p->maps, m.pid, m.tid, m.time, m.comm,
						sizeof(m.comm)))
				return profile_fail(p, "", NULL, strerror(ENOMEM));
		} else if (c.type == DF_CHUNK_END) {
			memcpy(&p->end, c.payload, sizeof(p->end));
			p->complete = 1;
		} else if (c.type == DF_CHUNK_RECORDS) {
			struct pmuscope_rec r;
			size_t roff = 0;

			while ((ret = pmuscope_record_next(c.payload, c.len, &roff, &r, err,
							   sizeof(err))) == 1) {
				if (r.type == PMUSCOPE_REC_SAMPLE && r.nr > PMUSCOPE_MAX_EVENTS) {
					snprintf(err, sizeof(err),
						 "record at byte %zu: %u counts, at most %u",
						 roff - r.size, r.nr, (unsigned int)PMUSCOPE_MAX_EVENTS);
					ret = -EBADMSG;
					break;
				}
			}
			if (ret < 0)
				return profile_fail(p, "records chunk", &c, err);
		}
	}
	if (ret < 0)
		return profile_fail(p, "bad file", NULL, err);
	maps_index_sort(&p->maps);
	return 0;
}

/* Second pass: every sample to its entry, with its counts' deltas. */
static int profile_samples(struct prof *p)
{
	static uint64_t prev[PMUSCOPE_MAX_CPUS][PMUSCOPE_MAX_EVENTS];
	static unsigned char known[PMUSCOPE_MAX_CPUS];
	unsigned int nev = p->df.info.nr_events;
	size_t off = p->df.first_chunk;
	struct df_view c;
	char err[256];

	/* Counts start at 0: record resets the counters before enabling them. */
	memset(prev, 0, sizeof(prev));
	memset(known, 1, sizeof(known));
	while (df_next(&p->df, &off, &c, err, sizeof(err)) == 1) {
		struct pmuscope_rec r;
		size_t roff = 0;

		if (c.type != DF_CHUNK_RECORDS)
			continue;
		while (pmuscope_record_next(c.payload, c.len, &roff, &r, err, sizeof(err)) == 1) {
			uint64_t delta[PMUSCOPE_MAX_EVENTS];
			int have = 0;
			struct entry *e;

			if (r.type == PMUSCOPE_REC_LOST) {
				p->lost += r.value;
				p->lost_records++;
				/* What ran meanwhile is not the next sample's. */
				if (r.cpu < PMUSCOPE_MAX_CPUS)
					known[r.cpu] = 0;
				continue;
			}
			if (r.type == PMUSCOPE_REC_THROTTLED) {
				p->throttled++;
				continue;
			}
			if (r.type != PMUSCOPE_REC_SAMPLE)
				continue;
			p->samples++;
			if (!p->first_time || r.time < p->first_time)
				p->first_time = r.time;
			if (r.time > p->last_time)
				p->last_time = r.time;
			if (r.cpu < PMUSCOPE_MAX_CPUS) {
				have = known[r.cpu] && r.nr >= nev;
				for (unsigned int i = 0; i < nev && i < r.nr; i++) {
					uint64_t v = pmuscope_rec_count(&r, i);

					if (v < prev[r.cpu][i])
						have = 0;	/* reset or gone back */
					delta[i] = v - prev[r.cpu][i];
					prev[r.cpu][i] = v;
				}
				known[r.cpu] = r.nr >= nev;
			}
			if (p->pid >= 0 && r.pid != (uint32_t)p->pid)
				continue;
			p->shown++;
			e = profile_place(p, &r);
			if (!e) {
				fprintf(stderr, "pmuscope: %s\n", strerror(ENOMEM));
				return 1;
			}
			e->samples++;
			if (have)
				for (unsigned int i = 0; i < nev; i++)
					e->delta[i] += delta[i];
		}
	}
	return 0;
}

/* ------------------------------------------------------------- output */
static double entry_metric(const struct prof *p, const struct entry *e, unsigned int m)
{
	int a = p->metric_ev[m][0], b = p->metric_ev[m][1];

	if (a < 0 || b < 0 || !e->delta[b])
		return NAN;
	return (double)e->delta[a] / (double)e->delta[b];
}

/* Which metrics the recorded events allow: same levels, not raw. */
static void profile_metric_events(struct prof *p)
{
	const struct df_info *in = &p->df.info;

	for (unsigned int m = 0; m < NMETRICS; m++) {
		p->metric_ev[m][0] = p->metric_ev[m][1] = -1;
		for (unsigned int i = 0; i < in->nr_events && p->metric_ev[m][0] < 0; i++) {
			if (in->evs[i].number != prof_metrics[m].num ||
			    (in->evs[i].flags & PMUSCOPE_EV_RAW))
				continue;
			for (unsigned int j = 0; j < in->nr_events; j++) {
				if (in->evs[j].number != prof_metrics[m].den ||
				    (in->evs[j].flags & PMUSCOPE_EV_RAW) ||
				    (in->evs[j].flags & PMUSCOPE_EV_ALL_EL) !=
				    (in->evs[i].flags & PMUSCOPE_EV_ALL_EL))
					continue;
				p->metric_ev[m][0] = i;
				p->metric_ev[m][1] = j;
				break;
			}
		}
	}
}

static int entry_order(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry * const *)a;
	const struct entry *y = *(const struct entry * const *)b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->delta[0] != y->delta[0])
		return x->delta[0] > y->delta[0] ? -1 : 1;
	c = strcmp(x->comm, y->comm);
	if (!c)
		c = strcmp(x->object, y->object);
	if (!c)
		c = strcmp(x->symbol, y->symbol);
	if (!c)
		c = strcmp(x->source, y->source);
	return c;
}

static double pct(const struct prof *p, const struct entry *e)
{
	return p->shown ? 100.0 * e->samples / p->shown : 0;
}

static void sampling_text(const struct prof *p, char *buf, size_t len)
{
	const struct df_info *in = &p->df.info;
	size_t off = 0;

	buf[0] = '\0';
	if (in->sample_index != PMUSCOPE_STREAM_NO_EVENT)
		off += snprintf(buf, len, "a sample every %" PRIu64 " %s", in->sample_period,
				p->keys[in->sample_index]);
	if (in->period_ms && off < len)
		snprintf(buf + off, len - off, "%severy %u ms", off ? " and " : "a sample ",
			 in->period_ms);
}

static void print_table(struct prof *p, struct entry **v, size_t n)
{
	const struct df_info *in = &p->df.info;
	char num[40], how[200];
	int wc = 7, wo = 6, ws = 6, wl = 6, wev[PMUSCOPE_MAX_EVENTS];
	int have_metric[NMETRICS];

	sampling_text(p, how, sizeof(how));
	printf("# pmuscope report of %s\n", p->file);
	printf("# recorded by:");
	for (int i = 0; i < in->argc; i++) {
		const char *a = in->argv[i];

		/* Quoted as a shell would want it, where it matters. */
		if (*a && !a[strcspn(a, " \t\n'\"\\$`*?;&|<>()")])
			printf(" %s", a);
		else
			printf(" '%s'", a);
	}
	printf("\n# events:");
	for (unsigned int i = 0; i < in->nr_events; i++)
		printf("%s %s", i ? "," : "", p->keys[i]);
	printf("; %s\n", how[0] ? how : "no sampling");
	if (in->freq)
		printf("# system counter: %" PRIu64 " Hz, samples over %.3f s\n", in->freq,
		       p->last_time > p->first_time ?
		       (double)(p->last_time - p->first_time) / in->freq : 0.0);
	printf("# %" PRIu64 " samples, lost %" PRIu64 " records, throttled %" PRIu64 " times\n",
	       p->samples, p->lost, p->throttled);
	if (p->pid >= 0)
		printf("# pid %ld: %" PRIu64 " samples\n", p->pid, p->shown);
	if (p->kernel || p->unknown)
		printf("# %" PRIu64 " in the kernel, %" PRIu64 " not resolved\n", p->kernel,
		       p->unknown);
	if (!p->complete)
		printf("# the recording did not finish (no END chunk): what was written\n");
	printf("#\n");
	for (size_t i = 0; i < n; i++) {
		int l;

		l = strlen(v[i]->comm);
		wc = l > wc ? l : wc;
		l = strlen(v[i]->object);
		wo = l > wo ? l : wo;
		l = strlen(v[i]->symbol);
		ws = l > ws ? l : ws;
		l = strlen(v[i]->source);
		wl = l > wl ? l : wl;
	}
	for (unsigned int k = 0; k < in->nr_events; k++) {
		wev[k] = strlen(p->keys[k]);
		for (size_t i = 0; i < n; i++) {
			int l;

			report_thousands(v[i]->delta[k], num, sizeof(num));
			l = strlen(num);
			wev[k] = l > wev[k] ? l : wev[k];
		}
	}
	for (unsigned int m = 0; m < NMETRICS; m++)
		have_metric[m] = p->metric_ev[m][0] >= 0;
	printf("# Overhead  Samples  %-*s  %-*s  %-*s", wc, "Command", wo, "Object", ws,
	       "Symbol");
	if (p->by_line)
		printf("  %-*s", wl, "Source");
	for (unsigned int k = 0; k < in->nr_events; k++)
		printf("  %*s", wev[k], p->keys[k]);
	for (unsigned int m = 0; m < NMETRICS; m++)
		if (have_metric[m])
			printf("  %*s", m ? 17 : 5, prof_metrics[m].name);
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = v[i];

		printf("  %7.2f%%  %7" PRIu64 "  %-*s  %-*s  %-*s", pct(p, e), e->samples, wc,
		       e->comm, wo, e->object, ws, e->symbol);
		if (p->by_line)
			printf("  %-*s", wl, e->source);
		for (unsigned int k = 0; k < in->nr_events; k++) {
			report_thousands(e->delta[k], num, sizeof(num));
			printf("  %*s", wev[k], num);
		}
		for (unsigned int m = 0; m < NMETRICS; m++) {
			double x = entry_metric(p, e, m);

			if (!have_metric[m])
				continue;
			if (isnan(x))
				snprintf(num, sizeof(num), "-");
			else if (prof_metrics[m].percent)
				snprintf(num, sizeof(num), "%.2f%%", 100 * x);
			else
				snprintf(num, sizeof(num), "%.2f", x);
			printf("  %*s", m ? 17 : 5, num);
		}
		printf("\n");
	}
}

static void json_num(double v)
{
	if (isnan(v) || isinf(v))
		printf("null");
	else
		printf("%.6g", v);
}

static void print_json(struct prof *p, struct entry **v, size_t n)
{
	const struct df_info *in = &p->df.info;
	char mods[8];
	int first = 1;

	printf("{\"type\":\"report\",\"file\":");
	report_json_str(stdout, p->file);
	printf(",\"format_version\":%u,\"freq\":%" PRIu64 ",\"command\":[", in->version, in->freq);
	for (int i = 0; i < in->argc; i++) {
		printf("%s", i ? "," : "");
		report_json_str(stdout, in->argv[i]);
	}
	printf("],\"sample_event\":");
	if (in->sample_index != PMUSCOPE_STREAM_NO_EVENT)
		report_json_str(stdout, p->keys[in->sample_index]);
	else
		printf("null");
	printf(",\"sample_period\":%" PRIu64 ",\"period_ms\":%u,\"events\":[",
	       in->sample_index != PMUSCOPE_STREAM_NO_EVENT ? in->sample_period : 0,
	       in->period_ms);
	for (unsigned int i = 0; i < in->nr_events; i++) {
		const struct pmuscope_event_spec *ev = &in->evs[i];

		pmuscope_modifiers_format(ev->flags, in->kernel_el, mods);
		printf("%s{\"key\":", i ? "," : "");
		report_json_str(stdout, p->keys[i]);
		printf(",\"event\":");
		report_json_str(stdout, ev->name);
		printf(",\"number\":%u,\"label\":", ev->number);
		report_json_str(stdout, ev->label);
		printf(",\"modifiers\":\"%s\",\"raw\":%s}", mods,
		       ev->flags & PMUSCOPE_EV_RAW ? "true" : "false");
	}
	printf("],\"sort\":\"%s\",\"pid\":", p->by_line ? "line" : "sym");
	if (p->pid >= 0)
		printf("%ld", p->pid);
	else
		printf("null");
	printf(",\"samples\":%" PRIu64 ",\"shown\":%" PRIu64 ",\"kernel\":%" PRIu64
	       ",\"unresolved\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"lost_records\":%" PRIu64
	       ",\"throttled\":%" PRIu64 ",\"complete\":%s,\"metrics\":[",
	       p->samples, p->shown, p->kernel, p->unknown, p->lost, p->lost_records,
	       p->throttled, p->complete ? "true" : "false");
	for (unsigned int m = 0; m < NMETRICS; m++) {
		if (p->metric_ev[m][0] < 0)
			continue;
		printf("%s\"%s\"", first ? "" : ",", prof_metrics[m].name);
		first = 0;
	}
	printf("],\"entries\":[");
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = v[i];

		printf("%s{\"overhead\":", i ? "," : "");
		json_num(pct(p, e));
		printf(",\"samples\":%" PRIu64 ",\"comm\":", e->samples);
		report_json_str(stdout, e->comm);
		printf(",\"object\":");
		report_json_str(stdout, e->object);
		printf(",\"path\":");
		if (e->path[0])
			report_json_str(stdout, e->path);
		else
			printf("null");
		printf(",\"symbol\":");
		report_json_str(stdout, e->symbol);
		printf(",\"source\":");
		if (p->by_line)
			report_json_str(stdout, e->source);
		else
			printf("null");
		printf(",\"counts\":{");
		for (unsigned int k = 0; k < in->nr_events; k++) {
			printf("%s", k ? "," : "");
			report_json_str(stdout, p->keys[k]);
			printf(":%" PRIu64, e->delta[k]);
		}
		printf("},\"metrics\":{");
		first = 1;
		for (unsigned int m = 0; m < NMETRICS; m++) {
			if (p->metric_ev[m][0] < 0)
				continue;
			printf("%s\"%s\":", first ? "" : ",", prof_metrics[m].name);
			json_num(entry_metric(p, e, m));
			first = 0;
		}
		printf("}}");
	}
	printf("]}\n");
}

static void csv_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_csv(struct prof *p, struct entry **v, size_t n)
{
	const struct df_info *in = &p->df.info;

	printf("overhead,samples,comm,object,symbol,source");
	for (unsigned int k = 0; k < in->nr_events; k++)
		printf(",%s", p->keys[k]);
	for (unsigned int m = 0; m < NMETRICS; m++)
		if (p->metric_ev[m][0] >= 0)
			printf(",%s", prof_metrics[m].name);
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = v[i];

		printf("%.4f,%" PRIu64 ",", pct(p, e), e->samples);
		csv_str(e->comm);
		putchar(',');
		csv_str(e->object);
		putchar(',');
		csv_str(e->symbol);
		putchar(',');
		csv_str(e->source);
		for (unsigned int k = 0; k < in->nr_events; k++)
			printf(",%" PRIu64, e->delta[k]);
		for (unsigned int m = 0; m < NMETRICS; m++) {
			double x = entry_metric(p, e, m);

			if (p->metric_ev[m][0] < 0)
				continue;
			if (isnan(x))
				printf(",");
			else
				printf(",%.6g", x);
		}
		printf("\n");
	}
}

static void profile_free(struct prof *p)
{
	for (size_t i = 0; i < p->nbuckets; i++) {
		struct entry *e, *next;

		for (e = p->buckets[i]; e; e = next) {
			next = e->next;
			free(e->comm);
			free(e->object);
			free(e->path);
			free(e->symbol);
			free(e->source);
			free(e);
		}
	}
	free(p->buckets);
	maps_index_free(&p->maps);
	sym_free(p->syms);
	df_close(&p->df);
}

struct report_args {
	struct prof p;
	enum report_format fmt;
	const char *symfs;		/* --symfs */
	unsigned long long top;		/* -n */
};

static int report_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct report_args *a = ctx;
	unsigned long long v;

	switch (opt->value) {
	case 'p':
		if (parse_uint(arg, 0, 0x7fffffff, &v)) {
			fprintf(stderr, "pmuscope: --pid needs a process id: '%s'\n", arg);
			return EXIT_USAGE;
		}
		a->p.pid = v;
		return 0;
	case 's':
		if (!strcmp(arg, "line")) {
			a->p.by_line = 1;
		} else if (strcmp(arg, "sym")) {
			fprintf(stderr, "pmuscope: --sort takes sym or line: '%s'\n", arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'n':
		if (parse_uint(arg, 1, 1000000000, &a->top)) {
			fprintf(stderr, "pmuscope: -n needs a number of rows, 1 or more: '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'J':
		a->fmt = REPORT_JSON;
		return 0;
	case 'V':
		a->fmt = REPORT_CSV;
		return 0;
	default:
		return 1;
	}
}

static const struct cli_option report_options[] = {
	OPT_STRING("input", 'i', "FILE", "the recording (default pmuscope.data)", struct report_args,
		   p.file),
	OPT_CALLBACK(NULL, 'n', "TOP", "the TOP first rows only", report_opt, 'n'),
	OPT_STRING("symfs", 0, "DIR", "look for the recorded files under DIR (a copy of the "
		   "recording machine's root)", struct report_args, symfs),
	OPT_CALLBACK("pid", 0, "PID", "the samples of process PID only", report_opt, 'p'),
	OPT_CALLBACK("sort", 0, "sym|line", "by function (sym), or by source line (line: where "
		     "the files have debug information)", report_opt, 's'),
	OPT_CALLBACK("json", 0, NULL, "JSON output", report_opt, 'J'),
	OPT_CALLBACK("csv", 0, NULL, "CSV output", report_opt, 'V'),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

const struct cli_options report_cli = { "report", report_options, report_usage };

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .p = { .file = "pmuscope.data", .pid = -1 }, .fmt = REPORT_TABLE };
	struct entry **rows = NULL;
	char err[512];
	size_t n = 0;
	int ret;

	if (cli_parse(&report_cli, argc, argv, &a, &ret))
		return ret;
	if (optind < argc) {
		fprintf(stderr, "pmuscope: report takes no argument: '%s' (the file is -i FILE)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	if (!sym_available()) {
		fprintf(stderr,
			"pmuscope: this pmuscope was built without elfutils: copy %s and run pmuscope report on a machine that has it, with --symfs\n",
			a.p.file);
		return EXIT_UNSUPPORTED;
	}
	ret = df_open(&a.p.df, a.p.file, err, sizeof(err));
	if (ret) {
		if (ret == -EBADMSG || ret == -EPROTO)
			fprintf(stderr, "pmuscope: %s: %s\n", a.p.file, err);
		else
			fprintf(stderr, "pmuscope: %s\n", err);
		return 1;
	}
	for (unsigned int i = 0; i < a.p.df.info.nr_events; i++)
		report_event_key(a.p.df.info.evs, i, a.p.df.info.kernel_el, a.p.keys[i],
				 sizeof(a.p.keys[i]));
	profile_metric_events(&a.p);
	a.p.syms = sym_new(a.symfs);
	ret = 1;
	if (!a.p.syms) {
		fprintf(stderr, "pmuscope: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (profile_scan(&a.p) || profile_samples(&a.p))
		goto out;
	if (!a.p.complete)
		fprintf(stderr, "pmuscope: %s: the recording did not finish (no END chunk): reporting what was written\n",
			a.p.file);
	rows = calloc(a.p.nentries ? a.p.nentries : 1, sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "pmuscope: %s\n", strerror(ENOMEM));
		goto out;
	}
	for (size_t b = 0; b < a.p.nbuckets; b++)
		for (struct entry *e = a.p.buckets[b]; e; e = e->next)
			rows[n++] = e;
	qsort(rows, n, sizeof(*rows), entry_order);
	if (a.top && a.top < n)
		n = a.top;
	if (a.fmt == REPORT_JSON)
		print_json(&a.p, rows, n);
	else if (a.fmt == REPORT_CSV)
		print_csv(&a.p, rows, n);
	else
		print_table(&a.p, rows, n);
	ret = 0;
out:
	free(rows);
	profile_free(&a.p);
	return ret;
}
