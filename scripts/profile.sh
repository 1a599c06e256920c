#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make profile: where an operation's instructions go, by function. Boots the
# bench kernel (as make bench) under -icount with the QEMU plugin
# scripts/qemu/insn-profile.c, runs each operation ITER times between the
# plugin's markers (pmuscope-bench profile OP) and names every address
# counted: kernel functions through System.map and the KASLR offset the
# guest prints, the module's through its /proc/kallsyms lines.
# Usage: scripts/profile.sh [OPS] [--perf | --emu PROFILE]
#   OPS: comma-separated, of read1, read7, snapshot1, snapshot7,
#        perf_group7 (needs --perf: perf's PMU driver active), spe, spe64,
#        spe4096 (profiling buffers of 8, 64, 4096 KiB; need --emu with an
#        SPE profile, e.g. neoverse-n1), sample, sample_chain8,
#        sample_chain32 (a sample of CPU_CYCLES every 100,000 cycles,
#        without and with a call chain: per sample; with --perf, through
#        the perf backend); default read7.
#   --emu PROFILE: pmuscope_emu.ko (the driver against the register model)
#        with the CPU profile PROFILE (e.g. v9.4-like, on QEMU's max) and
#        snapshot=1, on the same bench kernel: the driver's own
#        instructions are told from the model's (pmuscope_model_*) by
#        function.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP"

ops=read7 perf= emu=
while [ $# -gt 0 ]; do
	case "$1" in
	--perf) perf=1 ;;
	--emu) emu=$2; shift ;;
	*) ops=$1 ;;
	esac
	shift
done
scripts/setup.sh
mkdir -p build/profile
gcc -O2 -Wall -Wextra -shared -fPIC -o build/profile/insn-profile.so scripts/qemu/insn-profile.c
plan=profile args=(--cpu cortex-a53) append="pmuscope_profile_ops=$ops"
# The bench kernel (no debug options), and the driver built against it:
# pmuscope.ko, and pmuscope_emu.ko (the driver against the register model).
export PMUSCOPE_KFRAG=$PMUSCOPE_TOP/scripts/kernel/pmuscope-bench.config
kdir=$(scripts/build-kernel.sh)
pmuscope_build_bench_modules "$kdir"
if [ -n "$emu" ]; then
	scripts/mkinitramfs.sh build/profile/initramfs.cpio build/bench-src/pmuscope_emu.ko
	args=(--cpu max)
	[ "$emu" != neoverse-n1 ] || args=(--cpu neoverse-n1)
	append="$append pmuscope_emu=$emu pmuscope_profile_args=snapshot=1"
else
	scripts/mkinitramfs.sh build/profile/initramfs.cpio build/bench-src/pmuscope.ko
	[ -z "$perf" ] || { plan=profile-perf; args+=(--no-blacklist); }
fi
out=$PMUSCOPE_TOP/build/profile/windows.txt
scripts/run-guest.sh "${args[@]}" --smp 2 --icount 0 --plan "$plan" \
	--initrd build/profile/initramfs.cpio --log build/profile/guest.log --timeout 600 \
	--append "$append" --plugin "$PMUSCOPE_TOP/build/profile/insn-profile.so,out=$out" ||
	pmuscope_die "guest failed, see build/profile/guest.log"
grep -a '^pmuscope-snapshot-hw:' build/profile/guest.log || true
python3 - "$kdir/System.map" build/profile/guest.log "$out" "$ops" <<'PY'
import bisect, collections, sys
smap, log, out, ops = sys.argv[1:]
ops = ops.split(",")
syms, anchors = [], {}
for line in open(smap):
    a, t, n = line.split()[:3]
    if t in "tTwW":
        syms.append((int(a, 16), n))
    if n in ("_text", "_stext", "_etext"):
        anchors[n] = int(a, 16)
off, mods = None, []
for line in open(log, errors="replace"):
    if not line.startswith("pmuscope-sym: "):
        continue
    f = line.split()
    a, t, n = int(f[1], 16), f[2], f[3]
    if n in anchors:
        off = a - anchors[n]
    elif len(f) > 4 and t in "tT":
        mods.append((a, f[4] + " " + n))
if off is None:
    sys.exit("profile: no kernel text address from the guest")
syms = sorted([(a + off, n) for a, n in syms] + mods)
addrs = [a for a, _ in syms]
# Each op's divisor: "pmuscope-profile: OP N" (calls, or an SPE op's fills).
iters = {l.split()[1]: int(l.split()[2]) for l in open(log, errors="replace")
         if l.startswith("pmuscope-profile: ") and len(l.split()) == 3}
for l in open(log, errors="replace"):
    if l.startswith("pmuscope-profile-spe: "):
        print(l.strip())
