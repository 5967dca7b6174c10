#!/usr/bin/env python3
"""Checks deploy/ with what this machine has (no container runtime or cluster here):

  k8s     the manifests parse, render with `kubectl kustomize` where kubectl exists, and hang
          together: gRPC probes, resources, non-root, the volume and secret they mount, and
          selectors of the Service, ServiceMonitor and PDB that match the pod labels.
  k8s-airgapped  k8s-airgapped: the price refresh imports a mounted, read-only copy (no fetch)
          under the same pin and checksum checks.
  k8s-replicas  the same for k8s/replicas, and: 3+ replicas without a volume, the DSN from
          a Secret, a startup probe, spread over nodes, PDB minAvailable 2, an autoscaling/v2
          HPA on CPU from 3.
  compose-replicas  compose-replicas.yaml: PostgreSQL 15 with a health check and 2+ capplan
          replicas on one postgresql:// DSN that wait for it, on distinct host ports.
  docker  every shared library capplan-server and capplan link comes from a package the
          Dockerfile's runtime stage installs (or one of their dependencies, or the base).
Usage: check_deploy.py k8s|k8s-airgapped|k8s-replicas|compose-replicas DEPLOY_DIR | docker DEPLOY_DIR BINARY...
"""
import os
import re
import shutil
import subprocess
import sys

import yaml


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def render(kdir):
    """The objects of the kustomization in `kdir`, and the labels its `labels` transformers
    add: rendered by `kubectl kustomize` where kubectl exists, else read as written (resource
    directories followed, nothing transformed)."""
    kust = yaml.safe_load(open(os.path.join(kdir, "kustomization.yaml")))
    labels = dict(kust.get("labels", [{}])[0].get("pairs", {}))
    if shutil.which("kubectl"):
        out = subprocess.run(["kubectl", "kustomize", kdir], check=True, capture_output=True, text=True).stdout
        docs = [d for d in yaml.safe_load_all(out) if d]
        print(f"{kdir}: rendered with kubectl kustomize:", len(docs), "objects")
        return docs, labels
    docs = []
    for name in kust["resources"]:
        path = os.path.join(kdir, name)
        if os.path.isdir(path):
            sub, sub_labels = render(path)
            docs += sub
            labels.update(sub_labels)
        else:
            docs += [d for d in yaml.safe_load_all(open(path)) if d]
    print(f"{kdir}: kubectl not installed: checking the manifests as written")
    return docs, labels


def check_k8s(deploy):
    """deploy/k8s: one replica on a SQLite volume."""
    docs, extra = render(os.path.join(deploy, "k8s"))
    by_kind, pod, c, env, vols = check_common(docs, extra, ["PersistentVolumeClaim"])
    dep = by_kind["Deployment"][0]
    if dep["spec"]["replicas"] != 1 or dep["spec"]["strategy"]["type"] != "Recreate":
        fail("single-writer SQLite: one replica, Recreate strategy")
    pvc = by_kind["PersistentVolumeClaim"][0]["metadata"]["name"]
    if not any(v.get("persistentVolumeClaim", {}).get("claimName") == pvc for v in vols.values()):
        fail(f"no volume uses the PVC {pvc}")
    mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
    if not (env.get("CAPPLAN_DB") or "").startswith(mounts["data"]):
        fail("CAPPLAN_DB is not on the data volume")
    print("k8s manifests: OK")


