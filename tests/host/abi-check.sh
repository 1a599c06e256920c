#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libpmuscope's ABI (Documentation/libpmuscope.rst, "ABI"), on the host
# build (make -C tools host):
#  - tools/build/host/libpmuscope.so (and tools/build/arm64's, when built)
#    exports exactly the global list of tools/lib/libpmuscope.map, each
#    in a LIBPMUSCOPE_ version node, and that list is the functions
#    declared in tools/lib/pmuscope.h;
#  - abidiff (libabigail) of the baseline, tools/lib/abi/libpmuscope.so.0.abi,
#    against the .so finds no removed and no changed function or
#    variable (additions are compatible), with the suppressions of
#    tools/lib/abi/libpmuscope.abignore;
#  - self-tests: a variant of the library with a removed export, and one
#    with a changed signature, fail those checks; one with an added
#    function, and one with struct pmuscope (opaque) changed, pass them.
# One "PASS name" / "FAIL name: why" line per check, then "N passed, N failed".
#
#   tests/host/abi-check.sh                  the checks
#   tests/host/abi-check.sh --baseline REV   write the baseline from the
#                                         library of commit REV (a release)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

tools=$PMUSCOPE_TOP/tools
lib=$tools/lib
map=$lib/libpmuscope.map
baseline=$lib/abi/libpmuscope.so.0.abi
suppr=$lib/abi/libpmuscope.abignore
cc=${CC:-gcc}
cflags=(-O2 -g -std=gnu11 -D_FILE_OFFSET_BITS=64 -DPMUSCOPE_HAVE_SPE_PERF)
abidw_opts=(--no-corpus-path --no-comp-dir-path --no-show-locs)
pass=0
fail=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "${1:-}" = --baseline ]; then
	[ $# = 2 ] || pmuscope_die "usage: $0 --baseline REV"
	command -v abidw >/dev/null || pmuscope_die "abidw not found: scripts/setup.sh (abigail-tools)"
	git -C "$PMUSCOPE_TOP" worktree add -q --detach "$tmp/tree" "$2" ||
		pmuscope_die "cannot check out $2"
	if make -s -C "$tmp/tree/tools" build/host/libpmuscope.so >"$tmp/make.log" 2>&1; then
		mkdir -p "$(dirname "$baseline")"
		abidw "${abidw_opts[@]}" --out-file "$baseline" \
			"$tmp/tree/tools/build/host/libpmuscope.so"
		rc=$?
	else
		cat "$tmp/make.log" >&2
		rc=1
	fi
	git -C "$PMUSCOPE_TOP" worktree remove --force "$tmp/tree"
	[ $rc = 0 ] || pmuscope_die "no baseline from $2"
	pmuscope_log "wrote ${baseline#"$PMUSCOPE_TOP"/} from $(git -C "$PMUSCOPE_TOP" rev-parse --short "$2")"
	exit 0
fi

# The functions a header declares, one a line, sorted (gcc -aux-info
# writes every declaration the compiler saw, with its file).
header_functions() {	# HEADER
	"$cc" -std=gnu11 -I"$PMUSCOPE_TOP/include/uapi" -I"$PMUSCOPE_TOP/include" \
		-fsyntax-only -aux-info "$tmp/aux" -x c "$1" || return 1
	grep -F "/* $1:" "$tmp/aux" |
		sed -E 's/^.*\*\/ extern [^(]*[ *]([A-Za-z_][A-Za-z0-9_]*) \(.*/\1/' | sort
}

# The global names of a version script, sorted.
map_globals() {		# MAP
	sed -e 's@/\*.*\*/@@g' "$1" | awk '
		/^[[:space:]]*\/?\*/ { next }
		/global:/ { g = 1; next }
		/local:/ { g = 0; next }
		/}/ { g = 0; next }
		g && /[A-Za-z_]/ { gsub(/[[:space:];]/, ""); print }' | sort
}

# The defined dynamic symbols of a .so, NAME@@NODE, sorted; version
# nodes themselves (type A) left out.
exports() {		# SO [NM]
	"${2:-nm}" -D --defined-only "$1" | awk '$2 != "A" { print $3 }' | sort
}

