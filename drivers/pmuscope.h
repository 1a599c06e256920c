/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope: driver-internal declarations.
 */
#ifndef __PMUSCOPE_H
#define __PMUSCOPE_H

#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/irqreturn.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <uapi/linux/pmuscope.h>
#include <asm/virt.h>

/*
 * The exception level the kernel runs at: 2 on a VHE host (FEAT_VHE,
 * Linux booted at EL2 and staying there), else 1. "Kernel" events and the
 * PMSWINC_EL0 writes of PMUSCOPE_IOC_SWINC happen there.
 */
static inline unsigned int pmuscope_kernel_el(void)
{
	return is_kernel_in_hyp_mode() ? 2 : 1;
}

/*
 * pmuscope_emu.ko (tests/emu) is this driver built against the register
 * model; these hooks are empty in pmuscope.ko.
 */
#ifdef PMUSCOPE_EMU
#include "pmuscope_emu_seam.h"
#define PMUSCOPE_OTHER_MODULE		"pmuscope.ko"
#else
#define PMUSCOPE_OTHER_MODULE		"pmuscope_emu.ko"
static inline int pmuscope_emu_init(void) { return 0; }
static inline void pmuscope_emu_exit(void) { }
static inline bool pmuscope_emu_active(void) { return false; }
static inline const char *pmuscope_emu_profile_name(void) { return ""; }
#endif

#define PMUSCOPE_DRV_NAME		"pmuscope"
#define PMUSCOPE_DRV_VERSION		"0.1.0"

/* ------------------------------------------------------------------- units */
enum pmuscope_unit {
	PMUSCOPE_UNIT_PMU,
	PMUSCOPE_UNIT_SNAPSHOT,
	PMUSCOPE_UNIT_SPE,
	PMUSCOPE_UNIT_AMU,
	PMUSCOPE_NR_UNITS
};

/* What the driver may do with a unit on one CPU. */
enum pmuscope_unit_state {
	PMUSCOPE_STATE_ABSENT,		/* ID register says not implemented */
	PMUSCOPE_STATE_PRESENT,		/* implemented and in use */
	PMUSCOPE_STATE_DISABLED,	/* implemented, switched off by parameter */
	PMUSCOPE_STATE_UNAVAILABLE,	/* implemented, owned by a higher EL */
};

#define PMUSCOPE_ALL_UNITS		(BIT(PMUSCOPE_NR_UNITS) - 1)

/* ------------------------------------------------------------------ events */
struct pmuscope_event_desc {
	u16 number;
	const char *name;
	const char *desc;
};

/* PMCEID0/1 as one bitmap: 0x0000-0x003F at 0-63, 0x4000-0x403F at 64-127. */
#define PMUSCOPE_EVENT_SLOTS		128

extern const struct pmuscope_event_desc pmuscope_events[];
extern const unsigned int pmuscope_nr_events;

int pmuscope_event_slot(u32 number);
const struct pmuscope_event_desc *pmuscope_event_by_number(u32 number);
const struct pmuscope_event_desc *pmuscope_event_by_name(const char *name);

/* An event of a core type's table that PMCEID cannot confirm. */
struct pmuscope_core_event {
	const char *name;
	u16 number;
	u16 core;
};

int pmuscope_core_of(u64 midr);
const struct pmuscope_core_event *pmuscope_core_event_by_name(u64 midr, const char *name);

/* --------------------------------------------------------------- discovery */

/* Raw values read by the probe; zero where a register was not read. */
struct pmuscope_id_regs {
	u64 midr;
	u64 dfr0;
	u64 dfr1;
	u64 pfr0;
	u64 pmcr;
	u64 pmceid0;
	u64 pmceid1;
	u64 pmsidr;
	u64 pmbidr;
	u64 amcfgr;
	u64 amcgcr;
	u64 amcg1idr;		/* AMUv1p1 */
};

/* What one CPU implements, decoded from struct pmuscope_id_regs. */
struct pmuscope_cpu_caps {
	struct pmuscope_id_regs regs;
	enum pmuscope_unit_state state[PMUSCOPE_NR_UNITS];
	u8 pmuver;		/* ID_AA64DFR0_EL1.PMUVer */
	u8 pmsver;		/* ID_AA64DFR0_EL1.PMSVer */
	u8 pmss;		/* ID_AA64DFR0_EL1.PMSS */
	u8 amuver;		/* ID_AA64PFR0_EL1.AMU */
	u8 num_counters;	/* PMCR_EL0.N, 0 without a usable PMU */
	u8 evcnt_width;		/* event counter width: 32, or 64 from PMUv3p5 */
	u8 ccnt_width;		/* cycle counter width: 64 */
	u8 amu_counters;	/* AMU counters in groups 0 and 1 */
	DECLARE_BITMAP(events, PMUSCOPE_EVENT_SLOTS);
};

void pmuscope_caps_units(const struct pmuscope_id_regs *regs,
			 unsigned long allowed,
			 struct pmuscope_cpu_caps *caps);
void pmuscope_caps_decode(const struct pmuscope_id_regs *regs,
			  unsigned long allowed,
			  struct pmuscope_cpu_caps *caps);
void pmuscope_probe_local(unsigned long allowed, struct pmuscope_cpu_caps *caps);
bool pmuscope_caps_has_event(const struct pmuscope_cpu_caps *caps, u32 number);
const char *pmuscope_pmuver_name(u8 pmuver);
const char *pmuscope_state_name(enum pmuscope_unit_state state);
const char *pmuscope_cpu_name(u64 midr);

/* ---------------------------------------------------------- counting engine */
struct pmuscope_session;
struct pmuscope_el0;
struct pmuscope_psample;
struct perf_event;

#define PMUSCOPE_NR_COUNTERS		32	/* 0..30 event counters, 31 cycle */
/*
 * The largest stream record, in 64-bit words: the header, 32 counts and a
 * call chain of PMUSCOPE_STACK_MAX frames (1336 bytes).
 */
#define PMUSCOPE_REC_MAX_WORDS		(sizeof(struct pmuscope_record) / 8 + \
					 PMUSCOPE_MAX_EVENTS + \
					 sizeof(struct pmuscope_rec_chain) / 8 + PMUSCOPE_STACK_MAX)
/*
 * A session's event without a counter here. Also an index of
 * pmuscope_pmu.hwc[]: a sentinel, never on the hardware.
 */
#define PMUSCOPE_NO_COUNTER		PMUSCOPE_NR_COUNTERS
/*
 * Sampling is throttled once the overflow interrupt takes 1/4 of a window
 * (pmuscope_engine.window_ticks).
 */
#define PMUSCOPE_IRQ_BUSY_DIV		4

/* How counter wraps are folded into the 64-bit software counts. */
enum pmuscope_fold_mode {
	PMUSCOPE_FOLD_IRQ,	/* the overflow PPI */
	PMUSCOPE_FOLD_POLL,	/* a per-CPU hrtimer */
};

/*
 * One hardware counter of one CPU.
 *
 * owner, slot, event and evtyper are assigned with pmuscope_driver.lock
 * held and published under pmuscope_pmu.lock; everything else is running
 * state under pmuscope_pmu.lock, changed on the counter's CPU only (or on
 * any CPU while that CPU is offline).
 */
struct pmuscope_hwc {
	/*
	 * The state pmuscope_hwc_hot() tests (pmu->hot keeps its answer),
	 * then what the folds' usual case reads; the whole is 128 bytes,
	 * so that &hwc[n] is one shift and add.
	 */
	union {
		struct {
			bool enabled;	/* the owner wants it counting */
			bool on_hw;	/* programmed and counting on the CPU */
			bool irq_off;	/* overflow IRQ throttled for this counter */
			bool clock_on;	/* enabled and its CPU online: time runs */
		};
		u32 state;	/* the four at once, for pmuscope_hwc_hot() */
	};
	u32 flags;			/* PMUSCOPE_VAL_* seen since the last reset */
	u64 base;			/* while on_hw: count = base + counter */
	u64 offset;			/* reported count = count - offset (reset) */
	/*
	 * The count of the last fold: where the counter resumes after a
	 * reset nobody announced (pmuscope_pmu_check()), and what a 32-bit
	 * counter's count with no wrap pending may not go below
	 * (pmuscope_hwc_fold_from(): else it was rewritten).
	 */
	u64 last;
	u64 last_hw;			/* the counter's value at the last fold */
	/*
	 * Time enabled, in ktime_get_ns() ns: @t_enabled while the clock
	 * is stopped, now - @t_start while it runs (clock_on). One clock
	 * for both times: the engine's counters count whenever their time
	 * runs, so time_running is time_enabled (pmuscope_hwc_clock()).
	 */
	u64 t_enabled;
	u64 t_start;
	/*
	 * Sampling (a stream's event): the counter starts at
	 * pmuscope_hwc_preload() and its overflow interrupt is a sample,
	 * every @sample_period events; 0: not sampling.
	 */
	u64 sample_period;

