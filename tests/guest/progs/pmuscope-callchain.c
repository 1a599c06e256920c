// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-callchain: in-guest tests of call chains in SAMPLE records
 * (PMUSCOPE_STREAM_F_CALLCHAIN, struct pmuscope_rec_chain) on the direct
 * backend. Built twice with frame pointers (scripts/mkinitramfs.sh):
 * static, and PIE dynamically linked.
 *
 *   tree      CPU_CYCLES samples of a known call tree, main -> a -> b ->
 *             leaf and main -> c -> leaf, leaf a busy loop: at least 95%
 *             of the samples in leaf carry exactly b,a,main or c,main
 *             (then only frames outside this program's functions)
 *   depth     max_stack 2: no chain longer, TRUNCATED; without CALLCHAIN
 *             no chain at all; the rules of STREAM's max_stack
 *   clobber   x29 set to garbage (a low page, a misaligned value, an
 *             unmapped page, a kernel address, a record pointing at
 *             itself): chains end cleanly (USER_END), never a kernel
 *             address, and the program runs on
 *   unmap     one thread spins with x29 on frame records in an mmap()ed
 *             region; another unmaps it (and maps it again, 200 times)
 *             while it is sampled: the full chain, then the PC and
 *             USER_END, never a crash or a stall
 *   hidden    an EL0-only session (no kernel addresses), time-based and
 *             event-based samples of a loop of system calls: samples taken
 *             in the kernel say KERNEL_HIDDEN, carry the user chain, and no
 *             chain holds a kernel address
 *   kernel    the same loop counting EL1 too: kernel frames (the PC, then
 *             its callers), then the user chain
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuscope.h>

#include "pmuscope-guest.h"

#define EV_CPU_CYCLES	0x11
#define PERIOD		100000
#define REC_BUF		(1 << 20)
#define TIME_LIMIT	60		/* seconds a phase may take: a failure beyond */
#define KERNEL_HALF(a)	((a) & (1ULL << 55))	/* a kernel address (TTBR1) */

/* The call tree's functions, in a section of their own: its end bounds leaf. */
#define CC	__attribute__((noinline, noipa, section("cc_text")))
extern const char __start_cc_text[], __stop_cc_text[];
extern const char cc_spin_begin[], cc_spin_end[], cc_fake_begin[], cc_fake_end[];

static unsigned int kernel_flag = PMUSCOPE_EV_EL1;
static unsigned char recbuf[REC_BUF];
static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int dev_open(void)
{
	int fd = open("/dev/pmuscope", O_RDWR | O_NONBLOCK);

	if (fd < 0) {
		tap(0, "open /dev/pmuscope: %s", strerror(errno));
		exit(1);
	}
	return fd;
}

/* CPU_CYCLES (@flags) on cpu0; a STREAM of @st: 0 or -errno. */
static int session(int fd, unsigned int flags, struct pmuscope_stream *st)
{
	struct pmuscope_event ev = { .event = EV_CPU_CYCLES, .flags = flags };
	uint64_t cpus = 1;
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .events = (uintptr_t)&ev, .nr_events = 1,
		.cpus = (uintptr_t)&cpus, .cpus_size = 8,
	};

	if (ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg))
		return -errno;
	st->size = sizeof(*st);
	return ioctl(fd, PMUSCOPE_IOC_STREAM, st) ? -errno : 0;
}

static struct pmuscope_stream chain_stream(uint32_t ms, uint16_t max_stack)
{
	return (struct pmuscope_stream){
		.size = sizeof(struct pmuscope_stream), .flags = PMUSCOPE_STREAM_F_CALLCHAIN, .max_stack = max_stack, .period_ms = ms,
		.sample_index = 0, .sample_period = PERIOD, .ring_kib = 4096,
	};
}

/* One SAMPLE as read: its chain (NULL: none), the kernel and user addresses. */
struct sample {
	const struct pmuscope_record *r;
	const struct pmuscope_rec_chain *ch;
	const uint64_t *kips, *uips;
	unsigned int nk, nu;
};

static unsigned int bad_records, kernel_leaks, samples_seen;

/*
 * Check the record at @buf (@avail bytes): its size covers its counts and
 * its chain exactly, the chain's header is version 1 of 16 bytes, no
 * unknown flag. False if malformed (counted).
 */
