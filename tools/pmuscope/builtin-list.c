// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope list: the events of each CPU type: the Arm common ones its
 * PMCEID0/1_EL0 report, then those of its core's table (perf's pmu-events
 * JSON, include/pmuscope_core_events.h) that PMCEID cannot confirm.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "builtin.h"
#include "cli.h"

struct cpu_type {
	struct pmuscope_cpu_info info;
	uint64_t cpus[PMUSCOPE_CPU_WORDS];
	uint32_t midr;		/* 0: the driver gave none */
	int core;		/* pmuscope_core_of(midr), -ENOENT: no table */
};

static int collect_types(struct cpu_type *types, int max)
{
	struct pmuscope_cpu_info info;
	int n = 0;

	for (int cpu = 0; cpu < PMUSCOPE_MAX_CPUS; cpu++) {
		uint32_t midr = 0;
		int t, core;

		if (pmuscope_cpu_info(cpu, &info)) {
			if (cpu >= 64)
				break;
			continue;
		}
		if (!info.probed)
			continue;
		if (pmuscope_cpu_midr(cpu, &midr))
			midr = 0;
		core = midr ? pmuscope_core_of(midr) : -ENOENT;
		for (t = 0; t < n; t++)
			if (!strcmp(types[t].info.name, info.name) && types[t].core == core &&
			    types[t].info.pmceid0 == info.pmceid0 &&
			    types[t].info.pmceid1 == info.pmceid1 &&
			    types[t].info.num_counters == info.num_counters)
				break;
		if (t == n) {
			if (n == max)
				continue;
			memset(&types[n], 0, sizeof(types[n]));
			types[n].info = info;
			types[n].midr = midr;
			types[n].core = core;
			n++;
		}
		types[t].cpus[cpu / 64] |= 1ULL << (cpu % 64);
	}
	return n;
}

/* @text from column @col, folded at blanks to end before column 100. */
static void print_wrapped(const char *text, int col)
{
	const int width = 99 - col;

	while ((int)strlen(text) > width) {
		int cut = width;

		while (cut > 0 && text[cut] != ' ')
			cut--;
		if (!cut)
			break;		/* one long word: left whole */
		printf("%.*s\n%*s", cut, text, col, "");
		text += cut;
		while (*text == ' ')
			text++;
	}
	printf("%s\n", text);
}

/*
 * The events of @type's core table that PMCEID cannot confirm
 * (IMPLEMENTATION DEFINED, recommended), each with its description; in
 * JSON the type's "core", "midr" and "core_events" (each "pmceid": false).
 */
static void list_core_events(const struct cpu_type *type, int json)
{
	const char *core = pmuscope_core_name(type->core);
	int first = 1;

	if (json) {
		printf(",\"core\":");
		if (core)
			report_json_str(stdout, core);
		else
			printf("null");
		if (type->midr)
			printf(",\"midr\":\"0x%08x\"", type->midr);
		else
			printf(",\"midr\":null");
		printf(",\"core_events\":[");
	} else if (core) {
		printf("  -- %s: events PMCEID cannot confirm (IMPLEMENTATION DEFINED or\n"
		       "     recommended, named by perf's pmu-events JSON), marked *:\n", core);
	}
	for (size_t i = 0; i < pmuscope_core_event_count(type->core); i++) {
		const char *name, *desc, *common;
		uint32_t num;


		pmuscope_core_event_at(type->core, i, &num, &name, &desc);
		common = pmuscope_event_name(num);
		if (common && !strcasecmp(common, name))
			continue;	/* PMCEID says, above */
		if (json) {
			printf("%s{\"name\":", first ? "" : ",");
			report_json_str(stdout, name);
			printf(",\"number\":%u,\"description\":", num);
			report_json_str(stdout, desc);
			printf(",\"pmceid\":false}");
		} else {
			printf("  %-24s 0x%04x* ", name, num);
			print_wrapped(desc, 35);
		}
		first = 0;
	}
	if (json)
		printf("]");
	else if (core)
		printf("  (any other IMPLEMENTATION DEFINED event: rNNNN)\n\n");
	else if (type->midr)
		printf("  (IMPLEMENTATION DEFINED events: rNNNN, e.g. r0xc0; no table for MIDR 0x%08x)\n\n",
		       type->midr);
	else
		printf("  (IMPLEMENTATION DEFINED events: rNNNN, e.g. r0xc0)\n\n");
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
				printf("%s{\"name\":\"%s\",\"number\":%u,\"alias\":%s%s%s,\"description\":\"%s\",\"pmceid\":true}",
				       first ? "" : ",", name, num, alias ? "\"" : "",
				       alias ? alias : "null", alias ? "\"" : "", desc);
			} else {
				printf("  %-24s 0x%04x  %-24s %s\n", name, num,
				       alias ? alias : "", desc);
			}
			first = 0;
		}
		if (json)
			printf("]");
		list_core_events(&types[t], json);
		if (json)
			printf("}");
	}
	if (json)
		printf("]}\n");
	return 0;
}
