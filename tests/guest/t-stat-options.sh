# SPDX-License-Identifier: GPL-2.0
# perf stat's options of pmuscope stat under -icount shift=0, where a
# known loop's EL0 instructions are exact: -r 5's spread is 0, -p counts
# a running process exactly (an N-difference) and stops when it exits,
# -x's rows split into perf's fields, -i leaves the children out, -D
# starts late; on 2 vCPUs (plan wrap), -A's rows sum to the aggregate.
# Runs without address space randomization (norandom), as
# t-cli-exact.sh, so libc's string functions repeat their counts.
. /tests/lib.sh

ncpus=$(grep -c ^processor /proc/cpuinfo)
check "insmod" insmod "$PMUSCOPE_KO"

# Field $2 (1-based) of the -x , row of event $1 in file $3.
field() { awk -F, -v e="$1" -v f="$2" '$3 == e { print $f; exit }' "$3"; }

# Three runs of $1, a function given the run's number that sets two
# counts, v1 and v2: lo1 and lo2, the least of each (what else runs
# only adds to a count).
least_of_3() {
	lo1='' lo2=''
	for run in 1 2 3; do
		"$1" "$run"
		if [ -z "$lo1" ] || [ "$v1" -lt "$lo1" ]; then lo1=$v1; fi
		if [ -z "$lo2" ] || [ "$v2" -lt "$lo2" ]; then lo2=$v2; fi
	done
}

if [ "$ncpus" = 1 ]; then
	# -r 5: five runs of one loop, each the same count: no spread. The
	# table prints none (as perf, for 0), -x prints 0.00%.
	norandom pmuscope stat -r 5 -x , -e instructions:u -- /bin/loop 1000000 >/tmp/r.csv
	sed 's/^/pmuscope-stat: /' /tmp/r.csv
	check_eq "stat -r 5 -x: the spread of instructions:u" \
		"$(field instructions:u 4 /tmp/r.csv)" "0.00%"
	mean=$(field instructions:u 1 /tmp/r.csv)
	check "stat -r 5: mean of instructions:u above 2 x 1000000 ($mean)" \
		test "$mean" -ge 2000000
	# The note's -r 5 -d table (QEMU counts what it implements).
	norandom pmuscope stat -r 5 -d -- /bin/loop 1000000 >/tmp/r.txt
	sed 's/^/pmuscope-stat: /' /tmp/r.txt
	check "stat -r 5 -d: the table says 5 runs" grep -q "(5 runs):" /tmp/r.txt
	check "stat -r 5 -d: an elapsed line with its spread" \
		grep -q "seconds time elapsed" /tmp/r.txt

	# -x: perf's fields, value, unit, event, run time, run %, metric, unit.
	pmuscope stat -x , -e cycles:u,instructions:u -- /bin/loop 1000000 >/tmp/x.csv
	sed 's/^/pmuscope-stat: /' /tmp/x.csv
	check_eq "stat -x ,: rows" "$(wc -l </tmp/x.csv)" 2
	check_eq "stat -x ,: fields of each row" \
		"$(awk -F, '{ print NF }' /tmp/x.csv | sort -u)" 7
	check "stat -x ,: value, unit, event, run ns, run %" \
		awk -F, '$1 !~ /^[0-9]+$/ || $2 != "" || $4 !~ /^[0-9]+$/ || $5 != "100.00" { exit 1 }' /tmp/x.csv
	check_eq "stat -x ,: events" "$(cut -d, -f3 /tmp/x.csv | tr '\n' ' ')" "cycles:u instructions:u "
	check_eq "stat -x ,: IPC's unit beside instructions:u" \
		"$(field instructions:u 7 /tmp/x.csv)" "insn per cycle"

	# -i: the command's children are not counted (sh forks the loop).
	pmuscope stat -x , -e instructions:u -- sh -c '/bin/loop 1000000; true' >/tmp/i0.csv
	pmuscope stat -i -x , -e instructions:u -- sh -c '/bin/loop 1000000; true' >/tmp/i1.csv
	a=$(field instructions:u 1 /tmp/i0.csv)
	b=$(field instructions:u 1 /tmp/i1.csv)
	check "stat: sh and its loop child counted ($a >= 2000000)" test "$a" -ge 2000000
	check "stat -i: sh alone, not its loop child ($b < 1000000)" test "$b" -lt 1000000

	# -D: a command that ends within the delay is never counted; one that
	# runs on past it, in part.
	pmuscope stat -D 60000 -x , -e instructions:u -- /bin/loop 1000 >/tmp/d0.csv
	check_eq "stat -D 60000 of a short loop" "$(field instructions:u 1 /tmp/d0.csv)" \
		"<not counted>"
	pmuscope stat -D 20 -x , -e instructions:u -- /bin/loop 100000000 >/tmp/d1.csv
	c=$(field instructions:u 1 /tmp/d1.csv)
	check "stat -D 20 of 2 x 10^8 instructions: a part ($c)" \
		test "$c" -gt 0 -a "$c" -lt 200000000

	# -p: a process stopped before it runs the loop; pmuscope attaches
	# (it is in ppoll(), syscall 73, once counting), then the process
	# goes on and execs the loop. Its EL0 instructions from the attach
	# to its exit: a fixed path and the loop, so two sizes of loop differ
	# by 2 instructions an iteration. pmuscope ends when it does.
	attach_loop() {
		norandom sh -c 'kill -STOP $$; exec /bin/loop '"$1" &
		pid=$!
		until [ "$(cut -d' ' -f3 /proc/$pid/stat)" = T ]; do :; done
		pmuscope stat -x , -e instructions:u -p $pid >/tmp/p.csv 2>/tmp/p.err &
		spid=$!
		until [ ! -d /proc/$spid ] || grep -q '^73 ' /proc/$spid/syscall 2>/dev/null; do
			:
		done
		kill -CONT $pid
		wait $pid
		wait $spid
		field instructions:u 1 /tmp/p.csv
	}
	n1=1000000
	n2=9000000
	p_run() {
		v1=$(attach_loop "$n1")
		v2=$(attach_loop "$n2")
		tap_diag "stat -p, run $1: loop $n1 -> $v1, loop $n2 -> $v2"
		if [ -s /tmp/p.err ]; then tap_diag "$(cat /tmp/p.err)"; fi
	}
	least_of_3 p_run
	c1=$lo1 c2=$lo2
	check_eq "stat -p instructions:u: difference of two loops = 2 x ($n2 - $n1)" \
		"$((c2 - c1))" "$((2 * (n2 - n1)))"
	check "stat -p: fixed overhead below 100000 instructions ($((c1 - 2 * n1)))" \
		test "$((c1 - 2 * n1))" -lt 100000
