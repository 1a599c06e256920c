// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-el0: in-guest tests of EL0 self-monitoring through libpmuscope
 * (pmuscope_configure_self(), pmuscope_read_self(), pmuscope_swinc_self()),
 * built by tools/Makefile (static arm64, with libpmuscope.a) into the
 * guest's /bin. TAP lines "pmuscope-tap: ok - [pmuscope-el0 SUB] ...";
 * exits non-zero when one failed.
 *
 *   pmuscope-el0 exact N     (-smp 1, -icount) N rounds of EL0 read, READ
 *                            ioctl, EL0 read: bracketing, the same distances
 *                            every round, SW_INCR exact; other processes and
 *                            this thread after close trap
 *   pmuscope-el0 wrap SECS   CPU_CYCLES:u and INST_RETIRED:u on 32-bit event
 *                            counters across their 2^32 wrap (at most SECS s)
 *   pmuscope-el0 sigill      (-smp 2) other processes trap, on this CPU and
 *                            the other, while this thread is granted
 *   pmuscope-el0 bounce N    N rounds while the thread moves between CPUs
 *   pmuscope-el0 hotplug N   ... while CPU 1 goes offline and online
 *   pmuscope-el0 cpupm N     ... while pmuscope_cpupm.ko runs cpu_pm on every CPU
 *   pmuscope-el0 layouts     (-smp 1) each straight-line reader of
 *                            pmuscope_read_self(), every size the CPU has
 *   pmuscope-el0 refusals    what is refused (-ENOSPC, a writable mapping,
 *                            the perf backend) and the ioctl fallback
 *   pmuscope-el0 bench       make bench: instructions per read (icount)
 *
 * Every MRS this program makes outside libpmuscope is guarded by a SIGILL
 * handler, and a SIGILL anywhere (libpmuscope's reader included) is
 * reported as a failure instead of killing the program: whether EL0
 * access traps is what these tests check, never what they assume.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <limits.h>
#include <inttypes.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmuscope.h"
#include "pmuscope-guest.h"

#define MAXN		8
#define EL0_USER	PMUSCOPE_EV_EL0
/* PMUSERENR_EL0 bits. */
#define USERENR_EN	(1U << 0)
#define USERENR_SW	(1U << 1)
#define USERENR_CR	(1U << 2)
#define USERENR_ER	(1U << 3)

static char tag[64] = "pmuscope-el0";

/* ------------------------------------------------------- raw EL0 access */
#define MRS(reg) ({ uint64_t __v; asm volatile("mrs %0, " #reg : "=r"(__v)); __v; })
#define RD_EV(n) static uint64_t rd_ev##n(void) { return MRS(pmevcntr##n##_el0); }
RD_EV(0) RD_EV(1) RD_EV(2) RD_EV(3) RD_EV(4) RD_EV(5) RD_EV(6) RD_EV(7)
RD_EV(8) RD_EV(9) RD_EV(10) RD_EV(11) RD_EV(12) RD_EV(13) RD_EV(14) RD_EV(15)
RD_EV(16) RD_EV(17) RD_EV(18) RD_EV(19) RD_EV(20) RD_EV(21) RD_EV(22) RD_EV(23)
RD_EV(24) RD_EV(25) RD_EV(26) RD_EV(27) RD_EV(28) RD_EV(29) RD_EV(30)
static uint64_t rd_cc(void) { return MRS(pmccntr_el0); }
static uint64_t (*const rd_tab[32])(void) = {
	rd_ev0, rd_ev1, rd_ev2, rd_ev3, rd_ev4, rd_ev5, rd_ev6, rd_ev7,
	rd_ev8, rd_ev9, rd_ev10, rd_ev11, rd_ev12, rd_ev13, rd_ev14, rd_ev15,
	rd_ev16, rd_ev17, rd_ev18, rd_ev19, rd_ev20, rd_ev21, rd_ev22, rd_ev23,
	rd_ev24, rd_ev25, rd_ev26, rd_ev27, rd_ev28, rd_ev29, rd_ev30, rd_cc,
};

/* The counter of a page index (1..31: PMEVCNTR<index - 1>_EL0, 32: PMCCNTR_EL0). */
static uint64_t raw_read(uint32_t index)
{
	return rd_tab[(index - 1) & 31]();
}

static void raw_swinc(uint64_t mask)
{
	asm volatile("msr pmswinc_el0, %0" : : "r"(mask));
}

static const char *index_name(uint32_t index, char *buf, size_t len)
{
	if (index == PMUSCOPE_USER_CYCLE_INDEX)
		snprintf(buf, len, "PMCCNTR_EL0");
	else
		snprintf(buf, len, "PMEVCNTR%u_EL0", index - 1);
	return buf;
}

/* ------------------------------------------------------------- SIGILL */
static sigjmp_buf ill_env;
static volatile sig_atomic_t ill_armed;
static volatile sig_atomic_t ill_count;
static volatile uintptr_t ill_pc;

static void on_sigill(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	ill_count++;
	ill_pc = (uintptr_t)si->si_addr;
	if (ill_armed)
		siglongjmp(ill_env, 1);
	/* Not expected anywhere: say where, and fail. */
	printf("pmuscope-tap: not ok - [%s] SIGILL at pc %#lx outside any guarded access\n", tag,
	       (unsigned long)ill_pc);
	fflush(stdout);
	_exit(90);
}

static void sigill_setup(void)
{
	struct sigaction sa = { .sa_sigaction = on_sigill, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGILL, &sa, NULL);
}

/* Read counter @index in this thread: 0 and *@val, or -1 if it trapped. */
static int try_read(uint32_t index, uint64_t *val)
{
	uint64_t v;

	if (sigsetjmp(ill_env, 1)) {
		ill_armed = 0;
		return -1;
	}
	ill_armed = 1;
	v = raw_read(index);
	ill_armed = 0;
	*val = v;
	return 0;
}

static int try_swinc(uint64_t mask)
{
	if (sigsetjmp(ill_env, 1)) {
		ill_armed = 0;
		return -1;
	}
	ill_armed = 1;
	raw_swinc(mask);
	ill_armed = 0;
	return 0;
}

/* -------------------------------------------------------------- helpers */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE; c++)
		CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void spin(unsigned long n)
{
	if (n)
		asm volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
}

static int skipped;

/*
 * A session of this thread for @specs, readable at EL0, enabled. NULL
 * (and a TAP line) if not: "# SKIP" where the driver has no EL0 reads
 * (the perf backend).
 */
static struct pmuscope *self_session(const char *const *specs, unsigned int nr, uint32_t flags)
{
	struct pmuscope_event_spec evs[MAXN];
	struct pmuscope *h;
	char err[512];
	int ret;

	for (unsigned int i = 0; i < nr; i++)
		if (pmuscope_event_parse(specs[i], &evs[i], err, sizeof(err))) {
			tap(0, "event %s: %s", specs[i], err);
			return NULL;
		}
	if (pmuscope_open(&h, err, sizeof(err))) {
		tap(0, "open: %s", err);
		return NULL;
	}
	if (!(pmuscope_features(h) & PMUSCOPE_FEAT_USER_READ)) {
		tap(1, "EL0 reads # SKIP the driver has no PMUSCOPE_FEAT_USER_READ (features 0x%llx)",
		    (unsigned long long)pmuscope_features(h));
		skipped = 1;
		pmuscope_close(h);
		return NULL;
	}
	ret = pmuscope_configure_self(h, evs, nr, flags);
	if (!ret)
		ret = pmuscope_enable(h);
	if (ret) {
		tap(0, "configure_self and enable: %s (%s)", pmuscope_errmsg(h), strerror(-ret));
		pmuscope_close(h);
		return NULL;
	}
	return h;
}

static int ioctl_counts(struct pmuscope *h, uint64_t *out, unsigned int nr)
{
	struct pmuscope_count v[PMUSCOPE_MAX_EVENTS];
	unsigned int n;

	if (pmuscope_read(h, v, PMUSCOPE_MAX_EVENTS, &n))
		return -1;
	for (unsigned int i = 0; i < n; i++)
		if (v[i].index < nr)
			out[v[i].index] = v[i].count;
	return 0;
}

/* The page's view of counter @i, read under its seq. */
struct ctr_view {
	uint32_t seq, cpu, index, width, pmuserenr;
	uint64_t offset, last_raw, grants, denials;
};

static void page_view(struct pmuscope *h, unsigned int i, struct ctr_view *v)
{
	const volatile struct pmuscope_user_page *pg = pmuscope_user_page(h);

	memset(v, 0, sizeof(*v));
	if (!pg)
		return;
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t s = __atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE);

		if (s & 1)
			continue;
		v->seq = s;
		v->cpu = pg->cpu;
		v->pmuserenr = pg->pmuserenr;
		v->grants = pg->grants;
		v->denials = pg->denials;
		v->index = pg->ctr[i].index;
		v->width = pg->ctr[i].width;
		v->offset = pg->ctr[i].offset;
		v->last_raw = pg->ctr[i].last_raw;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pg->seq, __ATOMIC_RELAXED) == s)
			return;
	}
}

