// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: PMU snapshots, every counter of a session at one instant.
 *
 * On one CPU a snapshot is taken in one of three ways:
 *
 *  - hardware (FEAT_PMUv3_SS, Arm ARM D13.9): PMSSCR_EL1.SS = 1 copies
 *    every counter into its snapshot register (PMEVCNTSVR<n>_EL1,
 *    PMCCNTSVR_EL1) at one instant. Capture must be enabled and allowed by
 *    MDCR_EL3.PMSSE, MDCR_EL2.PMSSE and PMECR_EL1.SSE, the first of them
 *    that is not 0b01 deciding (Table D13-10). Nothing an EL1 kernel can
 *    read proves that firmware opened the snapshot registers
 *    (MDCR_EL3.EnPMSS: a trapped access is taken to EL3), so the path is
 *    used only with snapshot=1. Linux 6.12 booted at EL2 leaves
 *    MDCR_EL2.PMSSE = 0b00 and the fine-grained traps of these registers
 *    set (el2_setup.h writes HDFGRTR2_EL2 without nPMSSCR_EL1/nPMSSDATA):
 *    a kernel at EL1 under Linux's own EL2 code never uses it. A VHE host
 *    (kernel at EL2) sets MDCR_EL2.PMSSE = 0b11 itself before each capture,
 *    but only while MDCR_EL2 is the host's: KVM writes its guest's value
 *    at vCPU load and the host's back at the put, and its vCPU thread runs
 *    in the host in between (see pmuscope_ss_enable()).
 *    A capture is believed only if it completed (SS read back 0 within
 *    PMUSCOPE_SS_POLLS reads), was not refused (NC = 0) and is fresh: a
 *    witness counting cycles at the kernel's EL across the request (the
 *    cycle counter, or a counter not in use run for the capture) satisfies
 *    before <= its copy <= after, and its copy is not the one the previous
 *    capture left (the cycle counter restarts from 0 with a new session,
 *    so an old copy can fall in a new window). While capture is
 *    disabled a write of SS is ignored and NC keeps an old 0: only the
 *    freshness check tells. What it cannot tell: a capture ignored behind
 *    an external one the driver never saw (a debugger's) whose cycle
 *    copy happens to fall in the window.
 *    Each snapshot register becomes the engine's 64-bit count by folding
 *    it against the counter read just after: count at capture = count now
 *    - ((raw now - raw captured) mod 2^width). Overflow flags read now are
 *    not those of the capture instant; this needs none.
 *  - software: the session's counters on this CPU stop together with one
 *    PMCNTENCLR_EL0 write, are read, and start again with one
 *    PMCNTENSET_EL0 write. What happens in between is not counted by any
 *    of them; the length of that gap is reported (system-counter ticks
 *    from before the stop to after the start).
 *  - idle: nothing of the session counts here (disabled, or the CPU is
 *    offline): the counts at rest are consistent as they are.
 *
 * All CPUs at one instant: the request sets a deadline on the system
 * counter (lead_us ahead), interrupts every CPU of the session, and each
 * waits with IRQs off until the deadline before it captures. Each reports
 * the system-counter time of its capture; the spread is the skew.
 *
 * Sessions counted by perf events (the perf backend, multiplexing) read
 * their counters one after another: method PERF, with the spread of the
 * reads reported.
 */

#include <linux/bitfield.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "pmuscope.h"
#include "pmuscope_fold.h"
#include "pmuscope_hw.h"

static const char *const pmuscope_ss_hw_names[PMUSCOPE_NR_SS_HW] = {
	[PMUSCOPE_SS_HW_ABSENT] = "absent",
	[PMUSCOPE_SS_HW_OFF] = "off",
	[PMUSCOPE_SS_HW_UNDER_EL2] = "under-el2",
	[PMUSCOPE_SS_HW_UNTRIED] = "untried",
	[PMUSCOPE_SS_HW_READY] = "ready",
	[PMUSCOPE_SS_HW_KVM] = "kvm-vcpu",
	[PMUSCOPE_SS_HW_PROHIBITED] = "prohibited",
	[PMUSCOPE_SS_HW_TIMEOUT] = "timeout",
	[PMUSCOPE_SS_HW_STALE] = "stale",
};

const char *pmuscope_ss_hw_name(enum pmuscope_ss_hw st)
{
	return st < PMUSCOPE_NR_SS_HW ? pmuscope_ss_hw_names[st] : "?";
}

/*
 * At CPU online (and setup): what the probe and the parameter allow. The
 * perf backend owns no counter: only the direct engine captures.
 */
void pmuscope_ss_setup(struct pmuscope_pmu *pmu, const struct pmuscope_cpu_caps *caps)
{
	enum pmuscope_ss_hw st;

	switch (caps->state[PMUSCOPE_UNIT_SNAPSHOT]) {
	case PMUSCOPE_STATE_PRESENT:
		st = pmuscope_backend_perf() ? PMUSCOPE_SS_HW_OFF : PMUSCOPE_SS_HW_UNTRIED;
		break;
	case PMUSCOPE_STATE_ABSENT:
		st = PMUSCOPE_SS_HW_ABSENT;
		break;
	default:
		st = PMUSCOPE_SS_HW_OFF;
		break;
	}
	WRITE_ONCE(pmu->ss_hw, st);
}

/*
 * Enable and allow Capture events at the kernel's EL: on a VHE host
 * MDCR_EL2.PMSSE = 0b11 (checked at every capture: KVM's put and a CPU
 * power-up write the host's value back); at EL1 PMECR_EL1.SSE = 0b11
 * (UNKNOWN after a power down). Either only matters where the levels
 * above hand the choice down (0b01); firmware that decides itself is seen
 * by the capture's outcome.
 *
 * MDCR_EL2 is KVM's while one of its vCPUs is loaded on this CPU (Linux
 * 6.12: kvm_arch_vcpu_load() -> kvm_vcpu_load_vhe() ->
 * __activate_traps_common() saves the host's value in
 * host_debug_state.mdcr_el2 and writes vcpu->arch.mdcr_el2, PMSSE = 0b00;
 * __deactivate_traps_common() at the put writes the saved value back;
 * kvm_arm_setup_debug() rewrites the guest's before an entry). The vCPU
 * thread runs in the host between the two with IRQs on, so a snapshot's
 * IPI can find the guest's value there: setting PMSSE in it would change
 * the guest's trap configuration (KVM does not read it back) and be lost
 * for the host at the put, and the saved old value would be the guest's.
 * Then nothing is touched: false, and the capture is not made. Asked on
 * this CPU with IRQs off (the snapshot's cross-CPU call), the answer holds
 * until this capture is over. Not because KVM writes MDCR_EL2 with IRQs
 * off: its load and put run with preemption off only (vcpu_load()'s
 * get_cpu(); kvm_sched_in() runs with IRQs on; 6.1 writes MDCR_EL2 there
 * with IRQs on, 6.12 under local_irq_save()), so this call may interrupt
 * one of them. But both set kvm_running_vcpu before the load's write and
 * clear it after the put's restore: finding none, this call interrupted
 * no load or put between those points, and KVM cannot resume on this CPU
 * before it returns.
 */
static bool pmuscope_ss_enable(struct pmuscope_pmu *pmu)
{
	u64 v;

	if (pmuscope_hw_el2() == PMUSCOPE_HW_EL2_KERNEL) {
		if (pmuscope_hw_vcpu_loaded())
			return false;
		v = pmuscope_hw_read(PMUSCOPE_REG_MDCR_EL2);
		if (FIELD_GET(PMUSCOPE_MDCR_EL2_PMSSE, v) == PMUSCOPE_PMSSE_ALLOWED)
			return true;
		if (!pmu->ss_el2_set) {
			pmu->ss_el2_old = FIELD_GET(PMUSCOPE_MDCR_EL2_PMSSE, v);
			pmu->ss_el2_set = true;
		}
		v &= ~PMUSCOPE_MDCR_EL2_PMSSE;
		v |= FIELD_PREP(PMUSCOPE_MDCR_EL2_PMSSE, PMUSCOPE_PMSSE_ALLOWED);
		pmuscope_hw_write(PMUSCOPE_REG_MDCR_EL2, v);
		pmuscope_hw_isb();
		return true;
	}
	v = pmuscope_hw_read(PMUSCOPE_REG_PMECR_EL1);
	if (FIELD_GET(PMUSCOPE_PMECR_SSE, v) == PMUSCOPE_PMSSE_ALLOWED)
		return true;
	v &= ~PMUSCOPE_PMECR_SSE;
	v |= FIELD_PREP(PMUSCOPE_PMECR_SSE, PMUSCOPE_PMSSE_ALLOWED);
	pmuscope_hw_write(PMUSCOPE_REG_PMECR_EL1, v);
	pmuscope_hw_isb();
	pmu->ss_pmecr_set = true;
	return true;
}

/*
 * CPU going offline (or module unload), on the CPU: give back what
 * pmuscope changed, MDCR_EL2.PMSSE to its old value, PMECR_EL1.SSE to
 * 0b00 (capture disabled). Not MDCR_EL2 while a KVM vCPU is loaded (only
 * the reboot notifier's IPI can find one: the hotplug thread is not a
 * vCPU's): it holds the guest's value, and the put writes back the host's
 * as KVM saved it at the load, PMSSE = 0b11 included.
 */
void pmuscope_ss_cpu_down(struct pmuscope_pmu *pmu)
{
	u64 v;

	if (pmu->ss_el2_set && !pmuscope_hw_vcpu_loaded()) {
		v = pmuscope_hw_read(PMUSCOPE_REG_MDCR_EL2);
		v &= ~PMUSCOPE_MDCR_EL2_PMSSE;
		v |= FIELD_PREP(PMUSCOPE_MDCR_EL2_PMSSE, pmu->ss_el2_old);
		pmuscope_hw_write(PMUSCOPE_REG_MDCR_EL2, v);
		pmu->ss_el2_set = false;
	}
	if (pmu->ss_pmecr_set) {
		v = pmuscope_hw_read(PMUSCOPE_REG_PMECR_EL1);
		pmuscope_hw_write(PMUSCOPE_REG_PMECR_EL1, v & ~PMUSCOPE_PMECR_SSE);
		pmu->ss_pmecr_set = false;
	}
}

/*
 * Wait for PMSSCR_EL1.SS to read 0: no Capture event ongoing. A read that
 * returns 0 after a completion is the observation the Arm ARM asks to be
 * followed by an ISB before the snapshot registers are read (D13.9,
 * Example D13-8). False if it still reads 1 after PMUSCOPE_SS_POLLS reads.
 */
static bool pmuscope_ss_wait(u64 *scr)
{
	unsigned int i;

	for (i = 0; i < PMUSCOPE_SS_POLLS; i++) {
		*scr = pmuscope_hw_read(PMUSCOPE_REG_PMSSCR_EL1);
		if (!FIELD_GET(PMUSCOPE_PMSSCR_SS, *scr))
			return true;
		cpu_relax();
	}
	return false;
}

/* Does a counter with @evtyper count at the EL the kernel runs at? */
static bool pmuscope_ss_counts_kernel(u64 evtyper)
{
	if (pmuscope_hw_el2() == PMUSCOPE_HW_EL2_KERNEL)
		return FIELD_GET(PMUSCOPE_EVTYPER_NSH, evtyper);
	return !FIELD_GET(PMUSCOPE_EVTYPER_P, evtyper);
}

#define PMUSCOPE_SS_NO_WITNESS	PMUSCOPE_NR_COUNTERS

/*
 * The witness of freshness: a counter that counts CPU cycles at the
 * kernel's EL across the capture, so that it advances between any two
 * captures. The cycle counter when it runs so; else a counter not running
 * (the cycle counter first), run for the capture only (*@temp), from 0,
 * at every EL. Whoever starts such a counter next programs it again
 * (pmuscope_hwc_hw_on()). PMUSCOPE_SS_NO_WITNESS when every counter runs
 * and the cycle counter leaves out the kernel's EL.
 */
static unsigned int pmuscope_ss_witness(struct pmuscope_pmu *pmu, bool *temp)
{
	const struct pmuscope_hwc *cc = &pmu->hwc[PMUSCOPE_CYCLE_IDX];

	*temp = false;
	if (cc->on_hw)
		return pmuscope_ss_counts_kernel(cc->evtyper) ? PMUSCOPE_CYCLE_IDX :
		       PMUSCOPE_SS_NO_WITNESS;
	*temp = true;
	return PMUSCOPE_CYCLE_IDX;
}

static unsigned int pmuscope_ss_witness_free(struct pmuscope_pmu *pmu, bool *temp)
{
	unsigned int i;

	*temp = true;
	for (i = 0; i < pmu->nr_counters; i++)
		if (!(pmu->on_hw_mask & BIT(i)))
			return i;
	*temp = false;
	return PMUSCOPE_SS_NO_WITNESS;
}

static u64 pmuscope_ss_witness_read(unsigned int w)
{
	if (w == PMUSCOPE_CYCLE_IDX)
		return pmuscope_hw_read(PMUSCOPE_REG_PMCCNTR_EL0);
	return pmuscope_hw_read(PMUSCOPE_REG_PMEVCNTR(w));
}

static u64 pmuscope_ss_svr_read(unsigned int n)
{
	if (n == PMUSCOPE_CYCLE_IDX)
		return pmuscope_hw_read(PMUSCOPE_REG_PMCCNTSVR_EL1);
	return pmuscope_hw_read(PMUSCOPE_REG_PMEVCNTSVR(n));
}

/*
 * One hardware capture of the counters in @mask: their snapshot registers
 * into @svr[counter]; @t the system counter just before the request.
 * Returns PMUSCOPE_SS_HW_READY, or why the capture cannot be used
 * (PMUSCOPE_SS_HW_UNTRIED: no witness this time; nothing is wrong;
 * PMUSCOPE_SS_HW_KVM: not tried, MDCR_EL2 is a guest's now).
 */
static enum pmuscope_ss_hw pmuscope_ss_capture(struct pmuscope_pmu *pmu,
					       unsigned long mask, u64 *svr, u64 *t)
{
	enum pmuscope_ss_hw st = PMUSCOPE_SS_HW_READY;
	u64 before, after, scr, copy;
	unsigned long idx;
	unsigned int w;
	bool temp;

	w = pmuscope_ss_witness(pmu, &temp);
	if (w == PMUSCOPE_SS_NO_WITNESS)
		w = pmuscope_ss_witness_free(pmu, &temp);
	if (w == PMUSCOPE_SS_NO_WITNESS)
		return PMUSCOPE_SS_HW_UNTRIED;
	if (!pmuscope_ss_enable(pmu))
		return PMUSCOPE_SS_HW_KVM;
	/*
	 * An external request (a debugger, a cross-trigger) may be ongoing:
	 * writing SS = 1 during a capture is CONSTRAINED UNPREDICTABLE.
	 */
	if (!pmuscope_ss_wait(&scr))
		return PMUSCOPE_SS_HW_TIMEOUT;
	if (temp) {
		/* PMCR_EL0.E is set: the counters of @mask run. */
		if (w == PMUSCOPE_CYCLE_IDX) {
			pmuscope_hw_write(PMUSCOPE_REG_PMCCFILTR_EL0, PMUSCOPE_EVTYPER_NSH);
		} else {
			pmuscope_hw_write(PMUSCOPE_REG_PMEVTYPER(w),
					  pmuscope_evtyper(PMUSCOPE_EVENT_CPU_CYCLES,
							   PMUSCOPE_EV_ALL_EL));
			pmuscope_hw_write(PMUSCOPE_REG_PMEVCNTR(w), 0);
		}
		pmuscope_hw_isb();
		pmuscope_hw_write(PMUSCOPE_REG_PMCNTENSET_EL0, BIT(w));
	}
	*t = pmuscope_hw_syscnt();
	/* @before is read, and the witness runs, before the request. */
	pmuscope_hw_isb();
	before = pmuscope_ss_witness_read(w);
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMSSCR_EL1, PMUSCOPE_PMSSCR_SS);
	if (!pmuscope_ss_wait(&scr)) {
		st = PMUSCOPE_SS_HW_TIMEOUT;
		goto out;
	}
	/* Completion observed: synchronize before reading the copies. */
	pmuscope_hw_isb();
	if (FIELD_GET(PMUSCOPE_PMSSCR_NC, scr)) {
		st = PMUSCOPE_SS_HW_PROHIBITED;
		goto out;
	}
	for_each_set_bit(idx, &mask, PMUSCOPE_NR_COUNTERS)
		svr[idx] = pmuscope_ss_svr_read(idx);
	copy = (mask & BIT(w)) ? svr[w] : pmuscope_ss_svr_read(w);
	/* @after is read after the copies. */
	pmuscope_hw_isb();
	after = pmuscope_ss_witness_read(w);
	/*
	 * Fresh: within the window, and not the copy the last capture left
	 * (the witness advanced in between: it counts the capture itself).
	 * The second test matters when the witness was restarted since (a
	 * new session starts the cycle counter from 0): an old copy may then
	 * fall in the new window by chance.
	 */
	if (copy < before || copy > after ||
	    (pmu->ss_seen && pmu->ss_last_w == w && copy == pmu->ss_last_copy))
		st = PMUSCOPE_SS_HW_STALE;
	pmu->ss_seen = true;
	pmu->ss_last_w = w;
	pmu->ss_last_copy = copy;
out:
	if (temp) {
		pmuscope_hw_write(PMUSCOPE_REG_PMCNTENCLR_EL0, BIT(w));
		pmuscope_hw_isb();
	}
	return st;
}

