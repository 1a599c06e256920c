// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the Statistical Profiling Extension (SPE).
 *
 * A session profiles its CPUs into two kernel-owned profiling buffers per
 * CPU (vmalloc'ed pages, at a kernel address: the SPU writes through the
 * EL1&0 translation regime, so KPTI, which unmaps the kernel while EL0
 * runs, makes it unusable, as in arm_spe_pmu). When one fills (PMBIRQ),
 * the handler hands it over and points the SPU at the other: O(1) work
 * in hard IRQ, whatever hw_kib is. A worker on the CPU (the copier) then
 * copies the full buffer into the session's ring as one chunk, outside
 * the interrupt and without a session-wide lock held across the copy
 * (a chunk is reserved in O(1), copied, then committed), so CPUs do not
 * serialize on one another's fills. read() copies whole committed
 * chunks to user space. A CPU whose other buffer is still being copied
 * when it fills stops profiling until the copier frees one: stopped
 * time, never a silent loss.
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
#include <linux/math64.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/mm.h>
#include <linux/pfn.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

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

/*
 * The flags word of the chunk at @at: 4 bytes, 4-aligned in a chunk that
 * starts 8-aligned in a ring whose size is a multiple of 8, so never
 * split by the ring's end.
 */
static u32 *pmuscope_spe_ring_flags(const struct pmuscope_spe_sess *ss, u64 at)
{
	return (u32 *)(ss->data + ((at + offsetof(struct pmuscope_spe_chunk, flags)) &
				   (ss->size - 1)));
}

/*
 * Put buffer @i's @len bytes in the ring as one chunk (with what is
 * carried: bytes the full ring took before, their flags), or count them
 * lost if the ring has no room. The copier: process context, IRQs on,
 * sc->copy_lock held, not sc->lock. @ss->lock is held only to reserve.
 */
static void pmuscope_spe_emit(struct pmuscope_spe_pcpu *sc, struct pmuscope_spe_sess *ss,
			      const void *data, const struct pmuscope_spe_fill *p)
{
	struct pmuscope_spe_chunk ch = { };
	u32 len = p->len, size = ALIGN(sizeof(ch) + len, 8);
	u32 flags = p->flags | sc->carry_flags;
	static const u8 pad[8];
	unsigned long irqflags;
	u64 head, used;
	bool wake;

	raw_spin_lock_irqsave(&ss->lock, irqflags);
	head = ss->head;
	/* Pairs with the reader's smp_store_release() of @tail. */
	used = head - smp_load_acquire(&ss->tail);
	if (size > ss->size - used) {
		raw_spin_unlock_irqrestore(&ss->lock, irqflags);
		raw_spin_lock_irqsave(&sc->lock, irqflags);
		sc->st.lost_ring += len;
		raw_spin_unlock_irqrestore(&sc->lock, irqflags);
		sc->carry_lost += p->lost + len;
		sc->carry_flags |= PMUSCOPE_SPE_C_LOST |
				   (flags & (PMUSCOPE_SPE_C_COLLISION | PMUSCOPE_SPE_C_STOPPED));
		return;
	}
	ch.size = size;
	ch.cpu = sc->cpu;
	ch.time = p->time;
	ch.data_size = len;
	ch.flags = flags | PMUSCOPE_SPE_C_BUSY;
	ch.lost = p->lost + sc->carry_lost;
	pmuscope_spe_ring_put(ss, head, &ch, sizeof(ch));
	if (flags & PMUSCOPE_SPE_C_STOPPED || (flags & PMUSCOPE_SPE_C_FINAL && !p->idle))
		WRITE_ONCE(ss->flush_at, head + size);
	/* Pairs with the reader's smp_load_acquire(): the header, then @head. */
	smp_store_release(&ss->head, head + size);
	raw_spin_unlock_irqrestore(&ss->lock, irqflags);

	pmuscope_spe_ring_put(ss, head + sizeof(ch), data, len);
	pmuscope_spe_ring_put(ss, head + sizeof(ch) + len, pad, size - sizeof(ch) - len);
	/* Commit. Pairs with the reader's smp_load_acquire() of the flags. */
	smp_store_release(pmuscope_spe_ring_flags(ss, head), flags);

	raw_spin_lock_irqsave(&sc->lock, irqflags);
	sc->st.bytes += len;
	raw_spin_unlock_irqrestore(&sc->lock, irqflags);
	sc->carry_lost = 0;
	sc->carry_flags = 0;
	/*
	 * What is in the ring now, other CPUs' chunks too: @head released by
	 * the reservers, then @tail released by the reader.
	 */
	used = smp_load_acquire(&ss->head);
	/* Pairs with the reader's smp_store_release() of @tail. */
	used -= smp_load_acquire(&ss->tail);
	/*
	 * Or at or below the last flush point: chunks commit in any order,
	 * so the last one committed below it wakes the reader, whichever
	 * reserved the flush (a FINAL chunk committed before an earlier
	 * chunk was would otherwise leave the reader asleep at the earlier).
	 */
	wake = used >= ss->wakeup || head + size <= READ_ONCE(ss->flush_at);
	if (wake) {
		atomic_inc(&ss->wakes);
		wake_up_interruptible_poll(&ss->wait, EPOLLIN | EPOLLRDNORM);
	}
}

