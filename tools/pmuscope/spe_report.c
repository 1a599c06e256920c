// SPDX-License-Identifier: GPL-2.0
/* pmuscope spe report's arithmetic (spe_report.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spe_report.h"

const uint32_t spe_lat_edges[SPE_LAT_BUCKETS] = {
	0, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
};

int spe_stats_init(struct spe_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->pcs_room = 1024;
	s->pcs = calloc(s->pcs_room, sizeof(*s->pcs));
	s->cpu = calloc(SPE_REPORT_CPUS, sizeof(*s->cpu));
	if (!s->pcs || !s->cpu) {
		spe_stats_free(s);
		return -ENOMEM;
	}
	return 0;
}

void spe_stats_free(struct spe_stats *s)
{
	free(s->pcs);
	free(s->cpu);
	s->pcs = NULL;
	s->cpu = NULL;
}

unsigned int spe_lat_bucket(uint32_t lat)
{
	unsigned int b = 0;

	while (b + 1 < SPE_LAT_BUCKETS && lat >= spe_lat_edges[b + 1])
		b++;
	return b;
}

static size_t spe_pc_slot(const struct spe_pc *t, size_t room, uint64_t pc, uint8_t el)
{
	size_t i = (pc * 0x9e3779b97f4a7c15ULL ^ el) & (room - 1);

	while (t[i].count && (t[i].pc != pc || t[i].el != el))
		i = (i + 1) & (room - 1);
	return i;
}

static int spe_pc_add(struct spe_stats *s, uint64_t pc, uint8_t el)
{
	size_t i;

	if (2 * (s->nr_pcs + 1) > s->pcs_room) {
		size_t room = s->pcs_room * 2;
		struct spe_pc *t = calloc(room, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (size_t k = 0; k < s->pcs_room; k++)
			if (s->pcs[k].count)
				t[spe_pc_slot(t, room, s->pcs[k].pc, s->pcs[k].el)] = s->pcs[k];
		free(s->pcs);
		s->pcs = t;
		s->pcs_room = room;
	}
	i = spe_pc_slot(s->pcs, s->pcs_room, pc, el);
	if (!s->pcs[i].count) {
		s->pcs[i].pc = pc;
		s->pcs[i].el = el;
		s->nr_pcs++;
	}
	s->pcs[i].count++;
	return 0;
}

int spe_stats_record(struct spe_stats *s, const struct pmuscope_spe_record *r)
{
	int load = pmuscope_spe_op_is_load(r);

	s->bad_packets += r->bad;
	s->unknown_packets += r->unknown;
	if (!(r->valid & PMUSCOPE_SPE_R_END))
		s->partial++;
	if (r->valid & PMUSCOPE_SPE_R_CONTEXT)
		s->with_context++;
	if (s->pid_filter && (!(r->valid & PMUSCOPE_SPE_R_CONTEXT) || r->context != s->pid)) {
		s->filtered_out++;
		return 0;
	}
	s->records++;
	if (load)
		s->loads++;
	else if (pmuscope_spe_op_is_store(r))
		s->stores++;
	else if (pmuscope_spe_op_is_branch(r))
		s->branches++;
	else
		s->other++;
	if (r->valid & PMUSCOPE_SPE_R_PC) {
		s->el[r->el & 3]++;
		if (spe_pc_add(s, r->pc, r->el))
			return -ENOMEM;
	}
	if (load && (r->valid & PMUSCOPE_SPE_R_LAT_TOTAL)) {
		s->lat_hist[spe_lat_bucket(r->lat_total)]++;
		s->lat_loads++;
		s->lat_sum += r->lat_total;
		if (r->lat_total > s->lat_max)
			s->lat_max = r->lat_total;
	}
	if (r->valid & PMUSCOPE_SPE_R_EVENTS)
		for (unsigned int b = 0; b < SPE_EV_BITS; b++)
			if (r->events & (1ULL << b)) {
				s->ev[b]++;
				if (load)
					s->ev_loads[b]++;
			}
	if (load && (r->valid & PMUSCOPE_SPE_R_SOURCE)) {
		unsigned int i;

		s->src_loads++;
		for (i = 0; i < s->nr_src && s->src_value[i] != r->source; i++)
			;
		if (i < s->nr_src) {
			s->src_count[i]++;
		} else if (s->nr_src < SPE_SOURCES) {
			s->src_value[s->nr_src] = r->source;
			s->src_count[s->nr_src++] = 1;
		} else {
			s->src_other++;
		}
	}
	return 0;
}

int spe_stats_chunk(struct spe_stats *s, const struct pmuscope_spe_chunk *c,
		    const unsigned char *data)
{
	struct pmuscope_spe_record r;
	size_t off = 0;

	s->chunks++;
	s->data_bytes += c->data_size;
	s->lost_bytes += c->lost;
	for (unsigned int b = 0; b < 4; b++)
		if (c->flags & (1U << b))
			s->chunk_flags[b]++;
	if (c->cpu < SPE_REPORT_CPUS) {
		struct spe_cpu_acct *a = &s->cpu[c->cpu];

		a->chunks++;
		a->bytes += c->data_size;
		a->lost += c->lost;
		for (unsigned int b = 0; b < 4; b++)
			if (c->flags & (1U << b))
				a->flags[b]++;
	}
	while (pmuscope_spe_record_next(data, c->data_size, &off, &r) == 1) {
		int ret = spe_stats_record(s, &r);

		if (ret)
			return ret;
	}
	return 0;
}

static int spe_pc_cmp(const void *a, const void *b)
{
	const struct spe_pc *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return (int)x->el - (int)y->el;
}

size_t spe_stats_top(const struct spe_stats *s, struct spe_pc *out, size_t n)
{
	struct spe_pc *all = malloc((s->nr_pcs ? s->nr_pcs : 1) * sizeof(*all));
	size_t k = 0;

	if (!all)
		return 0;
	for (size_t i = 0; i < s->pcs_room; i++)
		if (s->pcs[i].count)
			all[k++] = s->pcs[i];
	qsort(all, k, sizeof(*all), spe_pc_cmp);
	if (n > k)
		n = k;
	memcpy(out, all, n * sizeof(*out));
	free(all);
	return n;
}
