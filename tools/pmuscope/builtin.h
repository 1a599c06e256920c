/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: the commands (builtin-*.c) and their table (commands.c),
 * as perf's builtin.h. main.c looks a command up and runs it.
 */
#ifndef PMUSCOPE_BUILTIN_H
#define PMUSCOPE_BUILTIN_H

#include <stdio.h>

#include "parse-options.h"

struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0]: the command's name */
	const char *args;	/* after the name in pmuscope --help */
	const char *summary;	/* one line: pmuscope --help, NAME in its man page */
	int has_help;		/* pmuscope NAME --help says more */
	const struct cli_options *opts;	/* its options and usage */
	const struct cli_command *subs;	/* its subcommands (spe), or NULL */
	const unsigned int *nr_subs;
};

extern const struct cli_command cli_commands[];
extern const unsigned int nr_cli_commands;

/* The command called @name in @cmds (@n of them), or NULL. */
const struct cli_command *cli_command_find(const struct cli_command *cmds, unsigned int n,
					   const char *name);
/* pmuscope --help: every command and its summary. */
void cli_usage(FILE *f);

int cmd_list(int argc, char **argv);		/* builtin-list.c */
int cmd_stat(int argc, char **argv);		/* builtin-stat.c */
int cmd_read(int argc, char **argv);		/* builtin-read.c */
int cmd_snapshot(int argc, char **argv);	/* builtin-snapshot.c */
int cmd_record(int argc, char **argv);		/* builtin-record.c */
int cmd_report(int argc, char **argv);		/* builtin-report.c */
int cmd_script(int argc, char **argv);		/* builtin-script.c */
int cmd_amu(int argc, char **argv);		/* builtin-amu.c */
int cmd_export(int argc, char **argv);		/* builtin-export.c */
int cmd_spe(int argc, char **argv);		/* builtin-spe.c */
int cmd_test(int argc, char **argv);		/* builtin-test.c */
int cmd_version(int argc, char **argv);		/* builtin-version.c */

/* Each command's options (builtin-NAME.c). */
extern const struct cli_options list_cli, stat_cli, read_cli, snapshot_cli, record_cli,
	report_cli, script_cli, amu_cli, export_cli, spe_cli, test_cli, version_cli;
/* spe's subcommands: record, report, dump (builtin-spe.c). */
extern const struct cli_command spe_commands[];
extern const unsigned int nr_spe_commands;

#endif
