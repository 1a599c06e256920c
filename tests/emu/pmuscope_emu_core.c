// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope_emu.ko: the whole pmuscope driver with the register model of
 * tests/kunit behind the hardware seam, loadable in the QEMU test guest.
 *
 * The PMUv3 registers every PMUv3 has pass through to the CPU's own PMU
 * (QEMU's), so counts stay real and exact; the model supplies what the
 * CPU lacks for the chosen profile: the ID registers that advertise the
 * other units, snapshots, SPE, the AMU, the fixed instruction counter.
 * The model's time runs from a per-CPU timer; workloads are injected
 * through debugfs (/sys/kernel/debug/pmuscope_emu/), never the uapi.
 *
 * The profile dead-pmu is the exception, a fault model: a hypervisor that
 * exposes a Cortex-A53's PMU and never counts. Its PMUv3 registers are
 * the model's alone (no passthrough), which reads back what was written
 * and never advances a counter (tests/kunit/pmuscope_model.c), so that the
 * product can be seen to report the fault (tests/guest/t-dead-pmu.sh).
 * EL0 reads cannot be modelled: the CPU's own PMUSERENR_EL0 stays 0 (the
 * kernel's reset value), so a process the driver grants EL0 access gets
 * SIGILL at its MRS, as under a hypervisor that traps EL0 PMU accesses.
 *
 * It is a test artifact: flagged "emulated" in the handshake features, in
 * sysfs and by the CLI, built only with PMUSCOPE_KUNIT=1, never installed,
 * and it refuses to load beside pmuscope.ko (same device and sysfs names).
 */

#include <linux/bitfield.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tick.h>
#include <linux/uaccess.h>

#include "../kunit/pmuscope_model.h"
#include "../../drivers/pmuscope_emu_seam.h"

static char *pmuscope_emu_param_profile = "neoverse-n1";
module_param_named(profile, pmuscope_emu_param_profile, charp, 0444);
MODULE_PARM_DESC(profile,
		 "CPU profile to emulate: neoverse-n1, v9.4-like, cortex-a53, dead-pmu (a PMU that never counts) (default: neoverse-n1)");

static unsigned int pmuscope_emu_param_icount_shift;
module_param_named(icount_shift, pmuscope_emu_param_icount_shift, uint, 0444);
MODULE_PARM_DESC(icount_shift,
		 "QEMU -icount shift of the guest: one instruction per 2^shift ns of busy time, for the emulated AMU and ICNTR (default: 0)");

static unsigned int pmuscope_emu_param_tick_us = 1000;
module_param_named(tick_us, pmuscope_emu_param_tick_us, uint, 0444);
MODULE_PARM_DESC(tick_us, "Period of the model's clock in microseconds (default: 1000)");

static const struct pmuscope_model_profile *const pmuscope_emu_profiles[] = {
	&pmuscope_model_neoverse_n1,
	&pmuscope_model_v94,
	&pmuscope_model_cortex_a53,
	&pmuscope_model_dead_pmu,
};

static const struct pmuscope_model_profile *pmuscope_emu_prof;

/* The model's clock on one CPU; touched only on that CPU. */
struct pmuscope_emu_cpu {
	struct hrtimer timer;
	u64 last_ns;		/* ktime_get_ns() at the last tick */
	u64 last_idle_us;	/* get_cpu_idle_time_us() at the last tick */
	bool running;
	bool paused;		/* debugfs clock: time passes, the model does not run */
};

static DEFINE_PER_CPU(struct pmuscope_emu_cpu, pmuscope_emu_cpus);

/*
 * The handler of the modelled PMBIRQ (the SPE driver's, or the self-test's
 * below): called from the model's clock, in hard-IRQ context, on the CPU
 * whose PMBIRQ line (PMBSR_EL1.S) is high, at every tick while it is, as a
 * level-triggered PPI would be taken.
 */
static irq_handler_t pmuscope_emu_pmbirq_fn;
static void *pmuscope_emu_pmbirq_dev;

void pmuscope_emu_set_pmbirq(irq_handler_t fn, void *dev)
{
	WRITE_ONCE(pmuscope_emu_pmbirq_dev, dev);
	/* Pairs with the smp_load_acquire() of the tick: dev is set first. */
	smp_store_release(&pmuscope_emu_pmbirq_fn, fn);
}

static struct dentry *pmuscope_emu_dir;
static int pmuscope_emu_hp_state;

bool pmuscope_emu_active(void)
{
	return pmuscope_emu_prof;
}

const char *pmuscope_emu_profile_name(void)
{
	return pmuscope_emu_prof ? pmuscope_emu_prof->name : "";
}

/* ------------------------------------------------------------ model clock */

/*
 * One tick: the time since the last one, split into idle (nothing but the
 * system counter runs, Arm ARM D14.2 for the AMU, WFI/WFE) and busy time,
 * at QEMU's 1 GHz virtual clock, becomes a piece of work for the model's
 * non-PMU units. The PMU itself is QEMU's and counts by itself.
 */
static enum hrtimer_restart pmuscope_emu_tick(struct hrtimer *t)
{
	struct pmuscope_emu_cpu *ec = container_of(t, struct pmuscope_emu_cpu, timer);
	unsigned int cpu = smp_processor_id();
	struct pmuscope_model_work w = { .el = 1 };
	u64 now = ktime_get_ns(), idle_us;
	s64 idle = get_cpu_idle_time_us(cpu, NULL);
	irq_handler_t fn;

	idle_us = idle < 0 ? ec->last_idle_us : idle;
	w.ns = now - ec->last_ns;
	w.idle_ns = min_t(u64, (idle_us - ec->last_idle_us) * NSEC_PER_USEC, w.ns);
	w.cycles = w.ns - w.idle_ns;
	w.insts = w.cycles >> pmuscope_emu_param_icount_shift;
	ec->last_ns = now;
	ec->last_idle_us = idle_us;
	if (!READ_ONCE(ec->paused))
		pmuscope_model_run(cpu, &w);
	/* Pairs with smp_store_release() in pmuscope_emu_set_pmbirq(). */
	fn = smp_load_acquire(&pmuscope_emu_pmbirq_fn);
	if (fn && pmuscope_model_spe_irq_line(cpu))
		fn(0, READ_ONCE(pmuscope_emu_pmbirq_dev));

	hrtimer_forward_now(t, ns_to_ktime((u64)pmuscope_emu_param_tick_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void pmuscope_emu_clock_start(void)
{
	struct pmuscope_emu_cpu *ec = this_cpu_ptr(&pmuscope_emu_cpus);
	s64 idle = get_cpu_idle_time_us(smp_processor_id(), NULL);

	ec->last_ns = ktime_get_ns();
	ec->last_idle_us = idle < 0 ? 0 : idle;
	ec->running = true;
	hrtimer_start(&ec->timer, ns_to_ktime((u64)pmuscope_emu_param_tick_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * CPU hotplug: the model of a CPU keeps time only while it is online. A
 * dead PMU is the model's own: QEMU's would count.
 */
static int pmuscope_emu_cpu_online(unsigned int cpu)
{
	pmuscope_model_set_passthrough(cpu, !pmuscope_emu_prof->pmu_dead);
	pmuscope_emu_clock_start();
	return 0;
}

static int pmuscope_emu_cpu_offline(unsigned int cpu)
{
	struct pmuscope_emu_cpu *ec = per_cpu_ptr(&pmuscope_emu_cpus, cpu);

	hrtimer_cancel(&ec->timer);
	ec->running = false;
	return 0;
}

/* ---------------------------------------------------------------- debugfs */

/*
 * /sys/kernel/debug/pmuscope_emu/run: "cpu=N key=value ...", the keys of
 * struct pmuscope_model_work (ns idle_ns cycles insts loads stores branches
 * mispredicts mem_stall_cycles pc data_addr load_latency el). The work runs
 * on CPU N's model at once.
 */
#define PMUSCOPE_EMU_W struct pmuscope_model_work

static int pmuscope_emu_parse_work(char *buf, unsigned int *cpu,
				   struct pmuscope_model_work *w)
{
	static const struct {
		const char *key;
		size_t off;
		size_t size;
	} keys[] = {
		{ "ns", offsetof(PMUSCOPE_EMU_W, ns),
		  sizeof_field(PMUSCOPE_EMU_W, ns) },
		{ "idle_ns", offsetof(PMUSCOPE_EMU_W, idle_ns),
		  sizeof_field(PMUSCOPE_EMU_W, idle_ns) },
		{ "cycles", offsetof(PMUSCOPE_EMU_W, cycles),
		  sizeof_field(PMUSCOPE_EMU_W, cycles) },
		{ "insts", offsetof(PMUSCOPE_EMU_W, insts),
		  sizeof_field(PMUSCOPE_EMU_W, insts) },
		{ "loads", offsetof(PMUSCOPE_EMU_W, loads),
		  sizeof_field(PMUSCOPE_EMU_W, loads) },
		{ "stores", offsetof(PMUSCOPE_EMU_W, stores),
		  sizeof_field(PMUSCOPE_EMU_W, stores) },
		{ "branches", offsetof(PMUSCOPE_EMU_W, branches),
		  sizeof_field(PMUSCOPE_EMU_W, branches) },
		{ "mispredicts", offsetof(PMUSCOPE_EMU_W, mispredicts),
		  sizeof_field(PMUSCOPE_EMU_W, mispredicts) },
		{ "mem_stall_cycles", offsetof(PMUSCOPE_EMU_W, mem_stall_cycles),
		  sizeof_field(PMUSCOPE_EMU_W, mem_stall_cycles) },
		{ "pc", offsetof(PMUSCOPE_EMU_W, pc),
		  sizeof_field(PMUSCOPE_EMU_W, pc) },
		{ "data_addr", offsetof(PMUSCOPE_EMU_W, data_addr),
		  sizeof_field(PMUSCOPE_EMU_W, data_addr) },
		{ "load_latency", offsetof(PMUSCOPE_EMU_W, load_latency),
		  sizeof_field(PMUSCOPE_EMU_W, load_latency) },
		{ "el", offsetof(PMUSCOPE_EMU_W, el),
		  sizeof_field(PMUSCOPE_EMU_W, el) },
	};
	char *tok, *val;
	unsigned int i;
	u64 v;

	*cpu = UINT_MAX;
	while ((tok = strsep(&buf, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (kstrtou64(val, 0, &v))
			return -EINVAL;
		if (!strcmp(tok, "cpu")) {
			if (v >= nr_cpu_ids || !cpu_online(v))
				return -ENXIO;
			*cpu = v;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (!strcmp(tok, keys[i].key))
				break;
		if (i == ARRAY_SIZE(keys))
			return -EINVAL;
		switch (keys[i].size) {
		case sizeof(u64):
			*(u64 *)((char *)w + keys[i].off) = v;
			break;
		case sizeof(u32):
			if (v > U32_MAX)
				return -ERANGE;
			*(u32 *)((char *)w + keys[i].off) = v;
			break;
		default:
			if (v > U8_MAX)
				return -ERANGE;
			*(u8 *)((char *)w + keys[i].off) = v;
			break;
		}
	}
	if (*cpu == UINT_MAX || w->el > 2 || w->idle_ns > w->ns)
		return -EINVAL;
	return 0;
}

static ssize_t pmuscope_emu_run_write(struct file *file, const char __user *ubuf,
				      size_t len, loff_t *ppos)
{
	struct pmuscope_model_work w = { .el = 0 };
	unsigned int cpu;
	char *buf;
	int ret;

	if (len > 512)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = pmuscope_emu_parse_work(buf, &cpu, &w);
	kfree(buf);
	if (ret)
		return ret;
	pmuscope_model_run(cpu, &w);
	return len;
}

static const struct file_operations pmuscope_emu_run_fops = {
	.owner = THIS_MODULE,
	.write = pmuscope_emu_run_write,
	.llseek = noop_llseek,
};

/*
 * clock: "CPU 0" stops CPU's model clock (its busy time no longer drives
 * the AMU, ICNTR, SPE), "CPU 1" restarts it: then only work written to
 * run counts there, and a test knows every count exactly.
 */
static ssize_t pmuscope_emu_clock_write(struct file *file, const char __user *ubuf,
					size_t len, loff_t *ppos)
{
	unsigned int cpu, on;
	char *buf;
	int n;

	if (len > 64)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	n = sscanf(buf, "%u %u", &cpu, &on);
	kfree(buf);
	if (n != 2 || on > 1)
		return -EINVAL;
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -ENXIO;
	WRITE_ONCE(per_cpu_ptr(&pmuscope_emu_cpus, cpu)->paused, !on);
	return len;
}

static const struct file_operations pmuscope_emu_clock_fops = {
	.owner = THIS_MODULE,
	.write = pmuscope_emu_clock_write,
	.llseek = noop_llseek,
};

/*
 * ss_firmware: "CPU EL3 EL2" sets what firmware leaves in MDCR_EL3.PMSSE
 * and MDCR_EL2.PMSSE (0 disabled, 1 lower EL decides, 2 prohibited, 3
 * allowed) on CPU, as firmware of a real board would have: the tests of
 * the snapshot unit's refusals (NC = 1, a stale NC = 0).
 */
static ssize_t pmuscope_emu_ss_fw_write(struct file *file, const char __user *ubuf,
					size_t len, loff_t *ppos)
{
	unsigned int cpu, el3, el2;
	char *buf;
	int n;

	if (len > 64)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	n = sscanf(buf, "%u %u %u", &cpu, &el3, &el2);
	kfree(buf);
	if (n != 3 || el3 > 3 || el2 > 3)
		return -EINVAL;
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -ENXIO;
	pmuscope_model_ss_set_firmware(cpu, el3, el2, true, true);
	return len;
}

static const struct file_operations pmuscope_emu_ss_fw_fops = {
	.owner = THIS_MODULE,
	.write = pmuscope_emu_ss_fw_write,
	.llseek = noop_llseek,
};

static int pmuscope_emu_profile_show(struct seq_file *s, void *unused)
{
	seq_printf(s, "%s\n", pmuscope_emu_prof->name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pmuscope_emu_profile);

/*
 * /sys/kernel/debug/pmuscope_emu/amu: the modelled group-0 AMU counters of
 * each online CPU (core cycles, constant-frequency cycles, instructions,
 * memory stall cycles), for tests that hold them against the PMU's counts
 * until the driver reads the AMU itself.
 */
static int pmuscope_emu_amu_show(struct seq_file *s, void *unused)
{
	static const char * const names[] = {
		"core_cycles", "const_cycles", "insts", "mem_stall_cycles",
	};
	unsigned int cpu, i;

	if (!pmuscope_model_implements(pmuscope_emu_prof, PMUSCOPE_REG_AMEVCNTR0(0)))
		return -ENODEV;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		seq_printf(s, "cpu%u", cpu);
		for (i = 0; i < ARRAY_SIZE(names); i++)
			seq_printf(s, " %s=%llu", names[i],
				   pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_AMEVCNTR0(i)));
		seq_puts(s, "\n");
	}
	cpus_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pmuscope_emu_amu);

/*
 * /sys/kernel/debug/pmuscope_emu/amu_reads: per online CPU, how many times
 * the driver has read that CPU's AMCNTENSET0_EL0. The driver reads it for
 * each record of PMUSCOPE_IOC_AMU_READ (and for sysfs amu_enabled/g0_<n>),
 * never on idle entry or exit, and the amu file above does not: a test
 * waits for it to move to know that a reader's read of the CPU's AMU has
 * happened, rather than sleeping and hoping it has.
 */
static int pmuscope_emu_amu_reads_show(struct seq_file *s, void *unused)
{
	unsigned int cpu;

	if (!pmuscope_model_implements(pmuscope_emu_prof, PMUSCOPE_REG_AMCNTENSET0_EL0))
		return -ENODEV;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);
		unsigned long flags;
		unsigned int n;

		raw_spin_lock_irqsave(&m->lock, flags);
		n = m->reads[PMUSCOPE_REG_AMCNTENSET0_EL0];
		raw_spin_unlock_irqrestore(&m->lock, flags);
		seq_printf(s, "cpu%u %u\n", cpu, n);
	}
	cpus_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pmuscope_emu_amu_reads);

/*
 * /sys/kernel/debug/pmuscope_emu/spe: the model's own count of each CPU's
 * SPE samples (operations selected), records completely written to the
 * buffer, collected records lost unwritten, and operations let pass
 * unsampled while profiling was stopped (a full buffer waiting for its
 * PMBIRQ), for tests to compare what the driver delivered with what the
 * SPU did; then whether the SPU profiles (PMBLIMITR_EL1.E, PMBSR_EL1.S
 * clear, PMSCR_EL1.E0SPE or E1SPE) and whether its PMBIRQ is asserted (a
 * full buffer the driver has not yet handled), so that a test can wait for
 * profiling to start or resume instead of sleeping.
 */
static int pmuscope_emu_spe_show(struct seq_file *s, void *unused)
{
	unsigned int cpu;

	if (!pmuscope_model_implements(pmuscope_emu_prof, PMUSCOPE_REG_PMSIDR_EL1))
		return -ENODEV;
	for_each_possible_cpu(cpu) {
		struct pmuscope_model_cpu *m = pmuscope_model_get(cpu);

		u64 pmblimitr = READ_ONCE(m->spe.pmblimitr);
		u64 pmscr = READ_ONCE(m->spe.pmscr);
		bool irq = pmuscope_model_spe_irq_line(cpu);

		seq_printf(s, "cpu%u samples=%u records=%u lost=%u stopped_ops=%llu profiling=%d irq=%d\n",
			   cpu, READ_ONCE(m->spe.samples), READ_ONCE(m->spe.records),
			   READ_ONCE(m->spe.lost), READ_ONCE(m->spe.stopped_ops),
			   (pmblimitr & PMUSCOPE_PMBLIMITR_E) && !irq &&
			   (pmscr & (PMUSCOPE_PMSCR_E0SPE | PMUSCOPE_PMSCR_E1SPE)), irq);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pmuscope_emu_spe);

/*
 * /sys/kernel/debug/pmuscope_emu/spe_selftest: "cpu=N" programs the
 * modelled SPE of CPU N into a registered buffer, runs a workload that
 * fills it (buffer full: PMBSR_EL1.S, PMBIRQ), and waits for the model's
 * clock to deliver PMBIRQ to a handler. Reading gives what happened:
 * deliveries, whether every one came in hard-IRQ context, the buffer-full
 * status seen and the bytes of records written.
 */
#define PMUSCOPE_EMU_SPE_BUF	(2 * PAGE_SIZE)

static struct {
	unsigned int cpu;
	atomic_t irqs;
	atomic_t not_hardirq;
	u64 pmbsr;
	u64 bytes;
} pmuscope_emu_spe_st;

static irqreturn_t pmuscope_emu_spe_st_irq(int irq, void *dev)
{
	unsigned int cpu = smp_processor_id();
	void *buf = dev;

	if (cpu != pmuscope_emu_spe_st.cpu)
		return IRQ_NONE;
	if (!in_hardirq())
		atomic_inc(&pmuscope_emu_spe_st.not_hardirq);
	/* What an SPE driver does first: synchronise, then read PMBSR_EL1. */
	pmuscope_model_barrier(PMUSCOPE_BARRIER_PSB_CSYNC);
	pmuscope_model_barrier(PMUSCOPE_BARRIER_DSB_NSH);
	pmuscope_emu_spe_st.pmbsr = pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_PMBSR_EL1);
	pmuscope_emu_spe_st.bytes = pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_PMBPTR_EL1) -
				    (u64)(uintptr_t)buf;
	/* Stop profiling, then clear PMBSR_EL1: the line goes low. */
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMSCR_EL1, 0);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMBLIMITR_EL1, 0);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMBSR_EL1, 0);
	atomic_inc(&pmuscope_emu_spe_st.irqs);
	return IRQ_HANDLED;
}

static int pmuscope_emu_spe_selftest(unsigned int cpu)
{
	struct pmuscope_model_work w = {
		.ns = 10000000, .cycles = 10000000, .insts = 4000000,
		.loads = 1000000, .stores = 500000, .branches = 500000,
		.pc = 0xffff800010000000ULL, .data_addr = 0xffff800020000000ULL,
		.load_latency = 20, .el = 1,
	};
	u64 pmsidr, interval;
	void *buf;
	int ret, i;

	if (!pmuscope_model_implements(pmuscope_emu_prof, PMUSCOPE_REG_PMSIDR_EL1))
		return -ENODEV;
	buf = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
				       get_order(PMUSCOPE_EMU_SPE_BUF));
	if (!buf)
		return -ENOMEM;
	ret = pmuscope_model_spe_add_buffer(cpu, buf, PMUSCOPE_EMU_SPE_BUF);
	if (ret)
		goto out_free;
	memset(&pmuscope_emu_spe_st, 0, sizeof(pmuscope_emu_spe_st));
	pmuscope_emu_spe_st.cpu = cpu;
	pmuscope_emu_set_pmbirq(pmuscope_emu_spe_st_irq, buf);

	pmsidr = pmuscope_model_read_cpu(cpu, PMUSCOPE_REG_PMSIDR_EL1);
	interval = 256 << FIELD_GET(PMUSCOPE_PMSIDR_INTERVAL, pmsidr);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMSIRR_EL1,
				 FIELD_PREP(PMUSCOPE_PMSIRR_INTERVAL, interval >> 8));
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMSFCR_EL1, 0);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMSICR_EL1, 0);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMBPTR_EL1, (u64)(uintptr_t)buf);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMBSR_EL1, 0);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMBLIMITR_EL1,
				 ((u64)(uintptr_t)buf + PMUSCOPE_EMU_SPE_BUF) |
				 PMUSCOPE_PMBLIMITR_E);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMSCR_EL1,
				 PMUSCOPE_PMSCR_E0SPE | PMUSCOPE_PMSCR_E1SPE);
	pmuscope_model_run(cpu, &w);
	/* The model's clock takes the interrupt within a tick or two. */
	for (i = 0; i < 50 && !atomic_read(&pmuscope_emu_spe_st.irqs); i++)
		msleep(20);

	pmuscope_emu_set_pmbirq(NULL, NULL);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMSCR_EL1, 0);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMBLIMITR_EL1, 0);
	pmuscope_model_write_cpu(cpu, PMUSCOPE_REG_PMBSR_EL1, 0);
	synchronize_rcu();	/* a tick that saw the handler has ended */
	pmuscope_model_spe_remove_buffer(cpu, buf);
