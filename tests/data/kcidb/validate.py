#!/usr/bin/python3
# Validate KCIDB documents against kcidb-v5.3.schema.json (next to this
# file) with format checks on; prints one line per error, exits 1 on any.
# Usage: validate.py DOC.json...
import json, os, re, sys
import jsonschema
import rfc3987  # noqa: F401 (jsonschema checks "uri" with it)

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "kcidb-v5.3.schema.json")) as f:
    schema = json.load(f)
cls = jsonschema.Draft202012Validator
cls.check_schema(schema)
checker = jsonschema.FormatChecker()
# Debian 12 has no rfc3339-validator for jsonschema's own date-time check.
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$")
checker.checks("date-time")(lambda v: not isinstance(v, str) or bool(RFC3339.match(v)))
validator = cls(schema, format_checker=checker)
bad = 0
for path in sys.argv[1:]:
    with open(path) as f:
        doc = json.load(f)
    for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.path)):
        msg = e.message if len(e.message) < 300 else e.message[:300] + "..."
        print(f"{path}: {'/'.join(map(str, e.path)) or '(top)'}: {msg}")
        bad = 1
sys.exit(bad)
