// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of libpmuscope and the CLI's report code: event and CPU list
 * parsing, scaling, derived metrics, the table format, the AMU metrics;
 * and pmuscope amu end to end, the pmuscope next to this program run
 * against fake_pmuscope.so (the stand-in for /dev/pmuscope) and a fake
 * sysfs, its JSON checked by python3 -m json.tool. Prints one line per
 * case, "PASS name" or "FAIL name: why", then "N passed, N failed".
 *
 *   test_tools               run the tests
 *   test_tools --sample json|csv|table   print a sample report (for the
 *                            Python tests, which parse it with real parsers)
 *   test_tools --sample snapshot-json|snapshot-csv|snapshot-table
 *                            two sample snapshots of 3 CPUs, 3 events
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "datafile.h"
#include "maps.h"
#include "pmuscope.h"
#include "read-file.h"
#include "stat-output.h"
#include "spe_report.h"
#include "spefile.h"
#include "check.h"


/* ------------------------------------------------- modifiers and VHE */
static void kernel_el_root(const char *dir, const char *el)
{
	char path[256];
	FILE *f;

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/kernel_el", dir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", el);
		fclose(f);
	}
	setenv("PMUSCOPE_SYSFS", dir, 1);
}

/* k is the kernel's exception level: EL1, or EL2 on a VHE host. */
static void test_kernel_el(void)
{
	char tmpl[] = "/tmp/pmuscope-test-XXXXXX", dir[300], err[256], mods[8];
	struct pmuscope_event_spec ev;
	const char *base = mkdtemp(tmpl);
	int ret;

	if (!base) {
		result(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(dir, sizeof(dir), "%s/vhe", base);
	kernel_el_root(dir, "2");
	result(pmuscope_kernel_el() == 2, "kernel_el 2 read from the driver's sysfs");
	ret = pmuscope_event_parse("cycles", &ev, err, sizeof(err));
	result(!ret && ev.flags == (PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL2),
	       "VHE: no modifier counts EL0 and EL2 (%#x)", ev.flags);
	ret = pmuscope_event_parse("cycles:k", &ev, err, sizeof(err));
	result(!ret && ev.flags == PMUSCOPE_EV_EL2, "VHE: k is EL2 (%#x)", ev.flags);
	pmuscope_modifiers_format(PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL2, pmuscope_kernel_el(), mods);
	result(!strcmp(mods, "uk"), "VHE: EL0+EL2 shown as uk (%s)", mods);
	pmuscope_modifiers_format(PMUSCOPE_EV_EL1, pmuscope_kernel_el(), mods);
	result(!strcmp(mods, "g"), "VHE: EL1 (guests' kernels) shown as g (%s)", mods);
	snprintf(dir, sizeof(dir), "%s/nvhe", base);
	kernel_el_root(dir, "1");
	result(!pmuscope_event_parse("cycles:kh", &ev, err, sizeof(err)) &&
	       ev.flags == (PMUSCOPE_EV_EL1 | PMUSCOPE_EV_EL2), "EL1 kernel: k is EL1, h EL2");
	pmuscope_modifiers_format(PMUSCOPE_EV_ALL_EL, pmuscope_kernel_el(), mods);
	result(!strcmp(mods, "ukh"), "EL1 kernel: all three shown as ukh (%s)", mods);
	setenv("PMUSCOPE_SYSFS", "/nonexistent/pmuscope-test", 1);
	snprintf(dir, sizeof(dir), "rm -rf '%s'", base);
	if (system(dir))
		result(0, "removing %s", base);
}

/* -------------------------------------------------------------- events */
static const struct {
	const char *text;
	int ret;
	uint32_t number;
	uint32_t flags;
	const char *name;
} event_cases[] = {
	{ "cycles", 0, 0x11, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1, "CPU_CYCLES" },
	{ "instructions:u", 0, 0x08, PMUSCOPE_EV_EL0, "INST_RETIRED" },
	{ "INST_RETIRED:k", 0, 0x08, PMUSCOPE_EV_EL1, "INST_RETIRED" },
	{ "inst_retired:uk", 0, 0x08, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1, "INST_RETIRED" },
	{ "Cpu_Cycles:h", 0, 0x11, PMUSCOPE_EV_EL2, "CPU_CYCLES" },
	{ "cycles:ukh", 0, 0x11, PMUSCOPE_EV_ALL_EL, "CPU_CYCLES" },
	{ "branch-misses", 0, 0x10, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1, "BR_MIS_PRED" },
	{ "branches", 0, 0x21, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1, "BR_RETIRED" },
	{ "cache-misses:u", 0, 0x03, PMUSCOPE_EV_EL0, "L1D_CACHE_REFILL" },
	{ "stalled-cycles-backend", 0, 0x24, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1, "STALL_BACKEND" },
	{ "0x11", 0, 0x11, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1, "CPU_CYCLES" },
	{ "17:k", 0, 0x11, PMUSCOPE_EV_EL1, "CPU_CYCLES" },
	{ "0x4004", 0, 0x4004, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1, "CNT_CYCLES" },
	{ "r0xc0", 0, 0xc0, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1 | PMUSCOPE_EV_RAW, "r0xc0" },
	{ "rC0:u", 0, 0xc0, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_RAW, "r0xc0" },
	{ "r11", 0, 0x11, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1 | PMUSCOPE_EV_RAW, "r0x11" },
	{ "r0x10000", -EINVAL },
	{ "r0x 5", -EINVAL },
	{ "r0x-0", -EINVAL },
	{ "r0x5 ", -EINVAL },
	{ "r0xzz", -EINVAL },
	{ "rzz", -ENOENT },
	{ "0x99", -ENOENT },
	{ "70000", -EINVAL },
	{ "cycles:x", -EINVAL },
	{ "cycles:", -EINVAL },
	{ "", -EINVAL },
	{ ":u", -EINVAL },
	{ "no_such_event", -ENOENT },
	{ "cycle", -ENOENT },
	{ "010", 0, 10, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1, "EXC_RETURN" },	/* not octal */
	{ "08", 0, 8, PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1, "INST_RETIRED" },
	{ "CHAIN", -EINVAL },
	{ "chain:u", -EINVAL },
	{ "0x1e", -EINVAL },
	{ "r1e", -EINVAL },
};

static void test_events(void)
{
	char err[256];

	for (size_t i = 0; i < sizeof(event_cases) / sizeof(event_cases[0]); i++) {
		struct pmuscope_event_spec ev;
		int ret = pmuscope_event_parse(event_cases[i].text, &ev, err, sizeof(err));
		int ok = ret == event_cases[i].ret;

		if (ok && !ret)
			ok = ev.number == event_cases[i].number &&
			     ev.flags == event_cases[i].flags &&
			     !strcmp(ev.name, event_cases[i].name);
		result(ok, "event parse '%s' -> %d (got %d, 0x%x, 0x%x, %s)%s%s",
		       event_cases[i].text, event_cases[i].ret, ret, ev.number, ev.flags,
		       ret ? "-" : ev.name, ret ? ": " : "", ret ? err : "");
	}
	pmuscope_event_parse("cycle", &(struct pmuscope_event_spec){ 0 }, err, sizeof(err));
	result(strstr(err, "did you mean cycles") != NULL,
	       "unknown 'cycle' suggests cycles first: %s", err);
	pmuscope_event_parse("INST_RETIRD", &(struct pmuscope_event_spec){ 0 }, err,
			     sizeof(err));
	result(strstr(err, "INST_RETIRED") != NULL, "unknown 'INST_RETIRD' suggests INST_RETIRED: %s",
	       err);
	pmuscope_event_parse("CHAIM", &(struct pmuscope_event_spec){ 0 }, err, sizeof(err));
	result(!strstr(err, "CHAIN"), "CHAIN is never suggested: %s", err);
	result(!strcmp(pmuscope_alias_of(0x11), "cycles") && !pmuscope_alias_of(0x4022),
	       "short aliases");
	result(pmuscope_event_count() == 92 && !strcmp(pmuscope_event_name(0x08), "INST_RETIRED"),
	       "event table shared with the driver (%zu events)", pmuscope_event_count());
}

/* ------------------------------------------------------ per-core events */
/* A fake sysfs whose CPUs have the MIDRs of @midrs (NULL: no midr file). */
static void midr_root(const char *dir, const char *const *midrs, int n)
{
	char path[400];
	FILE *f;

	mkdir(dir, 0755);
	for (int cpu = 0; cpu < n; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d", dir, cpu);
		mkdir(path, 0755);
		if (!midrs[cpu])
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d/midr", dir, cpu);
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "%s\n", midrs[cpu]);
			fclose(f);
		}
	}
	setenv("PMUSCOPE_SYSFS", dir, 1);
}

