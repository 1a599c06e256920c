// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope test: the checks of the units beside counting (EL0 reads,
 * snapshots, AMU, SPE), of counting beside perf and through CPU hotplug,
 * and the table of every check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "cli.h"
#include "selftest.h"

/* ------------------------------------------------------------ EL0 reads */

#ifdef __aarch64__
/* A child on @cpu reads PMCCNTR_EL0 at EL0: 1 if it got SIGILL. */
static int child_traps(int cpu)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		uint64_t v;

		st_pin(cpu);
		signal(SIGILL, SIG_DFL);
		asm volatile("mrs %0, pmccntr_el0" : "=r"(v));
		_exit(0);
	}
	if (pid < 0)
		return -1;
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGILL;
}
#endif

void st_check_el0_reads(const struct st_ctx *x, struct st_result *r)
{
#ifdef __aarch64__
	static const char *const names[] = { "cycles:u" };
	const struct st_type *ty = &x->types[0];
	struct pmuscope_event_spec ev;
	struct pmuscope_self_stats st;
	uint64_t c[2];
	struct pmuscope *h;
	char why[320];
	int ret, r0, r1, other, after;

	if (!st_need_driver(x, r))
		return;
	if (!(x->features & PMUSCOPE_FEAT_USER_READ)) {
		st_skip(r, "EL0 reads are not available: the %s backend has no PMUSCOPE_FEAT_USER_READ",
			x->backend);
		return;
	}
	if (pmuscope_open(&h, why, sizeof(why)) ||
	    pmuscope_event_parse(names[0], &ev, why, sizeof(why))) {
		st_fail(r, DO_LOAD, "%s", why);
		return;
	}
	st_pin(ty->cpu);
	ret = pmuscope_configure_self(h, &ev, 1, 0);
	if (!ret)
		ret = pmuscope_enable(h);
	if (ret) {
		st_skip(r, "EL0 reads are not available: %s", pmuscope_errmsg(h));
		pmuscope_close(h);
		return;
	}
	r0 = pmuscope_read_self(h, &c[0], 1);
	st_busy_ms(2);
	r1 = pmuscope_read_self(h, &c[1], 1);
	pmuscope_self_stats(h, &st);
	other = child_traps(ty->cpu);
	pmuscope_close(h);
	after = child_traps(ty->cpu);
	st_measure(r, "own reads", "%" PRIu64 ", %" PRIu64 " (%s)", c[0], c[1],
		   r0 == 0 && r1 == 0 ? "at EL0" : "through the ioctl");
	st_measure(r, "reads at EL0, by the ioctl", "%" PRIu64 ", %" PRIu64, st.fast, st.fallback);
	st_measure(r, "mrs pmccntr_el0 by another process", "%s",
		   other == 1 ? "SIGILL" : "no trap");
	st_measure(r, "mrs pmccntr_el0 after close", "%s", after == 1 ? "SIGILL" : "no trap");
	if (r0 < 0 || r1 < 0) {
		st_fail(r, DO_REPORT, "pmuscope_read_self: %s", pmuscope_errmsg(h));
		return;
	}
	if (other != 1 || after != 1) {
		st_fail(r, "another process could read the PMU at EL0: a driver bug, send pmuscope test --report FILE to the pmuscope authors",
			"EL0 access was not trapped %s", other != 1 ? "for another process" : "after close");
		return;
	}
	if (c[1] <= c[0])
		st_fail(r, DO_PMU, "own EL0 reads did not advance (%" PRIu64 ", %" PRIu64 ")", c[0], c[1]);
	else if (!st.capable)
		st_skip(r, "own reads fell back to the ioctl: no rseq for this thread (glibc before 2.35, or GLIBC_TUNABLES=glibc.pthread.rseq=0)");
	else if (!st.fast)
		st_skip(r, "own reads fell back to the ioctl: the driver did not grant EL0 access on cpu%d",
			ty->cpu);
#else
	(void)x;
	st_skip(r, "EL0 reads are arm64 code");
#endif
}

