<?php
// The PHP SDK's (pubnub/php v9) own publish path, run on the cases: PubNub\PubNubUtil::writeValueAsString (a
// string message as the raw string between quotes, anything else through json_encode with default flags) and
// PubNub\Crypto\LegacyCryptor::encrypt with a static IV. Needs a checkout of the SDK (not committed):
// PUBNUB_PHP_SRC=/path/to/pubnub-php/src. Run: PUBNUB_PHP_SRC=... php php_publish.php cases.json KEY > php.ndjson
//
// The message is what json_decode($text) gives for the case: objects as stdClass (so {} stays an object; a
// repeated key keeps its first position and last value), integers beyond 64 bits as floats, strings as PHP
// strings (a top-level string takes the raw form).
$src = getenv('PUBNUB_PHP_SRC');
if ($src === false) { fwrite(STDERR, "set PUBNUB_PHP_SRC\n"); exit(2); }
spl_autoload_register(function ($class) use ($src) {
    $file = $src . '/' . str_replace('\\', '/', $class) . '.php';
    if (is_file($file)) { require $file; }
});
$cases = json_decode(file_get_contents($argv[1]), true);
$key = $argv[2];
$cryptor = new PubNub\Crypto\LegacyCryptor($key, false);
foreach ($cases as $case) {
    $message = json_decode($case['message'], false, 512, JSON_THROW_ON_ERROR);
    $serialized = PubNub\PubNubUtil::writeValueAsString($message);
    $payload = $cryptor->encrypt($serialized);
    echo json_encode([
        'name' => $case['name'], 'message' => $case['message'],
        'serialized_b64' => base64_encode($serialized),
        'legacy' => base64_encode($payload->getData()),
        'runtime' => 'php ' . PHP_VERSION . ', serialize_precision ' . ini_get('serialize_precision'),
    ], JSON_UNESCAPED_SLASHES), "\n";
}
