// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: the Statistical Profiling Extension: sessions that profile, their
 * status and the chunks they read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "internal.h"

/* ------------------------------------------------------------------- SPE */
_Static_assert(sizeof(struct pmuscope_spe_chunk) == 32, "struct pmuscope_spe_chunk is 32 bytes");
_Static_assert(sizeof(struct pmuscope_spe_cpu) == 64, "struct pmuscope_spe_cpu is 64 bytes");

#define PMUSCOPE_SPE_FLAGS_ALL	(PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1 | PMUSCOPE_SPE_TS | \
				 PMUSCOPE_SPE_PA | PMUSCOPE_SPE_CX | PMUSCOPE_SPE_PCT | \
				 PMUSCOPE_SPE_JITTER | PMUSCOPE_SPE_DISCARD)
#define PMUSCOPE_SPE_OPS_ALL	(PMUSCOPE_SPE_OP_BRANCH | PMUSCOPE_SPE_OP_LOAD | \
				 PMUSCOPE_SPE_OP_STORE)
#define PMUSCOPE_SPE_CPUS_MAX	4096	/* bytes of the bitmap, at most */

static int pmuscope_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The checks the driver makes of @cfg (Documentation/ioctl.rst), first here. */
static int pmuscope_spe_check(struct pmuscope *h, const struct pmuscope_spe_config *cfg)
{
	const uint64_t *cpus = (const uint64_t *)(uintptr_t)cfg->cpus;
	size_t words = cfg->cpus_size / 8, n = 0;

	if (cfg->flags & ~PMUSCOPE_SPE_FLAGS_ALL) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "SPE: unknown flags 0x%x",
			     cfg->flags & ~PMUSCOPE_SPE_FLAGS_ALL);
		return -EINVAL;
	}
	if (!(cfg->flags & (PMUSCOPE_SPE_EL0 | PMUSCOPE_SPE_EL1))) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: sample at EL0, EL1 or both: neither was asked for");
		return -EINVAL;
	}
	if ((cfg->flags & PMUSCOPE_SPE_PCT) && !(cfg->flags & PMUSCOPE_SPE_TS)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: physical timestamps (PCT) need timestamps (TS)");
		return -EINVAL;
	}
	if (cfg->ops & ~PMUSCOPE_SPE_OPS_ALL) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "SPE: unknown operation filter bits 0x%x",
			     cfg->ops & ~PMUSCOPE_SPE_OPS_ALL);
		return -EINVAL;
	}
	if (!cpus || !cfg->cpus_size || cfg->cpus_size % 8 ||
	    cfg->cpus_size > PMUSCOPE_SPE_CPUS_MAX) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: a CPU bitmap of %u bytes: want a multiple of 8 from 8 to %d",
			     cfg->cpus_size, PMUSCOPE_SPE_CPUS_MAX);
		return -EINVAL;
	}
	for (size_t cpu = 0; cpu < words * 64; cpu++) {
		if (!pmuscope_cpu_set(cpus, words, cpu))
			continue;
		if (h->nr_cpu_ids && cpu >= h->nr_cpu_ids) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "SPE: cpu%zu does not exist (the kernel's CPUs are below %u)",
				     cpu, h->nr_cpu_ids);
			return -EINVAL;
		}
		n++;
	}
	if (!n) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "SPE: no CPU chosen");
		return -EINVAL;
	}
	if (cfg->interval % 256 || cfg->interval > PMUSCOPE_SPE_INTERVAL_MAX) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: an interval of %llu operations: want a multiple of 256 up to %llu",
			     (unsigned long long)cfg->interval,
			     (unsigned long long)PMUSCOPE_SPE_INTERVAL_MAX);
		return -EINVAL;
	}
	if (cfg->min_latency > 65535) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: a minimum latency of %u cycles is above the most, 65535",
			     cfg->min_latency);
		return -EINVAL;
	}
	if (cfg->buffer_kib && (!pmuscope_pow2(cfg->buffer_kib) ||
				cfg->buffer_kib < PMUSCOPE_SPE_KIB_MIN ||
				cfg->buffer_kib > PMUSCOPE_SPE_KIB_MAX)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: a ring of %u KiB: want a power of 2 from %d to %d",
			     cfg->buffer_kib, PMUSCOPE_SPE_KIB_MIN, PMUSCOPE_SPE_KIB_MAX);
		return -EINVAL;
	}
	if (cfg->hw_kib && (!pmuscope_pow2(cfg->hw_kib) || cfg->hw_kib < PMUSCOPE_SPE_HW_KIB_MIN ||
			    cfg->hw_kib > PMUSCOPE_SPE_HW_KIB_MAX)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: a profiling buffer of %u KiB: want a power of 2 from %d to %d",
			     cfg->hw_kib, PMUSCOPE_SPE_HW_KIB_MIN, PMUSCOPE_SPE_HW_KIB_MAX);
		return -EINVAL;
	}
	if ((cfg->hw_kib ? cfg->hw_kib : PMUSCOPE_SPE_HW_KIB_DEFAULT) >=
	    (cfg->buffer_kib ? cfg->buffer_kib : PMUSCOPE_SPE_KIB_DEFAULT)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: the profiling buffer (%u KiB) must be smaller than the ring (%u KiB)",
			     cfg->hw_kib ? cfg->hw_kib : PMUSCOPE_SPE_HW_KIB_DEFAULT,
			     cfg->buffer_kib ? cfg->buffer_kib : PMUSCOPE_SPE_KIB_DEFAULT);
		return -EINVAL;
	}
	if (cfg->wakeup_kib > (cfg->buffer_kib ? cfg->buffer_kib : PMUSCOPE_SPE_KIB_DEFAULT)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: a wakeup at %u KiB is above the ring's size", cfg->wakeup_kib);
		return -EINVAL;
	}
	if (cfg->reserved[0] || cfg->reserved[1]) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "SPE: reserved fields must be zero");
		return -EINVAL;
	}
	return 0;
}