	u64 saved;			/* while not on_hw: the count */
	u64 poll_at;			/* on_hw: when last polled (or started) */
	struct pmuscope_session *owner;	/* NULL: free */
	u64 evtyper;			/* PMEVTYPER<n>_EL0 / PMCCFILTR_EL0 value */
	u16 slot;			/* index of the event in the owner's config */
	u16 event;
	unsigned int storm_count;	/* overflows (samples) in the window */
	union {
		/* Not sampling: jiffies at the start of its one-second window. */
		unsigned long storm_start;
		/* Sampling: the CPU's window (pmu->irq_window) of @storm_count. */
		u64 sample_window;
	};
	/* Sampling throttled (pmu->throttled): the system counter then. */
	u64 throttled_at;
	/*
	 * The EL0 session whose event @slot this counter holds, set and
	 * cleared by pmuscope_ppmu.c under pmuscope_pmu.lock: each fold
	 * updates its user page (pmuscope_el0_fold()). NULL: none.
	 */
	struct pmuscope_el0 *el0;
} __aligned(128);

/*
 * The hardware snapshot path (FEAT_PMUv3_SS) of one CPU, as last found;
 * sysfs cpuN/snapshot_hw shows it. Set at CPU online from the probe and
 * the snapshot parameter; a failed capture sets the reason, and the CPU
 * uses the software path until it comes online again. A request that
 * finds a KVM vCPU loaded is answered in software and the next one tries
 * again.
 */
enum pmuscope_ss_hw {
	PMUSCOPE_SS_HW_ABSENT,		/* no FEAT_PMUv3_SS */
	PMUSCOPE_SS_HW_OFF,		/* snapshot=0 (the default), or the perf backend */
	PMUSCOPE_SS_HW_UNDER_EL2,	/* at EL1 under an EL2, and not snapshot=2 */
	PMUSCOPE_SS_HW_PROHIBITED,	/* a capture ended with NC = 1 */
	PMUSCOPE_SS_HW_TIMEOUT,		/* a capture did not complete in time */
	PMUSCOPE_SS_HW_STALE,		/* a capture returned values older than the request */
	/* Last, those in which a capture is tried: pmuscope_ss_usable(). */
	PMUSCOPE_SS_HW_UNTRIED,		/* allowed; no capture yet */
	PMUSCOPE_SS_HW_READY,		/* the last capture came back fresh */
	PMUSCOPE_SS_HW_KVM,		/* VHE: a KVM vCPU was loaded at the last request */
	PMUSCOPE_NR_SS_HW
};

/**
 * struct pmuscope_pmu - the PMU of one CPU
 * @lock: protects the running state of @hwc[] and the CPU's PMU registers,
 *	and every field below but the probe's (@cpu, @nr_counters,
 *	@evcnt_width, @usable, @pmuver): a raw spinlock taken with IRQs off,
 *	on the CPU (or anywhere while it is offline). Innermost of the
 *	engine's locks: inside pmuscope_drv.lock and a session's lock.
 * @cpu: the CPU (set up at load).
 * @nr_counters: PMCR_EL0.N (probe, at CPU online).
 * @evcnt_width: 32, or 64 with PMUv3p5 (PMCR.LP = 1) (probe).
 * @usable: PMU present on this CPU (probe).
 * @hw_ready: registers initialised by pmuscope.
 * @allocated: bit i: hwc[i] has an owner (changed with pmuscope_drv.lock
 *	held too, or by a task counter of pmuscope_ppmu.c under @lock alone).
 * @on_hw_mask: bit i: hwc[i] counting on the CPU.
 * @hot: bit i: hwc[i] passes pmuscope_hwc_hot(), kept in step by
 *	pmuscope_hwc_sync() at each change of its on_hw, irq_off or clock_on:
 *	the folds' usual case tests one bit of it, not the counter's state.
 * @overflows: 32-bit wraps folded.
 * @interrupts: overflow interrupts taken.
 * @irq_window: sampling's window: the system counter at its start (the
 *	first overflow interrupt at least pmuscope_engine.window_ticks after
 *	the last start, or the CPU coming online; nothing else). A sampling
 *	counter takes at most sample_burst samples in it.
 * @irq_busy: the overflow interrupt's own time (system-counter ticks) in
 *	the window; over a quarter of the window it throttles sampling
 *	counters however few samples that was (a slow CPU, or a debug kernel,
 *	could otherwise spend all its time below sample_limit: perf's
 *	perf_cpu_time_max_percent).
 * @throttled: the sampling counters throttled, each of whose interrupt
 *	@unthrottle_timer gives back a window after its own throttle
 *	(hwc->throttled_at).
 * @irq_entry: system counter at the interrupt's entry.
 * @spurious: overflow interrupts with no overflow of ours.
 * @resyncs: counters found clobbered or lost.
 * @folds: counter reads that folded.
 * @late_polls: polls later than fold_safe_ns.
 * @ss_hw: snapshots (pmuscope_snapshot.c): enum pmuscope_ss_hw.
 * @ss_pmecr_set: EL1: PMECR_EL1.SSE set by pmuscope.
 * @ss_el2_set: VHE: MDCR_EL2.PMSSE set by pmuscope ...
 * @ss_el2_old: ... and the value it had before.
 * @ss_seen: a capture's witness copy was read: ...
 * @ss_last_w: ... the witness counter ...
 * @ss_last_copy: ... and its copy.
 * @ss_captures: hardware captures used.
 * @ss_fallbacks: hardware captures that failed.
 * @sw_snapshots: software (frozen) snapshots.
 * @stream_sess: streams (pmuscope_stream.c): the session whose time-based
 *	records are made here ...
 * @stream_ns: ... every so many ns ...
 * @stream_timer: ... by this timer.
 * @samples: sampling interrupts.
 * @el0: EL0 access (pmuscope_el0.c): the thread's session that holds this
 *	CPU's access from its switch-in to its switch-out (the run @el0_run).
 * @el0_here: the session whose sentinel perf has added here (its thread
 *	switched in); a grant without it is revoked at the end of perf's
 *	batch (pmuscope_ppmu_enable()).
 * @el0_run: see @el0.
 * @el0_open: the counters EL0 may read meanwhile (before PMUv3p9 all of
 *	them), on which no other owner's counter may go.
 * @el0_userenr: the PMUSERENR_EL0 value written, 0 until every counter of
 *	the session counts here.
 * @pmuver: ID_AA64DFR0_EL1.PMUVer (probe).
 * @poll_timer: folds the counters in poll mode (pinned to the CPU).
 * @unthrottle_timer: see @throttled.
 * @hwc: the counters, and hwc[PMUSCOPE_NO_COUNTER]: all zeros for ever, so
 *	that an event without a counter is never on the hardware with no
 *	test of its own where the folds look at hwc[n].on_hw (its bit, 32,
 *	is never in pmu->hot). Last but two: READ's hot path reaches them
 *	with short offsets.
 * @scratch: a record's values.
 * @rec: a record being made.
 */
struct pmuscope_pmu {
	raw_spinlock_t lock;		/* running state, registers */
	unsigned int cpu;
	u8 nr_counters;
	u8 evcnt_width;
	bool usable;
	bool hw_ready;
	u32 allocated;
	u32 on_hw_mask;
	u32 hot;
	u64 overflows;
	u64 interrupts;
	u64 irq_window;
	u64 irq_busy;
	u32 throttled;
	u32 sample_held;	/* reloaded, counting again at the interrupt's end */
	u64 irq_entry;
	u64 spurious;
	u64 resyncs;
	u64 folds;
	u64 late_polls;
	u8 ss_hw;
	bool ss_pmecr_set;
	bool ss_el2_set;
	u8 ss_el2_old;
	bool ss_seen;
	u8 ss_last_w;
	u64 ss_last_copy;
	u64 ss_captures;
	u64 ss_fallbacks;
	u64 sw_snapshots;
	struct pmuscope_session *stream_sess;
	u64 stream_ns;
	struct hrtimer stream_timer;
	u64 samples;
	struct pmuscope_el0 *el0;
	struct pmuscope_el0 *el0_here;
	unsigned long el0_run;
	u32 el0_open;
	u64 el0_userenr;
	u8 pmuver;
	struct hrtimer poll_timer;
	struct hrtimer unthrottle_timer;
	struct pmuscope_hwc hwc[PMUSCOPE_NR_COUNTERS + 1];
	struct pmuscope_value scratch[PMUSCOPE_MAX_EVENTS];
	u64 rec[PMUSCOPE_REC_MAX_WORDS];
};

/*
 * READ's and the snapshot's usual case: on the hardware, its clock
 * running, its overflow interrupt not throttled (enabled or not: a
 * counter being disabled is still read). A sampling counter too: what
 * pmuscope_hwc_fold_from() does for one alone (a wrap pending, a counter
 * gone below its last fold) the folds leave to pmuscope_pmu_fold_one(). The
 * patterns are constants the compiler folds, whatever the byte order.
 */
static __always_inline bool pmuscope_hwc_hot(const struct pmuscope_hwc *hwc)
{
	const struct pmuscope_hwc want = { .on_hw = true, .clock_on = true };
	const struct pmuscope_hwc mask = { .on_hw = true, .irq_off = true, .clock_on = true };

	return (hwc->state & mask.state) == want.state;
}

/* Is a hardware capture tried on @pmu (its last state UNTRIED or READY)? */
static inline bool pmuscope_ss_usable(const struct pmuscope_pmu *pmu)
{
	return READ_ONCE(pmu->ss_hw) >= PMUSCOPE_SS_HW_UNTRIED;
}

/* pmu->hot's bit @idx, after a change of hwc[@idx]'s state. */
static inline void pmuscope_hwc_sync(struct pmuscope_pmu *pmu, unsigned int idx)
{
	if (pmuscope_hwc_hot(&pmu->hwc[idx]))
		pmu->hot |= BIT(idx);
	else
		pmu->hot &= ~BIT(idx);
}

