// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: one case per validation rule of every ioctl, on the pure checks
 * the ioctls run (the in-guest test pmuscope-test errors drives the same
 * rules through the real ioctls). Each case starts from a valid argument
 * and breaks one thing.
 */

#include <kunit/test.h>
#include <linux/cred.h>
#include <linux/slab.h>

#include "pmuscope.h"
#include "pmuscope_model.h"

enum pmuscope_uapi_arg {
	ARG_SIZE,
	ARG_HANDSHAKE,
	ARG_CONFIG,
	ARG_READ,
	ARG_SWINC,
};

struct pmuscope_uapi_case {
	const char *name;
	enum pmuscope_uapi_arg arg;
	void (*breaker)(void *arg);
	int expect;
	u32 usize;		/* ARG_SIZE: the size field */
	size_t min;		/* ARG_SIZE: version 1's size */
};

/* Breakers: each sets one field of a valid argument. */
static void break_handshake_api_version(void *p)
{
	((struct pmuscope_handshake *)p)->api_version = 1;
}

static void break_handshake_features(void *p)
{
	((struct pmuscope_handshake *)p)->features = 1;
}

static void break_handshake_nr_cpu_ids(void *p)
{
	((struct pmuscope_handshake *)p)->nr_cpu_ids = 4;
}

static void break_handshake_max_events(void *p)
{
	((struct pmuscope_handshake *)p)->max_events = 32;
}

static void break_handshake_reserved_0_(void *p)
{
	((struct pmuscope_handshake *)p)->reserved[0] = 1;
}

static void break_handshake_reserved_3_(void *p)
{
	((struct pmuscope_handshake *)p)->reserved[3] = 1;
}

static void break_config_flags(void *p)
{
	((struct pmuscope_config *)p)->flags = 1;
}

static void break_config_reserved0(void *p)
{
	((struct pmuscope_config *)p)->reserved0 = 1;
}

static void break_config_target(void *p)
{
	((struct pmuscope_config *)p)->target = 2;
}

static void break_config_cpus_pid(void *p)
{
	((struct pmuscope_config *)p)->pid = 1;
}

static void break_config_event_size_8(void *p)
{
	((struct pmuscope_config *)p)->event_size = 8;
}

static void break_config_event_size_20(void *p)
{
	((struct pmuscope_config *)p)->event_size = 20;
}

static void break_config_event_size_264(void *p)
{
	((struct pmuscope_config *)p)->event_size = PMUSCOPE_ELEM_SIZE_MAX + 8;
}

static void set_config_event_size_24(void *p)
{
	((struct pmuscope_config *)p)->event_size = 24;
}

static void set_config_event_size_16(void *p)
{
	((struct pmuscope_config *)p)->event_size = 16;
}

/* A valid task target: the calling thread, inherit, enable on exec. */
static void set_config_task(void *p)
{
	struct pmuscope_config *cfg = p;

	cfg->target = PMUSCOPE_TARGET_TASK;
	cfg->cpus_size = 0;
	cfg->flags = PMUSCOPE_CFG_INHERIT | PMUSCOPE_CFG_ENABLE_ON_EXEC;
}

static void break_config_task_cpus(void *p)
{
	set_config_task(p);
	((struct pmuscope_config *)p)->cpus_size = 8;
}

static void break_config_task_cpus_ptr(void *p)
{
	set_config_task(p);
	((struct pmuscope_config *)p)->cpus = 0x1000;
}

static void break_config_task_pid(void *p)
{
	set_config_task(p);
	((struct pmuscope_config *)p)->pid = -1;
}

static void set_config_task_pid(void *p)
{
	set_config_task(p);
	((struct pmuscope_config *)p)->pid = 4242;
}

static void break_config_task_flag(void *p)
{
	set_config_task(p);
	((struct pmuscope_config *)p)->flags |= 1U << 2;
}

static void break_config_cpus_inherit(void *p)
{
	((struct pmuscope_config *)p)->flags = PMUSCOPE_CFG_INHERIT;
}

static void break_config_cpus_enable_on_exec(void *p)
{
	((struct pmuscope_config *)p)->flags = PMUSCOPE_CFG_ENABLE_ON_EXEC;
}

static void break_read_value_size_32(void *p)
{
	((struct pmuscope_read *)p)->value_size = 32;
}

static void break_read_value_size_44(void *p)
{
	((struct pmuscope_read *)p)->value_size = 44;
}

static void break_read_value_size_264(void *p)
{
	((struct pmuscope_read *)p)->value_size = PMUSCOPE_ELEM_SIZE_MAX + 8;
}

