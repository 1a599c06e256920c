// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-test: in-guest tests of /dev/pmuscope through the real ioctls.
 * Prints TAP lines "pmuscope-tap: ok - [pmuscope-test SUB] ...".
 *
 *   pmuscope-test errors       every validation rule of every ioctl
 *   pmuscope-test swinc        SW_INCR counts exactly the increments made
 *   pmuscope-test sessions     sessions do not disturb each other; close frees
 *   pmuscope-test hotplug      counting across CPU 1 offline/online
 *   pmuscope-test exact N1 N2  INST_RETIRED:u of a known loop (icount, -smp 1)
 *   pmuscope-test wrap MS MIN  CPU_CYCLES on an event counter and on the cycle
 *                              counter for MS ms, at least MIN 2^32 wraps
 *   pmuscope-test group GID    loaded with group=GID: its members may count
 *                              at EL0 only
 *   pmuscope-test alloc        no session is made for a caller who may not count
 *   pmuscope-test cpupm        counts survive cpu_pm enter/exit (idle)
 *   pmuscope-test el0          EL0 access to the PMU traps (PMUSERENR_EL0 = 0)
 *   pmuscope-test usermap      every rule of CONFIG's USER_* flags and of mmap()
 *                              of the user page; others kept off a granted CPU
 *   pmuscope-test hold SECS    hold 2 counters on every CPU for SECS seconds
 *   pmuscope-test emulated 0|1 the handshake's PMUSCOPE_FEAT_EMULATED
 *   pmuscope-test photplug     perf backend: CPU counters across CPU 1 offline/online
 *   pmuscope-test task N1 N2   this thread as a task target: INST_RETIRED:u
 *                              exact, with a perf_event_open peer counting too
 *   pmuscope-test taskperm     who may count which task
 *   pmuscope-test mux N        3x more events than counters: multiplexed, scaled
 *   pmuscope-test preset       RESET of sessions perf counts (a task, CPUs
 *                              multiplexed): counts, times and flags zero
 *   pmuscope-test inherit      an INHERIT task session: ENABLE, DISABLE and
 *                              RESET reach the children, whenever born
 *   pmuscope-test loadorder KO N
 *                              insmod/rmmod KO N times while another CPU
 *                              watches sysfs appear: it never shows an
 *                              online CPU unprobed (sysfs is published last)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <linux/pmuscope.h>

#include "pmuscope-guest.h"
#include <sys/syscall.h>

#define EV_SW_INCR	0x00
#define EV_INST_RETIRED	0x08
#define EV_CPU_CYCLES	0x11
/* User and kernel: the kernel runs at EL2 on a VHE host (sysfs kernel_el). */
#define ALL_EL		(PMUSCOPE_EV_EL0 | kernel_flag)
static unsigned int kernel_flag = PMUSCOPE_EV_EL1;

static const char *sub = "";
static const char *profile;



/*
 * The tests must hold on a real AM62L (Cortex-A53) too. Where one relies
 * on something only QEMU does, it asks qemu_only(): true in QEMU (the host
 * passes the CPU model as pmuscope_profile= on the kernel command line; a
 * board does not), and the log says which fact the run relies on.
 */
static int qemu_only(const char *fact)
{
	if (!profile || !*profile)
		return 0;
	diag("QEMU-only fact: %s", fact);
	return 1;
}

/* A number from a sysfs file of cpu0 (hex with 0x, or decimal). */
static unsigned long long cpu0_value(const char *name)
{
	unsigned long long v = 0;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/pmuscope/cpu0/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lli", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * A common event cpu0 does not implement (its PMCEID bit is clear): QEMU
 * lacks L1D_CACHE_REFILL, a Cortex-A53 (PMCEID0 0x67FFBFFF) has it but
 * lacks BR_RETURN_RETIRED. CHAIN is refused for another reason. -1: none.
 */
static int unimplemented_event(void)
{
	unsigned long long id[2] = { cpu0_value("pmceid0"), cpu0_value("pmceid1") };
	int n;

	for (n = 1; n < 0x40; n++)
		if (n != 0x1e && !((id[n / 32] >> (n % 32)) & 1))
			return n;
	return -1;
}

static int dev_open(void)
{
	int fd = open("/dev/pmuscope", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("/dev/pmuscope");
		exit(1);
	}
	return fd;
}

/* The loaded driver's PMUSCOPE_FEAT_* (0 if the handshake fails). */
static unsigned long long dev_features(void)
{
	struct pmuscope_handshake hs = { .size = sizeof(hs) };
	int fd = dev_open();
	int ok = !ioctl(fd, PMUSCOPE_IOC_HANDSHAKE, &hs);

	close(fd);
	return ok ? hs.features : 0;
}

/* ioctl returning 0 or -errno. */
static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static unsigned long long cpus_all(void)
{
	return (1ULL << sysconf(_SC_NPROCESSORS_ONLN)) - 1;
}

static int configure(int fd, const struct pmuscope_event *evs, unsigned int nr,
		     unsigned long long cpumask)
{
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .nr_events = nr, .cpus_size = 8,
		.events = (uintptr_t)evs, .cpus = (uintptr_t)&cpumask,
	};

	return xioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg);
}

static int read_values(int fd, struct pmuscope_value *vals, unsigned int room,
		       unsigned int *nr)
{
	struct pmuscope_read rd = {
		.size = sizeof(rd), .values = (uintptr_t)vals, .nr_values = room,
	};
	int ret = xioctl(fd, PMUSCOPE_IOC_READ, &rd);

	if (nr)
		*nr = rd.nr_values;
	return ret;
}

static int swinc(int fd, unsigned long long mask, unsigned int cpu, unsigned int count)
{
	struct pmuscope_swinc sw = {
		.size = sizeof(sw), .event_mask = mask, .cpu = cpu, .count = count,
	};

	return xioctl(fd, PMUSCOPE_IOC_SWINC, &sw);
}


/*
 * CONFIG CPU_CYCLES counting at @flags on cpu0 from a child running as uid
 * and gid 65534 (no capabilities) with the supplementary @groups: its
 * result, -errno.
 */
static int configure_as_nobody_at(const gid_t *groups, size_t ngroups,
				  unsigned int flags)
{
	struct pmuscope_event ev = { .event = EV_CPU_CYCLES, .flags = flags };
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = dev_open();

		if (setgroups(ngroups, groups) || setgid(65534) || setuid(65534))
			_exit(99);
		_exit(-configure(fd, &ev, 1, 1));
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -999;
}