static void describe(struct pmuscope *h, const char *const *specs, unsigned int nr)
{
	char name[24];

	for (unsigned int i = 0; i < nr; i++) {
		struct ctr_view v;

		page_view(h, i, &v);
		diag("%s: %s, %u-bit; page cpu %d, PMUSERENR_EL0 0x%x, grants %llu, denials %llu",
		     specs[i], v.index ? index_name(v.index, name, sizeof(name)) : "not readable",
		     v.width, (int)v.cpu, v.pmuserenr, (unsigned long long)v.grants,
		     (unsigned long long)v.denials);
	}
}

/* self_session(), described, and each counter's page view in @v (NULL: none). */
static struct pmuscope *self_session_view(const char *const *specs, unsigned int nr,
					  uint32_t flags, struct ctr_view *v)
{
	struct pmuscope *h = self_session(specs, nr, flags);

	if (!h)
		return NULL;
	describe(h, specs, nr);
	for (unsigned int i = 0; v && i < nr; i++)
		page_view(h, i, &v[i]);
	return h;
}

/* ------------------------------------------------- one round: f1, io, f2 */
struct round {
	uint64_t f1[MAXN], io[MAXN], f2[MAXN];
	int r1, r2;
	struct pmuscope_self_stats s0, s1;
};

static int one_round(struct pmuscope *h, unsigned int nr, struct round *r)
{
	pmuscope_self_stats(h, &r->s0);
	r->r1 = pmuscope_read_self(h, r->f1, nr);
	r->r2 = 0;
	if (ioctl_counts(h, r->io, nr))
		return -2;
	r->r2 = pmuscope_read_self(h, r->f2, nr);
	pmuscope_self_stats(h, &r->s1);
	return r->r1 < 0 || r->r2 < 0 ? -1 : 0;
}

/* What a series of rounds found. */
struct tally {
	unsigned long rounds, both_fast, bracket_bad, mono_bad, sw_bad, swinc_err, swinc_fast;
	unsigned long qemu_races;	/* rounds retried after QEMU's race (at most 2) */
	struct pmuscope *h;		/* the session, for the retry's RESET */
	unsigned long errors;
	unsigned long fast_on[2];
	uint64_t sw_expected;
	uint64_t last[MAXN];
	int have_last;
};

/*
 * A count 2^31 - k above the truth (k below 2^24) is what QEMU 7.2's
 * MTTCG race leaves behind: its PMU timer, run by another thread between
 * the two halves of an ERET's PMU update, restarts a counter from 0 with
 * its overflow flag set, and the driver folds that as a wrap of a counter
 * it had lifted to 2^31 + k (Documentation/testing.rst). Only SW_INCR
 * can show it (its underlying count in QEMU is always 0).
 */
static const char *qemu_race_note(uint64_t got, uint64_t want)
{
	uint64_t d = got - want;

	if (got > want && d <= (1ULL << 31) && d > (1ULL << 31) - (1ULL << 24))
		return "; 2^31 - k too many: QEMU's PMU timer race's signature";
	return "";
}

/*
 * Check round @r: each counter but SW_INCR (@sw) f1 <= io <= f2, the EL0
 * values never back; SW_INCR equal to the increments made (all three).
 */
/*
 * QEMU's race, and only it, in round @r: SW_INCR's three reads agree with
 * each other and are 2^31 - k above the increments made, the race's mark,
 * at most twice in a run (a driver bug that lifted a count so would come
 * back in every round). The round is counted and retried: the session is
 * RESET, SW_INCR counted again from 0, and the next round goes on from
 * there. Anything else still fails.
 */
static int qemu_race_retry(const char *what, const struct round *r, int sw, struct tally *t)
{
	if (sw < 0 || !t->h || t->qemu_races >= 2 || r->f1[sw] != r->io[sw] ||
	    r->io[sw] != r->f2[sw] || !*qemu_race_note(r->f2[sw], t->sw_expected))
		return 0;
	if (pmuscope_reset(t->h))
		return 0;
	t->qemu_races++;
	diag("%s round %lu: SW_INCR %" PRIu64 " for %" PRIu64 " increments%s: counted, the session RESET and the round retried (%lu of at most 2)",
	     what, t->rounds, r->f2[sw], t->sw_expected,
	     qemu_race_note(r->f2[sw], t->sw_expected), t->qemu_races);
	t->sw_expected = 0;
	t->have_last = 0;
	return 1;
}

static void check_round(const char *what, const struct round *r, unsigned int nr, int sw,
			struct tally *t)
{
	int bad = 0;

	t->rounds++;
	if (r->r1 == 0 && r->r2 == 0)
		t->both_fast++;
	if (qemu_race_retry(what, r, sw, t))
		return;
	for (unsigned int i = 0; i < nr; i++) {
		if ((int)i == sw) {
			if (r->f1[i] != t->sw_expected || r->io[i] != t->sw_expected ||
			    r->f2[i] != t->sw_expected) {
				if (t->sw_bad++ < 5)
					diag("%s round %lu: SW_INCR EL0 %" PRIu64 ", ioctl %" PRIu64
					     ", EL0 %" PRIu64 ", want %" PRIu64 " (reads: %s, %s)%s",
					     what, t->rounds, r->f1[i], r->io[i], r->f2[i],
					     t->sw_expected, r->r1 ? "ioctl" : "EL0",
					     r->r2 ? "ioctl" : "EL0",
					     qemu_race_note(r->f2[i], t->sw_expected));
				bad = 1;
			}
			continue;
		}
		if (!(r->f1[i] <= r->io[i] && r->io[i] <= r->f2[i])) {
			if (t->bracket_bad++ < 5)
				diag("%s round %lu: counter %u: EL0 %" PRIu64 ", ioctl %" PRIu64
				     ", EL0 %" PRIu64 " (reads: %s, %s)", what, t->rounds, i,
				     r->f1[i], r->io[i], r->f2[i], r->r1 ? "ioctl" : "EL0",
				     r->r2 ? "ioctl" : "EL0");
			bad = 1;
		}
		if (t->have_last && r->f1[i] < t->last[i]) {
			if (t->mono_bad++ < 5)
				diag("%s round %lu: counter %u went back: %" PRIu64 " after %" PRIu64,
				     what, t->rounds, i, r->f1[i], t->last[i]);
			bad = 1;
		}
		t->last[i] = r->f2[i];
	}
	t->have_last = 1;
	(void)bad;
}

/* One software increment of event @sw (if any) after a round. */
static void bump(struct pmuscope *h, int sw, struct tally *t)
{
	int ret;

	if (sw < 0)
		return;
	ret = pmuscope_swinc_self(h, 1ULL << sw, 1);
	if (ret < 0) {
		if (t->swinc_err++ < 3)
			diag("pmuscope_swinc_self: %s (%s)", pmuscope_errmsg(h), strerror(-ret));
		return;
	}
	t->swinc_fast += ret == 0;
	t->sw_expected++;
}

/* ------------------------------------------------------------ children */

/*
 * A child process on @cpu (-1: wherever) accesses the PMU at EL0: @index
 * (a counter) or, for 0, PMSWINC_EL0 (@mask). While it runs, this thread
 * reads its counters at EL0 in a loop if @spin_h (so that it is running,
 * granted, whenever the scheduler lets it), else waits. Returns the
 * child's wait status (-1 on failure); *@fast: EL0 reads meanwhile.
 */
static int child_access(uint32_t index, uint64_t mask, int cpu, struct pmuscope *spin_h,
			unsigned int nr, unsigned long *fast, unsigned long *reads)
{
	uint64_t c[MAXN];
	double until = now_s() + 30;
	int status = -1;
	pid_t pid;

	*fast = *reads = 0;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		signal(SIGILL, SIG_DFL);
		if (cpu >= 0)
			pin(cpu);
		/* Let the parent run first: it is granted whenever it runs. */
		sched_yield();
		if (index)
			(void)raw_read(index);
		else
			raw_swinc(mask);
		_exit(0);
	}
	if (!spin_h)
		return waitpid(pid, &status, 0) == pid ? status : -1;
	while (now_s() < until) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			return status;
		for (int i = 0; i < 100; i++) {
			int r = pmuscope_read_self(spin_h, c, nr);

			(*reads)++;
			*fast += r == 0;
		}
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static const char *status_str(int status, char *buf, size_t len)
{
	if (status == -1)
		snprintf(buf, len, "no status (fork or wait failed, or timed out)");
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	return buf;
}

static int is_sigill(int status)
{
	return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGILL;
}

/* ---------------------------------------------------------------- exact */

/*
 * Rounds are grouped by how the library answered them (the two reads'
 * paths and what its counters say happened): within a group the
 * distances io - f1 and f2 - io must be the same in every round.
 */
struct sig {
	int r1, r2;
	uint64_t dfast, dfall, dreplan, dabort;
	unsigned long n, bad;
	uint64_t d1[MAXN], d2[MAXN];
};

