/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pmuscope user-space API: ioctls on /dev/pmuscope.
 *
 * One open file is one session. Every argument struct starts with its
 * size in bytes, is padded to a multiple of 8 and is read with
 * copy_struct_from_user(): an older caller passes a smaller size, a newer
 * one a larger size whose extra bytes must be zero. Reserved fields and
 * unknown flag bits must be zero. User pointers are __u64.
 *
 * Errors of each ioctl: Documentation/ioctl.rst.
 */
#ifndef _UAPI_LINUX_PMUSCOPE_H
#define _UAPI_LINUX_PMUSCOPE_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * 2: targets (a task or CPUs), inherit and enable-on-exec, element sizes
 * of the event and value arrays, the perf backend, multiplexing. A version
 * 1 caller's structs are version 2 structs with the new fields zero.
 * 3: PMUSCOPE_IOC_SNAPSHOT, PMUSCOPE_IOC_STREAM and read()/poll() of
 *    the stream's records.
 * 4: PMUSCOPE_IOC_AMU_READ, the Activity Monitors' counters.
 * 5: the Statistical Profiling Extension: PMUSCOPE_IOC_SPE_START, _STOP,
 *    _STATUS, and read()/poll() of its data chunks.
 * 6: EL0 direct reads: PMUSCOPE_CFG_USER_READ, PMUSCOPE_CFG_USER_SWINC and
 *    mmap() of struct pmuscope_user_page.
 * 7: streams of task sessions (per-task sampling) and on the perf
 *    backend; call chains in SAMPLE records (PMUSCOPE_STREAM_F_CALLCHAIN,
 *    struct pmuscope_rec_chain). A record's @size may now exceed its
 *    counts: a reader skips what follows them unless it knows the flag.
 */
#define PMUSCOPE_API_VERSION		7

/* Most events one session may count on each CPU. */
#define PMUSCOPE_MAX_EVENTS		32

/* Features reported by the handshake. */
#define PMUSCOPE_FEAT_PMU		(1ULL << 0)	/* PMUv3 counting */
#define PMUSCOPE_FEAT_OVERFLOW_IRQ	(1ULL << 1)	/* wraps folded by the PPI */
#define PMUSCOPE_FEAT_POLL		(1ULL << 2)	/* wraps folded by polling */
#define PMUSCOPE_FEAT_SHARED		(1ULL << 3)	/* never set: shared mode was removed */
#define PMUSCOPE_FEAT_SWINC		(1ULL << 4)	/* PMUSCOPE_IOC_SWINC */
#define PMUSCOPE_FEAT_EMULATED		(1ULL << 5)	/* register model, not hardware */
#define PMUSCOPE_FEAT_BACKEND_PERF	(1ULL << 6)	/* counts through perf's PMU driver */
#define PMUSCOPE_FEAT_TASK		(1ULL << 7)	/* PMUSCOPE_TARGET_TASK */
#define PMUSCOPE_FEAT_MULTIPLEX		(1ULL << 8)	/* more events than counters */
#define PMUSCOPE_FEAT_SNAPSHOT		(1ULL << 9)	/* PMUSCOPE_IOC_SNAPSHOT */
#define PMUSCOPE_FEAT_SNAPSHOT_HW	(1ULL << 10)	/* a CPU captures in hardware */
#define PMUSCOPE_FEAT_STREAM		(1ULL << 11)	/* PMUSCOPE_IOC_STREAM, read(), poll() */
#define PMUSCOPE_FEAT_AMU		(1ULL << 12)	/* PMUSCOPE_IOC_AMU_READ reads an AMU */
#define PMUSCOPE_FEAT_SPE		(1ULL << 13)	/* PMUSCOPE_IOC_SPE_START: a CPU's SPE */
#define PMUSCOPE_FEAT_USER_READ		(1ULL << 14)	/* PMUSCOPE_CFG_USER_READ, mmap() */
#define PMUSCOPE_FEAT_STREAM_TASK	(1ULL << 15)	/* STREAM of a task session */
#define PMUSCOPE_FEAT_CALLCHAIN		(1ULL << 16)	/* PMUSCOPE_STREAM_F_CALLCHAIN */

