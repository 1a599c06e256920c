#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Packaging tests, on the host (no QEMU; about a minute, most of it the
# DKMS build): dkms.conf with Debian's dkms against the cached arm64 test
# kernel (private trees: nothing under /var/lib/dkms, /usr/src or
# /lib/modules), make install/uninstall into a DESTDIR, the man pages
# (man -l, groff warnings) and the bash completion (subcommands, options,
# event names from `pmuscope list` against the fake driver, and the static
# fallback). One line per check, "PASS name" or "FAIL name" (a failure's
# output follows, indented); the last line is "N passed, N failed", and the
# exit status is non-zero on any failure. Needs dkms and man-db
# (scripts/setup.sh installs them), the test kernel (scripts/build-kernel.sh)
# and the host tools (make -C tools host; built here if missing).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../../scripts/lib.sh"
cd "$PMUSCOPE_TOP"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pmuscope-packaging.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { echo "PASS $1"; pass=$((pass + 1)); }
ko() {	# ko NAME [DETAILS]
	echo "FAIL $1"
	[ -z "${2-}" ] || printf '%s\n' "$2" | tail -n 25 | sed 's/^/    /'
	fail=$((fail + 1))
}
check() {	# check NAME COMMAND...: PASS if COMMAND succeeds
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else ko "$name" "$out"; fi
}
summary() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
}

kdir=$(scripts/build-kernel.sh) || { ko "test kernel (scripts/build-kernel.sh)"; summary; exit 1; }
# The release modules_install installs under (the Makefile takes the same).
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h")
version=$(sed -n 's/^#define[[:space:]]*PMUSCOPE_DRV_VERSION[[:space:]]*"\(.*\)"/\1/p' drivers/pmuscope.h)
lib_version=$(sed -n 's/^#define[[:space:]]*PMUSCOPE_LIB_VERSION[[:space:]]*"\(.*\)"/\1/p' tools/lib/pmuscope.h)
cross=$PMUSCOPE_CROSS

# ------------------------------------------------------------------ DKMS
conf_version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
if [ -n "$version" ] && [ "$conf_version" = "$version" ]; then
	ok "dkms.conf: PACKAGE_VERSION $conf_version is the driver's PMUSCOPE_DRV_VERSION"
else
	ko "dkms.conf: PACKAGE_VERSION '$conf_version' is not the driver's '$version'"
fi

