// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: snapshots: every CPU's counters at one instant, and the
 * sysfs state of the hardware capture.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "internal.h"

/* ------------------------------------------------------------- snapshots */
const char *pmuscope_snap_method_name(uint32_t method)
{
	switch (method) {
	case PMUSCOPE_SNAP_HARDWARE:
		return "hardware";
	case PMUSCOPE_SNAP_SOFTWARE:
		return "software";
	case PMUSCOPE_SNAP_PERF:
		return "perf";
	case PMUSCOPE_SNAP_IDLE:
		return "idle";
	default:
		return "unknown";
	}
}

void pmuscope_snap_flags_str(uint32_t flags, char *buf, size_t len)
{
	static const struct pmuscope_flag_name names[] = {
		{ PMUSCOPE_SNAPCPU_LATE, "late" },
		{ PMUSCOPE_SNAPCPU_FALLBACK, "fallback" },
		{ PMUSCOPE_SNAPCPU_OFFLINE, "offline" },
		{ PMUSCOPE_SNAPCPU_UNSYNCED, "unsynced" },
	};

	pmuscope_flag_names_str(flags, names, sizeof(names) / sizeof(names[0]), buf, len);
}

int pmuscope_snap_hw_state(int cpu, char *buf, size_t len)
{
	if (!len)
		return -EINVAL;
	if (pmuscope_read_str(cpu, "snapshot_hw", buf, len)) {
		buf[0] = '\0';
		return -ENOENT;
	}
	return 0;
}

int pmuscope_snap_hw_usable(const char *state)
{
	/* kvm-vcpu: the last request found a vCPU loaded; the next tries. */
	return !strcmp(state, "untried") || !strcmp(state, "ready") ||
	       !strcmp(state, "kvm-vcpu");
}

uint64_t pmuscope_ticks_ns(uint64_t ticks, uint64_t freq)
{
	if (!freq)
		return 0;
	return (uint64_t)(((unsigned __int128)ticks * 1000000000U + freq / 2) / freq);
}

/* Append to @buf at *@off; ", ..." instead once it is full. 0: full. */
__attribute__((format(printf, 4, 5)))
static int pmuscope_buf_add(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	static const char more[] = ", ...";
	char part[128];
	size_t n, room = len - *off;
	va_list ap;

	va_start(ap, fmt);
	n = vsnprintf(part, sizeof(part), fmt, ap);
	va_end(ap);
	if (n >= sizeof(part) || n + sizeof(more) > room) {
		if (room >= sizeof(more)) {
			memcpy(buf + *off, more, sizeof(more));
			*off += sizeof(more) - 1;
		}
		return 0;
	}
	memcpy(buf + *off, part, n + 1);
	*off += n;
	return 1;
}

int pmuscope_snap_hw_explain(const uint64_t *cpus, size_t words, char *buf, size_t len)
{
	char state[32];
	size_t off = 0;
	int n = 0, full = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (size_t cpu = 0; cpu < words * 64; cpu++) {
		if (!pmuscope_cpu_set(cpus, words, cpu) ||
		    pmuscope_snap_hw_state(cpu, state, sizeof(state)) ||
		    pmuscope_snap_hw_usable(state))
			continue;
		/* Full: counted, no longer named. */
		if (!full && !pmuscope_buf_add(buf, len, &off, "%scpu%zu: hardware snapshot %s",
					       n ? ", " : "", cpu, state))
			full = 1;
		n++;
	}
	return n;
}

int pmuscope_snapshot(struct pmuscope *h, uint32_t flags, unsigned int lead_us,
		      struct pmuscope_count *out, unsigned int room,
		      struct pmuscope_snap_info *cpus, unsigned int cpu_room,
		      struct pmuscope_snap *res)
{
	struct pmuscope_snapshot sn = {
		.size = sizeof(sn), .flags = flags, .lead_us = lead_us,
		.nr_values = room, .nr_cpus = cpu_room,
		.value_size = sizeof(struct pmuscope_value),
		.cpu_size = sizeof(struct pmuscope_snap_cpu),
	};
	struct pmuscope_value vals[64], *v = vals;
	struct pmuscope_snap_cpu scs[16], *sc = scs;
	int ret = 0;

	if (!h || !res || (room && !out) || (cpu_room && !cpus))
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	if ((flags & PMUSCOPE_SNAP_F_SOFTWARE) && (flags & PMUSCOPE_SNAP_F_HARDWARE)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "snapshot: software and hardware capture exclude each other");
		return -EINVAL;
	}
	if (lead_us > PMUSCOPE_SNAP_LEAD_US_MAX) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "snapshot: a lead of %u us is above the most, %u us", lead_us,
			     PMUSCOPE_SNAP_LEAD_US_MAX);
		return -EINVAL;
	}
	if (room > sizeof(vals) / sizeof(vals[0]))
		v = calloc(room, sizeof(*v));
	if (cpu_room > sizeof(scs) / sizeof(scs[0]))
		sc = calloc(cpu_room, sizeof(*sc));
	if (!v || !sc) {
		ret = -ENOMEM;
		pmuscope_fmt(h->msg, sizeof(h->msg), "snapshot: %s", strerror(-ret));
		goto out;
	}
	sn.values = (uintptr_t)v;
	sn.cpus = (uintptr_t)sc;
	if (ioctl(h->fd, PMUSCOPE_IOC_SNAPSHOT, &sn)) {
		struct pmuscope_say_args a = {
			.n = { sn.nr_values, sn.nr_cpus, room, cpu_room, lead_us,
			       PMUSCOPE_SNAP_LEAD_US_UNPRIV },
		};

		ret = -errno;
		if (ret == -ENOSPC) {
			res->nr_values = sn.nr_values;
			res->nr_cpus = sn.nr_cpus;
		}
		if (pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_SNAPSHOT, ret,
				 (h->task ? PMUSCOPE_IF_TASK : 0) |
				 (h->nr_events ? PMUSCOPE_IF_EVENTS : 0) |
				 ((flags & PMUSCOPE_SNAP_F_HARDWARE) ? PMUSCOPE_IF_HW : 0),
				 &a) == PMUSCOPE_SAY_EXPLAIN)
			pmuscope_snap_explain_hw(h);
		goto out;
	}
	if (sn.nr_values > room || sn.nr_cpus > cpu_room) {
		ret = -EPROTO;
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "snapshot: the driver returned %u values and %u CPUs for %u and %u places",
			     sn.nr_values, sn.nr_cpus, room, cpu_room);
		goto out;
	}
	pmuscope_counts_of(out, v, sn.nr_values);
	for (unsigned int i = 0; i < sn.nr_cpus; i++)
		cpus[i] = (struct pmuscope_snap_info){
			.cpu = sc[i].cpu, .method = sc[i].method, .flags = sc[i].flags,
			.time = sc[i].time, .skew = sc[i].skew, .frozen = sc[i].frozen,
			.spread = sc[i].spread,
		};
	res->freq = sn.freq;
	res->skew = sn.skew;
	res->nr_values = sn.nr_values;
	res->nr_cpus = sn.nr_cpus;
out:
	if (v != vals)
		free(v);
	if (sc != scs)
		free(sc);
	return ret;
}