static void test_core_events(void)
{
	static const char *const a53[] = { "0x410fd034", "0x410fd034" };
	static const char *const a53_a72[] = { "0x410fd034", "0x410fd080", NULL };
	static const char *const a55_a65[] = { "0x412fd050", "0x410fd060" };
	static const char *const n1[] = { "0x413fd0c1" };
	static const char *const bad[] = { "0x410fd03z" };
	char tmpl[] = "/tmp/pmuscope-test-XXXXXX", dir[300], err[256];
	struct pmuscope_event_spec ev;
	const char *base = mkdtemp(tmpl), *name, *desc;
	int core, ret, found = 0;
	uint32_t number, midr;

	if (!base) {
		result(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	/* the tables: MIDR without variant and revision, as perf compares */
	core = pmuscope_core_of(0x410fd034);
	result(core >= 0 && !strcmp(pmuscope_core_name(core), "arm/cortex-a53") &&
	       pmuscope_core_of(0x411fd030) == core && pmuscope_core_of(0x420f1000) == core,
	       "MIDR 0x410fd034, 0x411fd030, 0x420f1000: arm/cortex-a53 (%d)", core);
	result(pmuscope_core_of(0x410fd0f0) == -ENOENT && pmuscope_core_of(0x510fd030) == -ENOENT,
	       "unknown part or implementer: no core table");
	result(pmuscope_core_event_count(core) == 30 && pmuscope_core_event_count(-1) == 0 &&
	       pmuscope_core_event_count(pmuscope_core_count()) == 0,
	       "cortex-a53: 30 events (%zu)", pmuscope_core_event_count(core));
	for (size_t i = 0; !pmuscope_core_event_at(core, i, &number, &name, &desc); i++)
		if (number == 0xe7 && !strcmp(name, "LD_DEP_STALL") &&
		    !strcmp(desc, "Cycles there is a stall in the Wr stage because of a load miss"))
			found = 1;
	result(found && pmuscope_core_event_at(core, 30, &number, &name, &desc) == -ENOENT,
	       "cortex-a53: LD_DEP_STALL 0xe7 with its description");
	result(pmuscope_event_is_common(0x3f) && pmuscope_event_is_common(0x4000) &&
	       !pmuscope_event_is_common(0x40) && !pmuscope_event_is_common(0xe7) &&
	       !pmuscope_event_is_common(0x4040), "PMCEID range: 0x0-0x3f, 0x4000-0x403f");

	/* names of the core types present */
	snprintf(dir, sizeof(dir), "%s/a53", base);
	midr_root(dir, a53, 2);
	result(!pmuscope_cpu_midr(1, &midr) && midr == 0x410fd034 &&
	       pmuscope_cpu_midr(2, &midr) == -ENOENT, "sysfs midr read");
	for (int i = 0; i < 2; i++) {
		ret = pmuscope_event_parse(i ? "ld_dep_stall:u" : "LD_DEP_STALL", &ev, err,
					   sizeof(err));
		result(!ret && ev.number == 0xe7 && (ev.flags & PMUSCOPE_EV_RAW) &&
		       !strcmp(ev.name, "LD_DEP_STALL") &&
		       (ev.flags & PMUSCOPE_EV_ALL_EL) ==
		       (i ? PMUSCOPE_EV_EL0 : PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1),
		       "cortex-a53: %s -> raw 0xe7 (%d, 0x%x, 0x%x, %s)",
		       i ? "ld_dep_stall:u" : "LD_DEP_STALL", ret, ev.number, ev.flags,
		       ret ? err : ev.name);
	}
	ret = pmuscope_event_parse("PREFETCH_LINEFILL", &ev, err, sizeof(err));
	result(!ret && ev.number == 0xc2, "cortex-a53: PREFETCH_LINEFILL -> 0xc2");
	ret = pmuscope_event_parse("cycles", &ev, err, sizeof(err));
	result(!ret && ev.number == 0x11 && !(ev.flags & PMUSCOPE_EV_RAW) &&
	       !pmuscope_event_parse("r0xe7", &ev, err, sizeof(err)) &&
	       !strcmp(ev.name, "r0xe7"), "cortex-a53: aliases and raw numbers unchanged");
	ret = pmuscope_event_parse("LD_DEP_STAL", &ev, err, sizeof(err));
	result(ret == -ENOENT && strstr(err, "did you mean LD_DEP_STALL"),
	       "cortex-a53: LD_DEP_STAL suggests LD_DEP_STALL: %s", err);
	ret = pmuscope_event_parse("INST_RETIRD", &ev, err, sizeof(err));
	result(ret == -ENOENT && strstr(err, "did you mean INST_RETIRED"),
	       "cortex-a53: INST_RETIRD still suggests INST_RETIRED: %s", err);
	ret = pmuscope_event_parse("L1D_CACHE_REFILL_OUTER", &ev, err, sizeof(err));
	result(ret == -ENOENT && strstr(err, "not of this machine's CPUs"),
	       "cortex-a53: another core's event is refused, said to be so: %s",
	       err);

	/* big.LITTLE: a name of one type; a name two types number differently */
	snprintf(dir, sizeof(dir), "%s/a53-a72", base);
	midr_root(dir, a53_a72, 3);
	ret = pmuscope_event_parse("LD_DEP_STALL", &ev, err, sizeof(err));
	result(!ret && ev.number == 0xe7,
	       "cortex-a53 + cortex-a72: LD_DEP_STALL known (a name of a type present)");
	{
		uint64_t mask[PMUSCOPE_CPU_WORDS] = { 1 };	/* CPU 0: the A53 */

		ret = pmuscope_event_parse_cpus("LD_DEP_STALL:u", mask, PMUSCOPE_CPU_WORDS,
						&ev, err, sizeof(err));
		result(!ret && ev.number == 0xe7 && (ev.flags & PMUSCOPE_EV_RAW) &&
		       !strcmp(ev.name, "LD_DEP_STALL"),
		       "cortex-a53 + cortex-a72: LD_DEP_STALL on CPU 0 (A53) -> 0xe7");
		mask[0] = 2;					/* CPU 1: the A72 */
		ret = pmuscope_event_parse_cpus("LD_DEP_STALL", mask, PMUSCOPE_CPU_WORDS,
						&ev, err, sizeof(err));
		result(ret == -EINVAL && strstr(err, "core of CPU 1:") && strstr(err, "(-C 0)"),
		       "cortex-a53 + cortex-a72: LD_DEP_STALL on CPU 1 (A72) refused: %s", err);
		mask[0] = 3;
		ret = pmuscope_event_parse_cpus("LD_DEP_STALL", mask, PMUSCOPE_CPU_WORDS,
						&ev, err, sizeof(err));
		result(ret == -EINVAL && strstr(err, "core of CPU 1:"),
		       "cortex-a53 + cortex-a72: LD_DEP_STALL on CPUs 0-1 refused: %s", err);
		ret = pmuscope_event_parse_cpus("cycles", mask, PMUSCOPE_CPU_WORDS,
						&ev, err, sizeof(err));
		result(!ret && ev.number == 0x11, "cortex-a53 + cortex-a72: cycles on both");
	}
	snprintf(dir, sizeof(dir), "%s/a55-a65", base);
	midr_root(dir, a55_a65, 2);
	ret = pmuscope_event_parse("l2d_ws_mode", &ev, err, sizeof(err));
	result(ret == -EINVAL && strstr(err, "0xc3 on arm/cortex-a55") &&
	       strstr(err, "0xc8 on arm/cortex-a65-e1"),
	       "cortex-a55 + cortex-a65: L2D_WS_MODE (0xc3, 0xc8) refused: %s", err);
	ret = pmuscope_event_parse("L2D_WS_MODE", &ev, err, sizeof(err));
	result(ret == -EINVAL, "cortex-a55 + cortex-a65: L2D_WS_MODE refused in upper case too");

	/*
	 * AmpereOne's 45-character name: counted, its name and label cut to
	 * 39 characters by struct pmuscope_event_spec's ABI (documented)
	 */
	{
		static const char *const a1[] = { "0xc00fac30" };
		static const char long_name[] = "BPU_CONDITIONAL_BRANCH_HIT_BTB_AND_MISPREDICT";

		snprintf(dir, sizeof(dir), "%s/ampereone", base);
		midr_root(dir, a1, 1);
		ret = pmuscope_event_parse("bpu_conditional_branch_hit_btb_and_mispredict:u",
					   &ev, err, sizeof(err));
		result(!ret && ev.number == 0x117 && (ev.flags & PMUSCOPE_EV_RAW) &&
		       strlen(ev.name) == sizeof(ev.name) - 1 &&
		       !strncmp(ev.name, long_name, sizeof(ev.name) - 1) &&
		       strlen(ev.label) == sizeof(ev.label) - 1,
		       "ampereone: a 45-character name -> 0x117, name cut to %zu: %s",
		       sizeof(ev.name) - 1, ev.name);
	}

	/* a core without the name, a MIDR the lib cannot read */
	snprintf(dir, sizeof(dir), "%s/n1", base);
	midr_root(dir, n1, 1);
	ret = pmuscope_event_parse("LD_DEP_STALL", &ev, err, sizeof(err));
	result(ret == -ENOENT && strstr(err, "an event of arm/cortex-a53"),
	       "neoverse-n1: LD_DEP_STALL refused: %s", err);
	ret = pmuscope_event_parse("L1D_CACHE_REFILL_OUTER", &ev, err, sizeof(err));
	result(!ret && ev.number == 0x45 && (ev.flags & PMUSCOPE_EV_RAW),
	       "neoverse-n1: L1D_CACHE_REFILL_OUTER (recommended) -> raw 0x45");
	snprintf(dir, sizeof(dir), "%s/bad", base);
	midr_root(dir, bad, 1);
	result(pmuscope_cpu_midr(0, &midr) == -EINVAL &&
	       pmuscope_event_parse("LD_DEP_STALL", &ev, err, sizeof(err)) == -ENOENT,
	       "a bad sysfs midr: -EINVAL, no core table");

	setenv("PMUSCOPE_SYSFS", "/nonexistent/pmuscope-test", 1);
	snprintf(dir, sizeof(dir), "rm -rf '%s'", base);
	if (system(dir))
		result(0, "removing %s", base);
}

/* ------------------------------------------------------------ CPU lists */
static const struct {
	const char *text;
	int ret;
	uint64_t mask;
	const char *canon;
} cpu_cases[] = {
	{ "0", 0, 0x1, "0" },
	{ "0-3", 0, 0xf, "0-3" },
	{ "0,2-3", 0, 0xd, "0,2-3" },
	{ "3,1", 0, 0xa, "1,3" },
	{ "1-1", 0, 0x2, "1" },
	{ "0-1,1-2", 0, 0x7, "0-2" },
	{ "63", 0, 1ULL << 63, "63" },
	{ "3-1", -EINVAL },
	{ "", -EINVAL },
	{ "a", -EINVAL },
	{ "0-", -EINVAL },
	{ "1;2", -EINVAL },
	{ "-1", -EINVAL },
	{ "1024", -EINVAL },
	{ "0,", -EINVAL },
	{ "0,,1", -EINVAL },
	{ ",0", -EINVAL },
};

static void test_cpulists(void)
{
	uint64_t mask[PMUSCOPE_CPU_WORDS];
	char err[128], out[64];

	for (size_t i = 0; i < sizeof(cpu_cases) / sizeof(cpu_cases[0]); i++) {
		int ret = pmuscope_cpulist_parse(cpu_cases[i].text, mask, PMUSCOPE_CPU_WORDS,
						 err, sizeof(err));
		int ok = ret == cpu_cases[i].ret;

		out[0] = '\0';
		if (ok && !ret) {
			pmuscope_cpulist_format(mask, PMUSCOPE_CPU_WORDS, out, sizeof(out));
			ok = mask[0] == cpu_cases[i].mask && !strcmp(out, cpu_cases[i].canon);
		}
		result(ok, "cpu list '%s' -> %d %s", cpu_cases[i].text, ret, ret ? err : out);
	}
	/* Every other CPU of 1024: the list is cut short, never overrun. */
	for (int w = 0; w < PMUSCOPE_CPU_WORDS; w++)
		mask[w] = 0x5555555555555555ULL;
	memset(out, 'x', sizeof(out));
	pmuscope_cpulist_format(mask, PMUSCOPE_CPU_WORDS, out, 16);
	result(strlen(out) == 15 && !strncmp(out, "0,2,4,6,8,10,12", 15) && out[16] == 'x',
	       "cpu list formatting stops at the buffer's end: '%s'", out);
	pmuscope_cpulist_parse("1000-1001", mask, PMUSCOPE_CPU_WORDS, err, sizeof(err));
	pmuscope_cpulist_format(mask, PMUSCOPE_CPU_WORDS, out, sizeof(out));
	result(!strcmp(out, "1000-1001"), "cpu list beyond the first word: %s", out);
}

/* -------------------------------------------------------------- scaling */
static void test_scale(void)
{
	result(pmuscope_scale(100, 200, 100) == 200, "scale x2");
	result(pmuscope_scale(100, 100, 100) == 100, "no scaling when running == enabled");
	result(pmuscope_scale(100, 100, 0) == 100, "no scaling when never running");
	result(pmuscope_scale(1ULL << 62, 3, 2) == (1ULL << 62) / 2 * 3,
	       "scaling without 64-bit overflow");
}

/* ------------------------------------------------------ metrics, report */
static void sample(struct report *r)
{
	static const struct {
		uint32_t number;
		const char *name, *label;
		uint64_t count;
	} c[] = {
		{ 0x11, "CPU_CYCLES", "cycles", 2000000 },
		{ 0x08, "INST_RETIRED", "instructions", 1000000 },
		{ 0x03, "L1D_CACHE_REFILL", "L1D_CACHE_REFILL", 5000 },
		{ 0x04, "L1D_CACHE", "L1D_CACHE", 250000 },
		{ 0x10, "BR_MIS_PRED", "BR_MIS_PRED", 1000 },
		{ 0x23, "STALL_FRONTEND", "STALL_FRONTEND", 300000 },
		{ 0x24, "STALL_BACKEND", "STALL_BACKEND", 500000 },
		{ 0x11, "CPU_CYCLES", "cycles", 2000000 },		/* :u */
		{ 0x08, "INST_RETIRED", "instructions", 1000000 },
	};
	static char *const cmd[] = { "/bin/loop", "1000", NULL };

	memset(r, 0, sizeof(*r));
	r->kind = REPORT_TOTAL;
	r->elapsed_s = 0.5;
	snprintf(r->cpus, sizeof(r->cpus), "0-1");
	r->ncpus = 2;
	r->cpu_ids[0] = 0;
	r->cpu_ids[1] = 1;
	r->command = cmd;
	r->exit_status = 0;
	r->kernel_el = 1;
	r->ncounters = 9;
	for (int i = 0; i < 9; i++) {
		r->c[i].number = c[i].number;
		r->c[i].flags = PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1;
		r->c[i].name = c[i].name;
		r->c[i].label = c[i].label;
		r->c[i].count = c[i].count;
		r->c[i].cpu_count[0] = c[i].count / 4;
		r->c[i].cpu_count[1] = c[i].count - c[i].count / 4;
		r->c[i].time_enabled = r->c[i].time_running = 1000000000;
	}
	r->c[1].flags = PMUSCOPE_EV_EL0;
	r->c[7].flags = PMUSCOPE_EV_EL0;
	r->c[6].vflags = PMUSCOPE_VAL_THROTTLED;
	r->c[6].cpu_vflags[1] = PMUSCOPE_VAL_THROTTLED;
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void test_metrics(void)
{
	static struct report r;
	struct report_metrics m;

	sample(&r);
	report_metrics(&r, &m);
	result(near(m.ipc, 0.5), "metric IPC = instructions / cycles (%g)", m.ipc);
	result(near(m.l1d_miss_ratio, 0.02), "metric L1D miss ratio = refills / accesses (%g)",
	       m.l1d_miss_ratio);
	result(near(m.l1d_mpki, 5), "metric L1D MPKI = refills per 1000 instructions (%g)",
	       m.l1d_mpki);
	result(isnan(m.branch_miss_ratio), "branch miss ratio needs BR_PRED or BR_RETIRED");
	result(near(m.frontend_stall_ratio, 0.15) && near(m.backend_stall_ratio, 0.25),
	       "stall ratios = stalls / cycles (%g, %g)", m.frontend_stall_ratio,
	       m.backend_stall_ratio);
	r.c[3].number = 0x12;	/* L1D_CACHE -> BR_PRED */
	r.c[3].count = 20000;
	report_metrics(&r, &m);
	result(near(m.branch_miss_ratio, 0.05) && isnan(m.l1d_miss_ratio),
	       "branch miss ratio = BR_MIS_PRED / BR_PRED (%g)", m.branch_miss_ratio);
	r.c[3].number = 0x21;	/* BR_RETIRED, no BR_MIS_PRED_RETIRED */
	report_metrics(&r, &m);
	result(isnan(m.branch_miss_ratio), "no mixing BR_MIS_PRED with BR_RETIRED");
	r.c[0].count = 0;
	r.c[7].count = 0;
	report_metrics(&r, &m);
	result(isnan(m.ipc), "no IPC from zero cycles");
	r.c[1].flags |= PMUSCOPE_EV_RAW;
	r.c[8].flags |= PMUSCOPE_EV_RAW;
	r.c[0].count = 10;
	r.c[7].count = 10;
	report_metrics(&r, &m);
	result(isnan(m.ipc), "a raw event is not taken for an architectural one");

	sample(&r);
	r.c[7].count = 4000000;		/* cycles:u */
	report_metrics(&r, &m);
	result(near(m.ipc, 0.25), "IPC of instructions:u is per cycles:u, not per cycles (%g)",
	       m.ipc);
	r.c[7].flags = PMUSCOPE_EV_EL1;	/* cycles:k */
	report_metrics(&r, &m);
	result(near(m.ipc, 0.5),
	       "instructions:u without cycles:u: IPC of the next instructions that has its cycles (%g)",
	       m.ipc);
	r.c[8].flags = PMUSCOPE_EV_EL1 | PMUSCOPE_EV_EL2;
	report_metrics(&r, &m);
	result(isnan(m.ipc) && isnan(m.l1d_mpki),
	       "no metric from counters of different exception levels");
}

static void test_table(void)
{
	static struct report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char num[32];

	report_thousands(1234567, num, sizeof(num));
	result(!strcmp(num, "1,234,567"), "thousands separators: %s", num);
	report_thousands(999, num, sizeof(num));
	result(!strcmp(num, "999"), "no separator below 1000: %s", num);
	sample(&r);
	report_print(f, &r, REPORT_TABLE, 1);
	fclose(f);
	result(strstr(buf, "Performance counter stats for CPUs 0-1 ('/bin/loop 1000')") != NULL,
	       "table header names CPUs and command");
	result(strstr(buf, "2,000,000      cycles") != NULL, "table counts with separators");
	result(strstr(buf, "instructions:u") && strstr(buf, "0.50  insn per cycle"),
	       "table: IPC beside instructions, modifiers shown");
	free(buf);
	f = open_memstream(&buf, &len);
	r.c[7].count = 4000000;		/* cycles:u */
	report_print(f, &r, REPORT_TABLE, 1);
	fclose(f);
	result(strstr(buf, "instructions:u             #    0.25  insn per cycle") &&
	       strstr(buf, "instructions               #    0.50  insn per cycle"),
	       "table: each instructions row beside the IPC of its own exception levels");
	result(strstr(buf, "2.00% of L1D accesses, 5.00 MPKI") != NULL,
	       "table: L1D miss ratio and MPKI beside refills");
	result(strstr(buf, "25.00% backend cycles idle") && strstr(buf, "[throttled]"),
	       "table: stall ratio and flags");
	result(strstr(buf, "0.500000000 seconds time elapsed") != NULL, "table: elapsed time");
	free(buf);
	/* A VHE host: EL0 and EL2 are user and kernel, the default. */
	f = open_memstream(&buf, &len);
	sample(&r);
	r.kernel_el = 2;
	r.c[0].flags = PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL2;
	report_print(f, &r, REPORT_TABLE, 1);
	fclose(f);
	result(strstr(buf, "2,000,000      cycles\n") && strstr(buf, "instructions:ug\n"),
	       "table on a VHE host: EL0+EL2 is the default, EL1 shown as g");
	free(buf);
}

/* ------------------------------------------------------------ snapshots */
static void test_snap_names(void)
{
	static const struct {
		uint32_t flags;
		const char *text;
	} flag_cases[] = {
		{ 0, "" },
		{ PMUSCOPE_SNAPCPU_LATE, "late" },
		{ PMUSCOPE_SNAPCPU_FALLBACK, "fallback" },
		{ PMUSCOPE_SNAPCPU_OFFLINE, "offline" },
		{ PMUSCOPE_SNAPCPU_OFFLINE | PMUSCOPE_SNAPCPU_LATE, "late,offline" },
		{ PMUSCOPE_SNAPCPU_LATE | PMUSCOPE_SNAPCPU_FALLBACK | PMUSCOPE_SNAPCPU_OFFLINE,
		  "late,fallback,offline" },
		{ PMUSCOPE_SNAPCPU_UNSYNCED, "unsynced" },
		{ PMUSCOPE_SNAPCPU_UNSYNCED | PMUSCOPE_SNAPCPU_FALLBACK, "fallback,unsynced" },
		{ 1U << 4 | 1U << 31, "" },
		{ PMUSCOPE_SNAPCPU_FALLBACK | 1U << 8, "fallback" },
	};
	char buf[64];

	result(!strcmp(pmuscope_snap_method_name(PMUSCOPE_SNAP_HARDWARE), "hardware") &&
	       !strcmp(pmuscope_snap_method_name(PMUSCOPE_SNAP_SOFTWARE), "software") &&
	       !strcmp(pmuscope_snap_method_name(PMUSCOPE_SNAP_PERF), "perf") &&
	       !strcmp(pmuscope_snap_method_name(PMUSCOPE_SNAP_IDLE), "idle"),
	       "snapshot method names: hardware, software, perf, idle");
	result(!strcmp(pmuscope_snap_method_name(0), "unknown") &&
	       !strcmp(pmuscope_snap_method_name(5), "unknown") &&
	       !strcmp(pmuscope_snap_method_name(~0U), "unknown"),
	       "snapshot method numbers unknown to the library: \"unknown\"");
	for (size_t i = 0; i < sizeof(flag_cases) / sizeof(flag_cases[0]); i++) {
		memset(buf, 'x', sizeof(buf));
		pmuscope_snap_flags_str(flag_cases[i].flags, buf, sizeof(buf));
		result(!strcmp(buf, flag_cases[i].text), "snapshot CPU flags %#x -> '%s' (got '%s')",
		       flag_cases[i].flags, flag_cases[i].text, buf);
	}
	memset(buf, 'x', sizeof(buf));
	pmuscope_snap_flags_str(PMUSCOPE_SNAPCPU_LATE | PMUSCOPE_SNAPCPU_FALLBACK, buf, 8);
	result(!strcmp(buf, "late,fa") && buf[8] == 'x',
	       "snapshot CPU flags cut short at the buffer's end: '%s'", buf);
	result(pmuscope_ticks_ns(16, 62500000) == 256 && pmuscope_ticks_ns(1, 24000000) == 42 &&
	       pmuscope_ticks_ns(0, 24000000) == 0 && pmuscope_ticks_ns(5, 0) == 0,
	       "ticks to ns: 16 at 62.5 MHz = 256, 1 at 24 MHz = 42 (rounded), no frequency 0");
	result(pmuscope_ticks_ns(1ULL << 62, 1000000000) == 1ULL << 62 &&
	       pmuscope_ticks_ns(1ULL << 40, 1000) == (1ULL << 40) * 1000000,
	       "ticks to ns without 64-bit overflow in between");
	result(pmuscope_snapshot(NULL, 0, 0, NULL, 0, NULL, 0, &(struct pmuscope_snap){ 0 }) ==
	       -EINVAL, "snapshot of a NULL session: -EINVAL");
}

/* A driver's sysfs with cpuN/snapshot_hw: cpu0 off, 1 ready, 2 absent, 3
 * untried, 4 without the file, 5 timeout. */
static void test_snap_hw(void)
{
	static const char *const states[] = { "off", "ready", "absent", "untried", NULL,
					      "timeout" };
	char tmpl[] = "/tmp/pmuscope-test-XXXXXX", path[300], buf[256], err[64];
	uint64_t cpus[PMUSCOPE_CPU_WORDS] = { 0x3f };
	const char *base = mkdtemp(tmpl);
	int n;

	if (!base) {
		result(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	for (int cpu = 0; cpu < 6; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/cpu%d", base, cpu);
		mkdir(path, 0755);
		if (!states[cpu])
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d/snapshot_hw", base, cpu);
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "%s\n", states[cpu]);
			fclose(f);
		}
	}
	setenv("PMUSCOPE_SYSFS", base, 1);
	result(!pmuscope_snap_hw_state(0, buf, sizeof(buf)) && !strcmp(buf, "off") &&
	       pmuscope_snap_hw_state(4, buf, sizeof(buf)) == -ENOENT && !*buf,
	       "snapshot_hw read from sysfs, -ENOENT without the file");
	result(pmuscope_snap_hw_usable("untried") && pmuscope_snap_hw_usable("ready") &&
	       pmuscope_snap_hw_usable("kvm-vcpu") && !pmuscope_snap_hw_usable("off") && !pmuscope_snap_hw_usable("absent") &&
	       !pmuscope_snap_hw_usable("under-el2") && !pmuscope_snap_hw_usable("prohibited") &&
	       !pmuscope_snap_hw_usable("timeout") && !pmuscope_snap_hw_usable("stale") &&
	       !pmuscope_snap_hw_usable(""),
	       "hardware snapshot usable when untried, ready or kvm-vcpu only");
	n = pmuscope_snap_hw_explain(cpus, PMUSCOPE_CPU_WORDS, buf, sizeof(buf));
	result(n == 3 && !strcmp(buf, "cpu0: hardware snapshot off, cpu2: hardware snapshot absent, "
				      "cpu5: hardware snapshot timeout"),
	       "the CPUs without a usable hardware snapshot named with their state (%d): %s", n, buf);
	cpus[0] = 0x1a;		/* 1, 3, 4 */
	n = pmuscope_snap_hw_explain(cpus, PMUSCOPE_CPU_WORDS, buf, sizeof(buf));
	result(n == 0 && !*buf, "none named where every state is usable or unknown (%d '%s')",
	       n, buf);
	cpus[0] = 0x3f;
	memset(err, 'x', sizeof(err));
	n = pmuscope_snap_hw_explain(cpus, PMUSCOPE_CPU_WORDS, err, 40);
	result(n == 3 && !strcmp(err, "cpu0: hardware snapshot off, ...") && err[40] == 'x',
	       "a full buffer ends in ', ...', every CPU still counted (%d): %s", n, err);
	setenv("PMUSCOPE_SYSFS", "/nonexistent/pmuscope-test", 1);
	snprintf(path, sizeof(path), "rm -rf '%s'", base);
	if (system(path))
		result(0, "removing %s", base);
}

/*
 * A snapshot of 3 events (cycles, instructions:u, cycles again) on CPUs
 * 0, 1 and 3: cpu0 hardware, cpu1 software and late, cpu3 offline.
 */
static struct pmuscope_event_spec snap_evs[3];
static struct report_snap_cpu snap_rows[3];

static void snap_sample(struct report_snapshot *s, unsigned int seq)
{
	static const char *const names[] = { "cycles", "instructions:u", "cycles" };
	static const struct pmuscope_snap_info info[] = {
		{ .cpu = 0, .method = PMUSCOPE_SNAP_HARDWARE, .time = 1000000, .skew = 0 },
		{ .cpu = 1, .method = PMUSCOPE_SNAP_SOFTWARE, .flags = PMUSCOPE_SNAPCPU_LATE,
		  .time = 1000016, .skew = 16, .frozen = 12 },
		{ .cpu = 3, .method = PMUSCOPE_SNAP_IDLE, .flags = PMUSCOPE_SNAPCPU_OFFLINE },
	};
	struct pmuscope_count vals[9];
	char err[128];

	for (int i = 0; i < 3; i++)
		pmuscope_event_parse(names[i], &snap_evs[i], err, sizeof(err));
	/* CPU by CPU as the driver gives them; cpu3's out of place. */
	for (int v = 0; v < 9; v++) {
		int k = v < 6 ? v / 3 : 2;

		vals[v] = (struct pmuscope_count){
			.cpu = info[k].cpu, .index = v % 3,
			.count = 1000 * (seq + 1) * (k + 1) + v % 3,
			.time_enabled = 100, .time_running = 100,
		};
		vals[v].scaled = vals[v].count;
	}
	vals[8].flags = PMUSCOPE_VAL_OFFLINE;
	vals[7].scaled = 2 * vals[7].count;
	vals[7].flags = PMUSCOPE_VAL_MULTIPLEXED | PMUSCOPE_VAL_OFFLINE;
	vals[6].index = 2;	/* 6 and 8 swapped */
	vals[8].index = 0;
	memset(s, 0, sizeof(*s));
	s->seq = seq;
	s->time_s = 0.1 * (seq + 1);
	s->freq = 62500000;
	s->skew = 16;
	s->kernel_el = 1;
	s->nevents = 3;
	s->evs = snap_evs;
	s->ncpus = 3;
	s->cpus = snap_rows;
	report_snap_fill(snap_rows, info, 3, vals, 9, 3);
}

static void test_snap_report(void)
{
	static const char head[] =
		"snapshot at 1000000 ticks (62500000 Hz): skew 16 ticks (256 ns), "
		"methods: hardware (CPU 0), software (CPU 1), idle (CPU 3)\n\n";
	struct report_snapshot s;
	char key[96], *buf = NULL;
	size_t len = 0;
	FILE *f;

	snap_sample(&s, 0);
	report_event_key(snap_evs, 0, 1, key, sizeof(key));
	result(!strcmp(key, "cycles"), "snapshot key of cycles: %s", key);
	report_event_key(snap_evs, 1, 1, key, sizeof(key));
	result(!strcmp(key, "instructions:u"), "snapshot key with modifiers: %s", key);
	report_event_key(snap_evs, 2, 1, key, sizeof(key));
	result(!strcmp(key, "cycles#2"), "snapshot key of an event given twice: %s", key);
	result(snap_rows[0].count[0] == 1000 && snap_rows[0].count[2] == 1002 &&
	       snap_rows[1].count[1] == 2001 && snap_rows[1].info.cpu == 1,
	       "snapshot values go to their CPU and event");
	result(snap_rows[2].info.cpu == 3 && snap_rows[2].count[0] == 3002 &&
	       snap_rows[2].count[2] == 3000 && snap_rows[2].count[1] == 2 * 3001 &&
	       snap_rows[2].vflags[0] == PMUSCOPE_VAL_OFFLINE,
	       "snapshot values out of order: by their index; the scaled count");
	result(report_snap_time(&s) == 1000000, "snapshot time: the earliest of the CPUs online");

	f = open_memstream(&buf, &len);
	report_snapshot_print(f, &s, REPORT_TABLE, 1);
	fclose(f);
	result(!strncmp(buf, head, strlen(head)),
	       "snapshot table header: time, frequency, skew, the methods and their CPUs");
	result(strstr(buf, "\nCPU  METHOD      TIME SKEW SKEW_NS FROZEN SPREAD FLAGS   cycles "
			   "instructions:u cycles#2\n") != NULL,
	       "snapshot table columns: the event keys");
	result(strstr(buf, "\n1    software 1000016   16     256     12      0 late     2,000 "
			   "         2,001    2,002\n") != NULL,
	       "snapshot table row: skew in ticks and ns, frozen, flags, counts");
	result(strstr(buf, "\n0    hardware 1000000    0       0      0      0 -        1,000 ") &&
	       strstr(buf, "\n3    idle           0    0       0      0      0 offline  3,002 "
			   "         6,002    3,000  [multiplexed,offline]\n"),
	       "snapshot table: no CPU flags as '-', value flags at the end of the row");
	free(buf);

	for (unsigned int k = 0; k < 3; k++)
		snap_rows[k].info.method = PMUSCOPE_SNAP_SOFTWARE;
	s.freq = 0;
	f = open_memstream(&buf, &len);
	report_snapshot_print(f, &s, REPORT_TABLE, 1);
	fclose(f);
	result(strstr(buf, "skew 16 ticks (? ns), methods: software\n") != NULL,
	       "snapshot table: one method named alone; no frequency, no ns");
	free(buf);
}

/* ------------------------------------------------------ stream records */
/* Put a record of @nr counts at @buf + @off; returns its size. */
static size_t put_rec(unsigned char *buf, size_t off, uint16_t type, uint32_t cpu,
		      uint64_t pc, uint32_t nr, uint64_t first)
{
	struct pmuscope_record r = {
		.type = type, .size = 48 + 8 * nr, .cpu = cpu, .time = 1000 + off,
		.pid = 42, .tid = 43, .pc = pc, .value = type == PMUSCOPE_REC_LOST ? 7 : 0,
		.flags = PMUSCOPE_REC_F_USER, .nr = nr,
	};

	memcpy(buf + off, &r, sizeof(r));
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t v = first + i;

		memcpy(buf + off + 48 + 8 * i, &v, 8);
	}
	return r.size;
}

static void test_records(void)
{
	unsigned char buf[512 + 8], *odd = buf + 4;	/* unaligned on purpose */
	struct pmuscope_rec rec;
	struct pmuscope_record hdr;
	char err[160];
	size_t len = 0, off = 0;
	int n = 0, ret;
	uint64_t sum = 0;

	len += put_rec(odd, len, PMUSCOPE_REC_SAMPLE, 1, 0x400123, 2, 100);
	len += put_rec(odd, len, PMUSCOPE_REC_LOST, 0, 0, 0, 0);
	len += put_rec(odd, len, PMUSCOPE_REC_THROTTLED, 3, 0, 0, 0);
	len += put_rec(odd, len, 99, 2, 0, 1, 5);	/* a newer type: returned as is */
	while ((ret = pmuscope_record_next(odd, len, &off, &rec, err, sizeof(err))) == 1) {
		n++;
		for (uint32_t i = 0; i < rec.nr; i++)
			sum += pmuscope_rec_count(&rec, i);
		if (n == 1)
			result(rec.type == PMUSCOPE_REC_SAMPLE && rec.size == 64 && rec.cpu == 1 &&
			       rec.pid == 42 && rec.tid == 43 && rec.pc == 0x400123 && rec.nr == 2 &&
			       pmuscope_rec_count(&rec, 1) == 101 && pmuscope_rec_count(&rec, 2) == 0,
			       "records: a sample's fields and counts, unaligned");
		if (n == 2)
			result(rec.type == PMUSCOPE_REC_LOST && rec.value == 7 && rec.size == 48,
			       "records: a LOST record and its value");
	}
	result(ret == 0 && n == 4 && off == len && sum == 100 + 101 + 5,
	       "records: four walked, the unknown type too, then the end (%d, %d)", ret, n);
	result(!strcmp(pmuscope_rec_type_name(PMUSCOPE_REC_THROTTLED), "throttled") &&
	       !strcmp(pmuscope_rec_type_name(99), "unknown"), "records: type names");

	/* Cut short: in the fixed part, then in the counts. */
	off = 0;
	ret = pmuscope_record_next(odd, 40, &off, &rec, err, sizeof(err));
	result(ret == -EBADMSG && off == 0 && strstr(err, "cut short: 40 bytes left"),
	       "records: 40 bytes are no record (%s)", err);
	off = 0;
	ret = pmuscope_record_next(odd, 56, &off, &rec, err, sizeof(err));
	result(ret == -EBADMSG && strstr(err, "cut short: size 64, 56 bytes left"),
	       "records: a record past the end (%s)", err);

	/* Bad sizes: below 48, not a multiple of 8, not 48 + 8 x nr. */
	put_rec(odd, 0, PMUSCOPE_REC_SAMPLE, 0, 0, 1, 0);
	memcpy(&hdr, odd, sizeof(hdr));
	hdr.size = 40;
	memcpy(odd, &hdr, sizeof(hdr));
	off = 0;
	ret = pmuscope_record_next(odd, 56, &off, &rec, err, sizeof(err));
	result(ret == -EBADMSG && strstr(err, "size 40 is below 48"), "records: size 40 (%s)", err);
	hdr.size = 52;
	memcpy(odd, &hdr, sizeof(hdr));
	ret = pmuscope_record_next(odd, 56, &off, &rec, err, sizeof(err));
	result(ret == -EBADMSG && strstr(err, "size 52 is not a multiple of 8"),
	       "records: size 52 (%s)", err);
	hdr.size = 64;
	hdr.nr = 3;
	memcpy(odd, &hdr, sizeof(hdr));
	ret = pmuscope_record_next(odd, 72, &off, &rec, err, sizeof(err));
	result(ret == -EBADMSG && strstr(err, "does not hold its 3 counts (72 bytes)"),
	       "records: size 64 with 3 counts (%s)", err);
	/* The second of two records is bad: the first is returned, then the error. */
	len = put_rec(odd, 0, PMUSCOPE_REC_SAMPLE, 0, 0, 1, 0);
	len += put_rec(odd, len, PMUSCOPE_REC_SAMPLE, 0, 0, 1, 0);
	memcpy(&hdr, odd + 56, sizeof(hdr));
	hdr.nr = 3;
	memcpy(odd + 56, &hdr, sizeof(hdr));
	off = 0;
	ret = pmuscope_record_next(odd, len, &off, &rec, err, sizeof(err));
	result(ret == 1 && off == 56, "records: the good one before a bad one");
	ret = pmuscope_record_next(odd, len, &off, &rec, err, sizeof(err));
	result(ret == -EBADMSG && off == 56 && strstr(err, "record at byte 56"),
	       "records: the bad one named by its offset (%s)", err);
	off = 0;
	result(pmuscope_record_next(odd, 0, &off, &rec, err, sizeof(err)) == 0,
	       "records: an empty buffer has none");
	result(pmuscope_stream_read(NULL, buf, sizeof(buf), 0) == -EINVAL &&
	       pmuscope_stream_start(NULL, NULL) == -EINVAL && pmuscope_fd(NULL) == -1,
	       "streams: a NULL session gives -EINVAL");
}

/* A chain header at @p: version, size, frames; then the frames 0x1000 + i. */
static size_t put_chain(unsigned char *p, uint16_t version, uint16_t size, uint16_t nk,
			uint16_t nu, uint32_t flags)
{
	struct pmuscope_rec_chain c = {
		.version = version, .size = size, .nr_kernel = nk, .nr_user = nu, .flags = flags,
	};

	memcpy(p, &c, sizeof(c));
	for (unsigned int i = 0; i < (unsigned int)nk + nu; i++) {
		uint64_t v = (i < nk ? 0xffff800080001000ULL : 0x400000ULL) + i;

		memcpy(p + sizeof(c) + 8 * i, &v, 8);
	}
	return sizeof(c) + 8 * ((size_t)nk + nu);
}

/* A SAMPLE of @nr counts, then a chain (put_chain()), @extra bytes after; its size. */
static size_t put_chain_rec(unsigned char *buf, size_t off, uint32_t nr, uint16_t version,
			    uint16_t csize, uint16_t nk, uint16_t nu, size_t extra)
{
	size_t n = put_rec(buf, off, PMUSCOPE_REC_SAMPLE, 1, 0x400100, nr, 10);
	struct pmuscope_record r;

	n += put_chain(buf + off + n, version, csize, nk, nu, PMUSCOPE_CHAIN_F_USER_END);
	memset(buf + off + n, 0, extra);
	n += extra;
	memcpy(&r, buf + off, sizeof(r));
	r.size = n;
	r.flags |= PMUSCOPE_REC_F_CHAIN;
	memcpy(buf + off, &r, sizeof(r));
	return n;
}

static void test_chains(void)
{
	unsigned char buf[1024 + 8], *odd = buf + 4;	/* unaligned on purpose */
	struct pmuscope_rec rec;
	struct pmuscope_record hdr;
	struct pmuscope_chain ch;
	char err[200];
	size_t len, off;
	int ret;

	/* Counts, then 1 kernel and 2 user frames; a task session's (nr 0) too. */
	len = put_chain_rec(odd, 0, 2, 1, 16, 1, 2, 0);
	len += put_chain_rec(odd, len, 0, 1, 16, 0, 3, 0);
	off = 0;
	ret = pmuscope_record_next(odd, len, &off, &rec, err, sizeof(err));
	result(ret == 1 && rec.size == 48 + 16 + 16 + 24 && rec.nr == 2 &&
	       pmuscope_rec_count(&rec, 1) == 11, "chains: a sample with counts and a chain");
	ret = pmuscope_record_chain(&rec, &ch);
	result(ret == 1 && ch.version == 1 && ch.nr_kernel == 1 && ch.nr_user == 2 &&
	       ch.flags == PMUSCOPE_CHAIN_F_USER_END &&
	       pmuscope_chain_ip(&ch, 0) == 0xffff800080001000ULL &&
	       pmuscope_chain_ip(&ch, 2) == 0x400002 && pmuscope_chain_ip(&ch, 3) == 0,
	       "chains: its frames, kernel first, unaligned; none past the last (%d)", ret);
	ret = pmuscope_record_next(odd, len, &off, &rec, err, sizeof(err));
	result(ret == 1 && rec.nr == 0 && pmuscope_record_chain(&rec, &ch) == 1 &&
	       ch.nr_user == 3 && pmuscope_chain_ip(&ch, 0) == 0x400000 && off == len,
	       "chains: a task session's sample (nr 0) with a chain");

	/* Longer than its counts without a chain: newer readers' bytes, skipped. */
	put_rec(odd, 0, PMUSCOPE_REC_SAMPLE, 0, 0, 1, 0);
	memcpy(&hdr, odd, sizeof(hdr));
	hdr.size = 48 + 8 + 16;
	memcpy(odd, &hdr, sizeof(hdr));
	memset(odd + 56, 0xee, 16);
	len = hdr.size + put_rec(odd, hdr.size, PMUSCOPE_REC_LOST, 0, 0, 0, 0);
	off = 0;
	ret = pmuscope_record_next(odd, len, &off, &rec, err, sizeof(err));
	result(ret == 1 && off == 72 && pmuscope_record_chain(&rec, &ch) == 0 && !ch.ips &&
	       pmuscope_record_next(odd, len, &off, &rec, err, sizeof(err)) == 1 &&
	       rec.type == PMUSCOPE_REC_LOST, "chains: extra bytes without a chain are skipped");
	/* A chain, then bytes for newer readers. */
	len = put_chain_rec(odd, 0, 1, 1, 16, 0, 1, 16);
	off = 0;
	ret = pmuscope_record_next(odd, len, &off, &rec, err, sizeof(err));
	result(ret == 1 && off == len && pmuscope_record_chain(&rec, &ch) == 1 && ch.nr_user == 1,
	       "chains: bytes after the chain are skipped (%d)", ret);
	/* A newer chain layout: the record is read, its chain skipped. */
	len = put_chain_rec(odd, 0, 1, 2, 24, 0, 1, 0);
	off = 0;
	ret = pmuscope_record_next(odd, len, &off, &rec, err, sizeof(err));
	result(ret == 1 && pmuscope_record_chain(&rec, &ch) == 0 && ch.nr_user == 0,
	       "chains: version 2 is skipped (%d %s)", ret, ret < 0 ? err : "");

	/* Bad chains, each named by its offset: a good record first, then the bad one. */
	{
		static const struct {
			uint16_t version, csize, nk, nu;
			int cut;	/* record size in bytes less than the chain needs */
			const char *want, *name;
		} bad[] = {
			{ 1, 16, 0, 1, 16, "call chain at byte 136: 8 bytes of the record left, its header has 16", "no room for the header" },
			{ 0, 16, 0, 1, 0, "call chain at byte 136: version 0", "version 0" },
			{ 1, 24, 0, 1, 0, "call chain at byte 136: size 24, version 1's is 16", "version 1 of size 24" },
			{ 1, 16, 2, 2, 8, "call chain at byte 136: 2 kernel and 2 user frames (48 bytes) in the record's 40 bytes left", "frames past the record" },
			{ 3, 40, 0, 1, 0, "call chain at byte 136: version 3 of size 40", "a newer version larger than the record" },
			{ 3, 20, 0, 1, 0, "call chain at byte 136: version 3 of size 20", "a newer version of size 20" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			size_t first = put_chain_rec(odd, 0, 1, 1, 16, 1, 1, 0);

			len = first + put_chain_rec(odd, first, 0, bad[i].version, bad[i].csize,
						    bad[i].nk, bad[i].nu, 0);
			memcpy(&hdr, odd + first, sizeof(hdr));
			hdr.size -= bad[i].cut;
			memcpy(odd + first, &hdr, sizeof(hdr));
			len -= bad[i].cut;
			off = 0;
			ret = pmuscope_record_next(odd, len, &off, &rec, err, sizeof(err));
			ret = ret == 1 ? pmuscope_record_next(odd, len, &off, &rec, err,
							      sizeof(err)) : 99;
			result(first == 88 && ret == -EBADMSG && off == 88 && strstr(err, bad[i].want),
			       "chains: refused: %s (%s)", bad[i].name, err);
		}
	}

	/* pmuscope_record_chain() on records it did not check. */
	memset(&rec, 0, sizeof(rec));
	result(pmuscope_record_chain(NULL, &ch) == -EINVAL &&
	       pmuscope_record_chain(&rec, NULL) == -EINVAL, "chains: NULL arguments");
	rec.flags = PMUSCOPE_REC_F_CHAIN;
	rec.size = 48;
	rec.counts = odd + 48;
	result(pmuscope_record_chain(&rec, &ch) == -EBADMSG && pmuscope_chain_ip(&ch, 0) == 0 &&
	       pmuscope_chain_ip(NULL, 0) == 0,
	       "chains: a record too short for its chain flag: -EBADMSG");
}

/*
 * pmuscope_stream_start2() against fake_pmuscope.so: this program run
 * again with it preloaded (--stream2), its PASS and FAIL lines taken as
 * ours. In that run, each case opens a session of the features it sets.
 */
static struct pmuscope *stream2_open(uint64_t features, int task)
{
	struct pmuscope_event_spec ev;
	struct pmuscope *h = NULL;
	uint64_t cpus = 3;
	char buf[40], err[256];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)features);
	setenv("FAKE_PMUSCOPE_FEATURES", buf, 1);
	if (pmuscope_open(&h, err, sizeof(err)) ||
	    pmuscope_event_parse("cycles", &ev, err, sizeof(err)) ||
	    (task ? pmuscope_configure_task(h, &ev, 1, 0, 0) :
		    pmuscope_configure(h, &ev, 1, &cpus, 1))) {
		result(0, "stream2: a session of features 0x%s: %s", buf,
		       h ? pmuscope_errmsg(h) : err);
		pmuscope_close(h);
		return NULL;
	}
	return h;
}

static void stream2_run(void)
{
	const uint64_t base = PMUSCOPE_FEAT_PMU | PMUSCOPE_FEAT_TASK | PMUSCOPE_FEAT_STREAM;
	struct pmuscope_stream_cfg cfg = {
		.sample_index = 0, .sample_period = 10000,
	};
	static unsigned char buf[65536];
	struct pmuscope *h;
	struct pmuscope_rec rec;
	struct pmuscope_chain ch;
	char err[160];
	size_t off = 0;
	ssize_t n;
	int ret, chains = 0, bad = 0;

	h = stream2_open(base | PMUSCOPE_FEAT_CALLCHAIN, 0);
	if (!h)
		return;
	ret = pmuscope_stream_start2(h, &cfg, 2, 0);
	result(ret == -EINVAL && strstr(pmuscope_errmsg(h), "unknown flags 0x2"),
	       "stream2: an unknown flag (%s)", pmuscope_errmsg(h));
	ret = pmuscope_stream_start2(h, &cfg, 0, 5);
	result(ret == -EINVAL && strstr(pmuscope_errmsg(h), "at most 5 frames"),
	       "stream2: max_stack without CALLCHAIN (%s)", pmuscope_errmsg(h));
	ret = pmuscope_stream_start2(h, &cfg, PMUSCOPE_STREAM_F_CALLCHAIN, 128);
	result(ret == -EINVAL && strstr(pmuscope_errmsg(h), "want 1 to 127"),
	       "stream2: max_stack 128 (%s)", pmuscope_errmsg(h));
	/* Two frames at most: the fake cuts its three user frames to two. */
	ret = pmuscope_stream_start2(h, &cfg, PMUSCOPE_STREAM_F_CALLCHAIN, 2);
	ret = ret ?: pmuscope_enable(h);
	n = ret ? ret : pmuscope_stream_read(h, buf, sizeof(buf), 1000);
	while (n > 0 && (ret = pmuscope_record_next(buf, n, &off, &rec, err, sizeof(err))) == 1) {
		if (rec.type != PMUSCOPE_REC_SAMPLE)
			continue;
		if (pmuscope_record_chain(&rec, &ch) == 1 && ch.nr_user == 2 &&
		    (ch.flags & PMUSCOPE_CHAIN_F_TRUNCATED) && pmuscope_chain_ip(&ch, 0) == rec.pc)
			chains++;
		else
			bad++;
	}
	result(n > 0 && ret == 0 && chains > 0 && !bad,
	       "stream2: CALLCHAIN of 2 frames: %d samples with chains, %d without (%zd)",
	       chains, bad, n);
	pmuscope_close(h);

	h = stream2_open(base | PMUSCOPE_FEAT_BACKEND_PERF, 0);
	if (h) {
		ret = pmuscope_stream_start2(h, &cfg, PMUSCOPE_STREAM_F_CALLCHAIN, 0);
		result(ret == -EOPNOTSUPP &&
		       strstr(pmuscope_errmsg(h), "records no call chains on its perf backend (no PMUSCOPE_FEAT_CALLCHAIN)"),
		       "stream2: no CALLCHAIN: said, with the backend (%s)", pmuscope_errmsg(h));
		pmuscope_close(h);
	}
	h = stream2_open(base, 1);
	if (h) {
		ret = pmuscope_stream_start(h, &cfg);
		result(ret == -EOPNOTSUPP &&
		       strstr(pmuscope_errmsg(h), "cannot sample a task on its direct backend (no PMUSCOPE_FEAT_STREAM_TASK)"),
		       "stream2: a task session without STREAM_TASK (%s)", pmuscope_errmsg(h));
		pmuscope_close(h);
	}
	h = stream2_open(base | PMUSCOPE_FEAT_STREAM_TASK, 1);
	if (h) {
		ret = pmuscope_stream_start(h, &cfg);
		ret = ret ?: pmuscope_enable(h);
		n = ret ? ret : pmuscope_stream_read(h, buf, sizeof(buf), 1000);
		off = 0;
		bad = chains = 0;
		while (n > 0 && pmuscope_record_next(buf, n, &off, &rec, err, sizeof(err)) == 1)
			if (rec.type == PMUSCOPE_REC_SAMPLE)
				rec.nr == 0 && rec.pid == (uint32_t)getpid() ? chains++ : bad++;
		result(n > 0 && chains > 0 && !bad,
		       "stream2: a task session streams: %d samples of nr 0, %d else (%s)", chains,
		       bad, ret ? pmuscope_errmsg(h) : "ok");
		pmuscope_close(h);
	}
	h = stream2_open(PMUSCOPE_FEAT_PMU | PMUSCOPE_FEAT_BACKEND_PERF, 0);
	if (h) {
		ret = pmuscope_stream_start(h, &cfg);
		result(ret == -EOPNOTSUPP &&
		       strstr(pmuscope_errmsg(h), "no PMUSCOPE_FEAT_STREAM) on its perf backend: load a pmuscope.ko of API 7 or later") &&
		       strstr(pmuscope_errmsg(h), "backend=direct"),
		       "stream2: no streams at all: backend and remedy (%s)", pmuscope_errmsg(h));
		pmuscope_close(h);
	}
}

static void test_stream2(const char *self)
{
	char fake[600], *dir, line[1024];
	int fds[2], st, n = 0;
	FILE *f;
	pid_t pid;

	snprintf(fake, sizeof(fake), "%s", self);
	dir = strrchr(fake, '/');
	if (!dir || pipe(fds)) {
		result(0, "stream2: cannot run %s again", self);
		return;
	}
	snprintf(dir + 1, sizeof(fake) - (dir + 1 - fake), "fake_pmuscope.so");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		setenv("LD_PRELOAD", fake, 1);
		execl(self, self, "--stream2", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "PASS ", 5) || !strncmp(line, "FAIL ", 5)) {
			result(line[0] == 'P', "%s", line + 5);
			n++;
		}
	}
	if (f)
		fclose(f);
	waitpid(pid, &st, 0);
	result(n == 8, "stream2: 8 cases ran against %s (%d)", fake, n);
}