def check_common(docs, extra_labels, kinds):
    """What both overlays share: probes, resources, non-root, the token Secret and its mode,
    selectors that match the pod labels, ports, the ServiceMonitor and the price refresh.
    Returns (objects by kind, pod template, container, env values, volumes by name)."""
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    for kind in ["Deployment", "Service", "Secret", "ServiceMonitor", "PodDisruptionBudget"] + kinds:
        if kind not in by_kind:
            fail(f"no {kind}")
    dep = by_kind["Deployment"][0]
    pod = dep["spec"]["template"]
    labels = dict(pod["metadata"].get("labels", {}))
    labels.update(extra_labels)
    c = pod["spec"]["containers"][0]
    for probe in ["readinessProbe", "livenessProbe"]:
        if "grpc" not in c.get(probe, {}):
            fail(f"{probe} is not a native gRPC probe")
    for k in ["requests", "limits"]:
        if "memory" not in c["resources"].get(k, {}) or "cpu" not in c["resources"].get(k, {}):
            fail(f"resources.{k} needs cpu and memory")
    if not pod["spec"]["securityContext"].get("runAsNonRoot"):
        fail("pod must run as non-root")
    vols = {v["name"]: v for v in pod["spec"]["volumes"]}
    secret = "capplan-admin-tokens"
    if secret not in {s["metadata"]["name"] for s in by_kind["Secret"]}:
        fail(f"no Secret {secret}")
    if not any(v.get("secret", {}).get("secretName") == secret for v in vols.values()):
        fail(f"no volume mounts the Secret {secret}")
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
    if not env.get("CAPPLAN_ADMIN_TOKEN_FILE", "").startswith(mounts["tokens"]):
        fail("CAPPLAN_ADMIN_TOKEN_FILE is not in the mounted secret")
    # The server refuses token files others may read (server/auth.h); Kubernetes' default
    # secret mode is 0644, and group read needs the server's explicit switch.
    mode = vols["tokens"]["secret"].get("defaultMode", 0o644)
    if mode & 0o007:
        fail(f"token secret defaultMode {mode:04o} lets others read it; use 0440 or 0400")
    if mode & 0o070 and env.get("CAPPLAN_ADMIN_TOKEN_FILE_ALLOW_GROUP_READ") != "1":
        fail(f"token secret defaultMode {mode:04o} is group-readable, which the server refuses "
             "without CAPPLAN_ADMIN_TOKEN_FILE_ALLOW_GROUP_READ=1")

    def matches(sel):
        return sel and all(labels.get(k) == v for k, v in sel.items())

    svc = by_kind["Service"][0]
    if not matches(svc["spec"].get("selector")):
        fail("Service selector does not match the pod labels (render with kustomize)")
    ports = {p["name"] for p in svc["spec"]["ports"]}
    if ports != {"grpc", "metrics", "http"}:
        fail(f"Service ports {ports}")
    # Each Service port targets a container port, and the server listens there (not loopback).
    container_ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    for p in svc["spec"]["ports"]:
        if p["targetPort"] not in container_ports:
            fail(f"Service port {p['name']} targets {p['targetPort']}, not a container port")
    for var, port in (("CAPPLAN_LISTEN", "grpc"), ("CAPPLAN_METRICS_LISTEN", "metrics"),
                      ("CAPPLAN_HTTP_LISTEN", "http")):
        if env.get(var) != f"0.0.0.0:{container_ports[port]}":
            fail(f"{var} is {env.get(var)!r}, not 0.0.0.0:{container_ports[port]}")
    for probe in ["readinessProbe", "livenessProbe", "startupProbe"]:
        if probe in c and c[probe].get("grpc", {}).get("port") != container_ports["grpc"]:
            fail(f"{probe} does not check the gRPC port")
    if not matches(by_kind["ServiceMonitor"][0]["spec"]["selector"]["matchLabels"]):
        fail("ServiceMonitor selector does not match")
    if by_kind["ServiceMonitor"][0]["spec"]["endpoints"][0]["port"] != "metrics":
        fail("ServiceMonitor must scrape the metrics port")
    if not matches(by_kind["PodDisruptionBudget"][0]["spec"]["selector"]["matchLabels"]):
        fail("PDB selector does not match")
    check_price_refresh(by_kind, svc)
    check_watch_memory(c)
    by_kind["_labels"] = labels
    return by_kind, pod, c, env, vols


# What a server holds (deploy/README.md "Sizing"): ~25 MB resident idle with the shipped
# catalog, ~44 MB once a crowd of watches has come and gone; each open WatchPlan stream about
# 20 KiB more (capplan-loadgen --watches=5000: 25 -> 123 MB). With margins: 64 MiB, 24 KiB.
BASE_MIB = 64
WATCH_KIB = 24


def mebibytes(quantity):
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "K": 1e3 / 2**20, "M": 1e6 / 2**20, "G": 1e9 / 2**20}
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]i?)?", str(quantity))
    if not m:
        fail(f"memory quantity {quantity!r} not understood")
    return float(m.group(1)) * (units[m.group(2)] if m.group(2) else 1 / 2**20)


