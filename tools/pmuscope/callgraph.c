// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: a record file's samples with their call chains resolved
 * (callgraph.h), for report -g, --folded, script and the writers.
 *
 * Two passes over the file: the first indexes the MAPS, COMM and
 * KALLSYMS chunks (maps.c) and checks every record; the second makes one
 * sample per SAMPLE record. A chain's addresses are kernel ones first,
 * then user ones, each part innermost first (struct pmuscope_rec_chain);
 * a record without a chain is a chain of one frame, its PC. A user
 * address is looked up in the maps of its process valid at the sample's
 * time, then in its file with elfutils (symbols.c: the function, its
 * start, the build ID, the functions inlined there); a kernel address in
 * the recording's /proc/kallsyms. A return address points after its
 * call: every frame but the first of each part (the interrupted PC, the
 * user PC) is looked up at address - 1, as perf and debuggers do, and
 * printed as it was recorded. Resolutions are cached per object and
 * offset, and equal frames are one struct cg_frame.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "datafile.h"
#include "maps.h"
#include "stat-output.h"
#include "symbols.h"

#define KERNEL_DSO	"[kernel.kallsyms]"
#define KSYM_NAME_LEN	512	/* the kernel's: a symbol's name and its NUL */
#define UNKNOWN_DSO	"[unknown]"

struct ksym {
	uint64_t addr;
	const char *name;
	const char *dso;		/* "[kernel.kallsyms]" or "[module]" */
};

/*
 * The loader's small objects (strings, frames, resolutions) come from
 * blocks of ARENA_BLOCK bytes and are freed with them: no allocation, and
 * no allocator's header, a frame.
 */
#define ARENA_BLOCK	(1U << 20)

struct arena_blk {
	struct arena_blk *next;
	size_t used, size;
	char mem[];
};

/* An interned string. */
struct istr {
	struct istr *next;
	uint64_t hash;
	char s[];
};

/*
 * A resolution: the frames (inlined ones first) that an address in a
 * file's mapping gave, @nr of them at @x->rframes[@at]. Kernel addresses
 * and user ones in no mapping or no file resolve without elfutils, to the
 * same frame every time: they are not kept.
 */
struct rnode {
	const char *path;		/* interned: the object */
	uint64_t addr, map_start, map_pgoff;
	uint32_t at;
	uint8_t adjust;			/* looked up at addr - 1 */
	uint8_t nr;
};

/*
 * An open-addressing table, a power of two in size: index + 1 (0: empty)
 * in a slot's low half, its hash's high half in the high one, compared
 * before the entry is read (a probe reads no entry of another hash).
 */
struct otab {
	uint64_t *slot;
	size_t mask;
};

#define OTAB_TAG(h)	((h) & 0xffffffff00000000ULL)
#define OTAB_IDX(s)	((uint32_t)(s) - 1)

struct cg_priv {
	struct df_file df;
	struct maps_index maps;
	struct sym_table *syms;
	struct sym_info *si;
	struct ksym *ksyms;
	size_t nksyms;
	char *ktext;
	struct arena_blk *arena;
	struct istr **strs;
	size_t nstrs, nstr_buckets;
	struct otab ftab;		/* the frames, p->frames, by content */
	struct otab rtab;		/* @res by address and mapping */
	struct rnode *res;
	size_t nres, res_room;
	uint32_t *rframes;		/* the resolutions' frames: indexes in p->frames */
	size_t nrframes, rframes_room;
	size_t frames_room;
	/* Every sample's frames, one array (offsets until the end of the load). */
	const struct cg_frame **chain;
	size_t nchain, chain_room;
	size_t *chain_at;		/* per sample: its first frame in @chain */
	size_t samples_room;
	uint64_t allocs;		/* for the tests: malloc()s, and ... */
	uint64_t bytes;			/* ... bytes held, the file's own excepted */
	char keys[PMUSCOPE_MAX_EVENTS + 1][96];
};

static void cg_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 1099511628211ULL;
	return h;
}

#define FNV0	14695981039346656037ULL

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 1099511628211ULL ^ (v >> 32);
}