static void test_exact(unsigned long rounds)
{
	static const char *const specs[] = {
		"instructions:u", "cycles:u", "CPU_CYCLES:u", "SW_INCR:uk",
	};
	const unsigned int nr = 4, sw = 3;
	struct sig sigs[16];
	unsigned int nsig = 0, dom = 0;
	struct tally t = { 0 };
	struct round r;
	struct pmuscope_self_stats st;
	struct ctr_view v[4];
	struct pmuscope *h;
	uint64_t val, c[MAXN];
	unsigned long fast, reads;
	char buf[128], name[24];
	int status, ok;

	snprintf(tag, sizeof(tag), "pmuscope-el0 exact");
	tap_tag = tag;
	pin(0);
	h = self_session_view(specs, nr, PMUSCOPE_CFG_USER_SWINC, v);
	if (!h)
		return;
	tap(pmuscope_user_page(h) && pmuscope_user_page(h)->version == PMUSCOPE_USER_PAGE_VERSION &&
	    pmuscope_user_page(h)->nr == nr,
	    "configure_self: the page is mapped, version %u, %u counters",
	    PMUSCOPE_USER_PAGE_VERSION, nr);
	tap(v[0].cpu == (uint32_t)sched_getcpu() && v[0].index && v[1].index == 32 &&
	    v[2].index && v[2].index != 32 && v[3].index,
	    "after enable, the page grants this CPU (%d) every counter: instructions, cycles on PMCCNTR, CPU_CYCLES and SW_INCR on event counters",
	    sched_getcpu());
	pmuscope_self_stats(h, &st);
	tap(st.capable, "the EL0 fast path is available (arm64, rseq registered by glibc)");
	/* Sizes no plan can have, the first read (no plan yet) included. */
	tap(pmuscope_read_self(h, c, UINT_MAX) == -EINVAL && pmuscope_read_self(h, c, 0) == -EINVAL &&
	    pmuscope_read_self(h, c, nr + 1) == -EINVAL && pmuscope_read_self(h, NULL, nr) == -EINVAL,
	    "pmuscope_read_self() of %u, 0 or %u counts, or into NULL: -EINVAL", UINT_MAX, nr + 1);

	/* a: rounds of EL0 read, READ ioctl, EL0 read. */
	memset(sigs, 0, sizeof(sigs));
	for (unsigned long k = 0; k < rounds; k++) {
		struct sig *s = NULL;

		if (one_round(h, nr, &r)) {
			t.errors++;
			continue;
		}
		check_round("exact", &r, nr, sw, &t);
		for (unsigned int j = 0; j < nsig; j++)
			if (sigs[j].r1 == r.r1 && sigs[j].r2 == r.r2 &&
			    sigs[j].dfast == r.s1.fast - r.s0.fast &&
			    sigs[j].dfall == r.s1.fallback - r.s0.fallback &&
			    sigs[j].dreplan == r.s1.replans - r.s0.replans &&
			    sigs[j].dabort == r.s1.aborts - r.s0.aborts)
				s = &sigs[j];
		if (!s && nsig < 16) {
			s = &sigs[nsig++];
			s->r1 = r.r1;
			s->r2 = r.r2;
			s->dfast = r.s1.fast - r.s0.fast;
			s->dfall = r.s1.fallback - r.s0.fallback;
			s->dreplan = r.s1.replans - r.s0.replans;
			s->dabort = r.s1.aborts - r.s0.aborts;
			for (unsigned int i = 0; i < nr; i++) {
				s->d1[i] = r.io[i] - r.f1[i];
				s->d2[i] = r.f2[i] - r.io[i];
			}
		}
		if (s) {
			s->n++;
			for (unsigned int i = 0; i < nr; i++)
				if (s->d1[i] != r.io[i] - r.f1[i] || s->d2[i] != r.f2[i] - r.io[i]) {
					if (s->bad++ < 3)
						diag("round %lu: counter %u: ioctl - EL0 = %" PRIu64
						     ", EL0 - ioctl = %" PRIu64 ", not %" PRIu64 " and %" PRIu64
						     " as before in rounds of the same kind", k, i,
						     r.io[i] - r.f1[i], r.f2[i] - r.io[i], s->d1[i], s->d2[i]);
					break;
				}
		}
		bump(h, sw, &t);
	}
	ok = 1;
	for (unsigned int j = 0; j < nsig; j++) {
		if (sigs[j].n > sigs[dom].n)
			dom = j;
		diag("%lu rounds read %s then %s (fast +%" PRIu64 ", ioctl +%" PRIu64 ", replans +%" PRIu64
		     ", aborts +%" PRIu64 "): ioctl - EL0 / EL0 - ioctl: instructions %" PRIu64 "/%" PRIu64
		     ", cycles %" PRIu64 "/%" PRIu64 ", CPU_CYCLES %" PRIu64 "/%" PRIu64
		     ", SW_INCR %" PRIu64 "/%" PRIu64 "%s",
		     sigs[j].n, sigs[j].r1 ? "ioctl" : "EL0", sigs[j].r2 ? "ioctl" : "EL0",
		     sigs[j].dfast, sigs[j].dfall, sigs[j].dreplan, sigs[j].dabort,
		     sigs[j].d1[0], sigs[j].d2[0], sigs[j].d1[1], sigs[j].d2[1],
		     sigs[j].d1[2], sigs[j].d2[2], sigs[j].d1[3], sigs[j].d2[3],
		     sigs[j].bad ? " (NOT constant)" : "");
		if (sigs[j].bad)
			ok = 0;
	}
	tap(!t.errors && t.rounds == rounds, "%lu rounds of EL0 read, READ ioctl, EL0 read without error",
	    rounds);
	tap(!t.bracket_bad, "every EL0 read brackets the ioctl: EL0 <= ioctl <= EL0, each counter (%lu bad)",
	    t.bracket_bad);
	tap(!t.mono_bad, "the EL0 reads never go back (%lu bad)", t.mono_bad);
	tap(ok && nsig, "ioctl - EL0 and EL0 - ioctl are the same in every round of a kind (%u kinds)",
	    nsig);
	if (nsig)
		tap(sigs[dom].r1 == 0 && sigs[dom].r2 == 0 && sigs[dom].dfast == 2 &&
		    !sigs[dom].dfall && !sigs[dom].dabort && sigs[dom].n * 100 >= t.rounds * 99,
		    "in %lu rounds both reads are EL0 reads (%" PRIu64 " replans: the ioctl rewrites the page), ioctl - EL0 / EL0 - ioctl: instructions:u %" PRIu64 "/%" PRIu64
		    ", cycles:u %" PRIu64 "/%" PRIu64 ", CPU_CYCLES:u %" PRIu64 "/%" PRIu64,
		    sigs[dom].n, sigs[dom].dreplan, sigs[dom].d1[0], sigs[dom].d2[0], sigs[dom].d1[1],
		    sigs[dom].d2[1], sigs[dom].d1[2], sigs[dom].d2[2]);
	tap(t.both_fast * 100 >= t.rounds * 99,
	    "the fast path answered both reads in %lu of %lu rounds (>= 99%%)", t.both_fast, t.rounds);
	pmuscope_read_self(h, c, nr);
	tap(!t.sw_bad && !t.swinc_err && c[sw] == rounds,
	    "SW_INCR: %lu pmuscope_swinc_self() (%lu at EL0), read the same at EL0 and by the ioctl every round (%lu bad), %" PRIu64 " in the end",
	    rounds, t.swinc_fast, t.sw_bad, c[sw]);
	tap(t.swinc_fast * 100 >= rounds * 99, "pmuscope_swinc_self() wrote PMSWINC_EL0 at EL0 (%lu of %lu)",
	    t.swinc_fast, rounds);
	pmuscope_self_stats(h, &st);
	diag("library: %" PRIu64 " EL0 reads, %" PRIu64 " ioctl reads, %" PRIu64 " replans, %" PRIu64 " aborts",
	     st.fast, st.fallback, st.replans, st.aborts);
	/* instructions, cycles, CPU_CYCLES, SW_INCR: PMEVCNTR0, PMCCNTR, PMEVCNTR1, 2. */
	tap(st.layout == PMUSCOPE_SELF_TABLE,
	    "counters out of the straight-line order are read through the table (layout %u)",
	    st.layout);

	/* c: another process on this (the only) CPU traps. */
	page_view(h, 0, &v[0]);
	status = child_access(v[0].index, 0, -1, NULL, nr, &fast, &reads);
	tap(is_sigill(status), "another process reading %s (this thread's instructions:u) while this thread waits: %s",
	    index_name(v[0].index, name, sizeof(name)), status_str(status, buf, sizeof(buf)));
	status = child_access(PMUSCOPE_USER_CYCLE_INDEX, 0, -1, NULL, nr, &fast, &reads);
	tap(is_sigill(status), "another process reading PMCCNTR_EL0 while this thread waits: %s",
	    status_str(status, buf, sizeof(buf)));
	page_view(h, 0, &v[0]);
	status = child_access(v[0].index, 0, -1, h, nr, &fast, &reads);
	tap(is_sigill(status) && fast * 100 >= reads * 90,
	    "another process reading %s while this thread spins reading at EL0 (%lu of %lu reads fast): %s",
	    index_name(v[0].index, name, sizeof(name)), fast, reads,
	    status_str(status, buf, sizeof(buf)));
	status = child_access(PMUSCOPE_USER_CYCLE_INDEX, 0, -1, h, nr, &fast, &reads);
	tap(is_sigill(status) && fast * 100 >= reads * 90,
	    "another process reading PMCCNTR_EL0 while this thread spins reading at EL0 (%lu of %lu reads fast): %s",
	    fast, reads, status_str(status, buf, sizeof(buf)));
	page_view(h, sw, &v[sw]);
	status = child_access(0, 1ULL << (v[sw].index - 1), -1, h, nr, &fast, &reads);
	tap(is_sigill(status), "another process writing PMSWINC_EL0 while this thread spins: %s",
	    status_str(status, buf, sizeof(buf)));
	pmuscope_read_self(h, c, nr);
	tap(c[sw] == rounds, "... and made no increment (SW_INCR %" PRIu64 ", want %lu)", c[sw], rounds);

	/* d: this thread, granted, reads with MRS; after close it traps. */
	for (unsigned int i = 0; i < nr; i++)
		page_view(h, i, &v[i]);
	ok = 1;
	for (unsigned int i = 0; i < nr; i++)
		if (try_read(v[i].index, &val)) {
			ok = 0;
			diag("%s: %s trapped at pc %#lx while granted", specs[i],
			     index_name(v[i].index, name, sizeof(name)), (unsigned long)ill_pc);
		}
	tap(ok, "while granted, this thread reads each of its counters with a plain MRS");
	tap(!try_swinc(1ULL << (v[sw].index - 1)), "while granted (USER_SWINC), this thread writes PMSWINC_EL0");
	pmuscope_close(h);
	for (unsigned int i = 0; i < nr; i++)
		if (!try_read(v[i].index, &val)) {
			ok = 0;
			diag("%s: %s read %" PRIu64 " after close", specs[i],
			     index_name(v[i].index, name, sizeof(name)), val);
		}
	tap(ok, "after pmuscope_close(), each of those MRS traps in this thread (SIGILL)");
	tap(try_swinc(1ULL << (v[sw].index - 1)) == -1, "after pmuscope_close(), PMSWINC_EL0 traps");
	tap(try_read(1, &val) == -1 && try_read(PMUSCOPE_USER_CYCLE_INDEX, &val) == -1,
	    "after pmuscope_close(), PMEVCNTR0_EL0 and PMCCNTR_EL0 trap");
}

