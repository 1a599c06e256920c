// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: perf's metric expressions, a recursive-descent parser with
 * perf's precedence (tools/perf/util/expr.y, lowest first: if-else, |, ^,
 * &, < >, + -, * / %, unary minus) into a tree, and its evaluation.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metric-expr.h"

#define MEXPR_MAX_DEPTH		64	/* nesting: parentheses, operators */
#define MEXPR_MAX_NODES		1024
#define MEXPR_MAX_IDS		64

enum mexpr_op {
	MX_NUM, MX_ID, MX_SLOTS, MX_DURATION, MX_CPUID,
	MX_NEG, MX_ADD, MX_SUB, MX_MUL, MX_DIV, MX_MOD, MX_LT, MX_GT,
	MX_OR, MX_AND, MX_XOR, MX_IF, MX_MIN, MX_MAX, MX_DRATIO,
};

struct mexpr_node {
	enum mexpr_op op;
	int a, b, c;			/* operands: node indexes */
	double num;			/* MX_NUM */
	unsigned int id;		/* MX_ID: index in ids[] */
	uint32_t midr;			/* MX_CPUID */
};

struct mexpr {
	struct mexpr_node *nodes;
	unsigned int nnodes, root;
	char *ids[MEXPR_MAX_IDS];
	unsigned int nids;
};

struct mexpr_parser {
	const char *text;
	size_t pos;
	struct mexpr *e;
	int depth;
	char *err;
	size_t errlen;
	int failed;
};

static int mx_fail(struct mexpr_parser *p, size_t at, const char *fmt, ...)
{
	char msg[192];
	va_list ap;

	if (p->failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(p->err, p->errlen, "offset %zu: %s", at, msg);
	p->failed = 1;
	return -1;
}

static void mx_space(struct mexpr_parser *p)
{
	while (isspace((unsigned char)p->text[p->pos]))
		p->pos++;
}

static int mx_node(struct mexpr_parser *p, enum mexpr_op op, int a, int b, int c)
{
	struct mexpr_node *n;

	if (p->e->nnodes == MEXPR_MAX_NODES)
		return mx_fail(p, p->pos, "expression too long (more than %d terms)",
			       MEXPR_MAX_NODES);
	n = &p->e->nodes[p->e->nnodes];
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->a = a;
	n->b = b;
	n->c = c;
	return p->e->nnodes++;
}

static int mx_is_id_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '.';
}

/* The word at the cursor (identifier characters), its length; 0 if none. */
static size_t mx_word(const struct mexpr_parser *p)
{
	size_t n = 0;

	if (!isalpha((unsigned char)p->text[p->pos]) && p->text[p->pos] != '_')
		return 0;
	while (mx_is_id_char(p->text[p->pos + n]))
		n++;
	return n;
}

static int mx_word_is(const struct mexpr_parser *p, const char *kw)
{
	size_t n = mx_word(p);

	return n == strlen(kw) && !strncmp(p->text + p->pos, kw, n);
}

static int mx_expect(struct mexpr_parser *p, char ch, const char *after)
{
	mx_space(p);
	if (p->text[p->pos] != ch) {
		if (!p->text[p->pos])
			return mx_fail(p, p->pos, "expected '%c' %s, found the end", ch, after);
		return mx_fail(p, p->pos, "expected '%c' %s, found '%c'", ch, after,
			       p->text[p->pos]);
	}
	p->pos++;
	return 0;
}

static int mx_binary(struct mexpr_parser *p, int level);
static int mx_if(struct mexpr_parser *p);

/* min(A, B), max(A, B), d_ratio(A, B): the cursor after the name. */
static int mx_func2(struct mexpr_parser *p, enum mexpr_op op, const char *name)
{
	char after[48];
	int a, b;

	snprintf(after, sizeof(after), "after %s", name);
	if (mx_expect(p, '(', after))
		return -1;
	a = mx_binary(p, 0);
	if (a < 0)
		return -1;
	snprintf(after, sizeof(after), "between the arguments of %s()", name);
	if (mx_expect(p, ',', after))
		return -1;
	b = mx_binary(p, 0);
	if (b < 0)
		return -1;
	snprintf(after, sizeof(after), "to close %s()", name);
	if (mx_expect(p, ')', after))
		return -1;
	return mx_node(p, op, a, b, -1);
}

