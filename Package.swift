// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "JourneyKit",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "JourneyCore", targets: ["JourneyCore"]),
        .library(name: "JourneyHandlers", targets: ["JourneyHandlers"]),
        .library(name: "JourneyDocs", targets: ["JourneyDocs"]),
        .library(name: "JourneySuite", targets: ["JourneySuite"]),
        .library(name: "JourneyCLI", targets: ["JourneyCLI"]),
        .executable(name: "journey", targets: ["journey"]),
    ],
    dependencies: [
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        .package(url: "https://github.com/vapor/jwt-kit", exact: "5.8.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", exact: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", exact: "1.7.4"),
    ],
    targets: [
        .target(
            name: "JourneyCore",
            dependencies: [.product(name: "Yams", package: "Yams")]
        ),
        .target(
            name: "JourneyHandlers",
            dependencies: [
                "JourneyCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .target(
            name: "JourneyDocs",
            dependencies: ["JourneyCore"]
        ),
        // Plays scenarios and runs them as a regression suite: goldens, reports, the run
        // set-up. What it needs from handlers (sealing preset PINs, the real network, service
        // probes) is passed in as ``RunServices``.
        .target(
            name: "JourneySuite",
            dependencies: ["JourneyCore"]
        ),
        // The `journey` commands, as a library: another package can start the same CLI with
        // more handlers (`JourneyCLI.main(handlers:)`).
        .target(
            name: "JourneyCLI",
            dependencies: [
                "JourneyCore",
                "JourneyHandlers",
                "JourneySuite",
                "JourneyDocs",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "journey",
            dependencies: ["JourneyCLI"]
        ),
        // What more than one test target needs; not part of any product.
        .target(name: "JourneyTestSupport", dependencies: ["JourneyCore"], path: "Tests/JourneyTestSupport"),
        .testTarget(name: "JourneyCoreTests", dependencies: ["JourneyCore"]),
        .testTarget(
            name: "JourneyHandlersTests",
            dependencies: [
                "JourneyHandlers", "JourneySuite", "JourneyTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .testTarget(
            name: "JourneySuiteTests", dependencies: ["JourneySuite", "JourneyHandlers", "JourneyTestSupport"]),
        .testTarget(
            name: "JourneyDocsTests",
            dependencies: ["JourneyDocs", "JourneyHandlers", "JourneySuite", "JourneyTestSupport"]),
        .testTarget(
            name: "JourneyCLITests",
            dependencies: [
                "journey", "JourneyCLI", "JourneyCore", "JourneyDocs", "JourneyHandlers", "JourneySuite",
                "JourneyTestSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
