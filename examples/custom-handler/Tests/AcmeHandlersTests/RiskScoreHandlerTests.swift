import AcmeHandlers
import Foundation
import JourneyCore
import Testing

/// `acme.riskScore` run directly, on a device the test sets up, and checked in journeys the way
/// `acme-journey check` checks them.
@Suite("acme.riskScore")
struct RiskScoreHandlerTests {
    /// A device for one step: what the store holds, the clock, and the attestation service's
    /// answer; it keeps what the handler asked and stored.
    final class Device: HandlerContext {
        var device: DeviceProfile
        var now = 1_772_352_000_000  // 2026-03-01T08:00:00Z
        let wallClock = 0
        var random = RandomSource.seeded(42)
        var store: [String: Value]
        let attestation: String?
        var asked: [InputRequest] = []

        init(_ device: DeviceProfile, store: [String: Value] = [:], attestation: String? = "valid") {
            self.device = device
            self.store = store
            self.attestation = attestation
        }

        nonisolated(nonsending) func input(_ request: InputRequest) async throws -> [String: Value] {
            asked.append(request)
            return attestation.map { ["attestation": .string($0)] } ?? [:]
        }
        func wait(milliseconds: Int, reason: String) { now += milliseconds }
        func stored(_ key: String) -> Value? { store[key] }
        var storedKeys: [String] { store.keys.sorted() }
        func store(_ key: String, _ value: Value?) { store[key] = value }
        func chargeAttempt() {}
        nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            throw NetworkError.offline
        }
    }

    static let handler = RiskScoreHandler()
    static let enrolled = DeviceProfile(biometry: .faceID, biometryEnrolled: true)
    static let yesterday: Value = .int(1_772_265_600)

    /// The step as a journey gives it: the parameters evaluated, the defaults filled in.
    static func step(_ parameters: [String: Value] = [:]) -> HandlerInvocation {
        var given: [String: Value] = [
            "deviceIdKey": .string("deviceId"), "lastSeenKey": .string("lastSeen"), "stepUpAt": .int(30),
            "denyAt": .int(80), "staleAfter": .duration(30 * 86_400_000),
        ]
        given.merge(parameters) { $1 }
        let contract = handler.contract
        return HandlerInvocation(
            journey: "acme.sign-in", step: "risk", parameters: given, maps: [:], screen: nil,
            contract: contract.resolve(for: StepShape(constants: given)))
    }

    @Test func aDeviceNeverSeenStepsUpAndGetsASecretID() async throws {
        let device = Device(Self.enrolled)
        let result = try await Self.handler.run(Self.step(), context: device)
        #expect(result.outcome == "stepUp")
        #expect(result.data["score"] == .int(30))
        #expect(result.data["reasons"] == .list([.string("a device never seen before")]))
        #expect(device.asked.map(\.step) == ["risk"])
        #expect(device.asked.first?.inputs.map(\.name) == ["attestation"])
        let id = try #require(device.store["deviceId"])
        #expect(id.isSecret, "the device's id never shows")
        #expect(id.revealed.displayText.count == 32)
        #expect(device.store["lastSeen"] == .int(1_772_352_000))
        let ticket = try #require(result.data["ticket"])
        #expect(ticket.isSecret && ticket.revealed.displayText.count == 32 && ticket.revealed != id.revealed)
    }

    @Test func aKnownDeviceSeenYesterdayIsAllowed() async throws {
        let device = Device(Self.enrolled, store: ["deviceId": .secret(.string("d-1")), "lastSeen": Self.yesterday])
        let result = try await Self.handler.run(Self.step(), context: device)
        #expect(result.outcome == "allow")
        #expect(result.data["score"] == .int(0) && result.data["reasons"] == .list([]))
        #expect(device.store["deviceId"] == .secret(.string("d-1")), "a known device keeps its id")
        #expect(device.store["lastSeen"] == .int(1_772_352_000))
    }

    @Test func aTamperedAppOnAJailbrokenDeviceIsDenied() async throws {
        var profile = Self.enrolled
        profile.apps = ["Cydia"]
        let device = Device(
            profile, store: ["deviceId": .string("d-1"), "lastSeen": Self.yesterday], attestation: "invalid")
        let result = try await Self.handler.run(Self.step(), context: device)
        #expect(result.outcome == "deny")
        #expect(result.data["score"] == .int(110))
        #expect(
            result.data["reasons"]
                == .list([.string("the app failed attestation"), .string("a jailbreak or root tool is installed")]))
    }

    @Test func aDeviceAwayLongerThanStaleAfterCountsAgain() async throws {
        let ninetyDaysAgo: Value = .int(1_772_352_000 - 90 * 86_400)
        let away = Device(Self.enrolled, store: ["deviceId": .string("d-1"), "lastSeen": ninetyDaysAgo])
        let result = try await Self.handler.run(Self.step(["stepUpAt": .int(20)]), context: away)
        #expect(result.outcome == "stepUp")
        #expect(result.data["reasons"] == .list([.string("the device was last seen 90 days ago")]))

        let hoursAway = Device(
            Self.enrolled, store: ["deviceId": .string("d-1"), "lastSeen": .int(1_772_352_000 - 3_600)])
        let hours = try await Self.handler.run(
            Self.step(["stepUpAt": .int(20), "staleAfter": .duration(60_000)]), context: hoursAway)
        #expect(hours.data["reasons"] == .list([.string("the device was last seen 1 hour ago")]))

        let withinLimit = Device(Self.enrolled, store: ["deviceId": .string("d-1"), "lastSeen": ninetyDaysAgo])
        let kept = try await Self.handler.run(
            Self.step(["stepUpAt": .int(20), "staleAfter": .duration(91 * 86_400_000)]), context: withinLimit)
        #expect(kept.outcome == "allow")

        let future = Device(Self.enrolled, store: ["deviceId": .string("d-1"), "lastSeen": .int(Int.max)])
        let odd = try await Self.handler.run(Self.step(["stepUpAt": .int(20)]), context: future)
        #expect(odd.data["reasons"] == .list([.string("the device's last sign-in is not a time in the past")]))
    }

    @Test func offlineNothingIsAskedOrStored() async throws {
        var profile = Self.enrolled
        profile.online = false
        let device = Device(profile)
        let result = try await Self.handler.run(Self.step(), context: device)
        #expect(result == HandlerResult("offline"))
        #expect(device.asked.isEmpty && device.store.isEmpty)
    }

    @Test func anAnswerTheServiceCannotGiveAndThresholdsOutOfOrderAreErrors() async throws {
        await #expect(throws: HandlerError("step 'risk' needs an 'attestation': one of valid, invalid, unavailable")) {
            _ = try await Self.handler.run(Self.step(), context: Device(Self.enrolled, attestation: "maybe"))
        }
        await #expect(throws: HandlerError("step 'risk': 'denyAt' (30) must be above 'stepUpAt' (30)")) {
            _ = try await Self.handler.run(Self.step(["denyAt": .int(30)]), context: Device(Self.enrolled))
        }
    }

    /// What `acme-journey check` reports for a step that misuses the handler, each at its line
    /// and column, and for a journey checked without the handler added.
    @Test func journeysAreCheckedAgainstTheContract() throws {
        let journey = """
            journey: acme.check
            version: 1
            title: Check
            start: risk
            steps:
              risk:
                handler: acme.riskScore
                with: { deviceIdKey: deviceId, stepUpAt: 0, colour: red }
                on: { allow: done, stepUp: done, offline: done, maybe: done }
            ends:
              done: { kind: success }
            """
        let file = SourceFile(path: "check.journey.yaml", data: Data(journey.utf8))
        let registry = try HandlerRegistry([Self.handler])
        let found = ProjectLoader(handlers: registry).load([file]).diagnostics.items.map {
            "\($0.location.line):\($0.location.column) \($0.id)"
        }
        #expect(
            Set(found) == [
                "7:5 param.missing",  // no lastSeenKey: at the step's handler
                "8:46 value.range",  // stepUpAt: 0, outside 1 to 100
                "8:49 param.unknown",  // colour
                "6:3 outcome.unhandled",  // no transition for deny
                "9:53 outcome.undeclared",  // maybe
            ], "\(found)")

        let without = ProjectLoader(handlers: HandlerRegistry()).load([file]).diagnostics.items
        #expect(without.map(\.id) == ["handler.unknown"])
        #expect(without.first?.message.contains("JourneyCLI.main(handlers:)") == true)
        #expect(throws: HandlerRegistry.DuplicateID(id: "acme.riskScore")) {
            try HandlerRegistry([Self.handler, RiskScoreHandler()])
        }
    }
}
