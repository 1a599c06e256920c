// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: /dev/pmuscope. One open file is one session; the ioctls are in
 * include/uapi/linux/pmuscope.h and Documentation/ioctl.rst.
 */

#define pr_fmt(fmt) "pmuscope: " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "pmuscope.h"

/* Smallest size of each argument struct: version 1 of the API. */
#define PMUSCOPE_HANDSHAKE_SIZE_VER0	sizeof(struct pmuscope_handshake)
#define PMUSCOPE_CONFIG_SIZE_VER0	sizeof(struct pmuscope_config)
#define PMUSCOPE_READ_SIZE_VER0		sizeof(struct pmuscope_read)
#define PMUSCOPE_SWINC_SIZE_VER0	sizeof(struct pmuscope_swinc)

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

/* Does any CPU have a PMU pmuscope counts with? */
static bool pmuscope_any_pmu(void)
{
	unsigned int cpu;
	bool any = false;

	mutex_lock(&pmuscope_drv.lock);
	for_each_possible_cpu(cpu) {
		struct pmuscope_cpu *pcpu = pmuscope_drv.cpus[cpu];

		if (pcpu && pcpu->probed &&
		    pcpu->caps.state[PMUSCOPE_UNIT_PMU] == PMUSCOPE_STATE_PRESENT)
			any = true;
	}
	mutex_unlock(&pmuscope_drv.lock);
	return any;
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
	hs.features = (pmuscope_any_pmu() ? PMUSCOPE_FEAT_PMU : 0) |
		      PMUSCOPE_FEAT_SWINC |
		      (pmuscope_engine.mode == PMUSCOPE_FOLD_IRQ ?
		       PMUSCOPE_FEAT_OVERFLOW_IRQ : PMUSCOPE_FEAT_POLL) |
		      (pmuscope_engine.shared ? PMUSCOPE_FEAT_SHARED : 0) |
		      (pmuscope_emu_active() ? PMUSCOPE_FEAT_EMULATED : 0);
	hs.nr_cpu_ids = nr_cpu_ids;
	hs.max_events = PMUSCOPE_MAX_EVENTS;
	if (copy_to_user(uarg, &hs, min_t(size_t, usize, sizeof(hs))))
		return -EFAULT;
	return 0;
}

/*
 * The file's session is created here, at its first CONFIG, once the caller
 * is known to be allowed to count: an open file costs nothing until then.
 */
static long pmuscope_ioc_config(struct file *file, void __user *uarg)
{
	struct pmuscope_session *fresh = NULL;
	struct pmuscope_event evs[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_config cfg;
	cpumask_var_t cpus;
	unsigned long *bits;
	unsigned int bit;
	int ret;

	ret = pmuscope_copy_arg(&cfg, sizeof(cfg), PMUSCOPE_CONFIG_SIZE_VER0, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_config(&cfg);
	if (ret)
		return ret;
	ret = pmuscope_check_perm(pmuscope_drv.perf_group, NULL, 0);
	if (ret)
		return ret;
	if (copy_from_user(evs, u64_to_user_ptr(cfg.events),
			   cfg.nr_events * sizeof(evs[0])))
		return -EFAULT;
	ret = pmuscope_check_perm(pmuscope_drv.perf_group, evs, cfg.nr_events);
	if (ret)
		return ret;

	bits = kzalloc(cfg.cpus_size, GFP_KERNEL_ACCOUNT);
	if (!bits)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL_ACCOUNT)) {
		kfree(bits);
		return -ENOMEM;
	}
	ret = -EFAULT;
	if (copy_from_user(bits, u64_to_user_ptr(cfg.cpus), cfg.cpus_size))
		goto out;
	/* A CPU number the kernel cannot have: absent. */
	ret = -ENODEV;
	for_each_set_bit(bit, bits, cfg.cpus_size * BITS_PER_BYTE) {
		if (bit >= nr_cpu_ids)
			goto out;
		cpumask_set_cpu(bit, cpus);
	}
	ret = -EINVAL;
	if (cpumask_empty(cpus))
		goto out;
	/* A hint: pmuscope_session_configure() looks again under the lock. */
	if (!READ_ONCE(file->private_data)) {
		fresh = pmuscope_session_alloc(-1);
		ret = -ENOMEM;
		if (!fresh)
			goto out;
	}
	ret = pmuscope_session_configure(&file->private_data, &fresh, evs,
					 cfg.nr_events, cpus);
	pmuscope_session_free(fresh);
out:
	free_cpumask_var(cpus);
	kfree(bits);
	return ret;
}

/* @sess NULL: the file was never configured. */
static long pmuscope_ioc_read(struct pmuscope_session *sess, void __user *uarg)
{
	struct pmuscope_value *vals = NULL;
	struct pmuscope_read rd;
	u32 nr = 0;
	int ret;

	ret = pmuscope_copy_arg(&rd, sizeof(rd), PMUSCOPE_READ_SIZE_VER0, uarg);
	if (ret)
		return ret;
	ret = pmuscope_check_read(&rd);
	if (ret)
		return ret;
	if (!sess)
		return -EINVAL;		/* never configured */
	ret = pmuscope_session_read(sess, rd.nr_values, &vals, &nr);
	if (!ret && copy_to_user(u64_to_user_ptr(rd.values), vals,
				 nr * sizeof(*vals)))
		ret = -EFAULT;
	if (!ret || ret == -ENOSPC) {
		/* Tell the caller how many values there are (or would be). */
		if (put_user(nr, (u32 __user *)(uarg +
				 offsetof(struct pmuscope_read, nr_values))))
			ret = -EFAULT;
	}
	kvfree(vals);
	return ret;
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
	}
	switch (cmd) {		/* no argument: no size either */
	case PMUSCOPE_IOC_ENABLE:
	case PMUSCOPE_IOC_DISABLE:
	case PMUSCOPE_IOC_RESET:
		if (!sess)
			return -EINVAL;
		if (cmd == PMUSCOPE_IOC_RESET)
			return pmuscope_session_reset(sess);
		return pmuscope_session_enable(sess, cmd == PMUSCOPE_IOC_ENABLE);
	default:
		return -ENOTTY;
	}
}

/* No session yet: it is allocated at the first CONFIG (pmuscope_ioc_config). */
static int pmuscope_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;
	return nonseekable_open(inode, file);
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
