// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: events, CPU lists, the driver's sysfs description and
 * sessions on /dev/pmuscope.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pmuscope.h"
#include "pmuscope_modifiers.h"

/* ------------------------------------------------------------ the events */
struct pmuscope_lib_event {
	uint32_t number;
	const char *name;
	const char *desc;
};

static const struct pmuscope_lib_event pmuscope_lib_events[] = {
#define PMUSCOPE_EVENT(_num, _name, _desc) { _num, #_name, _desc },
#include "pmuscope_event_table.h"
#undef PMUSCOPE_EVENT
};

#define NEVENTS (sizeof(pmuscope_lib_events) / sizeof(pmuscope_lib_events[0]))

/* perf-style aliases; the first alias of an event is its short name. */
static const struct {
	const char *alias;
	uint32_t number;
} pmuscope_aliases[] = {
	{ "cycles", 0x11 },
	{ "cpu-cycles", 0x11 },
	{ "instructions", 0x08 },
	{ "branches", 0x21 },
	{ "branch-instructions", 0x21 },
	{ "branch-misses", 0x10 },
	{ "branch-predicted", 0x12 },
	{ "cache-references", 0x04 },
	{ "L1-dcache-loads", 0x04 },
	{ "cache-misses", 0x03 },
	{ "L1-dcache-load-misses", 0x03 },
	{ "L1-icache-load-misses", 0x01 },
	{ "dTLB-load-misses", 0x05 },
	{ "iTLB-load-misses", 0x02 },
	{ "stalled-cycles-frontend", 0x23 },
	{ "stalled-cycles-backend", 0x24 },
	{ "bus-cycles", 0x1d },
	{ "sw-incr", 0x00 },
};

#define NALIASES (sizeof(pmuscope_aliases) / sizeof(pmuscope_aliases[0]))

size_t pmuscope_event_count(void)
{
	return NEVENTS;
}

int pmuscope_event_at(size_t i, uint32_t *number, const char **name,
		      const char **desc)
{
	if (i >= NEVENTS)
		return -ENOENT;
	*number = pmuscope_lib_events[i].number;
	*name = pmuscope_lib_events[i].name;
	*desc = pmuscope_lib_events[i].desc;
	return 0;
}

const char *pmuscope_event_name(uint32_t number)
{
	for (size_t i = 0; i < NEVENTS; i++)
		if (pmuscope_lib_events[i].number == number)
			return pmuscope_lib_events[i].name;
	return NULL;
}

const char *pmuscope_event_desc(uint32_t number)
{
	for (size_t i = 0; i < NEVENTS; i++)
		if (pmuscope_lib_events[i].number == number)
			return pmuscope_lib_events[i].desc;
	return NULL;
}

const char *pmuscope_alias_of(uint32_t number)
{
	for (size_t i = 0; i < NALIASES; i++)
		if (pmuscope_aliases[i].number == number)
			return pmuscope_aliases[i].alias;
	return NULL;
}

static void pmuscope_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* --------------------------------------------------- the system's perf policy */

/* What a session asks of the policy (the driver's PMUSCOPE_POL_*). */
#define PMUSCOPE_POLICY_TASK	(1U << 0)	/* count one's own task */
#define PMUSCOPE_POLICY_CPU	(1U << 1)	/* count whole CPUs */
#define PMUSCOPE_POLICY_KERNEL	(1U << 2)	/* EL1/EL2, kernel PCs, SPE at EL1, PA/CX/PCT */
#define PMUSCOPE_POLICY_EL0	(1U << 3)	/* read counters at EL0 */

/* PMUSCOPE_POLICY_KERNEL when one of @nr events counts at EL1 or EL2. */
static unsigned int pmuscope_policy_events(const struct pmuscope_event_spec *evs,
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
static void pmuscope_policy_msg(char *msg, size_t len, const char *prefix, int err,
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

/* Case-insensitive edit distance, for "did you mean". */
static unsigned int pmuscope_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned int row[64], prev, tmp;

	if (lb >= 63)
		lb = 63;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned int cost = tolower((unsigned char)a[i - 1]) !=
					    tolower((unsigned char)b[j - 1]);
			unsigned int best = prev + cost;

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* "did you mean X, Y or Z?" from the three closest names and aliases. */
static void pmuscope_suggest(const char *name, char *buf, size_t len)
{
	const char *best[3] = { NULL, NULL, NULL };
	unsigned int dist[3] = { ~0U, ~0U, ~0U };
	size_t total = NEVENTS + NALIASES;

	for (size_t i = 0; i < total; i++) {
		const char *cand = i < NEVENTS ? pmuscope_lib_events[i].name :
				   pmuscope_aliases[i - NEVENTS].alias;
		unsigned int d;

		if (i < NEVENTS && pmuscope_lib_events[i].number == 0x1e)
			continue;	/* CHAIN is not a user event */
		d = pmuscope_distance(name, cand);

		for (int k = 0; k < 3; k++) {
			if (d < dist[k]) {
				for (int m = 2; m > k; m--) {
					dist[m] = dist[m - 1];
					best[m] = best[m - 1];
				}
				dist[k] = d;
				best[k] = cand;
				break;
			}
		}
	}
	pmuscope_fmt(buf, len, "%s, %s or %s", best[0], best[1], best[2]);
}

static int pmuscope_lookup_name(const char *name, uint32_t *number,
				const char **canon)
{
	for (size_t i = 0; i < NALIASES; i++) {
		if (!strcasecmp(pmuscope_aliases[i].alias, name)) {
			*number = pmuscope_aliases[i].number;
			*canon = pmuscope_event_name(*number);
			return 0;
		}
	}
	for (size_t i = 0; i < NEVENTS; i++) {
		if (!strcasecmp(pmuscope_lib_events[i].name, name)) {
			*number = pmuscope_lib_events[i].number;
			*canon = pmuscope_lib_events[i].name;
			return 0;
		}
	}
	return -ENOENT;
}

static int pmuscope_parse_number(const char *s, int hex_default, uint32_t *out)
{
	char *end;
	unsigned long v;

	/*
	 * Digits only: strtoul() would take spaces and signs. Decimal, or
	 * hexadecimal with 0x (raw events: always): never octal, where 010
	 * would be 8.
	 */
	if (!*s || !isxdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, hex_default || !strncasecmp(s, "0x", 2) ? 16 : 10);
	if (errno || *end || v > 0xffff)
		return -EINVAL;
	*out = v;
	return 0;
}

int pmuscope_event_parse(const char *text, struct pmuscope_event_spec *ev,
			 char *err, size_t errlen)
{
	char name[64], suggestions[160];
	const char *mods = strchr(text, ':');
	size_t nlen = mods ? (size_t)(mods - text) : strlen(text);
	const char *canon = NULL;
	unsigned int kernel_el;

	memset(ev, 0, sizeof(*ev));
	if (!nlen || nlen >= sizeof(name)) {
		pmuscope_fmt(err, errlen, "invalid event '%s'", text);
		return -EINVAL;
	}
	memcpy(name, text, nlen);
	name[nlen] = '\0';

	if (!pmuscope_lookup_name(name, &ev->number, &canon)) {
		snprintf(ev->name, sizeof(ev->name), "%s", canon);
	} else if ((name[0] == 'r' || name[0] == 'R') && isxdigit((unsigned char)name[1])) {
		const char *hex = name + 1;

		if (!strncasecmp(hex, "0x", 2))
			hex += 2;
		if (pmuscope_parse_number(hex, 1, &ev->number)) {
			pmuscope_fmt(err, errlen,
				     "invalid raw event '%s': want r<hex>, e.g. r0xc0, at most 0xffff",
				     name);
			return -EINVAL;
		}
		ev->flags |= PMUSCOPE_EV_RAW;
		snprintf(ev->name, sizeof(ev->name), "r0x%x", ev->number);
	} else if (isdigit((unsigned char)name[0])) {
		if (pmuscope_parse_number(name, 0, &ev->number)) {
			pmuscope_fmt(err, errlen, "invalid event number '%s'", name);
			return -EINVAL;
		}
		canon = pmuscope_event_name(ev->number);
		if (!canon) {
			pmuscope_fmt(err, errlen,
				     "event 0x%x is not an Arm common event: give it as raw, r0x%x",
				     ev->number, ev->number);
			return -ENOENT;
		}
		snprintf(ev->name, sizeof(ev->name), "%s", canon);
	} else {
		pmuscope_suggest(name, suggestions, sizeof(suggestions));
		pmuscope_fmt(err, errlen, "unknown event '%s': did you mean %s?",
			     name, suggestions);
		return -ENOENT;
	}
	if (ev->number == 0x1e) {
		pmuscope_fmt(err, errlen,
			     "CHAIN (0x1e) is not a user event: the driver chains counters itself");
		return -EINVAL;
	}
	snprintf(ev->label, sizeof(ev->label), "%s", name);

	kernel_el = pmuscope_kernel_el();
	if (!mods) {
		ev->flags |= pmuscope_modifiers_default(kernel_el);
		return 0;
	}
	if (!mods[1]) {
		pmuscope_fmt(err, errlen, "empty modifier in '%s'", text);
		return -EINVAL;
	}
	for (const char *m = mods + 1; *m; m++) {
		unsigned int flag = pmuscope_modifier_flag(*m, kernel_el);

		if (!flag) {
			pmuscope_fmt(err, errlen,
				     "unknown modifier '%c' in '%s': use u (EL0), k (kernel, EL%u), h (EL2)",
				     *m, text, kernel_el);
			return -EINVAL;
		}
		ev->flags |= flag;
	}
	return 0;
}

/* ------------------------------------------------------------- CPU lists */
int pmuscope_cpulist_parse(const char *text, uint64_t *mask, size_t words,
			   char *err, size_t errlen)
{
	const char *p = text;

	memset(mask, 0, words * sizeof(*mask));
	if (!*p) {
		pmuscope_fmt(err, errlen, "empty CPU list");
		return -EINVAL;
	}
	while (*p) {
		char *end;
		unsigned long a, b;

		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtoul(p, &end, 10);
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			b = strtoul(p, &end, 10);
			p = end;
		}
		if (a > b || b >= words * 64) {
			pmuscope_fmt(err, errlen, "invalid CPU range in '%s' (CPUs 0-%zu)",
				     text, words * 64 - 1);
			return -EINVAL;
		}
		for (unsigned long c = a; c <= b; c++)
			mask[c / 64] |= 1ULL << (c % 64);
		if (*p == ',') {
			if (!*++p)
				goto bad;	/* a trailing comma */
		} else if (*p) {
			goto bad;
		}
	}
	return 0;
bad:
	pmuscope_fmt(err, errlen, "invalid CPU list '%s': want e.g. 0-3,6", text);
	return -EINVAL;
}

void pmuscope_cpulist_format(const uint64_t *mask, size_t words, char *buf,
			     size_t len)
{
	size_t n = words * 64, off = 0;

	buf[0] = '\0';
	for (size_t c = 0; c < n; c++) {
		size_t e = c;

		if (!(mask[c / 64] & (1ULL << (c % 64))))
			continue;
		while (e + 1 < n && (mask[(e + 1) / 64] & (1ULL << ((e + 1) % 64))))
			e++;
		if (off >= len)
			break;		/* truncated: snprintf() ended it */
		if (e > c)
			off += snprintf(buf + off, len - off, "%s%zu-%zu",
					off ? "," : "", c, e);
		else
			off += snprintf(buf + off, len - off, "%s%zu",
					off ? "," : "", c);
		c = e;
	}
}

/* ------------------------------------------------------------------ sysfs */
const char *pmuscope_sysfs_root(void)
{
	const char *env = getenv("PMUSCOPE_SYSFS");

	return env && *env ? env : "/sys/kernel/pmuscope";
}

unsigned int pmuscope_kernel_el(void)
{
	char path[512], buf[8] = "";
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "%s/kernel_el", pmuscope_sysfs_root());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	return n > 0 && buf[0] == '2' ? 2 : 1;
}

int pmuscope_emulated(char *profile, size_t len)
{
	char path[512], buf[64] = "";
	ssize_t n;
	int fd;

	if (len)
		profile[0] = '\0';
	snprintf(path, sizeof(path), "%s/emulated", pmuscope_sysfs_root());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || buf[0] != '1')
		return 0;
	snprintf(path, sizeof(path), "%s/emulated_profile", pmuscope_sysfs_root());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (len)
			snprintf(profile, len, "%s", buf);
	}
	return 1;
}

void pmuscope_modifiers_format(uint32_t flags, unsigned int kernel_el, char *buf)
{
	pmuscope_modifiers_str(flags, kernel_el, buf);
}

