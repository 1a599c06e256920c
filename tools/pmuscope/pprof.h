/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: a call-graph profile (callgraph.h) as pprof's
 * profile.proto (github.com/google/pprof, proto/profile.proto), gzipped,
 * as `go tool pprof`, Parca and Pyroscope read it.
 */
#ifndef PMUSCOPE_PPROF_H
#define PMUSCOPE_PPROF_H

#include <stddef.h>
#include <stdio.h>

#include "callgraph.h"

/*
 * Write @p to @path (created or truncated) as a gzipped profile.proto:
 * one sample type per recorded event (its label, unit "count"), each
 * sample's period in its event's column and 0 in the others; a location
 * per frame (a frame CG_FRAME_INLINED and the frames after it at the same
 * address, up to the first that is not inlined, make one location,
 * innermost line first), functions
 * (name, source file and line where known), mappings (start, limit,
 * offset, object, build ID), and pid, tid, cpu (numbers) and comm
 * (string) labels. Returns 0, or -1 with a message in @err.
 */
int cg_pprof_write(const char *path, const struct cg_profile *p, char *err, size_t errlen);

/*
 * The gzip container (RFC 1952) of @len bytes at @data with stored
 * deflate blocks, appended to @f: what cg_pprof_write() writes. 0, or -1
 * on a write error (errno set).
 */
int cg_gzip_stored(FILE *f, const void *data, size_t len);

#endif
