// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-bench: what the interfaces cost, measured in the guest. Run
 * under qemu -icount shift=0 (make bench), where a guest nanosecond is one
 * instruction: the figures are instruction counts, kernel and user, of
 * every CPU involved, and repeat exactly from run to run.
 *
 * Prints "pmuscope-bench: NAME NS_PER_OP": the least mean of ROUNDS rounds
 * of ITER / ROUNDS calls, so that a round a timer interrupt or the other
 * CPU's housekeeping fell into does not count (one such interrupt adds
 * thousands of instructions to one call: the mean of all calls moved by
 * +-60 from run to run; the least round mean repeats).
 *
 *   pmuscope-bench         pmuscope's interfaces (either backend)
 *   pmuscope-bench perf    also perf_event_open() reads of the same events,
 *                          the peer (needs perf's PMU driver), and perf's
 *                          own EL0 self-monitoring read
 *   pmuscope-bench command pmuscope record's and perf record's own cost
 *                          alone (bench_command())
 *
 * pmuscope's EL0 reads (pmuscope_read_self(), libpmuscope) are measured by
 * pmuscope-el0 bench (tests/tools/el0test.c), built with the library.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <linux/pmuscope.h>
#include <sys/syscall.h>

#define ITER	2000
#define ROUNDS	10

/*
 * Time @body, ITER times in ROUNDS rounds: the least round mean in *@out.
 * A statement, not a function: the calls measured stay what they are.
 */
#define BENCH(out, body)						\
	do {								\
		double __best = 1e30;					\
		for (int __r = 0; __r < ROUNDS; __r++) {		\
			double __t = now();				\
			for (int __i = 0; __i < ITER / ROUNDS; __i++) {	\
				body;					\
			}						\
			__t = (now() - __t) / (ITER / ROUNDS);		\
			if (__t < __best)				\
				__best = __t;				\
		}							\
		(out) = __best;						\
	} while (0)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int write_file_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) < 0)
		ret = -1;
	close(fd);
	return ret;
}

static int session(unsigned int nev, unsigned long long cpus)
{
	struct pmuscope_event ev[8];
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .nr_events = nev, .cpus_size = 8,
		.events = (unsigned long)ev, .cpus = (unsigned long)&cpus,
	};
	int fd = open("/dev/pmuscope", O_RDWR);

	for (unsigned int i = 0; i < nev; i++)
		ev[i] = (struct pmuscope_event){
			.event = i ? 0x00 : 0x11,
			.flags = PMUSCOPE_EV_EL0 | PMUSCOPE_EV_EL1,
		};
	if (fd < 0 || ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg) ||
	    ioctl(fd, PMUSCOPE_IOC_ENABLE)) {
		perror("pmuscope-bench: session");
		exit(1);
	}
	return fd;
}

static void bench_read(const char *name, unsigned int nev, unsigned long long cpus)
{
	struct pmuscope_value v[64];
	struct pmuscope_read rd = {
		.size = sizeof(rd), .values = (unsigned long)v, .nr_values = 64,
	};
	int fd = session(nev, cpus);
	double t;

	ioctl(fd, PMUSCOPE_IOC_READ, &rd);	/* warm up */
	BENCH(t, ioctl(fd, PMUSCOPE_IOC_READ, &rd));
	printf("pmuscope-bench: %s %.0f\n", name, t);
	close(fd);
}

/*
 * SNAPSHOT of the session's @nev counters on @cpus: instructions per call,
 * and the mean of what each call reports (the software path's frozen
 * ticks, the all-CPU skew), over ITER calls.
 */
static void bench_snapshot(const char *name, unsigned int nev, unsigned long long cpus,
			   unsigned int flags, unsigned int lead_us)
{
	struct pmuscope_value v[64];
	struct pmuscope_snap_cpu c[8];
	struct pmuscope_snapshot sn;
	double t = 0, frozen = 0, skew = 0;
	int fd = session(nev, cpus);

	BENCH(t, (sn = (struct pmuscope_snapshot){
			.size = sizeof(sn), .flags = flags, .lead_us = lead_us,
			.values = (unsigned long)v,
			.nr_values = 64, .cpus = (unsigned long)c, .nr_cpus = 8,
		  }, ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &sn)));
	/* What the calls report, in a second run (not timed). */
	for (int i = 0; i < ITER; i++) {
		sn = (struct pmuscope_snapshot){
			.size = sizeof(sn), .flags = flags, .lead_us = lead_us,
			.values = (unsigned long)v,
			.nr_values = 64, .cpus = (unsigned long)c, .nr_cpus = 8,
		};
		if (ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &sn))
			break;
		frozen += c[0].frozen;
		skew += sn.skew;
	}
	printf("pmuscope-bench: %s %.0f\n", name, t);
	printf("pmuscope-bench: %s_frozen_ticks %.2f\n", name, frozen / ITER);
	if (sn.nr_cpus > 1)
		printf("pmuscope-bench: %s_skew_ticks %.0f\n", name, skew / ITER);
	close(fd);
}