static void set_read_value_size_48(void *p)
{
	((struct pmuscope_read *)p)->value_size = 48;
}

static void break_config_nr_events(void *p)
{
	((struct pmuscope_config *)p)->nr_events = 0;
}

static void break_config_cpus_size(void *p)
{
	((struct pmuscope_config *)p)->cpus_size = 0;
}

static void break_swinc_flags(void *p)
{
	((struct pmuscope_swinc *)p)->flags = 1U << 31;
}

static void break_swinc_reserved_1_(void *p)
{
	((struct pmuscope_swinc *)p)->reserved[1] = 1;
}

static void break_swinc_count(void *p)
{
	((struct pmuscope_swinc *)p)->count = 0;
}

static void break_swinc_event_mask(void *p)
{
	((struct pmuscope_swinc *)p)->event_mask = 0;
}

static void break_read_flags(void *p)
{
	((struct pmuscope_read *)p)->flags = 1;
}

static void break_read_reserved_0_(void *p)
{
	((struct pmuscope_read *)p)->reserved[0] = 1;
}

static void break_read_reserved_1_(void *p)
{
	((struct pmuscope_read *)p)->reserved[1] = 1;
}

static void break_config_nr_events_33(void *p)
{
	((struct pmuscope_config *)p)->nr_events = PMUSCOPE_MAX_EVENTS + 1;
}

static void set_config_nr_events_32(void *p)
{
	((struct pmuscope_config *)p)->nr_events = PMUSCOPE_MAX_EVENTS;
}

static void break_config_cpus_size_12(void *p)
{
	((struct pmuscope_config *)p)->cpus_size = 12;
}

static void break_config_cpus_size_4104(void *p)
{
	((struct pmuscope_config *)p)->cpus_size = PMUSCOPE_CPUS_SIZE_MAX + 8;
}

static void set_config_cpus_size_4096(void *p)
{
	((struct pmuscope_config *)p)->cpus_size = PMUSCOPE_CPUS_SIZE_MAX;
}

static void break_swinc_count_above(void *p)
{
	((struct pmuscope_swinc *)p)->count = PMUSCOPE_SWINC_MAX + 1;
}

static void set_swinc_count_max(void *p)
{
	((struct pmuscope_swinc *)p)->count = PMUSCOPE_SWINC_MAX;
}

