#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (once) the arm64 test kernel from Debian's linux-source package.
# Result: $(pmuscope_kernel_dir)/{Image,Module.symvers,...}, a complete
# out-of-tree build directory usable as KDIR. Prints that directory.
# PMUSCOPE_KVER=6.1 builds linux-source-6.1 instead (the compatibility build;
# there a fragment line that Kconfig drops is reported, not fatal).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$(pmuscope_kernel_dir)
if [ -f "$out/.pmuscope-done" ]; then
	echo "$out"
	exit 0
fi

ver=$(pmuscope_ksrc_version)
[ -n "$ver" ] || pmuscope_die "linux-source-$PMUSCOPE_KVER is not installed (run scripts/setup.sh)"
tarball=/usr/src/linux-source-$PMUSCOPE_KVER.tar.xz
[ -f "$tarball" ] || pmuscope_die "$tarball missing"

mkdir -p "$PMUSCOPE_CACHE"
exec 9>"$PMUSCOPE_CACHE/.kernel.lock"
flock 9
if [ -f "$out/.pmuscope-done" ]; then
	echo "$out"
	exit 0
fi

src=$(pmuscope_ksrc_dir)
if [ ! -f "$src/.pmuscope-extracted" ]; then
	pmuscope_log "extracting linux-source $ver"
	rm -rf "$src"
	mkdir -p "$src"
	tar -C "$src" --strip-components=1 -xf "$tarball"
	touch "$src/.pmuscope-extracted"
fi

pmuscope_log "building test kernel $ver -> $out (about 6 minutes on 2 cores)"
rm -rf "$out"
mkdir -p "$out"
kmake() {
	make -s -C "$src" O="$out" ARCH=arm64 CROSS_COMPILE="$PMUSCOPE_CROSS" "$@"
}
# Kconfig's notes (e.g. "override: PREEMPT changes choice state") go to
# config.log: they are expected, and the check below is what matters.
kmake allnoconfig >"$out/config.log" 2>&1
(cd "$out" && "$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
	"$out/.config" "$PMUSCOPE_KFRAG" >>"$out/config.log" 2>&1)
kmake olddefconfig >>"$out/config.log" 2>&1

# Every line of the fragment must have survived Kconfig's dependencies.
missing=0
while IFS= read -r line; do
	case "$line" in CONFIG_*) ;; *) continue ;; esac
	if ! grep -qxF "$line" "$out/.config"; then
		pmuscope_log "config: '$line' did not take effect"
		missing=1
	fi
done <"$PMUSCOPE_KFRAG"
if [ "$missing" != 0 ]; then
	[ "$PMUSCOPE_KVER" = 6.12 ] || pmuscope_log "(linux $PMUSCOPE_KVER: built anyway)"
	[ "$PMUSCOPE_KVER" != 6.12 ] || pmuscope_die "fix scripts/kernel/pmuscope-test.config"
fi

start=$(date +%s)
kmake -j"$(nproc)" Image modules >"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log" >&2; pmuscope_die "kernel build failed"; }
cp "$PMUSCOPE_KFRAG" "$out/pmuscope-test.config"
pmuscope_log "test kernel built in $(( $(date +%s) - start )) s"
touch "$out/.pmuscope-done"
echo "$out"
