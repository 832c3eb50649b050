#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file descriptor written with `write(2)`. Partial writes are continued, `EINTR` is
/// retried and a non-blocking descriptor is waited for, so what is left is a real failure —
/// a full disk, a closed pipe, a bad descriptor — reported as a ``SystemError``, never trapped
/// on (Foundation's `FileHandle.write` ends in `try!`).
struct Descriptor {
    let raw: Int32

    /// Writes every byte of `text`.
    func write(_ text: String) throws(SystemError) {
        var text = text
        if let failure = text.withUTF8({ writeAll(UnsafeRawBufferPointer($0)) }) { throw failure }
    }

    /// Writes every byte of `bytes`.
    func write(_ bytes: [UInt8]) throws(SystemError) {
        if let failure = bytes.withUnsafeBytes({ writeAll($0) }) { throw failure }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) -> SystemError? {
        guard var next = bytes.baseAddress else { return nil }
        var left = bytes.count
        while left > 0 {
            let written = systemWrite(raw, next, left)
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK {
                    var ready = pollfd(fd: raw, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                    continue
                }
                return SystemError(code)
            }
            next += written
            left -= written
        }
        return nil
    }
}

/// A failed system call: its `errno`, described by `strerror`.
struct SystemError: Error, CustomStringConvertible, Equatable {
    var code: Int32

    /// The error of the last failed call (`errno`).
    init() { code = errno }

    init(_ code: Int32) { self.code = code }

    var description: String { String(cString: strerror(code)) }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