static const struct pmuscope_uapi_case pmuscope_uapi_cases[] = {
	{ "size 0", ARG_SIZE, NULL, -EINVAL, 0, 56 },
	{ "size one word short", ARG_SIZE, NULL, -EINVAL, 48, 56 },
	{ "size of version 1", ARG_SIZE, NULL, 0, 56, 56 },
	{ "size of a later version", ARG_SIZE, NULL, 0, 4096, 56 },
	{ "size above a page", ARG_SIZE, NULL, -E2BIG, PAGE_SIZE + 8, 56 },
	{ "size 4 GiB - 1", ARG_SIZE, NULL, -E2BIG, U32_MAX, 56 },
	{ "HANDSHAKE valid", ARG_HANDSHAKE, NULL, 0 },
	{ "HANDSHAKE api_version set", ARG_HANDSHAKE, break_handshake_api_version, -EINVAL },
	{ "HANDSHAKE features set", ARG_HANDSHAKE, break_handshake_features, -EINVAL },
	{ "HANDSHAKE nr_cpu_ids set", ARG_HANDSHAKE, break_handshake_nr_cpu_ids, -EINVAL },
	{ "HANDSHAKE max_events set", ARG_HANDSHAKE, break_handshake_max_events, -EINVAL },
	{ "HANDSHAKE reserved[0] set", ARG_HANDSHAKE, break_handshake_reserved_0_, -EINVAL },
	{ "HANDSHAKE reserved[3] set", ARG_HANDSHAKE, break_handshake_reserved_3_, -EINVAL },
	{ "CONFIG valid", ARG_CONFIG, NULL, 0 },
	{ "CONFIG unknown flag", ARG_CONFIG, break_config_flags, -EINVAL },
	{ "CONFIG reserved0 set", ARG_CONFIG, break_config_reserved0, -EINVAL },
	{ "CONFIG unknown target", ARG_CONFIG, break_config_target, -EINVAL },
	{ "CONFIG CPUs with a pid", ARG_CONFIG, break_config_cpus_pid, -EINVAL },
	{ "CONFIG CPUs with INHERIT", ARG_CONFIG, break_config_cpus_inherit, -EINVAL },
	{ "CONFIG CPUs with ENABLE_ON_EXEC", ARG_CONFIG, break_config_cpus_enable_on_exec,
	  -EINVAL },
	{ "CONFIG event_size below version 1's", ARG_CONFIG, break_config_event_size_8,
	  -EINVAL },
	{ "CONFIG event_size not in words", ARG_CONFIG, break_config_event_size_20, -EINVAL },
	{ "CONFIG event_size too large", ARG_CONFIG, break_config_event_size_264, -E2BIG },
	{ "CONFIG event_size of version 1", ARG_CONFIG, set_config_event_size_16, 0 },
	{ "CONFIG event_size of a later version", ARG_CONFIG, set_config_event_size_24, 0 },
	{ "CONFIG task target valid", ARG_CONFIG, set_config_task, 0 },
	{ "CONFIG task target, another thread id", ARG_CONFIG, set_config_task_pid, 0 },
	{ "CONFIG task target with a CPU bitmap size", ARG_CONFIG, break_config_task_cpus,
	  -EINVAL },
	{ "CONFIG task target with a CPU bitmap", ARG_CONFIG, break_config_task_cpus_ptr,
	  -EINVAL },
	{ "CONFIG task target, negative pid", ARG_CONFIG, break_config_task_pid, -EINVAL },
	{ "CONFIG task target, unknown flag", ARG_CONFIG, break_config_task_flag, -EINVAL },
	{ "CONFIG no events", ARG_CONFIG, break_config_nr_events, -EINVAL },
	{ "CONFIG too many events", ARG_CONFIG, break_config_nr_events_33, -EINVAL },
	{ "CONFIG 32 events", ARG_CONFIG, set_config_nr_events_32, 0 },
	{ "CONFIG empty CPU bitmap", ARG_CONFIG, break_config_cpus_size, -EINVAL },
	{ "CONFIG CPU bitmap not in words", ARG_CONFIG, break_config_cpus_size_12, -EINVAL },
	{ "CONFIG CPU bitmap too large", ARG_CONFIG, break_config_cpus_size_4104, -EINVAL },
	{ "CONFIG largest CPU bitmap", ARG_CONFIG, set_config_cpus_size_4096, 0 },
	{ "READ valid", ARG_READ, NULL, 0 },
	{ "READ unknown flag", ARG_READ, break_read_flags, -EINVAL },
	{ "READ value_size below version 1's", ARG_READ, break_read_value_size_32, -EINVAL },
	{ "READ value_size not in words", ARG_READ, break_read_value_size_44, -EINVAL },
	{ "READ value_size too large", ARG_READ, break_read_value_size_264, -E2BIG },
	{ "READ value_size of a later version", ARG_READ, set_read_value_size_48, 0 },
	{ "READ reserved[0] set", ARG_READ, break_read_reserved_0_, -EINVAL },
	{ "READ reserved[1] set", ARG_READ, break_read_reserved_1_, -EINVAL },
	{ "SWINC valid", ARG_SWINC, NULL, 0 },
	{ "SWINC unknown flag", ARG_SWINC, break_swinc_flags, -EINVAL },
	{ "SWINC reserved[1] set", ARG_SWINC, break_swinc_reserved_1_, -EINVAL },
	{ "SWINC no increments", ARG_SWINC, break_swinc_count, -EINVAL },
	{ "SWINC too many increments", ARG_SWINC, break_swinc_count_above, -EINVAL },
	{ "SWINC most increments", ARG_SWINC, set_swinc_count_max, 0 },
	{ "SWINC no event", ARG_SWINC, break_swinc_event_mask, -EINVAL },
};

static void pmuscope_uapi_desc(const struct pmuscope_uapi_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_uapi, pmuscope_uapi_cases, pmuscope_uapi_desc);

static void pmuscope_test_uapi_rules(struct kunit *test)
{
	const struct pmuscope_uapi_case *c = test->param_value;
	struct pmuscope_handshake hs = { .size = sizeof(hs) };
	struct pmuscope_config cfg = {
		.size = sizeof(cfg), .nr_events = 1, .cpus_size = 8,
	};
	struct pmuscope_read rd = { .size = sizeof(rd), .nr_values = 4 };
	struct pmuscope_swinc sw = {
		.size = sizeof(sw), .event_mask = 1, .count = 1,
	};
	int got;

	switch (c->arg) {
	case ARG_SIZE:
		got = pmuscope_check_size(c->usize, c->min);
		break;
	case ARG_HANDSHAKE:
		if (c->breaker)
			c->breaker(&hs);
		got = pmuscope_check_handshake(&hs);
		break;
	case ARG_CONFIG:
		if (c->breaker)
			c->breaker(&cfg);
		got = pmuscope_check_config(&cfg);
		break;
	case ARG_READ:
		if (c->breaker)
			c->breaker(&rd);
		got = pmuscope_check_read(&rd);
		break;
	default:
		if (c->breaker)
			c->breaker(&sw);
		got = pmuscope_check_swinc(&sw);
		break;
	}
	KUNIT_EXPECT_EQ_MSG(test, got, c->expect, "%s", c->name);
}

