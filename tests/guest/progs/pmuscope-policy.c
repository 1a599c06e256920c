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
 * A fourth caller, uid 65534 with CAP_PERFMON alone, gets what perf gives
 * it. AMU_READ: root, and CAP_PERFMON up to level 2 (no perf peer). At
 * level 2, pmuscope's own PMU (direct backend) opened with
 * perf_event_open(), exclude_kernel=1 and exclude_hv=0 (EL2 on a non-VHE
 * kernel): refused without CAP_PERFMON, as pmuscope's policy counts EL2
 * as the kernel.
 *
 * Then, at paranoid 2, what a STREAM may still do after CONFIG:
 *
 *   - a descriptor root configured, passed to a child that became each
 *     caller: READ works, and STREAM is judged by the child's rights
 *     (CPU 0 with EL1: EPERM for another user, EACCES for a member;
 *     root's own task: EPERM, another process's task without task_ours);
 *   - a task session's samples once its task has exec'd a setuid program
 *     (SUID, the second argument: a setuid-root copy of this program):
 *     another user (uid 65534, no capability) forks; the child CONFIGs
 *     its own task on the shared file and execs SUID ("hold": it says
 *     its euid and waits for the end of its stdin); the parent's STREAM
 *     of it is refused (EACCES), as perf_event_open() refuses a task the
 *     caller may not ptrace. The same with this program itself in place
 *     of SUID (no setuid): the STREAM works with task_ours=1, and is
 *     EPERM with task_ours=0 (another process's task is the grant's);
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

#include "pmuscope-caps.h"
#include "pmuscope-guest.h"
#include "pmuscope-session.h"

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"

enum who { ROOT, MEMBER, OTHER, PERFMON, NR_WHO };
static const char *const who_name[NR_WHO] = {
	"root", "member", "other user", "CAP_PERFMON alone",
};

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
		if (who == PERFMON) {
			if (become(65534, -1, CAP(CAP_PERFMON)))
				_exit(255);
		} else if (who != ROOT) {
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

/* AMU_READ of CPU 0 (the permission comes first: no AMU needed). */
static int amu_fn(const struct kind *k, unsigned int flags)
{
	struct pmuscope_amu_cpu rec;
	uint64_t cpus = 1;
	struct pmuscope_amu_read ar = {
		.size = sizeof(ar), .cpus = (uintptr_t)&cpus, .cpus_size = 8,
		.records = (uintptr_t)&rec, .nr_records = 1,
	};
	int fd = open("/dev/pmuscope", O_RDWR), ret = 0;

	(void)k;
	(void)flags;
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PMUSCOPE_IOC_AMU_READ, &ar))
		ret = -errno;
	close(fd);
	return ret;
}

/* pmuscope's own PMU's perf type (the direct backend's), or -1. */
static int ppmu_type(void)
{
	return read_int("/sys/bus/event_source/devices/pmuscope/type");
}

/* The EL the kernel runs at (/sys/kernel/pmuscope/kernel_el): 1, 2, or -1. */
static int kernel_el(void)
{
	return read_int("/sys/kernel/pmuscope/kernel_el");
}

/* Own thread's CPU_CYCLES on pmuscope's PMU, EL0 and (non-VHE) EL2. */
static int ppmu_el2_fn(const struct kind *k, unsigned int flags)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = ppmu_type(), .config = 0x11,
		.exclude_kernel = 1, .exclude_hv = 0, .disabled = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);

	(void)k;
	(void)flags;
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * A descriptor root configured (CPU 0, or root's own thread; EL0, with
 * EL1 when @kernel), used by a child running as @who: its READ must work
 * (-254 if not), and its STREAM (sampling) gets the child's verdict.
 */
