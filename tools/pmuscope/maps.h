/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: the processes of a recording, from its MAPS and COMM
 * chunks: which file (and offset) a user address of a process was at a
 * given time, and a thread's or process's name then. report and the
 * call-graph loader (callgraph.c) share it.
 */
#ifndef PMUSCOPE_MAPS_H
#define PMUSCOPE_MAPS_H

#include <stddef.h>
#include <stdint.h>

/* One line of /proc/PID/maps. */
struct maps_ent {
	uint64_t start, end, pgoff;
	const char *path;		/* "" for an anonymous mapping */
	const char *ipath;		/* the caller's: callgraph.c's interned @path; NULL */
};

struct maps_chunk;
struct maps_comm;
struct maps_proc;

struct maps_index {
	struct maps_chunk *maps;
	size_t nmaps, maps_room;
	struct maps_comm *comms;
	size_t ncomms, comms_room;
	size_t seq;			/* chunks added: their order in the file */
	/* Built by maps_index_sort(): */
	struct maps_proc *procs;	/* a process's run of @maps, by pid */
	size_t nprocs;
	struct maps_comm **comm_tid;	/* @comms by pid, tid, time, order */
	/*
	 * The work of the lookups: chunks and unions of chunks searched (each
	 * a binary search). The tests' measure that a lookup is O(log n).
	 */
	uint64_t probes;
};

/*
 * Add a MAPS chunk's text (@text, @len bytes: not copied, it must
 * outlive @x) or a COMM chunk's name, in file order; maps_index_sort()
 * once all are in, before any lookup. 0 or -ENOMEM. A line of a maps
 * text whose path is longer than PATH_MAX - 1 bytes (no kernel prints
 * one) is skipped, as a malformed line is.
 */
int maps_index_add(struct maps_index *x, uint32_t pid, uint32_t reason, uint64_t time,
		   const char *text, size_t len);
int maps_index_add_comm(struct maps_index *x, uint32_t pid, uint32_t tid, uint64_t time,
			const char *comm, size_t len);
int maps_index_sort(struct maps_index *x);

/*
 * The mapping of @pc in process @pid at @time (see maps.c for which maps
 * are valid then). NULL when @pid has no maps (*@any = 0) or none has @pc.
 * O(log n) in the process's MAPS chunks (a tree of their mappings' unions,
 * built at the process's first lookup), whatever their number.
 */
struct maps_ent *maps_index_find(struct maps_index *x, uint32_t pid, uint64_t time, uint64_t pc,
				 int *any);

/*
 * The name of thread @tid of @pid at @time (@tid 0: of the process: its
 * main thread's, else any of its threads'), NULL when the recording has
 * none. The latest at or before @time, else the first after it.
 */
const char *maps_index_comm(const struct maps_index *x, uint32_t pid, uint32_t tid,
			    uint64_t time);

void maps_index_free(struct maps_index *x);

#endif