/* Wait with IRQs off for the system counter to reach @deadline (0: none). */
static bool pmuscope_snap_wait(u64 deadline)
{
	u64 t;

	if (!deadline)
		return false;
	t = pmuscope_hw_syscnt();
	if (t > deadline)
		return true;		/* late */
	while (t < deadline) {
		cpu_relax();
		t = pmuscope_hw_syscnt();
	}
	return false;
}

/*
 * PMOVSSET_EL0 for the folds of the counters of @mask (0: none is
 * 32-bit), read after them with an ISB between: made here if @isb, else
 * the caller's.
 */
static u64 pmuscope_snap_ovs(const struct pmuscope_pmu *pmu, u64 mask, bool isb)
{
	if (!(mask & ~BIT_ULL(PMUSCOPE_CYCLE_IDX)) || pmu->evcnt_width != 32)
		return 0;
	if (isb)
		pmuscope_hw_isb();
	return pmuscope_hw_read(PMUSCOPE_REG_PMOVSSET_EL0);
}

/*
 * The software snapshot: the counters of @mask stop together, are read
 * (pmuscope_hw_read_cnts(): straight-line, into @raw by counter), and
 * start together again. While they are stopped, nothing but their reads:
 * the gap is not counted. PMOVSSET_EL0 is read after they count again,
 * and after their reads with the ISB between: a 32-bit counter that
 * wraps meanwhile has its flag set and was read with bit 31 set, which
 * the fold takes as read before the wrap (pmuscope_hwc_fold_from()).
 */
