extension JourneyExplorer {
    /// Looks for secrets in what a move recorded: the `explore.no-secret-leak` invariant.
    /// Each event is searched through the texts its JSON line holds in strings
    /// (``TranscriptEvent/containsText(where:)``), without writing the line.
    ///
    /// The secrets are what the move typed into inputs the step declares secret, and every value
    /// kept secret in the run's params, state and store before and after the move. A secret of
    /// fewer than 4 characters is not looked for (it would be found by chance), nor digits that
    /// are part of a longer number. Each explorer thread keeps one search and reuses its buffers
    /// from move to move; a state's own secrets are gathered once for all of its moves
    /// (``held(by:)``), and the secrets after a move are gathered again only when the move
    /// started or left a journey or restarted the app; otherwise they are the state's own and
    /// those the move's `state.set` events wrote (every change to what the run keeps is
    /// recorded: ``TranscriptEvent/changesWhatTheRunKeeps``). Where a secret comes from is
    /// worked out only when one shows.
    struct SecretSearch {
        /// Where a secret was found, said when it shows (never the secret itself).
        enum Source: Sendable {
            case typed(input: String, step: String)
            case stored(String)
            case state(String, journey: String)
            case param(String, journey: String)

            var description: String {
                switch self {
                case .typed(let input, let step): "what was typed into '\(input)' at step '\(step)'"
                case .stored(let name): "stored.\(name)"
                case .state(let name, let journey): "state.\(name) of \(journey)"
                case .param(let name, let journey): "params.\(name) of \(journey)"
                }
            }
        }

        struct Secret: Sendable {
            var text: String
            var source: Source
        }

        /// The texts looked for in the move being searched besides those the state kept, each once.
        private var texts: [String] = []
        /// The texts the move being searched typed into inputs that are not secret.
        private var typedInPublic: [String] = []

        /// The texts of the secrets a machine keeps, each once: its store's, and each frame's
        /// state and params, of 4 characters or more.
        static func held(by machine: borrowing JourneyMachine) -> [String] {
            var found: [String] = []
            gather(machine) { if !found.contains($0) { found.append($0) } }
            return found
        }

        /// Calls `body` with each secret text a machine keeps (the names that hold them are not
        /// read: see ``sources(_:)``).
        static func gather(_ machine: borrowing JourneyMachine, _ body: (String) -> Void) {
            for value in machine.device.store.values { secretText(value).map(body) }
            let frames = machine.run.frames
            for index in frames.indices {
                for value in frames[index].state.values { secretText(value).map(body) }
                for value in frames[index].params.values { secretText(value).map(body) }
            }
        }

        /// The secrets a machine keeps, with where each comes from.
        static func sources(_ machine: borrowing JourneyMachine) -> [Secret] {
            var found: [Secret] = []
            func add(_ value: Value, _ source: @autoclosure () -> Source) {
                if let text = secretText(value) { found.append(Secret(text: text, source: source())) }
            }
            for (name, value) in machine.device.store { add(value, .stored(name)) }
            for frame in machine.run.frames {
                for (name, value) in frame.state { add(value, .state(name, journey: frame.journey.id)) }
                for (name, value) in frame.params { add(value, .param(name, journey: frame.journey.id)) }
            }
            return found
        }

        /// The text of a secret worth looking for: a secret string of 4 characters or more.
        static func secretText(_ value: Value) -> String? {
            guard case .secret(let inner) = value, case .string(let text) = inner.revealed,
                text.utf8.count >= SecretText.shortest
            else { return nil }
            return text
        }

