/* SPDX-License-Identifier: LGPL-2.1 OR GPL-2.0 */
/*
 * libpmuscope's own: what its files share and no program may use. The
 * API is pmuscope.h; nothing declared here is exported by the shared
 * library (hidden here, and local in libpmuscope.map). The static
 * library holds these symbols too: they are not an interface.
 *
 * Which file holds what:
 *   events.c    event names, aliases and the parser (pmuscope_event_*)
 *   cpus.c      CPU lists and the driver's sysfs (pmuscope_cpu_*, _cpulist_*)
 *   session.c   open, configure, enable, read (struct pmuscope's life)
 *   self.c      EL0 self-monitoring (pmuscope_*_self, the rseq readers)
 *   snapshot.c  snapshots
 *   amu.c       the Activity Monitors
 *   stream.c    streams of records, the system counter
 *   spe.c       SPE sessions and chunks (spe_decode.c: the packets)
 *   errors.c    the messages of refusals (pmuscope_errmsg()'s text)
 */
#ifndef PMUSCOPE_LIB_INTERNAL_H
#define PMUSCOPE_LIB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pmuscope.h"

#pragma GCC visibility push(hidden)

/*
 * EL0 self-monitoring (pmuscope_read_self()): what its reader, in
 * assembly in self.c, reads of a session. struct pmuscope begins with it, so
 * that the reader finds it at fixed offsets from the handle
 * (PMUSCOPE_EL0_OFF_*, checked at compile time).
 *
 * A plan is a copy of the user page, made under its seq, for reads of
 * @plan_nr counters: where the reader branches in its critical section
 * (@entry) and each counter's fold. A straight-line reader (counters in
 * the order the driver gives them when the thread has the PMU alone:
 * PMEVCNTR0.. for the events in order, or PMCCNTR_EL0 for a first
 * CPU_CYCLES and PMEVCNTR0.. for the others; the event counters all
 * 32-bit or all 64-bit) folds counter i with @fold[i]; any other layout
 * goes through @slot[], one table entry per counter.
 */
#define PMUSCOPE_EL0_STRAIGHT	16	/* counters a straight-line reader reads */
#define PMUSCOPE_EL0_NO_PLAN	UINT32_MAX	/* matches no nr the slow path takes */

/*
 * A counter's fold: 32-bit, count = @a + (u32)(raw - @b) (@a = offset,
 * @b = last_raw); 64-bit, count = raw + @a (@a = offset - last_raw).
 */
struct pmuscope_el0_fold {
	uint64_t a;
	uint64_t b;
};

/* One counter of a table plan: its entry (after the last, the end) and fold. */
struct pmuscope_el0_slot {
	uint64_t target;
	uint64_t a;
	uint64_t b;
	uint64_t pad;
};

struct pmuscope_el0 {
	void *tp;			/* the counted thread's thread pointer */
	void *rseq;			/* its struct rseq; NULL: no fast path */
	const struct pmuscope_user_page *page;	/* NULL: none mapped */
	const void *cs;			/* the critical section's struct rseq_cs */
	uint64_t plan_gen;		/* the page's gen the plan was read at */
	uint64_t entry;			/* the plan's reader */
	uint32_t plan_nr;		/* counters planned; PMUSCOPE_EL0_NO_PLAN: none */
	uint32_t plan_want;		/* counters asked for at the last plan */
	uint64_t fast;			/* reads made at EL0 */
	struct pmuscope_el0_fold fold[PMUSCOPE_EL0_STRAIGHT];
	struct pmuscope_el0_slot slot[PMUSCOPE_MAX_EVENTS + 1];
	unsigned int depth;		/* retries of pmuscope__el0_read_slow() under way */
	uint32_t layout;		/* PMUSCOPE_SELF_* of the last plan */
};

