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
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

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

/*
 * What libpmuscope says when an operation fails with an errno: one row
 * per operation, errno (0: any other) and state of the session, the
 * first row that matches wins. The text's fields: {e} strerror(errno),
 * {s} and {t} the operation's strings, {0} to {5} its numbers (see
 * enum pmuscope_op). These texts are the library's messages
 * (pmuscope_errmsg()): tests and users match them, keep them as they are.
 */
struct pmuscope_say_row {
	enum pmuscope_op op;
	int err[2];		/* -errno; { 0 }: any */
	unsigned int need;	/* PMUSCOPE_IF_* that must hold */
	unsigned int unless;	/* PMUSCOPE_IF_* that must not */
	enum pmuscope_say say;
	const char *text;
};

#define ROW(_op, _e1, _e2, _need, _unless, _say, _text) \
	{ PMUSCOPE_OP_##_op, { _e1, _e2 }, _need, _unless, PMUSCOPE_SAY_##_say, _text }
#define TASK	PMUSCOPE_IF_TASK
#define EVENTS	PMUSCOPE_IF_EVENTS
#define FEAT	PMUSCOPE_IF_FEAT
#define HW	PMUSCOPE_IF_HW
#define CPUS	PMUSCOPE_IF_CPUS

static const struct pmuscope_say_row pmuscope_say_rows[] = {
	ROW(OPEN, -ENOENT, 0, 0, 0, TEXT,
	    "/dev/pmuscope not found: is the pmuscope module loaded? (insmod pmuscope.ko)"),
	/* A device node left behind by a driver now unloaded. */
	ROW(OPEN, -ENXIO, -ENODEV, 0, 0, TEXT,
	    "/dev/pmuscope has no driver behind it ({e}): is the pmuscope module loaded? (insmod pmuscope.ko)"),
	ROW(OPEN, 0, 0, 0, 0, TEXT, "cannot open /dev/pmuscope: {e}"),
	ROW(HANDSHAKE, 0, 0, 0, 0, TEXT,
	    "the pmuscope module does not answer the handshake ({e}): it is older or newer than libpmuscope " PMUSCOPE_LIB_VERSION),

	/* After the causes pmuscope_explain() finds CPU by CPU. */
	ROW(CONFIG, -ENOSPC, 0, 0, 0, TEXT, "{0} events do not fit the chosen CPUs' counters"),
	ROW(CONFIG, -EPERM, -EACCES, 0, 0, POLICY, "permission denied"),
	ROW(CONFIG, -EOPNOTSUPP, 0, 0, 0, TEXT, "an event is not implemented on the chosen CPUs"),
	ROW(CONFIG, 0, 0, 0, 0, TEXT, "configuration refused: {e}"),

	ROW(CONFIG_TASK, -EACCES, 0, 0, 0, POLICY, "permission denied"),
	ROW(CONFIG_TASK, -EPERM, 0, 0, 0, TEXT,
	    "permission denied: counting another process's thread needs CAP_PERFMON or CAP_SYS_ADMIN, or the administrator's grant task_ours=1 of the pmuscope module for a process of your own"),
	ROW(CONFIG_TASK, -ESRCH, 0, 0, 0, TEXT, "no thread {0}"),
	ROW(CONFIG_TASK, -EOPNOTSUPP, 0, 0, FEAT, TEXT,
	    "the driver cannot count a task (API version 1, or no perf support): count CPUs with -a or -C"),
	/* Which event, on which CPU. */
	ROW(CONFIG_TASK, 0, 0, 0, 0, EXPLAIN, NULL),

	ROW(CONFIG_SELF, -EACCES, -EPERM, 0, 0, POLICY, "permission denied"),
	ROW(CONFIG_SELF, -EINVAL, 0, 0, 0, TEXT,
	    "EL0 read session refused ({e}): it counts the calling thread, without inherit or enable-on-exec"),
	ROW(CONFIG_SELF, -EBUSY, 0, EVENTS, 0, TEXT,
	    "this session is configured already ({e}): an EL0 read session keeps its configuration, and an enabled one must be disabled first; open another session"),
	/* Which event, which CPU's counters (-ENOSPC, -EOPNOTSUPP, -EBUSY). */
	ROW(CONFIG_SELF, 0, 0, 0, 0, EXPLAIN, NULL),
	ROW(SELF_MAP, 0, 0, 0, 0, TEXT, "configured, but the EL0 page cannot be mapped: {e}"),

	ROW(CONTROL, -EINVAL, 0, 0, 0, TEXT, "{s} failed: no events configured"),
	ROW(CONTROL, 0, 0, 0, 0, TEXT, "{s} failed: {e}"),

	ROW(SWINC, -EINVAL, 0, 0, 0, TEXT,
	    "software increment refused: the mask must name configured SW_INCR events counting at the kernel's level (EL{0}), on a CPU of the session, 1 to 4096 times"),
	ROW(SWINC, -ENXIO, 0, 0, 0, TEXT, "software increment refused: cpu{1} is offline"),
	ROW(SWINC, 0, 0, 0, 0, TEXT, "software increment failed: {e}"),

	ROW(READ, -ENOSPC, 0, 0, 0, TEXT, "read failed: {e} (not enough room)"),
	ROW(READ, 0, 0, 0, 0, TEXT, "read failed: {e}"),

	ROW(SNAPSHOT, -ENOSPC, 0, 0, 0, TEXT,
	    "snapshot: not enough room ({0} values and {1} CPUs needed, room for {2} and {3})"),
	ROW(SNAPSHOT, -EOPNOTSUPP, 0, TASK, 0, TEXT,
	    "snapshot refused: a task's counters move with it and have no common instant: count CPUs"),
	/* pmuscope_snap_explain_hw(): which CPU, and why. */
	ROW(SNAPSHOT, -EOPNOTSUPP, 0, HW, 0, EXPLAIN, NULL),
	ROW(SNAPSHOT, -EOPNOTSUPP, 0, 0, 0, TEXT, "snapshot refused: {e}"),
	ROW(SNAPSHOT, -EINVAL, 0, EVENTS, 0, TEXT,
	    "snapshot refused: invalid argument (flags, lead or sizes)"),
	ROW(SNAPSHOT, -EINVAL, 0, 0, 0, TEXT, "snapshot refused: no events configured"),
	ROW(SNAPSHOT, -EPERM, 0, 0, 0, TEXT,
	    "snapshot refused: a lead of {4} us needs CAP_PERFMON (or CAP_SYS_ADMIN): at most {5} us without it"),
	ROW(SNAPSHOT, -ENOTTY, 0, 0, 0, TEXT,
	    "snapshot: the driver does not know PMUSCOPE_IOC_SNAPSHOT (before API version 3)"),
	ROW(SNAPSHOT, 0, 0, 0, 0, TEXT, "snapshot failed: {e}"),

	ROW(AMU_READ, -EPERM, 0, 0, 0, TEXT,
	    "AMU read refused: the Activity Monitors need root (CAP_PERFMON or CAP_SYS_ADMIN): their counts can reveal other security states' activity"),
	ROW(AMU_READ, -EACCES, 0, 0, 0, TEXT,
	    "AMU read refused: kernel.perf_event_paranoid is 3 (or unreadable), which lets no one without CAP_SYS_ADMIN count, CAP_PERFMON included: set it to 2 or lower"),
	ROW(AMU_READ, -ENOTTY, 0, 0, 0, TEXT,
	    "AMU read: the driver does not know PMUSCOPE_IOC_AMU_READ (before API version 4)"),
	ROW(AMU_READ, -ENOSPC, 0, 0, 0, TEXT,
	    "AMU read: not enough room ({0} records needed, room for {1})"),
	ROW(AMU_READ, -EINVAL, 0, 0, 0, TEXT,
	    "AMU read refused: invalid argument (the CPUs of {2}, or the sizes)"),
	ROW(AMU_READ, 0, 0, 0, 0, TEXT, "AMU read failed: {e}"),

	/* A missing feature is pmuscope_stream_explain()'s (stream.c). */
	ROW(STREAM, -EOPNOTSUPP, 0, 0, 0, TEXT,
	    "stream refused on the {s} backend: the sampled event cannot interrupt on these CPUs ({e}): sample by time instead (a period in ms: pmuscope record -F)"),
	ROW(STREAM, -EINVAL, 0, EVENTS, 0, TEXT,
	    "stream refused: invalid argument (period, event or ring size)"),
	ROW(STREAM, -EINVAL, 0, 0, 0, TEXT, "stream refused: no events configured"),
	ROW(STREAM, -EACCES, 0, 0, 0, TEXT,
	    "stream refused: permission denied: call chains of whole CPUs need CAP_PERFMON or kernel.perf_event_paranoid <= 0 (group= does not grant them), and a task is sampled only while it is still the caller's (not after a setuid exec) or with CAP_PERFMON"),
	/*
	 * Judged by the caller's rights at STREAM: a CPU session (configured
	 * before the rights changed, or by another process) it may not sample.
	 */
	ROW(STREAM, -EPERM, 0, 0, TASK | CPUS, POLICY, "stream refused"),
	/* Charged as perf charges a perf buffer: the driver's log says which limit. */
	ROW(STREAM, -EPERM, 0, 0, 0, TEXT,
	    "stream refused: a ring of {0} KiB exceeds your locked-memory limit (kernel.perf_event_mlock_kb KiB per CPU for your user, then ulimit -l for the process; CAP_IPC_LOCK or kernel.perf_event_paranoid -1 exempts): a smaller ring (pmuscope record -m), or a higher limit"),
	ROW(STREAM, -ENOTTY, 0, 0, 0, TEXT,
	    "stream: the driver does not know PMUSCOPE_IOC_STREAM (before API version 3)"),
	ROW(STREAM, 0, 0, 0, 0, TEXT, "stream failed: {e}"),

	/* A signal: the caller's to handle, nothing to say. */
	ROW(POLL, -EINTR, 0, 0, 0, NOTHING, NULL),
	ROW(POLL, 0, 0, 0, 0, TEXT, "{s}: poll failed: {e}"),
	ROW(FILE_READ, -EINTR, 0, 0, 0, NOTHING, NULL),
	ROW(FILE_READ, -ENOSPC, 0, 0, 0, TEXT, "{s}: {0} bytes are too few for the next {t}"),
	ROW(FILE_READ, 0, 0, 0, 0, TEXT, "{s}: read failed: {e}"),

	ROW(SPE_START, -EOPNOTSUPP, 0, 0, FEAT, TEXT,
	    "SPE refused: the driver can profile no CPU with SPE (no PMUSCOPE_FEAT_SPE: no CPU has a usable Statistical Profiling Extension, or it belongs to another driver)"),
	ROW(SPE_START, -EOPNOTSUPP, 0, 0, 0, TEXT,
	    "SPE refused: no CPU asked for has a usable Statistical Profiling Extension (see the driver's sysfs cpuN/spe)"),
	ROW(SPE_START, -EBUSY, 0, 0, 0, TEXT,
	    "SPE refused: another session profiles a CPU asked for (one session per CPU), or this session already profiles"),
	/* EPERM from a caller who may profile whole CPUs: the memory's limit. */
	ROW(SPE_START, -EPERM, 0, CPUS, 0, TEXT,
	    "SPE refused: the buffers ({0} KiB) exceed your locked-memory limit (kernel.perf_event_mlock_kb KiB per CPU for your user, then ulimit -l for the process; CAP_IPC_LOCK or kernel.perf_event_paranoid -1 exempts): smaller buffers with -m, or a higher limit"),
	ROW(SPE_START, -EPERM, -EACCES, 0, 0, POLICY, "SPE refused"),
	ROW(SPE_START, -ENOMEM, 0, 0, 0, TEXT, "SPE refused: no memory for the buffers"),
	ROW(SPE_START, -EINVAL, 0, 0, 0, TEXT,
	    "SPE refused: invalid argument (an interval below a CPU's minimum, sysfs spe_min_interval? a filter the CPU lacks?)"),
	ROW(SPE_START, -ENOTTY, 0, 0, 0, TEXT,
	    "SPE: the driver does not know PMUSCOPE_IOC_SPE_START (before API version 5)"),
	ROW(SPE_START, 0, 0, 0, 0, TEXT, "SPE start failed: {e}"),
	ROW(SPE_STOP, -EINVAL, 0, 0, 0, TEXT, "SPE stop failed: the session does not profile"),
	ROW(SPE_STOP, 0, 0, 0, 0, TEXT, "SPE stop failed: {e}"),
	ROW(SPE_STATUS, -ENOSPC, 0, 0, 0, TEXT, "SPE status: room for {0} CPUs, the session has {1}"),
	ROW(SPE_STATUS, -EINVAL, 0, 0, 0, TEXT,
	    "SPE status refused: the session does not profile (no SPE_START)"),
	ROW(SPE_STATUS, 0, 0, 0, 0, TEXT, "SPE status failed: {e}"),
};

#undef ROW
#undef TASK
#undef EVENTS
#undef FEAT
#undef HW
#undef CPUS

/* @text with its fields filled in, into @buf as snprintf() would. */
static void pmuscope_say_fill(char *buf, size_t len, const char *text, int err,
			      const struct pmuscope_say_args *a)
{
	size_t off = 0;

	if (!buf || !len)
		return;
	buf[0] = '\0';
	while (*text && off < len) {
		size_t run = strcspn(text, "{");
		char key = run ? '\0' : text[1];
		int n;

		if (run) {
			n = snprintf(buf + off, len - off, "%.*s", (int)run, text);
			text += run;
		} else if (key == 'e' && text[2] == '}') {
			n = snprintf(buf + off, len - off, "%s", strerror(-err));
			text += 3;
		} else if ((key == 's' || key == 't') && text[2] == '}') {
			n = snprintf(buf + off, len - off, "%s", key == 's' ? a->s : a->t);
			text += 3;
		} else if (key >= '0' && key <= '5' && text[2] == '}') {
			n = snprintf(buf + off, len - off, "%lld", a->n[key - '0']);
			text += 3;
		} else {
			n = snprintf(buf + off, len - off, "{");
			text++;
		}
		off += n;
	}
}

enum pmuscope_say pmuscope_say(char *msg, size_t len, enum pmuscope_op op, int err,
			       unsigned int state, const struct pmuscope_say_args *a)
{
	static const struct pmuscope_say_args none;

	for (size_t i = 0; i < sizeof(pmuscope_say_rows) / sizeof(pmuscope_say_rows[0]); i++) {
		const struct pmuscope_say_row *r = &pmuscope_say_rows[i];

		if (r->op != op || (r->err[0] && r->err[0] != err && r->err[1] != err) ||
		    (state & r->need) != r->need || (state & r->unless))
			continue;
		if (r->say == PMUSCOPE_SAY_TEXT)
			pmuscope_say_fill(msg, len, r->text, err, a ? a : &none);
		else if (r->say == PMUSCOPE_SAY_POLICY)
			pmuscope_policy_msg(msg, len, r->text, err, a ? a->policy : 0);
		return r->say;
	}
	/* Every operation ends with a row for any errno. */
	pmuscope_fmt(msg, len, "%s", strerror(-err));
	return PMUSCOPE_SAY_TEXT;
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
 * Whether the driver's policy lets the caller count (and profile) whole
 * CPUs at EL0: CAP_PERFMON or CAP_SYS_ADMIN, kernel.perf_event_paranoid 0
 * or lower, or group=. An EPERM it gets then is not the policy's (the
 * locked-memory limit of SPE_START).
 */
int pmuscope_policy_cpus_ok(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { };
	int paranoid = pmuscope_sysctl("perf_event_paranoid");
	char group[80];

	/* CAP_SYS_ADMIN 21, CAP_PERFMON 38 (headers before 5.8 lack its name). */
	if (!syscall(SYS_capget, &h, d) && ((d[0].effective & (1U << 21)) ||
					    (d[1].effective & (1U << (38 - 32)))))
		return 1;
	if (paranoid != INT_MIN && paranoid <= 0)
		return 1;
	pmuscope_group_note(group, sizeof(group));
	return strstr(group, "yours") != NULL;
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
	else if ((what & PMUSCOPE_POLICY_KERNEL) && (what & PMUSCOPE_POLICY_CPU) && paranoid > 0)
		pmuscope_fmt(msg, len,
			     "%s: counting the kernel on whole CPUs needs CAP_PERFMON (or CAP_SYS_ADMIN) or kernel.perf_event_paranoid 0 or lower (it is %s); group= grants whole CPUs in user space only: add :u to count user space only",
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
	pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_CONFIG, ret, 0,
		     &(struct pmuscope_say_args){
			     .n = { nr },
			     .policy = PMUSCOPE_POLICY_CPU | pmuscope_policy_events(evs, nr),
		     });
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