def check_watch_memory(c):
    """The memory limit holds --max_watches open watches: the manifest's value, or the flag's
    default as server/main.cc declares it."""
    flags = {}
    for a in c.get("args", []):
        if a.startswith("--") and "=" in a:
            k, v = a[2:].split("=", 1)
            flags[k] = v
    if "max_watches" in flags:
        watches = int(flags["max_watches"])
    else:
        main_cc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "server", "main.cc")
        m = re.search(r"ABSL_FLAG\(int, max_watches, (\d+)", open(main_cc).read())
        if not m:
            fail("server/main.cc: no max_watches flag default found")
        watches = int(m.group(1))
    need = BASE_MIB + watches * WATCH_KIB / 1024
    limit = mebibytes(c["resources"]["limits"]["memory"])
    if limit < need:
        fail(f"memory limit {limit:.0f} MiB is below {need:.0f} MiB: {BASE_MIB} MiB + {watches} watches "
             f"(--max_watches) x {WATCH_KIB} KiB; lower --max_watches in args or raise the limit")
    print(f"memory limit {limit:.0f} MiB holds {watches} watches ({need:.0f} MiB)")


def check_k8s_replicas(deploy):
    """deploy/k8s/replicas: three or more interchangeable replicas over PostgreSQL."""
    docs, extra = render(os.path.join(deploy, "k8s", "replicas"))
    by_kind, pod, c, env, vols = check_common(docs, extra, ["HorizontalPodAutoscaler"])
    labels = by_kind["_labels"]
    dep = by_kind["Deployment"][0]
    replicas = dep["spec"]["replicas"]
    if replicas < 3:
        fail(f"replicas: {replicas}, want at least 3")
    strategy = dep["spec"].get("strategy", {})
    if strategy.get("type", "RollingUpdate") != "RollingUpdate" or \
            strategy.get("rollingUpdate", {}).get("maxUnavailable") != 0:
        fail("replicas: a RollingUpdate with maxUnavailable 0 (a new pod is ready before an old one goes)")
    if "PersistentVolumeClaim" in by_kind or any("persistentVolumeClaim" in v for v in vols.values()):
        fail("replicas: the catalog is in PostgreSQL; no PersistentVolumeClaim")
    # The DSN comes from a Secret of the kustomization, and selects PostgreSQL.
    db = [e for e in c["env"] if e["name"] == "CAPPLAN_DB"]
    ref = db[0].get("valueFrom", {}).get("secretKeyRef") if db else None
    if not ref or "value" in db[0]:
        fail("replicas: CAPPLAN_DB must come from a secretKeyRef, not a literal")
    secrets = {s["metadata"]["name"]: s for s in by_kind["Secret"]}
    if ref["name"] not in secrets:
        fail(f"replicas: CAPPLAN_DB names Secret {ref['name']}, which the kustomization lacks")
    dsn = secrets[ref["name"]].get("stringData", {}).get(ref["key"], "")
    if not dsn.startswith("postgresql://"):
        fail(f"replicas: Secret {ref['name']} key {ref['key']} is not a postgresql:// DSN")
    if "startupProbe" not in c:
        fail("replicas: a startupProbe (the snapshot load from PostgreSQL can take a while)")
    spread = pod["spec"].get("topologySpreadConstraints", [])
    by_host = [t for t in spread if t["topologyKey"] == "kubernetes.io/hostname"]
    if not by_host:
        fail("replicas: no topologySpreadConstraint over kubernetes.io/hostname")
    for t in spread:
        sel = t.get("labelSelector", {}).get("matchLabels", {})
        if not sel or any(labels.get(k) != v for k, v in sel.items()):
            fail(f"replicas: the spread over {t['topologyKey']} does not select the pods")
    pdb = by_kind["PodDisruptionBudget"][0]["spec"]
    if pdb.get("minAvailable") != 2 or "maxUnavailable" in pdb:
        fail("replicas: the PodDisruptionBudget keeps minAvailable 2")
    hpa = by_kind["HorizontalPodAutoscaler"][0]
    if hpa["apiVersion"] != "autoscaling/v2":
        fail("replicas: the HorizontalPodAutoscaler must be autoscaling/v2")
    target = hpa["spec"]["scaleTargetRef"]
    if target["kind"] != "Deployment" or target["name"] != dep["metadata"]["name"]:
        fail("replicas: the autoscaler does not scale the Deployment")
    lo, hi = hpa["spec"].get("minReplicas", 1), hpa["spec"]["maxReplicas"]
    if lo < 3 or lo > replicas or hi <= lo or lo <= pdb["minAvailable"]:
        fail(f"replicas: autoscaler {lo}..{hi} must start at 3 or more, above the budget's minAvailable")
    cpu = [m for m in hpa["spec"].get("metrics", [])
           if m["type"] == "Resource" and m["resource"]["name"] == "cpu"]
    if not cpu or cpu[0]["resource"]["target"].get("type") != "Utilization":
        fail("replicas: the autoscaler needs a CPU utilization target")
    if "cpu" not in c["resources"]["requests"]:
        fail("replicas: CPU utilization needs a CPU request")
    print("k8s replica manifests: OK")


