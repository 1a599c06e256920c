#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Debian's own arm64 kernel of a series, as a user of Debian has it: the
# signed linux-image of the newest ABI the archive offers, its
# linux-headers (-arm64 and -common), the host's linux-kbuild of the same
# version, unpacked with dpkg-deb -x (nothing is installed) into
# $PMUSCOPE_CACHE/debian-<package version>/; then pmuscope.ko cross-built
# against those headers, W=1, no warnings, in build/debian-<series>/ (a copy
# of the sources), with a link "vmlinuz" to the kernel that run-guest.sh
# --kernel-image boots. Prints the cache directory (its file "abi" names
# the kernel release, e.g. 6.12.118+deb12-arm64).
# Usage: debian-kernel.sh 6.12|6.1 [--no-modules]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

args=("$@")
series=${1:-}
modules=1
[ "${2:-}" != --no-modules ] || modules=
case "$series" in
6.12) pattern='^linux-image-6\.12\.[0-9]+\+deb[0-9]+-arm64$' ;;
6.1) pattern='^linux-image-6\.1\.0-[0-9]+-arm64$' ;;
*) pmuscope_die "usage: debian-kernel.sh 6.12|6.1 [--no-modules]" ;;
esac

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}
now() { date +%s; }

# The arm64 packages need the architecture in dpkg (setup.sh adds it for
# busybox-static:arm64; a machine set up before may lack the lists).
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	as_root dpkg --add-architecture arm64
	as_root apt-get update -q >/dev/null
fi

# The newest ABI of the series that the package lists name (sort -V: 6.1.0-57
# after 6.1.0-9, 6.12.118 after 6.12.99).
newest() {
	apt-cache pkgnames linux-image-"$series". | grep -E "$pattern" | sort -V | tail -n 1
}
image=$(newest)
if [ -z "$image" ]; then
	as_root apt-get update -q >/dev/null
	image=$(newest)