static int passed_stream(enum who who, gid_t gid, bool cpu, bool kernel)
{
	struct pmuscope_event ev = {
		.event = 0x11, .flags = PMUSCOPE_EV_EL0 | (kernel ? PMUSCOPE_EV_EL1 : 0),
	};
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .target = PMUSCOPE_TARGET_TASK,
		.nr_events = 1, .events = (uintptr_t)&ev,
	};
	int fd = open("/dev/pmuscope", O_RDWR), status;
	pid_t pid;

	if (fd < 0)
		return -1000;
	if (cpu ? config_one(fd, 0, ev.event, ev.flags) : ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg)) {
		close(fd);
		return -1000;
	}
	pid = fork();
	if (pid < 0)
		return -1000;
	if (!pid) {
		struct pmuscope_value v;
		gid_t groups[1] = { gid };

		if (who == PERFMON ? become(65534, -1, CAP(CAP_PERFMON)) :
		    who != ROOT && (setgroups(who == MEMBER, groups) || setgid(65534) ||
				    setuid(65534)))
			_exit(255);
		if (read_one(fd, &v))
			_exit(254);
		_exit(-stream(fd, 0, 0));
	}
	close(fd);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) == 255)
		return -1000;
	return -WEXITSTATUS(status);
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
				 * CPUs at EL0 at any level; with the kernel
				 * only what perf_event_open() allows anyone
				 * (each grant alone, never the two combined:
				 * whole CPUs with the kernel at paranoid 0).
				 */
				bool want = w == MEMBER && !k->kernel ? true : !p;

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
		/*
		 * The Activity Monitors (whole CPUs, every EL, unfiltered):
		 * CAP_PERFMON, and at level 3 CAP_SYS_ADMIN, as counting
		 * there. No perf peer: pmuscope's own rule (pmuscope.rst).
		 */
		for (int w = 0; w < NR_WHO; w++) {
			int m = as(w, gid, amu_fn, &kinds[0], 0);
			bool want = w == ROOT || (w == PERFMON && levels[l] <= 2);

			tap(m != -1000 && !m == want, "paranoid %d, %s, AMU_READ: pmuscope %s",
			    levels[l], who_name[w], verdict(m));
		}
		/*
		 * pmuscope's own PMU (the direct backend's task events),
		 * opened with perf_event_open(): exclude_hv=0 counts EL2 on
		 * a non-VHE kernel, the kernel's level of pmuscope's policy.
		 */
		if (ppmu_type() >= 0 && levels[l] == 2 && kernel_el() == 1)
			for (int w = 0; w < NR_WHO; w++) {
				int m = as(w, gid, ppmu_el2_fn, &kinds[0], 0);
				bool want = w == ROOT || w == PERFMON;

				tap(m != -1000 && !m == want,
				    "paranoid 2, %s, pmuscope's PMU with exclude_hv=0 (EL2 under exclude_kernel): %s",
				    who_name[w], verdict(m));
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
		/*
		 * Whose rights a STREAM is judged by: its caller's, now (a
		 * descriptor passed on, or kept across setresuid(), still
		 * reads; it samples only what its new holder may sample, as
		 * perf_event_open() of a sampling event would decide).
		 */
		static const struct {
			enum who who;
			bool cpu, kernel;
			int want;
		} passed[] = {
			{ OTHER, true, true, -EPERM }, { OTHER, true, false, -EPERM },
			{ MEMBER, true, true, -EACCES }, { MEMBER, true, false, 0 },
			{ PERFMON, true, true, 0 }, { ROOT, true, true, 0 },
			{ OTHER, false, false, -EPERM }, { PERFMON, false, true, 0 },
		};
		for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++) {
			m = passed_stream(passed[i].who, gid, passed[i].cpu, passed[i].kernel);
			tap(m == passed[i].want,
			    "paranoid 2, root's %s%s session passed to %s: READ works, STREAM %s",
			    passed[i].cpu ? "CPU 0" : "own-task", passed[i].kernel ? " EL0+EL1" : " EL0",
			    who_name[passed[i].who], m == -254 ? "(READ failed)" : verdict(m));
		}
		/*
		 * Another process's task (the child's own session, STREAMed
		 * by its parent): the administrator's grant task_ours=1,
		 * asked again at STREAM.
		 */
		write_file("/sys/module/pmuscope/parameters/task_ours", "0");
		m = as(OTHER, gid, exec_stream, &own, 0);
		tap(m == -EPERM, "paranoid 2, other user, task_ours=0, STREAM of its child's session: %s",
		    verdict(m));
		write_file("/sys/module/pmuscope/parameters/task_ours", "1");
		m = as(OTHER, gid, exec_stream, &own, 0);
		tap(!m, "paranoid 2, other user, STREAM of its child after it exec'd %s: %s",
		    self, verdict(m));
		m = as(OTHER, gid, exec_stream, &suid, 0);
		tap(m == -EACCES, "paranoid 2, other user, STREAM of its child after it exec'd setuid-root %s: %s",
		    suid.name, verdict(m));
		write_file("/sys/module/pmuscope/parameters/task_ours", "0");
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