/* ------------------------------------------------------- on the CPU */

/* Program and enable profiling into a free buffer (arm_spe_pmu_start()'s order). sc->lock held. */
void pmuscope_spe_start_local(struct pmuscope_spe_pcpu *sc)
{
	const struct pmuscope_spe_regs *r = &sc->regs;

	if (sc->busy & BIT(sc->cur))
		sc->cur ^= 1;
	if (sc->busy & BIT(sc->cur))
		return;		/* both busy: the callers wait for the copier */
	pmuscope_hw_write(PMUSCOPE_REG_PMBSR_EL1, 0);
	pmuscope_hw_write(PMUSCOPE_REG_PMBPTR_EL1, (u64)(uintptr_t)sc->buf[sc->cur]);
	pmuscope_hw_write(PMUSCOPE_REG_PMBLIMITR_EL1, sc->pmblimitr[sc->cur]);
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
 * Back from off (idle, offline, waiting) when a buffer is free; else
 * waiting for the copier, which calls this again. sc->lock held, on the CPU.
 */
static void pmuscope_spe_resume_local(struct pmuscope_spe_pcpu *sc)
{
	if (sc->busy == (BIT(0) | BIT(1))) {
		sc->waiting = true;
		return;
	}
	sc->off_ticks += pmuscope_hw_syscnt() - sc->off_since;
	sc->off = false;
	sc->waiting = false;
	pmuscope_spe_start_local(sc);
}

/*
 * A CPU that is off while its session runs (idle, offline, waiting), not
 * stopped by a fault: profiling again, or waiting for a free buffer.
 * sc->lock held, on the CPU.
 */
void pmuscope_spe_resume(struct pmuscope_spe_pcpu *sc)
{
	if (sc->off && sc->online && sc->owner && !sc->faulted &&
	    READ_ONCE(sc->owner->running))
		pmuscope_spe_resume_local(sc);
}

/*
 * SPE_STOP on the CPU: drained and handed over, and stopped for good
 * (until the next attach): the time it was off is folded, and neither an
 * idle exit, a CPU online nor the copier restarts it, though the session
 * still runs until every CPU is stopped and copied. sc->lock held.
 */
void pmuscope_spe_stop_cpu(struct pmuscope_spe_pcpu *sc, unsigned int cpu)
{
	pmuscope_spe_stop_local(sc, cpu, PMUSCOPE_SPE_C_FINAL);
	if (sc->off)
		sc->off_ticks += pmuscope_hw_syscnt() - sc->off_since;
	sc->off = false;
	sc->waiting = false;
}

/*
 * The CPU going offline (its cpuhp callback, on it): drained and off,
 * and not restarted by anything until it is online again, though it may
 * still idle (cpu_pm) on its way down. sc->lock held.
 */
void pmuscope_spe_offline_local(struct pmuscope_spe_pcpu *sc, unsigned int cpu)
{
	if (sc->running) {
		pmuscope_spe_stop_local(sc, cpu, PMUSCOPE_SPE_C_FINAL);
		sc->off = true;
		sc->off_since = pmuscope_hw_syscnt();
	}
	sc->waiting = false;
	sc->online = false;
}

/* The CPU online (its cpuhp callback, on it): its owner's profiling back. sc->lock held. */
void pmuscope_spe_online_local(struct pmuscope_spe_pcpu *sc)
{
	sc->online = true;
	pmuscope_spe_resume(sc);
}

/*
 * Hand buffer @sc->cur over as PMBSR_EL1 says (kept, discarded for DL,
 * kept before a stop for a fault): O(1), the copy is the copier's.
 * Returns the action. sc->lock held, the SPU synchronized (PSB CSYNC,
 * DSB NSH, ISB) and stopped.
 */
static enum pmuscope_spe_act pmuscope_spe_hand_over(struct pmuscope_spe_pcpu *sc,
						    u64 pmbsr, u32 flags, u64 now)
{
	enum pmuscope_spe_act act = pmuscope_spe_decode(pmbsr);
	u64 base = (u64)(uintptr_t)sc->buf[sc->cur];
	u64 ptr = pmuscope_hw_read(PMUSCOPE_REG_PMBPTR_EL1);
	struct pmuscope_spe_fill *p;
	bool dl = false;
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
		dl = true;
		break;
	case PMUSCOPE_SPE_ACT_FAULT:
		dl = pmbsr & PMUSCOPE_PMBSR_DL;
		sc->st.pmbsr = pmbsr;
		sc->faulted = true;
		flags |= PMUSCOPE_SPE_C_STOPPED;
		pr_err_ratelimited("cpu%u: SPE profiling stopped by a fault [PMBSR_EL1=0x%016llx, PMBPTR_EL1=0x%016llx]\n",
				   sc->cpu, pmbsr, ptr);
		break;
	}
	if (dl) {
		sc->st.dl_events++;
		sc->st.lost_dl += len;
		sc->lost_pending += len;
		sc->flags_pending |= PMUSCOPE_SPE_C_LOST;
		len = 0;
	}
	/*
	 * Nothing to hand over: the buffer stays free, and what is pending
	 * (a discard's LOST) goes with the next chunk. At a power-down an
	 * empty buffer is not news either (its FINAL would wake the reader
	 * for nothing).
	 */
	if (!len && !(sc->in_idle ? flags & ~PMUSCOPE_SPE_C_FINAL : flags))
		return act;
	flags |= sc->flags_pending;
	p = &sc->pend[sc->cur];
	p->len = len;
	p->flags = flags;
	p->lost = sc->lost_pending;
	p->time = now;
	p->idle = sc->in_idle;
	sc->lost_pending = 0;
	sc->flags_pending = 0;
	if (!sc->busy)
		sc->oldest = sc->cur;
	sc->busy |= BIT(sc->cur);
	return act;
}