fi
[ -n "$image" ] || pmuscope_die "no $pattern in the package lists (apt-get update?)"
abi=${image#linux-image-}
field() {	# field PACKAGE:ARCH FIELD
	apt-cache show --no-all-versions "$1" | sed -n "s/^$2: //p" | head -n 1
}
version=$(field "$image:arm64" Version)
[ -n "$version" ] || pmuscope_die "apt-cache knows no version of $image:arm64"
dir=$PMUSCOPE_CACHE/debian-$(echo "$version" | tr '~:' '__')

if [ ! -f "$dir/.pmuscope-unpacked" ] || [ "$(cat "$dir/abi" 2>/dev/null)" != "$abi" ]; then
	# The headers name their -common and kbuild packages in Depends.
	depends=$(field "linux-headers-$abi:arm64" Depends)
	common=$(echo "$depends" | grep -oE "linux-headers-[^ ,]*-common" | head -n 1)
	kbuild=$(echo "$depends" | grep -oE 'linux-kbuild-[^ ,]*' | head -n 1)
	[ -n "$common" ] && [ -n "$kbuild" ] ||
		pmuscope_die "linux-headers-$abi: no -common or linux-kbuild in Depends: $depends"
	host=$(dpkg --print-architecture)
	pkgs=("$image:arm64" "linux-headers-$abi:arm64" "$common" "$kbuild:$host")
	pmuscope_log "downloading ${pkgs[*]}"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	s=$(now)
	if ! (cd "$tmp" && apt-get download -q "${pkgs[@]}" >/dev/null 2>&1); then
		# Stale lists name an ABI the archive dropped: update, then
		# choose the packages again from the new lists (once).
		[ -z "${PMUSCOPE_DEBIAN_RETRY:-}" ] ||
			pmuscope_die "apt-get download ${pkgs[*]} failed after apt-get update"
		as_root apt-get update -q >/dev/null ||
			pmuscope_die "apt-get update failed (as root: run scripts/setup.sh first)"
		rm -rf "$tmp"
		PMUSCOPE_DEBIAN_RETRY=1 exec "$0" "${args[@]}"
	fi
	pmuscope_log "downloaded $(du -sh "$tmp" | cut -f1) in $(( $(now) - s )) s"
	s=$(now)
	rm -rf "$dir"
	mkdir -p "$dir"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$dir"
	done
	# The fix-ups: the headers' Makefile includes the -common one by its
	# absolute path, and lib/modules/<abi>/{build,source} point at
	# /usr/src; make them point into the cache. The scripts and tools
	# links to usr/lib/linux-kbuild-* are relative already.
	hdr=$dir/usr/src/linux-headers-$abi
	[ -f "$hdr/Makefile" ] || pmuscope_die "$image: no $hdr/Makefile"
	sed -i "s|^include /usr/src/|include $dir/usr/src/|" "$hdr/Makefile"
	grep -q "^include $dir/usr/src/linux-headers-.*-common/Makefile$" "$hdr/Makefile" ||
		pmuscope_die "$hdr/Makefile: unexpected form: $(head -n 1 "$hdr/Makefile")"
	for l in build source; do
		t=$(readlink "$dir/lib/modules/$abi/$l" 2>/dev/null) || continue
		ln -sfn "../../..$t" "$dir/lib/modules/$abi/$l"
	done
	[ -x "$hdr/scripts/mod/modpost" ] ||
		pmuscope_die "$hdr/scripts/mod/modpost: not there (the $kbuild link?)"
	[ -f "$dir/boot/vmlinuz-$abi" ] || pmuscope_die "$image: no boot/vmlinuz-$abi"
	echo "$abi" >"$dir/abi"
	printf '%s\n' "${pkgs[@]}" >"$dir/packages"
	touch "$dir/.pmuscope-unpacked"
	pmuscope_log "unpacked into $dir in $(( $(now) - s )) s"
fi

if [ -n "$modules" ]; then
	# pmuscope.ko alone: Debian's kernels have no KUnit (CONFIG_KUNIT is
	# not set), which the test modules of PMUSCOPE_KUNIT=1 need.
	# Both have CONFIG_DEBUG_INFO_BTF_MODULES; 6.12's headers ship
	# vmlinux, and kbuild's BTF step runs pahole on the module against
	# it (6.1's do not: kbuild skips the step).
	if grep -q '^CONFIG_DEBUG_INFO_BTF_MODULES=y' "$dir/usr/src/linux-headers-$abi/.config"; then
		command -v pahole >/dev/null ||
			pmuscope_die "no pahole (dwarves) for the BTF step (run scripts/setup.sh)"
	fi
	out=$PMUSCOPE_TOP/build/debian-$series
	rm -rf "$out"
	mkdir -p "$out"
	cp -r "$PMUSCOPE_TOP"/{Kbuild,drivers,include} "$out/"
	s=$(now)
	log=$out/build.log
	if ! make --no-print-directory -C "$dir/usr/src/linux-headers-$abi" M="$out" ARCH=arm64 \
		CROSS_COMPILE="$PMUSCOPE_CROSS" W=1 modules >"$log" 2>&1; then
		cat "$log" >&2
		pmuscope_die "pmuscope.ko against linux-headers-$abi failed"
	fi
	cat "$log" >&2
	! grep -E '(warning|error):' "$log" >/dev/null ||
		pmuscope_die "pmuscope.ko against linux-headers-$abi: warnings (W=1), see above"
	vermagic=$(modinfo -F vermagic "$out/pmuscope.ko")
	case "$vermagic" in
	"$abi "*) ;;
	*) pmuscope_die "pmuscope.ko: vermagic '$vermagic', not Debian's $abi" ;;
	esac
	pmuscope_log "pmuscope.ko against linux-headers-$abi ($vermagic) in $(( $(now) - s )) s"
	# The kernel the module is for, for make check and make debian-kernels.
	ln -s "$dir/boot/vmlinuz-$abi" "$out/vmlinuz"
fi
echo "$dir"