# The exports of SO are the globals of MAP, each in a LIBPMUSCOPE_ node.
check_exports() {	# SO MAP [NM]: 0, or 1 and why on stdout
	local names unversioned extra missing
	exports "$1" "${3:-}" >"$tmp/exp"
	unversioned=$(grep -v '@@\?LIBPMUSCOPE_' "$tmp/exp" | tr '\n' ' ')
	sed 's/@.*//' "$tmp/exp" | sort -u >"$tmp/exp.names"
	map_globals "$2" >"$tmp/map.names"
	extra=$(comm -23 "$tmp/exp.names" "$tmp/map.names" | tr '\n' ' ')
	missing=$(comm -13 "$tmp/exp.names" "$tmp/map.names" | tr '\n' ' ')
	names=$(wc -l <"$tmp/exp.names")
	if [ -n "$extra$missing$unversioned" ]; then
		echo "exported but not in the version script: ${extra:-none}; in it but not exported: ${missing:-none}; without a LIBPMUSCOPE_ version: ${unversioned:-none}"
		return 1
	fi
	echo "$names functions"
}

# Two sorted name lists, the same and not empty: their count; else what
# only each holds, said with its own words.
same_names() {	# A B ONLY_A_SAYS ONLY_B_SAYS UNIT
	local only_a only_b
	only_a=$(comm -23 "$1" "$2" | tr '\n' ' ')
	only_b=$(comm -13 "$1" "$2" | tr '\n' ' ')
	if [ -n "$only_a$only_b" ] || [ ! -s "$1" ]; then
		echo "$3: ${only_a:-none}; $4: ${only_b:-none}"
		return 1
	fi
	echo "$(wc -l <"$1") $5"
}

# The globals of MAP are the functions HEADER declares.
check_header() {	# HEADER MAP
	header_functions "$1" >"$tmp/hdr.names" || { echo "gcc cannot read $1"; return 1; }
	map_globals "$2" >"$tmp/map.names"
	same_names "$tmp/hdr.names" "$tmp/map.names" "declared, not in the version script" \
		"in the version script, not declared in pmuscope.h" functions
}

# The static archive A defines as global exactly the globals of MAP: its
# helpers (hidden in lib/internal.h) are local, as in the .so.
check_archive() {	# A MAP [NM]
	"${3:-nm}" -g --defined-only "$1" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u \
		>"$tmp/ar.names"
	map_globals "$2" >"$tmp/map.names"
	same_names "$tmp/ar.names" "$tmp/map.names" "global but not in the version script" \
		"in it but not defined" symbols
}

# abidiff of the baseline against SO: no incompatible change (exit bit
# 8), no removed and no changed function or variable.
check_abidiff() {	# SO
	local rc changed
	abidiff --suppressions "$suppr" "$baseline" "$1" >"$tmp/abidiff" 2>&1
	rc=$?
	if [ $((rc & 3)) != 0 ]; then
		echo "abidiff failed (exit $rc): $(head -n 3 "$tmp/abidiff" | tr '\n' ' ')"
		return 1
	fi
	changed=$(grep -E 'changes summary: ' "$tmp/abidiff" |
		grep -oE '[1-9][0-9]* (Removed|Changed)[^,]*' | tr '\n' ' ')
	if [ $((rc & 8)) != 0 ] || [ -n "$changed" ]; then
		echo "incompatible with the baseline (abidiff exit $rc): ${changed:-}$(grep -m 3 -E "^  \[[DC]\]" "$tmp/abidiff" | tr '\n' ' ')"
		return 1
	fi
	echo "abidiff exit $rc$(grep -m 1 -oE '[1-9][0-9]* Added function' "$tmp/abidiff" | sed 's/^/, /')"
}

# Every function symbol of ABIXML has a LIBPMUSCOPE_ version: abidiff
# pairs functions by versioned symbol, and against an unversioned
# baseline (a library before libpmuscope.map) it reports no change at all.
check_baseline() {	# ABIXML
	local n bad
	n=$(grep -c "<elf-symbol name='pmuscope_" "$1")
	bad=$(grep "<elf-symbol name='pmuscope_" "$1" | grep -vc "version='LIBPMUSCOPE_")
	if [ "$n" = 0 ] || [ "$bad" != 0 ]; then
		echo "$bad of $n function symbols without a LIBPMUSCOPE_ version"
		return 1
	fi
	echo "$n function symbols"
}

