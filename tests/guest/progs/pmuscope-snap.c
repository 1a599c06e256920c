// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-snap: in-guest tests of PMUSCOPE_IOC_SNAPSHOT.
 *
 *   pmuscope-snap consistency N   CPU_CYCLES on an event counter and on the
 *                                 cycle counter of every online CPU, N
 *                                 snapshots apart: their deltas agree
 *   pmuscope-snap gap N           the same on CPU 0 with another session's
 *                                 counters below the event counter: each
 *                                 value from its own counter, the other
 *                                 session's counters counting on
 *   pmuscope-snap allcpu N LEAD   N snapshots of all CPUs at a deadline
 *                                 LEAD us ahead: times, skews, deadline
 *   pmuscope-snap errors          the errors of SNAPSHOT on real sessions
 *   pmuscope-snap budget N unpriv|priv
 *                                 N all-CPU snapshots back to back, user
 *                                 space only: without CAP_PERFMON a lead
 *                                 above 100 us is EPERM and at most 101 +
 *                                 100 a second get the deadline (the rest
 *                                 UNSYNCED on every online CPU, none
 *                                 late), more until that bound is passed
 *                                 (SKIP if it cannot be in 10 s); with
 *                                 it, all of them
 *   pmuscope-snap expect CPU METHOD FLAGS [hw|sw]
 *                                 one snapshot of CPU: its method and flags
 *                                 (names as in sysfs snapshot_last), or
 *                                 METHOD eopnotsupp: the SNAPSHOT refused
 *   pmuscope-snap features HW     the handshake: FEAT_SNAPSHOT, and
 *                                 FEAT_SNAPSHOT_HW if HW is 1
 *   pmuscope-snap idle            CPUs 0 and 1, more events than counters
 *                                 (perf multiplexes, either backend) and
 *                                 one event: disabled, or on CPU 1
 *                                 offline, a record says IDLE (OFFLINE)
 *                                 and its values OFFLINE; CPU 1 back
 *                                 online counts again
 *
 * The deltas agree exactly in QEMU with -icount (both counters follow
 * one virtual clock, which stands still while one instruction's stop is
 * applied). Without -icount QEMU reads the host clock once per counter
 * when the enables change, and the host may preempt it in between (26,600
 * cycles apart seen): no bound holds, the figure is only shown (the
 * wrap plan runs this test with -icount). On silicon a counter may count
 * a cycle or two more before the stop reaches it: PMUSCOPE_SNAP_SLACK.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuscope.h>

#include "pmuscope-guest.h"

#define EV_CPU_CYCLES		0x11
#define MAX_CPUS		8
#define PMUSCOPE_SNAP_SLACK	4	/* cycles per interval, silicon only */

static unsigned int kernel_flag = PMUSCOPE_EV_EL1;
static int in_qemu;
static int icount;	/* QEMU's -icount (pmuscope_icount= on the command line) */


static uint64_t cntvct(void)
{
	uint64_t v;

	asm volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

static uint64_t cntfrq(void)
{
	uint64_t v;

	asm volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

static int dev_open(void)
{
	int fd = open("/dev/pmuscope", O_RDWR);

	if (fd < 0) {
		tap(0, "open /dev/pmuscope: %s", strerror(errno));
		exit(1);
	}
	return fd;
}

/* Online CPUs as a bitmap word; their number in *@n. */
static uint64_t online_cpus(unsigned int *n)
{
	uint64_t mask = 0;
	long i, max = sysconf(_SC_NPROCESSORS_CONF);

	*n = 0;
	for (i = 0; i < max && i < MAX_CPUS; i++) {
		char path[64], c = '1';
		int fd;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/online", i);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			if (read(fd, &c, 1) != 1)
				c = '0';
			close(fd);
		}
		if (c == '1') {
			mask |= 1ULL << i;
			(*n)++;
		}
	}
	return mask;
}

static int configure(int fd, const struct pmuscope_event *evs, unsigned int nr,
		     uint64_t cpus)
{
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .events = (uintptr_t)evs, .nr_events = nr,
		.cpus = (uintptr_t)&cpus, .cpus_size = 8,
	};

	return ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg) ? -errno : 0;
}

struct snap {
	struct pmuscope_snapshot sn;
	struct pmuscope_value vals[MAX_CPUS * 4];
	struct pmuscope_snap_cpu cpus[MAX_CPUS];
};

static int snapshot(int fd, struct snap *s, uint32_t flags, uint32_t lead_us)
{
	memset(s, 0, sizeof(*s));
	s->sn.size = sizeof(s->sn);
	s->sn.flags = flags;
	s->sn.lead_us = lead_us;
	s->sn.values = (uintptr_t)s->vals;
	s->sn.nr_values = MAX_CPUS * 4;
	s->sn.cpus = (uintptr_t)s->cpus;
	s->sn.nr_cpus = MAX_CPUS;
	return ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &s->sn) ? -errno : 0;
}

