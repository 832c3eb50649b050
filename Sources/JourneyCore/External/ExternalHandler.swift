import Foundation

/// A step handler that is a program in any language, declared in a project file
/// (``ExternalHandlerDeclaration``) and spoken to over JSON-RPC 2.0, one message per line on
/// its standard input and output (docs/handler-protocol.md).
///
/// The program is started when a step first needs it and reused for the steps after; steps
/// that run at the same time (`journey test --jobs`) get a process each. A program that
/// crashes, exits, writes something that is not JSON-RPC or does not answer within its time
/// limit fails that step with a message naming the handler and what happened, with the end
/// of its standard error; it is stopped with everything it started, and the next step starts
/// it afresh. No failure of the program hangs a run or ends JourneyKit.
///
/// Secrets stay secret whatever the program sends back: a value it was given as a secret is
/// replaced by `•••` in its error messages and standard error, a value it stores that holds
/// one is stored as a secret, and outcome data that holds one where the contract does not
/// declare the data secret fails the step.
public struct ExternalHandler: StepHandler {
    public let contract: HandlerContract
    public let declaration: ExternalHandlerDeclaration
    private let pool: Pool

    /// The handler `declaration` describes; `start` starts its program (the command line
    /// starts ``ExternalHandlerDeclaration/command`` in the project file's folder) and is
    /// called each time a step needs a program and none is idle.
    public init(
        _ declaration: ExternalHandlerDeclaration,
        start: @escaping @Sendable () throws(HandlerTransportFailure) -> any HandlerTransport
    ) {
        self.declaration = declaration
        self.contract = declaration.contract
        self.pool = Pool(declaration: declaration, start: start)
    }

    public nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext
    ) async throws -> HandlerResult {
        do {
            return try await runOnce(invocation, context: context, afresh: false)
        } catch is Connection.EndedBetweenSteps {
            // It ended after its last answer, before it said anything of this step: as if it
            // had ended before the step was sent, however soon after its answer it ended.
            return try await runOnce(invocation, context: context, afresh: true)
        }
    }

    /// Runs the step on a program from the pool, which gets it back whatever happens.
    private nonisolated(nonsending) func runOnce(
        _ invocation: HandlerInvocation, context: HandlerContext, afresh: Bool
    ) async throws -> HandlerResult {
        let connection = try pool.take()
        defer { pool.giveBack(connection) }
        return try await connection.run(invocation, context: context, afresh: afresh)
    }

    /// Asks every idle program of every external handler to shut down (`shutdown`, then
    /// `exit`) and waits a moment for each to end before stopping it. The command line does
    /// this as it exits, then stops the programs still busy.
    public static func shutdownAll() {
        Pool.registry.shutdownAll()
    }
}

/// The protocol's fixed words.
enum HandlerProtocol {
    /// The version `initialize` offers and a program must answer with.
    static let version = 1
    /// JSON-RPC's error codes that JourneyKit sends.
    static let methodNotFound = -32601
    static let invalidParams = -32602
    /// The step ended while the program's request was open (an app restart in the scenario,
    /// an input refused): LSP's `RequestCancelled`.
    static let requestCancelled = -32800
    /// How long a program may take to answer `shutdown` and exit, as JourneyKit exits.
    static let shutdownMilliseconds = 1000
    /// The most messages (requests and notifications) a program may send while one step runs,
    /// or before it answers `initialize`: one that goes on asking is stopped there, not served
    /// (its stored values and waits kept in the run) until the scenario's time runs out.
    static let maximumMessages = 10_000

    /// What a program that sent more than ``maximumMessages`` is told it did (with the number
    /// written as the docs write it).
    static let tooManyMessages = "sent more than 10 000 messages (a step may make at most that many requests)"
}

extension ExternalHandler {
    /// The programs of one handler: idle ones waiting for a step, and how many are running.
    final class Pool: @unchecked Sendable {
        let declaration: ExternalHandlerDeclaration
        let start: @Sendable () throws(HandlerTransportFailure) -> any HandlerTransport
        private let lock = NSLock()
        private var idle: [Connection] = []
        private var running = 0

        init(
            declaration: ExternalHandlerDeclaration,
            start: @escaping @Sendable () throws(HandlerTransportFailure) -> any HandlerTransport
        ) {
            self.declaration = declaration
            self.start = start
        }

