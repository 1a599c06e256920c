// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: streams, records of a session read with read() and poll().
 *
 * A record is made on a CPU of the session, in hard-IRQ context with the
 * CPU's pmu->lock held: by the overflow interrupt of the session's
 * sampling counter (event-based: every sample_period events, the PC and
 * thread the interrupt found), or by the CPU's stream timer (time-based:
 * every period_ms). Its counts are a snapshot of the session's counters
 * on that CPU (pmuscope_pmu_snapshot(): taken together). Records go into
 * one ring per session; a record that does not fit is dropped and
 * counted, and a LOST record with the number dropped is written as soon
 * as there is room: by the next writer that finds room for it and its
 * own record, or by the reader once it has taken records out, so a drop
 * is reported even if no record follows it. A THROTTLED record that does
 * not fit is held (per CPU), never dropped, and written after the LOST
 * record likewise. An NMI writer (the perf backend's overflow handler
 * under pseudo-NMI) only tries the ring's lock: pmuscope_ring_write_nmi().
 * Waking the reader is deferred to an irq_work (a wait queue's lock may
 * not be taken under a raw spinlock); what the reader writes itself needs
 * no wakeup.
 */

#include <linux/hardirq.h>
#include <linux/irq_work.h>
#include <linux/ktime.h>
#include <linux/poll.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/irq_regs.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"

#define PMUSCOPE_REC_HDR	sizeof(struct pmuscope_record)

static void pmuscope_ring_wake(struct irq_work *work)
{
	struct pmuscope_ring *r = container_of(work, struct pmuscope_ring, work);

	wake_up_interruptible(&r->wait);
}

struct pmuscope_ring *pmuscope_ring_alloc(u32 kib)
{
	struct pmuscope_ring *r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);

	if (!r)
		return NULL;
	r->size = kib * 1024;
	/* No allocation-failure splat: STREAM says ENOMEM. */
	r->buf = __vmalloc(r->size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	r->held = kcalloc(nr_cpu_ids, sizeof(*r->held), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!r->buf || !r->held) {
		vfree(r->buf);
		kfree(r->held);
		kfree(r);
		return NULL;
	}
	raw_spin_lock_init(&r->lock);
	mutex_init(&r->read_lock);
	init_waitqueue_head(&r->wait);
	init_irq_work(&r->work, pmuscope_ring_wake);
	return r;
}

/* No writer may be left: the session's sampling and timer are stopped. */
void pmuscope_ring_free(struct pmuscope_ring *r)
{
	if (!r)
		return;
	irq_work_sync(&r->work);
	mutex_destroy(&r->read_lock);
	vfree(r->buf);
	pmuscope_mlock_uncharge(&r->mlock);
	kfree(r->held);
	kfree(r);
}

/* Copy @len bytes to ring offset @pos (modulo its size). r->lock held. */
static void pmuscope_ring_put(struct pmuscope_ring *r, u64 pos, const void *src, u32 len)
{
	u32 off = pos & (r->size - 1);
	u32 first = min(len, r->size - off);

	memcpy(r->buf + off, src, first);
	memcpy(r->buf, src + first, len - first);
}

/* Bytes free in the ring. r->lock held. */
static u64 pmuscope_ring_room(struct pmuscope_ring *r)
{
	return r->size - (r->head - r->tail);
}

/* Bytes of the records pending: the LOST record, those held. r->lock held. */
static u64 pmuscope_ring_pending(struct pmuscope_ring *r)
{
	return ((r->lost ? 1 : 0) + (u64)r->nr_held) * PMUSCOPE_REC_HDR;
}

/* Something to read, in the ring or pending. Without r->lock. */
static bool pmuscope_ring_readable(struct pmuscope_ring *r)
{
	return READ_ONCE(r->head) != READ_ONCE(r->tail) || READ_ONCE(r->lost) ||
	       READ_ONCE(r->nr_held) || atomic_long_read(&r->nmi_lost);
}

/*
 * The records NMI writers dropped (pmuscope_ring_write_nmi()) join the
 * others: one LOST record says them all, with the CPU and time of the
 * latest drop. r->lock held.
 */