/*
 * The floor of a SNAPSHOT: the same call refused by the driver after it
 * copied and checked the argument (an unknown flag: EINVAL). What a
 * SNAPSHOT costs beyond it is the snapshot's own work in the kernel.
 */
static void bench_snapshot_floor(void)
{
	struct pmuscope_snapshot sn;
	int fd = session(7, 0x1);
	double t;

	BENCH(t, (sn = (struct pmuscope_snapshot){ .size = sizeof(sn), .flags = 1U << 31 },
		  ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &sn)));
	printf("pmuscope-bench: snapshot_ioctl_floor %.0f\n", t);
	close(fd);
}

static void spin(unsigned long n)
{
	asm volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
}

/*
 * The cost of a stream's record: the same work with the session's 7
 * counters enabled, without and with a sample every @period cycles; the
 * extra instructions over the records made (read afterwards, outside
 * the timing).
 */
static void bench_stream(unsigned long long period)
{
	static unsigned char buf[1 << 20];
	struct pmuscope_stream st = {
		.size = sizeof(st), .sample_index = 0, .sample_period = period,
		.ring_kib = 4096,
	};
	unsigned long records = 0;
	double plain, sampled;
	int fd = session(7, 0x1);
	ssize_t n;

	spin(1000000);
	plain = now();
	spin(20000000);
	plain = now() - plain;
	ioctl(fd, PMUSCOPE_IOC_DISABLE);
	if (ioctl(fd, PMUSCOPE_IOC_STREAM, &st) || ioctl(fd, PMUSCOPE_IOC_ENABLE)) {
		fprintf(stderr, "stream bench not run: %s\n", strerror(errno));
		close(fd);
		return;
	}
	sampled = now();
	spin(20000000);
	sampled = now() - sampled;
	ioctl(fd, PMUSCOPE_IOC_DISABLE);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n; off += ((struct pmuscope_record *)(buf + off))->size)
			records += ((struct pmuscope_record *)(buf + off))->type == PMUSCOPE_REC_SAMPLE;
	if (records)
		printf("pmuscope-bench: stream_record_7_counters %.0f\n",
		       (sampled - plain) / records);
	printf("pmuscope-bench: stream_records_per_20M_iterations %lu\n", records);
	close(fd);
}

/*
 * Sampling: what one sample costs in the overflow path (the interrupt to
 * the record in the ring), and what sampling slows a fixed workload by.
 * The workload spins at the bottom of a recursion SAMPLE_DEPTH frames
 * deep (frame records kept), so a call chain capped at 8 or 32 frames
 * is that long. Each figure: (instructions of the sampled run - of the
 * same run unsampled) / samples made, the least of SAMPLE_ROUNDS pairs
 * (guest time counts the other CPU's instructions too: a kworker there
 * adds to one run); the slowdown, the same difference over the
 * unsampled run. Samples are read afterwards, outside the
 * timing. On CPU 0, where this program runs, CPU_CYCLES; under
 * -icount shift=0 one cycle is one instruction, so a period of 100,000
 * is 10,000 samples a second and 1,000,000 is 1,000.
 */
#define SAMPLE_DEPTH	40
#define SAMPLE_WORK	100000000UL
#define SAMPLE_ROUNDS	3

static __attribute__((noinline, optimize("no-omit-frame-pointer", "no-optimize-sibling-calls")))
void sample_deep(int depth, unsigned long n)
{
	if (depth > 1)
		sample_deep(depth - 1, n);
	else
		spin(n);
	asm volatile("" ::: "memory");	/* no tail call */
}

static double sample_run(void)
{
	double t = now();

	sample_deep(SAMPLE_DEPTH, SAMPLE_WORK);
	return now() - t;
}

static void sample_print(const char *who, const char *name, unsigned long long period,
			 double plain, double sampled, unsigned long samples, double frames)
{
	if (!samples) {
		printf("pmuscope-bench: %s no samples\n", name);
		return;
	}
	printf("pmuscope-bench: %s_%s_%llu %.0f\n", who, name, period,
	       (sampled - plain) / samples);
	printf("pmuscope-bench: %s_%s_%llu_slowdown_pct %.3f\n", who, name, period,
	       100 * (sampled - plain) / plain);
	printf("pmuscope-bench: %s_%s_%llu_samples %lu\n", who, name, period, samples);
	if (frames >= 0)
		printf("pmuscope-bench: %s_%s_%llu_frames %.1f\n", who, name, period, frames);
}

