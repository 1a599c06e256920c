// SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0
/*
 * libpmuscope: streams: the driver's records (samples, lost, throttled) read
 * from the session's file, and the system counter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* --------------------------------------------------------------- streams */
int pmuscope_fd(const struct pmuscope *h)
{
	return h ? h->fd : -1;
}

/* The backend, for messages: perf's PMU driver or pmuscope's own. */
static const char *pmuscope_backend_name(const struct pmuscope *h)
{
	return (h->features & PMUSCOPE_FEAT_BACKEND_PERF) ? "perf" : "direct";
}

/*
 * After EOPNOTSUPP from STREAM: which feature the driver lacks, with its
 * backend and what to do; 0 when it has them all (the table's rows say
 * the rest).
 */
static int pmuscope_stream_explain(struct pmuscope *h, uint32_t flags)
{
	const char *b = pmuscope_backend_name(h);

	if (!(h->features & PMUSCOPE_FEAT_STREAM))
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "stream refused: the driver has no streams (no PMUSCOPE_FEAT_STREAM) on its %s backend: load a pmuscope.ko of API 7 or later (it samples on both backends)%s",
			     b, (h->features & PMUSCOPE_FEAT_BACKEND_PERF) ?
			     ", or this one with backend=direct where perf's PMU driver is kept off" :
			     "");
	else if (h->task && !(h->features & PMUSCOPE_FEAT_STREAM_TASK))
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "stream refused: the driver cannot sample a task on its %s backend (no PMUSCOPE_FEAT_STREAM_TASK): sample CPUs, or load a pmuscope.ko of API 7 or later",
			     b);
	else if ((flags & PMUSCOPE_STREAM_F_CALLCHAIN) &&
		 !(h->features & PMUSCOPE_FEAT_CALLCHAIN))
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "stream refused: the driver records no call chains on its %s backend (no PMUSCOPE_FEAT_CALLCHAIN): sample without them, or load a pmuscope.ko of API 7 or later",
			     b);
	else
		return 0;
	return 1;
}

int pmuscope_stream_start(struct pmuscope *h, const struct pmuscope_stream_cfg *cfg)
{
	return pmuscope_stream_start2(h, cfg, 0, 0);
}

