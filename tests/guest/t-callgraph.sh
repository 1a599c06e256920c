# SPDX-License-Identifier: GPL-2.0
# pmuscope record -g of /bin/calltree-static (static, non-PIE) and
# /bin/calltree-pie (PIE, dynamically linked): a known call tree sampled
# per task with call chains while a CPU hog (hotloop) competes for the
# CPUs, on whichever backend this boot has (direct, or perf's driver).
# The recordings go to the host (send_file), as t-record.sh's do,
# where tests/guest/check/callgraph.py checks the chains, that no sample is
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
	send_file calltree-$v-$backend.data $f
done
# Attached to a running process (-p): its samples, with chains, until it
# ends. The program waits for /tmp/calltree-go before its work, and the
# test creates it once record has attached (record creates its file after
# the attach): a program that ended before the attach is no failure of
# record's. It is attached once it has exec'd (its comm), with its maps.
rm -f /tmp/calltree-go
/bin/calltree-static 10 /tmp/calltree-go >/dev/null &
pid=$!
f=/tmp/calltree-attach-$backend.data
rm -f $f
n=0
while [ "$(cat /proc/$pid/comm 2>/dev/null)" != calltree-static ] && [ $n -lt 1200 ]; do
	sleep 0.05
	n=$((n + 1))
done
pmuscope record -g -e cycles -c 100000 -o $f -p $pid >/tmp/attach.out 2>&1 &
rec=$!
n=0
while [ ! -s $f ] && kill -0 $rec 2>/dev/null && [ $n -lt 1200 ]; do
	sleep 0.05
	n=$((n + 1))
done
touch /tmp/calltree-go
wait $rec
check_eq "pmuscope record -g -c 100000 -p PID of calltree-static ($backend, hog beside)" \
	"$?" 0
sed 's/^/pmuscope-tap: # /' /tmp/attach.out
wait $pid
if [ -s $f ]; then
	send_file calltree-attach-$backend.data $f
fi
kill $hog
wait $hog 2>/dev/null
check "rmmod" rmmod pmuscope
