// SPDX-License-Identifier: GPL-2.0
/*
 * The fidelity test's peer (t-fidelity.sh): Linux's own perf_event_open()
 * sampling a command as `pmuscope record -g -e cycles` samples it, its
 * records written as a pmuscope record file so that `pmuscope report`
 * reduces both recordings the same way; and the comparison of the two.
 *
 *   pmuscope-peer record [-c PERIOD | -F HZ] [-d DEPTH] -o FILE -- CMD [ARGS]
 *	A counter of PERF_COUNT_HW_CPU_CYCLES on the command on each CPU
 *	(inherit, enable_on_exec; a ring each, as perf record's), samples of IP, TID, TIME, CPU, PERIOD and
 *	CALLCHAIN (DEPTH frames, default 127), user and kernel, or user only
 *	where perf_event_paranoid refuses the kernel (as perf record falls
 *	back to cycles:u). MMAP2, COMM, FORK and EXIT records become the
 *	file's MAPS, COMM and EXIT chunks; LOST and THROTTLE records its
 *	LOST and THROTTLED records. Times are perf's clock, in ns (the
 *	header's frequency is 10^9).
 *
 *   pmuscope-peer compare [-m MIN%] [-n COUNTS%] [-z SIGMAS] TAG PEER OURS
 *	PEER and OURS: each a recording (.data) and its `pmuscope report
 *	--folded` (.folded) beside it (PEER.data, PEER.folded). TAP lines
 *	"[fidelity] TAG: ...": every stack with at least MIN% (default 2) of
 *	the samples in one is in the other, with shares within SIGMAS
 *	(default 4) standard deviations of two binomial samples plus half a
 *	point; sample counts per task (comm) within COUNTS% (default 5);
 *	the kernel's share within the same tolerance as a stack's; no
 *	kernel address in OURS where PEER has none.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "datafile.h"
#include "pmuscope-guest.h"

#define PEER_RING_PAGES		128	/* 512 KiB, within perf_event_mlock_kb's 516 */
#define PEER_NS			1000000000ULL
#define PEER_KADDR		0xffff000000000000ULL
#define PEER_CPUS		64	/* CPUs with a counter, at most */

/* ------------------------------------------------------------------ record */

/* The executable mappings of one image of a process (after a fork or exec). */
struct peer_image {
	uint32_t pid;
	uint32_t reason;		/* DF_MAPS_EXEC, or DF_MAPS_ATTACH: forked */
	uint64_t time;
	char *text;			/* /proc/PID/maps lines */
	size_t len;
	int current;			/* the process's image now */
};

static struct peer_image *peer_images;
static size_t peer_nimages;

static struct {
	struct df_writer w;
	uint64_t *recs;			/* records not yet written */
	size_t nrecs, room;		/* in u64 */
	uint64_t samples, lost, throttled, first_time, last_time;
	unsigned int depth;
} peer;

