// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-faults: every allocation (fault site) that each operation of
 * pmuscope passes through fails once, with the per-task fail-nth of
 * Documentation/fault-injection/fault-injection.rst: for n = 1, 2, ...
 * write n to /proc/self/task/<tid>/fail-nth, run the operation in this
 * thread, read fail-nth back: 0 when the n-th fault site was reached (and
 * failed); otherwise the operation passed fewer than n sites and the
 * scenario is done. After each injected failure: the operation succeeded
 * (the allocation was optional) or failed with an errno its documentation
 * gives; the object (fd, sysfs file) is as documented; the operation works
 * again without injection; and a fresh session still counts (SW_INCR: 100
 * increments read 100; on the perf backend CPU_CYCLES grows).
 *
 *   pmuscope-faults                 the ioctl and sysfs scenarios
 *   pmuscope-faults load KO [K [FIRST [SECONDS]]]
 *                                   finit_module(KO) with every load-path
 *                                   site failing once (no fd may be open);
 *                                   a plain load + check + rmmod after every
 *                                   K-th failed load (default 1; every
 *                                   failed one is checked to leave nothing)
 *                                   and at the end, which leaves the module
 *                                   loaded; from site FIRST, for at most
 *                                   SECONDS (then the rest is a SKIP)
 *
 * Prints "pmuscope-tap: ok - [faults] <scenario>: ..." per scenario and
 * "pmuscope-faults: scenarios=S fault_sites=N failures_injected=F".
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
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuscope.h>

#include "pmuscope-guest.h"

#define DEV		"/dev/pmuscope"
#define SYS		"/sys/kernel/pmuscope"
#define DBG		"/sys/kernel/debug"
#define EV_SW_INCR	0x00
#define EV_INST_RETIRED	0x08
#define EV_CPU_CYCLES	0x11
#define EL01		(PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1)
#define MAX_SITES	20000		/* a scenario with more never ends */
#define SCEN_BUDGET_S	300		/* nor one that takes longer */

static int nth_fd = -1;
/* The load scenario's last K sites only (0: all), of load_sites. */
static unsigned int last_k, load_sites;
static int module_unloaded_between;	/* load scenario: no usable() check */
/* The load scenario may start at a later site and stop at a time budget
 * (it has thousands of sites at about 0.5 s each under TCG and KASAN). */
static unsigned int first_n = 1, budget_s = SCEN_BUDGET_S, budget_is_skip;
static unsigned int nr_scenarios, total_sites, total_failures;
static uint64_t features;



static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}


static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
	return 0;
}

/* ------------------------------------------------------------- fail-nth */

/* This thread's fail-nth, opened once (the open is not under injection). */
static int nth_open(void)
{
	char path[64];

	if (nth_fd >= 0)
		close(nth_fd);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth", (long)syscall(SYS_gettid));
	nth_fd = open(path, O_RDWR);
	return nth_fd < 0 ? -errno : 0;
}

static void nth_set(unsigned int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%u", n);

	if (pwrite(nth_fd, s, len, 0) != len) {
		perror("fail-nth write");
		exit(2);
	}
}

/* fail-nth now, and off (0) after. 0: the n-th site was hit and failed. */
static unsigned int nth_get(void)
{
	char s[16] = "";
	ssize_t n = pread(nth_fd, s, sizeof(s) - 1, 0);

	if (n <= 0) {
		perror("fail-nth read");
		exit(2);
	}
	if (pwrite(nth_fd, "0", 1, 0) != 1) {
		perror("fail-nth reset");
		exit(2);
	}
	return strtoul(s, NULL, 10);
}

/*
 * Without these, GFP_KERNEL (reclaiming) allocations never fail: fail-nth
 * then only counts atomic ones. verbose 0: no stack dump per failure.
 */
static int setup_injection(void)
{
	static const char *const knobs[][2] = {
		{ DBG "/failslab/ignore-gfp-wait", "N" },
		{ DBG "/fail_page_alloc/ignore-gfp-wait", "N" },
		{ DBG "/fail_page_alloc/ignore-gfp-highmem", "N" },
		{ DBG "/failslab/verbose", "0" },
		{ DBG "/fail_page_alloc/verbose", "0" },
	};
	char buf[32];
	unsigned int i;
	int ret;

	if (access(DBG "/failslab", F_OK) &&
	    mount("debugfs", DBG, "debugfs", 0, NULL) && errno != EBUSY)
		return -errno;
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		ret = write_file(knobs[i][0], knobs[i][1]);
		if (ret) {
			diag("%s: %s", knobs[i][0], strerror(-ret));
			return ret;
		}
	}
	if (!read_file(DBG "/fail_page_alloc/min-order", buf, sizeof(buf)))
		diag("fail_page_alloc/min-order %s (page allocations below it are no fault site)", buf);
	return 0;
}

/* Everything this program touches stays in memory: no page fault under injection. */
static void prefault(void)
{
	volatile char stack[256 * 1024];

	memset((char *)stack, 0, sizeof(stack));
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		diag("mlockall: %s", strerror(errno));
}

/* -------------------------------------------------------------- ioctls */

