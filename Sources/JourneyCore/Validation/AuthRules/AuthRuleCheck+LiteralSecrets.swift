// `auth.literal-secret`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/literalSecret``: a secret parameter, declaration default or assignment
    /// written as literal text, or a secret compared with text written into the journey.
    mutating func literalSecrets() {
        for step in journey.steps {
            if case .call(let callee) = step.kind, let called = all[callee.value] {
                // A secret param of the journey called, given text written into this one.
                for (name, value) in step.with
                where called.params.contains(where: { $0.name.value == name.value && $0.type.secret })
                    && writtenIn(value)
                {
                    find(
                        .literalSecret,
                        "'\(name.value)' of step '\(step.id.value)' gives \(callee.value)'s secret param '\(name.value)' text written into the journey; pass a secret the user, the device or a server gave (a template such as ${state.newPin})",
                        at: value.location)
                }
            }
            guard let contract = contract(step) else { continue }
            for (name, value) in step.with {
                // A parameter with a stand-in of its own (an HTTP body shows its size) is never
                // recorded whatever it holds; it is not a secret by nature.
                guard let spec = contract.parameters.first(where: { $0.name == name.value }), spec.shown == nil,
                    case .value(let type) = spec.kind, type.secret, writtenIn(value)
                else { continue }
                find(
                    .literalSecret,
                    "'\(name.value)' of step '\(step.id.value)' is a secret written into the journey; a secret comes from the user, the device or a server (a template such as ${state.newPin})",
                    at: value.location)
            }
            if step.handlerID == "http.request" { credentialsSent(by: step) }
        }
        let declarations: [(String, [VariableDeclaration])] = [
            ("param", journey.params), ("state value", journey.state), ("stored value", journey.stored),
        ]
        for (what, list) in declarations {
            for declaration in list where declaration.type.secret {
                guard let value = declaration.defaultValue, let text = literal(value), !text.isEmpty else { continue }
                find(
                    .literalSecret,
                    "\(what) '\(declaration.name.value)' is secret but its default is written into the journey; leave the default out",
                    at: value.location)
            }
        }
        let secretVariables = self.secretVariables
        for step in journey.steps {
            for branch in step.transitions.flatMap(\.transition.branches) {
                if let condition = branch.condition, case .success(let expression) = Expression.parse(condition.value) {
                    secretComparedWithText(
                        expression, "a branch of step '\(step.id.value)'", at: condition.location, step: step,
                        secretVariables)
                }
                // A value set from such a comparison (`state.ok: "${outcome.pin == '4826'}"`) holds
                // the same knowledge.
                for assignment in branch.assignments {
                    guard case .scalar(let text, _, let location) = assignment.value, text.contains("${"),
                        case .success(let template) = Template.parse(text)
                    else { continue }
                    for case .expression(let expression, _) in template.parts {
                        secretComparedWithText(
                            expression, "the value of \(assignment.target.value) set at step '\(step.id.value)'",
                            at: location, step: step, secretVariables)
                    }
                }
                for assignment in branch.assignments where secretVariables.contains(assignment.target.value.description)
                {
                    guard writtenIn(assignment.value) else { continue }
                    find(
                        .literalSecret,
                        "the secret \(assignment.target.value) is set to text written into the journey; set it from what the user, the device or a server gives",
                        at: assignment.value.location)
                }
            }
        }
    }

    /// An expression of a step (a branch's condition, a value set) that compares a secret with
    /// text written into the journey (`outcome.pin == '4826'`): a PIN or a code anyone who
    /// reads the file knows, and that the transcript tells by the branch taken or the value
    /// set. `place` says where, as the finding's subject. The text is never repeated.
    mutating func secretComparedWithText(
        _ expression: Expression, _ place: String, at location: SourceLocation, step: Step,
        _ secretVariables: Set<String>
    ) {
        let contract = contract(step)
        let secretParams = Set(journey.params.filter(\.type.secret).map(\.name.value))
        var said: Set<[String]> = []
        // Names whose value is written into the journey too: text params that are not secret
        // with text in their default (a "master PIN"), and state values that only hold written
        // text. (One whose default is empty holds what the run is given.)
        let plainParams = Set(
            journey.params.filter { param in
                !param.type.secret && param.type.type == .string && !(literal(param.defaultValue) ?? "").isEmpty
            }.map(\.name.value))
        let constant = constantState
        func writtenIn(_ read: [String]) -> Bool {
            read.count == 2
                && (read[0] == "params" && plainParams.contains(read[1])
                    || read[0] == "state" && constant.contains(read[1]))
        }
        for (path, _, reads) in expression.comparedWithText
        where path.count == 2 && !said.contains(path) && reads.allSatisfy(writtenIn) {
            let name = path[1]
            let secret =
                switch path[0] {
                case "outcome":
                    (contract?.describedOutcomes.contains {
                        $0.item.data.contains { $0.name == name && $0.type.secret }
                    }
                        ?? false)
                        // A form's field declared secret (a password's is): its value is the outcome's.
                        || (step.screen?.fields.contains { $0.name.value == name && $0.secret } ?? false)
                case "input":
                    contract?.describedInputs.contains { $0.item.name == name && $0.item.type.secret } ?? false
                case "params": secretParams.contains(name)
                default: secretVariables.contains(path.joined(separator: "."))
                }
            guard secret else { continue }
            said.insert(path)
            find(
                .literalSecret,
                "\(place) compares the secret \(path.joined(separator: ".")) with text written into the journey; check a secret against what the user, the device or a server keeps (pin.verify opens the sealed PIN), not against a value anyone reading the file knows",
                at: location)
        }
    }

    /// The headers that carry a credential: the value of each is one.
    static let credentialHeaders: Set<String> = [
        "authorization", "proxy-authorization", "x-api-key", "api-key", "x-auth-token", "x-access-token",
    ]

    /// The names of body fields that hold a credential (`password=…`, `"client_secret": "…"`).
    static let credentialFields: Set<String> = [
        "password", "passwd", "passcode", "pin", "secret", "client_secret", "api_key", "apikey", "access_token",
        "refresh_token", "id_token", "token",
    ]

    /// An `http.request` that sends a credential written into the journey: a header that carries
    /// one (`Authorization: Bearer eyJ…`), or a field of its body named as one with a value that
    /// is no template (`"password":"hunter2"`). Their values are never shown in a transcript, so
    /// the parameters' own check passes them by; whoever reads the file reads the credential.
    mutating func credentialsSent(by step: Step) {
        for (name, value) in step.with {
            switch (name.value, value) {
            case ("headers", .list(let items, _)):
                for item in items {
                    guard case .scalar(let text, _, _) = item, let colon = text.firstIndex(of: ":") else { continue }
                    let written = text[..<colon].trimmingCharacters(in: .whitespaces)
                    let header = written.lowercased()
                    // The credential: the value, less the scheme of an Authorization header (a
                    // bare `Bearer` sends none).
                    var rest = text[text.index(after: colon)...].split(separator: " ", omittingEmptySubsequences: true)
                    if header.hasSuffix("authorization"), rest.count > 0 { rest.removeFirst() }
                    guard Self.credentialHeaders.contains(header), !rest.isEmpty, writtenIn(item) else { continue }
                    find(
                        .literalSecret,
                        "header '\(written)' of step '\(step.id.value)' sends a credential written into the journey; send one the user, the device or a server gave, \(header.hasSuffix("authorization") ? "as '\(written): Bearer ${stored.accessToken}'" : "or a secret param ('\(written): ${params.apiKey}' with 'secret: true')")",
                        at: item.location)
                }
            case ("body", .scalar(let text, _, let location)):
                // Its text as written, each expression in it standing for a value the run gives:
                // a body computed by an expression (`${'{"a":"' + state.a + '"}'}`) is not read.
                let written =
                    switch Template.parse(text) {
                    case .success(let template):
                        template.parts.map { part in
                            if case .text(let piece) = part { piece } else { "${…}" }
                        }.joined()
                    case .failure: text
                    }
                for field in Self.literalCredentialFields(in: written) {
                    find(
                        .literalSecret,
                        "the body of step '\(step.id.value)' sends '\(field)' written into the journey; send what the user, the device or a server gave (\"\(field)\": \"${state.\(field)}\")",
                        at: location)
                }
            default: continue
            }
        }
    }

    /// The credential fields of a body (JSON or a form) whose value is written in, each once, in
    /// order: `"password": "hunter2"`, `pin=1234`; not `"password": "${state.password}"`.
    static func literalCredentialFields(in body: String) -> [String] {
        var found: [String] = []
        let scalars = Array(body.unicodeScalars)
        var index = 0
        let boundary: Set<Unicode.Scalar> = ["{", ",", "&", "?", "\"", "'", " ", "\n", "\t"]
        let stops: Set<Unicode.Scalar> = ["\"", "'", "&", ",", "}", " ", "\n"]
        while index < scalars.count {
            // A name: letters, digits and _ after a boundary (or the start).
            guard index == 0 || boundary.contains(scalars[index - 1]),
                scalars[index].properties.isAlphabetic || scalars[index] == "_"
            else {
                index += 1
                continue
            }
            var end = index
            while end < scalars.count,
                scalars[end].properties.isAlphabetic || scalars[end] == "_" || ("0"..."9").contains(scalars[end])
            {
                end += 1
            }
            let name = String(String.UnicodeScalarView(scalars[index..<end])).lowercased()
            var next = end
            if next < scalars.count, scalars[next] == "\"" || scalars[next] == "'" { next += 1 }
            while next < scalars.count, scalars[next] == " " { next += 1 }
            guard next < scalars.count, scalars[next] == ":" || scalars[next] == "=",
                Self.credentialFields.contains(name)
            else {
                index = end
                continue
            }
            next += 1
            while next < scalars.count, scalars[next] == " " || scalars[next] == "\"" || scalars[next] == "'" {
                next += 1
            }
            // The value: written in unless it is a template, empty, or JSON's null, true or false.
            var last = next
            while last < scalars.count, !stops.contains(scalars[last]) { last += 1 }
            let value = String(String.UnicodeScalarView(scalars[next..<last]))
            // An object or a list (`"pin": {"required": true}`) describes the field, holds no value.
            if !value.isEmpty, !value.hasPrefix("${"), !value.hasPrefix("{"), !value.hasPrefix("["),
                !["null", "true", "false"].contains(value),
                !found.contains(name)
            {
                found.append(name)
            }
            index = next
        }
        return found
    }
}