static int configure_as_nobody(const gid_t *groups, size_t ngroups)
{
	return configure_as_nobody_at(groups, ngroups, ALL_EL);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* ------------------------------------------------------------- errors */

/* One validation case: start from a valid argument, break one thing. */
struct err_case {
	const char *what;
	int expect;		/* -errno, or 0 */
};

static void expect(const char *what, int got, int want)
{
	tap(got == want, "%s: %s (got %s)", what, want ? strerror(-want) : "success",
	    got ? strerror(-got) : "success");
}

static void test_errors(void)
{
	struct pmuscope_event ev[PMUSCOPE_MAX_EVENTS + 1];
	struct pmuscope_value vals[64];
	struct pmuscope_handshake hs;
	struct pmuscope_config cfg;
	struct pmuscope_read rd;
	struct pmuscope_swinc sw;
	unsigned char big[256];
	unsigned long long cpus = 1, far[2] = { 0, 1ULL << 40 };
	int fd = dev_open(), witness = dev_open(), other;
	unsigned int nr, i;
	int ret;

	/* A witness session that must come through all of this untouched. */
	ev[0] = (struct pmuscope_event){ .event = EV_SW_INCR, .flags = ALL_EL };
	expect("witness session configures SW_INCR on cpu0",
	       configure(witness, ev, 1, 1), 0);
	expect("witness enables", xioctl(witness, PMUSCOPE_IOC_ENABLE, NULL), 0);

	/* HANDSHAKE */
	memset(&hs, 0, sizeof(hs));
	hs.size = sizeof(hs);
	expect("HANDSHAKE valid", xioctl(fd, PMUSCOPE_IOC_HANDSHAKE, &hs), 0);
	tap(hs.api_version == PMUSCOPE_API_VERSION && hs.size == sizeof(hs) &&
	    hs.max_events == PMUSCOPE_MAX_EVENTS,
	    "HANDSHAKE reports API version %u, size %u, max_events %u",
	    hs.api_version, hs.size, hs.max_events);
	memset(&hs, 0, sizeof(hs));
	hs.size = 4;
	expect("HANDSHAKE size below version 1", xioctl(fd, PMUSCOPE_IOC_HANDSHAKE, &hs), -EINVAL);
	memset(big, 0, sizeof(big));
	*(uint32_t *)big = sizeof(big);
	expect("HANDSHAKE larger size, zero tail (newer caller)",
	       xioctl(fd, PMUSCOPE_IOC_HANDSHAKE, big), 0);
	memset(big, 0, sizeof(big));
	*(uint32_t *)big = sizeof(big);
	big[200] = 1;
	expect("HANDSHAKE larger size, non-zero tail",
	       xioctl(fd, PMUSCOPE_IOC_HANDSHAKE, big), -E2BIG);
	/* A caller built against a later header: the request carries its size. */
	memset(big, 0, sizeof(big));
	*(uint32_t *)big = sizeof(big);
	expect("HANDSHAKE with the request number of a later, larger struct",
	       xioctl(fd, _IOWR(PMUSCOPE_IOC_MAGIC, 0x00, unsigned char[256]), big), 0);
	tap(((struct pmuscope_handshake *)big)->api_version == PMUSCOPE_API_VERSION,
	    "... answered as HANDSHAKE (API version %u)",
	    ((struct pmuscope_handshake *)big)->api_version);
	expect("HANDSHAKE as _IOR: no such request",
	       xioctl(fd, _IOR(PMUSCOPE_IOC_MAGIC, 0x00, struct pmuscope_handshake), big), -ENOTTY);
	memset(big, 0, sizeof(big));
	*(uint32_t *)big = 1 << 20;
	expect("HANDSHAKE size 1 MiB (above a page)",
	       xioctl(fd, PMUSCOPE_IOC_HANDSHAKE, big), -E2BIG);
	memset(&hs, 0, sizeof(hs));
	hs.size = sizeof(hs);
	hs.reserved[3] = 1;
	expect("HANDSHAKE reserved field set", xioctl(fd, PMUSCOPE_IOC_HANDSHAKE, &hs), -EINVAL);
	memset(&hs, 0, sizeof(hs));
	hs.size = sizeof(hs);
	hs.features = 1;
	expect("HANDSHAKE output field set on input", xioctl(fd, PMUSCOPE_IOC_HANDSHAKE, &hs), -EINVAL);
	expect("HANDSHAKE bad pointer", xioctl(fd, PMUSCOPE_IOC_HANDSHAKE, (void *)8), -EFAULT);

	/* ENABLE, DISABLE, RESET, READ before CONFIG */
	expect("ENABLE before CONFIG", xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL), -EINVAL);
	expect("DISABLE before CONFIG", xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL), -EINVAL);
	expect("RESET before CONFIG", xioctl(fd, PMUSCOPE_IOC_RESET, NULL), -EINVAL);
	expect("READ before CONFIG", read_values(fd, vals, 64, NULL), -EINVAL);
	expect("unknown ioctl", xioctl(fd, _IO(PMUSCOPE_IOC_MAGIC, 0x3f), NULL), -ENOTTY);

	/* CONFIG */
#define CFG_RESET() do {						\
		memset(&cfg, 0, sizeof(cfg));				\
		cfg.size = sizeof(cfg);					\
		cfg.nr_events = 1;					\
		cfg.cpus_size = 8;					\
		cfg.events = (uintptr_t)ev;				\
		cfg.cpus = (uintptr_t)&cpus;				\
		ev[0] = (struct pmuscope_event){ .event = EV_CPU_CYCLES, .flags = ALL_EL }; \
		cpus = 1;						\
	} while (0)
#define CFG_EXPECT(what, want) expect("CONFIG " what, xioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg), want)

	CFG_RESET(); cfg.size = 8;		CFG_EXPECT("size below version 1", -EINVAL);
	CFG_RESET(); cfg.flags = 1;		CFG_EXPECT("unknown flag", -EINVAL);
	CFG_RESET(); cfg.reserved0 = 1;	CFG_EXPECT("reserved field set", -EINVAL);
	CFG_RESET(); cfg.nr_events = 0;		CFG_EXPECT("no events", -EINVAL);
	CFG_RESET(); cfg.nr_events = PMUSCOPE_MAX_EVENTS + 1; CFG_EXPECT("too many events (33)", -EINVAL);
	CFG_RESET(); cfg.cpus_size = 0;		CFG_EXPECT("cpus_size 0", -EINVAL);
	CFG_RESET(); cfg.cpus_size = 12;	CFG_EXPECT("cpus_size not a multiple of 8", -EINVAL);
	CFG_RESET(); cfg.cpus_size = 8192;	CFG_EXPECT("cpus_size above 4096", -EINVAL);
	CFG_RESET(); cfg.events = 8;		CFG_EXPECT("bad events pointer", -EFAULT);
	CFG_RESET(); cfg.cpus = 8;		CFG_EXPECT("bad cpus pointer", -EFAULT);
	CFG_RESET(); cpus = 0;			CFG_EXPECT("empty CPU set", -EINVAL);
	CFG_RESET(); cfg.cpus = (uintptr_t)far; cfg.cpus_size = 16; CFG_EXPECT("absent CPU (104)", -ENODEV);
	CFG_RESET(); cpus = 1ULL << 40;		CFG_EXPECT("absent CPU (40)", -ENODEV);
	CFG_RESET(); ev[0].flags = 1U << 7;	CFG_EXPECT("unknown event flag", -EINVAL);
	CFG_RESET(); ev[0].flags = 0;		CFG_EXPECT("event counting at no exception level", -EINVAL);
	CFG_RESET(); ev[0].reserved = 1;	CFG_EXPECT("event reserved field set", -EINVAL);
	CFG_RESET(); ev[0].event = 0x1e;	CFG_EXPECT("CHAIN is not a user event", -EINVAL);
	CFG_RESET(); ev[0].event = 0x10000;	CFG_EXPECT("event number above 16 bits", -EINVAL);
	CFG_RESET(); ev[0].event = unimplemented_event();
	diag("an event cpu0 does not implement: 0x%02x", ev[0].event);
						CFG_EXPECT("event not implemented (not in PMCEID0/1)", -EOPNOTSUPP);
	CFG_RESET(); ev[0].event = 0xc0;	CFG_EXPECT("IMPLEMENTATION DEFINED number without the raw flag", -EOPNOTSUPP);
	CFG_RESET(); ev[0].event = 0x400; ev[0].flags |= PMUSCOPE_EV_RAW;
	if (cpu0_value("pmu_version") < 4)	/* PMUv3 of Armv8.0: AM62L's A53 */
		CFG_EXPECT("raw 0x400 beyond PMUv3's 10-bit evtCount", -EOPNOTSUPP);
	else
		CFG_EXPECT("raw 0x400 on PMUv3p1 and later", 0);
	CFG_RESET(); ev[0].event = 0xc0; ev[0].flags |= PMUSCOPE_EV_RAW; CFG_EXPECT("raw 0xc0 with the raw flag", 0);
	CFG_RESET();
	for (i = 0; i < 8; i++)
		ev[i] = (struct pmuscope_event){ .event = EV_SW_INCR, .flags = ALL_EL };
	/* More events than counters: multiplexed where the driver can. */
	cfg.nr_events = 7;
	CFG_EXPECT("7 events on 6 event counters",
		   dev_features() & PMUSCOPE_FEAT_MULTIPLEX ? 0 : -ENOSPC);
	/* 5 more fit beside the witness; a sixth is busy. */
	cfg.nr_events = 5;			CFG_EXPECT("5 events beside the witness", 0);
	cfg.nr_events = 6;			CFG_EXPECT("reconfigure to 6: one counter held by the witness", -EBUSY);
	expect("failed CONFIG kept the previous configuration",
	       read_values(fd, vals, 64, &nr) == 0 && nr == 5 ? 0 : -1, 0);
	other = dev_open();
	ev[0] = (struct pmuscope_event){ .event = EV_SW_INCR, .flags = ALL_EL };
	expect("another session: all counters busy", configure(other, ev, 1, 1), -EBUSY);
	close(other);

	tap(set_online(1, 0) == 0, "cpu1 offline");
	CFG_RESET(); cpus = 2;			CFG_EXPECT("offline CPU", -ENXIO);
	/* The tests after this one expect both CPUs. */
	tap(set_online(1, 1) == 0, "cpu1 online again");

	expect("CONFIG without CAP_PERFMON (uid 65534)", configure_as_nobody(NULL, 0), -EPERM);

	ev[0] = (struct pmuscope_event){ .event = EV_SW_INCR, .flags = ALL_EL };
	expect("CONFIG 1 SW_INCR", configure(fd, ev, 1, 1), 0);
	expect("ENABLE", xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL), 0);
	expect("CONFIG while enabled", configure(fd, ev, 1, 1), -EBUSY);

	/* READ */
	memset(&rd, 0, sizeof(rd));
	rd.size = 8;
	expect("READ size below version 1", xioctl(fd, PMUSCOPE_IOC_READ, &rd), -EINVAL);
	memset(&rd, 0, sizeof(rd));
	rd = (struct pmuscope_read){ .size = sizeof(rd), .flags = 2,
				     .values = (uintptr_t)vals, .nr_values = 64 };
	expect("READ unknown flag", xioctl(fd, PMUSCOPE_IOC_READ, &rd), -EINVAL);
	rd.flags = 0;
	rd.value_size = 44;
	expect("READ value_size not in words", xioctl(fd, PMUSCOPE_IOC_READ, &rd), -EINVAL);
	rd.value_size = 0;
	rd.reserved[0] = 1;
	expect("READ reserved set", xioctl(fd, PMUSCOPE_IOC_READ, &rd), -EINVAL);
	rd.reserved[0] = 0;
	rd.nr_values = 0;
	ret = xioctl(fd, PMUSCOPE_IOC_READ, &rd);
	expect("READ with no room", ret, -ENOSPC);
	tap(rd.nr_values == 1, "READ with no room reports the values needed (%u)", rd.nr_values);
	rd.nr_values = 64;
	rd.values = 8;
	expect("READ bad values pointer", xioctl(fd, PMUSCOPE_IOC_READ, &rd), -EFAULT);

	/* SWINC */
