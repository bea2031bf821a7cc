// PubnubKotlinPeer.kt: the PubNub Kotlin/Java SDK as a `pncrypt conformance` peer (docs/conformance.md).
//
//   kotlinc -cp pubnub-kotlin.jar:gson.jar examples/peers/PubnubKotlinPeer.kt -include-runtime -d /tmp/peer.jar
//   pncrypt conformance --peer "java -cp /tmp/peer.jar:pubnub-kotlin.jar:gson.jar PubnubKotlinPeerKt"
//
// (the jars from a build of pubnub/kotlin, ./gradlew jar, with its runtime dependencies on the class path.)
// Written against the SDK's public source (v13): CryptoModule.createLegacyCryptoModule / createAesCbcCryptoModule
// (pubnub-kotlin-core-api, com/pubnub/api/crypto/CryptoModule.kt) and the publish path of
// PublishEndpoint.kt (MapperManager.toJson, then the module's encryptString: Base64 NO_WRAP, between quotes). Not
// run in CI (no Maven registry there). Modest: a fixed IV only for the legacy scheme (the SDK draws random IVs from
// SecureRandom); the SDK's modules read both formats, so for an explicit scheme the adapter refuses data of the other
// format itself (a PNED header or not) before the SDK sees it.
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
private val differences = listOf(
    mapOf(
        "reason" to "the string path (crypto/CryptoModuleImpl.kt, decryptString) decodes Base64 with the vendored " +
            "Android decoder (src/main/java/com/pubnub/internal/vendor/Base64.java), which accepts a final group " +
            "without its padding",
        "checks" to listOf("neg-legacy-notbase64-missing-padding/*"),
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
