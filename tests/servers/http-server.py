#!/usr/bin/env python3
"""A static HTTP server for tide's tests (quilt trees).

Serves --root on 127.0.0.1 at a free port (written to --port-file), sends
an ETag with every file and honours If-None-Match (http.server itself
answers If-Modified-Since), and logs "METHOD PATH STATUS" per request to
--log.  A --control file, re-read on every request, can make paths fail:
lines "404 GLOB", "500 GLOB" or "hang GLOB" (GLOB as fnmatch, e.g. "*").
--cert/--key serve HTTPS instead.
"""
import argparse
import fnmatch
import hashlib
import http.server
import os
import sys
import time


def control_mode(path, control):
    try:
        with open(control) as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split(None, 1)
        if len(parts) == 2 and fnmatch.fnmatch(path.lstrip("/"), parts[1]):
            return parts[0]
    return None


class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def log_request(self, code="-", size="-"):
        with open(self.server.logfile, "a") as f:
            f.write("%s %s %s\n" % (self.command, self.path, int(code) if str(code).isdigit() else code))

    def etag(self, fspath):
        with open(fspath, "rb") as f:
            return '"%s"' % hashlib.sha1(f.read()).hexdigest()

    def send_head(self):
        mode = control_mode(self.path, self.server.control) if self.server.control else None
        if mode == "hang":
            time.sleep(3600)
        if mode in ("404", "500"):
            self.send_error(int(mode))
            return None
        fspath = self.translate_path(self.path)
        if os.path.isfile(fspath):
            tag = self.etag(fspath)
            if tag in [t.strip() for t in self.headers.get("If-None-Match", "").split(",")]:
                self.send_response(304)
                self.send_header("ETag", tag)
                self.end_headers()
                return None
            self._etag = tag
        return super().send_head()

    def end_headers(self):
        tag = getattr(self, "_etag", None)
        if tag:
            self.send_header("ETag", tag)
            self._etag = None
        super().end_headers()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--control")
    ap.add_argument("--cert", help="serve HTTPS with this certificate (and --key)")
    ap.add_argument("--key")
    a = ap.parse_args()
    log, port_file = os.path.abspath(a.log), os.path.abspath(a.port_file)
    control = os.path.abspath(a.control) if a.control else None
    cwd = os.getcwd()
    os.chdir(a.root)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    if a.cert:
        import ssl
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(cwd, a.cert), os.path.join(cwd, a.key))
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    srv.logfile = log
    srv.control = control
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