/* Who drives the PMU (module parameter backend=, decided at load). */
enum pmuscope_backend {
	PMUSCOPE_BACKEND_DIRECT,	/* pmuscope, with MRS/MSR */
	PMUSCOPE_BACKEND_PERF,		/* perf's PMU driver; pmuscope uses perf events */
};

/*
 * The fastest any event counts, by default: no PMUv3 core with 32-bit
 * event counters counts more than 8 events per cycle (STALL_SLOT of an
 * 8-wide core, INST_SPEC, cache accesses of several pipes) nor runs above
 * 4 GHz. Module parameters events_per_cycle and max_mhz.
 */
#define PMUSCOPE_EVENTS_PER_CYCLE_DEFAULT	8
#define PMUSCOPE_MAX_MHZ_DEFAULT		4000
#define PMUSCOPE_POLL_MS_MAX			1000

/* Engine settings, fixed at load time. */
struct pmuscope_engine {
	enum pmuscope_backend backend;
	enum pmuscope_fold_mode mode;
	u64 poll_ns;			/* poll period */
	/* Longest gap between two polls of a 32-bit counter that is exact. */
	u64 fold_safe_ns;
	unsigned int storm_limit;	/* overflows per second before throttling */
	unsigned int sample_limit;	/* samples per second and counter, likewise */
	/*
	 * sample_limit in short windows (pmuscope_engine_sample_limit()):
	 * at most @sample_burst samples per counter in a window of
	 * @window_ticks of the system counter (@window_ns), the time that
	 * many samples take at sample_limit a second; @sample_burst is
	 * sample_limit / HZ rounded up, so a window is a scheduler tick or
	 * a little more. A throttled counter is off for one window.
	 */
	unsigned int sample_burst;
	u64 window_ticks;
	u64 window_ns;
	int irq;			/* PMU PPI, 0 if none */
	/* snapshot=2: capture in hardware at EL1 under an EL2 too. */
	bool ss_under_el2;
};

extern struct pmuscope_engine pmuscope_engine;
extern bool pmuscope_param_task_ours;

void pmuscope_pmu_setup(struct pmuscope_pmu *pmu, unsigned int cpu,
			const struct pmuscope_cpu_caps *caps);
u64 pmuscope_filter_bits(u32 ev_flags);
u64 pmuscope_evtyper(u32 event, u32 ev_flags);
unsigned int pmuscope_hwc_width(const struct pmuscope_pmu *pmu, unsigned int idx);
u64 pmuscope_fold_safe_ns(unsigned int width, u32 events_per_cycle, u32 max_mhz);
int pmuscope_poll_period(u32 poll_ms, u32 events_per_cycle, u32 max_mhz,
			 u32 *period_ms);
void pmuscope_engine_sample_limit(struct pmuscope_engine *e, u32 limit, u32 hz, u32 freq);

/* On the PMU's CPU, IRQs off, pmu->lock held. */
void pmuscope_pmu_hw_reset(struct pmuscope_pmu *pmu);
void pmuscope_pmu_hw_start_all(struct pmuscope_pmu *pmu, u64 now);
void pmuscope_pmu_hw_stop_all(struct pmuscope_pmu *pmu, u64 now);
void pmuscope_hwc_start(struct pmuscope_pmu *pmu, unsigned int idx, u64 now);
void pmuscope_pmu_start_mask(struct pmuscope_pmu *pmu, u32 mask, u64 now);
void pmuscope_pmu_stop_mask(struct pmuscope_pmu *pmu, u32 mask, u64 now);
void pmuscope_hwc_stop(struct pmuscope_pmu *pmu, unsigned int idx, u64 now);
u64 pmuscope_hwc_fold(struct pmuscope_pmu *pmu, unsigned int idx);
/*
 * The counters that should be counting now: those on the hardware, but
 * the sampling counters the overflow interrupt holds until its end
 * (pmuscope_pmu_overflow_end()).
 */
static inline u32 pmuscope_pmu_running(const struct pmuscope_pmu *pmu)
{
	return pmu->on_hw_mask & ~pmu->sample_held;
}

bool pmuscope_pmu_overflow(struct pmuscope_pmu *pmu, unsigned long *sampled);
void pmuscope_pmu_overflow_end(struct pmuscope_pmu *pmu);
u64 pmuscope_pmu_unthrottle(struct pmuscope_pmu *pmu, bool all);
u64 pmuscope_hwc_preload(const struct pmuscope_pmu *pmu, unsigned int idx);
void pmuscope_hwc_set_sampling(struct pmuscope_pmu *pmu, unsigned int idx,
			       u64 period, u64 now);
void pmuscope_pmu_check(struct pmuscope_pmu *pmu, u64 now);
void pmuscope_pmu_repair(struct pmuscope_pmu *pmu, u64 now);
void pmuscope_pmu_swinc(struct pmuscope_pmu *pmu, u32 mask, u32 count);

/* Any CPU: pmu->lock held; on the PMU's CPU unless it is offline. */
void pmuscope_hwc_read(struct pmuscope_pmu *pmu, unsigned int idx, u64 now,
		       struct pmuscope_value *val);
void pmuscope_pmu_read(struct pmuscope_pmu *pmu, const u8 *idx, u32 nr,
		       u64 now, struct pmuscope_value *vals);
void pmuscope_pmu_fold_raw(struct pmuscope_pmu *pmu, const u8 *idx, u32 nr, u64 now,
			   u64 ovs, const u64 *raw, struct pmuscope_value *vals);
void pmuscope_hwc_reset(struct pmuscope_pmu *pmu, unsigned int idx, u64 now);
void pmuscope_hwc_set_enabled(struct pmuscope_pmu *pmu, unsigned int idx,
			      bool enable, u64 now);

/* CPU state changes, on the CPU. */
void pmuscope_pmu_poll_locked(struct pmuscope_pmu *pmu, u64 now);
bool pmuscope_pmu_needs_poll(const struct pmuscope_pmu *pmu);
void pmuscope_pmu_cpu_up(struct pmuscope_pmu *pmu);
void pmuscope_pmu_cpu_down(struct pmuscope_pmu *pmu);
void pmuscope_pmu_pm_enter(struct pmuscope_pmu *pmu);
void pmuscope_pmu_pm_exit(struct pmuscope_pmu *pmu);

/* ------------------------------------------------------------- EL0 access */

/*
 * The EL0 access of a session of the calling thread (PMUSCOPE_CFG_USER_READ,
 * pmuscope_el0.c): its user page and what the page is computed from.
 * @lock (raw, IRQs off, inside pmuscope_pmu.lock) protects the page's
 * writes and everything below it; the rest is set at configure.
 */
struct pmuscope_el0 {
	struct pmuscope_user_page *page;	/* one zeroed page, mapped read-only */
	struct page *pg;			/* ... its struct page */
	struct task_struct *task;	/* the thread (the session holds a reference) */
	struct perf_event *pe[PMUSCOPE_MAX_EVENTS];	/* its counters' events */
	struct perf_event *sentinel;	/* the switch hook: pinned, no counter */
	u32 nr;
	bool swinc;			/* PMUSCOPE_CFG_USER_SWINC */
	bool enabled;			/* the session is enabled: switch-ins take access */
	raw_spinlock_t lock;
	bool closing;			/* no new grant: the session is going */
	u32 live;			/* bit i: event i counting on a counter */
	u8 idx[PMUSCOPE_MAX_EVENTS];	/* ... that counter */
	u64 evc[PMUSCOPE_MAX_EVENTS];	/* perf's count minus its prev_count */
	u64 reset[PMUSCOPE_MAX_EVENTS];	/* RESET: subtracted */
	u64 fold_val[PMUSCOPE_MAX_EVENTS];	/* the count at the last fold ... */
	u64 fold_hw[PMUSCOPE_MAX_EVENTS];	/* ... and the counter's value then */
};

u64 pmuscope_el0_userenr(bool per_counter, u32 mine, bool swinc);
u64 pmuscope_el0_pmuacr(u32 open);
bool pmuscope_el0_supported(void);
bool pmuscope_el0_per_counter(const struct pmuscope_pmu *pmu);
u32 pmuscope_el0_all(const struct pmuscope_pmu *pmu);
u32 pmuscope_el0_mine(const struct pmuscope_pmu *pmu, const struct pmuscope_el0 *el0);
struct pmuscope_el0 *pmuscope_el0_alloc(struct task_struct *task, u32 nr, bool swinc);
void pmuscope_el0_free(struct pmuscope_el0 *el0);
/* On the CPU, IRQs off, pmu->lock held. */
bool pmuscope_el0_reserve(struct pmuscope_pmu *pmu, struct pmuscope_el0 *el0,
			  unsigned long run, bool count);
void pmuscope_el0_grant(struct pmuscope_pmu *pmu, struct pmuscope_el0 *el0);
void pmuscope_el0_revoke(struct pmuscope_pmu *pmu);
void pmuscope_el0_start(struct pmuscope_pmu *pmu, struct pmuscope_el0 *el0, u32 i,
			unsigned int idx, u64 evc, u64 enabled, u64 running);
void pmuscope_el0_stop(struct pmuscope_el0 *el0, u32 i);
void pmuscope_el0_fold(struct pmuscope_el0 *el0, u32 i, u64 hw, u64 val);
void pmuscope_el0_restore(struct pmuscope_pmu *pmu);
/* Process context. */
void pmuscope_el0_reset(struct pmuscope_el0 *el0, const u64 *offset);

