#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the test guest's initramfs: busybox, tests/guest (scripts, plans),
# static test programs and the given kernel modules.
# Usage: mkinitramfs.sh OUTPUT.cpio MODULE.ko...
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1
shift
build=$PMUSCOPE_TOP/build
root=$build/initramfs
bb=$PMUSCOPE_CACHE/busybox-arm64/bin/busybox
[ -x "$bb" ] || pmuscope_die "no arm64 busybox (run scripts/setup.sh)"

# make check builds the gate's initramfs beside the others: one at a time
# (the staging directory and the programs are shared).
mkdir -p "$build"
exec 9>"$build/.mkinitramfs.lock"
flock 9
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,lib/modules,tests}
cp "$bb" "$root/bin/busybox"
cp "$PMUSCOPE_TOP/tests/guest/init" "$root/init"
chmod 755 "$root/init"
cp -r "$PMUSCOPE_TOP/tests/guest/"*.sh "$PMUSCOPE_TOP/tests/guest/plans" "$root/tests/"
cp "$PMUSCOPE_TOP/Documentation/ABI/testing/sysfs-kernel-pmuscope" "$root/tests/abi"

# Static test programs: tests/guest/progs/*.c -> /bin/<name>.
mkdir -p "$build/progs"
for src in "$PMUSCOPE_TOP"/tests/guest/progs/*.c; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .c)
	# Built below: with frame pointers, or with the CLI's file writer.
	case $name in pmuscope-callchain | fidelity | pmuscope-peer) continue ;; esac
	bin=$build/progs/$name
	# A header of progs/ or of include/ (the uapi, the fuzzer's generated
	# tables) newer than the binary rebuilds it too.
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] ||
	   [ -n "$(find "$PMUSCOPE_TOP/tests/guest/progs" "$PMUSCOPE_TOP/include" \
		-name '*.h' -newer "$bin" | head -n 1)" ]; then
		"${PMUSCOPE_CROSS}gcc" -static -O2 -Wall -Wextra -Werror \
			-I"$PMUSCOPE_TOP/include/uapi" -I"$PMUSCOPE_TOP/include" -o "$bin" "$src"
	fi
	cp "$bin" "$root/bin/$name"
done
# The profiled program, as a profiler meets programs: static non-PIE, and
# PIE dynamically linked (with the cross toolchain's loader and libc in
# /lib), both with debug info. The same files go to build/symfs, where
# pmuscope report on the host resolves a guest's recording (--symfs).
symfs=$build/symfs
mkdir -p "$symfs/bin" "$symfs/lib/aarch64-linux-gnu" "$root/lib/aarch64-linux-gnu"
# calltree: a known call tree, every function with its frame record.
for prog in hotloop calltree; do
	src=$PMUSCOPE_TOP/tests/guest/progs/$prog.c
	extra=()
	[ $prog = calltree ] && extra=(-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
		-fno-optimize-sibling-calls)
	for v in static pie; do
		bin=$build/progs/$prog-$v
		if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
			case $v in
			static) flags=(-static -no-pie) ;;
			pie) flags=(-fPIE -pie) ;;
			esac
			"${PMUSCOPE_CROSS}gcc" "${flags[@]}" "${extra[@]}" -O1 -g -Wall -Wextra \
				-Werror -o "$bin" "$src"
		fi
		cp "$bin" "$root/bin/$prog-$v"
		cp "$bin" "$symfs/bin/$prog-$v"
	done
done
# The call-chain test's known call tree: frame records in every function
# (leaf ones too), no tail calls; static non-PIE and PIE dynamically linked.
src=$PMUSCOPE_TOP/tests/guest/progs/pmuscope-callchain.c
for v in static pie; do
	bin=$build/progs/pmuscope-callchain-$v
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] ||
	   [ -n "$(find "$PMUSCOPE_TOP/tests/guest/progs" "$PMUSCOPE_TOP/include" \
		-name '*.h' -newer "$bin" | head -n 1)" ]; then
		case $v in
		static) flags=(-static -no-pie) ;;
		pie) flags=(-fPIE -pie) ;;
		esac
		"${PMUSCOPE_CROSS}gcc" "${flags[@]}" -O2 -fno-omit-frame-pointer \
			-mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls -pthread \
			-Wall -Wextra -Werror -I"$PMUSCOPE_TOP/include/uapi" \
			-I"$PMUSCOPE_TOP/include" -o "$bin" "$src"
	fi
	cp "$bin" "$root/bin/pmuscope-callchain-$v"
done
# The fidelity test (t-fidelity.sh): its workload, every function with
# its frame record, static non-PIE (also in build/symfs); its peer, which
# writes perf_event_open()'s samples as a record file (tools/pmuscope's
# datafile.c, with the library of make -C tools arm64).
bin=$build/progs/fidelity
src=$PMUSCOPE_TOP/tests/guest/progs/fidelity.c
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
	"${PMUSCOPE_CROSS}gcc" -static -no-pie -O1 -g -fno-omit-frame-pointer \
		-mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls -fno-inline -pthread \
		-Wall -Wextra -Werror -o "$bin" "$src"
fi
cp "$bin" "$root/bin/fidelity"
cp "$bin" "$symfs/bin/fidelity"
bin=$build/progs/pmuscope-peer
peer_src=("$PMUSCOPE_TOP/tests/guest/progs/pmuscope-peer.c"
	"$PMUSCOPE_TOP/tools/pmuscope/datafile.c" "$PMUSCOPE_TOP/tools/pmuscope/read-file.c")
peer_lib=$PMUSCOPE_TOP/tools/build/arm64/libpmuscope.a
if [ ! -x "$bin" ] || [ "$peer_lib" -nt "$bin" ] ||
   [ -n "$(find "${peer_src[@]}" "$PMUSCOPE_TOP/tests/guest/progs" \
	"$PMUSCOPE_TOP/tools/pmuscope" "$PMUSCOPE_TOP/include" -name '*.[ch]' -newer "$bin" |
	head -n 1)" ]; then
	"${PMUSCOPE_CROSS}gcc" -static -O2 -Wall -Wextra -Werror -I"$PMUSCOPE_TOP/include/uapi" \
		-I"$PMUSCOPE_TOP/include" -I"$PMUSCOPE_TOP/tools/lib" \
		-I"$PMUSCOPE_TOP/tools/pmuscope" -o "$bin" "${peer_src[@]}" "$peer_lib" -lm
fi
cp "$bin" "$root/bin/pmuscope-peer"
libdir=$("${PMUSCOPE_CROSS}gcc" -print-file-name=libc.so.6)
libdir=$(dirname "$libdir")
for lib in ld-linux-aarch64.so.1 libc.so.6; do
	cp -L "$libdir/$lib" "$root/lib/aarch64-linux-gnu/$lib"
	cp -L "$libdir/$lib" "$symfs/lib/aarch64-linux-gnu/$lib"
done
ln -sf aarch64-linux-gnu/ld-linux-aarch64.so.1 "$root/lib/ld-linux-aarch64.so.1"

# The CLI and the library's example, built by make -C tools arm64.
for extra in "$PMUSCOPE_TOP"/tools/build/arm64/*; do
	case "$extra" in *.so | *.a | *.o) continue ;; esac
	[ -f "$extra" ] && [ -x "$extra" ] && cp "$extra" "$root/bin/"
done

# make bench's peer, when PMUSCOPE_GUEST_PERF names the tree that
# scripts/guest-perf.sh made: Debian's perf as /usr/bin/perf, its
# libraries in /lib/aarch64-linux-gnu.
if [ -n "${PMUSCOPE_GUEST_PERF:-}" ]; then
	[ -x "$PMUSCOPE_GUEST_PERF/usr/bin/perf" ] ||
		pmuscope_die "no usr/bin/perf in $PMUSCOPE_GUEST_PERF (scripts/guest-perf.sh)"
	cp -r "$PMUSCOPE_GUEST_PERF/usr" "$PMUSCOPE_GUEST_PERF/lib" "$root/"
fi

for ko in "$@"; do
	cp "$ko" "$root/lib/modules/"
done

echo "root:x:0:0:root:/:/bin/sh" >"$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out"
