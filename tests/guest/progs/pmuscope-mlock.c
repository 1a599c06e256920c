// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-mlock MODE: a stream's ring charged to the caller's locked
 * memory as perf_mmap() charges a perf buffer: the user's account up to
 * kernel.perf_event_mlock_kb x the online CPUs, the rest to the process's
 * pinned pages (/proc/self/status VmPin) within RLIMIT_MEMLOCK, EPERM
 * beyond (t-mlock.sh sets perf_event_mlock_kb to 16 and
 * perf_event_paranoid to 2 first). Each session is a task session of
 * this process (cycles at EL0), its STREAM samples it with a ring of
 * 16 KiB; RLIMIT_MEMLOCK is set to 64 KiB here.
 *
 *   user     (as an unprivileged user) sessions until one is refused:
 *            EPERM exactly where the rule says (6 with 4 KiB pages on 2
 *            CPUs), VmPin the pinned part; the refused session unchanged
 *            (its STREAM works once another is closed); all closed:
 *            VmPin 0, and the same number again
 *   handoff  (as an unprivileged user) the charge stays with whoever
 *            made it: a child STREAMs three sessions its parent holds
 *            (two on the account, one in the child's pinned pages) and
 *            exits; the parent gets one ring fewer; closing the child's
 *            sessions leaves the parent's VmPin as it is and gives the
 *            account back
 *   free     the rule does not apply (root: CAP_IPC_LOCK; anyone at
 *            perf_event_paranoid -1): 12 sessions, none refused, VmPin
 *            beyond the limit while they last, 0 after
 *   nocap    root without CAP_IPC_LOCK (CAP_SYS_ADMIN and CAP_PERFMON
 *            kept: they exempt nothing): refused as a user
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include <linux/pmuscope.h>

#include "pmuscope-guest.h"

#define RING_KIB	16
#define LIMIT_KIB	64
#define MAX_SESS	32

/*
 * A task session of this thread, cycles at EL0, with CONFIG @flags
 * (PMUSCOPE_CFG_USER_READ: a user page): the fd, or -errno.
 */
static int session_flags(unsigned int flags)
{
	struct pmuscope_event ev = { .event = 0x11, .flags = PMUSCOPE_EV_EL0 };
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .flags = flags, .target = PMUSCOPE_TARGET_TASK,
		.nr_events = 1, .events = (uintptr_t)&ev,
	};
	int fd = open("/dev/pmuscope", O_RDWR);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static int session(void)
{
	return session_flags(0);
}

static int session_el0(void)
{
	return session_flags(PMUSCOPE_CFG_USER_READ);
}

/* Samples of its event with a ring of RING_KIB: 0 or -errno. */
static int stream(int fd)
{
	struct pmuscope_stream st = {
		.size = sizeof(st), .sample_index = 0, .sample_period = 10000000,
		.ring_kib = RING_KIB,
	};

	return ioctl(fd, PMUSCOPE_IOC_STREAM, &st) ? -errno : 0;
}

/* /proc/self/status VmPin in kB; -1 if absent. */
static long vmpin_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static long sysctl_int(const char *name)
{
	char path[96];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	f = fopen(path, "r");
	if (!f)
		return LONG_MIN;
	if (fscanf(f, "%ld", &v) != 1)
		v = LONG_MIN;
	fclose(f);
	return v;
}

/*
 * What perf_mmap()'s rule lets through from nothing charged: the rings
 * of @ring pages before the refusal, and the pages pinned after them.
 */
static unsigned int expected(unsigned long allowance, unsigned long limit, unsigned long ring,
			     unsigned long *pinned)
{
	unsigned long account = 0, pin = 0, extra;
	unsigned int n = 0;

	for (;;) {
		extra = account + ring > allowance ? account + ring - allowance : 0;
		if (pin + extra > limit || n == MAX_SESS)
			break;
		account += ring - extra;
		pin += extra;
		n++;
	}
	*pinned = pin;
	return n;
}

static unsigned long page_kb, allowance, limit_pages, ring_pages;

static void limits(void)
{
	struct rlimit rl = { LIMIT_KIB * 1024, LIMIT_KIB * 1024 };
	long kb = sysctl_int("perf_event_mlock_kb");

	page_kb = sysconf(_SC_PAGESIZE) / 1024;
	allowance = kb < 0 ? 0 : (kb / page_kb) * sysconf(_SC_NPROCESSORS_ONLN);
	limit_pages = LIMIT_KIB / page_kb;
	ring_pages = (RING_KIB + page_kb - 1) / page_kb;
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		tap(0, "setrlimit(RLIMIT_MEMLOCK, %d KiB): %s", LIMIT_KIB, strerror(errno));
	diag("perf_event_mlock_kb %ld x %ld CPUs = %lu pages of %lu KiB for the user, RLIMIT_MEMLOCK %d KiB, rings of %d KiB",
	     kb, sysconf(_SC_NPROCESSORS_ONLN), allowance, page_kb, LIMIT_KIB, RING_KIB);
}

/*
 * Sessions streamed into @fds until one is refused (its fd in *@refused,
 * its -errno in *@err) or MAX_SESS: how many were granted.
 */
static unsigned int fill(int *fds, int *refused, int *err)
{
	unsigned int n;

	*refused = -1;
	*err = 0;
	for (n = 0; n < MAX_SESS; n++) {
		int fd = session(), ret;

		if (fd < 0) {
			tap(0, "CONFIG of session %u: %s", n + 1, strerror(-fd));
			*err = fd;
			break;
		}
		ret = stream(fd);
		if (ret) {
			*refused = fd;
			*err = ret;
			break;
		}
		fds[n] = fd;
	}
	return n;
}

static void close_all(int *fds, unsigned int n)
{
	while (n--)
		close(fds[n]);
}

/* Refused where the rule says, with EPERM, the pinned part in VmPin. */
static unsigned int check_refusal(const char *who, unsigned int got, int err, long pin)
{
	unsigned long want_pin;
	unsigned int want = expected(allowance, limit_pages, ring_pages, &want_pin);

	tap(got == want && err == -EPERM,
	    "%s: STREAM of %d KiB rings refused after %u (want %u): %s (want EPERM)",
	    who, RING_KIB, got, want, err ? strerror(-err) : "never refused");
	tap(pin == (long)(want_pin * page_kb), "%s: VmPin %ld kB after them (want %lu kB)",
	    who, pin, want_pin * page_kb);
	return want;
}

static void test_user(const char *who)
{
	int fds[MAX_SESS], refused, err, ret;
	unsigned int n, again;
	long pin;

	n = fill(fds, &refused, &err);
	pin = vmpin_kb();
	check_refusal(who, n, err, pin);
	if (refused >= 0 && n) {
		/* Nothing was made: with room again, the same session streams. */
		close(fds[--n]);
		ret = stream(refused);
		tap(!ret, "%s: the refused session streams once another is closed: %s", who,
		    ret ? strerror(-ret) : "ok");
		fds[n++] = refused;
		refused = -1;
	}
	if (refused >= 0)
		close(refused);
	close_all(fds, n);
	pin = vmpin_kb();
	tap(pin == 0, "%s: all closed: VmPin %ld kB (want 0)", who, pin);
	again = fill(fds, &refused, &err);
	tap(again == n && err == -EPERM,
	    "%s: the charges came back: %u rings again (want %u), then %s", who, again, n,
	    err ? strerror(-err) : "no refusal");
	if (refused >= 0)
		close(refused);
	close_all(fds, again);
}

/*
 * The charge is the charger's: a child (this user) STREAMs three
 * sessions its parent opened before the fork, and exits; they live on
 * in the parent, still charged to the child's account and mm.
 */
static void test_handoff(void)
{
	int pre[3], fds[2 * MAX_SESS], refused, err, status, i;
	unsigned long want_pin;
	unsigned int n, want = expected(allowance, limit_pages, ring_pages, &want_pin), more;
	long pin, child_pin;
	int pipefd[2];
	pid_t pid;

	if (allowance != 2 * ring_pages) {
		tap(1, "handoff # SKIP the user's allowance is %lu pages, the test wants 2 rings (%lu)",
		    allowance, 2 * ring_pages);
		return;
	}
	for (i = 0; i < 3; i++) {
		pre[i] = open("/dev/pmuscope", O_RDWR);
		if (pre[i] < 0) {
			tap(0, "handoff: open: %s", strerror(errno));
			return;
		}
	}
	if (pipe(pipefd))
		return;
	pid = fork();
	if (!pid) {
		struct pmuscope_event ev = { .event = 0x11, .flags = PMUSCOPE_EV_EL0 };
		struct pmuscope_config cfg = {
			.size = sizeof(cfg), .target = PMUSCOPE_TARGET_TASK,
			.nr_events = 1, .events = (uintptr_t)&ev,
		};
		long p;

		for (i = 0; i < 3; i++)
			if (ioctl(pre[i], PMUSCOPE_IOC_CONFIG, &cfg) || stream(pre[i]))
				_exit(100 + i);
		p = vmpin_kb();
		if (write(pipefd[1], &p, sizeof(p)) != sizeof(p))
			_exit(99);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &child_pin, sizeof(child_pin)) != sizeof(child_pin))
		child_pin = -1;
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	tap(WIFEXITED(status) && !WEXITSTATUS(status) && child_pin == (long)(ring_pages * page_kb),
	    "handoff: the child STREAMs 3 sessions its parent holds: exit %d, its VmPin %ld kB (want %lu: two on the account, one pinned)",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1, child_pin, ring_pages * page_kb);
	/* The child's exit gave nothing back: the account is full. */
	n = fill(fds, &refused, &err);
	pin = vmpin_kb();
	tap(n == want - 2 && err == -EPERM && pin == (long)(limit_pages * page_kb),
	    "handoff: the child gone, its rings held here: %u more rings here (want %u), then %s, VmPin %ld kB (want %lu)",
	    n, want - 2, err ? strerror(-err) : "no refusal", pin, limit_pages * page_kb);
	if (refused >= 0)
		close(refused);
	for (i = 0; i < 3; i++)
		close(pre[i]);
	pin = vmpin_kb();
	tap(pin == (long)(limit_pages * page_kb),
	    "handoff: closing the child's rings leaves this VmPin: %ld kB (want %lu: the pinned one was the child's mm's)",
	    pin, limit_pages * page_kb);
	/* The account's two rings are back, for this process. */
	more = fill(fds + n, &refused, &err);
	tap(more == 2 && err == -EPERM, "handoff: the account's rings back: %u more (want 2), then %s",
	    more, err ? strerror(-err) : "no refusal");
	if (refused >= 0)
		close(refused);
	close_all(fds, n + more);
	pin = vmpin_kb();
	tap(pin == 0, "handoff: all closed: VmPin %ld kB (want 0)", pin);
}

