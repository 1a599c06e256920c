// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope spe record's first data source: the driver's SPE session
 * (PMUSCOPE_IOC_SPE_START on /dev/pmuscope) through libpmuscope. read()
 * gives whole chunks in the format spe_source.h hands over: they are
 * passed on as they are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmuscope.h"
#include "spe_source.h"

#define SPE_KERNEL_BUF	(1U << 20)	/* bytes per read(): many chunks */

struct spe_kernel {
	struct pmuscope *h;
	struct pmuscope_spe_config cfg;
	uint64_t cpus[SPE_MAX_CPUS / 64];
	unsigned char *buf;
	size_t room;
	int started;
};

static void spe_kernel_close(void *state)
{
	struct spe_kernel *k = state;

	if (!k)
		return;
	pmuscope_close(k->h);
	free(k->buf);
	free(k);
}

static int spe_kernel_open(const struct spe_opts *o, void **state, char *why, size_t whylen)
{
	struct spe_kernel *k;
	size_t words = SPE_MAX_CPUS / 64;
	char err[512];
	int ret;

	*state = NULL;
	if (o->pid > 0) {
		snprintf(why, whylen, "the driver profiles CPUs, not one task");
		return -EOPNOTSUPP;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	ret = pmuscope_open(&k->h, err, sizeof(err));
	if (ret) {
		snprintf(why, whylen, "%s", err);
		free(k);
		/* No driver, or one of another API: the next source may work. */
		return ret == -EPROTO || ret == -ENXIO ? -ENODEV : ret;
	}
	if (!(pmuscope_features(k->h) & PMUSCOPE_FEAT_SPE)) {
		snprintf(why, whylen,
			 "the pmuscope driver can profile no CPU with SPE (no PMUSCOPE_FEAT_SPE in its handshake)");
		spe_kernel_close(k);
		return -EOPNOTSUPP;
	}
	memcpy(k->cpus, o->cpus, sizeof(k->cpus));
	while (words > 1 && !k->cpus[words - 1])
		words--;
	k->room = SPE_KERNEL_BUF;
	k->buf = malloc(k->room);
	if (!k->buf) {
		spe_kernel_close(k);
		return -ENOMEM;
	}
	k->cfg.flags = o->flags;
	k->cfg.cpus = (uintptr_t)k->cpus;
	k->cfg.cpus_size = words * 8;
	k->cfg.ops = o->ops;
	k->cfg.interval = o->interval;
	k->cfg.events = o->events;
	k->cfg.nevents = o->nevents;
	k->cfg.min_latency = o->min_latency;
	k->cfg.buffer_kib = o->buffer_kib;
	k->cfg.hw_kib = o->hw_kib;
	/*
	 * Profiling starts here, with SPE_START: its refusals (no usable SPE
	 * on the CPUs asked for, another session on one of them) are what
	 * makes pmuscope try the next source.
	 */
	ret = pmuscope_spe_start(k->h, &k->cfg);
	if (ret) {
		snprintf(why, whylen, "%s", pmuscope_errmsg(k->h));
		spe_kernel_close(k);
		return ret;
	}
	k->started = 1;
	*state = k;
	return 0;
}

/* SPE_START in open() started profiling: nothing more to do. */
static int spe_kernel_enable(void *state)
{
	struct spe_kernel *k = state;

	return k->started ? 0 : -EINVAL;
}

static int spe_kernel_disable(void *state)
{
	struct spe_kernel *k = state;
	int ret;

	if (!k->started)
		return 0;
	ret = pmuscope_spe_stop(k->h);
	if (!ret)
		k->started = 0;
	return ret;
}

static int spe_kernel_drain(void *state, int timeout_ms, spe_emit_fn emit, void *ctx)
{
	struct spe_kernel *k = state;
	struct pmuscope_spe_chunk c;
	const unsigned char *data;
	char err[200];
	int n = 0, ret;

	/*
	 * Read while reads fill the buffer (more is waiting), a bounded number
	 * of times: a source that never runs dry must not keep the caller
	 * from its signals, deadline and command.
	 */
	for (int reads = 0; reads < 16; reads++) {
		size_t off = 0;
		ssize_t got = pmuscope_spe_read(k->h, k->buf, k->room, n ? 0 : timeout_ms);

		if (got == -ENOSPC && k->room < (64U << 20)) {
			unsigned char *nb = realloc(k->buf, k->room * 2);

			if (!nb)
				return -ENOMEM;
			k->buf = nb;
			k->room *= 2;
			continue;
		}
		if (got < 0)
			return got == -EINTR ? n : (int)got;
		if (!got)
			return n;
		while ((ret = pmuscope_spe_chunk_next(k->buf, got, &off, &c, &data, err,
						      sizeof(err))) == 1) {
			ret = emit(ctx, &c, data);
			if (ret < 0)
				return ret;
			n++;
		}
		if (ret < 0) {
			fprintf(stderr, "pmuscope: the driver's SPE data is malformed: %s\n", err);
			return -EPROTO;
		}
		if ((size_t)got < k->room / 2)
			break;
	}
	return n;
}

static int spe_kernel_status(void *state, struct pmuscope_spe_cpu *cpus, int n, uint64_t *freq)
{
	struct spe_kernel *k = state;

	return pmuscope_spe_status(k->h, cpus, n > 0 ? n : 0, freq);
}

const struct spe_source spe_source_kernel = {
	.name = "kernel",
	.open = spe_kernel_open,
	.enable = spe_kernel_enable,
	.disable = spe_kernel_disable,
	.drain = spe_kernel_drain,
	.status = spe_kernel_status,
	.close = spe_kernel_close,
};
