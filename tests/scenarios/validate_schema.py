#!/usr/bin/env python3
"""Validates scenario files against scenarios/schema/scenario.v1.schema.json, as an editor would.

Usage: validate_schema.py SCHEMA FILE...
Prints one line per FILE, in order:  OK<TAB>FILE  or  REJECT<TAB>FILE<TAB>JSON pointer<TAB>message.
A file that is not UTF-8 JSON (RFC 8259) is rejected with an empty pointer: no schema can accept it.
Exit 0 when every file was judged (accepted or not), 3 when the tool itself cannot run: python3-jsonschema
missing, or the schema is not a valid draft 2020-12 schema. Used by tests/scenarios/schema_agreement.cpp.
"""
import json
import sys


def pointer(path):
    """RFC 6901 pointer of a jsonschema error path."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def reject_constant(name):
    # Python accepts NaN and Infinity, which are not JSON (RFC 8259); editors and the loader reject them.
    raise ValueError(f"{name} is not a JSON number")


def main(argv):
    try:
        import jsonschema
    except ImportError:
        print("validate_schema.py: the Python module jsonschema is missing; install the Debian package "
              "python3-jsonschema (tools/dev.sh test does)", file=sys.stderr)
        return 3
    if len(argv) < 2:
        print("usage: validate_schema.py SCHEMA FILE...", file=sys.stderr)
        return 3
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        print(f"validate_schema.py: {argv[1]} is not a valid draft 2020-12 schema: {e.message}", file=sys.stderr)
        return 3
    validator = jsonschema.Draft202012Validator(schema)
    for path in argv[2:]:
        try:
            with open(path, "rb") as f:
                doc = json.loads(f.read().decode("utf-8"), parse_constant=reject_constant)
        except (UnicodeDecodeError, ValueError, RecursionError) as e:
            print(f"REJECT\t{path}\t\tnot JSON: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
            continue
        error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
        if error is None:
            print(f"OK\t{path}")
        else:
            message = " ".join(error.message.split())[:300]
            print(f"REJECT\t{path}\t{pointer(error.absolute_path)}\t{message}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
