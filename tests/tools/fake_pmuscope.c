// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for /dev/pmuscope in the host tests of the CLI. Preloaded
 * (LD_PRELOAD=fake_pmuscope.so), it answers open("/dev/pmuscope") with a
 * descriptor of /dev/null, and the ioctls on that descriptor as a driver of
 * API version 5 would, with counts that follow a fixed rule: the CLI's
 * whole path (handshake, CONFIG, ENABLE, SNAPSHOT, AMU_READ, output) runs
 * without arm64 or the module. It checks what the driver checks of the arguments
 * the library passes, not the driver's behaviour: that is tests/guest's.
 *
 * SNAPSHOT number n (0, 1, ...) of a session gives the k-th CPU (0, 1, ...)
 * count 1000 * (n + 1) * (k + 1) + i for event i, time 1000000 + 1000 * n
 * + 4 * k ticks at 62.5 MHz; method hardware unless PMUSCOPE_SNAP_F_SOFTWARE,
 * frozen 3 ticks on the software method.
 *
 * READ number n (0, 1, ...) since the configuration gives the k-th CPU
 * count 1000 * (n + 1) * (k + 1) + i for event i, as SNAPSHOT, time
 * enabled and running 1000000 * (n + 1) ns. FAKE_PMUSCOPE_VAL_FLAGS
 * "CPU:FLAGS,..." (FLAGS a number, PMUSCOPE_VAL_* bits) gives the values of
 * a CPU those flags, in READ and SNAPSHOT: with OFFLINE they stay those of
 * the first read (n = 0), with MULTIPLEXED time running is half of time
 * enabled. FAKE_PMUSCOPE_BACKWARDS set: each odd n gives every count 1
 * below that of n - 1 (a driver gone wrong).
 *
 * STREAM, then ENABLE: each read() of the session waits 5 ms, then gives
 * (the first time) a LOST record of 5 and a THROTTLED record, then 4
 * SAMPLE records, CPUs 0 and 1 in turn, of the reading process and
 * thread at the PC of libc's getpid() + 4, user flag, timer flag when
 * time-based, counts growing by 100000 x (i + 1) for event i, time
 * CLOCK_MONOTONIC in ns (as pmuscope_counter_now() off arm64). Not
 * enabled: EAGAIN. Too small a buffer: ENOSPC. STREAM refuses
 * (EOPNOTSUPP) what the handshake's features lack: STREAM, STREAM_TASK on
 * a task session, CALLCHAIN. With PMUSCOPE_STREAM_F_CALLCHAIN each SAMPLE
 * carries a chain (fake_record()). A task target (PMUSCOPE_FEAT_TASK: the
 * caller, or another thread, ESRCH when it does not exist) gives SAMPLEs
 * of no counts (nr 0) with the task's pid and tid; ENABLE_ON_EXEC arms it
 * (enabled at CONFIG). The session's state is shared with children forked
 * after the open, as the driver's is; up to 16 sessions may be open at
 * once, each with its own.
 *
 * AMU_READ number n (0, 1, ...) since the open gives each CPU c of the
 * bitmap an AMUv1 record, READ_OK, of 4 group-0 counters (all enabled)
 * and 2 group-1 counters (types 0x0024 STALL_BACKEND and 0x0300, both
 * implemented and enabled), time 5000000000 + 1000000000 * n ticks at
 * 1 GHz (a second a read, whatever the caller waited), each counter
 * starting at (c + 1) * 10^12 and growing each read by:
 *   even c: core 1e9, const 5e8, inst 1.5e9, mem stall 2.5e8
 *           (2000 MHz, busy 50%, IPC 1.5, memory-stall 25%)
 *   odd c:  core 3e9, const 1e9, inst 1.5e9, mem stall 3e8
 *           (3000 MHz, busy 100%, IPC 0.5, memory-stall 10%)
 *   group 1: counter 0 by 1000 * (c + 1), counter 1 by 2000 * (c + 1).
 * FAKE_PMUSCOPE_AMU changes CPUs: "CPU:WORD[+WORD...],..." with WORD one
 * of absent, disabled, offline (the state; no counters), lost (LOST on
 * every read but the first), const-broken (CONST_BROKEN), aux-zero
 * (AUX_ZERO, group 1 reads 0), mem-disabled (enabled0 bit 3 clear, the
 * counter reads 0), idle (no cycles counted: core, const, inst and mem
 * stall do not grow), no-g1 (no group 1), gone (offline on every read but
 * the first).
 *
 * SPE_START checks what the uapi header documents (flags, at least one
 * EL, PCT with TS, ops, the bitmap, the interval's multiple of 256, the
 * latency, the ring and buffer sizes, reserved zero; a counting session or
 * a second start: EBUSY). Then each read() waits 5 ms and gives one chunk
 * per CPU of the bitmap (at most 4), each of 16 records k = 0, 1, ...
 * numbered across the session: PC 0x400100 (EL0) for k % 4 != 3, else
 * 0x400200 + 4 * (k % 8); a load (OP TYPE class 1, payload 0); Events
 * RETIRED | L1D-ACCESS, with L1D-REFILL | LLC-ACCESS when k % 4 == 0;
 * total latency 10 * (k % 16), issue latency 1; data VA 0x1000 + 8k; data
 * source 0 (k % 2 == 0) or 8; with CX a Context packet of
 * FAKE_PMUSCOPE_SPE_PID (default: the reading process); with TS a
 * Timestamp packet ending it, else END. The first chunk of the second CPU
 * has the LOST flag and lost 128. After SPE_STOP: one chunk per CPU of 16
 * more records with STOPPED | FINAL, then EAGAIN. SPE_STATUS: each CPU's
 * bytes, lost_ring (128 on the second), fills (its chunks), state
 * RUNNING or STOPPED, freq 62.5 MHz; too little room: ENOSPC.
 *
 * Environment:
 *   FAKE_PMUSCOPE_FEATURES    handshake features (default: PMU, SNAPSHOT,
 *                             SNAPSHOT_HW, STREAM, AMU, SPE)
 *   FAKE_PMUSCOPE_SPE_ERRNO   SPE_START fails with this errno
 *   FAKE_PMUSCOPE_SPE_PID     the Context packets' value
 *   FAKE_PMUSCOPE_SNAP_ERRNO  SNAPSHOT fails with this errno (a number)
 *   FAKE_PMUSCOPE_READ_ERRNO  READ fails with this errno
 *   FAKE_PMUSCOPE_VAL_FLAGS   flags of some CPUs' values, as above
 *   FAKE_PMUSCOPE_BACKWARDS   counts that go backwards, as above
 *   FAKE_PMUSCOPE_STREAM_ERRNO  STREAM fails with this errno
 *   FAKE_PMUSCOPE_TASK_ERRNO  CONFIG of another thread fails with this errno;
 *                             ERRNO@TID: of thread TID only
 *   FAKE_PMUSCOPE_KERNEL_CHAIN  chains of even samples start with a kernel frame
 *   FAKE_PMUSCOPE_AMU         the AMU of some CPUs, as above
 *   FAKE_PMUSCOPE_AMU_ERRNO   AMU_READ fails with this errno
 *   FAKE_PMUSCOPE_LOG         a file: one line per ioctl
 */