        /// An idle program, or a new one started for this step. An idle program that ended
        /// since its last step (it crashed, or was killed) is forgotten, and another one taken.
        func take() throws(HandlerError) -> Connection {
            lock.lock()
            while let connection = idle.popLast() {
                lock.unlock()
                if connection.isRunning { return connection }
                lock.lock()
                running -= 1
            }
            running += 1
            lock.unlock()
            Pool.registry.register(self)
            do {
                return try Connection(declaration: declaration, start: start)
            } catch {
                lock.lock()
                running -= 1
                lock.unlock()
                throw error
            }
        }

        /// Back from a step: kept for the next one, or forgotten if it was stopped.
        func giveBack(_ connection: Connection) {
            lock.lock()
            defer { lock.unlock() }
            if connection.isRunning {
                idle.append(connection)
            } else {
                running -= 1
            }
        }

        /// Shuts down every idle program.
        func shutdownIdle() {
            lock.lock()
            let connections = idle
            idle.removeAll()
            running -= connections.count
            lock.unlock()
            for connection in connections { connection.askToExit() }
            for connection in connections { connection.finish() }
        }

        static let registry = Registry()

        /// Every pool that started a program, to shut them down as JourneyKit exits.
        final class Registry: @unchecked Sendable {
            private let lock = NSLock()
            private var pools: [ObjectIdentifier: Pool] = [:]

            func register(_ pool: Pool) {
                lock.lock()
                defer { lock.unlock() }
                pools[ObjectIdentifier(pool)] = pool
            }

            func shutdownAll() {
                lock.lock()
                let all = Array(pools.values)
                lock.unlock()
                for pool in all { pool.shutdownIdle() }
            }
        }
    }
}

/// One running program of a handler and the conversation with it.
final class Connection {
    let declaration: ExternalHandlerDeclaration
    private let process: any HandlerTransport
    private var nextID = 1
    /// Texts the program was given as secrets, or gave back as secret outcome data, with the
    /// forms a program writes them in a URL, a form body or a header (``SecretText/encodings(of:)``):
    /// never shown, wherever they come back, for as long as the program runs.
    private var secrets = Set<String>()
    private var id: String { declaration.id.value }

    var isRunning: Bool { process.ending == nil }
    /// Whether the program has answered a step.
    private var hasAnswered = false

    /// Starts the program and agrees on the protocol (`initialize`).
    init(
        declaration: ExternalHandlerDeclaration,
        start: () throws(HandlerTransportFailure) -> any HandlerTransport
    ) throws(HandlerError) {
        self.declaration = declaration
        do {
            process = try start()
        } catch {
            throw HandlerError(
                "its program \(Self.quoted(declaration.command)) could not be started: " + Self.text(of: error))
        }
        let request = Message.request(id: 0, method: "initialize") { w in
            w.open()
            w.key("protocolVersion", int: HandlerProtocol.version)
            w.key("handler", string: declaration.id.value)
            w.close()
        }
        let result: JSONNode
        do {
            try process.send(request)
            result = try awaitResult(id: 0, for: "initialize")
        } catch {
            throw stopped(error, while: "starting, before it answered 'initialize'")
        }
        guard case .int(let version)? = result["protocolVersion"]?.kind else {
            throw stopped(
                .protocolError("answered 'initialize' without a whole-number 'protocolVersion'"),
                while: "starting")
        }
        guard version == HandlerProtocol.version else {
            throw stopped(
                .protocolError(
                    "speaks protocol version \(version); this JourneyKit speaks version \(HandlerProtocol.version)"),
                while: "starting")
        }
    }

    /// A program that had answered a step ended before it said anything of the next one: it
    /// ended between steps, and the step goes to a fresh program.
    struct EndedBetweenSteps: Error {}