        /// Where a secret shows in what `move` from `node` to `next` recorded (the texts of its
        /// events), said without the secret; nil when none does. `held` is ``held(by:)`` of
        /// `node`'s machine, when the caller has it.
        mutating func leak(
            _ recorded: EventTexts, move: Move, from node: Node, holding held: [String]? = nil, to next: Node
        ) -> String? {
            guard !recorded.isEmpty else { return nil }
            var held = held ?? Self.held(by: node.machine)
            // Each text once: a state and the next keep mostly the same secrets.
            texts.removeAll(keepingCapacity: true)
            func add(_ text: String) {
                if !held.contains(text) && !texts.contains(text) { texts.append(text) }
            }
            typedInPublic.removeAll(keepingCapacity: true)
            Self.typed(move, at: node) { text, _, secret in
                if !secret {
                    typedInPublic.append(text)
                } else if text.utf8.count >= SecretText.shortest {
                    add(text)
                }
            }
            // What the run keeps changes only where the move records it: a journey started or
            // left, or a restart, changes it whole; a value set adds at most that value.
            // Otherwise the state after keeps the secrets of the state before.
            if recorded.relaunches {
                Self.gather(next.machine, add)
            } else {
                for text in recorded.secretsSet { add(text) }
                assert(
                    Self.held(by: next.machine).allSatisfy { held.contains($0) || texts.contains($0) },
                    "a secret kept after a move unrecorded")
            }
            // A text typed into an input that is not secret was public before it was kept.
            if !typedInPublic.isEmpty {
                let typedInPublic = typedInPublic
                if held.contains(where: typedInPublic.contains) { held.removeAll { typedInPublic.contains($0) } }
                if texts.contains(where: typedInPublic.contains) { texts.removeAll { typedInPublic.contains($0) } }
            }
            // The texts of each event alone: when and how deep it happened is the run's clock,
            // and its numbers are counts and durations, never a secret shown.
            guard !(held.isEmpty && texts.isEmpty), let event = recorded.firstEvent(showing: held, texts) else {
                return nil
            }
            return Self.message(event, of: recorded, move: move, from: node, to: next)
        }

        /// Calls `body` with each text the move types into an input the step asks for, the
        /// input's name, and whether the input is secret.
        private static func typed(_ move: Move, at node: Node, _ body: (String, String, Bool) -> Void) {
            guard case .input(_, _, let values) = move, let request = node.request else { return }
            for input in request.inputs {
                guard case .string(let text)? = values[input.name]?.revealed else { continue }
                body(text, input.name, input.type.secret)
            }
        }

        /// What to say of event `event` of `recorded`, where a secret shows: the first by name of
        /// the sources of every secret text that shows in it.
        private static func message(
            _ event: Int, of recorded: EventTexts, move: Move, from node: Node, to next: Node
        ) -> String {
            var secrets: [Secret] = []
            var typedInPublic: [String] = []
            if case .input(let step, _, _) = move {
                typed(move, at: node) { text, input, secret in
                    if !secret {
                        typedInPublic.append(text)
                    } else if text.utf8.count >= SecretText.shortest {
                        secrets.append(Secret(text: text, source: .typed(input: input, step: step)))
                    }
                }
            }
            secrets += sources(node.machine) + sources(next.machine)
            secrets.removeAll { typedInPublic.contains($0.text) }
            let what = secrets.filter { recorded.shows($0.text, in: event) }.map(\.source.description).min()
            return "\(what ?? "a secret"), a secret, shows in the transcript's '\(recorded.name(of: event))' event"
        }

        /// Whether `needle` occurs in `text` (one text of an event) as a whole: no letter or digit
        /// adjoins it, so that a PIN is not found inside a longer number, nor a word inside a
        /// longer word.
        static func occurs(_ needle: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let first = needle.first, text.count >= needle.count else { return false }
            func isWordByte(_ byte: UInt8) -> Bool {
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
            }
            func isWord(_ i: Int) -> Bool { i >= 0 && i < text.count && isWordByte(text[i]) }
            // Only a secret that starts (ends) with a letter or digit can run on into one.
            let wordStart = isWordByte(first)
            let wordEnd = isWordByte(needle[needle.count - 1])
            var start = 0
            let last = text.count - needle.count
            while start <= last {
                if text[start] == first {
                    var matched = 1
                    while matched < needle.count && text[start + matched] == needle[matched] { matched += 1 }
                    if matched == needle.count && !(wordStart && isWord(start - 1))
                        && !(wordEnd && isWord(start + needle.count))
                    {
                        return true
                    }
                }
                start += 1
            }
            return false
        }
    }
}