static int pmuscope_read_str(int cpu, const char *file, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/cpu%d/%s", pmuscope_sysfs_root(), cpu, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static uint64_t pmuscope_read_u64(int cpu, const char *file)
{
	char buf[64];

	if (pmuscope_read_str(cpu, file, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 0);
}

int pmuscope_cpu_info(int cpu, struct pmuscope_cpu_info *info)
{
	char buf[64], path[512];

	memset(info, 0, sizeof(*info));
	info->cpu = cpu;
	snprintf(path, sizeof(path), "%s/cpu%d", pmuscope_sysfs_root(), cpu);
	if (access(path, F_OK))
		return -ENOENT;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	info->online = 1;
	if (!getenv("PMUSCOPE_SYSFS") && !access(path, F_OK)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			if (read(fd, buf, 1) == 1)
				info->online = buf[0] == '1';
			close(fd);
		}
	}
	info->probed = pmuscope_read_u64(cpu, "probed") == 1;
	if (!info->probed)
		return 0;
	pmuscope_read_str(cpu, "cpu_name", info->name, sizeof(info->name));
	pmuscope_read_str(cpu, "pmu", info->pmu, sizeof(info->pmu));
	pmuscope_read_str(cpu, "pmu_version_name", info->pmu_version_name,
			  sizeof(info->pmu_version_name));
	info->num_counters = pmuscope_read_u64(cpu, "num_event_counters");
	info->event_width = pmuscope_read_u64(cpu, "event_counter_width");
	info->pmceid0 = pmuscope_read_u64(cpu, "pmceid0");
	info->pmceid1 = pmuscope_read_u64(cpu, "pmceid1");
	return 0;
}

int pmuscope_online_cpus(uint64_t *mask, size_t words)
{
	struct pmuscope_cpu_info info;
	int found = 0;

	memset(mask, 0, words * sizeof(*mask));
	for (size_t cpu = 0; cpu < words * 64; cpu++) {
		if (pmuscope_cpu_info(cpu, &info)) {
			if (cpu >= 64)
				break;
			continue;
		}
		if (info.online && info.probed) {
			mask[cpu / 64] |= 1ULL << (cpu % 64);
			found++;
		}
	}
	return found ? 0 : -ENOENT;
}

int pmuscope_cpu_has_event(const struct pmuscope_cpu_info *info, uint32_t number)
{
	unsigned int i = number & 0x3f;
	uint64_t reg = i < 32 ? info->pmceid0 : info->pmceid1;
	unsigned int shift = (i & 31) + (number >= 0x4000 ? 32 : 0);

	if (!(number < 0x40 || (number >= 0x4000 && number < 0x4040)))
		return 0;
	return (reg >> shift) & 1;
}

/* --------------------------------------------------------------- sessions */

/*
 * EL0 self-monitoring (pmuscope_read_self()): what its reader, in
 * assembly below, reads of a session. struct pmuscope begins with it, so
 * that the reader finds it at fixed offsets from the handle
 * (PMUSCOPE_EL0_OFF_*, checked at compile time).
 *
 * A plan is a copy of the user page, made under its seq, for reads of
 * @plan_nr counters: where the reader branches in its critical section
 * (@entry) and each counter's fold. A straight-line reader (counters in
 * the order the driver gives them when the thread has the PMU alone:
 * PMEVCNTR0.. for the events in order, or PMCCNTR_EL0 for a first
 * CPU_CYCLES and PMEVCNTR0.. for the others; the event counters all
 * 32-bit or all 64-bit) folds counter i with @fold[i]; any other layout
 * goes through @slot[], one table entry per counter.
 */
#define PMUSCOPE_EL0_STRAIGHT	16	/* counters a straight-line reader reads */
#define PMUSCOPE_EL0_NO_PLAN	UINT32_MAX	/* matches no nr the slow path takes */

/*
 * A counter's fold: 32-bit, count = @a + (u32)(raw - @b) (@a = offset,
 * @b = last_raw); 64-bit, count = raw + @a (@a = offset - last_raw).
 */
struct pmuscope_el0_fold {
	uint64_t a;
	uint64_t b;
};

/* One counter of a table plan: its entry (after the last, the end) and fold. */
struct pmuscope_el0_slot {
	uint64_t target;
	uint64_t a;
	uint64_t b;
	uint64_t pad;
};

struct pmuscope_el0 {
	void *tp;			/* the counted thread's thread pointer */
	void *rseq;			/* its struct rseq; NULL: no fast path */
	const struct pmuscope_user_page *page;	/* NULL: none mapped */
	const void *cs;			/* the critical section's struct rseq_cs */
	uint64_t plan_gen;		/* the page's gen the plan was read at */
	uint64_t entry;			/* the plan's reader */
	uint32_t plan_nr;		/* counters planned; PMUSCOPE_EL0_NO_PLAN: none */
	uint32_t plan_want;		/* counters asked for at the last plan */
	uint64_t fast;			/* reads made at EL0 */
	struct pmuscope_el0_fold fold[PMUSCOPE_EL0_STRAIGHT];
	struct pmuscope_el0_slot slot[PMUSCOPE_MAX_EVENTS + 1];
	unsigned int depth;		/* retries of pmuscope__el0_read_slow() under way */
	uint32_t layout;		/* PMUSCOPE_SELF_* of the last plan */
};

static void pmuscope_el0_unplan(struct pmuscope_el0 *e);

struct pmuscope {
	struct pmuscope_el0 el0;	/* first: the EL0 reader's offsets */
	int fd;
	uint64_t features;
	unsigned int nr_events;
	struct pmuscope_event_spec evs[PMUSCOPE_MAX_EVENTS];
	uint64_t cpus[PMUSCOPE_CPU_WORDS];
	int task;			/* configured for a task, not CPUs */
	uint32_t nr_cpu_ids;		/* the handshake's: CPU numbers are below */
	char msg[512];
	/* EL0 self-monitoring: pmuscope_configure_self() */
	uint32_t self_flags;		/* PMUSCOPE_CFG_USER_SWINC */
	struct pmuscope_self_stats st;	/* all but fast (el0.fast) */
	struct pmuscope *self_next;	/* the sessions with a page (fork) */
};

static void pmuscope_self_unmap(struct pmuscope *h);

int pmuscope_open(struct pmuscope **out, char *err, size_t errlen)
{
	struct pmuscope_handshake hs = { .size = sizeof(hs) };
	struct pmuscope *h;
	int ret;

	*out = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	pmuscope_el0_unplan(&h->el0);
	h->fd = open("/dev/pmuscope", O_RDWR | O_CLOEXEC);
	if (h->fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			pmuscope_fmt(err, errlen,
				     "/dev/pmuscope not found: is the pmuscope module loaded? (insmod pmuscope.ko)");
		else if (ret == -ENXIO || ret == -ENODEV)
			/* A device node left behind by a driver now unloaded. */
			pmuscope_fmt(err, errlen,
				     "/dev/pmuscope has no driver behind it (%s): is the pmuscope module loaded? (insmod pmuscope.ko)",
				     strerror(-ret));
		else
			pmuscope_fmt(err, errlen, "cannot open /dev/pmuscope: %s",
				     strerror(-ret));
		free(h);
		return ret;
	}
	if (ioctl(h->fd, PMUSCOPE_IOC_HANDSHAKE, &hs)) {
		ret = -errno;
		pmuscope_fmt(err, errlen,
			     "the pmuscope module does not answer the handshake (%s): it is older or newer than libpmuscope %s",
			     strerror(-ret), PMUSCOPE_LIB_VERSION);
		pmuscope_close(h);
		return ret == -ENOTTY ? -EPROTO : ret;
	}
	if (hs.api_version != PMUSCOPE_API_VERSION) {
		pmuscope_fmt(err, errlen,
			     "the pmuscope module speaks API version %u, libpmuscope %s speaks %u: use matching versions",
			     hs.api_version, PMUSCOPE_LIB_VERSION, PMUSCOPE_API_VERSION);
		pmuscope_close(h);
		return -EPROTO;
	}
	h->features = hs.features;
	h->nr_cpu_ids = hs.nr_cpu_ids;
	*out = h;
	return 0;
}

void pmuscope_close(struct pmuscope *h)
{
	if (!h)
		return;
	pmuscope_self_unmap(h);
	if (h->fd >= 0)
		close(h->fd);
	free(h);
}

const char *pmuscope_errmsg(const struct pmuscope *h)
{
	return h ? h->msg : "no pmuscope session (pmuscope_open() failed or was not called)";
}

uint64_t pmuscope_features(const struct pmuscope *h)
{
	return h ? h->features : 0;
}

static int pmuscope_cpu_set(const uint64_t *cpus, size_t words, size_t cpu)
{
	return cpu < words * 64 && (cpus[cpu / 64] & (1ULL << (cpu % 64)));
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
static void pmuscope_explain(struct pmuscope *h, int ret,
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

/* The uapi's events of @nr parsed events. */
static void pmuscope_kernel_events(const struct pmuscope_event_spec *evs, unsigned int nr,
				   struct pmuscope_event *kev)
{
	for (unsigned int i = 0; i < nr; i++)
		kev[i] = (struct pmuscope_event){ .event = evs[i].number,
						  .flags = evs[i].flags };
}

int pmuscope_configure(struct pmuscope *h, const struct pmuscope_event_spec *evs,
		       unsigned int nr, const uint64_t *cpus, size_t words)
{
	struct pmuscope_event kev[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_config cfg = { .size = sizeof(cfg) };
	size_t used = words;

	if (!h)
		return -EINVAL;
	if (!nr || nr > PMUSCOPE_MAX_EVENTS) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "%u events: a session counts 1 to %u events", nr,
			     PMUSCOPE_MAX_EVENTS);
		return -EINVAL;
	}
	while (used > 1 && !cpus[used - 1])
		used--;
	pmuscope_self_unmap(h);
	pmuscope_kernel_events(evs, nr, kev);
	cfg.nr_events = nr;
	cfg.events = (uintptr_t)kev;
	cfg.cpus = (uintptr_t)cpus;
	cfg.cpus_size = used * sizeof(uint64_t);
	if (ioctl(h->fd, PMUSCOPE_IOC_CONFIG, &cfg)) {
		int ret = -errno;

		pmuscope_explain(h, ret, evs, nr, cpus, words);
		return ret;
	}
	memcpy(h->evs, evs, nr * sizeof(*evs));
	h->nr_events = nr;
	h->task = 0;
	memset(h->cpus, 0, sizeof(h->cpus));
	memcpy(h->cpus, cpus, (words < PMUSCOPE_CPU_WORDS ? words : PMUSCOPE_CPU_WORDS) *
	       sizeof(uint64_t));
	return 0;
}

/* Explain a refused configuration against the CPUs online now. */
static void pmuscope_explain_online(struct pmuscope *h, int ret,
				    const struct pmuscope_event_spec *evs, unsigned int nr)
{
	uint64_t online[PMUSCOPE_CPU_WORDS] = { 0 };

	pmuscope_online_cpus(online, PMUSCOPE_CPU_WORDS);
	pmuscope_explain(h, ret, evs, nr, online, PMUSCOPE_CPU_WORDS);
}

/* The session now counts @evs in a task. */
static void pmuscope_task_configured(struct pmuscope *h, const struct pmuscope_event_spec *evs,
				     unsigned int nr)
{
	memcpy(h->evs, evs, nr * sizeof(*evs));
	h->nr_events = nr;
	h->task = 1;
	memset(h->cpus, 0, sizeof(h->cpus));
}

int pmuscope_configure_task(struct pmuscope *h, const struct pmuscope_event_spec *evs,
			    unsigned int nr, int tid, uint32_t flags)
{
	struct pmuscope_event kev[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .target = PMUSCOPE_TARGET_TASK, .pid = tid,
		.flags = flags,
	};

	if (!h)
		return -EINVAL;
	if (!nr || nr > PMUSCOPE_MAX_EVENTS) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "%u events: a session counts 1 to %u events", nr,
			     PMUSCOPE_MAX_EVENTS);
		return -EINVAL;
	}
	pmuscope_self_unmap(h);
	pmuscope_kernel_events(evs, nr, kev);
	cfg.nr_events = nr;
	cfg.events = (uintptr_t)kev;
	if (ioctl(h->fd, PMUSCOPE_IOC_CONFIG, &cfg)) {
		int ret = -errno;

		switch (ret) {
		case -EACCES:
			pmuscope_policy_msg(h->msg, sizeof(h->msg), "permission denied", ret,
					    PMUSCOPE_POLICY_TASK | pmuscope_policy_events(evs, nr));
			break;
		case -EPERM:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "permission denied: counting another thread needs CAP_PERFMON or CAP_SYS_ADMIN");
			break;
		case -ESRCH:
			pmuscope_fmt(h->msg, sizeof(h->msg), "no thread %d", tid);
			break;
		case -EOPNOTSUPP:
			if (!(h->features & PMUSCOPE_FEAT_TASK)) {
				pmuscope_fmt(h->msg, sizeof(h->msg),
					     "the driver cannot count a task (API version 1, or no perf support): count CPUs with -a or -C");
				break;
			}
			/* Which event, on which CPU. */
			__attribute__((fallthrough));
		default:
			pmuscope_explain_online(h, ret, evs, nr);
		}
		return ret;
	}
	pmuscope_task_configured(h, evs, nr);
	return 0;
}

static int pmuscope_simple(struct pmuscope *h, unsigned long req, const char *what)
{
	if (!h)
		return -EINVAL;
	if (ioctl(h->fd, req)) {
		int ret = -errno;

		pmuscope_fmt(h->msg, sizeof(h->msg), "%s failed: %s", what,
			     ret == -EINVAL ? "no events configured" : strerror(-ret));
		return ret;
	}
	return 0;
}

int pmuscope_enable(struct pmuscope *h)
{
	return pmuscope_simple(h, PMUSCOPE_IOC_ENABLE, "enable");
}

int pmuscope_disable(struct pmuscope *h)
{
	return pmuscope_simple(h, PMUSCOPE_IOC_DISABLE, "disable");
}

int pmuscope_reset(struct pmuscope *h)
{
	return pmuscope_simple(h, PMUSCOPE_IOC_RESET, "reset");
}

int pmuscope_swinc(struct pmuscope *h, uint64_t event_mask, unsigned int cpu,
		   unsigned int count)
{
	struct pmuscope_swinc sw = {
		.size = sizeof(sw), .event_mask = event_mask, .cpu = cpu, .count = count,
	};

	if (!h)
		return -EINVAL;
	if (ioctl(h->fd, PMUSCOPE_IOC_SWINC, &sw)) {
		int ret = -errno;

		switch (ret) {
		case -EINVAL:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "software increment refused: the mask must name configured SW_INCR events counting at the kernel's level (EL%u), on a CPU of the session, 1 to 4096 times",
				     pmuscope_kernel_el());
			break;
		case -ENXIO:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "software increment refused: cpu%u is offline", cpu);
			break;
		default:
			pmuscope_fmt(h->msg, sizeof(h->msg), "software increment failed: %s",
				     strerror(-ret));
		}
		return ret;
	}
	return 0;
}

uint64_t pmuscope_scale(uint64_t count, uint64_t enabled, uint64_t running)
{
	if (!running || running >= enabled)
		return count;
	return (uint64_t)((unsigned __int128)count * enabled / running);
}

