import Testing

@testable import JourneyCore

/// A secret a program prints back is hidden however a JSON encoder wrote it.
@Suite struct SecretTextTests {
    static let secret = "Hasło\"tajne\\2024🔑/x"

    @Test(
        "a secret written as it is, or JSON-escaped in any way an encoder writes it, is •••",
        arguments: [
            // As it is.
            #"got Hasło"tajne\2024🔑/x!"#,
            // Python's json.dumps: non-ASCII as \u in lower case, a surrogate pair, \" and \\.
            #"got {"password": "Has\u0142o\"tajne\\2024\ud83d\udd11/x"}"#,
            // Upper-case hex, and an escaped slash as PHP writes it.
            #"got "Has\u0142o\"tajne\\2024\uD83D\uDD11\/x""#,
            // Non-ASCII left as it is (JavaScript's JSON.stringify), the rest escaped.
            #"got "Hasło\"tajne\\2024🔑\/x""#,
            // Python's repr: the backslash doubled; non-printables as \x and \U.
            #"got 'Has\u0142o"tajne\\2024\U0001f511/x'"#,
        ])
    func escapedSecretsAreHidden(line: String) {
        let shown = SecretText.redacting([Self.secret], in: line)
        #expect(!shown.contains("tajne") && !shown.contains("0142") && !shown.contains("2024"), "\(shown)")
        #expect(shown.hasPrefix("got ") && shown.contains(Value.redacted), "\(shown)")
    }

    @Test("a secret written as a string literal or a shell word is •••")
    func quotedSecretsAreHidden() {
        // Python's %r of a text with both quotes escapes the single one.
        #expect(SecretText.redacting([#"it's "Zq9wX7vK" ünï"#], in: #"bad 'it\'s "Zq9wX7vK" ünï'"#) == "bad '•••'")
        #expect(SecretText.redacting(["pass word$1"], in: #"run pass\ word\$1"#) == "run •••")
        #expect(SecretText.redacting(["caf\u{e9}-2024"], in: #"'caf\xe9-2024'"#) == "'•••'")
        // Python's repr of bytes: a character beyond ASCII as its UTF-8 bytes.
        #expect(SecretText.redacting(["pässwörd"], in: #"bad b'p\xc3\xa4ssw\xc3\xb6rd'"#) == "bad b'•••'")
        #expect(SecretText.redacting(["p🔑ss"], in: #"b'p\xf0\x9f\x94\x91ss'"#) == "b'•••'")
        // Bytes that make no character are read one by one, and hide nothing.
        #expect(SecretText.redacting(["pässwörd"], in: #"b'p\xc3\xc3ssw'"#) == #"b'p\xc3\xc3ssw'"#)
        #expect(SecretText.shows([#"C:\Users\Zq9"#], in: #"'C:\\Users\\Zq9'"#))
        #expect(!SecretText.shows([#"C:\Users\Zq9"#], in: #"'C:\\Users\\Zq8'"#))
        #expect(SecretText.shows(["abcd"], in: "xabcdx") && !SecretText.shows([""], in: "abcd"))
    }

    @Test("text that holds no secret, escapes and all, is left as it is; neighbouring secrets are one •••")
    func otherTextIsKept() {
        let line = #"{"a": "caf\u00e9 \"x\" \\ \/ \n", "b": "\uZZZZ", "c": "\"#
        #expect(SecretText.redacting([Self.secret], in: line) == line)
        #expect(SecretText.redacting(["abcd", "efgh"], in: "x abcd\u{65}fgh y") == "x ••• y")
        #expect(SecretText.redacting(["abcd"], in: #"\u0061bcd and abcd"#) == "••• and •••")
        #expect(SecretText.redacting([], in: "abcd") == "abcd")
    }
}