static void pmuscope_ring_take_nmi_lost(struct pmuscope_ring *r)
{
	u64 t;
	long n;

	/* A plain read first: the exchange only when an NMI dropped one. */
	if (likely(!atomic_long_read(&r->nmi_lost)))
		return;
	n = atomic_long_xchg(&r->nmi_lost, 0);
	t = READ_ONCE(r->nmi_lost_time);
	if (!n)
		return;
	if (!r->lost || t >= r->lost_time) {
		r->lost_time = t;
		r->lost_cpu = READ_ONCE(r->nmi_lost_cpu);
	}
	r->lost += n;
	r->lost_total += n;
}

/*
 * Write what is pending, as much as there is room for, in order: the LOST
 * record (the CPU and time of the last record dropped), then the
 * THROTTLED records held, CPU by CPU. Returns true if it wrote any.
 * r->lock held.
 */
static bool pmuscope_ring_flush(struct pmuscope_ring *r)
{
	struct pmuscope_record lost = {
		.type = PMUSCOPE_REC_LOST, .size = PMUSCOPE_REC_HDR,
	};
	u64 room;
	bool wrote = false;
	unsigned int cpu;

	pmuscope_ring_take_nmi_lost(r);
	room = pmuscope_ring_room(r);
	if (r->lost) {
		if (room < PMUSCOPE_REC_HDR)
			return false;
		lost.cpu = r->lost_cpu;
		lost.time = r->lost_time;
		lost.value = r->lost;
		pmuscope_ring_put(r, r->head, &lost, PMUSCOPE_REC_HDR);
		r->head += PMUSCOPE_REC_HDR;
		room -= PMUSCOPE_REC_HDR;
		r->lost = 0;
		wrote = true;
	}
	for (cpu = 0; r->nr_held && cpu < nr_cpu_ids; cpu++) {
		struct pmuscope_ring_held *h = &r->held[cpu];

		while (h->count) {
			if (room < PMUSCOPE_REC_HDR)
				return wrote;
			pmuscope_ring_put(r, r->head, &h->rec, PMUSCOPE_REC_HDR);
			r->head += PMUSCOPE_REC_HDR;
			room -= PMUSCOPE_REC_HDR;
			h->count--;
			r->nr_held--;
			r->records++;
			wrote = true;
		}
	}
	return wrote;
}

/*
 * Append one record of @len bytes (a multiple of 8) after what is
 * pending, if all of it fits; else a THROTTLED record is held and any
 * other is dropped and counted. Returns true if the reader must be woken.
 * r->lock held.
 */
static bool pmuscope_ring_append(struct pmuscope_ring *r, const struct pmuscope_record *rec,
				 u32 len)
	__must_hold(&r->lock)
{
	bool wake = false;

	/* Before the room is measured: the LOST record of NMI drops is pending too. */
	pmuscope_ring_take_nmi_lost(r);
	if (pmuscope_ring_room(r) >= pmuscope_ring_pending(r) + len) {
		/* LOST and THROTTLED records wake the reader. */
		if (unlikely(r->lost || r->nr_held))
			wake = pmuscope_ring_flush(r);
		pmuscope_ring_put(r, r->head, rec, len);
		r->head += len;
		r->records++;
		/* At the watermark: a reader per record would cost more than the record. */
		wake |= r->head - r->tail >= READ_ONCE(r->wakeup) ||
			rec->type != PMUSCOPE_REC_SAMPLE;
	} else if (rec->type == PMUSCOPE_REC_THROTTLED && len == PMUSCOPE_REC_HDR &&
		   rec->cpu < nr_cpu_ids) {
		/* Not a sample: the reader must learn that sampling stopped. */
		struct pmuscope_ring_held *h = &r->held[rec->cpu];

		if (!h->count++)
			h->rec = *rec;
		r->nr_held++;
	} else {
		r->lost++;
		r->lost_total++;
		r->lost_cpu = rec->cpu;
		r->lost_time = rec->time;
	}
	return wake;
}