static void peer_die(const char *what)
{
	fprintf(stderr, "pmuscope-peer: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void *peer_xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		peer_die("realloc");
	return p;
}

static struct peer_image *peer_image_now(uint32_t pid)
{
	for (size_t i = peer_nimages; i-- > 0;)
		if (peer_images[i].pid == pid && peer_images[i].current)
			return &peer_images[i];
	return NULL;
}

static struct peer_image *peer_image_new(uint32_t pid, uint32_t reason, uint64_t time)
{
	struct peer_image *old = peer_image_now(pid), *im;

	if (old)
		old->current = 0;
	peer_images = peer_xrealloc(peer_images, (peer_nimages + 1) * sizeof(*im));
	im = &peer_images[peer_nimages++];
	memset(im, 0, sizeof(*im));
	im->pid = pid;
	im->reason = reason;
	im->time = time;
	im->current = 1;
	return im;
}

static void peer_image_add(struct peer_image *im, const char *line, size_t n)
{
	im->text = peer_xrealloc(im->text, im->len + n + 1);
	memcpy(im->text + im->len, line, n);
	im->len += n;
	im->text[im->len] = 0;
}

/* Room for @words more u64 of records; written out in chunks of 1 MiB. */
static uint64_t *peer_rec_room(size_t words)
{
	if (peer.nrecs + words > peer.room) {
		if (peer.nrecs)
			df_write_records(&peer.w, peer.recs, peer.nrecs * 8);
		peer.nrecs = 0;
		if (words > peer.room) {
			peer.room = words > 131072 ? words : 131072;
			peer.recs = peer_xrealloc(peer.recs, peer.room * 8);
		}
	}
	return peer.recs + peer.nrecs;
}

static void peer_rec_simple(uint16_t type, uint32_t cpu, uint64_t time, uint64_t value)
{
	struct pmuscope_record *r = (struct pmuscope_record *)peer_rec_room(sizeof(*r) / 8);

	memset(r, 0, sizeof(*r));
	r->type = type;
	r->size = sizeof(*r);
	r->cpu = cpu;
	r->time = time;
	r->value = value;
	peer.nrecs += sizeof(*r) / 8;
}

/* The sample_id_all trailer of a non-sample record: pid, tid, time, cpu. */
struct peer_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

static struct peer_id peer_trailer(const struct perf_event_header *h)
{
	struct peer_id id;

	memcpy(&id, (const char *)h + h->size - sizeof(id), sizeof(id));
	return id;
}

static void peer_time(uint64_t t)
{
	if (!peer.first_time || t < peer.first_time)
		peer.first_time = t;
	if (t > peer.last_time)
		peer.last_time = t;
}

/* A PERF_RECORD_SAMPLE: IP, TID, TIME, CPU, PERIOD, CALLCHAIN. */
static void peer_sample(const struct perf_event_header *h)
{
	const uint64_t *p = (const uint64_t *)(h + 1);
	uint64_t ip = p[0], time = p[2], nr = p[5];
	uint32_t pid = (uint32_t)p[1], tid = (uint32_t)(p[1] >> 32), cpu = (uint32_t)p[3];
	const uint64_t *ips = p + 6;
	struct pmuscope_record *r;
	struct pmuscope_rec_chain *c;
	uint64_t *out, ctx = 0;
	unsigned int nk = 0, nu = 0, frames = 0;

	if (nr > 4096)
		return;
	r = (struct pmuscope_record *)peer_rec_room((sizeof(*r) + sizeof(*c)) / 8 + nr);
	c = (struct pmuscope_rec_chain *)(r + 1);
	out = (uint64_t *)(c + 1);
	memset(r, 0, sizeof(*r) + sizeof(*c));
	for (uint64_t i = 0; i < nr; i++) {
		if (ips[i] >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = ips[i];
			continue;
		}
		frames++;
		if (ctx == (uint64_t)PERF_CONTEXT_KERNEL) {
			if (nu)		/* kernel after user: not from perf */
				continue;
			out[nk++] = ips[i];
		} else if (ctx == (uint64_t)PERF_CONTEXT_USER) {
			out[nk + nu++] = ips[i];
		}
	}
	r->type = PMUSCOPE_REC_SAMPLE;
	r->cpu = cpu;
	r->time = time;
	r->pid = pid;
	r->tid = tid;
	r->pc = ip;
	r->flags = PMUSCOPE_REC_F_CHAIN | (ip < PEER_KADDR ? PMUSCOPE_REC_F_USER : 0);
	c->version = PMUSCOPE_CHAIN_VERSION;
	c->size = sizeof(*c);
	c->nr_kernel = nk;
	c->nr_user = nu;
	/* perf's callchain stops at sample_max_stack frames, markers not counted. */
	if (frames >= peer.depth)
		c->flags |= PMUSCOPE_CHAIN_F_TRUNCATED;
	r->size = sizeof(*r) + sizeof(*c) + (nk + nu) * 8;
	peer.nrecs += r->size / 8;
	peer.samples++;
	peer_time(time);
}

static void peer_record(const struct perf_event_header *h)
{
	struct peer_id id = peer_trailer(h);
	const uint32_t *u32 = (const uint32_t *)(h + 1);

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		peer_sample(h);
		return;
	case PERF_RECORD_MMAP2: {
		const uint64_t *q = (const uint64_t *)(u32 + 2);
		/* pid, tid, addr, len, pgoff, maj, min, ino, ino_gen, prot, flags, name */
		const char *name = (const char *)(h + 1) + 8 + 3 * 8 + 2 * 4 + 2 * 8 + 2 * 4;
		struct peer_image *im = peer_image_now(u32[0]);
		char line[4352];
		int n;

		if (!im)
			im = peer_image_new(u32[0], DF_MAPS_EXEC, id.time);
		n = snprintf(line, sizeof(line), "%llx-%llx r-xp %08llx 00:00 0 %s\n",
			     (unsigned long long)q[0], (unsigned long long)(q[0] + q[1]),
			     (unsigned long long)q[2], name);
		if (n > 0 && (size_t)n < sizeof(line))
			peer_image_add(im, line, n);
		break;
	}
	case PERF_RECORD_COMM:
		/* pid, tid, comm */
		if (h->misc & PERF_RECORD_MISC_COMM_EXEC)
			peer_image_new(u32[0], DF_MAPS_EXEC, id.time);
		df_write_comm(&peer.w, u32[0], u32[1], id.time, (const char *)(u32 + 2));
		break;
	case PERF_RECORD_FORK:
		/* pid, ppid, tid, ptid, time: a new process gets its parent's maps */
		if (u32[0] == u32[2] && u32[0] != u32[1]) {
			struct peer_image *parent = peer_image_now(u32[1]);
			struct peer_image *im = peer_image_new(u32[0], DF_MAPS_ATTACH, id.time);

			/* peer_image_new() may have moved the parent's. */
			parent = peer_image_now(u32[1]);
			if (parent && parent->len)
				peer_image_add(im, parent->text, parent->len);
		}
		break;
	case PERF_RECORD_EXIT:
		df_write_exit(&peer.w, u32[0], u32[2], id.time, 0);
		break;
	case PERF_RECORD_LOST: {
		const uint64_t *q = (const uint64_t *)(h + 1);

		peer_rec_simple(PMUSCOPE_REC_LOST, id.cpu, id.time, q[1]);
		peer.lost += q[1];
		break;
	}
	case PERF_RECORD_THROTTLE:
		peer_rec_simple(PMUSCOPE_REC_THROTTLED, id.cpu, id.time, 0);
		peer.throttled++;
		break;
	default:
		return;
	}
	peer_time(id.time);
}