/* How far apart two counters stopped together may be (see the top). */
static int64_t slack(void)
{
	if (!in_qemu)
		return PMUSCOPE_SNAP_SLACK;
	return icount ? 0 : -1;
}

/*
 * How far apart the deltas of two counters are from snapshot @v0 to
 * snapshot @v1 (cycles), kept in *@worst if the largest; true when over
 * slack() (where it holds).
 */
static int apart(const struct pmuscope_value *v0, const struct pmuscope_value *v1,
		 int64_t *worst)
{
	int64_t d = (int64_t)((v1[0].count - v0[0].count) - (v1[1].count - v0[1].count));

	if (d < 0)
		d = -d;
	if (d > *worst)
		*worst = d;
	return slack() >= 0 && d > slack();
}

static void spin(unsigned long n)
{
	volatile unsigned long i;

	for (i = 0; i < n; i++)
		;
}

static const char *method_name(uint32_t m)
{
	static const char *const names[] = { "?", "hardware", "software", "perf", "idle" };

	return m < 5 ? names[m] : "?";
}

static void flags_name(uint32_t f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", f & PMUSCOPE_SNAPCPU_LATE ? "late," : "",
		 f & PMUSCOPE_SNAPCPU_FALLBACK ? "fallback," : "",
		 f & PMUSCOPE_SNAPCPU_OFFLINE ? "offline," : "",
		 f & PMUSCOPE_SNAPCPU_UNSYNCED ? "unsynced," : "", f ? "" : "none");
	if (f)
		buf[strlen(buf) - 1] = '\0';
}

/*
 * CPU_CYCLES twice on every online CPU (one lands on an event counter,
 * one on the cycle counter): between two snapshots both counted the same
 * cycles, because both stopped at the same instant. READ, which reads
 * them one after another, is shown for contrast.
 */
static void test_consistency(unsigned int n)
{
	const struct pmuscope_event ev[2] = {
		{ .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 | kernel_flag },
		{ .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 | kernel_flag },
	};
	unsigned int ncpu, i, c, bad = 0, checked = 0, hw = 0, sw = 0;
	int64_t worst = 0, read_worst = 0;
	uint64_t cpus = online_cpus(&ncpu);
	struct snap a, b;
	int fd = dev_open();

	tap(!configure(fd, ev, 2, cpus), "CONFIG CPU_CYCLES twice on %u CPUs", ncpu);
	tap(!ioctl(fd, PMUSCOPE_IOC_ENABLE), "ENABLE");
	tap(!snapshot(fd, &a, 0, 0), "first SNAPSHOT");
	for (i = 0; i < n; i++) {
		struct pmuscope_value rv[MAX_CPUS * 2];
		struct pmuscope_read rd = {
			.size = sizeof(rd), .values = (uintptr_t)rv, .nr_values = MAX_CPUS * 2,
		};

		spin(2000 + 791 * i);
		if (snapshot(fd, &b, 0, 0)) {
			bad++;
			continue;
		}
		for (c = 0; c < ncpu; c++) {
			const struct pmuscope_value *v0 = &a.vals[2 * c], *v1 = &b.vals[2 * c];

			/* One on an event counter, one on the cycle counter (31). */
			if (v1[0].counter == v1[1].counter ||
			    (v1[0].counter != 31 && v1[1].counter != 31))
				bad++;
			if (b.cpus[c].method == PMUSCOPE_SNAP_HARDWARE)
				hw++;
			else if (b.cpus[c].method == PMUSCOPE_SNAP_SOFTWARE)
				sw++;
			bad += apart(v0, v1, &worst);
			checked++;
		}
		a = b;
		/* READ: the counters are read one after another. */
		if (!ioctl(fd, PMUSCOPE_IOC_READ, &rd)) {
			int64_t d = (int64_t)(rv[0].count - rv[1].count);

			if (d < 0)
				d = -d;
			if (d > read_worst)
				read_worst = d;
		}
	}
	diag("%u intervals x CPUs: largest |delta(event counter) - delta(cycle counter)| %" PRId64
	     " cycles with SNAPSHOT (%u hardware, %u software captures); READ's counters are %"
	     PRId64 " cycles apart at most", checked, worst, hw, sw, read_worst);
	if (in_qemu)
		diag("QEMU-only fact: %s", icount ?
		     "with -icount both counters follow one virtual clock: exact agreement" :
		     "without -icount QEMU stops each counter at its own host-clock reading");
	if (slack() < 0)
		tap(!bad && checked == n * ncpu,
		    "%u snapshots: one on an event counter and one on the cycle counter, every interval of every CPU measured (no bound without -icount)",
		    n);
	else
		tap(!bad && checked == n * ncpu,
		    "%u snapshots: CPU_CYCLES on an event counter and on the cycle counter agree within %lld cycles over every interval of every CPU%s",
		    n, (long long)slack(), slack() ? "" : " (exactly)");
	close(fd);
}