/*
 * A hash's bits mixed into its low ones, which pick the bucket: mix()'s
 * low bits depend only on its inputs' low ones (addresses 16 bytes apart
 * made 16 of them a bucket).
 */
static uint64_t fmix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* Room for @n more items of @size in @*v (of @*room), doubling. */
static int grow(struct cg_priv *x, void *v, size_t *room, size_t have, size_t n, size_t size,
		size_t first)
{
	void **vp = v;
	size_t r = *room ? *room : first;
	void *nv;

	if (have + n <= *room)
		return 0;
	while (r < have + n)
		r *= 2;
	nv = realloc(*vp, r * size);
	if (!nv)
		return -ENOMEM;
	x->allocs++;
	x->bytes += (r - *room) * size;
	*vp = nv;
	*room = r;
	return 0;
}

static void *arena_alloc(struct cg_priv *x, size_t n)
{
	struct arena_blk *b = x->arena;
	void *m;

	n = (n + 7) & ~(size_t)7;
	if (!b || b->size - b->used < n) {
		size_t size = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;

		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		x->allocs++;
		x->bytes += sizeof(*b) + size;
		b->next = x->arena;
		b->used = 0;
		b->size = size;
		if (x->arena && size != ARENA_BLOCK) {
			/* A big one: behind the current block, which goes on filling. */
			b->next = x->arena->next;
			x->arena->next = b;
		} else {
			x->arena = b;
		}
	}
	m = b->mem + b->used;
	b->used += n;
	return m;
}

/* Grow a chained table of @n entries in @*nb buckets when it is full. */
#define TABLE_GROW(type, buckets, nb, n)					\
	do {									\
		if ((n) >= (nb)) {						\
			size_t _n = (nb) ? 2 * (nb) : 1024;			\
			type **_b = calloc(_n, sizeof(*_b));			\
										\
			if (!_b)						\
				return NULL;					\
			x->allocs++;						\
			x->bytes += (_n - (nb)) * sizeof(*_b);			\
			for (size_t _i = 0; _i < (nb); _i++) {			\
				type *_e, *_next;				\
										\
				for (_e = (buckets)[_i]; _e; _e = _next) {	\
					_next = _e->next;			\
					_e->next = _b[_e->hash % _n];		\
					_b[_e->hash % _n] = _e;			\
				}						\
			}							\
			free(buckets);						\
			(buckets) = _b;						\
			(nb) = _n;						\
		}								\
	} while (0)

static const char *intern(struct cg_priv *x, const char *s)
{
	uint64_t h;
	size_t n;
	struct istr *e;

	if (!s)
		return NULL;
	n = strlen(s);
	h = fmix(fnv(FNV0, s, n));
	TABLE_GROW(struct istr, x->strs, x->nstr_buckets, x->nstrs);
	for (e = x->strs[h % x->nstr_buckets]; e; e = e->next)
		if (e->hash == h && !strcmp(e->s, s))
			return e->s;
	e = arena_alloc(x, sizeof(*e) + n + 1);
	if (!e)
		return NULL;
	e->hash = h;
	memcpy(e->s, s, n + 1);
	e->next = x->strs[h % x->nstr_buckets];
	x->strs[h % x->nstr_buckets] = e;
	x->nstrs++;
	return e->s;
}

/*
 * Room in @t for entry @n: at 3/4 full, twice the slots, each of the @n
 * entries put back where @hash(@ctx, its index) says.
 */
static int otab_grow(struct cg_priv *x, struct otab *t, size_t n,
		     uint64_t (*hash)(const void *ctx, size_t i), const void *ctx)
{
	size_t size = t->slot ? t->mask + 1 : 0, want = 1024;
	uint64_t *v;

	if (4 * (n + 1) <= 3 * size)
		return 0;
	if (n >= UINT32_MAX - 1)
		return -ENOMEM;
	while (want < 2 * (n + 1))
		want *= 2;
	v = calloc(want, sizeof(*v));
	if (!v)
		return -ENOMEM;
	x->allocs++;
	x->bytes += (want - size) * sizeof(*v);
	for (size_t i = 0; i < n; i++) {
		uint64_t h = hash(ctx, i);
		size_t k = h & (want - 1);

		while (v[k])
			k = (k + 1) & (want - 1);
		v[k] = OTAB_TAG(h) | (i + 1);
	}
	free(t->slot);
	t->slot = v;
	t->mask = want - 1;
	return 0;
}

