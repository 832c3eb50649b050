/// A parsed expression such as `state.tries + 1` or `outcome.pin == state.firstPin`.
///
/// Parse once when the journey loads, type-check against the journey's names, then
/// evaluate as often as needed: evaluation walks the parsed tree and never re-parses.
/// See "Expressions" in docs/journey-format.md for the language.
public struct Expression: Hashable, Sendable, CustomStringConvertible {
    /// The expression's text, as written.
    public let source: String
    /// The parsed tree, ``Shared``: a copy of an expression (a branch's condition read out of
    /// its journey) takes one reference, not one for each of the tree's lists.
    private let parsed: Shared<ExpressionTree>

    var tree: ExpressionTree { _read { yield parsed.value } }

    init(source: String, tree: ExpressionTree) {
        self.source = source
        self.parsed = Shared(tree)
    }

    /// Parses `source`, or returns its first syntax error or unknown root name or function.
    public static func parse(_ source: String) -> Result<Expression, ExpressionError> {
        do throws(ExpressionError) {
            let tree = try ExpressionParser.parse(Array(source.unicodeScalars))
            return .success(Expression(source: source, tree: tree))
        } catch {
            return .failure(error)
        }
    }

    /// Every name path the expression reads, e.g. `[["state", "email"], ["device", "online"]]`,
    /// in source order, without duplicates.
    public var references: [[String]] {
        var seen = Set<[String]>()
        return tree.paths.filter { seen.insert($0).inserted }
    }

    /// The name paths whose value can reach the expression's result, whole or in part: not
    /// one only compared, measured or tested (`len(pin)`, `pin != ''`, `startsWith(pin, '1')`),
    /// nor a condition's (`pin == '' ? 'none' : 'set'`), whose results tell something of a
    /// value but do not hold it. Each once.
    public var carriedReferences: [[String]] { carried(from: tree.root) }

    /// The name paths whose value can reach the value of node `ref` (``carriedReferences``).
    private func carried(from ref: ExpressionNode.Ref) -> [[String]] {
        let tree = self.tree
        var seen = Set<[String]>()
        var carried: [[String]] = []
        func walk(_ ref: ExpressionNode.Ref) {
            switch tree[ref] {
            case .constant, .not, .and, .or, .matches, .call2: return
            case .name(let path):
                if seen.insert(tree.path(path)).inserted { carried.append(tree.path(path)) }
            case .list(let start, let count): for item in tree.items(start: start, count: count) { walk(item) }
            case .negate(let operand): walk(operand)
            case .binary(let op, let left, let right):
                guard op.isArithmetic else { return }
                walk(left)
                walk(right)
            case .conditional(_, let then, let otherwise):
                walk(then)
                walk(otherwise)
            case .call1(let function, let argument):
                switch function {
                case .lower, .upper, .str: walk(argument)
                case .len, .seconds, .since, .until: return
                case .contains, .startsWith, .endsWith, .matches: return
                }
            }
        }
        walk(ref)
        return carried
    }

    /// Every name path node `ref` reads, each once.
    private func names(in ref: ExpressionNode.Ref) -> [[String]] {
        let tree = self.tree
        var found: [[String]] = []
        func walk(_ ref: ExpressionNode.Ref) {
            switch tree[ref] {
            case .constant: return
            case .name(let path): if !found.contains(tree.path(path)) { found.append(tree.path(path)) }
            case .list(let start, let count): for item in tree.items(start: start, count: count) { walk(item) }
            case .not(let a), .negate(let a), .call1(_, let a), .matches(let a, _): walk(a)
            case .and(let a, let b), .or(let a, let b), .binary(_, let a, let b), .call2(_, let a, let b):
                walk(a)
                walk(b)
            case .conditional(let a, let b, let c):
                walk(a)
                walk(b)
                walk(c)
            }
        }
        walk(ref)
        return found
    }

