/* SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0 */
/*
 * libpmuscope: user-space access to the pmuscope driver (/dev/pmuscope).
 *
 * Functions return 0 or a negative errno. Those that take a session keep a
 * message naming the cause of the last failure: pmuscope_errmsg(). The
 * others fill a caller's buffer (err, errlen) when they fail. A NULL
 * session gives -EINVAL (pmuscope_errmsg(NULL) says so).
 */
#ifndef PMUSCOPE_LIB_H
#define PMUSCOPE_LIB_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/pmuscope.h>

#define PMUSCOPE_LIB_VERSION	"0.5.0"
#define PMUSCOPE_MAX_CPUS	1024
#define PMUSCOPE_CPU_WORDS	(PMUSCOPE_MAX_CPUS / 64)

/**
 * struct pmuscope_event_spec - an event as the user named it
 * @number: event number (PMEVTYPER evtCount)
 * @flags: PMUSCOPE_EV_EL0/EL1/EL2, PMUSCOPE_EV_RAW
 * @name: architectural name (CPU_CYCLES) or "r0x..." for a raw number
 * @label: the name as the user wrote it, without modifiers (cycles)
 */
struct pmuscope_event_spec {
	uint32_t number;
	uint32_t flags;
	char name[40];
	char label[40];
};

/**
 * pmuscope_event_parse() - parse one event specification
 * @text: NAME[:MODS]. NAME: an architectural name in any case
 *	(inst_retired), an alias (cycles, instructions, branch-misses, ...),
 *	a number (0x11) or a raw number (r0xc0, r11: hexadecimal). MODS: any
 *	of u (EL0), k (the kernel's exception level: EL1, or EL2 on a VHE
 *	host, see pmuscope_kernel_el()), h (EL2); default uk.
 * @ev: the result
 * @err: message on failure, naming the closest known names
 * @errlen: size of @err
 *
 * Return: 0, or -EINVAL (syntax) or -ENOENT (unknown name).
 */
int pmuscope_event_parse(const char *text, struct pmuscope_event_spec *ev,
			 char *err, size_t errlen);

/**
 * pmuscope_kernel_el() - the exception level the kernel runs at
 * Return: 2 on a VHE host (the driver's sysfs kernel_el), else 1 (also
 * when the driver is not loaded).
 */
unsigned int pmuscope_kernel_el(void);

/**
 * pmuscope_modifiers_format() - the modifiers of PMUSCOPE_EV_* @flags
 * @kernel_el: pmuscope_kernel_el(), read once by the caller
 * @buf: 5 bytes or more: "uk", "u", "kh", ... ("g": EL1 on a VHE host)
 */
void pmuscope_modifiers_format(uint32_t flags, unsigned int kernel_el, char *buf);

/** pmuscope_event_name() - architectural name of @number, or NULL. */
const char *pmuscope_event_name(uint32_t number);
/** pmuscope_event_desc() - one-line description of @number, or NULL. */
const char *pmuscope_event_desc(uint32_t number);
/** pmuscope_event_count() - number of entries of the event table. */
size_t pmuscope_event_count(void);
/** pmuscope_event_at() - the @i-th common event: number, name, description. */
int pmuscope_event_at(size_t i, uint32_t *number, const char **name,
		      const char **desc);
/** pmuscope_alias_of() - the first alias of @number (e.g. "cycles"), or NULL. */
const char *pmuscope_alias_of(uint32_t number);

/**
 * pmuscope_cpulist_parse() - parse "0-3,6" into a CPU bitmap
 * Return: 0, or -EINVAL with @err set.
 */
int pmuscope_cpulist_parse(const char *text, uint64_t *mask, size_t words,
			   char *err, size_t errlen);
/** pmuscope_cpulist_format() - "0-3,6" from a CPU bitmap. */
void pmuscope_cpulist_format(const uint64_t *mask, size_t words, char *buf,
			     size_t len);