/* ----------------------------------------------------------------- wrap */

/* The hardware counter of event @i now, from a count read at EL0 and the page. */
static uint64_t raw_now(struct pmuscope *h, unsigned int i, uint64_t count)
{
	struct ctr_view v;

	page_view(h, i, &v);
	return (v.last_raw + (count - v.offset)) & 0xffffffffULL;
}

static void test_wrap(unsigned int secs)
{
	static const char *const specs[] = { "cycles:u", "CPU_CYCLES:u", "instructions:u" };
	const unsigned int nr = 3;
	struct tally t = { 0 };
	struct round r;
	struct ctr_view v[3];
	struct pmuscope_self_stats st;
	struct pmuscope *h;
	uint64_t c[MAXN], prev_raw[MAXN] = { 0 }, prev_cnt[MAXN] = { 0 }, after[MAXN] = { 0 };
	unsigned long unfolded = 0, restarts = 0, coarse = 0, hw_wraps[MAXN] = { 0 }, low_last = 0;
	double t0 = now_s();
	int w32[MAXN] = { 0 }, any32 = 0, done;

	snprintf(tag, sizeof(tag), "pmuscope-el0 wrap");
	tap_tag = tag;
	pin(0);
	h = self_session_view(specs, nr, 0, v);
	if (!h)
		return;
	for (unsigned int i = 0; i < nr; i++) {
		w32[i] = v[i].width == 32;
		any32 |= w32[i];
	}
	if (!any32) {
		tap(1, "a 32-bit wrap read at EL0 # SKIP no 32-bit counter (64-bit event counters)");
		pmuscope_close(h);
		return;
	}
	pmuscope_read_self(h, c, nr);
	spin(1000);
	pmuscope_read_self(h, t.last, nr);
	if (t.last[2] == c[2]) {
		tap(1, "a 32-bit wrap read at EL0 # SKIP INST_RETIRED does not count (QEMU without -icount)");
		pmuscope_close(h);
		return;
	}
	memcpy(c, t.last, sizeof(c));
	do {
		uint64_t step = ~0ULL;
		int near = 0;

		/*
		 * Each 32-bit counter: seen to wrap in the rounds (its hardware
		 * value went down while its count went up by as much), 4M
		 * events after that, and its count past 2^32. The hardware
		 * counter's distance to its wrap comes from the page (the
		 * driver may start it again from 0 when it adds the event
		 * back: the distance is taken anew each time).
		 */
		done = 1;
		for (unsigned int i = 0; i < nr; i++) {
			uint64_t raw, dist;

			if (!w32[i])
				continue;
			raw = raw_now(h, i, c[i]);
			dist = (1ULL << 32) - raw;
			if (!hw_wraps[i] || c[i] < after[i]) {
				done = 0;
				if (hw_wraps[i] || dist < (40 << 20))
					near = 1;
				else if (dist - (32 << 20) < step)
					step = dist - (32 << 20);
			}
			if (c[i] <= (1ULL << 32)) {
				done = 0;
				if ((1ULL << 32) + 1 - c[i] < step)
					step = (1ULL << 32) + 1 - c[i];
			}
		}
		if (done)
			break;
		if (!near) {
			/*
			 * Far from a wrap: a quarter of the distance in a spin (2
			 * instructions, about 2 cycles under -icount shift=0, a loop).
			 */
			step = step / 4 + 1;
			spin(step > (1ULL << 28) ? 1ULL << 28 : step);
			coarse++;
			if (pmuscope_read_self(h, c, nr) < 0)
				t.errors++;
			for (unsigned int i = 0; i < nr; i++) {
				if (c[i] < t.last[i])
					t.mono_bad++;
				t.last[i] = c[i];
				prev_raw[i] = prev_cnt[i] = 0;	/* rounds only */
			}
			continue;
		}
		/* Close to a wrap: rounds, 2000 instructions apart. */
		for (unsigned int i = 0; i < nr; i++)
			page_view(h, i, &v[i]);
		if (one_round(h, nr, &r)) {
			t.errors++;
			break;
		}
		check_round("wrap", &r, nr, -1, &t);
		for (unsigned int i = 0; i < nr; i++) {
			struct ctr_view a;
			uint64_t raw;

			if (!w32[i])
				continue;
			page_view(h, i, &a);
			/* Room for a late overflow interrupt (pmuscope_hwc_el0_lift()). */
			if (a.index && a.last_raw < (1ULL << 31))
				low_last++;
			/*
			 * The hardware counter when f2 was read (any consistent
			 * fold of the page gives it), and whether it counted on
			 * from the last round, or counted on and was moved up by
			 * 2^31 by the fold after its wrap (the ioctl's, or the
			 * interrupt's), else the driver started it again.
			 */
			raw = (a.last_raw + (r.f2[i] - a.offset)) & 0xffffffffULL;
			if (prev_cnt[i] && r.f2[i] - prev_cnt[i] < (1ULL << 31)) {
				uint64_t end = prev_raw[i] + (r.f2[i] - prev_cnt[i]);
				uint64_t moved = (raw - end) & 0xffffffffULL;

				if (moved && moved != (1ULL << 31)) {
					restarts++;
				} else if (end >= (1ULL << 32) && !hw_wraps[i]++) {
					after[i] = r.f2[i] + (4 << 20);
					diag("%s wrapped: hardware 0x%08" PRIx64 " -> 0x%08" PRIx64
					     "%s, count %" PRIu64 " -> %" PRIu64, specs[i], prev_raw[i], raw,
					     moved ? " (moved up by 2^31)" : "", prev_cnt[i], r.f2[i]);
				}
			}
			prev_raw[i] = raw;
			prev_cnt[i] = r.f2[i];
			/* f2 read at this page: after the wrap, before its fold? */
			if (r.r2 == 0 && a.seq == v[i].seq &&
			    v[i].last_raw + (r.f2[i] - v[i].offset) >= (1ULL << 32))
				unfolded++;
		}
		memcpy(c, r.f2, sizeof(c));
		spin(1000);
	} while (now_s() - t0 < secs);
	pmuscope_read_self(h, c, nr);
	pmuscope_self_stats(h, &st);
	diag("%lu spins, %lu rounds near the wraps, %.1f s; %lu EL0 reads after a wrap not yet folded, %lu counter restarts by the driver; library: %" PRIu64 " EL0 reads, %" PRIu64 " ioctl reads, %" PRIu64 " replans",
	     coarse, t.rounds, now_s() - t0, unfolded, restarts, st.fast, st.fallback, st.replans);
	diag("final counts: cycles:u %" PRIu64 ", CPU_CYCLES:u %" PRIu64 ", instructions:u %" PRIu64,
	     c[0], c[1], c[2]);
	tap(done, "the 32-bit counters wrapped in the rounds and their counts passed 2^32 within %u s", secs);
	tap((!w32[1] || hw_wraps[1]) && (!w32[2] || hw_wraps[2]),
	    "the rounds saw the 32-bit hardware counters wrap (CPU_CYCLES:u %lu, instructions:u %lu times)",
	    hw_wraps[1], hw_wraps[2]);
	tap(!t.errors && t.rounds > 100, "%lu rounds of EL0 read, READ ioctl, EL0 read around the wraps",
	    t.rounds);
	tap(!low_last, "the page's last_raw of each 32-bit counter stayed at 2^31 or above in every round (%lu below)",
	    low_last);
	tap(st.layout == PMUSCOPE_SELF_STRAIGHT,
	    "cycles, CPU_CYCLES, instructions (PMCCNTR, PMEVCNTR0, 1) read by the straight-line reader (layout %u)",
	    st.layout);
	tap(!t.bracket_bad, "every EL0 read brackets the ioctl across the wraps (%lu bad)", t.bracket_bad);
	tap(!t.mono_bad, "the EL0 reads never go back across the wraps (%lu bad)", t.mono_bad);
	tap(t.both_fast * 100 >= t.rounds * 95, "the fast path answered both reads in %lu of %lu rounds",
	    t.both_fast, t.rounds);
	tap((!w32[1] || c[1] > (1ULL << 32)) && (!w32[2] || c[2] > (1ULL << 32)),
	    "the counts on 32-bit counters went past 2^32 (CPU_CYCLES:u %" PRIu64 ", instructions:u %" PRIu64 ")",
	    c[1], c[2]);
	pmuscope_close(h);
}

