// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-spe: an SPE session straight on the ioctls, for t-spe.sh.
 *
 *   pmuscope-spe CPU INTERVAL SECONDS [FLAGS [HW_KIB [BUFFER_KIB]]]
 *
 * Starts profiling CPU at EL0 and EL1 (FLAGS: the struct's flags, in hex,
 * default 3) with INTERVAL (buffers: HW_KIB, default 64, and BUFFER_KIB,
 * default 4096), prints "started" (the script injects the
 * modelled workload then), reads chunks for SECONDS or until SIGINT, stops, reads to the
 * end of file, and prints what it got: chunks, records (whole records,
 * counted by walking the packets), bytes, the OR of the chunk flags, the
 * chunks' lost bytes, the most sampled 16 MiB code region, the SPE_STATUS
 * accounting, and the CLOCK_MONOTONIC time from SPE_START to the end of
 * the last read and the CPU time the program used (user and system: its
 * read()s and its walk; make bench's records per second). With
 * PMUSCOPE_SPE_VERBOSE set, each read()'s time and size go to stderr.
 * Exit 0, or 1 with the failing call's errno in words; "errno=NAME" alone
 * for a refused SPE_START (the script checks which).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/pmuscope.h>

#define MAXPC	64

static struct { uint64_t pc; unsigned long n; } pcs[MAXPC];
static unsigned long records, chunks, bad;
static unsigned long long bytes, lost;
static unsigned int cflags;

static volatile sig_atomic_t stop;

static void on_int(int sig)
{
	(void)sig;
	stop = 1;
}

static void count_pc(uint64_t pc)
{
	int i;

	for (i = 0; i < MAXPC && pcs[i].n; i++)
		if (pcs[i].pc == pc) {
			pcs[i].n++;
			return;
		}
	if (i < MAXPC) {
		pcs[i].pc = pc;
		pcs[i].n = 1;
	}
}

/* Packet length by header (Arm ARM D18, format 0); 0: not a packet. */
static unsigned int pkt_len(const uint8_t *p, size_t left)
{
	uint8_t h = p[0];

	if (h == 0x00 || h == 0x01)
		return 1;
	if (h == 0x71)
		return 9;
	if ((h & 0xcf) == 0x42 || (h & 0xcf) == 0x43)
		return 1 + (1u << ((h >> 4) & 3));
	if ((h & 0xfc) == 0x48)
		return 2;
	if ((h & 0xfc) == 0x64)
		return 5;
	if ((h & 0xf8) == 0xb0)
		return 9;
	if ((h & 0xf8) == 0x98)
		return 3;
	if ((h & 0xfc) == 0x20 && left > 1)
		return (p[1] & 0xf8) == 0xb0 ? 10 : (p[1] & 0xf8) == 0x98 ? 4 : 0;
	return 0;
}

static void walk(const uint8_t *p, uint32_t len)
{
	uint32_t off = 0, n;
	uint64_t pc;

	while (off < len) {
		n = pkt_len(p + off, len - off);
		if (!n || n > len - off) {
			bad++;
			return;
		}
		if (p[off] == 0xb0) {	/* Address, index 0: the PC */
			memcpy(&pc, p + off + 1, 8);
			/* By 16 MiB region: the modelled workloads' code. */
			count_pc(pc & ((1ULL << 56) - 1) & ~0xffffffULL);
		}
		if (p[off] == 0x01 || p[off] == 0x71)
			records++;
		off += n;
	}
}

static int verbose;

static int drain(int fd, char *buf, size_t len)
{
	ssize_t r = read(fd, buf, len);
	size_t off = 0;

	if (verbose) {
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		fprintf(stderr, "read %ld.%09ld %zd\n", (long)t.tv_sec, t.tv_nsec, r);
	}
	if (r <= 0)
		return r;
	while (off < (size_t)r) {
		struct pmuscope_spe_chunk *c = (void *)(buf + off);

		chunks++;
		bytes += c->data_size;
		lost += c->lost;
		cflags |= c->flags;
		walk((uint8_t *)(c + 1), c->data_size);
		off += c->size;
	}
	return 1;
}

static const char *errname(int e)
{
	switch (e) {
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	case ENOMEM: return "ENOMEM";
	default: return strerror(e);
	}
}

int main(int argc, char **argv)
{
	static char buf[8 << 20];
	struct pmuscope_spe_cpu st[1];
	struct pmuscope_spe_status ss = { .size = sizeof(ss), .records = (uintptr_t)st,
					  .nr_records = 1 };
	struct pmuscope_spe_config cfg = { .size = sizeof(cfg) };
	struct timespec t0, t, ts;
	struct rusage ru;
	uint64_t cpus = 0;
	int fd, i, best = 0, secs;

	if (argc < 4)
		return fprintf(stderr, "usage: pmuscope-spe CPU INTERVAL SECONDS "
			       "[FLAGS [HW_KIB [BUFFER_KIB]]]\n"), 2;
	cpus = 1ULL << atoi(argv[1]);
	cfg.cpus = (uintptr_t)&cpus;
	cfg.cpus_size = 8;
	cfg.interval = strtoull(argv[2], NULL, 0);
	cfg.flags = argc > 4 ? strtoul(argv[4], NULL, 16) : 3;
	cfg.hw_kib = argc > 5 ? strtoul(argv[5], NULL, 0) : 64;
	cfg.buffer_kib = argc > 6 ? strtoul(argv[6], NULL, 0) : 4096;
	secs = atoi(argv[3]);
	verbose = !!getenv("PMUSCOPE_SPE_VERBOSE");
	fd = open("/dev/pmuscope", O_RDWR);
	if (fd < 0)
		return perror("open"), 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (ioctl(fd, PMUSCOPE_IOC_SPE_START, &cfg)) {
		printf("errno=%s\n", errname(errno));
		return 1;
	}
	signal(SIGINT, on_int);
	printf("started\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 100) > 0 && drain(fd, buf, sizeof(buf)) < 0)
			return perror("read"), 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!stop && t.tv_sec - t0.tv_sec < secs);
	if (ioctl(fd, PMUSCOPE_IOC_SPE_STOP))
		return perror("SPE_STOP"), 1;
	while ((i = drain(fd, buf, sizeof(buf))) > 0)
		;
	if (i < 0)
		return perror("read after stop"), 1;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (ioctl(fd, PMUSCOPE_IOC_SPE_STATUS, &ss))
		return perror("SPE_STATUS"), 1;
	for (i = 1; i < MAXPC; i++)
		if (pcs[i].n > pcs[best].n)
			best = i;
	printf("chunks=%lu records=%lu bytes=%llu flags=0x%x lost=%llu bad=%lu hot_region=0x%llx hot_n=%lu\n",
	       chunks, records, bytes, cflags, lost, bad, (unsigned long long)pcs[best].pc,
	       pcs[best].n);
	printf("status state=%u bytes=%llu lost_ring=%llu lost_dl=%llu fills=%u dl=%u coll=%u spurious=%u stopped_ns=%llu\n",
	       st[0].state, (unsigned long long)st[0].bytes, (unsigned long long)st[0].lost_ring,
	       (unsigned long long)st[0].lost_dl, st[0].fills, st[0].dl_events, st[0].collisions,
	       st[0].spurious, (unsigned long long)st[0].stopped_ns);
	getrusage(RUSAGE_SELF, &ru);
	printf("time elapsed_ns=%llu cpu_ns=%llu\n",
	       (unsigned long long)((t.tv_sec - ts.tv_sec) * 1000000000LL + t.tv_nsec - ts.tv_nsec),
	       (unsigned long long)((ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
				    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL));
	close(fd);
	return 0;
}