int pmuscope_stream_start2(struct pmuscope *h, const struct pmuscope_stream_cfg *cfg,
			   uint32_t sflags, unsigned int max_stack)
{
	struct pmuscope_stream st = { .size = sizeof(st) };
	int flags;

	if (!h || !cfg)
		return -EINVAL;
	if (sflags & ~PMUSCOPE_STREAM_F_CALLCHAIN) {
		pmuscope_fmt(h->msg, sizeof(h->msg), "stream: unknown flags 0x%x",
			     sflags & ~PMUSCOPE_STREAM_F_CALLCHAIN);
		return -EINVAL;
	}
	if (max_stack > PMUSCOPE_STACK_MAX ||
	    (max_stack && !(sflags & PMUSCOPE_STREAM_F_CALLCHAIN))) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "stream: a call chain of at most %u frames: want 1 to %u (0: %u) with PMUSCOPE_STREAM_F_CALLCHAIN, else 0",
			     max_stack, PMUSCOPE_STACK_MAX, PMUSCOPE_STACK_DEFAULT);
		return -EINVAL;
	}
	if (cfg->period_ms > PMUSCOPE_STREAM_MS_MAX) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "stream: a period of %u ms is above the most, %u ms",
			     cfg->period_ms, PMUSCOPE_STREAM_MS_MAX);
		return -EINVAL;
	}
	if (cfg->sample_index != PMUSCOPE_STREAM_NO_EVENT) {
		if (h->nr_events && cfg->sample_index >= h->nr_events) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "stream: no event %u to sample on: the session counts %u",
				     cfg->sample_index, h->nr_events);
			return -EINVAL;
		}
		if (cfg->sample_period < PMUSCOPE_STREAM_PERIOD_MIN ||
		    cfg->sample_period > PMUSCOPE_STREAM_PERIOD_MAX) {
			pmuscope_fmt(h->msg, sizeof(h->msg),
				     "stream: a sample period of %llu events is out of range (%u to %llu)",
				     (unsigned long long)cfg->sample_period,
				     PMUSCOPE_STREAM_PERIOD_MIN,
				     (unsigned long long)PMUSCOPE_STREAM_PERIOD_MAX);
			return -EINVAL;
		}
	}
	if (!cfg->period_ms && cfg->sample_index == PMUSCOPE_STREAM_NO_EVENT) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "stream: neither a period in ms nor an event to sample on");
		return -EINVAL;
	}
	if (cfg->ring_kib && (cfg->ring_kib < PMUSCOPE_STREAM_KIB_MIN ||
			      cfg->ring_kib > PMUSCOPE_STREAM_KIB_MAX ||
			      (cfg->ring_kib & (cfg->ring_kib - 1)))) {
		pmuscope_fmt(h->msg, sizeof(h->msg),
			     "stream: a ring of %u KiB: want a power of 2 from %u to %u",
			     cfg->ring_kib, PMUSCOPE_STREAM_KIB_MIN, PMUSCOPE_STREAM_KIB_MAX);
		return -EINVAL;
	}
	st.period_ms = cfg->period_ms;
	st.sample_index = cfg->sample_index;
	st.sample_period = cfg->sample_index == PMUSCOPE_STREAM_NO_EVENT ? 0 : cfg->sample_period;
	st.ring_kib = cfg->ring_kib;
	st.wakeup_kib = cfg->wakeup_kib;
	st.flags = sflags;
	st.max_stack = max_stack;
	if (ioctl(h->fd, PMUSCOPE_IOC_STREAM, &st)) {
		int ret = -errno;

		if (ret == -EOPNOTSUPP && pmuscope_stream_explain(h, sflags))
			return ret;
		unsigned int state = (h->nr_events ? PMUSCOPE_IF_EVENTS : 0) |
				     (h->task ? PMUSCOPE_IF_TASK : 0);

		/* EPERM: whole CPUs the caller may not sample now, else the memory's. */
		if (ret == -EPERM && !h->task && pmuscope_policy_cpus_ok())
			state |= PMUSCOPE_IF_CPUS;
		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_STREAM, ret, state,
			     &(struct pmuscope_say_args){
				     .s = pmuscope_backend_name(h),
				     .policy = PMUSCOPE_POLICY_CPU,
				     .n = { cfg->ring_kib ? cfg->ring_kib :
					    PMUSCOPE_STREAM_KIB_DEFAULT } });
		return ret;
	}
	flags = fcntl(h->fd, F_GETFL);
	if (flags >= 0)
		fcntl(h->fd, F_SETFL, flags | O_NONBLOCK);
	return 0;
}

/*
 * Wait up to @timeout_ms for the file to be readable, then read what
 * fits: a stream's records or an SPE session's chunks (@what names them
 * in messages, @unit one of them). 0 when nothing came.
 */
ssize_t pmuscope_poll_read(struct pmuscope *h, void *buf, size_t len, int timeout_ms,
				  const char *what, const char *unit)
{
	struct pollfd pfd;
	ssize_t n;
	int ret;

	if (!h || (len && !buf))
		return -EINVAL;
	pfd.fd = h->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0) {
		ret = -errno;
		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_POLL, ret, 0,
			     &(struct pmuscope_say_args){ .s = what });
		return ret;
	}
	if (!ret)
		return 0;
	n = read(h->fd, buf, len);
	if (n < 0) {
		ret = -errno;
		if (ret == -EAGAIN)
			return 0;
		pmuscope_say(h->msg, sizeof(h->msg), PMUSCOPE_OP_FILE_READ, ret, 0,
			     &(struct pmuscope_say_args){
				     .n = { (long long)len }, .s = what, .t = unit,
			     });
		return ret;
	}
	return n;
}

ssize_t pmuscope_stream_read(struct pmuscope *h, void *buf, size_t len, int timeout_ms)
{
	return pmuscope_poll_read(h, buf, len, timeout_ms, "stream", "record");
}

