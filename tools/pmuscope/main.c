// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the command-line tool of the pmuscope driver.
 *
 * This file is the entry alone: the global options, the lookup of the
 * command in the table of commands.c and its run. Each command is
 * builtin-NAME.c; what they share is in the helpers cli.h gathers
 * (Documentation/cli.rst documents the commands and the exit status).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"

/*
 * pmuscope_emu.ko is the driver against a register model: every output of
 * every command says so, on stderr so that JSON and CSV stay parseable.
 */
static void emulated_banner(void)
{
	char profile[64];

	if (pmuscope_emulated(profile, sizeof(profile)))
		fprintf(stderr, "pmuscope: EMULATED CPU (pmuscope_emu.ko, register model profile %s): not hardware\n",
			profile);
}

/*
 * The global options, before any command: --help (and help), --version,
 * and for scripts/gen-completion.py and scripts/gen-man.py (perf's idea)
 * --list-cmds [CMD] and --list-opts [CMD [SUB]], these two hidden.
 */
static const struct cli_option global_options[] = {
	OPT_HELP("help", 0),
	OPT_CALLBACK("version", 0, NULL, "the versions of the tool and the driver", NULL, 0),
	OPT_END(),
};

/* The subcommands of @argv[0..argc) (none: the commands), or NULL. */
static const struct cli_command *cli_lookup(int argc, char **argv, unsigned int *n)
{
	const struct cli_command *cmds = cli_commands, *c = NULL;

	*n = nr_cli_commands;
	for (int i = 0; i < argc; i++) {
		c = cli_command_find(cmds, *n, argv[i]);
		if (!c || !c->subs)
			return i == argc - 1 ? c : NULL;
		cmds = c->subs;
		*n = *c->nr_subs;
	}
	return c;
}

/* --list-cmds [CMD]: "NAME<tab>SUMMARY" of each (sub)command, help last. */
static int list_cmds(int argc, char **argv)
{
	const struct cli_command *c = NULL, *cmds = cli_commands;
	unsigned int n = nr_cli_commands;

	if (argc) {
		c = cli_lookup(argc, argv, &n);
		if (!c || !c->subs)
			return EXIT_USAGE;
		cmds = c->subs;
		n = *c->nr_subs;
	}
	for (unsigned int i = 0; i < n; i++)
		printf("%s\t%s\n", cmds[i].name, cmds[i].summary);
	printf("help\t%s\n", c ? "the usage" : "the commands, or a command's usage");
	return 0;
}

/* --list-opts [CMD [SUB]]: the options (parse-options.h), global without CMD. */
static int list_opts(int argc, char **argv)
{
	const struct cli_command *c;
	unsigned int n;

	if (!argc) {
		cli_list_opts(stdout, global_options);
		return 0;
	}
	c = cli_lookup(argc, argv, &n);
	if (!c)
		return EXIT_USAGE;
	cli_list_opts(stdout, c->opts->opts);
	return 0;
}

/* help [CMD [SUB]]: the commands, or that command's usage. */
static int help(int argc, char **argv)
{
	const struct cli_command *c;
	unsigned int n;

	if (!argc) {
		cli_usage(stdout);
		return 0;
	}
	c = cli_lookup(argc, argv, &n);
	if (!c) {
		fprintf(stderr, "pmuscope: unknown command '%s'\n", argv[argc - 1]);
		return EXIT_USAGE;
	}
	cli_usage_with_options(stdout, c->opts);
	return 0;
}

static int run(int argc, char **argv)
{
	const struct cli_command *c;

	if (argc < 2) {
		cli_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--list-cmds"))
		return list_cmds(argc - 2, argv + 2);
	if (!strcmp(argv[1], "--list-opts"))
		return list_opts(argc - 2, argv + 2);
	emulated_banner();
	if (!strcmp(argv[1], "--version"))
		return cmd_version(argc - 1, argv + 1);
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help"))
		return help(argc - 2, argv + 2);
	c = cli_command_find(cli_commands, nr_cli_commands, argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "pmuscope: unknown command '%s'\n", argv[1]);
	cli_usage(stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int ret = run(argc, argv);

	/* Output that did not reach its file is a failure, not a success. */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pmuscope: cannot write the output: %s\n", strerror(errno));
		if (!ret)
			ret = 1;
	}
	return ret;
}
