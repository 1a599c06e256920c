/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two ioctls the guest test programs make most (pmuscope-fuzz,
 * pmuscope-soak): one event on one CPU, and the READ of one value.
 */
#ifndef PMUSCOPE_SESSION_H
#define PMUSCOPE_SESSION_H

#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/pmuscope.h>

/* CONFIG of @event (PMUSCOPE_EV_* @flags) on CPU @cpu alone. */
static int __attribute__((unused)) config_one(int fd, unsigned int cpu, unsigned int event,
					      unsigned int flags)
{
	struct pmuscope_event ev = { .event = event, .flags = flags };
	uint64_t cpus = 1ULL << cpu;
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .nr_events = 1, .cpus_size = 8,
		.events = (uintptr_t)&ev, .cpus = (uintptr_t)&cpus,
	};

	return ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg);
}

/* READ of a session's one value into @v (zeroed first). */
static int __attribute__((unused)) read_one(int fd, struct pmuscope_value *v)
{
	struct pmuscope_read rd = {
		.size = sizeof(rd), .values = (uintptr_t)v, .nr_values = 1,
	};

	memset(v, 0, sizeof(*v));
	return ioctl(fd, PMUSCOPE_IOC_READ, &rd);
}

#endif /* PMUSCOPE_SESSION_H */
