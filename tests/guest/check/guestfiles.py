# SPDX-License-Identifier: GPL-2.0
"""The files a guest sent to the host (tests/guest/lib.sh send_file).

A guest booted with run-guest.sh --out DIR writes them into DIR through
virtio-9p (the test and debug kernels), and the console says only
"PREFIX sent NAME MD5". A guest without 9p (Debian's kernels: 9p is a
module there) sends them over the console instead, base64 between
"PREFIX begin NAME MD5" and "PREFIX end NAME". A boot's DIR is its console
log's path with ".log" replaced by ".d" (tests/run.py).

    files(log, prefix) -> ({name: bytes}, [names that arrived corrupted])
"""

import base64
import hashlib
import os


def out_dir(log):
    return (log[:-4] if log.endswith(".log") else log) + ".d"


def files(log, prefix="pmuscope-file: "):
    got, bad, cur, buf = {}, [], None, []
    d = out_dir(log)
    with open(log, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if not line.startswith(prefix):
                continue
            body = line[len(prefix):]
            parts = body.split()
            if body.startswith("sent ") and len(parts) == 3:
                try:
                    with open(os.path.join(d, parts[1]), "rb") as g:
                        data = g.read()
                except OSError:
                    data = None
                if data is not None and hashlib.md5(data).hexdigest() == parts[2]:
                    got[parts[1]] = data
                else:
                    bad.append(parts[1])
            elif body.startswith("begin "):
                cur, buf = (parts[1], parts[2]) if len(parts) == 3 else None, []
            elif body.startswith("end ") and cur:
                try:
                    data = base64.b64decode("".join(buf))
                except ValueError:
                    data = b""
                if hashlib.md5(data).hexdigest() == cur[1]:
                    got[cur[0]] = data
                else:
                    bad.append(cur[0])
                cur = None
            elif cur:
                buf.append(body.strip())
    return got, bad
