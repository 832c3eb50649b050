import JourneyCLI

await JourneyCLI.main()
