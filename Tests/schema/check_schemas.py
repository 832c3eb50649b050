#!/usr/bin/env python3
"""Checks the JSON Schemas in schemas/ against the shipped journeys and the test fixtures.

    python3 Tests/schema/check_schemas.py [--journey-bin PATH]

(a) journeykit.yaml and every *.yaml under journeys/, Tests/Fixtures/schema-good/, the fixture
    projects with goldens (Tests/Fixtures/timers/) and the examples' projects
    (examples/custom-handler/ and examples/python-handler/: their journeykit.yaml and
    journeys/) is valid against its schema
    (a file with a top-level `scenario:` key is a scenario, else one with a top-level `journey:`
    key is a journey), and starts with a `# yaml-language-server: $schema=` line whose relative
    path resolves to that schema;
(b) every line of every *.jsonl under journeys/, those fixture projects and the example packages'
    journeys/ is a valid transcript event;
(c) every file in Tests/Fixtures/schema-bad/ is valid YAML that the schema REJECTS;
(d) with --journey-bin, `<bin> check FILE` agrees: exit 2 for schema-bad, 0 for schema-good;
(e) Tests/Fixtures/bad/expected.tsv lists every file of the bad-input corpus exactly once,
    with a known diagnostic id;
(f) with --journey-bin, schemas/handlers.schema.json (which journey.schema.json refers to for what
    each handler's `with:` and `on:` take) is what `journey handlers --schema` generates;
(g) with --journey-bin, the files `journey new` writes (a new project's project file, journey,
    scenario and golden transcript, and a journey and a scenario added to it) are valid against
    their schemas, and link the published schema (its `$id`) outside this repository, or
    this repository's schemas/ inside it;
(h) with --journey-bin, what `journey explore --json` prints and `journey test --json` writes
    (clean, with violations, random, from scenarios, not explored, interrupted, stopped at the memory
    bound, skipped, failing with a diff, invalid files) is valid against explore-report.schema.json
    and test-report.schema.json, together they show every property those schemas declare, and a
    report with a member missing, unknown or of the wrong kind is rejected.

The last line of output is `N passed, N failed`; the exit status is 1 if anything failed.
Needs Python 3.9+, PyYAML and jsonschema (>= 4.18 for draft 2020-12).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import yaml
    from yaml.nodes import MappingNode, ScalarNode
except ImportError:  # pragma: no cover
    sys.exit("check_schemas.py needs PyYAML: pip install pyyaml")
try:
    import jsonschema
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
except ImportError:  # pragma: no cover
    sys.exit("check_schemas.py needs jsonschema: pip install jsonschema")

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas"
JOURNEYS = ROOT / "journeys"
FIXTURES = ROOT / "Tests" / "Fixtures"
MODELINE = "# yaml-language-server: $schema="
PROJECT_FILE = "journeykit.yaml"
# Fixture projects with scenarios and goldens, checked like the shipped journeys.
FIXTURE_PROJECTS = [FIXTURES / "timers"]
# Example packages with a project of their own: their project file and journeys/ (not their
# build folders).
EXAMPLE_PROJECTS = [ROOT / "examples" / "custom-handler", ROOT / "examples" / "python-handler"]
BAD_CORPUS_IDS = {
    "yaml.syntax", "yaml.tab", "yaml.line-ending", "yaml.empty", "yaml.encoding", "yaml.too-large", "yaml.too-deep",
    "yaml.alias", "yaml.tag", "yaml.multiple-documents", "yaml.control-character",
    "yaml.duplicate-key", "yaml.flow-comma", "key.unknown", "key.missing", "value.type", "value.range", "handler.unknown",
}


# ----------------------------------------------------------------------------- YAML loading

class JourneyYAMLError(Exception):
    pass


class JourneyResolver(yaml.resolver.Resolver):
    """Only YAML 1.2-core-style scalars get a non-string type: `true`/`false` are booleans and
    decimal integers without leading zeros are ints. Everything else stays a string, so `0012`,
    `no`, `on`, `1_000`, `0x1F`, `~` and `2026-01-01T09:00:00Z` are strings (YAML 1.1 would turn
    them into numbers, booleans, null and timestamps). An empty plain scalar is null, so `key:`
    with no value is reported as a type error. `<<` is an ordinary key (no merge), which the
    schemas then reject."""


JourneyResolver.yaml_implicit_resolvers = {}
JourneyResolver.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))
JourneyResolver.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^-?(?:0|[1-9][0-9]*)$"), list("-0123456789"))
JourneyResolver.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^$"), [""])


class JourneyConstructor(yaml.constructor.SafeConstructor):
    """Mapping keys are the scalar text as written; non-scalar and duplicate keys are errors."""

    def construct_mapping(self, node, deep=False):
        if not isinstance(node, MappingNode):
            raise yaml.constructor.ConstructorError(None, None, "expected a mapping", node.start_mark)
        mapping = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, "keys must be scalars", key_node.start_mark)
            key = key_node.value
            if key in mapping:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, f"duplicate key '{key}'", key_node.start_mark)
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping


if getattr(yaml, "__with_libyaml__", False):
    # libyaml, the parser JourneyKit uses (through Yams). PyYAML's pure-Python scanner is YAML 1.1
    # and rejects e.g. `{ en: Forgot PIN?, nl: … }`, which libyaml and the format doc accept.
    class JourneyLoader(yaml.cyaml.CParser, JourneyConstructor, JourneyResolver):
        def __init__(self, stream):
            yaml.cyaml.CParser.__init__(self, stream)
            JourneyConstructor.__init__(self)
            JourneyResolver.__init__(self)
else:  # pragma: no cover
    print("note: PyYAML was built without libyaml; using its pure-Python parser", file=sys.stderr)

    class JourneyLoader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
                        JourneyConstructor, JourneyResolver):
        def __init__(self, stream):
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            yaml.composer.Composer.__init__(self)
            JourneyConstructor.__init__(self)
            JourneyResolver.__init__(self)


def load_yaml(path: Path):
    """Loads one journey or scenario file, rejecting what JourneyKit rejects at the YAML layer."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise JourneyYAMLError(f"not UTF-8: {e}") from None
    if text.startswith("\ufeff"):
        raise JourneyYAMLError("starts with a byte order mark")
    if "\t" in "".join(line[: len(line) - len(line.lstrip(" \t"))] for line in text.splitlines()):
        raise JourneyYAMLError("tab in indentation")
    try:
        documents = 0
        for event in yaml.parse(text, Loader=JourneyLoader):
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise JourneyYAMLError(f"anchors and aliases are not allowed ({event.start_mark})")
            if getattr(event, "tag", None) is not None:
                raise JourneyYAMLError(f"explicit tags are not allowed ({event.start_mark})")
        if documents != 1:
            raise JourneyYAMLError(f"expected exactly one YAML document, found {documents}")
        return yaml.load(text, Loader=JourneyLoader)
    except yaml.YAMLError as e:
        raise JourneyYAMLError(str(e)) from None


