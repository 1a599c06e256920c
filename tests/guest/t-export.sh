# SPDX-License-Identifier: GPL-2.0
# pmuscope export --listen on the guest's virtio-net, behind QEMU's
# user-mode network (restrict=on) with the host's 127.0.0.1:PORT forwarded
# to port 9750: tests/guest/check/export-e2e.py runs a private Prometheus on the host
# that scrapes it meanwhile, and compares what it stored with what the
# exporter logged here (every value it served, per scrape).
. /tests/lib.sh

check "loopback up" ifconfig lo 127.0.0.1 up
check "eth0 (virtio-net) up at 10.0.2.15" ifconfig eth0 10.0.2.15 netmask 255.255.255.0 up
check "insmod" insmod "$PMUSCOPE_KO"
rm -f /tmp/export.log
pmuscope export --listen 0.0.0.0:9750 --user 65534:65534 \
	--log /tmp/export.log --log-values --duration 25 &
exp=$!
# It says "serving URL" once it listens and has dropped root: wait for
# that (a 3 s sleep stood in for it), or for it to have ended.
while ! grep -q 'serving http' /tmp/export.log 2>/dev/null && kill -0 $exp 2>/dev/null; do
	sleep 0.05
done
check "the exporter says it is serving" grep -q 'serving http' /tmp/export.log
check "the exporter answers on the guest too" \
	wget -q -O /tmp/metrics.txt http://127.0.0.1:9750/metrics
sed 's/^/pmuscope-export-body: /' /tmp/metrics.txt
check "it runs as nobody" sh -c "grep -q '^Uid:[[:space:]]*65534' /proc/$exp/status"
wait $exp
check_eq "pmuscope export --duration 25 ends cleanly" "$?" 0
sed 's/^/pmuscope-export-log: /' /tmp/export.log
check "rmmod" rmmod pmuscope