/* Every whole record in the ring, then its tail moved past them. */
static void peer_drain(struct perf_event_mmap_page *mp, size_t size)
{
	unsigned char *data = (unsigned char *)mp + mp->data_offset;
	uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = mp->data_tail;
	static unsigned char rec[65536];

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % size, first;

		first = size - off < sizeof(h) ? size - off : sizeof(h);
		memcpy(&h, data + off, first);
		memcpy((char *)&h + first, data, sizeof(h) - first);
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		first = size - off < h.size ? size - off : h.size;
		memcpy(rec, data + off, first);
		memcpy(rec + first, data, h.size - first);
		peer_record((struct perf_event_header *)rec);
		tail += h.size;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
}

static int peer_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	/* As perf record falls back to cycles:u where the kernel is refused. */
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr->exclude_kernel) {
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		attr->exclude_callchain_kernel = 1;
		fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

static void peer_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char *text = NULL;
	size_t len = 0, room = 0, n;
	char buf[65536];

	if (!f)
		return;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (len + n > room) {
			room = 2 * (len + n);
			text = peer_xrealloc(text, room);
		}
		memcpy(text + len, buf, n);
		len += n;
	}
	fclose(f);
	/* Zeros: not for this user (kptr_restrict), as pmuscope record decides. */
	if (len > 16 && strncmp(text, "0000000000000000", 16))
		df_write_kallsyms(&peer.w, peer.last_time, text, len);
	free(text);
}

