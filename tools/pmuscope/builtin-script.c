// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope script: every sample of a recording with its call chain, in
 * the text perf script -F +pid prints for a perf record -g file (the
 * default fields of a hardware event and the pid: tools/perf/builtin-script.c,
 * perf_sample__fprintf_start(), process_event() and
 * sample__fprintf_callchain() of util/evsel_fprintf.c), so that what
 * reads perf script's text reads this: speedscope, the Firefox Profiler,
 * Perfetto, stackcollapse-perf.pl. Per sample:
 *
 *   comm PID/TID [CPU] SECS.USECS: PERIOD EVENT: \n
 *   \t ADDR SYM+0xOFF (OBJECT)\n   one a frame, the leaf first
 *   \n
 *
 * with perf's widths: "%s %7d/%-7d [%03d] %12s: %10lu %*s: " (the event
 * names as wide as the longest), "\t%16lx". Time is since the recording
 * started.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "callgraph.h"
#include "cli.h"
#include "symbols.h"

struct script_args {
	const char *file;
	const char *symfs;
	long pid;
};

static void script_usage(FILE *f)
{
	fprintf(f,
		"usage: pmuscope script [-i FILE] [--symfs DIR] [--pid PID]\n"
		"  Every sample of a recording of pmuscope record (default pmuscope.data)\n"
		"  with its call chain, as perf script prints them: the text speedscope,\n"
		"  the Firefox Profiler, Perfetto and stackcollapse-perf.pl read.\n");
}

static int script_opt(void *ctx, const struct cli_option *opt, char *arg)
{
	struct script_args *a = ctx;

	switch (opt->value) {
	case 'p':
		return parse_pid(arg, 0, &a->pid) ? EXIT_USAGE : 0;
	default:
		return 1;
	}
}

static const struct cli_option script_options[] = {
	OPT_STRING("input", 'i', "FILE", "the recording (default pmuscope.data)", struct script_args,
		   file),
	OPT_STRING("symfs", 0, "DIR", "look for the recorded files under DIR (a copy of the "
		   "recording machine's root)", struct script_args, symfs),
	OPT_CALLBACK("pid", 0, "PID", "the samples of process PID only", script_opt, 'p'),
	OPT_HELP("help", 'h'),
	OPT_END(),
};

const struct cli_options script_cli = { "script", script_options, script_usage };

/* One frame's line, as sample__fprintf_callchain() prints it. */
void cg_print_frame(FILE *f, const struct cg_frame *fr)
{
	fprintf(f, "\t%16" PRIx64 " ", fr->addr);
	if (fr->sym)
		fprintf(f, "%s+0x%" PRIx64, fr->sym, fr->sym_off);
	else
		fprintf(f, "[unknown]");
	if (fr->flags & CG_FRAME_INLINED)
		fprintf(f, " (inlined)\n");
	else
		fprintf(f, " (%s)\n", fr->dso);
}

/* Load @file for a command: 0, or the exit status after the message. */
int cg_load_cli(struct cg_profile *p, const char *file, const struct cg_load_opts *o)
{
	char err[512];
	int ret;

	if (!sym_available()) {
		fprintf(stderr,
			"pmuscope: this pmuscope was built without elfutils: copy %s and run pmuscope report on a machine that has it, with --symfs\n",
			file);
		return EXIT_UNSUPPORTED;
	}
	ret = cg_load(p, file, o, err, sizeof(err));
	if (ret) {
		/* What is wrong in the file; else @err names it (df_open()). */
		if (ret == -EBADMSG || ret == -EPROTO)
			fprintf(stderr, "pmuscope: %s: %s\n", file, err);
		else
			fprintf(stderr, "pmuscope: %s\n", err);
		return 1;
	}
	if (!p->complete)
		fprintf(stderr, "pmuscope: %s: the recording did not finish (no END chunk): reporting what was written\n",
			file);
	return 0;
}

int cmd_script(int argc, char **argv)
{
	struct script_args a = { .file = "pmuscope.data", .pid = -1 };
	struct cg_profile p;
	int ret, width = 0;

	if (cli_parse(&script_cli, argc, argv, &a, &ret))
		return ret;
	if (optind < argc) {
		fprintf(stderr, "pmuscope: script takes no argument: '%s' (the file is -i FILE)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	ret = cg_load_cli(&p, a.file, &(struct cg_load_opts){ .symfs = a.symfs, .pid = a.pid });
	if (ret) {
		cg_free(&p);
		return ret;
	}
	/* perf: as wide as the longest name of the recording's events sampled. */
	for (size_t i = 0; i < p.nr_samples; i++) {
		int l = strlen(p.events[p.samples[i].event].label);

		width = l > width ? l : width;
	}
	for (size_t i = 0; i < p.nr_samples; i++) {
		const struct cg_sample *s = &p.samples[i];
		char cbuf[24];

		printf("%s %7u/%-7u [%03u] %5" PRIu64 ".%06" PRIu64 ": %10" PRIu64 " %*s: \n",
		       cg_comm(s, cbuf, sizeof(cbuf)), s->pid, s->tid, s->cpu,
		       s->time_ns / 1000000000, s->time_ns % 1000000000 / 1000, s->period, width,
		       p.events[s->event].label);
		for (uint32_t k = 0; k < s->nr; k++)
			cg_print_frame(stdout, s->frames[k]);
		printf("\n");
	}
	ret = 0;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "pmuscope: script: writing the output: %s\n", strerror(errno));
		ret = 1;
	}
	cg_free(&p);
	return ret;
}
