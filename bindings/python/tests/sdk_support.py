"""What the binding's tests share: the real PubNub Python SDK's crypto modules (pubnub==10.8.0), and the legacy key
derivation and PKCS#7 check done independently of pncrypt. Importing this module silences the SDK's warnings and
logging (it logs every failed decryption)."""
import hashlib
import logging
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
from pubnub.pnconfiguration import PNConfiguration  # noqa: E402  (before pubnub.pubnub: circular import)
from pubnub.crypto import AesCbcCryptoModule, LegacyCryptoModule  # noqa: E402


def sdk_module(scheme, key):
    """The SDK's crypto module for `scheme` ("legacy", "legacy-random-iv" or "acrh") and cipher key `key`."""
    config = PNConfiguration()
    config.publish_key = config.subscribe_key = "demo"
    config.user_id = "pncrypt-pytest"
    config.cipher_key = key
    config.use_random_initialization_vector = scheme == "legacy-random-iv"
    return AesCbcCryptoModule(config) if scheme == "acrh" else LegacyCryptoModule(config)


def legacy_key(key):
    """The AES key of the legacy schemes: the first 32 hex digits of the cipher key's SHA-256, as bytes."""
    return hashlib.sha256(key.encode()).hexdigest()[:32].encode()


def unpad(plain):
    """`plain` without its PKCS#7 padding when that padding is valid, else None."""
    pad = plain[-1]
    if not 1 <= pad <= 16 or plain[-pad:] != bytes([pad]) * pad:
        return None
    return plain[:-pad]
