// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: sessions on /dev/pmuscope: open, configure (CPUs or a task),
 * enable, disable, reset, software increments and reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

/* --------------------------------------------------------------- sessions */
int pmuscope_open(struct pmuscope **out, char *err, size_t errlen)
{
	struct pmuscope_handshake hs = { .size = sizeof(hs) };
	struct pmuscope *h;
	int ret;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	pmuscope_el0_unplan(&h->el0);
	h->fd = open("/dev/pmuscope", O_RDWR | O_CLOEXEC);
	if (h->fd < 0) {
		ret = -errno;
		pmuscope_say(err, errlen, PMUSCOPE_OP_OPEN, ret, 0, NULL);
		free(h);
		return ret;
	}
	if (ioctl(h->fd, PMUSCOPE_IOC_HANDSHAKE, &hs)) {
		ret = -errno;
		pmuscope_say(err, errlen, PMUSCOPE_OP_HANDSHAKE, ret, 0, NULL);
		pmuscope_close(h);
		return ret == -ENOTTY ? -EPROTO : ret;
	}
	if (hs.api_version != PMUSCOPE_API_VERSION) {
		pmuscope_fmt(err, errlen,
			     "the pmuscope module speaks API version %u, libpmuscope %s speaks %u: use matching versions",
			     hs.api_version, PMUSCOPE_LIB_VERSION, PMUSCOPE_API_VERSION);
		pmuscope_close(h);
		return -EPROTO;
	}
	h->features = hs.features;
	h->nr_cpu_ids = hs.nr_cpu_ids;
	*out = h;
	return 0;
}

void pmuscope_close(struct pmuscope *h)
{
	if (!h)
		return;
	pmuscope_self_unmap(h);
	if (h->fd >= 0)
		close(h->fd);
	free(h);
}

const char *pmuscope_errmsg(const struct pmuscope *h)
{
	return h ? h->msg : "no pmuscope session (pmuscope_open() failed or was not called)";
}

uint64_t pmuscope_features(const struct pmuscope *h)
{
	return h ? h->features : 0;
}

/* The uapi's events of @nr parsed events. */
void pmuscope_kernel_events(const struct pmuscope_event_spec *evs, unsigned int nr,
				   struct pmuscope_event *kev)
{
	for (unsigned int i = 0; i < nr; i++)
		kev[i] = (struct pmuscope_event){ .event = evs[i].number,
						  .flags = evs[i].flags };
}

/*
 * What every configuration does first: -EINVAL (h->msg says why) for no
 * session or a number of events out of range; the EL0 page unmapped.
 */
int pmuscope_config_begin(struct pmuscope *h, unsigned int nr)
{
	if (!h)
		return -EINVAL;
	if (!nr || nr > PMUSCOPE_MAX_EVENTS) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "%u events: a session counts 1 to %u events", nr,
			     PMUSCOPE_MAX_EVENTS);
		return -EINVAL;
	}
	pmuscope_self_unmap(h);
	return 0;
}

/* The API's counts of the driver's @nr values (READ, SNAPSHOT). */
void pmuscope_counts_of(struct pmuscope_count *out, const struct pmuscope_value *v,
			unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++) {
		out[i].cpu = v[i].cpu;
		out[i].index = v[i].index;
		out[i].flags = v[i].flags;
		out[i].counter = v[i].counter;
		out[i].count = v[i].count;
		out[i].time_enabled = v[i].time_enabled;
		out[i].time_running = v[i].time_running;
		out[i].scaled = pmuscope_scale(v[i].count, v[i].time_enabled,
					       v[i].time_running);
	}
}

