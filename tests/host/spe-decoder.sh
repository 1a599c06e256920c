#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of libpmuscope's SPE decoder (tools/lib/spe_decode.c):
#   - against perf's own packet decoder, built from the kernel source
#     (tools/perf/util/arm-spe-decoder/arm-spe-pkt-decoder.c, extracted by
#     scripts/build-kernel.sh; PMUSCOPE_KSRC overrides where it is): random
#     streams (SPE_DIFF_STREAMS, default 100000, seed SPE_SEED, default 1),
#     every header pair and length, crafted malformed streams;
#   - alone, built with AddressSanitizer and UBSan: SPE_FUZZ_STREAMS
#     (default 1000000) random and mutated streams in exact-size buffers;
#   - its speed (printed, never asserted).
# One "PASS name" / "FAIL name: why" line per check, then "N passed, N failed".
# Without the kernel source it fails: it never skips.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

out=$PMUSCOPE_TOP/tools/build/spe-tests
tools=$PMUSCOPE_TOP/tools
streams=${SPE_DIFF_STREAMS:-100000}
fuzz=${SPE_FUZZ_STREAMS:-1000000}
seed=${SPE_SEED:-1}
pass=0
fail=0

ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
}

if [ -z "${PMUSCOPE_KSRC:-}" ]; then
	ver=$(pmuscope_ksrc_version || true)
	if [ -z "$ver" ]; then
		ko "kernel-source: linux-source-$PMUSCOPE_KVER is not installed (scripts/setup.sh), perf's SPE decoder is not here to compare with"
		finish
	fi
	PMUSCOPE_KSRC=$PMUSCOPE_CACHE/src-$(echo "$ver" | tr '~:' '__')
fi
perf=$PMUSCOPE_KSRC/tools/perf/util/arm-spe-decoder
if [ ! -f "$perf/arm-spe-pkt-decoder.c" ]; then
	ko "kernel-source: $perf/arm-spe-pkt-decoder.c missing (run scripts/build-kernel.sh to extract the source, or set PMUSCOPE_KSRC)"
	finish
fi

mkdir -p "$out"
cflags=(-std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers
	-I"$PMUSCOPE_TOP/include/uapi" -I"$tools/lib")
cc=${CC:-gcc}

if log=$("$cc" -O2 -g -I"$PMUSCOPE_TOP/tests/tools/spe_shim" -c -o "$out/arm-spe-pkt-decoder.o" \
		"$perf/arm-spe-pkt-decoder.c" 2>&1) &&
   log=$("$cc" -O2 -g "${cflags[@]}" -I"$PMUSCOPE_TOP/tests/tools/spe_shim" -I"$perf" -o "$out/spe_diff" \
		"$PMUSCOPE_TOP/tests/tools/spe_diff.c" "$tools/lib/spe_decode.c" "$out/arm-spe-pkt-decoder.o" 2>&1); then
	ok "build-spe-diff (perf's decoder from $PMUSCOPE_KSRC)"
	if res=$("$out/spe_diff" --streams "$streams" --seed "$seed" 2>&1); then :; fi
	n=0
	while IFS= read -r line; do
		case $line in
		"PASS "*) ok "${line#PASS }"; n=$((n + 1)) ;;
		"FAIL "*) ko "${line#FAIL }"; n=$((n + 1)) ;;
		esac
	done <<<"$res"
	[ "$n" -ge 3 ] || ko "spe-diff: it reported $n checks, not 3: $(tail -n 3 <<<"$res")"
else
	ko "build-spe-diff: $(head -n 5 <<<"$log")"
fi

if log=$("$cc" -O1 -g "${cflags[@]}" -DSPE_NO_PERF -fsanitize=address,undefined \
		-fno-sanitize-recover=all -fno-omit-frame-pointer -o "$out/spe_fuzz" \
		"$PMUSCOPE_TOP/tests/tools/spe_diff.c" "$tools/lib/spe_decode.c" 2>&1); then
	if res=$(ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$out/spe_fuzz" --fuzz "$fuzz" --seed "$seed" 2>&1); then
		ok "$(grep '^PASS ' <<<"$res" | head -n 1 | cut -c6-)"
	else
		ko "fuzz-sanitized: $(grep -m 3 -E 'ERROR|runtime error|FAIL|SUMMARY' <<<"$res" | tr '\n' ' ')"
	fi
else
	ko "build-spe-fuzz: $(head -n 5 <<<"$log")"
fi

# Throughput: reported, not a check (a loaded host is slower).
if "$cc" -O2 "${cflags[@]}" -DSPE_NO_PERF -o "$out/spe_bench" "$PMUSCOPE_TOP/tests/tools/spe_diff.c" \
		"$tools/lib/spe_decode.c" 2>/dev/null; then
	"$out/spe_bench" --bench 64 | sed 's/^/info: /'
fi
finish