/* -------------------------------------------------------- refusals */

/*
 * What is refused, and how the library says it: more events than
 * counters (-ENOSPC), a writable mapping of the page (EPERM); on the perf
 * backend EL0 reads at all (-EOPNOTSUPP, from the library and from the
 * driver), while pmuscope_read_self() of an ordinary task session answers
 * with the ioctl.
 */
static struct pmuscope *open_or_fail(void)
{
	struct pmuscope *h;
	char err[512];

	if (pmuscope_open(&h, err, sizeof(err))) {
		tap(0, "open: %s", err);
		return NULL;
	}
	return h;
}

static void test_refusals(void)
{
	static const char *const specs[] = { "cycles:u", "SW_INCR:u" };
	struct pmuscope_event_spec evs[32];
	struct pmuscope_event kev = { .event = 0x11, .flags = PMUSCOPE_EV_EL0 };
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .target = PMUSCOPE_TARGET_TASK, .nr_events = 1,
		.events = (uintptr_t)&kev, .flags = PMUSCOPE_CFG_USER_READ,
	};
	struct pmuscope *h;
	uint64_t c[2];
	char err[512];
	int direct, ret, n, rc;
	void *map;

	snprintf(tag, sizeof(tag), "pmuscope-el0 refusals");
	tap_tag = tag;
	for (unsigned int i = 0; i < 32; i++)
		pmuscope_event_parse(specs[i ? 1 : 0], &evs[i], err, sizeof(err));
	h = open_or_fail();
	if (!h)
		return;
	direct = !!(pmuscope_features(h) & PMUSCOPE_FEAT_USER_READ);
	cfg.pid = gettid();
	n = ioctl(pmuscope_fd(h), PMUSCOPE_IOC_CONFIG, &cfg) ? -errno : 0;
	if (!direct) {
		ret = pmuscope_configure_self(h, evs, 1, 0);
		tap(ret == -EOPNOTSUPP, "perf backend: pmuscope_configure_self() refused, -EOPNOTSUPP (%s): %s",
		    strerror(-ret), pmuscope_errmsg(h));
		tap(n == -EOPNOTSUPP, "perf backend: CONFIG with PMUSCOPE_CFG_USER_READ refused by the driver: %s",
		    strerror(-n));
	} else {
		struct pmuscope_cpu_info info;
		unsigned int fit = 0;

		tap(n == 0, "direct backend: CONFIG with PMUSCOPE_CFG_USER_READ of this thread: %s",
		    strerror(-n));
		map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, pmuscope_fd(h), 0);
		tap(map == MAP_FAILED && errno == EPERM, "a writable mapping of the page is refused: %s",
		    map == MAP_FAILED ? strerror(errno) : "mapped");
		pmuscope_close(h);
		h = open_or_fail();
		if (!h)
			return;
		if (!pmuscope_cpu_info(0, &info))
			fit = info.num_counters + 1;
		if (fit && fit < 32) {
			ret = pmuscope_configure_self(h, evs, fit + 1, 0);
			tap(ret == -ENOSPC, "%u events for %u counters: -ENOSPC (%s): %s", fit + 1, fit,
			    strerror(-ret), pmuscope_errmsg(h));
		}
		pmuscope_close(h);
		/* Configured again: the first page goes, the second one counts. */
		h = open_or_fail();
		if (!h)
			return;
		ret = pmuscope_configure_self(h, evs, 1, 0);
		if (!ret)
			ret = pmuscope_enable(h);
		if (!ret)
			ret = pmuscope_configure_self(h, evs, 2, 0);
		if (!ret)
			ret = pmuscope_enable(h);
		rc = ret ? ret : pmuscope_read_self(h, c, 2);
		/* Not a check: whether a session may be configured again is the driver's call. */
		diag("pmuscope_configure_self() again on the same enabled session: %s (%d%s%s)",
		     rc == 0 && pmuscope_user_page(h) && pmuscope_user_page(h)->nr == 2 ?
		     "a new page, read at EL0" : "refused", rc, rc < 0 ? ": " : "",
		     rc < 0 ? pmuscope_errmsg(h) : "");
		tap(rc == 0 || !pmuscope_user_page(h),
		    "the page is gone once the session is configured again, even when the driver refuses");
	}
	pmuscope_close(h);
	/* An ordinary task session: pmuscope_read_self() answers with the ioctl. */
	h = open_or_fail();
	if (!h)
		return;
	ret = pmuscope_configure_task(h, evs, 2, 0, 0);
	if (!ret)
		ret = pmuscope_enable(h);
	rc = ret ? ret : pmuscope_read_self(h, c, 2);
	tap(rc == 1 && !pmuscope_user_page(h),
	    "a task session without EL0 reads: no page, pmuscope_read_self() answered by the ioctl (%d%s%s)",
	    rc, rc < 0 ? ": " : "", rc < 0 ? pmuscope_errmsg(h) : "");
	if (direct && !ret) {
		map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, pmuscope_fd(h), 0);
		tap(map == MAP_FAILED && errno == EINVAL, "... and its file cannot be mapped: %s",
		    map == MAP_FAILED ? strerror(errno) : "mapped");
	}
	pmuscope_close(h);
}

/* ---------------------------------------------------- SMP: other CPUs */
static void test_sigill_smp(void)
{
	static const char *const specs[] = { "cycles:u", "CPU_CYCLES:u", "SW_INCR:u" };
	const unsigned int nr = 3;
	struct ctr_view v[3];
	struct pmuscope *h;
	unsigned long fast, reads;
	char buf[128], name[24];

	snprintf(tag, sizeof(tag), "pmuscope-el0 sigill");
	tap_tag = tag;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		tap(1, "other CPUs # SKIP one CPU");
		return;
	}
	pin(0);
	h = self_session_view(specs, nr, PMUSCOPE_CFG_USER_SWINC, v);
	if (!h)
		return;
	for (int cpu = 0; cpu < 2; cpu++) {
		const char *where = cpu ? "on CPU 1, while this thread spins granted on CPU 0" :
				    "on CPU 0 too, while this thread spins granted there";
		int status;

		status = child_access(v[1].index, 0, cpu, h, nr, &fast, &reads);
		tap(is_sigill(status), "another process reading %s %s (%lu of %lu reads fast): %s",
		    index_name(v[1].index, name, sizeof(name)), where, fast, reads,
		    status_str(status, buf, sizeof(buf)));
		status = child_access(PMUSCOPE_USER_CYCLE_INDEX, 0, cpu, h, nr, &fast, &reads);
		tap(is_sigill(status), "another process reading PMCCNTR_EL0 %s (%lu of %lu reads fast): %s",
		    where, fast, reads, status_str(status, buf, sizeof(buf)));
		status = child_access(0, 1ULL << (v[2].index - 1), cpu, h, nr, &fast, &reads);
		tap(is_sigill(status), "another process writing PMSWINC_EL0 %s: %s", where,
		    status_str(status, buf, sizeof(buf)));
	}
	pmuscope_close(h);
}

/* ---------------------------------------- the grant outlives no detach */

/* Another user's process (uid 65533, no groups) reading counter @index on @cpu: its wait status. */
static int stranger_reads(int cpu, uint32_t index)
{
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		signal(SIGILL, SIG_DFL);
		if (setgroups(0, NULL) || setgid(65533) || setuid(65533))
			_exit(99);
		pin(cpu);
		(void)raw_read(index);
		_exit(0);
	}
	return waitpid(pid, &status, 0) == pid ? status : -1;
}

