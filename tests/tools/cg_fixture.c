// SPDX-License-Identifier: GPL-2.0
/*
 * Call-graph profiles with a known call tree, written as the CLI writes
 * them (flamegraph.c, pprof.c), for tests/host/test_formats.py, which
 * reads them with the real consumers (go tool pprof, Chromium).
 *
 *   cg_fixture flamegraph FILE.svg EVENT [TITLE]   the fixture's flame graph
 *   cg_fixture pprof FILE.pb.gz                    the fixture as pprof
 *   cg_fixture evil-flamegraph FILE.svg            hostile names, deep chains
 *   cg_fixture evil-pprof FILE.pb.gz
 *   cg_fixture gzip IN OUT                         IN in cg_gzip_stored()'s container
 *
 * The fixture (all of pid 100, comm "cg-fixture"): two events, cycles
 * (CPU_CYCLES) and instructions (INST_RETIRED);
 *   cycles, period 1000:       60 x main->a->b->leaf      (tid 101, cpu 1)
 *                              40 x main->c->c_helper->leaf (tid 100, cpu 0;
 *                                   c_helper inlined in c)
 *                              10 x main->write->el0_svc->invoke_syscall
 *                                   (libc, then the kernel; tid 100, cpu 2)
 *   instructions, period 2000: 30 x main->a->b->leaf, 20 x main->c->c_helper->leaf
 * Exit 0, or 1 with the writer's message on stderr.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "flamegraph.h"
#include "pprof.h"
#include "read-file.h"

#define EXE	"/usr/bin/cg-fixture"
#define EXE_ID	"4a1cf1e2d3c4b5a697887766554433221100ffee"
#define LIBC	"/usr/lib/aarch64-linux-gnu/libc.so.6"
#define LIBC_ID	"0badc0de0123456789abcdef0123456789abcdef"
#define KERNEL	"[kernel.kallsyms]"

#define EXE_START	0xaaaa00000000ULL
#define LIBC_START	0xffff80000000ULL

#define UFRAME(n, a, off, s) { .addr = EXE_START + (a), .sym = (n), .sym_off = (off), \
	.dso = EXE, .map_start = EXE_START, .map_end = EXE_START + 0x2000, \
	.build_id = EXE_ID, .src = (s) }

static struct cg_frame fx_frames[] = {
	UFRAME("main", 0x754, 0x34, "fixture.c:40"),		/* 1: calls a, c */
	UFRAME("a", 0x714, 0x14, "fixture.c:20"),
	UFRAME("b", 0x6f4, 0x14, "fixture.c:15"),
	UFRAME("leaf", 0x6c0, 0x10, "fixture.c:8"),
	UFRAME("c", 0x734, 0x24, "fixture.c:30"),		/* 5 */
	{ .addr = EXE_START + 0x734, .sym = "c_helper", .sym_off = 0x24, .dso = EXE,
	  .map_start = EXE_START, .map_end = EXE_START + 0x2000, .build_id = EXE_ID,
	  .src = "fixture.c:26", .flags = CG_FRAME_INLINED },
	{ .addr = LIBC_START + 0xd0010, .sym = "write", .sym_off = 0x10, .dso = LIBC,
	  .map_start = LIBC_START, .map_end = LIBC_START + 0x180000, .build_id = LIBC_ID },
	{ .addr = 0xffff800080012340ULL, .sym = "el0_svc", .sym_off = 0x40, .dso = KERNEL,
	  .flags = CG_FRAME_KERNEL },
	{ .addr = 0xffff800080011000ULL, .sym = "invoke_syscall", .sym_off = 0x0, .dso = KERNEL,
	  .flags = CG_FRAME_KERNEL },
	UFRAME("main", 0x760, 0x40, "fixture.c:41"),		/* 10: calls write */
};

#define F(i) (&fx_frames[(i) - 1])
static const struct cg_frame *fx_chain_ab[] = { F(4), F(3), F(2), F(1) };
static const struct cg_frame *fx_chain_c[] = { F(4), F(6), F(5), F(1) };
static const struct cg_frame *fx_chain_k[] = { F(9), F(8), F(7), F(10) };

static struct cg_event fx_events[] = {
	{ .name = "CPU_CYCLES", .label = "cycles" },
	{ .name = "INST_RETIRED", .label = "instructions" },
};

static void fx_add(struct cg_sample *s, size_t *n, int count, uint32_t event, uint64_t period,
		   uint32_t tid, uint32_t cpu, const struct cg_frame **chain, uint32_t nr)
{
	for (int i = 0; i < count; i++, (*n)++)
		s[*n] = (struct cg_sample){
			.pid = 100, .tid = tid, .cpu = cpu, .event = event,
			.time_ns = *n * 1000000ULL, .period = period, .comm = "cg-fixture",
			.nr = nr, .frames = chain,
		};
}

static void fixture(struct cg_profile *p)
{
	static struct cg_sample s[200];
	static const struct cg_frame *all[sizeof(fx_frames) / sizeof(fx_frames[0])];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(fx_frames) / sizeof(fx_frames[0]); i++) {
		fx_frames[i].id = (uint32_t)i + 1;
		all[i] = &fx_frames[i];
	}
	fx_add(s, &n, 60, 0, 1000, 101, 1, fx_chain_ab, 4);
	fx_add(s, &n, 40, 0, 1000, 100, 0, fx_chain_c, 4);
	fx_add(s, &n, 10, 0, 1000, 100, 2, fx_chain_k, 4);
	fx_add(s, &n, 30, 1, 2000, 101, 1, fx_chain_ab, 4);
	fx_add(s, &n, 20, 1, 2000, 100, 0, fx_chain_c, 4);
	*p = (struct cg_profile){
		.file = NULL, .nr_events = 2, .events = fx_events, .samples = s,
		.nr_samples = n, .frames = all, .nr_frames = n ? sizeof(all) / sizeof(all[0]) : 0,
		.duration_ns = 160000000ULL, .lost = 3,
	};
}