/* Both open() and open64() are defined here: neither may be renamed. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuscope.h>

static int fake_fd = -1;

/*
 * The session's state, as the driver keeps it: shared with the children
 * forked after the open (a mapping), so that what a child configures and
 * streams (record -- CMD's task session) is what its parent reads.
 */
struct fake_session {
	unsigned int nr_events, snaps, reads;
	uint64_t cpus[16];
	int configured;
	int streaming, enabled, first_read;
	uint64_t counts[2][PMUSCOPE_MAX_EVENTS];
	uint32_t stream_flags;
	uint64_t features;		/* the handshake's */
	int task;			/* a task target: records carry no counts */
	uint32_t task_pid, task_tid;
	int chain;			/* PMUSCOPE_STREAM_F_CALLCHAIN */
	unsigned int max_stack;
};

static struct fake_session fake_local, *fake_s = &fake_local;

/* The open sessions (record -p opens one a thread): their files and states. */
#define FAKE_SESSIONS	16
static struct {
	int fd;
	struct fake_session *s;
} fake_open_sessions[FAKE_SESSIONS];
static unsigned int fake_nr_open;

/* Whether @fd is a session's; it becomes the current one (fake_s, fake_fd). */
static int fake_session_of(int fd)
{
	for (unsigned int i = 0; fd >= 0 && i < fake_nr_open; i++)
		if (fake_open_sessions[i].fd == fd) {
			fake_s = fake_open_sessions[i].s;
			fake_fd = fd;
			return 1;
		}
	return 0;
}