struct pmuscope_handshake {
	__u32 size;		/* in: sizeof(struct pmuscope_handshake) */
	__u32 api_version;	/* out: PMUSCOPE_API_VERSION */
	__u64 features;		/* out: PMUSCOPE_FEAT_* */
	__u32 nr_cpu_ids;	/* out: CPU numbers are below this */
	__u32 max_events;	/* out: PMUSCOPE_MAX_EVENTS */
	__u64 reserved[4];	/* in: zero; out: zero */
};

/* Event flags: where to count (at least one), and raw numbers. */
#define PMUSCOPE_EV_EL0			(1U << 0)	/* count at EL0 (user) */
#define PMUSCOPE_EV_EL1			(1U << 1)	/* count at EL1 (kernel) */
#define PMUSCOPE_EV_EL2			(1U << 2)	/* count at EL2 (hypervisor) */
#define PMUSCOPE_EV_RAW			(1U << 3)	/* IMPLEMENTATION DEFINED number */
#define PMUSCOPE_EV_ALL_EL		(PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1 | \
					 PMUSCOPE_EV_EL2)

struct pmuscope_event {
	__u32 event;		/* event number, e.g. 0x11 CPU_CYCLES */
	__u32 flags;		/* PMUSCOPE_EV_* */
	__u64 reserved;
};

/* Config flags (task targets only). */
#define PMUSCOPE_CFG_INHERIT		(1U << 0)	/* count children created after CONFIG */
#define PMUSCOPE_CFG_ENABLE_ON_EXEC	(1U << 1)	/* start at the task's next exec */
/*
 * Version 6, a task target that is the calling thread, direct backend:
 * the thread may read its counters at EL0 with MRS (struct
 * pmuscope_user_page), and with USER_SWINC also write PMSWINC_EL0.
 */
#define PMUSCOPE_CFG_USER_READ		(1U << 2)
#define PMUSCOPE_CFG_USER_SWINC		(1U << 3)	/* requires USER_READ */

/* Config targets. */
#define PMUSCOPE_TARGET_CPUS		0	/* the CPUs of @cpus, whatever runs */
#define PMUSCOPE_TARGET_TASK		1	/* one thread, on whatever CPU */

struct pmuscope_config {
	__u32 size;		/* sizeof(struct pmuscope_config) */
	__u32 flags;		/* PMUSCOPE_CFG_* */
	__u64 events;		/* pointer to nr_events events of event_size bytes */
	__u64 cpus;		/* TARGET_CPUS: pointer to a CPU bitmap of __u64 words */
	__u32 nr_events;	/* 1 .. PMUSCOPE_MAX_EVENTS */
	__u32 cpus_size;	/* TARGET_CPUS: bytes at @cpus, a multiple of 8, 8 .. 4096 */
	/* Version 2; zero in a version 1 caller's struct. */
	__u32 target;		/* PMUSCOPE_TARGET_* */
	__s32 pid;		/* TARGET_TASK: thread id, 0 = the calling thread */
	__u32 event_size;	/* sizeof(struct pmuscope_event) of the caller; 0 = 16 */
	__u32 reserved0;
};

/* Flags of one value. */
#define PMUSCOPE_VAL_LOST		(1U << 0)	/* counts may be missing */
#define PMUSCOPE_VAL_THROTTLED		(1U << 1)	/* overflow IRQ storm: throttled */
#define PMUSCOPE_VAL_CLOBBERED		(1U << 2)	/* another agent reprogrammed it */
#define PMUSCOPE_VAL_MULTIPLEXED	(1U << 3)	/* time_running < time_enabled */
#define PMUSCOPE_VAL_OFFLINE		(1U << 4)	/* CPU offline: value frozen */

struct pmuscope_value {
	__u64 count;		/* events counted, 64 bits */
	__u64 time_enabled;	/* ns the session was enabled */
	__u64 time_running;	/* ns the counter was counting on the CPU */
	__u32 cpu;
	__u32 index;		/* index of the event in the configuration */
	__u32 flags;		/* PMUSCOPE_VAL_* */
	__u32 counter;		/* 0..30, 31 = cycle counter; or NONE (perf's) */
};

#define PMUSCOPE_CPU_ANY		0xffffffffU	/* value.cpu of a task target */
#define PMUSCOPE_COUNTER_NONE		0xffffffffU