static int parse(const unsigned char *buf, size_t avail, struct sample *s)
{
	const struct pmuscope_record *r = (const void *)buf;
	size_t want;

	memset(s, 0, sizeof(*s));
	s->r = r;
	if (avail < sizeof(*r) || r->size < sizeof(*r) || r->size % 8 || r->size > avail)
		goto bad;
	want = sizeof(*r) + 8 * r->nr;
	if (r->type == PMUSCOPE_REC_SAMPLE && (r->flags & PMUSCOPE_REC_F_CHAIN)) {
		if (r->size < want + sizeof(*s->ch))
			goto bad;
		s->ch = (const void *)(buf + want);
		if (s->ch->version != PMUSCOPE_CHAIN_VERSION || s->ch->size != 16 ||
		    s->ch->reserved || (s->ch->flags & ~7U) ||
		    s->ch->nr_kernel + s->ch->nr_user > PMUSCOPE_STACK_MAX)
			goto bad;
		want += 16 + 8 * (s->ch->nr_kernel + s->ch->nr_user);
		s->nk = s->ch->nr_kernel;
		s->nu = s->ch->nr_user;
		s->kips = (const uint64_t *)(s->ch + 1);
		s->uips = s->kips + s->nk;
	}
	if (r->size != want || (r->flags & ~7U))
		goto bad;
	return 1;
bad:
	bad_records++;
	return 0;
}

/* Read every record there is (non-blocking), @fn on each SAMPLE. */
static void drain(int fd, void (*fn)(const struct sample *s, void *arg), void *arg)
{
	for (;;) {
		ssize_t n = read(fd, recbuf, sizeof(recbuf)), off = 0;
		struct sample s;

		if (n <= 0)
			return;
		while (off < n) {
			if (!parse(recbuf + off, n - off, &s))
				break;
			off += s.r->size;
			if (s.r->type != PMUSCOPE_REC_SAMPLE)
				continue;
			samples_seen++;
			for (unsigned int i = 0; s.ch && i < s.nu; i++)
				if (KERNEL_HALF(s.uips[i]))
					kernel_leaks++;
			fn(&s, arg);
		}
	}
}

static int mine(const struct sample *s)
{
	return (int)s->r->pid == getpid();
}

/* ------------------------------------------------------------ call tree */

enum { F_OTHER = -1, F_MAIN, F_A, F_B, F_C, F_LEAF, F_NR };
static const char *const fn_name[F_NR] = { "main", "a", "b", "c", "leaf" };
static uintptr_t fn_start[F_NR];

/* The function of ours @pc is in: the nearest start below it in cc_text. */
static int fn_of(uint64_t pc)
{
	int i, best = F_OTHER;

	if (pc < (uintptr_t)__start_cc_text || pc >= (uintptr_t)__stop_cc_text)
		return F_OTHER;
	for (i = 0; i < F_NR; i++)
		if (fn_start[i] <= pc && (best == F_OTHER || fn_start[i] > fn_start[best]))
			best = i;
	return best;
}

CC static unsigned long leaf(unsigned long n)
{
	unsigned long x = 1;

	while (n--)
		asm volatile("add %0, %0, #1\n\tadd %0, %0, #1" : "+r"(x));
	return x;
}

CC static unsigned long b(unsigned long n)
{
	unsigned long x = leaf(n);

	sink += x;
	return x + 1;
}

CC static unsigned long a(unsigned long n)
{
	unsigned long x = b(n);

	sink += x;
	return x + 1;
}

CC static unsigned long c(unsigned long n)
{
	unsigned long x = leaf(n);

	sink += x;
	return x + 1;
}

struct tree {
	unsigned int leaf, exact_b, exact_c, other, truncated, longest, unchained;
	uint16_t max_stack;		/* the stream's; 0: the default */
	int first_bad[8];
	unsigned int first_bad_n;
};

