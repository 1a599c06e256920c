// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for /dev/pmuscope in the host tests of the CLI. Preloaded
 * (LD_PRELOAD=fake_pmuscope.so), it answers open("/dev/pmuscope") with a
 * descriptor of /dev/null, and the ioctls on that descriptor as a driver of
 * API version 3 would, with counts that follow a fixed rule: the CLI's
 * whole path (handshake, CONFIG, ENABLE, SNAPSHOT, output) runs without
 * arm64 or the module. It checks what the driver checks of the arguments
 * the library passes, not the driver's behaviour: that is tests/guest's.
 *
 * SNAPSHOT number n (0, 1, ...) of a session gives the k-th CPU (0, 1, ...)
 * count 1000 * (n + 1) * (k + 1) + i for event i, time 1000000 + 1000 * n
 * + 4 * k ticks at 62.5 MHz; method hardware unless PMUSCOPE_SNAP_F_SOFTWARE,
 * frozen 3 ticks on the software method.
 *
 * STREAM, then ENABLE: each read() of the session waits 5 ms, then gives
 * (the first time) a LOST record of 5 and a THROTTLED record, then 4
 * SAMPLE records, CPUs 0 and 1 in turn, of the reading process and
 * thread at the PC of libc's getpid() + 4, user flag, timer flag when
 * time-based, counts growing by 100000 x (i + 1) for event i, time
 * CLOCK_MONOTONIC in ns (as pmuscope_counter_now() off arm64). Not
 * enabled: EAGAIN. Too small a buffer: ENOSPC.
 *
 * Environment:
 *   FAKE_PMUSCOPE_FEATURES    handshake features (default: PMU, SNAPSHOT,
 *                             SNAPSHOT_HW, STREAM)
 *   FAKE_PMUSCOPE_SNAP_ERRNO  SNAPSHOT fails with this errno (a number)
 *   FAKE_PMUSCOPE_STREAM_ERRNO  STREAM fails with this errno
 *   FAKE_PMUSCOPE_LOG         a file: one line per ioctl
 */