dkms_test() {
	local d=$tmp/dkms-root out rc m
	mkdir -p "$d/bin" "$d/tree" "$d/install/$rel"
	# dkms strips the module with the host's strip: give it the cross one.
	ln -s "$(command -v "${cross}strip")" "$d/bin/strip"
	local -a dkms=(env PATH="$d/bin:$PATH" ARCH=arm64 CROSS_COMPILE="$cross"
		sign_file=/nonexistent timeout 600 dkms --dkmstree "$d/tree"
		--sourcetree "$d/src" --installtree "$d/install")
	local -a k=(-k "$rel" -a aarch64 --kernelsourcedir "$kdir")
	local before after
	before=$(ls -d /var/lib/dkms/* /usr/src/pmuscope-* "/lib/modules/$rel" 2>/dev/null || true)

	if out=$(make --no-print-directory dkms-source DESTDIR="$d" DKMS_SRCDIR=/src 2>&1) &&
		out=$("${dkms[@]}" add "pmuscope/$version" 2>&1); then
		ok "dkms: add pmuscope/$version (make dkms-source: $(find "$d/src" -type f | wc -l) files)"
	else
		ko "dkms: add pmuscope/$version" "$out"
		return
	fi

	rc=0
	out=$("${dkms[@]}" build "pmuscope/$version" -k "$rel" -a x86_64 --kernelsourcedir "$kdir" 2>&1) ||
		rc=$?
	if [ "$rc" = 77 ]; then
		ok "dkms: build for x86_64 refused (BUILD_EXCLUSIVE_ARCH)"
	else
		ko "dkms: build for x86_64 refused (BUILD_EXCLUSIVE_ARCH), exit $rc" "$out"
	fi

	m=$d/tree/pmuscope/$version/$rel/aarch64/module/pmuscope.ko
	if out=$("${dkms[@]}" build "pmuscope/$version" "${k[@]}" 2>&1) && [ -f "$m" ] &&
		readelf -h "$m" | grep -q 'Machine:.*AArch64' &&
		[ "$(modinfo -F name "$m")" = pmuscope ] &&
		[[ "$(modinfo -F vermagic "$m")" == "$rel "* ]] &&
		[ "$(find "$d/tree" -name '*.ko' | wc -l)" = 1 ]; then
		ok "dkms: build against $rel: pmuscope.ko alone, AArch64, vermagic $rel"
	else
		ko "dkms: build against $rel: pmuscope.ko alone, AArch64, vermagic $rel" \
			"$out$(cat "$d"/tree/pmuscope/"$version"/build/make.log 2>/dev/null)"
		return
	fi

	if [ "$(id -u)" = 0 ]; then
		if out=$("${dkms[@]}" install "pmuscope/$version" "${k[@]}" --no-depmod 2>&1) &&
			[ -f "$d/install/$rel/updates/dkms/pmuscope.ko" ] &&
			out=$("${dkms[@]}" uninstall "pmuscope/$version" "${k[@]}" --no-depmod 2>&1) &&
			[ ! -e "$d/install/$rel/updates/dkms/pmuscope.ko" ]; then
			ok "dkms: install into and uninstall from a private tree (updates/dkms)"
		else
			ko "dkms: install into and uninstall from a private tree (updates/dkms)" "$out"
		fi
	fi

	if out=$("${dkms[@]}" remove "pmuscope/$version" --all --no-depmod 2>&1) &&
		[ -z "$(ls -A "$d/tree")" ]; then
		ok "dkms: remove --all leaves an empty DKMS tree"
	else
		ko "dkms: remove --all leaves an empty DKMS tree" "$out"
	fi
	after=$(ls -d /var/lib/dkms/* /usr/src/pmuscope-* "/lib/modules/$rel" 2>/dev/null || true)
	if [ "$before" = "$after" ]; then
		ok "dkms: nothing written to /var/lib/dkms, /usr/src or /lib/modules/$rel"
	else
		ko "dkms: nothing written to /var/lib/dkms, /usr/src or /lib/modules/$rel" \
			"$(diff <(echo "$before") <(echo "$after"))"
	fi
}
if command -v dkms >/dev/null; then
	dkms_test
else
	ko "dkms: not installed (scripts/setup.sh installs dkms)"
fi

# ------------------------------------------------ make install / uninstall
# The host tools (the completion tests' fake driver, the link test).
make --no-print-directory -C tools build/host/pmuscope build/host/fake_pmuscope.so \
	build/host/libpmuscope.a build/host/libpmuscope.so >"$tmp/tools.log" 2>&1 ||
	ko "host tools (make -C tools host)" "$(cat "$tmp/tools.log")"

dest=$tmp/dest
if out=$(timeout 900 make --no-print-directory install DESTDIR="$dest" PREFIX=/usr 2>&1); then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	ko "make install DESTDIR=... PREFIX=/usr" "$out"
fi
pages=$(if cd build/man 2>/dev/null; then ls pmuscope*.1; fi)
{
	echo "lib/modules/$rel/updates/pmuscope.ko"
	printf '%s\n' usr/bin/pmuscope usr/include/pmuscope.h usr/include/linux/pmuscope.h \
		usr/lib/libpmuscope.a usr/lib/libpmuscope.so usr/lib/libpmuscope.so.0 \
		"usr/lib/libpmuscope.so.$lib_version" \
		usr/share/bash-completion/completions/pmuscope
	for p in $pages; do echo "usr/share/man/man1/$p"; done
} | sort >"$tmp/expected"
(cd "$dest" 2>/dev/null && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) >"$tmp/installed" || true
if diff -u "$tmp/expected" "$tmp/installed" >"$tmp/diff"; then
	ok "make install: exactly the $(wc -l <"$tmp/expected") expected files ($(echo "$pages" | wc -w) man pages)"
else
	ko "make install: exactly the expected files" "$(cat "$tmp/diff")"
fi
check "make install: pmuscope is the arm64 build, libpmuscope.so has soname libpmuscope.so.0" \
	bash -c "readelf -h '$dest/usr/bin/pmuscope' | grep -q 'Machine:.*AArch64' &&
		readelf -d '$dest/usr/lib/libpmuscope.so' | grep -q 'SONAME.*\[libpmuscope.so.0\]' &&
		[ \$(readlink '$dest/usr/lib/libpmuscope.so') = libpmuscope.so.0 ] &&
		[ \$(readlink '$dest/usr/lib/libpmuscope.so.0') = libpmuscope.so.$lib_version ] &&
		modinfo -F vermagic '$dest/lib/modules/$rel/updates/pmuscope.ko' | grep -q '^$rel '"
if out=$(timeout 300 make --no-print-directory uninstall DESTDIR="$dest" PREFIX=/usr 2>&1) &&
	[ -z "$(find "$dest" ! -type d)" ]; then
	ok "make uninstall (same DESTDIR, PREFIX): no file left"
else
	ko "make uninstall (same DESTDIR, PREFIX): no file left" "$out$(find "$dest" ! -type d)"
fi

# A kernel tree laid out like Debian's linux-headers (6.1.0-57-arm64): its
# include/config/kernel.release (6.1.192 there) is not the release kbuild
# installs under, which .kernelvariables overrides (KERNELRELEASE = UTS_RELEASE).
# Here: the test kernel's objects, kernel.release "$rel-debian", the
# override $rel. install-module and uninstall-module must agree on $rel,
# and uninstall must fail when the module is not where install put it.
fake=$tmp/linux-headers
mkdir -p "$fake/include"
cp "$kdir/Makefile" "$kdir/.config" "$kdir/Module.symvers" "$fake/"
cp -r "$kdir/include/config" "$kdir/include/generated" "$fake/include/"
ln -s "$kdir/arch" "$fake/arch"
ln -s "$kdir/scripts" "$fake/scripts"
echo "$rel-debian" >"$fake/include/config/kernel.release"
echo "override KERNELRELEASE = $rel" >"$fake/.kernelvariables"
fdest=$tmp/dest-debian
fmod=lib/modules/$rel/updates/pmuscope.ko
if out=$(timeout 600 make --no-print-directory install-module KDIR="$fake" DESTDIR="$fdest" 2>&1) &&
	[ "$(cd "$fdest" && find . ! -type d | sed 's|^\./||')" = "$fmod" ]; then
	ok "make install-module, kernel.release '$rel-debian' != UTS_RELEASE: $fmod alone"
else
	ko "make install-module, kernel.release '$rel-debian' != UTS_RELEASE: $fmod alone" \
		"$out$(find "$fdest" ! -type d 2>/dev/null)"
fi
if out=$(timeout 300 make --no-print-directory uninstall-module KDIR="$fake" DESTDIR="$fdest" 2>&1) &&
	[ -z "$(find "$fdest" ! -type d)" ]; then
	ok "make uninstall-module, kernel.release != UTS_RELEASE: removes $fmod, no file left"
else
	ko "make uninstall-module, kernel.release != UTS_RELEASE: removes $fmod, no file left" \
		"$out$(find "$fdest" ! -type d)"
fi
rc=0
out=$(timeout 300 make --no-print-directory uninstall-module KDIR="$fake" DESTDIR="$fdest" 2>&1) || rc=$?
if [ "$rc" != 0 ] && [[ $out == *"no pmuscope.ko in $fdest/lib/modules/$rel/updates"* ]]; then
	ok "make uninstall-module with nothing installed: fails (exit $rc), naming the directory"
else
	ko "make uninstall-module with nothing installed: fails (exit $rc), naming the directory" "$out"
fi
# install-module built pmuscope.ko against the fake tree: build it again
# against the test kernel, as make install left it.
make --no-print-directory module >"$tmp/module.log" 2>&1 ||
	ko "make module (against the test kernel again)" "$(cat "$tmp/module.log")"

# TOOLS_ARCH=host: a program builds against the installed headers and
# shared library, and the installed pmuscope runs.
host=$tmp/host
cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include <pmuscope.h>
int main(void)
{
	struct pmuscope_event_spec ev;
	char err[256];

	if (pmuscope_event_parse("instructions:u", &ev, err, sizeof(err)))
		return 1;
	printf("%zu events, %s\n", pmuscope_event_count(), pmuscope_event_name(ev.number));
	return 0;
}
EOF
if out=$(make --no-print-directory install-tools TOOLS_ARCH=host DESTDIR="$host" PREFIX=/usr 2>&1) &&
	out=$(${CC:-gcc} -Wall -Werror -I"$host/usr/include" -o "$tmp/prog" "$tmp/prog.c" \
		-L"$host/usr/lib" -lpmuscope 2>&1) &&
	out=$(LD_LIBRARY_PATH=$host/usr/lib "$tmp/prog" 2>&1) && [[ $out == *INST_RETIRED* ]] &&
	ldd_out=$(LD_LIBRARY_PATH=$host/usr/lib ldd "$tmp/prog") &&
	[[ $ldd_out == *"libpmuscope.so.0 => $host/usr/lib/libpmuscope.so.0"* ]] &&
	out=$("$host/usr/bin/pmuscope" version 2>&1) && [[ $out == "pmuscope $lib_version "* ]]; then
	ok "make install-tools TOOLS_ARCH=host: a program links the installed libpmuscope.so.0, pmuscope runs"
else
	ko "make install-tools TOOLS_ARCH=host: a program links the installed libpmuscope.so.0, pmuscope runs" \
		"$out"
fi

# ------------------------------------------------------------- man pages
subs=$(sed -n 's/^``pmuscope \([a-z][a-z0-9-]*\).*/\1/p' Documentation/cli.rst | sort -u)
want=$( (echo pmuscope.1; for s in $subs; do echo "pmuscope-$s.1"; done) | sort)
if [ "$want" = "$(echo "$pages" | sort)" ]; then
	ok "man: pmuscope(1) and one page per subcommand of cli.rst ($(echo "$subs" | tr '\n' ' ' | sed 's/ $//'))"
else
	ko "man: pmuscope(1) and one page per subcommand of cli.rst" \
		"$(diff <(echo "$want") <(echo "$pages"))"
fi
if command -v man >/dev/null; then
	for p in $pages; do
		f=build/man/$p
		out=$(MANWIDTH=80 LC_ALL=C.UTF-8 MANPAGER=cat timeout 60 man -l "$f" 2>&1 >"$tmp/page.txt") || true
		out+=$(MANWIDTH=80 LC_ALL=C.UTF-8 MANPAGER=cat timeout 60 man --warnings -l "$f" 2>&1 >/dev/null) || true
		if [ -z "$out" ] && grep -q '^NAME' "$tmp/page.txt" && grep -q '^SYNOPSIS' "$tmp/page.txt" &&
			grep -Eq "^ *${p%.1} +- +[^ ]" "$tmp/page.txt"; then
			ok "man: ${p%.1}(1) renders without warnings (man -l, --warnings), NAME, SYNOPSIS"
		else
			ko "man: ${p%.1}(1) renders without warnings (man -l, --warnings), NAME, SYNOPSIS" \
				"$out$(head -n 8 "$tmp/page.txt")"
		fi
	done
else
	ko "man: man-db is not installed (scripts/setup.sh installs it)"
fi

# ------------------------------------------------------------ completion
comp=build/completion/pmuscope
check "completion: bash -n $comp" bash -n "$comp"

# A 2-CPU Cortex-A53 in a fake sysfs that implements three events only
# (QEMU's: SW_INCR, INST_RETIRED, CPU_CYCLES): what `pmuscope list` says
# there tells the live list from the static one.
sysfs=$tmp/sysfs
for c in 0 1; do
	mkdir -p "$sysfs/cpu$c"
	for kv in probed=1 cpu_name=cortex-a53 pmu=present pmu_version_name=PMUv3 \
		num_event_counters=6 event_counter_width=32 \
		pmceid0=0x0000000000020101 pmceid1=0x0000000000000000; do
		echo "${kv#*=}" >"$sysfs/cpu$c/${kv%%=*}"
	done
done
mkdir -p "$tmp/nopmuscope"

complete_line() {	# complete_line MODE LINE: the replies, one line, sorted
	local -a env=(env -i HOME="$tmp" TERM=dumb)
	case $1 in
	live) env+=(PATH="$PMUSCOPE_TOP/tools/build/host:/usr/bin:/bin"
		PMUSCOPE_SYSFS="$sysfs" LD_PRELOAD="$PMUSCOPE_TOP/tools/build/host/fake_pmuscope.so") ;;
	*) env+=(PATH="$tmp/nopmuscope:/usr/bin:/bin") ;;
	esac
	# shellcheck disable=SC2016 # expanded by that bash
	"${env[@]}" timeout 30 bash --norc --noprofile -c '
		source "$1" || exit 1
		read -r -a COMP_WORDS <<<"$2"
		case $2 in *" ") COMP_WORDS+=("") ;; esac
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_pmuscope
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"' \
		_ "$PMUSCOPE_TOP/$comp" "$2"
}
expect() {	# expect MODE LINE REPLIES...: the replies are exactly these
	local mode=$1 line=$2 got want
	shift 2
	got=$(complete_line "$mode" "$line" 2>&1) || true
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ' | sed 's/ $//')
	if [ "$got" = "$want" ]; then
		ok "completion ($mode): '$line' -> ${want:-nothing}"
	else
		ko "completion ($mode): '$line' -> ${want:-nothing}" "got: '$got'"
	fi
}
expect_has() {	# expect_has MODE LINE REPLIES...: these are among the replies
	local mode=$1 line=$2 got r missing=
	shift 2
	got=" $(complete_line "$mode" "$line" 2>&1) " || true
	for r in "$@"; do [[ $got == *" $r "* ]] || missing+=" $r"; done
	if [ -z "$missing" ]; then
		ok "completion ($mode): '$line' -> $*"
	else
		ko "completion ($mode): '$line' -> $*" "missing:$missing; got:$got"
	fi
}

expect_has live "pmuscope s" stat snapshot spe
expect live "pmuscope st" stat
expect live "pmuscope stat --j" --json
expect live "pmuscope snapshot --l" --lead
expect live "pmuscope spe " dump help record report
expect live "pmuscope stat -e INST_R" INST_RETIRED
expect live "pmuscope stat -e cyc" cycles
expect live "pmuscope stat -e cycles,inst_r" cycles,INST_RETIRED
expect live "pmuscope stat -e L1D_CACHE_R"
expect fallback "pmuscope stat -e INST_R" INST_RETIRED
expect fallback "pmuscope stat -e cyc" cycles
expect fallback "pmuscope record -e L1D_CACHE_R" L1D_CACHE_REFILL
expect fallback "pmuscope stat --j" --json
# Every subcommand cli.rst documents is completed.
# shellcheck disable=SC2086
expect_has fallback "pmuscope " $subs

summary