/**
 * struct pmuscope_cpu_info - what the driver found on one CPU (sysfs)
 */
struct pmuscope_cpu_info {
	int cpu;
	int online;
	int probed;
	char name[32];
	char pmu[32];			/* "present", "absent", ... */
	char pmu_version_name[32];
	unsigned int num_counters;
	unsigned int event_width;
	uint64_t pmceid0, pmceid1;
};

/**
 * pmuscope_sysfs_root() - the driver's sysfs directory; PMUSCOPE_SYSFS in
 * the environment overrides /sys/kernel/pmuscope (for tests).
 */
const char *pmuscope_sysfs_root(void);
/**
 * pmuscope_emulated() - 1 when the loaded driver is pmuscope_emu.ko (the
 * register model, not hardware), with the emulated CPU profile's name in
 * @profile; 0 for pmuscope.ko or when no driver is loaded.
 */
int pmuscope_emulated(char *profile, size_t len);
/** pmuscope_cpu_info() - read @cpu's description. -ENOENT if none. */
int pmuscope_cpu_info(int cpu, struct pmuscope_cpu_info *info);
/** pmuscope_online_cpus() - bitmap of the CPUs the driver describes, online. */
int pmuscope_online_cpus(uint64_t *mask, size_t words);
/** pmuscope_cpu_has_event() - does @info's PMCEID report @number? */
int pmuscope_cpu_has_event(const struct pmuscope_cpu_info *info, uint32_t number);

/* A session: one open /dev/pmuscope. */
struct pmuscope;

/**
 * pmuscope_open() - open the device and check the API version
 * Return: 0, -ENOENT (module not loaded), -EPROTO (API version differs),
 * or another -errno; @err names the cause.
 */
int pmuscope_open(struct pmuscope **out, char *err, size_t errlen);
void pmuscope_close(struct pmuscope *h);
/** pmuscope_errmsg() - the cause of the session's last failure. */
const char *pmuscope_errmsg(const struct pmuscope *h);
/** pmuscope_features() - PMUSCOPE_FEAT_* of the loaded driver. */
uint64_t pmuscope_features(const struct pmuscope *h);

/**
 * pmuscope_configure() - count @evs on the CPUs of @cpus
 * Return: 0 or -errno of PMUSCOPE_IOC_CONFIG; pmuscope_errmsg() says which
 * event, CPU or counter holder is the cause.
 */
int pmuscope_configure(struct pmuscope *h, const struct pmuscope_event_spec *evs,
		       unsigned int nr, const uint64_t *cpus, size_t words);
/**
 * pmuscope_configure_task() - count @evs in thread @tid (0: the caller),
 * wherever it runs (API version 2, PMUSCOPE_FEAT_TASK)
 * @flags: PMUSCOPE_CFG_INHERIT (children created later too),
 *         PMUSCOPE_CFG_ENABLE_ON_EXEC (start at the thread's next exec)
 * A read gives one value per event, cpu PMUSCOPE_CPU_ANY.
 * Return: 0 or -errno (-EOPNOTSUPP: the backend cannot count tasks).
 */
int pmuscope_configure_task(struct pmuscope *h, const struct pmuscope_event_spec *evs,
			    unsigned int nr, int tid, uint32_t flags);
int pmuscope_enable(struct pmuscope *h);
int pmuscope_disable(struct pmuscope *h);
int pmuscope_reset(struct pmuscope *h);

/**
 * struct pmuscope_count - one counter of one CPU
 * @count: raw count
 * @scaled: @count * @time_enabled / @time_running where they differ
 */
struct pmuscope_count {
	uint32_t cpu;
	uint32_t index;
	uint32_t flags;			/* PMUSCOPE_VAL_* */
	uint32_t counter;
	uint64_t count;
	uint64_t scaled;
	uint64_t time_enabled;
	uint64_t time_running;
};

/**
 * pmuscope_read() - all counters of all CPUs in one call
 * @out: room for nr_events x CPUs values, CPU by CPU
 * Return: 0 with *@nr set, or -errno (-ENOSPC: *@nr is what is needed).
 */
