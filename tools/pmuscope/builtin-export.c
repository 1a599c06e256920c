// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope export: the counts of one long-lived CPU session, the Activity
 * Monitors and what the driver says of them, as Prometheus metrics:
 * served over HTTP (--listen) or written for node_exporter's textfile
 * collector (--textfile).
 *
 *   pmuscope export [-e EVENTS] [-C CPUS | -a] --listen [ADDR:]PORT
 *                   [--timeout S] [--user NAME] [--log FILE] [--log-values]
 *                   [--duration S]
 *   pmuscope export [-e EVENTS] [-C CPUS | -a] --textfile DIR [-I MS]
 *                   [-n COUNT] [--user NAME] [--log FILE] [--log-values]
 *                   [--duration S]
 *
 * The session is configured, reset and enabled once, then only read: one
 * PMUSCOPE_IOC_SNAPSHOT (or PMUSCOPE_IOC_READ without snapshots) and one
 * PMUSCOPE_IOC_AMU_READ per scrape. The HTTP server is one process, one
 * thread, non-blocking sockets and poll(): a scrape is read and rendered
 * whole before its answer is written, so answers are whole and consistent
 * however many clients are connected, and a slow or silent client only
 * holds its own connection, until its timeout.
 *
 * Metrics, labels, formats, privileges: Documentation/cli.rst.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON		38
#endif

#define EXP_REQ_MAX		8192	/* request line and headers, bytes */
#define EXP_MAX_CONN		64	/* clients connected at once */
#define EXP_LINGER_MS		1000	/* after the answer: wait for the client's close */
#define EXP_TEXTFILE		"pmuscope.prom"

#define EXP_CT_TEXT		"text/plain; version=0.0.4; charset=utf-8"
#define EXP_CT_OM		"application/openmetrics-text; version=1.0.0; charset=utf-8"

/* A growing buffer: a scrape's metrics, an HTTP answer. */
struct ebuf {
	char *p;
	size_t len, cap;
	int failed;		/* out of memory: cut short */
};

/* One event on one CPU, as last read: the three never decrease. */
struct exp_val {
	uint64_t count;
	uint64_t enabled;	/* ns */
	uint64_t running;	/* ns */
	uint32_t flags;		/* PMUSCOPE_VAL_* of the last read */
	int seen;
};

/* One CPU's part of the last snapshot. */
struct exp_snapcpu {
	uint32_t method;
	uint32_t flags;		/* PMUSCOPE_SNAPCPU_* */
	uint64_t skew;		/* ticks */
	int seen;
};

/* One CPU's AMU. */
struct exp_amu {
	uint32_t state;		/* PMUSCOPE_AMU_* of the last read */
	int read;		/* read at least once */
	int have;		/* @last holds a READ_OK record */
	struct pmuscope_amu_cpu last;
	/* Raw counts of the last READ_OK record, and what is added to them. */
	uint64_t raw[2][PMUSCOPE_AMU_GROUP_MAX];
	uint64_t off[2][PMUSCOPE_AMU_GROUP_MAX];
	uint32_t live[2];	/* bit n: raw[g][n] holds a count */
};

struct exp {
	struct pmuscope *h;
	struct stat_opts o;
	uint64_t features;
	unsigned int ncpus;
	int cpu_ids[PMUSCOPE_MAX_CPUS];		/* the session's CPUs, ascending */
	int16_t slot[PMUSCOPE_MAX_CPUS];	/* CPU -> index in cpu_ids, or -1 */
	char ev_name[PMUSCOPE_MAX_EVENTS][48];	/* label event */
	char ev_el[PMUSCOPE_MAX_EVENTS][16];	/* label exception_level */

	unsigned int room;
	struct pmuscope_count *vals;
	struct pmuscope_snap_info *sinfo;
	struct exp_val *v;			/* ncpus x nr */
	struct exp_snapcpu *sc;			/* ncpus */
	int use_snapshot;
	uint64_t freq;				/* the system counter's, Hz; 0 unknown */
	uint64_t snap_freq;			/* ... as the last snapshot said */

	int amu;				/* the AMU is exported */
	struct pmuscope_amu_cpu *amu_recs;	/* ncpus */
	struct exp_amu *a;			/* ncpus */

	uint64_t scrapes;			/* pmuscope_exporter_scrapes_total */
	uint64_t backwards;			/* pmuscope_exporter_backwards_total */

	/* Where and what to log. */
	FILE *log;
	int log_values;

	int timeout_ms;				/* --timeout */
	int64_t end_ms;				/* --duration: CLOCK_MONOTONIC ms; 0 none */
	char err[2 * PATH_MAX + 256];		/* why the last scrape failed */
	struct ebuf body;			/* the last scrape's metrics */
};

static int64_t exp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static double exp_since_ms(const struct timespec *t0)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec - t0->tv_sec) * 1e3 + (ts.tv_nsec - t0->tv_nsec) / 1e6;
}

__attribute__((format(printf, 2, 3)))
static void exp_log(struct exp *e, const char *fmt, ...)
{
	va_list ap;

	fputs("pmuscope export: ", e->log);
	va_start(ap, fmt);
	vfprintf(e->log, fmt, ap);
	va_end(ap);
	fputc('\n', e->log);
	fflush(e->log);
}

/* A startup line: on stderr, and in the --log file too. */
__attribute__((format(printf, 2, 3)))
static void exp_say(struct exp *e, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "pmuscope export: %s\n", line);
	if (e->log != stderr)
		exp_log(e, "%s", line);
}