struct pmuscope_read {
	__u32 size;		/* sizeof(struct pmuscope_read) */
	__u32 flags;		/* none defined: zero */
	__u64 values;		/* pointer to struct pmuscope_value[nr_values] */
	__u32 nr_values;	/* in: room at @values; out: values written */
	__u32 value_size;	/* version 2: sizeof(struct pmuscope_value) of the caller; 0 = 40 */
	__u64 reserved[2];
};

struct pmuscope_swinc {
	__u32 size;		/* sizeof(struct pmuscope_swinc) */
	__u32 flags;		/* none defined: zero */
	__u64 event_mask;	/* bit i: event i of the configuration (SW_INCR) */
	__u32 cpu;		/* CPU on which to increment */
	__u32 count;		/* increments, 1 .. 4096 */
	__u64 reserved[2];
};

/* How one CPU's counts were taken (struct pmuscope_snap_cpu.method). */
#define PMUSCOPE_SNAP_HARDWARE		1	/* FEAT_PMUv3_SS: copied at one instant */
#define PMUSCOPE_SNAP_SOFTWARE		2	/* frozen together by one register write */
#define PMUSCOPE_SNAP_PERF		3	/* perf events, read one after another */
#define PMUSCOPE_SNAP_IDLE		4	/* nothing counting: the counts at rest */

/* Snapshot request flags. */
#define PMUSCOPE_SNAP_F_SOFTWARE	(1U << 0)	/* never the hardware capture */
#define PMUSCOPE_SNAP_F_HARDWARE	(1U << 1)	/* the hardware capture or nothing */

/* Flags of one CPU's snapshot. */
#define PMUSCOPE_SNAPCPU_LATE		(1U << 0)	/* reached the deadline after it */
#define PMUSCOPE_SNAPCPU_FALLBACK	(1U << 1)	/* no hardware capture: software */
#define PMUSCOPE_SNAPCPU_OFFLINE	(1U << 2)	/* CPU offline: counts frozen */
#define PMUSCOPE_SNAPCPU_UNSYNCED	(1U << 3)	/* no common deadline (budget spent) */

struct pmuscope_snap_cpu {
	__u32 cpu;
	__u32 method;		/* PMUSCOPE_SNAP_HARDWARE .. IDLE */
	__u32 flags;		/* PMUSCOPE_SNAPCPU_* */
	__u32 reserved;
	__u64 time;		/* system counter (CNTVCT) at the capture */
	__u64 skew;		/* time - the earliest time of this snapshot */
	__u64 frozen;		/* SOFTWARE: ticks the counters were stopped (at most) */
	__u64 spread;		/* PERF: ticks from the first counter read to the last */
};

struct pmuscope_snapshot {
	__u32 size;		/* sizeof(struct pmuscope_snapshot) */
	__u32 flags;		/* PMUSCOPE_SNAP_F_* */
	__u64 values;		/* pointer to struct pmuscope_value[nr_values] */
	__u64 cpus;		/* pointer to struct pmuscope_snap_cpu[nr_cpus] */
	__u32 nr_values;	/* in: room at @values; out: values written */
	__u32 nr_cpus;		/* in: room at @cpus; out: CPUs written */
	__u32 value_size;	/* sizeof(struct pmuscope_value) of the caller; 0 = 40 */
	__u32 cpu_size;		/* sizeof(struct pmuscope_snap_cpu) of the caller; 0 = 48 */
	__u32 lead_us;		/* the deadline's lead; 0 = 100, <= 2000 (100 unprivileged) */
	__u32 reserved0;
	__u64 freq;		/* out: system counter frequency in Hz */
	__u64 skew;		/* out: latest minus earliest capture time, ticks */
	__u64 reserved[2];
};

#define PMUSCOPE_SNAP_LEAD_US_DEFAULT	100
#define PMUSCOPE_SNAP_LEAD_US_MAX	2000	/* every CPU waits with IRQs off */
#define PMUSCOPE_SNAP_LEAD_US_UNPRIV	100	/* the most without CAP_PERFMON */

/*
 * A stream of records of a CPU session, read with read() and poll() on
 * its file: every @period_ms on every CPU of the session (time-based),
 * and/or every @sample_period events of its event @sample_index on each
 * CPU (event-based, from the counter's overflow interrupt: a sampling
 * profiler). Both 0 / PMUSCOPE_STREAM_NO_EVENT: the stream stops.
 */