def check_compose_replicas(deploy):
    """deploy/compose-replicas.yaml: PostgreSQL with a health check, two or more capplan
    replicas on the same postgresql:// DSN that wait for it, on distinct host ports."""
    doc = yaml.safe_load(open(os.path.join(deploy, "compose-replicas.yaml")))
    services = doc["services"]
    pg = [n for n, s in services.items() if str(s.get("image", "")).startswith("postgres:15")]
    if not pg:
        fail("compose: no postgres:15 service")
    if "healthcheck" not in services[pg[0]]:
        fail("compose: PostgreSQL needs a healthcheck for the replicas to wait on")
    replicas = {n: s for n, s in services.items() if s.get("build", {}).get("dockerfile") == "deploy/Dockerfile"}
    if len(replicas) < 2:
        fail(f"compose: {len(replicas)} capplan replicas, want 2 or more")
    host_ports = []
    dsns = set()
    for name, s in replicas.items():
        dsn = s.get("environment", {}).get("CAPPLAN_DB", "")
        if not dsn.startswith("postgresql://") or f"@{pg[0]}:5432/" not in dsn:
            fail(f"compose: {name} CAPPLAN_DB is not a postgresql:// DSN for the {pg[0]} service")
        dsns.add(dsn)
        if s.get("depends_on", {}).get(pg[0], {}).get("condition") != "service_healthy":
            fail(f"compose: {name} must wait for {pg[0]} to be healthy")
        host_ports += [p.split(":")[0] for p in s.get("ports", [])]
    if len(dsns) != 1:
        fail("compose: the replicas must share one catalog DSN")
    if len(host_ports) != len(set(host_ports)):
        fail(f"compose: host ports collide: {sorted(host_ports)}")
    check_password_recipe(os.path.join(deploy, "compose-replicas.yaml"))
    print(f"compose-replicas.yaml: PostgreSQL and {len(replicas)} replicas: OK")


def check_password_recipe(path):
    """The header's `export CAPPLAN_PG_PASSWORD="$(...)"` goes into the DSN's user info
    unencoded: run it 50 times; every password must use only URI-unreserved characters
    (RFC 3986 section 2.3) and be at least 32 characters long."""
    recipe = None
    for line in open(path):
        m = re.search(r'CAPPLAN_PG_PASSWORD="\$\((.*)\)"', line)
        if line.startswith("#") and m:
            recipe = m.group(1)
    if recipe is None:
        fail("compose: the header has no `export CAPPLAN_PG_PASSWORD=\"$(...)\"` recipe")
    for _ in range(50):
        pw = subprocess.run(["bash", "-c", recipe], check=True, capture_output=True, text=True).stdout
        if not re.fullmatch(r"[A-Za-z0-9._~-]{32,}", pw):
            fail(f"compose: the password recipe gave {len(pw)} characters, not all URL-safe "
                 "(base64's / and + break the DSN); use hex")


