#!/usr/bin/env python3
"""A small SMTP server for tide's tests.

Listens on 127.0.0.1 at a free port (written to --port-file) and stores
each message received as --dir/N.eml (line ends made LF, dots unstuffed),
its DATA exactly as received (CRLFs, dot-stuffing and all) as N.raw,
with its envelope in N.env
("from ADDR", "to ADDR" lines, "auth USER" when the client logged in).
--refuse 550 answers every RCPT TO with "550 mailbox unavailable".
--user/--password make AUTH PLAIN/LOGIN check those credentials.
--cert/--key enable TLS: STARTTLS is offered, or with --smtps the whole
connection is TLS from the start; N.env then has a "tls" line.
"""
import argparse
import base64
import os
import socketserver
import ssl
import sys


class Handler(socketserver.StreamRequestHandler):
    def setup(self):
        self.tls = False
        if self.server.cfg.smtps:
            self.request = self.server.tls.wrap_socket(self.request, server_side=True)
            self.tls = True
        super().setup()

    def starttls(self):
        self.reply("220 ready to start TLS")
        self.request = self.server.tls.wrap_socket(self.request, server_side=True)
        self.tls = True
        self.rfile = self.request.makefile("rb")
        self.wfile = self.request.makefile("wb")

    def reply(self, line):
        self.wfile.write((line + "\r\n").encode())
        self.wfile.flush()

    def readline(self):
        line = self.rfile.readline()
        if not line:
            raise EOFError
        return line.decode("utf-8", "replace").rstrip("\r\n")

    def auth(self, args):
        cfg = self.server.cfg
        parts = args.split()
        mech = parts[0].upper() if parts else ""
        if mech == "PLAIN":
            if len(parts) > 1:
                data = parts[1]
            else:
                self.reply("334 ")
                data = self.readline()
            fields = base64.b64decode(data).split(b"\0")
            user, pw = fields[1].decode(), fields[2].decode()
        elif mech == "LOGIN":
            self.reply("334 VXNlcm5hbWU6")
            user = base64.b64decode(self.readline()).decode()
            self.reply("334 UGFzc3dvcmQ6")
            pw = base64.b64decode(self.readline()).decode()
        else:
            self.reply("504 unsupported")
            return None
        if cfg.user is not None and (user != cfg.user or pw != cfg.password):
            self.reply("535 authentication failed")
            return None
        self.reply("235 ok")
        return user

    def handle(self):
        cfg = self.server.cfg
        env_from, env_to, user = None, [], None
        self.reply("220 localhost smtp-sink")
        try:
            while True:
                line = self.readline()
                verb = line.split(" ", 1)[0].upper()
                args = line[len(verb) + 1:]
                if verb in ("EHLO", "HELO"):
                    self.reply("250-localhost")
                    if self.server.tls and not self.tls:
                        self.reply("250-STARTTLS")
                    self.reply("250-AUTH PLAIN LOGIN")
                    self.reply("250 8BITMIME")
                elif verb == "STARTTLS" and self.server.tls and not self.tls:
                    self.starttls()
                elif verb == "AUTH":
                    user = self.auth(args)
                elif verb == "MAIL":
                    if cfg.user is not None and user is None:
                        self.reply("530 authentication required")
                        continue
                    env_from, env_to = args.split(":", 1)[1].strip().strip("<>").split(">")[0], []
                    self.reply("250 ok")
                elif verb == "RCPT":
                    if cfg.refuse:
                        self.reply("%s mailbox unavailable" % cfg.refuse)
                        continue
                    env_to.append(args.split(":", 1)[1].strip().strip("<>"))
                    self.reply("250 ok")
                elif verb == "DATA":
                    if not env_to:
                        self.reply("554 no valid recipients")
                        continue
                    self.reply("354 go ahead")
                    lines, raw = [], []
                    while True:
                        b = self.rfile.readline()
                        if not b:
                            raise EOFError
                        l = b.decode("utf-8", "replace")
                        if l.rstrip("\r\n") == ".":
                            break
                        raw.append(b)
                        if l.startswith(".."):
                            l = l[1:]
                        lines.append(l.replace("\r\n", "\n"))
                    self.store("".join(lines), b"".join(raw), env_from, env_to, user, self.tls)
                    self.reply("250 stored")
                elif verb == "RSET":
                    env_from, env_to = None, []
                    self.reply("250 ok")
                elif verb == "NOOP":
                    self.reply("250 ok")
                elif verb == "QUIT":
                    self.reply("221 bye")
                    return
                else:
                    self.reply("502 not implemented")
        except (EOFError, OSError):
            return

    def store(self, text, raw, env_from, env_to, user, tls):
        d = self.server.cfg.dir
        with self.server.lock:
            n = len([f for f in os.listdir(d) if f.endswith(".eml")]) + 1
            with open(os.path.join(d, "%d.env" % n), "w") as f:
                f.write("from %s\n" % env_from)
                for t in env_to:
                    f.write("to %s\n" % t)
                if user:
                    f.write("auth %s\n" % user)
                if tls:
                    f.write("tls\n")
            with open(os.path.join(d, "%d.raw" % n), "wb") as f:
                f.write(raw)
            with open(os.path.join(d, "%d.eml.tmp" % n), "w") as f:
                f.write(text)
            os.rename(os.path.join(d, "%d.eml.tmp" % n), os.path.join(d, "%d.eml" % n))


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass    # a client that gives up on TLS is part of the tests


def main():
    import threading
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--refuse")
    ap.add_argument("--user")
    ap.add_argument("--password")
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--smtps", action="store_true")
    cfg = ap.parse_args()
    os.makedirs(cfg.dir, exist_ok=True)
    srv = Server(("127.0.0.1", 0), Handler)
    srv.cfg = cfg
    srv.lock = threading.Lock()
    srv.tls = None
    if cfg.cert:
        srv.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        srv.tls.load_cert_chain(cfg.cert, cfg.key)
    tmp = cfg.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, cfg.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