#define PMUSCOPE_STREAM_NO_EVENT	0xffffffffU
#define PMUSCOPE_STREAM_PERIOD_MIN	1000		/* events */
#define PMUSCOPE_STREAM_PERIOD_MAX	(1ULL << 31)	/* events */
#define PMUSCOPE_STREAM_MS_MAX		60000
#define PMUSCOPE_STREAM_KIB_DEFAULT	256
#define PMUSCOPE_STREAM_KIB_MIN		4
#define PMUSCOPE_STREAM_KIB_MAX		16384

/* Stream flags. */
#define PMUSCOPE_STREAM_F_CALLCHAIN	(1U << 0)	/* SAMPLE records carry call chains */

/* Frames of a call chain: user and kernel together (perf's default depth). */
#define PMUSCOPE_STACK_DEFAULT		127
#define PMUSCOPE_STACK_MAX		127

struct pmuscope_stream {
	__u32 size;		/* sizeof(struct pmuscope_stream) */
	__u32 flags;		/* PMUSCOPE_STREAM_F_* */
	__u32 period_ms;	/* 1 .. 60000; 0 = no time-based records */
	__u32 sample_index;	/* event of the configuration; NO_EVENT = none */
	__u64 sample_period;	/* events between records, 1000 .. 2^31 */
	/*
	 * Ring size. 0: 256 at the first STREAM (which makes the ring), the
	 * ring as it is at every later one (any other size: EBUSY).
	 */
	__u32 ring_kib;		/* a power of 2, 4 .. 16384; 0 = 256, then the ring's */
	__u32 wakeup_kib;	/* wake the reader at this much; 0 = each record */
	__u16 max_stack;	/* CALLCHAIN: frames at most, 1 .. 127; 0 = 127 */
	__u16 reserved0;	/* zero */
	__u32 reserved1;	/* zero */
	__u64 reserved2;	/* zero */
};

/* Record types. */
#define PMUSCOPE_REC_SAMPLE		1	/* a sample: where, who, the counts */
#define PMUSCOPE_REC_LOST		2	/* @value records were dropped (ring full) */
#define PMUSCOPE_REC_THROTTLED		3	/* sampling off on @cpu for a window: too many */

/* Record flags. */
#define PMUSCOPE_REC_F_USER		(1U << 0)	/* interrupted at EL0 */
#define PMUSCOPE_REC_F_TIMER		(1U << 1)	/* time-based; else event-based */
#define PMUSCOPE_REC_F_CHAIN		(1U << 2)	/* a pmuscope_rec_chain after the counts */

/*
 * One record; read() returns whole records only, each @size bytes (a
 * multiple of 8): the 48 bytes below, then @nr counts.
 */
struct pmuscope_record {
	__u16 type;		/* PMUSCOPE_REC_* */
	__u16 size;		/* bytes of this record, counts included */
	__u32 cpu;
	__u64 time;		/* system counter (CNTVCT) */
	__u32 pid;		/* SAMPLE: the interrupted process (0: idle) */
	__u32 tid;		/* ... and thread */
	__u64 pc;		/* SAMPLE: the interrupted PC */
	__u64 value;		/* LOST: records dropped; SAMPLE: 0 */
	__u32 flags;		/* PMUSCOPE_REC_F_* */
	__u32 nr;		/* counts that follow */
	/*
	 * __u64 counts[nr]: the session's counts on @cpu, in configuration
	 * order (a CPU session; a task session's records carry none, nr 0:
	 * READ gives its counts). Then, with PMUSCOPE_REC_F_CHAIN, a struct
	 * pmuscope_rec_chain; anything after that up to @size is for newer
	 * readers: skip it.
	 */
};

#define PMUSCOPE_CHAIN_VERSION		1

/* Chain flags. */
#define PMUSCOPE_CHAIN_F_TRUNCATED	(1U << 0)	/* max_stack frames reached */
#define PMUSCOPE_CHAIN_F_USER_END	(1U << 1)	/* user walk: a bad or unmapped frame */
#define PMUSCOPE_CHAIN_F_KERNEL_HIDDEN	(1U << 2)	/* in the kernel: not for this session */

/*
 * A SAMPLE's call chain (PMUSCOPE_REC_F_CHAIN): @nr_kernel kernel
 * addresses, innermost first, from the interrupted PC up; then @nr_user
 * user addresses, innermost first: the user PC (where the task entered
 * the kernel, or was interrupted), then the return addresses of its
 * AAPCS64 frame records, pointer-authentication bits stripped. Only a
 * session that may see kernel addresses gets kernel frames.
 */