/* ------------------------------------------------------------ the buffer */
static void eb_free(struct ebuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int eb_grow(struct ebuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *p;

	if (b->failed)
		return -1;
	if (b->len + need < b->cap)
		return 0;
	while (cap <= b->len + need)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->failed = 1;
		return -1;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

static void eb_append(struct ebuf *b, const void *data, size_t n)
{
	if (eb_grow(b, n + 1))
		return;
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

__attribute__((format(printf, 2, 3)))
static void eb_printf(struct ebuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if (eb_grow(b, n + 1))
		return;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/* ------------------------------------------------------------- rendering */

/*
 * A family's HELP and TYPE (and UNIT in OpenMetrics). @name is the name
 * of its samples in the text format: with _total for a counter, _info for
 * an info metric; OpenMetrics names the family without them.
 */
static void exp_family(struct ebuf *b, int om, const char *name, const char *type,
		       const char *unit, const char *help)
{
	const char *suffix = !strcmp(type, "counter") ? "_total" :
			     !strcmp(type, "info") ? "_info" : NULL;
	size_t n = strlen(name);
	int len = n;

	if (om && suffix && n > strlen(suffix) && !strcmp(name + n - strlen(suffix), suffix))
		len = n - strlen(suffix);
	if (!om && !strcmp(type, "info"))
		type = "gauge";
	eb_printf(b, "# HELP %.*s %s\n# TYPE %.*s %s\n", len, name, help, len, name, type);
	if (om && unit)
		eb_printf(b, "# UNIT %.*s %s\n", len, name, unit);
}

/* Append ,NAME="VALUE" (escaped) to the label set @buf. */
static void exp_label(char *buf, size_t len, const char *name, const char *value)
{
	size_t off = strlen(buf);

	if (off + 1 < len && off)
		buf[off++] = ',';
	off += snprintf(buf + off, off < len ? len - off : 0, "%s=\"", name);
	for (; *value && off + 3 < len; value++) {
		if (*value == '\\' || *value == '"') {
			buf[off++] = '\\';
			buf[off++] = *value;
		} else if (*value == '\n') {
			buf[off++] = '\\';
			buf[off++] = 'n';
		} else {
			buf[off++] = *value;
		}
	}
	if (off + 1 < len)
		buf[off++] = '"';
	buf[off < len ? off : len - 1] = '\0';
}

static void exp_sample(struct ebuf *b, const char *name, const char *labels, const char *value)
{
	if (labels && *labels)
		eb_printf(b, "%s{%s} %s\n", name, labels, value);
	else
		eb_printf(b, "%s %s\n", name, value);
}

static void exp_u64(char *buf, size_t len, uint64_t v)
{
	snprintf(buf, len, "%llu", (unsigned long long)v);
}

/* Nanoseconds as seconds, exactly: "12.000345678". */
static void exp_ns(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
		 (unsigned long long)(ns % 1000000000ULL));
}

static const struct {
	uint32_t bit;
	const char *name;
} exp_val_flags[] = {
	{ PMUSCOPE_VAL_LOST, "lost" },
	{ PMUSCOPE_VAL_THROTTLED, "throttled" },
	{ PMUSCOPE_VAL_CLOBBERED, "clobbered" },
	{ PMUSCOPE_VAL_MULTIPLEXED, "multiplexed" },
	{ PMUSCOPE_VAL_OFFLINE, "offline" },
}, exp_snap_flags[] = {
	{ PMUSCOPE_SNAPCPU_LATE, "late" },
	{ PMUSCOPE_SNAPCPU_FALLBACK, "fallback" },
	{ PMUSCOPE_SNAPCPU_OFFLINE, "offline" },
	{ PMUSCOPE_SNAPCPU_UNSYNCED, "unsynced" },
}, exp_amu_flags[] = {
	{ PMUSCOPE_AMU_F_LOST, "lost" },
	{ PMUSCOPE_AMU_F_CONST_BROKEN, "const_broken" },
	{ PMUSCOPE_AMU_F_AUX_ZERO, "aux_zero" },
};

#define EXP_N(a)	(sizeof(a) / sizeof((a)[0]))

static void exp_cpu_label(char *buf, size_t len, int cpu)
{
	char c[16];

	buf[0] = '\0';
	snprintf(c, sizeof(c), "%d", cpu);
	exp_label(buf, len, "cpu", c);
}

/* The labels of event @i on the CPU of slot @s. */
static void exp_ev_labels(const struct exp *e, unsigned int s, unsigned int i, char *buf,
			  size_t len)
{
	exp_cpu_label(buf, len, e->cpu_ids[s]);
	exp_label(buf, len, "event", e->ev_name[i]);
	exp_label(buf, len, "exception_level", e->ev_el[i]);
}

/* The events' families: one of them, by @what. */
enum { EV_COUNT, EV_ENABLED, EV_RUNNING };

static void exp_render_events(const struct exp *e, int om, struct ebuf *b, int what)
{
	static const char *const names[] = {
		"pmuscope_events_total", "pmuscope_event_enabled_seconds_total",
		"pmuscope_event_running_seconds_total",
	};
	static const char *const helps[] = {
		"Events counted on a CPU since the exporter enabled its session: the raw count, not scaled (scaled: multiply by the rate of the enabled seconds over that of the running seconds).",
		"Seconds the exporter's session was enabled on a CPU, for this event.",
		"Seconds the event was really counted on a CPU (below the enabled seconds when events were multiplexed).",
	};
	char lab[256], val[32];

	exp_family(b, om, names[what], "counter", what == EV_COUNT ? NULL : "seconds",
		   helps[what]);
	for (unsigned int s = 0; s < e->ncpus; s++) {
		for (unsigned int i = 0; i < e->o.nr; i++) {
			const struct exp_val *v = &e->v[s * e->o.nr + i];

			if (!v->seen)
				continue;
			exp_ev_labels(e, s, i, lab, sizeof(lab));
			if (what == EV_COUNT)
				exp_u64(val, sizeof(val), v->count);
			else
				exp_ns(val, sizeof(val), what == EV_ENABLED ? v->enabled : v->running);
			exp_sample(b, names[what], lab, val);
		}
	}
}

static void exp_render_flags(const struct exp *e, int om, struct ebuf *b)
{
	char lab[320];

	exp_family(b, om, "pmuscope_event_flag", "gauge", NULL,
		   "1 when the driver's last read of the event on a CPU carried the flag: lost (counts may be missing), throttled (overflow interrupt storm), clobbered (another agent reprogrammed the counter), multiplexed (ran less than enabled), offline (CPU offline, count frozen); else 0.");
	for (unsigned int s = 0; s < e->ncpus; s++) {
		for (unsigned int i = 0; i < e->o.nr; i++) {
			const struct exp_val *v = &e->v[s * e->o.nr + i];

			if (!v->seen)
				continue;
			for (unsigned int f = 0; f < EXP_N(exp_val_flags); f++) {
				exp_ev_labels(e, s, i, lab, sizeof(lab));
				exp_label(lab, sizeof(lab), "flag", exp_val_flags[f].name);
				exp_sample(b, "pmuscope_event_flag", lab,
					   v->flags & exp_val_flags[f].bit ? "1" : "0");
			}
		}
	}
}

static void exp_render_snapshot(const struct exp *e, int om, struct ebuf *b)
{
	static const uint32_t methods[] = {
		PMUSCOPE_SNAP_HARDWARE, PMUSCOPE_SNAP_SOFTWARE, PMUSCOPE_SNAP_PERF,
		PMUSCOPE_SNAP_IDLE,
	};
	char lab[128], val[32];
	unsigned int seen = 0;

	for (unsigned int s = 0; s < e->ncpus; s++)
		seen += e->sc[s].seen;
	if (!e->use_snapshot || !seen)
		return;
	exp_family(b, om, "pmuscope_snapshot_method", "gauge", NULL,
		   "1 for the method that took the CPU's counts in the last snapshot (hardware: FEAT_PMUv3_SS, software: frozen together, perf: perf events read one after another, idle: nothing counting), 0 for the others.");
	for (unsigned int s = 0; s < e->ncpus; s++) {
		if (!e->sc[s].seen)
			continue;
		for (unsigned int m = 0; m < EXP_N(methods); m++) {
			exp_cpu_label(lab, sizeof(lab), e->cpu_ids[s]);
			exp_label(lab, sizeof(lab), "method", pmuscope_snap_method_name(methods[m]));
			exp_sample(b, "pmuscope_snapshot_method", lab,
				   e->sc[s].method == methods[m] ? "1" : "0");
		}
	}
	exp_family(b, om, "pmuscope_snapshot_skew_seconds", "gauge", "seconds",
		   "The CPU's capture time in the last snapshot minus the earliest CPU's.");
	for (unsigned int s = 0; s < e->ncpus; s++) {
		if (!e->sc[s].seen)
			continue;
		exp_cpu_label(lab, sizeof(lab), e->cpu_ids[s]);
		exp_ns(val, sizeof(val), pmuscope_ticks_ns(e->sc[s].skew, e->snap_freq));
		exp_sample(b, "pmuscope_snapshot_skew_seconds", lab, val);
	}
	exp_family(b, om, "pmuscope_snapshot_flag", "gauge", NULL,
		   "1 when the CPU's part of the last snapshot carried the flag: late (reached the deadline after it), fallback (hardware capture failed, taken in software), offline (CPU offline, counts frozen); else 0.");
	for (unsigned int s = 0; s < e->ncpus; s++) {
		if (!e->sc[s].seen)
			continue;
		for (unsigned int f = 0; f < EXP_N(exp_snap_flags); f++) {
			exp_cpu_label(lab, sizeof(lab), e->cpu_ids[s]);
			exp_label(lab, sizeof(lab), "flag", exp_snap_flags[f].name);
			exp_sample(b, "pmuscope_snapshot_flag", lab,
				   e->sc[s].flags & exp_snap_flags[f].bit ? "1" : "0");
		}
	}
}

/* The AMU counter @n of group @g of @a that has a series. */
static int exp_amu_series(const struct exp_amu *a, unsigned int g, unsigned int n)
{
	return a->have && ((a->live[g] >> n) & 1);
}

static void exp_render_amu(const struct exp *e, int om, struct ebuf *b)
{
	static const char *const states[] = { "ok", "absent", "disabled", "offline" };
	char lab[256], val[32], type[16], idx[8];

	if (!e->amu)
		return;
	exp_family(b, om, "pmuscope_amu_events_total", "counter", NULL,
		   "An Activity Monitors counter of a CPU (group 0: architected, 1: auxiliary; type: its event), raw: counts since the CPU's reset, plus, if it ever went backwards, what it had reached before.");
	for (unsigned int s = 0; s < e->ncpus; s++) {
		const struct exp_amu *a = &e->a[s];

		for (unsigned int g = 0; g < 2; g++) {
			for (unsigned int n = 0; n < PMUSCOPE_AMU_GROUP_MAX; n++) {
				uint16_t t = g ? a->last.type1[n] : a->last.type0[n];

				if (!exp_amu_series(a, g, n))
					continue;
				exp_cpu_label(lab, sizeof(lab), e->cpu_ids[s]);
				exp_label(lab, sizeof(lab), "group", g ? "1" : "0");
				snprintf(idx, sizeof(idx), "%u", n);
				exp_label(lab, sizeof(lab), "index", idx);
				exp_label(lab, sizeof(lab), "type",
					  pmuscope_amu_event_name(t, type, sizeof(type)));
				exp_u64(val, sizeof(val), a->raw[g][n] + a->off[g][n]);
				exp_sample(b, "pmuscope_amu_events_total", lab, val);
			}
		}
	}
	exp_family(b, om, "pmuscope_amu_state", "gauge", NULL,
		   "1 for the state of the CPU's AMU at the last read (ok: read, absent: none, disabled: not used by the driver, offline: CPU offline, series kept at their last values), 0 for the others.");
	for (unsigned int s = 0; s < e->ncpus; s++) {
		if (!e->a[s].read)
			continue;
		for (unsigned int k = 0; k < EXP_N(states); k++) {
			exp_cpu_label(lab, sizeof(lab), e->cpu_ids[s]);
			exp_label(lab, sizeof(lab), "state", states[k]);
			exp_sample(b, "pmuscope_amu_state", lab, e->a[s].state == k ? "1" : "0");
		}
	}
	exp_family(b, om, "pmuscope_amu_flag", "gauge", NULL,
		   "1 when the CPU's last AMU record carried the flag: lost (counts lost since the previous read), const_broken (the constant-rate counter is off its rate), aux_zero (group 1 reads zero); else 0.");
	for (unsigned int s = 0; s < e->ncpus; s++) {
		if (!e->a[s].have)
			continue;
		for (unsigned int f = 0; f < EXP_N(exp_amu_flags); f++) {
			exp_cpu_label(lab, sizeof(lab), e->cpu_ids[s]);
			exp_label(lab, sizeof(lab), "flag", exp_amu_flags[f].name);
			exp_sample(b, "pmuscope_amu_flag", lab,
				   e->a[s].last.flags & exp_amu_flags[f].bit ? "1" : "0");
		}
	}
}

/* The whole answer of a scrape, from what exp_collect() kept. */
static void exp_render(const struct exp *e, int om, struct ebuf *b)
{
	char lab[256], val[32];

	b->len = 0;
	b->failed = 0;
	exp_render_events(e, om, b, EV_COUNT);
	exp_render_events(e, om, b, EV_ENABLED);
	exp_render_events(e, om, b, EV_RUNNING);
	exp_render_flags(e, om, b);
	exp_render_snapshot(e, om, b);
	exp_render_amu(e, om, b);
	if (e->freq) {
		exp_family(b, om, "pmuscope_generic_timer_hertz", "gauge", "hertz",
			   "Frequency of the system counter of the Arm generic timer (CNTFRQ_EL0), the AMU constant-rate counter's rate.");
		exp_u64(val, sizeof(val), e->freq);
		exp_sample(b, "pmuscope_generic_timer_hertz", NULL, val);
	}
	exp_family(b, om, "pmuscope_exporter_scrapes_total", "counter", NULL,
		   "Scrapes answered with metrics (HTTP GET /metrics) or textfiles written, this one included.");
	exp_u64(val, sizeof(val), e->scrapes);
	exp_sample(b, "pmuscope_exporter_scrapes_total", NULL, val);
	exp_family(b, om, "pmuscope_exporter_backwards_total", "counter", NULL,
		   "Values the driver gave lower than before (a count or a time of an event on a CPU): each series keeps its highest value, so that no counter goes down.");
	exp_u64(val, sizeof(val), e->backwards);
	exp_sample(b, "pmuscope_exporter_backwards_total", NULL, val);
	exp_family(b, om, "pmuscope_driver_info", "info", NULL,
		   "The pmuscope driver the exporter reads: its API version, backend (direct: pmuscope drives the PMU, perf: through perf's PMU driver), emulated (1: pmuscope_emu.ko, a register model) and the library's version.");
	lab[0] = '\0';
	snprintf(val, sizeof(val), "%d", PMUSCOPE_API_VERSION);
	exp_label(lab, sizeof(lab), "api", val);
	exp_label(lab, sizeof(lab), "backend",
		  e->features & PMUSCOPE_FEAT_BACKEND_PERF ? "perf" : "direct");
	exp_label(lab, sizeof(lab), "emulated", e->features & PMUSCOPE_FEAT_EMULATED ? "1" : "0");
	exp_label(lab, sizeof(lab), "library", PMUSCOPE_LIB_VERSION);
	exp_sample(b, "pmuscope_driver_info", lab, "1");
	if (om)
		eb_printf(b, "# EOF\n");
}

/* ------------------------------------------------------------ collecting */
static void exp_update_values(struct exp *e, unsigned int nv)
{
	for (unsigned int k = 0; k < nv; k++) {
		const struct pmuscope_count *x = &e->vals[k];
		struct exp_val *v;
		int s;

		if (x->cpu >= PMUSCOPE_MAX_CPUS || x->index >= e->o.nr)
			continue;	/* not ours: never from a sane driver */
		s = e->slot[x->cpu];
		if (s < 0)
			continue;
		v = &e->v[s * e->o.nr + x->index];
		if (v->seen && (x->count < v->count || x->time_enabled < v->enabled ||
				x->time_running < v->running))
			e->backwards++;
		if (!v->seen || x->count > v->count)
			v->count = x->count;
		if (!v->seen || x->time_enabled > v->enabled)
			v->enabled = x->time_enabled;
		if (!v->seen || x->time_running > v->running)
			v->running = x->time_running;
		v->flags = x->flags;
		v->seen = 1;
	}
}

static void exp_update_snap(struct exp *e, const struct pmuscope_snap *res)
{
	if (res->freq)
		e->freq = e->snap_freq = res->freq;
	for (unsigned int k = 0; k < res->nr_cpus; k++) {
		const struct pmuscope_snap_info *si = &e->sinfo[k];
		int s = si->cpu < PMUSCOPE_MAX_CPUS ? e->slot[si->cpu] : -1;

		if (s < 0)
			continue;
		e->sc[s].method = si->method;
		e->sc[s].flags = si->flags;
		e->sc[s].skew = si->skew;
		e->sc[s].seen = 1;
	}
}

/* The counters of @r that hold counts, group @g. */
static uint32_t exp_amu_live(const struct pmuscope_amu_cpu *r, unsigned int g)
{
	uint32_t m = 0;

	if (r->state != PMUSCOPE_AMU_READ_OK)
		return 0;
	for (unsigned int n = 0; n < PMUSCOPE_AMU_GROUP_MAX; n++) {
		if (!g && n < r->nr_group0 && ((r->enabled0 >> n) & 1))
			m |= 1U << n;
		if (g && n < r->nr_group1 && ((r->implemented1 >> n) & 1) &&
		    ((r->enabled1 >> n) & 1) && !(r->flags & PMUSCOPE_AMU_F_AUX_ZERO))
			m |= 1U << n;
	}
	return m;
}

/* Read the AMU: 0, or the -errno of the read (the series keep their values). */
static int exp_amu_update(struct exp *e)
{
	uint64_t freq = 0;
	int n = pmuscope_amu_read(e->h, e->o.cpus, PMUSCOPE_CPU_WORDS, e->amu_recs, e->ncpus,
				  &freq);

	if (n < 0)
		return n;
	if (freq)
		e->freq = freq;
	for (int k = 0; k < n; k++) {
		const struct pmuscope_amu_cpu *r = &e->amu_recs[k];
		int s = r->cpu < PMUSCOPE_MAX_CPUS ? e->slot[r->cpu] : -1;
		struct exp_amu *a;

		if (s < 0)
			continue;
		a = &e->a[s];
		a->state = r->state;
		a->read = 1;
		if (r->state != PMUSCOPE_AMU_READ_OK)
			continue;	/* offline, ...: the last values stay */
		for (unsigned int g = 0; g < 2; g++) {
			uint32_t live = exp_amu_live(r, g);

			for (unsigned int c = 0; c < PMUSCOPE_AMU_GROUP_MAX; c++) {
				uint64_t raw = g ? r->group1[c] : r->group0[c];

				if (!((live >> c) & 1))
					continue;
				/* Backwards (a reset): carry on from where it was. */
				if (((a->live[g] >> c) & 1) && raw < a->raw[g][c])
					a->off[g][c] += a->raw[g][c];
				a->raw[g][c] = raw;
			}
			a->live[g] |= live;
		}
		a->last = *r;
		a->have = 1;
	}
	return 0;
}

/*
 * One read of the session (a snapshot where the driver takes them) and of
 * the AMU, kept in @e: 0, or -errno with e->err set (nothing changed).
 */
static int exp_collect(struct exp *e)
{
	struct pmuscope_snap res;
	unsigned int nv = 0;
	int ret;

	if (e->use_snapshot) {
		ret = pmuscope_snapshot(e->h, 0, 0, e->vals, e->room, e->sinfo, e->ncpus, &res);
		if (ret == -EOPNOTSUPP) {
			exp_log(e, "snapshot refused (%s): reading with PMUSCOPE_IOC_READ from now on",
				pmuscope_errmsg(e->h));
			e->use_snapshot = 0;
		} else if (ret) {
			snprintf(e->err, sizeof(e->err), "%s", pmuscope_errmsg(e->h));
			return ret;
		} else {
			nv = res.nr_values;
			exp_update_snap(e, &res);
		}
	}
	if (!e->use_snapshot) {
		ret = pmuscope_read(e->h, e->vals, e->room, &nv);
		if (ret) {
			snprintf(e->err, sizeof(e->err), "%s", pmuscope_errmsg(e->h));
			return ret;
		}
	}
	exp_update_values(e, nv);
	if (e->amu) {
		ret = exp_amu_update(e);
		if (ret)
			exp_log(e, "AMU read failed (%s): its series keep their last values",
				pmuscope_errmsg(e->h));
	}
	return 0;
}

/* A scrape: collect, and render into e->body. 0, or -errno (e->err). */
static int exp_scrape(struct exp *e, int om)
{
	int ret = exp_collect(e);

	if (ret)
		return ret;
	exp_render(e, om, &e->body);
	if (e->body.failed) {
		snprintf(e->err, sizeof(e->err), "out of memory rendering the metrics");
		return -ENOMEM;
	}
	return 0;
}

/* --log-values: every sample of e->body, as served. */
static void exp_log_values(struct exp *e)
{
	const char *p = e->body.p, *end = e->body.p + e->body.len;

	if (!e->log_values)
		return;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		int n = nl ? nl - p : end - p;

		/* cppcheck-suppress knownConditionTrueFalse ; n is 0 on an empty line (nl == p) */
		if (n && *p != '#')
			fprintf(e->log, "pmuscope export: scrape %llu value: %.*s\n",
				(unsigned long long)e->scrapes, n, p);
		p += n + 1;
	}
	fflush(e->log);
}

/* ------------------------------------------------------------ privileges */

/* @name in /etc/passwd, or UID[:GID]: 0, or -1 (said on stderr). */
static int exp_lookup_user(const char *name, uid_t *uid, gid_t *gid)
{
	unsigned long long u, g;
	struct passwd *pw;
	const char *colon = strchr(name, ':');
	FILE *f;

	if (isdigit((unsigned char)name[0])) {
		char num[32];

		snprintf(num, sizeof(num), "%.*s", colon ? (int)(colon - name) : (int)strlen(name),
			 name);
		if (parse_uint(num, 0, 0xfffffffeULL, &u) ||
		    (colon && parse_uint(colon + 1, 0, 0xfffffffeULL, &g))) {
			fprintf(stderr, "pmuscope: --user needs a user name, UID or UID:GID: '%s'\n",
				name);
			return -1;
		}
		*uid = u;
		*gid = colon ? g : u;
		return 0;
	}
	/* Not getpwnam(): the static build has no NSS modules to load. */
	f = fopen("/etc/passwd", "re");
	if (!f) {
		fprintf(stderr, "pmuscope: cannot read /etc/passwd to find user '%s': %s\n", name,
			strerror(errno));
		return -1;
	}
	while ((pw = fgetpwent(f))) {
		if (!strcmp(pw->pw_name, name)) {
			*uid = pw->pw_uid;
			*gid = pw->pw_gid;
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	fprintf(stderr, "pmuscope: no user '%s' in /etc/passwd (--user NAME, UID or UID:GID)\n",
		name);
	return -1;
}

static int exp_capset(uint64_t caps)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = (uint32_t)caps, .permitted = (uint32_t)caps },
		{ .effective = (uint32_t)(caps >> 32), .permitted = (uint32_t)(caps >> 32) },
	};

	return syscall(SYS_capset, &hdr, d);
}

static int exp_capget(uint64_t *eff, uint64_t *perm)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &hdr, d))
		return -1;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*perm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	return 0;
}

