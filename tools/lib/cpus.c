// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: CPU lists and the driver's sysfs description of the CPUs.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

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

int pmuscope_read_str(int cpu, const char *file, char *buf, size_t len)
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

int pmuscope_cpu_midr(int cpu, uint32_t *midr)
{
	char buf[64], path[512], *end;
	unsigned long long v;
	int ret;

	snprintf(path, sizeof(path), "%s/cpu%d", pmuscope_sysfs_root(), cpu);
	if (cpu < 0 || access(path, F_OK))
		return -ENOENT;
	ret = pmuscope_read_str(cpu, "midr", buf, sizeof(buf));
	if (ret)
		return ret == -ENOENT ? -ENODATA : ret;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || end == buf || *end || v > 0xffffffffULL)
		return -EINVAL;
	*midr = v;
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

int pmuscope_cpu_set(const uint64_t *cpus, size_t words, size_t cpu)
{
	return cpu < words * 64 && (cpus[cpu / 64] & (1ULL << (cpu % 64)));
}

