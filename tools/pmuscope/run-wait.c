// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope CLI: the run loop's waits of stat, snapshot, amu, export and
 * record: the signals a run takes, its deadlines and the clock; and the
 * tasks that stat's and record's -p and -t name.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exit-codes.h"
#include "parse-options.h"
#include "run-wait.h"

/*
 * stat keeps SIGINT, SIGTERM and SIGCHLD blocked and takes them with
 * sigtimedwait(): no handler, no window between checking for a signal and
 * going to sleep in which one could be missed. The command gets the mask
 * it was started with back before exec.
 */
void stat_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGCHLD);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The time from now (CLOCK_MONOTONIC) to @deadline into *@rel, its
 * nanoseconds below a second: 0, or -1 (*@rel's seconds negative) when
 * the deadline has passed.
 */
static int time_left(const struct timespec *deadline, struct timespec *rel)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	rel->tv_sec = deadline->tv_sec - now.tv_sec;
	rel->tv_nsec = deadline->tv_nsec - now.tv_nsec;
	if (rel->tv_nsec < 0) {
		rel->tv_sec--;
		rel->tv_nsec += 1000000000L;
	}
	return rel->tv_sec < 0 ? -1 : 0;
}

/*
 * Wait until @deadline (CLOCK_MONOTONIC; NULL: none) or the end of the run:
 * the command's exit (reaped into *status) or, without a command, SIGINT or
 * SIGTERM. A SIGINT or SIGTERM sent to pmuscope itself (kill) is passed on
 * to the command; one from the terminal (si_code SI_KERNEL) reached the
 * command's process group already and is not sent twice. Returns 1 when
 * counting should stop, 0 at the deadline. The command's end is taken
 * from its SIGCHLD (pending already if it ended first): the same path
 * either way, so what pmuscope itself adds to the counts stays fixed.
 * *@interrupted (when not NULL) is set once a SIGINT or SIGTERM was taken,
 * even one passed on to a command that went on: stat -r stops there.
 */
int stat_wait_run(const struct timespec *deadline, pid_t child, int *status, int *reaped,
		  int *interrupted)
{
	struct timespec rel;
	siginfo_t si;
	sigset_t set;

	stat_signals(&set);
	for (;;) {
		int sig;

		if (deadline && time_left(deadline, &rel))
			return 0;
		sig = sigtimedwait(&set, &si, deadline ? &rel : NULL);
		if (sig < 0) {
			if (errno == EAGAIN)
				return 0;
			continue;	/* EINTR: SIGSTOP/SIGCONT */
		}
		if (sig == SIGCHLD) {
			if (child > 0 && waitpid(child, status, WNOHANG) == child) {
				*reaped = 1;
				return 1;
			}
			continue;	/* the command stopped or went on */
		}
		if (interrupted)
			*interrupted = 1;
		if (child <= 0)
			return 1;
		/*
		 * From the terminal (SI_KERNEL) to a command still in our
		 * process group: it has its own copy. Otherwise pass it on.
		 * (A kill of the whole group reaches the command twice: no
		 * way to tell it from a kill of pmuscope alone.)
		 */
		if (si.si_code != SI_KERNEL || getpgid(child) != getpgrp())
			kill(child, sig);
	}
}

int stat_wait(const struct timespec *deadline, pid_t child, int *status, int *reaped)
{
	return stat_wait_run(deadline, child, status, reaped, NULL);
}

/* A SIGINT or SIGTERM pending, not taken yet (they are blocked). */
int stat_interrupt_pending(void)
{
	sigset_t set;

	return !sigpending(&set) && (sigismember(&set, SIGINT) == 1 ||
				     sigismember(&set, SIGTERM) == 1);
}

/*
 * The tasks of stat -p and -t: their pidfds become readable when they end,
 * SIGINT and SIGTERM (blocked, as for a command) through a signalfd: one
 * poll, nothing missed between a check and the sleep. Threads without a
 * pidfd (-t of a thread that does not lead its process, before Linux
 * 6.9's PIDFD_THREAD) are looked for in /proc every 100 ms.
 */