so=$tools/build/host/libpmuscope.so
if [ ! -f "$so" ]; then
	ko "libpmuscope.so: no tools/build/host/libpmuscope.so (make -C tools host)"
	echo "$pass passed, $fail failed"
	exit 1
fi

if why=$(check_exports "$so" "$map"); then
	ok "exports: host libpmuscope.so exports exactly libpmuscope.map's globals ($why)"
else
	ko "exports: host libpmuscope.so: $why"
fi
if [ -f "$tools/build/arm64/libpmuscope.so" ]; then
	if why=$(check_exports "$tools/build/arm64/libpmuscope.so" "$map" "${PMUSCOPE_CROSS}nm"); then
		ok "exports: arm64 libpmuscope.so exports exactly libpmuscope.map's globals ($why)"
	else
		ko "exports: arm64 libpmuscope.so: $why"
	fi
fi
for arch in host arm64; do
	a=$tools/build/$arch/libpmuscope.a
	[ -f "$a" ] || continue
	nmcmd=nm
	[ $arch = arm64 ] && nmcmd=${PMUSCOPE_CROSS}nm
	if why=$(check_archive "$a" "$map" "$nmcmd"); then
		ok "archive: $arch libpmuscope.a defines exactly libpmuscope.map's globals ($why)"
	else
		ko "archive: $arch libpmuscope.a: $why"
	fi
done
if why=$(check_header "$lib/pmuscope.h" "$map"); then
	ok "header: libpmuscope.map's globals are the functions of pmuscope.h ($why)"
else
	ko "header: $why"
fi
if ! command -v abidiff >/dev/null; then
	ko "abidiff: not found (scripts/setup.sh installs abigail-tools)"
	echo "$pass passed, $fail failed"
	exit 1
fi
if [ ! -f "$baseline" ]; then
	ko "abidiff: no baseline ${baseline#"$PMUSCOPE_TOP"/} (tests/host/abi-check.sh --baseline REV)"
elif ! why=$(check_baseline "$baseline"); then
	ko "baseline: ${baseline#"$PMUSCOPE_TOP"/}: $why"
elif why=$(check_abidiff "$so"); then
	ok "abidiff: libpmuscope.so is compatible with the baseline ($why)"
else
	ko "abidiff: $why"
fi