int pmuscope_read(struct pmuscope *h, struct pmuscope_count *out,
		  unsigned int room, unsigned int *nr)
{
	struct pmuscope_value vals[256], *v = vals;
	struct pmuscope_read rd = { .size = sizeof(rd) };
	int ret = 0;

	if (!h || !nr || (room && !out))
		return -EINVAL;
	if (room > 256) {
		v = calloc(room, sizeof(*v));
		if (!v)
			return -ENOMEM;
	}
	rd.values = (uintptr_t)v;
	rd.nr_values = room;
	if (ioctl(h->fd, PMUSCOPE_IOC_READ, &rd)) {
		ret = -errno;
		pmuscope_fmt(h->msg, sizeof(h->msg), "read failed: %s%s",
			     strerror(-ret), ret == -ENOSPC ? " (not enough room)" : "");
	} else if (rd.nr_values > room) {
		ret = -EPROTO;
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "read: the driver returned %u values for %u places",
			     rd.nr_values, room);
	} else {
		for (unsigned int i = 0; i < rd.nr_values; i++) {
			out[i].cpu = v[i].cpu;
			out[i].index = v[i].index;
			out[i].flags = v[i].flags;
			out[i].counter = v[i].counter;
			out[i].count = v[i].count;
			out[i].time_enabled = v[i].time_enabled;
			out[i].time_running = v[i].time_running;
			out[i].scaled = pmuscope_scale(v[i].count, v[i].time_enabled,
						       v[i].time_running);
		}
	}
	*nr = rd.nr_values;
	if (v != vals)
		free(v);
	return ret;
}

/* ------------------------------------------------- EL0 self-monitoring */

/*
 * The EL0 fast path: little-endian arm64 (the reader loads 32-bit fields
 * in pairs) with glibc 2.35 or later, which registers each thread's
 * struct rseq and exports where it is (__rseq_offset from the thread
 * pointer; __rseq_size is 0 when it could not). Elsewhere
 * pmuscope_read_self() is the READ ioctl.
 */
#if defined(__aarch64__) && !defined(__AARCH64EB__) && defined(__GLIBC__) && \
	defined(__has_include)
# if __has_include(<sys/rseq.h>)
#  include <sys/rseq.h>
#  if __GLIBC_PREREQ(2, 35) && defined(RSEQ_SIG)
#   define PMUSCOPE_EL0_FAST	1
#  endif
# endif
#endif

#define PMUSCOPE_EL0_TRIES	64	/* critical sections tried, then the ioctl */

#ifdef PMUSCOPE_EL0_FAST
/*
 * The readers, in assembly. An rseq critical section is one range of
 * instructions [start, post_commit) that the compiler must not split,
 * move or duplicate, with its abort handler outside it, just after the
 * signature glibc registered (RSEQ_SIG; aarch64: 0xd428bc00). The kernel
 * sends a thread preempted, migrated or signalled inside the range to the
 * abort handler on its way back to user space, and so does the driver
 * when it writes the page on the thread's CPU while the thread runs
 * (page version 2): nothing in the range runs on another CPU than the
 * one the plan names, nor after the page changed under it.
 *
 * pmuscope_read_self(h, counts, nr) (x0 = h, whose struct pmuscope_el0
 * comes first, x1 = counts, w2 = nr): -EINVAL for a NULL @h or @counts;
 * then, if the caller is the counted thread and the plan is of @nr
 * counters, it stores the section's descriptor in rseq->rseq_cs and in
 * the section checks page->gen == plan_gen: the page has not changed
 * since the plan was made, so the thread has not left the CPU that
 * granted it then (every switch writes the page), and the plan's
 * counters and folds are true. It branches to the plan's reader, which
 * reads the counters with MRS, folds them into counts[] and reaches
 * post_commit: el0->fast + 1, returns 0. Anything else tail-calls
 * pmuscope__el0_read_slow(h, counts, nr, why): why 1, the page changed
 * before the section; 2, aborted; 4, no plan of @nr counters or another
 * thread.
 *
 * The plan's readers, all inside the range:
 *  - straight-line: pairs of counters, each two MRS, two folds from
 *    el0->fold[] and one STP to counts[], from the plan's last counter
 *    down to counter 0; one sequence for each layout (event counters
 *    only, or PMCCNTR_EL0 first), width of the event counters (32 or
 *    64 bits) and parity of the number of counters, entered at the pair
 *    of the plan's last counter;
 *  - the table: an entry per hardware counter (32-bit, then 64-bit
 *    folds), each its MRS, its fold, its store, the next slot's loads
 *    and a branch to the next slot's entry; the slot after the last
 *    branches to post_commit.
 *
 * Registers: x0-x2 are kept for the slow path; x4 el0->fast, x5
 * plan_gen, x6 rseq, x7 page, x15 the entry, x16/x17 the counters, x10-x13 their folds, x14
 * (table) the next slot, x3 (table) counts[i], x9 scratch: all
 * caller-saved.
 *
 * pmuscope__el0_swinc(rseq, page, hwmask, &count, cpu, seq): checks
 * rseq->cpu_id == @cpu and page->seq == @seq, then writes PMSWINC_EL0,
 * the section's last instruction (its commit), in a section of its own
 * for each of *count increments; *count is left at the increments not
 * made. Returns 0, 1 (not granted here, or the page changed) or 2.
 *
 * Every place a branch register lands starts with a landing pad where
 * the compiler guards indirect branches (BTI).
 */
#ifdef __ARM_FEATURE_BTI_DEFAULT
# define PMUSCOPE_EL0_BTI_C	"hint	34\n\t"		/* bti c */
# define PMUSCOPE_EL0_BTI_J	"hint	36\n\t"		/* bti j */
#else
# define PMUSCOPE_EL0_BTI_C	""
# define PMUSCOPE_EL0_BTI_J	""
#endif
#define PMUSCOPE_EL0_STRIDE	32		/* bytes of a table entry */
#define PMUSCOPE_EL0_TAB64	(32 * PMUSCOPE_EL0_STRIDE)	/* the 64-bit table */

/* Offsets in struct pmuscope (checked below). */
#define PMUSCOPE_EL0_OFF_TP	"0"		/* tp, then rseq */
#define PMUSCOPE_EL0_OFF_PAGE	"16"		/* page, then cs */
#define PMUSCOPE_EL0_OFF_GEN	"32"		/* plan_gen, then entry */
#define PMUSCOPE_EL0_OFF_NR	"48"		/* plan_nr, plan_want, then fast */
#define PMUSCOPE_EL0_OFF_FAST	"56"
#define PMUSCOPE_EL0_OFF_FOLD	"64"		/* the straight-line readers' folds */
#define PMUSCOPE_EL0_OFF_SLOT	"320"
#define PMUSCOPE_EL0_PAGE_GEN	"40"		/* offsetof(struct pmuscope_user_page, gen) */

#define PMUSCOPE_EL0_SUB32		"sub	w16, w16, w13\n\t"

/*
 * Straight-line: counts[ra + d] from PMEVCNTR<ra>, counts[rb + d] from
 * PMEVCNTR<rb> (rb = ra - 1; @d 1 when PMCCNTR is counter 0), each
 * folded with an add, after @sub_a and @sub_b (32-bit event counters:
 * raw - last_raw in 32 bits; 64-bit ones, PMUv3p5 PMCR_EL0.LP: nothing).
 */
#define PMUSCOPE_EL0_PAIR_W(ra, rb, d, sub_a, sub_b)			\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmevcntr" #ra "_el0\n\t"				\
	"mrs	x17, pmevcntr" #rb "_el0\n\t"				\
	"ldp	x12, x13, [x0, #" PMUSCOPE_EL0_OFF_FOLD " + 16 * (" #ra " + " #d ")]\n\t" \
	"ldp	x10, x11, [x0, #" PMUSCOPE_EL0_OFF_FOLD " + 16 * (" #rb " + " #d ")]\n\t" \
	sub_a								\
	sub_b								\
	"add	x16, x16, x12\n\t"					\
	"add	x17, x17, x10\n\t"					\
	"stp	x17, x16, [x1, #8 * (" #rb " + " #d ")]\n\t"
#define PMUSCOPE_EL0_PAIR(ra, rb, d)					\
	PMUSCOPE_EL0_PAIR_W(ra, rb, d, PMUSCOPE_EL0_SUB32, "sub	w17, w17, w11\n\t")
#define PMUSCOPE_EL0_PAIR64(ra, rb, d)	PMUSCOPE_EL0_PAIR_W(ra, rb, d, "", "")
/*
 * Seven pairs of @pair: PMEVCNTR13 and 12 down to 1 and 0, or 14 and 13
 * down to 2 and 1.
 */
#define PMUSCOPE_EL0_PAIRS_TO0(pair, d)					\
	pair(13, 12, d) pair(11, 10, d) pair(9, 8, d) pair(7, 6, d)	\
	pair(5, 4, d) pair(3, 2, d) pair(1, 0, d)
#define PMUSCOPE_EL0_PAIRS_TO1(pair, d)					\
	pair(14, 13, d) pair(12, 11, d) pair(10, 9, d) pair(8, 7, d)	\
	pair(6, 5, d) pair(4, 3, d) pair(2, 1, d)
/*
 * counts[1] from PMEVCNTR0 (@fold: "sub w16, w16, w13" for 32 bits, ""
 * for 64), counts[0] from PMCCNTR (64-bit).
 */
#define PMUSCOPE_EL0_PAIR_CC(fold)					\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmevcntr0_el0\n\t"					\
	"mrs	x17, pmccntr_el0\n\t"					\
	"ldp	x12, x13, [x0, #" PMUSCOPE_EL0_OFF_FOLD " + 16]\n\t"	\
	"ldr	x10, [x0, #" PMUSCOPE_EL0_OFF_FOLD "]\n\t"		\
	fold								\
	"add	x16, x16, x12\n\t"					\
	"add	x17, x17, x10\n\t"					\
	"stp	x17, x16, [x1]\n\t"
#define PMUSCOPE_EL0_ONE_EV0(fold)					\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmevcntr0_el0\n\t"					\
	"ldp	x12, x13, [x0, #" PMUSCOPE_EL0_OFF_FOLD "]\n\t"		\
	fold								\
	"add	x16, x16, x12\n\t"					\
	"str	x16, [x1]\n\t"
#define PMUSCOPE_EL0_ONE_CC						\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmccntr_el0\n\t"					\
	"ldr	x12, [x0, #" PMUSCOPE_EL0_OFF_FOLD "]\n\t"		\
	"add	x16, x16, x12\n\t"					\
	"str	x16, [x1]\n\t"
#define PMUSCOPE_EL0_TO_DONE		"b	pmuscope__el0_done\n\t"

/* The table: the next slot, its entry, its fold; on to it. */
#define PMUSCOPE_EL0_NEXT						\
	"str	x16, [x3], #8\n\t"					\
	"ldp	x15, x13, [x14], #32\n\t"				\
	"ldr	x12, [x14, #-16]\n\t"					\
	"br	x15\n\t"
#define PMUSCOPE_EL0_FOLD32						\
	"sub	w16, w16, w12\n\t"					\
	"add	x16, x16, x13\n\t"
#define PMUSCOPE_EL0_FOLD64						\
	"add	x16, x16, x13\n\t"
#define PMUSCOPE_EL0_EVENT_ENTRIES(fold)				\
	".irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30\n\t" \
	".p2align 5\n\t"						\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmevcntr\\n\\()_el0\n\t"				\
	fold								\
	PMUSCOPE_EL0_NEXT						\
	".endr\n\t"							\
	".p2align 5\n\t"						\
	PMUSCOPE_EL0_BTI_J						\
	"mrs	x16, pmccntr_el0\n\t"					\
	fold								\
	PMUSCOPE_EL0_NEXT