struct pmuscope {
	struct pmuscope_el0 el0;	/* first: the EL0 reader's offsets */
	int fd;
	uint64_t features;
	unsigned int nr_events;
	struct pmuscope_event_spec evs[PMUSCOPE_MAX_EVENTS];
	uint64_t cpus[PMUSCOPE_CPU_WORDS];
	int task;			/* configured for a task, not CPUs */
	uint32_t nr_cpu_ids;		/* the handshake's: CPU numbers are below */
	char msg[512];
	/* EL0 self-monitoring: pmuscope_configure_self() */
	uint32_t self_flags;		/* PMUSCOPE_CFG_USER_SWINC */
	struct pmuscope_self_stats st;	/* all but fast (el0.fast) */
	struct pmuscope *self_next;	/* the sessions with a page (fork) */
};

/* errors.c: messages */
#define PMUSCOPE_POLICY_TASK	(1U << 0)	/* count one's own task */
#define PMUSCOPE_POLICY_CPU	(1U << 1)	/* count whole CPUs */
#define PMUSCOPE_POLICY_KERNEL	(1U << 2)	/* EL1/EL2, kernel PCs, SPE at EL1, PA/CX/PCT */
#define PMUSCOPE_POLICY_EL0	(1U << 3)	/* read counters at EL0 */

/* snprintf() into @buf, which may be NULL or of @len 0: then nothing. */
void pmuscope_fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A flag word's names, comma-separated, from the table @names[@n]. */
struct pmuscope_flag_name {
	uint32_t flag;
	const char *name;
};

void pmuscope_flag_names_str(uint32_t flags, const struct pmuscope_flag_name *names,
			     size_t n, char *buf, size_t len);
/* PMUSCOPE_POLICY_KERNEL when one of @nr events counts at EL1 or EL2. */
unsigned int pmuscope_policy_events(const struct pmuscope_event_spec *evs, unsigned int nr);
/* Whether the policy lets the caller count whole CPUs at EL0 (1) or not (0). */
int pmuscope_policy_cpus_ok(void);
/* Why the perf policy refused (@what: PMUSCOPE_POLICY_*), after @prefix. */
void pmuscope_policy_msg(char *msg, size_t len, const char *prefix, int err,
			 unsigned int what);
/*
 * The operations whose errnos have messages (errors.c's table), and what
 * their rows' fields are: {e} is always strerror(errno); {s}, {t} and
 * {0} to {5} are the caller's struct pmuscope_say_args.
 */
enum pmuscope_op {
	PMUSCOPE_OP_OPEN,	/* open("/dev/pmuscope") */
	PMUSCOPE_OP_HANDSHAKE,
	PMUSCOPE_OP_CONFIG,	/* CPUs: {0} events; .policy */
	PMUSCOPE_OP_CONFIG_TASK,	/* {0} the thread; .policy */
	PMUSCOPE_OP_CONFIG_SELF,	/* .policy */
	PMUSCOPE_OP_SELF_MAP,	/* mmap() of the EL0 page */
	PMUSCOPE_OP_CONTROL,	/* ENABLE, DISABLE, RESET: {s} which */
	PMUSCOPE_OP_SWINC,	/* {0} the kernel's EL (EINVAL), {1} the CPU */
	PMUSCOPE_OP_READ,
	PMUSCOPE_OP_SNAPSHOT,	/* {0} values, {1} CPUs needed, {2} {3} room; {4} lead, {5} most */
	PMUSCOPE_OP_AMU_READ,	/* {0} records needed, {1} room, {2} CPUs */
	PMUSCOPE_OP_STREAM,	/* {0} the ring's KiB */
	PMUSCOPE_OP_POLL,	/* {s} "stream" or "SPE" */
	PMUSCOPE_OP_FILE_READ,	/* {s} as POLL, {0} bytes, {t} "record" or "chunk" */
	PMUSCOPE_OP_SPE_START,	/* .policy; {0} the KiB charged */
	PMUSCOPE_OP_SPE_STOP,
	PMUSCOPE_OP_SPE_STATUS,	/* {0} room, {1} CPUs of the session */
};