/*
 * pmuscope_ring_write() in NMI context: the perf backend's overflow
 * handler, when the PMU interrupt is a pseudo-NMI (arm64
 * irqchip.gicv3_pseudo_nmi=1). The NMI may have interrupted this CPU's
 * holder of r->lock (a writer in hard IRQ, or the reader), which cannot
 * release it before the NMI returns: spinning would deadlock. So the lock
 * is only tried; if it is taken (here or, briefly, on another CPU) the
 * record is dropped and counted in r->nmi_lost, without the lock, and
 * the next holder of the lock reports it in a LOST record with the
 * others (a THROTTLED record dropped so is counted likewise: it cannot
 * be held without the lock). irq_work_queue() is NMI-safe: the reader
 * learns of the drop even if no record follows.
 */
void pmuscope_ring_write_nmi(struct pmuscope_ring *r, const struct pmuscope_record *rec,
			     u32 len)
{
	bool wake;

	if (!raw_spin_trylock(&r->lock)) {
		WRITE_ONCE(r->nmi_lost_cpu, rec->cpu);
		WRITE_ONCE(r->nmi_lost_time, rec->time);
		atomic_long_inc(&r->nmi_lost);
		irq_work_queue(&r->work);
		return;
	}
	wake = pmuscope_ring_append(r, rec, len);
	raw_spin_unlock(&r->lock);
	if (wake)
		irq_work_queue(&r->work);
}

/*
 * Append one record (pmuscope_ring_append()). Any context: takes r->lock
 * with IRQs off, or in NMI only tries it (pmuscope_ring_write_nmi()).
 */
void pmuscope_ring_write(struct pmuscope_ring *r, const struct pmuscope_record *rec,
			 u32 len)
{
	unsigned long flags;
	bool wake;

	if (in_nmi()) {
		pmuscope_ring_write_nmi(r, rec, len);
		return;
	}
	raw_spin_lock_irqsave(&r->lock, flags);
	wake = pmuscope_ring_append(r, rec, len);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	if (wake)
		irq_work_queue(&r->work);
}

/* Bytes of whole records from the tail that fit in @len. r->lock held. */
static u32 pmuscope_ring_whole(struct pmuscope_ring *r, size_t len)
{
	u64 pos = r->tail;
	u32 n = 0;

	while (pos < r->head) {
		u16 size;
		u32 off = pos & (r->size - 1);

		/* The size field never straddles the end: records are 8-aligned. */
		memcpy(&size, r->buf + off + offsetof(struct pmuscope_record, size),
		       sizeof(size));
		if (n + size > len)
			break;
		n += size;
		pos += size;
	}
	return n;
}

/*
 * read(): whole records, at least one, into @ubuf. Blocks while the ring
 * is empty and nothing is pending unless @nonblock (-EAGAIN). -ENOSPC:
 * @len is below the next record's size. One reader at a time: the bytes
 * between the tail and the head are the reader's alone (writers only add
 * beyond the head), so they are copied out without the ring's lock.
 * What is pending is written into the ring on the way in and once the
 * records read have made room: a drop no later record reports, or a
 * THROTTLED record held, comes with the next read() (no wakeup needed,
 * the reader is here; poll() says readable meanwhile).
 */
ssize_t pmuscope_ring_read(struct pmuscope_ring *r, char __user *ubuf, size_t len,
			   bool nonblock)
{
	unsigned long flags;
	u32 n, off, first;
	u64 tail;
	int ret;

	if (mutex_lock_interruptible(&r->read_lock))
		return -ERESTARTSYS;
	for (;;) {
		raw_spin_lock_irqsave(&r->lock, flags);
		pmuscope_ring_flush(r);
		tail = r->tail;
		n = pmuscope_ring_whole(r, len);
		ret = r->head == r->tail ? 0 : n ? 1 : -ENOSPC;
		raw_spin_unlock_irqrestore(&r->lock, flags);
		if (ret)
			break;
		ret = -EAGAIN;
		if (nonblock)
			goto out;
		ret = wait_event_interruptible(r->wait, pmuscope_ring_readable(r));
		if (ret)
			goto out;
	}
	if (ret < 0)
		goto out;
	off = tail & (r->size - 1);
	first = min(n, r->size - off);
	ret = -EFAULT;
	if (copy_to_user(ubuf, r->buf + off, first) ||
	    copy_to_user(ubuf + first, r->buf, n - first))
		goto out;
	raw_spin_lock_irqsave(&r->lock, flags);
	r->tail += n;
	pmuscope_ring_flush(r);
	raw_spin_unlock_irqrestore(&r->lock, flags);
	ret = n;
out:
	mutex_unlock(&r->read_lock);
	return ret;
}