#define SW_RESET() (sw = (struct pmuscope_swinc){ .size = sizeof(sw), .event_mask = 1, .cpu = 0, .count = 1 })
#define SW_EXPECT(what, want) expect("SWINC " what, xioctl(fd, PMUSCOPE_IOC_SWINC, &sw), want)
	SW_RESET();				SW_EXPECT("valid", 0);
	SW_RESET(); sw.size = 4;		SW_EXPECT("size below version 1", -EINVAL);
	SW_RESET(); sw.flags = 1;		SW_EXPECT("unknown flag", -EINVAL);
	SW_RESET(); sw.reserved[0] = 1;		SW_EXPECT("reserved set", -EINVAL);
	SW_RESET(); sw.count = 0;		SW_EXPECT("count 0", -EINVAL);
	SW_RESET(); sw.count = 4097;		SW_EXPECT("count above 4096", -EINVAL);
	SW_RESET(); sw.event_mask = 0;		SW_EXPECT("empty event mask", -EINVAL);
	SW_RESET(); sw.event_mask = 2;		SW_EXPECT("event index beyond the configuration", -EINVAL);
	SW_RESET(); sw.cpu = 1;			SW_EXPECT("CPU outside the session", -EINVAL);
	xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
	ev[0] = (struct pmuscope_event){ .event = EV_CPU_CYCLES, .flags = ALL_EL };
	configure(fd, ev, 1, 1);
	SW_RESET();				SW_EXPECT("event is not SW_INCR", -EINVAL);
	ev[0] = (struct pmuscope_event){ .event = EV_SW_INCR, .flags = PMUSCOPE_EV_EL0 };
	configure(fd, ev, 1, 1);
	SW_RESET();				SW_EXPECT("SW_INCR not counting at EL1", -EINVAL);

	/* The witness came through untouched. */
	expect("witness still counts", swinc(witness, 1, 0, 10), 0);
	ret = read_values(witness, vals, 64, &nr);
	tap(!ret && nr == 1 && vals[0].count == 10 && vals[0].flags == 0,
	    "witness: exactly its 10 increments (count %llu, flags %#x)",
	    vals[0].count, vals[0].flags);
	close(fd);
	close(witness);
}

/* ------------------------------------------------------------- swinc */
static void test_swinc(void)
{
	struct pmuscope_event ev[3] = {
		{ .event = EV_SW_INCR, .flags = ALL_EL },
		{ .event = EV_SW_INCR, .flags = ALL_EL },
		{ .event = EV_CPU_CYCLES, .flags = ALL_EL },
	};
	struct pmuscope_value vals[64];
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int fd = dev_open(), cpu, ok = 1;
	unsigned int nr, i;

	expect("CONFIG 2x SW_INCR + CPU_CYCLES on all CPUs", configure(fd, ev, 3, cpus_all()), 0);
	swinc(fd, 1, 0, 5);	/* not enabled yet: not counted */
	expect("ENABLE", xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL), 0);
	for (cpu = 0; cpu < ncpu; cpu++) {
		swinc(fd, 1, cpu, 1000 + cpu);
		swinc(fd, 3, cpu, 4096);
		swinc(fd, 2, cpu, 7);
	}
	expect("DISABLE", xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL), 0);
	swinc(fd, 3, 0, 100);	/* disabled: not counted */
	expect("READ", read_values(fd, vals, 64, &nr), 0);
	tap(nr == 3u * ncpu, "READ returns 3 values per CPU (%u)", nr);
	for (i = 0; i < nr; i++) {
		unsigned long long want = vals[i].index == 0 ? 1000 + vals[i].cpu + 4096 :
				vals[i].index == 1 ? 4096 + 7 : vals[i].count;

		if (vals[i].count != want || vals[i].flags ||
		    vals[i].time_enabled != vals[i].time_running ||
		    (vals[i].index == 2 && (vals[i].count == 0 || vals[i].counter != 31))) {
			ok = 0;
			diag("cpu%u index %u counter %u: count %llu want %llu"
			     " flags %#x enabled %llu running %llu",
			     vals[i].cpu, vals[i].index, vals[i].counter, vals[i].count,
			     want, vals[i].flags, vals[i].time_enabled, vals[i].time_running);
		}
	}
	tap(ok, "SW_INCR counts exactly the increments made while enabled, on every CPU; CPU_CYCLES on the cycle counter");
	expect("RESET", xioctl(fd, PMUSCOPE_IOC_RESET, NULL), 0);
	read_values(fd, vals, 64, &nr);
	tap(vals[0].count == 0 && vals[1].count == 0 && vals[0].time_enabled == 0,
	    "RESET zeroes counts and times");
	close(fd);
}

/* ------------------------------------------------------------- sessions */
static void test_sessions(void)
{
	struct pmuscope_event sw = { .event = EV_SW_INCR, .flags = ALL_EL };
	struct pmuscope_event six[6];
	struct pmuscope_value v[64];
	int a = dev_open(), b, c, i;
	unsigned int nr;

	for (i = 0; i < 6; i++)
		six[i] = sw;
	expect("session A: SW_INCR on cpu0", configure(a, &sw, 1, 1), 0);
	xioctl(a, PMUSCOPE_IOC_ENABLE, NULL);
	swinc(a, 1, 0, 100);
	b = dev_open();
	expect("session B takes the 5 other event counters", configure(b, six, 5, 1), 0);
	xioctl(b, PMUSCOPE_IOC_ENABLE, NULL);
	swinc(b, 0x1f, 0, 50);
	swinc(a, 1, 0, 11);
	close(b);
	c = dev_open();
	expect("after B closed, C gets its counters", configure(c, six, 5, 1), 0);
	close(c);
	read_values(a, v, 64, &nr);
	tap(v[0].count == 111 && !v[0].flags,
	    "session A unaffected by B and C (count %llu)", v[0].count);
	close(a);
}

/* ------------------------------------------------------------- hotplug */
static void test_hotplug(void)
{
	struct pmuscope_event ev[2] = {
		{ .event = EV_SW_INCR, .flags = ALL_EL },
		{ .event = EV_CPU_CYCLES, .flags = ALL_EL },
	};
	struct pmuscope_value v[8], off[8];
	int fd = dev_open();
	unsigned int nr;

	expect("CONFIG SW_INCR + CPU_CYCLES on cpu0 and cpu1", configure(fd, ev, 2, 3), 0);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	swinc(fd, 1, 1, 100);
	tap(set_online(1, 0) == 0, "cpu1 offline");
	read_values(fd, off, 8, &nr);
	tap(off[2].count == 100 && (off[2].flags & PMUSCOPE_VAL_OFFLINE),
	    "cpu1 offline: SW_INCR kept 100 (%llu), flagged offline (%#x)",
	    off[2].count, off[2].flags);
	expect("SWINC on the offline CPU", swinc(fd, 1, 1, 1), -ENXIO);
	usleep(20000);
	read_values(fd, v, 8, &nr);
	tap(v[3].count == off[3].count && v[3].time_enabled == off[3].time_enabled,
	    "cpu1 offline: cycles and times frozen");
	tap(set_online(1, 1) == 0, "cpu1 online");
	swinc(fd, 1, 1, 50);
	pin(1);
	for (volatile int i = 0; i < 1000000; i++)
		;
	read_values(fd, v, 8, &nr);
	tap(v[2].count == 150 && !(v[2].flags & PMUSCOPE_VAL_OFFLINE),
	    "cpu1 back online: SW_INCR continues 100 + 50 = %llu", v[2].count);
	tap(v[3].count > off[3].count, "cpu1 back online: cycles count again (%llu > %llu)",
	    v[3].count, off[3].count);
	close(fd);
}

/* --------------------------------------------------------------- exact */
static void __attribute__((noinline)) loop(unsigned long n)
{
	/* 2 instructions per iteration: subs, b.ne. */
	asm volatile("1: subs %0, %0, #1\n"
		     "   b.ne 1b\n" : "+r"(n) : : "cc");
}

static unsigned long long count_loop(int fd, unsigned long n)
{
	struct pmuscope_value v[4];
	unsigned int nr;

	xioctl(fd, PMUSCOPE_IOC_RESET, NULL);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	loop(n);
	xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
	read_values(fd, v, 4, &nr);
	return v[0].count;
}

