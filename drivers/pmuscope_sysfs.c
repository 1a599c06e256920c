// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: sysfs interface, /sys/kernel/pmuscope.
 *
 * One value per file; every file is documented in
 * Documentation/ABI/testing/sysfs-kernel-pmuscope.
 */

#include <linux/bitfield.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/kobject.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "pmuscope.h"
#include "pmuscope_hw.h"
#include "pmuscope_regs.h"

/* ------------------------------------------------------------ root files */
static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", PMUSCOPE_DRV_VERSION);
}

static struct kobj_attribute pmuscope_attr_version = __ATTR_RO(version);

static ssize_t kernel_el_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", pmuscope_kernel_el());
}

static struct kobj_attribute pmuscope_attr_kernel_el = __ATTR_RO(kernel_el);

/* 1 in pmuscope_emu.ko: the registers are the register model's. */
static ssize_t emulated_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%d\n", pmuscope_emu_active());
}

static struct kobj_attribute pmuscope_attr_emulated = __ATTR_RO(emulated);

/* The emulated CPU profile; empty in pmuscope.ko. */
static ssize_t emulated_profile_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", pmuscope_emu_profile_name());
}

static struct kobj_attribute pmuscope_attr_emulated_profile =
	__ATTR_RO(emulated_profile);

/* Who drives the PMU: "direct" (pmuscope) or "perf" (perf's PMU driver). */
static ssize_t backend_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", pmuscope_backend_perf() ? "perf" : "direct");
}

static struct kobj_attribute pmuscope_attr_backend = __ATTR_RO(backend);

/*
 * Where the SPE's PMBIRQ comes from: "firmware" (DT or ACPI), "parameter"
 * (spe_irq=), "emulated" (the register model), or "none" (no SPE device,
 * or perf's arm_spe_pmu driver holds it).
 */
static ssize_t spe_irq_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", pmuscope_spe_irq_state());
}

static struct kobj_attribute pmuscope_attr_spe_irq = __ATTR_RO(spe_irq);

static struct attribute *pmuscope_root_attrs[] = {
	&pmuscope_attr_version.attr,
	&pmuscope_attr_backend.attr,
	&pmuscope_attr_kernel_el.attr,
	&pmuscope_attr_emulated.attr,
	&pmuscope_attr_emulated_profile.attr,
	&pmuscope_attr_spe_irq.attr,
	NULL
};

static const struct attribute_group pmuscope_root_group = {
	.attrs = pmuscope_root_attrs,
};

/* --------------------------------------------------------- per-CPU files */
static struct pmuscope_cpu *pmuscope_kobj_to_cpu(struct kobject *kobj)
{
	return container_of(kobj, struct pmuscope_cpu, kobj);
}

/*
 * Copy the CPU's capabilities under the lock. Returns -ENODATA until the CPU
 * has been online once since the module was loaded.
 */
static int pmuscope_get_caps(struct kobject *kobj, struct pmuscope_cpu_caps *caps)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	int ret = 0;

	mutex_lock(&pmuscope_drv.lock);
	if (pcpu->probed)
		*caps = pcpu->caps;
	else
		ret = -ENODATA;
	mutex_unlock(&pmuscope_drv.lock);
	return ret;
}

static ssize_t probed_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	bool probed;

	mutex_lock(&pmuscope_drv.lock);
	probed = pcpu->probed;
	mutex_unlock(&pmuscope_drv.lock);
	return sysfs_emit(buf, "%d\n", probed);
}

static struct kobj_attribute pmuscope_attr_probed = __ATTR_RO(probed);

/* A read-only file whose value is one expression of the CPU's caps. */
#define PMUSCOPE_CAPS_ATTR(_name, _fmt, _expr)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct pmuscope_cpu_caps *c;					\
	ssize_t ret;							\
									\
	c = kmalloc(sizeof(*c), GFP_KERNEL);				\
	if (!c)								\
		return -ENOMEM;						\
	ret = pmuscope_get_caps(kobj, c);				\
	if (!ret)							\
		ret = sysfs_emit(buf, _fmt "\n", _expr);		\
	kfree(c);							\
	return ret;							\
}									\
static struct kobj_attribute pmuscope_attr_##_name = __ATTR_RO(_name)

PMUSCOPE_CAPS_ATTR(midr, "0x%08llx", c->regs.midr);
PMUSCOPE_CAPS_ATTR(cpu_name, "%s", pmuscope_cpu_name(c->regs.midr));
PMUSCOPE_CAPS_ATTR(pmu, "%s", pmuscope_state_name(c->state[PMUSCOPE_UNIT_PMU]));
PMUSCOPE_CAPS_ATTR(pmu_version, "%u", c->pmuver);
PMUSCOPE_CAPS_ATTR(pmu_version_name, "%s", pmuscope_pmuver_name(c->pmuver));
PMUSCOPE_CAPS_ATTR(num_event_counters, "%u", c->num_counters);
PMUSCOPE_CAPS_ATTR(event_counter_width, "%u", c->evcnt_width);
PMUSCOPE_CAPS_ATTR(cycle_counter_width, "%u", c->ccnt_width);
PMUSCOPE_CAPS_ATTR(pmceid0, "0x%016llx", c->regs.pmceid0);
PMUSCOPE_CAPS_ATTR(pmceid1, "0x%016llx", c->regs.pmceid1);
PMUSCOPE_CAPS_ATTR(snapshot, "%s",
		   pmuscope_state_name(c->state[PMUSCOPE_UNIT_SNAPSHOT]));
