import AcmeHandlers
import JourneyCLI

await JourneyCLI.main(handlers: [RiskScoreHandler()])
