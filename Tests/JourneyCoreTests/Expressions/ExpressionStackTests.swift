import Foundation
import JourneyCore
import Testing

@Suite("Expressions on small stacks")
struct ExpressionStackTests {
    /// The worst inputs the limits allow: the most parser frames per level, the deepest
    /// trees, and inputs past the limits.
    static let worstInputs = [
        String(repeating: "(", count: 64) + "1" + String(repeating: ")", count: 64),
        String(repeating: "1 || 1 && 1 == 1 < 1 + 1 * (", count: 64) + "1"
            + String(repeating: ")", count: 64),
        String(repeating: "(", count: 63) + "state.tries" + String(repeating: " + 1", count: 63)
            + String(repeating: ")", count: 63),
        String(repeating: "!", count: 63) + "device.online",
        String(repeating: "!(", count: 32) + "device.online" + String(repeating: ")", count: 32),
        String(repeating: "true ? ", count: 63) + "1" + String(repeating: " : 2", count: 63),
        String(repeating: "len(str(", count: 31) + "1" + String(repeating: "))", count: 31),
        String(repeating: "[", count: 64) + String(repeating: "]", count: 64),
        String(repeating: "[state.name, ", count: 63) + "'a'" + String(repeating: "]", count: 63),
        String(repeating: "(", count: 2000),
        String(repeating: "!", count: 2000) + "true",
    ]

    /// Runs the worst inputs on a thread with a 512 KiB stack: the size of a secondary
    /// thread on Apple platforms. A stack overflow would crash the test process.
    @Test("the deepest allowed expressions fit in a 512 KiB stack")
    func smallStack() async throws {
        let inputs = Self.worstInputs
        let finished = await withCheckedContinuation {
            (continuation: CheckedContinuation<Int, Never>) in
            let thread = Thread {
                var count = 0
                for source in inputs {
                    if case .success(let expression) = Expression.parse(source) {
                        _ = expression.typeCheck(in: ExprTestScope.standard)
                        _ = try? expression.evaluate(in: ExprTestValues.standard)
                    }
                    count += 1
                }
                continuation.resume(returning: count)
            }
            thread.stackSize = 512 * 1024
            thread.start()
        }
        #expect(finished == inputs.count)
    }

    @Test("the worst inputs parse or fail as expected")
    func outcomes() {
        let parsed = Self.worstInputs.map { source in
            if case .failure(let error) = Expression.parse(source) { return error.message }
            return "ok"
        }
        #expect(
            parsed == [
                "ok", "expression nests too deeply", "ok", "ok", "ok", "ok", "ok", "ok", "ok",
                "expression nests too deeply", "expression nests too deeply",
            ])
    }
}
