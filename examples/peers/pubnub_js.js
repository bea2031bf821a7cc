#!/usr/bin/env node
// pubnub_js.js: the PubNub JavaScript SDK (Node.js build) as a `pncrypt conformance` peer (docs/conformance.md).
//
//   PUBNUB_JS=/path/to/javascript pncrypt conformance --peer "node examples/peers/pubnub_js.js"
//
// (a checkout of pubnub/javascript: its built lib/ is in the repository, and the crypto module this uses needs no
// npm packages, so nothing is installed offline but Node 18 or later: Debian's nodejs.) Measured so against tag
// v11.0.2 with Node 20: 3,140 checks agree, 0 fail, 3,349 skipped, 284 known differences (`differences` below).
//
// Written against the SDK's public source (v11): PubNub.CryptoModule.legacyCryptoModule / aesCbcCryptoModule
// (src/crypto/modules/NodeCryptoModule/nodeCryptoModule.ts) and the publish payload of src/core/endpoints/publish.ts
// (prepareMessagePayload: JSON.stringify, the module's encrypt, JSON.stringify of the Base64). Not run in CI (no npm
// registry there). Modest on purpose: binary data goes through the acrh cryptor only (the SDK's legacy cryptor takes
// strings; its files go through streams), and a fixed IV is given only to the acrh cryptor (Node's
// crypto.randomBytes, replaced for one call); legacy random IVs come from the bundled CryptoJS.
'use strict';

const path = require('path');
const readline = require('readline');
const nodeCrypto = require('crypto');

const root = process.env.PUBNUB_JS;
if (!root) {
  process.stderr.write('pubnub_js.js: set PUBNUB_JS to a checkout of pubnub/javascript (after npm ci)\n');
  process.exit(2);
}
// PubNub.CryptoModule of the Node.js build (src/node/index.ts) is this class.
const { NodeCryptoModule } = require(path.join(root, 'lib', 'crypto', 'modules', 'NodeCryptoModule',
  'nodeCryptoModule.js'));
const PubNub = { CryptoModule: NodeCryptoModule };
const version = require(path.join(root, 'package.json')).version;

class Unsupported extends Error {}

function moduleFor(req) {
  const { scheme, key } = req;
  if (scheme === 'legacy' || scheme === 'legacy-random-iv') {
    return PubNub.CryptoModule.legacyCryptoModule({ cipherKey: key, useRandomIVs: scheme === 'legacy-random-iv' });
  }
  if (scheme === 'acrh') return PubNub.CryptoModule.aesCbcCryptoModule({ cipherKey: key });
  if (scheme === 'auto' && (req.legacy_scheme || 'legacy') !== 'rule' && req.legacy_scheme !== 'none') {
    const random = req.legacy_scheme === 'legacy-random-iv';
    return PubNub.CryptoModule.legacyCryptoModule({ cipherKey: key, useRandomIVs: random });
  }
  throw new Unsupported(`scheme ${scheme}`);
}

// The IV the acrh cryptor draws (crypto.randomBytes(16)), for one call.
function withIV(req, body) {
  if (!req.iv) return body();
  if (req.scheme !== 'acrh') throw new Unsupported('a fixed IV is given to the acrh cryptor only');
  const saved = nodeCrypto.randomBytes;
  nodeCrypto.randomBytes = (n) => (n === 16 ? Buffer.from(req.iv, 'hex') : saved(n));
  try {
    return body();
  } finally {
    nodeCrypto.randomBytes = saved;
  }
}

const b64 = (data) => Buffer.from(typeof data === 'string' ? Buffer.from(data, 'base64') : data).toString('base64');