/* Root's CONFIG of cycles on @cpu: 0 or -errno (the message in @msg). */
static int root_config(int cpu, char *msg, size_t len)
{
	struct pmuscope_event_spec ev;
	uint64_t cpus = 1ULL << cpu;
	struct pmuscope *h;
	char err[256];
	int ret;

	if (pmuscope_open(&h, err, sizeof(err))) {
		snprintf(msg, len, "%s", err);
		return -ENODEV;
	}
	pmuscope_event_parse("cycles", &ev, err, sizeof(err));
	ret = pmuscope_configure(h, &ev, 1, &cpus, 1);
	snprintf(msg, len, "%s", ret ? pmuscope_errmsg(h) : "configured");
	pmuscope_close(h);
	return ret;
}

/*
 * pmuscope-el0 detach exec|error HELPER GID: a thread granted EL0 reads
 * on CPU 1 (uid 65534, a member of GID, the module's group=) whose
 * events perf takes away without a switch-out's del(): "exec", it execs
 * HELPER, a setuid-root copy of this program (begin_new_exec() calls
 * perf_event_exit_task() for a binary that changes credentials);
 * "error", a pinned group of its own made before the session cannot go
 * on (more events than counters), which puts the session's pinned
 * sentinel in ERROR without an add() (merge_sched_in()). While that
 * thread then sleeps, another user's process on CPU 1 must trap on
 * PMCCNTR_EL0, and root's CONFIG of CPU 1 must succeed.
 */
static void test_detach(const char *how, const char *helper_path, gid_t gid)
{
	static const char *const specs[] = { "cycles:u" };
	int ready[2], go[2], status;
	char buf[160], msg[300];
	uint32_t index;
	pid_t pid;

	snprintf(tag, sizeof(tag), "pmuscope-el0 detach %s", how);
	tap_tag = tag;
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		tap(1, "another CPU # SKIP one CPU");
		return;
	}
	if (pipe(ready) || pipe(go)) {
		tap(0, "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		tap(0, "fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		gid_t groups[1] = { gid };
		struct pmuscope *h;
		uint64_t v;
		int leader = -1;

		close(ready[0]);
		close(go[1]);
		if (setgroups(1, groups) || setgid(65534) || setuid(65534))
			_exit(99);
		pin(1);
		if (!strcmp(how, "error")) {
			/*
			 * A pinned group of 40 cycle events on pmuscope's PMU,
			 * made disabled before the session (it comes first in
			 * perf's order), enabled after: it never fits, so at
			 * each pass that finds it INACTIVE it goes to ERROR
			 * and every pinned group after it, the sentinel, too.
			 */
			struct perf_event_attr a = {
				.size = sizeof(a), .config = 0x11, .exclude_kernel = 1,
				.exclude_hv = 1, .disabled = 1,
			};
			FILE *f = fopen("/sys/bus/event_source/devices/pmuscope/type", "r");
			if (!f || fscanf(f, "%u", &a.type) != 1)
				_exit(98);
			fclose(f);
			for (int i = 0; i < 40; i++) {
				a.pinned = i == 0;
				int fdn = syscall(SYS_perf_event_open, &a, 0, -1, leader, 0);

				if (fdn < 0)
					_exit(97);
				if (leader < 0)
					leader = fdn;
			}
		}
		h = self_session(specs, 1, 0);
		if (!h)
			_exit(96);
		/*
		 * A grant is made at a switch-in: sleep (a switch out and
		 * in) until one was made or refused, at most 100 times.
		 */
		{
			struct timespec ms = { 0, 1000000 };
			struct ctr_view cv;
			unsigned char idx;

			for (int i = 0; i < 100; i++) {
				nanosleep(&ms, NULL);
				page_view(h, 0, &cv);
				if (cv.grants || cv.denials)
					break;
			}
			if (leader >= 0) {
				ioctl(leader, PERF_EVENT_IOC_ENABLE, 0);
				nanosleep(&ms, NULL);
				page_view(h, 0, &cv);
			}
			idx = cv.pmuserenr && !try_read(cv.index, &v) ? cv.index : 0;
			if (write(ready[1], &idx, 1) != 1)
				_exit(95);
		}
		if (!strcmp(how, "exec")) {
			/*
			 * The session outlives the exec (its file stays open
			 * in the new image): only perf's detach ends the
			 * thread's events, not the session's close.
			 */
			char rfd[16], gfd[16];

			fcntl(pmuscope_fd(h), F_SETFD, 0);
			snprintf(rfd, sizeof(rfd), "%d", ready[1]);
			snprintf(gfd, sizeof(gfd), "%d", go[0]);
			execl(helper_path, helper_path, "hold", rfd, gfd, (char *)NULL);
			_exit(94);
		}
		/* "error": sleep on the pipe (off the CPU), then close. */
		if (read(go[0], buf, 1) != 1)
			_exit(93);
		pmuscope_close(h);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], buf, 1) != 1) {
		waitpid(pid, &status, 0);
		tap(0, "the granted thread did not get ready: %s", status_str(status, msg, sizeof(msg)));
		return;
	}
	index = (unsigned char)buf[0];
	if (!strcmp(how, "exec"))
		tap(index != 0, "a thread of uid 65534 in group %u granted EL0 reads on CPU 1 (counter %u)",
		    (unsigned int)gid, index);
	else
		tap(1, "a thread of uid 65534 in group %u, its sentinel in ERROR: %s",
		    (unsigned int)gid, index ? "granted" : "not granted, reads with the ioctl");
	/* What another user tries: that counter, or (no grant) event counter 0. */
	if (!index)
		index = 1;
	if (!strcmp(how, "exec")) {
		/* "hold" says it runs (as root) once it has exec'd. */
		if (read(ready[0], buf, 1) != 1) {
			waitpid(pid, &status, 0);
			tap(0, "the setuid helper did not start: %s",
			    status_str(status, msg, sizeof(msg)));
			return;
		}
		tap(buf[0] == 'r', "the thread exec'd %s, setuid root: it runs as euid 0 (%c)",
		    helper_path, buf[0]);
	}
	/* The thread now sleeps in read(): CPU 1 runs others. */
	status = stranger_reads(1, index);
	tap(is_sigill(status), "%s, the thread asleep: another user's read of %s on CPU 1 traps (%s)",
	    strcmp(how, "exec") ? "its sentinel in ERROR" : "after its exec of a setuid binary",
	    index_name(index, msg, sizeof(msg)), status_str(status, buf, sizeof(buf)));
	status = root_config(1, msg, sizeof(msg));
	tap(!status, "%s: root's CONFIG of CPU 1 (%s)", how, msg);
	if (write(go[1], "x", 1) != 1)
		tap(0, "write: %s", strerror(errno));
	waitpid(pid, &status, 0);
	tap(WIFEXITED(status) && !WEXITSTATUS(status), "the thread ended (%s)",
	    status_str(status, buf, sizeof(buf)));
	close(ready[0]);
	close(go[1]);
}

/*
 * pmuscope-el0 hold READY GO: the setuid helper of test_detach(), running
 * with the credentials it was given: say so on READY, wait on GO.
 */
static int hold(int ready, int go)
{
	char c;

	/* 'r': it runs as root (the exec changed its credentials); 'n': not. */
	if (write(ready, geteuid() ? "n" : "r", 1) != 1)
		return 1;
	return read(go, &c, 1) == 1 ? 0 : 1;
}

/* -------------------------------------------- SMP: moving, hotplug, cpu_pm */

/* A helper process for the stress loops: returns its pid. */
static pid_t helper(const char *what, unsigned int times)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid)
		return pid;
	signal(SIGILL, SIG_DFL);
	for (unsigned int i = 0; i < times; i++) {
		struct timespec pause = { 0, 20 * 1000 * 1000 };

		nanosleep(&pause, NULL);
		if (!strcmp(what, "hotplug")) {
			if (set_online(1, 0) || (nanosleep(&pause, NULL), set_online(1, 1)))
				_exit(1);
		} else if (!strcmp(what, "cpupm")) {
			if (system("insmod /lib/modules/pmuscope_cpupm.ko") ||
			    system("rmmod pmuscope_cpupm"))
				_exit(1);
		}
	}
	_exit(0);
}

static pid_t hog(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGILL, SIG_DFL);
		for (;;)
			spin(1000000);
	}
	return pid;
}

/*
 * A watcher of the stress loop, in a process of its own (the session's
 * thread stays alone in its process): when a round has lasted 5 s, it
 * notes once where the looping process is (its state and CPU from
 * /proc/PID/stat, its wchan, the top of its kernel stack), so that a
 * stall names itself in the test's result.
 */
struct watch {
	volatile double round_start;	/* 0: between rounds */
	volatile int seen;
	char where[400];
};

