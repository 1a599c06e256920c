// SPDX-License-Identifier: GPL-2.0
/*
 * insn-profile: a QEMU TCG plugin that counts every guest instruction
 * executed between two marker instructions, per guest address, for
 * scripts/profile.sh (what a pmuscope operation costs, instruction by
 * instruction, and whose instructions they are).
 *
 * The guest opens a window with `mov x27, x27` and closes it with
 * `mov x28, x28` (ORR X27, XZR, X27 and ORR X28, XZR, X28: no effect on
 * any register or flag, and no compiler emits a register's move to
 * itself). On close, every address executed in the window is written to
 * the file named by out=, after a line "window N": "address count", in
 * hexadecimal and decimal. Counts are exact: each instruction carries an
 * inline add executed before it, so an exception in the middle of a
 * translation block counts only what ran. Every vCPU counts into the
 * same window (icount runs them on one host thread).
 *
 * The plugin API is QEMU's, version 1 (QEMU 7.2, Debian 12). The few
 * declarations it needs are written out below rather than taken from
 * qemu-plugin.h, which Debian does not ship.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
struct qemu_info_t;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu, void *udata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *udata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags,
					    void *udata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *udata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define PROF_OPEN	0xaa1b03fbU	/* mov x27, x27 */
#define PROF_CLOSE	0xaa1c03fcU	/* mov x28, x28 */
#define PROF_BLOCK	(1U << 16)

/* One instruction as translated (an address may be translated again). */
struct prof_slot {
	uint64_t vaddr;
	uint64_t count;
};

struct prof_block {
	struct prof_block *next;
	unsigned int used;
	struct prof_slot slot[PROF_BLOCK];
};

static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;
static struct prof_block *prof_blocks;
static FILE *prof_out;
static unsigned int prof_windows;

/* Slots never move: the inline adds point into them. */
static struct prof_slot *prof_slot_new(uint64_t vaddr)
{
	struct prof_slot *s;

	pthread_mutex_lock(&prof_lock);
	if (!prof_blocks || prof_blocks->used == PROF_BLOCK) {
		struct prof_block *b = calloc(1, sizeof(*b));

		if (!b)
			abort();
		b->next = prof_blocks;
		prof_blocks = b;
	}
	s = &prof_blocks->slot[prof_blocks->used++];
	s->vaddr = vaddr;
	pthread_mutex_unlock(&prof_lock);
	return s;
}

static void prof_marker(unsigned int vcpu, void *udata)
{
	struct prof_block *b;
	unsigned int i;

	(void)vcpu;
	pthread_mutex_lock(&prof_lock);
	if (udata == (void *)1) {
		/* Open: forget everything counted so far. */
		for (b = prof_blocks; b; b = b->next)
			for (i = 0; i < b->used; i++)
				b->slot[i].count = 0;
	} else if (prof_out) {
		fprintf(prof_out, "window %u\n", prof_windows++);
		for (b = prof_blocks; b; b = b->next)
			for (i = 0; i < b->used; i++)
				if (b->slot[i].count)
					fprintf(prof_out, "%llx %llu\n",
						(unsigned long long)b->slot[i].vaddr,
						(unsigned long long)b->slot[i].count);
		fflush(prof_out);
	}
	pthread_mutex_unlock(&prof_lock);
}

static void prof_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		struct prof_slot *s = prof_slot_new(qemu_plugin_insn_vaddr(insn));
		uint32_t word = 0;

		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   &s->count, 1);
		if (qemu_plugin_insn_size(insn) == 4)
			memcpy(&word, qemu_plugin_insn_data(insn), 4);
		if (word == PROF_OPEN || word == PROF_CLOSE)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, prof_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)(word == PROF_OPEN ? 1 : 2));
	}
}

static void prof_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	if (prof_out)
		fclose(prof_out);
	prof_out = NULL;
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const struct qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			prof_out = fopen(argv[i] + 4, "w");
	if (!prof_out) {
		fprintf(stderr, "insn-profile: out=FILE is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, prof_tb_trans);
	qemu_plugin_register_atexit_cb(id, prof_exit, NULL);
	return 0;
}