/* --------------------------------------------------------------- snapshots */
#define PMUSCOPE_SNAP_F_ALL		(PMUSCOPE_SNAP_F_SOFTWARE | PMUSCOPE_SNAP_F_HARDWARE)
/* PMSSCR_EL1 reads before a capture is given up (and the hardware path with it). */
#define PMUSCOPE_SS_POLLS		4096

const char *pmuscope_ss_hw_name(enum pmuscope_ss_hw st);
void pmuscope_ss_setup(struct pmuscope_pmu *pmu, const struct pmuscope_cpu_caps *caps);
void pmuscope_ss_cpu_down(struct pmuscope_pmu *pmu);
/* The counters of @idx as a mask (PMUSCOPE_NO_COUNTER: bit 32, no counter's). */
static inline u64 pmuscope_idx_mask(const u8 *idx, u32 nr)
{
	u64 mask = 0;
	u32 i;

	BUILD_BUG_ON(PMUSCOPE_NO_COUNTER >= 64);
	for (i = 0; i < nr; i++)
		mask |= BIT_ULL(idx[i]);
	return mask;
}

/*
 * On the PMU's CPU, IRQs off, pmu->lock held (offline: anywhere). @cmask:
 * pmuscope_idx_mask(@idx, @nr).
 */
void pmuscope_pmu_snapshot(struct pmuscope_pmu *pmu, const u8 *idx, u32 nr, u64 cmask,
			   u32 flags, u64 deadline, u64 now,
			   struct pmuscope_value *vals, struct pmuscope_snap_cpu *sc);

/* ----------------------------------------------------------- locked memory */

/*
 * Memory a session keeps while it exists, charged as perf_mmap() charges
 * a perf buffer (drivers/pmuscope_mlock.c): the caller's user first
 * (user->perf_mlock, up to kernel.perf_event_mlock_kb per online CPU),
 * the rest to its mm (pinned_vm) within RLIMIT_MEMLOCK.
 */
struct pmuscope_mlock {
	struct user_struct *user;	/* charged (a reference); NULL: nothing */
	struct mm_struct *mm;		/* its pinned_vm charged (mmgrab()); NULL: none */
	unsigned long pages;		/* charged, @pinned of them to @mm */
	unsigned long pinned;
};

/* The sysctls of a charge, read before it (files: not under spinlocks). */
struct pmuscope_mlock_sysctl {
	int mlock_kb;		/* kernel.perf_event_mlock_kb; 0: unreadable */
	int paranoid;		/* kernel.perf_event_paranoid; INT_MAX: unreadable */
};

/* Why the limit does not apply (pmuscope_mlock_split()). */
#define PMUSCOPE_MLOCK_EX_PARANOID	BIT(0)	/* kernel.perf_event_paranoid -1 */
#define PMUSCOPE_MLOCK_EX_IPC_LOCK	BIT(1)	/* CAP_IPC_LOCK */

int pmuscope_mlock_split(unsigned long pages, unsigned long user_locked,
			 unsigned long user_limit, unsigned long pinned,
			 unsigned long lock_limit, unsigned int exempt,
			 unsigned long *to_user, unsigned long *to_pinned);
void pmuscope_mlock_sysctl(struct pmuscope_mlock_sysctl *s);
int pmuscope_mlock_charge(struct pmuscope_mlock *m, unsigned long pages,
			  const struct pmuscope_mlock_sysctl *s, const char *what);
void pmuscope_mlock_uncharge(struct pmuscope_mlock *m);

/* ---------------------------------------------------------------- sessions */

/*
 * One event of a session on one CPU (or one PMU type of a task), counted
 * by a perf event (drivers/pmuscope_perf.c). The totals of the counters
 * released when the CPU went offline are carried in count/enabled/running.
 * A value is the total less the offsets (RESET's zero point); an INHERIT
 * task session that is disabled shows its totals as they were at the
 * DISABLE (held_*: perf's inherited child counters go on counting).
 */
struct pmuscope_pevent {
	struct perf_event *pe;		/* NULL: none now (CPU offline) */
	u64 count, enabled, running;	/* carried from released counters */
	u64 offset;			/* RESET: subtracted from the count */
	u64 off_enabled, off_running;	/* RESET: subtracted from the times */
	u64 held_count, held_enabled, held_running; /* INHERIT: totals at DISABLE */
	bool lost;			/* its CPU came back, perf refused it */
};

/* A CPU's THROTTLED records that did not fit in its ring yet. */
struct pmuscope_ring_held {
	struct pmuscope_record rec;	/* the first one */
	u32 count;			/* how many, each written as @rec */
};

/**
 * struct pmuscope_ring - the ring of a session's stream (pmuscope_stream.c)
 * @lock: protects @head, @tail, the counts and what is pending (@lost and
 *	its CPU and time, @held, @nr_held): a raw spinlock taken with IRQs
 *	off, by writers in hard IRQ (inside their CPU's pmuscope_pmu.lock,
 *	or the perf backend's overflow handler and stream timer), tried
 *	only by writers in NMI, and by the reader, under @read_lock.
 * @read_lock: one reader at a time (a mutex, outside @lock).
 * @buf: vmalloc'ed, @size bytes.
 * @size: a power of 2.
 * @head: bytes written, ever.
 * @tail: bytes read, ever.
 * @lost: records dropped since the last LOST record ...
 * @lost_time: ... the last one's time ...
 * @lost_cpu: ... and CPU.
 * @nr_held: THROTTLED records held, all CPUs ...
 * @held: ... per CPU (nr_cpu_ids).
 * @lost_total: records dropped, ever.
 * @nmi_lost: records dropped by an NMI writer that found @lock taken
 *	(pmuscope_ring_write_nmi(), without @lock), folded into @lost by the
 *	next holder of @lock ...
 * @nmi_lost_time: ... the last one's time ...
 * @nmi_lost_cpu: ... and CPU (WRITE_ONCE(), without @lock).
 * @records: records written, ever.
 * @wakeup: wake the reader at this many bytes; 0: each record (written
 *	by STREAM with WRITE_ONCE(), read without the lock).
 * @wait: the reader waits here.
 * @work: wakes the reader out of the IRQ's locks.
 * @mlock: @buf's charge (PMUSCOPE_IOC_STREAM charges it before the ring
 *	is made), given back when the ring is freed.
 *
 * Records come from hard IRQs on any CPU of the session and are read by
 * read(). What is pending (the LOST record of @lost, the THROTTLED records
 * held) is written, LOST first, by the first writer or reader to find
 * room for it.
 */
struct pmuscope_ring {
	raw_spinlock_t lock;		/* head, tail, counts, pending */
	struct mutex read_lock;		/* one reader at a time */
	u8 *buf;
	u32 size;
	u64 head, tail;
	u64 lost;
	u64 lost_time;
	u32 lost_cpu;
	u32 nr_held;
	struct pmuscope_ring_held *held;
	u64 lost_total;
	atomic_long_t nmi_lost;
	u64 nmi_lost_time;
	u32 nmi_lost_cpu;
	u64 records;
	u32 wakeup;
	wait_queue_head_t wait;
	struct irq_work work;
	struct pmuscope_mlock mlock;
};

struct pmuscope_ring *pmuscope_ring_alloc(u32 kib);
void pmuscope_ring_free(struct pmuscope_ring *r);
void pmuscope_ring_write(struct pmuscope_ring *r, const struct pmuscope_record *rec,
			 u32 len);
void pmuscope_ring_write_nmi(struct pmuscope_ring *r, const struct pmuscope_record *rec,
			     u32 len);
ssize_t pmuscope_ring_read(struct pmuscope_ring *r, char __user *ubuf, size_t len,
			   bool nonblock);
__poll_t pmuscope_ring_poll(struct pmuscope_ring *r, struct file *file,
			    struct poll_table_struct *pt);

/* One event of a session's configuration. */
struct pmuscope_sess_event {
	u32 event;
	u32 flags;			/* PMUSCOPE_EV_* */
	u64 evtyper;
};