#define fake_nr_events		(fake_s->nr_events)
#define fake_snaps		(fake_s->snaps)
#define fake_reads		(fake_s->reads)
#define fake_cpus		(fake_s->cpus)
#define fake_configured		(fake_s->configured)
#define fake_streaming		(fake_s->streaming)
#define fake_enabled		(fake_s->enabled)
#define fake_first_read		(fake_s->first_read)
#define fake_counts		(fake_s->counts)
#define fake_stream_flags	(fake_s->stream_flags)
static unsigned int fake_amu_reads;
static int fake_spe;			/* 0 none, 1 profiling, 2 stopped, 3 drained */
static uint32_t fake_spe_flags;
static uint64_t fake_spe_cpus[64];
static uint64_t fake_spe_k, fake_spe_bytes[4], fake_spe_chunks[4];
static unsigned int fake_spe_ncpus;
static uint32_t fake_spe_cpu_ids[4];

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
		void *m = mmap(NULL, sizeof(*fake_s), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		fake_s = m == MAP_FAILED ? &fake_local : m;
		memset(fake_s, 0, sizeof(*fake_s));
		fake_fd = real("/dev/null", O_RDWR | (flags & O_CLOEXEC));
		if (fake_fd >= 0 && fake_nr_open < FAKE_SESSIONS)
			fake_open_sessions[fake_nr_open++] = (typeof(fake_open_sessions[0])){
				fake_fd, fake_s,
			};
		fake_configured = 0;
		fake_snaps = 0;
		fake_streaming = 0;
		fake_enabled = 0;
		fake_amu_reads = 0;
		fake_spe = 0;
		fake_spe_k = 0;
		memset(fake_spe_bytes, 0, sizeof(fake_spe_bytes));
		memset(fake_spe_chunks, 0, sizeof(fake_spe_chunks));
		return fake_fd;
	}
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return fake_open(path, flags, mode, "open");
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

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

	for (unsigned int i = 0; fd >= 0 && i < fake_nr_open; i++)
		if (fake_open_sessions[i].fd == fd) {
			fake_open_sessions[i] = fake_open_sessions[--fake_nr_open];
			break;
		}
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
		       PMUSCOPE_FEAT_STREAM | PMUSCOPE_FEAT_AMU | PMUSCOPE_FEAT_SPE;
	fake_s->features = hs->features;
	hs->nr_cpu_ids = 1024;
	hs->max_events = PMUSCOPE_MAX_EVENTS;
	return 0;
}

/* The process of thread @tid (/proc's Tgid). */
static uint32_t fake_tgid(pid_t tid)
{
	char path[64], line[128];
	uint32_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5))
			tgid = strtoul(line + 5, NULL, 10);
	if (f)
		fclose(f);
	return tgid;
}

/* A task target (PMUSCOPE_FEAT_TASK): the caller, or another thread. */
static int fake_config_task(const struct pmuscope_config *cfg)
{
	const char *err = getenv("FAKE_PMUSCOPE_TASK_ERRNO");
	pid_t self = syscall(SYS_gettid);

	if (!(fake_s->features & PMUSCOPE_FEAT_TASK))
		return fake_err(EOPNOTSUPP);
	if (cfg->cpus || cfg->cpus_size || cfg->pid < 0 || !cfg->nr_events ||
	    cfg->nr_events > PMUSCOPE_MAX_EVENTS ||
	    (cfg->flags & ~(PMUSCOPE_CFG_INHERIT | PMUSCOPE_CFG_ENABLE_ON_EXEC)))
		return fake_err(EINVAL);
	if (cfg->pid && cfg->pid != self) {
		const char *at = err ? strchr(err, '@') : NULL;

		if (err && *err && (!at || atoi(at + 1) == cfg->pid))
			return fake_err(atoi(err));
		if (kill(cfg->pid, 0) && errno == ESRCH)
			return fake_err(ESRCH);
	}
	memset(fake_cpus, 0, sizeof(fake_cpus));
	fake_nr_events = cfg->nr_events;
	fake_configured = 1;
	fake_s->task = 1;
	fake_s->task_tid = cfg->pid ? cfg->pid : self;
	fake_s->task_pid = cfg->pid ? fake_tgid(cfg->pid) : (uint32_t)getpid();
	fake_streaming = 0;
	/* Armed: counts as enabled (ioctl.rst). */
	fake_enabled = !!(cfg->flags & PMUSCOPE_CFG_ENABLE_ON_EXEC);
	fake_snaps = 0;
	fake_reads = 0;
	return 0;
}

static int fake_config(const struct pmuscope_config *cfg)
{
	if (cfg->size == sizeof(*cfg) && cfg->target == PMUSCOPE_TARGET_TASK)
		return fake_config_task(cfg);
	if (cfg->size != sizeof(*cfg) || cfg->target != PMUSCOPE_TARGET_CPUS ||
	    !cfg->nr_events || cfg->nr_events > PMUSCOPE_MAX_EVENTS ||
	    !cfg->cpus_size || cfg->cpus_size % 8 || cfg->cpus_size > sizeof(fake_cpus))
		return fake_err(EINVAL);
	memset(fake_cpus, 0, sizeof(fake_cpus));
	memcpy(fake_cpus, (const void *)(uintptr_t)cfg->cpus, cfg->cpus_size);
	fake_nr_events = cfg->nr_events;
	fake_configured = 1;
	fake_s->task = 0;
	fake_streaming = 0;
	fake_snaps = 0;
	fake_reads = 0;
	return 0;
}

/* FAKE_PMUSCOPE_VAL_FLAGS's flags for @cpu. */
static uint32_t fake_val_flags(unsigned int cpu)
{
	const char *env = getenv("FAKE_PMUSCOPE_VAL_FLAGS");
	char buf[256], *save = NULL, *tok;
	uint32_t flags = 0;

	if (!env || !*env)
		return 0;
	snprintf(buf, sizeof(buf), "%s", env);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');

		if (colon && (unsigned int)atoi(tok) == cpu)
			flags |= strtoul(colon + 1, NULL, 0);
	}
	return flags;
}

