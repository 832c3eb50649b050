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
    /// (``held(by:)``).
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

        private var secrets: [Secret] = []
        private var distinct: [Int] = []

        /// The secrets a machine keeps: its store's, and each frame's state and params.
        static func held(by machine: borrowing JourneyMachine) -> [Secret] {
            var found: [Secret] = []
            gather(machine, into: &found)
            return found
        }

        /// Appends the secrets a machine keeps (``held(by:)``) to `found`.
        static func gather(_ machine: borrowing JourneyMachine, into found: inout [Secret]) {
            func add(_ value: Value, _ source: @autoclosure () -> Source) {
                guard value.isSecret, case .string(let text) = value.revealed, text.utf8.count >= 4 else { return }
                found.append(Secret(text: text, source: source()))
            }
            for (name, value) in machine.device.store { add(value, .stored(name)) }
            for frame in machine.run.frames {
                for (name, value) in frame.state { add(value, .state(name, journey: frame.journey.id)) }
                for (name, value) in frame.params { add(value, .param(name, journey: frame.journey.id)) }
            }
        }

        /// Where a secret shows in `records` (what `move` from `node` to `next` recorded), said
        /// without the secret; nil when none does. `held` is ``held(by:)`` of `node`'s machine,
        /// when the caller has it.
        mutating func leak(
            _ records: [TranscriptRecord], move: Move, from node: Node, holding held: [Secret]? = nil, to next: Node
        ) -> String? {
            // Events prepared when the journey was compiled (entering a step, a fixed screen, a
            // transition) hold nothing a run made: only the others are looked at.
            guard records.contains(where: { $0.encodedEvent == nil }) else { return nil }
            secrets.removeAll(keepingCapacity: true)
            var typedInPublic: [String] = []
            if case .input(let step, _, let values) = move, let request = node.request {
                for input in request.inputs {
                    guard case .string(let text)? = values[input.name]?.revealed else { continue }
                    if !input.type.secret {
                        // A text typed into an input that is not secret was public before it was kept.
                        typedInPublic.append(text)
                    } else if text.utf8.count >= 4 {
                        secrets.append(Secret(text: text, source: .typed(input: input.name, step: step)))
                    }
                }
            }
            if let held { secrets += held } else { Self.gather(node.machine, into: &secrets) }
            Self.gather(next.machine, into: &secrets)
            if !typedInPublic.isEmpty { secrets.removeAll { typedInPublic.contains($0.text) } }
            guard !secrets.isEmpty else { return nil }
            // Each text once: a state and the next keep mostly the same secrets.
            distinct.removeAll(keepingCapacity: true)
            for index in secrets.indices where !distinct.contains(where: { secrets[$0].text == secrets[index].text }) {
                distinct.append(index)
            }
            for record in records where record.encodedEvent == nil {
                // The texts of the event alone: when and how deep it happened is the run's clock,
                // and its numbers are counts and durations, never a secret shown.
                var shown: [Int] = []
                for index in distinct {
                    var secret = secrets[index].text
                    let found = secret.withUTF8 { needle in
                        record.event.containsText { text in
                            var text = text
                            return text.withUTF8 { Self.occurs(needle, in: $0) }
                        }
                    }
                    if found { shown.append(index) }
                }
                guard !shown.isEmpty else { continue }
                // Every source of a text that shows, and the first of them by name is said.
                let what = secrets.filter { secret in shown.contains { secrets[$0].text == secret.text } }
                    .map(\.source.description).min()
                return "\(what ?? "a secret"), a secret, shows in the transcript's '\(record.event.name)' event"
            }
            return nil
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
