// The header's file functions: streamed, all or nothing, through the files layer.
import PNCrypt
import PNCryptFiles
import PNCryptPlatform
import SystemPackage

@_cdecl("pncrypt_encrypt_file")
public func pncrypt_encrypt_file(_ module: CModuleHandle, _ inPath: CText, _ outPath: CText,
                                 _ err: CErrorOut) -> Int32 {
    guarded(err, holding: module) {
        let module = try CModule.from(module)
        let input = try pathArgument(inPath, "in_path")
        let output = try pathArgument(outPath, "out_path")
        // As `pncrypt encrypt --binary --scheme <scheme>`.
        let encryptor = try StreamEncryptor(key: module.key, scheme: module.scheme)
        try FileTransform.run(input: input, output: output, stages: [encryptor])
    }
}

@_cdecl("pncrypt_decrypt_file")
public func pncrypt_decrypt_file(_ module: CModuleHandle, _ inPath: CText, _ outPath: CText,
                                 _ err: CErrorOut) -> Int32 {
    pncrypt_decrypt_file_scheme(module, nil, inPath, outPath, err)
}

@_cdecl("pncrypt_decrypt_file_scheme")
public func pncrypt_decrypt_file_scheme(_ module: CModuleHandle, _ scheme: CText, _ inPath: CText, _ outPath: CText,
                                        _ err: CErrorOut) -> Int32 {
    guarded(err, holding: module) {
        let module = try CModule.from(module)
        let scheme = try schemeArgument(scheme, default: nil, allowAuto: true)
        let input = try pathArgument(inPath, "in_path")
        let output = try pathArgument(outPath, "out_path")
        // As `pncrypt decrypt --binary [--scheme <scheme>]`, by the same routine (`FileDecryption.choose`: the key
        // chosen on the file's head and last blocks before anything is decrypted, exactly one key must qualify).
        // Headerless files are read in the module's legacy file format (`CModule.fileLegacy`).
        let source = try FileTransform.source(input)
        let decryptor: StreamDecryptor
        do {
            decryptor = try FileDecryption.choose(source, ring: module.ring,
                                                  reading: ReadPolicy(scheme: scheme, legacyScheme: module.fileLegacy))
                .decryptor
        } catch let error as FileError {
            throw CFailure(error)
        }
        try FileTransform.run(source, output: output, stages: [decryptor])
    }
}
