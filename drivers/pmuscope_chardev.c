// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: /dev/pmuscope. One open file is one session; the ioctls are in
 * include/uapi/linux/pmuscope.h and Documentation/ioctl.rst.
 */

#define pr_fmt(fmt) "pmuscope: " fmt

#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"

/* Smallest size of each argument struct: version 1 of the API. */
#define PMUSCOPE_HANDSHAKE_SIZE_VER0	sizeof(struct pmuscope_handshake)
#define PMUSCOPE_CONFIG_SIZE_VER0	sizeof(struct pmuscope_config)
#define PMUSCOPE_READ_SIZE_VER0		sizeof(struct pmuscope_read)
#define PMUSCOPE_SWINC_SIZE_VER0	sizeof(struct pmuscope_swinc)
#define PMUSCOPE_SNAPSHOT_SIZE_VER0	sizeof(struct pmuscope_snapshot)
#define PMUSCOPE_STREAM_SIZE_VER0	sizeof(struct pmuscope_stream)
#define PMUSCOPE_AMU_READ_SIZE_VER0	sizeof(struct pmuscope_amu_read)
#define PMUSCOPE_SPE_CONFIG_SIZE_VER0	sizeof(struct pmuscope_spe_config)
#define PMUSCOPE_SPE_STATUS_SIZE_VER0	sizeof(struct pmuscope_spe_status)

/*
 * Copy a size-first argument: -EINVAL if its size is below @min,
 * -E2BIG if it is larger than the kernel's and the extra bytes are not 0.
 */
static int pmuscope_copy_arg(void *dst, size_t ksize, size_t min,
			     const void __user *uarg)
{
	u32 usize;
	int ret;

	if (get_user(usize, (const u32 __user *)uarg))
		return -EFAULT;
	ret = pmuscope_check_size(usize, min);
	if (ret)
		return ret;
	return copy_struct_from_user(dst, ksize, uarg, usize);
}

/*
 * PMUSCOPE_FEAT_PMU and PMUSCOPE_FEAT_SNAPSHOT if any CPU has a PMU
 * pmuscope counts with; PMUSCOPE_FEAT_SNAPSHOT_HW if any of them may
 * capture in hardware.
 */
static u64 pmuscope_pmu_features(void)
{
	unsigned int cpu;
	u64 feat = 0;

	mutex_lock(&pmuscope_drv.lock);
	for_each_possible_cpu(cpu) {
		struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[cpu];

		if (pcpu && pcpu->probed && pcpu->amu_info.usable)
			feat |= PMUSCOPE_FEAT_AMU;
		if (pcpu && pcpu->probed && pcpu->spe.usable && pmuscope_spe_available())
			feat |= PMUSCOPE_FEAT_SPE;
		if (!pcpu || !pcpu->probed ||
		    pcpu->caps.state[PMUSCOPE_UNIT_PMU] != PMUSCOPE_STATE_PRESENT)
			continue;
		/* STREAM on both backends (perf's: pmuscope_perf_stream()). */
		feat |= PMUSCOPE_FEAT_PMU | PMUSCOPE_FEAT_SNAPSHOT | PMUSCOPE_FEAT_STREAM;
		if (pmuscope_ss_usable(&pcpu->pmu))
			feat |= PMUSCOPE_FEAT_SNAPSHOT_HW;
	}
	mutex_unlock(&pmuscope_drv.lock);
	/* Every stream's SAMPLE records end in pmuscope_stream_put_sample(). */
	if (feat & PMUSCOPE_FEAT_STREAM)
		feat |= PMUSCOPE_FEAT_CALLCHAIN;
	return feat;
}

