// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: messages: what libpmuscope says when the driver refuses, and why
 * (the system's perf policy, the CPU at fault, who holds the counters).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void pmuscope_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

void pmuscope_flag_names_str(uint32_t flags, const struct pmuscope_flag_name *names,
			     size_t n, char *buf, size_t len)
{
	size_t off = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (!(flags & names[i].flag))
			continue;
		off += snprintf(buf + off, len - off, "%s%s", off ? "," : "", names[i].name);
		if (off >= len)
			return;		/* cut short */
	}
}

/* --------------------------------------------------- the system's perf policy */

/* PMUSCOPE_POLICY_KERNEL when one of @nr events counts at EL1 or EL2. */
unsigned int pmuscope_policy_events(const struct pmuscope_event_spec *evs,
					   unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++)
		if (evs[i].flags & (PMUSCOPE_EV_EL1 | PMUSCOPE_EV_EL2))
			return PMUSCOPE_POLICY_KERNEL;
	return 0;
}

/* An integer of /proc/sys/kernel/@name; INT_MIN when it cannot be read. */
static int pmuscope_sysctl(const char *name)
{
	char path[96], buf[32];
	int fd, val;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return INT_MIN;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return INT_MIN;
	buf[n] = '\0';
	return sscanf(buf, "%d", &val) == 1 ? val : INT_MIN;
}

/* The module parameter group= ("not set", or who is in it) into @buf. */
static void pmuscope_group_note(char *buf, size_t len)
{
	const char *mods[] = { "pmuscope", "pmuscope_emu" };
	gid_t groups[256];
	int group = -1, n;

	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]) && group < 0; i++) {
		char path[96];
		FILE *f;

		snprintf(path, sizeof(path), "/sys/module/%s/parameters/group", mods[i]);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%d", &group) != 1)
			group = -1;
		fclose(f);
	}
	if (group < 0) {
		snprintf(buf, len, "not set");
		return;
	}
	/* As the kernel's in_group_p(): the effective gid counts too. */
	if (getegid() == (gid_t)group) {
		snprintf(buf, len, "group %d, yours", group);
		return;
	}
	n = getgroups(sizeof(groups) / sizeof(groups[0]), groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == (gid_t)group) {
			snprintf(buf, len, "group %d, yours", group);
			return;
		}
	snprintf(buf, len, "group %d, of which you are not a member", group);
}

/*
 * Why the system's perf policy refused a session that asked for @what
 * (PMUSCOPE_POLICY_*), with the driver's @err, into @msg after @prefix: the
 * sysctl that decided it and what would allow it (the driver's rules:
 * Documentation/pmuscope.rst, "Who may do what").
 */
void pmuscope_policy_msg(char *msg, size_t len, const char *prefix, int err,
				unsigned int what)
{
	int paranoid = pmuscope_sysctl("perf_event_paranoid");
	int ua = pmuscope_sysctl("perf_user_access");
	char level[32], group[80];

	if (paranoid == INT_MIN)
		snprintf(level, sizeof(level), "unreadable");
	else
		snprintf(level, sizeof(level), "%d", paranoid);
	pmuscope_group_note(group, sizeof(group));
	if (err == -EPERM && (what & PMUSCOPE_POLICY_CPU))
		pmuscope_fmt(msg, len,
			     "%s: counting whole CPUs needs CAP_PERFMON (or CAP_SYS_ADMIN), kernel.perf_event_paranoid 0 or lower (it is %s), or membership of the group of the pmuscope module parameter group= (%s)",
			     prefix, level, group);
	else if ((paranoid > 2 || paranoid == INT_MIN) && !strstr(group, "yours") &&
		 (what & (PMUSCOPE_POLICY_TASK | PMUSCOPE_POLICY_CPU)))
		pmuscope_fmt(msg, len,
			     "%s: kernel.perf_event_paranoid is %s, which lets no one without CAP_PERFMON (or CAP_SYS_ADMIN) count: set it to 2 or lower, or be a member of the group of the pmuscope module parameter group= (%s)",
			     prefix, level, group);
	else if ((what & PMUSCOPE_POLICY_KERNEL) && (paranoid > 1 || paranoid == INT_MIN))
		pmuscope_fmt(msg, len,
			     "%s: counting the kernel (modifier k, on by default) needs CAP_PERFMON (or CAP_SYS_ADMIN) or kernel.perf_event_paranoid 1 or lower (it is %s); group= grants user space only: add :u to count user space only",
			     prefix, level);
	else if (what & PMUSCOPE_POLICY_EL0)
		pmuscope_fmt(msg, len,
			     "%s: EL0 counter reads need kernel.perf_user_access=1 (%s), CAP_PERFMON (or CAP_SYS_ADMIN), or membership of the group of the pmuscope module parameter group= (%s)",
			     prefix, ua == INT_MIN ?
			     "absent: perf's PMU driver is not loaded, so only the other two grant them" :
			     ua == 1 ? "it is 1" : "it is 0", group);
	else
		pmuscope_fmt(msg, len, "%s: %s (kernel.perf_event_paranoid %s; the driver's log says why)",
			     prefix, strerror(-err), level);
}

/* Name who holds the counters of @cpu, from sysfs; 0 if nobody visible. */
static int pmuscope_holders(int cpu, char *buf, size_t len)
{
	char owner[128], file[64];
	size_t off = 0;
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; i <= 31; i++) {
		if (i == 31)
			snprintf(file, sizeof(file), "counter_owner/cycle");
		else
			snprintf(file, sizeof(file), "counter_owner/%d", i);
		if (pmuscope_read_str(cpu, file, owner, sizeof(owner)) ||
		    !strcmp(owner, "free"))
			continue;
		n++;
		if (off < len)
			off += snprintf(buf + off, len - off, "%s%s %s",
					off ? "; " : "", file + 14, owner);
	}
	if (!n)
		snprintf(buf, len, "(no holder visible in sysfs)");
	return n;
}

