// The Kotlin and Java SDKs' (pubnub/kotlin kotlin-v13.4.1; com.pubnub:pubnub-gson is a Java layer over the same
// core) publish path, reproduced around the real Gson: the SDK itself needs its Gradle build (Retrofit, OkHttp,
// org.json, its logging), which this harness does not fetch. Run with the JDK's single-file launcher:
//   java -cp /usr/share/java/gson.jar kotlin_publish.java cases.json KEY > kotlin.ndjson
// Made the vectors with: Debian 12 libgoogle-gson-java 2.10 (the SDK pins Gson 2.11.0, which is not reachable
// here: not run with it), Temurin JDK 25.0.3 (Double.toString as specified since JDK 19). make_vectors.py also
// runs it on the OpenJDK 17.0.15 that Debian 12 ships, to note the numbers the older Double.toString writes
// otherwise.
//
// What it reproduces (paths in the SDK repository at that tag, under pubnub-kotlin/pubnub-kotlin-impl/src/main/):
// - kotlin/com/pubnub/internal/managers/MapperManager.kt: the one Gson, GsonBuilder() with a Boolean adapter
//   that writes true/false as Gson does, adapters for org.json's JSONObject/JSONArray (not used here: the
//   message is held as Map/List), a PatchValue factory (not used by publish), disableHtmlEscaping(),
//   setObjectToNumberStrategy(LAZILY_PARSED_NUMBER) (reading only); no serializeNulls, no pretty printing.
//   toJson(message) is objectMapper.toJson(input).
// - kotlin/com/pubnub/internal/endpoints/pubsub/PublishEndpoint.kt, doWork: toJson(message), then
//   cryptoModule.encryptString(...); the body is the Base64 quoted (GET: String.quoted(); POST: Gson's toJson of
//   the String, the same bytes for Base64 since `=` is not HTML-escaped).
// - kotlin/com/pubnub/internal/crypto/CryptoModuleImpl.kt, encryptString: encrypt(text.toByteArray()) (UTF-8),
//   Base64 NO_WRAP (vendor/Base64.java: standard alphabet, padded); encrypt: the legacy cryptor's bytes alone,
//   any other cryptor's behind a header from cryptor/HeaderParser.kt createCryptorHeader ("PNED", 1, id, a
//   one-byte length, metadata).
// - cryptor/LegacyCryptor.kt: AES/CBC/PKCS5Padding, key = the first 32 lowercase hex digits of SHA-256(key)
//   as bytes, static IV "0123456789012345" (useRandomIv = false). cryptor/AesCbcCryptor.kt ("ACRH"): key =
//   SHA-256(key), a random 16-byte IV as metadata; here a fixed IV per case (SHA-256 of "acrh-iv:" + name, first
//   16 bytes) so that the bytes can be compared.
//
// The message is what an Android or JVM app holds after reading the case's JSON: objects as LinkedHashMap (a
// repeated key keeps its first position and last value), arrays as ArrayList, integers (no fraction or exponent)
// exact as Integer, Long or BigInteger, every other number a Double, strings, Boolean, null.
import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonObject;
import com.google.gson.ToNumberPolicy;
import com.google.gson.TypeAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.io.StringReader;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

public class kotlin_publish {
    static Object read(JsonReader in) throws IOException {
        JsonToken token = in.peek();
        switch (token) {
            case BEGIN_OBJECT: {
                Map<String, Object> map = new LinkedHashMap<>();
                in.beginObject();
                while (in.hasNext()) {
                    String name = in.nextName();
                    map.put(name, read(in));
                }
                in.endObject();
                return map;
            }
            case BEGIN_ARRAY: {
                List<Object> list = new ArrayList<>();
                in.beginArray();
                while (in.hasNext()) list.add(read(in));
                in.endArray();
                return list;
            }
            case STRING: return in.nextString();
            case BOOLEAN: return in.nextBoolean();
            case NULL: in.nextNull(); return null;
            case NUMBER: {
                String literal = in.nextString();
                if (literal.matches("-?[0-9]+")) {
                    BigInteger exact = new BigInteger(literal);
                    if (exact.bitLength() < 32) return exact.intValue();
                    if (exact.bitLength() < 64) return exact.longValue();
                    return exact;
                }
                return Double.parseDouble(literal);
            }
            default: throw new IllegalStateException("unexpected " + token);
        }
    }