static int do_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static int handshake(int fd)
{
	struct pmuscope_handshake hs = { .size = sizeof(hs) };
	int ret = do_ioctl(fd, PMUSCOPE_IOC_HANDSHAKE, &hs);

	if (!ret)
		features = hs.features;
	return ret;
}

static int config_cpus(int fd, const struct pmuscope_event *ev, unsigned int nr,
		       uint64_t cpus)
{
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .events = (uintptr_t)ev, .nr_events = nr,
		.cpus = (uintptr_t)&cpus, .cpus_size = sizeof(cpus),
	};

	return do_ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg);
}

static int config_task(int fd, const struct pmuscope_event *ev, unsigned int nr)
{
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .events = (uintptr_t)ev, .nr_events = nr,
		.target = PMUSCOPE_TARGET_TASK, .pid = 0,
		.flags = PMUSCOPE_CFG_INHERIT,
	};

	return do_ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg);
}

static struct pmuscope_value vals[64];

/* READ: -errno, or the number of values. */
static int read_vals(int fd)
{
	struct pmuscope_read rd = {
		.size = sizeof(rd), .values = (uintptr_t)vals, .nr_values = 64,
	};
	int ret = do_ioctl(fd, PMUSCOPE_IOC_READ, &rd);

	return ret ? ret : (int)rd.nr_values;
}

static int swinc(int fd, unsigned int count)
{
	struct pmuscope_swinc sw = {
		.size = sizeof(sw), .event_mask = 1, .cpu = 0, .count = count,
	};

	return do_ioctl(fd, PMUSCOPE_IOC_SWINC, &sw);
}

/*
 * INST_RETIRED: QEMU implements it with -icount only (not on the debug
 * boot): then it is counted as a raw number (PMUSCOPE_EV_RAW), and sysfs
 * selects SW_INCR in its place.
 */
static struct pmuscope_event ev3[3] = {
	{ .event = EV_CPU_CYCLES, .flags = EL01 },
	{ .event = EV_INST_RETIRED, .flags = EL01 },
	{ .event = EV_SW_INCR, .flags = EL01 },
};
static struct pmuscope_event ev12[12];
static struct pmuscope_event ev_task[2] = {
	{ .event = EV_CPU_CYCLES, .flags = EL01 },
	{ .event = EV_INST_RETIRED, .flags = EL01 },
};
static unsigned int inst_flags = EL01;
static const char *sel_list = "CPU_CYCLES,INST_RETIRED";
static char sel_canon[128];

/*
 * The driver still counts: a fresh session on CPU 0, SW_INCR 100 times
 * reads 100 (direct backend); perf backend: CPU_CYCLES grows. NULL or why not.
 */
static const char *usable(void)
{
	static char why[160];
	struct pmuscope_event ev = { .event = EV_SW_INCR, .flags = EL01 };
	volatile unsigned long spin;
	uint64_t first;
	int fd, ret;

	fd = open(DEV, O_RDWR);
	if (fd < 0) {
		snprintf(why, sizeof(why), "open " DEV ": %s", strerror(errno));
		return why;
	}
	why[0] = 0;
	if (features & PMUSCOPE_FEAT_SWINC) {
		ret = config_cpus(fd, &ev, 1, 1);
		if (!ret)
			ret = do_ioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
		if (!ret)
			ret = swinc(fd, 100);
		if (ret)
			snprintf(why, sizeof(why), "SW_INCR session: %s", strerror(-ret));
		else if ((ret = read_vals(fd)) != 1 || vals[0].count != 100)
			snprintf(why, sizeof(why), "SW_INCR x100 read %d values, count %" PRIu64,
				 ret, ret > 0 ? (uint64_t)vals[0].count : 0);
	} else {
		ev.event = EV_CPU_CYCLES;
		ret = config_cpus(fd, &ev, 1, 1);
		if (!ret)
			ret = do_ioctl(fd, PMUSCOPE_IOC_ENABLE, NULL);
		if (ret) {
			snprintf(why, sizeof(why), "CPU_CYCLES session: %s", strerror(-ret));
		} else if (read_vals(fd) != 1) {
			snprintf(why, sizeof(why), "CPU_CYCLES: READ failed");
		} else {
			first = vals[0].count;
			for (spin = 0; spin < 200000; spin++)
				;
			if (read_vals(fd) != 1 || vals[0].count <= first)
				snprintf(why, sizeof(why), "CPU_CYCLES did not grow (%" PRIu64
					 " -> %" PRIu64 ")", first, (uint64_t)vals[0].count);
		}
	}
	close(fd);
	return why[0] ? why : NULL;
}

/* ------------------------------------------------------------ scenarios */

struct scen {
	const char *name;
	int (*setup)(void);		/* before each run; 0 or -errno */
	int (*op)(void);		/* under injection; 0 or -errno */
	/* After a run that failed (err) or succeeded (0) under injection:
	 * state as documented and the operation works again; NULL or why not. */
	const char *(*check)(int err);
	void (*teardown)(void);
	const int *errnos;		/* documented, 0-terminated */
};

static const int e_nomem[] = { ENOMEM, 0 };
/* ioctl.rst, CONFIG: "A failure of the perf core itself while creating
 * perf events (ENOMEM, ENOENT) ... the session is then unconfigured." */