/*
 * Started as root: become @user, @uid and @gid (setgroups(0), setresgid,
 * setresuid), keeping CAP_PERFMON alone when *@keep_perfmon
 * (PMUSCOPE_IOC_AMU_READ checks it at every read; *@keep_perfmon is
 * cleared when the kernel will not keep it), then check that root cannot
 * be had back. Not root: nothing to drop, and --user is an error unless it
 * names who runs pmuscope (@uid from exp_lookup_user() then).
 * Return 0 or an exit code (said on stderr).
 */
static int exp_drop_root(struct exp *e, const char *user, uid_t uid, gid_t gid,
			 int *keep_perfmon)
{
	const uint64_t perfmon = 1ULL << CAP_PERFMON;
	uid_t ru, eu, su;
	gid_t rg, eg, sg;
	uint64_t eff, perm;

	if (getuid() && geteuid()) {
		*keep_perfmon = 0;
		if (uid && uid != getuid()) {
			fprintf(stderr, "pmuscope: --user %s needs root to become it (pmuscope runs as uid %u)\n",
				user, (unsigned int)getuid());
			return EXIT_PERM;
		}
		return 0;
	}
	if (!uid) {
		exp_say(e, "--user %s is root: serving as root, with every privilege (not recommended)",
			user);
		return 0;
	}
	if (setgroups(0, NULL)) {
		perror("pmuscope: setgroups");
		return EXIT_PERM;
	}
	if (setresgid(gid, gid, gid)) {
		fprintf(stderr, "pmuscope: setresgid(%u): %s\n", (unsigned int)gid, strerror(errno));
		return EXIT_PERM;
	}
	if (*keep_perfmon && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0)) {
		perror("pmuscope: prctl(PR_SET_KEEPCAPS)");
		return EXIT_PERM;
	}
	if (setresuid(uid, uid, uid)) {
		fprintf(stderr, "pmuscope: setresuid(%u): %s\n", (unsigned int)uid, strerror(errno));
		return EXIT_PERM;
	}
	if (*keep_perfmon) {
		/* Permitted: all of root's, kept; effective: none. Keep one. */
		if (exp_capset(perfmon)) {
			exp_say(e, "cannot keep CAP_PERFMON as %s (%s): the AMU is not exported",
				user, strerror(errno));
			*keep_perfmon = 0;
			if (exp_capset(0)) {
				perror("pmuscope: capset");
				return EXIT_PERM;
			}
		}
		if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0)) {
			perror("pmuscope: prctl(PR_SET_KEEPCAPS)");
			return EXIT_PERM;
		}
	}
	/* Nothing to pass on to what it would run (it runs nothing). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL) {
		perror("pmuscope: prctl(PR_CAP_AMBIENT_CLEAR_ALL)");
		return EXIT_PERM;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("pmuscope: prctl(PR_SET_NO_NEW_PRIVS)");
		return EXIT_PERM;
	}

	/* Check: who it is now, and that root does not come back. */
	if (getresuid(&ru, &eu, &su) || getresgid(&rg, &eg, &sg) || exp_capget(&eff, &perm)) {
		perror("pmuscope: checking the privileges dropped");
		return EXIT_PERM;
	}
	if (ru != uid || eu != uid || su != uid || rg != gid || eg != gid || sg != gid ||
	    getgroups(0, NULL) != 0 || (eff & ~perfmon) || (perm & ~perfmon) ||
	    !setuid(0) || !seteuid(0) || (gid && !setgid(0))) {
		fprintf(stderr, "pmuscope: privileges still held after becoming %s (uid %u gid %u): refusing to go on\n",
			user, (unsigned int)uid, (unsigned int)gid);
		return EXIT_PERM;
	}
	exp_say(e, "running as %s (uid %u, gid %u, no supplementary groups)%s", user,
		(unsigned int)uid, (unsigned int)gid,
		*keep_perfmon ? ", with CAP_PERFMON alone, for the AMU" : ", without capabilities");
	return 0;
}

