#!/usr/bin/env python3
"""A git smart-HTTP server that never sends a pack, for tide's tests.

GET .../info/refs?service=git-upload-pack answers a valid protocol v0 ref
advertisement (HEAD and refs/heads/for-next at a commit nobody has, with
side-band-64k).  POST .../git-upload-pack answers NAK to a negotiation
round; to the request that ends in "done" it answers NAK and then a
side-band channel 2 (progress) packet every --interval seconds, for ever:
until the client hangs up or --lifetime seconds after the server started.
A client whose stall timer is reset by progress messages never ends.
Under a path containing "/silent" it sends nothing after the NAK, so the
client is left blocked in a read.

Listens on 127.0.0.1 at a free port (written to --port-file); logs one
line per request and "progress N" per packet sent to --log.
"""
import argparse
import http.server
import os
import sys
import threading
import time

TIP = "c0ffee" + "0" * 34


def pkt(data):
    if isinstance(data, str):
        data = data.encode()
    return b"%04x" % (len(data) + 4) + data


def advertisement():
    return (pkt("# service=git-upload-pack\n") + b"0000" +
            pkt("%s HEAD\0side-band-64k ofs-delta agent=stall/1\n" % TIP) +
            pkt("%s refs/heads/for-next\n" % TIP) + b"0000")


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def log(self, line):
        with self.server.log_lock, open(self.server.logfile, "a") as f:
            f.write(line + "\n")

    def do_GET(self):
        self.log("GET %s" % self.path)
        if not self.path.endswith("/info/refs?service=git-upload-pack"):
            self.send_error(404)
            return
        body = advertisement()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-git-upload-pack-advertisement")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def do_POST(self):
        body = self.read_body()
        done = b"0009done\n" in body
        self.log("POST %s%s" % (self.path, " done" if done else ""))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-git-upload-pack-result")
        self.send_header("Cache-Control", "no-cache")
        if not done:
            reply = pkt("NAK\n")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
            return
        # No length: the body ends when the connection closes (HTTP/1.0).
        self.close_connection = True
        self.end_headers()
        self.stall()

    def stall(self):
        n = 0
        try:
            self.wfile.write(pkt("NAK\n"))
            self.wfile.flush()
            while "/silent" in self.path and time.time() < self.server.end:
                time.sleep(0.2)
            while time.time() < self.server.end:
                n += 1
                self.wfile.write(pkt(b"\x02Counting objects: %d\r" % n))
                self.wfile.flush()
                self.log("progress %d" % n)
                time.sleep(self.server.interval)
        except (BrokenPipeError, ConnectionResetError):
            self.log("client hung up after %d" % n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--lifetime", type=float, default=120.0)
    a = ap.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.logfile = os.path.abspath(a.log)
    srv.log_lock = threading.Lock()
    srv.interval = a.interval
    srv.end = time.time() + a.lifetime
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    # The server's own bound: a test that forgets it still ends.
    threading.Timer(a.lifetime, srv.shutdown).start()
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