static const int e_config[] = { ENOMEM, ENOENT, 0 };

static int allowed(const int *list, int err)
{
	for (; *list; list++)
		if (*list == err)
			return 1;
	return 0;
}

static void run_scenario(const struct scen *s)
{
	unsigned int n, left = 0, failures = 0, optional = 0, bad = 0;
	double t0 = now_s();
	char first_bad[256] = "";
	const char *why;
	int ret, setup_err = 0;

	for (n = first_n; n <= MAX_SITES; n++) {
		if (now_s() - t0 > budget_s)
			break;
		if ((n - first_n) && (n - first_n) % 200 == 0)
			diag("%s: %u sites so far (up to site %u), %.0f s", s->name, n - first_n, n,
			     now_s() - t0);
		ret = s->setup ? s->setup() : 0;
		if (ret) {
			setup_err = ret;
			break;
		}
		nth_set(n);
		ret = s->op();
		left = nth_get();
		if (left) {
			/* Fewer than n sites: the run without any failure. */
			if (ret) {
				bad++;
				snprintf(first_bad, sizeof(first_bad),
					 "without injection (n=%u, fail-nth left %u) the operation failed: %s",
					 n, left, strerror(-ret));
			}
			if (s->teardown)
				s->teardown();
			break;
		}
		failures++;
		if (!ret)
			optional++;
		why = NULL;
		if (ret && !allowed(s->errnos, -ret))
			why = strerror(-ret), why = why ? why : "?";
		if (why) {
			if (!bad++)
				snprintf(first_bad, sizeof(first_bad),
					 "site %u: undocumented errno %d (%s)", n, -ret, why);
		} else if ((why = s->check(ret)) ||
			   (!module_unloaded_between && (why = usable()))) {
			if (!bad++)
				snprintf(first_bad, sizeof(first_bad),
					 "site %u failed (op %s): %s", n,
					 ret ? strerror(-ret) : "succeeded", why);
		}
		if (bad && bad <= 5 && first_bad[0])
			diag("%s: %s", s->name, first_bad);
		if (s->teardown)
			s->teardown();
	}
	nr_scenarios++;
	total_sites += n - first_n;
	total_failures += failures;
	if (setup_err)
		tap(0, "%s: setup failed at n=%u: %s", s->name, n, strerror(-setup_err));
	else if (!left && budget_is_skip && !bad)
		tap(1, "%s: sites %u..%u failed once each, errnos as documented, driver usable after # SKIP "
		    "sites from %u on: time budget of %u s reached (run again from there: "
		    "pmuscope_faults_load=%u:<seconds> on the kernel command line)",
		    s->name, first_n, n - 1, n, budget_s, n);
	else if (!left)
		tap(0, "%s: not finished: sites %u..%u failed in %.0f s (limits %u sites, %u s)%s%s",
		    s->name, first_n, n - 1, now_s() - t0, MAX_SITES, budget_s,
		    bad ? "; first bad: " : "", bad ? first_bad : "");
	else if (bad)
		tap(0, "%s: %u fault sites, %u runs bad (first: %s)", s->name, n - 1, bad, first_bad);
	else if (first_n > 1)
		tap(1, "%s: sites %u..%u (the last %u of %u) failed once each, errnos as documented, driver usable after",
		    s->name, first_n, n - 1, n - first_n, n - 1);
	else
		tap(1, "%s: %u fault sites, each failed once, errnos as documented, driver usable after",
		    s->name, n - 1);
	diag("%s: %u sites (%u..%u), %u failures injected, %u of them optional (operation succeeded), %.1f s",
	     s->name, n - first_n, first_n, n - 1, failures, optional, now_s() - t0);
}

/* --- open */
static int cur_fd = -1;

static void close_cur(void)
{
	if (cur_fd >= 0)
		close(cur_fd);
	cur_fd = -1;
}

static int op_open(void)
{
	cur_fd = open(DEV, O_RDWR);
	return cur_fd < 0 ? -errno : 0;
}

static const char *check_open(int err)
{
	static char why[96];
	int ret;

	(void)err;
	close_cur();
	if (op_open()) {
		snprintf(why, sizeof(why), "open again: %s", strerror(errno));
		return why;
	}
	ret = handshake(cur_fd);
	if (ret) {
		snprintf(why, sizeof(why), "HANDSHAKE after open: %s", strerror(-ret));
		return why;
	}
	return NULL;
}

/* --- CONFIG of CPUs 0 and 1, 3 events, fresh fd or already configured */
static int setup_fresh(void)
{
	cur_fd = open(DEV, O_RDWR);
	return cur_fd < 0 ? -errno : 0;
}

static int setup_configured(void)
{
	int ret = setup_fresh();

	return ret ? ret : config_cpus(cur_fd, ev3, 3, 3);
}

static int op_config3(void)
{
	return config_cpus(cur_fd, ev3, 3, 3);
}

