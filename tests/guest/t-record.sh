# SPDX-License-Identifier: GPL-2.0
# pmuscope record: a sampling profile of /bin/hotloop-static (static,
# non-PIE) and /bin/hotloop-pie (PIE, dynamically linked) every 100000
# cycles. The recordings go to the host (send_file: the boot's output
# folder), where
# tests/guest/check/report.py runs pmuscope report (elfutils) on them with
# --symfs build/symfs and checks where the samples fell.
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
for v in static pie; do
	f=/tmp/hotloop-$v.data
	check "pmuscope record -e cycles -c 100000 -- hotloop-$v" \
		pmuscope record -e cycles -c 100000 -o $f -- /bin/hotloop-$v 20000000
	[ -s $f ] || continue
	send_file hotloop-$v.data $f
done
# This pmuscope is static for arm64, without elfutils: report says so.
pmuscope report -i /tmp/hotloop-static.data >/tmp/report.out 2>&1
check_eq "pmuscope report without elfutils: exit status" "$?" 3
check "rmmod" rmmod pmuscope
