// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the Statistical Profiling Extension (SPE).
 *
 * A session profiles its CPUs into one kernel-owned profiling buffer per
 * CPU (vmalloc'ed pages, at a kernel address: the SPU writes through the
 * EL1&0 translation regime, so KPTI, which unmaps the kernel while EL0
 * runs, makes it unusable, as in arm_spe_pmu). When the buffer fills
 * (PMBIRQ), the handler hands its data over to the session's ring as one
 * chunk and restarts the buffer; read() copies whole chunks to user space.
 *
 * Arm ARM references: D17.7 (the Profiling Buffer, PMBPTR_EL1 and
 * PMBLIMITR_EL1 rules RHXSYK and RHLXGD), D17.8 (management events and
 * PMBSR_EL1), D17.9 (synchronization: PSB CSYNC makes the SPU's writes to
 * PMBPTR_EL1/PMBSR_EL1 and collected records complete, DSB NSH then
 * completes the memory writes), D24.7 (the registers). The handler's
 * order is arm_spe_pmu's: PSB CSYNC, DSB NSH, ISB, then PMBSR_EL1.
 *
 * What is lost is counted, never hidden: a full ring drops a chunk
 * (lost_ring), DL discards the buffer's data (lost_dl: its tail may be
 * corrupt), and the time profiling was off while the session ran (buffer
 * service, idle, offline, a fault) is stopped_ns. The hardware does not
 * count the operations it did not sample while stopped; neither do we.
 *
 * The PMBIRQ is a PPI: bound from the firmware's description
 * (arm,statistical-profiling-extension-v1 in DT, the arm,spe-v1 platform
 * device ACPI's MADT creates) unless perf's arm_spe_pmu driver holds that
 * device, or from the spe_irq parameter; pmuscope_emu.ko takes it from the
 * register model.
 */

#include <linux/bitfield.h>
#include <linux/cpumask.h>
#include <linux/log2.h>
#include <linux/printk.h>
#include <linux/irq_work.h>
#include <linux/math64.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"

/* ------------------------------------------------------ pure functions */

/*
 * PMSIDR_EL1.Interval (D24.7.14): the recommended minimum sampling
 * interval, the value arm_spe_pmu's min_period takes too.
 */
u64 pmuscope_spe_min_interval(u64 pmsidr)
{
	static const u16 min[] = { 256, 512, 768, 1024, 1536, 2048, 3072, 4096 };
	unsigned int i = FIELD_GET(PMUSCOPE_PMSIDR_INTERVAL, pmsidr);

	return i < ARRAY_SIZE(min) ? min[i] : 4096;
}

/*
 * PMSEVFR_EL1/PMSNEVFR_EL1 bits software may set, by SPE version: the
 * complement of the kernel's PMSEVFR_EL1_RES0_IMP/_V1P1/_V1P2
 * (arch/arm64/include/asm/sysreg.h), IMPLEMENTATION DEFINED bits included.
 */
u64 pmuscope_spe_evfr_mask(u8 pmsver)
{
	u64 res0 = GENMASK_ULL(47, 32) | GENMASK_ULL(23, 16) | GENMASK_ULL(11, 8) |
		   BIT_ULL(6) | BIT_ULL(4) | BIT_ULL(2) | BIT_ULL(0);

	if (pmsver >= PMUSCOPE_PMSVER_V1P1)
		res0 &= ~(BIT_ULL(18) | BIT_ULL(17) | BIT_ULL(11));
	if (pmsver >= PMUSCOPE_PMSVER_V1P2)
		res0 &= ~BIT_ULL(6);
	return ~res0;
}

/*
 * The registers of @c on a CPU with @sc's unit. -EOPNOTSUPP: the CPU lacks
 * what @c asks (a filter, jitter); -EINVAL: @c's interval or events are
 * out of this CPU's range. Privilege is the caller's check.
 */
int pmuscope_spe_config_regs(const struct pmuscope_spe_pcpu *sc,
			     const struct pmuscope_spe_config *c,
			     struct pmuscope_spe_regs *r)
{
	u64 min = pmuscope_spe_min_interval(sc->pmsidr);
	u64 interval = c->interval ?: min;
	u64 mask = pmuscope_spe_evfr_mask(sc->pmsver);

	memset(r, 0, sizeof(*r));
	/* PMBLIMITR_EL1.FM = 0b10 "applies when FEAT_SPEv1p2 is implemented" (D24.7.4). */
	if ((c->flags & PMUSCOPE_SPE_DISCARD) && sc->pmsver < PMUSCOPE_PMSVER_V1P2)
		return -EOPNOTSUPP;
	if (interval < min)
		return -EINVAL;
	if ((c->events | c->nevents) & ~mask)
		return -EINVAL;
	if (c->events) {
		if (!(sc->pmsidr & PMUSCOPE_PMSIDR_FE))
			return -EOPNOTSUPP;
		r->pmsfcr |= PMUSCOPE_PMSFCR_FE;
		r->pmsevfr = c->events;
	}
	if (c->nevents) {
		if (!(sc->pmsidr & PMUSCOPE_PMSIDR_FNE))
			return -EOPNOTSUPP;
		r->pmsfcr |= PMUSCOPE_PMSFCR_FNE;
		r->pmsnevfr = c->nevents;
	}
	if (c->ops) {
		if (!(sc->pmsidr & PMUSCOPE_PMSIDR_FT))
			return -EOPNOTSUPP;
		r->pmsfcr |= PMUSCOPE_PMSFCR_FT;
		if (c->ops & PMUSCOPE_SPE_OP_BRANCH)
			r->pmsfcr |= PMUSCOPE_PMSFCR_B;
		if (c->ops & PMUSCOPE_SPE_OP_LOAD)
			r->pmsfcr |= PMUSCOPE_PMSFCR_LD;
		if (c->ops & PMUSCOPE_SPE_OP_STORE)
			r->pmsfcr |= PMUSCOPE_PMSFCR_ST;
	}
	if (c->min_latency) {
		if (!(sc->pmsidr & PMUSCOPE_PMSIDR_FL))
			return -EOPNOTSUPP;
		r->pmsfcr |= PMUSCOPE_PMSFCR_FL;
		r->pmslatfr = FIELD_PREP(PMUSCOPE_PMSLATFR_MINLAT, c->min_latency);
	}
	if (c->flags & PMUSCOPE_SPE_JITTER) {
		/* PMSIDR_EL1.ERnd only says how the random number is used. */
		r->pmsirr |= PMUSCOPE_PMSIRR_RND;
	}
	r->pmsirr |= FIELD_PREP(PMUSCOPE_PMSIRR_INTERVAL, interval >> 8);
	/*
	 * Discard mode (D17.5.5): the SPU samples and counts (its PMU
	 * events), writes nothing, raises no buffer-full event.
	 */
	r->fm = c->flags & PMUSCOPE_SPE_DISCARD ? PMUSCOPE_PMBLIMITR_FM_DISCARD :
						  PMUSCOPE_PMBLIMITR_FM_FILL;
	if (c->flags & PMUSCOPE_SPE_EL0)
		r->pmscr |= PMUSCOPE_PMSCR_E0SPE;
	if (c->flags & PMUSCOPE_SPE_EL1)
		r->pmscr |= PMUSCOPE_PMSCR_E1SPE;
	if (c->flags & PMUSCOPE_SPE_CX)
		r->pmscr |= PMUSCOPE_PMSCR_CX;
	if (c->flags & PMUSCOPE_SPE_PA)
		r->pmscr |= PMUSCOPE_PMSCR_PA;
	if (c->flags & PMUSCOPE_SPE_TS)
		r->pmscr |= PMUSCOPE_PMSCR_TS;
	/* PCT 0b01: physical time (CNTPCT); 0b00 virtual (CNTVCT). */
	if (c->flags & PMUSCOPE_SPE_PCT)
		r->pmscr |= FIELD_PREP(PMUSCOPE_PMSCR_PCT, 1);
	return 0;
}

/*
 * The buffer registers for [@base, @base + @size): PMBPTR_EL1 at @base,
 * which must be aligned to PMBIDR_EL1.Align (RHLXGD), and LIMIT at the
 * end, page-granular, with room for a record of the maximum size
 * 2^PMSIDR_EL1.MaxSize (RHXSYK); fill mode, enabled.
 */
int pmuscope_spe_buffer_regs(const struct pmuscope_spe_pcpu *sc, u64 base, u32 size,
			     u64 *pmbptr, u64 *pmblimitr)
{
	u64 align = BIT_ULL(FIELD_GET(PMUSCOPE_PMBIDR_ALIGN, sc->pmbidr));
	u64 max = BIT_ULL(FIELD_GET(PMUSCOPE_PMSIDR_MAXSIZE, sc->pmsidr));
	u64 limit = base + size;

	if (!size || (base & (align - 1)) || (limit & ~PMUSCOPE_PMBLIMITR_LIMIT) ||
	    limit < base || size < max || ((base ^ (limit - 1)) & GENMASK_ULL(63, 56)))
		return -EINVAL;
	*pmbptr = base;
	*pmblimitr = (limit & PMUSCOPE_PMBLIMITR_LIMIT) |
		     FIELD_PREP(PMUSCOPE_PMBLIMITR_FM, PMUSCOPE_PMBLIMITR_FM_FILL) |
		     PMUSCOPE_PMBLIMITR_E;
	return 0;
}

/*
 * What PMBSR_EL1 asks of the handler (D17.8, Table D17-10/11):
 * - S = 0: nothing (a spurious PMBIRQ);
 * - EC buffer management, DL = 1: the data's tail may be lost or corrupt,
 *   discard it (arm_spe_pmu marks the AUX data TRUNCATED and PARTIAL);
 * - EC buffer management, BSC buffer full: hand over and go on;
 * - anything else (stage 1 or 2 faults, EA, an unknown EC or BSC): stop
 *   this CPU's profiling and report, never retry blindly.
 */
enum pmuscope_spe_act pmuscope_spe_decode(u64 pmbsr)
{
	u64 ec = FIELD_GET(PMUSCOPE_PMBSR_EC, pmbsr);

	if (!(pmbsr & PMUSCOPE_PMBSR_S))
		return PMUSCOPE_SPE_ACT_NONE;
	if (ec != PMUSCOPE_PMBSR_EC_BUF || (pmbsr & PMUSCOPE_PMBSR_EA))
		return PMUSCOPE_SPE_ACT_FAULT;
	if (pmbsr & PMUSCOPE_PMBSR_DL)
		return PMUSCOPE_SPE_ACT_DISCARD;
	if (FIELD_GET(PMUSCOPE_PMBSR_BSC, pmbsr) == PMUSCOPE_PMBSR_BSC_FULL)
		return PMUSCOPE_SPE_ACT_FULL;
	return PMUSCOPE_SPE_ACT_FAULT;
}

/* At CPU online, on the CPU: the unit as discovery found it. */
void pmuscope_spe_probe(struct pmuscope_spe_pcpu *sc, const struct pmuscope_cpu_caps *caps)
{
	sc->usable = caps->state[PMUSCOPE_UNIT_SPE] == PMUSCOPE_STATE_PRESENT;
	sc->pmsver = caps->pmsver;
	sc->pmsidr = sc->usable ? caps->regs.pmsidr : 0;
	sc->pmbidr = sc->usable ? caps->regs.pmbidr : 0;
}

/* ------------------------------------------------------------- the ring */

u64 pmuscope_spe_ns(const struct pmuscope_spe_sess *ss, u64 ticks)
{
	return ss->freq ? mul_u64_u64_div_u64(ticks, NSEC_PER_SEC, ss->freq) : 0;
}

static void pmuscope_spe_ring_put(struct pmuscope_spe_sess *ss, u64 at, const void *src,
				  u32 len)
{
	u32 off = at & (ss->size - 1), first = min(len, ss->size - off);

	memcpy(ss->data + off, src, first);
	if (len > first)
		memcpy(ss->data, (const u8 *)src + first, len - first);
}

static void pmuscope_spe_wake(struct irq_work *work)
{
	struct pmuscope_spe_sess *ss = container_of(work, struct pmuscope_spe_sess, work);

	wake_up_interruptible_poll(&ss->wait, EPOLLIN | EPOLLRDNORM);
}

/*
 * Hand @len bytes of @cpu's profiling buffer to the ring as one chunk
 * (with what is pending: lost bytes, a collision), or count them lost if
 * the ring has no room. On @cpu, sc->lock held.
 */
static void pmuscope_spe_emit(struct pmuscope_spe_pcpu *sc, unsigned int cpu,
			      const void *data, u32 len, u32 flags)
{
	struct pmuscope_spe_sess *ss = sc->owner;
	struct pmuscope_spe_chunk ch = { };
	u32 size = ALIGN(sizeof(ch) + len, 8);
	static const u8 pad[8];
	u64 head, used;

	flags |= sc->flags_pending;
	/*
	 * Nothing to hand over: no chunk. At a power-down an empty buffer is
	 * not news either (its FINAL would wake the reader for nothing).
	 */
	if (!len && !(sc->in_idle ? flags & ~PMUSCOPE_SPE_C_FINAL : flags))
		return;
	raw_spin_lock(&ss->lock);
	head = ss->head;
	/* Pairs with the reader's smp_store_release() of @tail. */
	used = head - smp_load_acquire(&ss->tail);
	if (size > ss->size - used) {
		raw_spin_unlock(&ss->lock);
		sc->st.lost_ring += len;
		sc->lost_pending += len;
		sc->flags_pending |= PMUSCOPE_SPE_C_LOST |
				     (flags & (PMUSCOPE_SPE_C_COLLISION | PMUSCOPE_SPE_C_STOPPED));
		return;
	}
	ch.size = size;
	ch.cpu = cpu;
	ch.time = pmuscope_hw_syscnt();
	ch.data_size = len;
	ch.flags = flags;
	ch.lost = sc->lost_pending;
	pmuscope_spe_ring_put(ss, head, &ch, sizeof(ch));
	pmuscope_spe_ring_put(ss, head + sizeof(ch), data, len);
	pmuscope_spe_ring_put(ss, head + sizeof(ch) + len, pad, size - sizeof(ch) - len);
	if (flags & PMUSCOPE_SPE_C_STOPPED ||
	    (flags & PMUSCOPE_SPE_C_FINAL && !sc->in_idle))
		ss->flush = true;
	/* Pairs with the reader's smp_load_acquire(): the chunk, then @head. */
	smp_store_release(&ss->head, head + size);
	raw_spin_unlock(&ss->lock);
	sc->st.bytes += len;
	sc->lost_pending = 0;
	sc->flags_pending = 0;
	if (ss->flush || used + size >= ss->wakeup) {
		/*
		 * Not on the way into a power-down: an irq_work is a
		 * self-IPI, which would abort the deep idle state right
		 * before PSCI CPU_SUSPEND. The power-up wakes the reader.
		 */
		if (sc->in_idle) {
			sc->wake_pending = true;
		} else {
			atomic_inc(&ss->wakes);
			irq_work_queue(&ss->work);
		}
	}
}

/* ------------------------------------------------------- on the CPU */

/* Program and enable profiling (arm_spe_pmu_start()'s order). sc->lock held. */
void pmuscope_spe_start_local(struct pmuscope_spe_pcpu *sc)
{
	const struct pmuscope_spe_regs *r = &sc->regs;
	u64 ptr, limit;

	if (pmuscope_spe_buffer_regs(sc, (u64)(uintptr_t)sc->buf, sc->buf_size, &ptr, &limit))
		return;		/* checked at START: cannot happen */
	limit = (limit & ~PMUSCOPE_PMBLIMITR_FM) | FIELD_PREP(PMUSCOPE_PMBLIMITR_FM, r->fm);
	pmuscope_hw_write(PMUSCOPE_REG_PMBSR_EL1, 0);
	pmuscope_hw_write(PMUSCOPE_REG_PMBPTR_EL1, ptr);
	pmuscope_hw_write(PMUSCOPE_REG_PMBLIMITR_EL1, limit);
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMSFCR_EL1, r->pmsfcr);
	pmuscope_hw_write(PMUSCOPE_REG_PMSEVFR_EL1, r->pmsevfr);
	if (sc->pmsidr & PMUSCOPE_PMSIDR_FNE)
		pmuscope_hw_write(PMUSCOPE_REG_PMSNEVFR_EL1, r->pmsnevfr);
	pmuscope_hw_write(PMUSCOPE_REG_PMSLATFR_EL1, r->pmslatfr);
	pmuscope_hw_write(PMUSCOPE_REG_PMSIRR_EL1, r->pmsirr);
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMSICR_EL1, 0);
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMSCR_EL1, r->pmscr);
	pmuscope_hw_isb();
	sc->running = true;
}