static int peer_cmd_record(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = 100000,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN,
		.disabled = 1,
		.inherit = 1,
		.enable_on_exec = 1,
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.task = 1,
		.sample_id_all = 1,
		.watermark = 1,
		.wakeup_watermark = PEER_RING_PAGES * 4096 / 4,	/* at most a quarter */
	};
	const char *out = NULL;
	struct df_info info = { 0 };
	struct perf_event_mmap_page *mp[PEER_CPUS];
	size_t page = sysconf(_SC_PAGESIZE), size = PEER_RING_PAGES * page;
	struct pollfd pfd[PEER_CPUS];
	struct df_end end = { 0 };
	int opt, go[2], status = 0, ncpus = 0;
	pid_t pid;
	char c = 0;

	peer.depth = 127;
	while ((opt = getopt(argc, argv, "+c:F:d:o:")) != -1) {
		switch (opt) {
		case 'c':
			attr.sample_period = strtoull(optarg, NULL, 0);
			break;
		case 'F':
			attr.freq = 1;
			attr.sample_freq = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			peer.depth = strtoul(optarg, NULL, 0);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			return 2;
		}
	}
	if (!out || optind >= argc || !peer.depth || peer.depth > 127) {
		fprintf(stderr, "usage: pmuscope-peer record [-c N | -F HZ] [-d DEPTH] -o FILE -- CMD\n");
		return 2;
	}
	attr.sample_max_stack = peer.depth;
	if (pipe2(go, O_CLOEXEC))
		peer_die("pipe");
	pid = fork();
	if (pid < 0)
		peer_die("fork");
	if (!pid) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	close(go[0]);
	/*
	 * A counter and its ring on each CPU, as perf record makes them: perf
	 * does not map an inherited counter of every CPU (perf_mmap()).
	 */
	for (int cpu = 0; cpu < PEER_CPUS; cpu++) {
		int fd = peer_open(&attr, pid, cpu);

		if (fd < 0 && (errno == ENODEV || errno == EINVAL) && cpu)
			break;		/* no such CPU */
		if (fd < 0) {
			kill(pid, SIGKILL);
			peer_die("perf_event_open");
		}
		mp[ncpus] = mmap(NULL, size + page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (mp[ncpus] == MAP_FAILED) {
			kill(pid, SIGKILL);
			peer_die("mmap");
		}
		pfd[ncpus++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	info.freq = PEER_NS;
	info.nr_events = 1;
	info.evs[0].number = 0x11;
	info.evs[0].flags = PMUSCOPE_EV_EL0 | (attr.exclude_kernel ? 0 : PMUSCOPE_EV_EL1);
	snprintf(info.evs[0].name, sizeof(info.evs[0].name), "CPU_CYCLES");
	snprintf(info.evs[0].label, sizeof(info.evs[0].label), "cycles");
	info.kernel_el = 1;
	info.sample_index = 0;
	info.sample_period = attr.freq ? 0 : attr.sample_period;
	info.argc = argc - optind;
	info.argv = argv + optind;
	info.flags = DF_F_CALLCHAIN | DF_F_TASK;
	info.max_stack = peer.depth;
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		info.start_time = ts.tv_sec * PEER_NS + ts.tv_nsec;
	}
	if (df_create(&peer.w, out, &info))
		peer_die(out);
	if (write(go[1], &c, 1) != 1)
		peer_die("write");
	close(go[1]);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		for (int i = 0; i < ncpus; i++)
			peer_drain(mp[i], size);
		if (w == pid)
			break;
		if (poll(pfd, ncpus, 100) < 0 && errno != EINTR)
			peer_die("poll");
	}
	for (int i = 0; i < ncpus; i++) {
		ioctl(pfd[i].fd, PERF_EVENT_IOC_DISABLE, 0);
		peer_drain(mp[i], size);
	}
	if (peer.nrecs)
		df_write_records(&peer.w, peer.recs, peer.nrecs * 8);
	for (size_t i = 0; i < peer_nimages; i++)
		if (peer_images[i].len)
			df_write_maps(&peer.w, peer_images[i].pid, peer_images[i].reason,
				      peer_images[i].time, peer_images[i].text,
				      peer_images[i].len);
	if (!attr.exclude_kernel)
		peer_kallsyms();
	end.time = peer.last_time;
	end.samples = peer.samples;
	end.lost = peer.lost;
	end.throttled = peer.throttled;
	df_write_end(&peer.w, &end);
	if (df_finish(&peer.w))
		peer_die(out);
	fprintf(stderr, "pmuscope-peer: %llu samples (%s), %llu lost, %llu throttled\n",
		(unsigned long long)peer.samples, attr.exclude_kernel ? "user" : "user+kernel",
		(unsigned long long)peer.lost, (unsigned long long)peer.throttled);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ------------------------------------------------------------------ reduce */

/* A function: its start, its end (0: up to the next one), its name. */
struct peer_sym {
	uint64_t start, end;
	const char *name;
};

struct peer_syms {
	struct peer_sym *v;
	size_t n;
};

static int peer_sym_cmp(const void *a, const void *b)
{
	const struct peer_sym *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void peer_sym_add(struct peer_syms *t, uint64_t start, uint64_t end, const char *name)
{
	t->v = peer_xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	t->v[t->n++] = (struct peer_sym){ start, end, name };
}

static const char *peer_sym_find(const struct peer_syms *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (t->v[lo - 1].end && addr >= t->v[lo - 1].end)
		return NULL;
	return t->v[lo - 1].name;
}

/*
 * The functions of a static ELF64 executable (the workload: the one
 * binary of its tasks, libc included), from its .symtab. Bounded by the
 * file: a bad table gives no names, never a read past it.
 */
static void peer_elf_syms(const char *path, struct peer_syms *t)
{
	FILE *f = fopen(path, "rb");
	unsigned char *d = NULL;
	long size;

	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 64 || fseek(f, 0, SEEK_SET))
		goto out;
	d = peer_xrealloc(NULL, size);
	if (fread(d, 1, size, f) != (size_t)size || memcmp(d, "\177ELF\2\1", 6))
		goto out;
	{
		uint64_t shoff, i;
		uint16_t shentsize, shnum;

		memcpy(&shoff, d + 0x28, 8);
		memcpy(&shentsize, d + 0x3a, 2);
		memcpy(&shnum, d + 0x3c, 2);
		if (shentsize != 64 || shoff > (uint64_t)size || shnum > (size - shoff) / 64)
			goto out;
		for (i = 0; i < shnum; i++) {
			const unsigned char *sh = d + shoff + i * 64, *strsh;
			uint64_t off, len, stroff, strlen_, j;
			uint32_t type, link;

			memcpy(&type, sh + 4, 4);
			if (type != 2)		/* SHT_SYMTAB */
				continue;
			memcpy(&off, sh + 0x18, 8);
			memcpy(&len, sh + 0x20, 8);
			memcpy(&link, sh + 0x28, 4);
			if (link >= shnum || off > (uint64_t)size || len > size - off)
				goto out;
			strsh = d + shoff + (uint64_t)link * 64;
			memcpy(&stroff, strsh + 0x18, 8);
			memcpy(&strlen_, strsh + 0x20, 8);
			if (stroff > (uint64_t)size || strlen_ > size - stroff || !strlen_)
				goto out;
			for (j = 0; j + 24 <= len; j += 24) {
				const unsigned char *sym = d + off + j;
				uint32_t name;
				uint64_t value, sz;

				memcpy(&name, sym, 4);
				memcpy(&value, sym + 8, 8);
				memcpy(&sz, sym + 16, 8);
				if ((sym[4] & 0xf) != 2 || !sz || name >= strlen_ ||
				    memchr(d + stroff + name, 0, strlen_ - name) == NULL)
					continue;	/* STT_FUNC with a size */
				peer_sym_add(t, value, value + sz,
					     strdup((const char *)d + stroff + name));
			}
		}
	}
out:
	free(d);
	fclose(f);
	qsort(t->v, t->n, sizeof(*t->v), peer_sym_cmp);
}

/* The kernel's functions, from a recording's KALLSYMS text. */
static void peer_kallsyms_syms(const char *text, size_t len, struct peer_syms *t)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		char line[600], type, name[512];
		unsigned long long addr;
		size_t n;

		if (!nl)
			nl = end;
		n = nl - p < (long)sizeof(line) - 1 ? (size_t)(nl - p) : sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = 0;
		p = nl + 1;
		if (sscanf(line, "%llx %c %511s", &addr, &type, name) == 3 &&
		    strchr("tTwW", type))
			peer_sym_add(t, addr, 0, strdup(name));
	}
	qsort(t->v, t->n, sizeof(*t->v), peer_sym_cmp);
}

