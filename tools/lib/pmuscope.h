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

#ifdef __cplusplus
extern "C" {
#endif

#define PMUSCOPE_LIB_VERSION	"0.7.0"
#define PMUSCOPE_MAX_CPUS	1024
#define PMUSCOPE_CPU_WORDS	(PMUSCOPE_MAX_CPUS / 64)

/**
 * struct pmuscope_event_spec - an event as the user named it
 * @number: event number (PMEVTYPER evtCount)
 * @flags: PMUSCOPE_EV_EL0/EL1/EL2, PMUSCOPE_EV_RAW
 * @name: architectural name (CPU_CYCLES) or "r0x..." for a raw number
 * @label: the name as the user wrote it, without modifiers (cycles)
 *
 * @name and @label hold 39 characters: the two longest names of perf's
 * core tables, AmpereOne's BPU_CONDITIONAL_BRANCH_HIT_BTB_AND_MISPREDICT
 * (45) and BPU_INDIRECT_BRANCH_HIT_BTB_AND_MISPREDICT (42), are counted
 * (@number right) but shown cut to their first 39 characters. The layout
 * is ABI: it stays.
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
 *	the name of an event of the core types of the CPUs the driver
 *	describes (ld_dep_stall on a Cortex-A53: its number, flagged
 *	PMUSCOPE_EV_RAW when IMPLEMENTATION DEFINED; -EINVAL if two core types
 *	present give the name different numbers), a number (0x11) or a raw
 *	number (r0xc0, r11: hexadecimal). MODS: any
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
 * pmuscope_event_parse_cpus() - pmuscope_event_parse() for the CPUs of a
 *	command: a core-table name resolved on the core types of @cpus only
 * @cpus: CPU bitmap (NULL: those of every CPU the driver describes, as
 *	pmuscope_event_parse())
 * @words: 64-bit words of @cpus
 *
 * A name that a CPU of @cpus has no core table entry for, while another
 * CPU of the machine has, is refused (-EINVAL): the message names the CPUs
 * without it and the -C of those with it. One that two core types of
 * @cpus number differently too.
 */
int pmuscope_event_parse_cpus(const char *text, const uint64_t *cpus, size_t words,
			      struct pmuscope_event_spec *ev, char *err, size_t errlen);

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

/*
 * The events of each core type, from perf's pmu-events JSON (LIBPMUSCOPE_0.8).
 * A core type is an index, 0 to pmuscope_core_count() - 1.
 */
/** pmuscope_core_count() - number of core types with an event table. */
int pmuscope_core_count(void);
/**
 * pmuscope_core_of() - the core type of a CPU of MIDR_EL1 @midr (compared
 * without its variant and revision, as perf does), or -ENOENT.
 */
int pmuscope_core_of(uint32_t midr);
/** pmuscope_core_name() - the JSON directory of @core ("arm/cortex-a53"), or NULL. */
const char *pmuscope_core_name(int core);
/** pmuscope_core_event_count() - number of events of @core (0 if none). */
size_t pmuscope_core_event_count(int core);
/**
 * pmuscope_core_event_at() - the @i-th event of @core (by number):
 * number, name, description. Return: 0 or -ENOENT.
 */
int pmuscope_core_event_at(int core, size_t i, uint32_t *number, const char **name,
			   const char **desc);
/**
 * pmuscope_event_is_common() - 1 if @number is an Arm common event number
 * PMCEID0/1_EL0 can report (0x0000-0x003F, 0x4000-0x403F); 0 for the
 * IMPLEMENTATION DEFINED and recommended ones, which it cannot confirm.
 */
int pmuscope_event_is_common(uint32_t number);

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
/**
 * pmuscope_cpu_midr() - @cpu's MIDR_EL1 as the driver read it (sysfs midr).
 * Return: 0, -ENOENT (no such CPU), -ENODATA (not probed) or -EINVAL.
 */
int pmuscope_cpu_midr(int cpu, uint32_t *midr);
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

/* ------------------------------------------------ EL0 self-monitoring */

/**
 * pmuscope_configure_self() - count @evs in the calling thread, readable
 * by it at EL0 with MRS (API version 6, PMUSCOPE_FEAT_USER_READ: the
 * direct backend)
 * @flags: 0 or PMUSCOPE_CFG_USER_SWINC (pmuscope_swinc_self() may write
 *	PMSWINC_EL0 at EL0); other bits are ignored
 *
 * A task session of this thread (PMUSCOPE_CFG_USER_READ), as
 * pmuscope_configure_task() makes one, whose struct pmuscope_user_page
 * is mapped read-only (pmuscope_user_page()); start it with
 * pmuscope_enable(). Each event takes a hardware counter of its own: more
 * events than the CPU has counters is -ENOSPC. Only the calling thread
 * may read it with pmuscope_read_self() (any thread may use
 * pmuscope_read()); after fork() the child's copy of the session has no
 * page and reads through the ioctl. Another configuration or
 * pmuscope_close() unmaps the page.
 * Return: 0 or -errno with pmuscope_errmsg() set: -EOPNOTSUPP (the perf
 * backend, or a driver without EL0 reads), -ENOSPC, -EINVAL, or the
 * errno of mmap() (the session is configured then, without its page).
 */
int pmuscope_configure_self(struct pmuscope *h, const struct pmuscope_event_spec *evs,
			    unsigned int nr, uint32_t flags);

/**
 * pmuscope_user_page() - the session's EL0 page (struct
 * pmuscope_user_page in linux/pmuscope.h), or NULL when it has none
 * (not pmuscope_configure_self(), or after fork() in the child)
 */
const struct pmuscope_user_page *pmuscope_user_page(const struct pmuscope *h);

/**
 * pmuscope_read_self() - the first @nr counts of a pmuscope_configure_self()
 * session, in configuration order, read by the thread it counts
 * @counts: room for @nr values
 *
 * On arm64, with rseq registered by glibc (2.35 or later), the counters
 * are read at EL0 with MRS where the driver grants it (the page's cpu is
 * the CPU the thread runs on): the check that the page has not changed
 * since it was copied (its gen) and the MRS run in one rseq critical
 * section, which the kernel aborts on preemption, migration or a signal,
 * and the driver when it writes the page, so that no MRS runs on a CPU
 * that does not grant it and no count is folded with a stale page. Each
 * value is what PMUSCOPE_IOC_READ gives at the same instant. Elsewhere
 * (another CPU, a counter not readable, no page, another thread, retries
 * exhausted, not arm64) it is PMUSCOPE_IOC_READ (pmuscope_read()). Not
 * async-signal-safe.
 * Return: 0 (read at EL0), 1 (read with the ioctl), or -errno (-EINVAL:
 * @nr is 0 or above the configuration's events; or pmuscope_read()'s).
 */
int pmuscope_read_self(struct pmuscope *h, uint64_t *counts, unsigned int nr);

/**
 * pmuscope_swinc_self() - software increments by the counted thread
 * @event_mask: bit i: event i of the configuration, each SW_INCR
 * @count: 1 to 4096 increments of each
 *
 * With PMUSCOPE_CFG_USER_SWINC and EL0 access granted on this CPU: writes
 * PMSWINC_EL0 at EL0, each write in an rseq critical section (exact: an
 * aborted write is not made, a made one not repeated); the events must
 * count at EL0 (PMUSCOPE_EV_EL0). Else PMUSCOPE_IOC_SWINC on the current
 * CPU (pmuscope_swinc(): the events must count at the kernel's EL) for
 * the increments not yet made.
 * Return: 0 (written at EL0), 1 (some or all by the ioctl), or -errno.
 */
int pmuscope_swinc_self(struct pmuscope *h, uint64_t event_mask, unsigned int count);

/**
 * struct pmuscope_self_stats - how pmuscope_read_self() and
 * pmuscope_swinc_self() were answered since pmuscope_configure_self()
 * @capable: 1 when the EL0 fast path exists here (arm64, rseq registered
 *	for the configured thread, the page mapped)
 * @fast: reads answered at EL0
 * @fallback: reads answered by PMUSCOPE_IOC_READ
 * @aborts: rseq critical sections the kernel aborted (and retried)
 * @replans: times the page had changed (seq) and was read again
 * @swinc_fast: pmuscope_swinc_self() calls made at EL0
 * @swinc_fallback: ... that used PMUSCOPE_IOC_SWINC
 * @layout: the reader of the last plan: PMUSCOPE_SELF_IOCTL (none at EL0:
 *	not granted, or not planned yet), PMUSCOPE_SELF_STRAIGHT (the
 *	counters in the driver's order for a thread alone on the PMU: up
 *	to 16 counters, PMCCNTR_EL0 first for a first CPU_CYCLES event,
 *	the event counters all 32-bit or all 64-bit) or
 *	PMUSCOPE_SELF_TABLE (any other)
 */
struct pmuscope_self_stats {
	uint32_t capable;
	uint32_t layout;	/* in what was padding: the struct's size is unchanged */
	uint64_t fast;
	uint64_t fallback;
	uint64_t aborts;
	uint64_t replans;
	uint64_t swinc_fast;
	uint64_t swinc_fallback;
};

#define PMUSCOPE_SELF_IOCTL	0
#define PMUSCOPE_SELF_TABLE	1
#define PMUSCOPE_SELF_STRAIGHT	2

/** pmuscope_self_stats() - the session's counters; -EINVAL for NULL. */
int pmuscope_self_stats(const struct pmuscope *h, struct pmuscope_self_stats *st);

/**
 * struct pmuscope_snap_info - how one CPU's counts of a snapshot were taken
 * @cpu: the CPU
 * @method: PMUSCOPE_SNAP_HARDWARE, _SOFTWARE, _PERF or _IDLE
 *	(pmuscope_snap_method_name())
 * @flags: PMUSCOPE_SNAPCPU_LATE, _FALLBACK, _OFFLINE, _UNSYNCED
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
 *	PMUSCOPE_SNAP_LEAD_US_MAX microseconds (PMUSCOPE_SNAP_LEAD_US_UNPRIV
 *	without CAP_PERFMON); 0: the driver's default (100)
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
 * @lead_us too large, no configuration), -EPERM (@lead_us above
 * PMUSCOPE_SNAP_LEAD_US_UNPRIV without CAP_PERFMON). Past the budget of
 * such callers' waits the CPUs capture without a common deadline, each
 * flagged PMUSCOPE_SNAPCPU_UNSYNCED.
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
 * pmuscope_snap_flags_str() - "late,fallback,offline,unsynced" for
 * PMUSCOPE_SNAPCPU_* flags, in that order; "" for none. Unknown bits are
 * left out. Cut short (never overrun) when @len is too small.
 */
void pmuscope_snap_flags_str(uint32_t flags, char *buf, size_t len);

/**
 * pmuscope_snap_hw_state() - @cpu's hardware snapshot state, from the
 * driver's sysfs cpuN/snapshot_hw: "absent", "off", "under-el2",
 * "untried", "ready", "kvm-vcpu", "prohibited", "timeout" or "stale"
 * Return: 0, or -ENOENT (no such file: no driver, or one without it).
 */
int pmuscope_snap_hw_state(int cpu, char *buf, size_t len);

/**
 * pmuscope_snap_hw_usable() - may a CPU in hardware snapshot @state
 * capture in hardware? 1 for "untried", "ready" and "kvm-vcpu", else 0.
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
 *	default, PMUSCOPE_STREAM_KIB_DEFAULT, at the first stream of the
 *	session (which makes the ring), the ring as it is at a later one
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
 * pmuscope_stream_start2() - pmuscope_stream_start() with the stream's
 * flags (API version 7); added in 0.7 (LIBPMUSCOPE_0.7)
 * @flags: PMUSCOPE_STREAM_F_CALLCHAIN (PMUSCOPE_FEAT_CALLCHAIN): SAMPLE
 *	records carry call chains (pmuscope_record_chain()); 0: none, as
 *	pmuscope_stream_start()
 * @max_stack: with CALLCHAIN, the chain's most frames, kernel and user
 *	together, 1 to PMUSCOPE_STACK_MAX; 0: PMUSCOPE_STACK_DEFAULT (127, as
 *	perf's kernel.perf_event_max_stack). Without CALLCHAIN: 0
 *
 * struct pmuscope_stream_cfg is caller-allocated and keeps its layout:
 * what later releases add to a stream comes as arguments of a new
 * function like this one. A task session (pmuscope_configure_task())
 * streams where the driver has PMUSCOPE_FEAT_STREAM_TASK: its records
 * carry no counts (nr 0; pmuscope_read() gives them).
 * Return: as pmuscope_stream_start(), and -EINVAL for an unknown flag or
 * @max_stack out of range; -EOPNOTSUPP's message names the feature the
 * driver lacks (STREAM, STREAM_TASK, CALLCHAIN) and its backend (perf or
 * direct).
 */
int pmuscope_stream_start2(struct pmuscope *h, const struct pmuscope_stream_cfg *cfg,
			   uint32_t flags, unsigned int max_stack);

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
 * at least 48 bytes, a multiple of 8, room for its nr counts, and all of
 * it within @len. A record may be longer than its counts (API 7): with
 * PMUSCOPE_REC_F_CHAIN a struct pmuscope_rec_chain follows them and is
 * checked too (a version other than 0; version 1: size 16 and its frames
 * within the record; a newer version: its size within the record), what
 * else follows is for newer readers and skipped. Records of a type this
 * library does not know are returned as they are (the caller skips them).
 * Return: 1 (a record), 0 (*@off is @len: no more), -EBADMSG (malformed
 * or cut short: *@off is left at the bad record).
 */
int pmuscope_record_next(const void *buf, size_t len, size_t *off,
			 struct pmuscope_rec *rec, char *err, size_t errlen);

/** pmuscope_rec_count() - count @i of @rec (0 when @i >= @rec->nr). */
uint64_t pmuscope_rec_count(const struct pmuscope_rec *rec, unsigned int i);

/**
 * struct pmuscope_chain - a SAMPLE's call chain, as pmuscope_record_chain()
 * finds it (struct pmuscope_rec_chain of include/uapi/linux/pmuscope.h)
 * @version: PMUSCOPE_CHAIN_VERSION
 * @flags: PMUSCOPE_CHAIN_F_* (TRUNCATED, USER_END, KERNEL_HIDDEN)
 * @nr_kernel: kernel addresses first, innermost (the interrupted PC) first
 * @nr_user: then user addresses, innermost (the user PC) first
 * @ips: the @nr_kernel + @nr_user addresses, in the record's buffer,
 *	perhaps unaligned: read them with pmuscope_chain_ip()
 *
 * Added in 0.7 (LIBPMUSCOPE_0.7): struct pmuscope_rec is caller-allocated
 * and keeps its layout, so the chain is found from it by a function.
 */
struct pmuscope_chain {
	uint16_t version;
	uint16_t nr_kernel;
	uint16_t nr_user;
	uint32_t flags;
	const unsigned char *ips;
};

/**
 * pmuscope_record_chain() - the call chain of a record that
 * pmuscope_record_next() returned (its buffer still there)
 *
 * Return: 1 (@chain filled), 0 (no chain: PMUSCOPE_REC_F_CHAIN is clear,
 * or the chain has a layout newer than this library's, to skip), -EINVAL
 * (a NULL argument), -EBADMSG (@rec was not checked by
 * pmuscope_record_next(): its chain does not fit it). @chain is zeroed
 * unless 1.
 */
int pmuscope_record_chain(const struct pmuscope_rec *rec, struct pmuscope_chain *chain);

/** pmuscope_chain_ip() - address @i of @chain (0 when @i is past its frames). */
uint64_t pmuscope_chain_ip(const struct pmuscope_chain *chain, unsigned int i);

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

/* ------------------------------------------------------------------ SPE */

/*
 * The Statistical Profiling Extension's data (Arm ARM D18, record format
 * 0): packets, grouped into records. A pure decoder: no session, no system
 * call. It never reads past the buffer and never fails: a byte that does
 * not start a valid packet (an unknown header, a payload cut short by the
 * end of the buffer, an extended header with nothing valid after it) is a
 * PMUSCOPE_SPE_PKT_BAD packet of one byte, as perf's decoder has it, and
 * decoding goes on at the next byte.
 */
enum pmuscope_spe_pkt_type {
	PMUSCOPE_SPE_PKT_BAD,
	PMUSCOPE_SPE_PKT_PAD,
	PMUSCOPE_SPE_PKT_END,
	PMUSCOPE_SPE_PKT_TIMESTAMP,
	PMUSCOPE_SPE_PKT_ADDRESS,
	PMUSCOPE_SPE_PKT_COUNTER,
	PMUSCOPE_SPE_PKT_CONTEXT,
	PMUSCOPE_SPE_PKT_OP_TYPE,
	PMUSCOPE_SPE_PKT_EVENTS,
	PMUSCOPE_SPE_PKT_DATA_SOURCE,
};

/* Address packet indexes (the extended header gives 0 .. 31). */
#define PMUSCOPE_SPE_ADDR_PC		0	/* the sampled instruction */
#define PMUSCOPE_SPE_ADDR_BRANCH	1	/* branch target */
#define PMUSCOPE_SPE_ADDR_DATA_VA	2	/* data virtual address */
#define PMUSCOPE_SPE_ADDR_DATA_PA	3	/* data physical address */
#define PMUSCOPE_SPE_ADDR_PREV_BRANCH	4	/* previous branch target */

/* Counter packet indexes. */
#define PMUSCOPE_SPE_CNT_TOTAL		0	/* total latency, cycles */
#define PMUSCOPE_SPE_CNT_ISSUE		1	/* issue latency */
#define PMUSCOPE_SPE_CNT_XLAT		2	/* translation latency */

/* Operation type classes (the header's low 2 bits). */
#define PMUSCOPE_SPE_OP_CLASS_OTHER	0
#define PMUSCOPE_SPE_OP_CLASS_LDST	1	/* load, store, atomic */
#define PMUSCOPE_SPE_OP_CLASS_BRANCH	2	/* branch, exception return */

/* Events packet bits. */
#define PMUSCOPE_SPE_EV_EXCEPTION	(1ULL << 0)
#define PMUSCOPE_SPE_EV_RETIRED		(1ULL << 1)
#define PMUSCOPE_SPE_EV_L1D_ACCESS	(1ULL << 2)
#define PMUSCOPE_SPE_EV_L1D_REFILL	(1ULL << 3)
#define PMUSCOPE_SPE_EV_TLB_ACCESS	(1ULL << 4)
#define PMUSCOPE_SPE_EV_TLB_WALK	(1ULL << 5)
#define PMUSCOPE_SPE_EV_NOT_TAKEN	(1ULL << 6)
#define PMUSCOPE_SPE_EV_MISPRED		(1ULL << 7)
#define PMUSCOPE_SPE_EV_LLC_ACCESS	(1ULL << 8)
#define PMUSCOPE_SPE_EV_LLC_MISS	(1ULL << 9)
#define PMUSCOPE_SPE_EV_REMOTE		(1ULL << 10)
#define PMUSCOPE_SPE_EV_ALIGNMENT	(1ULL << 11)
#define PMUSCOPE_SPE_EV_SVE_PARTIAL	(1ULL << 17)
#define PMUSCOPE_SPE_EV_SVE_EMPTY	(1ULL << 18)

/**
 * struct pmuscope_spe_pkt - one packet
 * @type: PMUSCOPE_SPE_PKT_*
 * @index: ADDRESS and COUNTER: the index (0 .. 31); CONTEXT: the header's
 *	low 2 bits (0: CONTEXTIDR_EL1, 1: CONTEXTIDR_EL2); OP_TYPE: the class
 *	(PMUSCOPE_SPE_OP_CLASS_*, 3 is reserved); EVENTS: the payload's size
 *	in bytes (as perf has it); else 0
 * @len: bytes the packet takes, headers included (1 for BAD). Up to 16
 *	consecutive zero bytes are one PAD packet, as perf prints them.
 * @payload_size: bytes of payload (1, 2, 4, 8; 0 for PAD, END, BAD)
 * @ext: 1 when the packet has the extended (2-byte) header
 * @payload: the payload, little-endian, as it is
 * @addr: ADDRESS: bits 55:0 of the payload
 * @el: ADDRESS PC, branch targets: the exception level (payload 62:61)
 * @ns: ADDRESS PC, branch targets and PA: the NS bit (payload 63)
 * @ch: ADDRESS PA: the checked bit (payload 62)
 * @pat: ADDRESS PA: payload 59:56 (physical address tag)
 * @tag: ADDRESS data VA: the top byte (payload 63:56)
 */
struct pmuscope_spe_pkt {
	uint8_t type;
	uint8_t index;
	uint8_t len;
	uint8_t payload_size;
	uint8_t ext;
	uint8_t el, ns, ch, pat, tag;
	uint64_t payload;
	uint64_t addr;
};

/**
 * pmuscope_spe_pkt_get() - the packet at the start of @buf (@len bytes)
 * Return: the bytes it takes (@p->len, 1 .. 16), or 0 when @len is 0.
 */
int pmuscope_spe_pkt_get(const void *buf, size_t len, struct pmuscope_spe_pkt *p);

/**
 * pmuscope_spe_pkt_next() - the packet at *@off of @buf; *@off moves past it
 * Return: 1 (a packet, perhaps BAD), 0 (no more: *@off is @len).
 */
int pmuscope_spe_pkt_next(const void *buf, size_t len, size_t *off,
			  struct pmuscope_spe_pkt *p);

/** pmuscope_spe_pkt_name() - "PAD", "END", "TS", "ADDR", ... as perf names them; "BAD". */
const char *pmuscope_spe_pkt_name(unsigned int type);

/**
 * pmuscope_spe_pkt_desc() - @p as perf's arm_spe_pkt_desc() describes it
 * ("PC 0xffff800080001234 el1 ns=1", "LAT 12 TOT", "EV RETIRED L1D-ACCESS");
 * "Bad packet!" for BAD. Cut short, never overrun, when @len is too small.
 * Return: the length of the whole description (as snprintf()).
 */
int pmuscope_spe_pkt_desc(const struct pmuscope_spe_pkt *p, char *buf, size_t len);

/**
 * pmuscope_spe_pkt_line() - the line `perf report -D` prints for a packet
 * of arm_spe data, without the newline: ".  %08x:  BYTES...  DESC"
 * @bytes: the packet's bytes (@p->len of them)
 * @pos: its offset in the data
 */
int pmuscope_spe_pkt_line(const struct pmuscope_spe_pkt *p, const void *bytes, size_t pos,
			  char *buf, size_t len);

/* Which fields of struct pmuscope_spe_record the record had. */
#define PMUSCOPE_SPE_R_PC		(1U << 0)
#define PMUSCOPE_SPE_R_BRANCH		(1U << 1)
#define PMUSCOPE_SPE_R_VA		(1U << 2)
#define PMUSCOPE_SPE_R_PA		(1U << 3)
#define PMUSCOPE_SPE_R_PREV_BRANCH	(1U << 4)
#define PMUSCOPE_SPE_R_LAT_TOTAL	(1U << 5)
#define PMUSCOPE_SPE_R_LAT_ISSUE	(1U << 6)
#define PMUSCOPE_SPE_R_LAT_XLAT		(1U << 7)
#define PMUSCOPE_SPE_R_EVENTS		(1U << 8)
#define PMUSCOPE_SPE_R_OP		(1U << 9)
#define PMUSCOPE_SPE_R_SOURCE		(1U << 10)
#define PMUSCOPE_SPE_R_CONTEXT		(1U << 11)
#define PMUSCOPE_SPE_R_TIMESTAMP	(1U << 12)
#define PMUSCOPE_SPE_R_END		(1U << 13)	/* ended by END or TIMESTAMP */

/**
 * struct pmuscope_spe_record - one sample: the packets up to an END or a
 * TIMESTAMP packet
 * @valid: PMUSCOPE_SPE_R_*: the fields below that a packet gave; without
 *	R_END the record was cut short by the end of the buffer
 * @pc, @el, @ns: the sampled instruction's address (55:0), EL and NS
 * @branch, @branch_el: the branch target
 * @prev_branch: the previous branch target (FEAT_SPE_PBT)
 * @va, @va_tag: the data virtual address (55:0) and its top byte
 * @pa, @pa_ns, @pa_ch: the data physical address (55:0), NS and CH bits
 * @lat_total, @lat_issue, @lat_xlat: the latency counters, cycles
 * @events: the Events packet's payload (PMUSCOPE_SPE_EV_*)
 * @op_class: PMUSCOPE_SPE_OP_CLASS_*; @op_sub: the Operation Type payload
 *	(subclass bits: bit 0 store for LDST, bit 0 conditional for branches)
 * @source: the Data Source packet's payload (IMPLEMENTATION DEFINED)
 * @context: CONTEXTIDR_EL1 or _EL2 (@context_el 1 or 2): the pid on Linux
 *	when the kernel writes it (CONFIG_PID_IN_CONTEXTIDR)
 * @timestamp: the Timestamp packet
 * @start: offset of the record's first packet in the buffer; @len: its bytes
 * @bad: BAD packets inside it; @unknown: packets of an index or class this
 *	structure has no place for (an address index above 4, a counter above 2)
 */
struct pmuscope_spe_record {
	uint32_t valid;
	uint8_t el, ns, branch_el, va_tag, pa_ns, pa_ch, op_class, op_sub;
	uint8_t context_el;
	uint16_t lat_total, lat_issue, lat_xlat;
	uint64_t pc, branch, prev_branch, va, pa;
	uint64_t events, source, timestamp;
	uint32_t context;
	uint32_t bad, unknown;
	size_t start, len;
};

/**
 * pmuscope_spe_record_next() - the record at *@off of @buf; *@off moves
 * past it. PAD packets between records are skipped.
 * Return: 1 (a record), 0 (no more).
 */
int pmuscope_spe_record_next(const void *buf, size_t len, size_t *off,
			     struct pmuscope_spe_record *r);

/** pmuscope_spe_op_is_load() / _store() / _branch(): what @r sampled. */
int pmuscope_spe_op_is_load(const struct pmuscope_spe_record *r);
int pmuscope_spe_op_is_store(const struct pmuscope_spe_record *r);
int pmuscope_spe_op_is_branch(const struct pmuscope_spe_record *r);

/**
 * pmuscope_spe_event_name() - perf's name of Events bit @bit ("RETIRED",
 * "L1D-REFILL", "TLB-REFILL", "LLC-REFILL", ...), or NULL.
 */
const char *pmuscope_spe_event_name(unsigned int bit);

/* ---------------------------------------------------------- SPE sessions */

/**
 * pmuscope_spe_start() - profile the CPUs of @cfg with SPE
 * (PMUSCOPE_IOC_SPE_START, API version 5, PMUSCOPE_FEAT_SPE)
 * @cfg: as the driver takes it; @cfg->size is set here, and @cfg->cpus
 *	and cpus_size must name the bitmap. Checked here first (flags, the
 *	interval's multiple of 256, the sizes) with a message naming the
 *	field.
 *
 * A session profiles or counts, not both: call it on a fresh session.
 * The session's file is then non-blocking (pmuscope_spe_read() waits
 * with poll()).
 * Return: 0, or -errno with pmuscope_errmsg() set: -EOPNOTSUPP (no CPU
 * asked for has usable SPE, or the driver has no PMUSCOPE_FEAT_SPE),
 * -EBUSY (another session profiles a CPU of them), -EPERM (EL1, PA, CX or
 * PCT without CAP_PERFMON), -EINVAL, -ENOTTY (a driver before API 5).
 */
int pmuscope_spe_start(struct pmuscope *h, struct pmuscope_spe_config *cfg);
/** pmuscope_spe_stop() - PMUSCOPE_IOC_SPE_STOP: the data so far stays readable. */
int pmuscope_spe_stop(struct pmuscope *h);

/**
 * pmuscope_spe_status() - each CPU's accounting (PMUSCOPE_IOC_SPE_STATUS)
 * @cpus: room for @room records; @freq: if not NULL, the counter's Hz
 * Return: the number of CPUs of the session (written, at most @room), or
 * -errno (-ENOSPC: more CPUs than @room; the message says how many).
 */
int pmuscope_spe_status(struct pmuscope *h, struct pmuscope_spe_cpu *cpus, size_t room,
			uint64_t *freq);

/**
 * pmuscope_spe_read() - whole chunks of the session's SPE data
 * @timeout_ms: how long to wait for one: 0 not at all, -1 forever
 * Return: bytes read (> 0), 0 when none came in time (EAGAIN), or -errno
 * (-ENOSPC: @len is below the next chunk's size, -EINTR).
 */
ssize_t pmuscope_spe_read(struct pmuscope *h, void *buf, size_t len, int timeout_ms);

/**
 * pmuscope_spe_chunk_next() - the chunk at *@off of what read() gave
 * @c: its header; @data: its SPE data (c->data_size bytes)
 * Checked: a header's worth of bytes, size a multiple of 8, at least 32 +
 * data_size and below 32 + data_size + 8, all within @len.
 * Return: 1, 0 (no more), -EBADMSG with @err set (*@off stays).
 */
int pmuscope_spe_chunk_next(const void *buf, size_t len, size_t *off,
			    struct pmuscope_spe_chunk *c, const unsigned char **data,
			    char *err, size_t errlen);

/**
 * pmuscope_spe_pmbsr_str() - PMBSR_EL1 in words: "EC 0x00 (buffer
 * management) BSC 0x01 (buffer full), DL, COLL, S"
 */
void pmuscope_spe_pmbsr_str(uint64_t pmbsr, char *buf, size_t len);

/** pmuscope_spe_state_name() - "running", "faulted", "offline", "stopped"; "unknown". */
const char *pmuscope_spe_state_name(uint32_t state);

/** pmuscope_spe_chunk_flags_str() - "lost,collision,stopped,final"; "" for none. */
void pmuscope_spe_chunk_flags_str(uint32_t flags, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PMUSCOPE_LIB_H */