static long pmuscope_ioc_handshake(void __user *uarg)
{
	struct pmuscope_handshake hs;
	u32 usize;
	int ret;

	ret = pmuscope_copy_arg(&hs, sizeof(hs), PMUSCOPE_HANDSHAKE_SIZE_VER0, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_handshake(&hs);
	if (ret)
		return ret;
	usize = hs.size;
	memset(&hs, 0, sizeof(hs));
	hs.size = sizeof(hs);
	hs.api_version = PMUSCOPE_API_VERSION;
	hs.features = pmuscope_pmu_features() |
		      (pmuscope_backend_perf() ? 0 : PMUSCOPE_FEAT_SWINC) |
		      (pmuscope_engine.mode == PMUSCOPE_FOLD_IRQ ?
		       PMUSCOPE_FEAT_OVERFLOW_IRQ : PMUSCOPE_FEAT_POLL) |
		      (pmuscope_emu_active() ? PMUSCOPE_FEAT_EMULATED : 0) |
		      (pmuscope_backend_perf() ? PMUSCOPE_FEAT_BACKEND_PERF : 0) |
		      (pmuscope_backend_perf() || pmuscope_ppmu_type() >= 0 ?
		       PMUSCOPE_FEAT_TASK | PMUSCOPE_FEAT_MULTIPLEX : 0) |
		      (!pmuscope_backend_perf() && pmuscope_ppmu_type() >= 0 &&
		       pmuscope_el0_supported() ? PMUSCOPE_FEAT_USER_READ : 0) |
		      (pmuscope_perf_stream_task() ? PMUSCOPE_FEAT_STREAM_TASK : 0);
	hs.nr_cpu_ids = nr_cpu_ids;
	hs.max_events = PMUSCOPE_MAX_EVENTS;
	if (copy_to_user(uarg, &hs, min_t(size_t, usize, sizeof(hs))))
		return -EFAULT;
	return 0;
}

/* Copy @nr events of @esize bytes each (version 2 element size; 0 = 16). */
static int pmuscope_copy_events(struct pmuscope_event *evs, u64 uptr, u32 nr,
				u32 esize)
{
	u32 i;
	int ret;

	if (!esize || esize == sizeof(*evs))
		return copy_from_user(evs, u64_to_user_ptr(uptr), nr * sizeof(*evs)) ?
		       -EFAULT : 0;
	for (i = 0; i < nr; i++) {
		ret = copy_struct_from_user(&evs[i], sizeof(*evs),
					    u64_to_user_ptr(uptr + (u64)i * esize), esize);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The thread a task target names: the caller's own (pid 0 or its own
 * thread id), or another. Whether the caller may count another is
 * decided where its counters are made (pmuscope_session_configure_task()):
 * anyone's with CAP_PERFMON; without it, a thread of the caller's own
 * process, and with the module parameter task_ours=1 a task that is the
 * caller's as ptrace sees it, under its exec_update_lock.
 */
static struct task_struct *pmuscope_target_task(pid_t pid)
{
	struct task_struct *task;

	if (!pid || pid == task_pid_vnr(current))
		return get_task_struct(current);
	rcu_read_lock();
	task = pid_task(find_vpid(pid), PIDTYPE_PID);
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task ? task : ERR_PTR(-ESRCH);
}

/*
 * A session for a file that has none yet, which the callee publishes
 * under the driver's lock or leaves in *@fresh for the caller to free.
 * A hint only: the callee looks again under the lock.
 */
static int pmuscope_fresh_session(struct file *file, struct pmuscope_session **fresh)
{
	*fresh = NULL;
	if (READ_ONCE(file->private_data))
		return 0;
	*fresh = pmuscope_session_alloc(-1);
	return *fresh ? 0 : -ENOMEM;
}

static long pmuscope_ioc_config_task(struct file *file,
				     const struct pmuscope_config *cfg,
				     const struct pmuscope_event *evs)
{
	struct pmuscope_session *fresh = NULL;
	struct task_struct *task;
	long ret;

	/*
	 * The system's policy, as perf_event_open() of a task event: the own
	 * task up to kernel.perf_event_paranoid 2, the kernel's levels up to
	 * 1, EL0 reads where kernel.perf_user_access is 1 (or group=).
	 */
	ret = pmuscope_policy_check(PMUSCOPE_POL_TASK |
				    pmuscope_policy_events(evs, cfg->nr_events) |
				    (cfg->flags & PMUSCOPE_CFG_USER_READ ? PMUSCOPE_POL_EL0 : 0));
	if (ret)
		return ret;
	task = pmuscope_target_task(cfg->pid);
	if (IS_ERR(task))
		return PTR_ERR(task);
	if (pmuscope_fresh_session(file, &fresh)) {
		put_task_struct(task);
		return -ENOMEM;
	}
	ret = pmuscope_session_configure_task(&file->private_data, &fresh, evs,
					      cfg->nr_events, task, cfg->flags);
	pmuscope_session_free(fresh);
	put_task_struct(task);
	return ret;
}

/*
 * The file's session is created here, at its first CONFIG, once the caller
 * is known to be allowed to count: an open file costs nothing until then.
 */
/*
 * The CPU bitmap of an argument (@size bytes at @uptr, checked by the
 * caller: a multiple of 8, 8 .. 4096) into @cpus. -ENODEV: a CPU number
 * the kernel cannot have (@possible: or a CPU not possible); -EINVAL: no
 * CPU at all.
 */
static int pmuscope_copy_cpus(u64 uptr, u32 size, bool possible, struct cpumask *cpus)
{
	unsigned long *bits = kzalloc(size, GFP_KERNEL_ACCOUNT);
	unsigned int bit;
	int ret;

	if (!bits)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(bits, u64_to_user_ptr(uptr), size))
		goto out;
	ret = -ENODEV;
	for_each_set_bit(bit, bits, size * BITS_PER_BYTE) {
		if (bit >= nr_cpu_ids || (possible && !cpu_possible(bit)))
			goto out;
		cpumask_set_cpu(bit, cpus);
	}
	ret = cpumask_empty(cpus) ? -EINVAL : 0;
out:
	kfree(bits);
	return ret;
}

static long pmuscope_ioc_config(struct file *file, void __user *uarg)
{
	struct pmuscope_session *fresh = NULL;
	struct pmuscope_event evs[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_config cfg;
	cpumask_var_t cpus;
	int ret;

	ret = pmuscope_copy_arg(&cfg, sizeof(cfg), PMUSCOPE_CONFIG_SIZE_VER0, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_config(&cfg);
	if (ret)
		return ret;
	/* Before the events are read: who may not count CPUs learns nothing more. */
	if (cfg.target == PMUSCOPE_TARGET_CPUS) {
		ret = pmuscope_policy_check(PMUSCOPE_POL_CPU);
		if (ret)
			return ret;
	}
	ret = pmuscope_copy_events(evs, cfg.events, cfg.nr_events, cfg.event_size);
	if (ret)
		return ret;
	if (cfg.target == PMUSCOPE_TARGET_TASK)
		return pmuscope_ioc_config_task(file, &cfg, evs);
	ret = pmuscope_policy_check(PMUSCOPE_POL_CPU | pmuscope_policy_events(evs, cfg.nr_events));
	if (ret)
		return ret;

	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL_ACCOUNT))
		return -ENOMEM;
	/* A CPU number the kernel cannot have: absent. */
	ret = pmuscope_copy_cpus(cfg.cpus, cfg.cpus_size, false, cpus);
	if (ret)
		goto out;
	ret = pmuscope_fresh_session(file, &fresh);
	if (ret)
		goto out;
	ret = pmuscope_session_configure(&file->private_data, &fresh, evs,
					 cfg.nr_events, cpus);
	pmuscope_session_free(fresh);
out:
	free_cpumask_var(cpus);
	return ret;
}

/*
 * Copy @nr values out with a stride of @vsize (0 = 40), zero beyond ours.
 * Inline: READ's usual case is one copy_to_user().
 */
static __always_inline int pmuscope_copy_values(u64 uptr,
						const struct pmuscope_value *vals,
						u32 nr, u32 vsize)
{
	u32 i;

	if (!vsize || vsize == sizeof(*vals))
		return copy_to_user(u64_to_user_ptr(uptr), vals, nr * sizeof(*vals)) ?
		       -EFAULT : 0;
	for (i = 0; i < nr; i++) {
		void __user *dst = u64_to_user_ptr(uptr + (u64)i * vsize);

		if (copy_to_user(dst, &vals[i], sizeof(*vals)) ||
		    clear_user(dst + sizeof(*vals), vsize - sizeof(*vals)))
			return -EFAULT;
	}
	return 0;
}

/*
 * READ's argument: of today's size, read with five unprivileged loads (a
 * READ's fixed cost is mostly this kind of thing); of any other size, or
 * if a load faults, through pmuscope_copy_arg() and its rules.
 */
static int pmuscope_read_arg(struct pmuscope_read *rd, const void __user *uarg)
{
	const u64 __user *src = uarg;
	u64 w[5];

	BUILD_BUG_ON(sizeof(w) != sizeof(*rd));
	if (!user_access_begin(src, sizeof(w)))
		return -EFAULT;
	unsafe_get_user(w[0], &src[0], slow);
	unsafe_get_user(w[1], &src[1], slow);
	unsafe_get_user(w[2], &src[2], slow);
	unsafe_get_user(w[3], &src[3], slow);
	unsafe_get_user(w[4], &src[4], slow);
	user_access_end();
	memcpy(rd, w, sizeof(w));
	if (rd->size == sizeof(*rd))
		return 0;
	goto copy;
slow:
	user_access_end();
copy:
	return pmuscope_copy_arg(rd, sizeof(*rd), PMUSCOPE_READ_SIZE_VER0, uarg);
}

/* ------------------------------------------------------------------- AMU */

/* Cross call: this CPU's AMU record into @info. */
static void pmuscope_amu_read_fn(void *info)
{
	struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[smp_processor_id()];

	pmuscope_amu_read_local(&pcpu->amu, &pcpu->amu_info, info);
}

/* The state of @cpu's AMU, for its record (CPUs held still). */
static u32 pmuscope_amu_state(unsigned int cpu)
{
	struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[cpu];
	u32 state;

	mutex_lock(&pmuscope_drv.lock);
	if (!cpu_online(cpu) || !pcpu->probed)
		state = PMUSCOPE_AMU_OFFLINE;
	else if (pcpu->amu_info.usable)
		state = PMUSCOPE_AMU_READ_OK;
	else if (pcpu->caps.state[PMUSCOPE_UNIT_AMU] == PMUSCOPE_STATE_ABSENT)
		state = PMUSCOPE_AMU_ABSENT;
	else
		state = PMUSCOPE_AMU_DISABLED;
	mutex_unlock(&pmuscope_drv.lock);
	return state;
}

/*
 * AMU_READ: one record per CPU of the bitmap, ascending, each read on its
 * CPU. No session: any open file, but CAP_PERFMON (the AMU counts all that
 * runs on a CPU, the secure world included). The records are gathered
 * with CPUs held still and copied out after.
 */
static long pmuscope_ioc_amu_read(void __user *uarg)
{
	struct pmuscope_amu_read __user *uar = uarg;
	struct pmuscope_amu_cpu *recs = NULL;
	struct pmuscope_amu_read ar;
	unsigned long *bits;
	unsigned int bit, nr, i = 0;
	u32 rsize;
	int ret;

	ret = pmuscope_copy_arg(&ar, sizeof(ar), PMUSCOPE_AMU_READ_SIZE_VER0, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_amu_read(&ar);
	if (ret)
		return ret;
	/* CAP_PERFMON; CAP_SYS_ADMIN at perf_event_paranoid 3 (-EACCES). */
	ret = pmuscope_policy_check(PMUSCOPE_POL_AMU);
	if (ret)
		return ret;
	bits = kzalloc(ar.cpus_size, GFP_KERNEL_ACCOUNT);
	if (!bits)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(bits, u64_to_user_ptr(ar.cpus), ar.cpus_size))
		goto out;
	/* A CPU the kernel cannot have: absent, as for CONFIG. */
	ret = -ENODEV;
	for_each_set_bit(bit, bits, ar.cpus_size * BITS_PER_BYTE)
		if (bit >= nr_cpu_ids || !cpu_possible(bit))
			goto out;
	nr = bitmap_weight(bits, ar.cpus_size * BITS_PER_BYTE);
	ret = -EINVAL;
	if (!nr)
		goto out;
	ret = -ENOSPC;
	if (ar.nr_records < nr)
		goto tell;
	ret = -ENOMEM;
	recs = kvcalloc(nr, sizeof(*recs), GFP_KERNEL_ACCOUNT);
	if (!recs)
		goto out;
	cpus_read_lock();
	for_each_set_bit(bit, bits, nr_cpu_ids) {
		struct pmuscope_amu_cpu *rec = &recs[i++];

		rec->cpu = bit;
		rec->state = pmuscope_amu_state(bit);
		if (rec->state == PMUSCOPE_AMU_READ_OK)
			smp_call_function_single(bit, pmuscope_amu_read_fn, rec, 1);
	}
	cpus_read_unlock();
	rsize = ar.record_size ?: sizeof(*recs);
	ret = -EFAULT;
	for (i = 0; i < nr; i++) {
		void __user *dst = u64_to_user_ptr(ar.records + (u64)i * rsize);

		if (copy_to_user(dst, &recs[i], sizeof(*recs)) ||
		    clear_user(dst + sizeof(*recs), rsize - sizeof(*recs)))
			goto out;
	}
	if (put_user((u64)pmuscope_hw_syscnt_freq(), &uar->freq))
		goto out;
	ret = 0;
tell:
	/* How many records there are (or would be). */
	if (put_user(nr, &uar->nr_records))
		ret = -EFAULT;
out:
	kvfree(recs);
	kfree(bits);
	return ret;
}

/* ------------------------------------------------------------------- SPE */

/* PMUSCOPE_IOC_SPE_START: the file becomes an SPE session of its CPUs. */
static long pmuscope_ioc_spe_start(struct file *file, void __user *uarg)
{
	struct pmuscope_session *fresh = NULL;
	struct pmuscope_spe_config cfg;
	cpumask_var_t cpus;
	int ret;

	ret = pmuscope_copy_arg(&cfg, sizeof(cfg), PMUSCOPE_SPE_CONFIG_SIZE_VER0, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_spe_config(&cfg);
	if (ret)
		return ret;
	/* Before the bitmap, as CONFIG: who may not profile learns nothing more. */
	ret = pmuscope_spe_perm(&cfg);
	if (ret)
		return ret;
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL_ACCOUNT))
		return -ENOMEM;
	ret = pmuscope_copy_cpus(cfg.cpus, cfg.cpus_size, true, cpus);
	if (ret)
		goto out;
	ret = pmuscope_fresh_session(file, &fresh);
	if (ret)
		goto out;
	ret = pmuscope_session_spe_start(&file->private_data, &fresh, &cfg, cpus);
	pmuscope_session_free(fresh);
out:
	free_cpumask_var(cpus);
	return ret;
}