/* Not refused: more rings than the rule allows, VmPin beyond the limit. */
static void test_free(const char *who)
{
	int fds[MAX_SESS], refused, err;
	unsigned int n = 0;
	long pin;

	while (n < 12) {
		int fd = session();

		if (fd < 0 || stream(fd)) {
			err = fd < 0 ? fd : -errno;
			tap(0, "%s: session %u: %s", who, n + 1, strerror(-err));
			if (fd >= 0)
				close(fd);
			break;
		}
		fds[n++] = fd;
	}
	pin = vmpin_kb();
	tap(n == 12, "%s: 12 sessions of %d KiB rings, none refused (%u)", who, RING_KIB, n);
	tap(pin > LIMIT_KIB, "%s: charged all the same: VmPin %ld kB, beyond the %d KiB limit",
	    who, pin, LIMIT_KIB);
	close_all(fds, n);
	pin = vmpin_kb();
	tap(pin == 0, "%s: all closed: VmPin %ld kB (want 0)", who, pin);
	(void)refused;
}

/* This process without CAP_IPC_LOCK, every other capability kept. */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { };

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].permitted &= ~(1U << (CAP_IPC_LOCK % 32));
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

/*
 * The EL0 user page (PMUSCOPE_CFG_USER_READ, direct backend) is charged
 * as perf charges a perf buffer's user page: run with
 * kernel.perf_event_mlock_kb 0, as a member of group= (EL0 reads granted):
 * with RLIMIT_MEMLOCK 0 its CONFIG is EPERM; with one page it works and
 * VmPin shows the page; a second session's is EPERM; the page's charge
 * goes back when its file is closed.
 */
