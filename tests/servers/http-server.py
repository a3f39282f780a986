#!/usr/bin/env python3
"""A static HTTP server for tide's tests (quilt trees).

Serves --root on 127.0.0.1 at a free port (written to --port-file), sends
an ETag with every file and honours If-None-Match (http.server itself
answers If-Modified-Since), and logs "METHOD PATH STATUS" per request to
--log.  A --control file, re-read on every request, can make paths fail:
lines "MODE GLOB" (GLOB as fnmatch, e.g. "*"), MODE one of
  404, 500  that error
  hang      accept and never answer
  huge      announce Content-Length: 5368709120 and stream zeros
  chunked   a chunked body of zeros without a length
  loop      a redirect to the same path, for ever
  dribble   announce 1000 bytes and send one a second
The streaming modes stop when the client hangs up or after --stream-limit
seconds, and log "sent N PATH", so no test really sends gigabytes.
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

    def stream(self, chunk, pause, chunked):
        """Send chunk until the client hangs up or the time is up."""
        sent, end = 0, time.time() + self.server.stream_limit
        try:
            while time.time() < end:
                if chunked:
                    self.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                else:
                    self.wfile.write(chunk)
                sent += len(chunk)
                if pause:
                    self.wfile.flush()
                    time.sleep(pause)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True
        with open(self.server.logfile, "a") as f:
            f.write("sent %d %s\n" % (sent, self.path))

    def hostile(self, mode):
        if mode == "loop":
            self.send_response(302)
            self.send_header("Location", self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if mode == "chunked":
            # http.server answers HTTP/1.0, which has no chunked bodies.
            self.log_request(200)
            self.wfile.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                             b"Connection: close\r\n\r\n")
            self.stream(b"\0" * 65536, 0, True)
            return
        self.send_response(200)
        self.send_header("Content-Length", "5368709120" if mode == "huge" else "1000")
        self.end_headers()
        if mode == "huge":
            self.stream(b"\0" * 65536, 0, False)
        else:
            self.stream(b"x", 1.0, False)

    def send_head(self):
        mode = control_mode(self.path, self.server.control) if self.server.control else None
        if mode == "hang":
            time.sleep(3600)
        if mode in ("huge", "chunked", "loop", "dribble"):
            self.hostile(mode)
            return None
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
    ap.add_argument("--stream-limit", type=float, default=60.0,
                    help="seconds a streaming mode goes on at most")
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
    srv.stream_limit = a.stream_limit
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
