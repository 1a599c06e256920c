// SPDX-License-Identifier: GPL-2.0
/* pmuscope read: what every session is counting now (sysfs). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "cli.h"

static void counter_file_name(int i, char *name, size_t len)
{
	if (i == 31)
		snprintf(name, len, "cycle");
	else
		snprintf(name, len, "%d", i);
}

/*
 * Whether the owners of the counters can be read: counter_owner/ and
 * counter_value/ are root only (mode 0400), and without them nothing can
 * be listed. The first counter_owner file found tells; 0 when there is
 * none (no CPU with a PMU).
 */
static int read_denied(void)
{
	struct pmuscope_cpu_info info;
	char path[512], name[8];

	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		if (pmuscope_cpu_info(cpu, &info)) {
			if (cpu >= 64)
				break;
			continue;
		}
		for (int i = 0; i < 32; i++) {
			FILE *f;

			counter_file_name(i, name, sizeof(name));
			snprintf(path, sizeof(path), "%s/cpu%d/counter_owner/%s",
				 pmuscope_sysfs_root(), cpu, name);
			f = fopen(path, "r");
			if (f) {
				fclose(f);
				return 0;
			}
			if (errno == EACCES || errno == EPERM)
				return 1;
		}
	}
	return 0;
}

/* 1 when the driver counts through perf's PMU driver (sysfs backend). */
static int backend_is_perf(void)
{
	char path[512], backend[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/backend", pmuscope_sysfs_root());
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%15s", backend) != 1)
		backend[0] = '\0';
	fclose(f);
	return !strcmp(backend, "perf");
}

/*
 * Exit 5 when the owners cannot be read (not root); on the perf backend
 * the counters of /dev/pmuscope sessions are perf events that sysfs does
 * not show: the sysfs session's are listed, and the exit status is 3 so
 * that a script does not take the listing for all that counts.
 */
static void read_usage(FILE *f)
{
	fprintf(f, "usage: pmuscope read [--json]\n");
}

/*
 * read takes --json alone, compared literally (no getopt: anything else is
 * the usage on stderr); the table says so to --list-opts and help.
 */
struct read_args {
	/* cppcheck-suppress unusedStructMember ; named by the option table (OPT_SET: offsetof) */
	int json;
};

static const struct cli_option read_options[] = {
	OPT_SET("json", 0, "JSON output", struct read_args, json, 1),
	OPT_END(),
};

const struct cli_options read_cli = { "read", read_options, read_usage };

int cmd_read(int argc, char **argv)
{
	int json = argc > 1 && !strcmp(argv[1], "--json");
	char path[512], owner[128], event[64], value[32];
	struct pmuscope_cpu_info info;
	int first = 1, found = 0, perf;

	if (argc > 1 && !json) {
		cli_usage_with_options(stderr, &read_cli);
		return EXIT_USAGE;
	}
	if (read_denied()) {
		fprintf(stderr, "pmuscope: permission denied: who holds the counters and their values "
			"(%s/cpuN/counter_owner/ and counter_value/) can be read by root only "
			"(mode 0400): run pmuscope read as root\n", pmuscope_sysfs_root());
		return EXIT_PERM;
	}
	perf = backend_is_perf();
	if (json)
		printf("{\"counters\":[");
	else
		printf("%-4s %-8s %-44s %-26s %s\n", "CPU", "COUNTER", "OWNER", "EVENT", "VALUE");
	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		if (pmuscope_cpu_info(cpu, &info)) {
			if (cpu >= 64)
				break;
			continue;
		}
		found = 1;
		for (int i = 0; i < 32; i++) {
			char name[8];
			FILE *f;

			counter_file_name(i, name, sizeof(name));
			snprintf(path, sizeof(path), "%s/cpu%d/counter_owner/%s",
				 pmuscope_sysfs_root(), cpu, name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (!fgets(owner, sizeof(owner), f))
				owner[0] = '\0';
			fclose(f);
			owner[strcspn(owner, "\n")] = '\0';
			if (!strcmp(owner, "free"))
				continue;
			snprintf(path, sizeof(path), "%s/cpu%d/counter_event/%s",
				 pmuscope_sysfs_root(), cpu, name);
			f = fopen(path, "r");
			event[0] = '\0';
			if (f) {
				if (!fgets(event, sizeof(event), f))
					event[0] = '\0';
				fclose(f);
			}
			event[strcspn(event, "\n")] = '\0';
			snprintf(path, sizeof(path), "%s/cpu%d/counter_value/%s",
				 pmuscope_sysfs_root(), cpu, name);
			f = fopen(path, "r");
			snprintf(value, sizeof(value), "-");
			if (f) {
				if (!fgets(value, sizeof(value), f))
					snprintf(value, sizeof(value), "-");
				fclose(f);
			}
			value[strcspn(value, "\n")] = '\0';
			if (json) {
				int digits = value[0] != '\0';

				for (const char *v = value; *v; v++)
					digits &= *v >= '0' && *v <= '9';
				printf("%s{\"cpu\":%d,\"counter\":\"%s\",\"owner\":",
				       first ? "" : ",", cpu, name);
				report_json_str(stdout, owner);
				printf(",\"event\":");
				report_json_str(stdout, event);
				printf(",\"value\":%s}", digits ? value : "null");
			} else
				printf("%-4d %-8s %-44s %-26s %s\n", cpu, name, owner, event, value);
			first = 0;
		}
	}
	if (json)
		printf("]}\n");
	if (!found) {
		fprintf(stderr, "pmuscope: %s not found: is the pmuscope module loaded?\n",
			pmuscope_sysfs_root());
		return EXIT_DRIVER;
	}
	if (perf) {
		fprintf(stderr, "pmuscope: backend perf: /dev/pmuscope sessions count with perf "
			"events, whose counters sysfs does not show: %s\n", first ?
			"nothing listed (the sysfs session, cpuN/select, counts nothing)" :
			"listed are the sysfs session's (cpuN/select) alone");
		return EXIT_UNSUPPORTED;
	}
	return 0;
}
