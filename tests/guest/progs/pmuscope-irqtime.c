// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-irqtime: the overflow interrupt's time throttles task streams
 * too (direct backend). Run with the module loaded with a sample_limit so
 * high that no window's share of it is reached (t-irqtime.sh): then only
 * the interrupt's own time, over a quarter of the window, can throttle.
 *
 * This thread's own task session samples its CPU_CYCLES at EL0 every
 * 1000 cycles (the least period) with call chains of 127 frames, from the
 * bottom of a recursion 140 deep: each sample's record, chain walk and
 * ring write (pmuscope_ppmu_samples(), after the engine's part of the
 * interrupt) takes far longer than the period, so the interrupt takes
 * nearly all the CPU's time. The stream must carry THROTTLED records:
 * the handler's whole time is counted, as arm_pmuv3 gives perf's
 * perf_sample_event_took() its whole handler. When the task streams'
 * part was left out, the engine saw a small fraction and never
 * throttled.
 */
#pragma GCC optimize("no-omit-frame-pointer")
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/pmuscope.h>

#include "pmuscope-guest.h"

#define DEPTH		140
#define RING_KIB	4096

static unsigned char buf[RING_KIB * 1024];
static volatile unsigned long sink;

static unsigned long __attribute__((noinline)) deep(unsigned int n, unsigned long spin)
{
	unsigned long r = 0;

	if (n)
		r = deep(n - 1, spin) + 1;
	else
		for (unsigned long i = 0; i < spin; i++)
			sink += i;
	/* Not a tail call: each level keeps its frame record. */
	return r + sink;
}

int main(int argc, char **argv)
{
	struct pmuscope_event ev = { .event = 0x11, .flags = PMUSCOPE_EV_EL0 };
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .target = PMUSCOPE_TARGET_TASK,
		.nr_events = 1, .events = (uintptr_t)&ev,
	};
	struct pmuscope_stream st = {
		.size = sizeof(st), .flags = PMUSCOPE_STREAM_F_CALLCHAIN,
		.sample_index = 0, .sample_period = PMUSCOPE_STREAM_PERIOD_MIN,
		.ring_kib = RING_KIB, .max_stack = PMUSCOPE_STACK_MAX,
	};
	unsigned long spin = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000000;
	unsigned int samples = 0, throttled = 0, lost = 0, deepest = 0;
	int fd = open("/dev/pmuscope", O_RDWR | O_NONBLOCK);
	ssize_t n;

	tap_tag = "pmuscope-irqtime";
	if (fd < 0 || ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg) ||
	    ioctl(fd, PMUSCOPE_IOC_STREAM, &st) || ioctl(fd, PMUSCOPE_IOC_ENABLE)) {
		tap(0, "a task stream of this thread with call chains: %s", strerror(errno));
		return 1;
	}
	deep(DEPTH, spin);
	ioctl(fd, PMUSCOPE_IOC_DISABLE);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off + (ssize_t)sizeof(struct pmuscope_record) <= n;) {
			const struct pmuscope_record *r = (const void *)(buf + off);

			if (r->size < sizeof(*r))
				break;
			if (r->type == PMUSCOPE_REC_SAMPLE) {
				samples++;
				if (r->flags & PMUSCOPE_REC_F_CHAIN) {
					const struct pmuscope_rec_chain *c =
						(const void *)(buf + off + sizeof(*r) + 8 * r->nr);

					if (c->nr_user > deepest)
						deepest = c->nr_user;
				}
			} else if (r->type == PMUSCOPE_REC_THROTTLED) {
				throttled++;
			} else if (r->type == PMUSCOPE_REC_LOST) {
				lost += r->value;
			}
			off += r->size;
		}
	}
	diag("%lu loop rounds at depth %d: %u samples (chains of up to %u user frames), %u THROTTLED records, %u lost",
	     spin, DEPTH, samples, deepest, throttled, lost);
	tap(deepest >= 100, "the samples' call chains are deep (%u user frames)", deepest);
	tap(throttled > 0,
	    "the interrupt's time with the task stream's records throttles (%u THROTTLED records)",
	    throttled);
	close(fd);
	return tap_failures ? 1 : 0;
}