/* ------------------------------------------------------ Activity Monitors */
/* A READ_OK record of @cpu: 4 group-0 counters, all enabled, no group 1. */
static struct pmuscope_amu_cpu amu_rec(uint32_t cpu, uint64_t time, uint64_t core,
				       uint64_t cnst, uint64_t inst, uint64_t mem)
{
	struct pmuscope_amu_cpu r = {
		.cpu = cpu, .state = PMUSCOPE_AMU_READ_OK, .version = 1,
		.nr_group0 = 4, .enabled0 = 0xf, .time = time,
		.type0 = { 0x0011, 0x4004, 0x0008, 0x4005 },
	};

	r.group0[PMUSCOPE_AMU_CORE_CYCLES] = core;
	r.group0[PMUSCOPE_AMU_CONST_CYCLES] = cnst;
	r.group0[PMUSCOPE_AMU_INST_RETIRED] = inst;
	r.group0[PMUSCOPE_AMU_MEM_STALL] = mem;
	return r;
}

/* What a case changes in the records before the metrics. */
enum amu_tweak {
	AMU_PLAIN, AMU_CONST_BROKEN_B, AMU_CONST_BROKEN_A, AMU_MEM_DISABLED, AMU_THREE_G0,
	AMU_CORE_DISABLED_A, AMU_LOST_B, AMU_LOST_A, AMU_ABSENT_A, AMU_OFFLINE_B,
	AMU_DISABLED_B,
};