# ----------------------------------------------------------------------------- validation

@functools.lru_cache(maxsize=None)
def _compile_ecma(pattern: str):
    return re.compile(re.sub(r"(?<!\\)\$", r"\\Z", pattern))


def _ecma_pattern(validator, pattern, instance, schema):
    """`pattern` with ECMA-262 semantics for `$`: Python's `$` also matches before a final
    newline, which would let `"start\\n"` pass an id pattern."""
    if not validator.is_type(instance, "string"):
        return
    if not _compile_ecma(pattern).search(instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


StrictValidator = jsonschema.validators.extend(Draft202012Validator, {"pattern": _ecma_pattern})


def load_schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))


def make_validator(schema: dict, registry: Registry | None = None):
    """A validator that resolves references between the schemas by their `$id`s (journey.schema.json
    refers to handlers.schema.json beside it)."""
    return StrictValidator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER,
                           registry=registry if registry is not None else Registry())


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _closest(error):
    """For a failed anyOf/oneOf, the complaint of the branch that fits best. Branches that fail
    on the kind of thing (a type error on the value itself, or a mismatched discriminator such
    as `event`) are skipped; of the rest, the one with the fewest errors wins, and of its errors
    the deepest."""
    while error.context:
        branches: dict = {}
        for e in error.context:
            branches.setdefault(e.relative_schema_path[0] if e.relative_schema_path else None, []).append(e)

        def wrong_kind(errors):
            return any((e.validator == "type" and not e.relative_path)
                       or (e.validator == "const" and len(e.relative_path) == 1) for e in errors)

        viable = [errors for errors in branches.values() if not wrong_kind(errors)] or list(branches.values())
        error = max(min(viable, key=len), key=lambda e: (len(e.absolute_path), e.validator == "required"))
    return error