out_free:
	free_pages((unsigned long)buf, get_order(PMUSCOPE_EMU_SPE_BUF));
	return ret;
}

static ssize_t pmuscope_emu_spe_st_write(struct file *file, const char __user *ubuf,
					 size_t len, loff_t *ppos)
{
	unsigned int cpu;
	char buf[32];
	int ret;

	if (len >= sizeof(buf))
		return -E2BIG;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "cpu=%u", &cpu) != 1)
		return -EINVAL;
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -ENXIO;
	ret = pmuscope_emu_spe_selftest(cpu);
	return ret ? ret : len;
}

static int pmuscope_emu_spe_st_show(struct seq_file *s, void *unused)
{
	seq_printf(s, "cpu=%u pmbirq=%d not_hardirq=%d pmbsr=0x%llx bytes=%llu\n",
		   pmuscope_emu_spe_st.cpu, atomic_read(&pmuscope_emu_spe_st.irqs),
		   atomic_read(&pmuscope_emu_spe_st.not_hardirq),
		   pmuscope_emu_spe_st.pmbsr, pmuscope_emu_spe_st.bytes);
	return 0;
}

static int pmuscope_emu_spe_st_open(struct inode *inode, struct file *file)
{
	return single_open(file, pmuscope_emu_spe_st_show, NULL);
}

