// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope-container UID: the container recipe of
 * Documentation/board-am62l.rst, its mechanics without a container
 * runtime. Run as root with the module loaded without group=; UID is an
 * unprivileged uid (and gid) of no group. Each property is one TAP line:
 *
 *   (a) perfmon   what `--cap-drop ALL --cap-add PERFMON` gives a
 *                 container's root without user-namespace remapping:
 *                 CAP_PERFMON alone in its effective and permitted sets
 *                 (PR_SET_KEEPCAPS, capset) and in its bounding set, in
 *                 the initial user namespace; as UID, not 0, to show the
 *                 uid is not what counts. At kernel.perf_event_paranoid 2 (where
 *                 the capability matters) it counts CPU 0 with the kernel
 *                 (CPU_CYCLES, EL0 and EL1, more than 0), and
 *                 perf_event_open() agrees; the same uid without the
 *                 capability is refused both.
 *   (b) userns    "root" of a new user namespace (unshare(CLONE_NEWUSER),
 *                 uid and gid map 0 -> UID: every capability, in that
 *                 namespace only): at paranoid 2 and 1 each kind of
 *                 session (own task or CPU 0; EL0 only or with the
 *                 kernel) gets pmuscope's verdict = perf_event_open()'s,
 *                 and CPU-wide counting is refused by both
 *                 (perfmon_capable() asks the initial namespace). SKIP
 *                 where the kernel has no user namespaces (CONFIG_USER_NS
 *                 off: no /proc/self/ns/user; unshare() says EINVAL, or
 *                 EPERM on Debian's patched kernels).
 *   (c) paranoid  a container's root without CAP_PERFMON (uid 0 with
 *                 Docker's default capabilities): its own task, EL0
 *                 only and with the kernel, at every level -1..3, gets
 *                 pmuscope's verdict = perf_event_open()'s, and at -1..2
 *                 what the table of Documentation/pmuscope.rst says
 *                 (EL0: yes to 2; with the kernel: yes to 1); where
 *                 allowed it counts (more than 0).
 *   (d) seccomp   (a) under a seccomp filter in the manner of Docker's
 *                 default profile (default action EPERM; openat, ioctl,
 *                 read, close... allowed; perf_event_open not, as Docker
 *                 leaves it out without CAP_PERFMON): pmuscope still
 *                 counts CPU 0, and perf_event_open() gets the filter's
 *                 EPERM (the filter is in force). SKIP where the kernel
 *                 has no seccomp filters (CONFIG_SECCOMP_FILTER off:
 *                 seccomp() says ENOSYS, or EINVAL).
 *   (e) node      /dev/pmuscope as the recipe has it: the driver's node is
 *                 a character device of mode 0666; the udev rule's 0660
 *                 root:GID (GID = UID here) keeps out the CAP_PERFMON
 *                 process of (a) (EACCES) unless GID is its group.
 *
 * perf's side opens a software event (cpu-clock), as pmuscope-policy.c:
 * perf_event_open()'s checks of the caller come before the PMU is chosen,
 * so this runs on the direct backend too, where perf has no PMUv3; where
 * perf's PMU driver is there (root opens a hardware event), the hardware
 * CPU_CYCLES event in place of it. Refusals are compared as refused or
 * not: pmuscope's CPU-wide refusal is EPERM, perf's EACCES
 * (Documentation/pmuscope.rst). The paranoid level in force before is
 * put back.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "pmuscope-caps.h"
#include "pmuscope-guest.h"
#include "pmuscope-session.h"

#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define DEV		"/dev/pmuscope"
#define CPU_CYCLES	0x11


static uid_t uid;
static bool perf_hw;	/* perf's PMU driver is there: compare a hardware event */

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

/* ---------------------------------------------------------- the two sides */

static int perf_open(const struct kind *k)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = perf_hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		.config = perf_hw ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
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

/* A loop the compiler keeps, on whatever CPU the caller is. */
static void busy(void)
{
	for (volatile unsigned int i = 0; i < 200000; i++)
		;
}

/*
 * A session of @k (CPU_CYCLES) counted over busy() on CPU 0: 0 and the
 * count in @count, or -errno of the first step that failed.
 */
static int pmuscope_count(const struct kind *k, uint64_t *count)
{
	struct pmuscope_event ev = {
		.event = CPU_CYCLES,
		.flags = PMUSCOPE_EV_EL0 | (k->kernel ? PMUSCOPE_EV_EL1 : 0),
	};
	uint64_t cpus = 1;
	struct pmuscope_config cfg = {
		.size = sizeof(cfg),
		.target = k->cpu ? PMUSCOPE_TARGET_CPUS : PMUSCOPE_TARGET_TASK,
		.nr_events = 1, .events = (uintptr_t)&ev,
		.cpus = k->cpu ? (uintptr_t)&cpus : 0,
		.cpus_size = k->cpu ? sizeof(cpus) : 0,
	};
	struct pmuscope_value v;
	cpu_set_t set;
	int fd, ret = 0;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	fd = open(DEV, O_RDWR);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PMUSCOPE_IOC_CONFIG, &cfg) || ioctl(fd, PMUSCOPE_IOC_ENABLE)) {
		ret = -errno;
	} else {
		busy();
		if (read_one(fd, &v))
			ret = -errno;
		else
			*count = v.count;
	}
	close(fd);
	return ret;
}

