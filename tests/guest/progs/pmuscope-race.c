// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-race [ROUNDS]: every pair of operations on one open
 * /dev/pmuscope, from two threads at once, ROUNDS times each (200).
 *
 * The operations are what reaches a session's objects from user space:
 * mmap() of the user page (and a read of it) then munmap(), CONFIG of
 * CPU 0, CONFIG of the calling thread with and without
 * PMUSCOPE_CFG_USER_READ, STREAM (sampling, time-based), ENABLE,
 * DISABLE, RESET, READ, SNAPSHOT, read() and poll() of the stream, and
 * the file replaced under the other thread (dup2() of a new open: the
 * old file's release once the other's call is done), and CONFIG of CPU 0
 * then of the thread with a user page, one after the other (beside
 * mmap(): a freed user page was mapped before every CONFIG of a session
 * with one was EBUSY). Any result is
 * allowed but a signal: what is checked is the kernel's, under the debug
 * kernel (KASAN, kmemleak, lockdep, debug objects), whose console the
 * gate reads for reports (t-gate-end.sh). Documentation/pmuscope.rst,
 * "What outlives what", lists the objects and who keeps each alive.
 *
 * First, without a race: a session with a user page refuses every
 * CONFIG (EBUSY), of CPUs as of a task, and its page stays mapped and
 * readable: a CONFIG of CPUs once released the page under mmap().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pmuscope-guest.h"
#include "pmuscope-session.h"

enum op {
	OP_MMAP, OP_CFG_CPUS, OP_CFG_TASK_EL0, OP_CFG_TASK, OP_STREAM_SAMPLE,
	OP_STREAM_TIMED, OP_ENABLE, OP_DISABLE, OP_RESET, OP_READ, OP_SNAPSHOT,
	OP_RDSTREAM, OP_POLL, OP_REPLACE, OP_FLIP, NR_OPS
};

static const char *const op_name[NR_OPS] = {
	"mmap", "CONFIG cpus", "CONFIG task USER_READ", "CONFIG task",
	"STREAM sampling", "STREAM timed", "ENABLE", "DISABLE", "RESET", "READ",
	"SNAPSHOT", "read()", "poll()", "replace the file",
	"CONFIG cpus, then CONFIG task USER_READ",
};

static int shared_fd;
static long page_size;
static unsigned long rounds = 200;
static pthread_barrier_t start;

static int open_dev(void)
{
	return open("/dev/pmuscope", O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

static int config_task(int fd, unsigned int flags)
{
	struct pmuscope_event ev = { .event = 0x11, .flags = PMUSCOPE_EV_EL0 };
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .flags = flags, .target = PMUSCOPE_TARGET_TASK,
		.nr_events = 1, .events = (uintptr_t)&ev,
	};

	return ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg);
}

static int stream(int fd, int timed)
{
	struct pmuscope_stream st = {
		.size = sizeof(st), .ring_kib = 16,
		.period_ms = timed ? 1 : 0,
		.sample_index = timed ? PMUSCOPE_STREAM_NO_EVENT : 0,
		.sample_period = timed ? 0 : 20000,
	};

	return ioctl(fd, PMUSCOPE_IOC_STREAM, &st);
}

static void one_op(enum op op)
{
	int fd = __atomic_load_n(&shared_fd, __ATOMIC_RELAXED);
	struct pmuscope_value v[4];
	struct pmuscope_snap_cpu sc[4];
	char buf[512];

	switch (op) {
	case OP_MMAP: {
		volatile const uint64_t *p = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0);

		if (p != MAP_FAILED) {
			(void)p[0];
			munmap((void *)p, page_size);
		}
		break;
	}
	case OP_CFG_CPUS:
		config_one(fd, 0, 0x11, PMUSCOPE_EV_EL0);
		break;
	case OP_CFG_TASK_EL0:
		config_task(fd, PMUSCOPE_CFG_USER_READ);
		break;
	case OP_CFG_TASK:
		config_task(fd, 0);
		break;
	case OP_STREAM_SAMPLE:
	case OP_STREAM_TIMED:
		stream(fd, op == OP_STREAM_TIMED);
		break;
	case OP_ENABLE:
		ioctl(fd, PMUSCOPE_IOC_ENABLE);
		break;
	case OP_DISABLE:
		ioctl(fd, PMUSCOPE_IOC_DISABLE);
		break;
	case OP_RESET:
		ioctl(fd, PMUSCOPE_IOC_RESET);
		break;
	case OP_READ:
		read_one(fd, v);
		break;
	case OP_SNAPSHOT: {
		struct pmuscope_snapshot s = {
			.size = sizeof(s), .values = (uintptr_t)v, .nr_values = 4,
			.cpus = (uintptr_t)sc, .nr_cpus = 4,
		};

		ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &s);
		break;
	}
	case OP_RDSTREAM:
		if (read(fd, buf, sizeof(buf)) < 0)
			break;
		break;
	case OP_POLL: {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		poll(&pfd, 1, 0);
		break;
	}
	case OP_FLIP:
		/* The review's race: this, beside mmap(), freed the page it mapped. */
		config_one(fd, 0, 0x11, PMUSCOPE_EV_EL0);
		config_task(fd, PMUSCOPE_CFG_USER_READ);
		break;
	case OP_REPLACE: {
		int nfd = open_dev();

		if (nfd >= 0) {
			dup2(nfd, fd);
			close(nfd);
		}
		break;
	}
	default:
		break;
	}
}