#define AMU_NAN	(-1.0)	/* expected unavailable */

static const struct amu_case {
	const char *what;
	enum amu_tweak tweak;
	uint64_t freq, dtime, dcore, dconst, dinst, dmem;
	double hz, busy, ipc, mem;
	uint8_t why[PMUSCOPE_AMU_NR_METRICS];
} amu_cases[] = {
	{ "2e9 core / 1e9 const at 1 GHz: 2000 MHz, half busy, IPC 1.5, 25% stalled",
	  AMU_PLAIN, 1000000000, 2000000000, 2000000000, 1000000000, 3000000000, 500000000,
	  2e9, 0.5, 1.5, 0.25 },
	{ "25 MHz system counter, busy all along: 3000 MHz, busy 1, IPC 0.5, 10%",
	  AMU_PLAIN, 25000000, 25000000, 3000000000, 25000000, 1500000000, 300000000,
	  3e9, 1.0, 0.5, 0.1 },
	{ "a third: the remainder's fraction", AMU_PLAIN, 1, 3, 1, 3, 2, 1,
	  1.0 / 3.0, 1.0, 2.0, 1.0 },
	{ "2^63 core / 2^62 const at 1 GHz: no 64-bit overflow",
	  AMU_PLAIN, 1000000000, 1ULL << 62, 1ULL << 63, 1ULL << 62, 1ULL << 62, 1ULL << 61,
	  2e9, 1.0, 0.5, 0.25 },
	{ "idle all along: no cycles to divide by, busy 0", AMU_PLAIN, 1000000000, 1000000000,
	  0, 0, 0, 0, AMU_NAN, 0.0, AMU_NAN, AMU_NAN,
	  { PMUSCOPE_AMU_WHY_ZERO, 0, PMUSCOPE_AMU_WHY_ZERO, PMUSCOPE_AMU_WHY_ZERO } },
	{ "no time between the reads: busy unavailable", AMU_PLAIN, 1000000000, 0,
	  10, 5, 10, 1, 2e9, AMU_NAN, 1.0, 0.1, { 0, PMUSCOPE_AMU_WHY_ZERO } },
	{ "frequency 0: the effective frequency unavailable", AMU_PLAIN, 0, 100,
	  10, 5, 10, 1, AMU_NAN, 0.05, 1.0, 0.1, { PMUSCOPE_AMU_WHY_ZERO } },
	{ "CONST_BROKEN on the later record: frequency and busy unavailable",
	  AMU_CONST_BROKEN_B, 1000000000, 2000000000, 2000000000, 1000000000, 3000000000,
	  500000000, AMU_NAN, AMU_NAN, 1.5, 0.25,
	  { PMUSCOPE_AMU_WHY_CONST_BROKEN, PMUSCOPE_AMU_WHY_CONST_BROKEN } },
	{ "CONST_BROKEN on the earlier record only: the same", AMU_CONST_BROKEN_A, 1000000000, 2000000000,
	  2000000000, 1000000000, 3000000000, 500000000, AMU_NAN, AMU_NAN, 1.5, 0.25,
	  { PMUSCOPE_AMU_WHY_CONST_BROKEN, PMUSCOPE_AMU_WHY_CONST_BROKEN } },
	{ "memory stall counter disabled by firmware", AMU_MEM_DISABLED, 1000000000, 2000000000,
	  2000000000, 1000000000, 3000000000, 500000000, 2e9, 0.5, 1.5, AMU_NAN,
	  { 0, 0, 0, PMUSCOPE_AMU_WHY_NO_COUNTER } },
	{ "only 3 group-0 counters", AMU_THREE_G0, 1000000000, 2000000000,
	  2000000000, 1000000000, 3000000000, 500000000, 2e9, 0.5, 1.5, AMU_NAN,
	  { 0, 0, 0, PMUSCOPE_AMU_WHY_NO_COUNTER } },
	{ "core cycles disabled in the earlier record: all but busy", AMU_CORE_DISABLED_A,
	  1000000000, 2000000000, 2000000000, 1000000000, 3000000000, 500000000,
	  AMU_NAN, 0.5, AMU_NAN, AMU_NAN,
	  { PMUSCOPE_AMU_WHY_NO_COUNTER, 0, PMUSCOPE_AMU_WHY_NO_COUNTER,
	    PMUSCOPE_AMU_WHY_NO_COUNTER } },
	{ "LOST on the later record: every metric lost, no number", AMU_LOST_B, 1000000000,
	  2000000000, 2000000000, 1000000000, 3000000000, 500000000,
	  AMU_NAN, AMU_NAN, AMU_NAN, AMU_NAN,
	  { PMUSCOPE_AMU_WHY_LOST, PMUSCOPE_AMU_WHY_LOST, PMUSCOPE_AMU_WHY_LOST,
	    PMUSCOPE_AMU_WHY_LOST } },
	{ "LOST on the earlier record only: an earlier interval's", AMU_LOST_A, 1000000000,
	  2000000000, 2000000000, 1000000000, 3000000000, 500000000, 2e9, 0.5, 1.5, 0.25 },
	{ "earlier record ABSENT: not read", AMU_ABSENT_A, 1000000000, 2000000000, 2000000000,
	  1000000000, 3000000000, 500000000, AMU_NAN, AMU_NAN, AMU_NAN, AMU_NAN,
	  { PMUSCOPE_AMU_WHY_NOT_READ, PMUSCOPE_AMU_WHY_NOT_READ, PMUSCOPE_AMU_WHY_NOT_READ,
	    PMUSCOPE_AMU_WHY_NOT_READ } },
	{ "later record OFFLINE: not read", AMU_OFFLINE_B, 1000000000, 2000000000, 2000000000,
	  1000000000, 3000000000, 500000000, AMU_NAN, AMU_NAN, AMU_NAN, AMU_NAN,
	  { PMUSCOPE_AMU_WHY_NOT_READ, PMUSCOPE_AMU_WHY_NOT_READ, PMUSCOPE_AMU_WHY_NOT_READ,
	    PMUSCOPE_AMU_WHY_NOT_READ } },
	{ "later record DISABLED (LOST too): not read first", AMU_DISABLED_B, 1000000000,
	  2000000000, 2000000000, 1000000000, 3000000000, 500000000,
	  AMU_NAN, AMU_NAN, AMU_NAN, AMU_NAN,
	  { PMUSCOPE_AMU_WHY_NOT_READ, PMUSCOPE_AMU_WHY_NOT_READ, PMUSCOPE_AMU_WHY_NOT_READ,
	    PMUSCOPE_AMU_WHY_NOT_READ } },
};

static int amu_same(double got, double want)
{
	return want == AMU_NAN ? isnan(got) : got == want;	/* exact */
}

static void test_amu_metrics(void)
{
	static const uint64_t base = 1000000000000ULL;
	struct pmuscope_amu_cpu a, b;
	struct pmuscope_amu_metrics m;
	char buf[32];
	int ret;

	for (size_t i = 0; i < sizeof(amu_cases) / sizeof(amu_cases[0]); i++) {
		const struct amu_case *c = &amu_cases[i];
		double want[] = { c->hz, c->busy, c->ipc, c->mem };
		int ok;

		a = amu_rec(3, base, base, base, base, base);
		b = amu_rec(3, base + c->dtime, base + c->dcore, base + c->dconst,
			    base + c->dinst, base + c->dmem);
		switch (c->tweak) {
		case AMU_CONST_BROKEN_B:
			b.flags |= PMUSCOPE_AMU_F_CONST_BROKEN;
			break;
		case AMU_CONST_BROKEN_A:
			a.flags |= PMUSCOPE_AMU_F_CONST_BROKEN;
			break;
		case AMU_MEM_DISABLED:
			a.enabled0 = b.enabled0 = 0x7;
			a.group0[3] = b.group0[3] = 0;	/* a disabled counter reads 0 */
			break;
		case AMU_THREE_G0:
			a.nr_group0 = b.nr_group0 = 3;
			break;
		case AMU_CORE_DISABLED_A:
			a.enabled0 = 0xe;
			break;
		case AMU_LOST_B:
			b.flags |= PMUSCOPE_AMU_F_LOST;
			break;
		case AMU_LOST_A:
			a.flags |= PMUSCOPE_AMU_F_LOST;
			break;
		case AMU_ABSENT_A:
			a.state = PMUSCOPE_AMU_ABSENT;
			break;
		case AMU_OFFLINE_B:
			b.state = PMUSCOPE_AMU_OFFLINE;
			break;
		case AMU_DISABLED_B:
			b.state = PMUSCOPE_AMU_DISABLED;
			b.flags |= PMUSCOPE_AMU_F_LOST;
			break;
		default:
			break;
		}
		ret = pmuscope_amu_metrics(&a, &b, c->freq, &m);
		ok = !ret && m.cpu == 3;
		for (int k = 0; k < PMUSCOPE_AMU_NR_METRICS; k++)
			ok = ok && amu_same(m.value[k], want[k]) && m.why[k] == c->why[k] &&
			     !!(m.valid & (1U << k)) == (want[k] != AMU_NAN);
		result(ok, "amu metrics: %s (%.17g Hz, busy %.17g, IPC %.17g, stall %.17g; why %u %u %u %u)",
		       c->what, m.value[0], m.value[1], m.value[2], m.value[3], m.why[0], m.why[1],
		       m.why[2], m.why[3]);
	}

	/* Deltas of each group; group-1 counters that are not there. */
	a = amu_rec(1, 100, 1000, 500, 2000, 10);
	b = amu_rec(1, 300, 5000, 700, 2400, 90);
	a.nr_group1 = b.nr_group1 = 4;
	a.implemented1 = b.implemented1 = 0xb;	/* no counter 2 */
	a.enabled1 = b.enabled1 = 0x7;		/* counter 3 disabled */
	for (int n = 0; n < 4; n++) {
		a.group1[n] = 100 * n;
		b.group1[n] = 100 * n + 7 * (n + 1);
	}
	ret = pmuscope_amu_metrics(&a, &b, 1000, &m);
	result(!ret && m.ticks == 200 && m.valid0 == 0xf && m.delta0[0] == 4000 &&
	       m.delta0[1] == 200 && m.delta0[2] == 400 && m.delta0[3] == 80,
	       "amu metrics: group-0 deltas and the ticks between the reads");
	result(m.valid1 == 0x3 && m.delta1[0] == 7 && m.delta1[1] == 14 && m.delta1[2] == 0 &&
	       m.why1[2] == PMUSCOPE_AMU_WHY_NO_COUNTER && m.why1[3] == PMUSCOPE_AMU_WHY_NO_COUNTER &&
	       m.why1[4] == PMUSCOPE_AMU_WHY_NO_COUNTER,
	       "amu metrics: group-1 deltas; not implemented, disabled, beyond nr_group1: none (%#x)",
	       m.valid1);
	b.flags = PMUSCOPE_AMU_F_AUX_ZERO;
	pmuscope_amu_metrics(&a, &b, 1000, &m);
	result(m.valid1 == 0 && m.why1[0] == PMUSCOPE_AMU_WHY_AUX_ZERO && (m.valid & 0xf) == 0xf,
	       "amu metrics: AUX_ZERO (CG1RZ): no group-1 delta, group 0 unaffected");
	b.flags = 0;
	b.group1[1] = 0;
	b.group0[2] = 1999;
	pmuscope_amu_metrics(&a, &b, 1000, &m);
	result(m.why1[1] == PMUSCOPE_AMU_WHY_BACKWARDS && !(m.valid1 & 2) &&
	       m.why[PMUSCOPE_AMU_M_IPC] == PMUSCOPE_AMU_WHY_BACKWARDS &&
	       !(m.valid0 & (1U << PMUSCOPE_AMU_INST_RETIRED)) &&
	       (m.valid & 0xb) == 0xb,
	       "amu metrics: a counter lower in the later record, without LOST: went backwards");
	b = amu_rec(1, 50, 5000, 700, 2400, 90);
	pmuscope_amu_metrics(&a, &b, 1000, &m);
	result(m.why[PMUSCOPE_AMU_M_BUSY] == PMUSCOPE_AMU_WHY_BACKWARDS && m.ticks == 0 &&
	       (m.valid & 0xd) == 0xd, "amu metrics: time lower in the later record: busy unavailable");
	b.cpu = 2;
	result(pmuscope_amu_metrics(&a, &b, 1000, &m) == -EINVAL &&
	       pmuscope_amu_metrics(NULL, &b, 1000, &m) == -EINVAL,
	       "amu metrics: records of two CPUs, or none: -EINVAL");

	result(!strcmp(pmuscope_amu_event_name(0x4005, buf, sizeof(buf)), "STALL_BACKEND_MEM") &&
	       !strcmp(pmuscope_amu_event_name(0x0024, buf, sizeof(buf)), "STALL_BACKEND") &&
	       !strcmp(pmuscope_amu_event_name(0x0300, buf, sizeof(buf)), "0x0300") &&
	       !strcmp(pmuscope_amu_event_name(0x4040, buf, sizeof(buf)), "0x4040"),
	       "amu event names: architectural where known, else 0x%%04x");
	result(!strcmp(pmuscope_amu_state_name(PMUSCOPE_AMU_READ_OK), "ok") &&
	       !strcmp(pmuscope_amu_state_name(PMUSCOPE_AMU_ABSENT), "absent") &&
	       !strcmp(pmuscope_amu_state_name(PMUSCOPE_AMU_DISABLED), "disabled") &&
	       !strcmp(pmuscope_amu_state_name(PMUSCOPE_AMU_OFFLINE), "offline") &&
	       !strcmp(pmuscope_amu_state_name(9), "unknown"), "amu state names");
	pmuscope_amu_flags_str(PMUSCOPE_AMU_F_AUX_ZERO | PMUSCOPE_AMU_F_LOST | 1U << 9, buf,
			       sizeof(buf));
	result(!strcmp(buf, "lost,aux_zero"), "amu flags: in order, unknown bits left out (%s)", buf);
	memset(buf, 'x', sizeof(buf));
	pmuscope_amu_flags_str(7, buf, 8);
	result(!strcmp(buf, "lost,co") && buf[8] == 'x', "amu flags: cut short, never overrun");
	result(!strcmp(pmuscope_amu_why_str(PMUSCOPE_AMU_WHY_LOST), "lost") &&
	       !strcmp(pmuscope_amu_why_str(PMUSCOPE_AMU_WHY_OK), "") &&
	       !strcmp(pmuscope_amu_why_str(99), "unknown"), "amu reasons' phrases");
	result(pmuscope_amu_read(NULL, (uint64_t[]){ 1 }, 1, &a, 1, NULL) == -EINVAL,
	       "amu read: a NULL session gives -EINVAL");
}

/* ------------------------------------------------------- the record file */
/* A record file in memory: a version-2 header, 1 event, no command line. */
static size_t df_mem(unsigned char *b, uint32_t version, uint32_t flags, uint32_t max_stack)
{
	struct df_header h = {
		.version = version, .nr_events = 1, .kernel_el = 1,
		.sample_index = PMUSCOPE_STREAM_NO_EVENT, .period_ms = 10,
		.flags = flags, .max_stack = max_stack,
	};
	size_t hs = version == 1 ? DF_HEADER_V1_SIZE : sizeof(h);
	struct df_event e = { .number = 0x11 };

	memcpy(h.magic, DF_MAGIC, 8);
	h.header_size = hs + sizeof(e);
	memcpy(b, &h, hs);
	memcpy(b + hs, &e, sizeof(e));
	return h.header_size;
}

/* df_open_mem() of @b: the error, "" when it opens (and every chunk reads). */
static const char *df_try(const unsigned char *b, size_t n, struct df_info *info)
{
	static char err[256];
	struct df_file df;
	struct df_view c;
	size_t off;
	int ret;

	err[0] = '\0';
	ret = df_open_mem(&df, b, n, err, sizeof(err));
	if (!ret) {
		if (info)
			*info = df.info;
		off = df.first_chunk;
		while ((ret = df_next(&df, &off, &c, err, sizeof(err))) == 1)
			;
	}
	df_close(&df);
	return ret ? err : "";
}

