import Foundation
import JourneyCore

/// Judges a request against a stub's ``RequestMatch``. What differs is described by name
/// only (a query parameter, a header, a JSON member's path, a form field), never by value:
/// the request may carry a password or a code, and the message reaches the transcript.
enum RequestMatcher {
    /// nil when the request holds everything `match` asks for; otherwise the first thing
    /// that differs, as "its JSON member 'password'".
    static func difference(_ request: HTTPRequest, _ match: RequestMatch) -> String? {
        let query = formFields(URLComponents(string: request.url)?.percentEncodedQuery ?? "")
        for pair in match.query where !query.contains(where: { $0.name == pair.name && fits(pair.value, $0.value) }) {
            return query.contains { $0.name == pair.name }
                ? "another value of the query parameter '\(pair.name)'" : "the query parameter '\(pair.name)'"
        }
        for pair in match.headers {
            let values = request.headers.filter { $0.name.lowercased() == pair.name.lowercased() }.map(\.value)
            if !values.contains(where: { fits(pair.value, $0) }) {
                return values.isEmpty ? "the header '\(pair.name)'" : "another value of the header '\(pair.name)'"
            }
        }
        guard let body = match.body else { return nil }
        let text = request.body ?? ""
        switch body {
        case .text(let expected):
            return text == expected ? nil : "another body"
        case .form(let expected):
            let fields = formFields(text)
            for pair in expected where !fields.contains(where: { $0.name == pair.name && fits(pair.value, $0.value) }) {
                return fields.contains { $0.name == pair.name }
                    ? "another value of the form field '\(pair.name)'" : "the form field '\(pair.name)'"
            }
            return nil
        case .json(let expected), .jsonIncludes(let expected):
            guard let actual = json(text) else { return "a JSON body" }
            guard let wanted = json(expected) else { return "a JSON body" }
            var exact = true
            if case .jsonIncludes = body { exact = false }
            return jsonDifference(wanted, actual, path: "", exact: exact).map {
                $0.isEmpty ? "another JSON body" : "its JSON member '\($0)'"
            }
        }
    }

    /// `*` in a value the scenario wrote matches any run of characters.
    static func fits(_ pattern: String, _ value: String) -> Bool {
        pattern.contains("*") ? NetworkStub.glob(pattern, value) : pattern == value
    }

    /// The fields of a form body or a query: `a=1&b=two+words`, percent-decoded.
    static func formFields(_ text: String) -> [RequestMatch.Pair] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { field in
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return RequestMatch.Pair(decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    static func json(_ text: String) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    /// The path of the first member of `wanted` that `actual` does not hold ("" for the whole
    /// value), or nil when it holds all of them. With `exact`, `actual` may hold no more.
    static func jsonDifference(_ wanted: Any, _ actual: Any, path: String, exact: Bool) -> String? {
        if let wanted = wanted as? [String: Any] {
            guard let actual = actual as? [String: Any] else { return path }
            for key in wanted.keys.sorted() {
                let inner = path.isEmpty ? key : "\(path).\(key)"
                guard let value = actual[key] else { return inner }
                if let found = jsonDifference(wanted[key]!, value, path: inner, exact: exact) { return found }
            }
            if exact, let extra = actual.keys.sorted().first(where: { wanted[$0] == nil }) {
                return path.isEmpty ? extra : "\(path).\(extra)"
            }
            return nil
        }
        if let wanted = wanted as? [Any] {
            guard let actual = actual as? [Any], actual.count == wanted.count else { return path }
            for (index, item) in wanted.enumerated() {
                if let found = jsonDifference(item, actual[index], path: "\(path)[\(index)]", exact: exact) {
                    return found
                }
            }
            return nil
        }
        return scalar(wanted) == scalar(actual) ? nil : path
    }

    /// A JSON scalar as JSON text, so that 1, 1.0 and 1e0 are one number and true is never 1.
    static func scalar(_ value: Any) -> String? {
        if value is [Any] || value is [String: Any] { return nil }
        if value is NSNull { return "null" }
        if let text = value as? String { return "s:" + text }
        if let number = value as? NSNumber {
            // JSON booleans arrive as NSNumbers of Objective-C type "c" (char).
            if String(cString: number.objCType) == "c" { return number.boolValue ? "true" : "false" }
            return "n:" + number.decimalValue.description
        }
        if let flag = value as? Bool { return flag ? "true" : "false" }
        return nil
    }
}
