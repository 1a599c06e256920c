// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs-events-check CPUDIR: check that CPUDIR/events/ lists exactly the
 * common events that CPUDIR/pmceid0 and CPUDIR/pmceid1 report: every file
 * names an event whose PMCEID bit is set, and as many files as set bits.
 * Exit status 0 when consistent.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	uint64_t pmceid0, pmceid1, num;
	char evdir[512];
	unsigned int listed = 0, bits, bad = 0;
	struct dirent *de;
	DIR *d;

	if (argc != 2) {
		fprintf(stderr, "usage: %s /sys/kernel/pmuscope/cpuN\n", argv[0]);
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