/* ------------------------------------------------------------- snapshot */

static void snapshot_check(const struct st_ctx *x, struct st_result *r, int hw)
{
	static const char *const ev[] = { "cycles:u", "cycles:u" };
	char why[320] = "", key[64];
	unsigned int skipped = 0;

	if (!st_need_driver(x, r))
		return;
	if (!(x->features & PMUSCOPE_FEAT_SNAPSHOT)) {
		st_skip(r, "the driver has no snapshots (API version below 3)");
		return;
	}
	if (hw && !(x->features & PMUSCOPE_FEAT_SNAPSHOT_HW)) {
		st_skip(r, "no CPU captures in hardware (FEAT_PMUv3_SS absent, or module parameter snapshot=0)");
		return;
	}
	FOR_TYPES(x, t) {
		const struct st_type *ty = &x->types[t];
		struct pmuscope_count va[4], vb[4];
		struct pmuscope_snap_info ia, ib;
		struct pmuscope_snap ra, rb;
		struct pmuscope *h;
		uint32_t flags = hw ? PMUSCOPE_SNAP_F_HARDWARE : PMUSCOPE_SNAP_F_SOFTWARE;
		int64_t d = 0;
		uint64_t ticks = 0, bound = 0;
		int ret, tries;

		if (hw) {
			char state[32] = "";

			if (pmuscope_snap_hw_state(ty->cpu, state, sizeof(state)) ||
			    !pmuscope_snap_hw_usable(state)) {
				snprintf(why, sizeof(why), "cpu%d: hardware snapshot %s", ty->cpu,
					 state[0] ? state : "unknown");
				skipped++;
				continue;
			}
		}
		ret = st_open_count(x, &h, ev, 2, ty->cpu, 0, why, sizeof(why));
		if (ret) {
			if (ret != -EPERM && ret != -EACCES)
				st_open_failed(r, "snapshot", ret, why);
			skipped++;
			continue;
		}
		/*
		 * Both counters stop at one write: on silicon they agree within
		 * a few cycles. Whatever ran while they stopped is within
		 * "frozen" + 1 ticks (Documentation/pmuscope.rst, Snapshots):
		 * in cycles, that is the bound of each capture. Each counter
		 * also meets every exception entry and return between the
		 * two snapshots, where a PMU modelled by a host thread (QEMU
		 * without -icount) updates them one after another: a host
		 * preemption between two such updates puts them apart. Of up
		 * to 5 intervals one within the bound passes; a driver that
		 * does not stop them together fails all 5.
		 */
		ret = pmuscope_enable(h);
		for (tries = 1; !ret && tries <= 5; tries++) {
			ret = pmuscope_snapshot(h, flags, 0, va, 4, &ia, 1, &ra);
			st_busy_ms(5);
			if (!ret)
				ret = pmuscope_snapshot(h, flags, 0, vb, 4, &ib, 1, &rb);
			if (ret)
				break;
			ticks = ib.time - ia.time;
			uint64_t cpt = ticks ? (vb[0].count - va[0].count + ticks - 1) / ticks : 0;
			/*
			 * The perf backend stops nothing: its counters are read
			 * one after another within "spread" ticks, the bound of
			 * each of its captures (method perf).
			 */
			if (ib.method == PMUSCOPE_SNAP_PERF)
				bound = 4 + (ia.spread + ib.spread + 2) * cpt;
			else
				bound = 4 + (hw ? 0 : (ia.frozen + ib.frozen + 2) * cpt);
			d = (int64_t)((vb[0].count - va[0].count) - (vb[1].count - va[1].count));
			if ((uint64_t)(d < 0 ? -d : d) <= bound)
				break;
		}
		if (ret) {
			st_fail(r, DO_REPORT, "cpu%d: %s", ty->cpu, pmuscope_errmsg(h));
			pmuscope_close(h);
			continue;
		}
		pmuscope_close(h);
		if (tries > 5)
			tries = 5;
		st_measure(r, st_tkey(key, sizeof(key), ty, "method"), "%s",
			   pmuscope_snap_method_name(ib.method));
		st_measure(r, st_tkey(key, sizeof(key), ty, "cycle counter, event counter deltas"),
			   "%" PRIu64 ", %" PRIu64 " over %" PRIu64 " ticks (%s %" PRIu64 " + %" PRIu64
			   "): apart %" PRId64 ", bound %" PRIu64 " (interval %d of at most 5)",
			   vb[0].count - va[0].count, vb[1].count - va[1].count, ticks,
			   ib.method == PMUSCOPE_SNAP_PERF ? "spread" : "frozen",
			   ib.method == PMUSCOPE_SNAP_PERF ? ia.spread : ia.frozen,
			   ib.method == PMUSCOPE_SNAP_PERF ? ib.spread : ib.frozen, d, bound, tries);
		/* The perf backend's software capture is its own (method perf). */
		if (ib.method != (hw ? PMUSCOPE_SNAP_HARDWARE : PMUSCOPE_SNAP_SOFTWARE) &&
		    (hw || ib.method != PMUSCOPE_SNAP_PERF || strcmp(x->backend, "perf")))
			st_fail(r, DO_REPORT, "cpu%d: asked for a %s capture, got %s", ty->cpu,
				hw ? "hardware" : "software", pmuscope_snap_method_name(ib.method));
		else if ((uint64_t)(d < 0 ? -d : d) > bound)
			st_fail(r, DO_REPORT, "cpu%d: CPU_CYCLES on the cycle and an event counter are %" PRId64
				" cycles apart, more than %" PRIu64, ty->cpu, d, bound);
	}
	st_types_done(r, skipped, x->nr_types, why);
}