PMUSCOPE_CAPS_ATTR(spe, "%s", pmuscope_state_name(c->state[PMUSCOPE_UNIT_SPE]));
PMUSCOPE_CAPS_ATTR(spe_version, "%u", c->pmsver);
/* 0 where the CPU's SPE is not usable (PMSIDR_EL1/PMBIDR_EL1 not read). */
#define PMUSCOPE_SPE_OK(c)	((c)->state[PMUSCOPE_UNIT_SPE] == PMUSCOPE_STATE_PRESENT)
PMUSCOPE_CAPS_ATTR(spe_min_interval, "%llu",
		   PMUSCOPE_SPE_OK(c) ? pmuscope_spe_min_interval(c->regs.pmsidr) : 0);
PMUSCOPE_CAPS_ATTR(spe_max_record, "%llu",
		   PMUSCOPE_SPE_OK(c) ?
		   BIT_ULL(FIELD_GET(PMUSCOPE_PMSIDR_MAXSIZE, c->regs.pmsidr)) : 0);
PMUSCOPE_CAPS_ATTR(spe_align, "%llu",
		   PMUSCOPE_SPE_OK(c) ?
		   BIT_ULL(FIELD_GET(PMUSCOPE_PMBIDR_ALIGN, c->regs.pmbidr)) : 0);
/* The filters PMSIDR_EL1 says this CPU's SPE has: "events nevents ops latency". */
static ssize_t spe_filters_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	struct pmuscope_cpu_caps *c;
	u64 idr;
	ssize_t ret;

	c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = pmuscope_get_caps(kobj, c);
	if (!ret) {
		idr = PMUSCOPE_SPE_OK(c) ? c->regs.pmsidr : 0;
		ret = sysfs_emit(buf, "%s%s%s%s\n",
				 idr & PMUSCOPE_PMSIDR_FE ? "events " : "",
				 idr & PMUSCOPE_PMSIDR_FNE ? "nevents " : "",
				 idr & PMUSCOPE_PMSIDR_FT ? "ops " : "",
				 idr & PMUSCOPE_PMSIDR_FL ? "latency" : "");
	}
	kfree(c);
	return ret;
}

static struct kobj_attribute pmuscope_attr_spe_filters = __ATTR_RO(spe_filters);
PMUSCOPE_CAPS_ATTR(amu, "%s", pmuscope_state_name(c->state[PMUSCOPE_UNIT_AMU]));
PMUSCOPE_CAPS_ATTR(amu_version, "%u", c->amuver);
PMUSCOPE_CAPS_ATTR(amu_counters, "%u", c->amu_counters);

/* --------------------------------------------------- counting from sysfs */

static ssize_t select_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	struct pmuscope_session *sess;
	ssize_t len = 0;

	mutex_lock(&pmuscope_drv.lock);
	sess = pcpu->sysfs_sess;
	if (sess && sess->configured)
		len = pmuscope_format_selection(sess->ev, sess->nr_events,
						pmuscope_kernel_el(), buf, PAGE_SIZE - 1);
	mutex_unlock(&pmuscope_drv.lock);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/*
 * The sysfs session of a CPU lives in pcpu->sysfs_sess. Every store looks it
 * up, uses it and (for select) replaces or drops it with cpus_read_lock()
 * and pmuscope_drv.lock held throughout; sessions are allocated before and
 * freed after the locks.
 */
static ssize_t select_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	struct pmuscope_session *fresh = NULL, *old = NULL, *sess;
	struct pmuscope_event *evs;
	bool probed;
	char *str;
	u64 midr;
	u32 nr = 0;
	int ret;

	/* the CPU-online path rewrites caps under the lock */
	mutex_lock(&pmuscope_drv.lock);
	probed = pcpu->probed;
	midr = pcpu->caps.regs.midr;
	mutex_unlock(&pmuscope_drv.lock);
	if (!probed)
		return -ENODATA;	/* as its caps files: never online */

	str = kstrndup(buf, count, GFP_KERNEL);
	evs = kcalloc(PMUSCOPE_MAX_EVENTS, sizeof(*evs), GFP_KERNEL);
	ret = -ENOMEM;
	if (!str || !evs)
		goto out;
	ret = pmuscope_parse_selection(str, pmuscope_kernel_el(), midr, evs, &nr);
	if (ret)
		goto out;
	if (nr) {
		fresh = pmuscope_session_alloc(pcpu->cpu);
		ret = -ENOMEM;
		if (!fresh)
			goto out;
	}

	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	sess = pcpu->sysfs_sess;
	if (!nr) {
		/* An empty selection gives the counters back. */
		if (sess) {
			pmuscope_session_unlink_locked(sess);
			pcpu->sysfs_sess = NULL;
			old = sess;
		}
		ret = 0;
	} else {
		if (!sess) {
			sess = fresh;
			fresh = NULL;
			pmuscope_session_link_locked(sess);
			pcpu->sysfs_sess = sess;
		}
		ret = pmuscope_session_configure_locked(sess, evs, nr,
							cpumask_of(pcpu->cpu));
		if (ret && !sess->configured) {
			pmuscope_session_unlink_locked(sess);
			pcpu->sysfs_sess = NULL;
			old = sess;
		}
	}
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
out:
	pmuscope_session_free(fresh);
	pmuscope_session_free(old);
	kfree(evs);
	kfree(str);
	return ret ? ret : count;
}