/* strcmp_cpuid_str(0xMIDR): the cursor after the name. */
static int mx_cpuid(struct mexpr_parser *p)
{
	unsigned long long v;
	char *end;
	size_t at;
	int n;

	if (mx_expect(p, '(', "after strcmp_cpuid_str"))
		return -1;
	mx_space(p);
	at = p->pos;
	if (strncasecmp(p->text + at, "0x", 2) || !isxdigit((unsigned char)p->text[at + 2]))
		return mx_fail(p, at, "strcmp_cpuid_str() takes a MIDR in hexadecimal (0x410fd490)");
	errno = 0;
	v = strtoull(p->text + at, &end, 16);
	if (errno || v > 0xffffffffULL)
		return mx_fail(p, at, "MIDR out of range (32 bits)");
	p->pos = end - p->text;
	if (mx_expect(p, ')', "to close strcmp_cpuid_str()"))
		return -1;
	n = mx_node(p, MX_CPUID, -1, -1, -1);
	if (n >= 0)
		p->e->nodes[n].midr = v;
	return n;
}

static int mx_ident(struct mexpr_parser *p, size_t len)
{
	const char *s = p->text + p->pos;
	struct mexpr *e = p->e;
	unsigned int i;
	int n;

	if (p->text[p->pos + len] == '@' || p->text[p->pos + len] == '\\' ||
	    p->text[p->pos + len] == ':')
		return mx_fail(p, p->pos + len,
			       "'%c' in an event name: perf's PMU@term@ syntax and escapes are not supported",
			       p->text[p->pos + len]);
	for (i = 0; i < e->nids; i++)
		if (strlen(e->ids[i]) == len && !strncmp(e->ids[i], s, len))
			break;
	if (i == e->nids) {
		if (e->nids == MEXPR_MAX_IDS)
			return mx_fail(p, p->pos, "more than %d names", MEXPR_MAX_IDS);
		e->ids[i] = strndup(s, len);
		if (!e->ids[i])
			return mx_fail(p, p->pos, "out of memory");
		e->nids++;
	}
	p->pos += len;
	n = mx_node(p, MX_ID, -1, -1, -1);
	if (n >= 0)
		e->nodes[n].id = i;
	return n;
}

/* A number, as perf's lexer: 12, 1.5, .5, 2., 1e3, 1e-3. */
static int mx_number(struct mexpr_parser *p)
{
	const char *s = p->text + p->pos;
	size_t n = 0, digits = 0;
	char buf[64];
	int node;

	while (isdigit((unsigned char)s[n])) {
		n++;
		digits++;
	}
	if (s[n] == '.')
		n++;
	while (isdigit((unsigned char)s[n])) {
		n++;
		digits++;
	}
	if (!digits)
		return mx_fail(p, p->pos, "expected a number");
	if (s[n] == 'e' && (isdigit((unsigned char)s[n + 1]) ||
			    (s[n + 1] == '-' && isdigit((unsigned char)s[n + 2])))) {
		n += s[n + 1] == '-' ? 2 : 1;
		while (isdigit((unsigned char)s[n]))
			n++;
	}
	if (mx_is_id_char(s[n]))
		return mx_fail(p, p->pos + n, "unexpected '%c' after a number", s[n]);
	if (n >= sizeof(buf))
		return mx_fail(p, p->pos, "number too long");
	memcpy(buf, s, n);
	buf[n] = '\0';
	node = mx_node(p, MX_NUM, -1, -1, -1);
	if (node >= 0)
		p->e->nodes[node].num = strtod(buf, NULL);
	p->pos += n;
	return node;
}

