#!/usr/bin/env ruby
# frozen_string_literal: true

# pubnub_ruby.rb: the PubNub Ruby SDK as a `pncrypt conformance` peer (docs/conformance.md).
#
#   gem install addressable                        # the one gem the parts used here require
#   pncrypt conformance --peer "ruby -I /path/to/ruby/lib examples/peers/pubnub_ruby.rb"
#
# Offline (no RubyGems), with Debian's ruby: the formatter requires addressable/uri only to URI-escape, which
# publish does not, so an empty stand-in does:
#
#   mkdir -p /tmp/rb-stand-in/addressable && echo '# stand-in' > /tmp/rb-stand-in/addressable/uri.rb
#   pncrypt conformance --peer "ruby -I /tmp/rb-stand-in -I /path/to/ruby/lib examples/peers/pubnub_ruby.rb"
#
# Measured so against tag v5.6.0 with Ruby 3.1 (json 2.6): 5,540 checks agree, 0 fail, 1,223 skipped, 10 known
# differences (DIFFERENCES below).
#
# Written against the SDK's public source (v5.6): Pubnub::Crypto::CryptoModule with its LegacyCryptor and
# AesCbcCryptor (lib/pubnub/modules/crypto/), and Pubnub::Formatter.format_message, the publish path
# (lib/pubnub/formatter.rb). Not run in CI (no RubyGems there). A fixed IV is given to the SDK by replacing
# OpenSSL::Random.random_bytes for one call.
require 'base64'
require 'json'
require 'openssl'
# Only the SDK's crypto module and formatter (not the client: no network, fewer gems to install).
require 'pubnub/version'
require 'pubnub/modules/crypto/module'
require 'pubnub/formatter'

class Unsupported < StandardError; end

def module_for(req)
  key = req['key']
  case req['scheme']
  when 'legacy', 'legacy-random-iv'
    Pubnub::Crypto::CryptoModule.new(Pubnub::Crypto::LegacyCryptor.new(key, req['scheme'] == 'legacy-random-iv'), [])
  when 'acrh'
    Pubnub::Crypto::CryptoModule.new(Pubnub::Crypto::AesCbcCryptor.new(key), [])
  when 'auto'
    legacy = req['legacy_scheme'] || 'legacy'
    raise Unsupported, "legacy_scheme #{legacy}" unless %w[legacy legacy-random-iv].include?(legacy)

    Pubnub::Crypto::CryptoModule.new_legacy(key, legacy == 'legacy-random-iv')
  else
    raise Unsupported, "scheme #{req['scheme']}"
  end
end

def with_iv(hex)
  return yield if hex.nil?

  iv = [hex].pack('H*')
  random = OpenSSL::Random.method(:random_bytes)
  OpenSSL::Random.define_singleton_method(:random_bytes) { |n| n == 16 ? iv.dup : random.call(n) }
  begin
    yield
  ensure
    OpenSSL::Random.define_singleton_method(:random_bytes, random)
  end
end

def decrypted(req, data)
  out = module_for(req).decrypt(data)
  raise 'decryption error (the SDK returned nil)' if out.nil?

  out
end

# Where pubnub/ruby 5.6.0 differs from the vectors (found by running this adapter), with the SDK code behind each.
# Each difference names the checks it covers as FAMILY/PATTERN (the family written out: a vector file's name,
# 'publish', 'messages' or 'envelopes'; '*' any run of characters) and the one outcome it excuses
# (docs/conformance.md, "Known differences"): a check it covers that disagrees in another way still fails.
DIFFERENCES = [
  { reason: 'CryptorHeader#length (modules/crypto/cryptor_header.rb) counts the size byte by the metadata size, ' \
            'not by the form read: a long-form header (0xFF, then two bytes) with fewer than 255 bytes of ' \
            'metadata is read two bytes short, and the cipher refuses what follows',
    outcome: 'rejects',
    checks: ['generated/gen-*-header-long-form-*'] },
  { reason: "a PNED header with the legacy cryptor's id is an unknown cryptor to the SDK (Vectors/README.md)",
    outcome: 'rejects',
    checks: ['generated/gen-auto-legacy-id-header/*'] }
].freeze

OPS = {
  'hello' => lambda do |_|
    { name: 'pubnub-ruby', version: Pubnub::VERSION, style: 'ruby', differences: DIFFERENCES,
      ops: %w[hello encrypt decrypt encrypt_text decrypt_text publish],
      schemes: %w[legacy legacy-random-iv acrh auto] }
  end,
  'encrypt' => lambda do |req|
    out = with_iv(req['iv']) { module_for(req).encrypt(Base64.strict_decode64(req['data'])) }
    raise 'encryption error (the SDK returned nil)' if out.nil?

    { data: Base64.strict_encode64(out) }
  end,
  'decrypt' => ->(req) { { data: Base64.strict_encode64(decrypted(req, Base64.strict_decode64(req['data']))) } },
  'encrypt_text' => lambda do |req|
    out = with_iv(req['iv']) { module_for(req).encrypt(req['text']) }
    raise 'encryption error (the SDK returned nil)' if out.nil?

    { data: Base64.strict_encode64(out) }
  end,
  'decrypt_text' => lambda do |req|
    # As the SDK's receive paths decode (subscribe_event/formatter.rb, events/history.rb: strict_decode64).
    text = decrypted(req, Base64.strict_decode64(req['data'])).dup.force_encoding('UTF-8')
    raise 'not UTF-8' unless text.valid_encoding?

    { text: text }
  end,
  'publish' => lambda do |req|
    raise Unsupported, "publish with #{req['scheme']}" unless %w[legacy legacy-random-iv acrh].include?(req['scheme'])

    # As a Ruby program holds the message after JSON.parse of the same text.
    message = JSON.parse(req['message'], quirks_mode: true)
    body = with_iv(req['iv']) { Pubnub::Formatter.format_message(message, module_for(req), false) }
    { body: body }
  end
}.freeze

# The SDK reports some errors with `puts` ("Pubnub :: DECRYPTION ERROR: ..."): standard output is for answers only,
# so everything else printed goes to standard error.
ANSWERS = $stdout.dup
ANSWERS.sync = true
$stdout = $stderr
$stdin.each_line do |line|
  next if line.strip.empty?

  req = {}
  reply = begin
    req = JSON.parse(line)
    op = OPS[req['op']]
    raise Unsupported, "op #{req['op']}" if op.nil?

    { ok: true }.merge(op.call(req))
  rescue Unsupported => e
    { ok: false, unsupported: true, error: e.message }
  rescue StandardError => e
    { ok: false, error: "#{e.class}: #{e.message}" }
  end
  reply[:id] = req['id'] if req.is_a?(Hash) && req.key?('id')
  ANSWERS.puts JSON.generate(reply)
end