struct pmuscope_rec_chain {
	__u16 version;		/* PMUSCOPE_CHAIN_VERSION */
	__u16 size;		/* bytes of this header, 16; the addresses follow it */
	__u16 nr_kernel;
	__u16 nr_user;
	__u32 flags;		/* PMUSCOPE_CHAIN_F_* */
	__u32 reserved;
	/* __u64 ips[nr_kernel + nr_user] */
};

/*
 * The Activity Monitors (AMU) of chosen CPUs, read-only, without a
 * session: PMUSCOPE_IOC_AMU_READ on any open /dev/pmuscope, by a caller
 * with CAP_PERFMON or CAP_SYS_ADMIN. One record per CPU of the bitmap.
 */
#define PMUSCOPE_AMU_GROUP_MAX		16	/* counters of one group, at most */

/* Group 0's counters, architected (Arm ARM D16.3.1), by index. */
#define PMUSCOPE_AMU_CORE_CYCLES	0	/* CPU_CYCLES (0x0011): the core's clock */
#define PMUSCOPE_AMU_CONST_CYCLES	1	/* CNT_CYCLES (0x4004): the system counter's rate */
#define PMUSCOPE_AMU_INST_RETIRED	2	/* INST_RETIRED (0x0008) */
#define PMUSCOPE_AMU_MEM_STALL		3	/* STALL_BACKEND_MEM (0x4005): memory stalls */

/* State of one CPU's AMU (struct pmuscope_amu_cpu.state). */
#define PMUSCOPE_AMU_READ_OK		0	/* read now */
#define PMUSCOPE_AMU_ABSENT		1	/* no AMU on this CPU */
#define PMUSCOPE_AMU_DISABLED		2	/* not read: amu=0, or the kernel does not use it */
#define PMUSCOPE_AMU_OFFLINE		3	/* CPU offline: not read */

/* Flags of one CPU's record. */
#define PMUSCOPE_AMU_F_LOST		(1U << 0)	/* counts lost since the last AMU_READ */
#define PMUSCOPE_AMU_F_CONST_BROKEN	(1U << 1)	/* CNT_CYCLES off its rate (erratum) */
#define PMUSCOPE_AMU_F_AUX_ZERO		(1U << 2)	/* AMCR_EL0.CG1RZ: group 1 not read */

struct pmuscope_amu_cpu {
	__u32 cpu;
	__u32 state;		/* PMUSCOPE_AMU_READ_OK .. OFFLINE; below: OK only */
	__u32 flags;		/* PMUSCOPE_AMU_F_* */
	__u32 version;		/* ID_AA64PFR0_EL1.AMU: 1 AMUv1, 2 AMUv1p1 */
	__u16 nr_group0;	/* AMCGCR_EL0.CG0NC */
	__u16 nr_group1;	/* AMCGCR_EL0.CG1NC; 0: no group 1 */
	__u16 implemented1;	/* bit n: group-1 counter n exists (AMCG1IDR_EL0) */
	__u16 enabled0;		/* bit n: group-0 counter n enabled (AMCNTENSET0_EL0) */
	__u16 enabled1;		/* bit n: group-1 counter n enabled (AMCNTENSET1_EL0) */
	__u16 reserved0[3];
	__u64 time;		/* system counter (CNTVCT) when read */
	__u16 type0[PMUSCOPE_AMU_GROUP_MAX];	/* AMEVTYPER0<n>_EL0.evtCount */
	__u16 type1[PMUSCOPE_AMU_GROUP_MAX];	/* AMEVTYPER1<n>_EL0.evtCount */
	__u64 group0[PMUSCOPE_AMU_GROUP_MAX];	/* AMEVCNTR0<n>_EL0; 0: absent, disabled */
	__u64 group1[PMUSCOPE_AMU_GROUP_MAX];	/* AMEVCNTR1<n>_EL0; 0: absent, disabled, CG1RZ */
};

