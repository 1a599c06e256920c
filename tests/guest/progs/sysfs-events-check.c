// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs-events-check CPUDIR: check that CPUDIR/events/ lists exactly the
 * common events that CPUDIR/pmceid0 and CPUDIR/pmceid1 report: every file
 * names an event whose PMCEID bit is set, and as many files as set bits.
 *
 * sysfs-events-check --select CPUDIR: every event CPUDIR/events/ lists
 * round-trips through CPUDIR/select, alone (with and without modifiers,
 * also as counter_event/<n> shows it) and in lists as long as the CPU has
 * counters: what is read back names each event in full. Leaves the
 * selection empty. (On a Cortex-A53 this covers names of 16 characters and
 * more, such as CID_WRITE_RETIRED; QEMU implements only short ones.)
 *
 * Exit status 0 when consistent.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_u64(const char *dir, const char *name, uint64_t *val)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	ok = fscanf(f, "%" SCNx64, val) == 1;
	fclose(f);
	if (!ok)
		fprintf(stderr, "%s: not a number\n", path);
	return ok ? 0 : -1;
}

/* Bit of event @num in PMCEID0/1 (0x0000-0x003F, 0x4000-0x403F). */
static int event_bit(uint64_t pmceid0, uint64_t pmceid1, unsigned int num)
{
	unsigned int i = num & 0x3f;
	uint64_t reg = i < 32 ? pmceid0 : pmceid1;
	unsigned int shift = (i & 31) + (num >= 0x4000 ? 32 : 0);

	if (!(num < 0x40 || (num >= 0x4000 && num < 0x4040)))
		return -1;
	return (reg >> shift) & 1;
}

/* Write @text to DIR/NAME; 0 or -errno. */
static int write_str(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fputs(text, f) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* Read DIR/NAME into @buf without its newline; 0 or -1. */
static int read_str(const char *dir, const char *name, char *buf, size_t len)
{
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Select @in on CPUDIR, expect @want back; 1 if so. */
static int select_back(const char *cpudir, const char *in, const char *want)
{
	static char got[8192];
	int ret = write_str(cpudir, "select", in);

	if (ret) {
		fprintf(stderr, "select '%s': %s\n", in, strerror(-ret));
		return 0;
	}
	if (read_str(cpudir, "select", got, sizeof(got)) || strcmp(got, want)) {
		fprintf(stderr, "select '%s' reads back '%s', want '%s'\n", in, got, want);
		return 0;
	}
	return 1;
}

static int select_check(const char *cpudir)
{
	char evdir[512], in[8192], want[8192], got[256], lower[64], *p;
	unsigned int n = 0, in_list = 0, bad = 0, counters = 0, i;
	uint64_t num;
	struct dirent *de;
	DIR *d;

	if (read_u64(cpudir, "num_event_counters", &num))
		return 1;
	counters = num;
	snprintf(evdir, sizeof(evdir), "%s/events", cpudir);
	d = opendir(evdir);
	if (!d) {
		perror(evdir);
		return 1;
	}
	in[0] = want[0] = '\0';
	while ((de = readdir(d))) {
		const char *name = de->d_name;

		if (name[0] == '.')
			continue;
		n++;
		snprintf(want, sizeof(want), "%s:uk", name);
		bad += !select_back(cpudir, name, want);
		/* The counter it was placed on shows it in full too. */
		if (read_str(cpudir, strcmp(name, "CPU_CYCLES") ? "counter_event/0" :
			     "counter_event/cycle", got, sizeof(got)) || strcmp(got, want)) {
			fprintf(stderr, "%s: counter_event reads '%s', want '%s'\n",
				name, got, want);
			bad++;
		}
		for (i = 0; name[i] && i + 1 < sizeof(lower); i++)
			lower[i] = tolower((unsigned char)name[i]);
		lower[i] = '\0';
		snprintf(in, sizeof(in), "%s:u", lower);
		snprintf(want, sizeof(want), "%s:u", name);
		bad += !select_back(cpudir, in, want);
	}
	closedir(d);

	/* Lists of as many events as the CPU has event counters. */
	d = opendir(evdir);
	if (!d)
		return 1;
	in[0] = '\0';
	p = want;
	*p = '\0';
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(in + strlen(in), sizeof(in) - strlen(in), "%s%s",
			 in_list ? "," : "", de->d_name);
		p += snprintf(p, want + sizeof(want) - p, "%s%s:k", in_list ? "," : "",
			      de->d_name);
		snprintf(in + strlen(in), sizeof(in) - strlen(in), ":k");
		if (++in_list == counters) {
			bad += !select_back(cpudir, in, want);
			in[0] = '\0';
			p = want;
			*p = '\0';
			in_list = 0;
		}
	}
	closedir(d);
	if (in_list)
		bad += !select_back(cpudir, in, want);
	write_str(cpudir, "select", "\n");
	printf("%u events round-trip through select%s\n", n, bad ? ": NOT ALL" : "");
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t pmceid0, pmceid1, num;
	char evdir[512];
	unsigned int listed = 0, bits, bad = 0;
	struct dirent *de;
	DIR *d;

	if (argc == 3 && !strcmp(argv[1], "--select"))
		return select_check(argv[2]);
	if (argc != 2) {
		fprintf(stderr, "usage: %s [--select] /sys/kernel/pmuscope/cpuN\n", argv[0]);
		return 2;
	}
	if (read_u64(argv[1], "pmceid0", &pmceid0) ||
	    read_u64(argv[1], "pmceid1", &pmceid1))
		return 1;
	snprintf(evdir, sizeof(evdir), "%s/events", argv[1]);
	d = opendir(evdir);
	if (!d) {
		perror(evdir);
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (read_u64(evdir, de->d_name, &num)) {
			bad++;
			continue;
		}
		listed++;
		if (event_bit(pmceid0, pmceid1, num) != 1) {
			fprintf(stderr, "%s (0x%04" PRIx64 ") listed but not in PMCEID\n",
				de->d_name, num);
			bad++;
		}
	}
	closedir(d);
	bits = __builtin_popcountll(pmceid0) + __builtin_popcountll(pmceid1);
	printf("%u events listed, PMCEID0/1 have %u bits set\n", listed, bits);
	if (listed != bits) {
		fprintf(stderr, "events/ lists %u events, PMCEID reports %u\n",
			listed, bits);
		bad++;
	}
	return bad ? 1 : 0;
}
