// SPDX-License-Identifier: GPL-2.0
/* pmuscope list: the events implemented on each CPU type. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"

struct cpu_type {
	struct pmuscope_cpu_info info;
	uint64_t cpus[PMUSCOPE_CPU_WORDS];
};

static int collect_types(struct cpu_type *types, int max)
{
	struct pmuscope_cpu_info info;
	int n = 0;

	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		int t;

		if (pmuscope_cpu_info(cpu, &info)) {
			if (cpu >= 64)
				break;
			continue;
		}
		if (!info.probed)
			continue;
		for (t = 0; t < n; t++)
			if (!strcmp(types[t].info.name, info.name) &&
			    types[t].info.pmceid0 == info.pmceid0 &&
			    types[t].info.pmceid1 == info.pmceid1 &&
			    types[t].info.num_counters == info.num_counters)
				break;
		if (t == n) {
			if (n == max)
				continue;
			memset(&types[n], 0, sizeof(types[n]));
			types[n].info = info;
			n++;
		}
		types[t].cpus[cpu / 64] |= 1ULL << (cpu % 64);
	}
	return n;
}

static void list_usage(FILE *f)
{
	fprintf(f, "usage: pmuscope list [--json]\n");
}

/*
 * list takes --json alone, compared literally (no getopt: anything else is
 * the usage on stderr); the table says so to --list-opts and help.
 */
struct list_args {
	/* cppcheck-suppress unusedStructMember ; named by the option table (OPT_SET: offsetof) */
	int json;
};

static const struct cli_option list_options[] = {
	OPT_SET("json", 0, "JSON output", struct list_args, json, 1),
	OPT_END(),
};

const struct cli_options list_cli = { "list", list_options, list_usage };

int cmd_list(int argc, char **argv)
{
	struct cpu_type types[16];
	int json = argc > 1 && !strcmp(argv[1], "--json");
	char cpus[4096];
	int n = collect_types(types, 16);

	if (argc > 1 && !json) {
		cli_usage_with_options(stderr, &list_cli);
		return EXIT_USAGE;
	}
	if (!n) {
		fprintf(stderr, "pmuscope: %s not found: is the pmuscope module loaded?\n",
			pmuscope_sysfs_root());
		return EXIT_DRIVER;
	}
	if (json)
		printf("{\"cpu_types\":[");
	for (int t = 0; t < n; t++) {
		const struct pmuscope_cpu_info *info = &types[t].info;
		int first = 1;

		pmuscope_cpulist_format(types[t].cpus, PMUSCOPE_CPU_WORDS, cpus, sizeof(cpus));
		if (json) {
			printf("%s{\"name\":", t ? "," : "");
			report_json_str(stdout, info->name);
			printf(",\"cpus\":\"%s\",\"pmu\":", cpus);
			report_json_str(stdout, info->pmu_version_name);
			printf(",\"counters\":%u,\"counter_width\":%u,\"events\":[",
			       info->num_counters, info->event_width);
		} else {
			printf("%s (CPU%s %s): %s, %u event counters of %u bits and a 64-bit cycle counter\n",
			       info->name, strpbrk(cpus, ",-") ? "s" : "", cpus,
			       info->pmu_version_name, info->num_counters, info->event_width);
		}
		for (size_t i = 0; i < pmuscope_event_count(); i++) {
			const char *name, *desc, *alias;
			uint32_t num;

			pmuscope_event_at(i, &num, &name, &desc);
			if (!pmuscope_cpu_has_event(info, num) || num == 0x1e)
				continue;
			alias = pmuscope_alias_of(num);
			if (json) {
				printf("%s{\"name\":\"%s\",\"number\":%u,\"alias\":%s%s%s,\"description\":\"%s\"}",
				       first ? "" : ",", name, num, alias ? "\"" : "",
				       alias ? alias : "null", alias ? "\"" : "", desc);
			} else {
				printf("  %-24s 0x%04x  %-24s %s\n", name, num,
				       alias ? alias : "", desc);
			}
			first = 0;
		}
		if (json)
			printf("]}");
		else
			printf("  (IMPLEMENTATION DEFINED events: rNNNN, e.g. r0xc0)\n\n");
	}
	if (json)
		printf("]}\n");
	return 0;
}
