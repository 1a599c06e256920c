// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: the SVG flame graph of a call-graph profile.
 *
 * The samples of one event are merged into a call tree, root first:
 * a node per (caller node, function, object), weighted by the periods
 * of the samples through it. Siblings are ordered by name (as
 * flamegraph.pl's sorted folded stacks give), the root "all" at the
 * bottom. Every node of at least 0.1% of the total becomes a <g> with
 * its <title> (the browser's tooltip), a <rect> and a <text>; its place
 * in the tree is in data- attributes (start and width as fractions of
 * the total, depth), from which the inline script redraws on a zoom.
 * Names reach the SVG XML-escaped, as valid UTF-8 (bad bytes become
 * '?'), and never as script: the script reads them from the DOM.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flamegraph.h"

#define FG_WIDTH	1200	/* the image, px */
#define FG_XPAD		10	/* left and right margins */
#define FG_FRAME_H	16	/* one frame's row */
#define FG_TOP		66	/* title, subtitle, reset */
#define FG_BOTTOM	34	/* the details line */
#define FG_FONT		12
#define FG_CHAR_W	7.08	/* average character width at FG_FONT (0.59 em) */

struct fg_node {
	const char *name;	/* the function, or "[unknown]" */
	const char *dso;
	uint32_t parent;	/* node index; the root is 0, its own parent */
	uint32_t depth;		/* the root 0, the outermost caller 1 */
	uint32_t flags;		/* CG_FRAME_* of the first frame met */
	uint64_t weight;	/* periods (or samples) through the node */
	uint64_t samples;
	uint64_t x;		/* start, in weight units from the left */
};

struct fg_tree {
	struct fg_node *nodes;
	size_t nr, cap;
	uint32_t *slots;	/* hash of (parent, name, dso): node index + 1 */
	size_t nslots;
	uint32_t max_depth;
	int cut;		/* a chain was deeper than CG_FLAME_MAX_DEPTH */
};

static void fg_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fg_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static uint64_t fg_hash_str(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static size_t fg_hash(uint32_t parent, const char *name, const char *dso)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ (parent * 0x9e3779b97f4a7c15ULL);

	h = fg_hash_str(h, name);
	h = fg_hash_str(h ^ 0xff, dso);
	return (size_t)(h ^ (h >> 29));
}

static int fg_rehash(struct fg_tree *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < t->nr; i++) {
		const struct fg_node *nd = &t->nodes[i];
		size_t k;

		if (i == 0)
			continue;	/* the root is never looked up */
		k = fg_hash(nd->parent, nd->name, nd->dso) & (n - 1);
		while (slots[k])
			k = (k + 1) & (n - 1);
		slots[k] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

/* The child of @parent for (@name, @dso), made if new; -1: no memory. */
static int64_t fg_child(struct fg_tree *t, uint32_t parent, const char *name,
			const char *dso, uint32_t flags)
{
	size_t k;

	if ((t->nr + 1) * 2 > t->nslots && fg_rehash(t))
		return -1;
	k = fg_hash(parent, name, dso) & (t->nslots - 1);
	while (t->slots[k]) {
		const struct fg_node *nd = &t->nodes[t->slots[k] - 1];

		if (nd->parent == parent && !strcmp(nd->name, name) && !strcmp(nd->dso, dso))
			return t->slots[k] - 1;
		k = (k + 1) & (t->nslots - 1);
	}
	if (t->nr == t->cap) {
		size_t cap = t->cap * 2;
		struct fg_node *nodes;

		if (cap > UINT32_MAX - 1)
			return -1;
		nodes = realloc(t->nodes, cap * sizeof(*nodes));
		if (!nodes)
			return -1;
		t->nodes = nodes;
		t->cap = cap;
	}
	t->nodes[t->nr] = (struct fg_node){
		.name = name, .dso = dso, .parent = parent,
		.depth = t->nodes[parent].depth + 1, .flags = flags,
	};
	if (t->nodes[t->nr].depth > t->max_depth)
		t->max_depth = t->nodes[t->nr].depth;
	t->slots[k] = (uint32_t)t->nr + 1;
	return (int64_t)t->nr++;
}

static const struct fg_node *fg_sort_nodes;

/* Parents before children (depth), then siblings by name and object. */
static int fg_cmp(const void *a, const void *b)
{
	const struct fg_node *x = &fg_sort_nodes[*(const uint32_t *)a];
	const struct fg_node *y = &fg_sort_nodes[*(const uint32_t *)b];
	int c;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->dso, y->dso);
}

/*
 * Each node's x: its parent's start plus its elder siblings' weights.
 * @order: the nodes sorted by fg_cmp (returned, for the caller to free).
 */
static uint32_t *fg_layout(struct fg_tree *t)
{
	uint32_t *order = malloc(t->nr * sizeof(*order));
	uint64_t *cursor = malloc(t->nr * sizeof(*cursor));

	if (!order || !cursor) {
		free(order);
		free(cursor);
		return NULL;
	}
	for (size_t i = 0; i < t->nr; i++)
		order[i] = (uint32_t)i;
	fg_sort_nodes = t->nodes;
	qsort(order, t->nr, sizeof(*order), fg_cmp);
	t->nodes[0].x = 0;
	cursor[0] = 0;
	for (size_t i = 1; i < t->nr; i++) {
		struct fg_node *nd = &t->nodes[order[i]];

		nd->x = cursor[nd->parent];
		cursor[nd->parent] += nd->weight;
		cursor[order[i]] = nd->x;
	}
	free(cursor);
	return order;
}

/* The length of the valid UTF-8 sequence at @s, 0 if it is not one. */
static size_t fg_utf8_len(const unsigned char *s)
{
	unsigned int c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned int lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		/* U+FFFE and U+FFFF are not XML characters */
		if (c == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned int lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

/* The number of characters fg_escape() counts in @s (bad bytes count one). */
static size_t fg_chars(const char *s)
{
	size_t n = 0;

	while (*s) {
		size_t len = fg_utf8_len((const unsigned char *)s);

		s += len ? len : 1;
		n++;
	}
	return n;
}

/*
 * @s as XML text or attribute value: the five markup characters as
 * entities, control characters and bad UTF-8 as '?'; at most @max
 * characters, the cut marked "..".
 */
static void fg_escape(FILE *f, const char *s, size_t max)
{
	size_t n = 0, total = max ? fg_chars(s) : 0;

	if (total > max && max >= 2)
		max -= 2;
	for (; *s && n < max; n++) {
		const unsigned char *u = (const unsigned char *)s;
		size_t len = fg_utf8_len(u);

		if (!len || (u[0] < 0x20 && u[0] != '\t')) {
			fputc('?', f);
			s++;
			continue;
		}
		switch (u[0]) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fwrite(s, 1, len, f);
		}
		s += len;
	}
	if (*s)
		fputs("..", f);
}

/* A deterministic color per function: warm for user code, blue for the kernel. */
static void fg_color(char *buf, size_t len, const struct fg_node *nd, int root)
{
	uint64_t h = fg_hash_str(0xcbf29ce484222325ULL, nd->name);

	h ^= h >> 33;			/* spread short names' hashes (murmur3's finalizer) */
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	unsigned int a = (unsigned int)(h & 0xff), b = (unsigned int)((h >> 8) & 0xff);
	unsigned int c = (unsigned int)((h >> 16) & 0xff);

	if (root)
		snprintf(buf, len, "rgb(208,208,208)");
	else if (nd->flags & CG_FRAME_KERNEL)
		snprintf(buf, len, "rgb(%u,%u,%u)", 70 + a % 50, 140 + b % 60, 215 + c % 40);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 205 + a % 50, b % 230, c % 55);
}

static const char fg_script[] =
"var svg = document.documentElement;\n"
"var details = document.getElementById('details');\n"
"var unzoom = document.getElementById('unzoom');\n"
"var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
"var W = +svg.getAttribute('data-fw'), X0 = +svg.getAttribute('data-x0');\n"
"var CW = +svg.getAttribute('data-cw');\n"
"function fit(g, w) {\n"
"\tvar n = g.getAttribute('data-n'), c = Math.floor((w - 6) / CW);\n"
"\tg.querySelector('text').textContent = c < 3 ? '' :\n"
"\t\t(n.length <= c ? n : n.substring(0, c - 2) + '..');\n"
"}\n"
"function place(g, x, w) {\n"
"\tg.querySelector('rect').setAttribute('x', x.toFixed(2));\n"
"\tg.querySelector('rect').setAttribute('width', w.toFixed(2));\n"
"\tg.querySelector('text').setAttribute('x', (x + 3).toFixed(2));\n"
"\tfit(g, w);\n"
"}\n"
"function zoom(z) {\n"
"\tvar zx = +z.getAttribute('data-x'), zw = +z.getAttribute('data-w');\n"
"\tvar zd = +z.getAttribute('data-d'), e = 1e-9;\n"
"\tframes.forEach(function (g) {\n"
"\t\tvar x = +g.getAttribute('data-x'), w = +g.getAttribute('data-w');\n"
"\t\tvar d = +g.getAttribute('data-d');\n"
"\t\tif (d < zd && x <= zx + e && x + w >= zx + zw - e) {\n"
"\t\t\tg.style.display = ''; g.classList.add('parent');\n"
"\t\t\tplace(g, X0, W);\n"
"\t\t} else if (d >= zd && x >= zx - e && x + w <= zx + zw + e) {\n"
"\t\t\tg.style.display = ''; g.classList.remove('parent');\n"
"\t\t\tplace(g, X0 + (x - zx) / zw * W, w / zw * W);\n"
"\t\t} else {\n"
"\t\t\tg.style.display = 'none';\n"
"\t\t}\n"
"\t});\n"
"\tunzoom.style.display = zd > 0 ? '' : 'none';\n"
"}\n"
"function reset() {\n"
"\tframes.forEach(function (g) {\n"
"\t\tg.style.display = ''; g.classList.remove('parent');\n"
"\t\tplace(g, X0 + +g.getAttribute('data-x') * W, +g.getAttribute('data-w') * W);\n"
"\t});\n"
"\tunzoom.style.display = 'none';\n"
"}\n"
"svg.addEventListener('click', function (ev) {\n"
"\tvar g = ev.target.closest('g.f');\n"
"\tif (g)\n"
"\t\tzoom(g);\n"
"\telse if (ev.target.closest('#unzoom'))\n"
"\t\treset();\n"
"});\n"
"svg.addEventListener('mouseover', function (ev) {\n"
"\tvar g = ev.target.closest('g.f');\n"
"\tif (g)\n"
"\t\tdetails.textContent = g.querySelector('title').textContent;\n"
"});\n"
"svg.addEventListener('mouseout', function (ev) {\n"
"\tif (ev.target.closest('g.f'))\n"
"\t\tdetails.textContent = ' ';\n"
"});\n"
"document.addEventListener('keydown', function (ev) {\n"
"\tif (ev.key === 'Escape')\n"
"\t\treset();\n"
"});\n"
"frames.forEach(function (g) { fit(g, +g.getAttribute('data-w') * W); });\n";

static int fg_build(struct fg_tree *t, const struct cg_profile *p, uint32_t event,
		    int by_period, uint64_t *nsamples)
{
	t->cap = 1024;
	t->nodes = malloc(t->cap * sizeof(*t->nodes));
	if (!t->nodes || fg_rehash(t))
		return -1;
	t->nodes[0] = (struct fg_node){ .name = "all", .dso = "" };
	t->nr = 1;
	*nsamples = 0;
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct cg_sample *s = &p->samples[i];
		uint64_t w = by_period ? s->period : 1;
		uint32_t node = 0, depth = 0;

		if (s->event != event)
			continue;
		(*nsamples)++;
		t->nodes[0].weight += w;
		t->nodes[0].samples++;
		for (uint32_t j = s->nr; j-- > 0;) {
			const struct cg_frame *fr = s->frames[j];
			int64_t c;

			if (!fr)
				continue;
			if (++depth > CG_FLAME_MAX_DEPTH) {
				t->cut = 1;
				break;
			}
			c = fg_child(t, node, fr->sym ? fr->sym : "[unknown]",
				     fr->dso ? fr->dso : "[unknown]", fr->flags);
			if (c < 0)
				return -1;
			node = (uint32_t)c;
			t->nodes[node].weight += w;
			t->nodes[node].samples++;
		}
	}
	return 0;
}

static void fg_title(FILE *f, const struct fg_node *nd, uint64_t total, const char *unit)
{
	fg_escape(f, nd->name, CG_FLAME_MAX_NAME);
	if (nd->dso[0]) {
		fputs(" (", f);
		fg_escape(f, nd->dso, CG_FLAME_MAX_NAME);
		fputc(')', f);
	}
	if (nd->flags & CG_FRAME_INLINED)
		fputs(" inlined", f);
	fprintf(f, ": %" PRIu64 " sample%s", nd->samples, nd->samples == 1 ? "" : "s");
	if (unit) {
		fprintf(f, ", %" PRIu64 " ", nd->weight);
		fg_escape(f, unit, CG_FLAME_MAX_NAME);
	}
	fprintf(f, ", %.2f%%", total ? 100.0 * (double)nd->weight / (double)total : 0.0);
}

int cg_flamegraph_write(FILE *f, const struct cg_profile *p, uint32_t event,
			const char *title, char *err, size_t errlen)
{
	struct fg_tree t = { 0 };
	const struct cg_event *ev;
	const char *label;
	uint32_t *order = NULL;
	uint64_t total, nsamples = 0, period = 0;
	size_t omitted = 0;
	int by_period, height, ret = -1;
	double fw = FG_WIDTH - 2 * FG_XPAD;

	if (event >= p->nr_events) {
		fg_err(err, errlen, "flame graph: no event %u (the recording has %u)",
		       event, p->nr_events);
		return -1;
	}
	ev = &p->events[event];
	label = ev->label && ev->label[0] ? ev->label : ev->name ? ev->name : "event";
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->samples[i].event == event)
			period += p->samples[i].period;
	by_period = period > 0;
	if (fg_build(&t, p, event, by_period, &nsamples)) {
		fg_err(err, errlen, "flame graph: out of memory");
		goto out;
	}
	order = fg_layout(&t);
	if (!order) {
		fg_err(err, errlen, "flame graph: out of memory");
		goto out;
	}
	total = t.nodes[0].weight;
	height = FG_TOP + ((int)t.max_depth + 1) * FG_FRAME_H + FG_BOTTOM;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
		" viewBox=\"0 0 %d %d\" data-fw=\"%.0f\" data-x0=\"%d\" data-cw=\"%.2f\">\n",
		FG_WIDTH, height, FG_WIDTH, height, fw, FG_XPAD, FG_CHAR_W);
	fprintf(f, "<style type=\"text/css\">\n"
		"text { font-family: Verdana, 'DejaVu Sans', sans-serif; font-size: %dpx; fill: #000; }\n"
		"#title { font-size: 17px; text-anchor: middle; }\n"
		"#subtitle { fill: #555; text-anchor: middle; }\n"
		"#unzoom { cursor: pointer; fill: #00c; }\n"
		"g.f { cursor: pointer; }\n"
		"g.f text { pointer-events: none; }\n"
		"g.f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
		"g.parent rect { opacity: 0.5; }\n"
		"</style>\n", FG_FONT);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f0\"/>\n",
		FG_WIDTH, height);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"24\">", FG_WIDTH / 2);
	if (title) {
		fg_escape(f, title, CG_FLAME_MAX_NAME);
	} else {
		fputs("Flame graph: ", f);
		fg_escape(f, label, CG_FLAME_MAX_NAME);
		if (ev->name && ev->label && ev->label[0] && strcmp(ev->name, ev->label)) {
			fputs(" (", f);
			fg_escape(f, ev->name, CG_FLAME_MAX_NAME);
			fputc(')', f);
		}
	}
	fputs("</text>\n", f);

	for (size_t i = 1; i < t.nr; i++)
		if ((double)t.nodes[i].weight * 1000 < (double)total)
			omitted++;
	fprintf(f, "<text id=\"subtitle\" x=\"%d\" y=\"44\">%" PRIu64 " sample%s; width: ",
		FG_WIDTH / 2, nsamples, nsamples == 1 ? "" : "s");
	if (by_period) {
		fputs("the samples' periods summed (", f);
		fg_escape(f, label, CG_FLAME_MAX_NAME);
		fprintf(f, ": %" PRIu64 ")", total);
	} else {
		fputs("samples counted (no sample has a period)", f);
	}
	if (omitted)
		fprintf(f, "; %zu frame%s under 0.1%% not drawn", omitted, omitted == 1 ? "" : "s");
	if (t.cut)
		fprintf(f, "; chains cut at %d frames", CG_FLAME_MAX_DEPTH);
	fputs("; click to zoom</text>\n", f);
	fprintf(f, "<text id=\"unzoom\" x=\"%d\" y=\"24\" style=\"display:none\">Reset Zoom</text>\n",
		FG_XPAD);
	fprintf(f, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", FG_XPAD, height - 12);

	for (size_t k = 0; k < t.nr; k++) {
		const struct fg_node *nd = &t.nodes[order[k]];
		double x, w, y;
		char color[32];

		if ((double)nd->weight * 1000 < (double)total || !total)
			continue;
		x = (double)nd->x / (double)total;
		w = (double)nd->weight / (double)total;
		y = height - FG_BOTTOM - (nd->depth + 1) * FG_FRAME_H;
		fg_color(color, sizeof(color), nd, order[k] == 0);
		fprintf(f, "<g class=\"f\" data-x=\"%.9f\" data-w=\"%.9f\" data-d=\"%u\" data-n=\"",
			x, w, nd->depth);
		fg_escape(f, nd->name, CG_FLAME_MAX_NAME);
		fputs("\"><title>", f);
		fg_title(f, nd, total, by_period ? label : NULL);
		fprintf(f, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\""
			" rx=\"2\" ry=\"2\" fill=\"%s\"/><text x=\"%.2f\" y=\"%.1f\">",
			FG_XPAD + x * fw, y, w * fw, FG_FRAME_H - 1, color,
			FG_XPAD + x * fw + 3, y + 11.5);
		if (w * fw - 6 >= 3 * FG_CHAR_W)
			fg_escape(f, nd->name, (size_t)((w * fw - 6) / FG_CHAR_W));
		fputs("</text></g>\n", f);
	}
	/* last: it finds the frames and the details line already there */
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		fg_script);
	if (fflush(f) || ferror(f)) {
		fg_err(err, errlen, "flame graph: write error: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	free(order);
	free(t.nodes);
	free(t.slots);
	return ret;
}