/*
 * The data of the buffer, by what PMBSR_EL1 says: handed over, discarded
 * (DL) or handed over before a stop (a fault). Returns the action taken.
 * sc->lock held, the SPU synchronized (PSB CSYNC, DSB NSH, ISB).
 */
static enum pmuscope_spe_act pmuscope_spe_service(struct pmuscope_spe_pcpu *sc,
						  unsigned int cpu, u64 pmbsr, u32 flags)
{
	enum pmuscope_spe_act act = pmuscope_spe_decode(pmbsr);
	u64 base = (u64)(uintptr_t)sc->buf;
	u64 ptr = pmuscope_hw_read(PMUSCOPE_REG_PMBPTR_EL1);
	u32 len;

	if (pmbsr & PMUSCOPE_PMBSR_COLL) {
		sc->st.collisions++;
		flags |= PMUSCOPE_SPE_C_COLLISION;
	}
	/* A pointer outside the buffer (a fault's address): only whole records below it. */
	len = ptr >= base && ptr <= base + sc->buf_size ? ptr - base : 0;
	switch (act) {
	case PMUSCOPE_SPE_ACT_NONE:
		break;
	case PMUSCOPE_SPE_ACT_FULL:
		sc->st.fills++;
		break;
	case PMUSCOPE_SPE_ACT_DISCARD:
		sc->st.dl_events++;
		sc->st.lost_dl += len;
		sc->lost_pending += len;
		sc->flags_pending |= PMUSCOPE_SPE_C_LOST;
		len = 0;
		break;
	case PMUSCOPE_SPE_ACT_FAULT:
		if (pmbsr & PMUSCOPE_PMBSR_DL) {
			sc->st.dl_events++;
			sc->st.lost_dl += len;
			sc->lost_pending += len;
			sc->flags_pending |= PMUSCOPE_SPE_C_LOST;
			len = 0;
		}
		sc->st.pmbsr = pmbsr;
		sc->faulted = true;
		flags |= PMUSCOPE_SPE_C_STOPPED;
		pr_err_ratelimited("cpu%u: SPE profiling stopped by a fault [PMBSR_EL1=0x%016llx, PMBPTR_EL1=0x%016llx]\n",
				   cpu, pmbsr, ptr);
		break;
	}
	pmuscope_spe_emit(sc, cpu, sc->buf, len, flags);
	return act;
}