/**
 * struct pmuscope_session - one open file of /dev/pmuscope (created at its
 *	first CONFIG), or the sysfs session of one CPU
 * @node: in pmuscope_driver.sessions.
 * @id: its number, in messages and sysfs (given when put on the list).
 * @pid: the opener's thread group (0: sysfs).
 * @comm: the opener's name.
 * @sysfs_cpu: >= 0: the sysfs session of that CPU.
 * @configured: a CONFIG holds (changed under @lock too).
 * @enabled: counting.
 * @nr_events: its events (changed under @lock too) ...
 * @ev: ... and what they are.
 * @cpus: the CPUs it counts (a CPU target; changed under @lock too).
 * @hw: [cpu * PMUSCOPE_MAX_EVENTS + i]: the counter of event i on that CPU
 *	(changed under @lock too).
 * @hw_mask: [cpu]: pmuscope_idx_mask() of its hw[], 0: none.
 * @target: PMUSCOPE_TARGET_*.
 * @cfg_flags: PMUSCOPE_CFG_* (task targets).
 * @task: TARGET_TASK: a reference.
 * @ops: what counts the events: &pmuscope_direct_ops (the counters of
 *	@hw, with MRS/MSR; also while not configured) or &pmuscope_perf_ops
 *	(perf events). Chosen at CONFIG, back to the direct engine's at
 *	release (changed under @lock too).
 * @pev: counted by perf events (&pmuscope_perf_ops):
 *	[slot * nr_events + i], slot a CPU or a PMU type. NULL: counted by
 *	the direct engine on the counters of @hw.
 * @lock: taken inside pmuscope_drv.lock by everything that changes the
 *	session (configure, enable, reset, release), and alone, inside
 *	cpus_read_lock() (or without it on READ's and SNAPSHOT's hot path,
 *	the reader on the session's only CPU), by its READ and SNAPSHOT: one
 *	session's READ waits on no other session. Protects @vbuf and
 *	@vbuf_n, READ's values, sized at CONFIG, and @only_cpu; a reader
 *	holding it alone sees @configured, @nr_events, @cpus, @hw and @ops
 *	as they are.
 * @vbuf: READ's (and SNAPSHOT's) values.
 * @vbuf_n: how many @vbuf holds.
 * @only_cpu: a direct session of one CPU, that CPU (READ's hot path);
 *	else -1.
 * @ring: the stream (PMUSCOPE_IOC_STREAM): its ring, made by the first
 *	STREAM and kept until the session is freed (read() uses it without a
 *	lock: published with smp_store_release()).
 * @stream_ms: what the last STREAM asked: time-based records every so many
 *	ms ...
 * @stream_index: ... samples of this event ...
 * @stream_period: ... every so many events.
 * @stream_flags: ... PMUSCOPE_STREAM_F_* (read by the interrupt: WRITE_ONCE())
 * @max_stack: ... frames of a call chain at most (1 .. PMUSCOPE_STACK_MAX).
 * @kernel_pcs: an event counts EL1/EL2: kernel PCs in records.
 * @psample: the perf backend's stream (pmuscope_perf.c), per slot as
 *	@pev: sampling counters and timers; NULL: none.
 * @spe: the SPE session (PMUSCOPE_IOC_SPE_START): set once under
 *	pmuscope_drv.lock, published with smp_store_release() for read()
 *	and poll(); kept until the session is freed.
 * @el0: EL0 access (PMUSCOPE_CFG_USER_READ): made at CONFIG (published
 *	last, with release: mmap() reads it without a lock), freed with the
 *	session; NULL: none.
 * @el0_mlock: its user page's locked-memory charge, as perf_mmap() charges
 *	a perf buffer's user page: taken at CONFIG, given back when the
 *	session is freed.
 *
 * Everything is protected by pmuscope_drv.lock, but for what @lock, @ring,
 * @spe and @el0 say.
 */
struct pmuscope_session {
	struct list_head node;
	u32 id;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	int sysfs_cpu;
	bool configured;
	bool enabled;
	u32 nr_events;
	struct pmuscope_sess_event ev[PMUSCOPE_MAX_EVENTS];
	cpumask_var_t cpus;
	u8 *hw;
	u64 *hw_mask;
	u32 target;
	u32 cfg_flags;
	struct task_struct *task;
	const struct pmuscope_backend_ops *ops;
	struct pmuscope_pevent *pev;
	struct mutex lock;		/* READ's view, @vbuf */
	struct pmuscope_value *vbuf;
	u32 vbuf_n;
	int only_cpu;
	struct pmuscope_ring *ring;
	u32 stream_ms;
	u32 stream_index;
	u64 stream_period;
	u32 stream_flags;
	u32 max_stack;
	bool kernel_pcs;
	struct pmuscope_psample *psample;
	struct pmuscope_spe_sess *spe;
	struct pmuscope_el0 *el0;
	struct pmuscope_mlock el0_mlock;
};

/* The counters of @sess on @cpu: [i] the counter of event i. */
static inline u8 *pmuscope_sess_hw(struct pmuscope_session *sess, unsigned int cpu)
{
	return &sess->hw[cpu * PMUSCOPE_MAX_EVENTS];
}

/* A SNAPSHOT of the CPUs of a session (pmuscope_backend_ops.snapshot). */
struct pmuscope_snap_args {
	struct pmuscope_session *sess;
	u32 flags;
	u64 deadline;			/* system counter; 0: capture at once */
	u64 now;			/* ktime_get_ns() of the request */
	struct pmuscope_snap_cpu *cpus;	/* one per CPU of the session, in order */
};

/**
 * struct pmuscope_backend_ops - the backend-specific half of a session's
 * operations: the direct engine's (drivers/pmuscope_direct.c) or perf's
 * (drivers/pmuscope_perf.c), chosen at CONFIG (pmuscope_session.ops).
 * The session code (drivers/pmuscope_session.c) checks the arguments and
 * the session's state, takes the locks and calls these.
 * @name: "direct" or "perf".
 * @hw_counters: the events count on the counters of pmuscope_session.hw[],
 *	which the driver reads with MRS: READ and SNAPSHOT on the session's
 *	only CPU, hardware snapshots, STREAM and SWINC are possible.
 * @configure: take the counters of the configuration the session already
 *	describes (ev[], nr_events, and cpus and hw[], or target, task and
 *	cfg_flags). On error nothing is left. Caller holds cpus_read_lock(),
 *	pmuscope_drv.lock and the session's lock, as for @release,
 *	@enable, @disable and @reset.
 * @release: give back every counter of a configured session.
 * @enable: start every counter of the session.
 * @disable: stop them.
 * @reset: zero the counts and times of every counter.
 * @read: READ's values, into @vals (@nr of them: nr_events per CPU in
 *	ascending CPU order, or per task). Caller holds cpus_read_lock()
 *	and the session's lock.
 * @snapshot: every value at one instant into the session's value buffer,
 *	and each CPU's capture into @a->cpus. Caller holds cpus_read_lock()
 *	and the session's lock.
 * @stream_check: -EOPNOTSUPP if the backend cannot stream what @st asks
 *	of the session, before anything (the ring) is made; NULL: it can.
 *	Locks as @stream.
 * @stream: program the session's CPUs (or task) for what its last STREAM
 *	asked (stream_ms, stream_index, stream_period); NULL: no streams.
 *	On error nothing streams. Caller holds cpus_read_lock() and
 *	pmuscope_drv.lock.
 * @swinc: increment the SW_INCR events of @event_mask on @cpu @count
 *	times (-EINVAL: an event that is not SW_INCR at the kernel's EL,
 *	-ENXIO: @cpu offline); NULL: no SWINC (-EOPNOTSUPP). Locks as
 *	@stream.
 */
struct pmuscope_backend_ops {
	const char *name;
	bool hw_counters;
	int (*configure)(struct pmuscope_session *sess);
	void (*release)(struct pmuscope_session *sess);
	void (*enable)(struct pmuscope_session *sess);
	void (*disable)(struct pmuscope_session *sess);
	void (*reset)(struct pmuscope_session *sess);
	void (*read)(struct pmuscope_session *sess, struct pmuscope_value *vals, u32 nr);
	int (*snapshot)(struct pmuscope_session *sess, struct pmuscope_snap_args *a,
			u32 lead_us);
	int (*stream_check)(const struct pmuscope_session *sess,
			    const struct pmuscope_stream *st);
	int (*stream)(struct pmuscope_session *sess);
	int (*swinc)(struct pmuscope_session *sess, u64 event_mask, unsigned int cpu,
		     u32 count);
};

extern const struct pmuscope_backend_ops pmuscope_direct_ops;
extern const struct pmuscope_backend_ops pmuscope_perf_ops;

struct pmuscope_session *pmuscope_session_alloc(int sysfs_cpu);
void pmuscope_session_free(struct pmuscope_session *sess);
void pmuscope_session_link_locked(struct pmuscope_session *sess);
void pmuscope_session_unlink_locked(struct pmuscope_session *sess);
void pmuscope_session_destroy(struct pmuscope_session *sess);
int pmuscope_session_configure_locked(struct pmuscope_session *sess,
				      const struct pmuscope_event *evs, u32 nr,
				      const struct cpumask *cpus);
int pmuscope_session_configure_task(void **slot, struct pmuscope_session **fresh,
				    const struct pmuscope_event *evs, u32 nr,
				    struct task_struct *task, u32 cfg_flags);
int pmuscope_session_enable_locked(struct pmuscope_session *sess, bool enable);
int pmuscope_session_reset_locked(struct pmuscope_session *sess);
int pmuscope_event_check(const struct pmuscope_cpu_caps *caps,
			 const struct pmuscope_event *ev);
u32 pmuscope_counters_of(const struct pmuscope_cpu_caps *caps);

#define PMUSCOPE_CPUS_SIZE_MAX		4096	/* bytes of a CPU bitmap */
#define PMUSCOPE_SWINC_MAX		4096	/* increments per SWINC (IRQs off) */
#define PMUSCOPE_ELEM_SIZE_MAX		256	/* event_size, value_size */
#define PMUSCOPE_AMU_RECORD_SIZE_MAX	4096	/* struct pmuscope_amu_read.record_size */
#define PMUSCOPE_CFG_ALL		(PMUSCOPE_CFG_INHERIT | PMUSCOPE_CFG_ENABLE_ON_EXEC | \
					 PMUSCOPE_CFG_USER_READ | PMUSCOPE_CFG_USER_SWINC)

int pmuscope_check_size(u32 usize, size_t min);
int pmuscope_parse_01(const char *buf, size_t count, bool *val);
int pmuscope_check_handshake(const struct pmuscope_handshake *hs);
int pmuscope_check_config(const struct pmuscope_config *cfg);
int pmuscope_check_read(const struct pmuscope_read *rd);
int pmuscope_check_swinc(const struct pmuscope_swinc *sw);
int pmuscope_check_snapshot(const struct pmuscope_snapshot *sn);
int pmuscope_check_stream(const struct pmuscope_stream *st);
int pmuscope_session_stream(struct pmuscope_session *sess, const struct pmuscope_stream *st);

