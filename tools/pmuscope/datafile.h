/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: the file of pmuscope record (pmuscope.data), read by
 * pmuscope report. Little-endian, versioned; the layout is documented in
 * Documentation/cli.rst ("The record file"). A header (magic, version, the
 * system counter's frequency, the events, the command line), then typed
 * chunks, each a multiple of 8 bytes: the kernel's records unchanged,
 * /proc/PID/maps texts, thread names, exits, /proc/kallsyms, and an END
 * summary. Version 2 added the header's flags and max_stack (call chains,
 * per-task sampling) and the KALLSYMS chunk; version 1 files stay readable.
 */
#ifndef PMUSCOPE_DATAFILE_H
#define PMUSCOPE_DATAFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmuscope.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the record file is little-endian and written and read as it is in memory"
#endif

#define DF_MAGIC		"PMUSDATA"
#define DF_VERSION		2
#define DF_VERSION_MIN		1	/* the oldest version df_open() reads */

/* Chunk types. */
#define DF_CHUNK_RECORDS	1	/* the kernel's records, as read() gave them */
#define DF_CHUNK_MAPS		2	/* /proc/PID/maps of a process */
#define DF_CHUNK_COMM		3	/* a thread's name */
#define DF_CHUNK_EXIT		4	/* a traced thread ended */
#define DF_CHUNK_END		5	/* the summary: the recording finished */
#define DF_CHUNK_KALLSYMS	6	/* /proc/kallsyms at the end (version 2) */

/* Header flags (version 2). */
#define DF_F_CALLCHAIN		(1U << 0)	/* SAMPLE records may carry call chains */
#define DF_F_TASK		(1U << 1)	/* tasks were sampled (the command, -p, -t), not CPUs */
#define DF_F_ALL		(DF_F_CALLCHAIN | DF_F_TASK)

/* Why a MAPS chunk was taken. */
#define DF_MAPS_EXEC		1	/* at the exec stop: the new image */
#define DF_MAPS_EXIT		2	/* at the exit stop, before it is gone */
#define DF_MAPS_END		3	/* at the end of the recording (alive) */
#define DF_MAPS_ATTACH		4	/* at the start, of a process of -p or -t (version 2) */

/* On disk, in this order. */
struct df_header {
	char magic[8];			/* "PMUSDATA" */
	uint32_t version;		/* DF_VERSION */
	uint32_t header_size;		/* bytes before the first chunk, multiple of 8 */
	uint64_t freq;			/* system counter, Hz; 0: unknown */
	uint64_t start_time;		/* system counter when recording started */
	uint32_t nr_events;		/* 1 .. PMUSCOPE_MAX_EVENTS */
	uint32_t kernel_el;		/* 1, or 2 on a VHE host: what "k" meant */
	uint32_t period_ms;		/* time-based records every N ms; 0: none */
	uint32_t sample_index;		/* sampled event; PMUSCOPE_STREAM_NO_EVENT: none */
	uint64_t sample_period;		/* events between event-based records */
	uint32_t argc;			/* strings of the command line */
	uint32_t cmdline_size;		/* their bytes, each NUL-terminated */
	/* Version 2: a version-1 header ends here (64 bytes). */
	uint32_t flags;			/* DF_F_* */
	uint32_t max_stack;		/* DF_F_CALLCHAIN: frames at most, 1 .. 127; else 0 */
	uint64_t reserved[2];		/* zero */
};

#define DF_HEADER_V1_SIZE	64

struct df_event {
	uint32_t number;		/* event number */
	uint32_t flags;			/* PMUSCOPE_EV_* */
	char name[40];			/* CPU_CYCLES, NUL-terminated */
	char label[40];			/* cycles, as given */
	uint64_t reserved;
};

struct df_chunk {
	uint32_t type;			/* DF_CHUNK_* */
	uint32_t size;			/* bytes of the chunk, this header included */
};

struct df_maps {
	uint32_t pid;
	uint32_t reason;		/* DF_MAPS_* */
	uint64_t time;			/* system counter when read */
	uint32_t text_size;		/* bytes of text that follow */
	uint32_t reserved;
};

struct df_comm {
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
	char comm[16];			/* NUL-padded */
};

struct df_exit {
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
	int32_t status;			/* exit code, or 128 + signal */
	uint32_t reserved;
};