int pmuscope_spe_start(struct pmuscope *h, struct pmuscope_spe_config *cfg)
{
	int ret, flags;

	if (!h || !cfg)
		return -EINVAL;
	cfg->size = sizeof(*cfg);
	if (h->nr_events) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: this session counts events: profile on a session of its own");
		return -EINVAL;
	}
	ret = pmuscope_spe_check(h, cfg);
	if (ret)
		return ret;
	if (!(h->features & PMUSCOPE_FEAT_SPE)) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE: the driver can profile no CPU with SPE (the handshake has no PMUSCOPE_FEAT_SPE: no CPU has a usable Statistical Profiling Extension, it belongs to another driver, or the driver is older)");
		return -EOPNOTSUPP;
	}
	if (ioctl(h->fd, PMUSCOPE_IOC_SPE_START, cfg)) {
		const uint64_t *cpus = (const uint64_t *)(uintptr_t)cfg->cpus;
		struct pmuscope_say_args a = {
			.policy = PMUSCOPE_POLICY_CPU |
				  ((cfg->flags & (PMUSCOPE_SPE_EL1 | PMUSCOPE_SPE_PA |
						  PMUSCOPE_SPE_CX | PMUSCOPE_SPE_PCT)) ?
				   PMUSCOPE_POLICY_KERNEL : 0),
		};
		unsigned int state = (h->features & PMUSCOPE_FEAT_SPE) ? PMUSCOPE_IF_FEAT : 0;
		long long n = 0;

		ret = -errno;
		/* EPERM: the policy's, or the locked memory's (the KiB charged). */
		if (ret == -EPERM && pmuscope_policy_cpus_ok())
			state |= PMUSCOPE_IF_CPUS;
		for (size_t i = 0; i < cfg->cpus_size / 8; i++)
			n += __builtin_popcountll(cpus[i]);
		a.n[0] = (cfg->buffer_kib ? cfg->buffer_kib : PMUSCOPE_SPE_KIB_DEFAULT) +
			 2LL * (cfg->hw_kib ? cfg->hw_kib : PMUSCOPE_SPE_HW_KIB_DEFAULT) * n;
		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_SPE_START, ret, state, &a);
		return ret;
	}
	flags = fcntl(h->fd, F_GETFL);
	if (flags >= 0)
		fcntl(h->fd, F_SETFL, flags | O_NONBLOCK);
	return 0;
}

int pmuscope_spe_stop(struct pmuscope *h)
{
	if (!h)
		return -EINVAL;
	if (ioctl(h->fd, PMUSCOPE_IOC_SPE_STOP)) {
		int ret = -errno;

		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_SPE_STOP, ret, 0, NULL);
		return ret;
	}
	return 0;
}

int pmuscope_spe_status(struct pmuscope *h, struct pmuscope_spe_cpu *cpus, size_t room,
			uint64_t *freq)
{
	struct pmuscope_spe_status st = {
		.size = sizeof(st), .record_size = sizeof(struct pmuscope_spe_cpu),
	};

	if (!h || (room && !cpus))
		return -EINVAL;
	if (room > UINT32_MAX)
		room = UINT32_MAX;
	st.records = (uintptr_t)cpus;
	st.nr_records = room;
	if (ioctl(h->fd, PMUSCOPE_IOC_SPE_STATUS, &st)) {
		int ret = -errno;
		struct pmuscope_say_args a = { .n = { (long long)room, st.nr_records } };

		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_SPE_STATUS, ret, 0, &a);
		return ret;
	}
	if (st.nr_records > room) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "SPE status: the driver returned %u records for %zu places",
			     st.nr_records, room);
		return -EPROTO;
	}
	if (freq)
		*freq = st.freq;
	return st.nr_records;
}

ssize_t pmuscope_spe_read(struct pmuscope *h, void *buf, size_t len, int timeout_ms)
{
	return pmuscope_poll_read(h, buf, len, timeout_ms, "SPE", "chunk");
}

