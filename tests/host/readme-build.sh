#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The board builds of README.md and Documentation/board-am62l.rst, run as
# written in a copy of the tree: their placeholders for the board's kernel
# build directory become Debian's 6.12 arm64 headers (scripts/debian-kernel.sh
# unpacked them, cached), the SDK's cross compiler Debian's. Each must leave
# pmuscope.ko built for that kernel (its vermagic) and the static CLI. One
# line "PASS|FAIL readme-build/NAME" a check; ends "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
top=$PMUSCOPE_TOP
pass=0 fail=0

result() {	# result OK NAME [WHY]
	if [ "$1" = 0 ]; then
		echo "PASS readme-build/$2"
		pass=$((pass + 1))
	else
		echo "FAIL readme-build/$2${3:+: $3}"
		fail=$((fail + 1))
	fi
}

hdr=$(ls -d "$PMUSCOPE_CACHE"/debian-6.12*/usr/src/linux-headers-*-arm64 2>/dev/null | sort -V |
      tail -n 1)
if [ -z "$hdr" ]; then
	result 1 "Debian's 6.12 headers" "none under $PMUSCOPE_CACHE (scripts/debian-kernel.sh 6.12)"
	echo "$pass passed, $fail failed"
	exit 1
fi
abi=${hdr##*/linux-headers-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fresh: a copy of what git tracks (and the working tree's changes to it).
fresh() {
	rm -rf "$work/tree" && mkdir -p "$work/tree" &&
		(cd "$top" && git ls-files -z | cpio -0pdm --quiet "$work/tree")
}

# The README's command: its line "make KDIR=/path/to/board/linux-build ...".
cmd=$(grep -m 1 -o 'make KDIR=/path/to/board/linux-build[^#]*' "$top/README.md" | sed 's/ *$//')
if [ -z "$cmd" ]; then
	result 1 "README.md names the board build" "no 'make KDIR=/path/to/board/linux-build' line"
else
	shown=${cmd//\/path\/to\/board\/linux-build/<Debian $abi headers>}
	cmd=${cmd//\/path\/to\/board\/linux-build/$hdr}
	fresh
	(cd "$work/tree" && bash -c "$cmd") >"$work/readme.log" 2>&1
	rc=$?
	vm=$(modinfo -F vermagic "$work/tree/pmuscope.ko" 2>/dev/null)
	[ $rc = 0 ] && [ "${vm%% *}" = "$abi" ]
	result $? "README: $shown builds pmuscope.ko for $abi" \
		"exit $rc, vermagic '$vm': $(tail -n 5 "$work/readme.log" | tr '\n' ' ')"
	file "$work/tree/tools/build/arm64/pmuscope" 2>/dev/null | grep -q 'ARM aarch64.*statically linked'
	result $? "README: ... && make tools leaves a static arm64 pmuscope"
fi

# make alone is the module's build (the default goal), not make help.
(cd "$work/tree" 2>/dev/null || cd "$top" && make -n KDIR="$hdr") >"$work/n.log" 2>&1
grep -q "M=.* modules" "$work/n.log"
result $? "make alone builds the module (make -n: Kbuild's modules)"

# The board guide: "make KDIR=$KDIR ARCH=arm64 CROSS_COMPILE=aarch64-oe-linux- module",
# with Debian's compiler for the SDK's, and "make -C tools arm64": in the
# same copy, what they make removed first (Kbuild relinks from the
# README's objects; the tools' arm64 half is built again).
[ -d "$work/tree" ] || fresh
rm -f "$work/tree"/*.ko
rm -rf "$work/tree/tools/build/arm64"
guide=$(grep -m 1 -o 'make KDIR=\$KDIR ARCH=arm64 CROSS_COMPILE=[^ ]* module' \
	"$top/Documentation/board-am62l.rst")
if [ -z "$guide" ]; then
	result 1 "board-am62l.rst names the module build" "its make KDIR=\$KDIR ... module line is gone"
else
	guide=${guide//aarch64-oe-linux-/$PMUSCOPE_CROSS}
	(cd "$work/tree" && KDIR=$hdr bash -c "$guide") >"$work/guide.log" 2>&1
	rc=$?
	vm=$(modinfo -F vermagic "$work/tree/pmuscope.ko" 2>/dev/null)
	[ $rc = 0 ] && [ "${vm%% *}" = "$abi" ]
	result $? "board guide: make KDIR=\$KDIR ... module builds pmuscope.ko for $abi" \
		"exit $rc, vermagic '$vm'"
fi
grep -q '^   make -C tools arm64' "$top/Documentation/board-am62l.rst" &&
	(cd "$work/tree" && make -C tools arm64) >"$work/tools.log" 2>&1 &&
	file "$work/tree/tools/build/arm64/pmuscope" | grep -q 'ARM aarch64.*statically linked'
result $? "board guide: make -C tools arm64 leaves a static arm64 pmuscope"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