int pmuscope_read(struct pmuscope *h, struct pmuscope_count *out,
		  unsigned int room, unsigned int *nr);

/**
 * pmuscope_swinc() - software increments (PMSWINC_EL0) on one CPU
 * @event_mask: bit i: event i of the configuration, which must be SW_INCR
 * @cpu: a CPU of the session, online
 * @count: 1 to 4096 increments of each counter in @event_mask
 * Return: 0 or -errno of PMUSCOPE_IOC_SWINC (Documentation/ioctl.rst).
 */
int pmuscope_swinc(struct pmuscope *h, uint64_t event_mask, unsigned int cpu,
		   unsigned int count);

/**
 * struct pmuscope_snap_info - how one CPU's counts of a snapshot were taken
 * @cpu: the CPU
 * @method: PMUSCOPE_SNAP_HARDWARE, _SOFTWARE, _PERF or _IDLE
 *	(pmuscope_snap_method_name())
 * @flags: PMUSCOPE_SNAPCPU_LATE, _FALLBACK, _OFFLINE
 *	(pmuscope_snap_flags_str())
 * @time: system counter (CNTVCT) at the capture, ticks
 * @skew: @time minus the earliest capture time of the snapshot, ticks
 * @frozen: software method: ticks the counters were stopped, at most
 * @spread: perf method: ticks from the first counter read to the last
 */
struct pmuscope_snap_info {
	uint32_t cpu;
	uint32_t method;
	uint32_t flags;
	uint64_t time;
	uint64_t skew;
	uint64_t frozen;
	uint64_t spread;
};

/**
 * struct pmuscope_snap - what a snapshot returns besides the values
 * @freq: system counter frequency, Hz (pmuscope_ticks_ns())
 * @skew: latest minus earliest capture time of the CPUs, ticks
 * @nr_values: values written (with -ENOSPC: the number needed)
 * @nr_cpus: CPUs written (with -ENOSPC: the number needed)
 */
struct pmuscope_snap {
	uint64_t freq;
	uint64_t skew;
	unsigned int nr_values;
	unsigned int nr_cpus;
};

/**
 * pmuscope_snapshot() - all counters of all CPUs, captured at one instant
 * (PMUSCOPE_IOC_SNAPSHOT, API version 3, PMUSCOPE_FEAT_SNAPSHOT)
 * @flags: 0 (the driver chooses: hardware where it can, else software),
 *	PMUSCOPE_SNAP_F_SOFTWARE (never the hardware capture) or
 *	PMUSCOPE_SNAP_F_HARDWARE (the hardware capture on every CPU, or fail)
 * @lead_us: the common deadline's lead over the request, 1 to
 *	PMUSCOPE_SNAP_LEAD_US_MAX microseconds; 0: the driver's default (100)
 * @out: room for @room values: nr_events x CPUs, CPU by CPU in ascending
 *	CPU order, as pmuscope_read() gives them (@scaled filled alike)
 * @cpus: room for @cpu_room CPUs, one per CPU of the session, same order
 * @res: frequency, total skew and the numbers written
 *
 * A CPU session only (pmuscope_configure()). Each CPU waits for a common
 * system-counter deadline, then captures its counters.
 * Return: 0, or -errno with pmuscope_errmsg() set: -ENOSPC (@res holds
 * what is needed), -EOPNOTSUPP (a task session; or F_HARDWARE and a CPU
 * without a usable hardware capture: the message names each such CPU and
 * its sysfs snapshot_hw state), -EINVAL (both F_SOFTWARE and F_HARDWARE,
 * @lead_us too large, no configuration).
 */
int pmuscope_snapshot(struct pmuscope *h, uint32_t flags, unsigned int lead_us,
		      struct pmuscope_count *out, unsigned int room,
		      struct pmuscope_snap_info *cpus, unsigned int cpu_room,
		      struct pmuscope_snap *res);