/* ------------------------------------------------- the container's state */

/* Docker's default capabilities (moby's oci/caps/defaults.go). */
#define DOCKER_CAPS	(CAP(CAP_CHOWN) | CAP(CAP_DAC_OVERRIDE) | CAP(CAP_FSETID) | \
			 CAP(CAP_FOWNER) | CAP(CAP_MKNOD) | CAP(CAP_NET_RAW) | \
			 CAP(CAP_SETGID) | CAP(CAP_SETUID) | CAP(CAP_SETFCAP) | \
			 CAP(CAP_SETPCAP) | CAP(CAP_NET_BIND_SERVICE) | \
			 CAP(CAP_SYS_CHROOT) | CAP(CAP_KILL) | CAP(CAP_AUDIT_WRITE))

static int write_id_map(const char *file, uid_t id)
{
	char path[64], line[32];

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	snprintf(line, sizeof(line), "0 %u 1\n", id);
	return write_file(path, line);
}

/*
 * "Root" of a new user namespace whose 0 is @id: 0, or -errno. The
 * change of uid left this process undumpable, its /proc/self files
 * root's: dumpable again, as a process that exec'd (a container's) is.
 */
static int enter_userns(uid_t id)
{
	int ret;

	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) || unshare(CLONE_NEWUSER))
		return -errno;
	ret = write_file("/proc/self/setgroups", "deny");
	if (!ret)
		ret = write_id_map("uid_map", id);
	if (!ret)
		ret = write_id_map("gid_map", id);
	return ret;
}

/*
 * A seccomp filter in the manner of Docker's default profile: these
 * calls allowed, everything else EPERM (its defaultAction,
 * SCMP_ACT_ERRNO). perf_event_open is not among them.
 */
static const int allowed[] = {
	SYS_openat, SYS_ioctl, SYS_read, SYS_write, SYS_writev, SYS_close,
	SYS_exit, SYS_exit_group, SYS_sched_setaffinity, SYS_sched_getaffinity,
	SYS_mmap, SYS_munmap, SYS_brk, SYS_mprotect, SYS_newfstatat, SYS_fstat,
	SYS_rt_sigprocmask, SYS_rt_sigaction, SYS_rt_sigreturn, SYS_futex,
	SYS_getpid, SYS_gettid, SYS_clock_gettime,
};

static int seccomp_docker(void)
{
	struct sock_filter f[4 + 2 * sizeof(allowed) / sizeof(allowed[0]) + 2];
	struct sock_fprog prog = { .filter = f };
	unsigned int n = 0;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					      offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, allowed[i], 0, 1);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	}
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	prog.len = n;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
}

/* ------------------------------------------------------------ in a child */

/*
 * What a child reports: the errno of each step (0 = done) and the count.
 * Passed back through a pipe; setup -1 = the scene could not be set.
 */
struct verdicts {
	int setup;		/* 0, or -errno of the namespace/filter */
	int pmu[4], perf[4];	/* per kind of kinds[] */
	uint64_t count[4];
};

enum scene { PERFMON, NOCAP, USERNS, DOCKER_ROOT, SECCOMP, NODE_OUT, NODE_IN };

static void child(enum scene s, struct verdicts *v)
{
	const uint64_t perfmon = CAP(CAP_PERFMON);

	switch (s) {
	case PERFMON:
		v->setup = become(uid, -1, perfmon);
		break;
	case NOCAP:
		v->setup = become(uid, -1, 0);
		break;
	case USERNS:
		v->setup = become(uid, -1, 0) ?: enter_userns(uid);
		/* CAP_PERFMON and CAP_SYS_ADMIN too, of this namespace. */
		if (!v->setup && (~get_caps() & (perfmon | CAP(CAP_SYS_ADMIN))))
			v->setup = -ENOTRECOVERABLE;
		break;
	case DOCKER_ROOT:
		v->setup = become(0, -1, DOCKER_CAPS);
		break;
	case SECCOMP:
		v->setup = become(uid, -1, perfmon) ?: seccomp_docker();
		break;
	case NODE_OUT:
		v->setup = become(uid + 1, -1, perfmon);
		break;
	case NODE_IN:
		v->setup = become(uid + 1, uid, perfmon);
		break;
	}
	if (v->setup) {
		diag("scene %d could not be set: %s", s, strerror(-v->setup));
		return;
	}
	for (int i = 0; i < 4; i++) {
		v->pmu[i] = pmuscope_count(&kinds[i], &v->count[i]);
		v->perf[i] = perf_open(&kinds[i]);
	}
}