static __always_inline void pmuscope_snap_sw(struct pmuscope_pmu *pmu, u64 mask,
					     const u8 *idx, u32 nr, u64 now, u32 sflags,
					     struct pmuscope_value *vals,
					     struct pmuscope_snap_cpu *sc)
{
	/* @mask's entries written before any is read, as svr[] below. */
	u64 raw[PMUSCOPE_NR_COUNTERS] __uninitialized;
	u64 t0, t1;

	t0 = pmuscope_hw_syscnt();
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENCLR_EL0, mask);
	/* Stopped before they are read. */
	pmuscope_hw_isb();
	pmuscope_hw_read_cnts(mask, raw);
	/* Not those the overflow interrupt holds until its end. */
	pmuscope_hw_write(PMUSCOPE_REG_PMCNTENSET_EL0, mask & ~(u64)pmu->sample_held);
	/* Counting again before the gap is timed, and read before PMOVSSET_EL0. */
	pmuscope_hw_isb();
	t1 = pmuscope_hw_syscnt();
	/* Folded here, in this frame: the hot path of a snapshot. */
	pmuscope_pmu_fold(pmu, idx, nr, now, pmuscope_snap_ovs(pmu, mask, false), true, raw, vals);
	pmu->sw_snapshots++;
	/* Every field, each stored once (a compound literal is zeroed first). */
	sc->cpu = pmu->cpu;
	sc->method = PMUSCOPE_SNAP_SOFTWARE;
	sc->flags = sflags;
	sc->reserved = 0;
	sc->time = t0;
	sc->skew = 0;
	sc->frozen = t1 - t0;
	sc->spread = 0;
}