/**
 * pmuscope_snap_method_name() - "hardware", "software", "perf", "idle" for
 * PMUSCOPE_SNAP_*; "unknown" for any other number.
 */
const char *pmuscope_snap_method_name(uint32_t method);

/**
 * pmuscope_snap_flags_str() - "late,fallback,offline" for
 * PMUSCOPE_SNAPCPU_* flags, in that order; "" for none. Unknown bits are
 * left out. Cut short (never overrun) when @len is too small.
 */
void pmuscope_snap_flags_str(uint32_t flags, char *buf, size_t len);

/**
 * pmuscope_snap_hw_state() - @cpu's hardware snapshot state, from the
 * driver's sysfs cpuN/snapshot_hw: "absent", "off", "under-el2",
 * "untried", "ready", "prohibited", "timeout" or "stale"
 * Return: 0, or -ENOENT (no such file: no driver, or one without it).
 */
int pmuscope_snap_hw_state(int cpu, char *buf, size_t len);

/**
 * pmuscope_snap_hw_usable() - may a CPU in hardware snapshot @state
 * capture in hardware? 1 for "untried" and "ready", else 0.
 */
int pmuscope_snap_hw_usable(const char *state);

/**
 * pmuscope_snap_hw_explain() - the CPUs of @cpus whose hardware snapshot
 * is not usable, as "cpu0: hardware snapshot off, cpu1: hardware snapshot
 * absent" (states as pmuscope_snap_hw_state(); CPUs whose state cannot be
 * read are left out), ", ..." at the end when @buf is full
 * Return: how many CPUs are not usable (0: @buf is "").
 */
int pmuscope_snap_hw_explain(const uint64_t *cpus, size_t words, char *buf, size_t len);

/**
 * pmuscope_ticks_ns() - @ticks of a counter running at @freq Hz, in ns,
 * rounded to the nearest; 0 when @freq is 0.
 */
uint64_t pmuscope_ticks_ns(uint64_t ticks, uint64_t freq);

/**
 * struct pmuscope_stream_cfg - what a stream of records gives
 * @period_ms: a record every @period_ms ms on every CPU of the session
 *	(time-based), 1 to PMUSCOPE_STREAM_MS_MAX; 0: none
 * @sample_index: the event of the configuration (0: the first) whose
 *	counter overflows every @sample_period events and records then
 *	(event-based: a sampling profiler); PMUSCOPE_STREAM_NO_EVENT: none
 * @sample_period: events between two records, PMUSCOPE_STREAM_PERIOD_MIN
 *	to PMUSCOPE_STREAM_PERIOD_MAX
 * @ring_kib: the ring's size in KiB, a power of 2 from
 *	PMUSCOPE_STREAM_KIB_MIN to PMUSCOPE_STREAM_KIB_MAX; 0: the driver's
 *	default, PMUSCOPE_STREAM_KIB_DEFAULT
 */
struct pmuscope_stream_cfg {
	unsigned int period_ms;
	unsigned int sample_index;
	uint64_t sample_period;
	unsigned int ring_kib;
	unsigned int wakeup_kib;	/* wake at this much, <= ring_kib / 2; 0: each record */
};

/**
 * pmuscope_stream_start() - ask a CPU session for a stream of records
 * (PMUSCOPE_IOC_STREAM, API version 3, PMUSCOPE_FEAT_STREAM)
 *
 * After pmuscope_configure() and before pmuscope_enable(): the records
 * come while the session is enabled. The session's file is then
 * non-blocking (pmuscope_stream_read() waits with poll()).
 * Return: 0, or -errno with pmuscope_errmsg() set: -EINVAL (a bad
 * argument, checked here first, or no configuration), -EOPNOTSUPP (a task
 * session, or a driver without streams), -ENOTTY (a driver older than API
 * version 3).
 */
int pmuscope_stream_start(struct pmuscope *h, const struct pmuscope_stream_cfg *cfg);

