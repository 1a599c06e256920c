/* SPDX-License-Identifier: GPL-2.0 */
/* pmuscope CLI: the signals a run takes, its deadlines and the clock. */
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
/* CLOCK_MONOTONIC in seconds. */
double now_s(void);

#endif
