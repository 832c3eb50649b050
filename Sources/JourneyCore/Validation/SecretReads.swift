extension Journey {
    /// Whether `source` (a condition, an invariant's rule, or a template such as an action's
    /// `enabled` or a value a transition sets) reads a secret where it is written: a param,
    /// state or stored value declared secret, or an input or a piece of an outcome's data that
    /// `contract` (the step's) declares secret, `outcome` naming the outcome whose transition
    /// it is written under, or a stored value under one of `secretStoredKeys` (those another
    /// journey of the project declares secret). The names are typed as `journey check` types
    /// them (``TypeScope``), so that what JourneyKit shows of such an expression follows the
    /// rule its diagnostics follow: its literals, which may be what the secret is compared
    /// with, are never repeated (``Expression/maskingLiterals(_:)``). Without a contract, an
    /// input or an outcome's data is taken as secret, since nothing says it is not; a source
    /// that does not read as an expression or a template is taken to read a secret too.
    public func readsSecret(
        _ source: String, contract: StepContract? = nil, outcome: String? = nil, secretStoredKeys: Set<String> = []
    ) -> Bool {
        var scope = TypeScope(journey: self)
        if let contract {
            scope = scope.adding(
                inputs: contract.inputs, outcome: outcome.flatMap { contract.outcome(named: $0)?.data } ?? [])
        }
        let references: [[String]]
        if source.contains("${") {
            guard case .success(let template) = Template.parse(source) else { return true }
            references = template.references
        } else {
            guard case .success(let expression) = Expression.parse(source) else { return true }
            references = expression.references
        }
        return references.contains { path in
            scope.type(of: path)?.secret == true
                || (path.count >= 2 && path[0] == "stored" && secretStoredKeys.contains(path[1]))
                || (contract == nil && (path.first == "outcome" || path.first == "input"))
        }
    }
}

extension Expression {
    /// `text` (an expression, or a template holding some) with the text of every string and
    /// number literal shown as `•••`, names, durations and operators kept: how `journey check`
    /// quotes an expression that reads a secret, and how `journey docs` shows one. With
    /// `keepingEmpty`, an empty string (`state.pin != ''`, which tells only whether there is
    /// one) is kept as written.
    public static func maskingLiterals(_ text: String, keepingEmpty: Bool = false) -> String {
        ExpressionLexer.maskingLiterals(text, keepingEmpty: keepingEmpty)
    }
}