def check_k8s_airgapped(deploy):
    """deploy/k8s-airgapped: the single-replica deployment whose refresh imports mounted files."""
    docs, _ = render(os.path.join(deploy, "k8s-airgapped"))
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    check_price_refresh(by_kind, by_kind["Service"][0], airgapped=True)
    print("k8s-airgapped manifests: OK")


def check_catalog_pin(by_kind, pod, main, airgapped):
    """The refresh imports one pinned commit's files, each checked against its SHA-256, dated
    by the pin (not by the day it runs): unchanged files then write nothing and leave the
    staleness alert counting. Air-gapped: no fetch, the catalog volume is a read-only copy."""
    pins = [m for m in by_kind.get("ConfigMap", []) if m["metadata"]["name"] == "capplan-price-catalog-pin"]
    if not pins:
        fail("price refresh: no ConfigMap capplan-price-catalog-pin")
    pin = pins[0].get("data", {})
    if not re.fullmatch(r"[0-9a-f]{40}", pin.get("CATALOG_COMMIT", "")):
        fail("price refresh: CATALOG_COMMIT must be a full 40-hex commit, not a branch")
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", pin.get("CATALOG_AS_OF_DATE", "")):
        fail("price refresh: CATALOG_AS_OF_DATE must be the pinned lists' date, YYYY-MM-DD")
    for p in ["AWS", "GCP", "AZURE"]:
        if f"CATALOG_SHA256_{p}" not in pin:
            fail(f"price refresh: the pin lacks CATALOG_SHA256_{p}")
    script = " ".join(main.get("command", []) + main.get("args", []))
    for part in ["sha256sum -c", "--as_of_date=$CATALOG_AS_OF_DATE", "CATALOG_SHA256_"]:
        if part not in script:
            fail(f"price refresh: the import script lacks {part}")
    if "date " in script or "$(date" in script or "$$(date" in script:
        fail("price refresh: the lists must be dated by the pin, not by the day the Job runs")
    for c in pod.get("initContainers", []) + pod["containers"]:
        refs = [e.get("configMapRef", {}).get("name") for e in c.get("envFrom", [])]
        if "capplan-price-catalog-pin" not in refs:
            fail(f"price refresh: {c['name']} does not read the pin ConfigMap")
        text = " ".join(c.get("command", []) + c.get("args", []))
        if "http" in text and ("$CATALOG_COMMIT" not in text or re.search(r"/(master|main)/", text)):
            fail(f"price refresh: {c['name']} fetches a branch, not $CATALOG_COMMIT")
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    if airgapped:
        if pod.get("initContainers"):
            fail("price refresh (air-gapped): no container may fetch")
        catalog = vols.get("catalog", {})
        if "emptyDir" in catalog or not catalog.get("persistentVolumeClaim", {}).get("readOnly"):
            fail("price refresh (air-gapped): the catalog volume must be the mounted copy, read-only")
        claims = {c["metadata"]["name"] for c in by_kind.get("PersistentVolumeClaim", [])}
        if catalog["persistentVolumeClaim"]["claimName"] not in claims:
            fail("price refresh (air-gapped): the catalog claim is not in the kustomization")
    elif not any(c["name"] == "fetch" for c in pod.get("initContainers", [])):
        fail("price refresh: no fetch init container")