/*
 * Disable and drain (arm_spe_pmu_disable_and_drain_local()), then hand
 * over what the buffer holds: a stop, idle, offline. sc->lock held.
 */
void pmuscope_spe_stop_local(struct pmuscope_spe_pcpu *sc, unsigned int cpu, u32 flags)
{
	u64 pmbsr;

	if (!sc->running)
		return;
	pmuscope_hw_write(PMUSCOPE_REG_PMSCR_EL1, 0);
	pmuscope_hw_isb();
	pmuscope_hw_psb_csync();
	pmuscope_hw_dsb_nsh();
	pmuscope_hw_write(PMUSCOPE_REG_PMBLIMITR_EL1, 0);
	pmuscope_hw_isb();
	pmbsr = pmuscope_hw_read(PMUSCOPE_REG_PMBSR_EL1);
	pmuscope_spe_service(sc, cpu, pmbsr, flags);
	/* Leave PMBSR_EL1 clear: the PMBIRQ line low. */
	pmuscope_hw_write(PMUSCOPE_REG_PMBSR_EL1, 0);
	pmuscope_hw_isb();
	sc->running = false;
}

/*
 * The unit as if nothing had used it (arm_spe_pmu's
 * __arm_spe_pmu_reset_local()): profiling and the buffer disabled and
 * drained, the pointer at 0, no management event pending (the PMBIRQ line
 * low). What an earlier kernel (kexec), the firmware or a session's crash
 * left is not trusted. For an idle unit: at CPU online and at reboot,
 * after pmuscope_spe_stop_local(). sc->lock held, on the CPU.
 */
