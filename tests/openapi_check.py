#!/usr/bin/env python3
"""Checks api/openapi.json, and the real server's answers against it.

    openapi_check.py --doc-only
    openapi_check.py --port N --key KEY [--phase serving|draining|limited]

The document is checked first: JSON, `openapi` 3.1.x, every local $ref
resolves, the objects have only the members OpenAPI 3.1 gives them, every
schema is a valid JSON Schema 2020-12 schema, every operation has
documented responses, and the routes of server/http.c are exactly the
paths with an operation that is not `x-pending`.

Then every case below (and the cases derived from the document: a 405 for
each method a path does not take, a 401 or an answer without the key for
each operation) is sent to the server on 127.0.0.1:N, which must have
`api_keys = KEY` and `fault_injection = 1`. Each answer is validated
against what the document itself says for (path, method, status, content
type): the status must be documented, the declared headers present and
valid, the body valid against the media type's schema; a request the
server accepted must be valid against the request body's schema. A path
the document does not list must answer the 404 of
#/components/responses/NotFound, a method a path does not take the 405 of
#/components/responses/MethodNotAllowed with `Allow` naming exactly the
path's operations.

Parts marked `x-pending` (being built, not served yet) are not expected:
if the server answers with one, the check fails and says to drop the
marker and add cases. Prints the number of responses validated; exits 1
on any failure. Needs only the standard library and python3-jsonschema
(Debian 12: 4.10, which has draft 2020-12).

Pictures (image/png, image/gif, image/svg+xml) are validated by their
format: the PNG signature and an IHDR chunk with a size, the GIF header,
logical screen and trailer, an SVG that parses as XML with an <svg> root in
the SVG namespace. A document that lists another image type, or one whose
schema's contentMediaType is not its media type, fails the document check.

Streamed answers (application/x-ndjson, text/event-stream) are validated
message by message: every NDJSON line against the media type's schema, and
only the last one may (and must) be the final answer; every SSE event's
data against the schema the media type's x-events names for its event.

The `limited` phase runs against a server with rate_limit = 1 and
rate_burst = 2 (see tests/test_openapi.c): the third request is a 429.

To add a case, append a Case to SERVING (or DRAINING, LIMITED): method, path,
expected status, and optionally a body (a dict is sent as JSON, a str as
is), extra headers, key=False (no Authorization) or key="wrong", and
valid_request=False for a 2xx whose body breaks the request schema on
purpose (a batch of bad slots).
"""
import argparse
import http.client
import json
import os
import re
import struct
import sys
import xml.etree.ElementTree as ElementTree

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC_FILE = os.path.join(ROOT, "api", "openapi.json")
ROUTES_FILE = os.path.join(ROOT, "server", "http.c")
METHODS = ("get", "head", "post", "put", "delete", "options", "patch")
PROBE_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE")  # for the derived 405 cases
JSON_TYPE = re.compile(r"^application/([a-z0-9.-]+\+)?json$")


class Case:
    def __init__(self, method, path, status, body=None, headers=None, key=True, content_length=None, name=None,
                 valid_request=True):
        self.method, self.path, self.status = method, path, status
        self.valid_request = valid_request  # False: the body is meant to break the request schema
        self.body, self.headers, self.key = body, dict(headers or {}), key
        self.content_length = content_length  # send only the headers, claiming this length
        self.name = name or "%s %s" % (method, path)


QUICK = {"moves": ["h8"], "limits": {"depth": 1}}