int stat_wait_tasks(const struct timespec *deadline, const int *pidfds,
		    const char (*procs)[48], int *ended, size_t n)
{
	struct pollfd *pfd = calloc(n + 1, sizeof(*pfd));
	int sfd, stop = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (!pfd || sfd < 0) {
		free(pfd);
		if (sfd >= 0)
			close(sfd);
		return 1;
	}
	while (!stop) {
		struct signalfd_siginfo si;
		struct timespec rel = { 0, 100000000L };
		int polled = 0, alive = 0, timeout = -1;
		size_t np = 1;

		pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		for (size_t i = 0; i < n; i++) {
			if (ended[i])
				continue;
			if (pidfds[i] < 0) {
				if (access(procs[i], F_OK)) {
					ended[i] = 1;
					continue;
				}
				polled = 1;
			} else {
				pfd[np++] = (struct pollfd){ .fd = pidfds[i], .events = POLLIN };
			}
			alive = 1;
		}
		if (!alive) {
			stop = 1;
			break;
		}
		if (polled)
			timeout = 100;
		if (deadline) {
			if (time_left(deadline, &rel))
				break;
			if (timeout < 0 || rel.tv_sec * 1000 + rel.tv_nsec / 1000000 < timeout)
				timeout = rel.tv_sec * 1000 + (rel.tv_nsec + 999999) / 1000000;
		}
		if (poll(pfd, np, timeout) < 0 && errno != EINTR)
			stop = 1;
		if (read(sfd, &si, sizeof(si)) == sizeof(si))
			stop = 1;
		/* A pidfd is readable once its task has ended. */
		for (size_t j = 1, i = 0; i < n && j < np; i++) {
			if (ended[i] || pidfds[i] < 0)
				continue;
			if (pfd[j].fd == pidfds[i] && (pfd[j].revents & (POLLIN | POLLHUP | POLLERR)))
				ended[i] = 1;
			j++;
		}
	}
	close(sfd);
	free(pfd);
	return stop;
}

pid_t proc_tgid(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

static int task_target_add(struct task_target **targets, size_t *n, size_t *room,
			   pid_t tid, pid_t tgid, int inherit)
{
	for (size_t i = 0; i < *n; i++)
		if ((*targets)[i].tid == tid) {
			(*targets)[i].inherit |= inherit;
			return 0;
		}
	if (*n == TASK_TARGETS_MAX) {
		fprintf(stderr, "pmuscope: -p and -t: at most %d threads (a session each)\n",
			TASK_TARGETS_MAX);
		return EXIT_USAGE;
	}
	if (*n == *room) {
		size_t r = *room ? 2 * *room : 16;
		struct task_target *nt = realloc(*targets, r * sizeof(*nt));

		if (!nt) {
			perror("pmuscope");
			return 1;
		}
		*targets = nt;
		*room = r;
	}
	(*targets)[(*n)++] = (struct task_target){ .tid = tid, .tgid = tgid, .inherit = inherit };
	return 0;
}

/*
 * -p PID[,PID...] (every thread of each, now) or -t TID[,TID...], cut up
 * in a copy: @list is the argv string, which record saves as given.
 */
int parse_task_list(int letter, const char *list, struct task_target **targets, size_t *n,
		    size_t *room)
{
	char *save = NULL, *copy = strdup(list);
	int ids = 0, ret = 0;

	if (!copy) {
		perror("pmuscope");
		return 1;
	}
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long v;

		if (parse_uint(tok, 1, 0x3fffffff, &v)) {
			fprintf(stderr, "pmuscope: -%c needs %s: '%s'\n", letter,
				letter == 'p' ? "process ids" : "thread ids", tok);
			ret = EXIT_USAGE;
			break;
		}
		if (letter == 't') {
			pid_t tgid = proc_tgid(v);

			if (!tgid) {
				fprintf(stderr, "pmuscope: -t: no thread %llu\n", v);
				ret = 1;
				break;
			}
			ret = task_target_add(targets, n, room, v, tgid, 0);
		} else {
			struct dirent *de;
			char path[64];
			DIR *d;

			snprintf(path, sizeof(path), "/proc/%llu/task", v);
			d = opendir(path);
			if (!d || proc_tgid(v) != (pid_t)v) {
				if (d)
					closedir(d);
				fprintf(stderr, "pmuscope: -p: no process %llu\n", v);
				ret = 1;
				break;
			}
			while (!ret && (de = readdir(d)))
				if (de->d_name[0] != '.')
					ret = task_target_add(targets, n, room, atoi(de->d_name), v, 1);
			closedir(d);
		}
		if (ret)
			break;
		ids++;
	}
	free(copy);
	if (!ret && !ids) {
		fprintf(stderr, "pmuscope: -%c needs at least one id\n", letter);
		ret = EXIT_USAGE;
	}
	return ret;
}

void task_perm_hint(const char *verb, const struct task_target *t, int err, const char *why)
{
	if (err == -EPERM)
		/* task_ours=0 (the default), or an older pmuscope.ko. */
		fprintf(stderr,
			"pmuscope: cannot %s thread %d of process %d: %s: the driver attaches to another process only with CAP_PERFMON, unless its administrator loaded it with task_ours=1 (then your own processes, as perf): give pmuscope CAP_PERFMON (setcap cap_perfmon+ep, or run it as root)\n",
			verb, t->tid, t->tgid, why);
	else
		fprintf(stderr,
			"pmuscope: cannot %s thread %d of process %d: %s: as perf, you may attach to a process of your own (not a setuid program, nor one made non-dumpable) where kernel.perf_event_paranoid is 2 or less; another user's needs CAP_PERFMON: give pmuscope CAP_PERFMON (setcap cap_perfmon+ep, or run it as root)\n",
			verb, t->tid, t->tgid, why);
}