    /// Runs one step: sends `step/run`, answers the program's requests until it answers, and
    /// returns its outcome. A program that had answered a step before, and ends having sent
    /// nothing for this one, throws ``EndedBetweenSteps`` (unless the step was sent `afresh`).
    nonisolated(nonsending) func run(
        _ invocation: HandlerInvocation, context: HandlerContext, afresh: Bool = false
    ) async throws -> HandlerResult {
        let stepID = nextID
        nextID += 1
        let request = Message.request(id: stepID, method: "step/run") { w in
            self.writeStep(invocation, into: &w)
        }
        let betweenSteps = hasAnswered && !afresh
        if hasAnswered, let stray = try strayMessage(betweenSteps: betweenSteps, before: invocation.step) {
            throw stopped(
                .protocolError(
                    "wrote \(quote(stray)) after its answer to the last step, before step '\(invocation.step)' was sent (a program writes only while it runs a step)"
                ), while: "running step '\(invocation.step)'")
        }
        do {
            try process.send(request)
        } catch {
            if betweenSteps, case .ended = error { throw EndedBetweenSteps() }
            throw stopped(error, while: "running step '\(invocation.step)'")
        }
        var heard = false
        var messages = 0
        while true {
            let message: Message
            do {
                message = try next(for: "step '\(invocation.step)'")
            } catch {
                if betweenSteps, !heard, case .process(.ended) = error { throw EndedBetweenSteps() }
                throw stopped(error, while: "running step '\(invocation.step)'")
            }
            heard = true
            messages += 1
            guard messages <= HandlerProtocol.maximumMessages else {
                throw stopped(
                    .protocolError(HandlerProtocol.tooManyMessages), while: "running step '\(invocation.step)'")
            }
            switch message {
            case .response(let answered, let outcome):
                guard answered == .int(stepID) else {
                    throw stopped(
                        .protocolError("answered a request it was not sent (id \(redacted(answered.description)))"),
                        while: "running step '\(invocation.step)'")
                }
                hasAnswered = true
                switch outcome {
                case .success(let result): return try self.result(result, of: invocation)
                case .failure(let error):
                    throw HandlerError(
                        "its program failed step '\(invocation.step)': \(redacted(error.message))"
                            + (error.code == -32000 || error.code == 0 ? "" : " (error \(error.code))"))
                }
            case .request(let callID, let method, let params):
                do {
                    let answer = try await serve(method, params, invocation, context)
                    try process.send(Message.response(id: callID, result: answer))
                } catch let failure as ProcessFailure {
                    throw stopped(failure, while: "running step '\(invocation.step)'")
                } catch let failure as HandlerTransportFailure {
                    throw stopped(.process(failure), while: "running step '\(invocation.step)'")
                } catch let refusal as CallRefusal {
                    do {
                        try process.send(Message.error(id: callID, code: refusal.code, message: refusal.message))
                    } catch {
                        throw stopped(error, while: "running step '\(invocation.step)'")
                    }
                } catch {
                    // The step ends here (an app restart, a refused input): the program hears
                    // why, and its answer to `step/run` is awaited and dropped.
                    cancel(callID, stepID: stepID, because: error)
                    throw error
                }
            case .notification:
                continue
            }
        }
    }

    /// What the program has written since its answer to the last step, if anything: a second
    /// answer, or a request too late for its step, which the next step must not take for its own.
    /// A program that ended there throws ``EndedBetweenSteps`` when `betweenSteps`.
    private func strayMessage(betweenSteps: Bool, before step: String) throws -> [UInt8]? {
        do {
            return try process.receive(within: 0)
        } catch .timedOut {
            return nil
        } catch {
            if betweenSteps, case .ended = error { throw EndedBetweenSteps() }
            throw stopped(error, while: "running step '\(step)'")
        }
    }

    // MARK: - Serving the program's requests

    /// A request the program may make again differently: answered with a JSON-RPC error.
    struct CallRefusal: Error {
        var code: Int
        var message: String
    }

    /// Answers one request of the program's while its step runs, or refuses it.
    private nonisolated(nonsending) func serve(
        _ method: String, _ params: JSONNode?, _ invocation: HandlerInvocation, _ context: HandlerContext
    ) async throws -> [UInt8] {
        switch method {
        case "driver/ask": return try await ask(params, invocation, context)
        case "store/get":
            let key = try text(params, "key", method)
            let value = context.stored(key)
            return Message.result { w in
                w.open()
                w.name("value")
                if let value { self.writePlain(value, into: &w) } else { w.raw("null") }
                w.key("secret", bool: value?.isSecret ?? false)
                w.close()
            }
        case "store/set": return try store(params, context)
        case "store/keys":
            let keys = context.storedKeys
            return Message.result { w in
                w.open()
                w.name("keys")
                w.value(.list(keys.map(Value.string)))
                w.close()
            }
        case "clock/now":
            let now = context.now
            return Message.result { w in
                w.open()
                w.key("now", int: now)
                w.close()
            }
        case "clock/wait": return try wait(params, context)
        case "attempt/charge":
            context.chargeAttempt()
            return Message.result { $0.raw("null") }
        default:
            throw CallRefusal(
                code: HandlerProtocol.methodNotFound,
                message: "no method '\(PrintableText.escaped(String(method.prefix(80))))'; see docs/handler-protocol.md"
            )
        }
    }