    static Gson sdkGson() {
        // MapperManager's Boolean adapter writes a Boolean as Gson's own adapter does.
        TypeAdapter<Boolean> booleans = new TypeAdapter<Boolean>() {
            @Override public void write(JsonWriter out, Boolean value) throws IOException {
                if (value == null) out.nullValue(); else out.value(value);
            }
            @Override public Boolean read(JsonReader in) throws IOException { return in.nextBoolean(); }
        };
        return new GsonBuilder()
            .registerTypeAdapter(Boolean.class, booleans)
            .registerTypeAdapter(boolean.class, booleans)
            .disableHtmlEscaping()
            .setObjectToNumberStrategy(ToNumberPolicy.LAZILY_PARSED_NUMBER)
            .create();
    }

    static byte[] sha256(byte[] data) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }

    static byte[] aes(byte[] key, byte[] iv, byte[] data) throws Exception {
        Cipher cipher = Cipher.getInstance("AES/CBC/PKCS5Padding");
        cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
        return cipher.doFinal(data);
    }

    static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) out.append(String.format("%02x", b & 0xff));
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        String cases = Files.readString(Path.of(args[0]), StandardCharsets.UTF_8);
        String key = args[1];
        Gson gson = sdkGson();
        Gson plain = new Gson();
        byte[] legacyKey = hex(sha256(key.getBytes(StandardCharsets.UTF_8))).substring(0, 32)
            .getBytes(StandardCharsets.UTF_8);
        byte[] acrhKey = sha256(key.getBytes(StandardCharsets.UTF_8));
        byte[] staticIV = "0123456789012345".getBytes(StandardCharsets.UTF_8);
        String gsonVersion;
        try (JarFile jar = new JarFile(Gson.class.getProtectionDomain().getCodeSource().getLocation().getPath())) {
            // The Maven version (Debian's manifest Bundle-Version is stale: 2.7.0 in its 2.10 jar).
            java.util.Properties pom = new java.util.Properties();
            pom.load(jar.getInputStream(jar.getEntry("META-INF/maven/com.google.code.gson/gson/pom.properties")));
            gsonVersion = pom.getProperty("version");
        }
        String runtime = "java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor")
            + "), gson " + gsonVersion;
        JsonReader list = new JsonReader(new StringReader(cases));
        list.beginArray();
        while (list.hasNext()) {
            list.beginObject();
            String name = null, message = null;
            while (list.hasNext()) {
                String field = list.nextName();
                if (field.equals("name")) name = list.nextString();
                else if (field.equals("message")) message = list.nextString();
                else list.skipValue();
            }
            list.endObject();
            JsonReader in = new JsonReader(new StringReader(message));
            Object value = read(in);
            if (in.peek() != JsonToken.END_DOCUMENT) throw new IllegalStateException(name + ": trailing data");
            String serialized = gson.toJson(value);
            byte[] bytes = serialized.getBytes(StandardCharsets.UTF_8);
            byte[] acrhIV = Arrays.copyOf(sha256(("acrh-iv:" + name).getBytes(StandardCharsets.UTF_8)), 16);
            byte[] header = new byte[10 + 16];
            System.arraycopy("PNED".getBytes(StandardCharsets.US_ASCII), 0, header, 0, 4);
            header[4] = 1;
            System.arraycopy("ACRH".getBytes(StandardCharsets.US_ASCII), 0, header, 5, 4);
            header[9] = 16;
            System.arraycopy(acrhIV, 0, header, 10, 16);
            byte[] acrhBody = aes(acrhKey, acrhIV, bytes);
            byte[] acrh = Arrays.copyOf(header, header.length + acrhBody.length);
            System.arraycopy(acrhBody, 0, acrh, header.length, acrhBody.length);
            String legacy = Base64.getEncoder().encodeToString(aes(legacyKey, staticIV, bytes));
            String acrhText = Base64.getEncoder().encodeToString(acrh);
            JsonObject row = new JsonObject();
            row.addProperty("name", name);
            row.addProperty("message", message);
            row.addProperty("serialized_b64", Base64.getEncoder().encodeToString(bytes));
            row.addProperty("legacy", legacy);
            row.addProperty("legacy_body", gson.toJson(legacy));
            row.addProperty("acrh", acrhText);
            row.addProperty("acrh_iv", hex(acrhIV));
            row.addProperty("acrh_body", gson.toJson(acrhText));
            row.addProperty("runtime", runtime);
            System.out.println(plain.toJson(row));
        }
        list.endArray();
    }
}