    /// Whether node `ref` holds text written into the expression: a string literal that is not
    /// empty, or a list of them, anywhere in it (`'4826'`, `'48' + '26'`, `['1234', '0000']`).
    private func holdsWrittenText(_ ref: ExpressionNode.Ref) -> Bool {
        let tree = self.tree
        switch tree[ref] {
        case .constant(let constant):
            switch tree.constant(constant) {
            case .string(let text): return !text.isEmpty
            case .list(let items): return items.contains { $0 != .string("") }
            default: return false
            }
        case .name: return false
        case .list(let start, let count):
            return tree.items(start: start, count: count).contains(where: holdsWrittenText)
        case .not(let a), .negate(let a), .call1(_, let a), .matches(let a, _): return holdsWrittenText(a)
        case .and(let a, let b), .or(let a, let b), .binary(_, let a, let b), .call2(_, let a, let b):
            return holdsWrittenText(a) || holdsWrittenText(b)
        case .conditional(_, let b, let c): return holdsWrittenText(b) || holdsWrittenText(c)
        }
    }

    /// The names compared with text written in the expression, by `==` or `!=` or by `in` a
    /// list written in it (`outcome.pin == '4826'`, `outcome.pin in ['1234', '0000']`), the
    /// name's value carried into its side (`lower(outcome.pin) == '4826'`) and the text built
    /// (`'48' + '26'`); each with the offset of that text and the names the text's side reads
    /// (`params.masterPin`, whose default is text written in: the caller judges). An empty
    /// text (`== ''`, a test for nothing there) aside. A `matches` whose pattern is one text,
    /// anchored at both ends (`matches(outcome.pin, '^4826$')`), compares too, at the call's offset.
    var comparedWithText: [(path: [String], offset: Int, reads: [[String]])] {
        let tree = self.tree
        var found: [(path: [String], offset: Int, reads: [[String]])] = []
        for (index, node) in tree.nodes.enumerated() {
            if case .matches(let subject, let pattern) = node, tree.pattern(pattern).isOneText {
                for path in carried(from: subject) {
                    found.append((path, tree.start(of: ExpressionNode.Ref(index)), []))
                }
                continue
            }
            guard case .binary(let op, let left, let right) = node, op == .equal || op == .notEqual || op == .in
            else { continue }
            let sides = op == .in ? [(left, right)] : [(left, right), (right, left)]
            for (name, text) in sides {
                let compared = carried(from: name)
                let reads = names(in: text)
                // The text's side is no other value of the run: it reads none of the names compared.
                guard !compared.isEmpty, reads.allSatisfy({ !compared.contains($0) }) else { continue }
                // Written in: literal text, or names the caller judges (a param's default).
                guard holdsWrittenText(text) || !reads.isEmpty else { continue }
                for path in compared { found.append((path, tree.start(of: text), reads)) }
            }
        }
        return found
    }

    /// Whether the expression's value can change as the virtual clock moves on: it reads
    /// `device.now`, or calls `since` or `until`. (A limit's lockout is told by the caller,
    /// which knows the limits.)
    public var readsClock: Bool {
        tree.paths.contains(["device", "now"])
            || tree.nodes.contains {
                if case .call1(let function, _) = $0 { function.readsClock } else { false }
            }
    }

    /// What the expression reads of the clock as a calendar (``ClockCalendar``): each
    /// `device.now % N` (the time of day, of the hour) and `device.now / N` (the day, the hour)
    /// it computes with `N` an int written in it, with the other ints written beside a `% N`
    /// (82800 in `device.now % 86400 >= 82800`), and each date it compares the clock with
    /// (`device.now >= 1767312000`, `until(1767312000) == 0s`). Times compared with one another (`device.now >=
    /// stored.until`, `since(…)`) are no calendar.
    var calendar: ClockCalendar {
        let tree = self.tree
        let int = tree.int
        let ints = tree.constants.compactMap { value -> Int? in
            if case .int(let n) = value, n > 0 { n } else { nil }
        }
        var calendar = ClockCalendar()
        for node in tree.nodes {
            // How long since or until a date written in it (`until(1767312000) == 0s`).
            if case .call1(let function, let argument) = node, function.readsClock, let date = int(argument),
                ClockCalendar.readsAsDate(date)
            {
                calendar.add(cutoff: date)
                continue
            }
            guard case .binary(let op, let left, let right) = node else { continue }
            switch op {
            case .remainder, .divide:
                guard let by = int(right), by > 1, tree.readsNow(left) else { continue }
                if op == .remainder {
                    calendar.add(remainder: by, telling: ints.filter { $0 < by })
                } else {
                    calendar.add(quotient: by)
                }
            case .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual:
                for (date, other) in [(left, right), (right, left)] {
                    if let date = int(date), ClockCalendar.readsAsDate(date), tree.readsNow(other) {
                        calendar.add(cutoff: date)
                    }
                }
            default: continue
            }
        }
        return calendar
    }

