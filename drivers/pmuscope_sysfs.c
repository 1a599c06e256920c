// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: sysfs interface, /sys/kernel/pmuscope.
 *
 * One value per file; every file is documented in
 * Documentation/ABI/testing/sysfs-kernel-pmuscope.
 */

#include <linux/bitfield.h>
#include <linux/cpumask.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "pmuscope.h"

/* ------------------------------------------------------------ root files */
static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", PMUSCOPE_DRV_VERSION);
}

static struct kobj_attribute pmuscope_attr_version = __ATTR_RO(version);

static struct attribute *pmuscope_root_attrs[] = {
	&pmuscope_attr_version.attr,
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
PMUSCOPE_CAPS_ATTR(amu, "%s", pmuscope_state_name(c->state[PMUSCOPE_UNIT_AMU]));
PMUSCOPE_CAPS_ATTR(amu_version, "%u", c->amuver);
PMUSCOPE_CAPS_ATTR(amu_counters, "%u", c->amu_counters);

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
	&pmuscope_attr_spe.attr,
	&pmuscope_attr_spe_version.attr,
	&pmuscope_attr_amu.attr,
	&pmuscope_attr_amu_version.attr,
	&pmuscope_attr_amu_counters.attr,
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
	kfree(pmuscope_kobj_to_cpu(kobj));
}

static const struct kobj_type pmuscope_cpu_ktype = {
	.release = pmuscope_cpu_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = pmuscope_cpu_groups,
};

/* Called after @pcpu was (re)probed: re-evaluate which events/ files exist. */
void pmuscope_sysfs_cpu_changed(struct pmuscope_cpu *pcpu)
{
	if (sysfs_update_group(&pcpu->kobj, &pmuscope_events_group))
		pr_warn("cpu%u: could not update events/ in sysfs\n", pcpu->cpu);
}

int pmuscope_sysfs_init(struct pmuscope_driver *drv)
{
	unsigned int cpu;
	int ret;

	ret = pmuscope_event_attrs_init();
	if (ret)
		return ret;

	drv->root = kobject_create_and_add(PMUSCOPE_DRV_NAME, kernel_kobj);
	if (!drv->root) {
		ret = -ENOMEM;
		goto out_free_attrs;
	}
	ret = sysfs_create_group(drv->root, &pmuscope_root_group);
	if (ret)
		goto out_put_root;

	for_each_possible_cpu(cpu) {
		struct pmuscope_cpu *pcpu = kzalloc(sizeof(*pcpu), GFP_KERNEL);

		if (!pcpu) {
			ret = -ENOMEM;
			goto out_put_cpus;
		}
		pcpu->cpu = cpu;
		ret = kobject_init_and_add(&pcpu->kobj, &pmuscope_cpu_ktype,
					   drv->root, "cpu%u", cpu);
		if (ret) {
			kobject_put(&pcpu->kobj);
			goto out_put_cpus;
		}
		drv->cpus[cpu] = pcpu;
	}
	return 0;

out_put_cpus:
	for_each_possible_cpu(cpu) {
		if (drv->cpus[cpu])
			kobject_put(&drv->cpus[cpu]->kobj);
		drv->cpus[cpu] = NULL;
	}
	sysfs_remove_group(drv->root, &pmuscope_root_group);
out_put_root:
	kobject_put(drv->root);
out_free_attrs:
	pmuscope_event_attrs_exit();
	return ret;
}

void pmuscope_sysfs_exit(struct pmuscope_driver *drv)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		if (drv->cpus[cpu])
			kobject_put(&drv->cpus[cpu]->kobj);
		drv->cpus[cpu] = NULL;
	}
	sysfs_remove_group(drv->root, &pmuscope_root_group);
	kobject_put(drv->root);
	pmuscope_event_attrs_exit();
}
