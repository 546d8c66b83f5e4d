#!/usr/bin/env python3
"""Counts what a Streamable HTTP server executes per small `tools/call`, under callgrind.

Usage: instructions.py CALLS SESSIONS NAME=BINARY...

Each BINARY is an echo server taking its port as its one argument (the bench's
`mcpweft-echo-http` and `rmcp-echo-http`). It runs under callgrind; after initializing SESSIONS
sessions and a warm-up, the counters are zeroed, CALLS calls are spread over the sessions in
turn, and the counters are dumped. Printed per call: the instructions the server's threads
executed in user space (the kernel's part is not counted) and its heap allocations (malloc,
calloc, realloc, posix_memalign). Unlike times, these counts barely move with the machine's
load, so they compare changes on a shared machine; the kernel's work per call is not in them.
"""

import glob
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time

ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(conn, port, body, session=None):
    """POSTs `body` on `conn` and returns the response's body and session id."""
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n"
    )
    if session:
        head += f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
    conn.sendall((head + "\r\n" + body).encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise RuntimeError("the server closed the connection")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
    if length:
        while len(rest) < int(length.group(1)):
            rest += conn.recv(65536)
    elif re.search(rb"(?i)\r\ntransfer-encoding: *chunked", head):
        # An SSE reply (rmcp answers initialize so): its one event, then the last chunk.
        while not rest.endswith(b"0\r\n\r\n"):
            rest += conn.recv(65536)
    else:
        raise RuntimeError(f"a response of unknown length: {head!r}")
    issued = re.search(rb"(?i)\r\nmcp-session-id: *(\S+)", head)
    return rest, issued.group(1).decode() if issued else session


def counts(dump):
    """Returns the instructions and the allocation calls recorded in a callgrind dump."""
    names, callee, total, allocations = {}, None, 0, 0
    with open(dump) as f:
        for line in f:
            if line.startswith(("fn=", "cfn=")):
                match = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.strip())
                if match.group(2):
                    names[match.group(1)] = match.group(2)
                if line.startswith("cfn="):
                    callee = names.get(match.group(1), "")
            elif line.startswith("calls="):
                if callee.split(" ")[0] in ALLOCATORS:
                    allocations += int(line.split()[0][len("calls="):])
            elif line.startswith("summary:") or line.startswith("totals:"):
                total = int(line.split()[1])
    return total, allocations


def measure(binary, calls, sessions):
    port = free_port()
    out = os.path.join(tempfile.mkdtemp(prefix="mcpweft-callgrind-"), "callgrind.out")
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError(f"{binary} did not start under valgrind")
                time.sleep(0.1)
        peers = []
        for _ in range(sessions):
            conn = socket.create_connection(("127.0.0.1", port), timeout=30)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            init = {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "instructions", "version": "1"},
                },
            }
            _, session = post(conn, port, json.dumps(init))
            post(conn, port, '{"jsonrpc":"2.0","method":"notifications/initialized"}', session)
            peers.append((conn, session))

        def run(count, first_id):
            for i in range(count):
                conn, session = peers[i % sessions]
                body = (
                    '{"jsonrpc":"2.0","id":%d,"method":"tools/call",'
                    '"params":{"name":"echo","arguments":{"text":"hi"}}}' % (first_id + i)
                )
                answer, _ = post(conn, port, body, session)
                if b'"hi"' not in answer:
                    raise RuntimeError(f"not an echo: {answer!r}")

        run(200, 1)
        subprocess.run(["callgrind_control", "--zero", str(server.pid)], check=True, capture_output=True)
        run(calls, 1_000_000)
        subprocess.run(["callgrind_control", "--dump", str(server.pid)], check=True, capture_output=True)
    finally:
        server.terminate()
        server.wait(timeout=60)
    dumps = sorted(d for d in glob.glob(out + ".*") if re.search(r"\.\d+$", d))
    if not dumps:
        raise RuntimeError("callgrind wrote no dump")
    return counts(dumps[-1])


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    calls, sessions = int(sys.argv[1]), int(sys.argv[2])
    print(f"{'http server':<14}{'instructions/call':>20}{'allocations/call':>18}")
    for spec in sys.argv[3:]:
        name, binary = spec.split("=", 1)
        total, allocations = measure(binary, calls, sessions)
        print(f"{name:<14}{total / calls:>20,.0f}{allocations / calls:>18.1f}")
    print(f"({calls} calls of `echo` over {sessions} sessions, user space only, counted by callgrind)")


if __name__ == "__main__":
    main()