static int run(enum scene s, struct verdicts *v)
{
	int p[2], status;
	pid_t pid;

	memset(v, 0, sizeof(*v));
	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		struct verdicts mine = { };

		close(p[0]);
		child(s, &mine);
		/* write() is among the calls the filter allows. */
		if (write(p[1], &mine, sizeof(mine)) != sizeof(mine))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], v, sizeof(*v)) != sizeof(*v))
		v->setup = -EPIPE;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

static const char *verdict(int err)
{
	static char buf[4][32];
	static int n;

	n = (n + 1) % 4;
	if (!err)
		return "yes";
	snprintf(buf[n], sizeof(buf[n]), "no (%s)", strerror(-err));
	return buf[n];
}

static int set_paranoid(int level)
{
	char s[8];

	snprintf(s, sizeof(s), "%d", level);
	return write_file(PARANOID, s);
}

/*
 * Refused by the policy (EPERM, EACCES): 1; allowed: 0 (pmuscope counted;
 * or the direct backend, which counts no task, said EOPNOTSUPP after the
 * policy let it through; or perf has no such event); anything else: -1.
 */
static int refused(int err, bool pmu, const struct kind *k)
{
	if (err == -EPERM || err == -EACCES)
		return 1;
	if (!err || (err == -EOPNOTSUPP && (!pmu || !k->cpu)) || (!pmu && err == -ENOENT))
		return 0;
	return -1;
}

/* Each kind's two verdicts as diagnostics; true when they agree. */
static bool agree(const char *who, int level, const struct verdicts *v)
{
	bool ok = true;

	for (int i = 0; i < 4; i++) {
		int a = refused(v->pmu[i], true, &kinds[i]);
		int b = refused(v->perf[i], false, &kinds[i]);
		bool same = a >= 0 && a == b;

		diag("%s, paranoid %d, %s: pmuscope %s, perf_event_open %s%s", who, level,
		     kinds[i].name, verdict(v->pmu[i]), verdict(v->perf[i]),
		     same ? "" : "  <- DIFFER");
		ok &= same;
	}
	return ok;
}

/* ---------------------------------------------------------- the properties */

static void prop_perfmon(void)
{
	struct verdicts v, none;
	bool ok;

	set_paranoid(2);
	ok = !run(PERFMON, &v) && !v.setup;
	ok = ok && agree("CAP_PERFMON alone", 2, &v);
	ok = ok && !v.pmu[3] && v.count[3] > 0;
	diag("CAP_PERFMON alone, uid %u: CPU 0 with the kernel, %llu cycles", uid,
	     (unsigned long long)v.count[3]);
	/* The control: the same uid without the capability. */
	ok = ok && !run(NOCAP, &none) && !none.setup && agree("no capability", 2, &none);
	ok = ok && refused(none.pmu[2], true, &kinds[2]) == 1 &&
	     refused(none.pmu[3], true, &kinds[3]) == 1;
	tap(ok, "(a) uid %u with CAP_PERFMON alone (initial user namespace): counts CPU 0, perf_event_open() agrees; without it both refuse",
	    uid);
}

static void prop_userns(void)
{
	struct verdicts v;
	bool ok = true;

	/* No namespace files of its own: CONFIG_USER_NS is off. */
	if (access("/proc/self/ns/user", F_OK)) {
		tap(1, "(b) root of a user namespace: CPU-wide refused as perf refuses it # SKIP no user namespaces in this kernel (no /proc/self/ns/user: CONFIG_USER_NS is off)");
		return;
	}
	for (int level = 2; level >= 1; level--) {
		set_paranoid(level);
		if (run(USERNS, &v)) {
			ok = false;
			break;
		}
		if (v.setup) {
			diag("user namespace: %s", strerror(-v.setup));
			ok = false;
			break;
		}
		ok &= agree("root of a user namespace", level, &v);
		for (int i = 2; i < 4; i++)
			ok &= refused(v.pmu[i], true, &kinds[i]) == 1 &&
			      refused(v.perf[i], false, &kinds[i]) == 1;
	}
	tap(ok, "(b) root of a user namespace (every capability there): pmuscope refuses CPU-wide counting as perf_event_open() does");
}

