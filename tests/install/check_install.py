#!/usr/bin/env python3
"""The installed client library works for someone outside the tree.

Installs the current build into a fresh prefix, builds tests/install/consumer against it twice
(find_package(capplan) with CMAKE_PREFIX_PATH, and `pkg-config --cflags --libs capplan`),
starts the real capplan-server on port 0 over a temporary database, and runs both consumers
against it (Health, then a serving Plan).
"""

import argparse
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading

SERVING_LINE = re.compile(r"serving grpc on [^ ]+:(\d+), metrics on")
START_TIMEOUT_SECONDS = 30


def run(argv, **kwargs):
    print("+", " ".join(shlex.quote(a) for a in argv), flush=True)
    subprocess.run(argv, check=True, **kwargs)


def build_with_cmake(args, prefix, build_dir):
    configure = [args.cmake, "-S", args.consumer, "-B", build_dir, "-G", args.generator,
                 "-DCMAKE_PREFIX_PATH=" + prefix, "-DCMAKE_CXX_COMPILER=" + args.cxx]
    if args.launcher:
        configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=" + args.launcher)
    run(configure, stdout=subprocess.DEVNULL)
    run([args.cmake, "--build", build_dir])
    return os.path.join(build_dir, "consumer")


def build_with_pkg_config(args, prefix, out_dir):
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, args.libdir, "pkgconfig"))
    flags = subprocess.run([args.pkg_config, "--cflags", "--libs", "capplan"], env=env,
                           check=True, capture_output=True, text=True).stdout
    print("pkg-config --cflags --libs capplan:", flags.strip(), flush=True)
    binary = os.path.join(out_dir, "consumer_pkg_config")
    compiler = shlex.split(args.launcher) + [args.cxx] if args.launcher else [args.cxx]
    run(compiler + ["-std=c++17", os.path.join(args.consumer, "main.cc"), "-o", binary]
        + shlex.split(flags))
    return binary


def pump(stream, lines):
    """Every line of `stream` into `lines`, then None at its end."""
    for line in stream:
        lines.put(line)
    lines.put(None)


class Server:
    """capplan-server on 127.0.0.1:0; the port comes from its "serving grpc on" line."""

    def __init__(self, binary, work):
        self.stderr = open(os.path.join(work, "server.stderr"), "w")
        self.process = subprocess.Popen(
            [binary, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
             "--db=" + os.path.join(work, "capplan.db")],
            stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        lines = queue.Queue()
        threading.Thread(target=pump, args=(self.process.stdout, lines), daemon=True).start()
        while True:
            try:
                line = lines.get(timeout=START_TIMEOUT_SECONDS)
            except queue.Empty:
                line = None
            if line is None:
                self.stop()
                raise RuntimeError("capplan-server exited or did not report its port; see "
                                   + self.stderr.name)
            match = SERVING_LINE.search(line)
            if match:
                self.address = "127.0.0.1:" + match.group(1)
                return

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.stderr.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cmake", required=True)
    parser.add_argument("--build-dir", required=True, help="the capplan build to install")
    parser.add_argument("--work", required=True, help="scratch folder, emptied first")
    parser.add_argument("--consumer", required=True, help="tests/install/consumer")
    parser.add_argument("--server", required=True, help="the capplan-server binary")
    parser.add_argument("--generator", required=True)
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--launcher", default="", help="e.g. ccache")
    parser.add_argument("--pkg-config", required=True)
    parser.add_argument("--libdir", required=True, help="CMAKE_INSTALL_LIBDIR")
    args = parser.parse_args()

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    prefix = os.path.join(args.work, "prefix")
    run([args.cmake, "--install", args.build_dir, "--prefix", prefix], stdout=subprocess.DEVNULL)
    consumers = [build_with_cmake(args, prefix, os.path.join(args.work, "consumer-build")),
                 build_with_pkg_config(args, prefix, args.work)]

    server = Server(args.server, args.work)
    try:
        for consumer in consumers:
            run([consumer, server.address], timeout=60)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
