// SPDX-License-Identifier: GPL-2.0
/*
 * The fidelity test's workload (t-fidelity.sh): a known tree, recorded
 * by pmuscope and by perf_event_open() (pmuscope-peer) in turn, whose
 * profiles must agree. Three tasks, each doing a fixed amount of work
 * whatever the scheduling, so that their sample counts are comparable
 * across runs:
 *
 *	fidelity (main thread)
 *		dispatch -> op_one/op_two (function pointers) -> spin
 *		deep x 150 -> spin		(past 127 frames: TRUNCATED)
 *	fid-thread (second thread, pthread_setname_np)
 *		ping <-> pong (mutual recursion) -> spin
 *		syscalls: write(/dev/null) and getppid() in a loop (kernel)
 *	fid-child (fork, then exec of this program as argv[0] "fid-child"
 *		through the path in FID_CHILD: its comm)
 *		dispatch -> op_one/op_two -> spin; syscalls
 *
 * Every function keeps its frame record (-fno-omit-frame-pointer
 * -mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls, no inlining):
 * a frame-pointer walk sees every call. Usage: fidelity [SCALE]; SCALE
 * (default 1) multiplies every amount of work; a unit of SCALE is about
 * 10^8 instructions on each of the three tasks.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

#define FID_DEEP	150		/* frames of deep(): past perf's 127 */
#define FID_PING	6		/* ping/pong frames */
#define FID_SPIN	1000000UL	/* spin()'s iterations per call */

static volatile unsigned long fid_sink;
static unsigned long fid_scale = 1;

NOINLINE void spin(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		fid_sink += i;
}

NOINLINE void op_one(unsigned long n)
{
	spin(n);
	fid_sink++;
}

NOINLINE void op_two(unsigned long n)
{
	spin(2 * n);
	fid_sink++;
}

static void (*const fid_ops[])(unsigned long) = { op_one, op_two };

/* A third of the calls to op_one, two thirds of the work to op_two's spin. */
NOINLINE void dispatch(unsigned long rounds)
{
	unsigned long r;

	for (r = 0; r < rounds; r++)
		fid_ops[r & 1](FID_SPIN);
}

NOINLINE void deep(int depth, unsigned long n)
{
	if (depth > 1)
		deep(depth - 1, n);
	else
		spin(n);
	fid_sink++;
}

NOINLINE void pong(int depth, unsigned long n);

NOINLINE void ping(int depth, unsigned long n)
{
	if (depth > 1)
		pong(depth - 1, n);
	else
		spin(n);
	fid_sink++;
}

NOINLINE void pong(int depth, unsigned long n)
{
	if (depth > 1)
		ping(depth - 1, n);
	else
		spin(n);
	fid_sink++;
}

/*
 * write() and getppid() with 0 to 63 iterations of spin() between them,
 * pseudo-random (a fixed LCG): a loop of one length, sampled every so
 * many cycles under -icount, would be sampled at a few points of it only
 * (its length and the period commensurate), differently for two samplers
 * whose interrupts cost differently: an artefact of the deterministic
 * guest, not of the samplers.
 */
NOINLINE void syscalls(unsigned long n)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	unsigned int lcg = 12345;
	char c = 'x';
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (write(fd, &c, 1) != 1)
			exit(2);
		lcg = lcg * 1103515245 + 12345;
		spin(lcg >> 26);
		fid_sink += (unsigned long)getppid();
	}
	close(fd);
}

static void *fid_thread(void *arg)
{
	unsigned long r;

	(void)arg;
	pthread_setname_np(pthread_self(), "fid-thread");
	for (r = 0; r < 30 * fid_scale; r++)
		ping(FID_PING, FID_SPIN);
	syscalls(20000 * fid_scale);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *child = getenv("FID_CHILD");
	pthread_t t;
	pid_t pid;
	int status;

	if (argc > 1)
		fid_scale = strtoul(argv[1], NULL, 0);
	if (!fid_scale || fid_scale > 1000) {
		fprintf(stderr, "fidelity: SCALE is 1 to 1000\n");
		return 2;
	}
	if (!strcmp(argv[0], "fid-child")) {
		dispatch(20 * fid_scale);
		syscalls(10000 * fid_scale);
		return 0;
	}
	if (!child) {
		fprintf(stderr, "fidelity: FID_CHILD names the path the child is exec'ed as\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		execl(child, "fid-child", argv[1] ? argv[1] : "1", (char *)NULL);
		_exit(127);
	}
	if (pthread_create(&t, NULL, fid_thread, NULL))
		return 1;
	dispatch(20 * fid_scale);
	for (unsigned long r = 0; r < 10 * fid_scale; r++)
		deep(FID_DEEP, FID_SPIN);
	pthread_join(t, NULL);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
