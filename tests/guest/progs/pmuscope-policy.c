// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-policy GID: the system's perf policy, pmuscope against
 * perf_event_open() on the same kernel. Run as root with the module loaded
 * with group=GID. For kernel.perf_event_paranoid -1, 0, 1, 2 and 3, as
 * root, as uid 65534 in group GID (a member) and as uid 65534 in no group
 * (another user), each kind of session is asked of both:
 *
 *   task-user    the caller's own thread, user space only
 *   task-kernel  the caller's own thread, user space and the kernel
 *   cpu-user     CPU 0, user space only
 *   cpu-kernel   CPU 0, user space and the kernel
 *
 * perf's side opens a software event (cpu-clock): perf_event_open()'s
 * checks of the caller (paranoid above 2, perf_allow_kernel(),
 * perf_allow_cpu()) come before the PMU is chosen, so they are the same
 * for a hardware event, and this runs on the direct backend too, where
 * perf has no PMUv3. The verdicts must agree, except where group= grants:
 * a member may count its own thread and whole CPUs in user space at any
 * level. Then EL0 reads (PMUSCOPE_CFG_USER_READ, direct backend only):
 * granted to root and to the member; refused to another user while
 * kernel.perf_user_access is not 1 (absent without perf's PMU driver).
 * The paranoid level in force before is put back.
 *
 * Then, at paranoid 2, what a STREAM may still do after CONFIG:
 *
 *   - a task session's samples once its task has exec'd a setuid program
 *     (SUID, the second argument: a setuid-root copy of this program):
 *     another user (uid 65534, no capability) forks; the child CONFIGs
 *     its own task on the shared file and execs SUID ("hold": it says
 *     its euid and waits for the end of its stdin); the parent's STREAM
 *     of it is refused (EACCES), as perf_event_open() refuses a task the
 *     caller may not ptrace. The same with this program itself in place
 *     of SUID (no setuid): the STREAM works;
 *   - the call chains of a CPU session (user stacks of any user's tasks):
 *     refused to a member of group= (EACCES) below paranoid 1 (as perf
 *     samples other users' tasks only at paranoid 0 or lower); the same
 *     STREAM without PMUSCOPE_STREAM_F_CALLCHAIN works, and so does the
 *     chain for root, and for the member at paranoid 0.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "pmuscope-guest.h"
#include "pmuscope-session.h"

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"

enum who { ROOT, MEMBER, OTHER, NR_WHO };
static const char *const who_name[NR_WHO] = { "root", "member", "other user" };

struct kind {
	const char *name;
	bool cpu, kernel;
};

static const struct kind kinds[] = {
	{ "task-user", false, false },
	{ "task-kernel", false, true },
	{ "cpu-user", true, false },
	{ "cpu-kernel", true, true },
};

static int perf_open(const struct kind *k)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.exclude_kernel = !k->kernel,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, k->cpu ? -1 : 0, k->cpu ? 0 : -1, -1, 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int pmuscope_open_kind(const struct kind *k, unsigned int cfg_flags)
{
	struct pmuscope_event ev = {
		.event = 0x11,
		.flags = PMUSCOPE_EV_EL0 | (k->kernel ? PMUSCOPE_EV_EL1 : 0),
	};
	uint64_t cpus = 1;
	struct pmuscope_config cfg = {
		.size = sizeof(cfg),
		.target = k->cpu ? PMUSCOPE_TARGET_CPUS : PMUSCOPE_TARGET_TASK,
		.nr_events = 1, .events = (uintptr_t)&ev,
		.cpus = k->cpu ? (uintptr_t)&cpus : 0,
		.cpus_size = k->cpu ? sizeof(cpus) : 0,
		.flags = cfg_flags,
	};
	int fd = open("/dev/pmuscope", O_RDWR), ret = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg))
		ret = -errno;
	close(fd);
	return ret;
}

/* In a child as @who: 0 or -errno of @fn(k, flags). */
static int as(enum who who, gid_t gid, int (*fn)(const struct kind *, unsigned int),
	      const struct kind *k, unsigned int flags)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1000;
	if (!pid) {
		if (who != ROOT) {
			gid_t groups[1] = { gid };

			if (setgroups(who == MEMBER, groups) || setgid(65534) || setuid(65534))
				_exit(255);
		}
		_exit(-fn(k, flags));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1000;
	return -WEXITSTATUS(status);
}

static int perf_fn(const struct kind *k, unsigned int flags)
{
	(void)flags;
	return perf_open(k);
}

static int stream(int fd, uint32_t ms, uint32_t flags)
{
	struct pmuscope_stream st = {
		.size = sizeof(st), .flags = flags, .period_ms = ms,
		.sample_index = ms ? PMUSCOPE_STREAM_NO_EVENT : 0,
		.sample_period = ms ? 0 : 100000, .ring_kib = 16,
	};

	return ioctl(fd, PMUSCOPE_IOC_STREAM, &st) ? -errno : 0;
}

/*
 * The STREAM of a task session of a child that has exec'd @k->name
 * ("hold"): 0 or -errno; -255 when the scene could not be set.
 */
static int exec_stream(const struct kind *k, unsigned int flags)
{
	struct pmuscope_event ev = { .event = 0x11, .flags = PMUSCOPE_EV_EL0 };
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .target = PMUSCOPE_TARGET_TASK,
		.nr_events = 1, .events = (uintptr_t)&ev,
	};
	int fd = open("/dev/pmuscope", O_RDWR), go[2], ready[2], ret, status;
	char said[32] = "";
	ssize_t n;
	pid_t pid;

	(void)flags;
	if (fd < 0 || pipe(go) || pipe(ready))
		return -255;
	pid = fork();
	if (pid < 0)
		return -255;
	if (!pid) {
		/* Its own task, pid 0, on the file its parent keeps. */
		if (ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg)) {
			dprintf(ready[1], "CONFIG: %s", strerror(errno));
			_exit(1);
		}
		if (dup2(go[0], 0) < 0 || dup2(ready[1], 1) < 0)
			_exit(1);
		close(go[1]);
		close(ready[0]);
		close(fd);
		execl(k->name, k->name, "hold", (char *)NULL);
		dprintf(1, "exec %s: %s", k->name, strerror(errno));
		_exit(1);
	}
	close(go[0]);
	close(ready[1]);
	/* The program's first words: its exec is done, its credentials set. */
	n = read(ready[0], said, sizeof(said) - 1);
	said[n > 0 ? n : 0] = '\0';
	if (strncmp(said, "euid ", 5)) {
		diag("%s: the child said '%s'", k->name, said);
		ret = -255;
	} else {
		diag("%s running, %s", k->name, said);
		ret = stream(fd, 0, 0);
	}
	close(go[1]);
	close(ready[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		ret = -255;
	close(fd);
	return ret;
}

/* A CPU session's STREAM (sampling, or @k->cpu: time-based) with @flags. */
static int cpu_stream(const struct kind *k, unsigned int flags)
{
	int fd = open("/dev/pmuscope", O_RDWR), ret;

	if (fd < 0)
		return -255;
	if (config_one(fd, 0, 0x11, PMUSCOPE_EV_EL0))
		ret = -255;
	else
		ret = stream(fd, k->cpu ? 10 : 0, flags);
	close(fd);
	return ret;
}

static const char *verdict(int err)
{
	static char buf[8][32];
	static int n;
	char *b = buf[n++ % 8];

	if (!err)
		return "allowed";
	snprintf(b, sizeof(buf[0]), "refused (%s)", strerror(-err));
	return b;
}

int main(int argc, char **argv)
{
	static const int levels[] = { -1, 0, 1, 2, 3 };
	char before[16] = "2";
	gid_t gid;
	FILE *f;

	tap_tag = "pmuscope-policy";
	/* The exec'd child of exec_stream(): who it runs as, until stdin ends. */
	if (argc == 2 && !strcmp(argv[1], "hold")) {
		char c;

		printf("euid %u uid %u", (unsigned int)geteuid(), (unsigned int)getuid());
		fflush(stdout);
		while (read(0, &c, 1) > 0)
			;
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: pmuscope-policy GID SUID\n");
		return 2;
	}
	gid = strtoul(argv[1], NULL, 0);
	f = fopen(PARANOID, "r");
	if (f) {
		if (!fgets(before, sizeof(before), f))
			strcpy(before, "2");
		fclose(f);
	}
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++) {
		char lv[8];

		snprintf(lv, sizeof(lv), "%d", levels[l]);
		if (write_file(PARANOID, lv)) {
			tap(0, "write %s to " PARANOID, lv);
			continue;
		}
		for (int w = 0; w < NR_WHO; w++)
			for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
				const struct kind *k = &kinds[i];
				int p = as(w, gid, perf_fn, k, 0);
				int m = as(w, gid, pmuscope_open_kind, k, 0);
				/*
				 * The grant: a member counts its own task and
				 * CPUs at any level; the kernel as the level
				 * lets anyone (perf_allow_kernel(): 1 or lower).
				 */
				bool want = w == MEMBER ? !k->kernel || levels[l] <= 1 : !p;

				tap(p != -1000 && m != -1000 && !m == want,
				    "paranoid %d, %s, %s: perf %s, pmuscope %s%s", levels[l],
				    who_name[w], k->name, verdict(p), verdict(m),
				    w == MEMBER && !m && p ? " (group= grants it)" : "");
			}
		/* EL0 reads: the direct backend's, by kernel.perf_user_access or the grant. */
		if (!access("/sys/kernel/pmuscope/backend", R_OK)) {
			char backend[16] = "";

			f = fopen("/sys/kernel/pmuscope/backend", "r");
			if (f) {
				if (!fgets(backend, sizeof(backend), f))
					backend[0] = '\0';
				fclose(f);
			}
			if (!strncmp(backend, "direct", 6) && levels[l] <= 2) {
				int ua = -1;

				f = fopen("/proc/sys/kernel/perf_user_access", "r");
				if (f) {
					if (fscanf(f, "%d", &ua) != 1)
						ua = -1;
					fclose(f);
				}
				for (int w = 0; w < NR_WHO; w++) {
					int m = as(w, gid, pmuscope_open_kind, &kinds[0],
						   PMUSCOPE_CFG_USER_READ);
					bool want = w != OTHER || ua == 1;

					tap(m != -1000 && !m == want,
					    "paranoid %d, %s, EL0 reads (perf_user_access %s): pmuscope %s",
					    levels[l], who_name[w], ua < 0 ? "absent" : ua ? "1" : "0",
					    verdict(m));
				}
			}
		}
	}
	if (!write_file(PARANOID, "2")) {
		const struct kind sampled = { "samples", false, false };
		const struct kind timed = { "time-based", true, false };
		char self[256];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		const struct kind suid = { argv[2], false, false }, own = { self, false, false };
		int m;

		self[n > 0 ? n : 0] = '\0';
		m = as(OTHER, gid, exec_stream, &own, 0);
		tap(!m, "paranoid 2, other user, STREAM of its child after it exec'd %s: %s",
		    self, verdict(m));
		m = as(OTHER, gid, exec_stream, &suid, 0);
		tap(m == -EACCES, "paranoid 2, other user, STREAM of its child after it exec'd setuid-root %s: %s",
		    suid.name, verdict(m));
		for (int c = 0; c < 2; c++) {
			const struct kind *k = c ? &timed : &sampled;

			m = as(MEMBER, gid, cpu_stream, k, 0);
			tap(!m, "paranoid 2, member, CPU 0 %s: %s", k->name, verdict(m));
			m = as(MEMBER, gid, cpu_stream, k, PMUSCOPE_STREAM_F_CALLCHAIN);
			tap(m == -EACCES, "paranoid 2, member, CPU 0 %s with call chains: %s",
			    k->name, verdict(m));
			m = as(ROOT, gid, cpu_stream, k, PMUSCOPE_STREAM_F_CALLCHAIN);
			tap(!m, "paranoid 2, root, CPU 0 %s with call chains: %s", k->name,
			    verdict(m));
		}
		if (!write_file(PARANOID, "0")) {
			m = as(MEMBER, gid, cpu_stream, &sampled, PMUSCOPE_STREAM_F_CALLCHAIN);
			tap(!m, "paranoid 0, member, CPU 0 samples with call chains: %s",
			    verdict(m));
		}
	}
	before[strcspn(before, "\n")] = '\0';
	if (write_file(PARANOID, before))
		tap(0, "paranoid %s put back", before);
	return tap_failures ? 1 : 0;
}
