"""The headerless rule (docs/formats.md section 1) on texts the real PubNub Python SDK encrypts with its legacy
cryptor, fixed IV and random IV, 2 to 10 blocks, ASCII and non-ASCII: read with no scheme named, as text they all
come back whole (decrypt(text=True), decrypt_many(text=True), and the CLI when PNCRYPT_BIN names one); as bytes a
random-IV text is an Error that names the calls that work."""
import os
import random
import subprocess

import pytest

import pncrypt
import sdk_support  # noqa: F401  (silences the SDK)
from pubnub.crypto_core import PubNubLegacyCryptor

KEY = "sdk-key"
WORDS = [
    "hello world the message is here and we will meet at noon today".split(),
    "Grüße aus München schöne Tage für euch über alles Straße heißt".split(),
    "Привет мир это тестовое сообщение как дела сегодня хорошо".split(),
    "こんにちは 世界 今日 は いい 天気 です ね 明日 会い ましょう".split(),
    "今天 天气 很好 我们 去 公园 玩 吧 明天 见".split(),
    "안녕하세요 세계 오늘은 좋은 날 입니다 내일 봐요".split(),
    "مرحبا بالعالم كيف حالك اليوم شكرا جزيلا".split(),
    "Γειά σου Κόσμε τι κάνεις σήμερα καλά".split(),
    "🎉 party time 🚀 launch at 10:00 ✅ done 👍".split(),
    "Order #4521 shipped to user@example.com total $108.25 (tax incl.)".split(),
    "Café crème à la française s'il vous plaît très bien où".split(),
    "Tiếng Việt có dấu rất nhiều người đẹp".split(),
]


def texts(count, seed):
    """`count` sentences of 2 to 10 AES blocks once padded, each in one language of WORDS."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        words = WORDS[rng.randrange(len(WORDS))]
        target = (1 + i % 9) * 16 + rng.randrange(16)
        text = ""
        while len(text.encode()) < target:
            if text:
                text += ", " if rng.randrange(8) == 0 else " "
            text += words[rng.randrange(len(words))]
        cut = ""
        for ch in text:
            if len((cut + ch).encode()) > target:
                break
            cut += ch
        out.append(cut or text)
    return out


def sdk_encrypt(text, random_iv):
    """The SDK's legacy cryptor: Base64 of (IV ||) ciphertext."""
    import base64
    return base64.b64encode(PubNubLegacyCryptor(KEY, random_iv).encrypt(text.encode())["data"]).decode()


TEXTS = texts(500, 30)
SEALED = [(text, sdk_encrypt(text, random_iv)) for random_iv in (False, True) for text in TEXTS]


def test_1000_sdk_texts_decrypt_whole_as_text_with_no_scheme_named():
    module = pncrypt.CryptoModule(KEY)
    wrong = [text for text, sealed in SEALED if module.decrypt(sealed, text=True) != text]
    assert wrong == []
    assert module.decrypt_many([sealed for _, sealed in SEALED], text=True) == [text for text, _ in SEALED]


def test_as_bytes_a_random_iv_text_says_which_calls_work():
    module = pncrypt.CryptoModule(KEY)
    text, sealed = next((t, s) for t, s in SEALED[len(TEXTS):] if len(t.encode()) >= 32)
    with pytest.raises(pncrypt.Error) as caught:
        module.decrypt(sealed)
    assert caught.value.code == pncrypt.E_AMBIGUOUS
    assert "decrypt(data, text=True)" in caught.value.message and "message_decrypt()" in caught.value.message
    assert "pncrypt_" not in caught.value.message
    assert module.decrypt(sealed, scheme="legacy-random-iv") == text.encode()
    # A fixed-IV text reads as bytes too: its first block is text.
    fixed_text, fixed = SEALED[0]
    assert module.decrypt(fixed) == fixed_text.encode()


@pytest.mark.skipif(not os.environ.get("PNCRYPT_BIN"), reason="needs a pncrypt binary in PNCRYPT_BIN")
def test_200_sdk_texts_through_the_cli_with_no_scheme_named_when_PNCRYPT_BIN_names_one():
    binary = os.environ["PNCRYPT_BIN"]
    env = dict(os.environ, PNCRYPT_KEY=KEY)
    cases = SEALED[:100] + SEALED[len(TEXTS):len(TEXTS) + 100]
    for text, sealed in cases:
        run = subprocess.run([binary, "decrypt", sealed], capture_output=True, env=env, timeout=60)
        assert (run.returncode, run.stdout.decode()) == (0, text), run.stderr
