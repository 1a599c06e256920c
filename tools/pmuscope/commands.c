// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: the command table. A new command is one line here, its
 * cmd_NAME() in builtin-NAME.c and its prototype in builtin.h; its
 * options are a table in its own file (parse-options.h).
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

/* In the order pmuscope --help lists them. */
const struct cli_command cli_commands[] = {
	{ "list", cmd_list, "[--json]", "events implemented on each CPU type", 0, &list_cli },
	{ "stat", cmd_stat, "[OPTIONS] [-- CMD]", "count events", 1, &stat_cli },
	{ "snapshot", cmd_snapshot, "[OPTIONS]", "every CPU's counts at one instant", 1,
	  &snapshot_cli },
	{ "record", cmd_record, "[OPTIONS] [-- CMD]", "sample into a file", 1, &record_cli },
	{ "report", cmd_report, "[OPTIONS]", "the hottest functions of a recording", 1,
	  &report_cli },
	{ "script", cmd_script, "[OPTIONS]",
	  "a recording's samples and call chains as perf script prints them", 1, &script_cli },
	{ "amu", cmd_amu, "[OPTIONS]",
	  "each CPU's Activity Monitors: effective frequency, busy, IPC", 1, &amu_cli },
	{ "export", cmd_export, "[OPTIONS]",
	  "the counts as Prometheus metrics, over HTTP or in a textfile", 1, &export_cli },
	{ "spe", cmd_spe, "record|report|dump",
	  "sample operations with the Statistical Profiling Extension", 1,
	  &spe_cli, spe_commands, &nr_spe_commands },
	{ "test", cmd_test, "[OPTIONS] [NAME|NUMBER...]",
	  "check the driver, the PMU and the kernel's policy on this machine", 1, &test_cli },
	{ "read", cmd_read, "[--json]", "what every session is counting now", 0, &read_cli },
	{ "version", cmd_version, "", "versions of the tool and the driver", 0, &version_cli },
};

const unsigned int nr_cli_commands = sizeof(cli_commands) / sizeof(cli_commands[0]);

const struct cli_command *cli_command_find(const struct cli_command *cmds, unsigned int n,
					   const char *name)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

#define USAGE_COL	28	/* where the summaries start */
#define USAGE_WIDTH	72	/* the longest line */

/*
 * One command's lines of pmuscope --help: "  NAME ARGS", the summary from
 * USAGE_COL, wrapped at USAGE_WIDTH; "(pmuscope NAME --help)" is one word.
 */
static void usage_command(FILE *f, const struct cli_command *c)
{
	char head[64], pointer[64], words[256];
	const char *w[32];
	int n = 0, col;
	char *save = NULL;

	snprintf(head, sizeof(head), "%s%s%s", c->name, *c->args ? " " : "", c->args);
	snprintf(words, sizeof(words), "%s", c->summary);
	for (char *t = strtok_r(words, " ", &save); t && n < 31; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	if (c->has_help) {
		snprintf(pointer, sizeof(pointer), "(pmuscope %s --help)", c->name);
		w[n++] = pointer;
	}
	col = fprintf(f, "  %-*s", USAGE_COL - 3, head);
	for (int i = 0; i < n; i++) {
		if (col + 1 + (int)strlen(w[i]) > USAGE_WIDTH) {
			fputc('\n', f);
			col = fprintf(f, "%*s", USAGE_COL - 1, "");
		}
		col += fprintf(f, " %s", w[i]);
	}
	fputc('\n', f);
}

void cli_usage(FILE *f)
{
	fprintf(f, "usage: pmuscope COMMAND [ARGS]\n");
	for (unsigned int i = 0; i < nr_cli_commands; i++)
		usage_command(f, &cli_commands[i]);
}