asm(
	".text\n\t"
	".p2align 6\n\t"
	".globl	pmuscope_read_self\n\t"
	".type	pmuscope_read_self, %function\n\t"
	".globl	pmuscope__el0_read\n\t"
	".hidden pmuscope__el0_read\n\t"
	".type	pmuscope__el0_read, %function\n"
"pmuscope_read_self:\n"
"pmuscope__el0_read:\n\t"
	".cfi_startproc\n\t"
	PMUSCOPE_EL0_BTI_C
	"cbz	x0, .Lpmuscope_rd_einval\n\t"
	"cbz	x1, .Lpmuscope_rd_einval\n\t"
	"mrs	x10, tpidr_el0\n\t"
	"ldp	x11, x6, [x0, #" PMUSCOPE_EL0_OFF_TP "]\n\t"
	"ldp	x7, x9, [x0, #" PMUSCOPE_EL0_OFF_PAGE "]\n\t"
	"ldp	x5, x15, [x0, #" PMUSCOPE_EL0_OFF_GEN "]\n\t"
	"ldp	x12, x4, [x0, #" PMUSCOPE_EL0_OFF_NR "]\n\t"	/* plan_nr (w12), fast */
	"cmp	x10, x11\n\t"
	"ccmp	w12, w2, #0, eq\n\t"
	"b.ne	.Lpmuscope_rd_unplanned\n\t"
	"str	x9, [x6, #8]\n"			/* rseq->rseq_cs */
".Lpmuscope_rd_start:\n\t"
	"ldr	x9, [x7, #" PMUSCOPE_EL0_PAGE_GEN "]\n\t"
	"cmp	x9, x5\n\t"
	"b.ne	.Lpmuscope_rd_stale\n\t"
	"br	x15\n"
	/* The entry while there is no plan (or none reads at EL0): the slow path. */
	".globl	pmuscope__el0_noplan\n\t"
	".hidden pmuscope__el0_noplan\n"
"pmuscope__el0_noplan:\n\t"
	PMUSCOPE_EL0_BTI_J
	"b	.Lpmuscope_rd_stale\n\t"

	/* 32-bit event counters only, an even number: pairs (15, 14) .. (1, 0). */
	".p2align 3\n\t"
	".globl	pmuscope__el0_ev_even\n\t"
	".hidden pmuscope__el0_ev_even\n"
"pmuscope__el0_ev_even:\n\t"
	PMUSCOPE_EL0_PAIR(15, 14, 0) PMUSCOPE_EL0_PAIRS_TO0(PMUSCOPE_EL0_PAIR, 0)
	PMUSCOPE_EL0_TO_DONE
	/* ... an odd number: pairs (14, 13) .. (2, 1), then 0. */
	".globl	pmuscope__el0_ev_odd\n\t"
	".hidden pmuscope__el0_ev_odd\n"
"pmuscope__el0_ev_odd:\n\t"
	PMUSCOPE_EL0_PAIRS_TO1(PMUSCOPE_EL0_PAIR, 0)
	".globl	pmuscope__el0_ev_odd_last\n\t"
	".hidden pmuscope__el0_ev_odd_last\n"
"pmuscope__el0_ev_odd_last:\n\t"
	PMUSCOPE_EL0_ONE_EV0(PMUSCOPE_EL0_SUB32)
	PMUSCOPE_EL0_TO_DONE
	/* PMCCNTR first, an even number: counter i is PMEVCNTR<i - 1>. */
	".globl	pmuscope__el0_cc_even\n\t"
	".hidden pmuscope__el0_cc_even\n"
"pmuscope__el0_cc_even:\n\t"
	PMUSCOPE_EL0_PAIRS_TO1(PMUSCOPE_EL0_PAIR, 1)
	".globl	pmuscope__el0_cc_even_last\n\t"
	".hidden pmuscope__el0_cc_even_last\n"
"pmuscope__el0_cc_even_last:\n\t"
	PMUSCOPE_EL0_PAIR_CC(PMUSCOPE_EL0_SUB32)
	PMUSCOPE_EL0_TO_DONE
	/* 64-bit event counters only, an even number: pairs (15, 14) .. (1, 0). */
	".p2align 3\n\t"
	".globl	pmuscope__el0_ev64_even\n\t"
	".hidden pmuscope__el0_ev64_even\n"
"pmuscope__el0_ev64_even:\n\t"
	PMUSCOPE_EL0_PAIR64(15, 14, 0) PMUSCOPE_EL0_PAIRS_TO0(PMUSCOPE_EL0_PAIR64, 0)
	PMUSCOPE_EL0_TO_DONE
	/* ... an odd number: pairs (14, 13) .. (2, 1), then 0. */
	".globl	pmuscope__el0_ev64_odd\n\t"
	".hidden pmuscope__el0_ev64_odd\n"
"pmuscope__el0_ev64_odd:\n\t"
	PMUSCOPE_EL0_PAIRS_TO1(PMUSCOPE_EL0_PAIR64, 0)
	".globl	pmuscope__el0_ev64_odd_last\n\t"
	".hidden pmuscope__el0_ev64_odd_last\n"
"pmuscope__el0_ev64_odd_last:\n\t"
	PMUSCOPE_EL0_ONE_EV0("")
	PMUSCOPE_EL0_TO_DONE
	/* PMCCNTR first, an even number: counter i is PMEVCNTR<i - 1>. */
	".globl	pmuscope__el0_cc64_even\n\t"
	".hidden pmuscope__el0_cc64_even\n"
"pmuscope__el0_cc64_even:\n\t"
	PMUSCOPE_EL0_PAIRS_TO1(PMUSCOPE_EL0_PAIR64, 1)
	".globl	pmuscope__el0_cc64_even_last\n\t"
	".hidden pmuscope__el0_cc64_even_last\n"
"pmuscope__el0_cc64_even_last:\n\t"
	PMUSCOPE_EL0_PAIR_CC("")
	PMUSCOPE_EL0_TO_DONE
	/* PMCCNTR first, an odd number, 64-bit event counters. */
	".globl	pmuscope__el0_cc64_odd\n\t"
	".hidden pmuscope__el0_cc64_odd\n"
"pmuscope__el0_cc64_odd:\n\t"
	PMUSCOPE_EL0_PAIRS_TO0(PMUSCOPE_EL0_PAIR64, 1)
	PMUSCOPE_EL0_ONE_CC
	PMUSCOPE_EL0_TO_DONE

	/* The table reader. */
	".p2align 3\n"
	".globl	pmuscope__el0_table\n\t"
	".hidden pmuscope__el0_table\n"
"pmuscope__el0_table:\n\t"
	PMUSCOPE_EL0_BTI_J
	"add	x14, x0, #" PMUSCOPE_EL0_OFF_SLOT "\n\t"
	"mov	x3, x1\n\t"
	"ldp	x15, x13, [x14], #32\n\t"
	"ldr	x12, [x14, #-16]\n\t"
	"br	x15\n\t"
	".p2align 5\n\t"
	".globl	pmuscope__el0_tab\n\t"
	".hidden pmuscope__el0_tab\n"
"pmuscope__el0_tab:\n\t"
	PMUSCOPE_EL0_EVENT_ENTRIES(PMUSCOPE_EL0_FOLD32)
	PMUSCOPE_EL0_EVENT_ENTRIES(PMUSCOPE_EL0_FOLD64)
	/*
	 * Last, PMCCNTR first and an odd number, which falls through to
	 * post_commit: the whole PMU of a Cortex-A53 (the AM62L's), the
	 * cycle counter and 6 event counters, is one of these.
	 */
	".p2align 3\n"
	/* PMCCNTR first, an odd number: pairs (14, 13) .. (2, 1), then PMCCNTR. */
	".globl	pmuscope__el0_cc_odd\n\t"
	".hidden pmuscope__el0_cc_odd\n"
"pmuscope__el0_cc_odd:\n\t"
	PMUSCOPE_EL0_PAIRS_TO0(PMUSCOPE_EL0_PAIR, 1)
	".globl	pmuscope__el0_cc_odd_last\n\t"
	".hidden pmuscope__el0_cc_odd_last\n"
"pmuscope__el0_cc_odd_last:\n\t"
	PMUSCOPE_EL0_ONE_CC
	".globl	pmuscope__el0_done\n\t"
	".hidden pmuscope__el0_done\n"
"pmuscope__el0_done:\n\t"			/* post_commit */
	PMUSCOPE_EL0_BTI_J
	"add	x4, x4, #1\n\t"
	"str	x4, [x0, #" PMUSCOPE_EL0_OFF_FAST "]\n\t"
	"mov	w0, #0\n\t"
	"ret\n\t"
	".inst	0xd428bc00\n"			/* RSEQ_SIG */
".Lpmuscope_rd_abort:\n\t"
	"mov	w3, #2\n\t"
	"b	pmuscope__el0_read_slow\n"
".Lpmuscope_rd_stale:\n\t"
	"mov	w3, #1\n\t"
	"b	pmuscope__el0_read_slow\n"
".Lpmuscope_rd_unplanned:\n\t"
	"mov	w3, #4\n\t"
	"b	pmuscope__el0_read_slow\n"
".Lpmuscope_rd_einval:\n\t"
	"mov	w0, #-22\n\t"			/* -EINVAL */
	"ret\n\t"
	".cfi_endproc\n\t"
	".size	pmuscope_read_self, . - pmuscope_read_self\n\t"
	".size	pmuscope__el0_read, . - pmuscope__el0_read\n\t"

	".p2align 4\n\t"
	".globl	pmuscope__el0_swinc\n\t"
	".hidden pmuscope__el0_swinc\n\t"
	".type	pmuscope__el0_swinc, %function\n"
"pmuscope__el0_swinc:\n\t"
	".cfi_startproc\n\t"
	PMUSCOPE_EL0_BTI_C
	"adrp	x9, pmuscope__el0_swinc_cs_desc\n\t"
	"add	x9, x9, :lo12:pmuscope__el0_swinc_cs_desc\n\t"
	"ldr	w6, [x3]\n\t"
	"cbz	w6, .Lpmuscope_sw_out\n"
".Lpmuscope_sw_loop:\n\t"
	"str	x9, [x0, #8]\n"			/* rseq->rseq_cs */
".Lpmuscope_sw_start:\n\t"
	"ldr	w10, [x0, #4]\n\t"
	"cmp	w10, w4\n\t"
	"b.ne	.Lpmuscope_sw_stale\n\t"
	"ldr	w10, [x1, #8]\n\t"
	"cmp	w10, w5\n\t"
	"b.ne	.Lpmuscope_sw_stale\n\t"
	"msr	pmswinc_el0, x2\n"		/* the commit */
".Lpmuscope_sw_commit:\n\t"
	"subs	w6, w6, #1\n\t"
	"b.ne	.Lpmuscope_sw_loop\n"
".Lpmuscope_sw_out:\n\t"
	"str	w6, [x3]\n\t"
	"mov	w0, #0\n\t"
	"ret\n\t"
	".inst	0xd428bc00\n"			/* RSEQ_SIG */
".Lpmuscope_sw_abort:\n\t"
	"str	w6, [x3]\n\t"
	"mov	w0, #2\n\t"
	"ret\n"
".Lpmuscope_sw_stale:\n\t"
	"str	w6, [x3]\n\t"
	"mov	w0, #1\n\t"
	"ret\n\t"
	".cfi_endproc\n\t"
	".size	pmuscope__el0_swinc, . - pmuscope__el0_swinc\n\t"

	/* struct rseq_cs: version, flags, start_ip, post_commit_offset, abort_ip */
	".pushsection __rseq_cs, \"aw\"\n\t"
	".balign 32\n\t"
	".globl	pmuscope__el0_read_cs_desc\n\t"
	".hidden pmuscope__el0_read_cs_desc\n"
"pmuscope__el0_read_cs_desc:\n\t"
	".long	0, 0\n\t"
	".quad	.Lpmuscope_rd_start, pmuscope__el0_done - .Lpmuscope_rd_start, .Lpmuscope_rd_abort\n\t"
	".balign 32\n"
"pmuscope__el0_swinc_cs_desc:\n\t"
	".long	0, 0\n\t"
	".quad	.Lpmuscope_sw_start, .Lpmuscope_sw_commit - .Lpmuscope_sw_start, .Lpmuscope_sw_abort\n\t"
	".popsection\n\t"
	".text\n");

#define PMUSCOPE_EL0_HIDDEN	__attribute__((visibility("hidden")))
PMUSCOPE_EL0_HIDDEN int pmuscope__el0_read(struct pmuscope *h, uint64_t *counts, unsigned int nr);
PMUSCOPE_EL0_HIDDEN int pmuscope__el0_read_slow(struct pmuscope *h, uint64_t *counts,
						unsigned int nr, int why);