// Where pubnub/javascript 11.0.2 differs from the vectors (found by running this adapter), with the SDK code or the
// language rule behind each.
// Each difference names the checks it covers as FAMILY/PATTERN (the family written out: a vector file's name,
// 'publish', 'messages' or 'envelopes'; '*' any run of characters) and the one outcome it excuses
// (docs/conformance.md, "Known differences"): a check it covers that disagrees in another way still fails.
const differences = [
  { reason: 'the legacy cryptor\'s string path (core/components/cryptography, pnDecrypt) returns JSON.parse of the '
      + 'plaintext, or null when it is not JSON: a text that is not JSON cannot be read that way',
    outcome: 'null',
    checks: ['generated/gen-*legacy*-text-*/peer-decrypts-text', 'python-sdk/pysdk-string-legacy*/peer-decrypts-text',
      'spec/spec-*legacy*-yay/peer-decrypts-text', 'spec/spec-*legacy*-mycipherkey/peer-decrypts-text',
      'styles/style-php-string-*/peer-decrypts-text'] },
  { reason: 'JavaScript numbers are doubles: JSON.parse rounds integers beyond 2^53',
    outcome: 'numbers-as-doubles',
    checks: ['publish/message-int-*', 'messages/message-int-*', 'styles/style-*-int-*/peer-decrypts-text'] },
  { reason: 'a JavaScript object lists integer-like keys first, in numeric order (ECMAScript property order)',
    outcome: 'same-value',
    checks: ['publish/message-object-key-order/*'] },
  { reason: 'a message whose value is null is delivered as received (payload ?? data in subscribe.ts)',
    outcome: 'as-received',
    checks: ['messages/message-literal-null/*/peer-receives'] },
  { reason: 'a long-form header (0xFF, then two bytes) is misread: "Invalid initialization vector"',
    outcome: 'rejects',
    checks: ['generated/gen-*-header-long-form-*'] },
  { reason: 'the header\'s version byte is not checked (CryptorHeader.tryParse)',
    outcome: 'accepts',
    checks: ['negative/neg-acrh-version-0/must-fail', 'negative/neg-acrh-version-255/must-fail'] },
  { reason: 'Base64 is decoded leniently (padding anywhere, or none)', outcome: 'accepts',
    checks: ['negative/neg-*-notbase64-*/must-fail'] },
  { reason: 'a PNED header with the legacy cryptor\'s id is an unknown cryptor to the SDK (Vectors/README.md)',
    outcome: 'rejects',
    checks: ['generated/gen-auto-legacy-id-header/*'] },
];

const ops = {
  hello: () => ({
    name: 'pubnub-javascript', version, style: 'compact', differences,
    ops: ['hello', 'encrypt', 'decrypt', 'encrypt_text', 'decrypt_text', 'publish', 'decrypt_message'],
    schemes: ['legacy', 'legacy-random-iv', 'acrh', 'auto'],
  }),
  encrypt: (req) => {
    if (req.scheme !== 'acrh') throw new Unsupported('binary data: the acrh cryptor only');
    const data = Buffer.from(req.data, 'base64');
    const out = withIV(req, () => moduleFor(req).encrypt(data.buffer.slice(data.byteOffset, data.byteOffset + data.length)));
    return { data: Buffer.from(out).toString('base64') };
  },
  decrypt: (req) => {
    if (req.scheme !== 'acrh') throw new Unsupported('binary data: the acrh cryptor only');
    const data = Buffer.from(req.data, 'base64');
    const out = moduleFor(req).decrypt(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
    if (!(out instanceof ArrayBuffer)) throw new Error('decryption error: not binary');
    return { data: Buffer.from(out).toString('base64') };
  },
  encrypt_text: (req) => {
    const out = withIV(req, () => moduleFor(req).encrypt(req.text));
    return { data: typeof out === 'string' ? out : Buffer.from(out).toString('base64') };
  },
  decrypt_text: (req) => {
    const out = moduleFor(req).decrypt(req.data);
    if (out instanceof ArrayBuffer) return { text: Buffer.from(out).toString('utf8') };
    return { value: out };
  },
  publish: (req) => {
    const message = JSON.parse(req.message);
    const encrypted = withIV(req, () => moduleFor(req).encrypt(JSON.stringify(message)));
    return { body: JSON.stringify(typeof encrypted === 'string' ? encrypted : b64(encrypted)) };
  },
  // As the subscribe endpoint's decryptedData (src/core/endpoints/subscribe.ts): a decrypted ArrayBuffer is parsed
  // as JSON; what cannot be decrypted (an exception, or null from the legacy cryptor) is delivered as received,
  // with an error only for an exception.
  decrypt_message: (req) => {
    const data = JSON.parse(req.message);
    const crypto = moduleFor(req);
    if (typeof data !== 'string') return { message: data, error: false };
    let payload;
    let error = false;
    try {
      const decrypted = crypto.decrypt(data);
      payload = decrypted instanceof ArrayBuffer ? JSON.parse(Buffer.from(decrypted).toString('utf8')) : decrypted;
    } catch (e) {
      payload = null;
      error = true;
    }
    return { message: payload ?? data, error };
  },
};

const input = readline.createInterface({ input: process.stdin });
input.on('line', (line) => {
  if (!line.trim()) return;
  let reply;
  let req = {};
  try {
    req = JSON.parse(line);
    const op = ops[req.op];
    if (!op) throw new Unsupported(`op ${req.op}`);
    reply = { ok: true, ...op(req) };
  } catch (e) {
    reply = e instanceof Unsupported ? { ok: false, unsupported: true, error: e.message }
      : { ok: false, error: `${e && e.name}: ${e && e.message}` };
  }
  if (req && req.id !== undefined) reply.id = req.id;
  process.stdout.write(JSON.stringify(reply) + '\n');
});
