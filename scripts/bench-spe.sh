#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench, SPE (also alone: scripts/bench-spe.sh): in the emulated
# neoverse-n1-like guest (pmuscope_emu.ko on the bench kernel, -icount
# shift=0: one guest nanosecond is one instruction), the records per
# second the pipeline delivers (t-spe-bench.sh), the instructions the
# PMBIRQ and the copier spend per buffer fill at 8, 64 and 4096 KiB
# (scripts/profile.sh spe,spe64,spe4096), and the decoder's throughput on
# the host (tests/host/spe-decoder.sh's bench).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP"

# Alone: the bench kernel, modules and tools; from bench.sh: made already.
[ "${PMUSCOPE_BENCH_READY:-}" = 1 ] || pmuscope_bench_setup
scripts/mkinitramfs.sh build/initramfs-bench-spe.cpio build/bench-src/pmuscope_emu.ko
scripts/run-guest.sh --cpu neoverse-n1 --smp 2 --icount 0 --plan bench-spe \
	--initrd build/initramfs-bench-spe.cpio --log build/bench-spe.log --timeout 600 \
	--append "pmuscope_emu=neoverse-n1" ||
	pmuscope_die "guest failed, see build/bench-spe.log"
python3 scripts/pmuscope_console.py build/bench-spe.log bench-spe | grep -v '^PASS' || true
echo
echo "SPE pipeline (emulated neoverse-n1, bench kernel, -icount shift=0: records per"
echo "second of guest time from the SPU's buffer through PMBIRQ and the ring to read()):"
python3 - build/bench-spe.log <<'PY'
import sys
rows = []
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("pmuscope-bench-spe: "):
        rows.append(dict(f.split("=", 1) for f in line.split()[1:]))
hdr = ("interval", "records/s", "MB/s", "reader CPU", "records", "fills", "lost_ring",
       "lost_dl", "spu_lost", "unsampled")
print("  " + "".join(f"{h:>11}" for h in hdr))
best = cap = None
for r in rows:
    iv, n, ns, b, cpu = (int(r[k]) for k in ("interval", "records", "elapsed_ns", "bytes", "cpu_ns"))
    rate = n * 1e9 / ns
    unsampled = int(r["stopped_ops"]) // (iv + 1)
    cells = (iv, f"{rate:.0f}", f"{b * 1e3 / ns:.1f}", f"{100 * cpu / ns:.1f}%", n, r["fills"],
             r["lost_ring"], r["lost_dl"], r["spu_lost"], unsampled)
    print("  " + "".join(f"{c:>11}" for c in cells))
    if int(r["lost_ring"]) == 0 and int(r["lost_dl"]) == 0:
        best = max(best or 0, rate)
        if cpu:
            cap = n * 1e9 / cpu
if best:
    print(f"highest rate delivered with nothing lost by the driver (ring, DL): {best:.0f} records/s,"
          f" the SPU's densest interval on this CPU")
if cap:
    print(f"the reader at that rate: {cap:.0f} records per second of its CPU time (tick-sampled:"
          f" interrupts taken while it ran, the model writing records among them, count as its own)"
          f": a lower bound of what read() and a walk of every packet can carry on one CPU")
print("spu_lost: the record the SPU holds at each buffer-full event, dropped by the hardware"
      " (Arm ARM D17.4); unsampled: samples not taken while a full buffer waited for its"
      " PMBIRQ, which the register model delivers at its next 1 ms tick (silicon: microseconds)")
PY
echo
echo "SPE PMBIRQ hand-over and copy (same guest, instructions per buffer fill of 8, 64"
echo "and 4096 KiB: the PMBIRQ's share must not grow with the buffer):"
scripts/profile.sh spe,spe64,spe4096 --emu neoverse-n1 >build/bench-spe-profile.txt ||
	pmuscope_die "profile failed, see build/profile/guest.log"
grep -E '^pmuscope-profile-spe:|^== spe|module:|PMBIRQ hand-over|copier' build/bench-spe-profile.txt
echo "  (by function: build/bench-spe-profile.txt)"
echo "SPE decoder on the host:"
tests/host/spe-decoder.sh | grep -E '^info: bench' | sed 's/^info: bench: /  /'