/* Streams (drivers/pmuscope_stream.c). */
struct pt_regs;
void pmuscope_stream_emit(struct pmuscope_pmu *pmu, struct pmuscope_session *sess,
			  u8 *hw, struct pt_regs *regs, u16 type, u32 flags, u64 time);
void pmuscope_stream_where(const struct pmuscope_session *sess, struct pt_regs *regs,
			   struct task_struct *task, struct pmuscope_record *rec);
void pmuscope_stream_put_sample(struct pmuscope_session *sess, struct pmuscope_record *rec,
				struct pt_regs *regs);
void pmuscope_stream_samples(struct pmuscope_pmu *pmu, unsigned long sampled);

/* Call chains of SAMPLE records (drivers/pmuscope_callchain.c). */
struct pmuscope_frame_record {
	u64 fp;
	u64 lr;
};

/**
 * struct pmuscope_chain_mem - where a walk reads frame records
 * @read: the record at @fp into @fr: 0, or -EFAULT (unreadable); never
 *	faults, never sleeps. The user's: copy_from_user_nofault(); the
 *	kernel's: copy_from_kernel_nofault() within [@low, @high); KUnit's:
 *	a memory map of its own (@priv).
 * @low: the kernel's: the stack the walk started on ...
 * @high: ... and its end.
 * @priv: the reader's own.
 * @user: user memory: PAC bits stripped as a user address's, an
 *	unreadable or bad frame is PMUSCOPE_CHAIN_F_USER_END.
 */
struct pmuscope_chain_mem {
	int (*read)(const struct pmuscope_chain_mem *mem, unsigned long fp,
		    struct pmuscope_frame_record *fr);
	unsigned long low, high;
	void *priv;
	bool user;
};

/**
 * struct pmuscope_chain_src - what a sample's call chain is made of
 * @regs: where the sample was taken (NULL: nowhere, no chain).
 * @uregs: the user registers of the task it belongs to (@regs itself at
 *	EL0; its task_pt_regs() in the kernel); NULL: not a user task.
 * @kernel_pcs: the session may see kernel addresses.
 * @kmem: kernel frame records.
 * @umem: user frame records.
 */
struct pmuscope_chain_src {
	struct pt_regs *regs;
	struct pt_regs *uregs;
	bool kernel_pcs;
	const struct pmuscope_chain_mem *kmem;
	const struct pmuscope_chain_mem *umem;
};

u32 pmuscope_chain_walk(const struct pmuscope_chain_mem *mem, unsigned long fp, u64 *ips,
			u32 room, u32 *flags);
u32 pmuscope_chain_fill(const struct pmuscope_chain_src *src, u32 max_stack,
			struct pmuscope_rec_chain *ch);
int pmuscope_chain_read_kernel(const struct pmuscope_chain_mem *mem, unsigned long fp,
			       struct pmuscope_frame_record *fr);
unsigned long pmuscope_chain_strip_user(unsigned long lr);
u32 pmuscope_chain_record(struct pt_regs *regs, bool kernel_pcs, u32 max_stack,
			  struct pmuscope_rec_chain *ch);
enum hrtimer_restart pmuscope_stream_timer(struct hrtimer *timer);
void pmuscope_stream_set_timer(struct pmuscope_pmu *pmu, struct pmuscope_session *sess,
			       u64 ns);
int pmuscope_check_cpu(bool possible, bool online,
		       const struct pmuscope_cpu_caps *caps);

/* The system's perf policy (drivers/pmuscope_policy.c). */
struct pmuscope_policy {
	int paranoid;		/* kernel.perf_event_paranoid; INT_MAX: unreadable */
	int paranoid_err;	/* why it could not be read (-errno), or 0 */
	int user_access;	/* kernel.perf_user_access; 0: absent or unreadable */
	bool priv;		/* perfmon_capable() */
	bool sys_admin;		/* CAP_SYS_ADMIN: what Debian's level 3 asks */
	bool paranoid_any;	/* level 3: no counting without CAP_SYS_ADMIN */
	bool member;		/* of the group= parameter */
	bool kernel;		/* may see the kernel (perf_allow_kernel()) */
};

/* What a session asks of the policy. */
#define PMUSCOPE_POL_TASK	BIT(0)	/* count the caller's own task */
#define PMUSCOPE_POL_CPU	BIT(1)	/* count whole CPUs */
#define PMUSCOPE_POL_KERNEL	BIT(2)	/* EL1/EL2 counts, kernel PCs, SPE at EL1, PA/CX/PCT */
#define PMUSCOPE_POL_EL0	BIT(3)	/* read counters at EL0 */
#define PMUSCOPE_POL_CHAIN_CPU	BIT(4)	/* user stacks of whole CPUs (call chains) */
#define PMUSCOPE_POL_AMU	BIT(5)	/* read the Activity Monitors (whole CPUs, all ELs) */

int pmuscope_policy_decide(const struct pmuscope_policy *p, unsigned int what);
bool pmuscope_policy_kernel_allowed(void);
void pmuscope_policy_get(kgid_t group, struct pmuscope_policy *p);
int pmuscope_policy_check(unsigned int what);
int pmuscope_policy_apply(const struct pmuscope_policy *p, unsigned int what);
bool pmuscope_policy_task_ours(struct task_struct *task);
int pmuscope_policy_sysctl(const char *name, int *val);

/*
 * The deadline waits of all-CPU SNAPSHOTs (each CPU of the session spends
 * up to the lead with IRQs off) that callers without CAP_PERFMON may ask
 * for, all of them together: PMUSCOPE_SNAP_UNPRIV_US_PER_S of each
 * second, and as much ahead (drivers/pmuscope_policy.c).
 */
#define PMUSCOPE_SNAP_UNPRIV_US_PER_S	10000

struct pmuscope_snap_budget {
	spinlock_t lock;	/* protects @tat_ns */
	u64 tat_ns;		/* when the budget is whole again (GCRA) */
};

extern struct pmuscope_snap_budget pmuscope_snap_budget;

bool pmuscope_snap_budget_take(u64 *tat_ns, u64 now_ns, u32 wait_us);
int pmuscope_policy_snap_lead(u32 lead_us);
bool pmuscope_policy_snap_sync(struct pmuscope_snap_budget *b, u32 lead_us, u64 now_ns);
unsigned int pmuscope_policy_events(const struct pmuscope_event *evs, u32 nr);
int pmuscope_check_el0_fit(u32 nr_counters, const struct pmuscope_event *evs, u32 nr);
int pmuscope_place_events(const struct pmuscope_cpu_caps *caps, u32 free,
			  const struct pmuscope_sess_event *evs, u32 nr, u8 *idx);
int pmuscope_parse_event(char *tok, unsigned int kernel_el, u64 midr,
			 struct pmuscope_event *ev);
int pmuscope_parse_selection(char *str, unsigned int kernel_el, u64 midr,
			     struct pmuscope_event *evs, u32 *nr);
int pmuscope_format_event(u32 event, u32 flags, unsigned int kernel_el,
			  char *buf, size_t len);
int pmuscope_format_selection(const struct pmuscope_sess_event *evs, u32 nr,
			      unsigned int kernel_el, char *buf, size_t len);
int pmuscope_session_configure(void **slot,
			       struct pmuscope_session **fresh,
			       const struct pmuscope_event *evs, u32 nr,
			       const struct cpumask *cpus);
int pmuscope_session_enable(struct pmuscope_session *sess, bool enable);
int pmuscope_session_reset(struct pmuscope_session *sess);
int pmuscope_session_read_begin(struct pmuscope_session *sess, u32 room,
				const struct pmuscope_value **vals, u32 *nr);

/* After pmuscope_session_read_begin() (or _snapshot()), whatever it returned. */
static inline void pmuscope_session_read_end(struct pmuscope_session *sess)
{
	mutex_unlock(&sess->lock);
}

/* A SNAPSHOT's results: in the session's buffers, valid until read_end. */
struct pmuscope_snap_result {
	const struct pmuscope_value *vals;
	u32 nr_vals;
	struct pmuscope_snap_cpu *cpus;	/* @one, or @alloc */
	u32 nr_cpus;
	u64 skew;
	struct pmuscope_snap_cpu one;	/* a session of one CPU */
	struct pmuscope_snap_cpu *alloc; /* kmalloc'ed: the caller frees it */
};

int pmuscope_session_snapshot(struct pmuscope_session *sess, u32 flags,
			      u32 lead_us, u32 room_vals, u32 room_cpus,
			      struct pmuscope_snap_result *res);
int pmuscope_session_snapshot_cpuslocked(struct pmuscope_session *sess, u32 flags,
					 u32 lead_us, u32 room_vals, u32 room_cpus,
					 struct pmuscope_snap_result *res);
int pmuscope_session_swinc(struct pmuscope_session *sess, u64 event_mask,
			   unsigned int cpu, u32 count);
void pmuscope_session_describe(const struct pmuscope_session *sess,
			       char *buf, size_t len);

/* Sessions counted by perf events (drivers/pmuscope_perf.c). */
int pmuscope_perf_probe(void);
void pmuscope_perf_exit(void);
void pmuscope_psess_read_one(struct pmuscope_session *sess, unsigned int cpu,
			     unsigned int i, struct pmuscope_value *v);
