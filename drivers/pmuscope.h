/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope: driver-internal declarations.
 */
#ifndef __PMUSCOPE_H
#define __PMUSCOPE_H

#include <linux/bitmap.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/types.h>

#define PMUSCOPE_DRV_NAME		"pmuscope"
#define PMUSCOPE_DRV_VERSION		"0.1.0"

/* ------------------------------------------------------------------- units */
enum pmuscope_unit {
	PMUSCOPE_UNIT_PMU,
	PMUSCOPE_UNIT_SNAPSHOT,
	PMUSCOPE_UNIT_SPE,
	PMUSCOPE_UNIT_AMU,
	PMUSCOPE_NR_UNITS
};

/* What the driver may do with a unit on one CPU. */
enum pmuscope_unit_state {
	PMUSCOPE_STATE_ABSENT,		/* ID register says not implemented */
	PMUSCOPE_STATE_PRESENT,		/* implemented and in use */
	PMUSCOPE_STATE_DISABLED,	/* implemented, switched off by parameter */
	PMUSCOPE_STATE_UNAVAILABLE,	/* implemented, owned by a higher EL */
};

#define PMUSCOPE_ALL_UNITS		(BIT(PMUSCOPE_NR_UNITS) - 1)

/* ------------------------------------------------------------------ events */
struct pmuscope_event_desc {
	u16 number;
	const char *name;
	const char *desc;
};

/* PMCEID0/1 as one bitmap: 0x0000-0x003F at 0-63, 0x4000-0x403F at 64-127. */
#define PMUSCOPE_EVENT_SLOTS		128

extern const struct pmuscope_event_desc pmuscope_events[];
extern const unsigned int pmuscope_nr_events;

int pmuscope_event_slot(u32 number);
const struct pmuscope_event_desc *pmuscope_event_by_number(u32 number);
const struct pmuscope_event_desc *pmuscope_event_by_name(const char *name);

/* --------------------------------------------------------------- discovery */

/* Raw values read by the probe; zero where a register was not read. */
struct pmuscope_id_regs {
	u64 midr;
	u64 dfr0;
	u64 dfr1;
	u64 pfr0;
	u64 pmcr;
	u64 pmceid0;
	u64 pmceid1;
	u64 pmsidr;
	u64 pmbidr;
	u64 amcfgr;
	u64 amcgcr;
};

/* What one CPU implements, decoded from struct pmuscope_id_regs. */
struct pmuscope_cpu_caps {
	struct pmuscope_id_regs regs;
	enum pmuscope_unit_state state[PMUSCOPE_NR_UNITS];
	u8 pmuver;		/* ID_AA64DFR0_EL1.PMUVer */
	u8 pmsver;		/* ID_AA64DFR0_EL1.PMSVer */
	u8 pmss;		/* ID_AA64DFR0_EL1.PMSS */
	u8 amuver;		/* ID_AA64PFR0_EL1.AMU */
	u8 num_counters;	/* PMCR_EL0.N, 0 without a usable PMU */
	u8 evcnt_width;		/* event counter width: 32, or 64 from PMUv3p5 */
	u8 ccnt_width;		/* cycle counter width: 64 */
	u8 amu_counters;	/* AMU counters in groups 0 and 1 */
	DECLARE_BITMAP(events, PMUSCOPE_EVENT_SLOTS);
};

void pmuscope_caps_units(const struct pmuscope_id_regs *regs,
			 unsigned long allowed,
			 struct pmuscope_cpu_caps *caps);
void pmuscope_caps_decode(const struct pmuscope_id_regs *regs,
			  unsigned long allowed,
			  struct pmuscope_cpu_caps *caps);
void pmuscope_probe_local(unsigned long allowed, struct pmuscope_cpu_caps *caps);
bool pmuscope_caps_has_event(const struct pmuscope_cpu_caps *caps, u32 number);
const char *pmuscope_pmuver_name(u8 pmuver);
const char *pmuscope_state_name(enum pmuscope_unit_state state);
const char *pmuscope_cpu_name(u64 midr);

/* ------------------------------------------------------------ driver state */

/* One per possible CPU; its kobject is /sys/kernel/pmuscope/cpuN. */
struct pmuscope_cpu {
	struct kobject kobj;
	unsigned int cpu;
	/* Both protected by pmuscope_driver.lock; written on @cpu only. */
	bool probed;
	struct pmuscope_cpu_caps caps;
};

struct pmuscope_driver {
	/* Protects the probed/caps fields of every struct pmuscope_cpu. */
	struct mutex lock;
	unsigned long allowed_units;	/* BIT(enum pmuscope_unit), fixed at load */
	struct kobject *root;		/* /sys/kernel/pmuscope */
	struct pmuscope_cpu **cpus;	/* [nr_cpu_ids], NULL if not possible */
	int hp_state;			/* dynamic cpuhp state */
};

extern struct pmuscope_driver pmuscope_drv;

int pmuscope_sysfs_init(struct pmuscope_driver *drv);
void pmuscope_sysfs_exit(struct pmuscope_driver *drv);
void pmuscope_sysfs_cpu_changed(struct pmuscope_cpu *pcpu);

#endif /* __PMUSCOPE_H */