/* pmuscope: a CPU session on CPU 0 sampling CPU_CYCLES, @depth frames (0: no chain). */
static void bench_sample(const char *name, unsigned long long period, unsigned int depth)
{
	static unsigned char buf[1 << 20];
	struct pmuscope_stream st = {
		.size = sizeof(st), .sample_index = 0, .sample_period = period,
		.ring_kib = 4096, .wakeup_kib = 2048,
		.flags = depth ? PMUSCOPE_STREAM_F_CALLCHAIN : 0, .max_stack = depth,
	};
	unsigned long samples = 0, frames = 0;
	double plain = 0, sampled = 0;
	int fd = session(1, 0x1);
	ssize_t n;

	sample_run();
	ioctl(fd, PMUSCOPE_IOC_DISABLE);
	if (ioctl(fd, PMUSCOPE_IOC_STREAM, &st)) {
		printf("pmuscope-bench: %s not run: STREAM: %s\n", name, strerror(errno));
		close(fd);
		return;
	}
	fcntl(fd, F_SETFL, O_NONBLOCK);
	/* The least of SAMPLE_ROUNDS: the other CPU's work counts in guest time too. */
	for (int round = 0; round < SAMPLE_ROUNDS; round++) {
		unsigned long s_r = 0, f_r = 0;
		double p_r, t_r;

		p_r = sample_run();
		if (ioctl(fd, PMUSCOPE_IOC_ENABLE)) {
			printf("pmuscope-bench: %s not run: ENABLE: %s\n", name, strerror(errno));
			close(fd);
			return;
		}
		t_r = sample_run();
		ioctl(fd, PMUSCOPE_IOC_DISABLE);
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			for (ssize_t off = 0; off < n;
			     off += ((struct pmuscope_record *)(buf + off))->size) {
				struct pmuscope_record *r = (struct pmuscope_record *)(buf + off);
				struct pmuscope_rec_chain *ch;

				if (r->type != PMUSCOPE_REC_SAMPLE)
					continue;
				s_r++;
				if (!(r->flags & PMUSCOPE_REC_F_CHAIN))
					continue;
				ch = (struct pmuscope_rec_chain *)((unsigned long long *)(r + 1) + r->nr);
				f_r += ch->nr_user + ch->nr_kernel;
			}
		}
		if (s_r && (!samples || (t_r - p_r) / s_r < (sampled - plain) / samples)) {
			plain = p_r;
			sampled = t_r;
			samples = s_r;
			frames = f_r;
		}
	}
	sample_print("sample", name, period, plain, sampled, samples,
		     depth ? (double)frames / (samples ? samples : 1) : -1);
	close(fd);
}

/*
 * The peer: perf_event_open() of CPU_CYCLES on CPU 0 sampling every
 * @period with PERF_SAMPLE_IP|TID|TIME (and CALLCHAIN capped at @depth
 * frames), into its mmap ring, as perf record's own events are.
 */
static void bench_sample_perf(const char *name, unsigned long long period, unsigned int depth)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW, .size = sizeof(attr), .config = 0x11,
		.sample_period = period, .disabled = 1, .wakeup_events = 1000000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       (depth ? PERF_SAMPLE_CALLCHAIN : 0),
		.sample_max_stack = depth,
	};
	size_t pages = 256, psz = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pc;
	unsigned long samples = 0, frames = 0;
	unsigned long long head, pos;
	double plain = 0, sampled = 0;
	unsigned char *data;
	int fd;

	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, 0);
	if (fd < 0) {
		printf("pmuscope-bench: perf_%s not run: perf_event_open: %s\n", name,
		       strerror(errno));
		return;
	}
	pc = mmap(NULL, (pages + 1) * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pc == MAP_FAILED) {
		printf("pmuscope-bench: perf_%s not run: mmap: %s\n", name, strerror(errno));
		close(fd);
		return;
	}
	data = (unsigned char *)pc + psz;
	pos = 0;
	sample_run();
	for (int round = 0; round < SAMPLE_ROUNDS; round++) {
		unsigned long s_r = 0, f_r = 0;
		double p_r, t_r;

		p_r = sample_run();
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		t_r = sample_run();
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
		while (pos < head) {
			struct perf_event_header h;
			size_t off = pos % (pages * psz);

			memcpy(&h, data + off, sizeof(h));	/* 8-aligned: never straddles */
			if (!h.size)
				break;
			if (h.type == PERF_RECORD_SAMPLE) {
				unsigned long long nr;

				s_r++;
				/* ip, pid/tid, time, then nr and the chain's entries */
				if (depth) {
					size_t at = (off + sizeof(h) + 24) % (pages * psz);

					memcpy(&nr, data + at, sizeof(nr));
					f_r += nr;
				}
			}
			pos += h.size;
		}
		pos = head;
		__atomic_store_n(&pc->data_tail, head, __ATOMIC_RELEASE);
		if (s_r && (!samples || (t_r - p_r) / s_r < (sampled - plain) / samples)) {
			plain = p_r;
			sampled = t_r;
			samples = s_r;
			frames = f_r;
		}
	}
	sample_print("perf", name, period, plain, sampled, samples,
		     depth ? (double)frames / (samples ? samples : 1) : -1);
	munmap(pc, (pages + 1) * psz);
	close(fd);
}