static uint64_t frame_hash(const struct cg_frame *f)
{
	uint64_t h = FNV0;

	h = mix(h, f->addr);
	h = mix(h, (uintptr_t)f->sym);
	h = mix(h, f->sym_off);
	h = mix(h, (uintptr_t)f->dso);
	h = mix(h, f->map_start);
	h = mix(h, f->map_pgoff);
	h = mix(h, (uintptr_t)f->src);
	h = mix(h, f->flags);
	return fmix(h);
}

static uint64_t frame_hash_at(const void *ctx, size_t i)
{
	const struct cg_profile *p = ctx;

	return frame_hash(p->frames[i]);
}

static int frame_eq(const struct cg_frame *a, const struct cg_frame *f)
{
	return a->addr == f->addr && a->sym == f->sym && a->sym_off == f->sym_off &&
	       a->dso == f->dso && a->map_start == f->map_start && a->map_end == f->map_end &&
	       a->map_pgoff == f->map_pgoff && a->src == f->src &&
	       a->build_id == f->build_id && a->flags == f->flags;
}

/* The one frame equal to @f (its strings interned), made if new. */
static const struct cg_frame *frame_get(struct cg_profile *p, const struct cg_frame *f)
{
	struct cg_priv *x = p->priv;
	uint64_t h = frame_hash(f);
	struct cg_frame *e;
	size_t k;

	if (otab_grow(x, &x->ftab, p->nr_frames, frame_hash_at, p))
		return NULL;
	for (k = h & x->ftab.mask; x->ftab.slot[k]; k = (k + 1) & x->ftab.mask)
		if (OTAB_TAG(x->ftab.slot[k]) == OTAB_TAG(h) &&
		    frame_eq(p->frames[OTAB_IDX(x->ftab.slot[k])], f))
			return p->frames[OTAB_IDX(x->ftab.slot[k])];
	if (grow(x, &p->frames, &x->frames_room, p->nr_frames, 1, sizeof(*p->frames), 1024))
		return NULL;
	e = arena_alloc(x, sizeof(*e));
	if (!e)
		return NULL;
	*e = *f;
	e->id = p->nr_frames + 1;
	x->ftab.slot[k] = OTAB_TAG(h) | e->id;
	p->frames[p->nr_frames++] = e;
	return e;
}

/* ---------------------------------------------------------- kallsyms */
static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

int cg_kallsyms_func(const char *line, uint64_t *addr, size_t *name_off)
{
	unsigned long long a;
	char type;
	int n = 0;
	size_t len;

	if (sscanf(line, "%llx %c %n", &a, &type, &n) < 2 || !n || !a || !strchr("tTwW", type))
		return 0;
	len = strcspn(line + n, " \t");
	if (!len || len >= KSYM_NAME_LEN)
		return 0;	/* no kernel has a longer name */
	*addr = a;
	*name_off = (size_t)n;
	return 1;
}

/*
 * /proc/kallsyms: "ffff800080010000 T name", a module's "\t[mod]" after.
 * Functions only (cg_kallsyms_func()); none when every address is 0 (the
 * reader could not see them).
 */
