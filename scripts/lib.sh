# SPDX-License-Identifier: GPL-2.0
# Shared settings of pmuscope's scripts; sourced, never run.

PMUSCOPE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PMUSCOPE_CACHE=${PMUSCOPE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/var/cache}/.cache}/pmuscope}
PMUSCOPE_CROSS=${CROSS_COMPILE:-aarch64-linux-gnu-}
PMUSCOPE_KVER=${PMUSCOPE_KVER:-6.12}
PMUSCOPE_KFRAG=${PMUSCOPE_KFRAG:-$PMUSCOPE_TOP/scripts/kernel/pmuscope-test.config}

pmuscope_log() { printf '[pmuscope] %s\n' "$*" >&2; }
pmuscope_die() { printf '[pmuscope] error: %s\n' "$*" >&2; exit 1; }

# Version of Debian's kernel source package, e.g. 6.12.117-1~deb12u1.
pmuscope_ksrc_version() {
	dpkg-query -W -f='${Version}' "linux-source-$PMUSCOPE_KVER" 2>/dev/null
}

# Where build-kernel.sh unpacks Debian's kernel source (may not exist yet).
pmuscope_ksrc_dir() {
	local ver
	ver=$(pmuscope_ksrc_version)
	[ -n "$ver" ] || return 1
	echo "$PMUSCOPE_CACHE/src-$(echo "$ver" | tr '~:' '__')"
}

# perf's pmu-events JSON for arm64 (scripts/gen-pmu-events.py): in the
# unpacked kernel source, else taken alone from the linux-source tarball
# into build/. Prints the directory; fails when neither is there.
pmuscope_pmu_events_dir() {
	local src ver rel=tools/perf/pmu-events/arch/arm64 out
	src=$(pmuscope_ksrc_dir) || return 1
	if [ -f "$src/.pmuscope-extracted" ]; then
		echo "$src/$rel"
		return 0
	fi
	ver=$(pmuscope_ksrc_version)
	out=$PMUSCOPE_TOP/build/pmu-events-$(echo "$ver" | tr '~:' '__')
	if [ ! -f "$out/.pmuscope-extracted" ]; then
		[ -f "/usr/src/linux-source-$PMUSCOPE_KVER.tar.xz" ] || return 1
		rm -rf "$out"
		mkdir -p "$out"
		tar -C "$out" --strip-components=1 -xf "/usr/src/linux-source-$PMUSCOPE_KVER.tar.xz" \
			--wildcards "*/$rel" || return 1
		touch "$out/.pmuscope-extracted"
	fi
	echo "$out/$rel"
}

# Cache key of the test kernel: source version, config fragment, compiler
# and the build recipe itself. Any change gives a new key, hence a rebuild.
pmuscope_kernel_key() {
	{
		echo "recipe 1"
		pmuscope_ksrc_version
		cat "$PMUSCOPE_KFRAG"
		"${PMUSCOPE_CROSS}gcc" --version | head -n 1
	} | sha256sum | cut -c1-16
}

pmuscope_kernel_dir() {
	echo "$PMUSCOPE_CACHE/kernel-$PMUSCOPE_KVER-$(pmuscope_kernel_key)"
}

# make bench and make profile: pmuscope.ko and pmuscope_emu.ko (the driver
# against the register model, PMUSCOPE_EMU=1: no KUnit needed) built
# against the kernel in $1 (the bench kernel), in build/bench-src/ (a copy
# of the sources: the checkout's own objects belong to the test kernel).
# make bench's set-up (bench.sh, bench-spe.sh): the dependencies, the
# bench kernel (the test kernel without its debug options, checked),
# pmuscope.ko and pmuscope_emu.ko against it (build/bench-src), and the
# arm64 tools. Sets kdir.
pmuscope_bench_setup() {
	local line opt
	scripts/setup.sh
	export PMUSCOPE_KFRAG=$PMUSCOPE_TOP/scripts/kernel/pmuscope-bench.config
	kdir=$(scripts/build-kernel.sh)
	# build-kernel.sh checks the fragment's "=y" lines; a "# CONFIG_X is
	# not set" line that Kconfig ignores (an option without a prompt, such
	# as SLUB_DEBUG without EXPERT) would leave a debug option on unseen.
	while IFS= read -r line; do
		case "$line" in "# CONFIG_"*" is not set") ;; *) continue ;; esac
		opt=${line#"# "}
		opt=${opt%% *}
		! grep -q "^$opt=" "$kdir/.config" ||
			pmuscope_die "the bench kernel has $(grep "^$opt=" "$kdir/.config"): fix $PMUSCOPE_KFRAG"
	done <"$PMUSCOPE_KFRAG"
	pmuscope_build_bench_modules "$kdir"
	# pmuscope-el0 (EL0 reads, tests/tools/el0test.c) is built with libpmuscope.
	make --no-print-directory -C tools arm64 >"$PMUSCOPE_TOP/build/bench-tools.log" 2>&1 ||
		pmuscope_die "tools build failed, see build/bench-tools.log"
}

pmuscope_build_bench_modules() {
	rm -rf "$PMUSCOPE_TOP/build/bench-src"
	mkdir -p "$PMUSCOPE_TOP/build/bench-src/tests"
	cp -r "$PMUSCOPE_TOP"/{Kbuild,drivers,include} "$PMUSCOPE_TOP/build/bench-src/"
	cp -r "$PMUSCOPE_TOP"/tests/{emu,kunit} "$PMUSCOPE_TOP/build/bench-src/tests/"
	make --no-print-directory -C "$1" M="$PMUSCOPE_TOP/build/bench-src" ARCH=arm64 \
		CROSS_COMPILE="$PMUSCOPE_CROSS" PMUSCOPE_EMU=1 modules \
		>"$PMUSCOPE_TOP/build/bench-build.log" 2>&1 ||
		pmuscope_die "module build failed, see build/bench-build.log"
}
