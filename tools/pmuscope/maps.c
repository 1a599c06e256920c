// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: the maps and names of a recording's processes (maps.h).
 *
 * Maps texts are kept as the file has them and cut into sorted lines the
 * first time a lookup needs them; chunks are sorted by process, then
 * time, then order in the file, so a process's chunks are one run.
 *
 * Which chunk a lookup takes is the first, in an order that depends on
 * the sample's time, of a window of the run that has the address (see
 * maps_index_find()). A window is searched in O(log n): the run's chunks
 * are the leaves of a tree of fan-out MAPS_FANOUT whose every node has
 * the union of its chunks' mappings (sorted, merged ranges), so that a
 * node without the address is skipped whole. The unions take at most the
 * mappings' number of ranges a level, log16 of the chunks' number levels.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"
#include "maps.h"

struct maps_chunk {
	uint32_t pid;
	uint32_t reason;
	uint64_t time;
	size_t seq;			/* order in the file */
	const char *text;
	size_t len;
	size_t exec_before;		/* the last EXEC chunk at or before it (of its run) */
	size_t exec_after;		/* the first at or after it; its run's end: none */
	int parsed;
	char *copy;			/* the text, NUL-terminated, cut into paths */
	struct maps_ent *ents;
	size_t nents;
};

struct maps_comm {
	uint32_t pid, tid;
	uint64_t time;
	size_t seq;
	char comm[17];
};

#define MAPS_FANOUT	16
#define MAPS_LEVELS	16	/* 16^16 chunks: more than a size_t counts */

struct maps_range {
	uint64_t start, end;
};

/* The unions of the nodes of one level: node j's are @r[@at[j] .. @at[j + 1]). */
struct maps_level {
	size_t *at;
	struct maps_range *r;
};

struct maps_proc {
	uint32_t pid;
	size_t first, last;		/* its chunks: @maps[first .. last) */
	int built;			/* its tree: 0 not yet, 1 built */
	unsigned int nlevels;		/* levels 1 .. nlevels (0: the chunks) */
	struct maps_level lv[MAPS_LEVELS];
};

int maps_index_add(struct maps_index *x, uint32_t pid, uint32_t reason, uint64_t time,
		   const char *text, size_t len)
{
	if (x->nmaps == x->maps_room) {
		size_t n = x->maps_room ? 2 * x->maps_room : 64;
		struct maps_chunk *m = realloc(x->maps, n * sizeof(*m));

		if (!m)
			return -ENOMEM;
		x->maps = m;
		x->maps_room = n;
	}
	x->maps[x->nmaps++] = (struct maps_chunk){
		.pid = pid, .reason = reason, .time = time, .seq = ++x->seq,
		.text = text, .len = len,
	};
	return 0;
}

int maps_index_add_comm(struct maps_index *x, uint32_t pid, uint32_t tid, uint64_t time,
			const char *comm, size_t len)
{
	struct maps_comm *c;

	if (x->ncomms == x->comms_room) {
		size_t n = x->comms_room ? 2 * x->comms_room : 64;

		c = realloc(x->comms, n * sizeof(*c));
		if (!c)
			return -ENOMEM;
		x->comms = c;
		x->comms_room = n;
	}
	c = &x->comms[x->ncomms++];
	*c = (struct maps_comm){ .pid = pid, .tid = tid, .time = time, .seq = ++x->seq };
	memcpy(c->comm, comm, len < 16 ? len : 16);
	return 0;
}