/**
 * pmuscope_stream_read() - whole records of the session's stream
 * @buf: where to put them (each starts with a struct pmuscope_record; see
 *	pmuscope_record_next() to walk them)
 * @len: room at @buf: at least one record's size (48 + 8 x events)
 * @timeout_ms: how long to wait for records: 0 not at all, -1 forever
 *
 * Return: the bytes read (> 0), 0 when no record came within @timeout_ms,
 * or -errno: -ENOSPC (@len is too small for the next record), -EINTR (a
 * signal came while waiting), another from poll() or read().
 */
ssize_t pmuscope_stream_read(struct pmuscope *h, void *buf, size_t len, int timeout_ms);

/**
 * pmuscope_fd() - the session's file descriptor, to poll() it with others
 * (POLLIN: records to read); -1 for a NULL session.
 */
int pmuscope_fd(const struct pmuscope *h);

/**
 * struct pmuscope_rec - one record of a stream, as pmuscope_record_next()
 * finds it: the fields of struct pmuscope_record, and where its counts are
 * @counts: @nr 64-bit counts in the byte order of the machine that
 *	recorded them (little-endian: arm64 Linux), perhaps unaligned: read
 *	them with pmuscope_rec_count()
 */
struct pmuscope_rec {
	uint16_t type;
	uint16_t size;
	uint32_t cpu;
	uint64_t time;
	uint32_t pid;
	uint32_t tid;
	uint64_t pc;
	uint64_t value;
	uint32_t flags;
	uint32_t nr;
	const unsigned char *counts;
};

/**
 * pmuscope_record_next() - the record at *@off of @len bytes at @buf
 * @off: in: where the record starts; out: just after it
 * @rec: the record (its @counts point into @buf)
 * @err: on failure, what is wrong and where ("record at byte 96: size 52
 *	is not a multiple of 8")
 *
 * A pure parser: no session, no system call. Every record is checked:
 * at least 48 bytes, a multiple of 8, 48 + 8 x nr bytes, and all of it
 * within @len. Records of a type this library does not know are returned
 * as they are (the caller skips them).
 * Return: 1 (a record), 0 (*@off is @len: no more), -EBADMSG (malformed
 * or cut short: *@off is left at the bad record).
 */
int pmuscope_record_next(const void *buf, size_t len, size_t *off,
			 struct pmuscope_rec *rec, char *err, size_t errlen);

/** pmuscope_rec_count() - count @i of @rec (0 when @i >= @rec->nr). */
uint64_t pmuscope_rec_count(const struct pmuscope_rec *rec, unsigned int i);

/**
 * pmuscope_rec_type_name() - "sample", "lost", "throttled"; "unknown" for
 * any other number.
 */
const char *pmuscope_rec_type_name(uint16_t type);

/**
 * pmuscope_counter_now() - the system counter now, in the time base of
 * the records: CNTVCT_EL0 on arm64. Elsewhere (no records from a driver:
 * tests) CLOCK_MONOTONIC in ns.
 */
uint64_t pmuscope_counter_now(void);

/**
 * pmuscope_counter_freq() - the system counter's frequency in Hz
 * (CNTFRQ_EL0) on arm64; 0 elsewhere (unknown).
 */
uint64_t pmuscope_counter_freq(void);