#define PMUSCOPE_REC_HEAD	48	/* sizeof(struct pmuscope_record) */

_Static_assert(sizeof(struct pmuscope_record) == PMUSCOPE_REC_HEAD,
	       "struct pmuscope_record is 48 bytes");

#define PMUSCOPE_CHAIN_HEAD	16	/* sizeof(struct pmuscope_rec_chain) */

_Static_assert(sizeof(struct pmuscope_rec_chain) == PMUSCOPE_CHAIN_HEAD,
	       "struct pmuscope_rec_chain is 16 bytes");

/*
 * The chain at @p, @left bytes of its record after the counts: 1 (a
 * chain of this version, @c filled), 0 (a newer version: to skip), or
 * -EBADMSG with @err saying what is wrong, the chain at byte @at.
 */
static int pmuscope_chain_parse(const unsigned char *p, size_t left, size_t at,
				struct pmuscope_rec_chain *c, char *err, size_t errlen)
{
	uint64_t need;

	if (left < PMUSCOPE_CHAIN_HEAD) {
		pmuscope_fmt(err, errlen,
			     "call chain at byte %zu: %zu bytes of the record left, its header has %d",
			     at, left, PMUSCOPE_CHAIN_HEAD);
		return -EBADMSG;
	}
	memcpy(c, p, sizeof(*c));
	if (!c->version) {
		pmuscope_fmt(err, errlen, "call chain at byte %zu: version 0", at);
		return -EBADMSG;
	}
	if (c->version > PMUSCOPE_CHAIN_VERSION) {
		/* A newer layout: its header must still be within the record. */
		if (c->size < PMUSCOPE_CHAIN_HEAD || c->size % 8 || c->size > left) {
			pmuscope_fmt(err, errlen,
				     "call chain at byte %zu: version %u of size %u: at least %d, a multiple of 8, within the record's %zu bytes left",
				     at, c->version, c->size, PMUSCOPE_CHAIN_HEAD, left);
			return -EBADMSG;
		}
		return 0;
	}
	if (c->size != PMUSCOPE_CHAIN_HEAD) {
		pmuscope_fmt(err, errlen,
			     "call chain at byte %zu: size %u, version %u's is %d", at, c->size,
			     c->version, PMUSCOPE_CHAIN_HEAD);
		return -EBADMSG;
	}
	need = PMUSCOPE_CHAIN_HEAD + 8ULL * ((uint64_t)c->nr_kernel + c->nr_user);
	if (need > left) {
		pmuscope_fmt(err, errlen,
			     "call chain at byte %zu: %u kernel and %u user frames (%llu bytes) in the record's %zu bytes left",
			     at, c->nr_kernel, c->nr_user, (unsigned long long)need, left);
		return -EBADMSG;
	}
	return 1;
}

int pmuscope_record_next(const void *buf, size_t len, size_t *off,
			 struct pmuscope_rec *rec, char *err, size_t errlen)
{
	const unsigned char *p = buf;
	struct pmuscope_record r;
	struct pmuscope_rec_chain c;
	size_t at = *off, left;
	uint64_t counts_end;