/*
 * The hardware snapshot, once captured: the live counters of @mask are
 * read (as the software snapshot reads them) and folded, and each one's
 * count less what it counted since its copy in @svr is the value (see
 * the top).
 */
static void pmuscope_snap_hw(struct pmuscope_pmu *pmu, u64 mask, const u8 *idx, u32 nr,
			     u64 now, const u64 *svr, struct pmuscope_value *vals)
{
	u64 raw[PMUSCOPE_NR_COUNTERS] __uninitialized;	/* as svr[] */
	u64 ovs;
	u32 i;

	pmuscope_hw_read_cnts(mask, raw);
	ovs = pmuscope_snap_ovs(pmu, mask, true);
	pmuscope_pmu_fold_raw(pmu, idx, nr, now, ovs, raw, vals);
	for (i = 0; i < nr; i++) {
		unsigned int n = idx[i];
		u64 delta;

		if (!(mask & BIT_ULL(n)))
			continue;
		delta = raw[n] - svr[n];
		if (pmuscope_hwc_width(pmu, n) == 32)
			delta &= U32_MAX;
		vals[i].count -= delta;
	}
	pmu->ss_captures++;
}

/*
 * Snapshot of one session's counters on this CPU: @idx[i] is the counter
 * of value @vals[i]; @sc this CPU's record (method, time, flags). Waits
 * for @deadline (system counter; 0: now) first. @flags: PMUSCOPE_SNAP_F_*.
 * With pmu->lock held and IRQs off: on the PMU's CPU, or anywhere while
 * it is offline (the counts at rest; nothing is read from the hardware).
 */