def check_price_refresh(by_kind, svc, airgapped=False):
    """The price-refresh CronJob: one run at a time, bounded, non-root, importing in partial
    mode with a skipped-rows threshold, against the Service, with a token from a Secret, from
    pinned and checksummed files."""
    jobs = [j for j in by_kind.get("CronJob", []) if j["metadata"]["name"] == "capplan-price-refresh"]
    if not jobs:
        fail("no CronJob capplan-price-refresh")
    cj = jobs[0]["spec"]
    if cj.get("concurrencyPolicy") != "Forbid":
        fail("price refresh: concurrencyPolicy must be Forbid (one import at a time)")
    if len(cj.get("schedule", "").split()) != 5:
        fail("price refresh: schedule is not a 5-field cron expression")
    job = cj["jobTemplate"]["spec"]
    if not job.get("activeDeadlineSeconds") or job.get("backoffLimit") is None:
        fail("price refresh: the Job needs activeDeadlineSeconds and backoffLimit")
    pod = job["template"]["spec"]
    if pod.get("restartPolicy") not in ("Never", "OnFailure"):
        fail("price refresh: restartPolicy must be Never or OnFailure")
    if not pod.get("securityContext", {}).get("runAsNonRoot"):
        fail("price refresh: pod must run as non-root")
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    for c in pod.get("initContainers", []) + pod["containers"]:
        for k in ["requests", "limits"]:
            if "memory" not in c.get("resources", {}).get(k, {}):
                fail(f"price refresh: container {c['name']} needs resources.{k}.memory")
        for m in c.get("volumeMounts", []):
            if m["name"] not in vols:
                fail(f"price refresh: {c['name']} mounts unknown volume {m['name']}")
    main = pod["containers"][0]
    script = " ".join(main.get("command", []) + main.get("args", []))
    for part in ["admin import-csv", "--mode=partial", "--max_skipped_fraction=", "--file="]:
        if part not in script:
            fail(f"price refresh: the import command lacks {part}")
    grpc_port = [p["port"] for p in svc["spec"]["ports"] if p["name"] == "grpc"][0]
    if f"--server={svc['metadata']['name']}:{grpc_port}" not in script:
        fail("price refresh: --server must name the capplan Service and its gRPC port")
    env = {e["name"]: e.get("value") for e in main.get("env", [])}
    token_file = env.get("CAPPLAN_ADMIN_TOKEN_FILE", "")
    secrets = {s["metadata"]["name"] for s in by_kind["Secret"]}
    mounted = [m for m in main["volumeMounts"] if token_file.startswith(m["mountPath"] + "/")]
    if not mounted or vols[mounted[0]["name"]].get("secret", {}).get("secretName") not in secrets:
        fail("price refresh: CAPPLAN_ADMIN_TOKEN_FILE must be in a mounted Secret of the kustomization")
    check_catalog_pin(by_kind, pod, main, airgapped)


def depends_closure(packages):
    seen, todo = set(), list(packages)
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        r = subprocess.run(["dpkg-query", "-W", "-f=${Depends},${Pre-Depends}", p], capture_output=True, text=True)
        for alt in r.stdout.split(","):
            name = alt.strip().split("|")[0].split(" ")[0].split(":")[0]
            if name:
                todo.append(name)
    return seen


_OWNERS = None


def package_of(path):
    """The Debian package that owns `path` (merged-/usr aware), from dpkg's file lists."""
    global _OWNERS
    if _OWNERS is None:
        _OWNERS = {}
        info = "/var/lib/dpkg/info"
        for name in os.listdir(info):
            if name.endswith(".list"):
                pkg = name[:-len(".list")].split(":")[0]
                for line in open(os.path.join(info, name), errors="replace"):
                    _OWNERS[line.rstrip("\n")] = pkg
    for candidate in [path, "/usr" + path, os.path.realpath(path)]:
        if candidate in _OWNERS:
            return _OWNERS[candidate]
    return None


def check_docker(deploy, binaries):
    text = open(os.path.join(deploy, "Dockerfile")).read()
    runtime = text.split("FROM debian:12-slim", 1)[1]
    listed = set(re.findall(r"\b(lib[a-z0-9+.\-]+)", runtime.split("rm -rf")[0]))
    base = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}
    have = depends_closure(listed) | base
    for binary in binaries:
        out = subprocess.run(["ldd", binary], check=True, capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.search(r"=> (/\S+)", line)
            if not m:
                continue
            pkg = package_of(m.group(1))
            if pkg is None:
                fail(f"{binary}: {m.group(1)} belongs to no Debian package")
            if pkg not in have:
                fail(f"{binary} needs {m.group(1)} from {pkg}, which the runtime image does not install")
    print("Dockerfile runtime stage covers", len(binaries), "binaries: OK")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "k8s":
        check_k8s(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "k8s-airgapped":
        check_k8s_airgapped(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "k8s-replicas":
        check_k8s_replicas(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "compose-replicas":
        check_compose_replicas(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "docker":
        check_docker(sys.argv[2], sys.argv[3:])
    else:
        print(__doc__)
        sys.exit(2)