static void bench_sampling(int perf)
{
	static const struct {
		const char *name;
		unsigned int depth;
	} kinds[] = { { "ip", 0 }, { "chain8", 8 }, { "chain32", 32 } };
	static const unsigned long long periods[] = { 100000, 1000000 };

	for (unsigned int k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (unsigned int p = 0; p < sizeof(periods) / sizeof(periods[0]); p++) {
			bench_sample(kinds[k].name, periods[p], kinds[k].depth);
			if (perf)
				bench_sample_perf(kinds[k].name, periods[p], kinds[k].depth);
		}
}

static void bench_handshake(void)
{
	struct pmuscope_handshake hs = { .size = sizeof(hs) };
	int fd = open("/dev/pmuscope", O_RDWR);
	double t;

	BENCH(t, (hs = (struct pmuscope_handshake){ .size = sizeof(hs) },
		  ioctl(fd, PMUSCOPE_IOC_HANDSHAKE, &hs)));
	printf("pmuscope-bench: handshake_ioctl %.0f\n", t);
	close(fd);
}

static void bench_sysfs(void)
{
	char buf[64];
	double t;

	if (system("echo CPU_CYCLES > /sys/kernel/pmuscope/cpu0/select") ||
	    system("echo 1 > /sys/kernel/pmuscope/cpu0/enable"))
		return;
	BENCH(t, {
		int fd = open("/sys/kernel/pmuscope/cpu0/counter_value/cycle", O_RDONLY);

		if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
			return;
		close(fd);
	});
	printf("pmuscope-bench: sysfs_counter_value_read %.0f\n", t);
	if (system("echo > /sys/kernel/pmuscope/cpu0/select"))
		return;
}

/*
 * With perf's driver, a perf_event_open() counter of instructions on CPU
 * 0 (all tasks, every EL) beside the clock: the clock also counts the
 * time every CPU sleeps (a timed wait, under -icount with sleep=on: real
 * time), the counter does not. QEMU's instruction counter is its global
 * instruction count (icount): the instructions of both CPUs.
 */
static int command_insn_fd = -1;

static double command_insns(void)
{
	unsigned long long v;

	if (command_insn_fd < 0 || read(command_insn_fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	return v;
}

/*
 * @argv run as a command line runs it: forked, exec'd, waited for, its
 * output to /dev/null (a console write costs more than the command).
 * Its nanoseconds (and counted instructions in *@insn), or -1 when it
 * could not run or failed.
 */
static double command_run(char *const argv[], double *insn)
{
	double i0 = command_insns(), t = now();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	t = now() - t;
	*insn = i0 < 0 ? -1 : command_insns() - i0;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? t : -1;
}

/* The least of 5 runs of @argv (@out removed before each), or -1. */
static double command_min(char *const argv[], const char *out, double *insn)
{
	double best = 1e30, ibest = 1e30;

	for (int i = 0; i < 5; i++) {
		double t, n;

		if (out)
			unlink(out);
		t = command_run(argv, &n);
		if (t < 0)
			return -1;
		if (t < best)
			best = t;
		if (n < ibest)
			ibest = n;
	}
	*insn = ibest;
	return best;
}

/* The own cost of @argv: its least run less @alone's, by clock and counter. */
static void command_own(const char *name, char *const argv[], const char *out,
			const double alone[2])
{
	double n, t = command_min(argv, out, &n);

	if (t < 0 || alone[0] < 0) {
		printf("pmuscope-bench: %s failed\n", name);
		return;
	}
	printf("pmuscope-bench: %s %.0f\n", name, t - alone[0]);
	if (n >= 0 && alone[1] >= 0)
		printf("pmuscope-bench: %s_insn %.0f\n", name, n - alone[1]);
}

/*
 * What a recording command costs itself: start-up, its session or
 * events, attaching to the command, the file's header, the teardown.
 * `pmuscope record -c 100000 -e cycles -- /bin/true` (and with -g) less
 * /bin/true run alone; with @perf also perf record of the same event and
 * period, Debian's perf where the initramfs has it (scripts/guest-perf.sh),
 * as it runs, and without its side-band thread (--no-bpf-event): that
 * thread polls with a 1 s timeout, which perf's teardown waits out.
 */
static void bench_command(int perf)
{
	static char *const alone[] = { "/bin/true", NULL };
	static char *const rec[] = { "/bin/pmuscope", "record", "-o", "/tmp/x", "-e", "cycles",
				     "-c", "100000", "--", "/bin/true", NULL };
	static char *const rec_g[] = { "/bin/pmuscope", "record", "-o", "/tmp/x", "-e", "cycles",
				       "-c", "100000", "-g", "--", "/bin/true", NULL };
	static char *const prec[] = { "/usr/bin/perf", "record", "-o", "/tmp/p.data", "-e",
				      "cycles", "-c", "100000", "--", "/bin/true", NULL };
	static char *const prec_g[] = { "/usr/bin/perf", "record", "-o", "/tmp/p.data", "-e",
					"cycles", "-c", "100000", "-g", "--", "/bin/true", NULL };
	static char *const prec_nb[] = { "/usr/bin/perf", "record", "-o", "/tmp/p.data", "-e",
					 "cycles", "-c", "100000", "--no-bpf-event", "--",
					 "/bin/true", NULL };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE, .size = sizeof(attr),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
	};
	double t0[2];

	if (perf)
		command_insn_fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, 0);
	t0[0] = command_min(alone, NULL, &t0[1]);
	printf("pmuscope-bench: command_alone %.0f\n", t0[0]);
	command_own("record_command_own", rec, "/tmp/x", t0);
	command_own("record_g_command_own", rec_g, "/tmp/x", t0);
	if (perf && access(prec[0], X_OK)) {
		printf("pmuscope-bench: perf_record_command_own no_perf\n");
	} else if (perf) {
		command_own("perf_record_command_own", prec, "/tmp/p.data", t0);
		command_own("perf_record_g_command_own", prec_g, "/tmp/p.data", t0);
		command_own("perf_record_nobpf_command_own", prec_nb, "/tmp/p.data", t0);
	}
	unlink("/tmp/x");
	unlink("/tmp/p.data");
	if (command_insn_fd >= 0)
		close(command_insn_fd);
	command_insn_fd = -1;
}

/*
 * The peer: perf_event_open() counters of the same events on CPU 0 (CPU
 * counters, all tasks, as pmuscope's session), read with read(): a group
 * of @nev with PERF_FORMAT_GROUP (one read for all), or a single event.
 */
static void bench_perf(const char *name, unsigned int nev, int group)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW, .size = sizeof(attr),
		.read_format = group ? PERF_FORMAT_GROUP : 0,
	};
	unsigned long long buf[16];
	int fd[8], leader = -1;
	double t;

	for (unsigned int i = 0; i < nev; i++) {
		attr.config = i ? 0x00 : 0x11;	/* CPU_CYCLES, then SW_INCR */
		fd[i] = syscall(SYS_perf_event_open, &attr, -1, 0, group ? leader : -1, 0);
		if (fd[i] < 0) {
			perror("pmuscope-bench: perf_event_open");
			return;
		}
		if (!i)
			leader = fd[0];
	}
	if (read(fd[0], buf, sizeof(buf)) <= 0)	/* warm up */
		return;
	BENCH(t, if (read(fd[0], buf, sizeof(buf)) <= 0) return);
	printf("pmuscope-bench: %s %.0f\n", name, t);
	for (unsigned int i = 0; i < nev; i++)
		close(fd[i]);
}