static void tree_sample(const struct sample *s, void *arg)
{
	struct tree *t = arg;
	unsigned int i, n, want;
	int f[4];

	if (!s->ch) {
		t->unchained++;
		return;
	}
	if (s->nk + s->nu > t->longest)
		t->longest = s->nk + s->nu;
	if (s->ch->flags & PMUSCOPE_CHAIN_F_TRUNCATED)
		t->truncated++;
	if (!mine(s) || !s->nu || fn_of(s->uips[0]) != F_LEAF)
		return;
	t->leaf++;
	/* Taken at EL0: the record's PC is the chain's first user address. */
	if (s->nk || ((s->r->flags & PMUSCOPE_REC_F_USER) && s->uips[0] != s->r->pc)) {
		t->other++;
		return;
	}
	n = s->nu < 4 ? s->nu : 4;
	for (i = 0; i < 4; i++)
		f[i] = i < n ? fn_of(s->uips[i]) : -2;
	if (f[1] == F_B && f[2] == F_A && f[3] == F_MAIN)
		want = 4;
	else if (f[1] == F_C && f[2] == F_MAIN)
		want = 3;
	else
		want = 0;
	/* Beyond main: the C library's frames, none of ours. */
	for (i = want; want && i < s->nu; i++)
		if (fn_of(s->uips[i]) != F_OTHER)
			want = 0;
	if (t->max_stack == 2) {
		/* The PC and b or c, no more. */
		if (s->nu == 2 && (f[1] == F_B || f[1] == F_C))
			t->exact_b++;
		else
			t->other++;
		return;
	}
	if (want == 4) {
		t->exact_b++;
	} else if (want == 3) {
		t->exact_c++;
	} else {
		t->other++;
		if (t->first_bad_n < 2) {
			diag("a leaf sample's chain: %u user frames, flags 0x%x: %s %s %s %s",
			     s->nu, s->ch->flags, n > 0 ? (f[0] >= 0 ? fn_name[f[0]] : "?") : "-",
			     n > 1 ? (f[1] >= 0 ? fn_name[f[1]] : "?") : "-",
			     n > 2 ? (f[2] >= 0 ? fn_name[f[2]] : "?") : "-",
			     n > 3 ? (f[3] >= 0 ? fn_name[f[3]] : "?") : "-");
			t->first_bad_n++;
		}
	}
}

/*
 * A run of the call tree: main calls a() and c() while tree_more() says
 * so (main -> a must be main's own call), which reads the samples as they
 * come until *@count reaches @want.
 */
static struct {
	int fd;
	struct tree t;
	unsigned int *count, want, seen;
	double end;
} run;

static void tree_begin(int fd, unsigned int *count, unsigned int want)
{
	run.fd = fd;
	run.count = count;
	run.want = want;
	run.seen = samples_seen;
	run.end = now() + TIME_LIMIT;
	tap(!ioctl(fd, PMUSCOPE_IOC_ENABLE), "ENABLE");
}

static int tree_more(void)
{
	drain(run.fd, tree_sample, &run.t);
	if (*run.count < run.want && now() < run.end)
		return 1;
	ioctl(run.fd, PMUSCOPE_IOC_DISABLE);
	drain(run.fd, tree_sample, &run.t);
	return 0;
}

/*
 * Set up phase @phase of test @test ("tree": one; "depth": max_stack 2,
 * then no CALLCHAIN): false when there is none.
 */
static int tree_setup(const char *test, int phase)
{
	struct pmuscope_stream st = chain_stream(0, 0);
	struct pmuscope_handshake hs = { .size = sizeof(hs) };
	int fd;

	pin(0);
	memset(&run.t, 0, sizeof(run.t));
	if (!strcmp(test, "tree") && phase == 0) {
		fd = dev_open();
		tap(!session(fd, PMUSCOPE_EV_EL0, &st),
		    "CONFIG CPU_CYCLES at EL0 on cpu0, STREAM with CALLCHAIN");
		tree_begin(fd, &run.t.leaf, 1000);
		return 1;
	}
	if (strcmp(test, "depth") || phase > 1)
		return 0;
	fd = dev_open();
	if (phase == 0) {
		tap(!ioctl(fd, PMUSCOPE_IOC_HANDSHAKE, &hs) &&
		    (hs.features & PMUSCOPE_FEAT_CALLCHAIN),
		    "HANDSHAKE: PMUSCOPE_FEAT_CALLCHAIN (features 0x%llx)",
		    (unsigned long long)hs.features);
		st = chain_stream(0, 2);
		run.t.max_stack = 2;
		tap(!session(fd, PMUSCOPE_EV_EL0, &st), "STREAM with CALLCHAIN, max_stack 2");
		tree_begin(fd, &run.t.leaf, 200);
	} else {
		st.flags = 0;
		tap(!session(fd, PMUSCOPE_EV_EL0, &st), "STREAM without CALLCHAIN");
		tree_begin(fd, &run.t.unchained, 200);
	}
	return 1;
}