int pmuscope_configure(struct pmuscope *h, const struct pmuscope_event_spec *evs,
		       unsigned int nr, const uint64_t *cpus, size_t words)
{
	struct pmuscope_event kev[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_config cfg = { .size = sizeof(cfg) };
	size_t used = words;
	int ret;

	ret = pmuscope_config_begin(h, nr);
	if (ret)
		return ret;
	while (used > 1 && !cpus[used - 1])
		used--;
	pmuscope_kernel_events(evs, nr, kev);
	cfg.nr_events = nr;
	cfg.events = (uintptr_t)kev;
	cfg.cpus = (uintptr_t)cpus;
	cfg.cpus_size = used * sizeof(uint64_t);
	if (ioctl(h->fd, PMUSCOPE_IOC_CONFIG, &cfg)) {
		ret = -errno;
		pmuscope_explain(h, ret, evs, nr, cpus, words);
		return ret;
	}
	memcpy(h->evs, evs, nr * sizeof(*evs));
	h->nr_events = nr;
	h->task = 0;
	memset(h->cpus, 0, sizeof(h->cpus));
	memcpy(h->cpus, cpus, (words < PMUSCOPE_CPU_WORDS ? words : PMUSCOPE_CPU_WORDS) *
	       sizeof(uint64_t));
	return 0;
}

/* The session now counts @evs in a task. */
void pmuscope_task_configured(struct pmuscope *h, const struct pmuscope_event_spec *evs,
				     unsigned int nr)
{
	memcpy(h->evs, evs, nr * sizeof(*evs));
	h->nr_events = nr;
	h->task = 1;
	memset(h->cpus, 0, sizeof(h->cpus));
}

int pmuscope_configure_task(struct pmuscope *h, const struct pmuscope_event_spec *evs,
			    unsigned int nr, int tid, uint32_t flags)
{
	struct pmuscope_event kev[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .target = PMUSCOPE_TARGET_TASK, .pid = tid,
		.flags = flags,
	};
	int ret;

	ret = pmuscope_config_begin(h, nr);
	if (ret)
		return ret;
	pmuscope_kernel_events(evs, nr, kev);
	cfg.nr_events = nr;
	cfg.events = (uintptr_t)kev;
	if (ioctl(h->fd, PMUSCOPE_IOC_CONFIG, &cfg)) {
		struct pmuscope_say_args a = {
			.n = { tid }, .policy = PMUSCOPE_POLICY_TASK | pmuscope_policy_events(evs, nr),
		};

		ret = -errno;
		if (pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_CONFIG_TASK, ret,
				 (h->features & PMUSCOPE_FEAT_TASK) ? PMUSCOPE_IF_FEAT : 0,
				 &a) == PMUSCOPE_SAY_EXPLAIN)
			pmuscope_explain_online(h, ret, evs, nr);
		return ret;
	}
	pmuscope_task_configured(h, evs, nr);
	return 0;
}

static int pmuscope_simple(struct pmuscope *h, unsigned long req, const char *what)
{
	if (!h)
		return -EINVAL;
	if (ioctl(h->fd, req)) {
		int ret = -errno;
		struct pmuscope_say_args a = { .s = what };

		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_CONTROL, ret, 0, &a);
		return ret;
	}
	return 0;
}

int pmuscope_enable(struct pmuscope *h)
{
	return pmuscope_simple(h, PMUSCOPE_IOC_ENABLE, "enable");
}

int pmuscope_disable(struct pmuscope *h)
{
	return pmuscope_simple(h, PMUSCOPE_IOC_DISABLE, "disable");
}

int pmuscope_reset(struct pmuscope *h)
{
	return pmuscope_simple(h, PMUSCOPE_IOC_RESET, "reset");
}

int pmuscope_swinc(struct pmuscope *h, uint64_t event_mask, unsigned int cpu,
		   unsigned int count)
{
	struct pmuscope_swinc sw = {
		.size = sizeof(sw), .event_mask = event_mask, .cpu = cpu, .count = count,
	};

	if (!h)
		return -EINVAL;
	if (ioctl(h->fd, PMUSCOPE_IOC_SWINC, &sw)) {
		int ret = -errno;
		/* The kernel's EL from sysfs only for the message that names it. */
		struct pmuscope_say_args a = {
			.n = { ret == -EINVAL ? pmuscope_kernel_el() : 0, cpu },
		};

		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_SWINC, ret, 0, &a);
		return ret;
	}
	return 0;
}

uint64_t pmuscope_scale(uint64_t count, uint64_t enabled, uint64_t running)
{
	if (!running || running >= enabled)
		return count;
	return (uint64_t)((unsigned __int128)count * enabled / running);
}

int pmuscope_read(struct pmuscope *h, struct pmuscope_count *out,
		  unsigned int room, unsigned int *nr)
{
	struct pmuscope_value vals[256], *v = vals;
	struct pmuscope_read rd = { .size = sizeof(rd) };
	int ret = 0;

	if (!h || !nr || (room && !out))
		return -EINVAL;
	if (room > 256) {
		v = calloc(room, sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	rd.values = (uintptr_t)v;
	rd.nr_values = room;
	if (ioctl(h->fd, PMUSCOPE_IOC_READ, &rd)) {
		ret = -errno;
		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_READ, ret, 0, NULL);
	} else if (rd.nr_values > room) {
		ret = -EPROTO;
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "read: the driver returned %u values for %u places",
			     rd.nr_values, room);
	} else {
		pmuscope_counts_of(out, v, rd.nr_values);
	}
	*nr = rd.nr_values;
	if (v != vals)
		free(v);
	return ret;
}