static struct kobj_attribute pmuscope_attr_select = __ATTR_RW(select);

static ssize_t enable_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	bool on;

	mutex_lock(&pmuscope_drv.lock);
	on = pcpu->sysfs_sess && pcpu->sysfs_sess->enabled;
	mutex_unlock(&pmuscope_drv.lock);
	return sysfs_emit(buf, "%d\n", on);
}

enum pmuscope_sysfs_op {
	PMUSCOPE_SYSFS_DISABLE,
	PMUSCOPE_SYSFS_ENABLE,
	PMUSCOPE_SYSFS_RESET,
};

/* enable/reset on the CPU's sysfs session, found and used in one hold. */
static int pmuscope_sysfs_act(struct kobject *kobj, enum pmuscope_sysfs_op op)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	struct pmuscope_session *sess;
	int ret = -EINVAL;	/* nothing selected */

	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	sess = pcpu->sysfs_sess;
	if (sess && op == PMUSCOPE_SYSFS_RESET)
		ret = pmuscope_session_reset_locked(sess);
	else if (sess)
		ret = pmuscope_session_enable_locked(sess, op == PMUSCOPE_SYSFS_ENABLE);
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	return ret;
}

static ssize_t enable_store(struct kobject *kobj, struct kobj_attribute *attr,
			    const char *buf, size_t count)
{
	bool on;
	int ret;

	ret = pmuscope_parse_01(buf, count, &on);
	if (!ret)
		ret = pmuscope_sysfs_act(kobj, on ? PMUSCOPE_SYSFS_ENABLE :
					 PMUSCOPE_SYSFS_DISABLE);
	return ret ? ret : count;
}

static struct kobj_attribute pmuscope_attr_enable = __ATTR_RW(enable);

static ssize_t reset_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	bool yes;
	int ret;

	ret = pmuscope_parse_01(buf, count, &yes);
	if (!ret)
		ret = yes ? pmuscope_sysfs_act(kobj, PMUSCOPE_SYSFS_RESET) : -EINVAL;
	return ret ? ret : count;
}

static struct kobj_attribute pmuscope_attr_reset = __ATTR_WO(reset);

/* ---------------------------------------------------- snapshots from sysfs */

static ssize_t snapshot_hw_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);

	return sysfs_emit(buf, "%s\n", pmuscope_ss_hw_name(READ_ONCE(pcpu->pmu.ss_hw)));
}

static struct kobj_attribute pmuscope_attr_snapshot_hw = __ATTR_RO(snapshot_hw);

static const char *const pmuscope_snap_method_names[] = {
	[PMUSCOPE_SNAP_HARDWARE] = "hardware",
	[PMUSCOPE_SNAP_SOFTWARE] = "software",
	[PMUSCOPE_SNAP_PERF] = "perf",
	[PMUSCOPE_SNAP_IDLE] = "idle",
};

/* snapshot_last's text of one snapshot of the CPU's sysfs session. */
static int pmuscope_snap_format(const struct pmuscope_session *sess,
				const struct pmuscope_snap_result *res, char *buf,
				size_t len)
{
	const struct pmuscope_snap_cpu *sc = &res->cpus[0];
	int n;
	u32 i;

	n = scnprintf(buf, len, "method %s\nflags%s%s%s%s\ntime %llu\nfrozen %llu\n",
		      sc->method < ARRAY_SIZE(pmuscope_snap_method_names) &&
		      pmuscope_snap_method_names[sc->method] ?
		      pmuscope_snap_method_names[sc->method] : "?",
		      sc->flags & PMUSCOPE_SNAPCPU_LATE ? " late" : "",
		      sc->flags & PMUSCOPE_SNAPCPU_FALLBACK ? " fallback" : "",
		      sc->flags & PMUSCOPE_SNAPCPU_OFFLINE ? " offline" : "",
		      sc->flags ? "" : " none",
		      sc->time, sc->frozen);
	for (i = 0; i < res->nr_vals; i++) {
		n += pmuscope_format_event(sess->ev[i].event, sess->ev[i].flags,
					   pmuscope_kernel_el(), buf + n, len - n);
		n += scnprintf(buf + n, len - n, " %llu\n", res->vals[i].count);
	}
	return n;
}

/*
 * snapshot_take: "1" takes a snapshot of the CPU's sysfs session (its
 * selected counters) and keeps it for snapshot_last. With cpus_read_lock()
 * and pmuscope_drv.lock held, like every sysfs store of the session.
 */
