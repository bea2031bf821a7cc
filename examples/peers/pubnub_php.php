<?php
// pubnub_php.php: the PubNub PHP SDK as a `pncrypt conformance` peer (docs/conformance.md).
//
//   (cd /path/to/php && composer install)        # a checkout of pubnub/php and its dependencies
//   PUBNUB_PHP=/path/to/php pncrypt conformance --peer "php examples/peers/pubnub_php.php"
//
// Offline (no Composer registry), with Debian's php-cli: the crypto module, PubNubUtil and PubNub::getSdkVersion
// need nothing outside src/ but empty Psr\Log interfaces, so a small autoloader can stand in for Composer's:
//
//   mkdir -p /path/to/php/vendor && cat > /path/to/php/vendor/autoload.php <<'EOF'
//   <?php // src/ by PSR-4; empty Psr\Log interfaces and classes
//   spl_autoload_register(function (string $class): void {
//       $file = __DIR__ . '/../src/' . str_replace('\\', '/', $class) . '.php';
//       if (is_file($file)) {
//           require $file;
//       } elseif (str_starts_with($class, 'Psr\\Log\\')) {
//           $name = substr($class, 8);
//           eval('namespace Psr\\Log; ' . (str_ends_with($name, 'Interface') ? 'interface' : 'class') . " $name {}");
//       }
//   });
//   EOF
//
// Measured so against tag 9.0.3 with PHP 8.2: 2,195 checks agree, 0 fail, 4,266 skipped, 312 known differences
// (DIFFERENCES below).
//
// Written against the SDK's public source (v9): PubNub\CryptoModule with PubNub\Crypto\LegacyCryptor and
// AesCbcCryptor (src/PubNub/CryptoModule.php, src/PubNub/Crypto/), and the POST publish body of
// src/PubNub/Endpoints/PubSub/Publish.php (buildData: PubNubUtil::writeValueAsString, the module's encrypt, between
// quotes). Not run in CI (no Composer registry there). Modest: the SDK's string path only (its decrypt hands over
// json_decode of the plaintext, so bytes are not asked for); a fixed IV comes from the cryptors' getIV, overridden in
// the subclasses below.

declare(strict_types=1);

// Standard output is for answers only: PHP's warnings and notices go to standard error.
ini_set('display_errors', 'stderr');

$root = getenv('PUBNUB_PHP');
if ($root === false || $root === '') {
    fwrite(STDERR, "pubnub_php.php: set PUBNUB_PHP to a checkout of pubnub/php (after composer install)\n");
    exit(2);
}
require $root . '/vendor/autoload.php';

use PubNub\CryptoModule;
use PubNub\Crypto\AesCbcCryptor;
use PubNub\Crypto\LegacyCryptor;
use PubNub\PubNub;
use PubNub\PubNubUtil;

final class Unsupported extends Exception
{
}

/** The legacy cryptor with the IV the request gives. */
final class FixedIVLegacyCryptor extends LegacyCryptor
{
    public ?string $fixedIV = null;

    public function getIV(): string
    {
        return $this->fixedIV ?? parent::getIV();
    }
}

/** The AES-CBC cryptor with the IV the request gives. */
final class FixedIVAesCbcCryptor extends AesCbcCryptor
{
    public ?string $fixedIV = null;

    public function getIV(): string
    {
        return $this->fixedIV ?? parent::getIV();
    }
}

function moduleFor(array $req): CryptoModule
{
    $key = $req['key'] ?? '';
    $iv = isset($req['iv']) ? hex2bin($req['iv']) : null;
    switch ($req['scheme'] ?? '') {
        case 'legacy':
        case 'legacy-random-iv':
            $cryptor = new FixedIVLegacyCryptor($key, $req['scheme'] === 'legacy-random-iv');
            $cryptor->fixedIV = $req['scheme'] === 'legacy' ? null : $iv;
            return new CryptoModule([LegacyCryptor::CRYPTOR_ID => $cryptor], LegacyCryptor::CRYPTOR_ID);
        case 'acrh':
            $cryptor = new FixedIVAesCbcCryptor($key);
            $cryptor->fixedIV = $iv;
            return new CryptoModule([AesCbcCryptor::CRYPTOR_ID => $cryptor], AesCbcCryptor::CRYPTOR_ID);
        case 'auto':
            $legacy = $req['legacy_scheme'] ?? 'legacy';
            if ($legacy !== 'legacy' && $legacy !== 'legacy-random-iv') {
                throw new Unsupported("legacy_scheme $legacy");
            }
            return CryptoModule::legacyCryptor($key, $legacy === 'legacy-random-iv');
    }
    throw new Unsupported('scheme ' . ($req['scheme'] ?? ''));
}

