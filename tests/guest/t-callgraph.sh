# SPDX-License-Identifier: GPL-2.0
# pmuscope record -g of /bin/calltree-static (static, non-PIE) and
# /bin/calltree-pie (PIE, dynamically linked): a known call tree sampled
# per task with call chains while a CPU hog (hotloop) competes for the
# CPUs, on whichever backend this boot has (direct, or perf's driver).
# The recordings go to the host over the console, as t-record.sh's do,
# where scripts/callgraph-check.py checks the chains, that no sample is
# the hog's, and every output format (report -g, script, --folded,
# --flamegraph, --pprof) against its real consumer.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
backend=$(cat "$PMUSCOPE_SYS/backend")
tap_diag "backend $backend"
/bin/hotloop 4000000000 &
hog=$!
for v in static pie; do
	f=/tmp/calltree-$v-$backend.data
	check "pmuscope record -g -c 100000 -- calltree-$v ($backend, hog beside)" \
		pmuscope record -g -e cycles -c 100000 -o $f -- /bin/calltree-$v 10
	[ -s $f ] || continue
	echo "pmuscope-file: begin calltree-$v-$backend.data $(md5sum <$f | cut -d' ' -f1)"
	base64 <$f | sed 's/^/pmuscope-file: /'
	echo "pmuscope-file: end calltree-$v-$backend.data"
done
# Attached to a running process (-p): its samples, with chains, until it ends.
/bin/calltree-static 10 >/dev/null &
pid=$!
f=/tmp/calltree-attach-$backend.data
check "pmuscope record -g -c 100000 -p PID of calltree-static ($backend, hog beside)" \
	pmuscope record -g -e cycles -c 100000 -o $f -p $pid
wait $pid
if [ -s $f ]; then
	echo "pmuscope-file: begin calltree-attach-$backend.data $(md5sum <$f | cut -d' ' -f1)"
	base64 <$f | sed 's/^/pmuscope-file: /'
	echo "pmuscope-file: end calltree-attach-$backend.data"
fi
kill $hog
wait $hog 2>/dev/null
check "rmmod" rmmod pmuscope