static ssize_t snapshot_take_store(struct kobject *kobj, struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	struct pmuscope_snap_result res = { };
	struct pmuscope_session *sess;
	char *text, *old = NULL;
	bool yes;
	int ret;

	ret = pmuscope_parse_01(buf, count, &yes);
	if (ret)
		return ret;
	if (!yes)
		return -EINVAL;
	text = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	cpus_read_lock();
	mutex_lock(&pmuscope_drv.lock);
	sess = pcpu->sysfs_sess;
	ret = -EINVAL;		/* nothing selected */
	if (sess) {
		ret = pmuscope_session_snapshot_cpuslocked(sess, 0, 0, PMUSCOPE_MAX_EVENTS,
							   1, &res);
		if (!ret) {
			pmuscope_snap_format(sess, &res, text, PAGE_SIZE);
			old = pcpu->snap_text;
			pcpu->snap_text = text;
			text = NULL;
		}
		pmuscope_session_read_end(sess);
	}
	mutex_unlock(&pmuscope_drv.lock);
	cpus_read_unlock();
	kfree(res.alloc);
	kfree(old);
	kfree(text);
	return ret ? ret : count;
}

static struct kobj_attribute pmuscope_attr_snapshot_take = __ATTR_WO(snapshot_take);

static ssize_t snapshot_last_show(struct kobject *kobj, struct kobj_attribute *attr,
				  char *buf)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	ssize_t len = 0;

	mutex_lock(&pmuscope_drv.lock);
	if (pcpu->snap_text)
		len = sysfs_emit(buf, "%s", pcpu->snap_text);
	mutex_unlock(&pmuscope_drv.lock);
	return len;
}

/* Counts of the CPU, as counter_value/: root only. */
static struct kobj_attribute pmuscope_attr_snapshot_last =
	__ATTR(snapshot_last, 0400, snapshot_last_show, NULL);

/* counter_owner/<n>, counter_event/<n>, counter_value/<n>: one per counter. */
enum pmuscope_counter_file {
	PMUSCOPE_CF_OWNER,
	PMUSCOPE_CF_EVENT,
	PMUSCOPE_CF_VALUE,
	PMUSCOPE_NR_CF
};

struct pmuscope_counter_attr {
	struct kobj_attribute kattr;
	unsigned int idx;
	enum pmuscope_counter_file what;
	char name[8];
};

static struct pmuscope_counter_attr pmuscope_counter_attrs[PMUSCOPE_NR_CF][PMUSCOPE_NR_COUNTERS];
static struct attribute *pmuscope_counter_ptrs[PMUSCOPE_NR_CF][PMUSCOPE_NR_COUNTERS + 1];

struct pmuscope_read_one {
	struct pmuscope_pmu *pmu;
	unsigned int idx;
	struct pmuscope_value val;
};

static void pmuscope_read_one_fn(void *info)
{
	struct pmuscope_read_one *r = info;
	unsigned long flags;

	raw_spin_lock_irqsave(&r->pmu->lock, flags);
	if (r->pmu->hw_ready)
		pmuscope_pmu_check(r->pmu, ktime_get_ns());
	pmuscope_hwc_read(r->pmu, r->idx, ktime_get_ns(), &r->val);
	raw_spin_unlock_irqrestore(&r->pmu->lock, flags);
}

/*
 * perf backend: perf places the events, and pmuscope sees none of its
 * counters. Counter n is then the sysfs session's event that would have
 * counter n on a free PMU (its plan); sessions of /dev/pmuscope are not
 * shown. Caller holds pmuscope_drv.lock.
 */
static ssize_t pmuscope_counter_show_perf(struct pmuscope_cpu *pcpu,
					  struct pmuscope_counter_attr *ca, char *buf)
{
	struct pmuscope_session *sess = pcpu->sysfs_sess;
	struct pmuscope_value v;
	char text[64];
	u32 i;

	for (i = 0; sess && sess->configured && !sess->ops->hw_counters &&
	     i < sess->nr_events; i++)
		if (sess->hw[pcpu->cpu * PMUSCOPE_MAX_EVENTS + i] == ca->idx)
			break;
	if (!sess || !sess->configured || sess->ops->hw_counters || i == sess->nr_events)
		return ca->what == PMUSCOPE_CF_VALUE ? -ENODATA :
		       sysfs_emit(buf, "%s\n", ca->what == PMUSCOPE_CF_OWNER ?
				  "free" : "none");
	switch (ca->what) {
	case PMUSCOPE_CF_OWNER:
		pmuscope_session_describe(sess, text, sizeof(text));
		return sysfs_emit(buf, "%s\n", text);
	case PMUSCOPE_CF_EVENT:
		pmuscope_format_event(sess->ev[i].event, sess->ev[i].flags,
				      pmuscope_kernel_el(), text, sizeof(text));
		return sysfs_emit(buf, "%s\n", text);
	default:
		pmuscope_psess_read_one(sess, pcpu->cpu, i, &v);
		return sysfs_emit(buf, "%llu\n", v.count);
	}
}