/*
 * All CPUs at one deadline: every CPU reports, in ascending order; the
 * skews are the times less the earliest and the total is the spread; a
 * CPU not flagged late captured at or after the deadline, which is LEAD
 * us after the request; the frequency is CNTFRQ_EL0.
 */
static void test_allcpu(unsigned int n, unsigned int lead_us)
{
	const struct pmuscope_event ev = {
		.event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 | kernel_flag,
	};
	unsigned int ncpu, i, c, order_bad = 0, skew_bad = 0, dl_bad = 0, late = 0;
	uint64_t cpus = online_cpus(&ncpu), freq = cntfrq();
	uint64_t lead = lead_us * freq / 1000000, smin = UINT64_MAX, smax = 0, ssum = 0;
	struct snap s;
	int fd = dev_open();

	tap(!configure(fd, &ev, 1, cpus), "CONFIG CPU_CYCLES on %u CPUs", ncpu);
	tap(!ioctl(fd, PMUSCOPE_IOC_ENABLE), "ENABLE");
	for (i = 0; i < n; i++) {
		uint64_t t0 = cntvct(), first = UINT64_MAX, last = 0;
		unsigned int prev = 0;

		if (snapshot(fd, &s, 0, lead_us) || s.sn.nr_cpus != ncpu ||
		    s.sn.freq != freq) {
			order_bad++;
			continue;
		}
		for (c = 0; c < ncpu; c++) {
			const struct pmuscope_snap_cpu *sc = &s.cpus[c];

			if ((c && sc->cpu <= prev) || !(cpus & (1ULL << sc->cpu)) ||
			    s.vals[c].cpu != sc->cpu)
				order_bad++;
			prev = sc->cpu;
			if (sc->time < first)
				first = sc->time;
			if (sc->time > last)
				last = sc->time;
			if (sc->flags & PMUSCOPE_SNAPCPU_LATE)
				late++;
			else if (ncpu > 1 && sc->time < t0 + lead)
				dl_bad++;
		}
		for (c = 0; c < ncpu; c++)
			if (s.cpus[c].skew != s.cpus[c].time - first)
				skew_bad++;
		if (s.sn.skew != last - first)
			skew_bad++;
		if (s.sn.skew < smin)
			smin = s.sn.skew;
		if (s.sn.skew > smax)
			smax = s.sn.skew;
		ssum += s.sn.skew;
	}
	tap(!order_bad, "%u snapshots: one record per CPU, ascending, values in the same order, freq = CNTFRQ_EL0 (%" PRIu64 " Hz)",
	    n, freq);
	tap(!skew_bad, "each CPU's skew is its time less the earliest; the snapshot's skew is the spread");
	tap(!dl_bad, "no CPU captured before the deadline (%u us ahead) unless flagged late", lead_us);
	diag("all-CPU skew over %u snapshots of %u CPUs (lead %u us): min %" PRIu64 ", mean %" PRIu64
	     ", max %" PRIu64 " ticks of %" PRIu64 " Hz (%" PRIu64 " ns max); %u CPU captures late",
	     n, ncpu, lead_us, smin, n ? ssum / n : 0, smax, freq,
	     (uint64_t)(smax * 1000000000ULL / (freq ? freq : 1)), late);
	printf("pmuscope-snap-skew: cpus=%u lead_us=%u min=%" PRIu64 " mean=%" PRIu64 " max=%" PRIu64
	       " freq=%" PRIu64 " late=%u\n", ncpu, lead_us, smin, n ? ssum / n : 0, smax, freq, late);
	close(fd);
}

static void expect_err(const char *what, int got, int want)
{
	tap(got == want, "%s: %s (got %s)", what, want ? strerror(-want) : "succeeds",
	    got ? strerror(-got) : "success");
}

/*
 * The budget of deadline waits of callers without CAP_PERFMON (10 ms a
 * second and 10 ms ahead: a hundred default 100 us leads at once, then
 * one every 10 ms), shared by all of them: of the snapshots asked for in
 * T seconds at most 100 + 100 T get the deadline (101 + 100 T here, for
 * the rounding), whatever came before in this boot. That holds with no
 * budget at all once asking takes 10 ms a snapshot, so without
 * CAP_PERFMON the requests go on past @n until they are BUDGET_OVER more
 * than the bound: the budget must then have refused some, and at least
 * one must come back UNSYNCED. A host that cannot ask more than about
 * 100 a second (BUDGET_SECS) never gets there: SKIP, not PASS.
 */