void pmuscope_perf_cpu_online(unsigned int cpu);
void pmuscope_perf_cpu_offline(unsigned int cpu);
struct perf_event *pmuscope_perf_sched_hold(void);
void pmuscope_perf_sched_release(struct perf_event *hold);

/* The direct engine as a perf PMU (drivers/pmuscope_ppmu.c). */
#define PMUSCOPE_PPMU_SENTINEL		0x706d7573656c30ULL	/* attr.config1: "pmusel0" */
extern struct pmuscope_session pmuscope_ppmu_owner;
int pmuscope_ppmu_register(void);
void pmuscope_ppmu_unregister(void);
int pmuscope_ppmu_type(void);
void pmuscope_perf_use_ppmu(int type);
bool pmuscope_perf_stream_task(void);
bool pmuscope_perf_sampling_ours(const struct perf_event *pe);
void pmuscope_perf_throttled(struct perf_event *pe);
unsigned long pmuscope_ppmu_sampled(unsigned long sampled, unsigned long *throttled);
void pmuscope_ppmu_samples(unsigned long samples, unsigned long throttled,
			   struct pt_regs *regs);

static inline bool pmuscope_backend_perf(void)
{
	return pmuscope_engine.backend == PMUSCOPE_BACKEND_PERF;
}

/* ------------------------------------------------------------ driver state */

/*
 * What a CPU's AMU has (pmuscope_amu_probe(), at CPU online). Copied into
 * struct pmuscope_cpu under the driver's lock; read under it.
 */
struct pmuscope_amu_info {
	bool usable;		/* implemented, allowed, and read by the driver */
	bool const_broken;	/* the kernel's broken-CNT_CYCLES workaround applies */
	bool aux_zero;		/* AMCR_EL0.CG1RZ: group 1 reads zero here */
	u8 version;		/* ID_AA64PFR0_EL1.AMU */
	u8 nr0;			/* group-0 counters (CG0NC) */
	u8 nr1;			/* AMCGCR_EL0.CG1NC */
	u16 impl1;		/* bit n: group-1 counter n implemented */
	u16 type0[PMUSCOPE_AMU_GROUP_MAX];	/* AMEVTYPER0<n>_EL0.evtCount */
	u16 type1[PMUSCOPE_AMU_GROUP_MAX];	/* AMEVTYPER1<n>_EL0.evtCount */
};

/*
 * The AMU's loss tracking of one CPU: touched only on that CPU with IRQs
 * off (the AMU_READ cross call, cpu_pm, the online probe), no lock.
 */
struct pmuscope_amu {
	bool sampled;		/* last0/last1 hold a sample */
	bool lost;		/* counts lost since the last record */
	bool pm_saved;		/* pm0/pm1 hold the sample of a cpu_pm enter */
	u64 last0[PMUSCOPE_AMU_GROUP_MAX], last1[PMUSCOPE_AMU_GROUP_MAX];
	u64 pm0[PMUSCOPE_AMU_GROUP_MAX], pm1[PMUSCOPE_AMU_GROUP_MAX];
};

bool pmuscope_amu_const_erratum(u64 midr);
void pmuscope_amu_probe(struct pmuscope_amu *amu, struct pmuscope_amu_info *info,
			const struct pmuscope_cpu_caps *caps);
void pmuscope_amu_pm_enter(struct pmuscope_amu *amu, const struct pmuscope_amu_info *info);
void pmuscope_amu_pm_exit(struct pmuscope_amu *amu, const struct pmuscope_amu_info *info);
void pmuscope_amu_read_local(struct pmuscope_amu *amu, const struct pmuscope_amu_info *info,
			     struct pmuscope_amu_cpu *rec);
u64 pmuscope_amu_read_counter(unsigned int g, unsigned int n);
int pmuscope_check_amu_read(const struct pmuscope_amu_read *ar);
int pmuscope_check_spe_status(const struct pmuscope_spe_status *st);
int pmuscope_check_spe_config(const struct pmuscope_spe_config *c);

/* ---------------------------------------------------------------- SPE */

/* The register values one CPU's profiling is programmed with. */
struct pmuscope_spe_regs {
	u64 pmscr;
	u64 pmsirr;
	u64 pmsfcr;
	u64 pmsevfr;
	u64 pmsnevfr;
	u64 pmslatfr;
	u64 fm;			/* PMBLIMITR_EL1.FM: fill, or discard */
};

/* What the PMBIRQ handler (or a drain) makes of PMBSR_EL1. */
enum pmuscope_spe_act {
	PMUSCOPE_SPE_ACT_NONE,		/* S = 0: no management event (spurious IRQ) */
	PMUSCOPE_SPE_ACT_FULL,		/* buffer full: hand over, restart */
	PMUSCOPE_SPE_ACT_DISCARD,	/* DL: discard the data, restart */
	PMUSCOPE_SPE_ACT_FAULT,		/* a fault: stop this CPU, report */
};

/**
 * struct pmuscope_spe_sess - an SPE session: its CPUs, what it asked, and
 *	the ring read() drains
 * @sess: the session this is of.
 * @cpus: the CPUs it profiles (set at START).
 * @cfg: what START asked.
 * @bufs: [nr_cpu_ids]: each CPU's two profiling buffers, one after the
 *	other (allocated at START, freed with the session).
 * @buf_size: bytes of one of them (hw_kib).
 * @mlock: the ring's and buffers' charge to the starter's locked memory
 *	(pmuscope_mlock_charge(), before they are allocated).
 * @running: set at START, cleared at STOP (pmuscope_drv.lock); read by
 *	read() and poll() without it.
 * @freq: system counter, Hz.
 * @lock: the ring of chunks. A CPU's copier (process context, never the
 *	PMBIRQ; under its CPU's pmuscope_spe_pcpu.copy_lock) reserves a
 *	chunk at @head under @lock, which it holds for O(1) work: the header,
 *	with PMUSCOPE_SPE_C_BUSY in its flags, and @head. It copies the data
 *	without the lock, in parallel with other CPUs' copiers, then commits
 *	the chunk by storing its flags without BUSY (release). Raw, taken
 *	with IRQs off; protects @head and @flush_at.
 * @data: the ring's memory.
 * @size: its bytes, a power of 2.
 * @head: bytes reserved, ever: only grows (published with release, read
 *	with acquire).
 * @tail: bytes read, ever: moved by the one reader (@read_lock), which
 *	copies the committed chunks from it and stops at the first BUSY one.
 * @wakeup: bytes that make poll() readable.
 * @flush_at: the end of the last FINAL/STOPPED chunk reserved (under
 *	@lock): readable whatever @wakeup while @tail is below it. A
 *	position, not a flag the reader clears, so that no flush is lost to
 *	a copier racing the reader.
 * @wait: the reader waits here.
 * @wakes: times the copiers woke the reader.
 * @read_lock: one reader at a time (a mutex): protects @tail's moves.
 */
struct pmuscope_spe_sess {
	struct pmuscope_session *sess;
	cpumask_var_t cpus;
	struct pmuscope_spe_config cfg;
	void **bufs;
	u32 buf_size;
	struct pmuscope_mlock mlock;
	bool running;
	u64 freq;
	raw_spinlock_t lock;		/* reservations: @head */
	u8 *data;
	u32 size;
	u64 head;
	u64 tail;
	u32 wakeup;
	u64 flush_at;
	wait_queue_head_t wait;
	atomic_t wakes;
	struct mutex read_lock;		/* one reader at a time */
};

/* A chunk's flag while its copier fills it (never seen by read()'s caller). */
#define PMUSCOPE_SPE_C_BUSY	BIT(31)

/* A profiling buffer handed over by the PMBIRQ or a drain, to be copied. */
struct pmuscope_spe_fill {
	u32 len;			/* bytes of whole records */
	u32 flags;			/* PMUSCOPE_SPE_C_* of its chunk */
	u64 lost;			/* bytes lost before it (DL) */
	u64 time;			/* system counter at the hand-over */
	bool idle;			/* drained for a power-down */
};