def describe(error) -> str:
    if error.validator == "oneOf" and not error.context:  # more than one form matched
        forms = []
        for form in error.validator_value:
            try:
                if StrictValidator(form).is_valid(error.instance):
                    forms.append(json.dumps(form))
            except Exception:  # a form with a $ref cannot be checked on its own
                pass
        return f"{error.json_path}: matches more than one of the exclusive forms: {' and '.join(forms) or '(several)'}"
    if not error.context:
        return f"{error.json_path}: {_short(error.message)}"
    leaf = _closest(error)
    return (f"{error.json_path}: matches none of the allowed forms ({error.validator}); "
            f"closest: {leaf.json_path}: {_short(leaf.message, 120)}")


def schema_errors(validator, instance) -> list[str]:
    errors = sorted(validator.iter_errors(instance), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [describe(e) for e in errors]


def kind_of(document, path: Path | None = None) -> str | None:
    """`project` for a file named journeykit.yaml; else `scenario` if there is a top-level
    `scenario:` key (a scenario also names its `journey:`), else `journey` if there is a
    top-level `journey:` key."""
    if path is not None and path.name == PROJECT_FILE:
        return "project"
    if not isinstance(document, dict):
        return None
    if "scenario" in document:
        return "scenario"
    if "journey" in document:
        return "journey"
    return None


# ----------------------------------------------------------------------------- the checks

class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def run(self, check, *args):
        """Runs one check; a crash counts as a failure, so the summary line is always printed."""
        try:
            check(self, *args)
        except Exception as e:  # noqa: BLE001
            self.fail(f"{check.__name__}({', '.join(rel(a) if isinstance(a, Path) else type(a).__name__ for a in args)})",
                      f"crashed: {type(e).__name__}: {e}")

    def ok(self, what: str):
        self.passed += 1
        print(f"ok   {what}")

    def fail(self, what: str, details: list[str] | str = ()):
        self.failed += 1
        print(f"FAIL {what}")
        for line in ([details] if isinstance(details, str) else details)[:12]:
            print(f"       {line}")


def rel(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


SCHEMA_NAMES = ("journey", "handlers", "scenario", "transcript", "project", "explore-report", "test-report")


def check_schemas_are_valid(report: Report) -> dict:
    validators = {}
    loaded = {}
    for name in SCHEMA_NAMES:
        path = SCHEMAS / f"{name}.schema.json"
        try:
            schema = load_schema(name)
            Draft202012Validator.check_schema(schema)
            problems = []
            if schema.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
                problems.append("$schema is not draft 2020-12")
            if schema.get("$id") != f"https://journeykit.dev/schemas/{name}.schema.json":
                problems.append(f"$id is {schema.get('$id')!r}")
            if problems:
                report.fail(f"{rel(path)} is a draft 2020-12 schema", problems)
            else:
                report.ok(f"{rel(path)} is a draft 2020-12 schema")
            loaded[name] = schema
        except (OSError, ValueError, jsonschema.SchemaError) as e:
            report.fail(f"{rel(path)} is a draft 2020-12 schema", str(e).splitlines()[:5])
    registry = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in loaded.values() if "$id" in schema)
    for name, schema in loaded.items():
        validators[name] = make_validator(schema, registry)
    if "handlers" not in loaded:
        validators.pop("journey", None)  # it cannot resolve what it refers to
    return validators


def check_modeline(report: Report, path: Path, kind: str):
    what = f"{rel(path)} starts with a schema line for {kind}.schema.json"
    first = path.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0].rstrip("\r")
    if not first.startswith(MODELINE):
        report.fail(what, f"first line is {first!r}; expected {MODELINE}<relative path>")
        return
    target = first[len(MODELINE):].strip()
    if "://" in target or os.path.isabs(target):
        report.fail(what, f"{target!r} is not a relative path")
        return
    resolved = (path.parent / target).resolve()
    expected = (SCHEMAS / f"{kind}.schema.json").resolve()
    if resolved != expected:
        report.fail(what, f"{target!r} resolves to {rel(resolved)}, not {rel(expected)}")
    else:
        report.ok(what)