    /// The ints it measures time against the clock by, as seconds, where times are ints
    /// (seconds since 1970, as `device.now` gives): one added to or taken from a time in a
    /// comparison that reads the clock (`state.sentAt + 900 < device.now`), one compared with a
    /// difference that reads it (`device.now - state.sentAt < 900`), and one added to or taken
    /// from `device.now` (`set: { state.expiresAt: "${device.now + 3600}" }`); none longer than
    /// a year. Dates are the calendar's (``calendar``), not these.
    var clockSeconds: [Int] {
        let tree = self.tree
        func seconds(_ ref: ExpressionNode.Ref) -> Int? {
            tree.int(ref).flatMap { (1...31_536_000).contains($0) ? $0 : nil }
        }
        /// The ints added to or taken from something inside `ref`, however deep.
        func offsets(_ ref: ExpressionNode.Ref, into found: inout [Int]) {
            switch tree[ref] {
            case .binary(let op, let a, let b):
                if op == .add || op == .subtract {
                    if let n = seconds(b) { found.append(n) }
                    if op == .add, let n = seconds(a) { found.append(n) }
                }
                offsets(a, into: &found)
                offsets(b, into: &found)
            case .not(let a), .negate(let a): offsets(a, into: &found)
            default: break
            }
        }
        var found: [Int] = []
        for node in tree.nodes {
            guard case .binary(let op, let left, let right) = node else { continue }
            switch op {
            case .equal, .notEqual, .less, .lessEqual, .greater, .greaterEqual:
                guard tree.readsNow(left) || tree.readsNow(right) else { continue }
                offsets(left, into: &found)
                offsets(right, into: &found)
                for (side, other) in [(left, right), (right, left)] {
                    if let n = seconds(side), case .binary(.subtract, _, _) = tree[other] { found.append(n) }
                }
            case .add, .subtract:
                if tree.readsNow(left), let n = seconds(right) { found.append(n) }
                if op == .add, tree.readsNow(right), let n = seconds(left) { found.append(n) }
            default: continue
            }
        }
        return found
    }

    public var description: String { source }

    /// Two expressions are equal when their sources are: the tree follows from the source.
    public static func == (a: Expression, b: Expression) -> Bool { a.source == b.source }

    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}

/// What an expression may read at check time: the type of every name.
public protocol ExpressionScope {
    /// The type of a name path like `["state", "email"]` or `["limits", "pin", "count"]`,
    /// or nil if unknown.
    func type(of path: [String]) -> TypeInfo?
    /// All known paths, for "did you mean" suggestions.
    var knownPaths: [[String]] { get }
}

/// What an expression reads at run time: the value of every name.
public protocol ValueProvider {
    /// The value at a name path like `["state", "email"]`, or nil if it has none.
    func value(at path: [String]) -> Value?
}

/// The values of a journey's params alone (`params.NAME`), every other name without one: what
/// is known of an expression before a run, to work out what it gives from constants and params.
struct ParamValues: ValueProvider {
    let values: [String: Value]

    func value(at path: [String]) -> Value? {
        path.count == 2 && path[0] == "params" ? values[path[1]] : nil
    }
}

extension ExpressionTree {
    /// The int written at `ref`, when an int constant is written there.
    func int(_ ref: Ref) -> Int? {
        guard case .constant(let constant) = self[ref], case .int(let n) = self.constant(constant) else { return nil }
        return n
    }

    /// Whether the part of the tree at `ref` reads `device.now`.
    func readsNow(_ ref: Ref) -> Bool {
        switch self[ref] {
        case .name(let path): return self.path(path) == ["device", "now"]
        case .constant, .list: return false
        case .not(let a), .negate(let a), .call1(_, let a), .matches(let a, _): return readsNow(a)
        case .and(let a, let b), .or(let a, let b), .binary(_, let a, let b), .call2(_, let a, let b):
            return readsNow(a) || readsNow(b)
        case .conditional(let a, let b, let c): return readsNow(a) || readsNow(b) || readsNow(c)
        }
    }
}