/* A thread's name: the latest COMM chunk of the thread, else its process's. */
struct peer_comm {
	uint32_t pid, tid;
	char comm[17];
};

static const char *peer_comm_of(const struct peer_comm *v, size_t n, uint32_t pid, uint32_t tid)
{
	const char *by_pid = NULL;

	for (size_t i = n; i-- > 0;) {
		if (v[i].tid == tid)
			return v[i].comm;
		if (!by_pid && v[i].pid == pid)
			by_pid = v[i].comm;
	}
	return by_pid ? by_pid : "[unknown]";
}

/* One distinct stack (or task) and its samples on each side. */
struct peer_key {
	char *key;
	uint64_t n[2];
};

struct peer_side {
	uint64_t samples, kernel, kaddrs, lost, throttled;
};

static struct peer_key *peer_keys[2];
static size_t peer_nkeys[2];

static void peer_count(int set, int side, const char *key, size_t len, uint64_t n)
{
	for (size_t i = 0; i < peer_nkeys[set]; i++) {
		if (!strncmp(peer_keys[set][i].key, key, len) && !peer_keys[set][i].key[len]) {
			peer_keys[set][i].n[side] += n;
			return;
		}
	}
	peer_keys[set] = peer_xrealloc(peer_keys[set],
				       (peer_nkeys[set] + 1) * sizeof(struct peer_key));
	peer_keys[set][peer_nkeys[set]] = (struct peer_key){ .key = strndup(key, len) };
	peer_keys[set][peer_nkeys[set]++].n[side] = n;
}

/*
 * Append @name to the stack being made: ";name", or a run of one
 * function as ";name*N" (deep recursion stays one short line).
 */
static void peer_frame(char *buf, size_t room, size_t *len, size_t *last, unsigned int *run,
		       const char *name)
{
	size_t nl = strlen(name);
	int n;

	if (*run && !strncmp(buf + *last + 1, name, nl) &&
	    (buf[*last + 1 + nl] == 0 || buf[*last + 1 + nl] == '*')) {
		*len = *last + 1 + nl;
		n = snprintf(buf + *len, room - *len, "*%u", ++*run);
	} else {
		*last = *len;
		*run = 1;
		n = snprintf(buf + *len, room - *len, ";%s", name);
	}
	if (n > 0 && (size_t)n < room - *len)
		*len += n;
	buf[*len] = 0;
}

