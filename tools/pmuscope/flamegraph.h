/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: a call-graph profile (callgraph.h) as an interactive SVG
 * flame graph, as flamegraph.pl draws them: the merged call tree of one
 * event's samples, callers at the bottom, each function's width its share
 * of the event's period. Self-contained (inline style and script): it opens
 * in any browser from a file, hover shows function and count, click zooms.
 */
#ifndef PMUSCOPE_FLAMEGRAPH_H
#define PMUSCOPE_FLAMEGRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "callgraph.h"

/* Frames deeper than this from the root are cut (the subtitle says so). */
#define CG_FLAME_MAX_DEPTH	1024
/* Names longer than this (in characters) are cut, with "..". */
#define CG_FLAME_MAX_NAME	1000

/*
 * Write the flame graph of @p's samples of event @event (an index into
 * p->events) to @f. Widths are the samples' periods summed, or the samples
 * counted where no sample has a period; the subtitle says which. Frames
 * under 0.1% of the total are left out (the subtitle says how many).
 * @title: the graph's heading; NULL: "Flame graph: <event label>".
 * Returns 0, or -1 with a message in @err (a bad event, no memory, a write
 * error).
 */
int cg_flamegraph_write(FILE *f, const struct cg_profile *p, uint32_t event,
			const char *title, char *err, size_t errlen);

#endif