void pmuscope_spe_reset_local(struct pmuscope_spe_pcpu *sc)
{
	if (!sc->usable || sc->running)
		return;
	pmuscope_hw_write(PMUSCOPE_REG_PMSCR_EL1, 0);
	pmuscope_hw_isb();
	pmuscope_hw_psb_csync();
	pmuscope_hw_dsb_nsh();
	pmuscope_hw_write(PMUSCOPE_REG_PMBLIMITR_EL1, 0);
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMBPTR_EL1, 0);
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMBSR_EL1, 0);
	pmuscope_hw_isb();
}

/*
 * Reboot or kexec: no SPU may write into memory the next kernel owns.
 * Drained (the data handed over as a FINAL chunk, in case anyone reads
 * it still), then reset; the CPU's unit stays off. sc->lock held.
 */
void pmuscope_spe_reboot_local(struct pmuscope_spe_pcpu *sc, unsigned int cpu)
{
	pmuscope_spe_stop_local(sc, cpu, PMUSCOPE_SPE_C_FINAL);
	sc->faulted = true;	/* never restarted: not by idle exit, not by online */
	pmuscope_spe_reset_local(sc);
}

/*
 * PMBIRQ on this CPU (hard IRQ). Returns IRQ_NONE for a spurious one
 * (PMBSR_EL1.S = 0), which is counted; PMBSR_EL1 is always left clear.
 */
