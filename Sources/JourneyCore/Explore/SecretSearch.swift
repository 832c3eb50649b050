extension JourneyExplorer {
    /// Looks for secrets in what a move recorded: the `explore.no-secret-leak` invariant.
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
        private var line: [UInt8] = []
        private let encoder = JSONLinesEncoder()

        /// The secrets a machine keeps: its store's, and each frame's state and params.
        static func held(by machine: borrowing JourneyMachine) -> [Secret] {
            var found: [Secret] = []
            func add(_ value: Value, _ source: @autoclosure () -> Source) {
                guard value.isSecret, case .string(let text) = value.revealed, text.utf8.count >= 4 else { return }
                found.append(Secret(text: text, source: source()))
            }
            for (name, value) in machine.device.store { add(value, .stored(name)) }
            for frame in machine.run.frames {
                for (name, value) in frame.state { add(value, .state(name, journey: frame.journey.id)) }
                for (name, value) in frame.params { add(value, .param(name, journey: frame.journey.id)) }
            }
            return found
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
            secrets += held ?? Self.held(by: node.machine)
            secrets += Self.held(by: next.machine)
            if !typedInPublic.isEmpty { secrets.removeAll { typedInPublic.contains($0.text) } }
            guard !secrets.isEmpty else { return nil }
            // Each text once: a state and the next keep mostly the same secrets.
            var distinct: [Int] = []
            for index in secrets.indices where !distinct.contains(where: { secrets[$0].text == secrets[index].text }) {
                distinct.append(index)
            }
            // A secret with a quote, a backslash or a control character shows escaped in JSON.
            var escaped: [(text: [UInt8], of: Int)] = []
            for index in distinct
            where secrets[index].text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
                var writer = JSONWriter()
                writer.writeString(secrets[index].text)
                // The string as JSON writes it, without its quotes.
                escaped.append((Array(writer.buffer.dropFirst().dropLast()), index))
            }
            for record in records where record.encodedEvent == nil {
                line.removeAll(keepingCapacity: true)
                // The event alone: when and how deep it happened is the run's clock, never a secret.
                encoder.encode(TranscriptRecord(time: 0, depth: 0, event: record.event), into: &line)
                var shown: [Int] = []
                for index in distinct {
                    var text = secrets[index].text
                    if text.withUTF8({ Self.occurs($0, in: line) }) { shown.append(index) }
                }
                for (text, index) in escaped where !shown.contains(index) {
                    if text.withUnsafeBufferPointer({ Self.occurs($0, in: line) }) {
                        shown.append(index)
                    }
                }
                guard !shown.isEmpty else { continue }
                // Every source of a text that shows, and the first of them by name is said.
                let what = secrets.filter { secret in shown.contains { secrets[$0].text == secret.text } }
                    .map(\.source.description).min()
                return "\(what ?? "a secret"), a secret, shows in the transcript's '\(record.event.name)' event"
            }
            return nil
        }

        /// Whether `needle` occurs in `json` (a line of JSON) as a whole, in one of its strings:
        /// no letter or digit adjoins it, so that a PIN is not found inside a longer number, nor a
        /// word inside a longer word; and the line's numbers (the run's clock, durations, counts,
        /// statuses) are not searched, so a PIN that reads as one of them (a jump of 2 580 ms) is
        /// not that PIN shown.
        static func occurs(_ needle: UnsafeBufferPointer<UInt8>, in haystack: [UInt8]) -> Bool {
            guard let first = needle.first, haystack.count >= needle.count else { return false }
            func isWordByte(_ byte: UInt8) -> Bool {
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
            }
            func isWord(_ i: Int) -> Bool { i >= 0 && i < haystack.count && isWordByte(haystack[i]) }
            // Only a secret that starts (ends) with a letter or digit can run on into one.
            let wordStart = isWordByte(first)
            let wordEnd = isWordByte(needle[needle.count - 1])
            return haystack.withUnsafeBufferPointer { hay in
                var start = 0
                let last = hay.count - needle.count
                while start <= last {
                    if hay[start] == first {
                        var matched = 1
                        while matched < needle.count && hay[start + matched] == needle[matched] { matched += 1 }
                        if matched == needle.count && !(wordStart && isWord(start - 1))
                            && !(wordEnd && isWord(start + needle.count))
                            && Self.isInString(hay, at: start)
                        {
                            return true
                        }
                    }
                    start += 1
                }
                return false
            }
        }

        /// Whether the byte at `position` of a line of JSON lies inside one of its strings (keys
        /// included): after an odd number of quotes that no backslash escapes.
        static func isInString(_ json: UnsafeBufferPointer<UInt8>, at position: Int) -> Bool {
            var inside = false
            var index = 0
            while index < position {
                switch json[index] {
                case 0x5C where inside: index += 1  // the escaped byte is never a quote that counts
                case 0x22: inside.toggle()
                default: break
                }
                index += 1
            }
            return inside
        }
    }
}