    /// `driver/ask`: asks the driver for the step's inputs (those `inputs` names, else all) and
    /// gives the program the action pressed and the values, secrets as they are.
    private nonisolated(nonsending) func ask(
        _ params: JSONNode?, _ invocation: HandlerInvocation, _ context: HandlerContext
    ) async throws -> [UInt8] {
        var inputs: [InputSpec]?
        if case .array(let names)? = params?["inputs"]?.kind {
            inputs = []
            for name in names {
                guard case .string(let text) = name.kind, let spec = invocation.contract.input(named: text) else {
                    throw CallRefusal(
                        code: HandlerProtocol.invalidParams,
                        message: "'inputs' must name inputs of step '\(invocation.step)': "
                            + invocation.contract.inputs.map(\.name).joined(separator: ", "))
                }
                inputs?.append(spec)
            }
            guard inputs?.isEmpty == false else {
                throw CallRefusal(
                    code: HandlerProtocol.invalidParams,
                    message:
                        "'inputs' names no input; leave it out to ask for every input of step '\(invocation.step)'")
            }
        }
        let request = invocation.request(inputs)
        let values = try await context.input(request)
        var action: String?
        if case .string(let pressed)? = values.value(named: "action")?.revealed {
            if !context.refusesInput, let reason = context.current(request).refusal(of: values) {
                throw HandlerError(reason)
            }
            action = pressed
        }
        return Message.result { w in
            w.open()
            w.name("action")
            if let action { w.value(.string(action)) } else { w.raw("null") }
            w.name("values")
            w.open()
            for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                let secret = request.inputs.first { $0.name == name }?.type.secret ?? false
                w.name(name)
                self.writePlain(secret ? .secret(value) : value, into: &w)
            }
            w.close()
            w.close()
        }
    }

    /// `store/set`: writes a value in the device store (null removes it); a value that holds a
    /// secret the program was given stays secret.
    private func store(_ params: JSONNode?, _ context: HandlerContext) throws -> [UInt8] {
        let key = try text(params, "key", "store/set")
        // A key is shown in the transcript as it is: it cannot be made secret, so it may
        // not hold one.
        guard !holdsSecret(.string(key)) else {
            throw CallRefusal(
                code: HandlerProtocol.invalidParams,
                message: "a stored key must not hold a secret the program was given (keys are shown in transcripts)"
            )
        }
        guard let node = params?["value"] else {
            throw CallRefusal(
                code: HandlerProtocol.invalidParams, message: "'store/set' needs a 'value' (null removes)")
        }
        if case .null = node.kind {
            context.store(key, nil)
        } else {
            guard let value = Self.value(node) else {
                throw CallRefusal(
                    code: HandlerProtocol.invalidParams,
                    message: "a stored value must be a text, a whole number, true or false, or a list of them")
            }
            context.store(key, holdsSecret(value) ? .secret(value) : value)
        }
        return Message.result { $0.raw("null") }
    }

    /// `clock/wait`: time passes on the virtual clock while the step runs.
    private func wait(_ params: JSONNode?, _ context: HandlerContext) throws -> [UInt8] {
        guard case .int(let milliseconds)? = params?["milliseconds"]?.kind,
            (0...Duration.maximum).contains(milliseconds)
        else {
            throw CallRefusal(
                code: HandlerProtocol.invalidParams,
                message: "'clock/wait' needs 'milliseconds', a whole number from 0 to \(Duration.maximum)")
        }
        // The device's clock ends at 9999-12-31T23:59:59Z: a wait past it is refused, the run
        // left as it is.
        guard context.now <= NumberRange.clock.upperBound - milliseconds else {
            throw CallRefusal(
                code: HandlerProtocol.invalidParams,
                message:
                    "'clock/wait' of \(milliseconds) ms would move the virtual clock past 9999-12-31T23:59:59Z, where it ends"
            )
        }
        var reason = "handler '\(id)' waits"
        if case .string(let given)? = params?["reason"]?.kind { reason = redacted(given) }
        context.wait(milliseconds: milliseconds, reason: reason)
        return Message.result { $0.raw("null") }
    }

    private func text(_ params: JSONNode?, _ name: String, _ method: String) throws(CallRefusal) -> String {
        guard case .string(let text)? = params?[name]?.kind, !text.isEmpty else {
            throw CallRefusal(code: HandlerProtocol.invalidParams, message: "'\(method)' needs '\(name)', a text")
        }
        return text
    }

    /// After the step ended while the program's request `callID` was open: tells the program,
    /// then reads until it answers `step/run`, refusing whatever else it asks. A program that
    /// does not answer in time is stopped.
    private func cancel(_ callID: JSONValueID, stepID: Int, because error: any Error) {
        let reason =
            error is HandlerError
            ? "the step failed: \(redacted(String(describing: error)))" : "the step was interrupted"
        do {
            try process.send(Message.error(id: callID, code: HandlerProtocol.requestCancelled, message: reason))
            while true {
                switch try next(for: "the end of the interrupted step") {
                case .response(let answered, _) where answered == .int(stepID): return
                case .response: throw ProcessFailure.protocolError("answered a request it was not sent")
                case .request(let other, _, _):
                    try process.send(
                        Message.error(id: other, code: HandlerProtocol.requestCancelled, message: reason))
                case .notification: continue
                }
            }
        } catch {
            process.stop()
        }
    }

    // MARK: - The step's answer

    private func result(_ node: JSONNode, of invocation: HandlerInvocation) throws -> HandlerResult {
        guard case .string(let name)? = node["outcome"]?.kind else {
            throw HandlerError(
                "its program answered step '\(invocation.step)' without an 'outcome' text (see docs/handler-protocol.md)"
            )
        }
        guard let spec = invocation.contract.outcome(named: name) else {
            let known = invocation.contract.outcomes.map(\.name).joined(separator: ", ")
            throw HandlerError(
                "its program answered step '\(invocation.step)' with the outcome \(shown(name)), which the step "
                    + "does not have (it has: \(known))")
        }
        var data: [String: Value] = [:]
        let given = node["data"]
        switch given?.kind {
        case nil, .object?, .null?: break
        default:
            throw HandlerError("its program answered step '\(invocation.step)' with 'data' that is not an object")
        }
        for item in spec.data {
            guard let found = given?[item.name], !found.isNull else { continue }
            let what = "data '\(item.name)' of outcome '\(name)'"
            guard let value = Self.value(found, as: item.type.type) else {
                throw HandlerError(
                    "its program answered step '\(invocation.step)' with \(what) as \(Self.kindName(found)); "
                        + "the contract declares \(item.type.type)")
            }
            if item.type.secret {
                // A secret the program made (a session) may show in what it writes next.
                remember(value)
                data[item.name] = .secret(value)
            } else if holdsSecret(value) {
                throw HandlerError(
                    "its program answered step '\(invocation.step)' with a secret it was given in \(what), which "
                        + "the contract does not declare secret: declare it '{type: \(item.type.type), secret: true}'")
            } else {
                data[item.name] = value
            }
        }
        return HandlerResult(name, data: data)
    }

    // MARK: - Messages

    private func writeStep(_ invocation: HandlerInvocation, into w: inout JSONWriter) {
        w.open()
        w.key("journey", string: invocation.journey)
        w.key("step", string: invocation.step)
        w.name("parameters")
        w.open()
        var secretNames: [String] = []
        for (name, value) in invocation.parameters.sorted(by: { $0.key < $1.key }) {
            if value.isSecret { secretNames.append(name) }
            w.name(name)
            writePlain(value, into: &w)
        }
        w.close()
        w.name("secret")
        w.value(.list(secretNames.map(Value.string)))
        w.name("inputs")
        w.openArray()
        for input in invocation.contract.inputs {
            w.open()
            w.key("name", string: input.name)
            w.key("type", string: input.type.type.rawValue)
            w.key("secret", bool: input.type.secret)
            if !input.classes.isEmpty {
                w.name("classes")
                w.value(.list(input.classes.map(Value.string)))
            }
            w.close()
        }
        w.closeArray()
        w.name("outcomes")
        w.value(.list(invocation.contract.outcomes.map { .string($0.name) }))
        if let screen = invocation.screen {
            w.name("screen")
            w.open()
            if let title = screen.title { w.key("title", string: title) }
            if let text = screen.text { w.key("text", string: text) }
            w.name("actions")
            w.openArray()
            for action in screen.actions {
                w.open()
                w.key("id", string: action.id)
                w.key("label", string: action.label)
                w.key("enabled", bool: action.enabled)
                w.close()
            }
            w.closeArray()
            w.name("fields")
            w.openArray()
            for field in screen.fields {
                w.open()
                w.key("name", string: field.name)
                if let label = field.label { w.key("label", string: label) }
                w.key("kind", string: field.kind.rawValue)
                w.key("required", bool: field.required)
                w.key("secret", bool: field.secret)
                w.close()
            }
            w.closeArray()
            w.close()
        }
        w.close()
    }

    /// Writes `value` as the program sees it: secrets revealed (and remembered), durations in
    /// milliseconds.
    private func writePlain(_ value: Value, into w: inout JSONWriter) {
        switch value {
        case .secret(let inner):
            remember(inner)
            writePlain(inner, into: &w)
        case .duration(let milliseconds): w.value(.int(milliseconds))
        case .list(let items):
            w.openArray()
            for item in items { writePlain(item, into: &w) }
            w.closeArray()
        default: w.value(value)
        }
    }

    private func remember(_ secret: Value) {
        switch secret.revealed {
        case .string(let text) where !text.isEmpty:
            guard secrets.insert(text).inserted else { return }
            secrets.formUnion(SecretText.encodings(of: text))
        case .list(let items): for item in items { remember(item) }
        default: break
        }
    }

    private func holdsSecret(_ value: Value) -> Bool {
        switch value.revealed {
        // Written as it is, or escaped (`repr` doubles a Windows path's backslashes).
        case .string(let text): SecretText.shows(secrets, in: text)
        case .list(let items): items.contains { holdsSecret($0) }
        // A number written as a secret's digits (a PIN sent back as 4321) shows them too.
        case .int(let number): holdsSecret(.string(String(number)))
        default: false
        }
    }

    /// `text` with every secret the program was given shown as `•••`, and control characters
    /// escaped, at most 300 characters.
    func redacted(_ text: String) -> String {
        var result = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: Value.redacted)
        }
        // Written as JSON writes it (Python's json.dumps escapes `ł` as `\u0142`): the same secret.
        if result.contains("\\") { result = SecretText.redacting(secrets, in: result) }
        let escaped = PrintableText.escaped(result)
        return escaped.count > 300 ? String(escaped.prefix(299)) + "…" : escaped
    }

    /// A text the program sent, quoted for a message, or `•••` if it holds a secret.
    private func shown(_ text: String) -> String {
        holdsSecret(.string(text)) ? Value.redacted : "'\(redacted(text))'"
    }

    /// The program's next message; a line that is not one is a protocol error.
    private func next(for what: String) throws(ProcessFailure) -> Message {
        let line: [UInt8]
        do {
            line = try process.receive(within: declaration.timeout)
        } catch {
            throw .process(error)
        }
        guard !line.isEmpty else { throw .protocolError("wrote an empty line where a JSON-RPC message belongs") }
        do {
            return try Message.parse(line)
        } catch {
            throw .protocolError("wrote a line that is not a JSON-RPC message (\(error.text)): \(quote(line))")
        }
    }

    /// The start of a line the program wrote, quoted for a message: secrets are replaced
    /// before it is cut, so that no part of one shows.
    private func quote(_ line: [UInt8]) -> String {
        // Long enough for the longest secret however it is escaped, so that no part of one shows.
        let longest = (secrets.map(\.unicodeScalars.count).max() ?? 0) * SecretText.longestEscape
        let start = String(decoding: line.prefix(80 + longest), as: UTF8.self)
        let shown = redacted(start)
        return "'" + (shown.count > 80 ? String(shown.prefix(80)) : shown) + "'"
    }

    /// The result of the request `id`, answering nothing else on the way.
    private func awaitResult(id: Int, for method: String) throws(ProcessFailure) -> JSONNode {
        var messages = 0
        while true {
            let message = try next(for: method)
            messages += 1
            guard messages <= HandlerProtocol.maximumMessages else {
                throw .protocolError(HandlerProtocol.tooManyMessages)
            }
            switch message {
            case .response(let answered, .success(let result)) where answered == .int(id): return result
            case .response(let answered, .failure(let error)) where answered == .int(id):
                throw .protocolError("answered '\(method)' with an error: \(redacted(error.message))")
            case .response: throw .protocolError("answered a request it was not sent")
            case .request(let callID, _, _):
                do {
                    try process.send(
                        Message.error(
                            id: callID, code: HandlerProtocol.methodNotFound,
                            message: "no request is served before 'initialize' is answered"))
                } catch {
                    throw .process(error)
                }
            case .notification: continue
            }
        }
    }

    /// Why the conversation stopped, for the step's message: the program is stopped (with
    /// everything it started), and the message ends with its last words on standard error.
    private func stopped(_ failure: ProcessFailure, while doing: String) -> HandlerError {
        let how: String
        switch failure {
        case .process(.timedOut):
            process.stop()
            how = "did not answer within \(Duration.format(milliseconds: declaration.timeout)) while \(doing)"
        case .process(.notReading):
            process.stop()
            how = "did not read its input within \(Duration.format(milliseconds: declaration.timeout)) while \(doing)"
        case .process(.ended(let ending)):
            how = "\(ending) while \(doing)"
        case .process(.lineTooLong):
            process.stop()
            how = "sent a line longer than 16 MiB while \(doing)"
        case .process(.notStarted(let reason)):
            how = "could not be started: \(reason)"
        case .protocolError(let problem):
            process.stop()
            how = "\(problem) while \(doing)"
        }
        let tail = process.errorTail(lines: 5)
        let last =
            tail.isEmpty
            ? ""
            : "; its standard error ends: "
                + tail.split(separator: "\n").map {
                    redacted(String($0))
                }.joined(separator: " | ")
        return HandlerError("its program \(how)\(last)")
    }

    private func stopped(_ error: HandlerTransportFailure, while doing: String) -> HandlerError {
        stopped(.process(error), while: doing)
    }

    private func stopped(_ error: any Error, while doing: String) -> HandlerError {
        if let failure = error as? ProcessFailure { return stopped(failure, while: doing) }
        if let failure = error as? HandlerTransportFailure { return stopped(.process(failure), while: doing) }
        process.stop()
        return HandlerError("its program failed while \(doing): \(error)")
    }

    /// Asks the program to shut down and exit, without waiting.
    func askToExit() {
        guard isRunning else { return }
        let id = nextID
        nextID += 1
        try? process.send(Message.request(id: id, method: "shutdown", params: nil))
        _ = try? process.receive(within: HandlerProtocol.shutdownMilliseconds)
        try? process.send(Message.notification(method: "exit"))
        process.closeInput()
    }

    /// Waits a moment for the program to end, then stops it.
    func finish() {
        process.reap(waiting: HandlerProtocol.shutdownMilliseconds)
    }

    static func quoted(_ command: [String]) -> String {
        "'" + PrintableText.escaped(command.joined(separator: " ")) + "'"
    }

    static func text(of failure: HandlerTransportFailure) -> String {
        switch failure {
        case .notStarted(let reason): reason
        case .ended(let how): how
        case .timedOut: "it did not answer in time"
        case .notReading: "it did not read its input in time"
        case .lineTooLong: "it sent a line longer than 16 MiB"
        }
    }

    // MARK: - JSON to values

    /// A value the program sent, of no declared type: text, a whole number, true or false, or
    /// a list of them.
    static func value(_ node: JSONNode) -> Value? {
        switch node.kind {
        case .string(let text): return .string(text)
        case .int(let number): return .int(number)
        case .bool(let flag): return .bool(flag)
        case .array(let items): return listValue(items)
        case .object, .null, .fraction: return nil
        }
    }

    private static func listValue(_ items: [JSONNode]) -> Value? {
        var values: [Value] = []
        for item in items {
            guard let value = value(item) else { return nil }
            values.append(value)
        }
        return .list(values)
    }

    /// A value the program sent, as `type`; nil when it is not one. Durations are whole
    /// milliseconds.
    static func value(_ node: JSONNode, as type: ValueType) -> Value? {
        switch (type, node.kind) {
        case (.string, .string(let text)): .string(text)
        case (.int, .int(let number)): .int(number)
        case (.bool, .bool(let flag)): .bool(flag)
        case (.duration, .int(let number)) where (0...Duration.maximum).contains(number): .duration(number)
        case (.list, .array): value(node)
        case (.any, _): value(node)
        default: nil
        }
    }

    /// What kind of JSON value a node is, for messages that must not show the value.
    static func kindName(_ node: JSONNode) -> String {
        switch node.kind {
        case .string: "a text"
        case .int: "a whole number"
        case .fraction: "a number written with a fraction or an exponent"
        case .bool: "true or false"
        case .array: "a list"
        case .object: "an object"
        case .null: "null"
        }
    }
}

