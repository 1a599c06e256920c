#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install what pmuscope's build and tests need on Debian 12 (bookworm).
# Idempotent: silent and quick when everything is present.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

packages=(
	make gcc libc6-dev bc bison flex libssl-dev libelf-dev libdw-dev cpio kmod
	xz-utils rsync python3 python3-docutils perl sparse cppcheck
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-system-arm linux-source-6.12 linux-source-6.1
	dkms man-db prometheus abigail-tools dwarves
	golang-go chromium fonts-dejavu-core
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

if [ ${#missing[@]} -gt 0 ]; then
	pmuscope_log "installing: ${missing[*]}"
	as_root apt-get update -q >/dev/null
	# prometheus is wanted for promtool and a private server the tests
	# start on 127.0.0.1: its package's own service must not start (it
	# would listen on every address). policy-rc.d says so to invoke-rc.d,
	# for this install only.
	policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
		as_root chmod 755 "$policy"
	fi
	status=0
	DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >/dev/null || status=$?
	[ -z "$policy" ] || as_root rm -f "$policy"
	[ $status = 0 ] || pmuscope_die "apt-get install ${missing[*]} failed"
fi

# Debian's arm64 busybox-static, unpacked into the cache for the initramfs.
bbdir=$PMUSCOPE_CACHE/busybox-arm64
if [ ! -x "$bbdir/bin/busybox" ]; then
	pmuscope_log "fetching busybox-static:arm64"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		as_root dpkg --add-architecture arm64
		as_root apt-get update -q >/dev/null
	fi
	tmp=$(mktemp -d)
	if ! (cd "$tmp" && apt-get download -q busybox-static:arm64 >/dev/null 2>&1); then
		as_root apt-get update -q >/dev/null
		(cd "$tmp" && apt-get download -q busybox-static:arm64 >/dev/null)
	fi
	rm -rf "$bbdir"
	mkdir -p "$bbdir"
	dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$bbdir"
	rm -rf "$tmp"
	[ -x "$bbdir/bin/busybox" ] || pmuscope_die "busybox-static:arm64 did not unpack"
fi
# speedscope from npm, the importer of folded stacks and perf script
# text that tests/host/test_formats.py runs in Chromium (its
# SPEEDSCOPE_VERSION): into the cache, outside the checkout, a directory
# per version. Node.js and npm from Debian where the machine has none.
speedscope=1.25.0
ssdir=$PMUSCOPE_CACHE/npm/speedscope-$speedscope
if [ ! -f "$ssdir/node_modules/speedscope/dist/release/index.html" ]; then
	if ! command -v npm >/dev/null; then
		pmuscope_log "installing: nodejs npm"
		as_root apt-get update -q >/dev/null
		DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q \
			--no-install-recommends nodejs npm >/dev/null ||
			pmuscope_die "apt-get install nodejs npm failed"
	fi
	pmuscope_log "installing speedscope $speedscope (npm) into $ssdir"
	mkdir -p "$ssdir"
	(cd "$ssdir" && npm install -q --no-audit --no-fund --ignore-scripts \
		"speedscope@$speedscope" >/dev/null) ||
		pmuscope_die "npm install speedscope@$speedscope failed"
	[ -f "$ssdir/node_modules/speedscope/dist/release/index.html" ] ||
		pmuscope_die "speedscope $speedscope did not install"
fi
exit 0
