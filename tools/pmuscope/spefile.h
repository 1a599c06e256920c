/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: the file of pmuscope spe record (pmuscope-spe.data), read
 * by pmuscope spe report and dump. Little-endian; the layout is documented
 * in Documentation/spe-data.rst. A header (magic "PMSCSPE1", version,
 * sizes, the system counter's frequency, flags, the command line), then
 * the SPE chunks exactly as read() of the driver returns them (struct
 * pmuscope_spe_chunk, the data, zero padding to 8), then the
 * /proc/PID/maps text of the profiled command (maps_size bytes, padded).
 */
#ifndef PMUSCOPE_SPEFILE_H
#define PMUSCOPE_SPEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pmuscope.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the SPE file is little-endian and written and read as it is in memory"
#endif

#define SPEF_MAGIC		"PMSCSPE1"
#define SPEF_VERSION		1

/* Header flags. */
#define SPEF_SOURCE_KERNEL	(1U << 0)	/* the driver's SPE session */
#define SPEF_SOURCE_PERF	(1U << 1)	/* perf's arm_spe PMU */
#define SPEF_EMULATED		(1U << 2)	/* pmuscope_emu.ko: not hardware */
#define SPEF_FLAGS_ALL		(SPEF_SOURCE_KERNEL | SPEF_SOURCE_PERF | SPEF_EMULATED)

struct spef_header {
	char magic[8];			/* "PMSCSPE1" */
	uint32_t version;		/* SPEF_VERSION */
	uint32_t header_size;		/* bytes before the first chunk, multiple of 8 */
	uint64_t freq;			/* system counter, Hz; 0: unknown */
	uint64_t start_time;		/* system counter when recording started */
	uint32_t flags;			/* SPEF_* */
	uint32_t spe_flags;		/* PMUSCOPE_SPE_* asked for */
	uint32_t ops;			/* PMUSCOPE_SPE_OP_* filter; 0: every operation */
	uint32_t min_latency;		/* PMSLATFR_EL1.MINLAT asked for */
	uint64_t interval;		/* operations between samples; 0: the minimum */
	uint64_t events;		/* PMSEVFR_EL1 filter asked for */
	uint64_t data_size;		/* bytes of chunks; written at the end */
	uint32_t maps_size;		/* bytes of maps text after the chunks */
	uint32_t pid;			/* the profiled command's pid; 0: none */
	uint32_t finished;		/* 1: the recording ended and wrote this header */
	uint32_t argc;			/* strings of the command line */
	uint32_t cmdline_size;		/* their bytes, each NUL-terminated */
	uint32_t reserved;
};

#define SPEF_HEADER_FIXED	96	/* sizeof(struct spef_header) */
#define SPEF_CMDLINE_MAX	(1U << 20)
#define SPEF_MAPS_MAX		(64U << 20)

struct spef_writer {
	FILE *f;
	struct spef_header h;
	uint64_t chunks;
};

/* Create @path and write the header (finished 0). 0 or -errno, @err set. */
int spef_create(struct spef_writer *w, const char *path, const struct spef_header *h,
		int argc, char **argv, char *err, size_t errlen);
/* One chunk as the source gave it: header, @data, zero padding to @c->size. */
int spef_write_chunk(struct spef_writer *w, const struct pmuscope_spe_chunk *c,
		     const void *data);
/* The maps text, then the header again with data_size and finished set; closes. */
int spef_finish(struct spef_writer *w, uint32_t pid, const char *maps, size_t maps_len,
		char *err, size_t errlen);

/* A file read and checked whole. */
struct spef {
	struct spef_header h;
	char **argv;			/* h.argc strings (into @cmdline) */
	char *cmdline;
	unsigned char *file;		/* the whole file */
	size_t size;
	const unsigned char *chunks;	/* h.data_size bytes */
	const char *maps;		/* h.maps_size bytes, or NULL */
};

/*
 * Read @path whole (cli_read_input(): "-" is stdin, a pipe at most
 * CLI_INPUT_PIPE_MAX bytes, never mapped) and check everything: magic,
 * version, sizes, the command line, each chunk
 * (pmuscope_spe_chunk_next()), the padding, the total.
 * Return: 0, or -EBADMSG (not a valid file: @err says what and where),
 * -errno (cannot read it; -EISDIR a directory). @err names @path.
 */
int spef_read(const char *path, struct spef *s, char *err, size_t errlen);
/* The same on a file already in memory (@file is kept: freed by spef_free()). */
int spef_parse(unsigned char *file, size_t size, struct spef *s, char *err, size_t errlen);
void spef_free(struct spef *s);

#endif