void st_check_snapshot_sw(const struct st_ctx *x, struct st_result *r)
{
	snapshot_check(x, r, 0);
}

void st_check_snapshot_hw(const struct st_ctx *x, struct st_result *r)
{
	snapshot_check(x, r, 1);
}

/* ------------------------------------------------------------ AMU, SPE */

void st_check_amu(const struct st_ctx *x, struct st_result *r)
{
	char why[320] = "", key[64];
	unsigned int skipped = 0;

	if (!st_need_driver(x, r))
		return;
	if (!(x->features & PMUSCOPE_FEAT_AMU)) {
		st_skip(r, "the driver reads no AMU (PMUSCOPE_FEAT_AMU clear)");
		return;
	}
	FOR_TYPES(x, t) {
		const struct st_type *ty = &x->types[t];
		uint64_t cpus[PMUSCOPE_CPU_WORDS] = { 0 }, freq = 0;
		struct pmuscope_amu_cpu a, b;
		struct pmuscope_amu_metrics m;
		struct pmuscope *h;
		char state[32] = "";
		int ret;

		if (!st_cpu_file(ty->cpu, "amu", state, sizeof(state)) && strcmp(state, "present")) {
			snprintf(why, sizeof(why), "cpu%d: AMU %s%s", ty->cpu, state,
				 !strcmp(state, "absent") ? " (ID_AA64PFR0_EL1.AMU 0)" :
				 !strcmp(state, "disabled") ? " (module parameter amu=0)" : "");
			skipped++;
			continue;
		}
		if (pmuscope_open(&h, why, sizeof(why))) {
			st_fail(r, DO_LOAD, "%s", why);
			return;
		}
		st_pin(ty->cpu);
		cpus[ty->cpu / 64] |= 1ULL << (ty->cpu % 64);
		ret = pmuscope_amu_read(h, cpus, PMUSCOPE_CPU_WORDS, &a, 1, &freq);
		st_busy_ms(100);
		if (ret == 1)
			ret = pmuscope_amu_read(h, cpus, PMUSCOPE_CPU_WORDS, &b, 1, &freq);
		if (ret != 1) {
			snprintf(why, sizeof(why), "cpu%d: %s", ty->cpu, pmuscope_errmsg(h));
			pmuscope_close(h);
			if (ret == -EPERM) {
				skipped++;
				continue;
			}
			st_fail(r, DO_REPORT, "%s", why);
			continue;
		}
		pmuscope_close(h);
		if (a.state != PMUSCOPE_AMU_READ_OK || b.state != PMUSCOPE_AMU_READ_OK) {
			snprintf(why, sizeof(why), "cpu%d: AMU %s", ty->cpu,
				 pmuscope_amu_state_name(b.state));
			skipped++;
			continue;
		}
		pmuscope_amu_metrics(&a, &b, freq, &m);
		st_measure(r, st_tkey(key, sizeof(key), ty, "core, constant cycles, ticks"),
			   "%" PRIu64 ", %" PRIu64 ", %" PRIu64, m.delta0[0], m.delta0[1], m.ticks);
		if (!(m.valid & 1U << PMUSCOPE_AMU_M_BUSY) || !(m.valid & 1U << PMUSCOPE_AMU_M_FREQ)) {
			st_fail(r, DO_REPORT, "cpu%d: AMU rate unavailable: %s", ty->cpu,
				pmuscope_amu_why_str(m.why[PMUSCOPE_AMU_M_BUSY] ?: m.why[PMUSCOPE_AMU_M_FREQ]));
			continue;
		}
		st_measure(r, st_tkey(key, sizeof(key), ty, "constant rate / system counter, core MHz"),
			   "%.3f, %.1f", m.value[PMUSCOPE_AMU_M_BUSY], m.value[PMUSCOPE_AMU_M_FREQ] / 1e6);
		/*
		 * Busy all along: the constant counter runs at the system
		 * counter's rate (Arm ARM D16.3.1). Each is read at its own
		 * instant, and a counter brought up to date at a tick (a
		 * hypervisor's, or pmuscope_emu.ko's model: 1.07 to 1.2 over
		 * 20 ms) is off by up to a tick at each end; what is wrong
		 * is far off: a stuck counter (0) or one at the core's clock
		 * (tens of times the system counter's).
		 */
		if (m.value[PMUSCOPE_AMU_M_BUSY] < 0.5 || m.value[PMUSCOPE_AMU_M_BUSY] > 1.5)
			st_fail(r, DO_REPORT, "cpu%d: the constant counter ran at %.3f of the system counter's rate while busy",
				ty->cpu, m.value[PMUSCOPE_AMU_M_BUSY]);
		else if (m.value[PMUSCOPE_AMU_M_FREQ] < 1e6 || m.value[PMUSCOPE_AMU_M_FREQ] > 1e10)
			st_fail(r, DO_REPORT, "cpu%d: core cycles at %.0f Hz, outside 1 MHz to 10 GHz",
				ty->cpu, m.value[PMUSCOPE_AMU_M_FREQ]);
	}
	st_types_done(r, skipped, x->nr_types, why);
}