PMUSCOPE_EL0_HIDDEN int pmuscope__el0_swinc(void *rseq, const struct pmuscope_user_page *pg,
					    uint64_t hwmask, unsigned int *count,
					    uint32_t cpu, uint32_t seq);
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_tab[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_done[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_table[], pmuscope__el0_noplan[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_ev_even[], pmuscope__el0_ev_odd[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_ev_odd_last[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_cc_even[], pmuscope__el0_cc_odd[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_ev64_even[], pmuscope__el0_ev64_odd[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_ev64_odd_last[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_cc64_even[], pmuscope__el0_cc64_odd[];
PMUSCOPE_EL0_HIDDEN extern const char pmuscope__el0_read_cs_desc[];

/* The offsets the assembly uses. */
_Static_assert(offsetof(struct rseq, cpu_id) == 4, "rseq cpu_id");
_Static_assert(offsetof(struct rseq, rseq_cs) == 8, "rseq rseq_cs");
_Static_assert(offsetof(struct pmuscope_user_page, seq) == 8, "page seq");
_Static_assert(offsetof(struct pmuscope_user_page, gen) == 40, "page gen");
_Static_assert(offsetof(struct pmuscope, el0) == 0, "el0 first");
_Static_assert(offsetof(struct pmuscope_el0, tp) == 0, "el0 tp");
_Static_assert(offsetof(struct pmuscope_el0, rseq) == 8, "el0 rseq");
_Static_assert(offsetof(struct pmuscope_el0, page) == 16, "el0 page");
_Static_assert(offsetof(struct pmuscope_el0, cs) == 24, "el0 cs");
_Static_assert(offsetof(struct pmuscope_el0, plan_gen) == 32, "el0 plan_gen");
_Static_assert(offsetof(struct pmuscope_el0, entry) == 40, "el0 entry");
_Static_assert(offsetof(struct pmuscope_el0, plan_nr) == 48, "el0 plan_nr");
_Static_assert(offsetof(struct pmuscope_el0, plan_want) == 52, "el0 plan_want");
_Static_assert(offsetof(struct pmuscope_el0, fast) == 56, "el0 fast");
_Static_assert(offsetof(struct pmuscope_el0, fold) == 64, "el0 fold");
_Static_assert(offsetof(struct pmuscope_el0, slot) == 320, "el0 slot");
_Static_assert(sizeof(struct pmuscope_el0_slot) == 32, "el0 slot size");
_Static_assert(PMUSCOPE_EL0_STRAIGHT == 16, "the straight-line readers read 16");
#endif /* PMUSCOPE_EL0_FAST */

/* No plan: the reader goes to the slow path whatever it is asked. */
static void pmuscope_el0_unplan(struct pmuscope_el0 *e)
{
	e->plan_nr = PMUSCOPE_EL0_NO_PLAN;
#ifdef PMUSCOPE_EL0_FAST
	e->entry = (uintptr_t)pmuscope__el0_noplan;
#endif
	e->layout = PMUSCOPE_SELF_IOCTL;
}

/* The EL0 sessions of this process, whose pages a fork() child lacks. */
static pthread_mutex_t pmuscope_self_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t pmuscope_self_once = PTHREAD_ONCE_INIT;
static struct pmuscope *pmuscope_self_list;

static void pmuscope_self_prepare(void)
{
	pthread_mutex_lock(&pmuscope_self_lock);
}

static void pmuscope_self_parent(void)
{
	pthread_mutex_unlock(&pmuscope_self_lock);
}

/* No fast path and no page from here on. */
static void pmuscope_self_forget(struct pmuscope *h)
{
	pmuscope_el0_unplan(&h->el0);
	h->el0.tp = NULL;
	h->el0.rseq = NULL;
	h->el0.page = NULL;
	h->st.capable = 0;
}

/* The child has none of the pages (not copied on fork), and is another thread. */
static void pmuscope_self_child(void)
{
	for (struct pmuscope *h = pmuscope_self_list; h; h = h->self_next)
		pmuscope_self_forget(h);
	pmuscope_self_list = NULL;
	pthread_mutex_unlock(&pmuscope_self_lock);
}

static void pmuscope_self_atfork(void)
{
	pthread_atfork(pmuscope_self_prepare, pmuscope_self_parent, pmuscope_self_child);
}

static void pmuscope_self_unmap(struct pmuscope *h)
{
	const struct pmuscope_user_page *pg = h->el0.page;

	if (!pg)
		return;
	pthread_mutex_lock(&pmuscope_self_lock);
	for (struct pmuscope **p = &pmuscope_self_list; *p; p = &(*p)->self_next)
		if (*p == h) {
			*p = h->self_next;
			break;
		}
	pthread_mutex_unlock(&pmuscope_self_lock);
	pmuscope_self_forget(h);
	munmap((void *)pg, 4096);
}

int pmuscope_configure_self(struct pmuscope *h, const struct pmuscope_event_spec *evs,
			    unsigned int nr, uint32_t flags)
{
	struct pmuscope_event kev[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .target = PMUSCOPE_TARGET_TASK,
		.pid = (int)syscall(SYS_gettid),
		.flags = PMUSCOPE_CFG_USER_READ | (flags & PMUSCOPE_CFG_USER_SWINC),
	};
	const struct pmuscope_user_page *pg;
	void *map;
	int ret;

	if (!h)
		return -EINVAL;
	if (!nr || nr > PMUSCOPE_MAX_EVENTS) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "%u events: a session counts 1 to %u events", nr,
			     PMUSCOPE_MAX_EVENTS);
		return -EINVAL;
	}
	pmuscope_self_unmap(h);
	if (!(h->features & PMUSCOPE_FEAT_USER_READ)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "EL0 reads need pmuscope's direct backend (PMUSCOPE_FEAT_USER_READ), and this driver counts through perf (%s/backend): boot with initcall_blacklist=armv8_pmu_driver_init, or count with pmuscope_configure_task()",
			     pmuscope_sysfs_root());
		return -EOPNOTSUPP;
	}
	pmuscope_kernel_events(evs, nr, kev);
	cfg.nr_events = nr;
	cfg.events = (uintptr_t)kev;
	if (ioctl(h->fd, PMUSCOPE_IOC_CONFIG, &cfg)) {
		ret = -errno;
		switch (ret) {
		case -EACCES:
		case -EPERM:
			pmuscope_policy_msg(h->msg, sizeof(h->msg), "permission denied", ret,
					    PMUSCOPE_POLICY_TASK | PMUSCOPE_POLICY_EL0 |
					    pmuscope_policy_events(evs, nr));
			break;
		case -EINVAL:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "EL0 read session refused (%s): it counts the calling thread, without inherit or enable-on-exec",
				     strerror(-ret));
			break;
		case -EBUSY:
			if (h->nr_events) {
				pmuscope_fmt(h->msg, sizeof(h->msg),
					     "this session is configured already (%s): an EL0 read session keeps its configuration, and an enabled one must be disabled first; open another session",
					     strerror(-ret));
				break;
			}
			__attribute__((fallthrough));
		default:
			/* Which event, which CPU's counters (-ENOSPC, -EOPNOTSUPP, -EBUSY). */
			pmuscope_explain_online(h, ret, evs, nr);
		}
		return ret;
	}
	pmuscope_task_configured(h, evs, nr);
	memset(&h->st, 0, sizeof(h->st));
	h->el0.fast = 0;
	pmuscope_el0_unplan(&h->el0);
	h->self_flags = cfg.flags;

	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, h->fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "configured, but the EL0 page cannot be mapped: %s", strerror(-ret));
		return ret;
	}
	pg = map;
	if (pg->version < PMUSCOPE_USER_PAGE_VERSION || pg->nr != nr ||
	    pg->size < offsetof(struct pmuscope_user_page, ctr) +
		       nr * sizeof(struct pmuscope_user_counter)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "the EL0 page is version %u, %u bytes, %u counters: libpmuscope %s reads version %u, here of %u counters",
			     pg->version, pg->size, pg->nr, PMUSCOPE_LIB_VERSION,
			     PMUSCOPE_USER_PAGE_VERSION, nr);
		munmap(map, 4096);
		return -EPROTO;
	}
	pthread_once(&pmuscope_self_once, pmuscope_self_atfork);
	pthread_mutex_lock(&pmuscope_self_lock);
	h->el0.page = pg;
	h->self_next = pmuscope_self_list;
	pmuscope_self_list = h;
	pthread_mutex_unlock(&pmuscope_self_lock);
#ifdef PMUSCOPE_EL0_FAST
	/* glibc registered rseq for this thread (0: it could not). */
	if (__rseq_size >= 16) {
		h->el0.tp = __builtin_thread_pointer();
		h->el0.rseq = (char *)h->el0.tp + __rseq_offset;
		h->el0.cs = pmuscope__el0_read_cs_desc;
		h->st.capable = 1;
	}
#endif
	return 0;
}

const struct pmuscope_user_page *pmuscope_user_page(const struct pmuscope *h)
{
	return h ? h->el0.page : NULL;
}

int pmuscope_self_stats(const struct pmuscope *h, struct pmuscope_self_stats *st)
{
	if (!h || !st)
		return -EINVAL;
	*st = h->st;
	st->fast = h->el0.fast;
	st->layout = h->el0.layout;
	return 0;
}

/* The ioctl's answer for pmuscope_read_self(). */
static int pmuscope_read_self_ioctl(struct pmuscope *h, uint64_t *counts, unsigned int nr)
{
	struct pmuscope_count v[PMUSCOPE_MAX_EVENTS];
	uint64_t have = 0;
	unsigned int n;
	int ret;

	if (!nr || nr > h->nr_events) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "read of %u counts: the session counts %u events", nr, h->nr_events);
		return -EINVAL;
	}
	ret = pmuscope_read(h, v, PMUSCOPE_MAX_EVENTS, &n);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < n; i++)
		if (v[i].index < nr) {
			counts[v[i].index] = v[i].count;
			have |= 1ULL << v[i].index;
		}
	if (have != (1ULL << nr) - 1) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "read: the driver returned %u values, not one for each of %u events",
			     n, nr);
		return -EPROTO;
	}
	h->st.fallback++;
	return 1;
}

#ifdef PMUSCOPE_EL0_FAST
/*
 * The straight-line reader of @nr counters of layout @cc (PMCCNTR_EL0
 * first) or not, with event counters of 64 bits (@wide) or 32: its
 * sequence, entered at the pair of the last counter.
 */
static uint64_t pmuscope_el0_straight(unsigned int nr, int cc, int wide)
{
	/*
	 * [wide][cc][nr odd]. Each holds 7 pairs (8 for event counters
	 * only, an even number), then its last entry: counter 0 alone or
	 * with PMEVCNTR0 (PMCCNTR first), which the pair arithmetic reaches.
	 */
	static const char *const seqs[2][2][2] = {
		{ { pmuscope__el0_ev_even, pmuscope__el0_ev_odd },
		  { pmuscope__el0_cc_even, pmuscope__el0_cc_odd } },
		{ { pmuscope__el0_ev64_even, pmuscope__el0_ev64_odd },
		  { pmuscope__el0_cc64_even, pmuscope__el0_cc64_odd } },
	};
	const char *seq = seqs[!!wide][!!cc][nr % 2];
	/* Bytes of a pair: the odd-count sequences hold 7 before their last. */
	uintptr_t pair = wide ?
		((uintptr_t)pmuscope__el0_ev64_odd_last - (uintptr_t)pmuscope__el0_ev64_odd) / 7 :
		((uintptr_t)pmuscope__el0_ev_odd_last - (uintptr_t)pmuscope__el0_ev_odd) / 7;
	unsigned int top = nr % 2 ? 14 : 15;

	return (uintptr_t)seq + (top - (nr - 1)) / 2 * pair;
}

/*
 * Read the page into the plan of @nr counters, under its seq: with gen,
 * and while a CPU grants, each counter's fold and the reader for their
 * layout. Returns whether the plan reads at EL0: not when no CPU grants,
 * a counter is not readable, or the page would not hold still.
 */
static int pmuscope_el0_plan(struct pmuscope *h, unsigned int nr)
{
	struct pmuscope_el0 *e = &h->el0;
	const volatile struct pmuscope_user_page *pg = e->page;
	uint64_t gen = 0;
	int ok = 0, ev = 0, cc = 0, all32 = 1, all64 = 1;

	h->st.replans++;
	pmuscope_el0_unplan(e);
	e->plan_want = nr;
	for (int tries = 0; tries < 16 && !ok; tries++) {
		uint32_t s = __atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE);

		if (s & 1)
			continue;
		gen = pg->gen;
		/*
		 * A CPU grants, and it is the one this thread's rseq says it
		 * runs on (not -1 or -2: rseq not registered for this thread,
		 * whose sections the kernel would not abort).
		 */
		ok = pg->nr >= nr && pg->cpu != PMUSCOPE_CPU_ANY &&
		     pg->cpu == __atomic_load_n(&((struct rseq *)e->rseq)->cpu_id, __ATOMIC_RELAXED);
		/* The layouts of a straight-line reader, until a counter is not in them. */
		ev = cc = nr <= PMUSCOPE_EL0_STRAIGHT;
		all32 = all64 = 1;
		for (unsigned int i = 0; i < nr && ok; i++) {
			uint32_t idx = pg->ctr[i].index, width = pg->ctr[i].width;
			uint64_t off = pg->ctr[i].offset, last = pg->ctr[i].last_raw;
			struct pmuscope_el0_slot *sl = &e->slot[i];

			if (!idx || idx > PMUSCOPE_USER_CYCLE_INDEX || (width != 32 && width != 64)) {
				ok = 0;
				break;
			}
			ev &= idx == i + 1;
			cc &= i ? idx == i : idx == PMUSCOPE_USER_CYCLE_INDEX;
			/* The event counters' widths (PMCCNTR_EL0 is 64-bit). */
			if (idx != PMUSCOPE_USER_CYCLE_INDEX) {
				all32 &= width == 32;
				all64 &= width == 64;
			}
			sl->target = (uintptr_t)pmuscope__el0_tab + (idx - 1) * PMUSCOPE_EL0_STRIDE;
			if (width == 64) {
				sl->target += PMUSCOPE_EL0_TAB64;
				sl->a = off - last;
				sl->b = 0;
			} else {
				sl->a = off;
				sl->b = last;
			}
			if (i < PMUSCOPE_EL0_STRAIGHT)
				e->fold[i] = (struct pmuscope_el0_fold){ .a = sl->a, .b = sl->b };
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);	/* dmb ishld */
		if (__atomic_load_n(&pg->seq, __ATOMIC_RELAXED) != s)
			ok = 0;
		else if (!ok)
			break;				/* not granted, as of @gen */
	}
	e->plan_gen = gen;
	if (!ok)
		return 0;
	e->slot[nr] = (struct pmuscope_el0_slot){ .target = (uintptr_t)pmuscope__el0_done };
	if ((ev || cc) && (all32 || all64)) {
		e->entry = pmuscope_el0_straight(nr, cc, !all32);
		e->layout = PMUSCOPE_SELF_STRAIGHT;
	} else {
		e->entry = (uintptr_t)pmuscope__el0_table;
		e->layout = PMUSCOPE_SELF_TABLE;
	}
	e->plan_nr = nr;
	return 1;
}

/*
 * What pmuscope_read_self() could not do at once (@why, see above): plan
 * again and read again, a bounded number of times (@depth counts the
 * retries under way); the ioctl when the page says no CPU grants.
 */
int pmuscope__el0_read_slow(struct pmuscope *h, uint64_t *counts, unsigned int nr, int why)
{
	struct pmuscope_el0 *e = &h->el0;
	int ret;

	if (!e->rseq || __builtin_thread_pointer() != e->tp || !nr || nr > h->nr_events ||
	    e->depth >= PMUSCOPE_EL0_TRIES)
		return pmuscope_read_self_ioctl(h, counts, nr);
	if (why == 2) {
		h->st.aborts++;		/* the plan may hold: again */
	} else if (nr == e->plan_want && e->plan_nr == PMUSCOPE_EL0_NO_PLAN &&
		   __atomic_load_n(&e->page->gen, __ATOMIC_ACQUIRE) == e->plan_gen) {
		/* Not granted, and nothing has changed since. */
		return pmuscope_read_self_ioctl(h, counts, nr);
	} else if (!pmuscope_el0_plan(h, nr)) {
		return pmuscope_read_self_ioctl(h, counts, nr);
	}
	e->depth++;
	ret = pmuscope__el0_read(h, counts, nr);
	e->depth--;
	return ret;
}
#else
int pmuscope_read_self(struct pmuscope *h, uint64_t *counts, unsigned int nr)
{
	if (!h || !counts)
		return -EINVAL;
	return pmuscope_read_self_ioctl(h, counts, nr);
}
#endif

int pmuscope_swinc_self(struct pmuscope *h, uint64_t event_mask, unsigned int count)
{
	unsigned int left = count;
	int ret;

	if (!h)
		return -EINVAL;
	if (!count || count > 4096 || !event_mask || (event_mask >> h->nr_events)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "software increment refused: 1 to 4096 increments (not %u) of events of the configuration (mask 0x%llx, %u events)",
			     count, (unsigned long long)event_mask, h->nr_events);
		return -EINVAL;
	}
#ifdef PMUSCOPE_EL0_FAST
	if (h->el0.rseq && (h->self_flags & PMUSCOPE_CFG_USER_SWINC) &&
	    __builtin_thread_pointer() == h->el0.tp) {
		const volatile struct pmuscope_user_page *pg = h->el0.page;

		for (int tries = 0; tries < PMUSCOPE_EL0_TRIES; tries++) {
			uint32_t s = __atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE), cpu = pg->cpu;
			uint64_t hw = 0;
			int r;

			if (s & 1)
				continue;
			for (unsigned int i = 0; i < h->nr_events && cpu != PMUSCOPE_CPU_ANY; i++) {
				uint32_t idx = pg->ctr[i].index;

				if (!(event_mask & (1ULL << i)))
					continue;
				/* SW_INCR counting at EL0, on an event counter readable here. */
				if (h->evs[i].number != 0 || (h->evs[i].flags & PMUSCOPE_EV_RAW) ||
				    !(h->evs[i].flags & PMUSCOPE_EV_EL0) || !idx ||
				    idx >= PMUSCOPE_USER_CYCLE_INDEX)
					cpu = PMUSCOPE_CPU_ANY;
				else
					hw |= 1ULL << (idx - 1);
			}
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&pg->seq, __ATOMIC_RELAXED) != s)
				continue;
			if (cpu == PMUSCOPE_CPU_ANY)
				break;
			r = pmuscope__el0_swinc(h->el0.rseq, (const struct pmuscope_user_page *)pg,
						hw, &left, cpu, s);
			if (r == 0) {
				h->st.swinc_fast++;
				return 0;
			}
			if (r == 2)
				h->st.aborts++;
			else if (__atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE) == s)
				break;	/* another CPU than the granting one */
		}
	}
#endif
	ret = pmuscope_swinc(h, event_mask, (unsigned int)sched_getcpu(), left);
	if (ret)
		return ret;
	h->st.swinc_fallback++;
	return 1;
}

