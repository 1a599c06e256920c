/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: options as data, and the values they take.
 *
 * A command declares its options once, as a table of struct cli_option
 * (long name, short letter, argument name, help, what it sets) ended by
 * OPT_END(). From it cli_parse() makes getopt_long()'s option array and
 * short-option string at run time (plain getopt() when no option has a
 * long name), cli_usage_with_options() prints it after the command's
 * synopsis for --help, and pmuscope --list-opts prints it for the bash
 * completion and the man pages (scripts/gen-completion.py,
 * scripts/gen-man.py): one table, four uses.
 */
#ifndef PMUSCOPE_PARSE_OPTIONS_H
#define PMUSCOPE_PARSE_OPTIONS_H

#include <stddef.h>
#include <stdio.h>
#include <unistd.h>	/* optind */

struct cli_option;

/* An option's action: 0, or the exit status to end the command with
 * (said on stderr). @ctx is what cli_parse() was given. */
typedef int (*cli_option_fn)(void *ctx, const struct cli_option *opt, char *arg);

enum cli_option_kind {
	CLI_OPT_END,
	CLI_OPT_SET,		/* int at .offset in ctx = .value */
	CLI_OPT_STRING,		/* const char * at .offset in ctx = the argument */
	CLI_OPT_CALLBACK,	/* .fn(ctx, opt, arg) */
	CLI_OPT_HELP,		/* the command's usage on stdout, exit 0 */
};

struct cli_option {
	enum cli_option_kind kind;
	const char *long_name;	/* --NAME, or NULL */
	int short_name;		/* -X, or 0 */
	const char *argname;	/* the argument's name; NULL: takes none */
	const char *help;	/* one line: --help wraps it, --list-opts as is */
	size_t offset;		/* CLI_OPT_SET, CLI_OPT_STRING */
	int value;		/* CLI_OPT_SET; CLI_OPT_CALLBACK: free for .fn */
	cli_option_fn fn;	/* CLI_OPT_CALLBACK */
};

#define OPT_SET(l, s, h, type, field, v) \
	{ CLI_OPT_SET, l, s, NULL, h, offsetof(type, field), v, NULL }
#define OPT_STRING(l, s, a, h, type, field) \
	{ CLI_OPT_STRING, l, s, a, h, offsetof(type, field), 0, NULL }
#define OPT_CALLBACK(l, s, a, h, f, v) \
	{ CLI_OPT_CALLBACK, l, s, a, h, 0, v, f }
#define OPT_HELP(l, s) \
	{ CLI_OPT_HELP, l, s, NULL, "the usage", 0, 0, NULL }
#define OPT_END() \
	{ CLI_OPT_END, NULL, 0, NULL, NULL, 0, 0, NULL }

/* A number macro as a string, for a help string: CLI_STR(PMUSCOPE_SPE_KIB_DEFAULT). */
#define CLI_STR_(x)	#x
#define CLI_STR(x)	CLI_STR_(x)

/* A command's (or subcommand's) options and usage text. */
struct cli_options {
	const char *path;		/* "stat", "spe record" */
	const struct cli_option *opts;
	/* The synopsis and notes, that cli_usage_with_options() follows
	 * with the options: --help; on stderr after a bad option. */
	void (*usage)(FILE *f);
	/* The commands whose options the usage lists, each under its path,
	 * NULL-ended (spe: itself and its subcommands); NULL: this one's. */
	const struct cli_options *const *sections;
};

/*
 * Parse argv[1..] by @c's table into @ctx, up to the first operand ("+":
 * options stop there): 0 with optind at it, or 1 when the command ends
 * now with *@code (0 after --help; EXIT_USAGE after a bad option, getopt's
 * message and the usage on stderr; an action's own status).
 */
int cli_parse(const struct cli_options *c, int argc, char **argv, void *ctx, int *code);
/*
 * A command's usage, as perf's usage_with_options(): its synopsis and
 * notes (@c->usage), then "options:" and a line an option from its table,
 * "-X, --NAME ARG" then the help, aligned, in the table's order.
 */
void cli_usage_with_options(FILE *f, const struct cli_options *c);
/* pmuscope --list-opts: one line an option, "-X" and/or "--NAME", "="
 * after those taking an argument, a tab, the argument's name, a tab, the help. */
void cli_list_opts(FILE *f, const struct cli_option *opts);

int parse_uint(const char *arg, unsigned long long lo, unsigned long long hi,
	       unsigned long long *out);
/* --pid PID: @lo (0 or 1) to 2^31 - 1 into *@pid (said on stderr when not). */
int parse_pid(const char *arg, unsigned long long lo, long *pid);
/* -I MS: 10 ms to a day (said on stderr when not). */
int parse_interval(const char *arg, unsigned int *ms);

#endif