/* The fd's session: @nvals values from READ, counting after ENABLE. */
static const char *check_session(int nvals)
{
	static char why[128];
	int ret;

	ret = do_ioctl(cur_fd, PMUSCOPE_IOC_ENABLE, NULL);
	if (ret) {
		snprintf(why, sizeof(why), "ENABLE: %s", strerror(-ret));
		return why;
	}
	ret = read_vals(cur_fd);
	if (ret != nvals) {
		snprintf(why, sizeof(why), "READ: %d (want %d values)", ret, nvals);
		return why;
	}
	ret = do_ioctl(cur_fd, PMUSCOPE_IOC_DISABLE, NULL);
	if (ret) {
		snprintf(why, sizeof(why), "DISABLE: %s", strerror(-ret));
		return why;
	}
	return NULL;
}

/*
 * After a failed CONFIG the fd keeps its previous configuration, or (perf
 * core failures) is unconfigured: READ gives @prev values or EINVAL.
 */
static const char *check_config(int err, int prev, int (*redo)(void), int nvals)
{
	static char why[128];
	int ret;

	if (err) {
		ret = read_vals(cur_fd);
		if (ret != -EINVAL && ret != prev) {
			snprintf(why, sizeof(why), "READ after failed CONFIG: %d (want %d values or EINVAL)",
				 ret, prev);
			return why;
		}
	}
	ret = redo();
	if (ret) {
		snprintf(why, sizeof(why), "CONFIG again on the same fd: %s", strerror(-ret));
		return why;
	}
	return check_session(nvals);
}

static const char *check_config_fresh(int err)
{
	return check_config(err, -EINVAL, op_config3, 6);
}

static const char *check_config_again(int err)
{
	return check_config(err, 6, op_config3, 6);
}

/* --- CONFIG of a task (this thread, inherit) */
static int op_config_task(void)
{
	return config_task(cur_fd, ev_task, 2);
}

static const char *check_config_task(int err)
{
	return check_config(err, -EINVAL, op_config_task, 2);
}

/* --- CONFIG of this thread with EL0 access (USER_READ), then its mmap() */
static int op_config_user(void)
{
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .events = (uintptr_t)ev_task, .nr_events = 2,
		.target = PMUSCOPE_TARGET_TASK, .flags = PMUSCOPE_CFG_USER_READ,
	};

	return do_ioctl(cur_fd, PMUSCOPE_IOC_CONFIG, &cfg);
}

/*
 * Failed: unconfigured, and CONFIG works again. Done: the session keeps
 * its configuration (EBUSY), its page maps and says 2 counters, READ
 * gives 2 values.
 */
static const char *check_config_user(int err)
{
	static char why[128];
	const struct pmuscope_user_page *pg;
	int ret;

	if (err) {
		ret = read_vals(cur_fd);
		if (ret != -EINVAL) {
			snprintf(why, sizeof(why), "READ after failed CONFIG: %d (want EINVAL)", ret);
			return why;
		}
		ret = op_config_user();
		if (ret) {
			snprintf(why, sizeof(why), "CONFIG again: %s", strerror(-ret));
			return why;
		}
	} else if ((ret = op_config_user()) != -EBUSY) {
		snprintf(why, sizeof(why), "CONFIG of an EL0 session again: %d (want EBUSY)", ret);
		return why;
	}
	pg = mmap(NULL, 4096, PROT_READ, MAP_SHARED, cur_fd, 0);
	if (pg == MAP_FAILED) {
		snprintf(why, sizeof(why), "mmap of the user page: %s", strerror(errno));
		return why;
	}
	ret = pg->version == PMUSCOPE_USER_PAGE_VERSION && pg->nr == 2;
	munmap((void *)pg, 4096);
	if (!ret)
		return "the user page is not version 1 with 2 counters";
	return check_session(2);
}

/* --- CONFIG with 12 events on CPUs 0 and 1: multiplexed */
static int op_config12(void)
{
	return config_cpus(cur_fd, ev12, 12, 3);
}

static const char *check_config12(int err)
{
	return check_config(err, -EINVAL, op_config12, 24);
}

/* --- ENABLE, READ, RESET, DISABLE, close of a configured CPU session */
static int setup_enabled(void)
{
	int ret = setup_configured();

	return ret ? ret : do_ioctl(cur_fd, PMUSCOPE_IOC_ENABLE, NULL);
}

static int op_enable(void)
{
	return do_ioctl(cur_fd, PMUSCOPE_IOC_ENABLE, NULL);
}

static int op_disable(void)
{
	return do_ioctl(cur_fd, PMUSCOPE_IOC_DISABLE, NULL);
}

static int op_reset(void)
{
	return do_ioctl(cur_fd, PMUSCOPE_IOC_RESET, NULL);
}

static int op_read(void)
{
	int ret = read_vals(cur_fd);

	return ret < 0 ? ret : ret == 6 ? 0 : -EPROTO;
}

/* SNAPSHOT of the 3 events on CPUs 0-1: 6 values, 2 CPU records. */
static int op_snapshot(void)
{
	struct pmuscope_value v[8];
	struct pmuscope_snap_cpu c[4];
	struct pmuscope_snapshot sn = {
		.size = sizeof(sn), .values = (uintptr_t)v, .nr_values = 8,
		.cpus = (uintptr_t)c, .nr_cpus = 4,
	};
	int ret = do_ioctl(cur_fd, PMUSCOPE_IOC_SNAPSHOT, &sn);

	return ret ? ret : sn.nr_values == 6 && sn.nr_cpus == 2 ? 0 : -EPROTO;
}

