// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: call chains of SAMPLE records (PMUSCOPE_STREAM_F_CALLCHAIN).
 *
 * Made in the overflow interrupt or the stream timer (hard IRQ; NMI on a
 * pseudo-NMI kernel), for the task the interrupt found (current): never
 * a fault, never a sleep, a bounded number of reads. A chain is:
 *
 *  - kernel frames, only for a sample taken in the kernel and only for a
 *    session that may see kernel addresses (else none, and
 *    PMUSCOPE_CHAIN_F_KERNEL_HIDDEN): the interrupted PC, then the return
 *    addresses of the kernel's frame records from its x29, read with
 *    copy_from_kernel_nofault() and only within the stack the walk starts
 *    on (the task's, or the one this interrupt runs on): a frame on
 *    another stack (an interrupt handler's frames lead from the IRQ stack
 *    to the task's) ends the walk;
 *  - user frames, for a user task: its user PC (where it was interrupted,
 *    or where it entered the kernel: task_pt_regs()), then the return
 *    addresses of its AAPCS64 frame records from its x29, read with
 *    unprivileged loads under pagefault_disable() (no fault, as
 *    copy_from_user_nofault()). An AArch32 task's chain is its PC alone.
 *
 * Both walks follow perf's arm64 user_backtrace(): a frame pointer of 0
 * ends the walk, one not 8-byte aligned ends it, each record's return
 * address is kept (pointer-authentication bits stripped) and then the
 * next frame must be higher on the stack, so no walk can loop. Beyond
 * perf: a zero return address (the outermost record) ends the walk
 * without being kept, and a misaligned, unreadable or descending frame
 * of the user walk sets PMUSCOPE_CHAIN_F_USER_END. max_stack bounds the
 * kernel and user frames together; a walk that met a frame it had no
 * room for sets PMUSCOPE_CHAIN_F_TRUNCATED.
 */

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>
#include <asm/compiler.h>
#include <asm/pointer_auth.h>
#include <asm/stack_pointer.h>

#include "pmuscope.h"
#include "pmuscope_kunit_export.h"

/*
 * Strip the PAC of a return address: Linux 6.4 split the kernel's one
 * function (6.1: ptrauth_strip_insn_pac(), by bit 55) into a user and a
 * kernel one; both are the identity without CONFIG_ARM64_PTR_AUTH.
 */
#ifdef ptrauth_strip_user_insn_pac
#define pmuscope_ptrauth_strip_user(lr)		ptrauth_strip_user_insn_pac(lr)
#define pmuscope_ptrauth_strip_kernel(lr)	ptrauth_strip_kernel_insn_pac(lr)
#else
#define pmuscope_ptrauth_strip_user(lr)		ptrauth_strip_insn_pac(lr)
#define pmuscope_ptrauth_strip_kernel(lr)	ptrauth_strip_insn_pac(lr)
#endif

/*
 * A user return address without its PAC: the kernel's strip, then the
 * architecture's PAC field of a user address (bits 54 down to the VA
 * size, TBI0 on) cleared, which no user code address has set: the same
 * result on every kernel, with or without PAC support.
 */
unsigned long pmuscope_chain_strip_user(unsigned long lr)
{
	return pmuscope_ptrauth_strip_user(lr) & ~ptrauth_user_pac_mask();
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_chain_strip_user);

/*
 * Walk the frame records of @mem from @fp: their return addresses into
 * @ips, @room at most; returns how many. Adds PMUSCOPE_CHAIN_F_TRUNCATED
 * to *@flags if a frame found no room, PMUSCOPE_CHAIN_F_USER_END if a
 * user walk met a bad or unreadable frame. At most @room + 1 reads.
 */
u32 pmuscope_chain_walk(const struct pmuscope_chain_mem *mem, unsigned long fp, u64 *ips,
			u32 room, u32 *flags)
{
	u32 bad = mem->user ? PMUSCOPE_CHAIN_F_USER_END : 0;
	struct pmuscope_frame_record fr;
	unsigned long lr;
	u32 n = 0;

	while (fp) {
		if ((fp & 7) || mem->read(mem, fp, &fr)) {
			*flags |= bad;
			break;
		}
		lr = mem->user ? pmuscope_chain_strip_user(fr.lr) :
				 pmuscope_ptrauth_strip_kernel(fr.lr);
		/* The outermost record: no caller. */
		if (!lr)
			break;
		if (n == room) {
			*flags |= PMUSCOPE_CHAIN_F_TRUNCATED;
			break;
		}
		ips[n++] = lr;
		/* Up the stack, strictly: no loop, and 0 ends it cleanly. */
		if (fr.fp && fr.fp <= fp) {
			*flags |= bad;
			break;
		}
		fp = fr.fp;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_chain_walk);

/*
 * The call chain of @src into @ch (the header, then the addresses), of
 * @max_stack frames at most (0: PMUSCOPE_STACK_DEFAULT). Returns its
 * size in bytes: 16 + 8 per frame, a multiple of 8.
 */
u32 pmuscope_chain_fill(const struct pmuscope_chain_src *src, u32 max_stack,
			struct pmuscope_rec_chain *ch)
{
	struct pt_regs *regs = src->regs, *uregs = src->uregs;
	u64 *ips = (u64 *)(ch + 1);
	u32 n = 0, nk, flags = 0;

	if (!max_stack || max_stack > PMUSCOPE_STACK_MAX)
		max_stack = PMUSCOPE_STACK_DEFAULT;
	if (regs && !user_mode(regs)) {
		if (src->kernel_pcs) {
			ips[n++] = instruction_pointer(regs);
			n += pmuscope_chain_walk(src->kmem, regs->regs[29], ips + n,
						 max_stack - n, &flags);
		} else {
			flags |= PMUSCOPE_CHAIN_F_KERNEL_HIDDEN;
		}
	}
	nk = n;
	if (regs && uregs) {
		if (n == max_stack) {
			flags |= PMUSCOPE_CHAIN_F_TRUNCATED;
		} else {
			ips[n++] = instruction_pointer(uregs);
			/* AArch32: no AAPCS64 frame records to walk. */
			if (!(uregs->pstate & PSR_MODE32_BIT))
				n += pmuscope_chain_walk(src->umem, uregs->regs[29], ips + n,
							 max_stack - n, &flags);
		}
	}
	ch->version = PMUSCOPE_CHAIN_VERSION;
	ch->size = sizeof(*ch);
	ch->nr_kernel = nk;
	ch->nr_user = n - nk;
	ch->flags = flags;
	ch->reserved = 0;
	return sizeof(*ch) + n * sizeof(u64);
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_chain_fill);

/*
 * A user frame record, read without a fault: the two loads of
 * copy_from_user_nofault()'s checks (access_ok(), the fault handler
 * disabled by the caller, pmuscope_chain_record()), without its call of
 * the general copy: unprivileged loads (LDTR) with an exception-table
 * fixup, as the kernel's get_user() (Linux 6.1's generic
 * unsafe_get_user() is __get_user()).
 */
static int pmuscope_chain_read_user(const struct pmuscope_chain_mem *mem, unsigned long fp,
				    struct pmuscope_frame_record *fr)
{
	const struct pmuscope_frame_record __user *p = (const void __user *)fp;

	if (!user_access_begin(p, sizeof(*p)))
		return -EFAULT;
	unsafe_get_user(fr->fp, &p->fp, efault);
	unsafe_get_user(fr->lr, &p->lr, efault);
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

/* A record wholly within [mem->low, mem->high), read without a fault. */
int pmuscope_chain_read_kernel(const struct pmuscope_chain_mem *mem, unsigned long fp,
			       struct pmuscope_frame_record *fr)
{
	if (mem->high < mem->low + sizeof(*fr) || fp < mem->low ||
	    fp > mem->high - sizeof(*fr))
		return -EFAULT;
	return copy_from_kernel_nofault(fr, (const void *)fp, sizeof(*fr)) ? -EFAULT : 0;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_chain_read_kernel);

/*
 * The stack a kernel walk from @fp stays on: the interrupted task's, or
 * (VMAP_STACK: stacks are THREAD_SIZE blocks, aligned) the one this
 * interrupt runs on, the IRQ stack an interrupt handler's frames are on.
 * Anywhere else: none, the chain is the PC alone.
 */
static void pmuscope_chain_kstack(unsigned long fp, struct pmuscope_chain_mem *mem)
{
	unsigned long low = (unsigned long)task_stack_page(current);

	if (fp - low >= THREAD_SIZE && IS_ENABLED(CONFIG_VMAP_STACK))
		low = current_stack_pointer & ~(THREAD_SIZE - 1);
	if (fp - low < THREAD_SIZE) {
		mem->low = low;
		mem->high = low + THREAD_SIZE;
	}
}

/*
 * The call chain of a sample taken at @regs (NULL: nowhere) on this CPU,
 * of the task it interrupted (current), into @ch: room for
 * PMUSCOPE_STACK_MAX frames. Returns its size in bytes. Hard IRQ or NMI.
 */
u32 pmuscope_chain_record(struct pt_regs *regs, bool kernel_pcs, u32 max_stack,
			  struct pmuscope_rec_chain *ch)
{
	struct pmuscope_chain_mem kmem = { .read = pmuscope_chain_read_kernel };
	struct pmuscope_chain_mem umem = { .read = pmuscope_chain_read_user, .user = true };
	struct pmuscope_chain_src src = {
		.regs = regs, .kernel_pcs = kernel_pcs, .kmem = &kmem, .umem = &umem,
	};
	struct pt_regs *uregs;
	u32 size;

	if (regs && user_mode(regs)) {
		src.uregs = regs;
	} else if (current->mm && !(current->flags & PF_KTHREAD)) {
		/* A user task in the kernel; not a kernel thread on a borrowed mm. */
		uregs = task_pt_regs(current);
		if (user_mode(uregs))
			src.uregs = uregs;
	}
	if (regs && !user_mode(regs) && kernel_pcs)
		pmuscope_chain_kstack(regs->regs[29], &kmem);
	/* A user frame that faults ends the walk (the fixup), never a fault. */
	pagefault_disable();
	size = pmuscope_chain_fill(&src, max_stack, ch);
	pagefault_enable();
	return size;
}
EXPORT_SYMBOL_IF_KUNIT(pmuscope_chain_record);