/*
 * Value of event @i on @cpu, the @k-th CPU, at read or snapshot @n;
 * @enabled: its time enabled (running alike).
 */
static struct pmuscope_value fake_value(unsigned int cpu, unsigned int k, unsigned int i,
					unsigned int n, uint64_t enabled)
{
	uint32_t flags = fake_val_flags(cpu);
	unsigned int m = (flags & PMUSCOPE_VAL_OFFLINE) ? 0 : n;
	uint64_t count = 1000ULL * (m + 1) * (k + 1) + i;

	if (getenv("FAKE_PMUSCOPE_BACKWARDS") && m % 2)
		count = 1000ULL * m * (k + 1) + i - 1;
	if (flags & PMUSCOPE_VAL_OFFLINE && enabled > 1000)
		enabled = 1000000;
	return (struct pmuscope_value){
		.count = count, .time_enabled = enabled,
		.time_running = (flags & PMUSCOPE_VAL_MULTIPLEXED) ? enabled / 2 : enabled,
		.cpu = cpu, .index = i, .flags = flags, .counter = i,
	};
}

static int fake_read(struct pmuscope_read *rd)
{
	const char *err = getenv("FAKE_PMUSCOPE_READ_ERRNO");
	struct pmuscope_value *vals = (struct pmuscope_value *)(uintptr_t)rd->values;
	unsigned int ncpus = 0, k = 0;

	if (rd->size != sizeof(*rd) || rd->flags || rd->reserved[0] || rd->reserved[1] ||
	    (rd->value_size && rd->value_size != sizeof(*vals)) || !fake_configured)
		return fake_err(EINVAL);
	if (err && *err)
		return fake_err(atoi(err));
	for (unsigned int w = 0; w < 16; w++)
		ncpus += __builtin_popcountll(fake_cpus[w]);
	if (rd->nr_values < ncpus * fake_nr_events) {
		rd->nr_values = ncpus * fake_nr_events;
		return fake_err(ENOSPC);
	}
	for (unsigned int cpu = 0; cpu < 1024; cpu++) {
		if (!(fake_cpus[cpu / 64] & (1ULL << (cpu % 64))))
			continue;
		for (unsigned int i = 0; i < fake_nr_events; i++)
			vals[k * fake_nr_events + i] = fake_value(cpu, k, i, fake_reads,
								  1000000ULL * (fake_reads + 1));
		k++;
	}
	rd->nr_values = ncpus * fake_nr_events;
	fake_reads++;
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
			.flags = (fake_val_flags(cpu) & PMUSCOPE_VAL_OFFLINE) ? PMUSCOPE_SNAPCPU_OFFLINE : 0,
			.method = (sn->flags & PMUSCOPE_SNAP_F_SOFTWARE) ? PMUSCOPE_SNAP_SOFTWARE :
				  PMUSCOPE_SNAP_HARDWARE,
			.time = 1000000 + 1000ULL * fake_snaps + 4 * k,
			.skew = 4 * k,
			.frozen = (sn->flags & PMUSCOPE_SNAP_F_SOFTWARE) ? 3 : 0,
		};
		for (unsigned int i = 0; i < fake_nr_events; i++)
			vals[k * fake_nr_events + i] = fake_value(cpu, k, i, fake_snaps, 1000);
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

	fake_log("stream period_ms=%u sample_index=%u sample_period=%llu ring_kib=%u%s",
		 st->period_ms, st->sample_index, (unsigned long long)st->sample_period,
		 st->ring_kib, fake_s->task ? " task" : "");
	if (st->flags)
		fake_log("stream flags=%u max_stack=%u", st->flags, st->max_stack);
	if (st->size != sizeof(*st) || (st->flags & ~PMUSCOPE_STREAM_F_CALLCHAIN) ||
	    st->max_stack > PMUSCOPE_STACK_MAX ||
	    (st->max_stack && !(st->flags & PMUSCOPE_STREAM_F_CALLCHAIN)) ||
	    st->wakeup_kib * 2 > (st->ring_kib ? st->ring_kib : PMUSCOPE_STREAM_KIB_DEFAULT) ||
	    st->reserved0 || st->reserved1 || st->reserved2 ||
	    !fake_configured || st->period_ms > PMUSCOPE_STREAM_MS_MAX ||
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
	if (!(fake_s->features & PMUSCOPE_FEAT_STREAM) ||
	    (fake_s->task && !(fake_s->features & PMUSCOPE_FEAT_STREAM_TASK)) ||
	    ((st->flags & PMUSCOPE_STREAM_F_CALLCHAIN) &&
	     !(fake_s->features & PMUSCOPE_FEAT_CALLCHAIN)))
		return fake_err(EOPNOTSUPP);
	fake_s->chain = !!(st->flags & PMUSCOPE_STREAM_F_CALLCHAIN);
	fake_s->max_stack = st->max_stack ? st->max_stack : PMUSCOPE_STACK_DEFAULT;
	fake_streaming = st->period_ms || st->sample_index != PMUSCOPE_STREAM_NO_EVENT;
	fake_stream_flags = PMUSCOPE_REC_F_USER |
			    (st->sample_index == PMUSCOPE_STREAM_NO_EVENT ? PMUSCOPE_REC_F_TIMER : 0);
	fake_first_read = 1;
	memset(fake_counts, 0, sizeof(fake_counts));
	return 0;
}