/* ------------------------------------------------------------- snapshots */
const char *pmuscope_snap_method_name(uint32_t method)
{
	switch (method) {
	case PMUSCOPE_SNAP_HARDWARE:
		return "hardware";
	case PMUSCOPE_SNAP_SOFTWARE:
		return "software";
	case PMUSCOPE_SNAP_PERF:
		return "perf";
	case PMUSCOPE_SNAP_IDLE:
		return "idle";
	default:
		return "unknown";
	}
}

/* A flag word's names, comma-separated, from the table @names[@n]. */
struct flag_name {
	uint32_t flag;
	const char *name;
};

static void flags_str(uint32_t flags, const struct flag_name *names, size_t n,
		      char *buf, size_t len)
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

void pmuscope_snap_flags_str(uint32_t flags, char *buf, size_t len)
{
	static const struct flag_name names[] = {
		{ PMUSCOPE_SNAPCPU_LATE, "late" },
		{ PMUSCOPE_SNAPCPU_FALLBACK, "fallback" },
		{ PMUSCOPE_SNAPCPU_OFFLINE, "offline" },
		{ PMUSCOPE_SNAPCPU_UNSYNCED, "unsynced" },
	};

	flags_str(flags, names, sizeof(names) / sizeof(names[0]), buf, len);
}

int pmuscope_snap_hw_state(int cpu, char *buf, size_t len)
{
	if (!len)
		return -EINVAL;
	if (pmuscope_read_str(cpu, "snapshot_hw", buf, len)) {
		buf[0] = '\0';
		return -ENOENT;
	}
	return 0;
}

int pmuscope_snap_hw_usable(const char *state)
{
	/* kvm-vcpu: the last request found a vCPU loaded; the next tries. */
	return !strcmp(state, "untried") || !strcmp(state, "ready") ||
	       !strcmp(state, "kvm-vcpu");
}

uint64_t pmuscope_ticks_ns(uint64_t ticks, uint64_t freq)
{
	if (!freq)
		return 0;
	return (uint64_t)(((unsigned __int128)ticks * 1000000000U + freq / 2) / freq);
}

/* Append to @buf at *@off; ", ..." instead once it is full. 0: full. */
__attribute__((format(printf, 4, 5)))
static int pmuscope_buf_add(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	static const char more[] = ", ...";
	char part[128];
	size_t n, room = len - *off;
	va_list ap;

	va_start(ap, fmt);
	n = vsnprintf(part, sizeof(part), fmt, ap);
	va_end(ap);
	if (n >= sizeof(part) || n + sizeof(more) > room) {
		if (room >= sizeof(more)) {
			memcpy(buf + *off, more, sizeof(more));
			*off += sizeof(more) - 1;
		}
		return 0;
	}
	memcpy(buf + *off, part, n + 1);
	*off += n;
	return 1;
}

int pmuscope_snap_hw_explain(const uint64_t *cpus, size_t words, char *buf, size_t len)
{
	char state[32];
	size_t off = 0;
	int n = 0, full = 0;

	if (!len)
		return 0;
	buf[0] = '\0';
	for (size_t cpu = 0; cpu < words * 64; cpu++) {
		if (!pmuscope_cpu_set(cpus, words, cpu) ||
		    pmuscope_snap_hw_state(cpu, state, sizeof(state)) ||
		    pmuscope_snap_hw_usable(state))
			continue;
		/* Full: counted, no longer named. */
		if (!full && !pmuscope_buf_add(buf, len, &off, "%scpu%zu: hardware snapshot %s",
					       n ? ", " : "", cpu, state))
			full = 1;
		n++;
	}
	return n;
}

/*
 * After EOPNOTSUPP to PMUSCOPE_SNAP_F_HARDWARE: each CPU of the session
 * without a usable hardware capture, with its sysfs snapshot_hw state.
 */
static void pmuscope_snap_explain_hw(struct pmuscope *h)
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

int pmuscope_snapshot(struct pmuscope *h, uint32_t flags, unsigned int lead_us,
		      struct pmuscope_count *out, unsigned int room,
		      struct pmuscope_snap_info *cpus, unsigned int cpu_room,
		      struct pmuscope_snap *res)
{
	struct pmuscope_snapshot sn = {
		.size = sizeof(sn), .flags = flags, .lead_us = lead_us,
		.nr_values = room, .nr_cpus = cpu_room,
		.value_size = sizeof(struct pmuscope_value),
		.cpu_size = sizeof(struct pmuscope_snap_cpu),
	};
	struct pmuscope_value vals[64], *v = vals;
	struct pmuscope_snap_cpu scs[16], *sc = scs;
	int ret = 0;

	if (!h || !res || (room && !out) || (cpu_room && !cpus))
		return -EINVAL;
	memset(res, 0, sizeof(*res));
	if ((flags & PMUSCOPE_SNAP_F_SOFTWARE) && (flags & PMUSCOPE_SNAP_F_HARDWARE)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "snapshot: software and hardware capture exclude each other");
		return -EINVAL;
	}
	if (lead_us > PMUSCOPE_SNAP_LEAD_US_MAX) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "snapshot: a lead of %u us is above the most, %u us", lead_us,
			     PMUSCOPE_SNAP_LEAD_US_MAX);
		return -EINVAL;
	}
	if (room > sizeof(vals) / sizeof(vals[0]))
		v = calloc(room, sizeof(*v));
	if (cpu_room > sizeof(scs) / sizeof(scs[0]))
		sc = calloc(cpu_room, sizeof(*sc));
	if (!v || !sc) {
		ret = -ENOMEM;
		pmuscope_fmt(h->msg, sizeof(h->msg), "snapshot: %s", strerror(-ret));
		goto out;
	}
	sn.values = (uintptr_t)v;
	sn.cpus = (uintptr_t)sc;
	if (ioctl(h->fd, PMUSCOPE_IOC_SNAPSHOT, &sn)) {
		ret = -errno;
		switch (ret) {
		case -ENOSPC:
			res->nr_values = sn.nr_values;
			res->nr_cpus = sn.nr_cpus;
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "snapshot: not enough room (%u values and %u CPUs needed, room for %u and %u)",
				     sn.nr_values, sn.nr_cpus, room, cpu_room);
			break;
		case -EOPNOTSUPP:
			if (h->task)
				pmuscope_fmt(h->msg, sizeof(h->msg),
					     "snapshot refused: a task's counters move with it and have no common instant: count CPUs");
			else if (flags & PMUSCOPE_SNAP_F_HARDWARE)
				pmuscope_snap_explain_hw(h);
			else
				pmuscope_fmt(h->msg, sizeof(h->msg), "snapshot refused: %s",
					     strerror(-ret));
			break;
		case -EINVAL:
			pmuscope_fmt(h->msg, sizeof(h->msg), "snapshot refused: %s",
				     h->nr_events ? "invalid argument (flags, lead or sizes)" :
				     "no events configured");
			break;
		case -EPERM:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "snapshot refused: a lead of %u us needs CAP_PERFMON (or CAP_SYS_ADMIN): at most %u us without it",
				     lead_us, PMUSCOPE_SNAP_LEAD_US_UNPRIV);
			break;
		case -ENOTTY:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "snapshot: the driver does not know PMUSCOPE_IOC_SNAPSHOT (before API version 3)");
			break;
		default:
			pmuscope_fmt(h->msg, sizeof(h->msg), "snapshot failed: %s", strerror(-ret));
		}
		goto out;
	}
	if (sn.nr_values > room || sn.nr_cpus > cpu_room) {
		ret = -EPROTO;
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "snapshot: the driver returned %u values and %u CPUs for %u and %u places",
			     sn.nr_values, sn.nr_cpus, room, cpu_room);
		goto out;
	}
	for (unsigned int i = 0; i < sn.nr_values; i++) {
		out[i].cpu = v[i].cpu;
		out[i].index = v[i].index;
		out[i].flags = v[i].flags;
		out[i].counter = v[i].counter;
		out[i].count = v[i].count;
		out[i].time_enabled = v[i].time_enabled;
		out[i].time_running = v[i].time_running;
		out[i].scaled = pmuscope_scale(v[i].count, v[i].time_enabled,
					       v[i].time_running);
	}
	for (unsigned int i = 0; i < sn.nr_cpus; i++)
		cpus[i] = (struct pmuscope_snap_info){
			.cpu = sc[i].cpu, .method = sc[i].method, .flags = sc[i].flags,
			.time = sc[i].time, .skew = sc[i].skew, .frozen = sc[i].frozen,
			.spread = sc[i].spread,
		};
	res->freq = sn.freq;
	res->skew = sn.skew;
	res->nr_values = sn.nr_values;
	res->nr_cpus = sn.nr_cpus;
out:
	if (v != vals)
		free(v);
	if (sc != scs)
		free(sc);
	return ret;
}

/* ------------------------------------------------------ Activity Monitors */
_Static_assert(sizeof(struct pmuscope_amu_cpu) == 360, "struct pmuscope_amu_cpu is 360 bytes");

#define PMUSCOPE_AMU_CPUS_MAX	4096	/* bytes of the bitmap, at most */

int pmuscope_amu_read(struct pmuscope *h, const uint64_t *cpus, size_t words,
		      struct pmuscope_amu_cpu *recs, size_t room, uint64_t *freq)
{
	struct pmuscope_amu_read rd = {
		.size = sizeof(rd), .record_size = sizeof(struct pmuscope_amu_cpu),
	};
	size_t used = words, ncpus = 0;

	if (!h || (words && !cpus) || (room && !recs))
		return -EINVAL;
	while (used && !cpus[used - 1])
		used--;
	if (!used) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "AMU read: no CPU chosen");
		return -EINVAL;
	}
	for (size_t cpu = 0; cpu < used * 64; cpu++) {
		if (!pmuscope_cpu_set(cpus, used, cpu))
			continue;
		if (h->nr_cpu_ids && cpu >= h->nr_cpu_ids) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "AMU read: cpu%zu does not exist (the kernel's CPUs are below %u)",
				     cpu, h->nr_cpu_ids);
			return -EINVAL;
		}
		ncpus++;
	}
	if (used * sizeof(uint64_t) > PMUSCOPE_AMU_CPUS_MAX) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "AMU read: a CPU bitmap of %zu bytes is above the most, %d",
			     used * sizeof(uint64_t), PMUSCOPE_AMU_CPUS_MAX);
		return -EINVAL;
	}
	if (room > UINT32_MAX)
		room = UINT32_MAX;
	rd.cpus = (uintptr_t)cpus;
	rd.cpus_size = used * sizeof(uint64_t);
	rd.records = (uintptr_t)recs;
	rd.nr_records = room;
	if (ioctl(h->fd, PMUSCOPE_IOC_AMU_READ, &rd)) {
		int ret = -errno;

		switch (ret) {
		case -EPERM:
		case -EACCES:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "AMU read refused: the Activity Monitors need root (CAP_PERFMON or CAP_SYS_ADMIN): their counts can reveal other security states' activity");
			break;
		case -ENOTTY:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "AMU read: the driver does not know PMUSCOPE_IOC_AMU_READ (before API version 4)");
			break;
		case -ENOSPC:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "AMU read: not enough room (%u records needed, room for %zu)",
				     rd.nr_records, room);
			break;
		case -EINVAL:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "AMU read refused: invalid argument (the CPUs of %zu, or the sizes)",
				     ncpus);
			break;
		default:
			pmuscope_fmt(h->msg, sizeof(h->msg), "AMU read failed: %s",
				     strerror(-ret));
		}
		return ret;
	}
	if (rd.nr_records > room) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "AMU read: the driver returned %u records for %zu places",
			     rd.nr_records, room);
		return -EPROTO;
	}
	if (freq)
		*freq = rd.freq;
	return rd.nr_records;
}

/* Counter @n of group 0 counts in @r: implemented and enabled. */
static int pmuscope_amu_has0(const struct pmuscope_amu_cpu *r, unsigned int n)
{
	return n < r->nr_group0 && n < PMUSCOPE_AMU_GROUP_MAX && ((r->enabled0 >> n) & 1);
}

/*
 * @num x @mul / @den: the exact 128-bit quotient, plus the remainder over
 * @den as a double. @den is not 0.
 */
static double pmuscope_amu_ratio(uint64_t num, uint64_t mul, uint64_t den)
{
	unsigned __int128 p = (unsigned __int128)num * mul;
	unsigned __int128 q = p / den;
	uint64_t r = (uint64_t)(p % den);

	return (double)q + (double)r / (double)den;
}