void pmuscope_pmu_snapshot(struct pmuscope_pmu *pmu, const u8 *idx, u32 nr, u64 cmask,
			   u32 flags, u64 deadline, u64 now,
			   struct pmuscope_value *vals, struct pmuscope_snap_cpu *sc)
{
	/*
	 * Written for the counters of @mask before any is read: not zeroed
	 * by CONFIG_INIT_STACK_ALL_ZERO (a 256-byte memset per snapshot).
	 */
	u64 svr[PMUSCOPE_NR_COUNTERS] __uninitialized;
	enum pmuscope_ss_hw st;
	u32 sflags = 0;		/* PMUSCOPE_SNAPCPU_* */
	u64 mask, t;

	/*
	 * Each way out writes every field of @sc once, zeros included (a
	 * compound literal here, field by field in pmuscope_snap_sw()):
	 * never zeroed first and written again, nor by a call of memset().
	 */
	if (!pmu->hw_ready) {
		pmuscope_pmu_read(pmu, idx, nr, now, vals);
		*sc = (struct pmuscope_snap_cpu){
			.cpu = pmu->cpu, .method = PMUSCOPE_SNAP_IDLE,
			.flags = PMUSCOPE_SNAPCPU_OFFLINE,
		};
		return;
	}
	/* Put back (and flag) what someone else stopped, before the stop. */
	if (unlikely(!pmuscope_hw_counting(pmuscope_pmu_running(pmu))))
		pmuscope_pmu_repair(pmu, now);
	/*
	 * The session's counters on the hardware: PMUSCOPE_NO_COUNTER's bit
	 * (32) is never in on_hw_mask, nor a counter not on the hardware.
	 */
	mask = cmask & pmu->on_hw_mask;