/*
 * perf's own EL0 self-monitoring, the peer of pmuscope_read_self(): each
 * event opened for this thread with attr.config1 bit 1 (arm64's "rdpmc"
 * format bit), user space only, its perf_event_mmap_page mapped, and read
 * as tools/lib/perf/mmap.c perf_mmap__read_self() reads it: the page's
 * lock (seq), the times, index and offset, the counter read with MRS by
 * index (a table of functions, one per counter), sign-extended from
 * pmc_width, the lock read again. 7 counters are 7 events, each read so.
 */
#define PERF_MRS(reg) ({ unsigned long long __v; asm volatile("mrs %0, " #reg : "=r"(__v)); __v; })
#define PERF_RD(n) static unsigned long long perf_rd_##n(void) { return PERF_MRS(pmevcntr##n##_el0); }
PERF_RD(0) PERF_RD(1) PERF_RD(2) PERF_RD(3) PERF_RD(4) PERF_RD(5) PERF_RD(6) PERF_RD(7)
PERF_RD(8) PERF_RD(9) PERF_RD(10) PERF_RD(11) PERF_RD(12) PERF_RD(13) PERF_RD(14) PERF_RD(15)
PERF_RD(16) PERF_RD(17) PERF_RD(18) PERF_RD(19) PERF_RD(20) PERF_RD(21) PERF_RD(22) PERF_RD(23)
PERF_RD(24) PERF_RD(25) PERF_RD(26) PERF_RD(27) PERF_RD(28) PERF_RD(29) PERF_RD(30)
static unsigned long long perf_rd_cc(void) { return PERF_MRS(pmccntr_el0); }

static unsigned long long read_perf_counter(unsigned int counter)
{
	static unsigned long long (*const read_f[])(void) = {
		perf_rd_0, perf_rd_1, perf_rd_2, perf_rd_3, perf_rd_4, perf_rd_5, perf_rd_6,
		perf_rd_7, perf_rd_8, perf_rd_9, perf_rd_10, perf_rd_11, perf_rd_12, perf_rd_13,
		perf_rd_14, perf_rd_15, perf_rd_16, perf_rd_17, perf_rd_18, perf_rd_19, perf_rd_20,
		perf_rd_21, perf_rd_22, perf_rd_23, perf_rd_24, perf_rd_25, perf_rd_26, perf_rd_27,
		perf_rd_28, perf_rd_29, perf_rd_30, perf_rd_cc,
	};

	if (counter < sizeof(read_f) / sizeof(read_f[0]))
		return read_f[counter]();
	return 0;
}

#define PERF_READ_ONCE(x) (*(volatile __typeof__(x) *)&(x))