def check_valid_yaml(report: Report, validators: dict, path: Path):
    try:
        document = load_yaml(path)
    except JourneyYAMLError as e:
        report.fail(f"{rel(path)} is valid", f"YAML: {e}")
        return
    kind = kind_of(document, path)
    if kind is None:
        report.fail(f"{rel(path)} is valid", "no top-level `journey:` or `scenario:` key")
        return
    check_modeline(report, path, kind)
    if kind not in validators:
        report.fail(f"{rel(path)} is a valid {kind}", "the schema did not load")
        return
    errors = schema_errors(validators[kind], document)
    if errors:
        report.fail(f"{rel(path)} is a valid {kind}", errors)
    else:
        report.ok(f"{rel(path)} is a valid {kind}")


def check_rejected_yaml(report: Report, validators: dict, path: Path):
    what = f"{rel(path)} is rejected by the schema"
    try:
        document = load_yaml(path)
    except JourneyYAMLError as e:
        report.fail(what, f"schema-bad files must be valid YAML, but: {e}")
        return
    kind = kind_of(document, path)
    if kind is None or kind not in validators:
        report.fail(what, "no top-level `journey:` or `scenario:` key, or the schema did not load")
        return
    errors = schema_errors(validators[kind], document)
    if errors:
        report.ok(f"{what}: {errors[0]}")
    else:
        report.fail(what, f"the {kind} schema accepts it")


def check_transcript(report: Report, validator, path: Path):
    problems = []
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        problems.append("empty transcript")
    for number, line in enumerate(lines, 1):
        try:
            event = json.loads(line)
        except ValueError as e:
            problems.append(f"line {number}: not JSON: {e}")
            continue
        if number == 1 and (not isinstance(event, dict) or event.get("event") != "transcript"):
            problems.append("line 1: the first line must be the `transcript` header")
        problems += [f"line {number}: {e}" for e in schema_errors(validator, event)]
    if problems:
        report.fail(f"{rel(path)} is a valid transcript", problems)
    else:
        report.ok(f"{rel(path)} is a valid transcript ({len(lines)} events)")


def expected_id(path: Path):
    """The diagnostic id a schema-bad fixture names in its `# expect: ID` header line."""
    for line in path.read_text(encoding="utf-8").splitlines()[:5]:
        if line.startswith("# expect: "):
            return line[len("# expect: "):].strip()
    return None