irqreturn_t pmuscope_spe_irq_local(struct pmuscope_spe_pcpu *sc, unsigned int cpu)
{
	enum pmuscope_spe_act act;
	u64 pmbsr, t0;

	raw_spin_lock(&sc->lock);
	/* The SPU's records and its PMBPTR_EL1/PMBSR_EL1 updates, visible. */
	pmuscope_hw_psb_csync();
	pmuscope_hw_dsb_nsh();
	pmuscope_hw_isb();
	pmbsr = pmuscope_hw_read(PMUSCOPE_REG_PMBSR_EL1);
	if (!(pmbsr & PMUSCOPE_PMBSR_S) || !sc->running) {
		if (sc->owner)
			sc->st.spurious++;
		if (pmbsr & PMUSCOPE_PMBSR_S)	/* not ours to keep: clear the line */
			pmuscope_hw_write(PMUSCOPE_REG_PMBSR_EL1, 0);
		raw_spin_unlock(&sc->lock);
		return IRQ_NONE;
	}
	t0 = pmuscope_hw_syscnt();
	act = pmuscope_spe_service(sc, cpu, pmbsr, 0);
	if (act == PMUSCOPE_SPE_ACT_FAULT) {
		pmuscope_hw_write(PMUSCOPE_REG_PMSCR_EL1, 0);
		pmuscope_hw_write(PMUSCOPE_REG_PMBLIMITR_EL1, 0);
		pmuscope_hw_write(PMUSCOPE_REG_PMBSR_EL1, 0);
		pmuscope_hw_isb();
		sc->running = false;
		sc->off = true;
		sc->off_since = t0;
	} else {
		/* Restart at the base: the pointer, then clear S (resumes). */
		pmuscope_hw_write(PMUSCOPE_REG_PMBPTR_EL1, (u64)(uintptr_t)sc->buf);
		pmuscope_hw_write(PMUSCOPE_REG_PMBSR_EL1, 0);
		pmuscope_hw_isb();
		/* Ticks here, ns at SPE_STATUS: no division in the handler. */
		sc->off_ticks += pmuscope_hw_syscnt() - t0;
	}
	raw_spin_unlock(&sc->lock);
	return IRQ_HANDLED;
}