/* Disable and drain (arm_spe_pmu_disable_and_drain_local()). sc->lock held. */
static void pmuscope_spe_disable_drain(void)
{
	pmuscope_hw_write(PMUSCOPE_REG_PMSCR_EL1, 0);
	pmuscope_hw_isb();
	pmuscope_hw_psb_csync();
	pmuscope_hw_dsb_nsh();
	pmuscope_hw_write(PMUSCOPE_REG_PMBLIMITR_EL1, 0);
	pmuscope_hw_isb();
}

/*
 * Disable and drain, then hand over what the buffer holds: a stop, idle,
 * offline. The copy is left to the caller (pmuscope_spe_copy(), or the
 * worker queued at the power-up). sc->lock held.
 */
void pmuscope_spe_stop_local(struct pmuscope_spe_pcpu *sc, unsigned int cpu, u32 flags)
{
	u64 pmbsr;

	sc->waiting = false;
	if (!sc->running)
		return;
	pmuscope_spe_disable_drain();
	pmbsr = pmuscope_hw_read(PMUSCOPE_REG_PMBSR_EL1);
	pmuscope_spe_hand_over(sc, pmbsr, flags, pmuscope_hw_syscnt());
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
	pmuscope_spe_disable_drain();
	pmuscope_hw_write(PMUSCOPE_REG_PMBPTR_EL1, 0);
	pmuscope_hw_isb();
	pmuscope_hw_write(PMUSCOPE_REG_PMBSR_EL1, 0);
	pmuscope_hw_isb();
}

/*
 * Reboot or kexec: no SPU may write into memory the next kernel owns.
 * Drained, then reset; the CPU's unit stays off. What was drained is
 * not copied (nobody reads it now). sc->lock held.
 */
void pmuscope_spe_reboot_local(struct pmuscope_spe_pcpu *sc, unsigned int cpu)
{
	pmuscope_spe_stop_local(sc, cpu, PMUSCOPE_SPE_C_FINAL);
	sc->faulted = true;	/* never restarted: not by idle exit, not by online */
	pmuscope_spe_reset_local(sc);
}