/// How JourneyKit talks to a handler's program: one message per line each way. The command
/// line's transport is a process (its standard input and output); tests may use another.
///
/// One step uses a transport at a time.
public protocol HandlerTransport: AnyObject {
    /// Writes one message, with its newline, waiting at most the handler's time limit for the
    /// program to take it (``HandlerTransportFailure/notReading``).
    func send(_ bytes: [UInt8]) throws(HandlerTransportFailure)
    /// The next line (without its newline), waiting at most `milliseconds` for it; with 0, a
    /// line already written, or ``HandlerTransportFailure/timedOut`` at once.
    func receive(within milliseconds: Int) throws(HandlerTransportFailure) -> [UInt8]
    /// Ends the program's input: a program told to `exit`, or one reading to the end, ends.
    func closeInput()
    /// Waits up to `milliseconds` for the program to end by itself, then stops it; how it
    /// ended, in words (`exited with status 3`).
    @discardableResult func reap(waiting milliseconds: Int) -> String
    /// Stops the program now, with everything it started.
    func stop()
    /// How the program ended, once it has; nil while it runs.
    var ending: String? { get }
    /// The last lines the program wrote to its standard error, for a failure's message.
    func errorTail(lines: Int) -> String
}

/// Why a transport stopped carrying messages.
public enum HandlerTransportFailure: Error, Equatable {
    /// The program sent nothing within the time limit.
    case timedOut
    /// The program did not read a message within the time limit (its input stayed full).
    case notReading
    /// Its output ended: it exited (how, in words) or closed its output.
    case ended(String)
    /// It sent a line longer than the transport takes.
    case lineTooLong
    /// It could not be started, and why.
    case notStarted(String)
}

