// SPDX-License-Identifier: GPL-2.0
/*
 * pmuscope: the Arm common architectural and microarchitectural events that
 * PMCEID0_EL0/PMCEID1_EL0 can report (0x0000-0x003F, 0x4000-0x403F), named
 * as in the Arm ARM and include/linux/perf/arm_pmuv3.h.
 */

#include <linux/kernel.h>
#include <linux/string.h>

#include "pmuscope.h"

/* ------------------------------------------------------------- event table */
const struct pmuscope_event_desc pmuscope_events[] = {
	{ 0x0000, "SW_INCR", "Software increment (writes to PMSWINC_EL0)" },
	{ 0x0001, "L1I_CACHE_REFILL", "Level 1 instruction cache refill" },
	{ 0x0002, "L1I_TLB_REFILL", "Level 1 instruction TLB refill" },
	{ 0x0003, "L1D_CACHE_REFILL", "Level 1 data cache refill" },
	{ 0x0004, "L1D_CACHE", "Level 1 data cache access" },
	{ 0x0005, "L1D_TLB_REFILL", "Level 1 data TLB refill" },
	{ 0x0006, "LD_RETIRED", "Load instruction architecturally executed" },
	{ 0x0007, "ST_RETIRED", "Store instruction architecturally executed" },
	{ 0x0008, "INST_RETIRED", "Instruction architecturally executed" },
	{ 0x0009, "EXC_TAKEN", "Exception taken" },
	{ 0x000A, "EXC_RETURN", "Exception return architecturally executed" },
	{ 0x000B, "CID_WRITE_RETIRED", "Write to CONTEXTIDR architecturally executed" },
	{ 0x000C, "PC_WRITE_RETIRED", "Software change of the PC architecturally executed" },
	{ 0x000D, "BR_IMMED_RETIRED", "Immediate branch architecturally executed" },
	{ 0x000E, "BR_RETURN_RETIRED", "Function return architecturally executed" },
	{ 0x000F, "UNALIGNED_LDST_RETIRED", "Unaligned load or store architecturally executed" },
	{ 0x0010, "BR_MIS_PRED", "Branch mispredicted or not predicted" },
	{ 0x0011, "CPU_CYCLES", "Processor cycles" },
	{ 0x0012, "BR_PRED", "Predictable branch speculatively executed" },
	{ 0x0013, "MEM_ACCESS", "Data memory access" },
	{ 0x0014, "L1I_CACHE", "Level 1 instruction cache access" },
	{ 0x0015, "L1D_CACHE_WB", "Level 1 data cache write-back" },
	{ 0x0016, "L2D_CACHE", "Level 2 data cache access" },
	{ 0x0017, "L2D_CACHE_REFILL", "Level 2 data cache refill" },
	{ 0x0018, "L2D_CACHE_WB", "Level 2 data cache write-back" },
	{ 0x0019, "BUS_ACCESS", "Bus access" },
	{ 0x001A, "MEMORY_ERROR", "Local memory error" },
	{ 0x001B, "INST_SPEC", "Operation speculatively executed" },
	{ 0x001C, "TTBR_WRITE_RETIRED", "Write to TTBR architecturally executed" },
	{ 0x001D, "BUS_CYCLES", "Bus cycles" },
	{ 0x001E, "CHAIN", "Odd counter chained to the even one (not a user event)" },
	{ 0x001F, "L1D_CACHE_ALLOCATE", "Level 1 data cache allocation without refill" },
	{ 0x0020, "L2D_CACHE_ALLOCATE", "Level 2 data cache allocation without refill" },
	{ 0x0021, "BR_RETIRED", "Branch instruction architecturally executed" },
	{ 0x0022, "BR_MIS_PRED_RETIRED", "Mispredicted branch architecturally executed" },
	{ 0x0023, "STALL_FRONTEND", "No operation issued: frontend stall" },
	{ 0x0024, "STALL_BACKEND", "No operation issued: backend stall" },
	{ 0x0025, "L1D_TLB", "Level 1 data TLB access" },
	{ 0x0026, "L1I_TLB", "Level 1 instruction TLB access" },
	{ 0x0027, "L2I_CACHE", "Level 2 instruction cache access" },
	{ 0x0028, "L2I_CACHE_REFILL", "Level 2 instruction cache refill" },
	{ 0x0029, "L3D_CACHE_ALLOCATE", "Level 3 data cache allocation without refill" },
	{ 0x002A, "L3D_CACHE_REFILL", "Level 3 data cache refill" },
	{ 0x002B, "L3D_CACHE", "Level 3 data cache access" },
	{ 0x002C, "L3D_CACHE_WB", "Level 3 data cache write-back" },
	{ 0x002D, "L2D_TLB_REFILL", "Level 2 data TLB refill" },
	{ 0x002E, "L2I_TLB_REFILL", "Level 2 instruction TLB refill" },
	{ 0x002F, "L2D_TLB", "Level 2 data TLB access" },
	{ 0x0030, "L2I_TLB", "Level 2 instruction TLB access" },
	{ 0x0031, "REMOTE_ACCESS", "Access to another socket in a multi-socket system" },
	{ 0x0032, "LL_CACHE", "Last level cache access" },
	{ 0x0033, "LL_CACHE_MISS", "Last level cache miss" },
	{ 0x0034, "DTLB_WALK", "Data TLB access with at least one translation table walk" },
	{ 0x0035, "ITLB_WALK", "Instruction TLB access with at least one translation table walk" },
	{ 0x0036, "LL_CACHE_RD", "Last level cache access, read" },
	{ 0x0037, "LL_CACHE_MISS_RD", "Last level cache miss, read" },
	{ 0x0038, "REMOTE_ACCESS_RD", "Access to another socket, read" },
	{ 0x0039, "L1D_CACHE_LMISS_RD", "Level 1 data cache long-latency read miss" },
	{ 0x003A, "OP_RETIRED", "Micro-operation architecturally executed" },
	{ 0x003B, "OP_SPEC", "Micro-operation speculatively executed" },
	{ 0x003C, "STALL", "No operation sent for execution" },
	{ 0x003D, "STALL_SLOT_BACKEND", "No operation sent for execution on a slot: backend" },
	{ 0x003E, "STALL_SLOT_FRONTEND", "No operation sent for execution on a slot: frontend" },
	{ 0x003F, "STALL_SLOT", "No operation sent for execution on a slot" },
	{ 0x4000, "SAMPLE_POP", "SPE: sample population" },
	{ 0x4001, "SAMPLE_FEED", "SPE: sample taken" },
	{ 0x4002, "SAMPLE_FILTRATE", "SPE: sample taken and not removed by filtering" },
	{ 0x4003, "SAMPLE_COLLISION", "SPE: sample collided with a previous sample" },
	{ 0x4004, "CNT_CYCLES", "Constant frequency cycles" },
	{ 0x4005, "STALL_BACKEND_MEM", "Memory stall cycles" },
	{ 0x4006, "L1I_CACHE_LMISS", "Level 1 instruction cache long-latency miss" },
	{ 0x4009, "L2D_CACHE_LMISS_RD", "Level 2 data cache long-latency read miss" },
	{ 0x400A, "L2I_CACHE_LMISS", "Level 2 instruction cache long-latency miss" },
	{ 0x400B, "L3D_CACHE_LMISS_RD", "Level 3 data cache long-latency read miss" },
	{ 0x400C, "TRB_WRAP", "Trace buffer current write pointer wrapped" },
	{ 0x400E, "TRB_TRIG", "Trace buffer trigger event" },
	{ 0x4010, "TRCEXTOUT0", "Trace unit external output 0" },
	{ 0x4011, "TRCEXTOUT1", "Trace unit external output 1" },
	{ 0x4012, "TRCEXTOUT2", "Trace unit external output 2" },
	{ 0x4013, "TRCEXTOUT3", "Trace unit external output 3" },
	{ 0x4018, "CTI_TRIGOUT4", "Cross-trigger interface output trigger 4" },
	{ 0x4019, "CTI_TRIGOUT5", "Cross-trigger interface output trigger 5" },
	{ 0x401A, "CTI_TRIGOUT6", "Cross-trigger interface output trigger 6" },
	{ 0x401B, "CTI_TRIGOUT7", "Cross-trigger interface output trigger 7" },
	{ 0x4020, "LDST_ALIGN_LAT", "Access with additional latency from alignment" },
	{ 0x4021, "LD_ALIGN_LAT", "Load with additional latency from alignment" },
	{ 0x4022, "ST_ALIGN_LAT", "Store with additional latency from alignment" },
};

const unsigned int pmuscope_nr_events = ARRAY_SIZE(pmuscope_events);

/* ----------------------------------------------------------------- helpers */

/*
 * Position of a common event in the 128-bit PMCEID bitmap:
 * 0x0000-0x003F -> 0-63, 0x4000-0x403F -> 64-127, anything else -> -1.
 */
int pmuscope_event_slot(u32 number)
{
	if (number < 0x40)
		return number;
	if (number >= 0x4000 && number < 0x4040)
		return number - 0x4000 + 64;
	return -1;
}

const struct pmuscope_event_desc *pmuscope_event_by_number(u32 number)
{
	unsigned int i;

	for (i = 0; i < pmuscope_nr_events; i++)
		if (pmuscope_events[i].number == number)
			return &pmuscope_events[i];
	return NULL;
}

const struct pmuscope_event_desc *pmuscope_event_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < pmuscope_nr_events; i++)
		if (!strcasecmp(pmuscope_events[i].name, name))
			return &pmuscope_events[i];
	return NULL;
}