/* What phase @phase of @test (tree_setup()) found. */
static void tree_check(const char *test, int phase, const char *build)
{
	struct tree *t = &run.t;
	struct pmuscope_stream st;
	double exact;

	if (!strcmp(test, "tree")) {
		tap(t->leaf >= 1000, "1000 samples in leaf (%u, of %u samples)", t->leaf,
		    samples_seen);
		exact = t->leaf ? 100.0 * (t->exact_b + t->exact_c) / t->leaf : 0;
		diag("%s: leaf samples %u: exact %u (%.1f%%): b,a,main %u, c,main %u; other %u",
		     build, t->leaf, t->exact_b + t->exact_c, exact, t->exact_b, t->exact_c,
		     t->other);
		tap(!bad_records, "every record well formed, the chain's size exact (%u bad)",
		    bad_records);
		tap(!t->unchained, "every sample carries a chain (%u without)", t->unchained);
		tap(exact >= 95.0,
		    "%s: at least 95%% of leaf's samples exactly b,a,main or c,main: %.1f%%",
		    build, exact);
		tap(t->exact_b > t->leaf / 4 && t->exact_c > t->leaf / 4,
		    "both paths seen, each more than a quarter (%u, %u)", t->exact_b, t->exact_c);
		tap(!kernel_leaks, "no kernel address in a user frame (%u)", kernel_leaks);
	} else if (phase == 0) {
		tap(t->leaf >= 200, "200 samples in leaf (%u)", t->leaf);
		tap(t->longest <= 2, "no chain longer than 2 frames (longest %u)", t->longest);
		tap(t->exact_b >= 0.95 * t->leaf && t->truncated >= t->exact_b,
		    "95%% of leaf's samples: its PC and b or c, TRUNCATED (%u of %u, %u truncated)",
		    t->exact_b, t->leaf, t->truncated);
	} else {
		tap(t->unchained >= 200 && t->unchained == samples_seen - run.seen,
		    "no chain in any record (%u samples, %u without one)", samples_seen - run.seen,
		    t->unchained);
		st = chain_stream(0, PMUSCOPE_STACK_MAX + 1);
		tap(ioctl(run.fd, PMUSCOPE_IOC_STREAM, &st) && errno == EINVAL,
		    "max_stack 128: EINVAL");
		st = chain_stream(0, 8);
		st.flags = 0;
		tap(ioctl(run.fd, PMUSCOPE_IOC_STREAM, &st) && errno == EINVAL,
		    "max_stack without CALLCHAIN: EINVAL");
		st = chain_stream(0, PMUSCOPE_STACK_MAX);
		tap(!ioctl(run.fd, PMUSCOPE_IOC_STREAM, &st), "max_stack 127 with CALLCHAIN");
		tap(!bad_records, "every record well formed (%u bad)", bad_records);
	}
	close(run.fd);
}

/* ----------------------------------------------------------- bad frames */

/* Spin @n times with x29 = @fp (between cc_spin_begin and cc_spin_end). */
static void __attribute__((noinline, noipa)) clobber_spin(unsigned long fp, unsigned long n)
{
	asm volatile(
		"	mov	x9, x29\n"
		"	mov	x29, %[fp]\n"
		"	.globl	cc_spin_begin\n"
		"	.hidden	cc_spin_begin\n"
		"cc_spin_begin:\n"
		"1:	subs	%[n], %[n], #1\n"
		"	b.ne	1b\n"
		"	.globl	cc_spin_end\n"
		"	.hidden	cc_spin_end\n"
		"cc_spin_end:\n"
		"	mov	x29, x9\n"
		: [fp] "+r"(fp), [n] "+r"(n) : : "x9", "cc", "memory");
}

struct spin {
	const char *begin, *end;
	unsigned int in, clean, want_nu;
	uint64_t want_lr;		/* the one frame a self-loop gives */
};

static void spin_sample(const struct sample *s, void *arg)
{
	struct spin *p = arg;

	if (!mine(s) || !s->ch || !s->nu || s->uips[0] < (uintptr_t)p->begin ||
	    s->uips[0] >= (uintptr_t)p->end)
		return;
	p->in++;
	if (s->nu == p->want_nu && (s->ch->flags & PMUSCOPE_CHAIN_F_USER_END) &&
	    (p->want_nu < 2 || s->uips[1] == p->want_lr))
		p->clean++;
}