#define BUDGET_OVER	20
#define BUDGET_SECS	10

static double budget_secs(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) + (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void test_budget(unsigned int n, int priv)
{
	const struct pmuscope_event ev = {
		.event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0,
	};
	unsigned int ncpu, i, c, synced = 0, unsynced = 0, bad = 0;
	uint64_t cpus = online_cpus(&ncpu);
	int budgeted = !priv && ncpu > 1;
	struct timespec t0;
	double secs = 0;
	struct snap s;
	int fd = dev_open();

	tap(!configure(fd, &ev, 1, cpus), "CONFIG CPU_CYCLES:u on %u CPUs", ncpu);
	tap(!ioctl(fd, PMUSCOPE_IOC_ENABLE), "ENABLE");
	expect_err("SNAPSHOT lead 101 us", snapshot(fd, &s, 0, 101), priv ? 0 : -EPERM);
	expect_err("SNAPSHOT lead 100 us", snapshot(fd, &s, 0, 100), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0;; i++) {
		unsigned int un = 0;

		if (i >= n) {
			secs = budget_secs(&t0);
			if (!budgeted || synced + unsynced > 101 + 100 * secs + BUDGET_OVER ||
			    secs >= BUDGET_SECS)
				break;
		}
		if (snapshot(fd, &s, 0, 0)) {
			bad++;
			continue;
		}
		for (c = 0; c < s.sn.nr_cpus; c++) {
			uint32_t f = s.cpus[c].flags;

			if (f & PMUSCOPE_SNAPCPU_OFFLINE)
				continue;
			un += !!(f & PMUSCOPE_SNAPCPU_UNSYNCED);
			if ((f & PMUSCOPE_SNAPCPU_UNSYNCED) && (f & PMUSCOPE_SNAPCPU_LATE))
				bad++;
		}
		if (un && un != ncpu)
			bad++;
		if (un)
			unsynced++;
		else
			synced++;
	}
	tap(!bad, "%u snapshots: each UNSYNCED on every online CPU or on none, never also late",
	    i);
	if (!budgeted) {
		tap(!unsynced, "%s: all %u with the deadline (%.3f s)",
		    priv ? "CAP_PERFMON" : "one CPU", synced, secs);
	} else {
		tap(synced <= 101 + 100 * secs,
		    "without CAP_PERFMON: %u with the deadline, %u without, in %.3f s (at most 101 + 100 a second)",
		    synced, unsynced, secs);
		if (synced + unsynced > 101 + 100 * secs)
			tap(unsynced > 0,
			    "%u requests, more than 101 + 100 a second: the budget refused %u",
			    synced + unsynced, unsynced);
		else
			tap(1, "the budget refused %u of %u # SKIP %.0f snapshots a second here: never more than the budget's 100 a second and 100 ahead in %.3f s",
			    unsynced, synced + unsynced, secs > 0 ? (synced + unsynced) / secs : 0,
			    secs);
	}
	close(fd);
}

/*
 * SNAPSHOT's straight-line reads start at the session's highest event
 * counter and read every one below it, another session's too: on CPU 0,
 * from CPU 0 (the local path), a session counting SW_INCR on two counters
 * takes the lowest ones, then this one CPU_CYCLES twice (the cycle
 * counter, and an event counter above the other session's). Each value
 * must come from its own counter: the two CPU_CYCLES deltas agree as in
 * test_consistency(); the other session's counters, read and never
 * stopped, count every SWINC made meanwhile, exactly.
 */
static void test_gap(unsigned int n)
{
	const struct pmuscope_event low[2] = {
		{ .event = 0x00, .flags = PMUSCOPE_EV_EL0 | kernel_flag },
		{ .event = 0x00, .flags = PMUSCOPE_EV_EL0 | kernel_flag },
	};
	struct pmuscope_swinc sw = {
		.size = sizeof(sw), .event_mask = 3, .cpu = 0, .count = 10,
	};
	const struct pmuscope_event ev[2] = {
		{ .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 | kernel_flag },
		{ .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 | kernel_flag },
	};
	struct pmuscope_value lv[2][2];
	struct pmuscope_read rd = { .size = sizeof(rd), .nr_values = 2 };
	unsigned int i, bad = 0, evc, cc;
	int fd_low = dev_open(), fd = dev_open(), ret;
	int64_t worst = 0;
	struct snap a, b;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	tap(!sched_setaffinity(0, sizeof(set), &set), "run on cpu0");
	ret = configure(fd_low, low, 2, 1);
	tap(!ret && !ioctl(fd_low, PMUSCOPE_IOC_ENABLE),
	    "another session: SW_INCR twice on cpu0 (%s)", strerror(-ret));
	ret = configure(fd, ev, 2, 1);
	tap(!ret && !ioctl(fd, PMUSCOPE_IOC_ENABLE),
	    "this session: CPU_CYCLES twice on cpu0 (%s)", strerror(-ret));
	rd.values = (uintptr_t)lv[0];
	tap(!ioctl(fd_low, PMUSCOPE_IOC_READ, &rd), "READ the other session");
	tap(!snapshot(fd, &a, PMUSCOPE_SNAP_F_SOFTWARE, 0) &&
	    a.cpus[0].method == PMUSCOPE_SNAP_SOFTWARE, "first SNAPSHOT: software");
	cc = a.vals[0].counter == 31 ? 0 : 1;
	evc = a.vals[1 - cc].counter;
	tap(a.vals[cc].counter == 31 && evc > lv[0][0].counter && evc > lv[0][1].counter &&
	    evc < 31, "a gap: the other session on counters %u and %u, this one on %u and 31",
	    lv[0][0].counter, lv[0][1].counter, evc);
	for (i = 0; i < n; i++) {
		spin(2000 + 791 * i);
		if (ioctl(fd_low, PMUSCOPE_IOC_SWINC, &sw))
			bad++;
		if (snapshot(fd, &b, PMUSCOPE_SNAP_F_SOFTWARE, 0)) {
			bad++;
			continue;
		}
		bad += apart(a.vals, b.vals, &worst);
		a = b;
	}
	diag("%u intervals: largest |delta(event counter %u) - delta(cycle counter)| %" PRId64
	     " cycles", n, evc, worst);
	if (slack() < 0)
		tap(!bad, "%u snapshots, each a software capture (no bound without -icount)", n);
	else
		tap(!bad, "%u snapshots: CPU_CYCLES on counter %u and on the cycle counter agree within %" PRId64 " cycles",
		    n, evc, slack());
	rd.values = (uintptr_t)lv[1];
	tap(!ioctl(fd_low, PMUSCOPE_IOC_READ, &rd) &&
	    lv[1][0].count - lv[0][0].count == 10ULL * n &&
	    lv[1][1].count - lv[0][1].count == 10ULL * n && !lv[1][0].flags && !lv[1][1].flags,
	    "the other session counted every SWINC, unflagged (%" PRIu64 " -> %" PRIu64 ", %u)",
	    (uint64_t)lv[0][0].count, (uint64_t)lv[1][0].count, 10 * n);
	close(fd);
	close(fd_low);
}

static void test_errors(void)
{
	const struct pmuscope_event ev = {
		.event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 | kernel_flag,
	};
	unsigned int ncpu;
	uint64_t cpus = online_cpus(&ncpu);
	struct snap s;
	int fd = dev_open(), ret;

	expect_err("SNAPSHOT of a never configured file", snapshot(fd, &s, 0, 0), -EINVAL);
	tap(!configure(fd, &ev, 1, cpus), "CONFIG");
	/* Room for nothing: ENOSPC, and the numbers needed. */
	memset(&s, 0, sizeof(s));
	s.sn.size = sizeof(s.sn);
	ret = ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &s.sn) ? -errno : 0;
	expect_err("SNAPSHOT without room", ret, -ENOSPC);
	tap(s.sn.nr_values == ncpu && s.sn.nr_cpus == ncpu,
	    "... says how many values (%u) and CPUs (%u) there are", s.sn.nr_values, s.sn.nr_cpus);
	/* Room for the values, not for the CPUs. */
	memset(&s, 0, sizeof(s));
	s.sn.size = sizeof(s.sn);
	s.sn.values = (uintptr_t)s.vals;
	s.sn.nr_values = MAX_CPUS;
	ret = ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &s.sn) ? -errno : 0;
	expect_err("SNAPSHOT with room for the values only", ret, -ENOSPC);
	/* The CPU records where nothing may be written. */
	memset(&s, 0, sizeof(s));
	s.sn.size = sizeof(s.sn);
	s.sn.values = (uintptr_t)s.vals;
	s.sn.nr_values = MAX_CPUS;
	s.sn.cpus = 16;
	s.sn.nr_cpus = MAX_CPUS;
	ret = ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &s.sn) ? -errno : 0;
	expect_err("SNAPSHOT with the CPU records at an unmapped address", ret, -EFAULT);
	/* The struct as a successful SNAPSHOT left it: freq and skew set. */
	expect_err("SNAPSHOT", snapshot(fd, &s, 0, 0), 0);
	s.sn.nr_values = MAX_CPUS;
	s.sn.nr_cpus = MAX_CPUS;
	ret = ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &s.sn) ? -errno : 0;
	expect_err("SNAPSHOT again with its output field freq still set", ret, -EINVAL);
	expect_err("SNAPSHOT software and hardware at once",
		   snapshot(fd, &s, PMUSCOPE_SNAP_F_SOFTWARE | PMUSCOPE_SNAP_F_HARDWARE, 0),
		   -EINVAL);
	expect_err("SNAPSHOT lead above 2 ms", snapshot(fd, &s, 0, PMUSCOPE_SNAP_LEAD_US_MAX + 1), -EINVAL);
	expect_err("SNAPSHOT software", snapshot(fd, &s, PMUSCOPE_SNAP_F_SOFTWARE, 0), 0);
	tap(s.cpus[0].method == PMUSCOPE_SNAP_IDLE,
	    "a session not enabled: the counts at rest (method idle, got %s)",
	    method_name(s.cpus[0].method));
	/* A larger caller's elements: zero beyond the kernel's. */
	{
		unsigned char big[MAX_CPUS][64];
		struct pmuscope_snapshot sn = {
			.size = sizeof(sn), .values = (uintptr_t)s.vals, .nr_values = MAX_CPUS,
			.cpus = (uintptr_t)big, .nr_cpus = MAX_CPUS, .cpu_size = 64,
		};
		unsigned int c, nz = 0, i;

		memset(big, 0xa5, sizeof(big));
		ret = ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &sn) ? -errno : 0;
		for (c = 0; c < ncpu; c++)
			for (i = sizeof(struct pmuscope_snap_cpu); i < 64; i++)
				nz += big[c][i] != 0;
		tap(!ret && !nz && sn.nr_cpus == ncpu,
		    "cpu_size 64: records written at that stride, zero beyond the kernel's 48 bytes");
	}
	close(fd);

	/* A task's counters move with it: no instant to take. */
	fd = dev_open();
	{
		struct pmuscope_config cfg = {
			.size = sizeof(cfg), .events = (uintptr_t)&ev, .nr_events = 1,
			.target = PMUSCOPE_TARGET_TASK,
		};

		if (ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg)) {
			diag("no task target here (%s): its SNAPSHOT is not tried", strerror(errno));
		} else {
			expect_err("SNAPSHOT of a task target", snapshot(fd, &s, 0, 0),
				   -EOPNOTSUPP);
		}
	}
	close(fd);
}