static long switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * The session counts every EL0 instruction of CPU 0, not only this task's:
 * if this task is switched out while it counts, another task's EL0 code
 * (say the shell that forked it, preempted between fork and wait) is
 * counted too, correctly. A measurement during which this task kept the
 * only CPU (-smp 1) from before ENABLE to after DISABLE is undisturbed and
 * must be exact; a disturbed one is measured again. *retries counts those.
 */
static unsigned long long count_loop_alone(int fd, unsigned long n, unsigned int *retries)
{
	for (unsigned int i = 0; i < 50; i++) {
		long s = switches();
		unsigned long long c = count_loop(fd, n);

		if (switches() == s)
			return c;
		diag("loop(%lu) = %llu while this task was switched out: measured again", n, c);
		(*retries)++;
	}
	return 0;
}

static void test_exact(unsigned long n1, unsigned long n2)
{
	struct pmuscope_event ev = { .event = EV_INST_RETIRED, .flags = PMUSCOPE_EV_EL0 };
	unsigned long long c1[3], c2[3];
	unsigned int retries = 0, i, same = 1;
	int fd = dev_open();
	long long o1, o2;

	pin(0);
	if (qemu_only("INST_RETIRED counts only under -icount, one count for all vCPUs: an exact per-CPU count needs -smp 1"))
		tap(sysconf(_SC_NPROCESSORS_ONLN) == 1, "one vCPU");
	expect("CONFIG INST_RETIRED:u on cpu0", configure(fd, &ev, 1, 1), 0);
	count_loop(fd, 10);	/* warm up: fault in the code and the stack */
	for (i = 0; i < 3; i++) {
		c1[i] = count_loop_alone(fd, n1, &retries);
		c2[i] = count_loop_alone(fd, n2, &retries);
		diag("INST_RETIRED:u, run %u: loop(%lu) = %llu, loop(%lu) = %llu",
		     i + 1, n1, c1[i], n2, c2[i]);
		same &= c1[i] == c1[0] && c2[i] == c2[0];
	}
	o1 = (long long)(c1[0] - 2 * n1);
	o2 = (long long)(c2[0] - 2 * n2);
	diag("overhead beyond 2 instructions per iteration: %lld and %lld; %u disturbed measurements repeated",
	     o1, o2, retries);
	tap(c1[0] && c2[0] && c2[0] - c1[0] == 2 * (n2 - n1),
	    "INST_RETIRED:u difference of two loops = 2 x (%lu - %lu) exactly (%llu)",
	    n2, n1, c2[0] - c1[0]);
	tap(same && o1 == o2 && o1 >= 0 && o1 < 64,
	    "fixed EL0 entry/exit overhead: %lld instructions, the same in every undisturbed run", o1);
	close(fd);
}

/* ---------------------------------------------------------------- tasks */
static int configure_task(int fd, const struct pmuscope_event *evs, unsigned int nr,
			  int pid, unsigned int flags)
{
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .nr_events = nr, .events = (uintptr_t)evs,
		.target = PMUSCOPE_TARGET_TASK, .pid = pid, .flags = flags,
	};

	return xioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg);
}

/*
 * perf_event_open() on this thread: INST_RETIRED at EL0, the real peer.
 * perf's PMU driver where it is there (perf backend); else pmuscope's own
 * PMU, which the direct backend registers with perf (its type in sysfs).
 */
static int perf_open_insts(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE, .size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	FILE *f;

	if (fd >= 0 || errno != ENOENT)
		return fd;
	f = fopen("/sys/bus/event_source/devices/pmuscope/type", "r");
	if (!f || fscanf(f, "%u", &attr.type) != 1) {
		if (f)
			fclose(f);
		errno = ENOENT;
		return -1;
	}
	fclose(f);
	attr.config = EV_INST_RETIRED;
	diag("perf_event_open() peer on pmuscope's own perf PMU (type %u)", attr.type);
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * This thread as a task target, and a perf_event_open() counter on it at
 * the same time: both count a loop's EL0 instructions, both exactly (the
 * difference of two loop lengths), neither disturbed by the other. The
 * task target follows this thread only: no retry needed when it is
 * switched out (compare test_exact, which counts a CPU).
 */
static void test_task(unsigned long n1, unsigned long n2)
{
	struct pmuscope_event ev = { .event = EV_INST_RETIRED, .flags = PMUSCOPE_EV_EL0 };
	unsigned long long c[2], p[2], pc;
	struct pmuscope_value v[2];
	int fd = dev_open(), pfd = perf_open_insts();
	unsigned long n[2] = { n1, n2 };
	unsigned int nr, i;

	expect("CONFIG task target: this thread, INST_RETIRED:u",
	       configure_task(fd, &ev, 1, 0, 0), 0);
	tap(pfd >= 0, "perf_event_open() instructions:u on this thread (%s)",
	    pfd >= 0 ? "ok" : strerror(errno));
	for (i = 0; i < 2; i++) {
		loop(10);	/* warm up */
		xioctl(fd, PMUSCOPE_IOC_RESET, NULL);
		ioctl(pfd, PERF_EVENT_IOC_RESET, 0);
		ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0);
		xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
		loop(n[i]);
		xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
		ioctl(pfd, PERF_EVENT_IOC_DISABLE, 0);
		read_values(fd, v, 2, &nr);
		c[i] = v[0].count;
		p[i] = read(pfd, &pc, sizeof(pc)) == sizeof(pc) ? pc : 0;
		diag("loop(%lu): pmuscope %llu, perf_event_open %llu (cpu field %#x, flags %#x)",
		     n[i], c[i], p[i], v[0].cpu, v[0].flags);
	}
	tap(nr == 1 && v[0].cpu == PMUSCOPE_CPU_ANY && v[0].counter == PMUSCOPE_COUNTER_NONE,
	    "one value per event for a task: cpu PMUSCOPE_CPU_ANY, counter NONE");
	tap(c[1] - c[0] == 2 * (n2 - n1), "pmuscope task target: loop(%lu) - loop(%lu) = %llu exactly",
	    n2, n1, c[1] - c[0]);
	tap(p[1] - p[0] == 2 * (n2 - n1),
	    "perf_event_open peer at the same time: loop(%lu) - loop(%lu) = %llu exactly",
	    n2, n1, p[1] - p[0]);
	expect("SWINC on a task target", swinc(fd, 1, 0, 1), -EOPNOTSUPP);
	close(pfd);
	close(fd);
}

/* CONFIG a task target as uid 65534 (no capabilities): -errno. */
static int configure_task_as_nobody(int pid, unsigned int flags)
{
	struct pmuscope_event ev = { .event = EV_CPU_CYCLES, .flags = flags };
	int status;
	pid_t child = fork();

	if (child == 0) {
		int fd = dev_open();

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(99);
		_exit(-configure_task(fd, &ev, 1, pid, 0));
	}
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -999;
}

/*
 * As nobody: a process of nobody's own (a child that waits on a pipe;
 * not dumpable if @undumpable) counted by its parent, also nobody: 0 or
 * what CONFIG returned, negated. The child says on a second pipe that
 * its state is set, before the parent configures.
 */
static int configure_own_child_as_nobody(int undumpable)
{
	struct pmuscope_event ev = { .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 };
	int status;
	pid_t child = fork();

	if (child == 0) {
		int fd = dev_open(), hold[2], ready[2], ret;
		pid_t own;
		char c = 0;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534) || pipe(hold) ||
		    pipe(ready))
			_exit(99);
		own = fork();
		if (own == 0) {
			close(hold[1]);
			close(ready[0]);
			/*
			 * Dumpable as a user's process after its exec would be
			 * (the setuid() above made the parent's mm, copied here,
			 * not dumpable: suid_dumpable 0), or made not so.
			 */
			if (prctl(PR_SET_DUMPABLE, !undumpable, 0, 0, 0))
				_exit(98);
			if (write(ready[1], &c, 1) != 1)
				_exit(97);
			/* Until the parent has configured and closed its end. */
			while (read(hold[0], &c, 1) > 0)
				;
			_exit(0);
		}
		close(hold[0]);
		close(ready[1]);
		if (read(ready[0], &c, 1) != 1)
			_exit(96);
		ret = configure_task(fd, &ev, 1, own, 0);
		close(hold[1]);
		waitpid(own, NULL, 0);
		_exit(-ret);
	}
	waitpid(child, &status, 0);
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -999;
}

/* The module parameter task_ours (pmuscope.ko's, or pmuscope_emu.ko's): 0 or -errno. */
static int set_task_ours(const char *v)
{
	static const char *const paths[] = {
		"/sys/module/pmuscope/parameters/task_ours",
		"/sys/module/pmuscope_emu/parameters/task_ours",
	};

	for (unsigned int i = 0; i < 2; i++) {
		int fd = open(paths[i], O_WRONLY);
		ssize_t n;

		if (fd < 0)
			continue;
		n = write(fd, v, strlen(v));
		close(fd);
		return n == (ssize_t)strlen(v) ? 0 : -errno;
	}
	return -ENOENT;
}