# The server runs with max_batch = 2, max_body_bytes = 4096, queue_length = 8
# (reviews of at most 7 moves), api_keys and fault_injection (see tests/test_openapi.c).
SERVING = [
    Case("GET", "/livez", 200),
    Case("GET", "/readyz", 200),
    Case("GET", "/v1/info", 200),
    Case("GET", "/metrics", 200),
    Case("GET", "/v1/openapi.json", 200),
    Case("POST", "/v1/analyze", 200, {"id": "g1", "moves": ["h8", "h9"], "limits": {"depth": 2}}),
    Case("POST", "/v1/analyze", 200, {"rule": "renju", "stones": {"black": ["h8", "i9", "g7"], "white": ["h9", "g9"]},
                                      "to_move": "white", "limits": {"depth": 2}, "multipv": 2},
         name="a renju diagram, two lines"),
    Case("POST", "/v1/analyze", 200, {"rule": "renju", "moves": ["h8", "a1", "h9", "a2", "i8", "a3", "i9"],
                                      "limits": {"depth": 1}}, name="renju, white to move"),
    Case("POST", "/v1/analyze", 200, {"rule": "renju", "moves": ["h8", "a1", "h9", "a2", "i8", "a3"],
                                      "limits": {"depth": 1}}, name="renju, black to move: forbidden points listed"),
    Case("POST", "/v1/analyze", 200, {"rule": "freestyle", "moves": ["h8", "a1", "i8", "a2", "j8"], "limits": {"depth": 2}},
         name="the opponent's threat and its refutations"),
    Case("POST", "/v1/analyze", 200, {"board_size": 19, "moves": [[9, 9], [10, 10]], "limits": {"nodes": 2000}}),
    Case("POST", "/v1/analyze", 200, {"moves": ["h8", "i8", "h9", "i9", "h10", "i10", "h11"], "limits": {"depth": 2}},
         name="a lost position: mate"),
    Case("POST", "/v1/analyze", 200, {"moves": ["h8", "i9"], "limits": {"depth": 3}},
         {"Accept": "application/x-ndjson"}, name="analyze, Accept: ndjson"),
    Case("POST", "/v1/analyze", 200, {"moves": ["h8", "i9"], "limits": {"depth": 3}, "multipv": 2},
         {"Accept": "application/x-ndjson"}, name="analyze, two lines, Accept: ndjson"),
    Case("POST", "/v1/analyze", 200, QUICK, {"Accept": "text/event-stream"}, name="analyze, Accept: event-stream"),
    Case("POST", "/v1/analyze", 200, QUICK, {"Accept": "application/x-ndjson", "X-Gomokud-Fault": "engine"},
         name="analyze streamed, an engine failure: the stream ends with the 500 problem"),
    Case("POST", "/v1/analyze", 200, QUICK, {"Origin": "https://app.example"}, name="analyze from an allowed origin"),
    Case("OPTIONS", "/v1/analyze", 204, headers={"Origin": "https://app.example",
                                                 "Access-Control-Request-Method": "POST"}, key=False,
         name="a CORS preflight"),
    Case("OPTIONS", "/v1/info", 204, headers={"Origin": "https://other.example",
                                              "Access-Control-Request-Method": "GET"}, key=False,
         name="a preflight from an origin not allowed"),
    Case("POST", "/v1/analyze", 400, "", name="an empty body"),
    Case("POST", "/v1/analyze", 200, QUICK, {"X-Request-ID": "trace:42_a.b-c"}, name="a request id echoed"),
    Case("POST", "/v1/analyze", 400, '{"moves": ["h8"', name="malformed JSON"),
    Case("POST", "/v1/analyze", 400, {"moves": ["h8"], "limits": {"depth": "deep"}}, name="a wrong type"),
    Case("POST", "/v1/analyze", 400, {"moves": ["h8"], "limit": {"depth": 1}}, name="an unknown member"),
    Case("POST", "/v1/analyze", 400, {"moves": ["h8"], "multipv": 99}, name="multipv out of range"),
    Case("POST", "/v1/analyze", 422, {"moves": ["h8", "i9", "h8"]}, name="two stones on a point"),
    Case("POST", "/v1/analyze", 422, {"moves": ["z99"]}, name="not a point"),
    Case("POST", "/v1/analyze", 422, {"stones": {"black": ["h8", "h9"], "white": []}}, name="bad stone counts"),
    Case("POST", "/v1/analyze", 413, content_length=1000000, name="a body over max_body_bytes"),
    Case("POST", "/v1/analyze", 500, QUICK, {"X-Gomokud-Fault": "engine"}, name="an engine failure"),
    Case("POST", "/v1/analyze", 500, QUICK, {"X-Gomokud-Fault": "render"}, name="a result that cannot be rendered"),
    Case("POST", "/v1/analyze/batch", 200, {"positions": [dict(QUICK, id="a"), {"id": "b", "moves": ["h8", "h8"]}]},
         name="a batch with a bad position in its slot"),
    Case("POST", "/v1/analyze/batch", 200, {"positions": [dict(QUICK, id="a"), {"id": "b", "moves": ["h8", "h8"]}]},
         {"Accept": "application/x-ndjson"}, name="a batch streamed as NDJSON"),
    Case("POST", "/v1/analyze/batch", 200, {"positions": [dict(QUICK, id="a"), {"id": "b", "moves": ["h8", "h8"]}]},
         {"Accept": "text/event-stream"}, name="a batch streamed as events"),
    Case("POST", "/v1/analyze/batch", 200, {"positions": [{"moves": 7}]}, name="a batch of only bad positions",
         valid_request=False),
    Case("POST", "/v1/analyze/batch", 200, {"positions": [{"moves": 7}]}, {"Accept": "application/x-ndjson"},
         name="a streamed batch of only bad positions", valid_request=False),
    Case("POST", "/v1/analyze/batch", 400, {"positions": []}, name="an empty batch"),
    Case("POST", "/v1/analyze/batch", 400, [QUICK], name="a batch that is not an object"),
    Case("POST", "/v1/analyze/batch", 413, {"positions": [QUICK, QUICK, QUICK]}, name="a batch over max_batch"),
    Case("POST", "/v1/review", 200, {"id": "r1", "moves": ["h8", "i9", "h9"], "limits": {"depth": 1}}),
    Case("POST", "/v1/review", 200, {"moves": ["h8", "i9", "h9"], "limits": {"depth": 1}},
         {"Accept": "application/x-ndjson"}, name="a review, Accept: ndjson"),
    Case("POST", "/v1/review", 200, {"moves": ["h8", "i9"], "limits": {"depth": 1}},
         {"Accept": "text/event-stream"}, name="a review, Accept: event-stream"),
    Case("POST", "/v1/review", 200, {"moves": ["f8", "a15", "g8", "a13", "h8", "a11", "i8"], "limits": {"depth": 2}},
         name="a review with a blunder and a missed win"),
    Case("POST", "/v1/review", 400, {"moves": ["h8"], "multipv": 2}, name="a review refuses multipv"),
    Case("POST", "/v1/review", 400, {"moves": []}, name="a review of no moves"),
    Case("POST", "/v1/review", 413, {"moves": ["a1", "b1", "c1", "d1", "e3", "f1", "g1", "h1"]},
         name="a review over max_review_moves"),
    Case("POST", "/v1/review", 422, {"moves": ["h8", "h8"]}, name="a review of an impossible game"),
    Case("GET", "/nowhere", 404),
    Case("POST", "/v1/analyze/", 404, QUICK),
    Case("POST", "/v1/move", 200, {"id": "m1", "moves": ["h8"], "level": 3, "seed": 7}, name="a move at level 3"),
    Case("POST", "/v1/move", 200, {"rule": "renju", "moves": ["h8", "h9"], "level": "beginner"},
         name="a move at a named level"),
    Case("POST", "/v1/move", 200, {"moves": ["h8", "a1", "h9", "a2", "h10", "a3", "h11", "a4"], "level": 9},
         name="a move that wins at once"),
    Case("POST", "/v1/move", 400, {"moves": ["h8"], "level": 11}, name="a level out of range"),
    Case("POST", "/v1/openings/balanced", 200, {"id": "o1", "rule": "renju", "stones": 3, "count": 2, "seed": 5},
         name="balanced openings"),
    Case("POST", "/v1/openings/balanced", 200, {"stones": 4, "count": 2, "limits": {"nodes": 1000}},
         name="balanced openings cut short by the node budget"),
    Case("POST", "/v1/openings/balanced", 400, {"stones": 0, "count": 1}, name="openings of no stone"),
    Case("POST", "/v1/openings/balanced", 400, {"stones": 3, "count": 1, "limits": {"time_ms": 5}},
         name="openings refuse a time limit"),
    Case("POST", "/v1/openings/balanced", 413, {"stones": 3, "count": 17}, name="too many openings"),
    Case("POST", "/v1/swap2", 200, {"id": "s0", "moves": [], "seed": 2, "limits": {"depth": 2}},
         name="swap2: place three stones"),
    Case("POST", "/v1/swap2", 200, {"moves": ["h8", "h9", "j10"], "limits": {"depth": 2}},
         name="swap2: the second player's choice"),
    Case("POST", "/v1/swap2", 200, {"moves": ["h8", "h9", "j10", "g7", "k11"], "limits": {"depth": 2}},
         name="swap2: the colour after five stones"),
    Case("POST", "/v1/swap2", 200, {"rule": "renju", "moves": ["h8", "h9", "i9"], "limits": {"depth": 2}},
         name="swap2 on a renju opening"),
    Case("POST", "/v1/swap2", 422, {"moves": ["h8", "h9"]}, name="swap2 with two stones"),
    Case("POST", "/v1/swap2", 400, {"moves": [], "seed": "x"}, name="swap2 with a bad seed"),
    Case("POST", "/v1/analyze", 200, {"rule": "renju", "moves": ["h8", "i9", "j10"], "limits": {"depth": 1}},
         name="an analysis naming its renju opening"),
    Case("POST", "/v1/move", 400, {"moves": ["h8"], "level": 2, "limits": {"depth": 3}}, name="a move refuses limits"),
    Case("POST", "/v1/move", 400, "", name="a move with an empty body"),
    Case("POST", "/v1/move", 422, {"moves": ["h8", "h8"], "level": 2}, name="a move in an impossible position"),
    Case("POST", "/v1/move", 500, {"moves": ["h8"], "level": 1}, {"X-Gomokud-Fault": "engine"},
         name="a move whose search fails"),
    Case("GET", "/v1/render?moves=h8,i9,h9", 200, name="a picture, SVG by default"),
    Case("GET", "/v1/render?moves=h8,i9&format=png&pixels=200&theme=dark&crop=true", 200, name="a PNG from the query"),
    Case("GET", "/v1/render?moves=h8,i9", 200, headers={"Accept": "image/png"}, name="a PNG by Accept"),
    Case("GET", "/v1/render?moves=h8,i9,h9&format=gif&pixels=120&delay_ms=200", 200, name="an animated GIF"),
    Case("GET", "/v1/render?rule=renju&black=h8,j8,i9,i10&white=a1,a2,a3,o15&to_move=black&style=plain", 200,
         name="a renju diagram with forbidden points"),
    Case("HEAD", "/v1/render?moves=h8", 200, name="HEAD of a picture"),
    Case("GET", "/v1/render?size=30", 400, name="a picture of a board too large"),
    Case("GET", "/v1/render?moves=h8,h8", 422, name="a picture of an impossible game"),
    Case("GET", "/v1/render?moves=h8&analyze=true&depth=1&format=png", 200, name="a picture with a search, GET"),
    Case("POST", "/v1/render", 200, {"moves": ["h8", "i9"], "format": "png", "pixels": 240, "analyze": True,
                                     "limits": {"depth": 2}, "multipv": 2}, name="a picture with a search"),
    Case("POST", "/v1/render", 200, {"moves": ["h8", "h9"], "numbers": 2, "analysis": {
        "best_move": "e9", "pv": ["e9", "g7"], "pvs": [{"move": "e9", "winrate": 0.54}]}},
         name="a picture of a given analysis"),
    Case("POST", "/v1/render", 200, {"moves": ["h8", "i9", "h9"], "format": "gif", "pixels": 100},
         name="a game animated, POST"),
    Case("POST", "/v1/render", 400, {"moves": ["h8"], "pixels": 5}, name="a picture too small"),
    Case("POST", "/v1/render", 400, {"moves": ["h8"], "limits": {"depth": 2}}, name="limits without analyze"),
    Case("POST", "/v1/render", 422, {"moves": ["h8"], "analysis": {"pv": ["h8"]}},
         name="an analysis on a stone"),
    Case("POST", "/v1/render", 413, content_length=1000000, name="a picture request over max_body_bytes"),
    Case("POST", "/v1/render", 500, {"moves": ["h8"]}, {"X-Gomokud-Fault": "render"},
         name="a picture that cannot be drawn"),
    Case("OPTIONS", "/v1/render", 204, headers={"Origin": "https://app.example", "Access-Control-Request-Method": "GET"},
         key=False, name="a preflight of a picture"),
    Case("GET", "/nowhere", 401, key=False, name="an unknown path without the key"),
    Case("GET", "/v1/info", 401, key="wrong", name="a wrong key"),
    Case("POST", "/v1/analyze", 401, QUICK, key="wrong", name="analyze with a wrong key"),
]

