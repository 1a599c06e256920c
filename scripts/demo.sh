#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: set up, build, boot the AM62L-like guest (QEMU cortex-a53,
# 2 CPUs), load pmuscope and show what it found on each CPU.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP"

scripts/setup.sh
pmuscope_log "test kernel (built once, then cached; about 3-6 minutes the first time)"
scripts/build-kernel.sh >/dev/null
make --no-print-directory module >/dev/null
make --no-print-directory -C tools arm64 >/dev/null
mkdir -p build
scripts/mkinitramfs.sh build/initramfs-demo.cpio pmuscope.ko
pmuscope_log "booting qemu-system-aarch64 -M virt -cpu ${PMUSCOPE_DEMO_CPU:-cortex-a53} -smp 2 -icount shift=1"
scripts/run-guest.sh --cpu "${PMUSCOPE_DEMO_CPU:-cortex-a53}" --smp 2 --icount 1 --plan demo \
	--initrd build/initramfs-demo.cpio --log build/demo.log --timeout 120 ||
	pmuscope_die "guest failed, see build/demo.log"
sed -n 's/^pmuscope-demo: \{0,1\}//p' build/demo.log
