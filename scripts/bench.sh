#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what pmuscope's interfaces cost, measured in the AM62L-like
# guest (cortex-a53, 2 CPUs) under -icount shift=0, where one guest
# nanosecond is one instruction: exact, repeatable instruction counts
# (kernel and user, every CPU involved). Two boots of the same bench kernel
# (the test kernel without its debug options,
# scripts/kernel/pmuscope-bench.config, cached like the others): perf's PMU
# driver kept off (the direct backend, interrupt and poll mode), and perf's
# driver active (the perf backend, and the real peer: perf_event_open()
# reads of the same events, and Debian's perf record beside pmuscope
# record: scripts/guest-perf.sh). One boot cannot hold both: the direct backend
# is refused while perf's driver drives the PMU, and perf_event_open() has
# no hardware PMU without it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP"

pmuscope_bench_setup
# The peer of pmuscope record: Debian's arm64 perf and its libraries
# (downloaded once into the cache), in the bench initramfs only.
scripts/guest-perf.sh build/guest-perf
PMUSCOPE_GUEST_PERF=build/guest-perf scripts/mkinitramfs.sh build/initramfs-bench.cpio \
	build/bench-src/pmuscope.ko
scripts/run-guest.sh --cpu cortex-a53 --smp 2 --icount 0 --plan bench \
	--initrd build/initramfs-bench.cpio --log build/bench.log --timeout 300 ||
	pmuscope_die "guest failed, see build/bench.log"
scripts/run-guest.sh --cpu cortex-a53 --smp 2 --icount 0 --plan bench-perf --no-blacklist \
	--initrd build/initramfs-bench.cpio --log build/bench-perf.log --timeout 300 ||
	pmuscope_die "guest failed, see build/bench-perf.log"
for log in build/bench.log build/bench-perf.log; do
	python3 scripts/pmuscope_console.py "$log" bench | grep -v '^PASS' || true
done
# The software snapshot's own instructions, by function (the same guest and
# kernel under the profiling plugin): what the goal below counts.
scripts/profile.sh snapshot7 >build/bench-profile.txt ||
	pmuscope_die "profile failed, see build/profile/guest.log"
echo "pmuscope bench (QEMU cortex-a53 x2, -icount shift=0: instructions per operation)"
python3 - build/bench.log build/bench-perf.log build/bench-profile.txt <<'PY'
import re, sys
own = next((l.strip() for l in open(sys.argv.pop()) if "snapshot's own work:" in l), "")
rows, order = {}, []
for path in sys.argv[1:]:
    for line in open(path, errors="replace"):
        if line.startswith("pmuscope-bench: "):
            if len(line.split()) != 4:
                continue
            _, mode, name, value = line.split()
            if name not in rows:
                rows[name] = {}
                order.append(name)
            rows[name][mode] = value
cols = [("irq", "direct, irq"), ("poll", "direct, poll"), ("perf", "perf backend")]
print(f"{'operation':<32}" + "".join(f"{t:>15}" for _, t in cols))
sampling = lambda n: n.startswith("sample_") or (n.startswith("perf_") and
                                                 not n.startswith("perf_event_open"))
for name in order:
    if name.startswith("perf_event_open") or sampling(name) or "command_" in name:
        continue
    print(f"{name:<32}" + "".join(f"{rows[name].get(c, '-'):>15}" for c, _ in cols))
print()
print("the peer, perf_event_open() on CPU 0 with perf's driver (same events):")
for name in order:
    if name.startswith("perf_event_open"):
        print(f"  {name:<30} {rows[name].get('perf', '-'):>12}")
def num(name, col):
    try:
        return float(rows[name][col])
    except (KeyError, ValueError):
        return None
d7, g7 = num("read_7_events_local_cpu", "irq"), num("perf_event_open_group_read_7", "perf")
p1, p7 = num("read_1_event_local_cpu", "perf"), num("read_7_events_local_cpu", "perf")
r1 = num("perf_event_open_read_1_event", "perf")
print()
if d7 and g7:
    print(f"goal: direct READ of 7 counters <= 0.5 x the perf group read: "
          f"{d7:.0f} / {g7:.0f} = {d7 / g7:.2f}x")