static void test_clobber(void)
{
	static uint64_t self_loop[2] __attribute__((aligned(16)));
	const struct {
		const char *what;
		uint64_t fp;
		unsigned int nu;
	} cases[] = {
		{ "0x10 (the first page, unmapped)", 0x10, 1 },
		{ "0x1003 (misaligned)", 0x1003, 1 },
		{ "an unmapped page", 0, 1 },
		{ "a kernel address", 0xffff800080000000ULL, 1 },
		{ "a record pointing at itself", (uintptr_t)self_loop, 2 },
	};
	struct pmuscope_stream st = chain_stream(0, 0);
	void *hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = dev_open();
	unsigned int i;

	pin(0);
	tap(hole != MAP_FAILED, "a PROT_NONE page for x29");
	self_loop[0] = (uintptr_t)self_loop;
	self_loop[1] = 0x400abc;
	tap(!session(fd, PMUSCOPE_EV_EL0, &st), "STREAM with CALLCHAIN");
	tap(!ioctl(fd, PMUSCOPE_IOC_ENABLE), "ENABLE");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct spin p = {
			.begin = cc_spin_begin, .end = cc_spin_end, .want_nu = cases[i].nu,
			.want_lr = 0x400abc,
		};
		uint64_t fp = cases[i].fp ?: (uintptr_t)hole;
		double end = now() + TIME_LIMIT;

		while (p.in < 50 && now() < end) {
			clobber_spin(fp, 2000000);
			drain(fd, spin_sample, &p);
		}
		tap(p.in >= 50 && p.clean == p.in,
		    "x29 = %s: each of %u samples ends cleanly: %u frame%s, USER_END (%u did)",
		    cases[i].what, p.in, cases[i].nu, cases[i].nu > 1 ? "s" : "", p.clean);
	}
	ioctl(fd, PMUSCOPE_IOC_DISABLE);
	tap(!bad_records, "every record well formed (%u bad)", bad_records);
	tap(!kernel_leaks, "no kernel address in a user frame (%u)", kernel_leaks);
	close(fd);
}

/* ---------------------------------------------------- unmapped under x29 */

#define FAKE_FRAMES	8
#define FAKE_LR(i)	(0x400000ULL + 16 * (i))

static volatile int fake_stop;
static void *fake_region;

/* Spin with x29 = @fp until fake_stop (between cc_fake_begin and _end). */
static void __attribute__((noinline, noipa)) fake_spin(unsigned long fp)
{
	asm volatile(
		"	mov	x9, x29\n"
		"	mov	x29, %[fp]\n"
		"	.globl	cc_fake_begin\n"
		"	.hidden	cc_fake_begin\n"
		"cc_fake_begin:\n"
		"1:	ldr	w10, [%[stop]]\n"
		"	cbz	w10, 1b\n"
		"	.globl	cc_fake_end\n"
		"	.hidden	cc_fake_end\n"
		"cc_fake_end:\n"
		"	mov	x29, x9\n"
		: [fp] "+r"(fp) : [stop] "r"(&fake_stop) : "x9", "x10", "cc", "memory");
}

static void *fake_thread(void *arg)
{
	(void)arg;
	pin(0);
	fake_spin((uintptr_t)fake_region);
	return NULL;
}

/* Map the region at its address and write FAKE_FRAMES records into it. */
static int fake_map(int fixed)
{
	uint64_t *f;
	int i;

	f = mmap(fake_region, 2 * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | (fixed ? MAP_FIXED : 0), -1, 0);
	if (f == MAP_FAILED)
		return -1;
	fake_region = f;
	for (i = 0; i < FAKE_FRAMES; i++) {
		f[4 * i] = i + 1 < FAKE_FRAMES ? (uintptr_t)&f[4 * (i + 1)] : 0;
		f[4 * i + 1] = FAKE_LR(i);
	}
	return 0;
}

struct fake {
	unsigned int in, full, cut, prefix_bad;
};