struct pmuscope_amu_read {
	__u32 size;		/* sizeof(struct pmuscope_amu_read) */
	__u32 flags;		/* none defined: zero */
	__u64 cpus;		/* pointer to a CPU bitmap of __u64 words, not empty */
	__u64 records;		/* pointer to struct pmuscope_amu_cpu[nr_records] */
	__u32 cpus_size;	/* bytes at @cpus, a multiple of 8, 8 .. 4096 */
	__u32 nr_records;	/* in: room at @records; out: CPUs in @cpus (written, ascending) */
	__u32 record_size;	/* sizeof(struct pmuscope_amu_cpu) of the caller; 0 = 360 */
	__u32 reserved0;
	__u64 freq;		/* out: system counter frequency in Hz */
	__u64 reserved[2];
};

/*
 * The Statistical Profiling Extension (SPE) of chosen CPUs: a session
 * (one open file, which has no counting configuration) profiles its CPUs
 * from PMUSCOPE_IOC_SPE_START to PMUSCOPE_IOC_SPE_STOP or close, and
 * read() returns the SPE data (Arm ARM D18 packets, unchanged) in chunks.
 * A CPU is profiled by one session at a time.
 */
#define PMUSCOPE_SPE_EL0		(1U << 0)	/* sample at EL0 (PMSCR_EL1.E0SPE) */
#define PMUSCOPE_SPE_EL1		(1U << 1)	/* sample at EL1 (E1SPE): privileged */
#define PMUSCOPE_SPE_TS			(1U << 2)	/* Timestamp packets (PMSCR_EL1.TS) */
#define PMUSCOPE_SPE_PA			(1U << 3)	/* physical addresses (PA): privileged */
#define PMUSCOPE_SPE_CX			(1U << 4)	/* Context packets (CX): privileged */
#define PMUSCOPE_SPE_PCT		(1U << 5)	/* physical time (PCT): privileged, TS */
#define PMUSCOPE_SPE_JITTER		(1U << 6)	/* random jitter (PMSIRR_EL1.RND) */
#define PMUSCOPE_SPE_DISCARD		(1U << 7)	/* discard mode: sample, write nothing */

/* Operation filter (PMSFCR_EL1.B, LD, ST): 0 samples every operation. */
#define PMUSCOPE_SPE_OP_BRANCH		(1U << 0)
#define PMUSCOPE_SPE_OP_LOAD		(1U << 1)
#define PMUSCOPE_SPE_OP_STORE		(1U << 2)

#define PMUSCOPE_SPE_INTERVAL_MAX	0xffffff00ULL	/* PMSIRR_EL1.INTERVAL[31:8] */
#define PMUSCOPE_SPE_KIB_DEFAULT	1024
#define PMUSCOPE_SPE_KIB_MIN		16
#define PMUSCOPE_SPE_KIB_MAX		65536
#define PMUSCOPE_SPE_HW_KIB_DEFAULT	64
#define PMUSCOPE_SPE_HW_KIB_MIN		8
#define PMUSCOPE_SPE_HW_KIB_MAX		4096

struct pmuscope_spe_config {
	__u32 size;		/* sizeof(struct pmuscope_spe_config) */
	__u32 flags;		/* PMUSCOPE_SPE_*; at least one of EL0, EL1 */
	__u64 cpus;		/* pointer to a CPU bitmap of __u64 words, not empty */
	__u32 cpus_size;	/* bytes at @cpus, a multiple of 8, 8 .. 4096 */
	__u32 ops;		/* PMUSCOPE_SPE_OP_*; 0 = every operation */
	/*
	 * Operations between samples, a multiple of 256 from the CPU's
	 * minimum (sysfs spe_min_interval) to INTERVAL_MAX; 0 = the minimum.
	 */
	__u64 interval;
	__u64 events;		/* PMSEVFR_EL1: sample only with all these events; 0 = off */
	__u64 nevents;		/* PMSNEVFR_EL1 (FEAT_SPE_FnE): only with none of these */
	__u32 min_latency;	/* PMSLATFR_EL1.MINLAT, cycles, <= 65535; 0 = off */
	/* The session's one ring, which all its CPUs fill and read() drains */
	__u32 buffer_kib;	/* a power of 2; 0 = 1024 */
	/*
	 * Each of a CPU's two profiling buffers (one fills while the other
	 * is copied to the ring), a power of 2, <= buffer_kib / 2
	 */
	__u32 hw_kib;		/* 0 = 64 */
	__u32 wakeup_kib;	/* poll() is readable at this much; 0 = any chunk */
	__u64 reserved[2];
};