/* What a row does (pmuscope_say() returns it). */
enum pmuscope_say {
	PMUSCOPE_SAY_TEXT,	/* wrote its text, fields filled in */
	PMUSCOPE_SAY_POLICY,	/* wrote pmuscope_policy_msg(), its text the prefix */
	PMUSCOPE_SAY_EXPLAIN,	/* wrote nothing: the caller finds the cause */
	PMUSCOPE_SAY_NOTHING,	/* wrote nothing (EINTR: the caller's signal) */
};

/* The state of the session a row may depend on (pmuscope_say()'s @state). */
#define PMUSCOPE_IF_TASK	(1U << 0)	/* a task's session (h->task) */
#define PMUSCOPE_IF_EVENTS	(1U << 1)	/* events configured (h->nr_events) */
#define PMUSCOPE_IF_FEAT	(1U << 2)	/* the driver has the operation's feature */
#define PMUSCOPE_IF_HW		(1U << 3)	/* a hardware snapshot was asked for */
#define PMUSCOPE_IF_CPUS	(1U << 4)	/* the policy lets the caller profile whole CPUs */

struct pmuscope_say_args {
	long long n[6];		/* {0} to {5} */
	const char *s, *t;	/* {s}, {t} */
	unsigned int policy;	/* PMUSCOPE_POLICY_* asked for, for a policy row */
};

/*
 * The message of @op failing with -errno @err in @state into @msg, from
 * the first row of errors.c's table that matches (@a may be NULL).
 */
enum pmuscope_say pmuscope_say(char *msg, size_t len, enum pmuscope_op op, int err,
			       unsigned int state, const struct pmuscope_say_args *a);

/* After a failed PMUSCOPE_IOC_CONFIG of @evs on @cpus: h->msg names the cause. */
void pmuscope_explain(struct pmuscope *h, int ret, const struct pmuscope_event_spec *evs,
		      unsigned int nr, const uint64_t *cpus, size_t words);
/* The same, against the CPUs online now (a task's session). */
void pmuscope_explain_online(struct pmuscope *h, int ret,
			     const struct pmuscope_event_spec *evs, unsigned int nr);
/* After EOPNOTSUPP to a hardware snapshot: h->msg says which CPU and why. */
void pmuscope_snap_explain_hw(struct pmuscope *h);

/* cpus.c */
/* The driver's sysfs file cpu@cpu/@file, without its newline; -errno. */
int pmuscope_read_str(int cpu, const char *file, char *buf, size_t len);
/* Whether @cpu is in the bitmap @cpus of @words. */
int pmuscope_cpu_set(const uint64_t *cpus, size_t words, size_t cpu);

/* session.c */
/* The uapi's events of @nr parsed events. */
void pmuscope_kernel_events(const struct pmuscope_event_spec *evs, unsigned int nr,
			    struct pmuscope_event *kev);
/* First of a configuration: h and @nr checked, the EL0 page unmapped. */
int pmuscope_config_begin(struct pmuscope *h, unsigned int nr);
/* The API's counts of the driver's @nr values. */
void pmuscope_counts_of(struct pmuscope_count *out, const struct pmuscope_value *v,
			unsigned int nr);
/* The session now counts @evs in a task. */
void pmuscope_task_configured(struct pmuscope *h, const struct pmuscope_event_spec *evs,
			      unsigned int nr);

/* self.c */
/* No plan: the EL0 reader goes to the slow path whatever it is asked. */
void pmuscope_el0_unplan(struct pmuscope_el0 *e);
/* Unmap the session's EL0 page, if any: no EL0 reads from here on. */
void pmuscope_self_unmap(struct pmuscope *h);

/* stream.c */
/* Wait for the session's file, read what fits (streams and SPE). */
ssize_t pmuscope_poll_read(struct pmuscope *h, void *buf, size_t len, int timeout_ms,
			   const char *what, const char *unit);

#pragma GCC visibility pop

#endif /* PMUSCOPE_LIB_INTERNAL_H */
