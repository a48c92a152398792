"""User errors: a mistake in the config or the data, reported as its message alone.

Every check that runs before any job (the config schema, the experiments, the datasets) and every
job that reads the user's input raises a :class:`UserError` whose message names the thing, its
place in the config and the fix. The pipeline prints that message without a traceback and stops
with a non-zero status; any other exception is an internal error and keeps its traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping


class UserError(ValueError):
    """A mistake in the config or the data (not in locproj): the message says what to do."""


class ConfigError(UserError):
    """A config key that is unknown, of the wrong type, or refers to nothing."""


def user_error_message(error: UserError) -> str:
    """The one block the pipeline prints for a user error."""
    return f"Error in the config or data ({type(error).__name__}), nothing was run:\n    {error}"


def schema_error(error: BaseException) -> ConfigError | None:
    """The config's violation of the JSON schema as a :class:`ConfigError`, from the
    ``jsonschema`` ``ValidationError`` that ``snakemake.utils.validate`` raised ``error`` from (None
    if there is none): the key and its place in the config; for an unknown key, the closest allowed
    one ("did you mean") and every key allowed there; otherwise what the value should be."""
    violation = error
    while violation is not None and not hasattr(violation, "absolute_path"):
        violation = violation.__cause__ or violation.__context__
    if violation is None:
        return None
    place = _place(violation.absolute_path)
    if violation.validator == "additionalProperties" and isinstance(violation.instance, Mapping):
        return _unknown_key(place, violation.instance, violation.schema)
    if violation.validator == "required":
        return ConfigError(f"config key {place or '(top level)'}: {violation.message}; add it to your config")
    shown = repr(violation.instance)
    shown = shown if len(shown) <= 80 else shown[:77] + "..."
    if violation.validator in ("anyOf", "oneOf"):
        expected = "is none of: " + "; ".join(_described(option) for option in violation.validator_value)
    else:
        expected = violation.message.removeprefix(repr(violation.instance)).strip()
    return ConfigError(f"config key {place or '(top level)'}: {shown} {expected}; fix the value in your config")


def _place(path) -> str:
    """``experiments.llp_table2.datasets.yale[0]`` from a JSON path."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _described(schema: Mapping) -> str:
    """A few words for one alternative of an ``anyOf``/``oneOf``."""
    if "const" in schema:
        return repr(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(map(repr, schema["enum"]))
    kind = schema.get("type", "value")
    words = {"integer": "an integer", "number": "a number", "string": "a string", "boolean": "true or false",
             "array": "a list", "object": "a mapping"}.get(kind, str(kind))
    bounds = [f"{sign} {schema[key]}" for key, sign in (("minimum", ">="), ("exclusiveMinimum", ">"),
                                                         ("maximum", "<="), ("exclusiveMaximum", "<"))
              if key in schema]
    if bounds:
        words += " " + " and ".join(bounds)
    if schema.get("required"):
        words += " with key " + ", ".join(schema["required"])
    return words


def _unknown_key(place: str, instance: Mapping, schema: Mapping) -> ConfigError:
    import re

    allowed = sorted(schema.get("properties", {}))
    patterns = list(schema.get("patternProperties", {}))
    unknown = [key for key in instance if key not in allowed and not any(re.search(p, str(key)) for p in patterns)]
    key = str(unknown[0]) if unknown else "?"
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    where = f"under {place}" if place else "at the top level"
    return ConfigError(f"unknown config key {key!r} {where}{hint}. The keys allowed there: "
                       f"{', '.join(allowed)}. Fix: rename or remove {key!r}.")
