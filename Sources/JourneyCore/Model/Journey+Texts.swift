/// Every text a journey holds, read field by field: what the explorer reads its expressions,
/// durations and `state.` names out of (``JourneyExplorer/writtenExpressions(of:)``,
/// ``JourneyExplorer/unreadState(_:)-(Journey)``). A field added to the model that holds a
/// text is added here too: a test compares these with every text reflection finds, over every
/// shipped journey and fixture.
extension Journey {
    /// Calls `body` with each text of the journey: ids, names, titles and their templates,
    /// parameters, guards, assignments, limits, outputs, ends, exceptions and invariants.
    func forEachText(_ body: (String) -> Void) {
        body(id.value)
        body(file)
        title.forEachText(body)
        summary?.forEachText(body)
        for locale in locales { body(locale) }
        for declaration in params + state + stored { declaration.forEachText(body) }
        for output in outputs {
            body(output.name.value)
            output.value.forEachText(body)
        }
        for limit in limits { limit.forEachText(body) }
        body(start.value)
        for step in steps { step.forEachText(body) }
        for end in ends {
            body(end.id.value)
            end.title?.forEachText(body)
            end.text?.forEachText(body)
        }
        for exception in exceptions {
            body(exception.rule.value)
            body(exception.reason)
            for step in exception.steps ?? [] { body(step.value) }
        }
        for invariant in invariants { invariant.forEachText(body) }
        for name in unloadedSteps.sorted() { body(name) }
        for name in unloadedNames.sorted() { body(name) }
    }
}

extension VariableDeclaration {
    func forEachText(_ body: (String) -> Void) {
        body(name.value)
        defaultValue?.forEachText(body)
        if let description { body(description) }
    }
}

extension AttemptLimit {
    func forEachText(_ body: (String) -> Void) {
        body(name.value)
        if case .computed(let value) = max { value.forEachText(body) }
        body(counter.value.name)
        exceeded.forEachText(body)
        if let lockedUntil { body(lockedUntil.value.name) }
    }
}

extension Step {
    /// Calls `body` with each text of the step: its id, handler or journey, parameters, screen,
    /// limit, note, transitions (guards, assignments, targets) and the outcomes it verifies.
    func forEachText(_ body: (String) -> Void) {
        body(id.value)
        switch kind {
        case .handler(let handler): body(handler.value)
        case .call(let journey): body(journey.value)
        }
        for (name, value) in with {
            body(name.value)
            value.forEachText(body)
        }
        if let screen {
            screen.title?.forEachText(body)
            screen.text?.forEachText(body)
            for action in screen.actions {
                body(action.id.value)
                action.label.forEachText(body)
                if let enabledWhen = action.enabledWhen { body(enabledWhen.value) }
            }
            for field in screen.fields {
                body(field.name.value)
                field.label?.forEachText(body)
                if let pattern = field.pattern { body(pattern.value) }
            }
        }
        if let attempts {
            body(attempts.limit.value)
            for outcome in attempts.counts + attempts.resets { body(outcome.value) }
        }
        if let note { body(note) }
        for (outcome, transition) in transitions {
            body(outcome.value)
            transition.forEachText(body)
        }
        for outcome in verifies?.outcomes ?? [] { body(outcome.value) }
    }
}

extension Transition {
    func forEachText(_ body: (String) -> Void) {
        for branch in branches {
            if let condition = branch.condition { body(condition.value) }
            for assignment in branch.assignments {
                body(assignment.target.value.name)
                assignment.value.forEachText(body)
            }
            body(branch.target.value)
        }
    }
}

extension JourneyInvariant {
    /// Calls `body` with each text of the invariant: its id, summary, condition and `after`.
    func forEachText(_ body: (String) -> Void) {
        body(id.value)
        if let summary { body(summary) }
        body(condition.value)
        if let after { body(after.value) }
    }
}

extension LocalizedText {
    func forEachText(_ body: (String) -> Void) {
        for entry in entries {
            if let locale = entry.locale { body(locale) }
            entry.template.forEachText(body)
        }
    }
}

extension Template {
    /// Its source, each literal part, and each expression's source.
    func forEachText(_ body: (String) -> Void) {
        body(source)
        for part in parts {
            switch part {
            case .text(let text): body(text)
            case .expression(let expression, _): body(expression.source)
            }
        }
    }
}

extension RawValue {
    /// Each text the value is written with: a scalar's, a list's items', a map's keys and values.
    func forEachText(_ body: (String) -> Void) {
        switch self {
        case .scalar(let text, _, _): body(text)
        case .list(let items, _): for item in items { item.forEachText(body) }
        case .map(let pairs, _):
            for pair in pairs {
                body(pair.key)
                pair.value.forEachText(body)
            }
        }
    }
}
