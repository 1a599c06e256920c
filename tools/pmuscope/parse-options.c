// SPDX-License-Identifier: GPL-2.0
/* pmuscope CLI: options as data (parse-options.h), and the values they take. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exit-codes.h"
#include "parse-options.h"


/*
 * A decimal number from @lo to @hi, digits only: strtoull() would take
 * spaces and signs ("-1" as a huge number).
 */
int parse_uint(const char *arg, unsigned long long lo, unsigned long long hi,
	       unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_pid(const char *arg, unsigned long long lo, long *pid)
{
	unsigned long long v;

	if (parse_uint(arg, lo, 0x7fffffff, &v)) {
		fprintf(stderr, "pmuscope: --pid needs a process id: '%s'\n", arg);
		return -EINVAL;
	}
	*pid = v;
	return 0;
}

/* -I MS: 10 ms to a day. */
int parse_interval(const char *arg, unsigned int *ms)
{
	unsigned long long v;

	if (parse_uint(arg, 10, 86400000, &v)) {
		fprintf(stderr, "pmuscope: -I needs at least 10 ms (and at most a day): '%s'\n",
			arg);
		return -EINVAL;
	}
	*ms = v;
	return 0;
}

#define CLI_MAX_OPTIONS	32

static unsigned int count_options(const struct cli_option *opts)
{
	unsigned int n = 0;

	while (opts[n].kind != CLI_OPT_END)
		n++;
	return n;
}

/*
 * getopt's short-option string ("+" first: options end at the first
 * operand) and getopt_long's array of @opts: an option with a short
 * letter returns it, one without returns 256 + its index. Returns whether
 * any option has a long name.
 */
static int cli_getopt_tables(const struct cli_option *opts, char *shorts,
			     struct option *longs)
{
	unsigned int n = count_options(opts), nl = 0;
	char *s = shorts;

	*s++ = '+';
	for (unsigned int i = 0; i < n; i++) {
		const struct cli_option *o = &opts[i];

		if (o->short_name) {
			*s++ = o->short_name;
			if (o->argname)
				*s++ = ':';
		}
		if (o->long_name) {
			longs[nl].name = o->long_name;
			longs[nl].has_arg = o->argname ? required_argument : no_argument;
			longs[nl].flag = NULL;
			longs[nl].val = o->short_name ? o->short_name : 256 + (int)i;
			nl++;
		}
	}
	*s = '\0';
	memset(&longs[nl], 0, sizeof(longs[nl]));
	return nl > 0;
}

static const struct cli_option *cli_find(const struct cli_option *opts, int val)
{
	for (unsigned int i = 0; opts[i].kind != CLI_OPT_END; i++)
		if (opts[i].short_name ? opts[i].short_name == val : 256 + (int)i == val)
			return &opts[i];
	return NULL;
}

int cli_parse(const struct cli_options *c, int argc, char **argv, void *ctx, int *code)
{
	struct option longs[CLI_MAX_OPTIONS + 1];
	char shorts[2 * CLI_MAX_OPTIONS + 2];
	int has_long;

	if (count_options(c->opts) > CLI_MAX_OPTIONS) {
		fprintf(stderr, "pmuscope: %s: more than %d options\n", c->path, CLI_MAX_OPTIONS);
		*code = 1;
		return 1;
	}
	has_long = cli_getopt_tables(c->opts, shorts, longs);
	optind = 1;
	for (;;) {
		const struct cli_option *o;
		int val;

		val = has_long ? getopt_long(argc, argv, shorts, longs, NULL) :
				 getopt(argc, argv, shorts);
		if (val == -1)
			return 0;
		o = cli_find(c->opts, val);
		if (!o) {	/* '?': getopt said why */
			cli_usage_with_options(stderr, c);
			*code = EXIT_USAGE;
			return 1;
		}
		switch (o->kind) {
		case CLI_OPT_SET:
			*(int *)((char *)ctx + o->offset) = o->value;
			break;
		case CLI_OPT_STRING:
			*(const char **)((char *)ctx + o->offset) = optarg;
			break;
		case CLI_OPT_CALLBACK:
			*code = o->fn(ctx, o, optarg);
			if (*code)
				return 1;
			break;
		case CLI_OPT_HELP:
			cli_usage_with_options(stdout, c);
			*code = 0;
			return 1;
		case CLI_OPT_END:
			break;
		}
	}
}

#define USAGE_OPT_INDENT	4	/* before "-X", "--NAME" */
#define USAGE_OPT_MAX		26	/* longer: the help on the next line */
#define USAGE_OPT_WIDTH		79	/* the help wrapped before */

/* The width of "-X, --NAME ARG", "    --NAME ARG" or "-X ARG" (long names aligned). */
static int option_width(const struct cli_option *o)
{
	int w = o->short_name ? 2 + (o->long_name ? 2 : 0) : 4;

	if (o->long_name)
		w += 2 + strlen(o->long_name);
	if (o->argname)
		w += 1 + strlen(o->argname);
	return w;
}

static int print_option(FILE *f, const struct cli_option *o)
{
	int w = 0;

	if (o->short_name)
		w += fprintf(f, "-%c%s", o->short_name, o->long_name ? ", " : "");
	else
		w += fprintf(f, "    ");
	if (o->long_name)
		w += fprintf(f, "--%s", o->long_name);
	if (o->argname)
		w += fprintf(f, " %s", o->argname);
	return w;
}

/* @text's words from column @col on, the lines wrapped at USAGE_OPT_WIDTH to @indent. */
static void print_wrapped(FILE *f, const char *text, int col, int indent)
{
	int first = 1;

	for (const char *p = text; *p; ) {
		int n;

		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (!n)
			break;
		if (!first && col + 1 + n > USAGE_OPT_WIDTH)
			col = fprintf(f, "\n%*s", indent, "") - 1;
		else if (!first)
			col += fprintf(f, " ");
		col += fprintf(f, "%.*s", n, p);
		p += n;
		first = 0;
	}
	fputc('\n', f);
}

/* The options of @opts, a line each (more where the help wraps). */
static void usage_options(FILE *f, const struct cli_option *opts)
{
	int width = 0, col;

	for (unsigned int i = 0; opts[i].kind != CLI_OPT_END; i++) {
		int w = option_width(&opts[i]);

		if (w <= USAGE_OPT_MAX && w > width)
			width = w;
	}
	col = USAGE_OPT_INDENT + width + 2;
	for (unsigned int i = 0; opts[i].kind != CLI_OPT_END; i++) {
		int w = fprintf(f, "%*s", USAGE_OPT_INDENT, "") + print_option(f, &opts[i]);

		if (w + 2 > col) {
			fputc('\n', f);
			w = 0;
		}
		fprintf(f, "%*s", col - w, "");
		print_wrapped(f, opts[i].help ? opts[i].help : "", col, col);
	}
}

void cli_usage_with_options(FILE *f, const struct cli_options *c)
{
	c->usage(f);
	if (!c->sections) {
		if (c->opts[0].kind != CLI_OPT_END) {
			fprintf(f, "\noptions:\n");
			usage_options(f, c->opts);
		}
		return;
	}
	for (const struct cli_options *const *s = c->sections; *s; s++) {
		if ((*s)->opts[0].kind == CLI_OPT_END)
			continue;
		fprintf(f, "\npmuscope %s options:\n", (*s)->path);
		usage_options(f, (*s)->opts);
	}
}

void cli_list_opts(FILE *f, const struct cli_option *opts)
{
	for (unsigned int i = 0; opts[i].kind != CLI_OPT_END; i++) {
		const struct cli_option *o = &opts[i];
		const char *eq = o->argname ? "=" : "";

		if (o->short_name)
			fprintf(f, "-%c%s%s", o->short_name, eq, o->long_name ? " " : "");
		if (o->long_name)
			fprintf(f, "--%s%s", o->long_name, eq);
		fprintf(f, "\t%s\t%s\n", o->argname ? o->argname : "", o->help ? o->help : "");
	}
}