#ifdef __aarch64__
extern const char st_spe_loop_start[], st_spe_loop_end[];
/* A loop of loads and adds whose PCs are between the two labels. */
static void __attribute__((noinline)) spe_loop(unsigned long n, volatile uint64_t *p)
{
	asm volatile(".globl st_spe_loop_start\n"
		     "st_spe_loop_start:\n"
		     "1: ldr x9, [%1]\n"
		     "   add x9, x9, #1\n"
		     "   str x9, [%1]\n"
		     "   subs %0, %0, #1\n"
		     "   b.ne 1b\n"
		     ".globl st_spe_loop_end\n"
		     "st_spe_loop_end:\n"
		     : "+r"(n) : "r"(p) : "x9", "cc", "memory");
}
#endif

void st_check_spe(const struct st_ctx *x, struct st_result *r)
{
#ifdef __aarch64__
	static unsigned char buf[1 << 20];
	const struct st_type *ty = &x->types[0];
	uint64_t cpus[1] = { 0 }, in = 0, total = 0;
	struct pmuscope_spe_config cfg = { 0 };
	volatile uint64_t word = 0;
	struct pmuscope *h;
	char why[320], state[32] = "";
	ssize_t got;
	int ret;

	if (!st_need_driver(x, r))
		return;
	if (!(x->features & PMUSCOPE_FEAT_SPE)) {
		st_skip(r, "the driver drives no SPE (PMUSCOPE_FEAT_SPE clear)");
		return;
	}
	if (!st_cpu_file(ty->cpu, "spe", state, sizeof(state)) && strcmp(state, "present")) {
		st_skip(r, "cpu%d: SPE %s%s", ty->cpu, state,
			!strcmp(state, "absent") ? " (ID_AA64DFR0_EL1.PMSVer 0)" :
			!strcmp(state, "unavailable") ? " (PMBIDR_EL1.P: owned by a higher EL)" :
			!strcmp(state, "disabled") ? " (module parameter spe=0)" : "");
		return;
	}
	if (ty->cpu >= 64) {
		st_skip(r, "cpu%d: the check profiles CPUs below 64", ty->cpu);
		return;
	}
	/* The test build's register model: its SPU samples what it is fed. */
	if (!access("/sys/module/pmuscope_emu", F_OK)) {
		st_skip(r, "the SPE of pmuscope_emu.ko, the register model, records the operations its tests feed it, not this CPU's loop");
		return;
	}
	if (pmuscope_open(&h, why, sizeof(why))) {
		st_fail(r, DO_LOAD, "%s", why);
		return;
	}
	st_pin(ty->cpu);
	cpus[0] = 1ULL << ty->cpu;
	cfg.flags = PMUSCOPE_SPE_EL0;
	cfg.cpus = (uintptr_t)cpus;
	cfg.cpus_size = sizeof(cpus);
	ret = pmuscope_spe_start(h, &cfg);
	if (ret) {
		snprintf(why, sizeof(why), "%s", pmuscope_errmsg(h));
		pmuscope_close(h);
		if (ret == -EOPNOTSUPP || ret == -EBUSY || ret == -EPERM)
			st_skip(r, "SPE refused: %s", why);
		else
			st_fail(r, DO_REPORT, "SPE: %s", why);
		return;
	}
	spe_loop(2000000, &word);
	pmuscope_spe_stop(h);
	while ((got = pmuscope_spe_read(h, buf, sizeof(buf), 100)) > 0) {
		size_t off = 0;
		struct pmuscope_spe_chunk c;
		const unsigned char *data;

		while (pmuscope_spe_chunk_next(buf, (size_t)got, &off, &c, &data, NULL, 0) == 1) {
			struct pmuscope_spe_record rec;
			size_t o = 0;

			while (pmuscope_spe_record_next(data, c.data_size, &o, &rec) == 1) {
				if (!(rec.valid & PMUSCOPE_SPE_R_PC))
					continue;
				total++;
				in += rec.pc >= (uintptr_t)st_spe_loop_start &&
				      rec.pc < (uintptr_t)st_spe_loop_end;
			}
		}
	}
	pmuscope_close(h);
	st_measure(r, "records with a PC, in the loop", "%" PRIu64 ", %" PRIu64, total, in);
	if (!total)
		st_fail(r, DO_REPORT, "SPE recorded nothing of 2,000,000 iterations of a loop");
	else if (in * 2 < total)
		st_fail(r, DO_REPORT, "only %" PRIu64 " of %" PRIu64 " sampled PCs are in the loop",
			in, total);
#else
	(void)x;
	st_skip(r, "SPE needs arm64");
#endif
}

