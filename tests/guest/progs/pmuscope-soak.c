// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-soak: the reliability gate's soaks (tests/guest/t-soak.sh).
 *
 *   pmuscope-soak hotplug CYCLES   CPU 1 off and on CYCLES times while a
 *                                  session counts CPU_CYCLES on it twice,
 *                                  on the cycle counter and on an event
 *                                  counter: after every cycle both counts
 *                                  went on from where they were (never
 *                                  back, never a lost or a doubled 2^32),
 *                                  frozen and flagged while offline, and
 *                                  the two agree (their difference moves
 *                                  by less than SOAK_SKEW per cycle: they
 *                                  stop and start in the same callbacks).
 *
 *   pmuscope-soak errinj           perf backend, with function error
 *                                  injection (fail_function) making the
 *                                  perf core refuse pmuscope's counters:
 *                                  CONFIG fails with the errno injected and
 *                                  the fd configures once it stops; a
 *                                  session of CPU 1 whose counters perf
 *                                  refuses when CPU 1 comes back online
 *                                  reads LOST (not OFFLINE), frozen, and
 *                                  the CPU's other users are unharmed.
 *
 * One TAP line per thing verified ("pmuscope-tap: ok - [soak] ...");
 * exit status 1 if one failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/pmuscope.h>

#include "pmuscope-guest.h"
#include "pmuscope-session.h"

/*
 * Cycles by which the two counters' difference may move in one off/on
 * cycle: both are stopped and started by the same hotplug callbacks, but
 * not at the same instant: microseconds apart on the direct backend, up to
 * about 10 ms on the perf backend, whose events are created again one
 * after the other from a kworker, under KASAN in TCG (QEMU's cycles are
 * 1 GHz of virtual time: 0.39 and 8.9 million measured on a quiet host).
 * Without -icount, QEMU's virtual time runs on while the host deschedules
 * the vCPU between the two recreations: 309 million once, with two other
 * guests sharing the host's two cores. A lost or a doubled wrap is 2^32:
 * the bound is half of it, so that any such error still fails and a busy
 * host does not.
 */
#define SOAK_SKEW	(1ULL << 31)



static void pin(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int read_two(int fd, struct pmuscope_value *v)
{
	struct pmuscope_read rd = {
		.size = sizeof(rd), .values = (uintptr_t)v, .nr_values = 2,
	};

	return ioctl(fd, PMUSCOPE_IOC_READ, &rd) || rd.nr_values != 2 ? -1 : 0;
}

static void spin(void)
{
	for (volatile unsigned int i = 0; i < 200000; i++)
		;
}

static int soak_hotplug(unsigned int cycles)
{
	struct pmuscope_event ev[2] = {
		{ .event = 0x11, .flags = PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1 },
		{ .event = 0x11, .flags = PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1 },
	};
	uint64_t cpus = 1ULL << 1;
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .nr_events = 2, .cpus_size = 8,
		.events = (uintptr_t)ev, .cpus = (uintptr_t)&cpus,
	};
	struct pmuscope_value v[2], prev[2];
	unsigned int i, done = 0, cyc, evc, backwards = 0, skewed = 0;
	unsigned int not_frozen = 0, flagged = 0, unflagged = 0, hp_fail = 0;
	int64_t d, d0 = 0, worst = 0;
	int fd = open("/dev/pmuscope", O_RDWR);

	if (fd < 0 || ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg) ||
	    ioctl(fd, PMUSCOPE_IOC_ENABLE) || read_two(fd, v)) {
		tap(0, "hotplug: session on cpu1 (%s)", strerror(errno));
		return 1;
	}
	cyc = v[0].counter == 31 ? 0 : 1;
	evc = !cyc;
	if (v[0].counter == PMUSCOPE_COUNTER_NONE)	/* perf backend: perf places them */
		tap(v[1].counter == PMUSCOPE_COUNTER_NONE,
		    "hotplug: CPU_CYCLES twice, as perf events");
	else
		tap(v[cyc].counter == 31 && v[evc].counter < 31,
		    "hotplug: CPU_CYCLES on the cycle counter and on event counter %u",
		    v[evc].counter);
	memcpy(prev, v, sizeof(v));
	d0 = (int64_t)(v[evc].count - v[cyc].count);
	for (i = 0; i < cycles; i++) {
		struct pmuscope_value off[2];

		pin(0);
		if (set_online(1, 0)) {
			hp_fail++;
			continue;
		}
		if (read_two(fd, off))
			break;
		if (!(off[0].flags & PMUSCOPE_VAL_OFFLINE) ||
		    !(off[1].flags & PMUSCOPE_VAL_OFFLINE))
			unflagged++;
		if (off[cyc].count < prev[cyc].count || off[evc].count < prev[evc].count)
			backwards++;
		if (read_two(fd, v))
			break;
		if (v[0].count != off[0].count || v[1].count != off[1].count)
			not_frozen++;
		if (set_online(1, 1)) {
			hp_fail++;
			break;
		}
		pin(1);
		spin();
		if (read_two(fd, v))
			break;
		if ((v[0].flags | v[1].flags) &
		    (PMUSCOPE_VAL_OFFLINE | PMUSCOPE_VAL_LOST))
			flagged++;
		if (v[cyc].count < off[cyc].count || v[evc].count < off[evc].count)
			backwards++;
		d = (int64_t)(v[evc].count - v[cyc].count);
		if (llabs(d - d0) > (long long)SOAK_SKEW)
			skewed++;
		if (llabs(d - d0) > worst)
			worst = llabs(d - d0);
		d0 = d;
		memcpy(prev, v, sizeof(v));
		done++;
	}
	pin(0);
	set_online(1, 1);
	tap(done == cycles && !hp_fail, "hotplug: cpu1 off and on %u times while counting (%u done)",
	    cycles, done);
	tap(!backwards, "hotplug: no count went back (%u did)", backwards);
	tap(!unflagged, "hotplug: values flagged OFFLINE while cpu1 is off (%u not)", unflagged);
	tap(!not_frozen, "hotplug: counts frozen while cpu1 is off (%u moved)", not_frozen);
	tap(!flagged, "hotplug: online again, neither OFFLINE nor LOST (%u were)", flagged);
	tap(!skewed, "hotplug: cycle counter and event counter agree across every cycle "
	    "(largest change of their difference %" PRId64 " cycles, bound %llu)",
	    worst, (unsigned long long)SOAK_SKEW);
	tap(v[cyc].count > 0 && v[evc].count > 0,
	    "hotplug: totals %llu (cycle counter), %llu (event counter)",
	    (unsigned long long)v[cyc].count, (unsigned long long)v[evc].count);
	printf("pmuscope-soak: hotplug_cycles=%u\n", done);
	close(fd);
	return tap_failures != 0;
}