/* After a failed PMUSCOPE_IOC_CONFIG: find and name the cause. */
void pmuscope_explain(struct pmuscope *h, int ret,
			     const struct pmuscope_event_spec *evs, unsigned int nr,
			     const uint64_t *cpus, size_t words)
{
	struct pmuscope_cpu_info info;
	unsigned int has_cycles = 0;
	char holders[400];
	long first = -1;

	for (unsigned int i = 0; i < nr; i++)
		if (evs[i].number == 0x11 && !(evs[i].flags & PMUSCOPE_EV_RAW))
			has_cycles = 1;
	for (size_t cpu = 0; cpu < words * 64; cpu++) {
		if (!pmuscope_cpu_set(cpus, words, cpu))
			continue;
		if (first < 0)
			first = cpu;
		if (pmuscope_cpu_info(cpu, &info)) {
			if (ret == -ENODEV) {
				pmuscope_fmt(h->msg, sizeof(h->msg),
					     "cpu%zu does not exist", cpu);
				return;
			}
			continue;
		}
		if (ret == -ENXIO && !info.online) {
			pmuscope_fmt(h->msg, sizeof(h->msg), "cpu%zu is offline", cpu);
			return;
		}
		if (ret == -ENODEV && strcmp(info.pmu, "present")) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "cpu%zu has no usable PMU (%s)", cpu, info.pmu);
			return;
		}
		for (unsigned int i = 0; ret == -EOPNOTSUPP && i < nr; i++) {
			if (evs[i].flags & PMUSCOPE_EV_RAW) {
				if (evs[i].number > 0x3ff && info.event_width == 32) {
					pmuscope_fmt(h->msg, sizeof(h->msg),
						     "raw event %s does not fit %s's 10-bit event numbers on cpu%zu",
						     evs[i].name, info.pmu_version_name, cpu);
					return;
				}
				continue;
			}
			if (!pmuscope_cpu_has_event(&info, evs[i].number)) {
				pmuscope_fmt(h->msg, sizeof(h->msg),
					     "event %s (0x%04x) is not implemented on cpu%zu (%s)",
					     evs[i].name, evs[i].number, cpu, info.name);
				return;
			}
		}
		/* The CPU at fault, not the first chosen one. */
		if (ret == -ENOSPC && nr > info.num_counters + has_cycles) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "%u events do not fit cpu%zu: it has %u event counters and one cycle counter (for CPU_CYCLES)",
				     nr, cpu, info.num_counters);
			return;
		}
		if (ret == -EBUSY && pmuscope_holders(cpu, holders, sizeof(holders))) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "counters busy on cpu%zu: %s", cpu, holders);
			return;
		}
	}
	if (ret == -EBUSY && first >= 0) {
		/* Released meanwhile, or sysfs not readable. */
		pmuscope_holders(first, holders, sizeof(holders));
		pmuscope_fmt(h->msg, sizeof(h->msg), "counters busy on cpu%ld: %s",
			     first, holders);
		return;
	}
	switch (ret) {
	case -ENOSPC:
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "%u events do not fit the chosen CPUs' counters", nr);
		break;
	case -EPERM:
	case -EACCES:
		pmuscope_policy_msg(h->msg, sizeof(h->msg), "permission denied", ret,
				    PMUSCOPE_POLICY_CPU | pmuscope_policy_events(evs, nr));
		break;
	case -EOPNOTSUPP:
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "an event is not implemented on the chosen CPUs");
		break;
	default:
		pmuscope_fmt(h->msg, sizeof(h->msg), "configuration refused: %s",
			     strerror(-ret));
	}
}

/* Explain a refused configuration against the CPUs online now. */
void pmuscope_explain_online(struct pmuscope *h, int ret,
				    const struct pmuscope_event_spec *evs, unsigned int nr)
{
	uint64_t online[PMUSCOPE_CPU_WORDS] = { 0 };

	pmuscope_online_cpus(online, PMUSCOPE_CPU_WORDS);
	pmuscope_explain(h, ret, evs, nr, online, PMUSCOPE_CPU_WORDS);
}

/*
 * After EOPNOTSUPP to PMUSCOPE_SNAP_F_HARDWARE: each CPU of the session
 * without a usable hardware capture, with its sysfs snapshot_hw state.
 */
void pmuscope_snap_explain_hw(struct pmuscope *h)
{
	static const char head[] = "hardware snapshot refused: ";
	char state[32];
	long unknown = -1;

	if (pmuscope_snap_hw_explain(h->cpus, PMUSCOPE_CPU_WORDS, h->msg + sizeof(head) - 1,
				     sizeof(h->msg) - sizeof(head) + 1)) {
		memcpy(h->msg, head, sizeof(head) - 1);
		return;
	}
	for (size_t cpu = 0; cpu < PMUSCOPE_MAX_CPUS && unknown < 0; cpu++)
		if (pmuscope_cpu_set(h->cpus, PMUSCOPE_CPU_WORDS, cpu) &&
		    pmuscope_snap_hw_state(cpu, state, sizeof(state)))
			unknown = cpu;
	if (unknown >= 0)
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "%sa CPU of the session has no usable hardware capture (cpu%ld: no sysfs snapshot_hw to say why)",
			     head, unknown);
	else if (h->features & PMUSCOPE_FEAT_BACKEND_PERF)
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "%sthe perf backend has no hardware capture (only pmuscope's direct engine captures)",
			     head);
	else
		/* Every CPU could: the session's counters are perf events. */
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "%sthe session counts through perf events (more events than counters), which have no hardware capture",
			     head);
}