static ssize_t pmuscope_counter_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	struct pmuscope_counter_attr *ca =
		container_of(attr, struct pmuscope_counter_attr, kattr);
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	struct pmuscope_hwc *hwc = &pcpu->pmu.hwc[ca->idx];
	struct pmuscope_read_one r = { .pmu = &pcpu->pmu, .idx = ca->idx };
	const struct pmuscope_session *owner;
	char text[64];
	ssize_t ret;

	/*
	 * No cpus_read_lock() here: the CPU hotplug callback updates these
	 * groups (draining their readers) with the hotplug lock held.
	 */
	mutex_lock(&pmuscope_drv.lock);
	if (pmuscope_backend_perf()) {
		ret = pmuscope_counter_show_perf(pcpu, ca, buf);
		goto out;
	}
	/*
	 * Read once: a task counter (pmuscope_ppmu.c) takes and gives back
	 * its counter as perf switches tasks, on its CPU, without our locks.
	 * A session's pointer stays valid under pmuscope_drv.lock (held),
	 * the task counters' is static.
	 */
	owner = READ_ONCE(hwc->owner);
	if (!owner) {
		ret = ca->what == PMUSCOPE_CF_VALUE ? -ENODATA :
		      sysfs_emit(buf, "%s\n", ca->what == PMUSCOPE_CF_OWNER ?
				 "free" : "none");
		goto out;
	}
	switch (ca->what) {
	case PMUSCOPE_CF_OWNER:
		pmuscope_session_describe(owner, text, sizeof(text));
		ret = sysfs_emit(buf, "%s\n", text);
		break;
	case PMUSCOPE_CF_EVENT:
		if (owner == &pmuscope_ppmu_owner) {
			const struct pmuscope_event_desc *d = pmuscope_event_by_number(hwc->event);

			if (d)
				snprintf(text, sizeof(text), "%s", d->name);
			else
				snprintf(text, sizeof(text), "r%04x", hwc->event);
		} else {
			pmuscope_format_event(owner->ev[hwc->slot].event,
					      owner->ev[hwc->slot].flags,
					      pmuscope_kernel_el(), text, sizeof(text));
		}
		ret = sysfs_emit(buf, "%s\n", text);
		break;
	default:
		/* Offline (the IPI fails): its counts were saved, read here. */
		if (smp_call_function_single(pcpu->cpu, pmuscope_read_one_fn, &r, 1))
			pmuscope_read_one_fn(&r);
		ret = sysfs_emit(buf, "%llu\n", r.val.count);
		break;
	}
out:
	mutex_unlock(&pmuscope_drv.lock);
	return ret;
}

static umode_t pmuscope_counter_visible(struct kobject *kobj,
					struct attribute *attr, int n)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	bool has;

	mutex_lock(&pmuscope_drv.lock);
	has = pcpu->probed &&
	      (pmuscope_counters_of(&pcpu->caps) & BIT(n));
	mutex_unlock(&pmuscope_drv.lock);
	return has ? attr->mode : 0;
}

static struct attribute_group pmuscope_counter_groups[PMUSCOPE_NR_CF] = {
	[PMUSCOPE_CF_OWNER] = { .name = "counter_owner" },
	[PMUSCOPE_CF_EVENT] = { .name = "counter_event" },
	[PMUSCOPE_CF_VALUE] = { .name = "counter_value" },
};

static void pmuscope_counter_attrs_init(void)
{
	unsigned int f, i;

	for (f = 0; f < PMUSCOPE_NR_CF; f++) {
		for (i = 0; i < PMUSCOPE_NR_COUNTERS; i++) {
			struct pmuscope_counter_attr *ca = &pmuscope_counter_attrs[f][i];

			if (i == PMUSCOPE_CYCLE_IDX)
				snprintf(ca->name, sizeof(ca->name), "cycle");
			else
				snprintf(ca->name, sizeof(ca->name), "%u", i);
			sysfs_attr_init(&ca->kattr.attr);
			ca->kattr.attr.name = ca->name;
			/*
			 * Counts of system-wide counting, and who counts
			 * (the pid and command of other users' sessions):
			 * root only.
			 */
			ca->kattr.attr.mode = f == PMUSCOPE_CF_EVENT ? 0444 : 0400;
			ca->kattr.show = pmuscope_counter_show;
			ca->idx = i;
			ca->what = f;
			pmuscope_counter_ptrs[f][i] = &ca->kattr.attr;
		}
		pmuscope_counter_groups[f].attrs = pmuscope_counter_ptrs[f];
		pmuscope_counter_groups[f].is_visible = pmuscope_counter_visible;
	}
}

/* ------------------------------------------------------ AMU counter files */

/*
 * cpuN/amu_value/, amu_type/, amu_enabled/: a file per AMU counter the CPU
 * implements, g0_<n> for group 0 and g1_<n> for group 1 (none while
 * AMCR_EL0.CG1RZ makes group 1 read zero here). Values are read on the CPU
 * and are root's only, like every count of the whole CPU.
 */
enum pmuscope_amu_file {
	PMUSCOPE_AF_VALUE,
	PMUSCOPE_AF_TYPE,
	PMUSCOPE_AF_ENABLED,
	PMUSCOPE_NR_AF
};

#define PMUSCOPE_AMU_FILES	(2 * PMUSCOPE_AMU_GROUP_MAX)

struct pmuscope_amu_attr {
	struct kobj_attribute kattr;
	unsigned int group, n;
	enum pmuscope_amu_file what;
	char name[8];
};

static struct pmuscope_amu_attr pmuscope_amu_attrs[PMUSCOPE_NR_AF][PMUSCOPE_AMU_FILES];
static struct attribute *pmuscope_amu_ptrs[PMUSCOPE_NR_AF][PMUSCOPE_AMU_FILES + 1];

struct pmuscope_amu_one {
	const struct pmuscope_amu_attr *aa;
	u64 val;
};