static int kallsyms_parse(struct cg_priv *x, const char *text, size_t len)
{
	size_t room = 0;
	char *line, *save = NULL;

	free(x->ktext);
	free(x->ksyms);
	x->ksyms = NULL;
	x->nksyms = 0;
	x->ktext = malloc(len + 1);
	if (!x->ktext)
		return -ENOMEM;
	x->allocs++;
	x->bytes += len + 1;
	memcpy(x->ktext, text, len);
	x->ktext[len] = '\0';
	for (line = strtok_r(x->ktext, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t addr;
		size_t n;
		char *name, *mod, *end;

		if (!cg_kallsyms_func(line, &addr, &n))
			continue;
		name = line + n;
		end = name + strcspn(name, " \t");
		mod = NULL;
		if (*end) {
			*end = '\0';
			mod = end + 1 + strspn(end + 1, " \t");
			if (*mod != '[')
				mod = NULL;
		}
		if (grow(x, &x->ksyms, &room, x->nksyms, 1, sizeof(*x->ksyms), 4096))
			return -ENOMEM;
		x->ksyms[x->nksyms++] = (struct ksym){ addr, name, mod ? intern(x, mod) : KERNEL_DSO };
	}
	if (x->nksyms)
		qsort(x->ksyms, x->nksyms, sizeof(*x->ksyms), ksym_cmp);
	return 0;
}

/*
 * The kernel symbol holding @addr: the nearest at or below it, up to the
 * next one. Past the last symbol (its end is not known: BPF programs,
 * trampolines, modules loaded later) or at 1 MiB from it: none, never a
 * far symbol's name with a huge offset.
 */
#define KSYM_MAX_SIZE	(1U << 20)

static const struct ksym *ksym_find(const struct cg_priv *x, uint64_t addr)
{
	size_t lo = 0, hi = x->nksyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x->ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || lo == x->nksyms || addr - x->ksyms[lo - 1].addr >= KSYM_MAX_SIZE)
		return NULL;
	return &x->ksyms[lo - 1];
}

/* -------------------------------------------------------- resolution */
static int chain_push(struct cg_priv *x, const struct cg_frame *f)
{
	if (!f || grow(x, &x->chain, &x->chain_room, x->nchain, 1, sizeof(*x->chain), 4096))
		return -ENOMEM;
	x->chain[x->nchain++] = f;
	return 0;
}

static uint64_t res_hash(const char *path, uint64_t addr, uint64_t map_start,
			 uint64_t map_pgoff, int adjust)
{
	uint64_t h = FNV0;

	h = mix(h, (uintptr_t)path);
	h = mix(h, addr);
	h = mix(h, map_start);
	h = mix(h, map_pgoff);
	h = mix(h, adjust);
	return fmix(h);
}

static uint64_t res_hash_at(const void *ctx, size_t i)
{
	const struct rnode *e = &((const struct cg_priv *)ctx)->res[i];

	return res_hash(e->path, e->addr, e->map_start, e->map_pgoff, e->adjust);
}

static int resolve_kernel(struct cg_profile *p, uint64_t addr, int adjust)
{
	struct cg_priv *x = p->priv;
	struct cg_frame f = { .addr = addr, .flags = CG_FRAME_KERNEL, .dso = KERNEL_DSO };
	const struct ksym *k = ksym_find(x, addr - adjust);

	if (k) {
		f.sym = k->name;
		f.sym_off = addr - k->addr;
		f.dso = k->dso;
	}
	return chain_push(x, frame_get(p, &f));
}

/* @f's frame, then those of the functions inlined at @addr, in @r's frames. */
static int resolve_file(struct cg_profile *p, struct rnode *r, struct cg_frame *f,
			uint64_t file_off)
{
	struct cg_priv *x = p->priv;
	struct sym_info *si = x->si;
	const struct cg_frame *fr;
	int ret;

	ret = sym_lookup(x->syms, r->path, file_off, SYM_WANT_SRC | SYM_WANT_INLINE, si);
	if (grow(x, &x->rframes, &x->rframes_room, x->nrframes, si->nr_inline + 1,
		 sizeof(*x->rframes), 4096))
		return -ENOMEM;
	r->at = x->nrframes;
	if (ret >= 0) {
		f->build_id = intern(x, si->build_id);
		for (unsigned int i = 0; i < si->nr_inline; i++) {
			struct cg_frame in = *f;

			in.sym = intern(x, si->inl[i].name[0] ? si->inl[i].name : "[unknown]");
			in.sym_off = ret == 1 ? si->off + r->adjust : 0;
			in.src = si->inl[i].src[0] ? intern(x, si->inl[i].src) : NULL;
			in.flags |= CG_FRAME_INLINED;
			fr = frame_get(p, &in);
			if (!fr)
				return -ENOMEM;
			x->rframes[x->nrframes++] = fr->id - 1;
		}
		if (ret == 1) {
			f->sym = intern(x, si->name);
			f->sym_off = si->off + r->adjust;
		}
		f->src = si->src[0] ? intern(x, si->src) : NULL;
	}
	fr = frame_get(p, f);
	if (!fr)
		return -ENOMEM;
	x->rframes[x->nrframes++] = fr->id - 1;
	r->nr = x->nrframes - r->at;
	return 0;
}

