#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The KUnit suites with the kernel's own runner: tools/testing/kunit/kunit.py
# run --kunitconfig, in a copy of Debian's linux-source-$PMUSCOPE_KVER (the
# one the test kernel is built from) that holds this tree's sources as
# drivers/misc/pmuscope (Kconfig: PMUSCOPE_KUNIT_TEST, built in). kunit.py
# builds its own small arm64 kernel from .kunitconfig and boots it in QEMU
# (-cpu max, one CPU): suites that need two CPUs say SKIP there.
#
#   scripts/kunit-tool.sh [kunit.py run options...]   e.g. --raw_output
#
# make check runs the suites in its own guests (scripts/kunit.sh, plan
# kunit); this script is for those who use kunit.py, and checks that the
# tree keeps working with it. The copy (hard links) and the build are
# cached under $PMUSCOPE_CACHE, keyed by the source version.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$PMUSCOPE_TOP/scripts/build-kernel.sh" >/dev/null	# extracts the source
ver=$(pmuscope_ksrc_version | tr '~:' '__')
src=$PMUSCOPE_CACHE/src-$ver
[ -f "$src/.pmuscope-extracted" ] || pmuscope_die "no extracted linux-source in $src"
tree=$PMUSCOPE_CACHE/kunit-tree-$ver
build=$PMUSCOPE_CACHE/kunit-build-$ver

if [ ! -f "$tree/.pmuscope-linked" ]; then
	pmuscope_log "linking $src into $tree"
	rm -rf "$tree"
	cp -al "$src" "$tree"
	# sed -i writes new files: the hard-linked originals stay as they are.
	sed -i '$a source "drivers/misc/pmuscope/Kconfig"' "$tree/drivers/misc/Kconfig"
	sed -i '$a obj-$(CONFIG_PMUSCOPE_KUNIT_TEST) += pmuscope/' "$tree/drivers/misc/Makefile"
	touch "$tree/.pmuscope-linked"
fi
# This tree's sources, tracked or new, and no objects of the out-of-tree
# builds: the kernel's build would find them through VPATH.
dst=$tree/drivers/misc/pmuscope
rm -rf "$dst"
mkdir -p "$dst"
(cd "$PMUSCOPE_TOP" && git ls-files -z -co --exclude-standard Kbuild Kconfig .kunitconfig drivers include tests/kunit tests/emu |
	xargs -0 cp --parents -t "$dst")
cd "$tree"
exec python3 tools/testing/kunit/kunit.py run --kunitconfig=drivers/misc/pmuscope \
	--arch=arm64 --cross_compile="$PMUSCOPE_CROSS" --build_dir="$build" \
	--jobs="$(nproc)" --timeout=600 "$@"