/* Cross call: one counter's value, or its enable bit. */
static void pmuscope_amu_one_fn(void *info)
{
	struct pmuscope_amu_one *o = info;
	const struct pmuscope_amu_attr *aa = o->aa;

	if (aa->what == PMUSCOPE_AF_VALUE)
		o->val = pmuscope_amu_read_counter(aa->group, aa->n);
	else
		o->val = !!(pmuscope_hw_read(aa->group ? PMUSCOPE_REG_AMCNTENSET1_EL0 :
					     PMUSCOPE_REG_AMCNTENSET0_EL0) & BIT(aa->n));
}

static ssize_t pmuscope_amu_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	const struct pmuscope_amu_attr *aa =
		container_of(attr, struct pmuscope_amu_attr, kattr);
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	struct pmuscope_amu_one o = { .aa = aa };
	u16 type;
	int ret;

	if (aa->what == PMUSCOPE_AF_TYPE) {
		mutex_lock(&pmuscope_drv.lock);
		type = aa->group ? pcpu->amu_info.type1[aa->n] : pcpu->amu_info.type0[aa->n];
		mutex_unlock(&pmuscope_drv.lock);
		return sysfs_emit(buf, "0x%04x\n", type);
	}
	/*
	 * Read on the CPU: offline, the cross call fails, there is nothing
	 * to read. No hotplug lock: a CPU coming up updates these files
	 * with it held, and waits for this read to end.
	 */
	ret = smp_call_function_single(pcpu->cpu, pmuscope_amu_one_fn, &o, 1);
	if (ret)
		return -ENODEV;
	return sysfs_emit(buf, "%llu\n", o.val);
}

static umode_t pmuscope_amu_visible(struct kobject *kobj, struct attribute *attr, int i)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	const struct pmuscope_amu_info *info = &pcpu->amu_info;
	unsigned int g = i / PMUSCOPE_AMU_GROUP_MAX, n = i % PMUSCOPE_AMU_GROUP_MAX;
	bool has;

	mutex_lock(&pmuscope_drv.lock);
	has = pcpu->probed && info->usable &&
	      (g ? (info->impl1 & BIT(n)) && !info->aux_zero : n < info->nr0);
	mutex_unlock(&pmuscope_drv.lock);
	return has ? attr->mode : 0;
}

static struct attribute_group pmuscope_amu_groups[PMUSCOPE_NR_AF] = {
	[PMUSCOPE_AF_VALUE] = { .name = "amu_value" },
	[PMUSCOPE_AF_TYPE] = { .name = "amu_type" },
	[PMUSCOPE_AF_ENABLED] = { .name = "amu_enabled" },
};

static void pmuscope_amu_attrs_init(void)
{
	unsigned int f, i;

	for (f = 0; f < PMUSCOPE_NR_AF; f++) {
		for (i = 0; i < PMUSCOPE_AMU_FILES; i++) {
			struct pmuscope_amu_attr *aa = &pmuscope_amu_attrs[f][i];

			aa->group = i / PMUSCOPE_AMU_GROUP_MAX;
			aa->n = i % PMUSCOPE_AMU_GROUP_MAX;
			aa->what = f;
			snprintf(aa->name, sizeof(aa->name), "g%u_%u", aa->group, aa->n);
			sysfs_attr_init(&aa->kattr.attr);
			aa->kattr.attr.name = aa->name;
			aa->kattr.attr.mode = f == PMUSCOPE_AF_VALUE ? 0400 : 0444;
			aa->kattr.show = pmuscope_amu_show;
			pmuscope_amu_ptrs[f][i] = &aa->kattr.attr;
		}
		pmuscope_amu_groups[f].attrs = pmuscope_amu_ptrs[f];
		pmuscope_amu_groups[f].is_visible = pmuscope_amu_visible;
	}
}

/* Engine statistics of the CPU, since the module was loaded. */
static ssize_t pmuscope_stat_emit(char *buf, const u64 *stat)
{
	return sysfs_emit(buf, "%llu\n", READ_ONCE(*stat));
}

static ssize_t wraps_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return pmuscope_stat_emit(buf, &pmuscope_kobj_to_cpu(kobj)->pmu.overflows);
}

static ssize_t overflow_interrupts_show(struct kobject *kobj,
					struct kobj_attribute *attr, char *buf)
{
	return pmuscope_stat_emit(buf, &pmuscope_kobj_to_cpu(kobj)->pmu.interrupts);
}

static ssize_t spurious_interrupts_show(struct kobject *kobj,
					struct kobj_attribute *attr, char *buf)
{
	return pmuscope_stat_emit(buf, &pmuscope_kobj_to_cpu(kobj)->pmu.spurious);
}

static ssize_t resyncs_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return pmuscope_stat_emit(buf, &pmuscope_kobj_to_cpu(kobj)->pmu.resyncs);
}

static ssize_t late_polls_show(struct kobject *kobj, struct kobj_attribute *attr,
			       char *buf)
{
	return pmuscope_stat_emit(buf, &pmuscope_kobj_to_cpu(kobj)->pmu.late_polls);
}

static struct kobj_attribute pmuscope_attr_wraps = __ATTR_RO(wraps);
static struct kobj_attribute pmuscope_attr_overflow_interrupts =
	__ATTR_RO(overflow_interrupts);