/* cpu_pm: the unit's state is lost in a power-down; drain before, restart after. */
void pmuscope_spe_pm(struct pmuscope_spe_pcpu *sc, unsigned int cpu, bool enter)
{
	raw_spin_lock(&sc->lock);
	if (enter && sc->running) {
		/* Drained, but nothing queued: that would abort the idle state. */
		sc->in_idle = true;
		pmuscope_spe_stop_local(sc, cpu, PMUSCOPE_SPE_C_FINAL);
		sc->in_idle = false;
		sc->off = true;
		sc->off_since = pmuscope_hw_syscnt();
	} else if (!enter) {
		if (sc->wake_pending && sc->owner) {
			atomic_inc(&sc->owner->wakes);
			irq_work_queue(&sc->owner->work);
		}
		sc->wake_pending = false;
		if (sc->off && sc->owner && !sc->faulted && READ_ONCE(sc->owner->running)) {
			sc->off_ticks += pmuscope_hw_syscnt() - sc->off_since;
			sc->off = false;
			pmuscope_spe_start_local(sc);
		}
	}
	raw_spin_unlock(&sc->lock);
}

/* ------------------------------------------------- a session's memory */

/*
 * The session's memory (the ring and every CPU's profiling buffer, which
 * stay allocated and unswappable while it exists) charged to the
 * starter's locked memory against RLIMIT_MEMLOCK, as perf charges its AUX
 * pages (perf_mmap()) and VFIO its pinned pages; CAP_IPC_LOCK exempts
 * (account_locked_vm()). Before anything is allocated: a caller over its
 * limit costs no allocation. -ENOMEM above the limit. Process context.
 */