static void test_datafile_v2(void)
{
	unsigned char b[512];
	struct df_info info;
	struct df_chunk ch = { .type = DF_CHUNK_KALLSYMS, .size = 8 + 16 + 8 };
	struct df_kallsyms k = { .text_size = 8 };
	const char *e;
	size_t n;

	/* Version 1: 64 bytes of header, no flags; still read. */
	memset(b, 0, sizeof(b));
	n = df_mem(b, 1, 0, 0);
	e = df_try(b, n, &info);
	result(n == 64 + 96 && !*e && info.version == 1 && info.flags == 0 &&
	       info.max_stack == 0 && info.period_ms == 10,
	       "datafile: a version-1 file is read, flags 0 (%s)", e);
	/* Version 1's header_size checked against its own header (64 bytes). */
	memset(b, 0xff, sizeof(b));
	n = df_mem(b, 1, 0, 0);
	e = df_try(b, n, NULL);
	result(!*e, "datafile: version 1 never reads version 2's words (%s)", e);

	memset(b, 0, sizeof(b));
	n = df_mem(b, 2, DF_F_CALLCHAIN, 127);
	e = df_try(b, n, &info);
	result(!*e && info.max_stack == 127, "datafile: max_stack 127 (%s)", e);
	n = df_mem(b, 2, DF_F_TASK, 0);
	e = df_try(b, n, &info);
	result(!*e && info.flags == DF_F_TASK, "datafile: per-task, no chains (%s)", e);
	e = df_try(b, 70, NULL);
	result(strstr(e, "cut short at byte 70: a version-2 header has 88 bytes") != NULL,
	       "datafile: a version-2 header cut short (%s)", e);
	n = df_mem(b, 2, 4, 0);
	e = df_try(b, n, NULL);
	result(strstr(e, "flags 0x4 (offset 64): unknown bits 0x4") != NULL,
	       "datafile: unknown flags refused (%s)", e);
	n = df_mem(b, 2, DF_F_CALLCHAIN, 0);
	e = df_try(b, n, NULL);
	result(strstr(e, "max_stack 0 (offset 68)") != NULL,
	       "datafile: call chains of 0 frames refused (%s)", e);
	n = df_mem(b, 2, DF_F_CALLCHAIN, 128);
	e = df_try(b, n, NULL);
	result(strstr(e, "max_stack 128 (offset 68)") != NULL,
	       "datafile: max_stack 128 refused (%s)", e);
	n = df_mem(b, 2, 0, 8);
	e = df_try(b, n, NULL);
	result(strstr(e, "max_stack 8 (offset 68)") != NULL,
	       "datafile: max_stack without call chains refused (%s)", e);
	n = df_mem(b, 2, 0, 0);
	b[offsetof(struct df_header, reserved) + 9] = 1;
	e = df_try(b, n, NULL);
	result(strstr(e, "reserved word at offset 80 is not zero") != NULL,
	       "datafile: reserved words must be zero (%s)", e);

	/* KALLSYMS: its text within the chunk. */
	n = df_mem(b, 2, DF_F_CALLCHAIN, 8);
	memcpy(b + n, &ch, sizeof(ch));
	memcpy(b + n + 8, &k, sizeof(k));
	memcpy(b + n + 24, "ffff T x", 8);
	e = df_try(b, n + ch.size, NULL);
	result(!*e, "datafile: a KALLSYMS chunk read (%s)", e);
	k.text_size = 9;
	memcpy(b + n + 8, &k, sizeof(k));
	e = df_try(b, n + ch.size, NULL);
	result(strstr(e, "chunk at byte 184: kallsyms text of 9 bytes in 8") != NULL,
	       "datafile: a KALLSYMS text past its chunk (%s)", e);
	ch.size = 16;
	memcpy(b + n, &ch, sizeof(ch));
	e = df_try(b, n + ch.size, NULL);
	result(strstr(e, "chunk at byte 184 (type 6): 8 bytes, at least 16") != NULL,
	       "datafile: a KALLSYMS chunk too short for its header (%s)", e);
}

/*
 * df_check_records(), the check every reader of the file makes: a chain
 * of more frames than the header's max_stack, or any chain in a file
 * whose header says it has none, refused with the record's file offset.
 */
static void test_datafile_chains(void)
{
	static unsigned char b[4096];
	struct df_chunk ch = { .type = DF_CHUNK_RECORDS };
	struct df_file df;
	struct df_view c;
	char err[512], want[160];
	size_t off;

	for (unsigned int kase = 0; kase < 4; kase++) {
		/* 0: 8 frames, max_stack 8; 1: 9 of 8; 2: no DF_F_CALLCHAIN; 3: 127 of 127 */
		uint32_t max = kase == 3 ? 127 : 8;
		uint16_t nu = kase == 1 ? 9 : kase == 3 ? 100 : 8;

		size_t n, len, rec2;
		int ret;

		memset(b, 0, sizeof(b));
		n = df_mem(b, 2, kase == 2 ? 0 : DF_F_CALLCHAIN, kase == 2 ? 0 : max);
		len = put_rec(b + n + 8, 0, PMUSCOPE_REC_SAMPLE, 1, 0x400100, 1, 10);
		rec2 = len;
		len += put_chain_rec(b + n + 8, len, 1, 1, 16, kase == 3 ? 27 : 0, nu, 0);
		ch.size = 8 + len;
		memcpy(b + n, &ch, sizeof(ch));
		err[0] = '\0';
		ret = df_open_mem(&df, b, n + ch.size, err, sizeof(err));
		off = df.first_chunk;
		ret = ret ?: df_next(&df, &off, &c, err, sizeof(err)) == 1 ? 0 : -EIO;
		ret = ret ?: df_check_records(&df, &c, err, sizeof(err));
		df_close(&df);
		if (kase == 0 || kase == 3) {
			result(!ret, "datafile: a chain of %u frames, max_stack %u, read (%s)",
			       kase == 3 ? 127 : 8, max, ret ? err : "ok");
			continue;
		}
		if (kase == 1)
			snprintf(want, sizeof(want),
				 "record at offset %zu: call chain of 9 frames, more than the header's max_stack 8",
				 n + 8 + rec2);
		else
			snprintf(want, sizeof(want),
				 "record at offset %zu: a call chain, but the header says the recording has none",
				 n + 8 + rec2);
		result(ret == -EBADMSG && strstr(err, want),
		       "datafile: %s refused, the record's file offset named (%s)",
		       kase == 1 ? "a chain longer than max_stack" : "a chain in a file without",
		       err);
	}
}

/* ------------------------------------------------------- maps and names */
/*
 * The lookups of maps.c against the linear search they replaced, its
 * rules kept here as they were: a process's chunks sorted by time, then
 * file order; from the first taken at or after the sample, forward until
 * an exec after the sample (unless the sample comes before every chunk),
 * then backward to the exec that started the image, that chunk included;
 * the first chunk with the address wins.
 */
struct ref_chunk {
	uint32_t pid, reason;
	uint64_t time;
	size_t seq;
	unsigned int n;
	uint64_t start[4], end[4];
	char text[512];
};