/* perf_mmap__read_self(), its arm64 path: 0 and *@val, or -1 (not readable). */
static __attribute__((noinline)) int perf_read_self(struct perf_event_mmap_page *pc,
						    unsigned long long *val)
{
	unsigned long long cnt, ena, run, cyc = 0, time_offset = 0, time_cycles = 0,
			   time_mask = ~0ULL;
	unsigned int seq, idx, time_mult = 0, time_shift = 0;

	if (!pc || !pc->cap_user_rdpmc)
		return -1;
	do {
		seq = PERF_READ_ONCE(pc->lock);
		asm volatile("" ::: "memory");
		ena = PERF_READ_ONCE(pc->time_enabled);
		run = PERF_READ_ONCE(pc->time_running);
		if (pc->cap_user_time && ena != run) {
			cyc = PERF_MRS(cntvct_el0);
			time_mult = PERF_READ_ONCE(pc->time_mult);
			time_shift = PERF_READ_ONCE(pc->time_shift);
			time_offset = PERF_READ_ONCE(pc->time_offset);
			if (pc->cap_user_time_short) {
				time_cycles = PERF_READ_ONCE(pc->time_cycles);
				time_mask = PERF_READ_ONCE(pc->time_mask);
			}
		}
		idx = PERF_READ_ONCE(pc->index);
		cnt = PERF_READ_ONCE(pc->offset);
		if (pc->cap_user_rdpmc && idx) {
			long long evcnt = read_perf_counter(idx - 1);
			unsigned short width = PERF_READ_ONCE(pc->pmc_width);

			evcnt <<= 64 - width;
			evcnt >>= 64 - width;
			cnt += evcnt;
		} else {
			return -1;
		}
		asm volatile("" ::: "memory");
	} while (PERF_READ_ONCE(pc->lock) != seq);
	if (ena != run) {
		/* Adjust for cap_usr_time_short, a nop if not */
		cyc = time_cycles + ((cyc - time_cycles) & time_mask);
		(void)(time_offset + ((unsigned __int128)cyc * time_mult >> time_shift));
	}
	*val = cnt;
	return 0;
}

/* The floor: the same MRS (PMCCNTR_EL0, PMEVCNTR0..5_EL0) and their stores. */
static __attribute__((noinline)) void perf_floor1(unsigned long long *v)
{
	v[0] = PERF_MRS(pmccntr_el0);
}

static __attribute__((noinline)) void perf_floor7(unsigned long long *v)
{
	v[0] = PERF_MRS(pmccntr_el0);
	v[1] = PERF_MRS(pmevcntr0_el0);
	v[2] = PERF_MRS(pmevcntr1_el0);
	v[3] = PERF_MRS(pmevcntr2_el0);
	v[4] = PERF_MRS(pmevcntr3_el0);
	v[5] = PERF_MRS(pmevcntr4_el0);
	v[6] = PERF_MRS(pmevcntr5_el0);
}

static void bench_perf_self(unsigned int nev)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_RAW, .size = sizeof(attr), .config1 = 0x2,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	struct perf_event_mmap_page *pc[8];
	unsigned long long v[8];
	long page = sysconf(_SC_PAGESIZE);
	int fd[8], floor_ok = 1;
	unsigned int i;
	double t;

	if (write_file_str("/proc/sys/kernel/perf_user_access", "1")) {
		perror("pmuscope-bench: perf_user_access");
		return;
	}
	for (i = 0; i < nev; i++) {
		attr.config = i ? 0x00 : 0x11;	/* CPU_CYCLES, then SW_INCR */
		fd[i] = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
		if (fd[i] < 0) {
			perror("pmuscope-bench: perf_event_open (rdpmc)");
			return;
		}
		pc[i] = mmap(NULL, page, PROT_READ, MAP_SHARED, fd[i], 0);
		if (pc[i] == MAP_FAILED) {
			perror("pmuscope-bench: mmap of the perf event");
			return;
		}
	}
	for (i = 0; i < nev; i++) {
		if (perf_read_self(pc[i], &v[i])) {
			fprintf(stderr, "pmuscope-bench: perf event %u not readable at EL0 (index %u, cap_user_rdpmc %u)\n",
				i, pc[i]->index, (unsigned int)pc[i]->cap_user_rdpmc);
			return;
		}
		/* The floor reads PMCCNTR, then PMEVCNTR0..5. */
		if (pc[i]->index != (i ? i : 32))
			floor_ok = 0;
	}
	BENCH(t, for (i = 0; i < nev; i++) perf_read_self(pc[i], &v[i]));
	printf("pmuscope-bench: perf_event_open_self_read_%u %.0f\n", nev, t);
	if (floor_ok) {
		if (nev == 1)
			BENCH(t, perf_floor1(v));
		else
			BENCH(t, perf_floor7(v));
		printf("pmuscope-bench: perf_event_open_self_raw_mrs_%u %.0f\n", nev, t);
	}
	for (i = 0; i < nev; i++) {
		munmap(pc[i], page);
		close(fd[i]);
	}
}

