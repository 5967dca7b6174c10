#!/usr/bin/env python3
"""Checks of the OpenAPI document a real capplan-server serves at /v1/openapi.json.

  openapi_check.py lint SERVER REDOCLY CONFIG
      Runs Redocly CLI's linter (the rules CONFIG extends: "recommended") on the document; any
      error or warning fails. Exit 77 (ctest SKIP_RETURN_CODE) when REDOCLY is not installed.
  openapi_check.py examples SERVER DOC...
      Every `curl ... 127.0.0.1:8080/v1/...` example in the DOC files must match the document:
      a -d body validates against the operation's request schema (JSON Schema 2020-12, with
      python3-jsonschema), each query parameter is one the operation lists with a value its
      schema takes, and the non-admin examples are answered 200 by the server. Exit 77 when
      jsonschema is not importable.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

SKIP = 77


class Server:
    """capplan-server on port 0 for gRPC, metrics and HTTP; the banner says which ports it got."""

    BANNER = re.compile(r"on http://[^ ,]+:(\d+)/v1/")

    def __init__(self, binary):
        self.dir = tempfile.mkdtemp(prefix="capplan-openapi-")
        self.proc = subprocess.Popen(
            [binary, "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0", "--http_listen=127.0.0.1:0",
             "--db=" + os.path.join(self.dir, "capplan.db")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()  # blocks until the banner or exit
        m = self.BANNER.search(line)
        if not m:
            self.stop()
            raise RuntimeError("capplan-server did not print its HTTP port: " + line)
        self.base = f"http://127.0.0.1:{m.group(1)}"

    def get(self, path):
        try:
            with urllib.request.urlopen(self.base + path, timeout=30) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def post(self, path, body):
        req = urllib.request.Request(self.base + path, data=body.encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def fetch_document(binary):
    server = Server(binary)
    try:
        status, text = server.get("/v1/openapi.json")
        assert status == 200, status
        return text
    finally:
        server.stop()


def lint(binary, redocly, config):
    if not redocly or not os.access(redocly, os.X_OK):
        print(f"SKIP: the OpenAPI linter is not installed ({redocly or 'redocly not found'}); "
              "scripts/install-deps.sh installs @redocly/cli under /opt/capplan-npm")
        return SKIP
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "openapi.json")
        with open(path, "w") as f:
            f.write(fetch_document(binary))
        env = dict(os.environ, REDOCLY_TELEMETRY="off", REDOCLY_SUPPRESS_UPDATE_NOTICE="true")
        r = subprocess.run([redocly, "lint", "--config", config, "--max-problems", "200", "--format", "stylish",
                            path], capture_output=True, text=True, env=env, timeout=300)
        out = r.stdout + r.stderr
        print(out)
        if r.returncode != 0:
            print("FAIL: redocly lint found errors")
            return 1
        # Warnings do not change redocly's exit status; the document must have none either.
        if re.search(r"\d+ warnings?\b", out):
            print("FAIL: redocly lint found warnings")
            return 1
        print("OK: the served OpenAPI document is clean under redocly's recommended rules")
        return 0


def curl_commands(text):
    """Each `curl` command of the ```sh blocks of a Markdown file, continuation lines joined."""
    out = []
    for block in re.findall(r"```(?:sh|bash|console)\n(.*?)```", text, re.S):
        lines = block.split("\n")
        i = 0
        while i < len(lines):
            line = lines[i].lstrip("$ ")
            if not line.startswith("curl "):
                i += 1
                continue
            cmd = line
            # A command goes on while a line ends with "\" or a quote is open.
            while (cmd.endswith("\\") or cmd.count("'") % 2 == 1) and i + 1 < len(lines):
                i += 1
                cmd = (cmd[:-1] if cmd.endswith("\\") else cmd + "\n") + lines[i]
            out.append(cmd)
            i += 1
    return out


def parse_curl(cmd):
    """(method, path, query, body, admin) of a curl command line against the local server."""
    # $(...) substitutions (an admin token read from a file) stand for one word.
    words = shlex.split(re.sub(r"\$\([^)]*\)", "TOKEN", cmd))
    url, body, admin = None, None, False
    k = 1
    while k < len(words):
        w = words[k]
        if w in ("-d", "--data", "--data-binary"):
            body = words[k + 1]
            k += 2
            continue
        if w in ("-H", "--header"):
            admin = admin or words[k + 1].startswith("Authorization:")
            k += 2
            continue
        if not w.startswith("-") and "/v1/" in w:
            url = w
        k += 1
    if url is None:
        return None
    parsed = urllib.parse.urlsplit(url if "://" in url else "http://" + url)
    return ("POST" if body is not None else "GET"), parsed.path, parsed.query, body, admin


def validator_for(doc, schema):
    import jsonschema  # imported here: the lint mode does not need it
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "components": doc["components"]}
    root.update(schema)
    return jsonschema.Draft202012Validator(root, format_checker=jsonschema.FormatChecker())


def check_query(doc, op, query, where):
    problems = []
    params = {p["name"]: p for p in op.get("parameters", [])}
    for key, value in urllib.parse.parse_qsl(query, keep_blank_values=True):
        if key not in params:
            problems.append(f"{where}: query parameter {key} is not in the document (the server would ignore it)")
            continue
        schema = params[key]["schema"]
        # A query value is text; a number-typed parameter takes its digits.
        candidates = [value]
        try:
            candidates.append(json.loads(value))
        except ValueError:
            pass
        if not any(validator_for(doc, schema).is_valid(c) for c in candidates):
            problems.append(f"{where}: query parameter {key}={value} does not match {json.dumps(schema)}")
    return problems


def check_examples(binary, docs):
    try:
        import jsonschema  # noqa: F401
    except ImportError as e:
        print(f"SKIP: jsonschema is not importable by {sys.executable} ({e}); "
              "scripts/install-deps.sh installs Debian's python3-jsonschema")
        return SKIP
    server = Server(binary)
    problems, checked = [], 0
    try:
        doc = json.loads(server.get("/v1/openapi.json")[1])
        for path in docs:
            with open(path) as f:
                commands = curl_commands(f.read())
            for cmd in commands:
                parsed = parse_curl(cmd)
                if parsed is None:
                    continue
                method, route, query, body, admin = parsed
                where = f"{os.path.basename(path)}: {method} {route}"
                op = doc["paths"].get(route, {}).get(method.lower())
                if op is None:
                    problems.append(f"{where}: no such operation in the document")
                    continue
                checked += 1
                problems += check_query(doc, op, query, where)
                if body is not None:
                    schema = op["requestBody"]["content"]["application/json"]["schema"]
                    for err in validator_for(doc, schema).iter_errors(json.loads(body)):
                        problems.append(f"{where}: body: {err.message} at {list(err.absolute_path)}")
                if admin:
                    continue  # needs an admin token; its schema check above is the point
                status, answer = (server.post(route, body) if method == "POST"
                                  else server.get(route + ("?" + query if query else "")))
                if status != 200:
                    problems.append(f"{where}: the server answered {status}: {answer[:300]}")
    finally:
        server.stop()
    for p in problems:
        print("FAIL:", p)
    if checked == 0:
        print("FAIL: no curl example found in", docs)
        return 1
    print(f"{checked} curl examples checked against the document")
    return 1 if problems else 0


def main(argv):
    if len(argv) >= 5 and argv[1] == "lint":
        return lint(argv[2], argv[3], argv[4])
    if len(argv) >= 4 and argv[1] == "examples":
        return check_examples(argv[2], argv[3:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