/* The most bytes fake_record() writes for one record. */
#define FAKE_REC_MAX	(sizeof(struct pmuscope_record) + 8 * PMUSCOPE_MAX_EVENTS + \
			 sizeof(struct pmuscope_rec_chain) + 8 * 3)

/*
 * A record; a SAMPLE's @k-th of a read: with call chains, the chain is
 * FAKE_PMUSCOPE_KERNEL_CHAIN set and @k even: one kernel frame
 * (0xffff800080001000 + k), no user flag; the user PC and 2 return
 * addresses (PC + 0x100, PC + 0x200); cut to max_stack (TRUNCATED).
 */
static size_t fake_record(unsigned char *p, uint16_t type, uint32_t cpu, uint64_t value,
			  unsigned int k)
{
	unsigned int nr = type == PMUSCOPE_REC_SAMPLE && !fake_s->task ? fake_nr_events : 0;
	struct pmuscope_record r = {
		.type = type, .size = sizeof(r) + 8 * nr, .cpu = cpu, .value = value, .nr = nr,
	};
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	r.time = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	if (type == PMUSCOPE_REC_SAMPLE) {
		r.pid = fake_s->task ? fake_s->task_pid : (uint32_t)getpid();
		r.tid = fake_s->task ? fake_s->task_tid : (uint32_t)syscall(SYS_gettid);
		r.pc = (uintptr_t)dlsym(RTLD_NEXT, "getpid") + 4;
		r.flags = fake_stream_flags;
		for (unsigned int i = 0; i < nr; i++) {
			fake_counts[cpu][i] += 100000ULL * (i + 1);
			memcpy(p + sizeof(r) + 8 * i, &fake_counts[cpu][i], 8);
		}
	}
	if (type == PMUSCOPE_REC_SAMPLE && fake_s->chain) {
		struct pmuscope_rec_chain c = { .version = PMUSCOPE_CHAIN_VERSION,
						.size = sizeof(c) };
		uint64_t ips[3];
		unsigned int n = 0, room = fake_s->max_stack;

		if (getenv("FAKE_PMUSCOPE_KERNEL_CHAIN") && k % 2 == 0) {
			ips[n++] = 0xffff800080001000ULL + k;
			c.nr_kernel = 1;
			r.flags &= ~PMUSCOPE_REC_F_USER;
		}
		for (unsigned int u = 0; u < 3 && n < room; u++, c.nr_user++)
			ips[n++] = r.pc + 0x100 * u;
		if (c.nr_kernel + c.nr_user < 3 + c.nr_kernel)
			c.flags |= PMUSCOPE_CHAIN_F_TRUNCATED;
		r.flags |= PMUSCOPE_REC_F_CHAIN;
		memcpy(p + r.size, &c, sizeof(c));
		memcpy(p + r.size + sizeof(c), ips, 8 * n);
		r.size += sizeof(c) + 8 * n;
	}
	memcpy(p, &r, sizeof(r));
	return r.size;
}


/* ------------------------------------------------------------------- SPE */
static int fake_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

