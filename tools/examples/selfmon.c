// SPDX-License-Identifier: GPL-2.0
/*
 * Example for libpmuscope: a thread counts its own events and reads them
 * at EL0 (MRS, no system call) around a piece of work.
 *
 *   selfmon [EVENT...]       default: instructions:u cycles:u
 *
 * pmuscope_configure_self() makes a session of the calling thread whose
 * counters it may read itself (the direct backend: PMUSCOPE_FEAT_USER_READ);
 * pmuscope_read_self() reads them with MRS where the driver grants it, and
 * through the READ ioctl elsewhere (its return value says which).
 *
 * Build: cc -I<pmuscope>/include/uapi -I<pmuscope>/include -I<pmuscope>/tools/lib \
 *           selfmon.c libpmuscope.a
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmuscope.h"

static void work(unsigned long n)
{
	volatile unsigned long sum = 0;

	for (unsigned long i = 0; i < n; i++)
		sum += i;
}

int main(int argc, char **argv)
{
	const char *defaults[] = { "instructions:u", "cycles:u" };
	struct pmuscope_event_spec evs[PMUSCOPE_MAX_EVENTS];
	uint64_t before[PMUSCOPE_MAX_EVENTS], after[PMUSCOPE_MAX_EVENTS];
	struct pmuscope_self_stats st;
	unsigned int nr = 0;
	struct pmuscope *h;
	char err[512];
	int r1, r2;

	for (int i = 1; i < argc || (argc == 1 && i <= 2); i++) {
		const char *spec = argc > 1 ? argv[i] : defaults[i - 1];

		if (nr == PMUSCOPE_MAX_EVENTS) {
			fprintf(stderr, "selfmon: at most %d events\n", PMUSCOPE_MAX_EVENTS);
			return 2;
		}
		if (pmuscope_event_parse(spec, &evs[nr++], err, sizeof(err))) {
			fprintf(stderr, "selfmon: %s\n", err);
			return 2;
		}
	}
	if (pmuscope_open(&h, err, sizeof(err))) {
		fprintf(stderr, "selfmon: %s\n", err);
		return 1;
	}
	if (pmuscope_configure_self(h, evs, nr, 0) || pmuscope_enable(h)) {
		fprintf(stderr, "selfmon: %s\n", pmuscope_errmsg(h));
		pmuscope_close(h);
		return 1;
	}
	r1 = pmuscope_read_self(h, before, nr);
	work(1000000);
	r2 = pmuscope_read_self(h, after, nr);
	if (r1 < 0 || r2 < 0) {
		fprintf(stderr, "selfmon: %s\n", pmuscope_errmsg(h));
		pmuscope_close(h);
		return 1;
	}
	for (unsigned int i = 0; i < nr; i++)
		printf("%-20s %" PRIu64 "\n", evs[i].label, after[i] - before[i]);
	pmuscope_self_stats(h, &st);
	printf("reads: before %s, after %s (EL0 reads %" PRIu64 ", ioctl reads %" PRIu64
	       ", fast path %s)\n", r1 ? "ioctl" : "EL0", r2 ? "ioctl" : "EL0",
	       st.fast, st.fallback, st.capable ? "available" : "not available here");
	pmuscope_close(h);
	return 0;
}