/* Both open() and open64() are defined here: neither may be renamed. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuscope.h>

static int fake_fd = -1;
static unsigned int fake_nr_events, fake_snaps;
static uint64_t fake_cpus[16];
static int fake_configured;
static int fake_streaming, fake_enabled, fake_first_read;
static uint64_t fake_counts[2][PMUSCOPE_MAX_EVENTS];
static uint32_t fake_stream_flags;

static void fake_log(const char *fmt, ...)
{
	const char *path = getenv("FAKE_PMUSCOPE_LOG");
	va_list ap;
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static int fake_open(const char *path, int flags, mode_t mode, const char *sym)
{
	int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, sym);

	if (path && !strcmp(path, "/dev/pmuscope")) {
		fake_fd = real("/dev/null", O_RDWR | (flags & O_CLOEXEC));
		fake_configured = 0;
		fake_snaps = 0;
		fake_streaming = 0;
		fake_enabled = 0;
		return fake_fd;
	}
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return fake_open(path, flags, mode, "open");
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return fake_open(path, flags, mode, "open64");
}

int __open_2(const char *path, int flags);
int __open_2(const char *path, int flags)
{
	return fake_open(path, flags, 0, "open");
}

int __open64_2(const char *path, int flags);
int __open64_2(const char *path, int flags)
{
	return fake_open(path, flags, 0, "open64");
}

int close(int fd)
{
	int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "close");

	if (fd >= 0 && fd == fake_fd)
		fake_fd = -1;
	return real(fd);
}

static int fake_err(int err)
{
	errno = err;
	return -1;
}

static int fake_handshake(struct pmuscope_handshake *hs)
{
	const char *feat = getenv("FAKE_PMUSCOPE_FEATURES");

	if (hs->size < sizeof(*hs))
		return fake_err(EINVAL);
	hs->api_version = PMUSCOPE_API_VERSION;
	hs->features = feat && *feat ? strtoull(feat, NULL, 0) :
		       PMUSCOPE_FEAT_PMU | PMUSCOPE_FEAT_SNAPSHOT | PMUSCOPE_FEAT_SNAPSHOT_HW |
		       PMUSCOPE_FEAT_STREAM;
	hs->nr_cpu_ids = 1024;
	hs->max_events = PMUSCOPE_MAX_EVENTS;
	return 0;
}

static int fake_config(const struct pmuscope_config *cfg)
{
	if (cfg->size != sizeof(*cfg) || cfg->target != PMUSCOPE_TARGET_CPUS ||
	    !cfg->nr_events || cfg->nr_events > PMUSCOPE_MAX_EVENTS ||
	    !cfg->cpus_size || cfg->cpus_size % 8 || cfg->cpus_size > sizeof(fake_cpus))
		return fake_err(EINVAL);
	memset(fake_cpus, 0, sizeof(fake_cpus));
	memcpy(fake_cpus, (const void *)(uintptr_t)cfg->cpus, cfg->cpus_size);
	fake_nr_events = cfg->nr_events;
	fake_configured = 1;
	fake_snaps = 0;
	return 0;
}

static int fake_snapshot(struct pmuscope_snapshot *sn)
{
	const char *err = getenv("FAKE_PMUSCOPE_SNAP_ERRNO");
	struct pmuscope_value *vals = (struct pmuscope_value *)(uintptr_t)sn->values;
	struct pmuscope_snap_cpu *cpus = (struct pmuscope_snap_cpu *)(uintptr_t)sn->cpus;
	unsigned int ncpus = 0, k = 0;

	fake_log("snapshot flags=%u lead_us=%u nr_values=%u nr_cpus=%u value_size=%u cpu_size=%u",
		 sn->flags, sn->lead_us, sn->nr_values, sn->nr_cpus, sn->value_size,
		 sn->cpu_size);
	if (sn->size != sizeof(*sn) || sn->reserved0 || sn->reserved[0] || sn->reserved[1] ||
	    sn->freq || sn->skew || (sn->flags & ~3U) || sn->flags == 3U ||
	    sn->lead_us > PMUSCOPE_SNAP_LEAD_US_MAX ||
	    (sn->value_size && sn->value_size != sizeof(*vals)) ||
	    (sn->cpu_size && sn->cpu_size != sizeof(*cpus)) || !fake_configured)
		return fake_err(EINVAL);
	if (err && *err)
		return fake_err(atoi(err));
	for (unsigned int w = 0; w < 16; w++)
		ncpus += __builtin_popcountll(fake_cpus[w]);
	if (sn->nr_values < ncpus * fake_nr_events || sn->nr_cpus < ncpus) {
		sn->nr_values = ncpus * fake_nr_events;
		sn->nr_cpus = ncpus;
		return fake_err(ENOSPC);
	}
	for (unsigned int cpu = 0; cpu < 1024; cpu++) {
		if (!(fake_cpus[cpu / 64] & (1ULL << (cpu % 64))))
			continue;
		cpus[k] = (struct pmuscope_snap_cpu){
			.cpu = cpu,
			.method = sn->flags & PMUSCOPE_SNAP_F_SOFTWARE ? PMUSCOPE_SNAP_SOFTWARE :
				  PMUSCOPE_SNAP_HARDWARE,
			.time = 1000000 + 1000ULL * fake_snaps + 4 * k,
			.skew = 4 * k,
			.frozen = sn->flags & PMUSCOPE_SNAP_F_SOFTWARE ? 3 : 0,
		};
		for (unsigned int i = 0; i < fake_nr_events; i++)
			vals[k * fake_nr_events + i] = (struct pmuscope_value){
				.count = 1000ULL * (fake_snaps + 1) * (k + 1) + i,
				.time_enabled = 1000, .time_running = 1000,
				.cpu = cpu, .index = i, .counter = i,
			};
		k++;
	}
	sn->nr_values = ncpus * fake_nr_events;
	sn->nr_cpus = ncpus;
	sn->freq = 62500000;
	sn->skew = ncpus ? 4 * (ncpus - 1) : 0;
	fake_snaps++;
	return 0;
}

static int fake_stream(const struct pmuscope_stream *st)
{
	const char *err = getenv("FAKE_PMUSCOPE_STREAM_ERRNO");

	fake_log("stream period_ms=%u sample_index=%u sample_period=%llu ring_kib=%u",
		 st->period_ms, st->sample_index, (unsigned long long)st->sample_period,
		 st->ring_kib);
	if (st->size != sizeof(*st) || st->flags ||
	    st->wakeup_kib * 2 > (st->ring_kib ? st->ring_kib : PMUSCOPE_STREAM_KIB_DEFAULT) ||
	    st->reserved[0] ||
	    st->reserved[1] || !fake_configured || st->period_ms > PMUSCOPE_STREAM_MS_MAX ||
	    (st->ring_kib && (st->ring_kib < PMUSCOPE_STREAM_KIB_MIN ||
			      st->ring_kib > PMUSCOPE_STREAM_KIB_MAX ||
			      (st->ring_kib & (st->ring_kib - 1)))))
		return fake_err(EINVAL);
	if (st->sample_index != PMUSCOPE_STREAM_NO_EVENT &&
	    (st->sample_index >= fake_nr_events || st->sample_period < PMUSCOPE_STREAM_PERIOD_MIN ||
	     st->sample_period > PMUSCOPE_STREAM_PERIOD_MAX))
		return fake_err(EINVAL);
	if (err && *err)
		return fake_err(atoi(err));
	fake_streaming = st->period_ms || st->sample_index != PMUSCOPE_STREAM_NO_EVENT;
	fake_stream_flags = PMUSCOPE_REC_F_USER |
			    (st->sample_index == PMUSCOPE_STREAM_NO_EVENT ? PMUSCOPE_REC_F_TIMER : 0);
	fake_first_read = 1;
	memset(fake_counts, 0, sizeof(fake_counts));
	return 0;
}

static size_t fake_record(unsigned char *p, uint16_t type, uint32_t cpu, uint64_t value)
{
	unsigned int nr = type == PMUSCOPE_REC_SAMPLE ? fake_nr_events : 0;
	struct pmuscope_record r = {
		.type = type, .size = sizeof(r) + 8 * nr, .cpu = cpu, .value = value, .nr = nr,
	};
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	r.time = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	if (type == PMUSCOPE_REC_SAMPLE) {
		r.pid = getpid();
		r.tid = syscall(SYS_gettid);
		r.pc = (uintptr_t)dlsym(RTLD_NEXT, "getpid") + 4;
		r.flags = fake_stream_flags;
		for (unsigned int i = 0; i < nr; i++) {
			fake_counts[cpu][i] += 100000ULL * (i + 1);
			memcpy(p + sizeof(r) + 8 * i, &fake_counts[cpu][i], 8);
		}
	}
	memcpy(p, &r, sizeof(r));
	return r.size;
}

ssize_t read(int fd, void *buf, size_t len)
{
	ssize_t (*real)(int, void *, size_t) =
		(ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	unsigned char *p = buf;
	size_t off = 0, one = sizeof(struct pmuscope_record) + 8 * fake_nr_events;
	struct timespec wait = { 0, 5000000 };

	if (fd < 0 || fd != fake_fd)
		return real(fd, buf, len);
	if (!fake_streaming || !fake_enabled)
		return fake_err(EAGAIN);
	if (len < one + 2 * sizeof(struct pmuscope_record))
		return fake_err(ENOSPC);
	nanosleep(&wait, NULL);
	if (fake_first_read) {
		off += fake_record(p + off, PMUSCOPE_REC_LOST, 1, 5);
		off += fake_record(p + off, PMUSCOPE_REC_THROTTLED, 0, 0);
		fake_first_read = 0;
	}
	for (unsigned int k = 0; k < 4 && off + one <= len; k++)
		off += fake_record(p + off, PMUSCOPE_REC_SAMPLE, k % 2, 0);
	return off;
}

int ioctl(int fd, unsigned long req, ...)
{
	int (*real)(int, unsigned long, ...) =
		(int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (fd < 0 || fd != fake_fd)
		return real(fd, req, arg);
	switch (req) {
	case PMUSCOPE_IOC_HANDSHAKE:
		return fake_handshake(arg);
	case PMUSCOPE_IOC_CONFIG:
		fake_log("config nr_events=%u", ((struct pmuscope_config *)arg)->nr_events);
		return fake_config(arg);
	case PMUSCOPE_IOC_ENABLE:
	case PMUSCOPE_IOC_DISABLE:
	case PMUSCOPE_IOC_RESET:
		fake_log("%s", req == PMUSCOPE_IOC_ENABLE ? "enable" :
			 req == PMUSCOPE_IOC_DISABLE ? "disable" : "reset");
		if (req != PMUSCOPE_IOC_RESET && fake_configured)
			fake_enabled = req == PMUSCOPE_IOC_ENABLE;
		return fake_configured ? 0 : fake_err(EINVAL);
	case PMUSCOPE_IOC_SNAPSHOT:
		return fake_snapshot(arg);
	case PMUSCOPE_IOC_STREAM:
		return fake_stream(arg);
	default:
		return fake_err(ENOTTY);
	}
}