/* One snapshot of @cpu alone: its method and flags as named. */
static void test_expect(unsigned int cpu, const char *method, const char *flags,
			uint32_t req)
{
	const struct pmuscope_event ev[2] = {
		{ .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 | kernel_flag },
		{ .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 | kernel_flag },
	};
	struct snap s;
	char got[48];
	int fd = dev_open(), ret;

	tap(!configure(fd, ev, 2, 1ULL << cpu), "CONFIG on cpu%u", cpu);
	tap(!ioctl(fd, PMUSCOPE_IOC_ENABLE), "ENABLE");
	spin(100000);
	ret = snapshot(fd, &s, req, 0);
	if (!strcmp(method, "eopnotsupp")) {
		snprintf(got, sizeof(got), "cpu%u: SNAPSHOT of this request", cpu);
		expect_err(got, ret, -EOPNOTSUPP);
		close(fd);
		return;
	}
	flags_name(s.cpus[0].flags, got, sizeof(got));
	tap(!ret && !strcmp(method_name(s.cpus[0].method), method) && !strcmp(got, flags),
	    "cpu%u snapshot: method %s, flags %s (got %s, %s, %s)", cpu, method, flags,
	    ret ? strerror(-ret) : "success", method_name(s.cpus[0].method), got);
	close(fd);
}