LIMITED = [  # the key's bucket: two, then 429; without the key the address has its own bucket
    Case("GET", "/v1/info", 200),
    Case("HEAD", "/v1/info", 200),
    Case("GET", "/v1/openapi.json", 200, key=False, name="another client (the address, no key)"),
    Case("POST", "/v1/analyze", 429, QUICK, name="past the burst"),
    Case("GET", "/v1/info", 429, name="past the burst, info"),
    Case("GET", "/livez", 200, name="probes are not limited"),
    Case("GET", "/readyz", 200, name="readiness is not limited"),
    Case("GET", "/metrics", 200, name="metrics are not limited"),
    Case("OPTIONS", "/v1/analyze", 204, headers={"Origin": "https://app.example"}, key=False,
         name="preflights are not limited"),
]

DRAINING = [
    Case("GET", "/readyz", 503),
    Case("HEAD", "/readyz", 503),
    Case("GET", "/livez", 200),
    Case("POST", "/v1/analyze", 503, QUICK),
    Case("POST", "/v1/analyze/batch", 503, {"positions": [QUICK]}),
    Case("POST", "/v1/review", 503, {"moves": ["h8"], "limits": {"depth": 1}}),
    Case("POST", "/v1/move", 503, {"moves": ["h8"], "level": 1}),
    Case("POST", "/v1/openings/balanced", 503, {"stones": 3, "count": 1}),
    Case("POST", "/v1/swap2", 503, {"moves": []}),
    Case("GET", "/v1/render?moves=h8", 503),
    Case("POST", "/v1/render", 503, {"moves": ["h8"]}),
]


