#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test kernel under qemu-system-aarch64 (machine virt) and save the
# console. Returns QEMU's status (124 on timeout).
# Usage: run-guest.sh --cpu cortex-a53|max --plan PLAN|--tests LIST --log FILE
#                     [--out DIR]   (the guest's /out, virtio-9p: the files it
#                                   sends, tests/guest/lib.sh send_file)
#                     [--smp N] [--icount SHIFT] [--timeout S] [--no-blacklist]
#                     [--initrd FILE] [--append "..."] [--kver 6.1]
#                     [--el2]   (virtualization=on: Linux at EL2, VHE on max)
#                     [--kernel test|debug|bench] [--mem SIZE]
#                     [--kernel-image FILE]   (boot this arm64 Image or vmlinuz
#                                             as it is, e.g. Debian's: scripts/debian-kernel.sh)
#                     [--plugin "LIB,ARG=..."]   (a QEMU TCG plugin: scripts/profile.sh)
#                     [--hostfwd PORT]   (virtio-net behind QEMU's user-mode network,
#                                        restrict=on: no way out; host 127.0.0.1:PORT
#                                        forwarded to the guest's port 9750)
#        run-guest.sh --interactive [--cpu ...]   (busybox shell on the console)
# PMUSCOPE_QEMU: another qemu-system-aarch64 (default: the one on PATH,
# Debian 12's 7.2), e.g. bookworm-backports' 10.0 unpacked aside.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cpu=cortex-a53 smp=2 plan= tests= out= log= icount= timeout=300 append= interactive= machine=virt mem=512M plugin=
hostfwd= image= kdir=
blacklist="initcall_blacklist=armv8_pmu_driver_init"
initrd=$PMUSCOPE_TOP/build/initramfs.cpio
while [ $# -gt 0 ]; do
	case "$1" in
	--cpu) cpu=$2; shift ;;
	--smp) smp=$2; shift ;;
	--plan) plan=$2; shift ;;
	# NAME:BUDGET,... (tests/run.py): tests/guest/t-NAME.sh, each stopped
	# past BUDGET seconds of guest time.
	--tests) tests=$2; shift ;;
	--out) out=$2; shift ;;
	--log) log=$2; shift ;;
	--icount) icount=$2; shift ;;
	--el2) machine=virt,virtualization=on ;;
	--timeout) timeout=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--append) append=$2; shift ;;
	--no-blacklist) blacklist= ;;
	--kver) export PMUSCOPE_KVER=$2; shift ;;
	# The kernel of scripts/kernel/pmuscope-<name>.config: test (default),
	# debug (the reliability gate's: KASAN, kmemleak, fault injection, GCOV)
	# or bench.
	--kernel) export PMUSCOPE_KFRAG=$PMUSCOPE_TOP/scripts/kernel/pmuscope-$2.config; shift ;;
	--kernel-image) image=$2; shift ;;
	--mem) mem=$2; shift ;;
	--plugin) plugin=$2; shift ;;
	--hostfwd) hostfwd=$2; shift ;;
	--interactive) interactive=1; plan=shell ;;
	*) pmuscope_die "run-guest.sh: unknown option $1" ;;
	esac
	shift
done
[ -n "$log" ] || [ -n "$interactive" ] || pmuscope_die "run-guest.sh: --log is required"
[ -n "$plan" ] || [ -n "$tests" ] || pmuscope_die "run-guest.sh: --plan or --tests is required"

if [ -n "$image" ]; then
	[ -f "$image" ] || pmuscope_die "run-guest.sh: no kernel image $image"
else
	kdir=$("$PMUSCOPE_TOP/scripts/build-kernel.sh")
	image=$kdir/arch/arm64/boot/Image
fi
# slub_debug (poison, red zones, sanity checks on every slab object) is
# part of the test kernel's debugging, like lockdep: only the test kernel
# (scripts/kernel/pmuscope-test.config, also for linux 6.1) boots with it.
# make bench measures what a production kernel costs: its kernel
# (PMUSCOPE_KFRAG=pmuscope-bench.config) has no SLUB debugging and no
# slub_debug either.
slub_debug=
# A kernel image of --kernel-image boots with its own defaults.
if [ -n "$kdir" ] && [ "$(basename "$PMUSCOPE_KFRAG")" = pmuscope-test.config ]; then
	slub_debug=slub_debug=FZP
fi
args=(-M "$machine" -cpu "$cpu" -smp "$smp" -m "$mem" -nographic -no-reboot
      -monitor none -serial stdio
      -kernel "$image" -initrd "$initrd"
      -append "console=ttyAMA0 panic=-1 loglevel=7 $slub_debug $blacklist ${plan:+pmuscope_plan=$plan} ${tests:+pmuscope_tests=$tests} ${out:+pmuscope_out=1} pmuscope_profile=$cpu ${icount:+pmuscope_icount=$icount} $append")
[ -z "$icount" ] || args+=(-icount "shift=$icount,sleep=off")
[ -z "$plugin" ] || args+=(-plugin "$plugin")
if [ -n "$out" ]; then
	mkdir -p "$out"
	args+=(-fsdev "local,id=pmuscope_out,path=$out,security_model=none"
	       -device virtio-9p-device,fsdev=pmuscope_out,mount_tag=pmuscope_out)
fi
if [ -n "$hostfwd" ]; then
	args+=(-netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$hostfwd-:9750"
	       -device virtio-net-device,netdev=n0)
else
	args+=(-nic none)
fi

qemu=${PMUSCOPE_QEMU:-qemu-system-aarch64}
if [ -n "$interactive" ]; then
	exec "$qemu" "${args[@]}"
fi
status=0
timeout --foreground -k 5 "$timeout" "$qemu" "${args[@]}" \
	</dev/null >"$log" 2>&1 || status=$?
exit "$status"