int pmuscope_amu_metrics(const struct pmuscope_amu_cpu *a, const struct pmuscope_amu_cpu *b,
			 uint64_t freq, struct pmuscope_amu_metrics *m)
{
	/* Numerator and denominator of each metric: group-0 indexes. */
	static const struct {
		int num, den;	/* -1: the time */
		int needs_const;
	} def[PMUSCOPE_AMU_NR_METRICS] = {
		[PMUSCOPE_AMU_M_FREQ] = { PMUSCOPE_AMU_CORE_CYCLES, PMUSCOPE_AMU_CONST_CYCLES, 1 },
		[PMUSCOPE_AMU_M_BUSY] = { PMUSCOPE_AMU_CONST_CYCLES, -1, 1 },
		[PMUSCOPE_AMU_M_IPC] = { PMUSCOPE_AMU_INST_RETIRED, PMUSCOPE_AMU_CORE_CYCLES, 0 },
		[PMUSCOPE_AMU_M_MEM_STALL] = { PMUSCOPE_AMU_MEM_STALL, PMUSCOPE_AMU_CORE_CYCLES, 0 },
	};
	int read_ok, lost, back0 = 0;
	uint32_t both_flags;

	if (!a || !b || !m || a->cpu != b->cpu)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->cpu = b->cpu;
	read_ok = a->state == PMUSCOPE_AMU_READ_OK && b->state == PMUSCOPE_AMU_READ_OK;
	lost = !!(b->flags & PMUSCOPE_AMU_F_LOST);
	both_flags = a->flags | b->flags;
	if (read_ok && b->time >= a->time)
		m->ticks = b->time - a->time;

	for (unsigned int n = 0; n < PMUSCOPE_AMU_GROUP_MAX; n++) {
		if (!read_ok || lost || !pmuscope_amu_has0(a, n) || !pmuscope_amu_has0(b, n))
			continue;
		if (b->group0[n] < a->group0[n]) {
			back0 |= 1U << n;
			continue;
		}
		m->delta0[n] = b->group0[n] - a->group0[n];
		m->valid0 |= 1U << n;
	}
	for (unsigned int n = 0; n < PMUSCOPE_AMU_GROUP_MAX; n++) {
		uint8_t why = PMUSCOPE_AMU_WHY_OK;

		if (!read_ok)
			why = PMUSCOPE_AMU_WHY_NOT_READ;
		else if (lost)
			why = PMUSCOPE_AMU_WHY_LOST;
		else if (n >= a->nr_group1 || n >= b->nr_group1 ||
			 !((a->implemented1 & b->implemented1 & a->enabled1 & b->enabled1) >> n & 1))
			why = PMUSCOPE_AMU_WHY_NO_COUNTER;
		else if (both_flags & PMUSCOPE_AMU_F_AUX_ZERO)
			why = PMUSCOPE_AMU_WHY_AUX_ZERO;
		else if (b->group1[n] < a->group1[n])
			why = PMUSCOPE_AMU_WHY_BACKWARDS;
		m->why1[n] = why;
		if (why)
			continue;
		m->delta1[n] = b->group1[n] - a->group1[n];
		m->valid1 |= 1U << n;
	}

	for (unsigned int i = 0; i < PMUSCOPE_AMU_NR_METRICS; i++) {
		int num = def[i].num, den = def[i].den;
		uint64_t dnum, dden;
		uint8_t why = PMUSCOPE_AMU_WHY_OK;

		if (!read_ok)
			why = PMUSCOPE_AMU_WHY_NOT_READ;
		else if (lost)
			why = PMUSCOPE_AMU_WHY_LOST;
		else if (!pmuscope_amu_has0(a, num) || !pmuscope_amu_has0(b, num) ||
			 (den >= 0 && (!pmuscope_amu_has0(a, den) || !pmuscope_amu_has0(b, den))))
			why = PMUSCOPE_AMU_WHY_NO_COUNTER;
		else if (def[i].needs_const && (both_flags & PMUSCOPE_AMU_F_CONST_BROKEN))
			why = PMUSCOPE_AMU_WHY_CONST_BROKEN;
		else if ((back0 >> num & 1) || (den >= 0 && (back0 >> den & 1)) ||
			 (den < 0 && b->time < a->time))
			why = PMUSCOPE_AMU_WHY_BACKWARDS;
		m->value[i] = NAN;
		if (!why) {
			dnum = m->delta0[num];
			dden = den >= 0 ? m->delta0[den] : m->ticks;
			if (!dden || (i == PMUSCOPE_AMU_M_FREQ && !freq))
				why = PMUSCOPE_AMU_WHY_ZERO;
			else
				m->value[i] = pmuscope_amu_ratio(dnum, i == PMUSCOPE_AMU_M_FREQ ?
								 freq : 1, dden);
		}
		m->why[i] = why;
		if (!why)
			m->valid |= 1U << i;
	}
	return 0;
}

const char *pmuscope_amu_why_str(unsigned int why)
{
	static const char * const names[] = {
		[PMUSCOPE_AMU_WHY_OK] = "",
		[PMUSCOPE_AMU_WHY_NOT_READ] = "not read",
		[PMUSCOPE_AMU_WHY_LOST] = "lost",
		[PMUSCOPE_AMU_WHY_BACKWARDS] = "went backwards",
		[PMUSCOPE_AMU_WHY_NO_COUNTER] = "counter absent or disabled",
		[PMUSCOPE_AMU_WHY_CONST_BROKEN] = "constant counter broken",
		[PMUSCOPE_AMU_WHY_AUX_ZERO] = "group 1 reads zero",
		[PMUSCOPE_AMU_WHY_ZERO] = "nothing to divide by",
	};

	return why < sizeof(names) / sizeof(names[0]) ? names[why] : "unknown";
}

const char *pmuscope_amu_state_name(uint32_t state)
{
	switch (state) {
	case PMUSCOPE_AMU_READ_OK:
		return "ok";
	case PMUSCOPE_AMU_ABSENT:
		return "absent";
	case PMUSCOPE_AMU_DISABLED:
		return "disabled";
	case PMUSCOPE_AMU_OFFLINE:
		return "offline";
	default:
		return "unknown";
	}
}

void pmuscope_amu_flags_str(uint32_t flags, char *buf, size_t len)
{
	static const struct flag_name names[] = {
		{ PMUSCOPE_AMU_F_LOST, "lost" },
		{ PMUSCOPE_AMU_F_CONST_BROKEN, "const_broken" },
		{ PMUSCOPE_AMU_F_AUX_ZERO, "aux_zero" },
	};

	flags_str(flags, names, sizeof(names) / sizeof(names[0]), buf, len);
}

const char *pmuscope_amu_event_name(uint16_t type, char *buf, size_t len)
{
	const char *name = pmuscope_event_name(type);

	if (name)
		return name;
	pmuscope_fmt(buf, len, "0x%04x", type);
	return buf;
}

/* --------------------------------------------------------------- streams */
int pmuscope_fd(const struct pmuscope *h)
{
	return h ? h->fd : -1;
}

int pmuscope_stream_start(struct pmuscope *h, const struct pmuscope_stream_cfg *cfg)
{
	struct pmuscope_stream st = { .size = sizeof(st) };
	int flags;

	if (!h || !cfg)
		return -EINVAL;
	if (cfg->period_ms > PMUSCOPE_STREAM_MS_MAX) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "stream: a period of %u ms is above the most, %u ms",
			     cfg->period_ms, PMUSCOPE_STREAM_MS_MAX);
		return -EINVAL;
	}
	if (cfg->sample_index != PMUSCOPE_STREAM_NO_EVENT) {
		if (h->nr_events && cfg->sample_index >= h->nr_events) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "stream: no event %u to sample on: the session counts %u",
				     cfg->sample_index, h->nr_events);
			return -EINVAL;
		}
		if (cfg->sample_period < PMUSCOPE_STREAM_PERIOD_MIN ||
		    cfg->sample_period > PMUSCOPE_STREAM_PERIOD_MAX) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "stream: a sample period of %llu events is out of range (%u to %llu)",
				     (unsigned long long)cfg->sample_period,
				     PMUSCOPE_STREAM_PERIOD_MIN,
				     (unsigned long long)PMUSCOPE_STREAM_PERIOD_MAX);
			return -EINVAL;
		}
	}
	if (!cfg->period_ms && cfg->sample_index == PMUSCOPE_STREAM_NO_EVENT) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "stream: neither a period in ms nor an event to sample on");
		return -EINVAL;
	}
	if (cfg->ring_kib && (cfg->ring_kib < PMUSCOPE_STREAM_KIB_MIN ||
			      cfg->ring_kib > PMUSCOPE_STREAM_KIB_MAX ||
			      (cfg->ring_kib & (cfg->ring_kib - 1)))) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "stream: a ring of %u KiB: want a power of 2 from %u to %u",
			     cfg->ring_kib, PMUSCOPE_STREAM_KIB_MIN, PMUSCOPE_STREAM_KIB_MAX);
		return -EINVAL;
	}
	st.period_ms = cfg->period_ms;
	st.sample_index = cfg->sample_index;
	st.sample_period = cfg->sample_index == PMUSCOPE_STREAM_NO_EVENT ? 0 : cfg->sample_period;
	st.ring_kib = cfg->ring_kib;
	st.wakeup_kib = cfg->wakeup_kib;
	if (ioctl(h->fd, PMUSCOPE_IOC_STREAM, &st)) {
		int ret = -errno;

		switch (ret) {
		case -EOPNOTSUPP:
			if (h->task)
				pmuscope_fmt(h->msg, sizeof(h->msg),
					     "stream refused: a task session has no stream: count CPUs");
			else if (!(h->features & PMUSCOPE_FEAT_STREAM))
				pmuscope_fmt(h->msg, sizeof(h->msg),
					     "stream refused: the driver has no streams (no PMUSCOPE_FEAT_STREAM)");
			else
				pmuscope_fmt(h->msg, sizeof(h->msg),
					     "stream refused: the sampled event cannot interrupt on these CPUs (%s)",
					     strerror(-ret));
			break;
		case -EINVAL:
			pmuscope_fmt(h->msg, sizeof(h->msg), "stream refused: %s",
				     h->nr_events ? "invalid argument (period, event or ring size)" :
				     "no events configured");
			break;
		case -ENOTTY:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "stream: the driver does not know PMUSCOPE_IOC_STREAM (before API version 3)");
			break;
		default:
			pmuscope_fmt(h->msg, sizeof(h->msg), "stream failed: %s", strerror(-ret));
		}
		return ret;
	}
	flags = fcntl(h->fd, F_GETFL);
	if (flags >= 0)
		fcntl(h->fd, F_SETFL, flags | O_NONBLOCK);
	return 0;
}

/*
 * Wait up to @timeout_ms for the file to be readable, then read what
 * fits: a stream's records or an SPE session's chunks (@what names them
 * in messages, @unit one of them). 0 when nothing came.
 */
static ssize_t pmuscope_poll_read(struct pmuscope *h, void *buf, size_t len, int timeout_ms,
				  const char *what, const char *unit)
{
	struct pollfd pfd;
	ssize_t n;
	int ret;

	if (!h || (len && !buf))
		return -EINVAL;
	pfd.fd = h->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0) {
		ret = -errno;
		if (ret != -EINTR)
			pmuscope_fmt(h->msg, sizeof(h->msg), "%s: poll failed: %s", what,
				     strerror(-ret));
		return ret;
	}
	if (!ret)
		return 0;
	n = read(h->fd, buf, len);
	if (n < 0) {
		ret = -errno;
		if (ret == -EAGAIN)
			return 0;
		if (ret == -ENOSPC)
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "%s: %zu bytes are too few for the next %s", what, len, unit);
		else if (ret != -EINTR)
			pmuscope_fmt(h->msg, sizeof(h->msg), "%s: read failed: %s", what,
				     strerror(-ret));
		return ret;
	}
	return n;
}

ssize_t pmuscope_stream_read(struct pmuscope *h, void *buf, size_t len, int timeout_ms)
{
	return pmuscope_poll_read(h, buf, len, timeout_ms, "stream", "record");
}

#define PMUSCOPE_REC_HEAD	48	/* sizeof(struct pmuscope_record) */

_Static_assert(sizeof(struct pmuscope_record) == PMUSCOPE_REC_HEAD,
	       "struct pmuscope_record is 48 bytes");

int pmuscope_record_next(const void *buf, size_t len, size_t *off,
			 struct pmuscope_rec *rec, char *err, size_t errlen)
{
	const unsigned char *p = buf;
	struct pmuscope_record r;
	size_t at = *off, left;

	if (at >= len)
		return 0;
	left = len - at;
	if (left < PMUSCOPE_REC_HEAD) {
		pmuscope_fmt(err, errlen,
			     "record at byte %zu cut short: %zu bytes left, a record has at least %d",
			     at, left, PMUSCOPE_REC_HEAD);
		return -EBADMSG;
	}
	memcpy(&r, p + at, sizeof(r));
	if (r.size < PMUSCOPE_REC_HEAD) {
		pmuscope_fmt(err, errlen, "record at byte %zu: size %u is below %d", at,
			     r.size, PMUSCOPE_REC_HEAD);
		return -EBADMSG;
	}
	if (r.size % 8) {
		pmuscope_fmt(err, errlen, "record at byte %zu: size %u is not a multiple of 8",
			     at, r.size);
		return -EBADMSG;
	}
	if ((uint64_t)r.size != PMUSCOPE_REC_HEAD + 8ULL * r.nr) {
		pmuscope_fmt(err, errlen,
			     "record at byte %zu: size %u does not hold its %u counts (%llu bytes)",
			     at, r.size, r.nr, PMUSCOPE_REC_HEAD + 8ULL * r.nr);
		return -EBADMSG;
	}
	if (r.size > left) {
		pmuscope_fmt(err, errlen,
			     "record at byte %zu cut short: size %u, %zu bytes left", at, r.size,
			     left);
		return -EBADMSG;
	}
	rec->type = r.type;
	rec->size = r.size;
	rec->cpu = r.cpu;
	rec->time = r.time;
	rec->pid = r.pid;
	rec->tid = r.tid;
	rec->pc = r.pc;
	rec->value = r.value;
	rec->flags = r.flags;
	rec->nr = r.nr;
	rec->counts = p + at + PMUSCOPE_REC_HEAD;
	*off = at + r.size;
	return 1;
}

uint64_t pmuscope_rec_count(const struct pmuscope_rec *rec, unsigned int i)
{
	uint64_t v;

	if (i >= rec->nr)
		return 0;
	memcpy(&v, rec->counts + 8 * (size_t)i, sizeof(v));
	return v;
}

const char *pmuscope_rec_type_name(uint16_t type)
{
	switch (type) {
	case PMUSCOPE_REC_SAMPLE:
		return "sample";
	case PMUSCOPE_REC_LOST:
		return "lost";
	case PMUSCOPE_REC_THROTTLED:
		return "throttled";
	default:
		return "unknown";
	}
}

uint64_t pmuscope_counter_now(void)
{
#ifdef __aarch64__
	uint64_t v;

	asm volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
#endif
}

uint64_t pmuscope_counter_freq(void)
{
#ifdef __aarch64__
	uint64_t v;

	asm volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
#else
	return 0;
#endif
}

void pmuscope_flags_str(uint32_t flags, char *buf, size_t len)
{
	static const char * const names[] = {
		"lost", "throttled", "clobbered", "multiplexed", "offline",
	};
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & (1U << i))
			off += snprintf(buf + off, off < len ? len - off : 0, "%s%s",
					off ? "," : "", names[i]);
}

/* ------------------------------------------------------------------- SPE */
_Static_assert(sizeof(struct pmuscope_spe_chunk) == 32, "struct pmuscope_spe_chunk is 32 bytes");
_Static_assert(sizeof(struct pmuscope_spe_cpu) == 64, "struct pmuscope_spe_cpu is 64 bytes");

#define PMUSCOPE_SPE_FLAGS_ALL	(PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1 | PMUSCOPE_SPE_TS | \
				 PMUSCOPE_SPE_PA | PMUSCOPE_SPE_CX | PMUSCOPE_SPE_PCT | \
				 PMUSCOPE_SPE_JITTER | PMUSCOPE_SPE_DISCARD)