/*
 * profile spe[KIB] (pmuscope_emu.ko with an SPE profile): an SPE session
 * of CPU 1 whose profiling buffers are KIB KiB each (spe: 8, the
 * smallest; spe64: the default; spe4096: the largest), fed modelled
 * workloads through debugfs, each enough to fill a buffer once (the SPU
 * stops at the full buffer and counts the rest unsampled), 20 ms apart
 * (the model's clock then raises PMBIRQ, and the copier runs). The
 * window holds the fills, their PMBIRQs and the copies into the ring,
 * not the reader: the ring, large enough for every fill, is drained after
 * it. Prints "pmuscope-profile: spe FILLS" (the per-call divisor) and
 * what was read.
 */
static int profile_spe(const char *op)
{
	static char buf[8 << 20];
	unsigned long hw_kib = op[3] ? strtoul(op + 3, NULL, 10) : 8;
	/* Records of at least 16 bytes, one per 4096 operations: enough to fill. */
	unsigned long long ops = hw_kib * 1024 / 16 * 4096;
	/* The largest ring (64 MiB) holds 12 fills of 4 MiB. */
	unsigned int pieces = hw_kib > 64 ? 12 : 100;
	unsigned long long cpus = 0x2, bytes = 0;
	struct pmuscope_spe_config cfg = {
		.size = sizeof(cfg), .flags = PMUSCOPE_SPE_EL0, .cpus = (unsigned long)&cpus,
		.cpus_size = 8, .interval = 4096, .hw_kib = hw_kib,
	};
	struct pmuscope_spe_cpu st;
	struct pmuscope_spe_status ss = {
		.size = sizeof(ss), .records = (unsigned long)&st, .nr_records = 1,
	};
	struct timespec pause = { 0, 20000000 };
	int fd = open("/dev/pmuscope", O_RDWR), run = open("/sys/kernel/debug/pmuscope_emu/run", O_WRONLY);
	char piece[320];
	int n;
	ssize_t r;

	/* The ring holds every fill: nothing is lost while the window is open. */
	cfg.buffer_kib = 1;
	while (cfg.buffer_kib < 2 * hw_kib * pieces && cfg.buffer_kib < PMUSCOPE_SPE_KIB_MAX)
		cfg.buffer_kib *= 2;
	if (cfg.buffer_kib < 16384)
		cfg.buffer_kib = 16384;
	n = snprintf(piece, sizeof(piece),
		     "cpu=1 ns=%llu cycles=%llu insts=%llu loads=%llu stores=%llu branches=%llu "
		     "pc=0x1000000 data_addr=0x10000000 load_latency=20 el=0\n",
		     ops, ops, ops, ops / 2, ops / 4, ops / 8);
	if (fd < 0 || run < 0 || ioctl(fd, PMUSCOPE_IOC_SPE_START, &cfg))
		return perror("profile spe: SPE_START or debugfs"), 1;
	asm volatile("mov x27, x27" ::: "memory");
	for (unsigned int i = 0; i < pieces; i++) {
		if (write(run, piece, n) < 0)
			return perror("profile spe: run"), 1;
		nanosleep(&pause, NULL);
	}
	asm volatile("mov x28, x28" ::: "memory");
	if (ioctl(fd, PMUSCOPE_IOC_SPE_STOP))
		return 1;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		bytes += r;
	if (ioctl(fd, PMUSCOPE_IOC_SPE_STATUS, &ss))
		return 1;
	printf("pmuscope-profile-spe: hw_kib %lu fills %u bytes %llu data %llu lost_ring %llu lost_dl %llu stopped_ns %llu\n",
	       hw_kib, st.fills, bytes, (unsigned long long)st.bytes,
	       (unsigned long long)st.lost_ring, (unsigned long long)st.lost_dl,
	       (unsigned long long)st.stopped_ns);
	printf("pmuscope-profile: %s %u\n", op, st.fills);
	close(fd);
	return st.fills ? 0 : 1;
}

/*
 * profile sample[_chainN]: a CPU session of CPU 0 sampling CPU_CYCLES
 * every 100,000 cycles (10,000 samples a second under -icount shift=0),
 * with no call chain or one capped at N frames, while this program spins
 * 20,000,000 times at the bottom of SAMPLE_DEPTH frames on CPU 0. The
 * window holds the spin and every overflow interrupt it takes; the
 * records are read after it. Prints "pmuscope-profile: OP SAMPLES" (the
 * divisor): the kernel's instructions per sample, by function.
 */
static int profile_sample(const char *op)
{
	static unsigned char buf[1 << 20];
	unsigned int depth = strncmp(op, "sample_chain", 12) ? 0 : atoi(op + 12);
	struct pmuscope_stream st = {
		.size = sizeof(st), .sample_index = 0, .sample_period = 100000,
		.ring_kib = 4096, .wakeup_kib = 2048,
		.flags = depth ? PMUSCOPE_STREAM_F_CALLCHAIN : 0, .max_stack = depth,
	};
	unsigned long samples = 0;
	int fd = session(1, 0x1);
	ssize_t n;

	ioctl(fd, PMUSCOPE_IOC_DISABLE);
	if (ioctl(fd, PMUSCOPE_IOC_STREAM, &st) || ioctl(fd, PMUSCOPE_IOC_ENABLE))
		return perror("profile sample: STREAM"), 1;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	sample_deep(SAMPLE_DEPTH, 1000000);	/* warm up; its samples read before */
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	asm volatile("mov x27, x27" ::: "memory");
	sample_deep(SAMPLE_DEPTH, 20000000);
	asm volatile("mov x28, x28" ::: "memory");
	ioctl(fd, PMUSCOPE_IOC_DISABLE);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t off = 0; off < n; off += ((struct pmuscope_record *)(buf + off))->size)
			samples += ((struct pmuscope_record *)(buf + off))->type == PMUSCOPE_REC_SAMPLE;
	close(fd);
	if (!samples)
		return fprintf(stderr, "profile sample: no samples\n"), 1;
	printf("pmuscope-profile: %s %lu\n", op, samples);
	return 0;
}

