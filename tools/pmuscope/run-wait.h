/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuscope CLI: the signals a run takes, its deadlines and the clock; the
 * tasks of -p and -t.
 */
#ifndef PMUSCOPE_RUN_WAIT_H
#define PMUSCOPE_RUN_WAIT_H

#include <signal.h>
#include <sys/types.h>
#include <time.h>

/* SIGINT, SIGTERM, SIGCHLD: blocked during a run, taken by stat_wait(). */
void stat_signals(sigset_t *set);
/*
 * Wait until @deadline (CLOCK_MONOTONIC; NULL: none) or the end of the
 * run (SIGINT or SIGTERM; with @child > 0, its exit, reaped into *@status):
 * 1 when the run should stop, 0 at the deadline.
 */
int stat_wait(const struct timespec *deadline, pid_t child, int *status, int *reaped);
/* stat_wait(), and *@interrupted set once it took a SIGINT or SIGTERM. */
int stat_wait_run(const struct timespec *deadline, pid_t child, int *status, int *reaped,
		  int *interrupted);
/* A SIGINT or SIGTERM is pending (blocked, not taken yet). */
int stat_interrupt_pending(void);
/*
 * stat -p, -t: wait until @deadline (NULL: none), SIGINT or SIGTERM, or the
 * end of every one of @n tasks: @pidfds their pidfds (-1: none, then
 * @procs[i], their /proc directories, are looked at every 100 ms), @ended
 * those seen to end (kept between calls). 1 when the run should stop, 0
 * at the deadline.
 */
int stat_wait_tasks(const struct timespec *deadline, const int *pidfds,
		    const char (*procs)[48], int *ended, size_t n);
/* CLOCK_MONOTONIC in seconds. */
double now_s(void);

/* A thread stat's or record's -p or -t attaches to. */
struct task_target {
	pid_t tid, tgid;
	int inherit;			/* -p: the threads it creates later too */
};

#define TASK_TARGETS_MAX	1024	/* -p and -t: one session (record: a file) each */

/*
 * -p PID[,PID...] (every thread of each, now) or -t TID[,TID...], @letter
 * 'p' or 't', @list (left as it is) cut up in a copy: each thread added
 * once to *@targets (*@n of them, room for *@room; realloc()ed), inherit
 * set for -p's. 0, or EXIT_USAGE or 1 after a message on stderr.
 */
int parse_task_list(int letter, const char *list, struct task_target **targets, size_t *n,
		    size_t *room);
/* The Tgid of thread @tid from /proc/TID/status; 0 when there is none. */
pid_t proc_tgid(pid_t tid);
/*
 * Why the driver refused to attach to @t (EPERM or EACCES, @why the
 * library's message), and what to do, on stderr; @verb "count" or
 * "sample".
 */
void task_perm_hint(const char *verb, const struct task_target *t, int err, const char *why);

#endif