int pmuscope_spe_chunk_next(const void *buf, size_t len, size_t *off,
			    struct pmuscope_spe_chunk *c, const unsigned char **data,
			    char *err, size_t errlen)
{
	const unsigned char *p = buf;
	size_t at = *off, left;

	if (at >= len)
		return 0;
	left = len - at;
	if (left < sizeof(*c)) {
		pmuscope_fmt(err, errlen, "chunk at byte %zu: %zu bytes, not a 32-byte header",
			     at, left);
		return -EBADMSG;
	}
	memcpy(c, p + at, sizeof(*c));
	if (c->size % 8 || c->size < sizeof(*c)) {
		pmuscope_fmt(err, errlen, "chunk at byte %zu: size %u is not a multiple of 8 of at least 32",
			     at, c->size);
		return -EBADMSG;
	}
	if ((uint64_t)c->data_size + sizeof(*c) > c->size ||
	    c->size - sizeof(*c) - c->data_size >= 8) {
		pmuscope_fmt(err, errlen,
			     "chunk at byte %zu: %u bytes of data do not fit a chunk of %u bytes padded to 8",
			     at, c->data_size, c->size);
		return -EBADMSG;
	}
	if (c->size > left) {
		pmuscope_fmt(err, errlen, "chunk at byte %zu: size %u, only %zu bytes left",
			     at, c->size, left);
		return -EBADMSG;
	}
	if (c->flags & ~(PMUSCOPE_SPE_C_LOST | PMUSCOPE_SPE_C_COLLISION |
			 PMUSCOPE_SPE_C_STOPPED | PMUSCOPE_SPE_C_FINAL)) {
		pmuscope_fmt(err, errlen, "chunk at byte %zu: unknown flags 0x%x", at, c->flags);
		return -EBADMSG;
	}
	for (size_t i = sizeof(*c) + c->data_size; i < c->size; i++)
		if (p[at + i]) {
			pmuscope_fmt(err, errlen, "chunk at byte %zu: padding byte %zu is not zero",
				     at, i);
			return -EBADMSG;
		}
	*data = p + at + sizeof(*c);
	*off = at + c->size;
	return 1;
}

void pmuscope_spe_pmbsr_str(uint64_t pmbsr, char *buf, size_t len)
{
	unsigned int ec = (pmbsr >> 26) & 0x3f, mss = pmbsr & 0xffff;
	const char *what = "?", *sub = "";
	size_t off;

	switch (ec) {
	case 0x00:
		what = "buffer management";
		switch (mss & 0x3f) {
		case 0x00: sub = "not filled"; break;
		case 0x01: sub = "buffer full"; break;
		default: sub = "reserved";
		}
		break;
	case 0x1e:
		what = "granule protection check";
		break;
	case 0x24:
		what = "data abort, stage 1";
		break;
	case 0x25:
		what = "data abort, stage 2";
		break;
	default:
		what = "IMPLEMENTATION DEFINED or reserved";
	}
	if (!len)
		return;
	off = snprintf(buf, len, "0x%llx: EC 0x%02x (%s) %s 0x%02x%s%s%s",
		       (unsigned long long)pmbsr, ec, what, ec ? "FSC" : "BSC", mss & 0x3f,
		       *sub ? " (" : "", sub, *sub ? ")" : "");
	if (off < len && (pmbsr & (1ULL << 19)))
		off += snprintf(buf + off, len - off, ", DL (data lost)");
	if (off < len && (pmbsr & (1ULL << 18)))
		off += snprintf(buf + off, len - off, ", EA (external abort)");
	if (off < len && (pmbsr & (1ULL << 17)))
		off += snprintf(buf + off, len - off, ", S (service)");
	if (off < len && (pmbsr & (1ULL << 16)))
		snprintf(buf + off, len - off, ", COLL (collision)");
}

const char *pmuscope_spe_state_name(uint32_t state)
{
	switch (state) {
	case PMUSCOPE_SPE_RUNNING:
		return "running";
	case PMUSCOPE_SPE_FAULTED:
		return "faulted";
	case PMUSCOPE_SPE_OFFLINE:
		return "offline";
	case PMUSCOPE_SPE_STOPPED:
		return "stopped";
	default:
		return "unknown";
	}
}

void pmuscope_spe_chunk_flags_str(uint32_t flags, char *buf, size_t len)
{
	static const struct pmuscope_flag_name names[] = {
		{ PMUSCOPE_SPE_C_LOST, "lost" },
		{ PMUSCOPE_SPE_C_COLLISION, "collision" },
		{ PMUSCOPE_SPE_C_STOPPED, "stopped" },
		{ PMUSCOPE_SPE_C_FINAL, "final" },
	};

	pmuscope_flag_names_str(flags, names, sizeof(names) / sizeof(names[0]), buf, len);
}