/* ------------------------------------------------------------- textfile */

/* Write @b to DIR/pmuscope.prom: a temporary file in DIR, fsync, rename. */
static int exp_write_textfile(struct exp *e, const char *dir, const struct ebuf *b)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	size_t off = 0;
	int fd, dfd;

	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, EXP_TEXTFILE) >= (int)sizeof(tmp) ||
	    snprintf(dst, sizeof(dst), "%s/%s", dir, EXP_TEXTFILE) >= (int)sizeof(dst)) {
		snprintf(e->err, sizeof(e->err), "%s: path too long", dir);
		return -ENAMETOOLONG;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(e->err, sizeof(e->err), "cannot create a file in %s: %s", dir,
			 strerror(errno));
		return -errno;
	}
	while (off < b->len) {
		ssize_t n = write(fd, b->p + off, b->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(e->err, sizeof(e->err), "cannot write %s: %s", tmp,
				 n < 0 ? strerror(errno) : "no progress");
			goto fail;
		}
		off += n;
	}
	/* node_exporter runs as another user: readable by all, as the umask allows. */
	if (fchmod(fd, 0644)) {
		snprintf(e->err, sizeof(e->err), "cannot chmod %s: %s", tmp, strerror(errno));
		goto fail;
	}
	if (fsync(fd)) {
		snprintf(e->err, sizeof(e->err), "cannot fsync %s: %s", tmp, strerror(errno));
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		snprintf(e->err, sizeof(e->err), "cannot write %s: %s", tmp, strerror(errno));
		goto fail;
	}
	fd = -1;
	if (rename(tmp, dst)) {
		snprintf(e->err, sizeof(e->err), "cannot rename %s to %s: %s", tmp, dst,
			 strerror(errno));
		goto fail;
	}
	/* The rename itself, on disk. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		if (fsync(dfd) && errno != EINVAL)
			exp_log(e, "fsync of %s: %s", dir, strerror(errno));
		close(dfd);
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return -EIO;
}

/* Can the user pmuscope now runs as write DIR? 0, or an exit code. */
static int exp_textfile_probe(const char *dir)
{
	char tmp[PATH_MAX];
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, EXP_TEXTFILE) >= (int)sizeof(tmp)) {
		fprintf(stderr, "pmuscope: --textfile %s: path too long\n", dir);
		return EXIT_USAGE;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "pmuscope: cannot create files in %s as uid %u: %s\n", dir,
			(unsigned int)geteuid(), strerror(errno));
		return 1;
	}
	close(fd);
	unlink(tmp);
	return 0;
}

