import Foundation

/// Remembers, between runs, which stored keys a journey file declares secret, by what the
/// file holds: so that a run need not parse the journeys it does not reach to know that none
/// of them declares a key it touches secret (see ``ProjectLoader/secretDeclarations``).
///
/// What is remembered for a file's bytes must be exactly what parsing them gives, ever: an
/// implementation keys it by the bytes themselves (a digest of them), by `settings` and by
/// the program that parsed them, and answers nil whenever it is not sure.
public protocol SecretDeclarationMemory: Sendable {
    /// The stored keys that a journey file holding exactly `content` declares secret (none
    /// when it is no journey or does not load), as remembered for `settings`; nil when
    /// nothing trustworthy is remembered.
    func secretStoredKeys(declaredBy content: Data, settings: String) -> [String]?

    /// Remembers that a journey file holding exactly `content` declares `keys` secret, when
    /// parsed and loaded with `settings`.
    func remember(_ keys: [String], declaredBy content: Data, settings: String)
}
