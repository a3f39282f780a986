#!/usr/bin/env python3
"""A KCIDB-REST stand-in for tide's tests.

Listens on 127.0.0.1 at a free port (written to --port-file) and takes
POST /submit: with the bearer token of --token-file it answers 200 and
stores the body as --out-dir/N.json (N counting from 1); a wrong or
missing token is 401.  A --control file, re-read per request, holds one
word: "502" answers 502 Bad Gateway, "hang" accepts and never answers
(until --hang-limit seconds), "reject:TEXT" answers 400 to a body that
contains TEXT (a document the server refuses) and is normal for the
others, "slow:SECONDS" waits that long before a normal answer; anything
else or no file is normal.
Logs "POST PATH STATUS auth=ok|bad" per request to --log, never the token.
"""
import argparse
import http.server
import os
import sys
import time


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def log(self, status, auth):
        with open(self.server.opts.log, "a") as f:
            f.write("POST %s %s auth=%s\n" % (self.path, status, auth))

    def do_POST(self):
        opts = self.server.opts
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        mode = ""
        if opts.control and os.path.exists(opts.control):
            with open(opts.control) as f:
                mode = f.read().strip()
        auth = "ok" if self.headers.get("Authorization") == "Bearer " + self.server.token else "bad"
        if mode == "hang":
            self.log("hang", auth)
            time.sleep(opts.hang_limit)
            return
        if mode.startswith("slow:"):
            time.sleep(float(mode[5:]))
        if self.path != "/submit":
            status = 404
        elif mode == "502":
            status = 502
        elif mode.startswith("reject:") and mode[7:].encode() in body:
            status = 400
        elif auth != "ok":
            status = 401
        else:
            status = 200
            self.server.count += 1
            with open(os.path.join(opts.out_dir, "%d.json" % self.server.count), "wb") as f:
                f.write(body)
        self.log(status, auth)
        text = {502: b"Bad Gateway\x1b[31m\n", 400: b"schema violation: bad 'id'\n"}.get(status, b"ok\n")
        try:
            self.send_response(status)
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)
        except (BrokenPipeError, ConnectionResetError):
            pass    # a client that gave up waiting (slow:) is part of the tests


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--control")
    ap.add_argument("--hang-limit", type=float, default=30.0)
    opts = ap.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.opts = opts
    srv.count = 0
    with open(opts.token_file) as f:
        srv.token = f.read().strip()
    os.makedirs(opts.out_dir, exist_ok=True)
    tmp = opts.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, opts.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