# Self-tests: variants of the library, built as tools/Makefile builds
# the .so, each with one change made by sed (checked to have happened).
variant() {		# NAME: a copy of tools/lib in $tmp/NAME/lib
	rm -rf "${tmp:?}/$1"
	mkdir -p "$tmp/$1"
	cp -r "$lib" "$tmp/$1/lib"
}
build_variant() {	# NAME: $tmp/NAME/libpmuscope.so
	local d=$tmp/$1
	(cd "$d" && "$cc" "${cflags[@]}" -I"$PMUSCOPE_TOP/include/uapi" -I"$PMUSCOPE_TOP/include" \
		-Ilib -fPIC -shared -Wl,-soname,libpmuscope.so.0 \
		-Wl,--version-script=lib/libpmuscope.map -o libpmuscope.so \
		lib/*.c >build.log 2>&1)
}
edit() {		# FILE SED-EXPR GREP-AFTER: the edit, or 1
	sed -i "$2" "$1" && grep -q -- "$3" "$1"
}
selftest() {		# NAME WANT(pass|fail) CHECK DESCRIPTION
	local why got=pass
	if ! build_variant "$1"; then
		ko "self-test $1: the variant does not build: $(head -n 3 "$tmp/$1/build.log" | tr '\n' ' ')"
		return
	fi
	case $3 in
	exports) why=$(check_exports "$tmp/$1/libpmuscope.so" "$tmp/$1/lib/libpmuscope.map") || got=fail ;;
	header) why=$(check_header "$tmp/$1/lib/pmuscope.h" "$tmp/$1/lib/libpmuscope.map") || got=fail ;;
	abidiff) why=$(check_abidiff "$tmp/$1/libpmuscope.so") || got=fail ;;
	esac
	if [ "$got" = "$2" ]; then
		ok "self-test $1: $4: $3 check says $got"
	else
		ko "self-test $1: $4: $3 check says $got, not $2 ($why)"
	fi
}

scale='uint64_t pmuscope_scale(uint64_t count, uint64_t enabled, uint64_t running)'
scale32='uint64_t pmuscope_scale(uint32_t count, uint64_t enabled, uint64_t running)'

# A function removed from the .so (and the header): exports and abidiff see it.
variant removed
if edit "$tmp/removed/lib/libpmuscope.map" '/^[[:space:]]*pmuscope_scale;/d' '^[[:space:]]*pmuscope_event_parse;' &&
	! grep -q 'pmuscope_scale;' "$tmp/removed/lib/libpmuscope.map"; then
	selftest removed fail abidiff "pmuscope_scale no longer exported"
	# The map without it, the header with it.
	selftest removed fail header "pmuscope_scale declared, not in the version script"
else
	ko "self-test removed: cannot remove pmuscope_scale from the version script"
fi

# A changed signature: the first parameter of pmuscope_scale 32-bit.
variant signature
if edit "$tmp/signature/lib/pmuscope.h" "s/$scale/$scale32/" "$scale32" &&
	edit "$tmp/signature/lib/session.c" "s/$scale/$scale32/" "$scale32"; then
	selftest signature fail abidiff "pmuscope_scale(uint32_t count, ...)"
else
	ko "self-test signature: cannot change pmuscope_scale's signature"
fi

# A symbol exported that pmuscope.h does not declare.
variant leak
if edit "$tmp/leak/lib/libpmuscope.map" 's/^\([[:space:]]*\)pmuscope_scale;/&\n\1pmuscope_fmt;/' \
	'pmuscope_fmt;' &&
	edit "$tmp/leak/lib/internal.h" 's/^#pragma GCC visibility \(push(hidden)\|pop\)$//' \
		'^#endif' && ! grep -q 'visibility push' "$tmp/leak/lib/internal.h"; then
	selftest leak fail header "pmuscope_fmt (internal) exported"
	selftest leak pass exports "pmuscope_fmt in the version script and exported"
else
	ko "self-test leak: cannot export pmuscope_fmt"
fi

# A baseline of a library without version nodes.
sed "s/ version='LIBPMUSCOPE_0' is-default-version='yes'//" "$baseline" >"$tmp/unversioned.abi"
if cmp -s "$baseline" "$tmp/unversioned.abi"; then
	ko "self-test unversioned: cannot strip the baseline's versions"
elif why=$(check_baseline "$tmp/unversioned.abi"); then
	ko "self-test unversioned: a baseline without versions: baseline check says pass, not fail ($why)"
else
	ok "self-test unversioned: a baseline without versions: baseline check says fail"
fi

# What stays compatible: a new function, and struct pmuscope (opaque in
# pmuscope.h) rearranged.
variant added
if edit "$tmp/added/lib/pmuscope.h" \
	's/^int pmuscope_fd(const struct pmuscope \*h);$/&\nint pmuscope_abi_selftest(void);/' \
	'pmuscope_abi_selftest' &&
	printf 'int pmuscope_abi_selftest(void)\n{\n\treturn 1;\n}\n' >>"$tmp/added/lib/stream.c" &&
	edit "$tmp/added/lib/libpmuscope.map" \
		's/^};$/};\n\nLIBPMUSCOPE_0.99 {\n\tglobal:\n\t\tpmuscope_abi_selftest;\n} LIBPMUSCOPE_0;/' \
		'LIBPMUSCOPE_0.99'; then
	selftest added pass abidiff "pmuscope_abi_selftest added in a node of its own"
	selftest added pass exports "pmuscope_abi_selftest in LIBPMUSCOPE_0.99"
	selftest added pass header "pmuscope_abi_selftest declared and in the version script"
else
	ko "self-test added: cannot add pmuscope_abi_selftest"
fi
variant opaque
if edit "$tmp/opaque/lib/internal.h" 's/^\tchar msg\[512\];$/\tchar msg[1024];/' 'char msg\[1024\]'; then
	selftest opaque pass abidiff "struct pmuscope's message buffer doubled"
else
	ko "self-test opaque: cannot change struct pmuscope"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