/* Flags of one chunk. */
#define PMUSCOPE_SPE_C_LOST		(1U << 0)	/* data of this CPU was lost before it */
#define PMUSCOPE_SPE_C_COLLISION	(1U << 1)	/* PMBSR_EL1.COLL: samples collided */
#define PMUSCOPE_SPE_C_STOPPED		(1U << 2)	/* profiling of this CPU stopped after it */
#define PMUSCOPE_SPE_C_FINAL		(1U << 3)	/* drained by a stop, idle or offline */

/*
 * One chunk; read() returns whole chunks only, each @size bytes (a
 * multiple of 8): the 32 bytes below, then @data_size bytes of SPE data
 * (whole records as the profiling buffer held them), then padding.
 */
struct pmuscope_spe_chunk {
	__u32 size;		/* bytes of this chunk, data and padding included */
	__u32 cpu;
	__u64 time;		/* system counter (CNTVCT) when handed over */
	__u32 data_size;	/* bytes of SPE data */
	__u32 flags;		/* PMUSCOPE_SPE_C_* */
	__u64 lost;		/* bytes of this CPU lost since its previous chunk */
};

/* State of one CPU of an SPE session. */
#define PMUSCOPE_SPE_RUNNING		0	/* profiling */
#define PMUSCOPE_SPE_FAULTED		1	/* stopped by a fault: see @pmbsr */
#define PMUSCOPE_SPE_OFFLINE		2	/* CPU offline: resumes when online */
#define PMUSCOPE_SPE_STOPPED		3	/* the session is stopped */

struct pmuscope_spe_cpu {
	__u32 cpu;
	__u32 state;		/* PMUSCOPE_SPE_RUNNING .. STOPPED */
	__u64 pmbsr;		/* FAULTED: PMBSR_EL1 of the fault */
	__u64 bytes;		/* SPE data put in the ring */
	__u64 lost_ring;	/* bytes lost: the ring was full */
	__u64 lost_dl;		/* bytes discarded: PMBSR_EL1.DL (data loss) */
	/* ns profiling was off while the session ran (buffer service, idle, offline, fault) */
	__u64 stopped_ns;
	__u32 fills;		/* profiling buffer fills (buffer-full PMBIRQs) */
	__u32 dl_events;	/* PMBIRQs with DL set */
	__u32 collisions;	/* PMBIRQs with COLL set */
	__u32 spurious;		/* PMBIRQs with S clear (IRQ_NONE) */
};

struct pmuscope_spe_status {
	__u32 size;		/* sizeof(struct pmuscope_spe_status) */
	__u32 flags;		/* none defined: zero */
	__u64 records;		/* pointer to struct pmuscope_spe_cpu[nr_records] */
	__u32 nr_records;	/* in: room at @records; out: CPUs of the session */
	__u32 record_size;	/* sizeof(struct pmuscope_spe_cpu) of the caller; 0 = 64 */
	__u64 freq;		/* out: system counter frequency in Hz */
	__u64 reserved[2];
};

/*
 * EL0 direct reads (version 6). A session configured with
 * PMUSCOPE_CFG_USER_READ maps this page with mmap(NULL, 4096, PROT_READ,
 * MAP_SHARED, fd, 0): read-only, not inherited, not copied on fork. The
 * driver updates it under @seq (odd while it writes; a reader retries
 * while @seq is odd or changed). On CPU @cpu, while the thread runs
 * there, PMUSERENR_EL0 lets it read the counters whose @index is not 0:
 *
 *	count = offset + ((raw - last_raw) & mask(width))
 *
 * raw being PMEVCNTR<index - 1>_EL0, or PMCCNTR_EL0 for index 32. That
 * is the value PMUSCOPE_IOC_READ gives at the same instant, a 32-bit
 * wrap the overflow interrupt has not folded yet included: the driver
 * keeps a 32-bit counter's last_raw at 2^31 or above. Anywhere else
 * (@cpu is PMUSCOPE_CPU_ANY or another CPU, @index 0) use the READ ioctl:
 * an MRS there raises SIGILL. The check of @cpu and the MRS must not be
 * separated by a migration (libpmuscope uses an rseq critical section).
 *
 * Version 2: @gen moves whenever a write of the page begins (it never
 * repeats), and a write made on the thread's CPU while the thread runs
 * there (its overflow interrupt, an IPI, a perf callback) aborts the
 * thread's rseq critical section, as a preemption would. Every switch of
 * the thread out of a CPU that grants writes the page. So the thread,
 * having copied the page under @seq with @gen while @cpu named a CPU,
 * and finding @gen unchanged inside its critical section, runs on that
 * CPU with the copy still true: it may read the counters and fold them
 * with the copy, and needs no re-check after.
 */