	if (pmuscope_snap_wait(deadline))
		sflags |= PMUSCOPE_SNAPCPU_LATE;
	if (!mask) {
		t = pmuscope_hw_syscnt();
		/* None on the hardware: @svr, never read, for their raw values. */
		pmuscope_pmu_fold_raw(pmu, idx, nr, now, 0, svr, vals);
		*sc = (struct pmuscope_snap_cpu){
			.cpu = pmu->cpu, .method = PMUSCOPE_SNAP_IDLE, .flags = sflags, .time = t,
		};
		return;
	}
	/* The state first: with no capture (a Cortex-A53), @flags is not needed. */
	if (pmuscope_ss_usable(pmu) && !(flags & PMUSCOPE_SNAP_F_SOFTWARE)) {
		if (pmuscope_hw_el2() == PMUSCOPE_HW_EL2_ABOVE &&
		    !pmuscope_engine.ss_under_el2) {
			st = PMUSCOPE_SS_HW_UNDER_EL2;
		} else {
			st = pmuscope_ss_capture(pmu, mask, svr, &t);
			if (st == PMUSCOPE_SS_HW_UNTRIED)
				goto software;	/* no witness now: not a failure */
			if (st == PMUSCOPE_SS_HW_READY) {
				WRITE_ONCE(pmu->ss_hw, st);
				pmuscope_snap_hw(pmu, mask, idx, nr, now, svr, vals);
				*sc = (struct pmuscope_snap_cpu){
					.cpu = pmu->cpu, .method = PMUSCOPE_SNAP_HARDWARE,
					.flags = sflags, .time = t,
				};
				return;
			}
			pmu->ss_fallbacks++;
			sflags |= PMUSCOPE_SNAPCPU_FALLBACK;
		}
		WRITE_ONCE(pmu->ss_hw, st);
	}
software:
	pmuscope_snap_sw(pmu, mask, idx, nr, now, sflags, vals, sc);
}