static int resolve_user(struct cg_profile *p, uint32_t pid, uint64_t time,
			uint64_t addr, int adjust)
{
	struct cg_priv *x = p->priv;
	struct cg_frame f = { .addr = addr, .dso = UNKNOWN_DSO };
	struct maps_ent *m;
	const char *path;
	struct rnode *r;
	uint64_t h;
	size_t k;
	int any;

	m = maps_index_find(&x->maps, pid, time, addr - adjust, &any);
	if (!m)
		return chain_push(x, frame_get(p, &f));
	/* Interned once a mapping, not once a frame. */
	if (!m->ipath)
		m->ipath = intern(x, m->path[0] ? m->path : UNKNOWN_DSO);
	path = m->ipath;
	if (!path)
		return -ENOMEM;
	f.dso = path;
	f.map_start = m->start;
	f.map_end = m->end;
	f.map_pgoff = m->pgoff;
	if (path[0] != '/')
		return chain_push(x, frame_get(p, &f));	/* [vdso], [heap]: no file to read */
	/*
	 * The file's resolutions are kept, by address and mapping (not its
	 * end: the frames are those of the first mapping seen).
	 */
	if (otab_grow(x, &x->rtab, x->nres, res_hash_at, x))
		return -ENOMEM;
	h = res_hash(path, addr, m->start, m->pgoff, adjust);
	for (k = h & x->rtab.mask; x->rtab.slot[k]; k = (k + 1) & x->rtab.mask) {
		if (OTAB_TAG(x->rtab.slot[k]) != OTAB_TAG(h))
			continue;
		r = &x->res[OTAB_IDX(x->rtab.slot[k])];
		if (r->path == path && r->addr == addr && r->map_start == m->start &&
		    r->map_pgoff == m->pgoff && r->adjust == adjust)
			goto found;
	}
	if (grow(x, &x->res, &x->res_room, x->nres, 1, sizeof(*x->res), 1024))
		return -ENOMEM;
	r = &x->res[x->nres];
	*r = (struct rnode){ .path = path, .addr = addr, .map_start = m->start,
			     .map_pgoff = m->pgoff, .adjust = adjust };
	if (resolve_file(p, r, &f, addr - adjust - m->start + m->pgoff))
		return -ENOMEM;
	x->rtab.slot[k] = OTAB_TAG(h) | ++x->nres;
found:
	if (grow(x, &x->chain, &x->chain_room, x->nchain, r->nr, sizeof(*x->chain), 4096))
		return -ENOMEM;
	for (unsigned int i = 0; i < r->nr; i++)
		x->chain[x->nchain++] = p->frames[x->rframes[r->at + i]];
	return 0;
}

/* ------------------------------------------------------------ loading */
static uint64_t cg_ns(const struct df_info *in, uint64_t t)
{
	t = t > in->start_time ? t - in->start_time : 0;
	if (!in->freq)
		return t;
	return (uint64_t)((unsigned __int128)t * 1000000000u / in->freq);
}