static void test_taskperm(void)
{
	struct pmuscope_event ev = { .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 };
	int fd = dev_open();
	pid_t other;

	expect("unprivileged: its own thread at EL0", configure_task_as_nobody(0, PMUSCOPE_EV_EL0), 0);
	expect("unprivileged: its own thread with kernel events",
	       configure_task_as_nobody(0, ALL_EL), -EACCES);
	/* The default: another process only with CAP_PERFMON. */
	expect("task_ours=0", set_task_ours("0"), 0);
	expect("unprivileged, task_ours=0: another user's task (pid 1)",
	       configure_task_as_nobody(1, PMUSCOPE_EV_EL0), -EPERM);
	expect("unprivileged, task_ours=0: a process of its own",
	       configure_own_child_as_nobody(0), -EPERM);
	/* The administrator's grant: perf's rule without its LSM check. */
	expect("task_ours=1", set_task_ours("1"), 0);
	expect("unprivileged, task_ours=1: another user's task (pid 1)",
	       configure_task_as_nobody(1, PMUSCOPE_EV_EL0), -EACCES);
	expect("unprivileged, task_ours=1: a process of its own, as perf_event_open()",
	       configure_own_child_as_nobody(0), 0);
	expect("unprivileged, task_ours=1: a process of its own that is not dumpable",
	       configure_own_child_as_nobody(1), -EACCES);
	expect("task_ours back to 0", set_task_ours("0"), 0);
	/*
	 * Another user's process, not pid 1: on Linux 6.1, a task context
	 * that held an event of pmuscope's own PMU (the direct backend)
	 * keeps a pointer to it until the task exits, which pid 1 never
	 * does: pmuscope would stay pinned, rmmod refused, until a reboot
	 * (Documentation/pmuscope.rst, "Unloading on Linux 6.1").
	 */
	other = fork();
	if (other == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(99);
		for (;;)
			pause();
	}
	expect("root: another user's process, and the threads it makes",
	       configure_task(fd, &ev, 1, other, PMUSCOPE_CFG_INHERIT), 0);
	expect("root: a thread that does not exist", configure_task(fd, &ev, 1, 999999, 0), -ESRCH);
	close(fd);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
}

/*
 * Multiplexing: 3x as many events as the CPU has counters, CPU_CYCLES and
 * INST_RETIRED alternately, on this thread running a steady loop. Every
 * scaled count is within 1% of the unmultiplexed count, each event ran
 * part of the time only, flagged, and at most as many events as counters
 * ran at any time.
 */