/* STREAM every 10 ms (the ring made at the first). */
static int op_stream(void)
{
	struct pmuscope_stream st = {
		.size = sizeof(st), .period_ms = 10, .sample_index = PMUSCOPE_STREAM_NO_EVENT,
	};

	return do_ioctl(cur_fd, PMUSCOPE_IOC_STREAM, &st);
}

/* AMU_READ of CPUs 0-1 (any file, no session needed): 2 records. */
static int op_amu(void)
{
	struct pmuscope_amu_cpu r[2];
	unsigned long long cpus = 0x3;
	struct pmuscope_amu_read ar = {
		.size = sizeof(ar), .cpus = (uintptr_t)&cpus, .cpus_size = 8,
		.records = (uintptr_t)r, .nr_records = 2,
	};
	int ret = do_ioctl(cur_fd, PMUSCOPE_IOC_AMU_READ, &ar);

	return ret ? ret : ar.nr_records == 2 && r[1].cpu == 1 ? 0 : -EPROTO;
}

/*
 * SPE_START of CPUs 0-1 at EL0 on a fresh fd, then SPE_STOP. Without SPE
 * (QEMU's CPUs) the driver refuses with EOPNOTSUPP after its checks: that
 * is the outcome without injection, taken as success.
 */
static int op_spe(void)
{
	unsigned long long cpus = 0x3;
	struct pmuscope_spe_config sc = {
		.size = sizeof(sc), .flags = PMUSCOPE_SPE_EL0, .cpus = (uintptr_t)&cpus,
		.cpus_size = 8, .buffer_kib = 64, .hw_kib = 8,
	};
	int ret = do_ioctl(cur_fd, PMUSCOPE_IOC_SPE_START, &sc);

	if (ret == -EOPNOTSUPP)
		return 0;
	return ret ? ret : do_ioctl(cur_fd, PMUSCOPE_IOC_SPE_STOP, NULL);
}

static int op_close(void)
{
	int ret = close(cur_fd);

	cur_fd = -1;
	return ret ? -errno : 0;
}

static const char *check_op(int (*op)(void))
{
	static char why[96];
	int ret = op();

	if (ret) {
		snprintf(why, sizeof(why), "again without injection: %s", strerror(-ret));
		return why;
	}
	return check_session(6);
}

static const char *check_snapshot(int err)
{
	(void)err;
	return check_op(op_snapshot);
}

static const char *check_amu(int err)
{
	(void)err;
	return check_op(op_amu);
}

/*
 * After an SPE_START that failed: the same fd starts (or is refused as
 * without injection), and counting works on a fresh one.
 */
static const char *check_spe(int err)
{
	static char why[96];
	int ret = op_spe();

	(void)err;
	if (ret) {
		snprintf(why, sizeof(why), "SPE_START again without injection: %s", strerror(-ret));
		return why;
	}
	close_cur();
	ret = setup_configured();
	if (ret) {
		snprintf(why, sizeof(why), "CONFIG on a fresh fd: %s", strerror(-ret));
		return why;
	}
	return check_session(6);
}

static const char *check_stream(int err)
{
	(void)err;
	return check_op(op_stream);
}

static const char *check_enable(int err)
{
	(void)err;
	return check_op(op_enable);
}

static const char *check_read(int err)
{
	(void)err;
	return check_op(op_read);
}

static const char *check_reset(int err)
{
	(void)err;
	return check_op(op_reset);
}

static const char *check_disable(int err)
{
	(void)err;
	return check_op(op_disable);
}

static const char *check_close(int err)
{
	(void)err;
	return NULL;		/* the fd is gone either way: usable() checks the rest */
}

/* --- sysfs: select, enable, reset, clear select of cpu0 */
#define SEL	SYS "/cpu0/select"
#define ENA	SYS "/cpu0/enable"
#define RST	SYS "/cpu0/reset"
#define SEL_CANON sel_canon
static int sys_fd = -1;
static const char *sys_data;

static void sys_teardown(void)
{
	if (sys_fd >= 0)
		close(sys_fd);
	sys_fd = -1;
	write_file(ENA, "0");
	write_file(SEL, "\n");
}

static int sys_open(const char *path, const char *data)
{
	sys_fd = open(path, O_WRONLY);
	sys_data = data;
	return sys_fd < 0 ? -errno : 0;
}

static int op_sys_write(void)
{
	ssize_t n = pwrite(sys_fd, sys_data, strlen(sys_data), 0);

	return n < 0 ? -errno : n == (ssize_t)strlen(sys_data) ? 0 : -EPROTO;
}

static int setup_sys_select(void)
{
	write_file(SEL, "\n");
	return sys_open(SEL, sel_list);
}

static int setup_sys_enable(void)
{
	int ret = write_file(SEL, sel_list);

	return ret ? ret : sys_open(ENA, "1");
}

static int setup_sys_reset(void)
{
	int ret = write_file(SEL, sel_list);

	if (!ret)
		ret = write_file(ENA, "1");
	return ret ? ret : sys_open(RST, "1");
}

static int setup_sys_clear(void)
{
	int ret = write_file(SEL, sel_list);

	return ret ? ret : sys_open(SEL, "\n");
}

