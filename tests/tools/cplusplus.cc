// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope.h from C++: a program that includes it and calls the library
 * must compile and link (the header's extern "C"), against libpmuscope.a
 * and libpmuscope.so alike. No driver needed: what it calls parses and
 * formats. Prints "ok" and exits 0, or says which call failed and exits 1.
 * Built by tools/Makefile (build/host/cplusplus) and by
 * tests/host/test_cli.py against both libraries.
 */
#include <cstdio>
#include <cstring>

#include "pmuscope.h"

int main()
{
	struct pmuscope_event_spec ev;
	uint64_t cpus[PMUSCOPE_CPU_WORDS] = {};
	char err[256], list[64];

	if (pmuscope_event_parse("instructions", &ev, err, sizeof(err)) ||
	    ev.number != 0x08) {
		std::printf("pmuscope_event_parse: %s\n", err);
		return 1;
	}
	if (pmuscope_cpulist_parse("0-3,6", cpus, PMUSCOPE_CPU_WORDS, err, sizeof(err))) {
		std::printf("pmuscope_cpulist_parse: %s\n", err);
		return 1;
	}
	pmuscope_cpulist_format(cpus, PMUSCOPE_CPU_WORDS, list, sizeof(list));
	if (std::strcmp(list, "0-3,6") || pmuscope_scale(100, 4, 2) != 200 ||
	    !pmuscope_errmsg(NULL)) {
		std::printf("pmuscope_cpulist_format: %s\n", list);
		return 1;
	}
	std::printf("ok\n");
	return 0;
}
