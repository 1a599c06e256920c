#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The CLI's file readers against bad input (tests/tools/file_fuzz.c), built
# with AddressSanitizer and UBSan: two real record files (one with call
# chains, kernel and user frames, and a KALLSYMS chunk) and a real SPE file
# written by the CLI's writers, FILE_FUZZ_RUNS (default 1000000) mutations
# of the SPE file and as many of the record files (half each), the crafted
# headers of the heap overflow (an SPE file's argc of 0xffffffff and
# 0xfffffff8), record files with a corrupt chain or version-2 header word,
# or a chain longer than the header's max_stack or in a file without
# chains (refused, the message naming the byte); then the CLI itself, sanitized,
# on those crafted files (spe dump, spe report; report, script, report -g,
# --folded, --flamegraph, --pprof): a clear refusal,
# no crash.
# The seed is FILE_FUZZ_SEED, default the commit's (printed), so that
# successive commits try other mutations. One "PASS name" / "FAIL name:
# why" line per check, then "N passed, N failed".
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

tools=$PMUSCOPE_TOP/tools
out=$tools/build/file-fuzz
runs=${FILE_FUZZ_RUNS:-1000000}
seed=${FILE_FUZZ_SEED:-$(git -C "$PMUSCOPE_TOP" rev-parse --short=8 HEAD 2>/dev/null | sed 's/^/0x/')}
seed=${seed:-1}
pass=0
fail=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
ko() { echo "FAIL $*"; fail=$((fail + 1)); }

mkdir -p "$out"
# shellcheck disable=SC2054 # "address,undefined" is one argument
san=(-O1 -g -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-missing-field-initializers
	-Wno-format-truncation -fsanitize=address,undefined -fno-sanitize-recover=all
	-fno-omit-frame-pointer -I"$PMUSCOPE_TOP/include/uapi" -I"$PMUSCOPE_TOP/include"
	-I"$tools/lib" -I"$tools/pmuscope")
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
echo "# file fuzz: $runs mutations of each file, seed $seed"
if log=$(gcc "${san[@]}" -o "$out/file_fuzz" "$PMUSCOPE_TOP/tests/tools/file_fuzz.c" \
		"$tools/pmuscope/datafile.c" "$tools/pmuscope/spefile.c" \
		"$tools/pmuscope/read-file.c" "$tools"/lib/*.c -lm 2>&1); then
	res=$(cd "$out" && ./file_fuzz --runs "$runs" --seed "$seed" --keep "$out" 2>&1)
	n=0
	while IFS= read -r line; do
		case $line in
		"PASS "*) ok "${line#PASS }"; n=$((n + 1)) ;;
		"FAIL "*) ko "${line#FAIL }"; n=$((n + 1)) ;;
		esac
	done <<<"$res"
	if grep -qE 'ERROR: AddressSanitizer|runtime error|SUMMARY' <<<"$res"; then
		ko "file-fuzz: a sanitizer report: $(grep -m 3 -E 'ERROR|runtime error|SUMMARY' <<<"$res" | tr '\n' ' ')"
	elif [ "$n" -lt 23 ]; then
		ko "file-fuzz: $n checks reported, not 23: $(tail -n 3 <<<"$res" | tr '\n' ' ')"
	fi
else
	ko "build-file-fuzz: $(head -n 5 <<<"$log")"
fi

# The CLI, sanitized, on the crafted files file_fuzz kept.
# Every source of tools/pmuscope is the CLI's (tools/Makefile, CLI_SRC).
if log=$(gcc "${san[@]}" -DPMUSCOPE_HAVE_SPE_PERF -o "$out/pmuscope" \
		"$tools"/pmuscope/*.c \
		"$tools"/lib/*.c -ldw -lelf -lm 2>&1); then
	for f in "$out"/crafted-*.spe; do
		[ -e "$f" ] || { ko "cli: no crafted SPE files were kept"; break; }
		for cmd in "spe dump" "spe report"; do
			# shellcheck disable=SC2086
			msg=$("$out/pmuscope" $cmd -i "$f" 2>&1 >/dev/null); rc=$?
			if [ "$rc" -gt 0 ] && [ "$rc" -lt 128 ] && ! grep -qE 'Sanitizer|runtime error' <<<"$msg" &&
			   grep -q 'argc' <<<"$msg"; then
				ok "cli: pmuscope $cmd of ${f##*/} refused (exit $rc): ${msg##*: argc}"
			else
				ko "cli: pmuscope $cmd of ${f##*/}: exit $rc: $(head -n 3 <<<"$msg" | tr '\n' ' ')"
			fi
		done
	done
	# Every reader of a recording: the flat report, the call-graph loader
	# (script, report -g, --folded) and the two profile writers.
	for f in "$out"/crafted-*.data; do
		[ -e "$f" ] || { ko "cli: no crafted record files were kept"; break; }
		for cmd in "report" "script" "report -g" "report --folded" \
			"report --flamegraph $out/x.svg" "report --pprof $out/x.pb.gz"; do
			# shellcheck disable=SC2086
			msg=$("$out/pmuscope" $cmd -i "$f" 2>&1 >/dev/null); rc=$?
			if [ "$rc" -gt 0 ] && [ "$rc" -lt 128 ] &&
			   ! grep -qE 'Sanitizer|runtime error' <<<"$msg"; then
				ok "cli: pmuscope ${cmd%% $out*} of ${f##*/} refused (exit $rc): $msg"
			else
				ko "cli: pmuscope ${cmd%% $out*} of ${f##*/}: exit $rc: $(head -n 3 <<<"$msg" | tr '\n' ' ')"
			fi
		done
	done
else
	ko "build-cli-sanitized: $(head -n 5 <<<"$log")"
fi

# stat's metric expressions (tests/tools/test_metrics.c), sanitized: the
# unit tests, then METRIC_FUZZ_RUNS (default 200000) mutations of the
# table's expressions parsed and evaluated.
if log=$(gcc "${san[@]}" -o "$out/test_metrics" "$PMUSCOPE_TOP/tests/tools/test_metrics.c" \
		"$tools/pmuscope/metric-expr.c" "$tools/pmuscope/metrics.c" \
		"$tools"/lib/*.c -lm 2>&1); then
	for args in "" "--fuzz ${METRIC_FUZZ_RUNS:-200000}"; do
		# shellcheck disable=SC2086
		res=$("$out/test_metrics" $args 2>&1)
		if grep -qE 'Sanitizer|runtime error' <<<"$res"; then
			ko "metric-expr${args:+ $args}: $(grep -m 3 -E 'ERROR|runtime error|SUMMARY' <<<"$res" | tr '\n' ' ')"
		elif grep -q '^[0-9]* passed, 0 failed$' <<<"$res"; then
			ok "metric-expr${args:+ $args}: $(tail -n 1 <<<"$res"), sanitized"
		else
			ko "metric-expr${args:+ $args}: $(grep -m 3 '^FAIL' <<<"$res" | tr '\n' ' ')"
		fi
	done
else
	ko "build-metric-expr-sanitized: $(head -n 5 <<<"$log")"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
