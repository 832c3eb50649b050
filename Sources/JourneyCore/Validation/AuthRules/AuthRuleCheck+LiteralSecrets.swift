// `auth.literal-secret`: one family of the static auth rules (``AuthRuleCheck``).

extension AuthRuleCheck {
    /// ``AuthRule/literalSecret``: a secret parameter, declaration default or assignment
    /// written as literal text, or a secret compared with text written into the journey.
    mutating func literalSecrets() {
        for step in journey.steps {
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
        let secretVariables = Set(
            journey.state.filter(\.type.secret).map { "state.\($0.name.value)" }
                + journey.stored.filter(\.type.secret).map { "stored.\($0.name.value)" })
        for step in journey.steps {
            for branch in step.transitions.flatMap(\.transition.branches) {
                if let condition = branch.condition { secretComparedWithText(condition, at: step, secretVariables) }
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

    /// A branch's condition that compares a secret with text written into the journey
    /// (`outcome.pin == '4826'`): a PIN or a code anyone who reads the file knows, and that
    /// the transcript's branch tells. The text is never repeated.
    mutating func secretComparedWithText(_ condition: Located<String>, at step: Step, _ secretVariables: Set<String>) {
        guard case .success(let expression) = Expression.parse(condition.value) else { return }
        let contract = contract(step)
        let secretParams = Set(journey.params.filter(\.type.secret).map(\.name.value))
        var said: Set<[String]> = []
        for (path, _) in expression.comparedWithText where path.count == 2 && !said.contains(path) {
            let name = path[1]
            let secret =
                switch path[0] {
                case "outcome":
                    contract?.describedOutcomes.contains { $0.item.data.contains { $0.name == name && $0.type.secret } }
                        ?? false
                case "input":
                    contract?.describedInputs.contains { $0.item.name == name && $0.item.type.secret } ?? false
                case "params": secretParams.contains(name)
                default: secretVariables.contains(path.joined(separator: "."))
                }
            guard secret else { continue }
            said.insert(path)
            find(
                .literalSecret,
                "a branch of step '\(step.id.value)' compares the secret \(path.joined(separator: ".")) with text written into the journey; check a secret against what the user, the device or a server keeps (pin.verify opens the sealed PIN), not against a value anyone reading the file knows",
                at: condition.location)
        }
    }
}