int pmuscope_spe_charge(struct pmuscope_spe_sess *ss)
{
	unsigned long pages = (ss->size + (unsigned long)ss->buf_size *
			       cpumask_weight(ss->cpus)) >> PAGE_SHIFT;
	int ret;

	ss->locked_pages = pages;
	if (!current->mm)
		return 0;
	ret = account_locked_vm(current->mm, pages, true);
	if (ret)
		return ret;
	mmgrab(current->mm);
	ss->mm = current->mm;
	return 0;
}

void pmuscope_spe_free(struct pmuscope_spe_sess *ss)
{
	unsigned int cpu;

	if (!ss)
		return;
	if (ss->mm) {
		account_locked_vm(ss->mm, ss->locked_pages, false);
		mmdrop(ss->mm);
	}
	irq_work_sync(&ss->work);
	if (ss->bufs) {
		for_each_possible_cpu(cpu) {
			if (!ss->bufs[cpu])
				continue;
			pmuscope_hw_spe_buffer(cpu, ss->bufs[cpu], ss->buf_size, false);
			vfree(ss->bufs[cpu]);
		}
		kfree(ss->bufs);
	}
	vfree(ss->data);
	free_cpumask_var(ss->cpus);
	kfree(ss);
}

/*
 * A session's ring and buffers for @cpus, charged to the caller first
 * (pmuscope_spe_charge(): -ENOMEM over RLIMIT_MEMLOCK, nothing
 * allocated). ERR_PTR on failure.
 */
struct pmuscope_spe_sess *pmuscope_spe_alloc(const struct pmuscope_spe_config *c,
					     const struct cpumask *cpus)
{
	struct pmuscope_spe_sess *ss = kzalloc(sizeof(*ss), GFP_KERNEL);
	unsigned int cpu;
	int ret = -ENOMEM;

	if (!ss)
		return ERR_PTR(-ENOMEM);
	ss->cfg = *c;
	raw_spin_lock_init(&ss->lock);
	init_waitqueue_head(&ss->wait);
	init_irq_work(&ss->work, pmuscope_spe_wake);
	mutex_init(&ss->read_lock);
	ss->size = (c->buffer_kib ?: PMUSCOPE_SPE_KIB_DEFAULT) * 1024;
	ss->buf_size = (c->hw_kib ?: PMUSCOPE_SPE_HW_KIB_DEFAULT) * 1024;
	ss->wakeup = max_t(u32, c->wakeup_kib * 1024, 1);
	ss->freq = pmuscope_hw_syscnt_freq();
	if (!zalloc_cpumask_var(&ss->cpus, GFP_KERNEL))
		goto err;
	cpumask_copy(ss->cpus, cpus);
	ret = pmuscope_spe_charge(ss);
	if (ret) {
		pr_info_ratelimited("SPE: %lu KiB of buffers exceed the caller's locked-memory limit (RLIMIT_MEMLOCK, ulimit -l; CAP_IPC_LOCK exempts)\n",
				    ss->locked_pages << (PAGE_SHIFT - 10));
		goto err;
	}
	ret = -ENOMEM;
	ss->data = vzalloc(ss->size);
	ss->bufs = kcalloc(nr_cpu_ids, sizeof(*ss->bufs), GFP_KERNEL);
	if (!ss->data || !ss->bufs)
		goto err;
	for_each_cpu(cpu, ss->cpus) {
		ss->bufs[cpu] = vmalloc(ss->buf_size);
		if (!ss->bufs[cpu])
			goto err;
		if (pmuscope_hw_spe_buffer(cpu, ss->bufs[cpu], ss->buf_size, true)) {
			vfree(ss->bufs[cpu]);
			ss->bufs[cpu] = NULL;
			goto err;
		}
	}
	return ss;
err:
	pmuscope_spe_free(ss);
	return ERR_PTR(ret);
}