static int exp_textfile_loop(struct exp *e, const char *dir, unsigned int interval_ms,
			     unsigned long long count)
{
	struct timespec next, end, t0;
	unsigned long long written = 0;
	int status = 0, reaped = 0;

	clock_gettime(CLOCK_MONOTONIC, &next);
	end.tv_sec = e->end_ms / 1000;
	end.tv_nsec = (e->end_ms % 1000) * 1000000L;
	for (;;) {
		const struct timespec *deadline = &next;
		int ret;

		next.tv_sec += interval_ms / 1000;
		next.tv_nsec += (interval_ms % 1000) * 1000000L;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		if (e->end_ms && (end.tv_sec < next.tv_sec ||
				  (end.tv_sec == next.tv_sec && end.tv_nsec < next.tv_nsec)))
			deadline = &end;
		if (stat_wait(deadline, -1, &status, &reaped)) {
			exp_log(e, "SIGTERM or SIGINT: stopping after %llu scrapes",
				(unsigned long long)e->scrapes);
			return 0;
		}
		if (deadline == &end) {
			exp_log(e, "--duration reached: stopping after %llu scrapes",
				(unsigned long long)e->scrapes);
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		e->scrapes++;
		ret = exp_scrape(e, 0);
		if (!ret)
			ret = exp_write_textfile(e, dir, &e->body);
		if (ret) {
			exp_log(e, "scrape %llu failed: %s", (unsigned long long)e->scrapes, e->err);
			/* A daemon tries again at the next interval; -n COUNT stops. */
			if (count)
				return 1;
			continue;
		}
		exp_log(e, "scrape %llu: wrote %s/%s, %zu bytes in %.2f ms",
			(unsigned long long)e->scrapes, dir, EXP_TEXTFILE, e->body.len,
			exp_since_ms(&t0));
		exp_log_values(e);
		if (count && ++written == count)
			return 0;
	}
}

/* ------------------------------------------------------------------ HTTP */
enum { CONN_FREE, CONN_READ, CONN_WRITE, CONN_LINGER };

struct conn {
	int fd;
	int state;
	int64_t deadline;		/* CLOCK_MONOTONIC ms */
	size_t rlen;			/* bytes of @req */
	size_t off;			/* bytes of @out sent */
	char peer[INET6_ADDRSTRLEN + 16];
	char req[EXP_REQ_MAX + 1];
	struct ebuf out;
};

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->state = CONN_FREE;
	c->rlen = 0;
	c->off = 0;
	c->out.len = 0;
}

static void exp_peer(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ntohs(s6->sin6_port));
	} else if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ntohs(s4->sin_port));
	} else {
		snprintf(buf, len, "?");
	}
}

/*
 * The answer: status line, headers, body. @blen < 0: a HEAD of /metrics,
 * whose length is not known without reading the session: no
 * Content-Length (HTTP allows it for HEAD).
 */
static void http_answer(struct conn *c, int status, const char *reason, const char *ctype,
			const char *extra, const char *body, long blen, int head)
{
	struct ebuf *b = &c->out;

	b->len = 0;
	b->failed = 0;
	eb_printf(b, "HTTP/1.1 %d %s\r\n", status, reason);
	if (ctype)
		eb_printf(b, "Content-Type: %s\r\n", ctype);
	if (blen >= 0)
		eb_printf(b, "Content-Length: %ld\r\n", blen);
	eb_printf(b, "Connection: close\r\n%s\r\n", extra ? extra : "");
	if (!head && body && blen > 0)
		eb_append(b, body, blen);
}

static void http_error(struct conn *c, int status, const char *reason, const char *extra, int head)
{
	char body[128];
	int n = snprintf(body, sizeof(body), "%d %s\n", status, reason);

	http_answer(c, status, reason, "text/plain; charset=utf-8", extra, body, n, head);
}

/* Token characters of RFC 9110 (method, header names). */
static int http_tchar(int ch)
{
	return isalnum(ch) || (ch && strchr("!#$%&'*+-.^_`|~", ch));
}

/*
 * Does @accept prefer OpenMetrics? An application/openmetrics-text range
 * with q above 0 and at least that of text/plain (or text wildcard, or
 * any type).
 */
static int http_wants_om(const char *accept)
{
	double om_q = 0, text_q = 0;
	const char *p = accept;

	while (p && *p) {
		const char *end = strchr(p, ','), *semi, *q;
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char range[256];
		double qv = 1;

		snprintf(range, sizeof(range), "%.*s", (int)(len < sizeof(range) ? len : sizeof(range) - 1), p);
		p = end ? end + 1 : NULL;
		semi = strchr(range, ';');
		for (q = semi; q; q = strchr(q + 1, ';')) {
			const char *v = q + 1;

			while (*v == ' ' || *v == '\t')
				v++;
			if ((v[0] == 'q' || v[0] == 'Q') && v[1] == '=')
				qv = strtod(v + 2, NULL);
		}
		{
			const char *t = range;
			size_t tlen;

			while (*t == ' ' || *t == '\t')
				t++;
			tlen = semi ? (size_t)(semi - t) : strlen(t);
			while (tlen && (t[tlen - 1] == ' ' || t[tlen - 1] == '\t'))
				tlen--;
			if (tlen == 28 && !strncasecmp(t, "application/openmetrics-text", 28)) {
				if (qv > om_q)
					om_q = qv;
			} else if ((tlen == 10 && !strncasecmp(t, "text/plain", 10)) ||
				   (tlen == 6 && !strncasecmp(t, "text/*", 6)) ||
				   (tlen == 3 && !strncmp(t, "*/*", 3))) {
				if (qv > text_q)
					text_q = qv;
			}
		}
	}
	return om_q > 0 && om_q >= text_q;
}

