#!/usr/bin/python3
"""check_k8s.py - checks the Kubernetes manifests against the server's code.

    /usr/bin/python3 deploy/check_k8s.py [--bin build/bin/gomokud] [MANIFEST_DIR]
                                                           (make test-deploy)

Parses every YAML file in MANIFEST_DIR (default deploy/k8s) and
docker/compose.yml, then checks what would otherwise only fail in a cluster:
the probe paths are routes of the server (server/http.c), the container port
is the configured default port (server/config.c, config/gomokud.conf and the
image's ENV) and the Service and probes reach it, the grace period outlasts
the preStop sleep plus drain_timeout_ms, GOMOKUD_WORKERS follows the CPU
limit, the memory limit covers the measured footprint, the pod runs as
non-root on a read-only root filesystem, the Service, the PDB and the
ServiceMonitor select the Deployment's pods, the HPA scales the Deployment,
the ConfigMap only sets known keys and the alert rules only name metrics the
server exports. With --bin, the server itself is started once with the
pod's settings (the ConfigMap and env over the image's config file, on a
free loopback port) and must start with them and drain cleanly on SIGTERM:
settings that only clash with each other (max_batch over queue_length) show
there. Prints one line per failed check and exits 1, else a summary.

Debian's python3-yaml (scripts/deps.sh test); run with /usr/bin/python3,
which sees Debian's packages whatever python3 is first on PATH.
"""
import math
import os
import re
import signal
import subprocess
import sys
import time

try:
    import yaml
except ImportError:
    sys.exit("check_k8s: python3-yaml is missing (scripts/deps.sh test)")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Memory of a gomokud process, measured (VmHWM after searches on every
# worker, README "Running in production"): about 10 MiB of tables and
# buffers, plus per worker its transposition table and ~25 MiB of engine
# state (the threat search's 24 MiB proof-number table, engine/engine.c).
BASE_MIB = 10
PER_WORKER_MIB = 25

failures = []
checks = 0


def check(ok, message):
    global checks
    checks += 1
    if not ok:
        failures.append(message)
    return ok


def read(path):
    with open(os.path.join(REPO, path), encoding="utf-8") as f:
        return f.read()


# ---- what the server says ------------------------------------------------------

def server_routes():
    routes = set(re.findall(r'strcmp\(url, "([^"]+)"\)\) return ROUTE_', read("server/http.c")))
    if not routes:
        sys.exit("check_k8s: found no routes in server/http.c (has the router changed?)")
    return routes


def config_defaults():
    """Built-in defaults of the config keys, from server/config.c."""
    src = read("server/config.c")
    keys = dict(re.findall(r'[A-Z0-9]+_KEY\("([a-z_]+)",\s*\w+,\s*"([^"]*)"', src))
    keys.update(re.findall(r'\{\{"([a-z_]+)",\s*"([^"]*)"', src))
    for k in ("port", "drain_timeout_ms", "tt_mib", "workers"):
        if k not in keys:
            sys.exit(f"check_k8s: no default for '{k}' in server/config.c (has the key table changed?)")
    return keys


def config_file():
    values = {}
    for line in read("config/gomokud.conf").splitlines():
        m = re.match(r'\s*([a-z_]+)\s*=\s*"?([^"#]*?)"?\s*(#.*)?$', line)
        if m:
            values[m.group(1)] = m.group(2)
    return values


def dockerfile_env():
    text = read("docker/Dockerfile").replace("\\\n", " ")
    env = {}
    for line in text.splitlines():
        if line.strip().startswith("ENV "):
            env.update(re.findall(r'(\w+)=(\S+)', line))
    exposed = re.findall(r'^EXPOSE\s+(\d+)', text, re.M)
    return env, [int(p) for p in exposed]


def exported_metrics():
    names = set(re.findall(r'head\(&b, "(gomokud_[a-z_]+)"', read("server/metrics.c")))
    if not names:
        sys.exit("check_k8s: found no metric names in server/metrics.c")
    return names


# ---- manifests -------------------------------------------------------------------

def cpu_cores(q):
    q = str(q)
    return float(q[:-1]) / 1000 if q.endswith("m") else float(q)


def mib(q):
    q = str(q)
    units = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "K": 1e3 / 2**20, "M": 1e6 / 2**20, "G": 1e9 / 2**20}
    for u in ("Ki", "Mi", "Gi", "K", "M", "G"):
        if q.endswith(u):
            return float(q[: -len(u)]) * units[u]
    return float(q) / 2**20


