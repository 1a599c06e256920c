// SPDX-License-Identifier: GPL-2.0
/* pmuscope version: the versions of the tool and of the driver. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cli.h"

static void version_usage(FILE *f)
{
	fprintf(f, "usage: pmuscope version\n");
}

/* version takes no options: anything after it is not looked at. */
static const struct cli_option version_options[] = {
	OPT_END(),
};

const struct cli_options version_cli = { "version", version_options, version_usage };

int cmd_version(int argc, char **argv)
{
	char profile[64], path[600];
	FILE *f;

	(void)argc;	/* version takes no options: pmuscope version --help too */
	(void)argv;
	printf("pmuscope %s (API version %d)\n", PMUSCOPE_LIB_VERSION,
	       PMUSCOPE_API_VERSION);
	if (pmuscope_emulated(profile, sizeof(profile)))
		printf("driver: pmuscope_emu.ko, EMULATED profile %s (register model, not hardware)\n",
		       profile);
	snprintf(path, sizeof(path), "%s/backend", pmuscope_sysfs_root());
	f = fopen(path, "r");
	if (f) {
		char backend[16] = "";

		if (fscanf(f, "%15s", backend) == 1)
			printf("backend: %s (%s)\n", backend,
			       strcmp(backend, "perf") ?
			       "pmuscope drives the PMU" :
			       "counting through perf's PMU driver");
		fclose(f);
	} else {
		printf("driver: not loaded\n");
	}
	return 0;
}
