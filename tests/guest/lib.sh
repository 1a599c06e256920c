# SPDX-License-Identifier: GPL-2.0
# TAP helpers of the in-guest tests; sourced by tests/guest/t-*.sh.
# Every result line starts with "pmuscope-tap: " so that the host can tell
# it from kernel messages on the same console.

PMUSCOPE_TEST=${PMUSCOPE_TEST:-$(basename "$0" .sh)}
PMUSCOPE_KO=/lib/modules/pmuscope.ko
PMUSCOPE_SYS=/sys/kernel/pmuscope

# Emulated boots (kernel argument pmuscope_emu=<profile>): every test loads
# pmuscope_emu.ko, the driver against the register model with the profile's
# extra units, in place of pmuscope.ko. "insmod $PMUSCOPE_KO ..." and
# "rmmod pmuscope" in the tests keep their meaning.
PMUSCOPE_EMU=${pmuscope_emu:-}
PMUSCOPE_MOD=pmuscope			# /sys/module/$PMUSCOPE_MOD
if [ -n "$PMUSCOPE_EMU" ]; then
	PMUSCOPE_KO=/lib/modules/pmuscope_emu.ko
	PMUSCOPE_MOD=pmuscope_emu
	insmod() {
		case "$1" in
		*/pmuscope_emu.ko) command insmod "$@" profile="$PMUSCOPE_EMU" ;;
		*) command insmod "$@" ;;
		esac
	}
	rmmod() {
		if [ "$1" = pmuscope ]; then
			shift
			set -- pmuscope_emu "$@"
		fi
		command rmmod "$@"
	}
fi

# Up to Linux 6.1 a task's perf context keeps pointing at the PMU it was
# made for after the PMU's last event (6.2 reworked them): true there.
pmuscope_task_ctx_kernel() {
	case "$(uname -r)" in
	5.* | 6.0 | 6.0.* | 6.0-* | 6.1 | 6.1.* | 6.1-*) return 0 ;;
	*) return 1 ;;
	esac
}

# There, with the direct backend, pmuscope pins itself while a task it
# counted may still have a perf context of its PMU, and lets go at its
# sweep after that task's end, a second later at most, when no task event
# of its own went since (Documentation/pmuscope.rst, "Unloading on Linux
# 6.1"): a program that closed its session and then exited. "rmmod
# pmuscope" waits up to 3 s for the module's references to drop to 0,
# then unloads (or fails as rmmod does). Not on later kernels: nothing
# pins there.
if pmuscope_task_ctx_kernel; then
	rmmod() {
		if [ "$1" = pmuscope ]; then
			shift
			set -- "$PMUSCOPE_MOD" "$@"
			_n=0
			while [ -r /sys/module/$PMUSCOPE_MOD/refcnt ] &&
				[ "$(cat /sys/module/$PMUSCOPE_MOD/refcnt)" != 0 ] && [ $_n -lt 30 ]; do
				sleep 0.1
				_n=$((_n + 1))
			done
		fi
		command rmmod "$@"
	}
fi

# A second channel for failures: the script's exit status is the number of
# its failed checks and test programs (init reports it, and the host fails
# a script whose status is not 0), so that a result line a kernel message
# garbled on the shared console cannot hide a failure. Checks made in a
# subshell or pipeline do not count here; none are.
_pmuscope_fails=0
trap '[ "$_pmuscope_fails" -gt 255 ] && _pmuscope_fails=255; exit $_pmuscope_fails' EXIT

# send_file NAME FILE [PREFIX]: FILE to the host as NAME (may hold '/'),
# for the host's checks (tests/guest/check/guestfiles.py). Into the
# boot's output folder (/out, virtio-9p: run-guest.sh --out) where init
# mounted it, the console saying only "PREFIX sent NAME MD5"; else over
# the console, base64 between "PREFIX begin NAME MD5" and "PREFIX end
# NAME" (Debian's kernels have 9p as a module only: small files there).
send_file() {
	_p=${3:-pmuscope-file:}
	_m=$(md5sum <"$2" | cut -d' ' -f1)
	if [ -n "${PMUSCOPE_OUT:-}" ]; then
		mkdir -p "$PMUSCOPE_OUT/$(dirname "$1")" && cp "$2" "$PMUSCOPE_OUT/$1" &&
			echo "$_p sent $1 $_m" && return 0
	fi
	echo "$_p begin $1 $_m"
	base64 <"$2" | sed "s/^/$_p /"
	echo "$_p end $1"
}

tap_ok() { echo "pmuscope-tap: ok - [$PMUSCOPE_TEST] $*"; }
tap_not_ok() {
	_pmuscope_fails=$((_pmuscope_fails + 1))
	echo "pmuscope-tap: not ok - [$PMUSCOPE_TEST] $*"
}
tap_diag() { echo "pmuscope-tap: # $*"; }

# Notes that come before the messages checked here: pmuscope_emu.ko's
# "EMULATED" banner, and the direct backend's "counting all CPUs" (it
# cannot count the command as a task).
unbanner() {
	printf '%s\n' "$1" | grep -v -e '^pmuscope: EMULATED CPU' \
		-e '^pmuscope: the driver cannot count a task'
}

# run_test PROGRAM ARGS...: a test program that prints its own TAP lines
# and exits non-zero when one of them failed.
run_test() {
	"$@" || _pmuscope_fails=$((_pmuscope_fails + 1))
}

# check DESCRIPTION COMMAND...: ok when COMMAND succeeds.
check() {
	desc=$1
	shift
	if _check_out=$("$@" 2>&1); then
		tap_ok "$desc"
	else
		tap_not_ok "$desc"
		[ -n "$_check_out" ] && tap_diag "$_check_out"
	fi
}

# check_fails DESCRIPTION COMMAND...: ok when COMMAND fails.
check_fails() {
	desc=$1
	shift
	if "$@" >/dev/null 2>&1; then tap_not_ok "$desc (unexpectedly succeeded)"; else tap_ok "$desc"; fi
}

# check_eq DESCRIPTION GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1 = $3"
	else
		tap_not_ok "$1: got '$2', want '$3'"
	fi
}

# An event cpu0 does not implement, as "NAME NUMBER": QEMU implements few
# events, a Cortex-A53 (PMCEID0 0x67FFBFFF) has L1D_CACHE_REFILL but not
# BR_RETURN_RETIRED.
unimplemented_event() {
	for e in "L1D_CACHE_REFILL 0x0003" "BR_RETURN_RETIRED 0x000e" \
		"INST_SPEC 0x001b" "STALL_SLOT 0x003f" "SAMPLE_POP 0x4000"; do
		if [ ! -e "$PMUSCOPE_SYS/cpu0/events/${e%% *}" ]; then
			echo "$e"
			return
		fi
	done
}

online_cpus() {
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		n=${c##*/cpu}
		if [ ! -f "$c/online" ] || [ "$(cat "$c/online")" = 1 ]; then
			echo "$n"
		fi
	done
}

set_online() {
	echo "$2" >"/sys/devices/system/cpu/cpu$1/online"
}