/*
 * PMBIRQ on this CPU (hard IRQ): O(1) whatever the buffer's size. The
 * full buffer is handed over to the copier (queued on this CPU) and the
 * SPU resumes in the other one; if that one is still being copied,
 * profiling stays off until the copier frees it (stopped time). Returns
 * IRQ_NONE for a spurious one (PMBSR_EL1.S = 0), which is counted;
 * PMBSR_EL1 is always left clear.
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
	act = pmuscope_spe_hand_over(sc, pmbsr, 0, t0);
	if (sc->busy & BIT(sc->cur))
		sc->cur ^= 1;
	if (act == PMUSCOPE_SPE_ACT_FAULT || (sc->busy & BIT(sc->cur))) {
		/*
		 * A fault, or no free buffer: off (arm_spe_pmu: limit 0,
		 * TRUNCATED). Disabled and drained first, the buffer's
		 * disable synchronized by an ISB (D17.9), and only then the
		 * syndrome cleared, as arm_spe_pmu_irq_handler() does for a
		 * fatal fault: PMBSR_EL1.S = 0 with the buffer still enabled
		 * would let the SPU resume.
		 */
		pmuscope_spe_disable_drain();
		pmuscope_hw_write(PMUSCOPE_REG_PMBSR_EL1, 0);
		pmuscope_hw_isb();
		sc->running = false;
		sc->off = true;
		sc->off_since = t0;
		sc->waiting = act != PMUSCOPE_SPE_ACT_FAULT;
	} else {
		/* The free buffer: pointer and limit, then clear S (resumes). */
		pmuscope_hw_write(PMUSCOPE_REG_PMBPTR_EL1, (u64)(uintptr_t)sc->buf[sc->cur]);
		pmuscope_hw_write(PMUSCOPE_REG_PMBLIMITR_EL1, sc->pmblimitr[sc->cur]);
		pmuscope_hw_isb();
		pmuscope_hw_write(PMUSCOPE_REG_PMBSR_EL1, 0);
		pmuscope_hw_isb();
		/* Ticks here, ns at SPE_STATUS: no division in the handler. */
		sc->off_ticks += pmuscope_hw_syscnt() - t0;
	}
	if (sc->busy)
		queue_work_on(cpu, system_highpri_wq, &sc->work);
	raw_spin_unlock(&sc->lock);
	return IRQ_HANDLED;
}

/* cpu_pm: the unit's state is lost in a power-down; drain before, restart after. */
void pmuscope_spe_pm(struct pmuscope_spe_pcpu *sc, unsigned int cpu, bool enter)
{
	raw_spin_lock(&sc->lock);
	if (enter) {
		sc->waiting = false;
		if (sc->running) {
			/* Drained, but nothing queued: that would abort the idle state. */
			sc->in_idle = true;
			pmuscope_spe_stop_local(sc, cpu, PMUSCOPE_SPE_C_FINAL);
			sc->in_idle = false;
			sc->off = true;
			sc->off_since = pmuscope_hw_syscnt();
		}
	} else {
		/* What was drained on the way down: copied now. */
		if (sc->busy)
			queue_work_on(cpu, system_highpri_wq, &sc->work);
		pmuscope_spe_resume(sc);
	}
	raw_spin_unlock(&sc->lock);
}

/* ------------------------------------------------------------ the copier */

/*
 * Copy every handed-over buffer of @sc into its session's ring, oldest
 * first, freeing each; restart profiling that waited for a free buffer
 * when run on its CPU. Process context: the worker the PMBIRQ queues on
 * the CPU, STOP and CPU offline (anywhere). The PMBIRQ never waits for
 * this, so the copy's length costs no interrupt latency.
 */
void pmuscope_spe_copy(struct pmuscope_spe_pcpu *sc)
{
	struct pmuscope_spe_sess *ss;
	struct pmuscope_spe_fill p;
	unsigned long flags;
	unsigned int i;
	void *data;

	mutex_lock(&sc->copy_lock);
	for (;;) {
		raw_spin_lock_irqsave(&sc->lock, flags);
		if (!sc->busy || !sc->owner) {
			raw_spin_unlock_irqrestore(&sc->lock, flags);
			break;
		}
		i = sc->busy == (BIT(0) | BIT(1)) ? sc->oldest : __ffs(sc->busy);
		p = sc->pend[i];
		ss = sc->owner;
		data = sc->buf[i];
		raw_spin_unlock_irqrestore(&sc->lock, flags);

		pmuscope_spe_emit(sc, ss, data, &p);

		raw_spin_lock_irqsave(&sc->lock, flags);
		sc->busy &= ~BIT(i);
		sc->oldest = i ^ 1;
		if (sc->waiting && sc->owner == ss && READ_ONCE(ss->running) &&
		    smp_processor_id() == sc->cpu)
			pmuscope_spe_resume_local(sc);
		raw_spin_unlock_irqrestore(&sc->lock, flags);
	}
	mutex_unlock(&sc->copy_lock);
}