def check_loader_agrees(report: Report, binary: str, path: Path, expected: int):
    # A scenario fixture is checked next to the good journey it plays, so the only error it
    # can cause is its own; a bad fixture must also cause the diagnostic it names.
    files = [rel(path)]
    if expected != 0 and path.name.startswith("scenario-"):
        files.insert(0, rel(FIXTURES / "schema-good" / "unlock.yaml"))
    diagnostic = expected_id(path) if expected != 0 else None
    what = f"`journey check {' '.join(files)}` exits {expected}" + (f" with [{diagnostic}]" if diagnostic else "")
    if expected != 0 and diagnostic is None:
        report.fail(what, "the fixture has no `# expect: ID` line naming the diagnostic it must cause")
        return
    try:
        run = subprocess.run([binary, "check", *files], cwd=ROOT, capture_output=True, text=True,
                             errors="replace", timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        report.fail(what, str(e))
        return
    output = (run.stdout + run.stderr).strip().splitlines()
    if run.returncode != expected:
        report.fail(what, [f"exit {run.returncode}"] + output)
    elif diagnostic and not any(f"[{diagnostic}]" in line for line in output):
        report.fail(what, ["that diagnostic is not among:"] + output)
    else:
        report.ok(what)


def check_bad_corpus(report: Report):
    directory = FIXTURES / "bad"
    table = directory / "expected.tsv"
    what = f"{rel(table)} covers every file in {rel(directory)} with a known id"
    if not table.exists():
        report.fail(what, "missing")
        return
    problems, listed = [], {}
    for number, line in enumerate(table.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        columns = line.split("\t")
        if number == 1 and columns == ["file", "id"]:
            continue
        if len(columns) != 2:
            problems.append(f"line {number}: expected `file<TAB>id`, got {line!r}")
            continue
        name, diagnostic = columns
        if name in listed:
            problems.append(f"line {number}: {name} listed twice")
        listed[name] = diagnostic
        if diagnostic not in BAD_CORPUS_IDS:
            problems.append(f"line {number}: unknown diagnostic id {diagnostic!r}")
        if not (directory / name).is_file():
            problems.append(f"line {number}: {name} does not exist")
    present = {p.name for p in directory.iterdir()
               if p.is_file() and not p.name.startswith(".") and p.name not in ("README.md", "expected.tsv")}
    problems += [f"{name} is not listed" for name in sorted(present - set(listed))]
    if problems:
        report.fail(what, problems)
    else:
        report.ok(f"{what} ({len(listed)} files)")


def check_handlers_schema_is_generated(report: Report, binary: str):
    what = "schemas/handlers.schema.json is what `journey handlers --schema` generates"
    try:
        run = subprocess.run([binary, "handlers", "--schema", "--out", "schemas/handlers.schema.json", "--check"],
                             cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        report.fail(what, str(e))
        return
    if run.returncode != 0:
        report.fail(what, [f"exit {run.returncode}"] + (run.stdout + run.stderr).strip().splitlines())
    else:
        report.ok(what)


def check_new_files(report: Report, validators: dict, binary: str):
    """(g): runs `journey new` in a temporary folder, and in a copy of this repository's
    project file and schemas, and validates what it writes."""
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        inside = folder / "repo"
        (inside / "journeys").mkdir(parents=True)
        (inside / PROJECT_FILE).write_text("journeys: [journeys]\n", encoding="utf-8")
        (inside / "schemas").symlink_to(SCHEMAS)
        commands = [
            (folder, ["new", "project", "app"]),
            (folder / "app", ["new", "journey", "acme.sign-in"]),
            (folder / "app", ["new", "scenario", "--journey", "acme.sign-in", "right-pin"]),
            (inside, ["new", "journey", "acme.sign-in"]),
            (inside, ["new", "scenario", "--journey", "acme.sign-in", "right-pin"]),
        ]
        for cwd, arguments in commands:
            what = f"`journey {' '.join(arguments)}` writes its files"
            run = subprocess.run([binary, *arguments], cwd=cwd, capture_output=True, text=True,
                                 errors="replace", timeout=120)
            if run.returncode != 0:
                report.fail(what, [f"exit {run.returncode}"] + (run.stdout + run.stderr).strip().splitlines())
                return
            report.ok(what)
        for path in sorted(folder.rglob("*")):
            # The repository's copy: its schemas, and the project file written here.
            if "schemas" in path.relative_to(folder).parts or path == inside / PROJECT_FILE or not path.is_file():
                continue
            name = path.relative_to(folder).as_posix()
            if path.suffix == ".jsonl":
                check_transcript(report, validators["transcript"], path)
                continue
            if path.suffix != ".yaml":
                continue
            document = load_yaml(path)
            kind = kind_of(document, path)
            if kind not in validators:
                report.fail(f"journey new's {name} is valid", f"no schema for its kind ({kind})")
                continue
            first = path.read_text(encoding="utf-8").split("\n", 1)[0]
            published = load_schema(kind)["$id"]
            link = (f"{MODELINE}{os.path.relpath(inside / 'schemas', path.parent)}/{kind}.schema.json"
                    if inside in path.parents else f"{MODELINE}{published}")
            if first != link:
                report.fail(f"journey new's {name} links its schema", f"first line is {first!r}; expected {link!r}")
            errors = schema_errors(validators[kind], document)
            if errors:
                report.fail(f"journey new's {name} is a valid {kind}", errors)
            else:
                report.ok(f"journey new's {name} is a valid {kind}")


# Properties no run of the check can show: a report's `message` is written only while a run
# is under way or when a signal stops it (the Swift tests interrupt runs and read it).
UNSHOWN_REPORT_PROPERTIES = {"test-report": {"message"}}


def declared_properties(schema) -> set[str]:
    """Every property name any object in the schema declares."""
    found = set()
    if isinstance(schema, dict):
        for name, value in schema.items():
            if name == "properties" and isinstance(value, dict):
                found |= set(value)
            found |= declared_properties(value)
    elif isinstance(schema, list):
        for value in schema:
            found |= declared_properties(value)
    return found


def shown_properties(instance) -> set[str]:
    """Every member name in a JSON value."""
    if isinstance(instance, dict):
        return set(instance).union(*(shown_properties(value) for value in instance.values()))
    if isinstance(instance, list):
        return set().union(*(shown_properties(value) for value in instance))
    return set()


def cpu_seconds(pid: int) -> float:
    """The CPU time process `pid` has spent (Linux; elsewhere the time since the call)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return time.monotonic()


def interrupted_explore(binary: str):
    """`journey explore --json` of a journey with no end, sent SIGINT once it has spent two
    seconds of CPU: its report (exit 130), or what went wrong."""
    endless = FIXTURES / "endless" / "counters.journey.yaml"
    process = subprocess.Popen([binary, "explore", "--json", "--depth", "1000000", "--states", "100000000",
                                str(endless)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    start, deadline = cpu_seconds(process.pid), time.monotonic() + 60
    while time.monotonic() < deadline and cpu_seconds(process.pid) < start + 2 and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        return "it did not stop within 60 s of SIGINT"
    if process.returncode != 130:
        return [f"exit {process.returncode}"] + err.strip().splitlines()
    return json.loads(out)


def check_reports(report: Report, validators: dict, binary: str):
    """(h): runs `journey explore --json` and `journey test --json` the ways a CI job would, and
    validates what they print and write."""
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        # A copy of a fixture project whose golden no longer matches: a failure with a diff.
        stale = folder / "stale"
        subprocess.run(["cp", "-R", str(FIXTURES / "timers"), str(stale)], check=True)
        golden = stale / "transcripts" / "resend-after-a-minute.jsonl"
        golden.write_text(golden.read_text(encoding="utf-8").replace('"resend"', '"send again"', 1), encoding="utf-8")
        explores = [
            ["journeys"],
            # Not explored, and declaring no reason (eiam.provider-checks, in journeys, declares one).
            ["journeys/examples/tree-login.journey.yaml"],
            ["--emit", str(folder / "emitted"), "Tests/Fixtures/explore"],
            ["--random", "--seed", "3", "--walks", "20", "Tests/Fixtures/explore/pin-model-bug.journey.yaml"],
            # A journey with no end to its states, stopped by the memory bound.
            ["--states", "100000000", "--depth", "1000000", "--memory", "96MiB", str(FIXTURES / "deep")],
        ]
        tests = [
            [str(FIXTURES / "timers")],
            ["Tests/Fixtures/explore", "--explore"],
            ["journeys/eiam/provider-checks.journey.yaml", "--explore"],
            [str(FIXTURES / "heavy"), "--explore"],
            [str(stale)],
            [str(FIXTURES / "bad" / "attempts-too-many.yaml")],
        ]
        # A project whose handler program is declared deterministic but cannot say what to give
        # for its inputs: left out as `input-not-made`, naming the handler and the input.
        program = folder / "program"
        subprocess.run(["cp", "-R", str(ROOT / "examples" / "python-handler"), str(program)], check=True)
        project = program / "journeykit.yaml"
        project.write_text(project.read_text(encoding="utf-8").replace(
            "    timeout: 5s\n", "    timeout: 5s\n    deterministic: true\n", 1), encoding="utf-8")
        outputs = {"explore-report": [], "test-report": []}

        def shown(arguments):
            return " ".join(rel(Path(a)) if a.startswith(str(ROOT)) else a.replace(temporary, "TMP") for a in arguments)

        for arguments, cwd in [(arguments, ROOT) for arguments in explores] + [(["journeys"], program)]:
            what = f"`journey explore --json {shown(arguments)}`" + (" in a copy of examples/python-handler"
                                                                    if cwd == program else "")
            run = subprocess.run([binary, "explore", "--json", *arguments], cwd=cwd, capture_output=True, text=True,
                                 errors="replace", timeout=300)
            if run.returncode not in (0, 1):
                report.fail(f"{what} prints a report", [f"exit {run.returncode}"] + run.stderr.strip().splitlines())
                continue
            outputs["explore-report"].append((what, json.loads(run.stdout)))
        # Stopped by Ctrl-C: the exploration under way is marked interrupted.
        interrupted = interrupted_explore(binary)
        if isinstance(interrupted, str):
            report.fail("`journey explore --json` stopped by SIGINT prints a report", interrupted)
        else:
            outputs["explore-report"].append(("`journey explore --json` stopped by SIGINT", interrupted))
        for index, arguments in enumerate(tests):
            written = folder / f"report-{index}.json"
            what = f"`journey test {shown(arguments)} --json`"
            run = subprocess.run([binary, "test", *arguments, "--json", str(written)], cwd=ROOT, capture_output=True,
                                 text=True, errors="replace", timeout=300)
            if run.returncode not in (0, 1, 2) or not written.is_file():
                report.fail(f"{what} writes a report", [f"exit {run.returncode}"] + run.stderr.strip().splitlines())
                continue
            outputs["test-report"].append((what, json.loads(written.read_text(encoding="utf-8"))))
        for kind, reports in outputs.items():
            validator = validators[kind]
            for what, instance in reports:
                errors = schema_errors(validator, instance)
                if errors:
                    report.fail(f"{what} is a valid {kind}", errors)
                else:
                    report.ok(f"{what} is a valid {kind}")
            declared = declared_properties(load_schema(kind)) - UNSHOWN_REPORT_PROPERTIES.get(kind, set())
            shown = set().union(*(shown_properties(instance) for _, instance in reports)) if reports else set()
            unshown = sorted(declared - shown)
            if unshown:
                report.fail(f"the reports checked show every property of {kind}.schema.json",
                            f"never shown: {', '.join(unshown)}")
            else:
                report.ok(f"the reports checked show every property of {kind}.schema.json ({len(declared)})")
        # The schemas are not so loose that anything passes.
        broken = []
        if outputs["explore-report"]:
            entry = next(e for e in outputs["explore-report"][0][1] if "states" in e)
            broken += [("explore-report", "without `states`", [{k: v for k, v in entry.items() if k != "states"}]),
                       ("explore-report", "with an unknown member", [{**entry, "statez": 1}]),
                       ("explore-report", "with a violation of an unknown invariant",
                        [{**entry, "violations": [{"invariant": "explore.nope", "message": "m", "path": []}]}]),
                       ("explore-report", "with a negative count", [{**entry, "transitions": -1}]),
                       ("explore-report", "with a thing left out of an unknown kind",
                        [{**entry, "leftOut": [{"kind": "nope", "journey": "a.b", "message": "m"}]}]),
                       ("explore-report", "with a thing left out said as a sentence alone",
                        [{**entry, "leftOut": ["a.b.c: sends a request with no network to send it to"]}])]
        if outputs["test-report"]:
            instance = outputs["test-report"][0][1]
            scenario = instance["scenarios"][0]
            broken += [("test-report", "with an unknown status",
                        {**instance, "scenarios": [{**scenario, "status": "flaky"}]}),
                       ("test-report", "without `summary`", {k: v for k, v in instance.items() if k != "summary"}),
                       ("test-report", "with a state it never has", {**instance, "state": "done"})]
        # What the loader takes is taken: a journey id part may start with a digit (`demo.2fa`).
        if outputs["explore-report"]:
            what = "explore-report.schema.json accepts every journey id the loader accepts (demo.2fa)"
            errors = schema_errors(validators["explore-report"], [{**entry, "journey": "demo.2fa"}])
            if errors:
                report.fail(what, errors)
            else:
                report.ok(what)
        for kind, how, instance in broken:
            what = f"{kind}.schema.json rejects a report {how}"
            if schema_errors(validators[kind], instance):
                report.ok(what)
            else:
                report.fail(what, "it validates")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--journey-bin", metavar="PATH", help="the `journey` executable; checks that it agrees")
    args = parser.parse_args()

    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")
    report = Report()
    validators = {}
    report.run(lambda r: validators.update(check_schemas_are_valid(r)))

    # (a) shipped journeys and scenarios, and the good fixtures
    shipped = sorted(JOURNEYS.rglob("*.yaml")) if JOURNEYS.is_dir() else []
    good = sorted((FIXTURES / "schema-good").rglob("*.yaml"))
    bad = sorted((FIXTURES / "schema-bad").rglob("*.yaml"))
    project = [ROOT / PROJECT_FILE] if (ROOT / PROJECT_FILE).is_file() else []
    fixture_projects = [path for folder in FIXTURE_PROJECTS for path in sorted(folder.rglob("*.yaml"))]
    examples = [path for folder in EXAMPLE_PROJECTS
                for path in [folder / PROJECT_FILE] + sorted((folder / "journeys").rglob("*.yaml"))]
    for path in project + shipped + good + fixture_projects + examples:
        report.run(check_valid_yaml, validators, path)
    if not good:
        report.fail(f"{rel(FIXTURES / 'schema-good')} has fixtures", "no *.yaml files")

    # (b) transcripts
    if "transcript" in validators:
        transcripts = sorted(JOURNEYS.rglob("*.jsonl")) if JOURNEYS.is_dir() else []
        transcripts += [path for folder in FIXTURE_PROJECTS for path in sorted(folder.rglob("*.jsonl"))]
        transcripts += [path for folder in EXAMPLE_PROJECTS for path in sorted((folder / "journeys").rglob("*.jsonl"))]
        for path in transcripts:
            report.run(check_transcript, validators["transcript"], path)

    # (c) the bad fixtures are rejected
    for path in bad:
        report.run(check_rejected_yaml, validators, path)
    if not bad:
        report.fail(f"{rel(FIXTURES / 'schema-bad')} has fixtures", "no *.yaml files")

    # (d) the loader agrees
    if args.journey_bin:
        binary = os.path.abspath(args.journey_bin) if os.sep in args.journey_bin else args.journey_bin
        # A project file is read where it is found, not named to `journey check`: the Swift
        # tests check the CLI's side of it.
        for path in bad:
            if path.name != PROJECT_FILE:
                report.run(check_loader_agrees, binary, path, 2)
        for path in good:
            if path.name != PROJECT_FILE:
                report.run(check_loader_agrees, binary, path, 0)
        # (f) the per-handler schema is the one the handlers' contracts give
        report.run(check_handlers_schema_is_generated, binary)
        # (g) what `journey new` writes is valid against the schemas
        report.run(check_new_files, validators, binary)
        # (h) the reports `journey explore --json` and `journey test --json` give
        if {"explore-report", "test-report"} <= set(validators):
            report.run(check_reports, validators, binary)

    # (e) the bad-input corpus is consistent
    report.run(check_bad_corpus)

    print(f"{report.passed} passed, {report.failed} failed")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