static int cg_sample_add(struct cg_profile *p, const struct pmuscope_rec *r, uint32_t timer_ev)
{
	struct cg_priv *x = p->priv;
	const struct df_info *in = &x->df.info;
	struct pmuscope_chain ch;
	struct cg_sample *s;
	const char *comm;
	int ret;

	if (p->nr_samples == x->samples_room) {
		size_t room = x->samples_room;

		if (grow(x, &p->samples, &room, p->nr_samples, 1, sizeof(*p->samples), 1024) ||
		    grow(x, &x->chain_at, &x->samples_room, p->nr_samples, 1,
			 sizeof(*x->chain_at), 1024))
			return -ENOMEM;
	}
	s = &p->samples[p->nr_samples];
	memset(s, 0, sizeof(*s));
	s->pid = r->pid;
	s->tid = r->tid;
	s->cpu = r->cpu;
	s->time_ns = cg_ns(in, r->time);
	if ((r->flags & PMUSCOPE_REC_F_TIMER) || in->sample_index == PMUSCOPE_STREAM_NO_EVENT) {
		s->event = timer_ev;
		s->period = in->period_ms ? (uint64_t)in->period_ms * 1000000 : 1;
	} else {
		s->event = in->sample_index;
		s->period = in->sample_period;
	}
	comm = maps_index_comm(&x->maps, r->pid, r->tid, r->time);
	s->comm = intern(x, comm ? comm : "");
	if (!s->comm)
		return -ENOMEM;
	x->chain_at[p->nr_samples] = x->nchain;
	ret = pmuscope_record_chain(r, &ch);
	if (ret < 0)
		return ret;
	if (ret == 1 && ch.nr_kernel + ch.nr_user) {
		s->flags = ch.flags;
		for (unsigned int i = 0; i < (unsigned int)ch.nr_kernel + ch.nr_user; i++) {
			uint64_t a = pmuscope_chain_ip(&ch, i);
			int kernel = i < ch.nr_kernel;
			int adjust = i && i != ch.nr_kernel;	/* a return address */

			ret = kernel ? resolve_kernel(p, a, adjust) :
				       resolve_user(p, r->pid, r->time, a, adjust);
			if (ret)
				return ret;
		}
	} else {
		ret = (r->flags & PMUSCOPE_REC_F_USER) ?
			resolve_user(p, r->pid, r->time, r->pc, 0) : resolve_kernel(p, r->pc, 0);
		if (ret)
			return ret;
	}
	s->nr = x->nchain - x->chain_at[p->nr_samples];
	p->nr_samples++;
	return 0;
}

/* First pass: the maps, names and kallsyms; every record checked. */
static int cg_scan(struct cg_profile *p, char *err, size_t errlen)
{
	struct cg_priv *x = p->priv;
	struct df_view c;
	char e[512];
	size_t off = x->df.first_chunk;
	int ret;

	while ((ret = df_next(&x->df, &off, &c, e, sizeof(e))) == 1) {
		if (c.type == DF_CHUNK_MAPS) {
			struct df_maps m;

			memcpy(&m, c.payload, sizeof(m));
			if (maps_index_add(&x->maps, m.pid, m.reason, m.time,
					   (const char *)c.payload + sizeof(m), m.text_size))
				return -ENOMEM;
		} else if (c.type == DF_CHUNK_COMM) {
			struct df_comm m;

			memcpy(&m, c.payload, sizeof(m));
			if (maps_index_add_comm(&x->maps, m.pid, m.tid, m.time, m.comm,
						sizeof(m.comm)))
				return -ENOMEM;
		} else if (c.type == DF_CHUNK_KALLSYMS) {
			struct df_kallsyms k;

			memcpy(&k, c.payload, sizeof(k));
			if (kallsyms_parse(x, (const char *)c.payload + sizeof(k),
					   strnlen((const char *)c.payload + sizeof(k), k.text_size)))
				return -ENOMEM;
		} else if (c.type == DF_CHUNK_END) {
			p->complete = 1;
		} else if (c.type == DF_CHUNK_RECORDS) {
			ret = df_check_records(&x->df, &c, e, sizeof(e));
			if (ret < 0) {
				cg_err(err, errlen, "%s", e);
				return ret;
			}
		}
	}
	if (ret < 0) {
		cg_err(err, errlen, "bad file: %s", e);
		return ret;
	}
	if (maps_index_sort(&x->maps))
		return -ENOMEM;
	p->has_kallsyms = x->nksyms > 0;
	return 0;
}

