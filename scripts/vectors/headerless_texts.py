"""Texts as people write them, for the headerless rule's checks (docs/formats.md section 1): sentences of words
in twelve scripts, each of a given number of AES blocks once padded. Used by scripts/vectors/gen_headerless_vectors.py,
scripts/checks/headerless_check.py and bindings/python/tests/test_headerless.py (pure Python, no pncrypt, no SDK)."""
import random

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


def text(rng, blocks):
    """One sentence in one language of WORDS, cut between characters to (blocks - 1) * 16 + 0..15 bytes, so
    that it is `blocks` AES blocks once padded."""
    words = WORDS[rng.randrange(len(WORDS))]
    target = (blocks - 1) * 16 + rng.randrange(16)
    out = ""
    while len(out.encode()) < target:
        if out:
            out += ", " if rng.randrange(8) == 0 else " "
        out += words[rng.randrange(len(words))]
    cut = ""
    for ch in out:
        if len((cut + ch).encode()) > target:
            break
        cut += ch
    return cut or out


def texts(count, seed):
    """`count` sentences of 2 to 10 blocks (cycling), drawn with `seed`."""
    rng = random.Random(seed)
    return [text(rng, 2 + i % 9) for i in range(count)]
