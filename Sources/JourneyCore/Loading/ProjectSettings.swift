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
///   explore: { depth: 200, states: 500000, restarts: 3, memory: 4GiB }   # journey explore, journey test --explore
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
    /// Where `defaults.locale` is written, for what is said of it.
    public var localeLocation: SourceLocation?
    /// How many scenarios `journey test` runs at the same time when `--jobs` is not given.
    public var jobs: Int?
    /// The rounds of key derivation for a scenario whose device sets no `kdfRounds`.
    public var kdfRounds: Int?
    /// Handlers the project adds as programs (`handlers:`), in the order written.
    public var handlers: [ExternalHandlerDeclaration]
    /// The bounds `journey explore` keeps to where its options do not say, and `journey test
    /// --explore` keeps to (`defaults.explore`).
    public var explore = ExploreDefaults()

    /// A project file's `defaults.explore`: each bound it sets, nil where it keeps the
    /// explorer's own (``JourneyExplorer/Bounds``).
    public struct ExploreDefaults: Sendable, Hashable {
        public var depth: Int?
        public var restarts: Int?
        public var states: Int?
        /// The memory the process may hold while exploring, in bytes (``MemorySize``).
        public var memory: UInt64?

        public init(depth: Int? = nil, restarts: Int? = nil, states: Int? = nil, memory: UInt64? = nil) {
            self.depth = depth
            self.restarts = restarts
            self.states = states
            self.memory = memory
        }

        /// The bounds of an exploration: those given (a command's options), else these, else
        /// the explorer's own.
        public func bounds(
            depth givenDepth: Int? = nil, restarts givenRestarts: Int? = nil, states givenStates: Int? = nil,
            clockJumps: [Int]? = nil, offline: Bool = true
        ) -> JourneyExplorer.Bounds {
            let standard = JourneyExplorer.Bounds()
            return JourneyExplorer.Bounds(
                depth: givenDepth ?? depth ?? standard.depth, restarts: givenRestarts ?? restarts ?? standard.restarts,
                states: givenStates ?? states ?? standard.states, clockJumps: clockJumps, offline: offline)
        }
    }

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