/// The texts of the events a move recorded, for the secret search: each event's texts
/// (``TranscriptEvent/containsText(where:)``) copied as UTF-8 one after another when it is
/// recorded, so that the search reads bytes in one buffer and holds none of the events.
struct EventTexts {
    private var bytes: [UInt8] = []
    /// Where each text ends in `bytes`.
    private var ends: [Int] = []
    /// Each event's name, and where its texts end in `ends`.
    private var events: [(name: String, texts: Int)] = []
    /// Whether an event started or left a journey, or restarted the app: what the run keeps
    /// after it is not what it kept before and a few values more.
    private(set) var relaunches = false
    /// The texts of the secrets the `state.set` events wrote (``JourneyExplorer/SecretSearch/secretText(_:)``):
    /// besides these, a move that does not relaunch keeps no secret it did not keep before.
    private(set) var secretsSet: [String] = []

    var isEmpty: Bool { events.isEmpty }

    mutating func removeAll() {
        guard !events.isEmpty else { return }
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        relaunches = false
        secretsSet.removeAll(keepingCapacity: true)
    }

    mutating func add(_ event: borrowing TranscriptEvent) {
        _ = event.containsText { text in
            if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
                bytes.append(contentsOf: text.utf8)
            }
            ends.append(bytes.count)
            return false
        }
        events.append((event.name, ends.count))
        switch event {
        case .stateSet(_, let value):
            if let text = JourneyExplorer.SecretSearch.secretText(value) { secretsSet.append(text) }
        case .journeyStart, .subjourneyEnter, .subjourneyExit, .restart:
            relaunches = true
        default:
            assert(!event.changesWhatTheRunKeeps, "'\(event.name)' changes what the run keeps")
        }
    }

    /// The name of event `index`.
    func name(of index: Int) -> String { events[index].name }

    /// The first event one of whose texts holds one of `secrets` or `more`
    /// (``JourneyExplorer/SecretSearch/occurs(_:in:)``).
    func firstEvent(showing secrets: [String], _ more: [String] = []) -> Int? {
        // Each secret is looked for once through every text, up to the first event found so far.
        var first: Int?
        for secret in secrets { first = firstEvent(showing: secret, before: first) ?? first }
        for secret in more { first = firstEvent(showing: secret, before: first) ?? first }
        return first
    }

    /// The first event before event `end` (before none: every event) one of whose texts holds `secret`.
    private func firstEvent(showing secret: String, before end: Int?) -> Int? {
        var secret = secret
        return secret.withUTF8 { needle in
            bytes.withUnsafeBufferPointer { bytes in
                var text = 0
                for event in 0..<(end ?? events.count) {
                    while text < events[event].texts {
                        let haystack = UnsafeBufferPointer(
                            rebasing: bytes[(text == 0 ? 0 : ends[text - 1])..<ends[text]])
                        if JourneyExplorer.SecretSearch.occurs(needle, in: haystack) { return event }
                        text += 1
                    }
                }
                return nil
            }
        }
    }

    /// Whether `secret` shows in one of the texts of event `index`.
    func shows(_ secret: String, in index: Int) -> Bool {
        let texts = (index == 0 ? 0 : events[index - 1].texts)..<events[index].texts
        return bytes.withUnsafeBufferPointer { bytes in
            var secret = secret
            return secret.withUTF8 { needle in
                texts.contains { text in
                    let start = text == 0 ? 0 : ends[text - 1]
                    let haystack = UnsafeBufferPointer(rebasing: bytes[start..<ends[text]])
                    return JourneyExplorer.SecretSearch.occurs(needle, in: haystack)
                }
            }
        }
    }
}

extension TranscriptEvent {
    /// Whether the event records a change to what the run keeps that can hold a secret: a
    /// value set in the state or the store, a journey started or left (its params and initial
    /// state), a restart. Every such change is recorded; after a move that records none, the
    /// run keeps the secrets it kept before (``JourneyExplorer/SecretSearch``).
    var changesWhatTheRunKeeps: Bool {
        switch self {
        case .stateSet, .journeyStart, .subjourneyEnter, .subjourneyExit, .restart: true
        case .header, .journeyEnd, .stepEnter, .screen, .screenUpdated, .input, .inputRefused, .handlerCall,
            .handlerError, .outcome, .attempt, .transition, .session, .network, .http, .clockAdvance, .failure:
            false
        }
    }
}