static int ref_chunk_cmp(const void *a, const void *b)
{
	const struct ref_chunk *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The old maps_index_find(): the chunk and mapping found, -1 none, -2 no chunk of @pid. */
static long ref_find(const struct ref_chunk *v, size_t nv, uint32_t pid, uint64_t time,
		     uint64_t pc, int *which)
{
	size_t first = 0, last, at;

	while (first < nv && v[first].pid != pid)
		first++;
	for (last = first; last < nv && v[last].pid == pid; last++)
		;
	if (last == first)
		return -2;
	for (at = first; at < last && v[at].time < time; at++)
		;
	for (size_t i = at; i < last; i++) {
		if (at > first && v[i].reason == DF_MAPS_EXEC && v[i].time > time)
			break;
		for (unsigned int k = 0; k < v[i].n; k++)
			if (pc >= v[i].start[k] && pc < v[i].end[k]) {
				*which = k;
				return i;
			}
	}
	for (size_t i = at; i-- > first;) {
		for (unsigned int k = 0; k < v[i].n; k++)
			if (pc >= v[i].start[k] && pc < v[i].end[k]) {
				*which = k;
				return i;
			}
		if (v[i].reason == DF_MAPS_EXEC)
			break;
	}
	return -1;
}

struct ref_comm {
	uint32_t pid, tid;
	uint64_t time;
	size_t seq;
	char comm[16];
};

static int ref_comm_cmp(const void *a, const void *b)
{
	const struct ref_comm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The old maps_index_comm(). */
static const char *ref_comm(const struct ref_comm *v, size_t nv, uint32_t pid, uint32_t tid,
			    uint64_t time)
{
	const struct ref_comm *best = NULL;

	for (int pass = tid ? 0 : 1; pass < 3 && !best; pass++)
		for (size_t i = 0; i < nv; i++) {
			const struct ref_comm *c = &v[i];

			if (c->pid != pid || (pass == 0 && c->tid != tid) ||
			    (pass == 1 && c->tid != pid))
				continue;
			if (!best || c->time <= time)
				best = c;
			else
				break;
		}
	return best ? best->comm : NULL;
}

static uint64_t maps_rng = 88172645463325252ULL;

static uint64_t maps_rnd(unsigned int n)
{
	maps_rng ^= maps_rng << 13;
	maps_rng ^= maps_rng >> 7;
	maps_rng ^= maps_rng << 17;
	return maps_rng % n;
}

static void test_maps_same(void)
{
	static struct ref_chunk v[800], rv[800];	/* rv: sorted (@v's texts stay put) */
	static struct ref_comm cv[200];
	unsigned long bad = 0, found = 0, queries = 0, cbad = 0;

	for (unsigned int round = 0; round < 200; round++) {
		struct maps_index x = { 0 };
		size_t nv = 1 + maps_rnd(sizeof(v) / sizeof(v[0])), nc = maps_rnd(200);

		for (size_t i = 0; i < nv; i++) {
			struct ref_chunk *c = &v[i];
			uint64_t page = maps_rnd(4);
			size_t o = 0;

			*c = (struct ref_chunk){ .pid = 1 + maps_rnd(round % 2 ? 3 : 1),
						 .time = maps_rnd(30), .seq = i, .n = maps_rnd(5) };
			c->reason = maps_rnd(4) ? DF_MAPS_END - maps_rnd(2) : DF_MAPS_EXEC;
			for (unsigned int k = 0; k < c->n; k++) {
				c->start[k] = 0x400000 + 0x1000 * page;
				c->end[k] = c->start[k] + 0x1000 * (1 + maps_rnd(3));
				page += (c->end[k] - c->start[k]) / 0x1000 + maps_rnd(3);
				o += snprintf(c->text + o, sizeof(c->text) - o,
					      "%llx-%llx r-xp 00000000 08:01 1 /c%zu-%u\n",
					      (unsigned long long)c->start[k],
					      (unsigned long long)c->end[k], i, k);
			}
			if (maps_index_add(&x, c->pid, c->reason, c->time, c->text, o))
				bad++;
		}
		for (size_t i = 0; i < nc; i++) {
			cv[i] = (struct ref_comm){ .pid = 1 + maps_rnd(3), .time = maps_rnd(12),
						   .seq = i };
			cv[i].tid = cv[i].pid + maps_rnd(3);
			snprintf(cv[i].comm, sizeof(cv[i].comm), "n%zu", i);
			if (maps_index_add_comm(&x, cv[i].pid, cv[i].tid, cv[i].time, cv[i].comm,
						sizeof(cv[i].comm)))
				bad++;
		}
		if (maps_index_sort(&x))
			bad++;
		memcpy(rv, v, nv * sizeof(v[0]));
		qsort(rv, nv, sizeof(rv[0]), ref_chunk_cmp);
		qsort(cv, nc, sizeof(cv[0]), ref_comm_cmp);
		for (unsigned int q = 0; q < 400; q++) {
			uint32_t pid = maps_rnd(5);
			uint64_t t = maps_rnd(32), pc = 0x400000 + maps_rnd(20 * 0x1000);
			const struct maps_ent *e;
			char path[32] = "";
			int any, k = 0;
			long i = ref_find(rv, nv, pid, t, pc, &k);

			e = maps_index_find(&x, pid, t, pc, &any);
			if (i >= 0)
				snprintf(path, sizeof(path), "/c%zu-%d", rv[i].seq, k);
			if (any != (i != -2) || !e != (i < 0) ||
			    (e && (strcmp(e->path, path) || e->start != rv[i].start[k])))
				bad++;
			found += i >= 0;
			queries++;
		}
		for (unsigned int q = 0; q < 400; q++) {
			uint32_t pid = maps_rnd(5), tid = maps_rnd(2) ? 0 : pid + maps_rnd(4);
			uint64_t t = maps_rnd(14);
			const char *cw, *cg;

			cg = maps_index_comm(&x, pid, tid, t);
			cw = ref_comm(cv, nc, pid, tid, t);
			cbad += !cg != !cw || (cg && strcmp(cg, cw));
		}
		maps_index_free(&x);
	}
	result(!bad && found > queries / 4,
	       "maps: %lu lookups of 200 random recordings agree with the linear search (%lu found, %lu differ)",
	       queries, found, bad);
	result(!cbad, "maps: 80000 thread-name lookups agree with the linear search (%lu differ)",
	       cbad);
}

/*
 * @n MAPS chunks of one process (one mapping each, as many execs as
 * not) and @n lookups of addresses none has, at times across them: the
 * probes (chunks and unions searched) per lookup.
 */
static double maps_probes(size_t n, int execs)
{
	struct maps_index x = { 0 };
	static const char text[] = "400000-401000 r-xp 00000000 08:01 1 /bin/x\n";
	double per = -1;
	int any;

	for (size_t i = 0; i < n; i++)
		if (maps_index_add(&x, 7, execs && i % 1000 == 0 ? DF_MAPS_EXEC : DF_MAPS_END,
				   i, text, sizeof(text) - 1))
			goto out;
	if (maps_index_sort(&x))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (maps_index_find(&x, 7, (i * 7919) % n, 0x500000, &any) || !any)
			goto out;
	per = (double)x.probes / n;
out:
	maps_index_free(&x);
	return per;
}

static void test_maps(void)
{
	static char text[8192];
	struct maps_index x = { 0 };
	const struct maps_ent *e;
	double a, b, c, d;
	int any;

	test_maps_same();
	/* 40,000 chunks and 40,000 lookups: O(log n) probes each, not O(n). */
	a = maps_probes(10000, 0);
	b = maps_probes(40000, 0);
	result(a > 0 && b > 0 && b < 200 && b < 1.5 * a,
	       "maps: 40,000 MAPS chunks, 40,000 lookups: %.1f probes a lookup (%.1f at 10,000), not a linear search",
	       b, a);
	c = maps_probes(10000, 1);
	d = maps_probes(40000, 1);
	result(c > 0 && d > 0 && d < 200 && d < 1.5 * c,
	       "maps: the same with an exec every 1,000 chunks: %.1f probes a lookup (%.1f at 10,000)",
	       d, c);
	/* A path longer than any the kernel prints: the line is skipped. */
	memcpy(text, "400000-401000 r-xp 00000000 08:01 1 /", 37);
	memset(text + 37, 'x', sizeof(text) - 39);
	text[sizeof(text) - 2] = '\n';
	maps_index_add(&x, 7, DF_MAPS_EXEC, 1, text, sizeof(text) - 1);
	maps_index_sort(&x);
	e = maps_index_find(&x, 7, 1, 0x400010, &any);
	result(!e && any, "maps: a line whose path is longer than PATH_MAX is skipped");
	maps_index_free(&x);
}

static void test_datafile(void)
{
	char tmpl[] = "/tmp/pmuscope-df-XXXXXX", path[300], err[256];
	static char *argv[] = { "pmuscope", "record", "--", "./loop", "1" };
	unsigned char recs[256];
	struct df_writer w;
	struct df_info info = {
		.freq = 25000000, .start_time = 77, .nr_events = 2, .kernel_el = 1,
		.sample_index = 0, .sample_period = 100000, .argc = 5, .argv = argv,
		.flags = DF_F_CALLCHAIN | DF_F_TASK, .max_stack = 32,
	};
	static const char ksyms[] = "ffff800080000000 T _text\nffff800080010000 T do_one\n";
	struct df_end end = { .time = 9, .samples = 1, .lost = 7, .throttled = 1 }, got_end;
	struct df_file df;
	struct df_view c;
	struct pmuscope_rec r;
	size_t len = 0, off;
	unsigned int types = 0, n = 0;
	int ret;

	if (!mkdtemp(tmpl)) {
		result(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/t.data", tmpl);
	pmuscope_event_parse("cycles", &info.evs[0], err, sizeof(err));
	pmuscope_event_parse("instructions:u", &info.evs[1], err, sizeof(err));
	len += put_rec(recs, len, PMUSCOPE_REC_SAMPLE, 1, 0x401000, 2, 1000);
	len += put_rec(recs, len, PMUSCOPE_REC_LOST, 0, 0, 0, 0);
	ret = df_create(&w, path, &info);
	ret = ret ?: df_write_maps(&w, 42, DF_MAPS_EXEC, 5, "00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n", 46);
	ret = ret ?: df_write_comm(&w, 42, 43, 6, "a-very-long-thread-name");
	ret = ret ?: df_write_records(&w, recs, len);
	ret = ret ?: df_write_exit(&w, 42, 43, 8, 137);
	ret = ret ?: df_write_kallsyms(&w, 8, ksyms, strlen(ksyms));
	ret = ret ?: df_write_end(&w, &end);
	ret = ret ?: df_finish(&w);
	result(!ret, "datafile: written (%d)", ret);
	ret = df_open(&df, path, err, sizeof(err));
	result(!ret && df.info.version == 2 && df.info.flags == (DF_F_CALLCHAIN | DF_F_TASK) &&
	       df.info.max_stack == 32, "datafile: version 2, its flags and max_stack (%s)",
	       ret ? err : "ok");
	result(!ret && df.info.freq == 25000000 && df.info.nr_events == 2 &&
	       !strcmp(df.info.evs[1].name, "INST_RETIRED") &&
	       df.info.evs[1].flags == PMUSCOPE_EV_EL0 && df.info.sample_period == 100000 &&
	       df.info.argc == 5 && !strcmp(df.info.argv[3], "./loop") && df.first_chunk % 8 == 0,
	       "datafile: the header read back (%s)", ret ? err : "ok");
	if (ret)
		return;
	off = df.first_chunk;
	while ((ret = df_next(&df, &off, &c, err, sizeof(err))) == 1) {
		types = types * 10 + c.type;
		if (c.type == DF_CHUNK_MAPS) {
			struct df_maps m;

			memcpy(&m, c.payload, sizeof(m));
			result(m.pid == 42 && m.reason == DF_MAPS_EXEC && m.text_size == 46 &&
			       !memcmp(c.payload + sizeof(m), "00400000-00401000", 17) &&
			       c.len % 8 == 0, "datafile: a MAPS chunk");
		} else if (c.type == DF_CHUNK_COMM) {
			struct df_comm m;

			memcpy(&m, c.payload, sizeof(m));
			result(m.tid == 43 && !strcmp(m.comm, "a-very-long-thr"),
			       "datafile: a COMM chunk, the name cut to 15 bytes (%.16s)", m.comm);
		} else if (c.type == DF_CHUNK_RECORDS) {
			size_t roff = 0;

			result(c.len == len && !memcmp(c.payload, recs, len),
			       "datafile: the kernel's records unchanged");
			while (pmuscope_record_next(c.payload, c.len, &roff, &r, err, sizeof(err)) == 1)
				n++;
		} else if (c.type == DF_CHUNK_KALLSYMS) {
			struct df_kallsyms k;

			memcpy(&k, c.payload, sizeof(k));
			result(k.time == 8 && k.text_size == strlen(ksyms) && c.len % 8 == 0 &&
			       !memcmp(c.payload + sizeof(k), ksyms, k.text_size),
			       "datafile: a KALLSYMS chunk");
		} else if (c.type == DF_CHUNK_END) {
			memcpy(&got_end, c.payload, sizeof(got_end));
		}
	}
	result(ret == 0 && types == 231465 && n == 2 && got_end.lost == 7 && got_end.throttled == 1,
	       "datafile: the chunks in order (%u), 2 records, the END summary", types);
	df_close(&df);

	/* A chunk cut short, a bad version. */
	{
		FILE *f = fopen(path, "r+b");
		uint32_t nine = 9;

		if (f) {
			fseek(f, 8, SEEK_SET);
			fwrite(&nine, 4, 1, f);
			fclose(f);
		}
		ret = df_open(&df, path, err, sizeof(err));
		result(ret == -EPROTO && strstr(err, "format version 9 (offset 8)"),
		       "datafile: another version is refused (%s)", err);
		struct stat st;

		if (!stat(path, &st) && truncate(path, st.st_size - 8) == 0) {
			nine = DF_VERSION;
			f = fopen(path, "r+b");
			if (f) {
				fseek(f, 8, SEEK_SET);
				fwrite(&nine, 4, 1, f);
				fclose(f);
			}
		}
		ret = df_open(&df, path, err, sizeof(err));
		off = df.first_chunk;
		if (!ret)
			while ((ret = df_next(&df, &off, &c, err, sizeof(err))) == 1)
				;
		result(ret == -EBADMSG && strstr(err, "cut short"),
		       "datafile: a chunk cut short (%s)", err);
		df_close(&df);
	}
	unlink(path);
	rmdir(tmpl);
	test_datafile_v2();
}

/*
 * A recording cut short (another fd truncates it) after df_open(): its
 * chunks are read in full, as they were at the open, with no SIGBUS (a
 * mapping of the file would take one at its first page past the new end).
 * In a child, so that a signal is a FAIL, not the end of the tests.
 */
static void test_datafile_truncated(void)
{
	char tmpl[] = "/tmp/pmuscope-dft-XXXXXX", path[300], err[256];
	static char *argv[] = { "pmuscope", "record" };
	struct df_info info = {
		.nr_events = 1, .kernel_el = 1, .sample_index = 0, .sample_period = 1000,
		.argc = 2, .argv = argv,
	};
	static char text[256 * 1024];
	struct df_writer w;
	struct df_file df;
	int ret, fd, status = 0;
	pid_t pid;

	if (!mkdtemp(tmpl)) {
		result(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/t.data", tmpl);
	pmuscope_event_parse("cycles", &info.evs[0], err, sizeof(err));
	memset(text, 'm', sizeof(text));
	ret = df_create(&w, path, &info);
	for (uint32_t i = 0; !ret && i < 4; i++)
		ret = df_write_maps(&w, 100 + i, DF_MAPS_END, i, text, sizeof(text));
	ret = ret ?: df_write_end(&w, &(struct df_end){ .time = 9 });
	ret = ret ?: df_finish(&w);
	ret = ret ?: df_open(&df, path, err, sizeof(err));
	if (ret) {
		result(0, "datafile truncated: cannot write or open %s: %s", path,
		       ret == -EBADMSG ? err : strerror(-ret));
		goto out;
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0)) {
		result(0, "datafile truncated: cannot truncate %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		df_close(&df);
		goto out;
	}
	close(fd);
	fflush(stdout);
	pid = fork();
	if (!pid) {
		size_t off = df.first_chunk, sum = 0;
		unsigned int chunks = 0;
		struct df_view c;

		while ((ret = df_next(&df, &off, &c, err, sizeof(err))) == 1) {
			for (size_t i = 0; i < c.len; i++)
				sum += c.payload[i] == 'm';
			chunks++;
		}
		_exit(!ret && chunks == 5 && sum == 4 * sizeof(text) ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		status = -1;
	result(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
	       "datafile truncated to 0 bytes after df_open(): its 5 chunks read as opened (%s%d)",
	       WIFSIGNALED(status) ? "killed by signal " : "exit ",
	       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	df_close(&df);
out:
	unlink(path);
	rmdir(tmpl);
}

/*
 * cli_read_input() of a pipe (its /dev/fd path): to its end up to @max
 * bytes, one more refused with EFBIG and a message (the CLI's tests,
 * tests/host, read pipes and directories: not 1 GiB).
 */
static void test_read_input(void)
{
	char buf[100], name[64], err[256];
	unsigned char *data;
	size_t len;

	memset(buf, 'x', sizeof(buf));
	for (size_t max = sizeof(buf); max >= sizeof(buf) - 1; max--) {
		int p[2], ret;

		if (pipe(p) || write(p[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			result(0, "read input: pipe: %s", strerror(errno));
			return;
		}
		close(p[1]);
		snprintf(name, sizeof(name), "/dev/fd/%d", p[0]);
		err[0] = '\0';
		ret = cli_read_input(name, max, &data, &len, err, sizeof(err));
		close(p[0]);
		if (max == sizeof(buf))
			result(!ret && len == sizeof(buf) && !memcmp(data, buf, len) && !data[len],
			       "read input: a pipe of %zu bytes, at most %zu: read whole (%s)",
			       sizeof(buf), max, ret ? err : "ok");
		else
			result(ret == -EFBIG && !data &&
			       strstr(err, ": more than 99 bytes from a pipe or a device"),
			       "read input: a pipe of %zu bytes, at most %zu: refused (%s)",
			       sizeof(buf), max, err);
		free(data);
	}
}

/* ------------------------------------------------- pmuscope amu, end to end */
/*
 * The CLI of this build (next to this program) against fake_pmuscope.so,
 * the stand-in for /dev/pmuscope (its AMU rule: tests/fake_pmuscope.c),
 * and a fake sysfs of CPUs 0-4.
 */
static char amu_bin[512], amu_dir[300];

struct cli_run {
	int status;		/* exit status; -1: did not run or was killed */
	char *out, *err;	/* stdout and stderr */
	char *flat;		/* stdout, runs of spaces squeezed to one */
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (f && m) {
		int ch;

		while ((ch = fgetc(f)) != EOF)
			fputc(ch, m);
	}
	if (f)
		fclose(f);
	if (m)
		fclose(m);
	return buf ? buf : strdup("");
}

static void cli_free(struct cli_run *r)
{
	free(r->out);
	free(r->err);
	free(r->flat);
	memset(r, 0, sizeof(*r));
}

/*
 * pmuscope ARGS... (NULL-terminated) with @env ("NAME=VALUE;NAME=VALUE",
 * or NULL) on top of the fake device and sysfs (@sysfs: a directory under
 * amu_dir).
 */
static void cli(struct cli_run *r, const char *sysfs, const char *env, ...)
{
	char *argv[32], outp[400], errp[400], path[600], *save = NULL;
	const char *a;
	va_list ap;
	int argc = 0, st;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	snprintf(path, sizeof(path), "%s/pmuscope", amu_bin);
	argv[argc++] = "pmuscope";
	va_start(ap, env);
	while ((a = va_arg(ap, const char *)) && argc < 31)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	snprintf(outp, sizeof(outp), "%s/stdout", amu_dir);
	snprintf(errp, sizeof(errp), "%s/stderr", amu_dir);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* cppcheck-suppress variableScope ; putenv() keeps it: it lives to execv() */
		char fake[600], root[400], envbuf[512];

		snprintf(fake, sizeof(fake), "%s/fake_pmuscope.so", amu_bin);
		snprintf(root, sizeof(root), "%s/%s", amu_dir, sysfs);
		setenv("LD_PRELOAD", fake, 1);
		setenv("PMUSCOPE_SYSFS", root, 1);
		if (env) {
			snprintf(envbuf, sizeof(envbuf), "%s", env);
			for (char *e = strtok_r(envbuf, ";", &save); e; e = strtok_r(NULL, ";", &save))
				putenv(e);
		}
		if (!freopen(outp, "w", stdout) || !freopen(errp, "w", stderr))
			_exit(126);
		execv(path, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	r->out = slurp(outp);
	r->err = slurp(errp);
	r->flat = strdup(r->out);
	if (r->flat) {
		char *w = r->flat;

		for (const char *p = r->out; *p; p++)
			if (*p != ' ' || w == r->flat || w[-1] != ' ')
				*w++ = *p;
		*w = '\0';
	}
}

/* A fake sysfs: CPUs 0-4, probed (online: PMUSCOPE_SYSFS is set). */
static void amu_sysfs(const char *name, int emulated)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", amu_dir, name);
	mkdir(path, 0755);
	for (int cpu = 0; cpu < 5; cpu++) {
		snprintf(path, sizeof(path), "%s/%s/cpu%d", amu_dir, name, cpu);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%s/cpu%d/probed", amu_dir, name, cpu);
		f = fopen(path, "w");
		if (f) {
			fputs("1\n", f);
			fclose(f);
		}
	}
	if (!emulated)
		return;
	snprintf(path, sizeof(path), "%s/%s/emulated", amu_dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs("1\n", f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/%s/emulated_profile", amu_dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs("neoverse-n1\n", f);
		fclose(f);
	}
}

/* sysfs @name's cpuN/amu words: "0:absent,1:disabled" (none: no file). */
static void amu_words(const char *name, const char *words)
{
	char buf[128], path[700], *save = NULL;

	amu_sysfs(name, 0);
	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/cpu%c/amu", amu_dir, name, w[0]);
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "%s\n", w + 2);
			fclose(f);
		}
	}
}

/* @text as JSON lines, each checked by Python's parser: 1 if all are. */
static int json_lines_valid(const char *text)
{
	char path[400], cmd[900];
	FILE *f;

	snprintf(path, sizeof(path), "%s/out.json", amu_dir);
	f = fopen(path, "w");
	if (!f)
		return 0;
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "python3 -m json.tool --json-lines --compact '%s' >/dev/null 2>&1", path);
	return *text && system(cmd) == 0;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_amu_cli(void)
{
	static const char amu_head[] =
		"AMU interval 1: 1.000 s (0.000 to 1.000 s), system counter 1000000000 Hz\n";
	char tmpl[] = "/tmp/pmuscope-amu-XXXXXX", exe[512], path[700];
	struct cli_run r;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0 || !mkdtemp(tmpl)) {
		result(0, "amu cli: no directory of this program or no temporary directory");
		return;
	}
	exe[n] = '\0';
	snprintf(amu_bin, sizeof(amu_bin), "%s", exe);
	*strrchr(amu_bin, '/') = '\0';
	snprintf(amu_dir, sizeof(amu_dir), "%s", tmpl);
	snprintf(path, sizeof(path), "%s/fake_pmuscope.so", amu_bin);
	if (access(path, R_OK)) {
		result(0, "amu cli: %s missing (make -C tools host)", path);
		return;
	}
	amu_sysfs("sys", 0);
	amu_sysfs("emu", 1);

	/* The fake's rule: even CPUs 2000 MHz, busy 50%, IPC 1.5, 25% stalled. */
	cli(&r, "sys", "FAKE_PMUSCOPE_LOG=" "/dev/null", "amu", "-I", "10", (char *)NULL);
	result(r.status == 0 && strstr(r.flat, "\nCPU MHz BUSY% IPC MEM_STALL% STALL_BACKEND 0x0300\n"),
	       "amu cli: default (all online CPUs) exits 0; the columns, group-1 counters by name or number (%d)",
	       r.status);
	result(strstr(r.flat, "\n0 2000.0 50.00 1.50 25.00 1,000 2,000\n") &&
	       strstr(r.flat, "\n1 3000.0 100.00 0.50 10.00 2,000 4,000\n") &&
	       strstr(r.flat, "\n4 2000.0 50.00 1.50 25.00 5,000 10,000\n"),
	       "amu cli: exact metrics per CPU (2000 MHz, 50%%, 1.50, 25%%; 3000 MHz, 100%%, 0.50, 10%%) and group-1 deltas");
	result(!strncmp(r.out, amu_head, strlen(amu_head)) && count_lines(r.out) == 8 &&
	       !strstr(r.out, "["),
	       "amu cli: one interval by default, no footnote when all is there; its header's length the reads' system-counter span (the fake's 1 s), not the 10 ms waited");
	cli_free(&r);

	snprintf(path, sizeof(path), "FAKE_PMUSCOPE_LOG=%s/ioctls", amu_dir);
	cli(&r, "sys", path, "amu", "-C", "1,3", "-I", "10", "-n", "3", (char *)NULL);
	{
		static const char one[] = "amu_read cpus_size=8 nr_records=2 record_size=360\n";
		char logp[400], *log;

		snprintf(logp, sizeof(logp), "%s/ioctls", amu_dir);
		log = slurp(logp);
		result(r.status == 0 && strstr(r.out, "AMU interval 3: 1.000 s (2.000 to 3.000 s), ") &&
		       !strstr(r.out, "interval 4") &&
		       strstr(r.flat, "\n3 3000.0 100.00 0.50 10.00 4,000 8,000\n") &&
		       !strstr(r.flat, "\n0 "),
		       "amu cli: -C 1,3 -n 3: three intervals of those CPUs only");
		result(count_lines(log) == 4 && !strncmp(log, one, strlen(one)),
		       "amu cli: 4 reads for 3 intervals, one 8-byte bitmap, room for 2 records of 360 bytes (%.60s)",
		       log);
		free(log);
		unlink(logp);
	}
	cli_free(&r);

	/* Unavailable metrics: '-' and a footnote. */
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU=1:const-broken,3:mem-disabled", "amu", "-C", "0-3", "-I",
	    "10", (char *)NULL);
	result(r.status == 0 && strstr(r.flat, "\n1 -[1] -[1] 0.50 10.00 2,000 4,000\n") &&
	       strstr(r.out, "\n[1] the constant-rate counter is broken on this CPU (erratum"),
	       "amu cli: CONST_BROKEN: no frequency or busy share, '-' with its footnote; IPC and stalls kept");
	result(strstr(r.flat, "\n3 3000.0 100.00 0.50 -[2] 4,000 8,000\n") &&
	       strstr(r.out, "\n[2] the counter it needs is not implemented, or firmware did not enable it\n"),
	       "amu cli: memory-stall counter disabled by firmware: '-' and why");
	cli_free(&r);
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU=0:lost", "amu", "-C", "0-1", "-I", "10", (char *)NULL);
	result(r.status == 0 && strstr(r.flat, "\n0 -[1] -[1] -[1] -[1] -[1] -[1]\n") &&
	       strstr(r.out, "\n[1] lost: ") && strstr(r.flat, "\n1 3000.0 "),
	       "amu cli: LOST: every value of the CPU '-', said lost, no number");
	cli_free(&r);
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU=0:idle,1:aux-zero", "amu", "-C", "0-1", "-I", "10", (char *)NULL);
	result(r.status == 0 && strstr(r.flat, "\n0 -[1] 0.00 -[1] -[1] 1,000 2,000\n") &&
	       strstr(r.out, "[1] nothing to divide by: no cycles counted (idle"),
	       "amu cli: idle all the interval: busy 0.00, the rest has nothing to divide by");
	result(strstr(r.flat, "\n1 3000.0 100.00 0.50 10.00 -[2] -[2]\n") &&
	       strstr(r.out, "[2] group 1 reads zero on this CPU (AMCR_EL0.CG1RZ)"),
	       "amu cli: AUX_ZERO (CG1RZ): group-1 counters '-', group 0 kept");
	cli_free(&r);
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU=1:no-g1", "amu", "-C", "0-1", "-I", "10", (char *)NULL);
	result(r.status == 0 && strstr(r.flat, "\n1 3000.0 100.00 0.50 10.00 -[1] -[1]\n") &&
	       strstr(r.out, "[1] no such counter on this CPU"),
	       "amu cli: a CPU without another CPU's group-1 counter: '-', no such counter");
	cli_free(&r);

	/* No CPU read at an interval's end: its length by the monotonic clock. */
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU=1:gone", "amu", "-C", "1", "-I", "10", "-n", "2", (char *)NULL);
	{
		double a0 = -1, a1 = -1, b0 = -1, b1 = -1;
		const char *i2 = strstr(r.out, "AMU interval 2: ");

		sscanf(r.out, "AMU interval 1: %*f s (%lf to %lf s)", &a0, &a1);
		if (i2)
			sscanf(i2, "AMU interval 2: %*f s (%lf to %lf s)", &b0, &b1);
		/*
		 * The CLI waits for absolute deadlines (t0 + k x 10 ms) and
		 * times from its first read: on a loaded host a late read
		 * makes one interval long and the next short (0.012 then
		 * 0.008 s was seen), so only the order is fixed.
		 */
		result(r.status == 0 && strstr(r.out, "\ncpu1: offline\n") && a0 == 0 &&
		       a1 > 0 && b0 == a1 && b1 > a1 && b1 < 5,
		       "amu cli: no CPU read at the end: the interval by the monotonic clock (0 to %.3f, %.3f to %.3f s)",
		       a1, b0, b1);
	}
	cli_free(&r);

	/* CPUs without an AMU to read: said plainly. */
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU=2:absent,3:disabled,4:offline", "amu", "-I", "10", (char *)NULL);
	result(r.status == 0 && strstr(r.out, "\ncpu2: no AMU\n") &&
	       strstr(r.out, "\ncpu3: AMU not used (amu=0, or the kernel does not use it; amu=1 forces it)\n") &&
	       strstr(r.out, "\ncpu4: offline\n") && strstr(r.flat, "\n1 3000.0 "),
	       "amu cli: ABSENT, DISABLED, OFFLINE beside readable CPUs: plain lines, exit 0 (%d)",
	       r.status);
	cli_free(&r);
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU=0:absent,1:disabled,2:offline", "amu", "-C", "0-2", "-I",
	    "10", "--json", (char *)NULL);
	result(r.status == 3 && !*r.out && strstr(r.err, "pmuscope: cpu0: no AMU\n") &&
	       strstr(r.err, "pmuscope: cpu1: AMU not used (amu=0") &&
	       strstr(r.err, "pmuscope: cpu2: offline\n") &&
	       strstr(r.err, "no CPU asked for has an AMU to read"),
	       "amu cli: no CPU asked for has an AMU: exit 3, why on stderr, nothing on stdout (%d)",
	       r.status);
	cli_free(&r);
	cli(&r, "sys", "FAKE_PMUSCOPE_FEATURES=1;FAKE_PMUSCOPE_AMU_ERRNO=1", "amu", "-I", "10", (char *)NULL);
	result(r.status == 3 && strstr(r.err, "no PMUSCOPE_FEAT_AMU"),
	       "amu cli: a driver without PMUSCOPE_FEAT_AMU: exit 3, said so (%d)", r.status);
	cli_free(&r);
	/*
	 * A driver that reads no AMU (PMUSCOPE_FEAT_AMU clear) and refuses
	 * (EPERM): what sysfs's cpuN/amu says tells why, and amu=1 is
	 * suggested only for a CPU whose AMU the driver left alone.
	 */
#define NO_AMU "FAKE_PMUSCOPE_FEATURES=0x1;FAKE_PMUSCOPE_AMU_ERRNO=1"
	amu_words("w-absent", "0:absent,1:absent");
	cli(&r, "w-absent", NO_AMU, "amu", "-I", "10", "-C", "0-1", (char *)NULL);
	result(r.status == 3 && !strcmp(r.err,
		"pmuscope: cpu0: no Activity Monitors (ID_AA64PFR0_EL1.AMU is 0)\n"
		"pmuscope: cpu1: no Activity Monitors (ID_AA64PFR0_EL1.AMU is 0)\n"
		"pmuscope: the driver reads no CPU's Activity Monitors (no PMUSCOPE_FEAT_AMU): "
		"the CPUs asked for have no Activity Monitors\n"),
	       "amu cli: no AMU on the CPUs asked for: each said, exit 3 (%d)", r.status);
	cli_free(&r);
	cli(&r, "w-absent", NO_AMU, "amu", "-I", "10", "-C", "1", (char *)NULL);
	result(r.status == 3 && !strstr(r.err, "cpu0") &&
	       strstr(r.err, "the CPU asked for has no Activity Monitors\n"),
	       "amu cli: no AMU on the one CPU asked for: that CPU only, exit 3 (%d)", r.status);
	cli_free(&r);
	amu_words("w-off", "0:disabled,1:disabled");
	cli(&r, "w-off", NO_AMU, "amu", "-I", "10", "-C", "0", (char *)NULL);
	result(r.status == 3 && !strcmp(r.err,
		"pmuscope: cpu0: AMU not used (amu=0, or the kernel does not use it; amu=1 forces it)\n"
		"pmuscope: the driver reads no CPU's Activity Monitors (no PMUSCOPE_FEAT_AMU): "
		"it uses no CPU's AMU; amu=1 forces it where the CPU has one\n"),
	       "amu cli: the AMU turned off: amu=1 suggested, exit 3 (%d)", r.status);
	cli_free(&r);
	/* A big.LITTLE part: cpu0 without an AMU, cpu1 with one left off. */
	amu_words("w-mixed", "0:absent,1:disabled");
	cli(&r, "w-mixed", NO_AMU, "amu", "-I", "10", "-C", "0-1", (char *)NULL);
	result(r.status == 3 && strstr(r.err, "pmuscope: cpu0: no Activity Monitors (") &&
	       strstr(r.err, "pmuscope: cpu1: AMU not used (amu=0"),
	       "amu cli: mixed CPUs: each said, exit 3 (%d)", r.status);
	cli_free(&r);
	cli(&r, "w-mixed", NO_AMU, "amu", "-I", "10", "-C", "0", (char *)NULL);
	result(r.status == 3 && !strstr(r.err, "amu=1"),
	       "amu cli: mixed CPUs, the one without an AMU asked for: no amu=1 (%d)", r.status);
	cli_free(&r);
	/* No cpuN/amu word: nothing to tell the cases apart, no amu=1. */
	amu_words("w-none", "");
	cli(&r, "w-none", NO_AMU, "amu", "-I", "10", "-C", "0", (char *)NULL);
	result(r.status == 3 && !strcmp(r.err,
		"pmuscope: the driver reads no CPU's Activity Monitors (no PMUSCOPE_FEAT_AMU: "
		"no CPU has an AMU the driver uses)\n"),
	       "amu cli: no sysfs word: no suggestion, exit 3 (%d)", r.status);
	cli_free(&r);
	/* The driver reads AMUs, not for this caller: exit 5, no amu=1. */
	amu_words("w-present", "0:present,1:present");
	cli(&r, "w-present", "FAKE_PMUSCOPE_AMU_ERRNO=1", "amu", "-I", "10", "-C", "0",
	    (char *)NULL);
	result(r.status == 5 && !strstr(r.err, "amu=1"),
	       "amu cli: refused with an AMU present: exit 5, no amu=1 (%d)", r.status);
	cli_free(&r);
#undef NO_AMU
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU_ERRNO=25", "amu", "-I", "10", (char *)NULL);
	result(r.status == 3 && strstr(r.err, "older than API version 4"),
	       "amu cli: ENOTTY (an older driver): exit 3, said so (%d)", r.status);
	cli_free(&r);
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU_ERRNO=1", "amu", "-I", "10", (char *)NULL);
	result(r.status == 5 && strstr(r.err, "need root (CAP_PERFMON or CAP_SYS_ADMIN)") && !*r.out,
	       "amu cli: EPERM: exit 5 (permission, as every command), root or CAP_PERFMON needed (%d)",
	       r.status);
	cli_free(&r);
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU_ERRNO=5", "amu", "-I", "10", (char *)NULL);
	result(r.status == 1 && strstr(r.err, "AMU read failed: Input/output error"),
	       "amu cli: another error: exit 1 (%d)", r.status);
	cli_free(&r);

	/* Usage. */
	{
		static const char *const bad[][3] = {
			{ "-I", "5" }, { "-n", "0" }, { "-C", "0-" }, { "--bogus" }, { "ls" },
			{ "-e", "cycles" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			cli(&r, "sys", NULL, "amu", bad[i][0], bad[i][1], (char *)NULL);
			result(r.status == 2 && *r.err && !*r.out, "amu cli: usage error '%s%s%s': exit 2 (%d)",
			       bad[i][0], bad[i][1] ? " " : "", bad[i][1] ? bad[i][1] : "", r.status);
			cli_free(&r);
		}
	}
	cli(&r, "sys", NULL, "amu", "-C", "7", (char *)NULL);
	result(r.status == 1 && strstr(r.err, "cpu7 does not exist"),
	       "amu cli: a CPU that does not exist: exit 1, named (%d)", r.status);
	cli_free(&r);
	cli(&r, "sys", NULL, "amu", "--help", (char *)NULL);
	result(r.status == 0 && strstr(r.out, "[-C CPUS | -a] [-I MS] [-n COUNT] [--json | --csv]"),
	       "amu cli: --help");
	cli_free(&r);
	cli(&r, "sys", NULL, "--help", (char *)NULL);
	result(r.status == 0 && strstr(r.out, "\n  amu [OPTIONS] "), "amu cli: in pmuscope --help");
	cli_free(&r);

	/* JSON: valid, raw counts and metrics, null where unavailable. */
	cli(&r, "sys", "FAKE_PMUSCOPE_AMU=1:const-broken,2:absent", "amu", "-C", "0-2", "-I", "10",
	    "-n", "2", "--json", (char *)NULL);
	result(r.status == 0 && count_lines(r.out) == 2 && json_lines_valid(r.out),
	       "amu cli: --json -n 2: two lines, each a valid JSON object (python3 -m json.tool)");
	result(strstr(r.out, "{\"type\":\"amu\",\"seq\":0,\"time_s\":") &&
	       strstr(r.out, "\"freq\":1000000000,\"cpus\":[{\"cpu\":0,\"state\":\"ok\",\"version\":1,"
			     "\"flags\":[],\"time\":6000000000,\"ticks\":1000000000,\"metrics\":"
			     "{\"freq_hz\":2000000000,\"busy\":0.5,\"ipc\":1.5,\"mem_stall\":0.25},"
			     "\"unavailable\":{},\"group0\":[{\"index\":0,\"event\":\"CPU_CYCLES\","
			     "\"number\":17,\"enabled\":true,\"count\":1001000000000,\"delta\":1000000000}"),
	       "amu cli: --json: a CPU's state, time, ticks, metrics and raw counts with deltas");
	result(strstr(r.out, "\"metrics\":{\"freq_hz\":null,\"busy\":null,\"ipc\":0.5,\"mem_stall\":0.1},"
			     "\"unavailable\":{\"freq_hz\":\"const_broken\",\"busy\":\"const_broken\"}") &&
	       strstr(r.out, "\"flags\":[\"const_broken\"]"),
	       "amu cli: --json: unavailable metrics null, with why");
	result(strstr(r.out, "{\"cpu\":2,\"state\":\"absent\",\"version\":null,\"flags\":[],\"time\":null,"
			     "\"ticks\":null,\"metrics\":{\"freq_hz\":null,\"busy\":null,\"ipc\":null,"
			     "\"mem_stall\":null},\"unavailable\":{\"freq_hz\":\"not_read\"") &&
	       strstr(r.out, "\"group1\":[{\"index\":0,\"key\":\"STALL_BACKEND\",\"event\":\"STALL_BACKEND\","
			     "\"number\":36,\"implemented\":true,\"enabled\":true,\"count\":1000000001000,"
			     "\"delta\":1000,\"unavailable\":null}"),
	       "amu cli: --json: a CPU without AMU, all null; group-1 counters by key");
	cli_free(&r);

	/* CSV: one header, a row per CPU and interval. */
	static const char csv_head[] =
		"seq,time_s,cpu,state,flags,ticks,freq_hz,busy,ipc,mem_stall,CPU_CYCLES,CNT_CYCLES,"
		"INST_RETIRED,STALL_BACKEND_MEM,STALL_BACKEND,0x0300\n";

	cli(&r, "sys", "FAKE_PMUSCOPE_AMU=1:lost", "amu", "-C", "0-1", "-I", "10", "-n", "2", "--csv",
	    (char *)NULL);
	result(r.status == 0 && !strncmp(r.out, csv_head, strlen(csv_head)) &&
	       count_lines(r.out) == 5,
	       "amu cli: --csv: the header once, then a row per CPU and interval");
	result(strstr(r.out, ",0,ok,\"\",1000000000,2000000000,0.5,1.5,0.25,1000000000,500000000,"
			     "1500000000,250000000,1000,2000\n") &&
	       strstr(r.out, ",1,ok,\"lost\",1000000000,,,,,,,,,,\n"),
	       "amu cli: --csv: metrics and deltas; empty where unavailable (lost)");
	cli_free(&r);

	/* The emulated driver: the banner on stderr, stdout still JSON. */
	cli(&r, "emu", NULL, "amu", "-I", "10", "--json", (char *)NULL);
	result(r.status == 0 && strstr(r.err, "pmuscope: EMULATED CPU (pmuscope_emu.ko, register model "
					      "profile neoverse-n1): not hardware") &&
	       json_lines_valid(r.out),
	       "amu cli: against pmuscope_emu.ko, the EMULATED banner on stderr; JSON valid");
	cli_free(&r);

	snprintf(path, sizeof(path), "rm -rf '%s'", amu_dir);
	if (system(path))
		result(0, "removing %s", amu_dir);
}


/* --------------------------------------------------------- SPE decoder */
#define B8(v)	(v) & 0xff, ((v) >> 8) & 0xff, ((v) >> 16) & 0xff, ((v) >> 24) & 0xff, \
		((v) >> 32) & 0xff, ((v) >> 40) & 0xff, ((v) >> 48) & 0xff, ((v) >> 56) & 0xff

static void test_spe_packets(void)
{
	static const struct {
		const char *name;
		unsigned char b[20];
		size_t n;
		uint8_t type, index, len, ext;
		uint64_t payload;
		const char *desc;
	} cases[] = {
		{ "pad", { 0x00 }, 1, PMUSCOPE_SPE_PKT_PAD, 0, 1, 0, 0, "PAD" },
		{ "3 pads are one", { 0, 0, 0, 1 }, 4, PMUSCOPE_SPE_PKT_PAD, 0, 3, 0, 0, "PAD" },
		{ "pads: 16 at most", { 0 }, 18, PMUSCOPE_SPE_PKT_PAD, 0, 16, 0, 0, "PAD" },
		{ "end", { 0x01, 0x01 }, 2, PMUSCOPE_SPE_PKT_END, 0, 1, 0, 0, "END" },
		{ "timestamp", { 0x71, B8(0x123456789aULL) }, 9, PMUSCOPE_SPE_PKT_TIMESTAMP, 0, 9,
		  0, 0x123456789aULL, "TS 78187493530" },
		{ "timestamp, signed as perf prints it", { 0x71, B8(0xffffffffffffffffULL) }, 9,
		  PMUSCOPE_SPE_PKT_TIMESTAMP, 0, 9, 0, ~0ULL, "TS -1" },
		{ "events, 1 byte", { 0x42, 0x02 }, 2, PMUSCOPE_SPE_PKT_EVENTS, 1, 2, 0, 2,
		  "EV RETIRED" },
		{ "events, 2 bytes", { 0x52, 0x0a, 0x02 }, 3, PMUSCOPE_SPE_PKT_EVENTS, 2, 3, 0,
		  0x20a, "EV RETIRED L1D-REFILL LLC-REFILL" },
		{ "events, 4 bytes", { 0x62, 0x00, 0x00, 0x06, 0x00 }, 5, PMUSCOPE_SPE_PKT_EVENTS,
		  4, 5, 0, 0x60000, "EV SVE-PARTIAL-PRED SVE-EMPTY-PRED" },
		{ "events, 8 bytes", { 0x72, B8(0x8000000000000031ULL) }, 9,
		  PMUSCOPE_SPE_PKT_EVENTS, 8, 9, 0, 0x8000000000000031ULL,
		  "EV EXCEPTION-GEN TLB-ACCESS TLB-REFILL" },
		{ "data source", { 0x43, 0x05 }, 2, PMUSCOPE_SPE_PKT_DATA_SOURCE, 0, 2, 0, 5,
		  "DATA-SOURCE 5" },
		{ "data source, 2 bytes", { 0x53, 0x34, 0x12 }, 3, PMUSCOPE_SPE_PKT_DATA_SOURCE, 0,
		  3, 0, 0x1234, "DATA-SOURCE 4660" },
		{ "context el1", { 0x64, 0x39, 0x30, 0, 0 }, 5, PMUSCOPE_SPE_PKT_CONTEXT, 0, 5, 0,
		  12345, "CONTEXT 0x3039 el1" },
		{ "context el2", { 0x65, 0x34, 0x12, 0, 0 }, 5, PMUSCOPE_SPE_PKT_CONTEXT, 1, 5, 0,
		  0x1234, "CONTEXT 0x1234 el2" },
		{ "op load", { 0x49, 0x00 }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 1, 2, 0, 0, "LD GP-REG" },
		{ "op store", { 0x49, 0x01 }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 1, 2, 0, 1, "ST GP-REG" },
		{ "op atomic", { 0x49, 0x17 }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 1, 2, 0, 0x17, "ST AT AR" },
		{ "op simd", { 0x49, 0x04 }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 1, 2, 0, 4, "LD SIMD-FP" },
		{ "op sve ld", { 0x49, 0xac }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 1, 2, 0, 0xac,
		  "LD EVLEN 128 PRED SG" },
		{ "op memset", { 0x49, 0x25 }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 1, 2, 0, 0x25,
		  "ST MEMSET" },
		{ "op branch", { 0x4a, 0x01 }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 2, 2, 0, 1, "B COND" },
		{ "op branch ind bl", { 0x4a, 0x0a }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 2, 2, 0, 0xa,
		  "B IND CR-BL" },
		{ "op branch ret", { 0x4a, 0x16 }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 2, 2, 0, 0x16,
		  "B IND GCS CR-RET" },
		{ "op other", { 0x48, 0x00 }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 0, 2, 0, 0,
		  "OTHER INSN-OTHER" },
		{ "op other cond", { 0x48, 0x01 }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 0, 2, 0, 1,
		  "OTHER COND-SELECT" },
		{ "op sve other", { 0x48, 0x3e }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 0, 2, 0, 0x3e,
		  "SVE-OTHER EVLEN 256 FP PRED" },
		{ "op class 3 (reserved): raw", { 0x4b, 0x05 }, 2, PMUSCOPE_SPE_PKT_OP_TYPE, 3, 2, 0,
		  5, "OP-TYPE 0x5 (3)" },
		{ "pc el1 ns", { 0xb0, B8(0xa0ff800080001234ULL) }, 9, PMUSCOPE_SPE_PKT_ADDRESS, 0, 9,
		  0, 0xa0ff800080001234ULL, "PC 0xff800080001234 el1 ns=1" },
		{ "branch target", { 0xb1, B8(0x0000000000400200ULL) }, 9, PMUSCOPE_SPE_PKT_ADDRESS,
		  1, 9, 0, 0x400200, "TGT 0x400200 el0 ns=0" },
		{ "data va with tag", { 0xb2, B8(0xf000aaaabbbbccccULL) }, 9,
		  PMUSCOPE_SPE_PKT_ADDRESS, 2, 9, 0, 0xf000aaaabbbbccccULL, "VA 0xf000aaaabbbbcccc" },
		{ "data pa", { 0xb3, B8(0xc512345000ULL | 0xc500000000000000ULL) }, 9,
		  PMUSCOPE_SPE_PKT_ADDRESS, 3, 9, 0, 0xc50000c512345000ULL,
		  "PA 0xc512345000 ns=1 ch=1 pat=5" },
		{ "previous branch", { 0xb4, B8(0x4000000000400300ULL) }, 9,
		  PMUSCOPE_SPE_PKT_ADDRESS, 4, 9, 0, 0x4000000000400300ULL, "PBT 0x400300 el2 ns=0" },
		{ "address index 5: raw", { 0xb5, B8(0x77ULL) }, 9, PMUSCOPE_SPE_PKT_ADDRESS, 5, 9,
		  0, 0x77, "ADDR 0x77 (5)" },
		{ "extended pc", { 0x20, 0xb0, B8(0x400100ULL) }, 10, PMUSCOPE_SPE_PKT_ADDRESS, 0,
		  10, 1, 0x400100, "PC 0x400100 el0 ns=0" },
		{ "extended address index 10", { 0x21, 0xb2, B8(0x99ULL) }, 10,
		  PMUSCOPE_SPE_PKT_ADDRESS, 10, 10, 1, 0x99, "ADDR 0x99 (10)" },
		{ "total latency", { 0x98, 0x2c, 0x01 }, 3, PMUSCOPE_SPE_PKT_COUNTER, 0, 3, 0, 300,
		  "LAT 300 TOT" },
		{ "issue latency", { 0x99, 0x07, 0x00 }, 3, PMUSCOPE_SPE_PKT_COUNTER, 1, 3, 0, 7,
		  "LAT 7 ISSUE" },
		{ "translation latency", { 0x9a, 0xff, 0xff }, 3, PMUSCOPE_SPE_PKT_COUNTER, 2, 3, 0,
		  65535, "LAT 65535 XLAT" },
		{ "counter index 3", { 0x9b, 0x05, 0x00 }, 3, PMUSCOPE_SPE_PKT_COUNTER, 3, 3, 0, 5,
		  "LAT 5 " },
		{ "extended counter index 31", { 0x23, 0x9f, 0x02, 0x00 }, 4,
		  PMUSCOPE_SPE_PKT_COUNTER, 31, 4, 1, 2, "LAT 2 " },
		{ "0x20 alone", { 0x20 }, 1, PMUSCOPE_SPE_PKT_BAD, 0, 1, 0, 0, "Bad packet!" },
		{ "0x20 0x00 (perf: alignment)", { 0x20, 0x00, 0x00, 0x00 }, 4, PMUSCOPE_SPE_PKT_BAD,
		  0, 1, 0, 0, "Bad packet!" },
		{ "extended header, then END", { 0x20, 0x01 }, 2, PMUSCOPE_SPE_PKT_BAD, 0, 1, 0, 0,
		  "Bad packet!" },
		{ "unknown header 0x02", { 0x02 }, 1, PMUSCOPE_SPE_PKT_BAD, 0, 1, 0, 0, "Bad packet!" },
		{ "unknown header 0xff", { 0xff, 0, 0 }, 3, PMUSCOPE_SPE_PKT_BAD, 0, 1, 0, 0,
		  "Bad packet!" },
		{ "address cut short", { 0xb0, 1, 2 }, 3, PMUSCOPE_SPE_PKT_BAD, 0, 1, 0, 0,
		  "Bad packet!" },
		{ "extended address cut short", { 0x22, 0xb0, 1, 2, 3 }, 5, PMUSCOPE_SPE_PKT_BAD, 0,
		  1, 0, 0, "Bad packet!" },
		{ "counter cut short", { 0x98, 1 }, 2, PMUSCOPE_SPE_PKT_BAD, 0, 1, 0, 0,
		  "Bad packet!" },
		{ "events cut short", { 0x62, 1, 2 }, 3, PMUSCOPE_SPE_PKT_BAD, 0, 1, 0, 0,
		  "Bad packet!" },
	};
	struct pmuscope_spe_pkt p;
	char desc[256];
	size_t off;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned char *exact = malloc(cases[i].n);	/* nothing readable after it */
		int len;

		if (!exact)
			return;
		memcpy(exact, cases[i].b, cases[i].n);
		len = pmuscope_spe_pkt_get(exact, cases[i].n, &p);
		pmuscope_spe_pkt_desc(&p, desc, sizeof(desc));
		result(len == cases[i].len && p.len == cases[i].len && p.type == cases[i].type &&
		       p.index == cases[i].index && p.ext == cases[i].ext &&
		       p.payload == cases[i].payload && !strcmp(desc, cases[i].desc),
		       "spe packet %s: len %d type %u index %u ext %u payload 0x%llx '%s'",
		       cases[i].name, len, p.type, p.index, p.ext, (unsigned long long)p.payload,
		       desc);
		free(exact);
	}
	/* The address fields. */
	{
		static const unsigned char pa[] = { 0xb3, B8(0xc50000c512345000ULL) };
		static const unsigned char va[] = { 0xb2, B8(0xf000aaaabbbbccccULL) };
		static const unsigned char pc[] = { 0xb0, B8(0xa0ff800080001234ULL) };
		int ok = 1;

		pmuscope_spe_pkt_get(pa, sizeof(pa), &p);
		ok &= p.addr == 0xc512345000ULL && p.ns == 1 && p.ch == 1 && p.pat == 5;
		pmuscope_spe_pkt_get(va, sizeof(va), &p);
		ok &= p.addr == 0x00aaaabbbbccccULL && p.tag == 0xf0;
		pmuscope_spe_pkt_get(pc, sizeof(pc), &p);
		ok &= p.addr == 0xff800080001234ULL && p.el == 1 && p.ns == 1;
		result(ok, "spe address fields: PA NS/CH/PAT, VA tag byte, PC EL/NS, 56-bit addresses");
	}
	/* perf report -D's line. */
	{
		static const unsigned char b[] = { 0x98, 0x2c, 0x01 };
		static const char want[] =
			".  00000010:  98 2c 01                                        LAT 300 TOT";
		char line[400];

		pmuscope_spe_pkt_get(b, sizeof(b), &p);
		pmuscope_spe_pkt_line(&p, b, 16, line, sizeof(line));
		result(!strcmp(line, want), "spe packet line as perf report -D: '%s'", line);
		pmuscope_spe_pkt_line(&p, b, 16, line, 10);
		result(strlen(line) == 9 && !strncmp(line, want, 9),
		       "spe packet line cut short, never overrun");
	}
	/* Every byte of a garbage buffer: never past its end, 1..16 bytes each. */
	{
		unsigned char g[512];
		size_t n = 0, bad = 0;
		int ok = 1;

		for (size_t i = 0; i < sizeof(g); i++)
			g[i] = (i * 131 + 7) ^ (i >> 3);
		g[sizeof(g) - 1] = 0x20;
		off = 0;
		while (pmuscope_spe_pkt_next(g, sizeof(g), &off, &p) == 1) {
			n++;
			bad += p.type == PMUSCOPE_SPE_PKT_BAD;
			ok &= p.len >= 1 && p.len <= 16 && off <= sizeof(g);
		}
		result(ok && off == sizeof(g) && n && bad && p.type == PMUSCOPE_SPE_PKT_BAD,
		       "spe garbage: %zu packets (%zu bad), the last (0x20 at the end) bad, all within",
		       n, bad);
		result(pmuscope_spe_pkt_next(g, sizeof(g), &off, &p) == 0 &&
		       pmuscope_spe_pkt_get(g, 0, &p) == 0, "spe: nothing after the end");
	}
}

static void test_spe_records(void)
{
	static const unsigned char b[] = {
		0x00, 0x00,					/* padding before */
		/* record 1: a load, every field, ended by a timestamp */
		0xb0, B8(0x0000000000400100ULL),
		0x49, 0x00,
		0x52, 0x0e, 0x02,
		0x98, 0x64, 0x00,
		0x99, 0x03, 0x00,
		0x9a, 0x09, 0x00,
		0xb2, B8(0x0a00ffff00001000ULL),
		0xb3, B8(0x8000000080001000ULL),
		0x43, 0x0b,
		0x64, 0xd2, 0x04, 0x00, 0x00,
		0x71, B8(0x1000ULL),
		/* record 2: a branch, END */
		0xb0, B8(0x2000000000400200ULL),
		0x4a, 0x01,
		0xb1, B8(0x0000000000400300ULL),
		0x42, 0x42,
		0x01,
		0x00, 0x00, 0x00,				/* padding between */
		/* record 3: a store with a bad byte, then cut short */
		0xb0, B8(0x0000000000400400ULL),
		0x02,
		0x49, 0x01,
	};
	struct pmuscope_spe_record r;
	size_t off = 0;
	int ret, ok;

	ret = pmuscope_spe_record_next(b, sizeof(b), &off, &r);
	ok = ret == 1 && r.start == 2 &&
	     r.valid == (PMUSCOPE_SPE_R_PC | PMUSCOPE_SPE_R_OP | PMUSCOPE_SPE_R_EVENTS |
			 PMUSCOPE_SPE_R_LAT_TOTAL | PMUSCOPE_SPE_R_LAT_ISSUE |
			 PMUSCOPE_SPE_R_LAT_XLAT | PMUSCOPE_SPE_R_VA | PMUSCOPE_SPE_R_PA |
			 PMUSCOPE_SPE_R_SOURCE | PMUSCOPE_SPE_R_CONTEXT |
			 PMUSCOPE_SPE_R_TIMESTAMP | PMUSCOPE_SPE_R_END) &&
	     r.pc == 0x400100 && r.el == 0 && pmuscope_spe_op_is_load(&r) &&
	     !pmuscope_spe_op_is_store(&r) && r.events == 0x20e && r.lat_total == 100 &&
	     r.lat_issue == 3 && r.lat_xlat == 9 && r.va == 0xffff00001000ULL && r.va_tag == 0x0a &&
	     r.pa == 0x80001000 && r.pa_ns == 1 && r.pa_ch == 0 && r.source == 11 &&
	     r.context == 1234 && r.context_el == 1 && r.timestamp == 0x1000 && !r.bad &&
	     off == r.start + r.len;
	result(ok, "spe record 1: a load, every field, ended by its timestamp (valid 0x%x)", r.valid);
	ret = pmuscope_spe_record_next(b, sizeof(b), &off, &r);
	result(ret == 1 && pmuscope_spe_op_is_branch(&r) && r.pc == 0x400200 && r.el == 1 &&
	       r.branch == 0x400300 && (r.valid & PMUSCOPE_SPE_R_BRANCH) && r.events == 0x42 &&
	       (r.valid & PMUSCOPE_SPE_R_END) && !(r.valid & PMUSCOPE_SPE_R_TIMESTAMP),
	       "spe record 2: a branch with its target, ended by END");
	ret = pmuscope_spe_record_next(b, sizeof(b), &off, &r);
	result(ret == 1 && r.pc == 0x400400 && pmuscope_spe_op_is_store(&r) && r.bad == 1 &&
	       !(r.valid & PMUSCOPE_SPE_R_END) && off == sizeof(b),
	       "spe record 3: a bad byte counted, cut short by the end (no R_END)");
	result(pmuscope_spe_record_next(b, sizeof(b), &off, &r) == 0,
	       "spe records: no more after the last");
	off = 0;
	result(pmuscope_spe_record_next(b, 2, &off, &r) == 0 && off == 2,
	       "spe records: padding only is no record");
}

/* A chunk of @n bytes of @data for @cpu in @buf; returns its size. */
static size_t spe_chunk(unsigned char *buf, uint32_t cpu, uint32_t flags, uint64_t lost,
			const unsigned char *data, size_t n)
{
	struct pmuscope_spe_chunk c = {
		.size = (32 + n + 7) & ~7UL, .cpu = cpu, .time = 100 + cpu,
		.data_size = n, .flags = flags, .lost = lost,
	};

	memcpy(buf, &c, sizeof(c));
	memcpy(buf + 32, data, n);
	memset(buf + 32 + n, 0, c.size - 32 - n);
	return c.size;
}

/* A load record at @pc, total latency @lat, events @ev, source @src, context @pid. */
static size_t spe_load(unsigned char *p, uint64_t pc, uint16_t lat, uint16_t ev, uint8_t src,
		       uint32_t pid)
{
	size_t n = 0;

	p[n++] = 0xb0;
	for (int i = 0; i < 8; i++)
		p[n++] = pc >> (8 * i);
	p[n++] = 0x49;
	p[n++] = 0x00;
	p[n++] = 0x52;
	p[n++] = ev;
	p[n++] = ev >> 8;
	p[n++] = 0x98;
	p[n++] = lat;
	p[n++] = lat >> 8;
	p[n++] = 0x43;
	p[n++] = src;
	p[n++] = 0x64;
	for (int i = 0; i < 4; i++)
		p[n++] = pid >> (8 * i);
	p[n++] = 0x01;
	return n;
}

static void test_spe_chunks_and_file(void)
{
	char tmpl[] = "/tmp/pmuscope-spe-XXXXXX", path[300], err[400];
	static char *argv[] = { "pmuscope", "spe", "record", "--", "./loop" };
	unsigned char data[64], buf[256], *file;
	struct pmuscope_spe_chunk c;
	const unsigned char *d;
	struct spef_writer w;
	struct spef_header h;
	struct spef s;
	size_t off = 0, n = spe_load(data, 0x400100, 50, 0x6, 0, 77), total = 0, size;
	int ret, all_rejected = 1;
	FILE *f;

	/* The chunk parser. */
	total += spe_chunk(buf, 0, 0, 0, data, n);
	total += spe_chunk(buf + total, 1, PMUSCOPE_SPE_C_LOST, 64, data, 5);
	ret = pmuscope_spe_chunk_next(buf, total, &off, &c, &d, err, sizeof(err));
	result(ret == 1 && c.cpu == 0 && c.data_size == n && d == buf + 32 &&
	       off == ((32 + n + 7) & ~7UL), "spe chunk parser: the first chunk");
	ret = pmuscope_spe_chunk_next(buf, total, &off, &c, &d, err, sizeof(err));
	result(ret == 1 && c.cpu == 1 && c.lost == 64 && c.flags == PMUSCOPE_SPE_C_LOST &&
	       off == total && pmuscope_spe_chunk_next(buf, total, &off, &c, &d, err, sizeof(err)) == 0,
	       "spe chunk parser: the second chunk, then no more");
	{
		static const struct {
			const char *name;
			size_t at;	/* byte to change */
			unsigned char v;
			size_t len;	/* bytes given; 0: all */
			const char *msg;
		} bad[] = {
			{ "size not a multiple of 8", 0, 0x21, 0, "not a multiple of 8" },
			{ "data beyond the size", 16, 0x40, 0, "do not fit" },
			{ "padding above 7 bytes", 16, 0x01, 0, "do not fit" },
			{ "padding not zero", 32 + 31, 0x01, 0, "padding byte" },
			{ "unknown flag", 20, 0x10, 0, "unknown flags" },
			{ "cut short in the header", 0, 0, 20, "not a 32-byte header" },
			{ "cut short in the data", 0, 0, 40, "only 40 bytes left" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			unsigned char b2[128];
			size_t len = spe_chunk(b2, 0, 0, 0, data, 31);

			if (bad[i].len)
				len = bad[i].len;
			else
				b2[bad[i].at] = bad[i].v;
			off = 0;
			err[0] = '\0';
			ret = pmuscope_spe_chunk_next(b2, len, &off, &c, &d, err, sizeof(err));
			result(ret == -EBADMSG && off == 0 && strstr(err, bad[i].msg),
			       "spe chunk parser rejects %s: %s", bad[i].name, err);
		}
	}

	/* The file: written, read back whole. */
	if (!mkdtemp(tmpl)) {
		result(0, "spe file: mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/spe.data", tmpl);
	memset(&h, 0, sizeof(h));
	h.freq = 62500000;
	h.start_time = 12345;
	h.flags = SPEF_SOURCE_KERNEL | SPEF_EMULATED;
	h.spe_flags = PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_CX;
	h.interval = 4096;
	ret = spef_create(&w, path, &h, 5, argv, err, sizeof(err));
	off = 0;
	while (!ret && pmuscope_spe_chunk_next(buf, total, &off, &c, &d, err, sizeof(err)) == 1)
		ret = spef_write_chunk(&w, &c, d);
	if (!ret)
		ret = spef_finish(&w, 4242, "400000-401000 r-xp 00000000 08:01 1 /bin/loop\n", 46,
				  err, sizeof(err));
	result(!ret, "spe file written: %s", ret ? err : "");
	ret = spef_read(path, &s, err, sizeof(err));
	result(!ret && s.h.freq == 62500000 && s.h.start_time == 12345 &&
	       s.h.flags == (SPEF_SOURCE_KERNEL | SPEF_EMULATED) && s.h.interval == 4096 &&
	       s.h.pid == 4242 && s.h.finished && s.h.argc == 5 && !strcmp(s.argv[4], "./loop") &&
	       s.h.data_size == total && !memcmp(s.chunks, buf, total) && s.h.maps_size == 46 &&
	       !strncmp(s.maps, "400000-401000", 13),
	       "spe file round trip: header, command line, chunks unchanged, maps (%s)",
	       ret ? err : "ok");
	size = s.size;
	file = ret ? NULL : malloc(size);
	if (file)
		memcpy(file, s.file, size);
	spef_free(&s);
	if (!file)
		return;
	/* Every truncation is rejected. */
	for (size_t len = 0; len < size; len++) {
		unsigned char *copy = malloc(len ? len : 1);

		memcpy(copy, file, len);
		if (!spef_parse(copy, len, &s, err, sizeof(err)))
			all_rejected = 0;
		spef_free(&s);
	}
	result(all_rejected, "spe file: each of its %zu truncations is rejected", size);
	{
		static const struct {
			const char *name;
			size_t at;
			unsigned char v;
			const char *msg;
		} bad[] = {
			{ "magic", 0, 'X', "no \"PMSCSPE1\" magic" },
			{ "version", 8, 2, "version 2" },
			{ "header size", 12, 0x70, "header size" },
			{ "flags", 32, 0x80, "unknown header flags" },
			{ "command line", 96 + 8, 'x', "NUL-terminated" },
			{ "data size", 72, 0x01, "cut short or corrupt" },
			{ "first chunk's size", 128, 0x3f, "not a multiple of 8" },
			{ "maps padding", SIZE_MAX, 0, "maps padding" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			unsigned char *copy = malloc(size);

			memcpy(copy, file, size);
			if (bad[i].at == SIZE_MAX)
				copy[size - 1] = 1;	/* maps_size 46: 2 bytes of padding */
			else
				copy[bad[i].at] = bad[i].v;
			err[0] = '\0';
			ret = spef_parse(copy, size, &s, err, sizeof(err));
			result(ret == -EBADMSG && strstr(err, bad[i].msg),
			       "spe file rejects a corrupt %s: %s", bad[i].name, err);
			spef_free(&s);
		}
	}
	/* Unfinished (the recorder died): its whole chunks are read. */
	{
		unsigned char *copy = malloc(size);
		struct spef_header *hp = (struct spef_header *)copy;
		size_t hs;

		memcpy(copy, file, size);
		hs = hp->header_size;
		hp->finished = 0;
		hp->data_size = 0;
		hp->maps_size = 0;
		hp->pid = 0;
		ret = spef_parse(copy, hs + total, &s, err, sizeof(err));
		result(!ret && s.h.data_size == total && !s.h.finished,
		       "spe file unfinished: its %zu bytes of whole chunks are read (%s)", total,
		       ret ? err : "ok");
		spef_free(&s);
	}
	free(file);
	f = fopen(path, "w");
	if (f)
		fclose(f);
	ret = spef_read(path, &s, err, sizeof(err));
	result(ret == -EBADMSG && strstr(err, "shorter than the 96-byte header"),
	       "spe file: an empty file is rejected: %s", err);
	unlink(path);
	rmdir(tmpl);
}

static void test_spe_report(void)
{
	/*
	 * 8 loads: PCs A A A B B C A B, latencies 0 3 4 100 5000 64 7 300,
	 * events L1D refill on 2 of them, LLC miss on 1, TLB walk on 1,
	 * sources 0 0 0 8 8 14 0 8, contexts 10 (five) and 20 (three); one
	 * store and one branch of context 10.
	 */
	static const struct {
		uint64_t pc;
		uint16_t lat, ev;
		uint8_t src;
		uint32_t pid;
	} loads[] = {
		{ 0x1000, 0, 0x006, 0, 10 }, { 0x1000, 3, 0x006, 0, 10 },
		{ 0x1000, 4, 0x00e, 0, 20 }, { 0x2000, 100, 0x026, 8, 10 },
		{ 0x2000, 5000, 0x20e, 8, 20 }, { 0x3000, 64, 0x006, 14, 10 },
		{ 0x1000, 7, 0x006, 0, 20 }, { 0x2000, 300, 0x006, 8, 10 },
	};
	static const uint64_t want_hist[SPE_LAT_BUCKETS] = { 2, 2, 0, 0, 0, 2, 0, 1, 0, 0, 0, 1 };
	unsigned char data[1024], chunk[1200];
	struct pmuscope_spe_chunk c;
	struct spe_stats s;
	struct spe_pc top[3];
	size_t n = 0, k;
	int ok;

	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++)
		n += spe_load(data + n, loads[i].pc, loads[i].lat, loads[i].ev, loads[i].src,
			      loads[i].pid);
	/* A store and a branch at 0x4000, context 10, then padding. */
	n += spe_load(data + n, 0x4000, 9, 0x2, 0, 10);
	data[n - 25 + 10] = 0x01;			/* OP payload: store */
	n += spe_load(data + n, 0x4000, 1, 0x2, 0, 10);
	data[n - 25 + 9] = 0x4a;			/* OP header: branch */
	data[n++] = 0x00;
	spe_chunk(chunk, 3, PMUSCOPE_SPE_C_LOST | PMUSCOPE_SPE_C_COLLISION, 256, data, n);
	memcpy(&c, chunk, sizeof(c));

	result(spe_lat_bucket(0) == 0 && spe_lat_bucket(3) == 0 && spe_lat_bucket(4) == 1 &&
	       spe_lat_bucket(7) == 1 && spe_lat_bucket(8) == 2 && spe_lat_bucket(4095) == 10 &&
	       spe_lat_bucket(4096) == 11 && spe_lat_bucket(65535) == 11,
	       "spe latency buckets: edges 0, 4, 8, ... 4096 and above");
	if (spe_stats_init(&s))
		return;
	spe_stats_chunk(&s, &c, chunk + 32);
	ok = s.records == 10 && s.loads == 8 && s.stores == 1 && s.branches == 1 && !s.other &&
	     s.chunks == 1 && s.data_bytes == n && s.lost_bytes == 256 &&
	     s.chunk_flags[0] == 1 && s.chunk_flags[1] == 1 && !s.chunk_flags[2] &&
	     s.cpu[3].chunks == 1 && s.cpu[3].lost == 256 && s.el[0] == 10 && !s.bad_packets;
	result(ok, "spe report: 10 records, 8 loads, 1 store, 1 branch; lost 256 bytes, flags");
	ok = !memcmp(s.lat_hist, want_hist, sizeof(want_hist)) && s.lat_loads == 8 &&
	     s.lat_sum == 5478 && s.lat_max == 5000;
	result(ok, "spe report: load latency histogram 2 2 0 0 0 2 0 1 0 0 0 1 (64 and 100 in 64-127), sum 5478, max 5000");
	ok = s.ev[1] == 10 && s.ev_loads[1] == 8 && s.ev_loads[3] == 2 && s.ev_loads[9] == 1 &&
	     s.ev_loads[5] == 1 && s.ev[2] == 8;
	result(ok, "spe report: events: retired 10 (8 loads), L1D refill 2, LLC miss 1, TLB walk 1");
	ok = s.nr_src == 3 && s.src_value[0] == 0 && s.src_count[0] == 4 &&
	     s.src_value[1] == 8 && s.src_count[1] == 3 && s.src_value[2] == 14 &&
	     s.src_count[2] == 1 && s.src_loads == 8;
	result(ok, "spe report: data sources of loads 0: 4, 8: 3, 14: 1");
	k = spe_stats_top(&s, top, 3);
	result(k == 3 && top[0].pc == 0x1000 && top[0].count == 4 && top[1].pc == 0x2000 &&
	       top[1].count == 3 && top[2].pc == 0x4000 && top[2].count == 2,
	       "spe report: hot PCs 0x1000 (4), 0x2000 (3), 0x4000 (2), ties by PC");
	spe_stats_free(&s);

	if (spe_stats_init(&s))
		return;
	s.pid_filter = 1;
	s.pid = 20;
	spe_stats_chunk(&s, &c, chunk + 32);
	k = spe_stats_top(&s, top, 3);
	result(s.records == 3 && s.loads == 3 && s.filtered_out == 7 && s.with_context == 10 &&
	       s.lat_max == 5000 && k == 2 && top[0].pc == 0x1000 && top[0].count == 2,
	       "spe report: restricted to context 20: 3 loads, 7 left out");
	spe_stats_free(&s);
}

int main(int argc, char **argv)
{
	static struct report r;

	/* Hermetic: never the sysfs of a driver loaded on this machine. */
	setenv("PMUSCOPE_SYSFS", "/nonexistent/pmuscope-test", 1);

	if (argc == 2 && !strcmp(argv[1], "--stream2")) {
		stream2_run();
		return failed ? 1 : 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--sample") && !strncmp(argv[2], "snapshot-", 9)) {
		struct report_snapshot snap;
		const char *fmt = argv[2] + 9;
		enum report_format rf = !strcmp(fmt, "json") ? REPORT_JSON :
					!strcmp(fmt, "csv") ? REPORT_CSV : REPORT_TABLE;

		for (unsigned int seq = 0; seq < 2; seq++) {
			snap_sample(&snap, seq);
			report_snapshot_print(stdout, &snap, rf, seq == 0);
		}
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "--sample")) {
		sample(&r);
		r.per_cpu = 1;
		if (!strcmp(argv[2], "json")) {
			r.kind = REPORT_INTERVAL;
			r.time_s = 0.1;
			report_print(stdout, &r, REPORT_JSON, 1);
			r.kind = REPORT_TOTAL;
			report_print(stdout, &r, REPORT_JSON, 0);
		} else if (!strcmp(argv[2], "csv")) {
			r.kind = REPORT_INTERVAL;
			r.time_s = 0.1;
			report_print(stdout, &r, REPORT_CSV, 1);
			r.kind = REPORT_TOTAL;
			report_print(stdout, &r, REPORT_CSV, 0);
		} else {
			report_print(stdout, &r, REPORT_TABLE, 1);
		}
		return 0;
	}
	result(pmuscope_enable(NULL) == -EINVAL && pmuscope_read(NULL, NULL, 0, NULL) == -EINVAL &&
	       pmuscope_swinc(NULL, 1, 0, 1) == -EINVAL && pmuscope_features(NULL) == 0 &&
	       strstr(pmuscope_errmsg(NULL), "no pmuscope session"),
	       "a NULL session: -EINVAL and a message, no crash");
	test_events();
	test_core_events();
	test_kernel_el();
	test_cpulists();
	test_scale();
	test_metrics();
	test_table();
	test_snap_names();
	test_snap_hw();
	test_snap_report();
	test_records();
	test_chains();
	test_stream2(argv[0]);
	test_datafile();
	test_datafile_truncated();
	test_datafile_chains();
	test_maps();
	test_read_input();
	test_amu_metrics();
	test_amu_cli();
	test_spe_packets();
	test_spe_records();
	test_spe_chunks_and_file();
	test_spe_report();
	return result_summary();
}
