#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench's peer: Debian's arm64 perf and the shared libraries it needs,
# for the bench guest's initramfs (scripts/mkinitramfs.sh with
# PMUSCOPE_GUEST_PERF=OUTDIR). Called by scripts/bench.sh only.
# Usage: guest-perf.sh OUTDIR
#
# The packages (linux-perf:arm64 and those providing the libraries its
# binary needs) are downloaded once into $PMUSCOPE_CACHE/guest-perf-VERSION/
# (VERSION: linux-perf's), outside the checkout, and unpacked there, a
# directory each. The binary's NEEDED libraries are resolved recursively
# (readelf -d): a library the cross toolchain's glibc has (libc, libm,
# the loader) is taken from there, as the initramfs's libc already is
# (one glibc, not two builds of it); any other is looked for in the
# packages already unpacked, then in the Depends of the package of the
# file that needs it (downloaded then). A library found nowhere fails.
# perl and python3 are Depends of perf's scripting only: perf runs
# without them, with libperl and libpython present; they are not fetched.
# OUTDIR gets usr/bin/perf and lib/aarch64-linux-gnu/SONAME, each
# library under the name the loader looks for.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || pmuscope_die "usage: guest-perf.sh OUTDIR"
out=$1

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	pmuscope_log "adding the arm64 architecture to dpkg (for linux-perf:arm64)"
	as_root dpkg --add-architecture arm64
	as_root apt-get update -q >/dev/null
fi
ver=$(apt-cache policy linux-perf:arm64 2>/dev/null | awk '/Candidate:/ { print $2 }')
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	as_root apt-get update -q >/dev/null
	ver=$(apt-cache policy linux-perf:arm64 2>/dev/null | awk '/Candidate:/ { print $2 }')
fi
if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
	pmuscope_die "no linux-perf:arm64 in the package lists (apt-get update?)"
fi

cache=$PMUSCOPE_CACHE/guest-perf-$(echo "$ver" | tr '~:' '__')
mkdir -p "$cache/debs" "$cache/pkgs"
exec 8>"$cache/.lock"
flock 8

# fetch PKG...: their .debs (once, in one apt-get call) unpacked into
# $cache/pkgs/PKG.
fetch() {
	local pkg debs want=()
	for pkg in "$@"; do
		[ -f "$cache/pkgs/$pkg/.unpacked" ] && continue
		debs=("$cache/debs/${pkg}_"*_arm64.deb)
		[ -f "${debs[0]}" ] || want+=("$pkg:arm64")
	done
	if [ ${#want[@]} -gt 0 ]; then
		pmuscope_log "fetching ${want[*]}"
		(cd "$cache/debs" && apt-get download -q -o APT::Sandbox::User=root \
			"${want[@]}" >/dev/null) || pmuscope_die "apt-get download ${want[*]} failed"
	fi
	for pkg in "$@"; do
		[ -f "$cache/pkgs/$pkg/.unpacked" ] && continue
		debs=("$cache/debs/${pkg}_"*_arm64.deb)
		[ -f "${debs[0]}" ] || pmuscope_die "apt-get download $pkg:arm64 gave no .deb"
		rm -rf "$cache/pkgs/$pkg"
		mkdir -p "$cache/pkgs/$pkg"
		dpkg-deb -x "${debs[0]}" "$cache/pkgs/$pkg"
		touch "$cache/pkgs/$pkg/.unpacked"
	done
}

# The arm64 packages PKG Depends on (every alternative; real packages
# only: perl:any and python3:any are virtual, left out), less
# libc6: the toolchain's glibc stands for it.
depends_of() {
	apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances "$1:arm64" 2>/dev/null |
		awk '$1 ~ /^\|?(Pre)?Depends:$/ && $2 !~ /^</ { sub(/:arm64$/, "", $2); print $2 }' |
		grep -vx 'libc6' | sort -u
}

# The library SONAME in the packages unpacked: its path, else nothing.
find_lib() {
	local d
	for d in "$cache"/pkgs/*/; do
		for sub in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
			if [ -e "$d$sub/$1" ]; then
				echo "$d$sub/$1"
				return 0
			fi
		done
	done
}

# The package a path under $cache/pkgs/ came from.
pkg_of() {
	local rel=${1#"$cache/pkgs/"}
	echo "${rel%%/*}"
}

fetch linux-perf
# usr/bin/perf, or perf_VERSION where a release ships it under its version.
bins=("$cache"/pkgs/linux-perf/usr/bin/perf_*)
bin=${bins[0]}
[ -f "$bin" ] || bin=$cache/pkgs/linux-perf/usr/bin/perf
[ -f "$bin" ] || pmuscope_die "linux-perf:arm64 $ver has no usr/bin/perf"
glibc=$(dirname "$("${PMUSCOPE_CROSS}gcc" -print-file-name=libc.so.6)")
[ -f "$glibc/libc.so.6" ] || pmuscope_die "no arm64 libc.so.6 in the cross toolchain"

declare -A done_lib=() from_glibc=()
# The toolchain's libraries: glibc, and gcc's libgcc_s and libstdc++.
queue=("$bin")
libs=()
while [ ${#queue[@]} -gt 0 ]; do
	file=${queue[0]}
	queue=("${queue[@]:1}")
	for so in $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -z "${done_lib[$so]:-}" ] || continue
		if [ -e "$glibc/$so" ]; then
			done_lib[$so]=1
			from_glibc[$so]=1
			continue
		fi
		path=$(find_lib "$so")
		if [ -z "$path" ]; then
			owner=$(pkg_of "$file")
			# shellcheck disable=SC2046
			fetch $(depends_of "$owner")
			path=$(find_lib "$so")
		fi
		[ -n "$path" ] ||
			pmuscope_die "$(basename "$file") (package $(pkg_of "$file")) needs $so: in none of its package's Depends"
		done_lib[$so]=1
		libs+=("$path")
		queue+=("$(readlink -f "$path")")
	done
done

rm -rf "$out"
mkdir -p "$out/usr/bin" "$out/lib/aarch64-linux-gnu"
cp "$bin" "$out/usr/bin/perf"
for path in "${libs[@]}"; do
	cp -L "$path" "$out/lib/aarch64-linux-gnu/$(basename "$path")"
done
for so in "${!from_glibc[@]}"; do
	cp -L "$glibc/$so" "$out/lib/aarch64-linux-gnu/$so"
done
echo "$ver" >"$out/.version"
pmuscope_log "guest perf $ver: $(du -sh "$cache/debs" | cut -f1) of packages in $cache, $(du -sh --exclude=.version "$out" | cut -f1) into the guest (${#libs[@]} libraries, ${#from_glibc[@]} of the cross toolchain)"