windows, cur = [], None
for line in open(out):
    if line.startswith("window"):
        cur = collections.Counter()
        windows.append(cur)
        continue
    a, c = line.split()
    cur[int(a, 16)] += int(c)
for op, w in zip(ops, windows):
    div = iters.get(op, 2000) or 1
    by = collections.Counter()
    user = 0
    for a, c in w.items():
        if a < (1 << 63):
            user += c
            continue
        i = bisect.bisect_right(addrs, a) - 1
        by[syms[i][1] if i >= 0 else "?"] += c
    total = sum(w.values())
    print(f"== {op}: {total / div:.1f} instructions per call "
          f"({user / div:.1f} at EL0), by function:")
    mod = {"driver": 0, "model": 0}
    for n, c in by.items():
        if n.startswith("[pmuscope"):
            mod["model" if " pmuscope_model_" in n else "driver"] += c
    print(f"  module: {mod['driver'] / div:.1f} the driver's own, "
          f"{mod['model'] / div:.1f} the register model's (pmuscope_model_*)")
    if op.startswith("spe"):
        # The PMBIRQ: the driver's handler and what it calls of the driver
        # (static helpers the compiler kept out of line), and the kernel's
        # queue_work_on() path that hands the copy to the worker. The
        # copier: the worker's driver functions and memcpy (the model's
        # own record writes are the model's, counted apart above).
        irq_fns = ("pmuscope_spe_emu_irq", "pmuscope_spe_irq_handler", "pmuscope_spe_irq_local",
                   "pmuscope_spe_hand_over", "pmuscope_spe_decode")
        wq_fns = ("queue_work_on", "__queue_work", "insert_work", "kick_pool",
                  "wake_up_process", "try_to_wake_up")
        copy_fns = ("pmuscope_spe_copy", "pmuscope_spe_copy_work", "pmuscope_spe_emit",
                    "pmuscope_spe_ring_put")
        irq = sum(by.get("[pmuscope_emu] " + f, 0) + by.get("[pmuscope] " + f, 0) for f in irq_fns)
        wq = sum(by.get(f, 0) for f in wq_fns)
        cpy = sum(by.get("[pmuscope_emu] " + f, 0) + by.get("[pmuscope] " + f, 0) for f in copy_fns)
        mc = sum(c for f, c in by.items() if f in ("memcpy", "memmove", "__memcpy", "__pi_memcpy"))
        print(f"  PMBIRQ hand-over ({', '.join(irq_fns[2:])}): {irq / div:.1f} per fill, "
              f"+ queue_work_on() and the wake-up it makes: {wq / div:.1f}")
        print(f"  copier (worker, process context): {cpy / div:.1f} in the driver + "
              f"{mc / div:.1f} memcpy/memmove per fill (the model's record writes among them)")
        print("  the driver's functions (not the model's), per fill:")
        for f, c in sorted(by.items(), key=lambda x: -x[1]):
            if f.startswith("[pmuscope") and " pmuscope_model_" not in f and c / div >= 1:
                print(f"    {c / div:9.1f}  {f}")
    if op.startswith("snapshot") and not any(n.startswith("[pmuscope_emu]") for n in by):
        # The software snapshot's own work (the goal of make bench; not
        # with --emu, whose snapshot is the hardware one): the
        # driver's function and its out-of-line folds, and the system
        # counter reads it makes through arch_timer_read_counter(). Calls
        # are counted at a function's first instruction: the counter
        # reader's calls less those of arch_counter_read() (ktime_get()'s
        # clocksource read, one each) are the snapshot's.
        entry = {n: a for a, n in syms}
        calls = lambda n: w.get(entry[n], 0) if n in entry else 0
        own_fns = ("pmuscope_pmu_snapshot", "pmuscope_pmu_fold_rest",
                   "pmuscope_pmu_fold_one", "pmuscope_pmu_repair")
        own = sum(by.get("[pmuscope] " + n, 0) for n in own_fns)
        readers = [n for n in by if n.startswith("arch_counter_get_cnt")]
        rd_insns = sum(by[n] for n in readers)
        rd_calls = sum(calls(n) for n in readers)
        snap_calls = rd_calls - calls("arch_counter_read")
        per = rd_insns / rd_calls if rd_calls else 0
        print(f"  snapshot's own work: {own / div:.1f} in {', '.join(own_fns)}, "
              f"+ {snap_calls / div:.1f} system-counter reads x {per:.1f} "
              f"({'/'.join(readers) or '-'}) = {(own + snap_calls * per) / div:.1f}")
    for n, c in by.most_common(40):
        print(f"  {c / div:9.1f}  {n}")
PY
