// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: a call-graph profile as pprof's profile.proto, gzipped.
 *
 * The protobuf is written by hand (varints, length-delimited fields;
 * the field numbers of proto/profile.proto) into one buffer: samples as
 * they come, then the mappings, locations, functions and the string table
 * they made. The gzip container holds it in stored deflate blocks with
 * its CRC-32: every reader takes it, and nothing is linked that the
 * static arm64 CLI does not have.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pprof.h"

/* profile.proto's field numbers */
enum {
	PF_SAMPLE_TYPE = 1, PF_SAMPLE, PF_MAPPING, PF_LOCATION, PF_FUNCTION,
	PF_STRING_TABLE, PF_TIME_NANOS = 9, PF_DURATION_NANOS, PF_PERIOD_TYPE,
	PF_PERIOD, PF_COMMENT, PF_DEFAULT_SAMPLE_TYPE,
};
enum { VT_TYPE = 1, VT_UNIT };
enum { SA_LOCATION_ID = 1, SA_VALUE, SA_LABEL };
enum { LA_KEY = 1, LA_STR, LA_NUM, LA_NUM_UNIT };
enum {
	MA_ID = 1, MA_START, MA_LIMIT, MA_OFFSET, MA_FILENAME, MA_BUILD_ID,
	MA_HAS_FUNCTIONS, MA_HAS_FILENAMES, MA_HAS_LINE_NUMBERS, MA_HAS_INLINE_FRAMES,
};
enum { LO_ID = 1, LO_MAPPING_ID, LO_ADDRESS, LO_LINE };
enum { LI_FUNCTION_ID = 1, LI_LINE };
enum { FN_ID = 1, FN_NAME, FN_SYSTEM_NAME, FN_FILENAME };

#define WT_VARINT	0
#define WT_LEN		2

struct pb {
	uint8_t *d;
	size_t len, cap;
	int oom;
};