static const char exp_index_html[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pmuscope exporter</title></head>\n"
	"<body><h1>pmuscope exporter</h1>\n"
	"<p>Arm PMU counts, Activity Monitors and the driver's flags of this machine, as Prometheus metrics: <a href=\"/metrics\">/metrics</a>.</p>\n"
	"</body></html>\n";

/*
 * The request line of c->req, METHOD SP TARGET SP HTTP/1.x, into @method
 * and @target: the line after it, or NULL (answered: 400 or 505).
 */
static char *http_request_line(struct conn *c, char *method, size_t msize, char *target,
			       size_t tsize)
{
	char *p = c->req, *eol = strchr(p, '\n'), *sp1, *sp2;
	const char *version;
	size_t mlen;

	if (!eol) {
		http_error(c, 400, "Bad Request", NULL, 0);
		return NULL;
	}
	*eol = '\0';
	if (eol > p && eol[-1] == '\r')
		eol[-1] = '\0';
	sp1 = strchr(p, ' ');
	sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	version = sp2 ? sp2 + 1 : "";
	mlen = sp1 ? (size_t)(sp1 - p) : 0;
	if (!sp1 || !sp2 || !mlen || mlen >= msize || sp2 == sp1 + 1 || strchr(version, ' ')) {
		http_error(c, 400, "Bad Request", NULL, 0);
		return NULL;
	}
	for (size_t i = 0; i < mlen; i++)
		if (!http_tchar((unsigned char)p[i])) {
			http_error(c, 400, "Bad Request", NULL, 0);
			return NULL;
		}
	memcpy(method, p, mlen);
	method[mlen] = '\0';
	snprintf(target, tsize, "%.*s", (int)(sp2 - sp1 - 1), sp1 + 1);
	if (strcmp(version, "HTTP/1.1") && strcmp(version, "HTTP/1.0")) {
		if (!strncmp(version, "HTTP/", 5) && isdigit((unsigned char)version[5]))
			http_error(c, 505, "HTTP Version Not Supported", NULL, 0);
		else
			http_error(c, 400, "Bad Request", NULL, 0);
		return NULL;
	}
	return eol + 1;
}

/*
 * The headers from @p: NAME ":" VALUE, until the empty line; the Accept
 * ones joined into @accept (@asize). 0, or -1 (answered: 400).
 */
static int http_headers(struct conn *c, char *p, char *accept, size_t asize)
{
	size_t alen = 0;
	char *eol;

	accept[0] = '\0';
	for (; *p; p = eol + 1) {
		char *colon;

		eol = strchr(p, '\n');
		if (!eol)
			break;
		*eol = '\0';
		if (eol > p && eol[-1] == '\r')
			eol[-1] = '\0';
		if (!*p)
			break;
		colon = strchr(p, ':');
		if (!colon || colon == p) {
			http_error(c, 400, "Bad Request", NULL, 0);
			return -1;
		}
		for (char *q = p; q < colon; q++)
			if (!http_tchar((unsigned char)*q)) {
				http_error(c, 400, "Bad Request", NULL, 0);
				return -1;
			}
		if (colon - p == 6 && !strncasecmp(p, "accept", 6)) {
			char *v;

			for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
				;
			alen += snprintf(accept + alen, asize - alen, "%s%s", alen ? "," : "", v);
			if (alen >= asize)
				alen = asize - 1;
		}
	}
	return 0;
}

/* GET /metrics: scrape, answer, log. */
static void http_metrics(struct exp *e, struct conn *c, const char *target, int om)
{
	struct timespec t0;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	e->scrapes++;
	ret = exp_scrape(e, om);
	if (ret) {
		char body[1024];
		int n = snprintf(body, sizeof(body), "pmuscope export: scrape failed: %.900s\n",
				 e->err);

		exp_log(e, "scrape %llu: GET %s from %s: 500: %s", (unsigned long long)e->scrapes,
			target, c->peer, e->err);
		http_answer(c, 500, "Internal Server Error", "text/plain; charset=utf-8", NULL, body,
			    n < (int)sizeof(body) ? n : (int)sizeof(body) - 1, 0);
		return;
	}
	http_answer(c, 200, "OK", om ? EXP_CT_OM : EXP_CT_TEXT, NULL, e->body.p, e->body.len, 0);
	exp_log(e, "scrape %llu: GET %s from %s: 200, %s, %zu bytes in %.2f ms",
		(unsigned long long)e->scrapes, target, c->peer,
		om ? "OpenMetrics 1.0.0" : "text 0.0.4", e->body.len, exp_since_ms(&t0));
	exp_log_values(e);
}

/* A whole request in c->req: answer it into c->out. */
static void http_handle(struct exp *e, struct conn *c)
{
	char method[16], target[EXP_REQ_MAX], pathbuf[EXP_REQ_MAX], accept[EXP_REQ_MAX];
	char *p, *path;
	int head, om;

	accept[0] = '\0';
	c->req[c->rlen] = '\0';
	if (memchr(c->req, '\0', c->rlen)) {
		http_error(c, 400, "Bad Request", NULL, 0);
		return;
	}
	p = http_request_line(c, method, sizeof(method), target, sizeof(target));
	if (!p || http_headers(c, p, accept, sizeof(accept)))
		return;

	head = !strcmp(method, "HEAD");
	if (!head && strcmp(method, "GET")) {
		http_error(c, 405, "Method Not Allowed", "Allow: GET, HEAD\r\n", 0);
		return;
	}
	/* Origin form, or absolute form (its path); the query does not count. */
	snprintf(pathbuf, sizeof(pathbuf), "%s", target);
	path = pathbuf;
	if (!strncasecmp(path, "http://", 7) || !strncasecmp(path, "https://", 8)) {
		char *slash = strchr(strstr(path, "//") + 2, '/');

		path = slash ? slash : strcpy(pathbuf, "/");
	}
	if (path[0] != '/') {
		http_error(c, 400, "Bad Request", NULL, head);
		return;
	}
	path[strcspn(path, "?#")] = '\0';
	if (!strcmp(path, "/")) {
		http_answer(c, 200, "OK", "text/html; charset=utf-8", NULL, exp_index_html,
			    sizeof(exp_index_html) - 1, head);
		return;
	}
	if (strcmp(path, "/metrics")) {
		http_error(c, 404, "Not Found", NULL, head);
		return;
	}
	om = http_wants_om(accept);
	if (head) {
		http_answer(c, 200, "OK", om ? EXP_CT_OM : EXP_CT_TEXT, NULL, NULL, -1, 1);
		return;
	}
	http_metrics(e, c, target, om);
}

/* Is the request in c->req whole: up to the empty line after the headers? */
static int http_complete(const struct conn *c)
{
	return memmem(c->req, c->rlen, "\r\n\r\n", 4) || memmem(c->req, c->rlen, "\n\n", 2);
}

static void conn_start_write(struct exp *e, struct conn *c, int64_t now)
{
	c->state = CONN_WRITE;
	c->off = 0;
	c->deadline = now + e->timeout_ms;
	if (c->out.failed) {
		exp_log(e, "out of memory answering %s", c->peer);
		conn_close(c);
	}
}

static void conn_readable(struct exp *e, struct conn *c, int64_t now)
{
	ssize_t n;

	if (c->state == CONN_LINGER) {
		char sink[4096];

		n = recv(c->fd, sink, sizeof(sink), 0);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			conn_close(c);
		return;
	}
	n = recv(c->fd, c->req + c->rlen, EXP_REQ_MAX - c->rlen, 0);
	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_close(c);
		return;
	}
	if (n == 0) {		/* gone before a whole request */
		conn_close(c);
		return;
	}
	c->rlen += n;
	if (http_complete(c)) {
		http_handle(e, c);
		conn_start_write(e, c, now);
	} else if (c->rlen == EXP_REQ_MAX) {
		exp_log(e, "%s: request over %d bytes: 431", c->peer, EXP_REQ_MAX);
		http_error(c, 431, "Request Header Fields Too Large", NULL, 0);
		conn_start_write(e, c, now);
	}
}

static void conn_writable(struct exp *e, struct conn *c, int64_t now)
{
	ssize_t n = send(c->fd, c->out.p + c->off, c->out.len - c->off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			conn_close(c);
		return;
	}
	c->off += n;
	if (c->off < c->out.len)
		return;
	/* All sent: half-close, and read what the client still sends until it closes. */
	shutdown(c->fd, SHUT_WR);
	c->state = CONN_LINGER;
	c->deadline = now + (e->timeout_ms < EXP_LINGER_MS ? e->timeout_ms : EXP_LINGER_MS);
}

static void conn_expired(struct exp *e, struct conn *c, int64_t now)
{
	switch (c->state) {
	case CONN_READ:
		exp_log(e, "%s: no whole request within %d ms: 408", c->peer, e->timeout_ms);
		http_error(c, 408, "Request Timeout", NULL, 0);
		conn_start_write(e, c, now);
		if (c->state == CONN_WRITE)
			c->deadline = now + (e->timeout_ms < EXP_LINGER_MS ? e->timeout_ms :
					     EXP_LINGER_MS);
		break;
	case CONN_WRITE:
		exp_log(e, "%s: answer not taken within %d ms: closed", c->peer, e->timeout_ms);
		conn_close(c);
		break;
	default:
		conn_close(c);
		break;
	}
}

static void exp_accept(struct exp *e, int lfd, struct conn *conns, int64_t now)
{
	for (int tries = 0; tries < 16; tries++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct conn *c = NULL;
		int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				exp_log(e, "accept: %s", strerror(errno));
			return;
		}
		for (int i = 0; i < EXP_MAX_CONN; i++)
			if (conns[i].state == CONN_FREE) {
				c = &conns[i];
				break;
			}
		if (!c) {
			static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
				"Content-Type: text/plain; charset=utf-8\r\nContent-Length: 24\r\n"
				"Connection: close\r\nRetry-After: 1\r\n\r\n503 Service Unavailable\n";
			char peer[INET6_ADDRSTRLEN + 16];

			exp_peer(&ss, peer, sizeof(peer));
			exp_log(e, "%s: %d clients connected already: 503", peer, EXP_MAX_CONN);
			/* Best effort: the client may not even read it. */
			send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->state = CONN_READ;
		c->rlen = 0;
		c->deadline = now + e->timeout_ms;
		exp_peer(&ss, c->peer, sizeof(c->peer));
	}
}

static int exp_serve(struct exp *e, int lfd, int sfd)
{
	struct pollfd pfd[2 + EXP_MAX_CONN];
	int idx[2 + EXP_MAX_CONN];
	struct conn *conns = calloc(EXP_MAX_CONN, sizeof(*conns));
	int ret = 0;

	if (!conns) {
		perror("pmuscope");
		return 1;
	}
	for (int i = 0; i < EXP_MAX_CONN; i++)
		conns[i].fd = -1;
	for (;;) {
		int64_t now = exp_now_ms(), wait = -1;
		int np = 2, n;

		if (e->end_ms && now >= e->end_ms) {
			exp_log(e, "--duration reached: stopping after %llu scrapes",
				(unsigned long long)e->scrapes);
			break;
		}
		if (e->end_ms)
			wait = e->end_ms - now;
		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		for (int i = 0; i < EXP_MAX_CONN; i++) {
			struct conn *c = &conns[i];

			if (c->state == CONN_FREE)
				continue;
			pfd[np] = (struct pollfd){
				.fd = c->fd, .events = c->state == CONN_WRITE ? POLLOUT : POLLIN,
			};
			idx[np++] = i;
			if (wait < 0 || c->deadline - now < wait)
				wait = c->deadline > now ? c->deadline - now : 0;
		}
		n = poll(pfd, np, wait > INT_MAX ? INT_MAX : (int)wait);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror("pmuscope: poll");
			ret = 1;
			break;
		}
		now = exp_now_ms();
		if (pfd[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				exp_log(e, "%s: stopping after %llu scrapes",
					si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT",
					(unsigned long long)e->scrapes);
			break;
		}
		for (int k = 2; k < np; k++) {
			struct conn *c = &conns[idx[k]];

			if (!pfd[k].revents || c->state == CONN_FREE)
				continue;
			if (c->state == CONN_WRITE)
				conn_writable(e, c, now);
			else
				conn_readable(e, c, now);
		}
		for (int i = 0; i < EXP_MAX_CONN; i++)
			if (conns[i].state != CONN_FREE && conns[i].deadline <= now)
				conn_expired(e, &conns[i], now);
		if (pfd[0].revents & POLLIN)
			exp_accept(e, lfd, conns, now);
	}
	for (int i = 0; i < EXP_MAX_CONN; i++) {
		conn_close(&conns[i]);
		eb_free(&conns[i].out);
	}
	free(conns);
	return ret;
}