static int fake_spe_start(const struct pmuscope_spe_config *cfg)
{
	const char *err = getenv("FAKE_PMUSCOPE_SPE_ERRNO");
	const uint64_t *cpus = (const uint64_t *)(uintptr_t)cfg->cpus;
	uint32_t all = PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1 | PMUSCOPE_SPE_TS | PMUSCOPE_SPE_PA |
		       PMUSCOPE_SPE_CX | PMUSCOPE_SPE_PCT | PMUSCOPE_SPE_JITTER |
		       PMUSCOPE_SPE_DISCARD;
	uint32_t buf = cfg->buffer_kib ? cfg->buffer_kib : PMUSCOPE_SPE_KIB_DEFAULT;
	uint32_t hw = cfg->hw_kib ? cfg->hw_kib : PMUSCOPE_SPE_HW_KIB_DEFAULT;
	unsigned int n = 0;

	fake_log("spe_start flags=0x%x cpus_size=%u ops=0x%x interval=%llu min_latency=%u",
		 cfg->flags, cfg->cpus_size, cfg->ops, (unsigned long long)cfg->interval,
		 cfg->min_latency);
	if (cfg->size != sizeof(*cfg) || (cfg->flags & ~all) ||
	    !(cfg->flags & (PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1)) ||
	    ((cfg->flags & PMUSCOPE_SPE_PCT) && !(cfg->flags & PMUSCOPE_SPE_TS)) ||
	    (cfg->ops & ~(PMUSCOPE_SPE_OP_BRANCH | PMUSCOPE_SPE_OP_LOAD | PMUSCOPE_SPE_OP_STORE)) ||
	    !cpus || !cfg->cpus_size || cfg->cpus_size % 8 || cfg->cpus_size > 4096 ||
	    cfg->interval % 256 || cfg->interval > PMUSCOPE_SPE_INTERVAL_MAX ||
	    cfg->min_latency > 65535 ||
	    !fake_pow2(buf) || buf < PMUSCOPE_SPE_KIB_MIN || buf > PMUSCOPE_SPE_KIB_MAX ||
	    !fake_pow2(hw) || hw < PMUSCOPE_SPE_HW_KIB_MIN || hw > PMUSCOPE_SPE_HW_KIB_MAX ||
	    hw > buf / 2 || cfg->wakeup_kib > buf || cfg->reserved[0] || cfg->reserved[1])
		return fake_err(EINVAL);
	memset(fake_spe_cpus, 0, sizeof(fake_spe_cpus));
	memcpy(fake_spe_cpus, cpus, cfg->cpus_size);
	fake_spe_ncpus = 0;
	for (unsigned int c = 0; c < cfg->cpus_size * 8; c++)
		if (fake_spe_cpus[c / 64] & (1ULL << (c % 64))) {
			if (fake_spe_ncpus < 4)
				fake_spe_cpu_ids[fake_spe_ncpus++] = c;
			n++;
		}
	if (!n)
		return fake_err(EINVAL);
	if (fake_configured || fake_spe)
		return fake_err(EBUSY);
	if (err && *err)
		return fake_err(atoi(err));
	fake_spe_flags = cfg->flags;
	fake_spe = 1;
	return 0;
}

static size_t fake_le(unsigned char *p, unsigned char hdr, uint64_t v, unsigned int n)
{
	p[0] = hdr;
	for (unsigned int i = 0; i < n; i++)
		p[1 + i] = v >> (8 * i);
	return 1 + n;
}

/* Record number @k (the comment at the top says what it holds). */
static size_t fake_spe_record(unsigned char *p, uint64_t k)
{
	const char *pidenv = getenv("FAKE_PMUSCOPE_SPE_PID");
	uint64_t pc = k % 4 != 3 ? 0x400100 : 0x400200 + 4 * (k % 8);
	size_t n = 0;

	n += fake_le(p + n, 0xb0, pc, 8);			/* PC, EL0, NS 0 */
	n += fake_le(p + n, 0x49, 0, 1);			/* load, GP register */
	n += fake_le(p + n, 0x52, 0x6 | (k % 4 == 0 ? 0x108 : 0), 2);	/* events */
	n += fake_le(p + n, 0x98, 10 * (k % 16), 2);		/* total latency */
	n += fake_le(p + n, 0x99, 1, 2);			/* issue latency */
	n += fake_le(p + n, 0xb2, 0x1000 + 8 * k, 8);		/* data VA */
	n += fake_le(p + n, 0x43, k % 2 ? 8 : 0, 1);		/* data source */
	if (fake_spe_flags & PMUSCOPE_SPE_CX)
		n += fake_le(p + n, 0x64, pidenv && *pidenv ? strtoul(pidenv, NULL, 0) :
					  (unsigned long)getpid(), 4);
	if (fake_spe_flags & PMUSCOPE_SPE_TS)
		n += fake_le(p + n, 0x71, 1000000 + k, 8);
	else
		p[n++] = 0x01;
	return n;
}

static ssize_t fake_spe_read(unsigned char *p, size_t len)
{
	struct timespec wait = { 0, 5000000 };
	size_t off = 0;

	if (fake_spe == 3)
		return fake_err(EAGAIN);
	nanosleep(&wait, NULL);
	for (unsigned int i = 0; i < fake_spe_ncpus; i++) {
		struct pmuscope_spe_chunk c = { .cpu = fake_spe_cpu_ids[i] };
		unsigned char data[16 * 64];
		size_t dn = 0;

		for (unsigned int r = 0; r < 16; r++)
			dn += fake_spe_record(data + dn, fake_spe_k++);
		c.data_size = dn;
		c.size = (sizeof(c) + dn + 7) & ~7UL;
		c.time = 1000000 + fake_spe_k;
		if (i == 1 && !fake_spe_chunks[1]) {
			c.flags |= PMUSCOPE_SPE_C_LOST;
			c.lost = 128;
		}
		if (fake_spe == 2)
			c.flags |= PMUSCOPE_SPE_C_STOPPED | PMUSCOPE_SPE_C_FINAL;
		if (off + c.size > len) {
			if (!off)
				return fake_err(ENOSPC);
			fake_spe_k -= 16;
			break;
		}
		memcpy(p + off, &c, sizeof(c));
		memcpy(p + off + sizeof(c), data, dn);
		memset(p + off + sizeof(c) + dn, 0, c.size - sizeof(c) - dn);
		off += c.size;
		fake_spe_bytes[i] += dn;
		fake_spe_chunks[i]++;
	}
	if (fake_spe == 2)
		fake_spe = 3;
	return off;
}