#define PMUSCOPE_USER_PAGE_VERSION	2
#define PMUSCOPE_USER_CYCLE_INDEX	32	/* @index of the cycle counter */
#define PMUSCOPE_USER_F_LIVE		(1U << 0)	/* counting: times grow with CNTVCT */

struct pmuscope_user_counter {
	__u32 index;		/* 0: not readable now; n + 1: PMEVCNTR<n>_EL0; 32: PMCCNTR_EL0 */
	__u32 width;		/* bits of the hardware counter: 32 or 64 */
	__u64 offset;		/* see above */
	__u64 last_raw;		/* the counter's value at the engine's last fold */
	__u64 time_enabled;	/* ns at @time_cnt */
	__u64 time_running;	/* ns at @time_cnt */
	__u64 time_cnt;		/* CNTVCT_EL0 when the times were taken */
	__u32 flags;		/* PMUSCOPE_USER_F_* */
	__u32 reserved0;
	__u64 reserved;
};

struct pmuscope_user_page {
	__u32 version;		/* PMUSCOPE_USER_PAGE_VERSION */
	__u32 size;		/* sizeof(struct pmuscope_user_page) */
	__u32 seq;		/* odd while the driver writes the page */
	__u32 nr;		/* counters: the session's events, in order */
	__u32 cpu;		/* the CPU that grants EL0 access now; PMUSCOPE_CPU_ANY: none */
	__u32 pmuserenr;	/* PMUSERENR_EL0 there while the thread runs */
	__u64 grants;		/* times the thread was granted access on a CPU */
	__u64 denials;		/* ... and was not (another session counting there) */
	__u64 gen;		/* version 2: + 1 as each write of the page begins */
	__u64 reserved[3];
	struct pmuscope_user_counter ctr[PMUSCOPE_MAX_EVENTS];
};

#define PMUSCOPE_IOC_MAGIC		0xB9

#define PMUSCOPE_IOC_HANDSHAKE	_IOWR(PMUSCOPE_IOC_MAGIC, 0x00, struct pmuscope_handshake)
#define PMUSCOPE_IOC_CONFIG	_IOW(PMUSCOPE_IOC_MAGIC, 0x01, struct pmuscope_config)
#define PMUSCOPE_IOC_ENABLE	_IO(PMUSCOPE_IOC_MAGIC, 0x02)
#define PMUSCOPE_IOC_DISABLE	_IO(PMUSCOPE_IOC_MAGIC, 0x03)
#define PMUSCOPE_IOC_RESET	_IO(PMUSCOPE_IOC_MAGIC, 0x04)
#define PMUSCOPE_IOC_READ	_IOWR(PMUSCOPE_IOC_MAGIC, 0x05, struct pmuscope_read)
#define PMUSCOPE_IOC_SWINC	_IOW(PMUSCOPE_IOC_MAGIC, 0x06, struct pmuscope_swinc)
#define PMUSCOPE_IOC_SNAPSHOT	_IOWR(PMUSCOPE_IOC_MAGIC, 0x07, struct pmuscope_snapshot)
#define PMUSCOPE_IOC_STREAM	_IOW(PMUSCOPE_IOC_MAGIC, 0x08, struct pmuscope_stream)
#define PMUSCOPE_IOC_AMU_READ	_IOWR(PMUSCOPE_IOC_MAGIC, 0x09, struct pmuscope_amu_read)
#define PMUSCOPE_IOC_SPE_START	_IOW(PMUSCOPE_IOC_MAGIC, 0x0a, struct pmuscope_spe_config)
#define PMUSCOPE_IOC_SPE_STOP	_IO(PMUSCOPE_IOC_MAGIC, 0x0b)
#define PMUSCOPE_IOC_SPE_STATUS	_IOWR(PMUSCOPE_IOC_MAGIC, 0x0c, struct pmuscope_spe_status)

#endif /* _UAPI_LINUX_PMUSCOPE_H */
