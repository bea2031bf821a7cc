"""Issue 30, first contact: what a new Python user meets first (the version, the README's example and the
docstrings leading with the calls that read SDK messages and text)."""
import base64
import json
import os
import pathlib
import re

import pytest

import pncrypt

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]
README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_version_is_the_library_version_and_the_repository_version():
    assert pncrypt.__version__ == pncrypt.library_version()
    assert "__version__" in pncrypt.__all__
    swift = (REPOSITORY / "Sources" / "PNCrypt" / "Version.swift").read_text()
    parts = [re.search(rf"public static let {name} = (\d+)", swift).group(1) for name in ("major", "minor", "patch")]
    assert pncrypt.__version__ == ".".join(parts)
    project = (REPOSITORY / "bindings" / "python" / "pyproject.toml").read_text()
    assert f'\nversion = "{pncrypt.__version__}"\n' in project


def readme_example():
    text = README.read_text()
    return re.search(r"```python\n(.*?)```", text, re.S).group(1)


def test_readme_and_docstrings_lead_with_the_calls_that_read_sdk_messages_and_text():
    for name, text in [("README example", readme_example()), ("module docstring", pncrypt.__doc__),
                       ("CryptoModule.decrypt", pncrypt.CryptoModule.decrypt.__doc__),
                       ("CryptoModule", pncrypt.CryptoModule.__doc__)]:
        # The first decrypting call written with its arguments.
        first = re.search(r"\b(message_decrypt|decrypt)\(([^)\n]*)\)", text)
        assert first is not None, name
        assert first.group(1) == "message_decrypt" or "text=False" not in first.group(2), (name, first.group(0))


def test_readme_example_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "photo.jpg").write_bytes(os.urandom(3000))
    exec(compile(readme_example(), str(README), "exec"), {})
    assert (tmp_path / "photo.jpg.enc").exists()


def test_reason_names_each_code_as_the_librarys_status_json_does():
    module = pncrypt.CryptoModule("k")
    sealed = base64.b64decode(module.encrypt(b"a message of two blocks or more!"))
    texts = ["not Base64!", base64.b64encode(b"fifteen bytes!!").decode(),
             base64.b64encode(b"PNED\x01ACRB" + sealed[9:]).decode(), base64.b64encode(sealed[:20]).decode(),
             pncrypt.CryptoModule("another key").encrypt(b'{"a":1}')]
    seen = set()
    for text in texts:
        _, status = module.message_decrypt(json.dumps(text))
        assert status is not None, text
        assert pncrypt.reason(status.code) == json.loads(status.json)["reason"], (text, status.json)
        seen.add(pncrypt.reason(status.code))
    assert seen == {"notBase64", "wrongKeyOrCorrupt", "unknownCryptor", "malformedHeader"}, seen
    # The retired UTF-8 code is a key-dependent failure: one public reason.
    assert pncrypt.reason(pncrypt.E_INVALID_UTF8) == pncrypt.reason(pncrypt.E_WRONG_KEY_OR_CORRUPT)
    assert pncrypt.reason(12345) == "failed"


def test_decrypt_reads_text_by_default_and_bytes_is_the_explicit_choice():
    """Issue 47: a Base64 text in, the text rule by default (a str back, as the CLI's `pncrypt decrypt`); a binary
    plaintext fails with the one decryption error, whose words name text=False, and the same words for a wrong key
    (they tell nothing about which check failed); text=False returns the bytes."""
    m = pncrypt.CryptoModule("enigma")
    assert m.decrypt(m.encrypt("hello")) == "hello"
    assert m.decrypt_many(m.encrypt_many(["a", "b"])) == ["a", "b"]
    # Longer than any message (issue 59.8): a binary plaintext is plausible, so the hint names text=False.
    binary = bytes(range(256)) * 160
    sealed = m.encrypt(binary)
    failures = []
    for module, call in [(m, lambda mod: mod.decrypt(sealed)),
                         (pncrypt.CryptoModule("wrong key"), lambda mod: mod.decrypt(sealed)),
                         (m, lambda mod: mod.decrypt_many([sealed]))]:
        try:
            call(module)
        except pncrypt.Error as error:
            failures.append((error.code, error.message.removeprefix("item 0: ")))
    assert len(failures) == 3 and len(set(failures)) == 1, failures
    code, message = failures[0]
    assert code == pncrypt.E_WRONG_KEY_OR_CORRUPT
    assert message.endswith("(read as text: a binary plaintext needs text=False)"), message
    assert m.decrypt(sealed, text=False) == binary
    assert m.decrypt_many([sealed], text=False) == [binary]


def test_failure_hints_come_from_the_library():
    """Issue 59.8: the hints that follow the one decryption failure are the library's (the CLI's words): a key that
    ends with a newline says so; a plain wrong key on a message-sized text gets no binary hint (a binary plaintext
    is plausible only for data longer than any message); the same words whatever check failed."""
    sealed = pncrypt.CryptoModule("enigma").encrypt("hello")
    with pytest.raises(pncrypt.Error) as raised:
        pncrypt.CryptoModule("enigma\n").decrypt(sealed)
    assert raised.value.code == pncrypt.E_WRONG_KEY_OR_CORRUPT
    assert "cipher_key: the key ends with a line break" in raised.value.message, raised.value.message
    assert "text=False" not in raised.value.message
    with pytest.raises(pncrypt.Error) as raised:
        pncrypt.CryptoModule("wrong key").decrypt(sealed)
    assert "hint" not in raised.value.message and "text=False" not in raised.value.message, raised.value.message
    # A key that is also a file's name: the key is that text.
    _, status = pncrypt.CryptoModule(__file__).message_decrypt('"%s"' % sealed)
    assert status is not None and "the key is also the name of a file" in status.message, status.message
    with pytest.raises(pncrypt.Error) as raised:
        m = pncrypt.CryptoModule("enigma")
        m.add_key(" old-key")
        m.decrypt(pncrypt.CryptoModule("third").encrypt("hello"))
    assert "key #2: the key starts with white space" in raised.value.message, raised.value.message