static int fake_spe_status(struct pmuscope_spe_status *st)
{
	struct pmuscope_spe_cpu *recs = (struct pmuscope_spe_cpu *)(uintptr_t)st->records;

	if (st->size != sizeof(*st) || st->flags || st->reserved[0] || st->reserved[1] ||
	    (st->record_size && st->record_size != sizeof(*recs)) || !fake_spe)
		return fake_err(EINVAL);
	if (st->nr_records < fake_spe_ncpus) {
		st->nr_records = fake_spe_ncpus;
		return fake_err(ENOSPC);
	}
	for (unsigned int i = 0; i < fake_spe_ncpus; i++) {
		memset(&recs[i], 0, sizeof(recs[i]));
		recs[i].cpu = fake_spe_cpu_ids[i];
		recs[i].state = fake_spe == 1 ? PMUSCOPE_SPE_RUNNING : PMUSCOPE_SPE_STOPPED;
		recs[i].bytes = fake_spe_bytes[i];
		recs[i].lost_ring = i == 1 ? 128 : 0;
		recs[i].fills = fake_spe_chunks[i];
	}
	st->nr_records = fake_spe_ncpus;
	st->freq = 62500000;
	return 0;
}

ssize_t read(int fd, void *buf, size_t len)
{
	ssize_t (*real)(int, void *, size_t) =
		(ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	unsigned char *p = buf;
	size_t off = 0, one = FAKE_REC_MAX;
	struct timespec wait = { 0, 5000000 };

	if (!fake_session_of(fd))
		return real(fd, buf, len);
	if (fake_spe)
		return fake_spe_read(p, len);
	if (!fake_streaming || !fake_enabled)
		return fake_err(EAGAIN);
	if (len < one + 2 * sizeof(struct pmuscope_record))
		return fake_err(ENOSPC);
	nanosleep(&wait, NULL);
	if (fake_first_read) {
		off += fake_record(p + off, PMUSCOPE_REC_LOST, 1, 5, 0);
		off += fake_record(p + off, PMUSCOPE_REC_THROTTLED, 0, 0, 0);
		fake_first_read = 0;
	}
	for (unsigned int k = 0; k < 4 && off + one <= len; k++)
		off += fake_record(p + off, PMUSCOPE_REC_SAMPLE, k % 2, 0, k);
	return off;
}

/* FAKE_PMUSCOPE_AMU's words for @cpu, as a bit mask of fake_amu_words[]. */
static const char *const fake_amu_words[] = {
	"absent", "disabled", "offline", "lost", "const-broken", "aux-zero", "mem-disabled",
	"idle", "no-g1", "gone",
};

enum {
	FAKE_AMU_ABSENT = 1 << 0, FAKE_AMU_DISABLED = 1 << 1, FAKE_AMU_OFFLINE = 1 << 2,
	FAKE_AMU_LOST = 1 << 3, FAKE_AMU_CONST_BROKEN = 1 << 4, FAKE_AMU_AUX_ZERO = 1 << 5,
	FAKE_AMU_MEM_DISABLED = 1 << 6, FAKE_AMU_IDLE = 1 << 7, FAKE_AMU_NO_G1 = 1 << 8,
	FAKE_AMU_GONE = 1 << 9,
};

static unsigned int fake_amu_script(unsigned int cpu)
{
	const char *env = getenv("FAKE_PMUSCOPE_AMU");
	char buf[512], *save = NULL, *tok;
	unsigned int words = 0;

	if (!env || !*env)
		return 0;
	snprintf(buf, sizeof(buf), "%s", env);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *wsave = NULL, *w;

		if (!colon || (unsigned int)atoi(tok) != cpu)
			continue;
		for (w = strtok_r(colon + 1, "+", &wsave); w; w = strtok_r(NULL, "+", &wsave))
			for (unsigned int i = 0; i < sizeof(fake_amu_words) / sizeof(fake_amu_words[0]); i++)
				if (!strcmp(w, fake_amu_words[i]))
					words |= 1U << i;
	}
	return words;
}