static void pmuscope_spe_copy_work(struct work_struct *work)
{
	pmuscope_spe_copy(container_of(work, struct pmuscope_spe_pcpu, work));
}

/* Once per CPU slot, before any session. */
void pmuscope_spe_pcpu_init(struct pmuscope_spe_pcpu *sc, unsigned int cpu)
{
	sc->cpu = cpu;
	raw_spin_lock_init(&sc->lock);
	mutex_init(&sc->copy_lock);
	INIT_WORK(&sc->work, pmuscope_spe_copy_work);
}

/*
 * @sc profiles for @ss with @regs: its two buffers, their limits, the
 * accounting anew. -EINVAL if a buffer cannot be programmed (checked
 * once here, not in the PMBIRQ). sc->lock held, @sc idle.
 */
int pmuscope_spe_attach(struct pmuscope_spe_pcpu *sc, struct pmuscope_spe_sess *ss,
			const struct pmuscope_spe_regs *regs)
{
	u8 *base = ss->bufs[sc->cpu];
	unsigned int i;
	u64 ptr;

	for (i = 0; i < 2; i++) {
		sc->buf[i] = base + (size_t)i * ss->buf_size;
		if (pmuscope_spe_buffer_regs(sc, (u64)(uintptr_t)sc->buf[i], ss->buf_size,
					     &ptr, &sc->pmblimitr[i]))
			return -EINVAL;
		sc->pmblimitr[i] &= ~PMUSCOPE_PMBLIMITR_FM;
		sc->pmblimitr[i] |= FIELD_PREP(PMUSCOPE_PMBLIMITR_FM, regs->fm);
	}
	sc->owner = ss;
	sc->regs = *regs;
	sc->buf_size = ss->buf_size;
	sc->cur = 0;
	sc->busy = 0;
	sc->faulted = false;
	sc->waiting = false;
	sc->off = true;
	sc->off_since = pmuscope_hw_syscnt();
	sc->lost_pending = 0;
	sc->flags_pending = 0;
	sc->carry_lost = 0;
	sc->carry_flags = 0;
	memset(&sc->st, 0, sizeof(sc->st));
	sc->off_ticks = 0;
	sc->st.cpu = sc->cpu;
	return 0;
}

/* ------------------------------------------------- a session's memory */

/*
 * The session's memory (the ring and every CPU's two profiling buffers,
 * which stay allocated and unswappable while it exists) charged to the
 * starter's locked memory as perf charges its AUX pages (perf_mmap()'s
 * rule: pmuscope_mlock_charge(), as a stream's ring): the user's
 * kernel.perf_event_mlock_kb, then the mm's RLIMIT_MEMLOCK; CAP_IPC_LOCK
 * or kernel.perf_event_paranoid -1 exempts. Before anything is
 * allocated: a caller over its limit costs no allocation. -EPERM above
 * the limit. Process context, no lock held (reads sysctl files).
 */
int pmuscope_spe_charge(struct pmuscope_spe_sess *ss)
{
	unsigned long pages = PFN_UP(ss->size) +
			      PFN_UP(2UL * ss->buf_size) * cpumask_weight(ss->cpus);
	struct pmuscope_mlock_sysctl s;

	pmuscope_mlock_sysctl(&s);
	return pmuscope_mlock_charge(&ss->mlock, pages, &s, "SPE buffers");
}