/**
 * pmuscope_amu_read() - the Activity Monitors (AMU) of the CPUs of @cpus
 * (PMUSCOPE_IOC_AMU_READ, API version 4, PMUSCOPE_FEAT_AMU)
 * @cpus: a CPU bitmap of @words words, not empty, every CPU below the
 *	driver's nr_cpu_ids (offline CPUs too: their record says so)
 * @recs: room for @room records, one per CPU of @cpus, written in
 *	ascending CPU order: state (PMUSCOPE_AMU_READ_OK, _ABSENT, _DISABLED,
 *	_OFFLINE), flags (PMUSCOPE_AMU_F_*), the group sizes and masks, the
 *	system counter (CNTVCT) when read, the event types and both groups'
 *	64-bit counters (include/uapi/linux/pmuscope.h)
 * @freq: if not NULL, the system counter's frequency in Hz
 *
 * Needs no configuration: any session, read-only. Needs CAP_PERFMON or
 * CAP_SYS_ADMIN (AMU counts can reveal other security states' activity).
 * Return: the number of records written, or -errno with pmuscope_errmsg()
 * set: -EPERM (neither capability), -ENOTTY (a driver older than API
 * version 4), -ENOSPC (@room is below the CPUs of @cpus: the message says
 * how many), -EINVAL (an empty bitmap, or a CPU the kernel does not have).
 */
int pmuscope_amu_read(struct pmuscope *h, const uint64_t *cpus, size_t words,
		      struct pmuscope_amu_cpu *recs, size_t room, uint64_t *freq);

/* The metrics of pmuscope_amu_metrics(), by index. */
#define PMUSCOPE_AMU_M_FREQ		0	/* effective frequency, Hz */
#define PMUSCOPE_AMU_M_BUSY		1	/* busy fraction */
#define PMUSCOPE_AMU_M_IPC		2	/* instructions per cycle */
#define PMUSCOPE_AMU_M_MEM_STALL	3	/* memory-stall fraction */
#define PMUSCOPE_AMU_NR_METRICS		4

/* Why a metric or a counter's delta is unavailable (0: it is available). */
#define PMUSCOPE_AMU_WHY_OK		0
#define PMUSCOPE_AMU_WHY_NOT_READ	1	/* a record's state is not READ_OK */
#define PMUSCOPE_AMU_WHY_LOST		2	/* PMUSCOPE_AMU_F_LOST on the later record */
#define PMUSCOPE_AMU_WHY_BACKWARDS	3	/* a counter or the time went backwards */
#define PMUSCOPE_AMU_WHY_NO_COUNTER	4	/* a counter it needs is absent or disabled */
#define PMUSCOPE_AMU_WHY_CONST_BROKEN	5	/* PMUSCOPE_AMU_F_CONST_BROKEN (erratum) */
#define PMUSCOPE_AMU_WHY_AUX_ZERO	6	/* PMUSCOPE_AMU_F_AUX_ZERO: group 1 reads zero */
#define PMUSCOPE_AMU_WHY_ZERO		7	/* the denominator is 0 (idle all along) */

/**
 * struct pmuscope_amu_metrics - one CPU's AMU over the interval between
 * two of its records
 * @cpu: the CPU
 * @ticks: system-counter ticks between the reads (b->time - a->time)
 * @delta0: each group-0 counter's increase; 0 where unavailable
 * @delta1: each group-1 counter's increase; 0 where unavailable
 * @valid0: bit n: @delta0[n] is a count (n below nr_group0, enabled in
 *	both records, both READ_OK, not LOST, not backwards)
 * @valid1: bit n: @delta1[n] is a count (also implemented, and not AUX_ZERO)
 * @why1: why @delta1[n] is not a count (PMUSCOPE_AMU_WHY_*), or 0: the
 *	first of NOT_READ, LOST, NO_COUNTER (n at or above nr_group1, or its
 *	implemented1 or enabled1 bit clear, in either record), AUX_ZERO
 *	(either record), BACKWARDS
 * @value: the metrics by PMUSCOPE_AMU_M_* index; NAN where unavailable:
 *
 *	FREQ       delta0[CORE_CYCLES] / delta0[CONST_CYCLES] x @freq, Hz
 *	BUSY       delta0[CONST_CYCLES] / @ticks: the share of the interval
 *	           the CPU was not in WFI/WFE (the counters stop there);
 *	           slightly above 1 is possible, the two reads being apart
 *	IPC        delta0[INST_RETIRED] / delta0[CORE_CYCLES]
 *	MEM_STALL  delta0[MEM_STALL] / delta0[CORE_CYCLES]
 *
 *	Each is computed exactly as a 128-bit integer quotient
 *	(numerator x @freq for FREQ), to which the remainder over the
 *	denominator is added as a double: an integer result is exact, any
 *	other within an ulp of the true ratio.
 * @valid: bit PMUSCOPE_AMU_M_*: @value is a number
 * @why: for each metric, why it is unavailable (PMUSCOPE_AMU_WHY_*), or 0.
 *	The first that applies, in this order: NOT_READ (either record),
 *	LOST (the later record: the counts of the interval are not all
 *	there), NO_COUNTER (a counter it needs is at or above nr_group0, or
 *	its enabled0 bit is clear, in either record), CONST_BROKEN (FREQ
 *	and BUSY, either record), BACKWARDS (a counter it needs, or for
 *	BUSY the time, is lower in the later record), ZERO (the denominator
 *	is 0: no cycles, the CPU idle all along; or no time for BUSY).
 */
