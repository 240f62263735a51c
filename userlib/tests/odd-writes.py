#!/usr/bin/env python3
"""odd-writes.py - a tagged TCP connection written in 1001-byte pieces with
TCP_NODELAY: segments that are not whole float32 values and do not start on
float boundaries, the negative control of the float-alignment checks
(userlib-capture, userlib-nicemu).

  odd-writes.py serve PORT            accept one connection, read it to EOF
  odd-writes.py send ADDR PORT COUNT  COUNT writes of 1001 bytes, ToS 0x28
"""
import socket
import sys
import time

if len(sys.argv) == 3 and sys.argv[1] == "serve":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", int(sys.argv[2])))
    s.listen(1)
    c, _ = s.accept()
    while c.recv(65536):
        pass
elif len(sys.argv) == 5 and sys.argv[1] == "send":
    s = socket.socket()
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, 0x28)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.connect((sys.argv[2], int(sys.argv[3])))
    for _ in range(int(sys.argv[4])):
        s.sendall(b"x" * 1001)
        time.sleep(0.002)
    s.close()
else:
    sys.exit(__doc__)