fi

if [ "$ncpus" -ge 2 ]; then
	# -A: a row a CPU; their sum is what the aggregate counts, up to the
	# other CPUs' EL0 noise between two runs (the least of three).
	a_run() {
		norandom pmuscope stat -a -A -x , -e instructions:u -- /bin/loop 1000000 >/tmp/a.csv
		norandom pmuscope stat -a -x , -e instructions:u -- /bin/loop 1000000 >/tmp/g.csv
		v1=$(awk -F, '$1 ~ /^CPU[0-9]+$/ && $4 == "instructions:u" { s += $2 } END { print s }' /tmp/a.csv)
		v2=$(field instructions:u 1 /tmp/g.csv)
		tap_diag "stat -a -A, run $1: $(tr '\n' ' ' </tmp/a.csv)-> $v1; aggregate $v2"
	}
	least_of_3 a_run
	amin=$lo1 gmin=$lo2
	check_eq "stat -a -A: rows, one a CPU" \
		"$(cut -d, -f1 /tmp/a.csv | tr '\n' ' ')" "$(seq 0 $((ncpus - 1)) | sed 's/^/CPU/' | tr '\n' ' ')"
	check "stat -a -A: the rows' sum ($amin) is the aggregate ($gmin) within 1000" \
		test "$((amin - gmin))" -le 1000 -a "$((gmin - amin))" -le 1000
	check "stat -a -A: the sum counts the loop ($amin >= 2000000)" test "$amin" -ge 2000000
fi
check "rmmod" rmmod pmuscope