/// Why a conversation with a program cannot go on.
enum ProcessFailure: Error {
    case process(HandlerTransportFailure)
    case protocolError(String)
}

/// A JSON-RPC request id as the program wrote it: a number or a text.
enum JSONValueID: Equatable, CustomStringConvertible {
    case int(Int)
    case string(String)

    var description: String {
        switch self {
        case .int(let number): String(number)
        case .string(let text): "'" + PrintableText.escaped(String(text.prefix(40))) + "'"
        }
    }
}

/// A JSON-RPC 2.0 message from the program.
enum Message {
    case request(JSONValueID, method: String, params: JSONNode?)
    case notification(method: String)
    case response(JSONValueID, Result<JSONNode, ErrorObjectError>)

    struct ErrorObjectError: Error {
        var code: Int
        var message: String
    }

    struct Problem: Error {
        var text: String
    }

    static func parse(_ line: [UInt8]) throws(Problem) -> Message {
        let node: JSONNode
        do {
            node = try JSONLineParser.parse(line, fractions: true, subject: "message")
        } catch {
            throw Problem(text: "\(error.message) at byte \(error.offset + 1)")
        }
        guard case .object = node.kind else { throw Problem(text: "a message must be a JSON object") }
        guard case .string("2.0")? = node["jsonrpc"]?.kind else {
            throw Problem(text: "a message must have \"jsonrpc\": \"2.0\"")
        }
        var id: JSONValueID?
        switch node["id"]?.kind {
        case .int(let number)?: id = .int(number)
        case .string(let text)?: id = .string(text)
        case nil: id = nil
        default: throw Problem(text: "an 'id' must be a whole number or a text")
        }
        if let methodNode = node["method"] {
            guard case .string(let method) = methodNode.kind else { throw Problem(text: "a 'method' must be a text") }
            guard let id else { return .notification(method: method) }
            return .request(id, method: method, params: node["params"])
        }
        guard let id else { throw Problem(text: "a message must have a 'method' or an 'id'") }
        if let result = node["result"] { return .response(id, .success(result)) }
        guard let error = node["error"], case .int(let code)? = error["code"]?.kind,
            case .string(let message)? = error["message"]?.kind
        else { throw Problem(text: "a response must have a 'result' or an 'error' with a 'code' and a 'message'") }
        return .response(id, .failure(ErrorObjectError(code: code, message: message)))
    }