static struct kobj_attribute pmuscope_attr_spurious_interrupts =
	__ATTR_RO(spurious_interrupts);
static struct kobj_attribute pmuscope_attr_resyncs = __ATTR_RO(resyncs);
static struct kobj_attribute pmuscope_attr_late_polls = __ATTR_RO(late_polls);

static struct attribute *pmuscope_cpu_attrs[] = {
	&pmuscope_attr_probed.attr,
	&pmuscope_attr_midr.attr,
	&pmuscope_attr_cpu_name.attr,
	&pmuscope_attr_pmu.attr,
	&pmuscope_attr_pmu_version.attr,
	&pmuscope_attr_pmu_version_name.attr,
	&pmuscope_attr_num_event_counters.attr,
	&pmuscope_attr_event_counter_width.attr,
	&pmuscope_attr_cycle_counter_width.attr,
	&pmuscope_attr_pmceid0.attr,
	&pmuscope_attr_pmceid1.attr,
	&pmuscope_attr_snapshot.attr,
	&pmuscope_attr_snapshot_hw.attr,
	&pmuscope_attr_snapshot_take.attr,
	&pmuscope_attr_snapshot_last.attr,
	&pmuscope_attr_spe.attr,
	&pmuscope_attr_spe_version.attr,
	&pmuscope_attr_spe_min_interval.attr,
	&pmuscope_attr_spe_max_record.attr,
	&pmuscope_attr_spe_align.attr,
	&pmuscope_attr_spe_filters.attr,
	&pmuscope_attr_amu.attr,
	&pmuscope_attr_amu_version.attr,
	&pmuscope_attr_amu_counters.attr,
	&pmuscope_attr_select.attr,
	&pmuscope_attr_enable.attr,
	&pmuscope_attr_reset.attr,
	&pmuscope_attr_wraps.attr,
	&pmuscope_attr_overflow_interrupts.attr,
	&pmuscope_attr_spurious_interrupts.attr,
	&pmuscope_attr_resyncs.attr,
	&pmuscope_attr_late_polls.attr,
	NULL
};

static const struct attribute_group pmuscope_cpu_group = {
	.attrs = pmuscope_cpu_attrs,
};

/* ------------------------------------------------- per-CPU events/ files */

/* events/<NAME>: present only for events this CPU's PMCEID0/1 report. */
struct pmuscope_event_attr {
	struct kobj_attribute kattr;
	const struct pmuscope_event_desc *desc;
};

static struct pmuscope_event_attr *pmuscope_event_attrs;
static struct attribute **pmuscope_event_attr_ptrs;

static ssize_t pmuscope_event_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	struct pmuscope_event_attr *ea =
		container_of(attr, struct pmuscope_event_attr, kattr);

	return sysfs_emit(buf, "0x%04x\n", ea->desc->number);
}

static umode_t pmuscope_event_visible(struct kobject *kobj,
				      struct attribute *attr, int n)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);
	bool has;

	mutex_lock(&pmuscope_drv.lock);
	has = pcpu->probed &&
	      pmuscope_caps_has_event(&pcpu->caps, pmuscope_events[n].number);
	mutex_unlock(&pmuscope_drv.lock);
	return has ? attr->mode : 0;
}

static struct attribute_group pmuscope_events_group = {
	.name = "events",
	.is_visible = pmuscope_event_visible,
};

static const struct attribute_group *pmuscope_cpu_groups[] = {
	&pmuscope_cpu_group,
	&pmuscope_events_group,
	&pmuscope_counter_groups[PMUSCOPE_CF_OWNER],
	&pmuscope_counter_groups[PMUSCOPE_CF_EVENT],
	&pmuscope_counter_groups[PMUSCOPE_CF_VALUE],
	&pmuscope_amu_groups[PMUSCOPE_AF_VALUE],
	&pmuscope_amu_groups[PMUSCOPE_AF_TYPE],
	&pmuscope_amu_groups[PMUSCOPE_AF_ENABLED],
	NULL
};

static int pmuscope_event_attrs_init(void)
{
	unsigned int i;

	pmuscope_event_attrs = kcalloc(pmuscope_nr_events,
				       sizeof(*pmuscope_event_attrs), GFP_KERNEL);
	pmuscope_event_attr_ptrs = kcalloc(pmuscope_nr_events + 1,
					   sizeof(*pmuscope_event_attr_ptrs),
					   GFP_KERNEL);
	if (!pmuscope_event_attrs || !pmuscope_event_attr_ptrs) {
		kfree(pmuscope_event_attrs);
		kfree(pmuscope_event_attr_ptrs);
		return -ENOMEM;
	}

	for (i = 0; i < pmuscope_nr_events; i++) {
		struct pmuscope_event_attr *ea = &pmuscope_event_attrs[i];

		sysfs_attr_init(&ea->kattr.attr);
		ea->kattr.attr.name = pmuscope_events[i].name;
		ea->kattr.attr.mode = 0444;
		ea->kattr.show = pmuscope_event_show;
		ea->desc = &pmuscope_events[i];
		pmuscope_event_attr_ptrs[i] = &ea->kattr.attr;
	}
	pmuscope_events_group.attrs = pmuscope_event_attr_ptrs;
	return 0;
}

