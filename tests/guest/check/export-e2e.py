#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""pmuscope export end to end, with real components: the AM62L-like guest
(plan export) runs `pmuscope export --listen` on its virtio-net behind
QEMU's user-mode network (restrict=on: the guest cannot reach out), the
host's 127.0.0.1:PORT forwarded to it; a private Prometheus (Debian's
package), listening on 127.0.0.1 only, scrapes it every second meanwhile.
Afterwards every sample Prometheus stored, read back through its HTTP API,
must equal exactly the value the exporter logged for that scrape (the
stored pmuscope_exporter_scrapes_total says which scrape), and promtool
must accept a body the guest served. Everything bounded in time and
stopped at the end. One line per check, "PASS name" / "FAIL name", then
"N passed, N failed".

Usage: tests/guest/check/export-e2e.py INITRD LOG
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
results = []


def check(ok, name):
    results.append(bool(ok))
    print(("PASS " if ok else "FAIL ") + name, flush=True)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SAMPLE = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)\Z")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def series_key(name, labels):
    pairs = tuple(sorted((k, v.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\"))
                         for k, v in LABEL.findall(labels or "")))
    return name, pairs


def main():
    initrd, log = sys.argv[1], sys.argv[2]
    prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if not check(prometheus and promtool, "prometheus and promtool installed (scripts/setup.sh)"):
        return
    tmp = tempfile.mkdtemp(prefix="pmuscope-e2e-")
    hport, pport = free_port(), free_port()
    cfg = os.path.join(tmp, "prometheus.yml")
    with open(cfg, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                "scrape_configs:\n  - job_name: pmuscope\n    static_configs:\n"
                f"      - targets: ['127.0.0.1:{hport}']\n")
    out = open(os.path.join(tmp, "prometheus.out"), "w")
    prom = subprocess.Popen([prometheus, f"--config.file={cfg}",
                             f"--storage.tsdb.path={tmp}/tsdb",
                             f"--web.listen-address=127.0.0.1:{pport}"],
                            stdout=out, stderr=out, stdin=subprocess.DEVNULL)
    try:
        guest = subprocess.run([os.path.join(TOP, "scripts/run-guest.sh"), "--cpu", "cortex-a53",
                                "--smp", "2", "--tests", "export:120", "--hostfwd", str(hport),
                                "--initrd", initrd, "--log", log, "--timeout", "180"],
                               stdin=subprocess.DEVNULL)
        check(guest.returncode == 0, f"guest: QEMU exit {guest.returncode}")

        def query(q, **kw):
            url = (f"http://127.0.0.1:{pport}/api/v1/query?" +
                   urllib.parse.urlencode({"query": q, **kw}))
            with urllib.request.urlopen(url, timeout=10) as r:
                return json.load(r)["data"]["result"]

        stored = {}
        for _ in range(20):
            try:
                res = query('{__name__=~"pmuscope_.*"}[10m]')
                break
            except OSError:
                time.sleep(0.5)
        else:
            res = []
        for s in res:
            labels = dict(s["metric"])
            name = labels.pop("__name__")
            job, inst = labels.pop("job", None), labels.pop("instance", None)
            assert (job, inst) == ("pmuscope", f"127.0.0.1:{hport}"), (job, inst)
            key = (name, tuple(sorted(labels.items())))
            for t, v in s["values"]:
                stored.setdefault(t, {})[key] = float(v)
    finally:
        prom.send_signal(signal.SIGTERM)
        try:
            prom.wait(timeout=30)
        except subprocess.TimeoutExpired:
            prom.kill()
            prom.wait()
        out.close()
    check(prom.returncode is not None, f"Prometheus stopped (exit {prom.returncode})")

    with open(log, errors="replace") as f:
        console = f.read()
    served = {}		# scrapes_total value served -> {series: value}
    for m in re.finditer(r"^pmuscope-export-log: pmuscope export: scrape (\d+) value: (.*)$",
                         console, re.M):
        name, labels, value = SAMPLE.match(m[2].rstrip("\r")).groups()
        served.setdefault(int(m[1]), {})[series_key(name, labels)] = float(value)
    by_count = {}
    for body in served.values():
        n = body.get(("pmuscope_exporter_scrapes_total", ()))
        if n is not None:
            by_count[n] = body
    check(len(by_count) >= 5, f"the exporter logged what it served in {len(by_count)} scrapes (>= 5)")
    scrape_key = ("pmuscope_exporter_scrapes_total", ())
    samples = bad = 0
    first_bad = ""
    for t in sorted(stored):
        n = stored[t].get(scrape_key)
        body = by_count.get(n)
        if body is None:
            bad += 1
            first_bad = first_bad or f"t={t}: scrape {n} not in the exporter's log"
            continue
        for key, v in stored[t].items():
            samples += 1
            if body.get(key) != v:
                bad += 1
                first_bad = first_bad or f"t={t} {key}: stored {v}, served {body.get(key)}"
    check(len(stored) >= 5, f"Prometheus stored {len(stored)} scrapes of the guest (>= 5)")
    check(samples > 0 and not bad,
          f"every sample Prometheus stored ({samples}) is the value the exporter served "
          f"in that scrape{': ' + first_bad if bad else ''}")
    families = {k[0] for body in by_count.values() for k in body}
    check("pmuscope_events_total" in families and
          "pmuscope_event_running_seconds_total" in families,
          f"the counts and their times are exported ({len(families)} families)")

    body = "".join(m[1] + "\n" for m in re.finditer(r"^pmuscope-export-body: (.*?)\r?$",
                                                    console, re.M))
    path = os.path.join(tmp, "metrics.txt")
    with open(path, "w") as f:
        f.write(body)
    r = subprocess.run([promtool, "check", "metrics"], stdin=open(path), capture_output=True,
                       text=True, timeout=60)
    check(body and r.returncode == 0 and not r.stdout.strip(),
          f"promtool check metrics accepts the body served in the guest "
          f"({len(body.splitlines())} lines){': ' + (r.stdout + r.stderr).strip() if r.returncode or r.stdout.strip() else ''}")
    shutil.rmtree(tmp, ignore_errors=True)


def console(log):
    """The guest's own results (scripts/pmuscope_console.py)."""
    sys.path.insert(0, os.path.join(TOP, "scripts"))
    import pmuscope_console
    with open(log, errors="replace") as f:
        boot = pmuscope_console.parse(f.read())
    for line in pmuscope_console.report(boot, "export"):
        check(line.startswith(("PASS", "SKIP")), line.split(" ", 1)[1])


if __name__ == "__main__":
    try:
        main()
        if len(sys.argv) == 3 and os.path.exists(sys.argv[2]):
            console(sys.argv[2])
    finally:
        print(f"{results.count(True)} passed, {results.count(False)} failed")
    sys.exit(0 if results and all(results) else 1)