	if (at >= len)
		return 0;
	left = len - at;
	if (left < PMUSCOPE_REC_HEAD) {
		pmuscope_fmt(err, errlen,
			     "record at byte %zu cut short: %zu bytes left, a record has at least %d",
			     at, left, PMUSCOPE_REC_HEAD);
		return -EBADMSG;
	}
	memcpy(&r, p + at, sizeof(r));
	if (r.size < PMUSCOPE_REC_HEAD) {
		pmuscope_fmt(err, errlen, "record at byte %zu: size %u is below %d", at,
			     r.size, PMUSCOPE_REC_HEAD);
		return -EBADMSG;
	}
	if (r.size % 8) {
		pmuscope_fmt(err, errlen, "record at byte %zu: size %u is not a multiple of 8",
			     at, r.size);
		return -EBADMSG;
	}
	counts_end = PMUSCOPE_REC_HEAD + 8ULL * r.nr;
	if ((uint64_t)r.size < counts_end) {
		pmuscope_fmt(err, errlen,
			     "record at byte %zu: size %u does not hold its %u counts (%llu bytes)",
			     at, r.size, r.nr, (unsigned long long)counts_end);
		return -EBADMSG;
	}
	if (r.size > left) {
		pmuscope_fmt(err, errlen,
			     "record at byte %zu cut short: size %u, %zu bytes left", at, r.size,
			     left);
		return -EBADMSG;
	}
	if ((r.flags & PMUSCOPE_REC_F_CHAIN) &&
	    pmuscope_chain_parse(p + at + counts_end, r.size - counts_end, at + counts_end,
				 &c, err, errlen) < 0)
		return -EBADMSG;
	rec->type = r.type;
	rec->size = r.size;
	rec->cpu = r.cpu;
	rec->time = r.time;
	rec->pid = r.pid;
	rec->tid = r.tid;
	rec->pc = r.pc;
	rec->value = r.value;
	rec->flags = r.flags;
	rec->nr = r.nr;
	rec->counts = p + at + PMUSCOPE_REC_HEAD;
	*off = at + r.size;
	return 1;
}

int pmuscope_record_chain(const struct pmuscope_rec *rec, struct pmuscope_chain *chain)
{
	struct pmuscope_rec_chain c;
	uint64_t counts_end;
	int ret;

	if (!rec || !chain)
		return -EINVAL;
	memset(chain, 0, sizeof(*chain));
	if (!(rec->flags & PMUSCOPE_REC_F_CHAIN))
		return 0;
	counts_end = PMUSCOPE_REC_HEAD + 8ULL * rec->nr;
	if (!rec->counts || rec->size < counts_end)
		return -EBADMSG;
	/* The offset in messages is the record's own: no message is returned. */
	ret = pmuscope_chain_parse(rec->counts + 8 * (size_t)rec->nr, rec->size - counts_end,
				   counts_end, &c, NULL, 0);
	if (ret <= 0)
		return ret;
	chain->version = c.version;
	chain->flags = c.flags;
	chain->nr_kernel = c.nr_kernel;
	chain->nr_user = c.nr_user;
	chain->ips = rec->counts + 8 * (size_t)rec->nr + PMUSCOPE_CHAIN_HEAD;
	return 1;
}

uint64_t pmuscope_chain_ip(const struct pmuscope_chain *chain, unsigned int i)
{
	uint64_t v;

	if (!chain || !chain->ips || i >= (unsigned int)chain->nr_kernel + chain->nr_user)
		return 0;
	memcpy(&v, chain->ips + 8 * (size_t)i, sizeof(v));
	return v;
}

uint64_t pmuscope_rec_count(const struct pmuscope_rec *rec, unsigned int i)
{
	uint64_t v;

	if (i >= rec->nr)
		return 0;
	memcpy(&v, rec->counts + 8 * (size_t)i, sizeof(v));
	return v;
}

const char *pmuscope_rec_type_name(uint16_t type)
{
	switch (type) {
	case PMUSCOPE_REC_SAMPLE:
		return "sample";
	case PMUSCOPE_REC_LOST:
		return "lost";
	case PMUSCOPE_REC_THROTTLED:
		return "throttled";
	default:
		return "unknown";
	}
}

uint64_t pmuscope_counter_now(void)
{
#ifdef __aarch64__
	uint64_t v;

	asm volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
#endif
}

uint64_t pmuscope_counter_freq(void)
{
#ifdef __aarch64__
	uint64_t v;

	asm volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
#else
	return 0;
#endif
}

void pmuscope_flags_str(uint32_t flags, char *buf, size_t len)
{
	static const char * const names[] = {
		"lost", "throttled", "clobbered", "multiplexed", "offline",
	};
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (flags & (1U << i))
			off += snprintf(buf + off, off < len ? len - off : 0, "%s%s",
					off ? "," : "", names[i]);
}