/* ------------------------------------------------------- read() and poll() */

static void pmuscope_spe_ring_get(const struct pmuscope_spe_sess *ss, u64 at, void *dst,
				  u32 len)
{
	u32 off = at & (ss->size - 1), first = min(len, ss->size - off);

	memcpy(dst, ss->data + off, first);
	if (len > first)
		memcpy((u8 *)dst + first, ss->data, len - first);
}

static int pmuscope_spe_ring_copy(const struct pmuscope_spe_sess *ss, u64 at,
				  char __user *dst, u32 len)
{
	u32 off = at & (ss->size - 1), first = min(len, ss->size - off);

	if (copy_to_user(dst, ss->data + off, first))
		return -EFAULT;
	if (len > first && copy_to_user(dst + first, ss->data, len - first))
		return -EFAULT;
	return 0;
}

static bool pmuscope_spe_readable(struct pmuscope_spe_sess *ss)
{
	/* Pairs with smp_store_release() of @head in pmuscope_spe_emit(). */
	u64 avail = smp_load_acquire(&ss->head) - ss->tail;

	return avail && (avail >= ss->wakeup || READ_ONCE(ss->flush) ||
			 !READ_ONCE(ss->running));
}

/*
 * Whole chunks, as many as fit in @len; -ENOSPC if the first does not
 * fit, as a stream's read() (Documentation/ioctl.rst); 0 at the end of a
 * stopped session.
 */
ssize_t pmuscope_spe_read(struct pmuscope_spe_sess *ss, char __user *ubuf, size_t len,
			  bool nonblock)
{
	ssize_t done = 0;
	u64 head, tail;
	int ret;

	if (mutex_lock_interruptible(&ss->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		/* Pairs with smp_store_release() of @head in pmuscope_spe_emit(). */
		head = smp_load_acquire(&ss->head);
		if (head != ss->tail || !READ_ONCE(ss->running))
			break;
		if (nonblock) {
			mutex_unlock(&ss->read_lock);
			return -EAGAIN;
		}
		/* The same pairing as above. */
		ret = wait_event_interruptible(ss->wait, smp_load_acquire(&ss->head) != ss->tail ||
					       !READ_ONCE(ss->running));
		if (ret) {
			mutex_unlock(&ss->read_lock);
			return ret;
		}
	}
	tail = ss->tail;
	while (tail != head) {
		struct pmuscope_spe_chunk ch;

		pmuscope_spe_ring_get(ss, tail, &ch, sizeof(ch));
		if (ch.size > len - done) {
			if (!done)
				done = -ENOSPC;
			break;
		}
		if (pmuscope_spe_ring_copy(ss, tail, ubuf + done, ch.size)) {
			if (!done)
				done = -EFAULT;
			break;
		}
		done += ch.size;
		tail += ch.size;
	}
	if (tail == head)
		WRITE_ONCE(ss->flush, false);
	/* Pairs with smp_load_acquire() of @tail in pmuscope_spe_emit(). */
	smp_store_release(&ss->tail, tail);
	mutex_unlock(&ss->read_lock);
	return done;
}

__poll_t pmuscope_spe_poll(struct pmuscope_spe_sess *ss, struct file *file,
			   struct poll_table_struct *pt)
{
	__poll_t ev = 0;

	poll_wait(file, &ss->wait, pt);
	if (pmuscope_spe_readable(ss))
		ev |= EPOLLIN | EPOLLRDNORM;
	if (!READ_ONCE(ss->running))
		ev |= EPOLLHUP;
	return ev;
}
