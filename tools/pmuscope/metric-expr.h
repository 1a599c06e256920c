/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: perf's metric expressions (MetricExpr of the pmu-events
 * JSON), parsed once and evaluated on counts.
 *
 * The syntax is that of perf's tools/perf/util/expr.y as the arm64 JSON
 * uses it: numbers (1, 2.5, 1e3), identifiers (event names, in any case,
 * or other metrics' names), + - * / %, unary minus, parentheses, the
 * comparisons < >, the logical | & ^ (0 or 1), "A if COND else B",
 * min(A, B), max(A, B), d_ratio(A, B) (0 when B is 0), the literal
 * #slots, strcmp_cpuid_str(0xMIDR), duration_time and NaN. What perf has
 * and the arm64 JSON does not use (other #literals, source_count(),
 * has_event(), PMU@term@ event syntax, escapes) is refused with the
 * offset. Division by 0 gives NaN ("not counted"), as in perf.
 */
#ifndef PMUSCOPE_METRIC_EXPR_H
#define PMUSCOPE_METRIC_EXPR_H

#include <stddef.h>
#include <stdint.h>

struct mexpr;

/* Where an evaluation takes its values from. */
struct mexpr_env {
	/* An identifier's value (event count, another metric): NaN if unknown. */
	double (*id_value)(void *arg, const char *name);
	double slots;			/* #slots: NaN if unknown */
	uint32_t midr;			/* strcmp_cpuid_str(): 0 if unknown */
	double duration_s;		/* duration_time */
	void *arg;
};

/*
 * Parse @text: the expression, or NULL with "offset N: what" in @err
 * (N: the byte offset in @text where it went wrong; -ENOMEM aside).
 */
struct mexpr *mexpr_parse(const char *text, char *err, size_t errlen);
void mexpr_free(struct mexpr *e);
/* Its distinct identifiers (events and metrics), in order of appearance. */
unsigned int mexpr_nids(const struct mexpr *e);
const char *mexpr_id(const struct mexpr *e, unsigned int i);
/* Its value under @env: NaN where an input is unknown or a divisor is 0. */
double mexpr_eval(const struct mexpr *e, const struct mexpr_env *env);
/*
 * perf's strcmp_cpuid_str() true: @midr is the part of @want (implementer,
 * architecture, part number) at its revision or a later one.
 */
int mexpr_cpuid_match(uint32_t want, uint32_t midr);

#endif