static void prop_paranoid(void)
{
	struct verdicts v;
	bool ok = true;

	for (int level = -1; level <= 3; level++) {
		set_paranoid(level);
		if (run(DOCKER_ROOT, &v) || v.setup) {
			diag("Docker's root at paranoid %d: could not be set (%s)", level,
			     strerror(-v.setup));
			ok = false;
			continue;
		}
		ok &= agree("root, Docker's capabilities", level, &v);
		/* The table of Documentation/pmuscope.rst, to 2. */
		if (level <= 2)
			ok &= refused(v.pmu[0], true, &kinds[0]) == 0 &&
			      refused(v.pmu[1], true, &kinds[1]) == (level > 1);
		/* What was allowed counted (the direct backend counts no task). */
		for (int i = 0; i < 2; i++)
			ok &= v.pmu[i] || v.count[i] > 0;
	}
	tap(ok, "(c) own task of a container's root without CAP_PERFMON: allowed or refused as perf_event_paranoid says, as perf_event_open()");
}

static void prop_seccomp(void)
{
	struct verdicts v;
	bool ok;

	set_paranoid(2);
	ok = !run(SECCOMP, &v);
	if (ok && (v.setup == -EINVAL || v.setup == -ENOSYS)) {
		tap(1, "(d) a seccomp filter like Docker's default: pmuscope counts through it # SKIP no seccomp filters in this kernel (%s; CONFIG_SECCOMP_FILTER)",
		    strerror(-v.setup));
		return;
	}
	ok = ok && !v.setup;
	for (int i = 0; ok && i < 4; i++)
		diag("seccomp, CAP_PERFMON, %s: pmuscope %s (%llu), perf_event_open %s",
		     kinds[i].name, verdict(v.pmu[i]), (unsigned long long)v.count[i],
		     verdict(v.perf[i]));
	ok = ok && !v.pmu[3] && v.count[3] > 0 && v.perf[3] == -EPERM;
	tap(ok, "(d) a seccomp filter like Docker's default (openat, ioctl allowed; perf_event_open EPERM): pmuscope counts CPU 0");
}

static void prop_node(void)
{
	struct verdicts out, in;
	struct stat st = { };
	bool ok;

	ok = !stat(DEV, &st) && S_ISCHR(st.st_mode) && (st.st_mode & 07777) == 0666;
	diag("%s: mode %04o, uid %u gid %u", DEV, (unsigned int)(st.st_mode & 07777),
	     (unsigned int)st.st_uid, (unsigned int)st.st_gid);
	/* The udev rule's node: 0660 root:GID. */
	ok = ok && !chown(DEV, 0, uid) && !chmod(DEV, 0660);
	set_paranoid(2);
	ok = ok && !run(NODE_OUT, &out) && !run(NODE_IN, &in) && !out.setup && !in.setup;
	diag("0660 root:%u: CAP_PERFMON not in group %u: %s; in it: %s", uid, uid,
	     verdict(out.pmu[3]), verdict(in.pmu[3]));
	ok = ok && out.pmu[3] == -EACCES && !in.pmu[3] && in.count[3] > 0;
	if (chown(DEV, st.st_uid, st.st_gid) || chmod(DEV, st.st_mode & 07777))
		ok = false;
	tap(ok, "(e) /dev/pmuscope: a 0666 character device; 0660 root:GID admits GID's members only");
}

int main(int argc, char **argv)
{
	struct kind cpu_root = { "cpu", true, true };
	char before[16] = "";
	int fd;

	tap_tag = "container";
	if (argc != 2) {
		fprintf(stderr, "usage: pmuscope-container UID\n");
		return 2;
	}
	uid = strtoul(argv[1], NULL, 0);
	fd = open(PARANOID, O_RDONLY);
	if (fd < 0 || read(fd, before, sizeof(before) - 1) <= 0) {
		tap(0, "read %s", PARANOID);
		return 1;
	}
	close(fd);
	perf_hw = true;
	perf_hw = !perf_open(&cpu_root);
	diag("perf_event_open compared with %s", perf_hw ? "the hardware CPU_CYCLES event (perf's PMU driver)" : "the software cpu-clock event (no PMU driver of perf)");

	prop_perfmon();
	prop_userns();
	prop_paranoid();
	prop_seccomp();
	prop_node();

	before[strcspn(before, "\n")] = '\0';
	if (write_file(PARANOID, before))
		tap(0, "perf_event_paranoid put back to %s", before);
	return tap_failures ? 1 : 0;
}
