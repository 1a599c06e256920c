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
	ARG_SNAPSHOT,
	ARG_STREAM,
	ARG_AMU_READ,
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
	((struct pmuscope_config *)p)->flags |= 1U << 4;
}

/* EL0 access (version 6): the USER_* flags of a task target. */
static void set_config_task_flags(void *p, u32 flags)
{
	set_config_task(p);
	((struct pmuscope_config *)p)->flags = flags;
}

static void set_config_user_read(void *p)
{
	set_config_task_flags(p, PMUSCOPE_CFG_USER_READ);
}

static void set_config_user_swinc(void *p)
{
	set_config_task_flags(p, PMUSCOPE_CFG_USER_READ | PMUSCOPE_CFG_USER_SWINC);
}

static void break_config_user_swinc_alone(void *p)
{
	set_config_task_flags(p, PMUSCOPE_CFG_USER_SWINC);
}

static void break_config_user_inherit(void *p)
{
	set_config_task_flags(p, PMUSCOPE_CFG_USER_READ | PMUSCOPE_CFG_INHERIT);
}

static void break_config_user_enable_on_exec(void *p)
{
	set_config_task_flags(p, PMUSCOPE_CFG_USER_READ | PMUSCOPE_CFG_ENABLE_ON_EXEC);
}

static void break_config_cpus_user_read(void *p)
{
	((struct pmuscope_config *)p)->flags = PMUSCOPE_CFG_USER_READ;
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

static void break_snap_flags(void *p)
{
	((struct pmuscope_snapshot *)p)->flags = 1U << 2;
}

static void break_snap_both(void *p)
{
	((struct pmuscope_snapshot *)p)->flags = PMUSCOPE_SNAP_F_ALL;
}

static void break_snap_reserved0(void *p)
{
	((struct pmuscope_snapshot *)p)->reserved0 = 1;
}

static void break_snap_reserved_1_(void *p)
{
	((struct pmuscope_snapshot *)p)->reserved[1] = 1;
}

static void break_snap_freq(void *p)
{
	((struct pmuscope_snapshot *)p)->freq = 1;
}

static void break_snap_skew(void *p)
{
	((struct pmuscope_snapshot *)p)->skew = 1;
}

static void break_snap_lead_above(void *p)
{
	((struct pmuscope_snapshot *)p)->lead_us = PMUSCOPE_SNAP_LEAD_US_MAX + 1;
}

static void break_snap_value_size_32(void *p)
{
	((struct pmuscope_snapshot *)p)->value_size = 32;
}

static void break_snap_value_size_264(void *p)
{
	((struct pmuscope_snapshot *)p)->value_size = 264;
}

static void break_snap_cpu_size_40(void *p)
{
	((struct pmuscope_snapshot *)p)->cpu_size = 40;
}

static void break_snap_cpu_size_52(void *p)
{
	((struct pmuscope_snapshot *)p)->cpu_size = 52;
}

static void break_snap_cpu_size_264(void *p)
{
	((struct pmuscope_snapshot *)p)->cpu_size = 264;
}

static void break_amu_flags(void *p)
{
	((struct pmuscope_amu_read *)p)->flags = 1;
}

static void break_amu_reserved0(void *p)
{
	((struct pmuscope_amu_read *)p)->reserved0 = 1;
}

static void break_amu_reserved_1_(void *p)
{
	((struct pmuscope_amu_read *)p)->reserved[1] = 1;
}

static void break_amu_freq(void *p)
{
	((struct pmuscope_amu_read *)p)->freq = 1;
}

static void break_amu_cpus_size_0(void *p)
{
	((struct pmuscope_amu_read *)p)->cpus_size = 0;
}

static void break_amu_cpus_size_12(void *p)
{
	((struct pmuscope_amu_read *)p)->cpus_size = 12;
}

static void break_amu_cpus_size_4104(void *p)
{
	((struct pmuscope_amu_read *)p)->cpus_size = 4104;
}

static void set_amu_cpus_size_4096(void *p)
{
	((struct pmuscope_amu_read *)p)->cpus_size = 4096;
}

static void break_amu_record_size_352(void *p)
{
	((struct pmuscope_amu_read *)p)->record_size = 352;
}

static void break_amu_record_size_364(void *p)
{
	((struct pmuscope_amu_read *)p)->record_size = 364;
}

static void break_amu_record_size_4104(void *p)
{
	((struct pmuscope_amu_read *)p)->record_size = 4104;
}

static void set_amu_record_size_360(void *p)
{
	((struct pmuscope_amu_read *)p)->record_size = 360;
}

static void set_amu_record_size_4096(void *p)
{
	((struct pmuscope_amu_read *)p)->record_size = 4096;
}

static void set_snap_software(void *p)
{
	((struct pmuscope_snapshot *)p)->flags = PMUSCOPE_SNAP_F_SOFTWARE;
}

static void set_snap_hardware(void *p)
{
	((struct pmuscope_snapshot *)p)->flags = PMUSCOPE_SNAP_F_HARDWARE;
}

static void set_snap_lead_max(void *p)
{
	((struct pmuscope_snapshot *)p)->lead_us = PMUSCOPE_SNAP_LEAD_US_MAX;
}

static void set_snap_cpu_size_56(void *p)
{
	((struct pmuscope_snapshot *)p)->cpu_size = 56;
}

static void set_snap_value_size_48(void *p)
{
	((struct pmuscope_snapshot *)p)->value_size = 48;
}

static void break_st_flags(void *p)
{
	((struct pmuscope_stream *)p)->flags = 2;
}

static void break_st_reserved(void *p)
{
	((struct pmuscope_stream *)p)->reserved2 = 1;
}

static void break_st_reserved0(void *p)
{
	((struct pmuscope_stream *)p)->reserved0 = 1;
}

static void break_st_reserved1(void *p)
{
	((struct pmuscope_stream *)p)->reserved1 = 1;
}

static void break_st_stack_deep(void *p)
{
	((struct pmuscope_stream *)p)->flags = PMUSCOPE_STREAM_F_CALLCHAIN;
	((struct pmuscope_stream *)p)->max_stack = PMUSCOPE_STACK_MAX + 1;
}

static void break_st_stack_no_chain(void *p)
{
	((struct pmuscope_stream *)p)->max_stack = 8;
}

static void break_st_ms(void *p)
{
	((struct pmuscope_stream *)p)->period_ms = PMUSCOPE_STREAM_MS_MAX + 1;
}

static void break_st_index(void *p)
{
	((struct pmuscope_stream *)p)->sample_index = PMUSCOPE_MAX_EVENTS;
}

static void break_st_period_low(void *p)
{
	((struct pmuscope_stream *)p)->sample_period = PMUSCOPE_STREAM_PERIOD_MIN - 1;
}

static void break_st_period_high(void *p)
{
	((struct pmuscope_stream *)p)->sample_period = PMUSCOPE_STREAM_PERIOD_MAX + 1;
}

static void break_st_ring_3(void *p)
{
	((struct pmuscope_stream *)p)->ring_kib = 3;
}

static void break_st_ring_big(void *p)
{
	((struct pmuscope_stream *)p)->ring_kib = PMUSCOPE_STREAM_KIB_MAX * 2;
}

static void break_st_wakeup(void *p)
{
	((struct pmuscope_stream *)p)->wakeup_kib = PMUSCOPE_STREAM_KIB_MAX;
}

static void break_st_period_no_event(void *p)
{
	((struct pmuscope_stream *)p)->sample_index = PMUSCOPE_STREAM_NO_EVENT;
}

static void set_st_timer(void *p)
{
	((struct pmuscope_stream *)p)->sample_index = PMUSCOPE_STREAM_NO_EVENT;
	((struct pmuscope_stream *)p)->sample_period = 0;
	((struct pmuscope_stream *)p)->period_ms = 10;
}

static void set_st_period_max(void *p)
{
	((struct pmuscope_stream *)p)->sample_period = PMUSCOPE_STREAM_PERIOD_MAX;
}

static void set_st_ring_max(void *p)
{
	((struct pmuscope_stream *)p)->ring_kib = PMUSCOPE_STREAM_KIB_MAX;
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
	{ "CONFIG task target, USER_READ", ARG_CONFIG, set_config_user_read, 0 },
	{ "CONFIG task target, USER_READ and USER_SWINC", ARG_CONFIG, set_config_user_swinc, 0 },
	{ "CONFIG task target, USER_SWINC without USER_READ", ARG_CONFIG,
	  break_config_user_swinc_alone, -EINVAL },
	{ "CONFIG task target, USER_READ with INHERIT", ARG_CONFIG, break_config_user_inherit,
	  -EINVAL },
	{ "CONFIG task target, USER_READ with ENABLE_ON_EXEC", ARG_CONFIG,
	  break_config_user_enable_on_exec, -EINVAL },
	{ "CONFIG CPUs with USER_READ", ARG_CONFIG, break_config_cpus_user_read, -EINVAL },
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
	{ "STREAM valid", ARG_STREAM, NULL, 0 },
	{ "STREAM unknown flag", ARG_STREAM, break_st_flags, -EINVAL },
	{ "STREAM reserved2 set", ARG_STREAM, break_st_reserved, -EINVAL },
	{ "STREAM reserved0 set", ARG_STREAM, break_st_reserved0, -EINVAL },
	{ "STREAM reserved1 set", ARG_STREAM, break_st_reserved1, -EINVAL },
	{ "STREAM max_stack over 127", ARG_STREAM, break_st_stack_deep, -EINVAL },
	{ "STREAM max_stack without CALLCHAIN", ARG_STREAM, break_st_stack_no_chain, -EINVAL },
	{ "STREAM period above 60 s", ARG_STREAM, break_st_ms, -EINVAL },
	{ "STREAM event index beyond any configuration", ARG_STREAM, break_st_index, -EINVAL },
	{ "STREAM sample period below 1000", ARG_STREAM, break_st_period_low, -EINVAL },
	{ "STREAM sample period above 2^31", ARG_STREAM, break_st_period_high, -EINVAL },
	{ "STREAM ring of 3 KiB", ARG_STREAM, break_st_ring_3, -EINVAL },
	{ "STREAM ring above 16 MiB", ARG_STREAM, break_st_ring_big, -EINVAL },
	{ "STREAM watermark above half the largest ring", ARG_STREAM, break_st_wakeup, -EINVAL },
	{ "STREAM a period without an event", ARG_STREAM, break_st_period_no_event, -EINVAL },
	{ "STREAM time-based only", ARG_STREAM, set_st_timer, 0 },
	{ "STREAM sample period 2^31", ARG_STREAM, set_st_period_max, 0 },
	{ "STREAM ring of 16 MiB", ARG_STREAM, set_st_ring_max, 0 },
	{ "SNAPSHOT valid", ARG_SNAPSHOT, NULL, 0 },
	{ "SNAPSHOT unknown flag", ARG_SNAPSHOT, break_snap_flags, -EINVAL },
	{ "SNAPSHOT software and hardware", ARG_SNAPSHOT, break_snap_both, -EINVAL },
	{ "SNAPSHOT reserved0 set", ARG_SNAPSHOT, break_snap_reserved0, -EINVAL },
	{ "SNAPSHOT reserved[1] set", ARG_SNAPSHOT, break_snap_reserved_1_, -EINVAL },
	{ "SNAPSHOT freq (out) set", ARG_SNAPSHOT, break_snap_freq, -EINVAL },
	{ "SNAPSHOT skew (out) set", ARG_SNAPSHOT, break_snap_skew, -EINVAL },
	{ "SNAPSHOT lead_us above 2 ms", ARG_SNAPSHOT, break_snap_lead_above, -EINVAL },
	{ "SNAPSHOT value_size below version 1's", ARG_SNAPSHOT, break_snap_value_size_32,
	  -EINVAL },
	{ "SNAPSHOT value_size too large", ARG_SNAPSHOT, break_snap_value_size_264, -E2BIG },
	{ "SNAPSHOT cpu_size below the kernel's", ARG_SNAPSHOT, break_snap_cpu_size_40, -EINVAL },
	{ "SNAPSHOT cpu_size not in words", ARG_SNAPSHOT, break_snap_cpu_size_52, -EINVAL },
	{ "SNAPSHOT cpu_size too large", ARG_SNAPSHOT, break_snap_cpu_size_264, -E2BIG },
	{ "SNAPSHOT software only", ARG_SNAPSHOT, set_snap_software, 0 },
	{ "SNAPSHOT hardware only", ARG_SNAPSHOT, set_snap_hardware, 0 },
	{ "SNAPSHOT lead_us 2 ms", ARG_SNAPSHOT, set_snap_lead_max, 0 },
	{ "SNAPSHOT cpu_size of a later version", ARG_SNAPSHOT, set_snap_cpu_size_56, 0 },
	{ "SNAPSHOT value_size of a later version", ARG_SNAPSHOT, set_snap_value_size_48, 0 },
	{ "AMU_READ valid", ARG_AMU_READ, NULL, 0 },
	{ "AMU_READ unknown flag", ARG_AMU_READ, break_amu_flags, -EINVAL },
	{ "AMU_READ reserved0 set", ARG_AMU_READ, break_amu_reserved0, -EINVAL },
	{ "AMU_READ reserved[1] set", ARG_AMU_READ, break_amu_reserved_1_, -EINVAL },
	{ "AMU_READ output freq set", ARG_AMU_READ, break_amu_freq, -EINVAL },
	{ "AMU_READ cpus_size 0", ARG_AMU_READ, break_amu_cpus_size_0, -EINVAL },
	{ "AMU_READ cpus_size not in words", ARG_AMU_READ, break_amu_cpus_size_12, -EINVAL },
	{ "AMU_READ cpus_size above 4096", ARG_AMU_READ, break_amu_cpus_size_4104, -EINVAL },
	{ "AMU_READ cpus_size 4096", ARG_AMU_READ, set_amu_cpus_size_4096, 0 },
	{ "AMU_READ record_size below version 4's", ARG_AMU_READ, break_amu_record_size_352,
	  -EINVAL },
	{ "AMU_READ record_size not in words", ARG_AMU_READ, break_amu_record_size_364, -EINVAL },
	{ "AMU_READ record_size above 4096", ARG_AMU_READ, break_amu_record_size_4104, -E2BIG },
	{ "AMU_READ record_size 360", ARG_AMU_READ, set_amu_record_size_360, 0 },
	{ "AMU_READ record_size of a later version", ARG_AMU_READ, set_amu_record_size_4096, 0 },
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
	struct pmuscope_snapshot sn = {
		.size = sizeof(sn), .nr_values = 4, .nr_cpus = 2,
	};
	struct pmuscope_stream st = {
		.size = sizeof(st), .sample_index = 0, .sample_period = 100000,
		.ring_kib = 64, .wakeup_kib = 16,
	};
	struct pmuscope_amu_read ar = {
		.size = sizeof(ar), .cpus_size = 8, .nr_records = 2,
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
	case ARG_SNAPSHOT:
		if (c->breaker)
			c->breaker(&sn);
		got = pmuscope_check_snapshot(&sn);
		break;
	case ARG_STREAM:
		if (c->breaker)
			c->breaker(&st);
		got = pmuscope_check_stream(&st);
		break;
	case ARG_AMU_READ:
		if (c->breaker)
			c->breaker(&ar);
		got = pmuscope_check_amu_read(&ar);
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

/*
 * The system's perf policy (pmuscope_policy_decide()), level by level, as
 * perf_event_open() has it for a caller without CAP_PERFMON (kernel/events/
 * core.c: perf_event_open() refuses everything above paranoid 2,
 * perf_allow_kernel() above 1, perf_allow_cpu() above 0; arm_pmuv3's EL0
 * access needs perf_user_access 1), and the group= grant.
 */
#define TASK	PMUSCOPE_POL_TASK
#define CPU	PMUSCOPE_POL_CPU
#define KERN	PMUSCOPE_POL_KERNEL
#define RD	PMUSCOPE_POL_EL0
#define CHAIN	PMUSCOPE_POL_CHAIN_CPU
#define AMU	PMUSCOPE_POL_AMU

struct pmuscope_policy_case {
	const char *name;
	int paranoid, user_access;
	bool priv, member;
	unsigned int what;
	int expect;
	bool sys_admin;
};

static const struct pmuscope_policy_case pmuscope_policy_cases[] = {
	/* CAP_SYS_ADMIN: everything, at any level, whatever the sysctls. */
	{ "CAP_SYS_ADMIN, paranoid 3: CPUs and kernel", 3, 0, true, false, CPU | KERN, 0, true },
	/* CAP_PERFMON: everything up to level 2; level 3 asks CAP_SYS_ADMIN. */
	{ "CAP_PERFMON, paranoid 2: CPUs, kernel, EL0 reads", 2, 0, true, false,
	  CPU | KERN | RD, 0 },
	{ "CAP_PERFMON alone, paranoid 3: own task", 3, 0, true, false, TASK, -EACCES },
	{ "CAP_PERFMON alone, paranoid 3: CPUs with the kernel", 3, 0, true, false, CPU | KERN,
	  -EACCES },
	{ "CAP_PERFMON, paranoid unreadable: task, kernel, EL0 reads", INT_MAX, 0, true, false,
	  TASK | KERN | RD, -EACCES },
	{ "CAP_SYS_ADMIN, paranoid unreadable: task, kernel, EL0 reads", INT_MAX, 0, true, false,
	  TASK | KERN | RD, 0, true },
	/* A user: paranoid 3 (Debian) forbids everything. */
	{ "user, paranoid 3: own task at EL0", 3, 1, false, false, TASK, -EACCES },
	{ "user, paranoid 3: CPUs at EL0", 3, 1, false, false, CPU, -EACCES },
	{ "user, paranoid unreadable: own task (fails closed)", INT_MAX, 1, false, false,
	  TASK, -EACCES },
	/* Paranoid 2 (upstream's default): own task, user space only. */
	{ "user, paranoid 2: own task at EL0", 2, 0, false, false, TASK, 0 },
	{ "user, paranoid 2: own task with the kernel", 2, 0, false, false, TASK | KERN,
	  -EACCES },
	{ "user, paranoid 2: CPUs at EL0", 2, 0, false, false, CPU, -EPERM },
	/* Paranoid 1: the kernel too, still no CPUs. */
	{ "user, paranoid 1: own task with the kernel", 1, 0, false, false, TASK | KERN, 0 },
	{ "user, paranoid 1: CPUs at EL0", 1, 0, false, false, CPU, -EPERM },
	/* Paranoid 0 and -1: CPUs too. */
	{ "user, paranoid 0: CPUs with the kernel", 0, 0, false, false, CPU | KERN, 0 },
	{ "user, paranoid -1: CPUs with the kernel", -1, 0, false, false, CPU | KERN, 0 },
	/* EL0 reads: kernel.perf_user_access. */
	{ "user, paranoid 2, perf_user_access 0: EL0 reads", 2, 0, false, false, TASK | RD,
	  -EACCES },
	{ "user, paranoid 2, perf_user_access 1: EL0 reads", 2, 1, false, false, TASK | RD, 0 },
	{ "user, paranoid 3, perf_user_access 1: EL0 reads", 3, 1, false, false, TASK | RD,
	  -EACCES },
	/* group=: own task and CPUs at EL0, and EL0 reads, at any level. */
	{ "member, paranoid 3: own task at EL0", 3, 0, false, true, TASK, 0 },
	{ "member, paranoid 3: CPUs at EL0", 3, 0, false, true, CPU, 0 },
	{ "member, paranoid 3, perf_user_access 0: EL0 reads", 3, 0, false, true, TASK | RD, 0 },
	{ "member, paranoid unreadable: CPUs at EL0", INT_MAX, 0, false, true, CPU, 0 },
	/* ... but the kernel only as the sysctl lets anyone. */
	{ "member, paranoid 2: CPUs with the kernel", 2, 0, false, true, CPU | KERN, -EACCES },
	{ "member, paranoid 3: own task with the kernel", 3, 0, false, true, TASK | KERN,
	  -EACCES },
	/*
	 * group= grants whole CPUs at EL0, the level the kernel: never both
	 * combined. Whole CPUs with the kernel as perf_allow_cpu() lets
	 * anyone (paranoid 0 or lower); SPE at EL1 asks the same.
	 */
	{ "member, paranoid 1: CPUs with the kernel", 1, 0, false, true, CPU | KERN, -EACCES },
	{ "member, paranoid 1: own task with the kernel", 1, 0, false, true, TASK | KERN, 0 },
	{ "member, paranoid 0: CPUs with the kernel", 0, 0, false, true, CPU | KERN, 0 },
	/*
	 * The Activity Monitors: CAP_PERFMON, whatever group= and the level
	 * say; at level 3 CAP_SYS_ADMIN, as every counting there.
	 */
	{ "CAP_PERFMON, paranoid 2: AMU", 2, 0, true, false, AMU, 0 },
	{ "CAP_PERFMON alone, paranoid 3: AMU", 3, 0, true, false, AMU, -EACCES },
	{ "CAP_PERFMON alone, paranoid unreadable: AMU", INT_MAX, 0, true, false, AMU, -EACCES },
	{ "CAP_SYS_ADMIN, paranoid 3: AMU", 3, 0, true, false, AMU, 0, true },
	{ "user, paranoid -1: AMU", -1, 1, false, false, AMU, -EPERM },
	{ "member, paranoid 0: AMU", 0, 1, false, true, AMU, -EPERM },
	/*
	 * The user call chains of CPU sessions (other users' stacks): as
	 * perf samples other users' tasks, paranoid 0 or lower or
	 * CAP_PERFMON; group= does not grant it.
	 */
	{ "member, paranoid 2: call chains of CPUs", 2, 0, false, true, CHAIN, -EACCES },
	{ "member, paranoid 1: call chains of CPUs", 1, 0, false, true, CHAIN, -EACCES },
	{ "member, paranoid 3: CPUs and their call chains", 3, 0, false, true, CPU | CHAIN,
	  -EACCES },
	{ "member, paranoid unreadable: call chains of CPUs", INT_MAX, 0, false, true, CHAIN,
	  -EACCES },
	{ "member, paranoid 0: call chains of CPUs", 0, 0, false, true, CHAIN, 0 },
	{ "CAP_PERFMON, paranoid 2: call chains of CPUs", 2, 0, true, false, CHAIN, 0 },
	{ "user, paranoid 0: call chains of CPUs", 0, 0, false, false, CHAIN, 0 },
	{ "user, paranoid -1: CPUs and their call chains", -1, 0, false, false, CPU | CHAIN, 0 },
	{ "user, paranoid 1: call chains of CPUs", 1, 0, false, false, CHAIN, -EACCES },
};

static void pmuscope_policy_desc(const struct pmuscope_policy_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_policy, pmuscope_policy_cases, pmuscope_policy_desc);

static void pmuscope_test_policy(struct kunit *test)
{
	const struct pmuscope_policy_case *c = test->param_value;
	struct pmuscope_policy p = {
		.paranoid = c->paranoid, .user_access = c->user_access,
		.priv = c->priv, .member = c->member, .sys_admin = c->sys_admin,
		/* Debian's perf_paranoid_any(); unreadable counts as it */
		.paranoid_any = c->paranoid > 2,
		/* perf_allow_kernel(): paranoid 1 or lower, or CAP_PERFMON */
		.kernel = c->priv || c->paranoid <= 1,
	};

	KUNIT_EXPECT_EQ_MSG(test, pmuscope_policy_decide(&p, c->what), c->expect, "%s",
			    c->name);
}

/* Which events ask for the kernel: any at EL1 or EL2. */
static void pmuscope_test_policy_events(struct kunit *test)
{
	struct pmuscope_event evs[3] = {
		{ .event = 0x11, .flags = PMUSCOPE_EV_EL0 },
		{ .event = 0x08, .flags = PMUSCOPE_EV_EL0 },
		{ .event = 0x00, .flags = PMUSCOPE_EV_EL0 },
	};

	KUNIT_EXPECT_EQ(test, pmuscope_policy_events(evs, 3), 0);
	evs[2].flags |= PMUSCOPE_EV_EL2;
	KUNIT_EXPECT_EQ(test, pmuscope_policy_events(evs, 3), KERN);
	KUNIT_EXPECT_EQ(test, pmuscope_policy_events(evs, 2), 0);
	evs[1].flags = PMUSCOPE_EV_EL1;
	KUNIT_EXPECT_EQ(test, pmuscope_policy_events(evs, 2), KERN);
}

struct pmuscope_cred_case {
	const char *name;
	int cap;		/* capability kept, -1: none */
	int group;		/* -1: no group parameter */
	bool member;
	bool priv, is_member;	/* expected */
};

static const struct pmuscope_cred_case pmuscope_cred_cases[] = {
	{ "no capability", -1, -1, false, false, false },
	{ "CAP_PERFMON", CAP_PERFMON, -1, false, true, false },
	{ "CAP_SYS_ADMIN", CAP_SYS_ADMIN, -1, false, true, false },
	{ "CAP_NET_ADMIN only", CAP_NET_ADMIN, -1, false, false, false },
	{ "member of the group parameter", -1, 4242, true, false, true },
	{ "not a member of the group parameter", -1, 4242, false, false, false },
	{ "member with CAP_PERFMON", CAP_PERFMON, 4242, true, true, true },
};

static void pmuscope_cred_desc(const struct pmuscope_cred_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pmuscope_cred, pmuscope_cred_cases, pmuscope_cred_desc);

/*
 * The credentials of a case: user nobody with only @c's capability (if
 * any), in the group parameter's group if @c says so. Put with put_cred().
 */
static struct cred *pmuscope_cred_of(struct kunit *test, const struct pmuscope_cred_case *c,
				     kgid_t group)
{
	struct cred *cred = prepare_creds();

	KUNIT_ASSERT_NOT_NULL(test, cred);
	cred->fsuid = KUIDT_INIT(65534);
	cred->euid = KUIDT_INIT(65534);
	cred->egid = KGIDT_INIT(65534);
	cap_clear(cred->cap_effective);
	if (c->cap >= 0)
		cap_raise(cred->cap_effective, c->cap);
	if (c->member) {
		struct group_info *gi = groups_alloc(1);

		if (!gi)
			put_cred(cred);
		KUNIT_ASSERT_NOT_NULL(test, gi);
		gi->gid[0] = group;
		set_groups(cred, gi);
		put_group_info(gi);
	}
	return cred;
}

/*
 * pmuscope_policy_get(): who the caller is, from its credentials; without
 * CAP_PERFMON the sysctls are read (whatever this kernel has them at, a
 * level from -1 to 4, or unreadable), with it they need not be.
 */
static void pmuscope_test_policy_cred(struct kunit *test)
{
	const struct pmuscope_cred_case *c = test->param_value;
	kgid_t group = c->group >= 0 ? KGIDT_INIT(c->group) : INVALID_GID;
	struct cred *cred = pmuscope_cred_of(test, c, group);
	struct pmuscope_policy p;
	const struct cred *old;

	old = override_creds(cred);
	pmuscope_policy_get(group, &p);
	revert_creds(old);
	put_cred(cred);
	KUNIT_EXPECT_EQ_MSG(test, p.priv, c->priv, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, p.member, c->is_member, "%s", c->name);
	if (c->priv) {
		KUNIT_EXPECT_TRUE_MSG(test, p.kernel, "%s", c->name);
	} else {
		KUNIT_EXPECT_TRUE_MSG(test, p.paranoid == INT_MAX ||
				      (p.paranoid >= -1 && p.paranoid <= 4),
				      "%s: paranoid %d", c->name, p.paranoid);
		KUNIT_EXPECT_EQ_MSG(test, p.kernel, p.paranoid <= 1, "%s: paranoid %d",
				    c->name, p.paranoid);
	}
}

/* -------------------------------------------------- synchronized snapshots */

#define SNAP_COST_NS(us)	((u64)(us) * NSEC_PER_USEC * \
				 (USEC_PER_SEC / PMUSCOPE_SNAP_UNPRIV_US_PER_S))

/*
 * The budget of deadline waits (pmuscope_snap_budget_take()): 10 ms of
 * each second, and 10 ms ahead. A full budget grants a hundred 100 us
 * waits at one instant and not a 101st; 10 ms later one more; a second
 * later a hundred again. A 2 ms wait costs twenty 100 us ones.
 */
static void pmuscope_test_snap_budget(struct kunit *test)
{
	const u64 t0 = 5 * NSEC_PER_SEC, t1 = t0 + 10 * NSEC_PER_SEC;
	unsigned int i;
	u64 tat = 0;

	KUNIT_ASSERT_EQ(test, PMUSCOPE_SNAP_UNPRIV_US_PER_S, 10000);
	for (i = 0; i < 100; i++)
		KUNIT_ASSERT_TRUE_MSG(test, pmuscope_snap_budget_take(&tat, t0, 100),
				      "wait %u of 100", i + 1);
	KUNIT_EXPECT_FALSE(test, pmuscope_snap_budget_take(&tat, t0, 100));
	KUNIT_EXPECT_FALSE(test, pmuscope_snap_budget_take(&tat, t0 + 9999999, 100));
	KUNIT_EXPECT_TRUE(test, pmuscope_snap_budget_take(&tat, t0 + 10000000, 100));
	KUNIT_EXPECT_FALSE(test, pmuscope_snap_budget_take(&tat, t0 + 10000000, 1));
	/* Idle for long: a full budget, not more. */
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_TRUE(test, pmuscope_snap_budget_take(&tat, t1, 2000));
	KUNIT_EXPECT_FALSE(test, pmuscope_snap_budget_take(&tat, t1, 100));
	/* A refused wait costs nothing: 100 us later a 1 us one fits. */
	KUNIT_EXPECT_TRUE(test, pmuscope_snap_budget_take(&tat, t1 + 100000, 1));
}

/*
 * Back to back for 3 s, a request every 20 us of time (a caller that
 * does nothing else, the IPIs free): the waits granted add up to no more
 * than (3 + 1) x 10 ms, and to no less than the 3 x 10 ms the rate gives.
 */
static void pmuscope_test_snap_budget_flood(struct kunit *test)
{
	u64 t, tat = 0, granted_us = 0;

	for (t = 0; t < 3 * NSEC_PER_SEC; t += 20 * NSEC_PER_USEC)
		if (pmuscope_snap_budget_take(&tat, t, PMUSCOPE_SNAP_LEAD_US_UNPRIV))
			granted_us += PMUSCOPE_SNAP_LEAD_US_UNPRIV;
	KUNIT_EXPECT_LE(test, granted_us, 4ULL * PMUSCOPE_SNAP_UNPRIV_US_PER_S);
	KUNIT_EXPECT_GE(test, granted_us, 3ULL * PMUSCOPE_SNAP_UNPRIV_US_PER_S);
	KUNIT_EXPECT_EQ(test, SNAP_COST_NS(granted_us), tat);
}

/*
 * Who is bounded (pmuscope_policy_snap_lead(), pmuscope_policy_snap_sync()),
 * as the caller's credentials say: without CAP_PERFMON (a member of the
 * group parameter too) a lead above 100 us is EPERM, and all-CPU waits
 * come out of the budget until it is spent; with CAP_PERFMON or
 * CAP_SYS_ADMIN leads up to 2 ms, never charged.
 */
static void pmuscope_test_snap_policy(struct kunit *test)
{
	const struct pmuscope_cred_case *c = test->param_value;
	kgid_t group = c->group >= 0 ? KGIDT_INIT(c->group) : INVALID_GID;
	struct cred *cred = pmuscope_cred_of(test, c, group);
	struct pmuscope_snap_budget b = { };
	const u64 now = 7 * NSEC_PER_SEC;
	int lead_big, lead_max, lead_0, lead_unpriv;
	unsigned int i, granted = 0;
	const struct cred *old;
	bool last;

	spin_lock_init(&b.lock);
	old = override_creds(cred);
	lead_0 = pmuscope_policy_snap_lead(0);
	lead_unpriv = pmuscope_policy_snap_lead(PMUSCOPE_SNAP_LEAD_US_UNPRIV);
	lead_big = pmuscope_policy_snap_lead(PMUSCOPE_SNAP_LEAD_US_UNPRIV + 1);
	lead_max = pmuscope_policy_snap_lead(PMUSCOPE_SNAP_LEAD_US_MAX);
	for (i = 0; i < 100; i++)
		granted += pmuscope_policy_snap_sync(&b, PMUSCOPE_SNAP_LEAD_US_UNPRIV, now);
	last = pmuscope_policy_snap_sync(&b, PMUSCOPE_SNAP_LEAD_US_UNPRIV, now);
	revert_creds(old);
	put_cred(cred);

	KUNIT_EXPECT_EQ_MSG(test, lead_0, 0, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, lead_unpriv, 0, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, lead_big, c->priv ? 0 : -EPERM, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, lead_max, c->priv ? 0 : -EPERM, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, granted, 100, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, last, c->priv, "%s: the 101st 100 us wait", c->name);
	KUNIT_EXPECT_EQ_MSG(test, b.tat_ns, c->priv ? 0 : now + NSEC_PER_SEC, "%s", c->name);
}

/* ------------------------------------------------------- sysfs selection */

/* One parameter per event of the table: every name must round-trip. */
static const void *pmuscope_event_names_gen_params(const void *prev, char *desc)
{
	const struct pmuscope_event_desc *e = prev ?
		(const struct pmuscope_event_desc *)prev + 1 : pmuscope_events;

	if (e >= pmuscope_events + pmuscope_nr_events)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", e->name);
	return e;
}

/* Parse @text as a selection and format it back, as select does. */
static int utest_select(struct kunit *test, const char *text, unsigned int kernel_el,
			char *out, size_t len, u32 *nr)
{
	struct pmuscope_sess_event *sev;
	struct pmuscope_event *evs;
	char *str;
	int ret;
	u32 i;

	/* kunit_kstrdup() is 6.4+: the module builds against 6.1 too. */
	str = kunit_kzalloc(test, strlen(text) + 1, GFP_KERNEL);
	if (str)
		memcpy(str, text, strlen(text));
	evs = kunit_kcalloc(test, PMUSCOPE_MAX_EVENTS, sizeof(*evs), GFP_KERNEL);
	sev = kunit_kcalloc(test, PMUSCOPE_MAX_EVENTS, sizeof(*sev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, str);
	KUNIT_ASSERT_NOT_NULL(test, evs);
	KUNIT_ASSERT_NOT_NULL(test, sev);
	*out = '\0';
	/* a CPU of the AM62L: Cortex-A53 r0p4, whose own names are taken too */
	ret = pmuscope_parse_selection(str, kernel_el, 0x410fd034, evs, nr);
	if (ret)
		return ret;
	for (i = 0; i < *nr; i++) {
		sev[i].event = evs[i].event;
		sev[i].flags = evs[i].flags;
	}
	pmuscope_format_selection(sev, *nr, kernel_el, out, len);
	return 0;
}

/*
 * Every event of the table, written with each modifier set, reads back
 * with its full name (names of 16 characters and more were cut).
 */
static void pmuscope_test_select_names(struct kunit *test)
{
	const struct pmuscope_event_desc *e = test->param_value;
	static const struct {
		const char *mods;
		unsigned int kernel_el;
		const char *canon;
	} forms[] = {
		{ "", 1, "uk" }, { ":u", 1, "u" }, { ":k", 1, "k" }, { ":h", 1, "h" },
		{ ":hku", 1, "ukh" }, { "", 2, "uk" }, { ":h", 2, "k" },
	};
	char in[64], want[64], *got = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned int i;
	u32 nr;

	KUNIT_ASSERT_NOT_NULL(test, got);
	for (i = 0; i < ARRAY_SIZE(forms); i++) {
		snprintf(in, sizeof(in), "%s%s", e->name, forms[i].mods);
		snprintf(want, sizeof(want), "%s:%s", e->name, forms[i].canon);
		KUNIT_EXPECT_EQ_MSG(test, utest_select(test, in, forms[i].kernel_el, got,
						       PAGE_SIZE, &nr), 0, "%s", in);
		KUNIT_EXPECT_EQ(test, nr, 1);
		KUNIT_EXPECT_STREQ_MSG(test, got, want, "'%s' read back (kernel at EL%u)",
				       in, forms[i].kernel_el);
	}
}

/* The whole table, 32 events per selection, in one write each. */
static void pmuscope_test_select_lists(struct kunit *test)
{
	char *in = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char *got = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned int first, i, n;
	u32 nr;

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, got);
	for (first = 0; first < pmuscope_nr_events; first += PMUSCOPE_MAX_EVENTS) {
		n = 0;
		for (i = first; i < pmuscope_nr_events && i < first + PMUSCOPE_MAX_EVENTS; i++)
			n += scnprintf(in + n, PAGE_SIZE - n, "%s%s:%s", i > first ? "," : "",
				       pmuscope_events[i].name, i & 1 ? "u" : "uk");
		KUNIT_EXPECT_EQ(test, utest_select(test, in, 1, got, PAGE_SIZE, &nr), 0);
		KUNIT_EXPECT_EQ(test, nr, i - first);
		KUNIT_EXPECT_STREQ_MSG(test, got, in, "events %u..%u", first, i - 1);
	}
}

struct pmuscope_select_case {
	const char *in;
	int expect;
	const char *canon;	/* read back, when accepted */
	unsigned int repeat;	/* @in that many times, comma-separated */
};

static const struct pmuscope_select_case pmuscope_select_cases[] = {
	{ "cpu_cycles,  inst_retired:u", 0, "CPU_CYCLES:uk,INST_RETIRED:u" },
	{ "0x11:k", 0, "CPU_CYCLES:k" },
	{ "r0xc0:u", 0, "r0xc0:u" },
	{ "r0x11", 0, "r0x11:uk" },
	{ "0x4123", 0, "0x4123:uk" },
	{ "", 0, "" },
	{ "NO_SUCH_EVENT", -ENOENT },
	{ "CPU_CYCLES:", -EINVAL },
	{ "CPU_CYCLES:x", -EINVAL },
	{ "SW_INCR:k", 0, NULL, PMUSCOPE_MAX_EVENTS },
	{ "SW_INCR", -E2BIG, NULL, PMUSCOPE_MAX_EVENTS + 1 },
};

static void pmuscope_select_desc(const struct pmuscope_select_case *c, char *d)
{
	if (c->repeat)
		snprintf(d, KUNIT_PARAM_DESC_SIZE, "%u x '%s'", c->repeat, c->in);
	else
		snprintf(d, KUNIT_PARAM_DESC_SIZE, "'%s'", c->in);
}

KUNIT_ARRAY_PARAM(pmuscope_select, pmuscope_select_cases, pmuscope_select_desc);

static void pmuscope_test_select_rules(struct kunit *test)
{
	const struct pmuscope_select_case *c = test->param_value;
	char *got = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	char *in = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	unsigned int i, n = 0;
	u32 nr;

	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, in);
	for (i = 0; i < (c->repeat ?: 1); i++)
		n += scnprintf(in + n, PAGE_SIZE - n, "%s%s", i ? "," : "", c->in);
	KUNIT_EXPECT_EQ_MSG(test, utest_select(test, in, 1, got, PAGE_SIZE, &nr),
			    c->expect, "'%s'", in);
	if (c->expect)
		return;
	if (c->repeat) {
		KUNIT_EXPECT_EQ(test, nr, c->repeat);
		KUNIT_EXPECT_STREQ(test, got, in);
	} else {
		KUNIT_EXPECT_STREQ(test, got, c->canon);
	}
}

/* The sysfs booleans take what their ABI entries say, and nothing else. */
struct pmuscope_bool_case {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	int expect;
	bool val;
};

static const struct pmuscope_bool_case pmuscope_bool_cases[] = {
	{ "1", 0, 0, true },
	{ "1\n", 0, 0, true },
	{ "0", 0, 0, false },
	{ "0\n", 0, 0, false },
	{ "", 0, -EINVAL },
	{ "\n", 0, -EINVAL },
	{ "1x", 0, -EINVAL },
	{ "0x1", 0, -EINVAL },
	{ "yes", 0, -EINVAL },
	{ "on", 0, -EINVAL },
	{ "y", 0, -EINVAL },
	{ "2", 0, -EINVAL },
	{ "01", 0, -EINVAL },
	{ " 1", 0, -EINVAL },
	{ "1\n\n", 0, -EINVAL },
	{ "1\0", 2, -EINVAL },
};

static void pmuscope_bool_desc(const struct pmuscope_bool_case *c, char *d)
{
	snprintf(d, KUNIT_PARAM_DESC_SIZE, "'%*pE'",
		 (int)(c->len ?: strlen(c->in)), c->in);
}

KUNIT_ARRAY_PARAM(pmuscope_bool, pmuscope_bool_cases, pmuscope_bool_desc);

static void pmuscope_test_sysfs_bool(struct kunit *test)
{
	const struct pmuscope_bool_case *c = test->param_value;
	bool val = !c->val;

	KUNIT_EXPECT_EQ(test, pmuscope_parse_01(c->in, c->len ?: strlen(c->in), &val),
			c->expect);
	if (!c->expect)
		KUNIT_EXPECT_EQ(test, val, c->val);
}

static struct kunit_case pmuscope_uapi_test_cases[] = {
	KUNIT_CASE_PARAM(pmuscope_test_uapi_rules, pmuscope_uapi_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_cpu_rules, pmuscope_cpu_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_policy, pmuscope_policy_gen_params),
	KUNIT_CASE(pmuscope_test_policy_events),
	KUNIT_CASE_PARAM(pmuscope_test_policy_cred, pmuscope_cred_gen_params),
	KUNIT_CASE(pmuscope_test_snap_budget),
	KUNIT_CASE(pmuscope_test_snap_budget_flood),
	KUNIT_CASE_PARAM(pmuscope_test_snap_policy, pmuscope_cred_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_select_names, pmuscope_event_names_gen_params),
	KUNIT_CASE(pmuscope_test_select_lists),
	KUNIT_CASE_PARAM(pmuscope_test_select_rules, pmuscope_select_gen_params),
	KUNIT_CASE_PARAM(pmuscope_test_sysfs_bool, pmuscope_bool_gen_params),
	{}
};

static struct kunit_suite pmuscope_uapi_suite = {
	.name = "pmuscope_uapi",
	.test_cases = pmuscope_uapi_test_cases,
};

kunit_test_suites(&pmuscope_uapi_suite);