/**
 * struct pmuscope_spe_pcpu - one CPU's SPE
 * @usable: present, allowed, not owned by a higher EL.
 * @pmsver: ID_AA64DFR0_EL1.PMSVer.
 * @pmsidr: PMSIDR_EL1.
 * @pmbidr: PMBIDR_EL1.
 * @cpu: the CPU.
 * @lock: protects everything below but the copier's own state (a raw
 *	spinlock taken with IRQs off: the PMBIRQ handler, cpu_pm and the
 *	cross calls take it on the CPU; SPE_STATUS and the copier anywhere).
 *	The unit's registers are only touched on the CPU, with @lock held.
 * @owner: the session profiling this CPU; changes under pmuscope_drv.lock
 *	and @lock both.
 * @regs: its registers for this CPU.
 * @buf: the profiling buffers (the owner's).
 * @pmblimitr: PMBLIMITR_EL1 of each, fill mode or discard.
 * @buf_size: bytes of each, a multiple of PAGE_SIZE.
 * @cur: the buffer the SPU writes into.
 * @busy: BIT(i): buf[i] holds @pend[i], not copied yet.
 * @oldest: with both busy: the one handed over first.
 * @pend: what each buffer handed over holds.
 * @online: between the cpuhp online and offline callbacks.
 * @running: programmed and enabled on the CPU.
 * @faulted: stopped by a fault until the session stops.
 * @off: off while the session runs (idle, offline, waiting).
 * @waiting: off: no free buffer; the copier restarts it.
 * @in_idle: draining for a cpu_pm power-down: no wake-up.
 * @off_since: system counter when it went off.
 * @off_ticks: system counter ticks it was off (SPE_STATUS: ns).
 * @lost_pending: bytes lost (DL) since the last hand-over.
 * @flags_pending: PMUSCOPE_SPE_C_* for the next hand-over.
 * @st: accounting (SPE_STATUS).
 * @work: the copier's worker, queued on the CPU.
 * @copy_lock: serializes the copiers (worker, STOP, offline): a mutex,
 *	taken outside @lock (which a copier takes only to pick a buffer and
 *	to give it back) and outside the session's ring lock. Protects the
 *	copier's own state, @carry_lost and @carry_flags.
 * @carry_lost: bytes the full ring took since the last chunk.
 * @carry_flags: flags those chunks had, for the next one.
 *
 * @usable, @pmsidr, @pmbidr and @pmsver are written at CPU online under
 * pmuscope_drv.lock.
 *
 * Two profiling buffers: the SPU writes into @cur while the other, if
 * @busy, waits for the copier (@work, queued on the CPU by the PMBIRQ,
 * or run by STOP and offline) to put it in the session's ring. The PMBIRQ
 * does O(1) work per fill: it hands @cur over and points the SPU at the
 * other buffer, or, if that is still busy, leaves profiling off
 * (@waiting) until the copier frees one (stopped time, as any other).
 */
struct pmuscope_spe_pcpu {
	bool usable;
	u8 pmsver;
	u64 pmsidr;
	u64 pmbidr;
	unsigned int cpu;
	raw_spinlock_t lock;		/* all but the copier's */
	struct pmuscope_spe_sess *owner;
	struct pmuscope_spe_regs regs;
	void *buf[2];
	u64 pmblimitr[2];
	u32 buf_size;
	u8 cur;
	u8 busy;
	u8 oldest;
	struct pmuscope_spe_fill pend[2];
	bool online;
	bool running;
	bool faulted;
	bool off;
	bool waiting;
	bool in_idle;
	u64 off_since;
	u64 off_ticks;
	u64 lost_pending;
	u32 flags_pending;
	struct pmuscope_spe_cpu st;
	struct work_struct work;
	struct mutex copy_lock;		/* serializes the copiers */
	u64 carry_lost;
	u32 carry_flags;
};

u64 pmuscope_spe_min_interval(u64 pmsidr);
u64 pmuscope_spe_ns(const struct pmuscope_spe_sess *ss, u64 ticks);
u64 pmuscope_spe_evfr_mask(u8 pmsver);
int pmuscope_spe_config_regs(const struct pmuscope_spe_pcpu *sc,
			     const struct pmuscope_spe_config *c,
			     struct pmuscope_spe_regs *r);
int pmuscope_spe_buffer_regs(const struct pmuscope_spe_pcpu *sc, u64 base, u32 size,
			     u64 *pmbptr, u64 *pmblimitr);
enum pmuscope_spe_act pmuscope_spe_decode(u64 pmbsr);
void pmuscope_spe_probe(struct pmuscope_spe_pcpu *sc, const struct pmuscope_cpu_caps *caps);
irqreturn_t pmuscope_spe_irq_local(struct pmuscope_spe_pcpu *sc, unsigned int cpu);
void pmuscope_spe_pm(struct pmuscope_spe_pcpu *sc, unsigned int cpu, bool enter);
int pmuscope_spe_charge(struct pmuscope_spe_sess *ss);
void pmuscope_spe_reset_local(struct pmuscope_spe_pcpu *sc);
void pmuscope_spe_reboot_local(struct pmuscope_spe_pcpu *sc, unsigned int cpu);
void pmuscope_spe_cpu_online(unsigned int cpu);
void pmuscope_spe_cpu_offline(unsigned int cpu);
int pmuscope_spe_init(void);
void pmuscope_spe_exit(void);
bool pmuscope_spe_available(void);
const char *pmuscope_spe_irq_state(void);
int pmuscope_session_spe_start(void **slot, struct pmuscope_session **fresh,
			       const struct pmuscope_spe_config *c,
			       const struct cpumask *cpus);
int pmuscope_session_spe_stop(struct pmuscope_session *sess);
int pmuscope_spe_perm(const struct pmuscope_spe_config *c);
int pmuscope_session_spe_status(struct pmuscope_session *sess,
				struct pmuscope_spe_cpu *recs, u32 room, u32 *nr);
void pmuscope_spe_release_locked(struct pmuscope_session *sess);
void pmuscope_spe_free(struct pmuscope_spe_sess *ss);
struct pmuscope_spe_sess *pmuscope_spe_alloc(const struct pmuscope_spe_config *c,
					     const struct cpumask *cpus);
void pmuscope_spe_start_local(struct pmuscope_spe_pcpu *sc);
void pmuscope_spe_pcpu_init(struct pmuscope_spe_pcpu *sc, unsigned int cpu);
int pmuscope_spe_attach(struct pmuscope_spe_pcpu *sc, struct pmuscope_spe_sess *ss,
			const struct pmuscope_spe_regs *regs);
void pmuscope_spe_copy(struct pmuscope_spe_pcpu *sc);
void pmuscope_spe_resume(struct pmuscope_spe_pcpu *sc);
void pmuscope_spe_stop_cpu(struct pmuscope_spe_pcpu *sc, unsigned int cpu);
void pmuscope_spe_offline_local(struct pmuscope_spe_pcpu *sc, unsigned int cpu);
void pmuscope_spe_online_local(struct pmuscope_spe_pcpu *sc);
void pmuscope_spe_stop_local(struct pmuscope_spe_pcpu *sc, unsigned int cpu, u32 flags);
struct pmuscope_session *pmuscope_session_publish_locked(void **slot,
							 struct pmuscope_session **fresh);
ssize_t pmuscope_spe_read(struct pmuscope_spe_sess *ss, char __user *ubuf, size_t len,
			  bool nonblock);
__poll_t pmuscope_spe_poll(struct pmuscope_spe_sess *ss, struct file *file,
			   struct poll_table_struct *pt);

/**
 * struct pmuscope_cpu - one per possible CPU; its kobject is
 *	/sys/kernel/pmuscope/cpuN
 * @kobj: the sysfs directory.
 * @cpu: the CPU.
 * @probed: its capabilities were read (pmuscope_drv.lock; written on @cpu
 *	only) ...
 * @caps: ... and what they are (likewise).
 * @sysfs_sess: the sysfs session of this CPU, created on first use
 *	(pmuscope_drv.lock).
 * @snap_text: snapshot_last: the last snapshot_take, as text
 *	(pmuscope_drv.lock).
 * @amu_info: the AMU as probed (pmuscope_drv.lock).
 * @amu: the AMU's loss tracking (on @cpu, IRQs off, no lock).
 * @spe: its SPE (struct pmuscope_spe_pcpu says what protects what).
 * @pmu: its PMU (struct pmuscope_pmu says what protects what).
 */
struct pmuscope_cpu {
	struct kobject kobj;
	unsigned int cpu;
	bool probed;
	struct pmuscope_cpu_caps caps;
	struct pmuscope_session *sysfs_sess;
	char *snap_text;
	struct pmuscope_amu_info amu_info;
	struct pmuscope_amu amu;
	struct pmuscope_spe_pcpu spe;
	struct pmuscope_pmu pmu;
};

/**
 * struct pmuscope_driver - the driver's state (pmuscope_drv)
 * @lock: protects the probed/caps fields of every struct pmuscope_cpu, the
 *	session list, every session and the assignment of counters, and
 *	@shutdown. A mutex, taken inside cpus_read_lock() and inside the CPU
 *	hotplug callbacks.
 * @allowed_units: BIT(enum pmuscope_unit), fixed at load.
 * @root: /sys/kernel/pmuscope, once published.
 * @published: the files are in sysfs: changed under cpus_read_lock(),
 *	read under the hotplug lock.
 * @cpus: [nr_cpu_ids], NULL if not possible.
 * @hp_state: the dynamic cpuhp state.
 * @sessions: every session (@lock).
 * @next_session_id: the number of the next session (@lock).
 * @perf_group: may count system-wide, besides CAP_PERFMON.
 * @shutdown: rebooting: nothing starts again (@lock).
 */
struct pmuscope_driver {
	struct mutex lock;		/* sessions, counters, CPUs caps */
	unsigned long allowed_units;
	struct kobject *root;
	bool published;
	struct pmuscope_cpu **cpus;
	int hp_state;
	struct list_head sessions;
	u32 next_session_id;
	kgid_t perf_group;
	bool shutdown;
};

extern struct pmuscope_driver pmuscope_drv;

static inline struct pmuscope_pmu *pmuscope_pmu_of(unsigned int cpu)
{
	return &pmuscope_drv.cpus[cpu]->pmu;
}

int pmuscope_sysfs_alloc(struct pmuscope_driver *drv);
int pmuscope_sysfs_publish(struct pmuscope_driver *drv);
void pmuscope_sysfs_unpublish(struct pmuscope_driver *drv);
void pmuscope_sysfs_free(struct pmuscope_driver *drv);
void pmuscope_sysfs_cpu_changed(struct pmuscope_cpu *pcpu);

int pmuscope_chardev_init(void);
void pmuscope_chardev_exit(void);

#endif /* __PMUSCOPE_H */
