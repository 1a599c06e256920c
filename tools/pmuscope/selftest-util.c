// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope test: what the checks share: pinning, busy loops, the loop of
 * known length, a counting session on one CPU or of the calling thread,
 * sysfs reads, and the verdict of a per-type check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "selftest.h"

int st_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t st_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Spin for @ms ms of CLOCK_MONOTONIC; returns the iterations made. */
unsigned long st_busy_ms(unsigned int ms)
{
	uint64_t end = st_now_ns() + ms * 1000000ULL;
	volatile unsigned long i = 0;

	while (st_now_ns() < end)
		for (int k = 0; k < 1000; k++)
			i++;
	return i;
}

long st_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

#ifdef __aarch64__
/* 2 instructions per iteration: subs, b.ne. */
void __attribute__((noinline)) st_loop2(unsigned long n)
{
	asm volatile("1: subs %0, %0, #1\n"
		     "   b.ne 1b\n" : "+r"(n) : : "cc");
}
#else
/* Never run: the checks that need the loop Skip where ST_HAVE_LOOP is 0. */
void st_loop2(unsigned long n)
{
	(void)n;
}
#endif

/*
 * A session counting @names on @cpu: a task session of the calling thread
 * where the driver has them (@task and FEAT_TASK; the thread is pinned to
 * @cpu), else a CPU session of @cpu. 0, or -errno with @why set.
 */
int st_open_count(const struct st_ctx *x, struct pmuscope **hp, const char *const *names,
		      unsigned int n, int cpu, int task, char *why, size_t len)
{
	struct pmuscope_event_spec evs[8];
	uint64_t cpus[PMUSCOPE_CPU_WORDS] = { 0 };
	struct pmuscope *h;
	int ret;

	ret = pmuscope_open(&h, why, len);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < n; i++) {
		ret = pmuscope_event_parse(names[i], &evs[i], why, len);
		if (ret) {
			pmuscope_close(h);
			return ret;
		}
	}
	ret = st_pin(cpu);
	if (ret) {
		snprintf(why, len, "cannot run on cpu%d (%s): outside this process's CPU affinity",
			 cpu, strerror(-ret));
		pmuscope_close(h);
		return ret;
	}
	cpus[cpu / 64] |= 1ULL << (cpu % 64);
	if (task && x->features & PMUSCOPE_FEAT_TASK)
		ret = pmuscope_configure_task(h, evs, n, 0, 0);
	else
		ret = pmuscope_configure(h, evs, n, cpus, PMUSCOPE_CPU_WORDS);
	if (ret) {
		snprintf(why, len, "%s", pmuscope_errmsg(h));
		pmuscope_close(h);
		return ret;
	}
	*hp = h;
	return 0;
}

/* The first @n values of a one-CPU or task session: counts and flags. */
int st_read_counts(struct pmuscope *h, uint64_t *c, uint32_t *flags, unsigned int n)
{
	struct pmuscope_count v[32];
	unsigned int nr = 0;
	int ret = pmuscope_read(h, v, 32, &nr);

	if (ret)
		return ret;
	if (nr < n)
		return -EIO;
	for (unsigned int i = 0; i < n; i++) {
		c[i] = v[i].count;
		if (flags)
			flags[i] = v[i].flags;
	}
	return 0;
}

/* Why a session could not be had, as a Skip or a failure: refusals are Skips. */
void st_open_failed(struct st_result *r, const char *pfx, int ret, const char *why)
{
	if (ret == -EPERM || ret == -EACCES || ret == -EOPNOTSUPP || ret == -EBUSY ||
	    ret == -ENOSPC || ret == -ENOENT)
		st_skip(r, "%s: %s", pfx, why);
	else
		st_fail(r, DO_REPORT, "%s: %s", pfx, why);
}

char *st_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

int st_cpu_file(int cpu, const char *name, char *buf, size_t len)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/cpu%d/%s", pmuscope_sysfs_root(), cpu, name);
	return st_first_line(path, buf, len) ? 0 : -1;
}

uint64_t st_cpu_stat(int cpu, const char *name)
{
	char s[32];

	return st_cpu_file(cpu, name, s, sizeof(s)) ? 0 : strtoull(s, NULL, 0);
}

/* Skips the whole check when the driver is not loaded; 1 if it is. */
int st_need_driver(const struct st_ctx *x, struct st_result *r)
{
	if (x->loaded && x->nr_types)
		return 1;
	st_skip(r, "%s", x->loaded ? "the driver describes no online CPU" : "the driver is not loaded");
	return 0;
}

/* "cpuN KEY" for a type's measurement. */
const char *st_tkey(char *buf, size_t len, const struct st_type *ty, const char *key)
{
	snprintf(buf, len, "cpu%d %s", ty->cpu, key);
	return buf;
}

/* Verdict of a per-type check: Skip only when every type skipped. */
void st_types_done(struct st_result *r, unsigned int skipped, unsigned int nr,
		       const char *why)
{
	if (r->verdict == ST_OK && skipped == nr)
		st_skip(r, "%s", why);
}

/* 1 if @ty's CPU implements @number (PMCEID), with a Skip reason when not. */
int st_type_has(const struct st_type *ty, uint32_t number, char *why, size_t len)
{
	struct pmuscope_cpu_info info;

	if (pmuscope_cpu_info(ty->cpu, &info) || !pmuscope_cpu_has_event(&info, number)) {
		snprintf(why, len, "%s is not implemented on cpu%d (%s): its PMCEID bit is clear%s",
			 pmuscope_event_name(number) ?: "the event", ty->cpu, ty->name,
			 number == EV_INST_RETIRED ? " (QEMU counts it only under -icount)" : "");
		return 0;
	}
	return 1;
}