static void test_features(int want_hw)
{
	struct pmuscope_handshake hs = { .size = sizeof(hs) };
	int fd = dev_open();

	tap(!ioctl(fd, PMUSCOPE_IOC_HANDSHAKE, &hs) && hs.api_version == PMUSCOPE_API_VERSION,
	    "HANDSHAKE: API version %u", hs.api_version);
	tap(!!(hs.features & PMUSCOPE_FEAT_SNAPSHOT), "PMUSCOPE_FEAT_SNAPSHOT set");
	tap(!!(hs.features & PMUSCOPE_FEAT_SNAPSHOT_HW) == want_hw,
	    "PMUSCOPE_FEAT_SNAPSHOT_HW %s", want_hw ? "set" : "clear");
	close(fd);
}

/* The records of a snapshot of a session on CPUs 0 and 1, as "cpu0,cpu1". */
static void idle_methods(const struct pmuscope_snap_cpu *c, char *buf, size_t len)
{
	char f0[32], f1[32];

	flags_name(c[0].flags, f0, sizeof(f0));
	flags_name(c[1].flags, f1, sizeof(f1));
	snprintf(buf, len, "%s(%s),%s(%s)", method_name(c[0].method), f0,
		 method_name(c[1].method), f1);
}

/* Values [@from, @to) all flagged OFFLINE (@want) or none (!@want). */
static int idle_offline(const struct pmuscope_value *v, unsigned int from, unsigned int to,
			int want)
{
	unsigned int i;

	for (i = from; i < to; i++)
		if (!!(v[i].flags & PMUSCOPE_VAL_OFFLINE) != want)
			return 0;
	return 1;
}