static void fake_sample(const struct sample *s, void *arg)
{
	struct fake *p = arg;
	unsigned int i;

	if (!s->ch || !s->nu || s->uips[0] < (uintptr_t)cc_fake_begin ||
	    s->uips[0] >= (uintptr_t)cc_fake_end)
		return;
	p->in++;
	if (s->nu == FAKE_FRAMES + 1 && !(s->ch->flags & PMUSCOPE_CHAIN_F_USER_END))
		p->full++;
	if (s->nu == 1 && (s->ch->flags & PMUSCOPE_CHAIN_F_USER_END))
		p->cut++;
	/* Whatever the race: a prefix of the records, in order. */
	for (i = 1; i < s->nu; i++)
		if (s->uips[i] != FAKE_LR(i - 1))
			p->prefix_bad++;
}

/* Drain until @cond holds or the time limit. */
static int fake_wait(int fd, struct fake *p, unsigned int *counter, unsigned int want)
{
	double end = now() + TIME_LIMIT;

	while (*counter < want && now() < end) {
		drain(fd, fake_sample, p);
		sched_yield();
	}
	return *counter >= want;
}

static void test_unmap(void)
{
	struct pmuscope_stream st = chain_stream(0, 0);
	struct fake p = { 0 };
	pthread_t th;
	int fd = dev_open(), i, remaps = 0;
	double t0;

	pin(sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0);
	tap(!fake_map(0), "map a region of %d frame records", FAKE_FRAMES);
	tap(!session(fd, PMUSCOPE_EV_EL0, &st), "STREAM with CALLCHAIN on cpu0");
	tap(!ioctl(fd, PMUSCOPE_IOC_ENABLE), "ENABLE");
	tap(!pthread_create(&th, NULL, fake_thread, NULL), "a thread spins on cpu0, x29 on them");
	tap(fake_wait(fd, &p, &p.full, 20), "mapped: samples with the %d frames (%u of %u)",
	    FAKE_FRAMES, p.full, p.in);
	tap(!munmap(fake_region, 2 * 4096), "another thread unmaps the region under x29");
	tap(fake_wait(fd, &p, &p.cut, 20), "unmapped: samples with the PC alone, USER_END (%u)",
	    p.cut);
	t0 = now();
	for (i = 0; i < 200; i++) {
		if (fake_map(1) || munmap(fake_region, 2 * 4096))
			break;
		remaps++;
		drain(fd, fake_sample, &p);
	}
	tap(remaps == 200, "mapped and unmapped again 200 times while sampled (%.2f s)",
	    now() - t0);
	fake_stop = 1;
	tap(!pthread_join(th, NULL), "the spinning thread stops and is joined: no stall");
	ioctl(fd, PMUSCOPE_IOC_DISABLE);
	drain(fd, fake_sample, &p);
	diag("samples in the spin: %u: full %u, cut %u", p.in, p.full, p.cut);
	tap(!p.prefix_bad, "every chain a prefix of the records, in order (%u not)", p.prefix_bad);
	tap(!bad_records, "every record well formed (%u bad)", bad_records);
	close(fd);
}

/* ------------------------------------------------------ kernel addresses */

struct sys {
	int kernel_pcs;
	unsigned int in_kernel, hidden, with_user, with_main, kframes, deepest, leaks, wrong;
};

static void sys_sample(const struct sample *s, void *arg)
{
	struct sys *p = arg;
	unsigned int i;

	if (!s->ch)
		return;
	for (i = 0; i < s->nk; i++)
		if (!KERNEL_HALF(s->kips[i]))
			p->wrong++;
	if (!p->kernel_pcs) {
		/* Nothing of the kernel: not a frame, not the PC. */
		if (s->nk || KERNEL_HALF(s->r->pc))
			p->leaks++;
	}
	if (!mine(s) || (s->r->flags & PMUSCOPE_REC_F_USER))
		return;
	p->in_kernel++;
	if (s->ch->flags & PMUSCOPE_CHAIN_F_KERNEL_HIDDEN)
		p->hidden++;
	if (s->nk) {
		p->kframes++;
		if (s->kips[0] != s->r->pc)
			p->wrong++;
	}
	if (s->nk > p->deepest)
		p->deepest = s->nk;
	if (s->nu) {
		p->with_user++;
		for (i = 0; i < s->nu; i++)
			if (fn_of(s->uips[i]) == F_MAIN)
				break;
		if (i < s->nu)
			p->with_main++;
	}
}

