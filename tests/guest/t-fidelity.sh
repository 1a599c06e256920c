# SPDX-License-Identifier: GPL-2.0
# The profile is perf's: /bin/fidelity (a known tree in three tasks: function
# pointers, mutual recursion, 150-frame recursion, a second thread, a
# fork+exec'ed child, a syscall loop) recorded by perf_event_open()
# (pmuscope-peer, the peer) and by `pmuscope record -g -e cycles` in turn, in
# this boot, then both reduced the same way (pmuscope-peer reduce: folded
# stacks) and compared (pmuscope-peer compare: every
# stack with 2% in one is in the other, shares within 4 binomial standard
# deviations plus half a point, per-task sample counts within 5%, the
# kernel's share, no kernel address where perf has none). As root; as
# nobody at perf_event_paranoid 2 (user only) and 1 (its own kernel time);
# at a sample every 100,000 cycles (10 kHz at QEMU's 1 GHz) and every
# 1,000,000 (1 kHz). The direct backend has perf's driver off: its boot
# records with pmuscope only, and the host compares it with the perf boot's
# peer (tests/guest/check/fidelity.py). Documentation/testing.rst, "The
# fidelity test".
. /tests/lib.sh

check "insmod" insmod "$PMUSCOPE_KO"
backend=$(cat "$PMUSCOPE_SYS/backend")
tap_diag "backend $backend, $(uname -r)"
dir=/tmp/fid
mkdir -p $dir
chmod 1777 $dir
ln -sf /bin/fidelity $dir/fid-child
export FID_CHILD=$dir/fid-child
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)

# send FILE: a small text file to the host, for the comparison across
# boots (tests/guest/check/fidelity.py), as t-record.sh's files.
send() {
	send_file "${1##*/}" "$1"
}

# reduce FILE WHO: FILE.data to FILE.fid (pmuscope-peer reduce; the guest's
# pmuscope has no elfutils), sent to the host.
reduce() {
	if pmuscope-peer reduce /bin/fidelity "$1" 2>"$1.err"; then
		send "$1.fid"
		return 0
	fi
	tap_not_ok "$tag: $2's recording reduced"
	tap_diag "$(cat "$1.err")"
	return 1
}

# fid TAG USER PARANOID PERIOD SCALE: the peer's recording where perf has
# a PMU (not on the direct backend, which has perf's driver off: there the
# host compares with a53-perf-exact's), then pmuscope's.
fid() {
	tag="$backend $1"
	as=
	[ "$2" = root ] || as="runas $2"
	echo "$3" >/proc/sys/kernel/perf_event_paranoid
	f=$dir/$1
	rm -f "$f"-perf.* "$f"-ours.*
	peer=
	if [ "$backend" = perf ]; then
		if $as pmuscope-peer record -c "$4" -o "$f-perf.data" -- /bin/fidelity "$5" \
			>"$f-perf.out" 2>&1; then
			tap_diag "$tag: $(tail -n 1 "$f-perf.out")"
			reduce "$f-perf" perf_event_open && peer=1
		else
			tap_not_ok "$tag: perf_event_open() records /bin/fidelity"
			tap_diag "$(cat "$f-perf.out")"
		fi
	fi
	if ! $as pmuscope record -g -e cycles -c "$4" -o "$f-ours.data" -- /bin/fidelity "$5" \
		>"$f-ours.out" 2>&1; then
		tap_not_ok "$tag: pmuscope record -g records /bin/fidelity"
		tap_diag "$(cat "$f-ours.out")"
		return
	fi
	reduce "$f-ours" pmuscope || return
	[ -n "$peer" ] && run_test pmuscope-peer compare "$tag" "$f-perf.fid" "$f-ours.fid"
}

fid root-10k root "$paranoid" 100000 1
fid root-1k root "$paranoid" 1000000 4
fid nobody-p2 65534 2 100000 1
fid nobody-p1 65534 1 100000 1
echo "$paranoid" >/proc/sys/kernel/perf_event_paranoid
check "rmmod" rmmod pmuscope