/*
 * The recording FILE.data reduced to FILE.fid: a line of totals, "#
 * samples N kernel K kaddrs A lost L throttled T", then "task COMM N" for
 * every task and "stack COMM;outermost;...;innermost N" for every stack
 * with at least 0.2% of the samples (as stackcollapse-perf.pl folds them,
 * a run of one function as "name*N", names only: the user frames from the workload's symbol table @exe, the
 * kernel's from the file's KALLSYMS chunk, else "[kernel]"), the rest as
 * "stack [other] N". Small enough for a console, the same reduction for
 * both recorders.
 */
static int peer_cmd_reduce(int argc, char **argv)
{
	struct peer_syms user = { 0 }, kern = { 0 };
	struct peer_comm *comms = NULL;
	size_t ncomms = 0, off;
	struct peer_side s = { 0 };
	char path[4096], err[512];
	struct df_file df;
	struct df_view v;
	uint64_t other = 0;
	FILE *out;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: pmuscope-peer reduce EXE FILE (FILE.data to FILE.fid)\n");
		return 2;
	}
	peer_elf_syms(argv[1], &user);
	if (!user.n) {
		fprintf(stderr, "pmuscope-peer: %s: no symbol table\n", argv[1]);
		return 1;
	}
	snprintf(path, sizeof(path), "%s.data", argv[2]);
	if (df_open(&df, path, err, sizeof(err))) {
		fprintf(stderr, "pmuscope-peer: %s: %s\n", path, err);
		return 1;
	}
	/* Names first: the COMM and KALLSYMS chunks may follow the records. */
	off = df.first_chunk;
	while ((ret = df_next(&df, &off, &v, err, sizeof(err))) > 0) {
		if (v.type == DF_CHUNK_COMM && v.len >= sizeof(struct df_comm)) {
			const struct df_comm *c = (const void *)v.payload;

			comms = peer_xrealloc(comms, (ncomms + 1) * sizeof(*comms));
			comms[ncomms].pid = c->pid;
			comms[ncomms].tid = c->tid;
			memcpy(comms[ncomms].comm, c->comm, 16);
			comms[ncomms++].comm[16] = 0;
		} else if (v.type == DF_CHUNK_KALLSYMS && v.len >= sizeof(struct df_kallsyms)) {
			const struct df_kallsyms *k = (const void *)v.payload;

			if (k->text_size <= v.len - sizeof(*k))
				peer_kallsyms_syms((const char *)(k + 1), k->text_size, &kern);
		}
	}
	off = df.first_chunk;
	while (ret >= 0 && (ret = df_next(&df, &off, &v, err, sizeof(err))) > 0) {
		const unsigned char *p = v.payload;

		if (v.type != DF_CHUNK_RECORDS)
			continue;
		if (df_check_records(&df, &v, err, sizeof(err)) < 0) {
			ret = -1;
			break;
		}
		while (p < v.payload + v.len) {
			const struct pmuscope_record *r = (const void *)p;
			const struct pmuscope_rec_chain *c = NULL;
			const uint64_t *ips = NULL;
			char stack[16384];
			size_t len, last = 0, nk = 0, nu = 0, i;
			unsigned int run = 0;

			p += r->size;
			if (r->type == PMUSCOPE_REC_LOST)
				s.lost += r->value;
			if (r->type == PMUSCOPE_REC_THROTTLED)
				s.throttled++;
			if (r->type != PMUSCOPE_REC_SAMPLE)
				continue;
			s.samples++;
			s.kernel += r->pc >= PEER_KADDR;
			if (r->flags & PMUSCOPE_REC_F_CHAIN) {
				c = (const void *)((const uint64_t *)(r + 1) + r->nr);
				/*
				 * df_check_records() checked a version-1 chain's
				 * frames against the record; a newer one it
				 * leaves to readers that know it: not this one.
				 */
				if (c->version != PMUSCOPE_CHAIN_VERSION) {
					fprintf(stderr, "pmuscope-peer: chain version %u\n",
						c->version);
					ret = -1;
					break;
				}
				ips = (const uint64_t *)c + c->size / 8;
				nk = c->nr_kernel;
				nu = c->nr_user;
			}
			s.kaddrs += r->pc >= PEER_KADDR || nk;
			len = snprintf(stack, sizeof(stack), "%s",
				       peer_comm_of(comms, ncomms, r->pid, r->tid));
			for (i = 0; i < len; i++)
				if (stack[i] == ' ' || stack[i] == ';')
					stack[i] = '_';
			/* Outermost first: the user frames, then the kernel's. */
			for (i = nu; i-- > 0;) {
				const char *name = peer_sym_find(&user, ips[nk + i] - (i > 0));

				peer_frame(stack, sizeof(stack), &len, &last, &run, name ? name : "[unknown]");
			}
			if (!c && r->pc < PEER_KADDR) {
				const char *name = peer_sym_find(&user, r->pc);

				peer_frame(stack, sizeof(stack), &len, &last, &run, name ? name : "[unknown]");
			}
			for (i = nk; i-- > 0;) {
				const char *name = peer_sym_find(&kern, ips[i] - (i > 0));

				peer_frame(stack, sizeof(stack), &len, &last, &run, name ? name : "[kernel]");
			}
			if (!nk && r->pc >= PEER_KADDR) {
				const char *name = peer_sym_find(&kern, r->pc);

				peer_frame(stack, sizeof(stack), &len, &last, &run, name ? name : "[kernel]");
			}
			peer_count(0, 0, stack, len, 1);
			peer_count(1, 0, stack, strcspn(stack, ";"), 1);
		}
	}
	df_close(&df);
	if (ret < 0) {
		fprintf(stderr, "pmuscope-peer: %s: %s\n", path, err);
		return 1;
	}
	snprintf(path, sizeof(path), "%s.fid", argv[2]);
	out = fopen(path, "w");
	if (!out)
		peer_die(path);
	fprintf(out, "# samples %llu kernel %llu kaddrs %llu lost %llu throttled %llu\n",
		(unsigned long long)s.samples, (unsigned long long)s.kernel,
		(unsigned long long)s.kaddrs, (unsigned long long)s.lost,
		(unsigned long long)s.throttled);
	for (size_t i = 0; i < peer_nkeys[1]; i++)
		fprintf(out, "task %s %llu\n", peer_keys[1][i].key,
			(unsigned long long)peer_keys[1][i].n[0]);
	for (size_t i = 0; i < peer_nkeys[0]; i++) {
		if (peer_keys[0][i].n[0] * 500 < s.samples)
			other += peer_keys[0][i].n[0];
		else
			fprintf(out, "stack %s %llu\n", peer_keys[0][i].key,
				(unsigned long long)peer_keys[0][i].n[0]);
	}
	if (other)
		fprintf(out, "stack [other] %llu\n", (unsigned long long)other);
	return fclose(out) ? 1 : 0;
}

