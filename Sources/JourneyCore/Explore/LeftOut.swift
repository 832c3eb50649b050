extension JourneyExplorer {
    /// What an exploration could not play, and why: said under its result (`left out: …`),
    /// one line each, in the order of what they say, naming each step `journey.step`.
    public enum LeftOut: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// A step whose handler sent a request with no network to send it to: the request went
        /// as if the device were offline, and the server's answers are not played. Of a journey
        /// explored from several starts, some of which stub the server, `fromSomeStarts`: left
        /// out only from the others.
        case sentWithoutNetwork(journey: String, step: String, fromSomeStarts: Bool = false)
        /// A step whose handler sent a request that no stub of the start answers: where the
        /// step leads is not judged (the scenario's `network:` does not say what the server does).
        case unstubbed(journey: String, step: String)
        /// A journey that reads the clock (`device.now`, `since`, `until`) but writes no duration
        /// the explorer can jump it by: time passing.
        case clockUnjumped(journey: String)
        /// A `pin.verify` of a key the device does not keep and that no step of the journeys it
        /// reaches seals: its right and wrong PINs are never asked for (it says `missing` at once).
        /// Said of the start's device: of a journey explored from several starts, left out only
        /// when it is from each.
        case unsealedPIN(journey: String, step: String, key: String)
        /// A step whose input the explorer cannot make: its handler cannot say what to give.
        case inputUnmade(journey: String, step: String, handler: String?, input: String)
        /// A step of a handler not declared deterministic: where it leads is not judged.
        case undeclared(journey: String, step: String, handler: String)
        /// A step of a program declared deterministic that, run twice from the same state, ended
        /// otherwise (`how`, as said): where it leads is not judged.
        case unsteady(journey: String, step: String, handler: String, how: String)

        public var description: String {
            switch self {
            case .sentWithoutNetwork(let journey, let step, let fromSomeStarts):
                let whence =
                    fromSomeStarts
                    ? " from the starts without stubs (those with stubs play the server's answers)"
                    : " (a server's answers are played from where a scenario that stubs them starts: give its folder, or --from it)"
                return
                    "\(journey).\(step): sends a request with no network to send it to: it goes as if offline\(whence)"
            case .unstubbed(let journey, let step):
                return
                    "\(journey).\(step): sends a request that no stub answers, so where its step leads is not judged (add the server's answer to the network: of the scenario it is explored from)"
            case .clockUnjumped(let journey):
                return
                    "\(journey): reads the clock but writes no duration to jump it by, so time passing is not played; give --clock-jump with the waits that matter (--clock-jump 10m)"
            case .unsealedPIN(let journey, let step, let key):
                return
                    "\(journey).\(step): the device keeps no PIN under '\(key)' and no step seals one, so its right and wrong PINs are never asked for (explore from a scenario that seals one: --from SCENARIO, or its folder)"
            case .inputUnmade(let journey, let step, let handler, let input):
                return "\(journey).\(step): \(handler ?? "its handler") cannot say what to give for '\(input)'"
            case .undeclared(let journey, let step, let handler):
                return
                    "\(journey).\(step): \(handler) is not declared deterministic (for a program, 'deterministic: true' in journeykit.yaml), so where its step leads is not judged"
            case .unsteady(let journey, let step, let handler, let how):
                return
                    "\(journey).\(step): \(handler) is declared deterministic (journeykit.yaml), but the same step run twice from the same state ended otherwise (\(how)), so where its step leads is not judged; make the program answer alike, or declare it 'deterministic: false'"
            }
        }

        /// In the order of what they say.
        public static func < (a: Self, b: Self) -> Bool { a.description < b.description }

        /// What kind of thing is left out, as `journey explore --json` names it: a stable id.
        public var kind: String {
            switch self {
            case .sentWithoutNetwork: "no-network"
            case .unstubbed: "no-stub"
            case .clockUnjumped: "no-clock-jump"
            case .unsealedPIN: "no-pin-sealed"
            case .inputUnmade: "input-not-made"
            case .undeclared: "not-declared-deterministic"
            case .unsteady: "not-steady"
            }
        }

        /// The journey it is said of.
        public var journey: String {
            switch self {
            case .sentWithoutNetwork(let journey, _, _), .unstubbed(let journey, _), .clockUnjumped(let journey),
                .unsealedPIN(let journey, _, _), .inputUnmade(let journey, _, _, _), .undeclared(let journey, _, _),
                .unsteady(let journey, _, _, _):
                journey
            }
        }

        /// The step of ``journey`` it is said of; nil when it is said of the whole journey.
        public var step: String? {
            switch self {
            case .clockUnjumped: nil
            case .sentWithoutNetwork(_, let step, _), .unstubbed(_, let step), .unsealedPIN(_, let step, _),
                .inputUnmade(_, let step, _, _),
                .undeclared(_, let step, _), .unsteady(_, let step, _, _):
                step
            }
        }

        /// The handler of that step, where what is left out is the handler's doing.
        public var handler: String? {
            switch self {
            case .inputUnmade(_, _, let handler, _): handler
            case .undeclared(_, _, let handler), .unsteady(_, _, let handler, _): handler
            case .sentWithoutNetwork, .unstubbed, .clockUnjumped, .unsealedPIN: nil
            }
        }

        /// The input the handler cannot make, for ``inputUnmade(journey:step:handler:input:)``.
        public var input: String? {
            if case .inputUnmade(_, _, _, let input) = self { input } else { nil }
        }

        /// The store key no PIN is sealed under, for ``unsealedPIN(journey:step:key:)``.
        public var key: String? {
            if case .unsealedPIN(_, _, let key) = self { key } else { nil }
        }

        /// Whether it is said of a start's device (``unsealedPIN(journey:step:key:)``).
        var isSaidOfTheDevice: Bool {
            if case .unsealedPIN = self { true } else { false }
        }
    }
}
