/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest test process as another user with chosen capabilities alone
 * (pmuscope-container, pmuscope-policy): CAP_PERFMON without root, as a
 * container's `--cap-drop ALL --cap-add PERFMON` gives it.
 */
#ifndef PMUSCOPE_CAPS_H
#define PMUSCOPE_CAPS_H

#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdint.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

static int __attribute__((unused)) set_caps(uint64_t caps)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = (uint32_t)caps, .permitted = (uint32_t)caps },
		{ .effective = (uint32_t)(caps >> 32), .permitted = (uint32_t)(caps >> 32) },
	};

	return syscall(SYS_capset, &h, d);
}

static uint64_t __attribute__((unused)) get_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { };

	if (syscall(SYS_capget, &h, d))
		return ~0ULL;
	return d[0].effective | (uint64_t)d[1].effective << 32;
}

/* The bounding set down to @keep (root, before anything else). */
static int __attribute__((unused)) bound_caps(uint64_t keep)
{
	for (int c = 0; c <= 63; c++) {
		if (keep & (1ULL << c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL)
			return -1;
	}
	return 0;
}

/*
 * This process as uid/gid @id, of @group alone (-1: none), @caps its only
 * capabilities: 0, or -errno (-ENOTRECOVERABLE: capget shows others).
 */
static int __attribute__((unused)) become(uid_t id, gid_t group, uint64_t caps)
{
	gid_t groups[1] = { group };

	if (bound_caps(caps) || prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
	    setgroups(group != (gid_t)-1, groups) || setgid(id) || setuid(id) ||
	    set_caps(caps))
		return -errno;
	return get_caps() == caps ? 0 : -ENOTRECOVERABLE;
}

#define CAP(c)		(1ULL << (c))

#endif /* PMUSCOPE_CAPS_H */
