/// What a project file (`journeykit.yaml` at a project's root) says: the folders the project's
/// journeys live in and the defaults its commands start from.
///
/// ```yaml
/// journeys: [journeys]           # this project's journeys and scenarios (default: journeys)
/// uses: [../shared-flows/journeys]  # more journeys to call: another repo's, never tested here
/// defaults:
///   locale: en         # when neither --locale nor the scenario names one
///   jobs: 4            # journey test --jobs
///   kdfRounds: 1000    # a scenario's device.kdfRounds when it sets none
/// ```
public struct ProjectSettings: Sendable, Hashable {
    /// The name commands look for, in the working folder and each folder above it.
    public static let fileName = "journeykit.yaml"

    /// The project's journey folders, as written (relative to the project file's folder unless
    /// absolute): what `check`, `test` and `docs` work on when given no path. Empty when the
    /// file names none: the `journeys` folder beside it.
    public var journeys: [Located<String>]
    /// Folders of journeys the project's journeys may call or play (another repo's, a shared
    /// library): searched for what is called, never checked, tested, documented or recorded
    /// as the project's own.
    public var uses: [Located<String>]
    /// The locale a scenario's texts are rendered in when neither `--locale` nor the scenario
    /// names one; a journey without texts in it uses its own default.
    public var locale: String?
    /// How many scenarios `journey test` runs at the same time when `--jobs` is not given.
    public var jobs: Int?
    /// The rounds of key derivation for a scenario whose device sets no `kdfRounds`.
    public var kdfRounds: Int?
    /// Handlers the project adds as programs (`handlers:`), in the order written.
    public var handlers: [ExternalHandlerDeclaration]

    public init(
        journeys: [Located<String>], uses: [Located<String>] = [], locale: String? = nil, jobs: Int? = nil,
        kdfRounds: Int? = nil, handlers: [ExternalHandlerDeclaration] = []
    ) {
        self.journeys = journeys
        self.uses = uses
        self.locale = locale
        self.jobs = jobs
        self.kdfRounds = kdfRounds
        self.handlers = handlers
    }
}
