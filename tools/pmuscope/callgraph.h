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
#include <stdio.h>

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
	/* Added with the loader: */
	uint64_t throttled;		/* THROTTLED records */
	uint64_t records;		/* SAMPLE records in the file (before --pid) */
	int complete;			/* the file has its END chunk */
	int has_kallsyms;		/* kernel frames could be named (a KALLSYMS chunk) */
	uint32_t df_flags;		/* the file header's DF_F_* */
	/* What the load cost (PMUSCOPE_REPORT_COUNTS, the tests' bounds): */
	size_t nr_resolved;		/* addresses looked up in a file (elfutils) */
	uint64_t load_allocs;		/* the loader's malloc()s and realloc()s */
	uint64_t load_bytes;		/* and the bytes they hold, the file's copy excepted */
};

/* What cg_load() loads. */
struct cg_load_opts {
	const char *symfs;		/* a directory prefixed to every path; NULL */
	long pid;			/* that process's samples only; -1: all */
};

/*
 * Read record file @path into @p: every SAMPLE record with its chain (a
 * record without one: one frame, its PC), frames resolved and shared.
 * 0, or -errno with @err: -EBADMSG or -EPROTO, what is wrong in the file
 * (its byte offset); the others, the file cannot be read (@err names it,
 * df_open()) or no memory. Then cg_free() whatever happened.
 */
int cg_load(struct cg_profile *p, const char *path, const struct cg_load_opts *opts,
	    char *err, size_t errlen);
void cg_free(struct cg_profile *p);

/* The name to print for @s's thread: its comm, "swapper" (pid 0) or ":TID". */
const char *cg_comm(const struct cg_sample *s, char *buf, size_t len);
/* The recording's command line (pmuscope's argv), for headers. */
int cg_argv(const struct cg_profile *p, char ***argv);

/*
 * For the commands (builtin-script.c): cg_load() with the messages of
 * report (0, or the exit status after the message on stderr; cg_free()
 * after either), and one frame's line as perf script prints it.
 */
int cg_load_cli(struct cg_profile *p, const char *file, const struct cg_load_opts *o);

/*
 * A line of /proc/kallsyms (NUL-terminated) that names a kernel function
 * the reader keeps (types t, T, w, W; a non-zero address; a name of 1 to
 * 511 characters): 1, its address and where its name starts; else 0.
 * pmuscope record keeps the same lines (builtin-record.c).
 */
int cg_kallsyms_func(const char *line, uint64_t *addr, size_t *name_off);
void cg_print_frame(FILE *f, const struct cg_frame *fr);

#endif