#define FAILFN	"/sys/kernel/debug/fail_function"


/* Make pmuscope_perf_create() return -EBUSY (retval: a u64) from now on, or stop it. */
static int inject(int on)
{
	if (!on)
		return write_file(FAILFN "/inject", "!pmuscope_perf_create");
	return write_file(FAILFN "/inject", "pmuscope_perf_create") ||
	       write_file(FAILFN "/pmuscope_perf_create/retval", "0xfffffffffffffff0") ||
	       write_file(FAILFN "/probability", "100") ||
	       write_file(FAILFN "/interval", "1") ||
	       write_file(FAILFN "/times", "-1") ||
	       write_file(FAILFN "/verbose", "0");
}

/* CPU_CYCLES at EL0 and EL1 on @cpu alone. */
static int config_cycles(int fd, unsigned int cpu)
{
	return config_one(fd, cpu, 0x11, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1);
}

static int soak_errinj(void)
{
	struct pmuscope_value v, w;
	int fd = open("/dev/pmuscope", O_RDWR), other, err;

	if (fd < 0 || inject(1)) {
		tap(0, "errinj: fail_function set up for pmuscope_perf_create (%s)",
		    strerror(errno));
		inject(0);
		return 1;
	}
	err = config_cycles(fd, 0) ? errno : 0;
	tap(err == EBUSY, "errinj: CONFIG fails with the perf core's EBUSY (%s)",
	    strerror(err));
	err = ioctl(fd, PMUSCOPE_IOC_ENABLE) ? errno : 0;
	tap(err == EINVAL, "errinj: the failed CONFIG left the session unconfigured "
	    "(ENABLE: %s)", strerror(err));
	inject(0);
	tap(!config_cycles(fd, 1) && !ioctl(fd, PMUSCOPE_IOC_ENABLE) && !read_one(fd, &v) &&
	    !(v.flags & (PMUSCOPE_VAL_LOST | PMUSCOPE_VAL_OFFLINE)),
	    "errinj: the same fd configures once the perf core accepts again");
	/* Another session of CPU 1, configured only after it is back. */
	pin(0);
	set_online(1, 0);
	inject(1);
	set_online(1, 1);
	inject(0);
	other = open("/dev/pmuscope", O_RDWR);
	tap(other >= 0 && !config_cycles(other, 1) && !ioctl(other, PMUSCOPE_IOC_ENABLE),
	    "errinj: CPU 1 back online, a new session counts there");
	pin(1);
	spin();
	read_one(fd, &v);
	spin();
	read_one(fd, &w);
	tap((v.flags & PMUSCOPE_VAL_LOST) && !(v.flags & PMUSCOPE_VAL_OFFLINE),
	    "errinj: perf refused the counter at CPU online: READ says LOST, not OFFLINE "
	    "(flags 0x%x)", v.flags);
	tap(w.count == v.count, "errinj: its count is frozen (%llu, %llu)",
	    (unsigned long long)v.count, (unsigned long long)w.count);
	read_one(other, &v);
	spin();
	read_one(other, &w);
	tap(w.count > v.count && !(w.flags & (PMUSCOPE_VAL_LOST | PMUSCOPE_VAL_OFFLINE)),
	    "errinj: the other session counts on CPU 1 (%llu -> %llu)",
	    (unsigned long long)v.count, (unsigned long long)w.count);
	tap(!ioctl(fd, PMUSCOPE_IOC_DISABLE) && !config_cycles(fd, 1) &&
	    !ioctl(fd, PMUSCOPE_IOC_ENABLE) && !read_one(fd, &v) &&
	    !(v.flags & PMUSCOPE_VAL_LOST),
	    "errinj: CONFIG again (after DISABLE) clears LOST");
	pin(0);
	close(other);
	close(fd);
	return tap_failures != 0;
}

int main(int argc, char **argv)
{
	tap_tag = "soak";
	if (argc == 2 && !strcmp(argv[1], "errinj"))
		return soak_errinj();
	if (argc == 3 && !strcmp(argv[1], "hotplug"))
		return soak_hotplug(strtoul(argv[2], NULL, 0));
	fprintf(stderr, "usage: pmuscope-soak hotplug CYCLES | errinj\n");
	return 2;
}
