#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The reliability gate's build: the debug kernel (scripts/kernel/
# pmuscope-debug.config: KASAN, kmemleak, UBSAN, debug objects, fault
# injection, GCOV; cached like the test kernel), the modules built against
# it with GCOV (PMUSCOPE_GCOV=1) in build/gate-src, and their initramfs
# build/initramfs-gate.cpio. scripts/check.sh boots it (plans gate*).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$PMUSCOPE_TOP"

export PMUSCOPE_KFRAG=$PMUSCOPE_TOP/scripts/kernel/pmuscope-debug.config
kdir=$(scripts/build-kernel.sh)
src=build/gate-src
rm -rf "$src" && mkdir -p "$src"
cp -r Kbuild drivers include tests "$src/"
# Sources only: make check runs this beside in-tree builds (lint).
find "$src" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod' \
	-o -name '*.mod.c' -o -name '*.gcno' -o -name '*.gcda' -o -name '*.a' \) -delete
make --no-print-directory -C "$kdir" M="$PMUSCOPE_TOP/$src" ARCH=arm64 \
	CROSS_COMPILE="$PMUSCOPE_CROSS" PMUSCOPE_KUNIT=1 PMUSCOPE_GCOV=1 modules
scripts/mkinitramfs.sh build/initramfs-gate.cpio "$src/pmuscope.ko" \
	"$src/pmuscope_kunit.ko" "$src/pmuscope_cpupm.ko" "$src/pmuscope_emu.ko"