static const struct file_operations pmuscope_emu_spe_st_fops = {
	.owner = THIS_MODULE,
	.open = pmuscope_emu_spe_st_open,
	.read = seq_read,
	.write = pmuscope_emu_spe_st_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ------------------------------------------------------------ load/unload */

static const struct pmuscope_model_profile *pmuscope_emu_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pmuscope_emu_profiles); i++)
		if (sysfs_streq(name, pmuscope_emu_profiles[i]->name))
			return pmuscope_emu_profiles[i];
	return NULL;
}

/* Called first by pmuscope_init(): the model must stand before the probe. */
int pmuscope_emu_init(void)
{
	const struct pmuscope_model_profile *prof;
	unsigned int cpu;
	int ret;

	prof = pmuscope_emu_find(pmuscope_emu_param_profile);
	if (!prof) {
		pr_err("pmuscope_emu: unknown profile '%s' (neoverse-n1, v9.4-like, cortex-a53, dead-pmu)\n",
		       pmuscope_emu_param_profile);
		return -EINVAL;
	}
	if (pmuscope_emu_param_icount_shift > 10 || pmuscope_emu_param_tick_us < 100 ||
	    pmuscope_emu_param_tick_us > 1000000) {
		pr_err("pmuscope_emu: icount_shift 0..10, tick_us 100..1000000\n");
		return -EINVAL;
	}

	for_each_possible_cpu(cpu) {
		struct pmuscope_emu_cpu *ec = per_cpu_ptr(&pmuscope_emu_cpus, cpu);

		hrtimer_init(&ec->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		ec->timer.function = pmuscope_emu_tick;
	}

	pmuscope_model_reset_all(prof);
	pmuscope_emu_prof = prof;

	/*
	 * Online CPUs now and later: passthrough on (off for a dead PMU), the
	 * model's clock started.
	 */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/pmuscope_emu:online",
				pmuscope_emu_cpu_online, pmuscope_emu_cpu_offline);
	if (ret < 0) {
		pmuscope_emu_prof = NULL;
		return ret;
	}
	pmuscope_emu_hp_state = ret;

	pmuscope_emu_dir = debugfs_create_dir("pmuscope_emu", NULL);
	debugfs_create_file("run", 0200, pmuscope_emu_dir, NULL, &pmuscope_emu_run_fops);
	debugfs_create_file("clock", 0200, pmuscope_emu_dir, NULL, &pmuscope_emu_clock_fops);
	debugfs_create_file("ss_firmware", 0200, pmuscope_emu_dir, NULL,
			    &pmuscope_emu_ss_fw_fops);
	debugfs_create_file("profile", 0444, pmuscope_emu_dir, NULL,
			    &pmuscope_emu_profile_fops);
	debugfs_create_file("amu", 0444, pmuscope_emu_dir, NULL, &pmuscope_emu_amu_fops);
	debugfs_create_file("amu_reads", 0444, pmuscope_emu_dir, NULL,
			    &pmuscope_emu_amu_reads_fops);
	debugfs_create_file("spe", 0444, pmuscope_emu_dir, NULL, &pmuscope_emu_spe_fops);
	debugfs_create_file("spe_selftest", 0600, pmuscope_emu_dir, NULL,
			    &pmuscope_emu_spe_st_fops);

	if (prof->pmu_dead)
		pr_info("pmuscope_emu: EMULATED %s: a fault model, the register model's PMUv3 whose counters never count. Not hardware.\n",
			prof->name);
	else
		pr_info("pmuscope_emu: EMULATED %s: the register model supplies snapshot, SPE, AMU and ICNTR; PMUv3 is the CPU's own. Not hardware.\n",
			prof->name);
	return 0;
}

/* Called last by pmuscope_exit() and when pmuscope_init() fails. */
void pmuscope_emu_exit(void)
{
	if (!pmuscope_emu_prof)
		return;
	debugfs_remove_recursive(pmuscope_emu_dir);
	cpuhp_remove_state(pmuscope_emu_hp_state);
	pmuscope_emu_prof = NULL;
}