static void watch_note(pid_t pid, struct watch *w, double secs)
{
	char path[64], wchan[64] = "?", stack[160] = "", state = '?';
	int cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		char buf[512];

		if (fgets(buf, sizeof(buf), f)) {
			const char *p = strrchr(buf, ')');
			int field = 2;

			/* Field 3 the state, field 39 the CPU last run on. */
			for (; p && *p; p++) {
				if (*p != ' ')
					continue;
				field++;
				if (field == 3)
					state = p[1];
				if (field == 39) {
					cpu = atoi(p + 1);
					break;
				}
			}
		}
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/wchan", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(wchan, sizeof(wchan), f))
			strcpy(wchan, "?");
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	f = fopen(path, "r");
	if (f) {
		size_t n = fread(stack, 1, sizeof(stack) - 1, f);

		stack[n] = 0;
		for (char *c = stack; *c; c++)
			if (*c == '\n')
				*c = ' ';
		fclose(f);
	}
	snprintf(w->where, sizeof(w->where), "a round at %.1f s: state %c on cpu%d, wchan %s, stack %s",
		 secs, state, cpu, wchan[0] ? wchan : "0", stack[0] ? stack : "-");
	w->seen = 1;
}

static pid_t watch_start(struct watch *w)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		signal(SIGILL, SIG_DFL);
		for (;;) {
			double t0 = w->round_start;

			if (!w->seen && t0 && now_s() - t0 > 5)
				watch_note(parent, w, now_s() - t0);
			usleep(200000);
		}
	}
	return pid;
}

struct stress {
	struct tally t;
	uint64_t grants0, grants1, denials1;
	unsigned long flips, flip_fail, fault;
	int helper_status;
	/* The first failed round, and the longest one (a stall: where, how long). */
	char first_err[160];
	double longest, longest_move;
	unsigned long longest_at;
};

static struct stress S;

static void stress(const char *what, unsigned long rounds, unsigned int flip, unsigned int helper_times,
		   int hogs)
{
	static const char *const specs[] = { "cycles:u", "CPU_CYCLES:u", "SW_INCR:uk" };
	const unsigned int nr = 3, sw = 2;
	struct pmuscope_self_stats st;
	struct ctr_view v;
	struct pmuscope *h;
	struct round r;
	pid_t hogp[2] = { 0, 0 };
	volatile pid_t help = 0;	/* kept across the SIGILL handler's siglongjmp */
	volatile int cpu = 0;
	volatile unsigned long k = 0;
	double t0, t1, t2, limit = 120;
	struct watch *wt;
	pid_t watcher;
	int ret;
	char buf[128];

	snprintf(tag, sizeof(tag), "pmuscope-el0 %s", what);
	tap_tag = tag;
	if (sysconf(_SC_NPROCESSORS_CONF) < 2) {
		tap(1, "%s # SKIP one CPU", what);
		return;
	}
	memset(&S, 0, sizeof(S));
	unpin();
	h = self_session_view(specs, nr, PMUSCOPE_CFG_USER_SWINC, NULL);
	if (!h)
		return;
	S.t.h = h;	/* QEMU's race may be retried (without -icount only) */
	page_view(h, 0, &v);
	S.grants0 = v.grants;
	wt = mmap(NULL, sizeof(*wt), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (wt == MAP_FAILED) {
		tap(0, "%s: mmap of the watcher's page: %s", what, strerror(errno));
		pmuscope_close(h);
		return;
	}
	memset(wt, 0, sizeof(*wt));
	watcher = watch_start(wt);
	for (int i = 0; i < hogs; i++)
		hogp[i] = hog();
	if (helper_times)
		help = helper(what, helper_times);
	S.helper_status = -1;
	t0 = now_s();
	if (sigsetjmp(ill_env, 1)) {
		ill_armed = 0;
		S.fault = ill_count;
		tap(0, "%s: SIGILL at pc %#lx after %lu rounds", what, (unsigned long)ill_pc, S.t.rounds);
		goto out;
	}
	ill_armed = 1;
	for (k = 0; now_s() - t0 < limit; k++) {
		if (k >= rounds && (!help || S.helper_status != -1))
			break;
		if (help && S.helper_status == -1) {
			int status;

			if (waitpid(help, &status, WNOHANG) == help)
				S.helper_status = status;
		}
		t1 = now_s();
		wt->round_start = t1;
		if (flip && k % flip == 0) {
			cpu_set_t set;

			cpu ^= 1;
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set)) {
				S.flip_fail++;
				unpin();
			} else {
				S.flips++;
			}
		}
		t2 = now_s();
		if (t2 - t1 > S.longest_move)
			S.longest_move = t2 - t1;	/* sched_setaffinity() */
		ret = one_round(h, nr, &r);
		t2 = now_s();
		wt->round_start = 0;
		if (t2 - t1 > S.longest) {
			S.longest = t2 - t1;
			S.longest_at = k;
		}
		if (ret) {
			if (!S.t.errors++)
				snprintf(S.first_err, sizeof(S.first_err),
					 "round %lu: EL0 read %d, ioctl %s, EL0 read %d: %s", k, r.r1,
					 ret == -2 ? "failed" : "ok", r.r2, pmuscope_errmsg(h));
			continue;
		}
		check_round(what, &r, nr, sw, &S.t);
		if (r.r2 == 0) {
			int c = sched_getcpu();

			if (c >= 0 && c < 2)
				S.t.fast_on[c]++;
		}
		bump(h, sw, &S.t);
	}
	ill_armed = 0;
out:
	ill_armed = 0;
	wt->round_start = 0;
	for (int i = 0; i < hogs; i++) {
		kill(hogp[i], SIGKILL);
		waitpid(hogp[i], NULL, 0);
	}
	if (watcher > 0) {
		kill(watcher, SIGKILL);
		waitpid(watcher, NULL, 0);
	}
	if (help && S.helper_status == -1) {
		int status;

		if (waitpid(help, &status, 0) == help)
			S.helper_status = status;
	}
	page_view(h, 0, &v);
	S.grants1 = v.grants;
	S.denials1 = v.denials;
	pmuscope_self_stats(h, &st);
	unpin();
	diag("%s: %lu rounds in %.1f s, %lu CPU changes (%lu refused), grants %" PRIu64 " -> %" PRIu64
	     ", denials %" PRIu64 "; library: %" PRIu64 " EL0 reads, %" PRIu64 " ioctl reads, %" PRIu64
	     " replans, %" PRIu64 " aborts; EL0 reads on cpu0 %lu, cpu1 %lu",
	     what, S.t.rounds, now_s() - t0, S.flips, S.flip_fail, S.grants0, S.grants1, S.denials1,
	     st.fast, st.fallback, st.replans, st.aborts, S.t.fast_on[0], S.t.fast_on[1]);
	tap(!S.fault && !ill_count, "%s: no SIGILL in %lu rounds of EL0 reads", what, S.t.rounds);
	tap(!S.t.errors && S.t.rounds >= rounds,
	    "%s: %lu rounds of EL0 read, READ ioctl, EL0 read without error (%lu failed%s%s; longest round %.3f s, at %lu; longest CPU change %.3f s%s%s)",
	    what, S.t.rounds, S.t.errors, S.t.errors ? ", first " : "", S.first_err, S.longest,
	    S.longest_at, S.longest_move, wt->seen ? "; " : "", wt->seen ? wt->where : "");
	munmap(wt, sizeof(*wt));
	tap(!S.t.bracket_bad, "%s: every EL0 read brackets the ioctl (%lu bad)", what, S.t.bracket_bad);
	tap(!S.t.mono_bad, "%s: the EL0 reads never go back (%lu bad)", what, S.t.mono_bad);
	tap(!S.t.sw_bad && !S.t.swinc_err,
	    "%s: SW_INCR equal to the %" PRIu64 " pmuscope_swinc_self() made (%lu at EL0), at EL0 and by the ioctl (%lu bad, %lu refused; %lu rounds retried for QEMU's PMU timer race)",
	    what, S.t.sw_expected, S.t.swinc_fast, S.t.sw_bad, S.t.swinc_err, S.t.qemu_races);
	tap(S.t.both_fast * 100 >= S.t.rounds * 90,
	    "%s: the fast path answered both reads in %lu of %lu rounds (>= 90%%)", what, S.t.both_fast,
	    S.t.rounds);
	if (flip)
		tap(S.t.fast_on[0] > S.t.rounds / 10 && S.t.fast_on[1] > S.t.rounds / 10 &&
		    S.grants1 - S.grants0 >= S.flips && S.flips > 10,
		    "%s: EL0 reads on both CPUs (cpu0 %lu, cpu1 %lu), grants grew by %" PRIu64 " for %lu CPU changes",
		    what, S.t.fast_on[0], S.t.fast_on[1], S.grants1 - S.grants0, S.flips);
	if (helper_times)
		tap(S.helper_status != -1 && WIFEXITED(S.helper_status) && !WEXITSTATUS(S.helper_status),
		    "%s: %u times %s during the reads: %s", what, helper_times,
		    !strcmp(what, "hotplug") ? "CPU 1 offline and online" :
		    "pmuscope_cpupm.ko: cpu_pm enter, PMU state lost, exit on every CPU",
		    status_str(S.helper_status, buf, sizeof(buf)));
	pmuscope_close(h);
}

/* -------------------------------------------------------------- layouts */

