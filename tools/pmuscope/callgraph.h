/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: a recording's samples with their call chains resolved to
 * frames (function, offset, object), the model that report -g, script,
 * --folded, --flamegraph and --pprof print from. Built by cg_load() from
 * a record file (callgraph.c); the writers (flamegraph.c, pprof.c) only
 * read it.
 */
#ifndef PMUSCOPE_CALLGRAPH_H
#define PMUSCOPE_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#define CG_FRAME_KERNEL		(1U << 0)	/* a kernel address */
#define CG_FRAME_INLINED	(1U << 1)	/* a function inlined at @addr (debug info) */

/*
 * One frame, shared by every sample whose chain has it; its strings
 * belong to the profile. A frame nothing resolves has @sym NULL and
 * @dso "[unknown]".
 */
struct cg_frame {
	uint64_t addr;			/* as sampled: a user or kernel address */
	const char *sym;		/* the function; NULL: not known */
	uint64_t sym_off;		/* @addr's offset in @sym */
	const char *dso;		/* the object: a path, "[kernel.kallsyms]", "[unknown]" */
	uint64_t map_start;		/* its mapping (user frames): start, end and */
	uint64_t map_end;		/* file offset; 0 for kernel frames */
	uint64_t map_pgoff;
	const char *build_id;		/* the object's GNU build ID in hex; NULL: none */
	const char *src;		/* "file.c:12" where there is line information; NULL */
	uint32_t flags;			/* CG_FRAME_* */
	uint32_t id;			/* 1, 2, ...: the frame's number in the profile */
};

/* One sample: the frames of its chain, the leaf (where it was taken) first. */
struct cg_sample {
	uint32_t pid, tid, cpu;
	uint32_t event;			/* the sampled event: index into cg_profile.events */
	uint64_t time_ns;		/* since the recording started */
	uint64_t period;		/* events this sample stands for */
	const char *comm;		/* the thread's name; "" unknown */
	uint32_t nr;			/* frames in @frames */
	uint32_t flags;			/* PMUSCOPE_CHAIN_F_* of the record; 0 without a chain */
	const struct cg_frame **frames;
};

struct cg_event {
	const char *name;		/* CPU_CYCLES */
	const char *label;		/* cycles, as given to record */
};

struct cg_profile {
	const char *file;		/* the recording */
	uint32_t nr_events;
	struct cg_event *events;
	struct cg_sample *samples;
	size_t nr_samples;
	const struct cg_frame **frames;	/* every frame, by id - 1 */
	size_t nr_frames;
	uint64_t duration_ns;		/* first to last record */
	uint64_t lost;			/* records the kernel dropped */
	void *priv;			/* callgraph.c's own */
};

#endif