static void test_mux(unsigned long n)
{
	struct pmuscope_event ev[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_value v[PMUSCOPE_MAX_EVENTS];
	unsigned long long ref[2];
	unsigned int nr, i, counters, nev, ok = 1, flagged = 1;
	double share = 0;
	int fd = dev_open();
	FILE *f = fopen("/sys/kernel/pmuscope/cpu0/num_event_counters", "r");

	if (!f || fscanf(f, "%u", &counters) != 1)
		counters = 6;
	if (f)
		fclose(f);
	counters += 1;	/* the cycle counter */
	nev = 3 * counters > PMUSCOPE_MAX_EVENTS ? PMUSCOPE_MAX_EVENTS : 3 * counters;
	for (i = 0; i < nev; i++)
		ev[i] = (struct pmuscope_event){
			.event = i % 2 ? EV_INST_RETIRED : EV_CPU_CYCLES,
			.flags = PMUSCOPE_EV_EL0,
		};

	expect("CONFIG 2 events, this thread", configure_task(fd, ev, 2, 0, 0), 0);
	loop(1000);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	loop(n);
	xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
	read_values(fd, v, 2, &nr);
	ref[0] = v[0].count;
	ref[1] = v[1].count;
	tap(!(v[0].flags & PMUSCOPE_VAL_MULTIPLEXED) && v[0].time_running == v[0].time_enabled,
	    "2 events: not multiplexed (running %llu of %llu ns)", v[0].time_running,
	    v[0].time_enabled);

	expect("CONFIG 3x as many events as counters, this thread",
	       configure_task(fd, ev, nev, 0, 0), 0);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	loop(n);
	xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
	read_values(fd, v, nev, &nr);
	for (i = 0; i < nr; i++) {
		unsigned long long want = ref[i % 2];
		double scaled = v[i].time_running ?
			(double)v[i].count * v[i].time_enabled / v[i].time_running : 0;
		double err = want ? (scaled - want) / want : 1;

		diag("event %u (%s): raw %llu, running %llu of %llu ns, scaled %.0f (%+.3f%%)",
		     i, i % 2 ? "INST_RETIRED" : "CPU_CYCLES", v[i].count, v[i].time_running,
		     v[i].time_enabled, scaled, 100 * err);
		ok &= err < 0.01 && err > -0.01;
		flagged &= !!(v[i].flags & PMUSCOPE_VAL_MULTIPLEXED) &&
			   v[i].time_running < v[i].time_enabled;
		share += v[i].time_enabled ? (double)v[i].time_running / v[i].time_enabled : 0;
	}
	tap(nr == nev, "%u values for %u events", nr, nev);
	tap(ok, "every scaled count within 1%% of the unmultiplexed count");
	tap(flagged, "every event ran part of the time only and is flagged multiplexed");
	/* At most one event per counter at any time; perf keeps them busy. */
	tap(share <= counters + 0.01 && share >= 0.5 * counters,
	    "the events' running/enabled shares sum to %.3f, with %u counters", share, counters);
	close(fd);
}

/* Every value of @v[0..@n) zero: count, times and flags. */
static int all_zero(const struct pmuscope_value *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (v[i].count || v[i].time_enabled || v[i].time_running || v[i].flags)
			return 0;
	return 1;
}

/*
 * RESET of the sessions perf events count (either backend): a task, and
 * more events than cpu0 has counters (multiplexed). The documented rule:
 * counts, flags and times go to zero; the flags come back as what they
 * say happens again.
 */
static void test_preset(void)
{
	struct pmuscope_event ev[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_value v[PMUSCOPE_MAX_EVENTS];
	unsigned int nr, i, n = cpu0_value("num_event_counters"), mux, flagged;
	int fd = dev_open();

	ev[0] = (struct pmuscope_event){ .event = EV_CPU_CYCLES, .flags = ALL_EL };
	expect("CONFIG task target: this thread, CPU_CYCLES", configure_task(fd, ev, 1, 0, 0), 0);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	for (volatile int k = 0; k < 1000000; k++)
		;
	xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
	read_values(fd, v, 1, &nr);
	tap(v[0].count && v[0].time_enabled && v[0].time_running,
	    "task: counted %llu in %llu ns", v[0].count, v[0].time_enabled);
	expect("task: RESET", xioctl(fd, PMUSCOPE_IOC_RESET, NULL), 0);
	read_values(fd, v, 1, &nr);
	tap(all_zero(v, 1), "task, disabled, after RESET: count %llu, enabled %llu, running %llu, "
	    "flags %#x: all 0", v[0].count, v[0].time_enabled, v[0].time_running, v[0].flags);
	close(fd);

	fd = dev_open();
	mux = n + 2 > PMUSCOPE_MAX_EVENTS ? PMUSCOPE_MAX_EVENTS : n + 2;
	for (i = 0; i < mux; i++)
		ev[i] = (struct pmuscope_event){ .event = EV_CPU_CYCLES, .flags = ALL_EL };
	expect("CONFIG more events than cpu0 has counters, on cpu0", configure(fd, ev, mux, 1), 0);
	pin(0);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	for (volatile int k = 0; k < 20000000; k++)
		;
	xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
	read_values(fd, v, mux, &nr);
	for (i = 0, flagged = 0; i < nr; i++)
		flagged += !!(v[i].flags & PMUSCOPE_VAL_MULTIPLEXED);
	tap(nr == mux && flagged, "multiplexed: %u of %u values flagged MULTIPLEXED (value 0: "
	    "running %llu of %llu ns)", flagged, nr, v[0].time_running, v[0].time_enabled);
	expect("multiplexed: RESET", xioctl(fd, PMUSCOPE_IOC_RESET, NULL), 0);
	read_values(fd, v, mux, &nr);
	tap(all_zero(v, nr), "multiplexed, disabled, after RESET: every count, time and flag 0 "
	    "(value 0: count %llu, enabled %llu, running %llu, flags %#x)",
	    v[0].count, v[0].time_enabled, v[0].time_running, v[0].flags);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	for (volatile int k = 0; k < 20000000; k++)
		;
	xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
	read_values(fd, v, mux, &nr);
	for (i = 0, flagged = 0; i < nr; i++)
		flagged += !!(v[i].flags & PMUSCOPE_VAL_MULTIPLEXED) &&
			   v[i].time_running < v[i].time_enabled;
	tap(flagged && v[0].time_enabled, "multiplexed again after RESET: %u values flagged, "
	    "value 0 enabled %llu ns", flagged, v[0].time_enabled);
	close(fd);
}

/* A child spinning at EL0 until killed. */
static pid_t spinner(void)
{
	pid_t pid = fork();

	if (pid == 0)
		for (;;)
			asm volatile("" ::: "memory");
	return pid;
}

static unsigned long long read_count(int fd)
{
	struct pmuscope_value v;
	unsigned int nr;

	read_values(fd, &v, 1, &nr);
	return v.count;
}

/*
 * An INHERIT task session of this thread, CPU_CYCLES:u: children it forks
 * spin at EL0 while it sleeps, so what READ gives is theirs. A child born
 * before the first ENABLE is counted once enabled; DISABLE stops what a
 * child born while enabled counted; RESET zeroes it; ENABLE again counts
 * every child again.
 */
static void test_inherit(void)
{
	struct pmuscope_event ev = { .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_EL0 };
	struct pmuscope_value v;
	unsigned long long a, b;
	int fd = dev_open();
	unsigned int nr;
	pid_t c1, c2, c3;

	expect("CONFIG task target: this thread, INHERIT, CPU_CYCLES:u",
	       configure_task(fd, &ev, 1, 0, PMUSCOPE_CFG_INHERIT), 0);
	c1 = spinner();			/* born after CONFIG, before ENABLE */
	usleep(30000);
	a = read_count(fd);
	tap(a == 0, "not enabled yet: a child spinning 30 ms counted nothing (%llu)", a);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	usleep(30000);
	b = read_count(fd);
	tap(b > 1000000, "enabled: the child born before ENABLE counts (%llu in 30 ms)", b);
	/*
	 * Born while enabled: two, as perf may swap the thread's context
	 * with a child's that is its clone at a switch (its counter then
	 * counts that child): DISABLE of it alone misses the other.
	 */
	c2 = spinner();
	c3 = spinner();
	usleep(30000);
	xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
	a = read_count(fd);
	usleep(30000);
	b = read_count(fd);
	tap(a == b, "DISABLE stops the children's counts: %llu, then %llu 30 ms later", a, b);
	expect("RESET", xioctl(fd, PMUSCOPE_IOC_RESET, NULL), 0);
	usleep(10000);
	read_values(fd, &v, 1, &nr);
	tap(all_zero(&v, 1), "disabled, after RESET: count %llu, enabled %llu, running %llu, "
	    "flags %#x: all 0", v.count, v.time_enabled, v.time_running, v.flags);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	usleep(30000);
	a = read_count(fd);
	tap(a > 1000000, "ENABLE again: the children count again (%llu in 30 ms)", a);
	/*
	 * The children stopped (their stop seen) while RESET is checked:
	 * on a busy host this thread may wait for a CPU between RESET and
	 * READ for longer than the 30 ms the count before it took (CI:
	 * 65,928,678 after RESET against 63,410,941 before). Still enabled.
	 */
	kill(c1, SIGSTOP);
	kill(c2, SIGSTOP);
	kill(c3, SIGSTOP);
	waitpid(c1, NULL, WUNTRACED);
	waitpid(c2, NULL, WUNTRACED);
	waitpid(c3, NULL, WUNTRACED);
	a = read_count(fd);
	expect("RESET while enabled", xioctl(fd, PMUSCOPE_IOC_RESET, NULL), 0);
	b = read_count(fd);
	tap(b < a, "enabled, after RESET: counting from zero again (%llu < %llu)", b, a);
	kill(c1, SIGKILL);
	kill(c2, SIGKILL);
	kill(c3, SIGKILL);
	waitpid(c1, NULL, 0);
	waitpid(c2, NULL, 0);
	waitpid(c3, NULL, 0);
	xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
	a = read_count(fd);
	usleep(10000);
	tap(read_count(fd) == a, "the children gone, disabled: %llu held", a);
	close(fd);
}

/* perf backend: CPU counters across CPU 1 offline/online, totals carried. */
static void test_photplug(void)
{
	struct pmuscope_event ev = { .event = EV_CPU_CYCLES, .flags = ALL_EL };
	struct pmuscope_value v[2], off[2];
	int fd = dev_open();
	unsigned int nr;

	expect("CONFIG CPU_CYCLES on cpu0 and cpu1", configure(fd, &ev, 1, 3), 0);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	pin(1);
	for (volatile int i = 0; i < 1000000; i++)
		;
	pin(0);
	tap(set_online(1, 0) == 0, "cpu1 offline");
	read_values(fd, off, 2, &nr);
	tap(off[1].count > 0 && (off[1].flags & PMUSCOPE_VAL_OFFLINE),
	    "cpu1 offline: its count kept (%llu), flagged offline (%#x)", off[1].count,
	    off[1].flags);
	usleep(20000);
	read_values(fd, v, 2, &nr);
	tap(v[1].count == off[1].count, "cpu1 offline: its count frozen");
	tap(set_online(1, 1) == 0, "cpu1 online");
	pin(1);
	for (volatile int i = 0; i < 1000000; i++)
		;
	read_values(fd, v, 2, &nr);
	tap(v[1].count > off[1].count && !(v[1].flags & PMUSCOPE_VAL_OFFLINE),
	    "cpu1 back online: the total continues (%llu > %llu)", v[1].count, off[1].count);
	tap(v[0].count > off[0].count, "cpu0 counted throughout");
	close(fd);
}

/* ---------------------------------------------------------------- wrap */

/* Keep every online CPU busy for @ms: one spinning child pinned to each. */
static void spin_all_cpus(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu;
	pid_t pids[64];

	for (cpu = 0; cpu < ncpu && cpu < 64; cpu++) {
		pids[cpu] = fork();
		if (pids[cpu] == 0) {
			pin(cpu);
			for (;;)
				;
		}
	}
	nanosleep(&ts, NULL);
	for (cpu = 0; cpu < ncpu && cpu < 64; cpu++) {
		if (pids[cpu] > 0) {
			kill(pids[cpu], SIGKILL);
			waitpid(pids[cpu], NULL, 0);
		}
	}
}

static void test_wrap(unsigned int ms, unsigned int min_wraps)
{
	struct pmuscope_event ev[2] = {
		{ .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_ALL_EL },
		{ .event = EV_CPU_CYCLES, .flags = PMUSCOPE_EV_ALL_EL },
	};
	struct pmuscope_value v[64];
	int fd = dev_open(), ok = 1;
	unsigned int nr, i;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	expect("CONFIG CPU_CYCLES twice on all CPUs", configure(fd, ev, 2, cpus_all()), 0);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	if (qemu_only("CPU_CYCLES counts while a CPU sleeps in WFI (QEMU's cycle counter follows its virtual clock, which -icount warps through idle time): sleeping makes the counters wrap"))
		nanosleep(&ts, NULL);
	else	/* a Cortex-A53 does not count cycles in WFI */
		spin_all_cpus(ms);
	xioctl(fd, PMUSCOPE_IOC_DISABLE, NULL);
	read_values(fd, v, 64, &nr);
	for (i = 0; i + 1 < nr; i += 2) {
		struct pmuscope_value *cc = v[i].counter == 31 ? &v[i] : &v[i + 1];
		struct pmuscope_value *ec = v[i].counter == 31 ? &v[i + 1] : &v[i];
		long long diff = (long long)(ec->count - cc->count);

		printf("pmuscope-wrap: profile=%s cpu=%u event_counter=%llu"
		       " cycle_counter=%llu difference=%lld"
		       " wraps=%.2f flags=%#x/%#x\n", profile ? profile : "?", cc->cpu,
		       ec->count, cc->count, diff, ec->count / 4294967296.0,
		       ec->flags, cc->flags);
		if (ec->count < (unsigned long long)min_wraps << 32 || diff > 1000000 ||
		    diff < -1000000 || ec->flags || cc->flags || cc->counter != 31)
			ok = 0;
	}
	tap(ok, "CPU_CYCLES on an event counter and on the cycle counter agree across >= %u wraps",
	    min_wraps);
	close(fd);
}

/*
 * Counts survive a real cpu_pm save/restore: pmuscope_cpupm.ko runs
 * cpu_pm_enter()/cpu_pm_exit() on every CPU while we count.
 */
static void test_cpupm(void)
{
	struct pmuscope_event ev[2] = {
		{ .event = EV_SW_INCR, .flags = ALL_EL },
		{ .event = EV_CPU_CYCLES, .flags = ALL_EL },
	};
	struct pmuscope_value a[16], b[16];
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), fd = dev_open(), ok = 1;
	unsigned int nr, i;

	expect("CONFIG SW_INCR + CPU_CYCLES on all CPUs", configure(fd, ev, 2, cpus_all()), 0);
	xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
	for (int cpu = 0; cpu < ncpu; cpu++)
		swinc(fd, 1, cpu, 100);
	read_values(fd, a, 16, &nr);
	tap(system("insmod /lib/modules/pmuscope_cpupm.ko") == 0,
	    "cpu_pm_enter/cpu_pm_exit on every CPU (pmuscope_cpupm.ko)");
	for (int cpu = 0; cpu < ncpu; cpu++)
		swinc(fd, 1, cpu, 50);
	read_values(fd, b, 16, &nr);
	for (i = 0; i < nr; i++) {
		int good = b[i].index == 0 ? b[i].count == 150 :
			   b[i].count > a[i].count;

		if (!good || b[i].flags) {
			ok = 0;
			diag("cpu%u index %u: %llu -> %llu, flags %#x", b[i].cpu, b[i].index,
			     a[i].count, b[i].count, b[i].flags);
		}
	}
	tap(ok, "counts carried across the PMU save/restore: SW_INCR 100 + 50, cycles go on, no flags");
	system("rmmod pmuscope_cpupm");
	close(fd);
}

/*
 * Loaded with group=GID: a member without CAP_PERFMON may count at EL0
 * only; what the kernel (or EL2) executes needs CAP_PERFMON.
 */
static void test_group(unsigned int gid)
{
	gid_t groups[1] = { gid };

	expect("CONFIG :u as uid 65534 in the group parameter's group",
	       configure_as_nobody_at(groups, 1, PMUSCOPE_EV_EL0), 0);
	expect("CONFIG :uk (the default) as a group member: needs CAP_PERFMON",
	       configure_as_nobody_at(groups, 1, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1), -EACCES);
	expect("CONFIG :k as a group member", configure_as_nobody_at(groups, 1, kernel_flag),
	       -EACCES);
	expect("CONFIG EL1 as a group member",
	       configure_as_nobody_at(groups, 1, PMUSCOPE_EV_EL1), -EACCES);
	expect("CONFIG :uh (EL2) as a group member",
	       configure_as_nobody_at(groups, 1, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL2), -EACCES);
	expect("CONFIG :u as uid 65534 outside that group",
	       configure_as_nobody_at(NULL, 0, PMUSCOPE_EV_EL0), -EPERM);
}

/* The id of the session holding counter 0 of cpu0, from sysfs; 0 if none. */
static unsigned int owner_of_counter0(void)
{
	unsigned int id = 0;
	FILE *f = fopen("/sys/kernel/pmuscope/cpu0/counter_owner/0", "r");

	if (f) {
		if (fscanf(f, "session %u", &id) != 1)
			id = 0;
		fclose(f);
	}
	return id;
}

/*
 * Nothing is allocated for a caller who may not count: an open file has
 * no session until its first CONFIG, made once permission is checked.
 * Session ids are given as sessions are created: 10 files opened and
 * refused by someone without CAP_PERFMON use none.
 */
static void test_alloc(void)
{
	struct pmuscope_event ev = { .event = EV_SW_INCR, .flags = ALL_EL };
	unsigned int first, second;
	int fd = dev_open(), status, i;
	pid_t pid;

	expect("CONFIG SW_INCR on cpu0", configure(fd, &ev, 1, 1), 0);
	first = owner_of_counter0();
	close(fd);
	pid = fork();
	if (pid == 0) {
		int fds[10], bad = 0;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(99);
		for (i = 0; i < 10; i++) {
			fds[i] = dev_open();
			bad |= configure(fds[i], &ev, 1, 1) != -EPERM;
			bad |= xioctl(fds[i], PMUSCOPE_IOC_ENABLE, NULL) != -EINVAL;
		}
		for (i = 0; i < 10; i++)
			close(fds[i]);
		_exit(bad);
	}
	waitpid(pid, &status, 0);
	tap(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "uid 65534: 10 files opened, CONFIG refused (EPERM), ENABLE as unconfigured (EINVAL)");
	fd = dev_open();
	expect("CONFIG SW_INCR on cpu0 again", configure(fd, &ev, 1, 1), 0);
	second = owner_of_counter0();
	tap(first && second == first + 1,
	    "no session was made for the refused files (session %u, then %u)", first, second);
	close(fd);
}

/* PMUSCOPE leaves PMUSERENR_EL0 at 0: EL0 access to the PMU traps. */
static void test_el0(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		unsigned long v;

		asm volatile("mrs %0, pmccntr_el0" : "=r"(v));
		_exit(0);
	}
	waitpid(pid, &status, 0);
	tap(WIFSIGNALED(status) && WTERMSIG(status) == SIGILL,
	    "EL0 read of PMCCNTR_EL0 traps (PMUSERENR_EL0 = 0)");
}