/*
 * Hostile input: markup and quotes in names, bad UTF-8 and control
 * characters, a 200,000-character name, a chain 3,000 frames deep.
 */
#define EVIL_DEPTH	3000
static void evil(struct cg_profile *p)
{
	static const char *names[] = {
		"a<b>&\"c\"'d'", "</script><script>alert(1)</script>", "]]>x');alert(1);//",
		"bad\xff\xfeutf8\x01\x1f", "caf\xc3\xa9 \xe2\x82\xac",
	};
	static struct cg_frame fr[EVIL_DEPTH + 8];
	static const struct cg_frame *chain[EVIL_DEPTH + 8], *all[EVIL_DEPTH + 8];
	static const struct cg_frame *deep[EVIL_DEPTH];
	static struct cg_sample s[3];
	static char longname[200001];
	static char depth_names[EVIL_DEPTH][16];
	uint32_t nf = 0;

	memset(longname, 'L', sizeof(longname) - 1);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fr[nf++] = (struct cg_frame){ .addr = 0x1000 + i, .sym = names[i], .dso = "/x<&>.so",
					      .map_start = 0x1000, .map_end = 0x2000 };
	fr[nf++] = (struct cg_frame){ .addr = 0x1100, .sym = longname, .dso = "/x<&>.so",
				      .map_start = 0x1000, .map_end = 0x2000 };
	fr[nf++] = (struct cg_frame){ .addr = 0x9999, .sym = NULL, .dso = "[unknown]" };
	for (uint32_t i = 0; i < nf; i++)
		chain[i] = &fr[i];
	for (uint32_t i = 0; i < EVIL_DEPTH; i++) {
		snprintf(depth_names[i], sizeof(depth_names[i]), "d%u", EVIL_DEPTH - 1 - i);
		fr[nf + i] = (struct cg_frame){ .addr = 0x3000 + i, .sym = depth_names[i],
						.dso = "/deep", .map_start = 0x3000,
						.map_end = 0x3000 + EVIL_DEPTH };
		deep[i] = &fr[nf + i];
	}
	for (uint32_t i = 0; i < nf + EVIL_DEPTH; i++) {
		fr[i].id = i + 1;
		all[i] = &fr[i];
	}
	s[0] = (struct cg_sample){ .pid = 1, .tid = 1, .period = 10, .comm = "<&>",
				   .nr = nf, .frames = chain };
	s[1] = (struct cg_sample){ .pid = 1, .tid = 1, .period = 10, .comm = "x",
				   .nr = EVIL_DEPTH, .frames = deep };
	*p = (struct cg_profile){
		.nr_events = 1, .events = fx_events, .samples = s, .nr_samples = 2,
		.frames = all, .nr_frames = nf + EVIL_DEPTH,
	};
}

static int write_svg(const char *path, const struct cg_profile *p, uint32_t event,
		     const char *title)
{
	char err[256];
	FILE *f = fopen(path, "w");
	int ret;

	if (!f) {
		perror(path);
		return 1;
	}
	ret = cg_flamegraph_write(f, p, event, title, err, sizeof(err));
	if (fclose(f) && !ret) {
		perror(path);
		return 1;
	}
	if (ret)
		fprintf(stderr, "%s\n", err);
	return ret ? 1 : 0;
}

static int write_pprof(const char *path, const struct cg_profile *p)
{
	char err[256];

	if (cg_pprof_write(path, p, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cg_profile p;
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "flamegraph") && argc >= 4) {
		fixture(&p);
		return write_svg(argv[2], &p, (uint32_t)strtoul(argv[3], NULL, 0),
				 argc > 4 ? argv[4] : NULL);
	}
	if (!strcmp(mode, "pprof") && argc == 3) {
		fixture(&p);
		p.file = argv[0];	/* for time_nanos: any file's mtime */
		return write_pprof(argv[2], &p);
	}
	if (!strcmp(mode, "evil-flamegraph") && argc == 3) {
		evil(&p);
		return write_svg(argv[2], &p, 0, NULL);
	}
	if (!strcmp(mode, "evil-pprof") && argc == 3) {
		evil(&p);
		return write_pprof(argv[2], &p);
	}
	if (!strcmp(mode, "gzip") && argc == 4) {
		size_t len;
		char *data = cli_read_file(argv[2], &len);
		FILE *f;
		int ret;

		if (!data) {
			perror(argv[2]);
			return 1;
		}
		f = fopen(argv[3], "wb");
		ret = !f || cg_gzip_stored(f, data, len);
		if (f && fclose(f))
			ret = 1;
		free(data);
		if (ret)
			perror(argv[3]);
		return ret;
	}
	fprintf(stderr, "usage: cg_fixture flamegraph FILE EVENT [TITLE] | pprof FILE |"
		" evil-flamegraph FILE | evil-pprof FILE | gzip IN OUT\n");
	return 2;
}
