// swift-crypto on Apple platforms, where it is the cipher backend (PNCryptCore/Backend/CipherBackend.swift): this
// target only carries Package.swift's platform condition on the two products, which the core cannot name twice
// (once for the platforms, once for the `SwiftCrypto` trait). Elsewhere it is an empty module.

#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
@_exported import Crypto
@_exported import _CryptoExtras
#endif