#define PMUSCOPE_SPE_OPS_ALL	(PMUSCOPE_SPE_OP_BRANCH | PMUSCOPE_SPE_OP_LOAD | \
				 PMUSCOPE_SPE_OP_STORE)
#define PMUSCOPE_SPE_CPUS_MAX	4096	/* bytes of the bitmap, at most */

static int pmuscope_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The checks the driver makes of @cfg (Documentation/ioctl.rst), first here. */
static int pmuscope_spe_check(struct pmuscope *h, const struct pmuscope_spe_config *cfg)
{
	const uint64_t *cpus = (const uint64_t *)(uintptr_t)cfg->cpus;
	size_t words = cfg->cpus_size / 8, n = 0;

	if (cfg->flags & ~PMUSCOPE_SPE_FLAGS_ALL) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "SPE: unknown flags 0x%x",
			     cfg->flags & ~PMUSCOPE_SPE_FLAGS_ALL);
		return -EINVAL;
	}
	if (!(cfg->flags & (PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1))) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: sample at EL0, EL1 or both: neither was asked for");
		return -EINVAL;
	}
	if ((cfg->flags & PMUSCOPE_SPE_PCT) && !(cfg->flags & PMUSCOPE_SPE_TS)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: physical timestamps (PCT) need timestamps (TS)");
		return -EINVAL;
	}
	if (cfg->ops & ~PMUSCOPE_SPE_OPS_ALL) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "SPE: unknown operation filter bits 0x%x",
			     cfg->ops & ~PMUSCOPE_SPE_OPS_ALL);
		return -EINVAL;
	}
	if (!cpus || !cfg->cpus_size || cfg->cpus_size % 8 ||
	    cfg->cpus_size > PMUSCOPE_SPE_CPUS_MAX) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: a CPU bitmap of %u bytes: want a multiple of 8 from 8 to %d",
			     cfg->cpus_size, PMUSCOPE_SPE_CPUS_MAX);
		return -EINVAL;
	}
	for (size_t cpu = 0; cpu < words * 64; cpu++) {
		if (!pmuscope_cpu_set(cpus, words, cpu))
			continue;
		if (h->nr_cpu_ids && cpu >= h->nr_cpu_ids) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "SPE: cpu%zu does not exist (the kernel's CPUs are below %u)",
				     cpu, h->nr_cpu_ids);
			return -EINVAL;
		}
		n++;
	}
	if (!n) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "SPE: no CPU chosen");
		return -EINVAL;
	}
	if (cfg->interval % 256 || cfg->interval > PMUSCOPE_SPE_INTERVAL_MAX) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: an interval of %llu operations: want a multiple of 256 up to %llu",
			     (unsigned long long)cfg->interval,
			     (unsigned long long)PMUSCOPE_SPE_INTERVAL_MAX);
		return -EINVAL;
	}
	if (cfg->min_latency > 65535) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: a minimum latency of %u cycles is above the most, 65535",
			     cfg->min_latency);
		return -EINVAL;
	}
	if (cfg->buffer_kib && (!pmuscope_pow2(cfg->buffer_kib) ||
				cfg->buffer_kib < PMUSCOPE_SPE_KIB_MIN ||
				cfg->buffer_kib > PMUSCOPE_SPE_KIB_MAX)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: a ring of %u KiB: want a power of 2 from %d to %d",
			     cfg->buffer_kib, PMUSCOPE_SPE_KIB_MIN, PMUSCOPE_SPE_KIB_MAX);
		return -EINVAL;
	}
	if (cfg->hw_kib && (!pmuscope_pow2(cfg->hw_kib) || cfg->hw_kib < PMUSCOPE_SPE_HW_KIB_MIN ||
			    cfg->hw_kib > PMUSCOPE_SPE_HW_KIB_MAX)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: a profiling buffer of %u KiB: want a power of 2 from %d to %d",
			     cfg->hw_kib, PMUSCOPE_SPE_HW_KIB_MIN, PMUSCOPE_SPE_HW_KIB_MAX);
		return -EINVAL;
	}
	if ((cfg->hw_kib ? cfg->hw_kib : PMUSCOPE_SPE_HW_KIB_DEFAULT) >=
	    (cfg->buffer_kib ? cfg->buffer_kib : PMUSCOPE_SPE_KIB_DEFAULT)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: the profiling buffer (%u KiB) must be smaller than the ring (%u KiB)",
			     cfg->hw_kib ? cfg->hw_kib : PMUSCOPE_SPE_HW_KIB_DEFAULT,
			     cfg->buffer_kib ? cfg->buffer_kib : PMUSCOPE_SPE_KIB_DEFAULT);
		return -EINVAL;
	}
	if (cfg->wakeup_kib > (cfg->buffer_kib ? cfg->buffer_kib : PMUSCOPE_SPE_KIB_DEFAULT)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: a wakeup at %u KiB is above the ring's size", cfg->wakeup_kib);
		return -EINVAL;
	}
	if (cfg->reserved[0] || cfg->reserved[1]) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "SPE: reserved fields must be zero");
		return -EINVAL;
	}
	return 0;
}

int pmuscope_spe_start(struct pmuscope *h, struct pmuscope_spe_config *cfg)
{
	int ret, flags;

	if (!h || !cfg)
		return -EINVAL;
	cfg->size = sizeof(*cfg);
	if (h->nr_events) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: this session counts events: profile on a session of its own");
		return -EINVAL;
	}
	ret = pmuscope_spe_check(h, cfg);
	if (ret)
		return ret;
	if (!(h->features & PMUSCOPE_FEAT_SPE)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: the driver can profile no CPU with SPE (the handshake has no PMUSCOPE_FEAT_SPE: no CPU has a usable Statistical Profiling Extension, it belongs to another driver, or the driver is older)");
		return -EOPNOTSUPP;
	}
	if (ioctl(h->fd, PMUSCOPE_IOC_SPE_START, cfg)) {
		ret = -errno;
		switch (ret) {
		case -EOPNOTSUPP:
			if (!(h->features & PMUSCOPE_FEAT_SPE))
				pmuscope_fmt(h->msg, sizeof(h->msg),
					     "SPE refused: the driver can profile no CPU with SPE (no PMUSCOPE_FEAT_SPE: no CPU has a usable Statistical Profiling Extension, or it belongs to another driver)");
			else
				pmuscope_fmt(h->msg, sizeof(h->msg),
					     "SPE refused: no CPU asked for has a usable Statistical Profiling Extension (see the driver's sysfs cpuN/spe)");
			break;
		case -EBUSY:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "SPE refused: another session profiles a CPU asked for (one session per CPU), or this session already profiles");
			break;
		case -EPERM:
		case -EACCES:
			pmuscope_policy_msg(h->msg, sizeof(h->msg), "SPE refused", ret,
					    PMUSCOPE_POLICY_CPU |
					    (cfg->flags & (PMUSCOPE_SPE_EL1 | PMUSCOPE_SPE_PA |
							   PMUSCOPE_SPE_CX | PMUSCOPE_SPE_PCT) ?
					     PMUSCOPE_POLICY_KERNEL : 0));
			break;
		case -ENOMEM:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "SPE refused: no memory for the buffers, or they exceed your locked-memory limit (RLIMIT_MEMLOCK: ulimit -l; CAP_IPC_LOCK exempts): smaller buffers with -m, or a higher limit");
			break;
		case -EINVAL:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "SPE refused: invalid argument (an interval below a CPU's minimum, sysfs spe_min_interval? a filter the CPU lacks?)");
			break;
		case -ENOTTY:
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "SPE: the driver does not know PMUSCOPE_IOC_SPE_START (before API version 5)");
			break;
		default:
			pmuscope_fmt(h->msg, sizeof(h->msg), "SPE start failed: %s",
				     strerror(-ret));
		}
		return ret;
	}
	flags = fcntl(h->fd, F_GETFL);
	if (flags >= 0)
		fcntl(h->fd, F_SETFL, flags | O_NONBLOCK);
	return 0;
}

int pmuscope_spe_stop(struct pmuscope *h)
{
	if (!h)
		return -EINVAL;
	if (ioctl(h->fd, PMUSCOPE_IOC_SPE_STOP)) {
		int ret = -errno;

		pmuscope_fmt(h->msg, sizeof(h->msg), "SPE stop failed: %s",
			     ret == -EINVAL ? "the session does not profile" : strerror(-ret));
		return ret;
	}
	return 0;
}

int pmuscope_spe_status(struct pmuscope *h, struct pmuscope_spe_cpu *cpus, size_t room,
			uint64_t *freq)
{
	struct pmuscope_spe_status st = {
		.size = sizeof(st), .record_size = sizeof(struct pmuscope_spe_cpu),
	};

	if (!h || (room && !cpus))
		return -EINVAL;
	if (room > UINT32_MAX)
		room = UINT32_MAX;
	st.records = (uintptr_t)cpus;
	st.nr_records = room;
	if (ioctl(h->fd, PMUSCOPE_IOC_SPE_STATUS, &st)) {
		int ret = -errno;

		if (ret == -ENOSPC)
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "SPE status: room for %zu CPUs, the session has %u",
				     room, st.nr_records);
		else if (ret == -EINVAL)
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "SPE status refused: the session does not profile (no SPE_START)");
		else
			pmuscope_fmt(h->msg, sizeof(h->msg), "SPE status failed: %s",
				     strerror(-ret));
		return ret;
	}
	if (st.nr_records > room) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE status: the driver returned %u records for %zu places",
			     st.nr_records, room);
		return -EPROTO;
	}
	if (freq)
		*freq = st.freq;
	return st.nr_records;
}

ssize_t pmuscope_spe_read(struct pmuscope *h, void *buf, size_t len, int timeout_ms)
{
	return pmuscope_poll_read(h, buf, len, timeout_ms, "SPE", "chunk");
}

int pmuscope_spe_chunk_next(const void *buf, size_t len, size_t *off,
			    struct pmuscope_spe_chunk *c, const unsigned char **data,
			    char *err, size_t errlen)
{
	const unsigned char *p = buf;
	size_t at = *off, left;

	if (at >= len)
		return 0;
	left = len - at;
	if (left < sizeof(*c)) {
		pmuscope_fmt(err, errlen, "chunk at byte %zu: %zu bytes, not a 32-byte header",
			     at, left);
		return -EBADMSG;
	}
	memcpy(c, p + at, sizeof(*c));
	if (c->size % 8 || c->size < sizeof(*c)) {
		pmuscope_fmt(err, errlen, "chunk at byte %zu: size %u is not a multiple of 8 of at least 32",
			     at, c->size);
		return -EBADMSG;
	}
	if ((uint64_t)c->data_size + sizeof(*c) > c->size ||
	    c->size - sizeof(*c) - c->data_size >= 8) {
		pmuscope_fmt(err, errlen,
			     "chunk at byte %zu: %u bytes of data do not fit a chunk of %u bytes padded to 8",
			     at, c->data_size, c->size);
		return -EBADMSG;
	}
	if (c->size > left) {
		pmuscope_fmt(err, errlen, "chunk at byte %zu: size %u, only %zu bytes left",
			     at, c->size, left);
		return -EBADMSG;
	}
	if (c->flags & ~(PMUSCOPE_SPE_C_LOST | PMUSCOPE_SPE_C_COLLISION |
			 PMUSCOPE_SPE_C_STOPPED | PMUSCOPE_SPE_C_FINAL)) {
		pmuscope_fmt(err, errlen, "chunk at byte %zu: unknown flags 0x%x", at, c->flags);
		return -EBADMSG;
	}
	for (size_t i = sizeof(*c) + c->data_size; i < c->size; i++)
		if (p[at + i]) {
			pmuscope_fmt(err, errlen, "chunk at byte %zu: padding byte %zu is not zero",
				     at, i);
			return -EBADMSG;
		}
	*data = p + at + sizeof(*c);
	*off = at + c->size;
	return 1;
}

void pmuscope_spe_pmbsr_str(uint64_t pmbsr, char *buf, size_t len)
{
	unsigned int ec = (pmbsr >> 26) & 0x3f, mss = pmbsr & 0xffff;
	const char *what = "?", *sub = "";
	size_t off;

	switch (ec) {
	case 0x00:
		what = "buffer management";
		switch (mss & 0x3f) {
		case 0x00: sub = "not filled"; break;
		case 0x01: sub = "buffer full"; break;
		default: sub = "reserved";
		}
		break;
	case 0x1e:
		what = "granule protection check";
		break;
	case 0x24:
		what = "data abort, stage 1";
		break;
	case 0x25:
		what = "data abort, stage 2";
		break;
	default:
		what = "IMPLEMENTATION DEFINED or reserved";
	}
	if (!len)
		return;
	off = snprintf(buf, len, "0x%llx: EC 0x%02x (%s) %s 0x%02x%s%s%s",
		       (unsigned long long)pmbsr, ec, what, ec ? "FSC" : "BSC", mss & 0x3f,
		       *sub ? " (" : "", sub, *sub ? ")" : "");
	if (off < len && (pmbsr & (1ULL << 19)))
		off += snprintf(buf + off, len - off, ", DL (data lost)");
	if (off < len && (pmbsr & (1ULL << 18)))
		off += snprintf(buf + off, len - off, ", EA (external abort)");
	if (off < len && (pmbsr & (1ULL << 17)))
		off += snprintf(buf + off, len - off, ", S (service)");
	if (off < len && (pmbsr & (1ULL << 16)))
		snprintf(buf + off, len - off, ", COLL (collision)");
}

const char *pmuscope_spe_state_name(uint32_t state)
{
	switch (state) {
	case PMUSCOPE_SPE_RUNNING:
		return "running";
	case PMUSCOPE_SPE_FAULTED:
		return "faulted";
	case PMUSCOPE_SPE_OFFLINE:
		return "offline";
	case PMUSCOPE_SPE_STOPPED:
		return "stopped";
	default:
		return "unknown";
	}
}

void pmuscope_spe_chunk_flags_str(uint32_t flags, char *buf, size_t len)
{
	static const struct flag_name names[] = {
		{ PMUSCOPE_SPE_C_LOST, "lost" },
		{ PMUSCOPE_SPE_C_COLLISION, "collision" },
		{ PMUSCOPE_SPE_C_STOPPED, "stopped" },
		{ PMUSCOPE_SPE_C_FINAL, "final" },
	};

	flags_str(flags, names, sizeof(names) / sizeof(names[0]), buf, len);
}