s7, sf = num("snapshot_7_events_local_cpu", "irq"), num("snapshot_ioctl_floor", "irq")
fz = num("snapshot_7_events_local_cpu_frozen_ticks", "irq")
m = re.search(r"work: ([0-9.]+) in .*\+ ([0-9.]+) system-counter reads x ([0-9.]+) .*= ([0-9.]+)", own)
if m:
    fn, nrd, per, tot = (float(g) for g in m.groups())
    print(f"goal: software snapshot of 7 counters <= 300 instructions in the kernel: "
          f"the snapshot's own work {tot:.0f} (make profile: pmuscope_pmu_snapshot and "
          f"its folds {fn:.0f}, its {nrd:.0f} system-counter reads {nrd * per:.0f}): "
          f"{'met' if tot <= 300 else 'NOT met'}")
if s7 and sf:
    # -icount shift=0: 1 instruction per ns; QEMU virt's system counter: 62.5 MHz.
    print(f"  the whole SNAPSHOT ioctl {s7:.0f}, of which {sf:.0f} any SNAPSHOT call costs "
          f"before its work (the same call refused after its argument checks: syscall "
          f"entry and exit, copies, checks); counters stopped for "
          f"{fz:.2f} ticks = {fz * 16:.0f} instructions on average")
rec = num("stream_record_7_counters", "irq")
if rec:
    print(f"stream: one record (sample interrupt, reload, 7 counters taken together, "
          f"ring) costs {rec:.0f} instructions")
# Sampling: a sample's instructions in the overflow path (interrupt to
# record), pmuscope's direct and perf backends and perf's own ring.
kinds = [k for k in ("ip", "chain8", "chain32") if any(n.startswith(f"sample_{k}_") for n in rows)]
if kinds:
    print()
    print("sampling CPU_CYCLES on CPU 0 (instructions per sample; slowdown of a 1e8-"
          "instruction spin; period 100000 = 10,000 samples/s):")
    print(f"  {'chain':<8}{'period':>9}{'direct':>9}{'backend':>9}{'perf':>9}"
          f"{'dir/perf':>10}{'bk/perf':>9}{'slow dir':>10}{'slow bk':>9}{'slow perf':>10}")
    for k in kinds:
        for per in ("100000", "1000000"):
            d = num(f"sample_{k}_{per}", "irq")
            b = num(f"sample_{k}_{per}", "perf")
            q = num(f"perf_{k}_{per}", "perf")
            sd = num(f"sample_{k}_{per}_slowdown_pct", "irq")
            sb = num(f"sample_{k}_{per}_slowdown_pct", "perf")
            sq = num(f"perf_{k}_{per}_slowdown_pct", "perf")
            c = lambda v, w=9: f"{v:{w}.0f}" if v is not None else f"{'-':>{w}}"
            r = lambda x, y: f"{x / y:9.2f}" if x and y else f"{'-':>9}"
            pc = lambda v, w=9: f"{v:{w - 1}.2f}%" if v is not None else f"{'-':>{w}}"
            print(f"  {k:<8}{per:>9}{c(d)}{c(b)}{c(q)} {r(d, q)}{r(b, q)}"
                  f" {pc(sd)}{pc(sb)} {pc(sq)}")
    met = lambda ok: "met" if ok else "NOT met"
    for k in kinds:
        d, b, q = (num(f"sample_{k}_100000", "irq"), num(f"sample_{k}_100000", "perf"),
                   num(f"perf_{k}_100000", "perf"))
        if d and q:
            print(f"goal: direct sample ({k}) <= 0.5 x perf's: {d / q:.2f}x, {met(d <= q / 2)}")
        if b and q:
            print(f"goal: perf-backend sample ({k}) <= 1.0 x perf's: {b / q:.2f}x, "
                  f"{met(b <= q)}")
        for per in ("100000", "1000000"):
            sq = num(f"perf_{k}_{per}_slowdown_pct", "perf")
            for who, col in (("direct", "irq"), ("perf backend", "perf")):
                sv = num(f"sample_{k}_{per}_slowdown_pct", col)
                if sv is None or sq is None:
                    continue
                ok = sv <= sq and (per != "1000000" or sv < 1)
                print(f"goal: slowdown ({who}, {k}, period {per}) <= perf record's"
                      f"{' and < 1%' if per == '1000000' else ''}: {sv:.2f}% vs "
                      f"{sq:.2f}%, {met(ok)}")