static void test_el0(void)
{
	struct rlimit one = { .rlim_cur = page_kb * 1024, .rlim_max = page_kb * 1024 };
	struct rlimit none = { 0, page_kb * 1024 };
	int fd, fd2, ret;
	long pin;

	fd = session_el0();
	if (fd == -EOPNOTSUPP) {
		tap(1, "the EL0 user page # SKIP no EL0 reads on this backend");
		return;
	}
	if (fd >= 0)
		close(fd);
	if (setrlimit(RLIMIT_MEMLOCK, &none)) {
		tap(0, "setrlimit(RLIMIT_MEMLOCK, 0): %s", strerror(errno));
		return;
	}
	fd = session_el0();
	tap(fd == -EPERM, "ulimit -l 0, perf_event_mlock_kb 0: an EL0 session's CONFIG is EPERM (%s)",
	    fd < 0 ? strerror(-fd) : "it succeeded");
	if (fd >= 0)
		close(fd);
	if (setrlimit(RLIMIT_MEMLOCK, &one)) {
		tap(0, "setrlimit(RLIMIT_MEMLOCK, one page): %s", strerror(errno));
		return;
	}
	fd = session_el0();
	pin = vmpin_kb();
	tap(fd >= 0 && pin == (long)page_kb,
	    "ulimit -l of one page: the EL0 session is made, VmPin %ld kB (%s)", pin,
	    fd < 0 ? strerror(-fd) : "ok");
	fd2 = session_el0();
	tap(fd2 == -EPERM, "... a second EL0 session is EPERM (%s)",
	    fd2 < 0 ? strerror(-fd2) : "it succeeded");
	if (fd2 >= 0)
		close(fd2);
	if (fd >= 0)
		close(fd);
	pin = vmpin_kb();
	fd = session_el0();
	ret = fd >= 0 ? 0 : fd;
	tap(pin == 0 && !ret, "closed: VmPin %ld kB, and an EL0 session is made again (%s)", pin,
	    ret ? strerror(-ret) : "ok");
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	static char tag[64];

	if (argc < 2) {
		fprintf(stderr, "usage: pmuscope-mlock user|handoff|free|nocap|el0\n");
		return 2;
	}
	snprintf(tag, sizeof(tag), "pmuscope-mlock %s", argv[1]);
	tap_tag = tag;
	limits();
	if (!strcmp(argv[1], "user")) {
		test_user("unprivileged");
	} else if (!strcmp(argv[1], "handoff")) {
		test_handoff();
	} else if (!strcmp(argv[1], "free")) {
		test_free(getuid() ? "paranoid -1" : "root (CAP_IPC_LOCK)");
	} else if (!strcmp(argv[1], "el0")) {
		test_el0();
	} else if (!strcmp(argv[1], "nocap")) {
		int ret = drop_ipc_lock();

		tap(!ret, "root drops CAP_IPC_LOCK alone: %s", ret ? strerror(-ret) : "ok");
		test_user("root without CAP_IPC_LOCK");
	} else {
		fprintf(stderr, "pmuscope-mlock: unknown mode %s\n", argv[1]);
		return 2;
	}
	return tap_failures ? 1 : 0;
}