static int maps_cmp(const void *a, const void *b)
{
	const struct maps_chunk *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int comm_cmp(const void *a, const void *b)
{
	const struct maps_comm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int comm_tid_cmp(const void *a, const void *b)
{
	const struct maps_comm *x = *(const struct maps_comm * const *)a;
	const struct maps_comm *y = *(const struct maps_comm * const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort the chunks and names, find each process's run and its execs: 0 or -ENOMEM. */
int maps_index_sort(struct maps_index *x)
{
	size_t n = 0;

	if (x->nmaps)
		qsort(x->maps, x->nmaps, sizeof(*x->maps), maps_cmp);
	if (x->ncomms)
		qsort(x->comms, x->ncomms, sizeof(*x->comms), comm_cmp);
	for (size_t i = 0; i < x->nmaps; i++)
		n += !i || x->maps[i].pid != x->maps[i - 1].pid;
	x->procs = calloc(n ? n : 1, sizeof(*x->procs));
	x->comm_tid = calloc(x->ncomms ? x->ncomms : 1, sizeof(*x->comm_tid));
	if (!x->procs || !x->comm_tid)
		return -ENOMEM;
	for (size_t i = 0; i < x->nmaps;) {
		struct maps_proc *p = &x->procs[x->nprocs++];
		size_t j = i, exec = i;

		p->pid = x->maps[i].pid;
		p->first = i;
		while (j < x->nmaps && x->maps[j].pid == p->pid)
			j++;
		p->last = j;
		for (size_t k = i; k < j; k++) {
			if (x->maps[k].reason == DF_MAPS_EXEC)
				exec = k;
			x->maps[k].exec_before = exec;
		}
		exec = j;
		for (size_t k = j; k-- > i;) {
			if (x->maps[k].reason == DF_MAPS_EXEC)
				exec = k;
			x->maps[k].exec_after = exec;
		}
		i = j;
	}
	for (size_t i = 0; i < x->ncomms; i++)
		x->comm_tid[i] = &x->comms[i];
	if (x->ncomms)
		qsort(x->comm_tid, x->ncomms, sizeof(*x->comm_tid), comm_tid_cmp);
	return 0;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct maps_ent *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->path < y->path ? -1 : x->path > y->path;	/* the line's order */
}

/*
 * Cut a maps text into its lines: "start-end perms offset dev inode path",
 * sorted by start. Lines overlapping an earlier one (no kernel prints
 * them) are dropped, so that a lookup's binary search and the unions
 * agree on every address.
 */
static int maps_parse(struct maps_chunk *m)
{
	size_t room = 0, kept = 0;
	char *line, *save = NULL;

	m->parsed = 1;
	m->copy = malloc(m->len + 1);
	if (!m->copy)
		return -ENOMEM;
	memcpy(m->copy, m->text, m->len);
	m->copy[m->len] = '\0';
	for (line = strtok_r(m->copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, off, inode;
		char perms[8];
		int n = 0;
		char *path, *del;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %n", &start, &end, perms, &off,
			   &inode, &n) < 5 || !n || end <= start)
			continue;
		path = line + n;
		while (*path == ' ')
			path++;
		if (strnlen(path, PATH_MAX) == PATH_MAX)
			continue;
		del = strstr(path, " (deleted)");
		if (del && !del[10])
			*del = '\0';
		if (m->nents == room) {
			struct maps_ent *e;

			room = room ? 2 * room : 32;
			e = realloc(m->ents, room * sizeof(*e));
			if (!e)
				return -ENOMEM;
			m->ents = e;
		}
		m->ents[m->nents++] = (struct maps_ent){ start, end, off, path, NULL };
	}
	if (m->nents)
		qsort(m->ents, m->nents, sizeof(*m->ents), ent_cmp);
	for (size_t i = 0; i < m->nents; i++)
		if (!kept || m->ents[i].start >= m->ents[kept - 1].end)
			m->ents[kept++] = m->ents[i];
	m->nents = kept;
	return 0;
}

static struct maps_ent *maps_find(struct maps_index *x, struct maps_chunk *m, uint64_t pc)
{
	size_t lo = 0, hi;

	x->probes++;
	if (!m->parsed && maps_parse(m))
		return NULL;
	hi = m->nents;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pc < m->ents[mid].start)
			hi = mid;
		else if (pc >= m->ents[mid].end)
			lo = mid + 1;
		else
			return &m->ents[mid];
	}
	return NULL;
}

/* ------------------------------------------------ the tree of a run */
static int range_cmp(const void *a, const void *b)
{
	const struct maps_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Sort and merge @n ranges at @r in place: their number after. */
static size_t ranges_merge(struct maps_range *r, size_t n)
{
	size_t k = 0;

	if (n > 1)
		qsort(r, n, sizeof(*r), range_cmp);
	for (size_t i = 0; i < n; i++) {
		if (k && r[i].start <= r[k - 1].end) {
			if (r[i].end > r[k - 1].end)
				r[k - 1].end = r[i].end;
		} else {
			r[k++] = r[i];
		}
	}
	return k;
}

static size_t span(unsigned int level)
{
	size_t s = 1;

	while (level--)
		s *= MAPS_FANOUT;
	return s;
}

static void proc_free(struct maps_proc *p)
{
	for (unsigned int k = 1; k <= p->nlevels; k++) {
		free(p->lv[k - 1].at);
		free(p->lv[k - 1].r);
	}
	p->nlevels = 0;
}

/*
 * Level @k (>= 1) of @p's tree from the level below (the chunks' mappings
 * for level 1): node j unites its MAPS_FANOUT children. 0 or -ENOMEM.
 */
static int proc_level(struct maps_index *x, struct maps_proc *p, unsigned int k)
{
	size_t n = p->last - p->first, nodes = (n + span(k) - 1) / span(k), total = 0, o = 0;
	struct maps_level *lv = &p->lv[k - 1], *below = k > 1 ? &p->lv[k - 2] : NULL;

	if (below)
		total = below->at[(n + span(k - 1) - 1) / span(k - 1)];
	else
		for (size_t i = p->first; i < p->last; i++)
			total += x->maps[i].nents;
	lv->at = calloc(nodes + 1, sizeof(*lv->at));
	lv->r = malloc((total ? total : 1) * sizeof(*lv->r));
	if (!lv->at || !lv->r) {
		free(lv->at);
		free(lv->r);
		return -ENOMEM;
	}
	for (size_t j = 0; j < nodes; j++) {
		size_t from = o;

		lv->at[j] = o;
		for (size_t c = j * MAPS_FANOUT; c < (j + 1) * MAPS_FANOUT; c++) {
			if (below) {
				if (c * span(k - 1) >= n)
					break;
				for (size_t i = below->at[c]; i < below->at[c + 1]; i++)
					lv->r[o++] = below->r[i];
			} else if (c < n) {
				const struct maps_chunk *m = &x->maps[p->first + c];

				for (size_t i = 0; i < m->nents; i++)
					lv->r[o++] = (struct maps_range){ m->ents[i].start,
									  m->ents[i].end };
			}
		}
		o = from + ranges_merge(lv->r + from, o - from);
	}
	lv->at[nodes] = o;
	return 0;
}

/* @p's chunks parsed and its tree built; without memory for it, none (a linear search). */
static void proc_build(struct maps_index *x, struct maps_proc *p)
{
	size_t n = p->last - p->first;

	p->built = 1;
	for (size_t i = p->first; i < p->last; i++)
		if (!x->maps[i].parsed && maps_parse(&x->maps[i]))
			return;
	for (unsigned int k = 1; k < MAPS_LEVELS && span(k) <= n; k++) {
		if (proc_level(x, p, k)) {
			proc_free(p);
			return;
		}
		p->nlevels = k;
	}
}

/* Node @j of level @k (>= 1) of @p has @pc in its union. */
static int node_has(struct maps_index *x, const struct maps_proc *p, unsigned int k, size_t j,
		    uint64_t pc)
{
	const struct maps_level *lv = &p->lv[k - 1];
	size_t lo = lv->at[j], hi = lv->at[j + 1];

	x->probes++;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pc < lv->r[mid].start)
			hi = mid;
		else if (pc >= lv->r[mid].end)
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/*
 * The mapping of @pc in the first chunk of @p's [@a, @b) (run-relative)
 * that has one (@down: the last): the largest whole node at the current
 * chunk is skipped when its union lacks @pc, else entered.
 */
static struct maps_ent *proc_search(struct maps_index *x, const struct maps_proc *p, size_t a,
				    size_t b, uint64_t pc, int down)
{
	unsigned int cap = p->nlevels;
	size_t i = down ? b : a;

	while (down ? i > a : i < b) {
		unsigned int k = 0;
		size_t s, node;

		/* The largest node that starts (ends, @down) at i within [a, b). */
		while (k < cap && i % span(k + 1) == 0 &&
		       (down ? i - a >= span(k + 1) : b - i >= span(k + 1)))
			k++;
		s = span(k);
		node = (down ? i - s : i) / s;
		if (k && node_has(x, p, k, node, pc)) {
			cap = k - 1;
			continue;
		}
		if (!k) {
			struct maps_ent *e = maps_find(x, &x->maps[p->first + node], pc);

			if (e)
				return e;
		}
		i = down ? i - s : i + s;
		cap = p->nlevels;
	}
	return NULL;
}

/*
 * The maps valid at @time: first those taken at or after @time before
 * the next exec (an exit's maps also have the libraries loaded after the
 * exec's were taken), then those taken before it, back to the exec that
 * started the image; a sample before any maps of its process takes the
 * first ones after it.
 */
struct maps_ent *maps_index_find(struct maps_index *x, uint32_t pid, uint64_t time, uint64_t pc,
				 int *any)
{
	size_t lo = 0, hi = x->nprocs, first, last, at, gt, end;
	struct maps_ent *e;
	struct maps_proc *p;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*any = lo < x->nprocs && x->procs[lo].pid == pid;
	if (!*any)
		return NULL;
	p = &x->procs[lo];
	first = p->first;
	last = p->last;
	if (!p->built)
		proc_build(x, p);
	/* at: the first chunk taken at or after @time; gt: after it. */
	for (lo = first, hi = last; lo < hi;) {
		size_t mid = (lo + hi) / 2;

		if (x->maps[mid].time < time)
			lo = mid + 1;
		else
			hi = mid;
	}
	at = lo;
	for (hi = last; lo < hi;) {
		size_t mid = (lo + hi) / 2;

		if (x->maps[mid].time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	gt = lo;
	/* Up to a later image (an exec after @time), unless the sample comes before any maps. */
	end = at == first || gt == last ? last : x->maps[gt].exec_after;
	e = proc_search(x, p, at - first, end - first, pc, 0);
	if (e || at == first)
		return e;
	/* Then back to the exec that started the image (that chunk included). */
	return proc_search(x, p, x->maps[at - 1].exec_before - first, at - first, pc, 1);
}

/* In @v[@lo .. @hi), sorted by time: the last at or before @time, else the first. */
static const struct maps_comm *comm_pick(struct maps_comm *const *v, size_t lo, size_t hi,
					 uint64_t time)
{
	size_t first = lo;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (v[mid]->time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return v[lo > first ? lo - 1 : first];
}

const char *maps_index_comm(const struct maps_index *x, uint32_t pid, uint32_t tid,
			    uint64_t time)
{
	size_t lo, hi, end;

	/* The thread's own name, then its process's main thread's: by pid, tid, time. */
	for (int pass = tid ? 0 : 1; pass < 2; pass++) {
		uint32_t want = pass ? pid : tid;

		for (lo = 0, hi = x->ncomms; lo < hi;) {
			size_t mid = (lo + hi) / 2;
			const struct maps_comm *c = x->comm_tid[mid];

			if (c->pid < pid || (c->pid == pid && c->tid < want))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (end = x->ncomms, hi = lo; hi < end;) {
			size_t mid = (hi + end) / 2;
			const struct maps_comm *c = x->comm_tid[mid];

			if (c->pid == pid && c->tid == want)
				hi = mid + 1;
			else
				end = mid;
		}
		if (hi > lo)
			return comm_pick(x->comm_tid, lo, hi, time)->comm;
	}
	/* Then any of its threads': by pid, time. */
	for (lo = 0, hi = x->ncomms; lo < hi;) {
		size_t mid = (lo + hi) / 2;

		if (x->comms[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = x->ncomms, hi = lo; hi < end;) {
		size_t mid = (hi + end) / 2;

		if (x->comms[mid].pid == pid)
			hi = mid + 1;
		else
			end = mid;
	}
	if (hi == lo)
		return NULL;
	for (end = hi, hi = lo; hi < end;) {
		size_t mid = (hi + end) / 2;

		if (x->comms[mid].time <= time)
			hi = mid + 1;
		else
			end = mid;
	}
	return x->comms[hi > lo ? hi - 1 : lo].comm;
}

void maps_index_free(struct maps_index *x)
{
	for (size_t i = 0; i < x->nmaps; i++) {
		free(x->maps[i].copy);
		free(x->maps[i].ents);
	}
	for (size_t i = 0; i < x->nprocs; i++)
		proc_free(&x->procs[i]);
	free(x->procs);
	free(x->comm_tid);
	free(x->maps);
	free(x->comms);
	memset(x, 0, sizeof(*x));
}