/* Readable while records are in the ring or pending (read() writes them). */
__poll_t pmuscope_ring_poll(struct pmuscope_ring *r, struct file *file, poll_table *pt)
{
	poll_wait(file, &r->wait, pt);
	return pmuscope_ring_readable(r) ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * Where a sample of @sess found the CPU (@regs, NULL: nowhere) and which
 * task ran (@task) into @rec. A session that counts EL0 only
 * (!kernel_pcs) learns nothing of the kernel, as perf's exclude_kernel
 * events: a sample taken in the kernel (a time-based record, or an
 * overflow whose interrupt came after the exception entry) gets no PC, and
 * the task only when it is a user task (the one that entered the kernel).
 */
void pmuscope_stream_where(const struct pmuscope_session *sess, struct pt_regs *regs,
			   struct task_struct *task, struct pmuscope_record *rec)
{
	bool user = regs && user_mode(regs);

	if (user) {
		rec->pc = instruction_pointer(regs);
		rec->flags |= PMUSCOPE_REC_F_USER;
	} else if (regs && sess->kernel_pcs) {
		rec->pc = instruction_pointer(regs);
	}
	if (is_idle_task(task) ||
	    (!user && !sess->kernel_pcs && (task->flags & PF_KTHREAD)))
		return;
	rec->pid = task_tgid_nr(task);
	rec->tid = task_pid_nr(task);
}

/*
 * One record of @sess on this CPU: its counts taken together, and where
 * the interrupt (@regs, NULL: none) found the CPU. @time: the system
 * counter a record of one count or none is dated by (0: read it now);
 * several counts are dated by their snapshot. Hard IRQ, pmu->lock.
 */
void pmuscope_stream_emit(struct pmuscope_pmu *pmu, struct pmuscope_session *sess,
			  u8 *hw, struct pt_regs *regs, u16 type, u32 flags, u64 time)
{
	struct pmuscope_record *rec = (struct pmuscope_record *)pmu->rec;
	struct pmuscope_snap_cpu sc;
	u32 i, nr = type == PMUSCOPE_REC_SAMPLE ? sess->nr_events : 0;
	u64 *counts = (u64 *)(rec + 1);

	if (!sess->ring)
		return;
	/* Six stores of the 48-byte header, not a call of memset() and five more. */
	*rec = (struct pmuscope_record){
		.type = type, .size = PMUSCOPE_REC_HDR + nr * sizeof(u64), .cpu = pmu->cpu,
		.flags = flags, .nr = nr,
	};
	if (nr == 1) {
		/*
		 * One counter is consistent alone: READ's path, without the
		 * stop and start that keep several together (half the cost).
		 */
		pmuscope_pmu_read(pmu, hw, 1, ktime_get_ns(), pmu->scratch);
		rec->time = time ?: pmuscope_hw_syscnt();
		counts[0] = pmu->scratch[0].count;
	} else if (nr) {
		pmuscope_pmu_snapshot(pmu, hw, nr, sess->hw_mask[pmu->cpu], 0, 0, ktime_get_ns(),
				      pmu->scratch, &sc);
		rec->time = sc.time;
		for (i = 0; i < nr; i++)
			counts[i] = pmu->scratch[i].count;
	} else {
		rec->time = time ?: pmuscope_hw_syscnt();
	}
	if (type == PMUSCOPE_REC_SAMPLE)
		pmuscope_stream_put_sample(sess, rec, regs);
	else
		pmuscope_ring_write(sess->ring, rec, rec->size);
}

/*
 * Finish SAMPLE record @rec of @sess, its header and counts made (@size
 * covers them), in a buffer of PMUSCOPE_REC_MAX_WORDS words: where the
 * interrupt (@regs, NULL: none) found the CPU and which task ran, its
 * call chain if the stream asked for them (after the counts, @size grown
 * to cover it), and write it to the session's ring. Both backends'
 * overflow handlers and the stream timer end here. Hard IRQ (or NMI),
 * IRQs off.
 */
void pmuscope_stream_put_sample(struct pmuscope_session *sess, struct pmuscope_record *rec,
				struct pt_regs *regs)
{
	u32 room = PMUSCOPE_REC_MAX_WORDS * 8 - sizeof(struct pmuscope_rec_chain) -
		   PMUSCOPE_STACK_MAX * 8;

	pmuscope_stream_where(sess, regs, current, rec);
	/* After the counts, with room for the longest chain. */
	if ((READ_ONCE(sess->stream_flags) & PMUSCOPE_STREAM_F_CALLCHAIN) &&
	    !WARN_ON_ONCE(rec->size > room)) {
		rec->size += pmuscope_chain_record(regs, sess->kernel_pcs,
						   READ_ONCE(sess->max_stack),
						   (void *)rec + rec->size);
		rec->flags |= PMUSCOPE_REC_F_CHAIN;
	}
	pmuscope_ring_write(sess->ring, rec, rec->size);
}

/*
 * The overflow interrupt's records, one for each sampling counter in
 * @sampled (pmuscope_pmu_overflow()): a SAMPLE, or, for a counter whose
 * interrupt was just throttled (its overflow over the window's share,
 * no sample), a THROTTLED record. Hard IRQ, pmu->lock.
 */
void pmuscope_stream_samples(struct pmuscope_pmu *pmu, unsigned long sampled)
{
	struct pt_regs *regs = get_irq_regs();
	unsigned long idx;

	for_each_set_bit(idx, &sampled, PMUSCOPE_NR_COUNTERS) {
		struct pmuscope_hwc *hwc = &pmu->hwc[idx];
		struct pmuscope_session *sess = READ_ONCE(hwc->owner);
		u8 *hw;

		if (!sess || !hwc->sample_period)
			continue;
		hw = &sess->hw[pmu->cpu * PMUSCOPE_MAX_EVENTS];
		/* Dated by the interrupt's entry (pmuscope_pmu_overflow()). */
		if (hwc->irq_off)
			pmuscope_stream_emit(pmu, sess, hw, NULL, PMUSCOPE_REC_THROTTLED, 0,
					     pmu->irq_entry);
		else
			pmuscope_stream_emit(pmu, sess, hw, regs, PMUSCOPE_REC_SAMPLE, 0,
					     pmu->irq_entry);
	}
}

/* The CPU's stream timer: a time-based record of its stream session. */
enum hrtimer_restart pmuscope_stream_timer(struct hrtimer *timer)
{
	struct pmuscope_pmu *pmu = container_of(timer, struct pmuscope_pmu, stream_timer);
	struct pmuscope_session *sess;
	enum hrtimer_restart ret = HRTIMER_NORESTART;

	raw_spin_lock(&pmu->lock);
	sess = pmu->stream_sess;
	if (sess && pmu->hw_ready) {
		pmuscope_stream_emit(pmu, sess, &sess->hw[pmu->cpu * PMUSCOPE_MAX_EVENTS],
				     get_irq_regs(), PMUSCOPE_REC_SAMPLE, PMUSCOPE_REC_F_TIMER, 0);
		hrtimer_forward_now(timer, ns_to_ktime(pmu->stream_ns));
		ret = HRTIMER_RESTART;
	}
	raw_spin_unlock(&pmu->lock);
	return ret;
}

/*
 * On the CPU, pmu->lock held: time-based records of @sess every @ns here
 * (@sess NULL: none). The timer is pinned to this CPU: it cannot be
 * running elsewhere while we hold the lock with IRQs off.
 */
void pmuscope_stream_set_timer(struct pmuscope_pmu *pmu, struct pmuscope_session *sess,
			       u64 ns)
{
	pmu->stream_sess = sess;
	pmu->stream_ns = ns;
	hrtimer_try_to_cancel(&pmu->stream_timer);
	if (sess && pmu->hw_ready)
		hrtimer_start(&pmu->stream_timer, ns_to_ktime(ns), HRTIMER_MODE_REL_PINNED_HARD);
}