/* CONFIG of a task target: pid, flags, nr events. */
static int config_user(int fd, pid_t pid, unsigned int flags,
		       const struct pmuscope_event *evs, unsigned int nr)
{
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .nr_events = nr, .events = (uintptr_t)evs,
		.target = PMUSCOPE_TARGET_TASK, .pid = pid, .flags = flags,
	};

	return xioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg);
}

/* mmap of @fd's user page: 0 or -errno. */
static int map_page(int fd, size_t len, int prot, off_t off)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, len);
	return 0;
}

/* The child of a fork() touches the page: it is not there (VM_DONTCOPY). */
static int child_touches(const volatile struct pmuscope_user_page *pg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		(void)pg->version;
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/*
 * Documentation/ioctl.rst, CONFIG's PMUSCOPE_CFG_USER_* and "mmap(): the
 * user page": each rule once, and that a thread granted EL0 access on a
 * CPU keeps another session off that CPU's counters (before PMUv3p9).
 */
static void test_usermap(void)
{
	struct pmuscope_event ev[PMUSCOPE_MAX_EVENTS];
	const struct pmuscope_user_page *pg;
	unsigned long long feat = dev_features();
	struct pmuscope_event cyc = { .event = EV_CPU_CYCLES, .flags = ALL_EL };
	int fd, fd2, i, ret;
	cpu_set_t cpu0, old;

	for (i = 0; i < PMUSCOPE_MAX_EVENTS; i++)
		ev[i] = (struct pmuscope_event){ .event = EV_SW_INCR, .flags = PMUSCOPE_EV_EL0 };
	fd = dev_open();
	if (feat & PMUSCOPE_FEAT_BACKEND_PERF) {
		tap(!(feat & PMUSCOPE_FEAT_USER_READ), "perf backend: no PMUSCOPE_FEAT_USER_READ");
		expect("perf backend: USER_READ", config_user(fd, 0, PMUSCOPE_CFG_USER_READ, ev, 1),
		       -EOPNOTSUPP);
		close(fd);
		return;
	}
	tap(!!(feat & PMUSCOPE_FEAT_USER_READ), "direct backend: PMUSCOPE_FEAT_USER_READ");
	expect("mmap of a file without a session", map_page(fd, 4096, PROT_READ, 0), -EINVAL);
	expect("USER_SWINC without USER_READ",
	       config_user(fd, 0, PMUSCOPE_CFG_USER_SWINC, ev, 1), -EINVAL);
	expect("USER_READ with INHERIT",
	       config_user(fd, 0, PMUSCOPE_CFG_USER_READ | PMUSCOPE_CFG_INHERIT, ev, 1), -EINVAL);
	expect("USER_READ with ENABLE_ON_EXEC",
	       config_user(fd, 0, PMUSCOPE_CFG_USER_READ | PMUSCOPE_CFG_ENABLE_ON_EXEC, ev, 1),
	       -EINVAL);
	expect("USER_READ for another thread (the parent)",
	       config_user(fd, getppid(), PMUSCOPE_CFG_USER_READ, ev, 1), -EINVAL);
	expect("USER_READ, 32 events: more than the counters",
	       config_user(fd, 0, PMUSCOPE_CFG_USER_READ, ev, PMUSCOPE_MAX_EVENTS), -ENOSPC);
	expect("USER_READ, own thread id", config_user(fd, gettid(), PMUSCOPE_CFG_USER_READ, ev, 1),
	       0);
	close(fd);

	/* A CPU session's file has no page. */
	fd = dev_open();
	expect("CPU session: CONFIG", configure(fd, &cyc, 1, 1), 0);
	expect("mmap of a CPU session", map_page(fd, 4096, PROT_READ, 0), -EINVAL);
	close(fd);

	/* The EL0 session of this thread, on CPU 0. */
	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu0), &cpu0);
	fd = dev_open();
	ev[1] = cyc;
	expect("USER_READ | USER_SWINC, SW_INCR and CPU_CYCLES",
	       config_user(fd, 0, PMUSCOPE_CFG_USER_READ | PMUSCOPE_CFG_USER_SWINC, ev, 2), 0);
	expect("CONFIG again: an EL0 session keeps its configuration",
	       config_user(fd, 0, PMUSCOPE_CFG_USER_READ, ev, 1), -EBUSY);
	expect("mmap at offset 4096", map_page(fd, 4096, PROT_READ, 4096), -EINVAL);
	expect("mmap of two pages", map_page(fd, 8192, PROT_READ, 0), -EINVAL);
	expect("mmap PROT_WRITE", map_page(fd, 4096, PROT_READ | PROT_WRITE, 0), -EPERM);
	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	tap(pg != MAP_FAILED, "mmap PROT_READ: %s", pg == MAP_FAILED ? strerror(errno) : "mapped");
	if (pg == MAP_FAILED) {
		close(fd);
		return;
	}
	ret = mprotect((void *)pg, 4096, PROT_READ | PROT_WRITE);
	tap(ret && errno == EACCES, "mprotect to PROT_WRITE refused (EACCES): %s",
	    ret ? strerror(errno) : "allowed");
	tap(pg->version == PMUSCOPE_USER_PAGE_VERSION && pg->size == sizeof(*pg) && pg->nr == 2,
	    "the page: version %u, size %u, nr %u", pg->version, pg->size, pg->nr);
	tap(pg->cpu == PMUSCOPE_CPU_ANY && pg->ctr[0].index == 0,
	    "not enabled: nothing granted (cpu %d, index %u)", (int)pg->cpu, pg->ctr[0].index);
	tap(child_touches(pg) == SIGSEGV, "a child of fork() has no page");
	expect("ENABLE", xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL), 0);
	tap(pg->cpu == 0 && pg->ctr[0].index && pg->ctr[1].index == PMUSCOPE_USER_CYCLE_INDEX,
	    "enabled, running on CPU 0: granted there (cpu %d, indexes %u %u, PMUSERENR 0x%x)",
	    (int)pg->cpu, pg->ctr[0].index, pg->ctr[1].index, pg->pmuserenr);
	/* UEN (0x20) too from PMUv3p9, where PMUACR_EL1 says which counters. */
	tap((pg->pmuserenr & ~0x20U) == 0xe, "PMUSERENR_EL0 = SW | CR | ER, never EN (0x%x)",
	    pg->pmuserenr);
	/* Another session may not go on CPU 0's counters while this thread runs. */
	fd2 = dev_open();
	/*
	 * Before PMUv3p9 ER opens every counter: CPU 0's are the thread's
	 * until it leaves. From PMUv3p9 (UEN) PMUACR_EL1 opens the thread's
	 * only: another session takes the free ones.
	 */
	if (pg->pmuserenr & 0x20)
		expect("PMUv3p9: a CPU session on the granted CPU 0 (PMUACR_EL1 keeps it closed)",
		       configure(fd2, &cyc, 1, 1), 0);
	else
		expect("a CPU session on the granted CPU 0", configure(fd2, &cyc, 1, 1), -EBUSY);
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
		expect("... and on CPU 1, where this thread is not", configure(fd2, &cyc, 1, 2), 0);
	close(fd2);
	munmap((void *)pg, 4096);
	close(fd);
	fd2 = dev_open();
	expect("the session closed: CPU 0 free again", configure(fd2, &cyc, 1, 1), 0);
	close(fd2);
	sched_setaffinity(0, sizeof(old), &old);
}