/*
 * --listen [ADDR:]PORT: ADDR an IPv4 address or an IPv6 one in brackets,
 * default 127.0.0.1; PORT 0 to 65535 (0: any free port). 0, or -1 (said).
 */
static int exp_parse_listen(const char *arg, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	char host[INET6_ADDRSTRLEN + 1] = "";
	const char *port = arg;
	unsigned long long p;
	int v6 = 0;

	memset(ss, 0, sizeof(*ss));
	if (arg[0] == '[') {
		const char *close = strchr(arg, ']');

		if (!close || close[1] != ':' || close - arg - 1 >= (long)sizeof(host)) {
			fprintf(stderr, "pmuscope: --listen [IPV6]:PORT, e.g. [::1]:9750: '%s'\n",
				arg);
			return -1;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(close - arg - 1), arg + 1);
		port = close + 2;
		v6 = 1;
	} else {
		const char *colon = strrchr(arg, ':');

		if (colon && strchr(arg, ':') != colon) {
			fprintf(stderr, "pmuscope: --listen: an IPv6 address goes in brackets, e.g. [::1]:9750: '%s'\n",
				arg);
			return -1;
		}
		if (colon) {
			if (colon - arg >= (long)sizeof(host)) {
				fprintf(stderr, "pmuscope: --listen: invalid address '%s'\n", arg);
				return -1;
			}
			snprintf(host, sizeof(host), "%.*s", (int)(colon - arg), arg);
			port = colon + 1;
		}
	}
	if (parse_uint(port, 0, 65535, &p)) {
		fprintf(stderr, "pmuscope: --listen needs a port, 0 to 65535: '%s'\n", arg);
		return -1;
	}
	if (!host[0] && !v6)
		snprintf(host, sizeof(host), "127.0.0.1");
	if (!v6 && inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(p);
		*len = sizeof(*s4);
		return 0;
	}
	if (v6 && inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(p);
		*len = sizeof(*s6);
		return 0;
	}
	fprintf(stderr, "pmuscope: --listen: '%s' is not an IPv4 address or an IPv6 one in brackets (no host names)\n",
		host);
	return -1;
}

static int exp_listen(const struct sockaddr_storage *ss, socklen_t len, const char *arg,
		      char *url, size_t ulen)
{
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	char addr[INET6_ADDRSTRLEN + 16];
	int fd, one = 1;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "pmuscope: cannot listen on %s: socket: %s\n", arg, strerror(errno));
		return -1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (const struct sockaddr *)ss, len) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&bound, &blen)) {
		fprintf(stderr, "pmuscope: cannot listen on %s: %s\n", arg, strerror(errno));
		close(fd);
		return -1;
	}
	exp_peer(&bound, addr, sizeof(addr));
	snprintf(url, ulen, "http://%s/metrics", addr);
	return fd;
}

/* ------------------------------------------------------------ the command */
static void export_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope export [-e EVENT[,EVENT...]] [-C CPUS | -a]\n"
		"                       (--listen [ADDR:]PORT [--timeout S] |\n"
		"                        --textfile DIR [-I MS] [-n COUNT])\n"
		"                       [--user NAME] [--log FILE] [--log-values] [--duration S]\n"
		"  Counts the events on the CPUs (default: all online; events as stat) in\n"
		"  one session, opened once and never reset, and exports the counts, their\n"
		"  enabled and running times, the driver's flags, snapshot figures and the\n"
		"  Activity Monitors as Prometheus metrics:\n");
}

/* Two events with the same series: refused. */
static int exp_check_dups(struct exp *e)
{
	for (unsigned int i = 0; i < e->o.nr; i++)
		for (unsigned int j = 0; j < i; j++)
			if (!strcmp(e->ev_name[i], e->ev_name[j]) &&
			    !strcmp(e->ev_el[i], e->ev_el[j])) {
				fprintf(stderr, "pmuscope: %s at %s is given twice: its series would be the same\n",
					e->ev_name[i], e->ev_el[i]);
				return -1;
			}
	return 0;
}

/* The labels event and exception_level of each event. */
static void exp_event_labels(struct exp *e)
{
	for (unsigned int i = 0; i < e->o.nr; i++) {
		const struct pmuscope_event_spec *ev = &e->o.evs[i];
		const char *name = (ev->flags & PMUSCOPE_EV_RAW) ? NULL :
				   pmuscope_event_name(ev->number);
		size_t off = 0;

		if (name)
			snprintf(e->ev_name[i], sizeof(e->ev_name[i]), "%s", name);
		else
			snprintf(e->ev_name[i], sizeof(e->ev_name[i]), "0x%02x", ev->number);
		e->ev_el[i][0] = '\0';
		for (unsigned int el = 0; el < 3; el++)
			if (ev->flags & (PMUSCOPE_EV_EL0 << el))
				off += snprintf(e->ev_el[i] + off, sizeof(e->ev_el[i]) - off,
						"%sel%u", off ? "+" : "", el);
	}
}

static void exp_free(struct exp *e)
{
	if (e->log && e->log != stderr)
		fclose(e->log);
	free(e->vals);
	free(e->sinfo);
	free(e->v);
	free(e->sc);
	free(e->amu_recs);
	free(e->a);
	eb_free(&e->body);
	pmuscope_close(e->h);
	free(e);
}

struct export_args {
	struct exp *e;
	const char *listen_arg, *dir, *user, *logpath;
	unsigned long long count, duration, timeout;
	unsigned int interval_ms;
	int user_given, interval_given;
	int was_root;			/* started by root */
	uid_t uid;			/* who to become (--user) */
	gid_t gid;
	struct sockaddr_storage ss;	/* --listen's address */
	socklen_t sslen;
	int lfd, sfd;			/* the socket, the signalfd */
	char url[128];
};