struct pmuscope_amu_metrics {
	uint32_t cpu;
	uint64_t ticks;
	uint64_t delta0[PMUSCOPE_AMU_GROUP_MAX];
	uint64_t delta1[PMUSCOPE_AMU_GROUP_MAX];
	uint32_t valid0;
	uint32_t valid1;
	uint8_t why1[PMUSCOPE_AMU_GROUP_MAX];
	double value[PMUSCOPE_AMU_NR_METRICS];
	uint32_t valid;
	uint8_t why[PMUSCOPE_AMU_NR_METRICS];
};

/**
 * pmuscope_amu_metrics() - @m from two records of the same CPU, @a read
 * before @b, and the system counter's frequency @freq (Hz; 0 leaves FREQ
 * unavailable, why ZERO)
 * A pure function: no session, no system call.
 * Return: 0, or -EINVAL (a NULL argument, or records of two CPUs).
 */
int pmuscope_amu_metrics(const struct pmuscope_amu_cpu *a, const struct pmuscope_amu_cpu *b,
			 uint64_t freq, struct pmuscope_amu_metrics *m);

/**
 * pmuscope_amu_why_str() - a short phrase for PMUSCOPE_AMU_WHY_@why:
 * "", "not read", "lost", "went backwards", "counter absent or disabled",
 * "constant counter broken", "group 1 reads zero", "nothing to divide by";
 * "unknown" for any other number.
 */
const char *pmuscope_amu_why_str(unsigned int why);

/**
 * pmuscope_amu_state_name() - "ok", "absent", "disabled", "offline" for
 * PMUSCOPE_AMU_READ_OK .. OFFLINE; "unknown" for any other number.
 */
const char *pmuscope_amu_state_name(uint32_t state);

/**
 * pmuscope_amu_flags_str() - "lost,const_broken,aux_zero" for
 * PMUSCOPE_AMU_F_* flags, in that order; "" for none. Unknown bits are
 * left out. Cut short (never overrun) when @len is too small.
 */
void pmuscope_amu_flags_str(uint32_t flags, char *buf, size_t len);

/**
 * pmuscope_amu_event_name() - the name of an AMU counter's event type
 * (AMEVTYPER0/1<n>_EL0.evtCount, the PMU's event numbers): the
 * architectural name where the library knows it (pmuscope_event_name():
 * "CPU_CYCLES", "STALL_BACKEND_MEM"), else "0x%04x" in @buf
 * Return: the name, or @buf.
 */
const char *pmuscope_amu_event_name(uint16_t type, char *buf, size_t len);

/** pmuscope_scale() - @count scaled by @enabled / @running. */
uint64_t pmuscope_scale(uint64_t count, uint64_t enabled, uint64_t running);

/** pmuscope_flags_str() - "lost,throttled,..." for PMUSCOPE_VAL_* flags. */
void pmuscope_flags_str(uint32_t flags, char *buf, size_t len);

#endif /* PMUSCOPE_LIB_H */