/* ---------------------------------------------------------- coexistence */

void st_check_perf_coexist(const struct st_ctx *x, struct st_result *r)
{
	static const char *const ev[] = { "inst_retired:u" };
	const struct st_type *ty = &x->types[0];
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE, .size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS, .disabled = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	uint64_t p[2], c[2];
	const unsigned long n = 100000;
	struct pmuscope *h;
	char why[320];
	int fd, ret, ok = 0;

	if (!st_need_driver(x, r))
		return;
	if (strcmp(x->backend, "perf")) {
		st_skip(r, "perf's PMU driver is not active (the %s backend)", x->backend);
		return;
	}
	if (!ST_HAVE_LOOP) {
		st_skip(r, "the loop of known length is arm64 code");
		return;
	}
	if (!st_type_has(ty, EV_INST_RETIRED, why, sizeof(why))) {
		st_skip(r, "%s", why);
		return;
	}
	ret = st_open_count(x, &h, ev, 1, ty->cpu, 1, why, sizeof(why));
	if (ret) {
		st_open_failed(r, "INST_RETIRED", ret, why);
		return;
	}
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		st_skip(r, "perf_event_open(instructions:u): %s", strerror(errno));
		pmuscope_close(h);
		return;
	}
	for (int tries = 0; tries < 5 && !ok; tries++) {
		for (int i = 0; i < 2; i++) {
			ioctl(fd, PERF_EVENT_IOC_RESET, 0);
			pmuscope_reset(h);
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
			pmuscope_enable(h);
			st_loop2(n << i);
			pmuscope_disable(h);
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			if (read(fd, &p[i], sizeof(p[i])) != sizeof(p[i]))
				p[i] = 0;
			if (st_read_counts(h, &c[i], NULL, 1))
				c[i] = 0;
		}
		ok = p[1] - p[0] == 2 * n && c[1] - c[0] == 2 * n;
	}
	close(fd);
	pmuscope_close(h);
	st_measure(r, "perf instructions:u of 100000 and 200000 iterations", "%" PRIu64 ", %" PRIu64,
		   p[0], p[1]);
	st_measure(r, "pmuscope INST_RETIRED:u of the same", "%" PRIu64 ", %" PRIu64, c[0], c[1]);
	if (!ok)
		st_fail(r, DO_REPORT, "with perf and pmuscope counting together the differences are %" PRId64
			" (perf) and %" PRId64 " (pmuscope), not both %lu",
			(int64_t)(p[1] - p[0]), (int64_t)(c[1] - c[0]), 2 * n);
}