/* PMUSCOPE_IOC_SPE_STATUS: each CPU's state and accounting. */
static long pmuscope_ioc_spe_status(struct pmuscope_session *sess, void __user *uarg)
{
	struct pmuscope_spe_status __user *ust = uarg;
	struct pmuscope_spe_cpu *recs;
	struct pmuscope_spe_status st;
	u32 rsize, nr = 0, i;
	int ret;

	ret = pmuscope_copy_arg(&st, sizeof(st), PMUSCOPE_SPE_STATUS_SIZE_VER0, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_spe_status(&st);
	if (ret)
		return ret;
	if (!sess)
		return -EINVAL;
	recs = kvcalloc(nr_cpu_ids, sizeof(*recs), GFP_KERNEL_ACCOUNT);
	if (!recs)
		return -ENOMEM;
	ret = pmuscope_session_spe_status(sess, recs, min(st.nr_records, nr_cpu_ids), &nr);
	if (ret && ret != -ENOSPC)
		goto out;
	if (!ret) {
		rsize = st.record_size ?: sizeof(*recs);
		for (i = 0; i < nr; i++) {
			void __user *dst = u64_to_user_ptr(st.records + (u64)i * rsize);

			if (copy_to_user(dst, &recs[i], sizeof(*recs)) ||
			    clear_user(dst + sizeof(*recs), rsize - sizeof(*recs))) {
				ret = -EFAULT;
				goto out;
			}
		}
		if (put_user((u64)pmuscope_hw_syscnt_freq(), &ust->freq)) {
			ret = -EFAULT;
			goto out;
		}
	}
	if (put_user(nr, &ust->nr_records))
		ret = -EFAULT;
out:
	kvfree(recs);
	return ret;
}

/* @sess NULL: the file was never configured. */
static long pmuscope_ioc_read(struct pmuscope_session *sess, void __user *uarg)
{
	const struct pmuscope_value *vals;
	struct pmuscope_read rd;
	u32 nr = 0;
	int ret;

	ret = pmuscope_read_arg(&rd, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_read(&rd);
	if (ret)
		return ret;
	if (!sess)
		return -EINVAL;		/* never configured */
	ret = pmuscope_session_read_begin(sess, rd.nr_values, &vals, &nr);
	if (!ret)
		ret = pmuscope_copy_values(rd.values, vals, nr, rd.value_size);
	pmuscope_session_read_end(sess);
	/*
	 * Tell the caller how many values there are (or would be), unless
	 * its nr_values says so already (the usual case: a buffer sized to
	 * the session).
	 */
	if ((!ret || ret == -ENOSPC) && nr != rd.nr_values) {
		if (put_user(nr, (u32 __user *)(uarg +
				 offsetof(struct pmuscope_read, nr_values))))
			ret = -EFAULT;
	}
	return ret;
}

/*
 * Copy @nr CPU records out with a stride of @csize (0 = 48), zero beyond
 * ours: six unprivileged stores each, in one user access window, for a
 * caller of today's size (a SNAPSHOT's fixed cost is mostly this kind of
 * thing), copy_to_user() and clear_user() for any other.
 */
static int pmuscope_copy_snap_cpus(u64 uptr, const struct pmuscope_snap_cpu *cpus,
				   u32 nr, u32 csize)
{
	u64 __user *dst = u64_to_user_ptr(uptr);
	const u64 *src = (const u64 *)cpus, *end = (const u64 *)(cpus + nr);
	u32 i;

	BUILD_BUG_ON(sizeof(*cpus) != 6 * sizeof(u64));
	if (!csize || csize == sizeof(*cpus)) {
		if (!user_access_begin(dst, (size_t)nr * sizeof(*cpus)))
			return -EFAULT;
		for (; src < end; src += 6, dst += 6) {
			unsafe_put_user(src[0], &dst[0], fault);
			unsafe_put_user(src[1], &dst[1], fault);
			unsafe_put_user(src[2], &dst[2], fault);
			unsafe_put_user(src[3], &dst[3], fault);
			unsafe_put_user(src[4], &dst[4], fault);
			unsafe_put_user(src[5], &dst[5], fault);
		}
		user_access_end();
		return 0;
	}
	for (i = 0; i < nr; i++) {
		void __user *d = u64_to_user_ptr(uptr + (u64)i * csize);

		if (copy_to_user(d, &cpus[i], sizeof(*cpus)) ||
		    clear_user(d + sizeof(*cpus), csize - sizeof(*cpus)))
			return -EFAULT;
	}
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/*
 * What SNAPSHOT writes back into its argument: @nr_values and @nr_cpus
 * (also with -ENOSPC), and @freq and @skew (@all: on success).
 */
static int pmuscope_put_snapshot(struct pmuscope_snapshot __user *usn,
				 const struct pmuscope_snap_result *res, bool all)
{
	if (!user_access_begin(usn, sizeof(*usn)))
		return -EFAULT;
	unsafe_put_user(res->nr_vals, &usn->nr_values, fault);
	unsafe_put_user(res->nr_cpus, &usn->nr_cpus, fault);
	if (all) {
		unsafe_put_user((u64)pmuscope_hw_syscnt_freq(), &usn->freq, fault);
		unsafe_put_user(res->skew, &usn->skew, fault);
	}
	user_access_end();
	return 0;
fault:
	user_access_end();
	return -EFAULT;
}

/* @sess NULL: the file was never configured. */
static long pmuscope_ioc_snapshot(struct pmuscope_session *sess, void __user *uarg)
{
	/*
	 * Both written whole before they are read (copy_struct_from_user(),
	 * pmuscope_session_snapshot()): not zeroed by
	 * CONFIG_INIT_STACK_ALL_ZERO, two memset() calls per SNAPSHOT.
	 */
	struct pmuscope_snap_result res __uninitialized;
	struct pmuscope_snapshot sn __uninitialized;
	int ret;

	ret = pmuscope_copy_arg(&sn, sizeof(sn), PMUSCOPE_SNAPSHOT_SIZE_VER0, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_snapshot(&sn);
	if (ret)
		return ret;
	if (!sess)
		return -EINVAL;		/* never configured */
	/* The IRQs-off wait a caller without CAP_PERFMON may ask for. */
	ret = pmuscope_policy_snap_lead(sn.lead_us);
	if (ret)
		return ret;
	ret = pmuscope_session_snapshot(sess, sn.flags, sn.lead_us, sn.nr_values,
					sn.nr_cpus, &res);
	if (!ret)
		ret = pmuscope_copy_values(sn.values, res.vals, res.nr_vals,
					   sn.value_size);
	if (!ret)
		ret = pmuscope_copy_snap_cpus(sn.cpus, res.cpus, res.nr_cpus,
					      sn.cpu_size);
	pmuscope_session_read_end(sess);
	kfree(res.alloc);
	/* Tell the caller how many there are (or would be). */
	if (!ret || ret == -ENOSPC) {
		if (pmuscope_put_snapshot(uarg, &res, !ret))
			ret = -EFAULT;
	}
	return ret;
}

/* @sess NULL: the file was never configured. */
static long pmuscope_ioc_stream(struct pmuscope_session *sess, void __user *uarg)
{
	struct pmuscope_stream st;
	int ret;

	ret = pmuscope_copy_arg(&st, sizeof(st), PMUSCOPE_STREAM_SIZE_VER0, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_stream(&st);
	if (ret)
		return ret;
	if (!sess)
		return -EINVAL;		/* never configured */
	return pmuscope_session_stream(sess, &st);
}

/* @sess NULL: the file was never configured. */
static long pmuscope_ioc_swinc(struct pmuscope_session *sess, void __user *uarg)
{
	struct pmuscope_swinc sw;
	int ret;

	ret = pmuscope_copy_arg(&sw, sizeof(sw), PMUSCOPE_SWINC_SIZE_VER0, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_swinc(&sw);
	if (ret)
		return ret;
	if (!sess)
		return -EINVAL;		/* never configured */
	return pmuscope_session_swinc(sess, sw.event_mask, sw.cpu, sw.count);
}

/*
 * A request without the struct size _IOW()/_IOWR() put into it. A caller
 * built against a later, larger version of a struct sends another number
 * for the same request; the struct's own size field says what it holds
 * (the copy_struct_from_user() rules of Documentation/ioctl.rst).
 */
#define PMUSCOPE_IOC_KEY(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

static long pmuscope_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	/*
	 * NULL until the first CONFIG (then as unconfigured, EINVAL). Pairs
	 * with the smp_store_release() of pmuscope_session_configure(): a
	 * session seen here is initialised and on the driver's list.
	 */
	struct pmuscope_session *sess = smp_load_acquire(&file->private_data);
	void __user *uarg = (void __user *)arg;

	switch (PMUSCOPE_IOC_KEY(cmd)) {
	case PMUSCOPE_IOC_KEY(PMUSCOPE_IOC_HANDSHAKE):
		return pmuscope_ioc_handshake(uarg);
	case PMUSCOPE_IOC_KEY(PMUSCOPE_IOC_CONFIG):
		return pmuscope_ioc_config(file, uarg);
	case PMUSCOPE_IOC_KEY(PMUSCOPE_IOC_READ):
		return pmuscope_ioc_read(sess, uarg);
	case PMUSCOPE_IOC_KEY(PMUSCOPE_IOC_SWINC):
		return pmuscope_ioc_swinc(sess, uarg);
	case PMUSCOPE_IOC_KEY(PMUSCOPE_IOC_SNAPSHOT):
		return pmuscope_ioc_snapshot(sess, uarg);
	case PMUSCOPE_IOC_KEY(PMUSCOPE_IOC_STREAM):
		return pmuscope_ioc_stream(sess, uarg);
	case PMUSCOPE_IOC_KEY(PMUSCOPE_IOC_AMU_READ):
		return pmuscope_ioc_amu_read(uarg);
	case PMUSCOPE_IOC_KEY(PMUSCOPE_IOC_SPE_START):
		return pmuscope_ioc_spe_start(file, uarg);
	case PMUSCOPE_IOC_KEY(PMUSCOPE_IOC_SPE_STATUS):
		return pmuscope_ioc_spe_status(sess, uarg);
	}
	switch (cmd) {		/* no argument: no size either */
	case PMUSCOPE_IOC_ENABLE:
	case PMUSCOPE_IOC_DISABLE:
	case PMUSCOPE_IOC_RESET:
		if (!sess)
			return -EINVAL;
		if (sess->spe)
			return -EINVAL;	/* an SPE session counts nothing: SPE_STOP */
		if (cmd == PMUSCOPE_IOC_RESET)
			return pmuscope_session_reset(sess);
		return pmuscope_session_enable(sess, cmd == PMUSCOPE_IOC_ENABLE);
	case PMUSCOPE_IOC_SPE_STOP:
		return pmuscope_session_spe_stop(sess);
	default:
		return -ENOTTY;
	}
}

/* The file's SPE session, or NULL. */
static struct pmuscope_spe_sess *pmuscope_file_spe(struct file *file)
{
	/* Pairs with the smp_store_release() of the first CONFIG or SPE_START. */
	struct pmuscope_session *sess = smp_load_acquire(&file->private_data);

	/* Pairs with the smp_store_release() of SPE_START. */
	return sess ? smp_load_acquire(&sess->spe) : NULL;
}

/* The stream's ring of the file's session, or NULL (none yet). */
static struct pmuscope_ring *pmuscope_file_ring(struct file *file)
{
	/* Pairs with the smp_store_release() of the first CONFIG. */
	struct pmuscope_session *sess = smp_load_acquire(&file->private_data);

	/* Pairs with the smp_store_release() of the first STREAM. */
	return sess ? smp_load_acquire(&sess->ring) : NULL;
}

/* read(): the stream's records (Documentation/ioctl.rst, Streams). */
static ssize_t pmuscope_read(struct file *file, char __user *buf, size_t len,
			     loff_t *ppos)
{
	struct pmuscope_spe_sess *spe = pmuscope_file_spe(file);
	struct pmuscope_ring *ring;

	if (spe)
		return pmuscope_spe_read(spe, buf, len, file->f_flags & O_NONBLOCK);
	ring = pmuscope_file_ring(file);
	if (!ring)
		return -EINVAL;		/* no STREAM yet */
	return pmuscope_ring_read(ring, buf, len, file->f_flags & O_NONBLOCK);
}

static __poll_t pmuscope_poll(struct file *file, struct poll_table_struct *pt)
{
	struct pmuscope_spe_sess *spe = pmuscope_file_spe(file);
	struct pmuscope_ring *ring;

	if (spe)
		return pmuscope_spe_poll(spe, file, pt);
	ring = pmuscope_file_ring(file);
	return ring ? pmuscope_ring_poll(ring, file, pt) : EPOLLERR;
}

/* No session yet: it is allocated at the first CONFIG (pmuscope_ioc_config). */
static int pmuscope_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;
	return nonseekable_open(inode, file);
}

/*
 * The user page of a PMUSCOPE_CFG_USER_READ session (pmuscope_el0.c):
 * one page at offset 0, read-only, not copied on fork, not expandable.
 * The mapping keeps a reference to the page and to the file: the session
 * lives until the file is closed and the page unmapped.
 */
static int pmuscope_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct pmuscope_session *sess = READ_ONCE(file->private_data);
	struct pmuscope_el0 *el0;

	if (!sess || vma->vm_pgoff || vma->vm_end - vma->vm_start != PAGE_SIZE)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	/*
	 * No session lock: mmap_lock is held here, and READ copies out
	 * under the session's lock. sess->el0 is published last by CONFIG
	 * and stays until the file is released (which this call, and then
	 * the mapping, holds off): every CONFIG of a session with a user
	 * page is -EBUSY (pmuscope_session_configure_locked() and
	 * pmuscope_session_configure_task()), and nothing else releases it.
	 */
	el0 = smp_load_acquire(&sess->el0);
	if (!el0)
		return -EINVAL;
#ifdef PMUSCOPE_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP, VM_MAYWRITE);
#else
	vma->vm_flags |= VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
	return vm_insert_page(vma, vma->vm_start, el0->pg);
}

static int pmuscope_release(struct inode *inode, struct file *file)
{
	if (file->private_data)
		pmuscope_session_destroy(file->private_data);
	return 0;
}

static const struct file_operations pmuscope_fops = {
	.owner = THIS_MODULE,
	.open = pmuscope_open,
	.release = pmuscope_release,
	.read = pmuscope_read,
	.poll = pmuscope_poll,
	.mmap = pmuscope_mmap,
	.unlocked_ioctl = pmuscope_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice pmuscope_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = PMUSCOPE_DRV_NAME,
	.fops = &pmuscope_fops,
	.mode = 0666,	/* counting itself needs CAP_PERFMON or the group */
};

int pmuscope_chardev_init(void)
{
	return misc_register(&pmuscope_miscdev);
}

void pmuscope_chardev_exit(void)
{
	misc_deregister(&pmuscope_miscdev);
}