# The recording command's own cost: `record -e cycles -c 100000 --
# /bin/true` less /bin/true alone (pmuscope-bench.c, bench_command()), by
# the clock and, with perf's driver, by an instruction counter: the clock
# also counts the time both CPUs sleep (perf record's teardown waits out
# its side-band thread's 1 s poll), the counter only instructions.
if any(n.endswith("command_own") for n in rows):
    print()
    print("the recording command's own cost (instructions of record -e cycles -c 100000 "
          "-- /bin/true, less /bin/true's; least of 5 runs):")
    print(f"  {'command':<44}{'backend':<14}{'clock':>14}{'counted':>14}")
    own = [("pmuscope record", "record_command_own"),
           ("pmuscope record -g", "record_g_command_own"),
           ("perf record", "perf_record_command_own"),
           ("perf record -g", "perf_record_g_command_own"),
           ("perf record --no-bpf-event", "perf_record_nobpf_command_own")]
    for who, name in own:
        for col, what in (("irq", "direct, irq"), ("poll", "direct, poll"),
                          ("perf", "perf" if who.startswith("perf") else "perf backend")):
            if name not in rows or col not in rows[name]:
                continue
            ins = rows.get(name + "_insn", {}).get(col, "-")
            v = rows[name][col]
            if v == "failed" and num("stream_record_7_counters", col) is None:
                v = "no streams"	# poll mode samples nothing
            print(f"  {who:<44}{what:<14}{v:>14}{ins:>14}")
    best = lambda name, col: num(name + "_insn", col) or num(name, col)
    q = best("perf_record_command_own", "perf")
    for who, col in (("direct", "irq"), ("perf backend", "perf")):
        a = best("record_command_own", col)
        if a is None or q is None:
            continue
        print(f"goal: pmuscope record's own cost <= perf record's ({who}): "
              f"{a:.0f} vs {q:.0f} instructions, {'met' if a <= q else 'NOT met'}")
e1, e7 = num("el0_read_self_1_counter", "irq"), num("el0_read_self_7_counters", "irq")
f1, f7 = num("el0_raw_mrs_1_counter", "irq"), num("el0_raw_mrs_7_counters", "irq")
i1, i7 = num("el0_read_ioctl_1_counter", "irq"), num("el0_read_ioctl_7_counters", "irq")
q1, q7 = num("perf_event_open_self_read_1", "perf"), num("perf_event_open_self_read_7", "perf")
if e1 and e7:
    print()
    print("EL0 reads of one's own counters (instructions, user and kernel):")
    print(f"  {'counters':<10}{'read_self':>12}{'raw MRS':>12}{'perf rdpmc':>12}{'READ ioctl':>12}")
    for n, e, f, q, i in ((1, e1, f1, q1, i1), (7, e7, f7, q7, i7)):
        cell = lambda v: f"{v:12.0f}" if v else f"{'-':>12}"
        print(f"  {n:<10}{cell(e)}{cell(f)}{cell(q)}{cell(i)}")
    if q7:
        print(f"goal: pmuscope_read_self() of 7 < perf's self-monitoring read of 7: "
              f"{e7:.0f} / {q7:.0f} = {e7 / q7:.2f}x")
    if f7:
        print(f"goal: pmuscope_read_self() of 7 <= 3 x the raw MRS floor: "
              f"{e7:.0f} / {f7:.0f} = {e7 / f7:.2f}x")
if p7 and r1:
    print(f"goal: perf backend per event <= one perf_event_open read(): "
          f"READ of 7 = {p7:.0f} = {p7 / 7:.0f} per event (READ of 1: {p1:.0f}), "
          f"read() of 1 event = {r1:.0f}")
PY

# SPE, in the emulated neoverse-n1-like guest: scripts/bench-spe.sh (also
# runs alone).
PMUSCOPE_BENCH_READY=1 scripts/bench-spe.sh
