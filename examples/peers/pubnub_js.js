#!/usr/bin/env node
// pubnub_js.js: the PubNub JavaScript SDK (Node.js build) as a `pncrypt conformance` peer (docs/conformance.md).
//
//   cd /path/to/javascript && npm ci                  # a checkout of pubnub/javascript (lib/ is in the repository)
//   PUBNUB_JS=/path/to/javascript pncrypt conformance --peer "node examples/peers/pubnub_js.js"
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
const PubNub = require(path.join(root, 'lib', 'node', 'index.js'));
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

const ops = {
  hello: () => ({
    name: 'pubnub-javascript', version, style: 'compact',
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
  decrypt_message: (req) => {
    const payload = JSON.parse(req.message);
    try {
      let value = moduleFor(req).decrypt(payload);
      if (value instanceof ArrayBuffer) value = JSON.parse(Buffer.from(value).toString('utf8'));
      return { message: value, error: false };
    } catch (e) {
      if (e instanceof Unsupported) throw e;
      return { message: payload, error: true };
    }
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