/*
 * SNAPSHOT of a session counted by perf events (more events than the
 * CPU has counters: multiplexed on either backend), and of a session of
 * one event, where nothing counts: disabled, or on an offline CPU. The
 * record says IDLE (and OFFLINE), the values of an offline CPU say
 * OFFLINE, whether the session is enabled or not; CPU 1 back online
 * counts again.
 */
static void test_idle(void)
{
	enum { IDLE_MAX = 32 };
	struct pmuscope_event ev[IDLE_MAX];
	struct pmuscope_value vals[2 * IDLE_MAX];
	struct pmuscope_snap_cpu cpus[2];
	struct pmuscope_snapshot sn;
	unsigned int n = 0, i, ncpu, mux;
	char m[96];
	int fd, one;
	FILE *f = fopen("/sys/kernel/pmuscope/cpu0/num_event_counters", "r");
	uint64_t c1, c2;

	if (!f || fscanf(f, "%u", &n) != 1)
		n = 6;
	if (f)
		fclose(f);
	if ((online_cpus(&ncpu) & 3) != 3) {
		tap(0, "CPUs 0 and 1 online");
		return;
	}
	/* Every event counter and the cycle counter taken, and one more. */
	mux = n + 2 > IDLE_MAX ? IDLE_MAX : n + 2;
	for (i = 0; i < mux; i++)
		ev[i] = (struct pmuscope_event){ .event = EV_CPU_CYCLES,
						 .flags = PMUSCOPE_EV_EL0 | kernel_flag };
#define IDLE_SNAP(fd) ({							\
	memset(&sn, 0, sizeof(sn));						\
	sn.size = sizeof(sn);							\
	sn.values = (uintptr_t)vals;						\
	sn.nr_values = 2 * IDLE_MAX;						\
	sn.cpus = (uintptr_t)cpus;						\
	sn.nr_cpus = 2;								\
	ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &sn) ? -errno : 0; })

	fd = dev_open();
	one = dev_open();
	tap(!configure(fd, ev, mux, 3), "CONFIG %u events on CPUs 0 and 1 (%u counters)", mux, n);
	tap(!configure(one, ev, 1, 3), "CONFIG 1 event on CPUs 0 and 1");
	tap(!IDLE_SNAP(fd), "SNAPSHOT, not enabled");
	idle_methods(cpus, m, sizeof(m));
	tap(cpus[0].method == PMUSCOPE_SNAP_IDLE && cpus[1].method == PMUSCOPE_SNAP_IDLE &&
	    !cpus[0].flags && !cpus[1].flags,
	    "multiplexed, not enabled: both CPUs idle, no flag (%s)", m);
	tap(!ioctl(fd, PMUSCOPE_IOC_ENABLE), "ENABLE");
	spin(1000000);
	tap(!IDLE_SNAP(fd), "SNAPSHOT, enabled");
	idle_methods(cpus, m, sizeof(m));
	tap(cpus[0].method == PMUSCOPE_SNAP_PERF && cpus[1].method == PMUSCOPE_SNAP_PERF,
	    "multiplexed, enabled: both CPUs perf (%s)", m);

	tap(set_online(1, 0) == 0, "cpu1 offline");
	tap(!IDLE_SNAP(fd), "SNAPSHOT, enabled, cpu1 offline");
	idle_methods(cpus, m, sizeof(m));
	tap(cpus[0].method == PMUSCOPE_SNAP_PERF && cpus[1].method == PMUSCOPE_SNAP_IDLE &&
	    cpus[1].flags == PMUSCOPE_SNAPCPU_OFFLINE,
	    "multiplexed, enabled, cpu1 offline: cpu0 perf, cpu1 idle (offline) (%s)", m);
	tap(idle_offline(vals, 0, mux, 0) && idle_offline(vals, mux, 2 * mux, 1),
	    "... cpu1's %u values flagged OFFLINE, cpu0's not (cpu1 value 0 flags %#x)", mux,
	    vals[mux].flags);
	for (c1 = 0, i = mux; i < 2 * mux; i++)
		c1 += vals[i].count;
	tap(!ioctl(fd, PMUSCOPE_IOC_DISABLE), "DISABLE");
	tap(!IDLE_SNAP(fd), "SNAPSHOT, disabled, cpu1 offline");
	idle_methods(cpus, m, sizeof(m));
	tap(cpus[0].method == PMUSCOPE_SNAP_IDLE && cpus[1].method == PMUSCOPE_SNAP_IDLE &&
	    cpus[1].flags == PMUSCOPE_SNAPCPU_OFFLINE,
	    "multiplexed, disabled, cpu1 offline: cpu0 idle, cpu1 idle (offline) (%s)", m);
	tap(idle_offline(vals, 0, mux, 0) && idle_offline(vals, mux, 2 * mux, 1),
	    "... cpu1's values flagged OFFLINE in a disabled session (cpu1 value 0 flags %#x)",
	    vals[mux].flags);
	tap(!IDLE_SNAP(one), "SNAPSHOT of the 1-event session, never enabled, cpu1 offline");
	idle_methods(cpus, m, sizeof(m));
	tap(cpus[1].method == PMUSCOPE_SNAP_IDLE && cpus[1].flags == PMUSCOPE_SNAPCPU_OFFLINE &&
	    idle_offline(vals, 1, 2, 1) && idle_offline(vals, 0, 1, 0),
	    "1 event, not enabled, cpu1 offline: record idle (offline), value OFFLINE (%s, flags %#x)",
	    m, vals[1].flags);

	tap(set_online(1, 1) == 0, "cpu1 online");
	tap(!ioctl(fd, PMUSCOPE_IOC_ENABLE), "ENABLE");
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(1, &set);
		sched_setaffinity(0, sizeof(set), &set);
		spin(2000000);
		CPU_ZERO(&set);
		CPU_SET(0, &set);
		CPU_SET(1, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	tap(!IDLE_SNAP(fd), "SNAPSHOT, enabled, cpu1 back online");
	idle_methods(cpus, m, sizeof(m));
	tap(cpus[1].method == PMUSCOPE_SNAP_PERF && idle_offline(vals, 0, 2 * mux, 0),
	    "multiplexed, cpu1 back online: perf, no value OFFLINE (%s)", m);
	for (c2 = 0, i = mux; i < 2 * mux; i++)
		c2 += vals[i].count;
	tap(c2 > c1, "... cpu1 counts again (its %u counts sum to %llu > %llu)", mux,
	    (unsigned long long)c2, (unsigned long long)c1);
#undef IDLE_SNAP
	close(one);
	close(fd);
}