def subset(small, big):
    return bool(small) and all(big.get(k) == v for k, v in small.items())


def load(mdir):
    docs = []
    files = sorted(os.path.join(mdir, f) for f in os.listdir(mdir) if f.endswith((".yaml", ".yml")))
    check(files, f"no YAML files in {mdir}")
    for path in files + [os.path.join(REPO, "docker/compose.yml")]:
        try:
            with open(path, encoding="utf-8") as f:
                loaded = [d for d in yaml.safe_load_all(f) if d is not None]
        except yaml.YAMLError as e:
            check(False, f"{os.path.relpath(path, REPO)}: not valid YAML: {e}")
            continue
        check(True, "")
        if path.startswith(os.path.abspath(mdir)):
            for d in loaded:
                where = f"{os.path.basename(path)}"
                if check(isinstance(d, dict) and d.get("apiVersion") and d.get("kind")
                         and (d.get("metadata") or {}).get("name"),
                         f"{where}: a document without apiVersion, kind and metadata.name"):
                    docs.append((where, d))
    return files, docs


def one(docs, kind):
    found = [(w, d) for w, d in docs if d["kind"] == kind]
    check(len(found) == 1, f"expected exactly one {kind}, found {len(found)}")
    return found[0] if found else (None, {})


def start_with(binary, env, workers):
    """Starts the server with the pod's environment on a free loopback port;
    returns the "listening" line, or None after recording the failure."""
    penv = {k: v for k, v in os.environ.items() if not k.startswith("GOMOKUD_")}
    penv.update(env)
    penv["GOMOKUD_WORKERS"] = str(workers)
    penv["GOMOKUD_CONFIG"] = os.path.join(REPO, "config/gomokud.conf")  # as in the image
    proc = subprocess.Popen([binary, "serve", "--bind", "127.0.0.1", "--port", "0"], env=penv,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line, said, deadline = None, [], time.monotonic() + 15
    try:
        while time.monotonic() < deadline:
            out = proc.stderr.readline()
            if not out:
                break
            said.append(out.strip())
            if "msg=listening" in out:
                line = out.strip()
                break
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        said += proc.stderr.read().strip().splitlines()
        proc.stderr.close()
    if check(line is not None, f"the server did not start with the pod's settings (exit {rc}): "
             + " | ".join(said[-3:])):
        check(rc == 0, f"the server exited {rc} on SIGTERM with the pod's settings")
    return line


def main():
    args = sys.argv[1:]
    binary = None
    if len(args) >= 2 and args[0] == "--bin":
        binary = args[1]
        args = args[2:]
    mdir = os.path.abspath(args[0] if args else os.path.join(REPO, "deploy/k8s"))
    routes = server_routes()
    defaults = config_defaults()
    cfile = config_file()
    denv, exposed = dockerfile_env()
    metrics = exported_metrics()
    files, docs = load(mdir)

    # The shipped config file says its values are the built-in defaults.
    for k in ("port", "drain_timeout_ms", "tt_mib"):
        check(cfile.get(k) == defaults[k],
              f"config/gomokud.conf has {k} = {cfile.get(k)}, server/config.c's default is {defaults[k]}")
    default_port = int(defaults["port"])

    dw, dep = one(docs, "Deployment")
    pod = ((dep.get("spec") or {}).get("template") or {})
    pod_labels = (pod.get("metadata") or {}).get("labels") or {}
    pspec = pod.get("spec") or {}
    containers = pspec.get("containers") or []
    check(len(containers) == 1, f"{dw}: expected one container, found {len(containers)}")
    c = containers[0] if containers else {}
    check(subset((dep.get("spec") or {}).get("selector", {}).get("matchLabels"), pod_labels),
          f"{dw}: spec.selector.matchLabels does not match the pod template's labels")

    # Settings: the ConfigMap (envFrom), then the container's env; else the
    # config file in the image, else the built-in default.
    cms = {d["metadata"]["name"]: d for _, d in docs if d["kind"] == "ConfigMap"}
    env = {}
    for ef in c.get("envFrom") or []:
        name = (ef.get("configMapRef") or {}).get("name")
        if check(name in cms, f"{dw}: envFrom names ConfigMap '{name}', which is not among the manifests"):
            env.update({k: str(v) for k, v in (cms[name].get("data") or {}).items()})
    env_vars = {e["name"]: e for e in c.get("env") or []}
    env.update({n: str(e["value"]) for n, e in env_vars.items() if "value" in e})
    known = set(defaults)
    for name in env:
        if name.startswith("GOMOKUD_") and name != "GOMOKUD_CONFIG":
            check(name[8:].lower() in known, f"{dw}: {name} is not a setting of the server (server/config.c)")

    def setting(key):
        return env.get("GOMOKUD_" + key.upper(), cfile.get(key, defaults[key]))

    # Ports.
    ports = {p.get("name"): p.get("containerPort") for p in c.get("ports") or []}
    check(default_port in ports.values(),
          f"{dw}: no containerPort {default_port} (the server's default port); ports: {ports}")
    check(int(setting("port")) == default_port and int(denv.get("GOMOKUD_PORT", default_port)) == default_port,
          f"the port is set to {setting('port')} (manifests) / {denv.get('GOMOKUD_PORT')} (Dockerfile), "
          f"the container port is {default_port}")
    check(default_port in exposed, f"docker/Dockerfile does not EXPOSE {default_port}")

    def reaches(port_ref):
        return port_ref == default_port or ports.get(port_ref) == default_port

    # Probes.
    for probe, path in (("readinessProbe", "/readyz"), ("livenessProbe", "/livez")):
        get = ((c.get(probe) or {}).get("httpGet") or {})
        check(get.get("path") == path, f"{dw}: {probe} asks '{get.get('path')}', expected {path}")
        check(get.get("path") in routes,
              f"{dw}: {probe} path '{get.get('path')}' is not a route of the server ({sorted(routes)})")
        check(reaches(get.get("port")), f"{dw}: {probe} port '{get.get('port')}' is not the container port {default_port}")

    # Shutdown: preStop sleep + drain, within the grace period.
    grace = pspec.get("terminationGracePeriodSeconds", 30)
    cmd = ((((c.get("lifecycle") or {}).get("preStop") or {}).get("exec") or {}).get("command") or [])
    sleep = 0.0
    if check(len(cmd) == 2 and cmd[0] == "sleep", f"{dw}: no preStop [\"sleep\", N] (got {cmd})"):
        sleep = float(cmd[1])
    drain_s = int(setting("drain_timeout_ms")) / 1000
    check(grace > sleep + drain_s,
          f"{dw}: terminationGracePeriodSeconds {grace} does not exceed preStop sleep {sleep:g} s "
          f"+ drain_timeout_ms {drain_s:g} s")

    # Resources and workers.
    res = c.get("resources") or {}
    lim, req = res.get("limits") or {}, res.get("requests") or {}
    check("cpu" in lim and "memory" in lim and "cpu" in req and "memory" in req,
          f"{dw}: CPU and memory requests and limits are all needed")
    workers = math.ceil(cpu_cores(lim.get("cpu", 0))) if "cpu" in lim else 0
    wv = env_vars.get("GOMOKUD_WORKERS", {})
    ref = (wv.get("valueFrom") or {}).get("resourceFieldRef") or {}
    if ref:
        check(ref.get("resource") == "limits.cpu" and str(ref.get("divisor", "1")) == "1"
              and ref.get("containerName", c.get("name")) == c.get("name"),
              f"{dw}: GOMOKUD_WORKERS must come from this container's limits.cpu with divisor 1 (got {ref})")
    else:
        check(str(wv.get("value")) == str(workers),
              f"{dw}: GOMOKUD_WORKERS is '{wv.get('value')}', the CPU limit gives {workers} workers")
    tt = int(setting("tt_mib"))
    need = BASE_MIB + workers * (tt + PER_WORKER_MIB)
    if "memory" in lim:
        check(mib(lim["memory"]) >= need,
              f"{dw}: memory limit {lim['memory']} is below {need} MiB = {BASE_MIB} + {workers} workers x "
              f"({tt} MiB tt_mib + {PER_WORKER_MIB} MiB)")
    if "memory" in req and "memory" in lim:
        check(mib(req["memory"]) <= mib(lim["memory"]), f"{dw}: memory request above the limit")

    # Security.
    psc, csc = pspec.get("securityContext") or {}, c.get("securityContext") or {}
    check(csc.get("runAsNonRoot", psc.get("runAsNonRoot")) is True, f"{dw}: runAsNonRoot is not true")
    uid = csc.get("runAsUser", psc.get("runAsUser"))
    check(isinstance(uid, int) and uid > 0, f"{dw}: runAsUser should be a non-zero uid (got {uid})")
    check(csc.get("readOnlyRootFilesystem") is True, f"{dw}: readOnlyRootFilesystem is not true")
    check(csc.get("allowPrivilegeEscalation") is False, f"{dw}: allowPrivilegeEscalation is not false")

    # Service.
    sw, svc = one(docs, "Service")
    sspec = svc.get("spec") or {}
    check(subset(sspec.get("selector"), pod_labels), f"{sw}: the selector does not match the Deployment's pods")
    sports = sspec.get("ports") or []
    check(any(reaches(p.get("targetPort", p.get("port"))) for p in sports),
          f"{sw}: no port targets the container port {default_port}")

    # HPA.
    hw, hpa = one(docs, "HorizontalPodAutoscaler")
    hspec = hpa.get("spec") or {}
    tgt = hspec.get("scaleTargetRef") or {}
    check(tgt.get("kind") == "Deployment" and tgt.get("name") == dep.get("metadata", {}).get("name")
          and tgt.get("apiVersion") == dep.get("apiVersion"),
          f"{hw}: scaleTargetRef {tgt} is not the Deployment")
    check(any((m.get("resource") or {}).get("name") == "cpu" for m in hspec.get("metrics") or []),
          f"{hw}: no CPU metric")
    lo, hi = hspec.get("minReplicas", 1), hspec.get("maxReplicas", 0)
    check(1 <= lo <= hi, f"{hw}: minReplicas {lo} / maxReplicas {hi}")

    # PDB.
    bw, pdb = one(docs, "PodDisruptionBudget")
    bspec = pdb.get("spec") or {}
    check(subset((bspec.get("selector") or {}).get("matchLabels"), pod_labels),
          f"{bw}: the selector does not match the Deployment's pods")
    if "minAvailable" in bspec:
        check(isinstance(bspec["minAvailable"], str) or bspec["minAvailable"] < lo,
              f"{bw}: minAvailable {bspec['minAvailable']} would block every eviction at {lo} replicas")
    else:
        check(bspec.get("maxUnavailable") not in (None, 0, "0%"), f"{bw}: maxUnavailable 0 blocks every eviction")

    # ServiceMonitor.
    mw, smon = one(docs, "ServiceMonitor")
    mspec = smon.get("spec") or {}
    check(subset((mspec.get("selector") or {}).get("matchLabels"), (svc.get("metadata") or {}).get("labels") or {}),
          f"{mw}: the selector does not match the Service's labels")
    names = {p.get("name") for p in sports}
    eps = mspec.get("endpoints") or []
    check(eps, f"{mw}: no endpoints")
    for ep in eps:
        check(ep.get("port") in names, f"{mw}: endpoint port '{ep.get('port')}' is not a Service port name {names}")
        check(ep.get("path", "/metrics") in routes, f"{mw}: path '{ep.get('path')}' is not a route of the server")

    # Alert rules name real metrics.
    for rw, rule in [(w, d) for w, d in docs if d["kind"] == "PrometheusRule"]:
        for g in (rule.get("spec") or {}).get("groups") or []:
            for r in g.get("rules") or []:
                for name in re.findall(r'gomokud_[a-z_]+', str(r.get("expr", ""))):
                    base = re.sub(r'_(bucket|sum|count)$', "", name)
                    check(name in metrics or base in metrics,
                          f"{rw}: {r.get('alert')} uses {name}, which the server does not export")

    started = ""
    if binary:
        pod_env = {k: v for k, v in env.items() if k.startswith("GOMOKUD_")}
        line = start_with(binary, pod_env, workers)
        if line:
            got = dict(re.findall(r'(\w+)=(\S+)', line))
            for key, want in (("workers", workers), ("tt_mib", tt), ("queue_length", setting("queue_length"))):
                check(str(got.get(key)) == str(want),
                      f"the server started with {key}={got.get(key)}, the manifests set {want}")
            started = f"; the server starts with them ({', '.join(f'{k}={got.get(k)}' for k in ('workers', 'tt_mib', 'queue_length'))})"

    if failures:
        for f in failures:
            print(f"FAIL: {f}")
        print(f"check_k8s: {len(failures)} of {checks} checks failed")
        return 1
    print(f"check_k8s: {len(files)} manifests, {len(docs)} documents, {checks} checks OK "
          f"(routes {', '.join(sorted(r for r in routes if not r.startswith('/v1')))}; port {default_port}; "
          f"grace {grace} s > {sleep:g} + {drain_s:g} s; {workers} workers, memory {lim.get('memory')} >= {need} MiB)"
          f"{started}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
