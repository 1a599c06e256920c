#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: what pmuscope's interfaces cost, measured in the AM62L-like
# guest (cortex-a53, 2 CPUs) under -icount shift=0, where one guest
# nanosecond is one instruction: exact, repeatable instruction counts
# (kernel and user, every CPU involved), in interrupt and in poll mode.
# The kernel is the test kernel without its debug options
# (scripts/kernel/pmuscope-bench.config, cached like the others).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP"

scripts/setup.sh
export PMUSCOPE_KFRAG=$PMUSCOPE_TOP/scripts/kernel/pmuscope-bench.config
kdir=$(scripts/build-kernel.sh)
# build-kernel.sh checks the fragment's "=y" lines; a "# CONFIG_X is not
# set" line that Kconfig ignores (an option without a prompt, such as
# SLUB_DEBUG without EXPERT) would leave a debug option on unseen.
while IFS= read -r line; do
	case "$line" in "# CONFIG_"*" is not set") ;; *) continue ;; esac
	opt=${line#"# "}
	opt=${opt%% *}
	! grep -q "^$opt=" "$kdir/.config" ||
		pmuscope_die "the bench kernel has $(grep "^$opt=" "$kdir/.config"): fix $PMUSCOPE_KFRAG"
done <"$PMUSCOPE_KFRAG"
rm -rf build/bench-src && mkdir -p build/bench-src
cp -r Kbuild drivers include build/bench-src/
make --no-print-directory -C "$kdir" M="$PMUSCOPE_TOP/build/bench-src" ARCH=arm64 \
	CROSS_COMPILE="$PMUSCOPE_CROSS" modules >build/bench-build.log 2>&1 ||
	pmuscope_die "module build failed, see build/bench-build.log"
scripts/mkinitramfs.sh build/initramfs-bench.cpio build/bench-src/pmuscope.ko
scripts/run-guest.sh --cpu cortex-a53 --smp 2 --icount 0 --plan bench \
	--initrd build/initramfs-bench.cpio --log build/bench.log --timeout 300 ||
	pmuscope_die "guest failed, see build/bench.log"
python3 scripts/pmuscope_console.py build/bench.log bench | grep -v '^PASS' || true
echo "pmuscope bench (QEMU cortex-a53 x2, -icount shift=0: instructions per operation)"
printf '%-30s %12s %12s\n' operation "irq mode" "poll mode"
python3 - build/bench.log <<'PY'
import sys
rows, order = {}, []
for line in open(sys.argv[1], errors="replace"):
    if line.startswith("pmuscope-bench: "):
        _, mode, name, value = line.split()
        if name not in rows:
            rows[name] = {}
            order.append(name)
        rows[name][mode] = value
for name in order:
    print(f"{name:<30} {rows[name].get('irq', '-'):>12} {rows[name].get('poll', '-'):>12}")
PY
