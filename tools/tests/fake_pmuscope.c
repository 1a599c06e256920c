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
 * Environment:
 *   FAKE_PMUSCOPE_FEATURES    handshake features (default: PMU, SNAPSHOT,
 *                             SNAPSHOT_HW)
 *   FAKE_PMUSCOPE_SNAP_ERRNO  SNAPSHOT fails with this errno (a number)
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
#include <unistd.h>

#include <linux/pmuscope.h>

static int fake_fd = -1;
static unsigned int fake_nr_events, fake_snaps;
static uint64_t fake_cpus[16];
static int fake_configured;

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
		       PMUSCOPE_FEAT_PMU | PMUSCOPE_FEAT_SNAPSHOT | PMUSCOPE_FEAT_SNAPSHOT_HW;
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
		return fake_configured ? 0 : fake_err(EINVAL);
	case PMUSCOPE_IOC_SNAPSHOT:
		return fake_snapshot(arg);
	default:
		return fake_err(ENOTTY);
	}
}