void pmuscope_spe_free(struct pmuscope_spe_sess *ss)
{
	unsigned int cpu;

	if (!ss)
		return;
	pmuscope_mlock_uncharge(&ss->mlock);
	if (ss->bufs) {
		for_each_possible_cpu(cpu) {
			if (!ss->bufs[cpu])
				continue;
			pmuscope_hw_spe_buffer(cpu, ss->bufs[cpu], 2 * (size_t)ss->buf_size, false);
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
 * (pmuscope_spe_charge(): -EPERM over its locked-memory limit, nothing
 * allocated). ERR_PTR on failure.
 */
struct pmuscope_spe_sess *pmuscope_spe_alloc(const struct pmuscope_spe_config *c,
					     const struct cpumask *cpus)
{
	struct pmuscope_spe_sess *ss = kzalloc(sizeof(*ss), GFP_KERNEL);
	size_t two;
	unsigned int cpu;
	int ret = -ENOMEM;

	if (!ss)
		return ERR_PTR(-ENOMEM);
	ss->cfg = *c;
	raw_spin_lock_init(&ss->lock);
	init_waitqueue_head(&ss->wait);
	mutex_init(&ss->read_lock);
	ss->size = (c->buffer_kib ?: PMUSCOPE_SPE_KIB_DEFAULT) * 1024;
	ss->buf_size = (c->hw_kib ?: PMUSCOPE_SPE_HW_KIB_DEFAULT) * 1024;
	ss->wakeup = max_t(u32, c->wakeup_kib * 1024, 1);
	ss->freq = pmuscope_hw_syscnt_freq();
	two = 2 * (size_t)ss->buf_size;
	if (!zalloc_cpumask_var(&ss->cpus, GFP_KERNEL))
		goto err;
	cpumask_copy(ss->cpus, cpus);
	/* Logs why not (the limits) itself. */
	ret = pmuscope_spe_charge(ss);
	if (ret)
		goto err;
	ret = -ENOMEM;
	ss->data = vzalloc(ss->size);
	ss->bufs = kcalloc(nr_cpu_ids, sizeof(*ss->bufs), GFP_KERNEL);
	if (!ss->data || !ss->bufs)
		goto err;
	for_each_cpu(cpu, ss->cpus) {
		/*
		 * Zeroed, as perf's AUX pages (__GFP_ZERO): whatever the SPU
		 * did not write, up to a record's end, reaches the reader as
		 * it is.
		 */
		ss->bufs[cpu] = vzalloc(two);
		if (!ss->bufs[cpu])
			goto err;
		if (pmuscope_hw_spe_buffer(cpu, ss->bufs[cpu], two, true)) {
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

/*
 * Whether the chunk at @tail is there and committed (its copier done).
 * The reader's side: @head read with acquire first.
 */
static bool pmuscope_spe_ready(struct pmuscope_spe_sess *ss, u64 tail)
{
	/* Pairs with smp_store_release() of @head in pmuscope_spe_emit(). */
	if (smp_load_acquire(&ss->head) == tail)
		return false;
	/* Pairs with the commit's smp_store_release() of the flags. */
	return !(smp_load_acquire(pmuscope_spe_ring_flags(ss, tail)) & PMUSCOPE_SPE_C_BUSY);
}

static bool pmuscope_spe_readable(struct pmuscope_spe_sess *ss)
{
	/* Pairs with smp_store_release() of @head in pmuscope_spe_emit(). */
	u64 tail = ss->tail, avail = smp_load_acquire(&ss->head) - tail;

	return pmuscope_spe_ready(ss, tail) &&
	       (avail >= ss->wakeup || tail < READ_ONCE(ss->flush_at) ||
		!READ_ONCE(ss->running));
}

/*
 * Whole committed chunks, as many as fit in @len; -ENOSPC if the first
 * does not fit, as a stream's read() (Documentation/ioctl.rst); 0 at the
 * end of a stopped session (STOP has copied everything by then).
 */
ssize_t pmuscope_spe_read(struct pmuscope_spe_sess *ss, char __user *ubuf, size_t len,
			  bool nonblock)
{
	ssize_t done = 0;
	u64 tail;
	int ret;

	if (mutex_lock_interruptible(&ss->read_lock))
		return -ERESTARTSYS;
	tail = ss->tail;
	for (;;) {
		if (pmuscope_spe_ready(ss, tail) || !READ_ONCE(ss->running))
			break;
		if (nonblock) {
			mutex_unlock(&ss->read_lock);
			return -EAGAIN;
		}
		ret = wait_event_interruptible(ss->wait, pmuscope_spe_ready(ss, tail) ||
					       !READ_ONCE(ss->running));
		if (ret) {
			mutex_unlock(&ss->read_lock);
			return ret;
		}
	}
	while (pmuscope_spe_ready(ss, tail)) {
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