static void pb_put(struct pb *b, const void *data, size_t len)
{
	if (b->oom || !len)
		return;
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *d;

		while (cap < b->len + len)
			cap *= 2;
		d = realloc(b->d, cap);
		if (!d) {
			b->oom = 1;
			return;
		}
		b->d = d;
		b->cap = cap;
	}
	memcpy(b->d + b->len, data, len);
	b->len += len;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t buf[10];
	size_t n = 0;

	do {
		buf[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_put(b, buf, n);
}

/* A varint field; proto3 leaves zeros out. */
static void pb_uint(struct pb *b, unsigned int field, uint64_t v)
{
	if (!v)
		return;
	pb_varint(b, (uint64_t)field << 3 | WT_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned int field, const void *data, size_t len)
{
	pb_varint(b, (uint64_t)field << 3 | WT_LEN);
	pb_varint(b, len);
	pb_put(b, data, len);
}

/* @sub as a field of @b, @sub emptied for the next one. */
static void pb_msg(struct pb *b, unsigned int field, struct pb *sub)
{
	if (sub->oom)
		b->oom = 1;
	pb_bytes(b, field, sub->d, sub->len);
	sub->len = 0;
}

/*
 * An open-addressing index over one of the tables below: slots hold an
 * entry's index + 1; the caller compares.
 */
struct pp_index {
	uint32_t *slots;
	size_t n;
};

struct pp_mapping {
	const char *dso, *build_id;
	uint64_t start, end, pgoff;
	int kernel;
	int all_functions, all_files, inlines;
	uint64_t roots;		/* samples whose outermost user frame is here */
};

struct pp_function {
	const char *name;
	const char *file;	/* src up to its ":line", NUL-terminated copy; NULL */
};

struct pp_location {
	const struct cg_frame *const *frames;	/* innermost first */
	uint32_t nr;
	uint32_t mapping;	/* index + 1; 0: none */
};

struct pp {
	const struct cg_profile *p;
	const char **strs;
	size_t nr_strs, cap_strs;
	struct pp_index istr;
	struct pp_mapping *maps;
	size_t nr_maps, cap_maps;
	struct pp_index imap;
	struct pp_function *funcs;
	size_t nr_funcs, cap_funcs;
	struct pp_index ifunc;
	struct pp_location *locs;
	size_t nr_locs, cap_locs;
	struct pp_index iloc;
	int oom;
};

static uint64_t pp_fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *s = data;

	for (size_t i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t pp_fnv_str(uint64_t h, const char *s)
{
	return s ? pp_fnv(h, s, strlen(s) + 1) : pp_fnv(h, "\xff", 1);
}

static int pp_streq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Room for one more entry of @size bytes in *@tab (@nr used of *@cap). */
static int pp_grow(void **tab, size_t *cap, size_t nr, size_t size)
{
	void *t;
	size_t n;

	if (nr < *cap)
		return 0;
	n = *cap ? *cap * 2 : 64;
	if (n > UINT32_MAX - 1)
		return -1;
	t = realloc(*tab, n * size);
	if (!t)
		return -1;
	*tab = t;
	*cap = n;
	return 0;
}

/*
 * The slot for @hash in @ix where eq(pp, index, key) holds, or the empty
 * slot where it goes; the index grows first when @nr entries would fill
 * half of it. NULL: no memory.
 */
static uint32_t *pp_slot(struct pp *pp, struct pp_index *ix, size_t nr, uint64_t hash,
			 int (*eq)(const struct pp *, size_t, const void *),
			 uint64_t (*rehash)(const struct pp *, size_t), const void *key)
{
	size_t k;

	if ((nr + 1) * 2 > ix->n) {
		size_t n = ix->n ? ix->n * 2 : 256;
		uint32_t *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return NULL;
		for (size_t i = 0; i < nr; i++) {
			k = rehash(pp, i) & (n - 1);
			while (slots[k])
				k = (k + 1) & (n - 1);
			slots[k] = (uint32_t)i + 1;
		}
		free(ix->slots);
		ix->slots = slots;
		ix->n = n;
	}
	k = hash & (ix->n - 1);
	while (ix->slots[k] && !eq(pp, ix->slots[k] - 1, key))
		k = (k + 1) & (ix->n - 1);
	return &ix->slots[k];
}

static uint64_t pp_str_hash(const struct pp *pp, size_t i)
{
	return pp_fnv_str(0xcbf29ce484222325ULL, pp->strs[i]);
}

static int pp_str_eq(const struct pp *pp, size_t i, const void *key)
{
	return !strcmp(pp->strs[i], key);
}

/* @s's index in the string table, added if new; "" is 0. */
static uint64_t pp_str(struct pp *pp, const char *s)
{
	uint32_t *slot;

	if (!s || !*s)
		return 0;
	slot = pp_slot(pp, &pp->istr, pp->nr_strs, pp_fnv_str(0xcbf29ce484222325ULL, s),
		       pp_str_eq, pp_str_hash, s);
	if (!slot) {
		pp->oom = 1;
		return 0;
	}
	if (*slot)
		return *slot - 1;
	if (pp_grow((void **)&pp->strs, &pp->cap_strs, pp->nr_strs, sizeof(*pp->strs))) {
		pp->oom = 1;
		return 0;
	}
	pp->strs[pp->nr_strs] = s;
	*slot = (uint32_t)pp->nr_strs + 1;
	return pp->nr_strs++;
}

static uint64_t pp_map_hash_key(const struct pp_mapping *m)
{
	uint64_t h = pp_fnv_str(0xcbf29ce484222325ULL, m->dso);

	if (m->kernel)
		return h;
	h = pp_fnv(h, &m->start, sizeof(m->start));
	h = pp_fnv(h, &m->end, sizeof(m->end));
	return pp_fnv(h, &m->pgoff, sizeof(m->pgoff));
}

static uint64_t pp_map_hash(const struct pp *pp, size_t i)
{
	return pp_map_hash_key(&pp->maps[i]);
}

static int pp_map_eq(const struct pp *pp, size_t i, const void *key)
{
	const struct pp_mapping *a = &pp->maps[i], *b = key;

	if (a->kernel != b->kernel || !pp_streq(a->dso, b->dso))
		return 0;
	return a->kernel || (a->start == b->start && a->end == b->end && a->pgoff == b->pgoff);
}

/*
 * The mapping of frame @fr, index + 1, made if new; 0 where the frame
 * has none (a user frame outside every known mapping). A kernel object
 * is one mapping whose range grows over its frames' addresses.
 */
static uint32_t pp_mapping(struct pp *pp, const struct cg_frame *fr)
{
	struct pp_mapping key = { .dso = fr->dso, .build_id = fr->build_id };
	struct pp_mapping *m;
	uint32_t *slot;

	key.kernel = !!(fr->flags & CG_FRAME_KERNEL);
	if (!fr->dso)
		return 0;
	if (!key.kernel) {
		if (fr->map_end <= fr->map_start)
			return 0;
		key.start = fr->map_start;
		key.end = fr->map_end;
		key.pgoff = fr->map_pgoff;
	}
	slot = pp_slot(pp, &pp->imap, pp->nr_maps, pp_map_hash_key(&key), pp_map_eq,
		       pp_map_hash, &key);
	if (!slot) {
		pp->oom = 1;
		return 0;
	}
	if (!*slot) {
		if (pp_grow((void **)&pp->maps, &pp->cap_maps, pp->nr_maps, sizeof(*pp->maps))) {
			pp->oom = 1;
			return 0;
		}
		key.all_functions = key.all_files = 1;
		if (key.kernel)
			key.start = key.end = fr->addr;
		pp->maps[pp->nr_maps] = key;
		*slot = (uint32_t)++pp->nr_maps;
	}
	m = &pp->maps[*slot - 1];
	if (m->kernel) {
		if (fr->addr < m->start)
			m->start = fr->addr;
		if (fr->addr >= m->end)
			m->end = fr->addr + 1;
	}
	if (!m->build_id)
		m->build_id = fr->build_id;
	return *slot;
}

/* The length of @src's file part: "file.c:12" -> 6; all of it without a line. */
static size_t pp_src_file_len(const char *src, long *line)
{
	const char *colon = strrchr(src, ':');
	char *end;
	long n;

	*line = 0;
	if (!colon || colon == src || !colon[1])
		return strlen(src);
	errno = 0;
	n = strtol(colon + 1, &end, 10);
	if (*end || errno || n < 0)
		return strlen(src);
	*line = n;
	return (size_t)(colon - src);
}

static uint64_t pp_func_hash_key(const char *name, const char *file, size_t file_len)
{
	uint64_t h = pp_fnv_str(0xcbf29ce484222325ULL, name);

	return file ? pp_fnv(h, file, file_len) : h;
}

static uint64_t pp_func_hash(const struct pp *pp, size_t i)
{
	const struct pp_function *f = &pp->funcs[i];

	return pp_func_hash_key(f->name, f->file, f->file ? strlen(f->file) : 0);
}

struct pp_func_key {
	const char *name, *file;
	size_t file_len;
};

static int pp_func_eq(const struct pp *pp, size_t i, const void *key)
{
	const struct pp_function *f = &pp->funcs[i];
	const struct pp_func_key *k = key;

	if (strcmp(f->name, k->name))
		return 0;
	if (!f->file || !k->file)
		return !f->file && !k->file;
	return strlen(f->file) == k->file_len && !memcmp(f->file, k->file, k->file_len);
}

/* The function of frame @fr, index + 1, made if new; its line in *@line. */
static uint32_t pp_function(struct pp *pp, const struct cg_frame *fr, long *line)
{
	struct pp_func_key key = { .name = fr->sym };
	uint32_t *slot;

	*line = 0;
	if (fr->src && fr->src[0]) {
		key.file = fr->src;
		key.file_len = pp_src_file_len(fr->src, line);
	}
	slot = pp_slot(pp, &pp->ifunc, pp->nr_funcs,
		       pp_func_hash_key(key.name, key.file, key.file_len),
		       pp_func_eq, pp_func_hash, &key);
	if (!slot) {
		pp->oom = 1;
		return 0;
	}
	if (!*slot) {
		struct pp_function *f;

		if (pp_grow((void **)&pp->funcs, &pp->cap_funcs, pp->nr_funcs,
			    sizeof(*pp->funcs))) {
			pp->oom = 1;
			return 0;
		}
		f = &pp->funcs[pp->nr_funcs];
		f->name = fr->sym;
		f->file = NULL;
		if (key.file) {
			char *file = strndup(key.file, key.file_len);

			if (!file) {
				pp->oom = 1;
				return 0;
			}
			f->file = file;
		}
		*slot = (uint32_t)++pp->nr_funcs;
	}
	return *slot;
}

struct pp_loc_key {
	const struct cg_frame *const *frames;
	uint32_t nr;
};

static uint64_t pp_loc_hash_key(const struct cg_frame *const *frames, uint32_t nr)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (uint32_t i = 0; i < nr; i++)
		h = pp_fnv(h, &frames[i], sizeof(frames[i]));
	return h;
}

static uint64_t pp_loc_hash(const struct pp *pp, size_t i)
{
	return pp_loc_hash_key(pp->locs[i].frames, pp->locs[i].nr);
}

static int pp_loc_eq(const struct pp *pp, size_t i, const void *key)
{
	const struct pp_loc_key *k = key;

	return pp->locs[i].nr == k->nr &&
	       !memcmp(pp->locs[i].frames, k->frames, k->nr * sizeof(*k->frames));
}

/*
 * The location of @nr frames at @frames (inlined ones, then the function
 * they are inlined into), id = index + 1, made if new; 0: no memory.
 */
static uint32_t pp_location(struct pp *pp, const struct cg_frame *const *frames, uint32_t nr)
{
	struct pp_loc_key key = { frames, nr };
	uint32_t *slot = pp_slot(pp, &pp->iloc, pp->nr_locs, pp_loc_hash_key(frames, nr),
				 pp_loc_eq, pp_loc_hash, &key);

	if (!slot) {
		pp->oom = 1;
		return 0;
	}
	if (!*slot) {
		struct pp_location *l;

		if (pp_grow((void **)&pp->locs, &pp->cap_locs, pp->nr_locs, sizeof(*pp->locs))) {
			pp->oom = 1;
			return 0;
		}
		l = &pp->locs[pp->nr_locs];
		l->frames = frames;
		l->nr = nr;
		l->mapping = pp_mapping(pp, frames[nr - 1]);
		if (l->mapping) {
			struct pp_mapping *m = &pp->maps[l->mapping - 1];

			for (uint32_t i = 0; i < nr; i++) {
				if (!frames[i]->sym)
					m->all_functions = 0;
				if (!frames[i]->src)
					m->all_files = 0;
			}
			if (nr > 1)
				m->inlines = 1;
		}
		*slot = (uint32_t)++pp->nr_locs;
	}
	return *slot;
}

/* How many frames from @frames[0] make one location (inlined ones and their caller). */
static uint32_t pp_group(const struct cg_frame *const *frames, uint32_t nr)
{
	uint32_t n = 1;

	while (n < nr && (frames[n - 1]->flags & CG_FRAME_INLINED) && frames[n] &&
	       frames[n]->addr == frames[n - 1]->addr)
		n++;
	return n;
}

/*
 * A label: @str (a string's index) or @num with its unit @unit. pprof
 * drops a number label whose num and num_unit are both 0 (cpu 0): a
 * number always has its unit.
 */
static void pp_label(struct pb *sub, struct pb *lab, uint64_t key, uint64_t str, uint64_t num,
		     uint64_t unit)
{
	pb_uint(lab, LA_KEY, key);
	pb_uint(lab, LA_STR, str);
	pb_uint(lab, LA_NUM, num);
	pb_uint(lab, LA_NUM_UNIT, unit);
	pb_msg(sub, SA_LABEL, lab);
}

static uint64_t pp_event_type(struct pp *pp, const struct cg_event *ev)
{
	return pp_str(pp, ev->label && ev->label[0] ? ev->label : ev->name ? ev->name : "event");
}

/*
 * An event's unit: a count of events, or nanoseconds for the samples of
 * the timer (record -F: the loader's cpu-clock, its period the interval).
 */
static uint64_t pp_event_unit(struct pp *pp, const struct cg_event *ev)
{
	return pp_str(pp, ev->name && !strcmp(ev->name, "TIMER") ? "nanoseconds" : "count");
}

/* The event most samples are of: pprof's default view and period type. */
static uint32_t pp_main_event(const struct cg_profile *p)
{
	uint32_t best = 0;
	size_t *n = calloc(p->nr_events, sizeof(*n));

	if (!n)
		return 0;
	for (size_t i = 0; i < p->nr_samples; i++)
		if (p->samples[i].event < p->nr_events)
			n[p->samples[i].event]++;
	for (uint32_t e = 1; e < p->nr_events; e++)
		if (n[e] > n[best])
			best = e;
	free(n);
	return best;
}

/* The samples into @b, and the tables they reference into @pp. */
static void pp_samples(struct pp *pp, struct pb *b, uint64_t *values)
{
	const struct cg_profile *p = pp->p;
	struct pb sub = { 0 }, ids = { 0 }, vals = { 0 }, lab = { 0 };
	uint64_t k_pid = pp_str(pp, "pid"), k_tid = pp_str(pp, "tid");
	uint64_t k_cpu = pp_str(pp, "cpu"), k_comm = pp_str(pp, "comm");
	uint64_t unit = pp_str(pp, "id");

	for (size_t i = 0; i < p->nr_samples && !pp->oom; i++) {
		const struct cg_sample *s = &p->samples[i];
		uint32_t root_map = 0;

		if (s->event >= p->nr_events)
			continue;
		for (uint32_t j = 0; j < s->nr;) {
			const struct cg_frame *const *fr = s->frames + j;
			uint32_t n, loc;

			if (!*fr) {
				j++;
				continue;
			}
			n = pp_group(fr, s->nr - j);
			loc = pp_location(pp, fr, n);
			if (!loc)
				break;
			pb_varint(&ids, loc);
			if (!(fr[n - 1]->flags & CG_FRAME_KERNEL) && pp->locs[loc - 1].mapping)
				root_map = pp->locs[loc - 1].mapping;
			j += n;
		}
		if (root_map)
			pp->maps[root_map - 1].roots++;
		memset(values, 0, p->nr_events * sizeof(*values));
		values[s->event] = s->period;
		for (uint32_t e = 0; e < p->nr_events; e++)
			pb_varint(&vals, values[e]);
		pb_bytes(&sub, SA_LOCATION_ID, ids.d, ids.len);
		pb_bytes(&sub, SA_VALUE, vals.d, vals.len);
		ids.len = vals.len = 0;
		pp_label(&sub, &lab, k_pid, 0, s->pid, unit);
		pp_label(&sub, &lab, k_tid, 0, s->tid, unit);
		pp_label(&sub, &lab, k_cpu, 0, s->cpu, unit);
		if (s->comm && s->comm[0])
			pp_label(&sub, &lab, k_comm, pp_str(pp, s->comm), 0, 0);
		if (ids.oom || vals.oom || lab.oom)
			pp->oom = 1;
		pb_msg(b, PF_SAMPLE, &sub);
	}
	free(sub.d);
	free(ids.d);
	free(vals.d);
	free(lab.d);
}

/* The profile's other fields into @b, the mapping of the most samples' root first. */
static void pp_tables(struct pp *pp, struct pb *b)
{
	struct pb sub = { 0 }, line = { 0 };
	uint32_t *map_id = calloc(pp->nr_maps + 1, sizeof(*map_id));
	size_t main_map = 0;
	uint32_t id = 2;

	if (!map_id) {
		pp->oom = 1;
		return;
	}
	for (size_t i = 1; i < pp->nr_maps; i++)
		if (pp->maps[i].roots > pp->maps[main_map].roots)
			main_map = i;
	for (size_t i = 0; i < pp->nr_maps; i++)
		map_id[i + 1] = i == main_map ? 1 : id++;
	for (size_t k = 0; k < pp->nr_maps; k++) {
		size_t i = k == 0 ? main_map : k <= main_map ? k - 1 : k;
		const struct pp_mapping *m = &pp->maps[i];

		pb_uint(&sub, MA_ID, map_id[i + 1]);
		pb_uint(&sub, MA_START, m->start);
		pb_uint(&sub, MA_LIMIT, m->end);
		pb_uint(&sub, MA_OFFSET, m->pgoff);
		pb_uint(&sub, MA_FILENAME, pp_str(pp, m->dso));
		pb_uint(&sub, MA_BUILD_ID, pp_str(pp, m->build_id));
		pb_uint(&sub, MA_HAS_FUNCTIONS, m->all_functions);
		pb_uint(&sub, MA_HAS_FILENAMES, m->all_files);
		pb_uint(&sub, MA_HAS_LINE_NUMBERS, m->all_files);
		pb_uint(&sub, MA_HAS_INLINE_FRAMES, m->inlines && m->all_files);
		pb_msg(b, PF_MAPPING, &sub);
	}
	for (size_t i = 0; i < pp->nr_locs && !pp->oom; i++) {
		const struct pp_location *l = &pp->locs[i];

		pb_uint(&sub, LO_ID, i + 1);
		pb_uint(&sub, LO_MAPPING_ID, map_id[l->mapping]);
		pb_uint(&sub, LO_ADDRESS, l->frames[l->nr - 1]->addr);
		for (uint32_t j = 0; j < l->nr; j++) {
			long ln;
			uint32_t fn;

			if (!l->frames[j]->sym)
				continue;
			fn = pp_function(pp, l->frames[j], &ln);
			pb_uint(&line, LI_FUNCTION_ID, fn);
			pb_uint(&line, LI_LINE, (uint64_t)ln);
			pb_msg(&sub, LO_LINE, &line);
		}
		pb_msg(b, PF_LOCATION, &sub);
	}
	for (size_t i = 0; i < pp->nr_funcs; i++) {
		const struct pp_function *f = &pp->funcs[i];
		uint64_t name = pp_str(pp, f->name);

		pb_uint(&sub, FN_ID, i + 1);
		pb_uint(&sub, FN_NAME, name);
		pb_uint(&sub, FN_SYSTEM_NAME, name);
		pb_uint(&sub, FN_FILENAME, pp_str(pp, f->file));
		pb_msg(b, PF_FUNCTION, &sub);
	}
	if (sub.oom || line.oom)
		pp->oom = 1;
	free(sub.d);
	free(line.d);
	free(map_id);
}

static const uint32_t *pp_crc_table(void)
{
	static uint32_t table[256];
	static int done;

	if (!done) {
		for (uint32_t n = 0; n < 256; n++) {
			uint32_t c = n;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
			table[n] = c;
		}
		done = 1;
	}
	return table;
}

int cg_gzip_stored(FILE *f, const void *data, size_t len)
{
	static const uint8_t header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	const uint32_t *table = pp_crc_table();
	const uint8_t *d = data;
	uint32_t crc = 0xffffffffU;
	uint8_t trailer[8];
	size_t off = 0;

	if (fwrite(header, 1, sizeof(header), f) != sizeof(header))
		return -1;
	for (size_t i = 0; i < len; i++)
		crc = table[(crc ^ d[i]) & 0xff] ^ (crc >> 8);
	crc ^= 0xffffffffU;
	do {
		size_t n = len - off > 65535 ? 65535 : len - off;
		uint8_t blk[5] = {
			off + n == len,		/* BFINAL, BTYPE 00: stored */
			(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)~n, (uint8_t)(~n >> 8),
		};

		if (fwrite(blk, 1, sizeof(blk), f) != sizeof(blk) ||
		    fwrite(d + off, 1, n, f) != n)
			return -1;
		off += n;
	} while (off < len);
	for (int i = 0; i < 4; i++) {
		trailer[i] = (uint8_t)(crc >> (8 * i));
		trailer[4 + i] = (uint8_t)((uint64_t)len >> (8 * i));
	}
	if (fwrite(trailer, 1, sizeof(trailer), f) != sizeof(trailer))
		return -1;
	return 0;
}

static void pp_free(struct pp *pp)
{
	for (size_t i = 0; i < pp->nr_funcs; i++)
		free((char *)pp->funcs[i].file);
	free(pp->strs);
	free(pp->istr.slots);
	free(pp->maps);
	free(pp->imap.slots);
	free(pp->funcs);
	free(pp->ifunc.slots);
	free(pp->locs);
	free(pp->iloc.slots);
}

/*
 * The recording's start on the wall clock, ns since the epoch: the record
 * file's last change (its end) less the duration; 0 when not known.
 */
static uint64_t pp_time_nanos(const struct cg_profile *p)
{
	struct stat st;
	uint64_t end;

	if (!p->file || stat(p->file, &st))
		return 0;
	end = (uint64_t)st.st_mtim.tv_sec * 1000000000ULL + (uint64_t)st.st_mtim.tv_nsec;
	return end > p->duration_ns ? end - p->duration_ns : 0;
}

/* Remove @path after a failed write if this call made it, a regular file. */
static void pp_remove_made(const char *path, int made)
{
	struct stat st;

	if (made && !stat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
}

int cg_pprof_write(const char *path, const struct cg_profile *p, char *err, size_t errlen)
{
	struct pp pp = { .p = p };
	struct pb b = { 0 }, sub = { 0 };
	uint64_t *values = NULL, period = 0;
	int same_period = 1, ret = -1, made;
	uint32_t main_ev;
	char comment[64];
	FILE *f;

	if (!p->nr_events) {
		snprintf(err, errlen, "pprof: the profile has no events");
		return -1;
	}
	values = calloc(p->nr_events, sizeof(*values));
	if (!values)
		goto oom;
	main_ev = pp_main_event(p);
	/* string_table[0] is "" (never looked up: pp_str() answers 0 for it) */
	if (pp_grow((void **)&pp.strs, &pp.cap_strs, 0, sizeof(*pp.strs)))
		goto oom;
	pp.strs[pp.nr_strs++] = "";
	for (uint32_t e = 0; e < p->nr_events; e++) {
		pb_uint(&sub, VT_TYPE, pp_event_type(&pp, &p->events[e]));
		pb_uint(&sub, VT_UNIT, pp_event_unit(&pp, &p->events[e]));
		pb_msg(&b, PF_SAMPLE_TYPE, &sub);
	}
	pp_samples(&pp, &b, values);
	pp_tables(&pp, &b);
	pb_uint(&b, PF_TIME_NANOS, pp_time_nanos(p));
	pb_uint(&b, PF_DURATION_NANOS, p->duration_ns);
	pb_uint(&sub, VT_TYPE, pp_event_type(&pp, &p->events[main_ev]));
	pb_uint(&sub, VT_UNIT, pp_event_unit(&pp, &p->events[main_ev]));
	pb_msg(&b, PF_PERIOD_TYPE, &sub);
	for (size_t i = 0, n = 0; i < p->nr_samples; i++) {
		if (p->samples[i].event != main_ev)
			continue;
		if (n++ && p->samples[i].period != period)
			same_period = 0;
		period = p->samples[i].period;
	}
	if (same_period)
		pb_uint(&b, PF_PERIOD, period);
	if (p->lost) {
		snprintf(comment, sizeof(comment), "records lost: %" PRIu64, p->lost);
		pb_uint(&b, PF_COMMENT, pp_str(&pp, comment));
	}
	pb_uint(&b, PF_DEFAULT_SAMPLE_TYPE, pp_event_type(&pp, &p->events[main_ev]));
	for (size_t i = 0; i < pp.nr_strs; i++)
		pb_bytes(&b, PF_STRING_TABLE, pp.strs[i], strlen(pp.strs[i]));
	if (pp.oom || b.oom || sub.oom)
		goto oom;

	/*
	 * A file this call made and could not fill is removed; anything that
	 * was there before (a device such as /dev/full or /dev/stdout, a
	 * file of the user's) never is: a failed write must not unlink it.
	 */
	made = access(path, F_OK) && errno == ENOENT;
	f = fopen(path, "wb");
	if (!f) {
		snprintf(err, errlen, "pprof: cannot create %s: %s", path, strerror(errno));
		goto out;
	}
	if (cg_gzip_stored(f, b.d, b.len) || fflush(f) || ferror(f)) {
		snprintf(err, errlen, "pprof: cannot write %s: %s", path, strerror(errno));
		fclose(f);
		pp_remove_made(path, made);
		goto out;
	}
	if (fclose(f)) {
		snprintf(err, errlen, "pprof: cannot write %s: %s", path, strerror(errno));
		pp_remove_made(path, made);
		goto out;
	}
	ret = 0;
	goto out;
oom:
	snprintf(err, errlen, "pprof: out of memory");
out:
	pp_free(&pp);
	free(values);
	free(b.d);
	free(sub.d);
	return ret;
}