/* A failed write changes nothing (ABI); then the write works. */
static const char *check_sys(int err, const char *file, const char *before,
			     const char *after)
{
	static char why[200];
	char buf[128];
	int ret;

	if (err && file) {
		ret = read_file(file, buf, sizeof(buf));
		if (ret || strcmp(buf, before)) {
			snprintf(why, sizeof(why), "%s after the failed write: '%s' (%s), want '%s'",
				 file, ret ? "" : buf, ret ? strerror(-ret) : "read", before);
			return why;
		}
	}
	ret = op_sys_write();
	if (ret) {
		snprintf(why, sizeof(why), "write again: %s", strerror(-ret));
		return why;
	}
	if (file) {
		ret = read_file(file, buf, sizeof(buf));
		if (ret || strcmp(buf, after)) {
			snprintf(why, sizeof(why), "%s after the write: '%s', want '%s'",
				 file, ret ? strerror(-ret) : buf, after);
			return why;
		}
	}
	return NULL;
}

static const char *check_sys_select(int err)
{
	return check_sys(err, SEL, "", SEL_CANON);
}

static const char *check_sys_enable(int err)
{
	return check_sys(err, ENA, "0", "1");
}

static const char *check_sys_reset(int err)
{
	return check_sys(err, NULL, NULL, NULL);
}

static const char *check_sys_clear(int err)
{
	return check_sys(err, SEL, SEL_CANON, "");
}

/* ---------------------------------------------------------- module load */

static const char *ko_path;

static int is_loaded(void)
{
	return !access("/sys/module/pmuscope", F_OK);
}