    /// A request; JSON-RPC's `params` is an object, or left out (`params` nil).
    static func request(id: Int, method: StaticString, params: ((inout JSONWriter) -> Void)?) -> [UInt8] {
        envelope { w in
            w.key("id", int: id)
            w.key("method", string: method.description)
            if let params {
                w.name("params")
                params(&w)
            }
        }
    }

    static func notification(method: StaticString) -> [UInt8] {
        envelope { $0.key("method", string: method.description) }
    }

    /// The `result` member's JSON, to be sent with ``response(id:result:)``.
    static func result(_ write: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter()
        write(&w)
        return w.buffer
    }

    static func response(id: JSONValueID, result: [UInt8]) -> [UInt8] {
        envelope { w in
            writeID(id, into: &w)
            w.name("result")
            w.beginValue()
            w.buffer.append(contentsOf: result)
        }
    }

    static func error(id: JSONValueID, code: Int, message: String) -> [UInt8] {
        envelope { w in
            writeID(id, into: &w)
            w.name("error")
            w.open()
            w.key("code", int: code)
            w.key("message", string: message)
            w.close()
        }
    }

    /// One line: `{"jsonrpc":"2.0", …members}` and its newline.
    private static func envelope(_ members: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter()
        w.open()
        w.key("jsonrpc", string: "2.0")
        members(&w)
        w.close()
        w.newline()
        return w.buffer
    }

    private static func writeID(_ id: JSONValueID, into w: inout JSONWriter) {
        w.name("id")
        switch id {
        case .int(let number): w.value(.int(number))
        case .string(let text): w.value(.string(text))
        }
    }
}

extension JSONNode {
    /// The member `name` of an object; nil for anything else.
    subscript(name: String) -> JSONNode? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.name == name }?.node
    }

    var isNull: Bool {
        if case .null = kind { return true }
        return false
    }
}