static void test_hold(unsigned int secs)
{
	struct pmuscope_event ev[2] = {
		{ .event = EV_SW_INCR, .flags = ALL_EL },
		{ .event = EV_CPU_CYCLES, .flags = ALL_EL },
	};
	int fd = dev_open();

	if (configure(fd, ev, 2, cpus_all()) || xioctl(fd, PMUSCOPE_IOC_ENABLE, NULL))
		exit(1);
	printf("holding\n");
	fflush(stdout);
	sleep(secs);
	close(fd);
}

/* The handshake's PMUSCOPE_FEAT_EMULATED is @want (pmuscope_emu.ko or not). */
static void test_emulated(int want)
{
	struct pmuscope_handshake hs;
	int fd = dev_open();

	memset(&hs, 0, sizeof(hs));
	hs.size = sizeof(hs);
	expect("HANDSHAKE", xioctl(fd, PMUSCOPE_IOC_HANDSHAKE, &hs), 0);
	tap(!!(hs.features & PMUSCOPE_FEAT_EMULATED) == want,
	    "PMUSCOPE_FEAT_EMULATED is %d (features 0x%llx)", want,
	    (unsigned long long)hs.features);
	close(fd);
}

/*
 * Published last: by the time /sys/kernel/pmuscope/cpuN exists, the module
 * has probed every online CPU (the cpuN directories appear one after the
 * other), and /dev/pmuscope is registered after that.
 * A watcher on another CPU spins until the directory appears during
 * insmod and reads what it finds at once.
 */
static int watch_load(int ready_fd)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), fd, cpu, bad = 0;
	char path[96], c;

	pin(ncpu > 1 ? 1 : 0);
	if (write(ready_fd, "r", 1) != 1)
		return 2;
	for (;;) {
		fd = open("/sys/kernel/pmuscope/cpu0/probed", O_RDONLY);
		if (fd >= 0)
			break;
	}
	close(fd);
	/* A directory not there yet is being published: not a CPU unprobed. */
	for (cpu = 0; cpu < ncpu; cpu++) {
		snprintf(path, sizeof(path), "/sys/kernel/pmuscope/cpu%d/probed", cpu);
		fd = open(path, O_RDONLY);
		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0 || read(fd, &c, 1) != 1 || c != '1') {
			printf("pmuscope-tap: # cpu%d/probed read %s while loading\n", cpu,
			       fd < 0 ? strerror(errno) : "0");
			bad = 1;
		}
		if (fd >= 0)
			close(fd);
	}
	return bad;
}

/* rmmod the module of @ko (a path): its file name without ".ko". */
static int rmmod_ko(const char *ko)
{
	const char *base = strrchr(ko, '/');
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rmmod %.*s", (int)strcspn(base ? base + 1 : ko, "."),
		 base ? base + 1 : ko);
	return system(cmd);
}

static void test_loadorder(const char *ko, unsigned int n)
{
	unsigned int i, early = 0, loads = 0;

	for (i = 0; i < n; i++) {
		int pipefd[2], status, ws = 0;
		pid_t watcher, ins;
		char c;

		if (pipe(pipefd))
			break;
		fflush(stdout);
		watcher = fork();
		if (watcher == 0)
			_exit(watch_load(pipefd[1]));
		if (read(pipefd[0], &c, 1) != 1)
			break;
		close(pipefd[0]);
		close(pipefd[1]);
		ins = fork();
		if (ins == 0) {
			execlp("insmod", "insmod", ko, (char *)NULL);
			_exit(127);
		}
		waitpid(ins, &status, 0);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			loads++;
			waitpid(watcher, &ws, 0);
			if (!WIFEXITED(ws) || WEXITSTATUS(ws))
				early++;
		} else {
			kill(watcher, SIGKILL);
			waitpid(watcher, &ws, 0);
		}
		if (rmmod_ko(ko))
			break;
	}
	tap(loads == n, "insmod/rmmod %u times (%u loaded)", n, loads);
	tap(!early, "sysfs never showed an online CPU unprobed while loading (%u of %u loads did)",
	    early, loads);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	sub = argv[1];
	{
		static char tag[48];

		snprintf(tag, sizeof(tag), "pmuscope-test %s", sub);
		tap_tag = tag;
	}
	profile = getenv("pmuscope_profile");
	{
		FILE *f = fopen("/sys/kernel/pmuscope/kernel_el", "r");

		if (f) {
			if (fgetc(f) == '2')
				kernel_flag = PMUSCOPE_EV_EL2;
			fclose(f);
		}
	}
	if (!strcmp(sub, "errors"))
		test_errors();
	else if (!strcmp(sub, "swinc"))
		test_swinc();
	else if (!strcmp(sub, "sessions"))
		test_sessions();
	else if (!strcmp(sub, "hotplug"))
		test_hotplug();
	else if (!strcmp(sub, "exact") && argc == 4)
		test_exact(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	else if (!strcmp(sub, "wrap") && argc == 4)
		test_wrap(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	else if (!strcmp(sub, "group") && argc == 3)
		test_group(strtoul(argv[2], NULL, 0));
	else if (!strcmp(sub, "alloc"))
		test_alloc();
	else if (!strcmp(sub, "cpupm"))
		test_cpupm();
	else if (!strcmp(sub, "el0"))
		test_el0();
	else if (!strcmp(sub, "usermap"))
		test_usermap();
	else if (!strcmp(sub, "task") && argc == 4)
		test_task(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	else if (!strcmp(sub, "taskperm"))
		test_taskperm();
	else if (!strcmp(sub, "mux") && argc == 3)
		test_mux(strtoul(argv[2], NULL, 0));
	else if (!strcmp(sub, "photplug"))
		test_photplug();
	else if (!strcmp(sub, "preset"))
		test_preset();
	else if (!strcmp(sub, "inherit"))
		test_inherit();
	else if (!strcmp(sub, "emulated") && argc == 3)
		test_emulated(atoi(argv[2]));
	else if (!strcmp(sub, "hold") && argc == 3)
		test_hold(strtoul(argv[2], NULL, 0));
	else if (!strcmp(sub, "loadorder") && argc == 4)
		test_loadorder(argv[2], strtoul(argv[3], NULL, 0));
	else
		return 2;
	return tap_failures ? 1 : 0;
}