# ---- the document ----------------------------------------------------------

def pointer_escape(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def lookup(doc, ref):
    """The value at a local reference "#/a/b"; KeyError when absent."""
    if not ref.startswith("#"):
        raise KeyError("not a local reference: %s" % ref)
    node = doc
    for part in [p for p in ref[1:].split("/") if p != ""]:
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def resolve(doc, obj, ptr):
    """Follows an object's $ref chain: (object, its pointer)."""
    seen = set()
    while isinstance(obj, dict) and "$ref" in obj:
        ref = obj["$ref"]
        if ref in seen:
            raise KeyError("a $ref cycle at %s" % ref)
        seen.add(ref)
        obj, ptr = lookup(doc, ref), ref
    return obj, ptr


def is_pending(obj):
    return isinstance(obj, dict) and "x-pending" in obj


def operations(doc, path):
    """{method: operation} of the path's operations that are served now."""
    item = doc["paths"].get(path) or {}
    return {m: op for m, op in item.items() if m in METHODS and not is_pending(op)}


def walk(node, ptr=""):
    """Every (value, pointer) in the tree."""
    yield node, ptr
    if isinstance(node, dict):
        for k, v in node.items():
            yield from walk(v, ptr + "/" + pointer_escape(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, ptr + "/" + str(i))


def http_routes():
    with open(ROUTES_FILE, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"static MetricsRoute route_of\(const char \*url\)\s*\{(.*?)\n\}", text, re.S)
    if not m:
        raise SystemExit("openapi_check: route_of() not found in server/http.c")
    return set(re.findall(r'strcmp\(url, "([^"]+)"\)', m.group(1)))


# The fixed fields of the OpenAPI 3.1 objects this document uses (besides x-*).
FIELDS = {
    "info": {"title", "summary", "description", "termsOfService", "contact", "license", "version"},
    "operation": {"tags", "summary", "description", "externalDocs", "operationId", "parameters", "requestBody",
                  "responses", "callbacks", "deprecated", "security", "servers"},
    "parameter": {"name", "in", "description", "required", "deprecated", "allowEmptyValue", "style", "explode",
                  "allowReserved", "schema", "example", "examples", "content"},
    "requestBody": {"description", "content", "required"},
    "response": {"description", "headers", "content", "links"},
    "header": {"description", "required", "deprecated", "style", "explode", "schema", "example", "examples",
               "content"},
    "media": {"schema", "example", "examples", "encoding"},
    "reference": {"$ref", "summary", "description"},
}


def unknown_fields(obj, kind, where):
    """Errors for members that an OpenAPI object of this kind does not have."""
    if not isinstance(obj, dict):
        return ["%s: an object expected" % where]
    allowed = FIELDS["reference" if "$ref" in obj else kind]
    return ["%s: %s has no member %s" % (where, "a reference" if "$ref" in obj else "a " + kind, k)
            for k in obj if k not in allowed and not k.startswith("x-")]


def check_objects(doc):
    """The OpenAPI objects' members, as the 3.1 specification lists them."""
    errors = unknown_fields(doc.get("info", {}), "info", "info")
    lic = doc.get("info", {}).get("license")
    if lic is not None and not (lic.get("name") and ("identifier" in lic) != ("url" in lic)):
        errors.append("info.license needs a name and either an identifier or a url")
    responses = list(doc["components"].get("responses", {}).items())
    headers = list(doc["components"].get("headers", {}).items())
    for path, item in doc["paths"].items():
        for method, op in item.items():
            where = "%s %s" % (method.upper(), path)
            errors += unknown_fields(op, "operation", where)
            for p in op.get("parameters", []):
                errors += unknown_fields(p, "parameter", where + " parameter")
            if "requestBody" in op:
                errors += unknown_fields(op["requestBody"], "requestBody", where + " requestBody")
                for mt, media in op["requestBody"].get("content", {}).items():
                    errors += unknown_fields(media, "media", "%s requestBody %s" % (where, mt))
            responses += [("%s %s" % (where, st), r) for st, r in op.get("responses", {}).items()]
    for name, p in doc["components"].get("parameters", {}).items():
        errors += unknown_fields(p, "parameter", "parameter " + name)
    for where, r in responses:
        errors += unknown_fields(r, "response", where)
        if "$ref" in r:
            continue
        headers += [("%s header %s" % (where, n), h) for n, h in r.get("headers", {}).items()]
        for mt, media in r.get("content", {}).items():
            errors += unknown_fields(media, "media", "%s %s" % (where, mt))
    for where, h in headers:
        errors += unknown_fields(h, "header", "header " + where)
    return errors


def check_document(doc):
    errors = []
    if not re.match(r"^3\.1\.\d+$", str(doc.get("openapi", ""))):
        errors.append("openapi is %r, not 3.1.x" % doc.get("openapi"))
    for key in ("title", "version"):
        if not doc.get("info", {}).get(key):
            errors.append("info.%s is missing" % key)
    for node, ptr in walk(doc):
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            try:
                lookup(doc, node["$ref"])
            except (KeyError, IndexError, ValueError):
                errors.append("%s: $ref %s does not resolve" % (ptr, node["$ref"]))
        if isinstance(node, dict) and "x-pending" in node and not isinstance(node["x-pending"], str):
            errors.append("%s: x-pending names the feature (a string)" % ptr)
    if errors:
        return errors  # the rest needs the references
    errors += check_objects(doc)
    schemas = [(s, "#/components/schemas/" + pointer_escape(n)) for n, s in doc["components"]["schemas"].items()]
    op_ids = set()
    for path, item in doc["paths"].items():
        if not path.startswith("/"):
            errors.append("path %s does not start with /" % path)
        for method, op in item.items():
            if method not in METHODS:
                errors.append("%s: unknown member %s" % (path, method))
                continue
            where = "%s %s" % (method.upper(), path)
            if "operationId" in op:
                if op["operationId"] in op_ids:
                    errors.append("%s: operationId %s is not unique" % (where, op["operationId"]))
                op_ids.add(op["operationId"])
            if not op.get("responses"):
                errors.append("%s: no responses" % where)
            for status, resp in op.get("responses", {}).items():
                if not re.match(r"^[1-5][0-9][0-9]$", status):
                    errors.append("%s: response key %s is not a status" % (where, status))
                resp, rptr = resolve(doc, resp, "")
                if not resp.get("description"):
                    errors.append("%s %s: the response has no description" % (where, status))
            for param in op.get("parameters", []):
                param, _ = resolve(doc, param, "")
                if not param.get("name") or param.get("in") not in ("query", "header", "path", "cookie"):
                    errors.append("%s: a parameter needs a name and a valid `in`" % where)
                if "schema" in param:
                    schemas.append((param["schema"], where + " parameter " + param.get("name", "?")))
            body = op.get("requestBody")
            if body:
                for mt, media in resolve(doc, body, "")[0].get("content", {}).items():
                    schemas.append((media.get("schema", {}), where + " request " + mt))
    for node, ptr in walk(doc["components"].get("headers", {}), "#/components/headers"):
        if isinstance(node, dict) and "schema" in node and "description" in node:
            schemas.append((node["schema"], ptr))
    for node, ptr in walk(doc["components"].get("responses", {}), "#/components/responses"):
        if isinstance(node, dict) and "schema" in node and ptr.count("/content/") == 1:
            schemas.append((node["schema"], ptr))
    for schema, where in schemas:
        try:
            Draft202012Validator.check_schema(schema)
        except Exception as e:  # SchemaError: report, do not stop
            errors.append("%s: not a valid JSON Schema 2020-12: %s" % (where, getattr(e, "message", e)))
    for node, ptr in walk(doc):
        if not (isinstance(node, dict) and ptr.endswith("/content")):
            continue
        for mt, media in node.items():
            if not mt.startswith("image/"):
                continue
            if mt not in IMAGE_CHECKS:
                errors.append("%s: no validator for %s in tests/openapi_check.py: add one" % (ptr, mt))
            schema = media.get("schema", {}) if isinstance(media, dict) else {}
            if schema.get("contentMediaType") != mt:
                errors.append("%s/%s: the schema's contentMediaType is %r" % (ptr, pointer_escape(mt),
                                                                             schema.get("contentMediaType")))
    routes = http_routes()
    served = {p for p in doc["paths"] if operations(doc, p)}
    for r in sorted(routes - served):
        errors.append("server/http.c routes %s, which the document does not describe" % r)
    for p in sorted(served - routes):
        errors.append("the document describes %s, which server/http.c does not route (mark it x-pending?)" % p)
    return errors


def pending_parts(doc):
    return sorted({node["x-pending"] for node, _ in walk(doc) if isinstance(node, dict) and "x-pending" in node})


# ---- the server's answers --------------------------------------------------

def send(port, key, case):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = dict(case.headers)
    if case.key is True:
        headers["Authorization"] = "Bearer " + key
    elif case.key:
        headers["Authorization"] = "Bearer " + case.key
    try:
        if case.content_length is not None:
            conn.putrequest(case.method, case.path)
            for k, v in headers.items():
                conn.putheader(k, v)
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Content-Length", str(case.content_length))
            conn.endheaders()
        else:
            body = case.body
            if body is not None and not isinstance(body, str):
                body = json.dumps(body)
            if body is not None:
                headers.setdefault("Content-Type", "application/json")
            conn.request(case.method, case.path, body=body.encode() if body is not None else None, headers=headers)
        r = conn.getresponse()
        data = r.read()
        return r.status, r.headers, data
    finally:
        conn.close()


def schema_errors(doc, ptr, value):
    """Validation errors of value against the schema at pointer ptr, resolved in the document."""
    validator = Draft202012Validator(dict(doc, **{"$ref": ptr}))
    errs = list(validator.iter_errors(value))
    if not errs:
        return []
    e = best_match(errs)
    at = "/".join(str(p) for p in e.absolute_path)
    return ["%s (at /%s; %d error(s))" % (e.message[:300], at, len(errs))]


def expected_responses(doc, case):
    """(responses of the operation, pointer, operation or None, allowed methods or None)."""
    path = case.path.split("?")[0]
    ops = operations(doc, path)
    item = doc["paths"].get(path) or {}
    pending_op = item.get(case.method.lower())
    secured = any(op.get("security", doc.get("security")) != [] for op in ops.values()) if ops else True
    extra = {"401": {"$ref": "#/components/responses/Unauthorized"}} if secured else {}
    if not ops:
        return dict(extra, **{"404": {"$ref": "#/components/responses/NotFound"}}), "", pending_op, None
    op = ops.get(case.method.lower())
    if op is None:
        allow = {m.upper() for m in ops}
        return dict(extra, **{"405": {"$ref": "#/components/responses/MethodNotAllowed"}}), "", pending_op, allow
    ptr = "#/paths/%s/%s/responses" % (pointer_escape(path), case.method.lower())
    return op["responses"], ptr, op, None


def check_answer(doc, case, status, headers, data):
    errors = []
    responses, rptr, op, allow = expected_responses(doc, case)
    if status != case.status:
        hint = ""
        if is_pending(op):
            hint = " -- %s is marked x-pending (%s); if it is built now, drop the marker and add cases" % (
                case.name, op["x-pending"])
        errors.append("status %d, expected %d%s; body: %s" % (status, case.status, hint, data[:300]))
    if str(status) not in responses:
        errors.append("status %d is not documented for %s %s" % (status, case.method, case.path))
        return errors
    resp, ptr = resolve(doc, responses[str(status)], rptr + "/" + str(status))
    if is_pending(resp):
        errors.append("the answer is %s's response, marked x-pending: drop the marker and add cases" % ptr)
    for name, h in resp.get("headers", {}).items():
        h, hptr = resolve(doc, h, ptr + "/headers/" + pointer_escape(name))
        value = headers.get(name)
        if value is None:
            if h.get("required") and not is_pending(h):
                errors.append("header %s is missing" % name)
            continue
        if is_pending(h):
            errors.append("header %s is sent, but %s is marked x-pending (%s): drop the marker and add cases" % (
                name, hptr, h["x-pending"]))
        schema = h.get("schema", {})
        if schema.get("type") == "integer":
            if not re.match(r"^[0-9]+$", value):
                errors.append("header %s: %r is not an integer" % (name, value))
                continue
            value = int(value)
        errors += ["header %s: %s" % (name, e) for e in schema_errors(doc, hptr + "/schema", value)]
    if allow is not None:
        got = {m.strip() for m in (headers.get("Allow") or "").split(",") if m.strip()}
        if got != allow:
            errors.append("Allow is %s; the document's operations on %s are %s" % (sorted(got), case.path,
                                                                                  sorted(allow)))
    if case.method == "HEAD":
        if data:
            errors.append("a HEAD answer with a body")
    elif "content" not in resp:
        if data:
            errors.append("a body where the document has none")
    else:
        errors += check_body(doc, resp, ptr, headers.get("Content-Type") or "", data)
    if (200 <= status < 300 and case.valid_request and op is not None and op.get("requestBody")
            and isinstance(case.body, (dict, list))):
        body = op["requestBody"]
        bptr = "#/paths/%s/%s/requestBody" % (pointer_escape(case.path.split("?")[0]), case.method.lower())
        body, bptr = resolve(doc, body, bptr)
        errors += ["the server accepted a request the document refuses: %s" % e
                   for e in schema_errors(doc, bptr + "/content/application~1json/schema", case.body)]
    return errors


def check_body(doc, resp, ptr, ctype, data):
    norm = ";".join(p.strip() for p in ctype.lower().split(";"))
    keys = {";".join(p.strip() for p in k.lower().split(";")): k for k in resp["content"]}
    key = keys.get(norm) or keys.get(norm.split(";")[0])
    if key is None:
        return ["Content-Type %r is not documented here (%s)" % (ctype, ", ".join(resp["content"]))]
    media = resp["content"][key]
    mptr = ptr + "/content/" + pointer_escape(key)
    if is_pending(media):
        return ["the answer is %s, marked x-pending (%s): drop the marker and add cases" % (key, media["x-pending"])]
    base = key.split(";")[0].strip()
    if base in IMAGE_CHECKS:
        return IMAGE_CHECKS[base](data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return ["the body is not UTF-8"]
    if JSON_TYPE.match(base):
        try:
            value = json.loads(text)
        except ValueError as e:
            return ["the body is not JSON (%s): %s" % (e, text[:300])]
    elif base == "text/plain":
        value = text
    elif base == "application/x-ndjson":
        return check_ndjson(doc, mptr, text)
    elif base == "text/event-stream":
        return check_events(doc, media, mptr, text)
    else:
        return ["no validator for %s in tests/openapi_check.py: add one" % base]
    return schema_errors(doc, mptr + "/schema", value)


def check_png(data):
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return ["not a PNG: no PNG signature"]
    if len(data) < 33 or data[12:16] != b"IHDR":
        return ["not a PNG: the first chunk is not IHDR"]
    w, h = struct.unpack(">II", data[16:24])
    if not (0 < w <= 4096 and 0 < h <= 4096):
        return ["a PNG of %dx%d pixels" % (w, h)]
    if data[-8:-4] != b"IEND":
        return ["a PNG without its IEND chunk at the end"]
    return []


def check_gif(data):
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        return ["not a GIF: no GIF87a/GIF89a header"]
    w, h = struct.unpack("<HH", data[6:10]) if len(data) >= 10 else (0, 0)
    if not (0 < w <= 4096 and 0 < h <= 4096):
        return ["a GIF of %dx%d pixels" % (w, h)]
    if data[-1:] != b"\x3b":
        return ["a GIF without its trailer"]
    return []


def check_svg(data):
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as e:
        return ["the SVG is not well-formed XML: %s" % e]
    if root.tag != "{http://www.w3.org/2000/svg}svg":
        return ["the root element is %s, not an SVG <svg>" % root.tag]
    if not re.match(r"^0 0 [0-9]+ [0-9]+$", root.get("viewBox", "")):
        return ["the <svg> has no viewBox '0 0 W H'"]
    return []


IMAGE_CHECKS = {"image/png": check_png, "image/gif": check_gif, "image/svg+xml": check_svg}


def check_ndjson(doc, mptr, text):
    """Every line valid against the stream's schema; the last, only the last, final."""
    if not text.endswith("\n"):
        return ["the stream does not end with a newline"]
    lines = text[:-1].split("\n")
    errors = []
    for i, line in enumerate(lines):
        try:
            value = json.loads(line)
        except ValueError as e:
            return ["line %d is not JSON (%s): %s" % (i + 1, e, line[:200])]
        last = i == len(lines) - 1
        if not isinstance(value, dict) or (value.get("final") is True) != last:
            errors.append("line %d of %d: only the last line is final: %s" % (i + 1, len(lines), line[:200]))
        errors += ["line %d: %s" % (i + 1, e) for e in schema_errors(doc, mptr + "/schema", value)]
    return errors


def check_events(doc, media, mptr, text):
    """Every event one of the media type's x-events, its data valid; the last, only the last, `result`."""
    if not text.endswith("\n\n"):
        return ["the event stream does not end with a blank line"]
    events = text[:-2].split("\n\n")
    errors = []
    names = media.get("x-events", {})
    for i, ev in enumerate(events):
        fields = dict(line.split(": ", 1) for line in ev.split("\n") if ": " in line)
        name, data = fields.get("event"), fields.get("data")
        if name not in names or data is None or len(ev.split("\n")) != 2:
            errors.append("event %d is not 'event: <%s>' and one data line: %r" % (i + 1, "|".join(names), ev[:200]))
            continue
        if (name == "result") != (i == len(events) - 1):
            errors.append("event %d of %d is %s: the last event, only the last, is the result" % (
                i + 1, len(events), name))
        try:
            value = json.loads(data)
        except ValueError as e:
            errors.append("event %d: data is not JSON (%s)" % (i + 1, e))
            continue
        eptr = mptr + "/x-events/" + pointer_escape(name)
        errors += ["event %d (%s): %s" % (i + 1, name, e) for e in schema_errors(doc, eptr, value)]
    return errors


def derived_cases(doc):
    """A 405 for each method a served path does not take; each operation without the key."""
    cases = []
    for path in doc["paths"]:
        ops = operations(doc, path)
        if not ops:
            continue
        for m in PROBE_METHODS:
            if m.lower() not in ops:
                cases.append(Case(m, path, 405, {} if m in ("POST", "PUT") else None,
                                  name="%s %s (not an operation)" % (m, path)))
        for m, op in ops.items():
            public = op.get("security", doc.get("security")) == []
            body = QUICK if m == "post" else None
            success = min(int(s) for s in op["responses"] if s.startswith("2"))
            cases.append(Case(m.upper(), path, success if public else 401, body, key=False,
                              name="%s %s without the key" % (m.upper(), path)))
        for m, op in (doc["paths"][path]).items():
            if m == "options" and is_pending(op):  # not built yet: answered like any unknown method
                cases.append(Case("OPTIONS", path, 405, headers={"Origin": "https://app.example"},
                                  name="OPTIONS %s (pending)" % path))
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int)
    ap.add_argument("--key")
    ap.add_argument("--phase", choices=("serving", "draining", "limited"), default="serving")
    ap.add_argument("--doc-only", action="store_true")
    args = ap.parse_args()

    with open(DOC_FILE, "rb") as f:
        raw = f.read()
    try:
        doc = json.loads(raw)
    except ValueError as e:
        print("openapi_check: api/openapi.json is not JSON: %s" % e)
        return 1
    errors = check_document(doc)
    for e in errors:
        print("openapi_check: document: %s" % e)
    if errors:
        return 1
    if args.doc_only:
        print("openapi_check: the document is valid OpenAPI %s: %d paths, %d schemas; pending: %s" % (
            doc["openapi"], len(doc["paths"]), len(doc["components"]["schemas"]), ", ".join(pending_parts(doc))))
        return 0
    if not args.port or not args.key:
        ap.error("--port and --key are needed unless --doc-only")

    cases = {"draining": DRAINING, "limited": LIMITED}.get(args.phase) or SERVING + derived_cases(doc)
    failed = 0
    for case in cases:
        try:
            status, headers, data = send(args.port, args.key, case)
        except (OSError, http.client.HTTPException) as e:
            print("openapi_check: FAIL %s: %s" % (case.name, e))
            failed += 1
            continue
        if case.method == "GET" and case.path == "/v1/openapi.json" and status == 200 and data != raw:
            print("openapi_check: FAIL %s: the served document is not api/openapi.json" % case.name)
            failed += 1
            continue
        errs = check_answer(doc, case, status, headers, data)
        for e in errs:
            print("openapi_check: FAIL %s: %s" % (case.name, e))
        failed += bool(errs)
    print("openapi_check: %d responses validated (%s), %d failed; not yet validated (x-pending): %s" % (
        len(cases) - failed, args.phase, failed, ", ".join(pending_parts(doc))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