struct worker {
	enum op op;
	pthread_t th;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&start);
	for (unsigned long i = 0; i < rounds; i++)
		one_op(w->op);
	return NULL;
}

/* The session of a fresh file with a user page (direct backend): mapped. */
static void el0_keeps_its_page(void)
{
	int fd = open_dev(), busy_cpus, busy_task;
	volatile const uint64_t *p;

	if (config_task(fd, PMUSCOPE_CFG_USER_READ)) {
		tap(1, "a user page outlives CONFIG # SKIP no EL0 reads here (%s)",
		    strerror(errno));
		close(fd);
		return;
	}
	p = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		tap(0, "mmap of the user page: %s", strerror(errno));
		close(fd);
		return;
	}
	busy_cpus = config_one(fd, 0, 0x11, PMUSCOPE_EV_EL0) ? errno : 0;
	busy_task = config_task(fd, PMUSCOPE_CFG_USER_READ) ? errno : 0;
	tap(busy_cpus == EBUSY, "a session with a user page: CONFIG of CPUs is EBUSY (%s)",
	    busy_cpus ? strerror(busy_cpus) : "it succeeded");
	tap(busy_task == EBUSY, "a session with a user page: CONFIG of a task is EBUSY (%s)",
	    busy_task ? strerror(busy_task) : "it succeeded");
	(void)p[0];
	munmap((void *)p, page_size);
	p = mmap(NULL, page_size, PROT_READ, MAP_SHARED, fd, 0);
	tap(p != MAP_FAILED, "the user page maps again after the refused CONFIGs (%s)",
	    p == MAP_FAILED ? strerror(errno) : "ok");
	if (p != MAP_FAILED)
		munmap((void *)p, page_size);
	close(fd);
}

int main(int argc, char **argv)
{
	unsigned int pairs = 0;

	tap_tag = "pmuscope-race";
	page_size = sysconf(_SC_PAGESIZE);
	if (argc > 1)
		rounds = strtoul(argv[1], NULL, 0);
	el0_keeps_its_page();
	for (int a = 0; a < NR_OPS; a++) {
		for (int b = a; b < NR_OPS; b++) {
			struct worker w[2] = { { .op = a }, { .op = b } };
			int fd = open_dev();

			if (fd < 0) {
				tap(0, "open /dev/pmuscope: %s", strerror(errno));
				return 1;
			}
			__atomic_store_n(&shared_fd, fd, __ATOMIC_RELAXED);
			/* A session to race on: CPU 0, or the file's first CONFIG in the pair. */
			config_one(fd, 0, 0x11, PMUSCOPE_EV_EL0);
			pthread_barrier_init(&start, NULL, 2);
			for (int i = 0; i < 2; i++)
				pthread_create(&w[i].th, NULL, worker_main, &w[i]);
			for (int i = 0; i < 2; i++)
				pthread_join(w[i].th, NULL);
			pthread_barrier_destroy(&start);
			close(fd);
			pairs++;
		}
	}
	/* Reaching here: no signal (a fault in the user page would be SIGBUS). */
	tap(1, "%u pairs of %d operations, %lu rounds each, two threads on one file",
	    pairs, NR_OPS, rounds);
	for (int a = 0; a < NR_OPS; a++)
		diag("operation %d: %s", a, op_name[a]);
	return tap_failures ? 1 : 0;
}