static void pmuscope_event_attrs_exit(void)
{
	kfree(pmuscope_event_attr_ptrs);
	kfree(pmuscope_event_attrs);
}

/* ---------------------------------------------------------------- kobjects */
static void pmuscope_cpu_release(struct kobject *kobj)
{
	struct pmuscope_cpu *pcpu = pmuscope_kobj_to_cpu(kobj);

	kfree(pcpu->snap_text);
	kfree(pcpu);
}

static const struct kobj_type pmuscope_cpu_ktype = {
	.release = pmuscope_cpu_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = pmuscope_cpu_groups,
};

/*
 * Called after @pcpu was (re)probed: re-evaluate which events/ and
 * counter_* files exist. Runs with the CPU hotplug lock held, as the
 * published flag changes under cpus_read_lock(): before the files are
 * published (at load) and after they are unpublished (at unload) there is
 * nothing to update.
 */
void pmuscope_sysfs_cpu_changed(struct pmuscope_cpu *pcpu)
{
	unsigned int f;

	if (!pmuscope_drv.published)
		return;
	if (sysfs_update_group(&pcpu->kobj, &pmuscope_events_group))
		pr_warn("cpu%u: could not update events/ in sysfs\n", pcpu->cpu);
	for (f = 0; f < PMUSCOPE_NR_CF; f++)
		if (sysfs_update_group(&pcpu->kobj, &pmuscope_counter_groups[f]))
			pr_warn("cpu%u: could not update %s/ in sysfs\n", pcpu->cpu,
				pmuscope_counter_groups[f].name);
	for (f = 0; f < PMUSCOPE_NR_AF; f++)
		if (sysfs_update_group(&pcpu->kobj, &pmuscope_amu_groups[f]))
			pr_warn("cpu%u: could not update %s/ in sysfs\n", pcpu->cpu,
				pmuscope_amu_groups[f].name);
}

/*
 * The structures behind /sys/kernel/pmuscope/cpuN: one struct pmuscope_cpu
 * per possible CPU, its kobject initialised but not in sysfs yet
 * (pmuscope_sysfs_publish()). Freed by pmuscope_sysfs_free().
 */
int pmuscope_sysfs_alloc(struct pmuscope_driver *drv)
{
	unsigned int cpu;
	int ret;

	ret = pmuscope_event_attrs_init();
	if (ret)
		return ret;
	pmuscope_counter_attrs_init();
	pmuscope_amu_attrs_init();

	for_each_possible_cpu(cpu) {
		struct pmuscope_cpu *pcpu = kzalloc(sizeof(*pcpu), GFP_KERNEL);

		if (!pcpu) {
			pmuscope_sysfs_free(drv);
			return -ENOMEM;
		}
		pcpu->cpu = cpu;
		kobject_init(&pcpu->kobj, &pmuscope_cpu_ktype);
		drv->cpus[cpu] = pcpu;
	}
	return 0;
}

/* Remove the cpuN directories added so far, then the root. */
static void pmuscope_sysfs_remove(struct pmuscope_driver *drv)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (drv->cpus[cpu] && drv->cpus[cpu]->kobj.state_in_sysfs)
			kobject_del(&drv->cpus[cpu]->kobj);
	sysfs_remove_group(drv->root, &pmuscope_root_group);
	kobject_put(drv->root);
	drv->root = NULL;
}

/*
 * Publish /sys/kernel/pmuscope: at load, once every online CPU is probed
 * and the PMUs run. With the hotplug lock held, so that the files show
 * each CPU as it is and no hotplug callback updates a half-made directory.
 */
int pmuscope_sysfs_publish(struct pmuscope_driver *drv)
{
	unsigned int cpu;
	int ret;

	cpus_read_lock();
	drv->root = kobject_create_and_add(PMUSCOPE_DRV_NAME, kernel_kobj);
	if (!drv->root) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	ret = sysfs_create_group(drv->root, &pmuscope_root_group);
	if (ret)
		goto out_put_root;
	for_each_possible_cpu(cpu) {
		ret = kobject_add(&drv->cpus[cpu]->kobj, drv->root, "cpu%u", cpu);
		if (ret) {
			pmuscope_sysfs_remove(drv);
			goto out_unlock;
		}
	}
	drv->published = true;
	cpus_read_unlock();
	return 0;

out_put_root:
	kobject_put(drv->root);
	drv->root = NULL;
out_unlock:
	cpus_read_unlock();
	return ret;
}

/*
 * Remove every file (waiting for readers and writers in them to finish), so
 * that no sysfs access can start after this; the structures stay allocated.
 * First at unload. The hotplug lock is not held while the files go: a
 * store waiting for it would never finish.
 */
void pmuscope_sysfs_unpublish(struct pmuscope_driver *drv)
{
	cpus_read_lock();
	drv->published = false;
	cpus_read_unlock();
	if (drv->root)
		pmuscope_sysfs_remove(drv);
}

/* Drop the structures (struct pmuscope_cpu is freed by its kobject). */
void pmuscope_sysfs_free(struct pmuscope_driver *drv)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		if (drv->cpus[cpu])
			kobject_put(&drv->cpus[cpu]->kobj);
		drv->cpus[cpu] = NULL;
	}
	pmuscope_event_attrs_exit();
}
