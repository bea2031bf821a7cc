# The Ruby SDK's (pubnub/ruby v5) own publish path, run on the cases: Pubnub::Formatter.format_message (which is
# message.to_json through the json gem the SDK requires) and Pubnub::Crypto::LegacyCryptor#encrypt with a static
# IV. Needs a checkout of the SDK (not committed): PUBNUB_RUBY_LIB=/path/to/pubnub-ruby/lib.
# Run: PUBNUB_RUBY_LIB=... ruby ruby_publish.rb cases.json KEY > ruby.ndjson
#
# The message is what JSON.parse gives for the case (Integer of any size, Float, Hash in document order with a
# repeated key keeping its first position and last value, Array, String, true/false/nil).
require 'json'
require 'openssl'
require 'digest'
require 'base64'

lib = ENV.fetch('PUBNUB_RUBY_LIB')
# Formatter requires addressable (a gem the SDK depends on), used only when a message is URI-escaped, which this
# harness never asks for: an empty stand-in keeps the require from failing without the gem.
require 'tmpdir'
require 'fileutils'
stub = File.join(Dir.tmpdir, 'pncrypt-ruby-stub')
FileUtils.mkdir_p(File.join(stub, 'addressable'))
File.write(File.join(stub, 'addressable', 'uri.rb'), "# stand-in\n")
$LOAD_PATH.unshift(stub)
require File.join(lib, 'pubnub', 'formatter')
require File.join(lib, 'pubnub', 'modules', 'crypto', 'cryptor')
require File.join(lib, 'pubnub', 'modules', 'crypto', 'cryptors', 'legacy_cryptor')

cases = JSON.parse(File.read(ARGV[0]))
key = ARGV[1]
cryptor = Pubnub::Crypto::LegacyCryptor.new(key, false)
cases.each do |c|
  message = JSON.parse(c['message'], quirks_mode: true)
  serialized = Pubnub::Formatter.format_message(message, nil, false)
  encrypted = cryptor.encrypt(serialized)
  puts JSON.generate('name' => c['name'], 'message' => c['message'],
                     'serialized_b64' => Base64.strict_encode64(serialized),
                     'legacy' => Base64.strict_encode64(encrypted.data),
                     'runtime' => "ruby #{RUBY_VERSION}, json #{JSON::VERSION}")
end
