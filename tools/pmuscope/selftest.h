/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope test: the checks (selftest-checks.c) and what they report to
 * the command (builtin-test.c), as perf test's tests and their results.
 */
#ifndef PMUSCOPE_SELFTEST_H
#define PMUSCOPE_SELFTEST_H

#include <stddef.h>
#include <stdint.h>

#include "pmuscope.h"

enum st_verdict { ST_OK, ST_FAILED, ST_SKIP };

#define ST_MAX_MEASURED	48
#define ST_TYPES_MAX	8

/* One measured value: a key and its value as text (a number where it is one). */
struct st_measured {
	char key[64];
	char value[512];
};

struct st_result {
	enum st_verdict verdict;
	char reason[320];	/* Skip: why; FAILED: what was wrong */
	char remedy[240];	/* FAILED: what to do */
	unsigned int nr;
	struct st_measured m[ST_MAX_MEASURED];
};

/* A CPU type: the CPUs of one MIDR (variant and revision included). */
struct st_type {
	uint32_t midr;
	int cpu;		/* its first online CPU this process may run on: where its checks run */
	int first_cpu;		/* its first online CPU */
	char name[32];
};

/* What every check may use, found once by the command. */
struct st_ctx {
	int loaded;		/* /dev/pmuscope opened */
	char open_err[256];	/* why not */
	uint64_t features;
	char backend[16];	/* "direct", "perf" or "" */
	unsigned int nr_types;
	struct st_type types[ST_TYPES_MAX];
	char unreachable[256];	/* types with no CPU in this process's affinity */
	int privileged;		/* CAP_PERFMON or CAP_SYS_ADMIN effective */
};

struct st_check {
	int number;
	const char *name;
	void (*fn)(const struct st_ctx *x, struct st_result *r);
	/* Changes the machine (a CPU offline): run only when named. */
	const char *by_name;
};

extern const struct st_check st_checks[];
extern const unsigned int st_nr_checks;

/* Record a measured value (the first ST_MAX_MEASURED of a check). */
void st_measure(struct st_result *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The verdict Skip, and why (the first call's reason stays). */
void st_skip(struct st_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The verdict FAILED: what was wrong, and @remedy (the first failure's stays). */
void st_fail(struct st_result *r, const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* CapEff of /proc/self/status (0 when unreadable). */
uint64_t st_cap_eff(void);

/* Event numbers, and what a failure's "to do" says. */
#define EV_SW_INCR	0x00
#define EV_INST_RETIRED	0x08
#define EV_CPU_CYCLES	0x11

#define DO_LOAD		"load the module: insmod pmuscope.ko (or modprobe pmuscope)"
#define DO_PMU		"give the machine a PMU that counts: on KVM boot the guest with a vPMU (-cpu host,pmu=on), on a board check the device tree's PMU node and that firmware leaves the PMU to the kernel (MDCR_EL3)"
#define DO_REPORT	"a driver or PMU bug: send the output of pmuscope test --report FILE to the pmuscope authors"
#define DO_LATE		"find what keeps the CPU from its timers (interrupts masked, a hypervisor that deschedules it) or load with mode=irq, then run the check again"

#define FOR_TYPES(x, t) for (unsigned int t = 0; t < (x)->nr_types; t++)

/* selftest-util.c: what the checks share. */
int st_pin(int cpu);
uint64_t st_now_ns(void);
unsigned long st_busy_ms(unsigned int ms);
long st_switches(void);
/* 1 where st_loop2() is the loop of 2 instructions an iteration (arm64). */
#ifdef __aarch64__
#define ST_HAVE_LOOP 1
#else
#define ST_HAVE_LOOP 0
#endif
void st_loop2(unsigned long n);
int st_open_count(const struct st_ctx *x, struct pmuscope **hp, const char *const *names,
		  unsigned int n, int cpu, int task, char *why, size_t len);
int st_read_counts(struct pmuscope *h, uint64_t *c, uint32_t *flags, unsigned int n);
void st_open_failed(struct st_result *r, const char *pfx, int ret, const char *why);
char *st_first_line(const char *path, char *buf, size_t len);
int st_cpu_file(int cpu, const char *name, char *buf, size_t len);
/* A counter of cpuN/ in sysfs (wraps, late_polls, ...); 0 when unreadable. */
uint64_t st_cpu_stat(int cpu, const char *name);
int st_need_driver(const struct st_ctx *x, struct st_result *r);
const char *st_tkey(char *buf, size_t len, const struct st_type *ty, const char *key);
void st_types_done(struct st_result *r, unsigned int skipped, unsigned int nr, const char *why);
int st_type_has(const struct st_type *ty, uint32_t number, char *why, size_t len);

/* The checks: selftest-checks.c, selftest-units.c. */
void st_check_driver(const struct st_ctx *x, struct st_result *r);
void st_check_policy(const struct st_ctx *x, struct st_result *r);
void st_check_kpti(const struct st_ctx *x, struct st_result *r);
void st_check_lockdown(const struct st_ctx *x, struct st_result *r);
void st_check_caller(const struct st_ctx *x, struct st_result *r);
void st_check_swinc(const struct st_ctx *x, struct st_result *r);
void st_check_cycles(const struct st_ctx *x, struct st_result *r);
void st_check_inst_exact(const struct st_ctx *x, struct st_result *r);
void st_check_el_filters(const struct st_ctx *x, struct st_result *r);
void st_check_wrap(const struct st_ctx *x, struct st_result *r);
void st_check_wrap_zero(const struct st_ctx *x, struct st_result *r);
void st_check_all_events(const struct st_ctx *x, struct st_result *r);
void st_check_el0_reads(const struct st_ctx *x, struct st_result *r);
void st_check_snapshot_sw(const struct st_ctx *x, struct st_result *r);
void st_check_snapshot_hw(const struct st_ctx *x, struct st_result *r);
void st_check_amu(const struct st_ctx *x, struct st_result *r);
void st_check_spe(const struct st_ctx *x, struct st_result *r);
void st_check_perf_coexist(const struct st_ctx *x, struct st_result *r);
void st_check_hotplug(const struct st_ctx *x, struct st_result *r);

#endif
