// swift-tools-version: 6.2
import PackageDescription

// A team's own step handlers with the whole `journey` command line: `acme-journey check`,
// `run`, `test` and `docs` know `acme.riskScore` as well as JourneyKit's built-in handlers.
// Outside this repository, depend on JourneyKit by its URL instead of by path.
let package = Package(
    name: "AcmeJourney",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        .package(name: "JourneyKit", path: "../..")
    ],
    targets: [
        // The handlers, as a library: the command line below and the app can both use them.
        .target(
            name: "AcmeHandlers",
            dependencies: [.product(name: "JourneyCore", package: "JourneyKit")]
        ),
        // `journey` with Acme's handlers added.
        .executableTarget(
            name: "acme-journey",
            dependencies: ["AcmeHandlers", .product(name: "JourneyCLI", package: "JourneyKit")]
        ),
        .testTarget(
            name: "AcmeHandlersTests",
            dependencies: ["AcmeHandlers", .product(name: "JourneyCore", package: "JourneyKit")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