/*
 * scripts/profile.sh: @op ITER times between the markers of the QEMU
 * plugin scripts/qemu/insn-profile.c, which counts each instruction of the
 * window by address (`mov x27, x27` opens it, `mov x28, x28` closes it;
 * without the plugin both do nothing).
 */
static int profile(const char *op)
{
	struct pmuscope_value v[64];
	struct pmuscope_read rd = {
		.size = sizeof(rd), .values = (unsigned long)v, .nr_values = 64,
	};
	struct pmuscope_snap_cpu c[8];
	struct pmuscope_snapshot sn;
	unsigned long long buf[16];
	int fd, nev = 7, perf = 0;

	if (!strcmp(op, "read1") || !strcmp(op, "snapshot1"))
		nev = 1;
	if (!strncmp(op, "perf_group", 10)) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_RAW, .size = sizeof(attr),
			.read_format = PERF_FORMAT_GROUP,
		};
		int leader = -1;

		for (int i = 0; i < nev; i++) {
			attr.config = i ? 0x00 : 0x11;
			fd = syscall(SYS_perf_event_open, &attr, -1, 0, leader, 0);
			if (fd < 0)
				return 1;
			if (!i)
				leader = fd;
		}
		fd = leader;
		perf = 1;
	} else {
		fd = session(nev, 0x1);
	}
	for (int pass = 0; pass < 2; pass++) {	/* the first one warms up */
		if (pass)
			asm volatile("mov x27, x27" ::: "memory");
		for (int i = 0; i < ITER; i++) {
			if (perf) {
				if (read(fd, buf, sizeof(buf)) <= 0)
					return 1;
			} else if (!strncmp(op, "read", 4)) {
				if (ioctl(fd, PMUSCOPE_IOC_READ, &rd))
					return 1;
			} else {
				sn = (struct pmuscope_snapshot){
					.size = sizeof(sn), .values = (unsigned long)v,
					.nr_values = 64, .cpus = (unsigned long)c, .nr_cpus = 8,
				};
				if (ioctl(fd, PMUSCOPE_IOC_SNAPSHOT, &sn))
					return 1;
			}
		}
		if (pass)
			asm volatile("mov x28, x28" ::: "memory");
	}
	printf("pmuscope-profile: %s %d\n", op, ITER);
	return 0;
}

int main(int argc, char **argv)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* the reader runs on cpu0 */
	if (argc > 2 && !strcmp(argv[1], "profile"))
		return !strncmp(argv[2], "spe", 3) ? profile_spe(argv[2]) :
		       !strncmp(argv[2], "sample", 6) ? profile_sample(argv[2]) : profile(argv[2]);
	if (argc > 1 && !strcmp(argv[1], "command")) {
		bench_command(1);
		return 0;
	}
	bench_handshake();
	bench_read("read_1_event_local_cpu", 1, 0x1);
	bench_read("read_7_events_local_cpu", 7, 0x1);
	bench_read("read_7_events_remote_cpu", 7, 0x2);
	bench_read("read_7_events_2_cpus", 7, 0x3);
	bench_snapshot_floor();
	bench_snapshot("snapshot_1_event_local_cpu", 1, 0x1, 0, 0);
	bench_snapshot("snapshot_7_events_local_cpu", 7, 0x1, 0, 0);
	bench_snapshot("snapshot_7_events_remote_cpu", 7, 0x2, 0, 0);
	/* Two CPUs: the deadline's lead (100 us = 100,000 instructions) is most of it. */
	bench_snapshot("snapshot_7_events_2_cpus", 7, 0x3, 0, 0);
	bench_snapshot("snapshot_7_events_2_cpus_lead_1us", 7, 0x3, 0, 1);
	bench_stream(100000);
	bench_sampling(argc > 1 && !strcmp(argv[1], "perf"));
	bench_sysfs();
	bench_command(argc > 1 && !strcmp(argv[1], "perf"));
	if (argc > 1 && !strcmp(argv[1], "perf")) {
		bench_perf("perf_event_open_read_1_event", 1, 0);
		bench_perf("perf_event_open_group_read_1", 1, 1);
		bench_perf("perf_event_open_group_read_7", 7, 1);
		bench_perf_self(1);
		bench_perf_self(7);
	}
	return 0;
}