/* ------------------------------------------------------------- CPU rules */
struct pmuscope_cpu_case {
	const char *name;
	bool possible, online, probed;
	enum pmuscope_unit_state pmu;
	int expect;
};

static const struct pmuscope_cpu_case pmuscope_cpu_cases[] = {
	{ "online with a PMU", true, true, true, PMUSCOPE_STATE_PRESENT, 0 },
	{ "absent CPU", false, false, false, PMUSCOPE_STATE_ABSENT, -ENODEV },
	{ "offline CPU", true, false, true, PMUSCOPE_STATE_PRESENT, -ENXIO },
	{ "online, not probed yet", true, true, false, PMUSCOPE_STATE_PRESENT, -ENXIO },
	{ "no PMU", true, true, true, PMUSCOPE_STATE_ABSENT, -ENODEV },
	{ "PMU switched off (pmu=0)", true, true, true, PMUSCOPE_STATE_DISABLED, -ENODEV },
};

static void pmuscope_cpu_desc(const struct pmuscope_cpu_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_cpu, pmuscope_cpu_cases, pmuscope_cpu_desc);

static void pmuscope_test_cpu_rules(struct kunit *test)
{
	const struct pmuscope_cpu_case *c = test->param_value;
	struct pmuscope_cpu_caps caps = { };

	caps.state[PMUSCOPE_UNIT_PMU] = c->pmu;
	KUNIT_EXPECT_EQ(test, pmuscope_check_cpu(c->possible, c->online,
						 c->probed ? &caps : NULL),
			c->expect);
}

/* ------------------------------------------------------------ permission */
struct pmuscope_perm_case {
	const char *name;
	int cap;		/* capability kept, -1: none */
	int group;		/* -1: no group parameter */
	bool member;
	bool allowed;
};

static const struct pmuscope_perm_case pmuscope_perm_cases[] = {
	{ "no capability", -1, -1, false, false },
	{ "CAP_PERFMON", CAP_PERFMON, -1, false, true },
	{ "CAP_SYS_ADMIN", CAP_SYS_ADMIN, -1, false, true },
	{ "CAP_NET_ADMIN only", CAP_NET_ADMIN, -1, false, false },
	{ "member of the group parameter", -1, 4242, true, true },
	{ "not a member of the group parameter", -1, 4242, false, false },
};

static void pmuscope_perm_desc(const struct pmuscope_perm_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_perm, pmuscope_perm_cases, pmuscope_perm_desc);

static void pmuscope_test_permission(struct kunit *test)
{
	const struct pmuscope_perm_case *c = test->param_value;
	kgid_t group = c->group >= 0 ? KGIDT_INIT(c->group) : INVALID_GID;
	const struct cred *old;
	struct cred *cred;
	bool allowed;

	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cred->fsuid = KUIDT_INIT(65534);
	cred->euid = KUIDT_INIT(65534);
	cred->egid = KGIDT_INIT(65534);
	cap_clear(cred->cap_effective);
	if (c->cap >= 0)
		cap_raise(cred->cap_effective, c->cap);
	if (c->member) {
		struct group_info *gi = groups_alloc(1);

		KUNIT_ASSERT_NOT_NULL(test, gi);
		gi->gid[0] = group;
		set_groups(cred, gi);
		put_group_info(gi);
	}
	old = override_creds(cred);
	allowed = pmuscope_may_count(group);
	revert_creds(old);
	put_cred(cred);
	KUNIT_EXPECT_EQ_MSG(test, allowed, c->allowed, "%s", c->name);
}

static struct kunit_case pmuscope_uapi_test_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_uapi_rules, pmuscope_uapi_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_cpu_rules, pmuscope_cpu_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_permission, pmuscope_perm_gen_params),
	{}
};

static struct kunit_suite pmuscope_uapi_suite = {
	.name = "pmuscope_uapi",
	.test_cases = pmuscope_uapi_test_cases,
};

kunit_test_suites(&pmuscope_uapi_suite);