static int load(void)
{
	int fd = open(ko_path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int unload(void)
{
	int i;

	/* EAGAIN/EBUSY while the last references go (a closed fd's release). */
	for (i = 0; i < 100; i++) {
		if (!syscall(SYS_delete_module, "pmuscope", O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			return -errno;
		usleep(20000);
	}
	return -errno;
}

static int ko_fd = -1;

static int setup_load(void)
{
	ko_fd = open(ko_path, O_RDONLY | O_CLOEXEC);
	return ko_fd < 0 ? -errno : 0;
}

static int op_load(void)
{
	return syscall(SYS_finit_module, ko_fd, "", 0) ? -errno : 0;
}

static void teardown_load(void)
{
	close(ko_fd);
	ko_fd = -1;
}

/* The loaded module works (handshake, a counting session). */
static const char *check_loaded(void)
{
	static char why[200];
	const char *u;
	int fd, ret;

	fd = open(DEV, O_RDWR);
	if (fd < 0) {
		snprintf(why, sizeof(why), "open " DEV " after load: %s", strerror(errno));
		return why;
	}
	ret = handshake(fd);
	close(fd);
	if (ret) {
		snprintf(why, sizeof(why), "HANDSHAKE after load: %s", strerror(-ret));
		return why;
	}
	u = usable();
	if (u) {
		snprintf(why, sizeof(why), "after load: %s", u);
		return why;
	}
	return NULL;
}

static unsigned int load_verify_every = 1, load_failures, load_successes, load_degraded;
static uint64_t features_full;

static const char *check_load(int err)
{
	static char why[256];
	const char *w;
	int ret;

	if (!err) {
		/* Loaded despite the failure: an optional allocation. */
		load_successes++;
		w = check_loaded();
		/* Reported, not a failure of the load path. */
		if (!w && features != features_full && ++load_degraded <= 5)
			diag("load: loaded under injection with features 0x%" PRIx64
			     " instead of 0x%" PRIx64 " (a failed registration was optional)",
			     features, features_full);
		ret = unload();
		if (!w && ret) {
			snprintf(why, sizeof(why), "rmmod after a load under injection: %s",
				 strerror(-ret));
			w = why;
		}
		return w;
	}
	if (is_loaded() || !access(SYS, F_OK) || !access(DEV, F_OK)) {
		snprintf(why, sizeof(why), "failed load (%s) left %s%s%s", strerror(-err),
			 is_loaded() ? "/sys/module/pmuscope " : "",
			 !access(SYS, F_OK) ? SYS " " : "", !access(DEV, F_OK) ? DEV : "");
		return why;
	}
	if (++load_failures % load_verify_every)
		return NULL;
	ret = load();
	if (ret) {
		snprintf(why, sizeof(why), "plain load after the failed one: %s", strerror(-ret));
		return why;
	}
	w = check_loaded();
	ret = unload();
	if (!w && ret) {
		snprintf(why, sizeof(why), "rmmod: %s", strerror(-ret));
		w = why;
	}
	return w;
}

static int main_load(const char *ko, unsigned int every)
{
	static const int e_any[] = { ENOMEM, EINVAL, ENOENT, EBUSY, ENODEV, EEXIST,
				     EFAULT, ENOSPC, EFBIG, ENOEXEC, EIO, EAGAIN, 0 };
	struct scen s = {
		"module load (finit_module)", setup_load, op_load, check_load,
		teardown_load, e_any,
	};
	const char *w;
	int ret;

	ko_path = ko;
	load_verify_every = every ? every : 1;
	if (is_loaded()) {
		ret = unload();
		if (ret) {
			tap(0, "module load: rmmod pmuscope first: %s", strerror(-ret));
			return 1;
		}
	}
	/* The full feature set of a plain load. */
	ret = load();
	if (ret || (w = check_loaded())) {
		tap(0, "module load: plain load before the faults: %s",
		    ret ? strerror(-ret) : w);
		return 1;
	}
	features_full = features;
	ret = unload();
	if (ret) {
		tap(0, "module load: rmmod: %s", strerror(-ret));
		return 1;
	}
	if (last_k) {
		/*
		 * The last K sites only: the module's own init (probe, sysfs,
		 * char device, hotplug state, interrupt) runs at the end of
		 * the load, after the loader's allocations. Count the sites of
		 * a plain load first: fail-nth counts down at every site.
		 */
		unsigned int left;

		nth_set(1000000);
		ret = load();
		left = nth_get();
		if (ret || !left) {
			tap(0, "module load: counting its fault sites: %s",
			    ret ? strerror(-ret) : "fail-nth ran out");
			return 1;
		}
		load_sites = 1000000 - left;
		unload();
		first_n = load_sites > last_k ? load_sites - last_k + 1 : 1;
		diag("module load: %u fault sites in a plain load; the last %u from site %u",
		     load_sites, last_k, first_n);
	}
	module_unloaded_between = 1;	/* check_load() checks a load itself */
	run_scenario(&s);
	module_unloaded_between = 0;
	diag("module load: %u loads failed, %u succeeded despite a failed site (then unloaded), "
	     "%u of these with fewer features than a plain load",
	     load_failures, load_successes, load_degraded);
	if (is_loaded())
		unload();
	ret = load();
	w = ret ? strerror(-ret) : check_loaded();
	tap(!w, "module load: a plain load after the faults works%s%s", w ? ": " : "", w ? w : "");
	return tap_failures;
}

/* ------------------------------------------------------------------ main */

/* The task scenario in a child: a task_struct reference it would leak is
 * then that of an exited task (kmemleak: comm "pmuscope-faults"). */
static void run_in_child(const struct scen *s)
{
	unsigned int res[4];
	int p[2];
	pid_t pid;

	fflush(stdout);
	if (pipe(p)) {
		tap(0, "%s: pipe: %s", s->name, strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		tap_failures = 0;
		nr_scenarios = total_sites = total_failures = 0;
		prefault();
		if (nth_open())
			_exit(3);
		run_scenario(s);
		res[0] = nr_scenarios, res[1] = total_sites, res[2] = total_failures;
		res[3] = tap_failures;
		if (write(p[1], res, sizeof(res)) != sizeof(res))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], res, sizeof(res)) != sizeof(res)) {
		tap(0, "%s: the child did not report", s->name);
		res[0] = 1, res[1] = res[2] = 0;
	} else if (res[3]) {
		tap_failures = 1;
	}
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	nr_scenarios += res[0];
	total_sites += res[1];
	total_failures += res[2];
}

int main(int argc, char **argv)
{
	tap_tag = "faults";
	static const struct scen scens[] = {
		{ "open " DEV, NULL, op_open, check_open, close_cur, e_nomem },
		{ "CONFIG CPUs 0-1, 3 events, fresh fd", setup_fresh, op_config3,
		  check_config_fresh, close_cur, e_config },
		{ "CONFIG again, configured fd", setup_configured, op_config3,
		  check_config_again, close_cur, e_config },
		{ "CONFIG task (pid 0, inherit)", setup_fresh, op_config_task,
		  check_config_task, close_cur, e_config },
		{ "CONFIG task with EL0 access (USER_READ)", setup_fresh, op_config_user,
		  check_config_user, close_cur, e_config },
		{ "CONFIG 12 events, more than counters", setup_fresh, op_config12,
		  check_config12, close_cur, e_config },
		{ "ENABLE", setup_configured, op_enable, check_enable, close_cur, e_nomem },
		{ "READ", setup_enabled, op_read, check_read, close_cur, e_nomem },
		{ "RESET", setup_enabled, op_reset, check_reset, close_cur, e_nomem },
		{ "SNAPSHOT", setup_enabled, op_snapshot, check_snapshot, close_cur, e_nomem },
		{ "STREAM", setup_enabled, op_stream, check_stream, close_cur, e_nomem },
		{ "AMU_READ CPUs 0-1", setup_enabled, op_amu, check_amu, close_cur, e_nomem },
		{ "SPE_START CPUs 0-1, fresh fd", setup_fresh, op_spe, check_spe, close_cur,
		  e_nomem },
		{ "DISABLE", setup_enabled, op_disable, check_disable, close_cur, e_nomem },
		{ "close", setup_enabled, op_close, check_close, close_cur, e_nomem },
		{ "sysfs select", setup_sys_select, op_sys_write, check_sys_select,
		  sys_teardown, e_nomem },
		{ "sysfs enable", setup_sys_enable, op_sys_write, check_sys_enable,
		  sys_teardown, e_nomem },
		{ "sysfs reset", setup_sys_reset, op_sys_write, check_sys_reset,
		  sys_teardown, e_nomem },
		{ "sysfs select cleared", setup_sys_clear, op_sys_write, check_sys_clear,
		  sys_teardown, e_nomem },
	};
	cpu_set_t cpu0;
	unsigned int i;
	int fd, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access(SYS "/cpu0/events/INST_RETIRED", F_OK)) {
		inst_flags |= PMUSCOPE_EV_RAW;
		sel_list = "CPU_CYCLES,SW_INCR";
		diag("cpu0 lacks INST_RETIRED (QEMU without -icount): 0x08 raw, sysfs selects %s",
		     sel_list);
	}
	ev3[1].flags = ev_task[1].flags = inst_flags;
	for (i = 0; i < 12; i++) {
		ev12[i].event = i % 2 ? EV_INST_RETIRED : EV_CPU_CYCLES;
		ev12[i].flags = i % 2 ? inst_flags : EL01;
	}
	/* usable()'s busy loop and SW_INCR are on CPU 0. */
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	sched_setaffinity(0, sizeof(cpu0), &cpu0);

	ret = setup_injection();
	if (ret) {
		tap(0, "fault injection setup: %s", strerror(-ret));
		return 1;
	}
	prefault();
	ret = nth_open();
	if (ret) {
		tap(0, "open fail-nth: %s", strerror(-ret));
		return 1;
	}

	if (argc >= 3 && !strcmp(argv[1], "load")) {
		/* load KO [VERIFY_EVERY [FIRST_SITE [SECONDS]]] */
		if (argc > 4 && argv[4][0] == '-')	/* -K: the last K sites */
			last_k = strtoul(argv[4] + 1, NULL, 0);
		else if (argc > 4)
			first_n = strtoul(argv[4], NULL, 0) ?: 1;
		if (argc > 5) {
			budget_s = strtoul(argv[5], NULL, 0);
			budget_is_skip = 1;
		}
		ret = main_load(argv[2], argc > 3 ? strtoul(argv[3], NULL, 0) : 1);
		printf("pmuscope-faults: scenarios=%u fault_sites=%u failures_injected=%u\n",
		       nr_scenarios, total_sites, total_failures);
		return ret;
	}

	fd = open(DEV, O_RDWR);
	if (fd < 0 || handshake(fd)) {
		tap(0, "open and HANDSHAKE " DEV ": %s", strerror(errno));
		return 1;
	}
	close(fd);
	ret = write_file(SEL, sel_list);
	if (ret || read_file(SEL, sel_canon, sizeof(sel_canon)) || write_file(SEL, "\n")) {
		tap(0, "sysfs select %s without injection: %s", sel_list, strerror(-ret));
		return 1;
	}
	diag("features 0x%" PRIx64 " (%s backend)", features,
	     features & PMUSCOPE_FEAT_BACKEND_PERF ? "perf" : "direct");

	for (i = 0; i < sizeof(scens) / sizeof(scens[0]); i++) {
		const struct scen *s = &scens[i];

		/* ioctl.rst: the perf backend has no streams (no FEAT_STREAM). */
		if (s->op == op_stream && !(features & PMUSCOPE_FEAT_STREAM)) {
			diag("%s: no PMUSCOPE_FEAT_STREAM (perf backend): not scanned", s->name);
			continue;
		}
		/* ioctl.rst: USER_READ only with PMUSCOPE_FEAT_USER_READ (direct). */
		if (s->op == op_config_user && !(features & PMUSCOPE_FEAT_USER_READ)) {
			diag("%s: no PMUSCOPE_FEAT_USER_READ (perf backend): not scanned", s->name);
			continue;
		}
		if (s->op == op_config12 || s->op == op_config_task) {
			/* Documented refusals of the backend: nothing to inject. */
			fd = open(DEV, O_RDWR);
			ret = s->op == op_config12 ? config_cpus(fd, ev12, 12, 3) :
						     config_task(fd, ev_task, 2);
			close(fd);
			/*
			 * ioctl.rst: EOPNOTSUPP/ENOSPC only where pmuscope has no
			 * perf PMU, which the handshake tells (FEAT_TASK,
			 * FEAT_MULTIPLEX); otherwise the refusal is a bug.
			 */
			if (ret == -EOPNOTSUPP || ret == -ENOSPC) {
				uint64_t feat = s->op == op_config12 ? PMUSCOPE_FEAT_MULTIPLEX :
						PMUSCOPE_FEAT_TASK;

				if (features & feat) {
					tap(0, "%s: refused without injection (%s) although the "
					    "handshake reports %s (features 0x%" PRIx64 ")",
					    s->name, strerror(-ret), s->op == op_config12 ?
					    "PMUSCOPE_FEAT_MULTIPLEX" : "PMUSCOPE_FEAT_TASK", features);
					nr_scenarios++;
				} else {
					tap(1, "%s # SKIP refused as documented without injection "
					    "(no perf PMU): %s", s->name, strerror(-ret));
				}
				continue;
			}
		}
		if (s->op == op_config_task || s->op == op_config_user)
			run_in_child(s);
		else
			run_scenario(s);
	}
	printf("pmuscope-faults: scenarios=%u fault_sites=%u failures_injected=%u\n",
	       nr_scenarios, total_sites, total_failures);
	return tap_failures;
}