int main(int argc, char **argv)
{
	static char tag[48];
	FILE *f;

	if (argc < 2)
		return 2;
	snprintf(tag, sizeof(tag), "pmuscope-snap %s", argv[1]);
	tap_tag = tag;
	in_qemu = getenv("pmuscope_profile") && *getenv("pmuscope_profile");
	icount = getenv("pmuscope_icount") != NULL;
	f = fopen("/sys/kernel/pmuscope/kernel_el", "r");
	if (f) {
		if (fgetc(f) == '2')
			kernel_flag = PMUSCOPE_EV_EL2;
		fclose(f);
	}
	if (!strcmp(argv[1], "consistency") && argc == 3)
		test_consistency(strtoul(argv[2], NULL, 0));
	else if (!strcmp(argv[1], "gap") && argc == 3)
		test_gap(strtoul(argv[2], NULL, 0));
	else if (!strcmp(argv[1], "allcpu") && argc == 4)
		test_allcpu(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	else if (!strcmp(argv[1], "errors"))
		test_errors();
	else if (!strcmp(argv[1], "budget") && argc == 4)
		test_budget(strtoul(argv[2], NULL, 0), !strcmp(argv[3], "priv"));
	else if (!strcmp(argv[1], "idle"))
		test_idle();
	else if (!strcmp(argv[1], "features") && argc == 3)
		test_features(atoi(argv[2]));
	else if (!strcmp(argv[1], "expect") && (argc == 5 || argc == 6))
		test_expect(strtoul(argv[2], NULL, 0), argv[3], argv[4],
			    argc == 6 && !strcmp(argv[5], "hw") ? PMUSCOPE_SNAP_F_HARDWARE :
			    argc == 6 && !strcmp(argv[5], "sw") ? PMUSCOPE_SNAP_F_SOFTWARE : 0);
	else
		return 2;
	return tap_failures ? 1 : 0;
}