static int export_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct export_args *x = ctx;

	switch (opt->value) {
	case 'e':
	case 'C':
	case 'a':
		return common_opt(opt->value, arg, &x->e->o) < 0 ? EXIT_USAGE : 0;
	case 'I':
		if (parse_interval(arg, &x->interval_ms))
			return EXIT_USAGE;
		x->interval_given = 1;
		return 0;
	case 'n':
		if (parse_uint(arg, 1, 1000000000, &x->count)) {
			fprintf(stderr, "pmuscope: -n needs a count of writes, 1 or more: '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'O':
		if (parse_uint(arg, 1, 3600, &x->timeout)) {
			fprintf(stderr, "pmuscope: --timeout needs 1 to 3600 seconds: '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	case 'U':
		x->user = arg;
		x->user_given = 1;
		return 0;
	case 'W':
		x->e->log_values = 1;
		return 0;
	case 'D':
		if (parse_uint(arg, 1, 31536000, &x->duration)) {
			fprintf(stderr, "pmuscope: --duration needs 1 to 31536000 seconds: '%s'\n",
				arg);
			return EXIT_USAGE;
		}
		return 0;
	default:
		return 1;
	}
}

static const struct cli_option export_options[] = {
	OPT_CALLBACK(NULL, 'e', "EVENT[,EVENT...]", "the events, as stat's (pmuscope list)",
		     export_opt, 'e'),
	OPT_CALLBACK(NULL, 'C', "CPUS", "these CPUs (0-3,6) instead of every online one",
		     export_opt, 'C'),
	OPT_CALLBACK(NULL, 'I', "MS", "--textfile: write every MS milliseconds (default 15000)",
		     export_opt, 'I'),
	OPT_STRING("listen", 0, "[ADDR:]PORT", "serve the metrics over HTTP on ADDR (default "
		   "127.0.0.1; IPv6 in brackets): GET /metrics (text 0.0.4, or OpenMetrics 1.0.0 "
		   "when the Accept header asks for it)", struct export_args, listen_arg),
	OPT_STRING("textfile", 0, "DIR", "write DIR/pmuscope.prom (atomically) every MS ms "
		   "(-I), COUNT times (-n), for node_exporter's textfile collector",
		   struct export_args, dir),
	OPT_CALLBACK("timeout", 0, "S", "--listen: a client's time to send its request and take "
		     "the answer, 1 to 3600 s (default 10)", export_opt, 'O'),
	OPT_CALLBACK("user", 0, "NAME", "started as root: become NAME (default nobody; or "
		     "UID[:GID]) once the session is set up", export_opt, 'U'),
	OPT_STRING("log", 0, "FILE", "one line per scrape there, not on stderr",
		   struct export_args, logpath),
	OPT_CALLBACK("log-values", 0, NULL, "with every sample served in the log", export_opt, 'W'),
	OPT_CALLBACK("duration", 0, "S", "stop after S seconds (default: at SIGTERM or SIGINT)",
		     export_opt, 'D'),
	OPT_CALLBACK("count", 'n', "COUNT", "--textfile: COUNT writes (default: until stopped)",
		     export_opt, 'n'),
	OPT_CALLBACK("all-cpus", 'a', NULL, "every online CPU", export_opt, 'a'),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

const struct cli_options export_cli = { "export", export_options, export_usage };

/* What the options leave to decide, once all are seen: 0, or an exit status. */
static int export_check(struct export_args *x, int argc, char **argv)
{
	struct stat st;

	if (optind < argc) {
		fprintf(stderr, "pmuscope: export runs no command: '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	if (!x->listen_arg == !x->dir) {
		fprintf(stderr, "pmuscope: export needs --listen [ADDR:]PORT or --textfile DIR (one of them)\n");
		cli_usage_with_options(stderr, &export_cli);
		return EXIT_USAGE;
	}
	if (x->listen_arg && (x->interval_given || x->count)) {
		fprintf(stderr, "pmuscope: -I and -n go with --textfile: with --listen, each scrape reads the counts\n");
		return EXIT_USAGE;
	}
	if (x->listen_arg && exp_parse_listen(x->listen_arg, &x->ss, &x->sslen))
		return EXIT_USAGE;
	if (x->dir && stat(x->dir, &st)) {
		fprintf(stderr, "pmuscope: --textfile %s: %s\n", x->dir, strerror(errno));
		return 1;
	}
	if (x->dir && !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "pmuscope: --textfile %s: not a directory\n", x->dir);
		return 1;
	}
	/* Who to become: known before anything is set up. */
	if ((x->was_root || x->user_given) && exp_lookup_user(x->user, &x->uid, &x->gid))
		return EXIT_USAGE;
	return 0;
}

/* The CPUs, the events and their labels, the log: 0, or an exit status. */
static int export_setup(struct export_args *x)
{
	struct exp *e = x->e;
	int ret;

	e->timeout_ms = x->timeout * 1000;
	ret = choose_cpus_events(&e->o, default_events, nr_default_events);
	if (ret)
		return ret;
	exp_event_labels(e);
	if (exp_check_dups(e))
		return EXIT_USAGE;
	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		e->slot[cpu] = -1;
		if (cpu_chosen(&e->o, cpu)) {
			e->slot[cpu] = e->ncpus;
			e->cpu_ids[e->ncpus++] = cpu;
		}
	}
	if (x->logpath) {
		int fd = open(x->logpath, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

		e->log = fd >= 0 ? fdopen(fd, "a") : NULL;
		if (!e->log) {
			fprintf(stderr, "pmuscope: cannot open the log %s: %s\n", x->logpath,
				strerror(errno));
			if (fd >= 0)
				close(fd);
			e->log = stderr;
			return 1;
		}
	}
	return 0;
}

/* The session counting, its buffers, the AMU: 0, or an exit status. */
static int export_session(struct exp *e)
{
	char err[512];
	int ret;

	ret = pmuscope_open(&e->h, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", err);
		return open_exit_code(ret);
	}
	e->features = pmuscope_features(e->h);
	ret = pmuscope_configure(e->h, e->o.evs, e->o.nr, e->o.cpus, PMUSCOPE_CPU_WORDS);
	if (ret) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(e->h));
		return exit_code_of(ret);
	}
	e->room = e->o.nr * e->ncpus;
	e->vals = calloc(e->room, sizeof(*e->vals));
	e->sinfo = calloc(e->ncpus, sizeof(*e->sinfo));
	e->v = calloc(e->room, sizeof(*e->v));
	e->sc = calloc(e->ncpus, sizeof(*e->sc));
	e->amu_recs = calloc(e->ncpus, sizeof(*e->amu_recs));
	e->a = calloc(e->ncpus, sizeof(*e->a));
	if (!e->vals || !e->sinfo || !e->v || !e->sc || !e->amu_recs || !e->a) {
		perror("pmuscope");
		return 1;
	}
	if (pmuscope_reset(e->h) || pmuscope_enable(e->h)) {
		fprintf(stderr, "pmuscope: %s\n", pmuscope_errmsg(e->h));
		return 1;
	}
	e->use_snapshot = !!(e->features & PMUSCOPE_FEAT_SNAPSHOT);
	/* The AMU, where the driver reads one: read once now, to know. */
	if (e->features & PMUSCOPE_FEAT_AMU) {
		int aret = exp_amu_update(e);

		e->amu = !aret;
		if (aret)
			exp_say(e, "the AMU is not exported: %s", pmuscope_errmsg(e->h));
	}
	return 0;
}

/*
 * The socket or the textfile, root dropped, then serve or write until
 * the end (--duration, -n, SIGINT or SIGTERM): the exit status.
 */
static int export_run(struct export_args *x)
{
	struct exp *e = x->e;
	char cpus[256];
	int ret, keep_perfmon;

	if (x->listen_arg) {
		x->lfd = exp_listen(&x->ss, x->sslen, x->listen_arg, x->url, sizeof(x->url));
		if (x->lfd < 0)
			return 1;
	}
	keep_perfmon = e->amu;
	ret = exp_drop_root(e, x->user, x->uid, x->gid, &keep_perfmon);
	if (ret)
		return ret;
	/* Root dropped, CAP_PERFMON not kept: the AMU cannot be read any more. */
	if (x->was_root && geteuid() && !keep_perfmon)
		e->amu = 0;
	if (x->dir) {
		ret = exp_textfile_probe(x->dir);
		if (ret)
			return ret;
	}
	if (x->duration)
		e->end_ms = exp_now_ms() + x->duration * 1000;
	pmuscope_cpulist_format(e->o.cpus, PMUSCOPE_CPU_WORDS, cpus, sizeof(cpus));
	exp_say(e, "%u events on CPU%s %s, read with %s%s", e->o.nr, strpbrk(cpus, ",-") ? "s" : "",
		cpus, e->use_snapshot ? "snapshots" : "PMUSCOPE_IOC_READ",
		e->amu ? ", and the AMU" : "");
	if (x->listen_arg) {
		sigset_t stop;

		sigemptyset(&stop);
		sigaddset(&stop, SIGINT);
		sigaddset(&stop, SIGTERM);
		x->sfd = signalfd(-1, &stop, SFD_CLOEXEC | SFD_NONBLOCK);
		if (x->sfd < 0) {
			perror("pmuscope: signalfd");
			return 1;
		}
		exp_say(e, "serving %s", x->url);
		return exp_serve(e, x->lfd, x->sfd);
	}
	exp_say(e, "writing %s/%s every %u ms", x->dir, EXP_TEXTFILE, x->interval_ms);
	return exp_textfile_loop(e, x->dir, x->interval_ms, x->count);
}

int cmd_export(int argc, char **argv)
{
	struct export_args x = {
		.user = "nobody", .timeout = 10, .interval_ms = 15000, .lfd = -1, .sfd = -1,
	};
	sigset_t sigs, oldmask;
	int ret;

	x.was_root = !getuid() || !geteuid();
	x.e = calloc(1, sizeof(*x.e));
	if (!x.e) {
		perror("pmuscope");
		return 1;
	}
	x.e->log = stderr;
	if (cli_parse(&export_cli, argc, argv, &x, &ret)) {
		exp_free(x.e);
		return ret;
	}
	ret = export_check(&x, argc, argv);
	if (!ret)
		ret = export_setup(&x);
	if (ret) {
		exp_free(x.e);
		return ret;
	}
	/* SIGINT and SIGTERM: taken by the loops (signalfd, stat_wait()), never lost. */
	stat_signals(&sigs);
	sigprocmask(SIG_BLOCK, &sigs, &oldmask);
	signal(SIGPIPE, SIG_IGN);

	ret = export_session(x.e);
	if (!ret)
		ret = export_run(&x);
	if (x.sfd >= 0)
		close(x.sfd);
	if (x.lfd >= 0)
		close(x.lfd);
	exp_free(x.e);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	return ret;
}
