# SPDX-License-Identifier: GPL-2.0
# pmuscope-fuzz: random ioctls (structs from the uapi header, errnos checked
# against Documentation/ioctl.rst) from 2 processes of 2 threads each, and
# random writes to every writable sysfs file, while CPU 1 goes offline and
# online; first as root, then as nobody. Afterwards a session still counts
# exactly and the module unloads (nothing held). Before all that, on the
# freshly loaded module, sequences: one session on CPU 0 doing random
# STREAM/ENABLE/DISABLE/SWINC/RESET steps, a READ after each (no count goes
# down, LOST only when something was lost).
# FUZZ_IOCTLS (kernel command line, e.g. --append FUZZ_IOCTLS=1000000):
# ioctls of the privileged phase, default 200000; FUZZ_SEQ: steps of the
# sequences, default 2000; FUZZ_SEED: the seed.
. /tests/lib.sh

n=${FUZZ_IOCTLS:-200000}
seed=${FUZZ_SEED:+-s $FUZZ_SEED}
check "insmod" insmod "$PMUSCOPE_KO"

# First after the load: the short sequence failed on the first try.
# shellcheck disable=SC2086
run_test pmuscope-fuzz --sequence "${FUZZ_SEQ:-2000}" $seed

# CPU 1 offline and online in a loop until /tmp/fuzz-stop appears.
rm -f /tmp/fuzz-stop /tmp/fuzz-hotplug
hotplug=
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	(
		cycles=0
		while [ ! -e /tmp/fuzz-stop ]; do
			echo 0 >/sys/devices/system/cpu/cpu1/online 2>/dev/null
			sleep 0.1
			echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null &&
				cycles=$((cycles + 1))
			sleep 0.1
		done
		echo "$cycles" >/tmp/fuzz-hotplug
	) &
	hotplug=$!
else
	tap_diag "no cpu1 to take offline: fuzzing without hotplug"
fi

# shellcheck disable=SC2086
run_test pmuscope-fuzz -n "$n" -p 2 -t 2 --sysfs-writes 3000 $seed
# shellcheck disable=SC2086
run_test pmuscope-fuzz -n $((n / 4)) -p 2 -t 2 --unpriv --sysfs-writes 300 $seed

if [ -n "$hotplug" ]; then
	touch /tmp/fuzz-stop
	wait "$hotplug"
	tap_diag "cpu1 went offline and online $(cat /tmp/fuzz-hotplug) times during the run"
	set_online 1 1 2>/dev/null
	check_eq "cpu1 online again" "$(cat /sys/devices/system/cpu/cpu1/online)" 1
fi
check "rmmod after fuzzing (nothing held)" rmmod pmuscope
check "no pmuscope left loaded" sh -c "! grep -q '^pmuscope ' /proc/modules"
