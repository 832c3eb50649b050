/// Recognises PINs that are easy to guess: one digit repeated, a run up or down, a repeated
/// pair, or one of the most common PINs (NIST SP 800-63B asks verifiers to refuse values
/// from such lists; the list here follows the published frequency studies of 4- and 6-digit
/// PINs).
enum WeakPins {
    static let common: Set<String> = [
        "1234", "1111", "0000", "1212", "7777", "1004", "2000", "4444", "2222", "6969", "9999", "3333", "5555",
        "6666", "1122", "1313", "8888", "4321", "2001", "1010",
        "000000", "111111", "123456", "654321", "121212", "123123", "112233", "159753", "999999", "696969",
        "123321", "666666", "777777", "888888", "555555", "131313", "112358",
    ]

    /// Why `pin` is easy to guess, or nil.
    static func reason(_ pin: String) -> String? {
        let digits = pin.compactMap { $0.wholeNumberValue }
        guard digits.count >= 2 else { return nil }
        if Set(digits).count == 1 { return "one digit repeated" }
        let steps = zip(digits.dropFirst(), digits).map { $0 - $1 }
        if steps.allSatisfy({ $0 == 1 }) || steps.allSatisfy({ $0 == -1 }) { return "a run of consecutive digits" }
        if digits.count >= 4, digits.count % 2 == 0,
            stride(from: 2, to: digits.count, by: 2).allSatisfy({
                digits[$0] == digits[0] && digits[$0 + 1] == digits[1]
            })
        {
            return "a repeated pair of digits"
        }
        if common.contains(pin) { return "one of the most common PINs" }
        return nil
    }
}
