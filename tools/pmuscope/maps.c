// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: the maps and names of a recording's processes (maps.h).
 *
 * Maps texts are kept as the file has them and cut into sorted lines the
 * first time a lookup needs them; chunks are sorted by process, then
 * time, then order in the file, so a process's chunks are one run.
 */
#define _GNU_SOURCE
#include <errno.h>
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

void maps_index_sort(struct maps_index *x)
{
	if (x->nmaps)
		qsort(x->maps, x->nmaps, sizeof(*x->maps), maps_cmp);
	if (x->ncomms)
		qsort(x->comms, x->ncomms, sizeof(*x->comms), comm_cmp);
}

static int ent_cmp(const void *a, const void *b)
{
	const struct maps_ent *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Cut a maps text into its lines: "start-end perms offset dev inode path". */
static int maps_parse(struct maps_chunk *m)
{
	size_t room = 0;
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
		m->ents[m->nents++] = (struct maps_ent){ start, end, off, path };
	}
	if (m->nents)
		qsort(m->ents, m->nents, sizeof(*m->ents), ent_cmp);
	return 0;
}

static const struct maps_ent *maps_find(struct maps_chunk *m, uint64_t pc)
{
	size_t lo = 0, hi;

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

/*
 * The maps valid at @time: first those taken at or after @time before
 * the next exec (an exit's maps also have the libraries loaded after the
 * exec's were taken), then those taken before it, back to the exec that
 * started the image; a sample before any maps of its process takes the
 * first ones after it.
 */
const struct maps_ent *maps_index_find(struct maps_index *x, uint32_t pid, uint64_t time,
				       uint64_t pc, int *any)
{
	size_t lo = 0, hi = x->nmaps, first, last, at;
	const struct maps_ent *e;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x->maps[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	last = first;
	while (last < x->nmaps && x->maps[last].pid == pid)
		last++;
	*any = last > first;
	if (!*any)
		return NULL;
	at = first;
	while (at < last && x->maps[at].time < time)
		at++;
	for (size_t i = at; i < last; i++) {
		/* A later image, unless the sample comes before any maps. */
		if (at > first && x->maps[i].reason == DF_MAPS_EXEC && x->maps[i].time > time)
			break;
		e = maps_find(&x->maps[i], pc);
		if (e)
			return e;
	}
	for (size_t i = at; i-- > first;) {
		e = maps_find(&x->maps[i], pc);
		if (e)
			return e;
		if (x->maps[i].reason == DF_MAPS_EXEC)
			break;			/* an earlier image */
	}
	return NULL;
}

const char *maps_index_comm(const struct maps_index *x, uint32_t pid, uint32_t tid,
			    uint64_t time)
{
	const struct maps_comm *best = NULL;
	size_t lo = 0, hi = x->ncomms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x->comms[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The thread's own name, then its process's main thread's, then any. */
	for (int pass = tid ? 0 : 1; pass < 3 && !best; pass++) {
		for (size_t i = lo; i < x->ncomms && x->comms[i].pid == pid; i++) {
			const struct maps_comm *c = &x->comms[i];

			if ((pass == 0 && c->tid != tid) || (pass == 1 && c->tid != pid))
				continue;
			if (!best || c->time <= time)
				best = c;	/* the latest at or before @time */
			else
				break;
		}
	}
	return best ? best->comm : NULL;
}

void maps_index_free(struct maps_index *x)
{
	for (size_t i = 0; i < x->nmaps; i++) {
		free(x->maps[i].copy);
		free(x->maps[i].ents);
	}
	free(x->maps);
	free(x->comms);
	memset(x, 0, sizeof(*x));
}