// Where pubnub/php 9.0.3 differs from the vectors (found by running this adapter), with the SDK code behind each.
// Each difference names the checks it covers as FAMILY/PATTERN (the family written out: a vector file's name,
// 'publish', 'messages' or 'envelopes'; '*' any run of characters) and the one outcome it excuses
// (docs/conformance.md, "Known differences"): a check it covers that disagrees in another way still fails.
const DIFFERENCES = [
    ['reason' => 'CryptoModule::decrypt is declared to return string|object|array|null, so PHP turns a decrypted '
        . 'number or boolean into a string (2500 becomes "2500", true "1") and json_decode\'s null into the text',
     'outcome' => 'scalars-as-text',
     'checks' => ['styles/style-*-float-*/peer-decrypts-text', 'styles/style-*-int-*/peer-decrypts-text',
                  'styles/style-*-literal-*/peer-decrypts-text',
                  'python-sdk/pysdk-publish-*-number/peer-decrypts-text',
                  'python-sdk/pysdk-publish-*-float/peer-decrypts-text',
                  'python-sdk/pysdk-publish-*-null/peer-decrypts-text']],
    ['reason' => 'decodeHeader (CryptoModule.php) does not check the version byte, and reads the cryptor id as text, '
        . 'so version 0 and the id "0000" (the legacy cryptor\'s) are accepted',
     'outcome' => 'accepts',
     'checks' => ['negative/neg-*-version-0/must-fail', 'negative/neg-auto-cryptor-ascii-0000/must-fail']],
    ['reason' => 'AesCbcCryptor::decrypt hands openssl_decrypt the header\'s metadata as the IV without checking '
        . 'that it is 16 bytes, and openssl_decrypt takes an IV of another length',
     'outcome' => 'accepts',
     'checks' => ['negative/neg-*-acrh-metadata-*/must-fail', 'negative/neg-*-acrh-long-form-metadata-*/must-fail']],
    ['reason' => 'CryptoModule::decrypt decodes Base64 with base64_decode, which is not strict (padding)',
     'outcome' => 'accepts',
     'checks' => ['negative/neg-*-notbase64-*/must-fail']],
    ['reason' => 'a PNED header with the legacy cryptor\'s id is an unknown cryptor to the SDK (Vectors/README.md)',
     'outcome' => 'rejects',
     'checks' => ['generated/gen-auto-legacy-id-header/*']],
];

function handle(array $req): array
{
    switch ($req['op'] ?? '') {
        case 'hello':
            return ['name' => 'pubnub-php', 'version' => PubNub::getSdkVersion(), 'style' => 'php',
                    'ops' => ['hello', 'encrypt_text', 'decrypt_text', 'publish'],
                    'schemes' => ['legacy', 'legacy-random-iv', 'acrh', 'auto'], 'differences' => DIFFERENCES];
        case 'encrypt_text':
            return ['data' => moduleFor($req)->encrypt($req['text'])];
        case 'decrypt_text':
            $value = moduleFor($req)->decrypt($req['data']);
            if ($value === null) {
                throw new Exception('decryption error (the SDK returned null)');
            }
            return ['value' => $value];
        case 'publish':
            // As a PHP program holds the message after json_decode of the same text (objects as stdClass).
            $message = json_decode($req['message'], false, 512, JSON_THROW_ON_ERROR);
            $text = PubNubUtil::writeValueAsString($message);
            return ['body' => '"' . moduleFor($req)->encrypt($text) . '"'];
    }
    throw new Unsupported('op ' . ($req['op'] ?? ''));
}

while (($line = fgets(STDIN)) !== false) {
    if (trim($line) === '') {
        continue;
    }
    $req = json_decode($line, true);
    try {
        if (!is_array($req)) {
            throw new Exception('a request is a JSON object');
        }
        $reply = ['ok' => true] + handle($req);
    } catch (Unsupported $e) {
        $reply = ['ok' => false, 'unsupported' => true, 'error' => $e->getMessage()];
    } catch (Throwable $e) {
        $reply = ['ok' => false, 'error' => get_class($e) . ': ' . $e->getMessage()];
    }
    if (is_array($req) && array_key_exists('id', $req)) {
        $reply['id'] = $req['id'];
    }
    fwrite(STDOUT, json_encode($reply, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE) . "\n");
}
