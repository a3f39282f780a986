#!/usr/bin/env python3
# Writes kcidb-v5.3.schema.json: the constraints of KCIDB I/O schema v5.3
# (kcidb-io, kcidb_io/schema/v05_03.py) without the prose, for the tests'
# validator.  Run it again only when moving to another schema version.
import json

ORIGIN = "[a-z0-9_]+"
ORIGIN_ID = f"{ORIGIN}:.*"
SHA1 = "[0-9a-f]{40}"
SHA256 = "[0-9a-f]{64}"
NO_NUL = "^[^\\u0000]*$"
PATH = "^([a-zA-Z0-9_-]+(\\.[a-zA-Z0-9_-]+)*)?$"

def s(**kw):
    return dict(type="string", **kw)

def text():
    return s(pattern=NO_NUL)

def oid():
    return s(pattern=f"^{ORIGIN_ID}$")

def time():
    return s(format="date-time")

def url():
    return s(format="uri")

def excerpt():
    return s(maxLength=16384, pattern=NO_NUL)

def obj(props, required=()):
    o = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        o["required"] = list(required)
    return o

RES_LIST = {"$ref": "#/$defs/resource_list"}
STATUS = {"$ref": "#/$defs/status"}
MISC = {"type": "object"}

defs = {
    "resource": obj({"name": s(pattern="^[^/\\u0000]+$"), "url": url()}, ["name", "url"]),
    "resource_list": {"type": "array", "items": {"$ref": "#/$defs/resource"}},
    "status": s(enum=["FAIL", "ERROR", "MISS", "PASS", "DONE", "SKIP"]),
    "path": s(pattern=PATH),
    "checkout": obj({
        "_timestamp": time(), "id": oid(), "origin": s(pattern=f"^{ORIGIN}$"),
        "tree_name": text(),
        "git_repository_url": dict(url(), pattern="^(https|git)://.*$"),
        "git_commit_hash": s(pattern=f"^{SHA1}$"),
        "git_commit_name": text(),
        "git_commit_tags": {"type": "array", "items": text()},
        "git_commit_message": text(), "git_repository_branch": text(),
        "git_repository_branch_tip": {"type": "boolean"},
        "patchset_files": RES_LIST,
        "patchset_hash": s(pattern=f"^$|^{SHA256}$"),
        "message_id": s(format="email"), "comment": text(),
        "start_time": time(), "origin_builds_finish_time": time(),
        "origin_tests_finish_time": time(),
        "log_url": url(), "log_excerpt": excerpt(),
        "valid": {"type": "boolean"}, "misc": MISC,
    }, ["id", "origin"]),
    "build": obj({
        "_timestamp": time(), "checkout_id": oid(), "id": oid(),
        "origin": s(pattern=f"^{ORIGIN}$"), "comment": text(),
        "start_time": time(), "duration": {"type": "number"},
        "architecture": s(pattern="^[a-z0-9_]*$"),
        "command": text(), "compiler": text(),
        "input_files": RES_LIST, "output_files": RES_LIST,
        "config_name": text(), "config_url": url(),
        "log_url": url(), "log_excerpt": excerpt(),
        "status": STATUS, "misc": MISC,
    }, ["checkout_id", "id", "origin"]),
    "test": obj({
        "_timestamp": time(), "build_id": oid(), "id": oid(),
        "origin": s(pattern=f"^{ORIGIN}$"),
        "environment": obj({
            "compatible": {"type": "array",
                           "items": s(pattern="^[^ \\u0000]+(,[^ \\u0000]+)*$")},
            "comment": text(), "misc": MISC}),
        "path": {"$ref": "#/$defs/path"}, "comment": text(),
        "log_url": url(), "log_excerpt": excerpt(), "status": STATUS,
        "number": obj({"value": {"type": "number"}, "unit": text(),
                       "prefix": s(enum=["metric", "binary"])}, ["value"]),
        "start_time": time(), "duration": {"type": "number"},
        "input_files": RES_LIST, "output_files": RES_LIST, "misc": MISC,
    }, ["build_id", "id", "origin"]),
    "issue": obj({
        "_timestamp": time(), "id": oid(),
        "version": {"type": "integer", "minimum": 0},
        "origin": s(pattern=f"^{ORIGIN}$"),
        "categories": {"type": "array", "items": {"$ref": "#/$defs/path"}},
        "report_url": url(), "report_subject": text(),
        "culprit": obj({"code": {"type": "boolean"}, "tool": {"type": "boolean"},
                        "harness": {"type": "boolean"}}),
        "comment": text(), "misc": MISC,
    }, ["id", "version", "origin"]),
    "incident": obj({
        "_timestamp": time(), "id": oid(), "origin": s(pattern=f"^{ORIGIN}$"),
        "issue_id": oid(), "issue_version": {"type": "integer", "minimum": 0},
        "build_id": oid(), "test_id": oid(), "present": {"type": "boolean"},
        "comment": text(), "misc": MISC,
    }, ["id", "origin", "issue_id", "issue_version"]),
}

def array_of(name):
    return {"type": "array", "items": {"$ref": f"#/$defs/{name}"}}

schema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "kcidb v5.3 (constraints only)",
    "type": "object",
    "$defs": defs,
    "properties": {
        "version": obj({"major": {"type": "integer", "const": 5},
                        "minor": {"type": "integer", "minimum": 0, "maximum": 3}},
                       ["major"]),
        "checkouts": array_of("checkout"), "builds": array_of("build"),
        "tests": array_of("test"), "issues": array_of("issue"),
        "incidents": array_of("incident"),
    },
    "additionalProperties": False,
    "required": ["version"],
}

with open("kcidb-v5.3.schema.json", "w") as f:
    json.dump(schema, f, indent=1, sort_keys=True)
    f.write("\n")