static void fake_amu_cpu(struct pmuscope_amu_cpu *r, unsigned int cpu, unsigned int n)
{
	static const uint64_t grow[2][4] = {
		{ 1000000000, 500000000, 1500000000, 250000000 },
		{ 3000000000, 1000000000, 1500000000, 300000000 },
	};
	unsigned int words = fake_amu_script(cpu);
	uint64_t base = (cpu + 1) * 1000000000000ULL;

	memset(r, 0, sizeof(*r));
	r->cpu = cpu;
	if (words & FAKE_AMU_GONE && n)
		words |= FAKE_AMU_OFFLINE;
	if (words & (FAKE_AMU_ABSENT | FAKE_AMU_DISABLED | FAKE_AMU_OFFLINE)) {
		r->state = words & FAKE_AMU_ABSENT ? PMUSCOPE_AMU_ABSENT :
			   words & FAKE_AMU_DISABLED ? PMUSCOPE_AMU_DISABLED : PMUSCOPE_AMU_OFFLINE;
		return;
	}
	r->state = PMUSCOPE_AMU_READ_OK;
	r->version = 1;
	r->flags = (words & FAKE_AMU_LOST && n ? PMUSCOPE_AMU_F_LOST : 0) |
		   (words & FAKE_AMU_CONST_BROKEN ? PMUSCOPE_AMU_F_CONST_BROKEN : 0) |
		   (words & FAKE_AMU_AUX_ZERO ? PMUSCOPE_AMU_F_AUX_ZERO : 0);
	r->nr_group0 = 4;
	r->enabled0 = words & FAKE_AMU_MEM_DISABLED ? 0x7 : 0xf;
	r->time = 5000000000ULL + 1000000000ULL * n;
	r->type0[0] = 0x0011;
	r->type0[1] = 0x4004;
	r->type0[2] = 0x0008;
	r->type0[3] = 0x4005;
	for (unsigned int i = 0; i < 4; i++)
		if (r->enabled0 & (1U << i))
			r->group0[i] = base + (words & FAKE_AMU_IDLE ? 0 : grow[cpu % 2][i] * n);
	if (words & FAKE_AMU_NO_G1)
		return;
	r->nr_group1 = 2;
	r->implemented1 = 0x3;
	r->enabled1 = 0x3;
	r->type1[0] = 0x0024;
	r->type1[1] = 0x0300;
	if (words & FAKE_AMU_AUX_ZERO)
		return;
	r->group1[0] = base + 1000ULL * (cpu + 1) * n;
	r->group1[1] = base + 2000ULL * (cpu + 1) * n;
}

static int fake_amu_read(struct pmuscope_amu_read *rd)
{
	const char *err = getenv("FAKE_PMUSCOPE_AMU_ERRNO");
	const uint64_t *cpus = (const uint64_t *)(uintptr_t)rd->cpus;
	struct pmuscope_amu_cpu *recs = (struct pmuscope_amu_cpu *)(uintptr_t)rd->records;
	unsigned int ncpus = 0, k = 0, words = rd->cpus_size / 8;

	fake_log("amu_read cpus_size=%u nr_records=%u record_size=%u", rd->cpus_size,
		 rd->nr_records, rd->record_size);
	if (err && *err)
		return fake_err(atoi(err));
	if (rd->size != sizeof(*rd) || rd->flags || rd->reserved0 || rd->reserved[0] ||
	    rd->reserved[1] || rd->cpus_size < 8 || rd->cpus_size > 4096 || rd->cpus_size % 8 ||
	    (rd->record_size && rd->record_size != sizeof(*recs)))
		return fake_err(EINVAL);
	for (unsigned int w = 0; w < words; w++) {
		if (w >= 16 && cpus[w])
			return fake_err(EINVAL);	/* a CPU >= nr_cpu_ids, 1024 */
		ncpus += __builtin_popcountll(cpus[w]);
	}
	if (!ncpus)
		return fake_err(EINVAL);
	if (rd->nr_records < ncpus) {
		rd->nr_records = ncpus;
		return fake_err(ENOSPC);
	}
	for (unsigned int cpu = 0; cpu < words * 64 && cpu < 1024; cpu++)
		if (cpus[cpu / 64] & (1ULL << (cpu % 64)))
			fake_amu_cpu(&recs[k++], cpu, fake_amu_reads);
	rd->nr_records = ncpus;
	rd->freq = 1000000000;
	fake_amu_reads++;
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
	if (!fake_session_of(fd))
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
	case PMUSCOPE_IOC_READ:
		return fake_read(arg);
	case PMUSCOPE_IOC_STREAM:
		return fake_stream(arg);
	case PMUSCOPE_IOC_AMU_READ:
		return fake_amu_read(arg);
	case PMUSCOPE_IOC_SPE_START:
		return fake_spe_start(arg);
	case PMUSCOPE_IOC_SPE_STOP:
		fake_log("spe_stop");
		if (!fake_spe)
			return fake_err(EINVAL);
		if (fake_spe == 1)
			fake_spe = 2;
		return 0;
	case PMUSCOPE_IOC_SPE_STATUS:
		return fake_spe_status(arg);
	default:
		return fake_err(ENOTTY);
	}
}