static int cg_samples(struct cg_profile *p, const struct cg_load_opts *o, uint32_t timer_ev)
{
	struct cg_priv *x = p->priv;
	size_t off = x->df.first_chunk;
	uint64_t first = 0, last = 0;
	int have = 0, ret;
	struct df_view c;
	char e[256];

	while (df_next(&x->df, &off, &c, e, sizeof(e)) == 1) {
		struct pmuscope_rec r;
		size_t roff = 0;

		if (c.type != DF_CHUNK_RECORDS)
			continue;
		while (pmuscope_record_next(c.payload, c.len, &roff, &r, e, sizeof(e)) == 1) {
			if (!have || r.time < first)
				first = r.time;
			if (!have || r.time > last)
				last = r.time;
			have = 1;
			if (r.type == PMUSCOPE_REC_LOST) {
				p->lost += r.value;
				continue;
			}
			if (r.type == PMUSCOPE_REC_THROTTLED) {
				p->throttled++;
				continue;
			}
			if (r.type != PMUSCOPE_REC_SAMPLE)
				continue;
			p->records++;
			if (o && o->pid >= 0 && r.pid != (uint32_t)o->pid)
				continue;
			ret = cg_sample_add(p, &r, timer_ev);
			if (ret)
				return ret;
		}
	}
	if (have)
		p->duration_ns = cg_ns(&x->df.info, last) - cg_ns(&x->df.info, first);
	for (size_t i = 0; i < p->nr_samples; i++)
		p->samples[i].frames = x->chain + x->chain_at[i];
	return 0;
}

int cg_load(struct cg_profile *p, const char *path, const struct cg_load_opts *opts,
	    char *err, size_t errlen)
{
	struct cg_priv *x;
	const struct df_info *in;
	uint32_t timer_ev;
	int ret;

	memset(p, 0, sizeof(*p));
	p->file = path;
	x = calloc(1, sizeof(*x));
	if (!x) {
		cg_err(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	p->priv = x;
	ret = df_open(&x->df, path, err, errlen);
	if (ret)
		return ret;
	in = &x->df.info;
	p->df_flags = in->flags;
	/* The recorded events, then the timer's (time-based samples), named as report does. */
	p->events = calloc(in->nr_events + 1, sizeof(*p->events));
	x->syms = sym_new(opts ? opts->symfs : NULL);
	x->si = malloc(sizeof(*x->si));
	if (!p->events || !x->syms || !x->si) {
		cg_err(err, errlen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (unsigned int i = 0; i < in->nr_events; i++) {
		report_event_key(in->evs, i, in->kernel_el, x->keys[i], sizeof(x->keys[i]));
		p->events[i].name = in->evs[i].name;
		p->events[i].label = x->keys[i];
	}
	p->nr_events = in->nr_events;
	timer_ev = in->nr_events;
	ret = cg_scan(p, err, errlen);
	if (ret) {
		if (ret == -ENOMEM)
			cg_err(err, errlen, "%s", strerror(ENOMEM));
		return ret;
	}
	ret = cg_samples(p, opts, timer_ev);
	if (ret) {
		cg_err(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->samples[i].event == timer_ev) {
			/* Time-based samples: their period is in ns, of this event. */
			snprintf(x->keys[timer_ev], sizeof(x->keys[timer_ev]), "cpu-clock");
			p->events[timer_ev].name = "TIMER";
			p->events[timer_ev].label = x->keys[timer_ev];
			p->nr_events = in->nr_events + 1;
			break;
		}
	p->load_allocs = x->allocs;
	p->load_bytes = x->bytes;
	p->nr_resolved = x->nres;
	return 0;
}

void cg_free(struct cg_profile *p)
{
	struct cg_priv *x = p->priv;

	if (x) {
		for (struct arena_blk *b = x->arena, *n; b; b = n) {
			n = b->next;
			free(b);
		}
		free(x->strs);
		free(x->ftab.slot);
		free(x->rtab.slot);
		free(x->res);
		free(x->rframes);
		free(x->si);
		free(x->ksyms);
		free(x->ktext);
		free(x->chain);
		free(x->chain_at);
		maps_index_free(&x->maps);
		sym_free(x->syms);
		df_close(&x->df);
		free(x);
	}
	free(p->events);
	free(p->samples);
	free(p->frames);
	memset(p, 0, sizeof(*p));
}

const char *cg_comm(const struct cg_sample *s, char *buf, size_t len)
{
	if (s->comm && s->comm[0])
		return s->comm;
	if (!s->pid)
		return "swapper";
	snprintf(buf, len, ":%u", s->tid);
	return buf;
}

int cg_argv(const struct cg_profile *p, char ***argv)
{
	const struct cg_priv *x = p->priv;

	*argv = x ? x->df.info.argv : NULL;
	return x ? x->df.info.argc : 0;
}