/* ----------------------------------------------------------------- compare */

/* FILE.fid into side @side: its totals, its tasks (set 1), its stacks (set 0). */
static int peer_read_fid(const char *path, int side, struct peer_side *s)
{
	char *line = NULL;
	size_t room = 0;
	FILE *f = fopen(path, "r");
	int got = 0;

	if (!f) {
		diag("%s: %s", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &room, f) > 0) {
		char *sp;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "# samples %llu kernel %llu kaddrs %llu lost %llu throttled %llu",
			   (unsigned long long *)&s->samples, (unsigned long long *)&s->kernel,
			   (unsigned long long *)&s->kaddrs, (unsigned long long *)&s->lost,
			   (unsigned long long *)&s->throttled) == 5) {
			got = 1;
			continue;
		}
		sp = strrchr(line, ' ');
		if (!sp)
			continue;
		if (!strncmp(line, "task ", 5))
			peer_count(1, side, line + 5, sp - line - 5, strtoull(sp + 1, NULL, 10));
		else if (!strncmp(line, "stack ", 6))
			peer_count(0, side, line + 6, sp - line - 6, strtoull(sp + 1, NULL, 10));
	}
	free(line);
	fclose(f);
	if (!got)
		diag("%s: no totals line", path);
	return got ? 0 : -1;
}

/* Do shares @a of @na and @b of @nb agree, two binomial samples? */
static int peer_agree(uint64_t a, uint64_t na, uint64_t b, uint64_t nb, double z, double *tol)
{
	double pa = na ? (double)a / na : 0, pb = nb ? (double)b / nb : 0;
	double p = na + nb ? (double)(a + b) / (na + nb) : 0;

	*tol = z * sqrt(p * (1 - p) * (1.0 / (na ? na : 1) + 1.0 / (nb ? nb : 1))) + 0.005;
	return fabs(pa - pb) <= *tol;
}