/* KALLSYMS: the text of /proc/kallsyms as the recording's user read it. */
struct df_kallsyms {
	uint64_t time;			/* system counter when read */
	uint32_t text_size;		/* bytes of text that follow */
	uint32_t reserved;
};

struct df_end {
	uint64_t time;
	uint64_t samples;		/* SAMPLE records written */
	uint64_t lost;			/* records dropped: sum of the LOST values */
	uint64_t throttled;		/* THROTTLED records */
};

/* What the header says, in memory. */
struct df_info {
	unsigned int version;		/* of the file read; df_create() writes DF_VERSION */
	uint64_t freq;
	uint64_t start_time;
	unsigned int nr_events;
	struct pmuscope_event_spec evs[PMUSCOPE_MAX_EVENTS];
	unsigned int kernel_el;
	unsigned int period_ms;
	unsigned int sample_index;
	uint64_t sample_period;
	int argc;
	char **argv;
	uint32_t flags;			/* DF_F_*; 0 in a version-1 file */
	uint32_t max_stack;		/* DF_F_CALLCHAIN: 1 .. PMUSCOPE_STACK_MAX; else 0 */
};

struct df_writer {
	FILE *f;
	const char *path;
	int failed;			/* errno of the first failure */
};

int df_create(struct df_writer *w, const char *path, const struct df_info *info);
int df_write_records(struct df_writer *w, const void *buf, size_t len);
int df_write_maps(struct df_writer *w, uint32_t pid, uint32_t reason, uint64_t time,
		  const char *text, size_t len);
int df_write_comm(struct df_writer *w, uint32_t pid, uint32_t tid, uint64_t time,
		  const char *comm);
int df_write_exit(struct df_writer *w, uint32_t pid, uint32_t tid, uint64_t time,
		  int status);
/* The text of /proc/kallsyms (only when it shows real addresses: the caller checks). */
int df_write_kallsyms(struct df_writer *w, uint64_t time, const char *text, size_t len);
int df_write_end(struct df_writer *w, const struct df_end *end);
/* 0, or -errno of the first failure of any write (the message is the caller's). */
int df_finish(struct df_writer *w);

/* A file read whole (in memory). */
struct df_file {
	const unsigned char *data;
	size_t size;
	struct df_info info;
	size_t first_chunk;		/* offset of the first chunk */
	int owned;			/* df_open(): @data is malloc'ed, df_close() frees it */
};

/* One chunk: its type, where it is, its payload after the chunk header. */
struct df_view {
	uint32_t type;
	size_t offset;			/* of the chunk in the file */
	const unsigned char *payload;
	size_t len;			/* of the payload */
};

/*
 * @path read whole into memory (cli_read_input(): "-" is stdin, a pipe at
 * most CLI_INPUT_PIPE_MAX bytes, never mapped): 0, or -errno with @err:
 * cannot read it (@err names @path), not a record file, a bad header
 * (-EBADMSG, -EPROTO: @err does not name it).
 */
int df_open(struct df_file *df, const char *path, char *err, size_t errlen);
/* From memory (the unit tests): @data must outlive @df; df_close() after. */
int df_open_mem(struct df_file *df, const void *data, size_t size, char *err, size_t errlen);
/*
 * The chunk at *@off: 1 (and *@off after it), 0 at the end, -EBADMSG
 * with @err naming the chunk's offset (cut short, a bad size, a payload
 * too short for its type, a text longer than its chunk). Chunks of
 * unknown types are returned as they are: the caller skips them.
 */
int df_next(const struct df_file *df, size_t *off, struct df_view *c, char *err, size_t errlen);
void df_close(struct df_file *df);
/*
 * The records of RECORDS chunk @c of @df, the one check every reader of
 * the file makes before it uses them (report, script, report -g and the
 * profile writers): each record well-formed (pmuscope_record_next()), a
 * sample with at most PMUSCOPE_MAX_EVENTS counts, a call chain only in a
 * file whose header says it has them (DF_F_CALLCHAIN) and of at most the
 * header's max_stack frames, kernel and user together (what record asked
 * the driver for: a longer chain is not a recording's). 0, or -EBADMSG
 * with why in @err: "records chunk at byte N: record at byte M: ..." for
 * a malformed record (M in the chunk's payload), "record at offset N:
 * call chain of F frames, more than the header's max_stack S" (N in the
 * file) for a chain too long.
 */
int df_check_records(const struct df_file *df, const struct df_view *c, char *err,
		     size_t errlen);

#endif