static int mx_primary(struct mexpr_parser *p)
{
	size_t at, len;
	char ch;
	int a;

	mx_space(p);
	at = p->pos;
	ch = p->text[at];
	if (!ch)
		return mx_fail(p, at, "expected a value, found the end");
	if (ch == '-') {
		p->pos++;
		if (++p->depth > MEXPR_MAX_DEPTH)
			return mx_fail(p, at, "nested more than %d deep", MEXPR_MAX_DEPTH);
		a = mx_primary(p);
		p->depth--;
		return a < 0 ? -1 : mx_node(p, MX_NEG, a, -1, -1);
	}
	if (ch == '(') {
		p->pos++;
		if (++p->depth > MEXPR_MAX_DEPTH)
			return mx_fail(p, at, "nested more than %d deep", MEXPR_MAX_DEPTH);
		a = mx_if(p);
		p->depth--;
		if (a < 0 || mx_expect(p, ')', "to close the '(' at its left"))
			return -1;
		return a;
	}
	if (ch == '#') {
		len = 1;
		while (mx_is_id_char(p->text[at + len]) || p->text[at + len] == '-')
			len++;
		if (len == 6 && !strncmp(p->text + at, "#slots", 6)) {
			p->pos += len;
			return mx_node(p, MX_SLOTS, -1, -1, -1);
		}
		return mx_fail(p, at, "literal '%.*s' is not supported (pmuscope knows #slots)",
			       (int)(len > 40 ? 40 : len), p->text + at);
	}
	if (isdigit((unsigned char)ch) || ch == '.')
		return mx_number(p);
	len = mx_word(p);
	if (!len)
		return mx_fail(p, at, "unexpected '%c'", ch);
	if (mx_word_is(p, "if") || mx_word_is(p, "else"))
		return mx_fail(p, at, "'%.*s' where a value was expected", (int)len, p->text + at);
	if (mx_word_is(p, "NaN")) {
		p->pos += len;
		a = mx_node(p, MX_NUM, -1, -1, -1);
		if (a >= 0)
			p->e->nodes[a].num = NAN;
		return a;
	}
	if (mx_word_is(p, "duration_time")) {
		p->pos += len;
		return mx_node(p, MX_DURATION, -1, -1, -1);
	}
	if (mx_word_is(p, "min") || mx_word_is(p, "max") || mx_word_is(p, "d_ratio")) {
		enum mexpr_op op = p->text[at] == 'd' ? MX_DRATIO :
				   p->text[at + 1] == 'i' ? MX_MIN : MX_MAX;
		char name[8];

		snprintf(name, sizeof(name), "%.*s", (int)len, p->text + at);
		p->pos += len;
		return mx_func2(p, op, name);
	}
	if (mx_word_is(p, "strcmp_cpuid_str")) {
		p->pos += len;
		return mx_cpuid(p);
	}
	if (mx_word_is(p, "source_count") || mx_word_is(p, "has_event"))
		return mx_fail(p, at, "%.*s() is not supported", (int)len, p->text + at);
	return mx_ident(p, len);
}

/* Binary operators by level, lowest first, each left-associative. */
static const struct {
	char ch;
	enum mexpr_op op;
	int level;
} mx_ops[] = {
	{ '|', MX_OR, 0 }, { '^', MX_XOR, 1 }, { '&', MX_AND, 2 },
	{ '<', MX_LT, 3 }, { '>', MX_GT, 3 },
	{ '+', MX_ADD, 4 }, { '-', MX_SUB, 4 },
	{ '*', MX_MUL, 5 }, { '/', MX_DIV, 5 }, { '%', MX_MOD, 5 },
};
#define MX_LEVELS	6

static int mx_binary(struct mexpr_parser *p, int level)
{
	int a;

	/* Recursion: MX_LEVELS frames a parenthesis, which mx_primary() counts. */
	if (level == MX_LEVELS)
		return mx_primary(p);
	a = mx_binary(p, level + 1);
	while (a >= 0) {
		enum mexpr_op op = MX_NUM;

		mx_space(p);
		for (size_t i = 0; i < sizeof(mx_ops) / sizeof(mx_ops[0]); i++)
			if (mx_ops[i].level == level && p->text[p->pos] == mx_ops[i].ch)
				op = mx_ops[i].op;
		if (op == MX_NUM)
			break;
		int b;

		p->pos++;
		b = mx_binary(p, level + 1);
		a = b < 0 ? -1 : mx_node(p, op, a, b, -1);
	}
	return a;
}

/* A if COND else B (B may be another if-else), or an expression. */
static int mx_if(struct mexpr_parser *p)
{
	int a, cond, b;
	size_t at;

	a = mx_binary(p, 0);
	if (a < 0)
		return -1;
	mx_space(p);
	if (!mx_word_is(p, "if"))
		return a;
	p->pos += 2;
	cond = mx_binary(p, 0);
	if (cond < 0)
		return -1;
	mx_space(p);
	at = p->pos;
	if (!mx_word_is(p, "else"))
		return mx_fail(p, at, "expected 'else' after 'if' and its condition");
	p->pos += 4;
	if (++p->depth > MEXPR_MAX_DEPTH)
		return mx_fail(p, at, "nested more than %d deep", MEXPR_MAX_DEPTH);
	b = mx_if(p);
	p->depth--;
	return b < 0 ? -1 : mx_node(p, MX_IF, a, cond, b);
}