/* A stack for a TAP line: its task, its depth and its innermost frames. */
static void peer_short(const char *key, char *buf, size_t room)
{
	const char *p = key + strlen(key);
	int frames = 0, shown = 0;

	for (const char *q = key; *q; q++)
		frames += *q == ';';
	while (p > key && shown < 3) {
		p--;
		if (*p == ';')
			shown++;
	}
	if (shown < 3 || p == key)
		snprintf(buf, room, "%s", key);
	else
		snprintf(buf, room, "%.*s (%d frames) ...%s", (int)strcspn(key, ";"), key, frames,
			 p);
}

static int peer_cmd_compare(int argc, char **argv)
{
	double min = 2, counts = 5, z = 4, tol;
	struct peer_side s[2] = { 0 };
	const char *tag;
	int opt, ok;

	while ((opt = getopt(argc, argv, "m:n:z:")) != -1) {
		switch (opt) {
		case 'm':
			min = atof(optarg);
			break;
		case 'n':
			counts = atof(optarg);
			break;
		case 'z':
			z = atof(optarg);
			break;
		default:
			return 2;
		}
	}
	if (argc - optind != 3) {
		fprintf(stderr,
			"usage: pmuscope-peer compare [-m MIN%%] [-n COUNTS%%] [-z SIGMAS] TAG PERF.fid OURS.fid\n");
		return 2;
	}
	tag = argv[optind];
	tap_tag = "fidelity";
	for (int i = 0; i < 2; i++) {
		if (peer_read_fid(argv[optind + 1 + i], i, &s[i])) {
			tap(0, "%s: %s read", tag, argv[optind + 1 + i]);
			return 1;
		}
	}
	diag("%s: perf %llu samples (%llu in the kernel, %llu lost, %llu throttled), pmuscope %llu (%llu, %llu, %llu)",
	     tag, (unsigned long long)s[0].samples, (unsigned long long)s[0].kernel,
	     (unsigned long long)s[0].lost, (unsigned long long)s[0].throttled,
	     (unsigned long long)s[1].samples, (unsigned long long)s[1].kernel,
	     (unsigned long long)s[1].lost, (unsigned long long)s[1].throttled);
	tap(s[0].samples > 0 && s[1].samples > 0, "%s: both have samples", tag);
	if (!s[0].samples || !s[1].samples)
		return 1;
	tap(fabs((double)s[1].samples - s[0].samples) <= counts / 100 * s[0].samples,
	    "%s: samples %llu, perf's %llu, within %.0f%%", tag,
	    (unsigned long long)s[1].samples, (unsigned long long)s[0].samples, counts);
	for (size_t i = 0; i < peer_nkeys[1]; i++) {
		struct peer_key *k = &peer_keys[1][i];
		uint64_t want = k->n[0], got = k->n[1];

		if (want * 100 < s[0].samples * min && got * 100 < s[1].samples * min)
			continue;
		tap(fabs((double)got - want) <= counts / 100 * want + 2,
		    "%s: task %s: samples %llu, perf's %llu, within %.0f%%", tag, k->key,
		    (unsigned long long)got, (unsigned long long)want, counts);
	}
	ok = peer_agree(s[0].kernel, s[0].samples, s[1].kernel, s[1].samples, z, &tol);
	tap(ok, "%s: kernel share %.1f%%, perf's %.1f%%, within %.1f points", tag,
	    100.0 * s[1].kernel / s[1].samples, 100.0 * s[0].kernel / s[0].samples, 100 * tol);
	if (!s[0].kaddrs)
		tap(!s[1].kaddrs, "%s: no kernel address, as perf (%llu samples with one)", tag,
		    (unsigned long long)s[1].kaddrs);
	for (size_t i = 0; i < peer_nkeys[0]; i++) {
		struct peer_key *k = &peer_keys[0][i];
		double pa = 100.0 * k->n[0] / s[0].samples, pb = 100.0 * k->n[1] / s[1].samples;
		char name[256];

		if ((pa < min && pb < min) || !strcmp(k->key, "[other]"))
			continue;
		ok = peer_agree(k->n[0], s[0].samples, k->n[1], s[1].samples, z, &tol);
		peer_short(k->key, name, sizeof(name));
		tap(ok, "%s: stack %s: %.1f%%, perf's %.1f%%, within %.1f points", tag, name, pb,
		    pa, 100 * tol);
	}
	return tap_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "record"))
		return peer_cmd_record(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "reduce"))
		return peer_cmd_reduce(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "compare"))
		return peer_cmd_compare(argc - 1, argv + 1);
	fprintf(stderr, "usage: pmuscope-peer record|reduce|compare ...\n");
	return 2;
}