/*
 * Each straight-line reader: PMCCNTR then PMEVCNTR0.. (cycles first), or
 * PMEVCNTR0.. alone, for 1 to all the counters of the CPU, each entered
 * at its own pair. Events alternate instructions:u and SW_INCR:u: an EL0
 * read, the ioctl, an EL0 read, each counter EL0 <= ioctl <= EL0, and
 * SW_INCR the 3 increments made at every read.
 */
static void test_layouts(void)
{
	snprintf(tag, sizeof(tag), "pmuscope-el0 layouts");
	tap_tag = tag;
	pin(0);
	for (int cc = 1; cc >= 0; cc--) {
		for (unsigned int nr = 1; nr <= MAXN; nr++) {
			struct pmuscope_event_spec evs[MAXN];
			struct pmuscope_self_stats st;
			struct pmuscope *h;
			struct round r;
			uint64_t sw = 0;
			unsigned int bad = 0;
			char err[512], name[48];
			int ret;

			snprintf(name, sizeof(name), "%s%u counters", cc ? "PMCCNTR first, " : "", nr);
			for (unsigned int i = 0; i < nr; i++) {
				const char *spec = (i + !cc) % 2 ? "instructions:u" : "SW_INCR:u";

				if (cc && !i)
					spec = "cycles:u";
				else if (!((i + !cc) % 2))
					sw |= 1ULL << i;
				pmuscope_event_parse(spec, &evs[i], err, sizeof(err));
			}
			if (pmuscope_open(&h, err, sizeof(err))) {
				tap(0, "%s: open: %s", name, err);
				return;
			}
			if (!(pmuscope_features(h) & PMUSCOPE_FEAT_USER_READ)) {
				tap(1, "layouts # SKIP the driver has no PMUSCOPE_FEAT_USER_READ");
				pmuscope_close(h);
				return;
			}
			ret = pmuscope_configure_self(h, evs, nr, PMUSCOPE_CFG_USER_SWINC);
			if (ret == -ENOSPC) {
				/* More than the CPU has: the largest layouts are done. */
				diag("%s: more than the CPU's counters", name);
				pmuscope_close(h);
				break;
			}
			if (!ret)
				ret = pmuscope_enable(h);
			if (ret) {
				tap(0, "%s: configure_self and enable: %s", name, pmuscope_errmsg(h));
				pmuscope_close(h);
				return;
			}
			if (sw)
				pmuscope_swinc_self(h, sw, 3);
			if (one_round(h, nr, &r)) {
				tap(0, "%s: read", name);
				pmuscope_close(h);
				continue;
			}
			pmuscope_self_stats(h, &st);
			for (unsigned int i = 0; i < nr; i++) {
				if (sw & (1ULL << i))
					bad += r.f1[i] != 3 || r.io[i] != 3 || r.f2[i] != 3;
				else
					bad += !r.f1[i] || r.f1[i] > r.io[i] || r.io[i] > r.f2[i];
			}
			tap(r.r1 == 0 && r.r2 == 0 && st.layout == PMUSCOPE_SELF_STRAIGHT && !bad,
			    "%s: the straight-line reader (layout %u, returns %d %d): EL0 <= ioctl <= EL0, SW_INCR 3 (%u bad)",
			    name, st.layout, r.r1, r.r2, bad);
			pmuscope_close(h);
		}
	}
}

/* ---------------------------------------------------------------- bench */

#define ITER	20000
#define ROUNDS	10

/* As pmuscope-bench's: the least round mean of ITER calls in ROUNDS rounds. */
#define BENCH(out, body)						\
	do {								\
		double __best = 1e30;					\
		for (int __r = 0; __r < ROUNDS; __r++) {		\
			double __t = now_ns();				\
			for (int __i = 0; __i < ITER / ROUNDS; __i++) {	\
				body;					\
			}						\
			__t = (now_ns() - __t) / (ITER / ROUNDS);	\
			if (__t < __best)				\
				__best = __t;				\
		}							\
		(out) = __best;						\
	} while (0)

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The floor: the MRS of the counters and their stores, nothing else. */
static __attribute__((noinline)) void floor1(uint64_t *v)
{
	v[0] = MRS(pmccntr_el0);
}

static __attribute__((noinline)) void floor7(uint64_t *v)
{
	v[0] = MRS(pmccntr_el0);
	v[1] = MRS(pmevcntr0_el0);
	v[2] = MRS(pmevcntr1_el0);
	v[3] = MRS(pmevcntr2_el0);
	v[4] = MRS(pmevcntr3_el0);
	v[5] = MRS(pmevcntr4_el0);
	v[6] = MRS(pmevcntr5_el0);
}

static void bench_one(unsigned int nev)
{
	static const char *const specs[] = {
		"cycles:u", "SW_INCR:u", "SW_INCR:u", "SW_INCR:u", "SW_INCR:u", "SW_INCR:u", "SW_INCR:u",
	};
	static const char *const unit[2] = { "counter", "counters" };
	struct pmuscope_value vals[64];
	struct pmuscope_read rd = {
		.size = sizeof(rd), .values = (uintptr_t)vals, .nr_values = 64,
	};
	uint64_t c[MAXN];
	struct pmuscope_self_stats st0, st1;
	struct ctr_view v;
	struct pmuscope *h = self_session(specs, nev, 0);
	double t;
	int fd, floor_ok = 1;

	if (!h)
		return;
	fd = pmuscope_fd(h);
	for (unsigned int i = 0; i < nev; i++) {
		page_view(h, i, &v);
		/* The floor reads PMCCNTR, then PMEVCNTR0..5: are they the session's? */
		if (v.index != (i ? i : PMUSCOPE_USER_CYCLE_INDEX))
			floor_ok = 0;
	}
	pmuscope_read_self(h, c, nev);	/* warm up, plan */
	pmuscope_self_stats(h, &st0);
	BENCH(t, pmuscope_read_self(h, c, nev));
	pmuscope_self_stats(h, &st1);
	printf("pmuscope-bench: el0_read_self_%u_%s %.0f\n", nev, unit[nev > 1], t);
	tap(st1.layout == PMUSCOPE_SELF_STRAIGHT,
	    "bench: cycles then %u events (PMCCNTR, PMEVCNTR0..) read by the straight-line reader (layout %u)",
	    nev - 1, st1.layout);
	tap(st1.fast - st0.fast == ITER && st1.fallback == st0.fallback,
	    "bench: all %d pmuscope_read_self() of %u %s were EL0 reads (%" PRIu64 ")", ITER, nev,
	    unit[nev > 1], st1.fast - st0.fast);
	if (floor_ok) {
		if (sigsetjmp(ill_env, 1)) {
			ill_armed = 0;
			tap(0, "bench: the raw MRS floor trapped");
		} else {
			uint64_t sink[MAXN];

			ill_armed = 1;
			if (nev == 1)
				BENCH(t, floor1(sink));
			else
				BENCH(t, floor7(sink));
			ill_armed = 0;
			printf("pmuscope-bench: el0_raw_mrs_%u_%s %.0f\n", nev, unit[nev > 1], t);
		}
	} else {
		diag("bench: the session's counters are not PMCCNTR, PMEVCNTR0..%u: no floor", nev - 2);
	}
	BENCH(t, ioctl(fd, PMUSCOPE_IOC_READ, &rd));
	printf("pmuscope-bench: el0_read_ioctl_%u_%s %.0f\n", nev, unit[nev > 1], t);
	pmuscope_close(h);
}

static void bench(void)
{
	double t;

	snprintf(tag, sizeof(tag), "pmuscope-el0 bench");
	tap_tag = tag;
	pin(0);
	BENCH(t, asm volatile("" ::: "memory"));
	printf("pmuscope-bench: el0_bench_loop %.0f\n", t);
	bench_one(1);
	if (!skipped)
		bench_one(7);
}

int main(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 0) : 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	tap_tag = tag;
	sigill_setup();
	if (!strcmp(sub, "exact"))
		test_exact(n ? n : 1000);
	else if (!strcmp(sub, "wrap"))
		test_wrap(n ? n : 120);
	else if (!strcmp(sub, "sigill"))
		test_sigill_smp();
	else if (!strcmp(sub, "bounce"))
		stress("bounce", n ? n : 20000, 200, 0, 2);
	else if (!strcmp(sub, "hotplug"))
		stress("hotplug", n ? n : 5000, 200, 5, 0);
	else if (!strcmp(sub, "cpupm"))
		stress("cpupm", n ? n : 5000, 200, 3, 0);
	else if (!strcmp(sub, "refusals"))
		test_refusals();
	else if (!strcmp(sub, "bench"))
		bench();
	else if (!strcmp(sub, "detach") && argc > 4)
		test_detach(argv[2], argv[3], strtoul(argv[4], NULL, 0));
	else if (!strcmp(sub, "hold") && argc > 3)
		return hold(atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(sub, "layouts"))
		test_layouts();
	else {
		fprintf(stderr, "usage: pmuscope-el0 exact|wrap|sigill|bounce|hotplug|cpupm|refusals|layouts|bench [N] | detach exec|error HELPER GID\n");
		return 2;
	}
	return tap_failures ? 1 : 0;
}