void mexpr_free(struct mexpr *e)
{
	if (!e)
		return;
	for (unsigned int i = 0; i < e->nids; i++)
		free(e->ids[i]);
	free(e->nodes);
	free(e);
}

struct mexpr *mexpr_parse(const char *text, char *err, size_t errlen)
{
	struct mexpr_parser p = { .text = text, .err = err, .errlen = errlen };
	struct mexpr *e = calloc(1, sizeof(*e));
	int root;

	if (e)
		e->nodes = calloc(MEXPR_MAX_NODES, sizeof(*e->nodes));
	if (!e || !e->nodes) {
		snprintf(err, errlen, "out of memory");
		mexpr_free(e);
		return NULL;
	}
	p.e = e;
	root = mx_if(&p);
	if (root >= 0) {
		mx_space(&p);
		if (text[p.pos])
			root = mx_fail(&p, p.pos, "unexpected '%c' after a complete expression",
				       text[p.pos]);
	}
	if (root < 0) {
		mexpr_free(e);
		return NULL;
	}
	e->root = root;
	return e;
}

unsigned int mexpr_nids(const struct mexpr *e)
{
	return e->nids;
}

const char *mexpr_id(const struct mexpr *e, unsigned int i)
{
	return i < e->nids ? e->ids[i] : NULL;
}

int mexpr_cpuid_match(uint32_t want, uint32_t midr)
{
	const uint32_t variant = 0x00f00000, revision = 0x0000000f;

	if ((want & ~(variant | revision)) != (midr & ~(variant | revision)))
		return 0;
	if ((midr & variant) != (want & variant))
		return (midr & variant) > (want & variant);
	return (midr & revision) >= (want & revision);
}

static int mx_true(double v)
{
	return fpclassify(v) != FP_ZERO;
}

static double mx_eval(const struct mexpr *e, int i, const struct mexpr_env *env)
{
	const struct mexpr_node *n = &e->nodes[i];
	double a, b;

	switch (n->op) {
	case MX_NUM:
		return n->num;
	case MX_ID:
		return env->id_value ? env->id_value(env->arg, e->ids[n->id]) : NAN;
	case MX_SLOTS:
		return env->slots;
	case MX_DURATION:
		return env->duration_s;
	case MX_CPUID:
		return env->midr ? mexpr_cpuid_match(n->midr, env->midr) : NAN;
	case MX_NEG:
		return -mx_eval(e, n->a, env);
	case MX_IF:
		/* As perf: only a condition of 0 takes the else. */
		return mx_true(mx_eval(e, n->b, env)) ? mx_eval(e, n->a, env) :
							mx_eval(e, n->c, env);
	default:
		break;
	}
	a = mx_eval(e, n->a, env);
	b = mx_eval(e, n->b, env);
	switch (n->op) {
	case MX_ADD:
		return a + b;
	case MX_SUB:
		return a - b;
	case MX_MUL:
		return a * b;
	case MX_DIV:
		return fpclassify(b) == FP_ZERO ? NAN : a / b;
	case MX_MOD:
		if (isnan(a) || isnan(b) || fabs(a) >= 9.2e18 || fabs(b) >= 9.2e18 ||
		    (long long)b == 0)
			return NAN;
		return (double)((long long)a % (long long)b);
	case MX_LT:
		return isnan(a) || isnan(b) ? NAN : a < b;
	case MX_GT:
		return isnan(a) || isnan(b) ? NAN : a > b;
	case MX_OR:
		return isnan(a) || isnan(b) ? NAN : (mx_true(a) || mx_true(b));
	case MX_AND:
		return isnan(a) || isnan(b) ? NAN : (mx_true(a) && mx_true(b));
	case MX_XOR:
		return isnan(a) || isnan(b) ? NAN : (mx_true(a) != mx_true(b));
	case MX_MIN:
		return a < b ? a : b;
	case MX_MAX:
		return a > b ? a : b;
	case MX_DRATIO:
		return fpclassify(b) == FP_ZERO ? 0 : a / b;
	default:
		return NAN;
	}
}

double mexpr_eval(const struct mexpr *e, const struct mexpr_env *env)
{
	return mx_eval(e, e->root, env);
}