/* --------------------------------------------------------------- hotplug */

static int set_online(int cpu, int on)
{
	char path[96];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1" : "0", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

void st_check_hotplug(const struct st_ctx *x, struct st_result *r)
{
	static const char *const ev[] = { "cycles" };
	uint64_t online[PMUSCOPE_CPU_WORDS] = { 0 }, c[3];
	uint32_t fl[3];
	int cpu = -1, home = 0, n = 0, ret, back;
	cpu_set_t allowed;
	sigset_t block, old;
	struct pmuscope *h;
	char path[96], why[320];

	if (!st_need_driver(x, r))
		return;
	if (getenv("PMUSCOPE_SYSFS")) {	/* a stand-in's sysfs: not this kernel's CPUs */
		st_skip(r, "PMUSCOPE_SYSFS is set: the CPUs it describes are not taken offline");
		return;
	}
	pmuscope_online_cpus(online, PMUSCOPE_CPU_WORDS);
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);
	/* The last CPU goes offline; the first waits on, both ours to run on. */
	for (int i = 0; i < PMUSCOPE_MAX_CPUS; i++)
		if (online[i / 64] >> (i % 64) & 1 &&
		    (!CPU_COUNT(&allowed) || (i < CPU_SETSIZE && CPU_ISSET(i, &allowed)))) {
			if (!n++)
				home = i;
			cpu = i;
		}
	if (n < 2) {
		st_skip(r, "fewer than two online CPUs this process may run on: none to take offline");
		return;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	if (geteuid() || access(path, W_OK)) {
		st_skip(r, "%s is not writable (root only, and the CPU must be hot-pluggable)", path);
		return;
	}
	ret = st_open_count(x, &h, ev, 1, cpu, 0, why, sizeof(why));
	if (ret) {
		st_open_failed(r, "hotplug", ret, why);
		return;
	}
	ret = pmuscope_enable(h);
	st_busy_ms(5);
	if (!ret)
		ret = st_read_counts(h, &c[0], &fl[0], 1);
	st_pin(home);
	/* No SIGINT or SIGTERM between offline and online: the CPU comes back. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	if (!ret) {
		int off = set_online(cpu, 0);

		if (off) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			st_skip(r, "cpu%d could not be taken offline: %s", cpu, strerror(-off));
			pmuscope_close(h);
			return;
		}
		ret = st_read_counts(h, &c[1], &fl[1], 1);
	}
	back = set_online(cpu, 1);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (back) {
		st_fail(r, "bring it back: echo 1 > /sys/devices/system/cpu/cpuN/online",
			"cpu%d did not come back online: %s", cpu, strerror(-back));
		pmuscope_close(h);
		return;
	}
	st_pin(cpu);
	st_busy_ms(10);
	if (!ret)
		ret = st_read_counts(h, &c[2], &fl[2], 1);
	if (ret) {
		st_fail(r, DO_REPORT, "cpu%d: %s", cpu, pmuscope_errmsg(h));
		pmuscope_close(h);
		return;
	}
	pmuscope_close(h);
	st_measure(r, "CPU_CYCLES before, offline, after online",
		   "%" PRIu64 ", %" PRIu64 " (flags 0x%x), %" PRIu64 " (flags 0x%x)", c[0], c[1], fl[1],
		   c[2], fl[2]);
	if (!(fl[1] & PMUSCOPE_VAL_OFFLINE))
		st_fail(r, DO_REPORT, "cpu%d offline: its value is not flagged offline", cpu);
	else if (c[2] <= c[1] || fl[2] & PMUSCOPE_VAL_OFFLINE)
		st_fail(r, DO_REPORT, "cpu%d back online: the session does not count again", cpu);
}

const struct st_check st_checks[] = {
	{ 1, "Driver loaded", st_check_driver },
	{ 2, "Kernel perf policy", st_check_policy },
	{ 3, "KPTI", st_check_kpti },
	{ 4, "Kernel lockdown", st_check_lockdown },
	{ 5, "Caller's ids and capabilities", st_check_caller },
	{ 6, "SW_INCR exact", st_check_swinc },
	{ 7, "CPU_CYCLES counts", st_check_cycles },
	{ 8, "INST_RETIRED exact at EL0", st_check_inst_exact },
	{ 9, "EL0/EL1 filters split a syscall loop", st_check_el_filters },
	{ 10, "32-bit counter wraps", st_check_wrap },
	{ 11, "Every claimed event counts", st_check_all_events },
	{ 12, "EL0 reads and their trap", st_check_el0_reads },
	{ 13, "Snapshot in software", st_check_snapshot_sw },
	{ 14, "Snapshot in hardware", st_check_snapshot_hw },
	{ 15, "AMU rates", st_check_amu },
	{ 16, "SPE records a known loop", st_check_spe },
	{ 17, "Counting beside perf", st_check_perf_coexist },
	{ 18, "CPU hotplug while counting", st_check_hotplug,
	  "takes a CPU offline and back: run it by name (pmuscope test hotplug)" },
	{ 19, "Counting through 2^32 from zero", st_check_wrap_zero,
	  "counts 2^32 cycles, seconds of a busy loop: run it by name (pmuscope test 19)" },
};

const unsigned int st_nr_checks = sizeof(st_checks) / sizeof(st_checks[0]);