static void __attribute__((noinline, noipa)) syscalls(int zero, unsigned int n)
{
	static char buf[16384];

	while (n--) {
		sink += getppid();
		sink += read(zero, buf, sizeof(buf));
	}
}

static void test_sys(int kernel_pcs)
{
	struct pmuscope_stream st = chain_stream(1, 0);
	struct sys p = { .kernel_pcs = kernel_pcs };
	int fd = dev_open(), zero = open("/dev/zero", O_RDONLY);
	const char *what = kernel_pcs ? "EL0 and EL1" : "EL0 only";
	double end = now() + TIME_LIMIT;

	pin(0);
	tap(!session(fd, PMUSCOPE_EV_EL0 | (kernel_pcs ? kernel_flag : 0), &st),
	    "CONFIG %s, STREAM with CALLCHAIN: every 1 ms and every %d cycles", what, PERIOD);
	tap(!ioctl(fd, PMUSCOPE_IOC_ENABLE), "ENABLE");
	while ((p.in_kernel < 100 || p.with_main < 20) && now() < end) {
		syscalls(zero, 200);
		drain(fd, sys_sample, &p);
	}
	ioctl(fd, PMUSCOPE_IOC_DISABLE);
	drain(fd, sys_sample, &p);
	diag("%s: %u samples of this process in the kernel: %u KERNEL_HIDDEN, %u with kernel frames (deepest %u), %u with a user chain, %u reaching main",
	     what, p.in_kernel, p.hidden, p.kframes, p.deepest, p.with_user, p.with_main);
	tap(p.in_kernel >= 100, "100 samples taken in the kernel during system calls (%u)",
	    p.in_kernel);
	if (!kernel_pcs) {
		tap(!p.leaks && !kernel_leaks,
		    "no kernel address in any chain or PC (%u, %u)", p.leaks, kernel_leaks);
		tap(p.hidden == p.in_kernel && !p.kframes,
		    "each sample in the kernel says KERNEL_HIDDEN (%u of %u)", p.hidden, p.in_kernel);
	} else {
		tap(!p.hidden && p.kframes == p.in_kernel && !p.wrong,
		    "each sample in the kernel: the kernel PC first, kernel addresses (%u of %u)",
		    p.kframes, p.in_kernel);
		tap(p.deepest >= 3, "kernel frames beyond the PC: up to %u", p.deepest);
		tap(!kernel_leaks, "no kernel address among the user frames (%u)", kernel_leaks);
	}
	tap(p.with_user == p.in_kernel, "each has the user chain from where it entered (%u of %u)",
	    p.with_user, p.in_kernel);
	tap(p.with_main >= 20, "user chains walked to main (%u)", p.with_main);
	tap(!bad_records, "every record well formed (%u bad)", bad_records);
	close(zero);
	close(fd);
}

CC int main(int argc, char **argv)
{
	static char tag[64];
	int phase;
	FILE *f;

	if (argc < 2)
		return 2;
	fn_start[F_MAIN] = (uintptr_t)main;
	fn_start[F_A] = (uintptr_t)a;
	fn_start[F_B] = (uintptr_t)b;
	fn_start[F_C] = (uintptr_t)c;
	fn_start[F_LEAF] = (uintptr_t)leaf;
	snprintf(tag, sizeof(tag), "pmuscope-callchain %s%s%s", argv[1], argc > 2 ? " " : "",
		 argc > 2 ? argv[2] : "");
	tap_tag = tag;
	f = fopen("/sys/kernel/pmuscope/kernel_el", "r");
	if (f) {
		if (fgetc(f) == '2')
			kernel_flag = PMUSCOPE_EV_EL2;
		fclose(f);
	}
	if (!strcmp(argv[1], "tree") || !strcmp(argv[1], "depth")) {
		for (phase = 0; tree_setup(argv[1], phase); phase++) {
			while (tree_more()) {
				sink += a(400000);
				sink += c(400000);
			}
			tree_check(argv[1], phase, argc > 2 ? argv[2] : "");
		}
	} else if (!strcmp(argv[1], "clobber")) {
		test_clobber();
	} else if (!strcmp(argv[1], "unmap")) {
		test_unmap();
	} else if (!strcmp(argv[1], "hidden")) {
		test_sys(0);
	} else if (!strcmp(argv[1], "kernel")) {
		test_sys(1);
	} else {
		return 2;
	}
	sink += 1;
	return tap_failures ? 1 : 0;
}
